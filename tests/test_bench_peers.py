"""benchmarks/peers/results.json (the MWEM peer comparison, chapter 07's Pareto figure): its schema, its internal
consistency (medians and ratios recomputed from the stored repeats), and the small dpbook setting recomputed
here.  The peers themselves (smartnoise-synth) live only in benchmarks/peers/.venv and are never imported."""
import json
import math
import pathlib
import sys

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
            runs = (len(m["seeds"]) if m.get("source") == run.AIM_RESULTS.name    # AIM: its own file's seeds,
                    else RESULT["aim_repeats"] if name == run.AIM else RESULT["repeats"])  # or the first run's one
            for key in ("seconds", "max_error", "mean_error"):
                assert len(m[key]) == runs and all(v >= 0 and math.isfinite(v) for v in m[key])
            assert m["median_seconds"] == pytest.approx(np.median(m["seconds"]), rel=1e-12)
            assert m["median_max_error"] == pytest.approx(np.median(m["max_error"]), rel=1e-12)
            assert m["median_mean_error"] == pytest.approx(np.median(m["mean_error"]), rel=1e-12)
            if m.get("source") != run.AIM_RESULTS.name:      # a file's AIM: its ratios are that file's (tested below)
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


def test_main_runs_end_to_end_without_the_peers(tmp_path, capsys):
    """``make bench-peers``'s own entry point (``main``), dpbook's path, on the smallest stored row with one repeat:
    every dpbook method, the references, the small setting, the file and the printed tables.  A changed signature
    anywhere on that path fails here, not after minutes of the peers."""
    out = tmp_path / "results.json"
    run.main(["--no-peers", "--rows", "0", "--repeats", "1", "--out", str(out)])
    result = json.loads(out.read_text())
    assert [r["name"] for r in result["rows"]] == [run.ROWS[0][0]] and result["seeds"] == [0]
    assert set(result["rows"][0]["methods"]) == set(run.DPBOOK_METHODS)
    assert set(result["small"]["errors"]) == set(run.DPBOOK_METHODS)
    printed = capsys.readouterr().out
    assert run.ROWS[0][1] in printed and "not run" in printed


# --- MWEM+PGM (benchmarks/peers/pgm_worker.py, run in the peers' venv; its numpy-only parts are tested here) ------

from benchmarks.peers import pgm_worker  # noqa: E402  (imports numpy only; mbi/JAX are imported inside the fit)

PGM_FILE = run.PGM_RESULTS


@pytest.mark.parametrize("rho, T, share", [(0.024355970359538362, 10, 0.5), (1.0, 1, 0.9), (3e-4, 48, 0.1)])
def test_pgm_rounds_spend_rho_exactly(rho, T, share):
    eps_select, sigma = pgm_worker.round_budget(rho, T, share)
    assert pgm_worker.spent(eps_select, sigma, T) == pytest.approx(rho, rel=1e-12)
    assert T / (2 * sigma ** 2) == pytest.approx(share * rho, rel=1e-12)       # the measurement's share
    eps_select, b = pgm_worker.round_budget_pure(rho, T, share)              # the same numbers as a pure ε
    assert T * (eps_select + 1 / b) == pytest.approx(rho, rel=1e-12) and T / b == pytest.approx(share * rho)


@pytest.mark.parametrize("rho, T, share", [(0.0, 10, 0.5), (float("inf"), 10, 0.5), (1.0, 0, 0.5), (1.0, 2.5, 0.5),
                                           (1.0, 10, 0.0), (1.0, 10, 1.0)])
def test_pgm_round_budget_refuses_bad_input(rho, T, share):
    with pytest.raises(ValueError, match="rho"):
        pgm_worker.round_budget(rho, T, share)
    with pytest.raises(ValueError, match="epsilon"):
        pgm_worker.round_budget_pure(rho, T, share)


