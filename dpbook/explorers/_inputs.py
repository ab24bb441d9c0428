"""The input checks the chapters' figure functions share (arrays of measured values handed in by a chapter)."""
from __future__ import annotations

import numpy as np

from ..validation import check_real_array

__all__ = ["series", "values"]


def series(length_of, **arrays) -> dict:
    """Each array as a finite 1-D float array of the same length as ``arrays[length_of]`` (ValueError naming it)."""
    out = {}
    for name, value in arrays.items():
        arr = check_real_array(name, value)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
        out[name] = arr
    n = out[length_of].size
    for name, arr in out.items():
        if arr.size != n:
            raise ValueError(f"{name} has {arr.size} entries; {length_of} has {n}")
    return out


def values(name, values, size=None, *, positive=False) -> np.ndarray:
    """``values`` as a 1-D float array of ``size`` (or one or more) finite, non-negative (``positive``: > 0) values."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size < 1 or (size is not None and arr.size != size):
        raise ValueError(f"{name} must be a 1-D array of {size if size is not None else 'one or more'} values, "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or (positive and np.any(arr == 0)):
        raise ValueError(f"{name} must be finite and {'positive' if positive else 'non-negative'}")
    return arr
