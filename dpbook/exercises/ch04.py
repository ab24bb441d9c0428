"""Answers to chapter 04's exercises (the Gaussian mechanism)."""
from __future__ import annotations

import math

import numpy as np

from ..queries import k_way_marginals
from ..theory.gaussian import analytic_gaussian_sigma, gaussian_sample_complexity, gaussian_sigma
from ..theory.laplace import split_budget_sample_complexity
from ._registry import register


@register("04.1", hint="the largest ‖Q(e_u − e_v)‖₂ over pairs of universe elements: take u and v that differ in "
                       "every attribute", rtol=0.005)
def replace_one_l2() -> float:
    """The L2 sensitivity of the 220 two-way marginal cells (11 attributes) under replace-one neighbours."""
    Q = k_way_marginals(11, 2).matrix().astype(np.float32)     # 0/1 entries: the inner products (integers <= 55) are exact
    G = Q.T @ Q
    norms = np.diag(G)
    return math.sqrt(float((norms[:, None] + norms[None, :] - 2 * G).max()))


@register("04.2", hint="compare analytic_gaussian_sigma and gaussian_sigma at Δ = 1, ε = 0.5, δ = 1e-5: "
                       "answer 1 − analytic/classic", rtol=0.01)
def analytic_sigma_saving() -> float:
    """The fraction by which the analytic σ is below the classic σ at ε = 0.5, δ = 1e-5."""
    return 1 - analytic_gaussian_sigma(1.0, 0.5, 1e-5) / gaussian_sigma(1.0, 0.5, 1e-5)


@register("04.3", hint="α and ε cancel; scan m = 1, 2, … until gaussian_sample_complexity < split_budget_sample_complexity "
                       "(β = 0.05)", rtol=0.01)
def gaussian_crossover_m() -> float:
    """The smallest m from which the Gaussian mechanism needs fewer rows than Laplace, at δ = 1e-6, β = 0.05."""
    beta, eps, alpha = 0.05, 0.5, 0.05
    return float(next(m for m in range(1, 10_000) if gaussian_sample_complexity(m, beta, eps, 1e-6, alpha)
                      < split_budget_sample_complexity(m, beta, eps, alpha)))
