"""The last chapter's arena: read the grid that ``make arena`` stores (benchmarks/arena/results.json) and draw it.

Every function here reads a results dictionary (:func:`load_arena`); nothing runs a mechanism, so the figures and
the widget are fast.  Errors are medians over the stored trials of the per-trial max or RMS error (normalised
answers); the map's candidates are the mechanisms with the add/remove guarantee (randomized response protects one
attribute only and is never on the map).
"""
from __future__ import annotations

import json
import math
import pathlib

import numpy as np

from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, HISTOGRAM, UNIFORM, legend_outside, new_figure, reference_line
from ..validation import check_choice, check_real
from ._layout import fixed_figure, log_minor_125

__all__ = ["load_arena", "find_cell", "median_error", "winners", "consistent", "figure_error_vs", "figure_time",
           "figure_map", "explore_arena", "COLOURS", "LABELS"]

#: one colour per mechanism on every figure of the chapter (the measured dots and the bound's line share it)
COLOURS = {"laplace": BASELINE, "gaussian": BASELINE, "histogram": HISTOGRAM, "mwem": EXTRA[0],
           "mwem_practical": EXTRA[1], "projection": EMPIRICAL, "idc_mw": EXTRA[2], "randomized_response": EXTRA[3],
           "smalldb": EXTRA[4]}
LABELS = {"laplace": "per-query Laplace", "gaussian": "per-query Gaussian (δ)", "histogram": "noisy histogram",
          "mwem": "MWEM (theorem)", "mwem_practical": "MWEM (practical)", "projection": "projection (δ)",
          "idc_mw": "online IDC, MW (δ)", "randomized_response": "randomized response", "smalldb": "SmallDB"}
SHORT = {"laplace": "Lap", "gaussian": "Gau", "histogram": "Hist", "mwem": "MWEM", "mwem_practical": "MWEMp",
         "projection": "Proj", "idc_mw": "IDC", "smalldb": "SDB"}
METRICS = ("max", "rms")


def load_arena(path) -> dict:
    """The results file of ``make arena`` as a dictionary (its schema checked)."""
    if not isinstance(path, (str, pathlib.Path)):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    path = pathlib.Path(path)
    if not path.is_file():
        raise ValueError(f"path ({str(path)!r}) must be an existing results file of make arena")
    result = json.loads(path.read_text())
    if not isinstance(result, dict) or result.get("schema") != 1 or "cells" not in result:
        raise ValueError(f"path ({str(path)!r}) is not a results file of make arena (schema 1)")
    return result


def _check_result(result):
    if not isinstance(result, dict) or "cells" not in result:
        raise TypeError(f"result must be the dictionary of load_arena, got {type(result).__name__}")
    return result


def find_cell(result, workload, n, epsilon) -> dict:
    """The stored cell (workload name, n, ε); ``ValueError`` naming the grid's values if it was not computed."""
    for cell in _check_result(result)["cells"]:
        if cell["workload"] == workload and cell["n"] == n and math.isclose(cell["epsilon"], epsilon):
            return cell
    raise ValueError(f"(workload, n, epsilon) ({workload!r}, {n!r}, {epsilon!r}) is not a cell of the grid")


def median_error(cell, mechanism, metric="max") -> float:
    """The median over the stored trials of ``mechanism``'s max or RMS error in ``cell`` (NaN if not run)."""
    metric = check_choice("metric", metric, METRICS)
    rec = cell["mechanisms"].get(mechanism)
    return float("nan") if rec is None or metric not in rec else float(np.median(rec[metric]))


def winners(result, epsilon=1.0, metric="max", by="measured") -> dict:
    """``{(workload, n): mechanism}``: the lowest median error (``by="measured"``) or the lowest bound on that
    metric (``by="bound"``; only mechanisms whose theorem bounds that metric) among the add/remove mechanisms."""
    metric = check_choice("metric", metric, METRICS)
    by = check_choice("by", by, ("measured", "bound"))
    epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
    out = {}
    for cell in _check_result(result)["cells"]:
        if not math.isclose(cell["epsilon"], epsilon):
            continue
        score = {}
        for mech, rec in cell["mechanisms"].items():
            if rec.get("neighbours") != "add/remove" or metric not in rec:
                continue
            if by == "measured":
                score[mech] = float(np.median(rec[metric]))
            elif rec.get("bound") is not None and rec.get("bound_metric") == metric:
                score[mech] = rec["bound"]
        if score:
            out[(cell["workload"], cell["n"])] = min(score, key=score.get)
    return out


