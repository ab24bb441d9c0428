"""The audit engine: Clopper–Pearson lower bounds on ε from event counts, and one audit of a pair of samplers
(PA(ii): the audit by event frequencies, see ``docs/theorems.md``).

If ``M`` is (ε, δ)-DP then for neighbours ``x, x'`` and every event ``S``
``P[M(x) ∈ S] <= e^ε P[M(x') ∈ S] + δ``.  Run ``M`` ``trials`` times on each input, count how often the
output lands in ``S``, and bound the two probabilities with exact Clopper–Pearson intervals: with
probability at least ``1 - alpha`` both true probabilities lie in their intervals, and then

    ε >= ln((p_lo(x) - δ) / p_hi(x'))          (and the same with x, x' swapped, and with S's complement).

The largest of these is ``epsilon_lower_bound``.  For a correct mechanism it exceeds the true ε with
probability at most ``alpha`` (default 1e-6), so an audit that reports
``ε_lb > ε`` is strong evidence of a bug — and an audit that passes is evidence, never proof.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..contract import example
from ..noise import as_generator
from ..stats import clopper_pearson
from ..validation import check_delta, check_int, check_probability, check_trials

__all__ = ["epsilon_lower_bound", "AuditResult", "audit"]



def epsilon_lower_bound(hits, trials, hits_prime, trials_prime, *, delta=0.0, alpha=1e-6) -> float:
    """Lower bound on ε from ``hits/trials`` hits of ``S`` under ``x`` and ``hits_prime/trials_prime`` under ``x'``.

    Uses two-sided Clopper–Pearson intervals at level ``alpha/2`` each; considers both directions and
    both ``S`` and its complement.  Returns 0.0 when the counts give no evidence of privacy loss.
    The bound is wrong (exceeds the true ε of an (ε, δ)-DP mechanism) with probability <= ``alpha``.
    """
    trials = check_trials(trials)
    trials_prime = check_trials(trials_prime, name="trials_prime")
    hits = check_int("hits", hits, low=0, high=trials)
    hits_prime = check_int("hits_prime", hits_prime, low=0, high=trials_prime)
    delta = check_delta(delta)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    lo, hi = clopper_pearson(hits, trials, alpha / 2)
    lo2, hi2 = clopper_pearson(hits_prime, trials_prime, alpha / 2)
    candidates = [(lo, hi2), (lo2, hi), (1 - hi, 1 - lo2), (1 - hi2, 1 - lo)]   # (P_lo[S], P_hi'[S])
    best = 0.0
    for p_lo, q_hi in candidates:
        if p_lo - delta > 0 and q_hi > 0:
            best = max(best, math.log((p_lo - delta) / q_hi))
    return best


@dataclass(frozen=True)
class AuditResult:
    """The audit's verdict: the best event's ``epsilon_lb`` and the counts behind it."""

    epsilon_lb: float
    event: str
    hits: int
    hits_prime: int
    trials: int
    alpha: float
    delta: float

    def passes(self, epsilon) -> bool:
        """True when the audit found no evidence against the claim ``epsilon``."""
        return self.epsilon_lb <= epsilon


def audit(sample, sample_prime, events, *, trials, delta=0.0, alpha=1e-6, rng=None) -> AuditResult:
    """Audit a mechanism on a neighbouring pair.

    ``sample(trials, rng)`` and ``sample_prime(trials, rng)`` return ``trials`` outputs of ``M(x)`` and
    ``M(x')`` (an array whose first axis is the trial).  ``events`` maps a name to a function
    ``outputs -> bool array (trials,)``.  The level ``alpha`` is split evenly over the events
    (Bonferroni), so the whole audit has false-alarm probability at most ``alpha``.
    """
    trials = check_trials(trials)
    delta = check_delta(delta)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    if not events:
        raise ValueError("events must name at least one event")
    rng = as_generator(rng)
    out, out_prime = sample(trials, rng), sample_prime(trials, rng)
    best = None
    for name, event in dict(events).items():
        hits = count_event(event(out), trials, name)
        hits_prime = count_event(event(out_prime), trials, name)
        eps = epsilon_lower_bound(hits, trials, hits_prime, trials, delta=delta, alpha=alpha / len(events))
        if best is None or eps > best.epsilon_lb:
            best = AuditResult(eps, name, hits, hits_prime, trials, alpha, delta)
    return best


def count_event(mask, trials, name) -> int:
    """How many of ``trials`` outputs fall in the event ``name`` (``mask``: its boolean array, checked)."""
    mask = np.asarray(mask)
    if mask.shape != (trials,) or mask.dtype != bool:
        raise ValueError(f"event {name!r} must return a boolean array of shape ({trials},), got "
                         f"{mask.dtype} {mask.shape}")
    return int(np.count_nonzero(mask))


# a valid call of the audit, for the sweeps of tests/ (determinism, bad input): Lap(1) against 1 + Lap(1)
example(audit, lambda: dict(sample=lambda t, rng: rng.laplace(size=t), sample_prime=lambda t, rng: 1 + rng.laplace(size=t),
                            events={"output > 0.5": lambda o: o > 0.5}, trials=2000))
