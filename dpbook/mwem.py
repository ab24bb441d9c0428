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
:func:`marginal_counts` (a superset-sum transform: ``d`` in-place pairwise sums of the reshaped ``(2,)*d``
cube, then inclusion–exclusion over each cell's ``2^k`` corners — never an ``m × |X|`` matrix), and the update
multiplies only the slabs of the reshaped cube that change (:func:`dpbook.multiplicative_weights.
marginal_cell_update`).  Other workloads use ``workload.counts`` and the general vectorised update.
"""
from __future__ import annotations

import functools
import itertools
import weakref

import numpy as np
import scipy.sparse as sp

from .exponential import exponential_mechanism
from .multiplicative_weights import _SLAB_SAFE, marginal_cell_update, multiplicative_weights_update
from .noise import as_generator, laplace
from .queries import MarginalWorkload, MatrixWorkload, as_workload
from .release import Release, Spend
from .validation import check_epsilon, check_histogram, check_int

__all__ = ["mwem", "marginal_counts", "hypothesis_counts", "explore_mwem", "cancer_4way_cells"]


# --------------------------------------------------------------------------- answering on hypotheses

_CORNERS: "weakref.WeakKeyDictionary[MarginalWorkload, sp.csr_matrix]" = weakref.WeakKeyDictionary()


def _inclusion_exclusion(W: MarginalWorkload) -> sp.csr_matrix:
    """The sparse ``m × N`` matrix ``C`` with ``P[x_S = v] = Σ_z C[j, z] g[z]``: ``±1`` at the ``2^|S|`` corners
    ``z = ones(v) ∪ Z``, ``Z ⊆ zeros(v)``, sign ``(−1)^{|Z|}`` (cached per workload)."""
    if W in _CORNERS:
        return _CORNERS[W]
    rows, cols, signs = [], [], []
    for j, (S, v) in enumerate(W.cells):
        ones = sum(1 << (W.d - 1 - a) for a, b in zip(S, v) if b == 1)
        zeros = [1 << (W.d - 1 - a) for a, b in zip(S, v) if b == 0]
        for r in range(len(zeros) + 1):
            for Z in itertools.combinations(zeros, r):
                rows.append(j)
                cols.append(ones + sum(Z))
                signs.append((-1.0) ** r)
    C = sp.csr_matrix((signs, (rows, cols)), shape=(W.m, W.N))
    _CORNERS[W] = C
    return C


def marginal_counts(W: MarginalWorkload, P) -> np.ndarray:
    """``Q @ P`` for a marginal workload and non-negative vectors ``P`` (``(N,)`` or ``(trials, N)``).

    Superset-sum transform: ``g[z] = Σ_{y ⊇ z} P[y]`` (bits as attributes) by ``d`` in-place pairwise sums
    along the axes of the reshaped ``(trials, 2, …, 2)`` cube; then each cell ``(S, v)`` is
    ``Σ_{Z ⊆ zeros(v)} (−1)^{|Z|} g[ones(v) ∪ Z]`` (inclusion–exclusion, ``2^{|S|}`` terms).  Cost ``~d/2`` passes
    over ``P`` whatever ``m`` is.  Equals ``W.counts(P)`` (tests check it).
    """
    if not isinstance(W, MarginalWorkload):
        raise TypeError(f"W must be a MarginalWorkload, got {type(W).__name__}")
    return _marginal_counts(W, _check_P(P, W.N))


def _check_P(P, N: int) -> np.ndarray:
    """Vectors over the universe: numeric, finite, non-negative, shape ``(N,)`` or ``(trials, N)``."""
    arr = np.asarray(P)
    if arr.dtype == object or arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"P must be a numeric array over the universe, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2) or arr.shape[-1] != N:
        raise ValueError(f"P must have shape ({N},) or (trials, {N}), got {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError("P contains NaN or inf; hypotheses and histograms must be finite")
    if arr.min() < 0:
        raise ValueError(f"P has a negative entry ({arr.min()!r}); it must be non-negative")
    return arr


def _marginal_counts(W: MarginalWorkload, P: np.ndarray) -> np.ndarray:
    """:func:`marginal_counts` without input checks (MWEM's inner loop)."""
    g = _superset_sums(P, W.d)
    counts = np.asarray((_inclusion_exclusion(W) @ g.T).T)    # m·2^k non-zeros: a sparse product
    np.maximum(counts, 0.0, out=counts)                       # rounding can leave -1e-17 on an empty cell
    return counts[0] if P.ndim == 1 else counts


def _superset_sums(P: np.ndarray, d: int) -> np.ndarray:
    """``g[z] = Σ_{y ⊇ z} P[y]`` for each row of ``P`` (a new ``(trials, 2^d)`` array)."""
    g = np.array(P, dtype=np.float64, ndmin=2)                # a copy: the transform is in place
    for a in range(d):                                        # axis a: g[.., 0, ..] += g[.., 1, ..]
        block = 1 << (d - 1 - a)                              # contiguous run below axis a
        if 1 < block <= 8:                                    # short runs: numpy's inner loop would be
            cols = g.reshape(-1, 2 * block)                   # `block` long; use `block` long strided
            for j in range(block):                            # column adds instead (~5x faster)
                np.add(cols[:, j], cols[:, block + j], out=cols[:, j])
        else:
            view = g.reshape(-1, 2, block)
            np.add(view[:, 0, :], view[:, 1, :], out=view[:, 0, :])
    return g


def _picked_answers(W, P: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """``q_{picks[t]}(P[t])`` for every row ``t`` (one query per trial)."""
    if isinstance(W, MarginalWorkload):
        if P.shape[0] <= 16:                                  # few trials: sum each cell's slab
            return np.array([_cell_answer(row, W, int(j)) for row, j in zip(P, picks)])
        g = _superset_sums(P, W.d)
        return np.asarray(_inclusion_exclusion(W)[picks].multiply(g).sum(axis=1)).ravel()
    return np.einsum("tn,tn->t", np.stack([W.query(int(j)) for j in picks]), P)


def hypothesis_counts(W, P) -> np.ndarray:
    """``Q @ P`` for any workload and ``P`` of shape ``(trials, N)`` (fast path for marginals)."""
    W = as_workload(W)
    return _hypothesis_counts(W, np.atleast_2d(_check_P(P, W.N)))


def _hypothesis_counts(W, P: np.ndarray) -> np.ndarray:
    if isinstance(W, MarginalWorkload):
        return _marginal_counts(W, P)
    if isinstance(W, MatrixWorkload):
        return np.asarray(W.Q @ P.T, dtype=np.float64).T
    return np.stack([W.counts(row) for row in P])


# --------------------------------------------------------------------------- the mechanism

def _select(scores: np.ndarray, epsilon_select: float, rng) -> np.ndarray:
    """One exponential-mechanism pick per row of ``scores`` (counts, sensitivity 1); rows with equal scores
    share one batched call (same distribution)."""
    if scores.shape[1] == 1:                        # a one-element range: the mechanism can only return it
        return np.zeros(scores.shape[0], dtype=np.int64)
    if np.all(scores == scores[0]):
        return np.atleast_1d(exponential_mechanism(scores[0], epsilon=epsilon_select, sensitivity=1.0,
                                                   trials=scores.shape[0], rng=rng))
    return np.array([exponential_mechanism(s, epsilon=epsilon_select, sensitivity=1.0, rng=rng) for s in scores])


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
    (default ``||x||_1``, treated as public as in HLM12); ``replay``: after each round, sweep the update
    over all measurements so far this many more times (HLM12's practical improvement [RECALLED]; it only
    post-processes the transcript, so the privacy accounting is unchanged; ``0`` is the algorithm as
    THEOREMS.md states it and the only one the accuracy bound covers); ``trials``: that many independent
    runs at once; ``sampler(scale, size, rng)``: the Laplace sampler.  Returns a :class:`Release` whose
    ``answers`` are the normalised answers ``q(Ā)/n`` of the averaged hypothesis; ``trace`` holds
    ``synthetic`` (``Ā/n``), ``answers_last`` (``q(A_T)/n``), ``selected`` and ``measurements`` (the
    transcript, in counts).
    """
    x, W, T, n, replay, R, rng = _check_inputs(x, workload, T, n, replay, trials, rng, sampler)
    epsilon = check_epsilon(epsilon)
    # ---- budget split (basic composition over 2T primitive steps): they sum to ε
    epsilon_select = epsilon / (2 * T)          # exponential mechanism, score |q(A) - q(B)|, sensitivity 1
    epsilon_measure = epsilon / (2 * T)         # Laplace on one count: Lap(1/epsilon_measure) = Lap(2T/ε)

    out = _rounds(x, W, T=T, n=n, replay=replay, R=R, rng=rng, sampler=sampler,
                  select=lambda scores, g: _select(scores, epsilon_select, g), measure_scale=1.0 / epsilon_measure)
    ledger = tuple(Spend(f"round {i + 1}: {step}", eps) for i in range(T)
                   for step, eps in (("exponential mechanism (select)", epsilon_select),
                                     ("laplace (measure)", epsilon_measure)))
    return _release(out, trials, "mwem", epsilon, 1.0 / (epsilon_measure * n), ledger,
                    T=T, n=n, replay=replay, epsilon_select=epsilon_select, epsilon_measure=epsilon_measure)


def _check_inputs(x, workload, T, n, replay, trials, rng, sampler):
    x = check_histogram(x)
    W = as_workload(workload)
    if W.N != x.size:
        raise ValueError(f"workload is over {W.N} universe elements but x has {x.size}")
    T = check_int("T", T, low=1)
    n = int(x.sum()) if n is None else check_int("n", n, low=1)
    replay = check_int("replay", replay, low=0)
    R = 1 if trials is None else check_int("trials", trials, low=1)
    if not callable(sampler):
        raise TypeError(f"sampler must be a callable sampler(scale, size, rng), got {type(sampler).__name__}")
    return x, W, T, n, replay, R, as_generator(rng)


def _rounds(x, W, *, T, n, replay, R, rng, sampler, select, measure_scale, sign=1.0) -> dict:
    """The MWEM loop for ``R`` independent runs; ``select(scores, rng)`` picks one query per run (counts)."""
    true_counts = _hypothesis_counts(W, x[None].astype(np.float64))[0]       # q(B) for every query
    P = np.full((R, W.N), 1.0 / W.N)                                          # A_0 / n, uniform
    P_sum = np.zeros_like(P)
    hyp = _hypothesis_counts(W, P)                                            # q(A_0)/n, shape (R, m)
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
        hyp = _hypothesis_counts(W, P)
        answers_sum += hyp
        P_sum += P
    return {"answers": answers_sum / T, "answers_last": hyp, "synthetic": P_sum / T, "selected": selected,
            "measurements": measurements}


def _release(out: dict, trials, name, epsilon, noise_scale, ledger, **extra) -> Release:
    if trials is None:
        out = {key: value[0] for key, value in out.items()}
    answers = out.pop("answers")
    return Release(answers, epsilon, 0.0, name, noise_scale=noise_scale, ledger=ledger, trace={**out, **extra})


# --------------------------------------------------------------------------- chapter 07's widget callback

@functools.lru_cache(maxsize=None)
def cancer_4way_cells(m: int) -> MarginalWorkload:
    """The first ``m`` cells of the 4-way marginals of the cancer data (16 cells per attribute set; cached)."""
    from .queries import k_way_marginals
    W = k_way_marginals(11, 4) if m == 5280 else cancer_4way_cells(5280)
    m = check_int("m", m, low=1, high=W.m)
    return W if m == W.m else MarginalWorkload(W.d, W.cells[:m])


@functools.lru_cache(maxsize=None)
def _cancer_x() -> np.ndarray:
    from .data import load_cancer
    return load_cancer().x


def explore_mwem(epsilon=1.0, T=10, m=2640, n=2000, replay=1, *, trials=5, seed=2026):
    """MWEM against the Laplace mechanism on the first ``m`` 4-way marginal cells of the cancer data.

    The data are the real cancer histogram, resampled to ``n`` rows when ``n != 569``.  Left: the max error of
    ``trials`` runs of each (dots) — MWEM as specified (``replay=0``) and with ``replay`` extra sweeps over its
    measurements (HLM's practical variant, same privacy) — the data-independent uniform hypothesis (grey) and
    HLM's recalled bound for ``replay=0`` (red; above 1 it is vacuous).  Right: one run's released answers
    against the true ones.  A pure, seeded function of its parameters (chapter 07's widget).
    """
    from .data import bootstrap
    from .laplace import laplace_mechanism
    from .plots import BOUND, EMPIRICAL, EXTRA, new_figure
    from .theory.mwem import hlm_error_bound

    epsilon = check_epsilon(epsilon)
    T, n = check_int("T", T, low=1), check_int("n", n, low=1)
    replay, trials = check_int("replay", replay, low=0), check_int("trials", trials, low=1)
    rng = np.random.default_rng(seed)
    x = _cancer_x()
    x = x if n == x.sum() else bootstrap(x, n, rng)
    W = cancer_4way_cells(m)
    true = marginal_counts(W, x.astype(np.float64)) / n
    runs = {"MWEM": mwem(x, W, epsilon=epsilon, T=T, trials=trials, rng=rng)}
    if replay:
        runs[f"MWEM, replay {replay}"] = mwem(x, W, epsilon=epsilon, T=T, replay=replay, trials=trials, rng=rng)
    runs["Laplace"] = laplace_mechanism(x, W, epsilon=epsilon, trials=trials, rng=rng)
    err_uniform = float(np.abs(marginal_counts(W, np.full(W.N, 1.0 / W.N)) - true).max())
    bound = hlm_error_bound(n, W.N, W.m, T, epsilon)

    fig, (left, right) = new_figure(2)
    colours = [EMPIRICAL, EXTRA[1], EXTRA[0]]
    jitter = rng.uniform(-0.12, 0.12, trials)
    for i, (name, release) in enumerate(runs.items()):
        err = np.abs(release.answers - true).max(axis=1)
        left.plot(i + jitter, err, "o", color=colours[i], ms=5, label=f"{name}: median {np.median(err):.3g}")
        right.plot(true, release.answers[0], ".", color=colours[i], ms=3, alpha=0.7, label=name,
                   zorder=3 - i)                               # MWEM on top of the Laplace cloud
    left.axhline(err_uniform, color="grey", ls="--", label=f"uniform guess (no data) {err_uniform:.3g}")
    if bound <= 1.5:
        left.axhline(bound, color=BOUND, label=f"HLM bound (replay 0) {bound:.3g}")
    else:
        left.plot([], [], " ", label=f"HLM bound = {bound:.3g} (vacuous)")
    left.set_xticks(range(len(runs)), [name.replace(", ", "\n") for name in runs])
    left.set_yscale("log")
    left.set_ylabel("max error over the m cells")
    left.set_title(f"ε={epsilon:.3g}, T={T}, n={n}, m={W.m}")
    left.legend(loc="best", fontsize=8)
    right.plot([0, 1], [0, 1], "k:", lw=1)
    right.set_ylim(-0.25, 1.0)
    right.set_xlabel("true answer")
    right.set_ylabel("released answer (one run)")
    right.legend(loc="upper left")
    return fig
