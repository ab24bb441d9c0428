"""Bounds for iterative database constructions (IDC) and online / offline query release (chapters 10–12).

Gupta, Roth & Ullman 2012 (GRU), online: IDC-Def3.1–3.2, IDC-Alg1, IDC-Alg1-SV, IDC-Thm4.1, IDC-Claims 4.2–4.8,
IDC-Thm4.9, IDC-Eq(3), IDC-Cor4.10, App. A, IDC-Alg2/Thm5.1, IDC-Cor5.2 and DR-Alg6; offline: IDC-Def7.1,
IDC-Alg3, IDC-Thm7.2–7.3.

Units: ``alpha`` and ``τ`` are **normalised** (errors on answers in ``[0,1]``, sensitivity ``1/n``) unless a
name ends in ``_counts`` (GRU's unnormalised units: multiply by ``n``).  ``ln`` is the natural log.

Provenance.  The copy of GRU available to us lost almost every displayed formula; the book restores them.
Functions tagged **[RECON]** carry constants that are *reconstructed* (ours, not the paper's): the shape is
reliable, the constants are not GRU's (the marks are explained in ``dpbook.theory`` and docs/bibliography.md).
The GRU universal constant ``C_GRU`` of Algorithm 1 was not recovered; every formula that needs it takes it as
an explicit argument (:func:`effective_c_gru` gives the value implied by the reconstructed Thm 4.1 condition).
For a privacy *claim* use IDC-Alg1-SV (:func:`sv_epsilon0` ...), which is built from DR-verified primitives.
"""
from __future__ import annotations

import functools
import math

from ..validation import EPSILON_EXP_MAX, EPSILON_RANGE, check_alpha, check_beta, check_delta, check_epsilon, check_int, check_positive_real, check_real
from .composition import advanced_composition
from .mwem import mw_bound, mw_initial_potential_bound, mw_potential_drop
from .sparse_vector import numeric_sparse_alpha_corrected
from .registry import DWORK_ROTH, FRIEZE_KANNAN, GRU, HARDT_ROTHBLUM, ROTH_ROUGHGARDEN, THIS_BOOK, Result

__all__ = [
    # IDC bounds B(alpha)
    "mw_bound", "mw_potential_drop", "mw_initial_potential_bound",
    "median_sample_size", "median_collection_size", "median_bound", "median_bound_approx",
    "fk_bound", "fk_potential_drop", "fk_step",
    # GRU Algorithm 1 (reconstructed)
    "alg1_threshold", "alg1_min_threshold", "alg1_error_bound", "alg1_accuracy_alpha",
    "p0", "non_r0_rounds_bound", "azuma_bound", "thm41_epsilon", "thm41_epsilon0", "effective_c_gru",
    "best_alpha", "alg1_best_alpha", "mw_online_alpha", "median_online_alpha", "fk_online_alpha_counts",
    # IDC-Alg1-SV (provable)
    "sv_updates", "sv_epsilon0", "sv_alpha_sv", "sv_alpha_l", "sv_threshold", "sv_error_bound",
    "sv_privacy_epsilon", "sv_epsilon0_tight", "sv_best_error_bound",
    # the privacy-loss picture: correct accounting of Algorithm 1 (erratum IDC-E6)
    "alg1_basic_epsilon", "alg1_azuma_epsilon", "alg1_round_second_moment_bound", "alg1_update_mass_bound",
    "alg1_freedman_epsilon", "alg1_freedman_epsilon0",
    # DR-Alg6
    "dr_online_mw_threshold", "dr_alg6_alpha_ns", "dr_alg6_error_bound", "dr_alg6_conditions", "dr_alg6_parameters",
    # offline IC (GRU §7)
    "distinguisher_F", "ic_gamma", "ic_epsilon0", "ic_privacy_epsilon", "ic_alpha_condition",
]


# --------------------------------------------------------------------------- IDC bounds B(alpha)

def median_sample_size(m, alpha) -> int:
    """IDC-ClaimA.3 / AlgA.1: ``n_S = floor(ln(2|Q|)/(2α²)) + 1`` rows (the sample size) suffice for an α-accurate
    database.

    (Blum–Ligett–Roth; DR-Lemma4.3 states ``ln|Q|/α²``.)  ``m = |Q|`` the number of queries.
    """
    m = check_int("m", m, low=1)
    alpha = check_alpha(alpha)
    return int(math.floor(math.log(2 * m) / (2 * alpha ** 2))) + 1


def median_collection_size(N, sample_size) -> int:
    """IDC-AlgA.1: ``|C^0| = C(N+n_S-1, n_S)``, the number of multisets of ``n_S = sample_size`` rows over ``N``
    elements (``<= N^{n_S}``)."""
    N = check_int("N", N, low=1)
    sample_size = check_int("sample_size", sample_size, low=1)
    return math.comb(N + sample_size - 1, sample_size)


def median_bound(N, sample_size) -> int:
    """IDC-ThmA.2 [RECON]: the median mechanism over databases of ``n_S = sample_size`` rows is a
    ``B = floor(log2 |C^0|)`` IDC (``<= n_S log2 N``).

    Each valid update keeps at most half of the collection and the α-accurate database of Claim A.3
    always survives, so at most ``floor(log2 |C^0|)`` updates can happen.
    """
    size = median_collection_size(N, sample_size)
    return size.bit_length() - 1                      # exact floor(log2) for a Python int


def median_bound_approx(alpha, N, m) -> float:
    """IDC-Cor4.10's form of the median bound: ``B(α) ≈ log2 N · ln(2|Q|)/(2α²)`` (``n_S log2 N`` with Claim A.3's
    ``n_S``)."""
    alpha = check_alpha(alpha)
    return math.log2(check_int("N", N, low=1)) * math.log(2 * check_int("m", m, low=1)) / (2 * alpha ** 2)


def fk_bound(alpha_counts, sq_norm, N) -> float:
    """IDC-Thm5.1 [RECON]: Frieze–Kannan is a ``B(α) = ||D||_2² N / α²`` IDC (unnormalised ``α``).

    ``sq_norm`` must be a *public* bound on ``||D||_2²`` (``n`` for sets, ``n²`` for multisets).  In normalised
    units (``α = α_counts/n``) the same number is ``||D||_2² N/(n² α²)``.
    """
    alpha_counts = check_alpha(alpha_counts, "alpha_counts")
    sq_norm = check_positive_real("sq_norm", sq_norm)
    return sq_norm * check_int("N", N, low=1) / alpha_counts ** 2


def fk_step(alpha_counts, N) -> float:
    """IDC-Alg2: the Frieze–Kannan step ``η = α/N`` (unnormalised)."""
    return check_alpha(alpha_counts, "alpha_counts") / check_int("N", N, low=1)


def fk_potential_drop(alpha_counts, N) -> float:
    """IDC-Thm5.1 proof: a valid update lowers ``||D - D^t||_2²`` by at least ``2ηα - η²N = α²/N``."""
    return check_alpha(alpha_counts, "alpha_counts") ** 2 / check_int("N", N, low=1)


# --------------------------------------------------------------------------- GRU Algorithm 1 [RECON]

def alg1_threshold(alpha) -> float:
    """IDC-Alg1 [RECON]: the threshold ``τ = 2α/3`` (with ``B_max = B(α/3)``)."""
    return 2.0 * check_alpha(alpha) / 3.0


def alg1_min_threshold(m, beta, epsilon0, n) -> float:
    """IDC-Thm4.9 precondition: ``τ >= 2 ln(m/β)/(ε0 n)`` makes ``max_i |Z_i| < τ/2`` w.p. ``>= 1-β``, over the
    ``m`` noises of a stream of ``m`` queries (one per round)."""
    m, beta = check_int("m", m, low=1), check_beta(beta)
    return 2.0 * math.log(m / beta) / (check_epsilon(epsilon0, "epsilon0") * check_int("n", n, low=1))


def alg1_error_bound(threshold) -> float:
    """IDC-Thm4.9: on the good event every answer of Algorithm 1 has error ``<= 3τ/2``."""
    return 1.5 * check_alpha(threshold, "threshold")


