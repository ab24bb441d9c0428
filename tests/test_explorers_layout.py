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
    (_sparse_project, {}), (_sparse_project, dict(epsilon=0.1, delta=1e-8, s=32, m=3000, ell=64, n=1000)),
    (_online, {}), (_online, dict(epsilon=0.05625, alpha_u=0.025, scale=100, m=200, idc="FK", analyst="worst query")),
    (_online, dict(idc="Median", scale=20_000, alpha_u=0.4, epsilon=0.9646, m=10)),
    (_smalldb, {}), (_smalldb, dict(epsilon=0.001, alpha=0.42, m=26)), (_smalldb, dict(epsilon=10.0, alpha=0.595, m=3)),
    (_sparse, {}), (_sparse, dict(epsilon=0.05, c=20, threshold=0.1, m=10)), (_sparse, dict(epsilon=50.0, c=1, threshold=0.5)),
    (_gaussian, {}), (_gaussian, dict(epsilon=0.5 * 10 ** -1.7, delta=1e-12, m=1024)),
    (_gaussian, dict(epsilon=0.5 * 10 ** 0.3, delta=1e-2, m=1)),
    (_histogram, {}), (_histogram, dict(epsilon=0.01, d=16, n=99_997, beta=0.005)),
    (_histogram, dict(epsilon=100.0, d=4, n=97, beta=0.5)),
    (_rr, {}), (_rr, dict(epsilon=0.01, n=99_969, m=1161)), (_rr, dict(epsilon=10.0, n=69, m=1, beta=0.0005)),
    (_laplace, {}), (_laplace, dict(epsilon=0.01)), (_laplace, dict(n=19_969, m=1, epsilon=10.0)),
    (_laplace, dict(m=165, beta=0.0005)),
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


# --- every explorer's default figure follows the book's figure rules -----------------------------------------------
# ≤ 900 px wide at its own dpi (the panel's MAX_WIDTH: no panel shrinks it), nothing cut off, ≤ 2 axes with data (a
# colorbar is not a panel), every text at least the style's 10 pt; and every number printed from a parameter rounded.

import importlib  # noqa: E402
import inspect  # noqa: E402
import math  # noqa: E402
import pkgutil  # noqa: E402
import re  # noqa: E402

import dpbook.explorers  # noqa: E402
from dpbook.plots import STYLE  # noqa: E402
from dpbook.widgets import MAX_WIDTH  # noqa: E402


def _explorers():
    """Every public ``explore_*`` callable defined in a module of ``dpbook.explorers`` (re-exports counted once)."""
    found = {}
    for info in pkgutil.iter_modules(dpbook.explorers.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"dpbook.explorers.{info.name}")
        for name, fn in vars(module).items():
            if name.startswith("explore_") and callable(fn) and getattr(fn, "__module__", None) == module.__name__:
                found[f"{info.name}.{name}"] = fn
    return found


EXPLORERS = _explorers()


def test_explorers_are_discovered():
    assert len(EXPLORERS) >= 17
    assert {"idc.explore_round", "idc.explore_run", "graphs.explore_randomized_response", "auditing.explore_audit",
            "projection.explore_projection", "intro.explore_noise"} <= set(EXPLORERS)


def _is_colorbar(ax):
    return ax.get_label() == "<colorbar>"


def _font_sizes_below(fig, size):
    from matplotlib.text import Text
    return sorted({(t.get_fontsize(), t.get_text()[:40]) for t in fig.findobj(Text)
                   if t.get_visible() and t.get_text().strip() and t.get_fontsize() < size})


def _check_rules(fig):
    """The book's figure rules for one figure; an empty list when it follows them all."""
    problems = []
    width = fig.get_size_inches()[0] * fig.dpi
    if width > MAX_WIDTH + 0.5:
        problems.append(f"{width:.0f} px wide at {fig.dpi:g} dpi (> {MAX_WIDTH})")
    problems += overflow(fig)                          # draws the figure: tick labels exist from here on
    panels = [ax for ax in fig.axes if ax.has_data() and not _is_colorbar(ax)]
    if len(panels) > 2:
        problems.append(f"{len(panels)} axes with data (> 2 panels)")
    problems += [f"text below {STYLE['font.size']} pt: {t}" for t in _font_sizes_below(fig, STYLE["font.size"])]
    return problems


