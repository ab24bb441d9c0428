"""The exponential mechanism and report-noisy-max (DR-Def3.4, DR-Thm3.10/3.11, DR-Claim3.9; chapter 07)."""
import math

import numpy as np
import pytest
from scipy import stats

from dpbook.audit import audit
from dpbook.broken.exponential import exponential_mechanism_no_half, report_noisy_max_half_noise
from dpbook.data import load_cancer
from dpbook.broken.noise import broken_noise
from dpbook.experiments import failure_rate
from dpbook.exponential import (check_scores, exponential_mechanism, exponential_probabilities, exponential_sample,
                                report_noisy_max)
from dpbook.theory.exponential import (exact_privacy_loss, exponential_tail_bound, exponential_utility_gap,
                                       report_noisy_max_gap, report_noisy_max_scale, utility_pair)

LEVEL = 1e-6          # false-alarm probability of every statistical check
EPS = 1.0
AUDIT_TRIALS = 200_000


def chi_square_p(picks, p):
    """p-value of a chi-square goodness-of-fit test of the picks against the probabilities p."""
    observed = np.bincount(picks, minlength=p.size)
    return stats.chisquare(observed, p * picks.size).pvalue


# --------------------------------------------------------------------------- theory: hand-computed values

def test_utility_gap_hand_values():
    # 2Δu/ε (ln(|R|/|R_OPT|) + ln(1/β)) with |R| = 100, ε = 2, Δu = 1, β = 0.01: 2 ln 100 = 9.21034
    assert exponential_utility_gap(100, 2.0, 1.0, 0.01) == pytest.approx(9.210340371976184, rel=1e-12)
    # |R_OPT| = 10: ln(100/10) + ln(100) = ln 1000 = 6.907755
    assert exponential_utility_gap(100, 2.0, 1.0, 0.01, opt_size=10) == pytest.approx(6.907755278982137, rel=1e-12)
    # huge ranges (C(40, 33) and beyond) are Python ints
    assert exponential_utility_gap(10 ** 400, 1.0, 1.0, 1.0) == pytest.approx(2 * 400 * math.log(10), rel=1e-12)


def test_tail_bound_hand_values():
    # 100 · exp(-ε gap/(2Δu)) with gap = ln 100 + ln 4, ε = 2, Δu = 1: 1/4
    assert exponential_tail_bound(math.log(100) + math.log(4), 100, 2.0, 1.0) == pytest.approx(0.25, rel=1e-12)
    assert exponential_tail_bound(0.0, 100, 2.0, 1.0) == 1.0                       # capped at 1
    np.testing.assert_allclose(exponential_tail_bound([0.0, 2 * math.log(10)], 10, 1.0, 1.0, opt_size=10),
                               [1.0, 0.1])


def test_report_noisy_max_scale_and_gap_hand_values():
    assert report_noisy_max_scale(1.0, 1.0, monotone=True) == 1.0
    assert report_noisy_max_scale(1.0, 1.0) == 2.0
    assert report_noisy_max_scale(0.5, 3.0) == 12.0
    # 2 b ln(K/β), b = 1, K = 10, β = 0.1: 2 ln 100 = 9.21034
    assert report_noisy_max_gap(10, 1.0, 1.0, 0.1, monotone=True) == pytest.approx(9.210340371976184, rel=1e-12)
    assert report_noisy_max_gap(10, 1.0, 1.0, 0.1) == pytest.approx(2 * 9.210340371976184, rel=1e-12)


# --------------------------------------------------------------------------- unit

