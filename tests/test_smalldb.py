"""SmallDB and the net mechanism (DR-Alg4 ≡ PROJ-R3, DR-Prop4.1/4.4, DR-Thm4.5, DR-Lemma4.3, DR-Prop5.2)."""
import math

import numpy as np
import pytest
from scipy import stats

from dpbook.audit import audit
from dpbook.broken.exponential import smalldb_no_half
from dpbook.data import load_cancer, project_dataset
from dpbook.experiments import errors, failure_rate
from dpbook.exponential import exponential_mechanism
from dpbook.queries import MarginalWorkload, MatrixWorkload, k_way_marginals
from dpbook.release import Spend
from dpbook.smalldb import (SyntheticDatabase, candidate_errors, exact_error_distribution, multisets, net_mechanism,
                            smalldb, subsample_errors)
from dpbook.theory.smalldb import (claim_a3_size, log_range_size, net_error_bound, proj_r3_sample_complexity,
                                   prop44_error_bound, range_size, sampling_failure_bound, smalldb_size,
                                   thm45_error_bound, thm45_sample_complexity)

LEVEL = 1e-6
AUDIT_TRIALS = 200_000
ATTRS = ("radius_high", "texture_high", "malignant")
PAIR_W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])     # universe {a, b}: "is a", "is b", "anything"


@pytest.fixture(scope="module")
def cancer3():
    """The real cancer rows projected to 3 attributes (N = 8) with all 1- and 2-way marginal cells (m = 18)."""
    data = project_dataset(load_cancer(), ATTRS)
    cells = [c for k in (1, 2) for c in k_way_marginals(3, k).cells]
    return data.x, MarginalWorkload(3, cells)


# --------------------------------------------------------------------------- theory: hand-computed values

def test_sizes_hand_values():
    assert smalldb_size(12, 0.5) == 10            # ⌈4 ln 12⌉ = ⌈9.94⌉
    assert smalldb_size(3, 0.8) == 2              # ⌈ln 3 / 0.64⌉ = ⌈1.72⌉
    assert smalldb_size(1, 0.5) == 0              # ln 1 = 0: DR's size degenerates for |Q| = 1
    assert claim_a3_size(12, 0.5) == 7            # ⌊ln 24 / 0.5⌋ + 1 = ⌊6.36⌋ + 1
    assert claim_a3_size(1, 0.5) == 2             # ⌊2 ln 2⌋ + 1


def test_range_size_hand_values():
    assert range_size(2, 2) == 3                  # {aa, ab, bb}
    assert range_size(8, 10) == 19448             # C(17, 10)
    assert range_size(1, 5) == 1
    assert range_size(8, 10) <= 8 ** 10
    assert log_range_size(8, 10) == pytest.approx(math.log(19448), rel=1e-12)
    assert log_range_size(2048, 381) == pytest.approx(math.log(math.comb(2048 + 380, 381)), rel=1e-10)


def test_sampling_failure_bound_hand_values():
    assert sampling_failure_bound(12, 10, 0.5) == pytest.approx(24 * math.exp(-5), rel=1e-12)   # 0.16171
    assert sampling_failure_bound(1, 1, 0.1) == 1.0                                             # capped
    # at DR's size n_y = ln|Q|/α² (an integer here: |Q| = e^4, α = 1) the bound is 2/|Q|
    assert sampling_failure_bound(55, smalldb_size(55, 1.0), 1.0) <= 2 / 55


def test_accuracy_bounds_hand_values():
    assert net_error_bound(0.1, 100, 1.0, 1000, 0.01) == pytest.approx(0.11842068074395237, rel=1e-12)
    assert net_error_bound(0.0, 1, 1.0, 10, 1.0) == 0.0
    # α + 2(ln 8 · ln 12 / 0.25 + ln 20)/569 = 0.5 + 2(20.669 + 2.996)/569
    assert prop44_error_bound(8, 12, 0.5, 1.0, 569, 0.05) == pytest.approx(0.5831796299916223, rel=1e-12)
    # (16 ln 4 ln 8 + 4 ln 20)/(1 · 0.5³) = (46.12 + 11.98)/0.125
    assert thm45_sample_complexity(4, 8, 0.5, 1.0, 0.05) == pytest.approx(464.85134744290633, rel=1e-12)
    assert thm45_error_bound(4, 8, 1.0, 465, 0.05) == pytest.approx(0.4999467138349575, rel=1e-12)
    assert proj_r3_sample_complexity(8, 12, 0.5, 1.0) == pytest.approx(41.33774491812508, rel=1e-12)


