"""MWEM — offline multiplicative weights with the exponential mechanism (Hardt–Ligett–McSherry 2012; chapter 09).

Hardt, Ligett, McSherry, "A Simple and Practical Algorithm for Differentially Private Data Release", NeurIPS
2012 (result MWEM, [RECALLED]: stated from memory of the paper), the practical instance of IDC-Alg3.  Counts are
unnormalised.  Start from ``A_0 = n · Unif(X)``; for ``i = 1..T``:

1. select ``q_i`` by the exponential mechanism with budget ``ε/(2T)`` and score ``|q(A_{i-1}) − q(B)|``
   (sensitivity 1 in counts);
2. measure ``m_i = q_i(B) + Lap(2T/ε)``;
3. update ``A_i(x) ∝ A_{i-1}(x) · exp(q_i(x) (m_i − q_i(A_{i-1})) / (2n))``, renormalised to mass ``n``.

Output ``Ā = (1/T) Σ_i A_i``.  ε-DP by basic composition of the ``2T`` primitive steps, each recorded in
``Release.ledger``.

**The record count ``n`` is public** (as in HLM12): it scales the hypothesis and the update, so the
guarantee is ε-DP for neighbours of the same ``n`` (replace-one), or for add/remove neighbours when the
caller passes the same public ``n`` for both (the audits do).  Every data access is then one of the ``2T``
primitive steps and the rest is post-processing.

Speed.  Hypotheses live as probability vectors ``p = A/n`` (shape ``(trials, N)``, all trials at once).  The
mechanism asks the workload, never its type: the answers of every hypothesis are ``W.counts(P)`` (for marginals a
superset-sum transform, never an ``m × |X|`` matrix), each run's answer to its picked query ``W.counts_at(P, picks)``,
and the update ``mw_update(W, P, picks, coefficient)`` (:mod:`dpbook.multiplicative_weights`) (generic through the query's non-zeros; a
:class:`~dpbook.queries.MarginalWorkload` scales only the cell's slab of the reshaped ``(2,)*d`` cube).  Whole
marginals (``mwem_practical(measure="marginal")``) need ``marginal_layout(W)``, which a workload without
marginal cells refuses with a ``ValueError``.

Module map: :func:`mwem` and :func:`mwem_practical` (the mechanisms), :func:`adaptive_marginals` (the book's take on
AIM: 1-way marginals first when informative, selection among the candidates a measurement can improve on a
bias-corrected score, budget annealing, a least-squares + empirical-Bayes + proportional fit; or, by a public
rule, the full table projected onto the tables of ``n`` rows); :func:`check_mwem_inputs` (what every variant
validates); the engine :func:`mwem_rounds` (the loop), :func:`mwem_ledger`, :func:`mwem_release`, shared with
the broken twins of :mod:`dpbook.broken.mwem`.
"""
from __future__ import annotations

import functools
import itertools
import math
import weakref

import numpy as np

from .exponential import exponential_mechanism
from .multiplicative_weights import marginal_layout, mw_update
from ._mw_kernels import cube_blocks
from .noise import as_noise, gaussian_noise, laplace_noise
from .queries import MarginalWorkload, check_database
from .release import Ledger, Release, Spend, compose, zcdp_rho
from .theory.composition import tight_per_step_epsilon
from .contract import example, mechanism_prologue
from .validation import (real_dtype, EPSILON_EXP_MAX, EPSILON_RANGE, check_choice, check_delta, check_entry_range, check_epsilon,
                         check_int, check_real, check_work)

__all__ = ["mwem", "mwem_practical", "advanced_step_epsilon", "adaptive_marginals"]
# The engine (documented, shared with dpbook.broken.mwem, not in __all__, which the bad-input sweep of
# tests/test_api_coverage.py and the audit coverage walk): check_mwem_inputs (the checks of every variant: it
# takes epsilon and rng but releases nothing; tests/test_mwem.py sweeps it), and mwem_rounds, mwem_ledger,
# mwem_release, which take validated inputs; adaptive_release, adaptive_one_way_budget and measure_one_way_marginals
# are adaptive_marginals' engine, shared with its broken twin and its audit.


# --------------------------------------------------------------------------- the mechanism

def _select(scores: np.ndarray, epsilon_select: float, rng) -> np.ndarray:
    """One exponential-mechanism pick per row of ``scores`` (counts, sensitivity 1)."""
    return exponential_mechanism(scores, epsilon=epsilon_select, sensitivity=1.0, rng=rng)


def mwem_ledger(T: int, epsilon_select, epsilon_measure, unit: str = "", *, rule: str = "basic",
                delta_prime: float = 0.0, budget=None) -> Ledger:
    """The ``2T`` primitive steps of MWEM, each a :class:`~dpbook.release.Spend`: round ``i``'s
    exponential-mechanism selection at ``epsilon_select[i]`` and Laplace measurement at ``epsilon_measure[i]`` (a
    scalar: the same every round).  ``unit`` says what is selected and measured.  ``rule``: how the steps
    compose — ``"basic"`` (DR-Thm3.16, the ε add up) or ``"advanced"`` with ``delta_prime`` (DR-Thm3.20).
    ``budget``: the ε the steps were split from (:class:`~dpbook.release.Ledger`)."""
    sel = np.broadcast_to(np.asarray(epsilon_select, dtype=np.float64), (T,))
    mea = np.broadcast_to(np.asarray(epsilon_measure, dtype=np.float64), (T,))
    what = f" {unit}" if unit else ""
    return Ledger([Spend(f"round {i + 1}: {step}", float(eps)) for i in range(T)
                   for step, eps in ((f"exponential mechanism (select{what})", sel[i]),
                                     (f"laplace (measure{what})", mea[i]))], rule=rule, delta_prime=delta_prime,
                  budget=budget)


def mwem(x, workload, *, epsilon, T, delta=0.0, n=None, replay=0, trials=None, rng=None,
         sampler=laplace_noise) -> Release:
    """MWEM (Hardt–Ligett–McSherry 2012, result MWEM [RECALLED]): ``T`` rounds of select / measure /
    multiplicative-weights update.

    ``x``: histogram; ``workload``: linear queries in ``[0,1]^N`` (a :class:`MarginalWorkload` is fastest; a
    workload whose :meth:`~dpbook.queries.Workload.entry_range` leaves ``[0, 1]`` is refused: the score and
    the measured count have sensitivity 1 only there);
    ``epsilon``: total budget; ``T``: rounds.  ``delta``: the composition rule that splits ``epsilon`` over the
    ``2T`` primitive steps — ``0`` (the algorithm as HLM12 state it): basic composition (DR-Thm3.16), each step
    at ``ε/(2T)``, pure ε-DP; ``δ > 0``: advanced composition (DR-Thm3.20 with ``δ' = δ``), each step at the
    largest ``ε0`` whose ``2T`` steps compose to ``ε`` (:func:`advanced_step_epsilon`), an ``(ε, δ)``-DP
    claim whose steps are larger than ``ε/(2T)`` once ``T`` exceeds about ``ln(1/δ)``.  ``n``: the public
    record count (the claim then holds under add/remove neighbours; by default ``||x||_1``, read from the data,
    and the claim is made under replace-one neighbours, where ``n`` is the same for both databases).
    ``replay``: after each round, sweep the update over all measurements so far this many more times (HLM12's
    practical improvement [RECALLED]; it only post-processes the transcript, so the privacy accounting is
    unchanged; ``0`` is the algorithm as HLM12 state it and the only one the accuracy bound covers);
    ``trials``: that many independent runs at once; ``sampler``: the Laplace noise.  Returns a
    :class:`Release` whose ``answers`` are the normalised answers ``q(Ā)/n`` of the averaged hypothesis; ``trace`` holds
    ``synthetic`` (``Ā/n``), ``answers_last`` (``q(A_T)/n``), ``selected`` and ``measurements`` (the
    transcript, in counts).
    """
    x, W, p, T, replay = check_mwem_inputs(x, workload, epsilon=epsilon, delta=delta, T=T, n=n, replay=replay,
                                           trials=trials, rng=rng, sampler=sampler)
    check_entry_range(W, "workload", 0.0, 1.0, why="MWEM's score and measurement have sensitivity 1 in counts")
    epsilon, delta, n = p.epsilon, p.delta, p.n
    # ---- budget split over the 2T primitive steps (select, measure) by the composition rule delta asks for
    if delta == 0.0:                            # basic composition (DR-Thm3.16): they sum to ε
        epsilon_select = epsilon / (2 * T)      # exponential mechanism, score |q(A) - q(B)|, sensitivity 1
        epsilon_measure = epsilon / (2 * T)     # Laplace on one count: Lap(1/epsilon_measure) = Lap(2T/ε)
    else:                                       # advanced composition (DR-Thm3.20, δ' = δ): they compose to ε
        epsilon_select = epsilon_measure = advanced_step_epsilon(epsilon, T, delta)
    rule = "basic" if delta == 0.0 else "advanced"

    out = mwem_rounds(x, W, T=T, n=n, replay=replay, R=p.runs, rng=p.rng, sampler=p.noise,
                      select=lambda scores, i, allowed, g: _select(scores, epsilon_select, g),
                      measure_scale=[1.0 / epsilon_measure] * T)
    return mwem_release(out, trials, "mwem", 1.0 / (epsilon_measure * n),
                        mwem_ledger(T, epsilon_select, epsilon_measure, rule=rule, delta_prime=delta, budget=epsilon),
                        neighbours=p.neighbours, T=T, n=n, replay=replay, epsilon_select=epsilon_select,
                        epsilon_measure=epsilon_measure, composition=rule)


def _example_marginals():
    from .queries import k_way_marginals
    return dict(x=np.arange(16), workload=k_way_marginals(4, 1))


example(mwem, lambda: dict(**_example_marginals(), epsilon=0.9, T=20, delta=1e-6, n=120, trials=2, rng=0))


