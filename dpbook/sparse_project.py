"""SparseProject: private release for s-sparse queries over huge universes (S1-Def6, S1-Alg, S1-Thm1/2; chapter 15).

Records are ``b``-bit strings (``|X| = N = 2^32`` or ``2^48``): nothing of size ``N`` is ever allocated.  A database
is a :class:`dpbook.data.SparseHistogram` (its distinct records with counts); a query is a list of
``(record, weight)`` pairs with at most ``s`` non-zero weights in ``[0, 1]`` (:class:`SparseQueryWorkload`).

:func:`sparse_project` is Blum and Roth's algorithm: project the database to ``ℓ`` dimensions with the implicit
sign matrix ``A`` of an ``r``-wise independent hash (:class:`dpbook.hashing.PolynomialSignHash`), add
``Lap(1/σ)`` with ``σ = ε/sqrt(8 ln(1/δ))`` to each coordinate, release ``(u + v, f)``.  A query is answered by
projecting it with the same ``f``: ``⟨AQ, u + v⟩ / n``.  :func:`sparse_project_gaussian` is the variant the
book derives from the exact ℓ2 sensitivity ``‖A e_x‖₂ = 1``.  :func:`laplace_sparse_queries` is the baseline:
the Laplace mechanism on the ``m`` counts themselves.

Naming (the book's notation): ``s`` is the sparsity (``W.sparsity``), ``m`` the number of queries (``W.m``) and
``ell`` (ℓ) the projection dimension.  Blum and Roth write ``m`` for the sparsity, ``k`` for the number of queries
and ``T`` for the dimension.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

import numpy as np

from .data import SparseHistogram, record_catalogue, record_pool, synthetic_records  # noqa: F401 - re-exported (chapter 15)
from .hashing import MAX_WIDTH, PolynomialSignHash, field_bits
from .noise import as_generator, gaussian_noise, laplace_noise
from .queries import Workload
from .release import Ledger, Release, ReleaseRecord, Spend
from .theory.gaussian import gaussian_sigma
from .theory.laplace import laplace_scale
from .theory.sparse_project import (hash_independence, sparse_project_epsilon, sparse_project_sigma,
                                    sparse_project_ell)
from .contract import example, mechanism_prologue
from .validation import check_beta, check_int, check_probability, check_trials, check_work

__all__ = [
    "SparseQueryWorkload", "SparseProjectRelease", "ErrorParts", "random_sparse_queries", "record_pool", "synthetic_records",
    "project_database", "error_decomposition", "sparse_project", "sparse_project_gaussian", "laplace_sparse_queries", "MAX_ELL",
    "SparseProjectParameters", "sparse_project_parameters", "restrict_to_queries", "sparse_workload",
]

#: The largest projection dimension we allocate (``ℓ`` floats per release, per trial).
MAX_ELL = 1 << 24
#: The most noise values one call may draw (``trials · ℓ``, 1 GiB of float64).
MAX_OUTPUT = 1 << 27
#: Dense vectors over the universe are refused above this size (``query(i)``, ``counts`` of a dense ``x``).
DENSE_LIMIT = 1 << 26


# --------------------------------------------------------------------------- workload

class SparseQueryWorkload(Workload):
    """``m`` s-sparse linear queries over ``N`` elements, stored by their supports (CSR: ``indptr``, ``indices``,
    ``weights``), never as vectors of length ``N`` (S1-Def1).

    ``queries``: a list of queries, each a list of ``(element, weight)`` pairs with distinct elements in
    ``[0, N)`` and weights in ``[0, 1]`` (zero weights are dropped).  ``sparsity``: if given, every query must
    have at most that many non-zeros (else ``ValueError``); by default the largest support.
    """

    def __init__(self, N, queries, *, sparsity=None):
        self.N = check_int("N", N, low=1)
        if isinstance(queries, (str, bytes)) or not hasattr(queries, "__len__"):
            raise TypeError("queries must be a list of queries, each a list of (element, weight) pairs")
        if len(queries) == 0:
            raise ValueError("queries must not be empty")
        lengths, elements, weights = [], [], []
        for i, q in enumerate(queries):
            pairs = np.asarray(q, dtype=object).reshape(-1, 2) if len(q) else np.zeros((0, 2), dtype=object)
            e = np.asarray([self._element(v, i) for v in pairs[:, 0]], dtype=np.int64)
            w = np.asarray([self._weight(v, i) for v in pairs[:, 1]], dtype=np.float64)
            keep = w > 0
            e, w = e[keep], w[keep]
            if np.unique(e).size != e.size:
                raise ValueError(f"queries[{i}] repeats an element; merge its weights")
            order = np.argsort(e)
            lengths.append(e.size)
            elements.append(e[order])
            weights.append(w[order])
        self._set(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), np.concatenate(elements),
                  np.concatenate(weights), sparsity)

    def _element(self, value, i) -> int:
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise TypeError(f"queries[{i}] has an element {value!r} that is not an integer")
        if not 0 <= int(value) < self.N:
            raise ValueError(f"queries[{i}] has an element ({int(value)}) outside [0, N) = [0, {self.N})")
        return int(value)

    @staticmethod
    def _weight(value, i) -> float:
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
            raise TypeError(f"queries[{i}] has a weight {value!r} that is not a real number")
        w = float(value)
        if not (math.isfinite(w) and 0.0 <= w <= 1.0):
            raise ValueError(f"queries[{i}] has a weight ({w!r}) outside [0, 1]")
        return w

    def _set(self, indptr, indices, weights, sparsity):
        self.indptr, self.indices, self.weights = indptr, indices, weights
        self.m = indptr.size - 1
        nnz = np.diff(indptr)
        largest = int(nnz.max()) if nnz.size else 0
        if sparsity is None:
            self.sparsity = max(largest, 1)
        else:
            self.sparsity = check_int("sparsity", sparsity, low=1)
            if largest > self.sparsity:
                i = int(np.argmax(nnz))
                raise ValueError(f"queries[{i}] has {largest} non-zeros but sparsity ({self.sparsity}) allows at most "
                                 f"{self.sparsity}")

    @classmethod
    def from_arrays(cls, N, indptr, indices, weights, *, sparsity=None) -> "SparseQueryWorkload":
        """Build from CSR arrays (validated like the list form; elements sorted within each query)."""
        indptr = np.asarray(indptr)
        indices = np.asarray(indices)
        weights = np.asarray(weights)
        if indptr.ndim != 1 or indptr.size < 2 or not np.issubdtype(indptr.dtype, np.integer):
            raise ValueError("indptr must be a 1-D integer array with at least 2 entries")
        if indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.size or weights.shape != indices.shape:
            raise ValueError("indptr, indices and weights must describe a CSR matrix")
        queries = [list(zip(indices[a:b].tolist(), weights[a:b].tolist())) for a, b in zip(indptr[:-1], indptr[1:])]
        return cls(N, queries, sparsity=sparsity)

    # -- the Workload protocol ---------------------------------------------------------------------------------

    def query_support(self, i) -> tuple[np.ndarray, np.ndarray]:
        """Query ``i`` as ``(elements, weights)``: its non-zeros only (what SparseProject needs)."""
        i = self._check_i(i)
        a, b = self.indptr[i], self.indptr[i + 1]
        return self.indices[a:b].copy(), self.weights[a:b].copy()

    def query(self, i) -> np.ndarray:
        """Query ``i`` as a dense vector — refused when ``N`` is huge (use :meth:`query_support`)."""
        i = self._check_i(i)
        if self.N > DENSE_LIMIT:
            raise ValueError(f"query({i}) as a dense vector would allocate N ({self.N}) entries; "
                             "use query_support(i)")
        q = np.zeros(self.N)
        e, w = self.query_support(i)
        q[e] = w
        return q

    def _rows(self) -> np.ndarray:
        return np.repeat(np.arange(self.m), np.diff(self.indptr))

    def _counts(self, x):
        if self.N > DENSE_LIMIT:            # pragma: no cover - a dense x of this size cannot be validated either
            raise ValueError(f"N ({self.N}) is too large for a dense histogram; pass a SparseHistogram")
        return np.bincount(self._rows(), weights=self.weights * x[self.indices], minlength=self.m)

    def _counts_sparse(self, x: SparseHistogram):
        pos = np.minimum(np.searchsorted(x.indices, self.indices), max(x.indices.size - 1, 0))
        hit = x.indices[pos] == self.indices if x.indices.size else np.zeros(self.indices.size, dtype=bool)
        weighted = np.where(hit, self.weights * x.counts[pos], 0.0)
        return np.bincount(self._rows(), weights=weighted, minlength=self.m)

    def _per_element(self, values) -> np.ndarray:
        _, inverse = np.unique(self.indices, return_inverse=True)
        return np.bincount(inverse, weights=values) if self.indices.size else np.zeros(1)

    def entry_range(self):
        """``(min, max)`` of the stored weights (in ``(0, 1]``), with 0 when some query leaves an element out:
        from the CSR arrays, no loop over the queries."""
        nnz = np.diff(self.indptr)
        lo = float(self.weights.min()) if self.weights.size else 0.0
        hi = float(self.weights.max()) if self.weights.size else 0.0
        if np.any(nnz < self.N):
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        return lo, hi

    def l1_sensitivity(self):
        """``max_x Σ_j Q_j[x]``: the queries sharing one record move together (up to ``m``)."""
        return float(self._per_element(self.weights).max())

    def l2_sensitivity(self):
        return float(np.sqrt(self._per_element(self.weights ** 2).max()))

    def head(self, m) -> "SparseQueryWorkload":
        """The first ``m`` queries (a new workload, same sparsity)."""
        m = check_int("m", m, low=1, high=self.m)
        out = object.__new__(SparseQueryWorkload)
        out.N = self.N
        end = self.indptr[m]
        out._set(self.indptr[:m + 1].copy(), self.indices[:end].copy(), self.weights[:end].copy(), self.sparsity)
        return out


# --------------------------------------------------------------------------- synthetic data

def random_sparse_queries(m, s, N, rng=None, *, pool=None, pool_share=0.5, weights="uniform") -> SparseQueryWorkload:
    """``m`` random ``s``-sparse queries over ``N`` elements: ``round(s·pool_share)`` elements from ``pool``
    (when given; shared records make the queries overlap, so their L1 sensitivity grows with ``m``), the rest
    uniform in ``[0, N)``; weights ``"uniform"`` in ``(0, 1]`` or ``"binary"`` (all 1)."""
    m, s, N = check_int("m", m, low=1), check_int("s", s, low=1), check_int("N", N, low=1)
    check_work(m=m, s=s)                                   # the (m, s) index array
    if weights not in ("uniform", "binary"):
        raise ValueError(f"weights ({weights!r}) must be 'uniform' or 'binary'")
    rng = as_generator(rng)
    from_pool = 0
    if pool is not None:
        pool = np.asarray(pool)
        if pool.ndim != 1 or pool.size == 0 or not np.issubdtype(pool.dtype, np.integer) or pool.min() < 0 \
                or pool.max() >= N:
            raise ValueError(f"pool must be a non-empty 1-D integer array of elements in [0, N) = [0, {N})")
        pool = np.unique(pool.astype(np.int64))
        from_pool = min(int(round(s * check_probability(pool_share, "pool_share"))), pool.size)
    if s > N:
        raise ValueError(f"s ({s}) must be <= N ({N})")
    picks = pool[np.argsort(rng.random((m, pool.size)), axis=1)[:, :from_pool]] if from_pool else \
        np.zeros((m, 0), dtype=np.int64)
    rows = np.concatenate([picks, rng.integers(0, N, size=(m, s - from_pool), dtype=np.int64)], axis=1)
    while True:                                                 # redraw the random part of rows with repeats
        rows.sort(axis=1)
        repeat = np.any(rows[:, 1:] == rows[:, :-1], axis=1) if s > 1 else np.zeros(m, dtype=bool)
        if not repeat.any():
            break
        bad = np.flatnonzero(repeat)
        fresh = pool[np.argsort(rng.random((bad.size, pool.size)), axis=1)[:, :from_pool]] if from_pool else \
            np.zeros((bad.size, 0), dtype=np.int64)
        rows[bad] = np.concatenate([fresh, rng.integers(0, N, size=(bad.size, s - from_pool), dtype=np.int64)], axis=1)
    indptr = np.arange(0, m * s + 1, s, dtype=np.int64)
    indices = rows.ravel()
    w = 1.0 - rng.random(indices.size) if weights == "uniform" else np.ones(indices.size)
    out = object.__new__(SparseQueryWorkload)
    out.N = N
    out._set(indptr, indices, w, s)
    return out


# --------------------------------------------------------------------------- the release

@dataclass(frozen=True)
class SparseProjectRelease(ReleaseRecord):
    """What SparseProject releases: ``y = u + v`` (``(ℓ,)``, or ``(trials, ℓ)`` for batched runs) and the hash
    ``f`` (S1-Def6).  Answers come from :meth:`evaluate`; the claim is ``(epsilon, delta)`` under
    ``neighbours``; ``ledger`` lists the primitive private steps; ``trace`` holds the parameters (theoretical and
    used), never the exact projection."""

    y: np.ndarray = field(repr=False)
    f: PolynomialSignHash = field(repr=False)
    n: int
    s: int
    m: int
    mechanism: str
    noise_scale: float
    ledger: tuple[Spend, ...] = field(repr=False)
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    neighbours: str = "add/remove"

    @property
    def released(self) -> np.ndarray:
        """The noisy projection ``y = u + v`` (the hash ``f`` beside it is drawn independently of the data)."""
        return self.y

    @property
    def ell(self) -> int:
        return self.f.ell

    def _check_workload(self, W) -> SparseQueryWorkload:
        if not isinstance(W, SparseQueryWorkload):
            raise TypeError(f"workload must be a SparseQueryWorkload, got {type(W).__name__}")
        if W.N != self.f.N:
            raise ValueError(f"workload is over N ({W.N}) elements but the release over {self.f.N}")
        nnz = np.diff(W.indptr)
        if nnz.max() > self.s:
            raise ValueError(f"queries[{int(np.argmax(nnz))}] has {int(nnz.max())} non-zeros but the release was "
                             f"built for s ({self.s})-sparse queries")
        if W.m > self.m:
            raise ValueError(f"workload has {W.m} queries but the release was built for m ({self.m}); "
                             "release again with a larger m")
        return W

    def project(self, workload) -> np.ndarray:
        """``Q̂ = A Q`` for every query: ``(m, ℓ)``, ``O(s ℓ)`` hash evaluations per query (S1-Def6)."""
        W = self._check_workload(workload)
        return self.f.project(W.indptr, W.indices, W.weights)

    def evaluate(self, workload) -> np.ndarray:
        """``Eval(Q) = ⟨A Q, u + v⟩ / n`` for every query: ``(m,)``, or ``(trials, m)`` (S1-Def6)."""
        return (self.y @ self.project(workload).T) / self.n


def sparse_workload(m: int, s: int, bits: int = 32, seed: int = 11):
    """Chapter 15's seeded workload: ``m`` random ``s``-sparse queries over ``bits``-bit records, half of each
    support from :func:`dpbook.data.record_catalogue` (shared records: the queries overlap), the rest uniform, weights in
    ``(0, 1]`` (:func:`random_sparse_queries` with ``rng = seed``).  Cached per
    ``(m, s, bits, seed)``: the same object each time (do not modify it)."""
    m, s = check_int("m", m, low=1), check_int("s", s, low=1)
    bits, seed = check_int("bits", bits, low=1, high=62), check_int("seed", seed, low=0)
    check_work(m=m, s=s)
    if s > 1 << bits:
        raise ValueError(f"s ({s}) must be <= 2^bits ({1 << bits})")
    return _sparse_workload(m, s, bits, seed)


@functools.lru_cache(typed=True, maxsize=None)
def _sparse_workload(m, s, bits, seed):
    return random_sparse_queries(m, s, 1 << bits, rng=seed, pool=record_catalogue(bits, 256, 7))


def project_database(D, f) -> np.ndarray:
    """``u = A D`` (S1-Alg step 1, erratum S1-E6): the exact, *non-private* projection, ``O(‖D‖₀ ℓ)`` time.

    For the chapter's error decomposition and the audits; a release never contains it.
    """
    D = _check_database(D)
    if not isinstance(f, PolynomialSignHash):
        raise TypeError(f"f must be a PolynomialSignHash, got {type(f).__name__}")
    if f.N != D.N:
        raise ValueError(f"f is over N ({f.N}) elements but D over {D.N}")
    return f.project(np.array([0, D.indices.size]), D.indices, D.counts.astype(np.float64))[0]


class ErrorParts(NamedTuple):
    """SparseProject's error split (S1-Thm2): ``jl`` ``(m,)``, ``noise`` ``(m,)`` or ``(trials, m)``, and the
    projected queries ``Q_hat`` ``(m, ℓ)`` they were computed from."""

    jl: np.ndarray
    noise: np.ndarray
    Q_hat: np.ndarray


def error_decomposition(release, D, workload) -> ErrorParts:
    """The two parts of SparseProject's error (S1-Thm2, [DERIVED]): ``Eval - Q(D) = JL + noise`` with
    ``JL = (⟨AQ, AD⟩ - ⟨Q, D⟩)/n`` (one value per query, fixed by the hash) and ``noise = ⟨AQ, v⟩/n`` (per trial
    and query).  Uses the exact ``D``: an analysis tool for the chapter, not a release."""
    if not isinstance(release, SparseProjectRelease):
        raise TypeError(f"release must be a SparseProjectRelease, got {type(release).__name__}")
    D = _check_database(D)
    Q_hat = release.project(workload)
    u = project_database(D, release.f)
    jl = (Q_hat @ u - workload.counts(D)) / release.n
    # ⟨AQ, y − u⟩ by einsum, not a BLAS product: one of this shape (trials × ℓ by ℓ × m) wakes OpenBLAS's threads,
    # which spin for several times the CPU of the sum on a shared machine
    noise = np.einsum("tl,ml->tm", np.atleast_2d(release.y - u), Q_hat).reshape(np.shape(release.y)[:-1] + (-1,)) \
        / release.n
    return ErrorParts(jl, noise, Q_hat)


def _check_database(D) -> SparseHistogram:
    if not isinstance(D, SparseHistogram):
        raise TypeError(f"D must be a dpbook.data.SparseHistogram (distinct records with counts), got "
                        f"{type(D).__name__}")
    if D.N & (D.N - 1):
        raise ValueError(f"D.N ({D.N}) must be a power of two (records are b-bit strings)")
    return D


class SparseProjectParameters(NamedTuple):
    """S1-Alg's public parameters, checked (:func:`sparse_project_parameters`), and the trace they go into."""
    D: SparseHistogram
    beta: float
    s: int
    m: int
    n: int
    ell: int
    r: int
    trace: dict


