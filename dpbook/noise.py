"""Randomness: the one ``rng`` convention and the noise distributions.

Every random function of dpbook takes ``rng`` — a ``numpy.random.Generator``, an int seed, or ``None``
(fresh OS entropy) — and turns it into a Generator with :func:`as_generator`.  Nothing uses numpy's
global state, so the same seed always gives the same output.

Noise samplers share one signature, ``sampler(scale, size, rng) -> ndarray``, so a mechanism can take
the sampler as a parameter (``sampler=laplace``) and a chapter can swap in another one.
"""
from __future__ import annotations

import numbers

import numpy as np

from .validation import check_int, check_real

__all__ = ["as_generator", "laplace", "gaussian", "check_size"]

def as_generator(rng=None) -> np.random.Generator:
    """Turn ``rng`` (Generator, non-negative int seed, or None) into a ``numpy.random.Generator``.

    A Generator is returned as is (so successive calls share its stream); an int seeds a new PCG64.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return np.random.default_rng(check_int("rng", rng, low=0))
    raise TypeError(
        f"rng must be a numpy.random.Generator, a non-negative int seed or None, got {type(rng).__name__}")

def check_size(size) -> tuple[int, ...]:
    """Normalise a numpy-style ``size`` (int or tuple of ints >= 0) to a tuple."""
    if isinstance(size, (numbers.Integral, np.integer)) and not isinstance(size, (bool, np.bool_)):
        size = (size,)
    if not isinstance(size, tuple):
        raise TypeError(f"size must be an int or a tuple of ints, got {type(size).__name__}")
    return tuple(check_int("size", s, low=0) for s in size)

def laplace(scale, size, rng=None) -> np.ndarray:
    """Draw i.i.d. ``Lap(scale)`` noise, density ``exp(-|z|/scale) / (2 scale)`` (S1-Def5, DR-Def3.2).

    Uses numpy's floating-point sampler; see chapter 13 for why a careful library rounds its output.
    """
    scale = check_real("scale", scale, low=0.0, low_open=True)
    return as_generator(rng).laplace(0.0, scale, size=check_size(size))

def gaussian(scale, size, rng=None) -> np.ndarray:
    """Draw i.i.d. ``N(0, scale^2)`` noise (DR-Gauss; ``scale`` is the standard deviation sigma)."""
    scale = check_real("scale", scale, low=0.0, low_open=True)
    return as_generator(rng).normal(0.0, scale, size=check_size(size))
