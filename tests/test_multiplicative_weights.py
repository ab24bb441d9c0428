"""The multiplicative-weights update (IDC-AlgA.2 ≡ DR-Alg5) and its bounds (IDC-ThmA.4, ClaimA.5, LemmaA.6); the
fast kernels (dpbook/_mw_kernels.py) and every workload's update agree with the readable reference."""
import math

import numpy as np
import pytest

from dpbook import _mw_kernels as kernels
from dpbook.data import load_cancer
from dpbook.multiplicative_weights import (_support_update, check_distribution, idc_mw_update, kl_potential, marginal_cell_update,
                                           marginal_layout, multiplicative_weights_update, mw_bound, mw_update,
                                           mw_update_reference, uniform_hypothesis)
from dpbook.queries import MarginalWorkload, Workload, k_way_marginals, random_queries, range_queries
from dpbook.theory.mwem import mw_initial_potential_bound, mw_potential_drop


def _random_p(rng, N, zeros=0):
    p = rng.random(N)
    p[:zeros] = 0.0
    return p / p.sum()


def _reference(p, q, c):
    """p·exp(c q)/Σ in extended precision log space (the exact answer up to ~1e-18 relative)."""
    p, q = np.asarray(p, dtype=np.longdouble), np.asarray(q, dtype=np.longdouble)
    with np.errstate(divide="ignore"):
        g = np.log(p) + np.longdouble(c) * q
    g -= g.max()
    w = np.exp(g)
    return (w / w.sum()).astype(np.float64)


# --------------------------------------------------------------------------- the rule, by hand

def test_update_hand_computed():
    p, q = np.array([0.5, 0.25, 0.25]), np.array([1.0, 0.0, 0.5])
    w = p * np.exp(2.0 * q)                                   # [0.5e^2, 0.25, 0.25e]
    np.testing.assert_allclose(multiplicative_weights_update(p, q, 2.0), w / w.sum(), rtol=1e-15)
    e = math.e
    expected = np.array([0.5 * e ** 2, 0.25, 0.25 * e]) / (0.5 * e ** 2 + 0.25 + 0.25 * e)
    np.testing.assert_allclose(multiplicative_weights_update(p, q, 2.0), expected, rtol=1e-14)


@pytest.mark.parametrize("c", [0.0, 0.3, -0.3, 5.0, -5.0, 40.0, -40.0, 700.0, -700.0, 1e3, -1e3, 1e6, -1e6, 1e300])
def test_update_matches_exact_at_any_coefficient(c):
    rng = np.random.default_rng(1)
    p, q = _random_p(rng, 500, zeros=7), rng.random(500)
    got = multiplicative_weights_update(p, q, c)
    ref = _reference(p, q, c)
    assert np.all(np.isfinite(got)) and got.min() >= 0 and math.isclose(got.sum(), 1.0, rel_tol=1e-12)
    # entries above 1e-290: relative error ~ |c|·eps (the rounding of c·q itself); zeros stay zero
    big = ref > 1e-290
    tol = 1e-13 * max(1.0, abs(c) if abs(c) < 1e100 else 1.0)
    np.testing.assert_allclose(got[big], ref[big], rtol=tol)
    assert np.all(got[:7] == 0.0)
    if abs(c) < 1e100:
        assert np.all(np.abs(got[~big]) <= 1e-280)


def test_indicator_query_matches_float_query_and_exact():
    rng = np.random.default_rng(2)
    p = _random_p(rng, 256)
    ind = rng.random(256) < 0.3
    for c in [0.7, -0.7, 35.0, -35.0, 1e4, -1e4]:
        a = multiplicative_weights_update(p, ind, c)
        b = multiplicative_weights_update(p, ind.astype(float), c)
        # exact: mass a_on on the indicator; result = p e^{c 1[on]} / (a_on e^c + 1 - a_on), computed stably
        a_on, a_off = p[ind].sum(), p[~ind].sum()
        if c > 0:
            ref = np.where(ind, p, p * math.exp(-c)) / (a_on + a_off * math.exp(-c))
        else:
            ref = np.where(ind, p * math.exp(c), p) / (a_on * math.exp(c) + a_off)
        big = ref > 1e-290
        np.testing.assert_allclose(a[big], ref[big], rtol=1e-13)
        np.testing.assert_allclose(b[big], ref[big], rtol=1e-12 * max(1, abs(c)))


