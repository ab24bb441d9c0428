"""Exercises that check themselves: ``check("01.3", answer)`` says right, close or wrong, with a hint, and never
prints the worked solution (the registry and the comparison: :mod:`dpbook.exercises._registry`; the answers: one
module ``chNN`` per chapter).  Chapter NN's worked solutions call ``check`` on their own results, so the expected
values and the solutions cannot drift apart; the student edition (``make student``) puts a check cell under the
exercises instead of the solutions.
"""
from __future__ import annotations

# each chapter's module ``chNN`` registers its answers when it is imported, which ``check`` and ``keys_of`` do for
# the chapter asked about (a chapter's solutions load only its own answers); ``all_answers`` loads every chapter's
from ._registry import ANSWERS, Answer, Verdict, all_answers, check, keys_of, register

__all__ = ["check", "keys_of", "all_answers", "ANSWERS", "Answer", "Verdict", "register"]