def alg1_accuracy_alpha(m, beta, epsilon0, n) -> float:
    """IDC-Thm4.9: Algorithm 1 on a stream of ``m`` queries is (α, β)-accurate for ``α = 3 ln(m/β)/(ε0 n)`` (and
    any larger α)."""
    return 1.5 * alg1_min_threshold(m, beta, epsilon0, n)


def p0(epsilon0) -> float:
    """IDC-Claim4.5 [RECON]: ``P[R¹_t | R¹_t ∪ R*_t] >= p0 = ½ e^{-2ε0}`` (Laplace tail memorylessness)."""
    return 0.5 * math.exp(-2.0 * check_epsilon(epsilon0, "epsilon0", high=EPSILON_EXP_MAX))


def non_r0_rounds_bound(b_max, delta, epsilon0) -> float:
    """IDC-Claim4.6 [RECON]: w.p. ``>= 1-δ/2`` at most ``T0 = (2(B_max+1) + 8 ln(2/δ))/p0`` rounds are not R⁰.

    ``T0`` (the symbol ``T_0``) is a number of rounds: a real bound on how many rounds of Algorithm 1 are not
    R⁰, for ``b_max`` (``B_max``, the update budget), ``delta`` and the per-round ``epsilon0``."""
    b_max = check_int("b_max", b_max, low=0)
    delta = check_delta(delta, positive=True)
    return (2.0 * (b_max + 1.0) + 8.0 * math.log(2.0 / delta)) / p0(epsilon0)


def azuma_bound(T, epsilon_star, delta) -> float:
    """IDC-Claim4.7 [RECON]: the privacy loss of ``T`` non-R⁰ rounds (a real bound on their number, e.g. ``T0``
    of :func:`non_r0_rounds_bound`), each ``|L_t| <= ε*``, exceeds ``T ε*(e^{ε*}-1) + 2ε* sqrt(2T ln(2/δ))`` with
    probability ``<= δ/2`` (Azuma; drift from IDC-Thm2.4)."""
    T = check_positive_real("T", T, allow_zero=True)
    epsilon_star = check_epsilon(epsilon_star, "epsilon_star", high=2 * EPSILON_EXP_MAX)
    delta = check_delta(delta, positive=True)
    return T * epsilon_star * math.expm1(epsilon_star) + 2.0 * epsilon_star * math.sqrt(2.0 * T * math.log(2.0 / delta))


