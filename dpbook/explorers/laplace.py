"""Chapter 01's widget: the Laplace mechanism's max error against DR-Thm3.8 on the cancer data."""
from __future__ import annotations

import numpy as np

from ..data import bootstrap, load_cancer
from ..experiments import failure_rate, run_trials, uniform_guess_error
from ..laplace import laplace_mechanism
from ..plots import BOUND, EMPIRICAL, UNIFORM, accuracy_vs_theory, legend_outside, new_figure, reference_curve
from ._layout import fixed_figure, log_minor_125
from ..queries import cancer_conjunctions
from ..theory.laplace import split_budget_error_bound
from ..validation import check_beta, check_epsilon, check_int

__all__ = ["explore_laplace", "figure_error_sweeps"]


def explore_laplace(epsilon=1.0, n=569, m=55, beta=0.05, *, trials=2000, seed=2026):
    """Max normalised error of ``trials`` Laplace releases of ``m`` queries (budget ε/m per query) against DR-Thm3.8.

    Left: the distribution of the max error with the bound ``m·ln(m/β)/(nε)`` (LEC3-3.3.2) and the max error of
    the uniform guess (the data-independent answer); the title says which of the two has the smaller
    ``(1-β)``-quantile.
    Right: the failure rate ``P[max error >= bound(β')]`` for a sweep of β' against the line ``β'``.
    The data are the real cancer histogram, resampled to ``n`` rows when ``n != 569``.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    n, trials = check_int("n", n, low=1), check_int("trials", trials, low=10)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    x = load_cancer().x
    if n != x.sum():
        x = bootstrap(x, n, rng)
    W = cancer_conjunctions(m)
    max_err = run_trials(laplace_mechanism, x, W, trials=trials, rng=rng, epsilon=epsilon, sensitivity=m).max
    bound = split_budget_error_bound(m, beta, epsilon, n=n)

    fig, (left, right) = fixed_figure(2, width=9.6, height=4.6, left=0.72, right=0.12, bottom=1.6, top=0.28, wspace=0.75)
    left.hist(max_err, bins=40, histtype="stepfilled", color=EMPIRICAL, alpha=0.7, label="measured max error")
    q = np.quantile(max_err, 1 - beta)     # often within 1% of the bound: drawn on top, both values in the legend
    left.axvline(bound, color=BOUND, lw=3.2, zorder=2, label=f"bound at β={beta:.3g}: {bound:.3g}")
    left.axvline(q, color=EMPIRICAL, ls="--", lw=2.2, zorder=3, label=f"measured {1 - beta:.3g}-quantile: {q:.3g}")
    guess = uniform_guess_error(x, W)       # answering every conjunction with its value on the uniform distribution
    left.axvline(guess, color=UNIFORM, ls="--", lw=1.6, label="uniform guess (ignores the data)")
    left.set_xlabel("max error over the m queries (fraction of n)")
    left.set_ylabel("trials")
    winner = "Laplace wins" if q < guess else "the guess wins"
    left.set_title(f"ε={epsilon:.3g}, n={n}, m={m}: {winner}")
    legend_outside(left, where="below")

    betas = np.geomspace(0.01, 0.9, 12)
    rates = [failure_rate(max_err, split_budget_error_bound(m, b, epsilon, n=n)) for b in betas]
    accuracy_vs_theory(betas, [r.rate for r in rates], betas, lower=[r.lower for r in rates],
                       upper=[r.upper for r in rates], ax=right, logx=True, logy=True,
                       xlabel="β", ylabel="P[max error ≥ bound(β)]", bound_label="β (DR-Thm3.8)",
                       empirical_label="measured failure rate")
    log_minor_125(right)
    legend_outside(right, where="below")
    return fig


def _curve(name, values, size=None):
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size < 2 or (size is not None and arr.size != size):
        raise ValueError(f"{name} must be a 1-D array of {size if size is not None else 'at least 2'} values, "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite and positive (it is drawn on log axes)")
    return arr


def figure_error_sweeps(eps_grid, q_eps, bound_eps, guess_eps, m_grid, q_m, bound_m, guess_m, *, m_fixed, eps_fixed):
    """Chapter 01's two sweeps of the Laplace mechanism's 0.95-quantile max error, next to DR-Thm3.8's bound and
    the uniform guess (grey dashed): left against ε at ``m_fixed`` queries, right against the number of queries m at
    ``eps_fixed``.  Every argument is an array of the same length as its grid; returns the figure."""
    eps_grid = _curve("eps_grid", eps_grid)
    q_eps, bound_eps, guess_eps = (_curve(nm, v, eps_grid.size) for nm, v in
                                   (("q_eps", q_eps), ("bound_eps", bound_eps), ("guess_eps", guess_eps)))
    m_grid = _curve("m_grid", m_grid)
    q_m, bound_m, guess_m = (_curve(nm, v, m_grid.size) for nm, v in
                             (("q_m", q_m), ("bound_m", bound_m), ("guess_m", guess_m)))
    m_fixed = check_int("m_fixed", m_fixed, low=1)
    eps_fixed = check_epsilon(eps_fixed, "eps_fixed")
    fig, (a1, a2) = new_figure(2, height=4.6)
    for ax, xs, q, bd, gs, xlabel, title in (
            (a1, eps_grid, q_eps, bound_eps, guess_eps, "ε", f"m = {m_fixed}: error falls like 1/ε"),
            (a2, m_grid, q_m, bound_m, guess_m, "m (number of queries)", f"ε = {eps_fixed:g}: grows like m ln m")):
        accuracy_vs_theory(xs, q, bd, ax=ax, logx=True, logy=True, xlabel=xlabel,
                           ylabel="max error, 0.95-quantile", title=title,
                           empirical_label="measured 0.95-quantile", bound_label="bound m ln(m/β)/(nε)")
        reference_curve(ax, xs, gs)
        ax.get_legend().remove()
    log_minor_125(a1, a2)
    fig.legend(*a1.get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig
