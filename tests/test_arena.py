"""benchmarks/arena/results.json (the last chapter's grid) against the code that made it (read with
dpbook.comparisons.arena), and the arena explorer's figures and widget."""
import copy

import pytest

from benchmarks.arena import run
from dpbook.comparisons import arena as C
from dpbook.explorers import arena as A

RESULT = C.load_arena(run.RESULTS)


def test_file_records_its_provenance():
    assert {"code_version", "date", "seed", "trials", "machine", "python", "numpy", "cells", "timing"} <= set(RESULT)
    assert len(RESULT["cells"]) == len(run.GRID)


@pytest.mark.parametrize("wi, ni, ei", run.QUICK)
def test_a_slice_recomputes_within_monte_carlo_error(wi, ni, ei):
    """A slice of the grid, recomputed from its seeds, matches the file; the same file with one mechanism's
    errors halved does not."""
    n, eps = run.NS[ni], run.EPSILONS[ei]
    only = {"laplace", "gaussian", "histogram", "mwem"}
    stored = C.find_cell(RESULT, run.WORKLOADS[wi][0], n, eps)
    fresh = run.run_cell(wi, n, eps, only=only)
    assert set(fresh["mechanisms"]) == only
    assert all(C.consistent(stored, fresh).values())
    for mech in only:
        halved = copy.deepcopy(stored)
        for metric in ("max", "rms"):
            halved["mechanisms"][mech][metric] = [v / 2 for v in stored["mechanisms"][mech][metric]]
        assert not C.consistent(halved, fresh)[mech]


def test_winners_and_figures():
    meas, pred = C.winners(RESULT), C.winners(RESULT, by="bound")
    assert set(meas) == set(pred) and len(meas) == len(run.WORKLOADS) * len(run.NS)
    import matplotlib.pyplot as plt
    for fig in (A.figure_error_vs(RESULT, "m"), A.figure_error_vs(RESULT, "n"), A.figure_error_vs(RESULT, "epsilon"),
                A.figure_time(RESULT), A.figure_map(RESULT), A.explore_arena(RESULT)):
        assert fig.get_size_inches()[0] <= 10
        plt.close(fig)


def test_the_stored_file_is_the_one_the_runner_writes():
    assert C.RESULTS_FILE == run.RESULTS and C.stored_arena() is C.stored_arena()
    assert C.stored_arena()["cells"] == RESULT["cells"]


def test_figures_reject_bad_input():
    with pytest.raises(ValueError, match="axis"):
        A.figure_error_vs(RESULT, "k")
    with pytest.raises(ValueError, match="epsilon"):
        A.figure_error_vs(RESULT, "m", epsilon=0.0)
    with pytest.raises(TypeError, match="n"):
        A.figure_error_vs(RESULT, "m", n=1.5)
    with pytest.raises(ValueError, match="mechanisms"):
        A.figure_error_vs(RESULT, "m", mechanisms=("laplace", "no such mechanism"))
    with pytest.raises(TypeError, match="result"):
        A.figure_time({"timing": []})
    with pytest.raises(ValueError, match="timing"):
        A.figure_time({"cells": []})
    with pytest.raises(ValueError, match="epsilon"):
        A.figure_map(RESULT, epsilon=0.5)                          # not a budget of the grid
    with pytest.raises(ValueError, match="metric"):
        A.figure_map(RESULT, metric="mean")
    with pytest.raises(TypeError, match="result"):
        A.figure_map([])
    with pytest.raises(ValueError, match="delta"):
        A.explore_arena(RESULT, delta=1e-5)
    with pytest.raises(ValueError, match="delta"):
        A.explore_arena(RESULT, delta=float("nan"))
    with pytest.raises(TypeError, match="mechanisms"):
        A.explore_arena(RESULT, mechanisms=3)
