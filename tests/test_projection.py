"""Chapter 13: the projection mechanism (PROJ-Alg1, PROJ-Thm3/5/9), the geometry of K_Q (PROJ-Def6–8,
PROJ-Lemma, PROJ-Key lemma) and their bounds in dpbook.theory.projection."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize

from dpbook.audit import audit_cases
from dpbook.broken.projection import projection_single_query_sensitivity
from dpbook.data import load_cancer
from dpbook.geometry import gaussian_width, key_lemma_sides, mean_width, support_function
from dpbook.projection import project_onto_hull, project_reference, projection_mechanism, replace_one_l2_sensitivity
from dpbook.queries import MatrixWorkload, conjunctions, k_way_marginals, random_queries, range_queries
from dpbook.sparse_project import SparseQueryWorkload
from dpbook.theory.gaussian import sigma_epsilon_delta
from dpbook.theory.projection import (cube_gaussian_width, expected_gaussian_norm, gaussian_width_bound,
                                      gaussian_width_bound_seed, projection_mse_bound, simplex_gaussian_width,
                                      thm5_rms_bound, thm5_sample_size, thm9_rms_bound, thm9_sample_size)

SEED = 2026
LEVEL = 1 - 1e-6                     # confidence of the Monte Carlo intervals checked here (false alarm 1e-6)

SMALL = [lambda: random_queries(5, 12, rng=1), lambda: k_way_marginals(4, 2), lambda: range_queries(10, m=6, rng=2),
         lambda: random_queries(4, 9, rng=3, kind="uniform")]


@pytest.fixture(scope="module")
def cancer():
    return load_cancer().x


def _slsqp(A, y):
    N = A.shape[1]
    res = minimize(lambda w: 0.5 * np.sum((A @ w - y) ** 2), np.full(N, 1 / N), jac=lambda w: A.T @ (A @ w - y),
                   method="SLSQP", bounds=[(0, 1)] * N, constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1}],
                   options=dict(ftol=1e-15, maxiter=2000))
    return A @ res.x


# ------------------------------------------------------------------------------------------- the projection

@pytest.mark.parametrize("make", SMALL)
@pytest.mark.parametrize("noise", [0.02, 0.5, 30.0])
def test_projection_matches_a_general_solver(make, noise):
    W = make()
    A = W.matrix()
    rng = np.random.default_rng(SEED)
    y = A @ rng.dirichlet(np.ones(W.N)) + noise * rng.normal(size=W.m)
    p = project_onto_hull(y, W, tol=1e-6)
    ref = _slsqp(A, y)
    assert np.linalg.norm(p.answers - ref) <= 1e-5
    assert np.linalg.norm(project_reference(y, W, iterations=3000).answers - ref) <= 1e-2   # plain FW is slow
    # the weights are a distribution whose answers are the projection
    assert np.all(p.weights > 0) and math.isclose(p.weights.sum(), 1.0)
    np.testing.assert_allclose(A[:, p.support] @ p.weights, p.answers, atol=1e-12)


@pytest.mark.parametrize("make", SMALL)
def test_optimality_conditions(make):
    """KKT of min ½||Qw − ỹ||² over the simplex: every support element attains min_r (Qᵀ(z − ỹ))_r, and the
    obtuse-angle property ⟨ỹ − z, s − z⟩ <= 0 holds for every vertex s of K_Q."""
    W = make()
    A = W.matrix()
    y = A.mean(axis=1) + np.random.default_rng(1).normal(size=W.m)
    p = project_onto_hull(y, W, tol=1e-7)
    g = A.T @ (p.answers - y)
    assert np.all(g[p.support] - g.min() <= 1e-7)
    assert np.max((y - p.answers) @ (A - p.answers[:, None])) <= 1e-7


def test_the_certified_gap_is_honest():
    """Stopped early, the solver's certificate sqrt(2 gap) still bounds the distance to the exact projection."""
    W = k_way_marginals(6, 2)
    A = W.matrix()
    rng = np.random.default_rng(SEED)
    for _ in range(5):
        y = A @ rng.dirichlet(np.ones(W.N) * 0.1) + 0.05 * rng.normal(size=W.m)
        ref = _slsqp(A, y)
        for it in (1, 2):
            p = project_onto_hull(y, W, tol=1e-9, max_iter=it)
            assert np.linalg.norm(p.answers - ref) <= p.certified_distance + 1e-6
            assert p.gap >= 0 and (p.converged or p.iterations == it)


