"""Exercises that check themselves: ``check("01.3", answer)`` says right, close or wrong, with a hint, and never
prints the worked solution (the registry and the comparison: :mod:`dpbook.exercises._registry`; the answers: one
module ``chNN`` per chapter).  Chapter NN's worked solutions call ``check`` on their own results, so the expected
values and the solutions cannot drift apart; the student edition (``make student``) puts a check cell under the
exercises instead of the solutions.
"""
from __future__ import annotations

# each chapter's module registers its answers on import, and is imported when first needed: ``check("04.1", ...)``
# loads chapter 04's answers only (a chapter does not pay for the other chapters' imports); ``ANSWERS`` loads all
from . import _registry
from ._registry import Answer, Verdict, check, keys_of, register

__all__ = ["check", "keys_of", "ANSWERS", "Answer", "Verdict", "register"]


def __getattr__(name):
    if name == "ANSWERS":
        _registry.load_all()
        return _registry.ANSWERS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
