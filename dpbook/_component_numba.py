"""The compiled form of :class:`dpbook.mwem._ComponentModel`'s fitting sweeps, pair tables and table (optional:
needs numba, the ``speed`` extra; imported by :func:`dpbook.mwem._component_kernels` on the first fit of a
component model, never with ``dpbook``: only the public rule :func:`dpbook.mwem._components_suit` builds one).

Each kernel does the numpy path's IEEE-754 operations in the numpy path's order, so a result never depends on
whether numba is installed (the numpy path is the reference and the fallback; tests/test_component_numba.py
compares the bytes).  No ``fastmath`` (no FMA, no reordered sum) and no math-library function: additions,
subtractions, products and quotients only; numpy's error model (a quotient by zero is IEEE's ``inf``/``nan``, as
numpy's, not an exception).  The orders replicated, as measured against numpy:

* ``np.add.reduce(rows, axis=away)`` over leading axes of a C-contiguous view (the axes after the reduced ones
  kept): every output element is ``0.0`` plus the reduced elements one at a time in C order of the reduced axes,
  i.e. in increasing order of the table's row index (for one kept cell, the row index grows with the reduced
  bits);
* ``np.bincount(flat, weights=w)``: each bin is ``0.0`` plus its weights one at a time in the order of ``w``;
* ``g.sum()`` of a contiguous float64 run: ``0.0`` plus numpy's pairwise sum (:func:`pairwise_sum`);
* elementwise statements (``t / m``, ``rows *= ratio[index]``, ``g /= s``, ``one[a] * one[b]``): one correctly
  rounded operation an element, in any loop order.
"""
from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:      # the extra is absent: the kernels below stay plain Python, and the loader answers None
    numba = None

#: Whether the kernels below are compiled (:func:`dpbook.mwem._component_kernels` uses them only then).
AVAILABLE = numba is not None
_jit = numba.njit(cache=True, nogil=True, error_model="numpy") if AVAILABLE else (lambda f: f)

_BLOCK = 128                # numpy's pairwise sum adds runs of at most this many with eight partial sums
_STACK = 64                 # depth of the explicit recursion stack of pairwise_sum (n < 2^63)

# The columns of a fitting step (one row of the ``steps`` matrix of fit_sweeps).
PART_ID, PART_SIZE, WHOLE, HCODE_START, LOW_START, WIDTH, LOW_COUNT, N_KEPT, SUMMED, TARGET_SIZE, SWAPPED = \
    range(11)
STEP_FIELDS = 11


@_jit
def _block_sum(a, start, n):
    """numpy's pairwise sum of ``a[start:start + n]`` for ``n <= 128`` (its base cases): fewer than 8 added left
    to right from ``-0.0``; else eight partial sums over runs of 8, combined as
    ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the tail left to right."""
    if n < 8:
        res = -0.0
        for k in range(n):
            res += a[start + k]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    for k in range(8, n - n % 8, 8):
        i = start + k
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for k in range(n - n % 8, n):
        res += a[start + k]
    return res


@_jit
def pairwise_sum(a, start, n):
    """``a[start:start + n].sum()`` as numpy computes it for contiguous float64: ``0.0`` (the identity) plus the
    pairwise sum, which splits a run of more than 128 at half its length rounded down to a multiple of 8 and
    adds the halves' sums (left + right), and sums a run of at most 128 by :func:`_block_sum`.  The recursion is
    walked with an explicit stack (numba's cache does not keep recursive functions reliably)."""
    if n <= _BLOCK:
        return 0.0 + _block_sum(a, start, n)
    starts = np.empty(_STACK, dtype=np.int64)
    sizes = np.empty(_STACK, dtype=np.int64)
    stage = np.zeros(_STACK, dtype=np.int64)     # 0: the left half is next, 1: the right half, 2: both summed
    values = np.empty(_STACK)
    top, held = 0, 0
    starts[0], sizes[0] = start, n
    while top >= 0:
        s, m = starts[top], sizes[top]
        if m <= _BLOCK:
            values[held] = _block_sum(a, s, m)
            held += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if stage[top] == 0:
            stage[top] = 1
            top += 1
            starts[top], sizes[top], stage[top] = s, half, 0
        elif stage[top] == 1:
            stage[top] = 2
            top += 1
            starts[top], sizes[top], stage[top] = s + half, m - half, 0
        else:
            held -= 1
            values[held - 1] = values[held - 1] + values[held]
            top -= 1
    return 0.0 + values[0]


