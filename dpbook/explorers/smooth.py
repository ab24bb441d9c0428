"""Chapter 12's experiments and widget: smooth queries answered from one private Chebyshev summary
(SMOOTH-Alg1/Alg2, SMOOTH-Thm3.1, SMOOTH-Table1).

* :func:`regime_sweep` — one row of SMOOTH-Table1 measured: error and run time against ``n = t^{2d+K}``.
* :func:`compare_per_query` — the summary against per-query Laplace as the number of queries grows.
* :func:`explore_smooth` — the widget callback ``(d, K, n, ε, query) -> Figure``.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from ..plots import BOUND, EMPIRICAL, EXTRA, legend_outside
from ._layout import fixed_figure, log_minor_125
from ..smooth import (answer_query, approximation_error, box_query, chebyshev_coefficients, chebyshev_evaluate,
                      chebyshev_moments, cosine_query, gaussian_bump, kink_query, per_query_laplace, sigmoid_query,
                      smooth_summary, synthetic_points, true_answer, uniform_answer)
from ..theory.smooth import (summary_degree, summary_noise_scale, table1_exponents, weighted_laplace_quantile)
from ..validation import check_beta, check_epsilon, check_int

__all__ = ["QUERIES", "make_query", "worst_point", "RegimeSweep", "regime_sweep", "fit_slope", "compare_per_query",
           "PerQueryComparison",
           "explore_smooth"]

QUERIES = ("Gaussian bump", "sigmoid", "cosine", "kink", "box (non-smooth)")


def make_query(name, d, K):
    """One of the chapter's test queries on ``[-1,1]^d`` with ``||f||_K <= 1`` (the box: ``|f| <= 1``, not smooth)."""
    d, K = check_int("d", d, low=1, high=3), check_int("K", K, low=1, high=12)
    if name == "Gaussian bump":
        return gaussian_bump(0.2, 0.5, d, K)
    if name == "sigmoid":
        return sigmoid_query(np.linspace(2.0, 1.0, d), 0.3, d, K)
    if name == "cosine":
        return cosine_query(np.linspace(2.0, 1.5, d), 0.4, d, K)
    if name == "kink":
        return kink_query(0.1, d, K)
    if name == "box (non-smooth)":
        return box_query(-0.3, 0.4, d)
    raise ValueError(f"query ({name!r}) must be one of {QUERIES}")


def _grid(d):
    g = np.linspace(-1.0, 1.0, {1: 2001, 2: 161}.get(d, 41))
    return np.stack([m.ravel() for m in np.meshgrid(*([g] * d), indexing="ij")], axis=1)


def worst_point(query, t):
    """``(γ, x*)``: the approximation error ``sup |f - p_t|`` on the grid of :func:`dpbook.smooth.approximation_error`
    and a point where it is attained (a data set sitting there realises the theorem's worst case)."""
    pts = _grid(query.d)
    err = np.abs(query(pts) - chebyshev_evaluate(chebyshev_coefficients(query, query.d, t), pts))
    i = int(np.argmax(err))
    return float(err[i]), pts[i]


def fit_slope(x, y) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (the rate check: a measured rate is the slope of a log-log fit)."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def _best_time(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


@dataclass(frozen=True)
class RegimeSweep:
    """One regime of SMOOTH-Table1 measured at ``n = t^{2d+K}`` (so ``t = floor(n^{1/(2d+K)})`` exactly).

    ``worst``: the ``(1-β)``-quantile of the error on worst-case data (half the rows at the point where
    ``|f - p_t|`` is largest); ``smooth``: the same on smooth synthetic data; ``gamma``: ``sup |f - p_t|``;
    ``noise``: the ``(1-β)``-quantile of ``|sum_m c_m Z_m|`` alone; ``summary_time`` / ``query_time`` in seconds
    (best of a few runs, on a shared machine)."""

    d: int
    K: int
    n: np.ndarray
    t: np.ndarray
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
        big = self.n >= min_n_time
        return dict(worst=fit_slope(self.n, self.worst), smooth=fit_slope(self.n, self.smooth),
                    gamma=fit_slope(self.n, self.gamma), noise=fit_slope(self.n, self.noise),
                    summary_time=fit_slope(self.n[big], self.summary_time[big]),
                    query_time=fit_slope(self.n[big], self.query_time[big]))

    def theory(self) -> dict:
        return table1_exponents(self.d, self.K)


