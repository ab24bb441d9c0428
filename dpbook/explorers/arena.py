"""The last chapter's arena: draw the grid that ``make arena`` stores (benchmarks/arena/results.json).

Every function here reads a results dictionary (:func:`dpbook.comparisons.arena.load_arena`, whose module also
holds the summaries drawn: medians, winners); nothing runs a mechanism, so the figures and the widget are fast.
Errors are medians over the stored trials of the per-trial max or RMS error (normalised answers); the map's
candidates are the mechanisms with the add/remove guarantee (randomized response protects one attribute only and
is never on the map).
"""
from __future__ import annotations

import math

import numpy as np

from ..comparisons.arena import METRICS, check_result, find_cell, median_error, stored_arena, winners
from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, HISTOGRAM, UNIFORM, legend_outside, new_figure, reference_line
from ..validation import check_choice, check_delta, check_epsilon, check_int
from ._layout import fixed_figure, log_minor_125

__all__ = ["figure_error_vs", "figure_time", "figure_map", "explore_arena", "COLOURS", "LABELS"]

#: one colour per mechanism on every figure of the chapter (the measured dots and the bound's line share it)
COLOURS = {"laplace": BASELINE, "gaussian": BASELINE, "histogram": HISTOGRAM, "mwem": EXTRA[0],
           "mwem_practical": EXTRA[1], "projection": EMPIRICAL, "idc_mw": EXTRA[2], "randomized_response": EXTRA[3],
           "smalldb": EXTRA[4]}
LABELS = {"laplace": "per-query Laplace", "gaussian": "per-query Gaussian (δ)", "histogram": "noisy histogram",
          "mwem": "MWEM (theorem)", "mwem_practical": "MWEM (practical)", "projection": "projection (δ)",
          "idc_mw": "online IDC, MW (δ)", "randomized_response": "randomized response", "smalldb": "SmallDB"}
SHORT = {"laplace": "Lap", "gaussian": "Gau", "histogram": "Hist", "mwem": "MWEM", "mwem_practical": "MWEMp",
         "projection": "Proj", "idc_mw": "IDC", "smalldb": "SDB"}


def _check_mechanisms(mechanisms):
    """A mechanism's name or a sequence of them, as a tuple (``TypeError`` naming ``mechanisms`` otherwise)."""
    if isinstance(mechanisms, str):
        mechanisms = (mechanisms,)
    if not isinstance(mechanisms, (tuple, list)) or not all(isinstance(m, str) for m in mechanisms):
        raise TypeError(f"mechanisms must be a mechanism's name or a sequence of them, got {mechanisms!r}")
    unknown = [m for m in mechanisms if m not in COLOURS]
    if unknown:
        raise ValueError(f"mechanisms ({unknown!r}) must be among {tuple(COLOURS)}")
    return tuple(mechanisms)


def _series(result, workload_pick, axis, fixed, mechanisms):
    """x values and per-mechanism (measured, bound) series along ``axis`` ("m", "n" or "epsilon")."""
    cells = [c for c in result["cells"] if workload_pick(c) and all(
        math.isclose(c[k], v) for k, v in fixed.items())]
    cells.sort(key=lambda c: c[axis])
    xs = [c[axis] for c in cells]
    return xs, cells


