"""Chapter 16: smooth queries from a private Chebyshev summary (SMOOTH-Alg1/Alg2, SMOOTH-Thm3.1, erratum SMOOTH-E1)."""
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from numpy.polynomial import chebyshev as npcheb
from scipy.special import iv

from dpbook.audit import audit, audit_cases
from dpbook.broken.smooth import per_query_laplace_no_split, per_query_laplace_unchecked_shape, smooth_summary_paper_scale
from dpbook.data import load_diabetes
from dpbook.experiments import failure_rate
from dpbook.smooth import (SmoothSummary, answer_query, approximation_error, box_query, check_points,
                           chebyshev_basis, chebyshev_coefficients, chebyshev_evaluate, jackson_coefficients, chebyshev_moments,
                           chebyshev_moments_reference, cosine_query, gaussian_bump, kink_query, per_query_laplace,
                           polynomial_query, sigmoid_query, smooth_norm, smooth_query, smooth_summary,
                           synthetic_points, true_answer)
from dpbook.theory import smooth as th


# --- SMOOTH-Def: Chebyshev = even trigonometric ------------------------------------------------------------

def test_chebyshev_basis_is_cos_m_arccos():
    x = np.linspace(-1, 1, 1001)
    V = chebyshev_basis(x, 40)
    assert np.max(np.abs(V - np.cos(np.outer(np.arccos(x), np.arange(40))))) <= 1e-12


@pytest.mark.parametrize("d, t", [(1, 7), (2, 5), (3, 4)])
def test_fast_moments_match_the_definition(d, t):
    X = synthetic_points(300, d, rng=1)
    assert np.max(np.abs(chebyshev_moments(X, t) - chebyshev_moments_reference(X, t))) <= 1e-13


def test_moments_cross_block_boundaries():
    X = synthetic_points(70_000, 2, rng=2)                   # > 2 blocks of the kernel
    ref = np.array([[np.mean(npcheb.chebval(X[:, 0], np.eye(4)[i]) * npcheb.chebval(X[:, 1], np.eye(4)[j]))
                     for j in range(4)] for i in range(4)])
    assert np.allclose(chebyshev_moments(X, 4), ref, atol=1e-13)


# --- SMOOTH-Alg2: coefficients ------------------------------------------------------------------------------

def test_coefficients_match_numpy_chebyshev_and_bessel():
    t = 12
    c = chebyshev_coefficients(lambda X: np.exp(X[:, 0]), 1, t)
    bessel = 2 * iv(np.arange(t), 1.0)
    bessel[0] /= 2                                           # exp(x) = I0(1) + 2 sum I_m(1) T_m(x)
    assert np.max(np.abs(c - bessel)) <= 1e-14
    for f in (np.cos, lambda x: 1 / (1 + 4 * x ** 2), lambda x: x ** 5 - 2 * x ** 2):
        ref = npcheb.chebinterpolate(f, 60)[:t]
        assert np.max(np.abs(chebyshev_coefficients(lambda X: f(X[:, 0]), 1, t, M=80) - ref)) <= 1e-12


def test_coefficients_2d_separable():
    c = chebyshev_coefficients(lambda X: np.exp(X[:, 0]) * np.cos(X[:, 1]), 2, 6)
    a = chebyshev_coefficients(lambda X: np.exp(X[:, 0]), 1, 6)
    b = chebyshev_coefficients(lambda X: np.cos(X[:, 0]), 1, 6)
    assert np.max(np.abs(c - np.outer(a, b))) <= 1e-14


@pytest.mark.parametrize("d, t", [(1, 6), (2, 4), (3, 3)])
def test_exact_on_polynomials_of_degree_below_t_without_noise(d, t):
    rng = np.random.default_rng(d)
    q = polynomial_query(rng.normal(size=(t,) * d), K=2)
    X = synthetic_points(500, d, rng=3)
    exact = SmoothSummary(chebyshev_moments(X, t), t, d, 2, 500, 1.0, 0.0, "exact", 0.0)
    assert answer_query(exact, q) == pytest.approx(true_answer(X, q), abs=1e-12)
    assert approximation_error(q, d, t) <= 1e-12


@pytest.mark.parametrize("K", [1, 2, 3])
def test_approximation_error_falls_like_t_to_the_minus_K(K):
    ts = np.array([16, 32, 64, 128])
    q = kink_query(0.1, 1, K)
    slope = np.polyfit(np.log(ts), np.log([approximation_error(q, 1, int(t)) for t in ts]), 1)[0]
    assert -K - 0.4 <= slope <= -K + 0.4


@pytest.mark.parametrize("K", [1, 2, 3])
def test_jackson_coefficients_same_rate_larger_constant(K):
    """SMOOTH-Thm3.2 option (b): the paper-style operator also reaches t^(-K), with a larger error than interpolation."""
    lam = th.jackson_multipliers(16, K)
    assert lam[0] == 1.0 and np.all(np.isfinite(lam))
    ts, q, x = np.array([16, 32, 64, 128]), kink_query(0.1, 1, K), np.linspace(-1, 1, 2001)[:, None]
    errs = np.array([np.max(np.abs(q(x) - chebyshev_evaluate(jackson_coefficients(q, 1, int(t), K), x))) for t in ts])
    assert -K - 0.4 <= np.polyfit(np.log(ts), np.log(errs), 1)[0] <= -K + 0.4
    assert np.all(errs >= np.array([approximation_error(q, 1, int(t)) for t in ts]))
    assert np.allclose(jackson_coefficients(lambda X: np.full(len(X), 0.7), 2, 5, K), np.pad([[0.7]], (0, 4)))


