"""The book is self-contained: nothing a reader sees points outside the repository.

The workbook was written from a specification and source notes that live outside the repository (in the
maintainers' working directory, ``../shared``).  A student who clones the repository has none of it, so every
statement, reference and pointer must be inside: theorem IDs (``docs/theorems.md``, generated from
``dpbook/theory/*.py``), papers (``docs/bibliography.md``), or the method described in plain words.

Scanned (what a reader sees): ``dpbook/**/*.py`` (chapters show its docstrings with ``show_source``),
``notebooks/*.ipynb`` (cell sources AND stored outputs), ``docs/*.md``, ``README.md``, ``data/README.md``, and
``CONTRIBUTING.md`` except its maintainers' section (the heading :data:`MAINTAINER_HEADING` and everything
after it), which is allowed to name the files maintainers work from.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Strings that point outside the repository.
FORBIDDEN = ("THEOREMS.md", "../shared")

#: The one place allowed to name them: CONTRIBUTING.md from this heading on (for maintainers, not readers).
MAINTAINER_HEADING = "## For maintainers: material outside the repository"


def reader_files(root: Path = ROOT) -> list[Path]:
    """Every file a reader of the book sees, in a fixed order."""
    files = sorted((root / "dpbook").rglob("*.py")) + sorted((root / "notebooks").glob("*.ipynb"))
    files += sorted((root / "docs").glob("*.md"))
    files += [p for p in (root / "README.md", root / "data" / "README.md", root / "CONTRIBUTING.md") if p.exists()]
    return files


def _strings(value) -> list[str]:
    """Every string inside a stored output (stream text, every MIME bundle, tracebacks), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return ["".join(value)] if all(isinstance(v, str) for v in value) else [s for v in value for s in _strings(v)]
    return []


def _reader_text(path: Path) -> list[tuple[str, str]]:
    """``(where, text)`` pieces of a file as a reader sees them: a notebook cell by cell (source, then each
    output as stored), CONTRIBUTING.md up to its maintainers' section, any other file whole."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        pieces = []
        for i, cell in enumerate(nb.get("cells", [])):
            source = cell.get("source", "")
            pieces.append((f"cell {i} source", "".join(source) if isinstance(source, list) else source))
            for j, output in enumerate(cell.get("outputs", [])):
                pieces.append((f"cell {i} output {j}", "\n".join(_strings(output))))
            pieces.append((f"cell {i} metadata", json.dumps(cell.get("metadata", {}), ensure_ascii=False)))
        pieces.append(("notebook metadata", json.dumps(nb.get("metadata", {}), ensure_ascii=False)))
        return pieces
    text = path.read_text(encoding="utf-8")
    if path.name == "CONTRIBUTING.md":
        text = text.split(MAINTAINER_HEADING, 1)[0]
    return [("", text)]


def pointers_outside(root: Path = ROOT) -> list[str]:
    """``"path[: where]: line containing the pointer"`` for every forbidden string in a reader's file."""
    found = []
    for path in reader_files(root):
        rel = path.relative_to(root).as_posix()
        for where, text in _reader_text(path):
            for line in text.splitlines():
                if any(s in line for s in FORBIDDEN):
                    found.append(f"{rel}{' [' + where + ']' if where else ''}: {line.strip()[:160]}")
    return found


def test_nothing_a_reader_sees_points_outside_the_repository():
    found = pointers_outside()
    files = sorted({f.split(":")[0].split(" [")[0] for f in found})
    assert not found, (f"{len(found)} pointers outside the repository in {len(files)} files {files}; "
                       "cite the theorem ID, the paper or describe the method instead:\n" + "\n".join(found))


@pytest.mark.parametrize("where, content", [
    ("dpbook/theory/fake.py", '"""Bounds (THEOREMS.md §4)."""\n'),
    ("dpbook/fake.py", "# see ../shared/DESIGN.md\n"),
    ("docs/fake.md", "The spec is THEOREMS.md.\n"),
    ("README.md", "Read ../shared/THEOREMS.md first.\n"),
    ("data/README.md", "From ../shared/seeds.\n"),
    ("CONTRIBUTING.md", "The spec is THEOREMS.md.\n\n" + MAINTAINER_HEADING + "\n`../shared/THEOREMS.md`\n"),
])
def test_the_check_can_fail(tmp_path, where, content):
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    found = pointers_outside(tmp_path)
    assert len(found) == 1 and found[0].startswith(where + ":")


def test_the_check_reads_notebook_outputs_and_exempts_only_the_maintainer_section(tmp_path):
    (tmp_path / "notebooks").mkdir()
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# 01 — Clean\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["show_source(f)\n"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["(THEOREMS.md §10)\n"]}]},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "notebooks" / "01_x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (tmp_path / "CONTRIBUTING.md").write_text("Rules.\n\n" + MAINTAINER_HEADING + "\nThe spec: ../shared/THEOREMS.md\n",
                                              encoding="utf-8")
    assert pointers_outside(tmp_path) == ["notebooks/01_x.ipynb [cell 1 output 0]: (THEOREMS.md §10)"]
