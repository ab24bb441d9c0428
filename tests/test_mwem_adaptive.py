"""adaptive_marginals (dpbook.mwem): the book's take on AIM at pure ε — ledger, seeding, accuracy, the estimator's
fast paths against short references, the audit of its 1-way step and its broken twin, bad input."""
import itertools
import math

import numpy as np
import pytest

from dpbook.data import load_cancer
from dpbook.mwem import (_AdaptivePlan, _LaplaceRounds, _ZcdpRounds, _consistent_tables, _eligible, _fit, _hadamard, _maximal_sets,
                         _independence_means, _opening_informative, _parity_estimates, _popcount, _prior_variance,
                         _round_budget, _shrink,
                         adaptive_marginals, full_table_suffices, mwem, mwem_practical, simplex_projection)
from dpbook.noise import gaussian_noise, laplace_noise
from dpbook.queries import k_way_marginals, random_queries
from dpbook.release import compose

CANCER = load_cancer()
N_CANCER = int(np.sum(CANCER.x))
W2 = k_way_marginals(11, 2)


@pytest.mark.parametrize("epsilon", [0.7, 1.9])
@pytest.mark.parametrize("route", ["adaptive", "full table"])
@pytest.mark.parametrize("neighbours", ["add/remove", "replace-one"])
def test_ledger_composes_to_the_claim(route, neighbours, epsilon):
    """Cancer (d = 11, T0 = 22): the 1-way scale is 22·11Δ/ε; the opening measures iff twice it is below n = 569
    (ε = 1.9: 255 or 509 for Δ = 1, 2), and is otherwise carried into the first round (ε = 0.7)."""
    n = N_CANCER if neighbours == "add/remove" else None
    r = adaptive_marginals(CANCER.x, W2, epsilon=epsilon, n=n, neighbours=neighbours, route=route, trials=2, rng=1)
    eps, delta = compose(r.ledger)
    assert delta == 0.0 and eps == pytest.approx(epsilon, rel=1e-12)
    assert sum(s.epsilon for s in r.ledger) == pytest.approx(epsilon, rel=1e-12)
    assert r.neighbours == neighbours and r.trace["route"] == route
    assert r.trace["sensitivity"] == (1.0 if neighbours == "add/remove" else 2.0)
    np.testing.assert_allclose(r.trace["synthetic"].sum(axis=1), 1.0, rtol=1e-9)
    assert np.all(r.trace["synthetic"] >= 0)
    if route == "adaptive":                  # 1-way step (when informative), then two steps per round
        delta1 = r.trace["sensitivity"]
        opens = _opening_informative(N_CANCER, 22 * 11 * delta1 / epsilon)
        assert opens == (epsilon == 1.9)
        assert len(r.ledger) == int(opens) + 2 * r.trace["rounds"][0]
        assert all(compose(g)[0] == pytest.approx(epsilon, rel=1e-12) for g in r.trace["ledgers"])
        if opens:
            assert r.ledger[0].epsilon == pytest.approx(epsilon / 22) == r.trace["epsilon_one_way"]
        else:
            assert r.trace["epsilon_one_way"] == 0.0
            assert r.trace["round_epsilon"][0][0] >= 2 * epsilon / 22 * (1 - 1e-12)     # ε_1 carried


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


