"""Limited-independence hashing over GF(2^κ) for SparseProject's implicit projection matrix (S1-Def6, S1-Alg).

Blum and Roth never write down their ``ℓ × |X|`` projection matrix ``A``: its entry ``A[i, x]`` is one bit of a
uniformly random polynomial ``p`` of degree ``r - 1`` over the field ``GF(2^κ)``, evaluated at the point that
encodes ``(i, x)``, mapped to ``±1/sqrt(ℓ)``.  Any ``r`` distinct points of ``GF(2^κ)`` receive independent
uniform values of ``p`` (interpolation), so any ``r`` entries of ``A`` are independent fair signs: the family is
``r``-wise independent, and storing ``f`` takes ``r`` field elements, ``r·κ`` bits (S1 Remark, errata S1-E7/E8).

Field arithmetic.  An element of ``GF(2^κ)`` is a polynomial over ``GF(2)`` of degree ``< κ``, stored as the bits
of an integer; addition is XOR; multiplication is carry-less multiplication followed by reduction modulo a fixed
irreducible polynomial of degree ``κ`` (:data:`IRREDUCIBLE`, the lowest trinomial or pentanomial for each ``κ``;
``tests/test_sparse_project.py`` re-checks every entry with Ben-Or's test).  Three versions, from slow to fast:

* :func:`gf_mul_reference` / :func:`gf_poly_eval_reference` — pure Python integers, the definition;
* :func:`gf_mul` / :func:`gf_poly_eval` — the same shift-and-add loop over the bits of one factor, vectorised
  over numpy ``uint64`` arrays (``κ`` passes, for ``κ <= 63``), Horner's rule over arrays;
* :meth:`PolynomialSignHash.signs` — a whole block of ``A`` at once.  Points are ``z = w_i + x`` with
  ``w_i = i·2^b`` (the row, in the high bits) and ``x`` the record (``b`` low bits), and in characteristic 2
  ``p(w + x) = Σ_a x^a G_a(w)`` with ``G_a(w) = Σ_{k >= a} [C(k, a) odd] c_k w^{k-a}`` (Lucas).  The output bit
  ``bit0(g·y)`` is linear in ``y``: ``bit0(g·y) = parity(λ(g) & y)`` with ``λ(g)_j = bit0(g·t^j)``.  So the bit
  matrix is a product over ``GF(2)``: ``F[i, x] = Σ_a <λ(G_a(w_i)), x^a> mod 2`` — one exact ``float32`` matrix
  product of a ``ℓ × r·κ`` and an ``r·κ × |support|`` 0/1 matrix (integer sums below 2^24, exact on any BLAS).
  ``O(r²ℓ + r·|support|)`` field multiplications instead of ``r·ℓ·|support|``.
* :meth:`PolynomialSignHash.project` — the same product, evaluated a byte at a time: the ``ℓ`` bits of
  ``Σ_{j ∈ byte} L[:, j]·v_j`` for every byte value ``v`` are one row of a per-hash table (64 rows of ``A`` to a
  ``uint64`` word), so a column of ``A`` is the XOR of ``r·⌈κ/8⌉`` table rows, indexed by the bytes of ``x^a``.
  The row bits themselves come from byte tables of the linear maps ``y ↦ λ(c_k·y)``, and the powers ``x^a`` from
  a 4-bit windowed product; the direct versions stay as references for the tests.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from .noise import as_generator
from .validation import real_dtype, check_int

__all__ = [
    "IRREDUCIBLE", "irreducible_polynomial", "is_irreducible_reference", "field_bits",
    "clmul_reference", "gf_mul_reference", "gf_poly_eval_reference", "gf_mul", "gf_poly_eval",
    "PolynomialSignHash",
]

#: ``κ -> low bits`` of the irreducible polynomial ``t^κ + low(t)`` used for ``GF(2^κ)`` (the first trinomial
#: ``t^κ + t^k + 1`` with the smallest ``k``, else the first pentanomial in lexicographic order).
IRREDUCIBLE = {
    1: 1, 2: 3, 3: 3, 4: 3, 5: 5, 6: 3, 7: 3, 8: 135, 9: 3, 10: 9, 11: 5, 12: 9, 13: 39, 14: 33, 15: 3, 16: 71,
    17: 9, 18: 9, 19: 39, 20: 9, 21: 5, 22: 3, 23: 33, 24: 135, 25: 9, 26: 71, 27: 39, 28: 3, 29: 5, 30: 3, 31: 9,
    32: 4194311, 33: 1025, 34: 129, 35: 5, 36: 513, 37: 519, 38: 135, 39: 17, 40: 134217735, 41: 9, 42: 129,
    43: 4103, 44: 33, 45: 131079, 46: 3, 47: 33, 48: 131079, 49: 513, 50: 519, 51: 268435463, 52: 9, 53: 71,
    54: 513, 55: 129, 56: 2097159, 57: 17, 58: 524289, 59: 16777223, 60: 3, 61: 39, 62: 536870913, 63: 3,
}

MAX_WIDTH = 63          # elements fit a uint64 with one spare bit, so ``r << 1`` never overflows


def _check_width(width) -> int:
    return check_int("width", width, low=1, high=MAX_WIDTH)


def irreducible_polynomial(width) -> int:
    """The full modulus ``t^κ + low(t)`` of ``GF(2^κ)`` as an integer (bit ``κ`` set)."""
    width = _check_width(width)
    return (1 << width) | IRREDUCIBLE[width]


def field_bits(ell, N) -> int:
    """The smallest ``κ`` with ``2^κ >= ℓ·N`` (S1 hash remark, erratum S1-E7: the seed has ``<=``)."""
    ell, N = check_int("ell", ell, low=1), check_int("N", N, low=1)
    return max(1, (ell * N - 1).bit_length())


# --------------------------------------------------------------------------- slow reference (pure Python)

def clmul_reference(left: int, right: int) -> int:
    """Carry-less product of two non-negative integers (polynomials over GF(2)), bit by bit."""
    a, b = check_int("left", left, low=0, exact=False), check_int("right", right, low=0, exact=False)
    out = 0
    while b:
        if b & 1:
            out ^= a
        a <<= 1
        b >>= 1
    return out


def _poly_mod(a: int, p: int) -> int:
    dp = p.bit_length() - 1
    while a and a.bit_length() - 1 >= dp:
        a ^= p << (a.bit_length() - 1 - dp)
    return a


def gf_mul_reference(left: int, right: int, width: int) -> int:
    """``left·right`` in ``GF(2^κ)``: carry-less multiply, reduce by :func:`irreducible_polynomial` (definition)."""
    width = _check_width(width)
    a = check_int("left", left, low=0, high=(1 << width) - 1, exact=False)
    b = check_int("right", right, low=0, high=(1 << width) - 1, exact=False)
    return _poly_mod(clmul_reference(a, b), irreducible_polynomial(width))


def gf_poly_eval_reference(coefficients, point: int, width: int) -> int:
    """``p(z) = Σ_k c_k z^k`` at ``z = point`` in ``GF(2^κ)`` by Horner's rule (``coefficients`` lowest first)."""
    coefficients = list(coefficients)
    if not coefficients:
        raise ValueError("coefficients must not be empty")
    out = 0
    for c in reversed(coefficients):
        out = gf_mul_reference(out, point, width) ^ check_int("coefficients", c, low=0, high=(1 << width) - 1, exact=False)
    return out


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, _poly_mod(a, b)
    return a


