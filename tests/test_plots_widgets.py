import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook import show_source
from dpbook.explorers.laplace import explore_laplace
from dpbook.queries import cancer_conjunctions
from dpbook.plots import STYLE, accuracy_vs_theory, new_figure, use_style
from dpbook.widgets import Panel, choice, float_slider, int_slider, log_slider, panel


def test_style_uses_only_valid_rcparams():
    for key in STYLE:
        assert key in matplotlib.rcParams
    use_style()
    assert matplotlib.rcParams["axes.spines.top"] is False


def test_accuracy_vs_theory_draws_both_series():
    fig, ax = new_figure()
    accuracy_vs_theory([1, 2, 3], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4], lower=[0, 0.1, 0.2], upper=[0.2, 0.3, 0.4],
                       ax=ax, logx=True, logy=True, xlabel="ε")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("measured" in s for s in labels) and any("bound" in s for s in labels)
    assert ax.get_xscale() == "log"
    plt.close(fig)
    with pytest.raises(ValueError, match="equal"):
        accuracy_vs_theory([1, 2], [1], [1, 2])


def test_sliders_validate():
    assert log_slider(1.0, 0.01, 10).value == pytest.approx(1.0)
    with pytest.raises(ValueError, match="log_slider"):
        log_slider(0.0, 0.01, 10)
    with pytest.raises(ValueError, match="int_slider"):
        int_slider(0, 1, 10)
    with pytest.raises(ValueError, match="float_slider"):
        float_slider(2.0, 0.0, 1.0)
    assert choice(["a", "b"]).value == "a"


def test_panel_calls_callback_with_slider_values():
    calls = []

    def cb(epsilon, n):
        calls.append((epsilon, n))
        fig, _ = new_figure()
        return fig

    p = panel(cb, epsilon=log_slider(1.0, 0.1, 10), n=int_slider(100, 10, 1000))
    assert isinstance(p, Panel) and p.values == {"epsilon": pytest.approx(1.0), "n": 100}
    p.controls["n"].value = 200                     # a slider move triggers exactly one redraw
    assert calls == [(pytest.approx(1.0), 200)]
    assert p.controls["epsilon"].description == "epsilon"
    with pytest.raises(ValueError, match="control"):
        panel(cb)


def test_laplace_explorer_is_pure_and_validates():
    fig1 = explore_laplace(m=10, trials=200)
    fig2 = explore_laplace(m=10, trials=200)
    data1 = fig1.axes[0].patches[0].get_xy().tolist(), fig1.axes[1].lines[-1].get_ydata().tolist()
    data2 = fig2.axes[0].patches[0].get_xy().tolist(), fig2.axes[1].lines[-1].get_ydata().tolist()
    assert data1 == data2                            # same parameters, same figure
    plt.close("all")
    with pytest.raises(ValueError, match="epsilon"):
        explore_laplace(epsilon=0)
    with pytest.raises(ValueError, match="m"):
        cancer_conjunctions(166)
    with pytest.raises(ValueError, match="n"):
        explore_laplace(n=0)


def test_laplace_error_sweeps_figure_draws_and_validates():
    from dpbook.explorers.laplace import figure_error_sweeps
    eps, ms = np.array([0.5, 1.0, 2.0]), np.array([1, 10, 55])
    fig = figure_error_sweeps(eps, [0.4, 0.2, 0.1], [0.5, 0.25, 0.12], [0.3] * 3, ms, [0.01, 0.1, 0.6],
                              [0.02, 0.2, 0.7], [0.3, 0.35, 0.36], m_fixed=55, eps_fixed=1.0)
    assert len(fig.axes) == 2 and fig.axes[0].get_ylabel() == "max error, 0.95-quantile"
    assert fig.axes[1].lines[1].get_ydata().tolist() == [0.01, 0.1, 0.6]      # the measured dots, as given
    plt.close(fig)
    with pytest.raises(ValueError, match="q_eps"):
        figure_error_sweeps(eps, [0.4, 0.2], [0.5, 0.25, 0.12], [0.3] * 3, ms, [0.01, 0.1, 0.6],
                            [0.02, 0.2, 0.7], [0.3] * 3, m_fixed=55, eps_fixed=1.0)
    with pytest.raises(ValueError, match="bound_m"):
        figure_error_sweeps(eps, [0.4, 0.2, 0.1], [0.5, 0.25, 0.12], [0.3] * 3, ms, [0.01, 0.1, 0.6],
                            [0.02, np.nan, 0.7], [0.3] * 3, m_fixed=55, eps_fixed=1.0)
    with pytest.raises(ValueError, match="eps_fixed"):
        figure_error_sweeps(eps, [0.4, 0.2, 0.1], [0.5, 0.25, 0.12], [0.3] * 3, ms, [0.01, 0.1, 0.6],
                            [0.02, 0.2, 0.7], [0.3] * 3, m_fixed=55, eps_fixed=0.0)


