"""The widgets and figures of chapters 10–12 (iterative database constructions).

Chapter 10: an IDC's potential under the worst-query oracle (:func:`explore_potential`, :func:`figure_potentials`,
:func:`dpbook.idc.promised_drop`) and the offline comparison (:func:`figure_boxes`).  Chapter 11: online IDC
accuracy against IDC-Alg1-SV's bound (:func:`explore_online`) and the large-universe regime's curves (digits,
``N = 2^16``: :func:`figure_curves`).  Chapter 12: the privacy-loss picture of the IDC proof — one round close up
(:func:`explore_round`), the whole run against basic / Azuma / Freedman-type / Alg1-SV bounds (:func:`explore_run`,
cached replays from :func:`dpbook.privacy_loss.privacy_loss_run`) and the tail (:func:`explore_tail`).

The running example (:func:`dpbook.queries.cancer6`) is the cancer data projected to six attributes (``N = 64``) with all 160 three-way
marginal cells as the query class; each patient is counted ``scale`` times (``n = 569·scale``) because the
theorems need a large ``n`` before they say anything.  The median mechanism runs on three attributes (``N = 8``)
with all 255 counting queries.
"""
from __future__ import annotations

import matplotlib as mpl
import numpy as np

from matplotlib.collections import LineCollection

from ..idc import AdversarialStream, drive_with_oracle, make_rule, online_idc_sv, promised_drop, th_sv_threshold_for
from ..histogram import histogram_mechanism
from ..gaussian import gaussian_mechanism
from ..plots import (BASELINE, BOUND, CONTROL, EMPIRICAL, EXTRA, HISTOGRAM, ROLE_COLOURS, STYLE, UNIFORM, legend_outside,
                     new_figure, reference_line, use_style)
from ._layout import fixed_figure, log_minor_125
from ..privacy_loss import (CLASS_NAMES, HALTED, R0, R1, RSTAR, fraction_above, privacy_loss_run, loss_tail_run,
                            round_loss, round_moments, run_bounds, tail_curves, update_probability)
from ..queries import cancer3, cancer6
from ..release import COMPOSITIONS
from ..theory.idc import alg1_threshold, alg1_update_mass_bound
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_real

__all__ = ["ANALYSTS", "explore_online", "explore_round", "explore_run", "explore_tail", "figure_potentials",
           "explore_potential", "figure_curves", "figure_boxes"]


# --------------------------------------------------------------------------- accuracy explorer


ANALYSTS = ("worst query below τ_thr", "worst query")