def thm41_epsilon(epsilon0, b_max, delta, c_star=2.0) -> float:
    """IDC-Thm4.1 [RECON]: the ε that Algorithm 1 with per-round ``ε0`` is claimed to achieve:
    ``T0 ε*(e^{ε*}-1) + 2ε* sqrt(2 T0 ln(2/δ))`` with ``ε* = c* ε0`` and ``T0`` from :func:`non_r0_rounds_bound`.

    ``c*`` (Claim 4.3) was not recovered; the book uses ``c* = 2`` for illustration (an assumption, not GRU's value).
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=EPSILON_EXP_MAX)
    c_star = check_real("c_star", c_star, low=0.0, low_open=True)
    if c_star * epsilon0 > 2 * EPSILON_EXP_MAX:
        raise ValueError(f"c_star ({c_star!r}) x epsilon0 ({epsilon0!r}) = eps* must be <= {2 * EPSILON_EXP_MAX:g} "
                         "(the bound has e^eps* in it)")
    return azuma_bound(non_r0_rounds_bound(b_max, delta, epsilon0), c_star * epsilon0, delta)


def thm41_epsilon0(epsilon, b_max, delta, c_star=2.0) -> float:
    """IDC-Thm4.1 [RECON]: the largest ``ε0 <= min(1/2, 1/c*)`` with :func:`thm41_epsilon` ``<= ε`` (bisection).

    The right-hand side increases with ``ε0``.  The result is *reconstructed*: use IDC-Alg1-SV for a
    guaranteed privacy claim.  Raises ``ValueError`` (naming ``epsilon``) if even tiny ε0 cannot reach ε.
    """
    epsilon = check_epsilon(epsilon)
    c_star = check_real("c_star", c_star, low=0.0, low_open=True)
    hi = min(0.5, 1.0 / c_star)                       # Thm 4.1 assumes ε0 <= 1/2; Claim 4.4 needs ε* <= 1
    if thm41_epsilon(hi, b_max, delta, c_star) <= epsilon:
        return hi
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid < EPSILON_RANGE[0]:                    # below the smallest epsilon0: "too small" (below)
            break
        if thm41_epsilon(mid, b_max, delta, c_star) <= epsilon:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    if lo <= 0.0:
        raise ValueError(f"epsilon ({epsilon!r}) is too small for IDC-Thm4.1 at b_max={b_max}, delta={delta}")
    return lo


@functools.lru_cache(maxsize=4096)
def _thm41_epsilon0_cached(epsilon, b_max, delta, c_star) -> float:
    """:func:`thm41_epsilon0` remembered (a pure function of numbers): the root searches over α ask it for the
    same integer ``B_max`` many times as they converge."""
    return thm41_epsilon0(epsilon, b_max, delta, c_star)


def effective_c_gru(epsilon, epsilon0, b_max, delta) -> float:
    """The constant implied by an ``ε0``: ``C = ε/(ε0 sqrt(B_max ln(1/δ)))`` (IDC-Alg1's ``C_GRU``, [RECON])."""
    epsilon, epsilon0 = check_epsilon(epsilon), check_epsilon(epsilon0, "epsilon0")
    b_max = check_int("b_max", b_max, low=1)
    delta = check_delta(delta, positive=True)
    return epsilon / (epsilon0 * math.sqrt(b_max * math.log(1.0 / delta)))


def best_alpha(bound, m, beta, epsilon, delta, n, c_gru) -> float:
    """IDC-Eq(3) [RECON]: the root of ``α = 3 C sqrt(B(α/3) ln(1/δ)) ln(m/β)/(ε n)`` (bisection), ``m`` the number
    of queries in the stream.

    ``bound`` is the IDC's ``B(·)`` as a function of a normalised accuracy (decreasing in its argument, so
    the right-hand side decreases in ``α`` and the root is unique).  ``c_gru`` is ``C_GRU`` (not recovered).
    """
    if not callable(bound):
        raise TypeError(f"bound must be a function alpha -> B(alpha), got {type(bound).__name__}")
    m, beta, epsilon = check_int("m", m, low=1), check_beta(beta), check_epsilon(epsilon)
    delta, n = check_delta(delta, positive=True), check_int("n", n, low=1)
    c_gru = check_positive_real("c_gru", c_gru)

    def gap(a):
        return a - 3.0 * c_gru * math.sqrt(bound(a / 3.0) * math.log(1.0 / delta)) * math.log(m / beta) / (epsilon * n)

    lo, hi = 1e-12, 1.0
    while gap(hi) < 0:
        hi *= 2.0
        if hi > 1e12:
            raise ValueError("IDC-Eq(3) has no root below 1e12: check the bound function")
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
        if hi / lo - 1 < 1e-12:
            break
    return hi


def alg1_best_alpha(bound, m, beta, epsilon, delta, n, c_star=2.0) -> float:
    """IDC-Eq(3) with the reconstructed Thm 4.1 in place of ``C_GRU`` [RECON]: the root of
    ``α = 3 ln(m/β)/(ε0(α) n)`` with ``ε0(α) = thm41_epsilon0(ε, floor(B(α/3)), δ, c*)`` (bisection), ``m`` the
    number of queries in the stream.

    This is the smallest α for which Algorithm 1 with the reconstructed privacy calibration meets the
    accuracy precondition of IDC-Thm4.9.  The right-hand side decreases in α, so the root is unique.
    """
    if not callable(bound):
        raise TypeError(f"bound must be a function alpha -> B(alpha), got {type(bound).__name__}")
    m, beta, epsilon = check_int("m", m, low=1), check_beta(beta), check_epsilon(epsilon)
    delta, n = check_delta(delta, positive=True), check_int("n", n, low=1)
    c_star = check_real("c_star", c_star, low=0.0, low_open=True)

    def gap(a):
        eps0 = _thm41_epsilon0_cached(epsilon, math.floor(bound(a / 3.0)), delta, c_star)
        return a - alg1_accuracy_alpha(m, beta, eps0, n)

    lo, hi = 1e-9, 1.0
    while gap(hi) < 0:
        hi *= 2.0
        if hi > 1e12:
            raise ValueError("no root below 1e12: check the bound function")
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
        if hi / lo - 1 < 1e-10:
            break
    return hi


def mw_online_alpha(N, m, beta, epsilon, delta, n, c_gru) -> float:
    """IDC-Cor4.10 (MW) [RECON]: ``α = sqrt(18 C) (ln N ln(1/δ))^{1/4} sqrt(ln(m/β)/(ε n))`` (normalised; ``m``
    queries)."""
    N, m, n = check_int("N", N, low=2), check_int("m", m, low=1), check_int("n", n, low=1)
    beta, epsilon, delta = check_beta(beta), check_epsilon(epsilon), check_delta(delta, positive=True)
    c_gru = check_positive_real("c_gru", c_gru)
    return math.sqrt(18 * c_gru) * (math.log(N) * math.log(1 / delta)) ** 0.25 * math.sqrt(math.log(m / beta) / (epsilon * n))


def median_online_alpha(N, m, beta, epsilon, delta, n, c_gru) -> float:
    """IDC-Cor4.10 (Median) [RECON]:
    ``α = sqrt(9C/√2) (log2 N ln(2m) ln(1/δ))^{1/4} sqrt(ln(m/β)/(ε n))`` (normalised; ``m`` queries)."""
    N, m, n = check_int("N", N, low=2), check_int("m", m, low=1), check_int("n", n, low=1)
    beta, epsilon, delta = check_beta(beta), check_epsilon(epsilon), check_delta(delta, positive=True)
    c_gru = check_positive_real("c_gru", c_gru)
    return (math.sqrt(9 * c_gru / math.sqrt(2)) * (math.log2(N) * math.log(2 * m) * math.log(1 / delta)) ** 0.25
            * math.sqrt(math.log(m / beta) / (epsilon * n)))


def fk_online_alpha_counts(norm2, N, m, beta, epsilon, delta, c_gru) -> float:
    """IDC-Cor5.2 [RECON]: ``α² = 9 C ||D||_2 sqrt(N ln(1/δ)) ln(m/β)/ε`` (unnormalised counts; ``m`` queries).

    ``norm2`` is a public bound on ``||D||_2`` (``sqrt(n)`` for sets).
    """
    norm2 = check_positive_real("norm2", norm2)
    N, m = check_int("N", N, low=1), check_int("m", m, low=1)
    beta, epsilon, delta = check_beta(beta), check_epsilon(epsilon), check_delta(delta, positive=True)
    c_gru = check_positive_real("c_gru", c_gru)
    return math.sqrt(9 * c_gru * norm2 * math.sqrt(N * math.log(1 / delta)) * math.log(m / beta) / epsilon)


# --------------------------------------------------------------------------- IDC-Alg1-SV [DERIVED]

def sv_updates(B) -> int:
    """IDC-Alg1-SV: the number of updates ``c`` for an IDC bound ``B(α_U)``: ``max(1, floor(B))``.

    A valid update sequence has length ``L <= B``, hence ``<= floor(B)``; after ``floor(B)`` updates it
    cannot be extended, so the hypothesis is α_U-accurate.
    """
    B = check_positive_real("B", B)
    return max(1, int(math.floor(B)))


def sv_epsilon0(epsilon, delta, c) -> float:
    """IDC-Alg1-SV: per-mechanism budget for the ``2c`` ε0-DP steps (c AboveThreshold runs, c Laplace releases).

    ``δ > 0``: ``ε0 = ε/(4 sqrt(c ln(1/δ)))`` — DR-Cor3.21 with ``k = 2c``, needs ``ε < 1``.
    ``δ = 0``: ``ε0 = ε/(2c)`` (basic composition).
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    c = check_int("c", c, low=1)
    if delta == 0.0:
        return epsilon / (2 * c)
    if epsilon >= 1.0:
        raise ValueError(f"epsilon ({epsilon!r}) must be < 1 when delta > 0 (DR-Cor3.21)")
    return epsilon / (4.0 * math.sqrt(c * math.log(1.0 / delta)))


def sv_privacy_epsilon(epsilon0, c, delta) -> float:
    """The ε that ``2c`` ε0-DP steps compose to: ``2c ε0`` (δ = 0) or DR-Thm3.20 with ``δ' = δ``."""
    epsilon0, c, delta = check_epsilon(epsilon0, "epsilon0", high=EPSILON_EXP_MAX), check_int("c", c, low=1), check_delta(delta)
    if delta == 0.0:
        return 2 * c * epsilon0
    return advanced_composition(epsilon0, 2 * c, delta)[0]


def sv_alpha_sv(c, m, beta, epsilon0, n) -> float:
    """IDC-Alg1-SV: ``α_SV = (2 ln(3c/β) + 4 ln(3m/β))/(ε0 n)`` — threshold noise (c draws of
    ``Lap(2/(ε0 n))``) plus query noise (one ``Lap(4/(ε0 n))`` for each of the stream's ``m`` queries), each group
    failing w.p. ``<= β/3``."""
    c, m, beta = check_int("c", c, low=1), check_int("m", m, low=1), check_beta(beta)
    denom = check_epsilon(epsilon0, "epsilon0") * check_int("n", n, low=1)
    return (2.0 * math.log(3 * c / beta) + 4.0 * math.log(3 * m / beta)) / denom


def sv_alpha_l(c, beta, epsilon0, n) -> float:
    """IDC-Alg1-SV: ``α_L = ln(3c/β)/(ε0 n)``, the error of all ``c`` released ``Lap(1/(ε0 n))`` answers."""
    c, beta = check_int("c", c, low=1), check_beta(beta)
    return math.log(3 * c / beta) / (check_epsilon(epsilon0, "epsilon0") * check_int("n", n, low=1))


def sv_threshold(alpha_u, alpha_sv) -> float:
    """IDC-Alg1-SV: the threshold ``τ = α_U + α_SV``."""
    return check_alpha(alpha_u, "alpha_u") + check_alpha(alpha_sv, "alpha_sv")


def sv_error_bound(alpha_u, alpha_sv) -> float:
    """IDC-Alg1-SV: with probability ``>= 1-β`` every answer has error ``<= α_U + 2 α_SV``."""
    return check_alpha(alpha_u, "alpha_u") + 2.0 * check_alpha(alpha_sv, "alpha_sv")


def sv_epsilon0_tight(epsilon, delta, c) -> float:
    """IDC-Alg1-SV with the whole budget: the largest ``ε0`` whose ``2c`` steps compose, by DR-Thm3.20 itself
    (not the slack of DR-Cor3.21), to ``ε``: the root of ``sqrt(4c ln(1/δ)) ε0 + 2c ε0 (e^{ε0} - 1) = ε``
    (:func:`~dpbook.theory.composition.tight_per_step_epsilon` with ``k = 2c``, ``δ' = δ``).

    :func:`sv_epsilon0` uses Cor 3.21's closed form ``ε/(4 sqrt(c ln(1/δ)))``, which composes to about half of
    ``ε`` (the corollary bounds the drift term by ``ε/2`` and loses a factor ``√2`` in the square root).
    ``δ = 0``: basic composition, ``ε/(2c)``.  Unlike the corollary this needs no ``ε < 1``.
    """
    from .composition import tight_per_step_epsilon
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    c = check_int("c", c, low=1, high=5 * 10 ** 8)          # 2c steps <= 1e9
    if delta == 0.0:
        return epsilon / (2 * c)
    return tight_per_step_epsilon(epsilon, 2 * c, delta)


@functools.lru_cache(maxsize=4096)
def _sv_epsilon0_tight_cached(epsilon, delta, c) -> float:
    """:func:`sv_epsilon0_tight` remembered (a pure function of numbers; a bisection each): every call of
    :func:`sv_best_error_bound` at one ``(N, ε, δ)`` evaluates the same grid of ``α_U``, hence the same ``c``."""
    return sv_epsilon0_tight(epsilon, delta, c)


def sv_best_error_bound(N, m, beta, epsilon, delta, n, *, tight=False) -> tuple[float, float]:
    """IDC-Alg1-SV with the MW IDC on a stream of ``m`` queries, best guarantee: ``min over α_U`` of
    ``α_U + 2 α_SV(α_U)`` with ``c = floor(4 ln N/α_U²)`` and ``ε0`` from :func:`sv_epsilon0` (or
    :func:`sv_epsilon0_tight` if ``tight``).

    Returns ``(α_U*, bound)``.  A log-grid search (α_U in [1e-3, 2], 100 points) refined by golden section; the
    bound is ``α_U + O(sqrt(ln N ln(1/δ)) ln(mc/β)/(α_U ε n))``, minimised near ``α_U ∝ n^{-1/2}``.
    """
    N, m, n = check_int("N", N, low=2), check_int("m", m, low=1), check_int("n", n, low=1)
    beta, epsilon, delta = check_beta(beta), check_epsilon(epsilon), check_delta(delta)
    if delta > 0 and not tight and epsilon >= 1.0:
        raise ValueError(f"epsilon ({epsilon!r}) must be < 1 for DR-Cor3.21 (or pass tight=True)")
    step = _sv_epsilon0_tight_cached if tight else sv_epsilon0

    log_N = math.log(N)

    def bound(log_a):                  # sv_updates(mw_bound(a, N)) and sv_alpha_sv, term for term, with the
        a = math.exp(log_a)            # arguments checked once above (α_U stays in the grid's range)
        c = max(1, int(math.floor(4.0 * log_N / a ** 2)))
        epsilon0 = check_epsilon(step(epsilon, delta, c), "epsilon0")
        return a + 2.0 * ((2.0 * math.log(3 * c / beta) + 4.0 * math.log(3 * m / beta)) / (epsilon0 * n))

    grid = [math.log(1e-3) + i * (math.log(2.0) - math.log(1e-3)) / 99 for i in range(100)]
    i = min(range(100), key=lambda j: bound(grid[j]))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, 99)]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        lo, hi = (lo, m2) if bound(m1) <= bound(m2) else (m1, hi)
    best = min((lo, hi, grid[i]), key=bound)
    return math.exp(best), bound(best)


