"""Queries for the IDC mechanisms, and the data they are asked about (chapter 11).

Queries come from a finite workload (the class ``Q``).  A stream is the analyst: in round ``t`` it chooses the
next query from what the mechanism has **released** so far — a :class:`StreamView` (the current hypothesis, which
is a function of the released answers, and the past answers, queries and ⊤/⊥ decisions) — and from side knowledge
fixed before the run.  It never sees the private database: the privacy proofs of the online mechanisms (sparse
vector and Laplace on adaptively chosen queries, DR-Thm3.23 and DR-Thm3.20) hold for an analyst whose next query
is a function of the past outputs, the same function under both neighbouring databases.

:class:`FixedStream` asks the queries in a given order.  :class:`AdversarialStream` asks, in every round and for
every run, the query on which the current hypothesis is most wrong about a ``reference`` database that the analyst
knows in advance (pass the data themselves for the worst case of the accuracy experiments: a differentially
private mechanism must stay private against an analyst who knows everything but the one row at stake, and this
analyst uses the *same* reference whichever neighbour is run).

**Units.**  Answers are normalised, ``q(x) = <q, x>/n`` with ``n`` **public** (:func:`public_n`: ``n`` defaults to
``x.sum()``; pass the same ``n`` for both databases of a neighbouring pair, so every answer has sensitivity
exactly ``1/n``).  The tiny universes of the median mechanism come from :func:`dpbook.data.project_histogram`.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from ..queries import Workload, as_workload
from ..validation import check_histogram, check_int, check_real

__all__ = ["StreamView", "FixedStream", "AdversarialStream", "as_stream", "public_n"]


def _frozen(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


@dataclass(frozen=True)
class StreamView:
    """What the analyst has seen before round ``t`` (0-based) of ``runs`` batched runs — released quantities only.

    ``rule`` and ``workload``: public.  ``hypothesis``: each run's current state ``D^t``, shape ``(runs, ...)`` — a
    function of the released answers (every update uses the released noisy answer).  ``answers``, ``queries``,
    ``updated``: the first ``t`` rounds of the release, shape ``(runs, t)`` (``updated`` is ⊤).  ``n``: the public
    normaliser.  All arrays are read-only views."""

    t: int
    rule: object = field(repr=False)
    workload: Workload = field(repr=False)
    hypothesis: np.ndarray = field(repr=False)
    answers: np.ndarray = field(repr=False)
    queries: np.ndarray = field(repr=False)
    updated: np.ndarray = field(repr=False)
    n: int = 1

    def __post_init__(self):
        for name in ("hypothesis", "answers", "queries", "updated"):
            object.__setattr__(self, name, _frozen(np.asarray(getattr(self, name))))

    @property
    def runs(self) -> int:
        return self.answers.shape[0]

    def hypothesis_answers(self) -> np.ndarray:
        """Every run's hypothesis answer to every workload query, ``(runs, m)`` (public: post-processing)."""
        return self.rule.answers(self.hypothesis, self.workload)


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
        self.order.setflags(write=False)
        self.T = int(order.size)                      # the number of rounds: one query each

    def pick(self, t, view):
        """Round ``t``'s query: the same index for every run."""
        return int(self.order[t])


class AdversarialStream:
    """``T`` rounds (one query each); in each, every run is asked the workload query on which *its* hypothesis errs most about the
    analyst's ``reference`` database (a histogram over the workload's universe, fixed before the run).

    The strategy is a fixed function of what was released (the hypothesis) and of ``reference``, the same whichever
    database the mechanism runs on — so the mechanism's privacy proof covers it.  With ``reference`` equal to the
    data (the accuracy experiments of chapter 11) it is the worst case for accuracy: the analyst asks where the
    hypothesis is really most wrong.  ``reference`` answers are normalised by the mechanism's public ``n``.
    With ``below`` (e.g. the public threshold ``τ``) the analyst asks the worst query whose error is still
    *below* that value — the query the threshold test lets through, i.e. the worst case for the answers that
    come from the hypothesis (if no query is below, the worst query overall).
    """

    def __init__(self, workload, T, below=None, *, reference):
        self.workload = as_workload(workload)
        self.T = check_int("T", T, low=1)
        self.below = None if below is None else check_real("below", below, low=0.0, low_open=True)
        reference = check_histogram(reference, "reference")
        if reference.size != self.workload.N:
            raise ValueError(f"reference has {reference.size} universe elements, the workload {self.workload.N}: "
                             "they must agree")
        self.reference = np.array(reference)
        self.reference.setflags(write=False)
        self._counts = self.workload.counts(self.reference)
        self._counts.setflags(write=False)

    def pick(self, t, view):
        """Round ``t``'s query for every run: the workload index of its hypothesis' largest error about
        ``reference``."""
        err = np.abs(view.hypothesis_answers() - self._counts / view.n)
        if self.below is None:
            return np.argmax(err, axis=1)
        masked = np.where(err < self.below, err, -1.0)
        return np.where(masked.max(axis=1) >= 0, np.argmax(masked, axis=1), np.argmax(err, axis=1))


def public_n(x, n=None) -> int:
    """The public database size used to normalise answers: ``n`` if given, else ``||x||_1``."""
    x = check_histogram(x)
    return int(x.sum()) if n is None else check_int("n", n, low=1)


def as_stream(stream):
    """A stream as is; a workload (or matrix) becomes a :class:`FixedStream` over all its queries in order.

    A stream is anything with ``T`` (the number of rounds, one query each), ``workload`` and ``pick(t, view)`` returning round
    ``t``'s workload index (one for every run, or one per run) from a :class:`StreamView` — what has been
    released so far.  A stream never receives the private database or its true answers."""
    if isinstance(stream, (FixedStream, AdversarialStream)):
        return stream
    if hasattr(stream, "pick") and hasattr(stream, "T"):
        try:
            inspect.signature(stream.pick).bind(0, None)
        except TypeError:
            raise TypeError("stream.pick must take (t, view): the round and a StreamView of what was released "
                            "so far") from None
        except ValueError:                       # a builtin without a signature: let the call decide
            pass
        if not isinstance(getattr(stream, "workload", None), Workload):
            raise TypeError("stream.workload must be a Workload (e.g. dpbook.queries.MatrixWorkload)")
        return stream
    return FixedStream(stream)
