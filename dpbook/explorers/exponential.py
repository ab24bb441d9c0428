"""Chapters 07 and 08: the exponential mechanism's figures and widget (the most common row of the cancer data,
the missing ½), and SmallDB's widget (its exact error law on a 3-attribute projection of the cancer data)."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..data import cancer_projection
from ..exponential import exponential_probabilities
from ..plots import (BOUND, CONTROL, EMPIRICAL, EXTRA, HISTOGRAM, TRUTH, UNIFORM, accuracy_vs_theory, legend_outside,
                     new_figure, reference_line)
from ._layout import fixed_figure, log_minor_125
from ..queries import MarginalWorkload
from ..theory.exponential import (exact_privacy_loss, exponential_tail_bound, exponential_utility_gap,
                                  report_noisy_max_gap, utility_pair)
from ..theory.histogram import histogram_bound
from ..theory.smalldb import net_error_bound, prop44_error_bound, smalldb_size
from ..validation import check_alpha, check_beta, check_epsilon, check_int, check_real, check_real_array

__all__ = ["explore_smalldb", "figure_utility_tail", "figure_gap_quantile", "figure_missing_half", "figure_ties_tail",
           "explore_exponential"]


def explore_smalldb(epsilon=1.0, alpha=0.5, m=18, beta=0.05):
    """Exact error law of SmallDB (DR-Alg4) against DR-Thm3.11's tail and DR-Prop4.4 / the net bound.

    Left: ``P[error >= t]`` computed over the whole range (no sampling) against ``|R| exp(-εn(t-OPT)/2)``.
    Right: the exact (1-β)-quantile of the max error against ε with both bounds, chapter 03's noisy histogram at the same ε
    (its (1-β)-quantile, sampled once at ε = 1 and scaled by 1/ε, which is exact in law) and the uniform guess.
    """
    from ..comparisons.smalldb import ATTRIBUTES, CELLS, EPS_SWEEP, histogram_quantile_at_unit_epsilon, smalldb_law
    epsilon, alpha, beta = check_epsilon(epsilon), check_alpha(alpha), check_beta(beta)
    m = check_int("m", m, low=3, high=len(CELLS))
    small = cancer_projection(ATTRIBUTES)
    n = small.n
    db_size = smalldb_size(m, alpha)
    try:
        err, levels, law, quant = smalldb_law(m, db_size, beta)
    except ValueError as exc:
        raise ValueError(f"alpha ({alpha}) with m ({m}) cells asks SmallDB for databases of {db_size} rows, too many "
                         f"to enumerate: {exc}") from None
    tail = np.cumsum(law(epsilon)[::-1])[::-1]                                # P[error >= levels[i]]
    opt, size = levels[0], err.size
    fig, (left, right) = fixed_figure(2, width=10, height=4.8, left=0.75, right=0.2, bottom=1.35, top=0.3, wspace=0.85)
    left.step(levels, tail, where="post", color=EMPIRICAL, label="exact P[error ≥ t]")
    t_max = min(1.0, opt + 2 * (math.log(size) + 6 * math.log(10)) / (epsilon * n))  # where the bound hits 1e-6
    t = np.linspace(opt, t_max, 100)
    left.plot(t, exponential_tail_bound(t - opt, size, epsilon, 1.0 / n), color=BOUND, label="|R| exp(−εn(t−OPT)/2)")
    left.set_yscale("log"); left.set_ylim(1e-6, 1.5); left.set_xlim(0, 1.1 * t_max)
    left.set_xlabel("t (max error)"); left.set_ylabel("probability")
    left.legend(loc="upper left", bbox_to_anchor=(-0.1, -0.16), borderaxespad=0.0)
    left.set_title(f"ε={epsilon:.3g}, α={alpha:.3g}: $n_y$={db_size}, |R|={size:,}, m={m}")
    accuracy_vs_theory(EPS_SWEEP, quant, [net_error_bound(opt, size, e, n, beta) for e in EPS_SWEEP], ax=right,
                       logx=True, logy=True, xlabel="ε", ylabel=f"{100 * (1 - beta):.3g}%-quantile of max error",
                       empirical_label="exact quantile", bound_label="OPT + 2(ln|R|+ln 1/β)/(εn)")
    right.plot(EPS_SWEEP, [prop44_error_bound(small.N, m, alpha, e, n, beta) for e in EPS_SWEEP], "--",
               color=BOUND, label="DR-Prop4.4")
    h1 = histogram_quantile_at_unit_epsilon(m, beta)
    right.plot(EPS_SWEEP, h1 / EPS_SWEEP, "D-", color=HISTOGRAM, ms=4, label="noisy histogram (ch. 03)")
    right.plot(EPS_SWEEP, [histogram_bound(small.N, m, beta, e, n) for e in EPS_SWEEP], "-.", color=HISTOGRAM,
               lw=1.5, label="histogram bound")
    W = MarginalWorkload(3, CELLS[:m])
    right.axhline(np.abs(W.answers(np.ones(small.N)) - W.answers(small.x)).max(), color=UNIFORM, ls="--",
                  label="uniform guess")
    right.axvline(epsilon, color="k", lw=0.8, ls=":")
    right.set_ylim(1e-3, 20)
    log_minor_125(left, right)
    right.legend(loc="upper right", bbox_to_anchor=(1.0, -0.16), borderaxespad=0.0, ncols=2, columnspacing=1.0)
    return fig


# ---------------------------------------------------------------------------------------------- chapter 07's figures
def _series(name, value, size=None):
    arr = check_real_array(name, value)
    if arr.ndim != 1 or arr.size == 0 or (size is not None and arr.size != size):
        want = "a non-empty 1-D array" if size is None else f"a 1-D array of {size} values"
        raise ValueError(f"{name} (shape {arr.shape}) must be {want}")
    return arr


def figure_utility_tail(betas, rates, lower, upper, exact, *, epsilon, range_size):
    """How often the gap ``OPT − u(M(x))`` reaches DR-Cor3.12's bound at level β: measured rate with its band,
    the exact probability (from the output law) and β itself (log–log)."""
    betas = _series("betas", betas)
    rates, lower, upper, exact = (_series(k, v, betas.size) for k, v in
                                  (("rates", rates), ("lower", lower), ("upper", upper), ("exact", exact)))
    epsilon, range_size = check_epsilon(epsilon), check_int("range_size", range_size, low=1)
    fig, ax = new_figure(height=4.2)
    accuracy_vs_theory(betas, rates, betas, lower=lower, upper=upper, ax=ax, logx=True, logy=True, xlabel="β",
                       ylabel="P[gap ≥ bound at β]", empirical_label="measured", bound_label="β (DR-Cor3.12)",
                       title=f"most common row: ε = {epsilon:g}, |R| = {range_size:,}")
    ax.plot(betas, exact, ":", color=TRUTH, label="exact")
    legend_outside(ax)
    log_minor_125(ax)
    return fig


def figure_gap_quantile(eps_grid, q_em, q_rnm, *, range_size, beta, guess_gap, ylim=80.0):
    """The (1-β)-quantile of the gap against ε: the exponential mechanism (``q_em``: exact from its output law, or
    measured; with DR-Cor3.12's bound),
    the noisy histogram's argmax = report noisy max (purple, with its bound) and a uniformly random row (grey)."""
    eps_grid = _series("eps_grid", eps_grid)
    q_em, q_rnm = _series("q_em", q_em, eps_grid.size), _series("q_rnm", q_rnm, eps_grid.size)
    range_size, beta = check_int("range_size", range_size, low=1), check_beta(beta)
    guess_gap, ylim = check_real("guess_gap", guess_gap, low=0.0), check_real("ylim", ylim, low=0.0, low_open=True)
    if np.any(eps_grid <= 0):
        raise ValueError(f"eps_grid ({float(eps_grid.min())!r}) must be > 0")
    pct = f"{100 * (1 - beta):.3g}%"
    fig, ax = new_figure(height=4.2)
    accuracy_vs_theory(eps_grid, q_em, [exponential_utility_gap(range_size, e, 1.0, beta) for e in eps_grid], ax=ax,
                       logx=True, xlabel="ε", ylabel=f"{pct}-quantile of the gap (counts)",
                       empirical_label="exponential mechanism", bound_label="its bound (DR-Cor3.12)",
                       title=f"{pct}-quantile of the gap (axis clipped at {ylim:g})")
    ax.plot(eps_grid, q_rnm, "s", color=HISTOGRAM, mfc="none", ms=8, mew=2, label="noisy histogram's argmax")
    ax.plot(eps_grid, [report_noisy_max_gap(range_size, e, 1.0, beta, monotone=True) for e in eps_grid], ":",
            color=HISTOGRAM, lw=2.5, label="its bound (the same line)")
    reference_line(ax, guess_gap, label="uniformly random row")
    ax.set_ylim(-2, ylim)
    legend_outside(ax)
    log_minor_125(ax)
    return fig


def figure_missing_half(sizes, epsilon):
    """Exact max privacy loss against the number of candidates |R| (``sizes``): the exponential mechanism on the non-monotone
    pair (blue), the mechanism without the ½ on the non-monotone and the monotone pair (orange), the claimed ε."""
    Ks = np.unique(_series("sizes", sizes).astype(int))
    if Ks[0] < 2:
        raise ValueError(f"sizes ({int(Ks[0])}) must be >= 2")
    epsilon = check_epsilon(epsilon)
    fig, ax = new_figure(height=4.2)
    for eps_used, mono, style, colour, label in ((epsilon, False, "o-", EMPIRICAL, "exp. mech., non-monotone"),
                                                 (2 * epsilon, False, "s-", CONTROL, "no ½ (BROKEN), non-monotone"),
                                                 (2 * epsilon, True, "^--", CONTROL, "no ½ (BROKEN), monotone")):
        loss = [exact_privacy_loss(*utility_pair(int(K), monotone=mono), eps_used) for K in Ks]
        ax.plot(Ks, loss, style, color=colour, ms=5, label=label)
    reference_line(ax, epsilon, role="bound", label="claimed ε")
    ax.set_xscale("log"); ax.set_xlabel("|R| (candidates)"); ax.set_ylabel("exact max privacy loss")
    ax.set_title(f"ε = {epsilon:g}")
    legend_outside(ax)
    log_minor_125(ax)
    return fig


def figure_ties_tail(t_grid, exact_tail, tail_opt, tail_cor, *, opt_size):
    """Exercise of chapter 07: the exact tail ``P[gap ≥ t]`` against DR-Thm3.11 with ``|R_OPT|`` and DR-Cor3.12."""
    t_grid = _series("t_grid", t_grid)
    exact_tail, tail_opt, tail_cor = (_series(k, v, t_grid.size) for k, v in
                                      (("exact_tail", exact_tail), ("tail_opt", tail_opt), ("tail_cor", tail_cor)))
    opt_size = check_int("opt_size", opt_size, low=1)
    fig, ax = new_figure(height=4.2)
    ax.plot(t_grid, exact_tail, color=TRUTH, lw=2.5, label="exact P[gap ≥ g]")
    ax.plot(t_grid, np.minimum(tail_opt, 1), color=BOUND, label=f"DR-Thm3.11, |R_OPT| = {opt_size}")
    ax.plot(t_grid, np.minimum(tail_cor, 1), "--", color=BOUND, label="DR-Cor3.12 (|R_OPT| = 1)")
    ax.set_yscale("log"); ax.set_ylim(1e-6, 2); ax.set_xlabel("g (gap OPT − u)"); ax.set_ylabel("P[gap ≥ g]")
    legend_outside(ax)
    log_minor_125(ax)
    return fig


# ------------------------------------------------------------------------------------------- chapter 07's widget
@functools.lru_cache(maxsize=1)
def _cancer_counts():
    from ..data import load_cancer
    return load_cancer().x.astype(float)


@functools.lru_cache(maxsize=64)
def _noisy_max_gaps(epsilon, trials=1000, seed=2026):
    from ..exponential import report_noisy_max
    counts = _cancer_counts()
    picks = report_noisy_max(counts, epsilon=epsilon, sensitivity=1.0, monotone=True, trials=trials, rng=seed)
    return np.sort(counts.max() - counts[np.asarray(picks)])


def explore_exponential(epsilon=0.5, beta=0.05):
    """The exponential mechanism picking the most common row of the cancer data (|R| = 2048, Δu = 1).

    Left: its exact output law on the 30 most common rows (and the rest) against the data.  Right: the exact
    tail ``P[gap ≥ t]`` against DR-Cor3.12's ``|R| e^{-εt/2}``, and report noisy max's (the noisy histogram's
    argmax) tail from 1,000 seeded draws.  Pure: the same arguments give the same picture.
    """
    epsilon, beta = check_epsilon(epsilon, high=100.0), check_beta(beta)
    counts = _cancer_counts()
    order = np.argsort(-counts, kind="stable")
    p = exponential_probabilities(counts, epsilon=epsilon, sensitivity=1.0)[order]
    gaps = counts.max() - counts[order]
    fig, (left, right) = fixed_figure(2, width=10, height=4.9, left=0.8, right=0.25, bottom=1.7, top=0.45, wspace=0.9)
    top = 30
    left.bar(np.arange(top), p[:top], color=EMPIRICAL, label="P[output = row]")
    left.bar([top + 1], [p[top:].sum()], color=EXTRA[4], label=f"all other {counts.size - top:,} rows")
    left.set_xlabel("rows by count (most common first)"); left.set_ylabel("output probability")
    left.set_yscale("log"); left.set_ylim(1e-6, 1.5); left.set_title(f"ε = {epsilon:.3g}: P[top row] = {p[0]:.2f}")
    left.legend(loc="upper left", bbox_to_anchor=(-0.1, -0.16), borderaxespad=0.0)
    t = np.arange(0, int(counts.max()) + 1)
    exact = np.array([p[gaps >= v].sum() for v in t])
    rnm = _noisy_max_gaps(epsilon)
    right.step(t, exact, where="post", color=EMPIRICAL, label="exp. mech., exact")
    right.step(t, 1 - np.searchsorted(rnm, t, side="left") / rnm.size, where="post", color=HISTOGRAM,
               label="noisy histogram's argmax")
    right.plot(t, np.minimum(1.0, exponential_tail_bound(t, counts.size, epsilon, 1.0)), color=BOUND,
               label="|R| exp(−εt/2) (DR-Cor3.12)")
    right.axhline(beta, color=BOUND, ls=":", lw=1.6, label=f"β = {beta:.2g}")
    right.set_yscale("log"); right.set_ylim(1e-4, 1.5); right.set_xlabel("g (gap OPT − u, counts)")
    right.set_ylabel("P[gap ≥ g]")
    right.legend(loc="upper right", bbox_to_anchor=(1.0, -0.16), borderaxespad=0.0)
    log_minor_125(left, right)                          # cheaper log axes (the panel redraws)
    return fig
