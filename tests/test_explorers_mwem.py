"""Chapter 09's figure functions (``dpbook.explorers.mwem.figure_*``): each draws from the numbers the chapter
computes, in the book's style (at most two panels, at most the projector width, role colours), and refuses
malformed input by name."""
import json
import pathlib

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook import plots
from dpbook.comparisons import MECHANISMS  # noqa: E402
from dpbook.explorers.mwem import (figure_ablation, figure_peers, figure_potential, figure_regime,
                                   figure_rounds_sweep, figure_workload_growth)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _panels(fig):
    return [ax for ax in fig.axes if ax.has_data()]


def _colours(fig):
    return {mpl.colors.to_hex(line.get_color()) for ax in fig.axes for line in ax.lines}


def _check(fig, panels):
    try:
        assert len(_panels(fig)) == panels
        assert fig.get_size_inches()[0] <= plots.MAX_WIDTH_IN
        return _colours(fig)
    finally:
        plt.close(fig)


def test_figure_potential_draws_measured_and_bounds():
    psi = 3.5 - 0.001 * np.arange(50)
    colours = _check(figure_potential(psi, 0.05, 2048), 1)
    assert {plots.EMPIRICAL, plots.BOUND} <= colours
    with pytest.raises(ValueError, match="psi"):
        figure_potential([np.nan, 1.0], 0.05, 2048)
    with pytest.raises(ValueError, match="alpha"):
        figure_potential(psi, -1, 2048)
    with pytest.raises(ValueError, match="N"):
        figure_potential(psi, 0.05, 1)


def _sweep(k):
    v = np.linspace(0.3, 0.2, k)
    return dict(median=v, low=v - 0.01, high=v + 0.01, bound=v + 1, histogram=0.01, histogram_bound=0.05,
                uniform=0.36)


def test_figure_rounds_sweep_two_panels_histogram_in_purple():
    T = [5, 20, 50]
    colours = _check(figure_rounds_sweep(T, {10: _sweep(3), 100: _sweep(3)}, m=1320, epsilon=1.0), 2)
    assert {plots.EMPIRICAL, plots.BOUND, plots.HISTOGRAM, plots.UNIFORM} <= colours
    with pytest.raises(ValueError, match="sweeps"):
        figure_rounds_sweep(T, {1: _sweep(3), 2: _sweep(3), 3: _sweep(3)}, m=1320, epsilon=1.0)
    with pytest.raises(ValueError, match="median"):
        figure_rounds_sweep(T, {10: _sweep(4)}, m=1320, epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        figure_rounds_sweep(T, {10: _sweep(3)}, m=1320, epsilon=0)


def test_figure_workload_growth_roles():
    ms = [22, 220, 1320]
    errors = {name: [0.1, 0.2, 0.3] for name in ("MWEM (T=20)", "MWEM, replay 2", "Laplace", "noisy histogram",
                                                 "uniform guess")}
    colours = _check(figure_workload_growth(ms, errors, [0.01, 0.1, 0.3], [0.06, 0.07, 0.07], n=5000, epsilon=1.0), 1)
    assert {plots.EMPIRICAL, plots.BASELINE, plots.HISTOGRAM, plots.UNIFORM} <= colours
    with pytest.raises(ValueError, match="errors"):
        figure_workload_growth(ms, {"MWEM": [1, 2, 3]}, [0.1] * 3, [0.1] * 3, n=5000, epsilon=1.0)
    with pytest.raises(ValueError, match="laplace_bound"):
        figure_workload_growth(ms, errors, [0.1] * 2, [0.1] * 3, n=5000, epsilon=1.0)


def test_figure_regime_two_panels():
    d_grid, n_grid = [8, 12, 16], [225, 1797]
    by_d = {name: [0.1, 0.2, 0.3] for name in MECHANISMS}
    by_n = {name: [0.2, 0.1] for name in MECHANISMS}
    bounds = {"histogram bound": [0.05, 0.2, 0.9], "HLM bound": [2.0, 2.3, 2.6]}
    colours = _check(figure_regime(d_grid, by_d, bounds, n_grid, by_n, n=1797, d=10), 2)
    assert {plots.EMPIRICAL, plots.HISTOGRAM, plots.BOUND, plots.UNIFORM} <= colours
    assert plots.BASELINE not in colours                       # the histogram is not the per-query baseline
    with pytest.raises(ValueError, match="by_n"):
        figure_regime(d_grid, by_d, bounds, n_grid, {"MWEM": [1, 2]}, n=1797, d=10)
    with pytest.raises(ValueError, match="d"):
        figure_regime(d_grid, by_d, bounds, n_grid, by_n, n=1797, d=40)


def test_figure_ablation_rows_and_references():
    errors = {"a": (np.array([0.2, 0.25]), np.array([0.09, 0.1])), "b": (np.array([0.1, 0.12]), np.array([0.03, 0.04]))}
    fig = figure_ablation(errors, (np.array([0.15]), np.array([0.04])), (0.25, 0.1), title="t")
    ticks = dict(zip(fig.axes[0].get_yticks(), (t.get_text() for t in fig.axes[0].get_yticklabels())))
    assert ticks[max(ticks)] == "a" and ticks[min(ticks)] == "b"                      # first variant on top
    colours = _check(fig, 2)
    assert {plots.EMPIRICAL, plots.HISTOGRAM, plots.UNIFORM} <= colours
    with pytest.raises(ValueError, match="errors"):
        figure_ablation({}, (np.array([0.15]), np.array([0.04])), (0.25, 0.1), title="t")
    with pytest.raises(TypeError, match="title"):
        figure_ablation(errors, (np.array([0.15]), np.array([0.04])), (0.25, 0.1), title=3)


def test_figure_peers_reads_the_committed_results():
    peers = json.loads((ROOT / "benchmarks" / "peers" / "results.json").read_text())
    colours = _check(figure_peers(peers), 1)
    assert {plots.EMPIRICAL, plots.HISTOGRAM, plots.UNIFORM} <= colours
    with pytest.raises(ValueError, match="peers"):
        figure_peers({"rows": []})
