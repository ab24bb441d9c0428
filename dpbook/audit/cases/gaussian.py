"""Audit cases: Gaussian mechanism and composition (chapters 04 and 05)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import ONE_COUNT, PAIR_SAME_N, X, X_PRIME, X_SWAP, first_sample

__all__: list[str] = []    # factories register themselves; nothing to import


def _gaussian_events(sigma, epsilon, shifts=(0.0,)):
    """S = {y <= c* + s}: c* = Δ/2 - εσ²/Δ is where the loss of N(0,σ²) vs N(Δ,σ²) crosses ε (Δ = 1)."""
    c_star = 0.5 - epsilon * sigma ** 2
    return {f"y <= {c_star + s:.3g}": (lambda y, c=c_star + s: y <= c) for s in shifts}


def exact_gaussian_epsilon(sigma, delta):
    """The exact ε of N(0,σ²) vs N(1,σ²) at δ: the smallest ε >= 0 with δ(ε) <= δ on the Balle–Wang curve
    (``sigma`` in [1e-6, 1e12], ``delta`` in (0, 1): the audit cases' range).

    δ(ε) falls from δ(0) (the total variation distance of the two normals) towards 0.  When δ(0) <= δ already,
    the pair is (0, δ)-indistinguishable and the answer is 0; otherwise bisection on ε keeps δ(lo) > δ >= δ(hi)
    and returns ``hi`` (never below the root).  The bisection stops at the smallest ε the curve accepts
    (``EPSILON_RANGE[0]``): below it the root is within that of ``hi``.
    """
    from ...theory.gaussian import gaussian_delta
    from ...validation import EPSILON_RANGE, check_delta, check_real
    sigma = check_real("sigma", sigma, low=1e-6, high=1e12)
    delta = check_delta(delta, positive=True)
    if gaussian_delta(sigma, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while gaussian_delta(sigma, hi) > delta:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if mid < EPSILON_RANGE[0]:
            break
        lo, hi = (mid, hi) if gaussian_delta(sigma, mid) > delta else (lo, mid)
    return hi


def _same_n(fn, **kwargs):
    return (first_sample(fn, X, ONE_COUNT, n=1, **kwargs), first_sample(fn, X_SWAP, ONE_COUNT, n=1, **kwargs))


@register("gaussian_analytic")
def _case_gaussian_analytic(epsilon=1.0, delta=0.05):
    """Analytic calibration: δ(ε) = δ exactly, so the event where the loss exceeds ε is tight."""
    from ...gaussian import gaussian_mechanism
    from ...theory.gaussian import analytic_gaussian_sigma
    sigma = analytic_gaussian_sigma(1.0, epsilon, delta)
    s, sp = _same_n(gaussian_mechanism, epsilon=epsilon, delta=delta, calibration="analytic")
    return AuditCase(f"Gaussian mechanism, analytic σ (δ={delta:g})", "dpbook.gaussian.gaussian_mechanism",
                     epsilon, delta, s, sp, _gaussian_events(sigma, epsilon, (-0.3, 0.0, 0.3)), 2_000_000,
                     PAIR_SAME_N, "mechanism", epsilon)


@register("gaussian_classic")
def _case_gaussian_classic(epsilon=0.9, delta=0.05):
    """Classic σ = sqrt(2 ln(1.25/δ))/ε (needs ε < 1): private, but its true ε at δ is well below ε."""
    from ...gaussian import gaussian_mechanism
    from ...theory.gaussian import gaussian_sigma
    epsilon = min(epsilon, 0.99)
    sigma = gaussian_sigma(1.0, epsilon, delta)
    true_eps = exact_gaussian_epsilon(sigma, delta)
    s, sp = _same_n(gaussian_mechanism, epsilon=epsilon, delta=delta)
    return AuditCase(f"Gaussian mechanism, classic σ (δ={delta:g})", "dpbook.gaussian.gaussian_mechanism",
                     epsilon, delta, s, sp, _gaussian_events(sigma, true_eps, (-0.3, 0.0, 0.3)), 1_000_000,
                     PAIR_SAME_N, "mechanism", true_eps)


@register("gaussian_forgets_log_factor")
def _case_gaussian_no_log(epsilon=0.9, delta=1e-5):
    from ...broken.gaussian import gaussian_forgets_log_factor
    sigma = 1.0 / epsilon
    s, sp = _same_n(gaussian_forgets_log_factor, epsilon=epsilon, delta=delta)
    return AuditCase("Gaussian without the sqrt(2 ln(1.25/δ)) factor", "dpbook.broken.gaussian.gaussian_forgets_log_factor",
                     epsilon, delta, s, sp, _gaussian_events(sigma, epsilon), 200_000, PAIR_SAME_N, "control",
                     exact_gaussian_epsilon(sigma, delta))


_M_GAUSS = 25
_SAME_QUERY = np.tile(ONE_COUNT, (_M_GAUSS, 1))     # 25 copies of one counting query: Δ2 = 5


@register("gaussian_single_query_sensitivity")
def _case_gaussian_one_query(epsilon=0.9, delta=1e-5):
    """σ for Δ2 = 1 on 25 queries that all move (Δ2 = 5): the mean of the answers has σ/5 noise."""
    from ...broken.gaussian import gaussian_single_query_sensitivity
    epsilon = min(epsilon, 0.99)
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / epsilon / math.sqrt(_M_GAUSS)   # noise sd of the mean
    mean = lambda x: (lambda t, rng: gaussian_single_query_sensitivity(x, _SAME_QUERY, epsilon=epsilon, delta=delta, n=1,
                                                                        trials=t, rng=rng).answers.mean(axis=1))
    return AuditCase("Gaussian σ for one query, 25 queries released",
                     "dpbook.broken.gaussian.gaussian_single_query_sensitivity", epsilon, delta, mean(X),
                     mean(X_SWAP), _gaussian_events(sigma, epsilon), 200_000,
                     "same-n pair, 25 copies of one counting query (Δ2 = 5); event on the mean answer",
                     "control", exact_gaussian_epsilon(sigma, delta))


@register("gaussian_classic_any_epsilon")
def _case_gaussian_classic_any(epsilon=7.5, delta=0.1):
    """Classic σ at ε = 7.5, δ = 0.1 (outside DR-Gauss's ε < 1): true δ(ε) = 0.2 > δ; an event of probability
    ~2.5e-5 under x' shows it with 4·10^6 samples."""
    from ...broken.gaussian import gaussian_classic_any_epsilon
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    s, sp = _same_n(gaussian_classic_any_epsilon, epsilon=epsilon, delta=delta)
    events = {f"y <= {c:g}": (lambda y, c=c: y <= c) for c in (-0.25, -0.2, -0.15)}
    return AuditCase("classic Gaussian σ at ε >= 1", "dpbook.broken.gaussian.gaussian_classic_any_epsilon",
                     epsilon, delta, s, sp, events, 4_000_000, PAIR_SAME_N, "control",
                     exact_gaussian_epsilon(sigma, delta))


_M_COMPOSED = 4
_COMPOSED = np.tile(ONE_COUNT, (_M_COMPOSED, 1))    # 4 copies of one counting query: L1 sensitivity 4


def all_leq0(y):
    return np.all(y <= 0, axis=1)


@register("composed_laplace_basic")
def _case_composed_basic(epsilon=1.0):
    """Basic composition, 4 queries at ε/4 each, all moving: S = {all y_i <= 0} has ratio exactly e^ε."""
    from ...gaussian import composed_laplace_mechanism
    s = lambda x: (lambda t, rng: composed_laplace_mechanism(x, _COMPOSED, epsilon=epsilon, n=1, trials=t, rng=rng).answers)
    return AuditCase("Laplace per query, basic composition (m=4)", "dpbook.gaussian.composed_laplace_mechanism",
                     epsilon, 0.0, s(X), s(X_PRIME), {"all y_i <= 0": all_leq0}, 1_000_000,
                     "x=(1,0) vs x'=(1,1), 4 copies of one counting query", "mechanism", epsilon)


@register("composed_laplace_advanced")
def _case_composed_advanced(epsilon=0.9, delta=1e-3):
    """Advanced composition (DR-Cor3.21) over 4 queries: private, far from tight at small m."""
    from ...gaussian import composed_laplace_mechanism
    epsilon = min(epsilon, 0.99)
    s = lambda x: (lambda t, rng: composed_laplace_mechanism(x, _COMPOSED, epsilon=epsilon, n=1, delta=delta, trials=t,
                                                             rng=rng).answers)
    return AuditCase("Laplace per query, advanced composition (m=4)", "dpbook.gaussian.composed_laplace_mechanism",
                     epsilon, delta, s(X), s(X_PRIME), {"all y_i <= 0": all_leq0}, 1_000_000,
                     "x=(1,0) vs x'=(1,1), 4 copies of one counting query", "mechanism", None)
