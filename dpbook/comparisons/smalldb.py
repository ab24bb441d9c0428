"""Chapter 08's experiment: SmallDB (its exact output law) against the noisy histogram on a few cancer attributes
(see the package docstring for what a comparison is)."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..data import cancer_projection
from ..exponential import exponential_probabilities
from ..histogram import histogram_mechanism
from ..noise import as_generator
from ..queries import one_two_way_cells
from ..smalldb import exact_error_distribution, multisets
from ..stats import exact_quantile
from ..theory.smalldb import smalldb_size
from ..validation import check_alpha, check_beta, check_epsilon, check_int

__all__ = ["PROJECTIONS", "smalldb_vs_histogram"]

#: the attributes kept for d = 2, 3, 4 (chosen without looking at the counts; d = 3 is the chapter's table)
PROJECTIONS = {2: ("texture_high", "malignant"), 3: ("radius_high", "texture_high", "malignant"),
               4: ("radius_high", "texture_high", "smoothness_high", "malignant")}


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
    rng = as_generator(rng)
    s = smalldb_size(one_two_way_cells(d).m, alpha)
    try:
        data, W, err, size = _smalldb_errors(d, s)
    except ValueError as exc:
        raise ValueError(f"alpha ({alpha}) on d ({d}) attributes asks SmallDB for databases of s = {s} rows, too "
                         f"many to enumerate: {exc}") from None
    probs = exponential_probabilities(-err, epsilon=epsilon, sensitivity=1.0 / data.n)
    true = W.answers(data.x)
    hist = histogram_mechanism(data.x, W, epsilon=epsilon, n=data.n, trials=trials, rng=rng).answers
    hist_err = np.abs(hist - true).max(axis=1)
    return {"d": d, "N": data.N, "m": W.m, "s": s, "range_size": size, "OPT": float(err.min()),
            "smalldb": exact_quantile(err, probs, 1 - beta), "histogram": float(np.quantile(hist_err, 1 - beta)),
            "uniform": float(np.abs(W.answers(np.ones(data.N)) - true).max()),
            "log10_range_size": math.log10(size)}
