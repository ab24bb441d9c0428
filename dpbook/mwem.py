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

Module map: :func:`mwem` and :func:`mwem_practical` (the mechanisms); :func:`check_mwem_inputs` (what every
variant validates); the engine :func:`mwem_rounds` (the loop), :func:`mwem_ledger`, :func:`mwem_release`, shared with
the broken twins of :mod:`dpbook.broken.mwem`.
"""
from __future__ import annotations

import numpy as np

from .exponential import exponential_mechanism
from .multiplicative_weights import marginal_layout, mw_update
from .noise import laplace_noise
from .queries import check_database
from .release import Ledger, Release, Spend
from .theory.composition import tight_per_step_epsilon
from .contract import example, mechanism_prologue
from .validation import (real_dtype, EPSILON_EXP_MAX, EPSILON_RANGE, check_choice, check_delta, check_entry_range, check_epsilon,
                         check_int, check_real, check_work)

__all__ = ["mwem", "mwem_practical", "advanced_step_epsilon"]
# The engine (documented, shared with dpbook.broken.mwem, not in __all__, which the bad-input sweep of
# tests/test_api_coverage.py and the audit coverage walk): check_mwem_inputs (the checks of every variant: it
# takes epsilon and rng but releases nothing; tests/test_mwem.py sweeps it), and mwem_rounds, mwem_ledger,
# mwem_release, which take validated inputs.


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
                      sampler=laplace_noise, neighbours=None):
    """The inputs every MWEM variant checks, in one place (also for :mod:`dpbook.broken.mwem`).

    The histogram and the workload over the same universe (:func:`~dpbook.queries.check_database`), then the
    mechanisms' prologue (:func:`dpbook.contract.mechanism_prologue`: ``epsilon``, ``delta``, ``rng``, the
    continuous Laplace ``sampler`` — measured counts of fractional queries are reals —, the public ``n``,
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
                           family="laplace", lattice_ok=False)
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
