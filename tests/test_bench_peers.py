"""benchmarks/peers/results.json (the MWEM peer comparison, chapter 07's Pareto figure): its schema, its internal
consistency (medians and ratios recomputed from the stored repeats), and the small dpbook setting recomputed
here.  The peers themselves (smartnoise-synth) live only in benchmarks/peers/.venv and are never imported."""
import json
import math
import pathlib

import numpy as np
import pytest

from benchmarks.peers import run

RESULTS = pathlib.Path(run.__file__).resolve().parent / "results.json"
RESULT = json.loads(RESULTS.read_text())
PEER = "smartnoise-synth 1.0.8 MWEM"


def test_schema():
    assert RESULT["schema"] == 1 and RESULT["repeats"] >= 1
    assert {"error", "time", "machine", "rows", "small", "total_seconds"} <= set(RESULT)
    assert [r["name"] for r in RESULT["rows"]] == [spec[0] for spec in run.ROWS]
    for row in RESULT["rows"]:
        assert {"data", "d", "n", "k", "epsilon", "T", "cells", "methods", "references", "goal"} <= set(row)
        assert set(row["methods"]) - {run.AIM} == set(run.DPBOOK_METHODS) | {PEER}   # AIM: on AIM_ROWS only
        assert row["cells"] == math.comb(row["d"], row["k"]) * 2 ** row["k"]
        for name, m in row["methods"].items():
            runs = RESULT["aim_repeats"] if name == run.AIM else RESULT["repeats"]     # AIM: minutes per fit
            for key in ("seconds", "max_error", "mean_error"):
                assert len(m[key]) == runs and all(v >= 0 and math.isfinite(v) for v in m[key])
            assert m["median_seconds"] == pytest.approx(np.median(m["seconds"]), rel=1e-12)
            assert m["median_max_error"] == pytest.approx(np.median(m["max_error"]), rel=1e-12)
            assert m["median_mean_error"] == pytest.approx(np.median(m["mean_error"]), rel=1e-12)
            practical = np.array(row["methods"]["dpbook mwem_practical"]["seconds"])[:runs]   # within each repeat
            ratio = np.median(np.array(m["seconds"]) / practical)
            assert m["median_time_ratio_to_practical"] == pytest.approx(ratio, rel=1e-12)
            assert all(mean <= mx for mean, mx in zip(m["mean_error"], m["max_error"]))
            assert m["settings"]["epsilon"] == row["epsilon"]
        p, s = row["methods"]["dpbook mwem_practical"], row["methods"][PEER]
        assert row["goal"] == {"max_error_no_worse": p["median_max_error"] <= s["median_max_error"],
                               "mean_error_no_worse": p["median_mean_error"] <= s["median_mean_error"],
                               "ten_times_faster": s["median_time_ratio_to_practical"] >= 10.0}


def test_uniform_reference_is_recomputed():
    from dpbook.queries import k_way_marginals
    row = RESULT["rows"][0]
    _, x = run.load(row["data"])
    W = k_way_marginals(row["d"], row["k"])
    u = run.errors(W.counts(np.full(x.size, 1.0 / x.size)), W.answers(x))
    assert u == pytest.approx((row["references"]["uniform"]["max_error"], row["references"]["uniform"]["mean_error"]),
                              rel=1e-9)


def test_small_setting_is_reproducible():
    """dpbook's errors at the small setting, recomputed from the seeds, match the stored ones."""
    stored = RESULT["small"]
    fresh = run.small_setting()
    assert {k: v for k, v in fresh.items() if k != "errors"} == {k: v for k, v in stored.items() if k != "errors"}
    for method, errs in stored["errors"].items():
        np.testing.assert_allclose(fresh["errors"][method]["max_error"], errs["max_error"], rtol=1e-6)
        np.testing.assert_allclose(fresh["errors"][method]["mean_error"], errs["mean_error"], rtol=1e-6)


def test_smartnoise_answers_from_independent_groups():
    """The product-of-groups reading of smartnoise's output, on a hand-made two-group model."""
    from dpbook.queries import k_way_marginals
    W = k_way_marginals(3, 2)
    h0 = np.array([[0.1, 0.2], [0.3, 0.4]])              # columns 0, 1
    h1 = np.array([0.25, 0.75])                            # column 2
    npz = run._Npz({"hist0": h0, "cols0": np.array([0, 1]), "mins0": np.array([0, 0]),
                    "hist1": h1, "cols1": np.array([2]), "mins1": np.array([0])})
    answers = run.smartnoise_answers(W, npz)
    joint = h0[:, :, None] * h1[None, None, :]
    for j, (S, v) in enumerate(W.cells):
        index = tuple(v[S.index(a)] if a in S else slice(None) for a in range(3))
        assert answers[j] == pytest.approx(joint[index].sum(), rel=1e-12)


def test_a_row_runs_end_to_end_without_the_peer(tmp_path):
    """The harness itself runs (every dpbook method and both references) on the smallest row, without the peer's
    environment: a call the privacy contract refuses (e.g. the noisy histogram without its public n) fails here,
    not after a minute of `make bench-peers`."""
    spec = ("cancer, 2-way, T = 2", "cancer", 2, 1.0, 2)
    row = run.run_row(spec, 1, None, tmp_path)
    assert PEER not in row["methods"] and set(row["methods"]) == set(run.DPBOOK_METHODS)
    hist = row["references"]["noisy histogram"]["median_max_error"]
    assert 0 < hist < row["references"]["uniform"]["max_error"]
