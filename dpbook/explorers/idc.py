"""Chapter 08's widgets: online IDC accuracy against IDC-Alg1-SV's bound, the large-universe regime (digits,
``N = 2^16``: :func:`digits16`), and the privacy-loss picture of the IDC proof in three views — one round close up
(:func:`explore_round`), the whole run against basic / Azuma / Freedman-type / Alg1-SV bounds and the widget that
makes R* rounds frequent or rare (:func:`explore_run`, cached replays from :func:`privacy_loss_run`).

The running example is the cancer data projected to six attributes (``N = 64``) with all 160 three-way
marginal cells as the query class; each patient is counted ``scale`` times (``n = 569·scale``) because the
theorems need a large ``n`` before they say anything (chapter 08 says where each theorem's parameters are
astronomical).  The median mechanism runs on three
attributes (``N = 8``) with all 255 counting queries.
"""
from __future__ import annotations

from functools import lru_cache

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

from matplotlib.collections import LineCollection

from ..data import add_row, bootstrap, cancer_projection, digits_histogram
from ..experiments import uniform_guess_error
from ..idc import (AdversarialStream, FixedStream, FriezeKannanIDC, MedianIDC, MultiplicativeWeightsIDC,
                   online_idc_sv)
from ..plots import BOUND, EMPIRICAL, EXTRA, STYLE, legend_outside
from ._layout import fixed_figure
from ..privacy_loss import CLASS_NAMES, HALTED, R0, R1, RSTAR, replay_alg1, round_loss, round_moments, update_probability
from ..queries import MarginalWorkload, MatrixWorkload, k_way_marginals
from ..release import COMPOSITIONS
from ..theory.idc import (alg1_azuma_epsilon, alg1_freedman_epsilon, alg1_freedman_epsilon0, alg1_threshold,
                          sv_alpha_sv, sv_epsilon0, sv_epsilon0_tight, sv_privacy_epsilon, sv_threshold, sv_updates)
from ..validation import check_alpha, check_choice, check_delta, check_epsilon, check_int, check_real

__all__ = ["ATTRIBUTES6", "ATTRIBUTES3", "ANALYSTS", "cancer6", "cancer3", "make_rule", "parameter_table",
           "th_sv_threshold_for", "explore_online", 
           "digits16", "digits_marginals", "explore_round", "privacy_loss_run", "run_bounds", "fraction_above",
           "explore_run"]

ATTRIBUTES6 = (0, 1, 2, 3, 4, 10)          # radius, texture, perimeter, area, smoothness, malignant
ATTRIBUTES3 = (0, 3, 10)                   # radius, area, malignant


def cancer6(scale: int = 1):
    """``(x, W)``: the 6-attribute cancer histogram (:func:`dpbook.data.cancer_projection`, each row counted
    ``scale`` times) and the chapter's workload on it, its 3-way marginals."""
    scale = check_int("scale", scale, low=1)
    return cancer_projection(ATTRIBUTES6).x * scale, k_way_marginals(6, 3)