@_jit
def _target(targets, first, i, swapped):
    """Entry ``i`` of a step's target (``targets[first:first + size]``), transposed as a ``2 × 2`` table when
    ``swapped`` (the set's attributes lie in its part in the reverse order): ``t.reshape(2, 2).T.reshape(-1)``."""
    if swapped:
        return targets[first + (i % 2) * 2 + i // 2]
    return targets[first + i]


@_jit
def _abs_max_into(current, seen, x):
    """One step of ``np.max(np.abs(...))`` over a stream (``seen``: whether ``current`` holds an entry yet): the
    running maximum of ``|x|``, NaN from the first NaN on (numpy's maximum propagates NaN)."""
    v = abs(x)
    if not seen:
        return v
    if current != current:
        return current
    if v > current or v != v:
        return v
    return current


@_jit
def _sum_rows(buffer, start, n_rows, width, hcode, summed, acc):
    """``np.add.reduce(rows, axis=away)`` of a step's view, into ``acc`` (one row of ``width`` a kept cell
    ``h``): each kept cell ``0.0`` plus its rows in increasing row order (the C order of the summed axes), or the
    row itself when nothing is summed away (``summed`` false: one row a kept cell)."""
    if summed:
        acc[:] = 0.0
    for row in range(n_rows):
        h = hcode[row]
        out = acc[h * width: (h + 1) * width]
        x = buffer[start + row * width: start + (row + 1) * width]
        if summed:
            for j in range(width):
                out[j] += x[j]
        else:
            for j in range(width):
                out[j] = x[j]


@_jit
def _scale_rows(buffer, start, n_rows, width, hcode, factors):
    """``rows *= ratio[index]``: each row times its kept cell's row of factors (``ratio`` read through the
    view's cell index)."""
    for row in range(n_rows):
        h = hcode[row]
        f = factors[h * width: (h + 1) * width]
        x = buffer[start + row * width: start + (row + 1) * width]
        for j in range(width):
            x[j] *= f[j]


@_jit
def _scale_and_sum_rows(buffer, start, n_rows, width, hcode, factors, next_hcode, summed, acc):
    """:func:`_scale_rows` of one step and :func:`_sum_rows` of the next step on the same part in one pass:
    every scaled cell is the same product, and each of the next step's kept cells still adds its rows in
    increasing row order (so the same sums)."""
    if summed:
        acc[:] = 0.0
    for row in range(n_rows):
        h, g = hcode[row], next_hcode[row]
        f = factors[h * width: (h + 1) * width]
        out = acc[g * width: (g + 1) * width]
        x = buffer[start + row * width: start + (row + 1) * width]
        if summed:
            for j in range(width):
                v = x[j] * f[j]
                x[j] = v
                out[j] += v
        else:
            for j in range(width):
                v = x[j] * f[j]
                x[j] = v
                out[j] = v


@_jit
def _scale_rows_by(buffer, start, n_rows, width, hcode, ratio):
    """:func:`_scale_rows` when the set's cell is the row's kept cell (no column bits): each row times
    ``ratio[h]``, the same products."""
    for row in range(n_rows):
        r = ratio[hcode[row]]
        x = buffer[start + row * width: start + (row + 1) * width]
        for j in range(width):
            x[j] *= r


@_jit
def _scale_by_and_sum_rows(buffer, start, n_rows, width, hcode, ratio, next_hcode, summed, acc):
    """:func:`_scale_and_sum_rows` when the set's cell is the row's kept cell: each row times ``ratio[h]``."""
    if summed:
        acc[:] = 0.0
    for row in range(n_rows):
        r = ratio[hcode[row]]
        g = next_hcode[row]
        out = acc[g * width: (g + 1) * width]
        x = buffer[start + row * width: start + (row + 1) * width]
        if summed:
            for j in range(width):
                v = x[j] * r
                x[j] = v
                out[j] += v
        else:
            for j in range(width):
                v = x[j] * r
                x[j] = v
                out[j] = v


@_jit
def _bincount(acc, n_kept, width, low, shift, size, m):
    """``np.bincount(flat, weights=summed.reshape(-1), minlength=size)`` with ``flat = (h << shift) | low[j]``:
    each bin ``0.0`` plus its entries in the order of the summed view.  A bin holds entries of one kept cell
    ``h`` only, so its order is that of ``j``: the kept cells' chains are interleaved (``j`` outer), and when
    ``shift`` is 0 (one bin a kept cell) each chain is a register."""
    if shift == 0 and (n_kept == 1 or n_kept == 2 or n_kept == 4):
        s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
        if n_kept == 1:
            for j in range(width):
                s0 += acc[j]
        elif n_kept == 2:
            a0, a1 = acc[:width], acc[width: 2 * width]
            for j in range(width):
                s0 += a0[j]
                s1 += a1[j]
        else:
            a0, a1 = acc[:width], acc[width: 2 * width]
            a2, a3 = acc[2 * width: 3 * width], acc[3 * width: 4 * width]
            for j in range(width):
                s0 += a0[j]
                s1 += a1[j]
                s2 += a2[j]
                s3 += a3[j]
        m[0] = s0
        if n_kept > 1:
            m[1] = s1
        if n_kept > 2:
            m[2] = s2
        if n_kept > 3:
            m[3] = s3
        for k in range(n_kept, size):
            m[k] = 0.0
        return
    m[:size] = 0.0
    for j in range(width):
        c = low[j]
        for h in range(n_kept):
            m[(h << shift) | c] += acc[h * width + j]


@_jit
def fit_sweeps(buffer, part_starts, part_sizes, id_starts, single, at, goal_firsts, steps, order, firsts, hcodes,
               lows, targets, tol, stall, sweeps):
    """The compiled form of :meth:`dpbook.mwem._ComponentModel._fit_numpy` (its sweeps, after its set-up).

    ``buffer`` holds every larger part's table (part ``i`` at ``part_starts[i]``, ``part_sizes[i]`` cells; the
    part whose id is ``p`` at ``id_starts[p]``: a step names its part by id); ``single`` the ``d × 2``
    one-attribute parts, of which rows ``at`` are fitted at once to their targets (``targets[goal_firsts[i]:]
    [:2]``); the rows ``order`` of ``steps`` the sets in larger parts, in the targets' order (columns named at the
    top of this module), each one's target ``TARGET_SIZE`` entries of ``targets`` from ``firsts[k]``;
    ``hcodes``/``lows`` the steps' views (a row's kept cell, a column's low bits of the set's cell).  Each sweep:
    the ones, then every step (the whole part set to its target, or its marginal, miss and ratio, and its part's
    cells scaled — in one pass with the next step's row sums when that step reads the same part), then the
    normalisations (``single`` by its rows' sums, each part by its pairwise sum); stops as the numpy loop does
    (``worst <= tol`` or ``worst > stall · previous``).  Returns the number of sweeps run."""
    n_steps = order.size
    longest = 1
    for k in range(n_steps):
        step = steps[order[k]]
        longest = max(longest, step[N_KEPT] * step[WIDTH], step[TARGET_SIZE])
    acc = np.empty(longest)
    m = np.empty(longest)
    ratio = np.empty(longest)
    factors = np.empty(longest)
    n_ones = at.size
    previous = np.inf
    done = 0
    for sweep in range(sweeps):
        done += 1
        worst = 0.0
        if n_ones:
            worst, seen, nonzero = 0.0, False, True
            for i in range(n_ones):
                for v in range(2):
                    x = single[at[i], v]
                    worst = _abs_max_into(worst, seen, x - targets[goal_firsts[i] + v])
                    seen = True
                    nonzero = nonzero and x != 0.0
            for i in range(n_ones):
                for v in range(2):
                    if nonzero or single[at[i], v] > 0:
                        single[at[i], v] = targets[goal_firsts[i] + v]
                    else:
                        single[at[i], v] = 0.0
        miss, seen, summed_ahead = 0.0, False, False
        for k in range(n_steps):
            step = steps[order[k]]
            start, size, swapped = id_starts[step[PART_ID]], step[TARGET_SIZE], step[SWAPPED]
            if step[WHOLE]:                          # the part is the set: set to its target
                nonzero = True
                for i in range(size):
                    x = buffer[start + i]
                    miss = _abs_max_into(miss, seen, x - _target(targets, firsts[k], i, swapped))
                    seen = True
                    nonzero = nonzero and x != 0.0
                for i in range(size):
                    if nonzero or buffer[start + i] > 0:
                        buffer[start + i] = _target(targets, firsts[k], i, swapped)
                    else:
                        buffer[start + i] = 0.0
                continue
            width, n_kept, shift = step[WIDTH], step[N_KEPT], step[LOW_COUNT]
            n_rows = step[PART_SIZE] // width
            hcode = hcodes[step[HCODE_START]: step[HCODE_START] + n_rows]
            low = lows[step[LOW_START]: step[LOW_START] + width]
            if not summed_ahead:
                _sum_rows(buffer, start, n_rows, width, hcode, step[SUMMED], acc[: n_kept * width])
            _bincount(acc, n_kept, width, low, shift, size, m)
            nonzero = True
            for i in range(size):
                miss = _abs_max_into(miss, seen, m[i] - _target(targets, firsts[k], i, swapped))
                seen = True
                nonzero = nonzero and m[i] != 0.0
            for i in range(size):
                if nonzero or m[i] > 0:
                    ratio[i] = _target(targets, firsts[k], i, swapped) / m[i]
                else:
                    ratio[i] = 0.0
            if shift:                                # ratio[index] of the view, one row a kept cell
                for h in range(n_kept):
                    for j in range(width):
                        factors[h * width + j] = ratio[(h << shift) | low[j]]
            summed_ahead = False
            if k + 1 < n_steps:
                after = steps[order[k + 1]]
                if after[PART_ID] == step[PART_ID] and not after[WHOLE]:
                    next_hcode = hcodes[after[HCODE_START]: after[HCODE_START] + n_rows]
                    if shift:
                        _scale_and_sum_rows(buffer, start, n_rows, width, hcode, factors, next_hcode,
                                            after[SUMMED], acc[: after[N_KEPT] * width])
                    else:
                        _scale_by_and_sum_rows(buffer, start, n_rows, width, hcode, ratio, next_hcode,
                                               after[SUMMED], acc[: after[N_KEPT] * width])
                    summed_ahead = True
            if not summed_ahead:
                if shift:
                    _scale_rows(buffer, start, n_rows, width, hcode, factors)
                else:
                    _scale_rows_by(buffer, start, n_rows, width, hcode, ratio)
        if seen and miss > worst:                    # Python's max(worst, miss)
            worst = miss
        for a in range(single.shape[0]):
            total = (0.0 + single[a, 0]) + single[a, 1]
            single[a, 0] /= total
            single[a, 1] /= total
        for i in range(part_starts.size):
            total = pairwise_sum(buffer, part_starts[i], part_sizes[i])
            part = buffer[part_starts[i]: part_starts[i] + part_sizes[i]]
            for j in range(part.size):
                part[j] /= total
        if worst <= tol or worst > stall * previous:
            break
        previous = worst
    return done


@_jit
def _add_halves(x, n_blocks, half):
    """``view[:, 0, :] += view[:, 1, :]`` for ``view = x.reshape(n_blocks, 2, half)``: one transform step."""
    for block in range(n_blocks):
        top = x[2 * block * half: (2 * block + 1) * half]
        bottom = x[(2 * block + 1) * half: (2 * block + 2) * half]
        for j in range(half):
            top[j] += bottom[j]


@_jit
def _superset_sums(g, start, c, low_bits, work, kept, sums):
    """The compiled form of :func:`dpbook.mwem._pair_sums` for the part ``g[start:start + 2^c]``: writes
    ``sums = (s_∅, s_k for each position k, s_kl for each pair k < l)`` (the ``triu`` order), each the same
    additions as there: the transform along the ``D`` row bits on a copy (``work``), then along the ``L`` column
    bits on the rows of at most two row bits, transposed as there (``kept``: one column of ``n_rows`` a row
    of the table, so that each step adds runs of whole rows)."""
    L = min(c, low_bits)
    D = c - L
    width = 1 << L
    size = 1 << c
    cells = work[:size]
    cells[:] = g[start: start + size]
    for axis in range(D):
        _add_halves(cells, 1 << axis, (size >> 1) >> axis)
    n_rows = 1 + D + D * (D - 1) // 2
    rows = np.empty(n_rows, dtype=np.int64)       # the row list of _pair_sums: 0, each bit, each pair of bits
    rows[0] = 0
    for k in range(D):
        rows[1 + k] = 1 << (D - 1 - k)
    q = 1 + D
    for k in range(D):
        for l in range(k + 1, D):
            rows[q] = (1 << (D - 1 - k)) | (1 << (D - 1 - l))
            q += 1
    for q in range(n_rows):                       # Y = R[rows].T, contiguous
        source = cells[rows[q] * width: (rows[q] + 1) * width]
        for j in range(width):
            kept[j * n_rows + q] = source[j]
    Y = kept[: width * n_rows]
    for axis in range(L):
        _add_halves(Y, 1 << axis, ((width >> 1) >> axis) * n_rows)
    sums[0] = Y[0]
    for k in range(c):
        if k < D:
            sums[1 + k] = Y[1 + k]
        else:
            sums[1 + k] = Y[(1 << (c - 1 - k)) * n_rows]
    q = 1 + c
    for k in range(c):
        for l in range(k + 1, c):
            if l < D:                             # both row bits
                pair = 1 + D
                for a in range(k):
                    pair += D - 1 - a
                sums[q] = Y[pair + l - k - 1]
            elif k < D:                           # one row bit, one column bit
                sums[q] = Y[(1 << (c - 1 - l)) * n_rows + 1 + k]
            else:                                 # both column bits
                sums[q] = Y[((1 << (c - 1 - k)) | (1 << (c - 1 - l))) * n_rows]
            q += 1


@_jit
def pair_tables_into(T, single, buffer, part_starts, part_attrs, attr_starts, low_bits, scratch):
    """The compiled form of :meth:`dpbook.mwem._ComponentModel._pair_tables_numpy` into ``T`` (``d × 2 × d × 2``):
    the 1-way tables (``single``, overwritten within each part by ``s_k`` and ``s_∅ − s_k``), every product
    ``one[a, v] · one[b, w]``, the diagonal, then within each part (attributes ``part_attrs[attr_starts[i]:
    attr_starts[i + 1]]``, table at ``part_starts[i]``) the pairs by inclusion–exclusion from the superset sums
    (:func:`_superset_sums`): ``s_ab``, ``s_a − s_ab``, ``s_b − s_ab``, ``((s_∅ − s_a) − s_b) + s_ab``.
    ``scratch``: room for a copy of the largest part, then its kept rows (:func:`dpbook.mwem._pair_scratch`)."""
    d = single.shape[0]
    one = single.copy()
    n_parts = part_starts.size
    longest = 1
    for i in range(n_parts):
        longest = max(longest, attr_starts[i + 1] - attr_starts[i])
    work = scratch[: 1 << longest]
    kept = scratch[1 << longest:]
    width = 1 + longest + longest * (longest - 1) // 2
    all_sums = np.empty(n_parts * width)
    for i in range(n_parts):
        c = attr_starts[i + 1] - attr_starts[i]
        sums = all_sums[i * width: (i + 1) * width]
        _superset_sums(buffer, part_starts[i], c, low_bits, work, kept, sums)
        for k in range(c):
            a = part_attrs[attr_starts[i] + k]
            one[a, 1] = sums[1 + k]
            one[a, 0] = sums[0] - sums[1 + k]
    flat = T.reshape(-1)
    for a in range(d):
        for v in range(2):
            x = one[a, v]
            out = flat[(a * 2 + v) * 2 * d: (a * 2 + v + 1) * 2 * d]
            for b in range(d):
                out[2 * b] = x * one[b, 0]
                out[2 * b + 1] = x * one[b, 1]
    for a in range(d):
        T[a, 0, a, 0] = one[a, 0]
        T[a, 1, a, 1] = one[a, 1]
    for i in range(n_parts):
        c = attr_starts[i + 1] - attr_starts[i]
        sums = all_sums[i * width: (i + 1) * width]
        total = sums[0]
        q = 1 + c
        for k in range(c):
            for l in range(k + 1, c):
                a, b = part_attrs[attr_starts[i] + k], part_attrs[attr_starts[i] + l]
                sa, sb, sab = sums[1 + k], sums[1 + l], sums[q]
                T[a, 1, b, 1] = sab
                T[b, 1, a, 1] = sab
                T[a, 1, b, 0] = sa - sab
                T[b, 0, a, 1] = sa - sab
                T[a, 0, b, 1] = sb - sab
                T[b, 1, a, 0] = sb - sab
                T[a, 0, b, 0] = ((total - sa) - sb) + sab
                T[b, 0, a, 0] = ((total - sa) - sb) + sab
                q += 1


@_jit
def table_into(out, single, buffer, part_starts, part_attrs, attr_starts, free):
    """The compiled form of :meth:`dpbook.mwem._ComponentModel._table_numpy`: ``out[u] = Π g_C(u_C)`` over the
    parts in order, then the free attributes ``free`` (rows of ``single``) in order, multiplied left to right
    as the numpy path's broadcast products (``t = t · f``).  A cell's index in a part is read from two look-up
    tables (the high and the low bits of ``u``; attribute ``a`` is bit ``d − 1 − a``); a piece whose attributes
    are all among the low bits multiplies every row by one row of factors, one among the high bits by one value
    a row."""
    d = single.shape[0]
    low_bits = min(d, 8)
    high_bits = d - low_bits
    n_parts = part_starts.size
    pieces = n_parts + free.size
    high = np.zeros((pieces, 1 << high_bits), dtype=np.int64)
    low = np.zeros((pieces, 1 << low_bits), dtype=np.int64)
    for p in range(pieces):
        if p < n_parts:
            first, count = attr_starts[p], attr_starts[p + 1] - attr_starts[p]
        else:
            first, count = -1, 1
        for t in range(count):
            a = part_attrs[first + t] if p < n_parts else free[p - n_parts]
            bit = d - 1 - a
            weight = 1 << (count - 1 - t)
            if bit >= low_bits:
                for h in range(1 << high_bits):
                    if (h >> (bit - low_bits)) & 1:
                        high[p, h] += weight
            else:
                for j in range(1 << low_bits):
                    if (j >> bit) & 1:
                        low[p, j] += weight
    width = 1 << low_bits
    factors = np.empty((pieces, width))           # a piece's factors along a row of out, and whether they are
    kind = np.zeros(pieces, dtype=np.int64)        # the same on every row (1), one value a row (2), or neither
    for p in range(pieces):
        low_only, high_only = True, True
        for h in range(1 << high_bits):
            low_only = low_only and high[p, h] == 0
        for j in range(width):
            high_only = high_only and low[p, j] == 0
        kind[p] = 1 if low_only else (2 if high_only else 0)
        if low_only:
            for j in range(width):
                factors[p, j] = (buffer[part_starts[p] + low[p, j]] if p < n_parts
                                 else single[free[p - n_parts], low[p, j]])
    for h in range(1 << high_bits):
        row = out[h * width: (h + 1) * width]
        for p in range(pieces):
            base = high[p, h]
            if kind[p] == 1:
                f = factors[p]
                if p == 0:
                    row[:] = f
                else:
                    for j in range(width):
                        row[j] = row[j] * f[j]
            elif kind[p] == 2:
                v = buffer[part_starts[p] + base] if p < n_parts else single[free[p - n_parts], base]
                if p == 0:
                    row[:] = v
                else:
                    for j in range(width):
                        row[j] = row[j] * v
            elif p < n_parts:
                start = part_starts[p] + base
                if p == 0:
                    for j in range(width):
                        row[j] = buffer[start + low[p, j]]
                else:
                    for j in range(width):
                        row[j] = row[j] * buffer[start + low[p, j]]
            else:
                a = free[p - n_parts]
                if p == 0:
                    for j in range(width):
                        row[j] = single[a, base + low[p, j]]
                else:
                    for j in range(width):
                        row[j] = row[j] * single[a, base + low[p, j]]
