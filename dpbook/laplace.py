"""The Laplace mechanism for a workload of linear queries (IDC-Thm2.3 / DR-Thm3.6, chapter 01), and its
floating-point-safe release of real values on a power-of-two grid (chapter 17)."""
from __future__ import annotations

import numpy as np

from .noise import (GRID_BITS, MAX_DISCRETE_SCALE, discrete_laplace, grid_granularity, laplace_noise,
                    round_to_grid)
from .queries import check_database
from .release import Release, Spend, with_claim
from .theory.laplace import laplace_scale
from .contract import mechanism_prologue
from .validation import real_dtype, as_array, check_noise_scale, check_sensitivity

__all__ = ["laplace_mechanism", "grid_laplace_release"]


def laplace_mechanism(x, workload, *, epsilon, n=None, sensitivity=None, neighbours="add/remove", trials=None,
                      rng=None, sampler=laplace_noise) -> Release:
    """Release ``Q x / n + Lap(Δf/ε)^m / n`` — ε-DP (IDC-Thm2.3, DR-Thm3.6).

    ``n`` is the **public** number of rows the counts are divided by; it is required under the default
    add/remove neighbours, where the row count is private (dividing by ``||x||_1`` would leak it — chapter
    17's audit).  ``neighbours="replace-one"``: ``n`` may be omitted (it is then ``||x||_1``, the same for both
    neighbours) and one row's change moves the counts by ``Q(e_u - e_v)``, whose L1 norm is at most
    ``2 max_u ||Q e_u||_1`` for queries with non-negative entries: the noise doubles.
    ``sensitivity`` is the add/remove L1 sensitivity ``Δf`` of the counts ``Q x``; by default the workload's
    exact value ``max_u ||Q e_u||_1`` (at most ``m``).  A larger value is allowed (e.g. ``m``, the basic-
    composition split ε/m per query of LEC3-3.3.2); a smaller one would break privacy and is refused.
    ``trials`` draws that many independent releases at once (answers of shape ``(trials, m)``).
    ``sampler``: the Laplace-family noise (a :class:`dpbook.noise.Noise` or one of the book's samplers;
    chapter 17 swaps in a floating-point-safe one).  Lattice noise (``discrete_laplace``, ``grid_laplace``)
    is added to the counts rounded onto its lattice; when the workload has non-integer entries the rounding
    can move each of the ``l0_sensitivity()`` counts one row touches by one more step, and the noise scale
    pays for it (``Δ + step · L0``).  Any other callable, and Gaussian noise, are refused.
    """
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, n=n, trials=trials, neighbours=neighbours,
                           x=x, n_rule="public", per_release=(W.m,), family="laplace")
    epsilon, n, neighbours, noise = p.epsilon, p.n, p.neighbours, p.noise
    exact = W.l1_sensitivity()
    sensitivity = exact if sensitivity is None else check_sensitivity(sensitivity)
    if sensitivity < exact:
        raise ValueError(f"sensitivity ({sensitivity!r}) must be >= the workload's L1 sensitivity ({exact!r})")
    rows_changed = 1 if neighbours == "add/remove" else 2     # replace-one: one row out, one row in
    sensitivity = rows_changed * sensitivity
    step = noise.step(sensitivity / epsilon)         # None: real noise; 1: integers; Λ: a power-of-two grid
    if step is not None and not W.is_integral():     # Q x is off the lattice: round it, pay a step per count
        sensitivity = sensitivity + step * rows_changed * W.l0_sensitivity()
    b = laplace_scale(sensitivity, epsilon)                        # noise scale on the counts
    counts = W.counts(x) if step is None else round_to_grid(W.counts(x), step)
    answers = (counts + noise.sample(b, p.shape, p.rng, step=step)) / n
    return Release(answers, "laplace", noise_scale=b / n,
                   ledger=(Spend("laplace", epsilon),), neighbours=neighbours,
                   trace={"noise": noise.name, "sensitivity": sensitivity, "lattice_step": step})


def grid_laplace_release(values, *, sensitivity, epsilon, trials=None, rng=None, bits=GRID_BITS) -> np.ndarray:
    """ε-DP release of real-valued queries: round to the grid ``Λ``, then add ``Λ·discrete_laplace``.

    The approach of Google's and OpenDP's libraries for floats.  Rounding moves each value by at most
    ``Λ/2``, so neighbouring rounded vectors differ by at most ``Δ + Λ`` in L1 and the noise scale is
    ``(Δ + Λ)/ε`` (``Λ = grid_granularity(Δ/ε)``, a 2^-40 relative cost).  Output: exact multiples of
    ``Λ`` — the support no longer depends on the true values.  ``values`` is a 1-D array of the ``m``
    query values; the result has shape ``(m,)`` or ``(trials, m)``: an ndarray that carries its claim
    (:class:`dpbook.release.ReleasedArray`; ε under the relation for which ``sensitivity`` bounds the change).
    """
    arr = as_array("values", values)
    if not real_dtype(arr.dtype):
        raise TypeError(f"values must be real numbers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {arr.shape}")
    sensitivity = check_sensitivity(sensitivity)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, per_release=arr.shape)
    epsilon = p.epsilon
    check_noise_scale(sensitivity, epsilon, high=MAX_DISCRETE_SCALE / 2)    # the lattice sampler's largest scale
    granularity = grid_granularity(sensitivity / epsilon, bits)
    scale = (sensitivity + granularity) / epsilon                   # rounding adds at most Λ to Δ
    try:
        steps = round_to_grid(arr, granularity) / granularity        # exact integers (as floats)
    except ValueError as err:                                        # the grid of a tiny Δ/ε: say which inputs
        raise ValueError(f"{err}: the grid step follows sensitivity ({sensitivity!r}) / epsilon ({epsilon!r}); "
                         "make that ratio larger or the values smaller") from None
    noise = discrete_laplace(scale / granularity, p.shape, p.rng)
    return with_claim((steps + noise) * granularity, mechanism="grid laplace release",
                      ledger=(Spend("grid laplace", epsilon),),
                      trace={"granularity": granularity, "scale": scale})
