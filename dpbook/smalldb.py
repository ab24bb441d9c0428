"""SmallDB and the net mechanism: synthetic data from the exponential mechanism (Dwork–Roth 2014 §4.1; chapter 08).

DR-Alg4 SmallDB(x, Q, ε, α) ≡ PROJ-R3:

* range ``R`` = every database of ``db_size = n_y = ⌈ln|Q|/α²⌉`` rows, i.e. every count vector ``y ∈ N^N`` with
  ``||y||_1 = n_y`` (``|R| = C(N+n_y-1, n_y)``);
* utility ``u(x, y) = -max_{q∈Q} |q(x) - q(y)|`` (normalised answers), ``Δu = 1/n``;
* output ``y`` drawn by the exponential mechanism.

``n·u(x, y) = -max_q |<q, x> - n q(y)|`` moves by at most 1 when a row is added, removed or replaced
(``|q(row) - q(y)| <= 1``), so the mechanism is ε-DP (DR-Prop4.1) under both add/remove and replace-one
neighbours even though ``n`` is read from the data.

The net mechanism (DR-Def5.2 / DR-Prop5.2) is the same exponential mechanism over any *public, data-
independent* finite set of candidate databases; SmallDB is the net mechanism over all ``n_y``-row databases,
an α-net by DR-Lemma4.3.  Candidates are count vectors; all of their answers come from one batched
``W.counts`` (never the workload's matrix).

Running time is ``Θ(|R|·N·m)`` with ``|R| <= N^{n_y}``: quasi-polynomial in ``N`` (erratum PROJ-E7; the source says
polynomial).  ``max_range_size`` makes an infeasible call fail loudly instead of exhausting memory.
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .exponential import exponential_mechanism, exponential_probabilities, exponential_sample
from .noise import as_generator
from .queries import as_workload, check_database
from .release import Ledger, ReleaseRecord, Spend
from .theory.smalldb import range_size, smalldb_size
from .contract import mechanism_prologue
from .validation import real_dtype, MAX_COUNT, as_array, check_entry_range, check_int, check_real, check_trials

__all__ = [
    "SyntheticDatabase", "smalldb", "net_mechanism", "multisets", "candidate_answers", "candidate_errors",
    "exact_error_distribution",
    "subsample_errors", "MAX_RANGE_SIZE",
]

MAX_RANGE_SIZE = 2_000_000          # default refusal threshold for |R| (memory ~ |R|·(N + m)·8 bytes)


@dataclass(frozen=True)
class SyntheticDatabase(ReleaseRecord):
    """A private synthetic database (or ``trials`` of them) and what it cost.

    ``y``: the chosen candidate(s) as count vectors, shape ``(N,)`` or ``(trials, N)``; ``answers``: their
    normalised answers on the workload, ``(m,)`` or ``(trials, m)``; ``db_size``: the number of rows ``n_y`` of
    every candidate (0 for a general net); ``range_size``: ``|R|``, the number of candidates; ``ledger``: the one exponential-mechanism
    step; ``trace``: none is kept (the book's release protocol; :attr:`released` is ``y``).  ``neighbours``: the claim is made under
    replace-one neighbours — the utility ``-max_q |q(y) - q(x)|`` is normalised by ``n = ||x||_1``, read from
    the data, which is the same for both databases only under replace-one (under add/remove the sensitivity
    would be ``1/(n-1)``, not ``1/n``).
    """

    y: np.ndarray = field(repr=False)
    answers: np.ndarray = field(repr=False)
    mechanism: str
    db_size: int
    range_size: int
    ledger: Ledger = Ledger()
    neighbours: str = "replace-one"
    trace: Mapping[str, Any] | None = field(default=None, repr=False)

    def evaluate(self, workload) -> np.ndarray:
        """Answers of the synthetic database(s) on any workload over the same universe (post-processing)."""
        W = as_workload(workload)
        y = np.atleast_2d(self.y).astype(np.float64)
        if W.N != y.shape[1]:
            raise ValueError(f"workload is over {W.N} universe elements but y has {y.shape[1]}")
        out = W.counts(y) / y.sum(axis=1, keepdims=True)
        return out[0] if self.y.ndim == 1 else out

    @property
    def released(self) -> np.ndarray:
        """What was released: the synthetic database(s), as count vectors."""
        return self.y


# --------------------------------------------------------------------------- candidates

@functools.lru_cache(typed=True, maxsize=16)
def _multisets(N: int, db_size: int) -> np.ndarray:
    R = math.comb(N + db_size - 1, db_size)
    rows = np.fromiter(itertools.chain.from_iterable(itertools.combinations_with_replacement(range(N), db_size)),
                       dtype=np.int64, count=R * db_size).reshape(R, db_size)   # each row: n_y sorted elements
    flat = (rows + N * np.arange(R, dtype=np.int64)[:, None]).ravel()       # (candidate, element) cells
    Y = np.bincount(flat, minlength=R * N).reshape(R, N).astype(np.int32)  # count vectors, rows sum to n_y
    Y.flags.writeable = False
    return Y


def multisets(N, db_size, *, max_range_size=MAX_RANGE_SIZE) -> np.ndarray:
    """All ``C(N+n_y-1, n_y)`` databases of ``db_size = n_y`` rows over ``N`` elements, as a read-only ``(|R|, N)``
    count array.

    Lexicographic order of the sorted rows (``(n_y,0,..,0)`` first).  Cached; raises ``ValueError`` when
    ``|R| > max_range_size`` (the blow-up of erratum PROJ-E7).
    """
    N, db_size = check_int("N", N, low=1), check_int("db_size", db_size, low=1)
    max_range_size = check_int("max_range_size", max_range_size, low=1)
    R = range_size(N, db_size)
    if R > max_range_size:
        raise ValueError(f"|R| = C(N+db_size-1, db_size) = {R:.4g} for N ({N}) and db_size ({db_size}) exceeds "
                         f"max_range_size ({max_range_size}): SmallDB's range is quasi-polynomial in N (erratum PROJ-E7)")
    return _multisets(N, db_size)


def _check_net(net, N: int) -> np.ndarray:
    """A public candidate set for the net mechanism: a numeric ``(|net| >= 1, N)`` array of finite, non-negative
    counts (or weights) below 2^53, every candidate with positive mass.  ``TypeError``/``ValueError`` naming ``net``."""
    arr = as_array("net", net)
    if not real_dtype(arr.dtype):
        raise TypeError(f"net must be a numeric (|net|, N) array of candidate databases, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] != N:
        raise ValueError(f"net must have shape (|net| >= 1, {N}) to match the universe, got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("net must hold finite non-negative counts (or weights)")
    if arr.max() >= MAX_COUNT:
        raise ValueError(f"net has an entry ({float(arr.max()):.3g}) >= 2^53: counts must be exact in float64")
    if np.any(arr.sum(axis=1) <= 0):
        raise ValueError("every candidate in net must have positive total mass")
    return arr


def candidate_answers(x, workload, net) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate's normalised answers ``(|net|, m)`` and error ``max_q |q(x) - q(y)|`` ``(|net|,)``: one
    batched ``W.counts`` over the candidates (no workload matrix).  Non-private: the exponential mechanism's
    utilities, and data for experiments and plots."""
    x, W = check_database(x, workload)
    net = _check_net(net, W.N)
    answers = W.counts(net) / net.sum(axis=1, keepdims=True)
    return answers, np.abs(answers - W.answers(x)).max(axis=1)


def candidate_errors(x, workload, net) -> np.ndarray:
    """``max_q |q(x) - q(y)|`` for every candidate ``y`` of ``net`` (non-private: for experiments and plots)."""
    return candidate_answers(x, workload, net)[1]


# --------------------------------------------------------------------------- mechanisms

def _prologue(x, epsilon, rng, trials):
    """The mechanisms' prologue (:func:`dpbook.contract.mechanism_prologue`): ε, rng, ``n = ||x||_1`` read from
    the data (so the claim is a replace-one claim, :class:`SyntheticDatabase`), ``trials`` picks; no additive noise."""
    return mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, neighbours="replace-one", x=x, n_rule="public")


