"""Answers to chapter 17's exercises (auditing).

Exercise 3's audit is random; its expected value here is the audit's lower bound at the *expected* hit counts of the
event {y ≤ k*} (the event where the discrete Gaussian's privacy loss exceeds ε) with 10^6 runs per side, claiming
δ/2.  Over 30 seeds of the binomial hit counts the lower bound had a mean of 1.035 and a standard deviation of
0.013 (1.2 %, range 1.01–1.06); rtol = 0.04 is more than 3 times that.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import bdtr        # the binomial CDF (scipy.stats, ~1 s to import, is not needed)

from ..audit import epsilon_lower_bound
from ..exponential import exponential_probabilities
from ..noise import discrete_gaussian_delta, discrete_gaussian_pmf
from ._registry import register


@register("17.1", hint="without the ½ the mechanism picks r with probability ∝ e^{ε u_r/Δ}; compare the two "
                       "pairs' probabilities outcome by outcome and take the largest |log-ratio|", rtol=0.01)
def monotone_no_half_loss() -> float:
    """The true privacy loss of the exponential mechanism without the ½ on u = (1, 0, …, 0) vs (0, …, 0), ε = 1."""
    u, u_prime = np.r_[1.0, np.zeros(9)], np.zeros(10)
    p = exponential_probabilities(u, epsilon=2.0, sensitivity=1.0)          # ε/(2Δ) with ε = 2: no ½ at ε = 1
    p_prime = exponential_probabilities(u_prime, epsilon=2.0, sensitivity=1.0)
    return float(np.abs(np.log(p / p_prime)).max())


@register("17.2", hint="with p = ½ on x and p′ = ½e^{−2} on x′, take the 0.5 % quantile of Binomial(N, p) and the "
                       "99.5 % quantile of Binomial(N, p′); the first N of the list whose ε_lb exceeds 1", rtol=0.01)
def runs_to_catch_halved() -> float:
    """The smallest N in (500, 700, 1000, 1500, 2000, 3000) at which the halved-sensitivity Laplace control is
    caught at ε = 1 with probability ≥ 0.99 (binomial quantiles of the hits)."""
    p, p_prime = 0.5, 0.5 * math.exp(-2.0)

    def quantile(q, N, p):          # the smallest k with P[Binomial(N, p) <= k] >= q
        return int(np.searchsorted(bdtr(np.arange(N + 1), N, p), q))
    for N in (500, 700, 1000, 1500, 2000, 3000):
        if epsilon_lower_bound(quantile(0.005, N, p), N, quantile(0.995, N, p_prime), N) > 1.0:
            return float(N)
    raise AssertionError("no N of the list suffices")


@register("17.3", hint="audit the catalogue's discrete_gaussian case with delta = its δ/2 and 10^6 runs per side; "
                       "the event {y ≤ k*} is where the privacy loss exceeds ε", rtol=0.04)
def discrete_gaussian_half_delta_lb() -> float:
    """ε_lb of the discrete Gaussian (σ = 2, counts 0 vs 1) claiming δ/2, at the expected hits of 10^6 runs."""
    eps, sigma, runs = 1.0, 2.0, 1_000_000
    delta = discrete_gaussian_delta(eps, sigma)
    k_star = math.ceil((1 - 2 * sigma ** 2 * eps) / 2) - 1
    ks = np.arange(-60, k_star + 1)
    p_x = float(discrete_gaussian_pmf(ks, sigma).sum())              # P[0 + Z <= k*]
    p_x_prime = float(discrete_gaussian_pmf(ks - 1, sigma).sum())    # P[1 + Z <= k*]
    return epsilon_lower_bound(round(runs * p_x), runs, round(runs * p_x_prime), runs, delta=delta / 2)