def sparse_project_parameters(D, *, beta, s, m, n, ell=None, r=None, trials=None) -> SparseProjectParameters:
    """S1-Alg's first line, shared by every SparseProject variant (and the broken twin): check the database and
    the public parameters and derive ``ℓ`` and ``r`` (S1-Alg's values unless given); ``trials × ℓ`` noise values
    must fit.  Nothing private: the mechanisms' prologue checks ε, δ, rng, sampler and trials."""
    D = _check_database(D)
    beta = check_beta(beta)
    if beta >= 1.0:
        raise ValueError(f"beta ({beta!r}) must be < 1")
    s, m, n = check_int("s", s, low=1), check_int("m", m, low=1), check_int("n", n, low=1)
    ell_theory = sparse_project_ell(n, s, m, beta)
    if ell is None:
        if ell_theory > MAX_ELL:
            raise ValueError(f"ell (S1-Alg's {ell_theory:.3g}) is too large to allocate (> {MAX_ELL}); pass a practical "
                             "ell= (privacy does not depend on ell, S1-Thm1)")
        ell = math.ceil(ell_theory)
    ell = check_int("ell", ell, low=1, high=MAX_ELL)
    if field_bits(ell, D.N) > MAX_WIDTH:
        raise ValueError(f"ell ({ell}) · N ({D.N}) exceeds 2^{MAX_WIDTH}: choose a smaller ell")
    r_theory = hash_independence(m, ell, beta)
    r = r_theory if r is None else check_int("r", r, low=2)
    if trials is not None and check_trials(trials, ell) * ell > MAX_OUTPUT:
        raise ValueError(f"trials ({trials}) × ell ({ell}) noise values exceed {MAX_OUTPUT} (1 GiB); use fewer trials")
    trace = dict(ell_theory=ell_theory, ell=ell, r_theory=r_theory, r=r, tau=beta / (4 * m), width=field_bits(ell, D.N),
                 support=int(D.indices.size))
    return SparseProjectParameters(D, beta, s, m, n, ell, r, trace)


