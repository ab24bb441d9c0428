"""One figure style and the plots every chapter uses.

The style is a plain rcParams dictionary (no named matplotlib styles, which come and go between
versions).  Measured values are drawn as dots with a confidence band, the theorem's bound as a solid
line, so "which is which" never needs a second look.
"""
from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

__all__ = ["STYLE", "use_style", "new_figure", "check_size", "accuracy_vs_theory", "legend_outside", "reference_line",
           "reference_curve", "EMPIRICAL", "BOUND", "HISTOGRAM", "BASELINE", "UNIFORM", "CONTROL", "TRUTH",
           "ROLE_COLOURS", "EXTRA", "DPI", "MAX_WIDTH_PX", "MAX_WIDTH_IN", "MIN_FONT_PT", "MAX_PANELS"]

# One meaning, one colour, in every chapter of the book.
EMPIRICAL = "#1f6fb4"   # measured: the mechanism the section is about (blue dots and band)
BOUND = "#c0392b"       # the theorem's bound for it (red line)
HISTOGRAM = "#8e44ad"   # the noisy histogram, the baseline that answers every query of a small universe (purple)
BASELINE = "#2e8b57"    # the per-query baseline (Laplace or Gaussian noise on each answer, exact sensitivity): green
UNIFORM = "#7f7f7f"     # the uniform (data-independent) guess: grey, dashed
CONTROL = "#d68910"     # a broken twin or perturbed control: orange
TRUTH = "#000000"       # the exact, non-private value (a true answer, the target of an estimate): black
ROLE_COLOURS = {"measured": EMPIRICAL, "bound": BOUND, "histogram": HISTOGRAM, "baseline": BASELINE,
                "uniform": UNIFORM, "control": CONTROL, "truth": TRUTH}
# Further series that carry no book-wide meaning (a second mechanism, a parameter sweep): none of them is a
# role's colour, so a figure never says "baseline" or "control" by accident.
EXTRA = ["#17a2b8", "#8c564b", "#e377c2", "#9a9a1e", "#34495e"]

# Projector rule: a stored figure is at most MAX_WIDTH_PX wide (GitHub then shows it at its own size) and its
# text is at least MIN_FONT_PT points at that size.
DPI = 90
MAX_WIDTH_PX = 900
MAX_WIDTH_IN = 9.6      # leaves room for the 0.1 in padding of a tight bounding box: 9.8 in × 90 dpi = 882 px
MIN_FONT_PT = 12
MAX_PANELS = 2

STYLE = {
    "figure.figsize": (7.2, 4.2),
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "legend.fontsize": 12,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.frameon": False,
    "font.size": 12,
    "figure.titlesize": 13,
    "lines.linewidth": 2.0,
    "lines.markersize": 6,
    "image.cmap": "viridis",
}


def use_style() -> None:
    """Apply the book's figure style (call once at the top of a chapter)."""
    mpl.rcParams.update(STYLE)


def check_size(ncols: int, width: float, height: float, *, max_width: float = MAX_WIDTH_IN) -> None:
    """Refuse a figure a projector cannot show: more than ``MAX_PANELS`` panels side by side, or wider than
    ``max_width`` inches (``MAX_WIDTH_IN`` for a stored figure, whose tight bounding box adds 0.1 in each side;
    ``MAX_WIDTH_PX / DPI`` for a widget's figure, rendered as it stands)."""
    if isinstance(ncols, bool) or not isinstance(ncols, int):
        raise TypeError(f"ncols must be an int, got {type(ncols).__name__}")
    if not 1 <= ncols <= MAX_PANELS:
        raise ValueError(f"ncols ({ncols}) must be in [1, {MAX_PANELS}]: put a wider comparison in two figures")
    if not 0 < width <= max_width:
        raise ValueError(f"width ({width}) must be in (0, {max_width:g}] inches (≤ {MAX_WIDTH_PX} px at {DPI} dpi)")
    if not 0 < height <= 9.0:
        raise ValueError(f"height ({height}) must be in (0, 9.0] inches")


def new_figure(ncols: int = 1, *, width: float | None = None, height: float | None = None):
    """A figure with ``ncols`` (1 or 2) axes side by side in the book's style; returns ``(fig, axes)``.

    The default width is the style's for one panel and ``MAX_WIDTH_IN`` for two; a legend placed with
    :func:`legend_outside` stays inside that width (constrained layout shrinks the axes to make room).
    """
    use_style()      # idempotent; a temporary rc_context here would break Jupyter's inline backend
    w = width if width is not None else MAX_WIDTH_IN if ncols == 2 else STYLE["figure.figsize"][0]
    h = height if height is not None else STYLE["figure.figsize"][1]
    check_size(ncols, w, h)
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
    grey dashed; ``"baseline"``: the per-query baseline's error, green; ``"histogram"``: the noisy histogram's,
    purple; ``"bound"``: red) — the level a mechanism must beat."""
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
    legend_outside(ax)
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

