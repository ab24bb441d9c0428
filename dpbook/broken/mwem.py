"""Broken MWEM variants: positive controls for chapter 07's audits and accuracy test.  Never release with these.

* :func:`mwem_no_round_split` — spends ``ε/2`` on *each* round's selection and measurement (forgets to divide
  by ``T``) yet claims ``ε``: really ``T·ε``-DP.  The transcript audit catches it.
* :func:`mwem_argmax_select` — selects the worst query by exact argmax (no exponential mechanism) yet
  claims ``ε``: not DP at all.  The selection audit catches it.
* :func:`mwem_marginal_cell_sensitivity` — :func:`dpbook.mwem.mwem_practical` measuring whole marginals but
  charging one cell's sensitivity (``Δ = 1``) under replace-one neighbours, where a marginal's L1 sensitivity
  is 2 (a replaced row leaves one cell and enters another): the measurements cost twice what the ledger says.
  The whole-marginal audit catches it.
* :func:`mwem_wrong_sign` — private, but updates with the sign flipped (moves mass *away* from the
  measurement): the control showing the accuracy test can fail.
"""
from __future__ import annotations

import numpy as np

from ..mwem import _check_inputs, _practical, _release, _rounds, _select
from ..noise import laplace
from ..release import Spend
from ..validation import check_epsilon

__all__ = ["mwem_no_round_split", "mwem_argmax_select", "mwem_wrong_sign", "mwem_marginal_cell_sensitivity"]


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


def mwem_marginal_cell_sensitivity(x, workload, *, epsilon, T, n=None, select_share=0.5, neighbours="replace-one",
                                   replay="converge", trials=None, rng=None, sampler=laplace):
    """WRONG: whole-marginal MWEM (last iterate, replay to convergence, never re-select) charged ``Δ = 1`` (one
    cell) whatever the neighbours; under replace-one a marginal's L1 sensitivity is 2.  Claims ``ε``."""
    return _practical(x, workload, epsilon=epsilon, T=T, n=n, measure="marginal", output="last", replay=replay,
                      exclude_measured=True, select_share=select_share, round_weights=None, neighbours=neighbours,
                      trials=trials, rng=rng, sampler=sampler, name="broken mwem (marginal charged one cell)",
                      charged_sensitivity=1.0)
