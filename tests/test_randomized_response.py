"""Randomized response for linear queries (LEC3-3.4 corrected; errata LEC3-E4..E8), chapter 02."""
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import stats

from bad_input import BAD_EPSILON, BAD_TRIALS_AND_RNG
from dpbook.audit import audit
from dpbook.broken.randomized_response import debias_seed_formula, randomized_response_wrong_p
from dpbook.data import bootstrap, load_cancer, replace_row
from dpbook.experiments import errors, failure_rate
from dpbook.explorers.randomized_response import explore_rr
from dpbook.laplace import laplace_mechanism
from dpbook.noise import laplace_noise
from dpbook.queries import MatrixWorkload, conjunctions
from dpbook.randomized_response import (
    attribute_index, debias, person_bits, randomized_response, rr_histogram, rr_linear_queries,
    rr_mechanism, subgroup_workload,
)
from dpbook.theory.laplace import split_budget_error_bound, laplace_scale
from dpbook.theory.randomized_response import (
    RR_SMALL_EPSILON_CONSTANT, laplace_rr_crossover, rr_bias_factor, rr_error_bound, rr_error_bound_small_epsilon,
    rr_estimator_range, rr_hoeffding_tail, rr_keep_probability,
)

DATA = load_cancer()
X = DATA.x
MALIGNANT = attribute_index(DATA, "malignant")
BITS = person_bits(DATA, "malignant")
LEVEL = 1e-6


# --------------------------------------------------------------------------- theory: hand-computed values

def test_keep_probability_and_bias_factor():
    # DR Claim 3.5: ε = ln 3 is the two-coin protocol, p = 3/4; 2p - 1 = 1/2 = tanh(ln(3)/2) = (3-1)/(3+1)
    assert rr_keep_probability(math.log(3)) == pytest.approx(0.75)
    assert rr_bias_factor(math.log(3)) == pytest.approx(0.5)
    # ε = 1: p = e/(1+e) = 2.71828/3.71828 = 0.731059
    assert rr_keep_probability(1.0) == pytest.approx(0.7310585786)
    assert rr_bias_factor(1.0) == pytest.approx(2 * 0.7310585786 - 1)
    assert rr_keep_probability(800.0) == 1.0                     # no overflow at huge ε


def test_estimator_range_erratum_e5():
    # ε = ln 3: 1/2 ± 1/(2·(1/2)) = [-0.5, 1.5], an interval of length 1/(2p-1) = 2
    assert rr_estimator_range(math.log(3)) == pytest.approx((-0.5, 1.5))


def test_hoeffding_tail_erratum_e6():
    # n = 100, ε = ln 3 (2p-1 = 1/2), t = 0.2: 2 exp(-2·100·0.04·0.25) = 2 e^{-2} = 0.270671
    assert rr_hoeffding_tail(0.2, 100, math.log(3)) == pytest.approx(2 * math.exp(-2))
    assert rr_hoeffding_tail(0.0, 100, 1.0) == 1.0               # capped at 1
    assert np.allclose(rr_hoeffding_tail(np.array([0.0, 0.2]), 100, math.log(3)), [1.0, 0.2706705664732])


def test_error_bound_erratum_e7():
    # n = 100, β = 0.1, m = 5, ε = ln 3: sqrt(ln(2·5/0.1)/(2·100))/0.5 = sqrt(4.60517/200)/0.5 = 0.303485
    alpha = rr_error_bound(100, 0.1, math.log(3), m=5)
    assert alpha == pytest.approx(0.3034854259)
    assert 5 * rr_hoeffding_tail(alpha, 100, math.log(3)) == pytest.approx(0.1)   # union bound over m at this α


