"""benchmarks/arena/results.json (the last chapter's grid) against the code that made it, and the arena explorer."""
import copy
import pathlib

import numpy as np
import pytest

from benchmarks.arena import run
from dpbook.explorers import arena as A

RESULT = A.load_arena(run.RESULTS)


def test_file_records_its_provenance():
    assert {"code_version", "date", "seed", "trials", "machine", "python", "numpy", "cells", "timing"} <= set(RESULT)
    assert len(RESULT["cells"]) == len(run.GRID)


@pytest.mark.parametrize("wi, ni, ei", run.QUICK)
def test_a_slice_recomputes_within_monte_carlo_error(wi, ni, ei):
    """A slice of the grid, recomputed from its seeds, matches the file; the same file with one mechanism's
    errors halved does not."""
    n, eps = run.NS[ni], run.EPSILONS[ei]
    only = {"laplace", "gaussian", "histogram", "mwem"}
    stored = A.find_cell(RESULT, run.WORKLOADS[wi][0], n, eps)
    fresh = run.run_cell(wi, n, eps, only=only)
    assert set(fresh["mechanisms"]) == only
    assert all(A.consistent(stored, fresh).values())
    for mech in only:
        halved = copy.deepcopy(stored)
        for metric in ("max", "rms"):
            halved["mechanisms"][mech][metric] = [v / 2 for v in stored["mechanisms"][mech][metric]]
        assert not A.consistent(halved, fresh)[mech]


def test_winners_and_figures():
    meas, pred = A.winners(RESULT), A.winners(RESULT, by="bound")
    assert set(meas) == set(pred) and len(meas) == len(run.WORKLOADS) * len(run.NS)
    import matplotlib.pyplot as plt
    for fig in (A.figure_error_vs(RESULT, "m"), A.figure_error_vs(RESULT, "n"), A.figure_error_vs(RESULT, "epsilon"),
                A.figure_time(RESULT), A.figure_map(RESULT), A.explore_arena(RESULT)):
        assert fig.get_size_inches()[0] <= 10
        plt.close(fig)


def test_bad_input():
    with pytest.raises(ValueError, match="metric"):
        A.winners(RESULT, metric="mean")
    with pytest.raises(ValueError, match="axis"):
        A.figure_error_vs(RESULT, "k")
    with pytest.raises(ValueError, match="delta"):
        A.explore_arena(RESULT, delta=1e-5)
    with pytest.raises(ValueError, match="not a cell"):
        A.find_cell(RESULT, "2-way marginals", 123, 1.0)
    with pytest.raises(TypeError, match="path"):
        A.load_arena(3)
    with pytest.raises(ValueError, match="path"):
        A.load_arena(pathlib.Path("no/such/file.json"))
