"""Audit cases: workload inputs (chapter 17) — what a mechanism must read from the workload it is handed.

Three ways a workload can move a count further than the mechanism charges for, each a broken twin of
:mod:`dpbook.broken.workloads` (a control, caught) next to the fixed call on the same pair (a mechanism, within
its claim):

* a scipy.sparse matrix that stores one cell several times (its entry is the sum): the twin validates the stored
  values; the fix canonicalises the matrix at construction, refuses the summed entry 5, and accepts duplicates that
  sum into ``[0, 1]`` (audited here);
* a marginal cell listed several times, whole marginals measured under replace-one neighbours: the twin charges
  ``Δ = 2``, the fix ``k + k'``;
* cut queries with overlapping ``S`` and ``T`` (coefficient 2, erratum IDC-E5): the twins assume entries in
  ``[0, 1]``, the fix pays the range the workload reports.
"""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import


_X, _X_PRIME = np.array([1, 0]), np.array([1, 1])             # add/remove: one row added at element 1, public n = 1


def _stored(m: int, k: int, value: float):
    """An ``m × 2`` CSR matrix storing ``value`` ``k`` times at column 1 of every row (entry ``k · value``)."""
    import scipy.sparse as sp
    return sp.csr_matrix((np.full(m * k, value), np.ones(m * k, dtype=np.int64), np.arange(m + 1) * k), shape=(m, 2))


# --------------------------------------------------------------------------- a cell stored several times

_PAIR_STORED = ("x=(1,0) vs x'=(1,1), public n=1; Q stores 1.0 five times at cell (0, 1) (entry 5): counts 0 vs 5")
_PAIR_SUMMED = ("x=(1,0) vs x'=(1,1), public n=1; Q stores 0.2 five times at cell (0, 1), summed at construction "
                "to the entry 1: counts 0 vs 1")


def _composed_case(name, fn, Q, epsilon, kind, true_epsilon, pair, trials):
    s = lambda x: (lambda t, rng: np.asarray(fn(x, Q, epsilon=epsilon, n=1, trials=t, rng=rng).answers)[:, 0])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_X), s(_X_PRIME),
                     {"y <= 0": lambda y: y <= 0}, trials, pair, kind, true_epsilon)


@register("composed_laplace_stored_entries")
def _case_composed_stored(epsilon=1.0):
    """Lap(1/ε) on counts 0 vs 5: P[y <= 0] = 1/2 vs e^{-5ε}/2, a loss of 5ε at a claimed ε."""
    from ...broken.workloads import composed_laplace_stored_entries
    return _composed_case("per-query Laplace, a cell stored 5 times, stored values validated",
                          composed_laplace_stored_entries, _stored(1, 5, 1.0), epsilon, "control", 5 * epsilon,
                          _PAIR_STORED, 200_000)


@register("composed_laplace_summed_entries")
def _case_composed_summed(epsilon=1.0):
    """The fix: duplicates summed at construction (0.2 × 5 = entry 1, accepted; 1.0 × 5 is refused); counts 0 vs 1
    under Lap(1/ε): the event's ratio is exactly e^ε."""
    from ...gaussian import composed_laplace_mechanism
    from ...queries import MatrixWorkload
    return _composed_case("per-query Laplace, duplicates summed at construction", composed_laplace_mechanism,
                          MatrixWorkload(_stored(1, 5, 0.2)), epsilon, "mechanism", epsilon, _PAIR_SUMMED, 400_000)


_AT_QUERIES = 10
_PAIR_AT = (f"x=(1,0) vs x'=(1,1), public n=1, T=1; {_AT_QUERIES} queries, each storing {{v}} five times at "
            "element 1: answers 0 vs {a}")


def _at_case(name, fn, Q, epsilon, kind, answer):
    from ...sparse_vector import TOP
    s = lambda x: (lambda t, rng: fn(x, Q, threshold=1.0, epsilon=epsilon, n=1, trials=t, rng=rng))
    events = {"never halts": lambda r: ~np.any(r.answers == TOP, axis=1), "halts at 1": lambda r: r.answers[:, 0] == TOP}
    pair = _PAIR_AT.format(v="1.0" if answer == 5 else "0.2", a=answer)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_X), s(_X_PRIME), events, 200_000, pair,
                     kind, None)


@register("above_threshold_stored_entries")
def _case_at_stored(epsilon=1.0):
    """Every answer moves by 5 where 1/n is charged: 'never halts' costs the threshold noise 5ε/2 (→ as queries
    are added), far above the claimed ε."""
    from ...broken.workloads import above_threshold_stored_entries
    return _at_case("AboveThreshold, cells stored 5 times, stored values validated", above_threshold_stored_entries,
                    _stored(_AT_QUERIES, 5, 1.0), epsilon, "control", 5)


@register("above_threshold_summed_entries")
def _case_at_summed(epsilon=1.0):
    """The fix on the matrix it accepts: duplicates summed to the entry 1, answers 0 vs 1, within ε."""
    from ...queries import MatrixWorkload
    from ...sparse_vector import above_threshold
    return _at_case("AboveThreshold, duplicates summed at construction", above_threshold,
                    MatrixWorkload(_stored(_AT_QUERIES, 5, 0.2)), epsilon, "mechanism", 1)


# --------------------------------------------------------------------------- a marginal cell listed three times

_PAIR_REPEATED = ("x=(1,0) vs x'=(0,1) over {0,1}^1 (replace-one, n=1); the 1-way marginal with cell 'bit 0 = 1' "
                  "listed 3 times (one unit of 4 cells), T=1, select_share=0.1: counts (1,0,0,0) vs (0,1,1,1)")
