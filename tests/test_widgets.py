"""dpbook.widgets without a browser: errors shown in the panel, defaults on the grid, readouts, screen fit, cache."""
import io
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image

from dpbook import widgets as W
from dpbook.plots import new_figure


def _png_size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as im:
        return im.size


def _line(d=5, n=10):
    if d < 4:
        raise ValueError(f"d ({d}) must be >= 4 for this explorer")
    fig, ax = new_figure()
    ax.plot(np.arange(n), np.arange(n) * d)
    return fig


# ---- 1. never fail silently ------------------------------------------------------------------------------

def test_callback_error_is_shown_in_the_panel_and_the_last_figure_fades():
    p = W.panel(_line, d=W.int_slider(5, 1, 8), n=W.int_slider(10, 5, 50, step=5))
    good = p.render()
    assert good is not None and p.image.value == good and p.error is None and not p.stale
    assert p.message.layout.display == "none" and p.message.value == ""

    p.controls["d"].value = 2                              # the callback raises: shown, not swallowed
    assert isinstance(p.error, ValueError)
    assert p.message.layout.display != "none"
    assert "ValueError" in p.message.value and "d (2) must be &gt;= 4" in p.message.value
    assert "d = 2" in p.message.value and "last settings that worked" in p.message.value
    assert p.stale and p.image.value != good               # the old figure is still there, but faded
    assert _png_size(p.image.value) == _png_size(good)
    with Image.open(io.BytesIO(p.image.value)) as faded, Image.open(io.BytesIO(good)) as orig:
        assert np.asarray(faded.convert("L")).std() < np.asarray(orig.convert("L")).std()  # less contrast

    faded = p.image.value
    p.controls["d"].value = 3                              # a second error keeps the faded figure, new message
    assert p.image.value == faded and "d (3)" in p.message.value

    p.controls["d"].value = 5                              # a good redraw clears everything
    assert p.error is None and not p.stale and p.image.value == good
    assert p.message.layout.display == "none" and p.message.value == ""


def test_error_before_any_good_figure_and_error_while_drawing():
    p = W.panel(_line, d=W.int_slider(2, 1, 8))
    assert p.render() is None and isinstance(p.error, ValueError) and not p.stale
    assert "No figure could be drawn yet" in p.message.value and p.image.value == b""

    def bad_label(x):                                      # raises only when matplotlib draws the text
        fig, ax = new_figure()
        ax.set_title(r"$\frac{1}{$" if x > 1 else "fine")
        return fig

    open_before = len(plt.get_fignums())
    q = W.panel(bad_label, x=W.int_slider(1, 1, 3))
    assert q.render() is not None
    q.controls["x"].value = 2
    assert q.error is not None and q.stale and type(q.error).__name__ in q.message.value
    assert len(plt.get_fignums()) == open_before           # the figure is closed even when drawing fails


def test_the_image_joins_the_panel_with_its_first_figure_and_carries_its_size():
    """JupyterLab's default windowing gives an <img> created empty, then filled while off screen, a 0×0 box: so the
    panel's view never holds an empty image, and the image carries its pixel size as width/height attributes."""
    p = W.panel(_line, d=W.int_slider(2, 1, 8))
    p.render()                                             # an error first: no image in the panel yet
    assert p.image not in p.widget.children and p.image.value == b""
    p.controls["d"].value = 5
    assert p.widget.children[-1] is p.image and p.image.value != b""
    assert (int(p.image.width), int(p.image.height)) == _png_size(p.image.value) == W.png_size(p.image.value)
    p.controls["d"].value = 2                              # the faded figure keeps the image and its size
    assert p.widget.children.count(p.image) == 1 and (int(p.image.width), int(p.image.height)) == _png_size(p.image.value)

    shown = []
    q = W.panel(_line, d=W.int_slider(5, 1, 8))
    q.widget.observe(lambda ch: shown.append(ch["new"]), names="children")
    monkey_display = W.display
    try:
        W.display = lambda w: shown.append(("displayed", w.children[-1].value != b""))
        q._ipython_display_()
    finally:
        W.display = monkey_display
    assert shown[-1] == ("displayed", True)                # the figure is there before the view is created
    with pytest.raises(ValueError, match="not a PNG"):
        W.png_size(b"GIF89a" + bytes(30))