def test_approximation_error_over_several_degrees_and_worst_point():
    from dpbook.smooth import worst_point
    for d, q in ((1, kink_query(0.1, 1, 2)), (2, gaussian_bump(0.2, 0.5, 2, 2)), (3, sigmoid_query(1.0, 0.3, 3, 2))):
        ts = [1, 2, 3, 5]
        gammas = approximation_error(q, d, ts)
        assert gammas.shape == (4,) and np.allclose(gammas, [approximation_error(q, d, t) for t in ts], rtol=0, atol=1e-15)
        # the definition on the grid's points, evaluated point by point
        g = {1: 2001, 2: 161}.get(d, 41)
        x = np.linspace(-1, 1, g)
        pts = np.stack([m.ravel() for m in np.meshgrid(*([x] * d), indexing="ij")], axis=1)
        direct = np.abs(q(pts) - chebyshev_evaluate(chebyshev_coefficients(q, d, 3), pts))
        assert gammas[2] == pytest.approx(direct.max(), abs=1e-13)
        gamma, x_star = worst_point(q, d, 3)
        assert gamma == gammas[2] and x_star.shape == (d,)
        assert abs(q(x_star[None])[0] - chebyshev_evaluate(chebyshev_coefficients(q, d, 3), x_star[None])[0]) \
            == pytest.approx(gamma, abs=1e-13)
    for bad, exc in (([], ValueError), ([1.5, 2], ValueError), (np.zeros((2, 2), int), ValueError)):
        with pytest.raises(exc, match="degree_bound"):
            approximation_error(kink_query(0.1, 1, 2), 1, bad)
    with pytest.raises(ValueError, match="degree_bound"):
        worst_point(kink_query(0.1, 1, 2), 1, 0)


def test_approximation_error_over_degrees_evaluates_f_on_the_grid_once():
    """The widget's γ(t) curve (explore_smooth) at d = 3: f on the 41^3 grid once, not once per degree."""
    sizes = []

    def f(X):
        sizes.append(len(X))
        return np.cos(X).prod(axis=1)
    approximation_error(f, 3, [1, 2, 3, 4, 5])
    assert sizes.count(41 ** 3) == 1 and len(sizes) == 6           # + the 5 interpolations on the Lobatto nodes


def test_make_query_builds_the_chapter_queries_once():
    from dpbook.smooth import QUERIES, make_query
    for name in QUERIES:
        for d in (1, 2, 3):
            q = make_query(name, d, 2)
            assert q.d == d and make_query(name, d, 2) is q          # cached: built once, immutable
            assert np.all(np.abs(q(synthetic_points(50, d, rng=0))) <= q.B + 1e-12)
    assert make_query("kink", 1, 3).K == 3 and make_query("box (non-smooth)", 1, 3).K == 0
    with pytest.raises(ValueError, match="name"):
        make_query("nope", 1, 2)
    with pytest.raises(TypeError, match="name"):
        make_query(3, 1, 2)
    with pytest.raises(ValueError, match="d"):
        make_query("kink", 4, 2)
    with pytest.raises(ValueError, match="K"):
        make_query("kink", 1, 0)


def test_box_control_does_not_converge():
    q = box_query(-0.3, 0.4, 1)
    assert min(approximation_error(q, 1, t) for t in (8, 32, 128)) >= 0.4       # Gibbs: sup error never falls


def test_smooth_norm_and_rescaling():
    assert smooth_norm(lambda X: np.cos(3 * X[:, 0]), 1, 2) == pytest.approx(9.0, rel=1e-6)
    assert smooth_norm(lambda X: X[:, 0] ** 3, 1, 3) == pytest.approx(6.0, rel=1e-9)
    for q in (gaussian_bump(0.2, 0.5, 2, 3), sigmoid_query([1.0, 2.0], 0.3, 2, 2)):
        assert smooth_norm(q, q.d, q.K) == pytest.approx(1.0, rel=1e-6)
    q = cosine_query(2.5, 0.3, 1, 3)
    assert smooth_norm(q, 1, q.K) <= 1.0 + 1e-6                                # the analytic bound is an upper bound
    q, x = kink_query(0.1, 1, 4), np.linspace(-1, 1, 4001)                  # not analytic: finite differences
    f, h = q(x[:, None]), x[1] - x[0]
    derivs = [f]
    for _ in range(4):
        derivs.append(np.diff(derivs[-1]) / h)
    assert max(np.max(np.abs(v)) for v in derivs) <= 1.0 + 1e-2
    assert max(np.max(np.abs(v)) for v in derivs) >= 0.9                       # and the rescaling is not loose


# --- privacy ------------------------------------------------------------------------------------------------