def advanced_step_epsilon(epsilon, T, delta) -> float:
    """MWEM's per-step budget under advanced composition: the largest ``ε0`` whose ``2T`` steps compose to
    ``epsilon`` by DR-Thm3.20 with ``δ' = delta`` (:func:`~dpbook.theory.composition.tight_per_step_epsilon`),
    refused — naming ``epsilon`` and ``T`` — outside the theorem's range (``ε <= 100``) or when the step falls
    below the smallest epsilon."""
    epsilon = check_epsilon(epsilon, high=EPSILON_EXP_MAX)       # a formula with e^ε: ε <= 100
    T = check_int("T", T, low=1, high=10 ** 9 // 2)
    delta = check_delta(delta, positive=True)
    step = tight_per_step_epsilon(epsilon, 2 * T, delta)
    if step < EPSILON_RANGE[0]:
        raise ValueError(f"T ({T}) splits epsilon ({epsilon!r}) into {step:.3g} per step, below the smallest "
                         f"epsilon {EPSILON_RANGE[0]:g}; make T smaller")
    return step


def mwem_practical(x, workload, *, epsilon, T, n=None, measure="marginal", output="last", replay="converge",
                   exclude_measured=True, select_share=0.5, round_weights=None, neighbours="add/remove",
                   trials=None, rng=None, sampler=laplace_noise) -> Release:
    """MWEM as people run it (result MWEM [RECALLED] and the practical
    improvements of Hardt, Ligett, McSherry, "A Simple and Practical Algorithm for Differentially Private Data
    Release", NeurIPS 2012): the same loop as :func:`mwem`, with five switches.

    * ``measure="marginal"``: a *unit* is one marginal — every cell of the workload with the same attribute
      set ``S``.  Round ``i`` selects a unit with the exponential mechanism on its L1 error
      ``Σ_{c∈S} |c(A) − c(B)|`` and measures all its cells, ``m_c = c(B) + Lap(Δ/ε_measure,i)``; then one MW
      update with every measured cell at once (disjoint slabs).  ``"cell"``: a unit is one query (the theorem),
      of any workload.
    * ``output``: ``"last"`` releases the last hypothesis ``A_T``; ``"average"`` the theorem's ``Ā``.
    * ``replay``: sweeps of the update over every measurement so far after each round (``0``, an int, or
      ``"converge"``: until no measured answer moves in a sweep by more than 1% of the smallest measurement
      noise scale ``Δ/(ε_measure,i n)``, a movement negligible next to the noise; at most 50 sweeps).  With
      ``trials``, each run replays on its own (one by one).
    * ``exclude_measured``: the exponential mechanism only ranges over units not measured yet (``T`` may not
      exceed the number of units).
    * ``select_share`` and ``round_weights``: round ``i`` gets ``ε_i = ε · w_i`` (``w`` = ``round_weights``
      normalised to sum 1; equal by default), split ``ε_select,i = select_share · ε_i`` and
      ``ε_measure,i = (1 − select_share) · ε_i``.  The theorem's split is ``select_share = 1/2``, equal ``w``.

    Privacy (re-derived).  Neighbours: ``"add/remove"`` with the public record count ``n`` (the same ``n`` for
    both databases, as in :func:`mwem`) or ``"replace-one"``.  ``Δ`` is the exact L1 sensitivity of one unit's
    cell counts under ``neighbours``, the largest over the units, repeated cells counted as often as they are
    listed: a unit's distinct cells share ``S`` and are disjoint, so one added or removed row is in one of them,
    listed ``k`` times (``Δ = k``, :meth:`MarginalWorkload.l1_sensitivity` of the unit; 1 without repeats), and
    one replaced row leaves one cell and enters another (``Δ = k + k'``, the two largest multiplicities,
    :meth:`MarginalWorkload.replace_one_l1_sensitivity`; 2 without repeats, 1 for a unit of one cell).  A unit of
    ``measure="cell"`` is one query: ``Δ = max(1, W.linf_sensitivity(neighbours))``, 1 for queries in ``[0, 1]``
    and the true range otherwise (overlapping cut queries: 2).  (i) The score of a unit, its L1 error, changes by at most ``Δ`` (triangle inequality;
    ``A`` is fixed given the transcript so far), so selection is ``ε_select,i``-DP (exponential mechanism,
    DR-Thm3.10), also when restricted to unmeasured units (the range depends only on earlier, already
    released picks).  (ii) The measurement is the Laplace mechanism on a vector of L1 sensitivity ``Δ`` at
    scale ``Δ/ε_measure,i``: ``ε_measure,i``-DP.  (iii) The update, the replay sweeps and the choice of output
    read only the transcript: post-processing.  Adaptive basic composition over the ``2T`` steps:
    ``Σ_i (ε_select,i + ε_measure,i) = ε``, each step a ``Spend`` in ``Release.ledger``.  The HLM accuracy
    bound (``hlm_error_bound``) covers only :func:`mwem` (cells, average, no replay, no exclusion, even split).

    Returns a :class:`Release` of normalised answers (``q(A_T)/n`` or ``q(Ā)/n``); ``trace`` holds
    ``synthetic``/``synthetic_last`` (the average and last hypotheses), ``answers_last``, ``selected`` (unit
    indices), ``units`` (their cell indices, ``-1`` padded), ``measurements`` (``(T, g)`` per run, counts),
    ``replay_sweeps`` and the budget split.
    """
    x, W, p, T, _ = check_mwem_inputs(x, workload, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng,
                                      sampler=sampler, neighbours=neighbours)
    epsilon, n, neighbours, R = p.epsilon, p.n, p.neighbours, p.runs   # add/remove: n must be public
    measure = check_choice("measure", measure, ("marginal", "cell"))
    output = check_choice("output", output, ("last", "average"))
    if not (isinstance(replay, str) and replay == "converge"):
        replay = check_int("replay", replay, low=0)
    if not isinstance(exclude_measured, (bool, np.bool_)):
        raise TypeError(f"exclude_measured must be True or False, got {type(exclude_measured).__name__}")
    select_share = check_real("select_share", select_share, low=0.0, high=1.0, low_open=True, high_open=True)
    weights = _round_weights(round_weights, T)
    layout = marginal_layout(W) if measure == "marginal" else None      # ValueError if W has no marginals
    units = np.arange(W.m)[:, None] if layout is None else layout.units      # (G, g) cells per unit, -1 padded
    if exclude_measured and T > units.shape[0]:
        raise ValueError(f"T ({T}) must be at most the number of units ({units.shape[0]}) when exclude_measured")
    if layout is None:                 # one query per unit: how far one count moves (1 for queries in [0, 1])
        sensitivity = max(1.0, W.linf_sensitivity(neighbours))
    elif neighbours == "add/remove":   # one row is in at most one cell of a marginal (repeated cells: counted)
        sensitivity = float(layout.sensitivity.max())
    else:                              # a replaced row leaves one cell and enters another (repeats counted)
        sensitivity = float(layout.replace_sensitivity.max())
    # ---- the budget: round i gets epsilon * w_i, split between selection and measurement; they sum to ε
    epsilon_round = epsilon * weights
    epsilon_select = select_share * epsilon_round
    epsilon_measure = epsilon_round - epsilon_select

    def select(scores, i, allowed, g):
        return _select_among(scores, epsilon_select[i], sensitivity, allowed, g)

    out = mwem_rounds(x, W, T=T, n=n, replay=replay, R=R, rng=p.rng, sampler=p.noise, select=select,
                      measure_scale=sensitivity / epsilon_measure, layout=layout, exclude=bool(exclude_measured),
                      tol=_TOL_SHARE * sensitivity / (float(epsilon_measure.max()) * n))
    if measure == "cell":
        out["measurements"] = out["measurements"][..., None]
    if output == "last":
        out["answers_average"], out["answers"] = out["answers"], out["answers_last"]
    unit = "a marginal" if measure == "marginal" else "a cell"
    ledger = mwem_ledger(T, epsilon_select, epsilon_measure, f"{unit}, Δ={sensitivity:g}", budget=epsilon)
    return mwem_release(out, trials, "mwem (practical)", sensitivity / (float(epsilon_measure.min()) * n),
                        ledger, neighbours=neighbours, T=T, n=n, measure=measure, output=output, replay=replay,
                    exclude_measured=bool(exclude_measured), units=units, sensitivity=sensitivity,
                    epsilon_select=epsilon_select, epsilon_measure=epsilon_measure)


def _round_weights(round_weights, T):
    if round_weights is None:
        return np.full(T, 1.0 / T)
    w = np.asarray(round_weights)
    if not real_dtype(w.dtype):
        raise TypeError(f"round_weights must be a sequence of T positive numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if w.shape != (T,):
        raise ValueError(f"round_weights must have one weight per round (shape ({T},)), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("round_weights must be finite and > 0")
    return w / w.sum()


def _select_among(scores, epsilon_select, sensitivity, allowed, rng):
    """The exponential mechanism per row (score sensitivity ``sensitivity``), over the allowed units only."""
    if allowed is None:
        return exponential_mechanism(scores, epsilon=epsilon_select, sensitivity=sensitivity, rng=rng)
    u = np.where(allowed, scores, -np.inf)
    logits = epsilon_select * (u - u.max(axis=1, keepdims=True)) / (2.0 * sensitivity)   # -inf: weight 0
    return np.argmax(logits + rng.gumbel(size=u.shape), axis=1)


def check_mwem_inputs(x, workload, *, epsilon, T, delta=0.0, n=None, replay=0, trials=None, rng=None,
                      sampler=laplace_noise, neighbours=None, family="laplace"):
    """The inputs every MWEM variant checks, in one place (also for :mod:`dpbook.broken.mwem`).

    The histogram and the workload over the same universe (:func:`~dpbook.queries.check_database`), then the
    mechanisms' prologue (:func:`dpbook.contract.mechanism_prologue`: ``epsilon``, ``delta``, ``rng``, the
    continuous ``sampler`` of ``family`` (Laplace unless a variant accounts for Gaussian noise) — measured counts
    of fractional queries are reals —, the public ``n``,
    ``trials``), then ``T >= 1`` rounds and ``replay >= 0`` sweeps, with
    the work ``R·T·(m + N)`` bounded.  ``neighbours``: the claim's relation; ``None`` derives it from ``n``
    (given: add/remove; ``None``: replace-one, ``n = ||x||_1`` read from the data).  Under add/remove ``n`` must
    be given.  Returns ``(x, W, prologue, T, replay)``; raises ``TypeError`` / ``ValueError`` naming the parameter.
    """
    x, W = check_database(x, workload)
    if neighbours is None:                      # n read from the data is public only under replace-one
        neighbours = "replace-one" if n is None else "add/remove"
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials,
                           neighbours=neighbours, x=x, n_rule="public", per_release=(W.m + W.N,),
                           family=family, lattice_ok=False)
    T = check_int("T", T, low=1)
    replay = check_int("replay", replay, low=0)
    check_work(trials=p.runs, T=T, **{"m + N": W.m + W.N})   # T rounds over (R, m) answers and (R, N) hypotheses
    return x, W, p, T, replay


def mwem_rounds(x, W, *, T, n, R, rng, sampler, select, measure_scale, layout=None, exclude=False, replay=0,
                tol=0.0, sign=1.0) -> dict:
    """The MWEM loop for ``R`` independent runs (the theorem's and every practical variant's), inputs from
    :func:`check_mwem_inputs`.

    ``layout``: ``None`` for the theorem's units (one cell each), or the workload's
    :func:`~dpbook.multiplicative_weights.marginal_layout` (a unit = one whole marginal, its cells in ``layout.units``,
    ``-1`` padded).  ``select(scores, i, allowed, rng)`` picks one unit per run from the ``(R, G)`` scores (the L1
    error of each unit, in counts) at round ``i``; ``allowed`` is ``None`` or the ``(R, G)`` mask of units not yet
    measured (``exclude``).  ``measure_scale[i]``: the Laplace scale of round ``i``'s measurements, in counts.
    ``replay``: sweeps of the update over every measurement so far after each round (an int, or
    ``"converge"``); ``sign=-1`` exists for the broken twin only.
    """
    true_counts = W.counts(x.astype(np.float64))                                  # q(B) for every query
    P = np.full((R, W.N), 1.0 / W.N)                                              # A_0 / n, uniform
    P_sum = np.zeros_like(P)
    hyp = W.counts(P)                                                             # q(A_0)/n, shape (R, m)
    answers_sum = np.zeros_like(hyp)
    cells = np.arange(W.m)[:, None] if layout is None else layout.units          # (G, g) cell indices
    real = cells >= 0
    selected = np.empty((R, T), dtype=np.int64)
    measurements = np.empty((R, T, cells.shape[1]))
    allowed = np.ones((R, cells.shape[0]), dtype=bool) if exclude else None
    rows = np.arange(R)
    sweeps = []
    for i in range(T):
        error = np.abs(n * hyp - true_counts)
        scores = error if layout is None else (error[:, cells] * real).sum(axis=2)          # L1 error per unit
        picks = select(scores, i, allowed, rng)                                            # 1. select
        measured_cells = cells[picks]                                                      # (R, g)
        noise = sampler(measure_scale[i], (R,) if layout is None else measured_cells.shape, rng)
        measured = true_counts[measured_cells] + noise.reshape(measured_cells.shape)       # 2. measure
        coefficient = sign * (measured - n * hyp[rows[:, None], measured_cells]) / (2.0 * n)   # 3. update
        if layout is None:
            mw_update(W, P, measured_cells[:, 0], coefficient[:, 0], out=P, check=False)
        else:
            layout.update(P, picks, coefficient, layout.tables(P, picks))
        selected[:, i], measurements[:, i] = picks, measured
        if exclude:
            allowed[rows, picks] = False
        so_far = measurements[:, :i + 1] if layout is not None else measurements[:, :i + 1, 0]
        sweeps.append(_replay(P, W, selected[:, :i + 1], so_far, n, replay, layout, tol))   # post-processing
        hyp = W.counts(P)
        answers_sum += hyp
        P_sum += P
    return {"answers": answers_sum / T, "answers_last": hyp, "synthetic": P_sum / T, "synthetic_last": P,
            "selected": selected, "measurements": measurements[:, :, 0] if layout is None else measurements,
            "replay_sweeps": np.column_stack(sweeps)}


# --------------------------------------------------------------------------- replaying the transcript

def _replay(P, W, selected, measured, n, replay=0, layout=None, tol=0.0):
    """Sweeps of the MW update over every measurement so far (HLM12's practical variant; post-processing).

    ``replay`` sweeps, or ``"converge"``: sweep until no measured answer (normalised) moves by more than
    ``tol`` in a sweep, at most ``_MAX_SWEEPS``.  Whole marginals replay run by run (each run converges on its
    own, with the one-run kernel ``layout.step_one``); returns the sweeps made, per run.
    """
    R = P.shape[0]
    if replay == 0:
        return np.zeros(R, dtype=np.int64)
    limit = _MAX_SWEEPS if replay == "converge" else replay
    if layout is not None:
        return np.array([_replay_one(P[t], selected[t], measured[t], n, limit, replay == "converge", layout, tol)
                         for t in range(R)])
    previous = None
    for sweep in range(1, limit + 1):                         # cells: all trials at once, measurement by measurement
        answers = np.empty(selected.shape)
        for s in range(selected.shape[1]):
            picks = selected[:, s]
            answers[:, s] = here = W.counts_at(P, picks)
            mw_update(W, P, picks, (measured[:, s] - n * here) / (2.0 * n), out=P, check=False)
        if replay == "converge" and previous is not None and np.max(np.abs(answers - previous)) <= tol:
            return np.full(R, sweep)                          # (cells converge jointly over the trials)
        previous = answers
    return np.full(R, limit)


def _replay_one(p, units, measured, n, limit, converge, layout, tol) -> int:
    """One run's sweeps over its measured marginals (``units[s]`` measured as ``measured[s]``), in place."""
    real = [measured[s][layout.flat[u] >= 0] for s, u in enumerate(units)]
    previous = None
    for sweep in range(1, limit + 1):
        answers = np.concatenate([layout.step_one(p, u, real[s], n) for s, u in enumerate(units)])
        if converge and previous is not None and np.max(np.abs(answers - previous)) <= tol:
            return sweep
        previous = answers
    return limit


_MAX_SWEEPS = 50
_TOL_SHARE = 0.01     # converged: answers move < 1% of the measurement noise scale per sweep


def mwem_release(out: dict, trials, name, noise_scale, ledger, neighbours="add/remove", **extra) -> Release:
    """Package :func:`mwem_rounds`' output as a :class:`~dpbook.release.Release` claiming ``(epsilon, delta)``
    (``delta = 0``: pure ε); a single run (``trials=None``) drops the leading axis; ``extra`` joins the trace."""
    if trials is None:
        out = {key: value[0] for key, value in out.items()}
    answers = out.pop("answers")
    return Release(answers, name, noise_scale=noise_scale, ledger=ledger, neighbours=neighbours,
                   trace={**out, **extra})


# --------------------------------------------------------------------------- adaptive marginals (the book's AIM)

def adaptive_marginals(x, workload, *, epsilon, delta=0.0, n=None, neighbours="add/remove", select_share=0.3,
                       route="auto", trials=None, rng=None, sampler=None) -> Release:
    """Adaptive marginal release: the book's take on AIM's ideas (McKenna, Mullins, Sheldon, Miklau, "AIM: An
    Adaptive and Iterative Mechanism for Differentially Private Synthetic Data", VLDB 2022), at pure ε
    (``delta = 0``, the default) or, with ``delta > 0``, at ``(ε, δ)`` through zero-concentrated DP as AIM runs
    (Gaussian noise, AIM's budget schedule; the two variants are stated together below).

    ``x``: histogram over ``{0,1}^d``; ``workload``: a :class:`~dpbook.queries.MarginalWorkload` (its cells'
    attribute sets ``S`` define the marginals to answer; any other linear workload is answered from the full-table
    route, the only one that does not need marginals); ``epsilon``: the total budget; ``n``: the public
    record count (required under ``neighbours="add/remove"``; under ``"replace-one"`` it is read from the data,
    the same for both neighbours); ``select_share``: the share of each round's budget spent on selection (ε_t
    at ``delta = 0``, ρ_t at ``delta > 0``; AIM spends 0.1 of ρ_t, which measured alike with this estimator on
    the adaptive route: median max / mean error 0.089 / 0.0260 against 0.091 / 0.0258 at 0.3 over 21 seeds,
    cancer, 2-way, ε = 1, δ = 1e-6, so both variants keep 0.3); ``route``: ``"auto"`` (the public rule below), ``"adaptive"`` or ``"full table"``; ``sampler``:
    the noise (``None``: ``laplace_noise`` at ``delta = 0``, ``gaussian_noise`` at ``delta > 0`` — whose full-table
    route may draw one Laplace table instead, below; a sampler of the other family is refused, and a sampler passed
    is the one drawn on every route).

    Two variants share one algorithm and differ in their noise and accounting.  *Pure ε* (``delta = 0``):
    Laplace noise, budgets ``ε_t`` that add up (basic composition), ``T0 = 2d`` planned rounds.  *(ε, δ)*
    (``delta > 0``, AIM's accounting): Gaussian noise, zero-concentrated DP with budget ``ρ = zcdp_rho(ε, δ)``
    (the largest ρ whose conversion, :func:`dpbook.release.zcdp_epsilon`, Canonne–Kamath–Steinke 2020 Prop. 12,
    the one AIM uses, is at most ε at δ), budgets ``ρ_t`` that add up, AIM's ``T0 = 16d`` planned rounds (under
    zCDP a measurement's σ grows only as the square root of the number of rounds, so many small rounds are
    cheap; under basic composition fewer, larger rounds keep each measurement informative).  Every rule that
    compares a measurement's noise with an error uses its *expected L1 noise*: ``2^{|r|} e`` on a table of
    ``2^{|r|}`` cells, ``e`` one cell's expected ``|noise|`` — ``e = b`` for ``Lap(b)`` (``E|Z| = b``) and
    ``e = σ sqrt(2/π)`` for ``N(0, σ²)`` (``E|Z| = 2 ∫_0^∞ z e^{−z²/(2σ²)} dz / (σ sqrt(2π)) = 2σ²/(σ sqrt(2π))
    = σ sqrt(2/π)``).

    Route (a public rule, no budget): when the full table's expected L1 noise ``N e`` (``e``: its measurement's
    expected ``|noise|`` per cell, below) is at most ``4n`` (:func:`full_table_suffices`; twice the largest L1
    distance ``2n`` between two tables of ``n`` rows; a design constant chosen after measuring the peers
    benchmark's rows, not a derived optimum), the whole budget measures the full table and the estimate is its Euclidean projection onto the tables of
    ``n`` rows (:func:`simplex_projection`: the nonnegative least-squares fit, which zeroes the noise of the many
    empty cells of sparse data).  At ``delta = 0`` the measurement is ``x + Lap(Δ/ε)`` on every cell.  At
    ``delta > 0`` it is the one of ``Lap(Δ/ε)`` (a pure ``(ε, 0)`` claim) and ``N(0, σ²)`` at ρ (``σ =
    Δ₂/sqrt(2ρ)``) with the smaller expected ``|noise|`` per cell, ``Δ/ε`` against ``σ sqrt(2/π)`` (Laplace at
    δ = 1e-6: 1/ε against 3.6/ε at ε = 1), and ``e`` is that smaller one — when ``sampler`` is left at its
    default.  A sampler the caller passes (at ``delta > 0`` a Gaussian one: Laplace samplers are refused) is the
    one drawn: the table gets ``N(0, σ²)`` from it, a ρ-zCDP step accounted like every other measurement, and
    ``e = σ sqrt(2/π)`` (:func:`_gaussian_table`).  Otherwise the adaptive route:

    The candidates are the downward closure of the workload's attribute sets, plus the full attribute set
    ``[d]``.  Each candidate ``r`` has the weight ``w_r = Σ_s |r ∩ s| / max_r' Σ_s |r' ∩ s|`` over the
    workload's sets (AIM's weights, scaled into (0, 1]; the full table gets weight 1).  The estimate is a
    distribution ``p`` over the full table.

    1. The opening measures every 1-way marginal with the noise of one planned round: at ``delta = 0`` each
       cell gets ``Lap(b_1)``, ``b_1 = Δ d / ε_1``, ``ε_1 = ε / T0`` (:func:`adaptive_one_way_budget`); at
       ``delta > 0`` ``N(0, σ_1²)`` with the first round's measurement σ, ``σ_1 = Δ₂ sqrt(T0 / (2 (1 −
       select_share) ρ))``, costing ``ρ_1 = d Δ₂²/(2σ_1²)`` (:func:`adaptive_zcdp_opening`) — but only when the
       step is informative: a 1-way table's expected L1 noise ``2 e_1`` (``e_1 = b_1``, or ``σ_1 sqrt(2/π)``)
       is below ``n``, the largest L1 error the uniform start can have on a 1-way table (``2n (1 − 1/2)``;
       :func:`_opening_informative`).  Otherwise nothing is measured and ``ε_1`` (``ρ_1``) is carried into the
       first round's budget.
    2. Round ``t`` has budget ``ε_t`` (``ρ_t``; ``ε/T0`` or ``ρ/T0`` at first); when what is left is at most
       twice it, the round takes exactly what is left and is the last.  It spends the share ``select_share`` of
       it on selection — at ``delta = 0`` the exponential mechanism at ``ε_sel = select_share · ε_t``; at
       ``delta > 0`` at ``ε_sel = sqrt(8 select_share ρ_t)`` (which is ``select_share ρ_t``-zCDP, below) — and the
       rest on the measurement: ``Lap(b_t)``, ``b_t = Δ/((1 − select_share) ε_t)``, or ``N(0, σ_t²)``, ``σ_t =
       Δ₂/sqrt(2 (1 − select_share) ρ_t)``; ``e_t`` is ``b_t`` or ``σ_t sqrt(2/π)``.  The round may measure
       only an *eligible* candidate (:func:`_eligible`): one whose expected L1 noise ``2^{|r|} e_t`` is below
       ``2 (n − min_v M_r(p)_v)``, the largest L1 error the model can have on ``r`` for any table of ``n`` rows
       (all rows in the model's least likely cell) — exactly the candidates whose score below can be positive
       for some data; a measurement that cannot beat the model on any data is not made.  When no candidate is
       eligible, the budget is carried, not spent: it is raised as the annealing raises it (step 4) until one
       is, or until the round is the last (which then measures among all candidates; :func:`_round_budget`).
       Select ``r_t`` among the eligible on the bias-corrected score ``u_r = w_r (‖M_r(p) − M_r(x)‖_1 −
       2^{|r|} e_t)`` (``M_r``: the marginal table on ``r``, in counts): a marginal is worth measuring only when
       the model is further from it than the measurement's noise would be.
    3. Measure ``M_{r_t}(x)`` plus the round's noise on each of its ``2^{|r|}`` cells and re-estimate ``p``
       (below).
    4. Annealing: when the re-estimated marginal moved less than the noise would, ``‖M_r(p_t) − M_r(p_{t−1})‖_1
       <= 2^{|r|} e_t``, the next round's noise halves: ``ε_t`` doubles (``ρ_t`` quadruples, as in AIM).  The
       number of rounds is data-driven; every round's budget is a step of the ledger and they add up to ``ε``
       (``ρ``).

    The estimator (post-processing of the measurements and public ``n``).  (i) *Consistent least squares.*  On
    ``{0,1}^d`` a marginal on ``S`` is the Hadamard transform of the parity sums ``f_T = Σ_u (−1)^{|u ∩ T|}
    x_u`` for ``T ⊆ S``; a measurement of ``S`` with i.i.d. noise of variance ``v`` per cell (``2b²`` for
    ``Lap(b)``, ``σ²`` for ``N(0, σ²)``: a measurement records the Laplace scale of its variance, ``σ/√2``)
    gives an estimate of every such ``f_T`` with variance ``2^{|S|} v``, uncorrelated across ``T`` (an
    orthogonal transform of i.i.d. noise).  The generalised least-squares fit of all measurements therefore
    decouples per ``T``: the inverse-variance average of the
    estimates ``f̂_T`` of ``f_T`` (variance ``v_T``), then shrunk by empirical Bayes towards the *independent
    table* — the table whose attributes are independent with the fitted 1-way marginals — one prior per order
    ``j = |T|``: ``f_T ~ N(m_T, τ_j²)`` with ``m_T = 0`` at order 1 (the uniform table's) and ``m_T = n Π_{a ∈ T}
    f_a / n`` at order ``>= 2`` (the independent table's sum: under independence ``E (−1)^{|u ∩ T|} = Π_{a ∈ T}
    E (−1)^{u_a}``; ``f_a`` the fitted order-1 sums, fitted first; :func:`_independence_means`), ``τ_j²`` the
    maximum-likelihood value of ``f̂_T − m_T ~ N(0, τ_j² + v_T)`` over the order's estimates (the root of its
    score equation in ``[0, n²/3]``) (``n²/3``: the variance of the uniform law on the range ``|f_T| <= n``),
    and ``f_T = m_T + (f̂_T − m_T) τ_j²/(τ_j² + v_T)`` (the posterior mean; :func:`_shrink`).  Where the
    measurements cannot tell an order's coefficients from those of the independent table, ``τ_j² = 0`` and that
    order is the independent table's (order 1: the uniform guess); where they can, the shrinkage fades (``τ_j² >>
    v_T``).  Why the independent table and not the uniform one at order ``>= 2``: on data with unbalanced
    attributes (a 1-way sum ``f_a`` far from 0), ``f_{ab}`` is far from 0 even between independent attributes,
    so shrinking it to 0 pulls every measured 2-way table towards a dependence the data do not have (measured
    on digits, d = 16, 2-way, ε = 1, δ = 1e-6, seeds 0–4: the same selected sets fitted without shrinkage had
    a lower mean error than with shrinkage to 0 in 4 of 5 seeds; shrinking to the independent table lowered the
    median max / mean error from 0.040 / 0.0082 to 0.036 / 0.0066, and on 15 other seeds (5–19) from 0.038 /
    0.0080 to 0.036 / 0.0075; at pure ε alike within the seeds' spread, 0.065 / 0.0128 against 0.066 /
    0.0130).  A fixed prior at the range's variance would keep a third or more of a measurement whose noise
    swamps the coefficients, and proportional fitting multiplies such distorted margins into marginals never
    measured.  ``f_∅ = n``.  The fitted marginals are
    consistent with each other.
    (ii) *Proportional fitting.*  Starting from the previous round's ``p`` (warm start; uniform at first),
    each maximal measured set (in no other measured set: consistency makes its table carry its subsets')
    scales its cells of ``p`` to its fitted (clipped at 0) counts: one sweep per round, and sweeps to
    convergence for the release (until no marginal misses its target by more than 1% of the smallest noise
    scale, or a sweep shrinks the largest miss by less than 1%; at most 50).  The released answers are
    ``W.counts(p)`` (on a factored model, (iii), its pair tables: the same numbers to rounding).
    (iii) *Representation* (the same numbers, to rounding).  Fitting from the uniform table multiplies the cells
    by ratios that each depend on one measured set's cells, so ``p`` is a log-linear model ``p(x) ∝ Π_S
    φ_S(x_S)`` over the measured sets.  When every candidate but the full table has at most two attributes and
    ``d >= 18`` (:func:`_factored_suits`), ``p`` is held in that form on a junction tree of a chordal completion
    of the measured sets' graph (:class:`_FactoredModel`; a clique of ``c`` attributes is ``2^c`` cells): a
    fitting step makes the set's clique exact (messages along the tree path) and scales it, every candidate's
    table comes from one pass over the tree, and the ``2^d`` table is built once, for the release.  A measured
    set in no clique rebuilds the tree from the factors; the model becomes the table when the full table is
    measured or the cliques would hold more than ``2^d/64`` cells.  From ``d = 14`` to ``17`` on such a workload
    (:func:`_components_suit`; ``14`` a design constant between measured points: on cancer, d = 11, the table
    is faster), ``p`` is held as the product of its independent parts (:class:`_ComponentModel`):
    the factors of one connected component of the measured sets' graph touch no other component's attributes,
    so ``p(x) = Π_C g_C(x_C)`` with one table of ``2^{|C|}`` cells per component (an attribute joined to no
    other: its 1-way table); a fitting step reads and scales its set's component only, a measured set joining
    components multiplies their tables into one, every candidate's table comes from the components' pair
    tables (within a component by superset sums, across two the product of their 1-way tables), and the
    ``2^d`` table is built once, for the release (measured on digits, d = 16, 2-way, ε = 1, seeds 0–4,
    both variants: the largest component holds 8 to 16 attributes at the end, fewer before).  On the table, the attributes that no
    measured set joins to another are independent in ``p`` (their only factor is their own 1-way one), so their
    1-way scalings are one step of two passes (:func:`_free_attributes`).  These rules read the workload and the
    measured sets only, and each form is a function of the released measurements: post-processing.

    Privacy (re-derived, both variants).  ``Δ`` (``Δ₂``) is the L1 (L2) sensitivity of one marginal table (the
    full table included): under add/remove with public ``n`` one row is in exactly one cell (``Δ = Δ₂ = 1``);
    under replace-one it leaves one cell and enters another (``Δ = 2``, ``Δ₂ = √2``).  The route is a function
    of public ``N, n, ε, Δ`` (and ``δ``).  Full-table route: ``Lap(Δ/ε)`` on the table is ε-DP (Laplace
    mechanism, DR-Thm3.6); ``N(0, σ²)`` at ``σ = Δ₂/sqrt(2ρ)`` is ρ-zCDP (Bun & Steinke 2016, "Concentrated
    Differential Privacy", Prop. 1.6: the Gaussian mechanism is ``Δ₂²/(2σ²)``-zCDP); the projection is
    post-processing.  Adaptive route, step by step (pure ε | zCDP):
    (a) The ``d`` 1-way tables together have L1 sensitivity ``dΔ`` and L2 sensitivity ``Δ₂ sqrt(d)`` (one row
    moves one cell — under replace-one two — of each table), so ``Lap(dΔ/ε_1)`` on each cell is ``ε_1``-DP
    (DR-Thm3.6) | ``N(0, σ_1²)`` is ``dΔ₂²/(2σ_1²) = ρ_1``-zCDP.
    (b) The score ``u_r`` changes by at most ``w_r Δ <= Δ`` (the model ``p`` and ``e_t`` are fixed given the
    transcript so far; triangle inequality), so the selection is ``ε_sel``-DP (exponential mechanism,
    DR-Thm3.10, sensitivity ``Δ``); its range, the eligible candidates, is fixed given the transcript so far (it
    reads the model ``p``, ``e_t`` and ``n`` only).  At ``delta = 0`` ``ε_sel = select_share · ε_t`` | at
    ``delta > 0`` the ``ε_sel``-DP exponential mechanism is ``ε_sel``-bounded-range, hence ``ε_sel²/8``-zCDP
    (Cesar & Rogers 2021, "Bounding, Concentrating, and Truncating: Unifying Privacy Loss Composition for Data
    Analytics"; the bound AIM uses, four times smaller than the ``ε²/2`` of BS16 Prop. 1.4 for any ε-DP step),
    which is ``select_share ρ_t`` at ``ε_sel = sqrt(8 select_share ρ_t)``.
    (c) The measurement on one marginal table: ``Lap(Δ/((1 − select_share) ε_t))`` is ``(1 − select_share)
    ε_t``-DP (DR-Thm3.6) | ``N(0, σ_t²)`` is ``Δ₂²/(2σ_t²) = (1 − select_share) ρ_t``-zCDP (BS16 Prop. 1.6).
    (d) The opening's rule (``n``, ``e_1``), the eligibility and carrying rules, the round budgets, the annealing
    test, the number of rounds, the least squares, the empirical-Bayes prior means and variances (functions of
    the released measurements and ``n``), the fitting and the model's representation read only public quantities
    and released measurements:
    post-processing (for zCDP, BS16 Lemma 1.8).
    (e) Composition of ``ε_1`` (``ρ_1``, when the opening measures) and every round's two steps; the carried
    budgets are spent by later rounds and the last round takes what is left, so the budgets add up to exactly
    the total.  Pure ε: adaptive basic composition (DR-Thm3.16), ``ε_1 + Σ_t ε_t = ε``, and the claim is ε-DP.
    zCDP: the ρ of the steps add up (BS16 Lemma 2.3, adaptive composition); the ρ_t are chosen adaptively from
    released outputs and their sum never exceeds ρ, which the Rényi filter of Feldman & Zrnic 2021 ("Individual
    Privacy Accounting via a Rényi Filter") shows is enough: the release is ρ-zCDP, hence
    ``(zcdp_epsilon(ρ, δ), δ)``-DP, at most ``(ε, δ)``.  Each step is a ``Spend`` of ``Release.ledger`` (at
    ``delta > 0`` with its ``rho``, in a ``Ledger(rule="zcdp", delta_prime=δ)``); the claim is
    ``compose(ledger)``.

    What differs from AIM: the pure-ε variant (Laplace noise and basic composition; AIM: Gaussian noise, zCDP,
    an ``(ε, δ)`` claim, under which many small measurements are cheaper — the ``delta > 0`` variant follows
    AIM's noise, accounting and schedule); the public full-table route; the opening, eligibility and carrying
    rules; the estimate is a distribution fitted by least squares, empirical-Bayes shrinkage towards the
    independent table, then proportional fitting (AIM: Private-PGM's graphical model, so AIM never holds ``|X|``
    cells; here the model is a table, whose passes cost ``2^d`` floats, or from ``d = 18`` on a pair workload
    the same log-linear model on a junction tree, (iii), and the release still holds its ``2^d`` table); the full
    table is a candidate; no model-size cap.

    Returns a :class:`Release` of the normalised answers ``W.counts(p)``; ``trace`` holds ``synthetic`` (``p``),
    ``route``, ``selected`` (the measured attribute sets, per run), ``measurements`` (``(S, noisy counts)`` in
    the order measured, the 1-way marginals first), ``round_epsilon`` (each round's ``ε_t``, per run),
    ``epsilon_one_way`` (0 on the full-table route or when the opening is not informative) and ``rounds``; at
    ``delta > 0`` ``round_rho`` and ``rho_one_way`` in place of the two ε entries, and the budget ``rho``.
    """
    return adaptive_release(x, workload, epsilon=epsilon, n=n, neighbours=neighbours, select_share=select_share,
                            trials=trials, rng=rng, sampler=sampler, route=route, delta=delta)


def adaptive_release(x, workload, *, epsilon, n, neighbours, select_share, trials, rng, sampler, route="auto",
                     opening=None, name="adaptive marginals", delta=0.0, zcdp_opening=None) -> Release:
    """The body of :func:`adaptive_marginals` (validation, the runs, the ledger, the release); ``opening`` /
    ``zcdp_opening`` replace :func:`adaptive_one_way_budget` / :func:`adaptive_zcdp_opening` for the broken twins
    only."""
    family = "laplace" if not delta else "gaussian"
    chosen = sampler is not None               # a caller's sampler is always the one drawn (the full-table route too)
    if sampler is None:
        sampler = laplace_noise if family == "laplace" else gaussian_noise
    x, W, p, _, _ = check_mwem_inputs(x, workload, epsilon=epsilon, T=1, n=n, trials=trials, rng=rng,
                                      sampler=sampler, neighbours=neighbours, delta=delta, family=family)
    select_share = check_real("select_share", select_share, low=0.0, high=1.0, low_open=True, high_open=True)
    epsilon, delta, n, neighbours, R = p.epsilon, p.delta, p.n, p.neighbours, p.runs
    route = check_choice("route", route, ("auto", "adaptive", "full table"))
    marginals = isinstance(W, MarginalWorkload)
    if route == "adaptive" and not marginals:
        raise ValueError(f"route ('adaptive') needs a MarginalWorkload (marginal cells of {{0,1}}^d), got workload "
                         f"of type {type(W).__name__}; other linear queries take route='full table'")
    delta1 = 1.0 if neighbours == "add/remove" else 2.0
    l2 = math.sqrt(delta1)                      # one marginal's L2 sensitivity: 1 (add/remove), √2 (replace-one)
    rho = _zcdp_rho(epsilon, delta) if delta else None
    gaussian_table = _gaussian_table(rho, epsilon, delta1, l2, chosen)     # the full table's one measurement
    table_noise = _ZcdpRounds.expected_abs(l2 / math.sqrt(2.0 * rho)) if gaussian_table else delta1 / epsilon
    if route == "full table" or (route == "auto" and (not marginals or
                                                      full_table_suffices(W.N, n, epsilon, delta1, noise=table_noise))):
        route = "full table"
    elif route == "auto":
        route = "adaptive"
    if route == "full table":
        if rho is not None and not gaussian_table:
            rho, delta, noise = None, 0.0, as_noise(laplace_noise)      # Laplace at (ε, 0): less noise, no δ
        else:
            noise = p.noise
        runs = [_full_table_run(x, W.N, epsilon=epsilon, n=n, sensitivity=delta1, rng=p.rng, sampler=noise, rho=rho)
                for _ in range(R)]
    else:
        plan = _plan(W)
        make = ((lambda: _LaplaceRounds(epsilon, plan.d, delta1, select_share, p.noise,
                                        opening or adaptive_one_way_budget)) if rho is None else
                (lambda: _ZcdpRounds(rho, plan.d, delta1, l2, select_share, p.noise,
                                     zcdp_opening or adaptive_zcdp_opening)))
        runs = [_adaptive_run(x, plan, n=n, rounds=make(), sensitivity=delta1, rng=p.rng) for _ in range(R)]
    rule = dict(rule="zcdp", delta_prime=delta) if rho is not None else {}
    ledgers = [Ledger(r["steps"], budget=epsilon, **rule) for r in runs]
    ledger = ledgers[0]              # each run has its own data-driven rounds, and each composes to ε: the claim
    if len(ledgers) > 1:                                          # of one release is any run's (run 0's)
        claim = compose(ledger)
        assert all(compose(g) == claim for g in ledgers[1:])
    answers = np.stack([r["answers"] if "answers" in r else W.counts(r["p"]) for r in runs])
    per_run = ("synthetic", "selected", "round_epsilon", "round_rho", "rounds", "measurements", "ledgers")
    budget = ({"round_epsilon": [np.array(r["round_epsilon"]) for r in runs],
               "epsilon_one_way": runs[0]["epsilon_one_way"]} if rho is None else
              {"round_rho": [np.array(r["round_rho"]) for r in runs], "rho_one_way": runs[0]["rho_one_way"],
               "rho": rho, "delta": delta})
    trace = {"synthetic": np.stack([r["p"] for r in runs]), "selected": [r["selected"] for r in runs], **budget,
             "measurements": [r["measurements"] for r in runs],
             "rounds": np.array([len(r["selected"]) for r in runs]),
             "sensitivity": delta1, "select_share": select_share, "n": n, "route": route, "ledgers": ledgers}
    if trials is None:
        answers = answers[0]
        trace = {k: (v[0] if k in per_run else v) for k, v in trace.items()}
    scale = (delta1 / (runs[0]["smallest_epsilon"] * n) if rho is None else runs[0]["smallest_sigma"] / n)
    return Release(answers, name, noise_scale=scale, ledger=ledger, neighbours=neighbours, trace=trace)


example(adaptive_marginals, lambda: dict(**_example_marginals(), epsilon=0.9, n=120, trials=2, rng=0),
        lambda: dict(**_example_marginals(), epsilon=0.9, delta=1e-6, n=120, trials=2, rng=0, route="adaptive"))

_ROUNDS_PER_ATTRIBUTE = 2          # T0 = 2 d planned rounds (the first round budget is ε / T0)
ZCDP_ROUNDS_PER_ATTRIBUTE = 16    # at delta > 0: AIM's T0 = 16 d planned rounds of ρ / T0
_FIT_SWEEPS = 50
_STALL = 0.99                      # a sweep that shrinks the largest misfit by < 1% ends the fit
_ROUND_SWEEPS = 1                  # warm-started sweeps per round (the release is fitted to convergence)
_PRIOR_SHARE = 3.0                 # the prior f_T ~ U[-n, n] has variance n²/3
_LOW_BITS = 10                     # the table is viewed as rows of 2^10 contiguous cells (fast passes)
_PRIOR_NEWTON = 8                  # Newton steps that sharpen the bisection's guess (never change its result)
_PRIOR_BISECTIONS = 64             # bisections of the prior variance's score equation on [0, n²/3]
_ROW_SUM_CELLS = 4                 # _fit_targets sums rows of at most this many cells at once
_PRIOR_FLOOR = 1e-12               # fitted cells are floored here (probabilities) so a cell can come back


@functools.lru_cache(maxsize=64)
def _zcdp_rho(epsilon, delta) -> float:
    """:func:`dpbook.release.zcdp_rho` remembered per (validated) ``(ε, δ)``: a function of them only, whose
    nested bisections cost a millisecond or more, asked again by every call at the same budget."""
    return zcdp_rho(epsilon, delta)


def _gaussian_table(rho, epsilon, sensitivity, l2, chosen) -> bool:
    """The full-table route's noise (public: ``ρ``, ``ε``, ``Δ``, ``Δ₂`` and whether the caller chose the sampler):
    ``False`` — one ``Lap(Δ/ε)`` table, an ``(ε, 0)`` claim — at ``delta = 0``, and at ``delta > 0`` when the
    caller left ``sampler`` at its default and Laplace's expected ``|noise|`` per cell ``Δ/ε`` is at most the
    Gaussian's ``σ sqrt(2/π)`` at ``σ = Δ₂/sqrt(2ρ)``; ``True`` — ``N(0, σ²)`` drawn by the caller's sampler (or
    the default), a ρ-zCDP step — otherwise.  A sampler the caller chose is never replaced by another family."""
    if rho is None:
        return False
    return chosen or _ZcdpRounds.expected_abs(l2 / math.sqrt(2.0 * rho)) < sensitivity / epsilon


def full_table_suffices(N, n, epsilon, sensitivity, noise=None) -> bool:
    """The public route rule of :func:`adaptive_marginals`: measure the full table when its expected L1 noise
    ``N e`` is at most ``4n``, twice the largest L1 distance ``2n`` between two tables of ``n`` rows; ``e`` is
    one cell's expected ``|noise|`` (``noise``; ``None``: Laplace's ``b = Δ/ε``; ``σ sqrt(2/π)`` for a Gaussian
    table).  ``N``, ``n``, ``ε``, ``Δ`` are public."""
    e = sensitivity / epsilon if noise is None else noise
    return N * e <= 4.0 * n


def simplex_projection(v, total) -> np.ndarray:
    """The Euclidean projection of ``v`` onto ``{p >= 0, Σ p = total}``: ``max(v − τ, 0)`` with the one ``τ``
    that makes the sum ``total`` (sort once; exact up to rounding)."""
    v = np.asarray(v, dtype=np.float64)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - total
    k = np.arange(1, v.size + 1)
    r = int(np.nonzero(u - css / k > 0)[0][-1])
    return np.maximum(v - css[r] / (r + 1), 0.0)


def _full_table_run(x, N, *, epsilon, n, sensitivity, rng, sampler, rho=None):
    """The full-table route: ``x + Lap(Δ/ε)`` on every cell (or, at ``rho``, ``N(0, σ²)`` with ``σ = Δ₂/sqrt(2ρ)``),
    projected onto the tables of ``n`` rows."""
    if rho is None:
        b = sensitivity / epsilon
    else:
        b = math.sqrt(sensitivity) / math.sqrt(2.0 * rho)
    y = x.astype(np.float64) + sampler(b, (N,), rng)
    p = simplex_projection(y, float(n)) / n
    full = "all"
    if rho is not None:
        return {"p": p, "steps": [Spend(f"gaussian (measure the full table, Δ2={math.sqrt(sensitivity):.4g})", rho=rho)],
                "selected": [full], "round_rho": [rho], "rho_one_way": 0.0, "measurements": [(full, y)],
                "smallest_sigma": b}
    return {"p": p, "steps": [Spend(f"laplace (measure the full table, Δ={sensitivity:g})", epsilon)], "selected": [full],
            "round_epsilon": [epsilon], "epsilon_one_way": 0.0, "measurements": [(full, y)],
            "smallest_epsilon": epsilon}


def adaptive_one_way_budget(epsilon, d, sensitivity):
    """The opening of :func:`adaptive_marginals` (validated inputs): the first round's budget ``ε/T0``
    (``T0 = 2d``), the 1-way step's ``ε_1`` (one planned round) and its Laplace scale ``dΔ/ε_1`` (the ``d``
    1-way tables together have L1 sensitivity ``dΔ``).  Shared with the audit and the broken twin."""
    eps_round = epsilon / (_ROUNDS_PER_ATTRIBUTE * d)
    return eps_round, eps_round, sensitivity * d / eps_round


def adaptive_zcdp_opening(rho, d, l2, select_share):
    """The opening of :func:`adaptive_marginals` at ``delta > 0`` (validated inputs; AIM's schedule): ``T0 = 16d``
    planned rounds of ``ρ/T0`` each; the 1-way step measures the ``d`` tables with the first round's
    measurement σ, ``σ = Δ₂ sqrt(T0 / (2 (1 − select_share) ρ))``, and the ``d`` tables together have L2
    sensitivity ``Δ₂ sqrt(d)``, so it costs ``ρ_1 = d Δ₂² / (2σ²) = d (1 − select_share) ρ / T0``.  Returns
    (the first round's ρ, ``ρ_1``, ``σ``).  Shared with the audit and the broken twin."""
    rho_round = rho / (ZCDP_ROUNDS_PER_ATTRIBUTE * d)
    sigma = l2 / math.sqrt(2.0 * (1.0 - select_share) * rho_round)
    return rho_round, d * l2 * l2 / (2.0 * sigma * sigma), sigma


def measure_one_way_marginals(counts, scale, sampler, rng):
    """The 1-way step: ``counts`` (the ``2d`` cells of every 1-way marginal, or a ``(trials, 2d)`` stack of them)
    plus ``Lap(scale)`` on each cell (validated inputs; the engine the mechanism and its audit share)."""
    counts = np.asarray(counts, dtype=np.float64)
    return counts + sampler(scale, counts.shape, rng)


_PLANS = weakref.WeakKeyDictionary()      # workload -> its plan (a workload's cells are frozen: the plan cannot go stale)


def _plan(W):
    """The :class:`_AdaptivePlan` of ``W``, built once per workload object (a workload is immutable after
    validation, and the plan is a function of its cells only)."""
    plan = _PLANS.get(W)
    if plan is None:
        plan = _PLANS[W] = _AdaptivePlan(W)
    return plan


class _AdaptivePlan:
    """The public part of :func:`adaptive_marginals`: candidates, weights, and the reshapes of the table."""

    def __init__(self, W):
        d = self.d = W.d
        self.N = W.N
        self.workload = W
        sets = sorted({tuple(sorted(S)) for S, _ in W.cells})
        closure = {(a,) for a in range(d)}                      # every 1-way marginal is measured first
        for S in sets:
            for k in range(1, len(S) + 1):
                closure.update(itertools.combinations(S, k))
        full = tuple(range(d))
        self.has_full = d > 1                                   # d = 1: the full table is the 1-way marginal
        if self.has_full:
            closure.discard(full)
        cands = sorted(closure, key=lambda S: (len(S), S))
        def bits(S):
            return sum(1 << (d - 1 - a) for a in S)
        workload_bits = np.array([bits(s) for s in sets], dtype=np.int64)
        w = np.array([_popcount(bits(r) & workload_bits).sum() for r in cands], dtype=np.float64)  # Σ_s |r ∩ s|
        w = w / w.max() if w.max() > 0 else np.ones_like(w)
        self.candidates = cands + [full] if self.has_full else cands
        self.weights = np.append(w, 1.0) if self.has_full else w
        self.sizes = np.array([1 << len(S) for S in self.candidates], dtype=np.float64)
        self.cells = MarginalWorkload(d, [(S, v) for S in cands for v in itertools.product((0, 1), repeat=len(S))])
        sizes = np.array([1 << len(S) for S in cands])
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        self.offset = {S: int(o) for S, o in zip(cands, self.starts)}
        self._shapes, self._masks = {}, {}

    def shapes(self, S):
        """The view of the table for the marginal on ``S``: rows of ``2^L`` contiguous cells (the last ``L =
        min(d, _LOW_BITS)`` attributes) under the ``(2,)*(d − L)`` cube of the others with each run outside ``S``
        merged into one axis; returns (view shape, leading axes summed away, the index of ``S``'s cell of every
        entry of the summed view, broadcastable against the view).  Every pass then runs over contiguous rows."""
        if S not in self._shapes:
            self._shapes[S] = _row_view_afresh(self.d, S)        # (S sorted: its high bits lead)
        return self._shapes[S]

    def marginal(self, p, S):
        """The marginal table of ``p`` on ``S`` (flattened, first attribute most significant)."""
        if len(S) == self.d:
            return p
        shape, away, index = self.shapes(S)
        rows = p.reshape(shape)
        summed = rows.sum(axis=away) if away else rows
        return np.bincount(index.reshape(-1), weights=summed.reshape(-1), minlength=1 << len(S))

    def counts(self, p) -> np.ndarray:
        """``self.cells.counts(p)`` for the model ``p`` (finite, non-negative by construction: no input checks,
        whose two passes over the table are a fifth of this one's): every candidate's marginal table of ``p``."""
        return np.maximum(self.cells.corner_matrix() @ self.cells.superset_sums(p)[0], 0.0)

    def block_counts(self, p) -> np.ndarray:
        """:meth:`counts` through three marginals of ``p`` (``None`` when they do not apply, :meth:`_blocks`).
        The table as a ``2^{h1} × 2^{h2} × 2^l`` array (the first ``h = h1 + h2 = ⌊d/2⌋`` attributes in two
        halves, the last ``l``); its marginals on the first ``h``, on the first half and the last ``l``, and on
        the second half and the last ``l`` (three passes along contiguous rows) hold every pair of attributes.
        Each marginal ``M`` (a ``2^f × 2^{l'}`` matrix: a half, or none, then the rest) gives the superset sums
        ``g_z = Σ_{y ⊇ z} M_y`` needed (``|z| <= 2``, at most one attribute of the half): the sums over the half's
        rows, its rows with at most one attribute, their sums along the rest.  The candidates' cells are the
        corner matrix on those ``g_z``.  The same sums in another order: equal to :meth:`counts` up to rounding,
        and exactly equal on integer counts (every partial sum an integer below ``2^53``)."""
        blocks = self._blocks()
        if blocks is None:
            return None
        (h1, h2, l), take, corners = blocks
        A = p.reshape(1 << h1, 1 << h2, 1 << l)
        rows = [np.ascontiguousarray(A.sum(axis=2), dtype=np.float64).reshape(1, -1)]
        for M, f in ((A.sum(axis=1), h1), (A.sum(axis=0), h2)):
            g = np.ascontiguousarray(M, dtype=np.float64).reshape(-1)
            for axis in range(f):                 # g[.., 0, ..] += g[.., 1, ..] on the half's bits (long rows)
                view = g.reshape(-1, 2, 1 << (f - 1 - axis + l))
                np.add(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])
            rows.append(g.reshape(1 << f, 1 << l)[[0] + [1 << (f - 1 - i) for i in range(f)]])
        groups = [np.concatenate(rows)] if h1 + h2 == l else [rows[0], np.concatenate(rows[1:])]
        for g in groups:                          # then on the rest's bits, for those rows only
            bits = g.shape[1].bit_length() - 1
            for axis in range(bits):
                view = g.reshape(-1, 2, 1 << (bits - 1 - axis))
                np.add(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])
        return corners @ np.concatenate([g.reshape(-1) for g in groups])[take]

    def _blocks(self):
        """What :meth:`block_counts` needs, built once: ``None`` unless every candidate but the full table has at
        most two attributes and ``4 <= d <= 16`` (a larger pair workload is factored).  Else ((h1, h2, l): the
        widths of the two halves of the first attributes and of the last ones; the position of each ``g_z`` with
        ``|z| <= 2`` among the three marginals' sums; the corner matrix on those ``g_z``)."""
        if not hasattr(self, "_block_plan"):
            self._block_plan = None
            if 4 <= self.d <= 16 and all(len(S) <= 2 for S in self.candidates if len(S) < self.d):
                d = self.d
                h = d // 2
                h1, h2, l = h // 2, h - h // 2, d - h
                units = [([], list(range(h))), (list(range(h1)), list(range(h, d))), (list(range(h1, h)),
                                                                                      list(range(h, d)))]
                sizes = [(len(half) + 1) << len(rest) for half, rest in units]
                start = np.cumsum([0] + sizes)
                corners = self.cells.corner_matrix().tocoo()
                masks = np.unique(corners.col)
                take = []
                for z in masks.tolist():
                    attrs = [a for a in range(d) if z >> (d - 1 - a) & 1]
                    k = next(k for k, (half, rest) in enumerate(units)
                             if set(attrs) <= set(half + rest) and len(set(attrs) & set(half)) <= 1)
                    half, rest = units[k]
                    row = next((1 + half.index(a) for a in attrs if a in half), 0)
                    local = sum(1 << (len(rest) - 1 - rest.index(a)) for a in attrs if a in rest)
                    take.append(int(start[k]) + (row << len(rest)) + local)
                compact = np.searchsorted(masks, corners.col)
                matrix = type(self.cells.corner_matrix())((corners.data, (corners.row, compact)),
                                                          shape=(corners.shape[0], masks.size))
                self._block_plan = ((h1, h2, l), np.array(take, dtype=np.int64), matrix)
        return self._block_plan

    def scale_one_way(self, p, free) -> float:
        """One proportional-fitting step for every attribute of ``free`` (``{a: 1-way target}``, independent
        attributes, :func:`_free_attributes`) at once: their 1-way marginals from two passes (the table as a
        ``2^h × 2^l`` matrix: its row and column sums), then ``p`` (in place) times the product of their ratios,
        one vector per side.  Returns the largest miss ``|marginal − target|`` before the step."""
        h = self.d // 2
        l = self.d - h
        A = p.reshape(1 << h, 1 << l)
        sides = ((A.sum(axis=1), h, 0), (A.sum(axis=0), l, h))
        worst, factors = 0.0, []
        for side, bits, first in sides:
            factor = None
            for a in range(first, first + bits):
                if a not in free:
                    continue
                view = (1 << (a - first), 2, 1 << (first + bits - 1 - a))
                m = side.reshape(view).sum(axis=(0, 2))
                t = free[a]
                worst = max(worst, float(np.max(np.abs(m - t))))
                ratio = t / m if m.all() else np.divide(t, m, out=np.zeros_like(t), where=m > 0)
                if factor is None:
                    factor = np.ones(1 << bits)
                factor.reshape(view)[...] *= ratio[None, :, None]
            factors.append(factor)
        if factors[0] is not None:
            A *= factors[0][:, None]
        if factors[1] is not None:
            A *= factors[1][None, :]
        return worst

    def scale(self, p, S, ratio):
        """``p`` (in place) times ``ratio[cell of S]`` on each cell: the proportional-fitting update."""
        shape, _, index = self.shapes(S)
        p.reshape(shape)[...] *= ratio[index]

    def masks(self, S):
        """The global bit mask (attribute a = bit d-1-a) of each subset ``T ⊆ S``, in Hadamard order (cached)."""
        masks = self._masks.get(S)
        if masks is None:
            masks = self._masks[S] = self._subset_masks(S)
        return masks

    def _subset_masks(self, S):
        bits = np.array([1 << (self.d - 1 - a) for a in S], dtype=np.int64)
        local = np.arange(1 << len(S))
        chosen = (local[:, None] >> np.arange(len(S) - 1, -1, -1)) & 1
        return chosen @ bits


