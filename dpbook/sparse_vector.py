"""The sparse vector technique: AboveThreshold, Sparse and NumericSparse (DR-Alg1–3, chapter 06).

A stream of queries ``f_1, ..., f_k`` of sensitivity 1 and a public threshold ``τ``.  We want to learn
*which* queries are (approximately) above ``τ`` while paying only for the few that are:

* :func:`above_threshold` (DR-Alg1): ``τ̂ = τ + Lap(2/ε)`` drawn **once**; each query gets **fresh** noise
  ``Lap(4/ε)``; answer ``⊤`` if ``f_i + ν_i >= τ̂`` and halt, else ``⊥``.  ε-DP for any number of ``⊥``
  (DR-Thm3.23).  Lecture 3 re-noises the threshold at every check and returns a noisy value: both break
  privacy (erratum LEC3-E10; :mod:`dpbook.broken.sparse_vector` and chapter 06 show the audits catching them).
* :func:`sparse_vector` (DR-Alg2): up to ``c`` ``⊤`` answers, a fresh threshold after each one, i.e. ``c``
  AboveThreshold runs at ``ε/c`` (``δ = 0``) or ``ε/sqrt(8c ln(1/δ))`` (``δ > 0``) each (DR-Thm3.25).
* :func:`numeric_sparse` (DR-Alg3): Sparse at ``ε1``, plus a *fresh* Laplace value ``f_i + Lap(σ(ε2))`` at
  each ``⊤`` (DR-Thm3.27).

Two entry points per mechanism.  ``*_stream(f, ...)`` is the algorithm box itself, on a vector of query
values with a given sensitivity (the audits use it with worst-case patterns).  ``above_threshold(x,
workload, ...)`` etc. run it on a database: ``f = Q x / n`` (normalised), ``τ`` a fraction in ``[0, 1]`` and
every noise scale divided by ``n`` (sensitivity ``1/n``).  Comparing ``q(x) + ν/n >= τ + ρ/n`` is comparing
the count ``<q - τ, x> + ν >= ρ``, a query of sensitivity ``max(τ, 1 - τ) <= 1`` under add/remove, so the
threshold test is private even though ``n`` changes with the neighbour; the numeric values of
NumericSparse are released as ``(count + noise)/n`` with ``n`` public, as in chapter 01.

The stream is fixed in advance (the proofs also cover adaptively chosen queries).  ``trials`` runs the
mechanism that many times at once: the noise for all trials is one array and the halting indices are
computed with numpy, so experiments and audits over 10^6 runs take seconds.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .noise import laplace_noise
from .queries import check_database
from .release import Ledger, ReleaseRecord, Spend
from .theory.sparse_vector import (above_threshold_scales, numeric_sparse_composed_epsilon, numeric_sparse_sigma,
                                   numeric_sparse_split, sparse_composed_epsilon, sparse_per_run_epsilon,
                                   sparse_sigma)
from .contract import example, mechanism_prologue
from .validation import real_dtype, check_int, check_public_n, check_real, check_sensitivity, check_split, check_work

__all__ = [
    "TOP", "BOTTOM", "UNANSWERED", "SparseVectorRelease",
    "above_threshold", "sparse_vector", "numeric_sparse",
    "above_threshold_stream", "sparse_vector_stream", "numeric_sparse_stream",
    "check_stream", "empirical_alpha", "threshold_alpha",
]

TOP, BOTTOM, UNANSWERED = 1, 0, -1          # ⊤, ⊥, and "not asked: the mechanism had halted"


@dataclass(frozen=True)
class SparseVectorRelease(ReleaseRecord):
    """What a sparse-vector mechanism releases, and what it spent.

    ``answers``: int8 array ``(m,)`` or ``(trials, m)`` of ``TOP`` (1, ⊤), ``BOTTOM`` (0, ⊥) and
    ``UNANSWERED`` (-1, after the mechanism halted).  ``values``: NumericSparse's released numbers at the
    ``⊤`` positions (NaN elsewhere), ``None`` otherwise.  ``τ``, ``c``: the public threshold and cut-off.
    ``threshold_scale``, ``query_scale``, ``value_scale``: the Laplace scales used, in the units of the
    answers.  ``ledger``: every primitive private step (one entry per AboveThreshold run and per numeric
    value); for ``δ > 0`` the runs compose by advanced composition to the claimed ``(ε, δ)``.
    """

    answers: np.ndarray = field(repr=False)
    mechanism: str
    threshold: float
    c: int
    threshold_scale: float
    query_scale: float
    value_scale: float | None = None
    values: np.ndarray | None = field(default=None, repr=False)
    ledger: tuple[Spend, ...] = ()
    neighbours: str = "add/remove"
    trace: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def released(self) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """The ⊤/⊥ answers, and NumericSparse's released values beside them."""
        return self.answers if self.values is None else (self.answers, self.values)

    @property
    def m(self) -> int:
        """Length of the query stream."""
        return self.answers.shape[-1]

    @property
    def above(self) -> np.ndarray:
        """Boolean mask of the ``⊤`` answers."""
        return self.answers == TOP

    @property
    def answered(self) -> np.ndarray:
        """Boolean mask of the queries that got an answer (``⊤`` or ``⊥``)."""
        return self.answers != UNANSWERED

    @property
    def num_above(self) -> np.ndarray | int:
        """Number of ``⊤`` answers (per trial)."""
        return self.above.sum(axis=-1)

    @property
    def halted(self) -> np.ndarray | bool:
        """Whether the mechanism used up its ``c`` positives (and ignored the rest of the stream)."""
        return self.num_above >= self.c