def test_summary_release_fields_and_ledger():
    X = synthetic_points(10_000, 2, rng=4)
    s = smooth_summary(X, epsilon=0.7, K=4)
    assert s.degree_bound == th.summary_degree(10_000, 2, 4) == 3
    assert s.epsilon == 0.7 and s.delta == 0.0 and s.neighbours == "replace-one"
    assert sum(sp.epsilon for sp in s.ledger) == pytest.approx(0.7)
    assert s.noise_scale == pytest.approx(2 * 8 / (10_000 * 0.7))
    assert s.moments[0, 0] == 1.0                                              # the constant moment is exact
    assert s.answers.shape == (9,)
    b = smooth_summary(X, epsilon=0.7, K=4, trials=5, rng=0)
    assert b.moments.shape == (5, 3, 3) and b.answers.shape == (5, 9) and np.all(b.moments[:, 0, 0] == 1.0)
    assert answer_query(b, cosine_query(1.0, 0.0, 2, 4)).shape == (5,)


def test_summary_sensitivity_is_within_the_corrected_bound():
    """PA(i): over many random replace-one pairs the moments move by at most 2(t^d - 1)/n in L1."""
    rng = np.random.default_rng(5)
    for d, t in [(1, 10), (2, 4), (3, 3)]:
        X = synthetic_points(50, d, rng=rng)
        base = chebyshev_moments(X, t)
        for _ in range(50):
            Y = X.copy()
            Y[rng.integers(50)] = rng.choice([-1.0, 1.0], d) * rng.random(d) ** 0.2
            assert np.abs(chebyshev_moments(Y, t) - base).sum() <= th.summary_sensitivity(t, d, 50) + 1e-12


def test_erratum_witness_exceeds_the_paper_scale():
    """SMOOTH-E1, closed form: the witness pair moves the moments by 11.58/n > t/n, a loss of 1.158 ε."""
    delta, a, b = th.exact_sensitivity_1d(10)
    assert round(delta, 2) == 11.58 and a == pytest.approx(0.0, abs=1e-6) and round(b, 3) == 0.473
    moved = np.abs(chebyshev_moments(np.array([1.0]), 10) - chebyshev_moments(np.array([math.cos(b)]), 10)).sum()
    assert moved == pytest.approx(delta, rel=1e-9)
    assert th.paper_scale_privacy_loss(10, 1.0) == pytest.approx(1.1583, abs=1e-4)
    assert moved / (2 * 9) < 1 < moved / 10                                    # corrected scale OK, paper's not


def test_audit_of_the_summary_and_the_paper_scale_control():
    (tight,) = audit_cases(names=["smooth_summary"])
    res = tight.run(11)
    assert 0.7 * tight.epsilon <= res.epsilon_lb <= tight.epsilon
    (control,) = audit_cases(names=["smooth_summary_paper_scale"])
    assert control.run(12).epsilon_lb > control.epsilon                        # the erratum's witness is caught


def test_direct_audit_of_the_1d_summary_and_its_broken_twin():
    """A 1-D audit written out (t = 3, x = 1 vs x' = -1/4: the L1 move is 3.125, the paper's scale assumes 3)."""
    def sampler(fn, x):
        return lambda trials, rng: fn(np.array([x]), epsilon=4.0, K=1, degree_bound=3, trials=trials, rng=rng).moments
    event = {"o_1 >= 1 and o_2 >= 1": lambda o: (o[:, 1] >= 1) & (o[:, 2] >= 1)}
    ok = audit(sampler(smooth_summary, 1.0), sampler(smooth_summary, -0.25), event, trials=400_000, rng=3)
    assert ok.epsilon_lb <= 4.0                                 # true loss on the event 3.125·4/4 = 3.125
    bad = audit(sampler(smooth_summary_paper_scale, 1.0), sampler(smooth_summary_paper_scale, -0.25), event,
                trials=400_000, rng=3)
    assert bad.epsilon_lb > 3.6                                 # true loss 3.125·4/3 = 4.17 > 4 (weak witness)


def test_per_query_laplace_audit_and_no_split_control():
    queries = [lambda X: X[:, 0], lambda X: X[:, 0]]
    def s(fn, x):
        return lambda trials, rng: fn(np.array([[x]]), queries, epsilon=1.0, trials=trials, rng=rng).answers
    ev = {"both >= 1": lambda y: np.all(y >= 1, axis=1)}
    assert audit(s(per_query_laplace, 1.0), s(per_query_laplace, -1.0), ev, trials=200_000, rng=1).epsilon_lb <= 1
    assert audit(s(per_query_laplace_no_split, 1.0), s(per_query_laplace_no_split, -1.0), ev, trials=200_000,
                 rng=1).epsilon_lb > 1
    # NaN -> 0, 5 -> B = 1: mean 0.5 (at ε = 1e12 the noise, Lap(2e-12), is far below the tolerance)
    wild = per_query_laplace(np.array([[0.5], [0.1]]), [lambda X: np.where(X[:, 0] > 0.3, np.nan, 5.0)],
                             epsilon=1e12, B=1.0, trials=2, rng=0)
    assert np.allclose(wild.answers, 0.5, atol=1e-9) and "exact" not in wild.trace
    r = per_query_laplace(np.array([[0.5]]), queries, epsilon=1.0)
    assert sum(sp.epsilon for sp in r.ledger) == pytest.approx(1.0) and r.neighbours == "replace-one"