def _hadamard(y, s):
    """The (unnormalised) Walsh–Hadamard transform of a table of ``2^s`` cells: ``H[t, v] = (−1)^{|t ∩ v|}``."""
    h = np.array(y, dtype=np.float64).reshape(-1)
    for axis in range(s):                         # in place on a copy: the same a + b, a − b per axis
        view = h.reshape(1 << axis, 2, 1 << (s - 1 - axis))
        a = view[:, 0, :].copy()
        view[:, 0, :] += view[:, 1, :]
        np.subtract(a, view[:, 1, :], out=view[:, 1, :])
    return h


def _parity_estimates(plan, measurements, cache=None):
    """The measurements alone in the parity basis: for every subset mask ``T`` they reach, the inverse-variance
    average ``f̂_T`` and its variance ``v_T`` (decoupled per ``T``: an orthogonal transform of i.i.d. noise).
    ``cache``: a dict kept across one run's calls, whose measurements only grow: each measurement is transformed
    and added to the running sums once (its precision and precision-weighted estimate, per mask, in the order
    measured: the same additions, in the same order, as summing every measurement afresh)."""
    state = None if cache is None else cache.get("parity")
    done = 0 if state is None else state["count"]
    if state is None or done > len(measurements) or (done and measurements[done - 1][2] is not state["last"]):
        state = {"count": 0, "last": None, "unique": np.zeros(0, dtype=np.int64), "precision": np.zeros(0),
                 "weighted": np.zeros(0)}
        done = 0
    unique, precision, weighted = state["unique"], state["precision"], state["weighted"]
    new = measurements[done:]
    if new:                                       # the new masks merged in at once (new ones start at 0)
        masks = [plan.masks(S) for S, _, _ in new]
        every = np.concatenate(masks)
        at = np.searchsorted(unique, every)
        if not (at < unique.size).all() or not (unique[np.minimum(at, unique.size - 1)] == every).all():
            merged = np.union1d(unique, every)
            old = np.searchsorted(merged, unique)
            precision, weighted = np.zeros(merged.size), np.zeros(merged.size)
            precision[old], weighted[old] = state["precision"], state["weighted"]
            unique = merged
        values = {}                               # each size's measurements transformed at once (row by row)
        for size in {len(S) for S, _, _ in new}:
            rows = [k for k, (S, _, _) in enumerate(new) if len(S) == size]
            values.update(zip(rows, _hadamard_rows(np.stack([new[k][2] for k in rows]), size)))
        for k, ((S, b, y), mask) in enumerate(zip(new, masks)):   # in the order measured
            inv = 1.0 / ((1 << len(S)) * 2.0 * b * b)
            at = np.searchsorted(unique, mask)
            precision[at] += inv                  # 0 + the first term is that term: sums as bincount's
            weighted[at] += inv * values[k]
        state["precision"], state["weighted"] = precision, weighted
    if measurements:
        state["count"], state["last"] = len(measurements), measurements[-1][2]
    state["unique"] = unique
    if cache is not None:
        cache["parity"] = state
    return unique, weighted / precision, 1.0 / precision