# --------------------------------------------------------------------------- unit

def test_multisets_enumerates_the_range():
    np.testing.assert_array_equal(multisets(2, 2), [[2, 0], [1, 1], [0, 2]])
    for N, db_size in [(3, 2), (8, 10), (5, 1), (1, 4)]:
        Y = multisets(N, db_size)
        assert Y.shape == (range_size(N, db_size), N)
        assert np.all(Y.sum(axis=1) == db_size) and Y.min() >= 0
        assert np.unique(Y, axis=0).shape[0] == Y.shape[0]
    assert not multisets(3, 2).flags.writeable


def test_multisets_refuses_the_blow_up():
    with pytest.raises(ValueError, match="max_range_size"):
        multisets(16, 12)                         # C(27, 12) = 17 million
    with pytest.raises(ValueError, match="PROJ-E7"):
        multisets(8, 10, max_range_size=1000)


def test_candidate_errors_hand_value():
    # x = (3, 1): q(x) = (0.75, 0.25, 1); candidates (2,0), (1,1), (0,2) answer (1,0,1), (.5,.5,1), (0,1,1)
    np.testing.assert_allclose(candidate_errors([3, 1], PAIR_W, multisets(2, 2)), [0.25, 0.25, 0.75])


def test_smalldb_output(cancer3):
    x, W = cancer3
    out = smalldb(x, W, epsilon=1.0, alpha=0.6, rng=1)
    assert isinstance(out, SyntheticDatabase)
    assert out.db_size == smalldb_size(W.m, 0.6) == 9 and out.range_size == range_size(8, 9)
    assert out.y.shape == (8,) and out.y.sum() == out.db_size
    np.testing.assert_allclose(out.answers, W.answers(out.y))
    np.testing.assert_allclose(out.evaluate(W), out.answers)
    assert sum(step.epsilon for step in out.ledger) == out.epsilon == 1.0 and out.delta == 0.0
    batch = smalldb(x, W, epsilon=1.0, alpha=0.6, trials=5, rng=1)
    assert batch.y.shape == (5, 8) and batch.answers.shape == (5, W.m)
    np.testing.assert_allclose(batch.evaluate(W), batch.answers)


def test_single_release_is_the_exponential_mechanism(cancer3):
    x, W = cancer3
    net = multisets(8, 9)
    err = candidate_errors(x, W, net)
    pick = exponential_mechanism(-err, epsilon=0.3, sensitivity=1 / x.sum(), rng=17)
    np.testing.assert_array_equal(smalldb(x, W, epsilon=0.3, alpha=0.6, rng=17).y, net[pick])


def test_batch_follows_the_exact_distribution():
    x = np.array([2, 9])
    net = multisets(2, 4)
    _, p = exact_error_distribution(x, PAIR_W, net, epsilon=1.0)
    out = smalldb(x, PAIR_W, epsilon=1.0, alpha=0.6, trials=50_000, rng=5)
    picks = out.y[:, 1]                                       # candidate (4 - j, j) has index j
    assert stats.chisquare(np.bincount(picks, minlength=5), p * picks.size).pvalue > LEVEL


def test_large_epsilon_returns_the_best_candidate(cancer3):
    x, W = cancer3
    err = candidate_errors(x, W, multisets(8, 9))
    out = smalldb(x, W, epsilon=1e9, alpha=0.6, trials=20, rng=0)
    np.testing.assert_allclose(np.abs(out.answers - W.answers(x)).max(axis=1), err.min())