def figure_error_vs(result, axis, *, family="marginals", n=10_000, epsilon=1.0, workload="2-way marginals",
                    mechanisms=("laplace", "gaussian", "histogram", "mwem", "mwem_practical", "projection")):
    """Two panels, max error (left) and RMS error (right) against ``axis`` ("m": the workloads of ``family`` at
    ``n``, ε; "n": ``workload`` at ε; "epsilon": ``workload`` at ``n``), one colour per mechanism: dots measured
    (median of the stored trials), a line of the same colour its theorem's bound on that metric; the uniform guess
    grey dashed.  The dots of different mechanisms are spread a little sideways (about 2% of the x range each) so
    equal errors stay visible; the y range shows every dot and every bound."""
    axis = check_choice("axis", axis, ("m", "n", "epsilon"))
    check_result(result)
    n, epsilon = check_int("n", n, low=1), check_epsilon(epsilon)
    mechanisms = _check_mechanisms(mechanisms)
    for name, value in (("family", family), ("workload", workload)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str (a name in the arena), got {type(value).__name__}")
    if axis == "m":
        pick, fixed = (lambda c: c["family"] == family), {"n": n, "epsilon": epsilon}
    elif axis == "n":
        pick, fixed = (lambda c: c["workload"] == workload), {"epsilon": epsilon}
    else:
        pick, fixed = (lambda c: c["workload"] == workload), {"n": n}
    xs, cells = _series(result, pick, axis, fixed, mechanisms)
    if not cells:
        raise ValueError(f"no stored cells along {axis} for the given workload/family, n and epsilon")
    fig, axes = new_figure(2, height=4.6)
    step = 0.022 * max(math.log10(max(xs) / min(xs)), 0.5)          # sideways spread of the dots, in decades
    shown = [m for m in mechanisms if any(m in c["mechanisms"] for c in cells)]
    for ax, metric in zip(axes, METRICS):
        top = 0.0
        for mech in mechanisms:
            y = [median_error(c, mech, metric) for c in cells]
            if all(np.isnan(y)):
                continue
            marker = "s" if mech == "gaussian" else "o"
            shift = 10 ** (step * (shown.index(mech) - (len(shown) - 1) / 2))
            ax.plot([x * shift for x in xs], y, marker, color=COLOURS[mech], ms=6, label=LABELS[mech], zorder=3)
            b = [c["mechanisms"].get(mech, {}).get("bound") if c["mechanisms"].get(mech, {}).get("bound_metric")
                 == metric else None for c in cells]
            if any(v is not None for v in b):
                ax.plot(xs, [np.nan if v is None else v for v in b], "-" if mech != "gaussian" else ":",
                        color=COLOURS[mech], lw=1.5)
            top = max([top] + [v for v in list(y) + b if v is not None and np.isfinite(v)])
        ax.plot(xs, [c["uniform"][metric] for c in cells], "--", color=UNIFORM, lw=1.6, label="uniform guess")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(max(1e-5, ax.get_ylim()[0]), max(3.0, 1.4 * top))
        ax.set_xlabel({"m": "m (number of queries)", "n": "n (rows)", "epsilon": "ε"}[axis])
        ax.set_ylabel(f"{metric.upper() if metric == 'rms' else 'max'} error")
    axes[0].set_title("dots: measured; lines: bound", fontsize=12)
    legend_outside(axes[1], where="below", ncols=2)
    log_minor_125(*axes)                                # cheaper log axes, reading the same
    return fig


def figure_time(result):
    """Seconds per release against |X| (2-way marginals, ε = 1, the stored timing rows), one colour per mechanism."""
    rows = check_result(result).get("timing") or []
    if not rows:
        raise ValueError("result has no timing rows (make arena stores them)")
    fig, ax = new_figure(1, height=4.4)
    for mech in COLOURS:
        pts = [(r["N"], r["seconds"][mech]) for r in rows if mech in r["seconds"]]
        if pts:
            ax.plot(*zip(*pts), marker="o", color=COLOURS[mech], ls="--" if mech == "gaussian" else "-", label=LABELS[mech])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("|X| (universe size)")
    ax.set_ylabel("seconds per release")
    legend_outside(ax)
    log_minor_125(ax)
    ax.set_xscale("log", base=2)                      # |X| = 2^d: powers of two on x
    return fig


def figure_map(result, epsilon=1.0, metric="max"):
    """The map: for each (n, workload) cell at ε, the mechanism with the lowest measured error (left) and the one
    whose bound is lowest (right), named in the cell and coloured by mechanism."""
    measured = winners(check_result(result), epsilon, metric, "measured")
    predicted = winners(result, epsilon, metric, "bound")
    if not measured:
        raise ValueError(f"epsilon ({epsilon!r}) is not a budget of the stored grid")
    names = [w[0] for w in result["workloads"]]
    ns = sorted({n for _, n in measured})
    from matplotlib.patches import Patch, Rectangle

    fig, axes = new_figure(2, height=6.4)
    hatch = {"gaussian": "//"}         # the two per-query baselines share the baseline colour: hatch the Gaussian
    for ax, win, title in ((axes[0], measured, "lowest measured error"), (axes[1], predicted, "lowest bound")):
        for i, n in enumerate(ns):
            for j, w in enumerate(names):
                mech = win.get((w, n))
                if mech is None:
                    continue
                # add_artist, not add_patch: the limits are set below, so no autoscaling update per cell; the
                # names sit inside their cells, so constrained layout need not measure them (in_layout=False)
                ax.add_artist(Rectangle((i - 0.5, j - 0.5), 1, 1, facecolor=COLOURS[mech], alpha=0.55, lw=0,
                                        hatch=hatch.get(mech), edgecolor="white"))
                ax.text(i, j, SHORT[mech], ha="center", va="center", fontsize=12, in_layout=False)
        ax.set_xlim(-0.5, len(ns) - 0.5)
        ax.set_ylim(len(names) - 0.5, -0.5)
        ax.set_xticks(range(len(ns)), [f"{n:.0e}".replace("e+0", "e") for n in ns])
        ax.set_yticks(range(len(names)), names if ax is axes[0] else [""] * len(names))
        ax.set_xlabel("n (rows)")
        ax.grid(False)
        ax.set_title(f"{title} ({metric} error), ε = {epsilon:g}", fontsize=12)
    present = [m for m in COLOURS if m in set(measured.values()) | set(predicted.values())]
    key = [Patch(facecolor=COLOURS[m], alpha=0.55, hatch=hatch.get(m), edgecolor="white",
                 label=f"{SHORT[m]}: {LABELS[m]}") for m in present]
    fig.legend(handles=key, loc="outside lower center", ncols=min(len(key), 3))
    return fig


def explore_arena(result=None, epsilon=1.0, delta=1e-6, n=10_000, workload="2-way marginals",
                  mechanisms=("laplace", "gaussian", "histogram", "mwem", "mwem_practical", "projection", "idc_mw")):
    """The widget: one stored cell (ε, n, workload; δ is the grid's 1e-6 — the only value stored) as bars of the
    median max and RMS error per chosen mechanism, the bound as a red tick where the theorem bounds that metric,
    the uniform guess grey dashed.  Reads the results only (no mechanism is run); ``result=None``: the book's
    stored results (:func:`stored_arena`)."""
    result = stored_arena() if result is None else result
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    if not math.isclose(delta, check_result(result).get("delta", 1e-6)):
        raise ValueError(f"delta ({delta!r}) must be the grid's {result.get('delta')!r}: the only δ stored")
    mechanisms = _check_mechanisms(mechanisms)
    cell = find_cell(result, workload, n, epsilon)
    chosen = [m for m in mechanisms if m in cell["mechanisms"] and "max" in cell["mechanisms"][m]]
    fig, axes = fixed_figure(2, width=9.8, height=4.6, left=0.8, right=0.15, bottom=1.9, top=0.45, wspace=0.8)
    for ax, metric in zip(axes, METRICS):
        vals = [median_error(cell, m, metric) for m in chosen]
        ax.bar(range(len(chosen)), vals, color=[COLOURS[m] for m in chosen])
        for i, m in enumerate(chosen):
            rec = cell["mechanisms"][m]
            if rec.get("bound") is not None and rec.get("bound_metric") == metric:
                ax.plot([i - 0.4, i + 0.4], [rec["bound"]] * 2, color=BOUND, lw=2.5)
        reference_line(ax, cell["uniform"][metric])
        ax.set_yscale("log")
        ax.set_xticks(range(len(chosen)), [SHORT.get(m, m) for m in chosen], rotation=60)
        ax.set_ylabel(f"{'RMS' if metric == 'rms' else 'max'} error")
    axes[0].set_title(f"{workload}, n={n:,}, ε={epsilon:g}", fontsize=12)
    axes[1].set_title("red: bound; grey: uniform guess", fontsize=12)
    log_minor_125(*axes)                                # cheaper log axes: the panel redraws on every slider move
    return fig
