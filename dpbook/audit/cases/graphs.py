"""Audit cases: graph cuts (chapter 14)."""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import leq0

__all__: list[str] = []    # factories register themselves; nothing to import


_PAIR_EDGE = "graphs on 3 vertices: no edge vs the one edge {0,1} (edge-level add/remove)"


def _edge_pair():
    from ...graphs import graph_database
    return graph_database(np.zeros((0, 2)), 3), graph_database([[0, 1]], 3)


@register("graph_randomized_response")
def _case_graph_rr(epsilon=1.0):
    """IDC §6.1: the pair {0,1} is 0 vs 1, S = {ŵ_01 <= 0}: ratio e^ε."""
    from ...graphs import graph_randomized_response
    g, g_prime = _edge_pair()
    s = lambda G: (lambda t, rng: graph_randomized_response(G, epsilon=epsilon, trials=t, rng=rng).weights[:, 0])
    return AuditCase("graph randomized response (edge level)", "dpbook.graphs.graph_randomized_response", epsilon,
                     0.0, s(g), s(g_prime), {"ŵ_01 <= 0": leq0}, 1_000_000, _PAIR_EDGE, "mechanism", epsilon)


@register("adjacency_randomized_response")
def _case_adjacency_rr(epsilon=1.0):
    """Noise on both matrix entries of the edge at the one-entry scale: S = {Â_01 <= 0 and Â_10 <= 0},
    P = 1/4 vs (e^{-ε}/2)², ratio e^{2ε}."""
    from ...broken.graphs import adjacency_randomized_response
    g, g_prime = _edge_pair()
    s = lambda G: (lambda t, rng: adjacency_randomized_response(G, epsilon=epsilon, trials=t, rng=rng).weights[:, [1, 3]])
    return AuditCase("graph randomized response on both matrix entries",
                     "dpbook.broken.graphs.adjacency_randomized_response", epsilon, 0.0, s(g), s(g_prime),
                     {"Â_01 <= 0 and Â_10 <= 0": lambda y: (y[:, 0] <= 0) & (y[:, 1] <= 0)}, 200_000, _PAIR_EDGE,
                     "control", 2 * epsilon)
