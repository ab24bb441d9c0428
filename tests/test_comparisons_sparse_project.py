"""dpbook.comparisons.sparse_project: chapter 15's SparseProject-against-direct-answers experiment."""
import numpy as np
import pytest

from dpbook.comparisons.sparse_project import SERIES, per_query_comparison
from dpbook.data import SparseHistogram, sparse_database
from dpbook.sparse_project import sparse_workload


def test_per_query_comparison_is_pure_and_uses_the_exact_sensitivities():
    """Same seed, same numbers; the Gaussian baseline's sensitivity is the workload's exact L2 sensitivity and grows
    with m; the answer-0 error is the largest true answer; every series has one value per m."""
    D, W = sparse_database(1000), sparse_workload(200, 10)
    a = per_query_comparison(D, W, [10, 200], ell=256, trials=20, rng=3)
    b = per_query_comparison(D, W, [10, 200], ell=256, trials=20, rng=3)
    assert all(np.array_equal(a[key], b[key]) for key in a)
    assert a["l2"][1] == W.l2_sensitivity() and a["l2"][1] > a["l2"][0]
    assert a["l1"][1] == W.l1_sensitivity()
    assert a["zero"][1] == W.answers(D).max()
    assert all(a[key].shape == (2,) and np.all(a[key] > 0) for key in SERIES)
    c = per_query_comparison(D, W, [10, 200], ell=256, trials=20, rng=4)
    assert not np.array_equal(a["sparse_project"], c["sparse_project"])      # the seed matters
    no_laplace = per_query_comparison(D, W, [10], ell=64, trials=5, rng=3, laplace=False)
    assert no_laplace["laplace"].size == 0 and no_laplace["gaussian"].size == 1


def test_per_query_comparison_errors_shrink_with_epsilon():
    """A control that can fail: at a 20 times larger ε every mechanism's median max error is smaller."""
    D, W = sparse_database(1000), sparse_workload(100, 10)
    low = per_query_comparison(D, W, [100], epsilon=0.05, ell=256, trials=20, rng=5)
    high = per_query_comparison(D, W, [100], epsilon=1.0, ell=256, trials=20, rng=5)
    assert all(high[key][0] < low[key][0] for key in SERIES)


def test_per_query_comparison_rejects_bad_input():
    D, W = sparse_database(300), sparse_workload(20, 4)
    with pytest.raises(ValueError, match="m_grid"):
        per_query_comparison(D, W, [10, 500], ell=32, trials=2)
    with pytest.raises(ValueError, match="m_grid"):
        per_query_comparison(D, W, [], ell=32, trials=2)
    with pytest.raises(ValueError, match="m_grid"):
        per_query_comparison(D, W, [2.5], ell=32, trials=2)
    with pytest.raises(TypeError, match="D"):
        per_query_comparison(np.ones(4), W, [5], ell=32, trials=2)
    with pytest.raises(TypeError, match="W"):
        per_query_comparison(D, np.ones((2, 4)), [5], ell=32, trials=2)
    with pytest.raises(ValueError, match="W"):
        per_query_comparison(SparseHistogram(1 << 16, np.array([1]), np.array([1])), W, [5], ell=32, trials=2)
    with pytest.raises(ValueError, match="epsilon"):
        per_query_comparison(D, W, [5], epsilon=0.0, ell=32, trials=2)
    with pytest.raises(ValueError, match="delta"):
        per_query_comparison(D, W, [5], delta=0.0, ell=32, trials=2)
    with pytest.raises(ValueError, match="trials"):
        per_query_comparison(D, W, [5], ell=32, trials=0)
    with pytest.raises(TypeError, match="rng"):
        per_query_comparison(D, W, [5], ell=32, trials=2, rng="seed")
    with pytest.raises(TypeError, match="laplace"):
        per_query_comparison(D, W, [5], ell=32, trials=2, laplace="yes")