def _prologue(epsilon, delta, rng, sampler, trials, ell, family):
    """The mechanisms' prologue for SparseProject: continuous noise (``u`` moves in ±1/sqrt(ℓ) steps: off any
    lattice), one noise vector of length ``ℓ`` per release."""
    return mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, trials=trials,
                              per_release=(ell,), positive_delta=True, family=family, lattice_ok=False)


def _composed_epsilon(epsilon, delta, ell) -> float:
    """The ε that ``ell`` coordinates of ``Lap(sqrt(8 ln(1/δ))/(ε sqrt(ℓ)))`` noise compose to (S1-Thm1, advanced
    composition with slack δ); refuses an ``(ε, δ)`` where it exceeds ``ε`` (the proof needs ``ε <= 2 ln(1/δ)``)."""
    achieved = sparse_project_epsilon(epsilon, delta, ell)
    if achieved > epsilon * (1 + 1e-12):
        raise ValueError(f"epsilon ({epsilon!r}) and delta ({delta!r}): the noise Lap(sqrt(8 ln(1/δ))/ε) composes "
                         f"to {achieved:.4g} > epsilon over ell ({ell}) coordinates; S1-Thm1 needs ε <= 2 ln(1/δ)")
    return achieved


@functools.lru_cache(maxsize=64)
def _coordinate_ledger(epsilon_coordinate, ell, delta, epsilon) -> Ledger:
    """One Laplace step per coordinate, composed by DR-Cor3.21 with slack ``delta`` within ``epsilon``.  Remembered
    (a frozen ledger of ``ℓ`` checked steps costs ~10 ms to build; the releases of a sweep share it)."""
    return Ledger((Spend(f"laplace on coordinate {i + 1} of the projection", epsilon_coordinate) for i in range(ell)),
                  rule="advanced-corollary", delta_prime=delta, budget=epsilon,
                  label="S1-Thm1: ℓ coordinates by DR-Cor3.21")


