"""Shared input checks.

Every public function of dpbook validates eagerly and fails closed:

* ``TypeError`` when a value has the wrong kind (a string for ``epsilon``, a float for ``n``);
* ``ValueError`` naming the parameter, its value and the valid range, e.g.
  ``"epsilon (-1.0) must be a finite number > 0"``.

NaN and inf are always rejected.  Booleans are not numbers here (``epsilon=True`` is a ``TypeError``).

Hostile input is refused at the boundary, by the parameter the caller passed, with these ranges:

* ``epsilon`` in [1e-12, 1e12] (:data:`EPSILON_RANGE`); at most 100 (:data:`EPSILON_EXP_MAX`) in a formula
  with ``e^epsilon`` (composition theorems, privacy curves, Laplace-tail quadratures).  The book uses 1e-9 (a test of the ⊥-answer) up to
  1e12 (the deterministic limit of report-noisy-max); outside this range Δ/ε, ε·Δu and e^{-ε} stop being
  meaningful in float64 (5e-324 and 1e-320 are subnormal, 1/1e-320 overflows; 1e308 overflows any product).
* a positive ``delta`` in [1e-100, 1) (:data:`DELTA_MIN`): far below any δ used in practice (2^-128 ≈ 3e-39)
  and far enough above the subnormal range that 1/δ, ln(1/δ) and the Gaussian tails δ is compared with are
  finite.  δ = 0 stays allowed where the function allows it.
* an accuracy ``alpha`` in [1e-12, 1e12] (:data:`ALPHA_RANGE`; a function of normalised answers caps it
  at 1 or 2 with ``high``): the book's α run from 1e-9 (a normalised error) to counts of order n <= 1e12; a
  bound's 1/α², ln(1/α) and its products with ln|X| stay finite there (5e-324 makes 1/α² overflow, 1e308 makes
  α² overflow).
* a failure probability ``beta`` in [1e-100, 1] (:data:`BETA_MIN`, as δ): 1/β and ln(1/β) finite.
* any other positive real quantity of a bound (a constant such as ``c_gru``, a norm, a real-valued bound ``B``,
  a tail point) in [1e-100, 1e100] (:data:`REAL_RANGE`, :func:`check_positive_real`): far from the subnormals
  and from overflow, so a product of two of them with a count <= 2^53 stays finite.
* a ``sensitivity`` in [1e-12, 1e12] (:data:`SENSITIVITY_RANGE`) and a noise ``scale`` / ``sigma`` in
  [1e-24, 1e24] (:data:`SCALE_RANGE`, the quotients of the two ranges): noise of scale 1e308 draws inf.
* every integer parameter |value| <= 2^53 (:data:`MAX_INT`): beyond it a count is not exact in float64; a
  row count that answers are divided by, n <= 1e12 (:data:`MAX_PUBLIC_N`: 1/n is then a valid sensitivity).
* counts (histogram entries) < 2^53 each and in total (a histogram of 2^62s overflows int64 when summed).
* work: :func:`check_work` refuses a call whose arrays would exceed :data:`MAX_WORK_BYTES` (24 GiB), naming
  the parameters the caller passed and the size they imply.
* complex numbers and ragged nested lists are ``TypeError`` / ``ValueError`` naming the parameter.
"""
from __future__ import annotations

import math
import numbers
import sys

import numpy as np

__all__ = [
    "check_real", "check_epsilon", "check_delta", "check_beta", "check_alpha", "check_sensitivity",
    "check_int", "check_histogram", "check_matrix_workload", "check_entry_range", "check_probability", "check_real_array",
    "check_scale", "check_work", "check_trials", "check_split", "check_noise_scale", "as_array",
    "check_positive_real", "check_tail_points", "real_dtype",
]


