"""(ε, δ) mechanisms for a workload of linear queries (chapter 04): the Gaussian mechanism (DR-Gauss,
PROJ-R1) and per-query Laplace noise under basic or advanced composition (LEC3-3.3.2, DR-Cor3.21).

Both mirror :func:`dpbook.laplace.laplace_mechanism`: they add noise to the counts ``Q x`` (add/remove
neighbours, so the sensitivities are those of the counts) and release ``(Q x + noise) / n``.
PROJ-Def1's experiment (the smallest ``n`` at which the accuracy check ACC(α, β) of :mod:`dpbook.experiments`
passes) is :func:`dpbook.experiments.required_n`.
"""
from __future__ import annotations

import numpy as np

from .noise import discrete_gaussian_delta, gaussian_noise, laplace_noise, round_to_grid
from .queries import check_database
from .release import Ledger, Release, Spend
from .theory.composition import laplace_per_query_scale
from .theory.gaussian import analytic_gaussian_sigma, gaussian_sigma
from .contract import example, mechanism_prologue
from .validation import check_sensitivity

__all__ = ["gaussian_mechanism", "composed_laplace_mechanism", "CALIBRATIONS"]

CALIBRATIONS = ("classic", "analytic")


def gaussian_mechanism(x, workload, *, epsilon, delta, n=None, sensitivity=None, calibration="classic",
                       neighbours="add/remove", trials=None, rng=None, sampler=gaussian_noise) -> Release:
    """Release ``Q x / n + N(0, σ² I_m) / n`` — (ε, δ)-DP under add/remove neighbours (DR-Gauss, PROJ-R1).

    ``calibration="classic"``: ``σ = sqrt(2 ln(1.25/δ)) Δ2 / ε`` (DR-Gauss), which is a theorem only for
    ``ε < 1`` — larger ε is refused.  ``calibration="analytic"`` (*extra*, Balle & Wang 2018): the smallest σ
    whose exact privacy curve is ``<= δ`` at ε, for any ε > 0.
    ``sensitivity`` is the L2 sensitivity ``Δ2`` of the counts ``Q x``; by default the workload's exact
    ``max_u ||Q e_u||_2`` (at most ``sqrt(m)``).  A larger value is allowed (PROJ-R1 uses ``sqrt(m)``); a
    smaller one would break privacy and is refused.  ``n`` (the public row count, required under add/remove),
    ``trials``, ``rng`` and ``sampler`` as in :func:`dpbook.laplace.laplace_mechanism`.
    ``neighbours="replace-one"``: ``n`` may be omitted, and the L2 sensitivity is ``sqrt(2)·Δ2``
    (``||Q(e_u - e_v)||_2^2 <= ||Q e_u||^2 + ||Q e_v||^2`` for non-negative entries; ``2·Δ2``, the triangle
    inequality, when the workload's :meth:`~dpbook.queries.Workload.entry_range` has a negative entry).
    """
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials,
                           neighbours=neighbours, x=x, n_rule="public", per_release=(W.m,), positive_delta=True,
                           family="gaussian")
    epsilon, delta, n, neighbours, noise = p.epsilon, p.delta, p.n, p.neighbours, p.noise
    exact = W.l2_sensitivity()
    sensitivity = exact if sensitivity is None else check_sensitivity(sensitivity)
    if sensitivity < exact:
        raise ValueError(f"sensitivity ({sensitivity!r}) must be >= the workload's L2 sensitivity ({exact!r})")
    if neighbours == "replace-one":
        sensitivity = (np.sqrt(2.0) if W.entry_range()[0] >= 0 else 2.0) * sensitivity
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration ({calibration!r}) must be one of {CALIBRATIONS}")
    # one Gaussian step spends the whole (ε, δ):
    calibrate = gaussian_sigma if calibration == "classic" else analytic_gaussian_sigma
    sigma = calibrate(sensitivity, epsilon, delta)                          # noise std on the counts
    counts, step = W.counts(x), None
    if noise.lattice is not None:                    # discrete Gaussian: integer counts, its own exact δ
        if neighbours != "add/remove":
            raise ValueError("sampler (discrete_gaussian) is accounted under add/remove neighbours only")
        sigma, sensitivity, calibration = _discrete_gaussian_sigma(W, sensitivity, epsilon, delta, sigma)
        step = 1.0
        counts = round_to_grid(counts, step)
    answers = (counts + noise.sample(sigma, p.shape, p.rng, step=step)) / n
    return Release(answers, "gaussian", noise_scale=sigma / n,
                   ledger=(Spend("gaussian", epsilon, delta),), neighbours=neighbours,
                   trace={"calibration": calibration, "sensitivity": sensitivity, "sigma_counts": sigma,
                          "noise": noise.name})


