"""One figure style and the plots every chapter uses.

The style is a plain rcParams dictionary (no named matplotlib styles, which come and go between
versions).  Measured values are drawn as dots with a confidence band, the theorem's bound as a solid
line, so "which is which" never needs a second look.
"""
from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

__all__ = ["STYLE", "use_style", "new_figure", "accuracy_vs_theory", "legend_outside", "reference_line", "EMPIRICAL", "BOUND",
           "BASELINE", "UNIFORM", "CONTROL", "ROLE_COLOURS", "EXTRA"]

# One meaning, one colour, in every chapter (issue: "the same colour for the same meaning everywhere").
EMPIRICAL = "#1f6fb4"   # measured (the mechanism the section is about): blue dots and band
BOUND = "#c0392b"       # the theorem's bound: red line
BASELINE = "#2e8b57"    # the baseline mechanism (noisy histogram / per-query Laplace): green
UNIFORM = "#7f7f7f"     # the uniform (data-free) guess: grey, dashed
CONTROL = "#d68910"     # a broken twin or perturbed control: orange
ROLE_COLOURS = {"measured": EMPIRICAL, "bound": BOUND, "baseline": BASELINE, "uniform": UNIFORM,
                "control": CONTROL}
# Further series that carry no book-wide meaning (a second mechanism, a parameter sweep).
EXTRA = ["#2e8b57", "#8e44ad", "#d68910", "#555555"]

STYLE = {
    "figure.figsize": (6.4, 3.8),
    "figure.dpi": 90,
    "savefig.dpi": 90,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.frameon": False,
    "font.size": 10,
    "lines.linewidth": 1.8,
    "image.cmap": "viridis",
}


def use_style() -> None:
    """Apply the book's figure style (call once at the top of a chapter)."""
    mpl.rcParams.update(STYLE)


def new_figure(ncols: int = 1, *, width: float | None = None, height: float | None = None):
    """A figure with ``ncols`` axes side by side in the book's style; returns ``(fig, axes)``."""
    use_style()      # idempotent; a temporary rc_context here would break Jupyter's inline backend
    w = width if width is not None else 4.2 * ncols if ncols > 1 else STYLE["figure.figsize"][0]
    h = height if height is not None else STYLE["figure.figsize"][1]
    fig, axes = plt.subplots(1, ncols, figsize=(w, h), layout="constrained")
    return fig, axes


def legend_outside(ax, *, where: str = "right", ncols: int = 1):
    """Put ``ax``'s legend outside the data (``where`` = "right" or "below"), so no marker is hidden."""
    if where == "right":
        return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, ncols=ncols)
    if where == "below":
        return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), borderaxespad=0.0, ncols=ncols)
    raise ValueError(f"where ({where!r}) must be 'right' or 'below'")


def reference_line(ax, y, *, role: str = "uniform", label: str | None = None):
    """A horizontal line at ``y`` in the book's colour for ``role`` (``"uniform"``: the data-independent answer,
    grey dashed; ``"baseline"``: a baseline's error, green; ``"bound"``: red) — the level a mechanism must beat."""
    if role not in ROLE_COLOURS:
        raise ValueError(f"role ({role!r}) must be one of {sorted(ROLE_COLOURS)}")
    default = {"uniform": "uniform guess (ignores the data)"}.get(role, role)
    return ax.axhline(float(y), color=ROLE_COLOURS[role], ls="--" if role == "uniform" else "-", lw=1.6,
                      label=default if label is None else label, zorder=1)


def accuracy_vs_theory(x, empirical, bound, *, lower=None, upper=None, ax=None, xlabel="", ylabel="",
                       empirical_label="measured", bound_label="theorem's bound", logx=False, logy=False,
                       title=None):
    """Plot a measured quantity (dots, optional band ``lower..upper``) against a theorem's bound (line).

    Typical uses: the empirical ``(1-β)``-quantile of the max error against ``ln(k/β)Δ/ε`` over a sweep of
    ε or k; or the empirical failure rate (with its Clopper–Pearson band) against β.  Returns the axes.
    """
    x = np.asarray(x, dtype=float)
    empirical = np.asarray(empirical, dtype=float)
    bound = np.asarray(bound, dtype=float)
    if not (x.shape == empirical.shape == bound.shape) or x.ndim != 1:
        raise ValueError(f"x {x.shape}, empirical {empirical.shape} and bound {bound.shape} must be 1-D and equal")
    if ax is None:
        _, ax = new_figure()
    if lower is not None and upper is not None:
        ax.fill_between(x, lower, upper, color=EMPIRICAL, alpha=0.18, lw=0, label=f"{empirical_label} (95% CI)")
    ax.plot(x, bound, "-", color=BOUND, label=bound_label, zorder=2)
    ax.plot(x, empirical, "o", color=EMPIRICAL, ms=5, label=empirical_label, zorder=3)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="best")
    return ax


def reference_curve(ax, x, y, *, role: str = "uniform", label: str | None = None):
    """:func:`reference_line` for a level that changes along the x axis (e.g. the uniform guess's max error over
    the first ``|Q|`` queries): a curve in the book's colour for ``role`` — grey dashed for ``"uniform"``."""
    if role not in ROLE_COLOURS:
        raise ValueError(f"role ({role!r}) must be one of {sorted(ROLE_COLOURS)}")
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x {x.shape} and y {y.shape} must be 1-D and of equal length")
    default = {"uniform": "uniform guess (ignores the data)"}.get(role, role)
    return ax.plot(x, y, color=ROLE_COLOURS[role], ls="--" if role == "uniform" else "-", lw=1.6,
                   label=default if label is None else label, zorder=1)[0]

__all__ += ["reference_curve"]
