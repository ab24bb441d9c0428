"""Broken MWEM variants: positive controls for chapter 09's audits and accuracy test.  Never release with these.

* :func:`mwem_no_round_split` — spends ``ε/2`` on *each* round's selection and measurement (forgets to divide
  by ``T``) yet claims ``ε``: really ``T·ε``-DP.  The transcript audit catches it.
* :func:`mwem_argmax_select` — selects the worst query by exact argmax (no exponential mechanism) yet
  claims ``ε``: not DP at all.  The selection audit catches it.
* :func:`mwem_marginal_cell_sensitivity` — :func:`dpbook.mwem.mwem_practical` measuring whole marginals but
  charging one cell's sensitivity (``Δ = 1``, the add/remove one) under replace-one neighbours, where a marginal's
  L1 sensitivity is 2 (a replaced row leaves one cell and enters another): the measurements cost twice what the
  ledger says.  The whole-marginal audit catches it.
* :func:`adaptive_marginals_one_way_unscaled` — :func:`dpbook.mwem.adaptive_marginals` adding one table's
  Laplace scale ``Δ/ε_1`` to every 1-way cell where the ``d`` tables together need ``dΔ/ε_1``: the 1-way step
  costs ``d·ε_1`` and is charged ``ε_1``.  The 1-way audit catches it.
* :func:`adaptive_marginals_zcdp_one_way_unscaled` — :func:`dpbook.mwem.adaptive_marginals` at ``delta > 0``
  whose 1-way step takes the L2 sensitivity of the ``d`` 1-way tables together as one table's ``Δ₂`` (it is
  ``Δ₂ sqrt(d)``): the Gaussian σ of the step is ``sqrt(d)`` times too small, so the step is ``d ρ_1``-zCDP and is
  charged ``ρ_1``.  The zCDP 1-way audit catches it.
* :func:`adaptive_marginals_full_table_cell_sensitivity` — :func:`dpbook.mwem.adaptive_marginals` whose
  full-table route (and every other step) takes the add/remove sensitivity ``Δ = 1`` (one cell) whatever the
  neighbours: under replace-one the table's L1 sensitivity is 2 (a replaced row leaves one cell and enters
  another), so ``x + Lap(1/ε)`` costs ``2ε`` and is charged ``ε``.  The full-table audit catches it.
* :func:`adaptive_marginals_full_table_zcdp_cell_sensitivity` — the same at ``delta > 0`` with a Gaussian table:
  ``σ = 1/sqrt(2ρ)`` (add/remove's ``Δ₂ = 1``) where replace-one's ``Δ₂`` is ``sqrt(2)``, so the table costs
  ``2ρ`` (zCDP) and is charged ``ρ``.  The Gaussian full-table audit catches it.
* :func:`mwem_wrong_sign` — private, but updates with the sign flipped (moves mass *away* from the
  measurement): the control showing the accuracy test can fail.

Each is the engine of :mod:`dpbook.mwem` (:func:`~dpbook.mwem.check_mwem_inputs`, :func:`~dpbook.mwem.mwem_rounds`,
:func:`~dpbook.mwem.mwem_ledger`, :func:`~dpbook.mwem.mwem_release`) with one plausible bug.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..exponential import exponential_mechanism
from ..mwem import (adaptive_one_way_budget, adaptive_release, adaptive_zcdp_opening, check_mwem_inputs, mwem_ledger,
                    mwem_practical, mwem_release, mwem_rounds)
from ..contract import example
from ..noise import laplace_noise
from ..noise import gaussian_noise
from ..validation import check_delta, check_histogram, check_neighbours

__all__ = ["mwem_no_round_split", "mwem_argmax_select", "mwem_wrong_sign", "mwem_marginal_cell_sensitivity",
           "adaptive_marginals_one_way_unscaled", "adaptive_marginals_zcdp_one_way_unscaled",
           "adaptive_marginals_full_table_cell_sensitivity", "adaptive_marginals_full_table_zcdp_cell_sensitivity"]


def _broken(x, workload, epsilon, T, n, trials, rng, sampler, name, select, epsilon_select, epsilon_measure,
            sign=1.0):
    x, W, p, T, _ = check_mwem_inputs(x, workload, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng, sampler=sampler)
    epsilon, n = p.epsilon, p.n
    es, em = epsilon_select(epsilon, T), epsilon_measure(epsilon, T)
    out = mwem_rounds(x, W, T=T, n=n, replay=0, R=p.runs, rng=p.rng, sampler=p.noise,
                      select=lambda scores, i, allowed, g: select(scores, es, g),
                      measure_scale=[1.0 / em] * T, sign=sign)
    # The ledger the buggy code writes is the correct split, 2T steps of ε/(2T); the noise does not follow it.
    split = epsilon / (2 * T)
    return mwem_release(out, trials, name, 1.0 / (em * n), mwem_ledger(T, split, split, budget=epsilon),
                        neighbours=p.neighbours, T=T, n=n)


def _exponential(scores, epsilon_select, rng):
    return exponential_mechanism(scores, epsilon=epsilon_select, sensitivity=1.0, rng=rng)


def mwem_no_round_split(x, workload, *, epsilon, T, n=None, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: each round uses ``ε/2`` for selection and ``Lap(2/ε)`` for measurement (no ``/T``); claims ``ε``."""
    return _broken(x, workload, epsilon, T, n, trials, rng, sampler, "broken mwem (no round split)", _exponential,
                   lambda e, T: e / 2, lambda e, T: e / 2)      # the bug: should be epsilon / (2 * T)


