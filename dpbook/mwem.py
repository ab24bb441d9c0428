"""MWEM — offline multiplicative weights with the exponential mechanism (Hardt–Ligett–McSherry 2012; chapter 07).

THEOREMS.md "MWEM (Hardt–Ligett–McSherry 2012)" [RECALLED], the practical instance of IDC-Alg3.  Counts are
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

Speed.  Hypotheses live as probability vectors ``p = A/n`` (shape ``(trials, N)``, all trials at once).  For
marginal workloads (:class:`dpbook.queries.MarginalWorkload`) the answers of every hypothesis come from
``W.counts(P)`` (a superset-sum transform: ``d`` in-place pairwise sums of the reshaped ``(2,)*d`` cube, then
inclusion–exclusion over each cell's ``2^k`` corners — never an ``m × |X|`` matrix), and the update
multiplies only the slabs of the reshaped cube that change (:func:`dpbook.multiplicative_weights.
marginal_cell_update`).  Other workloads use ``workload.counts`` and the general vectorised update.
"""
from __future__ import annotations

import numpy as np

from .exponential import exponential_mechanism
from .multiplicative_weights import _SLAB_SAFE, marginal_cell_update, multiplicative_weights_update
from .noise import as_generator, as_noise, laplace
from .queries import MarginalWorkload, check_database
from .release import Release, Spend
from .validation import check_epsilon, check_int, check_public_n, check_real, check_trials, check_work

__all__ = ["mwem", "mwem_practical"]


# --------------------------------------------------------------------------- answering on hypotheses

