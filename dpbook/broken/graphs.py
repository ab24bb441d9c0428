"""Deliberately broken graph randomized response (positive control for chapter 10's audit).

Never use this to release data.
"""
from __future__ import annotations

from ..graphs import GraphDatabase, NoisyGraph
from ..noise import laplace_noise
from ..release import Spend
from ..validation import mechanism_prologue

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
    A = graph.adjacency().ravel()
    p = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, per_release=A.shape)
    epsilon = p.epsilon
    b = 1.0 / epsilon                                   # WRONG: one edge moves two entries, Δ1 = 2
    noisy = A + laplace_noise(b, p.shape, p.rng)
    return NoisyGraph(noisy, graph.num_vertices, epsilon, 0.0, "adjacency randomized response (BROKEN)",
                      "add/remove", b, (Spend("Laplace on every matrix entry (BROKEN)", epsilon),))
