"""Chapter 15's experiment: SparseProject against answering the first ``m`` queries directly (the per-query
Gaussian at the same (ε, δ), and the pure-ε Laplace mechanism), for a grid of ``m`` (see the package docstring for
what a comparison is)."""
from __future__ import annotations

import numpy as np

from ..data import SparseHistogram
from ..contract import example
from ..gaussian import gaussian_mechanism
from ..sparse_project import (MAX_ELL, SparseQueryWorkload, laplace_sparse_queries, restrict_to_queries,
                              sparse_project)
from ..validation import check_beta, check_delta, check_epsilon, check_int, check_real_array

__all__ = ["SERIES", "per_query_comparison"]

#: the error series of :func:`per_query_comparison` (each a median over the draws of the max error over m queries)
SERIES = ("sparse_project", "gaussian", "laplace")


def _median_max_error(answers, true) -> float:
    return float(np.median(np.abs(np.atleast_2d(answers) - true).max(axis=1)))


def per_query_comparison(D, W, m_grid, *, epsilon=1.0, delta=1e-5, beta=0.1, ell=1024, r=8, trials=100, rng=2026,
                         laplace=True) -> dict[str, np.ndarray]:
    """SparseProject against answering the first ``m`` queries of ``W`` directly, for each ``m`` in ``m_grid``.

    One SparseProject release (one hash, ``trials`` noise draws, seed ``rng``) answers all of them; the baselines
    run per ``m`` with ``trials`` draws each, seeded ``rng + m``: the per-query **Gaussian** mechanism at the same
    (ε, δ) with the workload's exact L2 sensitivity and the analytic calibration
    (:func:`dpbook.gaussian.gaussian_mechanism` on :func:`dpbook.sparse_project.restrict_to_queries`), and, when
    ``laplace``, the pure-ε Laplace mechanism with the exact L1 sensitivity
    (:func:`dpbook.sparse_project.laplace_sparse_queries`).  All under add/remove neighbours, public ``n = D.n``.

    ``rng``: an integer seed (the baselines' seeds are derived from it), or a Generator, which draws that seed.  Returns a dict of arrays over
    ``m_grid``: the median over the draws of the max error over the ``m`` queries (``"sparse_project"``,
    ``"gaussian"``, ``"laplace"`` — empty when not ``laplace``), the error of answering 0 (``"zero"``: the largest
    true answer), the two sensitivities (``"l2"``, ``"l1"``) and ``"m"``.  Releases nothing."""
    if not isinstance(D, SparseHistogram):
        raise TypeError(f"D must be a dpbook.data.SparseHistogram, got {type(D).__name__}")
    if not isinstance(W, SparseQueryWorkload):
        raise TypeError(f"W must be a SparseQueryWorkload, got {type(W).__name__}")
    if W.N != D.N:
        raise ValueError(f"W is over N ({W.N}) records but D over {D.N}")
    grid = check_real_array("m_grid", m_grid)
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"m_grid must be a non-empty 1-D array of query counts, got shape {grid.shape}")
    if np.any(grid != np.round(grid)):
        raise ValueError("m_grid must hold whole numbers of queries")
    ms = [check_int("m_grid", int(v), low=1, high=W.m) for v in grid]
    epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta, positive=True), check_beta(beta)
    ell, r = check_int("ell", ell, low=1, high=MAX_ELL), check_int("r", r, low=2, high=64)
    trials = check_int("trials", trials, low=1, high=10_000)
    if isinstance(rng, np.random.Generator):
        rng = int(rng.integers(2 ** 31))
    elif isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be an integer seed or a numpy Generator, got {type(rng).__name__}")
    seed = check_int("rng", rng, low=0, high=2 ** 62)
    if not isinstance(laplace, (bool, np.bool_)):
        raise TypeError(f"laplace must be True or False, got {type(laplace).__name__}")
    true = W.answers(D)
    release = sparse_project(D, epsilon=epsilon, delta=delta, beta=beta, s=W.sparsity, m=W.m, n=D.n, ell=ell, r=r,
                             trials=trials, rng=seed)
    answers = release.evaluate(W.head(max(ms)))
    out = {key: [] for key in SERIES + ("zero", "l2", "l1")}
    for k in ms:
        Wk = W.head(k)
        out["sparse_project"].append(_median_max_error(answers[:, :k], true[:k]))
        x, Wr = restrict_to_queries(D, Wk)
        gauss = gaussian_mechanism(x, Wr, epsilon=epsilon, delta=delta, n=D.n, calibration="analytic",
                                   trials=trials, rng=seed + k)
        out["gaussian"].append(_median_max_error(gauss.answers, true[:k]))
        if laplace:
            lap = laplace_sparse_queries(D, Wk, epsilon=epsilon, n=D.n, trials=trials, rng=seed + k)
            out["laplace"].append(_median_max_error(lap.answers, true[:k]))
        out["zero"].append(float(true[:k].max()))
        out["l2"].append(Wk.l2_sensitivity())
        out["l1"].append(Wk.l1_sensitivity())
    result = {key: np.array(v, dtype=float) for key, v in out.items()}
    result["m"] = np.array(ms)
    return result


def _example_call():
    from ..data import record_catalogue, synthetic_records
    from ..sparse_project import sparse_workload
    return dict(D=synthetic_records(500, record_catalogue(), rng=1), W=sparse_workload(20, 4), m_grid=[5, 20], ell=64,
                trials=5)


# a small valid call, for the sweeps of tests/ (seeding, bad input)
example(per_query_comparison, _example_call)