def test_small_epsilon_rate_erratum_e8():
    # 1/(sqrt(2) tanh(1/2)) = 1/(1.414214 · 0.462117) = 1.530146
    assert RR_SMALL_EPSILON_CONSTANT == pytest.approx(1.530146, abs=1e-6)
    # n = 100, β = 0.1, m = 5, ε = 0.5: 1.530146 · sqrt(ln 100) / (0.5 · 10) = 1.530146 · 2.145966 / 5 = 0.656728
    assert rr_error_bound_small_epsilon(100, 0.1, 0.5, m=5) == pytest.approx(0.656728, rel=1e-5)
    for eps in np.geomspace(1e-3, 1.0, 25):                     # it really bounds the exact value for ε <= 1
        assert rr_error_bound(1000, 0.05, eps, 10) <= rr_error_bound_small_epsilon(1000, 0.05, eps, 10) + 1e-12
    with pytest.raises(ValueError, match="epsilon"):
        rr_error_bound_small_epsilon(100, 0.1, 1.5)


def test_crossover_hand_computed():
    # n = 1, β = 1, ε = 1 (2p-1 = tanh(1/2) = 0.462117):
    #   m=2: Laplace 2 ln 2 = 1.386 <= RR sqrt(ln 4 / 2)/0.462 = 1.802;  m=3: 3 ln 3 = 3.296 > sqrt(ln 6/2)/0.462 = 2.049
    assert laplace_rr_crossover(1, 1.0, 1.0) == 3
    for n in (569, 5690, 56_900, 569_000):
        m = laplace_rr_crossover(n, 0.05, 1.0)
        assert split_budget_error_bound(m, 0.05, 1.0, n=n) > rr_error_bound(n, 0.05, 1.0, m)
        assert split_budget_error_bound(m - 1, 0.05, 1.0, n=n) <= rr_error_bound(n, 0.05, 1.0, m - 1)
        assert 0.3 * math.sqrt(n) < m < 3 * math.sqrt(n)         # |Q| ≈ sqrt(n) up to logs
    assert laplace_rr_crossover(10**6, 0.05, 1.0, m_max=10) == 11   # Laplace still better at m_max


