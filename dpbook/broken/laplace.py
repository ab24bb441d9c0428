"""Broken Laplace mechanisms: positive controls for the audits of chapters 01 and 17.

Each function has the signature of :func:`dpbook.laplace.laplace_mechanism` and returns a
:class:`~dpbook.release.Release` that *claims* ε-DP; each docstring says what is wrong and what the
true privacy loss is.  ``tests/test_audits.py`` checks that the audit catches every one of them
(``ε_lb > ε``).  Never use these to release data.
"""
from __future__ import annotations

import numpy as np

from ..noise import discrete_laplace, laplace_noise
from ..queries import check_database
from ..release import Release, Spend
from ..contract import mechanism_prologue
from ..validation import check_sensitivity

__all__ = ["laplace_halved_sensitivity", "laplace_scale_epsilon", "laplace_no_noise", "laplace_deduplicated_sensitivity",
           "normalised_discrete_laplace"]


def _release(x, workload, epsilon, n, sensitivity, trials, rng, scale_of, sampler, name) -> Release:
    """Shared body: validate like the real mechanism, then add noise of the (wrong) scale ``scale_of(Δ, ε)``."""
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, n=n, trials=trials, x=x, n_rule="required", per_release=(W.m,))
    epsilon, n, shape = p.epsilon, p.n, p.shape
    sensitivity = W.l1_sensitivity() if sensitivity is None else check_sensitivity(sensitivity)
    b = scale_of(sensitivity, epsilon)
    noise = np.zeros(shape) if b == 0 else sampler(b, shape, p.rng)
    return Release((W.counts(x) + noise) / n, name, noise_scale=b / n,
                   ledger=(Spend(name, epsilon),))


def laplace_halved_sensitivity(x, workload, *, epsilon, n=None, sensitivity=None, trials=None, rng=None,
                               sampler=laplace_noise) -> Release:
    """BROKEN: noise ``Lap(Δ/(2ε))`` — the sensitivity halved (e.g. "a count changes by 1/2 on average").

    True privacy loss ``2ε``: on counts ``0`` vs ``Δ`` and ``S = {y <= 0}`` the ratio is ``e^{2ε}``.
    """
    return _release(x, workload, epsilon, n, sensitivity, trials, rng, lambda d, e: d / (2 * e), sampler,
                    "laplace (halved sensitivity)")


def laplace_scale_epsilon(x, workload, *, epsilon, n=None, sensitivity=None, trials=None, rng=None,
                          sampler=laplace_noise) -> Release:
    """BROKEN: noise ``Lap(ε)`` instead of ``Lap(Δ/ε)`` — the scale and its inverse confused.

    True privacy loss ``Δ/ε``: right only when ``ε = sqrt(Δ)``; for ``ε = 0.5, Δ = 1`` it is 2, not 0.5.
    """
    return _release(x, workload, epsilon, n, sensitivity, trials, rng, lambda d, e: e, sampler,
                    "laplace (scale ε)")


def laplace_no_noise(x, workload, *, epsilon, n=None, sensitivity=None, trials=None, rng=None,
                     sampler=laplace_noise) -> Release:
    """BROKEN: releases the exact answers (``sampler`` is ignored).  True privacy loss: infinite."""
    return _release(x, workload, epsilon, n, sensitivity, trials, rng, lambda d, e: 0.0, sampler,
                    "laplace (no noise)")


# --- API misuse lessons (chapter 17) ------------------------------------------------------------------

def deduplicated_l1_sensitivity(W) -> float:
    """The WRONG sensitivity of lesson 1: the column-L1 maximum of the workload with repeated queries removed
    (for marginals: the number of *distinct* attribute sets).  The exact one counts every query passed."""
    rows = np.unique(np.asarray(W.matrix(), dtype=np.float64), axis=0)
    return float(np.abs(rows).sum(axis=0).max())


def laplace_deduplicated_sensitivity(x, workload, *, epsilon, n=None, trials=None, rng=None,
                                     sampler=laplace_noise) -> Release:
    """BROKEN (chapter 17, lesson 1): Laplace calibrated to the sensitivity of the workload *without its repeats*.

    ``k_way_marginals(d, 1, attribute_sets=[(0,), (0,)])`` asks the same marginal twice: one added row moves
    both copies, so the exact L1 sensitivity (DR-Def3.1) is 2, but counting each attribute set once gives 1.
    The released copies are independent ``Lap(1/ε)`` draws around the same count, so their pair reveals
    the count with loss ``2ε`` (event "both copies <= 0": ``1/4`` vs ``e^{-2ε}/4``) while claiming ε.
    """
    x, W = check_database(x, workload)
    return _release(x, W, epsilon, n, deduplicated_l1_sensitivity(W), trials, rng, lambda d, e: d / e, sampler,
                    "laplace (sensitivity of the deduplicated workload)")


def normalised_discrete_laplace(x, workload, *, epsilon, n=None, trials=None, rng=None) -> Release:
    """BROKEN (chapter 17, lesson 2): a secure integer sampler used in the wrong units.

    The answers are normalised (``Qx/n``, sensitivity ``Δ/n``), so the noise is drawn as
    ``discrete_laplace(Δ/(εn))`` and added to them.  But the discrete Laplace lives on the *integers*: at a scale
    far below one lattice step (``Δ/(εn) = 0.01`` for ``n = 100``) it returns 0 with probability ``1 - 2e^{-100}``,
    so the exact answers are released (true loss: infinite).  The fix: integer noise on the *counts*, then divide
    (``laplace_mechanism(..., sampler=discrete_laplace)``); ``above_threshold(..., sampler=discrete_laplace)``,
    whose answers are normalised reals, refuses the lattice sampler.
    """
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, n=n, trials=trials, x=x, n_rule="required", per_release=(W.m,))
    epsilon, n = p.epsilon, p.n
    b = W.l1_sensitivity() / epsilon / n                          # the right scale, in units of 1/n ...
    noise = discrete_laplace(b, p.shape, p.rng)                   # ... BUG: but drawn on the integer lattice
    return Release(W.counts(x) / n + noise, "normalised answers + discrete_laplace (wrong units)",
                   noise_scale=b, ledger=(Spend("discrete laplace in units of 1/n (BROKEN)", epsilon),))
