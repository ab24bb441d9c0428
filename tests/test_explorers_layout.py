"""The fixed-margin widget figures cut nothing off: at defaults and at the sliders' extremes every
axis (ticks, labels, title, legend) lies inside the figure as the panel renders it (no ``bbox_inches="tight"``)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from dpbook.explorers._layout import fixed_figure, overflow  # noqa: E402


def test_overflow_sees_a_cut_label_and_fixed_figure_checks_room():
    fig, (a, b) = fixed_figure(2, width=6, height=3, left=0.05, bottom=0.1)
    a.plot([1, 2], [1000, 2000])
    a.set_ylabel("a long label that needs room")
    assert overflow(fig) and "axes 0" in overflow(fig)[0]
    plt.close(fig)
    fig, ax = fixed_figure(width=6, height=3)
    ax.plot([1, 2], [1, 2])
    assert overflow(fig) == []
    plt.close(fig)
    with pytest.raises(ValueError, match="no room"):
        fixed_figure(2, width=1, height=3)


def _laplace(**kw):
    from dpbook.explorers.laplace import explore_laplace
    return explore_laplace(**kw)


def _rr(**kw):
    from dpbook.explorers.randomized_response import explore_rr
    return explore_rr(**kw)


def _histogram(**kw):
    from dpbook.explorers.histogram import explore_histogram
    return explore_histogram(**kw)


def _gaussian(**kw):
    from dpbook.explorers.gaussian import explore_gaussian
    return explore_gaussian(**kw)


def _sparse(**kw):
    from dpbook.explorers.sparse_vector import explore_sparse
    return explore_sparse(**kw)


def _smalldb(**kw):
    from dpbook.explorers.exponential import explore_smalldb
    return explore_smalldb(**kw)


def _online(**kw):
    from dpbook.explorers.idc import explore_online
    return explore_online(**kw)


def _sparse_project(**kw):
    from dpbook.explorers.sparse_project import explore_sparse_project
    return explore_sparse_project(**kw)


def _smooth(**kw):
    from dpbook.explorers.smooth import explore_smooth
    return explore_smooth(**kw)


CASES = [
    (_smooth, {}), (_smooth, dict(d=3, K=8, n=200_000, epsilon=0.1, query="box (non-smooth)")),
    (_smooth, dict(d=2, K=1, n=1000, epsilon=10.0, query="kink")),
    (_sparse_project, {}), (_sparse_project, dict(epsilon=0.1, delta=1e-8, m=32, k=3000, T=64, n=1000)),
    (_online, {}), (_online, dict(epsilon=0.05625, alpha_u=0.025, scale=100, k=200, idc="FK", analyst="worst query")),
    (_online, dict(idc="Median", scale=20_000, alpha_u=0.4, epsilon=0.9646, k=10)),
    (_smalldb, {}), (_smalldb, dict(epsilon=0.001, alpha=0.42, m=26)), (_smalldb, dict(epsilon=10.0, alpha=0.595, m=3)),
    (_sparse, {}), (_sparse, dict(epsilon=0.05, c=20, T=0.1, k=10)), (_sparse, dict(epsilon=50.0, c=1, T=0.5)),
    (_gaussian, {}), (_gaussian, dict(epsilon=0.5 * 10 ** -1.7, delta=1e-12, m=1024)),
    (_gaussian, dict(epsilon=0.5 * 10 ** 0.3, delta=1e-2, m=1)),
    (_histogram, {}), (_histogram, dict(epsilon=0.01, d=16, n=99_997, beta=0.005)),
    (_histogram, dict(epsilon=100.0, d=4, n=97, beta=0.5)),
    (_rr, {}), (_rr, dict(epsilon=0.01, n=99_969, k=1161)), (_rr, dict(epsilon=10.0, n=69, k=1, beta=0.0005)),
    (_laplace, {}), (_laplace, dict(epsilon=0.01)), (_laplace, dict(n=19_969, k=1, epsilon=10.0)),
    (_laplace, dict(k=165, beta=0.0005)),
]


@pytest.mark.parametrize("make, kw", CASES, ids=[f"{m.__name__[1:]}-{kw}" for m, kw in CASES])
def test_widget_figures_fit(make, kw):
    fig = make(**kw)
    try:
        assert overflow(fig) == []
    finally:
        plt.close(fig)


def test_unicode_power_labels_read_like_mathtext():
    from dpbook.explorers._layout import unicode_power
    assert unicode_power(r"$\mathdefault{10^{-2}}$") == "10⁻²"
    assert unicode_power(r"$\mathdefault{2\times10^{-1}}$") == "2×10⁻¹"
    assert unicode_power(r"$\mathdefault{10^{13}}$") == "10¹³"
    assert unicode_power(r"$\mathdefault{-10^{0}}$") == "−10⁰"
    for other in ("", "0.5", r"$\mathdefault{1}$"):
        assert unicode_power(other) == other
