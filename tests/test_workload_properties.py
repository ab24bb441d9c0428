"""Property tests (hypothesis): every sensitivity a workload reports, and its entry range, against brute force on the
dense matrix of summed entries — for sparse matrices that store cells several times, cut queries whose ``S`` and
``T`` overlap, and marginal workloads that list cells several times (in any attribute order).

A reported sensitivity must be a valid upper bound everywhere and equal to the brute-force value where its
docstring says it is exact.  Derandomized, modest example counts: a few seconds in all."""
import itertools

import numpy as np
from dpbook.multiplicative_weights import marginal_layout
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpbook.graphs import cut_workload
from dpbook.queries import MarginalWorkload, MatrixWorkload

SETTINGS = settings(max_examples=80, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TOL = 1e-9


def brute(D):
    """Every sensitivity of the dense ``m × N`` matrix ``D``, by enumeration of rows and pairs of rows."""
    diff = D[:, :, None] - D[:, None, :]                       # (m, N, N): Q(e_u - e_v)
    return {
        "l1": float(np.abs(D).sum(axis=0).max()),
        "l2": float(np.sqrt((D ** 2).sum(axis=0).max())),
        "l0": int((D != 0).sum(axis=0).max()),
        "linf": float(np.abs(D).max()),
        "replace_l1": float(np.abs(diff).sum(axis=0).max()),
        "replace_l2": float(np.sqrt((diff ** 2).sum(axis=0).max())),
        "replace_linf": float(np.abs(diff).max()),
        "range": (float(D.min()), float(D.max())),
    }


def check_reported(W, D, *, exact_replace=False):
    """The workload's reports against brute force on ``D``: add/remove ones exact, replace-one ones valid bounds
    (exact when ``exact_replace``), and the ``sensitivity`` dispatcher consistent with the methods."""
    b = brute(D)
    assert W.entry_range() == pytest.approx(b["range"])
    assert W.l1_sensitivity() == pytest.approx(b["l1"])
    assert W.l2_sensitivity() == pytest.approx(b["l2"])
    assert W.l0_sensitivity() == b["l0"]
    assert W.linf_sensitivity() == pytest.approx(b["linf"])
    assert W.linf_sensitivity("replace-one") >= b["replace_linf"] - TOL
    assert W.replace_one_l1_sensitivity() >= b["replace_l1"] - TOL
    assert W.replace_one_l2_sensitivity() >= b["replace_l2"] - TOL
    if exact_replace:
        assert W.replace_one_l1_sensitivity() == pytest.approx(b["replace_l1"])
        assert W.replace_one_l2_sensitivity() == pytest.approx(b["replace_l2"])
    for norm, rel in itertools.product(("l1", "l2", "linf"), ("add/remove", "replace-one")):
        assert W.sensitivity(norm, rel) >= (b[norm] if rel == "add/remove" else b["replace_" + norm]) - TOL


# --------------------------------------------------------------------------- sparse input with duplicates

@st.composite
def stored_matrices(draw):
    """A CSR matrix as stored (indices unsorted, repeated) and its dense matrix of summed entries."""
    m, N = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    k = draw(st.integers(0, 14))
    rows = sorted(draw(st.lists(st.integers(0, m - 1), min_size=k, max_size=k)))
    cols = draw(st.lists(st.integers(0, N - 1), min_size=k, max_size=k))
    vals = draw(st.lists(st.sampled_from([-0.25, 0.25, 0.5, 0.75, 1.0]), min_size=k, max_size=k))
    indptr = np.searchsorted(np.asarray(rows, dtype=np.int64), np.arange(m + 1))
    Q = sp.csr_matrix((np.asarray(vals, dtype=np.float64), np.asarray(cols, dtype=np.int64), indptr), shape=(m, N))
    D = np.zeros((m, N))
    np.add.at(D, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)), vals)
    return Q, D