def test_utility_pair_and_exact_loss_hand_values():
    u, u2 = utility_pair(10, monotone=False)
    assert u.tolist() == [0.0] * 10 and u2[0] == 1.0 and np.all(u2[1:] == -1.0)
    m, m2 = utility_pair(5, monotone=True)
    assert m.tolist() == [0.0] * 5 and m2[0] == 0.0 and np.all(m2[1:] == 1.0)
    eps = 1.0                       # the loss at candidate 0 is ln(K / (1 + (K-1) e^{-ε})) (chapter 07, the ½)
    assert math.isclose(exact_privacy_loss(u, u2, eps), math.log(10 / (1 + 9 * math.exp(-eps))), rel_tol=1e-12)
    assert exact_privacy_loss(u, u2, eps) <= eps < exact_privacy_loss(u, u2, 2 * eps)     # the missing ½
    # the exact loss agrees with the mechanism's own output law, and stays finite where the law underflows
    p, p2 = (exponential_probabilities(v, epsilon=eps, sensitivity=1.0) for v in (m, m2))
    assert math.isclose(exact_privacy_loss(m, m2, eps), float(np.abs(np.log(p / p2)).max()), rel_tol=1e-12)
    big = exact_privacy_loss(u, u2, 1e4)                          # P[M(u') = r > 0] ~ e^{-10^4}: a float64 0
    assert math.isfinite(big) and big <= 1e4
    with pytest.raises(ValueError, match="size"):
        utility_pair(1, monotone=True)
    with pytest.raises(TypeError, match="monotone"):
        utility_pair(3, monotone="yes")
    with pytest.raises(ValueError, match="u2"):
        exact_privacy_loss(u, u2[:3], eps)
    with pytest.raises(ValueError, match="u"):
        exact_privacy_loss(np.zeros((2, 2)), np.zeros((2, 2)), eps)
    with pytest.raises(ValueError, match="epsilon"):
        exact_privacy_loss(u, u2, 0.0)
    with pytest.raises(TypeError, match="u2"):
        exact_privacy_loss(u, ["a"] * 10, eps)
    with pytest.raises(ValueError, match="u"):
        exact_privacy_loss(np.full(10, np.nan), u2, eps)
    assert utility_pair(4)[1].tolist() == [1.0, -1.0, -1.0, -1.0]           # non-monotone by default


def test_probabilities_hand_value():
    # weights exp(ε u / (2Δu)) = exp(u) for ε = 2, Δu = 1: (1, 3) / 4
    np.testing.assert_allclose(exponential_probabilities([0.0, math.log(3)], epsilon=2.0, sensitivity=1.0),
                               [0.25, 0.75], rtol=1e-12)
    np.testing.assert_allclose(exponential_probabilities([0.0, math.log(3)], epsilon=1.0, sensitivity=0.5),
                               [0.25, 0.75], rtol=1e-12)
    np.testing.assert_allclose(exponential_probabilities([5, 5, 5, 5], epsilon=3.0, sensitivity=1.0), [0.25] * 4)


def test_stable_at_extreme_epsilon_and_scores():
    p = exponential_probabilities([1e300, -1e300, 0.0], epsilon=1e10, sensitivity=1e-10)
    np.testing.assert_array_equal(p, [1.0, 0.0, 0.0])
    assert exponential_mechanism([1e300, -1e300, 0.0], epsilon=1e10, sensitivity=1e-10, rng=1) == 0
    assert exponential_mechanism([0.0, 1.0, 0.5], epsilon=1e12, sensitivity=1.0, trials=100, rng=2).tolist() == [1] * 100
    p = exponential_probabilities(np.zeros(10 ** 5) - 1e6, epsilon=1e-3, sensitivity=1.0)     # tiny ε: uniform
    np.testing.assert_allclose(p, 1e-5, rtol=1e-9)


def test_mechanism_is_gumbel_max_on_shifted_logits():
    """Pins the behaviour other chapters rely on (MWEM): argmax of ε(u - max u)/(2Δu) + Gumbel."""
    u = np.array([0.3, -1.0, 2.0, 1.5])
    logits = 0.7 * (u - u.max()) / (2 * 0.25)
    expected = np.argmax(logits + np.random.default_rng(5).gumbel(size=(50, 4)), axis=-1)
    np.testing.assert_array_equal(exponential_mechanism(u, epsilon=0.7, sensitivity=0.25, trials=50, rng=5), expected)
    single = exponential_mechanism(u, epsilon=0.7, sensitivity=0.25, rng=5)
    assert isinstance(single, int) and single == int(np.argmax(logits + np.random.default_rng(5).gumbel(size=4)))


@pytest.mark.parametrize("sampler", ["gumbel", "inverse-cdf"])
def test_samplers_follow_the_exact_distribution(sampler):
    u = np.array([0.0, 1.0, 2.0, 3.5, -2.0])
    p = exponential_probabilities(u, epsilon=1.0, sensitivity=1.0)
    if sampler == "gumbel":
        picks = exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, trials=100_000, rng=11)
    else:
        picks = exponential_sample(u, epsilon=1.0, sensitivity=1.0, size=100_000, rng=11)
    assert picks.shape == (100_000,) and picks.min() >= 0 and picks.max() < u.size
    assert chi_square_p(picks, p) > LEVEL


