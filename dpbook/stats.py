"""Exact binomial confidence bounds (Clopper–Pearson), shared by experiments and audits.

The bounds are exact (conservative) for any number of trials, so a check that fails only when the
Clopper–Pearson bound crosses a theorem's value has a false-alarm probability of at most its level.
"""
from __future__ import annotations

import numpy as np
from scipy import special     # the Beta quantiles scipy.stats.beta.ppf/isf call, without importing scipy.stats (~1 s)

from .validation import check_int, check_probability, check_real_array, check_trials

__all__ = ["clopper_pearson_lower", "clopper_pearson_upper", "clopper_pearson", "exact_quantile"]


def _check(hits, trials, level):
    trials = check_trials(trials)
    hits = check_int("hits", hits, low=0, high=trials)
    level = check_probability(level, "level", open_low=True, open_high=True)
    return hits, trials, level


def clopper_pearson_lower(hits, trials, level=1e-6) -> float:
    """One-sided lower bound ``p_lo`` with ``P[p < p_lo] <= level`` after ``hits`` successes in ``trials``."""
    hits, trials, level = _check(hits, trials, level)
    return 0.0 if hits == 0 else float(special.betaincinv(hits, trials - hits + 1, level))   # the Beta(h, n−h+1) quantile


def clopper_pearson_upper(hits, trials, level=1e-6) -> float:
    """One-sided upper bound ``p_hi`` with ``P[p > p_hi] <= level`` after ``hits`` successes in ``trials``."""
    hits, trials, level = _check(hits, trials, level)
    return 1.0 if hits == trials else float(special.betainccinv(hits + 1, trials - hits, level))   # its upper quantile


def clopper_pearson(hits, trials, level=0.05) -> tuple[float, float]:
    """Two-sided interval ``(p_lo, p_hi)`` for the success probability ``p`` after ``hits`` successes in ``trials``,
    which misses ``p`` with probability at most ``level``."""
    hits, trials, level = _check(hits, trials, level)
    return clopper_pearson_lower(hits, trials, level / 2), clopper_pearson_upper(hits, trials, level / 2)


def exact_quantile(errors, probabilities, level) -> float:
    """The exact ``level``-quantile of a discrete law given by ``errors`` and their ``probabilities`` (the least
    error whose cumulative probability reaches ``level``; a SmallDB error law is exact, so no sampling is needed)."""
    errors = check_real_array("errors", errors)
    probabilities = check_real_array("probabilities", probabilities, low=0.0)
    if errors.ndim != 1 or errors.size == 0:
        raise ValueError(f"errors (shape {errors.shape}) must be a non-empty 1-D array")
    if probabilities.shape != errors.shape:
        raise ValueError(f"probabilities (shape {probabilities.shape}) must have the shape of errors {errors.shape}")
    level = check_probability(level, "level")
    order = np.argsort(errors, kind="stable")
    cdf = np.cumsum(np.asarray(probabilities, dtype=float)[order])
    return float(np.asarray(errors)[order][min(np.searchsorted(cdf, level), len(order) - 1)])
