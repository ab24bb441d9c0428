"""dpbook._mw_kernels: the machine-independent exp (within one ulp of the C library, the scalar path bit for bit),
e^{c·q} on the grid of q (the bytes of its readable reference, within (6 + |c|)·2^-53 of the exact value, the same
bytes on numpy's other dispatch path), and the block-by-block update (the bytes of the whole-array path); the
kernels against the readable update rule are in tests/test_multiplicative_weights.py."""
import math

import numpy as np
import pytest
from python_subprocess import cpu_features_off, run_python

from dpbook.multiplicative_weights import mw_update_reference, multiplicative_weights_update


def test_kernel_exp_is_within_one_ulp_of_the_c_library_and_the_scalar_path_agrees_bit_for_bit():
    """The kernels' exp (IEEE-754 operations only: the same bytes on every CPU) against math.exp."""
    from dpbook._mw_kernels import exp, exp_scalar, exp_small
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-1, 1, 40_000), rng.uniform(-745, 709.7, 40_000), rng.uniform(-1e-6, 1e-6, 4000),
                        [0.0, -0.0, 1.0, -1.0, 709.78, -745.1, -744.4, -708.4]])
    got = exp(x)
    ref = np.array([math.exp(v) for v in x.tolist()])
    assert np.abs(got.view(np.int64) - ref.view(np.int64)).max() <= 1
    assert np.array_equal(np.array([exp_scalar(v) for v in x[:5000].tolist()]), got[:5000])
    assert np.array_equal(exp_small(x[:20]), got[:20])
    assert exp(np.array([-np.inf, -1e4]))[0] == 0.0 and exp_scalar(-math.inf) == 0.0
    square = x[:64].reshape(8, 8)
    out = np.empty((8, 8)).T                                    # a non-contiguous out
    assert np.array_equal(exp(square, out=out), exp(square.copy())) and np.array_equal(out, exp(square))
    with np.errstate(over="ignore"):
        assert exp(np.array([710.0, 1e300]))[0] == np.inf


@pytest.mark.parametrize("c", [0.2, -5.0, -29.0, 3.0, 800.0, 0.01, 30.5, -1.0])
@pytest.mark.parametrize("extra", [4099, 2 * (1 << 15) + 5])
def test_block_path_gives_the_bytes_of_the_whole_array_path(c, extra, monkeypatch):
    """Above FUSE_MIN elements a row, the update works block by block and straight into ``out``, each block's sum
    taken there: the same bytes as the whole-array path (single row, batch with rows on and off the grid, float32
    query, bool indicator, in place), and close to the reference rule."""
    import dpbook._mw_kernels as K
    g = np.random.default_rng(5)
    N = K.FUSE_MIN + extra                                  # not a multiple of the block
    p = g.random(N) + 0.1
    p /= p.sum()
    q = g.random(N)
    P = np.stack([p, np.roll(p, 7), p[::-1].copy()])
    cs = np.array([c, -c / 2, 0.5])
    b = q < 0.3
    cases = [(p, q, c), (P, q, cs), (P, np.stack([q, q[::-1], q]), cs), (p, q.astype(np.float32), c),
             (P, q.astype(np.float32), cs), (p, b, c), (P, b, cs / 40), (P, np.stack([b, ~b, b]), cs / 40)]
    fast = [K.exp_update(a, b, cc) for a, b, cc in cases]
    in_place = [K.exp_update(w := a.copy(), b, cc, out=w) for a, b, cc in cases]
    assert K._fused(p, q, c, p.shape, None) == (c >= K.FUSE_LOW)           # the block path is the one tested
    assert K._fused(p, b, c, p.shape, None) == (abs(c) <= -K.FUSE_LOW)
    buf = P.copy()
    K.exp_update(buf, q, cs, out=buf)
    monkeypatch.setattr(K, "FUSE_MIN", 1 << 62)             # the whole-array path
    slow = [K.exp_update(a, b, cc) for a, b, cc in cases]
    for f, i, s in zip(fast, in_place, slow):
        assert np.array_equal(f, s) and np.array_equal(i, s)
    assert np.array_equal(buf, slow[1])
    if abs(c) <= 30:                                        # (at c = 800 the reference's own rounding dominates)
        np.testing.assert_allclose(fast[0], mw_update_reference(p, q, c), rtol=1e-9, atol=1e-300)