def is_sparse(value) -> bool:
    """Whether ``value`` is a scipy.sparse matrix or array, without importing scipy.sparse: until something has
    imported it no such object can exist, and importing it here would cost every caller's first import ~0.1 s."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(value)


#: The privacy parameter's range (module docstring: why).
EPSILON_RANGE = (1e-12, 1e12)
#: The largest epsilon of a formula with e^epsilon in it (composition theorems, privacy curves): e^100 ≈ 2.7e43
#: keeps its products with counts up to 2^53 finite, and beyond it such bounds are vacuous anyway.
EPSILON_EXP_MAX = 100.0
#: The smallest positive delta.
DELTA_MIN = 1e-100
#: The smallest failure probability beta (as delta: 1/beta and ln(1/beta) finite).
BETA_MIN = 1e-100
#: The range of any other positive real quantity of a bound (constants, norms, real-valued bounds, tail points).
REAL_RANGE = (1e-100, 1e100)
#: An accuracy target's range (normalised errors down to 1e-12, counts up to the largest public n).
ALPHA_RANGE = (1e-12, 1e12)
#: An L1/L2 sensitivity's range, and a noise scale's (sensitivity / epsilon).
SENSITIVITY_RANGE = (1e-12, 1e12)
SCALE_RANGE = (1e-24, 1e24)
#: The largest integer parameter and the largest count (entry or total) of a histogram: exact in float64.
MAX_INT = 2 ** 53
MAX_COUNT = 2 ** 53
#: The largest row count answers are divided by: 1/n must stay in :data:`SENSITIVITY_RANGE`.
MAX_PUBLIC_N = 10 ** 12
#: The most memory one call may ask for.
MAX_WORK_BYTES = 24 * 2 ** 30


def _short(value: int) -> str:
    """A huge integer in 3 significant digits without converting it to float (which overflows beyond 1e308)."""
    digits = str(abs(int(value)))
    if len(digits) <= 6:
        return str(int(value))
    return f"{'-' if value < 0 else ''}{digits[0]}.{digits[1:3]}e+{len(digits) - 1:02d}"


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _interval(low, high, low_open, high_open) -> str:
    if low is None and high is None:
        return ""
    if high is None:
        return f"{'>' if low_open else '>='} {low:g}"
    if low is None:
        return f"{'<' if high_open else '<='} {high:g}"
    return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def check_real(name: str, value, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """Return ``float(value)`` if it is a finite real number in the given interval, else raise."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} ({value!r})")
    try:
        value = float(value)
    except OverflowError:                       # a Python int beyond float64
        raise ValueError(f"{name} ({_short(value)}) must be a finite number "
                         f"{_interval(low, high, low_open, high_open)}".rstrip()) from None
    bad = not math.isfinite(value)
    bad = bad or (low is not None and (value <= low if low_open else value < low))
    bad = bad or (high is not None and (value >= high if high_open else value > high))
    if bad:
        raise ValueError(f"{name} ({value!r}) must be a finite number {_interval(low, high, low_open, high_open)}".rstrip())
    return value


def check_epsilon(epsilon, name: str = "epsilon", *, allow_zero: bool = False, high: float | None = None,
                  high_open: bool = False) -> float:
    """The privacy parameter: a finite number in [1e-12, 1e12] (:data:`EPSILON_RANGE`), or up to ``high``
    (excluded with ``high_open``); ``allow_zero`` for a privacy curve delta(epsilon), defined at 0."""
    value = check_real(name, epsilon, low=0.0, low_open=not allow_zero)
    top = EPSILON_RANGE[1] if high is None else min(high, EPSILON_RANGE[1])
    below_top = value < top if high_open and high is not None else value <= top
    if not ((EPSILON_RANGE[0] <= value and below_top) or (allow_zero and value == 0.0)):
        zero = "0 or " if allow_zero else ""
        close = ")" if high_open and high is not None else "]"
        raise ValueError(f"{name} ({value!r}) must be {zero}in [{EPSILON_RANGE[0]:g}, {top:g}{close} "
                         "(outside it the noise scale or e^epsilon is not a meaningful float64)")
    return value


