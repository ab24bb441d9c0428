"""Composition of private mechanisms and the expected privacy loss (DR-Thm3.16, DR-Thm3.20, DR-Cor3.21; chapter 05).

* :func:`basic_composition` — ``m`` (ε, δ)-DP steps are ``(mε, mδ)``-DP (DR-Thm3.16).
* :func:`advanced_composition` — DR-Thm3.20 (Dwork–Rothblum–Vadhan 2010): ``(ε', mδ + δ')``-DP with
  ``ε' = sqrt(2m ln(1/δ')) ε + m ε (e^ε - 1)``.
* :func:`advanced_per_step_epsilon` — DR-Cor3.21: ``ε = ε'/(2 sqrt(2m ln(1/δ')))`` per step for a target
  ``ε' < 1``.
* :func:`kl_bound` — IDC-Thm2.4 ≡ DR-Lemma3.18: ``KL(μ‖ν) <= ε(e^ε - 1)`` when ``|ln μ/ν| <= ε``, the drift
  term of advanced composition; :func:`laplace_kl` is the exact KL of the Laplace pair it is measured on.
* :func:`randomized_response_composition_epsilon` — *extra, not a numbered result*: the exact ε' of ``m``-fold
  randomized response, the worst case among ε-DP mechanisms (Kairouz–Oh–Viswanath 2015), used as the
  "measured" curve under the two bounds.

Note (erratum IDC-E3): IDC cites advanced composition through a broken label; IDC's §2 "Theorem 2.4"
is the KL lemma, not a composition theorem.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy

from ..validation import check_split, EPSILON_EXP_MAX, EPSILON_RANGE, check_work, check_delta, check_epsilon, check_int, check_real
from .registry import DRV, DWORK_ROTH, GRU, THIS_BOOK, Result

__all__ = [
    "tight_per_step_epsilon",
    "basic_composition", "advanced_composition", "advanced_per_step_epsilon", "laplace_per_query_scale",
    "kl_bound", "laplace_kl", "randomized_response_loss_law", "randomized_response_composition_delta",
    "randomized_response_composition_epsilon",
]


def basic_composition(epsilon, m, delta=0.0) -> tuple[float, float]:
    """Basic composition (DR-Thm3.16): ``m`` adaptive (ε, δ)-DP steps are ``(mε, mδ)``-DP."""
    epsilon = check_epsilon(epsilon)
    m = check_int("m", m, low=1)
    return m * epsilon, m * check_delta(delta)


def advanced_composition(epsilon, m, delta_prime, delta=0.0) -> tuple[float, float]:
    """DR-Thm3.20: ``m`` adaptive (ε, δ)-DP steps are ``(ε', mδ + δ')``-DP for every ``δ' ∈ (0, 1)``, with
    ``ε' = sqrt(2m ln(1/δ')) ε + m ε (e^ε - 1)``.  Returns ``(ε', mδ + δ')``.
    """
    epsilon = check_epsilon(epsilon, high=EPSILON_EXP_MAX)
    m = check_int("m", m, low=1)
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    delta = check_delta(delta)
    eps_total = math.sqrt(2.0 * m * math.log(1.0 / delta_prime)) * epsilon + m * epsilon * math.expm1(epsilon)
    return eps_total, m * delta + delta_prime


def advanced_per_step_epsilon(epsilon_total, m, delta_prime) -> float:
    """DR-Cor3.21: for a target ``ε' ∈ (0, 1)``, each of ``m`` steps may use ``ε = ε'/(2 sqrt(2m ln(1/δ')))``.

    The corollary's proof bounds the drift ``mε(e^ε - 1)`` by ``ε'/2``, which needs ``ln(1/δ')`` not too
    small: it holds for every ``m`` and every ``ε' < 1`` exactly when ``δ' <= 0.7095`` (``m = 1`` is the binding
    case; the cutoff rises towards ``e^{-1/4} ≈ 0.779`` as ``m`` grows), and at ``δ' = 0.95``, ``m = 1``,
    ``ε' = 0.99`` the per-step ε is 1.55 and DR-Thm3.20 gives 6.2 (erratum DR-E2).  So the result is checked
    against :func:`advanced_composition` and refused (ValueError naming ``delta_prime``) when it does not reach
    the target.
    """
    epsilon_total = check_epsilon(epsilon_total, "epsilon_total", high=1.0, high_open=True)
    m = check_int("m", m, low=1)
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    epsilon = check_split(epsilon_total, 2.0 * math.sqrt(2.0 * m * math.log(1.0 / delta_prime)),
                          parts_name="2 sqrt(2 m ln(1/delta_prime))", name="epsilon_total")
    reached, _ = advanced_composition(epsilon, m, delta_prime)
    if reached > epsilon_total:
        raise ValueError(f"delta_prime ({delta_prime!r}) is too large for DR-Cor3.21: its per-step epsilon "
                         f"{epsilon:.4g} composes to {reached:.4g} > epsilon_total ({epsilon_total!r})")
    return epsilon


def tight_per_step_epsilon(epsilon_total, m, delta_prime) -> float:
    """DR-Thm3.20 solved for the step: the largest ``ε`` whose ``m`` steps compose to at most ``epsilon_total``,
    the root of ``sqrt(2m ln(1/δ')) ε + m ε (e^ε - 1) = ε_total``.

    :func:`advanced_per_step_epsilon` (DR-Cor3.21's closed form) composes to only about half of ``ε_total``: the
    corollary bounds the drift term by ``ε_total/2`` and loses ``√2`` in the square root.  The left-hand side is
    convex and increasing in ``ε``, so Newton's method from the right (``ε_total/sqrt(2m ln(1/δ'))``, which is
    above the root since the drift is ``>= 0``) converges monotonically; the result is then stepped down to the
    last float whose composition does not exceed ``ε_total``.  Unlike the corollary it needs no ``ε_total < 1``.
    """
    epsilon_total = check_epsilon(epsilon_total, "epsilon_total", high=100.0)
    m = check_int("m", m, low=1, high=10 ** 9)
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    A = math.sqrt(2.0 * m * math.log(1.0 / delta_prime))
    x = min(epsilon_total / A, EPSILON_EXP_MAX)
    for _ in range(200):
        f = A * x + m * x * math.expm1(x) - epsilon_total
        step = f / (A + m * (math.expm1(x) + x * math.exp(x)))
        x -= step
        if abs(step) <= 1e-15 * x:
            break
    composed = lambda e: A * e + m * e * math.expm1(e)                      # noqa: E731 - DR-Thm3.20's ε'
    while x > 0.0 and composed(x) > epsilon_total:                          # never above after rounding
        x = math.nextafter(x, 0.0)
    if not x >= EPSILON_RANGE[0]:
        raise ValueError(f"epsilon_total ({epsilon_total!r}) is too small for m = {m} composed steps: the per-step "
                         f"epsilon would be {x:.3g} < {EPSILON_RANGE[0]:g}")
    return x


def laplace_per_query_scale(m, epsilon, delta=0.0) -> float:
    """LEC3-3.3.2: Laplace scale for each of ``m`` counting queries (sensitivity 1 each) under a total budget.

    ``δ = 0``: basic composition, ``b = m/ε``.  ``δ > 0`` (practical note, via DR-Cor3.21 with ``δ' = δ``):
    ``b = 2 sqrt(2m ln(1/δ))/ε``, which grows like ``sqrt(m)``; needs ``ε < 1``.
    """
    m = check_int("m", m, low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if delta > 0.0 and epsilon >= 1.0:
        raise ValueError(f"epsilon ({epsilon!r}) must be < 1 for the advanced-composition split (DR-Cor3.21)")
    return m / epsilon if delta == 0.0 else 1.0 / advanced_per_step_epsilon(epsilon, m, delta)


def kl_bound(epsilon) -> float:
    """IDC-Thm2.4 ≡ DR-Lemma3.18: if ``sup_o |ln μ(o)/ν(o)| <= ε`` then ``KL(μ‖ν) <= ε(e^ε - 1)``
    (``<= 2ε²`` for ``ε <= 1``)."""
    epsilon = check_epsilon(epsilon, high=EPSILON_EXP_MAX)
    return epsilon * math.expm1(epsilon)


def laplace_kl(shift, b) -> float:
    """Exact ``KL(Lap(0, b) ‖ Lap(s, b)) = |s|/b + e^{-|s|/b} - 1`` (the IDC-Thm2.4 measure uses ``s = 1``,
    ``b = 1/ε``, giving ``ε + e^{-ε} - 1 ≈ ε²/2``)."""
    shift = check_real("shift", shift)
    b = check_epsilon(b, "b")
    t = abs(shift) / b
    return t + math.expm1(-t)


def randomized_response_loss_law(epsilon, m) -> tuple[np.ndarray, np.ndarray]:
    """*Extra*: the law of the privacy loss of ``m``-fold ε-randomized response: ``(pmf, loss)`` with
    ``pmf[j] = P[j agreements] = Bin(m, e^ε/(1+e^ε))`` and ``loss[j] = ε(2j - m)`` (the worst case among ε-DP
    mechanisms, Kairouz–Oh–Viswanath 2015)."""
    epsilon = check_epsilon(epsilon)
    m = check_int("m", m, low=1)
    check_work(m=m + 1, bytes_per_cell=64)                 # a handful of (m+1)-arrays
    p = math.exp(epsilon) / (1.0 + math.exp(epsilon)) if epsilon < 700 else 1.0
    j = np.arange(m + 1)
    return _binomial_pmf(m, p), epsilon * (2 * j - m)


def _binomial_pmf(m: int, p: float) -> np.ndarray:
    """``P[B = j]``, ``j = 0..m``, for ``B ~ Bin(m, p)``: ``exp(ln C(m, j) + j ln p + (m - j) ln(1 - p))`` through
    log-gamma: scipy.stats.binom.pmf to 1e-9 relative (m <= 10^5), without importing scipy.stats (~1 s)."""
    j = np.arange(m + 1)
    log_choose = gammaln(m + 1.0) - gammaln(j + 1.0) - gammaln(m - j + 1.0)
    return np.exp(log_choose + xlogy(j, p) + xlog1py(m - j, -p))          # 0·ln 0 = 0 at p = 1


def randomized_response_composition_delta(epsilon_total, epsilon, m) -> float:
    """*Extra*: the exact ``δ(ε') = E[(1 - e^{ε' - L})_+]`` of ``m``-fold ε-randomized response (``L`` = its
    privacy loss ``ε(2B - m)``, ``B ~ Bin(m, e^ε/(1+e^ε))``)."""
    epsilon_total = check_epsilon(epsilon_total, "epsilon_total", allow_zero=True)
    epsilon = check_epsilon(epsilon)
    m = check_int("m", m, low=1)
    pmf, loss = randomized_response_loss_law(epsilon, m)
    gap = np.minimum(epsilon_total - loss, 0.0)                          # only outcomes with L > ε' count
    return float(np.sum(pmf * -np.expm1(gap)))


def randomized_response_composition_epsilon(epsilon, m, delta_prime) -> float:
    """*Extra*: the smallest ``ε'`` with ``m``-fold ε-randomized response ``(ε', δ')``-DP — the exact cost of
    composing ``m`` ε-DP steps in the worst case (Kairouz–Oh–Viswanath 2015).  Bisection on ``[0, mε]``;
    the returned ``ε'`` always satisfies the δ' constraint (fail closed)."""
    epsilon = check_epsilon(epsilon)
    m = check_int("m", m, low=1)
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    pmf, loss = randomized_response_loss_law(epsilon, m)

    def delta_at(e):
        return float(np.sum(pmf * -np.expm1(np.minimum(e - loss, 0.0))))

    lo, hi = 0.0, m * epsilon                                                # δ(mε) = 0
    if delta_at(lo) <= delta_prime:
        return 0.0
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if delta_at(mid) <= delta_prime else (mid, hi)
    return hi


# --- the results chapter 05 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "05_composition"
RESULTS = (
    Result(id="IDC-Thm2.4", title="Expected privacy loss", chapter=_CH, section="The expected privacy loss",
           aliases=("DR-Lemma3.18",),
           statement=r"If two output distributions have log-ratio at most $\varepsilon_0$ everywhere, their KL divergence is "
                     r"at most $\varepsilon_0(e^{\varepsilon_0}-1)$ ($\le2\varepsilon_0^2$ for $\varepsilon_0\le1$): an "
                     r"$\varepsilon_0$-DP step loses only $O(\varepsilon_0^2)$ on average, which is what advanced composition adds up.",
           bounds=("dpbook.theory.composition.kl_bound", "dpbook.theory.composition.laplace_kl"),
           source=f"{DWORK_ROTH}, Lemma 3.18; {DRV}; {GRU}, Thm. 2.4"),
    Result(id="IDC-E3", title="Erratum: the composition theorem IDC cites", chapter=_CH,
           section="The expected privacy loss",
           statement=r"Correction: the proof of IDC's Thm 7.2 cites a broken label; the theorem meant is advanced "
                     r"composition (DR-Thm3.20), not IDC's Thm 2.4 (the KL lemma).",
           source=f"{GRU}, proof of Thm. 7.2"),
    Result(id="DR-Thm3.16", title="Basic composition", chapter=_CH, section="Basic and advanced composition",
           statement=r"Running $m$ mechanisms, each $(\varepsilon_t,\delta_t)$-DP and possibly chosen adaptively, is "
                     r"$(\sum\varepsilon_t,\sum\delta_t)$-DP. (The book states it together with advanced composition, "
                     r"DR-Thm3.20; the number is Dwork–Roth's Theorem 3.16.)",
           implemented_by=("dpbook.release.Release",),
           bounds=("dpbook.theory.composition.basic_composition",),
           source=f"{DWORK_ROTH}, Thm. 3.16"),
    Result(id="DR-Thm3.20", title="Advanced composition", chapter=_CH, section="Basic and advanced composition",
           statement=r"$m$ adaptive $(\varepsilon_0,\delta_0)$-DP steps are $(\varepsilon,m\delta_0+\delta')$-DP for every "
                     r"$\delta'>0$, with $\varepsilon=\sqrt{2m\ln(1/\delta')}\,\varepsilon_0+m\varepsilon_0(e^{\varepsilon_0}-1)$: "
                     r"the budget grows like $\sqrt m$ instead of $m$.",
           implemented_by=("dpbook.gaussian.composed_laplace_mechanism",),
           bounds=("dpbook.theory.composition.advanced_composition",
                   "dpbook.theory.composition.randomized_response_composition_epsilon"),
           source=f"{DWORK_ROTH}, Thm. 3.20; {DRV}"),
    Result(id="DR-Cor3.21", title="Per-step budget for advanced composition", chapter=_CH,
           section="Basic and advanced composition",
           statement=r"For a target total $\varepsilon<1$ it suffices that each of the $m$ steps uses "
                     r"$\varepsilon_0=\varepsilon/(2\sqrt{2m\ln(1/\delta')})$; the $m$ counting queries of LEC3-3.3.2 then get "
                     r"Laplace noise of scale $2\sqrt{2m\ln(1/\delta)}/\varepsilon$.",
           implemented_by=("dpbook.gaussian.composed_laplace_mechanism",),
           bounds=("dpbook.theory.composition.advanced_per_step_epsilon",
                   "dpbook.theory.composition.laplace_per_query_scale"),
           source=f"{DWORK_ROTH}, Cor. 3.21"),
    Result(id="DR-E2", title="Erratum: DR-Cor3.21 needs a small δ′", chapter=_CH,
           section="Basic and advanced composition",
           statement=r"Correction: the corollary's proof needs $m\varepsilon_0(e^{\varepsilon_0}-1)\le\varepsilon/2$, which "
                     r"holds for all $m$ and all $\varepsilon<1$ only when $\delta'\le0.7095$; at $\delta'=0.95$, $m=1$, "
                     r"$\varepsilon=0.99$ the step composes to 6.2. The book refuses such a δ′.",
           bounds=("dpbook.theory.composition.advanced_per_step_epsilon",),
           source=THIS_BOOK),
)
