"""Slider panels around pure callbacks.

A chapter writes ``callback(**params) -> matplotlib Figure`` (a pure function: same parameters and
seed, same figure) and wraps it with :func:`panel`.  Tests call the callback directly, without a
browser; the panel only wires sliders to it and shows the figure.

    panel(explore, epsilon=log_slider(1.0, 0.01, 10), n=int_slider(600, 100, 5000, step=50))

The rules every panel follows:

* **Errors are shown, never swallowed.**  When the callback (or drawing its figure) raises, the panel shows
  ``ErrorType: message`` in a red box under the sliders, and the last good figure stays visible but faded
  (blended towards white and grey) until a redraw succeeds.  Nothing goes only to the Log Console.
* **Defaults lie on the slider grid**, so a reader can always slide back to the value the text talks about.
  ``int_slider(value, low, high, step)`` and ``float_slider`` raise ``ValueError`` unless ``value`` and ``high``
  are ``low + k·step``: we refuse rather than silently move the ends, because the chapter's text names them.
  ``log_slider`` builds its grid through the default (``value = 10^(bottom + k·step)``) and one end exactly;
  the step (within a factor 1.5 of ``(log10 high − log10 low)/steps``) is chosen so that the other end loses
  the least range; the slider never offers a value outside ``[low, high]``.
* **Readouts never clip**: three significant digits (``.3g``) when every value of the slider is between 1e-3
  and 1e4, scientific notation with three digits (``.2e``: ``1.70e-6``) otherwise (δ, tiny β, huge counts).
  Both are at most 8 characters (``1.00e-12``), which the readout box (72 px) shows whole.
* **Every panel fits a 1366×768 projector**: the figure is rendered at the figure's own dpi, reduced when
  needed so that it is at most ``MAX_WIDTH`` = 900 px wide and the whole panel (sliders + figure) at most
  ``MAX_HEIGHT`` = 700 px high; sliders go in two columns when there are more than three.  900 px is what
  JupyterLab leaves a notebook's output on a 1366 px screen with the file browser open (~934 px), so a figure
  this wide is shown at its own size, never scaled by the browser.  The book's explorers draw every figure at
  most 10 in wide at 90 dpi (= 900 px) and so are never reduced; a wider figure would be, and its text with it.
* **Fast redraw**: the panel renders the figure itself to PNG (one Agg draw, RGB, Pillow at zlib level 1; no
  second draw as ``savefig`` and the inline backend's ``bbox_inches="tight"`` do) and puts the bytes in an
  ``ipywidgets.Image``; there is no ``Output`` capture and no inline-backend round trip.  Callbacks are pure,
  so the PNG of each parameter setting is cached (the last ``CACHE_SIZE`` settings): sliding back is instant.
  After a reader moves a slider, the panel draws that slider's next setting in the same direction (then the
  previous one) while the kernel is idle, one figure per event-loop turn, so a lecturer stepping a slider
  notch by notch sees cached figures.  A new move cancels what is left; a move arriving during a prefetch
  waits for that one figure at most.  Nothing is prefetched until a reader moves a slider (CI never does), and
  ``DPBOOK_PREFETCH=0`` in the kernel's environment turns it off (the browser benchmark measures both).
  ``benchmarks/browser_latency.py`` measures slider → new pixels in a real browser.

ε and δ use logarithmic sliders, counts use integer sliders.  Sliders update on release
(``continuous_update=False``) so a drag triggers one redraw, not fifty.
"""
from __future__ import annotations

import asyncio
import html
import io
import math
import numbers
import os
import sys
import time
from collections import OrderedDict, deque

import ipywidgets as widgets
import numpy as np
from IPython.display import display

__all__ = ["log_slider", "int_slider", "float_slider", "choice", "panel", "Panel", "readout_format",
           "MAX_WIDTH", "MAX_HEIGHT"]

MAX_WIDTH = 900         # px: the widest figure a panel shows (a 1366 px screen minus JupyterLab's bars and file browser)
MAX_HEIGHT = 700        # px: sliders + figure (a 768 px screen minus the browser's and JupyterLab's bars)
CONTROL_ROW = 36        # px: one row of sliders (28 px widget + margins), used to budget the figure's height
SLIDER_WIDTH = "430px"  # one control (description 90 px + track + readout); two columns (+ 24 px gap) fit MAX_WIDTH
CACHE_SIZE = 64         # parameter settings whose PNG a panel keeps
PREFETCH = os.environ.get("DPBOOK_PREFETCH", "1") != "0"   # draw the moved slider's neighbours while idle
_FADE = 0.6             # how far a stale figure is blended towards light grey
_STYLE = {"description_width": "90px"}


