"""Chapter 17's widget (one audit of the catalogue, with the evidence behind its ε lower bound) and figures.

* :func:`explore_audit` — the widget callback ``(case, ε, N) -> Figure``.
* :func:`figure_audit_power` — ε_lb against the number of runs, for a mechanism and its broken twin.
* :func:`figure_families` — the catalogue's results, one row per family of mechanisms, one dot per audit.
* :func:`figure_float_support` — where ``fl(q + Z)`` lands relative to numpy's Laplace image.
* :func:`figure_lessons` — broken twins and their fixes, as ε_lb / claimed ε.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from ..audit import audit_case_names, audit_cases, epsilon_lb_ceiling, epsilon_lower_bound
from ..audit.engine import count_event
from ..contract import example
from ..plots import BOUND, CONTROL, EMPIRICAL, EXTRA, UNIFORM, legend_outside, new_figure
from ._inputs import series
from ._layout import fixed_figure
from ..stats import clopper_pearson
from ..validation import check_epsilon, check_int, check_real

__all__ = ["explore_audit", "figure_audit_power", "figure_families", "figure_float_support", "figure_lessons"]


def _centre(ax) -> float:
    """The horizontal centre of ``ax`` in figure coordinates (a legend at the figure's bottom goes under its panel)."""
    box = ax.get_position()
    return (box.x0 + box.x1) / 2


def explore_audit(case="laplace", epsilon=1.0, trials=10_000, *, seed=2026):
    """Audit one catalogue case at ``epsilon`` with ``trials`` samples per side and draw the evidence.

    Left: for each event, the estimated ``P[M(x) ∈ S]`` and ``P[M(x') ∈ S]`` with their Clopper–Pearson
    intervals.  Right: each event's ``epsilon_lb`` against the claimed ε and the ceiling that ``trials``
    samples allow.  Returns the figure (fixed margins: room for a two-line title, two-line event names and, at
    the bottom of the figure, each panel's legend under it).
    """
    if not isinstance(case, str):
        raise TypeError(f"case must be the name of a catalogue case (a str), got {type(case).__name__}")
    if case not in audit_case_names():
        raise ValueError(f"case ({case!r}) must be a key of the audit catalogue (dpbook.audit.audit_case_names())")
    (c,) = audit_cases(names=[case], epsilon=check_epsilon(epsilon))
    trials = check_int("trials", trials, low=100, high=10_000_000)        # the slider's range is 1,000–200,000
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    out, out_prime = c.sample(trials, rng), c.sample_prime(trials, rng)
    names = list(c.events)
    level = 1e-6 / len(names)
    fig, (left, right) = fixed_figure(2, width=10, height=5.0, left=0.75, right=0.15, bottom=1.45, top=0.6, wspace=0.85)
    lbs = []
    for i, name in enumerate(names):
        k, kp = (count_event(c.events[name](o), trials, name) for o in (out, out_prime))
        for j, (hits, col, lab) in enumerate(((k, EMPIRICAL, "x"), (kp, EXTRA[1], "x'"))):
            lo, hi = clopper_pearson(hits, trials, level)
            left.errorbar(i + (j - 0.5) * 0.25, hits / trials, yerr=[[hits / trials - lo], [hi - hits / trials]],
                          fmt="o", color=col, capsize=3, label=f"P[M({lab}) ∈ S]" if i == 0 else None)
        lbs.append(epsilon_lower_bound(k, trials, kp, trials, delta=c.delta, alpha=level))
    labels = [textwrap.fill(n, 18) for n in names]
    left.set_xticks(range(len(names)), labels)
    left.set_xlim(-0.6, len(names) - 0.4)
    left.set_ylim(-0.03, 1.03)
    left.set_ylabel("probability of the event")
    left.set_title(textwrap.fill(c.name, 44))
    left.legend(loc="lower center", bbox_to_anchor=(_centre(left), 0.01), bbox_transform=fig.transFigure, ncols=2)
    colors = [CONTROL if lb > c.epsilon else EMPIRICAL for lb in lbs]
    right.bar(range(len(names)), lbs, color=colors, alpha=0.8)
    for i, lb in enumerate(lbs):
        if lb < 0.1 * c.epsilon:       # an empty bar is no evidence: say so instead of drawing nothing
            right.text(i, 0.5, "ε_lb ≈ 0:\nshows nothing", ha="center", va="center", color="dimgrey",   # mid-panel,
                       transform=right.get_xaxis_transform(),                          # whatever the y range
                       bbox=dict(boxstyle="round", facecolor="white", edgecolor="none", alpha=0.85))
    right.axhline(c.epsilon, color=BOUND, ls="--", label=f"claimed ε = {c.epsilon:.3g}")
    if c.true_epsilon is not None and math.isfinite(c.true_epsilon):
        right.axhline(c.true_epsilon, color="k", ls="-.", label=f"true loss of the pair = {c.true_epsilon:.3g}")
    right.axhline(epsilon_lb_ceiling(trials, events=len(names)), color=UNIFORM, ls=":",
                  label=f"ceiling for N = {trials}")
    right.set_xticks(range(len(names)), labels)
    right.set_ylabel("ε lower bound (level 1e-6)")
    right.set_title("caught: ε_lb > ε" if max(lbs) > c.epsilon else
                    "ε_lb ≈ 0: this audit shows nothing" if max(lbs) < 0.1 * c.epsilon else "no evidence against the claim")
    right.legend(loc="lower center", bbox_to_anchor=(_centre(right), 0.01), bbox_transform=fig.transFigure)
    return fig


example(explore_audit, lambda: dict(case="laplace", epsilon=1.0, trials=1_000, seed=1))


def _results(name, results):
    results = list(results)
    if not results or not all(isinstance(r, tuple) and len(r) == 2 for r in results):
        raise ValueError(f"{name} must be a non-empty list of (case, result) pairs, as run_audits returns")
    return results


def figure_audit_power(trials, lb_ok, lb_bad, ceiling, *, epsilon=1.0):
    """PA(ii)'s evidence against the number of runs ``trials`` per side: ``epsilon_lb`` of a correct mechanism
    (``lb_ok``, true loss ε) and of its broken twin (``lb_bad``, true loss 2ε), and the ``ceiling`` that ``trials``
    samples allow.  Returns the figure."""
    checked = series("trials", trials=trials, lb_ok=lb_ok, lb_bad=lb_bad, ceiling=ceiling)
    trials = checked["trials"]
    arrays = [checked[k] for k in ("lb_ok", "lb_bad", "ceiling")]
    if trials.size < 2 or np.any(trials < 1) or np.any(np.concatenate(arrays) < 0):
        raise ValueError(f"trials ({trials.size} values, each >= 1) must have two or more entries, and lb_ok, lb_bad "
                         "and ceiling be non-negative")
    epsilon = check_epsilon(epsilon)
    fig, ax = new_figure(width=8.6, height=4.2)
    ax.semilogx(trials, arrays[0], "o-", color=EMPIRICAL, label="Laplace mechanism")
    ax.semilogx(trials, arrays[1], "s-", color=CONTROL, label="broken twin:\nhalved sensitivity")
    ax.axhline(epsilon, color=BOUND, ls="--", label="claimed ε\n(true loss)")
    ax.axhline(2 * epsilon, color=CONTROL, ls=":", lw=1.2, label="twin's true loss 2ε")
    ax.semilogx(trials, arrays[2], ":", color=UNIFORM, lw=2, label="ceiling for N")
    ax.set_yscale("log")                  # the ceiling grows like ln N past 2ε: a log axis shows all of it
    top = max(float(np.nanmax(arrays[2])), 2 * epsilon) * 1.3
    low = min(float(np.nanmin(arrays[0][arrays[0] > 0], initial=epsilon)), epsilon) / 1.5
    ax.set(xlabel="N (runs per side)", ylabel="ε lower bound ε_lb (log scale)", ylim=(low, top),
           title="ε_lb approaches the true loss from below")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())
    legend_outside(ax)
    return fig