def sparse_project(D, *, epsilon, delta, beta, s, m, n, ell=None, r=None, trials=None, rng=None,
                   sampler=laplace_noise) -> SparseProjectRelease:
    """SparseProject(D, ε, δ, β, s, m) (S1-Alg): ``(ε, δ)``-DP under add/remove neighbours (S1-Thm1).

    ``D``: a :class:`~dpbook.data.SparseHistogram` over ``N = 2^b`` records.  ``n``: the **public** database
    size the answers are divided by (the book's convention for normalised answers).
    ``ℓ``: the projection dimension — by default S1-Alg's
    ``2·64² ln(4m/β)(s + n²)²/sqrt(s)``, refused when it cannot be allocated; a practical ``ℓ`` keeps the
    privacy guarantee (it never depends on ``ℓ``) and trades accuracy (the JL part grows like ``1/sqrt(ℓ)``).
    ``r``: the hash's independence, by default S1-Alg's ``⌈2 ln(mℓ/(2β))⌉``.  4-wise independent signs
    suffice for the JL variance bound, but with this polynomial hash use ``r >= 8``: for ``4 <= r <= 7`` two
    columns of ``A`` are identical up to sign with probability ``1/ℓ`` (otherwise orthogonal), and for ``r <= 3``
    all of them are (chapter 15, section 2).  ``trials``: that many independent noise vectors over one hash
    (``y`` of shape ``(trials, ℓ)``).  ``sampler(scale, size, rng)`` draws the Laplace noise.

    Privacy is recomputed from the noise used: ``ℓ`` coordinates, each ``σ/sqrt(ℓ)``-DP, composed by advanced
    composition with slack ``δ`` (:func:`dpbook.theory.sparse_project.sparse_project_epsilon`); a combination
    where that exceeds ``ε`` (``ε > 2 ln(1/δ)``, roughly) is refused.
    """
    D, beta, s, m, n, ell, r, trace = sparse_project_parameters(D, beta=beta, s=s, m=m, n=n, ell=ell, r=r, trials=trials)
    p = _prologue(epsilon, delta, rng, sampler, trials, ell, "laplace")
    sigma = sparse_project_sigma(p.epsilon, p.delta)              # inverse scale: v_i ~ Lap(1/σ)
    epsilon_coordinate = sigma / math.sqrt(ell)                   # one record moves u_i by ±1/sqrt(ℓ)
    achieved = _composed_epsilon(p.epsilon, p.delta, ell)         # S1-Thm1: the ℓ coordinates compose to <= ε
    f = PolynomialSignHash.sample(r, ell, D.N, p.rng)
    u = project_database(D, f)
    v = p.noise(1.0 / sigma, p.shape, p.rng)
    return SparseProjectRelease(u + v, f, n, s, m, "sparse_project", 1.0 / sigma,
                                _coordinate_ledger(epsilon_coordinate, ell, p.delta, p.epsilon),
                                dict(trace, sigma=sigma, epsilon_coordinate=epsilon_coordinate,
                                     epsilon_composed=achieved))


