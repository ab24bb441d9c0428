"""The repository is self-contained: nothing it holds points outside it.

A student who clones the repository has nothing else, so every statement, reference and pointer must be inside:
theorem IDs (``docs/theorems.md``, generated from ``dpbook/theory/*.py``), papers (``docs/bibliography.md``), or the
method described in plain words.  Nor does the repository speak of the process that wrote it (issue numbers,
branches).

Scanned: every tracked text file (``git ls-files``; outside a git checkout, the package, notebooks — cell sources AND
stored outputs —, docs, tests, benchmarks and the top-level files), except this test, which holds the patterns.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What points outside the repository or at the process that wrote it.  A Markdown file named in capitals that the
#: repository does not have (README.md and CONTRIBUTING.md are its own), a path into a parent folder, an issue
#: number, a branch.
PATTERNS = (re.compile(r"\b[A-Z][A-Z_]{3,}\.md\b"), re.compile(r"(?<![.\w])(?:\.\./)+[^\s)`'\"#>\]]*"),
            re.compile(r"\b[Ii]ssues? #?\d+\b"), re.compile(r"\b(?:another|other|a) branch\b"))
BINARY = (".png", ".jpg", ".gif", ".npz", ".npy", ".pdf", ".csv", ".gz", ".zip")


def reader_files(root: Path = ROOT) -> list[Path]:
    """Every tracked text file of the repository, in a fixed order (this test excluded)."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
        files = [root / f for f in listed.split()]
    except (OSError, subprocess.CalledProcessError):
        files = [p for d in ("dpbook", "notebooks", "docs", "tests", "benchmarks", "data", ".ci")
                 for p in (root / d).rglob("*") if p.is_file()]
        files += [p for p in root.iterdir() if p.is_file()]
    me = Path(__file__).resolve()
    return sorted(p for p in files if p.exists() and p.suffix not in BINARY and p.resolve() != me
                  and "__pycache__" not in p.parts)


def _outside(line: str, root: Path) -> bool:
    for pattern in PATTERNS:
        for m in pattern.finditer(line):
            if pattern is PATTERNS[0] and (root / m.group(0)).exists():
                continue                              # the repository's own README.md, CONTRIBUTING.md
            # a relative link between the repository's folders (../docs/theorems.md from a notebook)
            first = m.group(0).lstrip("./").split("/", 1)[0]
            if pattern is PATTERNS[1] and first and (root / first).exists():
                continue
            # a folder of the built website (Sphinx's convention: "_static", "_panels", ...), made by website/
            if pattern is PATTERNS[1] and first.startswith("_") and m.group(0).startswith("../_"):
                continue
            return True
    return False


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
    output as stored), any other file whole."""
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
    try:
        return [("", path.read_text(encoding="utf-8"))]
    except UnicodeDecodeError:                        # a binary file: nothing a reader reads
        return []


def pointers_outside(root: Path = ROOT) -> list[str]:
    """``"path[: where]: line containing the pointer"`` for every forbidden string in a reader's file."""
    found = []
    for path in reader_files(root):
        rel = path.relative_to(root).as_posix()
        for where, text in _reader_text(path):
            for line in text.splitlines():
                if _outside(line, root):
                    found.append(f"{rel}{' [' + where + ']' if where else ''}: {line.strip()[:160]}")
    return found


def test_nothing_a_reader_sees_points_outside_the_repository():
    found = pointers_outside()
    files = sorted({f.split(":")[0].split(" [")[0] for f in found})
    assert not found, (f"{len(found)} pointers outside the repository in {len(files)} files {files}; "
                       "cite the theorem ID, the paper or describe the method instead:\n" + "\n".join(found))


@pytest.mark.parametrize("where, content", [
    ("dpbook/theory/fake.py", '"""Bounds (SPEC' + 'NOTES.md §4)."""\n'),
    ("dpbook/fake.py", "# see ../notes/design.md\n"),
    ("docs/fake.md", "Fixed in " + "issue 12.\n"),
    ("tests/test_fake.py", "# fixed on another " + "branch\n"),
    ("README.md", "Read ../elsewhere/spec.md first.\n"),
    ("CONTRIBUTING.md", "The spec is " + "GUIDE" + ".md.\n"),
])
def test_the_check_can_fail(tmp_path, where, content):
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    found = pointers_outside(tmp_path)
    assert len(found) == 1 and found[0].startswith(where + ":")


def test_the_check_reads_notebook_outputs_and_knows_the_repositorys_own_files(tmp_path):
    (tmp_path / "notebooks").mkdir()
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# 01 — Clean, see README.md\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["show_source(f)\n"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["(SPEC" + "NOTES.md §10)\n"]}]},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "notebooks" / "01_x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (tmp_path / "README.md").write_text("See CONTRIBUTING.md and docs/theorems.md.\n", encoding="utf-8")
    (tmp_path / "CONTRIBUTING.md").write_text("Link a result as [ID](../docs/theorems.md#id).\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Back to [the book](../notebooks/01_x.ipynb).\n", encoding="utf-8")
    assert pointers_outside(tmp_path) == ["notebooks/01_x.ipynb [cell 1 output 0]: (SPEC" + "NOTES.md §10)"]
