"""The update-sequence checker and the worst-case oracle (IDC-Def3.1, Def3.2; chapter 10).

* :func:`update_sequence_violations` / :func:`is_update_sequence` — which conditions of IDC-Def3.1 a log
  ``[(D^t, Q^t, Â^t)]`` (:class:`UpdateStep`, e.g. ``trace["logs"]`` of an online mechanism) violates;
* :func:`drive_with_oracle` — the measure of IDC-Def3.2: an oracle shows the worst query with its exact answer
  until no query is ``α``-wrong (:class:`OracleRun`: the length ``L`` of the maximal sequence, the potential).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..queries import as_workload
from ..validation import check_alpha, check_histogram, check_int
from .streams import public_n
from .updates import IDC

__all__ = ["UpdateStep", "update_sequence_violations", "is_update_sequence", "OracleRun", "drive_with_oracle"]


@dataclass(frozen=True)
class UpdateStep:
    """One entry ``(D^t, Q^t, Â^t)`` of a database update sequence (IDC-Def3.1): the state *before* the update."""

    state: np.ndarray = field(repr=False)
    query: int
    noisy_answer: float


def update_sequence_violations(log, x, rule, workload, alpha, n=None) -> list[str]:
    """Which conditions of IDC-Def3.1 a log ``[(D^t, Q^t, Â^t)]`` violates (an empty list: a valid sequence).

    1. ``D^1 = U(⊥)``; 2. ``|Q^t(D) - Q^t(D^t)| >= α``; 3. ``|Q^t(D) - Â^t| < α``; 4. ``D^{t+1} = U(D^t, Q^t, Â^t)``.
    """
    x = check_histogram(x)
    W = as_workload(workload)
    alpha = check_alpha(alpha)
    true = W.counts(x) / public_n(x, n)
    out = []
    log = list(log)
    if log and not np.allclose(log[0].state, rule.initial(1)[0]):
        out.append("1: D^1 is not U(⊥)")
    for t, step in enumerate(log):
        here = rule.evaluate_query(step.state[None], W, step.query)[0]
        if not abs(true[step.query] - here) >= alpha:
            out.append(f"2: |Q(D) - Q(D^t)| = {abs(true[step.query] - here):.4g} < alpha at t={t + 1}")
        if not abs(true[step.query] - step.noisy_answer) < alpha:
            out.append(f"3: |Q(D) - A^t| = {abs(true[step.query] - step.noisy_answer):.4g} >= alpha at t={t + 1}")
        if t + 1 < len(log):
            nxt = rule.update_query(step.state[None], W, step.query, np.array([step.noisy_answer]))[0]
            if not np.allclose(nxt, log[t + 1].state, rtol=1e-9, atol=1e-12):
                out.append(f"4: D^{t + 2} != U(D^{t + 1}, Q, A)")
    return out


def is_update_sequence(log, x, rule, workload, alpha, n=None) -> bool:
    """True iff the log is a ``(U, D, Q, α, L)`` database update sequence (IDC-Def3.1)."""
    return not update_sequence_violations(log, x, rule, workload, alpha, n)


@dataclass(frozen=True)
class OracleRun:
    """An IDC driven by an oracle that always shows the worst query with its exact answer (IDC-Def3.2 measure).

    ``updates``: the length ``L`` of the maximal update sequence; ``potentials``: the rule's potential before
    each update and after the last (``L + 1`` values); ``max_errors``: the hypothesis' max error over the
    workload at the same times; ``log``: the update sequence; ``state``: the final hypothesis.
    """

    updates: int
    potentials: np.ndarray
    max_errors: np.ndarray
    log: tuple
    state: np.ndarray = field(repr=False)


def drive_with_oracle(rule, x, workload, *, n=None, max_updates=None) -> OracleRun:
    """Run ``U`` on the update sequence chosen by the worst-case oracle until no query is ``α``-wrong.

    Each step shows the query with the largest ``|Q(D) - Q(D^t)|`` and its exact answer ``Â = Q(D)``;
    it stops when that error is ``< α`` (the sequence is maximal) or after ``max_updates`` steps
    (default ``floor(B(α)) + 1``: one more than any valid sequence may have).
    """
    x = check_histogram(x)
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC, got {type(rule).__name__}")
    W = as_workload(workload)
    n = public_n(x, n)
    true = W.counts(x) / n
    x_bar = x / x.sum()
    limit = int(np.floor(rule.bound())) + 1 if max_updates is None else check_int("max_updates", max_updates, low=0)
    state = rule.initial(1)
    log, potentials, max_errors = [], [], []
    while True:
        err = np.abs(rule.answers(state, W)[0] - true)
        j = int(np.argmax(err))
        potentials.append(float(rule.potential(state, x_bar)[0]))
        max_errors.append(float(err[j]))
        if err[j] < rule.alpha or len(log) >= limit:
            break
        log.append(UpdateStep(state[0].copy(), j, float(true[j])))
        state = rule.update_query(state, W, j, np.array([true[j]]))
    return OracleRun(len(log), np.array(potentials), np.array(max_errors), tuple(log), state[0])
