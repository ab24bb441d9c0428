"""Bounds for the exponential mechanism and report-noisy-max (DR-Def3.4, DR-Thm3.10/3.11, DR-Claim3.9; chapter 07)."""
from __future__ import annotations

import math

import numpy as np

from ..validation import check_noise_scale, check_beta, check_epsilon, check_int, check_sensitivity, check_real_array
from .registry import DWORK_ROTH, MCSHERRY_TALWAR, Result

__all__ = ["exponential_utility_gap", "exponential_tail_bound", "report_noisy_max_scale", "report_noisy_max_gap",
           "utility_pair", "exact_privacy_loss"]


def _check_sizes(range_size, opt_size):
    range_size = check_int("range_size", range_size, low=1, exact=False)
    opt_size = check_int("opt_size", opt_size, low=1, high=range_size)
    return range_size, opt_size


def exponential_utility_gap(range_size, epsilon, sensitivity, beta, *, opt_size=1) -> float:
    """DR-Thm3.11 at ``t = ln(1/β)``: ``P[OPT - u(M(x)) >= 2Δu/ε · (ln(|R|/|R_OPT|) + ln(1/β))] <= β``.

    Returns the gap ``2Δu/ε · (ln(|R|/|R_OPT|) + ln(1/β))``.  With ``opt_size=1`` this is DR-Cor3.12
    (``|R|/|R_OPT|`` replaced by ``|R|``).  ``range_size`` may be a huge Python int (e.g. ``C(N+s-1, s)``).
    """
    range_size, opt_size = _check_sizes(range_size, opt_size)
    epsilon, sensitivity, beta = check_epsilon(epsilon), check_sensitivity(sensitivity), check_beta(beta)
    return 2.0 * sensitivity / epsilon * (math.log(range_size) - math.log(opt_size) + math.log(1.0 / beta))


def exponential_tail_bound(gap, range_size, epsilon, sensitivity, *, opt_size=1):
    """DR-Thm3.11 solved for the probability: ``P[OPT - u(M(x)) >= gap] <= min(1, |R|/|R_OPT| · e^{-ε gap/(2Δu)})``.

    (Set ``gap = 2Δu/ε (ln(|R|/|R_OPT|) + t)`` to recover ``e^{-t}``.)  ``gap`` may be an array (``>= 0``).
    """
    range_size, opt_size = _check_sizes(range_size, opt_size)
    epsilon, sensitivity = check_epsilon(epsilon), check_sensitivity(sensitivity)
    gap = check_real_array("gap", gap, low=0.0)
    log_p = math.log(range_size) - math.log(opt_size) - epsilon * gap / (2.0 * sensitivity)
    return np.exp(np.minimum(log_p, 0.0))


