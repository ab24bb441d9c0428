"""The audit catalogue, run once and stored: every case of :func:`dpbook.audit.audit_cases` at its own ``trials``,
seeded with its own :attr:`dpbook.audit.AuditCase.seed` — exactly the runs of ``tests/test_audits.py`` — so that
chapter 17 reads the catalogue's table (:func:`dpbook.audit.stored_audits`) instead of repeating ~100 audits.

For each case the file records its claim, trials, seed, the best event's ``epsilon_lb`` and hit counts, and the
seconds the audit took; with the code version, date, machine, Python and numpy versions.  ``tests/test_audits_stored.py``
recomputes the cheap cases from their seeds and checks that they agree with the file (and the loader refuses a file
that no longer matches the catalogue), so the file cannot go stale silently.

Usage: ``python -m benchmarks.audits.run [--out PATH] [--missing]``.  ``--missing`` keeps the records of the file
that still match the catalogue (name, kind, claim, trials, seed) and runs only the cases that are new or changed
(dropping those no longer in the catalogue); the file's provenance stays that of its full run, and each such
update is listed under ``updates`` (code version, date, the cases run).  The full run is the reference.
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

from dpbook.audit import audit_cases
from dpbook.audit.catalogue import STORED_SCHEMA
from benchmarks._stored import git_hash

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
ALPHA = 1e-6


def run_case(case) -> dict:
    """One case at its own trials and seed: the record the file stores."""
    start = time.process_time()
    res = case.run(case.seed, alpha=ALPHA)
    return {"name": case.name, "kind": case.kind, "target": case.target, "epsilon": case.epsilon,
            "delta": case.delta, "trials": res.trials, "seed": case.seed, "alpha": res.alpha,
            "epsilon_lb": res.epsilon_lb, "event": res.event, "hits": res.hits, "hits_prime": res.hits_prime,
            "cpu_seconds": round(time.process_time() - start, 3)}


def still_matches(record, case) -> bool:
    """A stored record is the case's run now: same name, kind, claim (reals to 1e-12), trials and seed."""
    def same(stored, now):
        if isinstance(now, float) and isinstance(stored, (int, float)) and not isinstance(stored, bool):
            return math.isclose(stored, now, rel_tol=1e-12, abs_tol=0.0)
        return stored == now
    return (all(same(record.get(f), getattr(case, f)) for f in ("name", "kind", "epsilon", "delta", "trials"))
            and record.get("seed") == case.seed)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--missing", action="store_true",
                        help="run only the cases the file at --out lacks or no longer matches; keep the others")
    args = parser.parse_args(argv)
    from dpbook.audit import audit_case_names
    start = time.perf_counter()
    out = pathlib.Path(args.out)
    old = json.loads(out.read_text()) if args.missing and out.exists() else None      # no file: the full run
    cases, ran = {}, []
    keys = audit_case_names()
    for i, key in enumerate(keys):
        (case,) = audit_cases(names=[key])
        if old is not None and key in old["cases"] and still_matches(old["cases"][key], case):
            cases[key] = old["cases"][key]
            continue
        cases[key] = run_case(case)
        ran.append(key)
        print(f"[{i + 1}/{len(keys)}] {key}: eps_lb {cases[key]['epsilon_lb']:.3f} "
              f"({cases[key]['cpu_seconds']:.2f} s)", file=sys.stderr, flush=True)
    if old is not None:
        old["cases"] = cases
        old.setdefault("updates", []).append({
            "code_version": git_hash(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "cases": ran, "seconds": round(time.perf_counter() - start, 1)})
        pathlib.Path(args.out).write_text(json.dumps(old, indent=1, ensure_ascii=False) + "\n")
        print(f"{len(ran)} of {len(cases)} audits run -> {args.out}", file=sys.stderr)
        return
    result = {"schema": STORED_SCHEMA, "code_version": git_hash(),
              "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "seed": "each case's own: CRC-32 of its name (AuditCase.seed), as tests/test_audits.py",
              "alpha": ALPHA, "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared",
              "python": platform.python_version(), "numpy": np.__version__, "cases": cases}
    result["total_seconds"] = round(time.perf_counter() - start, 1)
    pathlib.Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(cases)} audits in {result['total_seconds']:.0f} s -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
