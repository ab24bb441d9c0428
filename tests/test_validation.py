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


# --- hostile input: ranges, overflow, underflow, ragged, complex, work ----------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from dpbook.validation import (DELTA_MIN, EPSILON_RANGE, MAX_COUNT, MAX_WORK_BYTES, SCALE_RANGE,  # noqa: E402
                               SENSITIVITY_RANGE, as_array, check_scale, check_split, check_trials, check_work)


@pytest.mark.parametrize("bad", [5e-324, 1e-320, 1e-13, 1.0000001e12, 1e308, 10 ** 400])
def test_epsilon_outside_its_range_is_refused(bad):
    with pytest.raises(ValueError, match=r"^epsilon \("):
        check_epsilon(bad)


def test_epsilon_range_ends_and_zero():
    assert check_epsilon(1e-12) == 1e-12 and check_epsilon(1e12) == 1e12
    assert check_epsilon(0.0, allow_zero=True) == 0.0
    with pytest.raises(ValueError, match=r"epsilon \(5e-324\) must be 0 or in"):
        check_epsilon(5e-324, allow_zero=True)
    with pytest.raises(ValueError, match=r"epsilon_total \(1\.5\) must be in \[1e-12, 1\]"):
        check_epsilon(1.5, "epsilon_total", high=1.0)


@pytest.mark.parametrize("bad", [5e-324, 1e-320, 1e-101])
def test_subnormal_delta_is_refused(bad):
    with pytest.raises(ValueError, match=r"^delta \("):
        check_delta(bad)
    with pytest.raises(ValueError, match=r"^delta \("):
        check_delta(bad, positive=True)
    assert check_delta(DELTA_MIN) == DELTA_MIN and check_delta(0.0) == 0.0


@pytest.mark.parametrize("fn, name, low, high", [(check_sensitivity, "sensitivity", *SENSITIVITY_RANGE),
                                                 (check_scale, "scale", *SCALE_RANGE)])
def test_sensitivity_and_scale_ranges(fn, name, low, high):
    assert fn(low) == low and fn(high) == high
    for bad in (low / 2, high * 2, 1e308, 5e-324):
        with pytest.raises(ValueError, match=rf"^{name} \("):
            fn(bad)
    with pytest.raises(ValueError, match=r"scale \(4\.0\) must be in \[1e-24, 2\]"):
        check_scale(4.0, high=2.0)


def test_integers_beyond_2_53_are_refused():
    assert check_int("n", 2 ** 53) == 2 ** 53 and check_int("range_size", 10 ** 400, exact=False) == 10 ** 400
    for bad in (2 ** 53 + 1, 2 ** 63, 10 ** 100, -(2 ** 63)):
        with pytest.raises(ValueError, match=r"^n \("):
            check_int("n", bad)
    with pytest.raises(TypeError, match="n must be an integer"):
        check_int("n", 1 + 0j)


def test_histogram_overflow_and_exactness():
    with pytest.raises(ValueError, match=r"x\[0\] \(4\.61e\+18\) must be a count < 2\^53"):
        check_histogram(np.full(4, 2 ** 62))                    # each fits int64, the sum does not
    with pytest.raises(ValueError, match=r"x\[0\] \(9\.01e\+15\)"):
        check_histogram([2.0 ** 53, 1.0])                        # not exact in float64
    with pytest.raises(ValueError, match="x sums to"):
        check_histogram(np.full(4, 2 ** 51))                     # each fine, the total 2^53 is not
    with pytest.raises(ValueError, match=r"x has an integer \(1\.18e\+21\) beyond int64"):
        check_histogram([2 ** 70, 1])
    with pytest.raises(TypeError, match="x must hold real numbers, got complex"):
        check_histogram(np.array([1 + 0j, 2]))
    with pytest.raises(ValueError, match="x must be a rectangular array"):
        check_histogram([[1, 2], [3]])
    assert check_histogram([MAX_COUNT - 2, 1]).sum() == MAX_COUNT - 1


def test_as_array_names_the_parameter():
    for bad, exc, msg in [([[1, 2], [3]], ValueError, "scores must be a rectangular array"),
                          (np.array([1j]), TypeError, "scores must hold real numbers"),
                          (sp.csr_matrix([[1.0]]), TypeError, "scores must be a dense array"),
                          ([2 ** 64], ValueError, r"scores has an integer \(1\.84e\+19\)")]:
        with pytest.raises(exc, match=msg):
            as_array("scores", bad)
    assert as_array("scores", [1, 2]).tolist() == [1, 2]
    with pytest.raises(ValueError, match="Q must be a rectangular"):
        check_matrix_workload([[0.0, 1.0], [1.0]])
    with pytest.raises(TypeError, match="values must hold real"):
        check_real_array("values", [1 + 1j])


