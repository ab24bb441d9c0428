"""BROKEN exponential-mechanism family: positive controls for the chapter 07 audits.  Never release with these."""
from __future__ import annotations

import numpy as np

from ..exponential import exponential_mechanism, exponential_sample, report_noisy_max
from ..noise import laplace_noise
from .noise import broken_noise
from ..queries import check_database
from ..release import Spend, with_claim
from ..smalldb import MAX_RANGE_SIZE, SyntheticDatabase, candidate_answers, multisets
from ..theory.smalldb import smalldb_size
from ..validation import check_epsilon, check_real, check_trials

__all__ = ["exponential_mechanism_no_half", "report_noisy_max_half_noise", "smalldb_no_half"]


def exponential_mechanism_no_half(scores, *, epsilon, sensitivity, trials=None, rng=None):
    """BROKEN: weights ``exp(ε u / Δu)`` — the factor 1/2 of DR-Def3.4 is missing.

    This is the exponential mechanism at ``2ε``.  On *monotone* utilities (all scores move the same way) it
    happens to be ε-DP, so an audit on a monotone pair cannot see the bug; on a non-monotone pair its
    privacy loss approaches ``2ε``.
    """
    epsilon = check_epsilon(epsilon)
    picks = exponential_mechanism(scores, epsilon=2 * epsilon, sensitivity=sensitivity, trials=trials, rng=rng)
    return with_claim(picks.released, mechanism="exponential mechanism (BROKEN: no 1/2)",
                      ledger=(Spend("exponential (BROKEN)", epsilon),))            # the false claim: ε


def report_noisy_max_half_noise(scores, *, epsilon, sensitivity, monotone=False, trials=None, rng=None):
    """BROKEN: report-noisy-max with half the Laplace scale (``Δu/(2ε)`` for monotone utilities): 2ε-DP."""
    half = lambda scale, size, r: laplace_noise(scale / 2, size, r)               # noqa: E731 - the bug
    return report_noisy_max(scores, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone,
                            trials=trials, rng=rng, sampler=broken_noise("BROKEN half-scale laplace", "laplace", None, half))


def smalldb_no_half(x, workload, *, epsilon, alpha, trials=None, rng=None) -> SyntheticDatabase:
    """BROKEN: SmallDB sampling with :func:`exponential_mechanism_no_half` (weights ``exp(ε n u)``): 2ε-DP.

    SmallDB's utility is non-monotone (candidates on either side of ``x`` move in opposite directions),
    so the audit catches this.
    """
    x, W = check_database(x, workload)
    epsilon = check_epsilon(epsilon)
    db_size = smalldb_size(W.m, check_real("alpha", alpha, low=0.0, high=1.0, low_open=True))
    net = multisets(W.N, db_size, max_range_size=MAX_RANGE_SIZE)
    answers, err = candidate_answers(x, W, net)
    if trials is None:
        pick = exponential_mechanism_no_half(-err, epsilon=epsilon, sensitivity=1.0 / x.sum(), rng=rng)
    else:
        pick = exponential_sample(-err, epsilon=2 * epsilon, sensitivity=1.0 / x.sum(),
                                  size=check_trials(trials), rng=rng)
    y = np.array(net[pick])
    return SyntheticDatabase(y, answers[np.asarray(pick)], "smalldb (BROKEN: no 1/2)", db_size,
                             int(net.shape[0]), (Spend("exponential (BROKEN)", epsilon),))