# --------------------------------------------------------------------------- Algorithm 1, correct accounting

def alg1_basic_epsilon(rounds, epsilon0) -> float:
    """Basic composition over every round Algorithm 1 has run: ``t ε0``.

    Every round's exact loss, ⊥ rounds included, has ``|L_t| <= ε0`` (a Laplace density ratio, or the ratio of
    the probabilities of one interval shifted by at most ``1/n``; erratum IDC-E6), so this is a valid bound.
    """
    rounds = check_int("rounds", rounds, low=1)
    return rounds * check_epsilon(epsilon0, "epsilon0")


def alg1_azuma_epsilon(rounds, epsilon0, delta) -> float:
    """Advanced composition (Azuma) over every round: ``t ε0 (e^{ε0} - 1) + ε0 sqrt(2 t ln(1/δ))``.

    The loss ``Σ L_t`` minus its drift is a martingale whose increments lie in an interval of length ``2ε0``
    (``|L_t| <= ε0`` for every round, ⊥ included; IDC-E6), and each round's drift is a KL divergence
    ``<= ε0 (e^{ε0} - 1)`` (IDC-Thm2.4), so ``P[L > bound] <= δ`` (DR-Thm3.20's argument).  It grows like
    ``√t``: without charging ⊥ rounds through their update probability nothing stops it growing with the stream.
    """
    rounds = check_int("rounds", rounds, low=1)
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=EPSILON_EXP_MAX)
    delta = check_delta(delta, positive=True)
    return rounds * epsilon0 * math.expm1(epsilon0) + epsilon0 * math.sqrt(2.0 * rounds * math.log(1.0 / delta))


def alg1_round_second_moment_bound(epsilon0, u) -> float:
    """One round of Algorithm 1 with update probability ``u`` (under the data the transcript comes from):
    ``E[L_t²] <= 4 ε0² u``, for ``ε0 <= 1/2`` (the book's lemma behind :func:`alg1_freedman_epsilon`).

    Proof: a numeric output costs ``|ℓ| <= ε0`` and has probability ``u``.  A ⊥ costs ``|ln((1-u)/(1-u'))|`` where
    ``u'`` is the update probability under the neighbour; the update event is an interval shifted by ``<= 1/n``,
    so ``|u - u'| <= (e^{ε0} - 1) u``.  If ``u <= 1/4`` then ``1 - u' >= 1 - e^{1/2}/4 > 0.58`` and
    ``|ℓ(⊥)| <= 1.3 ε0 u/0.58 <= 2.21 ε0 u``, so ``ℓ(⊥)² <= 4.9 ε0² u² <= 1.23 ε0² u``; if ``u > 1/4`` then
    ``ℓ(⊥)² <= ε0² < 4 ε0² u``.  Adding the numeric part ``u ε0²``: ``E L² <= 4 ε0² u`` in both cases.
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=0.5)
    u = check_real("u", u, low=0.0, high=1.0)
    return 4.0 * epsilon0 ** 2 * u


def alg1_update_mass_bound(b_max, delta) -> float:
    """``U0 = (B_max + 1 + ln(2/δ))/(1 - 1/e)``: w.p. ``>= 1 - δ/2`` the update probabilities of one run of
    Algorithm 1 sum to at most ``U0``.

    Proof: with ``N_t`` the number of updates and ``u_t`` their conditional probabilities,
    ``exp(-N_t + (1 - 1/e) Σ_{t'<=t} u_{t'})`` is a supermartingale (``E[e^{-X}] <= exp(-(1 - 1/e) u)`` for a
    Bernoulli(u) ``X``); Algorithm 1 stops after ``B_max + 1`` updates, so Markov's inequality at the end gives
    ``P[(1 - 1/e) Σ u_t > B_max + 1 + ln(2/δ)] <= δ/2``.
    """
    b_max = check_int("b_max", b_max, low=0)
    delta = check_delta(delta, positive=True)
    return (b_max + 1.0 + math.log(2.0 / delta)) / (1.0 - math.exp(-1.0))


def alg1_freedman_epsilon(epsilon0, b_max, delta) -> float:
    """The book's variance-sensitive privacy bound for Algorithm 1 (correcting IDC-Thm4.1; erratum IDC-E6):
    for ``ε0 <= 1/2`` Algorithm 1 is ``(ε, δ)``-DP with, ``U0`` from :func:`alg1_update_mass_bound` and ``ℓ = ln(2/δ)``,

        ``ε = 2 e^{ε0} ε0² U0 + 2 ε0 sqrt(2 U0 ℓ) + (2/3) ε0 ℓ``.

    Proof: ``L = Σ L_t``.  The drift ``E_t L_t`` is a KL divergence ``<= (e^{ε0}/2) E_t L_t²`` (from
    ``E_P[e^{-L}] = 1`` and ``e^{-x} - 1 + x <= x² e^{|x|}/2``), and ``E_t L_t² <= 4 ε0² u_t``
    (:func:`alg1_round_second_moment_bound`): a ⊥ round is charged through its update probability ``u_t``.  So
    the drift is ``<= 2 e^{ε0} ε0² Σ u_t`` and the martingale part has increments ``<= ε0`` and predictable variance
    ``<= 4 ε0² Σ u_t``.  On ``Σ u_t <= U0`` (probability ``>= 1 - δ/2``), Freedman's inequality bounds the martingale
    by ``sqrt(2 V ℓ) + (2/3) ε0 ℓ`` with ``V = 4 ε0² U0``, except w.p. ``δ/2``.  ``P[L > ε] <= δ`` for every
    neighbouring pair and every adaptive stream then gives ``(ε, δ)``-DP.  Unlike :func:`alg1_azuma_epsilon` it does
    not grow with the number of rounds.
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=0.5)
    U0 = alg1_update_mass_bound(b_max, delta)
    ell = math.log(2.0 / check_delta(delta, positive=True))
    return (2.0 * math.exp(epsilon0) * epsilon0 ** 2 * U0 + 2.0 * epsilon0 * math.sqrt(2.0 * U0 * ell)
            + 2.0 / 3.0 * epsilon0 * ell)


