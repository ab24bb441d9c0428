"""The compiled form of :func:`dpbook.mwem._fit_targets` (optional: needs numba, the ``speed`` extra; imported by
:func:`dpbook.mwem._estimator_kernel` on the first fit of a problem with ``d >= _COMPONENTS_MIN_D``, never with
``dpbook``).

One call a round, :func:`fit_targets`, does what the numpy path does in a few hundred numpy calls on vectors of
16-140 numbers (where the time went was the calls, not the arithmetic):

* the new measurements into the running parity sums (:func:`dpbook.mwem._parity_estimates`): their masks merged
  into the sorted masks reached so far, each one's Walsh–Hadamard transform (:func:`dpbook.mwem._hadamard_rows`),
  its precision and precision-weighted transform added per mask in the order measured;
* the empirical-Bayes shrinkage (:func:`dpbook.mwem._shrink`), one order at a time, the prior variance by the
  plain bisection of :func:`dpbook.mwem._prior_variance_reference` (the result of the numpy path's batches) and
  the independent table's means of :func:`dpbook.mwem._independence_means`;
* each maximal set's table (:func:`dpbook.mwem._consistent_groups`), clipped, normalised and floored
  (:func:`dpbook.mwem._fit_targets`).

The bytes are the numpy path's: the same IEEE-754 operations in the same order, element by element; no
``fastmath`` (LLVM then neither fuses a multiply and an add nor reorders a sum), no ``exp``/``log``; every sum in
the order of numpy's pairwise summation of a contiguous float64 run (:func:`dpbook._component_numba.pairwise_sum`,
which the component model's kernels use too).  tests/test_estimator_numba.py compares the bytes with the numpy path
piece by piece on seeded random cases, tests/test_adaptive_compiled.py over whole runs (with and without numba,
numba's generic CPU target, numpy's AVX-512 kernels off); the numpy path is the
reference and the fallback.  The first use compiles every kernel (~14 s of CPU, once: cached on disk); later
processes load them from the cache (~0.5 s with numba's import).
"""
from __future__ import annotations

import numpy as np

from ._component_numba import pairwise_sum

try:
    import numba
except ImportError:      # (also numba's answer to a numpy it does not support) the extra is absent
    numba = None

#: Whether the kernels below are compiled; without numba they are plain Python (the module still imports, and
#: :func:`dpbook.mwem._estimator_kernel` answers ``None``: the numpy path runs).
AVAILABLE = numba is not None
_jit = numba.njit(cache=True, nogil=True) if AVAILABLE else (lambda f: f)

_BISECTIONS = 64       # dpbook.mwem._PRIOR_BISECTIONS (tests/test_estimator_numba.py checks they agree)
_FLOOR = 1e-12         # dpbook.mwem._PRIOR_FLOOR (likewise)


@_jit
def _hadamard_into(h, start, s):
    """:func:`dpbook.mwem._hadamard` in place on ``h[start:start + 2^s]``: per axis (first attribute first), each
    pair ``(a, b)`` of cells that differ in that attribute becomes ``(a + b, a − b)``."""
    for axis in range(s):
        half = 1 << (s - 1 - axis)
        for block in range(1 << axis):
            low = start + block * 2 * half
            for j in range(low, low + half):
                a = h[j]
                b = h[j + half]
                h[j] = a + b
                h[j + half] = a - b


@_jit
def _score(square, variance, tau2, terms):
    """The score of :func:`dpbook.mwem._prior_variance` at ``tau2``: ``Σ_T (f̂_T² − τ² − v_T) / (τ² + v_T)²``,
    each term as numpy computes it (``total = τ² + v``, then ``(square − total) / (total · total)``) and their
    sum in numpy's order; ``terms``: scratch of at least ``square.size``."""
    for k in range(square.size):
        total = tau2 + variance[k]
        terms[k] = (square[k] - total) / (total * total)
    return pairwise_sum(terms, 0, square.size)