_REPEATED_CELLS = [((0,), (0,))] + [((0,), (1,))] * 3


def _first_measurements(fn, W, epsilon, columns, **kwargs):
    """``x -> (trials, rng) -> draws``: the first round's noisy measurements (``columns`` of them) of the MWEM variant
    ``fn`` on ``W`` with one round, one measurement and no replay (T=1, select_share=0.1, public n=1)."""
    return lambda x: (lambda t, rng: fn(x, W, epsilon=epsilon, T=1, n=1, select_share=0.1, replay=0, trials=t,
                                        rng=rng, **kwargs).trace["measurements"][:, 0, columns])


def _repeated_case(name, fn, epsilon, kind, true_epsilon, trials, **kwargs):
    from ...queries import MarginalWorkload
    s = _first_measurements(fn, MarginalWorkload(1, _REPEATED_CELLS), epsilon, slice(None), **kwargs)
    event = {"m0 >= 1 and m1, m2, m3 <= 0": lambda m: (m[:, 0] >= 1) & np.all(m[:, 1:] <= 0, axis=1)}
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0])), s(np.array([0, 1])),
                     event, trials, _PAIR_REPEATED, kind, true_epsilon)


@register("mwem_practical_distinct_cells")
def _case_mwem_repeated_broken(epsilon=1.0):
    """Four cells measured with Lap(2/ε_m) while they move by 1+3: the event's ratio is e^{4·ε_m/2} = e^{1.8ε}."""
    from ...broken.workloads import mwem_practical_distinct_cells
    return _repeated_case("MWEM (practical), replace-one, repeated cell charged Δ=2", mwem_practical_distinct_cells,
                          epsilon, "control", 1.8 * epsilon, 100_000)


@register("mwem_practical_repeated_cells")
def _case_mwem_repeated_fixed(epsilon=1.0):
    """The fix: Δ = k + k' = 3 + 1 = 4, Lap(4/ε_m): the event's ratio is exactly e^{ε_m} = e^{0.9ε}."""
    from ...mwem import mwem_practical
    return _repeated_case("MWEM (practical), replace-one, repeated cell charged Δ=4", mwem_practical, epsilon,
                          "mechanism", 0.9 * epsilon, 400_000, measure="marginal", neighbours="replace-one")


# --------------------------------------------------------------------------- overlapping cut queries

_CUT_X, _CUT_X_PRIME = np.array([0, 0, 1]), np.array([1, 0, 1])      # pairs (0,1), (0,2), (1,2): edge (0,1) added
_PAIR_CUT = ("graphs on 3 vertices, edge {1,2} vs edges {1,2} and {0,1} (add/remove, public n=1); one cut query "
             "S = T = {0, 1}: coefficient 2 on the pair {0, 1} (erratum IDC-E5), counts 0 vs 2")


def _overlap():
    from ...graphs import cut_workload
    return cut_workload(3, [([0, 1], [0, 1])])


def _cut_composed_case(name, fn, epsilon, kind, true_epsilon, trials):
    W = _overlap()
    s = lambda x: (lambda t, rng: np.asarray(fn(x, W, epsilon=epsilon, n=1, trials=t, rng=rng).answers)[:, 0])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_CUT_X), s(_CUT_X_PRIME),
                     {"y <= 0": lambda y: y <= 0}, trials, _PAIR_CUT, kind, true_epsilon)


@register("composed_laplace_overlapping_cut_unit_range")
def _case_cut_composed_broken(epsilon=1.0):
    """Lap(1/ε) on counts 0 vs 2: P[y <= 0] = 1/2 vs e^{-2ε}/2, a loss of 2ε."""
    from ...broken.workloads import composed_laplace_unit_range
    return _cut_composed_case("per-query Laplace, overlapping cut, range assumed [0, 1]", composed_laplace_unit_range,
                              epsilon, "control", 2 * epsilon, 200_000)


@register("composed_laplace_overlapping_cut")
def _case_cut_composed_fixed(epsilon=1.0):
    """The fix pays the range (0, 2) the workload reports: Lap(2/ε) on counts 0 vs 2, ratio exactly e^ε."""
    from ...gaussian import composed_laplace_mechanism
    return _cut_composed_case("per-query Laplace, overlapping cut, sensitivity 2", composed_laplace_mechanism,
                              epsilon, "mechanism", epsilon, 400_000)


def _cut_mwem_case(name, fn, epsilon, kind, true_epsilon, trials, **kwargs):
    s = _first_measurements(fn, _overlap(), epsilon, 0, **kwargs)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_CUT_X), s(_CUT_X_PRIME),
                     {"measured <= 0": lambda y: y <= 0}, trials, _PAIR_CUT + ", T=1, select_share=0.1", kind,
                     true_epsilon)


@register("mwem_practical_overlapping_cut_unit_range")
def _case_cut_mwem_broken(epsilon=1.0):
    """Lap(1/ε_m) on a count that moves by 2: ratio e^{2ε_m} = e^{1.8ε}."""
    from ...broken.workloads import mwem_practical_unit_range
    return _cut_mwem_case("MWEM (practical, cells), overlapping cut, range assumed [0, 1]", mwem_practical_unit_range,
                          epsilon, "control", 1.8 * epsilon, 100_000)


@register("mwem_practical_overlapping_cut")
def _case_cut_mwem_fixed(epsilon=1.0):
    """The fix: Δ = 2 from the workload's range, Lap(2/ε_m): ratio exactly e^{ε_m} = e^{0.9ε}."""
    from ...mwem import mwem_practical
    return _cut_mwem_case("MWEM (practical, cells), overlapping cut, Δ=2", mwem_practical, epsilon, "mechanism",
                          0.9 * epsilon, 400_000, measure="cell")
