"""The multiplicative-weights update rule, shared by MWEM (chapter 09) and the IDC framework (chapters 10–12).

A hypothesis is a probability vector ``p`` over the universe (the normalised database ``D̄ = D/n``).  One
update multiplies each weight by ``exp(coefficient · q[x])`` and renormalises:

    p'[x] = p[x] · exp(c · q[x]) / Σ_y p[y] · exp(c · q[y])

* :func:`mw_update_reference` — those lines of the algorithm box, as written (no guards): the reference every
  fast path is tested against;
* :func:`multiplicative_weights_update` — that rule for any ``q ∈ [0,1]^N`` (a ``bool`` ``q`` is an
  indicator, e.g. one marginal cell, and is applied without calling ``exp`` per element);
* :func:`marginal_cell_update` — the same rule for one marginal cell ``q = 1[x_S = v]`` of ``{0,1}^d``: it
  scales only the cell's slab of the reshaped ``(2,)*d`` cube (MWEM's fast path, about two passes);
* :func:`idc_mw_update` — IDC-AlgA.2 ≡ DR-Alg5 exactly as the algorithm box states it: ``r = q`` if the noisy
  answer is below ``<q, p>`` else ``r = 1 − q``, then ``p' ∝ p · exp(−η r)`` with ``η = α/2`` (normalised);
* :func:`kl_potential` — the potential ``Ψ_t = KL(D̄ ‖ D^t)`` of IDC-ClaimA.5 / IDC-LemmaA.6.

The bound ``B(α) = 4 ln N / α²`` of IDC-ThmA.4 ≡ DR-Thm4.10 lives in :mod:`dpbook.theory.mwem` as
``mw_bound(alpha, N)`` (re-exported here for convenience, so ``from dpbook.multiplicative_weights import
mw_bound`` works too).

Numerics.  Weights are kept linear and renormalised every round (a round is a few vectorised passes over
the universe, no Python loop over ``|X|``).  Overflow cannot happen: for ``c > 700`` the factors are shifted
to ``exp(c·(q − 1)) ≤ 1`` (the shift cancels in the normalisation).  Underflow is guarded: if the
unnormalised mass falls below ``1e-15`` (which can only happen when ``|c| ≳ 35``, e.g. at tiny ε where the
Laplace noise is huge), that row is recomputed in log space, ``log p + c·q − max`` (with ``p = m·2^e`` split
exactly, so no ``log`` is evaluated).  The result therefore
agrees with the exact normalised vector to a relative error of about ``1e-13 · max(1, |c|)`` (the rounding of
``c·q`` itself) in every entry above ~1e-290, at any coefficient and after any number of rounds
(tests/test_multiplicative_weights.py checks ``|c|`` up to 1e300 and 20,000 rounds).

Cost at ``N = 2^20`` (``benchmarks/bench_mwem.py``: CPU time, as multiples of a numpy copy of ``p`` in the same run,
medians of 3 runs on a shared 2-core machine): a marginal-cell round ~1.5x (the cell's slab, one sum, one scale);
a boolean-indicator round ~5–6x on the numpy path (block by block: a block's factors, times ``p``, summed while
in cache, then one scale; no full-size temporary); a general float query needs ``e^{c·q}`` of every element, ~9x.  That factor is
the kernels' own, not ``np.exp``, whose SIMD kernels round differently on CPUs with and without AVX-512: for
``N >= 2^15`` and ``|c| <= 30`` :func:`dpbook._mw_kernels.grid_exp` (``q`` rounded to a multiple ``m`` of
``2^-12``, ``e^{c·m}`` from a 4097-entry table made per ``c``, ``e^{c(q−m)}`` a Taylor series of degree 2–5;
within ``(6 + |c|)·2^-53`` of the exact value; ~7x a copy alone, against ~1.6x for ``np.exp``), otherwise
:func:`dpbook._mw_kernels.exp` of ``c·q`` (IEEE-754 additions, multiplications, ``rint``, ``ldexp`` and a table
look-up, within 1 ulp of the C library; ~15x a copy; a float-query round through it ~18x).  Every step is an
IEEE-754 operation, so the update, and MWEM's output, is the same bytes on every machine.  With numba installed
(the optional ``speed`` extra) a long float row on the grid takes a compiled form of the same steps
(:mod:`dpbook._mw_numba`: the same table and series, no fused multiply-add, numpy's summation order, one pass a
piece of the row in LLVM vector operations, then one scale; the same bytes, tested), 0.24–0.35 of the numpy block
path's time in the same runs: 3.2–5.1x a copy, median 4.3x over 10 runs under a load of 2.8–4.0 on the 2 cores
(the numpy path 12–17x), within the goal of 5x in 9 of the 10; with a new coefficient every round, as in MWEM,
the 4097-entry table is built too (compiled, ~30 µs; a repeated coefficient, such as the IDCs' ``±η``, finds its
table kept): 2.8–5.2x, median 4.05x.  What bounds it is memory: the pass reads ``q`` and ``p`` and writes the result, the scale
reads and writes it again (2.5 copies' worth of traffic), and a pass that only multiplies ``q`` by ``p`` and sums
costs ~2x a copy alone.  A long boolean row takes a compiled pass too (the numpy block's factor
``(z·(1 − small)) + small`` in the same order, then the same sum and scale): 3.8x a copy, median of 5 runs at a load
of 0.6–1.5, against 6.2x for the numpy block path in the same runs.  Without numba, or with ``DPBOOK_NUMBA=0``, the
numpy path runs.

The fast kernels live in the private :mod:`dpbook._mw_kernels`; the update of a hypothesis by one query of a
workload is :func:`mw_update` (through what the workload exposes: the query's non-zeros, never an ``N``-vector per
query; an explicit matrix's rows; a :class:`~dpbook.queries.MarginalWorkload`'s cell slab), and MWEM's grouping of
marginal cells into whole marginals is :func:`marginal_layout`.  A workload carries no update: ``import
dpbook.queries`` (and every mechanism that only answers queries) loads none of this.

Batches: ``p`` may have shape ``(trials, N)`` with ``coefficient`` of shape ``(trials,)`` and ``query`` of shape
``(N,)`` or ``(trials, N)``, so many independent runs update in one call.
"""
from __future__ import annotations

