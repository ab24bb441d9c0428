"""Exercises that check themselves: ``check("01.3", answer)`` says right, close or wrong, with a hint, and never
prints the worked solution (the registry and the comparison: :mod:`dpbook.exercises._registry`; the answers: one
module ``chNN`` per chapter).  Chapter NN's worked solutions call ``check`` on their own results, so the expected
values and the solutions cannot drift apart; the student edition (``make student``) puts a check cell under the
exercises instead of the solutions.
"""
from __future__ import annotations

# each chapter's module registers its answers on import
from . import ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09  # noqa: F401
from . import ch10, ch11, ch12, ch13, ch14, ch15, ch16, ch17, ch18  # noqa: F401
from ._registry import ANSWERS, Answer, Verdict, check, keys_of, register

__all__ = ["check", "keys_of", "ANSWERS", "Answer", "Verdict", "register"]