def test_report_noisy_max_two_candidates_exact():
    # scores (1, 0), Lap(1) noise (monotone, ε = 1): P[pick 0] = 1 - P[Z2 - Z1 >= 1] = 1 - e^{-1}(1 + 1/2)/2
    picks = report_noisy_max([1.0, 0.0], epsilon=1.0, sensitivity=1.0, monotone=True, trials=100_000, rng=3)
    p0 = 1 - 0.75 * math.exp(-1)
    assert stats.binomtest(int(np.sum(picks == 0)), picks.size, p0).pvalue > LEVEL
    # non-monotone default doubles the scale: P[pick 0] = 1 - e^{-1/2}(1 + 1/4)/2
    picks = report_noisy_max([1.0, 0.0], epsilon=1.0, sensitivity=1.0, trials=100_000, rng=4)
    assert stats.binomtest(int(np.sum(picks == 0)), picks.size, 1 - 0.625 * math.exp(-0.5)).pvalue > LEVEL


def test_report_noisy_max_uses_the_sampler():
    zero = broken_noise("BROKEN zero noise", "laplace", None, lambda scale, size, rng: np.zeros(size))
    assert report_noisy_max([0.0, 3.0, 1.0], epsilon=1.0, sensitivity=1.0, sampler=zero) == 1
    assert report_noisy_max([0.0, 3.0, 1.0], epsilon=1e12, sensitivity=1.0, monotone=True, rng=0) == 1
    picks = report_noisy_max([0.0, 3.0, 1.0], epsilon=1.0, sensitivity=1.0, trials=7, rng=0)
    assert picks.shape == (7,) and picks.dtype.kind == "i"


# --------------------------------------------------------------------------- accuracy vs theory

def _cancer_counts():
    return load_cancer().x.astype(np.float64)            # u(x, r) = count of row r, Δu = 1, |R| = 2048


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_exponential_utility_theorem_sampled(epsilon):
    """DR-Thm3.11 / Cor3.12 (ACC template): P[OPT - u(M(x)) >= 2Δu/ε (ln|R| + ln(1/β))] <= β."""
    u = _cancer_counts()
    gap = u.max() - u[exponential_mechanism(u, epsilon=epsilon, sensitivity=1.0, trials=20_000, rng=21)]
    for beta in (0.01, 0.1, 0.5):
        rate = failure_rate(gap, exponential_utility_gap(u.size, epsilon, 1.0, beta))
        assert rate.consistent_with(beta, LEVEL), (beta, rate)


def test_exponential_utility_theorem_exact():
    """DR-Thm3.11 on the exact output law, with ties at the optimum (|R_OPT| = 50) and without."""
    u = np.concatenate([np.full(50, 10.0), np.linspace(-40, 9.5, 5000)])
    for epsilon in (0.05, 0.5, 5.0):
        p = exponential_probabilities(u, epsilon=epsilon, sensitivity=1.0)
        gaps = np.linspace(0, 60, 241)
        exact_tail = np.array([p[u.max() - u >= g].sum() for g in gaps])
        assert np.all(exact_tail <= exponential_tail_bound(gaps, u.size, epsilon, 1.0, opt_size=50) * (1 + 1e-9))
        assert np.all(exact_tail <= exponential_tail_bound(gaps, u.size, epsilon, 1.0) * (1 + 1e-9))


def test_report_noisy_max_accuracy():
    """[DERIVED from DR-Thm3.8] P[OPT - u(RNM) >= 2 b ln(|R|/β)] <= β, on the cancer counts (monotone, b = 1/ε)."""
    u = _cancer_counts()
    for monotone in (True, False):
        picks = report_noisy_max(u, epsilon=0.2, sensitivity=1.0, monotone=monotone, trials=5_000, rng=22)
        for beta in (0.01, 0.2):
            rate = failure_rate(u.max() - u[picks], report_noisy_max_gap(u.size, 0.2, 1.0, beta, monotone=monotone))
            assert rate.consistent_with(beta, LEVEL), (monotone, beta, rate)


# --------------------------------------------------------------------------- privacy audits

def _nonmonotone_pair(K=10):
    """u(x) = 0 everywhere, u(x') = +1 on candidate 0 and -1 elsewhere: Δu = 1, the normaliser moves against r=0."""
    u, u_prime = np.zeros(K), -np.ones(K)
    u_prime[0] = 1.0
    return u, u_prime


def _audit_picks(mechanism, u, u_prime, *, epsilon=EPS, seed=31, **kw):
    sample = lambda t, r: mechanism(u, epsilon=epsilon, sensitivity=1.0, trials=t, rng=r, **kw)        # noqa: E731
    sample_prime = lambda t, r: mechanism(u_prime, epsilon=epsilon, sensitivity=1.0, trials=t, rng=r, **kw)  # noqa
    return audit(sample, sample_prime, {"pick 0": lambda o: o == 0}, trials=AUDIT_TRIALS, rng=seed)


