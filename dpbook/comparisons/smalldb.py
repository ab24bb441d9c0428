"""Chapter 08's experiments: SmallDB (its exact output law) against the noisy histogram on a few cancer attributes
(see the package docstring for what a comparison is), and the two laws chapter 08's widget draws
(:func:`smalldb_law`, :func:`histogram_quantile_at_unit_epsilon`)."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..data import cancer_projection
from ..exponential import exponential_probabilities
from ..histogram import histogram_mechanism
from ..noise import as_generator
from ..queries import MarginalWorkload, k_way_marginals, one_two_way_cells
from ..smalldb import candidate_errors, exact_error_distribution, multisets
from ..stats import exact_quantile
from ..theory.smalldb import smalldb_size
from ..validation import check_alpha, check_beta, check_epsilon, check_int, check_trials

__all__ = ["PROJECTIONS", "ATTRIBUTES", "CELLS", "EPS_SWEEP", "smalldb_vs_histogram", "smalldb_law",
           "histogram_quantile_at_unit_epsilon"]

#: the attributes kept for d = 2, 3, 4 (chosen without looking at the counts; d = 3 is the chapter's table)
PROJECTIONS = {2: ("texture_high", "malignant"), 3: ("radius_high", "texture_high", "malignant"),
               4: ("radius_high", "texture_high", "smoothness_high", "malignant")}


@functools.lru_cache(typed=True, maxsize=8)
def _smalldb_errors(d: int, db_size: int):
    data = cancer_projection(PROJECTIONS[d])
    W = one_two_way_cells(d)
    net = multisets(data.N, db_size)
    err, _ = exact_error_distribution(data.x, W, net, epsilon=1.0)
    return data, W, err, net.shape[0]


def smalldb_vs_histogram(d: int, *, epsilon=1.0, alpha=0.5, beta=0.05, trials: int = 2000, rng=None) -> dict:
    """SmallDB (exact law, no sampling) against the noisy histogram (``trials`` draws) on ``d`` cancer attributes.

    Returns the ``(1-β)``-quantiles of the max error over all 1- and 2-way marginal cells, the uniform guess's
    error, SmallDB's ``db_size`` (``n_y``, the rows of each candidate), ``|R|`` and OPT.  Same ε, add/remove
    neighbours, public ``n = 569`` for both.
    """
    d = check_int("d", d, low=2, high=4)
    epsilon, alpha, beta = check_epsilon(epsilon), check_alpha(alpha), check_beta(beta)
    trials = check_int("trials", trials, low=1, high=10 ** 6)
    rng = as_generator(rng)
    db_size = smalldb_size(one_two_way_cells(d).m, alpha)
    try:
        data, W, err, size = _smalldb_errors(d, db_size)
    except ValueError as exc:
        raise ValueError(f"alpha ({alpha}) on d ({d}) attributes asks SmallDB for databases of {db_size} rows, too "
                         f"many to enumerate: {exc}") from None
    probs = exponential_probabilities(-err, epsilon=epsilon, sensitivity=1.0 / data.n)
    true = W.answers(data.x)
    hist = histogram_mechanism(data.x, W, epsilon=epsilon, n=data.n, trials=trials, rng=rng).answers
    hist_err = np.abs(hist - true).max(axis=1)
    return {"d": d, "N": data.N, "m": W.m, "db_size": db_size, "range_size": size, "OPT": float(err.min()),
            "smalldb": exact_quantile(err, probs, 1 - beta), "histogram": float(np.quantile(hist_err, 1 - beta)),
            "uniform": float(np.abs(W.answers(np.ones(data.N)) - true).max()),
            "log10_range_size": math.log10(size)}


#: chapter 08's widget table: the cancer rows restricted to these attributes (:func:`dpbook.data.cancer_projection`,
#: N = 8; the same three as ``PROJECTIONS[3]``)
ATTRIBUTES = PROJECTIONS[3]
#: the 6 + 12 + 8 cells of the 1-, 2- and 3-way marginals of 3 attributes; the widget uses the first ``m``
CELLS = tuple(c for k in (1, 2, 3) for c in k_way_marginals(3, k).cells)
#: the ε grid of the widget's quantile panel
EPS_SWEEP = np.geomspace(0.003, 10, 12)
EPS_SWEEP.flags.writeable = False


def _check_cells(m):
    return check_int("m", m, low=1, high=len(CELLS))


@functools.lru_cache(maxsize=32)
def _smalldb_law(m: int, db_size: int, beta: float):
    small = cancer_projection(ATTRIBUTES)
    err = candidate_errors(small.x, MarginalWorkload(3, CELLS[:m]), multisets(small.N, db_size))
    err.flags.writeable = False
    levels, which = np.unique(err, return_inverse=True)                     # distinct error values
    levels.flags.writeable = False

    def law(epsilon):
        """P[SmallDB's error = levels[i]] at ``epsilon`` (the exact output law, DR-Def3.4, summed per level)."""
        weights = exponential_probabilities(-err, epsilon=check_epsilon(epsilon), sensitivity=1.0 / small.n)
        return np.bincount(which, weights=weights, minlength=levels.size)

    quant = tuple(float(levels[min(np.searchsorted(np.cumsum(law(e)), 1 - beta), levels.size - 1)])
                  for e in EPS_SWEEP)
    return err, levels, law, quant


def smalldb_law(m, db_size, beta):
    """SmallDB (DR-Alg4) on chapter 08's table (:data:`ATTRIBUTES`) for the first ``m`` cells of :data:`CELLS`
    with candidates of ``db_size = n_y`` rows, exactly (no sampling): returns ``(err, levels, law, quant)`` — the max error of
    every candidate, their distinct values, ``law(ε)`` the probability of each level at ``ε`` (the exponential
    mechanism's output law, sensitivity 1/n, replace-one neighbours as SmallDB), and the exact
    ``(1-β)``-quantile of SmallDB's max error at each ε of :data:`EPS_SWEEP`.  Cached per ``(m, n_y, β)``; the
    arrays are read-only."""
    m, beta = _check_cells(m), check_beta(beta)
    db_size = check_int("db_size", db_size, low=1)
    return _smalldb_law(m, db_size, beta)


@functools.lru_cache(maxsize=32)
def _histogram_quantile(m: int, beta: float, trials: int, seed: int) -> float:
    return _histogram_quantile_draw(m, beta, trials, seed)


def _histogram_quantile_draw(m, beta, trials, rng) -> float:
    small = cancer_projection(ATTRIBUTES)
    W = MarginalWorkload(3, CELLS[:m])
    released = histogram_mechanism(small.x, W, epsilon=1.0, n=small.n, trials=trials, rng=rng).answers
    return float(np.quantile(np.abs(released - W.answers(small.x)).max(axis=1), 1 - beta))


def histogram_quantile_at_unit_epsilon(m, beta, *, trials: int = 4000, rng=2026) -> float:
    """The ``(1-β)``-quantile of chapter 03's noisy histogram's max error on the first ``m`` cells of :data:`CELLS`
    (chapter 08's table) at ε = 1, from ``trials`` seeded releases (add/remove neighbours, public n).

    The histogram's error is ``max_j |q_j · Lap(1/ε)^N| / n``: its law scales exactly like ``1/ε`` and does not
    depend on the data, so the quantile at any ε is this value divided by ε.  Cached when ``rng`` is an int seed.
    """
    m, beta = _check_cells(m), check_beta(beta)
    trials = check_trials(trials, 8)
    generator = as_generator(rng)                      # refuses a bad seed by name
    if isinstance(rng, np.random.Generator):
        return _histogram_quantile_draw(m, beta, trials, generator)
    return _histogram_quantile(m, beta, trials, int(rng)) if rng is not None else \
        _histogram_quantile_draw(m, beta, trials, generator)
