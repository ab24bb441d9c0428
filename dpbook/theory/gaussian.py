"""Bounds for the Gaussian distribution and mechanism (DR-Gauss, PROJ-R1, PROJ-R2; chapter 04).

Calibrations of the noise standard deviation ``σ`` (in the units of the released quantity, e.g. counts):

* :func:`gaussian_sigma` — the classic calibration of DR-Gauss, ``σ = sqrt(2 ln(1.25/δ)) Δ2 / ε``, valid for
  ``ε < 1`` only;
* :func:`analytic_gaussian_sigma` — *extra, not a numbered result*: the analytic Gaussian mechanism of
  Balle & Wang (ICML 2018), the smallest ``σ`` whose exact privacy curve :func:`gaussian_delta` is ``<= δ``
  at ``ε``; valid for every ``ε > 0``.

The privacy loss of the Gaussian mechanism on a neighbouring pair whose means are ``Δ`` apart is itself
Gaussian, ``L ~ N(μ, 2μ)`` with ``μ = Δ²/(2σ²)`` (DR-Gauss, Measure).  Accuracy: ``m`` i.i.d.
``N(0, σ²)`` noises have ``max_i |Z_i| < σ sqrt(2 ln(2m/β))`` with probability ``>= 1 - β`` (union bound
with the two-sided tail ``2 e^{-t²/2}``, erratum PROJ-E2), which gives PROJ-R1's sample size.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, ndtr

from ..validation import (check_alpha, check_beta, check_delta, check_epsilon, check_int, check_real, check_real_array,
                          check_sensitivity)
from .registry import BALLE_WANG, DWORK_ROTH, PROJECTION_NOTES, THIS_BOOK, Result

__all__ = [
    "sigma_epsilon_delta", "gaussian_sigma", "gaussian_delta", "analytic_gaussian_sigma",
    "privacy_loss_mean", "gaussian_privacy_loss", "privacy_loss_tail",
    "gaussian_max_error_bound", "gaussian_failure_probability", "gaussian_sample_complexity",
]


def sigma_epsilon_delta(epsilon, delta) -> float:
    """PROJ-R1's ``σ_{ε,δ} = sqrt(2 ln(1.25/δ)) / ε`` (the classic calibration for ``Δ2 = 1``, ``ε < 1``)."""
    return gaussian_sigma(1.0, epsilon, delta)


def gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """DR-Gauss, classic calibration: ``σ = sqrt(2 ln(1.25/δ)) · Δ2 / ε`` gives (ε, δ)-DP for ``ε ∈ (0, 1)``.

    DR states the theorem for ``c² > 2 ln(1.25/δ)``; equality is also safe (the exact curve
    :func:`gaussian_delta` is continuous and stays below δ for ``ε < 1``; chapter 04 plots it).  For
    ``ε >= 1`` the formula is *not* a theorem (at ``ε = 10``, ``δ = 1e-5`` its exact δ is ``2.3e-5``), so it
    is refused: use :func:`analytic_gaussian_sigma`.
    """
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    if epsilon >= 1.0:
        raise ValueError(f"epsilon ({epsilon!r}) must be < 1 for the classic Gaussian calibration (DR-Gauss); "
                         "use the analytic calibration for epsilon >= 1")
    return math.sqrt(2.0 * math.log(1.25 / delta)) * sensitivity / epsilon


def gaussian_delta(sigma, epsilon, sensitivity=1.0) -> float:
    """The exact privacy curve of ``N(0, σ²)`` noise on a query with L2 sensitivity ``Δ`` (Balle & Wang 2018).

    ``δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε Φ(-Δ/(2σ) - εσ/Δ)``: the mechanism is (ε, δ)-DP iff ``δ >= δ(ε)``.
    *Extra* (not a numbered result); used to verify DR-Gauss numerically and for the analytic calibration.
    The second term is evaluated as ``exp(ε + log Φ(·))`` so it neither overflows nor underflows.
    """
    sigma = check_sensitivity(sigma, "sigma")
    epsilon = check_epsilon(epsilon, allow_zero=True)
    r = check_sensitivity(sensitivity) / sigma
    a, b = r / 2 - epsilon / r, -r / 2 - epsilon / r
    value = float(ndtr(a) - math.exp(epsilon + log_ndtr(b)))
    return max(value, 0.0)


def analytic_gaussian_sigma(sensitivity, epsilon, delta, *, rtol: float = 1e-12) -> float:
    """*Extra* — the analytic Gaussian mechanism (Balle & Wang 2018): the smallest ``σ`` with
    ``gaussian_delta(σ, ε, Δ) <= δ``, found by bisection on ``log σ``; valid for every ``ε > 0``.

    ``δ(ε)`` decreases in ``σ``; the bisection keeps the upper end feasible and returns it, so the result
    always satisfies ``gaussian_delta(result, ε, Δ) <= δ`` (fail closed) and is within ``rtol`` of the optimum.
    """
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)

    def ok(sigma):
        return gaussian_delta(sigma, epsilon, sensitivity) <= delta

    hi = math.sqrt(2.0 * math.log(1.25 / delta)) * sensitivity / epsilon   # the classic σ as a start
    while not ok(hi):
        hi *= 2.0
    lo = hi / 2.0
    while ok(lo):
        hi, lo = lo, lo / 2.0
    while hi / lo - 1.0 > rtol:                                            # invariant: lo fails, hi passes
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def privacy_loss_mean(sensitivity, sigma) -> float:
    """``μ = Δ²/(2σ²)``: mean of the Gaussian privacy loss ``L ~ N(μ, 2μ)`` (DR-Gauss); also ``KL(p_x‖p_x')``."""
    return check_sensitivity(sensitivity) ** 2 / (2.0 * check_sensitivity(sigma, "sigma") ** 2)


