"""The Laplace mechanism for a workload of linear queries (IDC-Thm2.3 / DR-Thm3.6, chapter 01)."""
from __future__ import annotations

from .noise import as_noise, laplace, round_to_grid
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
    ``sampler``: the Laplace-family noise (a :class:`dpbook.noise.Noise` or one of the book's samplers;
    chapter 13 swaps in a floating-point-safe one).  Lattice noise (``discrete_laplace``, ``grid_laplace``)
    is added to the counts rounded onto its lattice; when the workload has non-integer entries the rounding
    can move each of the ``l0_sensitivity()`` counts one row touches by one more step, and the noise scale
    pays for it (``Δ + step · L0``).  Any other callable, and Gaussian noise, are refused.
    """
    x, W = check_database(x, workload)
    epsilon = check_epsilon(epsilon)
    exact = W.l1_sensitivity()
    sensitivity = exact if sensitivity is None else check_sensitivity(sensitivity)
    if sensitivity < exact:
        raise ValueError(f"sensitivity ({sensitivity!r}) must be >= the workload's L1 sensitivity ({exact!r})")
    noise = as_noise(sampler, family="laplace")
    shape = (W.m,) if trials is None else (check_int("trials", trials, low=1), W.m)
    n = float(x.sum() if n is None else check_int("n", n, low=1))
    step = noise.step(sensitivity / epsilon)         # None: real noise; 1: integers; Λ: a power-of-two grid
    if step is not None and not W.is_integral():     # Q x is off the lattice: round it, pay a step per count
        sensitivity = sensitivity + step * W.l0_sensitivity()
    b = laplace_scale(sensitivity, epsilon)                        # noise scale on the counts
    counts = W.counts(x) if step is None else round_to_grid(W.counts(x), step)
    answers = (counts + noise.sample(b, shape, rng, step=step)) / n
    return Release(answers, epsilon, 0.0, "laplace", noise_scale=b / n,
                   ledger=(Spend("laplace", epsilon),),
                   trace={"noise": noise.name, "sensitivity": sensitivity, "lattice_step": step})