def test_enormous_noise_and_points_inside():
    W = k_way_marginals(12, 2)
    rng = np.random.default_rng(SEED)
    y = 1e9 * rng.normal(size=W.m)
    p = project_onto_hull(y, W)
    assert p.converged and p.iterations <= 3
    assert np.all((p.answers >= -1e-9) & (p.answers <= 1 + 1e-9))
    # PROJ-Def2: a database's answers lie in K_Q, and projecting them changes nothing
    x = rng.integers(0, 3, size=W.N)
    inside = W.answers(x)
    q = project_onto_hull(inside, W, tol=1e-6)
    assert q.converged and np.linalg.norm(q.answers - inside) <= q.certified_distance + 1e-9
    assert np.sqrt(np.mean((q.answers - inside) ** 2)) <= 1e-6


def test_large_universe_runs_without_a_matrix():
    W = k_way_marginals(18, 2)                       # |X| = 2^18, m = 612
    rng = np.random.default_rng(SEED)
    y = W.answers(rng.integers(0, 2, size=W.N)) + 0.05 * rng.normal(size=W.m)
    p = project_onto_hull(y, W)
    assert p.converged and math.sqrt(2 * p.gap / W.m) <= 1e-4


# -------------------------------------------------------------------------------------------- the mechanism

def test_release_record(cancer):
    W = k_way_marginals(11, 2)
    r = projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, trials=3, rng=SEED)
    n = int(cancer.sum())
    sens = replace_one_l2_sensitivity(W)
    assert math.isclose(sens, math.sqrt(2 * 55))
    assert r.answers.shape == (3, W.m) and r.neighbours == "replace-one"
    assert (r.epsilon, r.delta) == (0.5, 1e-6)
    assert math.isclose(sum(s.epsilon for s in r.ledger), 0.5) and math.isclose(sum(s.delta for s in r.ledger), 1e-6)
    assert math.isclose(r.noise_scale, sigma_epsilon_delta(0.5, 1e-6) * sens / n)
    w = r.trace["weights"]
    assert w.shape == (3, W.N)
    np.testing.assert_allclose(np.asarray(w.sum(axis=1)).ravel(), 1.0)
    np.testing.assert_allclose(W.apply(w.toarray()), r.answers, atol=1e-10)
    assert r.trace["noisy"].shape == (3, W.m) and np.all(r.trace["converged"])
    assert np.all(r.trace["gap"] >= 0) and np.all(r.trace["iterations"] >= 1)
    single = projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, rng=SEED)
    assert single.answers.shape == (W.m,)


def test_neighbours_and_public_n(cancer):
    W = k_way_marginals(11, 1)
    n = int(cancer.sum())
    r = projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, neighbours="add/remove", n=n, rng=0)
    assert r.neighbours == "add/remove" and math.isclose(r.trace["sensitivity"], W.l2_sensitivity())
    with pytest.raises(ValueError, match=r"n \(None\) must be the public number of rows"):
        projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, neighbours="add/remove")
    with pytest.raises(ValueError, match="n"):
        projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, n=n + 1)
    with pytest.raises(ValueError, match="neighbours"):
        projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, neighbours="swap")


def test_replace_one_sensitivity_is_a_bound_by_brute_force():
    for W in [k_way_marginals(4, 2), k_way_marginals(4, 1, attribute_sets=[(0,), (0,), (1,)]),
              random_queries(6, 10, rng=3, kind="uniform"), range_queries(8, m=12, rng=4), conjunctions(5, 2)]:
        A = W.matrix()
        exact = max(np.linalg.norm(A[:, u] - A[:, v]) for u, v in itertools.combinations(range(W.N), 2))
        assert exact <= replace_one_l2_sensitivity(W) + 1e-12 <= math.sqrt(W.m) + 1e-12
    W = k_way_marginals(4, 2)                         # distinct attribute sets: the bound is exact
    A = W.matrix()
    assert math.isclose(max(np.linalg.norm(A[:, u] - A[:, v]) for u, v in itertools.combinations(range(16), 2)),
                        replace_one_l2_sensitivity(W))


def test_accuracy_against_theorems_9_and_5(cancer):
    """PROJ-Thm9 (E mse <= 2σℓ*/m with ℓ* at its upper confidence limit) and PROJ-Thm5 on the cancer data."""
    W = k_way_marginals(11, 2)
    epsilon, delta = 0.5, 1e-6
    r = projection_mechanism(cancer, W, epsilon=epsilon, delta=delta, trials=30, rng=SEED)
    y = W.answers(cancer)
    mse = ((r.answers - y) ** 2).mean(axis=1)
    ell = gaussian_width(W, samples=300, level=LEVEL, rng=SEED)
    # each trial's mse is at most (h(w) + h(−w))/m (pointwise), whose mean is the Thm 9 bound; the bound is loose
    assert mse.mean() <= projection_mse_bound(r.noise_scale, ell.high, W.m)
    assert np.sqrt(mse.mean()) <= thm5_rms_bound(epsilon, delta, int(cancer.sum()), W.N)
    # projection helps: the Gaussian answers alone are worse on every trial
    assert np.all(mse <= ((r.trace["noisy"] - y) ** 2).mean(axis=1))