# --------------------------------------------------------------------------- e^{c·q} on the grid of q

#: coefficients at and around every degree limit of GRID_DEGREES, both signs, and the limits of the grid
GRID_CS = [0.0, 1e-9, -1e-3, 1 / 32, -1 / 32, 0.03125000001, 0.2, -0.2, 0.7, 1.0, -1.0, 1.0000001, 3.3, -7.99, 8.0,
           8.01, -8.01, 17.0, -29.9, 30.0, -30.0]


def _grid_inputs(rng, size):
    """Uniform queries plus the edge cases: the ends of [0, 1], the grid points and the ties between them (round
    to even), the largest value below 1, tiny and subnormal entries."""
    step = 2.0 ** -12
    edges = np.array([0.0, 1.0, step, step / 2, 3 * step / 2, 1 - step / 2, 1 - step, np.nextafter(1.0, 0.0),
                      np.nextafter(step / 2, 0.0), np.nextafter(step / 2, 1.0), 5e-324, 1e-300, 2.0 ** -60, 0.5])
    return np.concatenate([edges, rng.random(size), rng.integers(0, 4097, size // 8) * step])


def test_grid_exp_is_its_readable_reference_byte_for_byte():
    """The block kernel (bits of q + 1.5·2^40 as the grid index, Horner in place) against the plain whole-array
    statement of the same steps: the same bytes, for every degree of the series, float64 and float32 queries,
    a block boundary inside the array and an out that is not contiguous."""
    from dpbook._mw_kernels import _BLOCK, grid_exp, grid_exp_reference
    rng = np.random.default_rng(11)
    q = _grid_inputs(rng, _BLOCK + 3000)
    for c in GRID_CS:
        ref = grid_exp_reference(q, c)
        assert np.array_equal(grid_exp(q, c), ref), c
        assert np.array_equal(grid_exp(q.astype(np.float32), c), grid_exp_reference(q.astype(np.float32), c))
    square = q[:64].reshape(8, 8)
    out = np.empty((8, 8)).T
    assert np.array_equal(grid_exp(square, 0.3, out=out), grid_exp_reference(square, 0.3))
    assert grid_exp(np.array([0.0]), -30.0)[0] == 1.0 and grid_exp(np.array([1.0]), 0.0)[0] == 1.0


def test_grid_tables_kept_per_coefficient_are_the_fresh_tables():
    """grid_table keeps the last few coefficients' tables: a kept table is read-only and has the bytes of one built
    afresh (exp of c·m/2^12), 0.0 and -0.0 are told apart, and a coefficient pushed out is rebuilt the same."""
    from dpbook import _mw_kernels as K
    cs = [0.2, -0.2, 0.0, -0.0, 3.3] + [0.1 * k for k in range(1, 2 * K._TABLES_KEPT)]
    for c in cs + cs[::-1]:
        table = K.grid_table(c)
        fresh = K.exp(c * (np.arange(4097) / 4096))
        assert np.array_equal(table.view(np.int64), fresh.view(np.int64)) and not table.flags.writeable, c
    assert K.grid_table(0.2) is K.grid_table(0.2) and len(K._TABLES) <= K._TABLES_KEPT
    with pytest.raises(ValueError):
        K.grid_table(0.2)[0] = 2.0


def test_grid_degrees_meet_their_remainder_bound():
    """Each (largest |c|, degree n) of GRID_DEGREES: the Taylor remainder of e^{c·δ} for |δ| <= 2^-13,
    y^(n+1)/(n+1)! · e^y with y = |c|·2^-13, is below 2^-56 (exact rationals; e^y < 1 + 2y for y < 1), and one
    degree less would not be (so the table is not padded with needless terms)."""
    from fractions import Fraction
    from dpbook._mw_kernels import GRID_BITS, GRID_C_MAX, GRID_DEGREES, grid_terms
    bound = Fraction(1, 2 ** 56)
    for limit, n in GRID_DEGREES:
        y = Fraction(limit) / 2 ** (GRID_BITS + 1)
        assert y ** (n + 1) / math.factorial(n + 1) * (1 + 2 * y) <= bound
        assert y ** n / math.factorial(n) > bound
        assert len(grid_terms(limit)) == n and len(grid_terms(-limit)) == n
    assert GRID_DEGREES[-1][0] == GRID_C_MAX
    assert grid_terms(0.5) == (0.5, 0.5 * 0.5 / 2, 0.5 * 0.5 / 2 * 0.5 / 3)


def _two_product(a, b):
    """``a·b = p + e`` exactly (Dekker's split; no FMA, so the same on every CPU)."""
    p = a * b
    t = a * 134217729.0
    ah = t - (t - a)
    al = a - ah
    t = b * 134217729.0
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def test_grid_exp_is_within_six_plus_abs_c_units_of_2_to_minus_53_of_the_exact_exp():
    """The stated bound: |grid_exp(q, c) / e^{c·q} − 1| <= (6 + |c|)·2^-53 (the table's exp: 1 ulp of the C
    library's; the rounding of c·m: |c|·2^-53; the series and the product: about 2 ulp).  Over 10^7 inputs
    (10 coefficients × 10^6 queries, edge cases included) against the C library's exp of the rounded product
    c·q, corrected by that product's exact rounding error (the oracle's own error, <= 1 unit, is allowed for);
    and exactly, in 60-digit decimal arithmetic, on 2000 of them.  (Measured: at most about 4 + |c|/2.)"""
    import decimal
    from dpbook._mw_kernels import grid_exp
    rng = np.random.default_rng(12)
    unit = 2.0 ** -53
    for c in (1e-3, -1 / 32, 0.2, -0.9, 1.0000001, -3.3, 7.99, -8.01, 17.0, -29.9):
        q = _grid_inputs(rng, 1_000_000)[:1_000_000]
        got = grid_exp(q, c)
        x, err = _two_product(np.full(q.size, c), q)
        oracle = np.fromiter(map(math.exp, x.tolist()), dtype=np.float64, count=q.size)
        rel = np.abs((got - oracle) / oracle - err)
        assert rel.max() <= (7 + abs(c)) * unit, (c, rel.max() / unit)
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            for v, g in zip(q[:200].tolist(), got[:200].tolist()):
                exact = (decimal.Decimal(c) * decimal.Decimal(v)).exp()
                assert abs(decimal.Decimal(g) / exact - 1) <= decimal.Decimal((6 + abs(c)) * unit), (c, v)


def test_update_paths_give_the_same_bytes_on_the_other_numpy_dispatch_path():
    """The grid kernel, the block path and the bool path at N = 2^16 (too large for tests/test_cpu_dispatch.py's
    MWEM runs to reach) in a subprocess with numpy's AVX-512 kernels off: the same digest."""
    code = ("import hashlib, numpy as np\n"
            "from dpbook._mw_kernels import exp_update, grid_exp\n"
            "g = np.random.default_rng(3); N = 1 << 16\n"
            "p = g.random(N) + 0.1; p /= p.sum(); q = g.random(N); b = q < 0.3\n"
            "h = hashlib.sha256()\n"
            "for c in (0.01, -0.2, 0.9, -5.0, 25.0, 31.0):\n"
            "    h.update(exp_update(p, q, c).tobytes()); h.update(exp_update(p, b, c).tobytes())\n"
            "    h.update(grid_exp(q, max(min(c, 30.0), -30.0)).tobytes())\n"
            "P = np.stack([p, p[::-1]]); h.update(exp_update(P, q, np.array([0.3, -40.0])).tobytes())\n"
            "print(h.hexdigest())\n")
    here = run_python(code)
    off = cpu_features_off()
    there = run_python(code, NPY_DISABLE_CPU_FEATURES=off) if off else here
    assert here == there and len(here.strip()) == 64


# --------------------------------------------------------------------------- the optional compiled kernel (numba)

@pytest.mark.parametrize("bits", [1, 4, 8, 10])
def test_exp_table_built_by_roots_equals_decimal_powers(bits):
    """The import-time table (square roots and products at 60 digits) equals the short reference (each entry a
    decimal power at 50 digits) entry for entry, in both its hi and lo parts."""
    from dpbook._mw_kernels import _powers_of_two_root, _powers_of_two_root_reference

    hi, lo = _powers_of_two_root(bits)
    hi_ref, lo_ref = _powers_of_two_root_reference(bits)
    assert hi.tobytes() == hi_ref.tobytes() and lo.tobytes() == lo_ref.tobytes()
