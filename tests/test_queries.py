"""dpbook.queries: the workloads, their answers and sensitivities (exact, or proven upper bounds, for repeated and
overlapping queries; DR-Def3.1), and workloads as linear operators (``rmatvec`` without an N-vector, its
agreement with the dense adjoint and its refusals, ``as_linear_operator``, ``query_support``; PROJ-Def1)."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.sparse.linalg import LinearOperator, lsqr, svds

from dpbook.data import add_row, load_cancer, remove_row
from dpbook.multiplicative_weights import marginal_layout
from dpbook.queries import (MarginalWorkload, MatrixWorkload, RMATVEC_DENSE_LIMIT, RangeWorkload, Workload, as_workload,
                            conjunctions, k_way_marginals, random_queries, range_queries, threshold_queries)
from dpbook.sparse_project import SparseQueryWorkload


def exhaustive_l1(W, x):
    """DR-Def3.1 measure: max ||f(x) - f(x')||_1 over every single add/remove."""
    base = W.counts(x)
    diffs = [np.abs(W.counts(add_row(x, u)) - base).sum() for u in range(x.size)]
    diffs += [np.abs(W.counts(remove_row(x, u)) - base).sum() for u in range(x.size) if x[u]]
    return max(diffs)


@pytest.fixture(scope="module")
def small_x():
    return np.random.default_rng(0).integers(0, 3, size=32)


@pytest.mark.parametrize("make", [
    lambda: k_way_marginals(5, 2),
    lambda: k_way_marginals(5, 3, attribute_sets=[(4, 1, 2), (0, 3, 1)]),      # unsorted attribute sets
    lambda: conjunctions(5, 2),
    lambda: range_queries(32, 40, rng=1),
    lambda: threshold_queries(32),
    lambda: random_queries(7, 32, rng=2),
    lambda: random_queries(7, 32, rng=2, kind="uniform"),
    lambda: random_queries(7, 32, rng=2, density=0.3),
])
def test_implicit_forms_match_dense_matrix_and_sensitivity(make, small_x):
    W = make()
    M = W.matrix()
    assert M.shape == (W.m, W.N) and M.min() >= 0 and M.max() <= 1
    assert np.allclose(W.counts(small_x), M @ small_x)
    assert np.allclose(W.answers(small_x), M @ small_x / small_x.sum())
    assert W.l1_sensitivity() == pytest.approx(exhaustive_l1(W, small_x))
    assert W.l1_sensitivity() == pytest.approx(np.abs(M).sum(axis=0).max())
    assert W.l2_sensitivity() == pytest.approx(np.sqrt((M ** 2).sum(axis=0)).max())
    assert np.array_equal(W.query(W.m - 1), M[-1])


def test_answers_are_row_averages():
    """S1 basic measure: <Q, D>/n equals the row-average of Q over the table."""
    data = load_cancer()
    W = k_way_marginals(11, 2)
    rows = data.universe.index(data.table())
    for i in (0, 17, W.m - 1):
        assert W.answers(data.x)[i] == pytest.approx(W.query(i)[rows].mean())


def test_marginal_counts_sum_to_n_and_hypothesis():
    x = load_cancer().x
    W = k_way_marginals(11, 3)
    c = W.counts(x).reshape(-1, 8)
    assert np.all(c.sum(axis=1) == x.sum())
    p = np.full(2048, 1 / 2048)
    assert np.allclose(W.answers(p), 1 / 8)
    assert W.l1_sensitivity() == 165 and conjunctions(11, 3).l1_sensitivity() == 165


def test_sizes():
    assert k_way_marginals(11, 2).m == 55 * 4
    assert conjunctions(11, 3).m == 165
    assert range_queries(10).m == 55
    assert threshold_queries(10).m == 10


def test_sparse_matrix_workload():
    Q = sp.random(5, 1000, density=0.01, format="csr", rng=0)
    W = MatrixWorkload(Q)
    x = np.ones(1000, dtype=int)
    assert np.allclose(W.counts(x), Q @ x)
    assert W.query(0).shape == (1000,)


def test_as_workload():
    W = conjunctions(3, 2)
    assert as_workload(W) is W
    assert isinstance(as_workload(np.eye(3)), MatrixWorkload)
    with pytest.raises(TypeError, match="workload"):
        as_workload("Q")


def test_bad_inputs():
    W = conjunctions(3, 2)
    for bad, exc in [(np.ones(7), ValueError), (np.ones((8, 1)), ValueError), (-np.ones(8), ValueError),
                     (np.full(8, np.nan), ValueError), (np.array(["a"] * 8), TypeError)]:
        with pytest.raises(exc, match="x"):
            W.counts(bad)
    with pytest.raises(ValueError, match="mass"):
        W.answers(np.zeros(8))
    with pytest.raises(ValueError, match="i"):
        W.query(3)
    with pytest.raises(ValueError, match="k"):
        k_way_marginals(3, 4)
    with pytest.raises(ValueError, match="cell"):
        MarginalWorkload(3, [((0, 0), (1, 1))])
    with pytest.raises(ValueError, match="cell"):
        MarginalWorkload(3, [((5,), (1,))])
    with pytest.raises(ValueError, match="cells"):
        MarginalWorkload(3, [])
    with pytest.raises(ValueError, match="intervals"):
        RangeWorkload(5, [(3, 2)])
    with pytest.raises(ValueError, match="intervals"):
        RangeWorkload(5, [(0, 5)])
    with pytest.raises(ValueError, match="m"):
        random_queries(0, 5)
    with pytest.raises(ValueError, match="kind"):
        random_queries(2, 5, kind="gaussian")
    with pytest.raises(ValueError, match="density"):
        random_queries(2, 5, density=0.0)
    with pytest.raises(ValueError, match="Q"):
        MatrixWorkload([[1.5]])
    with pytest.raises(ValueError, match="too large"):
        k_way_marginals(30, 1).matrix()


def test_random_queries_deterministic():
    assert np.array_equal(random_queries(3, 9, rng=4).Q, random_queries(3, 9, rng=4).Q)
    assert not np.array_equal(random_queries(3, 9, rng=4).Q, random_queries(3, 9, rng=5).Q)


def test_marginals_scale_to_2_pow_20():
    """Answers over |X| = 2^20 by reshape-and-sum (no dense matrix)."""
    x = np.random.default_rng(3).integers(0, 2, size=1 << 20)
    W = k_way_marginals(20, 2, attribute_sets=list(itertools.combinations(range(20), 2))[:10])
    c = W.counts(x)
    assert c.shape == (40,) and np.allclose(c.reshape(10, 4).sum(axis=1), x.sum())


def test_sparse_histogram_matches_dense(small_x):
    from dpbook.data import SparseHistogram
    rows = np.repeat(np.arange(32), small_x)
    xs = SparseHistogram.from_rows(np.random.default_rng(0).permutation(rows), 32)
    assert np.array_equal(xs.to_dense(), small_x) and xs.n == small_x.sum()
    for W in (k_way_marginals(5, 2), range_queries(32, 20, rng=3), random_queries(4, 32, rng=1, density=0.3),
              random_queries(4, 32, rng=1)):
        assert np.allclose(W.counts(xs), W.counts(small_x))
        assert np.allclose(W.answers(xs), W.answers(small_x))


def test_huge_universe_without_densifying():
    """|X| = 2^32: sparse data, sparse queries and ranges are answered from the support alone."""
    from dpbook.data import SparseHistogram
    N = 1 << 32
    rng = np.random.default_rng(5)
    rows = rng.integers(0, N, size=1000, dtype=np.int64)
    xs = SparseHistogram.from_rows(rows, N)
    Q = sp.csr_matrix((np.ones(3), (np.arange(3), rows[:3])), shape=(3, N))
    assert np.all(MatrixWorkload(Q).counts(xs) >= 1)
    R = RangeWorkload(N, [(0, N - 1), (0, N // 2 - 1)])
    c = R.counts(xs)
    assert c[0] == 1000 and c[1] == np.count_nonzero(rows < N // 2)
    M = conjunctions(32, 1)
    assert M.counts(xs)[0] == np.count_nonzero(rows >= 1 << 31)
    with pytest.raises(ValueError, match="too large"):
        xs.to_dense()


def test_sparse_histogram_validates():
    from dpbook.data import SparseHistogram
    with pytest.raises(ValueError, match="sorted"):
        SparseHistogram(10, np.array([3, 1]), np.array([1, 1]))
    with pytest.raises(ValueError, match="counts"):
        SparseHistogram(10, np.array([1, 3]), np.array([1, 0]))
    with pytest.raises(ValueError, match="N"):
        SparseHistogram(0, np.array([], dtype=int), np.array([], dtype=int))
    with pytest.raises(TypeError, match="rows"):
        SparseHistogram.from_rows(np.array([0.5]), 10)
    with pytest.raises(ValueError, match="universe"):
        k_way_marginals(5, 1).counts(SparseHistogram(64, np.array([1]), np.array([1])))


@pytest.mark.parametrize("make", [
    lambda: k_way_marginals(5, 2),
    lambda: k_way_marginals(5, 3, attribute_sets=[(4, 1, 2), (0, 3, 1)]),
    lambda: range_queries(32, 40, rng=1),
    lambda: random_queries(7, 32, rng=2, density=0.3),
    lambda: random_queries(7, 32, rng=2),
])
def test_batches_and_signed_vectors_match_the_matrix(make):
    W = make()
    M = W.matrix()
    rng = np.random.default_rng(4)
    P = rng.random((6, 32))
    assert np.allclose(W.counts(P), P @ M.T)
    assert np.allclose(W.answers(P), (P @ M.T) / P.sum(axis=1, keepdims=True))
    V = rng.normal(size=(6, 32))                        # a noisy histogram: negative cells allowed in apply
    assert np.allclose(W.apply(V), V @ M.T)
    assert np.allclose(W.apply(V[0]), M @ V[0])
    with pytest.raises(ValueError, match="non-negative"):
        W.counts(V)
    with pytest.raises(ValueError, match="v"):
        W.apply(np.full(32, np.inf))


def test_marginal_corner_matrix_and_superset_sums():
    W = k_way_marginals(3, 2)
    x = np.arange(8, dtype=float)
    g = W.superset_sums(x)[0]
    assert g[0] == x.sum() and g[7] == x[7] and g[0b100] == x[[4, 5, 6, 7]].sum()
    assert W.corner_matrix().shape == (W.m, 8)
    assert np.all(W.counts(np.full(8, 1 / 8)) >= 0)


def test_marginals_on_real_data_are_exact_integers():
    x = load_cancer().x
    W = k_way_marginals(11, 3)
    c = W.counts(x)
    assert np.array_equal(c, np.round(c))                        # superset sums of integers are exact
    assert np.array_equal(c, W.matrix() @ x)


def test_check_database():
    from dpbook.queries import check_database
    x, W = check_database(np.array([1, 0, 2, 0]), np.eye(4))
    assert x.dtype == np.int64 and W.m == 4
    with pytest.raises(ValueError, match="universe"):
        check_database(np.array([1, 0]), np.eye(4))
    with pytest.raises(ValueError, match="x"):
        check_database(np.array([-1, 0, 0, 0]), np.eye(4))
    with pytest.raises(TypeError, match="workload"):
        check_database(np.array([1, 0, 0, 0]), "Q")


# --- validated once, on a private copy: duplicates summed, arrays read-only, cells frozen ---------------------

def _stored_five_times():
    """A CSR matrix that stores 1.0 five times at cell (0, 1): its entry (what Q @ x computes) is 5."""
    return sp.csr_matrix((np.ones(5), np.ones(5, dtype=np.int64), np.array([0, 5])), shape=(1, 2))


def test_sparse_duplicates_are_summed_before_validation():
    Q = _stored_five_times()
    with pytest.raises(ValueError, match=r"Q\[0, 1\] has a value \(5\.0\) \(the sum of the 5 entries"):
        MatrixWorkload(Q)
    with pytest.raises(ValueError, match=r"Q\[0, 1\]"):
        as_workload(Q.tocoo())                                  # COO with repeated coordinates too
    from dpbook.gaussian import composed_laplace_mechanism
    with pytest.raises(ValueError, match=r"workload\[0, 1\] has a value \(5\.0\)"):    # the mechanism's parameter
        composed_laplace_mechanism(np.array([1, 1]), Q, epsilon=1.0, n=2)
    assert Q.nnz == 5 and not Q.has_canonical_format            # the caller's matrix is left as it was
    ok = sp.csr_matrix((np.full(5, 0.2), np.ones(5, dtype=np.int64), np.array([0, 5])), shape=(1, 2))
    W = MatrixWorkload(ok)
    assert W.Q.nnz == 1 and W.entry_range() == (0.0, 1.0) and W.l1_sensitivity() == 1.0 == W.linf_sensitivity()
    assert np.allclose(W.counts(np.array([3, 2])), [2.0])


def test_matrix_workload_cannot_change_after_validation():
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    W = MatrixWorkload(A)
    A[0, 1] = 7.0                                                # the caller's array: copied at construction
    assert W.entry_range() == (0.0, 1.0) and W.l1_sensitivity() == 1.0 and W.Q[0, 1] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        W.Q[0, 0] = 7.0
    with pytest.raises(ValueError, match="read-only"):
        W.matrix()[0, 0] = 7.0
    with pytest.raises(AttributeError, match="cannot change"):
        W.Q = np.full((2, 2), 7.0)
    S = sp.csr_matrix(np.array([[0.0, 1.0]]))
    Ws = MatrixWorkload(S)
    S.data[:] = 7.0                                              # the caller's sparse matrix: copied too
    assert Ws.entry_range() == (0.0, 1.0) and Ws.l1_sensitivity() == 1.0
    for part in (Ws.Q.data, Ws.Q.indices, Ws.Q.indptr):
        assert not part.flags.writeable


def test_marginal_cells_are_frozen():
    W = MarginalWorkload(2, [((0,), (1,))])
    assert W.l1_sensitivity() == 1.0                             # cached
    with pytest.raises(AttributeError):
        W.cells.append(((0,), (1,)))
    with pytest.raises(AttributeError, match="cannot change"):
        W.cells = [((0,), (1,))] * 3
    assert W.m == 1 and W.l1_sensitivity() == 1.0


def test_replace_one_sensitivities_count_repeated_cells():
    """A cell listed 3 times next to its complement: add/remove Δ1 = 3, replace-one 3 + 1 = 4 (not 2)."""
    W = MarginalWorkload(1, [((0,), (0,))] + [((0,), (1,))] * 3)
    assert W.l1_sensitivity() == 3.0 and W.replace_one_l1_sensitivity() == 4.0
    assert W.replace_one_l2_sensitivity() == pytest.approx(2.0)
    assert marginal_layout(W).replace_sensitivity.tolist() == [4.0]
    assert W.sensitivity("l1", "replace-one") == 4.0 and W.sensitivity("linf", "replace-one") == 1.0
    with pytest.raises(ValueError, match="norm"):
        W.sensitivity("l3")
    with pytest.raises(ValueError, match="neighbours"):
        W.sensitivity("l1", "swap")


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


# --- sensitivities: exact whatever the caller passes, duplicated queries included ---

def test_repeated_attribute_sets_count_twice():
    W = k_way_marginals(3, 1, attribute_sets=[(0,), (0,)])
    assert W.l1_sensitivity() == 2.0
    assert np.isclose(W.l2_sensitivity(), np.sqrt(2))


def test_one_attribute_set_counts_its_largest_multiplicity_at_any_d():
    """The cells of one marginal (repeated cells and permuted attribute orders included): the multiplicity count
    equals the dense column sums, and a 24-pixel marginal (past the exact transform's d <= 20) is exact too."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        d = int(rng.integers(2, 8))
        S = tuple(sorted(rng.choice(d, int(rng.integers(1, d + 1)), replace=False).tolist()))
        cells = [(S, tuple(int(b) for b in rng.integers(0, 2, len(S)))) for _ in range(int(rng.integers(1, 7)))]
        cells.append((S[::-1], cells[0][1][::-1]))                    # the first cell again, attributes reversed
        W = MarginalWorkload(d, cells)
        dense = np.array([W.query(i) for i in range(W.m)])
        assert W.l1_sensitivity() == dense.sum(axis=0).max()
    W = MarginalWorkload(24, [((0, 5), (1, 0)), ((0, 5), (0, 0)), ((5, 0), (0, 1))])
    assert W.l1_sensitivity() == 2.0 and W._coverage_max() == (2, True)


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


# =========================================================================== the chapters' example workloads

def test_cancer_examples_sizes():
    from dpbook.queries import cancer3, cancer6
    x8, W8 = cancer3()
    x64, W64 = cancer6(3)
    assert x8.size == 8 and W8.m == 255 and x8.sum() == 569
    assert x64.size == 64 and W64.m == 160 and x64.sum() == 3 * 569
    for call in (lambda: cancer3(0), lambda: cancer6(0)):
        with pytest.raises(ValueError, match="scale"):
            call()


def test_digits_marginals_match_a_dense_reference():
    """The 512 one- and two-way cells of the 16 digit pixels answer what their explicit rows over {0,1}^16 answer
    (built here by hand, pixel 0 the most significant bit), in the order 1-way cells then 2-way cells."""
    from dpbook.data import digits_histogram
    from dpbook.queries import digits_marginals
    x, W = digits_histogram(), digits_marginals(ks=(1, 2))
    assert isinstance(W, MarginalWorkload) and W.m == 32 + 480
    bits = ((np.arange(1 << 16)[None, :] >> (15 - np.arange(16))[:, None]) & 1).astype(np.float64)
    values = np.stack([1.0 - bits, bits])                          # values[v, j] = [pixel j == v]
    rows = [values[v, j] for j in range(16) for v in (0, 1)]
    rows += [values[v, i] * values[w, j] for i in range(16) for j in range(i + 1, 16) for v in (0, 1) for w in (0, 1)]
    answers = W.answers(x)
    for i in range(0, W.m, 7):                                      # every 7th cell: a dense row is 0.5 MB
        np.testing.assert_array_equal(W.query(i), rows[i])
        assert answers[i] == pytest.approx(rows[i] @ x / x.sum(), abs=1e-12)


def test_digits_three_way_cells_hand_computed():
    from dpbook.data import digits_histogram
    from dpbook.queries import digits_marginals
    x, W = digits_histogram(), digits_marginals(ks=(1, 2, 3))
    assert W.m == 32 + 480 + 4480 == 4992
    assert W.l1_sensitivity() == 16 + 120 + 560          # a row lies in one cell of every marginal
    u = np.arange(x.size)
    bit = lambda j: (u >> (15 - j)) & 1                  # pixel j of universe element u (most significant first)
    counts = W.counts(x)
    for j, (S, v) in enumerate(W.cells):
        if len(S) == 3 and j % 997 == 0:                  # a few 3-way cells, counted by hand
            inside = np.all([bit(a) == b for a, b in zip(S, v)], axis=0)
            assert counts[j] == x[inside].sum()
    first3 = 32 + 480
    assert W.cells[first3] == ((0, 1, 2), (0, 0, 0))
    assert [c for c in W.cells[first3:first3 + 8]] == [((0, 1, 2), v) for v in itertools.product((0, 1), repeat=3)]


def test_digits_marginals_of_the_first_d_pixels():
    import math
    from dpbook.queries import digits_marginals
    assert digits_marginals(16).m == 8 * math.comb(16, 3) == 4480
    assert digits_marginals(8, 2).m == 4 * math.comb(8, 2)
    assert digits_marginals(8, (1, 2)).m == 16 + 4 * math.comb(8, 2)
    assert digits_marginals(12) is digits_marginals(12, 3)          # cached: one frozen workload per (d, ks)


@pytest.mark.parametrize("kw, exc, name", [
    (dict(ks=()), ValueError, "ks"), (dict(ks=(0,)), ValueError, "ks"), (dict(ks=(17,)), ValueError, "ks"),
    (dict(ks=(1, 1)), ValueError, "ks"), (dict(ks=("a",)), TypeError, "ks"), (dict(ks=(1.5,)), TypeError, "ks"),
    (dict(d=2), ValueError, "ks"), (dict(d=0), ValueError, "d"), (dict(d=17), ValueError, "d"),
    (dict(d=4.0), TypeError, "d"),
])
def test_digits_marginals_bad_input(kw, exc, name):
    from dpbook.queries import digits_marginals
    with pytest.raises(exc, match=name):
        digits_marginals(**kw)


def test_picture_workload_hulls_and_bad_input():
    """Chapter 13's picture workloads: 'one-way cells' has the cube's 2^m vertices, 'nested cells' a simplex
    (m + 1 vertices), 'random values' is seeded; a name, m or seed outside the range is refused by name."""
    from dpbook.queries import PICTURE_WORKLOADS, picture_workload
    vertices = lambda W: np.unique(W.columns(np.arange(W.N)).T, axis=0)
    for m in (2, 3):
        assert len(vertices(picture_workload("one-way cells", m))) == 2 ** m
        assert len(vertices(picture_workload("nested cells", m))) == m + 1
        a, b = picture_workload("random values", m, 1), picture_workload("random values", m, 1)
        assert a.m == m and a.N == 2048 and np.array_equal(a.matrix(), b.matrix())
        assert not np.array_equal(a.matrix(), picture_workload("random values", m, 2).matrix())
    assert set(PICTURE_WORKLOADS) == {"random values", "one-way cells", "nested cells"}
    for kw, err, name in [(dict(name="cuts"), ValueError, "name"), (dict(name=3), TypeError, "name"),
                          (dict(m=4), ValueError, "m"), (dict(m=1), ValueError, "m"), (dict(m=2.0), TypeError, "m"),
                          (dict(seed=-1), ValueError, "seed"), (dict(seed="1"), TypeError, "seed")]:
        with pytest.raises(err, match=name):
            picture_workload(**dict(dict(name="nested cells", m=2), **kw))


def test_prefix_sensitivities_are_the_exact_sensitivities():
    from dpbook.queries import MatrixWorkload, prefix_sensitivities
    from dpbook.randomized_response import subgroup_workload

    W = subgroup_workload()
    delta = prefix_sensitivities(W)
    Q = np.asarray(W.matrix())
    assert delta.shape == (W.m,) and np.all(np.diff(delta) >= 0)
    for j in (1, 2, 11, 100, W.m):
        assert delta[j - 1] == MatrixWorkload(Q[:j]).l1_sensitivity()
    assert delta[0] == 1 and delta[-1] == 1 + 10 + 45 + 120      # one cell of each attribute set of size <= 3
    assert prefix_sensitivities(W) is delta and not delta.flags.writeable      # cached, and the cache cannot be edited
    weighted = MatrixWorkload(np.array([[0.5, 1.0, 0.0], [1.0, 0.0, 0.25]]))     # not a marginal workload: not cached
    assert list(prefix_sensitivities(weighted)) == [1.0, 1.5] == [MatrixWorkload(weighted.matrix()[:j]).l1_sensitivity()
                                                                  for j in (1, 2)]
    with pytest.raises(TypeError, match="workload"):
        prefix_sensitivities(Q)