def mwem_argmax_select(x, workload, *, epsilon, T, n=None, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: picks ``argmax |q(A) − q(B)|`` exactly (no exponential mechanism); claims ``ε``."""
    return _broken(x, workload, epsilon, T, n, trials, rng, sampler, "broken mwem (argmax selection)",
                   lambda scores, e, g: np.argmax(scores, axis=1),          # the bug: no noise in the selection
                   lambda e, T: e / (2 * T), lambda e, T: e / (2 * T))


def mwem_wrong_sign(x, workload, *, epsilon, T, n=None, trials=None, rng=None, sampler=laplace_noise):
    """WRONG (accuracy only): ``A_i ∝ A_{i-1} exp(−q (m_i − q(A_{i-1}))/(2n))`` — the update's sign is flipped."""
    return _broken(x, workload, epsilon, T, n, trials, rng, sampler, "broken mwem (wrong sign)", _exponential,
                   lambda e, T: e / (2 * T), lambda e, T: e / (2 * T), sign=-1.0)     # the bug: sign = -1


def mwem_marginal_cell_sensitivity(x, workload, *, epsilon, T, n=None, select_share=0.5, neighbours="replace-one",
                                   replay="converge", trials=None, rng=None, sampler=laplace_noise):
    """WRONG: whole-marginal MWEM (last iterate, replay to convergence, never re-select) charged the add/remove
    sensitivity (``Δ = 1``, one cell) whatever the neighbours; under replace-one a marginal's L1 sensitivity is 2.
    Claims ``ε`` under ``neighbours``."""
    if not isinstance(neighbours, str) or neighbours not in ("add/remove", "replace-one"):
        raise ValueError(f"neighbours ({neighbours!r}) must be one of ('add/remove', 'replace-one')")
    if n is None and neighbours == "replace-one":
        n = int(check_histogram(x).sum())                   # replace-one: n read from the data, as the claim says
    rel = mwem_practical(x, workload, epsilon=epsilon, T=T, n=n, measure="marginal", output="last", replay=replay,
                         exclude_measured=True, select_share=select_share, round_weights=None,
                         neighbours="add/remove",               # the bug: the add/remove Δ, whatever `neighbours`
                         trials=trials, rng=rng, sampler=sampler)
    return dataclasses.replace(rel, neighbours=neighbours, mechanism="broken mwem (marginal charged one cell)")


def adaptive_marginals_one_way_unscaled(x, workload, *, epsilon, n=None, neighbours="add/remove", select_share=0.3,
                                        route="auto", trials=None, rng=None, sampler=laplace_noise):
    """WRONG: :func:`dpbook.mwem.adaptive_marginals` whose 1-way step forgets that the ``d`` 1-way tables
    together have L1 sensitivity ``dΔ``: it adds ``Lap(Δ/ε_1)`` (one table's scale) to every 1-way cell yet
    charges ``ε_1``; the step really costs ``d·ε_1`` (on the adaptive route; the audit asks for it).  The 1-way
    audit catches it."""
    return adaptive_release(x, workload, epsilon=epsilon, n=n, neighbours=neighbours, select_share=select_share,
                            trials=trials, rng=rng, sampler=sampler, route=route, opening=one_way_budget_unscaled,
                            name="broken adaptive marginals (1-way scale without d)")


def one_way_budget_unscaled(epsilon, d, sensitivity):
    """The broken opening: the right budgets, the 1-way scale of ONE table (``Δ/ε_1``, the bug: no factor ``d``)."""
    eps_round, eps_one, _ = adaptive_one_way_budget(epsilon, d, sensitivity)
    return eps_round, eps_one, sensitivity / eps_one          # the bug: should be sensitivity * d / eps_one


def _example_adaptive():
    from ..queries import k_way_marginals
    return dict(x=np.arange(16), workload=k_way_marginals(4, 2), epsilon=0.9, n=120, trials=2, rng=0)


example(adaptive_marginals_one_way_unscaled, _example_adaptive)


def adaptive_marginals_zcdp_one_way_unscaled(x, workload, *, epsilon, delta=1e-6, n=None, neighbours="add/remove",
                                             select_share=0.3, route="auto", trials=None, rng=None, sampler=None):
    """WRONG: :func:`dpbook.mwem.adaptive_marginals` at ``delta > 0`` whose 1-way step forgets that the ``d`` 1-way
    tables together have L2 sensitivity ``Δ₂ sqrt(d)``: it draws ``N(0, σ_1²)`` with ``σ_1 = Δ₂/sqrt(2ρ_1)`` (one
    table's) yet charges ``ρ_1``; the step really costs ``d ρ_1`` (on the adaptive route; the audit asks for it).  The
    zCDP 1-way audit catches it."""
    delta = check_delta(delta, positive=True)
    return adaptive_release(x, workload, epsilon=epsilon, n=n, neighbours=neighbours, select_share=select_share,
                            trials=trials, rng=rng, sampler=sampler, route=route, delta=delta,
                            zcdp_opening=zcdp_opening_unscaled,
                            name="broken adaptive marginals (zCDP 1-way σ without sqrt(d))")


def zcdp_opening_unscaled(rho, d, l2, select_share):
    """The broken zCDP opening: the right budgets, the 1-way σ of ONE table (the bug: ``Δ₂/sqrt(2ρ_1)``, which is
    the right σ divided by ``sqrt(d)``)."""
    rho_round, rho_one, _ = adaptive_zcdp_opening(rho, d, l2, select_share)
    return rho_round, rho_one, l2 / math.sqrt(2.0 * rho_one)      # the bug: should be l2 * sqrt(d / (2 rho_one))


example(adaptive_marginals_zcdp_one_way_unscaled, lambda: dict(**_example_adaptive(), delta=1e-6, route="adaptive"))


def _add_remove_sensitivity(x, workload, *, epsilon, delta, n, neighbours, select_share, route, trials, rng, sampler,
                            name):
    """The bug both full-table twins share: :func:`dpbook.mwem.adaptive_release` run with the add/remove
    sensitivities (``Δ = Δ₂ = 1``, one cell) and its release labelled with the caller's ``neighbours``."""
    neighbours = check_neighbours(neighbours)
    if n is None and neighbours == "replace-one":
        n = int(check_histogram(x).sum())                   # replace-one: n read from the data, as the claim says
    rel = adaptive_release(x, workload, epsilon=epsilon, n=n, select_share=select_share, trials=trials, rng=rng,
                           sampler=sampler, route=route, delta=delta,
                           neighbours="add/remove")         # the bug: the add/remove Δ, whatever `neighbours`
    return dataclasses.replace(rel, neighbours=neighbours, mechanism=name)


def adaptive_marginals_full_table_cell_sensitivity(x, workload, *, epsilon, n=None, neighbours="replace-one",
                                                   select_share=0.3, route="full table", trials=None, rng=None,
                                                   sampler=laplace_noise):
    """WRONG: :func:`dpbook.mwem.adaptive_marginals` (pure ε, by default on its full-table route) charged the
    add/remove sensitivity ``Δ = 1`` (one cell) whatever ``neighbours``: under replace-one one replaced row leaves
    one cell and enters another (``Δ = 2``), so the table ``x + Lap(1/ε)`` is ``2ε``-DP and is charged ``ε``.
    Claims ``ε`` under ``neighbours``.  The full-table audit catches it."""
    return _add_remove_sensitivity(x, workload, epsilon=epsilon, delta=0.0, n=n, neighbours=neighbours,
                                   select_share=select_share, route=route, trials=trials, rng=rng, sampler=sampler,
                                   name="broken adaptive marginals (full table charged one cell)")


example(adaptive_marginals_full_table_cell_sensitivity,
        lambda: dict(x=np.arange(16), workload=_example_adaptive()["workload"], epsilon=0.9, trials=2, rng=0))


def adaptive_marginals_full_table_zcdp_cell_sensitivity(x, workload, *, epsilon, delta=1e-6, n=None,
                                                        neighbours="replace-one", select_share=0.3,
                                                        route="full table", trials=None, rng=None,
                                                        sampler=gaussian_noise):
    """WRONG: :func:`dpbook.mwem.adaptive_marginals` at ``delta > 0`` (by default on its full-table route, drawing
    the Gaussian table: ``sampler`` is the caller's Gaussian one) with the add/remove L2 sensitivity ``Δ₂ = 1``
    whatever ``neighbours``: the table gets ``N(0, σ²)`` with ``σ = 1/sqrt(2ρ)``, while under replace-one
    ``Δ₂ = sqrt(2)`` (one row leaves a cell and enters another), so the table is ``2ρ``-zCDP and is charged ``ρ``
    (the claim ``(zcdp_epsilon(ρ, δ), δ)``).  The Gaussian full-table audit catches it."""
    delta = check_delta(delta, positive=True)
    return _add_remove_sensitivity(x, workload, epsilon=epsilon, delta=delta, n=n, neighbours=neighbours,
                                   select_share=select_share, route=route, trials=trials, rng=rng, sampler=sampler,
                                   name="broken adaptive marginals (Gaussian full table charged one cell)")


example(adaptive_marginals_full_table_zcdp_cell_sensitivity,
        lambda: dict(x=np.arange(16), workload=_example_adaptive()["workload"], epsilon=0.9, delta=1e-6, trials=2,
                     rng=0))
