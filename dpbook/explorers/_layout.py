"""Fixed-margin figures and light log axes for the widget callbacks (slider → new figure ≤ 150 ms
in a browser).

``dpbook.plots.new_figure`` uses matplotlib's constrained layout, which measures every tick label and legend on
each draw: 30–50 % of a fresh figure's draw time.  A callback's figure has a fixed size and a known set of labels,
so fixed margins (in inches, converted to fractions of the figure) place it just as well at a fraction of the
cost.  :func:`overflow` is the check that the margins are wide enough: the tests call it over the sliders' ranges.
"""
from __future__ import annotations

import math
import re

from matplotlib.axes import Axes
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.ticker import LogFormatterSciNotation, LogLocator, NullLocator

from ..plots import DPI, MAX_WIDTH_PX, check_size, use_style

__all__ = ["fixed_figure", "log_minor_125", "overflow"]


def fixed_figure(ncols: int = 1, *, width: float, height: float, left: float = 0.75, right: float = 0.15,
                 bottom: float = 0.55, top: float = 0.35, wspace: float = 0.8, **subplots_kw):
    """``(fig, axes)`` like :func:`dpbook.plots.new_figure`, with fixed margins instead of a layout engine.

    ``left``, ``right``, ``bottom``, ``top``: margins in inches; ``wspace``: the gap between panels in inches.
    The figure carries a do-nothing layout engine (not ``None``), so ``dpbook.widgets.Panel.to_png`` draws it once
    as it stands, and ``subplots_adjust`` stays allowed.
    """
    use_style()
    check_size(ncols, width, height, max_width=MAX_WIDTH_PX / DPI)
    ax_width = (width - left - right - (ncols - 1) * wspace) / ncols
    if ax_width <= 0 or height - bottom - top <= 0:
        raise ValueError(f"margins leave no room for the axes in a {width}×{height} in figure")
    gridspec_kw = dict(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                       wspace=wspace / ax_width)
    gridspec_kw.update(subplots_kw.pop("gridspec_kw", {}))
    engine = PlaceHolderLayoutEngine(adjust_compatible=True, colorbar_gridspec=True)
    import matplotlib.pyplot as plt      # here, not at the top: importing an explorer does not load pyplot

    return plt.subplots(1, ncols, figsize=(width, height), layout=engine, gridspec_kw=gridspec_kw, **subplots_kw)


MINOR_DECADES = 3.0     # a log axis spanning more decades gets no minor ticks

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_MATH = re.compile(r"^\$\\mathdefault\{(-?)(?:(\d+(?:\.\d+)?)\\times)?(\d+)\^\{(-?\d+)\}\}\$$")


def unicode_power(label: str) -> str:
    """``"$\\mathdefault{2\\times10^{-3}}$"`` → ``"2×10⁻³"``: the same text without the mathtext parser.

    Labels of another form are returned unchanged (they are then typeset by mathtext as before).
    """
    m = _MATH.match(label)
    if m is None:
        return label
    sign, coefficient, base, exponent = m.groups()
    return f"{'−' if sign else ''}{coefficient + '×' if coefficient else ''}{base}{exponent.translate(_SUPERSCRIPT)}"


class _UnicodeLogFormatter(LogFormatterSciNotation):
    """matplotlib's log-axis labels (``10^k``, ``2×10^k``) written with Unicode superscripts: every fresh
    figure re-parses its mathtext labels (~2 ms each, the parser's cache belongs to the canvas)."""

    def __call__(self, x, pos=None):
        return unicode_power(super().__call__(x, pos))


def log_minor_125(*axes) -> None:
    """Cheaper log axes for a widget figure, reading the same: minor ticks at 2 and 5 of each decade (instead of
    2..9; none when the axis spans more than ``MINOR_DECADES`` decades, where a mark per decade is dense enough)
    and tick labels ``10⁻²`` in Unicode instead of mathtext.

    matplotlib builds one tick object per minor tick on a fresh figure (~0.5 ms each): a log-log panel over
    two decades spends ~25 ms on its 2..9 minor ticks alone.  Call it after the scales and limits are set.
    """
    for ax in axes:
        if not isinstance(ax, Axes):
            raise TypeError(f"axes must be matplotlib Axes, got {type(ax).__name__}")
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            if axis.get_scale() == "log":
                wide = lo > 0 and hi > 0 and abs(math.log10(hi / lo)) > MINOR_DECADES
                axis.set_minor_locator(NullLocator() if wide else LogLocator(subs=(2.0, 5.0)))
                axis.set_major_formatter(_UnicodeLogFormatter(10.0))
                axis.set_minor_formatter(_UnicodeLogFormatter(10.0, labelOnlyBase=False))


def overflow(fig, *, tol: float = 1.0) -> list[str]:
    """The visible texts and legends of ``fig`` that stick out of it (by more than ``tol`` px), drawn once on Agg.

    An empty list means nothing is cut off when the figure is rendered as it stands (no ``bbox_inches="tight"``).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    W, H = canvas.get_width_height()
    boxes = [(f"axes {i} (its ticks, labels, title, legend)", ax.get_tightbbox(renderer)) for i, ax in enumerate(fig.axes)]
    boxes += [(repr(t.get_text()), t.get_window_extent(renderer)) for t in fig.texts if t.get_visible()]
    boxes += [("figure legend", leg.get_window_extent(renderer)) for leg in fig.legends if leg.get_visible()]
    return [f"{name} at x {bb.x0:.0f}..{bb.x1:.0f}, y {bb.y0:.0f}..{bb.y1:.0f} (figure {W}×{H} px)"
            for name, bb in boxes
            if bb is not None and (bb.x0 < -tol or bb.y0 < -tol or bb.x1 > W + tol or bb.y1 > H + tol)]
