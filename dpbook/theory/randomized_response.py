"""Bounds for randomized response on linear queries (LEC3-3.4, corrected; chapter 02).

One private bit ``x_i ∈ {0,1}`` per person.  Each person reports ``Y_i = x_i`` with probability
``p = e^ε / (1 + e^ε)`` and ``1 - x_i`` otherwise (ε-DP for that person's bit), and the analyst debiases
``x̂_i = 1/2 + (Y_i - 1/2) / (2p - 1)`` with ``2p - 1 = tanh(ε/2)``.  Lecture 3's formulas for the estimator,
its range, the Hoeffding exponent and the final rate are garbled (errata LEC3-E4..E8); these are the book's
corrected ones (LEC3-3.4, derived again from Warner's estimator).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..validation import check_beta, check_epsilon, check_int, check_tail_points
from .registry import DWORK_ROTH, LECTURE3, WARNER, Result

__all__ = [
    "rr_keep_probability", "rr_bias_factor", "rr_estimator_range", "rr_hoeffding_tail", "rr_error_bound",
    "rr_error_bound_small_epsilon", "RR_SMALL_EPSILON_CONSTANT", "laplace_rr_crossover",
]

#: ``1 / (sqrt(2) tanh(1/2)) = 1.5300…``: for ε ≤ 1, ``1/tanh(ε/2) <= 2 * 1.0820… / ε`` (LEC3-3.4).
RR_SMALL_EPSILON_CONSTANT = float(1.0 / (np.sqrt(2.0) * np.tanh(0.5)))


def rr_keep_probability(epsilon) -> float:
    """LEC3-3.4: the probability ``p = e^ε / (1 + e^ε)`` of reporting the true bit (ε-DP: ``p/(1-p) = e^ε``).

    DR Claim 3.5's two-coin version is the case ``ε = ln 3``, ``p = 3/4``.
    """
    return float(expit(check_epsilon(epsilon)))


def rr_bias_factor(epsilon) -> float:
    """LEC3-3.4 / erratum LEC3-E4: ``2p - 1 = tanh(ε/2)``, so ``E[Y_i] - 1/2 = (2p - 1)(x_i - 1/2)``.

    The seed writes ``2^{p-1}`` here; that makes the estimator biased.
    """
    return float(np.tanh(check_epsilon(epsilon) / 2.0))


def rr_estimator_range(epsilon) -> tuple[float, float]:
    """Erratum LEC3-E5: ``x̂_i ∈ [1/2 - 1/(2(2p-1)), 1/2 + 1/(2(2p-1))]``, an interval of length ``1/tanh(ε/2)``."""
    half = 0.5 / rr_bias_factor(epsilon)
    return 0.5 - half, 0.5 + half


def rr_hoeffding_tail(lam, n, epsilon):
    """LEC3-3.4 / erratum LEC3-E6: ``P[|q^T x̂ - q^T x| / n > λ] <= 2 exp(-2 n λ^2 (2p-1)^2)`` for ``q ∈ [0,1]^n``,
    at the error level(s) ``λ`` (``lam``).

    (Hoeffding: ``q_i x̂_i`` ranges over an interval of length ``q_i / (2p-1)`` and ``sum q_i^2 <= n``.)
    The seed has ``O(1/ε)`` in the denominator of the exponent; it is ``O(1/ε²)``.  Returned capped at 1;
    ``lam`` may be an array (all entries finite and >= 0; ``λ = 0`` gives the trivial bound 1).
    """
    n = check_int("n", n, low=1)
    c = rr_bias_factor(epsilon)
    lam = check_tail_points("lam", lam)
    bound = np.minimum(1.0, 2.0 * np.exp(-2.0 * n * lam ** 2 * c ** 2))
    return float(bound) if bound.ndim == 0 else bound


def rr_error_bound(n, beta, epsilon, m: int = 1) -> float:
    """LEC3-3.4 / erratum LEC3-E7: with prob. ``>= 1 - β`` all ``m`` normalised answers are within
    ``α = sqrt(ln(2m/β) / (2n)) / tanh(ε/2)`` (Hoeffding plus a union bound over the ``m`` queries).

    Answering more queries costs no privacy (post-processing); only the ``ln m`` grows.
    """
    n = check_int("n", n, low=1)
    m = check_int("m", m, low=1)
    beta = check_beta(beta)
    return float(np.sqrt(np.log(2.0 * m / beta) / (2.0 * n)) / rr_bias_factor(epsilon))


def rr_error_bound_small_epsilon(n, beta, epsilon, m: int = 1) -> float:
    """LEC3-3.4 / erratum LEC3-E8, the rate: for ``ε <= 1``, ``rr_error_bound <= 1.53 sqrt(ln(2m/β)) / (ε sqrt n)``.

    Returns ``RR_SMALL_EPSILON_CONSTANT · sqrt(ln(2m/β)) / (ε sqrt(n))``; the seed's ``1/sqrt(nε)`` is wrong.
    """
    epsilon = check_epsilon(epsilon, high=1.0)
    n = check_int("n", n, low=1)
    m = check_int("m", m, low=1)
    beta = check_beta(beta)
    return float(RR_SMALL_EPSILON_CONSTANT * np.sqrt(np.log(2.0 * m / beta)) / (epsilon * np.sqrt(n)))


def laplace_rr_crossover(n, beta, epsilon, m_max: int = 10**9) -> int:
    """The smallest ``m <= m_max`` at which the split-budget Laplace bound ``m ln(m/β)/(nε)`` (LEC3-3.3.2,
    PROJ-R2) exceeds the randomized-response bound ``rr_error_bound(n, β, ε, m)`` (LEC3-3.4).

    Up to logarithms this is ``m ≈ sqrt(n)`` (both bounds ``∝ 1/ε`` for small ε).  The ratio of the two bounds
    increases with ``m``, so a binary search finds the crossing.  Returns ``m_max + 1`` when Laplace's bound
    stays at or below RR's up to ``m_max``.
    """
    n = check_int("n", n, low=1)
    m_max = check_int("m_max", m_max, low=1)
    beta, epsilon = check_beta(beta), check_epsilon(epsilon)
    c = rr_bias_factor(epsilon)

    def laplace_wins(m):              # Laplace bound <= RR bound (theory.laplace.split_budget_error_bound vs rr_error_bound)
        return m * np.log(m / beta) / (n * epsilon) <= np.sqrt(np.log(2.0 * m / beta) / (2.0 * n)) / c

    lo, hi = 0, m_max + 1             # invariant: Laplace wins at lo (or lo = 0), loses at hi (or hi = m_max + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if laplace_wins(mid) else (lo, mid)
    return hi


# --- the results chapter 02 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "02_randomized_response"
RESULTS = (
    Result(id="LEC3-3.4", title="Randomized response for linear queries", chapter=_CH, section="The mechanism (LEC3-3.4",
           statement=r"Each person reports their bit truthfully with probability $p=e^\varepsilon/(1+e^\varepsilon)$ and "
                     r"flips it otherwise ($\varepsilon$-DP for that bit); the analyst debiases with "
                     r"$\hat x_i=\tfrac12+(Y_i-\tfrac12)/\tanh(\varepsilon/2)$ and answers any number of linear queries "
                     r"from $\hat x$ at no extra privacy cost, with error $O(\sqrt{\ln(m/\beta)}/(\varepsilon\sqrt n))$.",
           implemented_by=("dpbook.randomized_response.randomized_response", "dpbook.randomized_response.debias",
                           "dpbook.randomized_response.rr_linear_queries", "dpbook.randomized_response.rr_mechanism"),
           bounds=("dpbook.theory.randomized_response.rr_keep_probability",
                   "dpbook.theory.randomized_response.rr_error_bound",
                   "dpbook.theory.randomized_response.laplace_rr_crossover"),
           source=f"{LECTURE3}, §3.4 (corrected); {DWORK_ROTH}, Claim 3.5; {WARNER}"),
    Result(id="LEC3-E4", title="Erratum: the debiasing divides by 2p − 1", chapter=_CH, section="The mechanism (LEC3-3.4",
           statement=r"Correction: the unbiased estimator is $\hat x_i=\tfrac12+(Y_i-\tfrac12)/(2p-1)$ with "
                     r"$2p-1=\tanh(\varepsilon/2)$; the notes divide by $2^{p-1}$, which is biased.",
           implemented_by=("dpbook.randomized_response.debias",),
           bounds=("dpbook.theory.randomized_response.rr_bias_factor",),
           source=f"{LECTURE3}, §3.4"),
    Result(id="LEC3-E5", title="Erratum: the range of the debiased bit", chapter=_CH, section="The mechanism (LEC3-3.4",
           statement=r"Correction: $\hat x_i$ lies in $[\tfrac12-\tfrac1{2(2p-1)},\,\tfrac12+\tfrac1{2(2p-1)}]$, an interval of "
                     r"length $1/\tanh(\varepsilon/2)\approx2/\varepsilon$.",
           bounds=("dpbook.theory.randomized_response.rr_estimator_range",),
           source=f"{LECTURE3}, §3.4"),
    Result(id="LEC3-E6", title="Erratum: the Hoeffding exponent", chapter=_CH,
           section="Accuracy for one query: Hoeffding",
           statement=r"Correction: Hoeffding gives $\Pr[|q^\top\hat x-q^\top x|/n>\lambda]\le2\exp(-2n\lambda^2(2p-1)^2)$; the range of "
                     r"each term is $O(1/\varepsilon)$, so the exponent's denominator is $O(1/\varepsilon^2)$, not "
                     r"$O(1/\varepsilon)$.",
           bounds=("dpbook.theory.randomized_response.rr_hoeffding_tail",),
           source=f"{LECTURE3}, §3.4"),
    Result(id="LEC3-E7", title="Erratum: solving the tail for the error", chapter=_CH,
           section="Accuracy for one query: Hoeffding",
           statement=r"Correction: with probability $1-\beta$ the error is at most "
                     r"$\sqrt{\ln(2/\beta)/(2n)}/\tanh(\varepsilon/2)$ (the notes lose the ε).",
           bounds=("dpbook.theory.randomized_response.rr_error_bound",),
           source=f"{LECTURE3}, §3.4"),
    Result(id="LEC3-E8", title="Erratum: the rate of randomized response", chapter=_CH,
           section="Many queries: error against",
           statement=r"Correction: for $\varepsilon\le1$ the error is $O(\sqrt{\ln(m/\beta)}/(\varepsilon\sqrt n))$, i.e. it "
                     r"falls like $1/\varepsilon$, not $1/\sqrt{\varepsilon}$.",
           bounds=("dpbook.theory.randomized_response.rr_error_bound_small_epsilon",),
           source=f"{LECTURE3}, §3.4"),
)
