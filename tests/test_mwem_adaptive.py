"""adaptive_marginals (dpbook.mwem): the book's take on AIM at pure ε — ledger, seeding, accuracy, the estimator's
fast paths against short references, the audit of its 1-way step and its broken twin, bad input."""
import itertools

import numpy as np
import pytest

from dpbook.data import load_cancer
from dpbook.mwem import (_AdaptivePlan, _consistent_tables, _fit, _hadamard, adaptive_marginals, full_table_suffices,
                         mwem, mwem_practical, simplex_projection)
from dpbook.queries import k_way_marginals, random_queries
from dpbook.release import compose

CANCER = load_cancer()
N_CANCER = int(np.sum(CANCER.x))
W2 = k_way_marginals(11, 2)


@pytest.mark.parametrize("route", ["adaptive", "full table"])
@pytest.mark.parametrize("neighbours", ["add/remove", "replace-one"])
def test_ledger_composes_to_the_claim(route, neighbours):
    n = N_CANCER if neighbours == "add/remove" else None
    r = adaptive_marginals(CANCER.x, W2, epsilon=0.7, n=n, neighbours=neighbours, route=route, trials=2, rng=1)
    eps, delta = compose(r.ledger)
    assert delta == 0.0 and eps == pytest.approx(0.7, rel=1e-12)
    assert sum(s.epsilon for s in r.ledger) == pytest.approx(0.7, rel=1e-12)
    assert r.neighbours == neighbours and r.trace["route"] == route
    assert r.trace["sensitivity"] == (1.0 if neighbours == "add/remove" else 2.0)
    np.testing.assert_allclose(r.trace["synthetic"].sum(axis=1), 1.0, rtol=1e-9)
    assert np.all(r.trace["synthetic"] >= 0)
    if route == "adaptive":                  # 1-way step, then two steps per round
        assert len(r.ledger) == 1 + 2 * r.trace["rounds"][0]
        assert all(compose(g)[0] == pytest.approx(0.7, rel=1e-12) for g in r.trace["ledgers"])
        assert r.ledger[0].epsilon == pytest.approx(0.7 / 22)


def test_route_rule_is_public_and_as_documented():
    assert full_table_suffices(2048, 569, 1.0, 1.0) and not full_table_suffices(2048, 569, 0.1, 1.0)
    assert not full_table_suffices(1 << 16, 1797, 1.0, 1.0) and full_table_suffices(256, 20000, 1.0, 2.0)
    assert adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, rng=0).trace["route"] == "full table"
    assert adaptive_marginals(CANCER.x, W2, epsilon=0.1, n=N_CANCER, rng=0).trace["route"] == "adaptive"


def test_same_seed_same_bytes():
    for route in ("adaptive", "full table"):
        a = adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, route=route, rng=7).answers
        b = adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, route=route, rng=7).answers
        c = adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, route=route, rng=8).answers
        assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()


def test_beats_mwem_practical_and_the_uniform_guess_on_cancer():
    """Cancer's 2-way marginals at ε = 1 (n = 569, |X| = 2048; the rule takes the full-table route): lower mean
    error than mwem_practical (T = 10, its defaults) in each of 5 seeds and a lower median max error (seed 3:
    0.089 against mwem_practical's 0.083); the adaptive route beats the theorem's MWEM and the uniform guess in
    each of them."""
    true = W2.answers(CANCER.x)
    uniform = np.abs(W2.counts(np.full(CANCER.N, 1 / CANCER.N)) - true)
    maxima = []
    for seed in range(5):
        a = np.abs(adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, rng=seed).answers - true)
        p = np.abs(mwem_practical(CANCER.x, W2, epsilon=1.0, T=10, n=N_CANCER, rng=seed).answers - true)
        assert a.mean() < p.mean()
        maxima.append((a.max(), p.max()))
        r = np.abs(adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, route="adaptive", rng=seed).answers - true)
        t = np.abs(mwem(CANCER.x, W2, epsilon=1.0, T=10, rng=seed).answers - true)
        assert r.mean() < t.mean() and r.mean() < uniform.mean() and r.max() < uniform.max()
    assert np.median([m[0] for m in maxima]) < np.median([m[1] for m in maxima])


def test_hadamard_is_the_parity_matrix():
    for s in range(4):
        H = np.array([[(-1) ** bin(t & v).count("1") for v in range(1 << s)] for t in range(1 << s)], dtype=float)
        y = np.random.default_rng(s).normal(size=1 << s)
        np.testing.assert_allclose(_hadamard(y, s), H @ y, atol=1e-12)


