"""Audit cases: Laplace (chapter 01)."""
from __future__ import annotations

import math

from ..catalogue import register
from ..pairs import mechanism_case, not_integer

__all__: list[str] = []    # factories register themselves; nothing to import


@register("laplace")
def _case_laplace(epsilon=1.0):
    """DR-Thm3.6: counts 0 vs 1, S = {y <= 0}: P = 1/2 vs e^{-ε}/2, ratio exactly e^ε (whatever n)."""
    from ...laplace import laplace_mechanism
    return mechanism_case("Laplace mechanism", laplace_mechanism, epsilon, trials=1_000_000, true_epsilon=epsilon)


@register("laplace_discrete")
def _case_laplace_discrete(epsilon=1.0):
    """The same with integer noise: P[Z <= -1] = e^{-ε} P[Z <= 0] for the discrete Laplace, still exact."""
    from ...laplace import laplace_mechanism
    from ...noise import discrete_laplace
    return mechanism_case("Laplace mechanism, sampler=discrete_laplace", laplace_mechanism, epsilon,
                           trials=1_000_000, true_epsilon=epsilon, sampler=discrete_laplace)


@register("laplace_grid")
def _case_laplace_grid(epsilon=1.0):
    from ...laplace import laplace_mechanism
    from ...noise import grid_laplace
    return mechanism_case("Laplace mechanism, sampler=grid_laplace", laplace_mechanism, epsilon,
                           trials=1_000_000, true_epsilon=epsilon, sampler=grid_laplace)


@register("laplace_halved_sensitivity")
def _case_laplace_half(epsilon=1.0):
    from ...broken.laplace import laplace_halved_sensitivity
    return mechanism_case("Laplace, halved sensitivity", laplace_halved_sensitivity, epsilon, trials=200_000,
                           kind="control", true_epsilon=2 * epsilon)


@register("laplace_scale_epsilon")
def _case_laplace_scale_eps(epsilon=0.5):
    from ...broken.laplace import laplace_scale_epsilon
    return mechanism_case("Laplace, scale ε instead of Δ/ε", laplace_scale_epsilon, epsilon, trials=200_000,
                           kind="control", true_epsilon=1 / epsilon)


@register("laplace_no_noise")
def _case_laplace_no_noise(epsilon=1.0):
    from ...broken.laplace import laplace_no_noise
    return mechanism_case("Laplace, no noise", laplace_no_noise, epsilon, trials=20_000, kind="control",
                           true_epsilon=math.inf)


@register("laplace_private_n_tail")
def _case_private_n_tail(epsilon=1.0):
    """Releasing (count + noise)/n with n = 1 vs 2: P[y >= t] = e^{-εt}/2 vs e^{-ε(2t-1)}/2, ratio e^{ε(t-1)}."""
    from ...laplace import laplace_mechanism
    events = {f"y >= {t}/ε": (lambda y, t=t: y >= t / epsilon) for t in (4, 6, 8)}
    return mechanism_case("Laplace mechanism, n treated as private: tail event", laplace_mechanism, epsilon,
                           trials=1_000_000, kind="finding", true_epsilon=math.inf, events=events, n="private")


@register("laplace_private_n_discrete")
def _case_private_n_discrete(epsilon=1.0):
    """With integer noise, k/1 vs (1+k)/2: half of the outputs under x' are not integers."""
    from ...laplace import laplace_mechanism
    from ...noise import discrete_laplace
    return mechanism_case("Laplace + discrete_laplace, n treated as private", laplace_mechanism, epsilon,
                           trials=20_000, kind="finding", true_epsilon=math.inf, sampler=discrete_laplace,
                           events={"y is not an integer": not_integer}, n="private")