@pytest.mark.parametrize("key", sorted(EXPLORERS))
def test_default_figure_follows_the_book_rules(key):
    fig = EXPLORERS[key]()
    try:
        assert fig.dpi == STYLE["figure.dpi"]
        assert _check_rules(fig) == []
    finally:
        plt.close(fig)


# the sliders' other ends, where labels are longest or a figure changes shape (defaults are covered above)
EXTREMES = [
    ("graphs.explore_randomized_response", dict(epsilon=0.1, num_vertices=14, density=1.0, beta=0.0005)),
    ("graphs.explore_randomized_response", dict(epsilon=10.0, num_vertices=4, density=0.0, beta=0.5)),
    ("graphs.explore_online", dict(epsilon=1.0, num_vertices=40, density=1.0, idc="FK")),
    ("graphs.explore_online", dict(epsilon=0.9 * 10 ** 0.025, num_vertices=6, density=0.05, idc="MW")),
    ("projection.explore_projection", dict(m=3)),
    ("projection.explore_projection", dict(m=3, workload="random values", epsilon=0.05, delta=1e-10, n=500)),
    ("projection.explore_projection", dict(m=2, workload="one-way cells", epsilon=0.5 * 10 ** 0.25, delta=1e-2, n=5)),
    ("idc.explore_run", dict(n=5000, b_max=101, epsilon=0.1, delta=1e-10, alpha=0.075)),
    ("idc.explore_run", dict(n=20, b_max=1, epsilon=10.0, delta=1e-2, alpha=1.2)),
    ("idc.explore_round", dict(n=10**6, epsilon0=0.01, gap=-5.0, alpha=0.05)),
    ("idc.explore_online", dict(epsilon=0.05625, alpha_u=0.4, scale=20_000, m=200, idc="Median",
                                analyst="worst query")),
    ("exponential.explore_smalldb", dict(epsilon=0.001, alpha=0.42, m=26)),
    ("exponential.explore_smalldb", dict(epsilon=10.0, alpha=0.595, m=3)),
    ("sparse_project.explore_sparse_project", dict(epsilon=0.1, delta=1e-8, s=32, m=3000, ell=64, n=1000)),
    ("sparse_project.explore_sparse_project", dict(epsilon=10.0, delta=1e-2, s=2, m=100, ell=4096, n=2000)),
    ("auditing.explore_audit", dict(case="gaussian_analytic", epsilon=0.1, trials=1000)),
    ("auditing.explore_audit", dict(case="textbook_noisy_count", epsilon=10.0, trials=200_000)),
    ("mwem.explore_mwem", dict(epsilon=0.1, d=16, n=197, T=100)),
    ("intro.explore_noise", dict(epsilon=0.01, sensitivity=10.0)),
    ("smooth.explore_smooth", dict(d=3, K=8, n=200_000, epsilon=0.1, query="box (non-smooth)")),
]


@pytest.mark.parametrize("key, kw", EXTREMES, ids=[f"{k}-{kw}" for k, kw in EXTREMES])
def test_figures_follow_the_book_rules_at_the_sliders_ends(key, kw):
    fig = EXPLORERS[key](**kw)
    try:
        assert _check_rules(fig) == []
    finally:
        plt.close(fig)


def test_check_rules_sees_a_wide_crowded_figure():
    fig, axes = plt.subplots(1, 3, figsize=(11, 3), dpi=90)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
    axes[0].set_title("small", fontsize=8)
    problems = _check_rules(fig)
    plt.close(fig)
    assert any("px wide" in p for p in problems) and any("3 axes" in p for p in problems)
    assert any(f"below {STYLE['font.size']} pt" in p for p in problems)


# --- numbers printed from parameters are rounded ----------------------------------------------------------------

LOG_STEP = 10 ** 0.05          # one step of a 40-step log slider over two decades: 1.1220184543019633
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+")