def _picked_answers(W, P: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """``q_{picks[t]}(P[t])`` for every row ``t`` (one query per trial)."""
    if isinstance(W, MarginalWorkload):
        if P.shape[0] <= 16:                                  # few trials: sum each cell's slab
            return np.array([_cell_answer(row, W, int(j)) for row, j in zip(P, picks)])
        g = W.superset_sums(P)                                # many: the corners of the picked cells
        return np.asarray(W.corner_matrix()[picks].multiply(g).sum(axis=1)).ravel()
    return np.einsum("tn,tn->t", np.stack([W.query(int(j)) for j in picks]), P)


# --------------------------------------------------------------------------- the mechanism

def _select(scores: np.ndarray, epsilon_select: float, rng) -> np.ndarray:
    """One exponential-mechanism pick per row of ``scores`` (counts, sensitivity 1)."""
    return exponential_mechanism(scores, epsilon=epsilon_select, sensitivity=1.0, rng=rng)


def _cell_answer(p: np.ndarray, W: MarginalWorkload, j: int) -> float:
    """``q_j(p)`` for one marginal cell: the sum of its slab of the reshaped cube."""
    S, v = W.cells[j]
    where = dict(zip(S, v))
    return float(p.reshape((2,) * W.d)[tuple(where.get(a, slice(None)) for a in range(W.d))].sum())


def _update(P: np.ndarray, W, picks: np.ndarray, coefficient: np.ndarray) -> None:
    """``P[t] ∝ P[t] · exp(coefficient[t] · q_{picks[t]})`` for every trial ``t``, in place.

    Marginal cells: one trial → :func:`marginal_cell_update` (touches only the changing slabs).  Many trials →
    all rows at once: ``P *= e^{−max(c,0)}``, then each picked cell's slab (grouped by cell, a loop over the
    distinct picks, not over ``|X|``) ``*= e^{c}``, then renormalise; ``|c| > 30`` rows take the guarded path.
    """
    if not isinstance(W, MarginalWorkload):
        Q = np.stack([W.query(int(j)) for j in picks])
        multiplicative_weights_update(P, Q, coefficient, out=P, check=False)
        return
    if P.shape[0] == 1 or np.any(np.abs(coefficient) > _SLAB_SAFE):
        for t, (j, c) in enumerate(zip(picks, coefficient)):
            S, v = W.cells[j]
            marginal_cell_update(P[t], W.d, S, v, float(c), out=P[t], check=False)
        return
    P *= np.exp(-np.maximum(coefficient, 0.0))[:, None]
    ratio = np.exp(coefficient)                                # e^c on the cell, relative to the rest
    cube = P.reshape((P.shape[0],) + (2,) * W.d)
    for j in np.unique(picks):
        rows = np.flatnonzero(picks == j)
        S, v = W.cells[j]
        where = dict(zip(S, v))
        index = (rows,) + tuple(where.get(a, slice(None)) for a in range(W.d))
        cube[index] *= ratio[rows].reshape((-1,) + (1,) * (W.d - len(S)))
    P /= P.sum(axis=1, keepdims=True)


def mwem(x, workload, *, epsilon, T, n=None, replay=0, trials=None, rng=None, sampler=laplace) -> Release:
    """MWEM (HLM12, THEOREMS.md [RECALLED]): ``T`` rounds of select / measure / multiplicative-weights update.

    ``x``: histogram; ``workload``: linear queries in ``[0,1]^N`` (a :class:`MarginalWorkload` is fastest);
    ``epsilon``: total budget (pure ε-DP, basic composition); ``T``: rounds; ``n``: the public record count
    (the claim then holds under add/remove neighbours; by default ``||x||_1``, read from the data, and the
    claim is made under replace-one neighbours, where ``n`` is the same for both databases); ``replay``: after each round, sweep the update
    over all measurements so far this many more times (HLM12's practical improvement [RECALLED]; it only
    post-processes the transcript, so the privacy accounting is unchanged; ``0`` is the algorithm as
    THEOREMS.md states it and the only one the accuracy bound covers); ``trials``: that many independent
    runs at once; ``sampler(scale, size, rng)``: the Laplace sampler.  Returns a :class:`Release` whose
    ``answers`` are the normalised answers ``q(Ā)/n`` of the averaged hypothesis; ``trace`` holds
    ``synthetic`` (``Ā/n``), ``answers_last`` (``q(A_T)/n``), ``selected`` and ``measurements`` (the
    transcript, in counts).
    """
    neighbours = "replace-one" if n is None else "add/remove"      # n read from the data is public only then
    x, W, T, n, replay, R, rng, sampler = _check_inputs(x, workload, T, n, replay, trials, rng, sampler)
    epsilon = check_epsilon(epsilon)
    # ---- budget split (basic composition over 2T primitive steps): they sum to ε
    epsilon_select = epsilon / (2 * T)          # exponential mechanism, score |q(A) - q(B)|, sensitivity 1
    epsilon_measure = epsilon / (2 * T)         # Laplace on one count: Lap(1/epsilon_measure) = Lap(2T/ε)

    out = _rounds(x, W, T=T, n=n, replay=replay, R=R, rng=rng, sampler=sampler,
                  select=lambda scores, i, allowed, g: _select(scores, epsilon_select, g),
                  measure_scale=[1.0 / epsilon_measure] * T)
    ledger = tuple(Spend(f"round {i + 1}: {step}", eps) for i in range(T)
                   for step, eps in (("exponential mechanism (select)", epsilon_select),
                                     ("laplace (measure)", epsilon_measure)))
    return _release(out, trials, "mwem", epsilon, 1.0 / (epsilon_measure * n), ledger, neighbours=neighbours,
                    T=T, n=n, replay=replay, epsilon_select=epsilon_select, epsilon_measure=epsilon_measure)


def mwem_practical(x, workload, *, epsilon, T, n=None, measure="marginal", output="last", replay="converge",
                   exclude_measured=True, select_share=0.5, round_weights=None, neighbours="add/remove",
                   trials=None, rng=None, sampler=laplace) -> Release:
    """MWEM as people run it (THEOREMS.md "MWEM (Hardt–Ligett–McSherry 2012)" [RECALLED] and the practical
    improvements of Hardt, Ligett, McSherry, "A Simple and Practical Algorithm for Differentially Private Data
    Release", NeurIPS 2012): the same loop as :func:`mwem`, with five switches.

    * ``measure="marginal"``: a *unit* is one marginal — every cell of the workload with the same attribute
      set ``S``.  Round ``i`` selects a unit with the exponential mechanism on its L1 error
      ``Σ_{c∈S} |c(A) − c(B)|`` and measures all its cells, ``m_c = c(B) + Lap(Δ/ε_measure,i)``; then one MW
      update with every measured cell at once (disjoint slabs).  ``"cell"``: a unit is one cell (the theorem).
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
    cell counts, the largest over the units: a unit's cells share ``S`` and are disjoint, so one added or
    removed row changes at most one of them by 1 (``Δ = 1``, :meth:`MarginalWorkload.l1_sensitivity` of the
    unit) and one replaced row moves a count from one cell to another (``Δ = 2`` if the unit has two or more
    cells, 1 if one).  (i) The score of a unit, its L1 error, changes by at most ``Δ`` (triangle inequality;
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
    return _practical(x, workload, epsilon=epsilon, T=T, n=n, measure=measure, output=output, replay=replay,
                      exclude_measured=exclude_measured, select_share=select_share, round_weights=round_weights,
                      neighbours=neighbours, trials=trials, rng=rng, sampler=sampler, name="mwem (practical)")


def _practical(x, workload, *, epsilon, T, n, measure, output, replay, exclude_measured, select_share, round_weights,
               neighbours, trials, rng, sampler, name, charged_sensitivity=None) -> Release:
    """The body of :func:`mwem_practical`; ``charged_sensitivity`` exists only for the broken twin."""
    if neighbours == "add/remove" and n is None:      # the sensitivity below is the add/remove one: n must be public
        check_public_n(n, x, require=True)
    x, W, T, n, _, R, rng, sampler = _check_inputs(x, workload, T, n, 0, trials, rng, sampler)
    epsilon = check_epsilon(epsilon)
    measure = _check_choice("measure", measure, ("marginal", "cell"))
    output = _check_choice("output", output, ("last", "average"))
    neighbours = _check_choice("neighbours", neighbours, ("add/remove", "replace-one"))
    if not (isinstance(replay, str) and replay == "converge"):
        replay = check_int("replay", replay, low=0)
    if not isinstance(exclude_measured, (bool, np.bool_)):
        raise TypeError(f"exclude_measured must be True or False, got {type(exclude_measured).__name__}")
    select_share = check_real("select_share", select_share, low=0.0, high=1.0, low_open=True, high_open=True)
    weights = _round_weights(round_weights, T)
    if measure == "marginal" and not isinstance(W, MarginalWorkload):
        raise TypeError(f"measure='marginal' needs a MarginalWorkload, got {type(W).__name__}; use measure='cell'")
    units = _units(W, measure)
    if exclude_measured and T > units.shape[0]:
        raise ValueError(f"T ({T}) must be at most the number of units ({units.shape[0]}) when exclude_measured")
    sizes = (units >= 0).sum(axis=1)
    if neighbours == "add/remove":
        sensitivity = max(MarginalWorkload(W.d, [W.cells[j] for j in units[u][units[u] >= 0]]).l1_sensitivity()
                          for u in range(units.shape[0])) if isinstance(W, MarginalWorkload) else 1.0
    else:
        sensitivity = 2.0 if sizes.max() >= 2 else 1.0
    if charged_sensitivity is not None:
        sensitivity = charged_sensitivity
    # ---- the budget: round i gets epsilon * w_i, split between selection and measurement; they sum to ε
    epsilon_round = epsilon * weights
    epsilon_select = select_share * epsilon_round
    epsilon_measure = epsilon_round - epsilon_select

    def select(scores, i, allowed, g):
        return _select_among(scores, epsilon_select[i], sensitivity, allowed, g)

    out = _rounds(x, W, T=T, n=n, replay=replay, R=R, rng=rng, sampler=sampler, select=select,
                  measure_scale=sensitivity / epsilon_measure, groups=None if measure == "cell" else units,
                  exclude=bool(exclude_measured), tol=_TOL_SHARE * sensitivity / (float(epsilon_measure.max()) * n))
    if measure == "cell":
        out["measurements"] = out["measurements"][..., None]
    if output == "last":
        out["answers_average"], out["answers"] = out["answers"], out["answers_last"]
    unit = "a marginal" if measure == "marginal" else "a cell"
    ledger = tuple(Spend(f"round {i + 1}: {step}", float(eps)) for i in range(T)
                   for step, eps in ((f"exponential mechanism (select {unit}, Δ={sensitivity:g})", epsilon_select[i]),
                                     (f"laplace (measure {unit}, Δ={sensitivity:g})", epsilon_measure[i])))
    return _release(out, trials, name, epsilon, sensitivity / (float(epsilon_measure.min()) * n),
                    ledger, neighbours=neighbours, T=T, n=n, measure=measure, output=output, replay=replay,
                    exclude_measured=bool(exclude_measured), units=units, sensitivity=sensitivity,
                    epsilon_select=epsilon_select, epsilon_measure=epsilon_measure)


def _check_choice(name, value, choices):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {choices}, got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} ({value!r}) must be one of {choices}")
    return value


def _round_weights(round_weights, T):
    if round_weights is None:
        return np.full(T, 1.0 / T)
    w = np.asarray(round_weights)
    if w.dtype == object or w.dtype == bool or not np.issubdtype(w.dtype, np.number):
        raise TypeError(f"round_weights must be a sequence of T positive numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if w.shape != (T,):
        raise ValueError(f"round_weights must have one weight per round (shape ({T},)), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("round_weights must be finite and > 0")
    return w / w.sum()


def _units(W, measure):
    """The ``(G, g)`` cell indices of each unit (``-1`` padded): one cell each, or the cells sharing ``S``."""
    if measure == "cell":
        return np.arange(W.m)[:, None]
    by_set = {}
    for j, (S, _) in enumerate(W.cells):
        by_set.setdefault(tuple(sorted(S)), []).append(j)
    g = max(len(v) for v in by_set.values())
    return np.array([v + [-1] * (g - len(v)) for v in by_set.values()], dtype=np.int64)


def _select_among(scores, epsilon_select, sensitivity, allowed, rng):
    """The exponential mechanism per row (score sensitivity ``sensitivity``), over the allowed units only."""
    if allowed is None:
        return exponential_mechanism(scores, epsilon=epsilon_select, sensitivity=sensitivity, rng=rng)
    u = np.where(allowed, scores, -np.inf)
    logits = epsilon_select * (u - u.max(axis=1, keepdims=True)) / (2.0 * sensitivity)   # -inf: weight 0
    return np.argmax(logits + rng.gumbel(size=u.shape), axis=1)


def _check_inputs(x, workload, T, n, replay, trials, rng, sampler):
    x, W = check_database(x, workload)
    T = check_int("T", T, low=1)
    n = int(x.sum()) if n is None else check_int("n", n, low=1)
    replay = check_int("replay", replay, low=0)
    R = 1 if trials is None else check_trials(trials)
    check_work(trials=R, T=T, **{"m + N": W.m + W.N})      # T rounds over (R, m) answers and (R, N) hypotheses
    noise = as_noise(sampler, family="laplace", lattice_ok=False)   # measured counts of fractional queries
    return x, W, T, n, replay, R, as_generator(rng), noise


def _rounds(x, W, *, T, n, R, rng, sampler, select, measure_scale, groups=None, exclude=False, replay=0,
            tol=0.0, sign=1.0) -> dict:
    """The MWEM loop for ``R`` independent runs (the theorem's and every practical variant's).

    ``groups``: the units of selection and measurement, a padded ``(G, g)`` array of cell indices (``-1`` =
    padding); ``None`` is the theorem's one cell per unit.  ``select(scores, i, allowed, rng)`` picks one
    unit per run from the ``(R, G)`` scores (the L1 error of each unit, in counts) at round ``i``;
    ``allowed`` is ``None`` or the ``(R, G)`` mask of units not yet measured (``exclude``).
    ``measure_scale[i]``: the Laplace scale of round ``i``'s measurements, in counts.  ``replay``: sweeps of
    the update over every measurement so far after each round (an int, or ``"converge"``).
    """
    true_counts = W.counts(x.astype(np.float64))       # q(B) for every query
    P = np.full((R, W.N), 1.0 / W.N)                                          # A_0 / n, uniform
    P_sum = np.zeros_like(P)
    hyp = W.counts(P)                                            # q(A_0)/n, shape (R, m)
    answers_sum = np.zeros_like(hyp)
    cells = np.arange(W.m)[:, None] if groups is None else groups                 # (G, g) cell indices
    real = cells >= 0
    selected = np.empty((R, T), dtype=np.int64)
    measurements = np.empty((R, T, cells.shape[1]))
    allowed = np.ones((R, cells.shape[0]), dtype=bool) if exclude else None
    rows = np.arange(R)
    layout = None if groups is None else _Layout(W, groups)
    sweeps = []
    for i in range(T):
        error = np.abs(n * hyp - true_counts)
        scores = error if groups is None else (error[:, cells] * real).sum(axis=2)          # L1 error per unit
        picks = select(scores, i, allowed, rng)                                            # 1. select
        measured_cells = cells[picks]                                                      # (R, g)
        noise = sampler(measure_scale[i], (R,) if groups is None else measured_cells.shape, rng)
        measured = true_counts[measured_cells] + noise.reshape(measured_cells.shape)       # 2. measure
        coefficient = sign * (measured - n * hyp[rows[:, None], measured_cells]) / (2.0 * n)   # 3. update
        _apply(P, W, picks, cells, coefficient, layout)
        selected[:, i], measurements[:, i] = picks, measured
        if exclude:
            allowed[rows, picks] = False
        so_far = measurements[:, :i + 1] if groups is not None else measurements[:, :i + 1, 0]
        sweeps.append(_replay(P, W, selected[:, :i + 1], so_far, n, replay, layout, tol))   # post-processing
        hyp = W.counts(P)
        answers_sum += hyp
        P_sum += P
    return {"answers": answers_sum / T, "answers_last": hyp, "synthetic": P_sum / T, "synthetic_last": P,
            "selected": selected, "measurements": measurements[:, :, 0] if groups is None else measurements,
            "replay_sweeps": np.column_stack(sweeps)}


# --------------------------------------------------------------------------- updates on whole marginals

class _Layout:
    """Per unit (cells sharing an attribute set ``S``): ``S`` sorted, each cell's index in the ``(2,)*|S|``
    grid (``flat``, ``-1`` padded), and the merged block shape of the cube (the attributes of ``S`` stay axes
    of length 2; each run of other attributes becomes one axis) with the axes a marginal sums away."""

    def __init__(self, W, units):
        self.d, self.units, self.sets, self.shapes, self.away, self.fshapes = W.d, units, [], [], [], []
        self.flat = np.full(units.shape, -1, dtype=np.int64)
        for u, row in enumerate(units):
            S = tuple(sorted(W.cells[row[0]][0]))
            for t, j in enumerate(row[row >= 0]):
                where = dict(zip(*W.cells[j]))
                self.flat[u, t] = sum(where[a] << (len(S) - 1 - s) for s, a in enumerate(S))
            shape, keep, run = [], [], 0
            for a in range(W.d):
                if a in S:
                    if run:
                        shape.append(1 << run)
                        run = 0
                    keep.append(len(shape))
                    shape.append(2)
                else:
                    run += 1
            if run:
                shape.append(1 << run)
            self.sets.append(S)
            self.shapes.append(tuple(shape))
            self.away.append(tuple(1 + t for t in range(len(shape)) if t not in keep))
            self.fshapes.append(tuple(2 if t in keep else 1 for t in range(len(shape))))
        self.width = 1 << max(len(S) for S in self.sets)
        self.real = [self.flat[u][self.flat[u] >= 0] for u in range(len(self.sets))]       # one run's fast path
        self.away1 = [tuple(t - 1 for t in away) for away in self.away]
        self.ordered = [np.array_equal(r, np.arange(1 << len(S))) for r, S in zip(self.real, self.sets)]

    def step_one(self, p, u, measured, n):
        """:meth:`tables` + :meth:`update` for a single run ``p`` (shape ``(N,)``) on unit ``u``, in place, with
        the fewest numpy calls (replay makes thousands of these); returns the cell answers before the update."""
        table = _marginal_sum(p, self.shapes[u], self.away1[u])
        if self.ordered[u]:                                       # the unit is the whole grid, in order
            here = table
            grid = (measured - n * here) / (2.0 * n)
        else:
            here = table[self.real[u]]
            grid = np.zeros(table.size)
            grid[self.real[u]] = (measured - n * here) / (2.0 * n)
        grid -= grid.max()
        factor = np.exp(grid)
        total = table @ factor
        if not total > 1e-250:                                   # underflow guard (tiny ε only)
            self._scale(p, u, factor)
            p[...] = _log_space_renormalise(p)
            return here
        factor /= total
        self._scale(p, u, factor)
        return here

    def _scale(self, p, u, factor):
        """``p *= factor[x_S]`` in one pass.  Broadcasting a ``(.., 2, .., 2)`` factor over short trailing axes is
        slow in numpy, so the factor is laid out over the whole suffix from ``S``'s first axis on when that
        suffix is small (``<= 2^16``), and the cube multiplied row by row."""
        shape, fshape = self.shapes[u], self.fshapes[u]
        if p.size <= 1 << 14:
            p.reshape(shape)[...] *= factor.reshape(fshape)
            return
        t0 = fshape.index(2)
        suffix = int(np.prod(shape[t0:]))
        if suffix <= 1 << 16:
            tile = np.broadcast_to(factor.reshape(fshape[t0:]), shape[t0:]).reshape(-1)
            if suffix < 4096 and p.size >= 4096:          # short rows: repeat the tile to rows of 4096
                tile, suffix = np.tile(tile, 4096 // suffix), 4096
            p.reshape(-1, suffix)[...] *= tile
        else:
            p.reshape(shape)[...] *= factor.reshape(fshape)

    def tables(self, P, picks):
        """Each run's marginal table of ``P`` on its picked unit's ``S``: ``(R, 2^|S|)`` (flattened grid)."""
        R = P.shape[0]
        out = np.zeros((R, self.width))
        for u in np.unique(picks):
            rows = np.flatnonzero(picks == u)
            block = (P if rows.size == R else P[rows]).reshape((rows.size,) + self.shapes[u])
            out[rows, :1 << len(self.sets[u])] = block.sum(axis=self.away[u]).reshape(rows.size, -1)
        return out

    def cell_answers(self, tables, picks):
        """The picked units' cell answers read off the tables: ``(R, g)`` (0 on padding)."""
        flat = self.flat[picks]
        return np.where(flat >= 0, np.take_along_axis(tables, np.maximum(flat, 0), axis=1), 0.0)

    def update(self, P, picks, coefficient, tables) -> None:
        """``P[t] ∝ P[t] · exp(Σ_{c in the unit} coefficient[t, c] · q_c)``: the cells of one marginal are
        disjoint slabs, so this is one multiply by a ``(2,)*|S|`` factor grid broadcast over the cube, and the
        normaliser ``Σ_v table_v e^{c_v}`` comes from the marginal table (one pass in all).  Factors are
        shifted by the row's largest coefficient (``<= 1``: no overflow); a row whose normaliser underflows
        is renormalised in log space."""
        R = P.shape[0]
        for u in np.unique(picks):
            rows = np.flatnonzero(picks == u)
            size = 1 << len(self.sets[u])
            real = self.flat[u] >= 0
            grid = np.zeros((rows.size, size))
            grid[:, self.flat[u][real]] = coefficient[rows][:, real]
            grid -= grid.max(axis=1, keepdims=True)
            factor = np.exp(grid)
            total = (tables[rows, :size] * factor).sum(axis=1)
            ok = total > 1e-250
            factor[ok] /= total[ok, None]
            f = factor.reshape((rows.size,) + self.fshapes[u])
            cube = P.reshape((R,) + self.shapes[u])
            if rows.size == R:
                cube *= f
            else:
                cube[rows] *= f
            for t in rows[~ok]:                                   # underflow guard (tiny ε only)
                P[t] = _log_space_renormalise(P[t])


def _marginal_sum(p, shape, away) -> np.ndarray:
    """The flattened table of ``p`` (viewed with ``shape``) summed over the axes ``away`` — the same numbers as
    ``p.reshape(shape).sum(axis=away).ravel()``, which numpy computes up to 100x slower than a copy when the kept
    axes are short and innermost.  Here each reduction is a sum over the leading axis of a C-contiguous block
    whose rows are made at least 512 long.  Small universes (``<= 2^14``) take numpy's sum: there the cost is
    the call overhead, not memory."""
    if p.size <= 1 << 14:
        return p.reshape(shape).sum(axis=away).reshape(-1)
    arr, pre = p.reshape(1, -1), 1
    for t, size in enumerate(shape):
        if t not in away:
            pre *= size                                   # a kept axis: it joins the leading (kept) part
            arr = arr.reshape(pre, -1)
            continue
        after = arr.shape[1] // size
        arr = np.stack([_sum_leading(block.reshape(size, after)) for block in arr])
    return arr.reshape(-1)


def _sum_leading(block) -> np.ndarray:
    M, B = block.shape
    if M <= 16:                                           # few long rows: add them (numpy's reduce is slow here)
        out = block[0].copy()
        for row in block[1:]:
            out += row
        return out
    if B >= 512:
        return block.sum(axis=0)
    r = min(M, 512 // B)                                  # powers of two: r divides M
    return block.reshape(M // r, r * B).sum(axis=0).reshape(r, B).sum(axis=0)


def _apply(P, W, picks, cells, coefficient, layout) -> None:
    """The MW update of every run on its picked unit: one cell (the theorem) or a whole marginal."""
    if layout is None:
        _update(P, W, cells[picks, 0], coefficient[:, 0])
    else:
        layout.update(P, picks, coefficient, layout.tables(P, picks))


def _log_space_renormalise(p):
    with np.errstate(divide="ignore", under="ignore"):
        g = np.log(np.maximum(p, 0.0))
    if not np.any(np.isfinite(g)):
        return np.full_like(p, 1.0 / p.size)
    g -= g[np.isfinite(g)].max()
    g = np.exp(g)
    return g / g.sum()


def _replay(P, W, selected, measured, n, replay=0, layout=None, tol=0.0):
    """Sweeps of the MW update over every measurement so far (HLM12's practical variant; post-processing).

    ``replay`` sweeps, or ``"converge"``: sweep until no measured answer (normalised) moves by more than
    ``tol`` in a sweep, at most ``_MAX_SWEEPS``.  Whole marginals replay run by run (each run converges on its
    own, with the one-run kernel :meth:`_Layout.step_one`); returns the sweeps made, per run.
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
            answers[:, s] = here = _picked_answers(W, P, picks)
            _update(P, W, picks, (measured[:, s] - n * here) / (2.0 * n))
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


def _release(out: dict, trials, name, epsilon, noise_scale, ledger, neighbours="add/remove", **extra) -> Release:
    if trials is None:
        out = {key: value[0] for key, value in out.items()}
    answers = out.pop("answers")
    return Release(answers, epsilon, 0.0, name, noise_scale=noise_scale, ledger=ledger, neighbours=neighbours,
                   trace={**out, **extra})
