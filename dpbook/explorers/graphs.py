"""Chapter 14's widgets: randomized response on a graph, and the two online IDCs on cut queries.

Graphs are drawn with matplotlib directly (vertices on a circle), so networkx is not needed at run time.
"""
from __future__ import annotations

import numpy as np

from ..graphs import (adjacency_from_weights, cut_norm_exact, graph_randomized_response, planted_partition,
                      random_cuts, random_graph)
from ..idc import FixedStream, FriezeKannanIDC, MultiplicativeWeightsIDC, drive_with_oracle, online_idc_sv
from ..plots import (BOUND, EMPIRICAL, EXTRA, HISTOGRAM, TRUTH, UNIFORM, legend_outside, new_figure,
                     reference_curve, reference_line)
from ._layout import fixed_figure
from ..theory.graphs import gru_cut_error_bound, rr_cut_error_bound
from ..validation import check_beta, check_epsilon, check_int, check_probability, check_real, check_real_array

__all__ = ["explore_randomized_response", "explore_online", "figure_graph", "figure_rr_cut_error", "figure_lp",
           "figure_two_graphs", "figure_cut_norm_sandwich", "figure_online", "figure_ic"]


def _circle_layout(V: int) -> np.ndarray:
    """Vertex positions on the unit circle, ``(V, 2)``, vertex 0 at the top, clockwise."""
    angle = np.pi / 2 - 2 * np.pi * np.arange(V) / V
    return np.column_stack([np.cos(angle), np.sin(angle)])


# vertices: a highlighted set (one side of a cut) in an EXTRA colour, the others slate; no role colour is a vertex
HIGHLIGHT, VERTEX = EXTRA[3], EXTRA[4]


def _adjacency(name, adjacency) -> np.ndarray:
    """A square, finite ``(V, V)`` matrix with ``V >= 2`` (ValueError / TypeError naming ``name``)."""
    A = check_real_array(name, adjacency)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] < 2:
        raise ValueError(f"{name} must be a square (V, V) adjacency matrix with V >= 2, got shape {A.shape}")
    return A


def _vertex_mask(highlight, V) -> np.ndarray | None:
    """``highlight`` as a boolean mask over the ``V`` vertices (None stays None)."""
    if highlight is None:
        return None
    mask = np.asarray(highlight)
    if mask.dtype != bool or mask.shape != (V,):
        raise ValueError(f"highlight must be a boolean mask over the {V} vertices, got {mask.dtype} {mask.shape}")
    return mask


def _draw_graph(ax, A, *, color=TRUTH, title=None, highlight=None, lw=0.8, ls="-"):
    """Draw the pairs with ``A > 1/2`` (a validated square matrix) as straight lines between vertices on a circle,
    by default in the truth colour (a true graph; pass ``color`` for a released one); ``highlight``: a boolean mask
    of vertices drawn in :data:`HIGHLIGHT` (olive), e.g. one side of a cut, the others in :data:`VERTEX`."""
    V = A.shape[0]
    pos = _circle_layout(V)
    u, v = np.nonzero(np.triu(A > 0.5, 1))
    from matplotlib.collections import LineCollection
    ax.add_collection(LineCollection(np.stack([pos[u], pos[v]], axis=1), colors=color, linewidths=lw, alpha=0.6,
                                     linestyles=ls))
    colours = np.where(highlight, HIGHLIGHT, VERTEX) if highlight is not None else VERTEX
    ax.scatter(pos[:, 0], pos[:, 1], s=max(6, 400 / V), c=colours, zorder=3)
    ax.set_aspect("equal")
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.15, 1.15)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax


