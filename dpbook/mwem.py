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
from .validation import check_work, check_epsilon, check_int, check_trials

__all__ = ["mwem"]


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


def _replay(P: np.ndarray, W, selected: np.ndarray, measured: np.ndarray, n: int) -> None:
    """One sweep of the MW update over every measurement so far (HLM12's practical variant; post-processing)."""
    for s in range(selected.shape[1]):                        # all trials at once, measurement by measurement
        picks = selected[:, s]
        here = _picked_answers(W, P, picks)
        _update(P, W, picks, (measured[:, s] - n * here) / (2.0 * n))


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
                  select=lambda scores, g: _select(scores, epsilon_select, g), measure_scale=1.0 / epsilon_measure)
    ledger = tuple(Spend(f"round {i + 1}: {step}", eps) for i in range(T)
                   for step, eps in (("exponential mechanism (select)", epsilon_select),
                                     ("laplace (measure)", epsilon_measure)))
    return _release(out, trials, "mwem", epsilon, 1.0 / (epsilon_measure * n), ledger, neighbours=neighbours,
                    T=T, n=n, replay=replay, epsilon_select=epsilon_select, epsilon_measure=epsilon_measure)


def _check_inputs(x, workload, T, n, replay, trials, rng, sampler):
    x, W = check_database(x, workload)
    T = check_int("T", T, low=1)
    n = int(x.sum()) if n is None else check_int("n", n, low=1)
    replay = check_int("replay", replay, low=0)
    R = 1 if trials is None else check_trials(trials)
    check_work(trials=R, T=T, **{"m + N": W.m + W.N})      # T rounds over (R, m) answers and (R, N) hypotheses
    noise = as_noise(sampler, family="laplace", lattice_ok=False)   # measured counts of fractional queries
    return x, W, T, n, replay, R, as_generator(rng), noise


def _rounds(x, W, *, T, n, replay, R, rng, sampler, select, measure_scale, sign=1.0) -> dict:
    """The MWEM loop for ``R`` independent runs; ``select(scores, rng)`` picks one query per run (counts)."""
    true_counts = W.counts(x.astype(np.float64))       # q(B) for every query
    P = np.full((R, W.N), 1.0 / W.N)                                          # A_0 / n, uniform
    P_sum = np.zeros_like(P)
    hyp = W.counts(P)                                            # q(A_0)/n, shape (R, m)
    answers_sum = np.zeros_like(hyp)
    selected = np.empty((R, T), dtype=np.int64)
    measurements = np.empty((R, T))
    rows = np.arange(R)
    for i in range(T):
        picks = select(np.abs(n * hyp - true_counts), rng)                                 # 1. select
        measured = true_counts[picks] + sampler(measure_scale, (R,), rng)                  # 2. measure
        coefficient = sign * (measured - n * hyp[rows, picks]) / (2.0 * n)                 # 3. update
        _update(P, W, picks, coefficient)
        selected[:, i], measurements[:, i] = picks, measured
        for _ in range(replay):                                                            # post-processing
            _replay(P, W, selected[:, :i + 1], measurements[:, :i + 1], n)
        hyp = W.counts(P)
        answers_sum += hyp
        P_sum += P
    return {"answers": answers_sum / T, "answers_last": hyp, "synthetic": P_sum / T, "selected": selected,
            "measurements": measurements}


def _release(out: dict, trials, name, epsilon, noise_scale, ledger, neighbours="add/remove", **extra) -> Release:
    if trials is None:
        out = {key: value[0] for key, value in out.items()}
    answers = out.pop("answers")
    return Release(answers, epsilon, 0.0, name, noise_scale=noise_scale, ledger=ledger, trace={**out, **extra},
                   neighbours=neighbours)