def consistent(stored, fresh, *, z=4.0) -> dict:
    """``{mechanism: bool}``: does the freshly computed ``fresh`` cell match the ``stored`` one within its
    Monte-Carlo error?  For each metric, ``|mean_fresh − mean_stored| <= z · SE + 1e-9`` with ``SE`` the standard
    error of the stored per-trial mean (and at least 2 % of it: a cell whose trials agree to the last digit)."""
    z = check_real("z", z, low=0.0, low_open=True)
    out = {}
    for mech, rec in fresh["mechanisms"].items():
        old = stored["mechanisms"].get(mech)
        if old is None or "max" not in rec or "max" not in old:
            out[mech] = False
            continue
        ok = True
        for metric in METRICS:
            a, b = np.asarray(old[metric], float), np.asarray(rec[metric], float)
            se = max(a.std(ddof=1) / math.sqrt(a.size) if a.size > 1 else 0.0, 0.02 * abs(a.mean()))
            ok &= bool(abs(a.mean() - b.mean()) <= z * se + 1e-9)
        out[mech] = ok
    return out


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
    grey dashed."""
    axis = check_choice("axis", axis, ("m", "n", "epsilon"))
    _check_result(result)
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
    for ax, metric in zip(axes, METRICS):
        for mech in mechanisms:
            y = [median_error(c, mech, metric) for c in cells]
            if all(np.isnan(y)):
                continue
            marker = "s" if mech == "gaussian" else "o"
            ax.plot(xs, y, marker, color=COLOURS[mech], ms=6, label=LABELS[mech])
            b = [c["mechanisms"].get(mech, {}).get("bound") if c["mechanisms"].get(mech, {}).get("bound_metric")
                 == metric else None for c in cells]
            if any(v is not None for v in b):
                ax.plot(xs, [np.nan if v is None else v for v in b], "-" if mech != "gaussian" else ":",
                        color=COLOURS[mech], lw=1.5)
        ax.plot(xs, [c["uniform"][metric] for c in cells], "--", color=UNIFORM, lw=1.6, label="uniform guess")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(max(1e-5, ax.get_ylim()[0]), 3.0)
        ax.set_xlabel({"m": "m (number of queries)", "n": "n (rows)", "epsilon": "ε"}[axis])
        ax.set_ylabel(f"{metric.upper() if metric == 'rms' else 'max'} error")
    axes[0].set_title("dots: measured; lines: bound", fontsize=12)
    legend_outside(axes[1], where="below", ncols=2)
    return fig


def figure_time(result):
    """Seconds per release against |X| (2-way marginals, ε = 1, the stored timing rows), one colour per mechanism."""
    rows = _check_result(result).get("timing") or []
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
    return fig


def figure_map(result, epsilon=1.0, metric="max"):
    """The map: for each (n, workload) cell at ε, the mechanism with the lowest measured error (left) and the one
    whose bound is lowest (right), named in the cell and coloured by mechanism."""
    measured = winners(result, epsilon, metric, "measured")
    predicted = winners(result, epsilon, metric, "bound")
    names = [w[0] for w in result["workloads"]]
    ns = sorted({n for _, n in measured})
    fig, axes = new_figure(2, height=5.6)
    for ax, win, title in ((axes[0], measured, "lowest measured error"), (axes[1], predicted, "lowest bound")):
        for i, n in enumerate(ns):
            for j, w in enumerate(names):
                mech = win.get((w, n))
                if mech is None:
                    continue
                ax.add_patch(__import__("matplotlib").patches.Rectangle((i - 0.5, j - 0.5), 1, 1,
                                                                        color=COLOURS[mech], alpha=0.55, lw=0))
                ax.text(i, j, SHORT[mech], ha="center", va="center", fontsize=12)
        ax.set_xlim(-0.5, len(ns) - 0.5)
        ax.set_ylim(len(names) - 0.5, -0.5)
        ax.set_xticks(range(len(ns)), [f"{n:.0e}".replace("e+0", "e") for n in ns])
        ax.set_yticks(range(len(names)), names if ax is axes[0] else [""] * len(names))
        ax.set_xlabel("n (rows)")
        ax.grid(False)
        ax.set_title(f"{title} ({metric} error), ε = {epsilon:g}", fontsize=12)
    return fig


#: The results file ``make arena`` writes, beside the package in a checkout of the book.
RESULTS_FILE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "arena" / "results.json"
_STORED: dict = {}


def stored_arena() -> dict:
    """The book's stored arena results (:data:`RESULTS_FILE`), read once."""
    if "result" not in _STORED:
        _STORED["result"] = load_arena(RESULTS_FILE)
    return _STORED["result"]


def explore_arena(result=None, epsilon=1.0, delta=1e-6, n=10_000, workload="2-way marginals",
                  mechanisms=("laplace", "gaussian", "histogram", "mwem", "mwem_practical", "projection", "idc_mw")):
    """The widget: one stored cell (ε, n, workload; δ is the grid's 1e-6 — the only value stored) as bars of the
    median max and RMS error per chosen mechanism, the bound as a red tick where the theorem bounds that metric,
    the uniform guess grey dashed.  Reads the results only (no mechanism is run); ``result=None``: the book's
    stored results (:func:`stored_arena`)."""
    result = stored_arena() if result is None else result
    epsilon = check_real("epsilon", epsilon, low=0.0, low_open=True)
    delta = check_real("delta", delta, low=0.0, low_open=True)
    if not math.isclose(delta, _check_result(result).get("delta", 1e-6)):
        raise ValueError(f"delta ({delta!r}) must be the grid's {result.get('delta')!r}: the only δ stored")
    if isinstance(mechanisms, str):
        mechanisms = (mechanisms,)
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
