"""The chapter-10–12 figure functions of ``dpbook.explorers.idc``: they draw in the book's roles and refuse bad input."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpbook.explorers._layout import overflow  # noqa: E402
from dpbook.explorers.idc import (R_COLORS, explore_potential, figure_boxes, figure_curves,  # noqa: E402
                                  figure_potentials)
from dpbook.queries import cancer6  # noqa: E402
from dpbook.idc import MultiplicativeWeightsIDC, drive_with_oracle  # noqa: E402
from dpbook.plots import BASELINE, BOUND, EMPIRICAL, HISTOGRAM, MAX_WIDTH_PX  # noqa: E402


def _width_px(fig):
    return fig.get_size_inches()[0] * fig.dpi


def test_figure_potentials_draws_measured_against_the_promised_line():
    x, W = cancer6()
    rule = MultiplicativeWeightsIDC(64, 0.1)
    run = drive_with_oracle(rule, x, W)
    fig = figure_potentials([("MW", rule, run)])
    ax = fig.axes[0]
    colours = [line.get_color() for line in ax.get_lines()]
    assert EMPIRICAL in colours and BOUND in colours and _width_px(fig) <= MAX_WIDTH_PX
    measured = ax.get_lines()[0].get_ydata()
    promised = ax.get_lines()[1].get_ydata()
    assert np.all(measured <= promised + 1e-12)              # the potential argument, as drawn
    plt.close(fig)
    with pytest.raises(ValueError, match="one or two"):
        figure_potentials([("MW", rule, run)] * 3)
    with pytest.raises(TypeError, match="drive_with_oracle"):
        figure_potentials([("MW", rule, "not a run")])


@pytest.mark.parametrize("kw", [dict(), dict(idc="Median", alpha=0.2), dict(idc="FK", alpha=0.4), dict(alpha=0.03)])
def test_explore_potential_fits_its_figure(kw):
    fig = explore_potential(**kw)
    assert overflow(fig) == [] and _width_px(fig) <= MAX_WIDTH_PX and len(fig.axes) == 2
    plt.close(fig)


@pytest.mark.parametrize("bad, match", [(dict(idc="LP"), "idc"), (dict(alpha=0.0), "alpha"), (dict(alpha=2.0), "alpha")])
def test_explore_potential_rejects_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        explore_potential(**bad)


def test_figure_curves_uses_role_colours_and_a_reference_line():
    n = np.array([1e3, 1e4, 1e5])
    fig = figure_curves([{"series": [("m", n, 1 / n, "measured"), ("b", n, 2 / n, "bound"), ("h", n, 0.5 / n, "histogram"),
                                     ("g", n, 0.7 / n, "baseline"), ("u", n, [0.4], "uniform")],
                          "logx": True, "logy": True, "ylabel": "max error"}])
    colours = {line.get_label(): line.get_color() for line in fig.axes[0].get_lines()}
    assert (colours["m"], colours["b"], colours["h"], colours["g"]) == (EMPIRICAL, BOUND, HISTOGRAM, BASELINE)
    assert "u" in colours and fig.axes[0].get_legend() is not None
    plt.close(fig)
    fig = figure_curves([{"series": [("a", n, n, "extra")]}, {"series": [("b", n, n, "measured")]}])
    assert len(fig.axes) == 2 and _width_px(fig) <= MAX_WIDTH_PX
    plt.close(fig)


@pytest.mark.parametrize("panels, exc", [([], ValueError), ([{"series": []}] * 3, ValueError), (["x"], TypeError),
                                         ([{"series": [("a", [1], [1], "teal")]}], ValueError)])
def test_figure_curves_rejects_bad_panels(panels, exc):
    with pytest.raises(exc):
        figure_curves(panels)
    plt.close("all")


def test_figure_boxes_colours_each_box_by_its_role():
    fig = figure_boxes([("IC", [0.2, 0.21], "measured"), ("hist", [1e-5, 2e-5], "histogram")], ylabel="max error",
                       lines=[(0.3, "bound", "bound"), (0.36, "uniform guess", "uniform")])
    assert _width_px(fig) <= MAX_WIDTH_PX and fig.axes[0].get_legend() is not None
    plt.close(fig)
    with pytest.raises(ValueError, match="groups"):
        figure_boxes([], ylabel="max error")
    with pytest.raises(ValueError, match="role"):
        figure_boxes([("IC", [0.2], "teal")], ylabel="max error")
    plt.close("all")


def test_round_classes_have_no_role_colour_by_accident():
    from matplotlib.colors import to_hex
    assert len({to_hex(c, keep_alpha=True) for c in R_COLORS.values()}) == len(R_COLORS)


def test_figure_boxes_writes_the_medians_when_asked():
    fig = figure_boxes([("IC", [0.2, 0.22, 0.24], "measured"), ("hist", [1e-5, 2e-5, 3e-5], "histogram")],
                       ylabel="max error", lines=[(0.3, "bound", "bound")], medians=True)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["0.22", "2e-05"]
    assert fig.axes[0].get_ylim()[0] < 1e-5 / 3         # room for the lowest label
    plt.close(fig)


@pytest.mark.parametrize("kw, name", [(dict(n=0), "n"), (dict(n=2.5), "n"), (dict(epsilon0=0.9), "epsilon0"),
                                      (dict(epsilon0=float("nan")), "epsilon0"), (dict(b_max=-1), "b_max"),
                                      (dict(alpha=0.0), "alpha"), (dict(alpha="0.6"), "alpha"), (dict(runs=10), "runs"),
                                      (dict(seed=-1), "seed"), (dict(seed=[1]), "seed")])
def test_explore_tail_rejects_bad_input_by_name(kw, name):
    """The tail view refuses bad input naming the parameter, before the cached replay is asked (a list would
    otherwise reach the cache as an unhashable key)."""
    from dpbook.explorers.idc import explore_tail
    with pytest.raises((ValueError, TypeError), match=name):
        explore_tail(**kw)
