import math

import numpy as np
import pytest

from dpbook.audit import AuditResult, audit, epsilon_lower_bound


def test_hand_value():
    """With huge counts the bound approaches ln(p/p') from below."""
    eps = epsilon_lower_bound(500_000, 1_000_000, 183_940, 1_000_000)
    assert 0.98 < eps < 1.0
    assert epsilon_lower_bound(10, 100, 10, 100) == 0.0


def test_complement_and_swap():
    a = epsilon_lower_bound(900, 1000, 600, 1000)
    assert epsilon_lower_bound(600, 1000, 900, 1000) == pytest.approx(a)
    assert epsilon_lower_bound(100, 1000, 400, 1000) == pytest.approx(a)      # complement event
    assert 0.5 < a < math.log(0.4 / 0.1)           # point estimate ln 4, shrunk by the 1e-6 intervals


def test_delta_reduces_the_bound():
    assert epsilon_lower_bound(600, 1000, 100, 1000, delta=0.3) < epsilon_lower_bound(600, 1000, 100, 1000)
    assert epsilon_lower_bound(600, 1000, 100, 1000, delta=0.59) == 0.0


def test_false_alarm_rate_is_small_for_identical_mechanisms():
    """Two identical distributions: at alpha=0.01 the bound is > 0 in at most ~1% of repetitions."""
    rng = np.random.default_rng(0)
    k1, k2 = rng.binomial(1000, 0.3, size=(2, 3000))
    alarms = sum(epsilon_lower_bound(int(a), 1000, int(b), 1000, alpha=0.01) > 0 for a, b in zip(k1, k2))
    assert alarms <= 30 + 3 * math.sqrt(30)


def test_audit_runner():
    same = lambda t, r: r.random(t)
    res = audit(same, same, {"u<0.5": lambda u: u < 0.5, "u<0.1": lambda u: u < 0.1}, trials=10_000, rng=1)
    assert isinstance(res, AuditResult) and res.epsilon_lb == 0.0 and res.passes(0.01)
    shifted = lambda t, r: r.random(t) * 0.5
    res = audit(same, shifted, {"u<0.5": lambda u: u < 0.5}, trials=10_000, rng=1)
    assert res.epsilon_lb > 0.5 and not res.passes(0.5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="k"):
        epsilon_lower_bound(11, 10, 1, 10)
    with pytest.raises(ValueError, match="trials_prime"):
        epsilon_lower_bound(1, 10, 1, 0)
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound(1, 10, 1, 10, delta=1.0)
    with pytest.raises(ValueError, match="alpha"):
        epsilon_lower_bound(1, 10, 1, 10, alpha=0.0)
    f = lambda t, r: r.random(t)
    with pytest.raises(ValueError, match="events"):
        audit(f, f, {}, trials=10)
    with pytest.raises(ValueError, match="boolean"):
        audit(f, f, {"bad": lambda u: u}, trials=10)
    with pytest.raises(ValueError, match="trials"):
        audit(f, f, {"e": lambda u: u < 1}, trials=0)
