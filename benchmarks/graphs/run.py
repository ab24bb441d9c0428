"""Chapter 14's stored sweeps: the online IDCs on cut queries over edge densities (section 5) and the offline
Iterative Construction over ε (section 7), each setting from its own seed (:mod:`dpbook.comparisons.graphs`).

The chapter runs one setting of each live and reads the rest from ``benchmarks/graphs/results.json``;
``tests/test_comparisons_graphs.py`` recomputes a cheap setting of each and checks it agrees with the file.

Usage: ``python -m benchmarks.graphs.run [--out PATH]`` (about 5 s of CPU).
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

from dpbook.comparisons.graphs import RESULTS_FILE, ic_cut_comparison, online_cut_comparison
from benchmarks._stored import git_hash

HERE = pathlib.Path(__file__).resolve().parent
SEED = 2026
#: section 5: G(40, p) at these densities, 300 random disjoint cuts, MW and FK at α = 0.05, pure ε = 16 with c = 8
DENSITIES = (0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9)
ONLINE = dict(num_vertices=40, m=300, alpha=0.05, epsilon=16.0, c=8, trials=10, baseline_epsilon=1.0)
#: section 7: a planted partition on 8 vertices (0.9 / 0.1), IC with MW at α = 0.3 capped at 6 rounds, 8 runs
EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
IC = dict(num_vertices=8, p_in=0.9, p_out=0.1, alpha=0.3, rounds=6, runs=8, beta=0.05)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(RESULTS_FILE))
    args = parser.parse_args(argv)
    import scipy
    start = time.process_time()
    online = [online_cut_comparison(p, seed=SEED, **ONLINE) for p in DENSITIES]
    ic = [ic_cut_comparison(e, seed=SEED, **IC) for e in EPSILONS]
    result = {"schema": 1, "code_version": git_hash(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "seed": SEED, "densities": list(DENSITIES), "online_settings": ONLINE, "epsilons": list(EPSILONS),
              "ic_settings": IC, "online": online, "ic": ic,
              "error": "max over the queries (online) or over all 4^V cuts, exactly (IC), in edges",
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared", "python": platform.python_version(),
              "numpy": np.__version__, "scipy": scipy.__version__}
    result["cpu_seconds"] = time.process_time() - start
    pathlib.Path(args.out).write_text(json.dumps(result, indent=0) + "\n")
    print(f"{len(online)} densities, {len(ic)} epsilons in {result['cpu_seconds']:.1f} s CPU -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
