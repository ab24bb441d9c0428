"""Chapter 05's widget and figures (dpbook.explorers.composition): pure, drawn by the book's rules, validating,
and the panel's defaults on its slider grid."""
import json
import math
import pathlib
import types

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook.explorers._layout import overflow
from dpbook.explorers.composition import (explore_composition, figure_composition, figure_counting_queries,
                                          figure_crossovers, figure_expected_loss)
from dpbook.theory.composition import advanced_composition, basic_composition, randomized_response_composition_epsilon
from notebook_cells import panel_call

NOTEBOOK = pathlib.Path(__file__).resolve().parent.parent / "notebooks" / "05_composition.ipynb"


def _lines(fig):
    return [np.asarray(line.get_ydata(), dtype=float).tolist() for ax in fig.axes for line in ax.lines]


def test_explore_composition_is_pure_and_draws_the_three_rules():
    a, b = explore_composition(), explore_composition()
    try:
        assert _lines(a) == _lines(b)
        basic, adv, exact = (np.asarray(line.get_ydata(), dtype=float) for line in a.axes[0].lines[:3])
        steps = np.asarray(a.axes[0].lines[0].get_xdata(), dtype=float)
        # the exact composition lies below both bounds at every step count, and the bounds are the theorems'
        assert np.all(exact <= adv * (1 + 1e-12)) and np.all(exact <= basic * (1 + 1e-12))
        assert adv[-1] == pytest.approx(advanced_composition(0.1, int(steps[-1]), 1e-6)[0])
        assert basic[-1] == pytest.approx(basic_composition(0.1, int(steps[-1]))[0])
        assert exact[-1] == pytest.approx(randomized_response_composition_epsilon(0.1, int(steps[-1]), 1e-6))
        assert overflow(a) == [] and a.get_size_inches()[0] * a.dpi <= 900
    finally:
        plt.close("all")


@pytest.mark.parametrize("kw, name", [(dict(epsilon0=0), "epsilon0"), (dict(epsilon0=-1), "epsilon0"),
                                      (dict(m=0), "m"), (dict(m=10 ** 6), "m"), (dict(delta_prime=0.0), "delta_prime"),
                                      (dict(delta_prime=1.5), "delta_prime")])
def test_explore_composition_rejects_bad_input(kw, name):
    with pytest.raises(ValueError, match=name):
        explore_composition(**kw)
    with pytest.raises(TypeError, match="m"):
        explore_composition(m=2.5)


def _panel_controls():
    """The chapter's widget cell run against a stub `widgets` that records each slider (kind, args, kwargs)."""
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code" and "widgets.panel(" in "".join(c["source"]))
    record = lambda kind: (lambda *a, **kw: (kind, a, kw))  # noqa: E731
    stub = types.SimpleNamespace(log_slider=record("log"), int_slider=record("int"), float_slider=record("float"),
                                 panel=lambda callback, **controls: (callback, controls))
    env = {"widgets": stub, "explore_composition": explore_composition}
    return eval(panel_call(cell), env)


@pytest.mark.skipif(not NOTEBOOK.exists(), reason="chapter 05 not present")
def test_widget_defaults_on_grid_and_every_slider_end_is_drawn_by_the_rules():
    callback, controls = _panel_controls()
    assert callback is explore_composition
    defaults = {}
    for name, (kind, args, kw) in controls.items():
        value, low, high = args
        if kind == "log":
            lo, hi = math.log10(low), math.log10(high)
            step, at = (hi - lo) / kw.get("steps", 40), math.log10(value)
        else:
            lo, step, at = low, kw.get("step", 1), value
        assert abs((at - lo) / step - round((at - lo) / step)) < 1e-6, f"{name} default {value} is off the grid"
        defaults[name] = value
    for name, (kind, args, kw) in controls.items():
        for end in args[1:]:
            fig = callback(**{**defaults, name: end})
            try:
                assert overflow(fig) == [], (name, end)
            finally:
                plt.close(fig)


def test_figure_functions_draw_and_validate():
    eps = np.array([0.1, 0.5, 1.0, 2.0])
    kl = eps + np.exp(-eps) - 1
    fig = figure_expected_loss(eps, kl, kl / 50, kl, eps * np.expm1(eps))
    assert len(fig.axes) == 1 and overflow(fig) == []
    steps = np.array([1, 10, 100, 1000])
    adv = np.array([advanced_composition(0.1, int(k), 1e-6)[0] for k in steps])
    fig = figure_composition(steps, 0.1 * steps * 0.5, adv, 0.1 * steps, 0.5 / steps, 0.01 / np.sqrt(steps),
                             epsilon0=0.1, delta_prime=1e-6, target=0.5, crossover=35)
    assert len(fig.axes) == 2 and overflow(fig) == []
    ms = np.array([8, 16, 32])
    fig = figure_counting_queries(ms, ms / 100, np.sqrt(ms) / 50, np.sqrt(ms) / 40, np.sqrt(ms) / 200, [0.2] * 3,
                                  n=569, epsilon=0.5, delta=1e-6)
    assert len(fig.axes) == 1 and overflow(fig) == []
    fig = figure_crossovers(steps, {(0.01, 1e-12): 57, (0.01, 1e-2): 10, (1.0, 1e-12): math.inf,
                                    (1.0, 1e-2): math.inf})
    assert len(fig.axes) == 2 and overflow(fig) == []
    plt.close("all")
    with pytest.raises(ValueError, match="mean"):
        figure_expected_loss(eps, kl[:3], kl, kl, kl)
    with pytest.raises(ValueError, match="eps"):
        figure_expected_loss(-eps, kl, kl, kl, kl)
    with pytest.raises(TypeError, match="mean"):
        figure_expected_loss(eps, "abc", kl, kl, kl)
    with pytest.raises(ValueError, match="crossover"):
        figure_composition(steps, adv, adv, adv, adv, adv, epsilon0=0.1, delta_prime=1e-6, target=0.5, crossover=0)
    with pytest.raises(ValueError, match="delta"):
        figure_counting_queries(ms, ms, ms, ms, ms, ms, n=569, epsilon=0.5, delta=0.0)
    with pytest.raises(TypeError, match="crossovers"):
        figure_crossovers(steps, [57, 10])
    with pytest.raises(ValueError, match="steps"):
        figure_crossovers([0, 1], {})