import numpy as np

from .theory.mwem import mw_bound
from ._mw_kernels import (SLAB_SAFE, MarginalLayout, exp_scalar, exp_update, marginal_cells_update,
                          support_update)
from .queries import MarginalWorkload, MatrixWorkload, Workload, slab_index
from .validation import real_dtype, ALPHA_RANGE, check_work, as_array, check_int, check_real

#: The smallest learning rate: η = α/2 for the smallest accuracy target.
ETA_MIN = ALPHA_RANGE[0] / 2

# mw_update_reference is public but not in __all__: it is the unguarded reference (the algorithm box's lines), which
# the bad-input sweep of tests/test_api_coverage.py (it walks __all__) must not hold to the validated API's contract.
__all__ = ["multiplicative_weights_update", "marginal_cell_update", "idc_mw_update", "kl_potential",
           "mw_bound", "uniform_hypothesis", "check_distribution", "mw_update", "marginal_layout"]



# --------------------------------------------------------------------------- validation helpers

def check_distribution(p, name: str = "p") -> np.ndarray:
    """A hypothesis: a probability vector (or a ``(trials, N)`` stack of them), finite, >= 0, each row summing to 1
    (to 1e-6); returned as float64.  ``TypeError`` for a non-numeric or boolean array, ``ValueError`` otherwise."""
    arr = as_array(name, p)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a float probability vector, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ValueError(f"{name} must have shape (N,) or (trials, N) with N >= 1, got {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        lo, total = arr.min(), arr.sum(axis=-1)     # (two passes: a NaN or inf shows in the minimum or a sum)
    if not (np.isfinite(lo) and np.all(np.isfinite(total))) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; a probability vector must be finite")
    if lo < 0:
        raise ValueError(f"{name} has a negative entry ({lo!r}); probabilities must be >= 0")
    if np.any(np.abs(total - 1.0) > 1e-6):
        bad = float(np.atleast_1d(total)[np.argmax(np.abs(np.atleast_1d(total) - 1.0))])
        raise ValueError(f"{name} must sum to 1 (a probability vector), but sums to {bad!r}")
    return arr


def _check_query(query, N: int, batch: tuple, name: str = "query") -> np.ndarray:
    """A linear query in ``[0,1]^N`` (float) or an indicator (bool); shape ``(N,)`` or ``batch + (N,)``."""
    q = as_array(name, query)
    if not real_dtype(q.dtype, bools=True):
        raise TypeError(f"{name} must be a numeric vector in [0,1]^N or a boolean indicator, got dtype {q.dtype}")
    if q.shape not in ((N,), batch + (N,)):
        raise ValueError(f"{name} must have shape ({N},) to match p, got {q.shape}")
    if q.dtype == bool:
        return q
    q = q.astype(np.float64, copy=False)
    lo, hi = q.min(), q.max()                       # (a NaN shows in both, an inf in one: no third pass)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"{name} contains NaN or inf; query values must be finite")
    if lo < 0 or hi > 1:
        raise ValueError(f"{name} has a value ({lo if lo < 0 else hi!r}) outside [0, 1]")
    return q


def _check_batch_real(name: str, value, batch: tuple, **bounds) -> np.ndarray | float:
    """A scalar (validated by check_real) or, for a batch, an array of shape ``batch`` of such values."""
    if np.ndim(value) == 0:
        return check_real(name, value.item() if isinstance(value, np.ndarray) else value, **bounds)
    arr = as_array(name, value)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a real number or an array of them, got dtype {arr.dtype}")
    if arr.shape != batch:
        raise ValueError(f"{name} must be a scalar or have shape {batch} (one per row of p), got {arr.shape}")
    arr = arr.astype(np.float64)
    for v in arr.ravel():          # at most `trials` values; reuse the scalar checks and messages
        check_real(name, float(v), **bounds)
    return arr


# --------------------------------------------------------------------------- the update

def mw_update_reference(p, q, coefficient) -> np.ndarray:
    """The multiplicative-weights update as the algorithm box states it (IDC-AlgA.2, DR-Alg5, MWEM's step 3).

    Every weight is multiplied by ``exp(coefficient · q[x])``, then the weights are renormalised.  Readable
    reference: no validation, no guard against overflow or underflow (the fast paths of
    :func:`multiplicative_weights_update`, :func:`marginal_cell_update` and
    :meth:`dpbook.queries.Workload.mw_update` are tested against it).
    """
    weights = p * np.exp(coefficient * q)                          # D^{t+1}[x] ∝ D^t[x] · e^{c·q[x]}
    return weights / weights.sum(axis=-1, keepdims=True)           # renormalise to a probability vector


def uniform_hypothesis(N: int) -> np.ndarray:
    """``D^0 = U(⊥)``: the uniform distribution ``1/N`` over the universe (IDC-AlgA.2)."""
    N = check_int("N", N, low=1)
    check_work(N=N)
    return np.full(N, 1.0 / N)


def multiplicative_weights_update(p, query, coefficient, *, out=None, check: bool = True) -> np.ndarray:
    """Return ``p ∝ p · exp(coefficient · query)``, renormalised to a probability vector.

    ``p``: probability vector ``(N,)`` (or ``(trials, N)``); ``query``: ``q ∈ [0,1]^N`` (float), or a ``bool``
    indicator (then the factor is ``e^c`` on the indicated elements and 1 elsewhere: no per-element
    ``exp``); ``coefficient``: any finite real (one per row for a batch).  Positive ``c`` moves mass toward
    elements where ``q`` is large.  ``out`` may be ``p`` itself for an in-place update.  ``check=False``
    skips input validation (for inner loops whose inputs are produced internally).
    """
    if check:
        p = check_distribution(p)
        q = _check_query(query, p.shape[-1], p.shape[:-1])
        c = _check_batch_real("coefficient", coefficient, p.shape[:-1])
        _check_out(out, p.shape)
    else:
        p, q, c = p, query, coefficient
    return exp_update(p, q, c, out)


def _check_out(out, shape) -> None:
    if out is None:
        return
    if not isinstance(out, np.ndarray) or out.dtype != np.float64:
        raise TypeError(f"out must be a float64 numpy array, got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape} (the shape of p), got {out.shape}")


def _check_cell(d, attributes, values, N):
    d = check_int("d", d, low=1, high=40)
    if N != 1 << d:
        raise ValueError(f"p has {N} entries but the universe {{0,1}}^d has 2^{d} = {1 << d}")
    S = tuple(check_int("attributes", a, low=0, high=d - 1) for a in attributes)
    v = tuple(check_int("values", b, low=0, high=1) for b in values)
    if not S or len(set(S)) != len(S) or len(v) != len(S):
        raise ValueError(f"attributes ({S}) must be distinct and non-empty, with one 0/1 value each (values {v})")
    return d, S, v


def marginal_cell_update(p, d, attributes, values, coefficient, *, out=None, check: bool = True) -> np.ndarray:
    """:func:`multiplicative_weights_update` for the marginal-cell query ``q(x) = 1[x_S = v]`` over ``{0,1}^d``.

    ``p`` is a probability vector of length ``2^d`` (attribute ``a`` = bit ``d-1-a``, as in
    :class:`dpbook.data.BinaryUniverse`).  Only the cell's slab of the reshaped ``(2,)*d`` cube is touched
    (``× e^c``, a ``2^-k`` fraction of ``p``), then one sum and one scale: about two passes over ``p``, no
    ``exp`` per element.  ``|c| > 30`` goes through the general (log-space-guarded) path.  ``out`` may be ``p`` for an in-place update (``p`` must then be contiguous).
    """
    if check:
        p = check_distribution(p)
        if p.ndim != 1:
            raise ValueError(f"p must be one probability vector (shape (N,)), got {p.shape}")
        d, attributes, values = _check_cell(d, attributes, values, p.size)
        coefficient = check_real("coefficient", coefficient)
        _check_out(out, p.shape)
    c = float(coefficient)
    if out is None:
        out = p.copy()
    elif out is not p:
        np.copyto(out, p)
    if abs(c) > SLAB_SAFE:
        indicator = np.zeros((2,) * d, dtype=bool)
        indicator[slab_index(d, attributes, values)] = True
        return exp_update(out, indicator.reshape(-1), c, out)
    slab = out.reshape((2,) * d)[slab_index(d, attributes, values)]   # a view of the cell (out must be contiguous)
    np.multiply(slab, exp_scalar(c), out=slab)   # e^c in [e^-30, e^30]: no overflow, no underflow trouble
    #                                            (exp_scalar: the same bits on every CPU, unlike np.exp)
    out *= 1.0 / out.sum()
    return out


def idc_mw_update(p, query, noisy_answer, eta, *, answer=None, check: bool = True) -> np.ndarray:
    """IDC-AlgA.2 ≡ DR-Alg5: one multiplicative-weights update of the hypothesis ``p = D^t``.

    If ``noisy_answer < <query, p>`` then ``r = query`` else ``r = 1 − query``;
    ``D^{t+1}[x] ∝ D^t[x] · exp(−η · r[x])``.  Answers are normalised (in ``[0,1]``); the learning rate is
    ``η = α/2`` for a normalised ``α`` (``0 < η <= 1``; in GRU's counts, ``η = α_u/(2n)``).  Since
    ``exp(−η(1 − q)) ∝ exp(η q)``, this is :func:`multiplicative_weights_update` with coefficient ``−η``
    (hypothesis over-estimates) or ``+η`` (under-estimates).  ``answer`` may pass a precomputed ``<query, p>``.
    Batches: ``p`` of shape ``(trials, N)`` with ``noisy_answer`` (and ``answer``) of shape ``(trials,)``.
    """
    if check:
        p = check_distribution(p)
        q = _check_query(query, p.shape[-1], p.shape[:-1])
        batch = p.shape[:-1]
        noisy_answer = _check_batch_real("noisy_answer", noisy_answer, batch)
        eta = check_real("eta", eta, low=0.0, high=1.0, low_open=True)
        if eta < ETA_MIN:
            raise ValueError(f"eta ({eta!r}) must be in [{ETA_MIN:g}, 1] (eta = alpha/2 with alpha >= "
                             f"{ALPHA_RANGE[0]:g}; a smaller one is subnormal or changes no weight)")
        if answer is not None:
            answer = _check_batch_real("answer", answer, batch, low=0.0, high=1.0)
    else:
        q = query
    if answer is None:
        answer = (q.astype(np.float64) * p).sum(axis=-1) if q.dtype == bool else (p * q).sum(axis=-1)
    coefficient = np.where(np.asarray(noisy_answer) < answer, -eta, eta)
    coefficient = coefficient if coefficient.ndim else float(coefficient)
    return multiplicative_weights_update(p, q, coefficient, check=False)


def kl_potential(target, hypothesis) -> float | np.ndarray:
    """``Ψ = KL(D̄ ‖ D^t) = Σ_x D̄[x] ln(D̄[x]/D^t[x])`` (IDC-ClaimA.5 ≡ DR-Prop4.11), in nats.

    ``target`` is the normalised true database ``D̄ = x/n``; ``hypothesis`` the current ``D^t`` (either may be
    a ``(trials, N)`` stack).  Terms with ``D̄[x] = 0`` contribute 0; ``+inf`` if ``D^t`` misses ``D̄``'s support.
    """
    t = check_distribution(target, "target")
    h = check_distribution(hypothesis, "hypothesis")
    if t.shape[-1] != h.shape[-1]:
        raise ValueError(f"target ({t.shape}) and hypothesis ({h.shape}) must be over the same universe")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(t > 0, t * (np.log(t) - np.log(h)), 0.0)
    kl = terms.sum(axis=-1)
    return float(kl) if np.ndim(kl) == 0 else kl


# --------------------------------------------------------------------------- the update by a workload's query

def mw_update(workload, p, i, coefficient, *, out=None, check: bool = True) -> np.ndarray:
    """The multiplicative-weights update of hypothesis ``p`` by query ``i`` of ``workload``:
    ``p ∝ p · exp(coefficient · q_i)``, renormalised (IDC-AlgA.2 ≡ DR-Alg5, MWEM's step 3; the readable rule is
    :func:`mw_update_reference`).

    ``p``: a probability vector ``(N,)`` or a batch ``(trials, N)``; ``i``: a query index, or one per row;
    ``coefficient``: a finite real, or one per row.  ``out`` may be ``p`` (in place).  Through what the workload
    exposes (never an ``N``-vector per query): a :class:`~dpbook.queries.MarginalWorkload`'s cell slabs, a
    :class:`~dpbook.queries.MatrixWorkload`'s rows, any other workload's query supports
    (:meth:`~dpbook.queries.Workload.query_support`).  ``check=False`` skips validation (inner loops).
    """
    if check:
        if not isinstance(workload, Workload):
            raise TypeError(f"workload must be a dpbook.queries.Workload, got {type(workload).__name__}")
        p = check_distribution(p)
        rows = 1 if p.ndim == 1 else p.shape[0]
        picks = workload.check_picks(i, rows)
        c = np.asarray(coefficient)
        if not real_dtype(c.dtype):
            raise TypeError(f"coefficient must be a real number or one per row of p, got {type(coefficient).__name__}")
        c = c.astype(np.float64)
        if c.shape not in ((), (rows,)) or (p.ndim == 1 and c.ndim):
            raise ValueError(f"coefficient must be a scalar or have shape ({rows},) (one per row of p), got {c.shape}")
        if not np.all(np.isfinite(c)):
            raise ValueError(f"coefficient ({coefficient!r}) must be finite")
        if out is not None and (not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.shape != p.shape):
            raise TypeError(f"out must be a float64 numpy array of shape {p.shape} (the shape of p)")
    else:
        picks, c = i, coefficient
    if out is None:
        out = np.array(p, dtype=np.float64, order="C")
    elif out is not p:
        np.copyto(out, p)
    P2 = out if out.ndim == 2 else out[None]
    picks = np.broadcast_to(np.asarray(picks, dtype=np.int64), (P2.shape[0],))
    c = np.broadcast_to(np.asarray(c, dtype=np.float64), (P2.shape[0],))
    if isinstance(workload, MarginalWorkload):
        _slab_update(workload, P2, picks, c)
    elif isinstance(workload, MatrixWorkload):          # the matrix is explicit: the picked rows are at hand
        one = P2.shape[0] == 1 or bool(np.all(picks == picks[0]))
        rows = workload.query_rows(picks[:1]) if one else workload.query_rows(picks)
        exp_update(P2, rows, c, P2)
    else:
        _support_update(workload, P2, picks, c)
    return out


def _support_update(workload, P: np.ndarray, picks: np.ndarray, c: np.ndarray) -> None:
    """``P[t] ∝ P[t] · exp(c[t] · q_{picks[t]})`` in place (validated ``(trials, N)`` float64), for any workload: on
    each picked query's non-zeros, grouped by query."""
    for j in np.unique(picks):
        rows = np.flatnonzero(picks == j)
        idx, val = workload.query_support(int(j))
        support_update(P, rows, idx, val, c[rows])


def _slab_update(workload, P: np.ndarray, picks: np.ndarray, c: np.ndarray) -> None:
    """The slab update of marginal cells: one run → :func:`marginal_cell_update` (scales only the cell's slab of
    the ``(2,)*d`` cube); many runs → every row at once, slabs grouped by cell; ``|c| > 30`` rows take the guarded
    general path."""
    if P.shape[0] == 1 or np.any(np.abs(c) > SLAB_SAFE):
        for t, (j, ct) in enumerate(zip(picks, c)):
            S, v = workload.cells[j]
            marginal_cell_update(P[t], workload.d, S, v, float(ct), out=P[t], check=False)
        return
    marginal_cells_update(P, workload.d, workload.cells, picks, c)


def marginal_layout(workload) -> MarginalLayout:
    """The cells of a :class:`~dpbook.queries.MarginalWorkload` grouped by attribute set, for MWEM's
    ``measure="marginal"`` (a *unit* = one marginal; ``-1``-padded ``units``), with each unit's exact L1 sensitivity
    under add/remove (``sensitivity``: ``l1_sensitivity`` of its cells) and under replace-one
    (``replace_sensitivity``: ``replace_one_l1_sensitivity``, exact for one attribute set), repeated cells counted
    as often as they are listed — built once per workload.  Only marginal cells have that structure: any other
    workload is refused."""
    if not isinstance(workload, MarginalWorkload):
        raise ValueError(f"a {type(workload).__name__} has no marginal structure: measuring whole marginals needs a "
                         "workload of marginal cells (a MarginalWorkload); use measure='cell'")
    layout = getattr(workload, "_marginal_layout", None)        # a private cache on the (frozen) workload
    if layout is None:
        by_set = {}
        for j, (S, _) in enumerate(workload.cells):
            by_set.setdefault(tuple(sorted(S)), []).append(j)
        g = max(len(v) for v in by_set.values())
        units = np.array([v + [-1] * (g - len(v)) for v in by_set.values()], dtype=np.int64)
        parts = [MarginalWorkload(workload.d, [workload.cells[j] for j in row[row >= 0]]) for row in units]
        sensitivity = np.array([part.l1_sensitivity() for part in parts])
        replace = np.array([part.replace_one_l1_sensitivity() for part in parts])
        layout = workload._marginal_layout = MarginalLayout(workload.d, workload.cells, units, sensitivity, replace)
    return layout
