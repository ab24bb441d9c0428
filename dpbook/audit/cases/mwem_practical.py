"""Audit cases: MWEM, practical variants (chapter 09)."""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import


#
# dpbook.mwem.mwem_practical: whole marginals selected by their L1 error and measured at the unit's exact L1
# sensitivity, last iterate, never re-selecting.  The replay and the output choice are post-processing of the
# transcript, which is what is audited; with T = 1 the transcript does not depend on replay at all, so the
# cases pass replay=0 (replay runs trial by trial and would only slow 400,000 trials down).

_PAIR_PRACTICAL_MEASURE = ("x=(1,0) vs x'=(0,1) over {0,1}^1 (replace-one), the 1-way marginal (2 cells, one unit), "
                           "T=1, select_share=0.1: ε_measure = 0.9ε")
_PAIR_PRACTICAL_SELECT = ("x=(1,0,1,0) vs x'=(1,0,1,1) over {0,1}^2 (add/remove, public n=2), units = the two 1-way "
                          "marginals, T=1: L1 scores (0,2) vs (1,1)")


def _practical_measure_case(name, fn, epsilon, trials, kind, true_epsilon):
    from ...queries import k_way_marginals
    W = k_way_marginals(1, 1)
    s = lambda x: (lambda t, rng: fn(x, W, epsilon=epsilon, T=1, n=1, select_share=0.1, neighbours="replace-one",
                                     replay=0, trials=t, rng=rng).trace["measurements"][:, 0, :])
    event = {"m0 >= 1 and m1 <= 0": lambda m: (m[:, 0] >= 1) & (m[:, 1] <= 0)}
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0])), s(np.array([0, 1])),
                     event, trials, _PAIR_PRACTICAL_MEASURE, kind, true_epsilon)


@register("mwem_practical_measure")
def _case_mwem_practical_measure(epsilon=1.0):
    """Both cells measured with Lap(2/ε_m): the event's ratio is exactly e^{2·1/b} = e^{ε_m} = e^{0.9ε}."""
    from ...mwem import mwem_practical
    return _practical_measure_case("MWEM (practical): whole-marginal measurement", mwem_practical, epsilon, 400_000,
                                   "mechanism", 0.9 * epsilon)


@register("mwem_practical_select")
def _case_mwem_practical_select(epsilon=1.0):
    from ...mwem import mwem_practical
    from ...queries import k_way_marginals
    W = k_way_marginals(2, 1)
    s = lambda x: (lambda t, rng: mwem_practical(x, W, epsilon=epsilon, T=1, n=2, replay=0, trials=t, rng=rng)
                   .trace["selected"][:, 0])
    return AuditCase("MWEM (practical): marginal selection", "dpbook.mwem.mwem_practical", epsilon, 0.0,
                     s(np.array([1, 0, 1, 0])), s(np.array([1, 0, 1, 1])), {"selects attribute 0": lambda r: r == 0},
                     200_000, _PAIR_PRACTICAL_SELECT, "mechanism", None)


@register("mwem_marginal_cell_sensitivity")
def _case_mwem_marginal_cell_sensitivity(epsilon=1.0):
    """Lap(1/ε_m) on a replace-one marginal: the event's ratio is e^{2ε_m} = e^{1.8ε} > e^ε."""
    from ...broken.mwem import mwem_marginal_cell_sensitivity
    return _practical_measure_case("MWEM (practical) charging one cell's sensitivity", mwem_marginal_cell_sensitivity,
                                   epsilon, 100_000, "control", 1.8 * epsilon)
