"""MWEM+PGM (McKenna, Sheldon and Miklau, ICML 2019; the baseline of the AIM paper, VLDB 2022), written here from
the papers' description on the public API of ``mbi`` 1.1.0, run inside the peers' own environment
(benchmarks/peers/.venv).

The algorithm as run (``mwem_pgm``), in two privacy accountings: ``noise="gaussian"`` (the AIM paper's baseline),
ρ-zCDP with ρ converted from (ε, δ) by the converter smartnoise's AIM uses (``snsynth.utils.cdp_rho``, so both
spend the same ρ); ``noise="laplace"`` (the original MWEM's accounting), pure ε-DP by basic composition, like every MWEM
of the table:

1. The model starts as the uniform distribution over the data's domain with total n (n public, as for every
   method of the table).
2. For t = 1..T, with ρ/T (or ε/T) per round (a share ``measure_share`` of it to the measurement, the rest to
   the selection; 0.5 by default, MWEM's even split):
   a. candidates: every marginal of the workload whose addition keeps the model's junction tree at most
      ``max_model_size`` MB (``mbi.junction_tree.hypothetical_model_size``; AIM's cap, 80 MB);
   b. select one with the exponential mechanism, score = L1 error ||M_r(D) − M_r(model)||₁ in counts
      (sensitivity 1 under add/remove), at ε_sel = sqrt(8 (1 − measure_share) ρ / T) (an ε-DP exponential
      mechanism is ε²/8-zCDP), or ε_sel = (1 − measure_share) ε / T;
   c. measure it, every cell, with Gaussian noise of σ = sqrt(T / (2 measure_share ρ)) (L2 sensitivity 1:
      1/(2σ²)-zCDP), or Laplace noise of b = T / (measure_share ε) (L1 sensitivity 1: 1/b-DP), given to the
      estimator with its standard deviation (σ, or √2 b);
   d. re-estimate the graphical model from every measurement so far with ``mbi.estimation.mirror_descent``
      (known total n, ``iters`` iterations), warm-started from the previous round's potentials.
3. Output: every marginal of the workload read off the last model, normalised.

Rounds spend T (ε_sel²/8 + 1/(2σ²)) = ρ, or T (ε_sel + 1/b) = ε, exactly; the reply records it.  The
workload's marginals are listed in ``itertools.combinations(range(d), k)`` order, each cell in row-major order with the first attribute most
significant (``marginals_from_rows`` computes the same with numpy alone, for the tests).

Protocol: as ``smartnoise_worker.py`` — one JSON request per line on stdin, one JSON reply per line on stdout; the
request names an ``.npy`` file of 0/1 rows (n × d); the worker writes every workload marginal (``marg{j}``) to an
``.npz`` file and replies with wall and CPU seconds of the fit.  JAX is limited to one CPU thread
(``ONE_THREAD``, set by ``main`` before JAX is imported).  dpbook is never imported here.
"""
import itertools
import json
import math
import os
import sys
import time

import numpy as np

