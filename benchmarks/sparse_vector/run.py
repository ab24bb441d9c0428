"""Chapter 06's heavy audits, stored: the sparse-vector audits that need 2·10^5–5·10^5 runs per side.

Chapter 06 (§7) audits five broken sparse-vector variants and the correct mechanisms on the same pairs
(:data:`dpbook.audit.cases.sparse_vector.CATCHING_PAIRS`) at a claim of ε = 2.  Three of those audits are cheap
and the chapter runs them live; the two slow leaks (the re-noised threshold, the released noisy value) and the
correct AboveThreshold on the halting pattern need 2·10^5–5·10^5 runs per side (seconds each), and so does
Solution 4's audit at ε = 1 (4·10^5 runs per side), so their results are read from ``results.json``, written by
this script.  Each stored audit draws from its own seed ``[SEED, i]``,
so any one of them can be recomputed alone (``tests/test_sparse_vector.py`` recomputes the halting audit and
compares it with the file).

Usage: ``python -m benchmarks.sparse_vector.run [--out PATH]``.
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
from benchmarks._stored import git_hash

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
SEED = 2026
EPSILON = 2.0
#: runs per side of each pair's audits (the chapter's §7); the first two pairs and the halting pattern are stored
TRIALS = {"above_threshold_renoise_threshold": 200_000, "above_threshold_outputs_value": 500_000,
          "above_threshold_no_query_noise": 5_000, "sparse_vector_unscaled_noise": 20_000,
          "above_threshold_no_halt": 10_000}
HALTING_TRIALS = 200_000
#: Solution 4's audit at a claim of ε = 1: ``j`` queries at τ - s (D) vs τ - s + 1 (D'), event "first j answers ⊥",
#: ``trials`` runs per side (twice the 2·10^5 the chapter's plan finds sufficient in expectation)
CATCH = {"epsilon": 1.0, "s": 1, "j": 10, "trials": 400_000}
STORED = ("above_threshold_renoise_threshold", "above_threshold_outputs_value")
FIELDS = ("epsilon_lb", "event", "hits", "hits_prime", "trials", "alpha", "delta")


def stored_cases() -> list:
    """The audit cases whose results the file holds, in the chapter's order: (correct, broken) for each pair of
    :data:`STORED`, then the correct AboveThreshold on ``halting_pair(8)``, then Solution 4's two audits (:data:`CATCH`)."""
    from dpbook.broken import sparse_vector as broken
    from dpbook.sparse_vector import above_threshold_stream, numeric_sparse_stream
    correct = {"above_threshold_outputs_value": numeric_sparse_stream}
    cases = [broken.stream_audit_case(mechanism, broken.CATCHING_PAIRS[name], epsilon=EPSILON, trials=TRIALS[name])
             for name in STORED for mechanism in (correct.get(name, above_threshold_stream), getattr(broken, name))]
    cases.append(broken.stream_audit_case(above_threshold_stream, broken.halting_pair(8), epsilon=EPSILON,
                                          trials=HALTING_TRIALS))
    from dpbook.sparse_vector import BOTTOM
    j, s = CATCH["j"], CATCH["s"]
    pair = broken.StreamPair(f"{j} queries at τ-{s} (D) vs τ-{s - 1} (D')", np.full(j, -float(s)), np.full(j, 1.0 - s),
                             {f"first {j} answers ⊥": lambda rel: np.all(rel.answers == BOTTOM, axis=1)})
    return cases + [broken.stream_audit_case(mechanism, pair, epsilon=CATCH["epsilon"], trials=CATCH["trials"])
                    for mechanism in (above_threshold_stream, broken.above_threshold_renoise_threshold)]


def run_case(index: int) -> dict:
    """The audit ``stored_cases()[index]`` with its own seed ``[SEED, index]``: name, kind, seed and the result."""
    case = stored_cases()[index]
    result = case.run(np.random.default_rng([SEED, index]))
    return dict(name=case.name, kind=case.kind, seed=[SEED, index], **{k: getattr(result, k) for k in FIELDS})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    audits = [run_case(i) for i in range(len(stored_cases()))]
    result = {"schema": 1, "code_version": git_hash(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "command": "python -m benchmarks.sparse_vector.run", "seed": SEED, "epsilon": EPSILON,
              "trials": TRIALS, "halting_trials": HALTING_TRIALS, "catch": CATCH, "stored": list(STORED), "audits": audits,
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared", "python": platform.python_version(),
              "numpy": np.__version__, "total_seconds": time.perf_counter() - start}
    pathlib.Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(audits)} audits in {result['total_seconds']:.0f} s -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