def test_underflow_guard_all_mass_where_factor_vanishes():
    # all mass where q = 1 and c = -1000: the linear factors underflow to 0, the answer is p unchanged
    p = np.array([0.5, 0.5, 0.0, 0.0])
    q = np.array([1.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(multiplicative_weights_update(p, q, -1000.0), p, rtol=1e-15)
    np.testing.assert_allclose(multiplicative_weights_update(p, q > 0, -1000.0), p, rtol=1e-15)
    # the tiny-mass side wins when the factor favours it by e^{1000}
    p = np.array([1 - 1e-300, 1e-300])
    out = multiplicative_weights_update(p, np.array([0.0, 1.0]), 1000.0)
    np.testing.assert_allclose(out, _reference(p, [0.0, 1.0], 1000.0), rtol=1e-12)
    assert out[1] > 1 - 1e-12


def test_many_rounds_equal_one_cumulative_update():
    # 20,000 rounds of random updates = one update by the summed exponents (exact in real arithmetic)
    rng = np.random.default_rng(3)
    N, rounds = 64, 20_000
    p0 = uniform_hypothesis(N)
    Q = rng.random((rounds, N))
    c = rng.normal(0, 2.0, rounds)
    p = p0.copy()
    for t in range(rounds):
        multiplicative_weights_update(p, Q[t], c[t], out=p, check=False)
    ref = _reference(p0, c @ Q, 1.0)
    big = ref > 1e-250
    np.testing.assert_allclose(p[big], ref[big], rtol=1e-8)
    assert np.all(np.isfinite(p)) and math.isclose(p.sum(), 1.0, rel_tol=1e-12)


def test_batch_equals_rows_and_out_in_place():
    rng = np.random.default_rng(4)
    P = np.stack([_random_p(rng, 40) for _ in range(5)])
    Q = rng.random((5, 40))
    c = np.array([0.5, -2.0, 800.0, -800.0, 0.0])
    batch = multiplicative_weights_update(P, Q, c)
    for t in range(5):
        np.testing.assert_allclose(batch[t], multiplicative_weights_update(P[t], Q[t], c[t]), rtol=1e-15)
    shared_q = multiplicative_weights_update(P, Q[0], c)
    np.testing.assert_allclose(shared_q[1], multiplicative_weights_update(P[1], Q[0], c[1]), rtol=1e-15)
    inplace = P.copy()
    assert multiplicative_weights_update(inplace, Q, c, out=inplace) is inplace
    np.testing.assert_allclose(inplace, batch, rtol=1e-15)


def test_idc_rule_literal():
    """IDC-AlgA.2: r = q if Â < <q,p> else 1 - q; p' ∝ p e^{-η r}."""
    rng = np.random.default_rng(5)
    p, q, eta = _random_p(rng, 30), rng.random(30), 0.05
    here = float(q @ p)
    for noisy, r in [(here - 0.1, q), (here + 0.1, 1 - q)]:
        w = p * np.exp(-eta * r)
        np.testing.assert_allclose(idc_mw_update(p, q, noisy, eta), w / w.sum(), rtol=1e-14)
        np.testing.assert_allclose(idc_mw_update(p, q, noisy, eta, answer=here), w / w.sum(), rtol=1e-14)
    w = p * np.exp(-eta * (1 - q))                             # a tie Â = <q, p> takes the "else" branch
    np.testing.assert_allclose(idc_mw_update(p, q, here, eta, answer=here), w / w.sum(), rtol=1e-14)
    # batch: one noisy answer per row
    P = np.stack([p, _random_p(rng, 30)])
    noisy = np.array([1.0, 0.0])
    out = idc_mw_update(P, q, noisy, eta)
    np.testing.assert_allclose(out[0], idc_mw_update(P[0], q, 1.0, eta), rtol=1e-15)
    np.testing.assert_allclose(out[1], idc_mw_update(P[1], q, 0.0, eta), rtol=1e-15)


@pytest.mark.parametrize("cell", [((3, 1), (1, 0)), ((0,), (1,)), ((5, 2, 0), (0, 1, 1)), ((2,), (0,))])
@pytest.mark.parametrize("c", [0.4, -0.4, 29.0, -29.0, 31.0, -31.0, 1e5, -1e5])
def test_marginal_cell_update_equals_general_update(cell, c):
    rng = np.random.default_rng(6)
    d = 6
    p = _random_p(rng, 1 << d)
    q = MarginalWorkload(d, [cell]).query(0)
    got = marginal_cell_update(p, d, cell[0], cell[1], c)
    ref = _reference(p, q, c)
    big = ref > 1e-290
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-13 * max(1.0, abs(c)))
    inplace = p.copy()
    assert marginal_cell_update(inplace, d, cell[0], cell[1], c, out=inplace) is inplace
    np.testing.assert_allclose(inplace, got, rtol=1e-15)


def test_deterministic_and_input_untouched():
    rng = np.random.default_rng(7)
    p, q = _random_p(rng, 100), rng.random(100)
    keep = p.copy()
    a = multiplicative_weights_update(p, q, 1.5)
    b = multiplicative_weights_update(p, q, 1.5)
    assert np.array_equal(a, b) and np.array_equal(p, keep)
    marginal_cell_update(uniform_hypothesis(64), 6, (1,), (0,), 0.3)
    assert not np.array_equal(multiplicative_weights_update(p, q, 1.5), multiplicative_weights_update(p, q, -1.5))


# --------------------------------------------------------------------------- theory: hand-computed values

def test_mw_bound_hand_computed():
    # IDC-ThmA.4: B(α) = 4 ln N / α²; N = 1024, α = 0.1: 4 · 6.931472 / 0.01 = 2772.589
    assert math.isclose(mw_bound(0.1, 1024), 2772.5887222397813, rel_tol=1e-12)
    assert math.isclose(mw_bound(0.5, 2), 4 * 0.6931471805599453 / 0.25, rel_tol=1e-12)
    assert mw_bound(0.3, 1) == 0.0
    # §13: IC offline rounds B(α/2) = 16 ln N/α² = 11,090 for N = 2^10, α = 0.1
    assert round(mw_bound(0.05, 1024)) == 11090
    assert math.isclose(mw_potential_drop(0.1), 0.0025, rel_tol=1e-15)
    assert math.isclose(mw_initial_potential_bound(1024), 6.931471805599453, rel_tol=1e-15)


def test_kl_potential_hand_computed():
    t, h = np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5])
    assert math.isclose(kl_potential(t, h), math.log(2), rel_tol=1e-14)       # 2 · 0.5 ln(0.5/0.25)
    assert kl_potential(t, t) == 0.0
    assert kl_potential(np.array([0.0, 1.0]), np.array([1.0, 0.0])) == math.inf
    np.testing.assert_allclose(kl_potential(t, np.stack([h, t])), [math.log(2), 0.0])


