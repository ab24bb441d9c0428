"""Answers to chapter 07's exercises (the exponential mechanism and report noisy max).

Both answers are exact (computed from the mechanism's output law, nothing sampled), so the tolerances are tight.
"""
from __future__ import annotations

import numpy as np

from ..data import load_cancer
from ..exponential import exponential_probabilities
from ._registry import register


@register("07.1", hint="the output law is exponential_probabilities(u, epsilon=1, sensitivity=1); sort the candidates "
                       "by gap = OPT − u and find where the cumulative probability first reaches 0.95", rtol=0.01)
def tie_gap_quantile() -> float:
    """The exact 95%-quantile of the utility gap with 50 optimal candidates among 5,000 (ε = 1, Δu = 1)."""
    u = np.concatenate([np.zeros(50), -np.linspace(0.5, 30.0, 4950)])
    p = exponential_probabilities(u, epsilon=1.0, sensitivity=1.0)
    order = np.argsort(-u)
    return float(-u[order][np.searchsorted(np.cumsum(p[order]), 0.95)])


@register("07.2", hint="sum the exact output probabilities of every row whose count is below the largest count, "
                       "with u = the cancer counts, Δu = 1 and ε = eps_grid[2]", rtol=0.01)
def miss_probability() -> float:
    """The exact probability that the exponential mechanism misses the most common cancer row at ε = eps_grid[2]."""
    counts = load_cancer().x.astype(float)
    epsilon = float(np.geomspace(0.05, 20, 7)[2])
    p = exponential_probabilities(counts, epsilon=epsilon, sensitivity=1.0)
    return float(p[counts < counts.max()].sum())