def _check_unit_range(W) -> None:
    """The utility ``-max_q |q(x) - q(y)|`` has ``Δu = 1/n`` for queries with values in ``[0, 1]`` only."""
    check_entry_range(W, "workload", 0.0, 1.0, why="the utility -max_q |q(x) - q(y)| has sensitivity 1/n only "
                                                   "for queries in [0, 1] (DR-Prop5.2, DR-Prop4.1)")


def net_mechanism(x, workload, net, *, epsilon, trials=None, rng=None) -> SyntheticDatabase:
    """DR-Prop5.2: the exponential mechanism over a public candidate set ``net`` (rows = databases) — ε-DP.

    Utility ``-max_q |q(x) - q(y)|`` with ``Δu = 1/n`` (queries in ``[0, 1]``; a workload whose
    :meth:`~dpbook.queries.Workload.entry_range` leaves it is refused).  With probability ``1-β`` the error is at most
    ``OPT + 2(ln|net| + ln(1/β))/(εn)`` (DR-Thm3.11), ``OPT`` the best candidate's error.  ``net`` must not
    depend on ``x``.  A single release samples with :func:`~dpbook.exponential.exponential_mechanism`;
    ``trials`` releases use the same distribution through the inverse-CDF batch sampler.
    """
    x, W = check_database(x, workload)
    _check_unit_range(W)
    net = _check_net(net, W.N)
    p = _prologue(x, epsilon, rng, trials)
    epsilon = p.epsilon
    sensitivity = 1.0 / p.n                                         # Δu of u = -max_q |q(x) - q(y)|
    answers, err = candidate_answers(x, W, net)
    if p.trials is None:
        pick = exponential_mechanism(-err, epsilon=epsilon, sensitivity=sensitivity, rng=p.rng)
    else:
        pick = exponential_sample(-err, epsilon=epsilon, sensitivity=sensitivity, size=p.trials, rng=p.rng)
    return SyntheticDatabase(np.array(net[pick]), answers[pick], "net", 0, int(net.shape[0]),
                             Ledger([Spend("exponential", epsilon)]))


