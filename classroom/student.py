"""The student edition: every chapter without its worked solutions, with a check cell under the exercises.

``python -m classroom.student [OUT]`` (``make student``) writes ``OUT/notebooks/NN_*.ipynb`` (default
``build/student``) and copies what the chapters read beside them (``docs/``, ``data/``, ``benchmarks/``), so the
folder works on its own: zip it, hand it out, open it in JupyterLab.  The instructor edition is the repository.

A chapter's solutions are the cells from its ``## Solutions`` heading up to its ``## References`` heading (or the
end); everything else — text, exercises, stored figures, widgets — is kept cell for cell, so the two editions stay in
step (:func:`in_step` checks it).  Where ``dpbook.exercises`` has answers for the chapter, one code cell per exercise
(``check("NN.k", answer)``) goes right after the exercises; it says right / close / wrong with a hint and never
prints the solution.
"""
from __future__ import annotations

import copy
import json
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOLUTIONS = re.compile(r"^##\s+Solutions?\b.*$", re.M)
REFERENCES = re.compile(r"^##\s+References\b.*$", re.M)
EXERCISES = re.compile(r"^##\s+Exercises\b", re.M)
TAG = "dpbook-student"          # metadata key of the cells the student edition adds
COPIED = ("docs", "data", "benchmarks")
NOTE = ("*Worked solutions are in the instructor edition (the book's repository). Check your answers with the "
        "cells above: each says right, close or wrong, with a hint.*\n")


def _source(cell) -> str:
    return "".join(cell["source"])


def _set_source(cell, text: str) -> None:
    lines = text.splitlines(keepends=True)
    cell["source"] = lines


def split_solutions(nb: dict) -> tuple[list, list]:
    """``(kept, removed)``: the chapter's cells without the solutions, and the solution cells (a markdown cell that
    holds the ``## Solutions`` heading after other text is cut at the heading; one that holds ``## References``
    after solution text keeps the references)."""
    kept, removed, inside = [], [], False
    for cell in nb["cells"]:
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            start = SOLUTIONS.search(text) if not inside else None
            if start:
                before, rest = text[:start.start()], text[start.start():]
                ref = REFERENCES.search(rest)
                if before.strip():
                    head = copy.deepcopy(cell)
                    _set_source(head, before.rstrip("\n") + "\n")
                    kept.append(head)
                if ref:
                    tail = copy.deepcopy(cell)
                    _set_source(tail, rest[ref.start():])
                    tail["id"] = (cell.get("id") or "c") + "-ref"
                    kept.append(tail)
                    removed.append(cell)
                    continue
                removed.append(cell)
                inside = True
                continue
            if inside:
                ref = REFERENCES.search(text)
                if ref:
                    inside = False
                    if ref.start() > 0:
                        tail = copy.deepcopy(cell)
                        _set_source(tail, text[ref.start():])
                        kept.append(tail)
                        removed.append(cell)
                        continue
                    kept.append(cell)
                    continue
        (removed if inside else kept).append(cell)
    return kept, removed


def check_cells(chapter: str) -> list[dict]:
    """One code cell per registered answer of chapter ``chapter`` (``"NN"``), plus a markdown cell saying where
    the solutions are."""
    from dpbook.exercises import keys_of
    cells = []
    for key in keys_of(chapter):
        k = key.split(".")[1]
        cells.append({"cell_type": "code", "execution_count": None, "id": f"check-{chapter}-{k}",
                      "metadata": {TAG: "check"}, "outputs": [],
                      "source": [f"# Exercise {k}: put your answer (a number, or a function if the exercise asks for one)\n",
                                 "# in `answer` and run the cell.\n",
                                 "from dpbook.exercises import check\n",
                                 "answer = None\n",
                                 f'check("{key}", answer);']})
    cells.append({"cell_type": "markdown", "id": f"student-note-{chapter}", "metadata": {TAG: "note"},
                  "source": [NOTE]})
    return cells


def student_notebook(nb: dict, chapter: str) -> dict:
    """The student edition of one chapter notebook (a new dict; ``nb`` is not changed)."""
    out = copy.deepcopy(nb)
    kept, _ = split_solutions(out)
    at = next((i + 1 for i, c in enumerate(kept) if c["cell_type"] == "markdown" and EXERCISES.search(_source(c))),
              None)
    if at is None:
        raise ValueError(f"chapter {chapter} has no '## Exercises' section")
    out["cells"] = kept[:at] + check_cells(chapter) + kept[at:]
    return out


def in_step(instructor: dict, student: dict) -> list[str]:
    """The differences between the two editions other than the solutions and the added cells (empty: in step)."""
    kept, _ = split_solutions(instructor)
    ours = [c for c in student["cells"] if TAG not in c.get("metadata", {})]
    problems = []
    if len(ours) != len(kept):
        problems.append(f"{len(ours)} cells kept, {len(kept)} expected")
    for a, b in zip(kept, ours):
        if a["cell_type"] != b["cell_type"] or _source(a) != _source(b):
            problems.append(f"cell {a.get('id')} differs")
        elif a["cell_type"] == "code" and a.get("outputs") != b.get("outputs"):
            problems.append(f"cell {a.get('id')}: outputs differ")
    return problems


def write_edition(out: pathlib.Path, root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """Write the student edition under ``out``; returns the chapter files written."""
    out = pathlib.Path(out)
    (out / "notebooks").mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        target = out / "notebooks" / path.name
        target.write_text(json.dumps(student_notebook(nb, path.name[:2]), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        written.append(target)
    ignore = shutil.ignore_patterns(".venv", "__pycache__", "*.pyc")
    for name in COPIED:
        if (root / name).exists():
            shutil.copytree(root / name, out / name, dirs_exist_ok=True, ignore=ignore)
    return written


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = pathlib.Path(args[0]) if args else ROOT / "build" / "student"
    written = write_edition(out)
    print(f"student edition: {len(written)} chapters in {out / 'notebooks'} (solutions removed, check cells added)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