def explore_randomized_response(epsilon=1.0, num_vertices=10, density=0.5, beta=0.05, *, trials=40, seed=2026):
    """Chapter 14, IDC §6.1: randomized response on a random graph ``G(V, p)``.

    Left panel: the graph and one release on one circle — pairs that are edges of both in black, true edges the
    release lost (``ŵ ≤ 1/2``) black dotted, pairs the release added (``ŵ > 1/2``, no edge) purple.  Right: the largest error over
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

    fig, (graphs, ax) = fixed_figure(2, width=10, height=5.2, left=0.1, right=0.3, bottom=1.9, top=0.62, wspace=0.8,
                                     gridspec_kw=dict(width_ratios=(0.8, 1)))
    A, R = g.adjacency() > 0.5, adjacency_from_weights(noisy.weights[0], V) > 0.5
    _draw_graph(graphs, A & R, lw=1.2)
    _draw_graph(graphs, A & ~R, lw=1.2, ls=":")
    _draw_graph(graphs, R & ~A, color=HISTOGRAM, lw=1.2)
    graphs.set_title(f"G({V}, {density:.3g}), {g.num_edges} edges,\nand one release (ε={epsilon:.3g})")
    from matplotlib.lines import Line2D
    graphs.legend([Line2D([], [], color=TRUTH), Line2D([], [], color=TRUTH, ls=":"), Line2D([], [], color=HISTOGRAM)],
                  ["edge, kept (ŵ > 1/2)", "edge, lost (ŵ ≤ 1/2)", "no edge, added"],
                  loc="upper left", bbox_to_anchor=(0.0, 0.0), borderaxespad=0.0)
    ax.hist(err, bins=20, color=EMPIRICAL, alpha=0.6, label="max error over all cuts")
    ax.axvline(bound, color=BOUND, label="bound, all cuts (IDC §6.1, E5)")
    ax.axvline(bound_disjoint, color=BOUND, ls="--", label="paper's bound (disjoint cuts)")
    ax.axvline(g.N, color=UNIFORM, ls="--", label="½ on every pair (ignores the data): C(V,2)")
    ax.set_xlabel("max error over all cuts (edges)")
    ax.set_ylabel("releases")
    ax.set_title(f"{trials} releases, β={beta:.3g}")
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, -0.2), borderaxespad=0.0)
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
    colours, markers = {"MW": EMPIRICAL, "FK": EXTRA[1]}, {"MW": "o", "FK": "^"}
    floor = 0.05                                       # log axis: an error below the floor is drawn at the floor
    fig, (left, right) = new_figure(2, width=9.6, height=5.4)
    fig.get_layout_engine().set(h_pad=0.08)          # room under the two-line legend entries
    for name in chosen:
        run = drive_with_oracle(rules[name], x, W, max_updates=2000)
        left.plot(np.arange(run.max_errors.size), run.max_errors * n, color=colours[name],
                  label=f"{name}: {run.updates} updates (B = {rules[name].bound():.3g})")
        rel = online_idc_sv(x, rules[name], FixedStream(W), epsilon=epsilon, delta=0.0, c=c, rng=rng)
        right.plot(np.arange(1, m + 1), np.maximum(rel.errors(x).per_query[0] * n, floor), markers[name], ms=4.5,
                   color=colours[name], alpha=0.8, ls="none",
                   label=f"{name}: {rel.updates} updates, max {rel.errors(x).max[0] * n:.3g}")
    left.axhline(alpha * n, color=BOUND, ls="--", label="α (counts)")
    left.set_xlabel("updates (oracle shows the worst cut, exact answer)")
    left.set_ylabel("max cut error (edges)")
    left.set_title(f"planted partition, V={V}, |E|={n}, N={g.N}")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    true = W.counts(x)
    rr = np.median(np.abs(graph_randomized_response(g, epsilon=epsilon, trials=10, rng=rng).counts(W) - true).max(axis=1))
    reference_line(right, rr, role="histogram",
                   label=f"randomized response, same ε:\nmax over queries {rr:.3g} (median of 10)")
    half = np.abs(W.counts(np.full(g.N, 0.5)) - true).max()
    reference_line(right, half, label=f"½ on every pair (ignores the data):\nmax over queries {half:.3g}")
    right.set_yscale("log")
    right.minorticks_off()                               # decades only: fewer artists, a faster redraw
    right.set_ylim(bottom=0.7 * floor)
    right.set_xlabel("query")
    right.set_ylabel(f"|error| of each answer (edges, ≥ {floor:g})")
    right.set_title(f"IDC-Alg1-SV, ε={epsilon:.3g}, δ=0, c={c}")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


# --------------------------------------------------------------------------- the chapter's figures

def _positive_1d(name, values) -> np.ndarray:
    arr = check_real_array(name, values)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be a non-empty 1-D array of finite non-negative numbers")
    return arr


def _same_length(**arrays) -> None:
    sizes = {name: len(a) for name, a in arrays.items()}
    if len(set(sizes.values())) != 1:
        raise ValueError(f"{', '.join(sizes)} must have the same length, got {sizes}")


def figure_graph(adjacency, *, highlight=None, title=None):
    """Chapter 14, IDC §2: one graph on a circle (pairs with weight > 1/2, in the truth colour); ``highlight``: a
    boolean vertex mask drawn olive (e.g. one side of a cut), the other vertices slate."""
    A = _adjacency("adjacency", adjacency)
    fig, ax = new_figure(1, width=5.2, height=4.6)
    _draw_graph(ax, A, highlight=_vertex_mask(highlight, A.shape[0]), title=None if title is None else str(title))
    return fig


def figure_rr_cut_error(sizes_exact, q95_exact, sizes_heuristic, mean_heuristic, half, *, epsilon=1.0, beta=0.05):
    """Chapter 14, IDC §6.1: the max error over all cuts of randomized response against ``|V|`` (log-log): the
    exact 95% quantile at ``sizes_exact``, the local-search mean at ``sizes_heuristic``, the all-cuts bound and the
    reconstructed disjoint-cut bound at ``β``, and the measured max error of ½ on every pair on the same graphs
    (``half``, one per size, grey dashed)."""
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    Ve, qe = _positive_1d("sizes_exact", sizes_exact), _positive_1d("q95_exact", q95_exact)
    Vh, mh = _positive_1d("sizes_heuristic", sizes_heuristic), _positive_1d("mean_heuristic", mean_heuristic)
    _same_length(sizes_exact=Ve, q95_exact=qe)
    _same_length(sizes_heuristic=Vh, mean_heuristic=mh)
    Vs = np.concatenate([Ve, Vh]).astype(int)
    half = _positive_1d("half", half)
    _same_length(sizes=Vs, half=half)
    fig, ax = new_figure(1, width=9.6, height=4.6)
    ax.plot(Ve, qe, "o", color=EMPIRICAL, label="measured, exact (95% quantile)")
    ax.plot(Vh, mh, "o", mfc="none", color=EMPIRICAL, label="measured, local search (mean of 3)")
    ax.plot(Vs, [rr_cut_error_bound(V, epsilon, beta) for V in Vs], "-", color=BOUND, label=f"bound, all cuts (β={beta:g})")
    ax.plot(Vs, [gru_cut_error_bound(V, epsilon, beta) for V in Vs], "--", color=BOUND, label="bound, disjoint cuts")
    reference_curve(ax, Vs, half, label="½ on every pair (measured)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.minorticks_off()
    ax.set_xticks(Vs, [str(v) for v in Vs])
    ax.set_xlabel("|V|")
    ax.set_ylabel("max error over all cuts (edges)")
    ax.set_title(f"randomized response for graphs, ε = {epsilon:g}")
    legend_outside(ax)
    return fig


def figure_lp(history, errors, *, trivial):
    """Chapter 14, IDC-Lem6.2: left, the cutting-plane LP's value ``z`` and the exact oracle's answer per iteration
    (``history``: ``(z, oracle value)`` pairs); right, the max error over all cuts of the noisy pairs, the synthetic
    graph and its rounding (``errors``: three numbers, edges) against ½ on every pair (``trivial``, grey dashed)."""
    hist = check_real_array("history", history)
    if hist.ndim != 2 or hist.shape[1] != 2 or hist.shape[0] == 0:
        raise ValueError(f"history must be a non-empty list of (LP value, oracle value) pairs, got shape {hist.shape}")
    errors = _positive_1d("errors", errors)
    if errors.size != 3:
        raise ValueError(f"errors must hold 3 numbers (noisy, synthetic, rounded), got {errors.size}")
    fig, (a1, a2) = new_figure(2, width=9.6, height=4.6)
    it = np.arange(1, len(hist) + 1)
    a1.plot(it, hist[:, 1], "o-", color=EMPIRICAL, label="oracle: max |W − Â| over all cuts")
    a1.plot(it, hist[:, 0], "s-", color=EXTRA[1], label="LP value z (cuts found so far)")
    a1.set_xlabel("LP iteration")
    a1.set_ylabel("max |W − Â| (edges)")
    a1.set_title("cutting planes, exact oracle")
    legend_outside(a1, where="below")
    a2.bar(["noisy Â", "synthetic W", "rounded"], errors, color=[HISTOGRAM, EMPIRICAL, EXTRA[1]])
    reference_line(a2, check_int("trivial", trivial, low=1), label="½ on every pair")
    a2.set_ylabel("max error over all cuts (edges)")
    a2.set_title("against the true graph (exact)")
    legend_outside(a2, where="below")
    return fig


def figure_two_graphs(left, right, *, highlight=None, titles=("true graph", "released graph"),
                      highlight_label="highlighted vertices"):
    """Two graphs on circles side by side (pairs with weight > 1/2), the left (the true graph) in black and the
    right in an extra colour; ``highlight``: a boolean vertex mask drawn olive on both (e.g. one side of a cut),
    named ``highlight_label`` in the one-line key below the panels."""
    A, B = _adjacency("left", left), _adjacency("right", right)
    if A.shape != B.shape:
        raise ValueError(f"left {A.shape} and right {B.shape} must be adjacency matrices of one size")
    highlight = _vertex_mask(highlight, A.shape[0])
    if isinstance(titles, str) or len(titles) != 2:
        raise ValueError(f"titles must hold 2 strings, got {titles!r}")
    fig, axes = new_figure(2, width=9.0, height=4.9)
    _draw_graph(axes[0], A, highlight=highlight, title=titles[0])
    _draw_graph(axes[1], B, highlight=highlight, color=EXTRA[0], title=titles[1])
    from matplotlib.lines import Line2D
    key = [(Line2D([], [], color=TRUTH), "true edges"), (Line2D([], [], color=EXTRA[0]), "released edges")]
    if highlight is not None:
        key += [(Line2D([], [], color=HIGHLIGHT, marker="o", ls="none"), str(highlight_label)),
                (Line2D([], [], color=VERTEX, marker="o", ls="none"), "other vertices")]
    fig.legend(*zip(*key), loc="outside lower center", ncols=len(key), columnspacing=1.0, handlelength=1.5)
    return fig


def figure_cut_norm_sandwich(ratios, real):
    """Chapter 14, IDC §6.2 Eq. (4): left, ``σ₁ / exact normalised cut norm`` of random sign matrices against
    ``|V|`` (``ratios``: ``{V: array}``) with ``ln |V|``; right, the local-search lower bound and ``σ₁`` upper bound
    of the normalised cut norm on real graphs (``real``: ``{name: (lower, upper)}``)."""
    if not isinstance(ratios, dict) or not ratios or not isinstance(real, dict) or not real:
        raise TypeError("ratios and real must be non-empty dicts ({V: ratios}, {name: (lower, upper)})")
    sizes = np.array(sorted(ratios), dtype=float)
    fig, (a1, a2) = new_figure(2, width=9.6, height=4.8)
    for V in sorted(ratios):
        r = _positive_1d(f"ratios[{V}]", ratios[V])
        a1.plot([V] * r.size, r, "o", color=EMPIRICAL, alpha=0.6, ms=5)
    a1.plot([], [], "o", color=EMPIRICAL, label="measured σ1 / cut norm")
    a1.plot(sizes, np.log(sizes), "-", color=BOUND, label="ln |V| (Nikiforov's factor)")
    a1.axhline(1.0, color=EXTRA[3], ls=":", label="σ1 = cut norm")
    a1.set_xlabel("|V|")
    a1.set_ylabel("σ1 / normalised cut norm")
    a1.set_title("random sign matrices")
    legend_outside(a1, where="below")
    x = np.arange(len(real))
    a2.bar(x - 0.2, [v[0] for v in real.values()], 0.4, color=EMPIRICAL, label="local search (lower)")
    a2.bar(x + 0.2, [v[1] for v in real.values()], 0.4, color=BOUND, label="σ1 (upper)")
    a2.set_xticks(x, list(real))
    a2.set_ylabel("normalised cut norm of A − density")
    a2.set_title("the sandwich on real graphs")
    legend_outside(a2, where="below")
    return fig


def figure_online(rows, *, num_pairs, epsilon, c, m):
    """Chapter 14, IDC-Rem4.11/5.3: left, updates until α-accurate under the worst-case oracle (MW, FK, their
    bounds, and where FK's bound drops below MW's); right, the max error of private IDC-Alg1-SV runs (pure ε) next to
    randomized response at the same ε and ½ on every pair.  ``rows``: one dict per graph with keys ``n``, ``mw``,
    ``fk``, ``B_mw``, ``B_mw_set``, ``B_fk``, ``priv`` (``{"MW"|"FK": (errors, updates, threshold)}``), ``rr``
    (``{epsilon: error}``) and ``half``.  ``num_pairs`` is the universe size ``N`` (vertex pairs), ``c`` the runs'
    update cap and ``m`` the number of cut queries each run answered (the right panel's y label)."""
    import math
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, dict) for r in rows):
        raise TypeError("rows must be a non-empty list of dicts (one per graph)")
    N = check_int("num_pairs", num_pairs, low=2)
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, low=1)
    m = check_int("m", m, low=1)
    if not all(isinstance(r.get("rr"), dict) and epsilon in r["rr"] for r in rows):
        raise ValueError(f"epsilon ({epsilon!r}) must be a key of every row's 'rr' (randomized response at that ε)")
    E = np.array([r["n"] for r in rows], dtype=float)
    fig, (a1, a2) = new_figure(2, width=9.6, height=6.4)
    mw = np.array([r["mw"] for r in rows], dtype=float)             # log axis: zero updates drawn at 0.5, open
    a1.plot(E, np.where(mw > 0, mw, np.nan), "o", color=EMPIRICAL, label="MW, measured")
    a1.plot(E[mw == 0], np.full((mw == 0).sum(), 0.5), "v", color=EMPIRICAL, mfc="none", label="MW: 0 (at 0.5)")
    a1.plot(E, [r["fk"] for r in rows], "s", color=EXTRA[1], label="FK, measured")
    a1.plot(E, [r["B_mw"] for r in rows], "-", color=BOUND, label="MW bound 4 ln N/α²")
    a1.plot(E, [r["B_mw_set"] for r in rows], ":", color=BOUND, label="MW bound 4 ln(N/|E|)/α²")
    a1.plot(E, [r["B_fk"] for r in rows], "--", color=BOUND, label="FK bound N/(|E|α²)")
    a1.axvline(N / (4 * math.log(N)), color=EXTRA[3], lw=1, label="FK bound < MW bound →")
    a1.set_yscale("log")
    a1.minorticks_off()                                  # decades only: fewer artists, a faster draw
    a1.set_ylim(0.3, 3e4)
    a1.set_xlabel("|E|")
    a1.set_ylabel("updates until α-accurate")
    a1.set_title("worst-case oracle")
    legend_outside(a1, where="below")
    a2.plot(E, [np.median(r["priv"]["MW"][0]) for r in rows], "o", color=EMPIRICAL, label="MW online (median)")
    a2.plot(E, [np.median(r["priv"]["FK"][0]) for r in rows], "s", color=EXTRA[1], label="FK online (median)")
    a2.plot(E, [r["rr"][epsilon] for r in rows], "^-", color=HISTOGRAM, label="randomized response (median)")
    reference_curve(a2, E, [r["half"] for r in rows], label="½ on every pair")
    a2.set_yscale("log")
    a2.minorticks_off()
    a2.set_xlabel("|E|")
    a2.set_ylabel(f"max error over {m} cuts (edges)")
    a2.set_title(f"private, ε = {epsilon:g}, δ = 0, c = {c}")
    legend_outside(a2, where="below")
    return fig


