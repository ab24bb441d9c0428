"""dpbook.hashing: GF(2^κ) arithmetic (irreducible moduli, products, Horner over arrays) against short references,
the polynomial sign hash's r-wise independence, its block and table forms, and bad input."""
import itertools
import math

import numpy as np
import pytest

from dpbook.hashing import (IRREDUCIBLE, PolynomialSignHash, clmul_reference, field_bits, gf_mul, gf_mul_reference,
                            gf_poly_eval, gf_poly_eval_reference, irreducible_polynomial, is_irreducible_reference)

N32 = 1 << 32


def _bits_over_seeds(r, points, seeds, width):
    """bit0(p(z)) for ``seeds`` random polynomials of degree r-1 at each point: (seeds, len(points)) in {0,1}."""
    rng = np.random.default_rng(2026)
    c = rng.integers(0, 1 << width, size=(seeds, r), dtype=np.uint64)
    out = []
    for z in points:
        h = np.zeros(seeds, dtype=np.uint64)
        for j in range(r - 1, -1, -1):
            h = gf_mul(h, np.full(seeds, z, dtype=np.uint64), width) ^ c[:, j]
        out.append(h & np.uint64(1))
    return np.stack(out, axis=1).astype(np.int64)


def test_every_modulus_is_irreducible():
    """Ben-Or's test on each table entry (and it rejects reducible polynomials: the control)."""
    for width in IRREDUCIBLE:
        assert is_irreducible_reference(irreducible_polynomial(width)), width
    assert not is_irreducible_reference((1 << 8) | 1)               # t^8 + 1 = (t + 1)^8
    assert not is_irreducible_reference(0b110)                       # t^2 + t = t (t + 1)


@pytest.mark.parametrize("width", [1, 2, 3, 8, 13, 32, 42, 48, 61, 63])
def test_vectorised_multiply_matches_reference(width):
    rng = np.random.default_rng(width)
    a = rng.integers(0, 1 << width, size=300, dtype=np.uint64)
    b = rng.integers(0, 1 << width, size=300, dtype=np.uint64)
    fast = gf_mul(a, b, width)
    assert [int(v) for v in fast] == [gf_mul_reference(int(x), int(y), width) for x, y in zip(a, b)]
    assert np.array_equal(fast, gf_mul(b, a, width))                                        # commutative
    c = rng.integers(0, 1 << width, size=300, dtype=np.uint64)
    assert np.array_equal(gf_mul(gf_mul(a, b, width), c, width), gf_mul(a, gf_mul(b, c, width), width))  # associative
    assert np.array_equal(gf_mul(a, b ^ c, width), gf_mul(a, b, width) ^ gf_mul(a, c, width))       # distributive
    assert np.array_equal(gf_mul(a, np.ones_like(a), width), a)                             # identity


def test_field_has_inverses_and_hand_values():
    """GF(2^8) with t^8 + t^7 + t^2 + t + 1: every non-zero a has a^(2^8 - 1) = 1; t·t^7 = t^8 = t^7 + t^2 + t + 1."""
    width = 8
    a = np.arange(1, 256, dtype=np.uint64)
    power = np.ones_like(a)
    for _ in range(255):
        power = gf_mul(power, a, width)
    assert np.all(power == 1)
    assert gf_mul_reference(2, 1 << 7, 8) == IRREDUCIBLE[8] == 0b10000111
    assert clmul_reference(0b11, 0b11) == 0b101                                          # (t+1)^2 = t^2 + 1
    assert field_bits(1024, N32) == 42 and field_bits(1000, N32) == 42 and field_bits(1, 1) == 1


def test_horner_over_arrays_matches_reference():
    rng = np.random.default_rng(3)
    for width in (5, 44, 63):
        coefficients = [int(c) for c in rng.integers(0, 1 << width, size=7, dtype=np.uint64)]
        z = rng.integers(0, 1 << width, size=50, dtype=np.uint64)
        assert [int(v) for v in gf_poly_eval(coefficients, z, width)] == [gf_poly_eval_reference(coefficients, int(p), width)
                                                                      for p in z]


