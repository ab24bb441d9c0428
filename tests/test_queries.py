import itertools

import numpy as np
from dpbook.multiplicative_weights import marginal_layout
import pytest
import scipy.sparse as sp

from dpbook.data import add_row, load_cancer, remove_row
from dpbook.queries import (MarginalWorkload, MatrixWorkload, RangeWorkload, as_workload, conjunctions,
                            k_way_marginals, random_queries, range_queries, threshold_queries)


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