def test_work_limit_names_the_callers_parameters():
    check_work(trials=1000, m=1000)
    with pytest.raises(ValueError, match=r"trials \(1000000000000\) x m \(10\) = 1e\+13 cells would need "
                                         r"7\.45e\+04 GiB, more than the 24 GiB limit"):
        check_work(trials=10 ** 12, m=10)
    assert check_trials(5, 10) == 5
    with pytest.raises(ValueError, match=r"^trials \(10000000000\) x cells per trial \(1\)"):
        check_trials(10 ** 10)
    with pytest.raises(ValueError, match=r"^trials_prime \("):
        check_trials(10 ** 10, name="trials_prime")
    assert (MAX_WORK_BYTES // 8) * 8 == MAX_WORK_BYTES


def test_budget_split_names_the_number_of_parts():
    assert check_split(1.0, 4, parts_name="k") == 0.25
    with pytest.raises(ValueError, match=r"^k \(1000000000000\) splits epsilon \(0\.5\) into 5e-13 per step"):
        check_split(0.5, 10 ** 12, parts_name="k")


# Property tests: whatever the number, a validator returns a value in its documented range or raises
# ValueError/TypeError naming the parameter — never OverflowError, ZeroDivisionError or a silent pass.
_NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                     st.integers(min_value=-(2 ** 80), max_value=2 ** 80), st.complex_numbers(), st.booleans(),
                     st.text(max_size=3), st.none())


def _outcome(fn, value, name):
    try:
        return fn(value)
    except (ValueError, TypeError) as err:
        assert str(err).startswith(name), err
        return None


@settings(max_examples=300, deadline=None)
@given(_NUMBERS)
def test_property_epsilon_delta_sensitivity(value):
    eps = _outcome(check_epsilon, value, "epsilon")
    assert eps is None or EPSILON_RANGE[0] <= eps <= EPSILON_RANGE[1]
    delta = _outcome(check_delta, value, "delta")
    assert delta is None or delta == 0.0 or DELTA_MIN <= delta < 1.0
    sens = _outcome(check_sensitivity, value, "sensitivity")
    assert sens is None or SENSITIVITY_RANGE[0] <= sens <= SENSITIVITY_RANGE[1]
    if eps is not None and sens is not None:                  # the scale a mechanism derives is finite, non-zero
        assert SCALE_RANGE[0] <= sens / eps <= SCALE_RANGE[1]
    n = _outcome(lambda v: check_int("n", v, low=1), value, "n")
    assert n is None or 1 <= n <= 2 ** 53


_COUNT = st.one_of(st.integers(min_value=-5, max_value=2 ** 66), st.floats(allow_subnormal=True),
                   st.complex_numbers(max_magnitude=10))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_COUNT, st.lists(_COUNT, max_size=2)), min_size=0, max_size=6))
def test_property_histograms(entries):
    try:
        x = check_histogram(entries)
    except (ValueError, TypeError) as err:
        assert str(err).startswith("x"), err
        return
    assert x.dtype == np.int64 and x.ndim == 1 and x.min() >= 0 and 0 < x.sum() < 2 ** 53
    assert [int(v) for v in x] == [int(v.real if isinstance(v, complex) else v) for v in entries]


def test_public_n_keeps_one_rows_weight_in_range():
    from dpbook.sparse_vector import above_threshold
    from dpbook.validation import check_public_n
    assert check_public_n(10 ** 12, None) == (10 ** 12, "add/remove")
    with pytest.raises(ValueError, match=r"^n \(2000000000000\) must be an integer in \[1, 1000000000000\]"):
        check_public_n(2 * 10 ** 12, None)
    with pytest.raises(ValueError, match="x sums to 2e\\+12 rows"):
        check_public_n(None, np.array([10 ** 12, 10 ** 12]))
    with pytest.raises(ValueError, match=r"^n \("):             # not an internal "sensitivity (5e-13)"
        above_threshold(np.array([3, 1]), np.array([[0.0, 1.0]]), threshold=0.5, epsilon=1.0, n=2 * 10 ** 12)


def test_noise_scale_names_the_callers_parameters():
    from dpbook.validation import check_noise_scale
    assert check_noise_scale(2.0, 0.5) == 4.0 and check_noise_scale(1.0, 1.0, factor=2.0) == 2.0
    with pytest.raises(ValueError, match=r"^sensitivity \(1000000000000\.0\) / epsilon \(1e-12\) gives the noise "
                                         r"scale 2e\+24, outside \[1e-24, 1e\+24\]"):
        check_noise_scale(1e12, 1e-12, factor=2.0)
    with pytest.raises(ValueError, match=r"^sensitivity \(1\.0\) / epsilon \(0\.001\) gives .* outside \[1e-24, 10\]"):
        check_noise_scale(1.0, 1e-3, high=10.0)


def test_alpha_and_beta_ranges_refuse_subnormal_and_huge_values_by_name():
    from dpbook.validation import ALPHA_RANGE, BETA_MIN
    assert check_alpha(ALPHA_RANGE[0]) == 1e-12 and check_alpha(ALPHA_RANGE[1]) == 1e12
    assert check_alpha(np.float64(0.5)) == 0.5 and check_alpha(np.int64(2)) == 2.0
    for bad in (5e-324, 1e-13, 1e308, 2 ** 63):
        with pytest.raises(ValueError, match=r"^alpha_u \(.*\) must be in \[1e-12, 1e\+12\]"):
            check_alpha(bad, "alpha_u")
    with pytest.raises(ValueError, match=r"alpha \(1\.5\) must be in \[1e-12, 1\]"):
        check_alpha(1.5, high=1.0)
    assert check_beta(BETA_MIN) == 1e-100
    for bad in (5e-324, 1e-101):
        with pytest.raises(ValueError, match=r"^beta \(.*\) must be in \[1e-100, 1\]"):
            check_beta(bad)


