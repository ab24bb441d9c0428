"""One figure style and the plots every chapter uses.

The style is a plain rcParams dictionary (no named matplotlib styles, which come and go between
versions).  Measured values are drawn as dots with a confidence band, the theorem's bound as a solid
line, so "which is which" never needs a second look.
"""
from __future__ import annotations

import io

import matplotlib as mpl
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
    """Apply the book's figure style (call once at the top of a chapter).

    In a Jupyter kernel whose inline backend shows figures as PNG, it also makes the kernel draw each figure once
    (see :func:`_inline_png`) instead of twice: the same picture, cropped to what is drawn plus the same margin;
    and pyplot's end-of-cell draw of each new figure, whose pixels nobody sees, skips the painting
    (:func:`_draw_stale_figures_unpainted`): the same figures, shown byte for byte as before.
    """
    mpl.rcParams.update(STYLE)
    _install_inline_png()


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
    import matplotlib.pyplot as plt      # here, not at the top: importing dpbook.plots does not load pyplot

    fig, axes = plt.subplots(1, ncols, figsize=(w, h), layout="constrained")
    _install_inline_png(printer_only=False)   # the first figure starts the inline backend: its draw hook is there now
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


def _inline_png(fig, fallback):
    """The PNG (base64 text) of ``fig`` as the inline backend shows it — cropped to what is drawn, with a margin
    of ``savefig.pad_inches`` — from one draw.

    The inline backend calls ``savefig(bbox_inches="tight")``, which draws a figure twice (a first pass, nothing
    painted, to place everything and measure it; then the real draw) and measures every tick label a third time
    for the bounding box: a quarter to a third of what showing a figure costs in the book's chapters (measured
    with ``benchmarks/bench_chapters.py``, which times whole chapters).  Here the figure is painted once at its own
    size and the pixels are cropped to the drawn ink (everything that differs from the face colour) plus the same
    margin (narrower at the sides if the picture would be wider than ``MAX_WIDTH_PX``), padded with the face colour
    where the margin reaches past the figure's edge.  The picture is the same; the margins can differ by a pixel or
    two from ``savefig``'s, whose box also counts the blank ascent of text.  When ink touches the figure's edge or a
    text runs past it (something may be cut off), for a figure that is not opaque or not on Agg's canvas,
    ``fallback(fig)`` (the inline backend's own printer) draws it as before.
    """
    import base64

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgba
    from matplotlib.text import Text
    from PIL import Image                              # Pillow is a dependency of matplotlib
    from PIL.PngImagePlugin import PngInfo

    if not fig.axes and not fig.lines:                 # an empty figure shows nothing (as the inline backend)
        return None
    canvas = fig.canvas
    face = np.round(np.asarray(to_rgba(fig.get_facecolor())) * 255).astype(np.uint8)
    pad_inches = mpl.rcParams["savefig.pad_inches"]
    if not isinstance(canvas, FigureCanvasAgg) or face[3] != 255 or not isinstance(pad_inches, (int, float)):
        return fallback(fig)
    canvas.draw()
    drawn = np.asarray(canvas.buffer_rgba())
    ink = (drawn != face).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    height, width = ink.shape
    if rows.size == 0 or rows[0] < 2 or cols[0] < 2 or rows[-1] >= height - 2 or cols[-1] >= width - 2:
        return fallback(fig)                           # nothing drawn, or ink at the edge: maybe cut off
    # a text can run past the edge where its glyphs leave a gap in the ink; tick labels are left to the ink test
    # (an axis keeps spare tick objects, not drawn, at stale places)
    renderer = canvas.get_renderer()
    ticks = {id(label) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
             for tick in (*axis.majorTicks, *axis.minorTicks) for label in (tick.label1, tick.label2)}
    for text in fig.findobj(lambda a: isinstance(a, Text) and a.get_visible() and a.get_text() != ""
                            and id(a) not in ticks):
        box = text.get_window_extent(renderer)         # laid out by the draw just made: cached, cheap
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            return fallback(fig)
    pad = int(round(pad_inches * fig.dpi))
    ink_width = cols[-1] + 1 - cols[0]                 # a side margin never makes a stored figure too wide
    side = max(0, min(pad, (max(MAX_WIDTH_PX, width) - ink_width) // 2))
    top, left = rows[0] - pad, cols[0] - side
    h, w = rows[-1] + 1 + pad - top, ink_width + 2 * side
    out = np.empty((h, w, 3), dtype=np.uint8)         # RGB: the figure is opaque (its patch covers it)
    out[...] = face[:3]
    r0, r1, c0, c1 = max(top, 0), min(top + h, height), max(left, 0), min(left + w, width)
    out[r0 - top:r1 - top, c0 - left:c1 - left] = drawn[r0:r1, c0:c1, :3]
    info = PngInfo()
    info.add_text("Software", f"Matplotlib version{mpl.__version__}, https://matplotlib.org/")   # as savefig writes
    buf = io.BytesIO()
    Image.fromarray(out, "RGB").save(buf, format="png", dpi=(fig.dpi, fig.dpi), pnginfo=info)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _install_inline_png(printer_only: bool = True) -> None:
    """Show figures through :func:`_inline_png` in a kernel whose inline backend prints PNGs with a tight box.

    Nothing happens outside IPython, for another backend or format, or when the printer is not the inline
    backend's (a reader's own configuration is left alone); calling it again changes nothing.
    ``printer_only=False`` (:func:`new_figure`, right after making a figure) leaves the printer as it is and only
    puts :func:`_draw_stale_figures_unpainted` in the place of pyplot's draw hook, under the same conditions.
    """
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    from matplotlib.figure import Figure

    formatter = shell.display_formatter.formatters.get("image/png")
    printer = formatter.type_printers.get(Figure) if formatter is not None else None
    if getattr(printer, "_dpbook_single_draw", False):
        _replace_pyplot_draw_hook(shell)
        return
    keywords = getattr(printer, "keywords", None)    # the inline backend's: partial(print_figure, fmt="png", ...)
    if (getattr(printer, "func", None) is None or getattr(printer.func, "__name__", "") != "print_figure"
            or keywords.get("fmt") != "png" or keywords.get("bbox_inches", "tight") != "tight"
            or set(keywords) - {"fmt", "base64", "bbox_inches"}):
        return
    if not printer_only:
        _replace_pyplot_draw_hook(shell)             # the inline printer draws each figure again to show it
        return

    def png(fig):
        return _inline_png(fig, printer)
    png._dpbook_single_draw = True
    formatter.for_type(Figure, png)
    _replace_pyplot_draw_hook(shell)


def _draw_stale_figures_unpainted() -> None:
    """pyplot's end-of-cell hook (``_draw_all_if_interactive``: in interactive mode, draw every figure that changed)
    without painting: each such figure is drawn with rendering disabled (``Figure.draw_without_rendering``, the first
    pass of ``savefig(bbox_inches="tight")``).

    With the inline backend that draw's pixels are never shown: the backend's own end-of-cell hook, which runs next,
    draws each figure again to show it.  The first draw matters all the same, since constrained layout starts from
    where the last layout left the axes (a figure laid out once and one laid out twice differ by a pixel here and
    there); drawn without painting, every artist is laid out as before, so the figure shown is byte for byte the
    same, for about a fifth less CPU per figure shown (the two draws of each figure of chapters 00, 07, 08, 10, 11,
    17 and 18, timed figure by figure: 11.6 s of CPU before, 9.5 s after).
    """
    from matplotlib._pylab_helpers import Gcf

    if not mpl.is_interactive():
        return
    if "inline" not in mpl.get_backend():              # a reader switched to a live backend: pyplot's own draw
        Gcf.draw_all()
        return
    for manager in Gcf.get_all_fig_managers():         # as Gcf.draw_all: the figures that changed
        if manager.canvas.figure.stale:
            manager.canvas.figure.draw_without_rendering()


def _replace_pyplot_draw_hook(shell) -> None:
    """Put :func:`_draw_stale_figures_unpainted` in the place of pyplot's end-of-cell draw among ``shell``'s
    post-execute callbacks (same place: it must run before the inline backend shows the figures); nothing happens
    when pyplot's hook is not registered (pyplot not imported yet, another backend, or already replaced)."""
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    hook = getattr(pyplot, "_draw_all_if_interactive", None)
    callbacks = getattr(getattr(shell, "events", None), "callbacks", {}).get("post_execute")
    if hook is not None and isinstance(callbacks, list) and hook in callbacks:
        callbacks[callbacks.index(hook)] = _draw_stale_figures_unpainted