def alg1_freedman_epsilon0(epsilon, b_max, delta) -> float:
    """The largest ``ε0 <= 1/2`` with :func:`alg1_freedman_epsilon` ``<= ε`` (bisection; it increases in ``ε0``)."""
    epsilon = check_epsilon(epsilon)
    b_max, delta = check_int("b_max", b_max, low=0), check_delta(delta, positive=True)
    if alg1_freedman_epsilon(0.5, b_max, delta) <= epsilon:
        return 0.5
    lo, hi = 0.0, 0.5
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid < EPSILON_RANGE[0] or hi - lo <= 1e-14 * hi:
            break
        lo, hi = (mid, hi) if alg1_freedman_epsilon(mid, b_max, delta) <= epsilon else (lo, mid)
    if lo <= 0.0:
        raise ValueError(f"epsilon ({epsilon!r}) is too small for the Freedman bound at b_max={b_max}, delta={delta}")
    return lo


# --------------------------------------------------------------------------- DR-Alg6 (OnlineMW)

def dr_online_mw_threshold(c, epsilon, delta, m, beta, n) -> float:
    """DR-Alg6's threshold (the box's constants, normalised by ``n``) for a stream of ``m`` queries.

    ``δ = 0``: ``τ = 18c(ln(2m) + ln(4c/β))/(ε n)``; ``δ > 0``:
    ``τ = (2 + 32√2) sqrt(c ln(2/δ)) (ln m + ln(4c/β))/(ε n)`` with the cut-off ``c = floor(4 ln N/α²)`` (an integer).
    """
    c = check_int("c", c, low=1)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    m, beta, n = check_int("m", m, low=1), check_beta(beta), check_int("n", n, low=1)
    if delta == 0.0:
        return 18.0 * c * (math.log(2 * m) + math.log(4 * c / beta)) / (epsilon * n)
    return ((2 + 32 * math.sqrt(2)) * math.sqrt(c * math.log(2 / delta)) * (math.log(m) + math.log(4 * c / beta))
            / (epsilon * n))


def dr_alg6_alpha_ns(m, c, beta, epsilon, delta, n) -> float:
    """DR-Alg6's NumericSparse accuracy on the ``2m`` one-sided queries of a stream of ``m`` [DERIVED]: chapter 06's
    corrected DR-Thm3.28 (:func:`dpbook.theory.sparse_vector.numeric_sparse_alpha_corrected`), normalised by ``n``.
    On the good event (prob ``>= 1-β``) a ``⊤`` has ``f' >= τ - α_NS``, a ``⊥`` has ``f' <= τ + α_NS`` and every
    numeric answer is within ``α_NS``."""
    n = check_int("n", n, low=1)                          # normalised: the public row count is required
    return numeric_sparse_alpha_corrected(2 * check_int("m", m, low=1), c, beta, epsilon, delta, n)


def dr_alg6_conditions(threshold, alpha_ns, alpha) -> bool:
    """[DERIVED] When DR-Alg6's guarantee follows: ``α_NS <= α <= τ - α_NS``.  Then on the good event every ``⊤`` is
    a valid MW update (gap ``> τ - α_NS >= α``, numeric error ``< α_NS <= α``), so there are at most
    ``c = 4 ln N/α²`` of them and NumericSparse never halts early.  (Relative tolerance 1e-12: with ``δ = 0`` the
    box's ``τ`` is exactly ``2α_NS`` and the only admissible ``α`` is ``α_NS``.)"""
    threshold = check_alpha(threshold, "threshold")
    alpha_ns, alpha = check_alpha(alpha_ns, "alpha_ns"), check_alpha(alpha)
    tol = 1e-12 * threshold
    return alpha_ns <= alpha + tol and alpha <= threshold - alpha_ns + tol


def dr_alg6_parameters(N, m, beta, epsilon, n) -> tuple[float, int]:
    """DR-Alg6 with ``δ = 0`` on a stream of ``m`` queries [DERIVED]: the smallest cut-off ``c`` with
    ``c >= 4 ln N/α_NS(c)²`` and ``α = α_NS(c)``.

    With ``δ = 0`` the box's threshold is exactly ``τ = 2α_NS``, so :func:`dr_alg6_conditions` force ``α = α_NS``;
    and NumericSparse must allow every update of a valid MW sequence, ``c >= B(α) = 4 ln N/α²``.  Then the error
    bound is ``τ + α_NS = 3α`` (DR-Thm4.14's form).  Returns ``(α, c)``.
    """
    N, m, n = check_int("N", N, low=2), check_int("m", m, low=1), check_int("n", n, low=1)
    beta, epsilon = check_beta(beta), check_epsilon(epsilon)

    def enough(c):
        return c >= 4.0 * math.log(N) / dr_alg6_alpha_ns(m, c, beta, epsilon, 0.0, n) ** 2

    hi = 1
    while not enough(hi):
        hi *= 2
        if hi > 2 ** 40:
            raise ValueError(f"n ({n}) is too small for DR-Alg6")
    lo = hi // 2                                      # enough(lo) is False (or lo = 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return dr_alg6_alpha_ns(m, hi, beta, epsilon, 0.0, n), hi


def dr_alg6_error_bound(threshold, alpha_ns) -> float:
    """[DERIVED] Under :func:`dr_alg6_conditions`, w.p. ``>= 1-β`` every DR-Alg6 answer is within ``τ + α_NS``
    (a ``⊥``: ``τ + α_NS``; a numeric answer: ``α_NS``).  With the box's ``τ ≈ 2α_NS`` and ``α = τ/2`` this is
    DR-Thm4.14/4.15's ``3α``."""
    return check_alpha(threshold, "threshold") + check_alpha(alpha_ns, "alpha_ns")


# --------------------------------------------------------------------------- offline IC (GRU §7)

def distinguisher_F(m, gamma, epsilon0, n) -> float:
    """IDC-Def7.1, canonical instance [DERIVED from DR-Thm3.11]: the exponential mechanism with score
    ``|Q(D) - Q(D')|`` (``Δu = 1/n``) is an ``(F, γ)``-distinguisher with ``F(ε) = 2(ln|Q| + ln(1/γ))/(ε n)``."""
    m, gamma = check_int("m", m, low=1), check_beta(gamma, "gamma")
    return 2.0 * (math.log(m) + math.log(1.0 / gamma)) / (check_epsilon(epsilon0, "epsilon0") * check_int("n", n, low=1))


def ic_gamma(beta, B) -> float:
    """IDC-Thm7.3: the distinguisher's failure probability ``γ = β/(2B(α/2))``."""
    return check_beta(beta) / (2.0 * check_positive_real("B", B, low=1.0))


