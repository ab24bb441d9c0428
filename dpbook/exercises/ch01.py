"""Answers to chapter 01's exercises (the Laplace mechanism).

Exercise 1 is measured by simulation in the chapter; its expected value is exact: the max error of a workload with
sensitivity Δf is Δf times the max error of one with sensitivity 1 and the same m (the same Laplace draws, scaled),
so the ratio of the 95 % quantiles is 32 in distribution.  Over 20 seeds (2000 releases each, as in the chapter)
the measured ratio had a relative spread (standard deviation) of 2.1 %; rtol = 0.1 is more than 3 times that.
"""
from __future__ import annotations

import numpy as np

from ..broken.laplace import laplace_scale_epsilon
from ..queries import MarginalWorkload, MatrixWorkload, conjunctions, k_way_marginals
from ..theory.histogram import histogram_scale
from ..theory.laplace import split_budget_error_bound, laplace_failure_probability
from ._registry import register


@register("01.1", hint="compare the exact sensitivities of the two workloads: the noise scale is Δf/ε, and the max "
                       "error scales with it", rtol=0.1)
def error_ratio_marginal() -> float:
    """How many times smaller the 95 % quantile of the max error is on the 32 cells of one 5-way marginal than on
    32 conjunctions (ε = 1): the ratio of the exact sensitivities."""
    marginal = k_way_marginals(11, 5, attribute_sets=[(0, 1, 2, 3, 4)])
    conj32 = MarginalWorkload(11, conjunctions(11, 3).cells[:32])     # the first 32 conjunctions
    return float(conj32.l1_sensitivity() / marginal.l1_sensitivity())


@register("01.2", hint="one replaced row leaves one cell and enters another: what is ‖x − x′‖₁?", rtol=0.005)
def replace_one_scale() -> float:
    """The Laplace noise scale (counts) the histogram needs under replace-one neighbours at ε = 1."""
    return float(histogram_scale(1.0, "replace-one"))


@register("01.3", hint="solve 1 − (1 − e^{−λ})^m = β for λ (in units of the noise scale b), at m = 55, β = 0.05",
          rtol=0.002)
def exact_threshold() -> float:
    """The threshold λ* (in units of b) whose exact failure probability over m = 55 Laplace answers is β = 0.05."""
    threshold = float(-np.log1p(-(1 - 0.05) ** (1 / 55)))            # solves 1 - (1 - e^{-λ})^m = β exactly
    assert abs(laplace_failure_probability(threshold, 55, 1.0, 1.0) - 0.05) <= 1e-12
    return threshold


@register("01.4", hint="the error bound is C/n with C = m ln(m/β)/ε counts; the smallest n with C/n < 1/√n (an integer)",
          rtol=0.01)
def crossover_rows() -> float:
    """The n from which the budget-split Laplace bound for m = 165 conjunctions falls below the sampling error."""
    return float(np.ceil(split_budget_error_bound(165, 0.05, 1.0) ** 2))


@register("01.5", hint="the privacy loss of Laplace noise of scale b on a query of sensitivity Δf is Δf/b; which "
                       "scale does the bug use at ε = 2?", rtol=0.01)
def scale_bug_true_loss() -> float:
    """The true privacy loss, at a claim of ε = 2, of the mechanism that uses scale ε/Δf (one counting query)."""
    one_query = MatrixWorkload(np.array([[0.0, 1.0]]))
    release = laplace_scale_epsilon(np.array([1, 0]), one_query, epsilon=2.0, n=1, rng=0)
    return float(one_query.l1_sensitivity() / release.noise_scale)
