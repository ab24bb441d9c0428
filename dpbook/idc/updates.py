"""The update rules of the IDC framework (IDC-Def3.1, Def3.2; chapter 10).

An *update rule* ``U`` keeps a hypothesis ``D^t`` about the private database ``D``.  Whenever someone shows it a
query ``Q`` on which the hypothesis is ``α``-wrong, together with an answer ``Â`` that is ``α``-close to the truth
(so the *sign* of ``Q(D) - Q(D^t)`` is right), it moves to ``D^{t+1} = U(D^t, Q, Â)``.  ``U`` is a ``B(α)``-IDC if
no such *update sequence* is longer than ``B(α)``.  :class:`IDC` is that protocol; three rules are provided:

* :class:`MultiplicativeWeightsIDC` (IDC-AlgA.2, ``B = 4 ln N/α²``): chapter 09's update, asked of the workload
  (:func:`dpbook.multiplicative_weights.mw_update`);
* :class:`MedianIDC` (IDC-AlgA.1, ``B = floor(log2 |C^0|)``) over *all* databases of ``n_S = sample_size`` rows
  of a tiny universe;
* :class:`FriezeKannanIDC` (IDC-Alg2, ``B = ||D||² N/α²``), additive cut-decomposition-style updates.

A query reaches a rule in one of two ways: as a vector over the universe (``evaluate(state, q)``,
``update(state, q, Â)``: the protocol as the paper writes it, used in the chapter), or as an index into a
workload (``evaluate_query(state, W, j)``, ``update_query(state, W, j, Â)``, ``answers(state, W)``: what the
mechanisms use, so no rule ever needs the workload's ``m × N`` matrix).
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod

import numpy as np

from ..multiplicative_weights import idc_mw_update, kl_potential, mw_update, uniform_hypothesis
from ..queries import Workload, as_workload
from ..theory.idc import fk_bound, fk_step, median_bound, mw_bound
from ..validation import MAX_INT, check_alpha, check_choice, check_histogram, check_int, check_real, check_trials
from .streams import public_n

__all__ = ["IDC", "MultiplicativeWeightsIDC", "MedianIDC", "FriezeKannanIDC", "RULES", "make_rule", "promised_drop"]


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

    def answers(self, state: np.ndarray, W) -> np.ndarray:
        """The hypotheses' answers to every query of the workload ``W``: shape ``(trials, m)``, the linear map
        ``W.apply(state)`` (no matrix is built).  An explicit ``m × N`` matrix is taken as the workload it defines
        (:func:`dpbook.queries.as_workload`)."""
        return as_workload(W, name="W").apply(np.asarray(state, dtype=np.float64))

    def evaluate_query(self, state: np.ndarray, W: Workload, j) -> np.ndarray:
        """``Q_j(D^t)`` for every row of ``state``, ``j`` one workload index or one per row: shape ``(trials,)``.
        Linear hypotheses: each row's count of its own query (:meth:`~dpbook.queries.Workload.counts_at`)."""
        return W.counts_at(np.asarray(state, dtype=np.float64), j)

    def update_query(self, state: np.ndarray, W: Workload, j, noisy_answer: np.ndarray) -> np.ndarray:
        """``U(D^t, Q_j, Â)`` for every row of ``state`` with ``Q_j`` the workload's query ``j`` (one index or one
        per row).  Generic: the query as a vector, ``Q_j = Wᵀ e_j`` (the adjoint :meth:`~dpbook.queries.Workload.
        rmatvec`), then :meth:`update`; the rules below override it without an ``N``-vector per query."""
        if np.ndim(j) == 0:
            q = W.rmatvec(np.eye(1, W.m, int(j))[0])                 # (N,): one query shared by every row
        else:
            onehot = np.zeros((state.shape[0], W.m))
            onehot[np.arange(state.shape[0]), j] = 1.0
            q = W.rmatvec(onehot)                                    # (trials, N): one query per row
        return self.update(state, q, noisy_answer)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(N={self.N}, alpha={self.alpha:.4g}, B={self.bound():.4g})"


def _check_N(N) -> int:
    return check_int("N", N, low=1)


def _check_bound(rule: IDC) -> None:
    """Refuse, naming ``alpha``, a rule whose update bound ``B(α)`` is too large to count (more than 2^53 updates)."""
    B = float(rule.bound())
    if not B <= MAX_INT:
        raise ValueError(f"alpha ({rule.alpha!r}) is too small for N = {rule.N}: the rule's bound on the number of "
                         f"updates, B(alpha) = {B:.3g}, exceeds 2^53")


