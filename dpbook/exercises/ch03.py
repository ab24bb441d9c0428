"""Answers to chapter 03's exercises (the noisy histogram).

Exercise 3's expected value is exact (sqrt(2N)/ε); the chapter measures it over 2000 releases, whose standard
deviation of the total has a relative spread of 1.7 % over 20 seeds; rtol = 0.06 is more than 3 times that.
Exercise 5's expected value is the exact privacy loss 2ε of the best event; an audit with 3·10^5 runs per side
reports a lower bound just below it (over 20 seeds of the binomial hit counts: mean 1.93, standard deviation 0.011,
all between 1.91 and 1.97), so rtol = 0.06 judges an audit's answer right.
"""
from __future__ import annotations

import math

from scipy.special import ndtri     # the normal quantile norm.ppf computes, without importing scipy.stats (~1 s)

from ..theory.histogram import histogram_error_bound, histogram_scale
from ..theory.laplace import split_budget_error_bound, laplace_cdf
from ._registry import register


@register("03.1", hint="Var(qᵀZ) = 2b²‖q‖²; compare the bound's √(6N ln(2/β)) with the CLT's z_{β/2}·√(2N)",
          rtol=0.01)
def bound_over_clt() -> float:
    """The factor by which the bound of §4 exceeds the CLT's 0.95-quantile of |qᵀZ| for q = 1 (any N)."""
    N, beta, eps = 16, 0.05, 1.0
    clt = ndtri(1 - beta / 2) * math.sqrt(2 * N) * histogram_scale(eps)
    return histogram_error_bound(N, 1, beta, eps) / clt


@register("03.3", hint="the released total is n plus a sum of N independent Lap(1/ε) noises; Var(Lap(b)) = 2b²",
          rtol=0.06)
def total_sd() -> float:
    """The standard deviation (rows) of the released total Σ x̂_u for N = 2048 cells at ε = 1."""
    return math.sqrt(2 * 2048) * histogram_scale(1.0)


@register("03.4", hint="scan m = 1, 2, … and compare histogram_error_bound(N, m, β, ε, n=n) with "
                       "split_budget_error_bound(m, β, ε, n=n)", rtol=0.01)
def split_budget_crossover() -> float:
    """The smallest m at which the histogram's bound beats the split-budget Laplace bound (N = 2048, n = 569, ε = 1)."""
    N, n, beta, eps = 2048, 569, 0.05, 1.0
    return float(next(m for m in range(1, 10_000)
                      if histogram_error_bound(N, m, beta, eps, n=n) < split_budget_error_bound(m, beta, eps, n=n)))


@register("03.5", hint="on the moved histogram one cell lost a row and another gained one: both coordinates of the "
                       "event shift by one noise scale", rtol=0.06)
def replace_one_loss() -> float:
    """The privacy loss of the event {x̂₀ ≥ x₀, x̂₁ ≤ x₁} under Lap(1/ε), ε = 1, when one row moves from cell 0 to
    cell 1: the ε_lb an audit approaches."""
    b = histogram_scale(1.0)
    p_x = (1 - laplace_cdf(0.0, 0.0, b)) * laplace_cdf(0.0, 0.0, b)
    p_moved = (1 - laplace_cdf(1.0, 0.0, b)) * laplace_cdf(-1.0, 0.0, b)
    return math.log(p_x / p_moved)
