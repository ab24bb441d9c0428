"""dpbook.comparisons.arena: reading the stored arena (benchmarks/arena/results.json) — the cells, their medians,
the winners by measured error and by bound, and the Monte-Carlo consistency check — on small hand-made results
whose answers are known, and bad input refused by name."""
import json
import math

import pytest

from dpbook.comparisons import arena as C


def _rec(errors, bound=None, neighbours="add/remove"):
    return {"max": list(errors), "rms": [e / 2 for e in errors], "bound": bound, "bound_metric": "max",
            "neighbours": neighbours}


def _result():
    cell = {"workload": "w", "n": 100, "epsilon": 1.0, "uniform": {"max": 0.5, "rms": 0.25},
            "mechanisms": {"laplace": _rec([0.1, 0.3, 0.2], bound=0.9), "histogram": _rec([0.05, 0.4, 0.25], bound=0.5),
                           "randomized_response": _rec([0.01, 0.01, 0.01], neighbours="one private attribute")}}
    other = dict(cell, epsilon=0.1, mechanisms={"laplace": _rec([1.0, 1.0, 1.0])})
    return {"schema": 1, "delta": 1e-6, "cells": [cell, other]}


def test_reading_a_hand_made_result(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_result()))
    R = C.load_arena(path)
    cell = C.find_cell(R, "w", 100, 1.0)
    assert C.median_error(cell, "laplace") == 0.2 and C.median_error(cell, "histogram", "rms") == 0.125
    assert math.isnan(C.median_error(cell, "mwem"))
    # randomized response has the lowest error but another guarantee: never a winner
    assert C.winners(R) == {("w", 100): "laplace"}                      # median 0.2 < 0.25
    assert C.winners(R, by="bound") == {("w", 100): "histogram"}        # bound 0.5 < 0.9
    assert C.winners(R, epsilon=0.1) == {("w", 100): "laplace"}
    assert C.winners(R, metric="rms", by="bound") == {}                # no theorem bounds the RMS error here
    assert C.consistent(cell, cell) == {m: True for m in cell["mechanisms"]}
    shifted = dict(cell, mechanisms={"laplace": _rec([0.6, 0.7, 0.8])})
    assert C.consistent(cell, shifted) == {"laplace": False}
    assert C.consistent(cell, dict(cell, mechanisms={"mwem": _rec([0.1])})) == {"mwem": False}


def test_the_stored_arena():
    R = C.stored_arena()
    assert R is C.stored_arena() and R["schema"] == 1
    cell = C.find_cell(R, "2-way marginals", 10_000, 1.0)
    assert cell["n"] == 10_000 and C.median_error(cell, "laplace") > 0


def test_bad_input(tmp_path):
    R = _result()
    cell = R["cells"][0]
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    for call, exc, name in [
            (lambda: C.load_arena(3), TypeError, "path"),
            (lambda: C.load_arena(tmp_path / "none.json"), ValueError, "path"),
            (lambda: C.load_arena(bad), ValueError, "path"),
            (lambda: C.check_result({"schema": 1}), TypeError, "result"),
            (lambda: C.find_cell([], "w", 100, 1.0), TypeError, "result"),
            (lambda: C.find_cell(R, 3, 100, 1.0), TypeError, "workload"),
            (lambda: C.find_cell(R, "w", 0, 1.0), ValueError, "n"),
            (lambda: C.find_cell(R, "w", 100, math.nan), ValueError, "epsilon"),
            (lambda: C.find_cell(R, "w", 2 ** 63, 1.0), ValueError, "n"),
            (lambda: C.find_cell(R, "w", 100, 1e308), ValueError, "epsilon"),
            (lambda: C.find_cell(R, "w", 100, 1 + 1j), TypeError, "epsilon"),
            (lambda: C.find_cell(R, "w", 1.5, 1.0), TypeError, "n"),
            (lambda: C.find_cell(R, "w", 123, 1.0), ValueError, "not a cell"),
            (lambda: C.median_error({}, "laplace"), TypeError, "cell"),
            (lambda: C.median_error(cell, None), TypeError, "mechanism"),
            (lambda: C.median_error(cell, "laplace", "mean"), ValueError, "metric"),
            (lambda: C.winners(R, epsilon=-1.0), ValueError, "epsilon"),
            (lambda: C.winners(R, epsilon="1"), TypeError, "epsilon"),
            (lambda: C.winners(R, metric="mean"), ValueError, "metric"),
            (lambda: C.winners(R, by="guess"), ValueError, "by"),
            (lambda: C.consistent(cell, None), TypeError, "fresh"),
            (lambda: C.consistent("x", cell), TypeError, "stored"),
            (lambda: C.consistent(cell, cell, z=0.0), ValueError, "z"),
            (lambda: C.consistent(cell, cell, z=math.inf), ValueError, "z"),
            (lambda: C.winners(R, epsilon=5e-324), ValueError, "epsilon")]:
        with pytest.raises(exc, match=name):
            call()
