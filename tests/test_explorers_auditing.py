"""Chapter 17's panel: every ε on its slider works for every Gaussian audit case, and the exact ε of a Gaussian pair
(the "true loss" the panel draws) is right, including 0 when the pair is already (0, δ)-indistinguishable."""
import json
import math
import pathlib
import types

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from dpbook import widgets  # noqa: E402
from dpbook.audit import audit_case_names, audit_cases  # noqa: E402
from dpbook.audit.cases.gaussian import exact_gaussian_epsilon  # noqa: E402
from dpbook.explorers.auditing import explore_audit  # noqa: E402
from dpbook.theory.gaussian import gaussian_delta, gaussian_sigma  # noqa: E402
from notebook_cells import panel_call

NOTEBOOK = pathlib.Path(__file__).resolve().parent.parent / "notebooks" / "17_auditing.ipynb"
GAUSSIAN_CASES = ("gaussian_classic", "gaussian_forgets_log_factor", "gaussian_single_query_sensitivity",
                  "gaussian_classic_any_epsilon")


def _panel_controls():
    """The controls of chapter 17's panel, built by the chapter's own cell (``widgets.panel`` replaced by a recorder)."""
    nb = json.loads(NOTEBOOK.read_text())
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code" and "widgets.panel(explore_audit" in "".join(c["source"]))
    stub = types.SimpleNamespace(**{name: getattr(widgets, name) for name in ("log_slider", "int_slider", "choice")},
                                 panel=lambda callback, **controls: controls)
    env = {"widgets": stub, "explore_audit": explore_audit, "audit_case_names": audit_case_names}
    return eval(panel_call(cell), env)


def _epsilon_grid():
    s = _panel_controls()["epsilon"]
    steps = round((s.max - s.min) / s.step)
    assert abs(s.min + steps * s.step - s.max) < 1e-9
    return [float(f"{s.base ** (s.min + k * s.step):.12g}") for k in range(steps + 1)]   # as the panel passes them


def test_panel_grid_reaches_the_small_epsilons():
    grid = _epsilon_grid()
    assert len(grid) == 41 and grid[0] == pytest.approx(0.1) and grid[-1] == pytest.approx(10.0)
    assert 1.0 in grid


@pytest.mark.parametrize("case", GAUSSIAN_CASES)
def test_gaussian_cases_build_for_every_epsilon_of_the_panel(case):
    for epsilon in _epsilon_grid():
        (c,) = audit_cases(names=[case], epsilon=epsilon)
        assert c.true_epsilon is not None and 0.0 <= c.true_epsilon < math.inf, (epsilon, c.true_epsilon)


def test_audit_panel_draws_the_classic_gaussian_at_every_epsilon():
    for epsilon in _epsilon_grid():
        fig = explore_audit("gaussian_classic_any_epsilon", epsilon, trials=1_000)
        assert len(fig.axes) == 2
        plt.close(fig)


def _sigmas():
    """σ of the Gaussian cases over the panel's ε (classic σ at δ = 0.1 and 0.05, the broken twin's 1/ε) and a few
    where the true ε is large."""
    out = []
    for epsilon in _epsilon_grid():
        out += [(math.sqrt(2 * math.log(1.25 / 0.1)) / epsilon, 0.1),
                (gaussian_sigma(1.0, min(epsilon, 0.99), 0.05), 0.05), (1.0 / epsilon, 1e-5)]
    return out + [(0.3, 0.1), (1.0, 1e-5), (2.0, 0.1)]


def testexact_gaussian_epsilon_is_the_smallest_epsilon_with_delta_at_most_delta():
    zero = positive = 0
    for sigma, delta in _sigmas():
        eps = exact_gaussian_epsilon(sigma, delta)
        assert gaussian_delta(sigma, eps) <= delta, (sigma, delta, eps)          # (eps, delta)-DP: never too small
        if gaussian_delta(sigma, 0.0) <= delta:                               # total variation <= δ
            assert eps == 0.0
            zero += 1
        else:                                                                 # and no smaller ε would do
            assert eps > 0 and gaussian_delta(sigma, eps * (1 - 1e-6)) > delta, (sigma, delta, eps)
            positive += 1
    assert zero >= 10 and positive >= 10                                      # both branches are exercised


def testexact_gaussian_epsilon_of_a_known_pair():
    # N(0, 1) vs N(1, 1): δ(0) = 2Φ(1/2) − 1 ≈ 0.3829; at that δ the true ε is 0, just below it ε > 0
    tv = gaussian_delta(1.0, 0.0)
    assert tv == pytest.approx(0.38292492254802624, rel=1e-12)
    assert exact_gaussian_epsilon(1.0, tv) == 0.0
    assert 0.0 < exact_gaussian_epsilon(1.0, tv - 1e-3) < 0.01


def test_chapter_figures_draw_and_refuse_bad_input():
    import numpy as np
    from dpbook.audit import run_audits
    from dpbook.explorers.auditing import figure_audit_power, figure_families, figure_float_support, figure_lessons
    results = run_audits(audit_cases(names=["laplace", "laplace_halved_sensitivity"]), rng=0, trials_factor=0.05)
    fig = figure_families(results, title="t")
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["laplace (2)"] and fig.get_size_inches()[0] <= 9.6
    assert len(figure_lessons(results, ["a", "b"]).axes[0].patches) == 2
    assert len(figure_audit_power([10, 100], [0.1, 0.5], [0.2, 1.5], [2.0, 4.0]).axes[0].lines) == 5
    y = np.array([-0.7, 0.3, 1.2])
    assert len(figure_float_support(y, [True] * 3, y + 1, [False, True, False]).axes) == 2
    plt.close("all")
    with pytest.raises(ValueError, match="results"):
        figure_families([])
    with pytest.raises(ValueError, match="labels"):
        figure_lessons(results, ["a"])
    with pytest.raises(ValueError, match="trials"):
        figure_audit_power([10], [0.1], [0.2], [1.0])
    with pytest.raises(ValueError, match="y0"):
        figure_float_support(y, [True], y, [True] * 3)
    with pytest.raises(TypeError, match="cap"):
        figure_families(results, cap="x")