def check_delta(delta, name: str = "delta", *, positive: bool = False) -> float:
    """The DP slack delta in [0, 1) (in (0, 1) when ``positive``, e.g. for the Gaussian mechanism); a positive
    delta is at least 1e-100 (:data:`DELTA_MIN`: 1/delta and ln(1/delta) finite)."""
    value = check_real(name, delta, low=0.0, high=1.0, low_open=positive, high_open=True)
    if 0.0 < value < DELTA_MIN:
        raise ValueError(f"{name} ({value!r}) must be 0 or in [{DELTA_MIN:g}, 1) (a smaller delta underflows: "
                         "1/delta and the Gaussian tails are not finite)")
    return value


def check_beta(beta, name: str = "beta") -> float:
    """A failure probability beta in [1e-100, 1] (:data:`BETA_MIN`: 1/beta and ln(1/beta) finite)."""
    value = check_real(name, beta, low=0.0, high=1.0, low_open=True)
    if value < BETA_MIN:
        raise ValueError(f"{name} ({value!r}) must be in [{BETA_MIN:g}, 1] (a smaller failure probability "
                         "underflows: 1/beta is not finite)")
    return value


def check_probability(value, name: str, *, open_low=False, open_high=False) -> float:
    return check_real(name, value, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_alpha(alpha, name: str = "alpha", *, high: float | None = None) -> float:
    """An accuracy target alpha in [1e-12, 1e12] (:data:`ALPHA_RANGE`), or in [1e-12, ``high``] (e.g. 1 for an
    error of normalised answers): outside it the bounds' 1/alpha² and alpha² are not finite float64."""
    value = check_real(name, alpha, low=0.0, low_open=True)
    top = ALPHA_RANGE[1] if high is None else min(high, ALPHA_RANGE[1])
    if not ALPHA_RANGE[0] <= value <= top:
        raise ValueError(f"{name} ({value!r}) must be in [{ALPHA_RANGE[0]:g}, {top:g}] (outside it an accuracy "
                         "bound's 1/alpha² or alpha² is not a meaningful float64)")
    return value


def check_positive_real(name: str, value, *, low: float | None = None, allow_zero: bool = False) -> float:
    """A positive real quantity of a bound (a constant, a norm, a real-valued bound, a tail point) in
    [``low``, 1e100] (``low`` defaults to 1e-100: :data:`REAL_RANGE`); 0 too with ``allow_zero``."""
    value = check_real(name, value, low=0.0, low_open=not allow_zero)
    bottom = REAL_RANGE[0] if low is None else low
    if not ((bottom <= value <= REAL_RANGE[1]) or (allow_zero and value == 0.0)):
        raise ValueError(f"{name} ({value!r}) must be {'0 or ' if allow_zero else ''}in [{bottom:g}, "
                         f"{REAL_RANGE[1]:g}] (outside it the bound is not a meaningful float64)")
    return value


def check_tail_points(name: str, value) -> np.ndarray:
    """Tail points or error levels ``λ >= 0`` of a tail bound (a scalar or an array): each 0 or in
    :data:`REAL_RANGE` (outside it the bound is not a meaningful float64)."""
    value = check_real_array(name, value, low=0.0)
    bad = (value != 0.0) & ((value < REAL_RANGE[0]) | (value > REAL_RANGE[1]))
    if np.any(bad):
        raise ValueError(f"{name} ({float(value[bad].flat[0])!r}) must be 0 or in [{REAL_RANGE[0]:g}, "
                         f"{REAL_RANGE[1]:g}] (outside it the tail bound is not a meaningful float64)")
    return value


def check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """An L1 or L2 sensitivity: finite, in [1e-12, 1e12] (:data:`SENSITIVITY_RANGE`: the noise scale
    sensitivity / epsilon stays finite and non-zero)."""
    value = check_real(name, sensitivity, low=0.0, low_open=True)
    if not SENSITIVITY_RANGE[0] <= value <= SENSITIVITY_RANGE[1]:
        raise ValueError(f"{name} ({value!r}) must be in [{SENSITIVITY_RANGE[0]:g}, {SENSITIVITY_RANGE[1]:g}] "
                         "(the noise scale sensitivity/epsilon must be a finite non-zero float64)")
    return value


def check_scale(scale, name: str = "scale", *, high: float | None = None) -> float:
    """A noise scale (Laplace b, Gaussian sigma): in [1e-24, 1e24] (:data:`SCALE_RANGE`), or ``high``."""
    top = SCALE_RANGE[1] if high is None else min(high, SCALE_RANGE[1])
    value = check_real(name, scale, low=0.0, low_open=True)
    if not SCALE_RANGE[0] <= value <= top:
        raise ValueError(f"{name} ({value!r}) must be in [{SCALE_RANGE[0]:g}, {top:g}] "
                         "(noise of a larger scale draws inf; a smaller one is subnormal)")
    return value


def check_noise_scale(sensitivity, epsilon, *, factor: float = 1.0, high: float | None = None,
                      names: tuple[str, str] = ("sensitivity", "epsilon")) -> float:
    """The noise scale ``factor * sensitivity / epsilon`` (each checked first), refused — naming the
    caller's two parameters, not an internal "scale" — when it leaves :data:`SCALE_RANGE` (or exceeds ``high``,
    e.g. the largest scale a lattice sampler takes)."""
    sensitivity, epsilon = check_sensitivity(sensitivity, names[0]), check_epsilon(epsilon, names[1])
    factor = check_real("factor", factor, low=0.0, low_open=True)
    scale = factor * sensitivity / epsilon
    top = SCALE_RANGE[1] if high is None else min(high, SCALE_RANGE[1])
    if not SCALE_RANGE[0] <= scale <= top:
        raise ValueError(f"{names[0]} ({sensitivity!r}) / {names[1]} ({epsilon!r}) gives the noise scale {scale:.3g}, "
                         f"outside [{SCALE_RANGE[0]:g}, {top:g}]; make {names[0]} / {names[1]} less extreme")
    return scale


def check_work(*, bytes_per_cell: int = 8, **sizes) -> None:
    """Refuse a call whose arrays would need more than :data:`MAX_WORK_BYTES` (24 GiB): ``sizes`` are the
    caller's parameters (name=value) whose product is the number of cells, e.g.
    ``check_work(trials=trials, m=m)``.  The message names them and the memory they imply."""
    cells = 1
    for value in sizes.values():
        cells *= max(int(value), 1)
    need = cells * bytes_per_cell
    if need > MAX_WORK_BYTES:
        what = " x ".join(f"{k} ({v})" for k, v in sizes.items())
        try:
            gib = f"{need / 2 ** 30:.3g}"
        except OverflowError:
            gib = _short(need // 2 ** 30)
        raise ValueError(f"{what} = {_short(cells) if cells > 1e300 else f'{cells:.3g}'} cells would need {gib} GiB, more than the "
                         f"{MAX_WORK_BYTES / 2 ** 30:g} GiB limit; make {' or '.join(sizes)} smaller")


def check_split(epsilon: float, parts: int, *, parts_name: str, name: str = "epsilon") -> float:
    """``epsilon / parts`` (a budget split over ``parts`` steps), refused when it falls below the smallest epsilon
    (:data:`EPSILON_RANGE`) — the message names the caller's ``parts_name``, not an internal per-step epsilon."""
    share = epsilon / parts
    if share < EPSILON_RANGE[0]:
        raise ValueError(f"{parts_name} ({parts if isinstance(parts, int) else format(parts, '.4g')}) splits {name} ({epsilon!r}) into {share:.3g} per step, below the "
                         f"smallest epsilon {EPSILON_RANGE[0]:g}; make {parts_name} smaller")
    return share


def check_trials(trials, per_trial: int = 1, *, name: str = "trials") -> int:
    """A number of independent repetitions: an integer >= 1 such that ``trials`` rows of ``per_trial`` float64
    cells fit in :data:`MAX_WORK_BYTES` (:func:`check_work`)."""
    trials = check_int(name, trials, low=1)
    check_work(**{name: trials, "cells per trial": per_trial})
    return trials


def real_dtype(dtype, *, bools: bool = False, integer: bool = False) -> bool:
    """Whether an array of ``dtype`` holds what a numeric parameter accepts: integers or real floats (``integer``:
    integers only), booleans only with ``bools`` — never ``object``, complex, strings or bytes.  The one guard in
    front of every numeric array's ``TypeError`` (each caller names its parameter in the message)."""
    dtype = np.dtype(dtype)
    if dtype == object:
        return False
    if dtype == bool:
        return bools
    return bool(np.issubdtype(dtype, np.integer if integer else np.number)) \
        and not np.issubdtype(dtype, np.complexfloating)


def as_array(name: str, value) -> np.ndarray:
    """``np.asarray(value)``, with a ragged nested list (numpy's 'inhomogeneous shape') or a scipy.sparse
    matrix turned into an error that names the parameter, and complex numbers refused."""
    if is_sparse(value):
        raise TypeError(f"{name} must be a dense array, got a scipy.sparse matrix")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name} must be a rectangular array of numbers (not a ragged list): {exc}") from None
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got complex dtype {arr.dtype}")
    if arr.dtype == object and arr.size and all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                               for v in arr.flat):
        big = max(arr.flat, key=abs)
        raise ValueError(f"{name} has an integer ({_short(big)}) beyond int64; entries must be < 2^53")
    return arr


