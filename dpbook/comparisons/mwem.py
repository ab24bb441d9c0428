"""Chapter 09's experiment: MWEM where its theorem says it should win, against the noisy histogram and the uniform
guess (see the package docstring for what a comparison is)."""
from __future__ import annotations

import numpy as np

from ..data import digits_subsample
from ..histogram import histogram_mechanism
from ..mwem import mwem, mwem_practical
from ..noise import as_generator
from ..queries import digits_marginals
from ..validation import check_epsilon, check_int

__all__ = ["MECHANISMS", "regime_errors"]

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
