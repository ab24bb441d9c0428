"""Broken Laplace mechanisms: positive controls for the audits of chapters 01 and 13.

Each function has the signature of :func:`dpbook.laplace.laplace_mechanism` and returns a
:class:`~dpbook.release.Release` that *claims* ε-DP; each docstring says what is wrong and what the
true privacy loss is.  ``tests/test_audits.py`` checks that the audit catches every one of them
(``ε_lb > ε``).  Never use these to release data.
"""
from __future__ import annotations

import numpy as np

from ..noise import as_generator, laplace
from ..queries import check_database
from ..release import Release, Spend
from ..validation import check_epsilon, check_int, check_public_n, check_sensitivity, check_trials

__all__ = ["laplace_halved_sensitivity", "laplace_scale_epsilon", "laplace_no_noise"]


def _release(x, workload, epsilon, n, sensitivity, trials, rng, scale_of, sampler, name) -> Release:
    """Shared body: validate like the real mechanism, then add noise of the (wrong) scale ``scale_of(Δ, ε)``."""
    x, W = check_database(x, workload)
    epsilon = check_epsilon(epsilon)
    n, _ = check_public_n(n, x, require=True)
    sensitivity = W.l1_sensitivity() if sensitivity is None else check_sensitivity(sensitivity)
    shape = (W.m,) if trials is None else (check_trials(trials, W.m), W.m)
    b = scale_of(sensitivity, epsilon)
    rng = as_generator(rng)
    noise = np.zeros(shape) if b == 0 else sampler(b, shape, rng)
    return Release((W.counts(x) + noise) / n, epsilon, 0.0, name, noise_scale=b / n,
                   ledger=(Spend(name, epsilon),))


def laplace_halved_sensitivity(x, workload, *, epsilon, n=None, sensitivity=None, trials=None, rng=None,
                               sampler=laplace) -> Release:
    """BROKEN: noise ``Lap(Δ/(2ε))`` — the sensitivity halved (e.g. "a count changes by 1/2 on average").

    True privacy loss ``2ε``: on counts ``0`` vs ``Δ`` and ``S = {y <= 0}`` the ratio is ``e^{2ε}``.
    """
    return _release(x, workload, epsilon, n, sensitivity, trials, rng, lambda d, e: d / (2 * e), sampler,
                    "laplace (halved sensitivity)")


def laplace_scale_epsilon(x, workload, *, epsilon, n=None, sensitivity=None, trials=None, rng=None,
                          sampler=laplace) -> Release:
    """BROKEN: noise ``Lap(ε)`` instead of ``Lap(Δ/ε)`` — the scale and its inverse confused.

    True privacy loss ``Δ/ε``: right only when ``ε = sqrt(Δ)``; for ``ε = 0.5, Δ = 1`` it is 2, not 0.5.
    """
    return _release(x, workload, epsilon, n, sensitivity, trials, rng, lambda d, e: e, sampler,
                    "laplace (scale ε)")


def laplace_no_noise(x, workload, *, epsilon, n=None, sensitivity=None, trials=None, rng=None,
                     sampler=laplace) -> Release:
    """BROKEN: releases the exact answers (``sampler`` is ignored).  True privacy loss: infinite."""
    return _release(x, workload, epsilon, n, sensitivity, trials, rng, lambda d, e: 0.0, sampler,
                    "laplace (no noise)")