def test_audit_exponential_mechanism_nonmonotone_pair():
    """True loss on this pair: ln(10/(1 + 9e^{-1})) = 0.841 for the mechanism, 1.506 without the 1/2."""
    u, u_prime = _nonmonotone_pair()
    ok = _audit_picks(exponential_mechanism, u, u_prime)
    bad = _audit_picks(exponential_mechanism_no_half, u, u_prime)
    assert ok.epsilon_lb <= EPS
    assert ok.epsilon_lb > 0.5 * EPS                           # the pair is tight enough to mean something
    assert bad.epsilon_lb > EPS                                # the missing factor 1/2 is caught


def test_no_half_is_private_on_monotone_pairs_exactly():
    """Why the audit needs a non-monotone pair: when all scores move the same way, exp(εu/Δu) is still ε-DP."""
    for K in (2, 10, 1000):
        u, u_prime = np.zeros(K), np.zeros(K)
        u_prime[0] = 1.0                                       # one row added that only candidate 0 counts
        p = exponential_probabilities(u, epsilon=2 * EPS, sensitivity=1.0)    # = the broken mechanism at ε
        p_prime = exponential_probabilities(u_prime, epsilon=2 * EPS, sensitivity=1.0)
        assert np.abs(np.log(p / p_prime)).max() <= EPS + 1e-12
        u_prime = np.ones(K)
        u_prime[0] = 0.0                                       # a row every other candidate counts
        p_prime = exponential_probabilities(u_prime, epsilon=2 * EPS, sensitivity=1.0)
        assert np.abs(np.log(p / p_prime)).max() <= EPS + 1e-12
    u, u_prime = _nonmonotone_pair()
    loss = np.abs(np.log(exponential_probabilities(u, epsilon=2 * EPS, sensitivity=1.0)
                         / exponential_probabilities(u_prime, epsilon=2 * EPS, sensitivity=1.0))).max()
    assert loss > EPS                                          # but not on a non-monotone one


def test_audit_report_noisy_max_monotone_pair():
    """Counting queries: adding a row counted by every query except query 0 (true loss near ε)."""
    u, u_prime = np.zeros(5), np.ones(5)
    u_prime[0] = 0.0
    ok = _audit_picks(report_noisy_max, u, u_prime, monotone=True)
    bad = _audit_picks(report_noisy_max_half_noise, u, u_prime, monotone=True)
    assert 0.5 * EPS < ok.epsilon_lb <= EPS
    assert bad.epsilon_lb > EPS                                # half the noise is caught


def test_audit_report_noisy_max_nonmonotone_pair():
    """Lap(2Δu/ε) is private on a non-monotone pair; claiming monotone (Lap(Δu/ε)) there is caught."""
    u, u_prime = _nonmonotone_pair()
    ok = _audit_picks(report_noisy_max, u, u_prime, monotone=False)
    misuse = _audit_picks(report_noisy_max, u, u_prime, monotone=True)
    assert ok.epsilon_lb <= EPS
    assert misuse.epsilon_lb > EPS


# --------------------------------------------------------------------------- determinism

@pytest.mark.parametrize("draw", [
    lambda r: exponential_mechanism(np.arange(20.0), epsilon=0.5, sensitivity=1.0, trials=500, rng=r),
    lambda r: exponential_sample(np.arange(20.0), epsilon=0.5, sensitivity=1.0, size=500, rng=r),
    lambda r: report_noisy_max(np.arange(20.0), epsilon=0.5, sensitivity=1.0, trials=500, rng=r),
])
def test_determinism(draw):
    np.testing.assert_array_equal(draw(7), draw(7))
    np.testing.assert_array_equal(draw(np.random.default_rng(7)), draw(7))
    assert not np.array_equal(draw(7), draw(8))


# --------------------------------------------------------------------------- bad input

def _call(name, **override):
    params = {"scores": [0.0, 1.0, 2.0], "epsilon": 1.0, "sensitivity": 1.0}
    params.update(override)
    scores = params.pop("scores")
    if name == "mechanism":
        return exponential_mechanism(scores, **params)
    if name == "probabilities":
        params.pop("trials", None), params.pop("rng", None)
        return exponential_probabilities(scores, **params)
    if name == "sample":
        params.setdefault("size", params.pop("trials", 3) or 3)
        return exponential_sample(scores, **params)
    return report_noisy_max(scores, **params)


