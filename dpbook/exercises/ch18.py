"""Answers to chapter 18's exercises (which mechanism).

Exercise 1 asks for a guess of a mechanism (a name, not a number): no key.  Exercise 2's answer is read off the
grid the repository stores (``benchmarks/arena/results.json``, written by ``make arena``), exactly as the chapter
reads it (the chapter's ``median_error`` is the median of a cell's stored ``max`` errors).
"""
from __future__ import annotations

import json
import pathlib

import numpy as np

from ._registry import register

_RESULTS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "arena" / "results.json"


@register("18.2", hint="for every cell of the grid divide the histogram's stored bound by its median measured max "
                       "error (median_error(cell, \"histogram\")) and take the largest", rtol=0.01)
def largest_bound_ratio() -> float:
    """The largest ratio of the histogram's max-error bound to its median measured max error over the stored grid."""
    cells = json.loads(_RESULTS.read_text())["cells"]
    return float(max(c["mechanisms"]["histogram"]["bound"] / np.median(c["mechanisms"]["histogram"]["max"])
                     for c in cells))
