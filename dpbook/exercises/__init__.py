"""Exercises that check themselves: ``check("01.3", answer)`` says right, close or wrong, with a hint, and never
prints the worked solution (the registry and the comparison: :mod:`dpbook.exercises._registry`; the answers: one
module ``chNN`` per chapter).  Chapter NN's worked solutions call ``check`` on their own results, so the expected
values and the solutions cannot drift apart; the student edition (``make student``) puts a check cell under the
exercises instead of the solutions.
"""
from __future__ import annotations

from . import ch01  # noqa: F401  (each chapter module registers its answers on import)
from . import ch07  # noqa: F401
from . import ch08  # noqa: F401
from . import ch09  # noqa: F401
from . import ch10  # noqa: F401
from . import ch11  # noqa: F401
from . import ch12  # noqa: F401
from . import ch13  # noqa: F401
from . import ch14  # noqa: F401
from . import ch15  # noqa: F401
from . import ch18  # noqa: F401
from ._registry import ANSWERS, Answer, Verdict, check, keys_of, register

__all__ = ["check", "keys_of", "ANSWERS", "Answer", "Verdict", "register"]
