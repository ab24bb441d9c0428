"""The arena: every mechanism of the book on one grid of workloads, database sizes and budgets (``make arena``).

For each cell (workload, n, ε) of :data:`GRID` every mechanism that applies is run ``TRIALS`` times with seeded
noise, and its max error ``max_q |a_q − q(x)|`` and RMS error ``sqrt(mean_q (a_q − q(x))²)`` (normalised answers)
are recorded per trial, with the wall time of one release and the theorem's bound where the registry has one
(β = 0.05; a max-error bound for every mechanism except the projection mechanism, whose theorem bounds the RMS
error).  The uniform guess (:func:`dpbook.experiments.uniform_guess_error`) is recorded for every cell.

Data: the book's cancer table (569 rows, d = 11, |X| = 2048).  n = 569 is the real table; every larger n is a
**seeded resample** of it (:func:`dpbook.data.bootstrap`, seed ``[SEED, n]``) — the same distribution, more rows.
Neighbours: add/remove with the public n for every mechanism except randomized response (one private attribute,
the others public: a different guarantee, recorded but never on the map).  Mechanisms that spend δ (the per-query
Gaussian, the projection mechanism, the online IDC) run at δ = ``DELTA``; the Gaussian steps use the analytic
calibration (Balle–Wang) so that ε ≥ 1 is allowed.  Sensitivities are the workloads' exact ones.

Usage: ``python -m benchmarks.arena.run [--out PATH] [--quick]``; ``--quick`` runs the slice the test recomputes.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import platform
import sys
import time
from datetime import datetime, timezone

import numpy as np

from dpbook.data import bootstrap, histogram, load_cancer, project_histogram
from dpbook.experiments import uniform_guess_error
from dpbook.gaussian import gaussian_mechanism
from dpbook.histogram import histogram_mechanism
from dpbook.idc import MultiplicativeWeightsIDC, online_idc_sv
from dpbook.laplace import laplace_mechanism
from dpbook.mwem import mwem, mwem_practical
from dpbook.projection import projection_mechanism
from dpbook.queries import k_way_marginals, random_queries, range_queries
from dpbook.randomized_response import rr_mechanism
from dpbook.smalldb import smalldb
from dpbook.theory.gaussian import analytic_gaussian_sigma, gaussian_max_error_bound
from dpbook.theory.histogram import histogram_error_bound_general
from dpbook.theory.idc import sv_best_error_bound
from dpbook.theory.laplace import laplace_max_error_bound
from dpbook.theory.mwem import hlm_error_bound, hlm_optimal_rounds
from dpbook.theory.projection import gaussian_width_bound, thm9_rms_bound
from dpbook.theory.randomized_response import rr_error_bound
from dpbook.theory.smalldb import thm45_error_bound
from benchmarks._stored import git_hash

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
SEED = 2026
DELTA = 1e-6
BETA = 0.05
TRIALS = 8
HEAVY_TRIALS = 3                 # the projection mechanism, the practical MWEM and the online IDC (time)
HEAVY = {"projection", "mwem_practical", "idc_mw"}
PRACTICAL_T = 10                 # the practical MWEM's rounds (the peers' setting at eps = 1)
NS = (569, 10_000, 100_000, 1_000_000)
EPSILONS = (0.1, 1.0, 10.0)
# (name, family, m): marginals of the 11 attributes, random counting queries, random ranges of the ordered universe
WORKLOADS = (("1-way marginals", "marginals", 22), ("2-way marginals", "marginals", 220),
             ("3-way marginals", "marginals", 1320), ("random m=10", "random", 10), ("random m=100", "random", 100),
             ("random m=1000", "random", 1000), ("ranges m=10", "ranges", 10), ("ranges m=100", "ranges", 100),
             ("ranges m=1000", "ranges", 1000))
#: the grid: the (n, m) plane at ε = 1 for every workload, and the ε axis at n = 10^4 for every workload
GRID = [(w, n, 1.0) for w in range(len(WORKLOADS)) for n in NS] + \
    [(w, NS[1], e) for w in range(len(WORKLOADS)) for e in EPSILONS if e != 1.0]
#: time vs |X|: the 2-way marginals of the first d attributes of the table (d <= 11) and of the digits (d = 16)
TIME_DS = (5, 8, 11, 16)
#: the small-universe cells where SmallDB runs: 3 attributes of the table (|X| = 8), their 1- and 2-way marginals
SMALL_ATTRIBUTES = (0, 1, 10)
SMALLDB_ALPHA = 0.5
MAX_T = 40                       # MWEM's rounds: the bound's optimum, capped (time)
#: which mechanisms spend δ, and which guarantee each gives (for the map: only "add/remove" ones compete)
SPENDS_DELTA = {"gaussian", "projection", "idc_mw"}
QUICK = [(1, 0, 1), (3, 1, 1)]   # (workload index, n index, ε index): the slice the test recomputes


def data(n: int) -> np.ndarray:
    """The cancer histogram over {0,1}^11: the real table at n = 569, a seeded resample of it otherwise."""
    x = histogram(load_cancer().table() @ (1 << np.arange(10, -1, -1)), 2048)
    return x if n == int(x.sum()) else bootstrap(x, n, np.random.default_rng([SEED, n]))


def workload(index: int):
    name, family, m = WORKLOADS[index]
    if family == "marginals":
        return k_way_marginals(11, int(name[0]))
    rng = np.random.default_rng([SEED, 7, m])
    return random_queries(m, 2048, rng) if family == "random" else range_queries(2048, m, rng)


def mwem_rounds(n, N, m, epsilon) -> int:
    return int(min(MAX_T, max(1, round(hlm_optimal_rounds(n, N, max(m, 2), epsilon)))))


def mechanisms(W, family, n, epsilon):
    """name -> (run(x, trials, rng) -> answers (trials, m), bound or None, metric of the bound)."""
    N, m = W.N, W.m
    l1, l2 = W.l1_sensitivity(), W.l2_sensitivity()
    T = mwem_rounds(n, N, m, epsilon)
    out = {
        "laplace": (lambda x, R, g: laplace_mechanism(x, W, epsilon=epsilon, n=n, trials=R, rng=g).answers,
                    laplace_max_error_bound(m, BETA, l1, epsilon) / n, "max"),
        "gaussian": (lambda x, R, g: gaussian_mechanism(x, W, epsilon=epsilon, delta=DELTA, n=n, calibration="analytic",
                                                        trials=R, rng=g).answers,
                     gaussian_max_error_bound(m, BETA, analytic_gaussian_sigma(l2, epsilon, DELTA)) / n, "max"),
        "histogram": (lambda x, R, g: histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=R, rng=g).answers,
                      histogram_error_bound_general(N, m, BETA, epsilon, n=n), "max"),
        "mwem": (lambda x, R, g: mwem(x, W, epsilon=epsilon, T=T, n=n, trials=R, rng=g).answers,
                 hlm_error_bound(n, N, max(m, 2), T, epsilon), "max"),
    }
    if family == "marginals":      # the practical MWEM measures whole marginals: its query class
        units = len({S for S, _ in W.cells})
        Tp = min(units, PRACTICAL_T)
        out["mwem_practical"] = (lambda x, R, g: mwem_practical(x, W, epsilon=epsilon, T=Tp, n=n, trials=R,
                                                                rng=g).answers, None, None)
        out["randomized_response"] = (lambda x, R, g: rr_mechanism(x, W, epsilon=epsilon, bit=10, trials=R,
                                                                   rng=g).answers,
                                      rr_error_bound(n, BETA, epsilon, m), "max")
    sigma = analytic_gaussian_sigma(l2, epsilon, DELTA) / n
    out["projection"] = (lambda x, R, g: projection_mechanism(x, W, epsilon=epsilon, delta=DELTA, n=n,
                                                              neighbours="add/remove", calibration="analytic",
                                                              trials=R, rng=g).answers,
                         thm9_rms_bound(sigma, gaussian_width_bound(m, N), m), "rms")
    alpha_u, idc_bound = sv_best_error_bound(N, m, BETA, epsilon, DELTA, n, tight=True)
    out["idc_mw"] = (lambda x, R, g: online_idc_sv(x, MultiplicativeWeightsIDC(N, min(alpha_u, 2.0)), W,
                                                   epsilon=epsilon, delta=DELTA, n=n, composition="tight",
                                                   trials=R, rng=g).answers, idc_bound, "max")
    return out, T


def cell_errors(answers, true):
    e = np.atleast_2d(answers) - true
    return np.abs(e).max(axis=1), np.sqrt(np.mean(e ** 2, axis=1))


def trials_for(mech, trials=TRIALS) -> int:
    return min(trials, HEAVY_TRIALS) if mech in HEAVY else trials


def run_cell(wi, n, epsilon, trials=TRIALS, seed=SEED, only=None):
    """Every mechanism on one cell: per-trial max and RMS errors, seconds per release, bounds, the uniform guess."""
    W = workload(wi)
    name, family, m = WORKLOADS[wi]
    x = data(n)
    true = W.answers(x)
    table, T = mechanisms(W, family, n, epsilon)
    out = {"workload": name, "family": family, "m": W.m, "n": n, "epsilon": epsilon, "T": T,
           "uniform": {"max": uniform_guess_error(x, W, metric="max"), "rms": uniform_guess_error(x, W, metric="rms")},
           "mechanisms": {}}
    for k, (mech, (fn, bound, metric)) in enumerate(table.items()):
        if only is not None and mech not in only:
            continue
        g = np.random.default_rng([seed, wi, n, int(round(epsilon * 1000)), k])
        R = trials_for(mech, trials)
        start = time.perf_counter()
        try:
            answers = fn(x, R, g)
        except ValueError as exc:          # a setting the mechanism refuses: recorded, never silently dropped
            out["mechanisms"][mech] = {"refused": str(exc)[:200]}
            continue
        seconds = (time.perf_counter() - start) / R
        mx, rms = cell_errors(answers, true)
        out["mechanisms"][mech] = {"max": [round(float(v), 7) for v in mx], "rms": [round(float(v), 7) for v in rms],
                                   "seconds": seconds, "bound": bound, "bound_metric": metric,
                                   "spends_delta": mech in SPENDS_DELTA,
                                   "neighbours": "one private attribute" if mech == "randomized_response"
                                   else "add/remove"}
    return out


def smalldb_cells(trials=TRIALS, seed=SEED):
    """SmallDB where it runs: 3 attributes (|X| = 8), their 2-way marginals (m = 12), against the same baselines."""
    out = []
    for n in NS[:2]:
        x = project_histogram(data(n), 11, list(SMALL_ATTRIBUTES))
        W = k_way_marginals(3, 2)
        true = W.answers(x)
        cell = {"workload": "2-way marginals of 3 attributes", "family": "small universe", "m": W.m, "n": n,
                "epsilon": 1.0, "N": W.N, "uniform": {"max": uniform_guess_error(x, W, metric="max"),
                                                      "rms": uniform_guess_error(x, W, metric="rms")},
                "mechanisms": {}}
        runs = {"smalldb": (lambda R, g: smalldb(x, W, epsilon=1.0, alpha=SMALLDB_ALPHA, trials=R, rng=g).answers,
                            thm45_error_bound(W.N, W.m, 1.0, n, BETA)),
                "histogram": (lambda R, g: histogram_mechanism(x, W, epsilon=1.0, n=n, trials=R, rng=g).answers,
                              histogram_error_bound_general(W.N, W.m, BETA, 1.0, n=n)),
                "laplace": (lambda R, g: laplace_mechanism(x, W, epsilon=1.0, n=n, trials=R, rng=g).answers,
                            laplace_max_error_bound(W.m, BETA, W.l1_sensitivity(), 1.0) / n)}
        for k, (mech, (fn, bound)) in enumerate(runs.items()):
            g = np.random.default_rng([seed, 99, n, k])
            start = time.perf_counter()
            answers = fn(trials, g)
            seconds = (time.perf_counter() - start) / trials
            mx, rms = cell_errors(answers, true)
            cell["mechanisms"][mech] = {"max": [round(float(v), 7) for v in mx],
                                        "rms": [round(float(v), 7) for v in rms], "seconds": seconds,
                                        "bound": bound, "bound_metric": "max", "spends_delta": False,
                                        "neighbours": "replace-one" if mech == "smalldb" else "add/remove"}
        out.append(cell)
    return out


def timing_cells(seed=SEED):
    """Seconds per release vs |X| = 2^d: 2-way marginals, ε = 1, the real rows (cancer's first d attributes;
    the digits at d = 16), one release per mechanism (``trials=1``)."""
    from dpbook.data import load_digits
    out = []
    for d in TIME_DS:
        if d <= 11:
            x = project_histogram(data(569), 11, list(range(d)))
        else:
            rows = load_digits().table().astype(np.int64)
            x = histogram(rows @ (1 << np.arange(d - 1, -1, -1)), 1 << d)
        n = int(x.sum())
        W = k_way_marginals(d, 2)
        table, _ = mechanisms(W, "marginals", n, 1.0)
        row = {"d": d, "N": W.N, "m": W.m, "n": n, "seconds": {}}
        for k, (mech, (fn, _, _)) in enumerate(table.items()):
            if mech == "randomized_response":          # protects attribute 10 only: not on a d-attribute table
                continue
            start = time.perf_counter()
            fn(x, 1, np.random.default_rng([seed, 55, d, k]))
            row["seconds"][mech] = time.perf_counter() - start
        out.append(row)
        print(f"timing d={d}: {row['seconds']}", file=sys.stderr, flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--quick", action="store_true", help="only the slice the test recomputes")
    args = parser.parse_args(argv)
    import scipy
    start = time.perf_counter()
    cells = []
    grid = [(wi, NS[a], EPSILONS[b]) for wi, a, b in QUICK] if args.quick else GRID
    for i, (wi, n, e) in enumerate(grid):
        cells.append(run_cell(wi, n, e))
        print(f"[{i + 1}/{len(grid)}] {WORKLOADS[wi][0]}, n={n}, eps={e}: {time.perf_counter() - start:.0f} s",
              file=sys.stderr, flush=True)
    result = {"schema": 1, "code_version": git_hash(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "seed": SEED, "trials": TRIALS, "beta": BETA, "delta": DELTA, "ns": list(NS), "epsilons": list(EPSILONS),
              "workloads": [list(w) for w in WORKLOADS],
              "data": "cancer (569 rows, d = 11, |X| = 2048); n > 569: seeded resamples (bootstrap, seed [seed, n])",
              "error": "per trial: max_q |a_q - q(x)| and sqrt(mean_q (a_q - q(x))^2), normalised answers",
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared", "python": platform.python_version(),
              "numpy": np.__version__, "scipy": scipy.__version__, "cells": cells,
              "heavy_trials": HEAVY_TRIALS, "heavy": sorted(HEAVY), "practical_T": PRACTICAL_T, "max_T": MAX_T,
              "smalldb": [] if args.quick else smalldb_cells(), "timing": [] if args.quick else timing_cells()}
    result["total_seconds"] = time.perf_counter() - start
    pathlib.Path(args.out).write_text(json.dumps(result, indent=0) + "\n")
    print(f"{len(cells)} cells in {result['total_seconds']:.0f} s -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