def test_potential_argument_on_real_data():
    """ClaimA.5 (Ψ_0 <= ln N), LemmaA.6 (each α-wrong update drops Ψ by >= α²/4), ThmA.4 (<= B(α) updates).

    Non-private MW with exact answers on the cancer data: repeatedly update on the worst 2-way marginal
    cell while some cell is α-wrong.
    """
    data = load_cancer()
    W = k_way_marginals(11, 2)
    Q = W.matrix()
    x_bar = data.x / data.n
    true = Q @ x_bar
    alpha = 0.05
    p = uniform_hypothesis(data.N)
    psi = [kl_potential(x_bar, p)]
    assert psi[0] <= mw_initial_potential_bound(data.N)
    updates = 0
    while True:
        err = Q @ p - true
        j = int(np.argmax(np.abs(err)))
        if abs(err[j]) < alpha:
            break
        p = idc_mw_update(p, Q[j], true[j], alpha / 2)
        psi.append(kl_potential(x_bar, p))
        updates += 1
        assert psi[-2] - psi[-1] >= mw_potential_drop(alpha) - 1e-12
        assert updates <= mw_bound(alpha, data.N)
    assert updates > 10 and psi[-1] >= 0


# --------------------------------------------------------------------------- bad input

GOOD_P = np.full(4, 0.25)
GOOD_Q = np.array([0.0, 1.0, 0.5, 0.25])