FUNCS = ["mechanism", "probabilities", "sample", "rnm"]


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("scores, error", [
    ([], ValueError), ([[0.0, 1.0]], ValueError), ([0.0, np.nan], ValueError), ([np.inf, 0.0], ValueError),
    ([-np.inf], ValueError), (np.zeros((2, 2)), ValueError), (["a", "b"], TypeError), ([True, False], TypeError),
    ([1 + 1j], TypeError), ([None, 1.0], TypeError), (5.0, ValueError),
])
def test_bad_scores(func, scores, error):
    if func == "mechanism" and np.ndim(scores) == 2:
        pytest.skip("2-D scores are a batch for exponential_mechanism (tested in test_batched_scores_one_pick_per_row)")
    with pytest.raises(error, match="scores"):
        _call(func, scores=scores)


@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("param", ["epsilon", "sensitivity"])
@pytest.mark.parametrize("value, error", [
    (0.0, ValueError), (-1.0, ValueError), (np.nan, ValueError), (np.inf, ValueError),
    ("1", TypeError), (None, TypeError), (True, TypeError), ([1.0], TypeError),
])
def test_bad_epsilon_and_sensitivity(func, param, value, error):
    with pytest.raises(error, match=param):
        _call(func, **{param: value})


@pytest.mark.parametrize("func", ["mechanism", "rnm"])
@pytest.mark.parametrize("value, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError),
                                          ("10", TypeError)])
def test_bad_trials(func, value, error):
    with pytest.raises(error, match="trials"):
        _call(func, trials=value)


@pytest.mark.parametrize("value, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (None, TypeError)])
def test_bad_size(value, error):
    with pytest.raises(error, match="size"):
        exponential_sample([0.0, 1.0], epsilon=1.0, sensitivity=1.0, size=value)


@pytest.mark.parametrize("func", ["mechanism", "sample", "rnm"])
@pytest.mark.parametrize("value, error", [(-1, ValueError), (1.5, TypeError), ("seed", TypeError)])
def test_bad_rng(func, value, error):
    with pytest.raises(error, match="rng"):
        _call(func, rng=value)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_bad_monotone(value):
    with pytest.raises(TypeError, match="monotone"):
        report_noisy_max([0.0, 1.0], epsilon=1.0, sensitivity=1.0, monotone=value)


def test_check_scores_returns_float_array():
    out = check_scores([1, 2, 3])
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("call, match", [
    (lambda: exponential_utility_gap(0, 1.0, 1.0, 0.1), "range_size"),
    (lambda: exponential_utility_gap(10, 1.0, 1.0, 0.1, opt_size=11), "opt_size"),
    (lambda: exponential_utility_gap(10, 1.0, 1.0, 0.0), "beta"),
    (lambda: exponential_utility_gap(10, 1.0, 1.0, 1.5), "beta"),
    (lambda: exponential_utility_gap(10.5, 1.0, 1.0, 0.1), "range_size"),
    (lambda: exponential_utility_gap(10, -1.0, 1.0, 0.1), "epsilon"),
    (lambda: exponential_utility_gap(10, 1.0, np.nan, 0.1), "sensitivity"),
    (lambda: exponential_tail_bound(-1.0, 10, 1.0, 1.0), "gap"),
    (lambda: exponential_tail_bound([np.nan], 10, 1.0, 1.0), "gap"),
    (lambda: exponential_tail_bound(1.0, 10, 1.0, 1.0, opt_size=0), "opt_size"),
    (lambda: report_noisy_max_gap(0, 1.0, 1.0, 0.1), "range_size"),
    (lambda: report_noisy_max_gap(10, 1.0, 1.0, 2.0), "beta"),
    (lambda: report_noisy_max_scale(1.0, 1.0, monotone="no"), "monotone"),
])
def test_theory_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_batched_scores_one_pick_per_row():
    """2-D scores: row t is an independent exponential mechanism on scores[t] (chi-square at 1e-6)."""
    from scipy import stats
    from dpbook.exponential import exponential_mechanism, exponential_probabilities
    u = np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    picks = exponential_mechanism(np.repeat(u, 20_000, axis=0), epsilon=1.0, sensitivity=1.0, rng=5)
    for row in (0, 1):
        observed = np.bincount(picks[row * 20_000:(row + 1) * 20_000], minlength=3)
        expected = 20_000 * exponential_probabilities(u[row], epsilon=1.0, sensitivity=1.0)
        assert stats.chisquare(observed, expected).pvalue > 1e-6
    with pytest.raises(ValueError, match="trials"):
        exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, trials=3)
    with pytest.raises(ValueError, match="scores"):
        exponential_mechanism(np.zeros((2, 2, 2)), epsilon=1.0, sensitivity=1.0)