def is_irreducible_reference(modulus: int) -> bool:
    """Ben-Or's test: ``p`` of degree ``d`` is irreducible over GF(2) iff ``t^(2^d) ≡ t (mod p)`` and
    ``gcd(t^(2^(d/q)) - t, p) = 1`` for every prime ``q | d``."""
    p = check_int("modulus", modulus, low=2, exact=False)
    d = p.bit_length() - 1

    def t_pow_2k(k):
        y = 2
        for _ in range(k):
            y = _poly_mod(clmul_reference(y, y), p)
        return y

    if t_pow_2k(d) != _poly_mod(2, p):
        return False
    q, rest, primes = 2, d, set()
    while q * q <= rest:
        if rest % q == 0:
            primes.add(q)
            rest //= q
        else:
            q += 1
    if rest > 1:
        primes.add(rest)
    return all(_gcd(p, t_pow_2k(d // q) ^ 2) == 1 for q in primes)


# --------------------------------------------------------------------------- vectorised (numpy uint64)

def _as_field_array(name, value, width) -> np.ndarray:
    arr = np.asarray(value)
    if not real_dtype(arr.dtype, integer=True):
        raise TypeError(f"{name} must hold integers (field elements), got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or int(arr.max()) >= (1 << width)):
        raise ValueError(f"{name} must hold field elements in [0, 2^{width})")
    return arr.astype(np.uint64)


def _xtime(g: np.ndarray, width: int, low: np.uint64, one: np.uint64) -> np.ndarray:
    """``g·t`` in GF(2^κ) for an array ``g`` (one shift, one conditional XOR of the modulus)."""
    top = (g >> np.uint64(width - 1)) & one
    g = (g << one) & np.uint64((1 << width) - 1)
    return g ^ (top * low)


def _mul(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    """``a·b`` in GF(2^κ) for validated uint64 arrays (broadcast): MSB-first shift-and-add, reduced as it goes."""
    one, low = np.uint64(1), np.uint64(IRREDUCIBLE[width])
    a, b = np.broadcast_arrays(a, b)
    out = np.zeros(a.shape, dtype=np.uint64)
    for t in range(width - 1, -1, -1):
        out = _xtime(out, width, low, one)
        out ^= a & (np.uint64(0) - ((b >> np.uint64(t)) & one))
    return out


def _window_table(a: np.ndarray, width: int) -> np.ndarray:
    """``(16, len(a))``: ``a·v`` for every 4-bit ``v`` (for :func:`_mul_windowed`; ``κ >= 4``)."""
    one, low = np.uint64(1), np.uint64(IRREDUCIBLE[width])
    table = np.zeros((16,) + a.shape, dtype=np.uint64)
    table[1] = a
    for j in (2, 4, 8):
        table[j] = _xtime(table[j // 2], width, low, one)
    for v in range(3, 16):
        if v & (v - 1):
            table[v] = table[v & -v] ^ table[v & (v - 1)]
    return table


def _mul_windowed(b: np.ndarray, table: np.ndarray, width: int) -> np.ndarray:
    """``a·b`` in GF(2^κ) given ``table = _window_table(a)``: ``b`` read 4 bits at a time from the top, the running
    product multiplied by ``t^4`` (the 4 bits shifted out reduced by a 16-entry table).  Equals :func:`_mul`."""
    shift = np.uint64(width - 4)
    keep = np.uint64((1 << (width - 4)) - 1)
    reduce = _reduction_table(width)
    n = b.size
    flat = table.reshape(16, n)
    base = np.arange(n, dtype=np.intp)
    out = np.zeros(n, dtype=np.uint64)
    for s in range((width + 3) // 4 - 1, -1, -1):
        out = ((out & keep) << np.uint64(4)) ^ reduce[out >> shift]
        out ^= flat.ravel()[((b.ravel() >> np.uint64(4 * s)) & np.uint64(15)).astype(np.intp) * n + base]
    return out.reshape(b.shape)


def _powers_times(x: np.ndarray, width: int):
    """Yield ``x^0, x^1, x^2, ...`` (uint64 arrays): each the previous times ``x`` (windowed when ``κ >= 4``)."""
    power = np.ones(x.shape, dtype=np.uint64)
    table = _window_table(x, width) if width >= 4 else None
    while True:
        yield power
        power = _mul(power, x, width) if table is None else _mul_windowed(power, table, width)


@functools.lru_cache(maxsize=None)
def _reduction_table(width: int) -> np.ndarray:
    """``c·t^κ mod p`` for every ``c < 16`` (the bits that :func:`_mul_windowed` shifts out of the top)."""
    table = np.array([_poly_mod(clmul_reference(c, 1 << width), irreducible_polynomial(width)) for c in range(16)],
                     dtype=np.uint64)
    table.setflags(write=False)
    return table


def gf_mul(left, right, width) -> np.ndarray:
    """``left·right`` in ``GF(2^κ)`` element-wise over numpy arrays (``κ <= 63``); see :func:`gf_mul_reference`."""
    width = _check_width(width)
    return _mul(_as_field_array("left", left, width), _as_field_array("right", right, width), width)


def _poly_eval(coefficients, z: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros(z.shape, dtype=np.uint64)
    for c in reversed(coefficients):
        out = _mul(out, z, width) ^ np.uint64(c)
    return out


def gf_poly_eval(coefficients, points, width) -> np.ndarray:
    """``p(z)`` for an array of ``points`` by Horner's rule over arrays (``coefficients`` lowest first)."""
    width = _check_width(width)
    if np.asarray(coefficients).size == 0:
        raise ValueError("coefficients must not be empty")
    coefficients = [int(c) for c in _as_field_array("coefficients", coefficients, width).ravel()]
    return _poly_eval(coefficients, _as_field_array("points", points, width), width)


def _bits(values: np.ndarray, width: int) -> np.ndarray:
    """``(len, κ)`` 0/1 float32 matrix of the low ``κ`` bits of uint64 ``values``."""
    shifts = np.arange(width, dtype=np.uint64)
    return ((values[:, None] >> shifts) & np.uint64(1)).astype(np.float32)


# --------------------------------------------------------------------------- the hash family

_BLOCK = 1 << 22          # ℓ × (elements per run) of project(): the run length fixes its summation order
_ROWS_BLOCK = 1 << 19     # entries of A built at once by project(): 16 bytes each (float32, int32, float64)
_SHARED_ROWS = 1 << 16    # row bits of hashes up to this ℓ are shared by equal hashes (a few MiB each, 8 kept)


@dataclass(frozen=True)
class PolynomialSignHash:
    """``f(z) = (2·bit0(p(z)) - 1)/sqrt(ℓ)`` for a uniformly random ``p`` of degree ``<= r - 1`` over
    ``GF(2^κ)``: an ``r``-wise independent hash ``[ℓ·2^b] -> {±1/sqrt(ℓ)}`` (S1-Def6, S1 Remark, S1-E7/E8).

    It stands for the projection matrix ``A[i, x] = f(i·2^b + x)`` (rows ``i = 0..ℓ-1``, records
    ``x ∈ [0, 2^b)``; S1's 1-based ``N(i-1)+j`` shifted to start at 0).  Storage: the ``r`` coefficients.
    """

    r: int
    ell: int
    b: int
    coefficients: tuple[int, ...] = field(repr=False)
    _all_rows: list = field(default_factory=list, init=False, repr=False, compare=False)   # cache of _row_bits(all)

    def __post_init__(self):
        check_int("r", self.r, low=1)
        check_int("ell", self.ell, low=1)
        check_int("b", self.b, low=0)
        width = self.width
        if width > MAX_WIDTH:
            raise ValueError(f"ell ({self.ell}) · 2^b ({self.b} bits) needs GF(2^{width}); at most 2^{MAX_WIDTH} points")
        if len(self.coefficients) != self.r or any(not 0 <= int(c) < (1 << width) for c in self.coefficients):
            raise ValueError(f"coefficients must be r ({self.r}) field elements in [0, 2^{width})")

    @property
    def width(self) -> int:
        """The field ``GF(2^κ)``, ``κ`` the smallest with ``2^κ >= ℓ·2^b`` (S1-E7)."""
        return field_bits(self.ell, 1 << self.b)

    @property
    def N(self) -> int:
        return 1 << self.b

    @classmethod
    def sample(cls, r, ell, N, rng=None) -> "PolynomialSignHash":
        """Draw ``f`` uniformly from the family: ``r`` uniform coefficients in ``GF(2^κ)``.

        ``N`` (the universe size) must be a power of two, ``N = 2^b`` (records are ``b``-bit strings), so the
        point of ``(i, x)`` is the bit string ``i`` followed by ``x``.
        """
        r, ell, N = check_int("r", r, low=1), check_int("ell", ell, low=1), check_int("N", N, low=1)
        if N & (N - 1):
            raise ValueError(f"N ({N}) must be a power of two (records are b-bit strings)")
        b = N.bit_length() - 1
        width = field_bits(ell, N)
        if width > MAX_WIDTH:
            raise ValueError(f"ell ({ell}) · N ({N}) exceeds 2^{MAX_WIDTH}: choose a smaller ell")
        rng = as_generator(rng)
        coefficients = tuple(int(c) for c in rng.integers(0, 1 << width, size=r, dtype=np.uint64))
        return cls(r, ell, b, coefficients)

    def points(self, rows, cols) -> np.ndarray:
        """The field points ``i·2^b + x`` of ``A[i, x]`` (a ``(len(rows), len(cols))`` uint64 array)."""
        rows, cols = self._check_rows(rows), self._check_cols(cols)
        return (rows[:, None] << np.uint64(self.b)) | cols[None, :]

    def _check_rows(self, rows) -> np.ndarray:
        rows = np.asarray(rows)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise TypeError("rows must be a 1-D integer array of row indices")
        if rows.size and (rows.min() < 0 or rows.max() >= self.ell):
            raise ValueError(f"rows must lie in [0, ℓ) = [0, {self.ell})")
        return rows.astype(np.uint64)

    def _check_cols(self, cols) -> np.ndarray:
        cols = np.asarray(cols)
        if cols.ndim != 1 or not np.issubdtype(cols.dtype, np.integer):
            raise TypeError("cols must be a 1-D integer array of universe elements")
        if cols.size and (cols.min() < 0 or int(cols.max()) >= self.N):
            raise ValueError(f"cols must be universe elements in [0, N) = [0, {self.N})")
        return cols.astype(np.uint64)

    def bits_reference(self, rows, cols) -> np.ndarray:
        """``bit0(p(i·2^b + x))`` by Horner's rule at every point (the slow, obvious version)."""
        z = self.points(rows, cols)
        return (_poly_eval(list(self.coefficients), z, self.width) & np.uint64(1)).astype(np.int8)

    # -- the fast path: F[i, x] = Σ_a <λ(G_a(w_i)), x^a> mod 2 -------------------------------------------------

    def _row_bits(self, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), r·κ)`` 0/1 matrix: block ``a`` holds the bits of ``λ(G_a(w_i))``.

        ``λ(G_a(w)) = Σ_{k >= a, a ⊆ k} λ(c_k · w^(k-a))`` and ``y ↦ λ(c_k · y)`` is ``GF(2)``-linear, so it is
        read from a table by the bytes of ``y``: ``U[k, p, v] = λ(c_k · (v << 8p))``, XOR-ed over the bytes
        ``p`` of ``w^(k-a)``.  ``r - 1`` field multiplications of arrays (the powers of ``w``) and one table of
        ``r·⌈κ/8⌉·256`` products, instead of Horner's ``r(r+1)/2`` multiplications and ``r·κ`` shifts."""
        width, r = self.width, self.r
        one, low = np.uint64(1), np.uint64(IRREDUCIBLE[width])
        per = (width + 7) // 8
        w = rows << np.uint64(self.b)
        B = np.empty((r, per, rows.size), dtype=np.intp)                   # bytes of w^e
        for e, power in zip(range(r), _powers_times(w, width)):
            for p in range(per):
                B[e, p] = (power >> np.uint64(8 * p)) & np.uint64(255)
        v = (np.arange(256, dtype=np.uint64)[None, :] << (8 * np.arange(per, dtype=np.uint64))[:, None]) \
            & np.uint64((1 << width) - 1)                                   # (per, 256): v << 8p in the field
        g = _mul(np.array(self.coefficients, dtype=np.uint64)[:, None, None], v[None], width)   # (r, per, 256)
        U = np.zeros(g.shape, dtype=np.uint64)
        for j in range(width):                                              # λ(g)_j = bit0(g·t^j)
            U |= (g & one) << np.uint64(j)
            g = _xtime(g, width, low, one)
        out = np.empty((rows.size, r * width), dtype=np.float32)
        for a in range(r):
            acc = np.zeros(rows.size, dtype=np.uint64)
            for k in range(a, r):
                if a & ~k == 0:                                             # C(k, a) odd iff a ⊆ k (Lucas)
                    for p in range(per):
                        acc ^= U[k, p, B[k - a, p]]
            out[:, a * width:(a + 1) * width] = _bits(acc, width)
        return out

    def _row_bits_reference(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`_row_bits` the direct way: ``G_a`` by Horner's rule in ``w``, ``λ`` by ``κ`` shifts (the tests
        compare the two)."""
        width, r = self.width, self.r
        one, low = np.uint64(1), np.uint64(IRREDUCIBLE[width])
        w = rows << np.uint64(self.b)
        out = np.empty((rows.size, r * width), dtype=np.float32)
        for a in range(r):
            g = np.zeros(w.shape, dtype=np.uint64)
            for k in range(r - 1, a - 1, -1):
                g = _mul(g, w, width) ^ np.uint64(self.coefficients[k] if (a & ~k) == 0 else 0)
            for j in range(width):
                out[:, a * width + j] = (g & one).astype(np.float32)
                g = _xtime(g, width, low, one)
        return out

    def _col_bits(self, cols: np.ndarray) -> np.ndarray:
        """``(len(cols), r·κ)`` 0/1 matrix: block ``a`` holds the bits of ``x^a``."""
        width, r = self.width, self.r
        out = np.empty((cols.size, r * width), dtype=np.float32)
        for a, power in zip(range(r), _powers_times(cols, width)):
            out[:, a * width:(a + 1) * width] = _bits(power, width)
        return out

    def bits(self, rows, cols) -> np.ndarray:
        """``bit0(p(i·2^b + x))`` for all ``rows × cols`` via the bilinear form (equals :meth:`bits_reference`)."""
        rows, cols = self._check_rows(rows), self._check_cols(cols)
        F = self._row_bits(rows) @ self._col_bits(cols).T          # exact: integers < r·κ <= 2^24
        return (F.astype(np.int64) & 1).astype(np.int8)

    def signs(self, rows, cols) -> np.ndarray:
        """The block ``A[rows, cols]`` with entries ``±1/sqrt(ℓ)`` (float64)."""
        return (2.0 * self.bits(rows, cols) - 1.0) / np.sqrt(self.ell)

    def matrix(self, cols) -> np.ndarray:
        """All ``ℓ`` rows of ``A`` on the columns ``cols``: ``(ℓ, len(cols))``."""
        return self.signs(np.arange(self.ell), cols)

    def project(self, indptr, cols, weights) -> np.ndarray:
        """``A q_j`` for sparse vectors ``q_j`` in CSR form (row ``j``: ``cols[indptr[j]:indptr[j+1]]`` with
        ``weights``): a ``(len(indptr) - 1, ℓ)`` array.  Never builds more than a block of ``A`` at a time:
        working memory ``O(ℓ·r·κ + block)``, time ``O(ℓ·|cols|·r·κ / 64)`` word operations.

        The bits of a block of ``A`` come from :meth:`_row_table`: ``F[:, x]`` is the XOR, over the bytes of
        ``x``'s column bits (the bits of ``x^a``, ``a < r``), of one table row each — ``ℓ`` bits packed into
        64-bit words, so one column costs ``r·⌈κ/8⌉`` XORs of ``⌈ℓ/64⌉`` words instead of an ``ℓ × r·κ`` product.
        The universe elements are taken in runs of ``_BLOCK // ℓ`` (the run fixes the order of the floating-point
        sums, hence the bytes of the result); each run's block of ``A`` is built row range by row range (at most
        about ``_ROWS_BLOCK`` entries, whole 64-row words; every entry of the result is still the same sum in the
        same order), so the signs of one piece stay below ``16 · _ROWS_BLOCK`` bytes whatever ``ℓ`` is.
        :meth:`_project_reference` is the one-block version (a 0/1 matrix product) the tests compare with, byte
        for byte."""
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        cols = np.ascontiguousarray(self._check_cols(cols), dtype=np.int64)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if (indptr.size - 1) * self.ell <= _CACHED_ENTRIES:
            self._row_table()              # the hash's own tables as after a fresh projection (equal hashes share them)
            return _cached_projection(self, _BLOCK, _ROWS_BLOCK, indptr.tobytes(), cols.tobytes(),
                                      weights.tobytes()).copy()
        return self._project(indptr, cols, weights)

    def _project(self, indptr, cols, weights) -> np.ndarray:
        """:meth:`project` on converted inputs (``int64``, ``int64``, ``float64``), computed afresh."""
        import scipy.sparse as sp
        q = indptr.size - 1
        unique, inverse = np.unique(cols, return_inverse=True)
        Q = sp.csr_matrix((weights, inverse, indptr), shape=(q, unique.size)).tocsc()
        del inverse
        table = self._row_table()                                             # (r·⌈κ/8⌉, 256, words) uint64
        words = table.shape[2]
        out = np.zeros((q, self.ell))
        minus, plus = np.array([-1.0, 1.0]) / np.sqrt(self.ell)   # the same two floats as the reference's table
        chunk = max(1, _BLOCK // max(self.ell, 1))
        for start in range(0, unique.size, chunk):
            part = unique[start:start + chunk].astype(np.uint64)
            keys = self._col_bytes(part)                                       # (chunk, r·⌈κ/8⌉) byte values
            Q_part = Q[:, start:start + part.size]
            packed = np.zeros((part.size, words), dtype=np.uint64)             # all ℓ bits of each column
            for c in range(keys.shape[1]):
                packed ^= table[c].take(keys[:, c], axis=0)
            step = max(1, _ROWS_BLOCK // (64 * part.size))                     # words of rows per piece
            for w0 in range(0, words, step):
                w1 = min(words, w0 + step)
                F = np.unpackbits(np.ascontiguousarray(packed[:, w0:w1]).view(np.uint8), axis=1,
                                  bitorder="little")                           # (chunk, 64·(w1 - w0))
                i0, i1 = 64 * w0, min(self.ell, 64 * w1)
                signs_T = np.where(F[:, :i1 - i0].view(bool), plus, minus)     # ±1/sqrt(ℓ), (chunk, rows)
                del F
                out[:, i0:i1] += np.asarray(Q_part @ signs_T)
        return out

    def _row_table(self) -> np.ndarray:
        """For each byte ``c`` of the column bits and each byte value ``v``: the ``ℓ`` bits
        ``Σ_{j: bit j of v} L[i, 8c + j] mod 2`` (``L`` = :meth:`_row_bits` of every row), packed 64 rows to a
        ``uint64`` word, little-endian.  Computed once per hash (shared by equal hashes, like the row bits), by
        doubling over the 8 bits of ``v``."""
        if len(self._all_rows) < 2:
            L = self._all_row_bits()
            self._all_rows.append(_shared_row_table(self) if self.ell <= _SHARED_ROWS else _build_row_table(self, L))
        return self._all_rows[1]

    def _col_bytes(self, cols: np.ndarray) -> np.ndarray:
        """``(len(cols), r·⌈κ/8⌉)`` byte values (uint8): byte ``c`` of ``x^a`` at column ``a·⌈κ/8⌉ + c``.  The powers
        depend on the field and ``r`` only, not on the coefficients: shared by every hash over the same field."""
        return _col_bytes(self.width, self.r, np.ascontiguousarray(cols, dtype=np.uint64).tobytes())

    def _all_row_bits(self) -> np.ndarray:
        """``_row_bits`` of every row ``0..ℓ-1`` (``(ℓ, r·κ)`` float32), computed once per hash (and shared by equal
        hashes: the same seed draws the same coefficients)."""
        if not self._all_rows:
            self._all_rows.append(_shared_row_bits(self) if self.ell <= _SHARED_ROWS else
                                  self._row_bits(np.arange(self.ell, dtype=np.uint64)))
        return self._all_rows[0]

    def _project_reference(self, indptr, cols, weights) -> np.ndarray:
        """:meth:`project` with each run's whole ``ℓ × chunk`` block of ``A`` at once (the simple version; more
        memory): the tests check that :meth:`project` returns the same bytes."""
        import scipy.sparse as sp
        indptr = np.asarray(indptr, dtype=np.int64)
        cols = self._check_cols(cols).astype(np.int64)
        unique, inverse = np.unique(cols, return_inverse=True)
        Q = sp.csr_matrix((np.asarray(weights, dtype=np.float64), inverse, indptr),
                          shape=(indptr.size - 1, unique.size)).tocsc()
        L = self._all_row_bits()
        out = np.zeros((indptr.size - 1, self.ell))
        sign_of_bit = np.array([-1.0, 1.0]) / np.sqrt(self.ell)
        chunk = max(1, _BLOCK // max(self.ell, 1))
        for start in range(0, unique.size, chunk):
            part = unique[start:start + chunk].astype(np.uint64)
            F = (L @ self._col_bits(part).T).astype(np.int32) & 1
            out += np.asarray(Q[:, start:start + part.size] @ sign_of_bit.take(F).T)
        return out

    def memory_words(self) -> int:
        """Words (8 bytes) to store ``f``: its ``r`` coefficients (``r·κ`` bits)."""
        return self.r


#: results of :meth:`PolynomialSignHash.project` up to this many entries (8 bytes each) are kept, 16 of them: a
#: chapter projects the same database and queries under the same hash many times (a sweep over ε, the error
#: decomposition of a release, which projects the database again)
_CACHED_ENTRIES = 1 << 19


@functools.lru_cache(maxsize=16)
def _cached_projection(f: PolynomialSignHash, block: int, rows_block: int, indptr: bytes, cols: bytes,
                       weights: bytes) -> np.ndarray:
    """:meth:`PolynomialSignHash.project` of the CSR arrays given by their bytes, read-only, cached by the hash's
    value, the run lengths ``_BLOCK`` and ``_ROWS_BLOCK`` in force (``_BLOCK`` fixes the summation order) and
    those bytes: the same key, the same bytes out (the computation is deterministic)."""
    out = f._project(np.frombuffer(indptr, dtype=np.int64), np.frombuffer(cols, dtype=np.int64),
                     np.frombuffer(weights, dtype=np.float64))
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=8)
def _shared_row_bits(f: PolynomialSignHash) -> np.ndarray:
    """:meth:`PolynomialSignHash._row_bits` of every row, read-only, cached by the hash's value ``(r, ℓ, b,
    coefficients)``: a chapter that releases many times with one seed builds them once."""
    bits = f._row_bits(np.arange(f.ell, dtype=np.uint64))
    bits.setflags(write=False)
    return bits


@functools.lru_cache(maxsize=16)
def _col_bytes(width: int, r: int, cols: bytes) -> np.ndarray:
    """:meth:`PolynomialSignHash._col_bytes` of the uint64 records in ``cols`` (read-only, cached: a chapter projects
    the same database and queries under many hashes over the same field)."""
    x = np.frombuffer(cols, dtype=np.uint64)
    per = (width + 7) // 8
    out = np.empty((x.size, r * per), dtype=np.uint8)
    for a, power in zip(range(r), _powers_times(x, width)):
        for c in range(per):
            out[:, a * per + c] = (power >> np.uint64(8 * c)) & np.uint64(255)
    out.setflags(write=False)
    return out


def _build_row_table(f: PolynomialSignHash, L: np.ndarray) -> np.ndarray:
    """:meth:`PolynomialSignHash._row_table` from the row bits ``L`` (read-only)."""
    width, r, ell = f.width, f.r, f.ell
    per = (width + 7) // 8
    words = (ell + 63) // 64
    bits = np.zeros((r * per * 8, words * 64), dtype=np.uint8)             # zero rows pad κ to whole bytes
    for a in range(r):
        bits[a * per * 8:a * per * 8 + width, :ell] = L[:, a * width:(a + 1) * width].T
    single = np.packbits(bits, axis=1, bitorder="little").view(np.uint64).reshape(r * per, 8, words)
    table = np.zeros((r * per, 256, words), dtype=np.uint64)
    for j in range(8):
        table[:, 1 << j:2 << j] = table[:, :1 << j] ^ single[:, j, None, :]
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=8)
def _shared_row_table(f: PolynomialSignHash) -> np.ndarray:
    """:func:`_build_row_table` cached by the hash's value (as :func:`_shared_row_bits`)."""
    return _build_row_table(f, f._all_row_bits())