def check_int(name: str, value, *, low: int | None = None, high: int | None = None, exact: bool = True) -> int:
    """Return ``int(value)`` for an integer (Python or numpy, not bool) within [low, high]; with ``exact`` (the
    default) also ``|value| <= 2^53`` (:data:`MAX_INT`).  ``exact=False`` for a size that is only used through
    its logarithm (a range of ``C(N+s-1, s)`` candidate databases, an exact Python int)."""
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} ({value!r})")
    value = int(value)
    if exact and abs(value) > MAX_INT:
        raise ValueError(f"{name} ({_short(value)}) must be an integer of magnitude <= 2^53 (exact in float64)")
    if (low is not None and value < low) or (high is not None and value > high):
        rng = f">= {low}" if high is None else (f"<= {high}" if low is None else f"in [{low}, {high}]")
        raise ValueError(f"{name} ({value}) must be an integer {rng}")
    return value


def check_histogram(x, name: str = "x", *, allow_empty: bool = False) -> np.ndarray:
    """A database histogram: a 1-D array of non-negative integer counts (LEC3-3.1).

    Returns an ``int64`` copy-free view when possible.  Floats that are whole numbers are accepted
    (``np.array([1., 0.])``); fractional, negative, NaN or inf counts are not.
    """
    arr = as_array(name, x)
    if not real_dtype(arr.dtype, bools=True):
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold integer counts, got booleans")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (a histogram over the universe), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty (the universe has at least one element)")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; counts must be finite non-negative integers")
    if np.any(arr < 0):
        i = int(np.argmax(arr < 0))
        raise ValueError(f"{name}[{i}] ({arr[i].item()!r}) must be a non-negative integer count")
    if not np.issubdtype(arr.dtype, np.integer):
        frac = arr != np.round(arr)
        if np.any(frac):
            i = int(np.argmax(frac))
            raise ValueError(f"{name}[{i}] ({arr[i].item()!r}) must be a non-negative integer count")
    if arr.max() >= MAX_COUNT:
        i = int(np.argmax(arr))
        raise ValueError(f"{name}[{i}] ({arr[i].item():.3g}) must be a count < 2^53 (exact in float64)")
    if float(arr.sum(dtype=np.float64)) >= MAX_COUNT:
        raise ValueError(f"{name} sums to {float(arr.sum(dtype=np.float64)):.3g} rows; the total must be "
                         "< 2^53 (exact in float64, no int64 overflow)")
    arr = arr.astype(np.int64, copy=False)
    if not allow_empty and arr.sum() == 0:
        raise ValueError(f"{name} must contain at least one row (sum of counts is 0)")
    return arr


