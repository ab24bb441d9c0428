"""Chapter 14's two sweeps (see the package docstring for what a comparison is): the online IDCs on cut queries
against randomized response over edge densities (IDC-Rem4.11 / Rem5.3), and the offline Iterative Construction
against randomized response and the LP synthetic graph over ε (IDC-Cor7.4).

Each function runs **one** setting (one density, one ε) from its own seed, ``[seed, 1, round(1000·density)]`` or
``[seed, 2, round(1000·ε)]`` (the workload and the graph of the IC sweep from ``[seed, 0]``), so any one setting can
be recomputed alone and compared with the stored sweep (``python -m benchmarks.graphs.run`` writes
``benchmarks/graphs/results.json``; :func:`stored_graph_sweeps` reads it).  Errors are in edges; nothing released
leaves a function (error summaries only).
"""
from __future__ import annotations

import math
import pathlib

import numpy as np

from ..graphs import (RankOneWorkload, adjacency_from_weights, cut_norm_exact, graph_randomized_response,
                      planted_partition, random_cuts, random_graph, synthetic_graph)
from ..idc import FixedStream, FriezeKannanIDC, MultiplicativeWeightsIDC, drive_with_oracle, iterative_construction
from ..idc import online_idc_sv
from ..theory.graphs import num_pairs, rr_cut_error_bound
from ..validation import check_alpha, check_beta, check_epsilon, check_int, check_probability, check_real
from ..data import results_file_key, load_results_file

__all__ = ["online_cut_comparison", "ic_cut_comparison", "stored_graph_sweeps", "same_results", "RESULTS_FILE"]

#: the stored sweeps of chapter 14 (written by ``python -m benchmarks.graphs.run``)
RESULTS_FILE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "graphs" / "results.json"


def _seed(seed):
    return check_int("seed", seed, low=0, high=2 ** 63 - 1, exact=False)


def online_cut_comparison(density, *, num_vertices=40, m=300, alpha=0.05, epsilon=16.0, c=8, trials=10,
                          baseline_epsilon=1.0, seed=2026) -> dict:
    """IDC-Rem4.11 / Rem5.3 on one random graph ``G(num_vertices, density)`` and ``m`` random disjoint cuts.

    Multiplicative weights (``B = 4 ln N/α²``) and Frieze–Kannan (``B = N/(|E| α²)``, counts) driven by the
    worst-case oracle (exact answers: updates until ``α``-accurate), then ``trials`` private runs of IDC-Alg1-SV
    per rule at pure ``epsilon`` (``δ = 0``, ``c`` updates), against randomized response at ``epsilon`` and at
    ``baseline_epsilon`` (median over ``trials`` releases of its max error over the cuts) and ½ on every pair.
    The cuts come from ``[seed, 0]`` (the same for every density), the graph and the noise from
    ``[seed, 1, round(1000·density)]``."""
    density = check_probability(density, "density", open_low=True)
    V = check_int("num_vertices", num_vertices, low=6, high=80)
    m = check_int("m", m, low=10, high=2000)
    alpha = check_alpha(alpha)
    epsilon, baseline_epsilon = check_epsilon(epsilon), check_epsilon(baseline_epsilon, "baseline_epsilon")
    c = check_int("c", c, low=1, high=100)
    trials = check_int("trials", trials, low=1, high=1000)
    seed = _seed(seed)
    W = random_cuts(V, m, np.random.default_rng([seed, 0]))
    rng = np.random.default_rng([seed, 1, int(round(1000 * density))])
    N = num_pairs(V)
    g = random_graph(V, density, rng)
    x, n = g.histogram(), g.num_edges
    if n == 0:
        raise ValueError(f"density ({density!r}) drew a graph without edges on {V} vertices: raise it")
    mw, fk = MultiplicativeWeightsIDC(N, alpha), FriezeKannanIDC(N, alpha, n=n, sq_norm=n)
    run_mw, run_fk = drive_with_oracle(mw, x, W), drive_with_oracle(fk, x, W)
    priv = {}
    for name, rule in (("MW", mw), ("FK", fk)):
        rel = online_idc_sv(x, rule, FixedStream(W), epsilon=epsilon, delta=0.0, c=c, trials=trials, rng=rng)
        priv[name] = ((rel.errors(x).max * n).tolist(), float(np.median(rel.updates)),
                      float(rel.params["threshold"] * n))
    true = W.counts(x)
    rr = {e: float(np.median(np.abs(graph_randomized_response(g, epsilon=e, trials=trials, rng=rng).counts(W)
                                    - true).max(axis=1))) for e in (epsilon, baseline_epsilon)}
    return dict(p=density, n=int(n), mw=int(run_mw.updates), fk=int(run_fk.updates), B_mw=float(mw.bound()),
                B_fk=float(fk.bound()), B_mw_set=4 * math.log(N / n) / alpha ** 2, priv=priv, rr=rr,
                half=float(np.abs(W.counts(np.full(N, 0.5)) - true).max()),
                largest_cut=float(W.counts(np.ones(N)).max()))