def test_net_mechanism_with_a_public_random_net(cancer3):
    x, W = cancer3
    net = np.random.default_rng(99).multinomial(40, np.full(8, 1 / 8), size=300)     # data-independent net
    out = net_mechanism(x, W, net, epsilon=2.0, trials=50, rng=3)
    assert out.range_size == 300 and out.mechanism == "net"
    assert all((row == net).all(axis=1).any() for row in out.y)
    fractional = net / 40.0                                                          # distributions work too
    np.testing.assert_allclose(candidate_errors(x, W, fractional), candidate_errors(x, W, net))


def test_project_dataset():
    data = load_cancer()
    small = project_dataset(data, ATTRS)
    assert small.N == 8 and small.n == data.n and small.universe.attributes == ATTRS
    cols = [data.universe.attributes.index(a) for a in ATTRS]
    full = MarginalWorkload(11, [((c,), (1,)) for c in cols])
    np.testing.assert_allclose(MarginalWorkload(3, [((i,), (1,)) for i in range(3)]).answers(small.x),
                               full.answers(data.x))
    assert project_dataset(data, [0, 10]).universe.attributes == ("radius_high", "malignant")


def test_subsample_errors_hand_case():
    # x = (1, 1), one query "is a": a 1-row sample always errs by exactly 1/2
    np.testing.assert_allclose(subsample_errors([1, 1], [[1.0, 0.0]], 1, trials=10, rng=0), 0.5)


# --------------------------------------------------------------------------- accuracy vs theory

@pytest.mark.parametrize("epsilon", [0.02, 0.3])
def test_net_bound_with_exact_opt(cancer3, epsilon):
    """DR-Thm3.11 / DR-Prop5.2 with the exact OPT: P[err >= OPT + 2(ln|R| + ln(1/β))/(εn)] <= β."""
    x, W = cancer3
    out = smalldb(x, W, epsilon=epsilon, alpha=0.6, trials=20_000, rng=41)
    opt = candidate_errors(x, W, multisets(8, out.db_size)).min()
    err = errors(out.answers, W.answers(x)).max
    for beta in (0.01, 0.1, 0.5):
        rate = failure_rate(err, net_error_bound(opt, out.range_size, epsilon, int(x.sum()), beta))
        assert rate.consistent_with(beta, LEVEL), (beta, rate)


def test_net_mechanism_accuracy_with_a_public_random_net(cancer3):
    """DR-Prop5.2 over a data-independent random net of 2,000 candidates (the §13 practical range)."""
    x, W = cancer3
    net = np.random.default_rng(98).multinomial(12, np.full(8, 1 / 8), size=2000)
    opt = candidate_errors(x, W, net).min()
    for epsilon in (0.05, 1.0):
        out = net_mechanism(x, W, net, epsilon=epsilon, trials=20_000, rng=45)
        err = errors(out.answers, W.answers(x)).max
        for beta in (0.01, 0.3):
            rate = failure_rate(err, net_error_bound(opt, 2000, epsilon, int(x.sum()), beta))
            assert rate.consistent_with(beta, LEVEL), (epsilon, beta, rate)


def test_prop44_on_real_data(cancer3):
    """DR-Prop4.4 on the cancer projection; its proof's two facts are checked first."""
    x, W = cancer3
    alpha, epsilon, n = 0.5, 0.1, int(x.sum())
    db_size = smalldb_size(W.m, alpha)
    assert log_range_size(8, db_size) <= math.log(8) * math.log(W.m) / alpha ** 2  # ln|R| <= ln N ln|Q|/α²
    assert candidate_errors(x, W, multisets(8, db_size)).min() <= alpha                # DR-Lemma4.3: OPT <= α
    err = errors(smalldb(x, W, epsilon=epsilon, alpha=alpha, trials=5_000, rng=42).answers, W.answers(x)).max
    for beta in (0.05, 0.5):
        assert failure_rate(err, prop44_error_bound(8, W.m, alpha, epsilon, n, beta)).consistent_with(beta, LEVEL)