def report_noisy_max_scale(epsilon, sensitivity, *, monotone: bool = False) -> float:
    """Laplace scale of report-noisy-max: ``Δu/ε`` for monotone utilities (DR-Claim3.9), else ``2Δu/ε``.

    DR-Claim3.9 proves ε-DP with ``Lap(1/ε)`` for counting queries (``Δu = 1``, all counts move the same way
    under add/remove).  For a general, non-monotone utility the same proof needs a shift of ``2Δu``
    [DERIVED], hence ``Lap(2Δu/ε)``; with ``Lap(Δu/ε)`` the loss on a non-monotone pair exceeds ε (chapter 07).
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    if not isinstance(monotone, (bool, np.bool_)):
        raise TypeError(f"monotone must be a bool, got {type(monotone).__name__} ({monotone!r})")
    return check_noise_scale(sensitivity, epsilon, factor=1.0 if monotone else 2.0)


def report_noisy_max_gap(range_size, epsilon, sensitivity, beta, *, monotone: bool = False) -> float:
    """[DERIVED from DR-Thm3.8] ``P[OPT - u(RNM(x)) >= 2 b ln(|R|/β)] <= β`` with ``b`` the RNM scale.

    With probability ``1-β`` all ``|R|`` Laplace noises satisfy ``|Z_r| < b ln(|R|/β)``; then the pick beats
    the optimum's noisy score, so its utility is within ``2 b ln(|R|/β)`` of OPT.  Returns that gap.
    """
    range_size = check_int("range_size", range_size, low=1, exact=False)
    b = report_noisy_max_scale(epsilon, sensitivity, monotone=monotone)
    return 2.0 * b * (math.log(range_size) - math.log(check_beta(beta)))     # ln of a Python int: no overflow


def utility_pair(size, *, monotone=False):
    """Two neighbouring utility vectors on ``size`` candidates with ``Δu = 1`` (chapter 07, the missing ½).

    Non-monotone (the default): ``u = 0`` and ``u' = (+1, -1, …, -1)`` (candidate 0 rises, the others fall).
    Monotone: ``u' = (0, 1, …, 1)`` — a row counted by every candidate but 0, so every score moves the same way.
    """
    K = check_int("size", size, low=2, high=10 ** 7)
    if not isinstance(monotone, (bool, np.bool_)):
        raise TypeError(f"monotone must be a bool, got {type(monotone).__name__}")
    u = np.zeros(K)
    u2 = np.ones(K) if monotone else -np.ones(K)
    u2[0] = 0.0 if monotone else 1.0
    return u, u2


def _utility_vector(name, value):
    arr = check_real_array(name, value)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} (shape {arr.shape}) must be a non-empty 1-D array of utilities")
    return arr


def _log_law(u, epsilon):
    """``ln P[M(u) = r]`` of the exponential mechanism with ``Δu = 1`` (DR-Def3.4), in log space (no underflow)."""
    z = epsilon * (u - u.max()) / 2.0
    return z - np.log(np.exp(z).sum())


def exact_privacy_loss(u, u2, epsilon) -> float:
    """``max_r |ln P[M(u) = r] / P[M(u') = r]|`` for the exponential mechanism (DR-Def3.4) at ``epsilon`` with
    ``Δu = 1``: the exact privacy loss on the pair ``u, u2`` (the output law is known, nothing is sampled).
    DR-Thm3.10 says it is at most ε when ``|u - u2| <= 1`` entrywise; without the ½ in the exponent it can reach
    2ε."""
    u, u2 = _utility_vector("u", u), _utility_vector("u2", u2)
    if u.size != u2.size:
        raise ValueError(f"u ({u.size} candidates) and u2 ({u2.size}) must have the same length")
    epsilon = check_epsilon(epsilon)
    return float(np.abs(_log_law(u, epsilon) - _log_law(u2, epsilon)).max())


# --- the results chapter 07 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "07_exponential_mechanism"
RESULTS = (
    Result(id="DR-Def3.4", title="The exponential mechanism", chapter=_CH, section="The exponential mechanism (DR-Def3.4",
           statement=r"Given a score $u(x,r)$ of sensitivity $\Delta u$, output candidate $r$ with probability proportional to "
                     r"$\exp(\varepsilon u(x,r)/(2\Delta u))$.",
           implemented_by=("dpbook.exponential.exponential_mechanism", "dpbook.exponential.exponential_probabilities",
                           "dpbook.exponential.exponential_sample"),
           source=f"{DWORK_ROTH}, Def. 3.4; {MCSHERRY_TALWAR}"),
    Result(id="DR-Thm3.10", title="The exponential mechanism is ε-DP", chapter=_CH,
           section="The exponential mechanism (DR-Def3.4",
           statement=r"Each candidate's weight moves by at most $e^{\varepsilon/2}$ between neighbours and so does the "
                     r"normalising sum, so every output probability moves by at most $e^{\varepsilon}$.",
           implemented_by=("dpbook.exponential.exponential_mechanism",),
           source=f"{DWORK_ROTH}, Thm. 3.10"),
    Result(id="DR-Thm3.11", title="Utility of the exponential mechanism", chapter=_CH, section="Utility (DR-Thm3.11",
           statement=r"The chosen candidate's score falls short of the best by at least "
                     r"$\frac{2\Delta u}{\varepsilon}(\ln\frac{|\mathcal R|}{|\mathcal R_{\rm OPT}|}+t)$ with probability at most "
                     r"$e^{-t}$.",
           implemented_by=("dpbook.exponential.exponential_mechanism",),
           bounds=("dpbook.theory.exponential.exponential_utility_gap", "dpbook.theory.exponential.exponential_tail_bound"),
           source=f"{DWORK_ROTH}, Thm. 3.11"),
    Result(id="DR-Cor3.12", title="Utility with the range size only", chapter=_CH, section="Utility (DR-Thm3.11",
           statement=r"Since at least one candidate is optimal, DR-Thm3.11 holds with $|\mathcal R|$ in place of "
                     r"$|\mathcal R|/|\mathcal R_{\rm OPT}|$: the loss is $O(\Delta u\ln|\mathcal R|/\varepsilon)$.",
           bounds=("dpbook.theory.exponential.exponential_utility_gap",),
           source=f"{DWORK_ROTH}, Cor. 3.12"),
    Result(id="DR-Claim3.9", title="Report noisy max", chapter=_CH, section="Report noisy max (DR-Claim3.9)",
           statement=r"Adding independent Laplace noise to every candidate's score and reporting only the index of the "
                     r"largest is $\varepsilon$-DP with scale $\Delta u/\varepsilon$ when the scores are monotone counting "
                     r"queries ($2\Delta u/\varepsilon$ in general). (Dwork–Roth's Claim 3.9.)",
           implemented_by=("dpbook.exponential.report_noisy_max",),
           bounds=("dpbook.theory.exponential.report_noisy_max_scale", "dpbook.theory.exponential.report_noisy_max_gap"),
           source=f"{DWORK_ROTH}, Claim 3.9"),
)
