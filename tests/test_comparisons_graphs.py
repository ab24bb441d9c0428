"""Chapter 14's stored sweeps (dpbook.comparisons.graphs, written by ``python -m benchmarks.graphs.run``): a cheap
setting of each, recomputed now, agrees with the stored file, so the file cannot go stale silently."""
import copy
import json

import numpy as np
import pytest

from benchmarks.graphs.run import DENSITIES, EPSILONS, IC, ONLINE, SEED
from dpbook.comparisons.graphs import (ic_cut_comparison, online_cut_comparison, same_results, stored_graph_sweeps)


def test_the_stored_file_is_the_sweep_of_the_run_script():
    stored = stored_graph_sweeps()
    assert stored["seed"] == SEED and stored["online_settings"] == ONLINE and stored["ic_settings"] == IC
    assert [r["p"] for r in stored["online"]] == list(DENSITIES)
    assert [r["epsilon"] for r in stored["ic"]] == list(EPSILONS)


@pytest.mark.parametrize("density", [0.9])
def test_an_online_setting_recomputed_now_agrees_with_the_stored_row(density):
    stored = stored_graph_sweeps()
    row = stored["online"][list(DENSITIES).index(density)]
    assert same_results(online_cut_comparison(density, seed=SEED, **ONLINE), row)


@pytest.mark.parametrize("epsilon", [0.5, 32.0])
def test_an_ic_setting_recomputed_now_agrees_with_the_stored_row(epsilon):
    stored = stored_graph_sweeps()
    row = stored["ic"][list(EPSILONS).index(epsilon)]
    assert same_results(ic_cut_comparison(epsilon, seed=SEED, **IC), row)


def test_same_results_sees_a_changed_number_a_missing_key_and_a_changed_count():
    row = copy.deepcopy(stored_graph_sweeps()["online"][0])
    assert same_results(row, copy.deepcopy(row))
    changed = copy.deepcopy(row)
    changed["priv"]["MW"][0][0] *= 1 + 1e-6
    assert not same_results(changed, row)
    missing = copy.deepcopy(row)
    del missing["half"]
    assert not same_results(missing, row)
    fewer = copy.deepcopy(row)
    fewer["priv"]["FK"][0].pop()
    assert not same_results(fewer, row)
    assert same_results({"rr": {16.0: 1.0}}, {"rr": {"16.0": 1.0}})       # a float key and its JSON string agree


def test_each_setting_is_its_own_seed():
    """One density run alone equals the same density inside the sweep (no shared stream between settings)."""
    a = online_cut_comparison(0.5, num_vertices=8, m=20, alpha=0.2, c=2, trials=2, seed=3)
    online_cut_comparison(0.7, num_vertices=8, m=20, alpha=0.2, c=2, trials=2, seed=3)
    b = online_cut_comparison(0.5, num_vertices=8, m=20, alpha=0.2, c=2, trials=2, seed=3)
    assert same_results(a, b)
    c = online_cut_comparison(0.5, num_vertices=8, m=20, alpha=0.2, c=2, trials=2, seed=4)
    assert not same_results(a, c)


def test_bad_input_is_refused_by_name(tmp_path):
    for kw, name in [(dict(density=0.0), "density"), (dict(density=0.5, num_vertices=200), "num_vertices"),
                     (dict(density=0.5, m=10 ** 6), "m"), (dict(density=0.5, epsilon=-1.0), "epsilon"),
                     (dict(density=0.5, seed=-1), "seed")]:
        with pytest.raises(ValueError, match=name):
            online_cut_comparison(**kw)
    for kw, name in [(dict(epsilon=0.0), "epsilon"), (dict(epsilon=1.0, num_vertices=12), "num_vertices"),
                     (dict(epsilon=1.0, runs=0), "runs"), (dict(epsilon=1.0, p_in=1.5), "p_in")]:
        with pytest.raises(ValueError, match=name):
            ic_cut_comparison(**kw)
    with pytest.raises(ValueError, match="rtol"):
        same_results({}, {}, rtol=-1.0)
    with pytest.raises(ValueError, match="path"):
        stored_graph_sweeps(tmp_path / "missing.json")
    (tmp_path / "other.json").write_text(json.dumps({"schema": 2}))
    with pytest.raises(ValueError, match="path"):
        stored_graph_sweeps(tmp_path / "other.json")
    with pytest.raises(TypeError, match="path"):
        stored_graph_sweeps(3)