def figure_ic(epsilons, ic_median, rr_error, lp_error, uniform_error, ic_bound, *, num_pairs, title=""):
    """Chapter 14, IDC-Cor7.4: the max error over all cuts against ε (log-log) of the offline IC (median), randomized
    response, the LP synthetic graph, the uniform graph with ``|E|`` edges (IC's start), the IC bound, and ½ on
    every pair (``num_pairs``, grey dashed)."""
    eps = _positive_1d("epsilons", epsilons)
    arrays = dict(ic_median=_positive_1d("ic_median", ic_median), rr_error=_positive_1d("rr_error", rr_error),
                  lp_error=_positive_1d("lp_error", lp_error), ic_bound=_positive_1d("ic_bound", ic_bound))
    _same_length(epsilons=eps, **arrays)
    N = check_int("num_pairs", num_pairs, low=1)
    uniform_error = check_real("uniform_error", uniform_error, low=0.0)
    fig, ax = new_figure(1, width=9.6, height=4.8)
    ax.plot(eps, arrays["ic_median"], "o-", color=EMPIRICAL, label="IC (MW), median")
    ax.plot(eps, arrays["rr_error"], "s--", color=HISTOGRAM, label="randomized response")
    ax.plot(eps, arrays["lp_error"], "^--", color=EXTRA[1], label="LP synthetic graph")
    ax.axhline(float(uniform_error), color=EXTRA[3], ls=(0, (3, 2)), lw=2.2, zorder=4,      # on top: IC may sit on it
               label="uniform graph, |E| edges (IC's start)")
    ax.plot(eps, arrays["ic_bound"], "-", color=BOUND, label="IC bound (Cor 7.4)")
    reference_line(ax, N, label="½ on every pair: C(|V|,2)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.minorticks_off()
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.set_xlabel("ε (pure DP)")
    ax.set_ylabel("max error over all cuts (edges)")
    ax.set_title(title)
    legend_outside(ax)
    return fig


# --------------------------------------------------------------------------- valid calls for the bad-input sweep

def _example_online_rows():
    priv = {"MW": (np.array([8.0, 9.0]), 0.0, 50.0), "FK": (np.array([20.0]), 1.0, 50.0)}
    return [dict(n=n, mw=mw, fk=5, B_mw=100.0, B_mw_set=50.0, B_fk=80.0, rr={16.0: 3.0}, half=20.0, priv=priv)
            for n, mw in ((40, 7), (80, 0))]


def _declare_examples():
    from ..contract import example
    K4 = np.ones((4, 4)) - np.eye(4)
    corners = np.array([True, False, False, True])
    example(figure_graph, lambda: dict(adjacency=K4, highlight=corners, title="K4"))
    example(figure_rr_cut_error, lambda: dict(sizes_exact=np.array([6.0, 8.0]), q95_exact=np.array([20.0, 30.0]),
                                              sizes_heuristic=np.array([16.0]), mean_heuristic=np.array([70.0]),
                                              half=np.array([4.0, 6.0, 25.0]), epsilon=1.0, beta=0.05))
    example(figure_lp, lambda: dict(history=np.array([[0.0, 36.0], [19.0, 19.0]]), errors=np.array([27.3, 21.8, 24.0]),
                                    trivial=66))
    example(figure_two_graphs, lambda: dict(left=K4, right=np.zeros((4, 4)), highlight=corners))
    example(figure_cut_norm_sandwich, lambda: dict(ratios={4: np.array([1.1, 1.2]), 6: np.array([1.3])},
                                                   real={"a": (1.0, 2.0)}))
    example(figure_online, lambda: dict(rows=_example_online_rows(), num_pairs=780, epsilon=16.0, c=8, m=300))
    example(figure_ic, lambda: dict(epsilons=np.array([1.0, 2.0]), ic_median=np.array([6.9, 6.8]),
                                    rr_error=np.array([16.0, 12.0]), lp_error=np.array([12.0, 11.0]), uniform_error=6.86,
                                    ic_bound=np.array([900.0, 450.0]), num_pairs=28))


_declare_examples()
