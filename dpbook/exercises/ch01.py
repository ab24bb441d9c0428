"""Answers to chapter 01's exercises (the Laplace mechanism)."""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..theory.laplace import k_query_error_bound, laplace_failure_probability
from ._registry import register


@register("01.3", hint="solve 1 − (1 − e^{−λ})^m = β for λ (in units of the noise scale b), at m = 55, β = 0.05",
          rtol=0.002)
def exact_threshold() -> float:
    """The threshold λ* (in units of b) whose exact failure probability over m = 55 Laplace answers is β = 0.05."""
    return brentq(lambda t: laplace_failure_probability(t, 55, 1.0, 1.0) - 0.05, 1.0, 20.0, xtol=1e-12)


@register("01.4", hint="the error bound is C/n with C = m ln(m/β)/ε counts; the smallest n with C/n < 1/√n (an integer)",
          rtol=0.01)
def crossover_rows() -> float:
    """The n from which the budget-split Laplace bound for m = 165 conjunctions falls below the sampling error."""
    return float(np.ceil(k_query_error_bound(165, 0.05, 1.0) ** 2))