def ic_epsilon0(epsilon, delta, B) -> float:
    """IDC-Thm7.2 [RECON; constant DERIVED]: ``ε0 = ε/(4 sqrt(B ln(1/δ)))`` (``ε < 1``), or ``ε/(2B)`` if ``δ = 0``.

    ``B = B(α/2)`` rounds, each with two ε0-DP data accesses (distinguisher + Laplace).
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    B = check_int("B", B, low=1)
    if delta == 0.0:
        return epsilon / (2 * B)
    if epsilon >= 1.0:
        raise ValueError(f"epsilon ({epsilon!r}) must be < 1 when delta > 0 (IDC-Thm7.2 via DR-Cor3.21)")
    return epsilon / (4.0 * math.sqrt(B * math.log(1.0 / delta)))


def ic_privacy_epsilon(epsilon0, B, delta) -> float:
    """IDC-Thm7.2: ``2B`` ε0-DP accesses are ``(ε', δ)``-DP with
    ``ε' = sqrt(4B ln(1/δ)) ε0 + 2B ε0 (e^{ε0} - 1)`` (DR-Thm3.20); ``2Bε0`` when ``δ = 0``."""
    epsilon0, B, delta = check_epsilon(epsilon0, "epsilon0", high=EPSILON_EXP_MAX), check_int("B", B, low=1), check_delta(delta)
    if delta == 0.0:
        return 2 * B * epsilon0
    return math.sqrt(4 * B * math.log(1 / delta)) * epsilon0 + 2 * B * epsilon0 * math.expm1(epsilon0)


def ic_alpha_condition(B, beta, epsilon0, n, m) -> float:
    """IDC-Thm7.3 [RECON]: IC is (α, β)-accurate whenever α is at least
    ``max(8 ln(2B/β)/(ε0 n), 8 F(ε0))`` with ``F`` at ``γ = β/(2B)`` and ``B = B(α/2)``; returns that max."""
    B = check_int("B", B, low=1)
    beta, n = check_beta(beta), check_int("n", n, low=1)
    epsilon0 = check_epsilon(epsilon0, "epsilon0")
    noise = 8.0 * math.log(2 * B / beta) / (epsilon0 * n)
    return max(noise, 8.0 * distinguisher_F(m, ic_gamma(beta, B), epsilon0, n))


# --- the results chapters 10-12 state and check (the book's theorem registry, docs/theorems.md) --------------------
_CH = "10_iterative_constructions"         # update rules, IDCs, potentials; the offline Iterative Construction
_CH11 = "11_online_idc"                     # Algorithm 1 online, IDC-Alg1-SV, where it wins, DR-Alg6
_CH12 = "12_idc_privacy"                    # the privacy proof of Algorithm 1, round by round
_S1 = "The abstraction: update rules and IDCs"
_S2 = "Online release: GRU's Algorithm 1"
_S3 = "The provably private variant: IDC-Alg1-SV"
_S5 = "Inside the proof of IDC-Thm4.1"
_S6 = "Offline: the Iterative Construction mechanism"
_S7 = "The reference: DR-Alg6"
_RECON = "(reconstructed: the paper's formulas were lost; constants are the book's)"
RESULTS = (
    Result(id="IDC-Def3.1", title="Database update sequence", chapter=_CH, section=_S1,
           statement=r"A run of an update rule $U$ against data $D$ is a valid update sequence when it starts from "
                     r"$U(\bot)$, every query it updates on is answered at least α wrong by the current hypothesis, every "
                     r"noisy answer it uses is within α of the truth, and each hypothesis is $U$ applied to the previous one.",
           implemented_by=("dpbook.idc.update_sequence_violations", "dpbook.idc.is_update_sequence",
                           "dpbook.idc.UpdateStep"),
           source=f"{GRU}, Def. 3.1 {_RECON}; {DWORK_ROTH}, Def. 5.3"),
    Result(id="IDC-Def3.2", title="Iterative database construction (IDC)", chapter=_CH, section=_S1,
           statement=r"$U$ is a $B(\alpha)$-IDC for a query class if no valid update sequence, for any data, is longer than "
                     r"$B(\alpha)$; the last hypothesis of a maximal sequence then answers every query within α.",
           implemented_by=("dpbook.idc.IDC", "dpbook.idc.drive_with_oracle"),
           source=f"{GRU}, Def. 3.2 {_RECON}; {DWORK_ROTH}, Def. 5.4"),
    Result(id="IDC-DefA.1", title="Median data structure", chapter=_CH, section=_S1,
           statement=r"A collection of small databases answers a query with the median of their answers.",
           implemented_by=("dpbook.idc.MedianIDC",),
           source=f"{GRU}, Def. A.1 {_RECON}; {ROTH_ROUGHGARDEN}"),
    Result(id="IDC-AlgA.1", title="The median mechanism as an update rule", chapter=_CH, section=_S1,
           statement=r"Start from all multisets of $n_S=\lfloor\ln(2|Q|)/(2\alpha^2)\rfloor+1$ rows; on an update keep only the "
                     r"databases on the side of the median the noisy answer points to, so at least half are discarded.",
           implemented_by=("dpbook.idc.MedianIDC",),
           bounds=("dpbook.theory.idc.median_sample_size", "dpbook.theory.idc.median_collection_size"),
           source=f"{GRU}, Algorithm A.1 {_RECON}; {ROTH_ROUGHGARDEN}"),
    Result(id="IDC-ThmA.2", title="The median mechanism is an IDC", chapter=_CH, section=_S1,
           statement=r"The median rule is a $\lfloor\log_2|C^0|\rfloor\le n_S\log_2N$ IDC: the accurate small database of "
                     r"IDC-ClaimA.3 always survives, and every update halves the collection.",
           implemented_by=("dpbook.idc.MedianIDC",),
           bounds=("dpbook.theory.idc.median_bound", "dpbook.theory.idc.median_bound_approx"),
           source=f"{GRU}, Thm. A.2 {_RECON}"),
    Result(id="IDC-Alg2", title="The Frieze–Kannan update rule", chapter=_CH, section=_S1,
           statement=r"Keep a real vector $D^t$ (starting at 0) and move it by $\pm\eta Q$, $\eta=\alpha/N$, towards the noisy "
                     r"answer of each query it gets wrong (unnormalised counts).",
           implemented_by=("dpbook.idc.FriezeKannanIDC",),
           bounds=("dpbook.theory.idc.fk_step",),
           source=f"{GRU}, Algorithm 2 {_RECON}; {FRIEZE_KANNAN}"),
    Result(id="IDC-Thm5.1", title="Frieze–Kannan is an IDC", chapter=_CH, section=_S1,
           statement=r"Each valid update lowers $\|D-D^t\|_2^2$ by at least $\alpha^2/N$, so FK is a "
                     r"$B(\alpha)=\|D\|_2^2N/\alpha^2$ IDC; the book uses the public bound $\|D\|_2^2\le n^2$ (or $n$ for sets).",
           implemented_by=("dpbook.idc.FriezeKannanIDC",),
           bounds=("dpbook.theory.idc.fk_bound", "dpbook.theory.idc.fk_potential_drop"),
           source=f"{GRU}, Thm. 5.1 {_RECON}"),
    Result(id="IDC-Alg1", title="Online query release from an IDC (GRU Algorithm 1)", chapter=_CH11, section=_S2,
           statement=r"For each incoming query compare a Laplace-noised true answer with the hypothesis: within the threshold "
                     r"$\tau=2\alpha/3$ answer from the hypothesis, otherwise release the noisy answer and update; stop after "
                     r"$B(\alpha/3)$ updates. The per-round budget $\varepsilon_0$ is reconstructed, so privacy claims use "
                     r"IDC-Alg1-SV instead.",
           implemented_by=("dpbook.idc.online_idc",),
           bounds=("dpbook.theory.idc.alg1_threshold",),
           source=f"{GRU}, Algorithm 1 {_RECON}"),
    Result(id="IDC-Thm4.9", title="Accuracy of Algorithm 1", chapter=_CH11, section=_S2,
           statement=r"If $\tau\ge2\ln(m/\beta)/(\varepsilon_0n)$, then w.p. $1-\beta$ all $m$ noise draws are below $\tau/2$, every "
                     r"answer is within $3\tau/2$, and the updates form a valid sequence, so Algorithm 1 never stops early.",
           implemented_by=("dpbook.idc.online_idc",),
           bounds=("dpbook.theory.idc.alg1_min_threshold", "dpbook.theory.idc.alg1_error_bound",
                   "dpbook.theory.idc.alg1_accuracy_alpha"),
           source=f"{GRU}, Thm. 4.9 {_RECON}"),
    Result(id="IDC-Eq(3)", title="The best accuracy of Algorithm 1", chapter=_CH11, section=_S2,
           statement=r"Substituting $\varepsilon_0$ into Thm 4.9's condition gives a fixed-point equation for α, "
                     r"$\alpha=3C\sqrt{B(\alpha/3)\ln(1/\delta)}\ln(m/\beta)/(\varepsilon n)$, solved by bisection.",
           bounds=("dpbook.theory.idc.best_alpha", "dpbook.theory.idc.alg1_best_alpha"),
           source=f"{GRU}, Eq. (3) {_RECON}"),
    Result(id="IDC-Cor4.10", title="Online MW and median mechanisms", chapter=_CH11, section=_S2,
           statement=r"With MW, Algorithm 1's error is $O((\ln N\ln\frac1\delta)^{1/4}\sqrt{\ln(m/\beta)/(\varepsilon n)})$ "
                     r"(normalised); with the median rule $\ln N$ becomes $\log_2N\ln(2m)$. Only $\sqrt{\log m}$ depends on "
                     r"the number of queries.",
           implemented_by=("dpbook.idc.online_idc",),
           bounds=("dpbook.theory.idc.mw_online_alpha", "dpbook.theory.idc.median_online_alpha"),
           source=f"{GRU}, Cor. 4.10 {_RECON}"),
    Result(id="IDC-Cor5.2", title="Online Frieze–Kannan mechanism", chapter=_CH11, section=_S2,
           statement=r"With FK the count error is $O(\|D\|_2^{1/2}N^{1/4}(\ln\frac1\delta)^{1/4}\sqrt{\ln(m/\beta)/\varepsilon})$, "
                     r"which beats MW when the universe is not much larger than the data ($N\lesssim n\ln N$ for sets).",
           implemented_by=("dpbook.idc.online_idc",),
           bounds=("dpbook.theory.idc.fk_online_alpha_counts",),
           source=f"{GRU}, Cor. 5.2 {_RECON}"),
    Result(id="IDC-E8", title="Erratum: \"C_GRU ≈ 12\" is the book's constant", chapter=_CH11, section=_S2,
           statement=r"Clarification: the value about 11.9 of Algorithm 1's constant (at $B=1663$, $\varepsilon=1$, "
                     r"$\delta=10^{-6}$; $\to8\sqrt2$ as $\delta\to0$) restates the reconstruction and inherits IDC-E6; it is "
                     r"\"the reconstructed constant\", never GRU's.",
           bounds=("dpbook.theory.idc.effective_c_gru", "dpbook.theory.idc.thm41_epsilon0"),
           source=THIS_BOOK),
    Result(id="IDC-Alg1-SV", title="Online IDC release, provably private (sparse vector)", chapter=_CH11, section=_S3,
           statement=r"Algorithm 1's loop with its update test done by Sparse/NumericSparse on the score "
                     r"$|Q(D)-Q(D^t)|$: $c=B(\alpha_U)$ updates, $2c$ steps of $\varepsilon_0$ each — DR-Cor3.21's "
                     r"$\varepsilon/(4\sqrt{c\ln(1/\delta)})$ (about half of $\varepsilon$ spent; $\varepsilon/(2c)$ if $\delta=0$) or, "
                     r"spending all of it, the root of DR-Thm3.20 (the chapter's runs). It is $(\varepsilon,\delta)$-DP from "
                     r"verified primitives and w.p. $1-\beta$ every answer is within $\alpha_U+2\alpha_{SV}$.",
           implemented_by=("dpbook.idc.online_idc_sv",),
           bounds=("dpbook.theory.idc.sv_updates", "dpbook.theory.idc.sv_epsilon0", "dpbook.theory.idc.sv_privacy_epsilon",
                   "dpbook.theory.idc.sv_alpha_sv", "dpbook.theory.idc.sv_alpha_l", "dpbook.theory.idc.sv_threshold",
                   "dpbook.theory.idc.sv_error_bound", "dpbook.theory.idc.sv_epsilon0_tight",
                   "dpbook.theory.idc.sv_best_error_bound"),
           source=f"derived in this book from {DWORK_ROTH}, Algorithms 2, 3 and 6, and {GRU}, Algorithm 1"),
    Result(id="IDC-Thm4.1", title="Privacy of Algorithm 1 (reconstructed condition)", chapter=_CH12, section=_S5,
           statement=r"Algorithm 1 is claimed $(\varepsilon,\delta)$-DP for $\varepsilon_0=\Theta(\varepsilon/\sqrt{B\ln(1/\delta)})$; "
                     r"the book's explicit condition is $\varepsilon\ge T_0\varepsilon_*(e^{\varepsilon_*}-1)+2\varepsilon_*"
                     r"\sqrt{2T_0\ln(2/\delta)}$ with $T_0$ from Claim 4.6. Its proof is incomplete (erratum IDC-E6).",
           implemented_by=("dpbook.idc.online_idc", "dpbook.privacy_loss.replay_alg1"),
           bounds=("dpbook.theory.idc.thm41_epsilon", "dpbook.theory.idc.thm41_epsilon0"),
           source=f"{GRU}, Thm. 4.1 {_RECON}; {HARDT_ROTHBLUM}"),
    Result(id="IDC-Claim4.2", title="R⁰ rounds output ⊥ under both databases", chapter=_CH12, section=_S5,
           statement=r"When the round's noise lies more than $1/n$ inside the threshold band, the output is ⊥ under $D$ and "
                     r"$D'$ alike. The reconstruction concludes that such rounds cost no privacy; that is false as a "
                     r"statement about the loss (erratum IDC-E6): ⊥ has different probabilities under $D$ and $D'$, and "
                     r"an R⁰ round's loss can reach $\pm\varepsilon_0$.",
           implemented_by=("dpbook.privacy_loss.classify_rounds", "dpbook.privacy_loss.round_loss"),
           source=f"{GRU}, Claim 4.2 {_RECON}"),
    Result(id="IDC-Claim4.3", title="An R* round loses at most ε*", chapter=_CH12, section=_S5,
           statement=r"In a round whose noise falls in the uncertain band, the privacy loss is at most "
                     r"$\varepsilon_*=c_*\varepsilon_0$ in absolute value.",
           implemented_by=("dpbook.privacy_loss.round_loss",),
           source=f"{GRU}, Claim 4.3 {_RECON}"),
    Result(id="IDC-Claim4.4", title="Expected loss of an R* round", chapter=_CH12, section=_S5,
           statement=r"Its expected loss is at most $\varepsilon_*(e^{\varepsilon_*}-1)\le2\varepsilon_*^2$, by IDC-Thm2.4.",
           bounds=("dpbook.theory.composition.kl_bound",),
           source=f"{GRU}, Claim 4.4 {_RECON}"),
    Result(id="IDC-Claim4.5", title="Lossy rounds are often updates", chapter=_CH12, section=_S5,
           statement=r"Given that a round is not R⁰, it is an update under both databases (R¹) with probability at least "
                     r"$p_0=\tfrac12e^{-2\varepsilon_0}$ (Laplace tails are memoryless).",
           implemented_by=("dpbook.privacy_loss.classify_rounds",),
           bounds=("dpbook.theory.idc.p0",),
           source=f"{GRU}, Claim 4.5 {_RECON}"),
    Result(id="IDC-Claim4.6", title="Few rounds are not R⁰", chapter=_CH12, section=_S5,
           statement=r"Because updates are capped at $B_{\max}+1$, w.p. $1-\delta/2$ at most "
                     r"$T_0=(2(B_{\max}+1)+8\ln(2/\delta))/p_0$ rounds are not R⁰ (Chernoff on a binomial).",
           implemented_by=("dpbook.privacy_loss.replay_alg1",),
           bounds=("dpbook.theory.idc.non_r0_rounds_bound",),
           source=f"{GRU}, Claim 4.6 {_RECON}"),
    Result(id="IDC-Claim4.7", title="Azuma over the lossy rounds", chapter=_CH12, section=_S5,
           statement=r"If at most $T$ rounds are lossy, the total loss exceeds "
                     r"$T\varepsilon_*(e^{\varepsilon_*}-1)+2\varepsilon_*\sqrt{2T\ln(2/\delta)}$ with probability at most "
                     r"$\delta/2$.",
           implemented_by=("dpbook.privacy_loss.replay_alg1",),
           bounds=("dpbook.theory.idc.azuma_bound",),
           source=f"{GRU}, Claim 4.7 {_RECON}"),
    Result(id="IDC-Claim4.8", title="The per-round bound, restated", chapter=_CH12, section=_S5,
           statement=r"The paper's Claim 4.8 restates the per-round bound of Claim 4.3 for use in the martingale argument.",
           implemented_by=("dpbook.privacy_loss.round_loss",),
           source=f"{GRU}, Claim 4.8 {_RECON}"),
    Result(id="IDC-E6", title="Erratum: R⁰ rounds are not free", chapter=_CH12, section=_S5,
           statement=r"Correction: an R⁰ round's loss $\ln(p_D(\bot)/p_{D'}(\bot))$ can reach $\pm\varepsilon_0$ (e.g. $d=\tau$, "
                     r"$Z=\tau$), so the reconstructed Claim 4.2 is wrong as a loss statement and the reconstructed Thm 4.1, "
                     r"which applies Azuma only to the non-R⁰ rounds, is unproved for every $c_*$. The book proves a "
                     r"replacement: every round has $|L_t|\le\varepsilon_0$ and $\mathbb E_tL_t^2\le4\varepsilon_0^2u_t$ "
                     r"($u_t$ its update probability), the update probabilities sum to at most "
                     r"$U_0=(B_{\max}+1+\ln\frac2\delta)/(1-e^{-1})$ w.p. $1-\delta/2$, and Freedman's inequality gives "
                     r"$(\varepsilon,\delta)$-DP with $\varepsilon=2e^{\varepsilon_0}\varepsilon_0^2U_0+2\varepsilon_0"
                     r"\sqrt{2U_0\ln(2/\delta)}+\frac23\varepsilon_0\ln(2/\delta)$ for $\varepsilon_0\le\frac12$. Privacy claims "
                     r"of the chapter still use IDC-Alg1-SV.",
           implemented_by=("dpbook.privacy_loss.round_loss", "dpbook.privacy_loss.replay_alg1",
                           "dpbook.privacy_loss.update_probability", "dpbook.privacy_loss.round_moments"),
           bounds=("dpbook.theory.idc.alg1_round_second_moment_bound", "dpbook.theory.idc.alg1_update_mass_bound",
                   "dpbook.theory.idc.alg1_freedman_epsilon", "dpbook.theory.idc.alg1_freedman_epsilon0",
                   "dpbook.theory.idc.alg1_azuma_epsilon", "dpbook.theory.idc.alg1_basic_epsilon"),
           source=f"{THIS_BOOK}; Freedman's inequality: D. A. Freedman, *On Tail Probabilities for Martingales*, "
                  f"The Annals of Probability 3(1), 1975"),
    Result(id="IDC-E2", title="Erratum: answers are produced in step 2", chapter=_CH11, section=_S2,
           statement=r"Correction: the proof of Thm 4.9 says answers are given “in step 3”; they are produced in step 2 "
                     r"(step 3 is the termination test).",
           implemented_by=("dpbook.idc.online_idc",),
           source=f"{GRU}, proof of Thm. 4.9 {_RECON}"),
    Result(id="IDC-Def7.1", title="Private distinguisher", chapter=_CH, section=_S6,
           statement=r"An ε-DP procedure that, given the data and a hypothesis, returns a query on which they differ by nearly "
                     r"the most (within $F(\varepsilon)$, except w.p. γ); the exponential mechanism with score "
                     r"$|Q(D)-Q(D')|$ is one, with $F=2(\ln|Q|+\ln(1/\gamma))/(\varepsilon n)$.",
           implemented_by=("dpbook.idc.iterative_construction",),
           bounds=("dpbook.theory.idc.distinguisher_F",),
           source=f"{GRU}, Def. 7.1 {_RECON}"),
    Result(id="IDC-Alg3", title="The Iterative Construction mechanism (offline)", chapter=_CH, section=_S6,
           statement=r"Repeat at most $B(\alpha/2)$ times: let a private distinguisher pick a query, measure it with Laplace "
                     r"noise, stop and output the hypothesis if it is already within $3\alpha/4$, else update it. MWEM is its "
                     r"practical instance.",
           implemented_by=("dpbook.idc.iterative_construction", "dpbook.mwem.mwem"),
           source=f"{GRU}, §7 {_RECON}; {DWORK_ROTH}, §5.2"),
    Result(id="IDC-Thm7.2", title="Privacy of the Iterative Construction", chapter=_CH, section=_S6,
           statement=r"At most $2B(\alpha/2)$ data accesses of $\varepsilon_0$ each compose (advanced composition) to "
                     r"$(\varepsilon,\delta)$-DP for $\varepsilon_0=\varepsilon/(4\sqrt{B\ln(1/\delta)})$, or $\varepsilon/(2B)$ "
                     r"for pure DP; the largest $\varepsilon_0$ DR-Thm3.20 allows (solved numerically) spends the whole "
                     r"$\varepsilon$, where the closed form spends about half.",
           implemented_by=("dpbook.idc.iterative_construction",),
           bounds=("dpbook.theory.idc.ic_epsilon0", "dpbook.theory.idc.ic_privacy_epsilon",
                   "dpbook.theory.composition.tight_per_step_epsilon"),
           source=f"{GRU}, Thm. 7.2 {_RECON}"),
    Result(id="IDC-Thm7.3", title="Accuracy of the Iterative Construction", chapter=_CH, section=_S6,
           statement=r"It is $(\alpha,\beta)$-accurate when α exceeds both $8\ln(2B/\beta)/(\varepsilon_0n)$ and $8F(\varepsilon_0)$ "
                     r"and the distinguisher fails w.p. at most $\beta/(2B)$: either it stops early with every query within α, "
                     r"or it completes a maximal update sequence.",
           implemented_by=("dpbook.idc.iterative_construction",),
           bounds=("dpbook.theory.idc.ic_alpha_condition", "dpbook.theory.idc.ic_gamma"),
           source=f"{GRU}, Thm. 7.3 {_RECON}"),
    Result(id="DR-Alg6", title="Online multiplicative weights via NumericSparse", chapter=_CH11, section=_S7,
           statement=r"Feed NumericSparse the two one-sided errors $\pm(f_i-f_i(x^t))$ of each query against the MW hypothesis; "
                     r"answer from the hypothesis on ⊥, otherwise release the noisy value and make an MW update (at most "
                     r"$c=4\ln N/\alpha^2$ times).",
           implemented_by=("dpbook.idc.online_mw_dr",),
           bounds=("dpbook.theory.idc.dr_online_mw_threshold", "dpbook.theory.idc.dr_alg6_parameters",
                   "dpbook.theory.idc.dr_alg6_alpha_ns", "dpbook.theory.idc.dr_alg6_conditions",
                   "dpbook.theory.idc.dr_alg6_error_bound"),
           source=f"{DWORK_ROTH}, Algorithm 6; {HARDT_ROTHBLUM}"),
    Result(id="DR-Thm4.14", title="Accuracy of online MW, pure DP", chapter=_CH11, section=_S7,
           statement=r"With $\delta=0$, online MW answers every query within $3\alpha$ once "
                     r"$\alpha\ge32\ln N(\ln|Q|+\ln\frac{32\ln N}{\alpha^2\beta})/(\varepsilon\alpha^2n)$; the book uses the "
                     r"algorithm box's threshold and requires α to be at least the NumericSparse error it needs.",
           implemented_by=("dpbook.idc.online_mw_dr",),
           bounds=("dpbook.theory.idc.dr_alg6_error_bound",),
           source=f"{DWORK_ROTH}, Thm. 4.14"),
    Result(id="DR-Thm4.15", title="Accuracy of online MW, (ε, δ)-DP", chapter=_CH11, section=_S7,
           statement=r"With $\delta>0$ the condition becomes "
                     r"$\alpha\ge(2+32\sqrt2)\sqrt{\ln N\ln(2/\delta)}(\ln|Q|+\ln\frac{32\ln N}{\alpha^2\beta})/(\varepsilon\alpha^2n)$: "
                     r"the sample size grows with $\sqrt{\log N}\log|Q|$ only.",
           implemented_by=("dpbook.idc.online_mw_dr",),
           bounds=("dpbook.theory.idc.dr_online_mw_threshold", "dpbook.theory.mwem.mw_sample_complexity"),
           source=f"{DWORK_ROTH}, Thm. 4.15"),
)
