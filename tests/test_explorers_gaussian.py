"""Chapter 04's figures (dpbook.explorers.gaussian.figure_*): they draw within the book's rules and refuse bad input."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook.explorers._layout import overflow
from dpbook.explorers.gaussian import figure_accuracy, figure_calibration, figure_privacy_loss, figure_rows_needed


def _ok(fig, panels):
    try:
        assert len(fig.axes) == panels and fig.get_size_inches()[0] * fig.dpi <= 900 and overflow(fig) == []
    finally:
        plt.close(fig)


def test_figures_draw_within_the_rules():
    rng = np.random.default_rng(1)
    mu = 0.01
    loss = rng.normal(mu, np.sqrt(2 * mu), 10_000)
    fig = figure_privacy_loss(loss, mu, 0.5, delta=1e-3, tail_exact=1e-4)
    assert fig.axes[0].get_title().startswith("P[L > ε]: ")
    _ok(fig, 1)
    eps = np.geomspace(0.01, 30, 10)
    _ok(figure_calibration(eps, eps * 1e-7, eps * 1e-6, 0.5 + eps / 100, delta=1e-5), 2)
    e = np.array([0.1, 0.5, 0.9])
    b = np.array([0.01, 0.05, 0.1])
    _ok(figure_accuracy(e, 1 / e, 1.2 / e, 3 / e, 0.25, b, b / 10, b / 20, b / 5, b / 10, m=220, delta=1e-6, n=569,
                        beta_epsilon=0.5), 2)
    ms = np.array([4, 16, 64])
    _ok(figure_rows_needed(ms, 100 * ms, 90 * ms, 300 * np.sqrt(ms), 320 * np.sqrt(ms), alpha=0.05, beta=0.05,
                           epsilon=0.5, delta=1e-6), 1)


def test_figures_refuse_bad_input():
    e = np.array([0.1, 0.5])
    with pytest.raises(ValueError, match="mu"):
        figure_privacy_loss([0.1, 0.2], -1.0, 0.5, delta=1e-3, tail_exact=1e-4)
    with pytest.raises(ValueError, match="tail_exact"):
        figure_privacy_loss([0.1, 0.2], 0.01, 0.5, delta=1e-3, tail_exact=2.0)
    with pytest.raises(ValueError, match="loss"):
        figure_privacy_loss([], 0.01, 0.5, delta=1e-3, tail_exact=0.1)
    with pytest.raises(ValueError, match="exact_delta"):
        figure_calibration(e, [1e-7], e, e, delta=1e-5)
    with pytest.raises(ValueError, match="eps"):
        figure_calibration(-e, e, e, e, delta=1e-5)
    with pytest.raises(ValueError, match="m"):
        figure_accuracy(e, e, e, e, 0.25, e, e, e, e, e, m=0, delta=1e-6, n=569, beta_epsilon=0.5)
    with pytest.raises(TypeError, match="q_gauss"):
        figure_accuracy(e, "ab", e, e, 0.25, e, e, e, e, e, m=2, delta=1e-6, n=569, beta_epsilon=0.5)
    with pytest.raises(ValueError, match="alpha"):
        figure_rows_needed(e, e, e, e, e, alpha=0, beta=0.05, epsilon=0.5, delta=1e-6)
    with pytest.raises(ValueError, match="need_gauss"):
        figure_rows_needed(e, e, e, -e, e, alpha=0.05, beta=0.05, epsilon=0.5, delta=1e-6)
