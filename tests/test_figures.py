"""The projector rules for every figure of the book, checked on the stored notebooks and on the code that draws.

* every stored PNG is at most ``MAX_WIDTH_PX`` wide (GitHub then shows it at its own size, text and all);
* the style's text is at least ``MIN_FONT_PT`` points, and no chapter or module sets a smaller font;
* every figure comes from ``dpbook.plots.new_figure`` or the widgets' ``fixed_figure`` (which refuse more than two
  panels and more than the width), never from ``plt.subplots``/``plt.figure`` or a hand-set ``figsize``;
* colours come from ``dpbook.plots`` (one colour per meaning): no hex literal, ``"C0"`` or ``"tab:…"`` elsewhere.
"""
from __future__ import annotations

import base64
import json
import pathlib
import re
import struct

import pytest

from dpbook import plots

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MODULES = sorted(p for p in (ROOT / "dpbook").rglob("*.py") if p.name != "plots.py")

FIGURE_CALL = re.compile(r"\bplt\.(subplots|figure|subplot_mosaic)\(|\bfigsize\s*=|\.add_subplot\(")
COLOUR_LITERAL = re.compile(r"""["']#[0-9a-fA-F]{3,8}["']|["']C[0-9]["']|["']tab:[a-z]+["']""")
SMALL_FONT = re.compile(r"\b(?:fontsize|labelsize|titlesize)\s*=\s*(\d+(?:\.\d+)?)|[\"']font\.size[\"']\s*:\s*(\d+(?:\.\d+)?)")


def png_width(b64: str) -> int:
    head = base64.b64decode(b64[:64])
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">I", head[16:20])[0]


def code_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(i, "".join(c["source"]), c) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_stored_figures_fit_a_projector(path):
    wide = [(i, png_width(o["data"]["image/png"])) for i, _, c in code_cells(path) for o in c.get("outputs", [])
            if "image/png" in o.get("data", {}) and png_width(o["data"]["image/png"]) > plots.MAX_WIDTH_PX]
    assert not wide, f"{path.name}: (cell, width px) wider than {plots.MAX_WIDTH_PX} px: {wide}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_figures_use_the_style(path):
    bad = []
    for i, src, _ in code_cells(path):
        for rx, what in ((FIGURE_CALL, "a figure outside dpbook.plots.new_figure"),
                         (COLOUR_LITERAL, "a colour outside dpbook.plots")):
            bad += [f"cell {i}: {what}: {m.group(0)!r}" for m in rx.finditer(src)]
        bad += [f"cell {i}: font below {plots.MIN_FONT_PT} pt: {m.group(0)!r}" for m in SMALL_FONT.finditer(src)
                if float(m.group(1) or m.group(2)) < plots.MIN_FONT_PT]
    assert not bad, f"{path.name}:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT / "dpbook")))
def test_modules_draw_with_the_style(path):
    src = path.read_text(encoding="utf-8")
    bad = []
    if path.name != "_layout.py":                       # fixed_figure is the widgets' one constructor
        bad += [f"line {src.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}" for m in FIGURE_CALL.finditer(src)]
    bad += [f"line {src.count(chr(10), 0, m.start()) + 1}: colour {m.group(0)!r}"
            for m in COLOUR_LITERAL.finditer(src)]
    bad += [f"line {src.count(chr(10), 0, m.start()) + 1}: font {m.group(0)!r}" for m in SMALL_FONT.finditer(src)
            if float(m.group(1) or m.group(2)) < plots.MIN_FONT_PT]
    assert not bad, f"{path.name}:\n" + "\n".join(bad)


def test_style_text_is_large_enough():
    sizes = {k: v for k, v in plots.STYLE.items() if k.endswith(("fontsize", "labelsize", "titlesize", "font.size"))}
    assert len(sizes) >= 6
    assert all(v >= plots.MIN_FONT_PT for v in sizes.values()), sizes
    assert plots.STYLE["savefig.dpi"] == plots.STYLE["figure.dpi"] == plots.DPI


def test_role_colours_are_distinct_and_extra_never_reuses_one():
    roles = list(plots.ROLE_COLOURS.values())
    assert len(set(roles)) == len(roles)
    assert not set(plots.EXTRA) & set(roles)
    assert {"measured", "bound", "histogram", "baseline", "uniform", "control"} <= set(plots.ROLE_COLOURS)


def test_new_figure_refuses_what_a_projector_cannot_show():
    import matplotlib.pyplot as plt
    fig, axes = plots.new_figure(2)
    try:
        assert fig.get_size_inches()[0] * plots.DPI <= plots.MAX_WIDTH_PX
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match=r"ncols \(3\)"):
        plots.new_figure(3)
    with pytest.raises(ValueError, match=r"width \(12"):
        plots.new_figure(1, width=12)
    with pytest.raises(TypeError, match="ncols"):
        plots.new_figure(1.5)


def test_a_default_figure_with_an_outside_legend_stays_narrow():
    """A long legend outside the axes must not push the stored PNG past the limit (constrained layout shrinks
    the axes instead); saved as the inline backend saves it, with a tight bounding box."""
    import io

    import matplotlib.pyplot as plt
    for ncols in (1, 2):
        fig, axes = plots.new_figure(ncols)
        ax = axes if ncols == 1 else axes[-1]
        for j in range(5):
            ax.plot([0, 1], [j, j + 1], label=f"a deliberately long legend entry, number {j}")
        plots.legend_outside(ax)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        plt.close(fig)
        width = struct.unpack(">I", buf.getvalue()[16:20])[0]
        assert width <= plots.MAX_WIDTH_PX, (ncols, width)


def test_the_width_check_can_fail():
    """The stored-PNG check sees a wide figure: a 1000 px PNG header is read as 1000."""
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", 1000, 400) + b"\x08\x06\x00\x00\x00"
    assert png_width(base64.b64encode(header + b"\x00" * 40).decode()) == 1000
    assert SMALL_FONT.search("ax.set_title('x', fontsize=9)") and COLOUR_LITERAL.search("color='#123456'")
    assert FIGURE_CALL.search("fig = plt.figure(figsize=(12, 3))")
