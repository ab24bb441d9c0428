"""dpbook._mw_numba: the optional compiled kernels of the multiplicative-weights round (the ``speed`` extra: a
float query's and a bool indicator's) give the numpy block path's bytes, on the host CPU and a generic one;
without numba the numpy path runs, and importing dpbook never imports numba."""
import math

import numpy as np
import pytest

from python_subprocess import cpu_features_off, run_python
from test_mw_kernels import GRID_CS, _grid_inputs      # the grid path's coefficients and edge-case inputs


def _numba_reason() -> str:
    return "numba is not installed (the optional `speed` extra): the numpy path is the one in use"


def _numpy_row(q, p, c):
    """The numpy path's bytes for one row, written plainly: e^{c·q} (grid_exp_reference) times p, and numpy's sum."""
    from dpbook._mw_kernels import grid_exp_reference
    x = grid_exp_reference(q, c) * p
    return x, x.sum()


def test_compiled_kernel_gives_the_numpy_paths_bytes():
    """dpbook._mw_numba.grid_update_row against the numpy statement of the same row: the same bytes of
    e^{c·q}·p and the same sum (numpy's pairwise order), for every degree of the series, the grid's edge inputs,
    lengths around the vector loop's width (4), numpy's summation pieces (< 8, 128, nodes of up to 256 whose
    halves are base cases or not) and the kernel's leaf, and in place (out is p)."""
    pytest.importorskip("numba", reason=_numba_reason())
    from dpbook import _mw_kernels as K
    from dpbook import _mw_numba as M
    rng = np.random.default_rng(17)
    for n in (1, 3, 4, 5, 7, 8, 9, 127, 128, 129, 136, 241, 255, 256, 257, 263, 519, M._LEAF - 1, M._LEAF + 8,
              3 * M._LEAF + 5, K.FUSE_MIN + 4099):
        for c in GRID_CS[:: 3 if n < K.FUSE_MIN else 1]:
            q = _grid_inputs(rng, n)[-n:] if n > 64 else rng.random(n)
            p = rng.random(n) + 0.1
            p /= p.sum()
            terms = K.grid_terms(c)
            want, want_sum = _numpy_row(q, p, c)
            out = np.empty(n)
            got_sum = M.grid_update_row(q, p, out, K.grid_table(c), K._padded_terms(terms), len(terms))
            assert np.array_equal(out.view(np.int64), want.view(np.int64)) and got_sum == want_sum, (n, c)
            got_sum = M.grid_update_row(q, p, p, K.grid_table(c), K._padded_terms(terms), len(terms))   # in place
            assert np.array_equal(p, want) and got_sum == want_sum, (n, c)


#: bool rows' coefficients: both signs, zero of both signs, tiny, and the block path's limits (|c| <= 30)
BOOL_CS = [0.0, -0.0, 1e-9, -1e-300, 0.2, -0.2, 1.0, -1.0, 3.3, -7.99, 17.0, 30.0, -30.0]


def _numpy_bool_row(q, p, c):
    """The numpy path's bytes for one bool row, written plainly (exp_update's whole-array statement): z = q XOR
    (c < 0) cast to 0.0/1.0, times 1 − e^{−|c|}, plus e^{−|c|}, times p; and numpy's sum."""
    from dpbook._mw_kernels import exp_scalar
    small = exp_scalar(-abs(c))
    x = (q ^ (c < 0)).view(np.uint8).astype(np.float64)
    x *= 1.0 - small
    x += small
    x *= p
    return x, x.sum()