def smalldb(x, workload, *, epsilon, alpha, trials=None, rng=None,
            max_range_size=MAX_RANGE_SIZE) -> SyntheticDatabase:
    """DR-Alg4 SmallDB(x, Q, ε, α) ≡ PROJ-R3 — ε-DP (DR-Prop4.1).

    Draws a database of ``n_y = ⌈ln|Q|/α²⌉`` rows (the release's ``db_size``) by the exponential mechanism over all
    of them, utility ``-max_q |q(x) - q(y)|``, ``Δu = 1/n``.  Accuracy: DR-Prop4.4 / DR-Thm4.5
    (``dpbook.theory.smalldb``); DR-Lemma4.3 needs ``|Q| >= 3``.  Refuses (``ValueError``) when
    ``|R| = C(N+n_y-1, n_y) > max_range_size``.
    """
    x, W = check_database(x, workload)
    _check_unit_range(W)
    p = _prologue(x, epsilon, rng, trials)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True)
    db_size = smalldb_size(W.m, alpha)                              # rows of every candidate database
    if db_size == 0:
        raise ValueError(f"the workload has m ({W.m}) query: db_size = ceil(ln m / alpha^2) = 0; SmallDB needs m >= 2")
    net = multisets(W.N, db_size, max_range_size=max_range_size)    # R: all n_y-row databases
    out = net_mechanism(x, W, net, epsilon=p.epsilon, trials=p.trials, rng=p.rng)
    return SyntheticDatabase(out.y, out.answers, "smalldb", db_size, out.range_size, out.ledger)


# --------------------------------------------------------------------------- experiments

def exact_error_distribution(x, workload, net, *, epsilon) -> tuple[np.ndarray, np.ndarray]:
    """The exact law of the net mechanism's error: ``(errors, probabilities)`` over the candidates of ``net``.

    ``P[error >= t] = probabilities[errors >= t].sum()`` — no sampling noise (non-private: for plots).
    """
    x, W = check_database(x, workload)
    err = candidate_answers(x, W, net)[1]
    return err, exponential_probabilities(-err, epsilon=epsilon, sensitivity=1.0 / float(x.sum()))


def subsample_errors(x, workload, db_size, *, trials, rng=None) -> np.ndarray:
    """DR-Lemma4.3 experiment: max errors of ``trials`` databases of ``db_size = n_y`` rows drawn i.i.d. from ``x/n``.

    The lemma's proof bounds ``P[error > α] <= 2|Q| e^{-2 n_y α²}`` (``theory.smalldb.sampling_failure_bound``).
    """
    x, W = check_database(x, workload)
    db_size, trials = check_int("db_size", db_size, low=1), check_trials(trials)
    Y = as_generator(rng).multinomial(db_size, x / x.sum(), size=trials)     # (trials, N) samples
    return np.abs(W.counts(Y) / db_size - W.answers(x)).max(axis=1)