def empirical_alpha(release: SparseVectorRelease, f) -> np.ndarray | float:
    """The smallest α for which a run meets DR-Def3.9/3.10: the largest of ``τ - f_i`` over the ``⊤`` answers,
    ``f_i - τ`` over the ``⊥`` answers and ``|a_i - f_i|`` over NumericSparse's values (``-inf`` if none).

    ``f`` are the true query values in the release's units.  DR-Thm3.24/3.26/3.28 say this is ``< α`` except
    with probability ``β``; on a stream with queries at ``τ ± α`` it is ``>= α`` exactly when the run
    answers wrongly (so the mechanism may also halt early only through a wrong ``⊤``).
    """
    f = check_stream(f)
    answers = np.atleast_2d(release.answers)
    if answers.shape[1] != f.size:
        raise ValueError(f"f has {f.size} values but the release answered a stream of {answers.shape[1]}")
    tau = release.threshold
    top = answers == TOP
    miss = np.full(answers.shape, -np.inf)                  # unanswered queries miss nothing
    np.copyto(miss, tau - f, where=top)
    np.copyto(miss, f - tau, where=answers == BOTTOM)
    if release.values is not None:                          # in place: one (trials, m) array, not five
        values = np.atleast_2d(release.values)
        np.maximum(miss, np.abs(np.nan_to_num(values) - f), out=miss, where=top)
    out = miss.max(axis=1)
    return float(out[0]) if release.answers.ndim == 1 else out


# ------------------------------------------------------------------------------------- validation

def check_stream(f, name: str = "f") -> np.ndarray:
    """A query stream: a non-empty 1-D array of finite real query values ``f_i(D)``."""
    arr = np.asarray(f)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a 1-D array of real query values, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of query values, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; query values must be finite")
    return arr.astype(np.float64)


def _prologue(epsilon, delta, rng, sampler, trials):
    """The mechanisms' prologue (:func:`dpbook.contract.mechanism_prologue`) for a stream: Laplace noise on
    real query values (normalised answers are off any lattice: lattice noise is refused)."""
    return mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, trials=trials,
                              family="laplace", lattice_ok=False)


# ------------------------------------------------------------------------------------- the engine

def run_sparse(f, threshold, c, threshold_scale, query_scale, trials, rng, sampler=laplace_noise) -> np.ndarray:
    """DR-Alg2's loop for validated inputs: ``(trials, m)`` int8 answers.

    The query noise ``ν ~ Lap(query_scale)`` is one ``(trials, m)`` array (each query is compared once);
    the ``c`` thresholds ``τ + Lap(threshold_scale)`` are one ``(trials, c)`` array: query ``i`` of a trial
    is compared with threshold number "``⊤`` answers so far", and nothing is answered after the ``c``-th ``⊤``.
    """
    m = f.size
    noisy = f + sampler(query_scale, (trials, m), rng)
    thresholds = threshold + sampler(threshold_scale, (trials, c), rng)
    if c <= 8 or c * trials < 2_000:                         # both scans give identical answers; by rounds costs
        return _scan_rounds(noisy, thresholds)               # c full passes, by queries m narrow ones
    return _scan_queries(noisy, thresholds)


def _scan_queries(noisy, thresholds):
    """One numpy step per query over all trials (fast when ``c`` and ``trials`` are large)."""
    trials, m = noisy.shape
    c = thresholds.shape[1]
    answers = np.full((trials, m), UNANSWERED, dtype=np.int8)
    count = np.zeros(trials, dtype=np.int64)                 # ⊤ answers so far = index of the current threshold
    rows = np.arange(trials)
    for i in range(m):
        live = count < c
        if not live.any():
            break
        top = live & (noisy[:, i] >= thresholds[rows, np.minimum(count, c - 1)])
        answers[live, i] = np.where(top[live], TOP, BOTTOM)
        count += top
    return answers


