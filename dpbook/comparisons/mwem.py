"""Chapter 09's experiments (see the package docstring for what a comparison is): MWEM where its theorem says it
should win, against the noisy histogram and the uniform guess (:func:`regime_errors`), and the sweeps of its
sections 4 and 8 — MWEM's rounds (:func:`rounds_sweep`), the workload's size (:func:`workload_growth`) and the
practical variant's changes one at a time (:func:`practical_ablation`).

Each call runs from its own seed ``rng``, exactly as the chapter ran it live, so its part of the stored sweeps can
be recomputed alone and compared (``python -m benchmarks.mwem_sweeps.run`` writes
``benchmarks/mwem_sweeps/results.json``; :func:`stored_mwem_sweeps` reads it, :func:`same_errors` compares).
Errors are max errors over the workload's normalised answers, one per run.
"""
from __future__ import annotations

import math
import pathlib

import numpy as np

from ..data import results_file_key, bootstrap, digits_subsample, load_cancer, load_results_file
from ..histogram import histogram_mechanism, noisy_histogram
from ..laplace import laplace_mechanism
from ..mwem import mwem, mwem_practical
from ..noise import as_generator
from ..queries import digits_marginals, k_way_marginals
from ..contract import example
from ..validation import check_epsilon, check_int, check_real

__all__ = ["MECHANISMS", "regime_errors", "rounds_sweep", "workload_growth", "practical_ablation",
           "stored_mwem_sweeps", "same_errors", "RESULTS_FILE"]

#: the stored sweeps of chapter 09 (written by ``python -m benchmarks.mwem_sweeps.run``)
RESULTS_FILE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "mwem_sweeps" / "results.json"

#: the series of :func:`regime_errors`, in plotting order
MECHANISMS = ("MWEM (theorem)", "MWEM practical", "noisy histogram", "uniform guess")


def _max_error(answers, true) -> np.ndarray:
    return np.abs(np.atleast_2d(answers) - true).max(axis=1)


def regime_errors(d: int, n: int, *, epsilon=1.0, trials: int = 3, T: int = 30, practical_T: int = 10,
                  practical_replay: int = 3, practical: bool = True, rng=None) -> dict[str, np.ndarray]:
    """Max error over all 3-way marginal cells of ``n`` real digit rows on their first ``d`` pixels, per trial.

    Series (keys of :data:`MECHANISMS`): MWEM exactly as HLM state it (``T`` rounds, the average of the
    iterates, no replay; the algorithm their bound covers), ``mwem_practical`` (whole marginals measured, last
    iterate, ``practical_replay`` sweeps, ``practical_T`` rounds; same ε, no bound), chapter 03's noisy histogram
    (``Lap(1/ε)`` per cell: L1 sensitivity 1 under add/remove, exact for any workload), and the data-free uniform
    guess.  All at the same ε, add/remove neighbours, public ``n``.  The subsample is drawn once from ``rng``.
    """
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, low=1, high=1000)
    d, n = check_int("d", d, low=3, high=16), check_int("n", n, low=1, high=1797)
    T, practical_T = check_int("T", T, low=1, high=10**4), check_int("practical_T", practical_T, low=1, high=10**4)
    practical_replay = check_int("practical_replay", practical_replay, low=1, high=10**4)
    rng = as_generator(rng)
    x = digits_subsample(d, n, rng)
    W = digits_marginals(d)
    true = W.counts(x) / n
    out = {"MWEM (theorem)": _max_error(mwem(x, W, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng).answers, true)}
    if practical:
        out["MWEM practical"] = _max_error(mwem_practical(x, W, epsilon=epsilon, T=practical_T, n=n,
                                                          replay=practical_replay, trials=trials, rng=rng).answers, true)
    out["noisy histogram"] = _max_error(histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=trials,
                                                            rng=rng).answers, true)
    out["uniform guess"] = _max_error(W.counts(np.full(W.N, 1.0 / W.N)), true)
    return out