def test_thm45_on_real_data():
    """DR-Thm4.5 where it is feasible: N = 4 (two cancer attributes), m = 8, n = 569 >= n*(α = 0.5) = 465."""
    data = project_dataset(load_cancer(), ("texture_high", "malignant"))
    W = MarginalWorkload(2, [c for k in (1, 2) for c in k_way_marginals(2, k).cells])
    alpha, epsilon, beta = 0.5, 1.0, 0.05
    assert data.n >= thm45_sample_complexity(4, W.m, alpha, epsilon, beta)
    out = smalldb(data.x, W, epsilon=epsilon, alpha=alpha / 2, trials=5_000, rng=43)
    assert out.db_size == 34 and out.range_size == 7770
    assert failure_rate(errors(out.answers, W.answers(data.x)).max, alpha).consistent_with(beta, LEVEL)


@pytest.mark.parametrize("alpha", [0.2, 0.35])
def test_lemma43_sampling_bound(cancer3, alpha):
    """DR-Lemma4.3 / IDC-ClaimA.3: P[an n_y-row i.i.d. sample errs by >= α] <= 2|Q| e^{-2 n_y α²}."""
    x, W = cancer3
    for db_size in (smalldb_size(W.m, alpha), claim_a3_size(W.m, alpha)):
        assert sampling_failure_bound(W.m, db_size, alpha) < 1
        err = subsample_errors(x, W, db_size, trials=20_000, rng=44)
        assert failure_rate(err, alpha).consistent_with(sampling_failure_bound(W.m, db_size, alpha), LEVEL), db_size


# --------------------------------------------------------------------------- privacy audits

def _audit_smalldb(mechanism, x, x_prime, alpha, seed):
    sample = lambda t, r: mechanism(x, PAIR_W, epsilon=1.0, alpha=alpha, trials=t, rng=r).y      # noqa: E731
    sample_prime = lambda t, r: mechanism(x_prime, PAIR_W, epsilon=1.0, alpha=alpha, trials=t, rng=r).y  # noqa
    return audit(sample, sample_prime, {"y has a row a": lambda y: y[:, 0] >= 1}, trials=AUDIT_TRIALS, rng=seed)


def test_audit_replace_one_pair():
    """n = 12 rows all b, then one replaced by a (n_y = 2): true loss 0.85 for SmallDB, 1.70 without the 1/2."""
    x, x_prime = np.array([0, 12]), np.array([1, 11])
    ok = _audit_smalldb(smalldb, x, x_prime, 0.8, 51)
    bad = _audit_smalldb(smalldb_no_half, x, x_prime, 0.8, 52)
    assert 0.5 < ok.epsilon_lb <= 1.0
    assert bad.epsilon_lb > 1.0


def test_audit_add_remove_pair():
    """Add one row a to (2, 9) (n_y = 4): n is read from the data, yet n·u has sensitivity 1."""
    x, x_prime = np.array([2, 9]), np.array([3, 9])
    ok = _audit_smalldb(smalldb, x, x_prime, 0.6, 53)
    bad = _audit_smalldb(smalldb_no_half, x, x_prime, 0.6, 54)
    assert 0.4 < ok.epsilon_lb <= 1.0
    assert bad.epsilon_lb > 1.0


# --------------------------------------------------------------------------- determinism

def test_determinism(cancer3):
    x, W = cancer3
    run = lambda seed, trials=200: smalldb(x, W, epsilon=0.05, alpha=0.6, trials=trials, rng=seed).y   # noqa
    np.testing.assert_array_equal(run(7), run(7))
    np.testing.assert_array_equal(run(np.random.default_rng(7)), run(7))
    assert not np.array_equal(run(7), run(8))
    one = lambda seed: smalldb(x, W, epsilon=0.05, alpha=0.6, rng=seed).y                            # noqa
    np.testing.assert_array_equal(one(3), one(3))
    assert any(not np.array_equal(one(3), one(s)) for s in range(4, 10))
    sub = lambda seed: subsample_errors(x, W, 5, trials=100, rng=seed)                                # noqa
    np.testing.assert_array_equal(sub(1), sub(1))
    assert not np.array_equal(sub(1), sub(2))


# --------------------------------------------------------------------------- bad input

def _smalldb(**override):
    params = dict(x=np.array([3, 5]), workload=PAIR_W, epsilon=1.0, alpha=0.8)
    params.update(override)
    return smalldb(params.pop("x"), params.pop("workload"), **params)