def _check_real(name, x):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} ({x!r}) must be a real number")
    if not math.isfinite(x):
        raise ValueError(f"{name} ({x}) must be finite")


def _check_int(name, x):
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} ({x!r}) must be an integer")


def readout_format(low: float, high: float) -> str:
    """The readout format of a slider from ``low`` to ``high``: ``.3g``, or ``.2e`` when tiny or huge values occur.

    d3-format's ``.3g`` writes 1.7e-6 as ``0.00000170`` (clipped in the readout box) and 12345 as ``1.23e+4``;
    ``.2e`` writes ``1.70e-6`` and ``1.23e+4``.  Both stay within 8 characters in their ranges.
    """
    small = min(abs(low), abs(high))
    big = max(abs(low), abs(high))
    if (0 < small < 1e-3) or big >= 1e4:
        return ".2e"
    return ".3g"


def _on_grid(value, low, step, *, tol=1e-9) -> bool:
    k = (value - low) / step
    return abs(k - round(k)) <= tol * max(1.0, abs(k))


def _log_grid(lo: float, v: float, hi: float, steps: int) -> tuple[float, float, float]:
    """``(bottom, step, top)`` of a grid in log10 space through ``v`` with ``lo <= bottom``, ``top <= hi``.

    The grid passes through ``v`` and one end exactly; among steps within a factor 1.5 of ``(hi − lo)/steps`` we
    take the one that loses the least range at the other end (ties: the step nearest the target).
    """
    target = (hi - lo) / steps
    if v in (lo, hi):
        return lo, target, hi
    best = None
    for anchored, other in ((v - lo, hi - v), (hi - v, v - lo)):      # grid through low (or high) and v
        for k in range(max(1, math.ceil(anchored / (1.5 * target))), math.floor(anchored / (target / 1.5)) + 1):
            step = anchored / k
            lost = other - math.floor(other / step + 1e-9) * step
            score = (round(lost / (hi - lo), 6), abs(math.log(step / target)))
            if best is None or score < best[0]:
                best = (score, step, anchored == v - lo)
    if best is None:
        raise ValueError(f"log_slider: value (10^{v:.6g}) is too close to an end to lie on a grid of about "
                         f"{steps} steps; put it on an end or further from it")
    _, step, through_low = best
    if through_low:
        return lo, step, min(hi, v + math.floor((hi - v) / step + 1e-9) * step)
    return max(lo, v - math.floor((v - lo) / step + 1e-9) * step), step, hi


def log_slider(value, low, high, *, description=None, steps: int = 40) -> widgets.FloatLogSlider:
    """A base-10 log slider from ``low`` to ``high`` (for ε, δ, β, α) whose grid passes through ``value``.

    The grid is ``10^(bottom + k·step)`` with ``value`` on it and ``low <= bottom``, ``top <= high``: it passes
    through ``value`` and one end exactly, with a step within a factor 1.5 of ``(log10 high − log10 low)/steps``
    chosen to lose the least range at the other end (usually < 1 % of it; see the module docstring).
    """
    for name, x in (("value", value), ("low", low), ("high", high)):
        _check_real(name, x)
    _check_int("steps", steps)
    if not 0 < low < high:
        raise ValueError(f"log_slider needs 0 < low ({low}) < high ({high})")
    if not low <= value <= high:
        raise ValueError(f"log_slider needs low ({low}) <= value ({value}) <= high ({high})")
    if steps < 1:
        raise ValueError(f"steps ({steps}) must be >= 1")
    bottom, step, top = _log_grid(math.log10(low), math.log10(value), math.log10(high), steps)
    return widgets.FloatLogSlider(value=value, base=10, min=bottom, max=top, step=step,
                                  description=description or "", continuous_update=False,
                                  readout_format=readout_format(low, high), style=_STYLE)


