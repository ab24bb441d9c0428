"""Chapter 14's widgets: randomized response on a graph, and the two online IDCs on cut queries.

Graphs are drawn with matplotlib directly (vertices on a circle), so networkx is not needed at run time.
"""
from __future__ import annotations

import numpy as np

from ..graphs import (adjacency_from_weights, cut_norm_exact, graph_randomized_response, planted_partition,
                      random_cuts, random_graph)
from ..idc import FixedStream, FriezeKannanIDC, MultiplicativeWeightsIDC, drive_with_oracle, online_idc_sv
from ..plots import BOUND, EMPIRICAL, EXTRA, new_figure, reference_line
from ._layout import fixed_figure
from ..theory.graphs import gru_cut_error_bound, rr_cut_error_bound
from ..validation import check_beta, check_epsilon, check_int, check_probability

__all__ = ["circle_layout", "draw_graph", "explore_randomized_response", "explore_online"]


def circle_layout(num_vertices) -> np.ndarray:
    """Vertex positions on the unit circle, ``(V, 2)``, vertex 0 at the top, clockwise."""
    V = check_int("num_vertices", num_vertices, low=1)
    angle = np.pi / 2 - 2 * np.pi * np.arange(V) / V
    return np.column_stack([np.cos(angle), np.sin(angle)])