class MultiplicativeWeightsIDC(IDC):
    """IDC-AlgA.2 ≡ DR-Alg5: ``D^0`` uniform; ``D^{t+1} ∝ D^t e^{-η r}`` with ``r = Q`` if ``Â < Q(D^t)`` else
    ``1 - Q``, ``η = α/2``.  A ``B(α) = 4 ln N/α²`` IDC for every class of linear queries (IDC-ThmA.4).

    The update is chapter 09's :func:`dpbook.multiplicative_weights.idc_mw_update` (on a query vector) or the
    :func:`~dpbook.multiplicative_weights.mw_update` (on a workload query); the potential is
    ``Ψ_t = KL(D̄ ‖ D^t)`` (IDC-ClaimA.5, LemmaA.6).
    """

    name = "MW"

    def __init__(self, N, alpha):
        self.N = _check_N(N)
        self.alpha = check_real("alpha", alpha, low=0.0, high=2.0, low_open=True)   # η = α/2 must be <= 1
        self.eta = self.alpha / 2.0
        _check_bound(self)

    def initial(self, trials=1):
        return np.tile(uniform_hypothesis(self.N), (check_trials(trials), 1))

    def evaluate(self, state, q):
        return np.einsum("tn,tn->t", state, np.broadcast_to(q, state.shape)) if np.ndim(q) == 2 else state @ q

    def update(self, state, q, noisy_answer):
        return idc_mw_update(state, q, noisy_answer, self.eta, answer=self.evaluate(state, q), check=False)

    def update_query(self, state, W, j, noisy_answer):
        """``D^{t+1} ∝ D^t · e^{∓η Q_j}``: ``−η`` where the noisy answer is below ``Q_j(D^t)``, else ``+η``
        (``e^{−η(1 − Q)} ∝ e^{ηQ}``), the workload's own multiplicative-weights update."""
        coefficient = np.where(np.asarray(noisy_answer) < self.evaluate_query(state, W, j), -self.eta, self.eta)
        return mw_update(W, state, j, coefficient, check=False)

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
        _check_bound(self)

    def initial(self, trials=1):
        return np.zeros((check_trials(trials, self.N), self.N))

    def evaluate(self, state, q):
        return np.einsum("tn,tn->t", state, np.broadcast_to(q, state.shape)) if np.ndim(q) == 2 else state @ q

    def update(self, state, q, noisy_answer):
        sign = np.where(np.asarray(noisy_answer) > self.evaluate(state, q), 1.0, -1.0)
        return state + self.eta * sign[:, None] * q

    def update_query(self, state, W, j, noisy_answer):
        """``D^t ± η Q_j``, i.e. ``D^t + Wᵀ(±η e_j)``, added on the query's non-zeros only."""
        step = self.eta * np.where(np.asarray(noisy_answer) > self.evaluate_query(state, W, j), 1.0, -1.0)
        picks = np.broadcast_to(np.asarray(j, dtype=np.int64), (state.shape[0],))
        out = np.array(state, dtype=np.float64)
        for q in np.unique(picks):
            rows = np.flatnonzero(picks == q)
            idx, val = W.query_support(int(q))
            out[np.ix_(rows, idx)] += step[rows, None] * val
        return out

    def bound(self):
        return fk_bound(self.n * self.alpha, self.sq_norm, self.N)

    def potential(self, state, x_bar):
        return np.sum((x_bar - state) ** 2, axis=-1)


