import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpbook.validation import (check_alpha, check_beta, check_delta, check_epsilon, check_histogram, check_int,
                               check_matrix_workload, check_probability, check_real, check_real_array,
                               check_sensitivity)


def test_epsilon_message_names_value_and_range():
    with pytest.raises(ValueError, match=r"^epsilon \(-1\.0\) must be a finite number > 0$"):
        check_epsilon(-1.0)


@pytest.mark.parametrize("bad", [0.0, -1, math.nan, math.inf, -math.inf])
def test_epsilon_rejects(bad):
    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(bad)


@pytest.mark.parametrize("bad", ["1", None, True, [1.0], np.array([1.0]), 1 + 0j])
def test_epsilon_wrong_type(bad):
    with pytest.raises(TypeError, match="epsilon"):
        check_epsilon(bad)


def test_accepts_numpy_scalars_and_ints():
    assert check_epsilon(np.float32(0.5)) == pytest.approx(0.5)
    assert check_epsilon(2) == 2.0
    assert isinstance(check_epsilon(np.int64(3)), float)


@pytest.mark.parametrize("fn,good,bads", [
    (check_delta, [0.0, 1e-9, 0.5], [1.0, -1e-9, math.nan, math.inf]),
    (check_beta, [1e-9, 0.5, 1.0], [0.0, 1.1, -0.1, math.nan]),
    (check_alpha, [1e-9, 5.0], [0.0, -1.0, math.inf]),
    (check_sensitivity, [1e-9, 3.0], [0.0, -2.0, math.nan]),
])
def test_ranges(fn, good, bads):
    for g in good:
        assert fn(g) == pytest.approx(g)
    for b in bads:
        with pytest.raises(ValueError):
            fn(b)


def test_positive_delta():
    with pytest.raises(ValueError, match=r"delta \(0\.0\) must be a finite number in \(0, 1\)"):
        check_delta(0.0, positive=True)


def test_check_real_and_probability():
    assert check_real("t", 3, low=0, high=3) == 3.0
    with pytest.raises(ValueError, match=r"t \(3\.0\) must be a finite number in \[0, 3\)"):
        check_real("t", 3, low=0, high=3, high_open=True)
    with pytest.raises(ValueError, match="p"):
        check_probability(1.5, "p")


def test_check_int():
    assert check_int("n", np.int32(5), low=1) == 5
    with pytest.raises(TypeError, match="n must be an integer"):
        check_int("n", 5.0)
    with pytest.raises(TypeError):
        check_int("n", True)
    with pytest.raises(ValueError, match=r"n \(0\) must be an integer >= 1"):
        check_int("n", 0, low=1)
    with pytest.raises(ValueError, match=r"k \(9\) must be an integer in \[1, 5\]"):
        check_int("k", 9, low=1, high=5)


def test_histogram_accepts_and_rejects():
    assert check_histogram([1, 0, 2]).dtype == np.int64
    assert check_histogram(np.array([1.0, 2.0])).tolist() == [1, 2]
    for bad, exc, msg in [
        ([1, -1], ValueError, r"x\[1\] \(-1\) must be a non-negative integer"),
        ([1.5, 1], ValueError, r"x\[0\] \(1.5\)"),
        ([[1, 2]], ValueError, "1-D"),
        ([], ValueError, "empty"),
        ([0, 0], ValueError, "at least one row"),
        ([np.nan, 1], ValueError, "NaN"),
        ([np.inf, 1], ValueError, "NaN or inf"),
        (["a"], TypeError, "numbers"),
        ([True, False], TypeError, "booleans"),
    ]:
        with pytest.raises(exc, match=msg):
            check_histogram(bad)
    with pytest.raises(TypeError):
        check_histogram(sp.csr_matrix([[1, 2]]))
    assert check_histogram([0, 0], allow_empty=True).sum() == 0


def test_matrix_workload():
    Q = check_matrix_workload([[0, 1], [0.5, 1]])
    assert Q.dtype == np.float64
    assert sp.issparse(check_matrix_workload(sp.eye(3)))
    for bad, exc in [([[2.0, 0]], ValueError), ([[np.nan, 0]], ValueError), ([1, 0], ValueError),
                     (np.zeros((0, 3)), ValueError), ([["a"]], TypeError), (sp.csr_matrix([[1.5]]), ValueError)]:
        with pytest.raises(exc, match="Q"):
            check_matrix_workload(bad)
    with pytest.raises(ValueError, match="implicit zeros"):
        check_matrix_workload(sp.csr_matrix([[1.0, 0.0]]), low=0.5)


def test_check_real_array():
    assert check_real_array("t", 2).tolist() == 2.0
    assert check_real_array("t", [0.0, 3.0], low=0.0).tolist() == [0.0, 3.0]
    for bad, exc, msg in [("1", TypeError, "t must be a real number"), ([True], TypeError, "t"),
                          ([1j], TypeError, "t"), ([np.nan], ValueError, "t contains NaN"),
                          ([np.inf], ValueError, "t contains NaN or inf"), ([-1.0], ValueError, r"t \(-1.0\) must be >= 0")]:
        with pytest.raises(exc, match=msg):
            check_real_array("t", bad, low=0.0)
    with pytest.raises(ValueError, match=r"t \(0.0\) must be > 0"):
        check_real_array("t", [0.0, 1.0], low=0.0, low_open=True)
