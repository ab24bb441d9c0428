"""Audit cases: the sparse vector technique (chapter 06)."""
from __future__ import annotations

import dataclasses
import inspect
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ...broken import sparse_vector as broken
from ...sparse_vector import BOTTOM, TOP, check_stream
from ...validation import check_int
from ..catalogue import AuditCase, register

__all__ = ["StreamPair", "stream_audit_case", "halting_pair", "CATCHING_PAIRS", "CATCHING_TRIALS"]


# ------------------------------------------------------------------- worst-case stream pairs and the builder

@dataclass(frozen=True)
class StreamPair:
    """A neighbouring pair of query streams ``f`` (database D) and ``f_prime`` (D') with ``|f_i - f'_i| <= 1``
    — sensitivity-1 queries may move either way — and the events that separate the two output
    distributions.  Events take a :class:`SparseVectorRelease` of ``trials`` runs and return a boolean mask."""

    name: str
    f: np.ndarray = field(repr=False)
    f_prime: np.ndarray = field(repr=False)
    events: Mapping[str, Callable] = field(repr=False)
    c: int | None = None
    note: str = ""

    def __post_init__(self):
        f, fp = check_stream(self.f, "f"), check_stream(self.f_prime, "f_prime")
        if f.shape != fp.shape or np.max(np.abs(f - fp)) > 1:
            raise ValueError("f and f_prime must have the same length and differ by at most 1 per query")


def stream_audit_case(mechanism, pair: StreamPair, *, epsilon=2.0, delta=0.0, trials=200_000, kind=None,
                      name=None, true_epsilon=None, run_delta=None, **params) -> AuditCase:
    """A :class:`dpbook.audit.AuditCase` for ``mechanism(f, threshold=0, epsilon=..., trials=..., rng=...)`` (a ``*_stream``
    function, or a broken variant of :mod:`dpbook.broken.sparse_vector`: ``kind`` then defaults to ``"control"``)
    on the pair and its events, claiming ``(epsilon, delta)``.  ``c`` comes from the pair if it has one and the
    mechanism takes it; ``params`` go to the mechanism, and so does ``delta`` when it is not 0 (``run_delta``, when
    given, is the δ passed instead: 0 runs the pure mechanism against the (ε, δ) claim).  ``name`` defaults to
    "<mechanism> on <pair>".  Run it with ``.run(rng)``."""
    if pair.c is not None and "c" in inspect.signature(mechanism).parameters:
        params.setdefault("c", pair.c)
    run_delta = delta if run_delta is None else run_delta
    if run_delta:
        params["delta"] = run_delta
    if kind is None:
        kind = "control" if mechanism.__module__ == broken.__name__ else "mechanism"

    def sampler(f):
        return lambda t, r: mechanism(f, threshold=0.0, epsilon=epsilon, trials=t, rng=r, **params)

    return AuditCase(name or f"{mechanism.__name__} on {pair.name}", f"{mechanism.__module__}.{mechanism.__name__}",
                     epsilon, delta, sampler(pair.f), sampler(pair.f_prime), pair.events, trials, pair.name, kind,
                     true_epsilon)


def _first_bottoms(j):
    return lambda rel: np.all(rel.answers[:, :j] == BOTTOM, axis=1)


def halting_pair(j: int) -> StreamPair:
    """DR-Thm3.23's proof pattern on ``j + 1`` queries: ``j`` queries at ``τ`` (the ``⊥`` prefix) then one at ``τ``
    (D) against ``j`` at ``τ + 1`` then one at ``τ - 1`` (D'); events "halts at index i" for every i and "never
    halts" (the PA(ii) audit on the halting index)."""
    j = check_int("j", j, low=1, high=10 ** 5)           # one event (a Python closure) per query
    events = {f"halts at {i + 1}": (lambda rel, i=i: rel.answers[:, i] == TOP) for i in range(j + 1)}
    events["never halts"] = lambda rel: ~np.any(rel.answers == TOP, axis=1)
    return StreamPair(f"{j} queries at T+0/+1 then one at T+0/-1", np.zeros(j + 1), np.r_[np.ones(j), -1.0], events,
                      note="each ⊥ query moves up, the ⊤ query moves down: the proof's worst case")


def _value_event(m, u):
    def event(rel):
        last = rel.values[:, m]
        return np.all(rel.answers[:, :m] == BOTTOM, axis=1) & (rel.answers[:, m] == TOP) & (last <= u)
    return event


