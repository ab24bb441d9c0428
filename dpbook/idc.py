"""Iterative database constructions (IDC) and online / offline query release (THEOREMS.md §6–§7, chapter 08).

**The abstraction (IDC-Def3.1, Def3.2).**  An *update rule* ``U`` keeps a hypothesis ``D^t`` about the private
database ``D``.  Whenever someone shows it a query ``Q`` on which the hypothesis is ``α``-wrong, together with
an answer ``Â`` that is ``α``-close to the truth (so the *sign* of ``Q(D) - Q(D^t)`` is right), it moves to
``D^{t+1} = U(D^t, Q, Â)``.  ``U`` is a ``B(α)``-IDC if no such *update sequence* is longer than ``B(α)``.
:class:`IDC` is that protocol; an IDC is a plug-in with four methods (``initial``, ``evaluate``, ``update``,
``bound``).  Three are provided:

* :class:`MultiplicativeWeightsIDC` (IDC-AlgA.2, ``B = 4 ln N/α²``), using chapter 07's
  :func:`dpbook.multiplicative_weights.idc_mw_update`;
* :class:`MedianIDC` (IDC-AlgA.1, ``B = floor(log2 |C^0|)``) over *all* databases of ``s`` rows of a tiny
  universe;
* :class:`FriezeKannanIDC` (IDC-Alg2, ``B = ||D||² N/α²``), additive cut-decomposition-style updates.

**The mechanisms.**

* :func:`online_idc_sv` — IDC-Alg1-SV, the provably private online mechanism (sparse vector on the score
  ``|Q(D) - Q(D^t)|``, a fresh Laplace answer at each update, at most ``c = B(α_U)`` updates).  Every privacy
  claim of the chapter uses it.
* :func:`online_idc` — GRU Algorithm 1 (IDC-Alg1) with the paper's structure: noisy comparison against
  ``T = 2α/3``, answer from the hypothesis or release the noisy answer and update, stop after ``B_max``
  updates.  Its ``ε0`` constant is **reconstructed** (IDC-Thm4.1 [RECON]); the chapter audits it.
* :func:`online_mw_dr` — DR-Alg6, Dwork–Roth's OnlineMW via NumericSparse (the reference implementation).
* :func:`iterative_construction` — the offline IC mechanism (IDC-Alg3, §7): a private distinguisher (the
  exponential mechanism over the workload) picks the worst query, a Laplace answer drives the IDC.  With the
  MW IDC this is the structure of MWEM.

**Streams.**  Queries come from a finite workload (the class ``Q``).  :class:`FixedStream` asks them in a
given order; :class:`AdversarialStream` asks, in every round and for every run, the query on which the
current hypothesis is most wrong (an analyst who knows ``D`` — a legitimate worst case for accuracy).

**Units.**  Answers are normalised, ``q(x) = <q, x>/n`` with ``n`` **public** (``n`` defaults to
``x.sum()``; pass the same ``n`` for both databases of a neighbouring pair, so every answer has
sensitivity exactly ``1/n``).  Runs are batched: every state has a leading ``trials`` axis.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import scipy.sparse as sp

from .exponential import exponential_mechanism
from .experiments import Errors
from .multiplicative_weights import idc_mw_update, kl_potential, uniform_hypothesis
from .noise import as_generator, as_noise, laplace
from .queries import Workload, as_workload
from .release import Ledger, Release, Spend
from .theory.sparse_vector import numeric_sparse_composed_epsilon, numeric_sparse_sigma, numeric_sparse_split
from .theory.idc import (alg1_threshold, dr_online_mw_threshold, fk_bound, fk_step, ic_epsilon0, ic_privacy_epsilon, median_bound,
                         mw_bound, sv_alpha_l, sv_alpha_sv, sv_epsilon0, sv_error_bound, sv_privacy_epsilon,
                         sv_threshold, sv_updates, thm41_epsilon, thm41_epsilon0)
from .validation import check_alpha, check_beta, check_delta, check_epsilon, check_histogram, check_int, check_real, check_trials

__all__ = [
    "IDC", "MultiplicativeWeightsIDC", "MedianIDC", "FriezeKannanIDC",
    "FixedStream", "AdversarialStream", "as_stream",
    "UpdateStep", "OracleRun", "drive_with_oracle", "update_sequence_violations", "is_update_sequence",
    "OnlineRelease", "online_idc_sv", "online_idc", "online_mw_dr", "iterative_construction",
    "project_histogram", "public_n",
]


# =========================================================================== the IDC protocol

class IDC(ABC):
    """An iterative database construction: an update rule ``U`` with its bound ``B(α)`` (IDC-Def3.2).

    States are batched: ``initial(trials)`` returns one hypothesis per run (leading axis ``trials``);
    ``evaluate(state, q)`` answers a query (shape ``(N,)`` shared, or ``(trials, N)`` one per run) on every
    hypothesis; ``update(state, q, noisy_answer)`` applies ``U`` to every row it is given (the mechanisms pass
    only the rows that update).  ``alpha`` is the accuracy the rule was built for, ``bound()`` is ``B(alpha)``.
    """

    name: str
    N: int
    alpha: float

    @abstractmethod
    def initial(self, trials: int = 1) -> np.ndarray:
        """``D^1 = U(⊥, ·, ·)`` for each of ``trials`` runs."""

    @abstractmethod
    def evaluate(self, state: np.ndarray, q: np.ndarray) -> np.ndarray:
        """``Q(D^t)`` (normalised) for every row of ``state``: shape ``(trials,)``."""

    @abstractmethod
    def update(self, state: np.ndarray, q: np.ndarray, noisy_answer: np.ndarray) -> np.ndarray:
        """``U(D^t, Q, Â)`` for every row of ``state`` (returns a new array)."""

    @abstractmethod
    def bound(self) -> float:
        """``B(α)``: no ``(U, D, Q, α, L)`` update sequence is longer than this."""

    @abstractmethod
    def potential(self, state: np.ndarray, x_bar: np.ndarray) -> np.ndarray:
        """The potential of the rule's proof (per run); each valid update lowers it."""

    def answers(self, state: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """The hypotheses' answers to every row of the ``m × N`` matrix ``Q``: shape ``(trials, m)``.

        ``einsum`` rather than ``@``: these products are small, and a multi-threaded BLAS on a busy two-core
        machine was measured 20x slower on them (benchmarks/bench_idc.py).
        """
        return np.einsum("tn,mn->tm", np.asarray(state, dtype=np.float64), Q)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(N={self.N}, alpha={self.alpha:.4g}, B={self.bound():.4g})"


def _check_N(N) -> int:
    return check_int("N", N, low=1)


class MultiplicativeWeightsIDC(IDC):
    """IDC-AlgA.2 ≡ DR-Alg5: ``D^0`` uniform; ``D^{t+1} ∝ D^t e^{-η r}`` with ``r = Q`` if ``Â < Q(D^t)`` else
    ``1 - Q``, ``η = α/2``.  A ``B(α) = 4 ln N/α²`` IDC for every class of linear queries (IDC-ThmA.4).

    The update is chapter 07's :func:`dpbook.multiplicative_weights.idc_mw_update`; the potential is
    ``Ψ_t = KL(D̄ ‖ D^t)`` (IDC-ClaimA.5, LemmaA.6).
    """

    name = "MW"

    def __init__(self, N, alpha):
        self.N = _check_N(N)
        self.alpha = check_real("alpha", alpha, low=0.0, high=2.0, low_open=True)   # η = α/2 must be <= 1
        self.eta = self.alpha / 2.0

    def initial(self, trials=1):
        return np.tile(uniform_hypothesis(self.N), (check_trials(trials), 1))

    def evaluate(self, state, q):
        return np.einsum("tn,tn->t", state, np.broadcast_to(q, state.shape)) if np.ndim(q) == 2 else state @ q

    def update(self, state, q, noisy_answer):
        return idc_mw_update(state, q, noisy_answer, self.eta, answer=self.evaluate(state, q), check=False)

    def bound(self):
        return mw_bound(self.alpha, self.N)

    def potential(self, state, x_bar):
        return np.atleast_1d(kl_potential(x_bar, state))


class FriezeKannanIDC(IDC):
    """IDC-Alg2 (Frieze–Kannan) [RECON]: ``D^0 = 0``; ``D^{t+1} = D^t ± η Q`` (``+`` if ``Â > Q(D^t)``),
    ``η = α/N``.  A ``B(α) = ||D||₂² N/α²`` IDC (IDC-Thm5.1), ``α`` in counts.

    Here the hypothesis is kept normalised (``g = D^t/n``, so ``Q(D^t)/n = <Q, g>`` and the step is ``α/N``
    with the normalised ``α``); it is a real vector, not a histogram.  ``B`` needs a **public** bound
    ``sq_norm`` on ``||D||₂²`` in counts: ``n`` for sets (every row distinct), ``n²`` for multisets (default).
    """

    name = "FK"

    def __init__(self, N, alpha, *, n, sq_norm=None):
        self.N = _check_N(N)
        self.alpha = check_alpha(alpha)
        self.n = check_int("n", n, low=1)
        self.sq_norm = float(self.n) ** 2 if sq_norm is None else check_real("sq_norm", sq_norm, low=0.0,
                                                                               low_open=True)
        self.eta = fk_step(self.alpha, self.N)         # normalised step α/N

    def initial(self, trials=1):
        return np.zeros((check_trials(trials, self.N), self.N))

    def evaluate(self, state, q):
        return np.einsum("tn,tn->t", state, np.broadcast_to(q, state.shape)) if np.ndim(q) == 2 else state @ q

    def update(self, state, q, noisy_answer):
        sign = np.where(np.asarray(noisy_answer) > self.evaluate(state, q), 1.0, -1.0)
        return state + self.eta * sign[:, None] * q

    def bound(self):
        return fk_bound(self.n * self.alpha, self.sq_norm, self.N)

    def potential(self, state, x_bar):
        return np.sum((x_bar - state) ** 2, axis=-1)


class MedianIDC(IDC):
    """IDC-AlgA.1 (the median mechanism) [RECON]: the hypothesis is a collection ``C`` of small databases,
    answered by the median ``Q(C) = median{Q(S) : S ∈ C}`` (IDC-DefA.1; ``np.median``: the mean of the two
    middle values for an even count).

    ``C^0`` is the set of **all** multisets of ``s`` rows over the ``N`` elements (``C(N+s-1, s)`` of them, so
    only tiny universes are feasible, THEOREMS.md §13).  ``U(C, Q, Â)`` keeps ``{S : Q(S) > Q(C)}`` if
    ``Â > Q(C)``, else ``{S : Q(S) < Q(C)}`` — at most half of ``C``.  A ``B = floor(log2 |C^0|)`` IDC for every
    ``α`` for which some size-``s`` database is α-accurate (Claim A.3 guarantees one for
    ``s > ln(2|Q|)/(2α²)``); check it on a workload with :meth:`best_accuracy`.

    The state is a boolean mask ``(trials, |C^0|)`` of the surviving databases.  If an update would leave
    none (possible only when the sequence is not a valid update sequence, i.e. outside the good event), the
    collection is left unchanged and :attr:`emptied` counts it.
    """

    name = "Median"

    def __init__(self, N, s, alpha):
        self.N = _check_N(N)
        self.s = check_int("s", s, low=1)
        size = median_bound(self.N, self.s)
        if size > 20:
            raise ValueError(f"s ({self.s}) is too large for N ({self.N}): C(N+s-1, s) > 2^21 databases")
        self.databases = self._enumerate()            # (|C0|, N) counts, rows sum to s
        self.points = self.databases / self.s         # each database as a distribution
        self.alpha = check_alpha(alpha)
        self.emptied = 0
        self._level_cache = None                       # (workload key, values, levels, one-hot) of answers()

    def _enumerate(self) -> np.ndarray:
        combos = np.array(list(itertools.combinations_with_replacement(range(self.N), self.s)), dtype=np.int64)
        counts = np.zeros((combos.shape[0], self.N), dtype=np.int64)
        np.add.at(counts, (np.repeat(np.arange(combos.shape[0]), self.s), combos.ravel()), 1)
        return counts

    @property
    def size(self) -> int:
        """``|C^0|``."""
        return self.databases.shape[0]

    def initial(self, trials=1):
        return np.ones((check_trials(trials, self.size), self.size), dtype=bool)

    def _values(self, q):
        return q @ self.points.T                       # (|C0|,) or (trials, |C0|)

    @staticmethod
    def _median(alive, values):
        values = np.broadcast_to(values, alive.shape)
        masked = np.where(alive, values, np.inf)
        srt = np.sort(masked, axis=1)
        count = alive.sum(axis=1)
        rows = np.arange(alive.shape[0])
        lo, hi = srt[rows, (count - 1) // 2], srt[rows, count // 2]
        return 0.5 * (lo + hi)

    def evaluate(self, state, q):
        return self._median(state, self._values(q))

    def update(self, state, q, noisy_answer):
        values = np.broadcast_to(self._values(q), state.shape)
        mu = self._median(state, values)[:, None]
        above = (np.asarray(noisy_answer) > mu[:, 0])[:, None]
        keep = state & np.where(above, values > mu, values < mu)
        empty = ~keep.any(axis=1)
        self.emptied += int(empty.sum())
        return np.where(empty[:, None], state, keep)

    def bound(self):
        return float(median_bound(self.N, self.s))

    def potential(self, state, x_bar):
        return np.log2(state.sum(axis=1))

    def answers(self, state, Q):
        """Median answers of every run's collection to every query, with no Python loop over runs.

        The values ``Q(S)`` take few distinct levels (multiples of ``1/s`` for counting queries), so one
        matrix product counts, per run and query, the surviving databases at each level; the median is
        read off the cumulative counts.  Many distinct levels (real-valued queries): one ``np.median`` per run.
        """
        key = (Q.shape, Q.tobytes())
        if self._level_cache is None or self._level_cache[0] != key:
            values = Q @ self.points.T                              # (m, |C0|)
            levels, inverse = np.unique(values, return_inverse=True)
            onehot = None
            if levels.size <= 64:
                m, L = values.shape[0], levels.size
                cols = (np.arange(m)[:, None] * L + inverse.reshape(m, -1)).T.ravel()   # (|C0|·m,) in row order
                onehot = sp.csr_matrix((np.ones(cols.size), cols, np.arange(0, cols.size + 1, m)),
                                       shape=(self.size, m * L))
            self._level_cache = (key, values, levels, onehot)
        _, values, levels, onehot = self._level_cache
        if onehot is None:
            return np.stack([np.median(values[:, row], axis=1) for row in state])
        m, L = values.shape[0], levels.size
        counts = np.asarray((onehot.T @ state.T.astype(np.float64)).T).reshape(-1, m, L)
        csum = np.cumsum(counts, axis=2)
        c = state.sum(axis=1)[:, None, None]
        lo = np.argmax(csum >= (c - 1) // 2 + 1 - 0.5, axis=2)      # levels of the two middle survivors
        hi = np.argmax(csum >= c // 2 + 1 - 0.5, axis=2)
        return 0.5 * (levels[lo] + levels[hi])

    def best_accuracy(self, x, workload, n=None) -> float:
        """``α*(s) = min_S max_q |q(S) - q(x)|`` over all size-``s`` databases (by enumeration; a diagnostic
        of the data, not used by any mechanism).  The IDC guarantee holds for every ``α > α*(s)``."""
        W = as_workload(workload)
        true = W.counts(check_histogram(x)) / public_n(x, n)
        err = np.abs(self.points @ W.matrix().T - true)   # (|C0|, m)
        return float(err.max(axis=1).min())


# =========================================================================== query streams

class FixedStream:
    """The workload's queries in a fixed order (the same in every run): ``W[order[0]], W[order[1]], ...``."""

    def __init__(self, workload, order=None):
        self.workload = as_workload(workload)
        order = np.arange(self.workload.m) if order is None else np.asarray(order)
        if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
            raise ValueError(f"order must be a non-empty 1-D integer array, got {order.dtype} {order.shape}")
        if order.min() < 0 or order.max() >= self.workload.m:
            raise ValueError(f"order must index the workload's {self.workload.m} queries")
        self.order = order.astype(np.int64)
        self.k = int(order.size)

    def pick(self, t, rule, state, Q, true):
        return int(self.order[t])


class AdversarialStream:
    """``k`` rounds; in each, every run is asked the workload query on which *its* hypothesis errs most.

    The analyst knows the true answers (``true`` is passed in by the mechanism) — the worst case for
    accuracy.  For privacy the same strategy is a fixed function of the transcript with ``D`` hard-coded.
    With ``below`` (e.g. the public threshold ``T_thr``) the analyst asks the worst query whose error is still
    *below* that value — the query the threshold test lets through, i.e. the worst case for the answers that
    come from the hypothesis (if no query is below, the worst query overall).
    """

    def __init__(self, workload, k, below=None):
        self.workload = as_workload(workload)
        self.k = check_int("k", k, low=1)
        self.below = None if below is None else check_real("below", below, low=0.0, low_open=True)

    def pick(self, t, rule, state, Q, true):
        err = np.abs(rule.answers(state, Q) - true)
        if self.below is None:
            return np.argmax(err, axis=1)
        masked = np.where(err < self.below, err, -1.0)
        return np.where(masked.max(axis=1) >= 0, np.argmax(masked, axis=1), np.argmax(err, axis=1))


def as_stream(stream):
    """A stream as is; a workload (or matrix) becomes a :class:`FixedStream` over all its queries in order."""
    if isinstance(stream, (FixedStream, AdversarialStream)) or (hasattr(stream, "pick") and hasattr(stream, "k")):
        return stream
    return FixedStream(stream)


# =========================================================================== helpers

def public_n(x, n=None) -> int:
    """The public database size used to normalise answers: ``n`` if given, else ``||x||_1``."""
    x = check_histogram(x)
    return int(x.sum()) if n is None else check_int("n", n, low=1)


def project_histogram(x, d, attributes) -> np.ndarray:
    """Marginalise a histogram over ``{0,1}^d`` onto the listed attributes (a universe of ``2^len`` elements).

    The first listed attribute becomes the most significant bit, as in :class:`dpbook.data.BinaryUniverse`.
    Used to build tiny universes (e.g. ``N = 8``) for the median mechanism.
    """
    x = check_histogram(x)
    d = check_int("d", d, low=1, high=40)
    if x.size != 1 << d:
        raise ValueError(f"x has {x.size} cells but {{0,1}}^d has {1 << d}")
    attributes = [check_int("attribute", a, low=0, high=d - 1) for a in attributes]
    if not attributes or len(set(attributes)) != len(attributes):
        raise ValueError("attributes must be a non-empty list of distinct attribute indices")
    cube = x.reshape((2,) * d)
    others = tuple(a for a in range(d) if a not in attributes)
    marg = cube.sum(axis=others)                       # remaining axes in sorted order
    order = [sorted(attributes).index(a) for a in attributes]
    return np.transpose(marg, axes=order).reshape(-1).astype(np.int64)


def _setup(x, rule, stream, n):
    x = check_histogram(x)
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC (e.g. MultiplicativeWeightsIDC), got {type(rule).__name__}")
    stream = as_stream(stream)
    W = stream.workload
    if W.N != x.size or rule.N != x.size:
        raise ValueError(f"x has {x.size} universe elements, the workload {W.N}, the rule {rule.N}: they must agree")
    n = public_n(x, n)
    Q = W.matrix()
    if np.any(Q < 0) or np.any(Q > 1):
        raise ValueError("workload queries must lie in [0, 1]")
    return x, stream, n, Q, W.counts(x) / n


def _trials(trials):
    return 1 if trials is None else check_trials(trials)


def _check_sampler(sampler):
    """The Laplace noise, continuous: the loops add it to normalised answers and thresholds (reals)."""
    return as_noise(sampler, family="laplace", lattice_ok=False)


def _rows(idx, Q, runs):
    """The query vectors asked this round: ``(N,)`` if shared, else ``(runs, N)``."""
    return Q[idx] if np.ndim(idx) == 0 else Q[np.asarray(idx)]


def _sub(q, rows):
    return q if q.ndim == 1 else q[rows]


# =========================================================================== Def 3.1 / Def 3.2

@dataclass(frozen=True)
class UpdateStep:
    """One entry ``(D^t, Q^t, Â^t)`` of a database update sequence (IDC-Def3.1): the state *before* the update."""

    state: np.ndarray = field(repr=False)
    query: int
    noisy_answer: float


def update_sequence_violations(log, x, rule, workload, alpha, n=None) -> list[str]:
    """Which conditions of IDC-Def3.1 a log ``[(D^t, Q^t, Â^t)]`` violates (an empty list: a valid sequence).

    1. ``D^1 = U(⊥)``; 2. ``|Q^t(D) - Q^t(D^t)| >= α``; 3. ``|Q^t(D) - Â^t| < α``; 4. ``D^{t+1} = U(D^t, Q^t, Â^t)``.
    """
    x = check_histogram(x)
    W = as_workload(workload)
    alpha = check_alpha(alpha)
    true = W.counts(x) / public_n(x, n)
    out = []
    log = list(log)
    if log and not np.allclose(log[0].state, rule.initial(1)[0]):
        out.append("1: D^1 is not U(⊥)")
    for t, step in enumerate(log):
        q = W.query(step.query)
        here = rule.evaluate(step.state[None], q)[0]
        if not abs(true[step.query] - here) >= alpha:
            out.append(f"2: |Q(D) - Q(D^t)| = {abs(true[step.query] - here):.4g} < alpha at t={t + 1}")
        if not abs(true[step.query] - step.noisy_answer) < alpha:
            out.append(f"3: |Q(D) - A^t| = {abs(true[step.query] - step.noisy_answer):.4g} >= alpha at t={t + 1}")
        if t + 1 < len(log):
            nxt = rule.update(step.state[None], q, np.array([step.noisy_answer]))[0]
            if not np.allclose(nxt, log[t + 1].state, rtol=1e-9, atol=1e-12):
                out.append(f"4: D^{t + 2} != U(D^{t + 1}, Q, A)")
    return out


def is_update_sequence(log, x, rule, workload, alpha, n=None) -> bool:
    """True iff the log is a ``(U, D, Q, α, L)`` database update sequence (IDC-Def3.1)."""
    return not update_sequence_violations(log, x, rule, workload, alpha, n)


@dataclass(frozen=True)
class OracleRun:
    """An IDC driven by an oracle that always shows the worst query with its exact answer (IDC-Def3.2 measure).

    ``updates``: the length ``L`` of the maximal update sequence; ``potentials``: the rule's potential before
    each update and after the last (``L + 1`` values); ``max_errors``: the hypothesis' max error over the
    workload at the same times; ``log``: the update sequence; ``state``: the final hypothesis.
    """

    updates: int
    potentials: np.ndarray
    max_errors: np.ndarray
    log: tuple
    state: np.ndarray = field(repr=False)


def drive_with_oracle(rule, x, workload, *, n=None, max_updates=None) -> OracleRun:
    """Run ``U`` on the update sequence chosen by the worst-case oracle until no query is ``α``-wrong.

    Each step shows the query with the largest ``|Q(D) - Q(D^t)|`` and its exact answer ``Â = Q(D)``;
    it stops when that error is ``< α`` (the sequence is maximal) or after ``max_updates`` steps
    (default ``floor(B(α)) + 1``: one more than any valid sequence may have).
    """
    x = check_histogram(x)
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC, got {type(rule).__name__}")
    W = as_workload(workload)
    n = public_n(x, n)
    Q = W.matrix()
    true = W.counts(x) / n
    x_bar = x / x.sum()
    limit = int(np.floor(rule.bound())) + 1 if max_updates is None else check_int("max_updates", max_updates, low=0)
    state = rule.initial(1)
    log, potentials, max_errors = [], [], []
    while True:
        err = np.abs(rule.answers(state, Q)[0] - true)
        j = int(np.argmax(err))
        potentials.append(float(rule.potential(state, x_bar)[0]))
        max_errors.append(float(err[j]))
        if err[j] < rule.alpha or len(log) >= limit:
            break
        log.append(UpdateStep(state[0].copy(), j, float(true[j])))
        state = rule.update(state, Q[j], np.array([true[j]]))
    return OracleRun(len(log), np.array(potentials), np.array(max_errors), tuple(log), state[0])


# =========================================================================== online mechanisms

@dataclass(frozen=True)
class OnlineRelease:
    """What an online IDC mechanism released, and what it spent.

    ``answers``: ``(k,)`` or ``(trials, k)`` — the released answer to each query of the stream (a noisy
    answer at an update, the hypothesis' answer otherwise).  ``queries``: the workload index of each asked
    query.  ``updated``: where a noisy answer was released and the hypothesis updated (``v_i != ⊥``).
    ``updates``: the number of updates per run.  ``halted``: the run reached its update cap (Alg1-SV: ``c``
    updates; Alg1: terminated after ``B_max + 1``), after which answers come from the hypothesis and the data
    are not touched.  ``hypothesis``: the final state.  ``params``: every public parameter (``epsilon0``,
    thresholds, noise scales, caps, theory bounds).  ``trace``: per-round internals for plots and the
    privacy-loss picture (``record=True``) and update logs (``logs=True``); never used to answer queries.
    """

    answers: np.ndarray = field(repr=False)
    epsilon: float
    delta: float
    mechanism: str
    queries: np.ndarray = field(repr=False)
    updated: np.ndarray = field(repr=False)
    updates: np.ndarray | int
    halted: np.ndarray | bool
    hypothesis: np.ndarray = field(repr=False)
    workload: Workload = field(repr=False)
    params: Mapping[str, Any] = field(default_factory=dict)
    ledger: tuple[Spend, ...] = field(default=(), repr=False)
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    neighbours: str = "add/remove"

    def errors(self, x, n=None) -> Errors:
        """``|a_i - Q_i(x)|`` for every round: :class:`dpbook.experiments.Errors` of shape ``(trials, k)``."""
        true = self.workload.counts(check_histogram(x)) / public_n(x, n)
        return Errors(np.atleast_2d(np.abs(self.answers - true[self.queries])))

    def hypothesis_errors(self, rule, x, n=None) -> np.ndarray:
        """Max error of each final hypothesis over the whole workload, shape ``(trials,)``."""
        true = self.workload.counts(check_histogram(x)) / public_n(x, n)
        state = self.hypothesis if self.answers.ndim == 2 else self.hypothesis[None]
        return np.abs(rule.answers(state, self.workload.matrix()) - true).max(axis=1)


def _relation(n) -> str:
    """The neighbouring relation of the claim: with a public ``n`` add/remove; with ``n`` read from the data,
    replace-one (the only relation under which ``||x||_1`` is the same for both databases)."""
    return "replace-one" if n is None else "add/remove"


def _release(single, answers, queries, updated, updates, halted, state, **fields) -> OnlineRelease:
    """Package a batched run; ``trials=None`` (a single run) drops the leading axis."""
    if single:
        answers, queries, updated, state = answers[0], queries[0], updated[0], state[0]
        updates, halted = int(updates[0]), bool(halted[0])
    return OnlineRelease(answers=answers, queries=queries, updated=updated, updates=updates, halted=halted,
                         hypothesis=state, **fields)


def online_idc_sv(x, rule, stream, *, epsilon, delta, beta=0.05, n=None, c=None, trials=None, rng=None,
                  sampler=laplace, logs=False) -> OnlineRelease:
    """IDC-Alg1-SV: online query release from an IDC, private by sparse vector + Laplace (THEOREMS.md §6).

    For each query ``Q_i`` of the (adaptive) ``stream``, with ``D^t`` the current hypothesis of ``rule``:
    the score ``g_i = |Q_i(D) - Q_i(D^t)|`` (sensitivity ``1/n``) gets fresh noise ``ν_i ~ Lap(4/(ε0 n))`` and
    is compared with a noisy threshold ``T̂ = T_thr + Lap(2/(ε0 n))``.  ``⊤``: release
    ``a_i = Q_i(D) + Lap(1/(ε0 n))``, update ``D^{t+1} = U(D^t, Q_i, a_i)``, redraw ``T̂``.  ``⊥``: answer
    ``Q_i(D^t)``.  After ``c`` updates every answer comes from the hypothesis (no data access).

    Parameters (IDC-Alg1-SV): ``α_U = rule.alpha``; ``c = max(1, floor(B(α_U)))`` unless a practical cap ``c``
    is given (privacy stays exact for the cap, the accuracy guarantee is void: §13);
    ``ε0 = ε/(4 sqrt(c ln(1/δ)))`` (``ε/(2c)`` if ``δ = 0``); ``T_thr = α_U + α_SV``.
    Guarantees: ``(ε, δ)``-DP; w.p. ``>= 1-β`` every answer is within ``α_U + 2α_SV`` (uncapped ``c``).
    ``logs=True`` keeps every run's update sequence ``[(D^t, Q^t, Â^t)]`` in ``trace["logs"]`` (IDC-Def3.1).
    """
    relation = _relation(n)
    x, stream, n, Q, true = _setup(x, rule, stream, n)
    epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta), check_beta(beta)
    B = rule.bound()
    c_theory = sv_updates(B) if B > 0 else 1
    c = c_theory if c is None else check_int("c", c, low=1)
    sampler, runs, rng = _check_sampler(sampler), _trials(trials), as_generator(rng)
    k = stream.k
    # ---- budget split: 2c steps (c AboveThreshold runs + c Laplace releases), each ε0-DP
    epsilon0 = sv_epsilon0(epsilon, delta, c)
    b_threshold, b_query, b_release = 2.0 / (epsilon0 * n), 4.0 / (epsilon0 * n), 1.0 / (epsilon0 * n)
    alpha_sv, alpha_l = sv_alpha_sv(c, k, beta, epsilon0, n), sv_alpha_l(c, beta, epsilon0, n)
    T_thr = sv_threshold(rule.alpha, alpha_sv)

    state = rule.initial(runs)
    T_hat = T_thr + sampler(b_threshold, runs, rng)
    answers, queries = np.empty((runs, k)), np.empty((runs, k), dtype=np.int64)
    updated = np.zeros((runs, k), dtype=bool)
    updates = np.zeros(runs, dtype=np.int64)
    logs = [[] for _ in range(runs)] if logs else None
    for i in range(k):
        idx = stream.pick(i, rule, state, Q, true)
        q = _rows(idx, Q, runs)
        hyp, mu = rule.evaluate(state, q), true[idx]
        active = updates < c                                        # no data access after c updates
        nu, release, fresh = (sampler(b, runs, rng) for b in (b_query, b_release, b_threshold))
        top = active & (np.abs(mu - hyp) + nu >= T_hat)
        a = np.where(top, mu + release, hyp)
        if top.any():
            if logs is not None:
                for r in np.flatnonzero(top):
                    logs[r].append(UpdateStep(state[r].copy(), int(np.broadcast_to(idx, runs)[r]), float(a[r])))
            state[top] = rule.update(state[top], _sub(q, top), a[top])
        T_hat = np.where(top, T_thr + fresh, T_hat)
        updates += top
        answers[:, i], queries[:, i], updated[:, i] = a, idx, top
    ledger = Ledger([Spend("AboveThreshold (sparse vector run)", epsilon0)] * c
                    + [Spend("Laplace release at an update", epsilon0)] * c,
                    rule="basic" if delta == 0.0 else "advanced", delta_prime=delta)
    params = dict(alpha_u=rule.alpha, B=B, c=c, c_theory=c_theory, capped=c < c_theory, epsilon0=epsilon0,
                  T_thr=T_thr, alpha_sv=alpha_sv, alpha_l=alpha_l, error_bound=sv_error_bound(rule.alpha, alpha_sv),
                  b_threshold=b_threshold, b_query=b_query, b_release=b_release, n=n, k=k, beta=beta,
                  composed_epsilon=sv_privacy_epsilon(epsilon0, c, delta))
    return _release(trials is None, answers, queries, updated, updates, updates >= c, state, epsilon=epsilon,
                    delta=delta, mechanism=f"IDC-Alg1-SV[{rule.name}]", workload=stream.workload, params=params,
                    ledger=ledger, trace={"logs": logs} if logs is not None else None, neighbours=relation)


def online_idc(x, rule, stream, *, delta, epsilon=None, epsilon0=None, b_max=None, n=None, c_star=2.0,
               trials=None, rng=None, sampler=laplace, record=False, logs=False) -> OnlineRelease:
    """IDC-Alg1 — GRU Algorithm 1, the paper's structure (THEOREMS.md §6) with a **reconstructed** ``ε0``.

    Build ``rule`` at ``α/3`` (its ``alpha``); then ``T = 2α/3 = 2·rule.alpha``, ``B_max = floor(B(α/3))`` (or a
    practical cap ``b_max``), ``Z_i ~ Lap(1/(ε0 n))``.  For each query: ``Â_i = Q_i(D) + Z_i``; if
    ``|Â_i - Q_i(D^t)| < T`` answer ``Q_i(D^t)`` (``v_i = ⊥``), else answer ``Â_i`` and update; terminate after
    more than ``B_max`` updates (later answers come from the hypothesis: no data access).

    ``ε0``: pass ``epsilon0`` directly, or ``epsilon`` to take the largest ``ε0`` allowed (at ``delta``) by the
    reconstructed IDC-Thm4.1 condition (:func:`dpbook.theory.idc.thm41_epsilon0`, constant ``c_star``).
    The ``epsilon``/``delta`` of the release are that **reconstructed** claim — audit it; for a guaranteed
    claim use :func:`online_idc_sv`.  Accuracy (IDC-Thm4.9): if ``T >= 2 ln(k/β)/(ε0 n)``, w.p. ``>= 1-β`` every
    answer is within ``3T/2`` and the mechanism never terminates early.
    ``record=True`` keeps the per-round hypothesis answers, noise and data-access flags in ``trace`` (for
    :mod:`dpbook.privacy_loss`); ``logs=True`` keeps every run's update sequence in ``trace["logs"]``.
    """
    relation = _relation(n)
    x, stream, n, Q, true = _setup(x, rule, stream, n)
    T = alg1_threshold(3.0 * rule.alpha)                       # = 2α/3 with α = 3·rule.alpha
    B = rule.bound()
    b_max = int(np.floor(B)) if b_max is None else check_int("b_max", b_max, low=0)
    if (epsilon0 is None) == (epsilon is None):
        raise ValueError("give either epsilon0 or epsilon (with delta), not both")
    delta = check_delta(delta, positive=True)
    if epsilon0 is None:
        epsilon0 = thm41_epsilon0(check_epsilon(epsilon), b_max, delta, c_star)
    else:
        epsilon0 = check_epsilon(epsilon0, "epsilon0")
    epsilon = thm41_epsilon(epsilon0, b_max, delta, c_star)     # the reconstructed claim for this ε0
    sampler, runs, rng = _check_sampler(sampler), _trials(trials), as_generator(rng)
    k = stream.k
    b = 1.0 / (epsilon0 * n)                                    # the only noise: Lap(1/(ε0 n)) per round

    state = rule.initial(runs)
    answers, queries = np.empty((runs, k)), np.empty((runs, k), dtype=np.int64)
    updated = np.zeros((runs, k), dtype=bool)
    hyp_all, noise_all, active_all = (np.empty((runs, k)), np.empty((runs, k)), np.zeros((runs, k), dtype=bool))
    updates = np.zeros(runs, dtype=np.int64)
    logs = [[] for _ in range(runs)] if logs else None
    for i in range(k):
        idx = stream.pick(i, rule, state, Q, true)
        q = _rows(idx, Q, runs)
        hyp, mu = rule.evaluate(state, q), true[idx]
        active = updates <= b_max                               # terminated once t > B_max
        Z = sampler(b, runs, rng)
        A_hat = mu + Z
        top = active & (np.abs(A_hat - hyp) >= T)
        a = np.where(top, A_hat, hyp)
        if top.any():
            if logs is not None:
                for r in np.flatnonzero(top):
                    logs[r].append(UpdateStep(state[r].copy(), int(np.broadcast_to(idx, runs)[r]), float(a[r])))
            state[top] = rule.update(state[top], _sub(q, top), a[top])
        updates += top
        answers[:, i], queries[:, i], updated[:, i] = a, idx, top
        hyp_all[:, i], noise_all[:, i], active_all[:, i] = hyp, Z, active
    params = dict(alpha=3 * rule.alpha, T=T, B=B, b_max=b_max, epsilon0=epsilon0, noise_scale=b, n=n, k=k,
                  c_star=c_star, reconstructed=True)
    trace = {"hypothesis_answers": hyp_all, "noise": noise_all, "active": active_all} if record else {}
    trace = (trace | {"logs": logs}) if logs is not None else (trace or None)
    ledger = (Spend("Algorithm 1: all rounds (reconstructed IDC-Thm4.1 accounting)", epsilon, delta),)
    return _release(trials is None, answers, queries, updated, updates, updates > b_max, state, epsilon=epsilon,
                    delta=delta, mechanism=f"IDC-Alg1[{rule.name}] (reconstructed eps0)", workload=stream.workload,
                    params=params, ledger=ledger, trace=trace, neighbours=relation)


def online_mw_dr(x, stream, *, alpha, epsilon, delta=0.0, beta=0.05, n=None, c=None, T=None, trials=None, rng=None,
                 sampler=laplace) -> OnlineRelease:
    """DR-Alg6 — OnlineMW via NumericSparse (Dwork–Roth; the reference IDC-Alg1-SV is derived from).

    MW hypothesis (IDC-AlgA.2 at ``α``); ``c = floor(4 ln N/α²)`` unless given; the box's threshold ``T``
    (:func:`dpbook.theory.idc.dr_online_mw_threshold`) unless given.  For each query ``f_i``, NumericSparse
    (DR-Alg3, box budget split ``ε1, ε2``, scales ``σ(ε)/n``) sees ``f'_{2i-1} = f_i - f_i(x^t)`` and
    ``f'_{2i} = f_i(x^t) - f_i``: threshold noise ``Lap(σ(ε1)/n)`` (redrawn after each ``⊤``), query noise
    ``Lap(2σ(ε1)/n)``, value ``f' + Lap(σ(ε2)/n)``.  Both ``⊥``: ``a_i = f_i(x^t)``; else ``a_i = f_i(x^t) ± E`` and
    ``x^{t+1} = MW(x^t, f_i, a_i)``.  After ``c`` ``⊤``'s NumericSparse halts; later answers come from the
    hypothesis.  Privacy: DR-Thm3.27 (NumericSparse is the only data access).  Accuracy [DERIVED]: see
    :func:`dpbook.theory.idc.dr_alg6_conditions` and :func:`~dpbook.theory.idc.dr_alg6_parameters`.
    """
    x = check_histogram(x)
    rule = MultiplicativeWeightsIDC(x.size, alpha)
    relation = _relation(n)
    x, stream, n, Q, true = _setup(x, rule, stream, n)
    epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta), check_beta(beta)
    c = sv_updates(rule.bound()) if c is None else check_int("c", c, low=1)
    k = stream.k
    T = dr_online_mw_threshold(c, epsilon, delta, k, beta, n) if T is None else check_real("T", T, low=0.0)
    sampler, runs, rng = _check_sampler(sampler), _trials(trials), as_generator(rng)
    # ---- budget split (DR-Alg3 box): Sparse at ε1, the c numeric values at ε2; scales for sensitivity 1/n
    epsilon1, epsilon2 = numeric_sparse_split(epsilon, delta)
    sigma1 = numeric_sparse_sigma(epsilon1, c, delta) / n
    sigma2 = numeric_sparse_sigma(epsilon2, c, delta) / n

    state = rule.initial(runs)
    T_hat = T + sampler(sigma1, runs, rng)
    answers, queries = np.empty((runs, k)), np.empty((runs, k), dtype=np.int64)
    updated = np.zeros((runs, k), dtype=bool)
    count = np.zeros(runs, dtype=np.int64)
    for i in range(k):
        idx = stream.pick(i, rule, state, Q, true)
        q = _rows(idx, Q, runs)
        hyp, mu = rule.evaluate(state, q), true[idx]
        value = np.zeros(runs)
        top = np.zeros(runs, dtype=bool)
        for sign in (1.0, -1.0):                                 # f'_{2i-1} = f - f(x^t), f'_{2i} = f(x^t) - f
            f = sign * (mu - hyp)
            nu, E, fresh = (sampler(b, runs, rng) for b in (2 * sigma1, sigma2, sigma1))
            hit = (count < c) & ~top & (f + nu >= T_hat)
            value = np.where(hit, hyp + sign * (f + E), value)
            T_hat = np.where(hit, T + fresh, T_hat)
            count += hit
            top |= hit
        a = np.where(top, value, hyp)
        if top.any():
            state[top] = rule.update(state[top], _sub(q, top), a[top])
        answers[:, i], queries[:, i], updated[:, i] = a, idx, top
    params = dict(alpha=alpha, c=c, T=T, epsilon1=epsilon1, epsilon2=epsilon2, threshold_scale=sigma1,
                  query_scale=2 * sigma1, value_scale=sigma2, n=n, k=k, beta=beta,
                  composed_epsilon=numeric_sparse_composed_epsilon(epsilon, c, delta))
    return _release(trials is None, answers, queries, updated, count, count >= c, state, epsilon=epsilon,
                    delta=delta, mechanism="DR-Alg6 OnlineMW", workload=stream.workload, params=params,
                    ledger=(Spend("NumericSparse (DR-Alg3) on the 2k one-sided queries", epsilon, delta),),
                    neighbours=relation)


# =========================================================================== offline IC (GRU §7)

def _distinguish(true, hyp, epsilon0, n, rng) -> np.ndarray:
    """The canonical private distinguisher (IDC-Def7.1): for each run (row of ``hyp``), the exponential
    mechanism over the workload with score ``|Q(D) - Q(D^t)|`` (``Δu = 1/n``), one independent pick per row."""
    return np.asarray(exponential_mechanism(np.abs(true - hyp), epsilon=epsilon0, sensitivity=1.0 / n, rng=rng),
                      dtype=np.int64)


def iterative_construction(x, workload, *, rule, epsilon, delta, n=None, rounds=None, trials=None, rng=None,
                           sampler=laplace) -> Release:
    """IDC-Alg3 — the Iterative Construction (IC) mechanism, offline (GRU §7; THEOREMS.md §7).

    Build ``rule`` at ``α/2``.  For ``t = 1..B(α/2)``: ``Q^t = Distinguish_{ε0}(D, D^{t-1})`` — the exponential
    mechanism over the workload with score ``|Q(D) - Q(D^{t-1})|`` (``Δu = 1/n``, the canonical private
    distinguisher of IDC-Def7.1); ``Â^t = Q^t(D) + Lap(1/(ε0 n))``; if ``|Â^t - Q^t(D^{t-1})| < 3α/4`` output
    ``D^{t-1}`` and stop; else ``D^t = U(D^{t-1}, Q^t, Â^t)``.  Budget (IDC-Thm7.2): ``2B`` accesses at
    ``ε0 = ε/(4 sqrt(B ln(1/δ)))`` (``ε/(2B)`` if ``δ = 0``).  ``rounds`` caps ``B`` (privacy recomputed for the
    cap; accuracy guarantee void).  Returns a :class:`Release` of the output hypothesis' answers on the
    workload; ``trace`` holds ``rounds_used``, ``stopped_early`` and the hypotheses.

    With :class:`MultiplicativeWeightsIDC` this is MWEM's structure (select by the exponential mechanism,
    measure with Laplace, multiplicative-weights update) with an early stop instead of averaging.
    """
    x = check_histogram(x)
    W = as_workload(workload)
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC, got {type(rule).__name__}")
    if W.N != x.size or rule.N != x.size:
        raise ValueError(f"x has {x.size} universe elements, the workload {W.N}, the rule {rule.N}: they must agree")
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    relation, n = _relation(n), public_n(x, n)
    B_theory = max(1, int(np.floor(rule.bound())))
    B = B_theory if rounds is None else check_int("rounds", rounds, low=1)
    sampler, runs, rng = _check_sampler(sampler), _trials(trials), as_generator(rng)
    # ---- budget split: B rounds x (distinguisher + Laplace), each ε0-DP
    epsilon0 = ic_epsilon0(epsilon, delta, B)
    stop = 1.5 * rule.alpha                                     # 3α/4 with α = 2·rule.alpha
    Q, true = W.matrix(), W.counts(x) / n
    state = rule.initial(runs)
    running = np.ones(runs, dtype=bool)
    rounds_used = np.zeros(runs, dtype=np.int64)
    for _ in range(B):
        if not running.any():
            break
        rows = np.flatnonzero(running)
        hyp = rule.answers(state[rows], Q)                      # (r, m)
        picks = _distinguish(true, hyp, epsilon0, n, rng)
        a_hat = true[picks] + sampler(1.0 / (epsilon0 * n), rows.size, rng)
        here = hyp[np.arange(rows.size), picks]
        rounds_used[rows] += 1
        go = np.abs(a_hat - here) >= stop
        running[rows[~go]] = False
        upd = rows[go]
        if upd.size:
            state[upd] = rule.update(state[upd], Q[picks[go]], a_hat[go])
    answers = rule.answers(state, Q)
    ledger = Ledger([Spend("exponential mechanism (distinguisher)", epsilon0), Spend("Laplace answer", epsilon0)] * B,
                    rule="basic" if delta == 0.0 else "advanced", delta_prime=delta)
    trace = {"rounds_used": rounds_used, "stopped_early": ~running, "hypothesis": state, "B": B, "B_theory": B_theory,
             "epsilon0": epsilon0, "stop_threshold": stop, "composed_epsilon": ic_privacy_epsilon(epsilon0, B, delta)}
    if trials is None:
        answers = answers[0]
        trace.update(rounds_used=int(rounds_used[0]), stopped_early=bool(~running[0]), hypothesis=state[0])
    return Release(answers, epsilon, delta, f"IC[{rule.name}]", noise_scale=1.0 / (epsilon0 * n), ledger=ledger,
                   trace=trace, neighbours=relation)
