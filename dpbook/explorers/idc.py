"""Chapter 08's widgets: online IDC accuracy against IDC-Alg1-SV's bound, and the privacy-loss picture.

The running example is the cancer data projected to six attributes (``N = 64``) with all 160 three-way
marginal cells as the query class; each patient is counted ``scale`` times (``n = 569·scale``) because the
theorems need a large ``n`` before they say anything (THEOREMS.md §13).  The median mechanism runs on three
attributes (``N = 8``) with all 255 counting queries.
"""
from __future__ import annotations

import math
from functools import lru_cache

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

from ..data import add_row, load_cancer
from ..idc import (AdversarialStream, FixedStream, FriezeKannanIDC, MedianIDC, MultiplicativeWeightsIDC,
                   online_idc_sv, project_histogram)
from ..plots import BOUND, EMPIRICAL, EXTRA, STYLE, new_figure
from ..privacy_loss import CLASS_NAMES, HALTED, R0, R1, RSTAR, replay_alg1
from ..queries import MatrixWorkload, k_way_marginals
from ..theory.idc import sv_alpha_sv, sv_epsilon0, sv_threshold, sv_updates
from ..validation import check_alpha, check_delta, check_epsilon, check_int

__all__ = ["ATTRIBUTES6", "ATTRIBUTES3", "ANALYSTS", "cancer6", "cancer3", "make_rule", "parameter_table",
           "th_sv_threshold_for", "explore_online", "explore_privacy_loss", "privacy_loss_replay"]

ATTRIBUTES6 = (0, 1, 2, 3, 4, 10)          # radius, texture, perimeter, area, smoothness, malignant
ATTRIBUTES3 = (0, 3, 10)                   # radius, area, malignant
CLASS_COLORS = {R0: "#9e9e9e", R1: BOUND, RSTAR: EXTRA[2], HALTED: "#dddddd"}


@lru_cache(maxsize=None)
def _cancer_projection(attributes):
    return project_histogram(load_cancer().x, 11, list(attributes))


def cancer6(scale: int = 1):
    """``(x, W)``: the 6-attribute cancer histogram (each row counted ``scale`` times) and its 3-way marginals."""
    scale = check_int("scale", scale, low=1)
    return _cancer_projection(ATTRIBUTES6) * scale, k_way_marginals(6, 3)


