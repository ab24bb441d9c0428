"""Broken sparse-vector variants: positive controls for the chapter 06 audits.  NEVER use them on data.

Each takes the arguments of :func:`dpbook.sparse_vector.above_threshold_stream` (plus ``c`` where the
mechanism has one), *claims* ``epsilon``-DP, and returns a :class:`~dpbook.sparse_vector.SparseVectorRelease`.
The docstring of each says what is wrong.  The catalogue follows Lyu, Su and Li, "Understanding the Sparse
Vector Technique for Differential Privacy" (PVLDB 2017), plus the reading of Lecture 3 (erratum LEC3-E10).
"""
from __future__ import annotations

import numpy as np

from ..noise import as_generator, laplace_noise
from ..release import Spend
from ..sparse_vector import BOTTOM, TOP, UNANSWERED, SparseVectorRelease, check_stream, run_sparse
from ..theory.sparse_vector import above_threshold_scales
from ..validation import check_work, check_epsilon, check_int, check_real, check_trials

__all__ = [
    "above_threshold_renoise_threshold", "above_threshold_outputs_value", "above_threshold_no_query_noise",
    "sparse_vector_unscaled_noise", "above_threshold_no_halt",
]

#: The worst-case stream pairs and the audit builder live in :mod:`dpbook.audit.cases.sparse_vector` (a broken
#: twin does not import the audit); chapter 06 reads them under these names too.
_AUDIT_NAMES = ("StreamPair", "stream_audit_case", "halting_pair", "CATCHING_PAIRS", "CATCHING_TRIALS")


