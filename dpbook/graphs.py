"""Releasing graph cuts privately (GRU §2, §6; chapter 14).

**Graphs as databases (IDC §2).**  The vertex set ``V = {0..V-1}`` is public; the universe is the
``N = C(V, 2)`` unordered pairs ``{u < v}``, in ``np.triu_indices(V, 1)`` order.  A graph is its vector of edge
indicators over that universe (weights in ``[0, 1]`` allowed) — a histogram of 0/1 cells, ``n = |E|``.
Neighbouring graphs differ in one edge (edge-level privacy, add/remove; replace-one moves one edge).

**Queries.**  The cut query ``(S, R)`` is ``A(S,R) = e_Sᵀ A e_R = Σ_{u∈S, v∈R} A_uv``; on the pair ``{u, v}`` its
coefficient is ``1[u∈S,v∈R] + 1[v∈S,u∈R]``, which is 2 inside ``S ∩ R`` (erratum IDC-E5).  Rank-1 queries
``uᵀ A v`` with ``u, v ∈ [0,1]^V`` contain the cuts.  :class:`RankOneWorkload` answers them as
``((U A) ∘ W) 1`` with the ``V × V`` adjacency, never through ``|X|``-sized query vectors.

**Mechanisms and post-processing.**  :func:`graph_randomized_response` (IDC §6.1) adds ``Lap(1/ε)`` to every
pair.  Everything after it touches only the noisy pairs: :func:`synthetic_graph` (IDC-Lem6.2, a cutting-plane LP
with an exact or a spectral separation oracle) and :func:`round_graph` (IDC-Rem6.3).  Online release of cut
queries uses the book's online loop, :func:`dpbook.idc.online_idc_sv`, with a :class:`RankOneWorkload`.

**Measuring "every cut".**  The error of a release on all ``4^V`` cuts is the cut norm of the difference
matrix: :func:`cut_norm_exact` enumerates the ``2^V`` sets ``S`` and takes the best ``T`` for each (exact, for
``V <= 20``); :func:`cut_norm_local_search` is the heuristic for larger graphs (alternating best responses from
spectral and random starts: a lower bound), and :func:`top_singular_value` the spectral upper bound on the
normalised cut norm (IDC §6.2, Eq. (4)).
"""
from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import scipy.linalg

from .noise import as_generator, laplace_noise
from .queries import Workload
from .release import ReleaseRecord, Spend
from .theory.graphs import rr_cut_error_bound
from .theory.histogram import histogram_scale
from .contract import example, mechanism_prologue
from .validation import real_dtype, as_array, check_int, check_probability, check_real

__all__ = [
    "GraphDatabase", "graph_database", "from_graph", "load_graph", "random_graph", "planted_partition",
    "edge_pairs", "adjacency_from_weights", "RankOneWorkload", "cut_workload", "random_cuts",
    "NoisyGraph", "graph_randomized_response", "CutNorm", "cut_norm_exact", "cut_norm_reference",
    "cut_norm_local_search", "top_singular_value", "spectral_cut", "SyntheticGraph", "synthetic_graph",
    "round_graph",
]

MAX_EXACT_VERTICES = 20
#: :func:`cut_norm_exact` enumerates a batch of matrices together while ``matrices × 2^V`` stays below this
BATCH_ROWS = 1 << 17
#: :class:`RankOneWorkload` keeps its ``m × N`` pair coefficients (for fast repeated answers) up to this many entries
PAIR_MATRIX_LIMIT = 1 << 22


# =========================================================================== graphs as databases

def _check_num_vertices(num_vertices) -> int:
    return check_int("num_vertices", num_vertices, low=2, high=5000)


