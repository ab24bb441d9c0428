"""dpbook: private query release, one theorem at a time.

The package behind the workbook's chapters (``notebooks/``).  The flow is one-way:

    dpbook.data → dpbook.queries → mechanism (dpbook.laplace, ...) → Release
        → dpbook.experiments / dpbook.audit (with dpbook.theory's bounds) → dpbook.plots / dpbook.widgets

Every random function takes ``rng`` (Generator, int seed or None); every bound cites its theorem ID
(the IDs are listed, with statements and sources, in ``docs/theorems.md``).
"""
from __future__ import annotations

import inspect

__version__ = "0.1.0"
__all__ = ["show_source", "__version__"]


def show_source(obj) -> None:
    """Print the source code of a dpbook function or class (to read an implementation next to its theorem)."""
    print(inspect.getsource(obj))
