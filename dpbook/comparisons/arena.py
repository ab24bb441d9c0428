"""The last chapter's arena: every mechanism of the book on one grid of workloads, database sizes and budgets, run
by ``python -m benchmarks.arena.run`` (``make arena``) and stored in ``benchmarks/arena/results.json``; here, the
reading of that file (see the package docstring for what a comparison is).

A results dictionary (:func:`load_arena`, :func:`stored_arena`) holds one *cell* per (workload, n, ε) with, per
mechanism, its per-trial max and RMS errors (normalised answers), its theorem's bound where there is one, its
neighbouring relation and whether it spends δ.  :func:`median_error` and :func:`winners` summarise the cells (medians
over the stored trials); :func:`consistent` checks a freshly computed cell against the stored one within its
Monte-Carlo error, so the file cannot go stale silently.  Nothing here runs a mechanism or releases anything.
"""
from __future__ import annotations

import math
import pathlib

import numpy as np

from ..validation import check_choice, check_epsilon, check_int, check_real
from ..data import load_results_file

__all__ = ["METRICS", "RESULTS_FILE", "load_arena", "stored_arena", "check_result", "find_cell", "median_error",
           "winners", "consistent"]

#: the two error summaries stored per trial: the max and the RMS error over the workload
METRICS = ("max", "rms")
#: The results file ``make arena`` writes, beside the package in a checkout of the book.
RESULTS_FILE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "arena" / "results.json"
_STORED: dict = {}


def load_arena(path) -> dict:
    """The results file of ``make arena`` at ``path`` as a dictionary (its schema checked)."""
    result = load_results_file(path, "make arena")
    if not isinstance(result, dict) or result.get("schema") != 1 or not isinstance(result.get("cells"), list):
        raise ValueError(f"path ({str(path)!r}) is not a results file of make arena (schema 1)")
    return result


def stored_arena() -> dict:
    """The book's stored arena results (:data:`RESULTS_FILE`), read once."""
    if "result" not in _STORED:
        _STORED["result"] = load_arena(RESULTS_FILE)
    return _STORED["result"]


def check_result(result, name: str = "result") -> dict:
    """``result`` as a results dictionary of :func:`load_arena` (``TypeError`` naming ``name`` otherwise)."""
    if not isinstance(result, dict) or not isinstance(result.get("cells"), list):
        raise TypeError(f"{name} must be the dictionary of load_arena, got {type(result).__name__}")
    return result


def _check_cell(cell, name: str) -> dict:
    if not isinstance(cell, dict) or not isinstance(cell.get("mechanisms"), dict):
        raise TypeError(f"{name} must be a cell of the arena (find_cell), got {type(cell).__name__}")
    return cell


def find_cell(result, workload, n, epsilon) -> dict:
    """The stored cell (workload name, n, ε); ``ValueError`` naming the grid's values if it was not computed."""
    result = check_result(result)
    if not isinstance(workload, str):
        raise TypeError(f"workload must be a workload's name in the arena (a str), got {type(workload).__name__}")
    n, epsilon = check_int("n", n, low=1), check_epsilon(epsilon)
    for cell in result["cells"]:
        if cell["workload"] == workload and cell["n"] == n and math.isclose(cell["epsilon"], epsilon):
            return cell
    raise ValueError(f"(workload, n, epsilon) ({workload!r}, {n!r}, {epsilon!r}) is not a cell of the grid")


def median_error(cell, mechanism, metric="max") -> float:
    """The median over the stored trials of ``mechanism``'s max or RMS error in ``cell`` (NaN if not run)."""
    cell = _check_cell(cell, "cell")
    if not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a mechanism's name in the arena (a str), got {type(mechanism).__name__}")
    metric = check_choice("metric", metric, METRICS)
    rec = cell["mechanisms"].get(mechanism)
    return float("nan") if rec is None or metric not in rec else float(np.median(rec[metric]))


def winners(result, epsilon=1.0, metric="max", by="measured") -> dict:
    """``{(workload, n): mechanism}``: the lowest median error (``by="measured"``) or the lowest bound on that
    metric (``by="bound"``; only mechanisms whose theorem bounds that metric) among the add/remove mechanisms."""
    result = check_result(result)
    epsilon = check_epsilon(epsilon)
    metric = check_choice("metric", metric, METRICS)
    by = check_choice("by", by, ("measured", "bound"))
    out = {}
    for cell in result["cells"]:
        if not math.isclose(cell["epsilon"], epsilon):
            continue
        score = {}
        for mech, rec in cell["mechanisms"].items():
            if rec.get("neighbours") != "add/remove" or metric not in rec:
                continue
            if by == "measured":
                score[mech] = float(np.median(rec[metric]))
            elif rec.get("bound") is not None and rec.get("bound_metric") == metric:
                score[mech] = rec["bound"]
        if score:
            out[(cell["workload"], cell["n"])] = min(score, key=score.get)
    return out


def consistent(stored, fresh, *, z=4.0) -> dict:
    """``{mechanism: bool}``: does the freshly computed ``fresh`` cell match the ``stored`` one within its
    Monte-Carlo error?  For each metric, ``|mean_fresh − mean_stored| <= z · SE + 1e-9`` with ``SE`` the standard
    error of the stored per-trial mean (and at least 2 % of it: a cell whose trials agree to the last digit)."""
    stored, fresh = _check_cell(stored, "stored"), _check_cell(fresh, "fresh")
    z = check_real("z", z, low=0.0, low_open=True)
    out = {}
    for mech, rec in fresh["mechanisms"].items():
        old = stored["mechanisms"].get(mech)
        if old is None or "max" not in rec or "max" not in old:
            out[mech] = False
            continue
        ok = True
        for metric in METRICS:
            a, b = np.asarray(old[metric], float), np.asarray(rec[metric], float)
            se = max(a.std(ddof=1) / math.sqrt(a.size) if a.size > 1 else 0.0, 0.02 * abs(a.mean()))
            ok &= bool(abs(a.mean() - b.mean()) <= z * se + 1e-9)
        out[mech] = ok
    return out