def test_consistent_tables_equal_dense_weighted_least_squares():
    """The per-parity inverse-variance average (the fast path) equals a dense weighted least-squares solve over
    every parity coefficient, prior rows included."""
    d, n = 4, 50.0
    W = k_way_marginals(d, 2)
    plan = _AdaptivePlan(W)
    rng = np.random.default_rng(3)
    meas = [((0,), 2.0, rng.normal(25, 3, 2)), ((0, 1), 1.0, rng.normal(12, 3, 4)), ((1, 2), 3.0, rng.normal(12, 3, 4)),
            ((0, 1), 0.5, rng.normal(12, 3, 4))]
    fast = _consistent_tables(plan, meas, n)
    masks = sorted({int(m) for S, _, _ in meas for m in plan.masks(S)} - {0})
    col = {m: j for j, m in enumerate(masks)}
    rows, rhs, w = [], [], []
    for S, b, y in meas:                  # y = H f / 2^s, f_∅ = n known
        s = len(S)
        H = np.array([[(-1) ** bin(t & v).count("1") for t in range(1 << s)] for v in range(1 << s)], float) / (1 << s)
        ms = plan.masks(S)
        for v in range(1 << s):
            row = np.zeros(len(masks))
            for t in range(1 << s):
                if ms[t]:
                    row[col[int(ms[t])]] = H[v, t]
            rows.append(row)
            rhs.append(y[v] - H[v, 0] * n)
            w.append(1.0 / (np.sqrt(2.0) * b))      # Laplace: variance 2b²
    for m in masks:                        # the prior: f_T = 0 with variance n²/3
        row = np.zeros(len(masks))
        row[col[m]] = 1.0
        rows.append(row)
        rhs.append(0.0)
        w.append(np.sqrt(3.0) / n)
    A, r, w = np.array(rows), np.array(rhs), np.array(w)
    f = np.linalg.lstsq(A * w[:, None], r * w, rcond=None)[0]
    for S in fast:
        s = len(S)
        ms = plan.masks(S)
        coef = np.array([n if m == 0 else f[col[int(m)]] for m in ms])
        H = np.array([[(-1) ** bin(t & v).count("1") for t in range(1 << s)] for v in range(1 << s)], float)
        np.testing.assert_allclose(fast[S], H @ coef / (1 << s), rtol=1e-9, atol=1e-9)


def test_simplex_projection_equals_bisection():
    rng = np.random.default_rng(0)
    for size, total in ((1, 3.0), (7, 1.0), (300, 40.0)):
        v = rng.normal(0, 5, size)
        lo, hi = v.min() - total, v.max()
        for _ in range(200):
            tau = (lo + hi) / 2
            lo, hi = (tau, hi) if np.maximum(v - tau, 0).sum() > total else (lo, tau)
        np.testing.assert_allclose(simplex_projection(v, total), np.maximum(v - tau, 0), atol=1e-9)


def test_fit_reaches_consistent_targets_by_numpy_marginals():
    """Proportional fitting (the merged-block fast path) to exact, consistent marginals of a table: every fitted
    marginal equals numpy's sum over the other axes of that table."""
    d = 6
    plan = _AdaptivePlan(k_way_marginals(d, 2))
    rng = np.random.default_rng(2)
    x = rng.integers(1, 20, 1 << d).astype(float)
    cube = x.reshape((2,) * d)
    meas = [(S, 1e-9, cube.sum(axis=tuple(a for a in range(d) if a not in S)).ravel())
            for S in [(0,), (1,), (2,), (3,), (4,), (5,), (0, 3), (3, 5), (1, 2)]]
    p = _fit(plan, np.full(1 << d, 1.0 / (1 << d)), meas, x.sum(), tol=1e-12)
    for S, _, y in meas:
        np.testing.assert_allclose(p.reshape((2,) * d).sum(axis=tuple(a for a in range(d) if a not in S)).ravel(),
                                   y / x.sum(), atol=1e-9)


def test_audit_of_the_one_way_step_and_its_broken_twin():
    from dpbook.audit import audit_cases, run_audits
    results = {c.name: (c, r) for c, r in run_audits(audit_cases(names=[
        "adaptive_marginals_one_way", "adaptive_marginals_one_way_unscaled"]))}
    case, res = results["Adaptive marginals: the 1-way step"]
    assert case.epsilon == pytest.approx(1.0) and res.epsilon_lb <= case.epsilon
    case, res = results["Adaptive marginals forgetting the 1-way factor d"]
    assert res.epsilon_lb > case.epsilon


def test_tiny_universes_and_extreme_epsilon():
    r = adaptive_marginals(np.array([3, 4]), k_way_marginals(1, 1), epsilon=1.0, n=7, route="adaptive", rng=0)
    assert r.answers.shape == (2,) and compose(r.ledger)[0] == pytest.approx(1.0)
    for epsilon in (1e-6, 1e3):
        for route in ("adaptive", "full table"):
            a = adaptive_marginals(CANCER.x, W2, epsilon=epsilon, n=N_CANCER, route=route, rng=0).answers
            assert np.all(np.isfinite(a)) and np.all(a >= 0) and np.all(a <= 1)


@pytest.mark.parametrize("kwargs, exc, name", [
    (dict(epsilon=0.0), ValueError, "epsilon"), (dict(epsilon="a"), TypeError, "epsilon"),
    (dict(select_share=0.0), ValueError, "select_share"), (dict(select_share=1.0), ValueError, "select_share"),
    (dict(route="fast"), ValueError, "route"), (dict(route=3), TypeError, "route"),
    (dict(neighbours="swap"), ValueError, "neighbours"), (dict(n=None), ValueError, "n"),
    (dict(trials=0), ValueError, "trials"),
])
def test_bad_parameters(kwargs, exc, name):
    call = dict(epsilon=1.0, n=N_CANCER, rng=0) | kwargs
    with pytest.raises(exc, match=name):
        adaptive_marginals(CANCER.x, W2, **call)


def test_bad_workload_and_data():
    with pytest.raises(ValueError, match="route.*MarginalWorkload"):
        adaptive_marginals(CANCER.x, random_queries(5, CANCER.N, rng=0), epsilon=1.0, n=N_CANCER, route="adaptive")
    other = adaptive_marginals(CANCER.x, random_queries(5, CANCER.N, rng=0), epsilon=1.0, n=N_CANCER, rng=0)
    assert other.trace["route"] == "full table" and other.answers.shape == (5,)     # other queries: the full table
    with pytest.raises(ValueError, match="universe"):
        adaptive_marginals(CANCER.x[:100], W2, epsilon=1.0, n=N_CANCER)
