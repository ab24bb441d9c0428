"""The compiled form of :mod:`dpbook._mw_kernels`' block path for a float query on the grid (optional: needs numba,
the ``speed`` extra; imported by :func:`dpbook._mw_kernels.compiled_kernels` on first use of a long row, never with ``dpbook``).

:func:`grid_update_row` writes ``out = e^{c·q} · p`` for one row and returns its sum, with the bytes of the numpy
path (:func:`dpbook._mw_kernels.grid_exp_reference` times ``p``, summed by ``numpy.sum``), so a result never
depends on whether numba is installed:

* the same operations in the same order, element by element: ``m = (q + 1.5·2^40) − 1.5·2^40`` (``q`` rounded
  to a multiple of ``2^-12``), ``δ = q − m``, the same Taylor terms by Horner (one loop per degree), times the
  table entry ``e^{c·m}`` (the same table), times ``p``.  No ``exp``/``log`` of the C library or of numba, and no
  ``fastmath``: LLVM then neither fuses a multiply and an add into an FMA nor reorders a sum, so each operation is
  one correctly rounded IEEE-754 operation on every instruction set (SSE2, AVX2, AVX-512 alike);
* the row's sum in the order of numpy's pairwise summation of float64 (``add.reduce``): runs of fewer than 8
  added left to right; up to 128, eight interleaved partial sums combined as ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``
  then the tail; longer, split at half rounded down to a multiple of 8; the pieces computed while in cache.

tests/test_mw_kernels.py checks the bytes against the numpy path on seeded rows (and with numba's generic CPU
target against the host's); the numpy path is the reference and the fallback.
"""
from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:      # (also numba's answer to a numpy it does not support) the extra is absent
    numba = None

#: Whether the kernels below are compiled; without numba they are plain Python (the module still imports, and
#: :func:`dpbook._mw_kernels.compiled_kernels` answers ``None``: the numpy path runs).
AVAILABLE = numba is not None
_jit = numba.njit(cache=True, nogil=True) if AVAILABLE else (lambda f: f)

_SHIFTER = 1.5 * 2.0 ** 40           # q + this rounds q to a multiple of 2^-12 (as _mw_kernels._GRID_SHIFTER)
_GRID = 4096.0                       # 2^12: m·_GRID is the table index (exact)
_LEAF = 2048                         # elements computed, then summed, while in cache (any size gives the same bytes)


# Indices are unsigned in the loops below: a signed index makes numba check for negative (wrap-around) indices
# element by element, which keeps LLVM from vectorising and costs up to 3x.

