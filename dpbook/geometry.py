"""The geometry of query release (chapter 13): support function, mean width and Gaussian width of
``K_Q = conv{Q(r) : r ∈ X}`` (PROJ-Def6, PROJ-Def7/Def8), and the key lemma's two sides (PROJ-Key lemma).

Everything goes through the workload's adjoint: ``h_{K_Q}(y) = max_{r ∈ X} ⟨y, Q(r)⟩ = max_r (Qᵀ y)_r``
(the support function of a convex hull is attained at a vertex), so a batch of directions costs one
``rmatvec`` pass over the universe — no ``m × |X|`` matrix.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .noise import as_generator
from .queries import RMATVEC_DENSE_LIMIT, as_workload, check_dual
from .validation import check_int, check_probability

__all__ = ["support_function", "WidthEstimate", "gaussian_width", "mean_width", "key_lemma_sides"]

_CHUNK_FLOATS = 1 << 22                  # at most 32 MB of (directions × universe) values at a time


def support_function(workload, y) -> np.ndarray | float:
    """``h_{K_Q}(y) = max_{r ∈ X} ⟨y, Q(r)⟩`` (PROJ-Def6) for ``y`` of shape ``(m,)`` or a batch ``(k, m)``.

    Positively homogeneous and subadditive; *not* a norm in general (erratum PROJ-E4): ``K_Q ⊆ [0, 1]^m`` gives
    ``h_{K_Q}(−1) <= 0``.

    Over a universe too large for a dense adjoint (``N`` above ``queries.RMATVEC_DENSE_LIMIT``, e.g. sparse
    queries over ``2^32`` records) it uses the sparse ``rmatvec``: the maximum over the stored entries, and 0
    for the elements no query touches.
    """
    W = as_workload(workload)
    Y = check_dual(y, W.m)
    batch = np.atleast_2d(Y)
    if W.N > RMATVEC_DENSE_LIMIT:
        out = np.array([_sparse_max(W.rmatvec(row, sparse=True), W.N) for row in batch])
    else:
        step = max(1, _CHUNK_FLOATS // W.N)
        out = np.concatenate([W.rmatvec(batch[i:i + step]).max(axis=1) for i in range(0, batch.shape[0], step)])
    return float(out[0]) if Y.ndim == 1 else out


def _sparse_max(v, N: int) -> float:
    """The largest entry of a sparse vector of length ``N`` (its unstored entries are 0)."""
    top = float(v.data.max()) if v.nnz else 0.0
    return max(top, 0.0) if v.nnz < N else top


@dataclass(frozen=True)
class WidthEstimate:
    """A Monte Carlo estimate with a two-sided ``level`` confidence interval (Student t on the mean)."""

    estimate: float
    low: float
    high: float
    samples: int
    level: float


def _estimate(values, level) -> WidthEstimate:
    k = values.size
    mean = float(values.mean())
    # Student's t quantile through scipy.special.stdtrit, the function scipy.stats.t.ppf evaluates (same floats),
    # without importing scipy.stats (~0.9 s of CPU, the costliest import of the chapter that draws widths)
    from scipy.special import stdtrit
    half = float(stdtrit(k - 1, 0.5 + level / 2) * values.std(ddof=1) / math.sqrt(k)) if k > 1 else math.inf
    return WidthEstimate(mean, mean - half, mean + half, k, level)


def _draws(W, samples, rng):
    G = as_generator(rng).standard_normal((samples, W.m))
    return G, support_function(W, G)


def gaussian_width(workload, *, samples=400, level=0.95, rng=None) -> WidthEstimate:
    """``ℓ*(K_Q) = E h_{K_Q}(g)``, ``g ~ N(0, I_m)`` (PROJ-Def7/Def8), by Monte Carlo with a CI."""
    W = as_workload(workload)
    samples = check_int("samples", samples, low=2, high=10_000_000)
    level = check_probability(level, "level", open_low=True, open_high=True)
    _, h = _draws(W, samples, rng)
    return _estimate(np.asarray(h), level)


def mean_width(workload, *, samples=400, level=0.95, rng=None) -> WidthEstimate:
    """``M*(K_Q) = E h_{K_Q}(θ)``, ``θ`` uniform on the unit sphere (PROJ-Def7/Def8; half the usual "mean
    width"), by Monte Carlo with ``θ = g/||g||`` (so ``h(θ) = h(g)/||g||``) and a CI."""
    W = as_workload(workload)
    samples = check_int("samples", samples, low=2, high=10_000_000)
    level = check_probability(level, "level", open_low=True, open_high=True)
    G, h = _draws(W, samples, rng)
    return _estimate(np.asarray(h) / np.linalg.norm(G, axis=1), level)


def key_lemma_sides(workload, y, noisy, projected) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three sides of PROJ-Key lemma, per trial: ``||ŷ − y||²``, ``⟨w, ŷ − y⟩`` and ``h_K(w) + h_K(−w)``
    with ``w = ỹ − y`` (each ``(trials,)``; a single trial gives arrays of length 1).

    For the exact projection ``ŷ = Π_K(ỹ)`` and ``y ∈ K``: ``||ŷ − y||² <= ⟨w, ŷ − y⟩ <= h_K(w) + h_K(−w)``.
    """
    W = as_workload(workload)
    y = check_dual(y, W.m, "y")
    noisy = np.atleast_2d(check_dual(noisy, W.m, "noisy"))
    projected = np.atleast_2d(check_dual(projected, W.m, "projected"))
    if noisy.shape != projected.shape:
        raise ValueError(f"noisy {noisy.shape} and projected {projected.shape} must have the same shape")
    w = noisy - y
    lhs = ((projected - y) ** 2).sum(axis=1)
    middle = (w * (projected - y)).sum(axis=1)
    rhs = support_function(W, w) + support_function(W, -w)
    return lhs, middle, np.atleast_1d(rhs)