@pytest.mark.parametrize("x, error", [
    ([1.0, np.nan], ValueError), ([1, np.inf], ValueError), ([-1, 3], ValueError), ([0.5, 2], ValueError),
    ([[1, 2]], ValueError), ([0, 0], ValueError), (["a", "b"], TypeError), ([True, False], TypeError),
    ([1, 2, 3], ValueError),                      # wrong universe size for the workload
])
def test_bad_x(x, error):
    with pytest.raises(error, match="x"):
        _smalldb(x=x)


@pytest.mark.parametrize("workload, error, match", [
    (np.array([[1.0, 2.0]]), ValueError, "workload"), (np.array([[np.nan, 0.0]]), ValueError, "workload"),
    (np.array([1.0, 0.0]), ValueError, "workload"), ("queries", TypeError, "workload"), (None, TypeError, "workload"),
    (np.array([[1.0, 0.0]]), ValueError, r"m \(1\)"),           # one query: n_y = 0
])
def test_bad_workload(workload, error, match):
    with pytest.raises(error, match=match):
        _smalldb(workload=workload)


@pytest.mark.parametrize("param", ["epsilon", "alpha"])
@pytest.mark.parametrize("value, error", [
    (0.0, ValueError), (-1.0, ValueError), (np.nan, ValueError), (np.inf, ValueError), ("1", TypeError),
    (None, TypeError), (True, TypeError),
])
def test_bad_epsilon_alpha(param, value, error):
    with pytest.raises(error, match=param):
        _smalldb(**{param: value})


def test_alpha_above_one():
    with pytest.raises(ValueError, match="alpha"):
        _smalldb(alpha=1.5)


@pytest.mark.parametrize("value, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError), ("5", TypeError)])
def test_bad_trials(value, error):
    with pytest.raises(error, match="trials"):
        _smalldb(trials=value)


@pytest.mark.parametrize("value, error", [(-1, ValueError), (0.5, TypeError), ("seed", TypeError)])
def test_bad_rng(value, error):
    with pytest.raises(error, match="rng"):
        _smalldb(rng=value)


@pytest.mark.parametrize("value, error", [(0, ValueError), (2, ValueError), (1e9, TypeError), ("big", TypeError)])
def test_bad_max_range_size(value, error):
    with pytest.raises(error, match="max_range_size"):
        _smalldb(max_range_size=value)


@pytest.mark.parametrize("net, error", [
    (np.array([[1, 0, 0]]), ValueError), (np.array([[-1, 2]]), ValueError), (np.array([[0, 0], [1, 1]]), ValueError),
    (np.array([[np.nan, 1]]), ValueError), (np.array([["a", "b"]]), TypeError), (np.array([1, 1]), ValueError),
    (np.zeros((0, 2)), ValueError), (np.array([[True, False]]), TypeError),
])
def test_bad_net(net, error):
    with pytest.raises(error, match="net"):
        net_mechanism([3, 5], PAIR_W, net, epsilon=1.0)


@pytest.mark.parametrize("call, error, match", [
    (lambda: multisets(0, 2), ValueError, "N"), (lambda: multisets(2, 0), ValueError, "db_size"),
    (lambda: multisets(2.0, 2), TypeError, "N"),
    (lambda: subsample_errors([3, 5], PAIR_W, 0, trials=5), ValueError, "db_size"),
    (lambda: subsample_errors([3, 5], PAIR_W, 2, trials=0), ValueError, "trials"),
    (lambda: exact_error_distribution([3, 5], PAIR_W, multisets(2, 2), epsilon=0), ValueError, "epsilon"),
    (lambda: project_dataset("cancer", ATTRS), TypeError, "dataset"),
    (lambda: project_dataset(load_cancer(), ("nope",)), ValueError, "nope"),
    (lambda: project_dataset(load_cancer(), (0, 0)), ValueError, "distinct"),
    (lambda: project_dataset(load_cancer(), (11,)), ValueError, "11"),
    (lambda: project_dataset(load_cancer(), ()), ValueError, "attributes"),
    (lambda: project_dataset(load_cancer(), "malignant"), ValueError, "attributes"),
    (lambda: SyntheticDatabase(np.array([1, 1]), np.zeros(3), "x", 2, 3, (Spend("x", 1.0),)).evaluate(np.ones((1, 3))),
     ValueError, "universe"),
])
def test_other_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: smalldb_size(0, 0.5), "m"), (lambda: smalldb_size(3, 0.0), "alpha"),
    (lambda: claim_a3_size(3, -1.0), "alpha"), (lambda: range_size(0, 1), "N"), (lambda: range_size(2, -1), "db_size"),
    (lambda: log_range_size(2, 1.5), "db_size"), (lambda: sampling_failure_bound(3, 0, 0.5), "db_size"),
    (lambda: net_error_bound(-0.1, 10, 1.0, 100, 0.1), "alpha"), (lambda: net_error_bound(0.1, 0, 1.0, 100, 0.1),
                                                                    "net_size"),
    (lambda: net_error_bound(0.1, 10, 1.0, 0, 0.1), "n"), (lambda: prop44_error_bound(8, 12, 0.5, 1.0, 569, 0.0),
                                                          "beta"),
    (lambda: thm45_sample_complexity(8, 12, np.nan, 1.0, 0.1), "alpha"),
    (lambda: thm45_error_bound(8, 12, 1.0, 100.5, 0.1), "n"), (lambda: proj_r3_sample_complexity(8, 12, 0.5, "1"),
                                                               "epsilon"),
])
def test_theory_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_net_mechanism_and_smalldb_refuse_queries_outside_the_unit_range():
    from dpbook.graphs import cut_workload
    W = cut_workload(3, [([0, 1], [0, 1]), ([0], [2])])
    x = np.array([1, 0, 1])
    with pytest.raises(ValueError, match=r"workload has entries in \[0, 2\]"):
        net_mechanism(x, W, np.eye(3, dtype=np.int64), epsilon=1.0, rng=0)
    with pytest.raises(ValueError, match=r"workload has entries in \[0, 2\]"):
        smalldb(x, W, epsilon=1.0, alpha=0.9, rng=0)


