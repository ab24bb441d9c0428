"""Runs smartnoise-synth's MWEMSynthesizer inside the peers' own environment (benchmarks/peers/.venv).

Protocol: one JSON request per line on stdin, one JSON reply per line on stdout.  A request names an ``.npy``
file of 0/1 rows (n × d) and the settings; the worker fits, times ``fit`` alone (perf_counter), and writes the
fitted model's output — every group's synthetic histogram, normalised, with its columns — to an ``.npz`` file.
dpbook is never imported here, and smartnoise is never imported in dpbook's environment.
"""
import json
import random
import sys
import time
import warnings

import numpy as np
from snsynth.mwem import MWEMSynthesizer
from snsynth.transform.table import NoTransformer


def fit(request):
    rows = np.load(request["rows"])
    d = rows.shape[1]
    k, T = request["k"], request["T"]
    n_cuboids = sum(_comb(d if request["split"] is None else request["split"], w) for w in range(1, k + 1))
    random.seed(request["seed"])
    np.random.seed(request["seed"])
    synth = MWEMSynthesizer(epsilon=float(request["epsilon"]), iterations=T, marginal_width=k,
                            q_count=request.get("q_count") or n_cuboids,
                            split_factor=request["split"] if request["split"] is not None else d)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth.fit(rows, transformer=NoTransformer())
    seconds = time.perf_counter() - start
    out = {}
    for g, (fake, _, split) in enumerate(synth.synthetic_histograms):
        out[f"hist{g}"] = np.asarray(fake, dtype=np.float64) / np.sum(fake)
        out[f"cols{g}"] = np.asarray(split, dtype=np.int64)
        out[f"mins{g}"] = np.array([synth.mins_maxes[str(c)][0] for c in split], dtype=np.int64)   # bin 0
    np.savez(request["out"], **out)
    return {"seconds": seconds, "groups": len(synth.synthetic_histograms), "spent": float(synth.spent),
            "q_count": int(request.get("q_count") or n_cuboids)}


def _comb(a, b):
    from math import comb
    return comb(a, b)


def main():
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = fit(request)
        except Exception as exc:                  # report, keep serving
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