def test_pgm_exponential_mechanism_law():
    """Gumbel-max selection follows exp(ε s / 2Δ) (fixed seed; each frequency within 6 binomial standard
    deviations: false alarm < 1e-8 per index), and a huge ε picks the best score."""
    rng = np.random.default_rng(7)
    eps, delta_s = 1.0, 1.0
    scores = np.array([0.0, 2.0, 4.0])                       # weights e^0, e^1, e^2
    p = np.exp(scores / 2) / np.exp(scores / 2).sum()
    draws = 20_000
    counts = np.bincount([pgm_worker.exponential_mechanism(scores, eps, delta_s, rng) for _ in range(draws)],
                         minlength=3)
    assert np.all(np.abs(counts - draws * p) <= 6 * np.sqrt(draws * p * (1 - p)))
    assert pgm_worker.exponential_mechanism([3.0, 9.0, 1.0], 1e6, 1.0, rng) == 1


class _ExactPgm:
    """A stand-in for ``PgmWorker`` that releases the exact marginals in the worker's output order."""

    def fit(self, rows_path, k, epsilon, T, seed, noise="gaussian"):
        marginals = pgm_worker.marginals_from_rows(np.load(rows_path), k)
        reply = {"seconds": 1.0, "cpu_seconds": 1.0, "noise": noise, "measure_share": 0.5, "eps_select": 1.0,
                 "iters": 1, "max_model_size": 80.0,
                 "rounds": [{"selected": ["c0", "c1"]}] * T}
        return reply, {f"marg{j}": m / m.sum() for j, m in enumerate(marginals)}


def test_pgm_row_reads_the_workers_marginals_in_the_workloads_order(tmp_path):
    """run.py's MWEM+PGM path on a small row: exact marginals in the worker's order give zero error against
    dpbook's workload (a misordered reading would not), and the row has results.json's schema."""
    row = run.pgm_row(("cancer, 2-way, T = 2", "cancer", 2, 1.0, 2), 1, _ExactPgm(), tmp_path)
    pgm = row["methods"][run.PGM]
    assert pgm["max_error"] == [pytest.approx(0.0, abs=1e-12)]
    assert set(row["methods"]) == {run.base_name(), *run.PGM_NOISE} and row["cells"] == math.comb(11, 2) * 4
    assert {m: row["methods"][m]["settings"]["noise"] for m in run.PGM_NOISE} == run.PGM_NOISE
    assert pgm["median_time_ratio_to_practical"] == pytest.approx(1.0 / row["methods"][run.base_name()]["seconds"][0])
    _, npz = _ExactPgm().fit(tmp_path / "cancer.npy", 2, 1.0, 2, 0)       # pgm_row saved the rows there
    answers = np.concatenate([npz[f"marg{j}"] for j in range(len(npz))])
    true = run.k_way_marginals(11, 2).answers(run.load("cancer")[1])
    assert run.errors(np.roll(answers, 1), true)[0] > 0.01                   # one cell out of place is seen