def _canonical_sparse(Q, name: str):
    """A private CSR copy of a scipy.sparse matrix in canonical form: every cell stored at most once (entries
    stored several times are summed, which is what ``Q @ x`` computes), explicit zeros dropped, column indices
    sorted.  The caller's matrix is never modified."""
    import scipy.sparse as sp

    try:
        Q = sp.csr_matrix(Q, dtype=np.float64, copy=True)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"{name} must be a real scipy.sparse matrix: {exc}") from None
    if not np.all(np.isfinite(Q.data)):
        raise ValueError(f"{name} contains NaN or inf; query values must be finite")
    Q.sum_duplicates()                      # also sorts the indices of each row
    Q.eliminate_zeros()
    Q.sort_indices()
    return Q


def _stored_count(Q, row: int, col: int) -> int:
    """How many times the caller's sparse ``Q`` stores cell ``(row, col)`` (before summing)."""
    import scipy.sparse as sp

    coo = Q.tocoo() if hasattr(Q, "tocoo") else sp.coo_matrix(Q)
    return int(np.count_nonzero((np.asarray(coo.row) == row) & (np.asarray(coo.col) == col)))


def check_matrix_workload(Q, name: str = "Q", *, low: float = 0.0, high: float = 1.0):
    """A workload matrix in [low, high]^{m x N}, dense ndarray or scipy.sparse, as a private float64 copy.

    A scipy.sparse matrix is canonicalised first (:func:`_canonical_sparse`: CSR, duplicates summed, explicit zeros
    dropped, sorted indices) and its *summed* entries are validated — a matrix that stores the value 1.0 five times
    at one cell has the entry 5 there, and is refused (``ValueError`` naming ``name``, the cell and the value).
    A dense array is copied.  The arrays of the returned matrix are marked read-only, so a workload built from
    it cannot change after it was validated (not even when the caller changes its own array)."""
    original = Q
    if is_sparse(Q):
        if not real_dtype(Q.dtype, bools=True):
            raise TypeError(f"{name} must hold real numbers, got a scipy.sparse matrix of dtype {Q.dtype}")
        Q = _canonical_sparse(Q, name)
        m, N = Q.shape
        # implicit zeros must lie in the range too
        if Q.nnz < m * N and m and N and not (low <= 0.0 <= high):
            raise ValueError(f"{name} has implicit zeros but its values must lie in [{low:g}, {high:g}]")
        rows = np.repeat(np.arange(m), np.diff(Q.indptr))
        cols, data = Q.indices, Q.data
    else:
        arr = as_array(name, Q)
        if not real_dtype(arr.dtype, bools=True):
            raise TypeError(f"{name} must be a numeric matrix, got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D (m queries x |X| universe elements), got shape {arr.shape}")
        Q = np.array(arr, dtype=np.float64, order="C", copy=True)
        m, N = Q.shape
        data = Q.ravel()
        rows = cols = None
    if m == 0 or N == 0:
        raise ValueError(f"{name} must have at least one query and one universe element, got shape {(m, N)}")
    if not np.all(np.isfinite(data)):
        what = " after summing the entries it stores more than once" if rows is not None else ""
        raise ValueError(f"{name} contains NaN or inf{what}; query values must be finite")
    bad = np.flatnonzero((data < low) | (data > high))
    if bad.size:
        k = int(bad[0])
        if rows is None:
            r, c = divmod(k, N)
            raise ValueError(f"{name}[{r}, {c}] has a value ({float(data[k])!r}) outside [{low:g}, {high:g}]")
        r, c = int(rows[k]), int(cols[k])
        stored = _stored_count(original, r, c)
        summed = f" (the sum of the {stored} entries it stores at that cell)" if stored > 1 else ""
        raise ValueError(f"{name}[{r}, {c}] has a value ({float(data[k])!r}){summed} outside [{low:g}, {high:g}]")
    if rows is None:
        Q.flags.writeable = False
    else:
        for part in (Q.data, Q.indices, Q.indptr):
            part.flags.writeable = False
    return Q


