"""Fast kernels of the multiplicative-weights update (private: the readable rules live in
:mod:`dpbook.multiplicative_weights`, tests/test_multiplicative_weights.py checks that these agree with them).

* :func:`exp_update` — ``p ∝ p · exp(c · q)`` for a dense query (``bool`` indicators without an ``exp`` per
  element; a float query's factors from :func:`grid_exp`), overflow-shifted, with a log-space guard against
  underflow; long rows block by block (a block's factors, times ``p``, summed while in cache), a float row on the
  grid and a bool row through the compiled :mod:`dpbook._mw_numba` when numba is installed
  (:func:`compiled_kernels`; the same bytes);
* :func:`grid_exp` — ``e^{c·q}`` for a float query ``q ∈ [0,1]``: ``q`` rounded to a multiple ``m`` of
  ``2^-12``, ``e^{c·m}`` from a 4097-entry table made per ``c``, ``e^{c(q−m)}`` a short series (the readable
  statement is :func:`grid_exp_reference`);
* :func:`support_update` — the same for rows that each update on one query given by its non-zeros
  ``(indices, values)`` (the generic :func:`dpbook.multiplicative_weights.mw_update`: never an ``N``-vector per query);
* :func:`marginal_cells_update` — many runs, each on its own marginal cell: scale the picked cells' slabs of the
  reshaped ``(2,)*d`` cube (:class:`dpbook.queries.MarginalWorkload`'s override);
* :class:`MarginalLayout` — whole marginals (all cells sharing an attribute set) updated in one pass, with the
  blockwise :func:`marginal_sum` (MWEM's ``measure="marginal"``, :func:`dpbook.mwem.mwem_practical`).

Same bytes on every CPU.  numpy picks its ``exp``/``log`` kernels by the CPU (on one with AVX-512 they round
differently in the last bit from the AVX2 path and from the C library for a few per cent of inputs), and
OpenBLAS picks its dot-product kernels the same way; an update that went through them made MWEM's output
depend on the machine.  So no kernel here calls ``np.exp``, ``np.log`` or a BLAS product: :func:`exp` and
:func:`exp_scalar` compute ``e^x`` from IEEE-754 additions, multiplications, ``rint`` and ``ldexp`` only (each
correctly rounded, hence the same on every SIMD path and every machine; within 1 ulp of the C library's ``exp``),
:func:`grid_exp` from additions, multiplications, a bitwise ``and`` and a table look-up (within
``(6 + |c|)·2^-53`` of the exact ``e^{c·q}``), the underflow guards rescale by powers of two (``frexp``/``ldexp``,
exact) instead of going through ``log``, and dot products are numpy sums (their order is fixed; the block path adds
its blocks' sums in numpy's pairwise order).  tests/test_cpu_dispatch.py runs MWEM on both dispatch paths, and
tests/test_mw_kernels.py the long-row paths (``N = 2^16``).
"""
from __future__ import annotations

import collections
import decimal
import functools
import math
import os

import numpy as np

# No __all__: a private module of unvalidated kernels (callers validate), outside the public API and its sweep.

OVERFLOW_SAFE = 700.0      # exp(700) ~ 1e304 < float64 max: no shift needed below this coefficient
TINY = 1e-15               # below this unnormalised mass, redo the row in log space
SLAB_SAFE = 30.0           # |c| <= 30: slab factors >= e^-30, no underflow trouble; beyond, the general path


# --------------------------------------------------------------------------- a machine-independent exp