def _discrete_gaussian_sigma(W, sensitivity, epsilon, delta, sigma_continuous):
    """σ for discrete Gaussian noise on one integer count: the smallest σ (to 0.1%) whose exact δ at ε
    (CKS20 Thm 7, :func:`dpbook.noise.discrete_gaussian_delta`) is at most ``delta``.  The count is rounded to
    the integers, which can move it by one more unit when ``Q`` has non-integer entries; the sensitivity is
    rounded up to an integer.  Several counts would need the multivariate accounting, which the book does not
    implement: refused."""
    if W.m != 1:
        raise ValueError(f"sampler (discrete_gaussian) is accounted for one query only; the workload has m = {W.m} "
                         "queries (use the continuous Gaussian, or ask one query at a time and compose)")
    delta_int = int(np.ceil(sensitivity + (0.0 if W.is_integral() else 1.0)))
    lo, hi = 0.25 * sigma_continuous * delta_int / sensitivity, 4.0 * sigma_continuous * delta_int / sensitivity
    if discrete_gaussian_delta(epsilon, hi, delta_int) > delta:
        raise ValueError(f"delta ({delta!r}) is too small for discrete Gaussian noise at epsilon ({epsilon!r})")
    while hi / lo > 1.001:
        mid = np.sqrt(lo * hi)
        lo, hi = (lo, mid) if discrete_gaussian_delta(epsilon, mid, delta_int) <= delta else (mid, hi)
    return float(hi), float(delta_int), "discrete (exact δ)"


def composed_laplace_mechanism(x, workload, *, epsilon, n=None, delta=0.0, neighbours="add/remove", trials=None,
                               rng=None, sampler=laplace_noise) -> Release:
    """Answer each of the ``m`` queries with its own ``Lap(1/ε_q)`` count noise (LEC3-3.3.2).

    The budget split is a composition rule: ``δ = 0`` — basic, ``ε_q = ε/m`` (ε-DP); ``δ > 0`` — advanced,
    DR-Cor3.21 with ``δ' = δ``: ``ε_q = ε/(2 sqrt(2m ln(1/δ)))`` ((ε, δ)-DP, needs ``ε < 1``).  Each count
    has sensitivity 1 for query values in ``[0, 1]`` (under add/remove and under replace-one), so each query is
    one ``ε_q``-DP Laplace step of scale ``1/ε_q``; the ledger lists all ``m`` steps.  A workload whose entries
    leave ``[0, 1]`` (cut queries with overlapping ``S`` and ``T`` have coefficient 2, erratum IDC-E5) pays its
    true per-count sensitivity ``s = max(1, W.linf_sensitivity(neighbours))`` (from its
    :meth:`~dpbook.queries.Workload.entry_range`): scale ``s/ε_q``, the same ``ε_q`` per step.  ``n``: the
    public row count, as in :func:`dpbook.laplace.laplace_mechanism` (required under add/remove).
    """
    x, W = check_database(x, workload)
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials,
                           neighbours=neighbours, x=x, n_rule="public", per_release=(W.m,), family="laplace")
    epsilon, delta, n, neighbours, noise = p.epsilon, p.delta, p.n, p.neighbours, p.noise
    b_unit = laplace_per_query_scale(W.m, epsilon, delta)                 # per-query scale for a count of sensitivity 1
    epsilon_q = 1.0 / b_unit                                              # budget of each of the m steps
    s = max(1.0, W.linf_sensitivity(neighbours))                          # how far one count moves (1 on [0, 1])
    b = s * b_unit                                                        # per-query scale on the counts
    counts, step = W.counts(x), noise.step(b)
    if step is not None:                              # lattice noise: each count rounded onto its lattice
        if not W.is_integral():                       # ... can move one more step: sensitivity s + step
            b = b_unit * (s + step)
        counts = round_to_grid(counts, step)
    answers = (counts + noise.sample(b, p.shape, p.rng, step=step)) / n
    rule = "basic" if delta == 0.0 else "advanced"
    return Release(answers, f"laplace per query ({rule} composition)", noise_scale=b / n,
                   ledger=Ledger((Spend(f"laplace query {i}", epsilon_q) for i in range(W.m)),
                                 rule="basic" if delta == 0.0 else "advanced-corollary",   # DR-Cor3.21's split
                                 delta_prime=delta, budget=epsilon), neighbours=neighbours,
                   trace={"rule": rule, "epsilon_q": epsilon_q, "sensitivity": s})


def _example_marginals():
    from .queries import k_way_marginals
    return dict(x=np.arange(16), workload=k_way_marginals(4, 1))


example(composed_laplace_mechanism, lambda: dict(**_example_marginals(), epsilon=0.9, delta=1e-6, n=120, rng=0))