def gaussian_privacy_loss(outputs, center, center_prime, sigma) -> np.ndarray:
    """``L(o) = ln p_x(o)/p_x'(o)`` for outputs ``o`` of ``N(center, σ² I)`` vs ``N(center_prime, σ² I)``.

    ``L(o) = (‖o - c'‖² - ‖o - c‖²)/(2σ²)``; ``outputs`` has shape ``(m,)`` or ``(trials, m)`` and the result
    one value per trial.  For ``o ~ N(c, σ² I)`` this is ``N(μ, 2μ)`` with ``μ = ‖c - c'‖²/(2σ²)``.
    """
    sigma = check_sensitivity(sigma, "sigma")
    o = np.atleast_2d(check_real_array("outputs", outputs))
    c, c2 = check_real_array("center", center), check_real_array("center_prime", center_prime)
    for name, arr in (("center", c), ("center_prime", c2)):
        if arr.ndim > 1:
            raise ValueError(f"{name} must be a vector of m answers, got shape {arr.shape}")
    c, c2 = c.ravel(), c2.ravel()
    if o.ndim != 2 or not (o.shape[1] == c.size == c2.size):
        raise ValueError(f"outputs {o.shape}, center {c.shape} and center_prime {c2.shape} must agree on m")
    return (((o - c2) ** 2).sum(axis=1) - ((o - c) ** 2).sum(axis=1)) / (2.0 * sigma ** 2)


def privacy_loss_tail(epsilon, sigma, sensitivity=1.0) -> float:
    """``P[L > ε]`` for ``L ~ N(μ, 2μ)``, ``μ = Δ²/(2σ²)`` (DR-Gauss, PA(i)); ``<= δ`` suffices for (ε, δ)-DP."""
    epsilon = check_epsilon(epsilon, allow_zero=True)
    mu = privacy_loss_mean(sensitivity, sigma)
    return float(ndtr(-(epsilon - mu) / math.sqrt(2.0 * mu)))        # the normal tail P[Z > z] = Φ(-z)


def gaussian_max_error_bound(m, beta, sigma) -> float:
    """``P[max_{i<=m} |Z_i| >= σ sqrt(2 ln(2m/β))] <= β`` for ``Z_i ~ N(0, σ²)`` i.i.d. (PROJ-R1, erratum PROJ-E2).

    Returns ``σ sqrt(2 ln(2m/β))`` (union bound over ``m`` two-sided tails ``2 e^{-t²/2}``).
    """
    m = check_int("m", m, low=1)
    beta = check_beta(beta)
    return check_sensitivity(sigma, "sigma") * math.sqrt(2.0 * math.log(2.0 * m / beta))


def gaussian_failure_probability(alpha, m, sigma) -> float:
    """Exact ``P[max_i |Z_i| >= α] = 1 - (1 - 2Φ(-α/σ))^m`` for ``m`` i.i.d. ``N(0, σ²)``."""
    alpha = check_alpha(alpha)
    m = check_int("m", m, low=1)
    p = 2.0 * ndtr(-(alpha / check_sensitivity(sigma, "sigma")))      # 2 P[Z > α/σ]
    return float(-np.expm1(m * np.log1p(-p))) if p < 1 else 1.0


def gaussian_sample_complexity(m, beta, epsilon, delta, alpha) -> float:
    """PROJ-R1: ``n >= σ_{ε,δ} sqrt(2m ln(2m/β)) / α`` rows make all ``m`` normalised answers ``α``-accurate
    with probability ``>= 1 - β`` (noise ``N(0, σ_{ε,δ}² m/n²)``, i.e. ``Δ2 = sqrt(m)/n``).

    ``n = O(sqrt(m log m) sqrt(log 1/δ)/(αε))``: a *sufficient* size (erratum PROJ-E9).  The Laplace
    counterpart PROJ-R2, ``m ln(m/β)/(αε)``, is :func:`dpbook.theory.laplace.split_budget_sample_complexity`.
    """
    m = check_int("m", m, low=1)
    sigma = sigma_epsilon_delta(epsilon, delta) * math.sqrt(m)
    return gaussian_max_error_bound(m, beta, sigma) / check_alpha(alpha)


