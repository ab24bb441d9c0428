"""Chapter 16's experiments (dpbook.comparisons.smooth): the SMOOTH-Table1 sweep, the summary against per-query
Laplace, the non-smooth control and the log-log slope."""
import numpy as np
import pytest

from dpbook.comparisons.smooth import (PerQueryComparison, box_control, compare_per_query, fit_slope,
                                       regime_sweep)


def test_fit_slope_recovers_a_power_law_and_refuses_bad_input():
    x = np.array([10.0, 100.0, 1000.0])
    assert fit_slope(x, 3 * x ** -0.5) == pytest.approx(-0.5, abs=1e-12)
    assert fit_slope([1, 2, 4], [1, 4, 16]) == pytest.approx(2.0, abs=1e-12)
    for bad_x, bad_y, name in (([1.0], [1.0], "x"), ([1, 2], [1, 0], "y"), ([1, 2, 3], [1, 2], "y"),
                               ([2, 2], [1, 3], "x"), ([1, np.nan], [1, 2], "x")):
        with pytest.raises(ValueError, match=name):
            fit_slope(bad_x, bad_y)
    with pytest.raises(TypeError, match="x"):
        fit_slope(["a", "b"], [1, 2])


def test_regime_sweep_recovers_the_approximation_exponent():
    r = regime_sweep(1, 2, [6, 8, 11, 16], trials=200, repeat=1, rng=2026)
    assert list(r.degree_bound) == [6, 8, 11, 16] and list(r.n) == [6 ** 4, 8 ** 4, 11 ** 4, 16 ** 4]
    assert abs(r.slopes()["gamma"] - r.theory()["accuracy"]) <= 0.1
    # the same seed, the same sweep (timings aside)
    again = regime_sweep(1, 2, [6, 8, 11, 16], trials=200, repeat=1, rng=2026)
    for field in ("worst", "smooth", "gamma", "noise", "uniform", "baseline"):
        np.testing.assert_array_equal(getattr(r, field), getattr(again, field))
    assert np.all(r.baseline < r.worst)                 # one query: per-query Laplace wins (the chapter's §5)


@pytest.mark.parametrize("kw, name", [(dict(degree_bounds=[1, 2]), "degree_bounds"),
                                      (dict(degree_bounds=[2.5]), "degree_bounds"), (dict(degree_bounds=[]), "degree_bounds"),
                                      (dict(degree_bounds=[100]), "degree_bounds"), (dict(d=4), "d"), (dict(K=0), "K"),
                                      (dict(trials=0), "trials"), (dict(query="nope"), "query"),
                                      (dict(repeat=0), "repeat"), (dict(epsilon=-1.0), "epsilon"),
                                      (dict(beta=1.5), "beta")])
def test_regime_sweep_refuses_bad_input(kw, name):
    args = dict(d=1, K=2, degree_bounds=[3, 4], trials=10, repeat=1, rng=0)
    with pytest.raises(ValueError, match=name):
        regime_sweep(**{**args, **kw})


def test_compare_per_query_crossover():
    c = compare_per_query(np.array([1, 10, 100]), n=5_000, trials=30, grid=65, rng=2026)
    assert list(c.ms) == [1, 10, 100]
    assert c.baseline[0] < c.summary[0] and np.all(c.baseline <= c.baseline_bound * 1.5)
    fake = PerQueryComparison(np.array([1, 3, 10]), np.array([2.0, 2.0, 2.0]), np.array([1.0, 3.0, 1.0]),
                              np.ones(3), np.ones(3), 4)
    assert fake.crossover() is None and fake.crossover(np.array([1.0, 3.0, 3.0])) == 3


def test_compare_per_query_without_the_class_bound_draws_the_same_series():
    """``bound=False`` skips only the class-bound baseline: the summary, the exact-Δ baseline and the guess are the
    same numbers when nothing else draws from ``rng`` in between (m = 1: the class bound comes after the exact one)."""
    full = compare_per_query(np.array([5]), n=2_000, trials=20, grid=33, rng=7)
    lean = compare_per_query(np.array([5]), n=2_000, trials=20, grid=33, rng=7, bound=False)
    assert lean.baseline_bound is None
    for field in ("summary", "baseline", "uniform"):
        np.testing.assert_array_equal(getattr(full, field), getattr(lean, field))
    assert lean.crossover() == full.crossover()


@pytest.mark.parametrize("kw, exc, name", [(dict(ms=[0, 3]), ValueError, "ms"), (dict(ms=[[1, 3]]), ValueError, "ms"),
                                           (dict(n=5), ValueError, "n"), (dict(d=0), ValueError, "d"),
                                           (dict(grid=1), ValueError, "grid"), (dict(trials=0), ValueError, "trials"),
                                           (dict(bound=1), TypeError, "bound"), (dict(rng="x"), TypeError, "rng")])
def test_compare_per_query_refuses_bad_input(kw, exc, name):
    with pytest.raises(exc, match=name):
        compare_per_query(**{**dict(ms=np.array([1, 3]), n=500, trials=5, grid=17, rng=0), **kw})