_BYTE_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


def _popcount(masks) -> np.ndarray:
    """The number of set bits of each non-negative int64 mask (a byte table; numpy >= 1.24 has no bitwise_count)."""
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    return _BYTE_POPCOUNT[masks.reshape(masks.shape + (1,)).view(np.uint8)].sum(axis=-1)


def _prior_variance(estimate, variance, high, guess=None) -> float:
    """The maximum-likelihood ``τ²`` in ``[0, high]`` of ``f̂_T ~ N(0, τ² + v_T)`` (independent): the root of the
    score ``g(τ²) = Σ_T (f̂_T² − τ² − v_T) / (τ² + v_T)²`` (a moment equation in which each coefficient weighs by
    its own precision, so uninformative ones do not drown informative ones), ``0`` when ``g(0) <= 0`` and
    ``high`` when ``g(high) >= 0``, else the midpoint after ``_PRIOR_BISECTIONS`` bisections of ``[0, high]``.
    Additions, products and quotients only (no ``log``, whose SIMD kernels round differently by CPU): the same
    bytes on every CPU.

    The bisection runs in batches, with the same midpoints and the same signs as one score at a time
    (:func:`_prior_variance_reference`), so the same result: a guess of the root (first the moment estimate
    ``mean(f̂_T² − v_T)`` sharpened by up to ``_PRIOR_NEWTON`` Newton steps on the score, then Illinois' regula
    falsi on the bracket) predicts the rest of the path, one batch
    evaluates the score at every predicted midpoint, and the path is kept up to the first midpoint whose sign
    differs from the prediction (the guess changes how many batches it takes, never the result; ``guess``: a
    first guess to use instead of the moment estimate, e.g. the previous round's root).  A midpoint
    equal to an end of its interval ends the bisection: every later step keeps the interval (``g > 0`` at its
    lower end, ``g <= 0`` at its upper one)."""
    square = estimate * estimate

    def scores(points):
        total = points[:, None] + variance[None, :]
        return np.sum((square - total) / (total * total), axis=1)      # a row's sum is the vector's sum
    ends = scores(np.array([0.0, float(high)])).tolist()
    if ends[0] <= 0.0:
        return 0.0
    if ends[1] >= 0.0:
        return float(high)
    lo, hi, g_lo, g_hi, done = 0.0, float(high), ends[0], ends[1], 0
    guess = float(np.mean(square - variance)) if guess is None else float(guess)
    pairs = list(zip(square.tolist(), variance.tolist())) if square.size <= 24 else None
    for _ in range(_PRIOR_NEWTON):                # sharpen the guess (its cost only): Newton steps on the score
        if not lo < guess < hi:
            break
        if pairs is not None:                     # (a short vector: plain floats are cheaper than numpy calls)
            value = slope = 0.0
            for sq, var in pairs:
                inv = 1.0 / (guess + var)
                value += (sq - guess - var) * inv * inv
                slope += (guess + var - 2.0 * sq) * inv * inv * inv
        else:
            total = guess + variance
            slope = float(np.sum((total - 2.0 * square) / (total * total * total)))
            value = float(np.sum((square - total) / (total * total)))
        step = value / slope if slope < 0.0 else math.nan
        if not abs(step) < hi - lo:
            break
        guess -= step
        if abs(step) <= 1e-15 * guess:
            break
    w_lo = w_hi = 1.0
    while done < _PRIOR_BISECTIONS:
        if not lo < guess < hi:
            guess = lo + (hi - lo) * ((w_lo * g_lo) / (w_lo * g_lo - w_hi * g_hi))
        mids, a, b = [], lo, hi
        for _ in range(_PRIOR_BISECTIONS - done):
            mid = 0.5 * (a + b)
            if mid == a or mid == b:
                break
            mids.append(mid)
            if mid < guess:
                a = mid
            else:
                b = mid
        if not mids:
            break
        was_lo, was_hi = lo, hi
        for mid, g in zip(mids, scores(np.array(mids)).tolist()):     # one batch; then the steps in order,
            done += 1                                                 # kept up to the first mispredicted one
            if g > 0.0:
                lo, g_lo = mid, g
                if not mid < guess:
                    break
            else:
                hi, g_hi = mid, g
                if mid < guess:
                    break
        w_lo, w_hi = (w_lo * 0.5, 1.0) if lo == was_lo else (1.0, w_hi * 0.5) if hi == was_hi else (1.0, 1.0)
        guess = math.nan                          # the next guess: regula falsi on the new bracket
    return 0.5 * (lo + hi)


