"""Bounds for multiplicative weights and MWEM (IDC-AlgA.2, IDC-ThmA.4, MWEM after Hardt, Ligett & McSherry
2012, PROJ-R4; chapters 09–10).

Units: ``alpha`` is normalised (an error on answers in ``[0,1]``) unless a name says ``counts``.  ``ln`` is
the natural log.
"""
from __future__ import annotations

import math

from ..validation import check_alpha, check_delta, check_epsilon, check_int
from .registry import DWORK_ROTH, GRU, HARDT_ROTHBLUM, HLM, PROJECTION_NOTES, Result

__all__ = [
    "mw_bound", "mw_potential_drop", "mw_initial_potential_bound",
    "mwem_epsilon_split", "mwem_measurement_scale",
    "hlm_error_bound", "hlm_failure_probability", "hlm_optimal_rounds", "hlm_sample_complexity",
    "mw_sample_complexity", "mwem_advanced_step_epsilon",
]


def _check_N(N) -> int:
    return check_int("N", N, low=1)


def mw_bound(alpha, N) -> float:
    """``B(α) = 4 ln N / α²`` (IDC-ThmA.4 ≡ DR-Thm4.10): the most updates MW can make, each ``α``-wrong.

    ``alpha`` normalised; in GRU's counts ``B(α_u) = 4 n² ln N / α_u²`` is the same number with ``α = α_u/n``.
    """
    alpha = check_alpha(alpha)
    return 4.0 * math.log(_check_N(N)) / alpha ** 2


def mw_potential_drop(alpha) -> float:
    """``α²/4``: the least drop of ``Ψ_t = KL(D̄‖D^t)`` in a valid update with ``η = α/2`` (IDC-LemmaA.6).

    The lemma gives ``Ψ_t − Ψ_{t+1} >= η(<r,D^t> − <r,D̄>) − η²`` with bracket ``>= α``: ``α²/2 − α²/4``.
    """
    alpha = check_alpha(alpha)
    return alpha ** 2 / 4.0


def mw_initial_potential_bound(N) -> float:
    """``Ψ_0 <= ln N`` for the uniform start ``D^0 = 1/N`` (IDC-ClaimA.5 ≡ DR-Prop4.11)."""
    return math.log(_check_N(N))


# --------------------------------------------------------------------------- MWEM (HLM12) [RECALLED]

def mwem_epsilon_split(epsilon, T) -> tuple[float, float]:
    """MWEM's per-round budget: ``(ε/(2T), ε/(2T))`` for the exponential mechanism and the Laplace measurement.

    ``2T`` primitive steps, basic composition: they add up to ``ε`` (the privacy proof of MWEM, Hardt, Ligett &
    McSherry 2012).
    """
    share = check_epsilon(epsilon) / (2 * check_int("T", T, low=1))
    return share, share


def mwem_measurement_scale(epsilon, T) -> float:
    """The Laplace scale of one MWEM measurement in counts: ``2T/ε`` (``Lap(1/ε_measure)``, sensitivity 1)."""
    return 1.0 / mwem_epsilon_split(epsilon, T)[1]


def hlm_error_bound(n, N, m, T, epsilon) -> float:
    """HLM Thm 2.2 [RECALLED], normalised: ``max_q |q(Ā) − q(B)|/n <= 2 sqrt(ln N / T) + 10 T ln m / (ε n)``.

    In counts this is ``2n sqrt(ln N/T) + 10 T ln|Q|/ε``; it holds with probability ``>= 1 − 2T/m``
    (:func:`hlm_failure_probability`).  The constants are recalled, not checked against the paper: the
    chapter tests them empirically and never presents them as verified.
    """
    n = check_int("n", n, low=1)                       # the (public) record count
    N = check_int("N", N, low=1)
    m = check_int("m", m, low=1)
    T = check_int("T", T, low=1)
    epsilon = check_epsilon(epsilon)
    return 2.0 * math.sqrt(math.log(N) / T) + 10.0 * T * math.log(m) / (epsilon * n)


def hlm_failure_probability(T, m) -> float:
    """``2T/m`` (capped at 1): the failure probability of HLM Thm 2.2 [RECALLED]."""
    return min(1.0, 2.0 * check_int("T", T, low=1) / check_int("m", m, low=1))


