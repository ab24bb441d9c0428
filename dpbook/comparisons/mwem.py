"""Chapter 09's experiment: MWEM where its theorem says it should win, against the noisy histogram and the uniform
guess (see the package docstring for what a comparison is).

:func:`regime_errors` runs one point (``d`` pixels, ``n`` images) from its own seed, so any point can be recomputed
alone and compared with the stored sweep (``python -m benchmarks.mwem_regime.run`` writes
``benchmarks/mwem_regime/results.json``; :func:`stored_regime_sweep` reads it, :func:`same_errors` compares).
"""
from __future__ import annotations

import math
import pathlib

import numpy as np

from ..data import digits_subsample, load_results_file
from ..histogram import histogram_mechanism
from ..mwem import mwem, mwem_practical
from ..noise import as_generator
from ..queries import digits_marginals
from ..validation import check_epsilon, check_int, check_real

__all__ = ["MECHANISMS", "regime_errors", "stored_regime_sweep", "same_errors", "RESULTS_FILE"]

#: the stored sweep of chapter 09's section 5 (written by ``python -m benchmarks.mwem_regime.run``)
RESULTS_FILE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "mwem_regime" / "results.json"

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


_STORED: dict = {}


def stored_regime_sweep(path=None) -> dict:
    """The stored sweep (``path``: default :data:`RESULTS_FILE`), as written by ``python -m benchmarks.mwem_regime.run``:
    ``{"settings": {...}, "by_d": [points], "by_n": [points], "seed", "code_version", ...}``; each point is
    ``{"d", "n", "seed", "errors": {name: [max error per trial]}}`` for the names of :data:`MECHANISMS`, the
    output of :func:`regime_errors` at that point and seed.  Read once per path (the parsed file is shared: do not
    modify it).  ``ValueError`` naming ``path`` for a file that is missing, not JSON or not of this schema."""
    if path is None:
        path = RESULTS_FILE
    if not isinstance(path, (str, pathlib.Path)):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    key = str(pathlib.Path(path).resolve())
    if key not in _STORED:
        result = load_results_file(path, "python -m benchmarks.mwem_regime.run")
        points = result.get("by_d", []) + result.get("by_n", []) if isinstance(result, dict) else []
        if (not isinstance(result, dict) or result.get("schema") != 1 or not points
                or any(set(p.get("errors", {})) != set(MECHANISMS) for p in points)):
            raise ValueError(f"path ({str(path)!r}) is not a results file of benchmarks.mwem_regime.run (schema 1)")
        _STORED[key] = result
    return _STORED[key]


def same_errors(fresh, stored, *, rtol=1e-9) -> bool:
    """Whether a point recomputed now (``fresh``, :func:`regime_errors`' dict of arrays) agrees with its stored
    ``errors`` (``stored``: name -> list): the same names and trial counts, every error within relative ``rtol``
    (floating-point sums may differ in the last bits between CPUs)."""
    rtol = check_real("rtol", rtol, low=0.0, high=1.0)
    if not isinstance(fresh, dict) or not isinstance(stored, dict):
        raise TypeError("fresh and stored must be dicts of mechanism name -> errors per trial")
    if set(fresh) != set(stored):
        return False
    for name, values in fresh.items():
        a, b = np.atleast_1d(np.asarray(values, dtype=float)), np.atleast_1d(np.asarray(stored[name], dtype=float))
        if a.shape != b.shape or not all(math.isclose(u, v, rel_tol=rtol, abs_tol=1e-12) for u, v in zip(a, b)):
            return False
    return True