def _count_event(half, x):
    def event(rel):
        a = rel.answers
        return (np.sum(a[:, :half] == BOTTOM, axis=1) >= x) & (np.sum(a[:, half:] == TOP, axis=1) >= x)
    return event


#: For each broken variant, a pair and events that catch it at ε = 2 (chosen with the exact probabilities;
#: the correct mechanisms are audited on the same pairs).  Keys are the broken functions' names.
CATCHING_PAIRS = {
    "above_threshold_renoise_threshold": StreamPair(
        "24 queries at T-2 (D) vs T-1 (D')", np.full(24, -2.0), np.full(24, -1.0),
        {f"first {j} answers ⊥": _first_bottoms(j) for j in (16, 20, 24)},
        note="every ⊥ is an independent comparison: the log-ratio of 'first j ⊥' is linear in j"),
    "above_threshold_outputs_value": StreamPair(
        "8 queries at T-1/2 then T (D) vs T+1/2 then T-1 (D')", np.r_[np.full(8, -0.5), 0.0],
        np.r_[np.full(8, 0.5), -1.0], {"⊥×8 then ⊤ with value <= T+1": _value_event(8, 1.0)}, c=1,
        note="a low released value caps the secret threshold, and then each ⊥ costs up to ε/4"),
    "above_threshold_no_query_noise": StreamPair(
        "(T, T+1) (D) vs (T+1, T) (D')", np.array([0.0, 1.0]), np.array([1.0, 0.0]),
        {"(⊥, ⊤)": lambda rel: (rel.answers[:, 0] == BOTTOM) & (rel.answers[:, 1] == TOP)},
        note="(⊥, ⊤) needs T < T̂ <= T+1 on D and T+1 < T̂ <= T on D': impossible"),
    "sparse_vector_unscaled_noise": StreamPair(
        "20 queries at T (D) vs T+1 (D'), c = 20", np.zeros(20), np.ones(20),
        {f"at least {j} ⊤": (lambda rel, j=j: np.sum(rel.answers == TOP, axis=1) >= j) for j in (14, 16, 18)},
        c=20, note="20 runs at the full ε each: their losses add up"),
    "above_threshold_no_halt": StreamPair(
        "40 queries at T (D) vs 20 at T+1 and 20 at T-1 (D')", np.zeros(40), np.r_[np.ones(20), -np.ones(20)],
        {f"≥{x} ⊥ in the first 20 and ≥{x} ⊤ in the last 20": _count_event(20, x) for x in (11, 12, 13)},
        note="every answer after the first ⊤ leaks: ⊥ queries moved up, ⊤ queries moved down"),
}

#: The audit sizes (trials) that make each control's ``epsilon_lb`` clearly exceed ε = 2 in a few seconds.
CATCHING_TRIALS = {"above_threshold_renoise_threshold": 400_000, "above_threshold_outputs_value": 1_000_000,
                   "above_threshold_no_query_noise": 100_000, "sparse_vector_unscaled_noise": 200_000,
                   "above_threshold_no_halt": 200_000}


#
# Stream pairs in the style of StatDP (Ding et al. 2018) and Lyu–Su–Li (2017), threshold τ = 0, Δ = 1:
# the queries answered ⊥ move *up* on the neighbour and the one answered ⊤ moves *down*, so both the
# threshold noise (ε/2) and the ⊤ query's noise (ε/2) pay — the proof of DR-Thm3.23 is tight there.

_K_SV = 6


def _sv_pattern(bottoms, tops=1, value_at=None, value_max=None):
    """The event 'answers = (⊥^bottoms ⊤)^tops' (optionally: and the released value at ``value_at`` <= max)."""
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
    name_event = event_name or ("answers = " + "(" * (tops > 1) + "⊥" * bottoms + "⊤" + (f")^{tops}" if tops > 1 else ""))
    pair = StreamPair(f"stream f = ({', '.join(f'{v:g}' for v in f)}) vs f' = ({', '.join(f'{v:g}' for v in f_prime)}), "
                      "T = 0, Δ = 1", f, f_prime, {name_event: event or _sv_pattern(bottoms, tops)})
    case = stream_audit_case(fn, pair, epsilon=epsilon, trials=trials, kind=kind, name=name, true_epsilon=true_epsilon,
                             **kwargs)
    # the claim states δ; the draws are the mechanism's at its default δ (as the catalogue has always run them)
    return dataclasses.replace(case, delta=delta) if delta else case


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
    """Fresh threshold noise at every check: 10 queries at τ - 1 vs τ, all ⊥, loss linear in the j = 10 ⊥ (≈1.6)."""
    j = 10
    pair = StreamPair("stream of 10 queries at T-1 vs T, T = 0", np.full(j, -1.0), np.full(j, 0.0),
                      {"first 10 answers ⊥": _first_bottoms(j)})
    return stream_audit_case(broken.above_threshold_renoise_threshold, pair, epsilon=epsilon, trials=1_000_000,
                             name="AboveThreshold re-noising the threshold (LEC3-E10)")


