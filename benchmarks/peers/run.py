"""MWEM against the implementations people use: dpbook vs smartnoise-synth 1.0.8 (``make bench-peers``).

Same binary data, same ε, same rounds T, the same workload (every cell of every k-way marginal), the error
computed the same way from each method's output (the released distribution — dpbook's hypothesis, smartnoise's
fitted histograms — over every cell, normalised by n), medians of interleaved repeats (repeat r runs every
method once with seed r before repeat r+1 starts), time ratios taken within each repeat.

smartnoise runs in its own environment (benchmarks/peers/.venv, built by setup.sh) through
``smartnoise_worker.py``; dpbook never imports it.  AIM (McKenna et al. 2022) is the one smartnoise-synth 1.0.8
packages in ``snsynth/aim`` on ``mbi==1.1.0`` (JAX), run in the same environment; the full run fits it on the rows
of ``AIM_ROWS`` with ``AIM_REPEATS`` runs (one fit takes minutes on this machine), and ``--aim`` runs it on its own
rows and seeds (``AIM_PLAN``, at most ``AIM_TIME_LIMIT`` seconds per fit, interleaved with ``mwem_practical`` and
``adaptive_marginals``) into ``results_aim.json``, from which the table reads AIM's column where it holds the row.  MWEM+PGM is not packaged in ``mbi`` (it is a
script in the private-pgm repository); ``pgm_worker.py`` writes it from the papers on ``mbi``'s public API, and
``--pgm`` runs it on ``PGM_ROWS`` (``PGM_REPEATS`` seeds, both accountings) into ``results_pgm.json``, whose column
is printed beside AIM's when that file exists.

Matched guarantees: AIM runs at (ε, δ = ``DELTA``) converted to zCDP (its own ``cdp_rho``), a weaker guarantee than
the pure ε of every MWEM here and of the noisy histogram; the fair pure-vs-(ε, δ) counterpart is the per-query
Gaussian on every cell at the same (ε, δ) (analytic calibration, exact L2 sensitivity), a column of the table.

Fairness notes (printed with the table):
* smartnoise cannot hold one histogram at d >= 16 (one fit at d = 16 took 42 s on this machine); at d >= 16 it
  runs with ``split_factor=8``: independent groups of 8 columns, each with its own share of ε, so the marginals
  across groups are never measured (a modelling loss it accepts for speed) and each group's histogram is 2^8.
* smartnoise's default ``q_count = 2T`` draws a random subset of the marginals as candidates; here
  ``q_count`` = every 1..k-way marginal of a group, so it can select any marginal, like dpbook.
* smartnoise's time is ``fit`` alone (no sampling); dpbook's is the whole ``mwem`` / ``mwem_practical`` call.
* Timings are wall-clock on a shared, loaded 2-core machine; ratios within a repeat cancel part of the load.

Usage: ``python -m benchmarks.peers.run [--repeats R] [--rows a,b,...] [--out PATH] [--no-peers | --merge | --pgm |
--aim | --speed]``;
``--merge`` re-runs only the dpbook methods (and the references) and merges them into the stored file, keeping the
peers' numbers (AIM and smartnoise take minutes); the file's ``merged`` entry says when and how.  The small dpbook
setting stored in the file is what tests/test_bench_peers.py recomputes.

``dpbook adaptive_marginals`` (the book's take on AIM at pure ε) and ``dpbook adaptive_marginals (eps, delta)`` (the
same at (ε, δ = ``DELTA``) through zCDP, AIM's guarantee and accounting) choose their own number of rounds: the row's
T applies to the MWEMs only.  Their goals (``successor_goal`` per row) compare each with the references of its own
guarantee: the (ε, δ) variant with AIM and the per-query Gaussian, the pure one with the noisy histogram and
smartnoise's (pure) MWEM; both with the uniform guess.  Their speed is measured directly, never chained through
``mwem_practical`` (whose own time changes with the code between runs): ``--speed`` runs both variants and
smartnoise's MWEM interleaved in the same repeats (CPU and wall seconds of the process doing each fit, ratios taken
within each repeat) into ``results_speed.json``, from which the goals read smartnoise ÷ adaptive_marginals (the
median CPU ratio); AIM ÷ the (ε, δ) variant divides AIM's stored seconds by the variant's, across runs.
"""
from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchmarks._stored import git_hash
from dpbook.data import histogram, load_cancer, load_digits
from dpbook.histogram import noisy_histogram
from dpbook.mwem import adaptive_marginals, mwem, mwem_practical
from dpbook.queries import k_way_marginals

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
PEER_PYTHON = HERE / ".venv" / "bin" / "python"

# (name, data, k, epsilon, T) — the table
ROWS = [
    ("cancer k=2 eps=1 T=10", "cancer", 2, 1.0, 10),
    ("cancer k=3 eps=1 T=10", "cancer", 3, 1.0, 10),
    ("cancer k=2 eps=0.1 T=30", "cancer", 2, 0.1, 30),
    ("digits k=2 eps=1 T=10", "digits", 2, 1.0, 10),
    ("synthetic k=2 eps=1 T=30", "synthetic", 2, 1.0, 30),
    ("markov d=8 k=2 eps=1 T=10", "markov8", 2, 1.0, 10),    # correlated, n = 20,000 >> |X| = 256
]
AIM_ROWS = ("cancer k=2 eps=1 T=10", "markov d=8 k=2 eps=1 T=10")
AIM_REPEATS = 1
AIM = "smartnoise-synth 1.0.8 AIM (mbi 1.1.0)"
DELTA = 1e-6
SMALL = dict(data="cancer", k=2, epsilon=1.0, T=5, seeds=(0, 1, 2))
SPLIT_FROM_D = 16          # smartnoise: one histogram below this d, groups of 8 columns from it on
SPLIT = 8

DPBOOK_METHODS = {
    "dpbook mwem (theorem)": (mwem, dict()),
    "dpbook mwem_practical": (mwem_practical, dict()),       # its defaults, fixed before any peer was run
    "dpbook mwem_practical replay=0": (mwem_practical, dict(replay=0)),   # the same without replay: the fast end
    "dpbook adaptive_marginals": (adaptive_marginals, dict()),   # its defaults; its rounds are data-driven (no T)
    "dpbook adaptive_marginals (eps, delta)": (adaptive_marginals, dict(delta=DELTA)),   # AIM's guarantee (zCDP)
}
SUCCESSOR = "dpbook adaptive_marginals"
SUCCESSOR_DELTA = "dpbook adaptive_marginals (eps, delta)"     # the matched-guarantee counterpart of AIM


def synthetic(n: int = 100_000, d: int = 20, seed: int = 0) -> np.ndarray:
    """Correlated binary rows over {0,1}^20: a Markov chain over the attributes (flip prob. 0.2), as in
    benchmarks/bench_mwem.py."""
    rng = np.random.default_rng(seed)
    rows = np.empty((n, d), dtype=np.int64)
    rows[:, 0] = rng.random(n) < 0.3
    for a in range(1, d):
        flip = rng.random(n) < 0.2
        rows[:, a] = np.where(flip, 1 - rows[:, a - 1], rows[:, a - 1])
    return rows


def load(name):
    """(rows n × d, histogram over {0,1}^d) with attribute a = bit d-1-a (dpbook's universe order)."""
    if name == "synthetic":
        rows = synthetic()
    elif name == "markov8":
        rows = synthetic(n=20_000, d=8, seed=1)
    else:
        rows = (load_cancer() if name == "cancer" else load_digits()).table().astype(np.int64)
    d = rows.shape[1]
    return rows, histogram(rows @ (1 << np.arange(d - 1, -1, -1)), 1 << d)


def errors(answers, true):
    e = np.abs(np.asarray(answers) - true)
    return float(e.max()), float(e.mean())


def signed_counts(W, v):
    """``W`` applied to a vector with negative entries (noisy counts): by linearity, positive minus negative part."""
    return W.counts(np.maximum(v, 0.0)) - W.counts(np.maximum(-v, 0.0))


def dpbook_run(method, x, W, epsilon, T, seed):
    fn, kwargs = DPBOOK_METHODS[method]
    start = time.perf_counter()
    release = fn(x, W, epsilon=epsilon, n=int(x.sum()), rng=seed, **_rounds(fn, T), **kwargs)   # n: public
    return time.perf_counter() - start, release.answers


