"""Outputs of the IDC / MWEM / SmallDB mechanisms for fixed seeds, recorded when the mechanisms came to share one
online loop into fixed_seed_outputs.json; tests/test_idc.py recomputes them with
:func:`record` and compares.  Run this file (from the repository root) only to re-record on purpose."""
import json, numpy as np
from dpbook.data import load_cancer, project_histogram
from dpbook.idc import (AdversarialStream, FixedStream, FriezeKannanIDC, MedianIDC, MultiplicativeWeightsIDC,
                        iterative_construction, online_idc, online_idc_sv, online_mw_dr, drive_with_oracle)
from dpbook.queries import k_way_marginals, MatrixWorkload, random_queries, range_queries
from dpbook.mwem import mwem, mwem_practical
from dpbook.smalldb import smalldb, net_mechanism, subsample_errors


def record() -> dict:
    CANCER = load_cancer().x
    X64 = project_histogram(CANCER, 11, [0, 1, 2, 3, 4, 10]) * 50
    W64 = k_way_marginals(6, 3)
    X8 = project_histogram(CANCER, 11, [0, 3, 10]) * 20
    W8 = MatrixWorkload(((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float))
    out = {}
    def digest(a):
        """A few numbers that change when any entry of ``a`` changes: the first 8 entries, the sum and a weighted sum."""
        a = np.asarray(a, dtype=float).ravel()
        return a[:8].tolist() + [float(a.sum()), float(a @ np.sin(np.arange(a.size)))]
    def rec(name, rel):
        out[name] = {"answers": digest(rel.answers), "updated": np.asarray(rel.updated).astype(int).ravel().tolist(),
                     "hypothesis": digest(rel.hypothesis)}
    for rname, rule, x, W in (("MW", MultiplicativeWeightsIDC(64, 0.1), X64, W64),
                              ("FK", FriezeKannanIDC(64, 0.1, n=int(X64.sum())), X64, W64),
                              ("Median", MedianIDC(8, 4, alpha=0.2), X8, W8)):
        rec(f"sv_fixed_{rname}", online_idc_sv(x, rule, FixedStream(W), epsilon=0.9, delta=1e-6, trials=3, rng=0, c=8))
        rec(f"sv_adv_{rname}", online_idc_sv(x, rule, AdversarialStream(W, 40, reference=x), epsilon=0.9, delta=1e-6, trials=3, rng=0, c=8, n=int(x.sum())))
        rec(f"alg1_adv_{rname}", online_idc(x, rule, AdversarialStream(W, 40, reference=x), epsilon=2.0, delta=1e-6, trials=3, rng=0, b_max=6))
        rec(f"alg1_fixed1_{rname}", online_idc(x, rule, FixedStream(W), epsilon0=5.0, delta=1e-6, rng=0, b_max=6))
        rel = iterative_construction(x, W, rule=rule, epsilon=0.9, delta=1e-6, rounds=5, trials=3, rng=0)
        out[f"ic_{rname}"] = {"answers": digest(rel.answers), "rounds_used": rel.trace["rounds_used"].tolist()}
        o = drive_with_oracle(rule, x, W, max_updates=20)
        out[f"oracle_{rname}"] = {"updates": o.updates, "max_errors": digest(o.max_errors)}
    rec("dr_fixed", online_mw_dr(X64, FixedStream(W64), alpha=0.2, epsilon=1.0, delta=1e-6, trials=3, rng=0, c=8))
    rec("dr_adv", online_mw_dr(X64, AdversarialStream(W64, 40, reference=X64), alpha=0.2, epsilon=1.0, delta=1e-6, rng=0, c=8))
    for name, W in (("marg", W64), ("matrix", random_queries(30, 64, rng=1)), ("range", range_queries(64, 30, rng=2))):
        for trials in (None, 3, 20):
            r = mwem(X64, W, epsilon=1.0, T=6, trials=trials, rng=0, replay=1)
            out[f"mwem_{name}_{trials}"] = {"answers": digest(np.asarray(r.answers)), "selected": np.asarray(r.trace["selected"]).tolist()}
    for trials in (None, 3):
        for kw in (dict(), dict(measure="cell"), dict(replay=0, output="average")):
            r = mwem_practical(X64, W64, epsilon=1.0, T=5, n=int(X64.sum()), trials=trials, rng=0, **kw)
            out[f"mwemp_{sorted(kw.items())}_{trials}"] = {"answers": digest(np.asarray(r.answers))}
    x4 = project_histogram(CANCER, 11, [0, 1, 2])
    W4 = k_way_marginals(3, 2)
    r = smalldb(x4, W4, epsilon=1.0, alpha=0.6, trials=5, rng=0)
    out["smalldb"] = {"y": r.y.tolist(), "answers": digest(r.answers)}
    out["subsample"] = subsample_errors(x4, W4, 5, trials=10, rng=0).tolist()
    return out


if __name__ == "__main__":
    out = record()
    json.dump(out, open("tests/data/fixed_seed_outputs.json", "w"))
    print(len(out))