def _example_records():
    """500 records over {0,1}^32 (a pool of 64 heavy hitters) and 20 random 5-sparse queries: the sweeps' call."""
    pool = record_pool(64, 32, rng=7)
    return synthetic_records(500, pool, rng=1), random_sparse_queries(20, 5, 2 ** 32, rng=2, pool=pool)


example(sparse_project, lambda: dict(D=_example_records()[0], epsilon=1.0, delta=1e-5, beta=0.1, s=5, m=20, n=500, ell=64,
                                     r=4, rng=1))


def sparse_project_gaussian(D, *, epsilon, delta, beta, s, m, n, ell=None, r=None, trials=None, rng=None,
                            sampler=gaussian_noise) -> SparseProjectRelease:
    """SparseProject with Gaussian noise (S1-Thm1's "cleaner alternative"): one record moves ``u`` by the column
    ``A e_x``, of ℓ2 norm exactly 1, so ``N(0, 2 ln(1.25/δ)/ε²)`` per coordinate is ``(ε, δ)``-DP (DR-Gauss,
    classic calibration, ``ε < 1``).  Same parameters and release as :func:`sparse_project`."""
    D, beta, s, m, n, ell, r, trace = sparse_project_parameters(D, beta=beta, s=s, m=m, n=n, ell=ell, r=r, trials=trials)
    p = _prologue(epsilon, delta, rng, sampler, trials, ell, "gaussian")
    epsilon, delta, rng, noise, shape = p.epsilon, p.delta, p.rng, p.noise, p.shape
    sigma_gauss = gaussian_sigma(1.0, epsilon, delta)          # ℓ2 sensitivity of u: ‖A e_x‖₂ = 1 exactly
    f = PolynomialSignHash.sample(r, ell, D.N, rng)
    u = project_database(D, f)
    v = noise(sigma_gauss, shape, rng)
    return SparseProjectRelease(u + v, f, n, s, m, "sparse_project_gaussian", sigma_gauss,
                                (Spend("gaussian on the projection (l2 sensitivity 1)", epsilon, delta),),
                                dict(trace, sigma_gauss=sigma_gauss))


