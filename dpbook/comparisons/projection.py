"""Chapter 13's experiment: the projection mechanism against the per-query Gaussian, MWEM, the noisy histogram and
the uniform guess on one workload (see the package docstring for what a comparison is)."""
from __future__ import annotations

import numpy as np

from ..gaussian import gaussian_mechanism
from ..histogram import histogram_mechanism
from ..mwem import mwem
from ..noise import as_generator
from ..projection import projection_mechanism
from ..queries import MatrixWorkload, check_database
from ..validation import check_delta, check_epsilon, check_int

__all__ = ["COMPARED", "noisy_histogram_answers", "compare_mechanisms"]

#: the series of :func:`compare_mechanisms`, in the order chapter 13 draws them
COMPARED = ("projection", "per-query Gaussian", "MWEM (T = 10, pure ε)", "noisy histogram (pure ε)", "uniform guess")


def noisy_histogram_answers(x, workload, *, epsilon, delta=None, trials=None, rng=None) -> np.ndarray:
    """The noisy histogram's answers to ``workload`` under replace-one neighbours (as the projection mechanism).

    ``delta=None``: chapter 03's Laplace histogram (pure ε, ``Δ1 = 2``).  ``delta`` given: Gaussian noise on every
    cell at the same ``(ε, δ)`` as the projection (``Δ2 = √2``) — :func:`dpbook.gaussian.gaussian_mechanism` on
    the identity workload; the workload's answers are summed from the noisy cells (post-processing).
    Returns ``(trials, m)`` (or ``(m,)``) normalised answers.
    """
    x, W = check_database(x, workload)
    epsilon = check_epsilon(epsilon)
    if delta is None:
        return histogram_mechanism(x, W, epsilon=epsilon, neighbours="replace-one", trials=trials, rng=rng).answers
    delta = check_delta(delta, positive=True)
    import scipy.sparse as sp           # here, not at import: only this Gaussian histogram is sparse
    identity = MatrixWorkload(sp.identity(W.N, format="csr"))
    cells = gaussian_mechanism(x, identity, epsilon=epsilon, delta=delta, neighbours="replace-one", trials=trials,
                               rng=rng).answers
    return W.apply(cells)


def compare_mechanisms(x, workload, *, epsilon, delta, T=10, trials=3, rng=None) -> dict:
    """RMS and max error (means over ``trials`` runs) of the mechanisms chapter 13 compares on ``workload``.

    The projection mechanism at ``(ε, δ)`` (PROJ-Alg1); the per-query Gaussian (the projection's own noisy answers,
    before projecting: same draw, same ``(ε, δ)``); MWEM with ``T`` rounds (pure ε); the noisy histogram (Laplace,
    replace-one, pure ε); the uniform guess.  Returns ``{"rms": {name: error}, "max": {name: error}}`` with the
    names of :data:`COMPARED`.  The mechanisms draw from one generator (``rng``), in that order.
    """
    x, W = check_database(x, workload)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    T = check_int("T", T, low=1, high=10 ** 4)
    trials = check_int("trials", trials, low=1, high=1000)
    rng = as_generator(rng)
    y = W.answers(x)
    r = projection_mechanism(x, W, epsilon=epsilon, delta=delta, trials=trials, rng=rng)
    answers = dict(zip(COMPARED, (r.answers, r.trace["noisy"],
                                  mwem(x, W, epsilon=epsilon, T=T, trials=trials, rng=rng).answers,
                                  noisy_histogram_answers(x, W, epsilon=epsilon, trials=trials, rng=rng),
                                  W.answers(np.ones(W.N)))))
    out = {"rms": {}, "max": {}}
    for name, a in answers.items():
        gap = np.abs(np.atleast_2d(a) - y)
        out["rms"][name] = float(np.sqrt((gap ** 2).mean(axis=1)).mean())
        out["max"][name] = float(gap.max(axis=1).mean())
    return out
