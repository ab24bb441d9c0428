"""Chapters 03–06's widgets: slider ranges offer only valid values and defaults lie on the slider grid."""
import json
import math
import pathlib
import types

import matplotlib.pyplot as plt
import pytest

from dpbook.explorers.gaussian import explore_gaussian
from dpbook.explorers.histogram import explore_histogram
from dpbook.explorers.sparse_vector import explore_sparse
from notebook_cells import panel_call

NOTEBOOKS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = {"03_histograms": explore_histogram, "04_gaussian": explore_gaussian,
            "06_sparse_vector": explore_sparse}


def _panel_sliders(chapter):
    """Run the chapter's widget cell against a stub `widgets` that records each slider's (kind, args, kwargs)."""
    nb = json.loads((NOTEBOOKS / f"{chapter}.ipynb").read_text())
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code" and "widgets.panel(" in "".join(c["source"]))
    record = lambda kind: (lambda *a, **kw: (kind, a, kw))
    stub = types.SimpleNamespace(log_slider=record("log"), int_slider=record("int"), float_slider=record("float"),
                                 panel=lambda callback, **controls: (callback, controls))
    env = {"widgets": stub, **{f.__name__: f for f in CHAPTERS.values()}}
    exec(compile(cell.replace("# NBVAL_IGNORE_OUTPUT", ""), chapter, "exec"), env)
    callback, controls = eval(panel_call(cell), env)
    return callback, controls


def _grid(kind, args, kw):
    """The slider's grid points (low, high, step) and default, in the slider's own coordinate."""
    value, low, high = args
    if kind == "log":
        lo, hi = math.log10(low), math.log10(high)
        return lo, hi, (hi - lo) / kw.get("steps", 40), math.log10(value)
    step = kw.get("step", 1 if kind == "int" else (high - low) / 100)
    return low, high, step, value


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_widget_defaults_on_grid_and_every_grid_value_valid(chapter):
    callback, controls = _panel_sliders(chapter)
    for name, (kind, args, kw) in controls.items():
        lo, hi, step, value = _grid(kind, args, kw)
        k = (value - lo) / step
        assert abs(k - round(k)) < 1e-6, f"{chapter}: {name} default {args[0]} is not on the slider grid"
    # the extremes of every slider (one at a time, the others at their defaults) are accepted by the callback
    defaults = {name: args[0] for name, (_, args, _) in controls.items()}
    for name, (kind, args, kw) in controls.items():
        for end in args[1:]:
            fig = callback(**{**defaults, name: end}, trials=20)
            plt.close(fig)


def test_histogram_explorer_refuses_too_few_pixels():
    with pytest.raises(ValueError, match="d"):
        explore_histogram(d=3)


def test_sparse_explorer_band_fits_at_default_and_says_when_it_does_not():
    fig = explore_sparse(trials=30)
    assert "band wider" not in fig.axes[0].get_title()
    plt.close(fig)
    fig = explore_sparse(epsilon=0.1, trials=30)
    assert "band wider than the panel" in fig.axes[0].get_title()
    plt.close(fig)
