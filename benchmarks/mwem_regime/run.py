"""Chapter 09's stored sweep (section 5): MWEM as specified, the practical MWEM, the noisy histogram and the uniform
guess on the 3-way marginals of the first ``d`` digit pixels, over ``d`` at all 1,797 images and over ``n`` at
``d = 10`` — each point from its own seed (:func:`dpbook.comparisons.mwem.regime_errors`), the seeds the chapter used
when it ran the sweep live.

The chapter runs one point live (and checks it against its stored row) and reads the rest from
``benchmarks/mwem_regime/results.json``; ``tests/test_comparisons_mwem.py`` recomputes cheap points and checks they
agree with the file, so it cannot go stale silently.

Usage: ``python -m benchmarks.mwem_regime.run [--out PATH]`` (about 2 s of CPU).
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

from dpbook.comparisons.mwem import RESULTS_FILE, regime_errors
from benchmarks._stored import git_hash

SEED = 2026
#: over d (pixels) at all N_ALL images, seeds SEED + i; over n at D_N pixels, seeds SEED + 20 + j
D_GRID, N_GRID, N_ALL, D_N = (8, 10, 12, 16), (225, 450, 900, 1797), 1797, 10
#: regime_errors' settings (its defaults, written out): ε, runs per point, MWEM's rounds, the practical variant's
SETTINGS = dict(epsilon=1.0, trials=2, T=30, practical_T=10, practical_replay=3)


def points():
    """``(table, d, n, seed)`` for every point of the sweep, in the chapter's order."""
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
    result = {"schema": 1, "code_version": git_hash(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "seed": f"point i of by_d: {SEED} + i; point j of by_n: {SEED} + 20 + j",
              "d_grid": list(D_GRID), "n_grid": list(N_GRID), "n_all": N_ALL, "d_n": D_N, "settings": SETTINGS,
              "error": "max over all 3-way marginal cells (normalised answers), per run",
              "by_d": [], "by_n": []}
    for table, d, n, seed in points():
        result[table].append(run_point(d, n, seed))
    result.update(machine=f"{platform.machine()}, {os.cpu_count()} cores, shared", python=platform.python_version(),
                  numpy=np.__version__, cpu_seconds=round(time.process_time() - start, 2))
    pathlib.Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(result['by_d']) + len(result['by_n'])} points in {result['cpu_seconds']:.1f} s CPU -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
