"""dpbook._component_numba: the compiled fitting sweeps, pair tables and table of adaptive_marginals' component
model (dpbook.mwem._ComponentModel) give the numpy path's bytes — the summation orders they replicate (numpy's
pairwise sum, a reduction over leading axes, bincount) on many shapes, the model's methods on seeded random
models (zeros, clipped and negative-zero targets, one-attribute sets, empty target lists); without numba the numpy
path runs.  Whole runs and imports: tests/test_adaptive_compiled.py."""
import sys

import numpy as np
import pytest

import dpbook.mwem as mwem
from dpbook.mwem import _ComponentModel, _row_view_afresh, _step_codes


def _kernels():
    """The compiled module, or a skip (numba is the optional ``speed`` extra)."""
    pytest.importorskip("numba", reason="numba is not installed (the optional `speed` extra): the numpy path "
                                        "is the one in use")
    from dpbook import _component_numba
    return _component_numba


def _spread(rng, n, zeros=0.1):
    """Positive values over many magnitudes (so that the order of a sum shows in its bytes), some exactly 0."""
    x = rng.random(n) * np.exp(rng.normal(0.0, 6.0, n))
    x[rng.random(n) < zeros] = 0.0
    return x


def test_the_step_columns_agree():
    """dpbook.mwem allocates the compiled steps without importing the compiled module: its column count is the
    module's."""
    assert _kernels().STEP_FIELDS == mwem._STEP_FIELDS == 11


def test_pairwise_sum_is_numpys_sum():
    """pairwise_sum against ``ndarray.sum`` (numpy's pairwise order): every length to 300, lengths around
    numpy's splits (multiples of 8 and 128, powers of two to 2^17), at offsets into a longer array, all zeros and
    all negative zeros."""
    k = _kernels()
    rng = np.random.default_rng(5)
    sizes = list(range(301)) + [n + e for n in (383, 512, 1000, 1024, 4096, 8192, 65536, 131072)
                                for e in (-9, -8, -1, 0, 1, 7, 8, 129)]
    for n in sizes:
        a = _spread(rng, n + 11)
        for start in (0, 3, 11):
            ref = a[start: start + n]
            assert np.float64(k.pairwise_sum(a, start, ref.size)).tobytes() == ref.sum().tobytes(), (n, start)
    for value in (0.0, -0.0):
        a = np.full(200, value)
        for n in (0, 5, 8, 130, 200):
            assert np.float64(k.pairwise_sum(a, 0, n)).tobytes() == a[:n].sum().tobytes()


def _shapes():
    """(c, sorted positions) of one- and two-position sets in parts of 1 to 17 attributes, seeded."""
    rng = np.random.default_rng(7)
    out = [(1, [0]), (2, [0, 1]), (11, [0, 10]), (16, [0, 5]), (16, [6, 15]), (17, [0, 1]), (17, [3, 16])]
    for c in range(1, 18):
        for _ in range(6):
            k = int(rng.integers(1, min(c, 2) + 1))
            out.append((c, sorted(rng.choice(c, size=k, replace=False).tolist())))
    return out


