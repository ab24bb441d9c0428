"""Slider panels around pure callbacks.

A chapter writes ``callback(**params) -> matplotlib Figure`` (a pure function: same parameters and
seed, same figure) and wraps it with :func:`panel`.  Tests call the callback directly, without a
browser; the panel only wires sliders to it and shows the figure.

    panel(explore, epsilon=log_slider(1.0, 0.01, 10), n=int_slider(569, 50, 5000, step=50))

ε and δ use logarithmic sliders, counts use integer sliders.  Sliders update on release
(``continuous_update=False``) so a drag triggers one redraw, not fifty.
"""
from __future__ import annotations

import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython import get_ipython
from IPython.display import display

__all__ = ["log_slider", "int_slider", "float_slider", "choice", "panel", "Panel"]

_LAYOUT = {"description_width": "90px"}


def log_slider(value, low, high, *, description=None, steps: int = 40) -> widgets.FloatLogSlider:
    """A base-10 log slider from ``low`` to ``high`` (for ε, δ, β, α)."""
    if not 0 < low <= value <= high:
        raise ValueError(f"log_slider needs 0 < low ({low}) <= value ({value}) <= high ({high})")
    lo, hi = math.log10(low), math.log10(high)
    return widgets.FloatLogSlider(value=value, base=10, min=lo, max=hi, step=(hi - lo) / steps,
                                  description=description or "", continuous_update=False,
                                  readout_format=".3g", style=_LAYOUT)


def int_slider(value, low, high, *, step: int = 1, description=None) -> widgets.IntSlider:
    """An integer slider (for n, m, k, K, rounds T, ...)."""
    if not low <= value <= high:
        raise ValueError(f"int_slider needs low ({low}) <= value ({value}) <= high ({high})")
    return widgets.IntSlider(value=value, min=low, max=high, step=step, description=description or "",
                             continuous_update=False, style=_LAYOUT)


def float_slider(value, low, high, *, step=None, description=None) -> widgets.FloatSlider:
    """A linear float slider (for thresholds and other non-scale parameters)."""
    if not low <= value <= high:
        raise ValueError(f"float_slider needs low ({low}) <= value ({value}) <= high ({high})")
    return widgets.FloatSlider(value=value, min=low, max=high, step=step or (high - low) / 100,
                               description=description or "", continuous_update=False,
                               readout_format=".3g", style=_LAYOUT)


def choice(options, value=None, *, description=None) -> widgets.Dropdown:
    """A dropdown (for a mechanism, a variant, a dataset)."""
    options = list(options)
    return widgets.Dropdown(options=options, value=options[0] if value is None else value,
                            description=description or "", style=_LAYOUT)


class Panel:
    """Sliders plus an output area; every change calls ``callback(**values)`` and shows its figure."""

    def __init__(self, callback, controls: dict):
        if not controls:
            raise ValueError("a panel needs at least one control")
        self.callback = callback
        self.controls = dict(controls)
        for name, control in self.controls.items():
            if not control.description:
                control.description = name
            control.observe(self._on_change, names="value")
        self.output = widgets.Output()
        self.widget = widgets.VBox([widgets.VBox(list(self.controls.values())), self.output])

    @property
    def values(self) -> dict:
        return {name: control.value for name, control in self.controls.items()}

    def render(self):
        """Call the callback with the current values and show the figure in the output area.

        The figure replaces the area's ``outputs`` directly (``Output.append_display_data``) instead of
        capturing a ``with output:`` block: the capturing context can stall a headless kernel (nbclient,
        nbval) until the cell times out, and replacing the outputs works the same in JupyterLab.
        """
        fig = self.callback(**self.values)
        if get_ipython() is not None:                 # in a kernel; in plain Python (tests) there is no display
            self.output.outputs = ()
            self.output.append_display_data(fig)
        plt.close(fig)
        return fig

    def _on_change(self, _change):
        self.render()

    def _ipython_display_(self):
        display(self.widget)
        self.render()


def panel(callback, **controls) -> Panel:
    """Build a :class:`Panel`: ``panel(fn, epsilon=log_slider(1, .01, 10), n=int_slider(...))``."""
    return Panel(callback, controls)
