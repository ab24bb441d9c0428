"""The book's theorem registry: every result the book implements, one hop from any chapter.

Each ``dpbook/theory/<family>.py`` module declares the results it implements in a module-level tuple
``RESULTS`` of :class:`Result` records; :func:`all_results` collects them from every theory module, so a new
chapter registers its results next to its bounds and nothing else has to be edited.  IDs are spelled exactly as
in the book's specification (e.g. ``DR-Thm3.8``, ``PROJ-Thm5``, ``SMOOTH-Thm3.1``).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

__all__ = ["Result", "all_results", "anchor"]


def anchor(result_id: str) -> str:
    """The fragment of ``docs/theorems.md`` for an ID: ``anchor("DR-Thm3.8") == "dr-thm3-8"``
    (chapters link ``../docs/theorems.md#dr-thm3-8``)."""
    import re
    if not isinstance(result_id, str):
        raise TypeError(f"result_id must be a str such as 'DR-Thm3.8', got {type(result_id).__name__}")
    if not re.search(r"[A-Za-z0-9]", result_id):
        raise ValueError(f"result_id ({result_id!r}) must contain letters or digits")
    return re.sub(r"[^a-z0-9]+", "-", result_id.lower()).strip("-")


@dataclass(frozen=True)
class Result:
    """One result of the book.

    ``id``: the spec's ID, one spelling.  ``title``: a few words (``"Laplace mechanism"``).  ``statement``: one
    or two sentences in our own words, Markdown/LaTeX allowed.  ``implemented_by``: dotted names of the
    functions or classes that implement the mechanism or definition.  ``bounds``: dotted names of the
    ``dpbook.theory`` functions that compute its bound.  ``chapter``: the notebook stem (``"01_laplace"``);
    ``section``: the heading in that chapter where the result is stated and checked.  ``source``: the
    reference it comes from (author, short title, year), with errata IDs where they apply.
    """

    id: str
    title: str
    statement: str
    chapter: str
    section: str = ""
    implemented_by: tuple[str, ...] = ()
    bounds: tuple[str, ...] = ()
    source: str = ""


def all_results() -> list[Result]:
    """Every :class:`Result` declared in a ``RESULTS`` tuple of a ``dpbook.theory`` module, sorted by chapter and ID."""
    from dpbook import theory

    found: list[Result] = []
    for info in pkgutil.iter_modules(theory.__path__):
        if info.name == "registry":
            continue
        module = importlib.import_module(f"dpbook.theory.{info.name}")
        found.extend(getattr(module, "RESULTS", ()))
    return sorted(found, key=lambda r: (r.chapter, r.id))