def _prior_variance_reference(estimate, variance, high) -> float:
    """:func:`_prior_variance` one score at a time: the reference its batches are tested against."""
    square = estimate * estimate

    def score(tau2):
        total = tau2 + variance
        return float(np.sum((square - total) / (total * total)))
    if score(0.0) <= 0.0:
        return 0.0
    if score(high) >= 0.0:
        return float(high)
    lo, hi = 0.0, float(high)
    for _ in range(_PRIOR_BISECTIONS):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if score(mid) > 0.0 else (lo, mid)
    return 0.5 * (lo + hi)


def _independence_means(unique, order, f_one, n) -> np.ndarray:
    """The prior means of :func:`_shrink`: ``0`` for ``|T| <= 1`` and, for ``|T| >= 2``, the parity sum of the
    table whose attributes are independent with the fitted 1-way marginals, ``n Π_{a ∈ T} f_a / n`` (under
    independence ``E (−1)^{|u ∩ T|} = Π_{a ∈ T} E (−1)^{u_a}``).  ``f_one``: the fitted order-1 sums, one per
    attribute (0 for an attribute no measurement reaches).  Products only: the same bytes on every CPU."""
    mean = np.zeros(unique.size)
    high = order >= 2
    if high.any():
        ratio = f_one / float(n)
        masks, d = unique[high], f_one.size
        if int(order.max()) == 2:                 # pairs: their two attributes by the top bits (frexp: exact
            top = np.frexp(masks.astype(np.float64))[1] - 1                     # below 2^53), the same products
            low = np.frexp((masks - (np.int64(1) << top)).astype(np.float64))[1] - 1
            mean[high] = (float(n) * ratio[d - 1 - top]) * ratio[d - 1 - low]
            return mean
        bits = (masks[:, None] >> np.arange(d - 1, -1, -1)[None, :]) & 1       # attribute a = bit d-1-a
        prod = np.full(masks.size, float(n))
        for _ in range(int(order.max())):         # the attributes of each T in increasing order (a product
            a = np.argmax(bits, axis=1)           # times 1.0 is that product: the same bytes as a loop over
            prod = np.where(bits[np.arange(masks.size), a] == 1, prod * ratio[a], prod)   # every attribute)
            bits[np.arange(masks.size), a] = 0
        mean[high] = prod
    return mean


def _shrink(unique, estimate, variance, n, d, guesses=None):
    """Empirical-Bayes shrinkage of the parity estimates, one prior per order ``j = |T|``: ``f_T ~ N(m_T, τ_j²)``
    around the independent table's sums ``m_T`` (:func:`_independence_means`: ``0`` at order 1, the uniform
    table's; the product of the fitted 1-way marginals' sums at order ``>= 2``), ``τ_j²`` the maximum-likelihood
    value in ``[0, n²/3]`` of the deviations ``f̂_T − m_T`` (:func:`_prior_variance`; ``n²/3`` is the variance of
    the uniform law on the range ``|f_T| <= n``), and the posterior mean ``m_T + (f̂_T − m_T) τ_j² / (τ_j² +
    v_T)``; order 1 is fitted first (its sums make the other orders' means); ``f_∅ = n``.  Reads released values
    and public ``n``, ``d`` only.  ``guesses``: a dict kept across one run's calls, ``{j: the last τ_j²}``, the
    next bisection's first guess (its cost only, never its result)."""
    order = _popcount(unique)
    f = np.zeros_like(estimate)
    mean = np.zeros_like(estimate)
    present = np.flatnonzero(np.bincount(order))
    for j in present[present > 0].tolist():         # ascending: order 1 (a measured set reaches it) comes first
        at = order == j
        dev = estimate[at] - mean[at]
        tau2 = _prior_variance(dev, variance[at], float(n) ** 2 / _PRIOR_SHARE,
                               guess=None if guesses is None else guesses.get(j))
        if guesses is not None:
            guesses[j] = tau2
        f[at] = mean[at] + dev * (tau2 / (tau2 + variance[at]))
        if j == 1:
            f_one = np.zeros(d)                     # attribute a is the mask 2^(d-1-a) (frexp: exact exponents)
            f_one[d - np.frexp(unique[at].astype(np.float64))[1]] = f[at]
            mean = _independence_means(unique, order, f_one, n)
    f[unique == 0] = n
    return f


def _consistent_tables(plan, measurements, n, cache=None):
    """Generalised least squares of every measurement in the parity basis (:func:`_parity_estimates`), shrunk
    by :func:`_shrink`; returns ``{S: fitted table in counts}`` for the maximal measured sets
    (:func:`_maximal_sets`), consistent with each other."""
    sets, groups = _consistent_groups(plan, measurements, n, cache)
    fitted = {}
    for group, tables in groups:
        fitted.update(zip(group, tables))
    return {S: fitted[S] for S in sets}


def _consistent_groups(plan, measurements, n, cache=None):
    """:func:`_consistent_tables` as ``(the maximal sets, [(the sets of one size, their tables as rows)])``."""
    unique, estimate, variance = _parity_estimates(plan, measurements, cache)
    f = _shrink(unique, estimate, variance, n, plan.d, None if cache is None else cache.setdefault("tau2", {}))
    sets = _maximal_sets([S for S, _, _ in measurements], cache)
    groups = []
    for size in sorted({len(S) for S in sets}):   # the sets of one size at once (row by row the same arithmetic)
        group = [S for S in sets if len(S) == size]
        coef = f[np.searchsorted(unique, np.stack([plan.masks(S) for S in group]))]
        groups.append((group, _hadamard_rows(coef, size) / (1 << size)))
    return sets, groups


def _fit_targets(plan, measurements, n, cache=None):
    """:func:`_fit`'s targets: each maximal set's fitted table (:func:`_consistent_tables`) clipped at 0, as
    probabilities (uniform when nothing is left), floored at ``_PRIOR_FLOOR``; ``{S: target}`` in the order of
    the maximal sets.  The sets of one size at once: a row's sum of at most ``_ROW_SUM_CELLS`` cells is the
    sum of that row alone (numpy adds fewer than 8 numbers one after another), the rest cell by cell; larger
    tables are summed one by one.  ``cache``: a dict kept across one run's calls; the same measurements (the
    release's fit after the last round's) give the same targets, which are read back.  From ``d >=
    _COMPONENTS_MIN_D``, with numba installed, the same targets come from one compiled call a round
    (:func:`_fit_targets_compiled`)."""
    key = (len(measurements), measurements[-1][2] if measurements else None)
    last = None if cache is None else cache.get("targets")
    if last is not None and last[0] == key[0] and last[1] is key[1]:
        return last[2]
    kernel = _estimator_kernel(plan) if measurements else None
    if kernel is not None:
        targets = _fit_targets_compiled(kernel, plan, measurements, n, {} if cache is None else cache)
        if cache is not None:
            cache["targets"] = (key[0], key[1], targets)
        return targets
    sets, groups = _consistent_groups(plan, measurements, n, cache)
    targets = {}
    for group, tables in groups:
        t = np.maximum(tables, 0.0)
        if t.shape[1] <= _ROW_SUM_CELLS:
            total = t.sum(axis=1)
        else:
            total = np.array([row.sum() for row in t])
        positive = total > 0
        t = t / np.where(positive, total, 1.0)[:, None]
        if not positive.all():
            t[~positive] = 1.0 / t.shape[1]
        targets.update(zip(group, np.maximum(t, _PRIOR_FLOOR)))
    targets = {S: targets[S] for S in sets}
    if cache is not None:
        cache["targets"] = (key[0], key[1], targets)
    return targets


_ESTIMATOR_KERNEL: list = []       # [the kernel, or None without numba] once _estimator_kernel looked


def _estimator_kernel(plan):
    """:func:`dpbook._estimator_numba.fit_targets` when the compiled estimator applies to ``plan`` (``d >=
    _COMPONENTS_MIN_D``, a public rule: smaller problems never import numba), ``dpbook._mw_kernels.USE_COMPILED``
    (read at each call; ``DPBOOK_NUMBA=0`` turns it off) and numba imports, else ``None`` (the numpy path runs: the
    same bytes).  Imported on first use, never when ``dpbook`` is imported (numba's import and its first load from
    the disk cache cost a second or more)."""
    from ._mw_kernels import USE_COMPILED
    if not USE_COMPILED or plan.d < _COMPONENTS_MIN_D:
        return None
    if not _ESTIMATOR_KERNEL:
        from ._estimator_numba import AVAILABLE, fit_targets
        _ESTIMATOR_KERNEL.append(fit_targets if AVAILABLE else None)
    return _ESTIMATOR_KERNEL[0]


def _fit_targets_compiled(kernel, plan, measurements, n, cache):
    """:func:`_fit_targets` through the compiled ``kernel`` (:func:`dpbook._estimator_numba.fit_targets`, the same
    bytes), one call a round.  ``cache["parity arrays"]`` keeps the state as arrays (sorted masks, precisions,
    weighted sums, the maximal sets' bit masks), grown by the new measurements (afresh when the measurements are
    not the last call's plus new ones, as :func:`_parity_estimates`); sets go to the kernel as bit masks
    (``plan.masks(S)[-1]``, every attribute of ``S``; the kernel lists their subsets as :meth:`_AdaptivePlan.masks`
    does, for ``S`` in increasing order as every measured set is) and come back through ``cache["set names"]``.
    The targets are views of one array, one run per maximal set."""
    state = cache.get("parity arrays")
    done = 0 if state is None else state[0]
    if state is None or done > len(measurements) or (done and measurements[done - 1][2] is not state[1]):
        state, done = (0, None, np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64)), 0
    new = measurements[done:]
    names = cache.setdefault("set names", {})      # bit mask -> S, and S -> bit mask
    for S, _, _ in new:
        if S not in names:
            m = int(plan.masks(S)[-1])
            names[S], names[m] = m, S
    if len(new) == 1:
        (S, b, y), = new
        new_sets, new_values, new_scales = np.array([names[S]]), np.asarray(y, dtype=np.float64), np.array([b])
    else:
        new_sets = np.array([names[S] for S, _, _ in new], dtype=np.int64)
        new_values = np.concatenate([np.asarray(y, dtype=np.float64) for _, _, y in new] or [np.zeros(0)])
        new_scales = np.array([b for _, b, _ in new], dtype=np.float64)
    unique, precision, weighted, maximal, _, flat, starts = kernel(
        state[2], state[3], state[4], state[5], new_sets, new_values, new_scales, float(n), plan.d,
        float(n) ** 2 / _PRIOR_SHARE)
    cache["parity arrays"] = (len(measurements), measurements[-1][2], unique, precision, weighted, maximal)
    starts = starts.tolist()
    return {names[m]: flat[starts[k]: starts[k + 1]] for k, m in enumerate(maximal.tolist())}


def _hadamard_rows(y, s):
    """:func:`_hadamard` of each row of ``y`` (``(rows, 2^s)``): the same additions and subtractions per row."""
    h = np.array(y, dtype=np.float64).reshape(-1, 1 << s)
    for axis in range(s):                         # in place on a copy: the same a + b, a − b per axis
        view = h.reshape(h.shape[0] << axis, 2, 1 << (s - 1 - axis))
        a = view[:, 0, :].copy()
        view[:, 0, :] += view[:, 1, :]
        np.subtract(a, view[:, 1, :], out=view[:, 1, :])
    return h


def _maximal_sets(sets, cache=None) -> list:
    """The distinct measured sets contained in no other measured set, in the order first measured: the fitted
    tables are consistent, so a set's table is the marginal of any measured superset's table and fitting the
    maximal ones fits them all (up to the clipping at 0).  ``cache``: a dict kept across one run's calls, whose
    sets only grow: each new set is added to the last answer (a set in a maximal one changes nothing; else the
    maximal sets inside it leave and it joins last, as first measured), the same list as afresh (containment
    read on bit masks, attribute ``a`` = bit ``a``)."""
    state = None if cache is None else cache.get("maximal")
    if state is not None and state[0] <= len(sets) and sets[:state[0]] == state[1]:
        maximal, masks = list(state[2]), list(state[3])
        for S in sets[state[0]:]:
            m = sum(1 << a for a in S)
            if not any(m & M == m for M in masks):
                keep = [k for k, M in enumerate(masks) if M & m != M]
                maximal = [maximal[k] for k in keep] + [S]
                masks = [masks[k] for k in keep] + [m]
        cache["maximal"] = (len(sets), list(sets), maximal, masks)
        return list(maximal)
    maximal = _maximal_sets_afresh(sets)
    if cache is not None:
        cache["maximal"] = (len(sets), list(sets), maximal, [sum(1 << a for a in S) for S in maximal])
    return list(maximal)


def _maximal_sets_afresh(sets) -> list:
    """:func:`_maximal_sets` from the whole list (the reference its incremental form is tested against)."""
    distinct = list(dict.fromkeys(sets))
    masks = [sum(1 << a for a in S) for S in distinct]
    sizes = [len(S) for S in distinct]
    larger = {k: [r for r, j in zip(masks, sizes) if j > k] for k in set(sizes)}
    return [S for S, m in zip(distinct, masks)    # a set is in another only if that one is larger
            if not any(r & m == m for r in larger[len(S)])]


def _fit(plan, p, measurements, n, tol, sweeps=None, cache=None):
    """Proportional fitting of ``p`` (in place, warm) to the consistent, clipped measured marginals."""
    targets = _fit_targets(plan, measurements, n, cache)
    if isinstance(p, (_FactoredModel, _ComponentModel)):
        p = p.prepared(list(targets))                       # the tree or the parts, or the table
        if not isinstance(p, np.ndarray):
            return p.fit(targets, tol, sweeps)
    free = _free_attributes(plan, measurements, targets)     # {a: its 1-way target}, fitted together first
    targets = {S: t for S, t in targets.items() if not (len(S) == 1 and S[0] in free)}
    cube, previous = p, np.inf
    for sweep in range(_FIT_SWEEPS if sweeps is None else sweeps):
        worst = plan.scale_one_way(cube, free) if free else 0.0
        for S, t in targets.items():
            if len(S) == plan.d:
                worst = max(worst, float(np.max(np.abs(cube - t))))
                cube[:] = t / t.sum()
                continue
            m = plan.marginal(cube, S)
            worst = max(worst, float(np.max(np.abs(m - t))))
            plan.scale(cube, S, t / m if m.all() else np.divide(t, m, out=np.zeros_like(t), where=m > 0))
        cube /= cube.sum()
        if worst <= tol or worst > _STALL * previous:       # converged, or cycling between clipped targets
            break
        previous = worst
    return cube


def _free_attributes(plan, measurements, targets) -> dict:
    """The attributes whose 1-way target is fitted with the others' in one step (:meth:`_AdaptivePlan.
    scale_one_way`): ``{a: target}`` for each attribute in no measured set but its own 1-way one, when there
    are at least two and the full table was never measured.  The table is then a log-linear model over the
    measured sets (proportional fitting from the uniform table), in which such an attribute appears in its own
    factor only: it is independent of the others, so scaling it changes no other set's marginal and the
    others' scalings do not change its marginal (each up to the table's total, which the next ratio and the
    sweep's normalisation absorb).  Fitting them together, before the other sets, is therefore the same
    sweep, up to rounding.  Reads the measured sets only (released)."""
    if not plan.has_full:
        return {}
    joined = set()
    for S, _, _ in measurements:
        if len(S) == plan.d:
            return {}
        if len(S) > 1:
            joined.update(S)
    free = {S[0]: t for S, t in targets.items() if len(S) == 1 and S[0] not in joined}
    return dict(sorted(free.items())) if len(free) >= 2 else {}


def _opening_informative(n, noise) -> bool:
    """The opening's public rule: measure the 1-way marginals only when a 1-way table's expected L1 noise
    ``2 noise`` (``noise``: one cell's expected ``|noise|``, :meth:`_LaplaceRounds.expected_abs` /
    :meth:`_ZcdpRounds.expected_abs`) is below ``n``, the largest L1 error the uniform model can have on a 1-way
    table (``2n (1 − 1/2)``)."""
    return 2.0 * noise < n


def _eligible(plan, model, p, n, noise):
    """The candidates a round may measure (public: the model and the noise): those whose expected L1 noise
    ``2^{|r|} noise`` (``noise``: one cell's expected ``|noise|``, ``b`` for ``Lap(b)``, ``σ sqrt(2/π)`` for
    ``N(0, σ²)``) is below the largest L1 error the model can have on them for some table of ``n`` rows,
    ``2 (n − min_v M_r(p)_v)`` (``M_r`` in counts; all rows in the model's least likely cell), i.e. whose
    bias-corrected score can be positive for some data."""
    low = np.minimum.reduceat(model, plan.starts)
    if plan.has_full:                 # below, the full table is ineligible whatever the model (low >= 0)
        low = np.append(low, float(p.min()) * n if plan.sizes[-1] * noise < 2.0 * n else 0.0)
    return plan.sizes * noise < 2.0 * (n - low)


def _round_budget(plan, model, p, *, n, rounds):
    """The round rule: the round's budget (``rounds``' planned one, or all that is left when that is at most
    twice it: the last round) and the candidates it may measure (:func:`_eligible`, at the expected ``|noise|``
    of the round's measurement).  When none is eligible the budget is carried, not spent: the planned budget is
    raised as the annealing raises it (the noise halves: ``ε_t`` doubles, ``ρ_t`` quadruples) until some
    candidate is eligible or the round is the last (which then measures among all candidates).  Commits the
    round's budget to ``rounds``; returns ``(selection ε, the measurement's noise scale, last, allowed)``."""
    while True:
        budget, last = rounds.propose()
        eps_sel, scale = rounds.split(budget)
        allowed = _eligible(plan, model, p, n, rounds.expected_abs(scale))
        if allowed.any() or last:
            break
        rounds.anneal()
    rounds.commit(budget)
    return eps_sel, scale, last, (allowed if allowed.any() else np.ones_like(allowed))


class _Rounds:
    """The budget schedule both accountings share: a round's budget (``ε_t`` or ``ρ_t``) until what is left is at
    most twice it; then the last round takes exactly what is left."""

    def propose(self):
        """(the next round's budget, last?), or None when nothing is left; nothing is committed."""
        left = self.total - math.fsum(self.spent)
        if left <= 0:
            return None
        last = left <= 2.0 * self.round
        return (left if last else self.round), last

    def commit(self, budget):
        self.split(budget)
        self.spent.append(budget)
        self.trace[self.ROUND_KEY].append(budget)

    def carry_opening(self):
        """The opening measures nothing: its budget (``ε_1`` or ``ρ_1``) is carried into the first round's."""
        self.round += self.spent.pop()
        self.trace[self.ONE_WAY_KEY] = 0.0


