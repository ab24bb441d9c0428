"""Answers to chapter 11's exercises (online IDCs).

Both answers are parameters of the mechanisms, computed exactly (no sampling); the tolerances are tight.
"""
from __future__ import annotations

import math

from ..idc import MedianIDC, MultiplicativeWeightsIDC
from ..theory import idc as th
from ._registry import register

_EPS, _DELTA = 1.0, 1e-6


@register("11.1", hint="call th.thm41_epsilon0(ε, B, δ) with and without c_star=1 at section 1's B = ⌊B_MW(α/3)⌋, "
                       "N = 64, α = 0.3, and divide", rtol=0.005)
def epsilon0_gain() -> float:
    """How many times larger ε0 is with c* = 1 than with c* = 2 (section 1's B, ε = 1, δ = 1e-6)."""
    B = math.floor(th.mw_bound(0.3 / 3, 64))
    return float(th.thm41_epsilon0(_EPS, B, _DELTA, c_star=1) / th.thm41_epsilon0(_EPS, B, _DELTA))


@register("11.2", hint="IDC-Alg1-SV solves ε0 from DR-Thm3.20 for 2c steps (composition=\"tight\", ε = 0.9, δ = 1e-6); "
                       "c is each rule's update bound (th.sv_updates(rule.bound())); divide the two ε0",
          rtol=0.005)
def median_epsilon0_gain() -> float:
    """How many times larger the median mechanism's ε0 per step is than MW's (N = 8, α_U = 0.2, tight composition)."""
    eps0 = [th.sv_epsilon0_tight(0.9, _DELTA, th.sv_updates(rule.bound()))
            for rule in (MedianIDC(8, 4, alpha=0.2), MultiplicativeWeightsIDC(8, 0.2))]
    return float(eps0[0] / eps0[1])