@_jit
def prior_variance(estimate, variance, high):
    """:func:`dpbook.mwem._prior_variance_reference` (whose result the numpy path's batched bisection gives): ``0``
    when the score at ``0`` is ``<= 0``, ``high`` when the score at ``high`` is ``>= 0``, else the midpoint of the
    interval after :data:`_BISECTIONS` bisections (``lo`` moves to a midpoint of positive score, ``hi`` else).  A
    midpoint equal to an end of its interval ends the walk early: every later step would keep the interval."""
    square = estimate * estimate
    terms = np.empty(square.size)
    if _score(square, variance, 0.0, terms) <= 0.0:
        return 0.0
    if _score(square, variance, high, terms) >= 0.0:
        return high
    lo, hi = 0.0, high
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if _score(square, variance, mid, terms) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@_jit
def _popcount(mask):
    """The number of set bits of a non-negative mask (:func:`dpbook.mwem._popcount` of one mask)."""
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


@_jit
def subset_masks(set_mask, out, start):
    """:meth:`dpbook.mwem._AdaptivePlan.masks` of the set whose bits are ``set_mask`` (attribute ``a`` = bit
    ``d−1−a``, the set's attributes in increasing order: its highest bit first) into ``out[start:start + 2^s]``:
    the mask of each subset in Hadamard order (local index ``t``, its bit ``s−1−i`` choosing the set's ``i``-th
    attribute).  Returns ``2^s``."""
    s = _popcount(set_mask)
    bits = np.empty(s, dtype=np.int64)        # the set's bits, highest first
    i, rest = 0, set_mask
    for b in range(62, -1, -1):
        if (rest >> b) & 1:
            bits[i] = np.int64(1) << b
            i += 1
    for t in range(1 << s):
        mask = np.int64(0)
        for i in range(s):
            if (t >> (s - 1 - i)) & 1:
                mask += bits[i]
        out[start + t] = mask
    return 1 << s


@_jit
def _all_subset_masks(set_masks):
    """:func:`subset_masks` of each set of ``set_masks``, one run after another; and where each run starts (one
    more entry: the total)."""
    starts = np.zeros(set_masks.size + 1, dtype=np.int64)
    for k in range(set_masks.size):
        starts[k + 1] = starts[k] + (np.int64(1) << _popcount(set_masks[k]))
    out = np.empty(starts[-1], dtype=np.int64)
    for k in range(set_masks.size):
        subset_masks(set_masks[k], out, starts[k])
    return out, starts


@_jit
def _find(sorted_masks, mask):
    """``numpy.searchsorted(sorted_masks, mask)`` (the first position whose mask is ``>= mask``), by bisection."""
    lo, hi = 0, sorted_masks.size
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_masks[mid] < mask:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def merge_masks(unique, precision, weighted, new_masks):
    """The merge of :func:`dpbook.mwem._parity_estimates`: ``unique`` (sorted masks) with ``new_masks`` joined
    (sorted, distinct), and ``precision``, ``weighted`` carried to the merged positions (a new mask starts at 0).
    The same arrays when every new mask is already there."""
    missing = False
    for mask in new_masks:
        at = _find(unique, mask)
        if at >= unique.size or unique[at] != mask:
            missing = True
            break
    if not missing:
        return unique, precision, weighted
    every = np.sort(np.concatenate((unique, new_masks)))
    merged = np.empty(every.size, dtype=np.int64)   # (numpy's union1d: sorted, each mask once)
    size = 0
    for k in range(every.size):
        if size == 0 or every[k] != merged[size - 1]:
            merged[size] = every[k]
            size += 1
    merged = merged[:size]
    new_precision = np.zeros(merged.size)
    new_weighted = np.zeros(merged.size)
    for k in range(unique.size):
        at = _find(merged, unique[k])
        new_precision[at] = precision[k]
        new_weighted[at] = weighted[k]
    return merged, new_precision, new_weighted


