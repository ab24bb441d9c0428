"""Bounds and exact probabilities for the sparse vector technique (DR-Alg1–3, LEC3-3.6; chapter 06).

Units: the ``m`` queries ``f_1, …, f_m`` have sensitivity 1 (counts).  Every bound takes an optional ``n`` and is divided
by it for normalised answers ``f_i / n`` (sensitivity ``1/n``; ``n`` public), the book's convention for normalised
answers.

* noise scales: :func:`above_threshold_scales` (DR-Alg1), :func:`sparse_sigma` (DR-Alg2),
  :func:`numeric_sparse_split` and :func:`numeric_sparse_sigma` (DR-Alg3, box values);
* privacy: :func:`sparse_per_run_epsilon` (LEC3-3.6 / DR-Thm3.25) and :func:`sparse_composed_epsilon`,
  the guarantee the ``c`` runs actually compose to (basic or advanced composition, DR-Thm3.20);
* accuracy: :func:`above_threshold_alpha` (DR-Thm3.24), :func:`sparse_vector_alpha` (DR-Thm3.26),
  :func:`numeric_sparse_alpha` (DR-Thm3.28 as printed) and :func:`numeric_sparse_alpha_corrected`
  (DR-Thm3.28 with the numeric answers' own noise accounted for: the printed δ > 0 value is too small,
  see the docstring);
* exact probabilities for the LEC3-3.6 measure: :func:`laplace_difference_cdf`,
  :func:`first_j_bottom_probability`, :func:`first_j_bottom_log_ratio` — the correct AboveThreshold
  (one threshold draw, integrated numerically) against the seed's flawed "re-noise the threshold at every
  check" reading (erratum LEC3-E10), whose log-ratio grows linearly in the number ``j`` of ``⊥`` answers.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import EPSILON_EXP_MAX, check_scale, check_sensitivity, check_beta, check_delta, check_epsilon, check_int, check_real, check_real_array
from .composition import advanced_composition
from .registry import DWORK_ROTH, LECTURE3, LYU_SU_LI, THIS_BOOK, Result

__all__ = [
    "above_threshold_scales", "sparse_sigma", "sparse_per_run_epsilon", "sparse_composed_epsilon",
    "numeric_sparse_split", "numeric_sparse_sigma", "numeric_sparse_composed_epsilon",
    "above_threshold_alpha", "sparse_vector_alpha", "numeric_sparse_alpha", "numeric_sparse_value_alpha",
    "numeric_sparse_alpha_corrected", "laplace_difference_cdf", "first_j_bottom_probability",
    "first_j_bottom_log_ratio",
]

SQRT512 = math.sqrt(512.0)


def _per_n(value: float, n) -> float:
    return value if n is None else value / check_int("n", n, low=1)


# ----------------------------------------------------------------------------------------- noise scales

def above_threshold_scales(epsilon, sensitivity=1.0) -> tuple[float, float]:
    """DR-Alg1: threshold noise ``Lap(2Δ/ε)`` (drawn once) and query noise ``Lap(4Δ/ε)`` (fresh per query).

    Returns ``(threshold_scale, query_scale)``; ``Δ = 1`` for counts, ``1/n`` for normalised answers.
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    return 2.0 * sensitivity / epsilon, 4.0 * sensitivity / epsilon


def sparse_sigma(epsilon, c, delta=0.0) -> float:
    """DR-Alg2: ``σ = 2c/ε`` if ``δ = 0``, else ``σ = sqrt(32 c ln(1/δ))/ε``.

    Sparse draws each threshold as ``τ + Lap(σ)`` and each query noise as ``Lap(2σ)``: exactly
    AboveThreshold's scales ``(2/ε', 4/ε')`` at the per-run budget ``ε'`` of :func:`sparse_per_run_epsilon`.
    """
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, low=1)
    delta = check_delta(delta)
    return 2.0 * c / epsilon if delta == 0.0 else math.sqrt(32.0 * c * math.log(1.0 / delta)) / epsilon


