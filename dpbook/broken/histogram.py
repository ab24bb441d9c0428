"""Deliberately broken noisy histogram (positive control for chapter 03's audit).

Never use this to release data.
"""
from __future__ import annotations

from ..histogram import NoisyHistogram
from ..noise import laplace_noise
from ..release import Spend
from ..contract import mechanism_prologue
from ..validation import check_histogram

__all__ = ["noisy_histogram_replace_one_unit_scale"]


def noisy_histogram_replace_one_unit_scale(x, *, epsilon, trials=None, rng=None) -> NoisyHistogram:
    """BROKEN (privacy): claims ε-DP for **replace-one** neighbours but adds ``Lap(1/ε)``, the add/remove scale.

    Erratum LEC3-E11: moving one row changes two cells, so the histogram's sensitivity is 2 and the true
    privacy loss of this release is 2ε.  (``dpbook.histogram.noisy_histogram(..., neighbours="replace-one")``
    uses ``Lap(2/ε)``.)
    """
    x = check_histogram(x)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, per_release=(x.size,))
    epsilon = p.epsilon
    b = 1.0 / epsilon                                   # WRONG for replace-one: should be 2/ε
    counts = x + laplace_noise(b, p.shape, p.rng)
    return NoisyHistogram(counts, int(x.sum()), "noisy histogram (BROKEN: replace-one at scale 1/ε)",
                          "replace-one", noise_scale=b, ledger=(Spend("laplace histogram (BROKEN)", epsilon),))