def test_compiled_bool_kernel_gives_the_numpy_statements_bytes():
    """dpbook._mw_numba.bool_update_row (the row read as uint8, a view) against the numpy statement of the same
    row: the same bytes and the same sum for the float kernel's row lengths (the vector width, numpy's summation
    pieces, the leaf), c < 0 and c > 0, all-true, all-false and random rows, and in place (out is p)."""
    pytest.importorskip("numba", reason=_numba_reason())
    from dpbook import _mw_kernels as K
    from dpbook import _mw_numba as M
    rng = np.random.default_rng(43)
    for n in (1, 3, 4, 5, 7, 8, 9, 127, 128, 129, 136, 241, 255, 256, 257, 263, 519, M._LEAF - 1, M._LEAF + 8,
              3 * M._LEAF + 5, K.FUSE_MIN + 4099):
        for c in BOOL_CS[:: 3 if n < K.FUSE_MIN else 1]:
            for q in (rng.random(n) < rng.random(), np.ones(n, dtype=bool), np.zeros(n, dtype=bool)):
                p = rng.random(n) + 0.1
                p /= p.sum()
                want, want_sum = _numpy_bool_row(q, p, c)
                small, flip = K.exp_scalar(-abs(c)), np.uint8(c < 0)
                out = np.full(n, np.nan)
                got_sum = M.bool_update_row(q.view(np.uint8), p, out, small, flip)
                assert np.array_equal(out.view(np.int64), want.view(np.int64)) and got_sum == want_sum, (n, c)
                got_sum = M.bool_update_row(q.view(np.uint8), p, p, small, flip)                 # in place
                assert np.array_equal(p.view(np.int64), want.view(np.int64)) and got_sum == want_sum, (n, c)


def test_vector_loop_gives_the_scalar_statements_bytes():
    """_fused_vectors (LLVM vectors, the index from the bits of q + 1.5·2^40) against _fused_scalar (one element
    at a time, the index m·2^12 converted): the same bytes on the grid's edge inputs for every coefficient, at an
    offset that is not a multiple of the width, in place."""
    pytest.importorskip("numba", reason=_numba_reason())
    from dpbook import _mw_kernels as K
    from dpbook import _mw_numba as M
    rng = np.random.default_rng(37)
    q = _grid_inputs(rng, 1000)
    n = q.size
    for c in GRID_CS:
        terms = K.grid_terms(c)
        args = (K.grid_table(c), K._padded_terms(terms), len(terms))
        p = rng.random(n) + 0.1
        want, got = np.full(n, np.nan), np.full(n, np.nan)
        M._fused_scalar(q, p, want, *args, np.uint64(3), np.uint64(n - 3))
        M._grid_piece(q, p, got, *args, 3, n)
        assert np.array_equal(want[3:].view(np.int64), got[3:].view(np.int64)) and np.isnan(got[:3]).all(), c
        M._grid_piece(q, p, p, *args, 3, n)                                      # in place
        assert np.array_equal(p[3:], want[3:]), c


def test_compiled_table_gives_the_bytes_of_exp():
    """grid_table_into (the 4097-entry table of e^{c·m/2^12}, compiled) against dpbook._mw_kernels.exp of the same
    products: the same bytes for 601 coefficients across [-30, 30] and the edges (±0, tiny, the limits), with the
    constants of exp; and grid_table gives those bytes whether the compiled builder is in use or not."""
    pytest.importorskip("numba", reason=_numba_reason())
    from dpbook import _mw_kernels as K
    from dpbook import _mw_numba as M
    assert (M._INV_STEP, M._STEP_HI, M._STEP_LO, M._C2, M._C3, M._C4) == \
        (K._INV_STEP, K._STEP_HI, K._STEP_LO, K._C2, K._C3, K._C4)
    points = np.arange(4097) / 4096
    out = np.empty(4097)
    for c in list(np.linspace(-30.0, 30.0, 601)) + [0.0, -0.0, 1e-300, -1e-9, np.nextafter(30.0, 0.0), -30.0]:
        M.grid_table_into(float(c), points, K._TABLE, K._TABLE_LO, out)
        assert np.array_equal(out.view(np.int64), K.exp(float(c) * points).view(np.int64)), c
    if K.USE_COMPILED:                                       # (DPBOOK_NUMBA=0: grid_table takes exp)
        assert K.compiled_kernels() is not None and K._COMPILED[1] is M.grid_table_into
    K._TABLES.clear()
    assert np.array_equal(K.grid_table(-7.25), K.exp(-7.25 * points))


