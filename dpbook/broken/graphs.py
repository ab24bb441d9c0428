"""Deliberately broken graph randomized response (positive control for chapter 10's audit).

Never use this to release data.
"""
from __future__ import annotations

import numpy as np

from ..graphs import GraphDatabase, NoisyGraph
from ..noise import as_generator, laplace_noise
from ..release import Spend
from ..validation import check_epsilon, check_int, check_trials

__all__ = ["adjacency_randomized_response"]


def adjacency_randomized_response(graph, *, epsilon, trials=None, rng=None) -> NoisyGraph:
    """BROKEN (privacy): adds ``Lap(1/ε)`` to **both** entries ``A_uv`` and ``A_vu`` of the adjacency matrix,
    independently, calibrated for "one entry" — but one edge is two entries of the matrix, so the L1 sensitivity of
    the released matrix is 2 and the true privacy loss is ``2ε`` (IDC §6.1 puts the noise on the ``C(V,2)`` pairs).

    Returns the ``V × V`` noisy matrices flattened row-major in ``weights`` (shape ``(V², )`` or ``(trials, V²)``),
    so an audit can look at both entries of a pair.
    """
    if not isinstance(graph, GraphDatabase):
        raise TypeError(f"graph must be a GraphDatabase, got {type(graph).__name__}")
    epsilon = check_epsilon(epsilon)
    b = 1.0 / epsilon                                   # WRONG: one edge moves two entries, Δ1 = 2
    A = graph.adjacency().ravel()
    shape = A.shape if trials is None else (check_trials(trials, A.size), A.size)
    noisy = A + laplace_noise(b, shape, as_generator(rng))
    return NoisyGraph(noisy, graph.num_vertices, epsilon, 0.0, "adjacency randomized response (BROKEN)",
                      "add/remove", b, (Spend("Laplace on every matrix entry (BROKEN)", epsilon),))