def int_slider(value, low, high, *, step: int = 1, description=None) -> widgets.IntSlider:
    """An integer slider (for n, m, k, K, rounds T, ...) on the grid ``low, low + step, ..., high``.

    Raises ``ValueError`` when ``value`` or ``high`` is not ``low + k·step``: a default off the grid could never
    be reached again once the slider moves (the reader could not return to the value the text talks about).
    """
    for name, x in (("value", value), ("low", low), ("high", high), ("step", step)):
        _check_int(name, x)
    if step < 1:
        raise ValueError(f"int_slider needs step ({step}) >= 1")
    if not low <= value <= high:
        raise ValueError(f"int_slider needs low ({low}) <= value ({value}) <= high ({high})")
    if (value - low) % step:
        raise ValueError(f"int_slider: value ({value}) must lie on the grid low + k·step = {low}, {low + step}, "
                         f"{low + 2 * step}, ...; e.g. low = {low + (value - low) % step} or step dividing "
                         f"{value - low}")
    if (high - low) % step:
        raise ValueError(f"int_slider: high ({high}) must lie on the grid low + k·step ({low} + k·{step}); "
                         f"e.g. high = {high - (high - low) % step}")
    return widgets.IntSlider(value=value, min=low, max=high, step=step, description=description or "",
                             continuous_update=False, style=_STYLE)


def float_slider(value, low, high, *, step=None, description=None) -> widgets.FloatSlider:
    """A linear float slider (for thresholds and other non-scale parameters) on the grid ``low + k·step``.

    ``step`` defaults to ``(high − low)/100``; like :func:`int_slider`, ``value`` and ``high`` must lie on the grid.
    """
    for name, x in (("value", value), ("low", low), ("high", high)):
        _check_real(name, x)
    if not low < high:
        raise ValueError(f"float_slider needs low ({low}) < high ({high})")
    if not low <= value <= high:
        raise ValueError(f"float_slider needs low ({low}) <= value ({value}) <= high ({high})")
    step = (high - low) / 100 if step is None else step
    _check_real("step", step)
    if not step > 0:
        raise ValueError(f"float_slider needs step ({step}) > 0")
    if not _on_grid(value, low, step):
        raise ValueError(f"float_slider: value ({value}) must lie on the grid low + k·step ({low} + k·{step})")
    if not _on_grid(high, low, step):
        raise ValueError(f"float_slider: high ({high}) must lie on the grid low + k·step ({low} + k·{step})")
    return widgets.FloatSlider(value=value, min=low, max=high, step=step,
                               description=description or "", continuous_update=False,
                               readout_format=readout_format(low, high), style=_STYLE)


def choice(options, value=None, *, description=None) -> widgets.Dropdown:
    """A dropdown (for a mechanism, a variant, a dataset)."""
    options = list(options)
    return widgets.Dropdown(options=options, value=options[0] if value is None else value,
                            description=description or "", style=_STYLE)


def _snap(x):
    """A slider's float as the callback should see it: 1.0, not 0.9999999999999998 from 10**(lo + k·step)."""
    if isinstance(x, float) and math.isfinite(x) and x != 0:
        return float(f"{x:.12g}")
    return x