def test_compiled_scale_gives_numpys_bytes():
    """scale_row (x *= factor in vectors, prefetched) against numpy's in-place multiply: the same bytes for lengths
    around its step of 8 and long rows, factors of both signs and extremes, entries from 1e-310 to 1e300."""
    pytest.importorskip("numba", reason=_numba_reason())
    from dpbook import _mw_numba as M
    rng = np.random.default_rng(41)
    for n in list(range(0, 20)) + [1023, 4096 + 7, 70001]:
        x = rng.random(n) * 10.0 ** rng.integers(-310, 300, n)
        for factor in (1.0, 1 / 3.3, 7.9e12, 1e-300, -0.5):
            with np.errstate(over="ignore", under="ignore"):       # (overflow to inf, underflow to 0: both alike)
                want, got = x * factor, x.copy()
                M.scale_row(got, factor)
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), (n, factor)


def test_kernel_statement_run_as_python_gives_the_numpy_paths_bytes():
    """The compiled kernels' source run as plain Python (numba or not): their order of operations and their walk of
    numpy's pairwise summation give numpy's bytes on short rows (every size up to 300, so every base case and the
    first splits), float query and bool indicator alike."""
    from dpbook import _mw_kernels as K
    from dpbook import _mw_numba as M
    run = getattr(M.grid_update_row, "py_func", M.grid_update_row)
    rng = np.random.default_rng(31)
    for n in range(1, 301, 7):
        c = GRID_CS[n % len(GRID_CS)]
        q, p = rng.random(n), rng.random(n) + 0.1
        terms = K.grid_terms(c)
        want, want_sum = _numpy_row(q, p, c)
        out = np.empty(n)
        assert run(q, p, out, K.grid_table(c), K._padded_terms(terms), len(terms)) == want_sum, (n, c)
        assert np.array_equal(out, want), (n, c)
    run = getattr(M.bool_update_row, "py_func", M.bool_update_row)
    for n in range(1, 301, 7):
        c = BOOL_CS[n % len(BOOL_CS)]
        q, p = rng.random(n) < 0.4, rng.random(n) + 0.1
        want, want_sum = _numpy_bool_row(q, p, c)
        out = np.empty(n)
        assert run(q.view(np.uint8), p, out, K.exp_scalar(-abs(c)), np.uint8(c < 0)) == want_sum, (n, c)
        assert np.array_equal(out, want), (n, c)


def test_compiled_and_numpy_block_paths_agree_through_the_update(monkeypatch):
    """exp_update on long rows (one row, a batch with rows on and off the grid, a read-only workload row as
    MatrixWorkload passes it; bool rows alone and in batches mixing the signs of c and the rows) with the
    compiled kernels and without them: the same bytes, out of place and in place."""
    pytest.importorskip("numba", reason=_numba_reason())
    import dpbook._mw_kernels as K
    g = np.random.default_rng(19)
    N = K.FUSE_MIN + 777
    p = g.random(N) + 0.1
    p /= p.sum()
    q = g.random(N)
    frozen = q.copy()
    frozen.flags.writeable = False
    P = np.stack([p, p[::-1].copy(), np.roll(p, 3)])
    cases = [(p, q, 0.2), (p, frozen, -7.5), (P, q, np.array([0.9, -31.0, 25.0])), (P, np.stack([q, q[::-1], q]),
                                                                                  np.array([0.01, 8.5, -2.0]))]
    b = q < 0.3
    cases += [(p, b, 0.2), (p, ~b, -29.5), (P, b, np.array([0.9, -3.0, 25.0])),                    # bool rows
              (P, np.stack([b, ~b, b[::-1].copy()]), np.array([-0.01, 8.5, -0.0]))]
    monkeypatch.setattr(K, "USE_COMPILED", True)             # (whatever DPBOOK_NUMBA says in this environment)
    assert K.compiled_kernels() is not None
    fast = [K.exp_update(a, b, c) for a, b, c in cases]
    in_place = [K.exp_update(w := a.copy(), b, c, out=w) for a, b, c in cases]
    monkeypatch.setattr(K, "USE_COMPILED", False)
    assert K.compiled_kernels() is None
    slow = [K.exp_update(a, b, c) for a, b, c in cases]
    for f, i, s in zip(fast, in_place, slow):
        assert np.array_equal(f, s) and np.array_equal(i, s)