def cancer3(scale: int = 1):
    """``(x, W)``: the 3-attribute cancer histogram (``N = 8``) and all 255 counting queries on it."""
    scale = check_int("scale", scale, low=1)
    Q = ((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float)
    return _cancer_projection(ATTRIBUTES3) * scale, MatrixWorkload(Q)


def make_rule(idc: str, N: int, alpha: float, n: int, s: int = 4):
    """The chapter's three IDCs by name: ``"MW"``, ``"Median"`` (size-``s`` databases) or ``"FK"`` (multiset bound)."""
    if idc == "MW":
        return MultiplicativeWeightsIDC(N, alpha)
    if idc == "Median":
        return MedianIDC(N, s, alpha)
    if idc == "FK":
        return FriezeKannanIDC(N, alpha, n=n)
    raise ValueError(f"idc ({idc!r}) must be 'MW', 'Median' or 'FK'")


def parameter_table(rows, *, limit: float = 1e7) -> str:
    """THEOREMS.md §13: a two-column table, theory value vs the value used, ``INFEASIBLE`` past ``limit``.

    ``rows``: ``(name, theory, practical, note)``; numbers are printed with 4 significant digits.
    """
    def fmt(v):
        if isinstance(v, str):
            return v
        if v is None:
            return "-"
        text = f"{v:.4g}"
        return text + ("  INFEASIBLE" if isinstance(v, (int, float)) and abs(v) > limit else "")
    lines = [f"{'parameter':<28}{'theory':>22}{'used':>16}   note", "-" * 96]
    lines += [f"{name:<28}{fmt(th):>22}{fmt(pr):>16}   {note}" for name, th, pr, note in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------- accuracy explorer

def th_sv_threshold_for(rule, k, epsilon, delta, beta, n) -> float:
    """The public threshold ``T_thr = α_U + α_SV`` IDC-Alg1-SV will use for this rule and stream length."""
    c = sv_updates(rule.bound()) if rule.bound() > 0 else 1
    return sv_threshold(rule.alpha, sv_alpha_sv(c, k, beta, sv_epsilon0(epsilon, delta, c), n))


ANALYSTS = ("worst query below T_thr", "worst query")


def explore_online(epsilon=0.9, alpha_u=0.1, scale=2000, k=60, idc="MW", analyst=ANALYSTS[0], *, delta=1e-6,
                   beta=0.05, trials=40, seed=2026):
    """IDC-Alg1-SV on an adversarial stream: the max error of each run against ``α_U + 2α_SV`` (left), and the
    number of updates against ``c = B(α_U)`` (right).  ``scale`` multiplies every count (``n = 569·scale``).

    ``analyst``: ``"worst query below T_thr"`` asks the worst query the threshold lets through (answers come
    from the hypothesis: the case the bound is for); ``"worst query"`` asks the worst query overall (nearly
    every round then updates and releases a fresh Laplace answer).
    """
    epsilon, delta, alpha_u = check_epsilon(epsilon), check_delta(delta), check_alpha(alpha_u, "alpha_u")
    k, trials = check_int("k", k, low=1), check_int("trials", trials, low=2)
    if analyst not in ANALYSTS:
        raise ValueError(f"analyst ({analyst!r}) must be one of {ANALYSTS}")
    x, W = cancer3(scale) if idc == "Median" else cancer6(scale)
    rule = make_rule(idc, x.size, alpha_u, int(x.sum()))
    below = th_sv_threshold_for(rule, k, epsilon, delta, beta, int(x.sum())) if analyst == ANALYSTS[0] else None
    rel = online_idc_sv(x, rule, AdversarialStream(W, k, below=below), epsilon=epsilon, delta=delta, beta=beta,
                        trials=trials, rng=seed)
    err = rel.errors(x).max
    p = rel.params
    start = float(np.abs(rule.answers(rule.initial(1), W.matrix()) - W.answers(x)).max())
    fig, (left, right) = new_figure(2)
    edges = np.linspace(0.0, 1.05 * max(start, p["error_bound"], float(err.max())), 80)
    left.hist(err, bins=edges, color=EMPIRICAL, alpha=0.8, label="measured max error per run")
    left.axvline(p["error_bound"], color=BOUND, label="bound α_U + 2α_SV")
    left.axvline(alpha_u, color=BOUND, ls=":", label="α_U")
    left.axvline(start, color="k", ls="--", label="error of the start D¹")
    left.set_xlabel("max |answer − truth| over the stream")
    left.set_ylabel("runs")
    left.set_title(f"{rule.name}, {analyst}: n={int(x.sum()):,}, ε={epsilon:.3g}, k={k}", fontsize=9)
    left.legend(fontsize=7)
    right.hist(rel.updates, bins=np.arange(rel.updates.max() + 2) - 0.5, color=EMPIRICAL, alpha=0.7,
               label="updates per run")
    right.set_xlabel(f"number of updates (cap c = {p['c']})")
    right.set_ylabel("runs")
    right.set_title(f"ε0 = {p['epsilon0']:.3g}, T_thr = {p['T_thr']:.3g}")
    right.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------- privacy-loss picture

@lru_cache(maxsize=32)
def privacy_loss_replay(epsilon=1.0, delta=1e-6, alpha=0.3, rounds=120, row=None, *, scale=100, b_max=20,
                        runs=300, seed=2026):
    """IDC-Alg1 on the 6-attribute cancer data (``n = 569·scale``), replayed against ``D' = D + e_row``.

    The stream is a fixed, seeded random order of the 160 marginal cells (``rounds`` of them); the MW rule is
    built at ``α/3``; ``B_max`` is capped at ``b_max`` (§13: ε0 recomputed from the cap).  ``row=None`` adds a
    copy of the most common row.  Cached: the round slider only redraws.
    """
    x, W = cancer6(scale)
    row = int(np.argmax(x)) if row is None else check_int("row", row, low=0, high=x.size - 1)
    order = np.random.default_rng(seed).integers(0, W.m, check_int("rounds", rounds, low=1))
    return replay_alg1(x, add_row(x, row), MultiplicativeWeightsIDC(x.size, alpha / 3), FixedStream(W, order),
                       delta=delta, epsilon=epsilon, b_max=b_max, n=int(x.sum()), runs=runs, rng=seed)


def explore_privacy_loss(epsilon=1.0, delta=1e-6, alpha=0.3, rounds=120, row=None, round_t=None, run=0, *,
                         scale=100, b_max=20, runs=300, seed=2026):
    """The privacy-loss picture of IDC-Thm4.1 for one neighbouring pair, round by round.

    Top left: round ``round_t`` of run ``run`` — the densities of ``Â = Q(D) + Z`` under ``D`` and ``D'``, the
    ``⊥`` window ``(a − T, a + T)`` and the realised output, with the loss ``ℓ(y) = ln p_D(y)/p_D'(y)`` of every
    possible output.  Top right: each round's exact loss ``L_t``, coloured by the proof's class.
    Bottom left: the running total against ``ε`` and the Azuma bound at the running count of non-R⁰ rounds.
    Bottom right: the total loss over ``runs`` seeded runs, ``ε`` marked, ``P[L > ε]`` next to ``δ``.
    """
    epsilon, delta, alpha = check_epsilon(epsilon), check_delta(delta, positive=True), check_alpha(alpha)
    rep = privacy_loss_replay(epsilon, delta, alpha, rounds, row, scale=scale, b_max=b_max, runs=runs, seed=seed)
    run = check_int("run", run, low=0, high=rep.runs - 1)
    k = rep.loss.shape[1]
    nonzero = np.flatnonzero(rep.mu[run] != rep.mu_prime[run])
    default_t = int(nonzero[0]) if nonzero.size else 0
    t = default_t if round_t is None else min(check_int("round_t", round_t, low=0), k - 1)   # sliders are independent
    with mpl.rc_context(STYLE):
        fig, ((a1, a2), (a3, a4)) = plt.subplots(2, 2, figsize=(10.5, 7.2), layout="constrained")
    _draw_round(a1, rep, run, t)
    _draw_losses(a2, rep, run, t)
    _draw_running(a3, rep, run, t)
    _draw_histogram(a4, rep)
    return fig


def _draw_round(ax, rep, run, t):
    mu, mup, a, T, b = rep.mu[run, t], rep.mu_prime[run, t], rep.hyp[run, t], rep.T, rep.b
    lo, hi = min(mu, a) - T - 6 * b, max(mu, a) + T + 6 * b
    y = np.linspace(lo, hi, 600)
    ax.fill_between(y, 0, np.exp(-np.abs(y - mu) / b) / (2 * b), color=EMPIRICAL, alpha=0.25, label="density of Â under D")
    ax.plot(y, np.exp(-np.abs(y - mup) / b) / (2 * b), color=BOUND, lw=1, ls="--", label="… under D'")
    ax.axvspan(a - T, a + T, color="#9e9e9e", alpha=0.2, label="⊥ window (a−T, a+T)")
    ax.axvline(a, color="k", lw=0.8)
    v = rep.v[run, t]
    cls = int(rep.cls[run, t])
    out = "⊥" if np.isnan(v) else f"y = {v:.4g}"
    if not np.isnan(v):
        ax.axvline(v, color=CLASS_COLORS[cls], lw=2, label="released y")
    ax.set_xlabel("answer value")
    ax.set_ylabel("density")
    ax.set_title(f"round {t + 1}: {CLASS_NAMES[cls].split(' ')[0]}, output {out}, L_t = {rep.loss[run, t]:+.2e}",
                 fontsize=9)
    twin = ax.twinx()
    ell = (np.abs(y - mup) - np.abs(y - mu)) / b
    outside = np.abs(y - a) >= T
    twin.plot(np.where(outside, y, np.nan), ell, color=EXTRA[1], lw=1)
    twin.axhline(0, color=EXTRA[1], lw=0.5, ls=":")
    twin.set_ylim(-1.3 * rep.epsilon0, 1.3 * rep.epsilon0)
    twin.set_ylabel("loss ℓ(y) of a numeric output", color=EXTRA[1], fontsize=8)
    ax.legend(fontsize=7, loc="upper left")


def _draw_losses(ax, rep, run, t):
    k = rep.loss.shape[1]
    rounds = np.arange(1, k + 1)
    for c in (R0, R1, RSTAR, HALTED):
        sel = rep.cls[run] == c
        if sel.any():
            ax.vlines(rounds[sel], 0, rep.loss[run, sel], color=CLASS_COLORS[c], lw=2.5,
                      label=f"{CLASS_NAMES[c]} ({int(sel.sum())})")
    for sgn in (1, -1):
        ax.axhline(sgn * rep.epsilon0, color="k", lw=0.7, ls=":")
    ax.axvline(t + 1, color="k", lw=0.8)
    ax.set_yscale("symlog", linthresh=rep.epsilon0 / 100)
    ax.set_ylim(-2 * rep.epsilon0, 2 * rep.epsilon0)
    ax.set_xlabel("round t")
    ax.set_ylabel("exact loss L_t (symlog)")
    ax.set_title(f"per-round loss of run {run}; dotted: ±ε0 = ±{rep.epsilon0:.3g}", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")


def _draw_running(ax, rep, run, t):
    k = rep.loss.shape[1]
    rounds = np.arange(1, k + 1)
    running, Kt = rep.running[run], rep.running_K[run]
    ax.plot(rounds, running, color=EMPIRICAL, label="running total Σ L_s")
    ax.plot(rounds, rep.azuma(Kt), color=BOUND, ls="--", label="Azuma bound at K_t (Claim 4.7)")
    ax.axhline(rep.epsilon, color=BOUND, label=f"ε = {rep.epsilon:.3g}")
    ax.axvline(t + 1, color="k", lw=0.8)
    ax.set_yscale("symlog", linthresh=rep.epsilon0)
    ax.set_xlabel("round t")
    ax.set_ylabel("privacy loss (symlog)")
    ax.set_title(f"K = {int(rep.K[run])} non-R⁰ rounds; K0 = {rep.K0:.0f} (Claim 4.6)", fontsize=9)
    ax.legend(fontsize=7, loc="center right")


def _draw_histogram(ax, rep):
    """Histogram of the total loss on a symlog axis (linear within ±ε0/10), so the spike and ε both show."""
    total = rep.total
    ex = rep.exceedance()
    thresh = rep.epsilon0 / 10
    top = max(rep.epsilon, np.abs(total).max()) * 2
    pos = np.geomspace(thresh, top, 30)
    edges = np.concatenate([-pos[::-1], np.linspace(-thresh, thresh, 5)[1:-1], pos])
    counts, _ = np.histogram(np.clip(total, edges[0], edges[-1]), bins=edges)
    ax.stairs(counts, edges, fill=True, color=EMPIRICAL, alpha=0.7, label=f"total loss L(v), {rep.runs} runs")
    ax.axvline(rep.epsilon, color=BOUND, lw=2, label=f"ε = {rep.epsilon:.3g}")
    ax.set_xscale("symlog", linthresh=thresh)
    ax.set_xlim(-max(np.abs(total.min()), thresh) * 2, top)
    ax.set_xlabel("total privacy loss L(v) (symlog)")
    ax.set_ylabel("runs")
    ax.set_title(f"P[L > ε] = {ex.failures}/{ex.trials} (95% CI ≤ {ex.upper:.2g}) vs δ = {rep.delta:.2g}; "
                 f"max L = {total.max():.2g}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
