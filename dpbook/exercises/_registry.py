"""The registry behind :func:`dpbook.exercises.check`: one :class:`Answer` per exercise, and the comparison.

Every exercise with a numeric (or function) answer has an :class:`Answer` here, keyed ``"NN.k"`` (chapter ``NN``,
exercise ``k``).  Its ``expected`` is computed by a function of ``dpbook`` (the same computation as the chapter's
worked solution, which calls :func:`check` on its own result, so CI keeps the two in step); the student edition
(``make student``) puts a check cell under the exercises instead of the solutions.  The answers live in
``dpbook/exercises/chNN.py``, one module per chapter.

A number is **right** within ``rtol``/``atol`` of the expected value, **close** within ``close`` times that
tolerance (a rounding slip, a factor forgotten in the last digit), and **wrong** otherwise.  A function answer is
called on the answer's ``inputs`` and each output is compared the same way.  ``None`` means "not answered yet".
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Answer", "ANSWERS", "register", "check", "Verdict"]


@dataclass(frozen=True)
class Answer:
    """The key, the expected value (computed on demand), the tolerances and the hint of one exercise."""
    key: str
    expected: Callable[[], Any]
    hint: str
    rtol: float = 0.02
    atol: float = 0.0
    close: float = 5.0
    inputs: tuple = field(default=())      # for a function answer: the argument tuples it is called on


@dataclass(frozen=True)
class Verdict:
    key: str
    status: str            # "right", "close", "wrong" or "unanswered"
    message: str

    def __bool__(self) -> bool:
        return self.status == "right"

    def __repr__(self) -> str:
        return self.message


ANSWERS: dict[str, Answer] = {}

_PACKAGE = __name__.rsplit(".", 1)[0]
_CHAPTERS = sorted(m.name[2:] for m in pkgutil.iter_modules(importlib.import_module(_PACKAGE).__path__)
                   if re.fullmatch(r"ch\d\d", m.name))


def _load(chapter: str) -> None:
    """Import chapter ``chapter``'s answers module (``chNN``, which registers its answers), if it has one."""
    if chapter in _CHAPTERS:
        importlib.import_module(f"{_PACKAGE}.ch{chapter}")


def load_all() -> None:
    """Register every chapter's answers (what :data:`ANSWERS` holds once loaded)."""
    for chapter in _CHAPTERS:
        _load(chapter)


def register(key: str, *, hint: str, rtol: float = 0.02, atol: float = 0.0, close: float = 5.0,
             inputs: tuple = ()):
    """Decorator: register the function below as the expected-value computation of exercise ``key``."""
    _check_key(key)
    if key in ANSWERS:
        raise ValueError(f"key ({key!r}) is registered twice")

    def wrap(fn):
        ANSWERS[key] = Answer(key, fn, hint, rtol, atol, close, tuple(inputs))
        return fn
    return wrap


def _check_key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"key must be a string like '07.3', got {type(key).__name__}")
    parts = key.split(".")
    if len(parts) != 2 or len(parts[0]) != 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise ValueError(f"key ({key!r}) must be 'NN.k': the chapter's two digits and the exercise's number")
    return key


def _numbers(value) -> np.ndarray:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("a number, not a bool")
    arr = np.asarray(value, dtype=np.float64)
    return arr


def _compare(got, want, a: Answer) -> str:
    got, want = _numbers(got), _numbers(want)
    if got.shape != want.shape:
        return "wrong"
    tol = a.atol + a.rtol * np.abs(want)
    err = np.abs(got - want)
    if not np.all(np.isfinite(got)):
        return "wrong"
    if np.all(err <= tol):
        return "right"
    if np.all(err <= a.close * tol):
        return "close"
    return "wrong"


def check(key: str, answer) -> Verdict:
    """Check ``answer`` for exercise ``key`` (``"NN.k"``); prints and returns the verdict (truthy when right)."""
    _check_key(key)
    _load(key[:2])
    if key not in ANSWERS:
        load_all()
        raise ValueError(f"key ({key!r}) has no registered answer; registered: {', '.join(sorted(ANSWERS))}")
    a = ANSWERS[key]
    if answer is None:
        verdict = Verdict(key, "unanswered", f"{key}: not answered yet — put your answer in the cell and run it again")
        print(verdict.message)
        return verdict
    want = a.expected()
    try:
        if callable(want):
            if not callable(answer):
                raise TypeError("this exercise asks for a function")
            statuses = [_compare(answer(*args), want(*args), a) for args in a.inputs]
            status = "right" if all(s == "right" for s in statuses) else \
                "close" if all(s in ("right", "close") for s in statuses) else "wrong"
        else:
            status = _compare(answer, want, a)
    except (TypeError, ValueError) as e:
        verdict = Verdict(key, "wrong", f"{key}: wrong kind of answer ({e}). Hint: {a.hint}")
        print(verdict.message)
        return verdict
    if status == "right":
        message = f"{key}: right"
    elif status == "close":
        message = f"{key}: close, but not within the tolerance ({_tolerance(a)}). Hint: {a.hint}"
    else:
        message = f"{key}: not yet. Hint: {a.hint}"
    verdict = Verdict(key, status, message)
    print(verdict.message)
    return verdict


def _tolerance(a: Answer) -> str:
    parts = []
    if a.rtol:
        parts.append(f"{100 * a.rtol:g}% relative")
    if a.atol:
        parts.append(f"{a.atol:g} absolute")
    return " + ".join(parts) or "exact"


def keys_of(chapter: str) -> list[str]:
    """The registered keys of chapter ``"NN"``, in exercise order."""
    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a two-digit string like '07', got {type(chapter).__name__}")
    if len(chapter) != 2 or not chapter.isdigit():
        raise ValueError(f"chapter ({chapter!r}) must be two digits, like '07'")
    _load(chapter)
    return sorted((k for k in ANSWERS if k.startswith(chapter + ".")), key=lambda k: int(k.split(".")[1]))


__all__ += ["keys_of"]
