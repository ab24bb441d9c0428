"""Audit cases: adaptive marginals (dpbook.mwem.adaptive_marginals, chapter 09): the 1-way step.

The mechanism opens by measuring every 1-way marginal at once; the ``d`` tables together have L1 sensitivity
``dΔ``, and the step is charged ``ε_1`` (the first entry of the ledger).  The case draws that step exactly as the
mechanism does (:func:`dpbook.mwem.adaptive_one_way_budget` gives its scale, :func:`dpbook.mwem.measure_one_way_marginals`
draws it) and audits it against the ledger's ``ε_1``, read from a run of the mechanism at the same setting.  (A
module of its own, registered after the pinned ones, so chapter 17's seeded draws of the earlier cases stay the same.)
"""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import

_PAIR_ONE_WAY = ("x=(1,0,1,0) vs x'=(1,0,1,1) over {0,1}^2 (add/remove, public n=3): the added row (1,1) adds 1 to "
                 "the value-1 cell of both 1-way marginals; total ε = 2d·ε_1 = 4ε_1, the case's ε is ε_1")


_LOOKUP_N = 1_000_000


def _one_way_case(name, fn, opening, epsilon, trials, kind, true_share):
    from ...mwem import measure_one_way_marginals
    from ...noise import laplace_noise
    from ...queries import k_way_marginals
    W = k_way_marginals(2, 2)
    x = np.array([1, 0, 1, 0])
    total = 4.0 * epsilon                                                        # T0 = 2d = 4 planned rounds
    # the 1-way step's charge ε_1, read from the ledger of a run whose public n makes the opening informative
    # (the mechanism measures the 1-way marginals only when 2·(scale) < n; the step's scale and charge do not
    # depend on n)
    run = fn(x, W, epsilon=total, n=_LOOKUP_N, route="adaptive", rng=0)
    claim = run.ledger[0].epsilon
    assert run.trace["epsilon_one_way"] == claim > 0
    _, _, scale = opening(total, 2, 1.0)

    def sampler(x):
        counts = np.array([x[0] + x[1], x[2] + x[3], x[0] + x[2], x[1] + x[3]], dtype=np.float64)  # a0=0,1; a1=0,1
        return lambda t, rng: measure_one_way_marginals(np.tile(counts, (t, 1)), scale, laplace_noise, rng)

    event = {"a0=1 cell >= 2 and a1=1 cell >= 1": lambda m: (m[:, 1] >= 2) & (m[:, 3] >= 1)}
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", claim, 0.0, sampler(x), sampler(np.array([1, 0, 1, 1])),
                     event, trials, _PAIR_ONE_WAY, kind, true_share * claim)


@register("adaptive_marginals_one_way")
def _case_adaptive_one_way(epsilon=1.0):
    """Lap(2/ε_1) on the two shifted cells: the event's ratio is exactly e^{2/b} = e^{ε_1}."""
    from ...mwem import adaptive_marginals, adaptive_one_way_budget
    return _one_way_case("Adaptive marginals: the 1-way step", adaptive_marginals, adaptive_one_way_budget, epsilon,
                         400_000,
                         "mechanism", 1.0)


@register("adaptive_marginals_one_way_unscaled")
def _case_adaptive_one_way_unscaled(epsilon=1.0):
    """Lap(1/ε_1) (one table's scale) on both cells: the ratio is e^{2ε_1} > e^{ε_1}."""
    from ...broken.mwem import adaptive_marginals_one_way_unscaled, one_way_budget_unscaled
    return _one_way_case("Adaptive marginals forgetting the 1-way factor d", adaptive_marginals_one_way_unscaled,
                         one_way_budget_unscaled, epsilon, 100_000, "control", 2.0)
