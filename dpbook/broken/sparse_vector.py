"""Broken sparse-vector variants: positive controls for the chapter 05 audits.  NEVER use them on data.

Each takes the arguments of :func:`dpbook.sparse_vector.above_threshold_stream` (plus ``c`` where the
mechanism has one), *claims* ``epsilon``-DP, and returns a :class:`~dpbook.sparse_vector.SparseVectorRelease`.
The docstring of each says what is wrong.  The catalogue follows Lyu, Su and Li, "Understanding the Sparse
Vector Technique for Differential Privacy" (PVLDB 2017), plus the reading of Lecture 3 (erratum LEC3-E10).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..audit import AuditCase
from ..noise import as_generator, laplace_noise
from ..release import Spend
from ..sparse_vector import BOTTOM, TOP, UNANSWERED, SparseVectorRelease, check_stream, run_sparse
from ..theory.sparse_vector import above_threshold_scales
from ..validation import check_work, check_epsilon, check_int, check_real, check_trials

__all__ = [
    "above_threshold_renoise_threshold", "above_threshold_outputs_value", "above_threshold_no_query_noise",
    "sparse_vector_unscaled_noise", "above_threshold_no_halt",
    "StreamPair", "stream_audit_case", "halting_pair", "CATCHING_PAIRS", "CATCHING_TRIALS",
]


def _setup(f, T, epsilon, sensitivity, trials, sampler):
    f = check_stream(f)
    epsilon = check_epsilon(epsilon)
    T = check_real("T", T)
    trials = None if trials is None else check_trials(trials)
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(scale, size, rng), got {type(sampler).__name__}")
    threshold_scale, query_scale = above_threshold_scales(epsilon, sensitivity)
    return f, epsilon, T, trials, threshold_scale, query_scale


def _halt_at_first(above: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Answers that stop at the first ``True`` of each row, and that index (``k`` if none)."""
    trials, k = above.shape
    hit = np.where(above.any(axis=1), above.argmax(axis=1), k)
    idx = np.arange(k)
    answers = np.where(idx < hit[:, None], BOTTOM, np.where(idx == hit[:, None], TOP, UNANSWERED)).astype(np.int8)
    return answers, hit


def _release(answers, trials, epsilon, name, T, c, threshold_scale, query_scale, values=None):
    if trials is None:
        answers = answers[0]
        values = None if values is None else values[0]
    return SparseVectorRelease(answers, epsilon, 0.0, f"BROKEN {name}", T, c, threshold_scale, query_scale,
                               values=values, ledger=(Spend(f"BROKEN {name} (claimed)", epsilon),))