def hlm_optimal_rounds(n, N, m, epsilon) -> float:
    """The ``T`` minimising :func:`hlm_error_bound` (continuous): ``T* = (ε n sqrt(ln N) / (10 ln m))^{2/3}``.

    [DERIVED] from ``d/dT [a T^{-1/2} + b T] = 0`` with ``a = 2 sqrt(ln N)``, ``b = 10 ln m/(ε n)``: the book's
    ``T ∝ (εn)^{2/3}(ln N)^{1/3}/(ln m)^{2/3}``.  ``m >= 2`` (``ln m > 0``).
    """
    n = check_int("n", n, low=1)                       # the (public) record count
    N = check_int("N", N, low=1)
    m = check_int("m", m, low=2)
    epsilon = check_epsilon(epsilon)
    return (epsilon * n * math.sqrt(math.log(N)) / (10.0 * math.log(m))) ** (2.0 / 3.0)


def hlm_sample_complexity(alpha, N, m, epsilon) -> float:
    """The ``n`` at which the HLM bound at its best ``T`` reaches ``α``: ``n = 270 ln N ln m / (ε α³)`` [DERIVED].

    At ``T*`` the bound is ``3 (ln N)^{1/3} (10 ln m/(ε n))^{1/3}`` (the pure ε-DP rate ``n ~ 1/α³``; ``T``
    treated as continuous).
    """
    alpha = check_alpha(alpha)
    N = check_int("N", N, low=1)
    m = check_int("m", m, low=1)
    epsilon = check_epsilon(epsilon)
    return 270.0 * math.log(N) * math.log(m) / (epsilon * alpha ** 3)


