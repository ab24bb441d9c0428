"""A deliberately broken projection mechanism (positive control for chapter 13's audit). Never use it.

It projects exactly like :func:`dpbook.projection.projection_mechanism` — the projection is post-processing and
cannot break privacy — but its Gaussian step is calibrated for the wrong sensitivity.
"""
from __future__ import annotations

import math

import numpy as np

from ..noise import gaussian_noise
from ..projection import project_onto_hull
from ..queries import check_database
from ..release import Release, Spend
from ..contract import mechanism_prologue

__all__ = ["projection_single_query_sensitivity"]


def projection_single_query_sensitivity(x, workload, *, epsilon, delta, trials=None, rng=None) -> Release:
    """BROKEN: the Gaussian step uses ``σ = sqrt(2 ln(1.25/δ)) / ε`` on the counts — the sensitivity of *one*
    counting query — whatever the workload.  With ``m`` queries that all move with one row the true L2
    sensitivity is ``sqrt(m)``, so σ is ``sqrt(m)`` times too small; projecting afterwards does not help."""
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, trials=trials, neighbours="replace-one", x=x,
                           n_rule="public", per_release=(W.m,), positive_delta=True)
    epsilon, delta, n = p.epsilon, p.delta, float(p.n)
    sigma = math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    noisy = (W.counts(x) + gaussian_noise(sigma, p.shape, p.rng)) / n
    answers = np.stack([project_onto_hull(y, W).answers for y in np.atleast_2d(noisy)])
    return Release(answers if trials is not None else answers[0],
                   "broken: projection with one-query sensitivity", noise_scale=sigma / n,
                   ledger=(Spend("broken gaussian", epsilon, delta),), neighbours="replace-one")
