"""Workloads of linear queries (S1 basic, IDC §2, PROJ-Def1).

A linear query is a vector ``q ∈ [0,1]^|X|``; on a histogram ``x`` its count is ``<q, x>`` (sensitivity 1
under add/remove) and its answer is the normalised ``q(x) = <q, x> / n``.  A workload of ``m`` queries is
a matrix ``Q ∈ [0,1]^{m×|X|}`` answered as ``Q @ x / n``.

Every workload is a :class:`Workload`: it knows ``m`` and ``N``, its ``counts(x) = Q @ x``, its
``answers(x) = Q @ x / ||x||_1``, the adjoint ``rmatvec(y) = Qᵀ y``, a query's non-zeros
(``query_support(i)``), one query as a vector over the universe (``query(i)``), a
``scipy.sparse.linalg.LinearOperator`` view (``as_linear_operator()``) and its sensitivities — exact, or a
proven upper bound where the docstring says so, whatever queries (repeated, overlapping) the caller passed.
:class:`MatrixWorkload` holds an explicit dense or ``scipy.sparse`` matrix; the implicit forms
(:class:`MarginalWorkload`, :class:`RangeWorkload`) answer by reshaping, summing and cumulative sums, never through an ``m×|X|`` matrix, so they scale to ``|X| = 2^20`` and beyond.  Later chapters add
their own implicit forms (sparse queries over 2^32 elements, cut queries, smooth functions) on the same
interface.
"""
from __future__ import annotations

import functools
import itertools
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:   # scipy.sparse is imported by the code paths that build a sparse matrix (~0.2 s of CPU where it
    # is the first scipy module a chapter loads, as in chapter 00)
    import scipy.sparse as sp

from .data import SparseHistogram, cancer_projection
from .noise import as_generator
from .validation import real_dtype, check_histogram, check_int, check_matrix_workload, check_work, is_sparse

__all__ = [
    "Workload", "MatrixWorkload", "MarginalWorkload", "RangeWorkload", "as_workload", "check_database", "check_dual",
    "random_queries", "k_way_marginals", "conjunctions", "threshold_queries", "range_queries",
    # the chapters' example workloads
    "ATTRIBUTES6", "ATTRIBUTES3", "cancer6", "cancer3", "digits_marginals", "one_two_way_cells", "cancer_4way_cells",
    "cancer_conjunctions", "PICTURE_WORKLOADS", "picture_workload", "prefix_sensitivities",
]


#: :meth:`Workload.rmatvec` refuses a dense result with more cells than this (``trials · N``; 2 GiB of float64)
RMATVEC_DENSE_LIMIT = 1 << 28


#: :meth:`Workload.rmatvec` with ``sparse=True`` refuses to store more entries than this (``trials · support``)
RMATVEC_SPARSE_LIMIT = 1 << 27


def _check_vector(x, N: int, name: str = "x", *, signed: bool = False) -> np.ndarray:
    """A finite vector over the universe, ``(N,)``, or a batch of them, ``(trials, N)``; non-negative
    (a histogram or a fractional hypothesis) unless ``signed`` (e.g. a noisy histogram)."""
    arr = np.asarray(x)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a numeric vector over the universe, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2) or arr.shape[-1] != N:
        raise ValueError(f"{name} must have shape ({N},) or (trials, {N}) to match the workload's universe, "
                         f"got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; it must be finite")
    if not signed and np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative (counts or probabilities)")
    return arr.astype(np.float64, copy=False)


def check_dual(y, m: int, name: str = "y") -> np.ndarray:
    """A finite real vector over the ``m`` queries of a workload, ``(m,)``, or a batch ``(trials, m)`` (any sign),
    as float64: the argument of :meth:`Workload.rmatvec` (``Qᵀ y``) and of the geometry of the query polytope
    (:mod:`dpbook.geometry`: support function, Gaussian width).  ``TypeError`` for a non-real dtype,
    ``ValueError`` naming ``name`` for the wrong shape or a NaN/inf."""
    arr = np.asarray(y)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a real numeric vector over the queries, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2) or arr.shape[-1] != m:
        raise ValueError(f"{name} must have shape ({m},) or (trials, {m}) to match the workload's queries, "
                         f"got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; it must be finite")
    return arr.astype(np.float64, copy=False)


