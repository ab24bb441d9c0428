"""Audit cases: the exponential mechanism and report-noisy-max (chapter 07)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import picks

__all__: list[str] = []    # factories register themselves; nothing to import


_K_EXP = 10
_U = np.r_[1.0, np.zeros(_K_EXP - 1)]          # u(x, ·):  candidate 0 scores Δ, the others 0
_U_PRIME = 1.0 - _U                              # u(x', ·): candidate 0 drops by Δ, the others rise by Δ
_PAIR_EXP = f"non-monotone utilities, {_K_EXP} candidates: u=(1,0,…,0) vs u'=(0,1,…,1), Δu=1"


def _exp_loss(epsilon, factor=0.5):
    """ln P_u[r=0] / P_u'[r=0] for the non-monotone pair with weights exp(factor·ε·u/Δu)."""
    a = math.exp(factor * epsilon)
    return math.log(a * (1 + (_K_EXP - 1) * a) / (a + _K_EXP - 1))


def _exp_case(name, fn, epsilon, trials, kind, true_epsilon):
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     picks(fn, _U, epsilon=epsilon, sensitivity=1.0),
                     picks(fn, _U_PRIME, epsilon=epsilon, sensitivity=1.0), {"r = 0": lambda r: r == 0},
                     trials, _PAIR_EXP, kind, true_epsilon)


@register("exponential")
def _case_exponential(epsilon=1.0):
    """DR-Thm3.10: the 1/2 is needed only for non-monotone utilities; this pair's loss → ε as |R| grows."""
    from ...exponential import exponential_mechanism
    return _exp_case("exponential mechanism", exponential_mechanism, epsilon, 300_000, "mechanism",
                     _exp_loss(epsilon))


@register("exponential_no_half")
def _case_exponential_no_half(epsilon=1.0):
    from ...broken.exponential import exponential_mechanism_no_half
    return _exp_case("exponential mechanism without the 1/2", exponential_mechanism_no_half, epsilon, 100_000,
                     "control", _exp_loss(epsilon, 1.0))


@register("exponential_sample")
def _case_exponential_sample(epsilon=1.0):
    """The batch (inverse-CDF) sampler of the same distribution: the same pair and event."""
    from ...exponential import exponential_sample
    s = lambda u: (lambda t, rng: exponential_sample(u, epsilon=epsilon, sensitivity=1.0, size=t, rng=rng))
    return AuditCase("exponential mechanism, batch sampler", "dpbook.exponential.exponential_sample", epsilon, 0.0,
                     s(_U), s(_U_PRIME), {"r = 0": lambda r: r == 0}, 300_000, _PAIR_EXP, "mechanism",
                     _exp_loss(epsilon))


def _rnm_loss(u, u_prime, b):
    """ln P_u[argmax = 0] / P_u'[argmax = 0] for report-noisy-max with Lap(b) noise (numerical integration)."""
    from scipy import integrate

    def p0(v):
        def f(z):       # density of candidate 0's noisy score at z times P[every other score < z] (numpy, cheap)
            d = (z - v) / b
            cdf = np.where(d < 0, 0.5 * np.exp(np.minimum(d, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(d, 0.0)))
            return 0.5 / b * math.exp(-abs(d[0])) * float(np.prod(cdf[1:]))
        return integrate.quad(f, v.min() - 60 * b, v.max() + 60 * b, limit=400, points=sorted(set(v)))[0]
    return math.log(p0(u) / p0(u_prime))


_U_MONO = np.zeros(_K_EXP)                      # monotone neighbour of _U: only candidate 0 moves (down by Δ)
_PAIR_RNM_MONO = f"monotone utilities, {_K_EXP} candidates: u=(1,0,…,0) vs u'=(0,…,0), Δu=1"


def _rnm_case(name, fn, epsilon, monotone, trials, kind, scale_factor):
    u_prime = _U_MONO if monotone else _U_PRIME
    b = (1.0 if monotone else 2.0) / epsilon * scale_factor
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     picks(fn, _U, epsilon=epsilon, sensitivity=1.0, monotone=monotone),
                     picks(fn, u_prime, epsilon=epsilon, sensitivity=1.0, monotone=monotone),
                     {"r = 0": lambda r: r == 0}, trials, _PAIR_RNM_MONO if monotone else _PAIR_EXP, kind,
                     _rnm_loss(_U, u_prime, b))


