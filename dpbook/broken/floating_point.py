"""The floating-point attack on textbook Laplace noise (Mironov 2012), and a 'fix' that is still broken.

On paper ``q + Lap(b)`` is ε-DP.  In floating point, numpy's ``Generator.laplace(0.0, b)`` draws a double
``U = K·2^-53`` (``K`` a 53-bit integer) and returns

    ``0.0 + fl(b · log(U + U))``            if ``U < 1/2``,
    ``0.0 - fl(b · log(fl(fl(2 - U) - U)))``  if ``U >= 1/2``

(numpy/random/src/distributions/distributions.c, ``random_laplace``).  So the noise takes at most
``2^53`` values, spaced irregularly — in ``[1/2, 1)`` (for ``b = 1``) only about one double in four is a
possible noise value.  ``q = 0`` releases the noise itself, so *every* output lies in that image set;
``q = 1`` releases ``fl(1 + noise)``, which mostly lands on doubles the sampler never produces.  The event
"the output is not in the image of the sampler" has probability 0 under ``q = 0`` and about 0.8 under
``q = 1``: the privacy loss is infinite.  :func:`numpy_laplace_image` decides membership exactly by
re-running the sampler's own arithmetic on the few integers ``K`` that could have produced a value.

The sound replacements live in :mod:`dpbook.noise` (``discrete_laplace``, ``grid_laplace``,
``grid_laplace_release``).  :func:`unrounded_grid_release` shows the one step they cannot skip.
Never use anything here to release data.
"""
from __future__ import annotations

import math

import numpy as np

from ..noise import as_generator, discrete_laplace, grid_granularity
from ..validation import check_epsilon, check_int, check_real, check_real_array, check_sensitivity

__all__ = ["numpy_laplace_image", "textbook_noisy_count", "unrounded_grid_release"]

def _check_values(values, name="values") -> np.ndarray:
    return check_real_array(name, values)


def numpy_laplace_image(values, scale) -> np.ndarray:
    """True where ``value`` is a double that ``Generator.laplace(0.0, scale)`` can return.

    For each value, invert the sampler (``K ≈ 2^52·e^{y/b}`` for ``y < 0``, ``K ≈ 2^53 - 2^52·e^{-y/b}``
    for ``y > 0``), then re-run its arithmetic on the nine integers ``K`` around the estimate; the value
    is in the image iff one of them reproduces it bit for bit.  The search is vectorised with ``np.log``
    and every hit is confirmed with ``math.log`` (the C library's ``log``, which numpy's sampler calls).
    A value is judged outside the image when ``np.log`` finds no candidate; should ``np.log`` ever differ
    from the C ``log`` in the last bit this could misjudge a value — the event is still a fixed set, so an
    audit built on it stays valid (``tests/test_floating_point.py`` checks that every ``q = 0`` output is
    recognised).  Returns a boolean array of the values' shape.
    """
    y = _check_values(values)
    b = check_real("scale", scale, low=0.0, low_open=True)
    flat, inverse = np.unique(y.ravel(), return_inverse=True)       # integer outputs repeat a lot
    d = np.arange(-4, 5)[:, None]
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        # y < 0:  y = 0.0 + b·log(2U),  U = K·2^-53,  1 <= K < 2^52
        k = np.rint(np.exp(np.minimum(flat, 0.0) / b) * 2.0 ** 52)[None, :] + d
        ok = (k >= 1) & (k < 2.0 ** 52)
        u = np.where(ok, k, 1.0) * 2.0 ** -53
        hit_neg = ok & (0.0 + b * np.log(u + u) == flat) & (flat < 0)
        # y >= 0: y = 0.0 - b·log((2 - U) - U),  2^52 <= K < 2^53
        k2 = np.rint(2.0 ** 53 - np.exp(-np.maximum(flat, 0.0) / b) * 2.0 ** 52)[None, :] + d
        ok2 = (k2 >= 2.0 ** 52) & (k2 < 2.0 ** 53)
        u2 = np.where(ok2, k2, 2.0 ** 52) * 2.0 ** -53
        hit_pos = ok2 & (0.0 - b * np.log((2.0 - u2) - u2) == flat) & (flat >= 0)
    hit = hit_neg | hit_pos
    out = hit.any(axis=0)
    idx = np.flatnonzero(out)                        # confirm each hit with the C library's log
    first = np.argmax(hit[:, idx], axis=0)
    negative = (flat[idx] < 0).tolist()
    u_hit = np.where(flat[idx] < 0, u[first, idx], u2[first, idx]).tolist()
    confirmed = [(0.0 + b * math.log(w + w)) if neg else (0.0 - b * math.log((2.0 - w) - w))
                 for neg, w in zip(negative, u_hit)]
    out[idx] = np.array(confirmed, dtype=np.float64) == flat[idx]
    return out[inverse].reshape(y.shape)


def textbook_noisy_count(count, *, epsilon, sensitivity=1.0, trials=None, rng=None) -> np.ndarray:
    """BROKEN in floating point: ``count + numpy's Lap(Δ/ε)``, the textbook Laplace mechanism.

    Exactly what DR-Thm3.6 prescribes and what ``dpbook.noise.laplace`` draws; ε-DP over the reals, not
    over the doubles (module docstring).  Returns one value, or an array of ``trials`` values.
    """
    count = check_real("count", count)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    size = None if trials is None else check_int("trials", trials, low=1)
    noise = as_generator(rng).laplace(0.0, sensitivity / epsilon, size=size)
    return count + noise


def unrounded_grid_release(values, *, sensitivity, epsilon, trials=None, rng=None) -> np.ndarray:
    """BROKEN: grid noise ``Λ·discrete_laplace`` added to values that were *not* rounded to the grid.

    The noise is exact, but ``values + ΛZ`` keeps each value's position between grid points
    (``values mod Λ``), so two inputs that are not congruent modulo ``Λ`` have disjoint supports.
    ``dpbook.noise.grid_laplace_release`` rounds first and pays ``Δ + Λ`` for it.
    """
    arr = _check_values(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {arr.shape}")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    scale = sensitivity / epsilon
    granularity = grid_granularity(scale)
    shape = arr.shape if trials is None else (check_int("trials", trials, low=1),) + arr.shape
    return arr + granularity * discrete_laplace(scale / granularity, shape, rng).astype(np.float64)