def explore_online(epsilon=0.9, alpha_u=0.1, scale=2000, m=60, idc="MW", analyst=ANALYSTS[0], *, delta=1e-6,
                   beta=0.05, trials=40, seed=2026, composition="tight"):
    """IDC-Alg1-SV on an adversarial stream of ``m`` queries: the max error of each run against ``α_U + 2α_SV``, the error of the
    data-free start, the noisy histogram's median max error at the same ``ε`` and the per-query Gaussian's at the
    same ``(ε, δ)`` (left), and the number of updates
    against ``c = B(α_U)`` (right).  ``scale`` multiplies every count (``n = 569·scale``).

    ``analyst``: ``"worst query below τ_thr"`` asks the worst query the threshold lets through (answers come
    from the hypothesis: the case the bound is for); ``"worst query"`` asks the worst query overall (nearly
    every round then updates and releases a fresh Laplace answer).  ``composition``: the budget split
    (``"tight"``, the chapter's: DR-Thm3.20 solved for ``ε0``; ``"corollary"``: DR-Cor3.21's closed form).
    """
    epsilon, delta, alpha_u = check_epsilon(epsilon), check_delta(delta), check_real("alpha_u", alpha_u, low=1e-3, high=2.0)
    m, trials = check_int("m", m, low=1), check_int("trials", trials, low=2)
    if analyst not in ANALYSTS:
        raise ValueError(f"analyst ({analyst!r}) must be one of {ANALYSTS}")
    x, W = cancer3(scale) if idc == "Median" else cancer6(scale)
    rule = make_rule(idc, x.size, alpha_u, int(x.sum()))
    composition = check_choice("composition", composition, COMPOSITIONS)
    below = (th_sv_threshold_for(rule, m, epsilon, delta, beta, int(x.sum()), composition)
             if analyst == ANALYSTS[0] else None)
    rel = online_idc_sv(x, rule, AdversarialStream(W, m, below=below, reference=x), epsilon=epsilon, delta=delta,
                        beta=beta, trials=trials, rng=seed, composition=composition)
    err = rel.errors(x).max
    p = rel.params
    start = float(np.abs(rule.answers(rule.initial(1), W) - W.answers(x)).max())
    fig, (left, right) = fixed_figure(2, width=10, height=5.6, left=0.72, right=0.15, bottom=2.25, top=0.3, wspace=0.8)
    edges = np.linspace(0.0, 1.05 * max(start, p["error_bound"], float(err.max())), 80)
    left.hist(err, bins=edges, histtype="stepfilled", color=EMPIRICAL, alpha=0.8, label="measured max error per run")
    left.axvline(p["error_bound"], color=BOUND, label="bound α_U + 2α_SV")
    left.axvline(alpha_u, color=BOUND, ls=":", label="α_U")
    left.axvline(start, color=UNIFORM, ls="--", label="error of the start D¹ (no data)")
    hist = histogram_mechanism(x, W, epsilon=epsilon, n=int(x.sum()), trials=trials, rng=seed)
    hist_err = float(np.median(np.abs(hist.answers - W.answers(x)).max(axis=1)))
    left.axvline(hist_err, color=HISTOGRAM, lw=2, label=f"noisy histogram (ε, 0): {hist_err:.2g}")
    gauss = gaussian_mechanism(x, W, epsilon=epsilon, delta=delta, n=int(x.sum()), trials=trials, rng=seed,
                               calibration="analytic")
    gauss_err = float(np.median(np.abs(gauss.answers - W.answers(x)).max(axis=1)))
    left.axvline(gauss_err, color=BASELINE, lw=2, ls="-.", label=f"per-query Gaussian (ε, δ): {gauss_err:.2g}")
    left.set_xlabel("max error |answer − truth| over the stream")
    left.set_ylabel("runs")
    left.set_title(f"{rule.name}: n = 569·{scale:,} (duplicated), ε = {epsilon:.3g}, m = {m}")
    legend_outside(left, where="below")
    right.hist(rel.updates, bins=np.arange(rel.updates.max() + 2) - 0.5, histtype="stepfilled", color=EMPIRICAL, alpha=0.7,
               label="updates per run")
    right.set_xlabel(f"number of updates (cap c = {p['c']})")
    right.set_ylabel("runs")
    right.set_title(f"ε0 = {p['epsilon0']:.3g}, τ_thr = {p['threshold']:.3g}")
    legend_outside(right, where="below")
    return fig


# --------------------------------------------------------------------------- privacy-loss picture

# =========================================================================== a large universe: digits, d = 16


# =========================================================================== the privacy-loss picture, redesigned

# the proof's round classes, shaded in light tints of EXTRA colours (no role colour: a class is neither the uniform
# guess nor a bound; the curves are drawn over them)
R_COLORS = {R0: mpl.colors.to_rgba(EXTRA[3], 0.3), RSTAR: mpl.colors.to_rgba(EXTRA[1], 0.55),
            R1: mpl.colors.to_rgba(EXTRA[0], 0.22), HALTED: mpl.colors.to_rgba(EXTRA[4], 0.15)}


def _two_rows(width, height, *, left, right, bottom, top, hspace, height_ratios=(1, 1)):
    """A two-row figure with fixed margins (inches) and a shared x axis, drawn once by a widget panel (no layout
    engine measures it on every draw; see :func:`._layout.fixed_figure`, which makes the figure)."""
    fig, first = fixed_figure(1, width=width, height=height, left=left, right=right, bottom=bottom, top=top)
    ax_height = (height - bottom - top - hspace) / 2
    grid = fig.add_gridspec(2, 1, left=left / width, right=1 - right / width, bottom=bottom / height,
                            top=1 - top / height, hspace=hspace / ax_height, height_ratios=height_ratios)
    first.set_subplotspec(grid[0])
    second = fig.add_axes(grid[1].get_position(fig), sharex=first)
    second.set_subplotspec(grid[1])
    first.tick_params(labelbottom=False)
    return fig, (first, second)