def smartnoise_answers(W, npz) -> np.ndarray:
    """Every cell of W from smartnoise's output: the product of its independent groups' fitted histograms."""
    groups = [(list(npz[f"cols{g}"]), npz[f"mins{g}"], npz[f"hist{g}"]) for g in range(len(npz.files) // 3)]
    out = np.empty(W.m)
    for j, (S, v) in enumerate(W.cells):
        p = 1.0
        for cols, mins, hist in groups:
            if not any(c in S for c in cols):
                continue
            index = tuple(v[S.index(c)] - lo if c in S else slice(None) for c, lo in zip(cols, mins))
            inside = all(isinstance(i, slice) or 0 <= i < size for i, size in zip(index, hist.shape))
            p *= float(np.sum(hist[index])) if inside else 0.0      # a constant column: one bin, at its value
        out[j] = p
    return out


class PeerWorker:
    """A worker process in the peers' environment (``script`` in this folder run by ``python``, ``prefix`` before
    it, e.g. ``nice``): one JSON request per line, one JSON reply per line, arrays through an ``.npz`` file."""

    def __init__(self, script, name, python=PEER_PYTHON, prefix=(), env=None):
        if not pathlib.Path(python).exists():
            raise SystemExit(f"{python} missing: run benchmarks/peers/setup.sh (or make bench-peers)")
        self.name = name
        self.proc = subprocess.Popen([*prefix, str(python), str(HERE / script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.tmp = tempfile.TemporaryDirectory()

    def request(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"{self.name} failed: {reply['error']}")
        return reply

    def fit_arrays(self, **request):
        """One fit whose released arrays come back through the ``.npz`` file: ``(reply, {name: array})``."""
        out = os.path.join(self.tmp.name, "out.npz")
        reply = self.request(**request, out=out)
        with np.load(out) as npz:
            return reply, {key: npz[key] for key in npz.files}

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
        self.proc.stdout.close()
        self.tmp.cleanup()


class Smartnoise(PeerWorker):
    """smartnoise_worker.py in the peers' environment; one request per fit (``python`` and ``script`` replace the
    environment and the worker, e.g. by a stand-in in the tests)."""

    def __init__(self, python=PEER_PYTHON, script="smartnoise_worker.py"):
        super().__init__(script, "smartnoise", python)

    def fit(self, rows_path, k, epsilon, T, seed, split, method="mwem"):
        return self.fit_arrays(rows=str(rows_path), k=k, epsilon=epsilon, T=T, seed=seed, split=split,
                               method=method, delta=DELTA)


class _Npz(dict):
    @property
    def files(self):
        return list(self.keys())


def _defaults(fn) -> dict:
    """The keyword defaults a dpbook method runs with (its settings, unless the row overrides them)."""
    skip = {"n", "trials", "rng", "sampler"}
    return {k: p.default for k, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty and k not in skip}


def _row_data(data, k, tmp):
    """A row's data as every mode uses it: (rows n × d, histogram, n, d, the k-way workload, its true answers, the
    rows saved in ``tmp`` for the peers' process, smartnoise's split factor or None)."""
    rows, x = load(data)
    n, d = rows.shape
    W = k_way_marginals(d, k)
    rows_path = pathlib.Path(tmp) / f"{data}.npy"
    np.save(rows_path, rows)
    return rows, x, n, d, W, W.answers(x), rows_path, (SPLIT if d >= SPLIT_FROM_D else None)


def run_row(spec, repeats, peer, tmp):
    name, data, k, epsilon, T = spec
    rows, x, n, d, W, true, rows_path, split = _row_data(data, k, tmp)
    methods = {m: {"seconds": [], "max_error": [], "mean_error": []} for m in list(DPBOOK_METHODS) + ["smartnoise-synth 1.0.8 MWEM"]}
    settings = {m: {"call": f"{fn.__module__}.{fn.__name__}", **_defaults(fn), **kw, "epsilon": epsilon, **_rounds(fn, T)}
                for m, (fn, kw) in DPBOOK_METHODS.items()}
    for r in range(repeats):                                       # interleaved: every method once per repeat
        for m in DPBOOK_METHODS:
            seconds, answers = dpbook_run(m, x, W, epsilon, T, seed=r)
            _record(methods[m], seconds, errors(answers, true))
        if peer is not None:
            reply, npz = peer.fit(rows_path, k, epsilon, T, seed=r, split=split)
            _record(methods["smartnoise-synth 1.0.8 MWEM"], reply["seconds"],
                    errors(smartnoise_answers(W, _Npz(npz)), true))
            settings["smartnoise-synth 1.0.8 MWEM"] = {
                "call": "snsynth.mwem.MWEMSynthesizer(...).fit(rows, transformer=NoTransformer())",
                "epsilon": epsilon, "iterations": T, "marginal_width": k, "q_count": reply["q_count"],
                "split_factor": split if split is not None else d, "groups": reply["groups"],
                "mult_weights_iterations": 20, "epsilon_spent_by_its_accountant": reply["spent"]}
    if peer is None:
        del methods["smartnoise-synth 1.0.8 MWEM"]
    if peer is not None and name in AIM_ROWS:                      # minutes per fit: its own, fewer repeats
        methods[AIM] = {"seconds": [], "max_error": [], "mean_error": [], "ratio": []}
        for r in range(AIM_REPEATS):
            reply, npz = peer.fit(rows_path, k, epsilon, T, seed=r, split=None, method="aim")
            answers = np.concatenate([npz[f"marg{j}"] for j in range(len(npz))])
            _record(methods[AIM], reply["seconds"], errors(answers, true))
            methods[AIM]["ratio"].append(reply["seconds"] / methods[base_name()]["seconds"][r])
        settings[AIM] = {"call": "snsynth.aim.AIMSynthesizer(epsilon, delta, degree=k).AIM(data, k-way workload)",
                         "epsilon": epsilon, "delta": DELTA, "rho": reply["rho"], "repeats": AIM_REPEATS,
                         "rounds": "16 d (its default)", "max_model_size": 80}
    base = "dpbook mwem_practical"
    for m, rec in methods.items():
        rec["median_seconds"] = float(np.median(rec["seconds"]))
        rec["median_max_error"] = float(np.median(rec["max_error"]))
        rec["median_mean_error"] = float(np.median(rec["mean_error"]))
        rec["median_time_ratio_to_practical"] = float(np.median(rec.pop("ratio", None) or
                                                                np.array(rec["seconds"]) / np.array(methods[base]["seconds"][:len(rec["seconds"])])))
        rec["settings"] = settings[m]
    # references (no timing): the uniform guess and the noisy histogram (chapter 03) at the same ε, its marginals
    # summed from the unclamped noisy cells (clamping at 0 would add ~b/2 per empty cell: a large bias)
    uniform = errors(W.counts(np.full(x.size, 1.0 / x.size)), true)
    hist = [errors(signed_counts(W, noisy_histogram(x, epsilon=epsilon, n=n, rng=r).counts) / n, true)
            for r in range(repeats)]
    from dpbook.gaussian import gaussian_mechanism            # AIM's guarantee for the per-query baseline
    gauss = [errors(gaussian_mechanism(x, W, epsilon=epsilon, delta=DELTA, n=n, calibration="analytic",
                                       rng=1000 + r).answers, true) for r in range(repeats)]
    row = {"name": name, "data": data, "d": d, "n": n, "k": k, "epsilon": epsilon, "T": T, "cells": W.m,
           "methods": methods,
           "references": {"uniform": {"max_error": uniform[0], "mean_error": uniform[1]},
                          "noisy histogram": {
                              "median_max_error": float(np.median([h[0] for h in hist])),
                              "median_mean_error": float(np.median([h[1] for h in hist]))},
                          "per-query gaussian (eps, delta)": {
                              "delta": DELTA, "median_max_error": float(np.median([h[0] for h in gauss])),
                              "median_mean_error": float(np.median([h[1] for h in gauss]))}}}
    if peer is not None:
        p, s = methods[base], methods["smartnoise-synth 1.0.8 MWEM"]
        row["goal"] = {"max_error_no_worse": p["median_max_error"] <= s["median_max_error"],
                       "mean_error_no_worse": p["median_mean_error"] <= s["median_mean_error"],
                       "ten_times_faster": s["median_time_ratio_to_practical"] >= 10.0}
    return row


def base_name():
    return "dpbook mwem_practical"


def _record(rec, seconds, err):
    rec["seconds"].append(seconds)
    rec["max_error"].append(err[0])
    rec["mean_error"].append(err[1])


def small_setting():
    """dpbook's errors at the small setting (deterministic given the seeds): what the test recomputes."""
    rows, x = load(SMALL["data"])
    W = k_way_marginals(rows.shape[1], SMALL["k"])
    true = W.answers(x)
    out = {}
    for m in DPBOOK_METHODS:
        errs = [errors(dpbook_run(m, x, W, SMALL["epsilon"], SMALL["T"], seed)[1], true) for seed in SMALL["seeds"]]
        out[m] = {"max_error": [e[0] for e in errs], "mean_error": [e[1] for e in errs]}
    return {**SMALL, "seeds": list(SMALL["seeds"]), "errors": out}


def table(result, aim=None) -> str:
    """The main table; AIM's column is read from results_aim.json (``aim``, or the file) where it holds the row
    (:func:`with_aim`), else from ``result``."""
    result = with_aim(result, aim)
    lines = ["| data (d, n), k, ε, T | dpbook mwem_practical | dpbook adaptive_marginals | dpbook adaptive_marginals "
             "(ε, δ) | dpbook mwem (theorem) | smartnoise-synth 1.0.8 MWEM | AIM (ε, δ) | noisy histogram "
             "| per-query Gaussian (ε, δ) | uniform | goal met? |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        ms = row["methods"]
        p = ms["dpbook mwem_practical"]
        cell = lambda r, ratio=True: (f"×{r['median_time_ratio_to_practical']:.3g}, " if ratio else "") + \
            f"{r['median_max_error']:.3f} / {r['median_mean_error']:.4f}"
        sn = ms.get("smartnoise-synth 1.0.8 MWEM")
        goal = row.get("goal")
        verdict = "—" if goal is None else ("yes" if all(goal.values()) else
                                            "no: " + ", ".join(k.replace("_", " ") for k, v in goal.items() if not v))
        u, h = row["references"]["uniform"], row["references"]["noisy histogram"]
        gq = row["references"]["per-query gaussian (eps, delta)"]
        lines.append(f"| {row['data']} ({row['d']}, {row['n']}), {row['k']}, {row['epsilon']:g}, {row['T']} "
                     f"| {1000 * p['median_seconds']:.3g} ms, {cell(p, False)} "
                     f"| {cell(ms[SUCCESSOR]) if SUCCESSOR in ms else 'not run'} "
                     f"| {cell(ms[SUCCESSOR_DELTA]) if SUCCESSOR_DELTA in ms else 'not run'} "
                     f"| {cell(ms['dpbook mwem (theorem)'])} "
                     f"| {cell(sn) if sn else 'not run'} | {aim_cell(row)} "
                     f"| {h['median_max_error']:.3f} / {h['median_mean_error']:.4f} "
                     f"| {gq['median_max_error']:.3f} / {gq['median_mean_error']:.4f} "
                     f"| {u['max_error']:.3f} / {u['mean_error']:.4f} | {verdict} |")
    return "\n".join(lines)


def ratios(result) -> str:
    """smartnoise ÷ dpbook ``mwem_practical`` per row: time (median of within-repeat ratios), max and mean error
    (ratio of medians; > 1 means dpbook's error is lower)."""
    lines = ["| row | time ratio | max-error ratio | mean-error ratio |", "|---|---|---|---|"]
    for row in result["rows"]:
        p, s = row["methods"]["dpbook mwem_practical"], row["methods"]["smartnoise-synth 1.0.8 MWEM"]
        lines.append(f"| {row['name']} | ×{s['median_time_ratio_to_practical']:.3g} "
                     f"| {s['median_max_error'] / p['median_max_error']:.3g} "
                     f"| {s['median_mean_error'] / p['median_mean_error']:.3g} |")
    return "\n".join(lines)


def successor_table(result) -> str:
    """Per row: ``adaptive_marginals``' speed against smartnoise's MWEM (the pure variant, in the same repeats:
    results_speed.json) and AIM (the (ε, δ) variant, across runs) as :func:`successor_speed` measures it, and which
    of their goals hold."""
    lines = ["| row | smartnoise time ÷ adaptive | AIM time ÷ adaptive (ε, δ) | goals met | goals missed |",
             "|---|---|---|---|---|"]
    ratio = lambda v: "not measured" if v is None else f"{v:.3g}"
    for row in result["rows"]:
        goal, speed = row.get("successor_goal", {}), successor_speed(row)
        lines.append(f"| {row['name']} | {ratio(speed['smartnoise_over_adaptive'])} | "
                     f"{ratio(speed['aim_over_adaptive_eps_delta']) if AIM in row['methods'] else '—'} | "
                     + (", ".join(k for k, v in goal.items() if v) or "—") + " | "
                     + (", ".join(k for k, v in goal.items() if not v) or "—") + " |")
    return "\n".join(lines)


def settings(result) -> str:
    lines = []
    for name, m in result["rows"][-1]["methods"].items():
        lines.append(f"{name}: " + ", ".join(f"{k}={v}" for k, v in m["settings"].items()
                                              if k not in ("epsilon", "T", "iterations")))
    return "\n".join(lines)


def _peer_versions() -> dict:
    code = ("import json, importlib.metadata as m; print(json.dumps({p: m.version(p) for p in "
            "('smartnoise-synth', 'mbi', 'jax', 'jaxlib', 'opendp', 'numpy', 'pandas')}))")
    return json.loads(subprocess.run([str(PEER_PYTHON), "-c", code], capture_output=True, text=True,
                                     check=True).stdout)


def _load():
    """The machine's 1/5/15-minute load averages at the end of the run (None where the OS has none)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _rounds(fn, T) -> dict:
    """``T=T`` for the methods that take a number of rounds (adaptive_marginals chooses its own)."""
    return {"T": T} if "T" in inspect.signature(fn).parameters else {}


def merge_dpbook(stored: dict, fresh: dict) -> dict:
    """``stored`` (a full run with the peers) with every dpbook method and reference of ``fresh`` (a
    ``--no-peers`` run of the same rows) put in its place: the peers' stored numbers are kept, not re-run (AIM
    and smartnoise take minutes per fit), and so are their time ratios to ``mwem_practical``, taken within the
    stored run (recorded in ``merged``).  The successor goals' speed is not chained through ``mwem_practical``
    (its own time changes with the code between runs): it is read from results_speed.json (:func:`with_speed`)."""
    out = dict(stored)

    def merged(row, new):
        peers = {m: dict(r) for m, r in row["methods"].items() if not m.startswith("dpbook")}
        practical = np.array(new["methods"]["dpbook mwem_practical"]["seconds"])
        for r in peers.values():      # the stored within-run ratio is kept; the file's ratio field is across runs
            r.setdefault("median_time_ratio_to_practical_in_its_run", r["median_time_ratio_to_practical"])
            r["median_time_ratio_to_practical"] = float(np.median(np.array(r["seconds"]) / practical[:len(r["seconds"])]))
        row = {**row, "methods": {**new["methods"], **peers}, "references": new["references"]}
        p, s = row["methods"]["dpbook mwem_practical"], row["methods"]["smartnoise-synth 1.0.8 MWEM"]
        row["goal"] = {"max_error_no_worse": p["median_max_error"] <= s["median_max_error"],   # (across runs)
                       "mean_error_no_worse": p["median_mean_error"] <= s["median_mean_error"],
                       "ten_times_faster": s["median_time_ratio_to_practical"] >= 10.0}
        return _goals({**row, "successor_goal": {}})

    out["rows"] = _update_rows(stored["rows"], fresh["rows"], merged)
    out["merged"] = {"date": fresh["date"], "code_version": fresh["code_version"], "repeats": fresh["repeats"],
                     "seeds": fresh["seeds"], "machine_load": fresh.get("load"),
                     "what": "dpbook methods and references re-run with --merge; the peers' numbers (smartnoise "
                     "MWEM, AIM: errors, seconds) are those of the stored run of " + str(stored.get("date")) +
                     "; a peer's median_time_ratio_to_practical divides its stored seconds by this run's "
                     "mwem_practical seconds (across runs, machine load differs), its "
                     "median_time_ratio_to_practical_in_its_run is the stored within-run ratio; the successor "
                     "goals' speed is read from results_speed.json (successor_speed says how), never chained "
                     "through mwem_practical"}
    out["small"] = fresh["small"]
    return out


#: A release that measured nothing is the uniform table computed another way (projected, not averaged): its error
#: equals the uniform guess's up to rounding (seen: one unit in the last place), which "no worse" must not count.
UNIFORM_ROUNDING = 1e-12


def own_noise(method) -> float:
    """A method's own noise on a row: the standard deviation (n − 1 in the denominator) of its max error over the
    row's seeds, 0 for a single seed.  The issue's goal at ε < 1 is "never worse than the uniform guess by more
    than its own noise": a median above the uniform guess by less than this is a difference another set of seeds
    could reverse."""
    errors = method["max_error"]
    return float(np.std(errors, ddof=1)) if len(errors) > 1 else 0.0


def successor_goal(row) -> dict:
    """The goals of ``adaptive_marginals`` on one row, each variant against the references of its own guarantee.
    The (ε, δ) variant (``SUCCESSOR_DELTA``, δ = ``DELTA``) against AIM at the same (ε, δ) (where AIM is stored):
    within 1.1x of AIM's max and mean error and >= 100x faster; and no worse than the per-query Gaussian at that
    (ε, δ).  The pure-ε one against the pure references: no worse than the noisy histogram (max and mean error)
    and >= 10x faster than smartnoise's MWEM.  Both: at ε < 1, a median max error no worse than the uniform guess's
    by more than the variant's :func:`own_noise` (and a release that is the uniform table ties).  Speed
    is read from :func:`successor_speed` (measured directly, never chained through another method's time); a speed
    goal it has no number for is left out."""
    ms, me = row["methods"][SUCCESSOR], {}
    md = row["methods"].get(SUCCESSOR_DELTA)
    speed = successor_speed(row)
    h, g = row["references"]["noisy histogram"], row["references"]["per-query gaussian (eps, delta)"]
    aim = row["methods"].get(AIM)
    if md is not None:
        if aim is not None:
            me["eps_delta_max_within_1.1x_aim"] = md["median_max_error"] <= 1.1 * aim["median_max_error"]
            me["eps_delta_mean_within_1.1x_aim"] = md["median_mean_error"] <= 1.1 * aim["median_mean_error"]
            me["eps_delta_hundred_times_faster_than_aim"] = speed["aim_over_adaptive_eps_delta"] >= 100
        me["eps_delta_no_worse_than_per_query_gaussian"] = (md["median_max_error"] <= g["median_max_error"]
                                                            and md["median_mean_error"] <= g["median_mean_error"])
    me["pure_no_worse_than_histogram"] = (ms["median_max_error"] <= h["median_max_error"]
                                          and ms["median_mean_error"] <= h["median_mean_error"])
    if row["epsilon"] < 1:
        u = row["references"]["uniform"]
        level = u["max_error"] * (1.0 + UNIFORM_ROUNDING)     # a release that is the uniform table ties, up to rounding
        me["pure_max_no_worse_than_uniform"] = ms["median_max_error"] <= level + own_noise(ms)
        if md is not None:
            me["eps_delta_max_no_worse_than_uniform"] = md["median_max_error"] <= level + own_noise(md)
    if speed["smartnoise_over_adaptive"] is not None:
        me["pure_ten_times_faster_than_smartnoise"] = speed["smartnoise_over_adaptive"] >= 10
    return me


def successor_speed(row) -> dict:
    """How many times faster ``adaptive_marginals`` is than each peer on one row, measured directly.

    Against smartnoise's MWEM: from results_speed.json (``row["speed"]``, attached by :func:`with_speed`), where
    both ran in the same repeats — the median over repeats of the within-repeat ratio of CPU seconds (``None``
    when that file does not hold the row: the two were never timed side by side).  Against AIM (the (ε, δ)
    variant): AIM's median CPU seconds in its own run ÷ the variant's median CPU seconds (results_speed.json's,
    else the row's own wall seconds, wall against wall) — across runs, so the load of each run is in the ratio,
    but the margin is orders of magnitude.  No ratio goes through ``mwem_practical``: its own time changed with
    the code between the stored runs, which a chained ratio would count as the peers' speed."""
    speed, md = row.get("speed"), row["methods"].get(SUCCESSOR_DELTA)
    out = {"smartnoise_over_adaptive": None, "smartnoise_over_adaptive_eps_delta": None,
           "aim_over_adaptive_eps_delta": None, "smartnoise_source": "not measured side by side (run --speed)"}
    if speed is not None:
        out.update(smartnoise_over_adaptive=speed["peer_over"][SUCCESSOR]["median_" + speed["ratio"]],
                   smartnoise_over_adaptive_eps_delta=speed["peer_over"][SUCCESSOR_DELTA]["median_" + speed["ratio"]],
                   smartnoise_source=f"{speed['source']} ({speed['date']}): median of the within-repeat "
                   f"{speed['ratio'].upper()} ratios")
    aim = row["methods"].get(AIM)
    if aim is not None and md is not None:
        if speed is not None and "median_cpu_seconds" in aim:
            ours, key, where = speed["methods"][SUCCESSOR_DELTA], "median_cpu_seconds", speed["source"]
        else:
            ours, key, where = md, "median_seconds", "this file"
        out["aim_over_adaptive_eps_delta"] = aim[key] / ours[key]
        out["aim_source"] = (f"AIM's {key} ({aim.get('source', 'its stored run')}) ÷ adaptive_marginals (ε, δ)'s "
                             f"({where}): across runs")
    return out


def _goals(row) -> dict:
    """``row`` with ``successor_speed`` and ``successor_goal`` recomputed where it has goals."""
    if "successor_goal" not in row or SUCCESSOR not in row["methods"]:
        return row
    row = {**row, "successor_speed": successor_speed(row)}
    row["successor_goal"] = successor_goal(row)
    return row


# --- speed (--speed): adaptive_marginals and smartnoise's MWEM in the same repeats, into results_speed.json -------
SPEED_RESULTS = HERE / "results_speed.json"
PEER = "smartnoise-synth 1.0.8 MWEM"
SPEED_METHODS = (SUCCESSOR, SUCCESSOR_DELTA)
SPEED_RATIO = "cpu"            # the goal's ratio: CPU seconds of the process doing the fit (wall stored beside it)


def speed_row(spec, repeats, peer, tmp) -> dict:
    """One row of results_speed.json: after one untimed fit of each of ``SPEED_METHODS`` (seed 0), repeat r runs each
    of them once with seed r (in this process), then smartnoise's MWEM with seed r (in ``peer``'s process),
    recording wall and CPU seconds of each fit and its errors; ``peer_over[m]`` holds smartnoise ÷ m per repeat (CPU
    and wall) and their medians."""
    name, data, k, epsilon, T = spec
    rows, x, n, d, W, true, rows_path, split = _row_data(data, k, tmp)
    keys = ("seconds", "cpu_seconds", "max_error", "mean_error")
    methods = {m: {key: [] for key in keys} for m in (*SPEED_METHODS, PEER)}
    for m in SPEED_METHODS:            # untimed, on every row: a row of d >= 14 loads the compiled kernels (numba's
        dpbook_run(m, x, W, epsilon, T, seed=0)          # import and its disk cache, ~0.6 s) on its first fit
    for r in range(repeats):
        for m in SPEED_METHODS:
            cpu = time.process_time()
            seconds, answers = dpbook_run(m, x, W, epsilon, T, seed=r)
            methods[m]["cpu_seconds"].append(time.process_time() - cpu)
            _record(methods[m], seconds, errors(answers, true))
        reply, npz = peer.fit(rows_path, k, epsilon, T, seed=r, split=split)
        methods[PEER]["cpu_seconds"].append(reply["cpu_seconds"])
        _record(methods[PEER], reply["seconds"], errors(smartnoise_answers(W, _Npz(npz)), true))
    for m, rec in methods.items():
        rec.update({f"median_{key}": float(np.median(rec[key])) for key in keys})
        if m != PEER:
            fn, kw = DPBOOK_METHODS[m]
            rec["settings"] = {"call": f"{fn.__module__}.{fn.__name__}", **_defaults(fn), **kw, "epsilon": epsilon}
    methods[PEER]["settings"] = {
        "call": "snsynth.mwem.MWEMSynthesizer(...).fit(rows, transformer=NoTransformer())", "epsilon": epsilon,
        "iterations": T, "marginal_width": k, "q_count": reply["q_count"], "split_factor": split or d,
        "groups": reply["groups"], "mult_weights_iterations": 20}
    peer_over = {}
    for m in SPEED_METHODS:
        ratio = {"cpu": [a / b for a, b in zip(methods[PEER]["cpu_seconds"], methods[m]["cpu_seconds"])],
                 "wall": [a / b for a, b in zip(methods[PEER]["seconds"], methods[m]["seconds"])]}
        peer_over[m] = {**ratio, "median_cpu": float(np.median(ratio["cpu"])),
                        "median_wall": float(np.median(ratio["wall"]))}
    return {"name": name, "data": data, "d": d, "n": n, "k": k, "epsilon": epsilon, "T": T, "cells": W.m,
            "methods": methods, "peer_over": peer_over}


def run_speed(specs=None, repeats=5, out=SPEED_RESULTS, peer=None) -> dict:
    """Every row of ``specs`` (default ``ROWS``) through :func:`speed_row` into ``out``
    (``python -m benchmarks.peers.run --speed``); ``peer`` defaults to a :class:`Smartnoise` worker.  Before the
    first row, one untimed smartnoise fit on the smallest row (lazy imports, caches); each row warms the dpbook
    methods up itself (:func:`speed_row`)."""
    specs = ROWS if specs is None else specs
    own = peer is None
    peer = Smartnoise() if own else peer
    start, version, load_start = time.perf_counter(), git_hash(), _load()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _, data, k, epsilon, T = ROWS[0]
            table_rows, _ = load(data)
            np.save(pathlib.Path(tmp) / f"{data}.npy", table_rows)
            peer.fit(pathlib.Path(tmp) / f"{data}.npy", k, epsilon, T, seed=0, split=None)
            for spec in specs:
                rows.append(speed_row(spec, repeats, peer, tmp))
                print(f"{spec[0]}: done at {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        versions = peer.request(method="versions")["versions"]
    finally:
        if own:
            peer.close()
    result = {"schema": 1, "methods": [*SPEED_METHODS, PEER], "peer": PEER, "ratio": SPEED_RATIO,
              "repeats": repeats, "seeds": list(range(repeats)), "delta": DELTA,
              "what": "adaptive_marginals (pure ε, and (ε, δ)) and smartnoise's MWEM interleaved in the same repeats: "
              "repeat r runs each dpbook variant once, then smartnoise's fit, all with seed r; peer_over[m] is "
              "smartnoise's seconds ÷ m's seconds taken within each repeat (CPU and wall), then the median; the "
              "goal (successor_goal) reads the median CPU ratio",
              "time": "CPU seconds (user + system, every thread, time.process_time) and wall seconds "
              "(perf_counter) of the process doing the fit, around the fit alone: dpbook's whole "
              "adaptive_marginals call in the harness's process; smartnoise's MWEMSynthesizer.fit in its worker "
              "process (no sampling, imports done before); one untimed warm-up of smartnoise first, and of each dpbook "
              "variant on every row (a row of d >= 14 loads the optional compiled kernels on its first fit)",
              "error": "max and mean over every cell of the k-way workload, |released − true| / n, medians over "
              "repeats", "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared and loaded",
              "nice": os.nice(0), "threads": {key: os.environ.get(key) for key in ("OMP_NUM_THREADS",
                                                                                    "OPENBLAS_NUM_THREADS")},
              "python": platform.python_version(), "numpy": np.__version__, "peer_versions": versions,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "code_version": version,
              "load_at_start": load_start, "load": _load(), "total_seconds": time.perf_counter() - start,
              "rows": rows}
    pathlib.Path(out).write_text(json.dumps(result, indent=1) + "\n")
    return result


def with_speed(result: dict, speed: dict | None = None) -> dict:
    """``result`` (results.json's layout) with each row that results_speed.json (``speed``; read from the file
    when None) holds carrying ``speed`` (that file's medians and within-repeat ratios), and every row's goals
    recomputed (:func:`successor_speed`): a row the file does not hold (or every row, when there is no file) has
    no speed goal against smartnoise."""
    if speed is None:
        speed = json.loads(SPEED_RESULTS.read_text()) if SPEED_RESULTS.exists() else {"rows": []}
    source = {"source": SPEED_RESULTS.name, **{key: speed.get(key) for key in ("date", "code_version", "repeats",
                                                                                "seeds", "load", "ratio")}}
    held = {row["name"]: row for row in speed["rows"]}

    def attach(row):
        row = {key: value for key, value in row.items() if key != "speed"}
        new = held.get(row["name"])
        if new is not None:
            timed = {m: {key: new["methods"][m][key] for key in ("median_seconds", "median_cpu_seconds")}
                     for m in new["methods"]}
            row["speed"] = {**source, "methods": timed, "peer_over": new["peer_over"]}
        return _goals(row)

    out = {**result, "rows": [attach(row) for row in result["rows"]]}
    if speed["rows"]:
        out["speed"] = source
    else:
        out.pop("speed", None)
    return out


def speed_table(speed: dict) -> str:
    """results_speed.json per row: each method's median CPU and wall seconds, and smartnoise ÷ each variant
    (medians of the within-repeat ratios, CPU and wall)."""
    lines = [f"adaptive_marginals and smartnoise's MWEM in the same repeats ({speed['repeats']} repeats, seeds "
             f"{speed['seeds']}); median CPU s / wall s; ratios: median over repeats of smartnoise ÷ adaptive within "
             "each repeat, CPU / wall",
             "| row | adaptive_marginals | adaptive_marginals (ε, δ) | smartnoise MWEM | smartnoise ÷ adaptive "
             "| smartnoise ÷ adaptive (ε, δ) |", "|---|---|---|---|---|---|"]
    for row in speed["rows"]:
        ms, po = row["methods"], row["peer_over"]
        t = lambda m: f"{ms[m]['median_cpu_seconds']:.3g} / {ms[m]['median_seconds']:.3g}"
        r = lambda m: f"×{po[m]['median_cpu']:.3g} / ×{po[m]['median_wall']:.3g}"
        lines.append(f"| {row['name']} | {t(SUCCESSOR)} | {t(SUCCESSOR_DELTA)} | {t(PEER)} | {r(SUCCESSOR)} "
                     f"| {r(SUCCESSOR_DELTA)} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", default=None, help="comma-separated row indices (default: all)")
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--no-peers", action="store_true", help="dpbook only (no peers' environment needed)")
    parser.add_argument("--pgm", action="store_true", help=f"MWEM+PGM only, on its rows, into {PGM_RESULTS.name}")
    parser.add_argument("--aim", action="store_true", help=f"AIM only, on its rows (or --rows; seeds 0..R-1 with "
                        f"--repeats), into {AIM_RESULTS.name}, resuming it; {AIM_TIME_LIMIT // 60} min per fit at most")
    parser.add_argument("--merge", action="store_true", help="re-run the dpbook methods only and merge them into "
                        "the stored results file (--out), keeping the peers' stored numbers")
    parser.add_argument("--speed", action="store_true", help="adaptive_marginals (both variants) and smartnoise's "
                        f"MWEM in the same repeats (--rows, --repeats) into {SPEED_RESULTS.name}, the successor "
                        "goals' speed")
    args = parser.parse_args(argv)
    if args.speed:
        if args.no_peers or args.merge:
            parser.error("--speed times smartnoise beside adaptive_marginals: not with --no-peers or --merge")
        chosen = ROWS if args.rows is None else [ROWS[int(i)] for i in args.rows.split(",")]
        speed = run_speed(chosen, args.repeats, args.out if args.out != str(RESULTS) else SPEED_RESULTS)
        print(speed_table(speed))
        print("\nadaptive_marginals: speed (smartnoise: this run; AIM: across runs) and goals of results.json's rows")
        print(successor_table(with_speed(with_aim(json.loads(RESULTS.read_text())), speed)))
        return
    if args.pgm:
        repeats = args.repeats if "--repeats" in (argv if argv is not None else sys.argv) else PGM_REPEATS
        print(pgm_table(json.loads(RESULTS.read_text()), run_pgm(repeats, args.out if args.out != str(RESULTS)
                                                                  else PGM_RESULTS)))
        return
    if args.aim:
        given = "--repeats" in (argv if argv is not None else sys.argv)
        names = list(AIM_PLAN) if args.rows is None else [ROWS[int(i)][0] for i in args.rows.split(",")]
        plan = {name: args.repeats if given else AIM_PLAN.get(name, 1) for name in names}
        aim = run_aim(plan, args.out if args.out != str(RESULTS) else AIM_RESULTS)
        print(aim_table(aim) + "\n\n" + table(json.loads(RESULTS.read_text()), aim))
        return
    if args.merge:
        args.no_peers = True
    chosen = ROWS if args.rows is None else [ROWS[int(i)] for i in args.rows.split(",")]
    peer = None if args.no_peers else Smartnoise()
    start = time.perf_counter()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for spec in chosen:
                rows.append(run_row(spec, args.repeats, peer, tmp))
                print(f"{spec[0]}: done at {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        if peer is not None:
            peer.close()
    result = {"schema": 1, "repeats": args.repeats, "error": "max and mean over every cell of the k-way workload, "
              "|released − true| / n, medians over repeats", "time": "wall clock, median over repeats; ratios "
              "are taken within each repeat, then the median", "machine": f"{platform.machine()}, "
              f"{os.cpu_count()} cores, shared and loaded", "python": platform.python_version(),
              "numpy": np.__version__, "total_seconds": time.perf_counter() - start, "rows": rows,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "code_version": git_hash(),
              "peer_versions": None if args.no_peers else _peer_versions(), "delta": DELTA,
              "aim_rows": list(AIM_ROWS), "aim_repeats": AIM_REPEATS, "seeds": list(range(args.repeats)),
              "small": small_setting(), "load": _load()}
    if args.merge:
        result = merge_dpbook(json.loads(pathlib.Path(args.out).read_text()), result)
        peer = True                                    # the merged file has the peers' columns
    if peer is not None:               # AIM's column as the table shows it: results_aim.json's seeds where it holds the row
        result = with_speed(with_aim(result))      # the successor goals' speed: results_speed.json where it exists
    pathlib.Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))
    if PGM_RESULTS.exists():
        print("\n" + pgm_table(result))
    if peer is not None:
        print("\nsmartnoise ÷ dpbook mwem_practical (> 1: dpbook faster / more accurate)")
        print(ratios(result))
        if all(SUCCESSOR in row["methods"] and "successor_goal" in row for row in result["rows"]):
            print("\nadaptive_marginals: speed (smartnoise: results_speed.json; AIM: across runs) and goals")
            print(successor_table(result))
    print("\nsettings (last row; epsilon and T as in the row):")
    print(settings(result))


# --- MWEM+PGM (benchmarks/peers/pgm_worker.py): its own rows, repeats and file, beside AIM -------------------------
from benchmarks.peers.pgm_worker import ONE_THREAD  # noqa: E402  (numpy only; JAX stays in the peers' venv)

PGM = "MWEM+PGM (ε, δ), own code on mbi 1.1.0"
PGM_PURE = "MWEM+PGM pure ε (Laplace), own code on mbi 1.1.0"
PGM_NOISE = {PGM: "gaussian", PGM_PURE: "laplace"}     # zCDP at AIM's rho; pure ε like the MWEMs
PGM_RESULTS = HERE / "results_pgm.json"
PGM_ROWS = AIM_ROWS
PGM_REPEATS = 3


class PgmWorker(PeerWorker):
    """``pgm_worker.py`` in the peers' environment, at ``nice -n 19``, JAX/XLA on one thread; one request per fit."""

    def __init__(self, python=PEER_PYTHON):
        super().__init__("pgm_worker.py", "MWEM+PGM", python, prefix=("nice", "-n", "19"),
                         env={**os.environ, **ONE_THREAD})

    def fit(self, rows_path, k, epsilon, T, seed, noise="gaussian"):
        return self.fit_arrays(rows=str(rows_path), k=k, epsilon=epsilon, delta=DELTA, T=T, seed=seed, noise=noise)


def pgm_row(spec, repeats, worker, tmp):
    """One row of results_pgm.json (the schema of results.json's rows): MWEM+PGM in both accountings and dpbook
    ``mwem_practical``, interleaved (repeat r runs each with seed r), errors computed here from each method's
    released marginals."""
    name, data, k, epsilon, T = spec
    rows, x = load(data)
    n, d = rows.shape
    W = k_way_marginals(d, k)
    true = W.answers(x)
    rows_path = pathlib.Path(tmp) / f"{data}.npy"
    np.save(rows_path, rows)
    base = base_name()
    methods = {m: {"seconds": [], "max_error": [], "mean_error": []} for m in (base, *PGM_NOISE)}
    fn, kw = DPBOOK_METHODS[base]
    settings = {base: {"call": f"{fn.__module__}.{fn.__name__}", **_defaults(fn), **kw, "epsilon": epsilon, "T": T}}
    methods[base]["cpu_seconds"] = []
    for m in PGM_NOISE:
        methods[m].update(cpu_seconds=[], ratio=[], cpu_ratio=[], selected=[])
    for r in range(repeats):
        cpu = time.process_time()
        seconds, answers = dpbook_run(base, x, W, epsilon, T, seed=r)
        methods[base]["cpu_seconds"].append(time.process_time() - cpu)
        _record(methods[base], seconds, errors(answers, true))
        for m, noise in PGM_NOISE.items():
            reply, npz = worker.fit(rows_path, k, epsilon, T, seed=r, noise=noise)
            answers = np.concatenate([npz[f"marg{j}"] for j in range(len(npz))])
            _record(methods[m], reply["seconds"], errors(answers, true))
            methods[m]["cpu_seconds"].append(reply["cpu_seconds"])
            methods[m]["ratio"].append(reply["seconds"] / seconds)
            methods[m]["cpu_ratio"].append(reply["cpu_seconds"] / methods[base]["cpu_seconds"][-1])
            methods[m]["selected"].append([round_["selected"] for round_ in reply["rounds"]])
            settings[m] = {"call": "benchmarks/peers/pgm_worker.py mwem_pgm (mbi.estimation.mirror_descent, "
                           "warm-started)", "epsilon": epsilon, "T": T, "known_total": "n (public)",
                           "threads": 1, "nice": 19, **{key: value for key, value in reply.items() if key not in
                                                        ("seconds", "cpu_seconds", "rounds")}}
            if noise == "gaussian":
                settings[m]["delta"] = DELTA
    for m, rec in methods.items():
        rec["median_seconds"] = float(np.median(rec["seconds"]))
        rec["median_max_error"] = float(np.median(rec["max_error"]))
        rec["median_mean_error"] = float(np.median(rec["mean_error"]))
        rec["median_time_ratio_to_practical"] = float(np.median(rec.pop("ratio", None) or [1.0] * repeats))
        rec["settings"] = settings[m]
    for m, rec in methods.items():
        rec["median_cpu_seconds"] = float(np.median(rec["cpu_seconds"]))
        rec["median_cpu_ratio_to_practical"] = float(np.median(rec.pop("cpu_ratio", None) or [1.0] * repeats))
    uniform = errors(W.counts(np.full(x.size, 1.0 / x.size)), true)
    return {"name": name, "data": data, "d": d, "n": n, "k": k, "epsilon": epsilon, "T": T, "cells": W.m,
            "methods": methods, "references": {"uniform": {"max_error": uniform[0], "mean_error": uniform[1]}}}


def run_pgm(repeats=PGM_REPEATS, out=PGM_RESULTS, python=PEER_PYTHON):
    """Every row of ``PGM_ROWS`` into ``out`` (``python -m benchmarks.peers.run --pgm``)."""
    worker = PgmWorker(python)
    start = time.perf_counter()
    rows = []
    try:
        peer_versions = worker.request(method="versions")["versions"]
        with tempfile.TemporaryDirectory() as tmp:
            for spec in [s for s in ROWS if s[0] in PGM_ROWS]:
                rows.append(pgm_row(spec, repeats, worker, tmp))
                print(f"{spec[0]}: done at {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        worker.close()
    result = {"schema": 1, "repeats": repeats, "seeds": list(range(repeats)), "delta": DELTA,
              "error": "max and mean over every cell of the k-way workload, |released − true| / n, medians over "
              "repeats", "time": "wall clock and CPU seconds of the fit (MWEM+PGM: in its worker at nice 19, JAX "
              "compilation included), medians over repeats; ratios to dpbook mwem_practical taken within each "
              "repeat; on a loaded machine the CPU ratio is the fair one (the wall ratio also counts nice 19)",
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared and loaded; MWEM+PGM at nice 19 on "
              "one thread", "python": platform.python_version(), "numpy": np.__version__,
              "total_seconds": time.perf_counter() - start, "rows": rows,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "code_version": git_hash(),
              "peer_versions": peer_versions}
    pathlib.Path(out).write_text(json.dumps(result, indent=1) + "\n")
    return result


def pgm_table(result, pgm=None) -> str:
    """MWEM+PGM's column beside AIM and dpbook ``mwem_practical`` (from ``result``, results.json's layout) on the
    rows where both are stored; "" when results_pgm.json does not exist.  Time ratios are to ``mwem_practical``
    within each file's own repeats."""
    if pgm is None:
        if not PGM_RESULTS.exists():
            return ""
        pgm = json.loads(PGM_RESULTS.read_text())
    stored = {row["name"]: row for row in with_aim(result)["rows"]}          # AIM: from results_aim.json if there
    lines = [f"MWEM+PGM at (ε, δ = {pgm['delta']:g}) through zCDP and at pure ε, {pgm['repeats']} repeats "
             f"(seeds {pgm['seeds']}); cells: wall time (ratio to mwem_practical), max / mean error; MWEM+PGM: "
             "CPU time (CPU ratio to mwem_practical in the same repeats) and wall time at nice 19",
             "| row | dpbook mwem_practical | AIM (ε, δ) | MWEM+PGM (ε, δ) | MWEM+PGM pure ε |", "|---|---|---|---|---|"]
    fmt = lambda m: (f"{m['median_seconds']:.3g} s (×{m['median_time_ratio_to_practical']:.3g}), "
                     f"{m['median_max_error']:.3f} / {m['median_mean_error']:.4f}")
    cpu = lambda m: (f"{m['median_cpu_seconds']:.3g} CPU s (×{m['median_cpu_ratio_to_practical']:.3g}), "
                     f"wall {m['median_seconds']:.3g} s, {m['median_max_error']:.3f} / {m['median_mean_error']:.4f}")
    for row in pgm["rows"]:
        other = stored.get(row["name"], {"methods": {}})["methods"]
        practical = other.get(base_name())
        lines.append(f"| {row['name']} | {fmt(practical) if practical else 'not run'} "
                     f"| {fmt(other[AIM]) if AIM in other else 'not run'} | {cpu(row['methods'][PGM])} "
                     f"| {cpu(row['methods'][PGM_PURE])} |")
    return "\n".join(lines)


# --- AIM (smartnoise_worker.py's packaged AIM): its own rows, seeds, time limit and file --------------------------
AIM_RESULTS = HERE / "results_aim.json"
AIM_PLAN = {"cancer k=2 eps=1 T=10": 5,          # row -> seeds 0..s-1 (one fit: minutes); the key row first
            "cancer k=3 eps=1 T=10": 5,
            "cancer k=2 eps=0.1 T=30": 5,
            "digits k=2 eps=1 T=10": 5}
AIM_TIME_LIMIT = 25 * 60                         # seconds per fit; a fit past it is stopped and recorded as such
AIM_NICE = 10
AIM_SEEDS = ("seed r seeds numpy's global generator (AIM's selections) and the dpbook methods; AIM's Gaussian "
             "measurements are drawn by OpenDP from OS randomness, so a seed does not reproduce an AIM fit")
AIM_BESIDE = (base_name(),)    # the dpbook method run in the same repeats (time ratios); adaptive_marginals beside
#                               AIM is read from results.json (its estimator changed after the AIM fits were made)


class AimWorker(PeerWorker):
    """``smartnoise_worker.py`` (its AIM) in the peers' environment at ``nice -n 10``, JAX on one thread; a fit
    that does not reply within ``limit`` seconds is stopped (the worker process is killed and restarted)."""

    def __init__(self, python=PEER_PYTHON, script="smartnoise_worker.py"):
        self.python, self.script = python, script
        super().__init__(script, "AIM", python, prefix=("nice", "-n", str(AIM_NICE)), env={**os.environ, **ONE_THREAD})

    def fit(self, rows_path, k, epsilon, seed, limit):
        """``(reply, {name: array})``, or ``None`` when the fit is still running after ``limit`` seconds."""
        import select
        out = os.path.join(self.tmp.name, "out.npz")
        self.proc.stdin.write(json.dumps(dict(rows=str(rows_path), k=k, epsilon=epsilon, delta=DELTA, seed=seed,
                                              T=0, split=None, method="aim", out=out)) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], limit)
        if not ready:                              # past the limit: stop this worker, start a fresh one
            self.cpu_at_stop = _cpu_seconds(self.proc.pid)
            self.proc.kill()
            self.proc.wait()
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.tmp.cleanup()
            PeerWorker.__init__(self, self.script, "AIM", self.python, prefix=("nice", "-n", str(AIM_NICE)),
                                env={**os.environ, **ONE_THREAD})
            return None
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"AIM failed: {reply['error']}")
        with np.load(out) as npz:
            return reply, {key: npz[key] for key in npz.files}


def _cpu_seconds(pid):
    """CPU seconds (user + system) a running process has used so far (Linux ``/proc``), or None."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _limit_text(limit) -> str:
    return f"did not finish in {limit / 60:g} min"


def aim_seed(spec, seed, worker, tmp, limit=AIM_TIME_LIMIT) -> dict:
    """One interleaved repeat of an AIM row: the dpbook methods of ``AIM_BESIDE`` with ``seed`` (wall and CPU
    seconds, errors), then AIM with ``seed``; AIM's entry is its errors and seconds, ``{"did_not_finish": ...}``
    past ``limit`` seconds, or ``{"error": ...}`` when the fit failed."""
    name, data, k, epsilon, T = spec
    rows, x = load(data)
    W = k_way_marginals(rows.shape[1], k)
    true = W.answers(x)
    rows_path = pathlib.Path(tmp) / f"{data}.npy"
    np.save(rows_path, rows)
    out = {"seed": seed}
    for m in AIM_BESIDE:
        cpu = time.process_time()
        seconds, answers = dpbook_run(m, x, W, epsilon, T, seed=seed)
        e = errors(answers, true)
        out[m] = {"seconds": seconds, "cpu_seconds": time.process_time() - cpu, "max_error": e[0], "mean_error": e[1]}
    try:
        fitted = worker.fit(rows_path, k, epsilon, seed, limit)
    except RuntimeError as exc:
        out[AIM] = {"error": str(exc)}
        return out
    if fitted is None:
        out[AIM] = {"did_not_finish": _limit_text(limit), "time_limit_seconds": limit,
                    "cpu_seconds_at_stop": getattr(worker, "cpu_at_stop", None)}
        return out
    reply, npz = fitted
    answers = np.concatenate([npz[f"marg{j}"] for j in range(len(npz))])
    if answers.size != W.m:
        out[AIM] = {"error": f"AIM returned {answers.size} cells, the workload has {W.m}"}
        return out
    e = errors(answers, true)
    out[AIM] = {"seconds": reply["seconds"], "cpu_seconds": reply["cpu_seconds"], "max_error": e[0],
                "mean_error": e[1], "rho": reply["rho"]}
    return out


def aim_summary(row: dict) -> dict:
    """``row`` (one row of results_aim.json: its ``runs``, one per seed) with ``methods`` (results.json's schema:
    per-seed lists, medians, time ratios to ``mwem_practical`` taken within each repeat, CPU too) and ``status``
    recomputed from the runs.  AIM's medians are over the seeds whose fit finished; ``status`` says what the others
    did."""
    runs = row["runs"]
    ok = [r for r in runs if "max_error" in r[AIM]]
    base = base_name()
    methods = {}
    for m in (*AIM_BESIDE, AIM):
        use = ok if m == AIM else runs
        rec = {key: [r[m][key] for r in use] for key in ("seconds", "cpu_seconds", "max_error", "mean_error")}
        rec["seeds"] = [r["seed"] for r in use]
        if use:
            for key in ("seconds", "cpu_seconds", "max_error", "mean_error"):
                rec[f"median_{key}"] = float(np.median(rec[key]))
            rec["median_time_ratio_to_practical"] = float(np.median([r[m]["seconds"] / r[base]["seconds"] for r in use]))
            rec["median_cpu_ratio_to_practical"] = float(np.median([r[m]["cpu_seconds"] / r[base]["cpu_seconds"]
                                                                    for r in use]))
            rec["median_time_ratio_to_practical_in_its_run"] = rec["median_time_ratio_to_practical"]
        methods[m] = rec
    methods[AIM]["settings"] = {"call": "snsynth.aim.AIMSynthesizer(epsilon, delta, degree=k).AIM(data, k-way "
                                "workload)", "epsilon": row["epsilon"], "delta": DELTA,
                                "rho": ok[0][AIM]["rho"] if ok else None, "rounds": "16 d (its default)",
                                "max_model_size": 80, "nice": AIM_NICE, "threads": 1,
                                "time_limit_seconds": row["time_limit_seconds"]}
    for m in AIM_BESIDE:
        fn, kw = DPBOOK_METHODS[m]
        methods[m]["settings"] = {"call": f"{fn.__module__}.{fn.__name__}", **_defaults(fn), **kw,
                                  "epsilon": row["epsilon"], **_rounds(fn, row["T"])}
    dnf = [r["seed"] for r in runs if "did_not_finish" in r[AIM]]
    failed = {str(r["seed"]): r[AIM]["error"] for r in runs if "error" in r[AIM]}     # JSON's keys: strings
    status = "ok" if len(ok) == len(runs) and runs else \
        "; ".join(([f"{_limit_text(row['time_limit_seconds'])} (seeds {dnf})"] if dnf else []) +
                  ([f"failed (seeds {sorted(map(int, failed))})"] if failed else []) + ([] if runs else ["not run"]))
    return {**row, "methods": methods, "status": status, "errors": failed}


def run_aim(plan=None, out=AIM_RESULTS, limit=AIM_TIME_LIMIT, python=PEER_PYTHON, worker=None):
    """AIM on the rows of ``plan`` ({row name: seeds}, default ``AIM_PLAN``) into ``out``
    (``python -m benchmarks.peers.run --aim``), one fit at a time; the file is rewritten after every fit, and a run
    resumes it: the seeds already stored for a row are not run again."""
    plan = AIM_PLAN if plan is None else plan
    own = worker is None
    worker = AimWorker(python) if own else worker
    result = json.loads(pathlib.Path(out).read_text()) if pathlib.Path(out).exists() else {"rows": []}
    stored = {row["name"]: row for row in result["rows"]}
    start, version = time.perf_counter(), git_hash()           # the code that runs, even if HEAD moves meanwhile
    try:
        result.update(schema=1, delta=DELTA, peer_versions=worker.request(method="versions")["versions"],
                      error="max and mean over every cell of the k-way workload, |released − true| / n, medians "
                      "over the seeds whose AIM fit finished", time="wall clock and CPU seconds of the fit (AIM: in "
                      f"its worker at nice {AIM_NICE} on one thread, JAX compilation included); ratios to dpbook "
                      "mwem_practical taken within each repeat (seed r runs the dpbook methods, then AIM)",
                      machine=f"{platform.machine()}, {os.cpu_count()} cores, shared and loaded; one AIM fit at a "
                      "time", python=platform.python_version(), numpy=np.__version__, seeds=AIM_SEEDS)
        with tempfile.TemporaryDirectory() as tmp:
            for name, seeds in plan.items():
                spec = next(s for s in ROWS if s[0] == name)
                _, data, k, epsilon, T = spec
                row = stored.get(name) or {"name": name, "data": data, "k": k, "epsilon": epsilon, "T": T,
                                           "time_limit_seconds": limit, "runs": []}
                stored[name] = row
                done = {r["seed"] for r in row["runs"]}
                for seed in [s for s in range(seeds) if s not in done]:
                    row["runs"].append(aim_seed(spec, seed, worker, tmp, limit))
                    row["runs"].sort(key=lambda r: r["seed"])
                    rows_, x = load(data)
                    row.update(d=rows_.shape[1], n=rows_.shape[0], cells=k_way_marginals(rows_.shape[1], k).m)
                    stored[name] = aim_summary(row)
                    result["rows"] = [stored[spec[0]] for spec in ROWS if spec[0] in stored]    # the table's order
                    result.update(date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), code_version=version,
                                  load=_load())
                    pathlib.Path(out).write_text(json.dumps(result, indent=1) + "\n")
                    print(f"{name} seed {seed}: {stored[name]['runs'][-1][AIM]} at {time.perf_counter() - start:.0f} "
                          "s", file=sys.stderr, flush=True)
                    if "did_not_finish" in stored[name]["runs"][-1][AIM]:
                        break                      # a row past the limit once is not tried with more seeds
                    row = stored[name]
    finally:
        if own:
            worker.close()
    return result


def with_aim(result: dict, aim: dict | None = None) -> dict:
    """``result`` (results.json's layout) with AIM's column read from results_aim.json (``aim``; read from the file
    when None, ``result`` unchanged when the file does not exist): on every row of the AIM file whose fit finished
    for some seed, its AIM entry replaces the stored one (and the row's ``successor_goal`` is recomputed); a row
    whose fits did not finish or failed has no AIM entry and carries ``aim_status``."""
    if aim is None:
        if not AIM_RESULTS.exists():
            return result
        aim = json.loads(AIM_RESULTS.read_text())

    def aim_column(row, new):
        methods = {m: r for m, r in row["methods"].items() if m != AIM}
        row = {**row, "methods": methods, "aim_status": new["status"]}
        if new["methods"][AIM]["seeds"]:
            methods[AIM] = {**new["methods"][AIM], "source": AIM_RESULTS.name}
        return _goals(row)

    return {**result, "rows": _update_rows(result["rows"], aim["rows"], aim_column),
            "aim": {key: aim.get(key) for key in ("date", "code_version", "peer_versions")}}


def _update_rows(rows, others, update):
    """``rows`` with every row that ``others`` holds (by name) replaced by ``update(row, other)``, in their order."""
    by_name = {other["name"]: other for other in others}
    return [row if row["name"] not in by_name else update(row, by_name[row["name"]]) for row in rows]


def aim_cell(row: dict) -> str:
    """AIM's cell of the main table: ×ratio, max / mean error (and its seeds), or why there is no number."""
    aim = row["methods"].get(AIM)
    if aim is None:
        return row.get("aim_status", "not run")
    seeds = aim.get("seeds")
    note = f" ({len(seeds)} seed{'s' if len(seeds) != 1 else ''})" if seeds is not None else " (1 seed, stored run)"
    if row.get("aim_status", "ok") != "ok":
        note += f"; {row['aim_status']}"
    return (f"×{aim['median_time_ratio_to_practical']:.3g}, {aim['median_max_error']:.3f} / "
            f"{aim['median_mean_error']:.4f}{note}")


def aim_table(aim: dict) -> str:
    """results_aim.json per row: seeds, AIM's CPU and wall seconds (CPU ratio to ``mwem_practical`` in the same
    repeats), AIM's and the dpbook methods' max / mean error, and the row's status."""
    lines = [f"AIM (smartnoise-synth, ε, δ = {aim.get('delta', DELTA):g}); medians over seeds; CPU ratio to "
             "mwem_practical within each repeat",
             f"| row | seeds | AIM CPU s (×CPU ratio), wall s | AIM max / mean | {' | '.join(AIM_BESIDE)} | status |",
             "|---|---|---|---|" + "---|" * len(AIM_BESIDE) + "---|"]
    err = lambda m: f"{m['median_max_error']:.3f} / {m['median_mean_error']:.4f}" if m.get("seeds") else "—"
    for row in aim["rows"]:
        a = row["methods"][AIM]
        time_ = (f"{a['median_cpu_seconds']:.3g} (×{a['median_cpu_ratio_to_practical']:.3g}), "
                 f"{a['median_seconds']:.3g}") if a["seeds"] else "—"
        lines.append(f"| {row['name']} | {[r['seed'] for r in row['runs']]} | {time_} | {err(a)} | "
                     + " | ".join(err(row["methods"][m]) for m in AIM_BESIDE) + f" | {row['status']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
