"""Answers to chapter 10's exercises (iterative database constructions).

Both answers are exact (no sampling), so the tolerances are tight.
"""
from __future__ import annotations

import numpy as np

from ..data import cancer_projection
from ..idc import FriezeKannanIDC, MultiplicativeWeightsIDC
from ..queries import k_way_marginals
from ._registry import register


@register("10.1", hint="FK's bound is N/(nα²) with n = N/2, MW's is 4 ln N/α² (rule.bound()); divide MW's by FK's",
          rtol=0.005)
def bound_ratio() -> float:
    """How many times FK's update bound is smaller than MW's on a dense set database (N = 2^10, n = N/2, α = 0.02)."""
    N, alpha = 2 ** 10, 0.02
    return float(MultiplicativeWeightsIDC(N, alpha).bound() / FriezeKannanIDC(N, alpha, n=N // 2, sq_norm=N // 2).bound())


@register("10.2", hint="a random query stops IC in round 1 unless it is one of the cells whose error at the uniform "
                       "start is at least 3α/4; count those cells among the 160", rtol=0.003)
def stop_in_round_one() -> float:
    """The probability that a uniformly random query stops IC in round 1 (section 2's data, α = 0.3)."""
    x6 = cancer_projection((0, 1, 2, 3, 4, 10)).x          # the chapter's six attributes (cancer6)
    W = k_way_marginals(6, 3)
    alpha = 0.3
    rule = MultiplicativeWeightsIDC(64, alpha / 2)
    err = np.abs(rule.answers(rule.initial(1), W.matrix()) - W.answers(x6 * 1000)).ravel()
    return float(1 - np.mean(err >= 0.75 * alpha))
