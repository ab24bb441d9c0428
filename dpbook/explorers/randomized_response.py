"""Chapter 02's widget: per-query Laplace (exact sensitivity) against randomized response as the number of queries grows."""
from __future__ import annotations

import numpy as np

from ..data import bootstrap, load_cancer
from ..experiments import uniform_guess_prefix_error
from ..noise import laplace_noise
from ..plots import (BASELINE, BOUND, EMPIRICAL, EXTRA, TRUTH, UNIFORM, accuracy_vs_theory, legend_outside, new_figure,
                     reference_curve, reference_line)
from ._inputs import values as _values
from ._layout import fixed_figure, log_minor_125
from ..queries import prefix_sensitivities
from ..randomized_response import rr_histogram, subgroup_workload
from ..theory.laplace import laplace_max_error_bound, laplace_scale
from ..theory.randomized_response import rr_error_bound
from ..validation import check_beta, check_epsilon, check_int, check_trials

__all__ = ["explore_rr", "figure_hoeffding_tail", "figure_rr_sweeps", "figure_rr_vs_laplace"]


def explore_rr(epsilon=1.0, n=569, m=100, beta=0.05, *, trials=200, seed=2026):
    """Chapter 02's headline: max error over ``m`` subgroup queries, per-query Laplace vs randomized response.

    Data: the cancer table (bootstrapped to ``n`` rows), private bit ``malignant``; queries: the first ``m``
    of :func:`subgroup_workload` ("fraction of all n patients who are in subgroup S and malignant").  Both protect
    one patient's diagnosis.  The baseline, per-query Laplace, adds ``Lap(Δ_m/ε)`` to each of the first ``m`` counts
    with ``Δ_m`` their exact sensitivity (DR-Thm3.8, LEC3-3.3.2); randomized response spends ε once and answers
    all queries (LEC3-3.4).  Dots: measured ``(1-β)``-quantiles; lines: the two bounds (green: Laplace, red:
    randomized response); grey dashed: the uniform guess's max error; dotted: your ``m``.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    W_all = subgroup_workload()
    n, trials = check_int("n", n, low=1), check_int("trials", trials, low=20)
    m = check_int("m", m, low=1, high=W_all.m)
    check_trials(trials, per_trial=W_all.m)          # the (trials, queries) arrays of noisy answers
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    x = load_cancer().x
    x = x if n == x.sum() else bootstrap(x, n, rng)
    true = W_all.counts(x) / n
    delta = prefix_sensitivities(W_all)

    ks = np.unique(np.round(np.geomspace(1, W_all.m, 14)).astype(int))
    rr_err = np.abs(W_all.apply(rr_histogram(x, epsilon=epsilon, bit=10, trials=trials, rng=rng).counts)
                    / n - true)
    rr_q = np.quantile(np.maximum.accumulate(rr_err, axis=1)[:, ks - 1], 1 - beta, axis=0)   # every prefix at once
    # laplace_mechanism(x, first kk queries, sensitivity=Δ_kk) errs by exactly Lap(Δ_kk/ε)^kk / n: draw Lap(1) once
    # and rescale per kk (the same law the mechanism draws from)
    unit = np.maximum.accumulate(np.abs(laplace_noise(1.0, (trials, W_all.m), rng)), axis=1)[:, ks - 1]
    lap_q = np.quantile(unit, 1 - beta, axis=0) * np.array([laplace_scale(delta[kk - 1], epsilon) for kk in ks]) / n
    lap_bound = [laplace_max_error_bound(int(kk), beta, float(delta[kk - 1]), epsilon) / n for kk in ks]
    rr_bound = [rr_error_bound(n, beta, epsilon, int(kk)) for kk in ks]
    fig, ax = fixed_figure(width=9.6, height=4.4, left=0.75, right=3.5, bottom=0.55, top=0.3)
    ax.plot(ks, lap_bound, "--", color=BASELINE, label="Laplace (exact Δ_m): bound")
    ax.plot(ks, lap_q, "o", color=BASELINE, ms=5, label="Laplace (exact Δ_m): measured")
    ax.plot(ks, rr_bound, "-", color=BOUND, label="randomized response: bound")
    ax.plot(ks, rr_q, "s", color=EMPIRICAL, ms=5, label="randomized response: measured")
    ax.plot(ks, uniform_guess_prefix_error(x, W_all)[ks - 1], "--", color=UNIFORM, lw=1.6, label="uniform guess")
    ax.axvline(m, color=TRUTH, ls=":", lw=1.2, label=f"your m = {m}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_minor_125(ax)
    ax.set_xlabel("m (first m subgroup queries)")
    ax.set_ylabel(f"max error, {1 - beta:.3g}-quantile")
    lap_m = laplace_max_error_bound(m, beta, float(delta[m - 1]), epsilon) / n
    ax.set_title(f"ε={epsilon:.3g}, n={n}; bounds at m={m}: Laplace {lap_m:.2g}, RR {rr_error_bound(n, beta, epsilon, m):.2g}")
    legend_outside(ax)
    return fig




def figure_hoeffding_tail(lam_grid, tail_one, tail_weights, bound, guess_error, *, n, epsilon, releases):
    """Chapter 02, one query: the measured tail ``P[error > λ]`` of randomized response for ``q = 1`` (blue) and a
    random-weight query, against Hoeffding's bound (red, LEC3-3.4) and the error of the data-independent answer ½
    (grey dashed, vertical).  Arrays share the length of ``lam_grid`` (the grid of λ); the y axis is log, down to
    ``1/releases``."""
    lam_grid = _values("lam_grid", lam_grid, positive=True)
    tail_one, tail_weights, bound = (_values(nm, v, lam_grid.size) for nm, v in
                                     (("tail_one", tail_one), ("tail_weights", tail_weights), ("bound", bound)))
    guess_error = float(_values("guess_error", [guess_error])[0])
    n, releases = check_int("n", n, low=1), check_int("releases", releases, low=1)
    epsilon = check_epsilon(epsilon)
    fig, ax = new_figure()
    accuracy_vs_theory(lam_grid, tail_one, bound, ax=ax, logy=True, xlabel="λ (error, fraction of n)",
                       ylabel="P[error > λ]", empirical_label="measured, q = 1", bound_label="Hoeffding bound")
    ax.plot(lam_grid, tail_weights, "s", color=EXTRA[1], ms=4, label="measured,\nrandom weights")
    ax.axvline(guess_error, color=UNIFORM, ls="--", lw=1.6, label="error of the\nguess ½, q = 1")
    ax.set_ylim(0.5 / releases, 1.5)           # a tail of one release in ``releases`` sits clear of the bottom edge
    ax.set_title(f"n = {n}, ε = {epsilon:g}, {releases:,} releases")
    log_minor_125(ax)
    legend_outside(ax)
    return fig


def figure_rr_sweeps(n_grid, q_n, bound_n, guess_n, eps_grid, q_eps, bound_eps, guess_eps, *, n, epsilon, m):
    """Chapter 02, many queries: randomized response's 0.95-quantile max error over ``m`` queries against
    LEC3-3.4's bound, left against the number of rows (at ``epsilon``), right against ε (at ``n`` rows), with
    the uniform guess (grey dashed).  The titles give the fitted log-log slopes (ε ≤ 1 on the right)."""
    n_grid = _values("n_grid", n_grid, positive=True)
    q_n, bound_n, guess_n = (_values(nm, v, n_grid.size, positive=nm != "guess_n") for nm, v in
                             (("q_n", q_n), ("bound_n", bound_n), ("guess_n", guess_n)))
    eps_grid = _values("eps_grid", eps_grid, positive=True)
    q_eps, bound_eps, guess_eps = (_values(nm, v, eps_grid.size, positive=nm != "guess_eps") for nm, v in
                                   (("q_eps", q_eps), ("bound_eps", bound_eps), ("guess_eps", guess_eps)))
    n, m, epsilon = check_int("n", n, low=1), check_int("m", m, low=1), check_epsilon(epsilon)
    slope_n = np.polyfit(np.log(n_grid), np.log(q_n), 1)[0] if n_grid.size > 1 else float("nan")
    small = eps_grid <= 1
    slope_eps = np.polyfit(np.log(eps_grid[small]), np.log(q_eps[small]), 1)[0] if small.sum() > 1 else float("nan")
    fig, (a1, a2) = new_figure(2, height=4.6)
    for ax, xs, q, bd, gs, xlabel, title in (
            (a1, n_grid, q_n, bound_n, guess_n, "n (bootstrap of the real table)", f"ε = {epsilon:g}: slope {slope_n:.2f}"),
            (a2, eps_grid, q_eps, bound_eps, guess_eps, "ε", f"n = {n}: slope {slope_eps:.2f} for ε ≤ 1")):
        accuracy_vs_theory(xs, q, bd, ax=ax, logx=True, logy=True, xlabel=xlabel, title=title,
                           ylabel=f"max error (m = {m}), 0.95-quantile",
                           empirical_label="measured 0.95-quantile", bound_label="bound √(ln(2m/β)/2n) / tanh(ε/2)")
        reference_curve(ax, xs, gs)
        ax.get_legend().remove()
    log_minor_125(a1, a2)
    fig.legend(*a1.get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


def figure_rr_vs_laplace(m_grid, panels, *, epsilon):
    """Chapter 02's headline: the 0.95-quantile max error over the first m queries, randomized response (blue dots,
    red bound) against per-query Laplace with the exact sensitivity Δ_m (green dots, green dashed bound), and the
    uniform guess (grey dashed); one panel per entry of ``panels`` (at most two), each a dict with keys ``n``,
    ``rr``, ``rr_b``, ``lap``, ``lap_b``, ``guess`` (arrays of ``m_grid``'s length).  Dotted: m = √n."""
    m_grid = _values("m_grid", m_grid, positive=True)
    epsilon = check_epsilon(epsilon)
    if not isinstance(panels, (list, tuple)) or not 1 <= len(panels) <= 2:
        raise ValueError(f"panels must be a list of one or two dicts, got {type(panels).__name__}")
    checked = []
    for p in panels:
        if not isinstance(p, dict):
            raise TypeError(f"panels must hold dicts, got {type(p).__name__}")
        missing = {"n", "rr", "rr_b", "lap", "lap_b", "guess"} - set(p)
        if missing:
            raise ValueError(f"panels: each dict needs the keys {sorted(missing)}")
        checked.append(dict(n=check_int("panels n", p["n"], low=1), **{key: _values(f"panels {key}", p[key], m_grid.size)
                                                                        for key in ("rr", "rr_b", "lap", "lap_b", "guess")}))
    fig, axes = new_figure(len(checked), height=4.8)
    axes = np.atleast_1d(axes)
    values = np.concatenate([p[key] for p in checked for key in ("rr", "rr_b", "lap", "lap_b", "guess")])
    low = min(1e-4, values[values > 0].min() / 2) if np.any(values > 0) else 1e-4   # every point above the bottom edge
    for ax, p in zip(axes, checked):
        ax.plot(m_grid, p["lap_b"], "--", color=BASELINE, label="Laplace (exact Δ_m): bound")
        ax.plot(m_grid, p["lap"], "o", color=BASELINE, ms=5, label="Laplace (exact Δ_m): measured")
        ax.plot(m_grid, p["rr_b"], "-", color=BOUND, label="randomized response: bound")
        ax.plot(m_grid, p["rr"], "s", color=EMPIRICAL, ms=5, label="randomized response: measured")
        reference_curve(ax, m_grid, p["guess"])
        ax.axvline(np.sqrt(p["n"]), color=TRUTH, ls=":", lw=1.2, label="m = √n")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("m (first m subgroup queries)")
        ax.set_title(f"n = {p['n']:,}, ε = {epsilon:g}")
        ax.set_ylim(low, 5)
        ax.set_ylabel("max error, 0.95-quantile")
        log_minor_125(ax)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig
