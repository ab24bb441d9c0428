"""What a mechanism returns: a small frozen record of the release and of what it spent."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

__all__ = ["Release", "Spend", "NEIGHBOURS"]

from .validation import NEIGHBOURS as _DATABASE_RELATIONS

#: The neighbouring relations a claim can be made under: add/remove one row (``||x - x'||_1 <= 1``, n private),
#: replace one row (``|D| = |D'| = n``, n public), and randomized response's local relation (chapter 02).
NEIGHBOURS = _DATABASE_RELATIONS + ("one person's private bit changes",)


@dataclass(frozen=True)
class Spend:
    """One entry of a budget ledger: a primitive private step and the (ε, δ) it used."""

    step: str
    epsilon: float
    delta: float = 0.0


@dataclass(frozen=True)
class Release:
    """A private release.

    ``answers``: the released normalised answers, shape ``(m,)`` or ``(trials, m)`` for batched runs
    (never the true answers).  ``epsilon``/``delta``: the guarantee claimed for one release.
    ``noise_scale``: the noise parameter in answer units (Laplace ``b`` or Gaussian ``σ``).
    ``ledger``: every primitive private step with its (ε, δ); composite mechanisms record each call
    so tests can check that the parts add up to the claim.  ``trace``: optional extra data for plots
    and audits (never used to answer queries).  ``neighbours``: the neighbouring relation the claim is made
    under, one of :data:`NEIGHBOURS`.
    """

    answers: np.ndarray = field(repr=False)
    epsilon: float
    delta: float
    mechanism: str
    noise_scale: float | None = None
    ledger: tuple[Spend, ...] = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    neighbours: str = "add/remove"

    def __post_init__(self):
        if self.neighbours not in NEIGHBOURS:
            raise ValueError(f"neighbours ({self.neighbours!r}) must be one of {NEIGHBOURS}")
