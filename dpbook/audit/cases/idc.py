"""Audit cases: iterative database constructions (chapter 12)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import ONE_COUNT

__all__: list[str] = []    # factories register themselves; nothing to import


_IDC_N = 100                                          # public n for both databases of every pair


def _idc_setup(k=1):
    from ...idc import FixedStream, MultiplicativeWeightsIDC
    return MultiplicativeWeightsIDC(2, 0.2), FixedStream(np.tile(ONE_COUNT, (k, 1)))


def _answer_and_update(release):
    return np.column_stack([np.atleast_2d(release.answers)[:, 0], np.atleast_2d(release.updated)[:, 0]])


def _updated_low(y):
    return (y[:, 1] > 0) & (y[:, 0] <= 0.175)


_PAIR_IDC_SV = ("x=(83,17) vs x'=(83,18), public n=100, one query (count of element 1), MW rule α=0.2, c=1, "
                "β=1 (threshold 0.33: the score sits at it)")


def _idc_sv_case(name, fn, epsilon, trials, kind):
    rule, stream = _idc_setup()
    s = lambda x: (lambda t, rng: _answer_and_update(fn(x, rule, stream, epsilon=epsilon, delta=0.0, beta=1.0,
                                                        n=_IDC_N, c=1, trials=t, rng=rng)))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([83, 17])),
                     s(np.array([83, 18])), {"update released, answer <= 0.175": _updated_low}, trials,
                     _PAIR_IDC_SV, kind, math.inf if kind == "control" else None)


@register("online_idc_sv")
def _case_online_idc_sv(epsilon=1.0):
    """IDC-Alg1-SV, one round: the AboveThreshold run (ε0 = ε/2) and the Laplace answer (ε0) both pay."""
    from ...idc import online_idc_sv
    return _idc_sv_case("online IDC (Alg1-SV)", online_idc_sv, epsilon, 400_000, "mechanism")


@register("online_idc_sv_exact_release")
def _case_online_idc_sv_exact(epsilon=1.0):
    from ...broken.idc import online_idc_sv_exact_release
    return _idc_sv_case("online IDC releasing the exact answer", online_idc_sv_exact_release, epsilon, 20_000,
                        "control")


def _mw_dr_case(name, fn, epsilon, trials, kind):
    from ...idc import FixedStream
    s = lambda x: (lambda t, rng: _answer_and_update(fn(x, FixedStream(ONE_COUNT), alpha=0.2, epsilon=epsilon, n=_IDC_N,
                                                        c=1, threshold=0.33, trials=t, rng=rng)))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([83, 17])),
                     s(np.array([83, 18])), {"update released, answer <= 0.175": _updated_low}, trials,
                     "x=(83,17) vs x'=(83,18), public n=100, one query, α=0.2, c=1, public threshold T=0.33",
                     kind, math.inf if kind == "control" else None)


@register("online_mw_dr")
def _case_online_mw_dr(epsilon=1.0):
    """DR-Alg6 OnlineMW via NumericSparse: the comparison (ε1 = 8ε/9) and the released value (ε2) both pay."""
    from ...idc import online_mw_dr
    return _mw_dr_case("online MW via NumericSparse (DR-Alg6)", online_mw_dr, epsilon, 200_000, "mechanism")


@register("online_mw_dr_exact_values")
def _case_online_mw_dr_exact(epsilon=1.0):
    from ...broken.idc import online_mw_dr_exact_values
    return _mw_dr_case("DR-Alg6 releasing exact values", online_mw_dr_exact_values, epsilon, 20_000, "control")


_PAIR_ALG1 = ("x=(90,10) vs x'=(90,11), public n=100, the same query 4 times, MW rule α=0.2: the answer sits "
              "at the lower edge of the ⊥ band |Â - 1/2| < T = 0.4")


def _alg1_case(name, fn, epsilon, delta, trials, kind):
    rule, stream = _idc_setup(4)
    s = lambda x: (lambda t, rng: np.atleast_2d(fn(x, rule, stream, epsilon=epsilon, delta=delta, n=_IDC_N,
                                                   b_max=4, trials=t, rng=rng).updated))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, delta, s(np.array([90, 10])),
                     s(np.array([90, 11])), {"4 × ⊥ (no update)": lambda u: ~u.any(axis=1)}, trials, _PAIR_ALG1,
                     kind, None)


@register("online_idc")
def _case_online_idc(epsilon=0.9, delta=1e-3):
    """GRU Algorithm 1 with the reconstructed ε0 (IDC-Thm4.1): the ⊥ rounds at the band's edge."""
    from ...idc import online_idc
    return _alg1_case("online IDC (GRU Alg. 1, reconstructed ε0)", online_idc, min(epsilon, 0.99), delta,
                      400_000, "mechanism")


@register("online_idc_uncomposed")
def _case_online_idc_uncomposed(epsilon=0.9, delta=1e-3):
    """ε0 = ε in every round: each ⊥ at the band's edge costs ≈ 0.49ε, four of them ≈ 2ε."""
    from ...broken.idc import online_idc_uncomposed
    return _alg1_case("online IDC without composition (ε0 = ε)", online_idc_uncomposed, min(epsilon, 0.99), delta,
                      100_000, "control")


_PAIR_IC = ("x=(82,18) vs x'=(82,19), public n=100, one query, MW rule α=0.21, one round: Â sits at the stop "
            "test's edge |Â - 1/2| < 0.315")


def _ic_case(name, fn, epsilon, trials, kind):
    from ...idc import MultiplicativeWeightsIDC
    rule = MultiplicativeWeightsIDC(2, 0.21)
    s = lambda x: (lambda t, rng: np.atleast_2d(fn(x, ONE_COUNT, rule=rule, epsilon=epsilon, delta=0.0, n=_IDC_N,
                                                   rounds=1, trials=t, rng=rng).answers)[:, 0])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([82, 18])),
                     s(np.array([82, 19])), {"stopped (answer = 1/2)": lambda a: a == 0.5}, trials, _PAIR_IC, kind,
                     math.inf if kind == "control" else None)


@register("iterative_construction")
def _case_ic(epsilon=1.0):
    from ...idc import iterative_construction
    return _ic_case("offline IC mechanism (IDC-Alg3)", iterative_construction, epsilon, 400_000, "mechanism")


@register("iterative_construction_exact_answers")
def _case_ic_exact(epsilon=1.0):
    from ...broken.idc import iterative_construction_exact_answers
    return _ic_case("offline IC with exact measurements", iterative_construction_exact_answers, epsilon, 20_000,
                    "control")