HOSTILE_QUERIES = {
    "a slice of 10 rows": (lambda Z: Z[:10, 0], "shape \\(10,\\)"),
    "one entry": (lambda Z: Z[0, 0], "shape \\(\\)"),
    "the sum": (lambda Z: Z.sum(), "shape \\(\\)"),
    "a constant vector": (lambda Z: np.ones(5), "shape \\(5,\\)"),
    "one value per coordinate": (lambda Z: Z.mean(axis=0), "shape \\(1,\\)|shape \\(2,\\)"),
    "two values per row": (lambda Z: np.concatenate([Z[:, 0], Z[:, 0]]), "shape \\(2,\\)|shape \\(34,\\)"),
}


@pytest.mark.parametrize("label", list(HOSTILE_QUERIES))
@pytest.mark.parametrize("fn", [per_query_laplace, per_query_laplace_no_split])
def test_per_query_laplace_refuses_a_callable_that_reduces(fn, label):
    """The mean is over the n rows: a callable that returns anything but one value per row is refused, by the
    parameter's name and the shape found, on public rows before the data are touched."""
    f, shape = HOSTILE_QUERIES[label]
    seen = []
    def spy(Z):
        seen.append(np.array(Z))
        return f(Z)
    X = synthetic_points(100, 2, rng=0) * 0.5                       # no row of the data is a probe row
    with pytest.raises(ValueError, match=f"queries\\[1\\] must return one value per row.*({shape})"):
        fn(X, [lambda Z: Z[:, 0], spy], epsilon=1.0, rng=0)
    assert seen and not any(np.isin(Z, X).any() for Z in seen)     # only public rows were shown to the callable


@pytest.mark.parametrize("f, exc", [(lambda Z: Z[:, 0].astype(complex), TypeError), (lambda Z: "a", TypeError),
                                    (lambda Z: [[1.0], [1.0, 2.0]], ValueError), (lambda Z: None, TypeError)])
def test_per_query_laplace_refuses_a_callable_that_returns_no_numbers(f, exc):
    with pytest.raises(exc, match="queries\\[0\\]"):
        per_query_laplace(synthetic_points(20, 1, rng=0), [f], epsilon=1.0, rng=0)


def test_per_query_laplace_evaluates_a_callable_it_did_not_build_row_by_row():
    """``np.full(len(Z), Z[0, 0])`` has the right shape but copies row 0 into every row (a mean with
    sensitivity 2B instead of 2B/n): evaluated row by row it is the mean of the rows.  The library's own
    queries (row-local by construction) are evaluated at once; a copy made by ``dataclasses.replace`` is not."""
    import dataclasses
    X = synthetic_points(300, 1, rng=1)
    copy_row0 = lambda Z: np.full(len(Z), Z[0, 0])
    r = per_query_laplace(X, [copy_row0], epsilon=1e12, rng=0)
    assert r.answers[0] == pytest.approx(X[:, 0].mean(), abs=1e-9)
    assert abs(r.answers[0] - X[0, 0]) > 0.1                         # the broken twin's answer is row 0's value
    bad = per_query_laplace_unchecked_shape(X, [copy_row0], epsilon=1e12, rng=0)
    assert bad.answers[0] == pytest.approx(X[0, 0], abs=1e-9)
    calls = []
    q = cosine_query(2.0, 0.3, 1, 2)
    counted = dataclasses.replace(q, fn=lambda Z: (calls.append(len(Z)), q.fn(Z))[1])
    a = per_query_laplace(X, [q], epsilon=1e12, rng=0).answers
    b = per_query_laplace(X, [counted], epsilon=1e12, rng=0).answers
    assert a == pytest.approx(b, abs=1e-9) and a[0] == pytest.approx(true_answer(X, q), abs=1e-9)
    assert calls.count(1) == 1 + 300 and 300 not in calls            # the replaced fn: probes, then row by row
    with pytest.raises(ValueError, match="queries\\[0\\] is a query on d \\(2\\)"):
        per_query_laplace(X, [cosine_query(1.0, 0.0, 2, 2)], epsilon=1.0, rng=0)


def test_releases_carry_no_exact_values():
    X = synthetic_points(200, 1, rng=0)
    s = smooth_summary(X, epsilon=1.0, K=2, rng=0)
    assert set(s.trace) == {"sensitivity"}
    assert set(per_query_laplace(X, [np.cos], epsilon=1.0, rng=0).trace) == {"sensitivity"}
    assert "exact_moments" not in smooth_summary_paper_scale(X, epsilon=1.0, K=2, rng=0).trace


@pytest.mark.parametrize("call", [lambda f: chebyshev_coefficients(f, 1, 4), lambda f: approximation_error(f, 1, 4),
                                  lambda f: true_answer(X1, f), lambda f: smooth_norm(f, 1, 2)])
@pytest.mark.parametrize("f", [lambda Z: Z[0, 0], lambda Z: np.ones(5), lambda Z: Z.sum()])
def test_data_free_functions_check_the_query_shape(call, f):
    with pytest.raises(ValueError, match="f must return one value per row"):
        call(f)


# --- accuracy (SMOOTH-Thm3.1 with the query-specific bound) ------------------------------------------------

