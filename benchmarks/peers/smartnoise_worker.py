"""Runs smartnoise-synth's MWEMSynthesizer (and its packaged AIM) inside the peers' own environment (benchmarks/peers/.venv).

Protocol: one JSON request per line on stdin, one JSON reply per line on stdout.  A request names an ``.npy``
file of 0/1 rows (n × d) and the settings; the worker fits, times ``fit`` alone (wall: perf_counter; CPU: process_time,
user + system of this process, every thread), and writes the
fitted model's output — every group's synthetic histogram, normalised, with its columns — to an ``.npz`` file.
dpbook is never imported here, and smartnoise is never imported in dpbook's environment.
"""
import contextlib
import io
import itertools
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
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth.fit(rows, transformer=NoTransformer())
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    out = {}
    for g, (fake, _, split) in enumerate(synth.synthetic_histograms):
        out[f"hist{g}"] = np.asarray(fake, dtype=np.float64) / np.sum(fake)
        out[f"cols{g}"] = np.asarray(split, dtype=np.int64)
        out[f"mins{g}"] = np.array([synth.mins_maxes[str(c)][0] for c in split], dtype=np.int64)   # bin 0
    np.savez(request["out"], **out)
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "groups": len(synth.synthetic_histograms), "spent": float(synth.spent),
            "q_count": int(request.get("q_count") or n_cuboids)}


def fit_aim(request):
    """smartnoise-synth 1.0.8's packaged AIM (``snsynth.aim``, on ``mbi``): its ``AIM`` method run on the 0/1 rows
    with the workload of every k-way marginal, at (ε, δ) converted to zCDP by its own ``cdp_rho``.  The output is
    every k-way marginal of the fitted graphical model, normalised."""
    import pandas as pd
    from mbi import Dataset, Domain
    from snsynth.aim import AIMSynthesizer
    from snsynth.utils import cdp_rho
    rows = np.load(request["rows"])
    n, d = rows.shape
    k = request["k"]
    cols = [f"c{i}" for i in range(d)]
    random.seed(request["seed"])
    np.random.seed(request["seed"])                # snsynth's AIM draws from numpy's global generator
    synth = AIMSynthesizer(epsilon=float(request["epsilon"]), delta=float(request["delta"]), degree=k)
    synth.rho = cdp_rho(float(request["epsilon"]), float(request["delta"]))
    data = Dataset(pd.DataFrame(rows, columns=cols), Domain(cols, [2] * d))
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        synth.AIM(data, list(itertools.combinations(cols, k)))
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    out = {}
    for j, S in enumerate(itertools.combinations(range(d), k)):
        v = np.asarray(synth.synthesizer.project(tuple(cols[i] for i in S)).datavector(), dtype=np.float64)
        out[f"marg{j}"] = v / v.sum()
    np.savez(request["out"], **out)
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "rho": float(synth.rho)}


def versions():
    """The peers' versions; imports AIM's stack (mbi, JAX) once, so no fit is timed with its import."""
    import importlib.metadata as metadata
    import mbi  # noqa: F401
    import snsynth.aim  # noqa: F401
    return {p: metadata.version(p) for p in ("smartnoise-synth", "mbi", "jax", "jaxlib", "opendp", "numpy", "pandas")}


def _comb(a, b):
    from math import comb
    return comb(a, b)


def main():
    for line in sys.stdin:
        request = json.loads(line)
        try:
            with contextlib.redirect_stdout(sys.stderr):       # the peers print; stdout is the protocol
                method = request.get("method")
                reply = ({"versions": versions()} if method == "versions" else
                         fit_aim(request) if method == "aim" else fit(request))
        except Exception as exc:                  # report, keep serving
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
