"""Answers to chapter 05's exercises (composition)."""
from __future__ import annotations

import math

from scipy.special import ndtri

from ..theory.composition import advanced_composition, advanced_per_step_epsilon, basic_composition
from ..theory.gaussian import gaussian_sigma, privacy_loss_mean
from ._registry import register


@register("05.1", hint="m Gaussian steps with the same σ lose like one step of sensitivity √m: solve "
                       "privacy_loss_tail(ε, σ, sensitivity=√m) = 1e-6 for ε", rtol=0.005)
def gaussian_composed_epsilon() -> float:
    """The ε with P[L > ε] = 1e-6 for m = 100 Gaussian steps, each (0.1, 1e-6)-DP with the classic σ."""
    mu = privacy_loss_mean(math.sqrt(100), gaussian_sigma(1.0, 0.1, 1e-6))    # L ~ N(mμ, 2mμ), written mu here
    return mu - math.sqrt(2.0 * mu) * float(ndtri(1e-6))                        # P[L > ε] = 1e-6, solved exactly


def _cor321_works(delta_prime: float) -> bool:
    try:
        advanced_per_step_epsilon(0.99, 1, delta_prime)
        return True
    except ValueError:
        return False


@register("05.2", hint="advanced_per_step_epsilon refuses a δ′ for which the composed ε exceeds the target: bisect "
                       "on the refusal", rtol=0.005)
def largest_delta_prime() -> float:
    """The largest δ′ for which DR-Cor3.21 works at m = 1, ε = 0.99."""
    lo, hi = 0.5, 0.95
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _cor321_works(mid) else (lo, mid)
    return lo


@register("05.3", hint="the first m where advanced_composition(ε0, m, δ′)[0] < basic_composition(ε0, m)[0]; "
                       "compare with 2 ln(1/δ′)/(2 − e^{ε0})²", rtol=0.01)
def advanced_beats_basic_from() -> float:
    """The smallest m at which advanced composition beats basic composition, ε0 = 0.01, δ′ = 1e-12."""
    return float(next(m for m in range(1, 100_001)
                      if advanced_composition(0.01, m, 1e-12)[0] < basic_composition(0.01, m)[0]))