def _significant(token: str) -> str:
    """The significant digits of a number as printed (``"0.0561"`` → ``"561"``, ``"1,200"`` → ``"12"``)."""
    token = token.replace(",", "")
    if "." in token:
        return token.replace(".", "").lstrip("0")
    return token.lstrip("0").rstrip("0")


def _digits(x: float) -> str:
    return f"{abs(x):.15e}".split("e")[0].replace(".", "")


def _non_tick_texts(fig):
    """Every visible text of ``fig`` except tick labels and axis offsets: titles, axis labels, legends, annotations."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    FigureCanvasAgg(fig).draw()
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks.update(map(id, axis.get_majorticklabels() + axis.get_minorticklabels()))
            ticks.add(id(axis.get_offset_text()))
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in ticks]


def _unrounded(texts, values):
    """Numbers in ``texts`` that show more than 4 significant digits of one of ``values``, and numbers with a
    decimal point and more than 4 significant digits (whatever they come from)."""
    bad = []
    for text in texts:
        for token in _NUMBER.findall(text):
            sig = _significant(token)
            if len(sig) > 4 and ("." in token or any(sig[:5] == _digits(v)[:5] for v in values)):
                bad.append((token, text))
    return bad


def test_unrounded_sees_long_numbers():
    assert _unrounded(["ε=1.12202", "answer 1.122018"], [1.1220184543019633]) == [
        ("1.12202", "ε=1.12202"), ("1.122018", "answer 1.122018")]
    assert _unrounded(["|R|=50,388, m=18, ε=1.12", "n = 569·2,000", "δ=1.12e-06", "median 0.0623"],
                      [1.1220184543019633, 1.1220184543019633e-06]) == []
    assert _unrounded(["α = 0.56101"], [0.5610092271509817]) == [("0.56101", "α = 0.56101")]
    assert _unrounded(["k = 11221"], [11221.4]) == [("11221", "k = 11221")]


def test_stored_values_only_explorers_refuse_other_values():
    """The exemption above is true: moved one log step, those explorers refuse the value (a clear ValueError)."""
    for key in STORED_VALUES_ONLY:
        with pytest.raises(AssertionError, match="refuses its float parameters"):
            _log_grid_parameters(EXPLORERS[key])


def _log_grid_parameters(fn):
    """The float parameters of ``fn`` (with a float default) moved one log-slider step up, or down where up is refused."""
    floats = {name: p.default for name, p in inspect.signature(fn).parameters.items()
              if isinstance(p.default, float) and p.default > 0}
    for factor in (LOG_STEP, 1 / LOG_STEP):
        kw = {name: v * factor for name, v in floats.items()}
        try:
            return kw, fn(**kw)
        except ValueError:
            continue
    raise AssertionError(f"{fn.__name__} refuses its float parameters moved one log step either way")


#: Explorers whose float parameters take only stored values (no log slider moves them): they print those values.
STORED_VALUES_ONLY = {"arena.explore_arena": "reads the stored grid: ε ∈ {0.1, 1, 10} and δ = 1e-6 only"}


@pytest.mark.parametrize("key", sorted(set(EXPLORERS) - set(STORED_VALUES_ONLY)))
def test_numbers_from_parameters_are_rounded(key):
    kw, fig = _log_grid_parameters(EXPLORERS[key])
    try:
        assert kw, "no float parameter to move"
        assert any(not math.isclose(v, round(v, 3)) for v in kw.values())
        assert _unrounded(_non_tick_texts(fig), list(kw.values())) == []
    finally:
        plt.close(fig)


def test_shared_figure_inputs_refuse_bad_input():
    from dpbook.explorers._inputs import series
    from dpbook.explorers._layout import log_minor_125
    with pytest.raises(ValueError, match="y"):
        series("x", x=[1.0, 2.0], y=[1.0])
    with pytest.raises(ValueError, match="x"):
        series("x", x=[1.0, float("nan")])
    with pytest.raises(TypeError, match="axes"):
        log_minor_125("not an axis")