def test_thm45_histogram_crossover_hand_value():
    from dpbook.theory.smalldb import thm45_error_bound, thm45_histogram_crossover
    from dpbook.theory.histogram import histogram_error_bound
    N, m, beta = 2 ** 16, 4480, 0.05
    c = 16 * math.log(N) * math.log(m) + 4 * math.log(1 / beta)          # ≈ 1504.2 (by hand)
    h = math.sqrt(6 * N * math.log(2 * m / beta))                          # ≈ 2181.5
    n_x, a_x = thm45_histogram_crossover(N, m, 1.0, beta)
    assert a_x == pytest.approx(math.sqrt(c / h)) and n_x == pytest.approx(h ** 1.5 / math.sqrt(c))
    assert a_x == pytest.approx(0.830, abs=2e-3) and n_x == pytest.approx(2626, rel=1e-3)
    # at the crossing both bounds agree; below it SmallDB's is smaller, above it the histogram's
    n0 = int(n_x)
    assert thm45_error_bound(N, m, 1.0, n0, beta) == pytest.approx(histogram_error_bound(N, m, beta, 1.0, n=n0), rel=1e-3)
    assert thm45_error_bound(N, m, 1.0, n0 // 4, beta) < histogram_error_bound(N, m, beta, 1.0, n=n0 // 4)
    assert thm45_error_bound(N, m, 1.0, 4 * n0, beta) > histogram_error_bound(N, m, beta, 1.0, n=4 * n0)
    # ε scales both numerators: n_x ∝ 1/ε, α_x unchanged
    n2, a2 = thm45_histogram_crossover(N, m, 2.0, beta)
    assert n2 == pytest.approx(n_x / 2) and a2 == pytest.approx(a_x)
    for kw, name in [(dict(N=1, m=3, epsilon=1.0, beta=0.05), "N"), (dict(N=8, m=0, epsilon=1.0, beta=0.05), "m"),
                     (dict(N=8, m=3, epsilon=0.0, beta=0.05), "epsilon"), (dict(N=8, m=3, epsilon=1.0, beta=1.5), "beta")]:
        with pytest.raises(ValueError, match=name):
            thm45_histogram_crossover(**kw)
