"""Answers to chapter 12's exercises (the privacy loss of the online IDC).

Exercise 1 asks for widget settings and an explanation (no single number): no key.  Exercise 2's answer is exact.
"""
from __future__ import annotations

from ..theory import idc as th
from ._registry import register


@register("12.2", hint="th.thm41_epsilon0 gives the reconstructed condition's ε0, th.alg1_freedman_epsilon0 the proved "
                       "bound's; evaluate both at ε = 1, B_max = 1663, δ = 1e-6 and divide", rtol=0.005)
def freedman_gain() -> float:
    """How many times larger the proved Freedman-type ε0 is than the reconstructed one (B_max = 1663)."""
    return float(th.alg1_freedman_epsilon0(1.0, 1663, 1e-6) / th.thm41_epsilon0(1.0, 1663, 1e-6))