def explore_round(n=20, epsilon0=0.5, gap=1.0, alpha=0.6, *, seed=2026):
    """View 1 — one round of Algorithm 1, close up (the privacy-loss picture of IDC-Thm4.1, erratum IDC-E6).

    ``μ = Q(D) = 0.3``, ``μ' = Q(D') = μ + 1/n`` (``D'`` has one more row inside the query), the hypothesis answer
    ``a = μ + gap·τ`` with the threshold ``τ = 2α/3`` (``gap`` = how wrong the hypothesis is, in units of ``τ``), noise
    ``Lap(1/(ε0 n))``.  Top: the densities of the noisy answer under ``D`` and ``D'`` with the proof's regions
    R⁰ / R* / R¹ shaded (classified by the noise, as the proof does) and one seeded draw.  Bottom: the loss of
    every possible output — the numeric outputs' Laplace ratio, and the one value ``ℓ(⊥)`` every draw in the ⊥
    window shares, whatever its class — against ``±ε0``; its title gives the update probability ``u`` and
    ``|ℓ(⊥)|/(u ε0)``, which stays bounded (≤ ``(e^{ε0} − 1)/(ε0 (1 − u'))``): ``ℓ(⊥) → 0`` with ``u`` as the
    hypothesis becomes accurate (``gap → 0``).
    """
    n = check_int("n", n, low=1, high=10**9)
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=0.5)
    gap = check_real("gap", gap, low=-5.0, high=5.0)
    alpha = check_real("alpha", alpha, low=1e-3, high=1.0)           # the panel's accuracies (normalised)
    tau, slack, b, mu = alg1_threshold(alpha), 1.0 / n, 1.0 / (epsilon0 * n), 0.3
    mu_p, a = mu + slack, mu + gap * alg1_threshold(alpha)
    lo, hi = min(mu, a - tau) - 5 * b, max(mu_p, a + tau) + 5 * b
    y = np.linspace(lo, hi, 601)
    draw = mu + float(np.random.default_rng(seed).laplace(0.0, b))
    u = float(update_probability(mu, a, tau, b))
    ell_bot = float(round_loss(np.nan, mu, mu_p, a, tau, b))
    m1, m2 = round_moments(mu, mu_p, a, tau, b, points=4_001)
    fig, (top, bot) = _two_rows(10, 6.0, left=0.85, right=3.35, bottom=0.6, top=0.62, hspace=0.62,
                                height_ratios=(1.1, 1))
    labelled = set()
    for lo_, hi_, cls in ((a - tau + slack, a + tau - slack, R0), (a - tau - slack, a - tau + slack, RSTAR),
                          (a + tau - slack, a + tau + slack, RSTAR), (lo, a - tau - slack, R1), (a + tau + slack, hi, R1)):
        if hi_ > lo_:
            top.axvspan(lo_, hi_, color=R_COLORS[cls], lw=0, label=None if cls in labelled else CLASS_NAMES[cls])
            labelled.add(cls)
    top.plot(y, np.exp(-np.abs(y - mu) / b) / (2 * b), color=EMPIRICAL, lw=2.5, label="density under D")
    top.plot(y, np.exp(-np.abs(y - mu_p) / b) / (2 * b), color=EXTRA[4], lw=1.5, ls="--", label="density under D′ (+1/n)")
    top.axvline(draw, color=EMPIRICAL, lw=1.5, ls=":")
    top.set_xlim(lo, hi)
    top.set_ylim(0, 1.1 / (2 * b))
    top.set_ylabel("density of Q(D) + Z")
    top.set_title(f"n = {n}, ε0 = {epsilon0:.3g}: hypothesis off by {gap:.3g}·τ\n(τ = {tau:.2g}, noise scale {b:.2g})")
    top.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    bottom_window = np.abs(y - a) < tau
    ell_num = np.where(bottom_window, np.nan, (np.abs(y - mu_p) - np.abs(y - mu)) / b)
    # the loss lines lie ON the ±ε0 bound far from the window: drawn thick above the thin bound lines
    bot.plot(y, ell_num, color=EMPIRICAL, lw=5, zorder=3, label="loss of a released\nnumber y")
    bot.plot([max(a - tau, lo), min(a + tau, hi)], [ell_bot, ell_bot], color=EMPIRICAL, lw=5, alpha=0.5, zorder=3,
             label=f"loss of ⊥ (R⁰ or R*):\nℓ(⊥) = {ell_bot / epsilon0:+.2f} ε0")
    for sgn in (1, -1):
        bot.axhline(sgn * epsilon0, color=BOUND, lw=1.5, ls="--", zorder=4,
                    label="±ε0: bound for\nevery round" if sgn > 0 else None)
    out_bot = abs(draw - a) < tau
    realised = ell_bot if out_bot else (abs(draw - mu_p) - abs(draw - mu)) / b
    bot.plot([draw], [realised], "o", color=EMPIRICAL, ms=10, mec="k", zorder=5,
             label=f"this draw ({'⊥' if out_bot else 'a number'}):\n{realised / epsilon0:+.2f} ε0")
    bot.set_ylim(-1.35 * epsilon0, 1.35 * epsilon0)
    bot.set_xlabel("noisy answer Q(D) + Z")
    bot.set_ylabel("privacy loss ℓ")
    ratio = f"{abs(ell_bot) / (u * epsilon0):.2f}" if u > 0 else "–"
    bot.set_title(f"P[update] u = {u:.2g}, |ℓ(⊥)|/(u·ε0) = {ratio}\n"
                  f"E[L²] = {m2 / epsilon0 ** 2:.2g} ε0² ≤ 4u ε0² = {4 * u:.2g} ε0²")
    bot.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return fig