def test_key_lemma_pointwise(cancer):
    W = k_way_marginals(11, 2)
    r = projection_mechanism(cancer, W, epsilon=0.3, delta=1e-6, trials=20, rng=SEED + 1)
    y = W.answers(cancer)
    lhs, middle, rhs = key_lemma_sides(W, y, r.trace["noisy"], r.answers)
    slack = 2 * r.trace["certified_distance"] * (np.linalg.norm(r.trace["noisy"] - y, axis=1) + 2 * math.sqrt(W.m))
    assert np.all(lhs <= middle + slack) and np.all(middle <= rhs + 1e-9)
    assert np.all(np.sqrt(lhs) <= np.linalg.norm(r.trace["noisy"] - y, axis=1) + r.trace["certified_distance"])


def test_audit_and_control():
    (mech,) = audit_cases(names=["projection"])
    (ctrl,) = audit_cases(names=["projection_single_query_sensitivity"])
    assert mech.run(SEED).epsilon_lb <= mech.epsilon
    assert ctrl.run(SEED).epsilon_lb > ctrl.epsilon


def test_determinism(cancer):
    W = k_way_marginals(11, 1)
    a = projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, trials=2, rng=7)
    b = projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, trials=2, rng=7)
    c = projection_mechanism(cancer, W, epsilon=0.5, delta=1e-6, trials=2, rng=8)
    np.testing.assert_array_equal(a.answers, b.answers)
    assert not np.array_equal(a.answers, c.answers)
    g1 = gaussian_width(W, samples=20, rng=3)
    assert g1 == gaussian_width(W, samples=20, rng=3) and g1 != gaussian_width(W, samples=20, rng=4)
    d = projection_single_query_sensitivity(cancer, W, epsilon=0.5, delta=1e-6, trials=2, rng=7)
    np.testing.assert_array_equal(d.answers, projection_single_query_sensitivity(
        cancer, W, epsilon=0.5, delta=1e-6, trials=2, rng=7).answers)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(epsilon=math.nan), ValueError, "epsilon"), (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=1.0), ValueError, "epsilon"), (dict(epsilon="1"), TypeError, "epsilon"),
    (dict(delta=0.0), ValueError, "delta"), (dict(delta=1.0), ValueError, "delta"),
    (dict(delta=-0.1), ValueError, "delta"), (dict(delta=math.nan), ValueError, "delta"),
    (dict(trials=0), ValueError, "trials"), (dict(trials=1.5), TypeError, "trials"),
    (dict(rng="seed"), TypeError, "rng"), (dict(tol=0.0), ValueError, "tol"), (dict(tol=math.inf), ValueError, "tol"),
    (dict(max_iter=0), ValueError, "max_iter"), (dict(calibration="tight"), ValueError, "calibration"),
    (dict(n=0), ValueError, "n"), (dict(neighbours=None), ValueError, "neighbours"),
])
def test_mechanism_bad_parameters(kwargs, error, match):
    x = np.array([3, 1, 0, 2])
    Q = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    good = dict(epsilon=0.5, delta=1e-3)
    with pytest.raises(error, match=match):
        projection_mechanism(x, Q, **{**good, **kwargs})


@pytest.mark.parametrize("x, Q, error, match", [
    (np.array([1.0, np.nan, 0, 2]), np.ones((2, 4)), ValueError, "x"),
    (np.array([1, 2, 3]), np.ones((2, 4)), ValueError, "x"),
    (np.array([[1, 2], [3, 4]]), np.ones((2, 2)), ValueError, "x"),
    (np.zeros(4, dtype=int), np.ones((2, 4)), ValueError, "x"),
    (np.array([1, 2, 0, 1]), np.zeros((0, 4)), ValueError, "Q|m|empty|workload"),
    (np.array([1, 2, 0, 1]), np.full((2, 4), np.nan), ValueError, "workload"),
    (np.array([1, 2, 0, 1]), "queries", TypeError, "workload"),
])
def test_mechanism_bad_data(x, Q, error, match):
    with pytest.raises(error, match=match):
        projection_mechanism(x, Q, epsilon=0.5, delta=1e-3)