def png_size(png: bytes) -> tuple[int, int]:
    """``(width, height)`` in pixels of the PNG ``png``, read from its header (the IHDR chunk)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("png is not a PNG image (no PNG signature and IHDR chunk)")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _pyplot_figures() -> set:
    """The numbers of the open pyplot figures; none before something imported pyplot (this module does not: a
    chapter's figures need matplotlib.figure, not pyplot's ~0.05 s of CPU more, and a callback may draw without it)."""
    plt = sys.modules.get("matplotlib.pyplot")
    return set(plt.get_fignums()) if plt is not None else set()


def _fade(png: bytes) -> bytes:
    """The PNG ``png`` blended towards light grey: how a panel shows a figure that is no longer current."""
    from PIL import Image                          # Pillow is a dependency of matplotlib

    with Image.open(io.BytesIO(png)) as im:
        rgb = np.asarray(im.convert("RGB"), dtype=np.float32)
    grey = rgb.mean(axis=2, keepdims=True)
    faded = (1 - _FADE) * grey + _FADE * 235.0
    out = io.BytesIO()
    Image.fromarray(faded.repeat(3, axis=2).astype(np.uint8)).save(out, format="png", compress_level=1)
    return out.getvalue()


class Panel:
    """Sliders, an error box and an image; every change calls ``callback(**values)`` and shows its figure.

    State a test can inspect without a browser: ``image.value`` (PNG bytes), ``error`` (the last exception or
    ``None``), ``message.value`` (the error box's HTML), ``stale`` (the image shows an outdated, faded figure),
    ``timings`` (seconds in the callback and in rendering the PNG, for the recent redraws not from the cache).
    """

    def __init__(self, callback, controls: dict, *, max_width: int = MAX_WIDTH, max_height: int = MAX_HEIGHT):
        if not callable(callback):
            raise TypeError(f"callback ({callback!r}) must be callable")
        if not controls:
            raise ValueError("a panel needs at least one control")
        self.callback = callback
        self.controls = dict(controls)
        self.max_width, self.max_height = max_width, max_height
        for name, control in self.controls.items():
            if not control.description:
                control.description = name
            if not control.layout.width:
                control.layout.width = SLIDER_WIDTH       # a longer track than ipywidgets' 300 px: easier to hit
            control.observe(self._on_change, names="value")
        boxes = list(self.controls.values())
        if len(boxes) > 3:                             # two columns: half the height on a 768 px screen
            self.rows = math.ceil(len(boxes) / 2)
            sliders = widgets.GridBox(boxes, layout=widgets.Layout(grid_template_columns="repeat(2, max-content)",
                                                                   grid_gap="0px 24px"))
        else:
            self.rows = len(boxes)
            sliders = widgets.VBox(boxes)
        self.message = widgets.HTML(value="", layout=widgets.Layout(display="none", max_width=f"{max_width}px"))
        # natural size (not stretched by the flex box), scaled down only when the notebook is narrower
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto",
                                                                      align_self="flex-start"))
        # the image joins the panel with its first figure: an <img> created empty and filled later while its cell is
        # off screen (JupyterLab's default windowing) keeps a 0×0 box in Chromium; one created with its pixels does not
        self.widget = widgets.VBox([sliders, self.message])
        self.widget.add_class("dpbook-panel")
        self.error: Exception | None = None
        self.stale = False
        self.dpi: float | None = None                  # the dpi of the last rendered figure
        self._good_png: bytes | None = None
        self._cache: OrderedDict = OrderedDict()
        self.timings: deque = deque(maxlen=50)         # (callback s, PNG s) of the recent redraws that were drawn
        self._generation = 0                           # bumped by every move: cancels a pending prefetch

    @property
    def values(self) -> dict:
        return {name: _snap(control.value) for name, control in self.controls.items()}

    def fit_dpi(self, fig) -> float:
        """The dpi at which ``fig`` fits the panel: its own dpi, lowered to fit ``max_width`` × the height left."""
        w, h = fig.get_size_inches()
        room = self.max_height - CONTROL_ROW * self.rows
        return min(fig.dpi, self.max_width / w, room / h)

    def to_png(self, fig) -> bytes:
        """Render ``fig`` to PNG bytes at :meth:`fit_dpi`: one Agg draw, then Pillow at a fast zlib level.

        ``fig.savefig`` would draw a constrained-layout figure twice (~1.5× the time); a figure without a layout
        engine goes through ``savefig(bbox_inches="tight")`` as the inline backend did, so no label is cut off.
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from PIL import Image                          # Pillow is a dependency of matplotlib

        self.dpi = self.fit_dpi(fig)
        buf = io.BytesIO()
        if fig.get_layout_engine() is None:
            fig.savefig(buf, format="png", dpi=self.dpi, bbox_inches="tight", pil_kwargs={"compress_level": 1})
            return buf.getvalue()
        fig.set_dpi(self.dpi)
        canvas = FigureCanvasAgg(fig)                  # whatever backend made the figure; it is closed after
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        image = Image.fromarray(rgba, "RGBA")
        if rgba[..., 3].min() < 255:                   # a transparent figure: on white, as a notebook shows it
            image = Image.alpha_composite(Image.new("RGBA", image.size, "white"), image)
        image.convert("RGB").save(buf, format="png", compress_level=1)
        return buf.getvalue()

    @staticmethod
    def _key(values: dict):
        key = tuple(values.items())
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _png(self, values: dict) -> bytes:
        """The PNG of ``values``: from the cache, or drawn (callback, then :meth:`to_png`) and cached."""
        key = Panel._key(values)
        if key is not None and key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        t0 = time.perf_counter()
        open_before, fig = _pyplot_figures(), None
        try:
            fig = self.callback(**values)
            t1 = time.perf_counter()
            png = self.to_png(fig)
        finally:
            # close the figure, and any other the callback left open: an open pyplot figure would be drawn by the
            # inline backend later, outside any cell (in JupyterLab's Log Console)
            plt = sys.modules.get("matplotlib.pyplot")
            if plt is not None:
                for num in _pyplot_figures() - open_before:
                    plt.close(num)
                if fig is not None:
                    plt.close(fig)
        self.timings.append((t1 - t0, time.perf_counter() - t1))
        if key is not None:
            self._cache[key] = png
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return png

    def render(self) -> bytes | None:
        """Call the callback with the current values and show its figure; on error show the message instead.

        Returns the PNG shown, or ``None`` when the callback (or drawing its figure) raised.
        """
        values = self.values
        try:
            png = self._png(values)
        except Exception as exc:                       # shown in the panel: a widget must never fail silently
            self._show_error(exc, values)
            return None
        self.error, self.stale = None, False
        self.message.value, self.message.layout.display = "", "none"
        self._good_png = png
        self._show(png)
        return png

    def _show(self, png: bytes):
        """Show ``png``: the image's value, its pixel size as the ``<img>``'s width and height attributes (the box is
        reserved before the pixels decode; CSS ``max-width: 100%; height: auto`` still scales it down, keeping the
        aspect ratio, in a narrower notebook), and the image joins the panel with its first figure.

        Why not from the start: with JupyterLab's default windowing (``content-visibility: auto`` on every cell),
        Chromium gives an ``<img>`` that was created empty and filled while its cell was off screen a 0×0 box for good.
        An ``<img>`` created with its pixels, or given new pixels later, is laid out as usual.
        """
        width, height = png_size(png)
        with self.image.hold_sync():
            self.image.width, self.image.height = str(width), str(height)
            self.image.value = png
        if self.image not in self.widget.children:
            self.widget.children = (*self.widget.children, self.image)

    def neighbours(self, name: str, direction: int = 1) -> list[dict]:
        """The settings one grid step from the current one along control ``name``: first in ``direction``
        (+1 up, -1 down), then the other way; only steps that stay on the slider (a dropdown has none)."""
        control, out = self.controls[name], []
        for sign in (direction, -direction):
            if isinstance(control, widgets.FloatLogSlider):
                exponent = math.log(control.value, control.base) + sign * control.step
                value = control.base ** exponent if control.min - 1e-9 <= exponent <= control.max + 1e-9 else None
            elif isinstance(control, (widgets.IntSlider, widgets.FloatSlider)):
                value = control.value + sign * control.step
                value = value if control.min <= value <= control.max else None
            else:
                value = None
            if value is not None:
                out.append({**self.values, name: _snap(value)})
        return out

    def prefetch(self, settings: list[dict]) -> int:
        """Draw ``settings`` into the cache now (what the idle-time prefetch does one at a time); a setting the
        callback refuses is skipped (the reader sees its error if they go there).  Returns how many were drawn."""
        drawn = 0
        for values in settings:
            key = Panel._key(values)
            if key is None or key in self._cache:
                continue
            try:
                self._png(values)
                drawn += 1
            except Exception:                          # noqa: BLE001 - shown when the reader moves there
                pass
        return drawn

    def _schedule_prefetch(self, name: str, direction: int):
        self._generation += 1
        if not PREFETCH:
            return
        try:
            loop = asyncio.get_running_loop()          # the kernel's loop; none outside a kernel (tests)
        except RuntimeError:
            return
        generation, todo = self._generation, self.neighbours(name, direction)

        def step():
            if generation != self._generation or not todo:
                return                                 # a newer move cancelled the rest
            self.prefetch([todo.pop(0)])
            if todo:
                loop.call_later(0.0, step)             # one figure per turn: a new move is handled in between
        loop.call_later(0.0, step)

    def _show_error(self, exc: Exception, values: dict):
        self.error = exc
        settings = ", ".join(f"{k} = {v:.3g}" if isinstance(v, float) else f"{k} = {v}" for k, v in values.items())
        kept = ("The figure below (faded) is for the last settings that worked."
                if self._good_png is not None else "No figure could be drawn yet.")
        self.message.value = (
            '<div style="border-left: 4px solid #c0392b; background: #fdecea; padding: 6px 10px; '
            'font-size: 14px; line-height: 1.4; white-space: pre-wrap;">'
            f"<b>These settings do not work</b> ({html.escape(settings)}):<br>"
            f"<code>{html.escape(type(exc).__name__)}: {html.escape(str(exc))}</code><br>{kept}</div>")
        self.message.layout.display = ""
        if self._good_png is not None and not self.stale:
            self._show(_fade(self._good_png))
        self.stale = self._good_png is not None

    def _on_change(self, change):
        self.render()
        name = next((k for k, c in self.controls.items() if c is change.get("owner")), None)
        if name is not None and isinstance(change.get("new"), numbers.Real) and isinstance(change.get("old"), numbers.Real):
            self._schedule_prefetch(name, 1 if change["new"] >= change["old"] else -1)

    def _ipython_display_(self):
        self.render()                                  # the first figure (or error) is in place before the view exists
        display(self.widget)


def panel(callback, **controls) -> Panel:
    """Build a :class:`Panel`: ``panel(fn, epsilon=log_slider(1, .01, 10), n=int_slider(...))``."""
    return Panel(callback, controls)