@pytest.mark.parametrize("p, exc, match", [
    (np.array([0.5, np.nan, 0.25, 0.25]), ValueError, "p"),
    (np.array([0.5, np.inf, 0.25, 0.25]), ValueError, "p"),
    (np.array([0.75, -0.25, 0.25, 0.25]), ValueError, "p"),
    (np.array([0.5, 0.5, 0.5, 0.5]), ValueError, "p"),
    (np.zeros(4), ValueError, "p"),
    (np.full((2, 2, 1), 0.25), ValueError, "p"),
    (np.array(["a", "b", "c", "d"]), TypeError, "p"),
    (np.array([True, False, False, False]), TypeError, "p"),
    (np.full(5, 0.2), ValueError, "query"),
])
def test_bad_p(p, exc, match):
    with pytest.raises(exc, match=match):
        multiplicative_weights_update(p, GOOD_Q, 1.0)


@pytest.mark.parametrize("q, exc", [
    (np.array([0.0, np.nan, 0.5, 0.5]), ValueError), (np.array([0.0, np.inf, 0.5, 0.5]), ValueError),
    (np.array([0.0, 1.5, 0.5, 0.5]), ValueError), (np.array([-0.1, 1.0, 0.5, 0.5]), ValueError),
    (np.ones(3), ValueError), (np.ones((2, 4)), ValueError), (np.array(["a"] * 4), TypeError),
    (np.array([None] * 4), TypeError),
])
def test_bad_query(q, exc):
    with pytest.raises(exc, match="query"):
        multiplicative_weights_update(GOOD_P, q, 1.0)


@pytest.mark.parametrize("c, exc", [(np.nan, ValueError), (np.inf, ValueError), (-np.inf, ValueError),
                                    ("1", TypeError), (True, TypeError), (None, TypeError),
                                    (np.array([1.0, 2.0]), ValueError)])
def test_bad_coefficient(c, exc):
    with pytest.raises(exc, match="coefficient"):
        multiplicative_weights_update(GOOD_P, GOOD_Q, c)
    with pytest.raises(TypeError if np.ndim(c) else exc, match="coefficient"):   # one vector: a scalar only
        marginal_cell_update(GOOD_P, 2, (0,), (1,), c)


def test_bad_out():
    with pytest.raises(ValueError, match="out"):
        multiplicative_weights_update(GOOD_P, GOOD_Q, 1.0, out=np.empty(3))
    with pytest.raises(TypeError, match="out"):
        multiplicative_weights_update(GOOD_P, GOOD_Q, 1.0, out=np.empty(4, dtype=np.float32))
    with pytest.raises(TypeError, match="out"):
        multiplicative_weights_update(GOOD_P, GOOD_Q, 1.0, out=[0.0] * 4)


@pytest.mark.parametrize("eta, exc", [(0.0, ValueError), (-0.1, ValueError), (1.5, ValueError),
                                      (np.nan, ValueError), (np.inf, ValueError), ("0.1", TypeError),
                                      (None, TypeError)])
def test_bad_eta(eta, exc):
    with pytest.raises(exc, match="eta"):
        idc_mw_update(GOOD_P, GOOD_Q, 0.3, eta)