@_jit
def add_measurements(unique, precision, weighted, new_masks, starts, new_values, new_scales):
    """The sums of :func:`dpbook.mwem._parity_estimates` (in place): each new measurement ``k`` (its ``2^|S|``
    masks and values ``new_masks[starts[k]:starts[k + 1]]`` and the same run of ``new_values``, ``new_scales[k]``
    its Laplace scale ``b``), in the order measured: its values' Walsh–Hadamard transform
    (:func:`dpbook.mwem._hadamard_rows`), ``inv = 1 / ((2^|S| · 2) · b · b)`` added to each of its masks'
    precision and ``inv · value`` to its weighted sum."""
    values = new_values.copy()
    for k in range(new_scales.size):
        start, cells = starts[k], starts[k + 1] - starts[k]
        _hadamard_into(values, start, _bit_index(cells))
        b = new_scales[k]
        inv = 1.0 / (float(cells) * 2.0 * b * b)
        for j in range(start, start + cells):
            at = _find(unique, new_masks[j])
            precision[at] += inv
            weighted[at] += inv * values[j]


@_jit
def shrink(unique, precision, weighted, n, d, high):
    """:func:`dpbook.mwem._shrink` of the parity estimates ``weighted / precision`` (variances ``1 / precision``):
    per order ``j = |T|`` ascending, the deviations from the prior means, the prior variance
    (:func:`prior_variance` on ``[0, high]``), the posterior means ``m + dev · (τ² / (τ² + v))``; after order 1,
    the means of every order ``>= 2`` are the independent table's (:func:`dpbook.mwem._independence_means`:
    ``n`` times each attribute's ``f_a / n``, attributes in increasing order); ``f_∅ = n``.  Returns ``f`` and
    the prior variance of each order (``nan`` for an order no mask has)."""
    size = unique.size
    estimate = weighted / precision
    variance = 1.0 / precision
    order = np.empty(size, dtype=np.int64)
    for k in range(size):
        order[k] = _popcount(unique[k])
    f = np.zeros(size)
    mean = np.zeros(size)
    tau2s = np.empty(d + 1)
    tau2s[:] = np.nan
    ends = np.zeros(d + 2, dtype=np.int64)         # each order's masks in increasing order, orders ascending
    for k in range(size):
        ends[order[k] + 1] += 1
    for j in range(d + 1):
        ends[j + 1] += ends[j]
    by_order = np.empty(size, dtype=np.int64)
    filled = ends[:d + 1].copy()
    for k in range(size):
        by_order[filled[order[k]]] = k
        filled[order[k]] += 1
    for j in range(1, d + 1):
        at = by_order[ends[j]: ends[j + 1]]
        if at.size == 0:
            continue
        dev = np.empty(at.size)
        var = np.empty(at.size)
        for k in range(at.size):
            dev[k] = estimate[at[k]] - mean[at[k]]
            var[k] = variance[at[k]]
        tau2 = prior_variance(dev, var, high)
        tau2s[j] = tau2
        for k in range(at.size):
            f[at[k]] = mean[at[k]] + dev[k] * (tau2 / (tau2 + var[k]))
        if j == 1:
            ratio = np.zeros(d)               # f_a / n, 0 for an attribute no measurement reaches
            for k in range(at.size):          # attribute a is the mask 2^(d-1-a)
                ratio[d - 1 - _bit_index(unique[at[k]])] = f[at[k]]
            ratio = ratio / float(n)
            for k in range(size):
                if order[k] >= 2:
                    product = float(n)
                    for a in range(d):
                        if (unique[k] >> (d - 1 - a)) & 1:
                            product = product * ratio[a]
                    mean[k] = product
    for k in range(size):
        if unique[k] == 0:
            f[k] = float(n)
    return f, tau2s


@_jit
def _bit_index(mask):
    """The index of the highest set bit of a positive mask."""
    index = -1
    while mask:
        mask >>= 1
        index += 1
    return index


