"""Chapter 09's stored sweeps, each part from the seed the chapter used when it ran it live:

* ``regime`` (section 5): MWEM as specified, the practical MWEM, the noisy histogram and the uniform guess on the
  3-way marginals of the first ``d`` digit pixels, over ``d`` at all 1,797 images and over ``n`` at ``d = 10``,
  each point from its own seed (:func:`dpbook.comparisons.mwem.regime_errors`);
* ``rounds`` (section 4): MWEM against its rounds on cancer bootstrapped to 10^5 rows (:func:`rounds_sweep`);
* ``growth`` (section 4): MWEM, per-query Laplace and the noisy histogram on the k-way cells, k = 1..4, of cancer
  bootstrapped to 5,000 rows (:func:`workload_growth`);
* ``ablation`` (section 8): the practical MWEM's changes one at a time (:func:`practical_ablation`).

The chapter re-runs a cheap part of each live (and checks it against the file) and reads the rest from
``benchmarks/mwem_sweeps/results.json``; ``tests/test_comparisons_mwem.py`` recomputes cheap parts and checks they
agree with the file, so it cannot go stale silently.

Usage: ``python -m benchmarks.mwem_sweeps.run [--out PATH]`` (about 4 s of CPU).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import sys
import time
from datetime import datetime, timezone

import numpy as np

from dpbook.comparisons.mwem import (RESULTS_FILE, practical_ablation, regime_errors, rounds_sweep,
                                     workload_growth)
from benchmarks._stored import git_hash

SEED = 2026
#: regime: over d (pixels) at all N_ALL images, seeds SEED + i; over n at D_N pixels, seeds SEED + 20 + j
D_GRID, N_GRID, N_ALL, D_N = (8, 10, 12, 16), (225, 450, 900, 1797), 1797, 10
#: regime_errors' settings (its defaults, written out): ε, runs per point, MWEM's rounds, the practical variant's
SETTINGS = dict(epsilon=1.0, trials=2, T=30, practical_T=10, practical_replay=3)
#: rounds: cancer bootstrapped to ROUNDS_N rows, seed SEED + ROUNDS_N
ROUNDS_N, ROUNDS = 100_000, dict(T_grid=[5, 20, 50, 200], epsilon=1.0, trials=3)
#: growth: cancer bootstrapped to GROWTH_N rows, seed SEED + 5
GROWTH_N, GROWTH = 5_000, dict(ks=[1, 2, 3, 4], epsilon=1.0, T=20, trials=3, baseline_trials=8)
#: ablation: the practical MWEM's changes, one at a time, seed SEED + 9 (the last is mwem_practical's default)
ABLATION = dict(T=10, epsilon=1.0, trials=5)
VARIANTS = {"theorem (cell, average)": dict(measure="cell", output="average", replay=0, exclude_measured=False),
            "+ whole marginal": dict(output="average", replay=0, exclude_measured=False),
            "+ last iterate": dict(replay=0, exclude_measured=False),
            "+ replay, no re-select\n(the default)": dict()}


def points():
    """``(table, d, n, seed)`` for every point of the regime sweep, in the chapter's order."""
    return ([("by_d", d, N_ALL, SEED + i) for i, d in enumerate(D_GRID)]
            + [("by_n", D_N, n, SEED + 20 + j) for j, n in enumerate(N_GRID)])


def run_point(d, n, seed) -> dict:
    errors = regime_errors(d, n, rng=seed, **SETTINGS)
    return {"d": d, "n": n, "seed": seed, "errors": {name: [float(v) for v in e] for name, e in errors.items()}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(RESULTS_FILE))
    args = parser.parse_args(argv)
    start = time.process_time()
    regime = {"d_grid": list(D_GRID), "n_grid": list(N_GRID), "n_all": N_ALL, "d_n": D_N, "settings": SETTINGS,
              "seed": f"point i of by_d: {SEED} + i; point j of by_n: {SEED} + 20 + j", "by_d": [], "by_n": []}
    for table, d, n, seed in points():
        regime[table].append(run_point(d, n, seed))
    result = {"schema": 1, "code_version": git_hash(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "error": "max over the workload's normalised answers, per run (ablation: also the mean)",
              "regime": regime,
              "rounds": {"n": ROUNDS_N, "seed": SEED + ROUNDS_N, "settings": ROUNDS,
                         "result": rounds_sweep(ROUNDS_N, rng=SEED + ROUNDS_N, **ROUNDS)},
              "growth": {"n": GROWTH_N, "seed": SEED + 5, "settings": GROWTH,
                         "result": workload_growth(GROWTH_N, rng=SEED + 5, **GROWTH)},
              "ablation": {"seed": SEED + 9, "settings": ABLATION, "variants": VARIANTS,
                           "result": practical_ablation(VARIANTS, rng=SEED + 9, **ABLATION)}}
    result.update(machine=f"{platform.machine()}, {os.cpu_count()} cores, shared", python=platform.python_version(),
                  numpy=np.__version__, cpu_seconds=round(time.process_time() - start, 2))
    pathlib.Path(args.out).write_text(json.dumps(result, indent=0) + "\n")
    print(f"stored in {result['cpu_seconds']:.1f} s CPU -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
