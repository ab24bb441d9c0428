"""The chapters' head-to-head experiments: each runs several mechanisms of the book on one task at the same
privacy parameters and summarises their errors (quantiles, medians, maxima).  They release nothing — a result is a
dict of error summaries — so they are not mechanisms (no audit case, no ledger); every one is seeded by ``rng``
and validates its inputs like a mechanism."""
from __future__ import annotations

import functools
import math

import numpy as np

from .data import cancer_projection, digits_subsample
from .exponential import exponential_probabilities
from .histogram import histogram_mechanism
from .mwem import mwem, mwem_practical
from .noise import as_generator
from .queries import digits_marginals, one_two_way_cells
from .smalldb import exact_error_distribution, multisets
from .stats import exact_quantile
from .theory.smalldb import smalldb_size
from .validation import check_alpha, check_beta, check_epsilon, check_int

__all__ = ["MECHANISMS", "regime_errors", "PROJECTIONS", "smalldb_vs_histogram"]


# --------------------------------------------------------------------------- chapter 09: MWEM where its theorem says it should win


#: the series of :func:`regime_errors`, in plotting order
MECHANISMS = ("MWEM (theorem)", "MWEM practical", "noisy histogram", "uniform guess")


def _max_error(answers, true) -> np.ndarray:
    return np.abs(np.atleast_2d(answers) - true).max(axis=1)


def regime_errors(d: int, n: int, *, epsilon=1.0, trials: int = 3, T: int = 30, practical_T: int = 10,
                  practical_replay: int = 3, practical: bool = True, rng=None) -> dict[str, np.ndarray]:
    """Max error over all 3-way marginal cells of ``n`` real digit rows on their first ``d`` pixels, per trial.

    Series (keys of :data:`MECHANISMS`): MWEM exactly as HLM state it (``T`` rounds, the average of the
    iterates, no replay; the algorithm their bound covers), ``mwem_practical`` (whole marginals measured, last
    iterate, ``practical_replay`` sweeps, ``practical_T`` rounds; same ε, no bound), chapter 03's noisy histogram
    (``Lap(1/ε)`` per cell: L1 sensitivity 1 under add/remove, exact for any workload), and the data-free uniform
    guess.  All at the same ε, add/remove neighbours, public ``n``.  The subsample is drawn once from ``rng``.
    """
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, low=1, high=1000)
    d, n = check_int("d", d, low=3, high=16), check_int("n", n, low=1, high=1797)
    T, practical_T = check_int("T", T, low=1, high=10**4), check_int("practical_T", practical_T, low=1, high=10**4)
    practical_replay = check_int("practical_replay", practical_replay, low=1, high=10**4)
    rng = as_generator(rng)
    x = digits_subsample(d, n, rng)
    W = digits_marginals(d)
    true = W.counts(x) / n
    out = {"MWEM (theorem)": _max_error(mwem(x, W, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng).answers, true)}
    if practical:
        out["MWEM practical"] = _max_error(mwem_practical(x, W, epsilon=epsilon, T=practical_T, n=n,
                                                          replay=practical_replay, trials=trials, rng=rng).answers, true)
    out["noisy histogram"] = _max_error(histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=trials,
                                                            rng=rng).answers, true)
    out["uniform guess"] = _max_error(W.counts(np.full(W.N, 1.0 / W.N)), true)
    return out


# --------------------------------------------------------------------------- chapter 08: SmallDB against the noisy histogram


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
