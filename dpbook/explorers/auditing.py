"""Chapter 13's widget: one audit of the catalogue, with the evidence behind its ε lower bound."""
from __future__ import annotations

import math
import textwrap

import numpy as np

from ..audit import audit_cases, epsilon_lb_ceiling, epsilon_lower_bound
from ..audit.engine import count_event
from ..plots import BOUND, CONTROL, EMPIRICAL, EXTRA, UNIFORM
from ._layout import fixed_figure
from ..stats import clopper_pearson
from ..validation import check_epsilon, check_int

__all__ = ["explore_audit"]


def _centre(ax) -> float:
    """The horizontal centre of ``ax`` in figure coordinates (a legend at the figure's bottom goes under its panel)."""
    box = ax.get_position()
    return (box.x0 + box.x1) / 2


def explore_audit(case="laplace", epsilon=1.0, trials=20_000, *, seed=2026):
    """Audit one catalogue case at ``epsilon`` with ``trials`` samples per side and draw the evidence.

    Left: for each event, the estimated ``P[M(x) ∈ S]`` and ``P[M(x') ∈ S]`` with their Clopper–Pearson
    intervals.  Right: each event's ``epsilon_lb`` against the claimed ε and the ceiling that ``trials``
    samples allow.  Returns the figure (fixed margins: room for a two-line title, two-line event names and, at
    the bottom of the figure, each panel's legend under it).
    """
    (c,) = audit_cases(names=[case], epsilon=check_epsilon(epsilon))
    trials = check_int("trials", trials, low=100)
    rng = np.random.default_rng(seed)
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