@pytest.mark.parametrize("call,name", [
    (lambda: rr_keep_probability(0.0), "epsilon"),
    (lambda: rr_keep_probability(np.nan), "epsilon"),
    (lambda: rr_bias_factor(-1.0), "epsilon"),
    (lambda: rr_estimator_range(np.inf), "epsilon"),
    (lambda: rr_hoeffding_tail(-0.1, 100, 1.0), "lam"),
    (lambda: rr_hoeffding_tail(np.nan, 100, 1.0), "lam"),
    (lambda: rr_hoeffding_tail(0.1, 0, 1.0), "n"),
    (lambda: rr_error_bound(100, 0.0, 1.0), "beta"),
    (lambda: rr_error_bound(100, 1.5, 1.0), "beta"),
    (lambda: rr_error_bound(100, 0.1, 1.0, m=0), "m"),
    (lambda: rr_error_bound(0, 0.1, 1.0), "n"),
    (lambda: laplace_rr_crossover(100, 0.1, 1.0, m_max=0), "m_max"),
    (lambda: laplace_rr_crossover(100, np.nan, 1.0), "beta"),
])
def test_theory_bad_values(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("call,name", [
    (lambda: rr_keep_probability("1"), "epsilon"),
    (lambda: rr_error_bound(100.0, 0.1, 1.0), "n"),
    (lambda: rr_error_bound(100, 0.1, 1.0, m=2.5), "m"),
    (lambda: rr_error_bound_small_epsilon(100, 0.1, True), "epsilon"),
])
def test_theory_bad_types(call, name):
    with pytest.raises(TypeError, match=name):
        call()


# --------------------------------------------------------------------------- mechanism: unit behaviour

def test_reports_fields_and_shapes():
    r = randomized_response(BITS, epsilon=1.0, rng=0)
    assert r.reports.shape == BITS.shape and set(np.unique(r.reports)) <= {0, 1}
    assert r.p == pytest.approx(rr_keep_probability(1.0)) and r.delta == 0.0
    assert sum(s.epsilon for s in r.ledger) == pytest.approx(1.0)
    assert randomized_response(BITS, epsilon=1.0, trials=3, rng=0).reports.shape == (3, BITS.size)
    lo, hi = rr_estimator_range(1.0)
    assert np.allclose(np.unique(r.estimate()), [lo, hi])         # x̂ takes the two ends of its range (E5)


def test_huge_epsilon_reports_the_truth():
    assert np.array_equal(randomized_response(BITS, epsilon=60.0, rng=0).reports, BITS)
    assert np.allclose(debias(BITS, 60.0), BITS)
    h = rr_histogram(X, epsilon=60.0, bit=MALIGNANT, rng=0)
    assert np.allclose(h.counts, X)


def test_linear_queries_match_the_definition():
    """answers = Q x̂ / n with x̂ the debiased reports of the same seed."""
    Q = np.random.default_rng(0).random((4, BITS.size))
    rel = rr_linear_queries(BITS, Q, epsilon=0.8, trials=3, rng=5)
    x_hat = randomized_response(BITS, epsilon=0.8, trials=3, rng=5).estimate()
    assert np.allclose(rel.answers, x_hat @ Q.T / BITS.size)
    assert rr_linear_queries(BITS, Q, epsilon=0.8, rng=5).answers.shape == (4,)
    import scipy.sparse as sp
    assert np.allclose(rr_linear_queries(BITS, sp.csr_matrix(Q), epsilon=0.8, trials=3, rng=5).answers, rel.answers)


def test_histogram_form_keeps_public_cells():
    h = rr_histogram(X, epsilon=1.0, bit=MALIGNANT, trials=50, rng=1)
    assert h.counts.shape == (50, X.size)
    assert np.allclose(h.counts.sum(axis=1), X.sum())             # n is public and preserved
    pairs = h.counts.reshape(50, -1, 2)                           # malignant is the last bit: cells (u0, u1) adjacent
    assert np.allclose(pairs.sum(axis=2), X.reshape(-1, 2).sum(axis=1))   # public marginal exact
    assert np.all(h.counts[:, X.reshape(-1, 2).sum(axis=1).repeat(2) == 0] == 0)
    rel = rr_mechanism(X, conjunctions(11, 2), epsilon=1.0, bit=MALIGNANT, trials=4, rng=1)
    assert rel.answers.shape == (4, 55) and rel.epsilon == 1.0


def _exact_cdf_of_ones(c1, c0, p):
    """CDF of R = Bin(c1, p) + Bin(c0, 1-p): the number of 1-reports in a cell (exact convolution)."""
    pmf = np.convolve(stats.binom.pmf(np.arange(c1 + 1), c1, p), stats.binom.pmf(np.arange(c0 + 1), c0, 1 - p))
    return np.cumsum(pmf)


def _dkw_ok(samples, cdf, level=LEVEL):
    """DKW (Massart): P[sup |F_T - F| > s] <= 2 exp(-2 T s^2), valid for discrete F too."""
    T = samples.size
    emp = np.searchsorted(np.sort(samples), np.arange(cdf.size), side="right") / T
    return np.abs(emp - cdf).max() <= math.sqrt(math.log(2 / level) / (2 * T))


def test_person_by_person_and_histogram_form_have_the_exact_distribution():
    """Both views give R ~ Bin(c1, p) + Bin(c0, 1-p) 1-reports in a cell (DKW at 1e-6 each)."""
    eps, T, c1, c0 = 1.0, 100_000, 3, 5
    p = rr_keep_probability(eps)
    cdf = _exact_cdf_of_ones(c1, c0, p)
    per_person = randomized_response(np.array([1] * c1 + [0] * c0), epsilon=eps, trials=T, rng=3).reports.sum(axis=1)
    x = np.array([c0, c1])                                         # universe {0,1}: one public cell
    h = rr_histogram(x, epsilon=eps, bit=0, trials=T, rng=4).counts[:, 1]
    c = c0 + c1
    aggregated = np.rint(c / 2 + (h - c / 2) * rr_bias_factor(eps)).astype(int)   # invert the debiasing
    assert _dkw_ok(per_person, cdf) and _dkw_ok(aggregated, cdf)
    wrong = randomized_response_wrong_p(np.array([1] * c1 + [0] * c0), epsilon=eps, trials=T, rng=3)
    assert not _dkw_ok(wrong.reports.sum(axis=1), cdf)            # the test can fail


def test_keep_probability_is_exact():
    """One bit, 200,000 reports: the two-sided Clopper–Pearson interval at 1e-6 contains p."""
    from dpbook.stats import clopper_pearson
    T = 200_000
    for bit in (0, 1):
        ones = int(randomized_response(np.array([bit]), epsilon=1.0, trials=T, rng=10 + bit).reports.sum())
        lo, hi = clopper_pearson(ones if bit else T - ones, T, LEVEL)
        assert lo <= rr_keep_probability(1.0) <= hi


# --------------------------------------------------------------------------- accuracy against LEC3-3.4

def _rr_max_errors(bits, Q, eps, trials, rng, debias_fn=debias):
    reports = randomized_response(bits, epsilon=eps, trials=trials, rng=rng).reports
    answers = debias_fn(reports, eps) @ Q.T / bits.size
    return errors(answers, Q @ bits / bits.size).max


def test_accuracy_lec3_3_4_real_bits():
    """ACC on the 569 real malignant bits: P[max error over k queries >= rr_error_bound] <= β (CP at 1e-6)."""
    rng = np.random.default_rng(20)
    Q = np.vstack([np.ones(BITS.size), rng.random((20, BITS.size)), rng.integers(0, 2, (9, BITS.size))])
    for eps, beta in [(1.0, 0.05), (0.3, 0.5)]:
        err = _rr_max_errors(BITS, Q, eps, 20_000, rng)
        rate = failure_rate(err, rr_error_bound(BITS.size, beta, eps, Q.shape[0]))
        assert rate.consistent_with(beta)
        assert np.quantile(err, 1 - beta) > 0.25 * rr_error_bound(BITS.size, beta, eps, Q.shape[0])  # not vacuous


def test_accuracy_check_catches_the_seed_estimator():
    """The seed's x̂ = 1/2 + (Y-1/2)/2^{p-1} (LEC3-E4) is biased: at n = 20,000 the same check fails."""
    rng = np.random.default_rng(21)
    bits = rng.choice(BITS, size=20_000)
    Q = np.ones((1, bits.size))
    bound = rr_error_bound(bits.size, 0.05, 1.0, 1)
    assert failure_rate(_rr_max_errors(bits, Q, 1.0, 500, rng), bound).consistent_with(0.05)
    bad = failure_rate(_rr_max_errors(bits, Q, 1.0, 500, rng, debias_fn=debias_seed_formula), bound)
    assert not bad.consistent_with(0.05)


@pytest.mark.parametrize("n", [569, 5_000])
def test_accuracy_histogram_form_subgroup_queries(n):
    """rr_mechanism on the 1161 subgroup queries (real data, bootstrapped to n): Hoeffding + union bound."""
    rng = np.random.default_rng(22)
    x = X if n == X.sum() else bootstrap(X, n, rng)
    W = subgroup_workload()
    rel = rr_mechanism(x, W, epsilon=1.0, bit=MALIGNANT, trials=2_000, rng=rng)
    err = errors(rel.answers, W.answers(x)).max
    assert failure_rate(err, rr_error_bound(n, 0.05, 1.0, W.m)).consistent_with(0.05)


def test_laplace_split_error_is_the_rescaled_noise():
    """The widget draws Laplace errors as Lap(k/ε)/n directly: identical to laplace_mechanism(sensitivity=k)."""
    W = subgroup_workload()
    k, eps = 30, 0.7
    Wk = MatrixWorkload(W.matrix()[:k])
    rel = laplace_mechanism(X, Wk, n=int(X.sum()), epsilon=eps, sensitivity=k, trials=5, rng=8)
    assert np.allclose(rel.answers - Wk.answers(X), laplace_noise(laplace_scale(k, eps), (5, k), 8) / X.sum())


# --------------------------------------------------------------------------- privacy audits

EVENT = {"Y = 1": lambda Y: Y[:, 0] == 1}


def _single_bit(mech, bit, eps=1.0):
    return lambda trials, rng: mech(np.array([bit]), epsilon=eps, trials=trials, rng=rng).reports


def test_audit_single_bit():
    """PA on one person's bit, x = 0 vs x' = 1, S = {Y = 1}: ratio exactly e^ε; ε_lb <= ε and close to it."""
    res = audit(_single_bit(randomized_response, 1), _single_bit(randomized_response, 0), EVENT,
                trials=500_000, rng=30)
    assert 0.9 < res.epsilon_lb <= 1.0


def test_audit_catches_wrong_keep_probability():
    res = audit(_single_bit(randomized_response_wrong_p, 1), _single_bit(randomized_response_wrong_p, 0), EVENT,
                trials=500_000, rng=30)
    assert res.epsilon_lb > 1.0
    assert res.epsilon_lb <= math.log(2 * math.e - 1)              # its true loss is ln(2e^ε - 1) = 1.49


def test_audit_histogram_form_real_neighbour():
    """rr_histogram on a neighbouring pair: one person's private bit changes (the public cell keeps its size)."""
    x = np.array([2, 1, 0, 1])                                     # {0,1}^2, private bit = attribute 1
    x_prime = replace_row(x, 3, 2)                                 # the person in public cell 1 flips 1 -> 0
    sample = lambda xx: (lambda trials, rng: rr_histogram(xx, epsilon=1.0, bit=1, trials=trials, rng=rng).counts)
    res = audit(sample(x), sample(x_prime), {"cell (1,1) > 1/2": lambda h: h[:, 3] > 0.5}, trials=500_000, rng=31)
    assert 0.9 < res.epsilon_lb <= 1.0


# --------------------------------------------------------------------------- bad input, determinism

@pytest.mark.parametrize("kwargs,exc,name", [
    *BAD_EPSILON,
    *BAD_TRIALS_AND_RNG,
    (dict(epsilon=True), TypeError, "epsilon"),
    (dict(epsilon=1.0, rng=-1), ValueError, "rng"),
])
def test_bad_parameters(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        randomized_response(BITS, **kwargs)
    with pytest.raises(exc, match=name):
        rr_linear_queries(BITS, np.ones((2, BITS.size)), **kwargs)
    with pytest.raises(exc, match=name):
        rr_histogram(X, bit=MALIGNANT, **kwargs)
    with pytest.raises(exc, match=name):
        rr_mechanism(X, conjunctions(11, 1), bit=MALIGNANT, **kwargs)


@pytest.mark.parametrize("bits,exc", [
    (np.array([0, 1, 2]), ValueError),
    (np.array([0, -1]), ValueError),
    (np.array([0.0, np.nan]), ValueError),
    (np.array([0.5, 1.0]), ValueError),
    (np.zeros((2, 3), dtype=int), ValueError),
    (np.array([], dtype=int), ValueError),
    (np.array(["0", "1"]), TypeError),
    (np.array([0, None], dtype=object), TypeError),
])
def test_bad_bits(bits, exc):
    with pytest.raises(exc, match="bits"):
        randomized_response(bits, epsilon=1.0)
    with pytest.raises(exc, match="bits"):
        rr_linear_queries(bits, np.ones((1, 2)), epsilon=1.0)


def test_bits_accept_bools_and_whole_floats():
    assert np.array_equal(randomized_response(np.array([True, False]), epsilon=60.0, rng=0).reports, [1, 0])
    assert np.array_equal(randomized_response(np.array([1.0, 0.0]), epsilon=60.0, rng=0).reports, [1, 0])


@pytest.mark.parametrize("Q,exc", [
    (np.ones((2, BITS.size + 1)), ValueError),                     # wrong number of people
    (np.full((1, BITS.size), 1.5), ValueError),                    # outside [0, 1]
    (np.full((1, BITS.size), np.nan), ValueError),
    (np.ones(BITS.size), ValueError),                              # 1-D
    (np.array([["a"] * BITS.size]), TypeError),
])
def test_bad_query_matrix(Q, exc):
    with pytest.raises(exc, match="Q"):
        rr_linear_queries(BITS, Q, epsilon=1.0)


@pytest.mark.parametrize("x,bit,exc,name", [
    (np.ones(3, dtype=int), 0, ValueError, "power of 2"),
    (np.ones(1, dtype=int), 0, ValueError, "power of 2"),
    (X, 11, ValueError, "bit"),
    (X, -1, ValueError, "bit"),
    (X, 1.0, TypeError, "bit"),
    (X, "malignant", TypeError, "bit"),
    (-X, 0, ValueError, "x"),
    (np.full(4, np.nan), 0, ValueError, "x"),
    (X.reshape(2, -1), 0, ValueError, "x"),
])
def test_bad_histogram_inputs(x, bit, exc, name):
    with pytest.raises(exc, match=name):
        rr_histogram(x, epsilon=1.0, bit=bit)


def test_bad_workload_and_reports_and_attribute():
    with pytest.raises(ValueError, match="universe"):
        rr_mechanism(X, conjunctions(10, 1), epsilon=1.0, bit=0)
    with pytest.raises(TypeError, match="workload"):
        rr_mechanism(X, "W", epsilon=1.0, bit=0)
    with pytest.raises(ValueError, match="reports"):
        debias(np.array([0, 2]), 1.0)
    with pytest.raises(TypeError, match="reports"):
        debias(np.array(["1"]), 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        debias(np.array([0, 1]), 0.0)
    with pytest.raises(ValueError, match="attribute"):
        attribute_index(DATA, "benign")
    with pytest.raises(ValueError, match="attribute"):
        attribute_index(DATA, 11)
    assert attribute_index(DATA, "malignant") == attribute_index(DATA, 10) == 10
    assert person_bits(DATA, "malignant").sum() == X.reshape(-1, 2)[:, 1].sum()


def test_determinism():
    Q = np.ones((1, BITS.size))
    for run in (lambda r: randomized_response(BITS, epsilon=1.0, trials=2, rng=r).reports,
                lambda r: rr_linear_queries(BITS, Q, epsilon=1.0, trials=2, rng=r).answers,
                lambda r: rr_histogram(X, epsilon=1.0, bit=MALIGNANT, trials=2, rng=r).counts):
        assert np.array_equal(run(42), run(42))
        assert not np.array_equal(run(42), run(43))
        g = np.random.default_rng(9)
        assert not np.array_equal(run(g), run(g))


# --------------------------------------------------------------------------- the chapter's widget callback

def test_subgroup_workload():
    W = subgroup_workload()
    assert W.m == 1 + 10 * 2 + 45 * 4 + 120 * 8 == 1161
    assert W.cells[0] == ((10,), (1,))                            # "malignant", all patients
    assert all(S[-1] == 10 and v[-1] == 1 for S, v in W.cells)
    assert W.answers(X)[0] == pytest.approx(BITS.mean())
    assert subgroup_workload() is W                               # cached
    assert subgroup_workload(4, 0, 1).m == 1 + 3 * 2
    with pytest.raises(ValueError, match="bit"):
        subgroup_workload(4, 4)
    with pytest.raises(ValueError, match="max_public"):
        subgroup_workload(4, 0, 4)
    with pytest.raises(TypeError, match="seed"):
        subgroup_workload(seed=1.5)


def test_explore_rr_is_seeded():
    fig1, fig2 = explore_rr(epsilon=1.0, n=569, m=100, trials=40), explore_rr(epsilon=1.0, n=569, m=100, trials=40)
    y1 = [ln.get_ydata() for ln in fig1.axes[0].lines]
    y2 = [ln.get_ydata() for ln in fig2.axes[0].lines]
    assert all(np.array_equal(a, b) for a, b in zip(y1, y2))
    plt.close(fig1)
    plt.close(fig2)
    with pytest.raises(ValueError, match="m"):
        explore_rr(m=5000)


def test_chapter_figures_draw_and_validate():
    from dpbook.explorers.randomized_response import figure_hoeffding_tail, figure_rr_sweeps, figure_rr_vs_laplace
    lam = np.array([0.01, 0.05, 0.1])
    fig = figure_hoeffding_tail(lam, [0.5, 0.1, 0.01], [0.3, 0.05, 0.0], [1.0, 0.6, 0.1], 0.12, n=569, epsilon=1.0,
                                releases=100)
    assert fig.axes[0].get_ylabel() == "P[error > λ]"
    plt.close(fig)
    with pytest.raises(ValueError, match="tail_weights"):
        figure_hoeffding_tail(lam, [0.5, 0.1, 0.01], [0.3, 0.05], [1.0, 0.6, 0.1], 0.12, n=569, epsilon=1.0, releases=100)
    with pytest.raises(ValueError, match="guess_error"):
        figure_hoeffding_tail(lam, [0.5, 0.1, 0.01], [0.3, 0.05, 0.0], [1.0, 0.6, 0.1], np.nan, n=569, epsilon=1.0,
                              releases=100)
    ns, eps = np.array([569, 5690, 56900]), np.array([0.1, 0.5, 1.0, 2.0])
    fig = figure_rr_sweeps(ns, [0.1, 0.03, 0.01], [0.2, 0.06, 0.02], [0.3] * 3, eps, [1.0, 0.2, 0.1, 0.06],
                           [2.0, 0.4, 0.2, 0.1], [0.3] * 4, n=569, epsilon=1.0, m=1161)
    assert len(fig.axes) == 2 and "max error" in fig.axes[0].get_ylabel()
    assert "slope -0.50" in fig.axes[0].get_title()                # 0.1, 0.03, 0.01 over n ×10: slope ≈ -1/2
    plt.close(fig)
    with pytest.raises(ValueError, match="q_eps"):
        figure_rr_sweeps(ns, [0.1, 0.03, 0.01], [0.2, 0.06, 0.02], [0.3] * 3, eps, [1.0, -0.2, 0.1, 0.06],
                         [2.0, 0.4, 0.2, 0.1], [0.3] * 4, n=569, epsilon=1.0, m=1161)
    ms = np.array([1, 10, 100])
    panel = dict(n=569, rr=[0.08] * 3, rr_b=[0.1] * 3, lap=[0.005, 0.05, 0.5], lap_b=[0.01, 0.1, 1.0], guess=[0.3] * 3)
    fig = figure_rr_vs_laplace(ms, [panel, dict(panel, n=56900)], epsilon=1.0)
    assert len(fig.axes) == 2 and fig.axes[0].get_ylabel() == "max error, 0.95-quantile"
    plt.close(fig)
    with pytest.raises(ValueError, match="panels"):
        figure_rr_vs_laplace(ms, [panel] * 3, epsilon=1.0)
    with pytest.raises(ValueError, match="panels"):
        figure_rr_vs_laplace(ms, [dict(n=569, rr=[0.1] * 3)], epsilon=1.0)