def test_projection_bad_input():
    W = k_way_marginals(4, 2)
    y = np.zeros(W.m)
    for bad, err in [(np.full(W.m, np.nan), ValueError), (np.zeros(W.m + 1), ValueError),
                     (np.zeros((2, W.m)), ValueError), (np.array(["a"] * W.m), TypeError),
                     (np.zeros(W.m, dtype=complex), TypeError)]:
        with pytest.raises(err, match="y_tilde"):
            project_onto_hull(bad, W)
        with pytest.raises(err, match="y_tilde"):
            project_reference(bad, W)
    for kw, err in [(dict(tol=-1.0), ValueError), (dict(tol=math.nan), ValueError), (dict(max_iter=0), ValueError),
                    (dict(max_iter=2.5), TypeError), (dict(batch=0), ValueError)]:
        with pytest.raises(err, match=next(iter(kw))):
            project_onto_hull(y, W, **kw)
    with pytest.raises(ValueError, match="iterations"):
        project_reference(y, W, iterations=0)
    with pytest.raises(TypeError, match="workload"):
        project_onto_hull(y, "marginals")
    with pytest.raises(TypeError, match="workload"):
        replace_one_l2_sensitivity(3)


# ------------------------------------------------------------------------------------------------ geometry

def test_widths_match_exact_values_on_a_simplex_and_a_cube():
    for m in (2, 5, 20):
        simplex = MatrixWorkload(np.eye(m))                  # K = conv{e_i}
        cube = conjunctions(m if m <= 12 else 12, 1)         # K = [0, 1]^m (all 0/1 vertices)
        e = gaussian_width(simplex, samples=4000, level=LEVEL, rng=SEED)
        assert e.low <= simplex_gaussian_width(m) <= e.high
        c = gaussian_width(cube, samples=4000, level=LEVEL, rng=SEED)
        assert c.low <= cube_gaussian_width(cube.m) <= c.high
        M = mean_width(cube, samples=4000, level=LEVEL, rng=SEED)
        # ℓ* = E||g|| M*: the exact ℓ* over E||g|| lies in M*'s interval
        assert M.low <= cube_gaussian_width(cube.m) / expected_gaussian_norm(cube.m) <= M.high


def test_support_function_properties_and_erratum_e4():
    W = k_way_marginals(5, 2)
    rng = np.random.default_rng(SEED)
    a, b = rng.normal(size=(2, W.m))
    A = W.matrix()
    assert math.isclose(support_function(W, a), (a @ A).max())
    assert math.isclose(support_function(W, 3.5 * a), 3.5 * support_function(W, a))
    assert support_function(W, a + b) <= support_function(W, a) + support_function(W, b) + 1e-12
    # PROJ-E4: a non-zero direction with h <= 0, so h is not a norm
    assert support_function(W, -np.ones(W.m)) <= 0
    np.testing.assert_allclose(support_function(W, np.stack([a, b])), [(a @ A).max(), (b @ A).max()])


def test_gaussian_width_of_K_Q_is_below_the_corrected_bound():
    for W in [random_queries(20, 256, rng=1), k_way_marginals(8, 2), range_queries(256, m=30, rng=2)]:
        e = gaussian_width(W, samples=500, level=LEVEL, rng=SEED)
        assert e.high <= gaussian_width_bound(W.m, W.N) <= gaussian_width_bound_seed(W.m, W.N)


def test_geometry_bad_input():
    W = k_way_marginals(4, 2)
    with pytest.raises(ValueError, match="y"):
        support_function(W, np.zeros(3))
    with pytest.raises(ValueError, match="samples"):
        gaussian_width(W, samples=1)
    with pytest.raises(ValueError, match="level"):
        mean_width(W, level=1.0)
    with pytest.raises(ValueError, match="noisy"):
        key_lemma_sides(W, np.zeros(W.m), np.full(W.m, np.nan), np.zeros(W.m))
    with pytest.raises(ValueError, match="shape"):
        key_lemma_sides(W, np.zeros(W.m), np.zeros((2, W.m)), np.zeros((3, W.m)))


# ------------------------------------------------------------------------------------------------- theory

