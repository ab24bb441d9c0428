"""Broken MWEM variants: positive controls for chapter 07's audits and accuracy test.  Never release with these.

* :func:`mwem_no_round_split` — spends ``ε/2`` on *each* round's selection and measurement (forgets to divide
  by ``T``) yet claims ``ε``: really ``T·ε``-DP.  The transcript audit catches it.
* :func:`mwem_argmax_select` — selects the worst query by exact argmax (no exponential mechanism) yet
  claims ``ε``: not DP at all.  The selection audit catches it.
* :func:`mwem_wrong_sign` — private, but updates with the sign flipped (moves mass *away* from the
  measurement): the control showing the accuracy test can fail.
"""
from __future__ import annotations

import numpy as np

from ..mwem import _check_inputs, _release, _rounds, _select
from ..noise import laplace
from ..release import Spend
from ..validation import check_epsilon

__all__ = ["mwem_no_round_split", "mwem_argmax_select", "mwem_wrong_sign"]


def _ledger(T, epsilon_select, epsilon_measure):
    return tuple(Spend(f"round {i + 1}: {step}", eps) for i in range(T)
                 for step, eps in (("exponential mechanism (select)", epsilon_select),
                                   ("laplace (measure)", epsilon_measure)))


def mwem_no_round_split(x, workload, *, epsilon, T, n=None, trials=None, rng=None, sampler=laplace):
    """WRONG: each round uses ``ε/2`` for selection and ``Lap(2/ε)`` for measurement (no ``/T``); claims ``ε``."""
    x, W, T, n, _, R, rng, sampler = _check_inputs(x, workload, T, n, 0, trials, rng, sampler)
    epsilon = check_epsilon(epsilon)
    epsilon_select = epsilon_measure = epsilon / 2           # the bug: should be epsilon / (2 * T)
    out = _rounds(x, W, T=T, n=n, replay=0, R=R, rng=rng, sampler=sampler,
                  select=lambda scores, i, allowed, g: _select(scores, epsilon_select, g),
                  measure_scale=[1.0 / epsilon_measure] * T)
    return _release(out, trials, "broken mwem (no round split)", epsilon, 1.0 / (epsilon_measure * n),
                    _ledger(T, epsilon_select, epsilon_measure), T=T, n=n)


def mwem_argmax_select(x, workload, *, epsilon, T, n=None, trials=None, rng=None, sampler=laplace):
    """WRONG: picks ``argmax |q(A) − q(B)|`` exactly (no exponential mechanism); claims ``ε``."""
    x, W, T, n, _, R, rng, sampler = _check_inputs(x, workload, T, n, 0, trials, rng, sampler)
    epsilon = check_epsilon(epsilon)
    epsilon_select = epsilon_measure = epsilon / (2 * T)
    out = _rounds(x, W, T=T, n=n, replay=0, R=R, rng=rng, sampler=sampler,
                  select=lambda scores, i, allowed, g: np.argmax(scores, axis=1),
                  measure_scale=[1.0 / epsilon_measure] * T)
    return _release(out, trials, "broken mwem (argmax selection)", epsilon, 1.0 / (epsilon_measure * n),
                    _ledger(T, epsilon_select, epsilon_measure), T=T, n=n)


def mwem_wrong_sign(x, workload, *, epsilon, T, n=None, trials=None, rng=None, sampler=laplace):
    """WRONG (accuracy only): ``A_i ∝ A_{i-1} exp(−q (m_i − q(A_{i-1}))/(2n))`` — the update's sign is flipped."""
    x, W, T, n, _, R, rng, sampler = _check_inputs(x, workload, T, n, 0, trials, rng, sampler)
    epsilon = check_epsilon(epsilon)
    epsilon_select = epsilon_measure = epsilon / (2 * T)
    out = _rounds(x, W, T=T, n=n, replay=0, R=R, rng=rng, sampler=sampler,
                  select=lambda scores, i, allowed, g: _select(scores, epsilon_select, g),
                  measure_scale=[1.0 / epsilon_measure] * T,
                  sign=-1.0)
    return _release(out, trials, "broken mwem (wrong sign)", epsilon, 1.0 / (epsilon_measure * n),
                    _ledger(T, epsilon_select, epsilon_measure), T=T, n=n)