class _LaplaceRounds(_Rounds):
    """Pure ε (``delta = 0``): Laplace noise and basic composition (DR-Thm3.16) — the budget, noise and ledger
    steps of :func:`_adaptive_run`.  ``opening``: :func:`adaptive_one_way_budget` (or the broken twin's)."""

    ROUND_KEY, ONE_WAY_KEY = "round_epsilon", "epsilon_one_way"

    def __init__(self, epsilon, d, sensitivity, select_share, sampler, opening):
        self.total, self.sensitivity, self.select_share, self.noise = epsilon, sensitivity, select_share, sampler
        self.round, eps_one, self.one_way_scale = opening(epsilon, d, sensitivity)
        self.spent = [eps_one]
        self.one_way_step = Spend(f"laplace (measure every 1-way marginal, Δ={sensitivity * d:g})", eps_one)
        self.trace = {"round_epsilon": [], "epsilon_one_way": eps_one}

    @staticmethod
    def expected_abs(scale):
        """E|noise| of one cell (Laplace: its scale ``b``)."""
        return scale

    @staticmethod
    def laplace_scale(scale):
        """The Laplace scale of the same variance ``2b²`` (what the estimator weighs by)."""
        return scale

    def split(self, eps_t):
        """(selection ε, the measurement's Laplace scale ``Δ/((1 − select_share) ε_t)``) of a round at ``ε_t``."""
        eps_sel = self.select_share * eps_t
        self._step = (eps_sel, eps_t - eps_sel)
        return eps_sel, self.sensitivity / (eps_t - eps_sel)


    def round_steps(self, t, what):
        eps_sel, eps_mea = self._step
        return [Spend(f"round {t}: exponential mechanism (select a marginal, Δ={self.sensitivity:g})", eps_sel),
                Spend(f"round {t}: laplace (measure the marginal {what}, Δ={self.sensitivity:g})", eps_mea)]

    def anneal(self):
        self.round *= 2.0

    def finish(self, smallest_scale):
        return {**self.trace, "smallest_epsilon": self.sensitivity / smallest_scale}


class _ZcdpRounds(_Rounds):
    """(ε, δ) through zCDP (``delta > 0``, AIM's accounting): Gaussian noise, each round's ρ_t split
    ``select_share`` to the exponential mechanism (``ε_sel = sqrt(8 select_share ρ_t)``, ``ε_sel²/8``-zCDP) and
    the rest to the measurement (``σ = Δ₂/sqrt(2 (1 − select_share) ρ_t)``); the annealing quadruples ρ_t (σ
    halves, ε_sel doubles).  ``opening``: :func:`adaptive_zcdp_opening` (or the broken twin's)."""

    ROUND_KEY, ONE_WAY_KEY = "round_rho", "rho_one_way"

    def __init__(self, rho, d, sensitivity, l2, select_share, sampler, opening):
        self.total, self.sensitivity, self.l2, self.select_share, self.noise = rho, sensitivity, l2, select_share, sampler
        self.round, rho_one, self.one_way_scale = opening(rho, d, l2, select_share)
        self.spent = [rho_one]
        self.one_way_step = Spend(f"gaussian (measure every 1-way marginal, Δ2={l2 * math.sqrt(d):.4g})", rho=rho_one)
        self.trace = {"round_rho": [], "rho_one_way": rho_one}

    @staticmethod
    def expected_abs(scale):
        """E|N(0, σ²)| = 2 ∫_0^∞ z e^{−z²/(2σ²)} dz / (σ sqrt(2π)) = 2σ²/(σ sqrt(2π)) = σ sqrt(2/π)."""
        return scale * math.sqrt(2.0 / math.pi)

    @staticmethod
    def laplace_scale(scale):
        """The Laplace scale of the same variance: ``2b² = σ²``."""
        return scale / math.sqrt(2.0)

    def split(self, rho_t):
        """(selection ε ``sqrt(8 select_share ρ_t)``, the measurement's σ ``Δ₂/sqrt(2 (1 − select_share) ρ_t)``)."""
        rho_sel = self.select_share * rho_t
        eps_sel = math.sqrt(8.0 * rho_sel)                 # Cesar & Rogers 2021: ε-DP exp. mechanism is ε²/8-zCDP
        self._step = (eps_sel, rho_t - rho_sel)
        return eps_sel, self.l2 / math.sqrt(2.0 * (rho_t - rho_sel))


    def round_steps(self, t, what):
        eps_sel, rho_mea = self._step
        return [Spend(f"round {t}: exponential mechanism (select a marginal, Δ={self.sensitivity:g})", eps_sel,
                      rho=eps_sel * eps_sel / 8.0),
                Spend(f"round {t}: gaussian (measure the marginal {what}, Δ2={self.l2:.4g})", rho=rho_mea)]

    def anneal(self):
        self.round *= 4.0

    def finish(self, smallest_scale):
        return {**self.trace, "smallest_sigma": smallest_scale}


def _adaptive_run(x, plan, *, n, rounds, sensitivity, rng):
    """One run of :func:`adaptive_marginals` (validated inputs); ``rounds``: the accounting and noise
    (:class:`_LaplaceRounds` or :class:`_ZcdpRounds`).  Returns the fitted table and the transcript."""
    d, xf = plan.d, x.astype(np.float64)
    truth = _data_counts(plan, x, xf)
    sampler = rounds.noise
    p = _initial_model(plan)                                # the uniform table, or its factored form
    measurements, steps, cache = [], [], {}
    smallest_b = smallest_scale = math.inf
    if _opening_informative(n, rounds.expected_abs(rounds.one_way_scale)):
        ones = [(a,) for a in range(d)]
        noisy = measure_one_way_marginals(truth[np.concatenate([plan.offset[S] + np.arange(2) for S in ones])],
                                          rounds.one_way_scale, sampler, rng)
        smallest_scale = rounds.one_way_scale
        smallest_b = rounds.laplace_scale(smallest_scale)   # measurements hold the Laplace scale of equal variance
        measurements = [(S, smallest_b, noisy[2 * a: 2 * a + 2]) for a, S in enumerate(ones)]
        steps = [rounds.one_way_step]
        p = _fit(plan, p, measurements, n, tol=_TOL_SHARE * smallest_b / n, cache=cache)
    else:                                                   # carried, not spent: the first round is larger
        rounds.carry_opening()
    selected = []
    w = plan.weights
    fractions = None                                        # every candidate's table of the model p
    while rounds.propose() is not None:
        fractions = _model_counts(plan, p) if fractions is None else fractions
        model = fractions * n
        eps_sel, scale, last, allowed = _round_budget(plan, model, p, n=n, rounds=rounds)
        bias = rounds.expected_abs(scale)
        err = np.add.reduceat(np.abs(model - truth), plan.starts)
        if plan.has_full:                                   # the full table's score is read only when eligible
            err = np.append(err, np.abs(_table(p) * n - xf).sum() if allowed[-1] else 0.0)
        scores = w * (err - plan.sizes * bias)
        among = np.flatnonzero(allowed)
        pick = int(among[_select_index(scores[among], eps_sel, sensitivity, rng)])
        S = plan.candidates[pick]
        true_S = truth[plan.offset[S]: plan.offset[S] + (1 << len(S))] if S in plan.offset else xf
        y = true_S + sampler(scale, (1 << len(S),), rng)
        at = slice(plan.offset[S], plan.offset[S] + (1 << len(S))) if S in plan.offset else None
        before = fractions[at] if at is not None else _model_marginal(plan, p, S).copy()
        b = rounds.laplace_scale(scale)
        measurements.append((S, b, y))
        smallest_b, smallest_scale = min(smallest_b, b), min(smallest_scale, scale)
        p = _fit(plan, p, measurements, n, tol=_TOL_SHARE * smallest_b / n, sweeps=_ROUND_SWEEPS, cache=cache)
        steps += rounds.round_steps(len(selected) + 1, S if len(S) < d else 'all')
        selected.append(S)
        if last:
            break
        fractions = _model_counts(plan, p)                  # the next round's model; the annealing test reads it
        after = fractions[at] if at is not None else _model_marginal(plan, p, S)
        moved = float(np.abs(after - before).sum()) * n
        if moved <= (1 << len(S)) * bias:
            rounds.anneal()
    p = _fit(plan, p, measurements, n, tol=_TOL_SHARE * smallest_b / n, cache=cache)     # the release: converged
    return {"p": _table(p), **_factored_answers(plan, p), "steps": steps, "selected": selected, "measurements": [(S, y) for S, _, y in measurements],
            **rounds.finish(smallest_scale)}


# --------------------------------------------------------------------------- the factored model (a junction tree)

_FACTORED_MIN_D = 18               # measured: the table is ~1.3x faster at d = 16, the tree ~5x at d = 20
_COMPONENTS_MIN_D = 14             # measured: the parts slower than the table at d = 11 (cancer), faster at d = 16
_FACTORED_SHARE = 64               # the tree is kept while its cliques hold at most 2^d / 64 cells in all


def _select_index(scores, epsilon, sensitivity, rng) -> int:
    """:func:`~dpbook.exponential.exponential_mechanism`'s draw (the Gumbel-max trick on the same shifted
    log-weights, the same ``rng`` draws) without its input checks, which every round's inputs pass by
    construction (finite scores, a validated ε share, the run's generator): the exponential mechanism at
    ``epsilon`` with sensitivity ``sensitivity`` (DR-Thm3.10)."""
    with np.errstate(over="ignore"):                   # the shifted log-weights ε(u − max u)/(2Δu) <= 0
        logits = epsilon * (scores - scores.max(axis=-1, keepdims=True)) / (2.0 * sensitivity)
    return int(np.argmax(logits + rng.gumbel(size=scores.shape), axis=-1))


def _initial_model(plan):
    """The uniform start of :func:`_adaptive_run`: a :class:`_FactoredModel` when the public rule
    :func:`_factored_suits` holds, else the table ``1/N`` on every cell."""
    if _factored_suits(plan):
        return _FactoredModel(plan.d)
    return _ComponentModel(plan.d) if _components_suit(plan) else np.ones(plan.N) / plan.N


def _factored_suits(plan) -> bool:
    """The public rule for the model's representation (it reads the workload's candidates and ``d`` only): the
    factored model when ``d >= _FACTORED_MIN_D`` and every candidate but the full table has at most two
    attributes (the tree computes every pair's table in one pass, :meth:`_FactoredModel.pair_tables`)."""
    return plan.d >= _FACTORED_MIN_D and _pairs_only(plan)


def _components_suit(plan) -> bool:
    """The public rule for the component model (:class:`_ComponentModel`; it reads the workload's candidates and
    ``d`` only): from ``_COMPONENTS_MIN_D`` to below ``_FACTORED_MIN_D`` when every candidate but the full table
    has at most two attributes (every candidate's table then comes from the parts' pair tables,
    :meth:`_ComponentModel.pair_tables`)."""
    return _COMPONENTS_MIN_D <= plan.d < _FACTORED_MIN_D and _pairs_only(plan)


def _pairs_only(plan) -> bool:
    """Every candidate but the full table has at most two attributes."""
    return all(len(S) <= 2 for S in plan.candidates if len(S) < plan.d)


def _table(p):
    """The model as a table of ``2^d`` probabilities (materialised once when it is factored)."""
    return p if isinstance(p, np.ndarray) else p.table()


def _model_counts(plan, p):
    """Every candidate's marginal table of the model (``plan.counts`` of the table, in its order)."""
    if not isinstance(p, np.ndarray):
        return p.candidate_tables(plan)
    fast = plan.block_counts(p)
    return plan.counts(p) if fast is None else np.maximum(fast, 0.0)


def _model_marginal(plan, p, S):
    """The model's marginal table on ``S`` (flattened, first attribute most significant)."""
    return plan.marginal(p, S) if isinstance(p, np.ndarray) else p.marginal_any(plan, S)


def _pair_index(plan, cells):
    """The flat index into a ``(d, 2, d, 2)`` pair table (:meth:`_FactoredModel.pair_tables`) of each cell
    ``(S, v)`` of at most two attributes (a 1-way cell ``(a, v)`` is the diagonal ``(a, v, a, v)``)."""
    idx = []
    for S, v in cells:
        (a, b), (i, j) = (tuple(S) * 2, tuple(v) * 2) if len(S) == 1 else (S, v)
        idx.append(((a * 2 + i) * plan.d + b) * 2 + j)
    return np.array(idx, dtype=np.int64)


def _candidate_cells(plan):
    """Every candidate's cells but the full table's, in ``plan.counts``' order."""
    return [(S, v) for S in plan.candidates if len(S) < plan.d or not plan.has_full
            for v in itertools.product((0, 1), repeat=len(S))]


def _data_counts(plan, x, xf):
    """Every candidate's marginal table of the data (``plan.cells.counts``).  On the factored model's workloads
    (:func:`_factored_suits`) with integer counts, from the pair tables of the data (:func:`_pair_counts`): sums
    of integers below ``2^53`` are exact in any order, so the same numbers, in a few matrix products (measured:
    7 ms against the transform's 61 ms at d = 20, but 7 against 2.5 at d = 16)."""
    if not (_factored_suits(plan) and np.issubdtype(x.dtype, np.integer)):
        fast = plan.block_counts(xf) if np.issubdtype(x.dtype, np.integer) else None
        return plan.cells.counts(xf) if fast is None else fast      # integers: the same numbers
    if not hasattr(plan, "_candidate_index"):
        plan._candidate_index = _pair_index(plan, _candidate_cells(plan))
    return _pair_counts(xf, plan.d).reshape(-1)[plan._candidate_index]


def _pair_counts(y, d) -> np.ndarray:
    """``T[a, v, b, w] = Σ_u y_u 1{u_a = v, u_b = w}`` for a table ``y`` of integer counts over ``{0,1}^d``: the
    table as a ``2^H × 2^L`` matrix (high and low attributes), ``I_hᵀ Y I_l`` for the pairs across, ``I_hᵀ
    diag(Y 1) I_h`` and ``I_lᵀ diag(1ᵀ Y) I_l`` within (``I``: the ``1{u_a = v}`` indicator columns).  Exact
    for integer counts (every partial sum is an integer below ``2^53``), so the order of the sums is free."""
    L = min(d, _LOW_BITS)
    H = d - L

    def indicator(k):
        bits = (np.arange(1 << k)[:, None] >> np.arange(k - 1, -1, -1)[None, :]) & 1      # attribute order
        return np.stack((1 - bits, bits), axis=2).reshape(1 << k, 2 * k).astype(np.float64)
    Y = y.reshape(1 << H, 1 << L)
    il = indicator(L)
    T = np.zeros((2 * d, 2 * d))
    T[2 * H:, 2 * H:] = il.T @ (Y.sum(axis=0)[:, None] * il)
    if H:
        ih = indicator(H)
        T[:2 * H, :2 * H] = ih.T @ (Y.sum(axis=1)[:, None] * ih)
        T[:2 * H, 2 * H:] = ih.T @ (Y @ il)
        T[2 * H:, :2 * H] = T[:2 * H, 2 * H:].T
    return T.reshape(d, 2, d, 2)


def _factored_answers(plan, p) -> dict:
    """The release's answers ``W.counts(p)`` of a factored model, from its pair tables (every workload cell has
    at most two attributes on the factored route); ``{}`` for a table (answered by ``W.counts``)."""
    if isinstance(p, np.ndarray):
        return {}
    W = plan.workload
    if not hasattr(plan, "_answer_index"):
        plan._answer_index = _pair_index(plan, W.cells)
    return {"answers": p.pair_tables().reshape(-1)[plan._answer_index]}


def _chordal_cliques(d, sets):
    """The maximal cliques of a chordal completion of the graph on ``d`` attributes whose edges join the
    attributes of each set in ``sets`` (greedy elimination of a vertex of least degree, ties to the least fill-in
    then the lower attribute: deterministic), each a sorted tuple, in the order formed."""
    adj = [set() for _ in range(d)]
    for S in sets:
        for a, b in itertools.combinations(S, 2):
            adj[a].add(b)
            adj[b].add(a)
    left, cliques = set(range(d)), []
    while left:
        def fill(v):
            nb = list(adj[v])
            return sum(1 for a, b in itertools.combinations(nb, 2) if b not in adj[a])
        low = min(len(adj[v]) for v in left)               # min-fill among the vertices of least degree
        v = min((v for v in left if len(adj[v]) == low), key=lambda v: (fill(v) if low > 1 else 0, v))
        C = tuple(sorted(adj[v] | {v}))
        if not any(set(C) <= set(D) for D in cliques):
            cliques.append(C)
        for a, b in itertools.combinations(adj[v], 2):
            adj[a].add(b)
            adj[b].add(a)
        for a in adj[v]:
            adj[a].discard(v)
        adj[v] = set()
        left.discard(v)
    return cliques


def _junction_edges(cliques):
    """A junction tree of the maximal cliques of a chordal graph: a maximum-weight spanning tree on the
    separator sizes ``|C_i ∩ C_j|`` (Kruskal, ties by index; separators may be empty: one connected tree)."""
    sets = [set(C) for C in cliques]
    pairs = sorted((-len(a & b), i, j) for i, a in enumerate(sets) for j, b in enumerate(sets) if i < j)
    root = list(range(len(cliques)))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i
    edges = []
    for _, i, j in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            root[ri] = rj
            edges.append((i, j))
    return edges


def _ratio(a, b):
    """``a / b`` where ``b > 0``, else 0 (one division when every ``b`` is positive, as on a fitted model)."""
    return a / b if b.all() else np.divide(a, b, out=np.zeros_like(a * b), where=b > 0)


def _bshape(sub, C):
    """The shape that broadcasts a table on ``sub`` (sorted, ``sub ⊆ C``) against a table on ``C``."""
    return tuple(2 if a in sub else 1 for a in C)


def _away(sub, C):
    """The axes of a table on ``C`` that a marginal on ``sub ⊆ C`` sums away."""
    return tuple(i for i, a in enumerate(C) if a not in sub)