@pytest.mark.parametrize("noisy, exc", [(np.nan, ValueError), (np.inf, ValueError), ("x", TypeError),
                                        (np.array([0.1, 0.2]), ValueError)])
def test_bad_noisy_answer(noisy, exc):
    with pytest.raises(exc, match="noisy_answer"):
        idc_mw_update(GOOD_P, GOOD_Q, noisy, 0.1)


@pytest.mark.parametrize("answer", [-0.1, 1.1, np.nan])
def test_bad_answer(answer):
    with pytest.raises(ValueError, match="answer"):
        idc_mw_update(GOOD_P, GOOD_Q, 0.3, 0.1, answer=answer)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"d": 3}, ValueError, "d"), ({"d": 0}, ValueError, "d"), ({"d": 2.0}, TypeError, "d"),
    ({"attributes": (2,)}, ValueError, "attributes"), ({"attributes": (0, 0), "values": (1, 1)}, ValueError,
                                                      "attributes"),
    ({"attributes": (), "values": ()}, ValueError, "attributes"), ({"attributes": (0.5,)}, TypeError, "attributes"),
    ({"values": (2,)}, ValueError, "values"), ({"values": (1, 0)}, ValueError, "values"),
    ({"values": (-1,)}, ValueError, "values"),
])
def test_bad_marginal_cell(kwargs, exc, match):
    args = {"d": 2, "attributes": (0,), "values": (1,)}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        marginal_cell_update(GOOD_P, args["d"], args["attributes"], args["values"], 0.5)
    with pytest.raises(ValueError, match="p"):
        marginal_cell_update(np.full((2, 4), 0.25), 2, (0,), (1,), 0.5)


def test_bad_kl_and_uniform():
    with pytest.raises(ValueError, match="universe"):
        kl_potential(GOOD_P, np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="target"):
        kl_potential(np.array([0.5, 0.6, 0.0, 0.0]), GOOD_P)
    with pytest.raises(ValueError, match="hypothesis"):
        kl_potential(GOOD_P, np.array([np.nan, 0.5, 0.25, 0.25]))
    with pytest.raises(ValueError, match="N"):
        uniform_hypothesis(0)
    with pytest.raises(TypeError, match="N"):
        uniform_hypothesis(4.0)


@pytest.mark.parametrize("fn, args, match", [
    (mw_bound, (0.0, 10), "alpha"), (mw_bound, (np.nan, 10), "alpha"), (mw_bound, (0.1, 0), "N"),
    (mw_bound, (0.1, 2.5), "N"), (mw_potential_drop, (-1.0,), "alpha"), (mw_initial_potential_bound, (0,), "N"),
])
def test_bad_theory_inputs(fn, args, match):
    with pytest.raises((ValueError, TypeError), match=match):
        fn(*args)


@pytest.mark.parametrize("c", [-40.0, -2.0, 2.0, 40.0])
def test_cell_fixing_every_attribute(c):
    """A cell with |S| = d (a single universe element) updates in place like any other (was a scalar copy)."""
    from dpbook.multiplicative_weights import marginal_cell_update, multiplicative_weights_update
    p = np.array([0.25, 0.25, 0.5, 0.0]) + 0.0
    p = p / p.sum()
    q = np.array([0.0, 0.0, 1.0, 0.0])
    expected = multiplicative_weights_update(p, q, c)
    np.testing.assert_allclose(marginal_cell_update(p, 2, (0, 1), (1, 0), c), expected, rtol=1e-12, atol=1e-300)
    buf = p.copy()
    marginal_cell_update(buf, 2, (0, 1), (1, 0), c, out=buf)
    np.testing.assert_allclose(buf, expected, rtol=1e-12, atol=1e-300)


def test_mwem_on_a_one_attribute_universe():
    from dpbook.mwem import mwem
    from dpbook.queries import k_way_marginals
    r = mwem(np.array([100_000, 1]), k_way_marginals(1, 1), epsilon=1e4, T=3, rng=0)
    assert r.answers.shape == (2,) and abs(r.answers.sum() - 1) < 1e-9