def explore_run(n=1000, b_max=30, epsilon=1.0, delta=1e-6, alpha=0.6, *, rounds=400, runs=300, seed=2026, shown=60):
    """Views 2 and 3 — the whole run of ``runs`` replays (:func:`privacy_loss_run`).

    Left, the update mass: each run's running ``Σ_{t'<=t} u_{t'}`` (its rounds' update probabilities), the largest
    realised ``Σ_t L_t²/(4ε0²)`` (the predictable variance Freedman's inequality needs, in units of ``4ε0²``) and the
    largest number of updates, against ``B_max + 1`` and ``U0`` (:func:`~dpbook.theory.idc.alg1_update_mass_bound`):
    a run stops after ``B_max + 1`` updates, so its update mass cannot pass ``U0`` except w.p. ``δ/2``.  The title
    gives the share of each proof class among the rounds that touch the data.  Right, the cumulative privacy loss
    against basic ``t ε0``, Azuma over every round (``√t``), the book's Freedman-type bound (flat in ``t``) and
    what IDC-Alg1-SV would claim with the same ``ε0`` and ``c = B_max + 1``; the erratum's accounting (IDC-E6:
    Azuma over the realised non-R⁰ rounds only, R⁰ free) is a different curve for every run, so it is drawn for the
    run that exceeds it most, with that run's loss.  The legend gives the share of runs whose loss ever crosses
    each curve.
    """
    shown = check_int("shown", shown, low=0)
    rep, eps0 = privacy_loss_run(n, b_max, epsilon, delta, alpha, rounds=rounds, runs=runs, seed=seed)
    bounds = run_bounds(rep, eps0, delta, b_max)
    above = fraction_above(rep, bounds)
    k = rep.loss.shape[1]
    t = np.arange(1, k + 1)
    fig, (left, right) = fixed_figure(2, width=10, height=6.0, left=0.75, right=0.3, bottom=2.05, top=0.62,
                                      wspace=0.75, width_ratios=(1, 1.6))
    active = rep.cls != HALTED
    shares = {name: float(np.mean(rep.cls[active] == c)) for name, c in (("R⁰", R0), ("R*", RSTAR), ("R¹", R1))}
    mass = np.cumsum(rep.update_probability, axis=1)
    u0 = alg1_update_mass_bound(b_max, delta)
    m = min(shown, rep.runs)
    left.add_collection(LineCollection(np.stack([np.broadcast_to(t, (m, k)), mass[:m]], axis=-1), colors=EMPIRICAL,
                                       alpha=0.25, lw=1))
    left.plot(t, mass.max(axis=0), color=EMPIRICAL, lw=2.5, label="Σ u_s: largest run")
    left.plot(t, (np.cumsum(rep.loss ** 2, axis=1) / (4 * eps0 ** 2)).max(axis=0), color=EXTRA[1], lw=2,
              label="Σ L_s²/(4ε0²): largest run")
    left.plot(t, np.cumsum(~np.isnan(rep.v) & active, axis=1).max(axis=0), color=EXTRA[3], lw=1.5, ls=":",
              label="updates: largest run")
    left.axhline(b_max + 1, color=BOUND, ls=":", lw=1.5, label=f"B_max + 1 = {b_max + 1}")
    left.axhline(u0, color=BOUND, lw=2, label=f"U0 = {u0:.3g}")
    left.set_xlim(0, k)
    left.set_ylim(0, 1.1 * max(u0, float(mass.max())))
    left.set_xlabel("round t")
    left.set_ylabel("update mass")
    left.set_title("R⁰ {R⁰:.1%}, R* {R*:.2%}, R¹ {R¹:.1%}\nof the rounds with data access".format(**shares))
    left.legend(loc="upper left", bbox_to_anchor=(-0.2, -0.16), borderaxespad=0.0)
    right.add_collection(LineCollection(np.stack([np.broadcast_to(t, (m, k)), rep.running[:m]], axis=-1),
                                        colors=EMPIRICAL, alpha=0.25, lw=1))
    right.plot(t, rep.running.max(axis=0), color=EMPIRICAL, lw=2.5, label=f"measured: max of {rep.runs}")
    styles = {"basic": (":", "basic t·ε0"), "azuma": ("--", "Azuma, all rounds"),
              "freedman": ("-", "Freedman (book)"), "sv": ("-.", f"Alg1-SV, c = {b_max + 1}")}
    for name, (ls, label) in styles.items():
        right.plot(t, bounds[name], color=BOUND, ls=ls, lw=2, label=f"{label}: {above[name]:.0%}")
    worst = int(np.argmax((rep.running - bounds["claim42"]).max(axis=1)))
    right.plot(t, bounds["claim42"][worst], color=CONTROL, lw=2, drawstyle="steps-post",
               label=f"R⁰ free (IDC-E6), 1 run: {above['claim42']:.0%}")
    right.plot(t, rep.running[worst], color=CONTROL, lw=2.8, ls=(0, (4, 1.5)), zorder=5,   # last: above the runs
               label="that run's loss")
    top = 1.25 * max(bounds["freedman"][0], bounds["sv"][0], rep.running.max())
    right.set_ylim(min(-0.05 * top, 1.1 * rep.running.min()), top)
    right.set_xlim(0, k)
    right.set_xlabel("round t")
    right.set_ylabel("cumulative privacy loss Σ L_s")
    right.set_title(f"n = {n}, B_max = {b_max}, ε = {epsilon:.3g}, δ = {delta:.3g},\nα = {alpha:.3g}, ε0 = {eps0:.2g}")
    right.legend(loc="upper left", bbox_to_anchor=(-0.17, -0.16), borderaxespad=0.0, ncols=2, columnspacing=0.6,
                 title="share of runs whose loss ever crosses each curve", title_fontsize=STYLE["font.size"])
    return fig


