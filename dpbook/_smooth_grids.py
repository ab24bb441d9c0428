"""The grids and weights that dpbook.smooth's summaries and chapter 16's comparisons share (private: unvalidated,
their callers validate; no ``__all__``, outside the public API and its sweep): the Chebyshev–Lobatto nodes and the
interpolant's Chebyshev coefficients from its values on them, the Gauss–Legendre grid, and the (multi)linear hat
functions' means over the rows."""
from __future__ import annotations

import functools

import numpy as np

MAX_PAIR_WORK = 2 * 10 ** 9        # nodes^2 * (number of queries): about ten seconds of numpy


@functools.lru_cache(maxsize=32)
def lobatto_grid(M, d):
    """The ``(M+1)^d`` Chebyshev–Lobatto nodes (cached, read-only: every query of the same degree reuses them)."""
    x = np.cos(np.pi * np.arange(M + 1) / M)
    mesh = np.meshgrid(*([x] * d), indexing="ij")
    nodes = np.stack([g.ravel() for g in mesh], axis=1)
    nodes.setflags(write=False)
    return nodes


def lobatto_coefficients(values, J) -> np.ndarray:
    """The tensor Chebyshev coefficients of degree ``< J`` per axis of the interpolant with ``values`` (finite,
    shape ``(M+1,)*d``) on the Chebyshev–Lobatto nodes ``lobatto_grid(M, d)``: :func:`chebyshev_coefficients`
    once ``f`` has been evaluated and checked (a caller that evaluates many queries at once reuses it)."""
    from scipy.fft import dctn
    d, M = values.ndim, values.shape[0] - 1
    a = dctn(values, type=1) / M ** d
    for axis in range(d):                                    # DCT-I convention: halve the m = 0 and m = M terms
        idx = [slice(None)] * d
        idx[axis] = [0, M]
        a[tuple(idx)] *= 0.5
    return a[(slice(0, J),) * d].copy()


@functools.lru_cache(maxsize=16)
def legendre_grid(nodes, d):
    x, w = np.polynomial.legendre.leggauss(nodes)
    P = np.stack([m.ravel() for m in np.meshgrid(*([x] * d), indexing="ij")], axis=1)
    W = np.prod(np.stack([m.ravel() for m in np.meshgrid(*([w] * d), indexing="ij")], axis=1), axis=1)
    for a in (P, W):
        a.setflags(write=False)
    return P, W


def hat_weights(axis, X) -> np.ndarray:
    """``ω_a = (1/n) sum_i hat_a(x_i)``: the mean over the rows of each node's (multi)linear hat function on the
    tensor grid ``axis^d``, so that the mean of an interpolant with node values ``F`` is ``F @ ω``."""
    n, d = X.shape
    G = axis.size
    h = axis[1] - axis[0]
    pos = np.clip((X + 1.0) / h, 0.0, G - 1.0)
    lo = np.minimum(np.floor(pos).astype(np.int64), G - 2)
    frac = pos - lo
    omega = np.zeros(G ** d)
    for corner in range(2 ** d):                        # the 2^d corners of each row's cell
        bits = [(corner >> j) & 1 for j in range(d)]
        idx = np.zeros(n, dtype=np.int64)
        w = np.ones(n)
        for j, bit in enumerate(bits):
            idx = idx * G + lo[:, j] + bit
            w = w * (frac[:, j] if bit else 1.0 - frac[:, j])
        omega += np.bincount(idx, weights=w, minlength=G ** d)
    return omega / n