def draw_graph(ax, adjacency, *, positions=None, color=EMPIRICAL, title=None, highlight=None, lw=0.8):
    """Draw the pairs with ``adjacency > 1/2`` as straight lines between vertices on a circle (``highlight``: a
    boolean mask of vertices drawn in the bound colour, e.g. one side of a cut)."""
    A = np.asarray(adjacency, dtype=np.float64)
    V = A.shape[0]
    pos = circle_layout(V) if positions is None else np.asarray(positions, dtype=np.float64)
    u, v = np.nonzero(np.triu(A > 0.5, 1))
    from matplotlib.collections import LineCollection
    ax.add_collection(LineCollection(np.stack([pos[u], pos[v]], axis=1), colors=color, linewidths=lw, alpha=0.6))
    colours = np.where(np.asarray(highlight, dtype=bool), BOUND, "#333333") if highlight is not None else "#333333"
    ax.scatter(pos[:, 0], pos[:, 1], s=max(6, 400 / V), c=colours, zorder=3)
    ax.set_aspect("equal")
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.15, 1.15)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def explore_randomized_response(epsilon=1.0, num_vertices=10, density=0.5, beta=0.05, *, trials=40, seed=2026):
    """Chapter 14, IDC §6.1: randomized response on a random graph ``G(V, p)``.

    Left panel: the graph (left circle) and one release, drawn as the pairs with ``ŵ > 1/2`` (right circle), side
    by side on one pair of axes so that the figure keeps two panels within 900 px.  Right: the largest error over
    all ``4^V`` cuts (exact, by enumeration) in ``trials`` releases, against the bound for all cuts (IDC-E5) and
    the paper's bound for disjoint cuts, at ``β``.  Fixed margins (no layout engine pass): a redraw is one draw.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    V = check_int("num_vertices", num_vertices, low=4, high=14)
    density = check_probability(density, "density")
    trials = check_int("trials", trials, low=5, high=2000)
    rng = np.random.default_rng(seed)
    g = random_graph(V, density, rng)
    noisy = graph_randomized_response(g, epsilon=epsilon, trials=trials, rng=rng)
    err = cut_norm_exact(noisy.adjacency() - g.adjacency()).value
    bound, bound_disjoint = rr_cut_error_bound(V, epsilon, beta), gru_cut_error_bound(V, epsilon, beta)

    fig, (graphs, ax) = fixed_figure(2, width=10, height=4.5, left=0.1, right=0.3, bottom=1.2, top=0.3, wspace=0.8,
                                     gridspec_kw=dict(width_ratios=(1.6, 1)))
    circle, shift = circle_layout(V), 1.3              # two unit circles, centres 2.6 apart
    draw_graph(graphs, g.adjacency(), positions=circle - [shift, 0])
    draw_graph(graphs, adjacency_from_weights(noisy.weights[0], V), positions=circle + [shift, 0], color=EXTRA[3])
    graphs.set_xlim(-shift - 1.15, shift + 1.15)
    graphs.set_ylim(-1.15, 1.6)
    for x, title in ((-shift, f"G({V}, {density:.3g}): {g.num_edges} edges"),
                     (shift, f"one release (ε={epsilon:.3g}),\npairs with ŵ > 1/2")):
        graphs.text(x, 1.2, title, ha="center", va="bottom", fontsize=10)
    ax.hist(err, bins=20, color=EMPIRICAL, alpha=0.6, label="max error over all cuts")
    ax.axvline(bound, color=BOUND, label="bound, all cuts (IDC §6.1, E5)")
    ax.axvline(bound_disjoint, color=BOUND, ls="--", label="paper's bound (disjoint cuts)")
    ax.axvline(g.N, color=EXTRA[3], ls=":", label="trivial (½ on every pair): C(V,2)")
    ax.set_xlabel("edges (counts)")
    ax.set_ylabel("releases")
    ax.set_title(f"{trials} releases, β={beta:.3g}")
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, -0.2), ncol=2, borderaxespad=0.0)
    return fig


def explore_online(epsilon=16.0, num_vertices=24, density=0.5, idc="both", *, alpha=0.05, m=150, c=8, seed=2026):
    """Chapter 14, IDC-Rem4.11 / Rem5.3: MW vs Frieze–Kannan on ``m`` random cut queries of a planted-partition
    graph of the given edge ``density``.

    Left: each IDC driven by the worst-case oracle (exact answers, no privacy): max error over the queries vs the
    number of updates, with its bound ``B(α)`` (MW: ``4 ln N/α²``; FK: ``N/(|E| α²)``).  Right: one private run of
    IDC-Alg1-SV per IDC under pure ε (``δ = 0``, ``c`` updates, ``ε0 = ε/(2c)``: the chapter's setting, where a run
    can update at this size), the error of each released answer (counts), against randomized response at the same
    ε (its max error, median of 10 draws) and ½ on every pair (the data-independent answer).
    """
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, low=1, high=100)
    V = check_int("num_vertices", num_vertices, low=6, high=60)
    density = check_probability(density, "density", open_low=True)
    m = check_int("m", m, low=10, high=1000)
    if idc not in ("MW", "FK", "both"):
        raise ValueError(f"idc ({idc!r}) must be 'MW', 'FK' or 'both'")
    rng = np.random.default_rng(seed)
    g = planted_partition(V, min(1.0, 1.8 * density), 0.2 * density, rng)
    x = g.histogram()
    n = max(int(x.sum()), 1)
    if x.sum() == 0:
        x = x.copy()
        x[0] = 1
    W = random_cuts(V, m, rng)
    rules = {"MW": MultiplicativeWeightsIDC(g.N, alpha), "FK": FriezeKannanIDC(g.N, alpha, n=n, sq_norm=n)}
    chosen = ["MW", "FK"] if idc == "both" else [idc]
    colours = {"MW": EMPIRICAL, "FK": EXTRA[1]}
    fig, (left, right) = new_figure(2, width=9.6, height=5.2)
    for name in chosen:
        run = drive_with_oracle(rules[name], x, W, max_updates=2000)
        left.plot(np.arange(run.max_errors.size), run.max_errors * n, color=colours[name],
                  label=f"{name}: {run.updates} updates (B = {rules[name].bound():.3g})")
        rel = online_idc_sv(x, rules[name], FixedStream(W), epsilon=epsilon, delta=0.0, c=c, rng=rng)
        right.plot(np.arange(1, m + 1), rel.errors(x).per_query[0] * n, ".", ms=3, color=colours[name],
                   label=f"{name}: {rel.updates} updates, max {rel.errors(x).max[0] * n:.3g}")
    left.axhline(alpha * n, color=BOUND, ls="--", label="α (counts)")
    left.set_xlabel("updates (oracle shows the worst cut, exact answer)")
    left.set_ylabel("max cut error (edges)")
    left.set_title(f"planted partition, V={V}, |E|={n}, N={g.N}", fontsize=10)
    left.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    true = W.counts(x)
    rr = np.median(np.abs(graph_randomized_response(g, epsilon=epsilon, trials=10, rng=rng).counts(W) - true).max(axis=1))
    reference_line(right, rr, role="baseline", label=f"randomized response, same ε: max {rr:.3g} (median of 10)")
    half = np.abs(W.counts(np.full(g.N, 0.5)) - true).max()
    reference_line(right, half, label=f"½ on every pair (ignores the data): max {half:.3g}")
    right.set_yscale("symlog", linthresh=1.0)
    right.set_ylim(bottom=0.0)
    right.set_xlabel("query")
    right.set_ylabel("|error| of each released answer (edges)")
    right.set_title(f"IDC-Alg1-SV, ε={epsilon:.3g}, δ=0, c={c}", fontsize=10)
    right.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig
