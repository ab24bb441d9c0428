"""Limited-independence hashing over GF(2^s) for SparseProject's implicit projection matrix (S1-Def6, S1-Alg).

Blum and Roth never write down their ``T × |X|`` projection matrix ``A``: its entry ``A[i, x]`` is one bit of a
uniformly random polynomial ``p`` of degree ``r - 1`` over the field ``GF(2^s)``, evaluated at the point that
encodes ``(i, x)``, mapped to ``±1/sqrt(T)``.  Any ``r`` distinct points of ``GF(2^s)`` receive independent
uniform values of ``p`` (interpolation), so any ``r`` entries of ``A`` are independent fair signs: the family is
``r``-wise independent, and storing ``f`` takes ``r`` field elements, ``r·s`` bits (S1 Remark, errata S1-E7/E8).

Field arithmetic.  An element of ``GF(2^s)`` is a polynomial over ``GF(2)`` of degree ``< s``, stored as the bits
of an integer; addition is XOR; multiplication is carry-less multiplication followed by reduction modulo a fixed
irreducible polynomial of degree ``s`` (:data:`IRREDUCIBLE`, the lowest trinomial or pentanomial for each ``s``;
``tests/test_sparse_project.py`` re-checks every entry with Ben-Or's test).  Three versions, from slow to fast:

* :func:`gf_mul_reference` / :func:`gf_poly_eval_reference` — pure Python integers, the definition;
* :func:`gf_mul` / :func:`gf_poly_eval` — the same shift-and-add loop over the bits of one factor, vectorised
  over numpy ``uint64`` arrays (``s`` passes, for ``s <= 63``), Horner's rule over arrays;
* :meth:`PolynomialSignHash.signs` — a whole block of ``A`` at once.  Points are ``z = w_i + x`` with
  ``w_i = i·2^b`` (the row, in the high bits) and ``x`` the record (``b`` low bits), and in characteristic 2
  ``p(w + x) = Σ_a x^a G_a(w)`` with ``G_a(w) = Σ_{k >= a} [C(k, a) odd] c_k w^{k-a}`` (Lucas).  The output bit
  ``bit0(g·y)`` is linear in ``y``: ``bit0(g·y) = parity(ℓ(g) & y)`` with ``ℓ(g)_j = bit0(g·t^j)``.  So the bit
  matrix is a product over ``GF(2)``: ``F[i, x] = Σ_a <ℓ(G_a(w_i)), x^a> mod 2`` — one exact ``float32`` matrix
  product of a ``T × r·s`` and an ``r·s × |support|`` 0/1 matrix (integer sums below 2^24, exact on any BLAS).
  ``O(r²T + r·|support|)`` field multiplications instead of ``r·T·|support|``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .noise import as_generator
from .validation import real_dtype, check_int

__all__ = [
    "IRREDUCIBLE", "irreducible_polynomial", "is_irreducible_reference", "field_bits",
    "clmul_reference", "gf_mul_reference", "gf_poly_eval_reference", "gf_mul", "gf_poly_eval",
    "PolynomialSignHash",
]

#: ``s -> low bits`` of the irreducible polynomial ``t^s + low(t)`` used for ``GF(2^s)`` (the first trinomial
#: ``t^s + t^k + 1`` with the smallest ``k``, else the first pentanomial in lexicographic order).
IRREDUCIBLE = {
    1: 1, 2: 3, 3: 3, 4: 3, 5: 5, 6: 3, 7: 3, 8: 135, 9: 3, 10: 9, 11: 5, 12: 9, 13: 39, 14: 33, 15: 3, 16: 71,
    17: 9, 18: 9, 19: 39, 20: 9, 21: 5, 22: 3, 23: 33, 24: 135, 25: 9, 26: 71, 27: 39, 28: 3, 29: 5, 30: 3, 31: 9,
    32: 4194311, 33: 1025, 34: 129, 35: 5, 36: 513, 37: 519, 38: 135, 39: 17, 40: 134217735, 41: 9, 42: 129,
    43: 4103, 44: 33, 45: 131079, 46: 3, 47: 33, 48: 131079, 49: 513, 50: 519, 51: 268435463, 52: 9, 53: 71,
    54: 513, 55: 129, 56: 2097159, 57: 17, 58: 524289, 59: 16777223, 60: 3, 61: 39, 62: 536870913, 63: 3,
}

MAX_S = 63          # elements fit a uint64 with one spare bit, so ``r << 1`` never overflows


def _check_s(s) -> int:
    return check_int("s", s, low=1, high=MAX_S)


def irreducible_polynomial(s) -> int:
    """The full modulus ``t^s + low(t)`` of ``GF(2^s)`` as an integer (bit ``s`` set)."""
    s = _check_s(s)
    return (1 << s) | IRREDUCIBLE[s]


def field_bits(T, N) -> int:
    """The smallest ``s`` with ``2^s >= T·N`` (S1 hash remark, erratum S1-E7: the seed has ``<=``)."""
    T, N = check_int("T", T, low=1), check_int("N", N, low=1)
    return max(1, (T * N - 1).bit_length())


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


def gf_mul_reference(left: int, right: int, s: int) -> int:
    """``left·right`` in ``GF(2^s)``: carry-less multiply, reduce by :func:`irreducible_polynomial` (definition)."""
    s = _check_s(s)
    a = check_int("left", left, low=0, high=(1 << s) - 1, exact=False)
    b = check_int("right", right, low=0, high=(1 << s) - 1, exact=False)
    return _poly_mod(clmul_reference(a, b), irreducible_polynomial(s))


def gf_poly_eval_reference(coefficients, point: int, s: int) -> int:
    """``p(z) = Σ_k c_k z^k`` at ``z = point`` in ``GF(2^s)`` by Horner's rule (``coefficients`` lowest first)."""
    coefficients = list(coefficients)
    if not coefficients:
        raise ValueError("coefficients must not be empty")
    out = 0
    for c in reversed(coefficients):
        out = gf_mul_reference(out, point, s) ^ check_int("coefficients", c, low=0, high=(1 << s) - 1, exact=False)
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

