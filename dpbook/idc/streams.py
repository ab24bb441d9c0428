"""Queries for the IDC mechanisms, and the data they are asked about (chapter 08).

Queries come from a finite workload (the class ``Q``).  :class:`FixedStream` asks them in a given order;
:class:`AdversarialStream` asks, in every round and for every run, the query on which the current hypothesis is
most wrong (an analyst who knows ``D`` — a legitimate worst case for accuracy).

**Units.**  Answers are normalised, ``q(x) = <q, x>/n`` with ``n`` **public** (:func:`public_n`: ``n`` defaults to
``x.sum()``; pass the same ``n`` for both databases of a neighbouring pair, so every answer has sensitivity
exactly ``1/n``).  The tiny universes of the median mechanism come from :func:`dpbook.data.project_histogram`.
"""
from __future__ import annotations

import numpy as np

from ..queries import as_workload
from ..validation import check_histogram, check_int, check_real

__all__ = ["FixedStream", "AdversarialStream", "as_stream", "public_n"]


def public_n(x, n=None) -> int:
    """The public database size used to normalise answers: ``n`` if given, else ``||x||_1``."""
    x = check_histogram(x)
    return int(x.sum()) if n is None else check_int("n", n, low=1)


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

    def pick(self, t, rule, state, W, true):
        """Round ``t``'s query: the same index for every run."""
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

    def pick(self, t, rule, state, W, true):
        """Round ``t``'s query for every run: the workload index of its hypothesis' largest error."""
        err = np.abs(rule.answers(state, W) - true)
        if self.below is None:
            return np.argmax(err, axis=1)
        masked = np.where(err < self.below, err, -1.0)
        return np.where(masked.max(axis=1) >= 0, np.argmax(masked, axis=1), np.argmax(err, axis=1))


def as_stream(stream):
    """A stream as is; a workload (or matrix) becomes a :class:`FixedStream` over all its queries in order.

    A stream is anything with ``k`` (the number of rounds), ``workload`` and ``pick(t, rule, state, W, true)``
    returning round ``t``'s workload index (one for every run, or one per run) given the rule, the runs'
    hypotheses, the workload and the true normalised answers."""
    if isinstance(stream, (FixedStream, AdversarialStream)) or (hasattr(stream, "pick") and hasattr(stream, "k")):
        return stream
    return FixedStream(stream)