def test_show_source(capsys):
    show_source(use_style)
    out = capsys.readouterr().out
    assert "def use_style" in out and "Apply the book's figure style" not in out      # the docstring is left out
    show_source(use_style, docstring=True)
    assert "Apply the book's figure style" in capsys.readouterr().out
    with pytest.raises(TypeError, match="docstring"):
        show_source(use_style, docstring="yes")


def test_intro_explorer():
    from dpbook.explorers.intro import explore_noise
    fig = explore_noise(epsilon=0.5, sensitivity=2.0, samples=100)
    ratio = fig.axes[1].lines[0].get_ydata()
    assert abs(ratio).max() <= 0.5 + 1e-9            # the plotted privacy loss never leaves [-ε, ε]
    plt.close(fig)
    with pytest.raises(ValueError, match="sensitivity"):
        explore_noise(sensitivity=-1)


def test_reference_curve_draws_the_role_colour_along_x_and_validates():
    from dpbook.plots import BASELINE, UNIFORM, reference_curve
    fig, ax = new_figure()
    line = reference_curve(ax, [1, 2, 3], [0.1, 0.3, 0.3])
    assert line.get_color() == UNIFORM and line.get_linestyle() == "--"
    np.testing.assert_allclose(line.get_ydata(), [0.1, 0.3, 0.3])
    assert reference_curve(ax, [1, 2], [1, 2], role="baseline", label="b").get_color() == BASELINE
    with pytest.raises(ValueError, match="role"):
        reference_curve(ax, [1, 2], [1, 2], role="purple")
    with pytest.raises(ValueError, match="y"):
        reference_curve(ax, [1, 2], [1, 2, 3])
    plt.close(fig)


def _png_array(data):
    import base64
    import io

    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")).astype(int)


def _ink_box(rgb):
    ink = (rgb != 255).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    return rows[0], rows[-1], cols[0], cols[-1]


def _refuse(fig):
    raise AssertionError("the fallback printer must not be used for this figure")


def test_inline_png_draws_once_and_shows_what_savefig_shows(monkeypatch):
    import base64
    import io

    import matplotlib.figure
    from dpbook.plots import _inline_png, legend_outside, reference_line

    fig, (a, b) = new_figure(2)
    x = np.geomspace(0.05, 10, 9)
    for ax in (a, b):
        ax.plot(x, 1 / x, "o-", label="measured")
        reference_line(ax, 0.3)
        ax.set(xscale="log", yscale="log", xlabel="ε", ylabel="max error", title="a title")
    legend_outside(a, where="below", ncols=2)
    draws = []
    real_draw = matplotlib.figure.Figure.draw
    monkeypatch.setattr(matplotlib.figure.Figure, "draw", lambda self, r: (draws.append(1), real_draw(self, r))[1])
    new = _png_array(_inline_png(fig, _refuse))
    assert len(draws) == 1
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", facecolor=fig.get_facecolor())
    old = _png_array(base64.b64encode(buf.getvalue()))
    pad = round(matplotlib.rcParams["savefig.pad_inches"] * fig.dpi)
    r0, r1, c0, c1 = _ink_box(new)
    assert (r0, c0, new.shape[0] - 1 - r1, new.shape[1] - 1 - c1) == (pad, pad, pad, pad)   # the margin, all round
    o0, o1, p0, p1 = _ink_box(old)
    assert abs((r1 - r0) - (o1 - o0)) <= 3 and abs((c1 - c0) - (p1 - p0)) <= 3    # the same drawing (± antialiasing)
    assert abs(new.shape[0] - old.shape[0]) <= 12 and abs(new.shape[1] - old.shape[1]) <= 12
    assert new.shape[1] <= 900
    plt.close(fig)


def test_inline_png_leaves_to_savefig_what_it_cannot_show_whole():
    from dpbook.plots import _inline_png

    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1])
    fig.text(0.98, 0.5, "a label that runs past the right edge of the figure")       # ink touches the edge
    assert _inline_png(fig, lambda f: "fallback") == "fallback"
    fig.set_facecolor((1, 1, 1, 0))                                                    # a transparent figure
    assert _inline_png(fig, lambda f: "fallback") == "fallback"
    plt.close(fig)
    empty = plt.figure()
    assert _inline_png(empty, _refuse) is None                                         # as the inline backend
    plt.close(empty)


def test_use_style_installs_the_single_draw_printer_only_over_the_inline_default(monkeypatch):
    import functools
    import types

    import IPython
    from IPython.core.formatters import PNGFormatter
    from IPython.core.pylabtools import print_figure
    from matplotlib.figure import Figure

    for kwargs, replaced in (({"bbox_inches": "tight"}, True), ({}, True), ({"bbox_inches": None}, False),
                             ({"bbox_inches": "tight", "dpi": 200}, False)):
        formatter = PNGFormatter()
        printer = functools.partial(print_figure, fmt="png", base64=True, **kwargs)
        formatter.for_type(Figure, printer)
        shell = types.SimpleNamespace(display_formatter=types.SimpleNamespace(formatters={"image/png": formatter}))
        monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
        use_style()
        installed = formatter.type_printers[Figure]
        assert (installed is not printer) == replaced, kwargs
        use_style()                                                    # idempotent
        assert formatter.type_printers[Figure] is installed
        if replaced:
            fig, ax = new_figure()
            ax.plot([0, 1], [0, 1])
            assert _png_array(installed(fig)).shape[1] <= 900
            plt.close(fig)
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    use_style()                                                        # outside a kernel: nothing to do