@pytest.mark.parametrize("c, pos", _shapes())
def test_row_sums_and_bincount_are_numpys(c, pos):
    """A step's marginal as the compiled fit computes it (_sum_rows then _bincount, with the codes of
    _step_codes) against the numpy path's statements on the view of _row_view_afresh: ``np.add.reduce`` over the
    merged runs, then ``np.bincount`` — the same bytes; and the scaling by the ratio, alone and fused with the
    next set's row sums (by a row of factors, or by one ratio a row when the set has no column bits), the same
    bytes as ``rows *= ratio[index]``."""
    k = _kernels()
    rng = np.random.default_rng(c * 1000 + sum(pos))
    g = _spread(rng, 1 << c)
    shape, away, index = _row_view_afresh(c, pos)
    rows = g.reshape(shape)
    summed = np.add.reduce(rows, axis=away) if away else rows
    want = np.bincount(index.reshape(-1), weights=summed.reshape(-1), minlength=1 << len(pos))
    row_at, low_at, width, count, n_kept, is_summed = _step_codes(c, pos)
    hcode = mwem._CODE_ARRAYS[0][row_at: row_at + (1 << c) // width]
    low = mwem._CODE_ARRAYS[1][low_at: low_at + width]
    acc, m = np.empty(n_kept * width), np.empty(1 << len(pos))
    k._sum_rows(g, 0, (1 << c) // width, width, hcode, is_summed, acc)
    k._bincount(acc, n_kept, width, low, count, m.size, m)
    assert m.tobytes() == want.tobytes()
    ratio = _spread(rng, m.size)
    factors = np.concatenate([ratio[(h << count) | low] for h in range(n_kept)])
    scaled = (rows * ratio[index]).reshape(-1)
    x = g.copy()
    k._scale_rows(x, 0, (1 << c) // width, width, hcode, factors)
    assert x.tobytes() == scaled.tobytes()
    other = [q for q in range(c) if q not in pos][:1] or pos      # the next step: another set of the part
    o_row, o_low, _, o_count, o_kept, o_summed = _step_codes(c, other)
    o_hcode = mwem._CODE_ARRAYS[0][o_row: o_row + (1 << c) // width]
    y, acc2 = g.copy(), np.empty(o_kept * width)
    k._scale_and_sum_rows(y, 0, (1 << c) // width, width, hcode, factors, o_hcode, o_summed, acc2)
    assert y.tobytes() == scaled.tobytes()
    o_shape, o_away, _ = _row_view_afresh(c, other)
    o_rows = scaled.reshape(o_shape)
    o_want = np.add.reduce(o_rows, axis=o_away) if o_away else o_rows
    assert acc2.tobytes() == np.ascontiguousarray(o_want).reshape(-1).tobytes()
    if count == 0:                                 # no column bits: each row scaled by one ratio
        z, w, acc3 = g.copy(), g.copy(), np.empty(o_kept * width)
        k._scale_rows_by(z, 0, (1 << c) // width, width, hcode, ratio)
        k._scale_by_and_sum_rows(w, 0, (1 << c) // width, width, hcode, ratio, o_hcode, o_summed, acc3)
        assert z.tobytes() == scaled.tobytes() and w.tobytes() == scaled.tobytes()
        assert acc3.tobytes() == acc2.tobytes()


def _random_model(seed):
    """A seeded component model (parts joined by random pairs, some attributes free) with random contents
    (zeros included, half a part at zero) and random targets: clipped cells (exact zeros), a negative zero,
    1-attribute sets in parts and free; returns (model, targets)."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 18))                        # (a set of d attributes makes the model a table)
    n_sets = int(rng.integers(0, 2 * d + 1))
    sets = sorted({tuple(sorted(rng.choice(d, size=int(rng.integers(1, 3)), replace=False).tolist()))
                   for _ in range(n_sets)})
    if rng.random() < 0.3:                                # a long chain: one part of many attributes
        sets = sorted(set(sets) | {(a, a + 1) for a in range(min(d, 17) - 1)})
    model = _ComponentModel(d).prepared(sets)
    model.buffer[:] = _spread(rng, model.buffer.size, zeros=0.05)
    model.single[:] = _spread(rng, 2 * d, zeros=0.05).reshape(d, 2)
    model.single[:, int(rng.integers(2))] += 0.01         # (no row all zeros)
    if model.tables and rng.random() < 0.3:
        part = model.tables[0]
        part[: part.size // 2] = 0.0                      # half the marginal cells of that part are 0
    targets = {}
    for S in sets:
        t = _spread(rng, 1 << len(S), zeros=0.15)
        t[int(rng.integers(t.size))] += 0.01              # (at least one cell positive)
        t /= t.sum()
        if rng.random() < 0.1:
            t[int(rng.integers(t.size))] = -0.0           # a clipped cell written as a negative zero
        targets[S] = t
    order = list(targets)
    rng.shuffle(order)                                    # the sets in any order
    return model, {S: targets[S] for S in order}


@pytest.mark.parametrize("seed", range(60))
def test_compiled_model_gives_the_numpy_paths_bytes(seed):
    """Two copies of a seeded random model: one fitted by the numpy path (_fit_numpy), one by the compiled
    kernel (fit) — one sweep, a few, and to convergence (tolerance 0 and a loose one) — hold the same bytes
    (every part, the 1-attribute rows; NaN too, where a part is fitted to all zeros); then the pair tables and the table of each, compiled and numpy, are the
    same bytes."""
    _kernels()
    for sweeps, tol in ((1, 0.0), (3, 0.0), (None, 0.0), (None, 1e-3)):
        ref, targets = _random_model(seed)
        fast, _ = _random_model(seed)
        with np.errstate(invalid="ignore", divide="ignore"):       # (a part fitted to 0 is NaN on both paths)
            ref._fit_numpy(targets, tol, sweeps)
        fast.fit(targets, tol, sweeps)
        assert fast.buffer.tobytes() == ref.buffer.tobytes()
        assert fast.single.tobytes() == ref.single.tobytes()
        assert all(a.base is fast.buffer for a in fast.tables)
        assert fast.pair_tables().tobytes() == ref._pair_tables_numpy().tobytes()
        assert fast.table().tobytes() == ref._table_numpy().tobytes()


def test_compiled_fit_edge_cases():
    """No targets at all, only free 1-attribute targets, only sets in parts, a model with no parts, and a copied
    model (its tables no longer views of one buffer: packed again): the numpy path's bytes."""
    _kernels()
    import copy
    cases = [(5, [], {}), (6, [], {(2,): np.array([0.3, 0.7]), (4,): np.array([0.0, 1.0])}),
             (6, [(0, 1), (1, 2)], {(0, 1): np.array([0.1, 0.2, 0.3, 0.4]), (1, 2): np.array([0.0, 0.5, 0.5, 0.0])}),
             (4, [(0, 3)], {(0, 3): np.array([0.25, 0.25, 0.25, 0.25]), (3,): np.array([1.0, -0.0])})]
    for d, sets, targets in cases:
        ref, fast = (_ComponentModel(d).prepared(sets) for _ in range(2))
        for m in (ref, fast):
            m.single[:] = np.random.default_rng(d).random((d, 2))
        fast = copy.deepcopy(fast)
        ref._fit_numpy(targets, 0.0, None)
        fast.fit(targets, 0.0, None)
        assert fast.buffer.tobytes() == ref.buffer.tobytes() and fast.single.tobytes() == ref.single.tobytes()
        assert fast.pair_tables().tobytes() == ref._pair_tables_numpy().tobytes()
        assert fast.table().tobytes() == ref._table_numpy().tobytes()


def test_without_numba_the_numpy_path_runs(monkeypatch):
    """numba absent (its import fails): _component_kernels() is None and the model's methods are the numpy
    path's."""
    import dpbook
    import dpbook._mw_kernels as K
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "dpbook._component_numba", raising=False)
    monkeypatch.delattr(dpbook, "_component_numba", raising=False)
    monkeypatch.setattr(mwem, "_COMPONENT_KERNELS", [])
    monkeypatch.setattr(K, "USE_COMPILED", True)
    assert mwem._component_kernels() is None
    ref, targets = _random_model(3)
    fast, _ = _random_model(3)
    ref._fit_numpy(targets, 0.0, 2)
    fast.fit(targets, 0.0, 2)
    assert fast.buffer.tobytes() == ref.buffer.tobytes()
    assert fast.table().tobytes() == ref._table_numpy().tobytes()
