"""The compiled form of :mod:`dpbook._mw_kernels`' block path for a float query on the grid and for a bool
indicator (optional: needs numba, the ``speed`` extra; imported by :func:`dpbook._mw_kernels.compiled_kernels` on
first use of a long row, never with ``dpbook``).

:func:`grid_update_row` writes ``out = e^{c·q} · p`` for one row and returns its sum, with the bytes of the numpy
path (:func:`dpbook._mw_kernels.grid_exp_reference` times ``p``, summed by ``numpy.sum``), so a result never
depends on whether numba is installed; :func:`bool_update_row` does the same for a bool row (read as uint8, a
view): ``out = ((z · (1 − small)) + small) · p``, ``z = q XOR (c < 0)`` as ``0.0``/``1.0`` and
``small = e^{−|c|}``, numpy's block statement element by element (a loop LLVM vectorises itself).  The two share
the walk of the row and its sum (:func:`_update_row`, one piece at a time through :func:`_piece`) and the final
scale (:func:`scale_row`).  For the float query:

* the same operations in the same order, element by element: ``m = (q + 1.5·2^40) − 1.5·2^40`` (``q`` rounded
  to a multiple of ``2^-12``, the table index read from the bits of ``q + 1.5·2^40``), ``δ = q − m``, the same
  Taylor terms by Horner, times the table entry ``e^{c·m}`` (the same table), times ``p``.  No ``exp``/``log`` of
  the C library or of numba, and no ``fastmath``: LLVM then neither fuses a multiply and an add into an FMA nor
  reorders a sum, so each operation is one correctly rounded IEEE-754 operation on every instruction set (SSE2,
  AVX2, AVX-512 alike).  The elements go four at a time through one loop written as LLVM vector operations
  (:func:`_fused_vectors`): LLVM does not vectorise a loop with a table look-up on recent x86 (a hardware gather
  measures slower here than scalar loads), so that loop spells out the four scalar loads and keeps the rest in
  vectors; a look-up is exact, so the bytes are those of any other order of loads;
* the row's sum in the order of numpy's pairwise summation of float64 (``add.reduce``): runs of fewer than 8
  added left to right; up to 128, eight interleaved partial sums combined as ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``
  then the tail; longer, split at half rounded down to a multiple of 8; the pieces computed while in cache, the
  two halves of a piece of at most 256 added in one loop (sixteen independent partial sums instead of eight).

tests/test_mw_numba.py checks the bytes against the numpy path on seeded rows, float and bool (and with numba's
generic CPU target against the host's, and numpy's AVX-512 kernels off); the numpy path is the reference and the
fallback.
"""
from __future__ import annotations

import math

import numpy as np

try:
    import numba
except ImportError:      # (also numba's answer to a numpy it does not support) the extra is absent
    numba = None

#: Whether the kernels below are compiled; without numba they are plain Python (the module still imports, and
#: :func:`dpbook._mw_kernels.compiled_kernels` answers ``None``: the numpy path runs).
AVAILABLE = numba is not None
_jit = numba.njit(cache=True, nogil=True) if AVAILABLE else (lambda f: f)
_inline = numba.njit(cache=True, nogil=True, inline="always") if AVAILABLE else (lambda f: f)

_SHIFTER = 1.5 * 2.0 ** 40           # q + this rounds q to a multiple of 2^-12 (as _mw_kernels._GRID_SHIFTER)
_GRID = 4096.0                       # 2^12: m·_GRID is the table index (exact)
_LEAF = 2048                         # elements computed, then summed, while in cache (any size gives the same bytes)
_INDEX = (1 << 13) - 1               # the low 13 bits of q + _SHIFTER hold m·_GRID (as _mw_kernels._GRID_INDEX)
_WIDTH = 4                           # elements a step of _fused_vectors (a 256-bit vector of float64)
_AHEAD = 256                         # _fused_vectors asks for q and p this many elements ahead (software prefetch)
_SCALE_AHEAD = 1024                  # ... and _scale_vectors for the row
# dpbook._mw_kernels.exp's constants (256/ln 2, ln(2)/256 split in two, the polynomial's 1/2, 1/6, 1/24)
_INV_STEP, _STEP_HI, _STEP_LO = 369.3299304675746, 0.0027076061232946813, 5.076760505425738e-11
_C2, _C3, _C4 = 1.0 / 2, 1.0 / 6, 1.0 / 24


