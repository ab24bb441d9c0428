"""The student edition (classroom/student.py) and the exercise checks (dpbook.exercises).

* every chapter's student edition has no worked solution and is in step with the instructor edition (the same cells
  apart from the solutions and the added check cells, outputs included);
* the edition of chapter 01 executes from scratch, check cells included (the whole edition: ``make student-test``);
* every registered answer: its chapter exists and has that many exercises, the chapter's own worked solution calls
  ``check`` on it (so the solution and the key cannot drift apart), the expected value is judged right, a value a
  few tolerances off close, a wrong one (×10) and a wrong kind wrong, and ``None`` unanswered.
"""
from __future__ import annotations

import json
import pathlib
import re

import pytest

from classroom import student
from dpbook.exercises import ANSWERS, all_answers, check, keys_of, register

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _nb(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_student_edition_has_no_solutions_and_stays_in_step(path):
    nb = _nb(path)
    ed = student.student_notebook(nb, path.name[:2])
    text = "\n".join("".join(c["source"]) for c in ed["cells"])
    assert not re.search(r"^###\s+Solution", text, re.M) and not student.SOLUTIONS.search(text)
    assert student.in_step(nb, ed) == []
    kept, removed = student.split_solutions(nb)
    assert removed, f"{path.name}: no solutions found to remove"
    added = [c for c in ed["cells"] if student.TAG in c.get("metadata", {})]
    assert len(added) == len(keys_of(path.name[:2])) + 1


def test_in_step_sees_a_changed_cell():
    nb = _nb(CHAPTERS[1])
    ed = student.student_notebook(nb, CHAPTERS[1].name[:2])
    ed["cells"][3]["source"] = ["changed\n"]
    assert student.in_step(nb, ed)


def test_student_edition_executes(tmp_path):
    """Chapter 01's student edition, written with the folders it reads, runs from scratch, check cells included."""
    import nbformat
    from nbclient import NotebookClient
    written = student.write_edition(tmp_path)
    path = next(p for p in written if p.name.startswith("01_"))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outs = ["".join(o.get("text", "")) for c in nb.cells if c.get("metadata", {}).get(student.TAG) == "check"
            for o in c.get("outputs", [])]
    assert outs and all("not answered yet" in o for o in outs)
    assert (tmp_path / "docs" / "theorems.md").exists() and (tmp_path / "data").is_dir()


def _exercise_count(path) -> int:
    for c in _nb(path)["cells"]:
        text = "".join(c["source"])
        m = re.search(r"^##\s+Exercises\b(.*?)(?=^##\s|\Z)", text, re.M | re.S)
        if m and c["cell_type"] == "markdown":
            return len(re.findall(r"^\d+\.\s", m.group(1), re.M))
    return 0


@pytest.mark.parametrize("key", sorted(all_answers()))
def test_every_answer_is_checked_and_can_fail(key, capsys):
    chapter, k = key.split(".")
    path = next((p for p in CHAPTERS if p.name.startswith(chapter + "_")), None)
    assert path is not None, f"{key}: no chapter {chapter}"
    assert int(k) <= _exercise_count(path), f"{key}: chapter {chapter} has {_exercise_count(path)} exercises"
    code = "\n".join("".join(c["source"]) for c in _nb(path)["cells"] if c["cell_type"] == "code")
    assert f'check("{key}"' in code, f"{key}: the worked solution in {path.name} does not call check on its result"
    a = ANSWERS[key]
    want = a.expected()
    assert check(key, want).status == "right"
    tol = a.atol + a.rtol * abs(want)
    assert check(key, want + 3 * tol).status == "close"
    assert check(key, 10 * want + 1).status == "wrong"
    assert check(key, "twelve").status == "wrong"
    assert check(key, None).status == "unanswered"
    out = capsys.readouterr().out.replace(key, "")                     # the key itself is not the answer
    assert f"{want}" not in out and f"{want:.3g}" not in out          # the verdicts never print the answer


def test_check_rejects_bad_keys():
    with pytest.raises(ValueError, match=r"key \('1.3'\)"):
        check("1.3", 1.0)
    with pytest.raises(ValueError, match=r"key \('99.1'\) has no registered answer"):
        check("99.1", 1.0)
    with pytest.raises(TypeError, match="key"):
        check(13, 1.0)
    with pytest.raises(ValueError, match=r"chapter \('7'\)"):
        keys_of("7")
    with pytest.raises(TypeError, match="chapter"):
        keys_of(7)
    with pytest.raises(ValueError, match=r"key \('01.3'\) is registered twice"):
        register("01.3", hint="")
    with pytest.raises(ValueError, match=r"key \('x'\)"):
        register("x", hint="")