def test_bounds_hand_values():
    assert math.isclose(expected_gaussian_norm(1), math.sqrt(2 / math.pi))
    assert math.isclose(expected_gaussian_norm(2), math.sqrt(math.pi / 2))
    assert 9 / math.sqrt(10) <= expected_gaussian_norm(9) <= 3
    assert math.isclose(gaussian_width_bound(4, 1), 2 * math.sqrt(math.pi / 2))
    assert math.isclose(gaussian_width_bound(9, 7), 3 * (math.sqrt(2 * math.log(7)) + math.sqrt(math.pi / 2)))
    assert math.isclose(gaussian_width_bound_seed(4, 7), 2 * (math.sqrt(math.pi / 2) + 2 * math.log(7)))
    assert math.isclose(simplex_gaussian_width(2), 1 / math.sqrt(math.pi), rel_tol=1e-9)
    assert math.isclose(simplex_gaussian_width(1), 0.0, abs_tol=1e-12)
    assert math.isclose(cube_gaussian_width(5), 5 / math.sqrt(2 * math.pi))
    assert math.isclose(projection_mse_bound(0.1, 3.0, 6), 0.1)
    assert math.isclose(thm9_rms_bound(0.1, 3.0, 6), math.sqrt(0.1))
    s = math.sqrt(2 * math.log(1.25 / 1e-6)) / 0.5
    assert math.isclose(thm9_sample_size(0.1, 0.5, 1e-6, 4.0, 16), 2 * s * 4.0 / (0.01 * 4))
    c = math.sqrt(2 * math.log(2048)) + math.sqrt(math.pi / 2)
    assert math.isclose(thm5_sample_size(0.1, 0.5, 1e-6, 2048), 2 * s * c / 0.01)
    assert math.isclose(thm5_rms_bound(0.5, 1e-6, 569, 2048), math.sqrt(2 * s * c / 569))
    # the two forms agree: at n = thm5_sample_size(α) the RMS bound is α
    n = thm5_sample_size(0.2, 0.5, 1e-6, 2048)
    assert math.isclose(thm5_rms_bound(0.5, 1e-6, math.ceil(n), 2048), 0.2, rel_tol=1e-3)


@pytest.mark.parametrize("call, name", [
    (lambda v: expected_gaussian_norm(v), "m"), (lambda v: gaussian_width_bound(v, 4), "m"),
    (lambda v: gaussian_width_bound(4, v), "N"), (lambda v: thm5_rms_bound(0.5, 1e-6, v, 16), "n"),
    (lambda v: simplex_gaussian_width(v), "m"), (lambda v: cube_gaussian_width(v), "m"),
])
def test_theory_bad_counts(call, name):
    for bad in (0, -1):
        with pytest.raises(ValueError, match=name):
            call(bad)
    with pytest.raises(TypeError, match=name):
        call(1.5)


