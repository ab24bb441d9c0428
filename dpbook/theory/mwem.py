"""Bounds for multiplicative weights and MWEM (THEOREMS.md §6 App. A, §7, §9 PROJ-R4; chapters 07–08).

Units: ``alpha`` is normalised (an error on answers in ``[0,1]``) unless a name says ``counts``.  ``ln`` is
the natural log.
"""
from __future__ import annotations

import math

from ..validation import check_alpha, check_int

__all__ = ["mw_bound", "mw_potential_drop", "mw_initial_potential_bound"]


def _check_N(N) -> int:
    return check_int("N", N, low=1)


def mw_bound(alpha, N) -> float:
    """``B(α) = 4 ln N / α²`` (IDC-ThmA.4 ≡ DR-Thm4.10): the most updates MW can make, each ``α``-wrong.

    ``alpha`` normalised; in GRU's counts ``B(α_u) = 4 n² ln N / α_u²`` is the same number with ``α = α_u/n``.
    """
    alpha = check_alpha(alpha)
    return 4.0 * math.log(_check_N(N)) / alpha ** 2


def mw_potential_drop(alpha) -> float:
    """``α²/4``: the least drop of ``Ψ_t = KL(D̄‖D^t)`` in a valid update with ``η = α/2`` (IDC-LemmaA.6).

    The lemma gives ``Ψ_t − Ψ_{t+1} >= η(<r,D^t> − <r,D̄>) − η²`` with bracket ``>= α``: ``α²/2 − α²/4``.
    """
    alpha = check_alpha(alpha)
    return alpha ** 2 / 4.0


def mw_initial_potential_bound(N) -> float:
    """``Ψ_0 <= ln N`` for the uniform start ``D^0 = 1/N`` (IDC-ClaimA.5 ≡ DR-Prop4.11)."""
    return math.log(_check_N(N))
