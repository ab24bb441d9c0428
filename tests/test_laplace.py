"""The Laplace mechanism (chapter 01) and its bounds in dpbook.theory.laplace (hand values of every bound)."""
import math

import numpy as np
import pytest

from bad_input import BAD_EPSILON, BAD_TRIALS_AND_RNG
from dpbook.audit import audit
from dpbook.broken.noise import broken_noise
from dpbook.data import load_cancer
from dpbook.experiments import failure_rate, run_trials
from dpbook.laplace import laplace_mechanism
from dpbook.noise import laplace_noise
from dpbook.queries import MatrixWorkload, conjunctions
from dpbook.theory.laplace import (split_budget_error_bound, split_budget_sample_complexity, laplace_cdf,
                                   laplace_failure_probability, laplace_max_error_bound, laplace_scale, laplace_tail,
                                   per_query_epsilon)

X = load_cancer().x
W = conjunctions(11, 2)
ONE = MatrixWorkload(np.array([[0.0, 1.0]]))


def test_release_fields_and_ledger():
    r = laplace_mechanism(X, W, n=int(X.sum()), epsilon=0.5, rng=0)
    assert r.answers.shape == (W.m,) and r.epsilon == 0.5 and r.delta == 0.0
    assert r.noise_scale == pytest.approx(W.l1_sensitivity() / 0.5 / X.sum())
    assert sum(s.epsilon for s in r.ledger) == pytest.approx(0.5)
    assert laplace_mechanism(X, W, n=int(X.sum()), epsilon=0.5, trials=7, rng=0).answers.shape == (7, W.m)


def test_accuracy_dr_thm_3_8():
    """ACC: P[max error >= ln(k/β)Δf/(nε)] <= β, CP lower bound at 1e-6 must not exceed β."""
    eps, beta = 0.7, 0.05
    err = run_trials(laplace_mechanism, X, W, trials=40_000, rng=1, epsilon=eps)
    bound = laplace_max_error_bound(W.m, beta, W.l1_sensitivity(), eps) / X.sum()
    rate = failure_rate(err.max, bound)
    assert rate.consistent_with(beta)
    assert rate.rate > 0.02              # and the bound is not vacuous: the union bound is nearly tight


def test_accuracy_check_catches_too_much_noise():
    """The same check fails for a mechanism with twice the noise (the test can fail)."""
    double = broken_noise("BROKEN double laplace", "laplace", None, lambda scale, size, rng: laplace_noise(2 * scale, size, rng))
    err = run_trials(laplace_mechanism, X, W, trials=40_000, rng=1, epsilon=0.7, sampler=double)
    bound = laplace_max_error_bound(W.m, 0.05, W.l1_sensitivity(), 0.7) / X.sum()
    assert not failure_rate(err.max, bound).consistent_with(0.05)


def _counts(x, **kw):
    return lambda t, r: laplace_mechanism(x, ONE, epsilon=1.0, n=1, trials=t, rng=r, **kw).answers[:, 0]   # counts (n = 1)


def test_audit_tight_pair():
    """PA: q(D)=0 vs q(D')=1, S={y<=0}; ratio is exactly e^ε. ε_lb <= ε and close to it."""
    res = audit(_counts(np.array([1, 0])), _counts(np.array([1, 1])), {"y<=0": lambda y: y <= 0},
                trials=1_000_000, rng=2)
    assert 0.95 < res.epsilon_lb <= 1.0


def test_audit_catches_halved_sensitivity():
    half = broken_noise("BROKEN half laplace", "laplace", None, lambda scale, size, rng: laplace_noise(scale / 2, size, rng))
    res = audit(_counts(np.array([1, 0]), sampler=half), _counts(np.array([1, 1]), sampler=half),
                {"y<=0": lambda y: y <= 0}, trials=1_000_000, rng=2)
    assert res.epsilon_lb > 1.5


def test_determinism():
    a = laplace_mechanism(X, W, n=int(X.sum()), epsilon=1.0, rng=42).answers
    assert np.array_equal(a, laplace_mechanism(X, W, n=int(X.sum()), epsilon=1.0, rng=42).answers)
    assert not np.array_equal(a, laplace_mechanism(X, W, n=int(X.sum()), epsilon=1.0, rng=43).answers)
    g = np.random.default_rng(9)
    assert not np.array_equal(laplace_mechanism(X, W, n=int(X.sum()), epsilon=1.0, rng=g).answers,
                              laplace_mechanism(X, W, n=int(X.sum()), epsilon=1.0, rng=g).answers)


