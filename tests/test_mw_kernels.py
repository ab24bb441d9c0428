"""dpbook._mw_kernels: the machine-independent exp (within one ulp of the C library, the scalar path bit for bit)
and the block-by-block float update (the bytes of the whole-array path); the kernels against the readable update
rule are in tests/test_multiplicative_weights.py."""
import math

import numpy as np
import pytest

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


@pytest.mark.parametrize("c", [0.2, -5.0, -29.0, 3.0, 800.0])
def test_block_path_gives_the_bytes_of_the_whole_array_path(c, monkeypatch):
    """Above FUSE_MIN elements a row, the float update works block by block and straight into ``out``: the same
    bytes as the whole-array path (single row, batch, float32 query, in place), and close to the reference rule."""
    import dpbook._mw_kernels as K
    g = np.random.default_rng(5)
    N = K.FUSE_MIN + 4099                                   # not a multiple of the block
    p = g.random(N) + 0.1
    p /= p.sum()
    q = g.random(N)
    P = np.stack([p, np.roll(p, 7), p[::-1].copy()])
    cs = np.array([c, -c / 2, 0.5])
    cases = [(p, q, c), (P, q, cs), (P, np.stack([q, q[::-1], q]), cs), (p, q.astype(np.float32), c),
             (P, q.astype(np.float32), cs)]
    fast = [K.exp_update(a, b, cc) for a, b, cc in cases]
    in_place = [K.exp_update(a.copy(), b, cc, out=None) for a, b, cc in cases]
    buf = P.copy()
    K.exp_update(buf, q, cs, out=buf)
    monkeypatch.setattr(K, "FUSE_MIN", 1 << 62)             # the whole-array path
    slow = [K.exp_update(a, b, cc) for a, b, cc in cases]
    for f, i, s in zip(fast, in_place, slow):
        assert np.array_equal(f, s) and np.array_equal(i, s)
    assert np.array_equal(buf, slow[1])
    if abs(c) <= 30:                                        # (at c = 800 the reference's own rounding dominates)
        np.testing.assert_allclose(fast[0], mw_update_reference(p, q, c), rtol=1e-9, atol=1e-300)
