"""The projection mechanism (chapter 13; PROJ-Alg1, PROJ-Thm3, Nikolov–Talwar–Zhang STOC 2013).

1. ``ỹ = Q(x) + W``: the Gaussian mechanism on the ``m`` normalised answers (:func:`dpbook.gaussian.gaussian_mechanism`,
   its calibration, with the workload's exact L2 sensitivity under the stated neighbours);
2. ``ŷ = argmin_{z ∈ K_Q} ||ỹ − z||_2`` with ``K_Q = conv{Q(r) : r ∈ X}`` (PROJ-Def2): post-processing.

Step 2 is a least-squares problem over the probability simplex of ``|X|`` weights,
``min_{w ∈ Δ_N} f(w) = ½ ||Q w − ỹ||²`` (``Q w`` are the answers of the fractional database ``w``).
:func:`project_onto_hull` solves it with *simplicial decomposition* (a fully corrective Frank–Wolfe method):

* the Frank–Wolfe oracle is one adjoint product ``g = Qᵀ (Q w − ỹ)`` and an argmin over the universe — the
  workload's ``rmatvec``, never an ``m × |X|`` matrix;
* the weights live on a small active set ``J`` of universe elements; each round adds the elements with the
  most negative ``g`` and re-solves the small problem over ``conv{Q(r) : r ∈ J}`` exactly: a rank-revealing
  square root of its Gram matrix, then non-negative least squares with the constraint ``Σ λ = 1`` as a heavy
  row (:func:`_simplex_least_squares`) — the active atoms are typically affinely dependent (hundreds of atoms
  in a hull of about as many dimensions), which NNLS tolerates and Wolfe's bordered systems do not;
* the round's *Frank–Wolfe duality gap* ``gap(w) = ⟨g, w⟩ − min_r g_r`` certifies the answer: ``f(w) − f* <= gap``
  and, since ``f`` is 1-strongly convex in ``z = Q w``, ``||Q w − ŷ||_2 <= sqrt(2 gap)`` for the exact
  projection ``ŷ``.  The solver stops when ``sqrt(2 gap / m) <= tol`` (a certified RMS distance to the exact
  projection) and always reports the gap it reached.

:func:`project_reference` is the readable reference (plain Frank–Wolfe with exact line search, the three lines
of PROJ-Alg1's algorithm box) that the tests compare against.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .gaussian import gaussian_mechanism
from .noise import gaussian_noise
from .queries import RMATVEC_DENSE_LIMIT, as_workload, check_database
from .release import Release, Spend
from .contract import mechanism_prologue
from .validation import real_dtype, check_int, check_real

__all__ = ["projection_mechanism", "project_onto_hull", "project_reference", "replace_one_l2_sensitivity",
           "Projection"]


@dataclass(frozen=True)
class Projection:
    """The result of projecting one point ``ỹ`` onto ``K_Q``.

    ``answers = Q w`` (``(m,)``); ``support``/``weights``: the fractional database ``w`` (a distribution over
    the universe, stored by its support); ``gap``: the Frank–Wolfe duality gap at ``w`` (``f(w) − f* <= gap``);
    ``certified_distance = sqrt(2 gap)`` bounds ``||answers − Π_K(ỹ)||_2``; ``iterations``: oracle calls
    (``rmatvec`` passes over the universe); ``converged``: the tolerance was met.
    """

    answers: np.ndarray
    support: np.ndarray
    weights: np.ndarray
    gap: float
    certified_distance: float
    iterations: int
    converged: bool


def replace_one_l2_sensitivity(workload) -> float:
    """A proven upper bound on ``max ||Q e_u − Q e_u'||_2`` over two rows ``u, u'`` (PROJ-R1, replace-one):
    the workload's :meth:`~dpbook.queries.Workload.replace_one_l2_sensitivity`.

    For entries in ``[0, 1]``: ``min(sqrt(2) Δ2, sqrt(m))`` with ``Δ2 = max_u ||Q e_u||_2`` the add/remove
    sensitivity (``|a_i − b_i| <= max(a_i, b_i)`` and ``Σ max(a_i, b_i)² <= ||a||² + ||b||² <= 2 Δ2²``; and
    ``|a_i − b_i| <= 1`` gives ``sqrt(m)``, PROJ-R1's value).  Entries in a wider range ``[lo, hi]`` (read from
    :meth:`~dpbook.queries.Workload.entry_range`, after summing the cells a sparse matrix stores twice) pay for it:
    ``sqrt(m) (hi − lo)``, and ``2 Δ2`` when an entry is negative.  Marginals: ``sqrt`` of their exact (or bounded)
    replace-one L1 sensitivity, repeated cells counted — exact for distinct whole marginals (two rows that differ
    everywhere share no cell).
    """
    W = as_workload(workload, name="workload")
    return float(W.replace_one_l2_sensitivity())


def _check_point(y, m, name="y_tilde"):
    arr = np.asarray(y)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a real numeric vector, got dtype {arr.dtype}")
    if arr.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},) to match the workload's {m} queries, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; it must be finite")
    return arr.astype(np.float64)


def _simplex_projection(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of ``v`` onto ``{λ >= 0, Σ λ = 1}`` (exact; sort-based, O(k log k))."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    ks = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / ks > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


def _fista(G, b, lam, gap_tol, max_steps):
    """``min_{λ ∈ Δ_k} ½ λᵀGλ − bᵀλ`` by FISTA with backtracking and adaptive restart, warm-started at ``λ``;
    stops when the Frank–Wolfe gap ``⟨∇, λ⟩ − min ∇`` is below ``gap_tol``.  The fallback of
    :func:`_simplex_least_squares` (never needed in the book's runs; the outer gap certifies either way)."""
    L = max(float(np.abs(G).sum(axis=1).max()) / 8.0, 1e-12)      # a guess; backtracking raises it if needed
    obj = lambda v: 0.5 * v @ G @ v - b @ v
    x, z, t = lam.copy(), lam.copy(), 1.0
    fx = obj(x)
    for _ in range(max_steps):
        grad_z = G @ z - b
        f_z = obj(z)
        while True:
            x_new = _simplex_projection(z - grad_z / L)
            step = x_new - z
            f_new = obj(x_new)
            if f_new <= f_z + grad_z @ step + 0.5 * L * step @ step + 1e-12 * (1.0 + abs(f_new)):
                break
            L *= 2.0
        if f_new > fx:                                           # adaptive restart (O'Donoghue–Candès)
            z, t = x.copy(), 1.0
            continue
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        z = x_new + ((t - 1.0) / t_new) * (x_new - x)
        x, fx, t = x_new, f_new, t_new
        grad = G @ x - b
        if grad @ x - grad.min() <= gap_tol:
            break
    return x


def _cross(A: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``AᵀC`` for two blocks of atoms; in float32 when both hold integers with ``m · max|entry|² < 2^24`` (0/1
    marginal and range atoms): every product and partial sum is then an integer below ``2^24``, so float32 is
    exact — and about twice as fast, which matters because these products are most of the solver's time."""
    big = max(float(np.abs(A).max(initial=0.0)), float(np.abs(C).max(initial=0.0)))
    if A.shape[0] * big * big < 2.0 ** 24 and np.array_equal(A, np.rint(A)) and np.array_equal(C, np.rint(C)):
        return (A.astype(np.float32).T @ C.astype(np.float32)).astype(np.float64)
    return A.T @ C


def _smallest(g: np.ndarray, k: int) -> np.ndarray:
    """The indices of the ``k`` smallest entries of ``g``, ties broken by index (so the same on every CPU:
    SIMD ``argpartition`` kernels order ties differently); ascending indices, ``O(N)``."""
    k = min(k, g.size)
    threshold = np.partition(g, k - 1)[k - 1]
    below = np.flatnonzero(g < threshold)
    return np.union1d(below, np.flatnonzero(g == threshold)[:k - below.size])


#: weight of the row ``Σ λ = 1`` in :func:`_simplex_least_squares`, relative to the atoms' largest norm
SUM_ROW_WEIGHT = 1e4


def _simplex_least_squares(G: np.ndarray, b: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``min_{λ ∈ Δ_k} ½ λᵀGλ − bᵀλ`` on the active atoms ``B`` (given as ``G = BᵀB``, ``b = Bᵀỹ``), exactly up
    to rounding, whether or not the atoms are affinely dependent.

    1. A square root of ``G`` of its numerical rank ``r``: the pivoted Cholesky factor ``Πᵀ G Π = L Lᵀ``
       (LAPACK ``dpstrf``, stops at rank ``r``), so ``A = Lᵀ Πᵀ`` is ``r × k`` with ``AᵀA = G``; ``d`` solves
       ``Aᵀd = b`` (consistent: ``b = Bᵀỹ`` lies in the range of ``G``).  Then ``½λᵀGλ − bᵀλ = ½||Aλ − d||² − const``.
    2. The simplex as nonnegativity plus a heavy first row ``M(Σλ − 1)``: Lawson–Hanson NNLS
       (``scipy.optimize.nnls``) on ``[M 1ᵀ; A] λ ≈ [M; d]``.  NNLS keeps its passive columns linearly
       independent, so dependent atoms simply stay out — the case that made Wolfe's bordered systems singular.
    3. ``λ / Σλ`` (the heavy row leaves ``|Σλ − 1|`` of order ``1/SUM_ROW_WEIGHT²``);
    4. then the constraint exactly on NNLS's support (the normal equations of a least squares in affine
       coordinates),
       kept when its weights stay positive and it is no worse.

    If NNLS hits its iteration limit, a warm-started FISTA (:func:`_fista`) takes over.  Either way the
    caller's Frank–Wolfe gap on the full universe is what certifies the result.
    """
    k = G.shape[0]
    L, piv, rank, info = scipy.linalg.lapack.dpstrf(G, lower=1, tol=-1.0)
    if info < 0 or rank < 1:
        return _fista(G, b, lam, 0.0, 2000)
    piv = piv - 1
    Lr = np.tril(L[:, :rank])                                     # columns past the rank are not referenced
    d = scipy.linalg.solve_triangular(Lr[:rank], b[piv[:rank]], lower=True, check_finite=False)
    M = SUM_ROW_WEIGHT * math.sqrt(float(np.diag(G).max()) or 1.0)
    A = np.empty((rank + 1, k))
    A[0] = M
    A[1:, piv] = Lr.T
    from scipy.optimize import nnls     # here, not at import: only this fallback needs scipy.optimize (~0.3 s to load)
    try:
        mu = nnls(A, np.concatenate([[M], d]), maxiter=20 * k + 100)[0]
    except RuntimeError:                                           # iteration limit: fall back, warm-started
        return _fista(G, b, lam, 0.0, 20_000)
    total = mu.sum()
    if total <= 0:
        return lam
    mu /= total
    # 4. the constraint exactly, on NNLS's support S: write μ_S = e_j + Σ_{i≠j} ν_i (e_i − e_j) and solve the
    #    unconstrained least squares in ν (full column rank when the support's atoms are affinely independent)
    S = np.flatnonzero(mu > 0)
    if S.size > 1:
        ref, rest = S[0], S[1:]                                  # normal equations of ||A_aff ν − (d − A e_j)||²
        G_aff = G[np.ix_(rest, rest)] - G[rest, ref][:, None] - G[ref, rest][None, :] + G[ref, ref]
        try:
            nu = scipy.linalg.cho_solve(scipy.linalg.cho_factor(G_aff, check_finite=False),
                                        b[rest] - b[ref] - G[rest, ref] + G[ref, ref], check_finite=False)
        except np.linalg.LinAlgError:                            # affinely dependent support: keep step 3
            return mu
        exact = np.zeros(k)
        exact[rest], exact[ref] = nu, 1.0 - nu.sum()
        obj = lambda v: 0.5 * v @ G @ v - b @ v
        if np.all(exact[S] > 0) and obj(exact) <= obj(mu):
            return exact
    return mu


class _MarginalGram:
    """Exact Gram entries ``Q(r)·Q(s)`` of a marginal workload without its columns.

    For an attribute set ``S`` whose ``2^|S|`` cells are all listed, ``c_S`` times each, two rows ``r, s`` share
    ``c_S`` of its cells iff they agree on ``S``: iff ``(r XOR s) & mask(S) = 0``.  So those sets contribute
    ``f(r XOR s)`` with ``f(z) = Σ_S c_S [mask(S) ⊆ ¬z]``, one subset-sum transform of the table ``h[mask(S)] += c_S``
    (``O(N d)``, once).  The cells of any other attribute set are counted from their columns (``Q_restᵀ Q_rest``).
    Every entry is an integer, so the result equals ``Bᵀ B`` exactly."""

    def __init__(self, W):
        groups = {}
        for j, (S, v) in enumerate(W.cells):
            order = sorted(range(len(S)), key=lambda i: S[i])
            key = tuple(S[i] for i in order)
            groups.setdefault(key, []).append(tuple(v[i] for i in order))
        h = np.zeros(W.N)
        rest = []
        for S, values in groups.items():
            counts = {}
            for v in values:
                counts[v] = counts.get(v, 0) + 1
            if len(counts) == 1 << len(S) and len(set(counts.values())) == 1:
                h[sum(1 << (W.d - 1 - a) for a in S)] += next(iter(counts.values()))
            else:
                rest += [(S, v) for v in values]
        self.f = W.subset_sums(h)[0][::-1].copy()              # f[z] = h'[¬z]: ¬z = N − 1 − z reverses the table
        self.rest = None
        if rest:
            from .queries import MarginalWorkload
            self.rest = MarginalWorkload(W.d, rest)

    def block(self, I, K):
        G = self.f[np.bitwise_xor(I[:, None], K[None, :])]
        if self.rest is not None:
            G = G + _cross(self.rest.columns(I), self.rest.columns(K))
        return G


class _ColumnGram:
    """Exact-as-possible Gram entries from the workload's columns (any workload), cached per universe element."""

    def __init__(self, W):
        self.W, self.cache = W, {}

    def _cols(self, I):
        if I.size == 0:
            return np.zeros((self.W.m, 0))
        missing = [int(i) for i in I if int(i) not in self.cache]
        if missing:
            for i, col in zip(missing, self.W.columns(np.array(missing, dtype=np.int64)).T):
                self.cache[i] = col
        return np.stack([self.cache[int(i)] for i in I], axis=1)

    def block(self, I, K):
        return _cross(self._cols(I), self._cols(K))

    def forget(self, keep):
        keep = set(int(i) for i in keep)
        self.cache = {i: c for i, c in self.cache.items() if i in keep}


#: relative squared pivot below which an atom counts as affinely dependent on the active ones
DEPENDENT_PIVOT = 1e-9

#: ``scipy.linalg.qr_delete`` without the wrapper that maps it over batches of matrices (the same compiled
#: routine, so the same bytes; the wrapper's array-namespace checks cost more than a small delete itself)
_QR_DELETE = getattr(scipy.linalg.qr_delete, "__wrapped__", scipy.linalg.qr_delete)
_DTRSV = scipy.linalg.blas.dtrsv


class _Factor:
    """The upper Cholesky factor ``R`` of ``Ĝ_PP`` (``RᵀR = Ĝ_PP``) and ``Y = R⁻ᵀ [c_P, 1]`` for a list ``P`` of
    atoms that grows at its end and loses any member — the linear algebra of :class:`_ActiveSet`.

    ``R`` is the leading ``p × p`` block of a ``cap × cap`` Fortran-ordered buffer whose trailing block is the
    identity: a triangular solve runs on the whole contiguous buffer without a copy (the identity block maps the
    zeros it is given to zeros), and an atom is appended by writing one column in place (the buffer grows by a
    quarter when full).  Every solve is a level-2 ``dtrsv``: level-3 ``dtrsm`` with one or two right-hand sides
    spins OpenBLAS's threads on a shared machine.  Deleting position ``i`` moves the columns after it left and
    restores the triangle with Givens rotations on rows ``i..p−1`` only (``scipy.linalg.qr_delete`` on that
    block, with ``Y``'s rows appended as two more columns, so ``Y`` stays ``R⁻ᵀ[c_P, 1]``); the KKT solve is then
    one back substitution ``R [u v] = Y``."""

    def __init__(self):
        self.p = 0
        self.buf = np.eye(0, order="F")
        self.Y = np.zeros((0, 2), order="F")

    def _reserve(self, n):
        cap = self.buf.shape[0]
        if n > cap:
            new = max(n, cap + cap // 4, 32)
            buf, Y = np.eye(new, order="F"), np.zeros((new, 2), order="F")
            buf[:cap, :cap], Y[:cap] = self.buf, self.Y
            self.buf, self.Y = buf, Y

    def _forward(self, head, tail):
        """``R⁻ᵀ col`` for ``col = [head, tail]`` of length ``p`` (written straight into the solve's buffer)."""
        x = np.zeros(self.buf.shape[0])
        x[:head.size] = head
        x[head.size:self.p] = tail
        return _DTRSV(self.buf, x, trans=1, overwrite_x=1)[:self.p]

    def append(self, cross, block, rhs):
        """Append the atoms ``T`` in order unless dependent: ``cross = Ĝ[P, T]``, ``block = Ĝ[T, T]``,
        ``rhs = [c_T, 1]``.  An atom whose squared pivot is at most ``DEPENDENT_PIVOT · Ĝ_tt`` is refused.
        Returns the positions (in ``T``) of the atoms appended."""
        accepted = []
        for j in range(block.shape[0]):
            u = self._forward(cross[:, j], block[accepted, j]) if self.p else np.zeros(0)
            piv2 = block[j, j] - u @ u
            if piv2 <= DEPENDENT_PIVOT * block[j, j]:
                continue
            self._reserve(self.p + 1)
            p, piv = self.p, math.sqrt(piv2)
            self.buf[:p, p], self.buf[p, p] = u, piv
            self.Y[p] = (rhs[j] - u @ self.Y[:p]) / piv
            self.p += 1
            accepted.append(j)
        return accepted

    def delete(self, i):
        p, buf, Y = self.p, self.buf, self.Y
        if i < p - 1:
            tail = np.empty((p - i, p - i + 2), order="F")
            tail[:, :p - i], tail[:, p - i:] = buf[i:p, i:p], Y[i:p]
            tail = _QR_DELETE(np.eye(p - i), tail, 0, 1, which="col", overwrite_qr=True, check_finite=False)[1]
            buf[:i, i:p - 1] = buf[:i, i + 1:p]
            buf[i:p - 1, i:p - 1] = tail[:-1, :-2]
            Y[i:p - 1] = tail[:-1, -2:]
        buf[:p, p - 1], buf[p - 1, :p], buf[p - 1, p - 1], Y[p - 1] = 0.0, 0.0, 1.0, 0.0
        self.p -= 1

    def kkt(self):
        """``u = Ĝ_PP⁻¹ c_P`` and ``v = Ĝ_PP⁻¹ 1``."""
        return _DTRSV(self.buf, self.Y[:, 0])[:self.p], _DTRSV(self.buf, self.Y[:, 1])[:self.p]


class _ActiveSet:
    """``min_{λ ∈ Δ} ½ λᵀGλ − cᵀλ`` over a growing set of atoms by a primal active-set method (Wolfe's, with the
    sum constraint handled exactly), warm-started from round to round.

    ``P``: the passive atoms (``λ_P > 0``), kept *affinely independent*: an atom enters only if the Cholesky pivot of
    ``Ĝ = G + σ 11ᵀ`` (``σ`` = the largest diagonal of ``G``) stays above ``DEPENDENT_PIVOT`` relative — the
    bordered matrix of ``P`` is then nonsingular, which is what broke Wolfe's method on the affinely dependent
    atoms of marginal hulls.  ``Ĝ`` equals ``G`` plus a constant on the simplex, so the minimiser is the same;
    its factor (:class:`_Factor`) grows by one column per entering atom and loses one by Givens rotations.
    On ``P`` the KKT system ``Ĝ_PP s − c_P + ν 1 = 0``, ``1ᵀs = 1`` has the solution
    ``s = u − ν v`` with ``u = Ĝ⁻¹c``, ``v = Ĝ⁻¹1``; a step towards ``s`` stops at the first weight that reaches
    zero (that atom leaves).  Each pass adds up to ``ENTER`` atoms with the most negative reduced gradient
    ``∇_t − λᵀ∇``; added atoms whose weight comes out non-positive leave again without a step, so every
    pass lowers the objective.  Stops when no reduced gradient is below ``−tol``: the small problem's
    Frank–Wolfe gap is then below ``tol``."""

    ENTER = 16

    def __init__(self):
        self.atoms = np.zeros(0, dtype=np.int64)        # universe indices of P, in the factor's order
        self.lam = np.zeros(0)
        self.factor = _Factor()
        self.G = np.zeros((0, 0))                        # Gram of P (exact, unshifted)

    def solve(self, cand, G_cand, c_cand, sigma, tol, max_passes):
        """``cand``: universe indices, the first ``len(self.atoms)`` being the current ``P`` in order; ``G_cand``,
        ``c_cand`` their Gram matrix and ``Bᵀỹ``.  Returns ``False`` when the pass limit ran out or the linear
        algebra broke down (the caller falls back)."""
        k, p = cand.size, self.atoms.size
        lam = np.zeros(k)
        lam[:p] = self.lam
        P = list(range(p))
        F = self.factor
        if p == 0:                                       # start at the best vertex
            t = int(np.argmin(0.5 * np.diag(G_cand) - c_cand))
            F.append(np.zeros((0, 1)), G_cand[t:t + 1, t:t + 1] + sigma, np.array([[c_cand[t], 1.0]]))
            P, lam[t] = [t], 1.0
        for _ in range(max_passes):
            grad = G_cand @ lam - c_cand                 # λ is zero off P
            reduced = grad - lam[P] @ grad[P]
            reduced[P] = np.inf
            order = np.argsort(reduced, kind="stable")[:self.ENTER]
            order = order[reduced[order] < -tol]
            if order.size == 0:
                self._keep(cand, G_cand, P, lam)
                return True
            accepted = F.append(G_cand[np.ix_(P, order)] + sigma, G_cand[np.ix_(order, order)] + sigma,
                                np.column_stack([c_cand[order], np.ones(order.size)]))
            added = [int(order[j]) for j in accepted]
            if not added:
                self._keep(cand, G_cand, P, lam)
                return True                              # every descent atom is dependent: rounding's limit
            P += added
            while True:                                  # the KKT solution on P, then the ratio test
                u, v = F.kkt()
                s = u - ((u.sum() - 1.0) / v.sum()) * v
                if not np.isfinite(s).all():
                    return False
                if (s > 0).all():
                    lam[P] = s
                    break
                cur = lam[P]
                fresh = (s <= 0) & (cur <= 0)            # just added and unwanted: leave without a step
                if fresh.any():
                    drop = np.flatnonzero(fresh)
                else:
                    neg = s <= 0
                    ratios = np.full(len(P), np.inf)
                    ratios[neg] = cur[neg] / (cur[neg] - s[neg])
                    alpha = float(ratios.min())
                    new = cur + alpha * (s - cur)
                    drop = np.flatnonzero((ratios <= alpha) | (new <= 0))
                    lam[P] = np.maximum(new, 0.0)
                for i in sorted(drop.tolist(), reverse=True):
                    lam[P[i]] = 0.0
                    F.delete(i)
                    del P[i]
                if not P:
                    return False
                lam[P] /= lam[P].sum()
        return False

    def _keep(self, cand, G_cand, P, lam):
        self.atoms, self.lam = cand[P], lam[P] / lam[P].sum()
        self.G = G_cand[np.ix_(P, P)]


def project_onto_hull(y_tilde, workload, *, tol=1e-4, max_iter=200, batch=None) -> Projection:
    """The Euclidean projection of ``ỹ`` onto ``K_Q = conv{Q(r)}`` (PROJ-Alg1 step 2, PROJ-Def2), certified.

    Simplicial decomposition (fully corrective Frank–Wolfe): each of at most ``max_iter`` rounds calls the
    oracle ``g = Qᵀ(Q w − ỹ)`` once (``workload.rmatvec``), stops if the duality gap certifies
    ``sqrt(2 gap / m) <= tol`` (RMS distance of the answers to the exact projection), else adds the ``batch``
    universe elements with the most negative ``g`` (default ``max(8, m // 4)``) as candidates and re-solves the
    small problem over the active atoms and the candidates by a warm-started primal active-set method
    (:class:`_ActiveSet`: the previous round's atoms, their weights and the Cholesky factor carry over, so a
    round costs the atoms that enter and leave, not a solve from scratch; :class:`_Factor` makes each of those
    changes ``O(p²)`` in place).  Gram entries ``Q(r)·Q(s)`` come
    from the workload's columns, or for marginals from one table over ``r XOR s`` (:class:`_MarginalGram`),
    exact integers either way; ``Bᵀỹ`` is one ``rmatvec``.  Should the active-set method break down (a pass limit,
    a non-finite solve), the previous solver (:func:`_project_nnls`) takes over from scratch.  Memory is ``O(N)``
    for ``g`` and ``O(k²)`` for the small problem.  Far outside ``K_Q`` (enormous noise) the projection lands on a
    low-dimensional face and few rounds suffice.  When ``max_iter`` runs out, the result is still returned with
    its honest gap and ``converged=False``.
    """
    W, y, max_iter, batch, gap_target = _solver_inputs(y_tilde, workload, tol, max_iter, batch)
    return _project(_Hull(W), y, tol, max_iter, batch, gap_target)


class _Hull:
    """What every projection onto one workload's ``K_Q`` shares, made once: the workload, the marginal Gram table
    (:class:`_MarginalGram`, ``O(N d)`` to build) and the answers of the uniform database, where the solver starts.
    :func:`projection_mechanism` projects all its trials through one, so a trial pays only for its own solve."""

    def __init__(self, W):
        from .queries import MarginalWorkload
        self.W = W
        self.marginal_gram = _MarginalGram(W) if isinstance(W, MarginalWorkload) else None
        self.uniform = _apply(W, np.full(W.N, 1.0 / W.N))

    def gram(self):
        """The Gram provider of one projection (the column cache is per projection: it forgets the atoms that leave)."""
        return self.marginal_gram if self.marginal_gram is not None else _ColumnGram(self.W)


def _apply(W, v):
    """``Q v`` for a float vector ``v`` over the universe: :meth:`~dpbook.queries.Workload.apply` without its input
    check (the solver's vectors are its own)."""
    return np.asarray(W._apply(v), dtype=np.float64)


def _adjoint(W, r):
    """``Qᵀ r`` for a float vector ``r`` over the queries: :meth:`~dpbook.queries.Workload.rmatvec` without its input
    check (the solver's residuals are its own; the universe's size was checked once by :func:`_solver_inputs`)."""
    return np.asarray(W._rmatvec_many(r[None]), dtype=np.float64)[0]


def _project(hull, y, tol, max_iter, batch, gap_target) -> Projection:
    """:func:`project_onto_hull` on checked inputs (``y`` float64 of shape ``(m,)``)."""
    W = hull.W
    gram = hull.gram()
    c_all = _adjoint(W, y)                                          # Bᵀỹ for every universe element
    g = _adjoint(W, hull.uniform - y)                               # oracle at the uniform database
    new = _smallest(g, batch)
    state, sigma = _ActiveSet(), None
    gap, iterations = math.inf, 0
    for iterations in range(1, max_iter + 1):
        old = state.atoms
        cand = np.concatenate([old, new])
        k = old.size
        G = np.empty((cand.size, cand.size))
        G[:k, :k] = state.G
        G[:k, k:] = gram.block(old, new)
        G[k:, :k] = G[:k, k:].T
        G[k:, k:] = gram.block(new, new)
        if sigma is None:
            sigma = max(float(np.diag(G).max()), 1e-300)
        # the small problem to a Frank–Wolfe gap far below the target (it is exact up to rounding in practice)
        if not state.solve(cand, G, c_all[cand], sigma, 1e-3 * gap_target / (1.0 + W.m), 50 * cand.size + 100):
            return _project_nnls(y, W, tol=tol, max_iter=max_iter, batch=batch)
        if isinstance(gram, _ColumnGram):
            gram.forget(state.atoms)
        J, lam = state.atoms, state.lam
        w = np.zeros(W.N)
        w[J] = lam
        z = _apply(W, w)
        r = z - y
        g = _adjoint(W, r)                                          # the Frank–Wolfe oracle: one pass over X
        gap = max(float(r @ z - g.min()), 0.0)
        if gap <= gap_target:
            break
        new = _smallest(g, batch)
        new = new[(g[new] < r @ z) & ~np.isin(new, J)]             # only descent directions not yet active
        if new.size == 0:           # every descent atom is active: rounding limits the small problem; stop honestly
            break
    order = np.argsort(state.atoms)
    return Projection(answers=z, support=state.atoms[order], weights=state.lam[order], gap=gap,
                      certified_distance=math.sqrt(2.0 * gap), iterations=iterations,
                      converged=gap <= gap_target)


def _solver_inputs(y_tilde, workload, tol, max_iter, batch):
    """The checked inputs of both solvers: the workload, the point ``ỹ``, the round and batch limits, and the target
    duality gap ``m·tol²/2`` (floored where floating point cannot certify less: ``|ỹ|`` enormous)."""
    W = as_workload(workload, name="workload")
    if W.N > RMATVEC_DENSE_LIMIT:
        raise ValueError(f"the workload's universe (N = {W.N}) is too large for the projection's dense gradient "
                         f"(at most {RMATVEC_DENSE_LIMIT}); over huge universes use sparse queries and chapter 15's "
                         "SparseProject")
    y = _check_point(y_tilde, W.m)
    tol = check_real("tol", tol, low=0.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=100_000)
    batch = max(8, W.m // 4) if batch is None else check_int("batch", batch, low=1)
    return W, y, max_iter, batch, _gap_target(W, y, tol)


def _gap_target(W, y, tol):
    """The duality gap that certifies RMS distance ``tol``, ``m·tol²/2``, floored where floating point cannot
    certify less (``|ỹ|`` enormous)."""
    scale = 1.0 + float(np.abs(y).max())
    return max(0.5 * W.m * tol * tol, 1e-13 * scale * W.m)


def _project_nnls(y_tilde, workload, *, tol=1e-4, max_iter=200, batch=None) -> Projection:
    """The previous solver of :func:`project_onto_hull`, kept as its fallback and as a reference for the tests:
    simplicial decomposition whose small problem is re-solved from scratch each round by
    :func:`_simplex_least_squares` (NNLS with ``Σ λ = 1`` as a heavy row), Gram products from the columns."""
    W, y, max_iter, batch, gap_target = _solver_inputs(y_tilde, workload, tol, max_iter, batch)

    g = W.rmatvec(W.apply(np.full(W.N, 1.0 / W.N)) - y)            # oracle at the uniform database
    J = _smallest(g, batch)
    lam = np.full(J.size, 1.0 / J.size)
    B = W.columns(J)
    G, c = _cross(B, B), B.T @ y                                    # the small problem's Gram matrix, kept up to date
    gap, iterations = math.inf, 0
    for iterations in range(1, max_iter + 1):
        lam = _simplex_least_squares(G, c, lam)                     # the small problem, solved exactly
        keep = lam > 0
        J, lam, B = J[keep], lam[keep] / lam[keep].sum(), B[:, keep]
        G, c = G[np.ix_(keep, keep)], c[keep]
        z = B @ lam
        r = z - y
        g = W.rmatvec(r)                                            # the Frank–Wolfe oracle: one pass over X
        gap = max(float(r @ z - g.min()), 0.0)
        solved = (J, lam)                                           # the state the gap certifies
        if gap <= gap_target:
            break
        new = _smallest(g, batch)
        new = new[(g[new] < r @ z) & ~np.isin(new, J)]             # only descent directions not yet active
        if new.size == 0:           # every descent atom is active: rounding limits the small problem; stop honestly
            break
        J = np.concatenate([J, new])
        lam = np.concatenate([lam, np.zeros(new.size)])
        B_new = W.columns(new)
        k = J.size - new.size
        G_grown = np.empty((J.size, J.size))
        G_grown[:k, :k] = G
        G_grown[:k, k:] = _cross(B, B_new)
        G_grown[k:, :k] = G_grown[:k, k:].T
        G_grown[k:, k:] = _cross(B_new, B_new)
        G, c = G_grown, np.concatenate([c, B_new.T @ y])
        B = np.hstack([B, B_new])
    J, lam = solved
    order = np.argsort(J)
    return Projection(answers=z, support=J[order], weights=lam[order], gap=gap,
                      certified_distance=math.sqrt(2.0 * gap), iterations=iterations,
                      converged=gap <= gap_target)


def project_reference(y_tilde, workload, *, iterations=20_000) -> Projection:
    """Readable reference (PROJ-Alg1): Frank–Wolfe over the simplex with exact line search.

    ``g = Qᵀ(Q w − ỹ)``; ``j* = argmin_j g_j``; ``w <- (1 − γ) w + γ e_{j*}`` with the ``γ ∈ [0, 1]`` that
    minimises ``||Q w − ỹ||²`` on the segment.  Dense ``w``: small universes only (tests).
    """
    W = as_workload(workload, name="workload")
    y = _check_point(y_tilde, W.m)
    iterations = check_int("iterations", iterations, low=1, high=10_000_000)
    w = np.zeros(W.N)
    w[0] = 1.0
    z = W.apply(w)
    gap = math.inf
    for _ in range(iterations):
        g = W.rmatvec(z - y)
        j = int(np.argmin(g))
        gap = float(g @ w - g[j])
        d = W.columns(np.array([j]))[:, 0] - z
        gamma = 0.0 if d @ d == 0 else min(max(-(z - y) @ d / (d @ d), 0.0), 1.0)
        w *= 1.0 - gamma
        w[j] += gamma
        z = z + gamma * d
    support = np.flatnonzero(w)
    return Projection(z, support, w[support], max(gap, 0.0), math.sqrt(2.0 * max(gap, 0.0)), iterations, True)


def projection_mechanism(x, workload, *, epsilon, delta, n=None, neighbours="replace-one", calibration="classic",
                         tol=1e-4, max_iter=200, trials=None, rng=None, sampler=gaussian_noise) -> Release:
    """The projection mechanism (PROJ-Alg1): Gaussian noise on the answers, then the projection onto ``K_Q``.

    (ε, δ)-DP (PROJ-Thm3; the projection is post-processing of the Gaussian release, erratum PROJ-E6) under
    ``neighbours``:

    * ``"replace-one"`` (PROJ's convention, the default): ``n = ||x||_1`` is public; the Gaussian step is
      calibrated on :func:`replace_one_l2_sensitivity` (``<= sqrt(m)``, PROJ-R1's value);
    * ``"add/remove"``: ``n`` (the public row count that normalises the answers) must be passed; the step is
      calibrated on the counts' exact ``Δ2 = max_u ||Q e_u||_2``.

    ``calibration``, ``trials``, ``rng`` and ``sampler`` go to :func:`dpbook.gaussian.gaussian_mechanism`
    (``"classic"`` needs ``ε < 1``).  ``tol``/``max_iter``: the solver's (:func:`project_onto_hull`).
    Returns a :class:`~dpbook.release.Release` with the projected answers; its trace holds the noisy answers
    ``ỹ`` (``"noisy"``), the synthetic distributions (``"weights"``, a sparse ``(trials, N)`` matrix), and per
    trial the solver's ``"gap"``, ``"certified_distance"`` and ``"iterations"``.
    """
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials,
                           neighbours=neighbours, x=x, n_rule="public", per_release=(W.m,), positive_delta=True,
                           family="gaussian")
    rows = int(x.sum())
    if p.neighbours == "replace-one":              # n = ||x||_1 is public: a given n must be it
        if n is not None and p.n != rows:
            raise ValueError(f"n ({n!r}) must equal the number of rows of x ({rows}) under replace-one neighbours")
        sensitivity = replace_one_l2_sensitivity(W)
    else:                                          # add/remove: the public n was required by the prologue
        sensitivity = W.l2_sensitivity()
    n, neighbours = p.n, p.neighbours
    tol = check_real("tol", tol, low=0.0, low_open=True)
    max_iter = check_int("max_iter", max_iter, low=1, high=100_000)
    # step 1: the Gaussian mechanism spends the whole (ε, δ)
    noisy = gaussian_mechanism(x, W, epsilon=p.epsilon, delta=p.delta, sensitivity=sensitivity,
                               calibration=calibration, n=n, trials=p.trials, rng=p.rng, sampler=p.noise)
    # step 2: post-processing — the projection uses only the public workload
    Y = np.atleast_2d(noisy.answers)
    W, _, _, batch, _ = _solver_inputs(Y[0], W, tol, max_iter, None)     # the universe's size, once
    hull = _Hull(W)                                                     # shared by the trials' projections
    points = (_check_point(y, W.m) for y in Y)
    results = [_project(hull, y, tol, max_iter, batch, _gap_target(W, y, tol)) for y in points]
    answers = np.stack([p.answers for p in results])
    import scipy.sparse as sp           # here, not at import: only the release's weights are sparse
    weights = sp.csr_matrix((np.concatenate([p.weights for p in results]),
                             np.concatenate([p.support for p in results]),
                             np.concatenate([[0], np.cumsum([p.support.size for p in results])])),
                            shape=(len(results), W.N))
    trace = {"noisy": noisy.answers, "weights": weights, "sensitivity": sensitivity,
             "sigma_counts": noisy.trace["sigma_counts"], "calibration": calibration,
             "gap": np.array([p.gap for p in results]),
             "certified_distance": np.array([p.certified_distance for p in results]),
             "iterations": np.array([p.iterations for p in results]),
             "converged": np.array([p.converged for p in results])}
    if trials is None:
        answers = answers[0]
    return Release(answers, "projection", noise_scale=noisy.noise_scale,
                   ledger=noisy.ledger + (Spend("projection onto K_Q (post-processing)", 0.0, 0.0),),
                   trace=trace, neighbours=neighbours)