def _as_field_array(name, value, s) -> np.ndarray:
    arr = np.asarray(value)
    if not real_dtype(arr.dtype, integer=True):
        raise TypeError(f"{name} must hold integers (field elements), got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or int(arr.max()) >= (1 << s)):
        raise ValueError(f"{name} must hold field elements in [0, 2^{s})")
    return arr.astype(np.uint64)


def _xtime(g: np.ndarray, s: int, low: np.uint64, one: np.uint64) -> np.ndarray:
    """``g·t`` in GF(2^s) for an array ``g`` (one shift, one conditional XOR of the modulus)."""
    top = (g >> np.uint64(s - 1)) & one
    g = (g << one) & np.uint64((1 << s) - 1)
    return g ^ (top * low)


def _mul(a: np.ndarray, b: np.ndarray, s: int) -> np.ndarray:
    """``a·b`` in GF(2^s) for validated uint64 arrays (broadcast): MSB-first shift-and-add, reduced as it goes."""
    one, low = np.uint64(1), np.uint64(IRREDUCIBLE[s])
    a, b = np.broadcast_arrays(a, b)
    out = np.zeros(a.shape, dtype=np.uint64)
    for t in range(s - 1, -1, -1):
        out = _xtime(out, s, low, one)
        out ^= a & (np.uint64(0) - ((b >> np.uint64(t)) & one))
    return out


def gf_mul(left, right, s) -> np.ndarray:
    """``left·right`` in ``GF(2^s)`` element-wise over numpy arrays (``s <= 63``); see :func:`gf_mul_reference`."""
    s = _check_s(s)
    return _mul(_as_field_array("left", left, s), _as_field_array("right", right, s), s)


def _poly_eval(coefficients, z: np.ndarray, s: int) -> np.ndarray:
    out = np.zeros(z.shape, dtype=np.uint64)
    for c in reversed(coefficients):
        out = _mul(out, z, s) ^ np.uint64(c)
    return out


def gf_poly_eval(coefficients, points, s) -> np.ndarray:
    """``p(z)`` for an array of ``points`` by Horner's rule over arrays (``coefficients`` lowest first)."""
    s = _check_s(s)
    if np.asarray(coefficients).size == 0:
        raise ValueError("coefficients must not be empty")
    coefficients = [int(c) for c in _as_field_array("coefficients", coefficients, s).ravel()]
    return _poly_eval(coefficients, _as_field_array("points", points, s), s)


def _bits(values: np.ndarray, s: int) -> np.ndarray:
    """``(len, s)`` 0/1 float32 matrix of the low ``s`` bits of uint64 ``values``."""
    shifts = np.arange(s, dtype=np.uint64)
    return ((values[:, None] >> shifts) & np.uint64(1)).astype(np.float32)


# --------------------------------------------------------------------------- the hash family

_BLOCK = 1 << 22          # T × (elements per run) of project(): the run length fixes its summation order
_ROWS_BLOCK = 1 << 19     # entries of A built at once by project(): 16 bytes each (float32, int32, float64)


@dataclass(frozen=True)
class PolynomialSignHash:
    """``f(z) = (2·bit0(p(z)) - 1)/sqrt(T)`` for a uniformly random ``p`` of degree ``<= r - 1`` over
    ``GF(2^s)``: an ``r``-wise independent hash ``[T·2^b] -> {±1/sqrt(T)}`` (S1-Def6, S1 Remark, S1-E7/E8).

    It stands for the projection matrix ``A[i, x] = f(i·2^b + x)`` (rows ``i = 0..T-1``, records
    ``x ∈ [0, 2^b)``; S1's 1-based ``N(i-1)+j`` shifted to start at 0).  Storage: the ``r`` coefficients.
    """

    r: int
    T: int
    b: int
    coefficients: tuple[int, ...] = field(repr=False)
    _all_rows: list = field(default_factory=list, init=False, repr=False, compare=False)   # cache of _row_bits(all)

    def __post_init__(self):
        check_int("r", self.r, low=1)
        check_int("T", self.T, low=1)
        check_int("b", self.b, low=0)
        s = self.s
        if s > MAX_S:
            raise ValueError(f"T ({self.T}) · 2^b ({self.b} bits) needs GF(2^{s}); at most 2^{MAX_S} points")
        if len(self.coefficients) != self.r or any(not 0 <= int(c) < (1 << s) for c in self.coefficients):
            raise ValueError(f"coefficients must be r ({self.r}) field elements in [0, 2^{s})")

    @property
    def s(self) -> int:
        """The field ``GF(2^s)``, ``s`` the smallest with ``2^s >= T·2^b`` (S1-E7)."""
        return field_bits(self.T, 1 << self.b)

    @property
    def N(self) -> int:
        return 1 << self.b

    @classmethod
    def sample(cls, r, T, N, rng=None) -> "PolynomialSignHash":
        """Draw ``f`` uniformly from the family: ``r`` uniform coefficients in ``GF(2^s)``.

        ``N`` (the universe size) must be a power of two, ``N = 2^b`` (records are ``b``-bit strings), so the
        point of ``(i, x)`` is the bit string ``i`` followed by ``x``.
        """
        r, T, N = check_int("r", r, low=1), check_int("T", T, low=1), check_int("N", N, low=1)
        if N & (N - 1):
            raise ValueError(f"N ({N}) must be a power of two (records are b-bit strings)")
        b = N.bit_length() - 1
        s = field_bits(T, N)
        if s > MAX_S:
            raise ValueError(f"T ({T}) · N ({N}) exceeds 2^{MAX_S}: choose a smaller T")
        rng = as_generator(rng)
        coefficients = tuple(int(c) for c in rng.integers(0, 1 << s, size=r, dtype=np.uint64))
        return cls(r, T, b, coefficients)

    def points(self, rows, cols) -> np.ndarray:
        """The field points ``i·2^b + x`` of ``A[i, x]`` (a ``(len(rows), len(cols))`` uint64 array)."""
        rows, cols = self._check_rows(rows), self._check_cols(cols)
        return (rows[:, None] << np.uint64(self.b)) | cols[None, :]

    def _check_rows(self, rows) -> np.ndarray:
        rows = np.asarray(rows)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise TypeError("rows must be a 1-D integer array of row indices")
        if rows.size and (rows.min() < 0 or rows.max() >= self.T):
            raise ValueError(f"rows must lie in [0, T) = [0, {self.T})")
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
        return (_poly_eval(list(self.coefficients), z, self.s) & np.uint64(1)).astype(np.int8)

    # -- the fast path: F[i, x] = Σ_a <ℓ(G_a(w_i)), x^a> mod 2 -------------------------------------------------

    def _row_bits(self, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), r·s)`` 0/1 matrix: block ``a`` holds the bits of ``ℓ(G_a(w_i))``."""
        s, r = self.s, self.r
        one, low = np.uint64(1), np.uint64(IRREDUCIBLE[s])
        w = rows << np.uint64(self.b)
        out = np.empty((rows.size, r * s), dtype=np.float32)
        for a in range(r):
            # G_a(w) = Σ_{k>=a} [C(k,a) odd] c_k w^(k-a), by Horner in w; C(k, a) is odd iff a ⊆ k (Lucas)
            g = np.zeros(w.shape, dtype=np.uint64)
            for k in range(r - 1, a - 1, -1):
                g = _mul(g, w, s) ^ np.uint64(self.coefficients[k] if (a & ~k) == 0 else 0)
            # ℓ(g)_j = bit0(g·t^j): multiply by t repeatedly, read bit 0
            for j in range(s):
                out[:, a * s + j] = (g & one).astype(np.float32)
                g = _xtime(g, s, low, one)
        return out

    def _col_bits(self, cols: np.ndarray) -> np.ndarray:
        """``(len(cols), r·s)`` 0/1 matrix: block ``a`` holds the bits of ``x^a``."""
        s, r = self.s, self.r
        out = np.empty((cols.size, r * s), dtype=np.float32)
        power = np.ones(cols.shape, dtype=np.uint64)
        for a in range(r):
            out[:, a * s:(a + 1) * s] = _bits(power, s)
            if a + 1 < r:
                power = _mul(power, cols, s)
        return out

    def bits(self, rows, cols) -> np.ndarray:
        """``bit0(p(i·2^b + x))`` for all ``rows × cols`` via the bilinear form (equals :meth:`bits_reference`)."""
        rows, cols = self._check_rows(rows), self._check_cols(cols)
        F = self._row_bits(rows) @ self._col_bits(cols).T          # exact: integers < r·s <= 2^24
        return (F.astype(np.int64) & 1).astype(np.int8)

    def signs(self, rows, cols) -> np.ndarray:
        """The block ``A[rows, cols]`` with entries ``±1/sqrt(T)`` (float64)."""
        return (2.0 * self.bits(rows, cols) - 1.0) / np.sqrt(self.T)

    def matrix(self, cols) -> np.ndarray:
        """All ``T`` rows of ``A`` on the columns ``cols``: ``(T, len(cols))``."""
        return self.signs(np.arange(self.T), cols)

    def project(self, indptr, cols, weights) -> np.ndarray:
        """``A q_j`` for sparse vectors ``q_j`` in CSR form (row ``j``: ``cols[indptr[j]:indptr[j+1]]`` with
        ``weights``): a ``(len(indptr) - 1, T)`` array.  Never builds more than a block of ``A`` at a time:
        working memory ``O(T·r·s + block)``, time ``O(T·|cols|·r·s)`` bit operations (as BLAS flops).

        The universe elements are taken in runs of ``_BLOCK // T`` (the run fixes the order of the floating-point
        sums, hence the bytes of the result); each run's block of ``A`` is built ``_ROWS_BLOCK`` entries at a time,
        row range by row range (every entry of the result is still the same sum in the same order), so the
        float32 product, its int32 bits and the float64 signs of one piece stay below ``16 · _ROWS_BLOCK`` bytes
        whatever ``T`` is.  :meth:`_project_reference` is the one-block version the tests compare with, byte for
        byte."""
        import scipy.sparse as sp
        indptr = np.asarray(indptr, dtype=np.int64)
        cols = self._check_cols(cols).astype(np.int64)
        weights = np.asarray(weights, dtype=np.float64)
        q = indptr.size - 1
        unique, inverse = np.unique(cols, return_inverse=True)
        Q = sp.csr_matrix((weights, inverse, indptr), shape=(q, unique.size)).tocsc()
        del inverse
        L = self._all_row_bits()
        out = np.zeros((q, self.T))
        sign_of_bit = np.array([-1.0, 1.0]) / np.sqrt(self.T)
        chunk = max(1, _BLOCK // max(self.T, 1))
        for start in range(0, unique.size, chunk):
            part = unique[start:start + chunk].astype(np.uint64)
            C = self._col_bits(part).T                                        # (r·s, chunk)
            Q_part = Q[:, start:start + part.size]
            rows = max(1, _ROWS_BLOCK // part.size)
            for i in range(0, self.T, rows):
                F = (L[i:i + rows] @ C).astype(np.int32)                      # (rows, chunk) exact integer sums
                np.bitwise_and(F, 1, out=F)                                   # the bits of A's block
                signs = sign_of_bit.take(F)                                   # ±1/sqrt(T)
                del F
                out[:, i:i + rows] += np.asarray(Q_part @ signs.T)
        return out

    def _all_row_bits(self) -> np.ndarray:
        """``_row_bits`` of every row ``0..T-1`` (``(T, r·s)`` float32), computed once per hash."""
        if not self._all_rows:
            self._all_rows.append(self._row_bits(np.arange(self.T, dtype=np.uint64)))
        return self._all_rows[0]

    def _project_reference(self, indptr, cols, weights) -> np.ndarray:
        """:meth:`project` with each run's whole ``T × chunk`` block of ``A`` at once (the simple version; more
        memory): the tests check that :meth:`project` returns the same bytes."""
        import scipy.sparse as sp
        indptr = np.asarray(indptr, dtype=np.int64)
        cols = self._check_cols(cols).astype(np.int64)
        unique, inverse = np.unique(cols, return_inverse=True)
        Q = sp.csr_matrix((np.asarray(weights, dtype=np.float64), inverse, indptr),
                          shape=(indptr.size - 1, unique.size)).tocsc()
        L = self._all_row_bits()
        out = np.zeros((indptr.size - 1, self.T))
        sign_of_bit = np.array([-1.0, 1.0]) / np.sqrt(self.T)
        chunk = max(1, _BLOCK // max(self.T, 1))
        for start in range(0, unique.size, chunk):
            part = unique[start:start + chunk].astype(np.uint64)
            F = (L @ self._col_bits(part).T).astype(np.int32) & 1
            out += np.asarray(Q[:, start:start + part.size] @ sign_of_bit.take(F).T)
        return out

    def memory_words(self) -> int:
        """Words (8 bytes) to store ``f``: its ``r`` coefficients (``r·s`` bits)."""
        return self.r
