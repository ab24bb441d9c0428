"""Answers to chapter 06's exercises (the sparse vector technique)."""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from ..queries import conjunctions
from ..theory import sparse_vector as th
from ..theory.laplace import laplace_cdf
from ._registry import register


@register("06.1", hint="adding or removing a row u changes ⟨q − τ1, x⟩ by q(u) − τ, and q(u) is 0 or 1",
          rtol=0.005)
def threshold_test_sensitivity() -> float:
    """The add/remove sensitivity of the counts ⟨q − τ1, x⟩ over the 165 three-way conjunctions at τ = 0.4."""
    return float(np.abs(conjunctions(11, 3).matrix() - 0.4).max())


def _halt_probability(j: int, a_bottom: float, a_top: float, epsilon: float) -> float:
    """P[j answers ⊥, then ⊤] when the ⊥ queries sit at τ + a_bottom and the ⊤ query at τ + a_top."""
    b_nu0, b_nu = th.above_threshold_scales(epsilon)

    def g(r):
        return (math.exp(-abs(r) / b_nu0) / (2 * b_nu0) * laplace_cdf(r - a_bottom, 0.0, b_nu) ** j
                * (1.0 - laplace_cdf(r - a_top, 0.0, b_nu)))
    return integrate.quad(g, -80 * b_nu0, 80 * b_nu0, points=[-1.0, 0.0, 1.0, 1 + b_nu * math.log(j + 1)],
                          limit=400, epsabs=0, epsrel=1e-10)[0]


@register("06.2", hint="multiply the integrand of th.first_j_bottom_probability by a ⊤ factor 1 − F_ν(r − a_⊤) for "
                       "query j+1; on D′ the ⊥ queries sit one above τ and the ⊤ query one below", rtol=0.01)
def halting_log_ratio() -> float:
    """ln(P_D/P_D′[halts at query j+1]) for the halting pattern at j = 4, ε = 1."""
    return math.log(_halt_probability(4, 0.0, 0.0, 1.0) / _halt_probability(4, 1.0, -1.0, 1.0))


@register("06.3", hint="the variance of ν − ρ is 2(Δ/ε₁)² + 2(2Δ/ε₂)²; compare its square root at ε₁:ε₂ = 1:2^{2/3} "
                       "with the even split, as 1 − optimal/even", rtol=0.02)
def optimal_split_sd_saving() -> float:
    """The fraction by which the split 1 : 2^{2/3} lowers the standard deviation of ν − ρ against the even split."""
    def sd(r):                     # ε' = Δ = 1, split 1 : r between threshold and queries
        return math.sqrt(2 * (1 + r) ** 2 + 2 * (2 * (1 + r) / r) ** 2)
    return 1 - sd(2 ** (2 / 3)) / sd(1.0)


@register("06.5", hint="compare th.sparse_sigma(ε, c) with th.sparse_sigma(ε, c, 1e-6) for c = 1, 2, …; "
                       "or solve 32c ln(1/δ) < 4c²", rtol=0.005)
def delta_pays_from_c() -> float:
    """The smallest c at which the δ = 1e-6 version of Sparse uses less noise than the δ = 0 version."""
    return float(next(c for c in range(1, 10_000) if th.sparse_sigma(1.0, c, 1e-6) < th.sparse_sigma(1.0, c)))