# --------------------------------------------------------------------------- the machine-independent exp


def _hypotheses(trials, N, rng):
    P = rng.random((trials, N)) + 0.01
    return P / P.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("c", [-3.0, -0.4, 0.0, 0.7, 5.0])
def test_fast_kernels_agree_with_the_reference(c):
    rng = np.random.default_rng(int(10 * c) + 50)
    P = _hypotheses(4, 64, rng)
    q = rng.random(64)
    ind = rng.random(64) < 0.3
    coef = np.array([c, -c, c / 2, 1.0])
    ref = mw_update_reference(P, q, coef[:, None])
    np.testing.assert_allclose(kernels.exp_update(P, q, coef), ref, rtol=1e-13)
    np.testing.assert_allclose(multiplicative_weights_update(P, ind, coef), mw_update_reference(P, ind, coef[:, None]),
                               rtol=1e-13)
    rows = np.array([0, 2, 3])
    idx = np.flatnonzero(ind)
    got = P.copy()
    kernels.support_update(got, rows, idx, q[idx], coef[rows])
    q_sparse = np.where(ind, q, 0.0)
    np.testing.assert_allclose(got[rows], mw_update_reference(P[rows], q_sparse, coef[rows][:, None]), rtol=1e-13)
    np.testing.assert_array_equal(got[1], P[1])                      # rows not listed are untouched
    W = k_way_marginals(6, 2)
    picks = rng.integers(0, W.m, 4)
    Q = np.stack([W.query(int(j)) for j in picks])
    got = P.copy()
    kernels.marginal_cells_update(got, W.d, W.cells, picks, coef)
    np.testing.assert_allclose(got, mw_update_reference(P, Q, coef[:, None]), rtol=1e-13)
    S, v = W.cells[picks[0]]
    np.testing.assert_allclose(marginal_cell_update(P[0], 6, S, v, c), mw_update_reference(P[0], Q[0], c), rtol=1e-13)


@pytest.mark.parametrize("W", [k_way_marginals(6, 3), random_queries(30, 64, rng=1, kind="uniform"),
                               random_queries(30, 64, rng=2, density=0.2), range_queries(64, 25, rng=3)],
                         ids=["marginal", "dense", "sparse", "range"])