def test_box_control_levels_off_while_the_kink_falls():
    ctrl = box_control(np.array([1000, 27_000]), trials=100, rng=3)
    assert ctrl["box"].shape == (2,) and np.all(ctrl["box"] > 3 * ctrl["kink"])
    assert ctrl["kink"][1] < ctrl["kink"][0] / 2                  # the kink's error falls with n
    assert ctrl["box"][1] > 0.02                                   # the box's does not fall to 0 (ties at the jump)
    np.testing.assert_allclose(ctrl["baseline"], 2 * np.log(20) / np.array([1000, 27_000]))
    for kw, name in ((dict(ns=np.array([5])), "ns"), (dict(tie=1.5), "tie"), (dict(edge=0.5), "edge"),
                     (dict(trials=0), "trials")):
        with pytest.raises(ValueError, match=name):
            box_control(**{**dict(ns=np.array([1000]), trials=5, rng=0), **kw})


@pytest.mark.parametrize("ms", [[5], [1, 3, 7]])
def test_compare_per_query_baselines_are_per_query_laplace(ms):
    """Both baselines are drawn without calling per_query_laplace once per m: the same numbers as per_query_laplace
    with the grid (exact Δ) and without it (the class bound), called for each m at the same point of the stream, and
    the same summary errors as answer_query (the exact means as compare_per_query computes them: tested below)."""
    from dpbook.comparisons.smooth import _cosine_means
    from dpbook.smooth import answer_query, cosine_query, per_query_laplace, smooth_summary, synthetic_points
    n, trials, grid = 2_000, 20, 33
    c = compare_per_query(np.array(ms), n=n, trials=trials, grid=grid, rng=11)
    rng = np.random.default_rng(11)
    X = synthetic_points(n, 1, rng=rng)
    s = smooth_summary(X, epsilon=1.0, K=2, trials=trials, rng=rng)
    omegas, phases = rng.uniform(0.5, 3.0, (max(ms), 1)), rng.uniform(0, np.pi, (max(ms), 1))
    queries = [cosine_query(omegas[j], phases[j], 1, 2) for j in range(max(ms))]
    exact = _cosine_means(omegas, phases, 2, X)
    err = np.abs(np.stack([answer_query(s, q) for q in queries], axis=1) - exact)
    for i, m in enumerate(ms):
        assert c.summary[i] == float(err[:, :m].max(axis=1).mean())
        first = per_query_laplace(X, queries[:m], epsilon=1.0, trials=trials, rng=rng, grid=grid)
        assert c.baseline[i] == float(np.abs(first.answers - exact[:m]).max(axis=1).mean())
        # without a grid the release adds its noise to the direct means; compare_per_query to the series means,
        # equal up to rounding: the same draws, so the same number up to rounding
        r = per_query_laplace(X, queries[:m], epsilon=1.0, trials=trials, rng=rng)
        assert c.baseline_bound[i] == pytest.approx(float(np.abs(r.answers - exact[:m]).max(axis=1).mean()),
                                                    rel=1e-12, abs=0)


def test_cosine_values_and_means_are_the_queries_own():
    """compare_per_query evaluates its m cosines at once: row j is cosine_query(ω_j, φ_j)(P) to the bit, and the
    exact means (d = 1, ω <= 3: by the exact Chebyshev moments) are true_answer's up to rounding; elsewhere
    (d = 2, or ω > 3) the direct means, to the bit."""
    from dpbook.comparisons.smooth import _cosine_means, _cosine_values
    from dpbook.smooth import cosine_query, synthetic_points, true_answer
    rng = np.random.default_rng(5)
    for d, high in ((1, 3.0), (2, 3.0), (1, 9.0)):
        X = synthetic_points(3_000, d, rng=rng)
        omegas, phases = rng.uniform(0.5, high, (40, d)), rng.uniform(0, np.pi, (40, d))
        queries = [cosine_query(omegas[j], phases[j], d, 2) for j in range(40)]
        V = _cosine_values(omegas, phases, 2, X, chunk=10_000)            # several passes
        for j, q in enumerate(queries):
            np.testing.assert_array_equal(V[j], q(X))
        exact = np.array([true_answer(X, q) for q in queries])
        if d == 1 and high <= 3.0:
            np.testing.assert_allclose(_cosine_means(omegas, phases, 2, X), exact, rtol=0, atol=1e-14)
        else:
            np.testing.assert_array_equal(_cosine_means(omegas, phases, 2, X), exact)
    # a broken twin: a series cut at degree 8 misses the cosine's tail by far more than rounding
    import dpbook.comparisons.smooth as cs
    X = synthetic_points(3_000, 1, rng=rng)
    omegas, phases = np.full((1, 1), 3.0), np.zeros((1, 1))
    exact = true_answer(X, cosine_query(omegas[0], phases[0], 1, 2))
    old, cs._COSINE_DEGREE = cs._COSINE_DEGREE, 8
    try:
        assert abs(cs._cosine_means(omegas, phases, 2, X)[0] - exact) > 1e-8
    finally:
        cs._COSINE_DEGREE = old
