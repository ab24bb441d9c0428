"""Deliberately broken online IDC mechanisms: positive controls for chapter 12's privacy audits.

Never use these to release data.  Each is one plausible bug away from :mod:`dpbook.idc`.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..idc import (AdversarialStream, MultiplicativeWeightsIDC, as_stream, iterative_construction, online_idc, online_idc_sv, online_mw_dr,
                   public_n)
from ..contract import example
from ..release import Ledger, Spend
from ..noise import laplace_noise
from .noise import broken_noise
from ..validation import check_histogram
from ..theory.idc import sv_epsilon0, sv_updates
from ..theory.sparse_vector import numeric_sparse_sigma, numeric_sparse_split

__all__ = ["online_idc_sv_exact_release", "online_idc_uncomposed", "iterative_construction_exact_answers",
           "online_mw_dr_exact_values", "online_idc_sv_stream_sees_data"]


def online_idc_sv_exact_release(x, rule, stream, *, epsilon, delta, beta=0.05, n=None, c=None, trials=None,
                                rng=None, logs=False):
    """BROKEN IDC-Alg1-SV: at an update it releases (and updates with) the **exact** answer ``Q_i(D)``.

    The bug: the Laplace noise ``Lap(1/(ε0 n))`` of the released value is forgotten ("the sparse vector
    already paid for this round").  The sparse-vector part only pays for *which* rounds update, not for
    the values; an exact value tells neighbours apart with certainty (infinite privacy loss).
    Everything else (threshold, budget split, random stream) is the correct mechanism's.
    """
    x = check_histogram(x)
    c_used = sv_updates(rule.bound()) if c is None else c
    b_release = 1.0 / (sv_epsilon0(epsilon, delta, c_used) * public_n(x, n))

    def sampler(scale, size, rng_):
        draw = laplace_noise(scale, size, rng_)                     # same random stream as the correct mechanism
        return np.zeros_like(draw) if scale == b_release else draw

    rel = online_idc_sv(x, rule, stream, epsilon=epsilon, delta=delta, beta=beta, n=n, c=c, trials=trials, rng=rng,
                        sampler=broken_noise("BROKEN laplace without the release noise", "laplace", None, sampler), logs=logs)
    return dataclasses.replace(rel, mechanism="BROKEN " + rel.mechanism + " (exact release)")


def online_idc_uncomposed(x, rule, stream, *, epsilon, delta, b_max=None, n=None, trials=None, rng=None,
                          sampler=laplace_noise, record=False, debug=False, **_ignored):
    """BROKEN IDC-Alg1: uses the whole budget in every round, ``ε0 = ε``, but still claims ``(ε, δ)``.

    The bug: no composition over the (up to ``B_max + 1``) updates and the ``⊥`` rounds — the per-round
    noise ``Lap(1/(ε n))`` is what a *single* ε-DP answer needs.  The exact transcript loss then exceeds
    ``ε`` far more often than ``δ`` (chapter 12's PA(i) check).
    """
    out = online_idc(x, rule, stream, delta=delta, epsilon0=epsilon, b_max=b_max, n=n, trials=trials, rng=rng,
                     sampler=sampler, record=record, debug=debug)
    rel, internals = out if debug else (out, None)
    # the ledger the buggy code writes: one (ε, δ) step for the whole run, the claim it never composed
    rel = dataclasses.replace(rel, mechanism="BROKEN " + rel.mechanism + " (eps0 = eps)",
                              ledger=Ledger([Spend("Algorithm 1: all rounds (BROKEN: eps0 = eps)", epsilon, delta)]))
    return (rel, internals) if debug else rel


def iterative_construction_exact_answers(x, workload, *, rule, epsilon, delta, n=None, rounds=None, trials=None,
                                         rng=None):
    """BROKEN IC (IDC-Alg3): the measurement ``Â^t = Q^t(D)`` is **exact** (the Laplace noise is forgotten).

    The bug: "the distinguisher already paid for touching the data".  The stopping test
    ``|Â^t - Q^t(D^{t-1})| < 3α/4`` then decides deterministically, so a neighbour on the other side of the
    test gets a different output with certainty.
    """
    def zero(scale, size, rng_):
        return np.zeros_like(laplace_noise(scale, size, rng_))

    rel = iterative_construction(x, workload, rule=rule, epsilon=epsilon, delta=delta, n=n, rounds=rounds,
                                 trials=trials, rng=rng, sampler=broken_noise("BROKEN zero noise", "laplace", None, zero))
    return dataclasses.replace(rel, mechanism="BROKEN " + rel.mechanism + " (exact answers)")


def online_mw_dr_exact_values(x, stream, *, alpha, epsilon, delta=0.0, beta=0.05, n=None, c=None, threshold=None,
                              trials=None, rng=None):
    """BROKEN DR-Alg6: NumericSparse's numeric answers carry no noise (``σ(ε2)`` forgotten), so a ``⊤`` round
    releases ``f_i(D)`` exactly.  The ``ε2`` share of the budget is claimed but never spent."""
    x = check_histogram(x)
    c_used = sv_updates(MultiplicativeWeightsIDC(x.size, alpha).bound()) if c is None else c   # validates alpha
    sigma2 = numeric_sparse_sigma(numeric_sparse_split(epsilon, delta)[1], c_used, delta) / public_n(x, n)

    def sampler(scale, size, rng_):
        draw = laplace_noise(scale, size, rng_)
        return np.zeros_like(draw) if scale == sigma2 else draw

    rel = online_mw_dr(x, stream, alpha=alpha, epsilon=epsilon, delta=delta, beta=beta, n=n, c=c, threshold=threshold,
                       trials=trials, rng=rng, sampler=broken_noise("BROKEN laplace without σ2", "laplace", None, sampler))
    return dataclasses.replace(rel, mechanism="BROKEN " + rel.mechanism + " (exact values)")


def online_idc_sv_stream_sees_data(x, rule, stream, *, epsilon, delta, beta=0.05, n=None, c=None, trials=None,
                                   rng=None, logs=False):
    """BROKEN IDC-Alg1-SV: the adversarial analyst is shown the **true answers** of the database being run.

    The bug (the loop as it once was): the online loop handed ``Q(D)`` for every query to the stream, so an
    :class:`~dpbook.idc.AdversarialStream` chose its queries by the hypothesis' error about ``D`` itself — a
    different analyst on each neighbour.  The queries asked (part of the transcript) are then a deterministic
    function of the data: with ``x = (83, 17)`` vs ``x' = (82, 17)`` (public ``n = 100``), the two element counts
    as the workload and the uniform hypothesis, round 1 asks query 0 on ``x`` and query 1 on ``x'`` — infinite
    privacy loss, whatever the noise.
    Here the stream's reference is silently replaced by ``x`` (the same numbers the old loop passed); the correct
    mechanism only ever shows the stream what was released, and the analyst's reference is fixed in advance.
    """
    stream = as_stream(stream)
    if isinstance(stream, AdversarialStream):
        stream = AdversarialStream(stream.workload, stream.T, stream.below, reference=x)     # WRONG: D leaks in
    rel = online_idc_sv(x, rule, stream, epsilon=epsilon, delta=delta, beta=beta, n=n, c=c, trials=trials, rng=rng,
                        logs=logs)
    return dataclasses.replace(rel, mechanism="BROKEN " + rel.mechanism + " (the stream sees the data)")


def _example_update_fires(**kw):
    """A database whose first query's answer is far off the uniform start: an update fires, so each seed's noise
    (and each twin's bug) shows in the release."""
    from ..queries import MatrixWorkload
    Q = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    return dict(x=np.array([600, 0, 0, 0]), epsilon=0.5, delta=1e-3, n=600, trials=10, rng=0, **kw)


def _example_sv(**kw):
    from ..queries import MatrixWorkload
    Q = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    return _example_update_fires(rule=MultiplicativeWeightsIDC(4, 0.3), stream=MatrixWorkload(Q), beta=1.0, c=1, **kw)


example(online_idc_sv_exact_release, _example_sv)
example(online_idc_sv_stream_sees_data, _example_sv)
example(iterative_construction_exact_answers, lambda: _example_update_fires(
    workload=np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]]), rule=MultiplicativeWeightsIDC(4, 0.3), rounds=3))
example(online_mw_dr_exact_values, lambda: _example_update_fires(
    stream=np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]]), alpha=0.1, c=1, threshold=0.5))
