"""Chapter 16's experiments: one private Chebyshev summary (SMOOTH-Alg1/Alg2) measured against SMOOTH-Thm3.1 and
SMOOTH-Table1, against per-query Laplace as the number of queries grows, and on a non-smooth control (see the
package docstring for what a comparison is: seeded by ``rng``, inputs validated, error summaries only).

* :func:`regime_sweep` — one row of SMOOTH-Table1 measured: error and run time against ``n = J^{2d+K}`` (``J`` the degree bound).
* :func:`compare_per_query` — the summary against per-query Laplace as the number of queries ``m`` grows.
* :func:`box_control` — the non-smooth control: a box with rows tied at its edge, against a kink.
* :func:`fit_slope` — the rate check: the slope of a log–log least-squares fit.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..noise import as_generator, laplace_noise
from ..contract import example
from .._smooth_grids import MAX_PAIR_WORK, hat_weights, legendre_grid, lobatto_coefficients, lobatto_grid
from ..smooth import (QUERIES, answer_query, box_query, chebyshev_coefficients, chebyshev_moments, grid_nodes,
                      interpolated_l1_sensitivity, kink_query, make_query, smooth_summary, synthetic_points,
                      true_answer, uniform_answer, worst_point)
from ..theory.smooth import table1_exponents
from ..validation import as_array, check_beta, check_choice, check_epsilon, check_int, check_real, real_dtype

__all__ = ["fit_slope", "RegimeSweep", "regime_sweep", "PerQueryComparison", "compare_per_query", "box_control"]


def _integers(name, values, *, low, high) -> np.ndarray:
    """``values`` as a non-empty 1-D int64 array of whole numbers in ``[low, high]`` (ValueError / TypeError naming
    ``name``)."""
    arr = as_array(name, values)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be an array of integers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of integers, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} ({arr.tolist()}) must hold whole numbers")
    if np.any(arr < low) or np.any(arr > high):
        raise ValueError(f"{name} ({arr.tolist()}) must hold integers in [{low}, {high}]")
    return arr.astype(np.int64)


def _positive(name, values) -> np.ndarray:
    arr = as_array(name, values)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"{name} must be a 1-D array of at least two values, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must hold finite positive values (a log-log fit)")
    return arr


def fit_slope(x, y) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (the rate check: a measured rate is the slope of a log-log
    fit).  ``x`` and ``y``: 1-D arrays of at least two finite positive values, of equal length, ``x`` not constant."""
    x, y = _positive("x", x), _positive("y", y)
    if x.size != y.size:
        raise ValueError(f"x has {x.size} values and y has {y.size}: they must have the same length")
    if np.ptp(np.log(x)) == 0:
        raise ValueError(f"x ({x.tolist()}) must not be constant")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _best_time(fn, repeat):
    """``(seconds, value)``: the best of ``repeat`` timed calls of ``fn`` and what the last call returned."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def _grid(d):
    g = np.linspace(-1.0, 1.0, {1: 2001, 2: 161}.get(d, 41))
    return np.stack([m.ravel() for m in np.meshgrid(*([g] * d), indexing="ij")], axis=1)


@dataclass(frozen=True)
class RegimeSweep:
    """One regime of SMOOTH-Table1 measured at ``n = J^{2d+K}`` (so the degree bound ``J = floor(n^{1/(2d+K)})``
    exactly; ``degree_bound`` holds ``J`` for each ``n``).

    ``worst``: the ``(1-β)``-quantile of the error on worst-case data (half the rows at the point where
    ``|f - p_J|`` is largest); ``smooth``: the same on smooth synthetic data; ``gamma``: ``sup |f - p_J|``;
    ``noise``: the ``(1-β)``-quantile of ``|sum_m c_m Z_m|`` alone; ``summary_time`` / ``query_time`` in seconds
    (best of a few runs, on a shared machine)."""

    d: int
    K: int
    n: np.ndarray
    degree_bound: np.ndarray
    worst: np.ndarray
    smooth: np.ndarray
    gamma: np.ndarray
    noise: np.ndarray
    summary_time: np.ndarray
    query_time: np.ndarray
    uniform: np.ndarray | None = None     # |uniform_answer - q_f(D)| on the worst-case data
    baseline: np.ndarray | None = None    # (1-β)-quantile of per-query Laplace's error on this one query, exact Δ

    def slopes(self, min_n_time=10_000) -> dict:
        """Fitted exponents of ``n``; the time slopes use only ``n >= min_n_time`` (below it, overhead dominates)."""
        big = self.n >= check_int("min_n_time", min_n_time, low=1)
        return dict(worst=fit_slope(self.n, self.worst), smooth=fit_slope(self.n, self.smooth),
                    gamma=fit_slope(self.n, self.gamma), noise=fit_slope(self.n, self.noise),
                    summary_time=fit_slope(self.n[big], self.summary_time[big]),
                    query_time=fit_slope(self.n[big], self.query_time[big]))

    def theory(self) -> dict:
        return table1_exponents(self.d, self.K)


def regime_sweep(d, K, degree_bounds, *, epsilon=1.0, beta=0.05, trials=1000, rng=None, query="kink", repeat=3):
    """Measure SMOOTH-Thm3.1 / SMOOTH-Table1 for one ``(d, K)`` at ``n = J^{2d+K}`` for each degree bound ``J`` in
    ``degree_bounds``
    (integers >= 2, ``n <= 2·10^6``), ``trials`` summaries each, at ε and replace-one neighbours; ``query`` one of
    :data:`dpbook.smooth.QUERIES`.  Also the uniform guess and one-query per-query Laplace at its exact sensitivity
    (``Δ ln(1/β)/(nε)``, ``Δ`` the query's range).  Returns a :class:`RegimeSweep`."""
    d, K = check_int("d", d, low=1, high=3), check_int("K", K, low=1, high=12)
    degree_bounds = _integers("degree_bounds", degree_bounds, low=2, high=2_000_000)
    if np.any(degree_bounds.astype(float) ** (2 * d + K) > 2_000_000):
        raise ValueError(f"degree_bounds ({degree_bounds.tolist()}) gives n = degree_bound^(2d+K) above 2,000,000 "
                         f"rows for d = {d}, K = {K}")
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    trials = check_int("trials", trials, low=1, high=100_000)
    query, repeat = check_choice("query", query, QUERIES), check_int("repeat", repeat, low=1, high=100)
    rng = as_generator(rng)
    q = make_query(query, d, K)
    delta = float(np.ptp(np.clip(q(_grid(d)), -q.B, q.B)))     # its range on the grid: the interpolant's exact Δ
    rows = []
    for J in degree_bounds.tolist():
        n = J ** (2 * d + K)
        gamma, x_star = worst_point(q, d, J)
        X = synthetic_points(n, d, rng=rng)
        X[: n // 2] = x_star                                         # worst-case data for this J
        s = smooth_summary(X, epsilon=epsilon, K=K, trials=trials, rng=rng)
        assert s.degree_bound == J
        worst = np.quantile(np.abs(answer_query(s, q) - true_answer(X, q)), 1 - beta)
        Y = synthetic_points(n, d, rng=rng)
        s2 = smooth_summary(Y, epsilon=epsilon, K=K, trials=trials, rng=rng)
        c = chebyshev_coefficients(q, d, J)
        smooth = np.quantile(np.abs(np.tensordot(s2.moments, c, axes=d) - true_answer(Y, q)), 1 - beta)
        # the summary's time: the exact moments of n rows (of Y; X's take as long), which the noise needs anyway
        t_sum, exact_Y = _best_time(lambda: chebyshev_moments(Y, J), repeat)
        Z = s2.moments - exact_Y                          # the noise: we hold the data (the release does not)
        noise = np.quantile(np.abs(np.tensordot(Z, c, axes=d)), 1 - beta)
        one = smooth_summary(X[:1], epsilon=epsilon, K=K, degree_bound=J, rng=rng)
        t_query, _ = _best_time(lambda: answer_query(one, q), 2 * repeat + 1)
        unif = abs(uniform_answer(q, d) - true_answer(X, q))
        # one query at ε: Lap(Δ/(nε)); |Lap(b)|'s (1-β)-quantile is b ln(1/β)
        base = delta / (n * epsilon) * np.log(1 / beta)
        rows.append((n, J, worst, smooth, gamma, noise, t_sum, t_query, unif, base))
    cols = np.array(rows, dtype=float).T
    return RegimeSweep(d, K, cols[0].astype(np.int64), cols[1].astype(np.int64), *cols[2:])




@dataclass(frozen=True)
class PerQueryComparison:
    """:func:`compare_per_query`'s result, one entry per number of queries ``m``: mean over the trials of the max error over ``m``
    queries of the summary, of per-query Laplace at the exact L1 sensitivity of the ``m`` queries (``baseline``) and
    at the class bound ``2Bm/n`` (``baseline_bound``; ``None`` when not measured), and the max error of the
    data-independent answers (``uniform``); ``degree_bound`` is the summary's degree bound ``J``."""

    ms: np.ndarray
    summary: np.ndarray
    baseline: np.ndarray
    baseline_bound: np.ndarray | None
    uniform: np.ndarray
    degree_bound: int

    def crossover(self, baseline=None):
        """The smallest ``m`` from which the summary's error is below ``baseline``'s at every larger ``m``
        (default: the exact-sensitivity baseline); ``None`` if it never is."""
        base = self.baseline if baseline is None else np.asarray(baseline)
        wins = self.summary < base
        for i in range(len(self.ms)):
            if wins[i:].all():
                return int(self.ms[i])
        return None


def _cosine_values(omegas, phases, K, P, *, chunk=2 ** 16):
    """Row ``j``: ``cosine_query(omegas[j], phases[j], d, K)(P)`` (``B = 1``) at the rows of ``P`` (shape ``(N, d)``),
    shape ``(m, N)`` — the same float operations in the same order as the query itself, for all ``m`` queries in a
    few array passes (``chunk`` bounds the entries of one pass)."""
    scale = np.array([1.0 / max(1.0, float(w.max())) ** K for w in omegas])      # cosine_query's B / norm
    out = np.empty((omegas.shape[0], P.shape[0]))
    step = max(1, chunk // max(1, P.size))
    for a in range(0, omegas.shape[0], step):
        w, f = omegas[a:a + step, None, :], phases[a:a + step, None, :]
        out[a:a + step] = scale[a:a + step, None] * np.prod(np.cos(w * P[None] + f), axis=2)
    return out


#: The degree below which :func:`_cosine_means` expands a cosine of frequency ω <= 3 (d = 1): its Chebyshev
#: coefficients are ``|c_k| <= 2 |J_k(ω)| <= 2 (ω/2)^k / k!`` (Jacobi–Anger), so the terms it drops sum to < 1e-28.
_COSINE_DEGREE = 32


def _cosine_means(omegas, phases, K, X) -> np.ndarray:
    """The exact answers ``(1/n) sum_i f_j(x_i)`` of :func:`_cosine_values`' queries on the rows of ``X``.  For
    ``d = 1`` and ``ω <= 3`` as ``(coefficients of f_j) · (exact Chebyshev moments of the rows)``, both of degree
    ``< 32``: the series of a cosine of frequency ``ω <= 3`` has converged to far below a double's rounding there,
    so this is the direct mean up to rounding (``~1e-15``; tests/test_comparisons_smooth.py) at ``O(n·32)`` work
    instead of ``O(n·m)`` cosines.  Otherwise the direct mean, query by query."""
    if X.shape[1] == 1 and omegas.size and float(omegas.max()) <= 3.0:
        L = _COSINE_DEGREE
        coeffs = np.stack([lobatto_coefficients(v, L) for v in _cosine_values(omegas, phases, K, lobatto_grid(4 * L, 1))])
        return coeffs @ chebyshev_moments(X, L)
    return np.array([v.mean() for v in _cosine_values(omegas, phases, K, X)])


def compare_per_query(ms, *, n=50_000, d=1, K=2, epsilon=1.0, trials=200, rng=None, grid=257, bound=True):
    """Mean over ``trials`` of the max error over ``m`` cosine queries (``C^K_1``), for each ``m`` in ``ms``: the one
    summary (the same release answers every ``m``) against per-query Laplace on the same ``m`` queries at the same
    ε and replace-one neighbours, calibrated to their exact L1 sensitivity (``per_query_laplace(..., grid=grid)``)
    and, with ``bound``, to the class bound ``2Bm/n``, and the data-independent answers
    (:func:`dpbook.smooth.uniform_answer`).  Data and queries are drawn from ``rng``.  Returns a
    :class:`PerQueryComparison`."""
    ms = _integers("ms", ms, low=1, high=1000)
    n, d = check_int("n", n, low=10, high=1_000_000), check_int("d", d, low=1, high=3)
    K, epsilon = check_int("K", K, low=1, high=12), check_epsilon(epsilon)
    trials, grid = check_int("trials", trials, low=1, high=10_000), check_int("grid", grid, low=2, high=2049)
    if not isinstance(bound, bool):
        raise TypeError(f"bound must be True or False, got {type(bound).__name__}")
    rng = as_generator(rng)
    X = synthetic_points(n, d, rng=rng)
    s = smooth_summary(X, epsilon=epsilon, K=K, trials=trials, rng=rng)
    mmax = int(ms.max())
    omegas, phases = rng.uniform(0.5, 3.0, (mmax, d)), rng.uniform(0, np.pi, (mmax, d))
    # the m cosine queries, each evaluated once on every set of points the comparison needs (the rows, the summary's
    # Chebyshev nodes, the guess's quadrature nodes, the baseline's public grid): the same numbers, computed by the
    # same float operations, as cosine_query(omegas[j], phases[j], d, K) evaluated query by query; the exact means
    # by the rows' Chebyshev moments for d = 1 (:func:`_cosine_means`: the direct means up to rounding)
    exact = _cosine_means(omegas, phases, K, X)                      # in [-1, 1] = [-B, B]: nothing clipped
    J, M = s.degree_bound, max(4 * s.degree_bound, 16)
    axes = (tuple(range(s.moments.ndim - d, s.moments.ndim)), tuple(range(d)))
    err = np.abs(np.stack([np.tensordot(s.moments, lobatto_coefficients(v.reshape((M + 1,) * d), J), axes=axes)
                           for v in _cosine_values(omegas, phases, K, lobatto_grid(M, d))], axis=1) - exact)
    P, W = legendre_grid(48, d)
    guess = np.abs(np.array([float(v @ W / 2.0 ** d) for v in _cosine_values(omegas, phases, K, P)]) - exact)
    # per_query_laplace(X, queries[:m], epsilon=epsilon, trials=trials, rng=rng, grid=grid) for each m, from the
    # node values and the rows' hat weights computed once: the same answers, drawn in the same order
    # (tests/test_comparisons_smooth.py)
    axis, nodes = grid_nodes(grid, d)
    if nodes.shape[0] ** 2 * mmax > MAX_PAIR_WORK:
        raise ValueError(f"grid ({grid}) with {mmax} queries: {nodes.shape[0]}^2 x {mmax} node pairs to compare; "
                         f"at most {MAX_PAIR_WORK:.0e}: make grid smaller")
    F, hat = _cosine_values(omegas, phases, K, nodes), hat_weights(axis, X)
    ours, base, class_bound, unif = [], [], [], []
    for m in ms.tolist():
        ours.append(float(err[:, :m].max(axis=1).mean()))
        l1 = max(interpolated_l1_sensitivity(F[:m]), 2.0 ** -40 * 2.0 * 1.0 * m)
        answers = F[:m] @ hat + laplace_noise(l1 / (n * epsilon), (trials, m), rng)
        base.append(float(np.abs(answers - exact[:m]).max(axis=1).mean()))
        if bound:
            # per_query_laplace without a grid releases the m clipped means plus Lap(2Bm/(nε)); the cosines lie in
            # [-B, B], so its means are ``exact`` and its answers are drawn here as it draws them (same sampler,
            # same order, same bytes: tests/test_comparisons_smooth.py) without evaluating the m queries on the n
            # rows again
            answers = exact[:m] + laplace_noise(2.0 * 1.0 * m / (n * epsilon), (trials, m), rng)
            class_bound.append(float(np.abs(answers - exact[:m]).max(axis=1).mean()))
        unif.append(float(guess[:m].max()))
    return PerQueryComparison(ms, np.array(ours), np.array(base), np.array(class_bound) if bound else None,
                              np.array(unif), s.degree_bound)




def box_control(ns, *, epsilon=1.0, tie=0.1, edge=-0.3, trials=300, rng=None):
    """The non-smooth control of SMOOTH-Thm3.1: for each ``n`` in ``ns`` (``n = J^3``, ``K = 1``), ``n`` seeded
    synthetic rows of which a fraction ``tie`` sit exactly at ``edge``, the left edge of the box ``[edge, 0.4]``.
    Returns a dict of arrays over ``ns``: ``box`` and ``kink`` (0.95-quantile over ``trials`` summaries of the error
    on the box and on a kink with ``K = 1`` at the same edge), ``baseline`` (the 0.95-quantile of per-query
    Laplace on the box alone, ``2 ln 20/(nε)``) and ``guess`` (the box's data-independent answer's error)."""
    ns = _integers("ns", ns, low=10, high=2_000_000)
    epsilon, trials = check_epsilon(epsilon), check_int("trials", trials, low=1, high=100_000)
    tie = check_real("tie", tie, low=0.0, high=1.0, low_open=True, high_open=True)
    edge = check_real("edge", edge, low=-1.0, high=0.4, high_open=True)
    rng = as_generator(rng)
    box, kink = box_query(edge, 0.4, 1), kink_query(edge, 1, 1)
    out = {"n": ns, "box": [], "kink": [], "guess": []}
    for n in ns.tolist():
        X = synthetic_points(n, 1, rng=rng)
        X[: int(round(n * tie))] = edge
        s = smooth_summary(X, epsilon=epsilon, K=1, trials=trials, rng=rng)
        for name, q in (("box", box), ("kink", kink)):
            out[name].append(np.quantile(np.abs(answer_query(s, q) - true_answer(X, q)), 0.95))
        out["guess"].append(abs(uniform_answer(box, 1) - true_answer(X, box)))
    out = {k: np.asarray(v, dtype=float) if k != "n" else v for k, v in out.items()}
    out["baseline"] = 2 * np.log(20) / (ns * epsilon)
    return out


# small valid calls, for the sweeps of tests/ (seeding, bad input)
example(regime_sweep, lambda: dict(d=1, K=1, degree_bounds=[2, 3], trials=20, repeat=1))
example(compare_per_query, lambda: dict(ms=[2, 4], n=500, trials=5, grid=33, bound=False))
example(box_control, lambda: dict(ns=[27, 64], trials=20))