def test_figures_the_callback_leaves_open_are_closed():
    """A callback that opens a second pyplot figure must not leave it for the inline backend to draw outside any
    cell (JupyterLab shows it in the Log Console)."""
    def two_figures(d=5):
        new_figure()                                       # a stray figure
        return _line(d)

    open_before = set(plt.get_fignums())
    p = W.panel(two_figures, d=W.int_slider(5, 4, 8))
    assert p.render() is not None
    p.controls["d"].value = 6
    assert set(plt.get_fignums()) == open_before


def test_message_is_escaped():
    def boom(x):
        raise RuntimeError("<script>alert(1)</script>")

    p = W.panel(boom, x=W.int_slider(1, 1, 3))
    p.render()
    assert "<script>" not in p.message.value and "&lt;script&gt;" in p.message.value


# ---- 2. grids and readouts -------------------------------------------------------------------------------

def test_int_slider_default_and_high_must_be_on_the_grid():
    with pytest.raises(ValueError, match=r"value \(569\) must lie on the grid.*low = 169"):
        W.int_slider(569, 100, 20_000, step=100)
    with pytest.raises(ValueError, match=r"high \(100000\) must lie on the grid.*high = 99569"):
        W.int_slider(2069, 569, 100_000, step=500)
    s = W.int_slider(569, 69, 19_969, step=100)
    assert (s.value, s.min, s.max, s.step) == (569, 69, 19_969, 100)
    with pytest.raises(TypeError, match="value"):
        W.int_slider(5.0, 1, 10)
    with pytest.raises(TypeError, match="step"):
        W.int_slider(5, 1, 10, step=True)
    with pytest.raises(ValueError, match="step"):
        W.int_slider(5, 1, 10, step=0)
    with pytest.raises(ValueError, match="low"):
        W.int_slider(0, 1, 10)


def test_float_slider_default_and_high_must_be_on_the_grid():
    s = W.float_slider(0.4, 0.1, 0.5)
    assert s.step == pytest.approx(0.004) and s.readout_format == ".3g"
    W.float_slider(0.5, 0.05, 1.0, step=0.05)             # 0.1 + 0.2 style rounding is tolerated
    with pytest.raises(ValueError, match=r"value \(0.33\) must lie on the grid"):
        W.float_slider(0.33, 0.0, 1.0, step=0.05)
    with pytest.raises(ValueError, match=r"high \(1.02\) must lie on the grid"):
        W.float_slider(0.5, 0.0, 1.02, step=0.05)
    with pytest.raises(ValueError, match="finite"):
        W.float_slider(float("nan"), 0.0, 1.0)
    with pytest.raises(ValueError, match="step"):
        W.float_slider(0.5, 0.0, 1.0, step=-0.1)


@pytest.mark.parametrize("value, low, high, steps", [
    (1.0, 0.05, 10, 40), (1.0, 0.003, 10, 40), (0.5, 0.02, 0.99, 40), (1e-6, 1e-12, 1e-2, 40),
    (0.9, 0.05, 0.99, 40), (0.5, 0.45, 1.0, 40), (1e-5, 1e-8, 1e-2, 6), (0.05, 0.001, 0.5, 40),
    (0.5, 0.05, 0.5 * 10 ** 0.25, 40), (0.1, 0.1, 10, 40), (10, 0.1, 10, 40), (0.37, 0.011, 7.3, 17)])
