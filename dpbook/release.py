"""What a mechanism returns: a small frozen record of the release and of what it spent."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

import math

__all__ = ["Release", "Spend", "Ledger", "compose", "RULES", "NEIGHBOURS"]

from .validation import NEIGHBOURS as _DATABASE_RELATIONS
from .validation import check_delta, check_real

#: The neighbouring relations a claim can be made under: add/remove one row (``||x - x'||_1 <= 1``, n private),
#: replace one row (``|D| = |D'| = n``, n public), and randomized response's local relation (chapter 02).
NEIGHBOURS = _DATABASE_RELATIONS + ("one person's private bit changes",)


@dataclass(frozen=True)
class Spend:
    """One entry of a budget ledger: a primitive private step and the (ε, δ) it used."""

    step: str
    epsilon: float
    delta: float = 0.0

    def __post_init__(self):
        check_real("epsilon", self.epsilon, low=0.0)
        check_delta(self.delta)


RULES = ("basic", "advanced")


class Ledger(tuple):
    """The private steps of a release and the rule that composes them: a tuple of :class:`Spend` (or nested
    ledgers) with ``rule`` — ``"basic"`` (DR-Thm3.16: the ε and δ add up) or ``"advanced"`` (DR-Thm3.20 with
    its ``delta_prime``: ``ε' = sqrt(2 ln(1/δ') Σ ε_i²) + Σ ε_i (e^{ε_i} - 1)`` and ``δ' + Σ δ_i``, the same proof
    with each step's own ε).  A plain tuple of ``Spend`` is a basic ledger.  :func:`compose` gives the (ε, δ)
    the steps prove; a mechanism's claim must be at least that.
    """

    def __new__(cls, entries=(), *, rule: str = "basic", delta_prime: float = 0.0, label: str = ""):
        entries = tuple(entries)
        for e in entries:
            if not isinstance(e, (Spend, tuple)):
                raise TypeError(f"entries must be Spend records or ledgers, got {type(e).__name__}")
        if rule not in RULES:
            raise ValueError(f"rule ({rule!r}) must be one of {RULES}")
        delta_prime = check_delta(delta_prime, "delta_prime", positive=rule == "advanced")
        obj = super().__new__(cls, entries)
        obj.rule, obj.delta_prime, obj.label = rule, delta_prime, label
        return obj

    def __repr__(self):
        extra = f", delta_prime={self.delta_prime:g}" if self.rule == "advanced" else ""
        return f"Ledger({len(self)} steps, rule={self.rule!r}{extra}{', ' + self.label if self.label else ''})"


def compose(ledger) -> tuple[float, float]:
    """The (ε, δ) a ledger proves: a :class:`Spend` is its own (ε, δ); a plain tuple or a basic
    :class:`Ledger` adds them (DR-Thm3.16); an advanced ledger applies DR-Thm3.20 with its ``delta_prime``
    (for steps with different ε_i, the same Azuma argument gives ``sqrt(2 ln(1/δ') Σ ε_i²) + Σ ε_i(e^{ε_i}-1)``)."""
    if isinstance(ledger, Spend):
        return float(ledger.epsilon), float(ledger.delta)
    if not isinstance(ledger, tuple):
        raise TypeError(f"ledger must be a Spend, a Ledger or a tuple of them, got {type(ledger).__name__}")
    parts = [compose(entry) for entry in ledger]
    eps = [e for e, _ in parts]
    delta = math.fsum(d for _, d in parts)
    if getattr(ledger, "rule", "basic") == "basic":
        return math.fsum(eps), delta
    dp = ledger.delta_prime
    epsilon = math.sqrt(2.0 * math.log(1.0 / dp) * math.fsum(e * e for e in eps)) + math.fsum(e * math.expm1(e) for e in eps)
    return epsilon, delta + dp


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
