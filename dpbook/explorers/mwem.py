"""Chapter 09's regime experiments, figures and widget: MWEM where its theorem says it should win — a universe far
larger than the data (the digits' first ``d`` pixels, ``N = 2^d``), all 3-way marginals (``m >> n``) — next to
the noisy histogram of chapter 03 (given its exact sensitivity, 1 per row), the per-query Laplace baseline and the
uniform guess.  The ``figure_*`` functions draw the chapter's figures from numbers the chapter computed (pure
functions of their arguments; colours by role from :mod:`dpbook.plots`)."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..comparisons import MECHANISMS
from ..data import digits_subsample
from ..histogram import histogram_mechanism
from ..mwem import mwem
from ..plots import (BASELINE, BOUND, EMPIRICAL, EXTRA, HISTOGRAM, UNIFORM, accuracy_vs_theory, legend_outside,
                     new_figure, reference_line)
from ..queries import digits_marginals
from ..theory.histogram import histogram_error_bound
from ..theory.mwem import hlm_error_bound
from ..validation import check_epsilon, check_int
from ._layout import fixed_figure

__all__ = ["explore_mwem", "figure_potential", "figure_rounds_sweep", "figure_workload_growth", "figure_regime",
           "figure_ablation", "figure_peers"]


def explore_mwem(epsilon=1.0, d=12, n=1797, T=30, *, trials=3, beta=0.05, seed=2026):
    """MWEM (as HLM state it) against chapter 03's noisy histogram on all 3-way marginals of digit pixels.

    ``d``: the first ``d`` of the 16 pixels (``N = 2^d``, ``m = 8 C(d, 3)``); ``n``: that many of the 1797 real
    rows (without replacement).  Left: the max error of ``trials`` runs of each, the uniform guess, the
    histogram's bound (IDC-Lem6.1) and HLM's recalled bound (both drawn only where below 1).  Right: one run's
    released answers against the truth.  A pure, seeded function of its parameters (chapter 09's widget).
    """
    epsilon = check_epsilon(epsilon)
    d = check_int("d", d, low=3, high=16)
    n = check_int("n", n, low=1, high=1797)
    T = check_int("T", T, low=1, high=200)
    trials = check_int("trials", trials, low=1, high=50)
    rng = np.random.default_rng(seed)
    x = digits_subsample(d, n, rng)
    W = digits_marginals(d)
    true = W.counts(x) / n
    runs = {"MWEM": mwem(x, W, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng).answers,
            "noisy histogram": histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=trials, rng=rng).answers}
    err_uniform = float(np.abs(W.counts(np.full(W.N, 1.0 / W.N)) - true).max())
    bounds = {"histogram bound": (histogram_error_bound(W.N, W.m, beta, epsilon, n=n), HISTOGRAM),
              "HLM bound [recalled]": (hlm_error_bound(n, W.N, W.m, T, epsilon), BOUND)}

    fig, (left, right) = fixed_figure(2, width=9.6, height=6.0, left=0.85, right=0.2, bottom=2.25, top=0.75,
                                      wspace=1.1)
    colours = {"MWEM": EMPIRICAL, "noisy histogram": HISTOGRAM}
    for i, (name, answers) in enumerate(runs.items()):
        err = np.abs(answers - true).max(axis=1)
        left.plot(np.full(trials, i), err, "o", color=colours[name], ms=6, alpha=0.8,
                  label=f"{name}: median {np.median(err):.2f}")
        right.plot(true, answers[0], ".", color=colours[name], ms=3, alpha=0.6, label=name, zorder=3 - i)
    left.axhline(err_uniform, color=UNIFORM, ls="--", label=f"uniform guess {err_uniform:.2f}")
    for name, (b, colour) in bounds.items():
        if b < 1:
            left.axhline(b, color=colour, ls="-" if colour == BOUND else "-.", lw=1.5, label=f"{name} {b:.2f}")
        else:
            left.plot([], [], " ", label=f"{name} {b:.2g}: vacuous")
    left.set_xticks(range(len(runs)), [name.replace(" ", "\n") for name in runs])
    left.set_xlim(-0.6, len(runs) - 0.4)
    left.set_ylim(0, 1.05)
    left.set_ylabel("max error over the m cells")
    left.set_title(f"d={d} (N={W.N:,}), m={W.m:,},\nn={n}, ε={epsilon:.3g}, T={T}")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), borderaxespad=0.0)
    right.plot([0, 1], [0, 1], "k:", lw=1)
    right.set_xlim(-0.02, 1.02)
    right.set_ylim(-0.3, 1.05)
    right.set_xlabel("true answer")
    right.set_ylabel("released (one run)")
    right.set_title("one run's answers")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), borderaxespad=0.0, markerscale=3)
    return fig


# --- the chapter's figures ----------------------------------------------------------------------------------------

def _series(name, values, *, ndim=1, length=None) -> np.ndarray:
    """``values`` as a finite float array of ``ndim`` dimensions (and ``length`` entries along the first), or a
    ValueError naming ``name``."""
    try:
        a = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers") from None
    if a.ndim != ndim or a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be a non-empty, finite {ndim}-D array, got shape {a.shape}")
    if length is not None and a.shape[0] != length:
        raise ValueError(f"{name} has {a.shape[0]} entries, expected {length}")
    return a


def figure_potential(psi, alpha, N, *, every=10):
    """The KL potential ``Ψ_t`` of non-private multiplicative weights (every ``every``-th update) against the
    descent IDC-LemmaA.6 guarantees, ``Ψ_0 − t α²/4``, and the start bound ``ln N`` (IDC-ClaimA.5)."""
    psi = _series("psi", psi)
    alpha = check_epsilon(alpha, "alpha")
    N = check_int("N", N, low=2)
    every = check_int("every", every, low=1)
    t = np.arange(psi.size)[::every]
    fig, ax = new_figure(width=9.6)
    accuracy_vs_theory(t, psi[t], psi[0] - t * alpha ** 2 / 4, ax=ax, xlabel="update t",
                       ylabel="Ψ_t = KL(x̄ ‖ p_t)  (nats)", empirical_label=f"potential (every {every}th)",
                       bound_label="Ψ_0 − t α²/4\n(IDC-LemmaA.6)", title=f"non-private MW, α = {alpha:g}")
    reference_line(ax, np.log(N), role="bound", label="ln N (IDC-ClaimA.5)").set_linestyle(":")
    legend_outside(ax)
    return fig


def figure_rounds_sweep(T_grid, sweeps, *, m, epsilon):
    """MWEM's max error against the rounds ``T`` for each database size: ``sweeps[n]`` is a dict with ``median``,
    ``low``, ``high`` (per ``T``), ``bound`` (HLM's recalled bound per ``T``), ``histogram`` and
    ``histogram_bound`` (the noisy histogram's median error and IDC-Lem6.1 bound) and ``uniform``.  Two sizes
    at most (one panel each); the y axis is cut at 3 (a bound above 1 says nothing)."""
    T_grid = _series("T_grid", T_grid)
    if not isinstance(sweeps, dict) or not 1 <= len(sweeps) <= 2:
        raise ValueError("sweeps must be a dict of one or two database sizes")
    m = check_int("m", m, low=1)
    epsilon = check_epsilon(epsilon)
    fig, axes = new_figure(len(sweeps), width=9.6, height=4.6)
    for ax, (n, sw) in zip(np.atleast_1d(axes), sweeps.items()):
        med, lo, hi, bnd = (_series(f"sweeps[{n}][{k!r}]", sw[k], length=T_grid.size)
                            for k in ("median", "low", "high", "bound"))
        ax.plot(T_grid, bnd, "-", color=BOUND, label="HLM bound [RECALLED]")
        ax.errorbar(T_grid, med, yerr=[med - lo, hi - med], fmt="o-", color=EMPIRICAL, capsize=5,
                    label="MWEM, median (bars: range of runs)")
        reference_line(ax, sw["histogram"], role="histogram", label="noisy histogram, median")
        reference_line(ax, sw["histogram_bound"], role="histogram",
                       label="histogram bound (β = 0.05)").set_linestyle("-.")
        reference_line(ax, sw["uniform"])
        ax.set_xscale("log"); ax.set_yscale("log"); ax.minorticks_off()
        ax.set_ylim(min(0.002, 0.5 * float(sw["histogram"])), 3)
        ax.set_xticks(T_grid, [f"{t:g}" for t in T_grid])
        ax.set_xlabel("rounds T"); ax.set_ylabel(f"max error over {m} cells")
        ax.set_title(f"bootstrapped to n = {n:,}, ε = {epsilon:g}")
    fig.legend(*np.atleast_1d(axes)[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


def figure_workload_growth(ms, errors, laplace_bound, histogram_bound, *, n, epsilon):
    """Max error against the number of queries ``m`` (all k-way cells, one point per k): ``errors`` maps
    "MWEM (T=20)", "MWEM, replay 2", "Laplace", "noisy histogram" and "uniform guess" to medians per ``m``;
    the per-query Laplace and the histogram bounds are drawn in their mechanism's colour."""
    ms = _series("ms", ms)
    styles = {"MWEM (T=20)": ("o-", EMPIRICAL, "MWEM T=20 (as specified)"),
              "MWEM, replay 2": ("^-", EXTRA[0], "MWEM T=20, replay 2"),
              "Laplace": ("s-", BASELINE, "per-query Laplace, Δ = C(11,k)"),
              "noisy histogram": ("D-", HISTOGRAM, "noisy histogram (ch. 03), Δ = 1"),
              "uniform guess": ("--", UNIFORM, "uniform guess")}
    if not isinstance(errors, dict) or set(errors) != set(styles):
        raise ValueError(f"errors must map exactly {sorted(styles)} to medians")
    n = check_int("n", n, low=1)
    epsilon = check_epsilon(epsilon)
    fig, ax = new_figure(width=9.6, height=4.4)
    for name, (style, colour, label) in styles.items():
        ax.plot(ms, _series(f"errors[{name!r}]", errors[name], length=ms.size), style, color=colour, label=label)
    ax.plot(ms, _series("laplace_bound", laplace_bound, length=ms.size), ":", color=BASELINE, lw=2,
            label="Laplace bound")
    ax.plot(ms, _series("histogram_bound", histogram_bound, length=ms.size), "-.", color=HISTOGRAM, lw=2,
            label="histogram bound")
    ax.set_xscale("log"); ax.set_yscale("log"); ax.minorticks_off()
    ax.set_xticks(ms, [f"{v:g}" for v in ms])
    ax.set_xlabel("m (all k-way cells, k = 1..4)"); ax.set_ylabel("max error (median of runs)")
    ax.set_title(f"cancer bootstrapped to n = {n}, ε = {epsilon:g}")
    legend_outside(ax)
    return fig


_REGIME_STYLES = {"MWEM (theorem)": ("o-", EMPIRICAL, "MWEM as specified"),
                  "MWEM practical": ("^-", EXTRA[0], "MWEM practical (§8)"),
                  "noisy histogram": ("D-", HISTOGRAM, "noisy histogram (ch. 03)"),
                  "uniform guess": ("--", UNIFORM, "uniform guess")}


def figure_regime(d_grid, by_d, bounds_d, n_grid, by_n, *, n, d):
    """MWEM against the noisy histogram on digit pixels: left, the max error against the pixels ``d`` at ``n``
    images; right, against ``n`` at ``d`` pixels.  ``by_d`` / ``by_n`` map each of :data:`MECHANISMS` to
    medians per grid point; ``bounds_d`` maps "histogram bound" and "HLM bound" to their values per ``d``."""
    d_grid, n_grid = _series("d_grid", d_grid), _series("n_grid", n_grid)
    for name, table, grid_ in (("by_d", by_d, d_grid), ("by_n", by_n, n_grid)):
        if not isinstance(table, dict) or set(table) != set(MECHANISMS):
            raise ValueError(f"{name} must map exactly {list(MECHANISMS)} to medians")
        for key in MECHANISMS:
            _series(f"{name}[{key!r}]", table[key], length=grid_.size)
    if not isinstance(bounds_d, dict) or set(bounds_d) != {"histogram bound", "HLM bound"}:
        raise ValueError("bounds_d must map 'histogram bound' and 'HLM bound' to values per d")
    n = check_int("n", n, low=1)
    d = check_int("d", d, low=3, high=16)
    fig, (left, right) = new_figure(2, width=9.6, height=4.8)
    for ax, xs, table in ((left, d_grid, by_d), (right, n_grid, by_n)):
        for name, (style, colour, label) in _REGIME_STYLES.items():
            ax.plot(xs, table[name], style, color=colour, label=label)
        ax.set_yscale("log"); ax.set_ylim(0.01, 4); ax.minorticks_off()
        ax.axhline(1, color=UNIFORM, lw=0.8, ls=":")
        ax.set_ylabel("max error (median of runs)")
    left.plot(d_grid, _series("bounds_d['histogram bound']", bounds_d["histogram bound"], length=d_grid.size), "-.",
              color=HISTOGRAM, lw=1.5, label="histogram bound (β = 0.05)")
    left.plot(d_grid, _series("bounds_d['HLM bound']", bounds_d["HLM bound"], length=d_grid.size), "-",
              color=BOUND, label="HLM bound [RECALLED]")
    left.set_xticks(d_grid, [f"{int(v)}" for v in d_grid])
    left.set_xlabel("pixels d  (N = 2^d)"); left.set_title(f"n = {n} images")
    right.set_xscale("log"); right.set_xticks(n_grid, [f"{int(v)}" for v in n_grid]); right.minorticks_off()
    right.set_xlabel("n (real images)"); right.set_title(f"d = {d} pixels (N = {2 ** d:,})")
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


def figure_ablation(errors, histogram, uniform, *, title):
    """Each practical change's max and mean error (two panels, one row per variant: every run and the median),
    with the noisy histogram's median and the uniform guess as vertical lines.  ``errors`` maps a variant's name
    to ``(max errors, mean errors)`` per run; ``histogram`` is the same pair for the histogram, ``uniform`` a
    ``(max, mean)`` pair of numbers."""
    if not isinstance(errors, dict) or not errors:
        raise ValueError("errors must be a non-empty dict of variant -> (max errors, mean errors)")
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    fig, axes = new_figure(2, width=9.6, height=4.4)
    names = list(errors)
    ys = np.arange(len(names))[::-1]
    for ax, which, label in ((axes[0], 0, "max error"), (axes[1], 1, "mean error")):
        for y, name in zip(ys, names):
            vals = _series(f"errors[{name!r}][{which}]", errors[name][which])
            ax.plot(vals, np.full(vals.size, y), "o", color=EMPIRICAL, alpha=0.35, ms=5, zorder=3)
            ax.plot(np.median(vals), y, "D", color=EMPIRICAL, ms=8, zorder=4)
        ax.axvline(np.median(_series("histogram", histogram[which])), color=HISTOGRAM, label="noisy histogram (median)",
                   zorder=1)
        ax.axvline(float(uniform[which]), color=UNIFORM, ls="--", label="uniform guess", zorder=1)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
        ax.set_yticks(ys, names if which == 0 else [])
        ax.set_xlabel(f"{label} (runs; ◆ median)")
    fig.legend(*axes[1].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    fig.suptitle(title)
    return fig


#: the methods of the committed peer comparison (benchmarks/peers/results.json) and how they are drawn
PEER_STYLES = {"dpbook mwem (theorem)": ("s", EXTRA[1]), "dpbook mwem_practical": ("o", EMPIRICAL),
               "dpbook mwem_practical replay=0": ("^", EXTRA[3]), "smartnoise-synth 1.0.8 MWEM": ("D", EXTRA[4]),
               "smartnoise-synth 1.0.8 AIM (mbi 1.1.0)": ("P", EXTRA[2]), "dpbook adaptive_marginals": ("*", EXTRA[0]),
               "dpbook adaptive_marginals (eps, delta)": ("X", EXTRA[0])}


def _row_label(row):
    """A short name for a peer-comparison row: its dataset, marginal order and ε (e.g. ``cancer k=2, ε=1``)."""
    name = str(row.get("name", ""))
    parts = name.split()
    k = next((p for p in parts if p.startswith("k=")), "")
    return f"{parts[0] if parts else '?'} {k}, ε={row['epsilon']:g}" if "epsilon" in row else name


def figure_peers(peers):
    """Max error against time for every row of the peer comparison (the parsed ``benchmarks/peers/results.json``):
    each method a marker, a row's methods joined by a faint line, and the noisy histogram and uniform guess of that
    row as ticks at ``mwem_practical``'s time (the chapter prints the mean errors in a table)."""
    from matplotlib.lines import Line2D
    if not isinstance(peers, dict) or not peers.get("rows"):
        raise ValueError("peers must be the parsed peer-comparison results (a dict with 'rows')")
    fig, ax = fixed_figure(width=9.6, height=4.6, left=0.95, right=4.05, bottom=0.75, top=0.4)   # legend at the right
    # one artist per kind of mark (not one per row and method): the same picture, fewer artists to lay out and draw
    joins, ticks, guesses, marks = [], [], [], {name: [] for name in PEER_STYLES}
    for i, row in enumerate(peers["rows"], start=1):
        methods = row["methods"]
        joins += sorted((m["median_seconds"], m["median_max_error"]) for m in methods.values()) + [(np.nan, np.nan)]
        t_p, ref = methods["dpbook mwem_practical"]["median_seconds"], row["references"]
        ticks.append((t_p, ref["noisy histogram"]["median_max_error"]))
        guesses += [(t_p / 1.35, ref["uniform"]["max_error"]), (t_p * 1.35, ref["uniform"]["max_error"]), (np.nan, np.nan)]
        ax.annotate(str(i), (t_p, methods["dpbook mwem_practical"]["median_max_error"]), xytext=(0, -7),
                    textcoords="offset points", ha="center", va="top", color=EMPIRICAL, fontweight="bold")
        for name, m in methods.items():
            marks[name].append((m["median_seconds"], m["median_max_error"]))
    ax.plot(*zip(*joins), "-", color=UNIFORM, alpha=0.3, lw=1, zorder=0)
    ax.plot(*zip(*ticks), "_", color=HISTOGRAM, ms=18, mew=2.5, zorder=1)
    ax.plot(*zip(*guesses), "--", color=UNIFORM, lw=2.5, zorder=1)
    for name, pts in marks.items():
        if pts:
            marker, colour = PEER_STYLES[name]
            ax.plot(*zip(*pts), marker, color=colour, ms=8)
    ax.set_xscale("log"); ax.set_yscale("log"); ax.minorticks_off()
    ax.set_ylim(bottom=0.4 * min(m["median_max_error"] for row in peers["rows"] for m in row["methods"].values()))
    ax.set_xlabel("seconds per run (median)"); ax.set_ylabel("max error (median)")
    ax.set_title("a grey line joins one row's methods; the row's number under ●")
    present = {name for row in peers["rows"] for name in row["methods"]}
    handles = [Line2D([], [], ls="", marker=mk, color=c, ms=8, label=name) for name, (mk, c) in PEER_STYLES.items()
               if name in present]
    handles += [Line2D([], [], ls="", marker="_", ms=18, mew=2.5, color=HISTOGRAM, label="noisy histogram, same ε"),
                Line2D([], [], ls="--", lw=2.5, color=UNIFORM, label="uniform guess")]
    handles += [Line2D([], [], ls="", marker=f"${i}$", ms=9, color=EMPIRICAL, label=_row_label(row))
                for i, row in enumerate(peers["rows"], start=1)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return fig