example(figure_audit_power, lambda: dict(trials=np.array([300.0, 3000.0, 30000.0]), lb_ok=np.array([0.1, 0.6, 0.9]),
                                         lb_bad=np.array([0.6, 1.5, 1.9]), ceiling=np.array([2.9, 5.2, 7.5]),
                                         epsilon=1.0))


def figure_families(results, *, title="", colour=EMPIRICAL, cap=8.0):
    """The catalogue's ``(case, result)`` pairs as one row per family (the module of the audited function) and
    one dot per audit at ``epsilon_lb / claimed ε`` (capped at ``cap``); audits with ``epsilon_lb < 0.1 ε`` are
    hollow (they show nothing).  The dashed line is the claim: a mechanism must sit left of it, a control right."""
    results = _results("results", results)
    cap = check_real("cap", cap, low=1.0, high=1e3)
    family = [c.target.split(".")[-2] for c, _ in results]
    names = sorted(set(family), key=lambda f: (-family.count(f), f))
    ratio = np.array([min(r.epsilon_lb / c.epsilon, cap) for c, r in results])
    row = np.array([names.index(f) for f in family], dtype=float)
    jitter = np.zeros_like(row)
    for f in names:                      # spread the dots of one family a little so equal values stay visible
        idx = np.flatnonzero(row == names.index(f))
        jitter[idx] = np.linspace(-0.22, 0.22, idx.size) if idx.size > 1 else 0.0
    nothing = ratio < 0.1
    fig, ax = new_figure(width=8.4, height=0.34 * len(names) + 1.9)
    ax.scatter(ratio[~nothing], (row + jitter)[~nothing], s=36, color=colour, alpha=0.85, label="one audit", zorder=3)
    if nothing.any():
        ax.scatter(np.maximum(ratio[nothing], 0), (row + jitter)[nothing], s=36, facecolors="none",
                   edgecolors=colour, label="ε_lb < 0.1 ε:\nshows nothing", zorder=3)
    ax.axvline(1, color=BOUND, ls="--", lw=1.5, label="claimed ε", zorder=2)
    # A dot within ~2% of the axis span from the line is drawn over it and its side cannot be seen: print the
    # value of the one nearest the line in each row, on the other side of the line.
    span = max(ratio.max(), 1.0) - min(ratio.min(), 1.0)
    for k in range(len(names)):
        idx = np.flatnonzero((row == k) & ~nothing)
        if idx.size == 0:
            continue
        near = idx[np.argmin(np.abs(ratio[idx] - 1.0))]
        if abs(ratio[near] - 1.0) < 0.02 * span:
            right = ratio[near] > 1.0
            ax.annotate(f"{ratio[near]:.2f}", (1.0, row[near] + jitter[near]), xytext=(-6 if right else 6, 0),
                        textcoords="offset points", ha="right" if right else "left", va="center", color=colour)
            if right:
                ax.set_xlim(left=min(ax.get_xlim()[0], 1.0 - 0.12 * span))
    ax.set_yticks(range(len(names)), [f"{f} ({family.count(f)})" for f in names])
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set(xlabel=f"ε_lb / claimed ε (capped at {cap:g})", title=title)
    legend_outside(ax)
    return fig