def sparse_per_run_epsilon(epsilon, c, delta=0.0) -> float:
    """LEC3-3.6 / DR-Thm3.25: each of the ``c`` AboveThreshold runs gets ``ε/c`` (``δ = 0``) or
    ``ε/sqrt(8c ln(1/δ))`` (``δ > 0``, advanced composition, DR-Cor3.21)."""
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, low=1)
    delta = check_delta(delta)
    return epsilon / c if delta == 0.0 else epsilon / math.sqrt(8.0 * c * math.log(1.0 / delta))


def _composed(epsilon_each: float, c: int, delta_prime: float) -> float:
    """The smaller of basic composition ``c ε`` and advanced composition (DR-Thm3.20) at ``δ'``."""
    basic = c * epsilon_each
    if delta_prime == 0.0:
        return basic
    return min(basic, advanced_composition(epsilon_each, c, delta_prime)[0])


def sparse_composed_epsilon(epsilon, c, delta=0.0) -> float:
    """The ε that ``c`` runs of AboveThreshold at :func:`sparse_per_run_epsilon` provably compose to.

    ``δ = 0``: basic composition gives exactly ``ε``.  ``δ > 0``: the smaller of basic composition and
    DR-Thm3.20 with ``δ' = δ``; DR-Cor3.21 makes this ``<= ε`` for ``ε < 1``, and it also holds far beyond
    (the mechanism refuses parameters where it does not: fail closed).
    """
    c = check_int("c", c, low=1)
    return _composed(sparse_per_run_epsilon(epsilon, c, delta), c, check_delta(delta))


