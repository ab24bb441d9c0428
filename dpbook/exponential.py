"""The exponential mechanism (DR-Def3.4, DR-Thm3.10/3.11, chapter 06)."""
from __future__ import annotations

import numpy as np

from .noise import as_generator
from .validation import check_epsilon, check_int, check_sensitivity

__all__ = ["exponential_mechanism"]


def exponential_mechanism(scores, *, epsilon, sensitivity, trials=None, rng=None):
    """Pick index ``r`` with probability ``∝ exp(ε·u(r) / (2Δu))`` — ε-DP (DR-Def3.4, DR-Thm3.10).

    ``scores`` is the utility vector ``u(x, ·)`` over the range (higher is better), ``sensitivity`` its
    ``Δu``.  Sampling uses the Gumbel-max trick on the shifted log-weights ``ε(u - max u)/(2Δu)``: exact,
    and free of overflow and underflow at any ε.  Returns an int, or an array of ``trials`` ints.
    """
    u = np.asarray(scores, dtype=np.float64)
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("scores contains NaN or inf; utilities must be finite")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    logits = epsilon * (u - u.max()) / (2.0 * sensitivity)
    shape = (u.size,) if trials is None else (check_int("trials", trials, low=1), u.size)
    picks = np.argmax(logits + as_generator(rng).gumbel(size=shape), axis=-1)
    return int(picks) if trials is None else picks