# --- the results chapter 04 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "04_gaussian"
RESULTS = (
    Result(id="DR-Gauss", title="The Gaussian mechanism", chapter=_CH, section="The Gaussian mechanism (DR-Gauss",
           statement=r"For $\varepsilon\in(0,1)$, adding $\mathcal N(0,\sigma^2I)$ with "
                     r"$\sigma\ge\sqrt{2\ln(1.25/\delta)}\,\Delta_2f/\varepsilon$ is $(\varepsilon,\delta)$-DP, where $\Delta_2f$ "
                     r"is the $\ell_2$-sensitivity; the privacy loss is Gaussian with mean $\Delta_2^2/(2\sigma^2)$ and "
                     r"twice that variance.",
           implemented_by=("dpbook.gaussian.gaussian_mechanism", "dpbook.noise.gaussian_noise",
                           "dpbook.queries.Workload.l2_sensitivity"),
           bounds=("dpbook.theory.gaussian.gaussian_sigma", "dpbook.theory.gaussian.gaussian_delta",
                   "dpbook.theory.gaussian.privacy_loss_mean", "dpbook.theory.gaussian.privacy_loss_tail",
                   "dpbook.theory.gaussian.analytic_gaussian_sigma"),
           source=f"{DWORK_ROTH}, App. A; {BALLE_WANG} (exact privacy curve)"),
    Result(id="DR-E3", title="Erratum: where the classic Gaussian calibration fails", chapter=_CH,
           section="Why it is private",
           statement=r"The restriction $\varepsilon<1$ is needed but generous: at $\delta=10^{-5}$ the classic $\sigma$ first "
                     r"violates the exact privacy curve at $\varepsilon\approx8.42$ (6.77 at $10^{-2}$, 9.37 at $10^{-8}$), not "
                     r"at about 9.",
           implemented_by=("dpbook.gaussian.gaussian_mechanism",),
           bounds=("dpbook.theory.gaussian.gaussian_delta", "dpbook.theory.gaussian.gaussian_sigma"),
           source=THIS_BOOK),
    Result(id="PROJ-R1", title="Gaussian mechanism for m normalised queries", chapter=_CH,
           section="Accuracy of the Gaussian mechanism (PROJ-R1)",
           statement=r"Answering $m$ normalised queries with $\mathcal N(0,\sigma_{\varepsilon,\delta}^2m/n^2)$ noise, "
                     r"$\sigma_{\varepsilon,\delta}=\sqrt{2\ln(1.25/\delta)}/\varepsilon$, is $(\varepsilon,\delta)$-DP under "
                     r"replace-one, and all answers are within α w.p. $1-\beta$ once "
                     r"$n\ge\sigma_{\varepsilon,\delta}\sqrt{2m\ln(2m/\beta)}/\alpha$.",
           implemented_by=("dpbook.gaussian.gaussian_mechanism",),
           bounds=("dpbook.theory.gaussian.sigma_epsilon_delta", "dpbook.theory.gaussian.gaussian_max_error_bound",
                   "dpbook.theory.gaussian.gaussian_failure_probability",
                   "dpbook.theory.gaussian.gaussian_sample_complexity"),
           source=f"{PROJECTION_NOTES}, recap of {DWORK_ROTH}, App. A"),
    Result(id="PROJ-E2", title="Erratum: the Gaussian tail is one-sided", chapter=_CH,
           section="Accuracy of the Gaussian mechanism (PROJ-R1)",
           statement=r"Correction: $\Pr[Y\ge t\sigma]\le e^{-t^2/2}$ is the one-sided tail; for $|Y|$ a factor 2 is needed.",
           bounds=("dpbook.theory.gaussian.gaussian_max_error_bound",),
           source=PROJECTION_NOTES),
    Result(id="PROJ-Def1", title="The query-release problem and its sample size", chapter=_CH,
           section="How many rows? Laplace against Gaussian",
           statement=r"Release all $m$ normalised linear queries within α under privacy; a mechanism's figure of merit is the "
                     r"smallest $n$ at which it is $(\alpha,\beta)$-accurate.",
           implemented_by=("dpbook.experiments.required_n",),
           source=PROJECTION_NOTES),
    Result(id="PROJ-R2", title="Laplace mechanism for m normalised queries", chapter=_CH,
           section="How many rows? Laplace against Gaussian",
           statement=r"$m$ normalised queries have $\ell_1$-sensitivity $m/n$, so $\mathrm{Lap}(m/(n\varepsilon))$ noise is "
                     r"$\varepsilon$-DP and all answers are within α once $n\ge m\ln(m/\beta)/(\alpha\varepsilon)$.",
           implemented_by=("dpbook.laplace.laplace_mechanism",),
           bounds=("dpbook.theory.laplace.split_budget_sample_complexity",),
           source=f"{PROJECTION_NOTES}, recap"),
    Result(id="PROJ-E9", title="Erratum: sample sizes are sufficient, not necessary", chapter=_CH,
           section="The Gaussian mechanism (DR-Gauss",
           statement=r"Clarification: the recap's \"we need $n\in\Omega(\cdot)$\" gives sizes that *suffice* "
                     r"($n\ge C(\cdot)$), not lower bounds.",
           bounds=("dpbook.theory.gaussian.gaussian_sample_complexity",
                   "dpbook.theory.smalldb.proj_r3_sample_complexity"),
           source=PROJECTION_NOTES),
)