class MedianIDC(IDC):
    """IDC-AlgA.1 (the median mechanism) [RECON]: the hypothesis is a collection ``C`` of small databases,
    answered by the median ``Q(C) = median{Q(S) : S ∈ C}`` (IDC-DefA.1; ``np.median``: the mean of the two
    middle values for an even count).

    ``C^0`` is the set of **all** multisets of ``n_S = sample_size`` rows over the ``N`` elements
    (``C(N+n_S-1, n_S)`` of them, so only tiny universes are feasible: chapter 10 runs it at ``N = 8``).
    ``U(C, Q, Â)`` keeps ``{S : Q(S) > Q(C)}`` if ``Â > Q(C)``, else ``{S : Q(S) < Q(C)}`` — at most half of ``C``.  A ``B = floor(log2 |C^0|)`` IDC for every
    ``α`` for which some ``n_S``-row database is α-accurate (Claim A.3 guarantees one for
    ``n_S > ln(2|Q|)/(2α²)``); check it on a workload with :meth:`best_accuracy`.

    The state is a boolean mask ``(trials, |C^0|)`` of the surviving databases.  If an update would leave
    none (possible only when the sequence is not a valid update sequence, i.e. outside the good event), the
    collection is left unchanged and :attr:`emptied` counts it.
    """

    name = "Median"

    def __init__(self, N, sample_size, alpha):
        self.N = _check_N(N)
        self.sample_size = check_int("sample_size", sample_size, low=1)
        size = median_bound(self.N, self.sample_size)
        if size > 20:
            raise ValueError(f"sample_size ({self.sample_size}) is too large for N ({self.N}): "
                             "C(N+sample_size-1, sample_size) > 2^21 databases")
        self.databases = self._enumerate()            # (|C0|, N) counts, rows sum to sample_size
        self.points = self.databases / self.sample_size   # each database as a distribution
        self.alpha = check_alpha(alpha)
        self.emptied = 0
        self._level_cache = None                       # (workload key, values, levels, one-hot) of answers()
        self._values_cache = None                      # (workload, W.counts(points)) of the workload methods

    def _enumerate(self) -> np.ndarray:
        combos = np.array(list(itertools.combinations_with_replacement(range(self.N), self.sample_size)),
                          dtype=np.int64)
        counts = np.zeros((combos.shape[0], self.N), dtype=np.int64)
        np.add.at(counts, (np.repeat(np.arange(combos.shape[0]), self.sample_size), combos.ravel()), 1)
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
        return self._keep(state, self._values(q), noisy_answer)

    def _workload_values(self, W) -> np.ndarray:
        """``Q(S)`` of every database ``S`` of ``C^0`` on every workload query: ``(|C^0|, m)``, one batched
        ``W.counts`` (cached for the last workload)."""
        if self._values_cache is None or self._values_cache[0] is not W:
            self._values_cache = (W, W.counts(self.points))
        return self._values_cache[1]

    def evaluate_query(self, state, W, j):
        values = self._workload_values(W)[:, j]                    # (|C0|,) shared, or (|C0|, trials)
        return self._median(state, values if np.ndim(j) == 0 else values.T)

    def update_query(self, state, W, j, noisy_answer):
        values = self._workload_values(W)[:, j]
        return self._keep(state, values if np.ndim(j) == 0 else values.T, noisy_answer)

    def _keep(self, state, values, noisy_answer):
        """``{S : Q(S) > Q(C)}`` if ``Â > Q(C)`` else ``{S : Q(S) < Q(C)}``; an emptied collection stays as it was."""
        values = np.broadcast_to(values, state.shape)
        mu = self._median(state, values)[:, None]
        above = (np.asarray(noisy_answer) > mu[:, 0])[:, None]
        keep = state & np.where(above, values > mu, values < mu)
        empty = ~keep.any(axis=1)
        self.emptied += int(empty.sum())
        return np.where(empty[:, None], state, keep)

    def bound(self):
        return float(median_bound(self.N, self.sample_size))

    def potential(self, state, x_bar):
        return np.log2(state.sum(axis=1))

    def answers(self, state, W):
        """Median answers of every run's collection to every query of the workload ``W`` (an explicit matrix is
        taken as the workload it defines), with no Python loop over runs.

        The values ``Q(S)`` take few distinct levels (multiples of ``1/n_S`` for counting queries), so one
        matrix product counts, per run and query, the surviving databases at each level; the median is
        read off the cumulative counts.  Many distinct levels (real-valued queries): one ``np.median`` per run.
        """
        W = as_workload(W, name="W")
        if self._level_cache is None or self._level_cache[0] is not W:
            values = self._workload_values(W).T                                       # (m, |C0|)
            levels, inverse = np.unique(values, return_inverse=True)
            onehot = None
            if levels.size <= 64:
                import scipy.sparse as sp       # here, not at import: only this cache is sparse
                m, L = values.shape[0], levels.size
                cols = (np.arange(m)[:, None] * L + inverse.reshape(m, -1)).T.ravel()   # (|C0|·m,) in row order
                onehot = sp.csr_matrix((np.ones(cols.size), cols, np.arange(0, cols.size + 1, m)),
                                       shape=(self.size, m * L))
            self._level_cache = (W, values, levels, onehot)
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
        """``α*(n_S) = min_S max_q |q(S) - q(x)|`` over all ``n_S``-row databases (``n_S = sample_size``; by
        enumeration, a diagnostic of the data, not used by any mechanism).  The IDC guarantee holds for every
        ``α > α*(n_S)``."""
        W = as_workload(workload)
        true = W.counts(check_histogram(x)) / public_n(x, n)
        err = np.abs(W.counts(self.points) - true)         # (|C0|, m)
        return float(err.max(axis=1).min())


#: the update rules of chapters 10–12 by name (:func:`make_rule`)
RULES = ("MW", "Median", "FK")


def make_rule(idc: str, N: int, alpha: float, n: int, sample_size: int = 4) -> IDC:
    """Chapters 10–12's three IDCs by name: ``"MW"`` (:class:`MultiplicativeWeightsIDC`), ``"Median"``
    (:class:`MedianIDC` over databases of ``sample_size`` rows) or ``"FK"`` (:class:`FriezeKannanIDC`, its multiset
    bound at ``n`` rows); each validates ``N``, ``alpha``, ``sample_size`` and ``n`` itself."""
    idc = check_choice("idc", idc, RULES)
    n, sample_size = check_int("n", n, low=1), check_int("sample_size", sample_size, low=1)
    if idc == "MW":
        return MultiplicativeWeightsIDC(N, alpha)
    if idc == "Median":
        return MedianIDC(N, sample_size, alpha)
    return FriezeKannanIDC(N, alpha, n=n)


def promised_drop(rule) -> float:
    """The least drop of an IDC's potential at a valid update, as its proof promises: ``α²/4`` for MW
    (IDC-LemmaA.6), ``α²/N`` for FK (the proof of IDC-Thm5.1), 1 for the median mechanism (halving, IDC-ThmA.2)."""
    if not isinstance(rule, (MultiplicativeWeightsIDC, FriezeKannanIDC, MedianIDC)):
        raise TypeError(f"rule must be one of the chapter's IDCs (MW, FK, Median), got {type(rule).__name__}")
    return {"MW": rule.alpha ** 2 / 4, "FK": rule.alpha ** 2 / rule.N, "Median": 1.0}[rule.name]
