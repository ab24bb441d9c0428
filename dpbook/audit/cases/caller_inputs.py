"""Audit cases: what the caller hands a mechanism besides the data — a query callable, an adaptive analyst, a
graph object (chapters 11, 14 and 16).

Each broken twin reproduces a call the API once accepted and released more than it claimed; its fixed mechanism
is audited on the same (or the tightest legal) pair:

* a smooth-query callable that reduces (``lambda Z: Z[0, 0]``): the mean was over whatever it returned, so one row
  moved the answer by ``2B`` instead of ``2B/n``.  Fixed: the shape is checked on public rows, and a callable the
  library did not build is evaluated row by row — the fixed case uses ``lambda Z: np.full(len(Z), Z[0, 0])``,
  which has the right shape but copies row 0 into every row;
* an adaptive analyst (:class:`~dpbook.idc.AdversarialStream`) shown the true answers: the queries asked were a
  function of the data.  Fixed: the stream sees only what was released, and its reference database is fixed in
  advance (the same on both neighbours);
* a :class:`~dpbook.graphs.GraphDatabase` that validated nothing (a pair of weight 5).  Fixed: the constructor
  refuses it; the tightest legal pair through the class constructor is weight 1 vs 0.
"""
from __future__ import annotations

import math

import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import


# --- a query callable that reduces (chapter 16) ----------------------------------------------------------

_N_SMOOTH = 100
_PAIR_SMOOTH = (f"n = {_N_SMOOTH} rows of [-1,1], row 0 = 1 vs -1, the other rows 0 (replace-one); one query "
                "callable, B = 1")


def _rows(first):
    X = np.zeros((_N_SMOOTH, 1))
    X[0, 0] = first
    return X


def _per_query_sampler(fn, query, first, epsilon):
    X = _rows(first)
    return lambda trials, rng: fn(X, [query], epsilon=epsilon, trials=trials, rng=rng).answers[:, 0]


@register("per_query_laplace_unchecked_shape")
def _case_per_query_unchecked(epsilon=1.0):
    """``lambda Z: Z[0, 0]`` averaged as if it were n values: the answer is row 0's value, ±1, under noise
    ``Lap(2/(nε)) = Lap(0.02/ε)``: true loss ``nε = 100ε`` (the audit shows its sample-size ceiling)."""
    from ...broken.smooth import per_query_laplace_unchecked_shape
    one_entry = lambda Z: Z[0, 0]                                       # noqa: E731  (the hostile callable)
    fn = per_query_laplace_unchecked_shape
    return AuditCase("per-query Laplace averaging whatever the callable returns (Z[0, 0])",
                     f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _per_query_sampler(fn, one_entry, 1.0, epsilon), _per_query_sampler(fn, one_entry, -1.0, epsilon),
                     {"answer >= 0": lambda y: y >= 0}, 20_000, _PAIR_SMOOTH, "control", _N_SMOOTH * epsilon)


@register("per_query_laplace_row_by_row")
def _case_per_query_row_by_row(epsilon=1.0):
    """The fixed mechanism on a callable with the right shape that copies row 0 into every row
    (``np.full(len(Z), Z[0, 0])``): evaluated row by row, the mean moves by ``2/n``, the noise is ``Lap(2/(nε))``;
    on S = {answer >= 1/n} the ratio is exactly ``e^ε``."""
    from ...smooth import per_query_laplace
    copy_row0 = lambda Z: np.full(len(Z), Z[0, 0])                     # noqa: E731
    return AuditCase("per-query Laplace, a callable that copies row 0 (evaluated row by row)",
                     "dpbook.smooth.per_query_laplace", epsilon, 0.0,
                     _per_query_sampler(per_query_laplace, copy_row0, 1.0, epsilon),
                     _per_query_sampler(per_query_laplace, copy_row0, -1.0, epsilon),
                     {"answer >= 1/n": lambda y: y >= 1.0 / _N_SMOOTH}, 400_000, _PAIR_SMOOTH, "mechanism", epsilon)


# --- an adaptive analyst shown the data (chapter 11) --------------------------------------------------------

_IDC_N = 100
_PAIR_STREAM = ("x=(83,17) vs x'=(82,17), public n=100, workload {count of element 0, count of element 1}, MW "
                "rule α=0.2, c=1, β=1 (threshold 0.33: the score sits at it); the adversarial analyst, one round")


