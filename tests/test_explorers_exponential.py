"""Chapters 07 and 08: the figure functions and the exponential-mechanism widget draw, are pure, and reject bad input."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpbook.explorers import exponential as ex  # noqa: E402
from dpbook.explorers import smalldb as sx  # noqa: E402
from dpbook.plots import MAX_WIDTH_IN  # noqa: E402


def _drawn(fig, panels=1):
    try:
        assert len(fig.axes) == panels and fig.get_size_inches()[0] <= MAX_WIDTH_IN
        assert all(ax.get_ylabel() for ax in fig.axes)
    finally:
        plt.close(fig)


def test_chapter_07_figures_draw_and_reject_bad_input():
    b = np.geomspace(0.01, 0.5, 4)
    _drawn(ex.figure_utility_tail(b, b / 10, b / 20, b / 5, b / 10, epsilon=0.5, range_size=2048))
    e = np.geomspace(0.1, 10, 4)
    _drawn(ex.figure_gap_quantile(e, [50, 20, 0, 0], [40, 0, 0, 0], range_size=2048, beta=0.05, guess_gap=57))
    _drawn(ex.figure_missing_half([2, 10, 100], 1.0))
    t = np.linspace(0, 10, 5)
    _drawn(ex.figure_ties_tail(t, np.exp(-t), np.exp(-t / 2), np.exp(-t / 3), opt_size=50))
    with pytest.raises(ValueError, match="rates"):
        ex.figure_utility_tail(b, b[:2], b, b, b, epsilon=0.5, range_size=2048)
    with pytest.raises(ValueError, match="epsilon"):
        ex.figure_utility_tail(b, b, b, b, b, epsilon=-1.0, range_size=2048)
    with pytest.raises(ValueError, match="eps_grid"):
        ex.figure_gap_quantile([0.0, 1.0], [1, 1], [1, 1], range_size=10, beta=0.05, guess_gap=1)
    with pytest.raises(ValueError, match="sizes"):
        ex.figure_missing_half([1, 5], 1.0)
    with pytest.raises(ValueError, match="opt_size"):
        ex.figure_ties_tail(t, t, t, t, opt_size=0)
    with pytest.raises(TypeError):
        ex.figure_ties_tail("abc", t, t, t, opt_size=1)


def test_explore_exponential_pure_and_valid():
    a, b = ex.explore_exponential(epsilon=0.3), ex.explore_exponential(epsilon=0.3)
    try:
        assert len(a.axes) == 2 and a.get_size_inches()[0] <= 10
        ya = [np.asarray(ln.get_ydata(), dtype=float).tolist() for ln in a.axes[1].get_lines()]
        yb = [np.asarray(ln.get_ydata(), dtype=float).tolist() for ln in b.axes[1].get_lines()]
        assert ya == yb                                                      # pure: same picture twice
    finally:
        plt.close(a), plt.close(b)
    for kw in (dict(epsilon=0.0), dict(epsilon=float("nan")), dict(beta=1.5), dict(epsilon=1e6)):
        with pytest.raises(ValueError):
            ex.explore_exponential(**kw)


def test_chapter_08_figures_draw_and_reject_bad_input():
    e = np.geomspace(0.01, 10, 5)
    q = np.array([0.6, 0.4, 0.1, 0.05, 0.04])
    _drawn(sx.figure_smalldb_bounds(e, q, q, 2 * q, 3 * q, opt=0.04, uniform=0.22))
    _drawn(sx.figure_smalldb_vs_histogram(e, q, q / 3, q, uniform=0.22, title="x"))
    _drawn(sx.figure_crossover(np.arange(4, 12, 2), [2.0, 1.0, 0.5, 0.2], [10, 40, 90, 200], max_log10_range=6.3), 2)
    with pytest.raises(ValueError, match="eps"):
        sx.figure_smalldb_bounds(-e, q, q, q, q, opt=0.04, uniform=0.2)
    with pytest.raises(ValueError, match="opt"):
        sx.figure_smalldb_bounds(e, q, q, q, q, opt=0.0, uniform=0.2)
    with pytest.raises(ValueError, match="histogram_q"):
        sx.figure_smalldb_vs_histogram(e, q, q[:2], q, uniform=0.2)
    with pytest.raises(ValueError, match="alpha_x"):
        sx.figure_crossover([4, 6], [1.0], [1, 2], max_log10_range=6)
    with pytest.raises(ValueError, match="max_log10_range"):
        sx.figure_crossover([4, 6], [1.0, 0.5], [1, 2], max_log10_range=0)


def test_sampling_lemma_figure_draws_and_rejects_bad_input():
    s = np.array([2, 5, 10, 20, 40])
    rate = np.array([0.9, 0.5, 0.1, 0.01, 0.0])
    kw = dict(alpha=0.2, m=18, trials=10_000, dr_size=73, a3_size=45)
    fig = sx.figure_sampling_lemma(s, rate, rate / 2, np.minimum(2 * rate + 1e-4, 1), 36 * np.exp(-0.08 * s), **kw)
    try:
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert any("73" in t for t in labels) and any("45" in t for t in labels)          # both sizes marked
    finally:
        plt.close(fig)
    _drawn(sx.figure_sampling_lemma(s, rate, rate, rate, rate, **kw))
    with pytest.raises(ValueError, match="lower"):
        sx.figure_sampling_lemma(s, rate, rate[:2], rate, rate, **kw)
    with pytest.raises(ValueError, match="db_sizes"):
        sx.figure_sampling_lemma(-s, rate, rate, rate, rate, **kw)
    with pytest.raises(ValueError, match="alpha"):
        sx.figure_sampling_lemma(s, rate, rate, rate, rate, **dict(kw, alpha=0.0))
    with pytest.raises(TypeError, match="trials"):
        sx.figure_sampling_lemma(s, rate, rate, rate, rate, **dict(kw, trials=1.5))
    with pytest.raises(ValueError, match="dr_size"):
        sx.figure_sampling_lemma(s, rate, rate, rate, rate, **dict(kw, dr_size=-1))
