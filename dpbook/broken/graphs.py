"""Deliberately broken graph randomized response (positive control for chapter 14's audit).

Never use this to release data.
"""
from __future__ import annotations

import numpy as np

from ..graphs import GraphDatabase, NoisyGraph, graph_randomized_response, random_graph
from ..noise import laplace_noise
from ..release import Spend
from ..contract import example, mechanism_prologue

__all__ = ["adjacency_randomized_response", "graph_randomized_response_unvalidated"]


def adjacency_randomized_response(graph, *, epsilon, trials=None, rng=None) -> NoisyGraph:
    """BROKEN (privacy): adds ``Lap(1/ε)`` to **both** entries ``A_uv`` and ``A_vu`` of the adjacency matrix,
    independently, calibrated for "one entry" — but one edge is two entries of the matrix, so the L1 sensitivity of
    the released matrix is 2 and the true privacy loss is ``2ε`` (IDC §6.1 puts the noise on the ``C(V,2)`` pairs).

    Returns the ``V × V`` noisy matrices flattened row-major in ``weights`` (shape ``(V², )`` or ``(trials, V²)``),
    so an audit can look at both entries of a pair.
    """
    if not isinstance(graph, GraphDatabase):
        raise TypeError(f"graph must be a GraphDatabase, got {type(graph).__name__}")
    A = graph.adjacency().ravel()
    p = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, per_release=A.shape)
    epsilon = p.epsilon
    b = 1.0 / epsilon                                   # WRONG: one edge moves two entries, Δ1 = 2
    noisy = A + laplace_noise(b, p.shape, p.rng)
    return NoisyGraph(noisy, graph.num_vertices, "adjacency randomized response (BROKEN)",
                      "add/remove", b, (Spend("Laplace on every matrix entry (BROKEN)", epsilon),))


example(adjacency_randomized_response, lambda: dict(graph=random_graph(9, 0.4, 0), epsilon=0.7, rng=0))


def graph_randomized_response_unvalidated(num_vertices, weights, *, epsilon, trials=None, rng=None) -> NoisyGraph:
    """BROKEN (privacy): graph randomized response on a :class:`~dpbook.graphs.GraphDatabase` built the way the
    class once allowed — **without validation**: any weights (5, NaN, ±inf), any length, any ``num_vertices``.

    IDC §6.1's noise ``Lap(1/ε)`` per pair is calibrated for weights in ``[0, 1]`` (one edge moves one cell by at
    most 1).  A pair of weight 5 against 0 moves by 5: the true privacy loss is ``5ε`` (and a NaN weight gives a
    NaN release that still claims ε).  :class:`~dpbook.graphs.GraphDatabase` now validates every construction
    exactly like :func:`~dpbook.graphs.graph_database` and refuses all of these.
    """
    graph = object.__new__(GraphDatabase)                   # WRONG: skips the constructor's checks
    object.__setattr__(graph, "num_vertices", num_vertices)
    object.__setattr__(graph, "weights", np.asarray(weights, dtype=np.float64))
    object.__setattr__(graph, "name", "unvalidated graph (BROKEN)")
    rel = graph_randomized_response(graph, epsilon=epsilon, trials=trials, rng=rng)
    return NoisyGraph(rel.weights, rel.num_vertices, "graph randomized response on an "
                      "unvalidated graph (BROKEN)", rel.neighbours, rel.noise_scale, rel.ledger)


example(graph_randomized_response_unvalidated,
        lambda: dict(num_vertices=5, weights=np.array([1.0, 0, 1, 1, 0, 0, 1, 0, 1, 0]), epsilon=0.7, rng=0))