def test_accuracy_at_the_stated_probability_on_diabetes():
    """γ_f + λ_β holds with probability >= 1 - β (t from the theorem, and a larger public t = 10 where the noise
    dominates); a third of the bound fails at t = 10, so the check can fail."""
    ds = load_diabetes()
    X = ds.points[:, [ds.columns.index("bmi")]]
    beta, trials = 0.05, 4000
    for t in (None, 10):
        s = smooth_summary(X, epsilon=1.0, K=2, degree_bound=t, trials=trials, rng=6)
        for q in (gaussian_bump(0.2, 0.5, 1, 2), sigmoid_query(2.0, 0.3, 1, 2), kink_query(0.1, 1, 2),
                  cosine_query(2.0, 0.4, 1, 2)):
            c = chebyshev_coefficients(q, 1, s.degree_bound)
            bound = th.answer_error_bound(approximation_error(q, 1, s.degree_bound), s.noise_scale, c[1:], beta)
            err = np.abs(answer_query(s, q) - true_answer(X, q))
            assert failure_rate(err, bound).consistent_with(beta)
            if t == 10:
                assert not failure_rate(err, bound / 3).consistent_with(beta)


# --- theory: hand-computed values ---------------------------------------------------------------------------

def test_theory_hand_values():
    assert th.summary_degree(10 ** 4, 1, 2) == 10 and th.summary_degree(9999, 1, 2) == 9
    assert th.summary_degree(3 ** 8, 2, 4) == 3 and th.summary_degree(1, 3, 5) == 1
    assert th.summary_sensitivity(10, 1, 1) == 18.0 and th.summary_sensitivity(3, 2, 4) == 4.0
    assert th.summary_noise_scale(100, 10, 1, 0.5) == pytest.approx(0.36)
    assert th.paper_noise_scale(100, 10, 1, 0.5) == pytest.approx(0.2)
    assert th.coefficient_bound(2, 4, 1.0) == 3844.0                          # the paper's constant
    assert th.accuracy_exponent(1, 2) == -0.5 and th.summary_time_exponent(1, 2) == 1.25
    assert th.query_time_exponent(1, 1) == pytest.approx(5 / 3) and th.dct_query_time_exponent(2, 4) == 0.25
    e = th.table1_exponents(1, 6)
    assert e["accuracy"] == -0.75 and e["beats_sampling"] and not th.table1_exponents(2, 4)["beats_sampling"]
    # t = 5, M = 2^1 (2^3 - 1) = 14: 14 + 2·14·25/(10^4·1) at n = 5^4 ... use n = 625, d = 1, K = 2
    # Jackson multipliers, t = 1: only λ_0 = 1; K = 1, t = 4: r = 2, t' = 2, h = (1,2,1)*(1,2,1) = (1,4,6,4,1),
    # Ĥ(1) = 4/6, Ĥ(2) = 1/6, so λ_1 = 2·(4/6) - 1/6 = 7/6 and λ_2 = 2·(1/6) = 1/3, λ_3 = 0
    assert np.allclose(th.jackson_multipliers(1, 3), [1.0])
    assert np.allclose(th.jackson_multipliers(4, 1), [1.0, 7 / 6, 1 / 3, 0.0])
    assert th.worst_case_accuracy(625, 1, 2, 1.0) == pytest.approx(5 ** -2 + 2 * 14 * 25 / 625)
    # weighted Laplace tail: weights (1, 1), b = 1, β = 0.05: λ = sqrt(12 ln 40) = 6.647, first regime (<= 4.24?)
    lam1 = math.sqrt(12 * math.log(40))
    assert lam1 > 3 * 2 / math.sqrt(2)                                        # beyond the first regime, so:
    assert th.weighted_laplace_quantile(0.05, 1.0, [1, 1]) == pytest.approx(math.sqrt(2) * (1.5 + math.log(40)))
    many = np.ones(100)
    assert th.weighted_laplace_quantile(0.05, 1.0, many) == pytest.approx(math.sqrt(600 * math.log(40)))
    assert th.weighted_laplace_tail_bound(math.sqrt(600 * math.log(40)), 1.0, many) == pytest.approx(0.05)
    assert th.answer_error_bound(0.1, 1.0, many, 0.05) == pytest.approx(0.1 + math.sqrt(600 * math.log(40)))


def test_weighted_laplace_tail_bound_holds():
    rng = np.random.default_rng(8)
    c = rng.normal(size=30)
    Y = rng.laplace(0, 1.0, size=(200_000, 30)) @ c
    for beta in (0.2, 0.05, 0.01):
        lam = th.weighted_laplace_quantile(beta, 1.0, c)
        assert failure_rate(np.abs(Y), lam).consistent_with(beta)


# --- bad input ----------------------------------------------------------------------------------------------

X1 = np.array([[0.1], [-0.5], [0.9]])


