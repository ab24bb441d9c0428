"""The Laplace mechanism for a workload of linear queries (IDC-Thm2.3 / DR-Thm3.6, chapter 01)."""
from __future__ import annotations

from .noise import laplace
from .queries import check_database
from .release import Release, Spend
from .theory.laplace import laplace_scale
from .validation import check_epsilon, check_int, check_sensitivity

__all__ = ["laplace_mechanism"]


def laplace_mechanism(x, workload, *, epsilon, sensitivity=None, n=None, trials=None, rng=None,
                      sampler=laplace) -> Release:
    """Release ``Q x / n + Lap(Δf/ε)^m / n`` — ε-DP under add/remove neighbours (IDC-Thm2.3, DR-Thm3.6).

    ``sensitivity`` is the L1 sensitivity ``Δf`` of the counts ``Q x``; by default the workload's exact
    value ``max_u ||Q e_u||_1`` (at most ``m``).  A larger value is allowed (e.g. ``m``, the basic-
    composition split ε/m per query of LEC3-3.3.2); a smaller one would break privacy and is refused.
    ``n`` is the **public** number of rows the counts are divided by.  The default ``||x||_1`` is then treated
    as public (the book's convention, THEOREMS.md §0): only the counts are ε-DP, and dividing by a private
    ``n`` would leak it (chapter 13's audit shows this on add/remove neighbours).  Pass the same public ``n``
    for neighbouring databases when ``n`` itself must stay private.
    ``trials`` draws that many independent releases at once (answers of shape ``(trials, m)``).
    ``sampler(scale, size, rng)`` draws the noise (chapter 13 swaps in a floating-point-safe one).
    """
    x, W = check_database(x, workload)
    epsilon = check_epsilon(epsilon)
    exact = W.l1_sensitivity()
    sensitivity = exact if sensitivity is None else check_sensitivity(sensitivity)
    if sensitivity < exact:
        raise ValueError(f"sensitivity ({sensitivity!r}) must be >= the workload's L1 sensitivity ({exact!r})")
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(scale, size, rng), got {type(sampler).__name__}")
    shape = (W.m,) if trials is None else (check_int("trials", trials, low=1), W.m)
    n = float(x.sum() if n is None else check_int("n", n, low=1))
    b = laplace_scale(sensitivity, epsilon)                        # noise scale on the counts
    answers = (W.counts(x) + sampler(b, shape, rng)) / n
    return Release(answers, epsilon, 0.0, "laplace", noise_scale=b / n,
                   ledger=(Spend("laplace", epsilon),))