def above_threshold_renoise_threshold(f, *, T, epsilon, sensitivity=1.0, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: draws a fresh threshold ``T + Lap(2Δ/ε)`` at *every* check (Lecture 3's "applying Laplace noise
    to the threshold (at each check)", erratum LEC3-E10).

    Each ``⊥`` is then an independent noisy comparison and costs its own privacy: ``P[first k ⊥]`` differs
    by a factor ``(G(0)/G(-1))^k`` between ``f_i = T`` and ``f_i = T + 1`` — a log-ratio linear in ``k``
    (0.179·k at ε = 1), so the claim ε fails once ``k > 5``.
    """
    f, epsilon, T, trials, b_rho, b_nu = _setup(f, T, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    nu = sampler(b_nu, (R, f.size), rng)
    rho = sampler(b_rho, (R, f.size), rng)                      # BUG: one threshold draw per query
    answers, _ = _halt_at_first(f + nu >= T + rho)
    return _release(answers, trials, epsilon, "re-noised threshold", T, 1, b_rho, b_nu)


def above_threshold_outputs_value(f, *, T, epsilon, sensitivity=1.0, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: at the ``⊤`` it also releases the noisy value ``f_i + ν_i`` it compared with the threshold
    (Lyu–Su–Li Alg. 3, from Roth's 2011 lecture notes; Lecture 3's "add Laplace noise to the value and return
    that").

    The released value is an upper bound on the secret threshold noise (``T + ρ <= f_i + ν_i``), so a
    small value proves the threshold was low and every earlier ``⊥`` then costs up to ``ε/4``: no finite ε
    holds for long streams.  NumericSparse does this correctly, with *fresh* noise and extra budget.
    """
    f, epsilon, T, trials, b_rho, b_nu = _setup(f, T, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    nu = sampler(b_nu, (R, f.size), rng)
    rho = sampler(b_rho, (R, 1), rng)
    noisy = f + nu
    answers, _ = _halt_at_first(noisy >= T + rho)
    values = np.where(answers == TOP, noisy, np.nan)            # BUG: releases the comparison's own noise
    return _release(answers, trials, epsilon, "outputs noisy value", T, 1, b_rho, b_nu, values)


def above_threshold_no_query_noise(f, *, T, epsilon, sensitivity=1.0, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: adds no noise to the queries, only to the threshold (Lyu–Su–Li Alg. 5, Stoddard et al. 2014).

    With ``f(D) = (0, 1)`` and ``f(D') = (1, 0)`` at ``T = 0``, the answers ``(⊥, ⊤)`` need
    ``0 < ρ <= 1`` on ``D`` but ``1 < ρ <= 0`` on ``D'``: probability ``> 0`` against exactly 0, i.e. ∞-DP.
    """
    f, epsilon, T, trials, b_rho, _ = _setup(f, T, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    rho = sampler(b_rho, (R, 1), rng)
    answers, _ = _halt_at_first(f >= T + rho)                    # BUG: f_i compared without noise
    return _release(answers, trials, epsilon, "no query noise", T, 1, b_rho, 0.0)


def sparse_vector_unscaled_noise(f, *, T, c, epsilon, sensitivity=1.0, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: Sparse with ``c`` positives but AboveThreshold's noise for the *whole* ε in each run
    (thresholds ``Lap(2Δ/ε)``, queries ``Lap(4Δ/ε)`` instead of ``Lap(2cΔ/ε)``, ``Lap(4cΔ/ε)``).

    Each of the ``c`` runs is ε-DP, so the whole is only ``cε``-DP — the budget was not divided by ``c``
    (the noise of Lyu–Su–Li Alg. 4, Lee & Clifton 2014, likewise does not grow with ``c``).
    """
    f, epsilon, T, trials, b_rho, b_nu = _setup(f, T, epsilon, sensitivity, trials, sampler)
    c = check_int("c", c, low=1)
    check_work(trials=trials or 1, c=c)
    answers = run_sparse(f, T, c, b_rho, b_nu, trials or 1, as_generator(rng), sampler)   # BUG: scales of ε, not ε/c
    return _release(answers, trials, epsilon, "noise not scaled with c", T, c, b_rho, b_nu)


def above_threshold_no_halt(f, *, T, epsilon, sensitivity=1.0, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: keeps answering after the first ``⊤`` with the same noisy threshold (Lyu–Su–Li Alg. 6,
    Chen et al. 2015: no cut-off ``c``).

    Every ``⊤`` costs privacy (its query value may have moved *down* while the ``⊥`` queries moved up):
    with ``m`` queries moving each way the loss grows linearly in ``m``, so no finite ε holds.
    """
    f, epsilon, T, trials, b_rho, b_nu = _setup(f, T, epsilon, sensitivity, trials, sampler)
    rng, R = as_generator(rng), trials or 1
    nu = sampler(b_nu, (R, f.size), rng)
    rho = sampler(b_rho, (R, 1), rng)
    answers = np.where(f + nu >= T + rho, TOP, BOTTOM).astype(np.int8)     # BUG: never halts
    return _release(answers, trials, epsilon, "no halting", T, f.size, b_rho, b_nu)


# ------------------------------------------------------------------------------------- worst-case inputs

@dataclass(frozen=True)
class StreamPair:
    """A neighbouring pair of query streams ``f`` (database D) and ``f_prime`` (D') with ``|f_i - f'_i| <= 1``
    — sensitivity-1 queries may move either way — and the events that separate the two output
    distributions.  Events take a :class:`SparseVectorRelease` of ``trials`` runs and return a boolean mask."""

    name: str
    f: np.ndarray = field(repr=False)
    f_prime: np.ndarray = field(repr=False)
    events: Mapping[str, Callable] = field(repr=False)
    c: int | None = None
    note: str = ""

    def __post_init__(self):
        f, fp = check_stream(self.f, "f"), check_stream(self.f_prime, "f_prime")
        if f.shape != fp.shape or np.max(np.abs(f - fp)) > 1:
            raise ValueError("f and f_prime must have the same length and differ by at most 1 per query")


def stream_audit_case(mechanism, pair: StreamPair, *, epsilon=2.0, delta=0.0, trials=200_000, kind=None,
                      **params) -> AuditCase:
    """A :class:`dpbook.audit.AuditCase` for ``mechanism(f, T=0, epsilon=..., trials=..., rng=...)`` (a ``*_stream``
    function, or a broken variant: ``kind`` then defaults to ``"control"``) on the pair and its events.
    ``c`` comes from the pair if it has one and the mechanism takes it; ``params`` go to the mechanism.  Run it with ``.run(rng)``."""
    if pair.c is not None and "c" in inspect.signature(mechanism).parameters:
        params.setdefault("c", pair.c)
    if delta:
        params["delta"] = delta
    if kind is None:
        kind = "control" if mechanism.__module__ == __name__ else "mechanism"

    def sampler(f):
        return lambda t, r: mechanism(f, T=0.0, epsilon=epsilon, trials=t, rng=r, **params)

    return AuditCase(f"{mechanism.__name__} on {pair.name}", f"{mechanism.__module__}.{mechanism.__name__}",
                     epsilon, delta, sampler(pair.f), sampler(pair.f_prime), pair.events, trials, pair.name, kind)


def _first_bottoms(j):
    return lambda rel: np.all(rel.answers[:, :j] == BOTTOM, axis=1)


def halting_pair(m: int) -> StreamPair:
    """DR-Thm3.23's proof pattern: ``m`` queries at ``T`` then one at ``T`` (D) against ``m`` at ``T + 1`` then one at
    ``T - 1`` (D'); events "halts at index j" for every j and "never halts" (the PA(ii) audit on the halting index)."""
    m = check_int("m", m, low=1, high=10 ** 5)           # one event (a Python closure) per query
    events = {f"halts at {j + 1}": (lambda rel, j=j: rel.answers[:, j] == TOP) for j in range(m + 1)}
    events["never halts"] = lambda rel: ~np.any(rel.answers == TOP, axis=1)
    return StreamPair(f"{m} queries at T+0/+1 then one at T+0/-1", np.zeros(m + 1), np.r_[np.ones(m), -1.0], events,
                      note="each ⊥ query moves up, the ⊤ query moves down: the proof's worst case")


def _value_event(m, u):
    def event(rel):
        last = rel.values[:, m]
        return np.all(rel.answers[:, :m] == BOTTOM, axis=1) & (rel.answers[:, m] == TOP) & (last <= u)
    return event


def _count_event(half, x):
    def event(rel):
        a = rel.answers
        return (np.sum(a[:, :half] == BOTTOM, axis=1) >= x) & (np.sum(a[:, half:] == TOP, axis=1) >= x)
    return event


#: For each broken variant, a pair and events that catch it at ε = 2 (chosen with the exact probabilities;
#: the correct mechanisms are audited on the same pairs).  Keys are the broken functions' names.
CATCHING_PAIRS = {
    "above_threshold_renoise_threshold": StreamPair(
        "24 queries at T-2 (D) vs T-1 (D')", np.full(24, -2.0), np.full(24, -1.0),
        {f"first {j} answers ⊥": _first_bottoms(j) for j in (16, 20, 24)},
        note="every ⊥ is an independent comparison: the log-ratio of 'first k ⊥' is linear in k"),
    "above_threshold_outputs_value": StreamPair(
        "8 queries at T-1/2 then T (D) vs T+1/2 then T-1 (D')", np.r_[np.full(8, -0.5), 0.0],
        np.r_[np.full(8, 0.5), -1.0], {"⊥×8 then ⊤ with value <= T+1": _value_event(8, 1.0)}, c=1,
        note="a low released value caps the secret threshold, and then each ⊥ costs up to ε/4"),
    "above_threshold_no_query_noise": StreamPair(
        "(T, T+1) (D) vs (T+1, T) (D')", np.array([0.0, 1.0]), np.array([1.0, 0.0]),
        {"(⊥, ⊤)": lambda rel: (rel.answers[:, 0] == BOTTOM) & (rel.answers[:, 1] == TOP)},
        note="(⊥, ⊤) needs T < T̂ <= T+1 on D and T+1 < T̂ <= T on D': impossible"),
    "sparse_vector_unscaled_noise": StreamPair(
        "20 queries at T (D) vs T+1 (D'), c = 20", np.zeros(20), np.ones(20),
        {f"at least {j} ⊤": (lambda rel, j=j: np.sum(rel.answers == TOP, axis=1) >= j) for j in (14, 16, 18)},
        c=20, note="20 runs at the full ε each: their losses add up"),
    "above_threshold_no_halt": StreamPair(
        "40 queries at T (D) vs 20 at T+1 and 20 at T-1 (D')", np.zeros(40), np.r_[np.ones(20), -np.ones(20)],
        {f"≥{x} ⊥ in the first 20 and ≥{x} ⊤ in the last 20": _count_event(20, x) for x in (11, 12, 13)},
        note="every answer after the first ⊤ leaks: ⊥ queries moved up, ⊤ queries moved down"),
}

#: The audit sizes (trials) that make each control's ``epsilon_lb`` clearly exceed ε = 2 in a few seconds.
CATCHING_TRIALS = {"above_threshold_renoise_threshold": 400_000, "above_threshold_outputs_value": 1_000_000,
                   "above_threshold_no_query_noise": 100_000, "sparse_vector_unscaled_noise": 200_000,
                   "above_threshold_no_halt": 200_000}
