"""dpbook.experiments: errors, failure rates and their Clopper-Pearson check, the uniform guess, parameter tables."""
import numpy as np
import pytest

from dpbook.experiments import errors, failure_rate, parameter_table


def test_bad_inputs():
    with pytest.raises(ValueError, match="m"):
        errors(np.zeros((3, 4)), np.zeros(5))
    with pytest.raises(ValueError, match="values"):
        failure_rate(np.array([]), 1.0)
    with pytest.raises(ValueError, match="bound"):
        failure_rate(np.ones(3), np.nan)
    with pytest.raises(ValueError, match="beta"):
        failure_rate(np.ones(3), 0.5).consistent_with(1.5)




def test_errors_and_failure_rate():
    e = errors(np.array([[0.1, 0.5], [0.3, 0.2]]), np.array([0.0, 0.0]))
    assert e.max.tolist() == [0.5, 0.3] and e.mean.tolist() == pytest.approx([0.3, 0.25]) and e.trials == 2
    assert errors(np.array([1.0, 2.0]), np.array([1.0, 1.0])).per_query.shape == (1, 2)
    fr = failure_rate(np.array([0.1, 0.5, 0.9, 1.0]), 0.5)
    assert (fr.failures, fr.trials, fr.rate) == (3, 4, 0.75)
    assert fr.lower < 0.75 < fr.upper


def test_consistent_with_can_fail():
    fr = failure_rate(np.r_[np.ones(300), np.zeros(700)], 1.0)     # rate 0.3
    assert not fr.consistent_with(0.1)
    assert fr.consistent_with(0.3)


def test_with_public_n_adds_the_databases_size_only_where_taken():
    import numpy as np
    from dpbook.experiments import with_public_n
    from dpbook.laplace import laplace_mechanism
    from dpbook.noise import laplace_noise
    x = np.array([2, 3])
    assert with_public_n(laplace_mechanism, x, {"epsilon": 1.0}) == {"epsilon": 1.0, "n": 5}
    assert with_public_n(laplace_mechanism, x, {"n": 9}) == {"n": 9}
    assert with_public_n(laplace_noise, x, {}) == {}                   # takes no n
    with pytest.raises(TypeError, match="params"):
        with_public_n(laplace_mechanism, x, [("n", 3)])
    with pytest.raises(TypeError, match="mechanism"):
        with_public_n(3, x, {})


def test_uniform_guess_is_the_answer_on_the_uniform_distribution_and_its_error_per_metric():
    from dpbook.experiments import uniform_guess, uniform_guess_error
    from dpbook.queries import MatrixWorkload
    Q = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 1]], dtype=float)
    x = np.array([6, 2, 0, 0])
    np.testing.assert_allclose(uniform_guess(MatrixWorkload(Q)), [0.5, 0.25, 1.0])
    gap = np.abs(np.array([1.0, 0.75, 1.0]) - [0.5, 0.25, 1.0])
    assert uniform_guess_error(x, MatrixWorkload(Q)) == pytest.approx(0.5)
    assert uniform_guess_error(x, MatrixWorkload(Q), metric="rms") == pytest.approx(np.sqrt(np.mean(gap ** 2)))
    assert uniform_guess_error(x, MatrixWorkload(Q), metric="mean") == pytest.approx(gap.mean())
    with pytest.raises(ValueError, match="metric"):
        uniform_guess_error(x, MatrixWorkload(Q), metric="median")


def test_reference_line_uses_the_role_colour_and_refuses_unknown_roles():
    from dpbook.plots import UNIFORM, new_figure, reference_line
    fig, ax = new_figure()
    line = reference_line(ax, 0.3)
    assert line.get_color() == UNIFORM and line.get_linestyle() == "--"
    with pytest.raises(ValueError, match="role"):
        reference_line(ax, 0.3, role="purple")
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_uniform_guess_prefix_error_is_the_running_max_of_the_guess_gap():
    from dpbook.experiments import uniform_guess_error, uniform_guess_prefix_error
    from dpbook.queries import MatrixWorkload
    Q = np.array([[1, 1, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 1]], dtype=float)
    x = np.array([6, 2, 0, 0])
    # answers 1, 0.75, 1, 0 against the guess 1, 0.25, 0.5, 0.25: gaps 0, 0.5, 0.5, 0.25
    np.testing.assert_allclose(uniform_guess_prefix_error(x, MatrixWorkload(Q)), [0.0, 0.5, 0.5, 0.5])
    assert uniform_guess_prefix_error(x, MatrixWorkload(Q))[-1] == uniform_guess_error(x, MatrixWorkload(Q))
    with pytest.raises(ValueError, match="x"):
        uniform_guess_prefix_error(np.array([1, 2]), MatrixWorkload(Q))
    with pytest.raises(ValueError, match="x"):
        uniform_guess_prefix_error(np.array([1, -2, 0, 0]), MatrixWorkload(Q))
    with pytest.raises(TypeError, match="workload"):
        uniform_guess_prefix_error(x, "all queries")

def test_parameter_table_flags_infeasible():
    text = parameter_table([("B_max", 1e9, 20, "capped"), ("eps0", 1e-4, 2e-3, "recomputed")])
    assert "INFEASIBLE" in text.splitlines()[2] and "INFEASIBLE" not in text.splitlines()[3]


def test_parameter_table_bad_input():
    with pytest.raises(ValueError, match="rows"):
        parameter_table([("B_max", 1e9, 20)])
    with pytest.raises(ValueError, match="limit"):
        parameter_table([("B_max", 1e9, 20, "capped")], limit=-1.0)
    with pytest.raises(TypeError, match="limit"):
        parameter_table([], limit="big")


def test_required_n_truth_from_float_counts_equals_the_integer_counts_for_counting_queries():
    # required_n computes the true answers from float counts (numpy's BLAS product): for 0/1 queries every partial
    # sum is an integer, so the answers are the same bits as from the integer histogram
    from dpbook.data import load_cancer
    from dpbook.queries import random_queries
    x = load_cancer().x
    W = random_queries(64, x.size, np.random.default_rng(0))
    assert np.array_equal(W.answers(x.astype(np.float64)), W.answers(x))
    assert not np.array_equal(W.answers(x.astype(np.float64) + 0.5), W.answers(x))