def ic_cut_comparison(epsilon, *, num_vertices=8, p_in=0.9, p_out=0.1, alpha=0.3, rounds=6, runs=8, beta=0.05,
                      seed=2026) -> dict:
    """IDC-Cor7.4 at one ``epsilon`` (pure DP) on a planted-partition graph (from ``[seed, 0]``): ``runs`` runs of
    the offline IC with multiplicative weights at ``alpha`` over **all** ``4^V`` cuts (halved, so every query
    lies in ``[0, 1]``; errors doubled back, in edges), capped at ``rounds``; against one release of randomized
    response at ``epsilon`` and the LP synthetic graph made from it (exact oracle, ``η`` the all-cuts bound at
    ``beta``), and the uniform graph with ``|E|`` edges (IC's start).  Every error is the exact max over all cuts.
    Noise from ``[seed, 2, round(1000·epsilon)]``.  ``num_vertices <= 9`` (the IC enumerates ``4^V`` cuts)."""
    epsilon = check_epsilon(epsilon)
    V = check_int("num_vertices", num_vertices, low=3, high=9)
    p_in, p_out = check_probability(p_in, "p_in"), check_probability(p_out, "p_out")
    alpha, beta = check_alpha(alpha), check_beta(beta)
    rounds = check_int("rounds", rounds, low=1, high=100)
    runs = check_int("runs", runs, low=1, high=200)
    seed = _seed(seed)
    g = planted_partition(V, p_in, p_out, np.random.default_rng([seed, 0]))
    x, n, A, N = g.histogram(), g.num_edges, g.adjacency(), num_pairs(V)
    if n == 0:
        raise ValueError(f"p_in ({p_in!r}) and p_out ({p_out!r}) drew a graph without edges: raise them")
    rng = np.random.default_rng([seed, 2, int(round(1000 * epsilon))])
    masks = ((np.arange(2 ** V)[:, None] >> np.arange(V)) & 1).astype(float)
    W_half = RankOneWorkload(np.repeat(masks, 2 ** V, axis=0) / 2, np.tile(masks, (2 ** V, 1)))   # all (S, R), halved
    rule = MultiplicativeWeightsIDC(N, alpha / 2)
    rel = iterative_construction(x, W_half, rule=rule, epsilon=epsilon, delta=0.0, rounds=rounds, trials=runs, rng=rng)
    ic_err = 2 * n * np.abs(rel.answers - W_half.counts(x) / n).max(axis=1)            # every cut, in edges
    noisy = graph_randomized_response(g, epsilon=epsilon, rng=rng)
    lp = synthetic_graph(noisy, eta=rr_cut_error_bound(V, epsilon, beta))
    return dict(epsilon=epsilon, weights=g.weights.tolist(), n=int(n), ic_err=ic_err.tolist(),
                rounds_used=np.asarray(rel.trace["rounds_used"]).tolist(), hypothesis=rel.trace["hypothesis"].tolist(),
                B_theory=float(rule.bound()), rr=float(cut_norm_exact(noisy.adjacency() - A).value),
                lp=float(cut_norm_exact(lp.adjacency() - A).value),
                uniform=float(cut_norm_exact(adjacency_from_weights(np.full(N, n / N), V) - A).value))


_STORED: dict = {}


def stored_graph_sweeps(path=None) -> dict:
    """The stored sweeps (``path``: default :data:`RESULTS_FILE`): ``{"online": [rows], "ic": [rows], "online_settings",
    "ic_settings", "seed", ...}`` with each online row's ``rr`` keyed by ε as a float (JSON keys are strings)."""
    path = RESULTS_FILE if path is None else path
    key = results_file_key(path, RESULTS_FILE)
    if key not in _STORED:
        result = load_results_file(path, "python -m benchmarks.graphs.run")
        if not isinstance(result, dict) or result.get("schema") != 1 or "online" not in result or "ic" not in result:
            raise ValueError(f"path ({str(path)!r}) is not a results file of benchmarks.graphs.run (schema 1)")
        for row in result["online"]:
            row["rr"] = {float(k): v for k, v in row["rr"].items()}
        _STORED[key] = result
    return _STORED[key]


def _leaves(value, where="", out=None) -> dict:
    """The numbers of a nested result, ``{path: value}`` (dict keys as strings: a float key and its JSON string
    agree), tuples read as lists."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            _leaves(v, f"{where}/{float(k) if isinstance(k, (int, float)) else k}", out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _leaves(v, f"{where}[{i}]", out)
    elif isinstance(value, (bool, str)) or value is None:
        out[where] = value
    elif isinstance(value, (int, float, np.integer, np.floating)):
        out[where] = float(value)
    else:
        raise TypeError(f"a result holds numbers, strings, lists and dicts, got {type(value).__name__} at {where!r}")
    return out


def same_results(fresh, stored, *, rtol=1e-9) -> bool:
    """Whether a setting recomputed now (``fresh``) agrees with its stored row: the same keys and list lengths,
    every number within relative ``rtol`` (floating-point sums may differ in the last bits between CPUs)."""
    rtol = check_real("rtol", rtol, low=0.0, high=1.0)
    a, b = _leaves(fresh), _leaves(stored)
    if a.keys() != b.keys():
        return False
    for k, v in a.items():
        w = b[k]
        if isinstance(v, float) and isinstance(w, float):
            if not math.isclose(v, w, rel_tol=rtol, abs_tol=1e-12):
                return False
        elif v != w:
            return False
    return True