def mw_sample_complexity(alpha, N, m, epsilon, delta) -> float:
    """PROJ-R4 (= DR-Thm4.15) shape: ``n = sqrt(ln N) · ln m · sqrt(ln(1/δ)) / (α² ε)`` — constant 1.

    The seed states ``n = Ω(·)`` without a constant, so this is the *shape* (for SLOPE checks and plots
    labelled "shape, constant unknown"), not a bound.  ``(ε, δ)``-DP version; ``δ`` in ``(0, 1)``.
    """
    alpha = check_alpha(alpha)
    N = check_int("N", N, low=1)
    m = check_int("m", m, low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    return math.sqrt(math.log(N)) * math.log(m) * math.sqrt(math.log(1.0 / delta)) / (alpha ** 2 * epsilon)


def mwem_advanced_step_epsilon(epsilon, T, delta_prime) -> float:
    """The largest per-step ``ε0`` whose ``2T`` MWEM steps compose to ``ε`` by DR-Thm3.20 with ``δ'``.

    Solves ``sqrt(2k ln(1/δ')) ε0 + k ε0 (e^{ε0} − 1) = ε`` for ``ε0`` (``k = 2T``) with
    :func:`~dpbook.theory.composition.tight_per_step_epsilon`, rounded down so it never overshoots.  The whole run
    is then ``(ε, δ')``-DP instead of ``ε``-DP; compare :func:`mwem_epsilon_split` (basic composition, ``ε/(2T)``).
    DR-Cor3.21's closed form ``ε/(2 sqrt(2k ln(1/δ')))`` is smaller: it leaves half the budget unspent.
    """
    from .composition import tight_per_step_epsilon
    epsilon = check_epsilon(epsilon, high=100.0)
    T = check_int("T", T, low=1, high=10 ** 7)
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    return tight_per_step_epsilon(epsilon, 2 * T, delta_prime)


# --- the results chapter 09 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "09_mwem"
RESULTS = (
    Result(id="IDC-AlgA.2", title="The multiplicative-weights update", chapter=_CH,
           section="The multiplicative-weights update", aliases=("DR-Alg5",),
           statement=r"Start from the uniform distribution over the universe; on a query whose hypothesis answer is too high "
                     r"(low), multiply the weight of each element by $e^{-\eta q(x)}$ ($e^{-\eta(1-q(x))}$) and renormalise, "
                     r"with $\eta=\alpha/2$.",
           implemented_by=("dpbook.multiplicative_weights.idc_mw_update",
                           "dpbook.multiplicative_weights.multiplicative_weights_update",
                           "dpbook.multiplicative_weights.uniform_hypothesis", "dpbook.idc.MultiplicativeWeightsIDC"),
           source=f"{GRU}, Algorithm A.2; {DWORK_ROTH}, Algorithm 5; {HARDT_ROTHBLUM}"),
    Result(id="IDC-ThmA.4", title="MW makes few updates", chapter=_CH, section="The multiplicative-weights update",
           aliases=("DR-Thm4.10",),
           statement=r"Multiplicative weights is an iterative database construction with $B(\alpha)=4\ln N/\alpha^2$: it can "
                     r"be corrected on an α-wrong query at most that many times, for any class of linear queries.",
           implemented_by=("dpbook.idc.MultiplicativeWeightsIDC",),
           bounds=("dpbook.theory.mwem.mw_bound",),
           source=f"{GRU}, Thm. A.4; {DWORK_ROTH}, Thm. 4.10"),
    Result(id="IDC-ClaimA.5", title="The MW potential starts below ln N", chapter=_CH,
           section="The multiplicative-weights update", aliases=("DR-Prop4.11",),
           statement=r"The potential $\Psi_t=\mathrm{KL}(\bar D\|D^t)$ is never negative and starts at most at $\ln N$ from the "
                     r"uniform hypothesis.",
           implemented_by=("dpbook.multiplicative_weights.kl_potential",),
           bounds=("dpbook.theory.mwem.mw_initial_potential_bound",),
           source=f"{GRU}, Claim A.5; {DWORK_ROTH}, Prop. 4.11"),
    Result(id="IDC-LemmaA.6", title="Each MW update lowers the potential", chapter=_CH,
           section="The multiplicative-weights update", aliases=("DR-Lemma4.12",),
           statement=r"An update on a query the hypothesis gets at least α wrong lowers $\Psi_t$ by at least $\alpha^2/4$ "
                     r"(with $\eta=\alpha/2$), so at most $4\ln N/\alpha^2$ updates fit under $\Psi_0\le\ln N$.",
           implemented_by=("dpbook.multiplicative_weights.kl_potential",),
           bounds=("dpbook.theory.mwem.mw_potential_drop",),
           source=f"{GRU}, Lemma A.6; {DWORK_ROTH}, Lemma 4.12"),
    Result(id="MWEM", title="MWEM: multiplicative weights with the exponential mechanism", chapter=_CH,
           section="MWEM (Hardt–Ligett–McSherry 2012)",
           statement=r"For $T$ rounds: pick a badly answered query with the exponential mechanism ($\varepsilon/(2T)$), measure "
                     r"it with Laplace noise ($\varepsilon/(2T)$), and apply a multiplicative-weights step; output the average "
                     r"hypothesis. It is ε-DP by basic composition, and its recalled bound is "
                     r"$2n\sqrt{\ln N/T}+10T\ln m/\varepsilon$ counts for $m$ queries w.p. $1-2T/m$.",
           implemented_by=("dpbook.mwem.mwem",),
           bounds=("dpbook.theory.mwem.mwem_epsilon_split", "dpbook.theory.mwem.mwem_measurement_scale",
                   "dpbook.theory.mwem.hlm_error_bound", "dpbook.theory.mwem.hlm_failure_probability",
                   "dpbook.theory.mwem.hlm_optimal_rounds", "dpbook.theory.mwem.hlm_sample_complexity",
                   "dpbook.theory.mwem.mwem_advanced_step_epsilon"),
           source=f"{HLM} (constants recalled, not re-derived)"),
    Result(id="PROJ-R4", title="Sample size of private multiplicative weights", chapter=_CH,
           section="Accuracy against the HLM bound",
           statement=r"Private multiplicative weights answers $m$ queries within α under $(\varepsilon,\delta)$-DP once "
                     r"$n=\Omega(\sqrt{\log N}\,\log m\,\sqrt{\log(1/\delta)}/(\alpha^2\varepsilon))$: only logarithmic in $m$ "
                     r"(the same rate as DR-Thm4.15).",
           implemented_by=("dpbook.idc.online_mw_dr", "dpbook.mwem.mwem"),
           bounds=("dpbook.theory.mwem.mw_sample_complexity",),
           source=f"{PROJECTION_NOTES}, recap of {HARDT_ROTHBLUM}"),
)