def test_theory_bad_reals():
    with pytest.raises(ValueError, match="sigma"):
        projection_mse_bound(0.0, 1.0, 3)
    with pytest.raises(ValueError, match="gaussian_width"):
        thm9_rms_bound(0.1, math.nan, 3)
    with pytest.raises(ValueError, match="radius"):
        gaussian_width_bound(4, 16, radius=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        thm9_sample_size(0.0, 0.5, 1e-6, 1.0, 4)
    with pytest.raises(ValueError, match="epsilon"):
        thm5_sample_size(0.1, 1.5, 1e-6, 16)
    with pytest.raises(ValueError, match="delta"):
        thm5_rms_bound(0.5, 1.0, 10, 16)


# ------------------------------------------------------------------------------------------------- widget

def test_explore_projection_pure_and_valid():
    import matplotlib.pyplot as plt
    from dpbook.explorers.projection import explore_projection
    from dpbook.queries import PICTURE_WORKLOADS as WORKLOADS
    a, b = explore_projection(), explore_projection()
    lines = lambda fig: [ln.get_xydata().tolist() for ax in fig.axes for ln in ax.get_lines()]
    assert lines(a) == lines(b)
    assert lines(a) != lines(explore_projection(seed=1))
    for name in WORKLOADS:
        assert len(explore_projection(m=3, workload=name).axes) == 2    # two views: queries 1–2 and 1–3
    plt.close("all")
    for kw, err, name in [(dict(epsilon=0.0), ValueError, "epsilon"), (dict(epsilon=1.5), ValueError, "epsilon"),
                          (dict(delta=1.0), ValueError, "delta"), (dict(n=0), ValueError, "n"),
                          (dict(m=4), ValueError, "m"), (dict(workload="cuts"), ValueError, "workload"),
                          (dict(draws=0), ValueError, "draws")]:
        with pytest.raises(err, match=name):
            explore_projection(**kw)
    with pytest.raises(TypeError, match="workload"):
        explore_projection(workload=2)


# ------------------------------------------------------------------ the active-set solve on dependent atoms

def test_affinely_dependent_atoms_match_a_general_solver():
    """3-way marginals of {0,1}^6: 64 vertices in a hull of affine dimension 41 (the case that made Wolfe's
    bordered systems singular); the exact active-set solve (pivoted Cholesky + NNLS) agrees with SLSQP."""
    W = k_way_marginals(6, 3)
    A = W.matrix()
    rng = np.random.default_rng(SEED)
    for noise in (0.01, 0.1):
        y = A @ rng.dirichlet(np.ones(W.N)) + noise * rng.normal(size=W.m)
        p = project_onto_hull(y, W, tol=1e-7)
        assert p.converged
        assert np.linalg.norm(p.answers - _slsqp(A, y)) <= 1e-5


def test_kkt_at_three_way_marginals_d10():
    """|X| = 1024, m = 960, small noise: the support is hundreds of dependent atoms; KKT via rmatvec."""
    W = k_way_marginals(10, 3)
    rng = np.random.default_rng(SEED)
    y = W.answers(rng.integers(0, 3, size=W.N)) + 0.03 * rng.normal(size=W.m)
    p = project_onto_hull(y, W, tol=1e-6)
    assert p.converged and p.support.size > 100
    g = W.rmatvec(p.answers - y)
    assert np.all(g[p.support] - g.min() <= 1e-6 * (1 + np.abs(g).max()))
    assert np.max(g.min() - g) <= 0                                     # no universe element below the level


def test_the_float32_gram_is_exact_on_integer_atoms():
    from dpbook.projection import _cross                                # the solver's own kernel vs float64
    W = k_way_marginals(12, 3)
    B = W.columns(np.arange(0, W.N, 37))
    np.testing.assert_array_equal(_cross(B, B), B.T @ B)
    R = B * 0.3                                                          # not integers: the float64 path
    np.testing.assert_allclose(_cross(R, B), R.T @ B, rtol=1e-15)


@pytest.mark.parametrize("y, exc, match", [
    (np.array(["a", "b"]), TypeError, "y"), (np.ones(3), ValueError, "shape"), (np.ones((2, 2, 2)), ValueError, "shape"),
    (np.array([1.0, np.nan]), ValueError, "NaN"), (np.array([1 + 1j, 0]), TypeError, "y"),
])
def test_check_dual_names_the_vector(y, exc, match):
    """queries.check_dual: the query-space vector of rmatvec and of dpbook.geometry (public, so geometry needs no
    private import)."""
    from dpbook.queries import check_dual
    with pytest.raises(exc, match=match):
        check_dual(y, 2)
    np.testing.assert_array_equal(check_dual(np.array([1, -2]), 2), [1.0, -2.0])


def test_replace_one_l2_sensitivity_pays_the_entry_range():
    """Entries in [0, 1]: min(sqrt(2) Δ2, sqrt(m)) as before; an overlapping cut (entries up to 2) pays its range."""
    from dpbook.graphs import cut_workload
    W = MatrixWorkload(np.array([[1.0, 0.0], [1.0, 1.0]]))
    assert replace_one_l2_sensitivity(W) == pytest.approx(min(math.sqrt(2) * W.l2_sensitivity(), math.sqrt(2)))
    cut = cut_workload(3, [([0, 1], [0, 1])])                   # one query: coefficients (2, 0, 0)
    assert replace_one_l2_sensitivity(cut) == pytest.approx(2.0)


# --------------------------------------------------------------------------- the fast solver against the previous one

def test_marginal_gram_from_the_xor_table_is_exact():
    """The Gram entries Q(r)·Q(s) from one table over r XOR s equal the columns' products exactly: for whole
    marginals, for cells listed twice or with their attributes in another order, and for incomplete attribute
    sets (conjunctions: one cell per set), which take the columns' path."""
    from dpbook.projection import _MarginalGram
    from dpbook.queries import MarginalWorkload
    rng = np.random.default_rng(SEED)
    whole = k_way_marginals(7, 3)
    mixed = MarginalWorkload(7, list(k_way_marginals(7, 2).cells) + [((3, 1), (0, 1)), ((1, 3), (1, 0)),
                                                                    ((1, 3), (0, 0)), ((3, 1), (1, 1))]
                             + [((2, 5), v) for v in itertools.product((0, 1), repeat=2)] * 2 + [((0, 4), (1, 1))])
    for W in (whole, mixed, conjunctions(7, 2)):
        I, K = rng.choice(W.N, 40, replace=False), rng.choice(W.N, 25, replace=False)
        expected = W.columns(I).T @ W.columns(K)
        got = _MarginalGram(W).block(I, K)
        assert got.dtype == np.float64 and np.array_equal(got, expected)
    bad = _MarginalGram(whole)                      # the control: a table off by one cell count is caught
    bad.f = bad.f + (np.arange(whole.N) == 3)
    I = np.arange(8)
    assert not np.array_equal(bad.block(I, I), whole.columns(I).T @ whole.columns(I))


def _certified_close(a, b, m):
    """Two certified projections agree within the sum of their certified distances (plus rounding)."""
    return np.linalg.norm(a.answers - b.answers) <= a.certified_distance + b.certified_distance + 1e-9 * math.sqrt(m)


@pytest.mark.parametrize("make, sigma", [(lambda: k_way_marginals(10, 3), 0.03), (lambda: k_way_marginals(10, 3), 0.3),
                                         (lambda: k_way_marginals(12, 3), 0.03),
                                         (lambda: k_way_marginals(12, 2), 0.03), (lambda: conjunctions(9, 3), 0.05),
                                         (lambda: random_queries(300, 40, rng=4), 0.05),
                                         (lambda: range_queries(200, m=60, rng=5), 0.02)])
def test_active_set_solver_agrees_with_the_previous_solver(make, sigma):
    """The warm-started active-set solver and the previous NNLS solver (the reference for the fast path) reach
    the same projection within their certified distances, both certified below tol; and the fast path's
    certificate is honest: its gap is recomputed here from its own weights."""
    from dpbook.projection import _project_nnls
    W = make()
    rng = np.random.default_rng(SEED)
    y = W.answers(rng.integers(0, 3, size=W.N)) + sigma * rng.normal(size=W.m)
    fast, ref = project_onto_hull(y, W), _project_nnls(y, W)
    assert fast.converged and ref.converged
    assert _certified_close(fast, ref, W.m)
    assert math.sqrt(2 * fast.gap / W.m) <= 1e-4
    assert np.all(fast.weights > 0) and abs(fast.weights.sum() - 1) < 1e-9
    w = np.zeros(W.N)
    w[fast.support] = fast.weights
    z = W.apply(w)
    assert np.allclose(z, fast.answers, atol=1e-9)
    g = W.rmatvec(z - y)
    assert float((z - y) @ z - g.min()) <= fast.gap + 1e-9


def test_active_set_solver_agrees_with_plain_frank_wolfe():
    """Against the readable reference (Frank–Wolfe with exact line search) on a small marginal workload."""
    W = k_way_marginals(6, 2)
    rng = np.random.default_rng(SEED + 1)
    y = W.answers(rng.integers(0, 3, size=W.N)) + 0.1 * rng.normal(size=W.m)
    fast, ref = project_onto_hull(y, W, tol=1e-6), project_reference(y, W, iterations=20_000)
    assert _certified_close(fast, ref, W.m)
    assert np.linalg.norm(fast.answers - ref.answers) <= 1e-2          # and FW's own gap is small enough to say so


def test_active_set_breakdown_falls_back_to_the_previous_solver(monkeypatch):
    """If the active-set method gives up, the result is the previous solver's, byte for byte."""
    import dpbook.projection as proj
    W = k_way_marginals(8, 2)
    rng = np.random.default_rng(SEED + 2)
    y = W.answers(rng.integers(0, 3, size=W.N)) + 0.05 * rng.normal(size=W.m)
    monkeypatch.setattr(proj._ActiveSet, "solve", lambda self, *a, **k: False)
    got, ref = project_onto_hull(y, W), proj._project_nnls(y, W)
    assert got.answers.tobytes() == ref.answers.tobytes() and np.array_equal(got.support, ref.support)


def test_projection_refuses_a_universe_too_large_for_its_gradient():
    from dpbook.projection import project_onto_hull
    W = SparseQueryWorkload(1 << 32, [[(5, 1.0)], [(9, 1.0)]])
    with pytest.raises(ValueError, match="too large"):
        project_onto_hull(np.array([0.2, 0.3]), W)


def test_the_factor_updates_equal_a_cholesky_from_scratch():
    """The active set's factor (appends in place, deletes by Givens on the trailing rows) against the short
    reference: after every change, RᵀR = Ĝ_PP and RᵀY = [c_P, 1] for the atoms it holds, its KKT solves equal
    numpy's, and an atom affinely dependent on the held ones (a repeated column) is refused."""
    from dpbook.projection import _Factor
    W = k_way_marginals(7, 3)
    rng = np.random.default_rng(SEED)
    B = W.columns(np.arange(W.N))
    G_hat = B.T @ B + W.m                                     # Ĝ = G + σ 11ᵀ with σ = max diag = m here
    c = B.T @ rng.normal(size=W.m)
    F, held = _Factor(), []

    def append(atoms):
        got = F.append(G_hat[np.ix_(held, atoms)], G_hat[np.ix_(atoms, atoms)],
                       np.column_stack([c[atoms], np.ones(len(atoms))]))
        held.extend(atoms[j] for j in got)
        return got

    def check():
        p = len(held)
        R, Y = np.triu(F.buf[:p, :p]), F.Y[:p]
        np.testing.assert_allclose(R.T @ R, G_hat[np.ix_(held, held)], rtol=1e-10, atol=1e-8 * W.m)
        np.testing.assert_allclose(R.T @ Y, np.column_stack([c[held], np.ones(p)]), rtol=1e-9, atol=1e-9)
        assert np.array_equal(F.buf[p:, p:], np.eye(F.buf.shape[0] - p)) and not F.buf[:p, p:].any()
        u, v = F.kkt()
        np.testing.assert_allclose(np.column_stack([u, v]), np.linalg.solve(G_hat[np.ix_(held, held)],
                                   np.column_stack([c[held], np.ones(p)])), rtol=1e-6, atol=1e-9)

    assert append([5]) == [0]
    check()
    for _ in range(12):
        fresh = [int(a) for a in rng.choice(np.setdiff1d(np.arange(W.N), held), 6, replace=False)]
        append(fresh)
        check()
        for i in sorted(rng.choice(len(held), 2, replace=False).tolist(), reverse=True):
            F.delete(i)
            del held[i]
            check()
    p = len(held)
    assert append([held[0]]) == [] and len(held) == p          # a repeated atom is dependent: refused
    F.delete(p - 1)                                            # the last position (no rotation needed)
    del held[-1]
    check()


# --- what importing chapter 13's modules costs -----------------------------------------------------------------

def _scipy_loaded_after(statement: str) -> set[str]:
    import pathlib
    import subprocess
    import sys
    code = f"import sys\n{statement}\nprint(' '.join(m for m in sys.modules if m.startswith('scipy.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(__file__).resolve().parents[1])
    return set(out.stdout.split())


def test_importing_the_projection_modules_does_not_load_scipy_optimize_or_spatial():
    """scipy.optimize (~0.3 s) is only the NNLS fallback's, and the widget's 2-D hull is a monotone chain, not
    scipy.spatial (~0.1 s): chapter 13's first cell pays neither.  The control calls the fallback (can fail)."""
    loaded = _scipy_loaded_after("import dpbook.projection, dpbook.explorers.projection, dpbook.comparisons.projection")
    assert "scipy.linalg" in loaded and not {"scipy.optimize", "scipy.spatial"} & loaded
    assert "scipy.optimize" in _scipy_loaded_after(
        "import numpy as np\nfrom dpbook.projection import _simplex_least_squares\n"
        "_simplex_least_squares(np.eye(2), np.array([1.0, 0.0]), np.array([0.5, 0.5]))")


def test_the_widgets_hull_matches_the_convex_hull():
    """_hull_2d (Andrew's monotone chain) gives the vertices scipy's Qhull gives, counter-clockwise; collinear points
    give the segment's two ends."""
    from scipy.spatial import ConvexHull
    from dpbook.explorers.projection import _hull_2d
    pts = np.random.default_rng(SEED).random((300, 2))
    hull = _hull_2d(pts)
    assert sorted(map(tuple, hull)) == sorted(map(tuple, np.round(pts[ConvexHull(pts).vertices], 12)))
    edges = np.roll(hull, -1, axis=0) - hull
    assert np.all(edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0] > 0)
    assert _hull_2d(np.array([[0.0, 0.0], [2.0, 2.0], [0.5, 0.5], [1.0, 1.0]])).tolist() == [[0.0, 0.0], [2.0, 2.0]]
    assert _hull_2d(np.array([[1.0, 1.0], [1.0, 1.0]])).tolist() == [[1.0, 1.0]]