def figure_float_support(y0, in0, y1, in1, *, scale=1.0, edges=None):
    """Mironov's support attack, measured: for released values ``y0`` (``q = 0``) and ``y1`` (``q = 1``) and the
    booleans ``in0``, ``in1`` (is the value in numpy's Laplace image at ``scale``?), the fraction in the image per
    bin of ``edges`` (left), and the image around one released value near -0.7, double by double (right)."""
    from ..broken.floating_point import numpy_laplace_image
    y0, y1 = series("y0", y0=y0)["y0"], series("y1", y1=y1)["y1"]
    in0, in1 = np.asarray(in0, dtype=bool), np.asarray(in1, dtype=bool)
    if y0.shape != in0.shape or y1.shape != in1.shape:
        raise ValueError("y0, in0 (and y1, in1) must be 1-D arrays of one non-empty length")
    scale = check_real("scale", scale, low=1e-300, high=1e300)
    edges = np.linspace(-6, 6, 25) if edges is None else series("edges", edges=edges)["edges"]
    if edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError(f"edges ({edges.size} values) must be two or more increasing bin edges")
    mid = (edges[1:] + edges[:-1]) / 2
    frac = lambda y, hit: [hit[(y >= lo) & (y < hi)].mean() if np.any((y >= lo) & (y < hi)) else np.nan
                           for lo, hi in zip(edges[:-1], edges[1:])]
    fig, (a1, a2) = new_figure(2, width=9.6, height=4.6)
    a1.plot(mid, frac(y0, in0), "o-", color=EMPIRICAL, label="q = 0: output Z")
    a1.plot(mid, frac(y1, in1), "s-", color=CONTROL, label="q = 1: output fl(1 + Z)")
    a1.set(xlabel="released value y", ylabel="fraction in the\nsampler's image", ylim=(-0.05, 1.05),
           title="where fl(1 + Z) lands")
    legend_outside(a1, where="below")
    ulps = np.arange(-12, 13)
    centre = y0[np.argmin(np.abs(y0 + 0.7))]
    a2.stem(ulps, numpy_laplace_image(centre + ulps * np.spacing(centre), scale).astype(float), basefmt=" ")
    a2.set(xlabel=f"doubles next to y = {centre:.4f}\n(in ulps)", ylabel="a possible output?",
           title="the image is sparse")
    a2.set_yticks([0, 1], ["no", "yes"])
    return fig


example(figure_float_support, lambda: dict(y0=np.array([-0.7, 0.2, 1.5]), in0=np.array([True, True, True]),
                                           y1=np.array([0.3, 1.2, 2.5]), in1=np.array([False, True, False]),
                                           scale=1.0, edges=np.array([-6.0, 0.0, 6.0])))


def figure_lessons(results, labels):
    """Broken twins and their fixes: one bar per ``(case, result)`` at ``epsilon_lb / claimed ε``, orange where the
    audit catches it (right of the claim), blue where it passes; ``labels`` name the bars."""
    results = _results("results", results)
    if len(labels) != len(results):
        raise ValueError(f"labels ({len(labels)}) must name each of the {len(results)} results")
    lb = np.array([r.epsilon_lb / c.epsilon for c, r in results])
    y = np.arange(len(results))
    fig, ax = new_figure(width=9.0, height=0.55 * len(results) + 1.6)
    ax.barh(y, lb, color=[CONTROL if v > 1 else EMPIRICAL for v in lb], alpha=0.85)
    ax.axvline(1, color=BOUND, ls="--", lw=1.5, label="claimed ε")
    ax.set_yticks(y, labels)
    ax.set_ylim(len(results) - 0.5, -0.5)
    ax.set(xlabel="ε_lb / claimed ε", title="caught (orange) and fixed (blue)")
    legend_outside(ax, where="below")
    return fig