def numeric_sparse_split(epsilon, delta=0.0) -> tuple[float, float]:
    """DR-Alg3 box values: ``(ε1, ε2) = (8ε/9, 2ε/9)`` if ``δ = 0``, else
    ``(sqrt512/(sqrt512+1) ε, 2/(sqrt512+1) ε)``.

    ``ε1`` runs Sparse; ``ε2`` is twice the share of the proof of DR-Thm3.27 because ``σ(ε) = 2c/ε``
    carries a factor 2: the ``c`` numeric answers cost ``ε2/2`` in total, and ``ε1 + ε2/2 = ε``.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if delta == 0.0:
        return 8.0 * epsilon / 9.0, 2.0 * epsilon / 9.0
    return SQRT512 / (SQRT512 + 1.0) * epsilon, 2.0 / (SQRT512 + 1.0) * epsilon


def numeric_sparse_sigma(epsilon, c, delta=0.0) -> float:
    """DR-Alg3: ``σ(ε) = 2c/ε`` if ``δ = 0``, else ``sqrt(32 c ln(2/δ))/ε`` (``δ/2`` for each half)."""
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, low=1)
    delta = check_delta(delta)
    return 2.0 * c / epsilon if delta == 0.0 else math.sqrt(32.0 * c * math.log(2.0 / delta)) / epsilon


def numeric_sparse_composed_epsilon(epsilon, c, delta=0.0) -> float:
    """The ε that NumericSparse's two parts provably compose to (DR-Thm3.27).

    Sparse at threshold scale ``σ(ε1)`` is ``c`` AboveThreshold runs of ``2/σ(ε1)`` each; the ``c`` numeric
    answers are Laplace releases of ``1/σ(ε2)`` each.  Each group is composed (basic, or advanced at
    ``δ/2`` when ``δ > 0``) and the two results are added; with ``δ = 0`` this is exactly ``ε``.
    """
    c = check_int("c", c, low=1)
    delta = check_delta(delta)
    epsilon1, epsilon2 = numeric_sparse_split(epsilon, delta)
    at_each = 2.0 / numeric_sparse_sigma(epsilon1, c, delta)
    value_each = 1.0 / numeric_sparse_sigma(epsilon2, c, delta)
    return _composed(at_each, c, delta / 2) + _composed(value_each, c, delta / 2)


# ----------------------------------------------------------------------------------------- accuracy

def above_threshold_alpha(m, beta, epsilon, n=None) -> float:
    """DR-Thm3.24: ``α = 8(ln m + ln(2/β))/ε`` for a stream of ``m`` queries (divided by ``n`` for normalised answers).

    Except with probability ``β``: every ``⊤`` has ``f_i >= τ - α`` and every ``⊥`` has ``f_i <= τ + α``
    (``|ν_i| < α/2`` for all ``m`` query noises and ``|ρ| < α/2`` for the threshold noise).
    """
    m = check_int("m", m, low=1)
    beta = check_beta(beta)
    epsilon = check_epsilon(epsilon)
    return _per_n(8.0 * (math.log(m) + math.log(2.0 / beta)) / epsilon, n)


def sparse_vector_alpha(m, c, beta, epsilon, delta=0.0, n=None) -> float:
    """DR-Thm3.26 for ``m`` queries and at most ``c`` ``⊤`` answers: ``α = 8c(ln m + ln(2c/β))/ε`` (``δ = 0``; the
    translation's "8x" is ``8c``) or ``α = (ln m + ln(2c/β)) sqrt(512 c ln(1/δ))/ε`` (``δ > 0``) — AboveThreshold's
    α at ``ε'`` and ``β/c``."""
    m = check_int("m", m, low=1)
    c = check_int("c", c, low=1)
    beta = check_beta(beta)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    log_term = math.log(m) + math.log(2.0 * c / beta)
    if delta == 0.0:
        return _per_n(8.0 * c * log_term / epsilon, n)
    return _per_n(log_term * math.sqrt(512.0 * c * math.log(1.0 / delta)) / epsilon, n)


def numeric_sparse_alpha(m, c, beta, epsilon, delta=0.0, n=None) -> float:
    """DR-Thm3.28 as printed, for ``m`` queries and at most ``c`` ``⊤`` answers: ``α = 9c(ln m + ln(4c/β))/ε``
    (``δ = 0``) or ``α = (ln m + ln(4c/β)) sqrt(c ln(2/δ)) (sqrt512+1)/ε`` (``δ > 0``).

    This is Sparse's α at ``(ε1, β/2)``.  For ``δ = 0`` it also covers the numeric answers (their noise
    ``Lap(9c/ε)`` stays below ``9c ln(2c/β)/ε`` except with probability ``β/2``).  For ``δ > 0`` it does **not**:
    the numeric noise is ``Lap(sqrt(8 c ln(2/δ)) (sqrt512+1)/ε)``, sqrt(8) times the unit of this α, and
    e.g. at ``m = c = 1``, ``β = 0.05`` a numeric answer misses the printed α with probability 0.21.  Use
    :func:`numeric_sparse_alpha_corrected` for a valid bound.
    """
    m = check_int("m", m, low=1)
    c = check_int("c", c, low=1)
    beta = check_beta(beta)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    log_term = math.log(m) + math.log(4.0 * c / beta)
    if delta == 0.0:
        return _per_n(9.0 * c * log_term / epsilon, n)
    return _per_n(log_term * math.sqrt(c * math.log(2.0 / delta)) * (SQRT512 + 1.0) / epsilon, n)


def numeric_sparse_value_alpha(c, beta, epsilon, delta=0.0, n=None) -> float:
    """The numeric answers' part of DR-Thm3.28's proof: ``σ(ε2) ln(2c/β)`` bounds all ``<= c`` numeric
    errors ``|a_i - f_i|`` except with probability ``β/2`` (union bound over ``c`` Laplace draws)."""
    c = check_int("c", c, low=1)
    beta = check_beta(beta)
    epsilon2 = numeric_sparse_split(epsilon, delta)[1]
    return _per_n(numeric_sparse_sigma(epsilon2, c, delta) * math.log(2.0 * c / beta), n)


def numeric_sparse_alpha_corrected(m, c, beta, epsilon, delta=0.0, n=None) -> float:
    """DR-Thm3.28 with both halves of its proof (erratum DR-E1), for ``m`` queries and at most ``c`` ``⊤`` answers:
    ``max(numeric_sparse_alpha, numeric_sparse_value_alpha)``.

    Equal to the printed value for ``δ = 0``; larger for ``δ > 0`` unless ``ln(2m) >= (sqrt8 - 1) ln(2c/β)``.
    """
    return max(numeric_sparse_alpha(m, c, beta, epsilon, delta, n),
               numeric_sparse_value_alpha(c, beta, epsilon, delta, n))


# ----------------------------------------------------------------------------------------- exact probabilities

def laplace_difference_cdf(z, b1, b2):
    """CDF ``P[ν - ρ <= z]``, at the point(s) ``z``, of the difference of independent ``ν ~ Lap(b1)`` and
    ``ρ ~ Lap(b2)``.

    From the density ``(b1 e^{-|u|/b1} - b2 e^{-|u|/b2}) / (2(b1² - b2²))``: for ``z <= 0``,
    ``(b1² e^{z/b1} - b2² e^{z/b2}) / (2(b1² - b2²))``, and ``1 - cdf(-z)`` for ``z > 0``;
    ``e^{-|z|/b}(2 + |z|/b)/4`` for the tail when ``b1 = b2 = b``.
    """
    b1 = check_scale(b1, "b1")
    b2 = check_scale(b2, "b2")
    z = check_real_array("z", z)
    u = -np.abs(z)                                    # the lower tail at -|z|
    if math.isclose(b1, b2, rel_tol=1e-9):
        lower = np.exp(u / b1) * (2.0 - u / b1) / 4.0
    else:
        lower = (b1 ** 2 * np.exp(u / b1) - b2 ** 2 * np.exp(u / b2)) / (2.0 * (b1 ** 2 - b2 ** 2))
    return np.where(z <= 0, lower, 1.0 - lower)


#: Beyond 10^7 ⊥ answers (or outside epsilon in [1e-4, 100]) the quadrature of ``F^j`` loses its tolerance (scipy's
#: roundoff warning): refused.
MAX_J_QUADRATURE = 10 ** 7


def first_j_bottom_probability(j, epsilon, shift=0.0, variant="correct") -> float:
    """``P[the first j answers are ⊥]`` (``j`` the number of ``⊥`` answers) for AboveThreshold at ε with every
    ``f_i = τ + shift`` (sensitivity 1).

    ``variant="correct"`` (DR-Alg1): one threshold ``ρ ~ Lap(2/ε)``, so the answers are dependent and
    ``P = ∫ p_ρ(r) F_ν(r - shift)^j dr`` with ``ν ~ Lap(4/ε)`` — integrated numerically.
    ``variant="renoise"`` (the seed's reading, erratum LEC3-E10): a fresh threshold at every check makes the
    answers independent, ``P = G(-shift)^j`` with ``G`` the CDF of ``ν - ρ``.
    The LEC3-3.6 measure compares ``shift = 0`` (database D) with ``shift = 1`` (its neighbour D').
    """
    j = check_int("j", j, low=0, high=MAX_J_QUADRATURE)
    epsilon = check_epsilon(epsilon, high=EPSILON_EXP_MAX)
    if epsilon < 1e-4:                     # Laplace scales beyond 1e4: the quadrature no longer converges
        raise ValueError(f"epsilon ({epsilon!r}) must be in [0.0001, {EPSILON_EXP_MAX:g}] for this quadrature")
    shift = check_real("shift", shift)
    if variant not in ("correct", "renoise"):
        raise ValueError(f"variant ({variant!r}) must be 'correct' or 'renoise'")
    b_rho, b_nu = above_threshold_scales(epsilon)
    if variant == "renoise":
        return float(laplace_difference_cdf(-shift, b_nu, b_rho)) ** j

    def integrand(r):                                  # p_ρ(r) F_ν(r - shift)^j, F_ν the Laplace CDF (S1-Def5)
        z = (r - shift) / b_nu
        cdf = 0.5 * math.exp(z) if z <= 0 else 1.0 - 0.5 * math.exp(-z)
        return math.exp(-abs(r) / b_rho) / (2.0 * b_rho) * cdf ** j

    # break the line where the integrand bends: 0, shift, and where F_ν^j rises (r ≈ shift + b_ν ln j)
    knee = shift + b_nu * math.log(max(j, 1)) + 1.0
    cuts = sorted({min(0.0, shift), max(0.0, shift), max(knee, max(0.0, shift))})
    from scipy import integrate          # imported here: a chapter that never integrates skips it
    pieces = [integrate.quad(integrand, -np.inf, cuts[0], epsabs=0, epsrel=1e-11, limit=200)[0]]
    pieces += [integrate.quad(integrand, a, b, epsabs=0, epsrel=1e-11, limit=200)[0]
               for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    pieces.append(integrate.quad(integrand, cuts[-1], np.inf, epsabs=0, epsrel=1e-11, limit=200)[0])
    return float(sum(pieces))


def first_j_bottom_log_ratio(j, epsilon, variant="correct") -> float:
    """``ln(P_D[first j ⊥] / P_D'[first j ⊥])`` with ``f_i(D) = τ`` and ``f_i(D') = τ + 1`` (LEC3-3.6 measure).

    The correct AboveThreshold stays below ``ε`` for every ``j`` (it tends to ``ε/2``: only the single
    threshold draw has to move); the re-noising variant's is ``j ln(G(0)/G(-1))``, linear in ``j``.
    """
    if variant == "renoise":                                      # in log space: G(-1)^j underflows
        j = check_int("j", j, low=0)
        b_rho, b_nu = above_threshold_scales(epsilon)
        return j * math.log(0.5 / float(laplace_difference_cdf(-1.0, b_nu, b_rho)))
    return math.log(first_j_bottom_probability(j, epsilon, 0.0, variant)
                    / first_j_bottom_probability(j, epsilon, 1.0, variant))


# --- the results chapter 06 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "06_sparse_vector"
RESULTS = (
    Result(id="LEC3-3.6", title="Sparse vector: the idea", chapter=_CH, section="AboveThreshold (DR-Alg1)",
           statement=r"To find the few queries above a threshold while paying only for those: perturb the threshold once, "
                     r"give every query fresh noise, output only above/below, and stop after the first 'above' (or after "
                     r"$c$ of them, splitting the budget across the $c$ runs).",
           implemented_by=("dpbook.sparse_vector.above_threshold", "dpbook.sparse_vector.sparse_vector"),
           bounds=("dpbook.theory.sparse_vector.sparse_per_run_epsilon",),
           source=f"{LECTURE3}, §3.6 (corrected); {DWORK_ROTH}, §3.6"),
    Result(id="LEC3-E10", title="Erratum: the threshold is noised once, and no value is released", chapter=_CH,
           section="AboveThreshold (DR-Alg1)",
           statement=r"Correction: the threshold noise $\mathrm{Lap}(2/\varepsilon)$ is drawn once (re-noising it at every "
                     r"check is not ε-DP: the privacy loss grows linearly in the number of checks), each query gets fresh "
                     r"$\mathrm{Lap}(4/\varepsilon)$, and only ⊤/⊥ is output — releasing values is NumericSparse.",
           implemented_by=("dpbook.broken.sparse_vector.above_threshold_renoise_threshold",
                           "dpbook.broken.sparse_vector.above_threshold_outputs_value"),
           bounds=("dpbook.theory.sparse_vector.first_j_bottom_log_ratio",
                   "dpbook.theory.sparse_vector.first_j_bottom_probability"),
           source=f"{LECTURE3}, §3.6; {LYU_SU_LI}"),
    Result(id="DR-Alg1", title="AboveThreshold", chapter=_CH, section="AboveThreshold (DR-Alg1)",
           statement=r"Noise the threshold once with $\mathrm{Lap}(2\Delta/\varepsilon)$, add fresh $\mathrm{Lap}(4\Delta/\varepsilon)$ "
                     r"to each query answer, and halt at the first query whose noisy answer reaches the noisy threshold.",
           implemented_by=("dpbook.sparse_vector.above_threshold", "dpbook.sparse_vector.above_threshold_stream"),
           bounds=("dpbook.theory.sparse_vector.above_threshold_scales",),
           source=f"{DWORK_ROTH}, Algorithm 1"),
    Result(id="DR-Thm3.23", title="AboveThreshold is ε-DP", chapter=_CH, section="AboveThreshold (DR-Alg1)",
           statement=r"AboveThreshold is $\varepsilon$-DP however many queries it reads: the whole ⊥ prefix costs nothing "
                     r"beyond the one threshold draw, and the halting query costs the rest.",
           implemented_by=("dpbook.sparse_vector.above_threshold",),
           bounds=("dpbook.theory.sparse_vector.first_j_bottom_log_ratio",),
           source=f"{DWORK_ROTH}, Thm. 3.23"),
    Result(id="DR-Def3.9", title="Accuracy of a threshold test", chapter=_CH, section="AboveThreshold (DR-Alg1)",
           statement=r"A ⊤/⊥ stream is $(\alpha,\beta)$-accurate if, except with probability β, it does not stop early, every "
                     r"⊤ has $f_i(D)\ge \tau-\alpha$ and every ⊥ has $f_i(D)\le \tau+\alpha$.",
           implemented_by=("dpbook.sparse_vector.empirical_alpha",),
           source=f"{DWORK_ROTH}, Def. 3.9"),
    Result(id="DR-Thm3.24", title="Accuracy of AboveThreshold", chapter=_CH, section="AboveThreshold (DR-Alg1)",
           statement=r"On $m$ queries of which only the last is above $\tau-\alpha$, AboveThreshold is $(\alpha,\beta)$-accurate for "
                     r"$\alpha=8(\ln m+\ln(2/\beta))/\varepsilon$ (divide by $n$ for normalised answers).",
           implemented_by=("dpbook.sparse_vector.above_threshold",),
           bounds=("dpbook.theory.sparse_vector.above_threshold_alpha",),
           source=f"{DWORK_ROTH}, Thm. 3.24"),
    Result(id="DR-Alg2", title="Sparse: c positives", chapter=_CH, section="Sparse (DR-Alg2",
           statement=r"Run AboveThreshold until $c$ queries have come out ⊤, redrawing the threshold noise after each; the "
                     r"noise scale is $\sigma=2c/\varepsilon$ (pure) or $\sqrt{32c\ln(1/\delta)}/\varepsilon$.",
           implemented_by=("dpbook.sparse_vector.sparse_vector", "dpbook.sparse_vector.sparse_vector_stream"),
           bounds=("dpbook.theory.sparse_vector.sparse_sigma",),
           source=f"{DWORK_ROTH}, Algorithm 2"),
    Result(id="DR-Thm3.25", title="Sparse is private", chapter=_CH, section="Sparse (DR-Alg2",
           statement=r"Sparse is $(\varepsilon,\delta)$-DP: it is $c$ AboveThreshold runs at $\varepsilon/c$ each (basic "
                     r"composition) or at $\varepsilon/\sqrt{8c\ln(1/\delta)}$ each (advanced composition).",
           implemented_by=("dpbook.sparse_vector.sparse_vector",),
           bounds=("dpbook.theory.sparse_vector.sparse_per_run_epsilon",
                   "dpbook.theory.sparse_vector.sparse_composed_epsilon"),
           source=f"{DWORK_ROTH}, Thm. 3.25"),
    Result(id="DR-Thm3.26", title="Accuracy of Sparse", chapter=_CH, section="Sparse (DR-Alg2",
           statement=r"If at most $c$ of the $m$ queries are above $\tau-\alpha$, Sparse is $(\alpha,\beta)$-accurate with "
                     r"$\alpha=8c(\ln m+\ln(2c/\beta))/\varepsilon$ (pure) or "
                     r"$(\ln m+\ln(2c/\beta))\sqrt{512c\ln(1/\delta)}/\varepsilon$.",
           implemented_by=("dpbook.sparse_vector.sparse_vector",),
           bounds=("dpbook.theory.sparse_vector.sparse_vector_alpha",),
           source=f"{DWORK_ROTH}, Thm. 3.26"),
    Result(id="DR-Alg3", title="NumericSparse", chapter=_CH, section="NumericSparse (DR-Alg3",
           statement=r"Sparse run on $\varepsilon_1$ of the budget, which also releases $f_i(D)$ plus fresh Laplace noise "
                     r"(from the remaining $\varepsilon_2$) at each ⊤; split $8/9$ and $2/9$ in the pure case.",
           implemented_by=("dpbook.sparse_vector.numeric_sparse", "dpbook.sparse_vector.numeric_sparse_stream"),
           bounds=("dpbook.theory.sparse_vector.numeric_sparse_split", "dpbook.theory.sparse_vector.numeric_sparse_sigma"),
           source=f"{DWORK_ROTH}, Algorithm 3"),
    Result(id="DR-Thm3.27", title="NumericSparse is private", chapter=_CH, section="NumericSparse (DR-Alg3",
           statement=r"NumericSparse is $(\varepsilon,\delta)$-DP: the threshold part and the $c$ numeric releases compose to "
                     r"the stated budget.",
           implemented_by=("dpbook.sparse_vector.numeric_sparse",),
           bounds=("dpbook.theory.sparse_vector.numeric_sparse_composed_epsilon",),
           source=f"{DWORK_ROTH}, Thm. 3.27"),
    Result(id="DR-Def3.10", title="Accuracy of a numeric sparse stream", chapter=_CH, section="NumericSparse (DR-Alg3",
           statement=r"As DR-Def3.9, and in addition every released value is within α of $f_i(D)$.",
           implemented_by=("dpbook.sparse_vector.empirical_alpha",),
           source=f"{DWORK_ROTH}, Def. 3.10"),
    Result(id="DR-Thm3.28", title="Accuracy of NumericSparse", chapter=_CH, section="NumericSparse (DR-Alg3",
           statement=r"If at most $c$ queries are above $\tau-\alpha$, NumericSparse is $(\alpha,\beta)$-accurate with "
                     r"$\alpha=9c(\ln m+\ln(4c/\beta))/\varepsilon$ in the pure case (for $\delta>0$ see erratum DR-E1).",
           implemented_by=("dpbook.sparse_vector.numeric_sparse",),
           bounds=("dpbook.theory.sparse_vector.numeric_sparse_alpha",
                   "dpbook.theory.sparse_vector.numeric_sparse_alpha_corrected"),
           source=f"{DWORK_ROTH}, Thm. 3.28"),
    Result(id="DR-E1", title="Erratum: NumericSparse's released values when δ > 0", chapter=_CH,
           section="NumericSparse (DR-Alg3",
           statement=r"Correction: for $\delta>0$ the printed α covers only the ⊤/⊥ part; the released values carry "
                     r"$\sqrt8$ times more noise, so a valid α is $\frac{\sqrt{c\ln(2/\delta)}(\sqrt{512}+1)}{\varepsilon}"
                     r"\max\{\ln m+\ln\frac{4c}{\beta},\ \sqrt8\ln\frac{2c}{\beta}\}$ (at $m=c=1$, $\beta=0.05$ a value "
                     r"misses the printed α with probability 0.21). The pure case is correct.",
           bounds=("dpbook.theory.sparse_vector.numeric_sparse_alpha_corrected",
                   "dpbook.theory.sparse_vector.numeric_sparse_value_alpha"),
           source=THIS_BOOK),
)
