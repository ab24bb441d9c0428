"""Chapter 06's SmallDB-against-the-histogram helpers: SmallDB at the only sizes it can run (N = 4, 8, 16 on
projections of the cancer data), next to chapter 03's noisy histogram and the uniform guess."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..data import cancer_projection
from ..exponential import exponential_probabilities
from ..histogram import histogram_mechanism
from ..noise import as_generator
from ..queries import MarginalWorkload, k_way_marginals
from ..smalldb import exact_error_distribution, multisets
from ..theory.histogram import histogram_error_bound, histogram_error_bound_condition, histogram_error_bound_general
from ..theory.smalldb import smalldb_size
from ..validation import check_alpha, check_beta, check_epsilon, check_int

__all__ = ["PROJECTIONS", "one_two_way_cells", "exact_quantile", "histogram_bound", "smalldb_vs_histogram"]

#: the attributes kept for d = 2, 3, 4 (chosen without looking at the counts; d = 3 is the chapter's table)
PROJECTIONS = {2: ("texture_high", "malignant"), 3: ("radius_high", "texture_high", "malignant"),
               4: ("radius_high", "texture_high", "smoothness_high", "malignant")}


def one_two_way_cells(d: int) -> MarginalWorkload:
    """All cells of the 1- and 2-way marginals of ``d`` attributes: ``m = 2d + 4 C(d, 2)``."""
    d = check_int("d", d, low=2, high=16)
    return MarginalWorkload(d, [c for k in (1, 2) for c in k_way_marginals(d, k).cells])


def exact_quantile(errors, probabilities, q) -> float:
    """The exact ``q``-quantile of a discrete law given by ``errors`` and their ``probabilities``."""
    order = np.argsort(errors, kind="stable")
    cdf = np.cumsum(np.asarray(probabilities, dtype=float)[order])
    return float(np.asarray(errors)[order][min(np.searchsorted(cdf, q), len(order) - 1)])


def histogram_bound(N, m, beta, epsilon, n) -> float:
    """IDC-Lem6.1's bound for the noisy histogram: its first form where it applies (``m <= (β/2) e^{2N/3}``),
    else the second (any ``m``; needed on the tiny universes SmallDB can run on)."""
    if histogram_error_bound_condition(N, m, beta):
        return histogram_error_bound(N, m, beta, epsilon, n=n)
    return histogram_error_bound_general(N, m, beta, epsilon, n=n)


@functools.lru_cache(typed=True, maxsize=8)
def _smalldb_errors(d: int, s: int):
    data = cancer_projection(PROJECTIONS[d])
    W = one_two_way_cells(d)
    net = multisets(data.N, s)
    err, _ = exact_error_distribution(data.x, W, net, epsilon=1.0)
    return data, W, err, net.shape[0]


def smalldb_vs_histogram(d: int, *, epsilon=1.0, alpha=0.5, beta=0.05, trials: int = 2000, rng=None) -> dict:
    """SmallDB (exact law, no sampling) against the noisy histogram (``trials`` draws) on ``d`` cancer attributes.

    Returns the ``(1-β)``-quantiles of the max error over all 1- and 2-way marginal cells, the uniform guess's
    error, SmallDB's ``s``, ``|R|`` and OPT.  Same ε, add/remove neighbours, public ``n = 569`` for both.
    """
    d = check_int("d", d, low=2, high=4)
    epsilon, alpha, beta = check_epsilon(epsilon), check_alpha(alpha), check_beta(beta)
    trials = check_int("trials", trials, low=1, high=10 ** 6)
    s = smalldb_size(one_two_way_cells(d).m, alpha)
    data, W, err, size = _smalldb_errors(d, s)
    probs = exponential_probabilities(-err, epsilon=epsilon, sensitivity=1.0 / data.n)
    true = W.answers(data.x)
    hist = histogram_mechanism(data.x, W, epsilon=epsilon, n=data.n, trials=trials, rng=as_generator(rng)).answers
    hist_err = np.abs(hist - true).max(axis=1)
    return {"d": d, "N": data.N, "m": W.m, "s": s, "range_size": size, "OPT": float(err.min()),
            "smalldb": exact_quantile(err, probs, 1 - beta), "histogram": float(np.quantile(hist_err, 1 - beta)),
            "uniform": float(np.abs(W.answers(np.ones(data.N)) - true).max()),
            "log10_range_size": math.log10(size)}
