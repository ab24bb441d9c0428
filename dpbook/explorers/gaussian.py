"""Chapter 04's widget: Laplace (PROJ-R2) vs Gaussian (PROJ-R1) on m random queries over the cancer data."""
from __future__ import annotations

import math

import numpy as np

from ..data import load_cancer
from ..experiments import run_trials, uniform_guess_error
from ..gaussian import composed_laplace_mechanism, gaussian_mechanism
from ..plots import BASELINE, EMPIRICAL, UNIFORM, legend_outside
from ._layout import fixed_figure, log_minor_125
from ..queries import random_queries
from ..theory.gaussian import gaussian_max_error_bound, gaussian_sample_complexity, gaussian_sigma
from ..theory.laplace import k_query_sample_complexity, laplace_max_error_bound
from ..validation import check_alpha, check_beta, check_delta, check_epsilon, check_int

__all__ = ["explore_gaussian"]


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
    r = np.random.default_rng(seed)
    ms = np.unique(np.round(np.geomspace(1, 4096, 60)).astype(int))
    fig, (left, right) = fixed_figure(2, width=10, height=5.1, left=0.72, right=0.3, bottom=1.55, top=0.3, wspace=0.8)
    left.plot(ms, [k_query_sample_complexity(int(k), beta, epsilon, alpha) for k in ms], color=BASELINE,
              label="Laplace m ln(m/β)/(αε)")
    left.plot(ms, [gaussian_sample_complexity(int(k), beta, epsilon, delta, alpha) for k in ms], color=EMPIRICAL,
              label="Gaussian σ_εδ sqrt(2m ln(2m/β))/α")
    left.axvline(m, color="k", ls=":")
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
    right.axvline(b_g, color=EMPIRICAL, lw=2, ls="--", label="Gaussian bound")
    right.axvline(guess, color=UNIFORM, lw=1.6, ls="--", label="uniform guess")
    right.set_xlabel(f"max error over m = {m} queries (n = {n})")
    right.set_ylabel("releases"); legend_outside(right, where="below", ncols=2)
    return fig
