"""The Laplace mechanism for a workload of linear queries (IDC-Thm2.3 / DR-Thm3.6, chapter 01)."""
from __future__ import annotations

from .noise import as_noise, laplace, round_to_grid
from .queries import check_database
from .release import Release, Spend
from .theory.laplace import laplace_scale
from .validation import check_epsilon, check_int, check_neighbours, check_public_n, check_sensitivity, check_trials

__all__ = ["laplace_mechanism"]


def laplace_mechanism(x, workload, *, epsilon, n=None, sensitivity=None, neighbours="add/remove", trials=None,
                      rng=None, sampler=laplace) -> Release:
    """Release ``Q x / n + Lap(Δf/ε)^m / n`` — ε-DP (IDC-Thm2.3, DR-Thm3.6).

    ``n`` is the **public** number of rows the counts are divided by; it is required under the default
    add/remove neighbours, where the row count is private (dividing by ``||x||_1`` would leak it — chapter
    13's audit).  ``neighbours="replace-one"``: ``n`` may be omitted (it is then ``||x||_1``, the same for both
    neighbours) and one row's change moves the counts by ``Q(e_u - e_v)``, whose L1 norm is at most
    ``2 max_u ||Q e_u||_1`` for queries with non-negative entries: the noise doubles.
    ``sensitivity`` is the add/remove L1 sensitivity ``Δf`` of the counts ``Q x``; by default the workload's
    exact value ``max_u ||Q e_u||_1`` (at most ``m``).  A larger value is allowed (e.g. ``m``, the basic-
    composition split ε/m per query of LEC3-3.3.2); a smaller one would break privacy and is refused.
    ``trials`` draws that many independent releases at once (answers of shape ``(trials, m)``).
    ``sampler``: the Laplace-family noise (a :class:`dpbook.noise.Noise` or one of the book's samplers;
    chapter 13 swaps in a floating-point-safe one).  Lattice noise (``discrete_laplace``, ``grid_laplace``)
    is added to the counts rounded onto its lattice; when the workload has non-integer entries the rounding
    can move each of the ``l0_sensitivity()`` counts one row touches by one more step, and the noise scale
    pays for it (``Δ + step · L0``).  Any other callable, and Gaussian noise, are refused.
    """
    x, W = check_database(x, workload)
    epsilon = check_epsilon(epsilon)
    neighbours = check_neighbours(neighbours)
    n, _ = check_public_n(n, x, require=neighbours == "add/remove")
    exact = W.l1_sensitivity()
    sensitivity = exact if sensitivity is None else check_sensitivity(sensitivity)
    if sensitivity < exact:
        raise ValueError(f"sensitivity ({sensitivity!r}) must be >= the workload's L1 sensitivity ({exact!r})")
    rows_changed = 1 if neighbours == "add/remove" else 2     # replace-one: one row out, one row in
    sensitivity = rows_changed * sensitivity
    noise = as_noise(sampler, family="laplace")
    shape = (W.m,) if trials is None else (check_trials(trials, W.m), W.m)
    step = noise.step(sensitivity / epsilon)         # None: real noise; 1: integers; Λ: a power-of-two grid
    if step is not None and not W.is_integral():     # Q x is off the lattice: round it, pay a step per count
        sensitivity = sensitivity + step * rows_changed * W.l0_sensitivity()
    b = laplace_scale(sensitivity, epsilon)                        # noise scale on the counts
    counts = W.counts(x) if step is None else round_to_grid(W.counts(x), step)
    answers = (counts + noise.sample(b, shape, rng, step=step)) / n
    return Release(answers, epsilon, 0.0, "laplace", noise_scale=b / n,
                   ledger=(Spend("laplace", epsilon),), neighbours=neighbours,
                   trace={"noise": noise.name, "sensitivity": sensitivity, "lattice_step": step})
