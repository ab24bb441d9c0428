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

from ..noise import MAX_DISCRETE_SCALE, as_generator, discrete_laplace, grid_granularity
from ..release import Spend, with_claim
from ..validation import check_noise_scale, check_scale, check_epsilon, check_int, check_real, check_real_array, check_sensitivity, check_trials

__all__ = ["numpy_laplace_image", "textbook_noisy_count", "unrounded_grid_release"]

def _check_values(values, name="values") -> np.ndarray:
    return check_real_array(name, values)


_WINDOW = np.arange(-8, 9)          # integers K tried around the inverted estimate (the estimate is within ±2)
_ULPS = 8                           # a vectorised log may differ from the C library's by a few units in the last place


def _ordered_bits(y: np.ndarray) -> np.ndarray:
    """Map doubles to int64 so that adjacent doubles differ by 1 (and -0.0 == 0.0): |a - b| counts ulps."""
    bits = y.view(np.int64)
    return np.where(bits < 0, np.int64(-0x8000000000000000) - bits, bits)


def _numpy_laplace_draw(u: float, b: float) -> float:
    """numpy's ``random_laplace(loc=0, scale=b)`` for one uniform ``U = u``, with the C library's ``log``."""
    return (0.0 + b * math.log(u + u)) if u < 0.5 else (0.0 - b * math.log((2.0 - u) - u))


def numpy_laplace_image(values, scale) -> np.ndarray:
    """True where ``value`` is a double that ``Generator.laplace(0.0, scale)`` can return.

    numpy draws ``U = K·2^-53`` and computes ``b·log(2U)`` (``U < 1/2``) or ``-b·log((2 - U) - U)`` with the
    C library's ``log`` (module docstring).  For each value: invert the sampler to estimate ``K``
    (``K ≈ 2^52·e^{y/b}`` for ``y < 0``, ``K ≈ 2^53 - 2^52·e^{-y/b}`` for ``y >= 0``; off by at most about 2),
    take the 17 integers around the estimate, keep those whose draw computed with numpy's vectorised
    ``np.log`` lands within 8 ulps of the value (a *widening* pre-filter: SIMD ``log`` kernels differ from
    the C library's by at most 1–4 ulps, so no true candidate is dropped), then decide with the sampler's
    own arithmetic — ``math.log``, the C library's ``log`` — for every kept candidate.  A value is in the
    image iff one candidate reproduces it bit for bit.  The answer therefore does not depend on which
    SIMD ``log`` numpy dispatches to on this CPU.  Returns a boolean array of the values' shape.
    """
    y = _check_values(values)
    b = check_scale(scale)
    flat, inverse = np.unique(y.ravel(), return_inverse=True)       # integer outputs repeat a lot
    negative = flat < 0
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        k_neg = np.rint(np.exp(np.minimum(flat, 0.0) / b) * 2.0 ** 52)
        k_pos = np.rint(2.0 ** 53 - np.exp(-np.maximum(flat, 0.0) / b) * 2.0 ** 52)
        k = np.where(negative, k_neg, k_pos)[:, None] + _WINDOW[None, :]
        lo = np.where(negative, 1.0, 2.0 ** 52)[:, None]          # U < 1/2: 1 <= K < 2^52
        hi = np.where(negative, 2.0 ** 52, 2.0 ** 53)[:, None]    # U >= 1/2: 2^52 <= K < 2^53
        ok = (k >= lo) & (k < hi)
        u = np.where(ok, k, lo) * 2.0 ** -53
        approx = np.where(negative[:, None], 0.0 + b * np.log(u + u), 0.0 - b * np.log((2.0 - u) - u))
    near = ok & (np.abs(_ordered_bits(approx) - _ordered_bits(flat)[:, None]) <= _ULPS)
    rows, cols = np.nonzero(near)
    w = u[rows, cols]
    low = w < 0.5                 # the sampler's branch; its sums and products are IEEE-exact in numpy as in C,
    arg = np.where(low, w + w, (2.0 - w) - w)        # only its log must be the C library's: math.log, per candidate
    logs = np.fromiter(map(math.log, arg.tolist()), dtype=np.float64, count=rows.size)
    exact = np.where(low, 0.0 + b * logs, 0.0 - b * logs)     # = _numpy_laplace_draw(w, b), vectorised
    out = np.zeros(flat.size, dtype=bool)
    out[rows[exact == flat[rows]]] = True
    return out[inverse].reshape(y.shape)


def textbook_noisy_count(count, *, epsilon, sensitivity=1.0, trials=None, rng=None) -> np.ndarray:
    """BROKEN in floating point: ``count + numpy's Lap(Δ/ε)``, the textbook Laplace mechanism.

    Exactly what DR-Thm3.6 prescribes and what ``dpbook.noise.laplace_noise`` draws; ε-DP over the reals, not
    over the doubles (module docstring).  Returns one value, or an array of ``trials`` values.
    """
    count = check_real("count", count)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    size = None if trials is None else check_trials(trials)
    noise = as_generator(rng).laplace(0.0, sensitivity / epsilon, size=size)
    return with_claim(count + noise, mechanism="textbook noisy count (BROKEN in floating point)",
                      ledger=(Spend("laplace (numpy floating point)", epsilon),))


def unrounded_grid_release(values, *, sensitivity, epsilon, trials=None, rng=None) -> np.ndarray:
    """BROKEN: grid noise ``Λ·discrete_laplace`` added to values that were *not* rounded to the grid.

    The noise is exact, but ``values + ΛZ`` keeps each value's position between grid points
    (``values mod Λ``), so two inputs that are not congruent modulo ``Λ`` have disjoint supports.
    ``dpbook.laplace.grid_laplace_release`` rounds first and pays ``Δ + Λ`` for it.
    """
    arr = _check_values(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {arr.shape}")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    scale = check_noise_scale(sensitivity, epsilon, high=MAX_DISCRETE_SCALE / 2)
    granularity = grid_granularity(scale)
    shape = arr.shape if trials is None else (check_trials(trials, arr.size),) + arr.shape
    noisy = arr + granularity * discrete_laplace(scale / granularity, shape, rng).astype(np.float64)
    return with_claim(noisy, mechanism="grid noise without rounding (BROKEN)",
                      ledger=(Spend("grid laplace (BROKEN: values off the grid)", epsilon),))
