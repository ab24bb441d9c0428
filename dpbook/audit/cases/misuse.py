"""Audit cases: API misuse lessons (chapter 17)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import ONE_COUNT, leq0

__all__: list[str] = []    # factories register themselves; nothing to import


# Two calls an API must refuse or account for: a workload that repeats a query, and a lattice sampler
# used in normalised units.  Each broken twin is a control; the fix is audited as a mechanism on the same pair.

_DUP_X, _DUP_X_PRIME = np.array([1, 0]), np.array([1, 1])     # d = 1: one row with bit 0 = 0; then add one with 1
_PAIR_DUP = ("x=(1,0) vs x'=(1,1), the 1-way marginal of attribute 0 asked twice: the cell 'bit 0 = 1' counts 0 "
             "vs 1 in both copies")


def _duplicate_sets_case(name, fn, epsilon, kind, true_epsilon, **kwargs):
    from ...queries import k_way_marginals
    W = k_way_marginals(1, 1, attribute_sets=[(0,), (0,)])
    copies = [i for i, (S, v) in enumerate(W.cells) if v == (1,)]            # the two copies of the moving cell

    def s(x):
        return lambda t, rng: fn(x, W, epsilon=epsilon, n=1, trials=t, rng=rng, **kwargs).answers[:, copies]
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_DUP_X), s(_DUP_X_PRIME),
                     {"both copies <= 0": lambda y: np.all(y <= 0, axis=1)}, 400_000, _PAIR_DUP, kind, true_epsilon)


@register("duplicate_sets_deduplicated_sensitivity")
def _case_duplicate_sets_broken(epsilon=1.0):
    """Both copies <= 0: P = 1/4 vs (e^{-ε}/2)^2 — ratio e^{2ε} at a claimed ε."""
    from ...broken.laplace import laplace_deduplicated_sensitivity
    return _duplicate_sets_case("Laplace, repeated marginal, Δ of the distinct sets (1)",
                                laplace_deduplicated_sensitivity, epsilon, "control", 2 * epsilon)


@register("duplicate_sets_exact_sensitivity")
def _case_duplicate_sets_exact(epsilon=1.0):
    """The fix: the exact Δ1 = 2 (every query counted): P = 1/4 vs (e^{-ε/2}/2)^2 — ratio exactly e^ε."""
    from ...laplace import laplace_mechanism
    return _duplicate_sets_case("Laplace, repeated marginal, exact Δ = 2", laplace_mechanism, epsilon, "mechanism",
                                epsilon, sensitivity=2.0)


_UNITS_X, _UNITS_X_PRIME, _UNITS_N = np.array([99, 0]), np.array([99, 1]), 100
_PAIR_UNITS = "x=(99,0) vs x'=(99,1), public n=100, one counting query: answers 0 vs 0.01"


@register("normalised_discrete_laplace")
def _case_normalised_discrete_laplace(epsilon=1.0):
    """discrete_laplace(0.01) is 0 with probability 1 - 2e^{-100}: answers 0 vs 0.01 exactly, y <= 0 separates."""
    from ...broken.laplace import normalised_discrete_laplace
    s = lambda x: (lambda t, rng: normalised_discrete_laplace(x, ONE_COUNT, epsilon=epsilon, n=_UNITS_N, trials=t,
                                                              rng=rng).answers[:, 0])
    return AuditCase("normalised answers + discrete_laplace(Δ/(εn)) (wrong units)",
                     "dpbook.broken.laplace.normalised_discrete_laplace", epsilon, 0.0, s(_UNITS_X),
                     s(_UNITS_X_PRIME), {"y <= 0": leq0}, 100_000, _PAIR_UNITS, "control", math.inf)


@register("discrete_laplace_on_counts")
def _case_discrete_laplace_on_counts(epsilon=1.0):
    """The fix: integer noise on the counts, then divide by the public n: P[Z <= 0] vs P[Z <= -1], ratio e^ε."""
    from ...laplace import laplace_mechanism
    from ...noise import discrete_laplace
    s = lambda x: (lambda t, rng: laplace_mechanism(x, ONE_COUNT, epsilon=epsilon, n=_UNITS_N, trials=t, rng=rng,
                                                    sampler=discrete_laplace).answers[:, 0])
    return AuditCase("counts + discrete_laplace(Δ/ε), then / n", "dpbook.laplace.laplace_mechanism", epsilon, 0.0,
                     s(_UNITS_X), s(_UNITS_X_PRIME), {"y <= 0": leq0}, 400_000, _PAIR_UNITS, "mechanism", epsilon)
