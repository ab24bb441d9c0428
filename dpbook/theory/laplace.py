"""Bounds for the Laplace distribution and mechanism (THEOREMS.md §2–3, chapter 01)."""
from __future__ import annotations

import numpy as np

from ..validation import check_alpha, check_beta, check_epsilon, check_int, check_real, check_sensitivity, check_real_array

__all__ = [
    "laplace_cdf", "laplace_tail", "laplace_scale", "laplace_max_error_bound", "laplace_failure_probability",
    "per_query_epsilon", "k_query_error_bound", "k_query_sample_complexity",
]


def laplace_cdf(z, mu=0.0, b=1.0):
    """CDF of ``Lap(mu, b)`` (S1-Def5; LEC3 has the ``z <= mu`` branch wrong, erratum LEC3-E1).

    ``F(z) = exp((z-mu)/b)/2`` for ``z <= mu`` and ``1 - exp(-(z-mu)/b)/2`` for ``z >= mu``.
    """
    mu = check_real("mu", mu)
    b = check_sensitivity(b, "b")
    z = check_real_array("z", z)
    u = (z - mu) / b
    return np.where(u <= 0, 0.5 * np.exp(np.minimum(u, 0)), 1 - 0.5 * np.exp(-np.maximum(u, 0)))


def laplace_tail(t, b=1.0):
    """``P[|Z| >= t] = exp(-t/b)`` for ``Z ~ Lap(b)`` and ``t >= 0`` (§0 notation)."""
    b = check_sensitivity(b, "b")
    t = check_real_array("t", t, low=0.0)
    return np.exp(-t / b)


def laplace_scale(sensitivity, epsilon) -> float:
    """The Laplace mechanism's noise scale ``b = Δf / ε`` (IDC-Thm2.3 / DR-Thm3.6)."""
    return check_sensitivity(sensitivity) / check_epsilon(epsilon)


def laplace_max_error_bound(k, beta, sensitivity, epsilon) -> float:
    """DR-Thm3.8 ≡ LEC3-3.3: ``P[ ||f(x) - y||_∞ >= ln(k/β) · Δf/ε ] <= β``; returns ``ln(k/β)·Δf/ε``."""
    k = check_int("k", k, low=1)
    return float(np.log(k / check_beta(beta)) * laplace_scale(sensitivity, epsilon))


def laplace_failure_probability(alpha, k, sensitivity, epsilon) -> float:
    """Exact ``P[max_i |Y_i| >= α]`` for ``k`` i.i.d. ``Lap(Δf/ε)``: ``1 - (1 - e^{-αε/Δf})^k``.

    DR-Thm3.8 is the union bound ``k·e^{-αε/Δf}`` of this; the chapter shows both.
    """
    alpha = check_alpha(alpha)
    k = check_int("k", k, low=1)
    p = np.exp(-alpha / laplace_scale(sensitivity, epsilon))
    return float(-np.expm1(k * np.log1p(-p))) if p < 1 else 1.0


def per_query_epsilon(epsilon, k) -> float:
    """Basic-composition budget split (LEC3-3.3.2): ``ε_q = ε / k`` for each of ``k`` queries."""
    return check_epsilon(epsilon) / check_int("k", k, low=1)


def k_query_error_bound(k, beta, epsilon, n=None) -> float:
    """LEC3-3.3.2: with prob. ``1-β`` all ``k`` counting queries (noise ``Lap(k/ε)``) are within
    ``k·ln(k/β)/ε`` counts — divided by ``n`` when ``n`` is given (normalised error, PROJ-R2)."""
    k = check_int("k", k, low=1)
    bound = laplace_max_error_bound(k, beta, 1.0, per_query_epsilon(epsilon, k))
    return bound if n is None else bound / check_int("n", n, low=1)


def k_query_sample_complexity(k, beta, epsilon, alpha) -> float:
    """LEC3-3.3.2 / PROJ-R2: ``n = k·ln(k/β)/(ε α)`` rows make the normalised error at most ``α``."""
    return k_query_error_bound(k, beta, epsilon) / check_alpha(alpha)