def test_positive_real_range():
    from dpbook.validation import check_positive_real
    assert check_positive_real("c_gru", 1) == 1.0 and check_positive_real("B", np.float64(1e100)) == 1e100
    assert check_positive_real("K", 0, allow_zero=True) == 0.0
    for bad, exc in [(5e-324, ValueError), (1e308, ValueError), (0.0, ValueError), (-1.0, ValueError),
                     (math.nan, ValueError), ("1", TypeError), (True, TypeError), (None, TypeError)]:
        with pytest.raises(exc, match="c_gru"):
            check_positive_real("c_gru", bad)
    with pytest.raises(ValueError, match=r"B \(0\.5\) must be in \[1, 1e\+100\]"):
        check_positive_real("B", 0.5, low=1.0)


def test_tail_points_are_zero_or_in_the_real_range():
    from dpbook.validation import check_tail_points
    assert check_tail_points("lam", 0.0) == 0.0
    assert np.array_equal(check_tail_points("lam", [0.0, 1e-100, 0.5, 1e100]), [0.0, 1e-100, 0.5, 1e100])
    for bad, exc in [(5e-324, ValueError), (1e308, ValueError), (-1.0, ValueError), (math.nan, ValueError),
                     ([0.1, math.inf], ValueError), ("1", TypeError), (None, TypeError)]:
        with pytest.raises(exc, match="lam"):
            check_tail_points("lam", bad)


def test_check_entry_range_names_the_parameter_and_the_range():
    from dpbook.graphs import cut_workload
    from dpbook.validation import check_entry_range
    W = cut_workload(3, [([0, 1], [0, 1])])                     # S and T overlap: coefficient 2
    assert check_entry_range(W, "workload", 0.0, 2.0) == (0.0, 2.0)
    with pytest.raises(ValueError, match=r"workload has entries in \[0, 2\], outside \[0, 1\].*because"):
        check_entry_range(W, "workload", 0.0, 1.0, why="because")


def test_check_matrix_workload_sums_duplicates_and_copies():
    Q = sp.csr_matrix((np.full(3, 0.5), np.zeros(3, dtype=np.int64), np.array([0, 3])), shape=(1, 1))
    with pytest.raises(ValueError, match=r"M\[0, 0\] has a value \(1\.5\) \(the sum of the 3 entries"):
        check_matrix_workload(Q, "M")
    Q = sp.csr_matrix((np.array([0.5, -0.5, 1.0]), np.array([0, 0, 1]), np.array([0, 3])), shape=(1, 2))
    out = check_matrix_workload(Q)                              # 0.5 - 0.5 = 0: an entry 0, dropped
    assert out.nnz == 1 and out.has_canonical_format and out.toarray().tolist() == [[0.0, 1.0]]
    assert Q.nnz == 3                                           # the caller's matrix untouched
    with pytest.raises(ValueError, match="NaN or inf"):
        check_matrix_workload(sp.csr_matrix((np.array([1e308, 1e308]), np.array([0, 0]), np.array([0, 2])),
                                            shape=(1, 1)), high=np.inf)
    with pytest.raises(TypeError, match="real"):
        check_matrix_workload(sp.csr_matrix(np.array([[1j]])))


def test_real_dtype_is_the_one_numeric_guard():
    """Integers and real floats pass; booleans only when asked; object, complex, strings and bytes never."""
    from dpbook.validation import real_dtype
    for ok in (np.int8, np.int64, np.uint16, np.float32, np.float64):
        assert real_dtype(ok) and real_dtype(np.dtype(ok), bools=True)
    assert real_dtype(np.int32, integer=True) and not real_dtype(np.float64, integer=True)
    assert not real_dtype(bool) and real_dtype(bool, bools=True) and not real_dtype(bool, integer=True)
    for bad in (object, np.complex128, "U3", "S2", "datetime64[s]"):
        assert not real_dtype(bad) and not real_dtype(bad, bools=True)
    with pytest.raises(TypeError):
        real_dtype("no such dtype")


def test_importing_validation_does_not_load_scipy_sparse_and_still_refuses_sparse_input():
    # scipy.sparse is looked up, not imported: no sparse matrix can exist before something imported it
    import subprocess
    import sys
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", "import sys, dpbook.validation; print('scipy.sparse' in sys.modules)"],
                          capture_output=True, text=True, cwd=root, timeout=120, env={"PATH": "", "PYTHONPATH": str(root)})
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr
    with pytest.raises(TypeError, match="Q must be a dense array"):
        as_array("Q", sp.csr_matrix(np.eye(2)))
