"""Audit cases: noisy histogram (chapter 03)."""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import PAIR_COUNT, X, X_PRIME, leq0, mechanism_case

__all__: list[str] = []    # factories register themselves; nothing to import


_PAIR_REPLACE = "replace-one: x=(1,0) vs x'=(0,1), two cells move"


def _cells_event(y):
    """{ĥ_0 >= 1 and ĥ_1 <= 0}: under replace-one both cells move towards x, the tight event for L1 = 2."""
    return (y[:, 0] >= 1) & (y[:, 1] <= 0)


@register("noisy_histogram")
def _case_noisy_histogram(epsilon=1.0):
    """LEC3-3.5: add/remove, cell 1 is 0 vs 1, S = {ĥ_1 <= 0}: ratio e^ε."""
    from ...histogram import noisy_histogram
    s = lambda x: (lambda t, rng: noisy_histogram(x, epsilon=epsilon, n=1, trials=t, rng=rng).counts[:, 1])
    return AuditCase("noisy histogram (add/remove)", "dpbook.histogram.noisy_histogram", epsilon, 0.0,
                     s(X), s(X_PRIME), {"ĥ_1 <= 0": leq0}, 1_000_000, PAIR_COUNT, "mechanism", epsilon)


@register("noisy_histogram_replace_one")
def _case_noisy_histogram_replace(epsilon=1.0):
    """Replace-one at scale 2/ε: P = 1/4 vs (e^{-ε/2}/2)², ratio e^ε."""
    from ...histogram import noisy_histogram
    s = lambda x: (lambda t, rng: noisy_histogram(x, epsilon=epsilon, neighbours="replace-one", trials=t,
                                                  rng=rng).counts)
    return AuditCase("noisy histogram (replace-one)", "dpbook.histogram.noisy_histogram", epsilon, 0.0,
                     s(np.array([1, 0])), s(np.array([0, 1])), {"ĥ_0 >= 1 and ĥ_1 <= 0": _cells_event},
                     1_000_000, _PAIR_REPLACE, "mechanism", epsilon)


@register("histogram_mechanism")
def _case_histogram_mechanism(epsilon=1.0):
    from ...histogram import histogram_mechanism
    return mechanism_case("histogram mechanism (workload)", histogram_mechanism, epsilon, trials=1_000_000,
                           true_epsilon=epsilon)


@register("histogram_replace_one_unit_scale")
def _case_histogram_broken(epsilon=1.0):
    from ...broken.histogram import noisy_histogram_replace_one_unit_scale
    s = lambda x: (lambda t, rng: noisy_histogram_replace_one_unit_scale(x, epsilon=epsilon, trials=t, rng=rng).counts)
    return AuditCase("replace-one histogram at the add/remove scale",
                     "dpbook.broken.histogram.noisy_histogram_replace_one_unit_scale", epsilon, 0.0,
                     s(np.array([1, 0])), s(np.array([0, 1])), {"ĥ_0 >= 1 and ĥ_1 <= 0": _cells_event},
                     200_000, _PAIR_REPLACE, "control", 2 * epsilon)
