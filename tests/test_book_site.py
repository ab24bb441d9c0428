"""The website's frames and staging (website/): panels rebuilt from the chapters' cells, the slider grids, the
plan of settings, the frames' cache and budget, and the link rewriting.  No Sphinx or browser needed."""
from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import dpbook.widgets as widgets  # noqa: E402
from website import frames as F  # noqa: E402
from website.stage import ROOT, Links, chapters  # noqa: E402


def _nb(stem_prefix):
    path = next(p for p in chapters() if p.name.startswith(stem_prefix))
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_chapter_with_a_panel_cell_is_found():
    for path in chapters():
        nb = json.loads(path.read_text(encoding="utf-8"))
        has_panel = any(c["cell_type"] == "code" and "widgets.panel(" in "".join(c["source"]) for c in nb["cells"])
        assert bool(F.panel_cells(nb)) == has_panel, path.name


def test_a_chapter_panel_is_rebuilt_without_running_the_chapter():
    nb = _nb("00")
    (index,) = F.panel_cells(nb)
    panel = F.load_panel(nb, index)
    assert panel.callback.__name__ == "explore_noise"
    assert list(panel.controls) == ["epsilon", "sensitivity"]
    assert panel.values == {"epsilon": 1.0, "sensitivity": 1.0}


def _tiny(x=1, y=0.5, label="a"):
    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.plot([0, 1], [0, x * y])
    ax.set_title(label)
    if x == 0:
        raise ValueError(f"x ({x}) must be > 0")
    return fig


def _panel():
    return widgets.Panel(_tiny, {"x": widgets.int_slider(1, 0, 40), "y": widgets.log_slider(0.5, 0.01, 1),
                                 "label": widgets.choice(["a", "b", "c"])})


def test_grids_keep_the_default_and_the_ends():
    p = _panel()
    grid = F.control_grid(p.controls["y"])
    assert 0.5 in grid and min(grid) >= 0.01 - 1e-12 and max(grid) <= 1 + 1e-12
    for g, d in ((list(range(41)), 1), (grid, 0.5)):
        n = F.notches(g, d, 9)
        assert n[0] == g[0] and n[-1] == g[-1] and d in n and len(n) <= 9
        assert n == sorted(n)
    assert F.notches(["a", "b", "c"], "a", 2) == ["a", "b", "c"]          # dropdowns keep every option
    assert F.control_grid(p.controls["label"]) == ["a", "b", "c"]


def test_the_plan_varies_one_control_at_a_time():
    p = _panel()
    plan = F.plan(p, limit=5)
    settings = plan.settings()
    assert settings[0] == plan.defaults
    for s in settings[1:]:
        assert sum(s[k] != plan.defaults[k] for k in s) == 1
    assert len(settings) == 1 + sum(len(v) - 1 for v in plan.values.values())


def test_frames_are_cached_by_callback_parameters_and_code_version(tmp_path):
    p = _panel()
    cache = F.Cache(tmp_path)
    plan, table, drawn = F.frames(p, cache, limit=5)
    assert drawn == len(plan.settings())
    errors = [v for v in table.values() if isinstance(v, str)]
    assert errors == ["ValueError: x (0) must be > 0"]                   # refused settings keep their message
    assert all(v[:8] == b"\x89PNG\r\n\x1a\n" for v in table.values() if isinstance(v, bytes))
    _, again, drawn2 = F.frames(_panel(), cache, limit=5)
    assert drawn2 == 0 and again == table


def test_a_panel_over_budget_is_thinned(tmp_path):
    p = _panel()
    plan, table, _ = F.frames(p, F.Cache(tmp_path), limit=9, budget=1)
    assert max(len(v) for k, v in plan.values.items() if k != "label") == F.MIN_NOTCHES


def test_the_code_version_follows_the_callbacks_imports():
    deps = F.dependencies("dpbook.explorers.intro")
    assert {"dpbook.explorers.intro", "dpbook.plots"} <= set(deps)
    assert "dpbook.mwem" not in deps                                   # another chapter's change does not redraw this one
    assert F.code_version("dpbook.explorers.intro") != F.code_version("dpbook.explorers.mwem")


def test_links_resolve_inside_the_site():
    links = Links({"dr-alg1": "docs/theorems.md"}, {"docs/theorems.md", "notebooks/01_x.ipynb"}, None)
    page = "notebooks/01_x.ipynb"
    assert links.rewrite("[DR-Alg1](../docs/theorems.md#dr-alg1)", page) == "[DR-Alg1](#dr-alg1)"
    assert links.rewrite("[ref](../docs/theorems.md)", page) == "[ref](../docs/theorems.md)"
    assert links.rewrite("[w](https://example.org/a#b)", page) == "[w](https://example.org/a#b)"
    assert links.rewrite("[code](../dpbook/widgets.py)", page) == "code"               # no page: plain text
    gh = Links({}, set(), "https://github.com/someone/dpbook")
    assert gh.rewrite("[code](../dpbook/widgets.py)", page) == \
        "[code](https://github.com/someone/dpbook/blob/main/dpbook/widgets.py)"
    assert (ROOT / "dpbook" / "widgets.py").is_file()


def test_a_dropdown_of_label_value_pairs_is_drawn_at_its_values_and_shows_its_labels():
    """Chapter 18's mechanism groups: the callback gets the value, the page shows the label; and a panel cell that
    imports dpbook.widgets itself is still recorded."""
    from website.stage import _label
    control = widgets.choice([("all", ("a", "b")), ("one", ("a",))], ("a", "b"))
    assert F.control_grid(control) == [("a", "b"), ("a",)]
    assert [_label(control, v, ".3g") for v in F.control_grid(control)] == ["all", "one"]
    assert F.control_grid(widgets.choice([0.1, 1.0], 1.0)) == [0.1, 1.0]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1, "source": [
        "import dpbook.widgets as widgets\n",
        "widgets.panel(lambda v: plt.figure(), v=widgets.choice([('x', 1), ('y', 2)], 1))\n"]}]}
    nb["cells"][0]["source"].insert(0, "import matplotlib.pyplot as plt\n")
    panel = F.load_panel(nb, 0)
    assert F.control_grid(panel.controls["v"]) == [1, 2]