def cancer3(scale: int = 1):
    """``(x, W)``: the 3-attribute cancer histogram (``N = 8``, :func:`dpbook.data.cancer_projection`) and the
    chapter's workload on it, all 255 counting queries."""
    scale = check_int("scale", scale, low=1)
    Q = ((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float)
    return cancer_projection(ATTRIBUTES3).x * scale, MatrixWorkload(Q)


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
    """A two-column table, theory value vs the value used, ``INFEASIBLE`` past ``limit`` (the theorems' parameters
    next to the ones the chapter can run).

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

def th_sv_threshold_for(rule, k, epsilon, delta, beta, n, composition="corollary") -> float:
    """The public threshold ``T_thr = α_U + α_SV`` IDC-Alg1-SV will use for this rule and stream length, with its
    budget split by ``composition`` (``"corollary"``: DR-Cor3.21's ``ε0``; ``"tight"``: DR-Thm3.20 solved)."""
    composition = check_choice("composition", composition, COMPOSITIONS)
    c = sv_updates(rule.bound()) if rule.bound() > 0 else 1
    epsilon0 = (sv_epsilon0 if composition == "corollary" else sv_epsilon0_tight)(epsilon, delta, c)
    return sv_threshold(rule.alpha, sv_alpha_sv(c, k, beta, epsilon0, n))


ANALYSTS = ("worst query below T_thr", "worst query")


def explore_online(epsilon=0.9, alpha_u=0.1, scale=2000, k=60, idc="MW", analyst=ANALYSTS[0], *, delta=1e-6,
                   beta=0.05, trials=40, seed=2026, composition="tight"):
    """IDC-Alg1-SV on an adversarial stream: the max error of each run against ``α_U + 2α_SV`` (left), and the
    number of updates against ``c = B(α_U)`` (right).  ``scale`` multiplies every count (``n = 569·scale``).

    ``analyst``: ``"worst query below T_thr"`` asks the worst query the threshold lets through (answers come
    from the hypothesis: the case the bound is for); ``"worst query"`` asks the worst query overall (nearly
    every round then updates and releases a fresh Laplace answer).  ``composition``: the budget split
    (``"tight"``, the chapter's: DR-Thm3.20 solved for ``ε0``; ``"corollary"``: DR-Cor3.21's closed form).
    """
    epsilon, delta, alpha_u = check_epsilon(epsilon), check_delta(delta), check_real("alpha_u", alpha_u, low=1e-3, high=2.0)
    k, trials = check_int("k", k, low=1), check_int("trials", trials, low=2)
    if analyst not in ANALYSTS:
        raise ValueError(f"analyst ({analyst!r}) must be one of {ANALYSTS}")
    x, W = cancer3(scale) if idc == "Median" else cancer6(scale)
    rule = make_rule(idc, x.size, alpha_u, int(x.sum()))
    composition = check_choice("composition", composition, COMPOSITIONS)
    below = (th_sv_threshold_for(rule, k, epsilon, delta, beta, int(x.sum()), composition)
             if analyst == ANALYSTS[0] else None)
    rel = online_idc_sv(x, rule, AdversarialStream(W, k, below=below, reference=x), epsilon=epsilon, delta=delta,
                        beta=beta, trials=trials, rng=seed, composition=composition)
    err = rel.errors(x).max
    p = rel.params
    start = float(np.abs(rule.answers(rule.initial(1), W) - W.answers(x)).max())
    fig, (left, right) = fixed_figure(2, width=10, height=5, left=0.72, right=0.15, bottom=1.6, top=0.3, wspace=0.8)
    edges = np.linspace(0.0, 1.05 * max(start, p["error_bound"], float(err.max())), 80)
    left.hist(err, bins=edges, histtype="stepfilled", color=EMPIRICAL, alpha=0.8, label="measured max error per run")
    left.axvline(p["error_bound"], color=BOUND, label="bound α_U + 2α_SV")
    left.axvline(alpha_u, color=BOUND, ls=":", label="α_U")
    left.axvline(start, color="k", ls="--", label="error of the start D¹")
    left.set_xlabel("max |answer − truth| over the stream")
    left.set_ylabel("runs")
    left.set_title(f"{rule.name}: n = 569·{scale:,} (duplicated), ε = {epsilon:.3g}, k = {k}")
    legend_outside(left, where="below")
    right.hist(rel.updates, bins=np.arange(rel.updates.max() + 2) - 0.5, histtype="stepfilled", color=EMPIRICAL, alpha=0.7,
               label="updates per run")
    right.set_xlabel(f"number of updates (cap c = {p['c']})")
    right.set_ylabel("runs")
    right.set_title(f"ε0 = {p['epsilon0']:.3g}, T_thr = {p['T_thr']:.3g}")
    legend_outside(right, where="below")
    return fig


# --------------------------------------------------------------------------- privacy-loss picture

# =========================================================================== a large universe: digits, d = 16

@lru_cache(typed=True, maxsize=1)
def _digits_marginal_matrix():
    d = 16
    bits = ((np.arange(1 << d)[None, :] >> (d - 1 - np.arange(d))[:, None]) & 1).astype(np.float64)
    values = np.stack([1.0 - bits, bits])                          # values[v, j] = [x_j == v] over the universe
    rows = [values[v, j] for j in range(d) for v in (0, 1)]
    rows += [values[v, i] * values[w, j] for i in range(d) for j in range(i + 1, d) for v in (0, 1) for w in (0, 1)]
    Q = np.stack(rows)
    Q.setflags(write=False)
    return Q


def digits16(scale: int = 1, rows: int | None = None):
    """``(x, W)``: the digits histogram over ``{0,1}^16`` (:func:`dpbook.data.digits_histogram`: ``scale``
    duplicates every image, said in every figure title that uses it; ``rows`` resamples that many) and the
    chapter's workload on it, every 1- and 2-way marginal cell of the 16 pixels (``m = 32 + 480 = 512``)."""
    return digits_histogram(scale, rows), MatrixWorkload(_digits_marginal_matrix())


def digits_marginals(ks=(1, 2), scale: int = 1, rows: int | None = None):
    """``(x, W)``: the digits histogram of :func:`digits16` (``N = 2^16``, same ``scale`` / ``rows``) and every
    ``k``-way marginal cell of the 16 pixels for each ``k`` in ``ks``, as a :class:`~dpbook.queries.MarginalWorkload`
    — answered by the superset-sum transform, never as an ``m × N`` matrix.  ``ks=(1, 2)``: the same 512 cells in
    the same order as :func:`digits16`; ``ks=(1, 2, 3)``: ``m = 32 + 480 + 4480 = 4992`` cells (``m ≫ n``).
    """
    ks = tuple(check_int("ks", k, low=1, high=16) for k in np.atleast_1d(np.asarray(ks, dtype=object)))
    if not ks or len(set(ks)) != len(ks):
        raise ValueError(f"ks ({ks!r}) must be distinct marginal orders in [1, 16]")
    cells = [cell for k in ks for cell in k_way_marginals(16, k).cells]
    return digits_histogram(scale, rows), MarginalWorkload(16, cells)


# =========================================================================== the privacy-loss picture, redesigned

R_COLORS = {R0: "#bdbdbd", RSTAR: EXTRA[1], R1: "#f4c7c3", HALTED: "#eeeeee"}


def explore_round(n=20, epsilon0=0.5, gap=1.0, alpha=0.6, *, seed=2026):
    """View 1 — one round of Algorithm 1, close up (the privacy-loss picture of IDC-Thm4.1, erratum IDC-E6).

    ``μ = Q(D) = 0.3``, ``μ' = Q(D') = μ + 1/n`` (``D'`` has one more row inside the query), the hypothesis answer
    ``a = μ + gap·T`` with ``T = 2α/3``, noise ``Lap(1/(ε0 n))``.  Top: the densities of the noisy answer under
    ``D`` and ``D'`` with the proof's regions R⁰ / R* / R¹ shaded (classified by the noise, as the proof does)
    and one seeded draw.  Bottom: the loss of every possible output — the numeric outputs' Laplace ratio, and
    the one value ``ℓ(⊥)`` every draw in the ⊥ window shares, whatever its class — against ``±ε0``.
    """
    n = check_int("n", n, low=1, high=10**9)
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=0.5)
    gap = check_real("gap", gap, low=-5.0, high=5.0)
    alpha = check_real("alpha", alpha, low=1e-3, high=1.0)           # the panel's accuracies (normalised)
    T, s, b, mu = alg1_threshold(alpha), 1.0 / n, 1.0 / (epsilon0 * n), 0.3
    mu_p, a = mu + s, mu + gap * alg1_threshold(alpha)
    lo, hi = min(mu, a - T) - 5 * b, max(mu_p, a + T) + 5 * b
    y = np.linspace(lo, hi, 1201)
    draw = mu + float(np.random.default_rng(seed).laplace(0.0, b))
    u = float(update_probability(mu, a, T, b))
    ell_bot = float(round_loss(np.nan, mu, mu_p, a, T, b))
    m1, m2 = round_moments(mu, mu_p, a, T, b, points=4_001)
    with mpl.rc_context(STYLE):
        fig, (top, bot) = plt.subplots(2, 1, figsize=(10, 6.6), sharex=True, layout="constrained",
                                       height_ratios=(1.15, 1))
    dist = np.abs(y - a)
    for lo_, hi_, cls in ((0, T - s, R0), (T - s, T + s, RSTAR), (T + s, np.inf, R1)):
        top.fill_between(y, 0, 1, where=(dist >= lo_) & (dist < hi_), color=R_COLORS[cls],
                         transform=top.get_xaxis_transform(), alpha=0.9, lw=0, label=CLASS_NAMES[cls])
    top.plot(y, np.exp(-np.abs(y - mu) / b) / (2 * b), color=EMPIRICAL, lw=2.5, label="density under D")
    top.plot(y, np.exp(-np.abs(y - mu_p) / b) / (2 * b), color="k", lw=1.5, ls="--", label="density under D′ (+1/n)")
    top.axvline(draw, color=EMPIRICAL, lw=1.5, ls=":")
    top.set_ylabel("density of Q(D) + Z")
    top.set_title(f"one round, n = {n}, ε0 = {epsilon0:.3g}:\nhypothesis off by {gap:.3g}·T (T = {T:.2g}, "
                  f"noise scale {b:.2g})")
    legend_outside(top)
    bottom_window = dist < T
    ell_num = np.where(bottom_window, np.nan, (np.abs(y - mu_p) - np.abs(y - mu)) / b)
    bot.plot(y, ell_num, color=EMPIRICAL, lw=2.5, label="loss of a released number y")
    bot.plot(np.where(bottom_window, y, np.nan), np.full_like(y, ell_bot), color=EMPIRICAL, lw=5, alpha=0.5,
             label=f"loss of ⊥ (R⁰ or R*): {ell_bot / epsilon0:+.2f} ε0")
    for sgn in (1, -1):
        bot.axhline(sgn * epsilon0, color=BOUND, lw=1.5, ls="--", label="±ε0: bound for every round" if sgn > 0 else None)
    out_bot = abs(draw - a) < T
    realised = ell_bot if out_bot else (abs(draw - mu_p) - abs(draw - mu)) / b
    bot.plot([draw], [realised], "o", color=EMPIRICAL, ms=10, mec="k",
             label=f"this draw ({'⊥' if out_bot else 'a number'}): {realised / epsilon0:+.2f} ε0")
    bot.set_ylim(-1.35 * epsilon0, 1.35 * epsilon0)
    bot.set_xlabel("noisy answer Q(D) + Z")
    bot.set_ylabel("privacy loss ℓ")
    bot.set_title(f"P[update] u = {u:.2g};  E[L] = {m1 / epsilon0 ** 2:.2g} ε0²;  "
                  f"E[L²] = {m2 / epsilon0 ** 2:.2g} ε0² ≤ 4u ε0² = {4 * u:.2g} ε0²")
    legend_outside(bot)
    return fig


@lru_cache(typed=True, maxsize=32)
def privacy_loss_run(n=1000, b_max=30, epsilon=1.0, delta=1e-6, alpha=0.6, *, rounds=400, runs=300, seed=2026):
    """IDC-Alg1 with the MW rule at ``α/3`` on ``n`` cancer patients resampled on three attributes (``N = 8``), a
    seeded random order of the 255 counting queries, replayed against ``D' = D +`` one more copy of the commonest
    row, with ``ε0`` from the book's Freedman-type bound (:func:`~dpbook.theory.idc.alg1_freedman_epsilon0`).
    Returns ``(replay, ε0)``.  Cached: the callbacks redraw only."""
    n, b_max = check_int("n", n, low=1, high=10**7), check_int("b_max", b_max, low=0, high=10**4)
    epsilon, delta, alpha = check_epsilon(epsilon), check_delta(delta, positive=True), check_alpha(alpha)
    rounds, runs = check_int("rounds", rounds, low=1, high=10**4), check_int("runs", runs, low=2, high=10**5)
    x3, W8 = cancer3()
    x = bootstrap(x3, n, rng=seed)
    eps0 = alg1_freedman_epsilon0(epsilon, b_max, delta)
    order = np.random.default_rng(seed).integers(0, W8.m, rounds)
    rep = replay_alg1(x, add_row(x, int(np.argmax(x))), MultiplicativeWeightsIDC(8, alpha / 3), FixedStream(W8, order),
                      delta=delta, epsilon0=eps0, b_max=b_max, n=n, runs=runs, rng=seed)
    return rep, eps0


def run_bounds(rep, epsilon0, delta, b_max) -> dict:
    """The bounds of the whole-run view at every round ``t`` (arrays over ``t = 1..k``), and the erratum's
    accounting per run (Azuma over the realised non-R⁰ rounds only, R⁰ counted free), shape ``(runs, k)``."""
    t = np.arange(1, rep.loss.shape[1] + 1, dtype=float)
    return {
        "basic": t * epsilon0,
        "azuma": np.array([alg1_azuma_epsilon(int(tt), epsilon0, delta) for tt in t]),
        "freedman": np.full(t.shape, alg1_freedman_epsilon(epsilon0, b_max, delta)),
        "sv": np.full(t.shape, sv_privacy_epsilon(epsilon0, b_max + 1, delta)),
        "claim42": rep.running_K * epsilon0 * np.expm1(epsilon0)
                   + 2 * epsilon0 * np.sqrt(2 * rep.running_K * np.log(2 / delta)),
    }


def fraction_above(rep, bounds) -> dict:
    """The fraction of runs whose running loss ever exceeds each bound curve."""
    running = rep.running
    return {name: float(np.mean(np.any(running > curve, axis=1))) for name, curve in bounds.items()}


def explore_run(n=1000, b_max=30, epsilon=1.0, delta=1e-6, alpha=0.6, *, rounds=400, runs=300, seed=2026, shown=60):
    """Views 2 and 3 — the whole run: how often each proof class occurs among the rounds that touch the data
    (left; the rest come after the update cap, "halted") and the cumulative privacy loss
    of ``runs`` runs against the bounds (right): basic ``t ε0``, advanced composition / Azuma over every round
    (``√t``), the book's Freedman-type bound (flat in ``t``: ⊥ rounds paid through their update probability), and
    what IDC-Alg1-SV would claim with the same ``ε0`` and ``c = B_max + 1``.  The legend gives the fraction of
    runs whose loss ever crosses each curve, and for the erratum's accounting (R⁰ rounds free).
    """
    shown = check_int("shown", shown, low=0)
    rep, eps0 = privacy_loss_run(n, b_max, epsilon, delta, alpha, rounds=rounds, runs=runs, seed=seed)
    bounds = run_bounds(rep, eps0, delta, b_max)
    above = fraction_above(rep, bounds)
    k = rep.loss.shape[1]
    t = np.arange(1, k + 1)
    with mpl.rc_context(STYLE):
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 6.2), layout="constrained", width_ratios=(1, 2.8))
    active = rep.cls != HALTED
    shares = [float(np.mean(rep.cls[active] == c)) for c in (R0, RSTAR, R1)]
    bars = left.barh(["R¹", "R*", "R⁰"], shares[::-1], color=[R_COLORS[c] for c in (R1, RSTAR, R0)], edgecolor="k")
    for bar, share in zip(bars, shares[::-1]):
        left.text(min(share, 0.62) + 0.02, bar.get_y() + bar.get_height() / 2, f"{share:.1%}", va="center")
    left.set_xlim(0, 1)
    left.set_xlabel(f"share of active rounds ({1 - active.mean():.0%} halted)")
    left.set_title(f"round classes, ε0 = {eps0:.2g}")
    segs = np.stack([np.broadcast_to(t, (min(shown, rep.runs), k)), rep.running[:shown]], axis=-1)
    right.add_collection(LineCollection(segs, colors=EMPIRICAL, alpha=0.25, lw=1))
    right.plot(t, rep.running.max(axis=0), color=EMPIRICAL, lw=2.5,
               label=f"measured: max of {rep.runs} runs (thin: {min(shown, rep.runs)} runs)")
    styles = {"basic": (":", "basic: t·ε0"), "azuma": ("--", "Azuma, all rounds: ∝ √t"),
              "freedman": ("-", "Freedman-type (book)"), "sv": ("-.", f"Alg1-SV, same ε0, c = {b_max + 1}")}
    for name, (ls, label) in styles.items():
        right.plot(t, bounds[name], color=BOUND, ls=ls, lw=2, label=f"{label}: {above[name]:.0%} above")
    right.plot([], [], " ", label=f"R⁰ counted free (erratum): {above['claim42']:.0%} above")
    top = 1.25 * max(bounds["freedman"][0], bounds["sv"][0], rep.running.max())
    right.set_ylim(min(-0.05 * top, 1.1 * rep.running.min()), top)
    right.set_xlim(0, k)
    right.set_xlabel("round t")
    right.set_ylabel("cumulative privacy loss Σ L_s")
    right.set_title(f"n = {n}, B_max = {b_max}, ε = {epsilon:.3g}, δ = {delta:.3g}, α = {alpha:.3g}")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), borderaxespad=0.0, ncols=2, columnspacing=1.0)
    return fig
