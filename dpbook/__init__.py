"""dpbook: private query release, one theorem at a time.

The package behind the workbook's chapters (``notebooks/``).  The flow is one-way:

    dpbook.data → dpbook.queries → mechanism (dpbook.laplace, ...) → Release
        → dpbook.experiments / dpbook.audit (with dpbook.theory's bounds) → dpbook.plots / dpbook.widgets

Every random function takes ``rng`` (Generator, int seed or None); every bound cites its theorem ID
(the IDs are listed, with statements and sources, in ``docs/theorems.md``).
"""
from __future__ import annotations

import ast
import inspect
import textwrap

__version__ = "0.1.0"
__all__ = ["show_source", "__version__"]


#: The most lines a chapter prints with :func:`show_source`: the algorithm box, not a code dump.
SHOW_SOURCE_LINES = 15


def show_source(obj, *, docstring: bool = False) -> None:
    """Print the source code of a dpbook function or class (to read an implementation next to its theorem).

    The docstring is left out unless ``docstring=True``: the chapter states the result above the code, so what is
    printed is the body that reads like the algorithm box.
    """
    if not isinstance(docstring, bool):
        raise TypeError(f"docstring must be a bool, got {type(docstring).__name__}")
    source = textwrap.dedent(inspect.getsource(obj))
    if not docstring:
        source = _without_docstrings(source)
    print(source)


def _without_docstrings(source: str) -> str:
    """``source`` with the docstring of the outer definition (and of a class's methods) removed."""
    tree = ast.parse(source)
    drop = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) \
                    and isinstance(first.value.value, str):
                drop.update(range(first.lineno, first.end_lineno + 1))
    lines = source.splitlines()
    return "\n".join(line for i, line in enumerate(lines, start=1) if i not in drop)
