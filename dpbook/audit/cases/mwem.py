"""Audit cases: MWEM (chapter 09): transcript audits."""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register
from .gaussian import all_leq0

__all__: list[str] = []    # factories register themselves; nothing to import


#
# MWEM releases a function of its transcript (the selected queries and the noisy measurements), so auditing
# the transcript audits a stronger claim.  The record count n is public: the same n is passed for both
# databases (as mwem's docstring prescribes).

def _mwem_workloads():
    from ...queries import MarginalWorkload
    one = MarginalWorkload(2, [((0,), (1,))])                   # counts the rows with attribute 0 = 1
    two = MarginalWorkload(2, [((0,), (0,)), ((0,), (1,))])     # attribute 0 = 0, attribute 0 = 1
    return one, two


_T_MWEM = 4
_PAIR_MWEM_MEASURE = "x=(1,0,0,0) vs x'=(1,0,1,0) over {0,1}^2, one query (count 0 vs 1), public n=100, T=4"
_PAIR_MWEM_SELECT = "x=(1,0,1,0) vs x'=(1,0,2,0), queries [a0=0], [a0=1], public n=2, T=1: the worst query flips"


def _mwem_measure_case(name, fn, epsilon, trials, kind, true_epsilon):
    one, _ = _mwem_workloads()
    s = lambda x: (lambda t, rng: fn(x, one, epsilon=epsilon, T=_T_MWEM, n=100, trials=t, rng=rng)
                   .trace["measurements"])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0, 0, 0])),
                     s(np.array([1, 0, 1, 0])), {"all 4 measurements <= 0": all_leq0}, trials,
                     _PAIR_MWEM_MEASURE, kind, true_epsilon)


def _mwem_select_case(name, fn, epsilon, trials, kind):
    _, two = _mwem_workloads()
    s = lambda x: (lambda t, rng: fn(x, two, epsilon=epsilon, T=1, n=2, trials=t, rng=rng).trace["selected"][:, 0])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0, 1, 0])),
                     s(np.array([1, 0, 2, 0])), {"selects query 1": lambda r: r == 1}, trials, _PAIR_MWEM_SELECT,
                     kind, None)


@register("mwem_measure")
def _case_mwem_measure(epsilon=1.0):
    """One query, so selection is free: the 4 measurements Lap(2T/ε) of counts 0 vs 1 cost exactly ε/2."""
    from ...mwem import mwem
    return _mwem_measure_case("MWEM transcript: measurements", mwem, epsilon, 1_000_000, "mechanism", epsilon / 2)


@register("mwem_select")
def _case_mwem_select(epsilon=1.0):
    from ...mwem import mwem
    return _mwem_select_case("MWEM transcript: selection", mwem, epsilon, 200_000, "mechanism")


@register("mwem_no_round_split")
def _case_mwem_no_split(epsilon=1.0):
    """ε/2 per round instead of ε/(2T): the 4 measurements cost 4·ε/2 = 2ε."""
    from ...broken.mwem import mwem_no_round_split
    return _mwem_measure_case("MWEM without the 1/T split", mwem_no_round_split, epsilon, 200_000, "control",
                              2 * epsilon)


@register("mwem_argmax_select")
def _case_mwem_argmax(epsilon=1.0):
    from ...broken.mwem import mwem_argmax_select
    return _mwem_select_case("MWEM selecting by exact argmax", mwem_argmax_select, epsilon, 20_000, "control")
