"""Workloads as linear operators (``rmatvec``, ``as_linear_operator``, ``query_support``) and sensitivities
that are exact, or proven upper bounds, for repeated and overlapping queries (DR-Def3.1, PROJ-Def1)."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator, lsqr, svds

from dpbook.queries import (MarginalWorkload, MatrixWorkload, RangeWorkload, Workload, k_way_marginals, random_queries,
                            range_queries, threshold_queries)

SMALL = [
    lambda: random_queries(7, 16, rng=1),
    lambda: random_queries(7, 16, rng=2, kind="uniform", density=0.3),
    lambda: MatrixWorkload(np.array([[1, 0, 1.0], [1, 0, 1], [0, 0.5, 1]])),
    lambda: k_way_marginals(5, 2),
    lambda: k_way_marginals(4, 1, attribute_sets=[(0,), (0,), (2,)]),
    lambda: MarginalWorkload(4, [((0, 1), (1, 0)), ((1, 0), (0, 1)), ((3,), (1,)), ((0, 2, 3), (0, 0, 1))]),
    lambda: range_queries(12, m=9, rng=3),
    lambda: threshold_queries(10),
    lambda: RangeWorkload(8, [[2, 5], [2, 5], [0, 7], [7, 7]]),
]


def _dense(W):
    return np.stack([W.query(i) for i in range(W.m)])


@pytest.mark.parametrize("make", SMALL)
def test_rmatvec_matches_the_dense_transpose_single_and_batched(make):
    W = make()
    Q = _dense(W)
    rng = np.random.default_rng(0)
    y = rng.normal(size=W.m)
    Y = rng.normal(size=(5, W.m))
    np.testing.assert_allclose(W.rmatvec(y), Q.T @ y, atol=1e-10)
    np.testing.assert_allclose(W.rmatvec(Y), Y @ Q, atol=1e-10)
    # the fast override against the generic reference through query_support
    np.testing.assert_allclose(W._rmatvec_many(Y), W._rmatvec_reference(Y), atol=1e-10)
    # adjoint identity <Qx, y> = <x, Qᵀy>
    x = rng.normal(size=W.N)
    assert np.isclose(W.apply(x) @ y, x @ W.rmatvec(y))


@pytest.mark.parametrize("make", SMALL)
def test_query_support_lists_the_non_zeros(make):
    W = make()
    for i in range(W.m):
        idx, val = W.query_support(i)
        q = W.query(i)
        np.testing.assert_array_equal(idx, np.flatnonzero(q))
        np.testing.assert_allclose(val, q[idx])


@pytest.mark.parametrize("make", SMALL)
def test_linear_operator_view(make):
    W = make()
    Q = _dense(W)
    A = W.as_linear_operator()
    assert isinstance(A, LinearOperator) and A.shape == (W.m, W.N)
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=W.N), rng.normal(size=W.m)
    np.testing.assert_allclose(A @ x, Q @ x, atol=1e-10)
    np.testing.assert_allclose(A.T @ y, Q.T @ y, atol=1e-10)
    np.testing.assert_allclose(A.matmat(np.eye(W.N)), Q, atol=1e-10)
    np.testing.assert_allclose(A.rmatmat(np.eye(W.m)), Q.T, atol=1e-10)
    # scipy's solvers run on it: least squares agrees with the dense solution's residual
    sol = lsqr(A, y, atol=1e-12, btol=1e-12, iter_lim=5000)[0]
    ref = np.linalg.lstsq(Q, y, rcond=None)[0]
    assert np.linalg.norm(Q @ sol - y) <= np.linalg.norm(Q @ ref - y) + 1e-6
    # and scipy's norm estimators: the largest singular value through svds on the operator
    top = svds(A, k=1, return_singular_vectors=False, solver="arpack",
               random_state=0)[0]
    assert np.isclose(top, np.linalg.norm(Q, 2), rtol=1e-6)


@pytest.mark.parametrize("make", SMALL)
def test_columns_are_the_single_row_answers(make):
    W = make()
    Q = _dense(W)
    idx = np.array([0, W.N - 1, W.N // 2, 1])
    np.testing.assert_allclose(W.columns(idx), Q[:, idx])
    np.testing.assert_allclose(W.columns(idx), Workload._columns(W, idx))   # generic reference
    assert W.columns(np.array([], dtype=np.int64)).shape == (W.m, 0)


def test_columns_validate():
    W = k_way_marginals(4, 2)
    with pytest.raises(ValueError, match="indices"):
        W.columns(np.array([16]))
    with pytest.raises(TypeError, match="indices"):
        W.columns(np.array([0.5]))


def test_rmatvec_validates():
    W = k_way_marginals(4, 2)
    with pytest.raises(ValueError, match="y"):
        W.rmatvec(np.ones(W.m + 1))
    with pytest.raises(ValueError, match="y"):
        W.rmatvec(np.full(W.m, np.nan))
    with pytest.raises(TypeError, match="y"):
        W.rmatvec(np.ones(W.m, dtype=complex))
    with pytest.raises(TypeError, match="y"):
        W.rmatvec(np.array(["a"] * W.m))


def test_marginal_rmatvec_at_2_pow_20_without_a_matrix():
    W = k_way_marginals(20, 2)                      # m = 760 cells over 2^20 elements
    y = np.random.default_rng(0).normal(size=W.m)
    g = W.rmatvec(y)
    assert g.shape == (1 << 20,)
    for u in (0, 12345, (1 << 20) - 1):
        idx = [j for j, (S, v) in enumerate(W.cells) if all(((u >> (19 - a)) & 1) == b for a, b in zip(S, v))]
        assert np.isclose(g[u], y[idx].sum())


# --- sensitivities: exact whatever the caller passes (issue: duplicated queries) ---

def test_repeated_attribute_sets_count_twice():
    W = k_way_marginals(3, 1, attribute_sets=[(0,), (0,)])
    assert W.l1_sensitivity() == 2.0
    assert np.isclose(W.l2_sensitivity(), np.sqrt(2))


def test_permuted_attribute_sets_are_the_same_cells():
    W = k_way_marginals(3, 2, attribute_sets=[(0, 1), (1, 0)])
    assert W.l1_sensitivity() == 2.0                 # each row is in one cell of each listing
    assert W._cell_multiplicity() == 2


def test_large_d_uses_the_proven_upper_bound():
    cells = [((0,), (1,)), ((0,), (1,)), ((0,), (0,)), ((3, 5), (1, 1)), ((5, 3), (1, 1)), ((7,), (0,))]
    W = MarginalWorkload(24, cells)
    # ones at attribute 0, 3, 5 and zero at 7: in cells 0, 1, 3, 4, 5 → 5 = 2 + 2 + 1
    assert W.l1_sensitivity() == 5.0 and np.isclose(W.l2_sensitivity(), np.sqrt(5))
    small = MarginalWorkload(8, cells)
    assert small.l1_sensitivity() == 5.0             # exact enumeration agrees here


def test_repeated_intervals_and_rows():
    assert RangeWorkload(8, [[2, 5], [2, 5], [3, 3]]).l1_sensitivity() == 3.0
    Q = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    W = MatrixWorkload(Q)
    assert W.l1_sensitivity() == 2.0 and np.isclose(W.l2_sensitivity(), np.sqrt(2))


def _brute(W):
    """max over one row u (add/remove) of ||Q e_u||_1 and ||Q e_u||_2, one element at a time."""
    l1 = l2 = 0.0
    for u in range(W.N):
        col = W.counts(np.eye(1, W.N, u)[0])
        l1, l2 = max(l1, np.abs(col).sum()), max(l2, np.sqrt((col ** 2).sum()))
    return l1, l2


cell = st.integers(1, 3).flatmap(lambda k: st.tuples(
    st.permutations(range(6)).map(lambda p: tuple(p[:k])), st.tuples(*[st.integers(0, 1)] * k)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells=st.lists(cell, min_size=1, max_size=12), d=st.integers(6, 7))
def test_property_marginal_sensitivity_is_the_brute_force_max(cells, d):
    W = MarginalWorkload(d, cells)
    l1, l2 = _brute(W)
    assert W.l1_sensitivity() == l1 and np.isclose(W.l2_sensitivity(), l2)
    assert W._cell_multiplicity() >= l1              # the large-d bound is a bound


@settings(max_examples=60, deadline=None)
@given(ivs=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)).map(sorted), min_size=1, max_size=10))
def test_property_range_sensitivity_is_the_brute_force_max(ivs):
    W = RangeWorkload(12, ivs)
    l1, l2 = _brute(W)
    assert W.l1_sensitivity() == l1 and np.isclose(W.l2_sensitivity(), l2)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(st.sampled_from([0.0, 0.25, 1.0]), min_size=5, max_size=5), min_size=1, max_size=8),
       repeat=st.integers(1, 3), sparse=st.booleans())
def test_property_matrix_sensitivity_is_the_brute_force_max(rows, repeat, sparse):
    Q = np.array(rows * repeat)                      # repeated rows on purpose
    W = MatrixWorkload(sp.csr_matrix(Q) if sparse else Q)
    l1, l2 = _brute(W)
    assert np.isclose(W.l1_sensitivity(), l1) and np.isclose(W.l2_sensitivity(), l2)


def test_regression_duplicated_attribute_sets_audit():
    """Issue: `k_way_marginals(…, attribute_sets=[(0,), (0,)])` reported L1 = 1, so the Laplace mechanism on it
    leaked 2ε (ε_lb ≈ 1.97 at a claimed 1).  With the exact L1 = 2 the audit passes; the old calibration —
    Lap(1/ε) on each copy, reproduced by releasing the one-set workload twice — is caught."""
    from dpbook.audit import audit
    from dpbook.laplace import laplace_mechanism
    W = k_way_marginals(3, 1, attribute_sets=[(0,), (0,)])       # cells (0)=0, (0)=1, (0)=0, (0)=1
    once = k_way_marginals(3, 1, attribute_sets=[(0,)])
    assert W.l1_sensitivity() == 2.0 and once.l1_sensitivity() == 1.0
    x = np.eye(1, 8, 0, dtype=int)[0]                             # one row with attribute 0 = 0
    x_prime = x + np.eye(1, 8, 4, dtype=int)[0]                   # add a row with attribute 0 = 1 (n public = 1)
    event = {"both copies of cell (0)=1 >= 1": lambda a: (a[:, 1] >= 1) & (a[:, 3] >= 1)}

    def now(x_):
        return lambda t, rng: laplace_mechanism(x_, W, epsilon=1.0, n=1, trials=t, rng=rng).answers

    def old(x_):
        return lambda t, rng: np.hstack([laplace_mechanism(x_, once, epsilon=1.0, n=1, trials=t, rng=rng).answers
                                         for _ in range(2)])

    assert audit(now(x), now(x_prime), event, trials=200_000, rng=2026).epsilon_lb <= 1.0
    assert audit(old(x), old(x_prime), event, trials=200_000, rng=2026).epsilon_lb > 1.0


def test_random_ranges_are_uniform_over_all_ranges_without_enumerating_them():
    """range_queries(N, m) draws from the N(N+1)/2 ranges by index, exactly as choosing from np.triu_indices(N)
    would (same draws for the same seed), without allocating the N² list (N up to 2^31)."""
    from dpbook.queries import _triu_row, range_queries
    for N in (1, 2, 7, 300):
        a, b = np.triu_indices(N)
        k = np.arange(a.size)
        row = _triu_row(k, N)
        assert np.array_equal(row, a) and np.array_equal(row + k - row * (2 * N - row + 1) // 2, b)
        pick = np.random.default_rng(3).choice(a.size, size=5, replace=5 > a.size)
        assert np.array_equal(range_queries(N, m=5, rng=3).intervals, np.column_stack([a[pick], b[pick]]))
    big = range_queries(2 ** 31, m=4, rng=1).intervals
    assert big.shape == (4, 2) and np.all(big[:, 0] <= big[:, 1]) and big.max() < 2 ** 31