class _FactoredModel:
    """The proportional-fitting model without its table: fitting from the uniform table multiplies the cells by
    a ratio that depends on one measured set's cells only, so the model is a log-linear model
    ``p(x) = c Π_S φ_S(x_S)`` over the fitted sets ``S`` (``φ_S``: the product of every ratio applied on ``S``,
    ``c``: the uniform start over every normalisation).  Its marginals are computed on a junction tree of a
    chordal completion of the sets' graph (binary attributes: a clique of ``c`` attributes is ``2^c`` cells)
    in the Hugin form ``p = Π_C β_C / Π_s μ_s`` (``β_C``: clique tables, ``μ_s``: separator tables), which every
    step below keeps exact.  Fitting keeps one *active* clique exact: every separator agrees with the clique on
    its side away from the active one, so moving the active clique along the path between two cliques (one
    message per edge) makes the new one exact; the marginal on a fitted set is then its clique's table summed,
    and the fitting update multiplies that table by the ratio — the same arithmetic as on the table, up to
    rounding.  A set outside every clique (a new measurement) rebuilds the tree from the factors.  The tree is
    a function of the measured sets (released), so every rule about it is post-processing."""

    def __init__(self, d):
        self.d, self.factors, self.c = d, {}, 2.0 ** -d
        self._build([])

    # ---- the tree
    def _build(self, new_sets):
        sets = list(self.factors) + [S for S in new_sets if S not in self.factors]
        cliques = _chordal_cliques(self.d, sets)
        K = len(cliques)
        self.cliques = cliques
        self.size = sum(1 << len(C) for C in cliques)
        self.adj = [[] for _ in range(K)]
        self.edge = {}          # (i, j) -> (separator, key of μ, axes of C_i summed away, μ's shape in C_j, in C_i)
        for i, j in _junction_edges(cliques):
            s = tuple(sorted(set(cliques[i]) & set(cliques[j])))
            self.adj[i].append(j)
            self.adj[j].append(i)
            for u, v in ((i, j), (j, i)):
                self.edge[(u, v)] = (s, (min(i, j), max(i, j)), _away(s, cliques[u]), _bshape(s, cliques[v]),
                                     _bshape(s, cliques[u]))
        order, parent, depth = [0], [-1] * K, [0] * K      # breadth-first from clique 0
        for i in order:
            for j in self.adj[i]:
                if j != parent[i]:
                    parent[j], depth[j] = i, depth[i] + 1
                    order.append(j)
        self.order, self.parent, self.depth, self.paths = order, parent, depth, {}
        self.home, self.owner = {}, [next(i for i, C in enumerate(cliques) if a in C) for a in range(self.d)]
        self._pairs = self._ind = None
        beta = [np.ones((2,) * len(C)) for C in cliques]
        beta[0] = beta[0] * self.c
        for S, phi in self.factors.items():
            i, _, shape = self._home(S)
            beta[i] = beta[i] * phi.reshape(shape)
        self.beta = beta
        self.mu = {}
        for i in order[:0:-1]:                              # collect to clique 0: it is exact, and every
            self._message(i, parent[i], fresh=True)         # separator agrees with the clique beyond it
        self.active = 0

    def _home(self, S):
        """(the first clique holding ``S``, the axes its marginal on ``S`` sums away, ``S``'s shape in it), or
        ``None`` when no clique holds ``S``."""
        if S not in self.home:
            i = next((i for i, C in enumerate(self.cliques) if set(S) <= set(C)), None)
            self.home[S] = None if i is None else (i, _away(S, self.cliques[i]), _bshape(S, self.cliques[i]))
        return self.home[S]

    def _message(self, i, j, fresh=False):
        """Hugin's message from clique ``i`` to its neighbour ``j``: ``μ_s ← Σ_{C_i \\ s} β_i``, ``β_j ×= μ_s^new /
        μ_s^old`` (``p`` unchanged, and ``j`` agrees with ``i`` on ``s``)."""
        _, key, away, shape, _ = self.edge[(i, j)]
        new = np.add.reduce(self.beta[i], axis=away)
        if fresh:
            ratio = new
        else:
            ratio = _ratio(new, self.mu[key])
        self.beta[j] = self.beta[j] * np.reshape(ratio, shape)
        self.mu[key] = new
        self._pairs = None

    def _path(self, i, j):
        """The tree path's edges from clique ``i`` to clique ``j``."""
        if (i, j) not in self.paths:
            up, down, a, b = [], [], i, j
            while a != b:
                if self.depth[a] >= self.depth[b]:
                    up.append((a, self.parent[a]))
                    a = self.parent[a]
                else:
                    down.append((self.parent[b], b))
                    b = self.parent[b]
            self.paths[(i, j)] = up + down[::-1]
        return self.paths[(i, j)]

    def _move(self, j):
        """Make clique ``j`` the exact one: messages along the tree path from the active clique."""
        for u, v in self._path(self.active, j):
            self._message(u, v)
        self.active = j

    def _distribute(self):
        """Make every clique exact (messages outward from the active clique, breadth-first)."""
        seen, queue = {self.active}, [self.active]
        for i in queue:
            for j in self.adj[i]:
                if j not in seen:
                    self._message(i, j)
                    seen.add(j)
                    queue.append(j)

    # ---- fitting
    def prepared(self, sets):
        """The model ready to fit ``sets``: the tree rebuilt when a set lies in no clique; the table instead
        (materialised) when a set is the full attribute set or the rebuilt tree would hold more than
        ``2^d / _FACTORED_SHARE`` cells (public rules: the sets are released)."""
        if any(len(S) == self.d for S in sets):
            return self.table()
        if any(self._home(S) is None for S in sets):
            self._build(sets)
            if self.size * _FACTORED_SHARE > (1 << self.d):
                return self.table()
        return self

    def marginal(self, S):
        """The exact marginal table on ``S`` (a subset of a clique), in the table's mass."""
        i, away, _ = self._home(S)
        self._move(i)
        return np.add.reduce(self.beta[i], axis=away).reshape(-1)

    def scale(self, S, ratio):
        """``p ×= ratio[cell of S]``: ``φ_S`` and the (active) clique table of ``S`` take the ratio."""
        i, _, shape = self._home(S)
        self.beta[i] = self.beta[i] * ratio.reshape(shape)
        phi = self.factors.get(S)
        self.factors[S] = ratio.reshape((2,) * len(S)).copy() if phi is None else phi * ratio.reshape(phi.shape)
        self._pairs = None

    def normalise(self):
        """``p /= Σ p``: every clique and separator table and ``c`` divide by the total (one tree: ``p`` divides
        once, and every agreement between tables is kept)."""
        z = float(self.beta[self.active].sum())
        self.beta = [b / z for b in self.beta]
        self.mu = {k: m / z for k, m in self.mu.items()}
        self.c /= z
        self._pairs = None

    def fit(self, targets, tol, sweeps):
        """:func:`_fit`'s sweeps on the tree: the same updates, in the same order, as on the table."""
        previous = np.inf
        for sweep in range(_FIT_SWEEPS if sweeps is None else sweeps):
            worst = 0.0
            for S, t in targets.items():
                m = self.marginal(S)
                worst = max(worst, float(np.max(np.abs(m - t))))
                self.scale(S, np.divide(t, m, out=np.zeros_like(t), where=m > 0))
            self.normalise()
            if worst <= tol or worst > _STALL * previous:
                break
            previous = worst
        return self

    # ---- what a round reads
    def _conditional(self, i):
        """``β_i / μ_s`` on the separator ``s`` towards the parent (clique 0: ``β_0``): ``p`` is their product."""
        if self.parent[i] < 0:
            return self.beta[i]
        _, key, _, _, shape = self.edge[(i, self.parent[i])]
        return _ratio(self.beta[i], np.reshape(self.mu[key], shape))

    def min(self) -> float:
        """The smallest cell of ``p``: min-product elimination over ``p = Π_i β_i / μ_{s_i}`` (non-negative
        factors, so the minimum distributes over the products), leaves first."""
        incoming = [1.0] * len(self.cliques)
        for i in self.order[::-1]:
            f = self._conditional(i) * incoming[i]
            j = self.parent[i]
            if j < 0:
                return float(f.min())
            _, _, away, shape, _ = self.edge[(i, j)]
            incoming[j] = incoming[j] * np.reshape(f.min(axis=away), shape)

    def table(self) -> np.ndarray:
        """The ``2^d`` table ``Π_i β_i / μ_{s_i}``, built outward from clique 0 (each step multiplies in a
        clique's conditional table).  Every table is held on the ``d`` axes in attribute order (length 1 for an
        attribute not yet in it, the cliques' attributes being sorted), so the last product is the table in the
        universe's order with no transposition; the same products as joining the axes one clique at a time."""
        d = self.d

        def spread(f, C):                                   # f on the sorted clique C, as a d-axis array
            return np.reshape(f, tuple(2 if a in C else 1 for a in range(d)))
        t = spread(np.array(self.beta[0], dtype=np.float64), self.cliques[0])
        for i in self.order[1:]:
            t = t * spread(self._conditional(i), self.cliques[i])
        if t.shape != (2,) * d:                             # (every attribute is in a clique: not reached)
            t = np.broadcast_to(t, (2,) * d).copy()
        return t.reshape(-1)                                # a new, writable array (fitting scales it in place)

    def _indicators(self):
        """Per clique ``I[a, v, x_C] = 1{x_a = v}`` for its attributes ``a`` (zero rows for the others), and per
        directed edge the messages' shape in the receiving clique and the axes the sender sums away."""
        if self._ind is None:
            ind = []
            for C in self.cliques:
                t = np.zeros((self.d, 2) + (2,) * len(C))
                for k, a in enumerate(C):
                    for v in (0, 1):
                        t[(a, v) + (slice(None),) * k + (v,)] = 1.0
                ind.append(t)
            shapes = {e: ((self.d, 2) + info[3], tuple(2 + k for k in info[2]), list(info[0]))
                      for e, info in self.edge.items()}
            own = [[(b, tuple(2 + q for q in range(len(C)) if q != k)) for k, b in enumerate(C) if self.owner[b] == i]
                   for i, C in enumerate(self.cliques)]
            self._ind = ind, shapes, own
        return self._ind

    def pair_tables(self) -> np.ndarray:
        """``T[a, v, b, w] = p(x_a = v, x_b = w)`` for every pair of attributes (in the table's mass), in one
        pass over the calibrated tree: for each edge and direction the message ``R[a, v](x_s) = p(x_a = v | x_s)``
        for the attributes ``a`` beyond it (sums of products of non-negative terms: no cancellation), and at
        each attribute's clique the sum of ``β_C(x_C) 1{x_b = w} E[a, v](x_C)``, ``E`` the indicators of the
        clique's attributes and its incoming messages."""
        if self._pairs is not None:
            return self._pairs
        self._distribute()
        ind, shapes, own = self._indicators()
        R = {}

        def gathered(i, skip):
            e = ind[i]
            for j in self.adj[i]:
                if j != skip and (j, i) in R:
                    e = e + R[(j, i)]
            return e

        def send(i, j):
            _, key, _, _, shape = self.edge[(i, j)]
            target, away, rows = shapes[(i, j)]
            e = gathered(i, j) * _ratio(self.beta[i], np.reshape(self.mu[key], shape))
            r = e.sum(axis=away)
            r[rows] = 0.0                                   # the separator's own rows are the receiver's
            R[(i, j)] = r.reshape(target)
        for i in self.order[:0:-1]:
            send(i, self.parent[i])
        for i in self.order:
            for j in self.adj[i]:
                if j != self.parent[i]:
                    send(i, j)
        T = np.zeros((self.d, 2, self.d, 2))
        for i in range(len(self.cliques)):
            w = gathered(i, None) * self.beta[i]
            for b, away in own[i]:
                T[:, :, b, :] = w.sum(axis=away)
        self._pairs = T
        return T

    def candidate_tables(self, plan) -> np.ndarray:
        """``plan.counts`` of the table: every candidate's marginal (1- and 2-way from :meth:`pair_tables`; the
        full table, last, is not part of ``plan.counts``)."""
        if not hasattr(plan, "_candidate_index"):
            plan._candidate_index = _pair_index(plan, _candidate_cells(plan))
        return self.pair_tables().reshape(-1)[plan._candidate_index]

    def marginal_any(self, plan, S) -> np.ndarray:
        """The marginal on any candidate ``S``: from a clique when one holds it, else from the pair tables."""
        if len(S) == self.d:
            return self.table()
        if self._home(S) is not None:
            return self.marginal(S).copy()
        return self.pair_tables()[S[0], :, S[1], :].reshape(-1).copy()


# --------------------------------------------------------------------------- the component model (independent parts)

def _row_view(c, pos):
    """:meth:`_AdaptivePlan.shapes` for a table of ``2^c`` cells and the sorted bit positions ``pos`` (the first
    most significant) of a set: rows of ``2^L`` contiguous cells (``L = min(c, _LOW_BITS)``) under the cube of
    the other positions with each run outside ``pos`` merged into one axis; (view shape, leading axes summed
    away, the set's cell of every entry of the summed view, broadcastable against the view); cached."""
    key = (c, tuple(pos))
    if key not in _ROW_VIEWS:
        _ROW_VIEWS[key] = _row_view_afresh(c, pos)
    return _ROW_VIEWS[key]


_ROW_VIEWS = {}                    # (c, positions) -> _row_view's answer (a function of them only)


def _row_view_afresh(c, pos):
    """:func:`_row_view` computed (``pos`` sorted), uncached; also the plan's :meth:`_AdaptivePlan.shapes`."""
    L = min(c, _LOW_BITS)
    D = c - L
    hi, lo = [q for q in pos if q < D], [q - D for q in pos if q >= D]
    shape, keep = cube_blocks(D, hi) if D else ([], [])
    away = tuple(t for t in range(len(shape)) if t not in keep)
    j = np.arange(1 << L)
    low = np.zeros(1 << L, dtype=np.int64)
    for k, q in enumerate(lo):
        low |= ((j >> (L - 1 - q)) & 1) << (len(lo) - 1 - k)
    index = (np.arange(1 << len(hi))[:, None] << len(lo)) | low[None, :]
    bshape = tuple(2 if t in keep else 1 for t in range(len(shape))) + (1 << L,)
    return tuple(shape) + (1 << L,), away, index.reshape(bshape)


_PAIR_SUMS = {}                    # c -> the plan of _pair_sums for a table of 2^c cells


def _pair_sums(g, c):
    """The superset sums ``s_z = Σ_{y ⊇ z} g_y`` of a table of ``2^c`` cells (position ``k`` is bit ``c−1−k``,
    the first most significant) for every ``z`` of at most two positions: ``(i, j, s_∅, s_k for each k, s_{ij}
    for each pair i < j)``.  The table as ``2^D × 2^L`` rows (``L = min(c, _LOW_BITS)``): the transform along
    the ``D`` row bits (additions over long contiguous rows), then along the ``L`` column bits on the rows of at
    most two row bits only (transposed: every step adds whole rows).  Additions only, in a fixed order: the same bytes on every CPU."""
    plan = _PAIR_SUMS.get(c)
    if plan is None:
        L = min(c, _LOW_BITS)
        D = c - L
        row = [0] + [1 << (D - 1 - k) for k in range(D)]
        row += [(1 << (D - 1 - k)) | (1 << (D - 1 - l)) for k in range(D) for l in range(k + 1, D)]
        at = {r: q for q, r in enumerate(row)}

        def cell(ks):                             # the flat index into the kept rows (transposed) of s_ks
            r = sum(1 << (D - 1 - k) for k in ks if k < D)
            col = sum(1 << (c - 1 - k) for k in ks if k >= D)
            return col * len(row) + at[r]
        i, j = np.triu_indices(c, 1)
        plan = _PAIR_SUMS[c] = (D, L, np.array(row, dtype=np.int64), i, j, cell(()),
                                np.array([cell((k,)) for k in range(c)], dtype=np.int64),
                                np.array([cell((k, l)) for k, l in zip(i.tolist(), j.tolist())], dtype=np.int64))
    D, L, row, i, j, total, ones, both = plan
    R = g.reshape(1 << D, 1 << L)
    if D:
        R = R.copy()
        for axis in range(D):
            view = R.reshape(1 << axis, 2, -1)
            np.add(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])
    Y = np.ascontiguousarray(R[row].T)            # the rows of at most two row bits, as columns
    for axis in range(L):                         # (each step then adds runs of whole rows)
        view = Y.reshape(1 << axis, 2, -1)
        np.add(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])
    flat = Y.reshape(-1)
    return i, j, flat[total], flat[ones], flat[both]


_COMPONENT_KERNELS: list = []     # [the compiled kernels, or None] once _component_kernels looked
_STEP_FIELDS = 11                 # the columns of a compiled fitting step (dpbook._component_numba.STEP_FIELDS)


def _component_kernels():
    """The compiled kernels of :class:`_ComponentModel` (:mod:`dpbook._component_numba`'s ``fit_sweeps``,
    ``pair_tables_into`` and ``table_into``, as attributes of one object) when ``dpbook._mw_kernels.USE_COMPILED``
    (read at each call; ``DPBOOK_NUMBA=0`` turns it off) and numba imports, else ``None`` (the numpy path runs:
    the same bytes).  Imported on a component model's first fit, never with ``dpbook``: only the public rule
    :func:`_components_suit` builds a component model, so smaller problems never import numba."""
    from ._mw_kernels import USE_COMPILED
    if not USE_COMPILED:
        return None
    if not _COMPONENT_KERNELS:
        from ._component_numba import AVAILABLE, fit_sweeps, pair_tables_into, table_into
        _COMPONENT_KERNELS.append(_Kernels(fit_sweeps, pair_tables_into, table_into) if AVAILABLE else None)
    return _COMPONENT_KERNELS[0]


class _Kernels:
    """The compiled kernels of :class:`_ComponentModel`, by name."""

    def __init__(self, fit_sweeps, pair_tables_into, table_into):
        self.fit_sweeps, self.pair_tables_into, self.table_into = fit_sweeps, pair_tables_into, table_into


_STEP_CODES = {}                   # (c, positions) -> _step_codes' answer (a function of them only)
_CODE_BLOCKS = {}                  # ("rows" or "columns", bits) -> {places: offset in _CODE_ARRAYS}
_CODE_ARRAYS = [np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)]   # every row code, every column code


def _codes(bits, places):
    """``out[v]`` = the bits of ``v`` (of ``bits`` bits, the first most significant) at ``places``, as a number
    (the first place most significant)."""
    v = np.arange(1 << bits)
    out = np.zeros(1 << bits, dtype=np.int64)
    for k, q in enumerate(places):
        out |= ((v >> (bits - 1 - q)) & 1) << (len(places) - 1 - k)
    return out


def _code_offset(kind, bits, places):
    """The offset of :func:`_codes` ``(bits, places)`` in ``_CODE_ARRAYS`` (0: the row codes, 1: the column
    codes): on first use of ``(kind, bits)``, the codes of every set of at most two places are appended (a set of
    more places on its own first use)."""
    which = 0 if kind == "rows" else 1
    block = _CODE_BLOCKS.get((kind, bits))
    if block is None:
        subsets = [()] + [(q,) for q in range(bits)] + [(q, r) for q in range(bits) for r in range(q + 1, bits)]
        start = _CODE_ARRAYS[which].size
        block = _CODE_BLOCKS[(kind, bits)] = {P: start + (i << bits) for i, P in enumerate(subsets)}
        _CODE_ARRAYS[which] = np.concatenate([_CODE_ARRAYS[which]] + [_codes(bits, P) for P in subsets])
    if places not in block:
        block[places] = _CODE_ARRAYS[which].size
        _CODE_ARRAYS[which] = np.concatenate([_CODE_ARRAYS[which], _codes(bits, places)])
    return block[places]