example(sparse_project_gaussian, lambda: dict(D=_example_records()[0], epsilon=0.9, delta=1e-5, beta=0.1, s=5, m=20,
                                              n=500, ell=64, r=4, rng=1))


def laplace_sparse_queries(D, workload, *, epsilon, n, trials=None, rng=None, sampler=laplace_noise) -> Release:
    """The baseline: the Laplace mechanism on the ``m`` counts ``⟨Q_j, D⟩`` of a sparse workload, noise
    ``Lap(Δ/ε)`` with ``Δ`` the workload's exact L1 sensitivity (IDC-Thm2.3 / DR-Thm3.6), answers divided by the
    public ``n``.  ε-DP under add/remove neighbours.  (``dpbook.laplace.laplace_mechanism`` needs a dense
    histogram; this one works on a :class:`~dpbook.data.SparseHistogram` over ``2^32`` records.)"""
    D = _check_database(D)
    if not isinstance(workload, SparseQueryWorkload):
        raise TypeError(f"workload must be a SparseQueryWorkload, got {type(workload).__name__}")
    n = check_int("n", n, low=1)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, per_release=(workload.m,),
                           family="laplace", lattice_ok=False)         # weights in [0,1]: counts off any lattice
    epsilon = p.epsilon
    b = laplace_scale(workload.l1_sensitivity(), epsilon)
    answers = (workload.counts(D) + p.noise(b, p.shape, p.rng)) / n
    return Release(answers, "laplace (sparse queries)", noise_scale=b / n,
                   ledger=(Spend("laplace", epsilon),))