def check_entry_range(workload, name: str = "workload", low: float = 0.0, high: float = 1.0, *,
                      why: str = "") -> tuple[float, float]:
    """The range ``(lo, hi)`` of a workload's entries (:meth:`dpbook.queries.Workload.entry_range`, implicit
    zeros included), refused unless it lies within ``[low, high]`` — the range a mechanism's theorem assumes of
    its queries (its sensitivity, its accuracy bound).  ``ValueError`` naming ``name`` (the caller's parameter),
    the range found, the range assumed and ``why`` (which theorem assumes it)."""
    lo, hi = workload.entry_range()
    lo, hi = float(lo), float(hi)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo < low or hi > high:
        reason = f" ({why})" if why else ""
        raise ValueError(f"{name} has entries in [{lo:.4g}, {hi:.4g}], outside [{low:g}, {high:g}], the range of "
                         f"query values this mechanism assumes{reason}")
    return lo, hi


def check_real_array(name: str, value, *, low=None, low_open=False) -> np.ndarray:
    """A scalar or array of finite real numbers as a float64 array (``TypeError`` for strings, booleans and
    other non-numbers — ``np.asarray(..., dtype=float)`` would silently accept the string ``"1"``)."""
    arr = as_array(name, value)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a real number or an array of them, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; it must be finite")
    if low is not None and np.any(arr <= low if low_open else arr < low):
        raise ValueError(f"{name} ({float(arr.min())!r}) must be {'>' if low_open else '>='} {low:g}")
    return arr


