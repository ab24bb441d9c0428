"""Answers to chapter 00's exercises (how to use the book)."""
from __future__ import annotations

from ..theory.laplace import laplace_cdf, laplace_scale
from ._registry import register


def _shared_mass(epsilon: float) -> float:
    """The mass that Lap(0, b) and Lap(1, b), b = 1/ε, share: one minus their total-variation distance."""
    b = laplace_scale(1.0, epsilon)
    return 1.0 - (laplace_cdf(0.5, 0.0, b) - laplace_cdf(0.5, 1.0, b))


@register("00.2", hint="the two densities share 1 − TV of their mass, and TV is read off the CDFs at the midpoint "
                       "Δf/2; solve for the ε at which they share 95 %", rtol=0.01)
def epsilon_sharing_95() -> float:
    """The ε at which the two Laplace densities of the slider figure share 95 % of their mass (Δf = 1)."""
    lo, hi = 1e-4, 5.0                  # bisection (the shared mass falls with ε); scipy.optimize costs ~0.3 s to import
    while hi - lo > 1e-14:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _shared_mass(mid) > 0.95 else (lo, mid)
    return (lo + hi) / 2
