"""Chapter 03's widget: many random queries answered from one noisy histogram of the digits data."""
from __future__ import annotations

import numpy as np

from ..data import bootstrap
from ..experiments import uniform_guess_error
from ..histogram import histogram_mechanism, pixels_histogram
from ..plots import BOUND, EMPIRICAL, EXTRA, UNIFORM, legend_outside
from ._layout import fixed_figure
from ..queries import random_queries
from ..theory.histogram import histogram_error_bound
from ..validation import check_beta, check_epsilon, check_int

__all__ = ["explore_histogram"]


def explore_histogram(epsilon=1.0, d=10, n=1797, beta=0.05, *, k=100, trials=200, seed=2026):
    """Chapter 03: answer ``k`` random counting queries from one noisy histogram of the digits data.

    Data: the digits marginalised to their first ``d`` pixels (``|X| = 2^d``), bootstrapped to ``n`` rows.
    Left: the distribution of one query's error and of the max error over the ``k`` queries in ``trials``
    releases, with IDC-Lem6.1's bounds at ``β`` (``k = 1`` is LEC3-3.5) and the uniform guess's max error.
    Right: the ``k`` true answers against
    one release, with the band ``± bound``: how useful the answers are at this ``(ε, |X|, n)``.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    d = check_int("d", d, low=4, high=16)   # below 4 pixels IDC-Lem6.1's condition fails for k = 100 queries
    n, k, trials = check_int("n", n, low=1), check_int("k", k, low=1), check_int("trials", trials, low=20)
    rng = np.random.default_rng(seed)
    x = pixels_histogram(d)
    x = x if n == x.sum() else bootstrap(x, n, rng)
    W = random_queries(k, x.size, rng)
    true = W.answers(x)
    err = np.abs(histogram_mechanism(x, W, n=int(x.sum()), epsilon=epsilon, trials=trials, rng=rng).answers - true)
    one_bound = histogram_error_bound(x.size, 1, beta, epsilon, n=n)
    all_bound = histogram_error_bound(x.size, k, beta, epsilon, n=n)

    fig, (left, right) = fixed_figure(2, width=9.5, height=4.9, left=0.72, right=0.15, bottom=1.9, top=0.3, wspace=0.8)
    bins = np.linspace(0, max(all_bound, err.max(), uniform_guess_error(x, W)) * 1.02, 50)
    left.hist(err[:, 0], bins=bins, color=EMPIRICAL, histtype="stepfilled", alpha=0.5, label="one query")
    left.hist(err.max(axis=1), bins=bins, color=EXTRA[1], histtype="stepfilled", alpha=0.5,
              label=f"max over k={k}")
    left.axvline(one_bound, color=BOUND, ls="--", label="bound, one query (LEC3-3.5)")
    left.axvline(all_bound, color=BOUND, label=f"bound, k={k} (IDC-Lem6.1)")
    guess = uniform_guess_error(x, W)       # the k queries answered on the uniform distribution, without the data
    left.axvline(guess, color=UNIFORM, ls="--", lw=1.6, label=f"uniform guess, max over k={k}")
    left.set_xlabel("error (fraction of n)")
    left.set_ylabel("trials")
    left.set_title(f"ε={epsilon:.3g}, |X|=2^{d}={x.size}, n={n}")
    legend_outside(left, where="below")

    released = histogram_mechanism(x, W, n=int(x.sum()), epsilon=epsilon, rng=rng).answers
    line = np.array([true.min(), true.max()])
    right.fill_between(line, line - all_bound, line + all_bound, color=BOUND, alpha=0.12, lw=0,
                       label="true ± bound")
    right.plot(line, line, color=BOUND, lw=1)
    right.plot(true, released, "o", color=EMPIRICAL, ms=3, label="one release")
    right.set_xlabel("true answer")
    right.set_ylabel("released answer")
    right.set_title(f"{k} random queries")
    legend_outside(right, where="below")
    return fig