@functools.lru_cache(maxsize=64)
def _triu(V: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(V, 1)``, computed once per ``V`` and frozen (the answers call it per query)."""
    a, b = np.triu_indices(V, 1)
    a.flags.writeable = b.flags.writeable = False
    return a, b


def edge_pairs(num_vertices) -> tuple[np.ndarray, np.ndarray]:
    """The edge universe of IDC §2: the ``N = C(V,2)`` pairs ``(u[i], v[i])``, ``u < v``, in ``triu`` order."""
    return np.triu_indices(_check_num_vertices(num_vertices), 1)


def _check_pair_weights(weights, size, *, name="weights", what="one per pair") -> np.ndarray:
    """The validator every way of building a :class:`GraphDatabase` goes through: ``weights`` real numbers of
    shape ``(size,)``, finite, each in ``[0, 1]`` (a pair's weight is its cell of the histogram; IDC §6.1's
    sensitivity 1 needs it).  Returns a read-only float64 copy."""
    w = as_array(name, weights)
    if not real_dtype(w.dtype):
        raise TypeError(f"{name} must be real numbers, got dtype {w.dtype}")
    if w.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), {what}, got {w.shape}")
    w = np.array(w, dtype=np.float64)                                     # a copy the caller cannot reach
    if not np.all(np.isfinite(w)):
        i = int(np.argmax(~np.isfinite(w)))
        raise ValueError(f"{name}[{i}] ({float(w[i])!r}) must be a finite number in [0, 1]")
    if np.any((w < 0) | (w > 1)):
        i = int(np.argmax((w < 0) | (w > 1)))
        raise ValueError(f"{name}[{i}] ({float(w[i])!r}) must lie in [0, 1] (edge-level sensitivity 1)")
    w.setflags(write=False)
    return w


@dataclass(frozen=True)
class GraphDatabase:
    """A graph on ``num_vertices`` public vertices as a database over the edge universe (IDC §2).

    ``weights``: ``(N,)`` float64 in ``[0, 1]`` (0/1 for an ordinary graph), one cell per pair of
    :func:`edge_pairs`, ``N = C(num_vertices, 2)``.  ``histogram()`` gives the 0/1 cells as the integer histogram
    the book's mechanisms take.  Every construction is validated (``num_vertices`` an integer in ``[2, 5000]``,
    numpy integers included; ``weights`` finite, in ``[0, 1]``, of shape ``(N,)``) and keeps a read-only copy of
    the weights, so a graph cannot change after it was checked.
    """

    num_vertices: int
    weights: np.ndarray = field(repr=False)
    name: str = ""

    def __post_init__(self):
        V = _check_num_vertices(self.num_vertices)
        w = _check_pair_weights(self.weights, V * (V - 1) // 2,
                                what=f"one per pair of the {V} vertices (C({V}, 2))")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a string, got {type(self.name).__name__}")
        object.__setattr__(self, "num_vertices", V)
        object.__setattr__(self, "weights", w)

    @property
    def N(self) -> int:
        return self.weights.size

    @property
    def num_edges(self) -> int:
        """``|E|``: the number of pairs with positive weight."""
        return int(np.count_nonzero(self.weights))

    @property
    def is_unweighted(self) -> bool:
        return bool(np.all((self.weights == 0) | (self.weights == 1)))

    def histogram(self) -> np.ndarray:
        """The edge indicators as an ``int64`` histogram (only for unweighted graphs)."""
        if not self.is_unweighted:
            raise ValueError("graph has fractional weights; histogram() needs a 0/1 graph (use weights)")
        return self.weights.astype(np.int64)

    def adjacency(self) -> np.ndarray:
        """The symmetric ``V × V`` matrix ``A_G`` (zero diagonal)."""
        return adjacency_from_weights(self.weights, self.num_vertices)

    def edges(self) -> np.ndarray:
        """The ``(|E|, 2)`` array of edges ``u < v``."""
        u, v = edge_pairs(self.num_vertices)
        keep = self.weights > 0
        return np.column_stack([u[keep], v[keep]])


def adjacency_from_weights(weights, num_vertices) -> np.ndarray:
    """The symmetric matrix of a vector over the edge universe: ``(N,)`` → ``(V, V)``, ``(trials, N)`` →
    ``(trials, V, V)``; any real values (noisy weights too), zero diagonal."""
    V = _check_num_vertices(num_vertices)
    w = np.asarray(weights, dtype=np.float64)
    N = V * (V - 1) // 2
    if w.shape[-1:] != (N,) or w.ndim not in (1, 2):
        raise ValueError(f"weights must have shape ({N},) or (trials, {N}) for {V} vertices, got {w.shape}")
    u, v = _triu(V)
    A = np.zeros(w.shape[:-1] + (V, V))
    A[..., u, v] = w
    A[..., v, u] = w
    return A


def graph_database(edges, num_vertices, weights=None, *, name="") -> GraphDatabase:
    """A :class:`GraphDatabase` from an ``(|E|, 2)`` edge list on vertices ``0..num_vertices-1``.

    Refused: self-loops, vertices outside the range, repeated pairs, weights outside ``[0, 1]`` (a pair's weight
    is its cell of the histogram; IDC §6.1's sensitivity 1 needs it), NaN/inf.
    """
    V = _check_num_vertices(num_vertices)
    e = as_array("edges", edges)
    if e.size == 0:
        e = np.zeros((0, 2), dtype=np.int64)
    if not real_dtype(e.dtype):
        raise TypeError(f"edges must be an (|E|, 2) array of vertex indices, got dtype {e.dtype}")
    if e.ndim != 2 or e.shape[1] != 2:
        raise ValueError(f"edges must have shape (|E|, 2), got {e.shape}")
    if not np.all(np.isfinite(e)) or np.any(e != np.round(e)):
        raise ValueError("edges must hold integer vertex indices")
    e = e.astype(np.int64)
    if e.size and (e.min() < 0 or e.max() >= V):
        raise ValueError(f"edges use vertex {int(e.max()) if e.max() >= V else int(e.min())}, outside 0..{V - 1}")
    if np.any(e[:, 0] == e[:, 1]):
        i = int(np.argmax(e[:, 0] == e[:, 1]))
        raise ValueError(f"edges[{i}] ({int(e[i, 0])}, {int(e[i, 1])}) is a self-loop; a graph's pairs are u != v")
    lo, hi = np.minimum(e[:, 0], e[:, 1]), np.maximum(e[:, 0], e[:, 1])
    index = lo * V - lo * (lo + 1) // 2 + (hi - lo - 1)              # position of (lo, hi) in triu order
    if np.unique(index).size != index.size:
        raise ValueError("edges lists the same pair twice")
    if weights is None:
        w = np.ones(len(e))
    else:
        w = _check_pair_weights(weights, len(e), what="one per edge")
    cells = np.zeros(V * (V - 1) // 2)
    cells[index] = w
    return GraphDatabase(V, cells, name)


def from_graph(graph, *, weighted=False) -> GraphDatabase:
    """A :class:`dpbook.data.Graph` (the shipped graphs) as a database; ``weighted=True`` keeps its weights,
    which must then lie in ``[0, 1]``."""
    from .data import Graph
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a dpbook.data.Graph, got {type(graph).__name__}")
    w = graph.weights if weighted else None
    return graph_database(graph.edges, graph.num_vertices, w, name=graph.name)


def load_graph(name) -> GraphDatabase:
    """The shipped real graphs, unweighted: ``"karate"`` (34 vertices, 78 edges) or ``"lesmis"`` (77, 254)."""
    from .data import load_karate, load_lesmis
    loaders = {"karate": load_karate, "lesmis": load_lesmis}
    if name not in loaders:
        raise ValueError(f"name ({name!r}) must be one of {sorted(loaders)}")
    return from_graph(loaders[name]())


def random_graph(num_vertices, density, rng=None) -> GraphDatabase:
    """Erdős–Rényi ``G(V, p)``: each pair is an edge with probability ``density`` (seeded)."""
    V = _check_num_vertices(num_vertices)
    p = check_probability(density, "density")
    rng = as_generator(rng)
    w = (rng.random(V * (V - 1) // 2) < p).astype(np.float64)
    return GraphDatabase(V, w, f"G({V}, {p:g})")


def planted_partition(num_vertices, p_in, p_out, rng=None) -> GraphDatabase:
    """Two communities (vertices ``< V/2`` and the rest): edges inside with probability ``p_in``, across with
    ``p_out`` (a dense graph with structure a cut sees)."""
    V = _check_num_vertices(num_vertices)
    p_in, p_out = check_probability(p_in, "p_in"), check_probability(p_out, "p_out")
    rng = as_generator(rng)
    u, v = np.triu_indices(V, 1)
    same = (u < V // 2) == (v < V // 2)
    w = (rng.random(u.size) < np.where(same, p_in, p_out)).astype(np.float64)
    return GraphDatabase(V, w, f"planted({V}, {p_in:g}, {p_out:g})")


# =========================================================================== cut and rank-1 queries

class RankOneWorkload(Workload):
    """Rank-1 queries ``Q_i(G) = u_iᵀ A_G v_i`` with ``u_i, v_i ∈ [0,1]^V`` (IDC §2); cuts have 0/1 ``u, v``.

    Over the edge universe, query ``i`` has coefficient ``u_i[a] v_i[b] + u_i[b] v_i[a]`` on the pair ``{a < b}``
    (in ``[0, 2]``; 2 only where both sets overlap, erratum IDC-E5).  Answers are computed as
    ``Σ_a (U A)[i, a] W[i, a]`` on the ``V × V`` adjacency: ``O(m V²)`` per graph, no ``m × N`` matrix.
    Sensitivities are exact, from the ``V × V`` products ``Uᵀ W`` (:meth:`pair_coefficients`).
    """

    def __init__(self, U, W, names=None):
        U, W = (self._check_side(name, M) for name, M in (("U", U), ("W", W)))
        if U.shape != W.shape:
            raise ValueError(f"U {U.shape} and W {W.shape} must have the same shape (m, V)")
        U.flags.writeable = W.flags.writeable = False      # private copies (_check_side), frozen once validated
        self.U, self.W = U, W
        self.m, self.num_vertices = U.shape
        if self.num_vertices < 2:
            raise ValueError("U and W need at least 2 vertices (columns)")
        self.N = self.num_vertices * (self.num_vertices - 1) // 2
        self.names = tuple(names) if names is not None else None
        self._pairs = _triu(self.num_vertices)           # the edge universe, once
        self._coefficients = None                                       # the m × N matrix, built on first use

    @staticmethod
    def _check_side(name, M):
        arr = np.asarray(M)
        if not real_dtype(arr.dtype, bools=True):
            raise TypeError(f"{name} must be an (m, V) array of numbers in [0, 1], got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        if arr.ndim != 2 or arr.shape[0] == 0:
            raise ValueError(f"{name} must be a non-empty (m, V) array, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
            raise ValueError(f"{name} must hold finite numbers in [0, 1]")
        return arr

    # ---- answers
    def _pair_matrix(self):
        """The ``m × N`` coefficients over the pairs, built once and frozen when they fit in
        :data:`PAIR_MATRIX_LIMIT` entries (the same numbers as :meth:`matrix`); ``None`` otherwise.  Repeated
        answering (an IDC asks every round, the LP every solve) is then one ``trials × N × m`` product."""
        if self._coefficients is None and self.m * self.N <= PAIR_MATRIX_LIMIT:
            a, b = self._pairs
            C = self.U[:, a] * self.W[:, b] + self.U[:, b] * self.W[:, a]
            C.flags.writeable = False
            self._coefficients = C
        return self._coefficients

    def _counts_many(self, P):
        C = self._pair_matrix()
        if C is not None:
            return P @ C.T
        A = adjacency_from_weights(P, self.num_vertices)               # (trials, V, V)
        t, V = A.shape[0], self.num_vertices
        UA = (self.U @ A.transpose(1, 0, 2).reshape(V, t * V)).reshape(self.m, t, V)   # one GEMM for all trials
        return np.einsum("mtv,mv->tm", UA, self.W)

    def _counts_at(self, P, picks):
        """Row ``t``'s count of its own query ``picks[t]``: ``u_{j}ᵀ A_t v_{j}``, one einsum for all rows (query by
        query through the generic form when the rows' adjacency matrices would be large)."""
        if P.shape[0] * self.num_vertices ** 2 > PAIR_MATRIX_LIMIT:
            return super()._counts_at(P, picks)
        A = adjacency_from_weights(P, self.num_vertices)               # (trials, V, V)
        return np.einsum("tv,tvw,tw->t", self.U[picks], A, self.W[picks])

    def _counts(self, x):
        return self._counts_many(x[None])[0]

    def counts_from_adjacency(self, A) -> np.ndarray:
        """``u_iᵀ A v_i`` for a ``(V, V)`` or ``(trials, V, V)`` matrix (any real entries)."""
        A = np.asarray(A, dtype=np.float64)
        if A.shape[-2:] != (self.num_vertices,) * 2:
            raise ValueError(f"A must be ({self.num_vertices}, {self.num_vertices}), got {A.shape}")
        return np.einsum("...mv,mv->...m", self.U @ A, self.W)

    # ---- one query over the universe (small V only)
    def query(self, i):
        i = self._check_i(i)
        a, b = self._pairs
        u, w = self.U[i], self.W[i]
        return u[a] * w[b] + u[b] * w[a]

    def matrix(self):
        if self.m * self.N > 50_000_000:
            raise ValueError(f"a dense {self.m}x{self.N} matrix is too large; use counts() instead")
        a, b = np.triu_indices(self.num_vertices, 1)
        return self.U[:, a] * self.W[:, b] + self.U[:, b] * self.W[:, a]

    def entry_range(self):
        """``(min, max)`` of the coefficients ``u_i[a] v_i[b] + u_i[b] v_i[a]`` over queries and pairs: in ``[0, 1]``
        for disjoint ``S_i, R_i`` (cuts), up to 2 where they overlap (erratum IDC-E5).  Vectorised over blocks of
        queries (``O(m V²)``, the cost of answering once), never a Python loop over the queries."""
        C = self._pair_matrix()
        if C is not None:
            return float(C.min()), float(C.max())
        a, b = self._pairs
        block = max(1, (1 << 22) // max(self.N, 1))
        lo, hi = np.inf, -np.inf
        for start in range(0, self.m, block):
            U, W = self.U[start:start + block], self.W[start:start + block]
            C = U[:, a] * W[:, b] + U[:, b] * W[:, a]
            lo, hi = min(lo, float(C.min())), max(hi, float(C.max()))
        return lo, hi

    # ---- exact sensitivities
    def pair_coefficients(self) -> tuple[np.ndarray, np.ndarray]:
        """``(Σ_i q_i, Σ_i q_i²)`` over the pairs, as ``(N,)`` vectors (``q_i`` query ``i``'s coefficients)."""
        a, b = np.triu_indices(self.num_vertices, 1)
        UW = self.U.T @ self.W                                          # Σ_i U_ia W_ib
        s1 = UW[a, b] + UW[b, a]
        U2W2 = (self.U ** 2).T @ (self.W ** 2)
        X = (self.U * self.W).T @ (self.U * self.W)                      # Σ_i U_ia W_ia U_ib W_ib
        s2 = U2W2[a, b] + U2W2[b, a] + 2.0 * X[a, b]
        return s1, s2

    def l1_sensitivity(self):
        return float(self.pair_coefficients()[0].max())

    def l2_sensitivity(self):
        return float(np.sqrt(self.pair_coefficients()[1].max()))

    def is_integral(self):
        return bool(np.all(self.U == np.round(self.U)) and np.all(self.W == np.round(self.W)))

    def l0_sensitivity(self):
        a, b = np.triu_indices(self.num_vertices, 1)
        P, R = (self.U > 0).astype(np.float64), (self.W > 0).astype(np.float64)
        both = (P.T @ R)                                                # #{i: U_ia > 0, W_ib > 0}
        inter = (P * R).T @ (P * R)                                     # both orientations at once
        return int((both[a, b] + both[b, a] - inter[a, b]).max())

    def cut_sizes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(|S_i|, |R_i|)`` for cut queries (the masses of ``u_i`` and ``v_i``)."""
        return self.U.sum(axis=1), self.W.sum(axis=1)


def _vertex_mask(name, vertices, V) -> np.ndarray:
    arr = np.asarray(list(vertices) if not isinstance(vertices, np.ndarray) else vertices)
    mask = np.zeros(V)
    if arr.size == 0:
        return mask
    if not real_dtype(arr.dtype, integer=True):
        raise TypeError(f"{name} must be a collection of integer vertex ids, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= V:
        bad = int(arr.max()) if arr.max() >= V else int(arr.min())
        raise ValueError(f"{name} contains vertex {bad}, unknown to a graph on vertices 0..{V - 1}")
    mask[arr] = 1.0
    return mask


def cut_workload(num_vertices, cuts) -> RankOneWorkload:
    """Cut queries ``[(S_1, R_1), (S_2, R_2), ...]`` (collections of vertex ids) as a :class:`RankOneWorkload`.
    Unknown vertices are refused, naming the set."""
    V = _check_num_vertices(num_vertices)
    cuts = list(cuts)
    if not cuts:
        raise ValueError("cuts must list at least one (S, R) pair")
    U = np.stack([_vertex_mask(f"S (cut {i})", S, V) for i, (S, _) in enumerate(cuts)])
    W = np.stack([_vertex_mask(f"R (cut {i})", R, V) for i, (_, R) in enumerate(cuts)])
    return RankOneWorkload(U, W)


def random_cuts(num_vertices, m, rng=None, *, disjoint=True) -> RankOneWorkload:
    """``m`` random cut queries: each vertex goes to ``S``, ``T`` or neither with probability 1/3 each
    (``disjoint=True``: coefficients 0/1, as the online loop needs), or independently to ``S`` and to ``T`` with
    probability 1/2 (``disjoint=False``)."""
    V = _check_num_vertices(num_vertices)
    m = check_int("m", m, low=1, high=10_000_000 // V)
    rng = as_generator(rng)
    if disjoint:
        side = rng.integers(0, 3, size=(m, V))
        return RankOneWorkload(side == 1, side == 2)
    return RankOneWorkload(rng.random((m, V)) < 0.5, rng.random((m, V)) < 0.5)


# =========================================================================== randomized response (IDC §6.1)

@dataclass(frozen=True)
class NoisyGraph(ReleaseRecord):
    """The noisy pairs ``ŵ = w + Lap(b)^N`` (IDC §6.1): ``weights`` of shape ``(N,)`` or ``(trials, N)``.

    Everything computed from it is post-processing: cuts and rank-1 answers (:meth:`counts`), the synthetic graph.
    ``neighbours``: ``"add/remove"`` (one edge added or removed, or one weight changed by at most 1) or
    ``"replace-one"`` (one edge moved).
    """

    weights: np.ndarray = field(repr=False)
    num_vertices: int
    mechanism: str
    neighbours: str
    noise_scale: float
    ledger: tuple[Spend, ...] = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def released(self) -> np.ndarray:
        """The noisy pair weights: cuts and the synthetic graph are computed from them."""
        return self.weights

    def adjacency(self) -> np.ndarray:
        return adjacency_from_weights(self.weights, self.num_vertices)

    def counts(self, workload) -> np.ndarray:
        """Noisy answers ``u_iᵀ Â v_i`` (counts): ``(m,)`` or ``(trials, m)``."""
        if not isinstance(workload, RankOneWorkload):
            raise TypeError(f"workload must be a RankOneWorkload, got {type(workload).__name__}")
        if workload.num_vertices != self.num_vertices:
            raise ValueError(f"workload is on {workload.num_vertices} vertices, the graph on {self.num_vertices}")
        return workload.counts_from_adjacency(self.adjacency())

    def error_bound(self, beta) -> float:
        """IDC §6.1 with IDC-E5: w.p. ``>= 1-β`` every cut is within this (:func:`~dpbook.theory.graphs.rr_cut_error_bound`)."""
        return rr_cut_error_bound(self.num_vertices, self.epsilon, beta, self.neighbours)


def _check_graph(graph) -> GraphDatabase:
    if not isinstance(graph, GraphDatabase):
        raise TypeError(f"graph must be a GraphDatabase (see graph_database, load_graph), got {type(graph).__name__}")
    return graph


def graph_randomized_response(graph, *, epsilon, neighbours="add/remove", trials=None, rng=None,
                              sampler=laplace_noise) -> NoisyGraph:
    """IDC §6.1 — randomized response for graphs: ``ŵ_e = w_e + Lap(b)`` on every pair ``e`` of the universe.

    The vector of pair weights has L1 sensitivity 1 under edge-level add/remove (one weight moves by at most 1)
    and 2 under replace-one (one edge moves), so ``b = 1/ε`` resp. ``2/ε`` gives ε-DP.  With probability
    ``>= 1-β`` every cut is within :func:`dpbook.theory.graphs.rr_cut_error_bound` (``O(|V|^1.5/ε)``).
    Lattice noise (``discrete_laplace``, ``grid_laplace``) only for 0/1 graphs, whose cells lie on every lattice;
    fractional weights need continuous noise.
    """
    graph = _check_graph(graph)
    if trials is not None:
        check_int("trials", trials, low=1, high=10**8 // graph.N)     # the book's cap for graphs: 1e8 noisy cells
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours=neighbours,
                           per_release=(graph.N,), family="laplace", lattice_ok=graph.is_unweighted)
    epsilon, neighbours = p.epsilon, p.neighbours
    b = histogram_scale(epsilon, neighbours)                        # Δ1 = 1 (add/remove) or 2 (replace-one)
    weights = graph.weights + p.noise.sample(b, p.shape, p.rng)
    return NoisyGraph(weights, graph.num_vertices, "graph randomized response", neighbours, b,
                      (Spend("Laplace on every pair (edge-level)", epsilon),))


example(graph_randomized_response, lambda: dict(graph=random_graph(9, 0.4, 0), epsilon=0.7, rng=0))


# =========================================================================== the cut norm, exactly and not

@dataclass(frozen=True)
class CutNorm:
    """``value = |M(S, R)| / g(|S|, |R|)`` at the best ``(S, R)`` found (boolean masks; ``trials`` leading axis for
    batches).  ``exact``: found by enumeration (the true maximum); otherwise a lower bound."""

    value: np.ndarray | float
    S: np.ndarray = field(repr=False)
    R: np.ndarray = field(repr=False)
    exact: bool


def _check_square(matrix, *, max_vertices=None) -> np.ndarray:
    M = as_array("matrix", matrix)
    if not real_dtype(M.dtype):
        raise TypeError(f"matrix must be a real (V, V) array, got dtype {M.dtype}")
    M = M.astype(np.float64)
    if M.ndim not in (2, 3) or M.shape[-1] != M.shape[-2] or M.shape[-1] < 1:
        raise ValueError(f"matrix must be (V, V) or (trials, V, V), got {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError("matrix contains NaN or inf")
    if max_vertices is not None and M.shape[-1] > max_vertices:
        raise ValueError(f"matrix has {M.shape[-1]} vertices; exact enumeration needs <= {max_vertices}")
    return M


def _scale_table(scale, V) -> np.ndarray:
    """``g[s, t]`` for ``s, t = 0..V``: the denominators of a scaled cut norm (``inf`` at size 0 when scaled)."""
    if scale is None or (isinstance(scale, str) and scale == "uniform"):
        return np.ones((V + 1, V + 1))
    if isinstance(scale, str) and scale == "normalized":
        s = np.arange(V + 1, dtype=np.float64)
        g = np.sqrt(np.outer(s, s))
        g[g == 0] = np.inf
        return g
    g = np.asarray(scale, dtype=np.float64)
    if g.shape != (V + 1, V + 1) or np.any(np.isnan(g)) or np.any(g <= 0):
        raise ValueError(f"scale must be 'uniform', 'normalized' or a positive ({V + 1}, {V + 1}) table g[|S|, |R|]")
    return g


def _best_T(R, s_sizes, g, *, masks=True):
    """For each row ``r`` of ``R`` (``r = e_Sᵀ M``, ``|S| = s``), the ``R`` maximising ``|Σ_{v∈R} r_v| / g[s, |R|]``:
    for each size ``t`` the best ``R`` is the ``t`` largest (or smallest) entries.  Returns ``(value, R mask)``
    (``masks=False``: the values only, for an enumeration that needs the mask of its best rows alone)."""
    k, V = R.shape
    if masks:
        order = np.argsort(-R, axis=1, kind="stable")
        Rs = np.take_along_axis(R, order, axis=1)
    else:
        Rs = np.sort(R, axis=1)[:, ::-1]                                # the same values, no permutation kept
    top = np.cumsum(Rs, axis=1)                                         # sum of the t largest, t = 1..V
    bottom = -np.cumsum(Rs[:, ::-1], axis=1)                            # minus the sum of the t smallest
    if np.all(g == 1.0):                                                # the plain cut norm: no denominators
        vt, vb = top, bottom
    else:
        G = g[s_sizes[:, None], np.arange(1, V + 1)[None, :]]
        vt, vb = top / G, bottom / G
    it, ib = vt.argmax(axis=1), vb.argmax(axis=1)
    rows = np.arange(k)
    use_top = vt[rows, it] >= vb[rows, ib]
    value = np.where(use_top, vt[rows, it], vb[rows, ib])
    if not masks:
        return value
    best_t = np.where(use_top, it, ib) + 1
    ranks = np.empty_like(order)
    ranks[rows[:, None], order] = np.arange(V)[None, :]
    T = np.where(use_top[:, None], ranks < best_t[:, None], ranks >= V - best_t[:, None])
    return value, T


#: multiply-adds per matrix product in :func:`_set_products`: OpenBLAS runs a product this small on one thread
ONE_THREAD_PRODUCT = 1 << 18


def _set_products(S, M) -> np.ndarray:
    """``S @ M`` for many 0/1 rows ``S`` (``(k, V)``, or a batch of matrices ``M`` ``(t, V, V)``), in blocks of rows
    small enough that each product stays on one BLAS thread: the threaded product of a few hundred sets costs
    several times the CPU on a shared machine and saves no time.  Each row is the same product as in one call."""
    V = S.shape[-1]
    if M.ndim == 3:
        return np.stack([_set_products(S, Mi) for Mi in M])
    rows = max(1, ONE_THREAD_PRODUCT // (V * M.shape[1]))
    if S.shape[0] <= rows:
        return S @ M
    return np.concatenate([S[i:i + rows] @ M for i in range(0, S.shape[0], rows)])


def _subset_masks(V, start, stop) -> np.ndarray:
    codes = np.arange(start, stop, dtype=np.int64)
    return ((codes[:, None] >> np.arange(V)) & 1).astype(np.float64)


def _cut_norm_one(M, g, top=1):
    """Exact ``max_{S,R} |M(S,R)|/g`` of one ``(V, V)`` matrix by enumerating ``S`` (chunks of ``2^15``);
    returns the ``top`` best ``(value, S, R)`` with distinct ``S``."""
    V = M.shape[0]
    best = []
    chunk = 1 << 15
    for start in range(1, 1 << V, chunk):
        S = _subset_masks(V, start, min(start + chunk, 1 << V))
        sizes = S.sum(axis=1).astype(np.int64)
        value = _best_T(_set_products(S, M), sizes, g, masks=False)
        keep = np.argsort(-value, kind="stable")[:top]
        _, T = _best_T(S[keep] @ M, sizes[keep], g)                      # the masks of the kept rows only
        best += [(float(value[j]), S[j] > 0, T[i]) for i, j in enumerate(keep)]
        best = sorted(best, key=lambda r: -r[0])[:top]
    return best


def cut_norm_exact(matrix, *, scale="uniform") -> CutNorm:
    """The cut norm ``||M||_C = max_{S,R ⊆ V} |M(S,R)|`` (IDC §2) by enumeration, exact, for ``V <= 20``.

    Enumerates the ``2^V - 1`` non-empty ``S``; for each, the best ``T`` of every size is the largest (or smallest)
    entries of ``e_Sᵀ M`` (:func:`_best_T`), so the maximum is exact in ``O(2^V V log V)``.  ``scale``:
    ``"uniform"`` (the cut norm), ``"normalized"`` (``/sqrt(|S||R|)``, IDC §6.2's ``||M||_C̄``) or a table
    ``g[|S|, |R|]`` (e.g. a size-dependent bound: the value is then the worst ratio error/bound).
    ``matrix``: ``(V, V)`` or a batch ``(trials, V, V)``.
    """
    M = _check_square(matrix, max_vertices=MAX_EXACT_VERTICES)
    g = _scale_table(scale, M.shape[-1])
    if M.ndim == 2:
        value, S, T = _cut_norm_one(M, g)[0]
        return CutNorm(value, S, T, True)
    V = M.shape[-1]
    per_block = max(1, BATCH_ROWS // (1 << V))                         # matrices enumerated together
    if per_block == 1:
        out = [_cut_norm_one(Mi, g)[0] for Mi in M]
        return CutNorm(np.array([o[0] for o in out]), np.stack([o[1] for o in out]), np.stack([o[2] for o in out]),
                       True)
    S = _subset_masks(V, 1, 1 << V)                                     # every non-empty S, in code order
    sizes = S.sum(axis=1).astype(np.int64)
    values, best_S, best_T = [], [], []
    for start in range(0, M.shape[0], per_block):
        block = M[start:start + per_block]
        R = _set_products(S, block)                         # (matrices, 2^V - 1, V): e_Sᵀ M for all S
        value = _best_T(R.reshape(-1, V), np.tile(sizes, block.shape[0]), g, masks=False).reshape(block.shape[0], -1)
        j = value.argmax(axis=1)                                        # the first best S, as _cut_norm_one picks it
        rows = np.arange(block.shape[0])
        _, T = _best_T(R[rows, j], sizes[j], g)
        values.append(value[rows, j])
        best_S.append(S[j] > 0)
        best_T.append(T)
    return CutNorm(np.concatenate(values), np.concatenate(best_S), np.concatenate(best_T), True)


def cut_norm_reference(matrix) -> float:
    """The cut norm by brute force over all ``(S, R)`` pairs (``4^V`` cuts; ``V <= 10``): the reference that
    tests compare :func:`cut_norm_exact` with."""
    M = _check_square(matrix, max_vertices=10)
    if M.ndim != 2:
        raise ValueError("matrix must be one (V, V) matrix")
    S = _subset_masks(M.shape[0], 0, 1 << M.shape[0])
    return float(np.abs(S @ M @ S.T).max())


def cut_norm_local_search(matrix, *, scale="uniform", starts=32, rng=None, max_rounds=100) -> CutNorm:
    """A lower bound on the (scaled) cut norm for graphs too large to enumerate: alternating best responses.

    Starts: the sign patterns (and top-``j`` level sets) of the top 3 singular vectors, plus ``starts`` random
    sets.  From ``S``: the best ``T`` (exact given ``S``, :func:`_best_T`), then the best ``S`` given ``T``, until
    the value stops rising.  The value found is a true ``|M(S,R)|/g`` — a lower bound on the maximum.
    """
    M = _check_square(matrix)
    if M.ndim != 2:
        raise ValueError("matrix must be one (V, V) matrix")
    starts = check_int("starts", starts, low=0, high=100_000)
    max_rounds = check_int("max_rounds", max_rounds, low=1)
    rng = as_generator(rng)
    V = M.shape[0]
    g = _scale_table(scale, V)
    S0 = [_spectral_starts(M)]
    if starts:
        S0.append(rng.random((starts, V)) < 0.5)
    S = np.concatenate(S0).astype(np.float64)
    S = S[S.sum(axis=1) > 0]
    best = (-np.inf, None, None)
    previous = np.full(S.shape[0], -np.inf)
    for _ in range(max_rounds):
        vT, T = _best_T(_set_products(S, M), S.sum(axis=1).astype(np.int64), g)   # best R given S
        vS, S_new = _best_T(_set_products(T.astype(np.float64), M.T), T.sum(axis=1).astype(np.int64), g.T)
        j = int(np.argmax(vS))
        if vS[j] > best[0]:
            best = (float(vS[j]), S_new[j].copy(), T[j].copy())
        improved = vS > previous * (1 + 1e-12) + 1e-12
        if not improved.any():
            break
        # a start whose best responses returned its own S is at a fixed point: every later round would repeat
        # this one for it (same S, same T, same value, never an improvement), so it leaves the batch
        moving = ~np.all(S_new == (S > 0), axis=1)
        previous, S = vS[moving], S_new[moving].astype(np.float64)
        if not S.shape[0]:
            break
    return CutNorm(best[0], best[1], best[2], False)


#: up to this many vertices :func:`_svd_top` takes a dense SVD (a few milliseconds at 100 vertices)
DENSE_SVD_VERTICES = 200


def _svd_top(M, k):
    """Top-``k`` singular triplets: a dense SVD up to :data:`DENSE_SVD_VERTICES` vertices, else
    ``scipy.sparse.linalg.svds`` (ARPACK, fixed start vector: deterministic).  The dense one is LAPACK's ``gesvd``:
    NumPy's default driver (``gesdd``) runs threaded BLAS from about 40 vertices on, at tens of times the CPU on a
    shared machine."""
    V = M.shape[0]
    k = min(k, V - 1)
    if V <= DENSE_SVD_VERTICES or k < 1:
        u, s, vt = scipy.linalg.svd(M, lapack_driver="gesvd")
        return u[:, :max(k, 1)], s[:max(k, 1)], vt[:max(k, 1)]
    from scipy.sparse.linalg import svds      # here, not at import: only graphs above DENSE_SVD_VERTICES need ARPACK
    v0 = np.random.default_rng(0).standard_normal(V)
    u, s, vt = svds(M, k=k, v0=v0)
    order = np.argsort(-s, kind="stable")
    return u[:, order], s[order], vt[order]


def top_singular_value(matrix) -> float:
    """``σ₁(M)``: by IDC §6.2, Eq. (4) (left inequality, exact) an upper bound on the normalised cut norm,
    ``|e_Sᵀ M e_R| <= σ₁ ||e_S|| ||e_R|| = σ₁ sqrt(|S||R|)``."""
    M = _check_square(matrix)
    if M.ndim != 2:
        raise ValueError("matrix must be one (V, V) matrix")
    return float(np.linalg.norm(M, 2))


def _spectral_starts(M, k=3) -> np.ndarray:
    """Candidate sets ``S`` from the top singular vectors: for each vector (left and right, both signs), its
    top-``j`` level sets for every ``j`` (a sweep)."""
    V = M.shape[0]
    u, _, vt = _svd_top(M, k)
    out = []
    for vec in list(u.T) + list(vt):
        for sgn in (1.0, -1.0):
            order = np.argsort(-sgn * vec, kind="stable")
            ranks = np.empty(V, dtype=np.int64)
            ranks[order] = np.arange(V)
            out.append(ranks[None, :] < np.arange(1, V + 1)[:, None])
    return np.concatenate(out)


def spectral_cut(matrix, *, scale="normalized") -> CutNorm:
    """IDC §6.2's separation oracle: round the top singular vectors of ``M`` to a cut.

    Sweep the level sets of the top singular vectors (:func:`_spectral_starts`), take the best ``T`` for each,
    keep the best ``|M(S,R)|/g``.  Nikiforov (Eq. (4)): ``σ₁`` is within ``O(log V)`` of ``||M||_C̄``, which is what
    makes this an approximate oracle; the value returned is a true cut's, a lower bound.
    """
    M = _check_square(matrix)
    if M.ndim != 2:
        raise ValueError("matrix must be one (V, V) matrix")
    g = _scale_table(scale, M.shape[0])
    S = _spectral_starts(M).astype(np.float64)
    value, T = _best_T(_set_products(S, M), S.sum(axis=1).astype(np.int64), g)
    j = int(np.argmax(value))
    return CutNorm(float(value[j]), S[j] > 0, T[j], False)


# =========================================================================== synthetic graph (IDC-Lem6.2, §6.2)

@dataclass(frozen=True)
class SyntheticGraph(ReleaseRecord):
    """A weighted graph ``w ∈ [0,1]^N`` whose cuts match the noisy release (IDC-Lem6.2), and the LP's record.

    ``lp_value``: the LP optimum ``z`` (max over the LP's cuts of ``|w(S,R) - Â(S,R)|/g``); ``oracle_value``: the
    oracle's last answer on ``W - Â`` (exact oracle: the true maximum over all cuts); ``iterations``: LP solves;
    ``history``: ``(z_i, oracle value_i)`` per iteration; ``converged``: the oracle found no cut above ``z``;
    ``status``: the verdict — ``"converged"``, ``"stalled"`` (the LP value closed less than ``STALL_FRACTION`` of
    the gap to the oracle over the last ``patience`` LPs: more cuts would take long and change little) or
    ``"max_iter"`` (the LP budget ran out); anything but ``"converged"`` also raises a ``RuntimeWarning``.
    ``eta``: Lemma 6.2's target η (``feasible``: the final oracle value is ``<= eta``).  Privacy: that of the noisy
    release (post-processing): its ``ledger`` is the release's, and ``epsilon``/``delta`` are what it composes to.
    """

    weights: np.ndarray = field(repr=False)
    num_vertices: int
    lp_value: float
    oracle_value: float
    iterations: int
    history: tuple = field(repr=False)
    converged: bool
    oracle: str
    scale: str
    eta: float | None
    feasible: bool | None
    neighbours: str
    ledger: tuple[Spend, ...] = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    mechanism: str = "synthetic graph (post-processing of graph randomized response)"
    status: str = "converged"

    @property
    def released(self) -> np.ndarray:
        """The synthetic graph's pair weights (computed from the noisy release only)."""
        return self.weights

    def adjacency(self) -> np.ndarray:
        return adjacency_from_weights(self.weights, self.num_vertices)


def _oracle(R, oracle, g, cuts_per_iter, rng):
    if oracle == "exact":
        return [(v, S, T) for v, S, T in _cut_norm_one(R, g, top=cuts_per_iter)]
    if oracle == "spectral":
        S = _spectral_starts(R).astype(np.float64)
        value, T = _best_T(_set_products(S, R), S.sum(axis=1).astype(np.int64), g)
        keep = np.argsort(-value, kind="stable")[:cuts_per_iter]
        return [(float(value[j]), S[j] > 0, T[j]) for j in keep]
    res = cut_norm_local_search(R, scale=g, starts=16, rng=rng)
    return [(float(res.value), res.S, res.R)]


#: the share of the remaining gap (oracle value − LP value) the LP value must close over ``patience`` LPs
STALL_FRACTION = 0.01


def synthetic_graph(noisy, *, scale="uniform", oracle="exact", eta=None, max_iter=200, cuts_per_iter=8, tol=1e-6,
                    patience=None, rng=None) -> SyntheticGraph:
    """IDC-Lem6.2 / §6.2 — a non-negative weighted graph whose cuts match the noisy pairs, by cutting planes.

    LP over ``w ∈ [0,1]^N`` and ``z >= 0``: minimise ``z`` subject to ``|q_{SR}·w - Â(S,R)| <= z g(|S|,|R|)`` for the
    cuts found so far (``g = 1``, or ``sqrt(|S||R|)`` for ``scale="normalized"``, §6.2).  Solve with HiGHS
    (``scipy.optimize.linprog``); ask the separation oracle for the cuts of ``W - Â`` with the largest
    ``|·|/g``; add those above ``z``; repeat until none is (or ``max_iter``).

    ``oracle``: ``"exact"`` (enumeration, ``V <= 20``: at convergence ``w`` is the LP optimum over **all**
    ``4^V`` cuts), ``"spectral"`` (IDC §6.2: level sets of the top singular vectors of ``W - Â`` → cuts; an
    approximate oracle via Nikiforov's inequality), or ``"local"`` (:func:`cut_norm_local_search`).
    ``eta`` (optional): Lemma 6.2's target η; ``feasible`` reports whether the final oracle value is ``<= eta``.
    Post-processing of ``noisy`` only: the same ε, δ.

    Budget: at most ``max_iter`` LPs, and ``patience`` (an int ``>= 1``; ``None``: 20 for the local-search oracle,
    no stall rule for the others, whose cutting planes the book runs to convergence or to ``max_iter``): stop as
    ``"stalled"`` when over the last ``patience`` LPs the LP value rose by less than ``STALL_FRACTION`` of the
    gap between the oracle's value and it.  With the local-search oracle and uniform scaling on a few dozen
    vertices the cutting planes creep (every LP adds one cut and is slower than the last); the stall rule stops
    them with the verdict on the result (``status``, ``converged=False``) and a ``RuntimeWarning``.
    """
    if not isinstance(noisy, NoisyGraph):
        raise TypeError(f"noisy must be a NoisyGraph (from graph_randomized_response), got {type(noisy).__name__}")
    if noisy.weights.ndim != 1:
        raise ValueError("noisy must hold one release (trials=None)")
    if oracle not in ("exact", "spectral", "local"):
        raise ValueError(f"oracle ({oracle!r}) must be 'exact', 'spectral' or 'local'")
    if scale not in ("uniform", "normalized"):
        raise ValueError(f"scale ({scale!r}) must be 'uniform' or 'normalized'")
    V = noisy.num_vertices
    if oracle == "exact" and V > MAX_EXACT_VERTICES:
        raise ValueError(f"oracle 'exact' enumerates 2^V sets; V ({V}) must be <= {MAX_EXACT_VERTICES}")
    eta = None if eta is None else check_real("eta", eta, low=0.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=100_000)
    cuts_per_iter = check_int("cuts_per_iter", cuts_per_iter, low=1, high=1000)
    tol = check_real("tol", tol, low=0.0, high=1.0, low_open=True)
    if patience is None:
        patience = 20 if oracle == "local" else None
    else:
        patience = check_int("patience", patience, low=1, high=100_000)
    rng = as_generator(rng)
    g = _scale_table(scale, V)
    A_hat = noisy.adjacency()
    a, b = np.triu_indices(V, 1)
    N = a.size
    rows, rhs, seen = [], [], set()

    def add_cut(S, T):
        key = (S.tobytes(), T.tobytes())
        if key in seen:
            return False
        seen.add(key)
        s_, t_ = S.astype(np.float64), T.astype(np.float64)
        q = s_[a] * t_[b] + s_[b] * t_[a]
        d = g[int(S.sum()), int(T.sum())]
        noisy_cut = float(s_ @ A_hat @ t_)
        rows.append(np.append(q, -d))
        rhs.append(noisy_cut)
        rows.append(np.append(-q, -d))
        rhs.append(-noisy_cut)
        return True

    full = np.ones(V, dtype=bool)
    add_cut(full, full)
    c = np.zeros(N + 1)
    c[-1] = 1.0
    bounds = [(0.0, 1.0)] * N + [(0.0, None)]
    history = []
    w, s_val, found, converged, status = np.zeros(N), 0.0, 0.0, False, "max_iter"
    from scipy.optimize import linprog        # here, not at import: scipy.optimize costs ~0.3 s to load
    for _ in range(max_iter):
        res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"the cut LP failed: {res.message}")
        w, s_val = np.clip(res.x[:N], 0.0, 1.0), float(res.x[-1])
        R = adjacency_from_weights(w, V) - A_hat
        candidates = _oracle(R, oracle, g, cuts_per_iter, rng)
        found = candidates[0][0]
        history.append((s_val, found))
        violated = [(S, T) for v, S, T in candidates if v > s_val * (1 + tol) + tol]
        if not violated:
            converged = True
            break
        if not any([add_cut(S, T) for S, T in violated]):
            converged = True                                # the oracle repeats cuts the LP already satisfies
            break
        if patience is not None and len(history) > patience:
            if s_val - history[-1 - patience][0] < STALL_FRACTION * (found - s_val):
                status = "stalled"
                break
    if converged:
        status = "converged"
    else:
        warnings.warn(f"synthetic_graph stopped before convergence ({status}) after {len(history)} LPs: LP value "
                      f"{s_val:.6g}, the {oracle} oracle still finds {found:.6g}; the weights satisfy only the cuts "
                      f"found so far (raise max_iter or patience, or use another oracle)", RuntimeWarning,
                      stacklevel=2)
    return SyntheticGraph(w, V, s_val, found, len(history), tuple(history), converged, oracle, scale, eta,
                          None if eta is None else bool(found <= eta), noisy.neighbours,
                          noisy.ledger, status=status)


def round_graph(synthetic, rng=None) -> GraphDatabase:
    """IDC-Rem6.3 — randomized rounding: keep pair ``e`` as an edge with probability ``w_e``, independently.
    Every cut moves by at most :func:`dpbook.theory.graphs.rounding_error_bound` w.h.p.  Post-processing."""
    if not isinstance(synthetic, SyntheticGraph):
        raise TypeError(f"synthetic must be a SyntheticGraph, got {type(synthetic).__name__}")
    rng = as_generator(rng)
    keep = rng.random(synthetic.weights.size) < synthetic.weights
    return GraphDatabase(synthetic.num_vertices, keep.astype(np.float64), "rounded synthetic graph")


# valid calls of the graph builders and oracles that take ``rng``, for the sweeps of tests/ (determinism, bad input)
example(random_graph, lambda: dict(num_vertices=8, density=0.4))
example(planted_partition, lambda: dict(num_vertices=8, p_in=0.8, p_out=0.1))
example(random_cuts, lambda: dict(num_vertices=8, m=5))
example(cut_norm_local_search, lambda: dict(matrix=random_graph(8, 0.4, 1).adjacency() - 0.4, starts=4))
example(synthetic_graph, lambda: dict(noisy=graph_randomized_response(random_graph(7, 0.4, 1), epsilon=1.0, rng=2),
                                      max_iter=5))
example(round_graph, lambda: dict(synthetic=synthetic_graph(           # an LP graph with fractional weights
    graph_randomized_response(random_graph(10, 0.5, 1), epsilon=0.5, rng=2), oracle="spectral", max_iter=6, rng=3)))