def test_log_slider_grid_passes_through_the_default_and_stays_in_range(value, low, high, steps):
    s = W.log_slider(value, low, high, steps=steps)
    k = (math.log10(value) - s.min) / s.step
    assert abs(k - round(k)) < 1e-6                        # the default is a grid point: reachable again
    assert 10 ** s.min >= low * (1 - 1e-12) and 10 ** s.max <= high * (1 + 1e-12)
    span = math.log10(high) - math.log10(low)
    assert (s.max - s.min) >= span - s.step                # at most one step of range lost, at one end
    assert min(abs(s.min - math.log10(low)), abs(s.max - math.log10(high))) < 1e-9   # one end exact
    assert span / steps / 1.5 - 1e-12 <= s.step <= 1.5 * span / steps + 1e-12
    n = (s.max - s.min) / s.step
    assert abs(n - round(n)) < 1e-6                        # the top is a grid point too
    assert s.value == pytest.approx(value)


def test_log_slider_validates():
    with pytest.raises(ValueError, match="log_slider"):
        W.log_slider(0.0, 0.01, 10)
    with pytest.raises(ValueError, match="log_slider"):
        W.log_slider(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        W.log_slider(1.0, 0.1, float("inf"))
    with pytest.raises(ValueError, match="steps"):
        W.log_slider(1.0, 0.1, 10, steps=0)
    with pytest.raises(ValueError, match="too close"):
        W.log_slider(2.0, 1.0, 4.0, steps=1)               # one step cannot pass through the middle
    s = W.log_slider(1.0000001, 1.0, 10)                   # a default next to an end: that end moves to it
    assert s.min == pytest.approx(math.log10(1.0000001)) and s.max == pytest.approx(1.0)


def test_readout_formats_never_need_more_than_eight_characters():
    assert W.log_slider(1e-6, 1e-12, 1e-2).readout_format == ".2e"   # δ: 1.70e-6, not 0.00000170
    assert W.log_slider(0.05, 0.005, 0.5).readout_format == ".3g"
    assert W.readout_format(1_000, 200_000) == ".2e"
    assert W.readout_format(0.001, 10) == ".3g"
    # d3-format's .3g is JavaScript's toPrecision(3): fixed notation down to 1e-6; .2e is toExponential(2).
    for low, high in [(1e-12, 1e-2), (1e-3, 9999), (0.05, 10), (0.45, 1.0), (1, 200_000)]:
        fmt = W.readout_format(low, high)
        for x in np.geomspace(low, high, 50):
            text = f"{x:.2e}".replace("e-0", "e-").replace("e+0", "e+") if fmt == ".2e" else _to_precision3(x)
            assert len(text) <= 8, (low, high, x, text)   # 1.00e-12; the readout box is 72 px


def _to_precision3(x: float) -> str:
    """JavaScript's x.toPrecision(3) for 1e-3 <= x < 1e4 (what d3's .3g prints)."""
    e = math.floor(math.log10(abs(float(f"{x:.2e}"))))
    return f"{x:.2e}".replace("e+0", "e+") if e >= 3 else f"{x:.{max(0, 2 - e)}f}"


def test_values_are_snapped_so_the_default_comes_back_exactly():
    s = W.log_slider(1.0, 0.05, 10)
    k = round(-s.min / s.step)
    s.value = 10 ** (s.min + k * s.step)                  # what the browser sends when sliding back
    p = W.panel(lambda epsilon: new_figure()[0], epsilon=s)
    assert p.values["epsilon"] == 1.0


# ---- 3. fits 1366×768 ------------------------------------------------------------------------------------

@pytest.mark.parametrize("size, ncontrols", [((6.4, 3.8), 1), ((14, 4), 2), ((10.5, 7.2), 6), ((8, 12), 7)])
def test_every_panel_fits_a_laptop_projector(size, ncontrols):
    def cb(**_):            # larger than the book's style allows (new_figure refuses it): the panel must shrink it
        fig = plt.figure(figsize=size, layout="constrained")
        fig.add_subplot().plot([0, 1], [0, 1])
        return fig

    p = W.Panel(cb, {f"x{i}": W.int_slider(1, 1, 3) for i in range(ncontrols)})
    w, h = _png_size(p.render())
    rows = ncontrols if ncontrols <= 3 else math.ceil(ncontrols / 2)
    assert p.rows == rows
    assert w <= W.MAX_WIDTH + 1 and h + W.CONTROL_ROW * rows <= W.MAX_HEIGHT + 1
    if size == (6.4, 3.8):
        assert p.dpi == plt.rcParams["figure.dpi"]         # a figure that fits is not shrunk


# ---- 4. cache and wiring ---------------------------------------------------------------------------------

def test_each_setting_is_drawn_once():
    calls = []

    def cb(n):
        calls.append(n)
        return _line(n=n)

    p = W.panel(cb, n=W.int_slider(10, 5, 50, step=5))
    first = p.render()
    p.controls["n"].value = 15
    p.controls["n"].value = 10                             # sliding back: from the cache
    assert calls == [10, 15] and p.image.value == first
    for n in range(5, 55, 5):
        p.controls["n"].value = n
    assert len(p._cache) <= W.CACHE_SIZE


def test_panel_validates():
    with pytest.raises(TypeError, match="callback"):
        W.Panel(None, {"x": W.int_slider(1, 1, 3)})
    with pytest.raises(ValueError, match="control"):
        W.panel(_line)


# ---- prefetch of the moved slider's neighbours ---------------------------------------------------------------

def test_neighbours_follow_the_grid_and_stay_on_the_slider():
    p = W.panel(lambda n, epsilon, kind: _line(n=n), n=W.int_slider(10, 5, 50, step=5),
                epsilon=W.log_slider(1.0, 0.01, 10.0), kind=W.choice(["a", "b"]))
    up, down = p.neighbours("n", +1)
    assert (up["n"], down["n"]) == (15, 5) and up["epsilon"] == 1.0 and up["kind"] == "a"
    assert [s["n"] for s in p.neighbours("n", -1)] == [5, 15]
    p.controls["n"].value = 50
    assert [s["n"] for s in p.neighbours("n", +1)] == [45]            # no step past the end
    e_up, e_down = p.neighbours("epsilon", +1)
    step = p.controls["epsilon"].step
    assert e_up["epsilon"] == W._snap(10 ** step) and e_down["epsilon"] == W._snap(10 ** -step)
    assert p.neighbours("kind") == []                                  # a dropdown has no grid


def test_a_prefetched_neighbour_is_shown_from_the_cache_without_calling_back():
    calls = []

    def cb(n):
        calls.append(n)
        if n == 20:
            raise ValueError("n (20) is refused")
        return _line(n=n)

    p = W.panel(cb, n=W.int_slider(10, 5, 50, step=5))
    p.render()
    assert p.prefetch(p.neighbours("n", +1)) == 2 and calls == [10, 15, 5]
    p.controls["n"].value = 15
    assert calls == [10, 15, 5] and p.error is None                    # the move hit the cache
    assert p.prefetch(p.neighbours("n", +1)) == 0                     # 20 refused (shown if the reader goes there)
    p.controls["n"].value = 20
    assert isinstance(p.error, ValueError) and p.stale


def test_prefetch_runs_in_the_kernels_idle_time_and_a_new_move_cancels_it(monkeypatch):
    """In a kernel the panel schedules the neighbours on the running event loop, one per turn; a later move
    bumps the generation, so what was scheduled for the old setting is dropped.  Catches a prefetch that runs
    synchronously inside the move (it would double the move's latency) or that never stops."""
    import asyncio
    monkeypatch.setattr(W, "PREFETCH", True)
    calls = []

    def cb(n):
        calls.append(n)
        return _line(n=n)

    async def scenario():
        p = W.panel(cb, n=W.int_slider(10, 5, 50, step=5))
        p.render()
        p.controls["n"].value = 15                                      # a reader's move: draws 15, schedules 20, 10
        assert calls == [10, 15]                                        # nothing extra inside the move itself
        await asyncio.sleep(0.05)
        assert calls == [10, 15, 20]                                    # 10 is cached already, 20 drawn while idle
        p.controls["n"].value = 35                                      # a jump: 35 drawn, then 40 and 30 scheduled
        p.controls["n"].value = 5                                       # ... cancelled by this move
        await asyncio.sleep(0.05)
        return p

    p = asyncio.run(scenario())
    assert calls == [10, 15, 20, 35, 5]                                 # 5's neighbour 10 was cached; 40/30 dropped
    monkeypatch.setattr(W, "PREFETCH", False)
    p.controls["n"].value = 45
    assert calls[-1] == 45


# ---- import cost ------------------------------------------------------------------------------------------

def _fresh_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (this process has pyplot loaded already) and return what it prints."""
    import subprocess
    import sys
    import pathlib
    root = pathlib.Path(W.__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120,
                          env={"PATH": "", "MPLBACKEND": "Agg", "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_widgets_and_plots_does_not_load_pyplot():
    # pyplot is imported where a figure is made (dpbook.plots.new_figure), not by importing these modules
    out = _fresh_python("import sys, dpbook.widgets, dpbook.plots, dpbook.data; "
                        "print(sorted(m for m in ('matplotlib.pyplot', 'scipy.sparse') if m in sys.modules))")
    assert out == "[]"



def _first_cell_modules() -> list[str]:
    """The dpbook modules the first code cell of each chapter imports (``from dpbook.theory import idc`` names the
    module dpbook.theory.idc)."""
    import ast
    import importlib.util
    import json
    import pathlib
    root = pathlib.Path(W.__file__).resolve().parents[1]
    found = set()
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cell = next(c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
        source = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.startswith("%"))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.split(".")[0] == "dpbook"}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "dpbook":
                found.add(node.module)
                found |= {f"{node.module}.{a.name}" for a in node.names
                          if importlib.util.find_spec(node.module).submodule_search_locations
                          and importlib.util.find_spec(f"{node.module}.{a.name}") is not None}
    return sorted(found)


def test_no_module_a_chapter_opens_with_loads_pyplot():
    """pyplot is imported where a figure is made, so a chapter's first cell pays for it only if the chapter imports
    it itself: no dpbook module that a first cell imports loads it (nor scipy.stats, nor scipy.sparse: ~0.2 s of
    CPU where no other scipy module is loaded yet, as in chapter 00) when imported."""
    modules = _first_cell_modules()
    assert {"dpbook.explorers.idc", "dpbook.audit", "dpbook.theory.idc", "dpbook.widgets"} <= set(modules), modules
    assert {"dpbook.queries", "dpbook.projection", "dpbook.idc", "dpbook.comparisons.projection"} <= set(modules)
    out = _fresh_python("import sys\n" + "\n".join(f"import {m}" for m in modules) + "\n"
                        "print(sorted(m for m in ('matplotlib.pyplot', 'scipy.stats', 'scipy.sparse') if m in sys.modules))")
    assert out == "[]"
    out = _fresh_python("import sys\nfrom dpbook.queries import random_queries\n"                  # the check can fail
                        "random_queries(2, 3, rng=0, density=0.5)\nprint('scipy.sparse' in sys.modules)")
    assert out == "True"
    out = _fresh_python("import sys\nfrom dpbook.explorers._layout import fixed_figure\n"     # the check can fail
                        "fixed_figure(width=4, height=3)\nprint('matplotlib.pyplot' in sys.modules)")
    assert out == "True"


def test_panel_closes_the_figures_of_a_callback_that_imports_pyplot():
    # the panel itself never imports pyplot; the figures a callback opens through it are closed all the same
    out = _fresh_python(
        "import sys\n"
        "from dpbook import widgets as W\n"
        "def cb(d):\n"
        "    import matplotlib.pyplot as plt\n"
        "    plt.figure()                       # a stray figure, left open\n"
        "    fig, ax = plt.subplots(layout='constrained'); ax.plot([0, d]); return fig\n"
        "p = W.panel(cb, d=W.int_slider(2, 1, 4))\n"
        "png = p.render()\n"
        "import matplotlib.pyplot as plt\n"
        "print(png is not None and png[:4] == b'\\x89PNG', plt.get_fignums())")
    assert out == "True []"
