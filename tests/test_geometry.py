"""dpbook.geometry: the support function of K_Q (PROJ-Def6) without an N-vector."""
import numpy as np
import pytest

from dpbook.sparse_project import SparseQueryWorkload


def test_support_function_over_two_to_the_32_uses_the_sparse_adjoint():
    """PROJ-Def6 without an N-vector: max over the touched elements, and 0 for the untouched ones (K_Q holds 0)."""
    from dpbook.geometry import support_function
    N = 1 << 32
    W = SparseQueryWorkload(N, [[(5, 1.0), (9, 0.5)], [(9, 1.0)]])
    assert support_function(W, np.array([1.0, 2.0])) == pytest.approx(2.5)          # element 9: 0.5 + 2
    assert support_function(W, np.array([-1.0, -1.0])) == 0.0                       # an untouched record
    np.testing.assert_allclose(support_function(W, np.array([[1.0, 2.0], [-3.0, 1.0]])), [2.5, 0.0])