@pytest.mark.parametrize("r, ell, N", [(1, 5, 8), (4, 37, 32), (8, 64, N32), (9, 100, 1 << 48), (28, 16, N32)])
def test_block_form_matches_horner(r, ell, N):
    """The bilinear block computation (Taylor expansion + GF(2) matrix product) equals Horner at every point."""
    f = PolynomialSignHash.sample(r, ell, N, rng=r * ell)
    rng = np.random.default_rng(0)
    cols = np.unique(rng.integers(0, N, size=40, dtype=np.int64)) if N > 64 else np.arange(N)
    rows = np.arange(ell)
    assert np.array_equal(f.bits(rows, cols), f.bits_reference(rows, cols))
    A = f.matrix(cols)
    assert np.array_equal(A > 0, f.bits_reference(rows, cols) == 1)
    assert np.allclose(np.abs(A), 1 / np.sqrt(ell))
    assert f.width == field_bits(ell, N) and f.memory_words() == r


@pytest.mark.parametrize("r", [4, 6])
def test_r_wise_independence_of_the_bits(r):
    """Over 40,000 random polynomials, every product of 1..r of the signs at r fixed points is unbiased
    (Hoeffding at 1e-6 with a Bonferroni split over the 2^r - 1 products)."""
    width, seeds = 42, 40_000
    points = [(i << 32) | x for i, x in zip(range(r), [5, 5, 77, 123456789, 5, 9][:r])]   # shared rows and records
    signs = 1 - 2 * _bits_over_seeds(r, points, seeds, width)
    subsets = [S for size in range(1, r + 1) for S in itertools.combinations(range(r), size)]
    threshold = math.sqrt(2 * math.log(2 * len(subsets) / 1e-6) / seeds)
    biases = [abs(np.prod(signs[:, S], axis=1).mean()) for S in subsets]
    assert max(biases) <= threshold, (max(biases), threshold)


def test_four_wise_bit_hash_makes_columns_coincide():
    """The finding of chapter 15: with r = 4 (degree 3), ⟨A e_x, A e_y⟩ ∈ {0, ±1} exactly — two columns are
    orthogonal or identical up to sign — while r = 8 spreads the values (max |·| far below 1)."""
    cols = np.unique(np.random.default_rng(1).integers(0, N32, size=120, dtype=np.int64))
    off = ~np.eye(cols.size, dtype=bool)
    A4 = PolynomialSignHash.sample(4, 256, N32, rng=5).matrix(cols)
    G4 = np.round((A4.T @ A4)[off], 9)
    assert set(np.unique(G4)) <= {-1.0, 0.0, 1.0} and np.any(np.abs(G4) == 1.0)
    A8 = PolynomialSignHash.sample(8, 256, N32, rng=5).matrix(cols)
    assert np.abs((A8.T @ A8)[off]).max() <= 0.5