def test_every_workload_mw_update_and_counts_at_match_the_reference(W):
    rng = np.random.default_rng(W.m)
    P = _hypotheses(20, 64, rng)
    picks = rng.integers(0, W.m, 20)
    coef = rng.normal(size=20)
    Q = np.stack([W.query(int(j)) for j in picks])
    np.testing.assert_allclose(W.counts_at(P, picks), (Q * P).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(W.counts_at(P[:3], picks[:3]), (Q[:3] * P[:3]).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(mw_update(W, P, picks, coef), mw_update_reference(P, Q, coef[:, None]), rtol=1e-12)
    one = mw_update(W, P[0], int(picks[0]), float(coef[0]))          # one hypothesis, one query
    np.testing.assert_allclose(one, mw_update_reference(P[0], Q[0], coef[0]), rtol=1e-12)
    inplace = P.copy()
    assert mw_update(W, inplace, picks, coef, out=inplace) is inplace
    np.testing.assert_allclose(inplace, mw_update_reference(P, Q, coef[:, None]), rtol=1e-12)
    shared = mw_update(W, P, 3, 0.5)                                 # one query for every row
    np.testing.assert_allclose(shared, mw_update_reference(P, W.query(3), 0.5), rtol=1e-12)
    lo, hi = W.entry_range()
    Qall = np.stack([W.query(i) for i in range(W.m)])
    assert (lo, hi) == (Qall.min(), Qall.max())


@pytest.mark.parametrize("trials", [1, 5, 40])
def test_generic_mw_update_equals_the_marginal_slab_override(trials):
    """The generic Workload implementation (through query_support) and MarginalWorkload's slab update agree."""
    W = k_way_marginals(7, 2)
    rng = np.random.default_rng(trials)
    P = _hypotheses(trials, W.N, rng)
    picks = rng.integers(0, W.m, trials)
    coef = rng.normal(scale=2.0, size=trials)
    generic = P.copy()
    _support_update(W, generic, picks, coef)                     # the base-class (generic) version
    np.testing.assert_allclose(mw_update(W, P, picks, coef), generic, rtol=1e-12)
    np.testing.assert_allclose(W.counts_at(P, picks), Workload._counts_at(W, P, picks), rtol=1e-12)
    extreme = np.full(trials, 80.0)                                  # |c| > 30: the guarded path
    _support_update(W, (g := P.copy()), picks, extreme)
    np.testing.assert_allclose(mw_update(W, P, picks, extreme), g, rtol=1e-10, atol=1e-300)


def test_mw_update_rejects_bad_input():
    W = k_way_marginals(3, 1)
    p = np.full(8, 1 / 8)
    for bad, exc, name in ((dict(p=np.full(8, 0.2)), ValueError, "sum"), (dict(i=6), ValueError, "i"),
                           (dict(i=np.array([0, 1])), ValueError, "i"), (dict(i=0.5), TypeError, "i"),
                           (dict(coefficient=np.nan), ValueError, "coefficient"),
                           (dict(coefficient="1"), TypeError, "coefficient"),
                           (dict(out=np.empty(3)), TypeError, "out")):
        args = dict(p=p, i=0, coefficient=0.3) | bad
        with pytest.raises(exc, match=name):
            mw_update(W, args.pop("p"), args.pop("i"), args.pop("coefficient"), **args)
    with pytest.raises(ValueError, match="P"):
        W.counts_at(np.full(7, 1.0), 0)
    with pytest.raises(ValueError, match="marginal"):
        marginal_layout(random_queries(3, 8, rng=0))


def test_block_path_of_mw_update_on_a_matrix_workload_reads_the_row_in_place(monkeypatch):
    """``mw_update`` on an explicit float64 matrix takes the picked row as a read-only view (no copy) and updates
    ``p`` in place with the bytes of the copying path."""
    import dpbook._mw_kernels as K
    from dpbook.queries import MatrixWorkload
    g = np.random.default_rng(6)
    N = K.FUSE_MIN
    W = MatrixWorkload(g.random((3, N)))
    row = W.query_rows(np.array([2]))
    assert np.shares_memory(row, W.Q) and not row.flags.writeable
    p = np.full(N, 1.0 / N)
    fast = p.copy()
    mw_update(W, fast, 2, 0.7, out=fast)
    monkeypatch.setattr(K, "FUSE_MIN", 1 << 62)
    slow = mw_update(W, p, 2, 0.7)
    assert np.array_equal(fast, slow)


def test_validation_names_the_problem_in_two_passes():
    """check_distribution reads the minimum and the row sums only (a NaN or inf shows in one of them) and the
    query check its minimum and maximum: the messages are still the precise ones, with no warning."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for bad in ([0.5, np.nan, 0.5], [np.inf, -np.inf, 0.5], [0.5, np.inf, 0.5], [np.nan, -1.0, 2.0]):
            with pytest.raises(ValueError, match="NaN or inf"):
                check_distribution(np.array(bad))
        with pytest.raises(ValueError, match="sum to 1"):
            check_distribution(np.array([1e308, 1e308, 0.0]))          # finite entries whose sum overflows
        with pytest.raises(ValueError, match="negative entry"):
            check_distribution(np.array([1.5, -0.5]))
        p = np.full(3, 1 / 3)
        for q in ([0.5, -np.inf, 0.2], [np.nan, 0.5, 0.2], [0.1, 0.2, np.inf]):
            with pytest.raises(ValueError, match="NaN or inf"):
                multiplicative_weights_update(p, np.array(q), 0.5)
        with pytest.raises(ValueError, match="outside"):
            multiplicative_weights_update(p, np.array([0.1, 1.5, 0.2]), 0.5)
