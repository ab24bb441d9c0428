"""Chapter 13's figure functions draw one idea each, in the book's style, and reject bad input."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpbook.explorers import projection as px  # noqa: E402
from dpbook.geometry import gaussian_width  # noqa: E402
from dpbook.plots import MAX_WIDTH_IN  # noqa: E402
from dpbook.queries import MatrixWorkload, k_way_marginals  # noqa: E402
from dpbook.theory.projection import gaussian_width_bound, gaussian_width_bound_seed  # noqa: E402


def _drawn(fig, panels):
    try:
        assert len(fig.axes) == panels and fig.get_size_inches()[0] <= MAX_WIDTH_IN
        assert fig.axes[0].get_ylabel()
    finally:
        plt.close(fig)


def test_figures_draw():
    v = np.array([0.01, 0.1, 1.0, 10.0])
    _drawn(px.figure_key_lemma(v, v / 4, v / 3, v / 2), 2)
    est = lambda W: gaussian_width(W, samples=20, rng=1)
    widths = {"random": [(5, 8, est(MatrixWorkload(np.eye(8)[:5]))), (8, 8, est(MatrixWorkload(np.eye(8))))],
              "marginal cells": [(6, 8, est(k_way_marginals(3, 1))), (12, 8, est(k_way_marginals(3, 2)))]}
    _drawn(px.figure_widths(widths, N=8, bound=gaussian_width_bound, notes_bound=gaussian_width_bound_seed), 2)
    _drawn(px.figure_rms_accuracy(v, v, 2 * v, 3 * v, 2 * v, 2 * v, 0.1, xlabel="n"), 1)
    _drawn(px.figure_rms_accuracy(v, v, 2 * v, 3 * v, 2 * v, 2 * v, v, xlabel="n", title="t"), 1)
    errs = {name: [0.1, 0.2] for name in px.COMPARED}
    _drawn(px.figure_compare_m([20, 80], errs, metric="rms", bound=0.3), 1)
    _drawn(px.figure_compare_m([20, 80], errs, metric="max"), 1)


def test_figures_reject_bad_input():
    v = np.array([0.1, 1.0])
    with pytest.raises(ValueError, match="lhs"):
        px.figure_key_lemma(v, v[:1], v, v)
    with pytest.raises(ValueError, match="noisy_sq"):
        px.figure_key_lemma(-v, v, v, v)
    with pytest.raises(ValueError, match="widths"):
        px.figure_widths({}, N=8, bound=gaussian_width_bound, notes_bound=gaussian_width_bound_seed)
    with pytest.raises(TypeError, match="bound"):
        px.figure_widths({"a": [], "marginal": []}, N=8, bound=1.0, notes_bound=gaussian_width_bound_seed)
    with pytest.raises(ValueError, match="uniform"):
        px.figure_rms_accuracy(v, v, v, v, v, v, [0.1, 0.2, 0.3], xlabel="n")
    with pytest.raises(ValueError, match="metric"):
        px.figure_compare_m([20, 80], {n: [1, 1] for n in px.COMPARED}, metric="mean")
    with pytest.raises(ValueError, match="errors"):
        px.figure_compare_m([20, 80], {"projection": [1, 1]}, metric="rms")
    with pytest.raises(TypeError):
        px.figure_compare_m("20", {n: [1, 1] for n in px.COMPARED}, metric="rms")