#: The two neighbouring relations between databases: add/remove one row, or replace one row.
NEIGHBOURS = ("add/remove", "replace-one")


def check_neighbours(neighbours) -> str:
    """One of the two neighbouring relations (``"add/remove"`` one record or ``"replace-one"``;
    README's privacy conventions)."""
    if not isinstance(neighbours, str):
        raise TypeError(f"neighbours must be 'add/remove' or 'replace-one', got {type(neighbours).__name__}")
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours ({neighbours!r}) must be one of {NEIGHBOURS}")
    return neighbours


def check_public_n(n, x, *, require: bool = False) -> tuple[int, str]:
    """The row count answers are divided by, and the neighbouring relation under which that is sound.

    ``n`` given: it is public (the caller's promise), and a claim made for one row's change of the counts
    holds under add/remove neighbours.  ``n`` None: it is read from the data, ``||x||_1``, which is private
    under add/remove (dividing by it leaks it: chapter 17) but the same for both databases under
    replace-one — so the claim is made under ``"replace-one"``.  ``require=True``: the mechanism's
    sensitivity is the add/remove one, so ``n`` must be given (or the caller asks for replace-one with
    its own sensitivity); a clear error otherwise.
    """
    if n is not None:
        return check_int("n", n, low=1, high=MAX_PUBLIC_N), "add/remove"
    if require:
        raise ValueError("n (None) must be the public number of rows: dividing by the private ||x||_1 would "
                         "reveal it under add/remove neighbours. Pass n=..., or neighbours='replace-one' "
                         "(n is then read from the data and the sensitivity is the replace-one one)")
    total = int(np.asarray(x).sum())
    if total > MAX_PUBLIC_N:
        raise ValueError(f"x sums to {total:.3g} rows; normalised answers need n <= {MAX_PUBLIC_N:.0e} (a row's "
                         "weight 1/n must stay in the sensitivity range)")
    return total, "replace-one"


def check_choice(name: str, value, choices) -> str:
    """``value`` as one of the strings ``choices`` (a mode such as ``composition`` or ``measure``):
    ``TypeError`` for a non-string, ``ValueError`` naming ``name`` and the valid choices otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} ({value!r}) must be one of {tuple(choices)}")
    return value
