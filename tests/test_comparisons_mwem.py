"""Chapter 09's stored sweep (dpbook.comparisons.mwem, written by ``python -m benchmarks.mwem_regime.run``): cheap points,
recomputed now, agree with the stored file, so the file cannot go stale silently; the loader refuses what is not
that file."""
import copy
import json

import numpy as np
import pytest

from benchmarks.mwem_regime.run import D_GRID, D_N, N_ALL, N_GRID, SETTINGS, points
from dpbook.comparisons.mwem import MECHANISMS, RESULTS_FILE, regime_errors, same_errors, stored_regime_sweep


def test_the_stored_file_is_the_sweep_of_the_run_script():
    stored = stored_regime_sweep()
    assert stored is stored_regime_sweep(RESULTS_FILE)
    assert (stored["d_grid"], stored["n_grid"], stored["n_all"], stored["d_n"]) == (list(D_GRID), list(N_GRID), N_ALL, D_N)
    assert stored["settings"] == SETTINGS
    assert [(p["d"], p["n"], p["seed"]) for t in ("by_d", "by_n") for p in stored[t]] == \
        [(d, n, seed) for _, d, n, seed in points()]
    for p in stored["by_d"] + stored["by_n"]:
        assert set(p["errors"]) == set(MECHANISMS)
        assert all(len(p["errors"][name]) == SETTINGS["trials"] for name in MECHANISMS if name != "uniform guess")


@pytest.mark.parametrize("table, index", [("by_d", 0), ("by_n", 0), ("by_n", 1)])     # the cheap points (< 0.1 s)
def test_a_point_recomputed_now_agrees_with_the_stored_row(table, index):
    p = stored_regime_sweep()[table][index]
    assert same_errors(regime_errors(p["d"], p["n"], rng=p["seed"], **SETTINGS), p["errors"])


def test_same_errors_sees_a_changed_error_a_missing_series_and_a_changed_count():
    p = stored_regime_sweep()["by_d"][0]
    fresh = {name: np.array(v) for name, v in p["errors"].items()}
    assert same_errors(fresh, p["errors"])
    changed = copy.deepcopy(fresh)
    changed["noisy histogram"][0] *= 1.001
    assert not same_errors(changed, p["errors"])
    assert not same_errors({k: v for k, v in fresh.items() if k != "uniform guess"}, p["errors"])
    assert not same_errors({**fresh, "MWEM practical": fresh["MWEM practical"][:1]}, p["errors"])
    with pytest.raises(TypeError, match="fresh"):
        same_errors([1.0], p["errors"])
    with pytest.raises(ValueError, match="rtol"):
        same_errors(fresh, p["errors"], rtol=-1.0)


def test_stored_regime_sweep_refuses_what_is_not_its_file(tmp_path):
    with pytest.raises(TypeError, match="path"):
        stored_regime_sweep(3)
    with pytest.raises(ValueError, match="path"):
        stored_regime_sweep(tmp_path / "missing.json")
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(ValueError, match="path"):
        stored_regime_sweep(tmp_path / "text.json")
    other = json.loads(RESULTS_FILE.read_text())
    other["by_d"][0]["errors"].pop("uniform guess")
    (tmp_path / "other.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="path"):
        stored_regime_sweep(tmp_path / "other.json")