def regime_sweep(d, K, ts, *, epsilon=1.0, beta=0.05, trials=1000, seed=2026, query="kink", repeat=3):
    """Measure SMOOTH-Thm3.1 / SMOOTH-Table1 for one ``(d, K)`` at ``n = t^{2d+K}`` for each ``t`` in ``ts``."""
    d, K = check_int("d", d, low=1, high=3), check_int("K", K, low=1, high=12)
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    rng = np.random.default_rng(seed)
    q = make_query(query, d, K)
    rows = []
    for t in ts:
        n = t ** (2 * d + K)
        gamma, x_star = worst_point(q, t)
        X = synthetic_points(n, d, rng=rng)
        X[: n // 2] = x_star                                         # worst-case data for this t
        s = smooth_summary(X, epsilon=epsilon, K=K, trials=trials, rng=rng)
        assert s.t == t
        worst = np.quantile(np.abs(answer_query(s, q) - true_answer(X, q)), 1 - beta)
        Y = synthetic_points(n, d, rng=rng)
        s2 = smooth_summary(Y, epsilon=epsilon, K=K, trials=trials, rng=rng)
        smooth = np.quantile(np.abs(answer_query(s2, q) - true_answer(Y, q)), 1 - beta)
        c = chebyshev_coefficients(q, d, t)
        Z = s2.moments - chebyshev_moments(Y, s2.t)                 # the noise: we hold the data (the release does not)
        noise = np.quantile(np.abs(np.tensordot(Z, c, axes=d)), 1 - beta)
        t_sum = _best_time(lambda: chebyshev_moments(X, t), repeat)
        one = smooth_summary(X[:1], epsilon=epsilon, K=K, t=t, rng=rng)
        t_query = _best_time(lambda: answer_query(one, q), 2 * repeat + 1)
        unif = abs(uniform_answer(q, d) - true_answer(X, q))
        # one query at ε: Lap(Δ/(nε)), Δ its exact range on the interpolation grid; |Lap(b)|'s quantile is b ln(1/β)
        delta = float(np.ptp(np.clip(q(_grid(d)), -q.B, q.B)))   # its range on the grid: the interpolant's exact Δ
        base = delta / (n * epsilon) * np.log(1 / beta)
        rows.append((n, t, worst, smooth, gamma, noise, t_sum, t_query, unif, base))
    cols = np.array(rows, dtype=float).T
    return RegimeSweep(d, K, cols[0].astype(np.int64), cols[1].astype(np.int64), *cols[2:])


@dataclass(frozen=True)
class PerQueryComparison:
    """:func:`compare_per_query`'s result, one entry per ``k``: mean over the trials of the max error over ``k``
    queries of the summary, of per-query Laplace at the exact L1 sensitivity of the ``k`` queries (``baseline``) and
    at the class bound ``2Bk/n`` (``baseline_bound``), and the max error of the data-independent answers
    (``uniform``); ``t`` is the summary's degree."""

    ks: np.ndarray
    summary: np.ndarray
    baseline: np.ndarray
    baseline_bound: np.ndarray
    uniform: np.ndarray
    t: int

    def crossover(self, baseline=None):
        """The smallest ``k`` from which the summary's error is below ``baseline``'s at every larger ``k``
        (default: the exact-sensitivity baseline); ``None`` if it never is."""
        base = self.baseline if baseline is None else np.asarray(baseline)
        wins = self.summary < base
        for i in range(len(self.ks)):
            if wins[i:].all():
                return int(self.ks[i])
        return None


def compare_per_query(ks, *, n=50_000, d=1, K=2, epsilon=1.0, trials=200, seed=2026, grid=257):
    """Mean over ``trials`` of the max error over ``k`` cosine queries (``C^K_1``), for each ``k`` in ``ks``: the one
    summary (the same release answers every ``k``) against per-query Laplace on the same ``k`` queries at the same
    ε and replace-one neighbours, calibrated to their exact L1 sensitivity (``per_query_laplace(..., grid=grid)``)
    and to the class bound ``2Bk/n``, and the data-independent answers (:func:`dpbook.smooth.uniform_answer`).
    Returns a :class:`PerQueryComparison`."""
    grid = check_int("grid", grid, low=2, high=2049)
    rng = np.random.default_rng(seed)
    X = synthetic_points(n, d, rng=rng)
    s = smooth_summary(X, epsilon=epsilon, K=K, trials=trials, rng=rng)
    kmax = int(max(ks))
    omegas, phases = rng.uniform(0.5, 3.0, (kmax, d)), rng.uniform(0, np.pi, (kmax, d))
    queries = [cosine_query(omegas[j], phases[j], d, K) for j in range(kmax)]
    exact = np.array([true_answer(X, q) for q in queries])          # cosines lie in [-1, 1] = [-B, B]: nothing clipped
    err = np.abs(np.stack([answer_query(s, q) for q in queries], axis=1) - exact)              # (trials, kmax)
    guess = np.abs(np.array([uniform_answer(q, d) for q in queries]) - exact)
    ours, base, bound, unif = [], [], [], []
    for k in ks:
        ours.append(float(err[:, :k].max(axis=1).mean()))
        for out, kw in ((base, dict(grid=grid)), (bound, {})):
            r = per_query_laplace(X, queries[:k], epsilon=epsilon, trials=trials, rng=rng, **kw)
            out.append(float(np.abs(r.answers - exact[:k]).max(axis=1).mean()))
        unif.append(float(guess[:k].max()))
    return PerQueryComparison(np.asarray(ks), np.array(ours), np.array(base), np.array(bound), np.array(unif), s.t)


@functools.lru_cache(typed=True, maxsize=64)
def _query_curves(query, d, K, tmax):
    """What the n and ε sliders do not change: the query, its approximation errors ``γ(u)`` and its Chebyshev
    coefficients (without the constant one) for ``u = 1..tmax``.  Cached per ``(query, d, K, tmax)``; read-only."""
    q = make_query(query, d, K)
    ts = range(1, tmax + 1)
    gammas = np.array([approximation_error(q, d, u) for u in ts])
    coefficients = tuple(chebyshev_coefficients(q, d, u).ravel()[1:] for u in ts)
    for a in (gammas, *coefficients):
        a.setflags(write=False)
    return q, gammas, coefficients


def explore_smooth(d=1, K=2, n=10_000, epsilon=1.0, query="Gaussian bump", *, trials=200, beta=0.05, seed=2026):
    """Widget callback (SMOOTH-Thm3.1).  Left: the error of ``trials`` private answers to ``query`` on ``n`` seeded
    synthetic rows of ``[-1,1]^d``, against the query-specific bound ``γ_f + λ_β`` and the sampling error
    ``1/sqrt(n)``.  Right: the trade-off behind ``t``: approximation error ``γ_f(t)`` falls, the noise quantile
    ``λ_β(t)`` grows; the theorem's ``t = floor(n^{1/(2d+K)})`` is marked."""
    d, K = check_int("d", d, low=1, high=3), check_int("K", K, low=1, high=12)
    n = check_int("n", n, low=10, high=2_000_000)
    epsilon, beta, trials = check_epsilon(epsilon), check_beta(beta), check_int("trials", trials, low=1)
    if not isinstance(query, str) or query not in QUERIES:
        raise ValueError(f"query ({query!r}) must be one of {QUERIES}")
    t = summary_degree(n, d, K)
    tmax = {1: 16, 2: 8, 3: 5}[d]
    ts = np.arange(1, max(tmax, t) + 1)
    q, gammas, coefficients = _query_curves(query, d, K, int(ts[-1]))
    rng = np.random.default_rng(seed)
    X = synthetic_points(n, d, rng=rng)
    s = smooth_summary(X, epsilon=epsilon, K=K, trials=trials, rng=rng)
    err = np.abs(answer_query(s, q) - true_answer(X, q))

    lams = np.array([0.0 if u == 1 else weighted_laplace_quantile(
        beta, summary_noise_scale(n, int(u), d, epsilon), coefficients[u - 1]) for u in ts])
    gamma, lam = gammas[t - 1], lams[t - 1]

    fig, (left, right) = fixed_figure(2, width=10.0, height=4.8, left=0.72, right=0.15, bottom=1.35, top=0.3, wspace=0.85)
    left.hist(err, bins=30, histtype="stepfilled", color=EMPIRICAL, alpha=0.75, label="measured |error|")
    left.axvline(gamma + lam, color=BOUND, label=f"bound γ+λ at β={beta:.3g}")
    right_edge = 1.3 * max(gamma + lam, float(err.max()))
    if 1 / np.sqrt(n) <= right_edge:
        left.axvline(1 / np.sqrt(n), color=EXTRA[3], ls=":", label="sampling error 1/√n")
    else:
        left.plot([], [], " ", label=f"sampling error 1/√n = {1 / np.sqrt(n):.2g} (off scale)")
    left.set_xlim(0, right_edge)
    left.set_xlabel("|private answer − true answer|")
    left.set_ylabel("trials")
    left.set_title(f"{q.name}: d={d}, K={K}, n={n:,}, t={t}, ε={epsilon:.3g}", fontsize=10)
    legend_outside(left, where="below")

    right.semilogy(ts, np.maximum(gammas, 1e-17), "o-", color=EXTRA[0], ms=4, label="approximation γ(t)")
    right.semilogy(ts[1:], lams[1:], "s-", color=EXTRA[1], ms=4, label="noise quantile λ(t)")
    right.axvline(t, color=BOUND, ls="--", label=f"theorem's t = {t}")
    right.set_xlabel("degree bound t (moments per axis)")
    right.set_ylabel("error term")
    right.set_title("why t = n^(1/(2d+K))", fontsize=10)
    log_minor_125(right)
    legend_outside(right, where="below")
    return fig