@pytest.mark.parametrize("call, exc, name", [
    (lambda: smooth_summary(np.array([[0.1], [1.5]]), epsilon=1.0, K=2), ValueError, "points"),
    (lambda: smooth_summary(np.array([[0.1], [np.nan]]), epsilon=1.0, K=2), ValueError, "points"),
    (lambda: smooth_summary(np.array([[0.1], [np.inf]]), epsilon=1.0, K=2), ValueError, "points"),
    (lambda: smooth_summary(np.array([["a"]]), epsilon=1.0, K=2), TypeError, "points"),
    (lambda: smooth_summary(np.zeros((0, 2)), epsilon=1.0, K=2), ValueError, "points"),
    (lambda: smooth_summary(np.zeros((2, 7)), epsilon=1.0, K=2), ValueError, "d"),
    (lambda: smooth_summary(X1, epsilon=0.0, K=2), ValueError, "epsilon"),
    (lambda: smooth_summary(X1, epsilon=math.nan, K=2), ValueError, "epsilon"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=0), ValueError, "K"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=1.5), TypeError, "K"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=2, degree_bound=0), ValueError, "degree_bound"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=2, degree_bound=10 ** 7), ValueError, "degree_bound"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=2, trials=0), ValueError, "trials"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=2, rng="seed"), TypeError, "rng"),
    (lambda: smooth_summary(X1, epsilon=1.0, K=2, sampler=None), TypeError, "sampler"),
    (lambda: smooth_summary_paper_scale(X1, epsilon=-1.0, K=2), ValueError, "epsilon"),
    (lambda: smooth_summary_paper_scale(np.array([2.0]), epsilon=1.0, K=2), ValueError, "points"),
    (lambda: check_points(np.ones((3, 2)), d=3), ValueError, "d"),
    (lambda: chebyshev_basis(np.array([0.0, 2.0]), 3), ValueError, "points"),
    (lambda: chebyshev_basis(np.array([0.0]), 0), ValueError, "degree_bound"),
    (lambda: chebyshev_moments(X1, 0), ValueError, "degree_bound"),
    (lambda: chebyshev_moments(np.array([np.nan]), 2), ValueError, "points"),
    (lambda: chebyshev_moments_reference(X1, -1), ValueError, "degree_bound"),
    (lambda: chebyshev_coefficients("f", 1, 3), TypeError, "f"),
    (lambda: chebyshev_coefficients(np.cos, 0, 3), ValueError, "d"),
    (lambda: chebyshev_coefficients(np.cos, 1, 3, M=1), ValueError, "M"),
    (lambda: chebyshev_coefficients(lambda X: np.full(len(X), np.nan), 1, 3), ValueError, "NaN"),
    (lambda: chebyshev_evaluate(np.ones((2, 3)), X1), ValueError, "coefficients"),
    (lambda: jackson_coefficients(np.cos, 1, 3, 0), ValueError, "K"),
    (lambda: jackson_coefficients("f", 1, 3, 2), TypeError, "f"),
    (lambda: jackson_coefficients(np.cos, 1, 0, 2), ValueError, "degree_bound"),
    (lambda: chebyshev_evaluate(np.ones(3), np.ones((2, 2))), ValueError, "points"),
    (lambda: answer_query(np.ones(3), np.cos), TypeError, "summary"),
    (lambda: answer_query(smooth_summary(X1, epsilon=1.0, K=2), cosine_query(1.0, 0.0, 2, 2)), ValueError, "d"),
    (lambda: true_answer(X1, lambda X: np.ones(5)), ValueError, "f"),
    (lambda: true_answer(np.array([3.0]), np.cos), ValueError, "points"),
    (lambda: approximation_error(np.cos, 1, 3, grid=1), ValueError, "grid"),
    (lambda: approximation_error(None, 1, 3), TypeError, "f"),
    (lambda: smooth_norm(np.cos, 1, -1), ValueError, "K"),
    (lambda: smooth_query("q", np.cos, 1, 2, B=0.0), ValueError, "B"),
    (lambda: smooth_query("q", np.cos, 1, 0), ValueError, "K"),
    (lambda: cosine_query([1.0, 2.0], 0.0, 1, 2), ValueError, "omega"),
    (lambda: cosine_query(-1.0, 0.0, 1, 2), ValueError, "omega"),
    (lambda: cosine_query(1.0, math.nan, 1, 2), ValueError, "phase"),
    (lambda: gaussian_bump(0.0, 0.0, 1, 2), ValueError, "width"),
    (lambda: gaussian_bump([0.0, 0.1], 0.5, 1, 2), ValueError, "center"),
    (lambda: sigmoid_query(100.0, 0.0, 1, 2), ValueError, "w"),
    (lambda: sigmoid_query(1.0, math.inf, 1, 2), ValueError, "bias"),
    (lambda: polynomial_query(np.zeros(3), 2), ValueError, "coefficients"),
    (lambda: polynomial_query(np.ones((2, 3)), 2), ValueError, "coefficients"),
    (lambda: kink_query(1.5, 1, 2), ValueError, "a"),
    (lambda: box_query(0.5, 0.1, 1), ValueError, "lo"),
    (lambda: per_query_laplace(X1, [], epsilon=1.0), TypeError, "queries"),
    (lambda: per_query_laplace(X1, [np.cos], epsilon=1.0, B=-1.0), ValueError, "B"),
    (lambda: per_query_laplace(X1, [np.cos], epsilon=0.0), ValueError, "epsilon"),
    (lambda: per_query_laplace_no_split(X1, [np.cos], epsilon=math.inf), ValueError, "epsilon"),
    (lambda: th.weighted_laplace_tail_bound(1.0, 1.0, []), ValueError, "weights"),
    (lambda: th.weighted_laplace_tail_bound(-1.0, 1.0, [1.0]), ValueError, "lam"),
    (lambda: th.weighted_laplace_quantile(0.0, 1.0, [1.0]), ValueError, "beta"),
    (lambda: th.weighted_laplace_quantile(0.1, 1.0, [np.nan]), ValueError, "weights"),
    (lambda: th.answer_error_bound(-0.1, 1.0, [1.0], 0.1), ValueError, "gamma"),
    (lambda: th.summary_degree(100, 0, 2), ValueError, "d"),
    (lambda: th.summary_degree(100, 1, 0), ValueError, "K"),
])
def test_bad_input_names_the_parameter(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


# --- determinism --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [smooth_summary, smooth_summary_paper_scale])
def test_summary_determinism(fn):
    X = synthetic_points(200, 2, rng=0)
    a, b = fn(X, epsilon=1.0, K=2, trials=3, rng=9), fn(X, epsilon=1.0, K=2, trials=3, rng=9)
    assert np.array_equal(a.moments, b.moments)
    assert not np.array_equal(a.moments, fn(X, epsilon=1.0, K=2, trials=3, rng=10).moments)


@pytest.mark.parametrize("fn", [per_query_laplace, per_query_laplace_no_split])
def test_per_query_determinism(fn):
    X, qs = synthetic_points(200, 1, rng=0), [np.cos, np.sin]
    assert np.array_equal(fn(X, qs, epsilon=1.0, rng=4).answers, fn(X, qs, epsilon=1.0, rng=4).answers)
    assert not np.array_equal(fn(X, qs, epsilon=1.0, rng=4).answers, fn(X, qs, epsilon=1.0, rng=5).answers)


# --- the widget and the chapter's experiments ---------------------------------------------------------------

def test_explore_smooth_pure_and_valid():
    from dpbook.explorers.smooth import explore_smooth
    from dpbook.smooth import QUERIES
    lines = lambda fig: [np.asarray(l.get_ydata(), float).tolist() for ax in fig.axes for l in ax.lines]
    assert lines(explore_smooth()) == lines(explore_smooth())
    for d, q in [(2, QUERIES[1]), (3, QUERIES[4])]:
        explore_smooth(d=d, K=1, n=2000, query=q)
    plt.close("all")
    for kw, name in [(dict(d=0), "d"), (dict(K=0), "K"), (dict(n=5), "n"), (dict(epsilon=0), "epsilon"),
                     (dict(query="nope"), "query")]:
        with pytest.raises(ValueError, match=name):
            explore_smooth(**kw)


# --- the exact-sensitivity baseline and the uniform guess -----------------------------------------------------

def test_interpolated_l1_sensitivity_is_the_max_over_pairs_of_the_interpolants():
    from dpbook.smooth import interpolated_l1_sensitivity
    rng = np.random.default_rng(5)
    F = rng.uniform(-1, 1, (4, 9))
    brute = max(np.abs(F[:, a] - F[:, b]).sum() for a in range(9) for b in range(9))
    assert interpolated_l1_sensitivity(F) == pytest.approx(brute, abs=1e-12)
    # between nodes the interpolants never move more (convexity): a fine sample of points agrees
    axis = np.linspace(-1, 1, 9)
    u = np.linspace(-1, 1, 801)
    V = np.stack([np.interp(u, axis, f) for f in F])
    fine = max(np.abs(V - V[:, [j]]).sum(axis=0).max() for j in range(0, 801, 5))
    assert fine <= interpolated_l1_sensitivity(F) + 1e-12
    with pytest.raises(ValueError, match="node_values"):
        interpolated_l1_sensitivity(np.zeros(3))


def test_per_query_laplace_grid_mode_exact_scale_and_means():
    X = np.array([[0.25], [-0.5], [0.9]])
    half = lambda Z: Z[:, 0] / 2
    r = per_query_laplace(X, [half, half], epsilon=2.0, grid=2, rng=0)
    assert r.noise_scale == pytest.approx(2.0 / (3 * 2.0))             # exact L1 sensitivity 2, not 2Bk = 4
    exact = per_query_laplace(X, [half], epsilon=1e12, grid=2, rng=0).answers
    assert exact[0] == pytest.approx(X.mean() / 2, abs=1e-9)           # x/2 is its own interpolant
    constant = per_query_laplace(X, [lambda Z: np.ones(len(Z))], epsilon=1.0, grid=3, rng=0)
    assert abs(constant.answers[0] - 1) < 1e-6                          # data-independent: (almost) no noise needed
    for bad, match in [(1, "grid"), (10 ** 6, "grid")]:
        with pytest.raises(ValueError, match=match):
            per_query_laplace(X, [half], epsilon=1.0, grid=bad)
    with pytest.raises(ValueError, match="grid"):
        per_query_laplace(np.zeros((2, 2)), [lambda Z: Z[:, 0]], epsilon=1.0, grid=100)   # 100^2 nodes


def test_per_query_laplace_grid_audit_and_raw_values_twin():
    from dpbook.audit import audit_cases
    ok, twin = audit_cases(names=["per_query_laplace_exact_sensitivity", "per_query_laplace_grid_raw_values"])
    assert ok.run(3, trials=200_000).epsilon_lb <= ok.epsilon
    assert twin.run(3).epsilon_lb > twin.epsilon


def test_uniform_answer_is_the_mean_over_the_cube():
    from dpbook.smooth import uniform_answer
    assert uniform_answer(lambda Z: Z[:, 0] ** 2, 1) == pytest.approx(1 / 3)
    assert uniform_answer(lambda Z: Z[:, 0] ** 2 * Z[:, 1] ** 2, 2) == pytest.approx(1 / 9)
    assert uniform_answer(box_query(-0.3, 0.4, 1), 1, nodes=400) == pytest.approx(0.35, abs=5e-3)
    with pytest.raises(ValueError, match="d"):
        uniform_answer(lambda Z: Z[:, 0], 4)
    with pytest.raises(TypeError, match="fn"):
        uniform_answer(3.0, 1)


def test_per_query_laplace_grid_raw_values_refuses_bad_input():
    from dpbook.broken.smooth import per_query_laplace_grid_raw_values
    f = lambda Z: Z[:, 0]
    with pytest.raises(ValueError, match="epsilon"):
        per_query_laplace_grid_raw_values(np.zeros((2, 1)), [f], epsilon=-1.0)
    with pytest.raises(ValueError, match="grid"):
        per_query_laplace_grid_raw_values(np.zeros((2, 1)), [f], epsilon=1.0, grid=1)


def test_grid_nodes_is_the_product_grid_and_refuses_bad_sizes():
    from dpbook.smooth import MAX_GRID_NODES, grid_nodes
    axis, nodes = grid_nodes(3, 2)
    np.testing.assert_array_equal(axis, [-1.0, 0.0, 1.0])
    assert nodes.shape == (9, 2) and {tuple(v) for v in nodes} == {(a, b) for a in axis for b in axis}
    with pytest.raises(ValueError, match="grid"):
        grid_nodes(1, 2)
    with pytest.raises(ValueError, match="grid"):
        grid_nodes(MAX_GRID_NODES, 2)
    with pytest.raises(ValueError, match="d"):
        grid_nodes(3, 0)
    with pytest.raises(TypeError, match="grid"):
        grid_nodes("3", 1)


def test_chapter_figures_draw_and_refuse_bad_input():
    from dpbook.comparisons.smooth import PerQueryComparison, box_control, regime_sweep
    from dpbook.explorers.smooth import (figure_accuracy, figure_approximation, figure_per_query, figure_regimes,
                                         figure_sensitivity)
    t = np.array([4, 8, 16, 32])
    fig = figure_approximation(t, {"kink, K=1": 1 / t, "box": np.ones(4)}, {"kink, K=1": 1})
    assert len(fig.axes[0].lines) == 3 and fig.get_size_inches()[0] <= 9.6
    acc = {(4, "a"): dict(err=np.linspace(0, 1, 50), bound=1.0), (4, "b"): dict(err=np.zeros(5), bound=0.5)}
    assert len(figure_accuracy(acc, [0.1, 0.2], [0.3, 0.3], n=100, epsilon=1.0).axes) == 1
    ctrl = box_control(np.array([1000, 8000]), trials=20, rng=0)
    assert ctrl["box"].shape == (2,) and np.all(ctrl["box"] > ctrl["kink"])          # the box's error does not fall
    cmp = PerQueryComparison(np.array([1, 3]), np.ones(2), np.ones(2), np.ones(2), np.ones(2), 4)
    assert len(figure_per_query(cmp, ctrl).axes) == 2
    assert len(figure_regimes({"K=2": regime_sweep(1, 2, [6, 8], trials=20, repeat=1)}).axes) == 1
    assert len(figure_sensitivity(np.array([2, 3, 10]), np.array([2.0, 3.1, 11.6])).axes[0].lines) == 3
    plt.close("all")
    with pytest.raises(ValueError, match="degree_bounds"):
        figure_approximation([4], {"a": [1.0]}, {})
    with pytest.raises(TypeError, match="gammas"):
        figure_approximation(t, [], {})
    with pytest.raises(ValueError, match="baseline"):
        figure_accuracy(acc, [0.1], [0.3, 0.3], n=100, epsilon=1.0)
    with pytest.raises(ValueError, match="acc"):
        figure_accuracy({(4, "a"): dict(err=np.zeros(3))}, [0.1], [0.3], n=100, epsilon=1.0)
    with pytest.raises(ValueError, match="orders"):
        figure_approximation(t, {"a": 1 / t}, {"b": 1})
    with pytest.raises(ValueError, match="gammas"):
        figure_approximation(t, {"a": [1.0, np.nan, 1.0, 1.0]}, {"a": 1})
    with pytest.raises(TypeError, match="sweeps"):
        figure_regimes({"K=2": "not a sweep"})
    with pytest.raises(ValueError, match="control"):
        figure_per_query(cmp, {"n": ctrl["n"]})
    with pytest.raises(TypeError, match="cmp"):
        figure_per_query(None, ctrl)
    with pytest.raises(ValueError, match="exact"):
        figure_sensitivity([2, 3], [1.0])
    with pytest.raises(ValueError, match="degree_bounds"):
        figure_sensitivity([1, 3], [1.0, 2.0])
