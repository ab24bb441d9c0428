"""Bounds for multiplicative weights and MWEM (THEOREMS.md §6 App. A, §7, §9 PROJ-R4; chapters 07–08).

Units: ``alpha`` is normalised (an error on answers in ``[0,1]``) unless a name says ``counts``.  ``ln`` is
the natural log.
"""
from __future__ import annotations

import math

from ..validation import check_alpha, check_delta, check_epsilon, check_int

__all__ = [
    "mw_bound", "mw_potential_drop", "mw_initial_potential_bound",
    "mwem_epsilon_split", "mwem_measurement_scale",
    "hlm_error_bound", "hlm_failure_probability", "hlm_optimal_rounds", "hlm_sample_complexity",
    "mw_sample_complexity",
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

    ``2T`` primitive steps, basic composition: they add up to ``ε`` (THEOREMS.md MWEM, Privacy).
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

    [DERIVED] from ``d/dT [a T^{-1/2} + b T] = 0`` with ``a = 2 sqrt(ln N)``, ``b = 10 ln m/(ε n)``: the spec's
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
