import math

import numpy as np
import pytest

from dpbook.theory.laplace import (k_query_error_bound, k_query_sample_complexity, laplace_cdf,
                                   laplace_failure_probability, laplace_max_error_bound, laplace_scale,
                                   laplace_tail, per_query_epsilon)


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
    with pytest.raises(ValueError, match="t"):
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
    assert k_query_error_bound(100, 0.05, 0.5) == pytest.approx(200 * math.log(2000))
    assert k_query_error_bound(100, 0.05, 0.5, n=1000) == pytest.approx(0.2 * math.log(2000))
    assert k_query_sample_complexity(100, 0.05, 0.5, 0.05) == pytest.approx(4000 * math.log(2000))


@pytest.mark.parametrize("call,name", [
    (lambda: laplace_max_error_bound(0, 0.1, 1, 1), "k"),
    (lambda: laplace_max_error_bound(2, 0.0, 1, 1), "beta"),
    (lambda: laplace_max_error_bound(2, 0.1, -1, 1), "sensitivity"),
    (lambda: laplace_max_error_bound(2, 0.1, 1, np.nan), "epsilon"),
    (lambda: k_query_sample_complexity(2, 0.1, 1, 0), "alpha"),
    (lambda: k_query_error_bound(2, 0.1, 1, n=0), "n"),
    (lambda: laplace_cdf(0, mu=np.inf), "mu"),
    (lambda: laplace_cdf(0, b=0), "b"),
    (lambda: laplace_failure_probability(-1, 2, 1, 1), "alpha"),
    (lambda: per_query_epsilon(1, 0), "k"),
])
def test_bad_inputs(call, name):
    with pytest.raises(ValueError, match=name):
        call()