@_jit
def _base_sum(a, start, n):
    """numpy's pairwise sum of ``a[start:start + n]`` for ``n <= 128`` (its base cases)."""
    u = np.uint64(start)
    if n < 8:
        res = -0.0
        for k in range(n):
            res += a[u + np.uint64(k)]
        return res
    r0, r1, r2, r3 = a[u], a[u + np.uint64(1)], a[u + np.uint64(2)], a[u + np.uint64(3)]
    r4, r5, r6, r7 = a[u + np.uint64(4)], a[u + np.uint64(5)], a[u + np.uint64(6)], a[u + np.uint64(7)]
    for k in range(1, n // 8):
        i = u + np.uint64(8 * k)
        r0 += a[i]
        r1 += a[i + np.uint64(1)]
        r2 += a[i + np.uint64(2)]
        r3 += a[i + np.uint64(3)]
        r4 += a[i + np.uint64(4)]
        r5 += a[i + np.uint64(5)]
        r6 += a[i + np.uint64(6)]
        r7 += a[i + np.uint64(7)]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for k in range(n - n % 8, n):
        res += a[u + np.uint64(k)]
    return res


@_jit
def _series(q, series, index, first, n, terms, degree):
    """``series[k] = 1 + c·δ + ... + (c·δ)^degree/degree!`` by Horner, as numpy computes it (``out = δ·a_n``,
    then ``out += a_k; out *= δ`` for ``k = n−1..1``, then ``out += 1``) for ``δ`` of ``q[first + k]``, and ``index[k] = m·2^12``; one loop per
    degree (2..5) so that each is a straight vectorised loop."""
    a1, a2, a3, a4, a5 = terms[0], terms[1], terms[2], terms[3], terms[4]
    if degree == 2:
        for k in range(n):
            i = first + np.uint64(k)
            qi = q[i]
            m = (qi + _SHIFTER) - _SHIFTER        # q rounded to the grid (the bits of _mw_kernels._grid_block)
            d = qi - m                            # exact
            series[k] = ((d * a2 + a1) * d) + 1.0
            index[k] = np.uint64(m * _GRID)       # exact: m is a multiple of 2^-12 in [0, 1]
    elif degree == 3:
        for k in range(n):
            i = first + np.uint64(k)
            qi = q[i]
            m = (qi + _SHIFTER) - _SHIFTER
            d = qi - m
            series[k] = (((d * a3 + a2) * d + a1) * d) + 1.0
            index[k] = np.uint64(m * _GRID)
    elif degree == 4:
        for k in range(n):
            i = first + np.uint64(k)
            qi = q[i]
            m = (qi + _SHIFTER) - _SHIFTER
            d = qi - m
            series[k] = ((((d * a4 + a3) * d + a2) * d + a1) * d) + 1.0
            index[k] = np.uint64(m * _GRID)
    else:
        for k in range(n):
            i = first + np.uint64(k)
            qi = q[i]
            m = (qi + _SHIFTER) - _SHIFTER
            d = qi - m
            series[k] = (((((d * a5 + a4) * d + a3) * d + a2) * d + a1) * d) + 1.0
            index[k] = np.uint64(m * _GRID)


@_jit
def _grid_piece(q, p, out, table, terms, degree, series, index, start, stop):
    """``out[i] = (series(δ_i) · e^{c·m_i}) · p[i]`` on ``[start, stop)`` (``terms``: ``c^k/k!`` for ``k = 1..5``,
    those above ``degree`` unused; ``series``, ``index``: scratch of at least ``stop − start``; ``out`` may be
    ``p``: it is written last).  Two loops: the series, which LLVM vectorises, then the table look-up fused with
    the two products.  LLVM does not vectorise a loop with a gather (on recent x86 it prefers not to: a hardware
    gather measures slower here than scalar loads), so the look-up costs a scalar load an element either way;
    fused, ``e^{c·m}`` is never stored and read back, and ``p`` streams in while the look-ups run (a separate
    look-up loop and product loop measured ~0.5 ms slower over 2^20 elements)."""
    n = stop - start
    first = np.uint64(start)
    _series(q, series, index, first, n, terms, degree)
    for k in range(n):
        i = first + np.uint64(k)
        out[i] = (series[k] * table[index[k]]) * p[i]


@_jit
def grid_update_row(q, p, out, table, terms, degree):
    """``out = e^{c·q} · p`` (``out`` may be ``p``) and ``numpy.sum(out)``, for contiguous float64 rows ``q``,
    ``p``, ``out`` of one length, ``table`` the 4097 values ``e^{c·m/2^12}`` and ``terms`` the ``c^k/k!`` for
    ``k = 1..degree`` (padded to five).  ``q`` in ``[0, 1]`` (the callers validate).

    numpy's pairwise recursion walked with an explicit stack (numba's cache does not keep recursive functions
    reliably): a piece's elements are computed when the walk first enters a node of at most ``_LEAF`` elements,
    then summed there while in cache."""
    n = q.size
    if n == 0:
        return 0.0
    starts = np.empty(64, dtype=np.int64)         # the nodes from the root to the current one (depth <= 64)
    sizes = np.empty(64, dtype=np.int64)
    on_right = np.zeros(64, dtype=np.bool_)       # the node's left half is summed (into lefts), the right is next
    lefts = np.empty(64)
    series, index = np.empty(_LEAF), np.empty(_LEAF, dtype=np.uint64)
    top, done = 0, 0
    starts[0], sizes[0] = 0, n
    while True:
        s, m = starts[top], sizes[top]
        if m <= _LEAF and s >= done:
            _grid_piece(q, p, out, table, terms, degree, series, index, s, s + m)
            done = s + m
        if m > 128:                               # numpy splits it: descend into the left half
            on_right[top] = False
            half = m // 2
            half -= half % 8
            top += 1
            starts[top], sizes[top] = s, half
            continue
        v = _base_sum(out, s, m)
        top -= 1
        while top >= 0 and on_right[top]:         # a right half done: its node's sum is left + right
            v = lefts[top] + v
            top -= 1
        if top < 0:
            return v
        lefts[top], on_right[top] = v, True       # a left half done: go to the right half
        s, m = starts[top], sizes[top]
        half = m // 2
        half -= half % 8
        top += 1
        starts[top], sizes[top] = s + half, m - half
