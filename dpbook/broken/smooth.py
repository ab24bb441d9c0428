"""Broken smooth-query summaries: positive controls for chapter 16's audit (erratum SMOOTH-E1).

Each function has the signature of :func:`dpbook.smooth.smooth_summary` and returns a
:class:`~dpbook.smooth.SmoothSummary` that *claims* ε-DP; each docstring says what is wrong and what the true privacy
loss is.  ``tests/test_smooth.py`` and the audit catalogue (``dpbook.audit``) check that the audit catches them.
Never use these to release data.
"""
from __future__ import annotations

import numpy as np

from ..noise import as_noise, laplace_noise
from .noise import broken_noise
from ..release import Ledger, Spend
from ..smooth import SmoothSummary, chebyshev_moments, summary_inputs
from ..theory.smooth import paper_noise_scale
from ..contract import example, mechanism_prologue

__all__ = ["smooth_summary_paper_scale", "per_query_laplace_no_split", "per_query_laplace_unchecked_shape",
           "per_query_laplace_grid_raw_values"]


def smooth_summary_paper_scale(points, *, epsilon, K, degree_bound=None, trials=None, rng=None,
                               sampler=laplace_noise) -> SmoothSummary:
    """BROKEN (erratum SMOOTH-E1): SMOOTH-Alg1 as printed — every moment, the constant one included, plus
    ``Lap(J^d/(nε))`` (``J = degree_bound``).

    The paper takes the L1 sensitivity of the ``J^d`` moments to be ``J^d/n``; it is larger.  For ``d = 1`` and
    ``J = 10`` the rows ``x = 1`` and ``x' = cos(0.4734)`` move the moments by ``11.58/n`` in L1, so the true privacy
    loss is ``1.158 ε`` (and tends to about ``1.22 ε`` as ``J`` grows; up to ``2ε`` in higher ``d``).
    """
    X, J, K = summary_inputs(points, K=K, degree_bound=degree_bound, trials=trials)
    n, d = X.shape
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours="replace-one",
                           per_release=(J,) * d, family="laplace", lattice_ok=False)
    epsilon = p.epsilon
    b = paper_noise_scale(n, J, d, epsilon)                  # WRONG: J^d/(nε), on every moment
    exact = chebyshev_moments(X, J)
    noisy = exact + p.noise(b, p.shape, p.rng)
    return SmoothSummary(noisy, J, d, K, n, None, None, "smooth_summary_paper_scale", b,
                         ledger=(Spend(f"laplace on all {J ** d} Chebyshev moments (paper's scale)", epsilon),),
                         trace={"sensitivity": J ** d / n})


example(smooth_summary_paper_scale, lambda: dict(points=np.linspace(-1, 1, 50)[:, None], epsilon=0.7, K=2, rng=0))


def per_query_laplace_no_split(points, queries, *, epsilon, B=1.0, trials=None, rng=None, sampler=laplace_noise):
    """BROKEN: the per-query Laplace baseline with noise ``Lap(2B/(nε))`` on each of the ``m`` answers — the full
    budget spent on every query, no composition.  True privacy loss ``k ε`` (two identical queries: ``2ε``)."""
    from ..release import Release
    from ..smooth import per_query_laplace
    honest = per_query_laplace(points, queries, epsilon=epsilon, B=B, trials=trials, rng=rng,
                               sampler=broken_noise("BROKEN laplace at the full ε per query", "laplace", None,
                                             lambda b, size, rng: as_noise(sampler)(b / size[-1], size, rng)))
    return Release(honest.answers, "per_query_laplace_no_split",
                   noise_scale=honest.noise_scale / honest.answers.shape[-1],
                   ledger=(Spend("laplace on every query at full ε", honest.epsilon),), trace=honest.trace,
                   neighbours="replace-one")


example(per_query_laplace_no_split, lambda: dict(points=np.linspace(-1, 1, 50)[:, None],
                                              queries=[lambda P: P[:, 0] ** 2] * 3, epsilon=1.0, rng=0))