def __getattr__(name):
    """The names of :data:`_AUDIT_NAMES`, looked up in :mod:`dpbook.audit.cases.sparse_vector` when first read."""
    if name in _AUDIT_NAMES:
        import importlib
        return getattr(importlib.import_module("dpbook.audit.cases.sparse_vector"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _setup(f, threshold, epsilon, sensitivity, trials, sampler):
    f = check_stream(f)
    epsilon = check_epsilon(epsilon)
    threshold = check_real("threshold", threshold)
    trials = None if trials is None else check_trials(trials)
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(scale, size, rng), got {type(sampler).__name__}")
    threshold_scale, query_scale = above_threshold_scales(epsilon, sensitivity)
    return f, epsilon, threshold, trials, threshold_scale, query_scale


def _halt_at_first(above: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Answers that stop at the first ``True`` of each row, and that index (``m`` if none)."""
    trials, m = above.shape
    hit = np.where(above.any(axis=1), above.argmax(axis=1), m)
    answers = np.where(np.arange(m) < hit[:, None], np.int8(BOTTOM), np.int8(UNANSWERED))    # int8 throughout
    rows = np.flatnonzero(hit < m)
    answers[rows, hit[rows]] = TOP
    return answers, hit


def _release(answers, trials, epsilon, name, threshold, c, threshold_scale, query_scale, values=None):
    if trials is None:
        answers = answers[0]
        values = None if values is None else values[0]
    return SparseVectorRelease(answers, f"BROKEN {name}", threshold, c, threshold_scale, query_scale,
                               values=values, ledger=(Spend(f"BROKEN {name} (claimed)", epsilon),))


def above_threshold_renoise_threshold(f, *, threshold, epsilon, sensitivity=1.0, trials=None, rng=None,
        sampler=laplace_noise):
    """WRONG: draws a fresh threshold ``τ + Lap(2Δ/ε)`` at *every* check (Lecture 3's "applying Laplace noise
    to the threshold (at each check)", erratum LEC3-E10).

    Each ``⊥`` is then an independent noisy comparison and costs its own privacy: ``P[first j ⊥]`` differs
    by a factor ``(G(0)/G(-1))^j`` between ``f_i = τ`` and ``f_i = τ + 1`` — a log-ratio linear in ``j``
    (0.179·j at ε = 1), so the claim ε fails once ``j > 5``.
    """
    f, epsilon, threshold, trials, b_rho, b_nu = _setup(f, threshold, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    nu = sampler(b_nu, (R, f.size), rng)
    rho = sampler(b_rho, (R, f.size), rng)                      # BUG: one threshold draw per query
    answers, _ = _halt_at_first(f + nu >= threshold + rho)
    return _release(answers, trials, epsilon, "re-noised threshold", threshold, 1, b_rho, b_nu)


def above_threshold_outputs_value(f, *, threshold, epsilon, sensitivity=1.0, trials=None, rng=None,
        sampler=laplace_noise):
    """WRONG: at the ``⊤`` it also releases the noisy value ``f_i + ν_i`` it compared with the threshold
    (Lyu–Su–Li Alg. 3, from Roth's 2011 lecture notes; Lecture 3's "add Laplace noise to the value and return
    that").

    The released value is an upper bound on the secret threshold noise (``τ + ρ <= f_i + ν_i``), so a
    small value proves the threshold was low and every earlier ``⊥`` then costs up to ``ε/4``: no finite ε
    holds for long streams.  NumericSparse does this correctly, with *fresh* noise and extra budget.
    """
    f, epsilon, threshold, trials, b_rho, b_nu = _setup(f, threshold, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    nu = sampler(b_nu, (R, f.size), rng)
    rho = sampler(b_rho, (R, 1), rng)
    noisy = f + nu
    answers, _ = _halt_at_first(noisy >= threshold + rho)
    values = np.where(answers == TOP, noisy, np.nan)            # BUG: releases the comparison's own noise
    return _release(answers, trials, epsilon, "outputs noisy value", threshold, 1, b_rho, b_nu, values)


def above_threshold_no_query_noise(f, *, threshold, epsilon, sensitivity=1.0, trials=None, rng=None,
        sampler=laplace_noise):
    """WRONG: adds no noise to the queries, only to the threshold (Lyu–Su–Li Alg. 5, Stoddard et al. 2014).

    With ``f(D) = (0, 1)`` and ``f(D') = (1, 0)`` at ``τ = 0``, the answers ``(⊥, ⊤)`` need
    ``0 < ρ <= 1`` on ``D`` but ``1 < ρ <= 0`` on ``D'``: probability ``> 0`` against exactly 0, i.e. ∞-DP.
    """
    f, epsilon, threshold, trials, b_rho, _ = _setup(f, threshold, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    rho = sampler(b_rho, (R, 1), rng)
    answers, _ = _halt_at_first(f >= threshold + rho)                    # BUG: f_i compared without noise
    return _release(answers, trials, epsilon, "no query noise", threshold, 1, b_rho, 0.0)


def sparse_vector_unscaled_noise(f, *, threshold, c, epsilon, sensitivity=1.0, trials=None, rng=None,
        sampler=laplace_noise):
    """WRONG: Sparse with ``c`` positives but AboveThreshold's noise for the *whole* ε in each run
    (thresholds ``Lap(2Δ/ε)``, queries ``Lap(4Δ/ε)`` instead of ``Lap(2cΔ/ε)``, ``Lap(4cΔ/ε)``).

    Each of the ``c`` runs is ε-DP, so the whole is only ``cε``-DP — the budget was not divided by ``c``
    (the noise of Lyu–Su–Li Alg. 4, Lee & Clifton 2014, likewise does not grow with ``c``).
    """
    f, epsilon, threshold, trials, b_rho, b_nu = _setup(f, threshold, epsilon, sensitivity, trials, sampler)
    c = check_int("c", c, low=1)
    check_work(trials=trials or 1, c=c)
    answers = run_sparse(f, threshold, c, b_rho, b_nu, trials or 1, as_generator(rng),
                         sampler)                         # BUG: scales of ε, not ε/c
    return _release(answers, trials, epsilon, "noise not scaled with c", threshold, c, b_rho, b_nu)


def above_threshold_no_halt(f, *, threshold, epsilon, sensitivity=1.0, trials=None, rng=None,
        sampler=laplace_noise):
    """WRONG: keeps answering after the first ``⊤`` with the same noisy threshold (Lyu–Su–Li Alg. 6,
    Chen et al. 2015: no cut-off ``c``).

    Every ``⊤`` costs privacy (its query value may have moved *down* while the ``⊥`` queries moved up):
    with ``m`` queries moving each way the loss grows linearly in ``m``, so no finite ε holds.
    """
    f, epsilon, threshold, trials, b_rho, b_nu = _setup(f, threshold, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    nu = sampler(b_nu, (R, f.size), rng)
    rho = sampler(b_rho, (R, 1), rng)
    answers = np.where(f + nu >= threshold + rho, TOP, BOTTOM).astype(np.int8)     # BUG: never halts
    return _release(answers, trials, epsilon, "no halting", threshold, f.size, b_rho, b_nu)
