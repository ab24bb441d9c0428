"""Chapter 04's widget (Laplace, PROJ-R2, vs Gaussian, PROJ-R1, on m random queries over the cancer data) and the
chapter's figures: pure functions of the numbers the chapter computes, each ``figure_<what>(...) -> Figure``."""
from __future__ import annotations

import math

import numpy as np

from ..data import load_cancer
from ..experiments import run_trials, uniform_guess_error
from ..gaussian import composed_laplace_mechanism, gaussian_mechanism

from ..plots import (BASELINE, BOUND, EMPIRICAL, EXTRA, TRUTH, UNIFORM, accuracy_vs_theory, legend_outside,
                     new_figure, reference_line)
from ._inputs import series as _curves
from ._layout import fixed_figure, log_minor_125
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
from ..queries import random_queries
from ..theory.gaussian import gaussian_max_error_bound, gaussian_sample_complexity, gaussian_sigma
from ..theory.laplace import split_budget_sample_complexity, laplace_max_error_bound
from ..validation import (check_alpha, check_beta, check_delta, check_epsilon, check_int, check_positive_real,
                          check_probability)

__all__ = ["explore_gaussian", "figure_privacy_loss", "figure_calibration", "figure_accuracy", "figure_rows_needed"]


def explore_gaussian(epsilon=0.5, delta=1e-6, m=64, *, alpha=0.05, beta=0.05, trials=400, seed=2026):
    """PROJ-R1 vs PROJ-R2: the rows n each needs against m (theory), and measured max errors at m.

    Left: ``m ln(m/β)/(αε)`` (Laplace, basic composition) against ``σ_{ε,δ} sqrt(2m ln(2m/β))/α`` (Gaussian).
    Right: the max errors of ``trials`` seeded releases of each on ``m`` random counting queries over the real
    cancer histogram, with each mechanism's (1-β) bound and the uniform guess's error (it ignores the data).
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    alpha, beta = check_alpha(alpha), check_beta(beta)
    m, trials = check_int("m", m, low=1), check_int("trials", trials, low=1)
    data = load_cancer()
    x, n = data.x, data.n
    r = np.random.default_rng(check_int("seed", seed, low=0))
    ms = np.unique(np.round(np.geomspace(1, 4096, 60)).astype(int))
    fig, (left, right) = fixed_figure(2, width=10, height=5.1, left=0.72, right=0.3, bottom=1.55, top=0.3, wspace=0.8)
    left.plot(ms, [split_budget_sample_complexity(int(mm), beta, epsilon, alpha) for mm in ms], color=BASELINE,
              label="Laplace m ln(m/β)/(αε)")
    left.plot(ms, [gaussian_sample_complexity(int(mm), beta, epsilon, delta, alpha) for mm in ms], color=BOUND,
              label="Gaussian σ_εδ sqrt(2m ln(2m/β))/α")
    left.axvline(m, color=TRUTH, ls=":", label=f"your m = {m}")
    left.set_xscale("log"); left.set_yscale("log"); log_minor_125(left); left.set_xlabel("m"); left.set_ylabel("rows n needed")
    legend_outside(left, where="below"); left.set_title(f"ε = {epsilon:.3g}, δ = {delta:.3g}")
    Wm = random_queries(m, data.N, r)
    e_l = run_trials(composed_laplace_mechanism, x, Wm, trials=trials, rng=r, epsilon=epsilon).max
    e_g = run_trials(gaussian_mechanism, x, Wm, trials=trials, rng=r, epsilon=epsilon, delta=delta,
                     sensitivity=math.sqrt(m)).max
    b_l = laplace_max_error_bound(m, beta, m, epsilon) / n
    b_g = gaussian_max_error_bound(m, beta, gaussian_sigma(math.sqrt(m), epsilon, delta) / n)
    guess = uniform_guess_error(x, Wm)                  # answer 1/2 to every query: ignores the data
    bins = np.linspace(0, max(e_l.max(), e_g.max(), b_l, b_g, guess), 60)
    right.hist(e_l, bins=bins, histtype="stepfilled", color=BASELINE, alpha=0.6, label="Laplace")
    right.hist(e_g, bins=bins, histtype="stepfilled", color=EMPIRICAL, alpha=0.6, label="Gaussian")
    right.axvline(b_l, color=BASELINE, lw=2, label="Laplace bound")
    right.axvline(b_g, color=BOUND, lw=2, ls="--", label="Gaussian bound")
    right.axvline(guess, color=UNIFORM, lw=1.6, ls="--", label="uniform guess")
    right.set_xlabel(f"max error over m = {m} queries (n = {n})")
    right.set_ylabel("releases"); legend_outside(right, where="below", ncols=2)
    return fig


# --- the chapter's figures ------------------------------------------------------------------------------------------



def _plain_log_ticks(axis, ticks, lo, hi):
    """Label a log ``axis`` spanning ``lo..hi`` at the ``ticks`` inside it, as plain numbers (0.5, 1, 2) and without
    minor ticks: a log axis over one or two decades otherwise reads "6×10⁰" or labels only the powers of 10."""
    ticks = [t for t in ticks if lo <= t <= hi]
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def _positive_grid(name, arr):
    if np.any(arr <= 0):
        raise ValueError(f"{name} ({float(arr.min())!r}) must be > 0 on a log axis")
    return arr


def figure_privacy_loss(loss, mu, epsilon, *, delta, tail_exact):
    """PA(i) on DR-Gauss: the histogram of sampled privacy losses ``loss`` against their exact law
    ``N(μ, 2μ)`` (``mu`` = Δ²/(2σ²)), with the claim ``epsilon`` marked; the title compares the measured
    ``P[L > ε]`` with ``tail_exact`` and ``delta``."""
    loss = _curves("loss", loss=loss)["loss"]
    mu = check_positive_real("mu", mu)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    tail_exact = check_probability(tail_exact, "tail_exact")
    sd = math.sqrt(2 * mu)
    grid = np.linspace(mu - 6 * sd, mu + 6 * sd, 400)
    fig, ax = new_figure()
    ax.hist(loss, bins=120, density=True, color=EMPIRICAL, alpha=0.6, label=f"L of {loss.size:,} releases")
    ax.plot(grid, np.exp(-0.5 * ((grid - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi)), color=TRUTH, label="exact law N(μ, 2μ)")
    ax.axvline(epsilon, color=BOUND, ls="--", label=f"claim ε = {epsilon:.3g}")
    ax.set_xlabel("privacy loss L"); ax.set_ylabel("density of L")
    ax.set_title(f"P[L > ε]: {np.mean(loss > epsilon):.2e} measured,\n{tail_exact:.2e} exact, δ = {delta:.3g}")
    legend_outside(ax, where="below", ncols=2)
    log_minor_125(*fig.axes)
    return fig


def figure_calibration(eps, exact_delta, loss_tail, sigma_ratio, *, delta):
    """DR-Gauss and erratum DR-E3: left, the exact δ(ε) of the classic σ and the sufficient ``P[L > ε]``
    against the target ``delta`` over ``eps``; right, ``sigma_ratio`` = analytic σ / classic σ."""
    c = _curves("eps", eps=eps, exact_delta=exact_delta, loss_tail=loss_tail, sigma_ratio=sigma_ratio)
    delta = check_delta(delta, positive=True)
    eps = _positive_grid("eps", c["eps"])
    fig, (a1, a2) = new_figure(2, height=5.4)
    a1.plot(eps, np.maximum(c["exact_delta"], 1e-300), color=TRUTH, label="exact δ(ε) of the classic σ")
    a1.plot(eps, np.maximum(c["loss_tail"], 1e-300), color=EXTRA[0], ls="--", label="P[L > ε] (sufficient)")
    a1.axhline(delta, color=BOUND, label=f"target δ = {delta:.3g}")
    a1.axvspan(1, eps.max(), color=UNIFORM, alpha=0.15, lw=0, label="ε ≥ 1: outside DR-Gauss")
    a1.set_xscale("log"); a1.set_yscale("log"); a1.set_ylim(1e-12, 1)
    a1.set_xlabel("ε"); a1.set_ylabel("δ"); a1.set_title("classic σ = √(2 ln(1.25/δ))/ε")
    legend_outside(a1, where="below")
    a2.plot(eps, c["sigma_ratio"], color=EXTRA[1])
    a2.axvline(1, color=TRUTH, ls=":", lw=1)
    a2.set_xscale("log"); a2.set_xlabel("ε"); a2.set_ylabel("σ analytic / σ classic")
    a2.set_title(f"analytic calibration, δ = {delta:.3g}")
    log_minor_125(*fig.axes)
    return fig


def figure_accuracy(eps, q_gauss, bound, q_laplace, uniform, betas, rates, lower, upper, exact, *, m, delta, n,
                    beta_epsilon, quantile=0.95):
    """PROJ-R1 measured: left, the ``quantile`` of the max error of the Gaussian mechanism over ``eps`` against its
    bound, with the per-query Laplace baseline and the uniform guess; right, the measured failure rate (with its
    interval ``lower..upper``) and the ``exact`` failure probability at the bound for each β in ``betas``, all at
    ``ε = beta_epsilon``."""
    c = _curves("eps", eps=eps, q_gauss=q_gauss, bound=bound, q_laplace=q_laplace)
    r = _curves("betas", betas=betas, rates=rates, lower=lower, upper=upper, exact=exact)
    uniform = check_positive_real("uniform", uniform)
    m, n = check_int("m", m, low=1), check_int("n", n, low=1)
    delta, quantile = check_delta(delta, positive=True), check_probability(quantile, "quantile")
    beta_epsilon = check_epsilon(beta_epsilon, "beta_epsilon")
    _positive_grid("eps", c["eps"]); _positive_grid("betas", r["betas"])
    fig, (a1, a2) = new_figure(2, height=5.6)
    accuracy_vs_theory(c["eps"], c["q_gauss"], c["bound"], ax=a1, logx=True, logy=True, xlabel="ε",
                       ylabel=f"max error, {quantile:g}-quantile", empirical_label="Gaussian, measured",
                       bound_label="bound s·√(2 ln(2m/β))", title=f"m = {m}, δ = {delta:.3g}, n = {n}")
    a1.plot(c["eps"], c["q_laplace"], "s--", color=BASELINE, ms=5, label="Laplace (Δ₁ = 55), measured")
    reference_line(a1, uniform)
    values = np.concatenate([c["q_gauss"], c["bound"], c["q_laplace"], [uniform]])
    lo, hi = values.min() / 1.25, values.max() * 1.25          # the uniform guess clear of the bottom spine
    a1.set_ylim(lo, hi)
    _plain_log_ticks(a1.yaxis, [k * 10.0 ** e for e in range(-3, 4) for k in (1, 2, 5)], lo, hi)
    a1.set_xlim(c["eps"].min() / 1.15, c["eps"].max() * 1.15)
    _plain_log_ticks(a1.xaxis, c["eps"], 0, np.inf)             # a tick at every ε measured
    accuracy_vs_theory(r["betas"], np.maximum(r["rates"], 1e-5), r["betas"], lower=np.maximum(r["lower"], 1e-5),
                       upper=r["upper"], ax=a2, logx=True, logy=True, xlabel="β",
                       ylabel="P[max error ≥ bound(β)]", bound_label="β", empirical_label="measured failure rate",
                       title=f"ε = {beta_epsilon:.3g}, {m} queries")
    a2.plot(r["betas"], r["exact"], ":", color=TRUTH, label="exact probability")
    log_minor_125(a2)
    for a in (a1, a2):
        legend_outside(a, where="below")
    return fig


def figure_rows_needed(ms, need_laplace, theory_laplace, need_gauss, theory_gauss, *, alpha, beta, epsilon, delta):
    """PROJ-R1 vs PROJ-R2: the smallest measured ``n`` at which each mechanism is (α, β)-accurate for ``ms``
    queries (dots) against each theorem's sufficient ``n`` (lines), with the least-squares slopes in the legend."""
    c = _curves("ms", ms=ms, need_laplace=need_laplace, theory_laplace=theory_laplace, need_gauss=need_gauss,
                theory_gauss=theory_gauss)
    for name in c:
        _positive_grid(name, c[name])
    alpha, beta = check_alpha(alpha), check_beta(beta)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    slope = lambda y: float(np.polyfit(np.log(c["ms"]), np.log(y), 1)[0]) if c["ms"].size > 1 else float("nan")  # noqa: E731
    fig, ax = new_figure(height=5.0)
    ax.plot(c["ms"], c["theory_gauss"], "-", color=BOUND, label="Gaussian: σ_εδ √(2m ln(2m/β))/α")
    ax.plot(c["ms"], c["need_gauss"], "o", color=EMPIRICAL, ms=6,
            label=f"Gaussian, measured (slope {slope(c['need_gauss']):.2f})")
    ax.plot(c["ms"], c["theory_laplace"], "-", color=BASELINE, label="Laplace: m ln(m/β)/(αε)")
    # hollow squares on top: where both need the same n (m = 8 on the default grid) the Gaussian dot shows through
    ax.plot(c["ms"], c["need_laplace"], "s", color=BASELINE, ms=9, mfc="none", mew=1.8, zorder=3,
            label=f"Laplace, measured (slope {slope(c['need_laplace']):.2f})")
    ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel("m (queries)"); ax.set_ylabel("rows n for max error ≤ α")
    ax.set_title(f"α = β = {alpha:.3g}, ε = {epsilon:.3g}, δ = {delta:.3g}" if alpha == beta else
                 f"α = {alpha:.3g}, β = {beta:.3g}, ε = {epsilon:.3g}, δ = {delta:.3g}")
    legend_outside(ax, where="below")
    log_minor_125(*fig.axes)
    return fig