@_jit
def targets(unique, f, set_masks, starts):
    """:func:`dpbook.mwem._fit_targets`' tables, one run ``starts[k]:starts[k + 1]`` of ``2^|S|`` cells per
    maximal set (``set_masks`` their subsets' masks in Hadamard order): the fitted parity sums of its masks,
    their Walsh–Hadamard transform divided by ``2^|S|`` (:func:`dpbook.mwem._consistent_groups`), clipped at 0,
    divided by the row's sum (numpy's order) when it is positive and else uniform, floored at :data:`_FLOOR`
    (``numpy.maximum``'s rule: the first operand when it is ``>=`` the second or NaN)."""
    out = np.empty(set_masks.size)
    for k in range(starts.size - 1):
        start, cells = starts[k], starts[k + 1] - starts[k]
        for j in range(start, start + cells):
            out[j] = f[_find(unique, set_masks[j])]
        _hadamard_into(out, start, _bit_index(cells))
        scale = float(cells)
        for j in range(start, start + cells):
            v = out[j] / scale
            out[j] = v if (v >= 0.0 or v != v) else 0.0
        total = pairwise_sum(out, start, cells)
        if total > 0.0:
            for j in range(start, start + cells):
                out[j] = out[j] / total
        else:
            for j in range(start, start + cells):
                out[j] = 1.0 / float(cells)
        for j in range(start, start + cells):
            v = out[j]
            out[j] = v if (v >= _FLOOR or v != v) else _FLOOR
    return out


@_jit
def add_maximal(maximal, new_sets):
    """:func:`dpbook.mwem._maximal_sets`' step on bit masks: ``maximal`` (the maximal sets so far, in order) with
    each of ``new_sets`` added in turn (a set inside a maximal one changes nothing; else the maximal sets inside
    it leave and it joins last)."""
    out = np.empty(maximal.size + new_sets.size, dtype=np.int64)
    count = maximal.size
    out[:count] = maximal
    for m in new_sets:
        inside = False
        for i in range(count):
            if out[i] & m == m:
                inside = True
                break
        if inside:
            continue
        keep = 0
        for i in range(count):
            if out[i] & m != out[i]:
                out[keep] = out[i]
                keep += 1
        out[keep] = m
        count = keep + 1
    return out[:count].copy()


@_jit
def fit_targets(unique, precision, weighted, maximal, new_sets, new_values, new_scales, n, d, high):
    """One round of :func:`dpbook.mwem._fit_targets` in one call.  ``unique``, ``precision``, ``weighted``: the
    parity state so far (sorted masks, their precisions and precision-weighted sums); ``new_sets``: the bit masks
    of the new measurements' sets (attribute ``a`` = bit ``d−1−a``), their values one run after another in
    ``new_values`` (table order), their Laplace scales ``new_scales``; ``maximal``: the bit masks of the maximal
    sets so far, in order.  The new measurements merged and added (:func:`merge_masks`, :func:`add_measurements`;
    in place when no mask is new) and their sets to the maximal ones (:func:`add_maximal`), the shrinkage
    (:func:`shrink`; ``high`` = ``n²/3``), the maximal sets' targets (:func:`targets`).  Returns the parity state,
    the maximal sets, each order's prior variance, the targets (one run per maximal set) and where each run starts
    (one more entry: the total)."""
    new_masks, new_starts = _all_subset_masks(new_sets)
    unique, precision, weighted = merge_masks(unique, precision, weighted, new_masks)
    add_measurements(unique, precision, weighted, new_masks, new_starts, new_values, new_scales)
    maximal = add_maximal(maximal, new_sets)
    f, tau2s = shrink(unique, precision, weighted, n, d, high)
    set_masks, starts = _all_subset_masks(maximal)
    return unique, precision, weighted, maximal, tau2s, targets(unique, f, set_masks, starts), starts
