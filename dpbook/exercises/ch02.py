"""Answers to chapter 02's exercises (randomized response).

Exercise 3 is measured by simulation: the fraction of truthful reports among 200,000 has a binomial standard
deviation of sqrt(3/16 / 200000) = 0.00097, a relative spread of 0.13 % (measured over 20 seeds: 0.12 %); the
expected value is exact (p = 3/4) and rtol = 0.01 is more than 3 times the spread.  Exercise 4's slope depends a
little on the n grid of the fit: from 7 to 61 log-spaced points between 10^2 and 10^8 it moved by less than 0.3 %;
rtol = 0.03.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri     # the normal quantile norm.ppf computes, without importing scipy.stats (~1 s)

from ..randomized_response import subgroup_workload
from ..theory.randomized_response import (laplace_rr_crossover, rr_bias_factor, rr_error_bound,
                                          rr_keep_probability)
from ._registry import register


@register("02.1", hint="for q = 1 both errors scale as 1/√n, so the ratio does not depend on n: "
                       "z_{β/2}·√(p(1−p)) against √(ln(2/β)/2)", rtol=0.01)
def clt_over_hoeffding() -> float:
    """The CLT's 0.95-quantile of the error for q = 1 divided by Hoeffding's bound, at ε = 1, β = 0.05."""
    eps, beta, n = 1.0, 0.05, 569
    p = rr_keep_probability(eps)
    clt = ndtri(1 - beta / 2) * math.sqrt(p * (1 - p)) / (math.sqrt(n) * rr_bias_factor(eps))
    return clt / rr_error_bound(n, beta, eps, 1)


@register("02.2", hint="average the estimator over the two reports: E[x̂] = ½ + (2p − 1)(x − ½)/2^{p−1}; the bias is "
                       "E[x̂] − x", rtol=0.005)
def seed_formula_bias() -> float:
    """The bias E[x̂] − x of Lecture 3's estimator (divisor 2^{p−1}) for a true bit x = 1 at ε = 1."""
    p = rr_keep_probability(1.0)
    return (1 - 0.5) * (rr_bias_factor(1.0) / 2 ** (p - 1) - 1)


@register("02.3", hint="the fraction of reports equal to the true bit estimates p = e^ε/(1 + e^ε)", rtol=0.01)
def truthful_fraction() -> float:
    """The fraction of truthful reports of randomized response at ε = ln 3 (its expectation: p)."""
    return rr_keep_probability(math.log(3))


@register("02.4", hint="fit a line to log m* against log n (np.polyfit) for n from 10^2 to 10^8", rtol=0.03)
def crossover_slope() -> float:
    """The least-squares slope of log m* against log n, n = 10^2..10^8 (13 log-spaced points), ε = 1, β = 0.05."""
    ns = np.logspace(2, 8, 13).round().astype(int)
    ms = np.array([laplace_rr_crossover(int(v), 0.05, 1.0) for v in ns])
    return float(np.polyfit(np.log(ns), np.log(ms), 1)[0])


@register("02.5", hint="a malignant patient lies in exactly one cell of each attribute set; count the attribute sets",
          rtol=0.005)
def subgroup_sensitivity() -> float:
    """The exact L1 sensitivity of all 1161 subgroup queries of §5."""
    return float(subgroup_workload().l1_sensitivity())