MEASURE_SHARE = 0.5
ITERS = 1000
MAX_MODEL_SIZE = 80.0
ONE_THREAD = {"XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
              "JAX_PLATFORMS": "cpu", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def round_budget(rho, T, measure_share=MEASURE_SHARE):
    """(ε_sel, σ) for one of T rounds of a ρ-zCDP run: the exponential mechanism's ε (ε²/8-zCDP) and the
    Gaussian's σ for L2 sensitivity 1 (1/(2σ²)-zCDP); the two spend ρ/T together."""
    if not (rho > 0 and math.isfinite(rho)) or int(T) != T or T < 1 or not 0 < measure_share < 1:
        raise ValueError(f"rho ({rho}) > 0, T ({T}) >= 1 and 0 < measure_share ({measure_share}) < 1 required")
    per_round = rho / T
    return math.sqrt(8.0 * (1.0 - measure_share) * per_round), math.sqrt(1.0 / (2.0 * measure_share * per_round))


def round_budget_pure(epsilon, T, measure_share=MEASURE_SHARE):
    """(ε_sel, b) for one of T rounds of an ε-DP run (basic composition): the exponential mechanism's ε and the
    Laplace scale b for L1 sensitivity 1 (1/b-DP); the two spend ε/T together."""
    if not (epsilon > 0 and math.isfinite(epsilon)) or int(T) != T or T < 1 or not 0 < measure_share < 1:
        raise ValueError(f"epsilon ({epsilon}) > 0, T ({T}) >= 1 and 0 < measure_share ({measure_share}) < 1 "
                         "required")
    per_round = epsilon / T
    return (1.0 - measure_share) * per_round, 1.0 / (measure_share * per_round)


def spent(eps_select, sigma, T):
    """zCDP spent by T rounds of (exponential mechanism at eps_select, Gaussian at sigma, sensitivity 1)."""
    return T * (eps_select ** 2 / 8.0 + 1.0 / (2.0 * sigma ** 2))


def exponential_mechanism(scores, epsilon, sensitivity, rng):
    """Index i with probability ∝ exp(ε scores_i / (2 sensitivity)), by the Gumbel-max trick."""
    logits = epsilon * np.asarray(scores, dtype=np.float64) / (2.0 * sensitivity)
    return int(np.argmax(logits + rng.gumbel(size=logits.size)))


def marginals_from_rows(rows, k):
    """Every k-way marginal of 0/1 rows (counts), in the worker's output order (numpy only)."""
    rows = np.asarray(rows, dtype=np.int64)
    out = []
    for S in itertools.combinations(range(rows.shape[1]), k):
        index = rows[:, list(S)] @ (1 << np.arange(k - 1, -1, -1))
        out.append(np.bincount(index, minlength=1 << k).astype(np.float64))
    return out


def mwem_pgm(rows, k, T, seed, eps_select, noise, scale, iters=ITERS, max_model_size=MAX_MODEL_SIZE):
    """MWEM+PGM on 0/1 rows for the workload of every k-way marginal, T rounds each selecting at ``eps_select``
    and measuring with ``noise`` ("gaussian": σ = ``scale``; "laplace": b = ``scale``); returns (marginals, log
    of rounds)."""
    from mbi import Dataset, Domain, LinearMeasurement, estimation
    from mbi.junction_tree import hypothetical_model_size
    rows = np.asarray(rows, dtype=np.int64)
    n, d = rows.shape
    cols = tuple(f"c{i}" for i in range(d))
    domain = Domain(cols, [2] * d)
    data = Dataset({c: rows[:, i] for i, c in enumerate(cols)}, domain)
    workload = list(itertools.combinations(cols, k))
    true = {cl: np.asarray(data.project(cl).datavector(), dtype=np.float64) for cl in workload}
    rng = np.random.default_rng(seed)
    stddev = scale if noise == "gaussian" else math.sqrt(2.0) * scale    # the estimator weighs by it
    measurements, measured, model, log = [], [], None, []

    def estimate(cl):
        if model is None:                                          # round 1: the uniform model, total n
            return np.full(1 << len(cl), n / (1 << len(cl)))
        return np.asarray(model.project(cl).datavector(), dtype=np.float64)

    for t in range(T):
        candidates = [cl for cl in workload
                      if hypothetical_model_size(domain, measured + [cl]) <= max_model_size]
        scores = [float(np.abs(true[cl] - estimate(cl)).sum()) for cl in candidates]
        cl = candidates[exponential_mechanism(scores, eps_select, 1.0, rng)]
        draw = rng.normal if noise == "gaussian" else rng.laplace
        y = true[cl] + draw(0.0, scale, size=true[cl].size)
        measurements.append(LinearMeasurement(y, cl, stddev))
        measured.append(cl)
        model = estimation.mirror_descent(domain, measurements, known_total=float(n), iters=iters,
                                          potentials=None if model is None else model.potentials)
        log.append({"round": t + 1, "selected": list(cl), "candidates": len(candidates)})
    marginals = [np.asarray(model.project(cl).datavector(), dtype=np.float64) for cl in workload]
    return marginals, {"rounds": log}


def fit(request):
    from snsynth.utils import cdp_rho
    rows = np.load(request["rows"])
    epsilon, T, noise = float(request["epsilon"]), int(request["T"]), request.get("noise", "gaussian")
    share = float(request.get("measure_share", MEASURE_SHARE))
    settings = {"iters": int(request.get("iters", ITERS)),
                "max_model_size": float(request.get("max_model_size", MAX_MODEL_SIZE))}
    if noise == "gaussian":                         # ρ-zCDP at AIM's ρ for (ε, δ)
        rho = float(cdp_rho(epsilon, float(request["delta"])))
        eps_select, scale = round_budget(rho, T, share)
        budget = {"rho": rho, "rho_spent": spent(eps_select, scale, T), "sigma": scale}
    elif noise == "laplace":                        # pure ε, basic composition over the rounds
        eps_select, scale = round_budget_pure(epsilon, T, share)
        budget = {"epsilon_spent": T * (eps_select + 1.0 / scale), "laplace_scale": scale}
    else:
        raise ValueError(f"noise ({noise!r}) must be 'gaussian' or 'laplace'")
    start, cpu = time.perf_counter(), time.process_time()
    marginals, info = mwem_pgm(rows, int(request["k"]), T, int(request["seed"]), eps_select, noise, scale,
                               **settings)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    np.savez(request["out"], **{f"marg{j}": m / m.sum() for j, m in enumerate(marginals)})
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "noise": noise, "measure_share": share,
            "eps_select": eps_select, **budget, **settings, **info}


def versions():
    """The peers' versions; imports mbi (and JAX) once, so no fit is timed with their import."""
    import importlib.metadata as metadata
    import mbi  # noqa: F401
    return {p: metadata.version(p) for p in ("mbi", "jax", "jaxlib", "numpy", "smartnoise-synth", "opendp")}


def main():
    import contextlib
    for key, value in ONE_THREAD.items():          # before JAX is first imported (by the first fit)
        os.environ.setdefault(key, value)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            with contextlib.redirect_stdout(sys.stderr):       # stdout is the protocol
                reply = {"versions": versions()} if request.get("method") == "versions" else fit(request)
        except Exception as exc:                  # report, keep serving
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