# =========================================================================== the tail: does P[L > ε] <= δ show?


def explore_tail(n=200, epsilon0=0.05, b_max=10, alpha=0.6, *, runs=4000, seed=2026):
    """The tail of Algorithm 1's privacy loss in the regime of :func:`loss_tail_run`: for each ``δ``, the measured
    ``(1-δ)``-quantile of ``L`` against each valid bound's ``ε(δ)`` at the same ``ε0`` (``P[L > ε(δ)] <= δ`` is what
    a bound promises, so a bound is tight where the two curves meet).  ``runs >= 100``: the smallest δ drawn is
    ``10/runs``."""
    n, b_max = check_int("n", n, low=1, high=10**7), check_int("b_max", b_max, low=0, high=10**4)
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=0.5)
    alpha = check_real("alpha", alpha, low=1e-3, high=1.0)
    runs, seed = check_int("runs", runs, low=100, high=10**6), check_int("seed", seed, low=0)
    rep = loss_tail_run(n, epsilon0, b_max, alpha, runs=runs, seed=seed)
    deltas = np.geomspace(0.3, 10.0 / rep.runs, 12)
    c = tail_curves(rep, deltas)
    fig, ax = fixed_figure(1, width=10, height=4.6, left=0.8, right=3.6, bottom=0.6, top=0.62)
    ax.plot(deltas, c["measured"], "o-", color=EMPIRICAL, lw=2.5, label=f"measured (1−δ)-quantile\nof L ({rep.runs:,} runs)")
    for name, ls, label in (("freedman", "-", "Freedman-type (book)"),
                            ("azuma", "--", f"Azuma, all t = {rep.loss.shape[1]} rounds"), ("basic", ":", "basic t·ε0")):
        ax.plot(deltas, c[name], color=BOUND, ls=ls, lw=2, label=label)
    ax.set_xscale("log")
    ax.invert_xaxis()
    ax.set_ylim(0, 1.1 * max(c["freedman"].max(), c["basic"].max()))
    ax.set_xlabel("δ")
    ax.set_ylabel("privacy loss ε (quantile or bound)")
    ax.set_title(f"borderline analyst: n = {n}, ε0 = {rep.epsilon0:.3g}, B_max = {rep.b_max}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.03, 1.0), borderaxespad=0.0)
    log_minor_125(ax)
    return fig


# =========================================================================== potentials (chapter 10) and figures

_POTENTIAL_LABELS = {"MW": "potential KL(D̄‖Dᵗ)", "FK": "potential ‖D̄ − Dᵗ‖²", "Median": "potential log₂|Cᵗ|"}


def _draw_potential(ax, rule, run, title):
    t = np.arange(run.potentials.size)
    ax.plot(t, run.potentials, "o-", color=EMPIRICAL, ms=3, label="measured potential")
    ax.plot(t, np.maximum(run.potentials[0] - t * promised_drop(rule), 0), color=BOUND,
            label="start − t × promised drop")
    ax.set_xlabel("update t")
    ax.set_ylabel(_POTENTIAL_LABELS[rule.name])
    ax.set_title(title)


def figure_potentials(items):
    """The potential argument of IDC-Def3.2, measured: for each ``(title, rule, run)`` in ``items`` (one or two; ``run``
    from :func:`dpbook.idc.drive_with_oracle`), the potential after every update against its start minus ``t``
    times the promised drop (:func:`promised_drop`).  A valid IDC's measured curve stays below the red line."""
    items = list(items)
    if not 1 <= len(items) <= 2:
        raise ValueError(f"items ({len(items)} entries) must hold one or two (title, rule, run) triples")
    fig, axes = new_figure(len(items))
    for ax, (title, rule, run) in zip(np.atleast_1d(axes), items):
        if not hasattr(run, "potentials"):
            raise TypeError(f"run must be a drive_with_oracle result, got {type(run).__name__}")
        _draw_potential(ax, rule, run, title)
    legend_outside(np.atleast_1d(axes)[-1], where="below")
    return fig


def explore_potential(idc="MW", alpha=0.05):
    """One IDC driven by the worst-query oracle with exact answers until no query is ``α``-wrong (the cancer data,
    ``N = 64`` and its 160 three-way marginal cells; the median mechanism on ``N = 8``, all 255 counting queries,
    databases of ``sample_size = 4`` rows).  Left: the potential against its promised drop.  Right: the max error
    over the workload after each update against ``α``; the number of updates ``L`` and the bound ``B(α)`` in the
    title."""
    idc = check_choice("idc", idc, ("MW", "FK", "Median"))
    alpha = check_real("alpha", alpha, low=0.01, high=0.5)
    x, W = cancer3() if idc == "Median" else cancer6()
    rule = make_rule(idc, x.size, alpha, int(x.sum()))
    run = drive_with_oracle(rule, x, W)
    fig, (left, right) = fixed_figure(2, width=10, height=5.0, left=0.85, right=0.15, bottom=1.75, top=0.62, wspace=0.9)
    _draw_potential(left, rule, run, f"{rule.name}: L = {run.updates} updates, B(α) = {rule.bound():.4g}")
    right.plot(np.arange(run.max_errors.size), run.max_errors, "o-", color=EMPIRICAL, ms=3, label="measured max error")
    right.axhline(alpha, color=BOUND, ls=":", label="α")
    right.set_xlabel("update t")
    right.set_ylabel("max error over Q")
    right.set_title(f"N = {x.size}, |Q| = {W.m}, α = {alpha:.3g}")
    left.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0.0)
    right.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0.0)
    return fig