@SETTINGS
@given(stored_matrices())
def test_sparse_matrix_with_duplicates(case):
    """Validated after summing: accepted iff every summed entry is in [0, 1]; then canonical, every report exact or a
    valid bound on the summed matrix; the caller's matrix is untouched."""
    Q, D = case
    stored = (Q.data.copy(), Q.indices.copy(), Q.indptr.copy())
    if np.any((D < 0) | (D > 1)):
        r, c = map(int, np.argwhere((D < 0) | (D > 1))[0])
        with pytest.raises(ValueError, match=rf"Q\[{r}, {c}\] has a value \({float(D[r, c])!r}\)"):
            MatrixWorkload(Q)
    else:
        W = MatrixWorkload(Q)
        assert W.Q.has_canonical_format and W.Q.nnz == np.count_nonzero(D)
        assert np.array_equal(W.matrix(), D)
        check_reported(W, D)
        x = np.arange(1, D.shape[1] + 1)
        assert np.allclose(W.counts(x), D @ x)
        for i in range(W.m):
            idx, val = W.query_support(i)
            assert np.array_equal(idx, np.flatnonzero(D[i])) and np.array_equal(val, D[i, idx])
    for before, after in zip(stored, (Q.data, Q.indices, Q.indptr)):
        assert np.array_equal(before, after)                     # the caller's matrix is never canonicalised


# --------------------------------------------------------------------------- overlapping cut queries

@st.composite
def cuts(draw):
    V = draw(st.integers(2, 5))
    m = draw(st.integers(1, 3))
    subset = st.lists(st.integers(0, V - 1), max_size=V, unique=True)
    return V, [(draw(subset), draw(subset)) for _ in range(m)]


@SETTINGS
@given(cuts())
def test_cut_workload_with_overlap(case):
    """Coefficient 2 where S and T share both endpoints of a pair: entry_range and every sensitivity on the dense
    coefficients (the ones the mechanisms now read)."""
    V, queries = case
    W = cut_workload(V, queries)
    D = W.matrix()
    a, b = np.triu_indices(V, 1)
    for i, (S, T) in enumerate(queries):                      # the coefficients, from their definition
        s, t = np.isin(np.arange(V), S), np.isin(np.arange(V), T)
        assert np.array_equal(D[i], (s[a] & t[b]).astype(float) + (s[b] & t[a]).astype(float))
    check_reported(W, D)


# --------------------------------------------------------------------------- marginal cells listed several times

@st.composite
def marginal_cells(draw, one_set=False):
    d = draw(st.integers(1, 4))
    attrs = st.lists(st.integers(0, d - 1), min_size=1, max_size=d, unique=True)
    fixed = draw(attrs) if one_set else None
    cells = []
    for _ in range(draw(st.integers(1, 6))):
        S = draw(st.permutations(fixed)) if one_set else draw(attrs)
        v = draw(st.lists(st.integers(0, 1), min_size=len(S), max_size=len(S)))
        cells += [(tuple(S), tuple(v))] * draw(st.integers(1, 3))           # each cell listed 1 to 3 times
    return d, cells


class _BoundOnly(MarginalWorkload):
    """The same workload through the large-``d`` path (the proven upper bound, no ``2^d`` transform)."""
    EXACT_SENSITIVITY_MAX_D = 0


@SETTINGS
@given(marginal_cells())
def test_marginals_with_repeated_cells(case):
    d, cells = case
    W = MarginalWorkload(d, cells)
    D = W.matrix()
    check_reported(W, D)
    bound = _BoundOnly(d, cells)
    b = brute(D)
    assert bound.l1_sensitivity() >= b["l1"] and bound.l0_sensitivity() >= b["l0"]
    assert bound.replace_one_l1_sensitivity() >= b["replace_l1"] - TOL
    layout = marginal_layout(W)                                 # MWEM's units: exact under both relations
    for u, row in enumerate(layout.units):
        sub = brute(D[row[row >= 0]])
        assert layout.sensitivity[u] == pytest.approx(sub["l1"])
        assert layout.replace_sensitivity[u] == pytest.approx(sub["replace_l1"])


@SETTINGS
@given(marginal_cells(one_set=True))
def test_one_marginal_replace_one_is_exact(case):
    """Cells of one attribute set (in any order, repeated): the replace-one sensitivities are exact (k + k')."""
    d, cells = case
    W = MarginalWorkload(d, cells)
    check_reported(W, W.matrix(), exact_replace=True)
    assert _BoundOnly(d, cells).replace_one_l1_sensitivity() == pytest.approx(brute(W.matrix())["replace_l1"])