def _scan_rounds(noisy, thresholds):
    """One numpy step per threshold over all trials and queries (fast for ``c = 1`` or few trials).

    Round ``j`` finds, in every trial, the first query from its current position whose noisy value reaches
    threshold ``j``: the queries before it are ``⊥``, it is ``⊤``, and the next round starts after it.
    """
    trials, m = noisy.shape
    idx = np.arange(m)
    answers = np.full((trials, m), UNANSWERED, dtype=np.int8)
    start = np.zeros(trials, dtype=np.int64)
    for j in range(thresholds.shape[1]):
        if np.all(start >= m):
            break
        pending = idx >= start[:, None]
        above = (noisy >= thresholds[:, j:j + 1]) & pending
        hit = np.where(above.any(axis=1), above.argmax(axis=1), m)
        answers[pending & (idx < hit[:, None])] = BOTTOM
        rows = np.flatnonzero(hit < m)
        answers[rows, hit[rows]] = TOP
        start = hit + 1
    return answers


def _finish(answers, trials):
    return answers[0] if trials is None else answers


# ------------------------------------------------------------------------------------- stream mechanisms

def above_threshold_stream(f, *, threshold, epsilon, sensitivity=1.0, trials=None, rng=None,
                           sampler=laplace_noise) -> SparseVectorRelease:
    """DR-Alg1 AboveThreshold on query values ``f`` of the given sensitivity — ε-DP (DR-Thm3.23).

    ``τ̂ = τ + Lap(2Δ/ε)`` once; ``⊤`` at the first ``i`` with ``f_i + Lap(4Δ/ε) >= τ̂``, then halt.
    Accuracy: DR-Thm3.24, ``α = 8(ln m + ln(2/β))Δ/ε`` (:func:`dpbook.theory.sparse_vector.above_threshold_alpha`).
    """
    f = check_stream(f)
    p = _prologue(epsilon, 0.0, rng, sampler, trials)
    epsilon, trials = p.epsilon, p.trials
    threshold = check_real("threshold", threshold)
    threshold_scale, query_scale = above_threshold_scales(epsilon, sensitivity)   # 2Δ/ε once, 4Δ/ε per query
    answers = run_sparse(f, threshold, 1, threshold_scale, query_scale, trials or 1, p.rng, p.noise)
    return SparseVectorRelease(_finish(answers, trials), "above_threshold", threshold, 1,
                               threshold_scale, query_scale, ledger=(Spend("above_threshold", epsilon),))


def sparse_vector_stream(f, *, threshold, c, epsilon, delta=0.0, sensitivity=1.0, trials=None, rng=None,
                         sampler=laplace_noise) -> SparseVectorRelease:
    """DR-Alg2 Sparse: up to ``c`` ``⊤`` answers, a new threshold after each — (ε, δ)-DP (DR-Thm3.25).

    ``σ = 2cΔ/ε`` (``δ = 0``) or ``sqrt(32c ln(1/δ))Δ/ε`` (``δ > 0``); thresholds ``τ + Lap(σ)``, query noise
    ``Lap(2σ)``: ``c`` AboveThreshold runs at ``ε' = ε/c`` or ``ε/sqrt(8c ln(1/δ))``.  Accuracy: DR-Thm3.26.
    """
    f = check_stream(f)
    p = _prologue(epsilon, delta, rng, sampler, trials)
    epsilon, delta, trials = p.epsilon, p.delta, p.trials
    c = check_int("c", c, low=1)
    threshold = check_real("threshold", threshold)
    check_work(trials=trials or 1, c=c)                   # c thresholds per trial
    check_split(epsilon, c, parts_name="c")
    sensitivity = check_sensitivity(sensitivity)
    epsilon_run = sparse_per_run_epsilon(epsilon, c, delta)                # ε/c or ε/sqrt(8c ln(1/δ))
    sigma = sparse_sigma(epsilon, c, delta) * sensitivity                   # = 2Δ/ε_run
    _require(sparse_composed_epsilon(epsilon, c, delta), epsilon, delta)
    answers = run_sparse(f, threshold, c, sigma, 2.0 * sigma, trials or 1, p.rng, p.noise)
    ledger = Ledger((Spend(f"above_threshold run {j + 1}", epsilon_run) for j in range(c)),
                    rule="basic" if delta == 0.0 else "advanced-corollary", delta_prime=delta,   # DR-Cor3.21
                    budget=epsilon)
    return SparseVectorRelease(_finish(answers, trials), "sparse_vector", threshold, c, sigma,
                               2.0 * sigma, ledger=ledger)