_STYLES = {"measured": "o-", "bound": "-", "histogram": "s-", "baseline": "^-", "uniform": "--", "control": "-",
           "truth": "-"}


def figure_curves(panels, *, height=None):
    """One or two panels of curves drawn in the book's role colours.

    ``panels``: a list of dicts with ``"series"`` — a list of ``(label, x, y, role)`` or ``(label, x, y, role, style)``,
    ``role`` one of :data:`dpbook.plots.ROLE_COLOURS` (``"uniform"`` is drawn as a grey dashed reference line at
    the constant ``y``) or ``"extra"`` — and optional ``"xlabel"``, ``"ylabel"``, ``"title"``, ``"logx"``,
    ``"logy"`` (booleans; ``logx`` may be a base), ``"ylim"``.  The legend goes below the panels (never on data).
    """
    panels = list(panels)
    if not 1 <= len(panels) <= 2:
        raise ValueError(f"panels ({len(panels)} entries) must be one or two")
    fig, axes = new_figure(len(panels), height=height)
    for ax, panel in zip(np.atleast_1d(axes), panels):
        if not isinstance(panel, dict) or "series" not in panel:
            raise TypeError("each panel must be a dict with a 'series' list")
        extra = 0
        for entry in panel["series"]:
            label, x, y, role, *style = entry
            if role == "uniform":
                reference_line(ax, float(np.ravel(y)[0]), label=label)
                continue
            if role == "extra":
                colour, extra = EXTRA[extra % len(EXTRA)], extra + 1
            elif role in ROLE_COLOURS:
                colour = ROLE_COLOURS[role]
            else:
                raise ValueError(f"role ({role!r}) must be one of {sorted(ROLE_COLOURS)} or 'extra'")
            ax.plot(x, y, style[0] if style else _STYLES.get(role, "-"), color=colour, label=label)
        logx = panel.get("logx", False)
        if logx:
            ax.set_xscale("log", **({} if logx is True else {"base": logx}))
        if panel.get("logy", False):
            ax.set_yscale("log")
        if "ylim" in panel:
            ax.set_ylim(*panel["ylim"])
        ax.set_xlabel(panel.get("xlabel", ""))
        ax.set_ylabel(panel.get("ylabel", ""))
        ax.set_title(panel.get("title", ""))
        legend_outside(ax, where="below")
        if logx or panel.get("logy", False):
            ax.autoscale_view()
            log_minor_125(ax)                 # light log ticks, Unicode labels (no mathtext parse per figure)
    return fig


