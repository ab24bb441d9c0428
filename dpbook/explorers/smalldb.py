"""Chapter 08's figures: SmallDB at the only sizes it can run (N = 4, 8, 16 on projections of the cancer data,
:func:`dpbook.comparisons.smalldb_vs_histogram`), next to chapter 03's noisy histogram and the uniform guess; its
accuracy against its bounds; and where DR-Thm4.5's bound would beat the histogram's."""
from __future__ import annotations

import numpy as np

from ..plots import BOUND, EMPIRICAL, HISTOGRAM, TRUTH, accuracy_vs_theory, legend_outside, new_figure, reference_line
from ..validation import check_alpha, check_int, check_real, check_real_array
from ._layout import log_minor_125

__all__ = ["figure_sampling_lemma", "figure_smalldb_bounds", "figure_smalldb_vs_histogram", "figure_crossover"]


def _series(name, value, size=None, *, positive=False):
    arr = check_real_array(name, value)
    if arr.ndim != 1 or arr.size == 0 or (size is not None and arr.size != size):
        want = "a non-empty 1-D array" if size is None else f"a 1-D array of {size} values"
        raise ValueError(f"{name} (shape {arr.shape}) must be {want}")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} ({float(arr.min())!r}) must be > 0")
    return arr


def figure_sampling_lemma(db_sizes, rates, lower, upper, bound, *, alpha, m, trials, dr_size, a3_size):
    """DR-Lemma4.3 on the data: the measured fraction of random ``n_y``-row samples that are not ``alpha``-accurate
    (with its band) against ``2m exp(−2 n_y α²)``, and the two sample sizes marked (DR's ``⌈ln m/α²⌉``,
    IDC-ClaimA.3's); log y."""
    db_sizes = _series("db_sizes", db_sizes, positive=True)
    rates, lower, upper, bound = (_series(k, v, db_sizes.size) for k, v in
                                  (("rates", rates), ("lower", lower), ("upper", upper), ("bound", bound)))
    alpha = check_alpha(alpha)
    m, trials = check_int("m", m, low=1), check_int("trials", trials, low=1)
    dr_size, a3_size = check_int("dr_size", dr_size, low=0), check_int("a3_size", a3_size, low=0)
    fig, ax = new_figure()
    accuracy_vs_theory(db_sizes, rates, bound, lower=lower, upper=upper, ax=ax, logy=True,
                       xlabel="$n_y$ (rows in the random sample)", ylabel="P[max error ≥ α]",
                       empirical_label="measured", bound_label="2m exp(−2$n_y$α²)\n(Lemma 4.3)",
                       title=f"α = {alpha:g}, m = {m}, {trials:,} samples per $n_y$")
    ax.axvline(dr_size, color="k", ls=":", label=f"DR size ⌈ln m/α²⌉ = {dr_size}")
    ax.axvline(a3_size, color="k", ls="--", lw=1, label=f"IDC-ClaimA.3 size = {a3_size}")
    ax.set_ylim(1e-5, 2)
    legend_outside(ax)
    log_minor_125(ax)
    return fig


def figure_smalldb_bounds(eps, measured, exact, sharp, prop44, *, opt, uniform, title=""):
    """SmallDB's 95%-quantile of the max error against ε (measured dots, exact law dotted) with the sharp bound
    ``OPT + 2(ln|R| + ln 1/β)/(εn)`` (DR-Thm3.11/Prop5.2), DR-Prop4.4, OPT and the uniform guess (log–log)."""
    eps = _series("eps", eps, positive=True)
    measured, exact, sharp, prop44 = (_series(k, v, eps.size, positive=True) for k, v in
                                      (("measured", measured), ("exact", exact), ("sharp", sharp), ("prop44", prop44)))
    opt, uniform = check_real("opt", opt, low=0.0, low_open=True), check_real("uniform", uniform, low=0.0, low_open=True)
    fig, ax = new_figure(height=6.0)
    accuracy_vs_theory(eps, measured, sharp, ax=ax, logx=True, logy=True, xlabel="ε",
                       ylabel="95%-quantile of max error", empirical_label="SmallDB, measured",
                       bound_label="OPT + 2(ln|R| + ln 1/β)/(εn)", title=title or None)
    ax.plot(eps, prop44, "--", color=BOUND, label="DR-Prop4.4")
    ax.plot(eps, exact, ":", color=TRUTH, label="SmallDB, exact law")
    ax.axhline(opt, color=TRUTH, ls="-.", lw=1, label="OPT (best $n_y$-row database)")
    reference_line(ax, uniform)
    ax.set_ylim(0.8 * min(opt, measured.min()), 20)
    legend_outside(ax, where="below", ncols=2)
    log_minor_125(ax)
    return fig


def figure_smalldb_vs_histogram(eps, smalldb_q, histogram_q, histogram_bd, *, uniform, title=""):
    """SmallDB against chapter 03's noisy histogram (purple) at the same ε: 95%-quantiles of the max error, the
    histogram's bound (IDC-Lem6.1) and the uniform guess (log–log)."""
    eps = _series("eps", eps, positive=True)
    smalldb_q, histogram_q, histogram_bd = (_series(k, v, eps.size, positive=True) for k, v in
                                            (("smalldb_q", smalldb_q), ("histogram_q", histogram_q),
                                             ("histogram_bd", histogram_bd)))
    uniform = check_real("uniform", uniform, low=0.0, low_open=True)
    fig, ax = new_figure(height=5.4)
    ax.plot(eps, smalldb_q, "o-", color=EMPIRICAL, ms=5, label="SmallDB, measured")
    ax.plot(eps, histogram_q, "D-", color=HISTOGRAM, ms=5, label="noisy histogram, measured")
    ax.plot(eps, histogram_bd, "-.", color=HISTOGRAM, lw=1.5, label="its bound (IDC-Lem6.1)")
    reference_line(ax, uniform)
    ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("ε"); ax.set_ylabel("95%-quantile of max error")
    if title:
        ax.set_title(title)
    legend_outside(ax, where="below", ncols=2)
    log_minor_125(ax)
    return fig


def figure_crossover(d, alpha_x, log10_range, *, max_log10_range):
    """Where DR-Thm4.5's bound beats the noisy histogram's (IDC-Lem6.1): left, the max error ``α×`` at which the
    two bounds cross, against the number of binary attributes ``d``; right, ``log10 |R|`` of the SmallDB run that
    guarantee needs, against the largest range ``smalldb`` enumerates."""
    d = _series("d", d, positive=True)
    alpha_x, log10_range = _series("alpha_x", alpha_x, d.size, positive=True), _series("log10_range", log10_range, d.size, positive=True)
    max_log10_range = check_real("max_log10_range", max_log10_range, low=0.0, low_open=True)
    fig, (left, right) = new_figure(2, height=4.4)
    left.plot(d, alpha_x, "-", color=BOUND, lw=2, label="max error where\nthe bounds cross")
    left.axhline(1.0, color=TRUTH, ls=":", lw=1.6, label="1: vacuous above")
    left.set_yscale("log"); left.set_xlabel("attributes d  (N = 2^d)"); left.set_ylabel("max error α× (bound)")
    right.plot(d, log10_range, "-", color=BOUND, lw=2, label="SmallDB run at α×/2")
    right.axhline(max_log10_range, color=TRUTH, ls="--", lw=1, label="largest range\nsmalldb enumerates")
    right.set_yscale("log"); right.set_xlabel("attributes d  (N = 2^d)"); right.set_ylabel("log10 |R|")
    legend_outside(left, where="below"); legend_outside(right, where="below")
    log_minor_125(left, right)
    return fig