def test_simplex_width_agrees_with_adaptive_quadrature_without_importing_it():
    """The trapezoid rule behind simplex_gaussian_width against scipy.integrate.quad (1e-11 relative, m up to its
    10^6 limit), and a fresh process that evaluates it loads no scipy.integrate (chapter 13's one use of it: ~0.3 s
    of CPU with the scipy.optimize it imports); the probe sees the module when something does load it."""
    import pathlib
    import subprocess
    import sys
    from scipy import integrate
    from scipy.special import ndtr
    for m in (2, 3, 5, 20, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6):
        f = lambda t: t * m * np.exp(-t * t / 2) / math.sqrt(2 * math.pi) * ndtr(t) ** (m - 1)
        assert math.isclose(simplex_gaussian_width(m), integrate.quad(f, -40, 40, limit=200)[0], rel_tol=1e-11), m
    assert simplex_gaussian_width(1) == 0.0
    code = ("import sys\nfrom dpbook.theory.projection import simplex_gaussian_width\nsimplex_gaussian_width(20)\n{}"
            "print('scipy.integrate' in sys.modules)")
    run = lambda extra: subprocess.run([sys.executable, "-c", code.format(extra)], capture_output=True, text=True,
                                       check=True, cwd=pathlib.Path(__file__).resolve().parents[1]).stdout.strip()
    assert run("") == "False"
    assert run("import scipy.integrate\n") == "True"                                     # the check can fail