def figure_boxes(groups, *, ylabel, title="", lines=(), logy=True, width=9.4, medians=False):
    """Box plots of per-run errors, one box per ``(label, errors, role)`` in ``groups`` (``role`` as in
    :func:`figure_curves`), with horizontal ``lines`` ``(y, label, role)`` — ``"uniform"`` as the grey dashed
    reference line — drawn behind the boxes.  ``medians=True`` writes each box's median under it (readable when
    a log axis spanning several decades squeezes a box to a sliver).  The legend goes beside the axes (never on
    data)."""
    groups = list(groups)
    if not groups:
        raise ValueError("groups must hold at least one (label, errors, role) triple")
    fig, ax = new_figure(width=width)
    colours = []
    extra = 0
    for label, errors, role in groups:
        if role == "extra":
            colours.append(EXTRA[extra % len(EXTRA)])
            extra += 1
        elif role in ROLE_COLOURS:
            colours.append(ROLE_COLOURS[role])
        else:
            raise ValueError(f"role ({role!r}) must be one of {sorted(ROLE_COLOURS)} or 'extra'")
    data = [np.asarray(e, dtype=float) for _, e, _ in groups]
    parts = ax.boxplot(data, tick_labels=[g[0] for g in groups], patch_artist=True, zorder=3)
    for box, median, colour in zip(parts["boxes"], parts["medians"], colours):
        box.set_facecolor(mpl.colors.to_rgba(colour, 0.35))
        box.set_edgecolor(colour)
        median.set_color(colour)
        median.set_linewidth(2.5)
    for y, label, role in lines:
        if role == "uniform":
            reference_line(ax, y, label=label)
        else:
            ax.axhline(y, color=ROLE_COLOURS[role], label=label, zorder=1.5)
    if logy:
        ax.set_yscale("log")
    if medians:
        lows = [min(float(np.min(d)), float(np.min(w.get_ydata()))) for d, w in zip(data, parts["whiskers"][::2])]
        for i, (d, low, colour) in enumerate(zip(data, lows, colours), start=1):
            ax.annotate(f"{np.median(d):.3g}", (i, low), xytext=(0, -5), textcoords="offset points", ha="center",
                        va="top", color=colour)
        bottom, top = ax.get_ylim()
        floor = min(lows)
        ax.set_ylim(min(bottom, floor / 4) if logy else min(bottom, floor - 0.15 * (top - floor)), top)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if lines:
        legend_outside(ax)
    return fig
