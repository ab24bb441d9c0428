"""Audit cases: the sparse vector technique (chapter 05)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import


#
# Stream pairs in the style of StatDP (Ding et al. 2018) and Lyu–Su–Li (2017), threshold T = 0, Δ = 1:
# the queries answered ⊥ move *up* on the neighbour and the one answered ⊤ moves *down*, so both the
# threshold noise (ε/2) and the ⊤ query's noise (ε/2) pay — the proof of DR-Thm3.23 is tight there.

_K_SV = 6


def _sv_pattern(bottoms, tops=1, value_at=None, value_max=None):
    """The event 'answers = (⊥^bottoms ⊤)^tops' (optionally: and the released value at ``value_at`` <= max)."""
    from ...sparse_vector import BOTTOM, TOP
    pattern = np.array(([BOTTOM] * bottoms + [TOP]) * tops, dtype=np.int8)

    def event(r):
        hit = np.all(r.answers[:, :pattern.size] == pattern, axis=1)
        if value_at is not None:
            hit &= np.nan_to_num(r.values[:, value_at], nan=np.inf) <= value_max
        return hit
    return event


def _sv_stream(bottoms, tops=1, low=0.0):
    f = np.array(([low] * bottoms + [0.0]) * tops)
    f_prime = np.array(([low + 1.0] * bottoms + [-1.0]) * tops)
    return f, f_prime


def _sv_case(name, fn, epsilon, *, bottoms=_K_SV, tops=1, trials=1_000_000, kind="mechanism", true_epsilon=None,
             event=None, low=0.0, event_name=None, delta=0.0, **kwargs):
    f, f_prime = _sv_stream(bottoms, tops, low)
    s = lambda v: (lambda t, rng: fn(v, T=0.0, epsilon=epsilon, trials=t, rng=rng, **kwargs))
    name_event = event_name or ("answers = " + "(" * (tops > 1) + "⊥" * bottoms + "⊤" + (f")^{tops}" if tops > 1 else ""))
    pair = (f"stream f = ({', '.join(f'{v:g}' for v in f)}) vs f' = ({', '.join(f'{v:g}' for v in f_prime)}), "
            "T = 0, Δ = 1")
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, delta, s(f), s(f_prime),
                     {name_event: event or _sv_pattern(bottoms, tops)}, trials, pair, kind, true_epsilon)


@register("above_threshold_stream")
def _case_at_stream(epsilon=1.0):
    """DR-Thm3.23 on ⊥^6 ⊤ with the ⊥ queries up and the ⊤ query down: loss ≈ 0.93ε (→ ε for long streams)."""
    from ...sparse_vector import above_threshold_stream
    return _sv_case("AboveThreshold (stream)", above_threshold_stream, epsilon)


@register("sparse_vector_stream")
def _case_sparse_stream(epsilon=1.0):
    """Sparse with c = 2 runs at ε/2 each on (⊥^4 ⊤)^2: both runs pay."""
    from ...sparse_vector import sparse_vector_stream
    return _sv_case("Sparse, c=2 (stream)", sparse_vector_stream, epsilon, bottoms=4, tops=2, c=2)


@register("sparse_vector_stream_delta")
def _case_sparse_stream_delta(epsilon=0.9, delta=1e-3):
    """Sparse with δ > 0 (runs at ε/sqrt(8c ln(1/δ)), advanced composition): private, not tight for c = 2."""
    from ...sparse_vector import sparse_vector_stream
    return _sv_case(f"Sparse, c=2, δ={delta:g} (stream)", sparse_vector_stream, epsilon, bottoms=4, tops=2, c=2,
                    delta=delta, trials=1_000_000)


@register("numeric_sparse_stream")
def _case_numeric_stream(epsilon=1.0):
    """NumericSparse, c = 1: the ⊥^6 ⊤ pattern (ε1 = 8ε/9) and a large released value (ε2 share)."""
    from ...sparse_vector import numeric_sparse_stream
    ev = _sv_pattern(_K_SV)
    high = lambda r: ev(r) & (np.nan_to_num(r.values[:, _K_SV], nan=-np.inf) >= 0)
    return _sv_case("NumericSparse, c=1 (stream)", numeric_sparse_stream, epsilon, c=1, event=high,
                    event_name="answers = ⊥⊥⊥⊥⊥⊥⊤ and value >= 0")


@register("above_threshold_renoise_threshold")
def _case_sv_renoise(epsilon=1.0):
    """Fresh threshold noise at every check: 10 queries at T - 1 vs T, all ⊥, loss linear in k (≈1.6)."""
    from ...broken.sparse_vector import above_threshold_renoise_threshold
    from ...sparse_vector import BOTTOM
    k = 10
    s = lambda v: (lambda t, rng: above_threshold_renoise_threshold(np.full(k, v), T=0.0, epsilon=epsilon,
                                                                    trials=t, rng=rng))
    return AuditCase("AboveThreshold re-noising the threshold (LEC3-E10)",
                     "dpbook.broken.sparse_vector.above_threshold_renoise_threshold", epsilon, 0.0, s(-1.0), s(0.0),
                     {"first 10 answers ⊥": lambda r: np.all(r.answers[:, :k] == BOTTOM, axis=1)}, 1_000_000,
                     "stream of 10 queries at T-1 vs T, T = 0", "control", None)


@register("above_threshold_outputs_value")
def _case_sv_outputs_value(epsilon=1.0):
    """Releases the compared noisy value: a small value pins the threshold low, then each ⊥ costs ε/4."""
    from ...broken.sparse_vector import above_threshold_outputs_value
    ev = _sv_pattern(8, value_at=8, value_max=2.0)
    return _sv_case("AboveThreshold releasing the noisy value (Lyu–Su–Li Alg. 3)", above_threshold_outputs_value,
                    epsilon, bottoms=8, low=-1.0, trials=2_000_000, kind="control", event=ev,
                    event_name="answers = ⊥^8 ⊤ and value <= 2")


@register("above_threshold_no_query_noise")
def _case_sv_no_query_noise(epsilon=1.0):
    """No query noise (Lyu–Su–Li Alg. 5): f = (0, 1) vs (1, 0), (⊥, ⊤) is impossible on the neighbour."""
    from ...broken.sparse_vector import above_threshold_no_query_noise
    s = lambda v: (lambda t, rng: above_threshold_no_query_noise(np.array(v), T=0.0, epsilon=epsilon, trials=t,
                                                                 rng=rng))
    return AuditCase("AboveThreshold without query noise (Lyu–Su–Li Alg. 5)",
                     "dpbook.broken.sparse_vector.above_threshold_no_query_noise", epsilon, 0.0, s([0.0, 1.0]),
                     s([1.0, 0.0]), {"answers = ⊥⊤": _sv_pattern(1)}, 50_000, "f = (0, 1) vs f' = (1, 0), T = 0",
                     "control", math.inf)


@register("sparse_vector_unscaled_noise")
def _case_sv_unscaled(epsilon=1.0):
    """Noise not scaled with c (Lyu–Su–Li Alg. 4): c = 2 runs at ε each, (⊥^4 ⊤)^2 costs ≈ 1.7ε."""
    from ...broken.sparse_vector import sparse_vector_unscaled_noise
    return _sv_case("Sparse whose noise ignores c (Lyu–Su–Li Alg. 4)", sparse_vector_unscaled_noise, epsilon,
                    bottoms=4, tops=2, c=2, kind="control")


@register("above_threshold_no_halt")
def _case_sv_no_halt(epsilon=1.0):
    """Never halts (Lyu–Su–Li Alg. 6): 4 ⊥ queries up and 4 ⊤ queries down, loss grows with the count."""
    from ...broken.sparse_vector import above_threshold_no_halt
    from ...sparse_vector import BOTTOM, TOP
    m = 4
    s = lambda v: (lambda t, rng: above_threshold_no_halt(v, T=0.0, epsilon=epsilon, trials=t, rng=rng))
    event = lambda r: np.all(r.answers[:, :m] == BOTTOM, axis=1) & np.all(r.answers[:, m:] == TOP, axis=1)
    return AuditCase("AboveThreshold that never halts (Lyu–Su–Li Alg. 6)",
                     "dpbook.broken.sparse_vector.above_threshold_no_halt", epsilon, 0.0,
                     s(np.zeros(2 * m)), s(np.r_[np.ones(m), -np.ones(m)]), {"answers = ⊥⊥⊥⊥⊤⊤⊤⊤": event},
                     1_000_000, "f = (0,…,0) vs f' = (1,1,1,1,-1,-1,-1,-1), T = 0", "control", None)


# On a database the comparison is the count <q - T, x> + ν >= ρ: with T = 1/2, adding a row of type a moves
# the queries counting a by +1/2 and those counting b by -1/2 (half the stream pattern's shift).
_SV_Q = np.array([[1.0, 0.0]] * _K_SV + [[0.0, 1.0]])
_SV_X, _SV_X_PRIME = np.array([1, 1]), np.array([2, 1])
_PAIR_SV_DB = "x=(1,1) vs x'=(2,1), 6 queries counting element 0 then one counting element 1, T = 1/2"


def _sv_db_case(name, fn, epsilon, *, trials=1_000_000, **kwargs):
    s = lambda x: (lambda t, rng: fn(x, _SV_Q, T=0.5, epsilon=epsilon, trials=t, rng=rng, **kwargs))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, kwargs.get("delta", 0.0), s(_SV_X),
                     s(_SV_X_PRIME), {"answers = ⊥⊥⊥⊥⊥⊥⊤": _sv_pattern(_K_SV)}, trials, _PAIR_SV_DB,
                     "mechanism", None)


@register("above_threshold")
def _case_at_db(epsilon=1.0):
    from ...sparse_vector import above_threshold
    return _sv_db_case("AboveThreshold on a database", above_threshold, epsilon)


@register("sparse_vector")
def _case_sparse_db(epsilon=1.0):
    from ...sparse_vector import sparse_vector
    return _sv_db_case("Sparse on a database (c=1)", sparse_vector, epsilon, c=1)


@register("numeric_sparse")
def _case_numeric_db(epsilon=1.0):
    from ...sparse_vector import numeric_sparse
    return _sv_db_case("NumericSparse on a database (c=1)", numeric_sparse, epsilon, c=1)
