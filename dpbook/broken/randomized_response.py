"""Deliberately broken randomized response (positive controls for chapter 02's audit and accuracy checks).

Never use these to release data.
"""
from __future__ import annotations

import numpy as np

from ..randomized_response import RRReports, check_bits, check_reports
from ..release import Spend
from ..contract import mechanism_prologue
from ..validation import check_epsilon

__all__ = ["randomized_response_wrong_p", "debias_seed_formula"]


def randomized_response_wrong_p(bits, *, epsilon, trials=None, rng=None) -> RRReports:
    """BROKEN (privacy): keeps each bit with probability ``p = 1 - e^{-ε}/2`` instead of ``e^ε/(1+e^ε)``.

    That is the Laplace CDF ``P[Lap(1/ε) > -1]`` misused as a keep probability.  Its odds are
    ``p/(1-p) = 2e^ε - 1 > e^ε``: the true privacy loss is ``ln(2e^ε - 1)`` (1.49 at ε = 1), yet it claims ε.
    """
    bits = check_bits(bits)
    pro = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, neighbours=None, per_release=bits.shape)
    epsilon = pro.epsilon
    p = 1.0 - np.exp(-epsilon) / 2.0                    # WRONG: should be e^ε / (1 + e^ε)
    keep = pro.rng.random(pro.shape) < p
    reports = np.where(keep, bits, 1 - bits).astype(np.int8)
    return RRReports(reports, float(p), mechanism="randomized response (BROKEN: wrong p)",
                     ledger=(Spend("randomized response (BROKEN)", epsilon),))


def debias_seed_formula(reports, epsilon) -> np.ndarray:
    """BROKEN (accuracy): Lecture 3's garbled estimator ``x̂ = 1/2 + (Y - 1/2)/2^{p-1}`` (erratum LEC3-E4).

    ``2^{p-1} ≈ 0.83`` at ε = 1 instead of ``2p - 1 = tanh(ε/2) ≈ 0.46``: the estimate is shrunk towards 1/2, so it
    is biased and its error does not vanish as ``n`` grows.  Post-processing, so still private — an accuracy
    test must catch it, not an audit.
    """
    Y = check_reports(reports)
    p = 1.0 / (1.0 + np.exp(-check_epsilon(epsilon)))          # e^ε/(1+e^ε), without overflow
    return 0.5 + (Y - 0.5) / 2.0 ** (p - 1.0)         # WRONG: should divide by 2p - 1
