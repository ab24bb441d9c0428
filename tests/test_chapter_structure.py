"""Every chapter is one lecture a lecturer can project as it is.

* the chapters are numbered 00, 01, … in reading order, with no gap, and each title carries its file's number;
* a chapter opens with what the reader will be able to do and ends its lecture with a summary (only the
  exercises, their solutions and the references come after it);
* at most ``MAX_WORDS`` words of prose (counted as the book's quick check counts them: words of letters in the
  markdown, outside ``$…$`` math);
* ``show_source`` prints at most ``dpbook.SHOW_SOURCE_LINES`` lines, never before the chapter has stated anything;
* a cell that draws a figure is short: the plotting code lives in ``dpbook`` and the chapter calls it.
"""
from __future__ import annotations

import json
import pathlib
import re

import pytest

import dpbook

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_WORDS = 3000
MAX_FIGURE_CELL_LINES = 15
AFTER_SUMMARY = re.compile(r"^(Exercises|Solutions?|References|Solution \d+)\b", re.I)
DRAWS = re.compile(r"\bnew_figure\(|\.plot\(|\.scatter\(|\.bar\(|\.hist\(|\.imshow\(|\.fill_between\(")


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell) -> str:
    return "".join(cell["source"])


def prose_words(path) -> int:
    md = "\n".join(source(c) for c in cells(path) if c["cell_type"] == "markdown")
    return len(re.findall(r"[A-Za-z]+", re.sub(r"\$[^$]*\$", "", md)))


def headings(path):
    return [(i, len(m.group(1)), m.group(2).strip()) for i, c in enumerate(cells(path)) if c["cell_type"] == "markdown"
            for m in re.finditer(r"^(#{1,6})\s+(.*)$", source(c), re.M)]


def test_chapters_are_numbered_in_reading_order():
    numbers = [int(p.name[:2]) for p in CHAPTERS]
    assert numbers == list(range(len(numbers))), [p.name for p in CHAPTERS]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_title_carries_the_chapter_number(path):
    level, title = headings(path)[0][1:]
    assert level == 1 and title.startswith(path.name[:2] + " "), (path.name, title)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_opens_with_what_the_reader_will_be_able_to_do(path):
    first = [source(c) for c in cells(path)[:3] if c["cell_type"] == "markdown"]
    assert any(re.search(r"you will be able to", s, re.I) for s in first), path.name


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_lecture_ends_with_a_summary(path):
    h2 = [(i, t) for i, level, t in headings(path) if level == 2]
    at = [k for k, (_, t) in enumerate(h2) if t.lower().startswith("summary")]
    assert len(at) == 1, f"{path.name}: one '## Summary' section, found {len(at)}"
    after = [t for _, t in h2[at[0] + 1:]]
    assert all(AFTER_SUMMARY.match(t) for t in after), f"{path.name}: after the summary: {after}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_one_lecture_of_prose(path):
    words = prose_words(path)
    assert words <= MAX_WORDS, f"{path.name}: {words} words of prose (one lecture: at most {MAX_WORDS})"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_show_source_prints_an_algorithm_box_not_a_dump(path):
    cs = cells(path)
    first_code = next(i for i, c in enumerate(cs) if c["cell_type"] == "code")
    for i, c in enumerate(cs):
        if c["cell_type"] != "code" or "show_source(" not in source(c):
            continue
        assert i > first_code + 1, f"{path.name} cell {i}: show_source before the chapter has stated anything"
        assert source(c).count("show_source(") == 1, f"{path.name} cell {i}: one show_source per cell"
        printed = "".join("".join(o.get("text", "")) for o in c.get("outputs", []) if o.get("name") == "stdout")
        lines = printed.rstrip("\n").count("\n") + 1
        assert lines <= dpbook.SHOW_SOURCE_LINES, f"{path.name} cell {i}: show_source printed {lines} lines"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_figure_cells_call_dpbook(path):
    long = []
    for i, c in enumerate(cells(path)):
        src = source(c)
        if c["cell_type"] != "code" or not DRAWS.search(src):
            continue
        code = [ln for ln in src.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if len(code) > MAX_FIGURE_CELL_LINES:
            long.append((i, len(code)))
    assert not long, f"{path.name}: figure cells (cell, lines) longer than {MAX_FIGURE_CELL_LINES}: {long}"


def test_the_counters_can_fail(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# 99 x\n", "word " * (MAX_WORDS + 1)]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    p = tmp_path / "99_x.ipynb"
    p.write_text(json.dumps(nb))
    assert prose_words(p) == MAX_WORDS + 2
    with pytest.raises(AssertionError):
        test_the_lecture_ends_with_a_summary(p)
    with pytest.raises(AssertionError):
        test_opens_with_what_the_reader_will_be_able_to_do(p)
