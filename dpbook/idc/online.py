"""Online query release from an IDC: one loop, one private per-round test per mechanism (GRU §4–§6, chapter 11).

Every online IDC mechanism is the same algorithm box; only the per-round test differs:

    D^1 = U(⊥)
    for each query Q_i of the (adaptive) stream:
        (a_i, v_i) = test(Q_i(D), Q_i(D^t))        # the mechanism's private test (no data access once halted)
        if v_i = ⊤:  release the noisy a_i and update D^{t+1} = U(D^t, Q_i, a_i)
        else:        a_i = Q_i(D^t), answered from the hypothesis

:func:`run_online` is that loop, batched over runs.  The tests:

* :class:`SparseVectorTest` — IDC-Alg1-SV (:func:`online_idc_sv`, the provably private mechanism): sparse vector
  on the score ``|Q(D) − Q(D^t)|`` against a noisy threshold, a fresh Laplace answer at each ``⊤``, at most ``c``;
* :class:`NoisyThresholdTest` — GRU Algorithm 1 (:func:`online_idc`, IDC-Alg1, reconstructed ``ε0``): one Laplace
  answer per round, ``⊤`` when it is at least ``τ`` away from the hypothesis, at most ``B_max + 1`` updates;
* :class:`NumericSparseTest` — DR-Alg6 OnlineMW (:func:`online_mw_dr`): NumericSparse on the two one-sided
  differences ``±(Q(D) − Q(D^t))``, at most ``c`` ``⊤``'s.

Each public function validates its inputs, splits the budget, builds its test and calls :func:`run_online`; the
rule sees queries as workload indices (:meth:`~dpbook.idc.IDC.evaluate_query`, :meth:`~dpbook.idc.IDC.update_query`),
so no workload is ever turned into a matrix.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..experiments import Errors
from ..noise import laplace_noise
from ..queries import Workload
from ..release import COMPOSITIONS, Ledger, ReleaseRecord, Spend, composition_rule, theorem_epsilon
from ..theory.idc import (alg1_threshold, dr_online_mw_threshold, sv_alpha_l, sv_alpha_sv, sv_epsilon0, sv_epsilon0_tight,
                          sv_error_bound, sv_threshold, sv_updates, thm41_epsilon, thm41_epsilon0)
from ..theory.sparse_vector import numeric_sparse_composed_epsilon, numeric_sparse_sigma, numeric_sparse_split
from ..contract import example, mechanism_prologue
from ..validation import check_beta, check_choice, check_epsilon, check_histogram, check_int, check_real
from .checker import UpdateStep
from .streams import StreamView, as_stream, public_n
from .updates import IDC, MultiplicativeWeightsIDC

__all__ = ["OnlineRelease", "NotARelease", "online_idc_sv", "online_idc", "online_mw_dr", "th_sv_threshold_for"]


# =========================================================================== what is released

@dataclass(frozen=True)
class OnlineRelease(ReleaseRecord):
    """What an online IDC mechanism released, and what it spent (the book's release protocol: ``epsilon``,
    ``delta``, ``neighbours``, ``mechanism``, ``ledger``, ``trace``, ``released``).

    ``answers``: ``(T,)`` or ``(trials, T)`` — the released answer to each of the stream's ``T`` queries (a noisy
    answer at an update, the hypothesis' answer otherwise).  ``queries``: the workload index of each asked
    query.  ``updated``: where a noisy answer was released and the hypothesis updated (``v_i != ⊥``).
    ``updates``: the number of updates per run.  ``halted``: the run reached its update cap (Alg1-SV: ``c``
    updates; Alg1: terminated after ``B_max + 1``), after which answers come from the hypothesis and the data
    are not touched.  ``hypothesis``: the final state.  ``params``: every public parameter (``epsilon0``,
    thresholds, noise scales, caps, theory bounds).  ``ledger``: the private steps and their composition rule
    (:func:`dpbook.release.compose`).  ``trace``: per-round internals for plots and the privacy-loss picture
    (``record=True``) and update logs (``logs=True``); never used to answer queries.
    """

    answers: np.ndarray = field(repr=False)
    mechanism: str
    queries: np.ndarray = field(repr=False)
    updated: np.ndarray = field(repr=False)
    updates: np.ndarray | int
    halted: np.ndarray | bool
    hypothesis: np.ndarray = field(repr=False)
    workload: Workload = field(repr=False)
    params: Mapping[str, Any] = field(default_factory=dict)
    ledger: Ledger = field(default=Ledger(), repr=False)
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    neighbours: str = "add/remove"

    @property
    def released(self) -> np.ndarray:
        """What the analyst saw: the answer to every query of the stream."""
        return self.answers

    def errors(self, x, n=None) -> Errors:
        """``|a_i - Q_i(x)|`` for every round: :class:`dpbook.experiments.Errors` of shape ``(trials, T)``."""
        true = self.workload.counts(check_histogram(x)) / public_n(x, n)
        return Errors(np.atleast_2d(np.abs(self.answers - true[self.queries])))

    def hypothesis_errors(self, rule, x, n=None) -> np.ndarray:
        """Max error of each final hypothesis over the whole workload, shape ``(trials,)``."""
        true = self.workload.counts(check_histogram(x)) / public_n(x, n)
        state = self.hypothesis if self.answers.ndim == 2 else self.hypothesis[None]
        return np.abs(rule.answers(state, self.workload) - true).max(axis=1)


@dataclass(frozen=True)
class NotARelease:
    """Internals of one call of a mechanism — raw noise, exact answers — for analysis of the mechanism itself
    (the privacy-loss replay of :mod:`dpbook.privacy_loss`).  **Not differentially private; never publish it.**

    Returned only on an explicit opt-in (``debug=True``), *next to* the release, never inside it: it has no
    ``epsilon``, ``ledger`` or ``released`` (it is no :class:`dpbook.release.PrivateResult`).  ``values`` maps
    names to read-only arrays; ``internals["noise"]`` reads one."""

    mechanism: str
    values: Mapping[str, np.ndarray] = field(repr=False)
    warning: str = "NOT A RELEASE: raw noise and exact values of a private computation; not differentially private"

    def __post_init__(self):
        frozen = {}
        for key, value in dict(self.values).items():
            arr = np.array(value)
            arr.setflags(write=False)
            frozen[key] = arr
        object.__setattr__(self, "values", MappingProxyType(frozen))

    def __getitem__(self, key):
        return self.values[key]

    def keys(self):
        return self.values.keys()


# =========================================================================== the one loop

@dataclass
class OnlineRun:
    """The transcript of :func:`run_online` for ``runs`` runs of ``T`` rounds (leading axis ``runs``)."""

    answers: np.ndarray
    queries: np.ndarray
    updated: np.ndarray
    updates: np.ndarray
    state: np.ndarray
    hypothesis_answers: np.ndarray | None = None       # Q_i(D^t) of every round (record=True)
    active: np.ndarray | None = None                   # whether the round could touch the data (record=True)
    logs: list | None = None                           # each run's update sequence (logs=True)


def run_online(x, rule, stream, test, *, n, runs, rng, logs=False, record=False) -> OnlineRun:
    """The online IDC loop (the algorithm box of this module's docstring) for ``runs`` independent runs.

    ``x``, ``rule``, ``stream``, ``n`` as checked by the public mechanisms; ``test`` one of the per-round tests
    (``test.active(updates)``: the runs still allowed to touch the data; ``test(true, hypothesis, active, rng)``:
    ``(answers, top)``).  ``logs=True`` keeps every run's update sequence ``[(D^t, Q^t, Â^t)]`` (IDC-Def3.1);
    ``record=True`` keeps each round's hypothesis answers and activity.

    The stream (the analyst) sees only what has been released: before round ``i`` it gets a
    :class:`~dpbook.idc.streams.StreamView` of the hypotheses and of the first ``i`` answers, queries and ⊤/⊥
    decisions — never ``x`` or its answers — so its choice is a function of the transcript, as the privacy proofs
    of the tests (sparse vector, Laplace) on adaptively chosen queries require.
    """
    W = stream.workload
    true = W.counts(x) / n                                          # Q(D) for every query: seen by the test only
    T = stream.T
    state = rule.initial(runs)                                      # D^1 = U(⊥)
    answers, queries = np.empty((runs, T)), np.empty((runs, T), dtype=np.int64)
    updated = np.zeros((runs, T), dtype=bool)
    updates = np.zeros(runs, dtype=np.int64)
    hyps, actives = (np.empty((runs, T)), np.zeros((runs, T), dtype=bool)) if record else (None, None)
    logs = [[] for _ in range(runs)] if logs else None
    for i in range(T):
        view = StreamView(i, rule, W, state, answers[:, :i], queries[:, :i], updated[:, :i], n)
        idx = _check_pick(stream.pick(i, view), runs, W.m)           # the analyst asks Q_i (shared, or one per run)
        hyp, mu = rule.evaluate_query(state, W, idx), true[idx]      # Q_i(D^t) and Q_i(D)
        active = test.active(updates)                               # no data access once a run has halted
        a, top = test(mu, hyp, active, rng)                         # ⊤: a noisy answer; ⊥: a = Q_i(D^t)
        if top.any():                                               # ⊤: D^{t+1} = U(D^t, Q_i, a_i)
            if logs is not None:
                for r in np.flatnonzero(top):
                    logs[r].append(UpdateStep(state[r].copy(), int(np.broadcast_to(idx, runs)[r]), float(a[r])))
            state[top] = rule.update_query(state[top], W, idx if np.ndim(idx) == 0 else idx[top], a[top])
        updates += top
        answers[:, i], queries[:, i], updated[:, i] = a, idx, top
        if record:
            hyps[:, i], actives[:, i] = hyp, active
    return OnlineRun(answers, queries, updated, updates, state, hyps, actives, logs)


def _check_pick(idx, runs, m):
    """A stream's answer: one workload index for every run (an integer) or one per run (shape ``(runs,)``)."""
    arr = np.asarray(idx)
    if not (np.issubdtype(arr.dtype, np.integer) and not arr.dtype == bool) or arr.shape not in ((), (runs,)):
        raise ValueError(f"stream.pick must return a workload index, or one per run (shape ({runs},)), got "
                         f"{arr.dtype} of shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= m):
        raise ValueError(f"stream.pick returned index {int(arr.max() if arr.max() >= m else arr.min())}, outside the "
                         f"workload's {m} queries")
    return int(arr) if arr.ndim == 0 else arr.astype(np.int64)


# =========================================================================== the per-round tests

class SparseVectorTest:
    """IDC-Alg1-SV's round: ``⊤`` iff ``|Q(D) − Q(D^t)| + Lap(b_query) >= τ̂`` (``τ̂ = τ + Lap(b_threshold)``,
    redrawn after each ``⊤``); at ``⊤`` release ``Q(D) + Lap(b_release)``.  At most ``c`` updates."""

    def __init__(self, threshold, b_threshold, b_query, b_release, c, sampler, runs, rng):
        self.threshold, self.b_threshold, self.b_query, self.b_release = threshold, b_threshold, b_query, b_release
        self.c, self.sampler, self.runs = c, sampler, runs
        self.noisy_threshold = threshold + sampler(b_threshold, runs, rng)

    def active(self, updates):
        return updates < self.c

    def halted(self, updates):
        return updates >= self.c

    def __call__(self, mu, hyp, active, rng):
        nu, release, fresh = (self.sampler(b, self.runs, rng) for b in (self.b_query, self.b_release, self.b_threshold))
        top = active & (np.abs(mu - hyp) + nu >= self.noisy_threshold)
        self.noisy_threshold = np.where(top, self.threshold + fresh, self.noisy_threshold)
        return np.where(top, mu + release, hyp), top


class NoisyThresholdTest:
    """GRU Algorithm 1's round: ``Â = Q(D) + Lap(b)``; ``⊤`` iff ``|Â − Q(D^t)| >= τ``, then release ``Â``.
    Terminates after more than ``b_max`` updates.  ``record=True`` keeps each round's noise ``Z`` (for
    :class:`NotARelease` only)."""

    def __init__(self, threshold, b, b_max, sampler, runs, record=False):
        self.threshold, self.b, self.b_max, self.sampler, self.runs = threshold, b, b_max, sampler, runs
        self.noise = [] if record else None

    def active(self, updates):
        return updates <= self.b_max

    def halted(self, updates):
        return updates > self.b_max

    def __call__(self, mu, hyp, active, rng):
        Z = self.sampler(self.b, self.runs, rng)
        A_hat = mu + Z
        top = active & (np.abs(A_hat - hyp) >= self.threshold)
        if self.noise is not None:
            self.noise.append(Z)
        return np.where(top, A_hat, hyp), top


class NumericSparseTest:
    """DR-Alg6's round: NumericSparse (DR-Alg3) sees ``f − f(x^t)`` then ``f(x^t) − f``: threshold noise
    ``Lap(σ1)`` (redrawn after each ``⊤``), query noise ``Lap(2σ1)``, value ``f' + Lap(σ2)``.  At ``⊤`` the answer
    is ``f(x^t) ± E``.  At most ``c`` ``⊤``'s."""

    def __init__(self, threshold, sigma1, sigma2, c, sampler, runs, rng):
        self.threshold, self.sigma1, self.sigma2, self.c = threshold, sigma1, sigma2, c
        self.sampler, self.runs = sampler, runs
        self.noisy_threshold = threshold + sampler(sigma1, runs, rng)

    def active(self, updates):
        return updates < self.c

    def halted(self, updates):
        return updates >= self.c

    def __call__(self, mu, hyp, active, rng):
        value = np.zeros(self.runs)
        top = np.zeros(self.runs, dtype=bool)
        for sign in (1.0, -1.0):                                 # f'_{2i-1} = f - f(x^t), f'_{2i} = f(x^t) - f
            f = sign * (mu - hyp)
            nu, E, fresh = (self.sampler(b, self.runs, rng) for b in (2 * self.sigma1, self.sigma2, self.sigma1))
            hit = active & ~top & (f + nu >= self.noisy_threshold)
            value = np.where(hit, hyp + sign * (f + E), value)
            self.noisy_threshold = np.where(hit, self.threshold + fresh, self.noisy_threshold)
            top |= hit
        return np.where(top, value, hyp), top


# =========================================================================== the mechanisms

def _setup(x, rule, stream):
    x = check_histogram(x)
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC (e.g. MultiplicativeWeightsIDC), got {type(rule).__name__}")
    stream = as_stream(stream)
    W = stream.workload
    if W.N != x.size or rule.N != x.size:
        raise ValueError(f"x has {x.size} universe elements, the workload {W.N}, the rule {rule.N}: they must agree")
    lo, hi = W.entry_range()
    if lo < 0 or hi > 1:
        raise ValueError(f"workload queries must lie in [0, 1], got entries in [{lo:.4g}, {hi:.4g}]")
    return x, stream


def _prologue(x, stream, *, epsilon, delta, rng, sampler, n, trials, positive_delta=False):
    """The mechanisms' prologue (:func:`dpbook.contract.mechanism_prologue`) of an online IDC mechanism: ε, δ,
    rng, continuous Laplace noise (the loops add it to normalised answers and thresholds, reals), the public
    ``n`` and ``trials`` runs of ``T`` rounds.  The claim's relation: with a public ``n`` add/remove; with ``n``
    read from the data, replace-one (the only relation under which ``||x||_1`` is the same for both databases)."""
    return mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials,
                              neighbours="replace-one" if n is None else "add/remove", x=x, n_rule="public",
                              per_release=(stream.T,), positive_delta=positive_delta, family="laplace",
                              lattice_ok=False)


def _release(single, run: OnlineRun, halted, **fields) -> OnlineRelease:
    """Package a batched run; ``trials=None`` (a single run) drops the leading axis."""
    answers, queries, updated, state, updates = run.answers, run.queries, run.updated, run.state, run.updates
    if single:
        answers, queries, updated, state = answers[0], queries[0], updated[0], state[0]
        updates, halted = int(updates[0]), bool(halted[0])
    return OnlineRelease(answers=answers, queries=queries, updated=updated, updates=updates, halted=halted,
                         hypothesis=state, **fields)


def online_idc_sv(x, rule, stream, *, epsilon, delta, beta=0.05, n=None, c=None, trials=None, rng=None,
                  sampler=laplace_noise, logs=False, composition="corollary") -> OnlineRelease:
    """IDC-Alg1-SV: online query release from an IDC, private by sparse vector + Laplace (after GRU and DR-Alg6).

    For each query ``Q_i`` of the (adaptive) ``stream``, with ``D^t`` the current hypothesis of ``rule``:
    the score ``g_i = |Q_i(D) - Q_i(D^t)|`` (sensitivity ``1/n``) gets fresh noise ``ν_i ~ Lap(4/(ε0 n))`` and
    is compared with a noisy threshold ``τ̂ = τ + Lap(2/(ε0 n))``.  ``⊤``: release
    ``a_i = Q_i(D) + Lap(1/(ε0 n))``, update ``D^{t+1} = U(D^t, Q_i, a_i)``, redraw ``τ̂``.  ``⊥``: answer
    ``Q_i(D^t)``.  After ``c`` updates every answer comes from the hypothesis (no data access).

    Parameters (IDC-Alg1-SV): ``α_U = rule.alpha``; ``c = max(1, floor(B(α_U)))`` unless a practical cap ``c``
    is given (privacy stays exact for the cap, the accuracy guarantee is void: §13);
    ``ε0 = ε/(4 sqrt(c ln(1/δ)))`` (``ε/(2c)`` if ``δ = 0``); ``τ = α_U + α_SV``.
    ``composition="corollary"`` is that split (DR-Cor3.21: the ``2c`` steps provably compose to about half of
    ``ε``); ``"tight"`` spends the whole budget, ``ε0`` solved from DR-Thm3.20 (:func:`sv_epsilon0_tight`).
    Guarantees: ``(ε, δ)``-DP; w.p. ``>= 1-β`` every answer is within ``α_U + 2α_SV`` (uncapped ``c``).
    ``logs=True`` keeps every run's update sequence ``[(D^t, Q^t, Â^t)]`` in ``trace["logs"]`` (IDC-Def3.1).
    """
    x, stream = _setup(x, rule, stream)
    p = _prologue(x, stream, epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials)
    epsilon, delta, rng, sampler, n, runs = p.epsilon, p.delta, p.rng, p.noise, p.n, p.runs
    beta = check_beta(beta)
    B = rule.bound()
    c_theory = sv_updates(B) if B > 0 else 1
    c = c_theory if c is None else check_int("c", c, low=1)
    T = stream.T
    # ---- budget split: 2c steps (c AboveThreshold runs + c Laplace releases), each ε0-DP
    composition = check_choice("composition", composition, COMPOSITIONS)
    epsilon0 = (sv_epsilon0 if composition == "corollary" else sv_epsilon0_tight)(epsilon, delta, c)
    b_threshold, b_query, b_release = 2.0 / (epsilon0 * n), 4.0 / (epsilon0 * n), 1.0 / (epsilon0 * n)
    alpha_sv, alpha_l = sv_alpha_sv(c, T, beta, epsilon0, n), sv_alpha_l(c, beta, epsilon0, n)
    threshold = sv_threshold(rule.alpha, alpha_sv)

    test = SparseVectorTest(threshold, b_threshold, b_query, b_release, c, sampler, runs, rng)
    run = run_online(x, rule, stream, test, n=n, runs=runs, rng=rng, logs=logs)
    ledger = Ledger([Spend("AboveThreshold (sparse vector run)", epsilon0)] * c
                    + [Spend("Laplace release at an update", epsilon0)] * c,
                    rule=composition_rule(delta, composition), delta_prime=delta, budget=epsilon)
    params = dict(alpha_u=rule.alpha, B=B, c=c, c_theory=c_theory, capped=c < c_theory, epsilon0=epsilon0,
                  threshold=threshold, alpha_sv=alpha_sv, alpha_l=alpha_l,
                  error_bound=sv_error_bound(rule.alpha, alpha_sv),
                  b_threshold=b_threshold, b_query=b_query, b_release=b_release, n=n, T=T, beta=beta,
                  composed_epsilon=theorem_epsilon(ledger))
    return _release(trials is None, run, test.halted(run.updates),
                    mechanism=f"IDC-Alg1-SV[{rule.name}]", workload=stream.workload, params=params, ledger=ledger,
                    trace={"logs": run.logs} if logs else None, neighbours=p.neighbours)


def _example_stream(**kw):
    from ..queries import k_way_marginals
    from .streams import FixedStream
    return dict(x=np.arange(16), rule=MultiplicativeWeightsIDC(16, 0.2), stream=FixedStream(k_way_marginals(4, 1)),
                epsilon=0.9, delta=1e-6, rng=0, **kw)


def _example_update_fires(**kw):
    """A database whose first query's answer is far off the uniform start, so an update fires and every seed's
    noise shows in the release (the conventional call of the sweeps updates nothing)."""
    from ..queries import MatrixWorkload
    Q = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    return dict(x=np.array([600, 0, 0, 0]), stream=MatrixWorkload(Q), epsilon=0.5, delta=1e-3, n=600, trials=10,
                rng=0, **kw)


example(online_idc_sv, _example_stream, lambda: _example_stream(composition="tight"),
        lambda: _example_update_fires(rule=MultiplicativeWeightsIDC(4, 0.3), beta=1.0, c=1))


def online_idc(x, rule, stream, *, delta, epsilon=None, epsilon0=None, b_max=None, n=None, c_star=2.0,
               trials=None, rng=None, sampler=laplace_noise, record=False, logs=False, debug=False):
    """IDC-Alg1 — GRU Algorithm 1, the paper's structure with a **reconstructed** ``ε0`` (IDC-Thm4.1).

    Build ``rule`` at ``α/3`` (its ``alpha``); then ``τ = 2α/3 = 2·rule.alpha``, ``B_max = floor(B(α/3))`` (or a
    practical cap ``b_max``), ``Z_i ~ Lap(1/(ε0 n))``.  For each query: ``Â_i = Q_i(D) + Z_i``; if
    ``|Â_i - Q_i(D^t)| < τ`` answer ``Q_i(D^t)`` (``v_i = ⊥``), else answer ``Â_i`` and update; terminate after
    more than ``B_max`` updates (later answers come from the hypothesis: no data access).

    ``ε0``: pass ``epsilon0`` directly, or ``epsilon`` to take the largest ``ε0`` allowed (at ``delta``) by the
    reconstructed IDC-Thm4.1 condition (:func:`dpbook.theory.idc.thm41_epsilon0`, constant ``c_star``).
    The ``epsilon``/``delta`` of the release are that **reconstructed** claim — audit it; for a guaranteed
    claim use :func:`online_idc_sv`.  Accuracy (IDC-Thm4.9): if ``τ >= 2 ln(m/β)/(ε0 n)`` (``m = stream.T``
    queries), w.p. ``>= 1-β`` every answer is within ``3τ/2`` and the mechanism never terminates early.
    ``record=True`` keeps the per-round hypothesis answers ``Q_i(D^t)`` and data-access flags in ``trace`` (both
    functions of the released transcript); ``logs=True`` keeps every run's update sequence in ``trace["logs"]``.
    The release never carries the noise.  ``debug=True`` (for :mod:`dpbook.privacy_loss`, which needs every round's
    ``Z_i``) returns ``(release, internals)``: ``internals`` is a :class:`NotARelease` holding ``"noise"``, shape
    ``(trials, T)`` — the raw noise, from which the true answers of the updated rounds follow; never publish it.
    Returns an :class:`OnlineRelease` (a pair with ``debug=True``).
    """
    if not isinstance(debug, (bool, np.bool_)):
        raise TypeError(f"debug must be True or False, got {type(debug).__name__}")
    if not isinstance(record, (bool, np.bool_)):
        raise TypeError(f"record must be True or False, got {type(record).__name__}")
    x, stream = _setup(x, rule, stream)
    if (epsilon0 is None) == (epsilon is None):
        raise ValueError("give either epsilon0 or epsilon (with delta), not both")
    # the prologue checks the budget the caller gave: epsilon, or epsilon0 (by its own name)
    p = _prologue(x, stream, epsilon=epsilon if epsilon0 is None else check_epsilon(epsilon0, "epsilon0"),
                  delta=delta, rng=rng, sampler=sampler, n=n, trials=trials, positive_delta=True)
    delta, rng, sampler, n, runs = p.delta, p.rng, p.noise, p.n, p.runs
    threshold = alg1_threshold(3.0 * rule.alpha)                       # = 2α/3 with α = 3·rule.alpha
    B = rule.bound()
    b_max = int(np.floor(B)) if b_max is None else check_int("b_max", b_max, low=0)
    epsilon0 = thm41_epsilon0(p.epsilon, b_max, delta, c_star) if epsilon0 is None else p.epsilon
    epsilon = thm41_epsilon(epsilon0, b_max, delta, c_star)     # the reconstructed claim for this ε0
    T = stream.T
    b = 1.0 / (epsilon0 * n)                                    # the only noise: Lap(1/(ε0 n)) per round

    test = NoisyThresholdTest(threshold, b, b_max, sampler, runs, record=bool(debug))
    run = run_online(x, rule, stream, test, n=n, runs=runs, rng=rng, logs=logs, record=record)
    params = dict(alpha=3 * rule.alpha, threshold=threshold, B=B, b_max=b_max, epsilon0=epsilon0, noise_scale=b, n=n,
                  T=T, c_star=c_star, reconstructed=True)
    trace = {"hypothesis_answers": run.hypothesis_answers, "active": run.active} if record else {}
    trace = (trace | {"logs": run.logs}) if logs else (trace or None)
    ledger = Ledger([Spend("Algorithm 1: all rounds (reconstructed IDC-Thm4.1 accounting)", epsilon, delta)])
    rel = _release(trials is None, run, test.halted(run.updates),
                   mechanism=f"IDC-Alg1[{rule.name}] (reconstructed eps0)", workload=stream.workload,
                   params=params, ledger=ledger, trace=trace, neighbours=p.neighbours)
    if not debug:
        return rel
    noise = np.stack(test.noise, axis=1).reshape(runs, T)
    return rel, NotARelease(rel.mechanism, {"noise": noise[0] if trials is None else noise})


def online_mw_dr(x, stream, *, alpha, epsilon, delta=0.0, beta=0.05, n=None, c=None, threshold=None, trials=None,
                 rng=None,
                 sampler=laplace_noise) -> OnlineRelease:
    """DR-Alg6 — OnlineMW via NumericSparse (Dwork–Roth; the reference IDC-Alg1-SV is derived from).

    MW hypothesis (IDC-AlgA.2 at ``α``); ``c = floor(4 ln N/α²)`` unless given; the box's threshold ``τ``
    (:func:`dpbook.theory.idc.dr_online_mw_threshold`) unless given.  For each query ``f_i``, NumericSparse
    (DR-Alg3, box budget split ``ε1, ε2``, scales ``σ(ε)/n``) sees ``f'_{2i-1} = f_i - f_i(x^t)`` and
    ``f'_{2i} = f_i(x^t) - f_i``: threshold noise ``Lap(σ(ε1)/n)`` (redrawn after each ``⊤``), query noise
    ``Lap(2σ(ε1)/n)``, value ``f' + Lap(σ(ε2)/n)``.  Both ``⊥``: ``a_i = f_i(x^t)``; else ``a_i = f_i(x^t) ± E`` and
    ``x^{t+1} = MW(x^t, f_i, a_i)``.  After ``c`` ``⊤``'s NumericSparse halts; later answers come from the
    hypothesis.  Privacy: DR-Thm3.27 (NumericSparse is the only data access).  Accuracy [DERIVED]: see
    :func:`dpbook.theory.idc.dr_alg6_conditions` and :func:`~dpbook.theory.idc.dr_alg6_parameters`.
    """
    x = check_histogram(x)
    rule = MultiplicativeWeightsIDC(x.size, alpha)
    x, stream = _setup(x, rule, stream)
    p = _prologue(x, stream, epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials)
    epsilon, delta, rng, sampler, n, runs = p.epsilon, p.delta, p.rng, p.noise, p.n, p.runs
    beta = check_beta(beta)
    c = sv_updates(rule.bound()) if c is None else check_int("c", c, low=1)
    T = stream.T
    threshold = (dr_online_mw_threshold(c, epsilon, delta, T, beta, n) if threshold is None
                 else check_real("threshold", threshold, low=0.0))
    # ---- budget split (DR-Alg3 box): Sparse at ε1, the c numeric values at ε2; scales for sensitivity 1/n
    epsilon1, epsilon2 = numeric_sparse_split(epsilon, delta)
    sigma1 = numeric_sparse_sigma(epsilon1, c, delta) / n
    sigma2 = numeric_sparse_sigma(epsilon2, c, delta) / n

    test = NumericSparseTest(threshold, sigma1, sigma2, c, sampler, runs, rng)
    run = run_online(x, rule, stream, test, n=n, runs=runs, rng=rng)
    params = dict(alpha=alpha, c=c, threshold=threshold, epsilon1=epsilon1, epsilon2=epsilon2,
                  threshold_scale=sigma1, query_scale=2 * sigma1, value_scale=sigma2, n=n, T=T, beta=beta,
                  composed_epsilon=numeric_sparse_composed_epsilon(epsilon, c, delta))
    return _release(trials is None, run, test.halted(run.updates),
                    mechanism="DR-Alg6 OnlineMW", workload=stream.workload, params=params,
                    ledger=Ledger([Spend("NumericSparse (DR-Alg3) on the 2T one-sided queries", epsilon, delta)]),
                    neighbours=p.neighbours)


example(online_mw_dr, lambda: _example_update_fires(alpha=0.1, c=1, threshold=0.5))


def th_sv_threshold_for(rule, m, epsilon, delta, beta, n, composition="corollary") -> float:
    """The public threshold ``τ_thr = α_U + α_SV`` :func:`online_idc_sv` (IDC-Alg1-SV) will use for this rule and a
    stream of ``m`` queries, with its budget split by ``composition`` (``"corollary"``: DR-Cor3.21's ``ε0``;
    ``"tight"``: DR-Thm3.20 solved) — known before the run, so an analyst can ask just below it."""
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC update rule, got {type(rule).__name__}")
    m = check_int("m", m, low=1)
    composition = check_choice("composition", composition, COMPOSITIONS)
    c = sv_updates(rule.bound()) if rule.bound() > 0 else 1
    epsilon0 = (sv_epsilon0 if composition == "corollary" else sv_epsilon0_tight)(epsilon, delta, c)
    return sv_threshold(rule.alpha, sv_alpha_sv(c, m, beta, epsilon0, n))