def test_inline_png_keeps_a_full_width_figure_within_the_projector_width():
    from dpbook.explorers._layout import fixed_figure
    from dpbook.plots import MAX_WIDTH_PX, _inline_png

    fig, ax = fixed_figure(1, width=10, height=3, left=0.05, right=0.05, bottom=0.3, top=0.1)  # axes almost edge to edge
    ax.plot([0, 1], [0, 1])
    ax.set_xticks([]), ax.set_yticks([])
    ax.spines[["top", "right"]].set_visible(True)
    out = _png_array(_inline_png(fig, _refuse))
    assert out.shape[1] <= MAX_WIDTH_PX
    r0, r1, c0, c1 = _ink_box(out)
    assert r0 == round(0.1 * fig.dpi) and c0 >= 1 and out.shape[1] - 1 - c1 >= 1
    plt.close(fig)


def _layout_test_figure():
    fig, ax = new_figure()
    ax.plot([1, 10, 100], [1e-3, 0.5, 0.02], "o-", label="a long legend label that moves the axes")
    ax.set_yscale("log")
    ax.set_xlabel("n (rows)")
    ax.set_ylabel("max error")
    ax.set_title("a title")
    from dpbook.plots import legend_outside
    legend_outside(ax)
    return fig


def test_end_of_cell_draw_without_painting_leaves_the_same_figure_to_show(monkeypatch):
    # pyplot's end-of-cell hook draws every changed figure; the inline backend then draws it again to show it.
    # Constrained layout starts from the last layout, so the first draw changes what is shown: the unpainted
    # replacement must leave the same state, hence the same PNG bytes.
    from dpbook.plots import _draw_stale_figures_unpainted, _inline_png

    monkeypatch.setattr(matplotlib, "is_interactive", lambda: True)
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "module://matplotlib_inline.backend_inline")
    painted = _layout_test_figure()
    painted.canvas.draw()                                              # pyplot's hook: a full draw
    unpainted = _layout_test_figure()
    others = [num for num in plt.get_fignums() if plt.figure(num) not in (painted, unpainted)]
    for num in others:
        plt.close(num)
    assert painted.stale is False and unpainted.stale is True
    _draw_stale_figures_unpainted()                                    # draws the stale one only, unpainted
    assert unpainted.stale is False
    shown = _inline_png(painted, _refuse)
    assert _inline_png(unpainted, _refuse) == shown
    once = _layout_test_figure()                                       # a figure laid out once is not the same
    assert _inline_png(once, _refuse) != shown
    plt.close("all")


def test_the_draw_hook_is_replaced_in_place_and_only_for_the_inline_printer(monkeypatch):
    import functools
    import types

    import IPython
    from IPython.core.formatters import PNGFormatter
    from IPython.core.pylabtools import print_figure
    from matplotlib.figure import Figure

    from dpbook.plots import _draw_stale_figures_unpainted, _install_inline_png

    def first():
        pass

    def flush_figures():
        pass

    for kwargs, replaced in (({"bbox_inches": "tight"}, True), ({"bbox_inches": None}, False)):
        for printer_only in (True, False):
            formatter = PNGFormatter()
            formatter.for_type(Figure, functools.partial(print_figure, fmt="png", base64=True, **kwargs))
            hooks = [first, plt._draw_all_if_interactive, flush_figures]
            shell = types.SimpleNamespace(display_formatter=types.SimpleNamespace(formatters={"image/png": formatter}),
                                          events=types.SimpleNamespace(callbacks={"post_execute": hooks}))
            monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
            _install_inline_png(printer_only=printer_only)
            expected = _draw_stale_figures_unpainted if replaced else plt._draw_all_if_interactive
            assert hooks == [first, expected, flush_figures], (kwargs, printer_only)
            _install_inline_png()                                      # again: nothing more changes
            assert hooks == [first, expected, flush_figures]


def test_the_end_of_cell_draw_paints_again_once_the_backend_is_not_the_inline_one(monkeypatch):
    # a reader who switches to a live backend (ipympl) sees each changed figure redrawn at the end of a cell, as
    # pyplot's own hook does
    from dpbook.plots import _draw_stale_figures_unpainted

    monkeypatch.setattr(matplotlib, "is_interactive", lambda: True)
    painted = []
    for backend, paints in (("module://ipympl.backend_nbagg", True), ("module://matplotlib_inline.backend_inline", False)):
        monkeypatch.setattr(matplotlib, "get_backend", lambda: backend)
        fig = _layout_test_figure()
        monkeypatch.setattr(fig.canvas, "draw", lambda *a, **k: painted.append(backend))     # a painting draw
        _draw_stale_figures_unpainted()
        assert (backend in painted) == paints
        assert paints or fig.stale is False                            # inline: drawn, unpainted
        plt.close("all")
    assert painted == ["module://ipympl.backend_nbagg"]