@pytest.mark.skipif(not PGM_FILE.exists(), reason="results_pgm.json not stored")
def test_pgm_results_schema_and_consistency():
    """results_pgm.json: the AIM rows, seeds 0..R-1, medians and within-repeat ratios recomputed, the ρ of AIM's
    run (or the pure ε) spent exactly, and dpbook mwem_practical's stored errors recomputed from its seeds (so the file cannot go
    stale silently)."""
    pgm = json.loads(PGM_FILE.read_text())
    assert pgm["schema"] == 1 and pgm["seeds"] == list(range(pgm["repeats"])) and pgm["repeats"] >= 3
    assert [r["name"] for r in pgm["rows"]] == list(run.PGM_ROWS)
    aim = {r["name"]: r["methods"][run.AIM] for r in RESULT["rows"] if run.AIM in r["methods"]}
    for row in pgm["rows"]:
        assert {"data", "d", "n", "k", "epsilon", "T", "cells", "methods", "references"} <= set(row)
        assert set(row["methods"]) == {run.base_name(), *run.PGM_NOISE}
        base = np.array(row["methods"][run.base_name()]["seconds"])
        base_cpu = np.array(row["methods"][run.base_name()]["cpu_seconds"])
        for m in row["methods"].values():
            for key in ("seconds", "max_error", "mean_error"):
                assert len(m[key]) == pgm["repeats"] and all(v >= 0 and math.isfinite(v) for v in m[key])
            assert m["median_max_error"] == pytest.approx(np.median(m["max_error"]), rel=1e-12)
            assert m["median_mean_error"] == pytest.approx(np.median(m["mean_error"]), rel=1e-12)
            assert m["median_seconds"] == pytest.approx(np.median(m["seconds"]), rel=1e-12)
            assert m["median_time_ratio_to_practical"] == pytest.approx(np.median(np.array(m["seconds"]) / base),
                                                                        rel=1e-12)
            assert m["median_cpu_ratio_to_practical"] == pytest.approx(np.median(np.array(m["cpu_seconds"]) /
                                                                                 base_cpu), rel=1e-12)
            assert m["median_cpu_seconds"] == pytest.approx(np.median(m["cpu_seconds"]), rel=1e-12)
            assert all(mean <= mx for mean, mx in zip(m["mean_error"], m["max_error"]))
        s = row["methods"][run.PGM]["settings"]
        assert s["rho"] == pytest.approx(aim[row["name"]]["settings"]["rho"], rel=1e-9)     # AIM's budget
        assert s["rho_spent"] == pytest.approx(s["rho"], rel=1e-12) and s["delta"] == run.DELTA == pgm["delta"]
        assert (s["eps_select"], s["sigma"]) == pytest.approx(pgm_worker.round_budget(s["rho"], s["T"],
                                                                                      s["measure_share"]))
        s = row["methods"][run.PGM_PURE]["settings"]
        assert s["epsilon_spent"] == pytest.approx(row["epsilon"], rel=1e-12) and "delta" not in s
        assert (s["eps_select"], s["laplace_scale"]) == pytest.approx(
            pgm_worker.round_budget_pure(row["epsilon"], s["T"], s["measure_share"]))
        assert all(len(sel) == row["T"] for m in run.PGM_NOISE for sel in row["methods"][m]["selected"])
    row = pgm["rows"][0]                                       # cancer: ~0.2 s per call
    _, x = run.load(row["data"])
    W = run.k_way_marginals(row["d"], row["k"])
    fresh = run.errors(run.dpbook_run(run.base_name(), x, W, row["epsilon"], row["T"], seed=0)[1], W.answers(x))
    stored = row["methods"][run.base_name()]
    assert fresh == pytest.approx((stored["max_error"][0], stored["mean_error"][0]), rel=1e-6)
    table = run.pgm_table(RESULT, pgm)
    assert all(r["name"] in table for r in pgm["rows"]) and "not run" not in table



# --- AIM (--aim: smartnoise's AIM on its own rows and seeds, into results_aim.json) ----------------------------------
AIM_FILE = pathlib.Path(run.__file__).resolve().parent / "results_aim.json"


class _StandInAim:
    """A stand-in for ``AimWorker``: exact marginals in the worker's output order (``shift`` moves them by that many
    cells), ``None`` (past the time limit) for the seeds of ``late``, a failure for those of ``fail``."""

    def __init__(self, late=(), fail=(), shift=0):
        self.late, self.fail, self.shift, self.fits = set(late), set(fail), shift, []

    def request(self, **request):
        assert request == {"method": "versions"}
        return {"versions": {"stand-in": "0"}}

    def fit(self, rows_path, k, epsilon, seed, limit):
        self.fits.append(seed)
        if seed in self.late:
            return None
        if seed in self.fail:
            raise RuntimeError("AIM failed: stand-in")
        marginals = np.concatenate(pgm_worker.marginals_from_rows(np.load(rows_path), k))
        marginals = np.roll(marginals, self.shift)
        return {"seconds": 2.0, "cpu_seconds": 1.5, "rho": 0.02}, {"marg0": marginals / marginals[:1 << k].sum()}