def _stream_sampler(fn, x, epsilon):
    from ...idc import AdversarialStream, MultiplicativeWeightsIDC
    W = np.eye(2)
    reference = np.array([83, 17])                   # the analyst's side knowledge, fixed before the run

    def sample(trials, rng):
        rel = fn(x, MultiplicativeWeightsIDC(2, 0.2), AdversarialStream(W, 1, reference=reference), epsilon=epsilon,
                 delta=0.0, beta=1.0, n=_IDC_N, c=1, trials=trials, rng=rng)
        return np.column_stack([rel.queries[:, 0], rel.updated[:, 0], rel.answers[:, 0]])
    return sample


_STREAM_EVENTS = {"round 1 asks query 1": lambda y: y[:, 0] == 1,
                  "round 1 updates": lambda y: y[:, 1] > 0,
                  "update released, answer <= 0.825": lambda y: (y[:, 1] > 0) & (y[:, 2] <= 0.825)}


def _stream_case(name, fn, epsilon, trials, kind):
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _stream_sampler(fn, np.array([83, 17]), epsilon), _stream_sampler(fn, np.array([82, 17]), epsilon),
                     _STREAM_EVENTS, trials, _PAIR_STREAM, kind, math.inf if kind == "control" else None)


@register("online_idc_sv_stream_sees_data")
def _case_stream_sees_data(epsilon=1.0):
    """The old loop: the analyst's errors are computed from ``Q(D)`` of the database being run, so with the
    uniform hypothesis round 1 asks query 0 on ``x`` (errors 0.33 and 0.33: a tie, the first index) and query 1
    on ``x'`` (errors 0.32 and 0.33)."""
    from ...broken.idc import online_idc_sv_stream_sees_data
    return _stream_case("online IDC (Alg1-SV), the adversarial stream shown the true answers",
                        online_idc_sv_stream_sees_data, epsilon, 20_000, "control")


@register("online_idc_sv_adversarial_stream")
def _case_stream_sees_release(epsilon=1.0):
    """The fixed loop: the analyst sees the released transcript and its fixed reference only, so it asks the same
    query on both neighbours; only the sparse-vector test and the Laplace answer touch the data."""
    from ...idc import online_idc_sv
    return _stream_case("online IDC (Alg1-SV), the adversarial stream shown only the release", online_idc_sv,
                        epsilon, 200_000, "mechanism")


# --- a graph object that validated nothing (chapter 14) -----------------------------------------------------

_PAIR_GRAPH_5 = "3 vertices: pair {0,1} of weight 5 vs 0 (built without validation), the other pairs 0"
_PAIR_GRAPH_1 = ("3 vertices: pair {0,1} of weight 1 vs 0, both built by the GraphDatabase constructor (weight 5 "
                 "is refused), the other pairs 0")


@register("graph_randomized_response_unvalidated")
def _case_graph_unvalidated(epsilon=1.0):
    """Weight 5 against 0 under ``Lap(1/ε)``: on S = {ŵ_01 >= 5} the ratio is ``e^{5ε}``."""
    from ...broken.graphs import graph_randomized_response_unvalidated as fn
    s = lambda w: (lambda t, rng: fn(3, [w, 0.0, 0.0], epsilon=epsilon, trials=t, rng=rng).weights[:, 0])
    return AuditCase("graph randomized response on an unvalidated graph (weight 5)", f"{fn.__module__}.{fn.__name__}",
                     epsilon, 0.0, s(5.0), s(0.0), {"ŵ_01 >= 5": lambda y: y >= 5.0}, 200_000, _PAIR_GRAPH_5,
                     "control", 5 * epsilon)


@register("graph_randomized_response_class_constructor")
def _case_graph_class(epsilon=1.0):
    """The class constructor refuses weight 5; the largest legal weight, 1 vs 0, gives ratio ``e^ε`` on
    S = {ŵ_01 >= 1}."""
    from ...graphs import GraphDatabase, graph_randomized_response
    s = lambda w: (lambda t, rng: graph_randomized_response(GraphDatabase(3, np.array([w, 0.0, 0.0])), epsilon=epsilon,
                                                            trials=t, rng=rng).weights[:, 0])
    return AuditCase("graph randomized response, graph from the GraphDatabase constructor",
                     "dpbook.graphs.graph_randomized_response", epsilon, 0.0, s(1.0), s(0.0),
                     {"ŵ_01 >= 1": lambda y: y >= 1.0}, 400_000, _PAIR_GRAPH_1, "mechanism", epsilon)