class Workload(ABC):
    """``m`` linear queries over a universe of ``N`` elements (values in ``[0, 1]``)."""

    m: int
    N: int

    @abstractmethod
    def _counts(self, x: np.ndarray) -> np.ndarray:
        """``Q @ x`` for a validated float vector ``x`` of shape ``(N,)`` (any sign: the map is linear)."""

    def _counts_many(self, P: np.ndarray) -> np.ndarray:
        """``Q @ P[t]`` for every row of a validated ``(trials, N)`` array; implicit forms vectorise this."""
        return np.stack([self._counts(row) for row in P])

    @abstractmethod
    def query(self, i: int) -> np.ndarray:
        """Query ``i`` as a dense vector in ``[0,1]^N``."""

    def query_support(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Query ``i``'s non-zeros: ``(indices, values)``, indices sorted, values in ``(0, 1]``.

        Generic version through :meth:`query`; implicit forms override it without building an ``N``-vector.
        """
        q = self.query(i)
        idx = np.flatnonzero(q)
        return idx, q[idx]

    def _check_columns(self, indices) -> np.ndarray:
        idx = np.asarray(indices)
        if idx.ndim != 1 or not (np.issubdtype(idx.dtype, np.integer) or idx.size == 0):
            raise TypeError("indices must be a 1-D integer array of universe elements")
        idx = idx.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.N):
            raise ValueError(f"indices must lie in [0, {self.N})")
        return idx

    def columns(self, indices) -> np.ndarray:
        """``Q[:, indices]``: the answer vectors ``Q(r)`` of single rows ``r`` (PROJ-Def2's points of ``S_Q``),
        an ``(m, k)`` array, without an ``N``-vector per column."""
        idx = self._check_columns(indices)
        return self._columns(idx)

    def _columns(self, idx: np.ndarray) -> np.ndarray:
        """Generic: one single-row :class:`~dpbook.data.SparseHistogram` per column."""
        out = np.empty((self.m, idx.size))
        for c, u in enumerate(idx):
            out[:, c] = self._counts_sparse(SparseHistogram(self.N, np.array([u]), np.array([1])))
        return out

    def _rmatvec_reference(self, Y: np.ndarray) -> np.ndarray:
        """``Qᵀ y`` for every row of a validated ``(trials, m)`` array, query by query through
        :meth:`query_support` (the readable reference the fast overrides are tested against)."""
        out = np.zeros((Y.shape[0], self.N))
        for i in range(self.m):
            idx, val = self.query_support(i)
            out[:, idx] += Y[:, i:i + 1] * val
        return out

    def _rmatvec_many(self, Y: np.ndarray) -> np.ndarray:
        """``Qᵀ Y[t]`` for every row of a validated ``(trials, m)`` array; concrete forms override this."""
        return self._rmatvec_reference(Y)

    def rmatvec(self, y, *, sparse: bool = False):
        """The adjoint ``Qᵀ y``: ``(m,)`` → ``(N,)``, ``(trials, m)`` → ``(trials, N)`` (PROJ-Def1).

        For any finite real ``y`` (e.g. a residual ``Q w − ŷ`` in the projection mechanism's gradient).
        The dense result is refused (``ValueError``) above :data:`RMATVEC_DENSE_LIMIT` cells (``trials · N``).
        ``sparse=True`` returns it as a ``scipy.sparse`` array of the same shape instead (1-D for 1-D ``y``),
        built only from the supports of the queries with a non-zero ``y`` — never an ``N``-vector, so it works
        over a :class:`~dpbook.data.SparseHistogram` universe (``N = 2^32``) when the queries are sparse;
        where they are not (a marginal cell of ``2^30`` elements) it refuses with a ``ValueError`` saying how
        many entries the result would need (limit :data:`RMATVEC_SPARSE_LIMIT`).  Entries not stored are 0.
        """
        Y = check_dual(y, self.m)
        if not isinstance(sparse, (bool, np.bool_)):
            raise TypeError(f"sparse must be True or False, got {sparse!r}")
        Y2 = Y if Y.ndim == 2 else Y[None]
        if sparse:
            import scipy.sparse as sp
            out = self._rmatvec_sparse(Y2)
            return out if Y.ndim == 2 else sp.coo_array((out.data, (out.indices,)), shape=(self.N,)).tocsr()
        if Y2.shape[0] * self.N > RMATVEC_DENSE_LIMIT:
            raise ValueError(f"rmatvec would return a dense array of {Y2.shape[0]} x N ({self.N}) floats, more than "
                             f"{RMATVEC_DENSE_LIMIT:.3g}; pass sparse=True (the result over the queries' supports)")
        out = np.asarray(self._rmatvec_many(Y2), dtype=np.float64)
        return out if Y.ndim == 2 else out[0]

    def _support_size(self, i: int) -> int:
        """How many universe elements query ``i`` touches (an upper bound is enough), without listing them when
        that could be huge — :meth:`rmatvec`'s size check before a sparse result.  Generic: list them."""
        return int(self.query_support(i)[0].size)

    def _rmatvec_sparse(self, Y: np.ndarray) -> sp.csr_array:
        """``Qᵀ Y[t]`` as a sparse ``(trials, N)`` array from the supports of the queries that some trial weights
        (the union ``U`` of their supports; ``(trials, |U|)`` work, never ``N``).  Refused above
        :data:`RMATVEC_SPARSE_LIMIT` entries."""
        import scipy.sparse as sp
        trials = Y.shape[0]
        active = np.flatnonzero(np.any(Y != 0, axis=0))
        size = sum(self._support_size(int(i)) for i in active)
        if trials * size > RMATVEC_SPARSE_LIMIT:
            raise ValueError(f"rmatvec(sparse=True): the {active.size} queries with a non-zero y touch {size} "
                             f"universe elements (x {trials} trials), more than {RMATVEC_SPARSE_LIMIT:.3g} entries; "
                             "Qᵀy is not sparse for this workload — use a smaller universe or fewer queries")
        supports = [self.query_support(int(i)) for i in active]
        elements = np.concatenate([e for e, _ in supports] + [np.zeros(0, dtype=np.int64)]).astype(np.int64)
        values = np.concatenate([v for _, v in supports] + [np.zeros(0)])
        union, position = np.unique(elements, return_inverse=True)
        owner = np.repeat(np.arange(active.size), [e.size for e, _ in supports])
        spread = sp.csr_array((values, (owner, position.ravel())), shape=(active.size, union.size))
        dense = np.asarray((spread.T @ Y[:, active].T).T, dtype=np.float64)          # (trials, |U|)
        out = sp.csr_array((dense.ravel(), np.tile(union, trials), np.arange(trials + 1) * union.size),
                           shape=(trials, self.N))
        out.eliminate_zeros()
        return out

    def as_linear_operator(self):
        """This workload as a ``scipy.sparse.linalg.LinearOperator`` of shape ``(m, N)`` (matvec = ``Q x``,
        rmatvec = ``Qᵀ y``), so scipy's iterative solvers and norm estimators work on it without a matrix."""
        from scipy.sparse.linalg import LinearOperator

        def matmat(X):
            return self._apply(np.asarray(X, dtype=np.float64).T).T

        def rmatmat(Y):
            return np.asarray(self._rmatvec_many(np.asarray(Y, dtype=np.float64).T), dtype=np.float64).T

        return LinearOperator(
            (self.m, self.N), dtype=np.float64,
            matvec=lambda x: self._apply(np.asarray(x, dtype=np.float64).ravel()),
            rmatvec=lambda y: self._rmatvec_many(np.asarray(y, dtype=np.float64).reshape(1, -1))[0],
            matmat=matmat, rmatmat=rmatmat)

    @abstractmethod
    def l1_sensitivity(self) -> float:
        """``max_u ||Q e_u||_1``: how much adding/removing one row moves all counts (DR-Def3.1)."""

    @abstractmethod
    def l2_sensitivity(self) -> float:
        """``max_u ||Q e_u||_2`` (the Gaussian mechanism's ``Δ2``, for counts)."""

    def linf_sensitivity(self, neighbours: str = "add/remove") -> float:
        """How much one count ``<q_i, x>`` can move between neighbours, the largest over the queries.

        ``"add/remove"``: ``max_{i,u} |Q[i, u]|`` (exact, from :meth:`entry_range`).  ``"replace-one"``:
        ``max_{i,u,v} |Q[i, u] - Q[i, v]|``, bounded by ``hi - lo`` of :meth:`entry_range` (exact when a query
        takes both extreme values, e.g. a query with an implicit zero and the largest entry).  For queries in
        ``[0, 1]`` both are at most 1: the sensitivity the per-query mechanisms assume (LEC3-3.3.2)."""
        from .validation import check_neighbours
        neighbours = check_neighbours(neighbours)
        lo, hi = self.entry_range()
        return float(max(abs(lo), abs(hi)) if neighbours == "add/remove" else hi - lo)

    def replace_one_l1_sensitivity(self) -> float:
        """A proven upper bound on ``max_{u,v} ||Q (e_u - e_v)||_1`` (one row replaced by another): ``2 Δ1`` by
        the triangle inequality (:meth:`l1_sensitivity`); implicit forms override it with a tighter bound."""
        return 2.0 * float(self.l1_sensitivity())

    def replace_one_l2_sensitivity(self) -> float:
        """A proven upper bound on ``max_{u,v} ||Q (e_u - e_v)||_2``: ``min(sqrt(2) Δ2, sqrt(m) (hi - lo))`` for
        non-negative entries (``|a_i - b_i| <= max(a_i, b_i)``, so ``Σ (a_i - b_i)² <= ||a||² + ||b||² <= 2 Δ2²``;
        and each coordinate moves by at most ``hi - lo`` of :meth:`entry_range`), ``2 Δ2`` (the triangle
        inequality) in place of ``sqrt(2) Δ2`` when some entry is negative.  PROJ-R1's ``sqrt(m)`` for 0/1 queries."""
        lo, hi = self.entry_range()
        delta2 = float(self.l2_sensitivity())
        first = (np.sqrt(2.0) if lo >= 0 else 2.0) * delta2
        return float(min(first, np.sqrt(self.m) * (hi - lo)))

    def sensitivity(self, norm: str = "l1", neighbours: str = "add/remove") -> float:
        """The sensitivity of the counts ``Q x`` in ``norm`` (``"l1"``, ``"l2"``, ``"linf"``) under ``neighbours``
        (``"add/remove"``: :meth:`l1_sensitivity`, :meth:`l2_sensitivity`; ``"replace-one"``:
        :meth:`replace_one_l1_sensitivity`, :meth:`replace_one_l2_sensitivity`; ``"linf"``:
        :meth:`linf_sensitivity`), each exact or a proven upper bound as its docstring says."""
        from .validation import check_choice, check_neighbours
        norm = check_choice("norm", norm, ("l1", "l2", "linf"))
        neighbours = check_neighbours(neighbours)
        if norm == "linf":
            return self.linf_sensitivity(neighbours)
        if neighbours == "add/remove":
            return float(self.l1_sensitivity() if norm == "l1" else self.l2_sensitivity())
        return float(self.replace_one_l1_sensitivity() if norm == "l1" else self.replace_one_l2_sensitivity())

    def _counts_sparse(self, x: SparseHistogram) -> np.ndarray:
        """``Q @ x`` for a :class:`~dpbook.data.SparseHistogram`; implicit forms override this."""
        return self._counts(x.to_dense().astype(np.float64))

    def _apply(self, v: np.ndarray) -> np.ndarray:
        out = self._counts_many(v) if v.ndim == 2 else self._counts(v)
        return np.asarray(out, dtype=np.float64)

    def apply(self, v) -> np.ndarray:
        """The linear map ``Q @ v`` for any finite real ``v`` — ``(N,)`` → ``(m,)``, ``(trials, N)`` → ``(trials, m)``.

        For vectors that are not databases, e.g. a noisy histogram with negative cells (chapter 03).
        """
        return self._apply(_check_vector(v, self.N, "v", signed=True))

    def counts(self, x) -> np.ndarray:
        """Unnormalised answers ``Q @ x`` (each has sensitivity <= 1 under add/remove).

        ``x``: a non-negative vector over the universe ``(N,)``, a batch ``(trials, N)``, or a
        :class:`~dpbook.data.SparseHistogram`.
        """
        if isinstance(x, SparseHistogram):
            if x.N != self.N:
                raise ValueError(f"x is over {x.N} universe elements but the workload over {self.N}")
            return np.asarray(self._counts_sparse(x), dtype=np.float64)
        out = self._apply(_check_vector(x, self.N))
        return np.maximum(out, 0.0, out=out)          # Q, x >= 0: clears -1e-17 rounding of float inputs

    def answers(self, x) -> np.ndarray:
        """Normalised answers ``Q @ x / ||x||_1`` in ``[0, 1]`` (x a histogram, a distribution, a batch of
        them, or sparse)."""
        if isinstance(x, SparseHistogram):
            total = float(x.n)
        else:
            x = _check_vector(x, self.N)
            total = x.sum(axis=-1, keepdims=x.ndim == 2)
        if np.any(np.asarray(total) <= 0):
            raise ValueError("x must have positive total mass to normalise the answers")
        return self.counts(x) / total

    def matrix(self) -> np.ndarray:
        """The dense ``m × N`` matrix (only for small workloads; implicit forms build it query by query)."""
        if self.m * self.N > 50_000_000:
            raise ValueError(f"a dense {self.m}x{self.N} matrix is too large; use counts()/query() instead")
        return np.stack([self.query(i) for i in range(self.m)])

    # ------------------------------------------------------------------ each row's count of its own query

    def check_picks(self, i, rows: int) -> np.ndarray:
        """One query index per row: an int (shared) or an integer array of shape ``(rows,)``, each in ``[0, m)``."""
        if np.ndim(i) == 0:
            return np.full(rows, self._check_i(i.item() if isinstance(i, np.ndarray) else i), dtype=np.int64)
        idx = np.asarray(i)
        if not np.issubdtype(idx.dtype, np.integer) or idx.dtype == bool:
            raise TypeError(f"i must be a query index or an integer array of them, got dtype {idx.dtype}")
        if idx.shape != (rows,):
            raise ValueError(f"i must be one query index or one per row of p (shape ({rows},)), got {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.m):
            raise ValueError(f"i must index the workload's {self.m} queries (0 <= i < {self.m})")
        return idx.astype(np.int64, copy=False)

    def counts_at(self, P, i) -> np.ndarray:
        """``<q_{i[t]}, P[t]>`` for every row ``t`` of ``P``: each row's count of its own query (or of the shared
        query ``i``), with no ``m``-vector of answers per row.  ``P``: ``(N,)`` (then ``i`` is one index and the
        result a float) or ``(trials, N)`` (result ``(trials,)``); any finite real entries (the map is linear).
        MWEM's replay and the IDC mechanisms ask every run's hypothesis about its picked query this way."""
        arr = _check_vector(P, self.N, "P", signed=True)
        P2 = arr if arr.ndim == 2 else arr[None]
        out = np.asarray(self._counts_at(P2, self.check_picks(i, P2.shape[0])), dtype=np.float64)
        return out if arr.ndim == 2 else float(out[0])

    def _counts_at(self, P: np.ndarray, picks: np.ndarray) -> np.ndarray:
        """Generic: each picked query's non-zeros (:meth:`query_support`), grouped by query."""
        out = np.empty(P.shape[0])
        for j in np.unique(picks):
            rows = np.flatnonzero(picks == j)
            idx, val = self.query_support(int(j))
            out[rows] = P[np.ix_(rows, idx)] @ val
        return out

    def entry_range(self) -> tuple[float, float]:
        """``(min, max)`` over the entries of ``Q`` (implicit zeros included): a workload of linear queries has
        them in ``[0, 1]``, which the IDC rules and the MW update need.  Generic: every query's non-zeros (a loop
        over the ``m`` queries); the explicit and 0/1 workloads answer directly."""
        lo, hi = np.inf, -np.inf
        for i in range(self.m):
            _, val = self.query_support(i)
            if val.size:
                lo, hi = min(lo, float(val.min())), max(hi, float(val.max()))
            if val.size < self.N:
                lo, hi = min(lo, 0.0), max(hi, 0.0)
        return lo, hi

    def _check_i(self, i) -> int:
        return check_int("i", i, low=0, high=self.m - 1)

    def is_integral(self) -> bool:
        """True when every entry of ``Q`` is an integer, so ``Q x`` lies on the integers for every histogram
        ``x`` (lattice noise can then be added without rounding).  Conservative default: False."""
        return False

    def l0_sensitivity(self) -> int:
        """``max_u #{i : Q[i, u] != 0}``: how many counts one row can move (what rounding onto a lattice
        costs, one step each).  Default: the proven upper bound ``m``."""
        return int(self.m)

    def __len__(self) -> int:
        return self.m


class _Frozen:
    """Public attributes are set once, in ``__init__``: a validated workload cannot change afterwards (its
    cached sensitivities would go stale).  Private caches (``_name``) stay writable."""

    _frozen = False

    def __setattr__(self, name, value):
        if self._frozen and not name.startswith("_"):
            raise AttributeError(f"a {type(self).__name__} cannot change after it was validated: build a new one "
                                 f"instead of setting {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if self._frozen and not name.startswith("_"):
            raise AttributeError(f"a {type(self).__name__} cannot change after it was validated ({name!r})")
        object.__delattr__(self, name)


class MatrixWorkload(_Frozen, Workload):
    """An explicit workload matrix ``Q ∈ [0,1]^{m×N}`` (dense ndarray or scipy.sparse).

    The matrix is validated once, on a private copy (:func:`dpbook.validation.check_matrix_workload`): a
    scipy.sparse matrix is canonicalised first — CSR, entries stored more than once summed (five stored 1.0 at a
    cell are the entry 5, refused), explicit zeros dropped, sorted indices — so :meth:`entry_range` and every
    sensitivity are those of the matrix ``Q @ x`` computes.  The copy's arrays are read-only and the workload's
    attributes cannot be reassigned: changing the caller's array afterwards changes nothing.  ``name``: the
    caller's parameter that errors name (a mechanism's ``workload``).
    """

    def __init__(self, Q, names=None, *, name: str = "Q"):
        self.Q = check_matrix_workload(Q, name)
        self.m, self.N = self.Q.shape
        self.names = tuple(names) if names is not None else None
        self._frozen = True

    def _counts(self, x):
        return np.asarray(self.Q @ x, dtype=np.float64).ravel()

    def _counts_many(self, P):
        return np.asarray(self.Q @ P.T, dtype=np.float64).T

    def _counts_sparse(self, x):
        if not is_sparse(self.Q):
            return self.Q[:, x.indices] @ x.counts.astype(np.float64)
        # look every stored entry's column up in the support: O(nnz log |support|), never O(N)
        cols = self.Q.indices
        pos = np.minimum(np.searchsorted(x.indices, cols), max(x.indices.size - 1, 0))
        hit = x.indices[pos] == cols if x.indices.size else np.zeros(cols.size, dtype=bool)
        weighted = np.where(hit, self.Q.data * x.counts[pos], 0.0)
        rows = np.repeat(np.arange(self.m), np.diff(self.Q.indptr))
        return np.bincount(rows, weights=weighted, minlength=self.m)

    def query(self, i):
        row = self.Q[self._check_i(i)]
        return row.toarray().ravel() if is_sparse(row) else np.array(row, dtype=np.float64)

    def query_support(self, i):
        i = self._check_i(i)
        if is_sparse(self.Q):                  # canonical CSR: sorted, no duplicates, no explicit zeros
            a, b = self.Q.indptr[i], self.Q.indptr[i + 1]
            return self.Q.indices[a:b].astype(np.int64), np.array(self.Q.data[a:b], dtype=np.float64)
        idx = np.flatnonzero(self.Q[i])
        return idx, np.asarray(self.Q[i, idx], dtype=np.float64)

    def _rmatvec_many(self, Y):
        return np.asarray(self.Q.T @ Y.T, dtype=np.float64).T

    def entry_range(self):
        """``(min, max)`` of the entries of the canonical matrix (duplicates summed; implicit zeros included)."""
        entries = self.Q.data if is_sparse(self.Q) else self.Q
        lo, hi = float(entries.min()) if entries.size else 0.0, float(entries.max()) if entries.size else 0.0
        if is_sparse(self.Q) and self.Q.nnz < self.m * self.N:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        return lo, hi

    def query_rows(self, picks) -> np.ndarray:
        """The picked queries as dense rows, ``(len(picks), N)`` (the matrix is explicit, so they are at hand); one
        pick of a dense float64 matrix is a read-only view, not a copy."""
        picks = np.asarray(picks)
        if picks.shape == (1,) and not is_sparse(self.Q) and self.Q.dtype == np.float64:
            j = int(picks[0])
            return self.Q[j][None]
        rows = self.Q[picks]
        return rows.toarray() if is_sparse(rows) else np.asarray(rows, dtype=np.float64)

    def _counts_at(self, P, picks):
        return np.einsum("tn,tn->t", self.query_rows(picks), P)

    def _support_size(self, i):
        return int(self.Q.indptr[i + 1] - self.Q.indptr[i]) if is_sparse(self.Q) else self.N   # stored as CSR

    def _columns(self, idx):
        cols = self.Q[:, idx]
        return cols.toarray() if is_sparse(cols) else np.array(cols, dtype=np.float64)

    def l1_sensitivity(self):
        """Exact: the largest column sum of ``|Q|`` (repeated rows count as often as they appear)."""
        return float(np.asarray(abs(self.Q).sum(axis=0)).max())

    def l2_sensitivity(self):
        """Exact: the largest column norm of ``Q``."""
        sq = self.Q.multiply(self.Q) if is_sparse(self.Q) else self.Q ** 2
        return float(np.sqrt(np.asarray(sq.sum(axis=0)).max()))

    def matrix(self):
        return self.Q.toarray() if is_sparse(self.Q) else self.Q

    def is_integral(self):
        entries = self.Q.data if is_sparse(self.Q) else self.Q
        return bool(np.all(entries == np.rint(entries)))

    def l0_sensitivity(self):
        if is_sparse(self.Q):
            return int(np.asarray((self.Q != 0).sum(axis=0)).max())
        return int((self.Q != 0).sum(axis=0).max())


#: Universe size from which MarginalWorkload.counts_at sums each row's slab in a loop rather than transforming
#: every row (the loop costs ~30 µs a row; the transform ~N·d/10^8 s a row, 13 ms at N = 2^16 — measured).
SLAB_LOOP_MIN_N = 1024


def slab_index(d: int, attributes, values) -> tuple:
    """The index of the cell ``x_S = v`` in the reshaped ``(2,)*d`` cube (a basic-slicing view)."""
    where = dict(zip(attributes, values))      # slice(b, b+1), not b: a view even when S fixes every attribute
    return tuple(slice(where[a], where[a] + 1) if a in where else slice(None) for a in range(d))


class MarginalWorkload(_Frozen, Workload):
    """Marginal cells over ``{0,1}^d``: query ``(S, v)`` counts rows whose attributes ``S`` equal ``v``.

    Answered without an ``m × |X|`` matrix, by a *superset-sum transform*: ``g[z] = Σ_{y ⊇ z} x[y]`` (rows as
    bit sets) takes ``d`` in-place pairwise sums along the axes of the reshaped ``(2,)*d`` cube; then each
    cell is ``Σ_{Z ⊆ zeros(v)} (−1)^{|Z|} g[ones(v) ∪ Z]`` — inclusion–exclusion over its ``2^{|S|}`` corners,
    a sparse product (:meth:`corner_matrix`).  About ``d/2`` passes over ``x`` whatever ``m`` is, batched over
    trials (0.01 s for every 2-way cell at ``d = 20``).  The adjoint ``Qᵀ y = Gᵀ (Cᵀ y)`` is the transpose
    of that: the sparse ``Cᵀ y`` followed by the *subset-sum* transform ``Σ_{z ⊆ u}`` (:meth:`subset_sums`).

    Sensitivity: one row ``u`` changes cell ``j``'s count by ``1[u ∈ cell_j]``, so ``Δ1 = max_u Σ_j 1[u ∈ cell_j]``
    (the largest column sum of ``Q``, counting repeated cells and repeated attribute sets as often as they
    are listed) and ``Δ2 = sqrt(Δ1)`` (entries are 0/1).  Computed exactly for ``d <= 20`` (as ``max Qᵀ 1``),
    otherwise a proven upper bound — see :meth:`l1_sensitivity`.
    """

    EXACT_SENSITIVITY_MAX_D = 20

    def __init__(self, d: int, cells):
        self.d = check_int("d", d, low=1, high=40)
        self.N = 1 << self.d
        checked = []
        for S, v in cells:
            S, v = tuple(int(a) for a in S), tuple(int(b) for b in v)
            if len(S) != len(v) or len(set(S)) != len(S) or not S:
                raise ValueError(f"cell ({S}, {v}) needs distinct attributes and one value per attribute")
            if min(S) < 0 or max(S) >= self.d or not set(v) <= {0, 1}:
                raise ValueError(f"cell ({S}, {v}) must use attributes in [0, {self.d}) and values 0/1")
            checked.append((S, v))
        if not checked:
            raise ValueError("cells must not be empty")
        self.cells = tuple(checked)              # frozen: the cached sensitivities below cannot go stale
        self.m = len(self.cells)
        self._corners = None
        self._coverage = None
        self._frozen = True

    def corner_matrix(self) -> sp.csr_matrix:
        """The sparse ``m × N`` matrix ``C`` with ``Q x = C g`` for the superset sums ``g`` of ``x``: ``±1`` at
        the ``2^{|S|}`` corners ``ones(v) ∪ Z``, ``Z ⊆ zeros(v)``, sign ``(−1)^{|Z|}`` (built once)."""
        if self._corners is None:
            import scipy.sparse as sp
            rows, cols, signs = [], [], []
            for j, (S, v) in enumerate(self.cells):
                ones = sum(1 << (self.d - 1 - a) for a, b in zip(S, v) if b == 1)
                zeros = [1 << (self.d - 1 - a) for a, b in zip(S, v) if b == 0]
                for r in range(len(zeros) + 1):
                    for Z in itertools.combinations(zeros, r):
                        rows.append(j)
                        cols.append(ones + sum(Z))
                        signs.append((-1.0) ** r)
            self._corners = sp.csr_matrix((signs, (rows, cols)), shape=(self.m, self.N))
        return self._corners

    def superset_sums(self, P) -> np.ndarray:
        """``g[t, z] = Σ_{y ⊇ z} P[t, y]`` for each row of ``P`` (``(N,)`` or ``(trials, N)``; a new array)."""
        g = np.array(P, dtype=np.float64, ndmin=2, order="C")  # a C-ordered copy: the transform is in place
        for a in range(self.d):                               # axis a: g[.., 0, ..] += g[.., 1, ..]
            block = 1 << (self.d - 1 - a)                     # contiguous run below axis a
            if 1 < block <= 8:                                # short runs: `block` strided column adds
                cols = g.reshape(-1, 2 * block)               # beat numpy's short inner loop (~5x)
                for j in range(block):
                    np.add(cols[:, j], cols[:, block + j], out=cols[:, j])
            else:
                view = g.reshape(-1, 2, block)
                np.add(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])
        return g

    def subset_sums(self, W) -> np.ndarray:
        """``h[t, u] = Σ_{z ⊆ u} W[t, z]`` for each row of ``W`` (the transpose of :meth:`superset_sums`)."""
        h = np.array(W, dtype=np.float64, ndmin=2, order="C")  # a C-ordered copy: the transform is in place
        for a in range(self.d):                               # axis a: h[.., 1, ..] += h[.., 0, ..]
            block = 1 << (self.d - 1 - a)
            if 1 < block <= 8:
                cols = h.reshape(-1, 2 * block)
                for j in range(block):
                    np.add(cols[:, block + j], cols[:, j], out=cols[:, block + j])
            else:
                view = h.reshape(-1, 2, block)
                np.add(view[:, 1, :], view[:, 0, :], out=view[:, 1, :])
        return h

    def _counts_many(self, P):
        return np.asarray(self.corner_matrix() @ self.superset_sums(P).T).T

    def _rmatvec_many(self, Y):
        return self.subset_sums(np.asarray(self.corner_matrix().T @ Y.T).T)

    def _counts_at(self, P, picks):
        """Each row's count of its own cell.  Many rows on one shared cell: its support (generic, vectorised).
        Otherwise the sum of each row's cell slab (at most ``N`` additions a row), unless the universe is so small
        and the rows so many that one superset-sum transform of every row (``N d`` a row) is cheaper than a Python
        loop over the rows."""
        if P.shape[0] > 1 and np.all(picks == picks[0]):
            return super()._counts_at(P, picks)
        if P.shape[0] <= 16 or self.N >= SLAB_LOOP_MIN_N:
            return np.array([float(row.reshape((2,) * self.d)[self.slab(j)].sum())
                             for row, j in zip(P, picks)])
        return self._counts_many(P)[np.arange(P.shape[0]), picks]

    def entry_range(self):
        return 0.0, 1.0                                  # 0/1 cell indicators

    def slab(self, j: int) -> tuple:
        """The index of cell ``j`` in the reshaped ``(2,)*d`` cube (:func:`slab_index`): its rows, as a view."""
        return slab_index(self.d, *self.cells[j])

    def _columns(self, idx):
        """Row ``u`` is in cell ``(S, v)`` iff ``u & mask(S) == pattern(v)``: an ``(m, k)`` comparison."""
        if getattr(self, "_masks", None) is None:
            self._masks = np.array([sum(1 << (self.d - 1 - a) for a in S) for S, _ in self.cells], dtype=np.int64)
            self._patterns = np.array([sum(b << (self.d - 1 - a) for a, b in zip(S, v)) for S, v in self.cells],
                                      dtype=np.int64)
        return ((idx[None, :] & self._masks[:, None]) == self._patterns[:, None]).astype(np.float64)

    def _counts(self, x):
        return self._counts_many(x[None])[0]

    def _counts_sparse(self, x):
        u, c = x.indices, x.counts.astype(np.float64)
        out = np.empty(self.m)
        for i, (S, v) in enumerate(self.cells):            # a loop over queries, vectorised over the support
            keep = np.ones(u.size, dtype=bool)
            for a, b in zip(S, v):
                keep &= ((u >> (self.d - 1 - a)) & 1) == b
            out[i] = c[keep].sum()
        return out

    def query(self, i):
        S, v = self.cells[self._check_i(i)]
        u = np.arange(self.N, dtype=np.int64)
        keep = np.ones(self.N, dtype=bool)
        for a, b in zip(S, v):
            keep &= ((u >> (self.d - 1 - a)) & 1) == b
        return keep.astype(np.float64)

    def query_support(self, i):
        """The ``2^{d−|S|}`` elements of cell ``i`` (sorted), all with value 1 — no ``N``-vector."""
        S, v = self.cells[self._check_i(i)]
        if self.d - len(S) > 26:
            raise ValueError(f"cell {i} has 2^{self.d - len(S)} elements; too many to list")
        fixed = sum(1 << (self.d - 1 - a) for a, b in zip(S, v) if b == 1)
        free = [1 << (self.d - 1 - a) for a in range(self.d) if a not in S]
        idx = np.full(1, fixed, dtype=np.int64)
        for bit in free:
            idx = np.concatenate([idx, idx + bit])
        idx.sort()
        return idx, np.ones(idx.size)

    def _support_size(self, i):
        return 1 << (self.d - len(self.cells[i][0]))          # 2^{d−|S|}, without listing them

    def _cell_multiplicity(self) -> int:
        """``Σ_S max_v mult(S, v)`` over distinct attribute *sets* ``S``: an upper bound on ``max_u Σ_j
        1[u ∈ cell_j]``, because ``u`` lies in exactly one cell per attribute set (cells are compared as
        sets of (attribute, value) pairs, so ``((0, 1), (1, 0))`` and ``((1, 0), (0, 1))`` are one cell)."""
        from collections import Counter
        mult = Counter(frozenset(zip(S, v)) for S, v in self.cells)
        best = {}
        for cell, c in mult.items():
            key = frozenset(a for a, _ in cell)
            best[key] = max(best.get(key, 0), c)
        return int(sum(best.values()))

    def _coverage_max(self) -> tuple[int, bool]:
        """``(max_u Σ_j 1[u ∈ cell_j], exact?)``: exact as ``max Qᵀ 1`` for ``d <= 20``, else the upper bound."""
        if self._coverage is None:
            if len({frozenset(S) for S, _ in self.cells}) == 1:
                # one attribute set: each row lies in exactly one of its cells, so the coverage is the largest
                # multiplicity of a listed cell — exact at any d, without a transform over the 2^d elements
                self._coverage = (self._cell_multiplicity(), True)
            elif self.d <= self.EXACT_SENSITIVITY_MAX_D:
                self._coverage = (int(round(float(self._rmatvec_many(np.ones((1, self.m)))[0].max()))), True)
            else:
                self._coverage = (self._cell_multiplicity(), False)
        return self._coverage

    def l1_sensitivity(self):
        """``Δ1 = max_u Σ_j 1[u ∈ cell_j]`` (DR-Def3.1), repeated cells and attribute sets counted as listed.

        Exact for ``d <= 20`` (the largest entry of ``Qᵀ 1``, one subset-sum transform over the ``2^d``
        elements); for larger ``d`` the proven upper bound ``Σ_S max_v mult(S, v)`` (one cell per distinct
        attribute set contains any given row), which is exact when no cell is repeated within a set.  The cells of
        one attribute set (one marginal, as MWEM measures it) take that count at any ``d``: it is exact there.
        """
        return float(self._coverage_max()[0])

    def l2_sensitivity(self):
        """``Δ2 = sqrt(Δ1)`` (entries are 0/1); exact or the same proven upper bound as :meth:`l1_sensitivity`."""
        return float(np.sqrt(self._coverage_max()[0]))

    def _top_two(self) -> int:
        """``Σ_S (k1_S + k2_S)`` over distinct attribute sets ``S``: ``k1_S >= k2_S`` the two largest multiplicities
        of distinct cells of ``S`` as listed (``k2_S = 0`` when ``S`` has one distinct cell).  Rows ``u, v`` are in
        one cell of ``S`` each: the counts of ``S``'s cells move by ``mult(c_u) + mult(c_v)`` when the cells differ,
        by 0 when they agree — at most ``k1_S + k2_S``."""
        from collections import Counter
        mult = Counter(frozenset(zip(S, v)) for S, v in self.cells)
        by_set = {}
        for cell, c in mult.items():
            by_set.setdefault(frozenset(a for a, _ in cell), []).append(c)
        return int(sum(sum(sorted(cs, reverse=True)[:2]) for cs in by_set.values()))

    def replace_one_l1_sensitivity(self):
        """``max_{u,v} ||Q (e_u - e_v)||_1`` (one row replaced), repeated cells counted as often as they are
        listed: the proven upper bound ``min(2 Δ1, Σ_S (k1_S + k2_S), m)`` (:meth:`_top_two`), exact for the cells of
        one attribute set (a cell listed ``k`` times and another listed ``k'`` times: ``k + k'``) and for whole
        marginals of distinct attribute sets, each cell listed once (``2 Δ1``: two rows that differ in every
        attribute lie in different cells of every set)."""
        return float(min(2 * self._coverage_max()[0], self._top_two(), self.m))

    def replace_one_l2_sensitivity(self):
        """``sqrt`` of :meth:`replace_one_l1_sensitivity`: the entries of ``Q (e_u - e_v)`` are in ``{-1, 0, 1}``,
        so its squared L2 norm is its L1 norm (exact or a proven upper bound, as that one).  Where the generic bound
        ``min(sqrt(2) Δ2, sqrt(m))`` is as small (up to rounding: distinct whole marginals) that float is returned,
        so the Gaussian releases calibrated on it keep their bytes."""
        tight = float(np.sqrt(self.replace_one_l1_sensitivity()))
        generic = float(min(np.sqrt(2.0) * self.l2_sensitivity(), np.sqrt(self.m)))
        return generic if generic <= tight * (1 + 1e-12) else tight

    def is_integral(self):
        return True                                      # 0/1 cell indicators

    def l0_sensitivity(self):
        return int(round(self.l1_sensitivity()))         # 0/1 entries: the count of cells one row is in


class RangeWorkload(Workload):
    """Range queries ``[a, b]`` over an ordered universe ``0..N-1`` (thresholds are ``[0, t]``)."""

    def __init__(self, N: int, intervals):
        self.N = check_int("N", N, low=1)
        arr = np.asarray(intervals, dtype=np.int64).reshape(-1, 2)
        if arr.shape[0] == 0:
            raise ValueError("intervals must not be empty")
        if np.any(arr[:, 0] > arr[:, 1]) or arr.min() < 0 or arr.max() >= self.N:
            raise ValueError(f"intervals [a, b] need 0 <= a <= b < N ({self.N})")
        self.intervals = arr
        self.m = arr.shape[0]
        self._edges = None

    def _counts(self, x):
        return self._counts_many(x[None])[0]

    def _counts_many(self, P):
        c = np.concatenate([np.zeros((P.shape[0], 1)), np.cumsum(P, axis=1, dtype=np.float64)], axis=1)
        return c[:, self.intervals[:, 1] + 1] - c[:, self.intervals[:, 0]]

    def _counts_sparse(self, x):
        c = np.concatenate([[0.0], np.cumsum(x.counts, dtype=np.float64)])
        hi = np.searchsorted(x.indices, self.intervals[:, 1], side="right")
        lo = np.searchsorted(x.indices, self.intervals[:, 0], side="left")
        return c[hi] - c[lo]

    def query(self, i):
        a, b = self.intervals[self._check_i(i)]
        q = np.zeros(self.N)
        q[a:b + 1] = 1.0
        return q

    def query_support(self, i):
        a, b = self.intervals[self._check_i(i)]
        return np.arange(a, b + 1, dtype=np.int64), np.ones(int(b - a + 1))

    def _columns(self, idx):
        lo, hi = self.intervals[:, :1], self.intervals[:, 1:]
        return ((lo <= idx[None, :]) & (idx[None, :] <= hi)).astype(np.float64)

    def entry_range(self):
        return 0.0, 1.0                                  # 0/1 interval indicators

    def _rmatvec_many(self, Y):
        """Difference array then cumulative sum: ``+y_j`` at ``a_j``, ``−y_j`` at ``b_j + 1``."""
        if self._edges is None:
            import scipy.sparse as sp
            j = np.arange(self.m)
            self._edges = sp.csr_matrix(
                (np.concatenate([np.ones(self.m), -np.ones(self.m)]),
                 (np.concatenate([self.intervals[:, 0], self.intervals[:, 1] + 1]), np.concatenate([j, j]))),
                shape=(self.N + 1, self.m))
        diff = np.asarray(self._edges @ Y.T).T                 # (trials, N + 1)
        return np.cumsum(diff, axis=1)[:, :-1]

    def _support_size(self, i):
        a, b = self.intervals[i]
        return int(b - a + 1)

    def _coverage(self):
        cover = np.zeros(self.N + 1, dtype=np.int64)
        np.add.at(cover, self.intervals[:, 0], 1)
        np.add.at(cover, self.intervals[:, 1] + 1, -1)
        return np.cumsum(cover)[:-1]

    def l1_sensitivity(self):
        """Exact: the largest number of listed intervals (repeats included) that cover one element."""
        return float(self._coverage().max())

    def l2_sensitivity(self):
        """Exact: ``sqrt`` of the same coverage (entries are 0/1)."""
        return float(np.sqrt(self._coverage().max()))

    def is_integral(self):
        return True                                      # 0/1 interval indicators

    def l0_sensitivity(self):
        return int(self._coverage().max())


def as_workload(Q, *, name: str = "Q") -> Workload:
    """A :class:`Workload` as is; an array or sparse matrix wrapped in :class:`MatrixWorkload` (validated once,
    errors naming ``name``, the caller's parameter)."""
    if isinstance(Q, Workload):
        return Q
    if isinstance(Q, (list, tuple)) or isinstance(Q, np.ndarray) or is_sparse(Q):
        return MatrixWorkload(Q, name=name)
    raise TypeError(f"workload must be a Workload, a 2-D array or a scipy.sparse matrix, got {type(Q).__name__}")


def check_database(x, workload) -> tuple[np.ndarray, Workload]:
    """A mechanism's two inputs: a histogram ``x`` (validated) and a workload over the same universe."""
    x = check_histogram(x)
    W = as_workload(workload, name="workload")
    if W.N != x.size:
        raise ValueError(f"workload is over {W.N} universe elements but x has {x.size}")
    return x, W


def random_queries(m: int, N: int, rng=None, *, kind: str = "binary", density: float | None = None) -> MatrixWorkload:
    """``m`` random linear queries over ``N`` elements.

    ``kind="binary"``: entries i.i.d. Bernoulli(1/2) (counting queries); ``"uniform"``: i.i.d. U[0,1].
    With ``density`` (in (0, 1]) the matrix is scipy.sparse with that fraction of non-zeros.
    """
    m, N = check_int("m", m, low=1), check_int("N", N, low=1)
    check_work(m=m, N=N)                                   # the m x N matrix (dense; sparse stores at most that)
    rng = as_generator(rng)
    if kind not in ("binary", "uniform"):
        raise ValueError(f"kind ({kind!r}) must be 'binary' or 'uniform'")
    draw = (lambda k: rng.integers(0, 2, size=k).astype(np.float64)) if kind == "binary" else rng.random
    if density is None:
        return MatrixWorkload(draw(m * N).reshape(m, N) if kind == "binary" else rng.random((m, N)))
    from .validation import check_probability
    density = check_probability(density, "density", open_low=True)
    import scipy.sparse as sp
    Q = sp.random(m, N, density=density, format="csr", rng=rng, data_rvs=lambda k: np.ones(k) if kind == "binary" else rng.random(k))
    return MatrixWorkload(Q)


def k_way_marginals(d: int, k: int, attribute_sets=None) -> MarginalWorkload:
    """All ``2^k`` cells of every k-way marginal of ``{0,1}^d`` (or of the given attribute sets)."""
    d = check_int("d", d, low=1, high=40)
    k = check_int("k", k, low=1, high=d)
    sets = list(itertools.combinations(range(d), k)) if attribute_sets is None else [tuple(S) for S in attribute_sets]
    cells = [(S, v) for S in sets for v in itertools.product((0, 1), repeat=len(S))]
    return MarginalWorkload(d, cells)


def conjunctions(d: int, k: int) -> MarginalWorkload:
    """Positive k-way conjunctions ``q_S(row) = prod_{j in S} row_j`` over ``{0,1}^d`` (``C(d,k)`` queries)."""
    d = check_int("d", d, low=1, high=40)
    k = check_int("k", k, low=1, high=d)
    return MarginalWorkload(d, [(S, (1,) * k) for S in itertools.combinations(range(d), k)])


def threshold_queries(N: int, thresholds=None) -> RangeWorkload:
    """Threshold queries ``q_t(u) = 1[u <= t]`` on the ordered universe ``0..N-1`` (all ``t`` by default)."""
    N = check_int("N", N, low=1)
    if thresholds is None:
        check_work(N=N, bytes_per_cell=16)                 # one (0, t) interval per element
    t = np.arange(N) if thresholds is None else np.asarray(thresholds, dtype=np.int64)
    return RangeWorkload(N, np.column_stack([np.zeros_like(t), t]))


def range_queries(N: int, m: int | None = None, rng=None) -> RangeWorkload:
    """All ``N(N+1)/2`` ranges ``[a, b]`` of ``0..N-1``, or ``m`` of them drawn uniformly at random."""
    N = check_int("N", N, low=1, high=2 ** 31)             # N(N+1)/2 ranges stay within int64
    total = N * (N + 1) // 2
    if m is None:
        check_work(**{"N (N + 1) / 2 ranges": total}, bytes_per_cell=16)
        a, b = np.triu_indices(N)
        return RangeWorkload(N, np.column_stack([a, b]))
    m = check_int("m", m, low=1)
    check_work(m=m, bytes_per_cell=16)
    k = as_generator(rng).choice(total, size=m, replace=m > total)    # flat indices into the ranges, row by row
    a = _triu_row(k, N)
    b = a + (k - (a * (2 * N - a + 1)) // 2)
    return RangeWorkload(N, np.column_stack([a, b]))


def _triu_row(k: np.ndarray, N: int) -> np.ndarray:
    """The row ``a`` of the ``k``-th entry of the upper triangle of an ``N x N`` matrix, row by row (``start(a) =
    a (2N - a + 1)/2``): the float formula, then corrected in integers so it is exact for every ``N <= 2^31``."""
    k = np.asarray(k, dtype=np.int64)
    a = np.floor(((2 * N + 1) - np.sqrt(float(2 * N + 1) ** 2 - 8.0 * k)) / 2).astype(np.int64)
    a = np.clip(a, 0, N - 1)
    start = lambda r: (r * (2 * N - r + 1)) // 2
    for _ in range(3):                                       # at most a step or two off after rounding
        a = np.where(start(a) > k, a - 1, a)
        a = np.where((a + 1 < N) & (start(a + 1) <= k), a + 1, a)
    return a


# --------------------------------------------------------------------------- the chapters' example workloads

#: chapter 10's six cancer attributes: radius, texture, perimeter, area, smoothness, malignant (``N = 64``)
ATTRIBUTES6 = (0, 1, 2, 3, 4, 10)


#: the median mechanism's three cancer attributes: radius, area, malignant (``N = 8``)
ATTRIBUTES3 = (0, 3, 10)


def cancer6(scale: int = 1):
    """``(x, W)``: the 6-attribute cancer histogram (:func:`dpbook.data.cancer_projection`, each row counted
    ``scale`` times) and the workload chapters 10–12 ask of it, its 3-way marginals (``m = 160``)."""
    scale = check_int("scale", scale, low=1)
    return cancer_projection(ATTRIBUTES6).x * scale, k_way_marginals(6, 3)


def cancer3(scale: int = 1):
    """``(x, W)``: the 3-attribute cancer histogram (``N = 8``, :func:`dpbook.data.cancer_projection`, each row
    counted ``scale`` times) and the workload chapters 10–12 ask of it, all 255 counting queries."""
    scale = check_int("scale", scale, low=1)
    Q = ((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float)
    return cancer_projection(ATTRIBUTES3).x * scale, MatrixWorkload(Q)


def digits_marginals(d: int = 16, ks=3) -> MarginalWorkload:
    """Every ``k``-way marginal cell of the first ``d`` digit pixels (the universe of
    :func:`dpbook.data.digits_subsample` / :func:`dpbook.data.digits_histogram`, ``N = 2^d``) for each order ``k``
    in ``ks`` (one order or several, distinct, each in ``[1, d]``), in that order: ``m = Σ_k 2^k C(d, k)`` cells,
    answered by the superset-sum transform, never as an ``m × N`` matrix (cached: a workload is frozen).

    Chapter 09: ``digits_marginals(d)``, all 3-way cells of ``d`` pixels; chapter 11: ``digits_marginals(ks=(1,
    2))``, the 512 one- and two-way cells of all 16 pixels (``ks=(1, 2, 3)``: ``m = 4992 ≫ n``).
    """
    d = check_int("d", d, low=1, high=16)
    ks = tuple(check_int("ks", k, low=1, high=16) for k in np.atleast_1d(np.asarray(ks, dtype=object)))
    if not ks or len(set(ks)) != len(ks) or max(ks) > d:
        raise ValueError(f"ks ({ks!r}) must be distinct marginal orders in [1, d = {d}]")
    return _digits_marginals(d, ks)


@functools.lru_cache(typed=True, maxsize=None)
def _digits_marginals(d: int, ks: tuple) -> MarginalWorkload:
    return MarginalWorkload(d, [cell for k in ks for cell in k_way_marginals(d, k).cells])


def one_two_way_cells(d: int) -> MarginalWorkload:
    """All cells of the 1- and 2-way marginals of ``d`` attributes: ``m = 2d + 4 C(d, 2)``."""
    d = check_int("d", d, low=2, high=16)
    return MarginalWorkload(d, [c for k in (1, 2) for c in k_way_marginals(d, k).cells])


@functools.lru_cache(typed=True, maxsize=None)
def cancer_4way_cells(m: int) -> MarginalWorkload:
    """The first ``m`` cells of the 4-way marginals of the cancer data (16 cells per attribute set; cached)."""
    W = k_way_marginals(11, 4) if m == 5280 else cancer_4way_cells(5280)
    m = check_int("m", m, low=1, high=W.m)
    return W if m == W.m else MarginalWorkload(W.d, W.cells[:m])


def cancer_conjunctions(m: int) -> MarginalWorkload:
    """The first ``m`` of the 165 three-way conjunctions over the cancer data's 11 attributes."""
    m = check_int("m", m, low=1, high=165)
    return MarginalWorkload(11, conjunctions(11, 3).cells[:m])


#: chapter 13's picture workloads over the cancer universe {0,1}^11 (:func:`picture_workload`)
PICTURE_WORKLOADS = ("random values", "one-way cells", "nested cells")


def picture_workload(name: str, m: int, seed: int = 2026) -> Workload:
    """A workload of ``m`` (2 or 3) queries over the cancer universe ``{0,1}^11`` whose hull ``K_Q`` chapter 13
    draws: ``"random values"`` (queries with U[0,1] values drawn from ``seed``: ``K_Q`` a polygon),
    ``"one-way cells"`` (attribute ``j`` is 1: ``K_Q`` the cube ``[0,1]^m``), ``"nested cells"`` (attribute 0,
    then attributes 0 and 1, …: ``K_Q`` a simplex)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be one of {PICTURE_WORKLOADS}, got {type(name).__name__}")
    if name not in PICTURE_WORKLOADS:
        raise ValueError(f"name ({name!r}) must be one of {PICTURE_WORKLOADS}")
    m = check_int("m", m, low=2, high=3)
    seed = check_int("seed", seed, low=0)
    if name == "random values":
        return random_queries(m, 1 << 11, np.random.default_rng(seed), kind="uniform")
    if name == "one-way cells":
        return MarginalWorkload(11, [((j,), (1,)) for j in range(m)])
    return MarginalWorkload(11, [(tuple(range(j + 1)), (1,) * (j + 1)) for j in range(m)])


_PREFIX_SENSITIVITIES: dict = {}


def prefix_sensitivities(workload: Workload) -> np.ndarray:
    """``Δ_j`` for ``j = 1..m``: the exact L1 sensitivity (DR-Def3.1, add/remove neighbours) of the first ``j``
    queries of ``workload``, i.e. the largest column sum of ``Q[:j]`` — for a 0/1 workload, how many of the
    first ``j`` queries one row is in.  A read-only array of length ``m``, non-decreasing.

    For chapter 02's subgroup workload this is also the sensitivity under "one patient's private bit flips": the
    queries only count rows with the bit set, so the flip moves exactly the counts of the subgroups she is in.
    Cached per marginal workload (its attribute sets and cells determine it).
    """
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a dpbook.queries.Workload, got {type(workload).__name__}")
    key = (workload.d, tuple(workload.cells)) if isinstance(workload, MarginalWorkload) else None
    if key is not None and key in _PREFIX_SENSITIVITIES:
        return _PREFIX_SENSITIVITIES[key]
    Q = np.abs(np.asarray(workload.matrix(), dtype=np.float64))
    delta = np.cumsum(Q, axis=0).max(axis=1)
    delta.setflags(write=False)
    if key is not None:
        _PREFIX_SENSITIVITIES[key] = delta
    return delta
