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


def test_compare_per_query_class_bound_is_per_query_laplace():
    """The class-bound baseline is drawn without evaluating the queries on the rows again: the same numbers as
    per_query_laplace without a grid, called at the same point of the stream (after the exact-Δ baseline)."""
    from dpbook.smooth import cosine_query, per_query_laplace, smooth_summary, synthetic_points, true_answer
    n, trials, m, grid = 2_000, 20, 5, 33
    c = compare_per_query(np.array([m]), n=n, trials=trials, grid=grid, rng=11)
    rng = np.random.default_rng(11)
    X = synthetic_points(n, 1, rng=rng)
    smooth_summary(X, epsilon=1.0, K=2, trials=trials, rng=rng)
    omegas, phases = rng.uniform(0.5, 3.0, (m, 1)), rng.uniform(0, np.pi, (m, 1))
    queries = [cosine_query(omegas[j], phases[j], 1, 2) for j in range(m)]
    exact = np.array([true_answer(X, q) for q in queries])
    first = per_query_laplace(X, queries, epsilon=1.0, trials=trials, rng=rng, grid=grid)
    assert c.baseline[0] == float(np.abs(first.answers - exact).max(axis=1).mean())
    r = per_query_laplace(X, queries, epsilon=1.0, trials=trials, rng=rng)
    assert c.baseline_bound[0] == float(np.abs(r.answers - exact).max(axis=1).mean())
