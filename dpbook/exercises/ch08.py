"""Answers to chapter 08's exercises (SmallDB and the net mechanism).

All three are exact: 08.1 draws its random subset from a seed the exercise names, 08.2 and 08.3 involve no
randomness; the tolerances are tight.
"""
from __future__ import annotations

import numpy as np

from ..data import load_cancer, project_dataset
from ..exponential import exponential_probabilities
from ..queries import MarginalWorkload, k_way_marginals
from ..smalldb import exact_error_distribution, multisets
from ..theory.laplace import laplace_max_error_bound
from ..theory.smalldb import claim_a3_size, smalldb_size, thm45_error_bound
from ._registry import register

_EPS, _ALPHA, _BETA = 1.0, 0.5, 0.05


def _setup():
    small = project_dataset(load_cancer(), ("radius_high", "texture_high", "malignant"))
    cells = [c for k in (1, 2, 3) for c in k_way_marginals(3, k).cells]
    return small, MarginalWorkload(3, cells[:18])


def _exact_quantile(err, n, q=1 - _BETA) -> float:
    order = np.argsort(err, kind="stable")
    p = exponential_probabilities(-err, epsilon=_EPS, sensitivity=1.0 / n)[order]
    return float(err[order][min(np.searchsorted(np.cumsum(p), q), err.size - 1)])


@register("08.1", hint="score the 2,000 candidates with exact_error_distribution, then read the 95%-quantile off "
                       "the exponential mechanism's output law over them (utility −error, sensitivity 1/n)",
          rtol=0.005)
def subset_quantile() -> float:
    """The exact 95%-quantile of the net mechanism's error over the seeded random 2,000-candidate subset."""
    small, W = _setup()
    net = multisets(small.N, smalldb_size(W.m, _ALPHA))
    sub = net[np.random.default_rng(2029).choice(net.shape[0], size=2000, replace=False)]
    err, _ = exact_error_distribution(small.x, W, sub, epsilon=_EPS)
    return _exact_quantile(err, small.n)


@register("08.2", hint="the net is multisets(8, db_size) with db_size = claim_a3_size(18, 0.5); score it exactly and "
                       "read the 95%-quantile off the output law (utility −error, sensitivity 1/n)", rtol=0.005)
def idc_size_quantile() -> float:
    """The exact 95%-quantile of the net mechanism's error with IDC-ClaimA.3's database size."""
    small, W = _setup()
    net = multisets(small.N, claim_a3_size(W.m, _ALPHA))
    err, _ = exact_error_distribution(small.x, W, net, epsilon=_EPS)
    return _exact_quantile(err, small.n)


@register("08.3", hint="bisect on the integer n: below the crossing thm45_error_bound(2**11, m, 1, n, β) is smaller "
                       "than laplace_max_error_bound(m, β, Δ, 1)/n, above it larger", rtol=0.01)
def crossing_rows_d11() -> float:
    """The largest n at which DR-Thm4.5's bound is below the Laplace bound, d = 11, true sensitivity."""
    d = 11
    Wd = MarginalWorkload(d, [c for k in (1, 2) for c in k_way_marginals(d, k).cells])
    lap = laplace_max_error_bound(Wd.m, _BETA, Wd.l1_sensitivity(), 1.0)
    lo, hi = 1, 10 ** 12
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if thm45_error_bound(2 ** d, Wd.m, 1.0, mid, _BETA) < lap / mid else (lo, mid)
    return float(lo)