def _ints(name, values, *, low, high) -> list[int]:
    """``values`` as a non-empty list of whole numbers in ``[low, high]`` (ValueError / TypeError naming ``name``)."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" or arr.ndim != 1 or arr.size == 0:
        raise (TypeError if arr.dtype.kind not in "iuf" else ValueError)(
            f"{name} must be a non-empty 1-D sequence of integers, got {values!r}")
    return [check_int(f"{name}[{i}]", int(v), low=low, high=high) for i, v in enumerate(arr)]


def _cancer_rows(n, rng) -> np.ndarray:
    """The cancer table (569 rows, d = 11) bootstrapped to ``n`` rows from ``rng`` (its first draw)."""
    return bootstrap(load_cancer().x, n, rng)


def rounds_sweep(n, T_grid, *, epsilon=1.0, trials=3, rng=None) -> dict:
    """MWEM (as specified) against its rounds ``T`` on all 1320 three-way cells of the cancer table bootstrapped
    to ``n`` rows (the first draw of ``rng``), then ``trials`` runs for each ``T`` of ``T_grid`` in turn, then
    the noisy histogram (``trials`` runs), all from the one stream ``rng``.  Returns ``{"average": [per T: max
    error per run], "last": [the same for the last iterate], "histogram": [per run], "uniform": float}``."""
    n = check_int("n", n, low=1, high=10 ** 9)
    T_grid = _ints("T_grid", T_grid, low=1, high=1000)
    epsilon, trials = check_epsilon(epsilon), check_int("trials", trials, low=1, high=100)
    rng = as_generator(rng)
    x = _cancer_rows(n, rng)
    W = k_way_marginals(11, 3)
    true = W.counts(x / n)
    runs = [mwem(x, W, epsilon=epsilon, T=T, trials=trials, rng=rng) for T in T_grid]
    return {"average": [_max_error(r.answers, true).tolist() for r in runs],
            "last": [_max_error(r.trace["answers_last"], true).tolist() for r in runs],
            "histogram": _max_error(histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=trials,
                                                        rng=rng).answers, true).tolist(),
            "uniform": float(_max_error(W.counts(np.full(W.N, 1.0 / W.N)), true)[0])}


#: the series of :func:`workload_growth`, in the order each k draws them from the stream
GROWTH = ("Laplace", "MWEM (T=20)", "MWEM, replay 2", "noisy histogram", "uniform guess")


def workload_growth(n, ks, *, epsilon=1.0, T=20, trials=3, baseline_trials=8, rng=None) -> dict:
    """MWEM against the size of the workload: the cancer table bootstrapped to ``n`` rows (the first draw of
    ``rng``), then for each ``k`` of ``ks`` in turn, on all k-way cells: per-query Laplace (``baseline_trials``
    runs), MWEM with ``T`` rounds and with 2 replay sweeps (``trials`` runs each), the noisy histogram
    (``baseline_trials``), all from the one stream ``rng``, and the uniform guess.  Returns ``{"m": [per k],
    "errors": {series of :data:`GROWTH`: [per k: max error per run]}}``."""
    n = check_int("n", n, low=1, high=10 ** 9)
    ks = _ints("ks", ks, low=1, high=11)
    epsilon, T = check_epsilon(epsilon), check_int("T", T, low=1, high=1000)
    trials = check_int("trials", trials, low=1, high=100)
    baseline_trials = check_int("baseline_trials", baseline_trials, low=1, high=1000)
    rng = as_generator(rng)
    x = _cancer_rows(n, rng)
    out = {"m": [], "errors": {name: [] for name in GROWTH}}
    for k in ks:
        W = k_way_marginals(11, k)
        true = W.counts(x / n)
        out["m"].append(W.m)
        runs = (laplace_mechanism(x, W, epsilon=epsilon, n=n, trials=baseline_trials, rng=rng).answers,
                mwem(x, W, epsilon=epsilon, T=T, trials=trials, rng=rng).answers,
                mwem(x, W, epsilon=epsilon, T=T, replay=2, trials=trials, rng=rng).answers,
                histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=baseline_trials, rng=rng).answers,
                W.counts(np.full(W.N, 1.0 / W.N)))
        for name, answers in zip(GROWTH, runs):
            out["errors"][name].append(_max_error(answers, true).tolist())
    return out


def _both_errors(answers, true):
    e = np.abs(np.atleast_2d(answers) - true)
    return e.max(axis=1).tolist(), e.mean(axis=1).tolist()


def practical_ablation(variants, *, T=10, epsilon=1.0, trials=5, rng=None) -> dict:
    """The practical MWEM's changes one at a time on the 220 two-way cells of the (real) cancer table:
    ``variants`` maps a name to the keyword arguments of :func:`dpbook.mwem.mwem_practical` (``measure``,
    ``output``, ``replay``, ``exclude_measured``, ...), each run ``trials`` times with ``T`` rounds from a fresh
    generator seeded by ``rng`` (an int, or one seed drawn from a Generator: every variant and the histogram draw
    the same way); the noisy
    histogram's cells (unclamped, summed into the marginals) from the same seed, and the uniform guess.
    Returns ``{name: (max errors, mean errors)}`` per run, with ``"noisy histogram"`` and ``"uniform guess"``."""
    if not isinstance(variants, dict) or not variants or not all(isinstance(k, str) and isinstance(v, dict)
                                                                 for k, v in variants.items()):
        raise TypeError("variants must be a non-empty dict of name -> keyword arguments of mwem_practical")
    if {"noisy histogram", "uniform guess"} & set(variants):
        raise ValueError("variants must not be named 'noisy histogram' or 'uniform guess' (the references)")
    T, epsilon = check_int("T", T, low=1, high=55), check_epsilon(epsilon)
    trials = check_int("trials", trials, low=1, high=100)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        seed = check_int("rng", rng, low=0, exact=False)
    else:                                   # a Generator (or None): one seed drawn from it, shared by every variant
        seed = int(as_generator(rng).integers(2 ** 63))
    data = load_cancer()
    W = k_way_marginals(11, 2)
    true = W.counts(data.x / data.n)
    out = {name: _both_errors(mwem_practical(data.x, W, epsilon=epsilon, T=T, n=data.n, trials=trials, rng=seed,
                                             **kw).answers, true) for name, kw in variants.items()}
    h = noisy_histogram(data.x, epsilon=epsilon, n=data.n, trials=trials, rng=seed).counts
    out["noisy histogram"] = _both_errors((W.counts(np.maximum(h, 0)) - W.counts(np.maximum(-h, 0))) / data.n, true)
    out["uniform guess"] = _both_errors(W.counts(np.full(W.N, 1.0 / W.N)), true)
    return out


_STORED: dict = {}


def stored_mwem_sweeps(path=None) -> dict:
    """The stored sweeps of chapter 09 (``path``: default :data:`RESULTS_FILE`), as written by
    ``python -m benchmarks.mwem_sweeps.run``: ``{"regime": {"by_d": [points], "by_n": [points], ...},
    "rounds": {...}, "growth": {...}, "ablation": {...}, "code_version", ...}``; a regime point is
    ``{"d", "n", "seed", "errors": {name: [max error per run]}}`` (:func:`regime_errors` at that point), the
    others hold their settings and the output of :func:`rounds_sweep`, :func:`workload_growth` and
    :func:`practical_ablation`.  Read once per path (the parsed file is shared: do not modify it).  ``ValueError``
    naming ``path`` for a file that is missing, not JSON or not of this schema."""
    path = RESULTS_FILE if path is None else path
    key = results_file_key(path, RESULTS_FILE)
    if key not in _STORED:
        result = load_results_file(path, "python -m benchmarks.mwem_sweeps.run")
        ok = isinstance(result, dict) and result.get("schema") == 1 and all(
            isinstance(result.get(part), dict) for part in ("regime", "rounds", "growth", "ablation"))
        points = result["regime"].get("by_d", []) + result["regime"].get("by_n", []) if ok else []
        if not ok or not points or any(set(p.get("errors", {})) != set(MECHANISMS) for p in points):
            raise ValueError(f"path ({str(path)!r}) is not a results file of benchmarks.mwem_sweeps.run (schema 1)")
        _STORED[key] = result
    return _STORED[key]


def _leaves(value, where, out):
    if isinstance(value, dict):
        for k, v in value.items():
            _leaves(v, f"{where}/{k}", out)
    elif isinstance(value, (list, tuple, np.ndarray)):
        for i, v in enumerate(value):
            _leaves(v, f"{where}[{i}]", out)
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        out[where] = float(value)
    else:
        raise TypeError(f"fresh and stored hold numbers, lists and dicts, got {type(value).__name__} at {where!r}")
    return out


def same_errors(fresh, stored, *, rtol=1e-9) -> bool:
    """Whether a part recomputed now (``fresh``: a dict of errors, arrays or lists, possibly nested) agrees with its
    stored counterpart (``stored``): the same keys and lengths, every number within relative ``rtol``
    (floating-point sums may differ in the last bits between CPUs)."""
    rtol = check_real("rtol", rtol, low=0.0, high=1.0)
    if not isinstance(fresh, dict) or not isinstance(stored, dict):
        raise TypeError("fresh and stored must be dicts (of errors per run)")
    a, b = _leaves(fresh, "", {}), _leaves(stored, "", {})
    return a.keys() == b.keys() and all(math.isclose(v, b[k], rel_tol=rtol, abs_tol=1e-12) for k, v in a.items())


# small valid calls, for the sweeps of tests/ (seeding, bad input)
example(rounds_sweep, lambda: dict(n=600, T_grid=[2, 3], trials=2))
example(workload_growth, lambda: dict(n=600, ks=[1], T=2, trials=2, baseline_trials=2))
example(practical_ablation, lambda: dict(variants={"last": dict(replay=0)}, T=2, trials=2, rng=0))
