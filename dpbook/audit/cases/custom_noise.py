"""Audit cases: a caller-built :class:`dpbook.noise.Noise` (chapters 01 and 17).

A mechanism computes its claim from the law a ``Noise`` declares.  The broken twin is the call the API accepted
while a declaration was taken on trust — the discrete Laplace declared as real-valued noise, so the Laplace
mechanism adds integers to counts it does not round; the fixed call declares the sampler's true law (integer
steps), and the mechanism rounds the counts and pays for the rounding.
"""
from __future__ import annotations

import math

import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import

# One query with a fractional entry, q(x) = 0.3 x_0 + x_1, and add/remove neighbours x = (1, 0), x' = (2, 0) with
# one public n = 1: the counts are 0.3 and 0.6, at different places between two integers.
_Q_FRAC = np.array([[0.3, 1.0]])
_X, _X_PRIME = np.array([1, 0]), np.array([2, 0])
_PAIR = "x=(1,0) vs x'=(2,0), public n=1, one query q = 0.3·x_0 + x_1: counts 0.3 vs 0.6"


def _events():
    return {"y ≡ 0.3 (mod 1)": lambda y: np.isclose(np.mod(y, 1.0), 0.3, atol=1e-9),
            "y <= 0.3": lambda y: y <= 0.3}


def _case(name, fn, epsilon, kind, true_epsilon, trials, **kwargs):
    def s(x):
        return lambda t, rng: fn(x, _Q_FRAC, epsilon=epsilon, n=1, trials=t, rng=rng, **kwargs).answers[:, 0]
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_X), s(_X_PRIME), _events(), trials,
                     _PAIR, kind, true_epsilon)


@register("custom_noise_misdeclared")
def _case_misdeclared(epsilon=1.0):
    """Integer noise declared real-valued: every output is ``count + integer``, so ``y mod 1`` is 0.3 under ``x`` and
    0.6 under ``x'`` — the event ``y ≡ 0.3`` has probability 1 vs 0 (true loss infinite)."""
    from ...broken.noise import laplace_misdeclared_noise
    return _case("Laplace + discrete_laplace declared real-valued (unrounded counts)", laplace_misdeclared_noise,
                 epsilon, "control", math.inf, 20_000)


@register("custom_noise_declared_integers")
def _case_declared_integers(epsilon=1.0):
    """The same sampler declared with its true law (``lattice="integers"``): the counts are rounded to 0 and 1 and
    the noise scale is ``(Δ + step·L0)/ε = 2/ε``, so ``P[y <= 0.3]`` is ``P[Z <= 0]`` vs ``P[Z <= -1]``: ratio
    ``e^{ε/2}`` at a claimed ε."""
    from ...laplace import laplace_mechanism
    from ...noise import Noise, discrete_laplace
    noise = Noise("discrete Laplace, declared on the integers", "laplace", "integers", discrete_laplace)
    return _case("Laplace + a caller's Noise declaring discrete_laplace's true law", laplace_mechanism, epsilon,
                 "mechanism", epsilon / 2, 400_000, sampler=noise)