example(sparse_vector_stream, lambda: dict(f=np.linspace(0.0, 1.0, 40), threshold=0.5, c=5, epsilon=0.9, delta=1e-6,
                                           rng=0))


def numeric_sparse_stream(f, *, threshold, c, epsilon, delta=0.0, sensitivity=1.0, trials=None, rng=None,
                          sampler=laplace_noise) -> SparseVectorRelease:
    """DR-Alg3 NumericSparse: Sparse at ``σ(ε1)`` plus ``f_i + Lap(σ(ε2))`` at each ``⊤`` — (ε, δ)-DP
    (DR-Thm3.27).

    Box values: ``(ε1, ε2) = (8ε/9, 2ε/9)`` or ``(sqrt512, 2)·ε/(sqrt512+1)``; ``σ(ε) = 2c/ε`` or
    ``sqrt(32c ln(2/δ))/ε`` (times Δ).  The numeric noise is *fresh*, independent of the comparison.
    Accuracy: DR-Thm3.28 (printed δ > 0 value too small for the numeric answers; see
    :func:`dpbook.theory.sparse_vector.numeric_sparse_alpha_corrected`).
    """
    f = check_stream(f)
    p = _prologue(epsilon, delta, rng, sampler, trials)
    epsilon, delta, trials, rng, sampler = p.epsilon, p.delta, p.trials, p.rng, p.noise
    c = check_int("c", c, low=1)
    threshold = check_real("threshold", threshold)
    check_work(trials=trials or 1, c=c)                   # c thresholds per trial
    check_split(epsilon, c, parts_name="c")
    sensitivity = check_sensitivity(sensitivity)
    epsilon1, epsilon2 = numeric_sparse_split(epsilon, delta)              # Sparse, numeric values
    sigma1 = numeric_sparse_sigma(epsilon1, c, delta) * sensitivity          # thresholds Lap(σ1), queries Lap(2σ1)
    sigma2 = numeric_sparse_sigma(epsilon2, c, delta) * sensitivity          # numeric answers Lap(σ2)
    _require(numeric_sparse_composed_epsilon(epsilon, c, delta), epsilon, delta)
    answers = run_sparse(f, threshold, c, sigma1, 2.0 * sigma1, trials or 1, rng, sampler)
    values = np.where(answers == TOP, f + sampler(sigma2, answers.shape, rng), np.nan)
    rule = "basic" if delta == 0.0 else "advanced-corollary"   # each group at δ/2 (DR-Cor3.21), the two added (DR-Thm3.27)
    ledger = Ledger((Ledger((Spend(f"above_threshold run {j + 1}", 2.0 * sensitivity / sigma1) for j in range(c)),
                     rule=rule, delta_prime=delta / 2, label="Sparse part"),
              Ledger((Spend(f"laplace value {j + 1}", sensitivity / sigma2) for j in range(c)),
                     rule=rule, delta_prime=delta / 2, label="numeric values")), budget=epsilon)
    return SparseVectorRelease(_finish(answers, trials), "numeric_sparse", threshold, c, sigma1,
                               2.0 * sigma1, sigma2, _finish(values, trials), ledger)


example(numeric_sparse_stream, lambda: dict(f=np.linspace(0.0, 1.0, 40), threshold=0.5, c=5, epsilon=0.9, delta=1e-6,
                                            rng=0))


def _require(composed: float, epsilon: float, delta: float) -> None:
    """Fail closed if the per-run budgets do not compose to the claimed ε (only possible for δ > 0)."""
    if composed > epsilon * (1 + 1e-12):
        raise ValueError(f"epsilon ({epsilon!r}) is too large for the delta ({delta!r}) budget split: the runs "
                         f"compose only to {composed:.4g}; use delta=0 (basic composition) instead")


# ------------------------------------------------------------------------------------- on a database

def _stated(neighbours, release):
    """The release with the neighbouring relation its claim is made under."""
    return dataclasses.replace(release, neighbours=neighbours)


def _normalised_stream(x, workload, threshold, n):
    """The true normalised answers ``Q x / n`` as a stream, the public ``n``, the neighbouring relation the
    claim holds under (``n`` given: add/remove; read from the data: replace-one), the threshold ``τ ∈ [0, 1]``,
    and the sensitivity of each normalised answer: ``1/n`` for queries in ``[0, 1]``, ``Δ∞/n`` for a workload whose
    entries leave it (``Δ∞ = W.linf_sensitivity(neighbours)``, from its
    :meth:`~dpbook.queries.Workload.entry_range`: overlapping cut queries have ``Δ∞ = 2``)."""
    x, W = check_database(x, workload)
    n, neighbours = check_public_n(n, x)
    linf = max(1.0, W.linf_sensitivity(neighbours))
    return W.counts(x) / n, n, neighbours, check_real("threshold", threshold, low=0.0, high=1.0), linf / n


