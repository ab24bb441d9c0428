"""``Workload.rmatvec`` without an N-vector (PROJ-Def1): the sparse result over the queries' supports, its
agreement with the dense adjoint, and clear refusals where the result cannot be sparse or dense."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from dpbook.queries import MatrixWorkload, RMATVEC_DENSE_LIMIT, k_way_marginals, random_queries, range_queries
from dpbook.sparse_project import SparseQueryWorkload

SMALL = [lambda: random_queries(5, 12, rng=1), lambda: k_way_marginals(4, 2), lambda: range_queries(10, m=6, rng=2),
         lambda: MatrixWorkload(sp.random(6, 40, density=0.2, random_state=3, format="csr")),
         lambda: SparseQueryWorkload(30, [[(1, 0.5), (7, 1.0)], [(7, 0.25)], [(29, 1.0), (0, 1.0)]])]


@pytest.mark.parametrize("make", SMALL)
def test_sparse_rmatvec_equals_the_dense_adjoint(make):
    W = make()
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(3, W.m))
    Y[:, 0] = 0.0                                        # a query nobody weights contributes nothing
    S = W.rmatvec(Y, sparse=True)
    assert sp.issparse(S) and S.shape == (3, W.N)
    np.testing.assert_allclose(S.toarray(), W.rmatvec(Y), atol=1e-12)
    s = W.rmatvec(Y[1], sparse=True)
    assert sp.issparse(s) and s.shape == (W.N,)
    np.testing.assert_allclose(s.toarray(), W.rmatvec(Y[1]), atol=1e-12)


def test_sparse_rmatvec_over_two_to_the_32():
    """k sparse queries over |X| = 2^32: Qᵀy has at most k·s non-zeros and is built without an N-vector."""
    N = 1 << 32
    rng = np.random.default_rng(1)
    elements = rng.choice(N, size=(200, 5), replace=False)
    W = SparseQueryWorkload(N, [[(int(e), 1.0) for e in row] for row in elements])
    y = rng.normal(size=W.m)
    g = W.rmatvec(y, sparse=True)
    assert g.shape == (N,) and g.nnz == 1000
    j = int(elements[17, 3])
    assert g[[j]].toarray()[0] == pytest.approx(y[17])
    with pytest.raises(ValueError, match="sparse=True"):
        W.rmatvec(y)                                     # the dense result would be 2^32 floats


def test_rmatvec_refuses_what_cannot_be_sparse_or_dense():
    W = k_way_marginals(34, 1)                            # cells of 2^33 elements over 2^34
    y = np.ones(W.m)
    with pytest.raises(ValueError, match="not sparse"):
        W.rmatvec(y, sparse=True)
    with pytest.raises(ValueError, match="dense array"):
        W.rmatvec(y)
    assert RMATVEC_DENSE_LIMIT < W.N
    with pytest.raises(TypeError, match="sparse"):
        k_way_marginals(4, 1).rmatvec(np.ones(8), sparse="yes")


def test_support_function_over_two_to_the_32_uses_the_sparse_adjoint():
    """PROJ-Def6 without an N-vector: max over the touched elements, and 0 for the untouched ones (K_Q holds 0)."""
    from dpbook.geometry import support_function
    N = 1 << 32
    W = SparseQueryWorkload(N, [[(5, 1.0), (9, 0.5)], [(9, 1.0)]])
    assert support_function(W, np.array([1.0, 2.0])) == pytest.approx(2.5)          # element 9: 0.5 + 2
    assert support_function(W, np.array([-1.0, -1.0])) == 0.0                       # an untouched record
    np.testing.assert_allclose(support_function(W, np.array([[1.0, 2.0], [-3.0, 1.0]])), [2.5, 0.0])


def test_projection_refuses_a_universe_too_large_for_its_gradient():
    from dpbook.projection import project_onto_hull
    W = SparseQueryWorkload(1 << 32, [[(5, 1.0)], [(9, 1.0)]])
    with pytest.raises(ValueError, match="too large"):
        project_onto_hull(np.array([0.2, 0.3]), W)
