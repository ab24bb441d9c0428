"""Shared input checks (DEVELOPERS.md standard 3).

Every public function of dpbook validates eagerly and fails closed:

* ``TypeError`` when a value has the wrong kind (a string for ``epsilon``, a float for ``n``);
* ``ValueError`` naming the parameter, its value and the valid range, e.g.
  ``"epsilon (-1.0) must be a finite number > 0"``.

NaN and inf are always rejected.  Booleans are not numbers here (``epsilon=True`` is a ``TypeError``).
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_real", "check_epsilon", "check_delta", "check_beta", "check_alpha", "check_sensitivity",
    "check_int", "check_histogram", "check_matrix_workload", "check_probability", "check_real_array",
]


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
    value = float(value)
    bad = not math.isfinite(value)
    bad = bad or (low is not None and (value <= low if low_open else value < low))
    bad = bad or (high is not None and (value >= high if high_open else value > high))
    if bad:
        raise ValueError(f"{name} ({value!r}) must be a finite number {_interval(low, high, low_open, high_open)}".rstrip())
    return value


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """The privacy parameter: a finite number > 0."""
    return check_real(name, epsilon, low=0.0, low_open=True)


def check_delta(delta, name: str = "delta", *, positive: bool = False) -> float:
    """The DP slack delta in [0, 1) (in (0, 1) when ``positive``, e.g. for the Gaussian mechanism)."""
    return check_real(name, delta, low=0.0, high=1.0, low_open=positive, high_open=True)


def check_beta(beta, name: str = "beta") -> float:
    """A failure probability beta in (0, 1]."""
    return check_real(name, beta, low=0.0, high=1.0, low_open=True)


def check_probability(value, name: str, *, open_low=False, open_high=False) -> float:
    return check_real(name, value, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_alpha(alpha, name: str = "alpha") -> float:
    """An accuracy target alpha > 0."""
    return check_real(name, alpha, low=0.0, low_open=True)


def check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """An L1 or L2 sensitivity: finite and > 0."""
    return check_real(name, sensitivity, low=0.0, low_open=True)


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``int(value)`` for an integer (Python or numpy, not bool) within [low, high]."""
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} ({value!r})")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        rng = f">= {low}" if high is None else (f"<= {high}" if low is None else f"in [{low}, {high}]")
        raise ValueError(f"{name} ({value}) must be an integer {rng}")
    return value


def check_histogram(x, name: str = "x", *, allow_empty: bool = False) -> np.ndarray:
    """A database histogram: a 1-D array of non-negative integer counts (LEC3-3.1).

    Returns an ``int64`` copy-free view when possible.  Floats that are whole numbers are accepted
    (``np.array([1., 0.])``); fractional, negative, NaN or inf counts are not.
    """
    if sp.issparse(x):
        raise TypeError(f"{name} must be a dense 1-D array of counts, got a scipy.sparse matrix")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy raises for ragged input
        raise TypeError(f"{name} must be array-like of counts: {exc}") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
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
    arr = arr.astype(np.int64, copy=False)
    if not allow_empty and arr.sum() == 0:
        raise ValueError(f"{name} must contain at least one row (sum of counts is 0)")
    return arr


def check_matrix_workload(Q, name: str = "Q", *, low: float = 0.0, high: float = 1.0):
    """A workload matrix in [low, high]^{m x N}, dense ndarray or scipy.sparse; returned as float64."""
    if sp.issparse(Q):
        Q = sp.csr_matrix(Q, dtype=np.float64)
        data = Q.data
        m, N = Q.shape
        # implicit zeros must lie in the range too
        has_implicit_zero = Q.nnz < m * N
        if has_implicit_zero and not (low <= 0.0 <= high):
            raise ValueError(f"{name} has implicit zeros but its values must lie in [{low:g}, {high:g}]")
    else:
        arr = np.asarray(Q)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise TypeError(f"{name} must be a numeric matrix, got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D (m queries x |X| universe elements), got shape {arr.shape}")
        Q = arr.astype(np.float64, copy=False)
        data = Q.ravel()
        m, N = Q.shape
    if m == 0 or N == 0:
        raise ValueError(f"{name} must have at least one query and one universe element, got shape {(m, N)}")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contains NaN or inf; query values must be finite")
    if data.size and (data.min() < low or data.max() > high):
        bad = data[(data < low) | (data > high)][0]
        raise ValueError(f"{name} has a value ({float(bad)!r}) outside [{low:g}, {high:g}]")
    return Q


def check_real_array(name: str, value, *, low=None, low_open=False) -> np.ndarray:
    """A scalar or array of finite real numbers as a float64 array (``TypeError`` for strings, booleans and
    other non-numbers — ``np.asarray(..., dtype=float)`` would silently accept the string ``"1"``)."""
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) \
            or np.issubdtype(arr.dtype, np.complexfloating):
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
    """One of the two neighbouring relations (THEOREMS.md §0 of the spec; README's privacy conventions)."""
    if not isinstance(neighbours, str):
        raise TypeError(f"neighbours must be 'add/remove' or 'replace-one', got {type(neighbours).__name__}")
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours ({neighbours!r}) must be one of {NEIGHBOURS}")
    return neighbours


def check_public_n(n, x, *, require: bool = False) -> tuple[int, str]:
    """The row count answers are divided by, and the neighbouring relation under which that is sound.

    ``n`` given: it is public (the caller's promise), and a claim made for one row's change of the counts
    holds under add/remove neighbours.  ``n`` None: it is read from the data, ``||x||_1``, which is private
    under add/remove (dividing by it leaks it: chapter 13) but the same for both databases under
    replace-one — so the claim is made under ``"replace-one"``.  ``require=True``: the mechanism's
    sensitivity is the add/remove one, so ``n`` must be given (or the caller asks for replace-one with
    its own sensitivity); a clear error otherwise.
    """
    if n is not None:
        return check_int("n", n, low=1), "add/remove"
    if require:
        raise ValueError("n (None) must be the public number of rows: dividing by the private ||x||_1 would "
                         "reveal it under add/remove neighbours. Pass n=..., or neighbours='replace-one' "
                         "(n is then read from the data and the sensitivity is the replace-one one)")
    return int(np.asarray(x).sum()), "replace-one"
