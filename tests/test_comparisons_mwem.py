"""Chapter 09's stored sweeps (dpbook.comparisons.mwem, written by ``python -m benchmarks.mwem_sweeps.run``): cheap
parts, recomputed now, agree with the stored file, so the file cannot go stale silently; the loader and the
comparison refuse what they cannot read; the experiments validate their input."""
import copy
import json

import numpy as np
import pytest

from benchmarks.mwem_sweeps.run import (ABLATION, D_GRID, D_N, GROWTH, GROWTH_N, N_ALL, N_GRID, ROUNDS, ROUNDS_N,
                                        SEED, SETTINGS, VARIANTS, points)
from dpbook.comparisons.mwem import (GROWTH as SERIES, MECHANISMS, RESULTS_FILE, practical_ablation, regime_errors,
                                     rounds_sweep, same_errors, stored_mwem_sweeps, workload_growth)


def test_the_stored_file_is_the_sweeps_of_the_run_script():
    stored = stored_mwem_sweeps()
    assert stored is stored_mwem_sweeps(RESULTS_FILE)
    regime = stored["regime"]
    assert (regime["d_grid"], regime["n_grid"], regime["n_all"], regime["d_n"]) == (list(D_GRID), list(N_GRID), N_ALL, D_N)
    assert regime["settings"] == SETTINGS
    assert [(p["d"], p["n"], p["seed"]) for t in ("by_d", "by_n") for p in regime[t]] == \
        [(d, n, seed) for _, d, n, seed in points()]
    for p in regime["by_d"] + regime["by_n"]:
        assert set(p["errors"]) == set(MECHANISMS)
        assert all(len(p["errors"][name]) == SETTINGS["trials"] for name in MECHANISMS if name != "uniform guess")
    assert (stored["rounds"]["n"], stored["rounds"]["seed"], stored["rounds"]["settings"]) == (ROUNDS_N, SEED + ROUNDS_N, ROUNDS)
    assert [len(v) for v in stored["rounds"]["result"]["average"]] == [ROUNDS["trials"]] * len(ROUNDS["T_grid"])
    assert (stored["growth"]["n"], stored["growth"]["seed"], stored["growth"]["settings"]) == (GROWTH_N, SEED + 5, GROWTH)
    assert tuple(stored["growth"]["result"]["errors"]) == SERIES and stored["growth"]["result"]["m"] == [22, 220, 1320, 5280]
    assert (stored["ablation"]["seed"], stored["ablation"]["settings"], stored["ablation"]["variants"]) == \
        (SEED + 9, ABLATION, VARIANTS)
    assert list(stored["ablation"]["result"]) == list(VARIANTS) + ["noisy histogram", "uniform guess"]


@pytest.mark.parametrize("table, index", [("by_d", 0), ("by_n", 0), ("by_n", 1)])     # the cheap points (< 0.1 s)
def test_a_regime_point_recomputed_now_agrees_with_the_stored_row(table, index):
    p = stored_mwem_sweeps()["regime"][table][index]
    assert same_errors(regime_errors(p["d"], p["n"], rng=p["seed"], **SETTINGS), p["errors"])


def test_the_first_parts_of_the_other_sweeps_recomputed_now_agree_with_the_file():
    stored = stored_mwem_sweeps()
    rounds = rounds_sweep(ROUNDS_N, ROUNDS["T_grid"][:1], rng=SEED + ROUNDS_N,
                          **{k: v for k, v in ROUNDS.items() if k != "T_grid"})
    assert same_errors({k: rounds[k] for k in ("average", "last")},
                       {k: stored["rounds"]["result"][k][:1] for k in ("average", "last")})
    growth = workload_growth(GROWTH_N, [1], rng=SEED + 5, **{k: v for k, v in GROWTH.items() if k != "ks"})
    assert same_errors(growth["errors"], {k: v[:1] for k, v in stored["growth"]["result"]["errors"].items()})
    first = next(iter(VARIANTS))
    ablation = practical_ablation({first: VARIANTS[first]}, rng=SEED + 9, **ABLATION)
    assert same_errors(ablation, {k: stored["ablation"]["result"][k] for k in ablation})


def test_same_errors_sees_a_changed_error_a_missing_series_and_a_changed_count():
    p = stored_mwem_sweeps()["regime"]["by_d"][0]
    fresh = {name: np.array(v) for name, v in p["errors"].items()}
    assert same_errors(fresh, p["errors"])
    changed = copy.deepcopy(fresh)
    changed["noisy histogram"][0] *= 1.001
    assert not same_errors(changed, p["errors"])
    assert not same_errors({k: v for k, v in fresh.items() if k != "uniform guess"}, p["errors"])
    assert not same_errors({**fresh, "MWEM practical": fresh["MWEM practical"][:1]}, p["errors"])
    with pytest.raises(TypeError, match="fresh"):
        same_errors([1.0], p["errors"])
    with pytest.raises(TypeError, match="fresh"):
        same_errors({"a": "text"}, p["errors"])
    with pytest.raises(ValueError, match="rtol"):
        same_errors(fresh, p["errors"], rtol=-1.0)


def test_stored_mwem_sweeps_refuses_what_is_not_its_file(tmp_path):
    with pytest.raises(TypeError, match="path"):
        stored_mwem_sweeps(3)
    with pytest.raises(ValueError, match="path"):
        stored_mwem_sweeps(tmp_path / "missing.json")
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(ValueError, match="path"):
        stored_mwem_sweeps(tmp_path / "text.json")
    other = json.loads(RESULTS_FILE.read_text())
    other["regime"]["by_d"][0]["errors"].pop("uniform guess")
    (tmp_path / "other.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="path"):
        stored_mwem_sweeps(tmp_path / "other.json")
    del other["ablation"]
    (tmp_path / "partial.json").write_text(json.dumps(other))
    with pytest.raises(ValueError, match="path"):
        stored_mwem_sweeps(tmp_path / "partial.json")


@pytest.mark.parametrize("fn, kw, exc, name", [
    (rounds_sweep, dict(n=600, T_grid=[]), ValueError, "T_grid"), (rounds_sweep, dict(n=600, T_grid=[0]), ValueError, "T_grid"),
    (rounds_sweep, dict(n=600, T_grid=["a"]), TypeError, "T_grid"), (rounds_sweep, dict(n=0, T_grid=[2]), ValueError, "n"),
    (workload_growth, dict(n=600, ks=[12]), ValueError, "ks"), (workload_growth, dict(n=600, ks=[1], trials=0), ValueError, "trials"),
    (practical_ablation, dict(variants={}), TypeError, "variants"),
    (practical_ablation, dict(variants={"uniform guess": {}}, rng=0), ValueError, "variants"),
    (practical_ablation, dict(variants={"a": {}}, rng="0"), TypeError, "rng"),
    (practical_ablation, dict(variants={"a": {}}, rng=-1), ValueError, "rng")])
def test_the_sweeps_refuse_bad_input(fn, kw, exc, name):
    with pytest.raises(exc, match=name):
        fn(**kw)