def test_without_numba_the_numpy_path_runs(monkeypatch):
    """numba absent (its import fails): compiled_kernels() is None and the block path is numpy's, with the bytes
    of the whole-array path (float query and bool indicator); a short row never asks for the compiled kernel."""
    import sys
    import dpbook
    import dpbook._mw_kernels as K
    monkeypatch.setitem(sys.modules, "numba", None)          # `import numba` raises ImportError
    monkeypatch.delitem(sys.modules, "dpbook._mw_numba", raising=False)
    monkeypatch.delattr(dpbook, "_mw_numba", raising=False)  # (else `from . import` finds the loaded module)
    monkeypatch.setattr(K, "_COMPILED", [])
    monkeypatch.setattr(K, "USE_COMPILED", True)             # the kernel is asked for, and numba's import fails
    asked = []
    real = K.compiled_kernels
    monkeypatch.setattr(K, "compiled_kernels", lambda: asked.append(1) or real())
    g = np.random.default_rng(23)
    K.exp_update(np.full(1000, 1e-3), g.random(1000), 0.5)
    assert not asked                                        # (N < FUSE_MIN: the kernel is not even looked up)
    N = K.FUSE_MIN + 5
    p = g.random(N) + 0.1
    p /= p.sum()
    q = g.random(N)
    fast = K.exp_update(p, q, 0.3)
    assert asked and K._COMPILED == [None] * 4
    b = q < 0.3
    fast_bool = K.exp_update(p, b, -0.3), K.exp_update(np.stack([p, p[::-1]]), b, np.array([0.5, -2.0]))
    monkeypatch.setattr(K, "FUSE_MIN", 1 << 62)             # the whole-array path
    assert np.array_equal(fast, K.exp_update(p, q, 0.3))
    assert np.array_equal(fast_bool[0], K.exp_update(p, b, -0.3))
    assert np.array_equal(fast_bool[1], K.exp_update(np.stack([p, p[::-1]]), b, np.array([0.5, -2.0])))


def test_importing_dpbook_does_not_import_numba():
    """numba's import costs a second: dpbook and an MWEM round on a short row never import it."""
    code = ("import sys, numpy as np, dpbook\n"
            "from dpbook.multiplicative_weights import multiplicative_weights_update\n"
            "multiplicative_weights_update(np.full(4096, 1 / 4096), np.linspace(0, 1, 4096), 0.5)\n"
            "print('numba' in sys.modules)\n")
    assert run_python(code).strip() == "False"


def test_compiled_kernel_gives_the_same_bytes_for_a_generic_cpu():
    """The compiled kernels (float query and bool indicator) built for numba's generic x86-64 target (SSE2, no
    FMA) and for this machine's CPU, and the numpy path with and without numpy's AVX-512 kernels: one digest (no
    FMA contraction, no reordered sum, no CPU-dependent exp)."""
    pytest.importorskip("numba", reason=_numba_reason())
    import tempfile
    off = cpu_features_off()                                  # numpy's other path
    code = ("import hashlib, numpy as np\n"
            "from dpbook._mw_kernels import exp_update, compiled_kernels\n"
            "g = np.random.default_rng(29); N = (1 << 15) + 1234\n"
            "p = g.random(N) + 0.1; p /= p.sum(); q = g.random(N); h = hashlib.sha256()\n"
            "for c in (0.01, -0.2, 0.9, -5.0, 25.0):\n"
            "    h.update(exp_update(p, q, c).tobytes()); h.update(exp_update(p, q < 0.3, c).tobytes())\n"
            "print(compiled_kernels() is not None, h.hexdigest())\n")
    digests = []
    with tempfile.TemporaryDirectory() as cache:
        for extra in ({}, {"NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": cache}, {"DPBOOK_NUMBA": "0"},
                      {"DPBOOK_NUMBA": "0", "NPY_DISABLE_CPU_FEATURES": off}):
            digests.append(run_python(code, timeout=600, **{"DPBOOK_NUMBA": "1", **extra}).split())
    assert [d[0] for d in digests] == ["True", "True", "False", "False"]
    assert len({d[1] for d in digests}) == 1