# Indices are unsigned in the loops below: a signed index makes numba check for negative (wrap-around) indices
# element by element, which keeps LLVM from vectorising and costs up to 3x.

@_inline
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


@_inline
def _pair_sum(a, start, n):
    """numpy's pairwise sum of ``a[start:start + n]`` for ``n > 128`` whose halves are base cases (``h`` and
    ``n − h <= 128``, ``h`` = half rounded down to a multiple of 8): the halves' sixteen partial sums in one loop
    (a partial sum waits on its previous addition: two independent sets keep twice as many additions in flight),
    then left plus right, as numpy adds them."""
    u = np.uint64(start)
    h = n // 2
    h -= h % 8
    v = u + np.uint64(h)
    m = n - h
    r0, r1, r2, r3 = a[u], a[u + np.uint64(1)], a[u + np.uint64(2)], a[u + np.uint64(3)]
    r4, r5, r6, r7 = a[u + np.uint64(4)], a[u + np.uint64(5)], a[u + np.uint64(6)], a[u + np.uint64(7)]
    s0, s1, s2, s3 = a[v], a[v + np.uint64(1)], a[v + np.uint64(2)], a[v + np.uint64(3)]
    s4, s5, s6, s7 = a[v + np.uint64(4)], a[v + np.uint64(5)], a[v + np.uint64(6)], a[v + np.uint64(7)]
    both = min(h // 8, m // 8)
    for k in range(1, both):
        i = u + np.uint64(8 * k)
        j = v + np.uint64(8 * k)
        r0 += a[i]
        r1 += a[i + np.uint64(1)]
        r2 += a[i + np.uint64(2)]
        r3 += a[i + np.uint64(3)]
        r4 += a[i + np.uint64(4)]
        r5 += a[i + np.uint64(5)]
        r6 += a[i + np.uint64(6)]
        r7 += a[i + np.uint64(7)]
        s0 += a[j]
        s1 += a[j + np.uint64(1)]
        s2 += a[j + np.uint64(2)]
        s3 += a[j + np.uint64(3)]
        s4 += a[j + np.uint64(4)]
        s5 += a[j + np.uint64(5)]
        s6 += a[j + np.uint64(6)]
        s7 += a[j + np.uint64(7)]
    for k in range(both, h // 8):                 # (the halves differ by at most one run of 8)
        i = u + np.uint64(8 * k)
        r0 += a[i]
        r1 += a[i + np.uint64(1)]
        r2 += a[i + np.uint64(2)]
        r3 += a[i + np.uint64(3)]
        r4 += a[i + np.uint64(4)]
        r5 += a[i + np.uint64(5)]
        r6 += a[i + np.uint64(6)]
        r7 += a[i + np.uint64(7)]
    for k in range(both, m // 8):
        j = v + np.uint64(8 * k)
        s0 += a[j]
        s1 += a[j + np.uint64(1)]
        s2 += a[j + np.uint64(2)]
        s3 += a[j + np.uint64(3)]
        s4 += a[j + np.uint64(4)]
        s5 += a[j + np.uint64(5)]
        s6 += a[j + np.uint64(6)]
        s7 += a[j + np.uint64(7)]
    left = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    right = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    for k in range(m - m % 8, m):                 # (h is a multiple of 8: only the right half has a tail)
        right += a[v + np.uint64(k)]
    return left + right


@_jit
def _fused_scalar(q, p, out, table, terms, degree, first, n):
    """``out[i] = (series(δ_i) · e^{c·m_i}) · p[i]`` for ``i`` in ``[first, first + n)``, one element at a time:
    ``series(δ) = 1 + c·δ + ... + (c·δ)^degree/degree!`` by Horner as numpy computes it (``δ·a_n``, then ``+ a_k``
    and ``· δ`` for ``k = n−1..1``, then ``+ 1``), ``terms`` the ``a_k = c^k/k!`` padded to five.  The statement
    of :func:`_fused_vectors` (which the tests compare with it) and the elements it leaves (fewer than four a
    piece)."""
    for k in range(n):
        i = first + np.uint64(k)
        qi = q[i]
        m = (qi + _SHIFTER) - _SHIFTER            # q rounded to the grid (the bits of _mw_kernels._grid_block)
        d = qi - m                                # exact
        s = d * terms[degree - 1]
        for j in range(degree - 2, -1, -1):
            s = (s + terms[j]) * d
        out[i] = ((s + 1.0) * table[np.uint64(m * _GRID)]) * p[i]     # m·2^12: exact, in [0, 2^12]


if AVAILABLE:
    from llvmlite import ir as _ir
    from numba.core import cgutils as _cgutils
    from numba.extending import intrinsic as _intrinsic, overload as _overload

    @_intrinsic
    def _fused_vectors(typingctx, q, p, out, table, terms, degree, first, n):
        """:func:`_fused_scalar` on the first ``n − n % 4`` elements, four at a time in LLVM vectors of four
        float64: the same IEEE-754 operations (``fadd``/``fsub``/``fmul`` without fast-math flags: no FMA, no
        reordering), the table index the low 13 bits of ``q + 1.5·2^40`` (the integer ``m·2^12``), four scalar
        loads from the table; ``q`` and ``p`` prefetched :data:`_AHEAD` elements ahead (the hardware prefetcher
        alone kept the loop waiting on memory: ~0.3 ms more over 2^20 elements, in the same runs).  One loop per
        degree (2..5), chosen once.  Where a CPU has no 256-bit vectors LLVM
        splits each operation into narrower ones: the same operations element by element, the same bytes."""
        sig = numba.types.void(q, p, out, table, terms, degree, first, n)

        def codegen(context, builder, signature, args):
            qd, pd, od, td, ad = (context.make_array(t)(context, builder, v).data
                                  for t, v in zip(signature.args[:5], args[:5]))
            degree_, first_, n_ = args[5], args[6], args[7]
            i32, i64, f64 = _ir.IntType(32), _ir.IntType(64), _ir.DoubleType()
            vi, vd = _ir.VectorType(i64, _WIDTH), _ir.VectorType(f64, _WIDTH)

            def splat(x):
                v = builder.insert_element(_ir.Constant(vd, _ir.Undefined), x, _ir.Constant(i32, 0))
                return builder.shuffle_vector(v, _ir.Constant(vd, _ir.Undefined),
                                              _ir.Constant(_ir.VectorType(i32, _WIDTH), [0] * _WIDTH))

            def vector_at(ptr, i):
                return builder.bitcast(builder.gep(ptr, [i]), vd.as_pointer())

            i8p = _ir.IntType(8).as_pointer()
            prefetch = _cgutils.get_or_insert_function(                 # (address, read, locality 3, data)
                builder.module, _ir.FunctionType(_ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
            coef = [splat(builder.load(builder.gep(ad, [_ir.Constant(i64, j)]))) for j in range(5)]
            shifter, one = _ir.Constant(vd, [_SHIFTER] * _WIDTH), _ir.Constant(vd, [1.0] * _WIDTH)
            mask = _ir.Constant(vi, [_INDEX] * _WIDTH)
            steps = builder.udiv(n_, _ir.Constant(n_.type, _WIDTH))
            for deg in (2, 3, 4, 5):
                with builder.if_then(builder.icmp_signed("==", degree_, _ir.Constant(degree_.type, deg))):
                    with _cgutils.for_range(builder, steps) as loop:
                        i = builder.add(first_, builder.mul(loop.index, _ir.Constant(i64, _WIDTH)))
                        ahead = builder.add(i, _ir.Constant(i64, _AHEAD))
                        for stream in (qd, pd):             # (a hint: no fault, no effect on any value)
                            builder.call(prefetch, [builder.bitcast(builder.gep(stream, [ahead]), i8p),
                                                    _ir.Constant(i32, 0), _ir.Constant(i32, 3), _ir.Constant(i32, 1)])
                        qv = builder.load(vector_at(qd, i), align=8)
                        t = builder.fadd(qv, shifter)
                        index = builder.and_(builder.bitcast(t, vi), mask)
                        d = builder.fsub(qv, builder.fsub(t, shifter))         # δ = q − m, exact
                        s = builder.fmul(d, coef[deg - 1])
                        for j in range(deg - 2, -1, -1):
                            s = builder.fmul(builder.fadd(s, coef[j]), d)
                        s = builder.fadd(s, one)
                        factor = _ir.Constant(vd, _ir.Undefined)
                        for j in range(_WIDTH):
                            lane = _ir.Constant(i32, j)
                            entry = builder.load(builder.gep(td, [builder.extract_element(index, lane)]), align=8)
                            factor = builder.insert_element(factor, entry, lane)
                        pv = builder.load(vector_at(pd, i), align=8)
                        builder.store(builder.fmul(builder.fmul(s, factor), pv), vector_at(od, i), align=8)
            return context.get_dummy_value()
        return sig, codegen
    @_intrinsic
    def _scale_vectors(typingctx, x, factor, n):
        """``x[i] *= factor`` for the first ``n − n % 8`` elements, two vectors of four a step (``fmul`` without
        fast-math flags: one correctly rounded product an element, numpy's bytes), ``x`` prefetched for writing
        :data:`_SCALE_AHEAD` elements ahead."""
        sig = numba.types.void(x, factor, n)

        def codegen(context, builder, signature, args):
            xd = context.make_array(signature.args[0])(context, builder, args[0]).data
            i32, i64, f64 = _ir.IntType(32), _ir.IntType(64), _ir.DoubleType()
            vd, i8p = _ir.VectorType(f64, _WIDTH), _ir.IntType(8).as_pointer()
            prefetch = _cgutils.get_or_insert_function(                 # (address, write, locality 3, data)
                builder.module, _ir.FunctionType(_ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
            f = builder.insert_element(_ir.Constant(vd, _ir.Undefined), args[1], _ir.Constant(i32, 0))
            f = builder.shuffle_vector(f, _ir.Constant(vd, _ir.Undefined),
                                       _ir.Constant(_ir.VectorType(i32, _WIDTH), [0] * _WIDTH))
            with _cgutils.for_range(builder, builder.udiv(args[2], _ir.Constant(args[2].type, 2 * _WIDTH))) as loop:
                i = builder.mul(loop.index, _ir.Constant(i64, 2 * _WIDTH))
                ahead = builder.bitcast(builder.gep(xd, [builder.add(i, _ir.Constant(i64, _SCALE_AHEAD))]), i8p)
                builder.call(prefetch, [ahead, _ir.Constant(i32, 1), _ir.Constant(i32, 3), _ir.Constant(i32, 1)])
                for half in (0, _WIDTH):
                    at = builder.bitcast(builder.gep(xd, [builder.add(i, _ir.Constant(i64, half))]), vd.as_pointer())
                    builder.store(builder.fmul(builder.load(at, align=8), f), at, align=8)
            return context.get_dummy_value()
        return sig, codegen
else:
    def _fused_vectors(q, p, out, table, terms, degree, first, n):
        _fused_scalar(q, p, out, table, terms, degree, first, n - n % _WIDTH)

    def _scale_vectors(x, factor, n):
        for i in range(n - n % (2 * _WIDTH)):
            x[i] *= factor


@_jit
def scale_row(x, factor):
    """``x *= factor`` in place for a contiguous float64 row: numpy's bytes (one IEEE product an element) with
    the row prefetched ahead; after :func:`grid_update_row` the row is no longer in cache, and numpy's multiply
    (the hardware prefetcher alone) measured ~0.15 ms slower over 2^20 elements in the same runs."""
    n = np.uint64(x.size)
    _scale_vectors(x, factor, n)
    for i in range(n - n % np.uint64(2 * _WIDTH), n):
        x[i] *= factor


@_jit
def _grid_piece(q, p, out, table, terms, degree, start, stop):
    """``out[i] = (series(δ_i) · e^{c·m_i}) · p[i]`` on ``[start, stop)`` (``out`` may be ``p``: each element is
    read before it is written): :func:`_fused_vectors`, then :func:`_fused_scalar` on the last ``n % 4``."""
    n = np.uint64(stop - start)
    first = np.uint64(start)
    _fused_vectors(q, p, out, table, terms, degree, first, n)
    done = n - n % np.uint64(_WIDTH)
    _fused_scalar(q, p, out, table, terms, degree, first + done, n - done)


@_jit
def _bool_piece(q, p, out, small, flip, start, stop):
    """``out[i] = ((z_i · (1 − small)) + small) · p[i]`` on ``[start, stop)``, ``z_i = q[i] XOR flip`` (``q`` a bool
    row read as uint8, ``flip`` 1 when ``c < 0``): numpy's block statement (``z`` cast to ``0.0``/``1.0``, times
    ``1 − small``, plus ``small``, times ``p``) element by element, the same IEEE operations in the same order
    (no fast-math: no FMA).  ``out`` may be ``p``.  LLVM vectorises this loop itself (no table look-up)."""
    rest = 1.0 - small                            # (numpy's scalar 1.0 - small, computed once as there)
    first = np.uint64(start)
    for k in range(np.uint64(stop) - first):
        i = first + k
        z = np.float64(q[i] ^ flip)
        out[i] = ((z * rest) + small) * p[i]


def _piece(q, p, out, args, start, stop):
    """A piece of a row for :func:`_update_row`: the float query's grid kernel (``args`` = ``(table, terms,
    degree)``) or the bool indicator's (``args`` = ``(small, flip)``); compiled, the choice is made by the type
    of ``args`` when the walk is compiled (below), run as Python, here."""
    if len(args) == 3:
        _grid_piece(q, p, out, args[0], args[1], args[2], start, stop)
    else:
        _bool_piece(q, p, out, args[0], args[1], start, stop)


if AVAILABLE:
    @_overload(_piece, jit_options={"nogil": True})
    def _piece_compiled(q, p, out, args, start, stop):
        if len(args) == 3:
            return lambda q, p, out, args, start, stop: _grid_piece(q, p, out, args[0], args[1], args[2],
                                                                    start, stop)
        return lambda q, p, out, args, start, stop: _bool_piece(q, p, out, args[0], args[1], start, stop)


@_jit
def grid_update_row(q, p, out, table, terms, degree):
    """``out = e^{c·q} · p`` (``out`` may be ``p``) and ``numpy.sum(out)``, for contiguous float64 rows ``q``,
    ``p``, ``out`` of one length, ``table`` the 4097 values ``e^{c·m/2^12}`` and ``terms`` the ``c^k/k!`` for
    ``k = 1..degree`` (padded to five).  ``q`` in ``[0, 1]`` (the callers validate)."""
    return _update_row(q, p, out, (table, terms, degree))


@_jit
def bool_update_row(q, p, out, small, flip):
    """``out = ((z · (1 − small)) + small) · p`` (``out`` may be ``p``) and ``numpy.sum(out)``, ``z = q XOR flip``:
    the bytes of :mod:`dpbook._mw_kernels`' bool block (``small = e^{−|c|}``, ``flip`` 1 when ``c < 0``), for a
    contiguous bool row ``q`` read as uint8 (a view) and float64 rows ``p``, ``out``; the walk, the sum and the
    pieces' sizes are :func:`grid_update_row`'s."""
    return _update_row(q, p, out, (small, flip))


@_jit
def _update_row(q, p, out, args):
    """The walk of both kernels: ``out`` computed piece by piece (:func:`_piece`) and summed as ``numpy.sum``.

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
    top, done = 0, 0
    starts[0], sizes[0] = 0, n
    while True:
        s, m = starts[top], sizes[top]
        if m <= _LEAF and s >= done:
            _piece(q, p, out, args, s, s + m)
            done = s + m
        half = m // 2
        half -= half % 8                          # where numpy splits a node of more than 128
        if m - half > 128:                        # a half is split again: descend into the left one
            on_right[top] = False
            top += 1
            starts[top], sizes[top] = s, half
            continue
        v = _pair_sum(out, s, m) if m > 128 else _base_sum(out, s, m)
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


@_jit
def grid_table_into(c, points, hi, lo, out):
    """``out[j] = exp(c · points[j])`` with the bytes of :func:`dpbook._mw_kernels.exp` (its steps element by
    element: ``k = rint(x·256/ln 2)``, Cody–Waite ``r``, the degree-4 polynomial, ``2^(j/256)`` from its table
    ``hi + lo``, then ``ldexp`` by ``⌊k/256⌋``, exact at these magnitudes), for
    :func:`dpbook._mw_kernels.grid_table` (``points`` the grid ``m/2^12``, ``|c| <= 30``: no clipping needed).
    ~30 µs for the 4097 entries against ~80 µs for numpy's thirty passes; tests/test_mw_numba.py compares the
    bytes."""
    for j in range(points.size):
        x = c * points[j]
        k = np.rint(x * _INV_STEP)
        r = (x - k * _STEP_HI) - k * _STEP_LO
        e = r * _C4                               # e^r - 1 = r + r^2 (1/2 + r (1/6 + r/24)), numpy's order
        e += _C3
        e *= r
        e += _C2
        e *= r
        e *= r
        e += r
        ki = np.int64(k)
        t = hi[ki & 255]
        e = e * t
        e += lo[ki & 255]
        e += t
        out[j] = math.ldexp(e, ki >> 8)