@register("above_threshold_outputs_value")
def _case_sv_outputs_value(epsilon=1.0):
    """Releases the compared noisy value: a small value pins the threshold low, then each ⊥ costs ε/4."""
    ev = _sv_pattern(8, value_at=8, value_max=2.0)
    return _sv_case("AboveThreshold releasing the noisy value (Lyu–Su–Li Alg. 3)", broken.above_threshold_outputs_value,
                    epsilon, bottoms=8, low=-1.0, trials=2_000_000, kind="control", event=ev,
                    event_name="answers = ⊥^8 ⊤ and value <= 2")


@register("above_threshold_no_query_noise")
def _case_sv_no_query_noise(epsilon=1.0):
    """No query noise (Lyu–Su–Li Alg. 5): f = (0, 1) vs (1, 0), (⊥, ⊤) is impossible on the neighbour."""
    pair = StreamPair("f = (0, 1) vs f' = (1, 0), T = 0", np.array([0.0, 1.0]), np.array([1.0, 0.0]),
                      {"answers = ⊥⊤": _sv_pattern(1)})
    return stream_audit_case(broken.above_threshold_no_query_noise, pair, epsilon=epsilon, trials=50_000,
                             name="AboveThreshold without query noise (Lyu–Su–Li Alg. 5)", true_epsilon=math.inf)


@register("sparse_vector_unscaled_noise")
def _case_sv_unscaled(epsilon=1.0):
    """Noise not scaled with c (Lyu–Su–Li Alg. 4): c = 2 runs at ε each, (⊥^4 ⊤)^2 costs ≈ 1.7ε."""
    return _sv_case("Sparse whose noise ignores c (Lyu–Su–Li Alg. 4)", broken.sparse_vector_unscaled_noise, epsilon,
                    bottoms=4, tops=2, c=2, kind="control")


@register("above_threshold_no_halt")
def _case_sv_no_halt(epsilon=1.0):
    """Never halts (Lyu–Su–Li Alg. 6): 4 ⊥ queries up and 4 ⊤ queries down, loss grows with the count."""
    m = 4
    event = lambda r: np.all(r.answers[:, :m] == BOTTOM, axis=1) & np.all(r.answers[:, m:] == TOP, axis=1)
    pair = StreamPair("f = (0,…,0) vs f' = (1,1,1,1,-1,-1,-1,-1), T = 0", np.zeros(2 * m), np.r_[np.ones(m), -np.ones(m)],
                      {"answers = ⊥⊥⊥⊥⊤⊤⊤⊤": event})
    return stream_audit_case(broken.above_threshold_no_halt, pair, epsilon=epsilon, trials=1_000_000,
                             name="AboveThreshold that never halts (Lyu–Su–Li Alg. 6)")


# On a database the comparison is the count <q - τ, x> + ν >= ρ: with τ = 1/2, adding a row of type a moves
# the queries counting a by +1/2 and those counting b by -1/2 (half the stream pattern's shift).
_SV_Q = np.array([[1.0, 0.0]] * _K_SV + [[0.0, 1.0]])
_SV_X, _SV_X_PRIME = np.array([1, 1]), np.array([2, 1])
_PAIR_SV_DB = "x=(1,1) vs x'=(2,1), 6 queries counting element 0 then one counting element 1, T = 1/2"


def _sv_db_case(name, fn, epsilon, *, trials=1_000_000, **kwargs):
    s = lambda x: (lambda t, rng: fn(x, _SV_Q, threshold=0.5, epsilon=epsilon, trials=t, rng=rng, **kwargs))
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