def test_field_functions_reject_bad_input():
    with pytest.raises(ValueError, match=r"^width \(64\)"):
        gf_mul(np.array([1]), np.array([1]), 64)
    with pytest.raises(ValueError, match="left"):
        gf_mul(np.array([8]), np.array([1]), 3)
    with pytest.raises(TypeError, match="right"):
        gf_mul(np.array([1]), np.array([1.5]), 3)
    with pytest.raises(ValueError, match="left"):
        gf_mul_reference(-1, 1, 3)
    with pytest.raises(ValueError, match="right"):
        gf_mul_reference(1, 8, 3)
    with pytest.raises(TypeError, match="left"):
        clmul_reference(1.5, 1)
    with pytest.raises(ValueError, match="coefficients"):
        gf_poly_eval([], np.array([1]), 3)
    with pytest.raises(ValueError, match="points"):
        gf_poly_eval([1], np.array([9]), 3)
    with pytest.raises(ValueError, match="coefficients"):
        gf_poly_eval_reference([9], 1, 3)
    with pytest.raises(ValueError, match="coefficients"):
        gf_poly_eval_reference([], 1, 3)
    with pytest.raises(ValueError, match="modulus"):
        is_irreducible_reference(1)
    with pytest.raises(ValueError, match="power of two"):
        PolynomialSignHash.sample(4, 8, 1000)
    with pytest.raises(ValueError, match="exceeds"):
        PolynomialSignHash.sample(4, 1 << 20, 1 << 48)
    with pytest.raises(ValueError, match="coefficients"):
        PolynomialSignHash(2, 4, 3, (1,))
    f = PolynomialSignHash.sample(2, 4, 8, rng=0)
    with pytest.raises(ValueError, match="rows"):
        f.bits(np.array([4]), np.array([0]))
    with pytest.raises(ValueError, match="cols"):
        f.bits(np.array([0]), np.array([8]))
    with pytest.raises(TypeError, match="cols"):
        f.matrix(np.array([0.5]))


@pytest.mark.parametrize("r, ell, N", [(8, 256, N32), (4, 16, N32), (28, 64, N32), (2, 1, 8), (8, 37, 1 << 48),
                                       (1, 5, 2), (9, 100, 1 << 20)])
def test_table_row_bits_equal_horner(r, ell, N):
    """The row bits read from byte tables of the linear maps y -> λ(c_k·y) equal the direct Horner version."""
    for seed in range(3):
        f = PolynomialSignHash.sample(r, ell, N, rng=seed)
        rows = np.arange(ell, dtype=np.uint64)
        assert np.array_equal(f._row_bits(rows), f._row_bits_reference(rows))


def test_windowed_field_product_equals_shift_and_add():
    """The 4-bit windowed product (used for the powers x^a) equals gf_mul for every field width, at the corners
    (0, 1, all ones) and at random elements; a wrong reduction table would fail at the widths with dense moduli."""
    from dpbook.hashing import MAX_WIDTH, _mul_windowed, _window_table
    rng = np.random.default_rng(0)
    for width in range(4, MAX_WIDTH + 1):
        a = rng.integers(0, 1 << width, size=300, dtype=np.uint64)
        b = rng.integers(0, 1 << width, size=300, dtype=np.uint64)
        a[:3], b[:3] = [0, 1, (1 << width) - 1], [(1 << width) - 1, 0, (1 << width) - 1]
        assert np.array_equal(_mul_windowed(b, _window_table(a, width), width), gf_mul(a, b, width)), width


def test_project_cache_returns_fresh_copies_of_the_same_bytes():
    """A repeated projection (same hash, same CSR arrays) is read from a cache: the same bytes as computing it
    afresh, returned as a writable copy that a caller may change without changing the next answer; another hash
    (or other weights) is not served the cached result."""
    import dpbook.hashing as hashing
    f = hashing.PolynomialSignHash.sample(4, 64, 1 << 20, rng=1)
    indptr, cols, weights = np.array([0, 3, 5]), np.array([7, 9, 1000, 5, 6]), np.array([1.0, 0.5, 0.25, 1.0, 2.0])
    first = f.project(indptr, cols, weights)
    assert first.tobytes() == f._project(indptr, cols, weights).tobytes()
    first[:] = 0.0
    again = f.project(indptr, cols, weights)
    assert again.flags.writeable and again.tobytes() == f._project(indptr, cols, weights).tobytes()
    other = hashing.PolynomialSignHash.sample(4, 64, 1 << 20, rng=2)
    assert other.project(indptr, cols, weights).tobytes() == other._project(indptr, cols, weights).tobytes()
    assert not np.array_equal(other.project(indptr, cols, weights), again)
    assert not np.array_equal(f.project(indptr, cols, 2 * weights), again)
