"""benchmarks/audits/results.json (the audit catalogue that chapter 17 reads) against the code that made it.

The file stores every case of the catalogue run at its own trials from its own seed (the runs of
tests/test_audits.py).  Here: the loader refuses a file that no longer matches the catalogue; the cheap cases,
re-run from their seeds, agree with the file within Monte-Carlo error (and a file with one case's counts moved does
not); and the stored verdicts are the ones the chapter states.
"""
import json
import math

import pytest

from benchmarks.audits import run
from dpbook.audit import AuditResult, audit_case_names, audit_cases, stored_audits

RESULT = json.loads(run.RESULTS.read_text())
STORED = {c.name: (c, r) for c, r in stored_audits(run.RESULTS)}

def _cheapest(kinds, count):
    """The ``count`` cases of ``kinds`` with the least stored CPU time (ties by name)."""
    names = [k for k, rec in RESULT["cases"].items() if rec["kind"] in kinds and rec["cpu_seconds"] <= 0.05]
    return sorted(names, key=lambda k: (RESULT["cases"][k]["cpu_seconds"], k))[:count]


#: the cheap cases, recomputed fresh by this test: 8 mechanisms and 8 controls or findings (chosen per kind, so the
#: mix does not depend on the run times the file happened to record)
CHEAP = _cheapest({"mechanism"}, 8) + _cheapest({"control", "finding"}, 8)


def _agrees(stored: AuditResult, fresh: AuditResult, *, z: float = 5.0) -> bool:
    """Same trials and best event, and both hit counts within ``z`` binomial standard deviations (+1) of the file."""
    if stored.trials != fresh.trials or stored.event != fresh.event:
        return False
    sd = lambda k: math.sqrt(k * (1 - k / stored.trials))
    return all(abs(a - b) <= z * sd(a) + 1 for a, b in ((stored.hits, fresh.hits),
                                                        (stored.hits_prime, fresh.hits_prime)))


def test_file_records_its_provenance_and_every_case():
    assert {"schema", "code_version", "date", "seed", "alpha", "machine", "python", "numpy", "cases"} <= set(RESULT)
    assert set(RESULT["cases"]) == set(audit_case_names())
    assert len(STORED) == len(audit_case_names())


def test_stored_verdicts():
    """Every mechanism passes its audit, every control and finding is caught (what chapter 17 states)."""
    for case, res in STORED.values():
        assert (res.epsilon_lb > case.epsilon) == case.expect_caught, (case.name, res)


def test_cheap_cases_recompute():
    assert len(CHEAP) >= 10 and {RESULT["cases"][k]["kind"] for k in CHEAP} >= {"mechanism", "control"}
    for case in audit_cases(names=CHEAP):
        stored = STORED[case.name][1]
        fresh = case.run(case.seed, alpha=RESULT["alpha"])
        assert _agrees(stored, fresh), (case.name, stored, fresh)
        shift = stored.trials // 4 if 2 * stored.hits < stored.trials else -(stored.trials // 4)
        moved = AuditResult(stored.epsilon_lb, stored.event, stored.hits + shift, stored.hits_prime, stored.trials,
                            stored.alpha, stored.delta)
        assert not _agrees(moved, fresh), case.name            # the comparison can fail


def test_loader_refuses_a_stale_or_foreign_file(tmp_path):
    stale = json.loads(json.dumps(RESULT))
    key = next(iter(stale["cases"]))
    stale["cases"][key]["trials"] += 1
    (tmp_path / "stale.json").write_text(json.dumps(stale))
    with pytest.raises(ValueError, match="regenerate"):
        stored_audits(tmp_path / "stale.json")
    del stale["cases"][key]
    (tmp_path / "missing.json").write_text(json.dumps(stale))
    with pytest.raises(ValueError, match="regenerate"):
        stored_audits(tmp_path / "missing.json")
    (tmp_path / "other.json").write_text(json.dumps({"schema": 1, "cells": []}))
    with pytest.raises(ValueError, match="path"):
        stored_audits(tmp_path / "other.json")
    with pytest.raises(ValueError, match="path"):
        stored_audits(tmp_path / "no_such_file.json")
    with pytest.raises(TypeError, match="path"):
        stored_audits(3)
    with pytest.raises(ValueError, match="which"):
        stored_audits(run.RESULTS, "controls")


def test_which_selects_a_kind():
    for kind in ("mechanism", "control", "finding"):
        pairs = stored_audits(run.RESULTS, kind)
        assert pairs and all(c.kind == kind for c, _ in pairs)


def test_missing_mode_keeps_only_records_that_still_match():
    """``run --missing`` keeps a stored record only when it is the case's run now (name, kind, claim, trials,
    seed); a record with another trials, claim or seed is run again."""
    key = CHEAP[0]
    (case,) = audit_cases(names=[key])
    record = RESULT["cases"][key]
    assert run.still_matches(record, case)
    for field, value in (("trials", record["trials"] + 1), ("epsilon", record["epsilon"] * 1.001),
                         ("seed", record["seed"] + 1), ("kind", "finding")):
        assert not run.still_matches({**record, field: value}, case), field


def test_names_reads_only_the_named_cases():
    """``names`` selects cases as audit_cases does, and imports only their modules (chapter 16 reads five cases of
    one module: the whole catalogue's modules cost ~0.4 s of CPU); a named case the file lacks or stores stale is
    refused, and a bad name is refused by name."""
    import subprocess
    import sys
    smooth = ["smooth_summary", "per_query_laplace"]
    pairs = stored_audits(run.RESULTS, names=smooth)
    assert [c.name for c, _ in pairs] == [c.name for c in audit_cases(names=smooth)]
    assert all(r == STORED[c.name][1] for c, r in pairs)
    code = ("import sys\nfrom dpbook.audit import stored_audits\nfrom benchmarks.audits import run\n"
            "stored_audits(run.RESULTS, names={names!r})\n"
            "print(sorted(m for m in sys.modules if m.startswith('dpbook.audit.cases.')))")
    loaded = lambda names: subprocess.run([sys.executable, "-c", code.format(names=names)], capture_output=True,
                                          text=True, check=True, cwd=run.RESULTS.parents[2]).stdout.strip()
    assert loaded(smooth) == "['dpbook.audit.cases.smooth']"
    assert "dpbook.audit.cases.graphs" in loaded(None)                   # the whole catalogue: the check can fail
    with pytest.raises(ValueError, match="names"):
        stored_audits(run.RESULTS, names=["no_such_case"])
    with pytest.raises(TypeError, match="names"):
        stored_audits(run.RESULTS, names="smooth_summary")


def test_names_refuses_a_stale_named_case(tmp_path):
    stale = json.loads(json.dumps(RESULT))
    stale["cases"]["smooth_summary"]["trials"] += 1
    (tmp_path / "stale.json").write_text(json.dumps(stale))
    (case,) = audit_cases(names=["per_query_laplace"])                  # another case's record is not read:
    assert [c.name for c, _ in stored_audits(tmp_path / "stale.json", names=["per_query_laplace"])] == [case.name]
    with pytest.raises(ValueError, match="regenerate"):
        stored_audits(tmp_path / "stale.json", names=["per_query_laplace", "smooth_summary"])
    del stale["cases"]["smooth_summary"]
    (tmp_path / "missing.json").write_text(json.dumps(stale))
    with pytest.raises(ValueError, match="regenerate"):
        stored_audits(tmp_path / "missing.json", names=["smooth_summary"])
