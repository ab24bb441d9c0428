"""Audit cases: floating point (chapter 17)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import PAIR_Q, PAIR_SAME_N, X_SWAP, first_sample, leq0, mechanism_case, not_in_numpy_image, sampler_case

__all__: list[str] = []    # factories register themselves; nothing to import


@register("laplace_float_support")
def _case_laplace_float_support(epsilon=1.0):
    """Mironov's attack on the book's own mechanism (default numpy sampler), on a pair with the same n."""
    from ...laplace import laplace_mechanism
    return mechanism_case("Laplace mechanism, numpy sampler: Mironov's attack", laplace_mechanism, epsilon,
                           trials=100_000, kind="finding", true_epsilon=math.inf, x_prime=X_SWAP,
                           pair=PAIR_SAME_N, events={"y not in numpy's Laplace image": not_in_numpy_image(1 / epsilon)})


@register("textbook_noisy_count")
def _case_textbook(epsilon=1.0):
    from ...broken.floating_point import textbook_noisy_count
    s = lambda q: (lambda trials, rng: textbook_noisy_count(q, epsilon=epsilon, trials=trials, rng=rng))
    return AuditCase("q + numpy Laplace (textbook; Mironov 2012)", "dpbook.broken.floating_point.textbook_noisy_count",
                     epsilon, 0.0, s(0.0), s(1.0),
                     {"y <= 0": leq0, "y not in numpy's Laplace image": not_in_numpy_image(1 / epsilon)},
                     100_000, PAIR_Q, "control", math.inf)


@register("discrete_laplace")
def _case_discrete_laplace(epsilon=1.0):
    from ...noise import discrete_laplace
    return sampler_case("q + discrete_laplace", discrete_laplace, epsilon, trials=200_000, true_epsilon=epsilon)


@register("discrete_laplace_exact")
def _case_discrete_laplace_exact(epsilon=1.0):
    from ...noise import discrete_laplace_exact
    return sampler_case("q + discrete_laplace_exact (CKS20)", discrete_laplace_exact, epsilon, trials=30_000,
                         true_epsilon=epsilon)


@register("grid_laplace")
def _case_grid_laplace(epsilon=1.0):
    from ...noise import grid_laplace
    return sampler_case("q + grid_laplace", grid_laplace, epsilon, trials=200_000, true_epsilon=epsilon)


def _discrete_gaussian_event(epsilon, sigma):
    """S = {y <= k*}: the outputs where the privacy loss of 0+Z vs 1+Z, (1 - 2y)/(2σ²), exceeds ε."""
    k_star = math.ceil((1 - 2 * sigma ** 2 * epsilon) / 2) - 1
    return k_star, (lambda y: y <= k_star)


@register("discrete_gaussian")
def _case_discrete_gaussian(epsilon=1.0, sigma=2.0):
    """(ε, δ) with the exact δ of CKS20 Thm 7; the event where the loss exceeds ε makes the audit tight."""
    from ...noise import discrete_gaussian, discrete_gaussian_delta
    delta = discrete_gaussian_delta(epsilon, sigma)
    k_star, event = _discrete_gaussian_event(epsilon, sigma)
    return sampler_case(f"q + discrete_gaussian (σ={sigma:g}, exact δ={delta:.3g})", discrete_gaussian, epsilon,
                         trials=1_000_000, delta=delta, scale=sigma, true_epsilon=epsilon,
                         events={f"y <= {k_star}": event, "y not in numpy's Laplace image": not_in_numpy_image(sigma)})


_GRID_PAIR = "q=0 vs q'=1-2^-42 (real values, Δ=1; rounded to the grid they are 0 and 1)"


def _grid_events(epsilon):
    from ...noise import grid_granularity
    lam = grid_granularity(1 / epsilon)
    return {"y <= 0": leq0, "y is not a multiple of Λ": lambda y: np.mod(y, lam) != 0,
            "y not in numpy's Laplace image": not_in_numpy_image(1 / epsilon)}


@register("grid_laplace_release")
def _case_grid_release(epsilon=1.0):
    """Rounded to the grid, 1-2^-42 becomes 1: the pair is tight at S = {y <= 0} (loss ε·Δ/(Δ+Λ))."""
    from ...laplace import grid_laplace_release
    s = lambda q: first_sample(grid_laplace_release, np.array([q]), sensitivity=1.0, epsilon=epsilon)
    return AuditCase("grid_laplace_release (round, then grid noise)", "dpbook.laplace.grid_laplace_release",
                     epsilon, 0.0, s(0.0), s(1.0 - 2.0 ** -42), _grid_events(epsilon), 200_000, _GRID_PAIR,
                     "mechanism", epsilon)


@register("unrounded_grid_release")
def _case_unrounded(epsilon=1.0):
    from ...broken.floating_point import unrounded_grid_release
    s = lambda q: first_sample(unrounded_grid_release, np.array([q]), sensitivity=1.0, epsilon=epsilon)
    return AuditCase("grid noise without rounding the input", "dpbook.broken.floating_point.unrounded_grid_release",
                     epsilon, 0.0, s(0.0), s(1.0 - 2.0 ** -42), _grid_events(epsilon), 20_000, _GRID_PAIR,
                     "control", math.inf)