def _powers_of_two_root(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """``2^(j/2^bits)`` for ``j = 0..2^bits-1`` as a float64 ``hi`` (correctly rounded) plus the float64 ``lo`` of
    the remainder, from exact decimal arithmetic (so the table does not depend on the C library either): the root
    ``r = 2^(1/2^bits)`` by ``bits`` correctly rounded square roots at 60 digits, its powers by products at 60
    digits (relative error below ``2^bits · 10^-59``), each rounded to 50 digits.  The same table as
    :func:`_powers_of_two_root_reference` (a test compares every entry) at a fiftieth of its cost, paid by every
    chapter that imports this module."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        root = decimal.Decimal(2)
        for _ in range(bits):
            root = root.sqrt()
        exact, power = [], decimal.Decimal(1)
        for _ in range(1 << bits):
            exact.append(power)
            power = power * root
        ctx.prec = 50
        exact = [+v for v in exact]                     # unary plus rounds to the context's 50 digits
        hi = [float(v) for v in exact]
        return np.array(hi), np.array([float(v - decimal.Decimal(h)) for v, h in zip(exact, hi)])


def _powers_of_two_root_reference(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The short reference of :func:`_powers_of_two_root`: each ``2^(j/2^bits)`` as a decimal power at 50 digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        exact = [decimal.Decimal(2) ** (decimal.Decimal(j) / (1 << bits)) for j in range(1 << bits)]
        hi = [float(v) for v in exact]
        return np.array(hi), np.array([float(v - decimal.Decimal(h)) for v, h in zip(exact, hi)])


_BITS = 8
_TABLE, _TABLE_LO = _powers_of_two_root(_BITS)     # 2^(j/256) = _TABLE[j] + _TABLE_LO[j]
_INV_STEP = 369.3299304675746                # 256 / ln 2
_STEP_HI = 0.0027076061232946813             # ln(2)/256 to 26 bits: k·_STEP_HI is exact for |k| < 2^27
_STEP_LO = 5.076760505425738e-11             # ln(2)/256 - _STEP_HI
_C2, _C3, _C4 = 1.0 / 2, 1.0 / 6, 1.0 / 24
_LN2_HI, _LN2_LO = _STEP_HI * 256, _STEP_LO * 256   # ln 2 = _LN2_HI + _LN2_LO (exact scalings of the split)
_X_LOW, _X_HIGH = -746.0, 710.0              # e^x is 0 below, inf above (in float64)
_BLOCK = 16384                               # exp works through big arrays in blocks that stay in cache


def exp(x, out=None) -> np.ndarray:
    """``e^x`` elementwise for a float64 array, the same bytes on every CPU and numpy dispatch path.

    ``x = (256 k' + j) ln(2)/256 + r`` with ``k = rint(256 x / ln 2)`` (Cody–Waite: ``k·(ln 2/256)_hi`` is
    exact), ``|r| <= ln(2)/512``; then ``e^x = 2^k' · 2^(j/256) · e^r``, with ``2^(j/256)`` from a correctly
    rounded table (plus the float64 of its remainder) and ``e^r - 1`` a degree-4 Taylor polynomial (truncation
    below 4e-17).  Every step is an IEEE-754 operation that is correctly rounded (``+``, ``×``, ``rint``,
    ``ldexp``, a table look-up), so the result does not depend on SIMD width or instruction set; it is within
    1 ulp of the C library's ``exp`` (tests/test_mw_kernels.py).  ``x`` is finite or ``-inf``
    (→ 0); ``out`` may be ``x``.  About 8x the cost of numpy's AVX-512 ``exp`` (benchmarks/bench_mwem.py)."""
    x = np.asarray(x, dtype=np.float64)
    if out is None:
        out = np.empty(x.shape)
    elif not out.flags.c_contiguous:                    # (the kernels pass contiguous buffers)
        out[...] = exp(x)
        return out
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    if flat_in.size == 0:
        return out
    scratch = _exp_scratch(min(flat_in.size, _BLOCK))
    for start in range(0, flat_in.size, _BLOCK):
        _exp_block(flat_in[start:start + _BLOCK], flat_out[start:start + _BLOCK], scratch)
    return out


def _exp_scratch(size: int) -> tuple:
    """The work arrays of :func:`_exp_block` for blocks of up to ``size`` elements."""
    return tuple(np.empty(size) for _ in range(5)) + tuple(np.empty(size, dtype=np.int32) for _ in range(2))


def _exp_block(xs, out, scratch) -> None:
    """:func:`exp` of one block ``xs`` (1-D, at most the scratch's length) into ``out`` (may be ``xs``)."""
    n = xs.size
    k_, r_, p_, t_, lo_, ki_, j_ = (a[:n] for a in scratch)
    if not (_X_LOW <= xs.min() and xs.max() <= _X_HIGH):      # (clipping an in-range block changes nothing)
        xs = np.clip(xs, _X_LOW, _X_HIGH, out=r_)
    np.multiply(xs, _INV_STEP, out=k_)
    np.rint(k_, out=k_)
    np.multiply(k_, _STEP_HI, out=p_)
    np.subtract(xs, p_, out=r_)
    np.multiply(k_, _STEP_LO, out=p_)
    r_ -= p_                                        # r = x - k·ln(2)/256, |r| <= ln(2)/512
    np.multiply(r_, _C4, out=p_)                    # p = e^r - 1 = r + r^2 (1/2 + r (1/6 + r/24))
    p_ += _C3
    p_ *= r_
    p_ += _C2
    p_ *= r_
    p_ *= r_
    p_ += r_
    np.copyto(ki_, k_, casting="unsafe")
    np.bitwise_and(ki_, (1 << _BITS) - 1, out=j_)   # j = k mod 256 (floored)
    np.take(_TABLE, j_, out=t_, mode="clip")        # (0 <= j < 256: "clip" is only the fast path)
    np.take(_TABLE_LO, j_, out=lo_, mode="clip")
    p_ *= t_
    p_ += lo_
    p_ += t_                                        # 2^(j/256) · e^r = hi + (hi·(e^r - 1) + lo)
    np.right_shift(ki_, _BITS, out=ki_)             # k' = floor(k / 256)
    np.ldexp(p_, ki_, out=out)


def exp_scalar(x: float) -> float:
    """:func:`exp` of one Python float, in Python arithmetic (the same operations, so the same bits, without
    numpy's per-call overhead)."""
    x = min(max(float(x), _X_LOW), _X_HIGH)
    k = round(x * _INV_STEP)                  # round half to even, as np.rint
    r = (x - k * _STEP_HI) - k * _STEP_LO
    p = (((r * _C4 + _C3) * r + _C2) * r) * r + r
    j = k & ((1 << _BITS) - 1)
    t = float(_TABLE[j])
    return math.ldexp((p * t + float(_TABLE_LO[j])) + t, k >> _BITS)


def exp_small(x) -> np.ndarray:
    """:func:`exp` for a short vector (a marginal's few cells): :func:`exp_scalar` element by element, which for
    a handful of values is several times faster than :func:`exp`'s thirty numpy passes."""
    x = np.asarray(x, dtype=np.float64)
    if x.size > 32:
        return exp(x)
    return np.array([exp_scalar(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


# --------------------------------------------------------------------------- e^{c·q} on a grid of q (dense queries)

GRID_BITS = 12
_GRID = 1 << GRID_BITS
_GRID_SHIFTER = 1.5 * 2.0 ** (52 - GRID_BITS)   # q + this, for q in [0, 1], is q rounded to a multiple of 2^-12
_GRID_INDEX = (1 << (GRID_BITS + 1)) - 1        # ... and its low 13 bits hold that multiple m (0 <= m <= 2^12)
GRID_C_MAX = 30.0                               # |c| up to this takes the grid; beyond, exp of c·q as before
#: (largest |c|, degree): the Taylor series of e^{c·δ}, |δ| <= 2^-13, cut after the degree whose remainder
#: (c·2^-13)^(n+1)/(n+1)! · e^(c·2^-13) is below 2^-56 (tests/test_mw_kernels.py checks the limits)
GRID_DEGREES = ((1 / 32, 2), (1.0, 3), (8.0, 4), (GRID_C_MAX, 5))


def grid_terms(c: float) -> tuple:
    """``c^k/k!`` for ``k = 1..n``, ``n`` the degree :data:`GRID_DEGREES` gives ``|c|`` (by multiplications and
    divisions only: ``pow`` comes from the C library)."""
    n = next(deg for limit, deg in GRID_DEGREES if abs(c) <= limit)
    terms, a = [], 1.0
    for k in range(1, n + 1):
        a = a * c / k
        terms.append(a)
    return tuple(terms)


_GRID_POINTS = np.arange(_GRID + 1) / _GRID      # m/2^12 for m = 0..2^12 (exact)
_TABLES: collections.OrderedDict = collections.OrderedDict()     # c's bits -> its table, most recent last
_TABLES_KEPT = 8


def grid_table(c: float) -> np.ndarray:
    """``e^{c·m/2^12}`` for ``m = 0..2^12`` (4097 values, :func:`exp`: the same bytes on every CPU), read-only.

    The last :data:`_TABLES_KEPT` coefficients' tables are kept, keyed by the bits of ``c`` (``0.0`` and ``-0.0``
    apart): a workload whose rounds repeat a coefficient (the IDCs' ``±η``) builds each table once; MWEM's
    coefficients are noisy reals that do not repeat, and pay the ~0.1 ms of :func:`exp` on 4097 values a round."""
    c = float(c)
    key = c.hex()
    table = _TABLES.get(key)
    if table is None:
        if _COMPILED and _COMPILED[1] is not None and USE_COMPILED:    # (numba already imported by the kernel)
            table = np.empty(_GRID + 1)
            _COMPILED[1](c, _GRID_POINTS, _TABLE, _TABLE_LO, table)   # the same bytes as exp, a third of its time
        else:
            table = exp(c * _GRID_POINTS)
        table.flags.writeable = False
        _TABLES[key] = table
        if len(_TABLES) > _TABLES_KEPT:
            _TABLES.popitem(last=False)
    else:
        _TABLES.move_to_end(key)
    return table


def grid_exp_reference(q, c: float) -> np.ndarray:
    """``e^{c·q}`` for ``q`` in ``[0, 1]`` and ``|c| <= 30`` as :func:`grid_exp` computes it, written plainly.

    Round ``q`` to the nearest multiple ``m`` of ``2^-12``; then ``δ = q − m`` is exact, ``|δ| <= 2^-13``, and
    ``e^{c·q} = e^{c·m} · e^{c·δ}``: the first factor from a table of the 4097 grid points (made per ``c`` with
    :func:`exp`), the second a short Taylor series (Horner).  Every step is an IEEE-754 operation, so the bytes
    do not depend on the CPU.  Relative error against the exact ``e^{c·q}``: a few ulp plus ``|c|`` ulp (the
    rounding of ``c·m``, as ``exp(c·q)`` has that of ``c·q``); tests/test_mw_kernels.py measures it."""
    q = np.asarray(q, dtype=np.float64)
    m = (q + _GRID_SHIFTER) - _GRID_SHIFTER               # the nearest multiple of 2^-12 (ties to even)
    delta = q - m                                         # exact
    terms = grid_terms(c)
    series = terms[-1] * delta                            # 1 + c·δ + (c·δ)^2/2 + ... by Horner
    for a in terms[-2::-1]:
        series = (series + a) * delta
    series = series + 1.0
    return series * grid_table(c)[np.rint(m * _GRID).astype(np.int64)]


def _grid_block(qb, table, terms, out, scratch) -> None:
    """:func:`grid_exp_reference` of one block ``qb`` into ``out`` (``out`` may not be ``qb``): the grid index read
    from the bits of ``q + 1.5·2^40`` (no conversion to integers), Horner in place."""
    n = qb.size
    t_, d_, e_, j_ = (a[:n] for a in scratch)
    np.add(qb, _GRID_SHIFTER, out=t_, dtype=np.float64)
    np.bitwise_and(t_.view(np.int64), _GRID_INDEX, out=j_)
    t_ -= _GRID_SHIFTER
    np.subtract(qb, t_, out=d_, dtype=np.float64)
    np.take(table, j_, out=e_, mode="clip")             # (0 <= j <= 2^12: "clip" is only the fast path)
    np.multiply(d_, terms[-1], out=out)
    for a in terms[-2::-1]:
        out += a
        out *= d_
    out += 1.0
    out *= e_


def _grid_scratch(size: int) -> tuple:
    return tuple(np.empty(size) for _ in range(3)) + (np.empty(size, dtype=np.int64),)


def grid_exp(q, c: float, out=None) -> np.ndarray:
    """``e^{c·q}`` elementwise for a float query ``q`` in ``[0, 1]`` and ``|c| <= GRID_C_MAX``: the bytes of
    :func:`grid_exp_reference`, block by block (about a third of :func:`exp`'s passes: one table look-up,
    four additions or subtractions, a bitwise and and the series)."""
    q = np.asarray(q)
    if out is not None and not out.flags.c_contiguous:
        out[...] = grid_exp(q, c)
        return out
    out = np.empty(q.shape) if out is None else out
    flat_q, flat_out = q.reshape(-1), out.reshape(-1)
    table, terms = grid_table(c), grid_terms(c)
    scratch = _grid_scratch(min(max(flat_q.size, 1), _BLOCK))
    for start in range(0, flat_q.size, _BLOCK):
        _grid_block(flat_q[start:start + _BLOCK], table, terms, flat_out[start:start + _BLOCK], scratch)
    return out


# --------------------------------------------------------------------------- dense queries

def exp_update(p, q, c, out=None) -> np.ndarray:
    """``p ∝ p · exp(c · q)`` renormalised (inputs already validated): ``p`` ``(N,)`` or ``(trials, N)``, ``q``
    float in ``[0,1]`` or ``bool``, ``c`` a float or one per row.  ``out`` may be ``p`` (in place).

    A float ``q`` with at least :data:`GRID_MIN` entries a row takes :func:`grid_exp` on the rows with
    ``|c| <= GRID_C_MAX`` (the others, and shorter rows, :func:`exp` of ``c·q``); long contiguous rows go block by
    block (:data:`FUSE_MIN`), with the bytes of this whole-array path."""
    c = np.asarray(c, dtype=np.float64)[..., None] if np.ndim(c) else float(c)
    shape = np.broadcast_shapes(p.shape, q.shape)
    if _fused(p, q, c, shape, out):
        return _exp_update_fused(p, q, c, shape, out)
    private_out = out is not None and not np.shares_memory(out, p) and not np.shares_memory(out, q)
    buf = out if private_out else np.empty(shape)
    if q.dtype == bool:
        # factor e^c on q, 1 off q, i.e. (after renormalising) 1 where the factor is larger and
        # small = e^{-|c|} where it is smaller; z marks the "larger" side.  factor = small + (1 - small)·z is
        # then exact on the small side (small + 0) and within 1 ulp of 1 on the other, never overflows, and
        # costs plain casts and multiplies (np.where / masked ufuncs on a random bool mask are ~20x slower).
        z = q ^ (np.asarray(c) < 0)                        # (a bool XOR; broadcasts per row for a batch)
        small = exp(-np.abs(c)) if np.ndim(c) else exp_scalar(-abs(c))
        buf[...] = z.view(np.uint8)
        buf *= 1.0 - small
        buf += small
        buf *= p
    elif shape[-1] >= GRID_MIN:
        B, Q2 = buf.reshape(-1, shape[-1]), np.broadcast_to(q, shape).reshape(-1, shape[-1])
        cs = np.broadcast_to(np.asarray(c, dtype=np.float64).reshape(-1), (B.shape[0],))
        shift = bool(np.any(cs > OVERFLOW_SAFE))
        for t in range(B.shape[0]):
            ct = float(cs[t]) if np.ndim(c) else c
            if abs(ct) <= GRID_C_MAX:
                grid_exp(Q2[t], ct, out=B[t])
            else:
                np.multiply(Q2[t], cs[t] if np.ndim(c) else c, out=B[t])   # (as below: float64 per row)
                if shift:
                    B[t] -= max(ct, 0.0)
                exp(B[t], out=B[t])
        buf *= p
    else:
        np.multiply(q, c, out=buf)
        if np.any(np.asarray(c) > OVERFLOW_SAFE):
            buf -= np.maximum(c, 0.0)                      # exp(c·q − c) <= 1; cancels on renormalising
        exp(buf, out=buf)
        buf *= p
    total = buf.sum(axis=-1, keepdims=True)
    bad = ~(total >= TINY)                                  # underflow (or a zero row): redo in log space
    if np.any(bad):
        log_space_rows(p, q, c, buf, bad[..., 0])
        total = np.where(bad, 1.0, total)
    buf *= 1.0 / total                                      # (a multiply is ~2x faster than a divide)
    if out is not None and buf is not out:
        out[...] = buf
        return out
    return buf


#: From this many elements a row, a float query's update takes :func:`grid_exp` (rows with ``|c| <= GRID_C_MAX``);
#: below it, the 4097-entry table would cost more than it saves.
GRID_MIN = 1 << 15
#: From this many elements a row, :func:`exp_update` works block by block (the factors of a block in cache, times
#: ``p``'s block, written straight to the output, and the block's sum taken there): one pass over ``q``, ``p``
#: and the output instead of five.  The bytes are the whole-array path's: every element takes the same
#: operations, and the row's sum adds the blocks' sums in the order of numpy's pairwise summation.
FUSE_MIN = 1 << 15
FUSE_LOW = -30.0           # factors >= e^{-30}: the row's mass cannot fall below TINY, so p is never needed again


def _fused(p, q, c, shape, out) -> bool:
    """Whether the block-by-block path applies: a long row, ``p`` and ``q`` C-contiguous of the output's
    shape (``q`` one row or one per row), ``out`` absent or ``p`` itself or separate from both, and no coefficient
    so large that the row could underflow (that case redoes the row in log space from the original ``p``)."""
    if shape[-1] < FUSE_MIN or p.shape != shape or not p.flags.c_contiguous or not q.flags.c_contiguous:
        return False
    if q.shape not in (shape, shape[-1:]) or np.min(c) < FUSE_LOW:
        return False
    if q.dtype == bool and np.max(c) > -FUSE_LOW:      # (a bool row's smallest factor is e^{-|c|})
        return False
    if out is None or out is p:
        return not np.shares_memory(q, p)
    return out.shape == shape and out.flags.c_contiguous and not np.shares_memory(out, p) \
        and not np.shares_memory(out, q)


@functools.lru_cache(maxsize=32)
def _leaves(n: int) -> tuple:
    """The pieces (start, stop) of a row of ``n`` at which numpy's pairwise summation splits it (in half, rounded
    down to a multiple of 8) until a piece has at most :data:`_BLOCK` elements."""
    pieces = []

    def split(start, size):
        if size <= _BLOCK:
            pieces.append((start, start + size))
            return
        half = size // 2 - (size // 2) % 8
        split(start, half)
        split(start + half, size - half)
    split(0, n)
    return tuple(pieces)


def _pairwise(sums, n: int) -> float:
    """The row's sum from its :func:`_leaves`' sums, added as numpy's pairwise summation adds them."""
    it = iter(sums)

    def add(size):
        if size <= _BLOCK:
            return next(it)
        half = size // 2 - (size // 2) % 8
        left = add(half)
        return left + add(size - half)
    return add(n)


#: Whether a long float row on the grid or bool row may take the compiled kernels (:mod:`dpbook._mw_numba`, when
#: numba is installed: the ``speed`` extra).  The bytes are the same either way; ``DPBOOK_NUMBA=0`` in the
#: environment turns it off (the numpy path is the reference and the fallback).
USE_COMPILED = os.environ.get("DPBOOK_NUMBA", "1") != "0"
_COMPILED: list = []    # [kernel, table builder, scale, bool kernel] or [None] * 4 once :func:`compiled_kernels` looked


def compiled_kernels():
    """The compiled kernel :func:`dpbook._mw_numba.grid_update_row` if :data:`USE_COMPILED` and numba imports, else
    ``None`` (with it, in ``_COMPILED``: the table builder, the scale and the bool row's kernel).  Imported on first
    use (only the block path of a row of at least :data:`FUSE_MIN` elements asks), never when ``dpbook`` is
    imported: numba's import and its first compile (cached on disk after it) cost a second or more."""
    if not USE_COMPILED:
        return None
    if not _COMPILED:
        from ._mw_numba import (AVAILABLE, bool_update_row, grid_table_into, grid_update_row,   # (without numba:
                                scale_row)                                                     # not AVAILABLE)
        kernels = [grid_update_row, grid_table_into, scale_row, bool_update_row]
        _COMPILED.extend(kernels if AVAILABLE else [None] * len(kernels))
    return _COMPILED[0]


def _padded_terms(terms) -> np.ndarray:
    """:func:`grid_terms` as the five coefficients the compiled kernel takes (zeros above the degree, unused)."""
    padded = np.zeros(5)
    padded[:len(terms)] = terms
    return padded


def _exp_update_fused(p, q, c, shape, out) -> np.ndarray:
    """:func:`exp_update` block by block (see :data:`FUSE_MIN`); ``out`` may be ``p``."""
    target = np.empty(shape) if out is None else out
    N = shape[-1]
    P, T = p.reshape(-1, N), target.reshape(-1, N)
    Qr = q.reshape(-1, N)
    batch = bool(np.ndim(c))        # a per-row array multiplies in float64; a scalar c is a weak Python float,
    cs = np.broadcast_to(np.asarray(c, dtype=np.float64).reshape(-1), (P.shape[0],))   # exactly as in exp_update
    shift = bool(np.any(cs > OVERFLOW_SAFE))            # as the whole-array path: shift every row, or none
    boolean = q.dtype == bool
    if boolean:
        smalls = exp(-np.abs(cs)) if batch else np.array([exp_scalar(-abs(c))])
    totals = np.empty((P.shape[0], 1))
    on_grid = q.dtype == np.float64 and bool(np.any(np.abs(cs) <= GRID_C_MAX))
    compiled = compiled_kernels() if on_grid or boolean else None       # (asked only when a row can use it)
    if compiled is None or not (boolean or bool(np.all(np.abs(cs) <= GRID_C_MAX))):   # some row: numpy blocks
        size = min(N, _BLOCK)
        scratch, grid_scratch = _exp_scratch(size), _grid_scratch(size)
        xs_all, z_all = np.empty(size), np.empty(size, dtype=bool)
    for t in range(P.shape[0]):
        qt, ct = Qr[t if Qr.shape[0] > 1 else 0], (cs[t] if batch else c)
        grid = not boolean and abs(ct) <= GRID_C_MAX
        if grid:
            table, terms = grid_table(float(ct)), grid_terms(float(ct))
            if compiled is not None:      # the same bytes, in one pass (dpbook/_mw_numba.py)
                totals[t, 0] = compiled(qt, P[t], T[t], table, _padded_terms(terms), len(terms))
                continue
        elif boolean:
            small = smalls[t] if batch else float(smalls[0])
            flip = bool(ct < 0)
            if compiled is not None:      # the same bytes, in one pass; the bool row read as uint8 (a view)
                totals[t, 0] = _COMPILED[3](qt.view(np.uint8), P[t], T[t], small, np.uint8(flip))
                continue
        sums = []
        for start, stop in _leaves(N):
            xs, dest = xs_all[:stop - start], T[t, start:stop]
            if grid:
                _grid_block(qt[start:stop], table, terms, xs, grid_scratch)
            elif boolean:
                z = z_all[:stop - start]
                np.bitwise_xor(qt[start:stop], flip, out=z)
                np.copyto(xs, z.view(np.uint8), casting="unsafe")
                xs *= 1.0 - small
                xs += small
            else:
                np.multiply(qt[start:stop], ct, out=xs)
                if shift:
                    xs -= max(ct, 0.0)
                _exp_block(xs, xs, scratch)
            np.multiply(xs, P[t, start:stop], out=dest)
            sums.append(dest.sum())
        totals[t, 0] = _pairwise(sums, N)
    total = totals.reshape(shape[:-1] + (1,))
    bad = ~(total >= TINY)                  # only for a p that is not a distribution (FUSE_LOW rules it out)
    if np.any(bad):
        if target is p:
            raise ValueError("p must be a probability vector (its updated mass underflowed)")
        log_space_rows(p, q, c, target, bad[..., 0])
        total = np.where(bad, 1.0, total)
    if compiled is not None:                # the same products, the row prefetched (dpbook/_mw_numba.py)
        for t, factor in enumerate((1.0 / total).reshape(-1).tolist()):
            _COMPILED[2](T[t], factor)
    else:
        target *= 1.0 / total
    return target


def log_space_rows(p, q, c, out, rows) -> None:
    """Write ``softmax(log p + c·q)`` into the flagged rows of ``out`` (the underflow guard), without a ``log``:
    with ``p = m·2^e`` (``frexp``, exact), ``p·e^{c·q} = m·e^{c·q + e·ln 2}``, shifted by the largest exponent."""
    p2, q2, out2 = np.atleast_2d(p), np.atleast_2d(q), np.atleast_2d(out)
    c2 = np.broadcast_to(np.asarray(c, dtype=np.float64).reshape(-1, 1), (p2.shape[0], 1))
    for i in np.flatnonzero(np.atleast_1d(rows)):           # a loop over the few bad *trials*, not over |X|
        qi = q2[i if q2.shape[0] > 1 else 0].astype(np.float64)
        mantissa, power = np.frexp(p2[i])                   # p = mantissa · 2^power, mantissa in [0.5, 1) or 0
        g = c2[i, 0] * qi + power * _LN2_HI + power * _LN2_LO
        g[mantissa == 0] = -np.inf                          # p = 0 stays 0 (exp(-inf) = 0, never inf · 0)
        g -= g.max() if np.any(mantissa > 0) else 0.0
        g = mantissa * exp(g)                               # the largest weight is >= 1/2: no underflow of the sum
        out2[i] = g / g.sum()


# --------------------------------------------------------------------------- one query given by its support

def support_update(P, rows, indices, values, c) -> None:
    """``P[r] ∝ P[r] · exp(c[r] · q)`` in place for the listed ``rows`` of ``P`` (``(trials, N)``), ``q`` the query
    with non-zeros ``values`` at ``indices``: touches the support, then one scale per row (shifted by
    ``max(c, 0)`` so no factor exceeds 1; a row whose mass underflows is recomputed in log space)."""
    c = np.asarray(c, dtype=np.float64).reshape(-1, 1)
    shift = np.maximum(c, 0.0)
    block = P[rows]
    block *= exp(-shift)                                    # e^{c·0 − shift} off the support
    block[:, indices] *= exp(c * values[None, :])           # e^{c·q}·e^{−shift} on it (together: e^{c·q − shift})
    total = block.sum(axis=1, keepdims=True)
    bad = ~(total >= TINY)
    for t in np.flatnonzero(bad[:, 0]):                     # underflow guard (extreme |c| only)
        q = np.zeros(P.shape[1])
        q[indices] = values
        log_space_rows(P[rows[t]], q, c[t, 0], block[t], np.array([True]))
    block *= 1.0 / np.where(bad, 1.0, total)
    P[rows] = block


# --------------------------------------------------------------------------- marginal cells over {0,1}^d

def marginal_cells_update(P, d, cells, picks, coefficient) -> None:
    """``P[t] ∝ P[t] · exp(coefficient[t] · q_{picks[t]})`` in place for many runs at once (``|c| <= SLAB_SAFE``):
    ``P *= e^{−max(c,0)}``, then each picked cell's slab (grouped by cell, a loop over the distinct picks, not
    over ``|X|``) ``*= e^{c}``, then renormalise."""
    P *= exp(-np.maximum(coefficient, 0.0))[:, None]
    ratio = exp(coefficient)                                   # e^c on the cell, relative to the rest
    cube = P.reshape((P.shape[0],) + (2,) * d)
    for j in np.unique(picks):
        rows = np.flatnonzero(picks == j)
        S, v = cells[j]
        where = dict(zip(S, v))
        index = (rows,) + tuple(where.get(a, slice(None)) for a in range(d))
        cube[index] *= ratio[rows].reshape((-1,) + (1,) * (d - len(S)))
    P /= P.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- whole marginals

def cube_blocks(d: int, S) -> tuple[list, list]:
    """The ``(2,)*d`` cube of a histogram over ``{0,1}^d`` with each run of attributes outside ``S`` merged into one
    axis: ``(shape, keep)``, the block shape and the positions of ``S``'s axes in it (a marginal on ``S`` sums the
    other axes away)."""
    shape, keep, run = [], [], 0
    for a in range(d):
        if a in S:
            if run:
                shape.append(1 << run)
                run = 0
            keep.append(len(shape))
            shape.append(2)
        else:
            run += 1
    if run:
        shape.append(1 << run)
    return shape, keep


class MarginalLayout:
    """Per unit (cells sharing an attribute set ``S``): ``S`` sorted, each cell's index in the ``(2,)*|S|``
    grid (``flat``, ``-1`` padded), and the merged block shape of the cube (the attributes of ``S`` stay axes
    of length 2; each run of other attributes becomes one axis) with the axes a marginal sums away."""

    def __init__(self, d, cells, units, sensitivity=None, replace_sensitivity=None):
        self.d, self.cells, self.units = d, cells, units
        self.sets, self.shapes, self.away, self.fshapes = [], [], [], []
        self.sensitivity = sensitivity     # per unit: the add/remove L1 sensitivity of its cell counts
        self.replace_sensitivity = replace_sensitivity     # ... and the replace-one one
        self.flat = np.full(units.shape, -1, dtype=np.int64)
        for u, row in enumerate(units):
            S = tuple(sorted(cells[row[0]][0]))
            for t, j in enumerate(row[row >= 0]):
                where = dict(zip(*cells[j]))
                self.flat[u, t] = sum(where[a] << (len(S) - 1 - s) for s, a in enumerate(S))
            shape, keep = cube_blocks(d, S)
            self.sets.append(S)
            self.shapes.append(tuple(shape))
            self.away.append(tuple(1 + t for t in range(len(shape)) if t not in keep))
            self.fshapes.append(tuple(2 if t in keep else 1 for t in range(len(shape))))
        self.width = 1 << max(len(S) for S in self.sets)
        self.real = [self.flat[u][self.flat[u] >= 0] for u in range(len(self.sets))]       # one run's fast path
        self.away1 = [tuple(t - 1 for t in away) for away in self.away]
        self.ordered = [np.array_equal(r, np.arange(1 << len(S))) for r, S in zip(self.real, self.sets)]

    def step_one(self, p, u, measured, n):
        """:meth:`tables` + :meth:`update` for a single run ``p`` (shape ``(N,)``) on unit ``u``, in place, with
        the fewest numpy calls (replay makes thousands of these); returns the cell answers before the update."""
        table = marginal_sum(p, self.shapes[u], self.away1[u])
        if self.ordered[u]:                                       # the unit is the whole grid, in order
            here = table
            grid = (measured - n * here) / (2.0 * n)
        else:
            here = table[self.real[u]]
            grid = np.zeros(table.size)
            grid[self.real[u]] = (measured - n * here) / (2.0 * n)
        grid -= grid.max()
        factor = exp_small(grid)
        total = float((table * factor).sum())                    # (not `@`: BLAS kernels differ by CPU)
        if not total > 1e-250:                                   # underflow guard (tiny ε only)
            self.scale(p, u, factor)
            p[...] = log_space_renormalise(p)
            return here
        factor /= total
        self.scale(p, u, factor)
        return here

    def scale(self, p, u, factor):
        """``p *= factor[x_S]`` in one pass.  Broadcasting a ``(.., 2, .., 2)`` factor over short trailing axes is
        slow in numpy, so the factor is laid out over the whole suffix from ``S``'s first axis on when that
        suffix is small (``<= 2^16``), and the cube multiplied row by row."""
        shape, fshape = self.shapes[u], self.fshapes[u]
        if p.size <= 1 << 14:
            p.reshape(shape)[...] *= factor.reshape(fshape)
            return
        t0 = fshape.index(2)
        suffix = int(np.prod(shape[t0:]))
        if suffix <= 1 << 16:
            tile = np.broadcast_to(factor.reshape(fshape[t0:]), shape[t0:]).reshape(-1)
            if suffix < 4096 and p.size >= 4096:          # short rows: repeat the tile to rows of 4096
                tile, suffix = np.tile(tile, 4096 // suffix), 4096
            p.reshape(-1, suffix)[...] *= tile
        else:
            p.reshape(shape)[...] *= factor.reshape(fshape)

    def tables(self, P, picks):
        """Each run's marginal table of ``P`` on its picked unit's ``S``: ``(R, 2^|S|)`` (flattened grid)."""
        R = P.shape[0]
        out = np.zeros((R, self.width))
        for u in np.unique(picks):
            rows = np.flatnonzero(picks == u)
            block = (P if rows.size == R else P[rows]).reshape((rows.size,) + self.shapes[u])
            out[rows, :1 << len(self.sets[u])] = block.sum(axis=self.away[u]).reshape(rows.size, -1)
        return out

    def cell_answers(self, tables, picks):
        """The picked units' cell answers read off the tables: ``(R, g)`` (0 on padding)."""
        flat = self.flat[picks]
        return np.where(flat >= 0, np.take_along_axis(tables, np.maximum(flat, 0), axis=1), 0.0)

    def update(self, P, picks, coefficient, tables) -> None:
        """``P[t] ∝ P[t] · exp(Σ_{c in the unit} coefficient[t, c] · q_c)``: the cells of one marginal are
        disjoint slabs, so this is one multiply by a ``(2,)*|S|`` factor grid broadcast over the cube, and the
        normaliser ``Σ_v table_v e^{c_v}`` comes from the marginal table (one pass in all).  Factors are
        shifted by the row's largest coefficient (``<= 1``: no overflow); a row whose normaliser underflows
        is renormalised in log space."""
        R = P.shape[0]
        for u in np.unique(picks):
            rows = np.flatnonzero(picks == u)
            size = 1 << len(self.sets[u])
            real = self.flat[u] >= 0
            grid = np.zeros((rows.size, size))
            grid[:, self.flat[u][real]] = coefficient[rows][:, real]
            grid -= grid.max(axis=1, keepdims=True)
            factor = exp(grid)
            total = (tables[rows, :size] * factor).sum(axis=1)
            ok = total > 1e-250
            factor[ok] /= total[ok, None]
            f = factor.reshape((rows.size,) + self.fshapes[u])
            cube = P.reshape((R,) + self.shapes[u])
            if rows.size == R:
                cube *= f
            else:
                cube[rows] *= f
            for t in rows[~ok]:                                   # underflow guard (tiny ε only)
                P[t] = log_space_renormalise(P[t])


def marginal_sum(p, shape, away) -> np.ndarray:
    """The flattened table of ``p`` (viewed with ``shape``) summed over the axes ``away`` — the same numbers as
    ``p.reshape(shape).sum(axis=away).ravel()``, which numpy computes up to 100x slower than a copy when the kept
    axes are short and innermost.  Here each reduction is a sum over the leading axis of a C-contiguous block
    whose rows are made at least 512 long.  Small universes (``<= 2^14``) take numpy's sum: there the cost is
    the call overhead, not memory."""
    if p.size <= 1 << 14:
        return p.reshape(shape).sum(axis=away).reshape(-1)
    arr, pre = p.reshape(1, -1), 1
    for t, size in enumerate(shape):
        if t not in away:
            pre *= size                                   # a kept axis: it joins the leading (kept) part
            arr = arr.reshape(pre, -1)
            continue
        after = arr.shape[1] // size
        arr = np.stack([sum_leading(block.reshape(size, after)) for block in arr])
    return arr.reshape(-1)


def sum_leading(block) -> np.ndarray:
    M, B = block.shape
    if M <= 16:                                           # few long rows: add them (numpy's reduce is slow here)
        out = block[0].copy()
        for row in block[1:]:
            out += row
        return out
    if B >= 512:
        return block.sum(axis=0)
    r = min(M, 512 // B)                                  # powers of two: r divides M
    return block.reshape(M // r, r * B).sum(axis=0).reshape(r, B).sum(axis=0)



def log_space_renormalise(p):
    """``p`` renormalised without underflow (the guard; uniform if every entry is 0): scaled by the power of two
    ``2^-e`` of its largest binary exponent (``frexp``/``ldexp``: exact, no ``log``), then divided by its sum."""
    p = np.maximum(p, 0.0)
    mantissa, power = np.frexp(p)
    if not np.any(mantissa > 0):
        return np.full_like(p, 1.0 / p.size)
    g = np.ldexp(mantissa, power - power[mantissa > 0].max())
    return g / g.sum()