def _step_codes(c, pos):
    """:func:`_row_view` of a set at sorted positions ``pos`` of a part of ``c`` attributes as the compiled fit
    reads it: (the offset in ``_CODE_ARRAYS[0]`` of each row's kept cell ``h``, the offset in
    ``_CODE_ARRAYS[1]`` of each column's low bits ``low`` of the set's cell, the row width, the number of those
    low bits, the number of kept cells, whether rows are summed away); the set's cell of entry ``(row, j)`` is
    ``(h[row] << count) | low[j]``, as the cell ``index`` of :func:`_row_view`."""
    key = (c, tuple(pos))
    if key not in _STEP_CODES:
        L = min(c, _LOW_BITS)
        D = c - L
        hi, lo = tuple(q for q in pos if q < D), tuple(q - D for q in pos if q >= D)
        _STEP_CODES[key] = (_code_offset("rows", D, hi), _code_offset("columns", L, lo), 1 << L, len(lo),
                            1 << len(hi), len(hi) < D)
    return _STEP_CODES[key]


_STEP_VIEWS = {}                   # (part's size, S's positions in it) -> the fields of S's compiled step but
                                   # the part's (a function of them only)


def _pair_scratch(c):
    """The cells :func:`dpbook._component_numba.pair_tables_into` needs besides a copy of the largest part (of
    ``c`` attributes): the rows of at most two row bits of :func:`_pair_sums`."""
    D = c - min(c, _LOW_BITS)
    return (1 + D + D * (D - 1) // 2) << min(c, _LOW_BITS)


class _ComponentModel:
    """The proportional-fitting model as a product of independent parts: fitting from the uniform table
    multiplies the cells by ratios that each depend on one measured set's cells, so ``p(x) = Π_C g_C(x_C)`` over
    the connected components ``C`` of the measured sets' graph (attributes joined when a measured set holds
    both), each ``g_C`` a table of ``2^{|C|}`` cells summing to 1 (an attribute joined to no other is its own
    part: a row of ``single``, uniform until its 1-way set is fitted).  A set's marginal of ``p`` is its part's
    marginal (the others sum to 1), and the fitting update scales that part's table: the same updates, in the
    same order, as on the ``2^d`` table (sets of other parts commute with it), up to rounding.  A measured set
    joining parts multiplies their tables into one; a measured full table makes the model the table.  The parts
    are a function of the measured sets (released): post-processing."""

    def __init__(self, d):
        self.d = d
        self.single = np.full((d, 2), 0.5)                # the 1-attribute parts, one row per attribute
        self.parts, self.tables = [], []                  # the larger parts: sorted attribute tuples, tables
        self.where = [-1] * d                             # attribute -> its larger part's index, or -1
        self._views, self._pairs, self._placed = {}, None, set()
        self._steps = {}                                  # S -> its fitting step's view (while the parts stay)
        # The compiled path's state (dpbook._component_numba): working cells of the pair tables; each larger
        # part's id (kept while the part is unchanged); the library of compiled fitting steps, one row a set
        # (S -> its row, each row's part id, the rows); the targets' sets -> _fit_plan's answer.
        self._scratch = None
        self._part_ids, self._next_id = [], 0
        self._compiled_ids, self._compiled_parts = {}, []
        self._compiled_steps = np.empty((32, _STEP_FIELDS), dtype=np.int64)
        self._fit_plans = {}
        self._pack([], [])                                # the tables as views of one buffer

    def _pack(self, tables, ids, last=None):
        """Keep ``tables`` (then ``np.multiply.outer(*last)`` flattened, written in place, when ``last`` is given)
        as consecutive views of one flat buffer (the compiled kernels read every part from it), with the parts'
        ids ``ids``, their offsets (also by id), sizes and attributes as arrays."""
        sizes = [g.size for g in tables] + ([last[0].size * last[1].size] if last is not None else [])
        starts = list(itertools.accumulate(sizes, initial=0))
        self.buffer = np.empty(starts[-1])
        self._starts, self._sizes = np.array(starts[:-1], dtype=np.int64), np.array(sizes, dtype=np.int64)
        self.tables = [self.buffer[s: s + n] for s, n in zip(starts, sizes)]
        for g, t in zip(self.tables, tables):
            g[...] = t
        if last is not None:
            np.multiply(last[0][:, None], last[1][None, :], out=self.tables[-1].reshape(last[0].size, -1))
        self._attrs = np.array([a for C in self.parts for a in C], dtype=np.int64)
        self._attr_starts = np.array(list(itertools.accumulate(map(len, self.parts), initial=0)), dtype=np.int64)
        self._part_ids = list(ids)
        self._id_starts = np.zeros(self._next_id, dtype=np.int64)
        self._id_starts[ids] = starts[:-1]
        need = max(sizes, default=0) + _pair_scratch(max(map(len, self.parts), default=0))
        if self._scratch is None or self._scratch.size < need:      # (kept while large enough)
            self._scratch = np.empty(need)

    def _packed(self):
        """The tables still views of the buffer (a copied model's are not): packed again if not."""
        if any(g.base is not self.buffer for g in self.tables):
            self._pack([np.array(g, dtype=np.float64) for g in self.tables], self._part_ids)

    def prepared(self, sets):
        """The model ready to fit ``sets``: the parts a set joins multiplied into one; the table instead when a
        set is the full attribute set."""
        if any(len(S) == self.d for S in sets):
            return self.table()
        for S in sets:
            if S in self._placed:
                continue
            if len(S) > 1 and (self.where[S[0]] < 0 or any(self.where[a] != self.where[S[0]] for a in S)):
                self._join(S)
            self._placed.add(S)                           # parts only grow: S stays in one part
        return self

    def _join(self, S):
        """Multiply the parts holding ``S``'s attributes into one part (a flat table; its attributes in the
        order of the factors, the first most significant)."""
        members = sorted({self.where[a] for a in S if self.where[a] >= 0})
        pieces = [(self.parts[i], self.tables[i]) for i in members]
        pieces += [((a,), self.single[a].copy()) for a in S if self.where[a] < 0]
        attrs, g = (), None
        for C, t in pieces[:-1]:
            attrs, g = attrs + C, (t if g is None else np.multiply.outer(g, t).reshape(-1))
        keep = [i for i in range(len(self.parts)) if i not in members]
        gone = {self._part_ids[i] for i in members}       # (their sets' compiled steps are compiled again)
        self._compiled_ids = {S: r for S, r in self._compiled_ids.items() if self._compiled_parts[r] not in gone}
        self._fit_plans = {}
        self._next_id += 1
        self.parts = [self.parts[i] for i in keep] + [attrs + pieces[-1][0]]
        self._pack([self.tables[i] for i in keep], [self._part_ids[i] for i in keep] + [self._next_id - 1],
                   last=(g, pieces[-1][1]))               # (the last product in place)
        self.where = [-1] * self.d
        for i, C in enumerate(self.parts):
            for a in C:
                self.where[a] = i
        self._pairs, self._steps = None, {}

    def _view(self, S):
        """For ``S`` in a larger part: (its index, the part's table viewed as runs of attributes outside ``S``
        merged into one axis around ``S``'s axes, the axes summed away, ``S``'s shape in that view, whether
        ``S``'s attributes lie in the part in the reverse order)."""
        i = self.where[S[0]]
        C = self.parts[i]
        key = (C, S)
        if key not in self._views:
            pos = sorted(C.index(a) for a in S)
            self._views[key] = _row_view(len(C), pos) + ([C[q] for q in pos] != list(S),)
        return (i,) + self._views[key]

    def fit(self, targets, tol, sweeps):
        """:func:`_fit`'s sweeps on the parts (:meth:`_fit_numpy`), by the compiled kernel
        :func:`dpbook._component_numba.fit_sweeps` when it is available (:func:`_component_kernels`): the same
        bytes."""
        kernels = _component_kernels()
        if kernels is None:
            return self._fit_numpy(targets, tol, sweeps)
        self._packed()
        key = tuple(targets)
        plan = self._fit_plans.get(key)
        if plan is None:
            plan = self._fit_plans[key] = self._fit_plan(targets)
        at, goal_firsts, order, firsts = plan
        values = np.concatenate(list(targets.values())).astype(np.float64, copy=False) if targets else np.empty(0)
        kernels.fit_sweeps(self.buffer, self._starts, self._sizes, self._id_starts, self.single, at, goal_firsts,
                           self._compiled_steps, order, firsts, _CODE_ARRAYS[0], _CODE_ARRAYS[1], values, float(tol),
                           _STALL, _FIT_SWEEPS if sweeps is None else sweeps)
        self._pairs = None
        return self

    def _fit_plan(self, targets):
        """The compiled fit's reading of the targets' sets (their values concatenated in order): the free
        1-attribute sets (attributes, offsets of their targets), then the steps of the others (rows of the
        library, added as new sets come, and offsets of their targets)."""
        at, goal_firsts, order, firsts, first = [], [], [], [], 0
        for S, t in targets.items():
            if len(S) == 1 and self.where[S[0]] < 0:
                at.append(S[0])
                goal_firsts.append(first)
            else:
                if S not in self._compiled_ids:
                    self._compile_step(S)
                order.append(self._compiled_ids[S])
                firsts.append(first)
            first += t.size
        return tuple(np.array(v, dtype=np.int64) for v in (at, goal_firsts, order, firsts))

    def _compile_step(self, S):
        """Add the compiled fit's step of ``S`` (in a larger part) to the model's library: one row of
        :data:`dpbook._component_numba.STEP_FIELDS` integers (its part, its view's codes by :func:`_step_codes`,
        its target's size, whether its attributes lie in the part in the reverse order)."""
        i = self.where[S[0]]
        C = self.parts[i]
        at = tuple(C.index(a) for a in S)                 # S's positions in the part, in S's order
        view = _STEP_VIEWS.get((len(C), at))
        if view is None:
            pos = sorted(at)
            view = _STEP_VIEWS[(len(C), at)] = ((len(C) == len(S),) + _step_codes(len(C), pos)
                                                 + (1 << len(S), list(at) != pos))
        n = len(self._compiled_parts)
        if n == self._compiled_steps.shape[0]:            # (room doubled)
            self._compiled_steps = np.concatenate([self._compiled_steps, np.empty_like(self._compiled_steps)])
        self._compiled_steps[n] = (self._part_ids[i], 1 << len(C)) + view
        self._compiled_parts.append(self._part_ids[i])
        self._compiled_ids[S] = n

    def _fit_numpy(self, targets, tol, sweeps):
        """:func:`_fit`'s sweeps on the parts: each set scales its part's cells to its target, then every part
        is normalised (the table's normalisation: the parts' totals multiply to the table's).  A set that is its
        whole part (a 1-attribute part, or a pair joined to nothing else) is set to its target in one step (its
        ratio times its cells, up to rounding); the 1-attribute ones all at once.  The reference of the
        compiled :func:`dpbook._component_numba.fit_sweeps`."""
        ones = [S[0] for S in targets if len(S) == 1 and self.where[S[0]] < 0]
        rest, steps = [], self._steps
        for S, t in targets.items():
            if len(S) > 1 or self.where[S[0]] >= 0:
                step = steps.get(S)                   # the view of S in its part, kept until parts join
                if step is None:
                    i, shape, away, index, swapped = self._view(S)   # (|S| <= 2: reversed is transposed)
                    step = steps[S] = (i, shape, away, index, index.reshape(-1), swapped)
                i, shape, away, index, flat, swapped = step
                rest.append((self.tables[i], shape, away, index, flat,
                             t.reshape(2, 2).T.reshape(-1) if swapped else t))
        if ones:
            at = np.array(ones, dtype=np.int64)
            goal = np.stack([targets[(a,)] for a in ones])
        previous = np.inf
        for sweep in range(_FIT_SWEEPS if sweeps is None else sweeps):
            worst = 0.0
            if ones:
                m = self.single[at]
                worst = float(np.max(np.abs(m - goal)))
                self.single[at] = goal if m.all() else np.where(m > 0, goal, 0.0)
            misses = []                               # |marginal − target| of every step, its max read once
            for g, shape, away, index, flat, t in rest:
                if g.size == t.size:                      # the part is S: the update sets it to its target
                    misses.append(g - t)
                    g[...] = t if g.all() else np.where(g > 0, t, 0.0)
                    continue
                rows = g.reshape(shape)
                summed = np.add.reduce(rows, axis=away) if away else rows
                m = np.bincount(flat, weights=summed.reshape(-1), minlength=t.size)
                misses.append(m - t)
                rows *= (t / m if m.all() else np.divide(t, m, out=np.zeros_like(t), where=m > 0))[index]
            if misses:
                worst = max(worst, float(np.max(np.abs(np.concatenate(misses)))))
            self.single /= self.single.sum(axis=1, keepdims=True)
            for g in self.tables:
                g /= g.sum()
            if worst <= tol or worst > _STALL * previous:
                break
            previous = worst
        self._pairs = None
        return self

    def _parts_of(self, S):
        """``S``'s attributes grouped by part: [(attributes of S in it, its table, its attributes)], in the
        order of their first attribute in ``S``."""
        groups = {}
        for a in S:
            key = self.where[a] if self.where[a] >= 0 else -1 - a
            groups.setdefault(key, []).append(a)
        out = []
        for key, attrs in groups.items():
            if key >= 0:
                out.append((attrs, self.tables[key], self.parts[key]))
            else:
                out.append((attrs, self.single[attrs[0]], (attrs[0],)))
        return out

    def marginal_any(self, plan, S) -> np.ndarray:
        """The marginal table of ``p`` on ``S`` (flattened, first attribute most significant): the product of
        its parts' marginals."""
        if len(S) == self.d:
            return self.table()
        out = None
        for attrs, g, C in self._parts_of(S):
            if len(C) > len(attrs):                   # summed along rows, as a fitting step reads it
                _, shape, away, index, swapped = self._view(tuple(attrs))
                rows = g.reshape(shape)
                summed = np.add.reduce(rows, axis=away) if away else rows
                m = np.bincount(index.reshape(-1), weights=summed.reshape(-1), minlength=1 << len(attrs))
                m = m.reshape(2, 2).T if swapped else m
            else:
                m = self._sorted(g, C)
            f = np.reshape(m, tuple(2 if a in attrs else 1 for a in S))
            out = f if out is None else out * f
        return np.array(out, dtype=np.float64).reshape(-1)

    def min(self) -> float:
        """The smallest cell of ``p``: the product of the parts' smallest cells (non-negative factors)."""
        return float(np.prod([float(g.min()) for g in self.tables] +
                             [float(self.single[a].min()) for a in range(self.d) if self.where[a] < 0]))

    def table(self) -> np.ndarray:
        """The ``2^d`` table ``Π_C g_C`` (a new, writable array): :meth:`_table_numpy`, or its compiled form
        :func:`dpbook._component_numba.table_into` (the same bytes)."""
        kernels = _component_kernels()
        if kernels is None:
            return self._table_numpy()
        self._packed()
        out = np.empty(1 << self.d)
        kernels.table_into(out, self.single, self.buffer, self._starts, self._attrs, self._attr_starts,
                           np.array([a for a in range(self.d) if self.where[a] < 0], dtype=np.int64))
        return out

    def _table_numpy(self) -> np.ndarray:
        """The ``2^d`` table: the parts' tables (then the free attributes' rows) multiplied in order."""
        t = None
        pieces = list(zip(self.parts, self.tables)) + [((a,), self.single[a]) for a in range(self.d)
                                                          if self.where[a] < 0]
        for C, g in pieces:
            f = np.reshape(self._sorted(g, C), tuple(2 if a in C else 1 for a in range(self.d)))
            t = f if t is None else t * f
        return np.broadcast_to(t, (2,) * self.d).reshape(-1).copy()

    @staticmethod
    def _sorted(g, C):
        """A part's table as a ``(2,)*|C|`` array with its attributes in increasing order."""
        return np.transpose(np.reshape(g, (2,) * len(C)), np.argsort(C))

    def pair_tables(self) -> np.ndarray:
        """``T[a, v, b, w] = p(x_a = v, x_b = w)`` for every pair of attributes (``T[a, v, a, v] = p(x_a = v)``):
        within a part from its superset sums ``s_z = Σ_{y ⊇ z} g_y`` (additions along each axis) by inclusion–
        exclusion (``p(1, 1) = s_ab``, ``p(1, 0) = s_a − s_ab``, ``p(0, 0) = s_∅ − s_a − s_b + s_ab``); across
        parts the product of the 1-way marginals (independent).  Compiled when available
        (:func:`dpbook._component_numba.pair_tables_into`: the same bytes)."""
        if self._pairs is not None:
            return self._pairs
        kernels = _component_kernels()
        if kernels is None:
            self._pairs = self._pair_tables_numpy()
            return self._pairs
        self._packed()
        T = np.empty((self.d, 2, self.d, 2))
        kernels.pair_tables_into(T, self.single, self.buffer, self._starts, self._attrs, self._attr_starts,
                                 _LOW_BITS, self._scratch)
        self._pairs = T
        return T

    def _pair_tables_numpy(self) -> np.ndarray:
        """:meth:`pair_tables` by numpy (the reference)."""
        d = self.d
        one = self.single.copy()
        within = []
        for C, g in zip(self.parts, self.tables):
            i, j, total, ones, both = _pair_sums(g, len(C))
            attrs = np.array(C, dtype=np.int64)
            one[attrs, 1] = ones
            one[attrs, 0] = total - ones
            within.append((attrs[i], attrs[j], total, ones[i], ones[j], both))
        T = one[:, :, None, None] * one[None, None, :, :]
        at = np.arange(d)
        T[at, 0, at, 0], T[at, 1, at, 1] = one[:, 0], one[:, 1]
        for a, b, total, sa, sb, sab in within:
            cells = ((1, 1, sab), (1, 0, sa - sab), (0, 1, sb - sab), (0, 0, total - sa - sb + sab))
            for v, w, value in cells:
                T[a, v, b, w] = value
                T[b, w, a, v] = value
        return T

    def candidate_tables(self, plan) -> np.ndarray:
        """``plan.counts`` of the table (clipped at 0): every candidate's marginal from :meth:`pair_tables`."""
        if not hasattr(plan, "_candidate_index"):
            plan._candidate_index = _pair_index(plan, _candidate_cells(plan))
        return np.maximum(self.pair_tables().reshape(-1)[plan._candidate_index], 0.0)
