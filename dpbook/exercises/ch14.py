"""Answers to chapter 14's exercises (graph cuts).

All four answers are exact (bounds and roots of equations, nothing sampled); the tolerances are tight.
"""
from __future__ import annotations

import math

from scipy.optimize import brentq

from ..theory import graphs as th
from ._registry import register


@register("14.1", hint="section 2's deviation bound th.laplace_sum_deviation(σ², q_max, b, L) with σ² = |V|²/4, "
                       "q_max = 1, b = 1/ε and L = th.union_log_term(|V|, β)", rtol=0.005)
def disjoint_cut_bound() -> float:
    """The all-disjoint-cuts error bound at |V| = 10, ε = 1, β = 0.05."""
    return float(th.laplace_sum_deviation(25.0, 1.0, 1.0, th.union_log_term(10, 0.05)))


@register("14.2", hint="scan |V| = 4, 5, … until th.rr_cut_error_bound(|V|, 1, 0.05) < 2·th.num_pairs(|V|)", rtol=0.01)
def useful_vertices() -> float:
    """The smallest |V| whose all-cuts bound beats the complete graph's worst error 2·C(|V|, 2) (ε = 1, β = 0.05)."""
    return float(next(V for V in range(4, 500) if th.rr_cut_error_bound(V, 1.0, 0.05) < 2 * th.num_pairs(V)))


@register("14.3", hint="moving an edge changes two cells by 1: what is the sensitivity, and how do the bounds scale "
                       "with the noise scale b?", rtol=0.005)
def replace_one_bound() -> float:
    """The all-cuts bound under replace-one neighbours for the karate club (|V| = 34, ε = 1, β = 0.05)."""
    return float(th.rr_cut_error_bound(34, 1.0, 0.05, "replace-one"))


@register("14.4", hint="with r = N/|E| the bounds are 4 ln r/α² and r/α²: solve r = 4 ln r for its root other than "
                       "r = 1, and turn r into a density", rtol=0.005)
def equal_bounds_density() -> float:
    """The density |E|/N at which the refined MW bound and the FK bound are equal (other than 1)."""
    return 1.0 / brentq(lambda r: r - 4 * math.log(r), 2.0, 20.0, xtol=1e-12)