def per_query_laplace_unchecked_shape(points, queries, *, epsilon, B=1.0, trials=None, rng=None, sampler=laplace_noise):
    """BROKEN: the per-query Laplace baseline that averages **whatever the callable returns** (called once on all
    ``n`` rows, its output neither shape-checked nor evaluated row by row).

    The noise ``Lap(2Bk/(nε))`` assumes each mean is over the ``n`` rows, one value per row (sensitivity
    ``2B/n``).  A callable that reduces — ``lambda Z: Z[0, 0]`` (one row's value), ``lambda Z: Z[:10, 0]`` (a mean
    over 10 rows) — or that copies one row into every row (``lambda Z: np.full(len(Z), Z[0, 0])``) gives a mean
    that one row moves by up to ``2B``: true privacy loss up to ``n ε / k`` per query (with ``n = 100``, ``k = 1``:
    ``100 ε``).  :func:`dpbook.smooth.per_query_laplace` checks the shape on public rows first and evaluates any
    callable it did not build row by row."""
    from ..release import Release
    from ..smooth import check_points
    from ..validation import check_real
    X = check_points(points)
    n = X.shape[0]
    queries = [queries] if callable(queries) else list(queries)
    if not queries or not all(callable(q) for q in queries):
        raise TypeError("queries must be a non-empty list of callables (e.g. SmoothQuery)")
    k = len(queries)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours="replace-one",
                           per_release=(k,), family="laplace", lattice_ok=False)
    B = check_real("B", B, low=0.0, low_open=True)
    b = 2.0 * B * k / (n * p.epsilon)
    means = np.array([np.clip(np.nan_to_num(np.asarray(q(X), dtype=float), nan=0.0, posinf=B, neginf=-B), -B, B)
                      .mean() for q in queries])                        # WRONG: the mean of whatever came back
    return Release(means + p.noise(b, p.shape, p.rng), "per_query_laplace_unchecked_shape (BROKEN)",
                   noise_scale=b, ledger=Ledger((Spend(f"laplace query {i}", p.epsilon / k) for i in range(k)), budget=p.epsilon),
                   neighbours="replace-one")


example(per_query_laplace_unchecked_shape, lambda: dict(points=np.linspace(-1, 1, 50)[:, None],
                                                     queries=[lambda P: P[:, 0] ** 2] * 3, epsilon=1.0, rng=0))


def per_query_laplace_grid_raw_values(points, queries, *, epsilon, B=1.0, grid=257, trials=None, rng=None,
                                      sampler=laplace_noise):
    """BROKEN: :func:`dpbook.smooth.per_query_laplace` with ``grid=`` calibrates the noise to the exact L1
    sensitivity of the queries' interpolants on the public grid, and must then release the *interpolants'* means.
    This twin computes the same sensitivity on the nodes but releases the raw queries' means: between nodes a
    query can move more than at the nodes (``x/2 + sin(πx)/2`` on the nodes ``-1, 0, 1`` moves by 1, on
    ``[-1, 1]`` by 1.55), so the true loss exceeds ε."""
    from ..release import Release
    from ..smooth import grid_nodes, check_points, interpolated_l1_sensitivity
    from ..validation import check_real
    X = check_points(points)
    n = X.shape[0]
    queries = [queries] if callable(queries) else list(queries)
    k = len(queries)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours="replace-one",
                           per_release=(k,), family="laplace", lattice_ok=False)
    B = check_real("B", B, low=0.0, low_open=True)
    _, nodes = grid_nodes(grid, X.shape[1])
    clip = lambda v: np.clip(np.asarray(v, dtype=float), -B, B)
    l1 = interpolated_l1_sensitivity(np.stack([clip(q(nodes)) for q in queries]))
    b = l1 / (n * p.epsilon)
    means = np.array([clip(q(X)).mean() for q in queries])            # WRONG: the raw queries, not the interpolants
    return Release(means + p.noise(b, p.shape, p.rng), "per_query_laplace_grid_raw_values (BROKEN)",
                   noise_scale=b, ledger=(Spend("laplace, node sensitivity", p.epsilon),), neighbours="replace-one")


example(per_query_laplace_grid_raw_values, lambda: dict(points=np.linspace(-1, 1, 50)[:, None],
                                                     queries=[lambda P: P[:, 0] ** 2] * 3, epsilon=1.0, grid=9, rng=0))