@register("report_noisy_max")
def _case_rnm(epsilon=1.0):
    """Lap(2Δu/ε) for general utilities: on the non-monotone pair the loss is 0.992ε at 10 candidates."""
    from ...exponential import report_noisy_max
    return _rnm_case("report-noisy-max (general)", report_noisy_max, epsilon, False, 1_000_000, "mechanism", 1.0)


@register("report_noisy_max_monotone")
def _case_rnm_monotone(epsilon=1.0):
    """DR-Claim3.9, Lap(Δu/ε) for monotone utilities: loss 0.945ε at 10 candidates (→ ε)."""
    from ...exponential import report_noisy_max
    return _rnm_case("report-noisy-max (monotone)", report_noisy_max, epsilon, True, 1_000_000, "mechanism", 1.0)


@register("report_noisy_max_half_noise")
def _case_rnm_half(epsilon=1.0):
    from ...broken.exponential import report_noisy_max_half_noise
    return _rnm_case("report-noisy-max with half the noise", report_noisy_max_half_noise, epsilon, True, 200_000,
                     "control", 0.5)


# SmallDB / the net mechanism: the worst pair found by exhaustive search over small histograms (N = 2,
# s = 2, |x| <= 8) with the exact output laws: x = (4,3) vs (4,4), candidate (2,0) — loss 0.61ε.
_SDB_Q = np.eye(2)
_SDB_X, _SDB_X_PRIME = np.array([4, 3]), np.array([4, 4])
_SDB_ALPHA = 0.7                                   # s = ceil(ln 2 / 0.49) = 2 rows: candidates (2,0), (1,1), (0,2)
_PAIR_SDB = "x=(4,3) vs x'=(4,4), the two point queries, candidates of 2 rows"


def _sdb_loss(epsilon, factor=1.0):
    from ...exponential import exponential_probabilities
    from ...smalldb import candidate_errors, multisets
    net = multisets(2, 2)
    p = exponential_probabilities(-candidate_errors(_SDB_X, _SDB_Q, net), epsilon=factor * epsilon,
                                  sensitivity=1 / _SDB_X.sum())
    q = exponential_probabilities(-candidate_errors(_SDB_X_PRIME, _SDB_Q, net), epsilon=factor * epsilon,
                                  sensitivity=1 / _SDB_X_PRIME.sum())
    return float(np.log(p[0] / q[0]))


def _is_20(y):
    return np.all(np.asarray(y) == [2, 0], axis=1)


def _sdb_case(name, fn, epsilon, trials, kind, factor, **kwargs):
    s = lambda x: (lambda t, rng: fn(x, _SDB_Q, epsilon=epsilon, trials=t, rng=rng, **kwargs).y)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_SDB_X), s(_SDB_X_PRIME),
                     {"y = (2,0)": _is_20}, trials, _PAIR_SDB, kind, _sdb_loss(epsilon, factor))


@register("smalldb")
def _case_smalldb(epsilon=1.0):
    from ...smalldb import smalldb
    return _sdb_case("SmallDB", smalldb, epsilon, 1_000_000, "mechanism", 1.0, alpha=_SDB_ALPHA)


@register("net_mechanism")
def _case_net(epsilon=1.0):
    from ...smalldb import multisets, net_mechanism
    net = np.array(multisets(2, 2))
    s = lambda x: (lambda t, rng: net_mechanism(x, _SDB_Q, net, epsilon=epsilon, trials=t, rng=rng).y)
    return AuditCase("net mechanism", "dpbook.smalldb.net_mechanism", epsilon, 0.0, s(_SDB_X), s(_SDB_X_PRIME),
                     {"y = (2,0)": _is_20}, 1_000_000, _PAIR_SDB, "mechanism", _sdb_loss(epsilon))


@register("smalldb_no_half")
def _case_smalldb_no_half(epsilon=1.0):
    from ...broken.exponential import smalldb_no_half
    return _sdb_case("SmallDB without the 1/2", smalldb_no_half, epsilon, 300_000, "control", 2.0, alpha=_SDB_ALPHA)
