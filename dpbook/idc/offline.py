"""The offline Iterative Construction (IC) mechanism, IDC-Alg3 (Gupta–Roth–Ullman, TCC 2012, §7; chapter 10).

A private distinguisher (the exponential mechanism over the workload) picks the query on which the hypothesis is
worst, a Laplace answer drives the IDC; with :class:`~dpbook.idc.MultiplicativeWeightsIDC` this is the structure
of MWEM (:mod:`dpbook.mwem`) with an early stop instead of averaging.
"""
from __future__ import annotations

import numpy as np

from ..exponential import exponential_mechanism
from ..noise import laplace_noise
from ..queries import as_workload
from ..release import COMPOSITIONS, Ledger, Release, Spend, composition_rule, theorem_epsilon
from ..theory.composition import tight_per_step_epsilon
from ..theory.idc import ic_epsilon0
from ..contract import example, mechanism_prologue
from ..validation import check_choice, check_entry_range, check_histogram, check_int
from .updates import IDC

__all__ = ["iterative_construction"]


def _distinguish(true, hyp, epsilon0, n, rng) -> np.ndarray:
    """The canonical private distinguisher (IDC-Def7.1): for each run (row of ``hyp``), the exponential
    mechanism over the workload with score ``|Q(D) - Q(D^t)|`` (``Δu = 1/n``), one independent pick per row."""
    return np.asarray(exponential_mechanism(np.abs(true - hyp), epsilon=epsilon0, sensitivity=1.0 / n, rng=rng),
                      dtype=np.int64)


def iterative_construction(x, workload, *, rule, epsilon, delta, n=None, rounds=None, trials=None, rng=None,
                           sampler=laplace_noise, composition="corollary") -> Release:
    """IDC-Alg3 — the Iterative Construction (IC) mechanism, offline (GRU §7; privacy IDC-Thm7.2).

    Build ``rule`` at ``α/2``.  For ``t = 1..B(α/2)``: ``Q^t = Distinguish_{ε0}(D, D^{t-1})`` — the exponential
    mechanism over the workload with score ``|Q(D) - Q(D^{t-1})|`` (``Δu = 1/n``, the canonical private
    distinguisher of IDC-Def7.1); ``Â^t = Q^t(D) + Lap(1/(ε0 n))``; if ``|Â^t - Q^t(D^{t-1})| < 3α/4`` output
    ``D^{t-1}`` and stop; else ``D^t = U(D^{t-1}, Q^t, Â^t)``.  Budget (IDC-Thm7.2): ``2B`` accesses at
    ``ε0 = ε/(4 sqrt(B ln(1/δ)))`` (``ε/(2B)`` if ``δ = 0``) — DR-Cor3.21's split, which provably composes to
    about half of ``ε``; ``composition="tight"`` solves DR-Thm3.20 for ``ε0`` instead and spends all of it.  ``rounds`` caps ``B`` (privacy recomputed for the
    cap; accuracy guarantee void).  Returns a :class:`Release` of the output hypothesis' answers on the
    workload; ``trace`` holds ``rounds_used``, ``stopped_early`` and the hypotheses.

    With :class:`MultiplicativeWeightsIDC` this is MWEM's structure (select by the exponential mechanism,
    measure with Laplace, multiplicative-weights update) with an early stop instead of averaging.  The workload's
    queries must have values in ``[0, 1]`` (its :meth:`~dpbook.queries.Workload.entry_range`; else ``ValueError``).
    """
    x = check_histogram(x)
    W = as_workload(workload, name="workload")
    if not isinstance(rule, IDC):
        raise TypeError(f"rule must be an IDC, got {type(rule).__name__}")
    if W.N != x.size or rule.N != x.size:
        raise ValueError(f"x has {x.size} universe elements, the workload {W.N}, the rule {rule.N}: they must agree")
    check_entry_range(W, "workload", 0.0, 1.0, why="IDC-Thm7.2: the distinguisher's score and the Laplace answer "
                                                   "have sensitivity 1/n for queries in [0, 1]")
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, n=n, trials=trials,
                           neighbours="replace-one" if n is None else "add/remove", x=x, n_rule="public",
                           per_release=(W.m,), family="laplace", lattice_ok=False)   # Laplace on normalised reals
    epsilon, delta, rng, sampler, n = p.epsilon, p.delta, p.rng, p.noise, p.n
    runs = p.runs
    B_theory = max(1, int(np.floor(rule.bound())))
    B = B_theory if rounds is None else check_int("rounds", rounds, low=1)
    # ---- budget split: B rounds x (distinguisher + Laplace), each ε0-DP
    composition = check_choice("composition", composition, COMPOSITIONS)
    epsilon0 = (ic_epsilon0(epsilon, delta, B) if composition == "corollary" or delta == 0.0
                else tight_per_step_epsilon(epsilon, 2 * B, delta))
    stop = 1.5 * rule.alpha                                     # 3α/4 with α = 2·rule.alpha
    true = W.counts(x) / n
    state = rule.initial(runs)
    running = np.ones(runs, dtype=bool)
    rounds_used = np.zeros(runs, dtype=np.int64)
    for _ in range(B):
        if not running.any():
            break
        rows = np.flatnonzero(running)
        hyp = rule.answers(state[rows], W)                      # (r, m): every query on every running hypothesis
        picks = _distinguish(true, hyp, epsilon0, n, rng)
        a_hat = true[picks] + sampler(1.0 / (epsilon0 * n), rows.size, rng)
        here = hyp[np.arange(rows.size), picks]
        rounds_used[rows] += 1
        go = np.abs(a_hat - here) >= stop
        running[rows[~go]] = False
        upd = rows[go]
        if upd.size:
            state[upd] = rule.update_query(state[upd], W, picks[go], a_hat[go])
    answers = rule.answers(state, W)
    ledger = Ledger([Spend("exponential mechanism (distinguisher)", epsilon0), Spend("Laplace answer", epsilon0)] * B,
                    rule=composition_rule(delta, composition), delta_prime=delta, budget=epsilon)
    trace = {"rounds_used": rounds_used, "stopped_early": ~running, "hypothesis": state, "B": B, "B_theory": B_theory,
             "epsilon0": epsilon0, "stop_threshold": stop, "composed_epsilon": theorem_epsilon(ledger)}
    if trials is None:
        answers = answers[0]
        trace.update(rounds_used=int(rounds_used[0]), stopped_early=bool(~running[0]), hypothesis=state[0])
    return Release(answers, f"IC[{rule.name}]", noise_scale=1.0 / (epsilon0 * n), ledger=ledger,
                   trace=trace, neighbours=p.neighbours)


def _example_marginals(**kw):
    from ..queries import k_way_marginals
    from .updates import MultiplicativeWeightsIDC
    return dict(x=np.arange(16), workload=k_way_marginals(4, 1), rule=MultiplicativeWeightsIDC(16, 0.2), epsilon=0.9,
                delta=1e-6, rng=0, **kw)


example(iterative_construction, _example_marginals, lambda: _example_marginals(composition="tight"))