@pytest.mark.parametrize("kwargs,exc,name", [
    *BAD_EPSILON,
    *BAD_TRIALS_AND_RNG,
    (dict(epsilon=1.0, sensitivity=0.0), ValueError, "sensitivity"),
    (dict(epsilon=1.0, sensitivity=np.inf), ValueError, "sensitivity"),
    (dict(epsilon=1.0, sensitivity=1.0), ValueError, "sensitivity"),        # below the workload's Δf
    (dict(epsilon=1.0, sampler="laplace"), TypeError, "sampler"),
    (dict(epsilon=1.0, n=0), ValueError, "n"),
    (dict(epsilon=1.0, n=2.5), TypeError, "n"),
])
def test_bad_parameters(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        laplace_mechanism(X, W, **{"n": int(X.sum()), **kwargs})


def test_bad_data_and_workload():
    with pytest.raises(ValueError, match="x"):
        laplace_mechanism(-X, W, n=int(np.sum(-X)), epsilon=1.0)
    with pytest.raises(ValueError, match="universe"):
        laplace_mechanism(X[:100], W, n=int(np.sum(X[:100])), epsilon=1.0)
    with pytest.raises(TypeError, match="workload"):
        laplace_mechanism(X, "W", n=int(X.sum()), epsilon=1.0)
    with pytest.raises(ValueError, match="workload"):
        laplace_mechanism(np.array([1, 1]), np.array([[2.0, 0.0]]), n=int(np.sum(np.array([1, 1]))), epsilon=1.0)


def test_public_n_keeps_add_remove_neighbours_private():
    """Normalising by the private n leaks it (n=1 vs n=2 changes the answer's scale); with one public n the
    pair differs only in its count and the tight audit stays <= ε, while the private-n default is caught."""
    x, x_prime = np.array([1, 0]), np.array([1, 1])             # counts 0 and 1, n = 1 and 2
    def answers(xx, **kw):
        return lambda t, r: laplace_mechanism(xx, ONE, epsilon=1.0, trials=t, rng=r, **kw).answers[:, 0]
    events = {f"y>{c}": (lambda y, c=c: y > c) for c in (0.0, 1.0, 2.0, 3.0)}
    public = audit(answers(x, n=2), answers(x_prime, n=2), events, trials=400_000, rng=3)
    private = audit(answers(x, n=1), answers(x_prime, n=2), events, trials=400_000, rng=3)   # n = ||x||_1 each
    assert public.epsilon_lb <= 1.0 < private.epsilon_lb
    with pytest.raises(ValueError, match="n .*public"):         # the API no longer reads n from the data ...
        laplace_mechanism(x, ONE, epsilon=1.0)
    replace = laplace_mechanism(x, ONE, epsilon=1.0, neighbours="replace-one", rng=0)   # ... unless replace-one
    assert replace.neighbours == "replace-one" and replace.trace["sensitivity"] == 2.0


def test_cdf_hand_values():
    """S1-Def5 (LEC3-E1 corrected): F(mu)=1/2, F(mu - b) = e^{-1}/2, F(mu + b) = 1 - e^{-1}/2."""
    assert laplace_cdf(3.0, 3.0, 2.0) == pytest.approx(0.5)
    assert laplace_cdf(1.0, 3.0, 2.0) == pytest.approx(0.5 * math.exp(-1))
    assert laplace_cdf(5.0, 3.0, 2.0) == pytest.approx(1 - 0.5 * math.exp(-1))
    z = np.linspace(-50, 50, 1001)
    F = laplace_cdf(z)
    assert np.all(np.diff(F) >= 0) and F.min() >= 0 and F.max() <= 1


def test_tail_and_scale():
    assert laplace_tail(2.0, 1.0) == pytest.approx(math.exp(-2))
    assert laplace_scale(1, 0.005) == pytest.approx(200)          # LEC3-3.3.2 worked example
    with pytest.raises(ValueError, match="z"):
        laplace_tail(-1.0)


def test_dr_thm_3_8_hand_value():
    # ln(100/0.05) * 3 / 0.5 = 6 ln 2000
    assert laplace_max_error_bound(100, 0.05, 3, 0.5) == pytest.approx(6 * math.log(2000))


def test_exact_failure_probability_is_below_union_bound():
    alpha = laplace_max_error_bound(55, 0.05, 55, 1.0)
    exact = laplace_failure_probability(alpha, 55, 55, 1.0)
    assert exact == pytest.approx(1 - (1 - 0.05 / 55) ** 55)
    assert exact <= 0.05
    assert laplace_failure_probability(1e-12, 3, 1, 1) == pytest.approx(1.0)


def test_lec3_worked_example():
    """LEC3-3.3.2: eps=0.5, |Q|=100 -> eps_q = 0.005, b = 200, error 100 ln(100/β)/0.5."""
    assert per_query_epsilon(0.5, 100) == pytest.approx(0.005)
    assert split_budget_error_bound(100, 0.05, 0.5) == pytest.approx(200 * math.log(2000))
    assert split_budget_error_bound(100, 0.05, 0.5, n=1000) == pytest.approx(0.2 * math.log(2000))
    assert split_budget_sample_complexity(100, 0.05, 0.5, 0.05) == pytest.approx(4000 * math.log(2000))


@pytest.mark.parametrize("call,name", [
    (lambda: laplace_max_error_bound(0, 0.1, 1, 1), "m"),
    (lambda: laplace_max_error_bound(2, 0.0, 1, 1), "beta"),
    (lambda: laplace_max_error_bound(2, 0.1, -1, 1), "sensitivity"),
    (lambda: laplace_max_error_bound(2, 0.1, 1, np.nan), "epsilon"),
    (lambda: split_budget_sample_complexity(2, 0.1, 1, 0), "alpha"),
    (lambda: split_budget_error_bound(2, 0.1, 1, n=0), "n"),
    (lambda: laplace_cdf(0, mu=np.inf), "mu"),
    (lambda: laplace_cdf(0, b=0), "b"),
    (lambda: laplace_failure_probability(-1, 2, 1, 1), "alpha"),
    (lambda: per_query_epsilon(1, 0), "m"),
])
def test_bad_inputs(call, name):
    with pytest.raises(ValueError, match=name):
        call()