def test_aim_run_end_to_end_with_a_stand_in_worker(tmp_path):
    """run_aim → results_aim.json → the main table, without the peers' environment: exact marginals give zero AIM
    error (a shifted reading would not), seeds already stored are not fitted again, a fit past the limit is recorded
    as not finished and ends its row, a failed seed is recorded with its message, and the table reads AIM's column
    from the file (replacing results.json's stored AIM entry, recomputing the goals against it)."""
    out = tmp_path / "aim.json"
    first = run.run_aim({"cancer k=2 eps=1 T=10": 2}, out, limit=60, worker=_StandInAim(fail={1}))
    assert [r["seed"] for r in first["rows"][0]["runs"]] == [0, 1]
    stored = json.loads(out.read_text())
    assert stored["rows"][0]["status"] == "failed (seeds [1])" and "stand-in" in stored["rows"][0]["errors"]["1"]
    worker = _StandInAim(late={0})
    result = run.run_aim({"cancer k=2 eps=0.1 T=30": 3, "cancer k=2 eps=1 T=10": 3}, out, limit=60, worker=worker)
    assert worker.fits == [0, 2]                        # ε = 0.1: seed 0 is late; cancer ε = 1: only seed 2 is new
    rows = {r["name"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows == {r["name"]: r for r in result["rows"]} and list(rows) == [  # the table's order
        "cancer k=2 eps=1 T=10", "cancer k=2 eps=0.1 T=30"]
    done, late = rows["cancer k=2 eps=1 T=10"], rows["cancer k=2 eps=0.1 T=30"]
    aim = done["methods"][run.AIM]
    assert aim["seeds"] == [0, 2] and aim["max_error"] == [pytest.approx(0.0, abs=1e-12)] * 2
    base = done["methods"][run.base_name()]
    assert base["seeds"] == [0, 1, 2] and len(base["max_error"]) == 3
    assert aim["median_time_ratio_to_practical"] == pytest.approx(np.median([2.0 / base["seconds"][0],
                                                                             2.0 / base["seconds"][2]]))
    assert late["status"] == "did not finish in 1 min (seeds [0])" and [r["seed"] for r in late["runs"]] == [0]
    assert late["methods"][run.AIM]["seeds"] == [] and late["methods"][run.base_name()]["seeds"] == [0]
    assert "did not finish in 1 min" in run.aim_table(result)
    merged = run.with_aim(RESULT, result)
    by_name = {r["name"]: r for r in merged["rows"]}
    assert by_name["cancer k=2 eps=1 T=10"]["methods"][run.AIM]["source"] == AIM_FILE.name
    assert run.AIM not in by_name["cancer k=2 eps=0.1 T=30"]["methods"]
    assert by_name["cancer k=2 eps=1 T=10"]["successor_goal"]["eps_delta_max_within_1.1x_aim"] is False    # AIM exact here
    table = run.table(RESULT, result)
    assert "did not finish in 1 min" in table and "0.000 / 0.0000 (2 seeds); failed (seeds [1])" in table
    shifted = run.run_aim({"cancer k=2 eps=1 T=10": 1}, tmp_path / "shifted.json", worker=_StandInAim(shift=1))
    assert shifted["rows"][0]["methods"][run.AIM]["median_max_error"] > 0.01     # one cell out of place is seen


def test_aim_worker_stops_a_fit_past_its_limit(tmp_path):
    """AimWorker on a stand-in script (plain Python, no peers' environment): a fit that does not reply within the
    limit returns None and the worker is replaced by a fresh process, which then serves the next fit."""
    script = tmp_path / "worker.py"
    script.write_text(
        "import json, sys, time\nimport numpy as np\n"
        "for line in sys.stdin:\n"
        "    r = json.loads(line)\n"
        "    if r.get('method') == 'versions':\n"
        "        print(json.dumps({'versions': {}}), flush=True); continue\n"
        "    if r['seed'] == 0:\n"
        "        time.sleep(60)\n"
        "    np.savez(r['out'], marg0=np.ones(4) / 4)\n"
        "    print(json.dumps({'seconds': 0.0, 'cpu_seconds': 0.0, 'rho': 0.0}), flush=True)\n")
    worker = run.AimWorker(python=sys.executable, script=str(script))
    try:
        first = worker.proc.pid
        assert worker.fit(tmp_path / "rows.npy", 2, 1.0, seed=0, limit=1.0) is None
        assert worker.proc.pid != first and 0 <= worker.cpu_at_stop < 1.0        # it slept: next to no CPU
        reply, arrays = worker.fit(tmp_path / "rows.npy", 2, 1.0, seed=1, limit=30.0)
        assert reply["rho"] == 0.0 and arrays["marg0"].tolist() == [0.25] * 4
    finally:
        worker.close()


@pytest.mark.skipif(not AIM_FILE.exists(), reason="results_aim.json not stored")
def test_aim_results_schema_and_consistency():
    """results_aim.json: rows in the table's order, seeds 0..s-1 interleaved with the dpbook methods,
    medians and within-repeat ratios recomputed from the runs, AIM's ρ the converter's for (ε, δ), the status
    consistent with the runs, and dpbook mwem_practical's stored errors recomputed from seed 0."""
    aim = json.loads(AIM_FILE.read_text())
    assert aim["schema"] == 1 and aim["delta"] == run.DELTA and aim["peer_versions"]["smartnoise-synth"] == "1.0.8"
    names = [r["name"] for r in aim["rows"]]
    assert names == [spec[0] for spec in run.ROWS if spec[0] in names]
    for row in aim["rows"]:
        seeds = [r["seed"] for r in row["runs"]]
        assert seeds == list(range(len(seeds))) and seeds
        assert run.aim_summary(row) == row                          # medians, ratios, status: from the runs
        fitted = [r for r in row["runs"] if "max_error" in r[run.AIM]]
        for r in fitted:
            assert r[run.AIM]["mean_error"] <= r[run.AIM]["max_error"] and r[run.AIM]["seconds"] > 0
            # the converter's ρ: at least the one of ρ + 2 sqrt(ρ log(1/δ)) = ε (zCDP → (ε, δ)-DP), and at ε = 1
            # the one of results.json's stored AIM run
            eps, log_inv = row["epsilon"], math.log(1 / run.DELTA)
            simple = (math.sqrt(log_inv + eps) - math.sqrt(log_inv)) ** 2
            assert simple <= r[run.AIM]["rho"] <= 2 * simple
            if eps == 1:
                assert r[run.AIM]["rho"] == pytest.approx(RESULT["rows"][0]["methods"][run.AIM]["settings"]["rho"])
        for r in row["runs"]:
            if "did_not_finish" in r[run.AIM]:
                assert r[run.AIM]["did_not_finish"] == f"did not finish in {row['time_limit_seconds'] / 60:g} min"
        assert (row["status"] == "ok") == (len(fitted) == len(row["runs"]))
    row = aim["rows"][0]                                             # cancer: ~0.5 s per call
    _, x = run.load(row["data"])
    W = run.k_way_marginals(row["d"], row["k"])
    fresh = run.errors(run.dpbook_run(run.base_name(), x, W, row["epsilon"], row["T"], seed=0)[1], W.answers(x))
    stored = row["runs"][0][run.base_name()]
    assert fresh == pytest.approx((stored["max_error"], stored["mean_error"]), rel=1e-6)
    table = run.table(RESULT, aim)
    for row in aim["rows"]:
        assert (f"({len(row['methods'][run.AIM]['seeds'])} seed" in table if row["methods"][run.AIM]["seeds"]
                else row["status"] in table)


# --- speed (--speed: adaptive_marginals and smartnoise's MWEM in the same repeats, into results_speed.json) ---------
SPEED_FILE = run.SPEED_RESULTS
STAND_IN_SMARTNOISE = """\
import json, sys, time
import numpy as np
for line in sys.stdin:
    r = json.loads(line)
    if r.get('method') == 'versions':
        print(json.dumps({'versions': {'stand-in': '0'}}), flush=True); continue
    start, cpu = time.perf_counter(), time.process_time()
    rows = np.load(r['rows'])
    d = rows.shape[1]
    hist = np.bincount(rows @ (1 << np.arange(d - 1, -1, -1)), minlength=1 << d).reshape((2,) * d)
    np.savez(r['out'], hist0=hist / hist.sum(), cols0=np.arange(d), mins0=np.zeros(d, dtype=np.int64))
    print(json.dumps({'seconds': time.perf_counter() - start, 'cpu_seconds': time.process_time() - cpu,
                      'groups': 1, 'spent': r['epsilon'], 'q_count': 1}), flush=True)
"""


def _check_speed(speed, names):
    """results_speed.json's schema: the methods, seeds 0..R-1, per-repeat lists, medians and within-repeat ratios
    recomputed from them."""
    assert speed["schema"] == 1 and speed["ratio"] == run.SPEED_RATIO == "cpu" and speed["delta"] == run.DELTA
    assert speed["methods"] == [*run.SPEED_METHODS, run.PEER] and speed["peer"] == run.PEER
    assert speed["seeds"] == list(range(speed["repeats"])) and speed["repeats"] >= 1
    assert {"what", "time", "error", "machine", "nice", "python", "numpy", "peer_versions", "date", "code_version",
            "load", "load_at_start", "total_seconds"} <= set(speed)
    assert [row["name"] for row in speed["rows"]] == names
    for row in speed["rows"]:
        assert {"data", "d", "n", "k", "epsilon", "T", "cells", "methods", "peer_over"} <= set(row)
        assert row["cells"] == math.comb(row["d"], row["k"]) * 2 ** row["k"]
        assert set(row["methods"]) == set(speed["methods"])
        for m in row["methods"].values():
            for key in ("seconds", "cpu_seconds", "max_error", "mean_error"):
                assert len(m[key]) == speed["repeats"] and all(v >= 0 and math.isfinite(v) for v in m[key])
                assert m[f"median_{key}"] == pytest.approx(np.median(m[key]), rel=1e-12)
            assert all(mean <= mx for mean, mx in zip(m["mean_error"], m["max_error"]))
            assert m["settings"]["epsilon"] == row["epsilon"]
        peer = row["methods"][run.PEER]
        assert set(row["peer_over"]) == set(run.SPEED_METHODS)
        for name, ratio in row["peer_over"].items():                  # smartnoise ÷ method within each repeat
            ours = row["methods"][name]
            for key, seconds in (("cpu", "cpu_seconds"), ("wall", "seconds")):
                np.testing.assert_allclose(ratio[key], np.array(peer[seconds]) / np.array(ours[seconds]), rtol=1e-12)
                assert ratio[f"median_{key}"] == pytest.approx(np.median(ratio[key]), rel=1e-12)
    assert run.speed_table(speed).count("\n") == len(speed["rows"]) + 2


def test_speed_mode_end_to_end_with_a_stand_in_smartnoise(tmp_path, monkeypatch, capsys):
    """``--speed`` through ``main`` on the smallest row, without the peers' environment: a stand-in worker (plain
    Python) speaks smartnoise_worker.py's protocol and releases the exact histogram, so its errors are zero (a
    misread output would not be); the stored file has its schema, the dpbook errors are those of a fresh call with
    the same seed, and the goals printed for results.json read this file's ratio."""
    script = tmp_path / "worker.py"
    script.write_text(STAND_IN_SMARTNOISE)
    original = run.Smartnoise
    monkeypatch.setattr(run, "Smartnoise", lambda: original(python=sys.executable, script=str(script)))
    out = tmp_path / "speed.json"
    run.main(["--speed", "--rows", "0", "--repeats", "2", "--out", str(out)])
    speed = json.loads(out.read_text())
    _check_speed(speed, [run.ROWS[0][0]])
    row = speed["rows"][0]
    assert row["methods"][run.PEER]["max_error"] == [pytest.approx(0.0, abs=1e-12)] * 2
    assert speed["peer_versions"] == {"stand-in": "0"}
    _, x = run.load(row["data"])
    W = run.k_way_marginals(row["d"], row["k"])
    for m in run.SPEED_METHODS:
        fresh = run.errors(run.dpbook_run(m, x, W, row["epsilon"], row["T"], seed=1)[1], W.answers(x))
        assert fresh == pytest.approx((row["methods"][m]["max_error"][1], row["methods"][m]["mean_error"][1]))
    printed = capsys.readouterr().out
    assert row["name"] in printed and "not measured" in printed      # the other rows: no side-by-side timing


def _speed_file(ratio, aim_cpu_ratio=None):
    """A results_speed.json holding results.json's first row, smartnoise ÷ adaptive_marginals = ``ratio``."""
    row = RESULT["rows"][0]
    methods = {m: {"median_seconds": 0.01, "median_cpu_seconds": 0.01} for m in run.SPEED_METHODS}
    methods[run.PEER] = {"median_seconds": 0.01 * ratio, "median_cpu_seconds": 0.01 * ratio}
    if aim_cpu_ratio is not None:
        aim = row["methods"][run.AIM]["median_cpu_seconds"]
        methods[run.SUCCESSOR_DELTA]["median_cpu_seconds"] = aim / aim_cpu_ratio
    over = {m: {"median_cpu": ratio, "median_wall": 100.0} for m in run.SPEED_METHODS}   # wall: not the goal's
    return {"date": "now", "code_version": "x", "repeats": 5, "seeds": list(range(5)), "load": None, "ratio": "cpu",
            "rows": [{"name": row["name"], "methods": methods, "peer_over": over}]}


@pytest.mark.parametrize("ratio, met", [(9.99, False), (10.01, True)])
def test_successor_goal_reads_the_within_run_ratio(ratio, met):
    """The pure variant's speed goal is the within-run CPU ratio of results_speed.json (>= 10), whatever
    mwem_practical's times are; a row the file does not hold has no speed goal against smartnoise."""
    merged = run.with_speed(RESULT, _speed_file(ratio))
    first, rest = merged["rows"][0], merged["rows"][1:]
    assert first["successor_goal"]["pure_ten_times_faster_than_smartnoise"] is met
    assert first["successor_speed"]["smartnoise_over_adaptive"] == ratio
    assert all("pure_ten_times_faster_than_smartnoise" not in row["successor_goal"] for row in rest)
    assert merged["speed"]["source"] == run.SPEED_RESULTS.name
    row = {**first, "methods": {m: {**r, "median_time_ratio_to_practical": 1e-3}          # practical's time moved
                                for m, r in first["methods"].items()}}
    assert run.successor_goal(row) == first["successor_goal"]
    assert "speed" not in run.with_speed(merged, {"rows": []}) and "speed" not in run.with_speed(merged, {
        "rows": []})["rows"][0]


def test_stored_goals_are_the_goals_recomputed():
    """Every stored row's ``successor_goal`` is what :func:`run.successor_goal` computes from the row now (a goal
    whose definition changed cannot stay stale in the file the README and chapter 18 read)."""
    for row in RESULT["rows"]:
        if "successor_goal" in row and run.SUCCESSOR in row["methods"]:
            assert row["successor_goal"] == run.successor_goal(row), row["name"]


@pytest.mark.parametrize("aim_ratio, met", [(99.0, False), (101.0, True)])
def test_aim_speed_goal_divides_cpu_seconds_directly(aim_ratio, met):
    """The (ε, δ) variant's speed goal against AIM: AIM's median CPU seconds ÷ the variant's in results_speed.json."""
    row = run.with_speed(RESULT, _speed_file(50.0, aim_cpu_ratio=aim_ratio))["rows"][0]
    assert row["successor_speed"]["aim_over_adaptive_eps_delta"] == pytest.approx(aim_ratio, rel=1e-12)
    assert row["successor_goal"]["eps_delta_hundred_times_faster_than_aim"] is met


@pytest.mark.skipif(not SPEED_FILE.exists(), reason="results_speed.json not stored")
def test_speed_results_schema_and_consistency():
    """results_speed.json: its schema and ratios (as above), every row of the table, and adaptive_marginals' errors at
    seed 0 on its first row recomputed (so the file cannot go stale silently)."""
    speed = json.loads(SPEED_FILE.read_text())
    _check_speed(speed, [spec[0] for spec in run.ROWS])
    assert speed["peer_versions"]["smartnoise-synth"] == "1.0.8"
    row = speed["rows"][0]
    _, x = run.load(row["data"])
    W = run.k_way_marginals(row["d"], row["k"])
    for m in run.SPEED_METHODS:
        fresh = run.errors(run.dpbook_run(m, x, W, row["epsilon"], row["T"], seed=0)[1], W.answers(x))
        assert fresh == pytest.approx((row["methods"][m]["max_error"][0], row["methods"][m]["mean_error"][0]),
                                      rel=1e-6)


def _uniform_goal(row, per_seed):
    """successor_goal of ``row`` with both adaptive variants given these per-seed max errors."""
    methods = {m: {**r} for m, r in row["methods"].items()}
    for m in (run.SUCCESSOR, run.SUCCESSOR_DELTA):
        methods[m]["max_error"] = list(per_seed)
        methods[m]["median_max_error"] = float(np.median(per_seed))
    return run.successor_goal({**row, "methods": methods})


@pytest.mark.parametrize("excess, met", [(0.0, True), (3e-16, True), (1e-9, False), (5e-4, False)])
def test_uniform_goal_ties_only_up_to_rounding(excess, met):
    """At ε < 1 "no worse than the uniform guess": with no seed-to-seed noise (every seed at the same error), a
    release that is the uniform table (its error equal up to a unit in the last place) ties; anything measurably
    above it misses."""
    row = next(r for r in RESULT["rows"] if r["epsilon"] < 1)
    level = row["references"]["uniform"]["max_error"]
    goal = _uniform_goal(row, [level * (1.0 + excess)] * 5)
    assert goal["pure_max_no_worse_than_uniform"] is met and goal["eps_delta_max_no_worse_than_uniform"] is met


@pytest.mark.parametrize("above, met", [(0.9, True), (1.1, False)])
def test_uniform_goal_allows_the_variants_own_noise(above, met):
    """The issue's goal is "never worse than the uniform guess by more than its own noise": a median above the
    uniform guess by 0.9 of the seeds' standard deviation is met, by 1.1 of it missed."""
    row = next(r for r in RESULT["rows"] if r["epsilon"] < 1)
    level = row["references"]["uniform"]["max_error"]
    spread = np.array([-2.0, -1.0, 0.0, 1.0, 2.0]) * 1e-3          # sample standard deviation 1.58e-3
    per_seed = level + above * np.std(spread, ddof=1) + spread
    assert run.own_noise({"max_error": list(per_seed)}) == pytest.approx(np.std(spread, ddof=1), rel=1e-9)
    goal = _uniform_goal(row, per_seed)
    assert goal["pure_max_no_worse_than_uniform"] is met and goal["eps_delta_max_no_worse_than_uniform"] is met