example(laplace_sparse_queries, lambda: dict(zip(("D", "workload"), _example_records()), epsilon=1.0, n=500, rng=1))


def restrict_to_queries(D, workload) -> tuple[np.ndarray, Workload]:
    """The database and the workload on the records the queries touch, plus one cell for every other record:
    a dense histogram ``x`` of length ``s + 1`` and a ``scipy.sparse`` :class:`~dpbook.queries.MatrixWorkload`
    (``s`` the number of distinct records in the queries' supports).

    Exact for any mechanism on the counts: ``Wr.counts(x) == workload.counts(D)``, and a record outside every
    support moves no count (the last cell has weight 0 in every query), so every sensitivity under add/remove
    neighbours is unchanged (``Wr.l1_sensitivity() == workload.l1_sensitivity()``, likewise L2).  This is how
    chapter 15 runs :func:`dpbook.gaussian.gaussian_mechanism` (a dense-histogram mechanism) on a sparse
    database over ``2^32`` records.  ``x`` has ``n = D.n`` rows."""
    import scipy.sparse as sp

    from .queries import MatrixWorkload

    D = _check_database(D)
    if not isinstance(workload, SparseQueryWorkload):
        raise TypeError(f"workload must be a SparseQueryWorkload, got {type(workload).__name__}")
    if workload.N != D.N:
        raise ValueError(f"workload is over {workload.N} records but D is over {D.N}")
    support, column = np.unique(workload.indices, return_inverse=True)
    Q = sp.csr_array((workload.weights, column, workload.indptr), shape=(workload.m, support.size + 1))
    x = np.zeros(support.size + 1)
    if D.indices.size:
        pos = np.minimum(np.searchsorted(support, D.indices), max(support.size - 1, 0))
        hit = support[pos] == D.indices if support.size else np.zeros(D.indices.size, dtype=bool)
        np.add.at(x, np.where(hit, pos, support.size), D.counts)
    return x, MatrixWorkload(Q)