def test_parity_estimates_equal_dense_weighted_least_squares_and_tables_their_shrunk_transform():
    """The per-parity inverse-variance average (the fast path) equals a dense weighted least-squares solve over
    every parity coefficient (measurements only), with the variances of that solve; the consistent tables are
    the Hadamard transforms of those estimates shrunk by the per-order posterior mean."""
    d, n = 4, 50.0
    W = k_way_marginals(d, 2)
    plan = _AdaptivePlan(W)
    rng = np.random.default_rng(3)
    meas = [((0,), 2.0, rng.normal(25, 3, 2)), ((0, 1), 1.0, rng.normal(12, 3, 4)), ((1, 2), 3.0, rng.normal(12, 3, 4)),
            ((0, 1), 0.5, rng.normal(12, 3, 4))]
    unique, estimate, variance = _parity_estimates(plan, meas)
    masks = [int(m) for m in unique]
    col = {m: j for j, m in enumerate(masks)}
    rows, rhs, w = [], [], []
    for S, b, y in meas:                  # y = H f / 2^s
        s = len(S)
        H = np.array([[(-1) ** bin(t & v).count("1") for t in range(1 << s)] for v in range(1 << s)], float) / (1 << s)
        ms = plan.masks(S)
        for v in range(1 << s):
            row = np.zeros(len(masks))
            for t in range(1 << s):
                row[col[int(ms[t])]] = H[v, t]
            rows.append(row)
            rhs.append(y[v])
            w.append(1.0 / (np.sqrt(2.0) * b))      # Laplace: variance 2b²
    A, r, w = np.array(rows) * np.array(w)[:, None], np.array(rhs) * np.array(w), None
    f = np.linalg.lstsq(A, r, rcond=None)[0]
    np.testing.assert_allclose(estimate, f, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(variance, np.diag(np.linalg.inv(A.T @ A)), rtol=1e-9)
    shrunk = _shrink(unique, estimate, variance, n, plan.d)
    assert shrunk[unique == 0] == n
    fast = _consistent_tables(plan, meas, n)
    assert set(fast) == {(0, 1), (1, 2)}                      # the maximal measured sets
    for S in fast:
        s = len(S)
        coef = shrunk[np.searchsorted(unique, plan.masks(S))]
        H = np.array([[(-1) ** bin(t & v).count("1") for t in range(1 << s)] for v in range(1 << s)], float)
        np.testing.assert_allclose(fast[S], H @ coef / (1 << s), rtol=1e-9, atol=1e-9)


def test_empirical_bayes_prior_variance_and_shrinkage():
    """τ² maximises the Gaussian log-likelihood (checked against a fine grid of 20,001 points: no grid point has a
    higher likelihood, up to rounding); pure noise keeps the uniform guess (τ² = 0), a strong signal is kept almost
    whole, and τ² never exceeds the range's n²/3; each order |T| has its own prior."""
    rng = np.random.default_rng(5)
    v = rng.uniform(1.0, 50.0, 40)

    def loglik(g, est):
        return float(np.sum(-0.5 * (np.log(g + v) + est * est / (g + v))))
    for est in (rng.normal(0, 30, 40) + rng.normal(0, np.sqrt(v)), rng.normal(0, 8, 40) + rng.normal(0, np.sqrt(v))):
        tau2 = _prior_variance(est, v, 1e4)
        assert 0 < tau2 < 1e4
        grid = np.linspace(0, 1e4, 20_001)
        assert loglik(tau2, est) >= max(loglik(g, est) for g in grid) - 1e-9
    assert _prior_variance(np.zeros(40), v, 1e4) == 0.0
    assert _prior_variance(np.full(40, 1e6), v, 1e4) == 1e4
    n = 100.0
    unique = np.array([0, 1, 2, 4, 3, 5])                     # orders 0, 1, 1, 1, 2, 2 over d = 3 attributes
    est = np.array([n, 90.0, -80.0, 85.0, 0.5, -0.4])
    var = np.array([1.0, 4.0, 4.0, 4.0, 400.0, 400.0])
    f = _shrink(unique, est, var, n, 3)
    assert f[0] == n and np.all(np.abs(f[1:4] - est[1:4]) < 0.01 * np.abs(est[1:4]))     # order 1: signal, kept
    one = {1: f[1], 2: f[2], 4: f[3]}                         # mask 1 = attribute 2, 2 = attribute 1, 4 = attribute 0
    independent = [n * (one[2] / n) * (one[1] / n), n * (one[4] / n) * (one[1] / n)]      # masks 3 = {1, 2}, 5 = {0, 2}
    g = _shrink(unique, np.concatenate((est[:4], np.array(independent) + [0.5, -0.4])), var, n, 3)
    np.testing.assert_allclose(g[4:], independent, rtol=1e-12)   # order 2: noise around the independent table's sums
    np.testing.assert_array_equal(g[:4], f[:4])                 # is shrunk to them (τ² = 0), not to the uniform 0
    strong = _shrink(unique, np.concatenate((est[:4], [60.0, -50.0])), np.append(var[:4], [1e-2, 1e-2]), n, 3)
    np.testing.assert_allclose(strong[4:], [60.0, -50.0], atol=0.05)     # precise deviations are kept


def test_independence_means_at_their_edges():
    """The prior means: 0 below order 2; the product of the 1-way sums (normalised by n) times n at order >= 2 —
    ±n when every attribute is constant, 0 when one attribute is balanced (or unmeasured)."""
    n, d = 50.0, 4
    unique = np.array([0, 1, 8, 3, 9, 12, 7, 15])            # orders 0, 1, 1, 2, 2, 2, 3, 4
    order = _popcount(unique)
    f_one = np.array([n, -n, 0.0, n])                         # attribute a has mask 1 << (3 − a)
    mean = _independence_means(unique, order, f_one, n)
    assert np.all(mean[:3] == 0.0)
    np.testing.assert_array_equal(mean[3:], [0.0, n, -n, 0.0, 0.0])   # {2,3}: attribute 2 balanced; {0,3}: n·1·1;
    half = _independence_means(unique, order, np.full(d, 0.5 * n), n)  # {0,1}: −n; any set with attribute 2: 0
    np.testing.assert_allclose(half[3:], [0.25 * n, 0.25 * n, 0.25 * n, 0.125 * n, 0.0625 * n])


def test_maximal_sets_and_popcount():
    m = np.random.default_rng(0).integers(0, 1 << 40, 500)
    np.testing.assert_array_equal(_popcount(m), [bin(int(v)).count("1") for v in m])
    assert _maximal_sets([(0,), (1,), (0, 1), (2,), (0, 1), (1, 2, 3), (2, 3)]) == [(0, 1), (1, 2, 3)]
    assert _maximal_sets([(3,)]) == [(3,)] and _maximal_sets([(0, 1, 2, 3)] + [(a,) for a in range(4)]) == [(0, 1, 2, 3)]


@pytest.mark.parametrize("d", [1, 6, 13])
def test_row_view_marginals_and_scaling_equal_numpy(d):
    """The row view (rows of 2^min(d, 10) contiguous cells; at d = 13 sets mix leading and row attributes):
    marginals equal numpy's sums over the other axes of the (2,)*d cube, and the proportional update equals
    multiplying every cell by its marginal cell's ratio."""
    plan = _AdaptivePlan(k_way_marginals(d, min(d, 3)))
    rng = np.random.default_rng(d)
    p = rng.random(1 << d)
    sets = [S for S in plan.candidates if len(S) < d] or [(0,)]
    for S in sets[:: max(1, len(sets) // 25)]:
        cube = p.reshape((2,) * d)
        away = tuple(a for a in range(d) if a not in S)
        np.testing.assert_allclose(plan.marginal(p, S), cube.sum(axis=away).ravel(), rtol=1e-12)
        ratio = rng.uniform(0.5, 1.5, 1 << len(S))
        cell = np.zeros(1 << d, dtype=np.int64)
        for a in S:
            cell = (cell << 1) | ((np.arange(1 << d) >> (d - 1 - a)) & 1)
        q = p.copy()
        plan.scale(q, S, ratio)
        np.testing.assert_allclose(q, p * ratio[cell], rtol=1e-14)
    np.testing.assert_allclose(plan.counts(p), plan.cells.counts(p), rtol=1e-12)


def test_round_rules_eligibility_and_carrying():
    """Eligible: 2^|r| b below 2(n − the model's least cell count).  A uniform model on d = 3 with n = 80: a
    1-way table's bound is 2(80 − 40) = 80, a 2-way's 2(80 − 20) = 120, the full table's 2(80 − 10) = 140."""
    plan = _AdaptivePlan(k_way_marginals(3, 2))
    n = 80.0
    p = np.full(8, 1 / 8)
    model = plan.cells.counts(p) * n
    sizes = plan.sizes
    for b in (10.0, 29.0, 30.0, 39.0, 40.0):
        bound = np.where(sizes == 2, 80.0, np.where(sizes == 4, 120.0, 140.0))
        np.testing.assert_array_equal(_eligible(plan, model, p, n, b), sizes * b < bound)
    # nothing eligible at ε_round (b = 1/(0.5·0.01) = 200): carried (doubled) until b < 40, i.e. ε_t > 0.05
    rounds = _LaplaceRounds(1.0, 3, 1.0, 0.5, laplace_noise, lambda epsilon, d, sensitivity: (0.01, 0.0, 1.0))
    eps_sel, b, last, allowed = _round_budget(plan, model, p, n=n, rounds=rounds)
    assert rounds.trace["round_epsilon"] == [0.08] and rounds.round == 0.08 and not last and allowed.any()
    assert eps_sel == 0.04 and b == 1.0 / (0.5 * 0.08)
    np.testing.assert_array_equal(allowed, _eligible(plan, model, p, n, 1.0 / (0.5 * 0.08)))
    # the last round (what is left is at most 2 ε_round) measures among all candidates when none is eligible
    rounds = _LaplaceRounds(0.015, 3, 1.0, 0.5, laplace_noise, lambda epsilon, d, sensitivity: (0.01, 0.0, 1.0))
    _, _, last, allowed = _round_budget(plan, model, p, n=n, rounds=rounds)
    assert rounds.trace["round_epsilon"] == [0.015] and last and allowed.all()


def test_round_rules_for_gaussian_noise_use_its_expected_abs():
    """At delta > 0 the same rules at the Gaussian's expected |noise| σ sqrt(2/π): the opening informative iff
    2σ_1 sqrt(2/π) < n, and carrying quadruples ρ_t (σ halves) until 2^|r| σ_t sqrt(2/π) is below the bound (the
    uniform model on d = 3 with n = 80 as above: the smallest bound over sizes, 80/2 = 40 per cell for 1-way)."""
    assert _ZcdpRounds.expected_abs(1.0) == pytest.approx(math.sqrt(2.0 / math.pi))
    assert _opening_informative(80.0, _ZcdpRounds.expected_abs(49.0)) and not _opening_informative(
        80.0, _ZcdpRounds.expected_abs(51.0))                     # 2·σ·0.798 < 80 iff σ < 50.1
    plan = _AdaptivePlan(k_way_marginals(3, 2))
    n, p = 80.0, np.full(8, 1 / 8)
    model = plan.cells.counts(p) * n
    rounds = _ZcdpRounds(1.0, 3, 1.0, 1.0, 0.5, gaussian_noise, lambda rho, d, l2, share: (1e-4, 0.0, 1.0))
    _, sigma, last, allowed = _round_budget(plan, model, p, n=n, rounds=rounds)
    rho_t = rounds.trace["round_rho"][0]
    assert sigma == pytest.approx(1.0 / math.sqrt(2.0 * 0.5 * rho_t)) and not last
    assert math.log(rho_t / 1e-4, 4.0) == pytest.approx(round(math.log(rho_t / 1e-4, 4.0)))    # ×4 steps
    np.testing.assert_array_equal(allowed, _eligible(plan, model, p, n, _ZcdpRounds.expected_abs(sigma)))
    assert allowed.any() and not _eligible(plan, model, p, n, _ZcdpRounds.expected_abs(2.0 * sigma)).any()


def test_small_epsilon_stays_at_the_uniform_guess():
    """Cancer's 2-way marginals at ε = 0.1 (the adaptive route): in each of 5 seeds the mean error is below the
    uniform guess's (0.0996) and the max error within 0.01 of its 0.247 (the 1-way opening is not informative
    there, and every round's measurement is eligible and shrunk)."""
    true = W2.answers(CANCER.x)
    uniform = np.abs(W2.counts(np.full(CANCER.N, 1 / CANCER.N)) - true)
    for seed in range(5):
        r = adaptive_marginals(CANCER.x, W2, epsilon=0.1, n=N_CANCER, rng=seed)
        e = np.abs(r.answers - true)
        assert r.trace["epsilon_one_way"] == 0.0 and r.trace["route"] == "adaptive"
        assert e.mean() < uniform.mean() and e.max() <= uniform.max() + 0.01


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


@pytest.mark.parametrize("neighbours, l1", [("add/remove", 1.0), ("replace-one", 2.0)])
def test_full_table_noise_has_the_relations_sensitivity(neighbours, l1):
    """The full-table route under each relation (the audit cases take replace-one; this checks both): the table's
    noise is Lap(Δ/ε) with Δ = 1 (add/remove) or 2 (replace-one) — the residuals' mean |·| is b (E|Lap(b)| = b) —
    and, at δ > 0 with a Gaussian sampler, N(0, σ²) with σ = Δ₂/sqrt(2ρ), Δ₂ = sqrt(Δ) — their spread is σ.  60
    runs × 256 cells: the relative standard error is 1/sqrt(15360) = 0.8% (mean |Laplace|) and 0.6% (a normal's
    sd), so 5% is over 6 of them (false alarm far below 1e-6), and the other relation's factor 2 (sqrt(2)) is
    far outside it."""
    from dpbook.release import zcdp_rho
    x = np.arange(256) % 7
    n = int(x.sum())
    resid = lambda r: np.concatenate([m[0][1] - x for m in r.trace["measurements"]])
    lap = adaptive_marginals(x, k_way_marginals(8, 2), epsilon=0.8, n=n, neighbours=neighbours, route="full table",
                             trials=60, rng=11)
    assert lap.neighbours == neighbours and (lap.epsilon, lap.delta) == (0.8, 0.0)
    assert f"Δ={l1:g}" in lap.ledger[0].step
    assert np.mean(np.abs(resid(lap))) == pytest.approx(l1 / 0.8, rel=0.05)
    gau = adaptive_marginals(x, k_way_marginals(8, 2), epsilon=0.8, delta=1e-5, n=n, neighbours=neighbours,
                             route="full table", sampler=gaussian_noise, trials=60, rng=12)
    rho = zcdp_rho(0.8, 1e-5)
    assert gau.neighbours == neighbours and len(gau.ledger) == 1 and gau.ledger[0].rho == pytest.approx(rho)
    assert np.std(resid(gau)) == pytest.approx(math.sqrt(l1) / math.sqrt(2.0 * rho), rel=0.05)


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