def above_threshold(x, workload, *, threshold, epsilon, n=None, trials=None, rng=None,
                    sampler=laplace_noise) -> SparseVectorRelease:
    """AboveThreshold (DR-Alg1) on the normalised answers ``Q x / n`` with threshold ``τ ∈ [0, 1]`` — ε-DP.

    Noise ``Lap(2/ε)/n`` on the threshold (once) and ``Lap(4/ε)/n`` on each query; halts at the first ``⊤``.
    ``n``: the public row count (claim under add/remove); by default ``||x||_1`` (claim under replace-one).
    Queries with values in ``[0, 1]`` have sensitivity ``1/n``; a workload with larger entries pays for them
    (``Δ∞/n``, :func:`_normalised_stream`).
    """
    f, n, neighbours, threshold, sensitivity = _normalised_stream(x, workload, threshold, n)
    release = above_threshold_stream(f, threshold=threshold, epsilon=epsilon, sensitivity=sensitivity, trials=trials,
                                     rng=rng, sampler=sampler)
    return _stated(neighbours, release)


def sparse_vector(x, workload, *, threshold, c, epsilon, delta=0.0, n=None, trials=None, rng=None,
                  sampler=laplace_noise) -> SparseVectorRelease:
    """Sparse (DR-Alg2) on the normalised answers ``Q x / n``, threshold ``τ ∈ [0, 1]``, at most ``c`` ``⊤``
    (``n`` as in :func:`above_threshold`)."""
    f, n, neighbours, threshold, sensitivity = _normalised_stream(x, workload, threshold, n)
    release = sparse_vector_stream(f, threshold=threshold, c=c, epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                   trials=trials, rng=rng, sampler=sampler)
    return _stated(neighbours, release)


def numeric_sparse(x, workload, *, threshold, c, epsilon, delta=0.0, n=None, trials=None, rng=None,
                   sampler=laplace_noise) -> SparseVectorRelease:
    """NumericSparse (DR-Alg3) on ``Q x / n``: ``⊤/⊥`` plus a normalised noisy value at each ``⊤``
    (``n`` as in :func:`above_threshold`: the released values would reveal a private ``||x||_1`` under
    add/remove, so with ``n`` read from the data the claim is made under replace-one)."""
    f, n, neighbours, threshold, sensitivity = _normalised_stream(x, workload, threshold, n)
    release = numeric_sparse_stream(f, threshold=threshold, c=c, epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                    trials=trials, rng=rng, sampler=sampler)
    return _stated(neighbours, release)


def threshold_alpha(noisy, f, threshold, *, values=False) -> np.ndarray | float:
    """The empirical α (as :func:`empirical_alpha`) of answering **every** query by comparing a noisy answer with
    ``τ``: ``⊤`` where ``noisy >= τ``, else ``⊥`` — post-processing of a per-query release (e.g.
    :func:`dpbook.laplace.laplace_mechanism` at ``ε/m`` per query), the baseline Sparse is measured against.

    ``noisy``: shape ``(m,)`` or ``(trials, m)``, in the units of the stream ``f``.  ``values=True`` also counts
    ``|noisy_i - f_i|`` over the ``⊤`` answers (the released numbers, as NumericSparse's).  Returns a float for
    one run, else one value per trial.
    """
    f = check_stream(f)
    threshold = check_real("threshold", threshold)
    if not isinstance(values, (bool, np.bool_)):
        raise TypeError(f"values must be True or False, got {type(values).__name__} ({values!r})")
    arr = np.asarray(noisy)
    if arr.dtype == object or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) \
            or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"noisy must be an array of real answers, got dtype {arr.dtype}")
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim not in (1, 2) or arr.shape[-1] != f.size:
        raise ValueError(f"noisy (shape {arr.shape}) must have shape ({f.size},) or (trials, {f.size}) to match f")
    if not np.all(np.isfinite(arr)):
        raise ValueError("noisy contains NaN or inf; noisy answers must be finite")
    top = np.atleast_2d(arr) >= threshold
    miss = np.where(top, threshold - f, f - threshold)
    if values:
        miss = np.maximum(miss, np.where(top, np.abs(np.atleast_2d(arr) - f), -np.inf))
    out = miss.max(axis=1)
    return float(out[0]) if arr.ndim == 1 else out
