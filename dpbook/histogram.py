"""The noisy histogram: release ``x + Lap(1/ε)^N`` once, then answer any workload from it (chapter 03).

LEC3-3.5 and IDC §6 Lemma 6.1.  The identity query ``x ↦ x`` has L1 sensitivity 1 under add/remove
neighbours (2 under replace-one, erratum LEC3-E11), so the released histogram is ε-DP, and every answer
computed from it is post-processing: any number of linear queries, no further budget.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .noise import laplace_noise
from .queries import as_workload, check_database
from .release import Release, ReleaseRecord, Spend
from .theory.histogram import histogram_scale
from .contract import mechanism_prologue
from .validation import check_histogram, check_int

__all__ = [
    "NoisyHistogram", "noisy_histogram", "histogram_mechanism",
]

#: The digits loader lives in :mod:`dpbook.data`; the name stays importable here for the chapters that import it
#: from this module.
from .data import pixels_histogram  # noqa: E402,F401

@dataclass(frozen=True)
class NoisyHistogram(ReleaseRecord):
    """A private estimate of the histogram (LEC3-3.5): ``counts`` of shape ``(N,)`` or ``(trials, N)``.

    Cells may be negative or fractional; the release is the whole vector, so answering any workload from it
    (:meth:`answers`) is post-processing.  ``n`` is the true number of rows, used only to normalise answers
    (as :func:`dpbook.laplace.laplace_mechanism` does: the book treats ``n`` as public).
    ``noise_scale`` is the per-cell Laplace scale in counts (``None`` for non-Laplace estimates).
    """

    counts: np.ndarray = field(repr=False)
    n: int
    mechanism: str
    neighbours: str
    noise_scale: float | None = None
    ledger: tuple[Spend, ...] = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def released(self) -> np.ndarray:
        """The noisy histogram(s): every answer is computed from it (post-processing)."""
        return self.counts

    @property
    def N(self) -> int:
        return self.counts.shape[-1]

    def workload_counts(self, workload) -> np.ndarray:
        """Unnormalised answers ``Q ĥ``: ``(m,)`` or ``(trials, m)``."""
        return as_workload(workload).apply(self.counts)

    def answers(self, workload) -> np.ndarray:
        """Normalised answers ``Q ĥ / n``: ``(m,)`` or ``(trials, m)``."""
        return self.workload_counts(workload) / self.n

    def release(self, workload) -> Release:
        """The answers to ``workload`` as a :class:`~dpbook.release.Release` (same ε, δ and ledger)."""
        scale = None if self.noise_scale is None else self.noise_scale / self.n
        return Release(self.answers(workload), self.mechanism, noise_scale=scale,
                       ledger=self.ledger, trace={"histogram": self.counts}, neighbours=self.neighbours)


def noisy_histogram(x, *, epsilon, n=None, neighbours: str = "add/remove", trials=None, rng=None,
                    sampler=laplace_noise) -> NoisyHistogram:
    """Release ``ĥ = x + Lap(b)^N`` — ε-DP (LEC3-3.5, IDC §6).

    ``b = 1/ε`` for add/remove neighbours and ``2/ε`` for replace-one (the histogram's sensitivity is 1,
    resp. 2: erratum LEC3-E11).  ``trials`` draws that many independent releases at once (shape
    ``(trials, N)``); ``sampler(scale, size, rng)`` draws the noise.  ``n``: the public row count the answers
    are normalised by — required under add/remove (the released histogram and the answers together would
    reveal a private ``||x||_1``); under replace-one it defaults to ``||x||_1``.
    """
    x = check_histogram(x)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, n=n, trials=trials, neighbours=neighbours,
                           x=x, n_rule="public", per_release=(x.size,), family="laplace")
    epsilon, n, neighbours = p.epsilon, p.n, p.neighbours
    b = histogram_scale(epsilon, neighbours)       # one ε for the whole histogram: Δ = 1 (add/remove) or 2
    counts = x + p.noise.sample(b, p.shape, p.rng)  # x is integral: on every lattice the noise can use
    return NoisyHistogram(counts, n, "noisy histogram", neighbours, noise_scale=b,
                          ledger=(Spend("laplace histogram", epsilon),))


def histogram_mechanism(x, workload, *, epsilon, n=None, neighbours: str = "add/remove", trials=None, rng=None,
                        sampler=laplace_noise) -> Release:
    """Answer ``workload`` from one noisy histogram: ``Q (x + Lap(b)^N) / n`` — ε-DP for any number of queries.

    IDC-Lem6.1: with probability ``1 - β`` all ``m`` errors are at most ``sqrt(6N ln(2m/β)) b / n``
    (:func:`dpbook.theory.histogram.histogram_error_bound`).  ``trace["histogram"]`` holds the released
    histogram(s).
    """
    x, W = check_database(x, workload)
    return noisy_histogram(x, epsilon=epsilon, n=n, neighbours=neighbours, trials=trials, rng=rng,
                           sampler=sampler).release(W)
