"""Chapter 03's widget: many random queries answered from one noisy histogram of the digits data."""
from __future__ import annotations

import numpy as np

from ..data import bootstrap
from ..experiments import uniform_guess_error
from ..histogram import histogram_mechanism, pixels_histogram
from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, HISTOGRAM, TRUTH, UNIFORM, legend_outside, new_figure, reference_curve
from ._inputs import values as _values
from ._layout import fixed_figure, log_minor_125
from ..queries import random_queries
from ..theory.histogram import histogram_error_bound, laplace_sum_tail_bound
from ..validation import check_beta, check_epsilon, check_int

__all__ = ["explore_histogram", "figure_histogram_vs_laplace", "figure_tail_bound", "figure_universe_size"]


def explore_histogram(epsilon=1.0, d=10, n=1797, beta=0.05, *, m=100, trials=200, seed=2026):
    """Chapter 03: answer ``m`` random counting queries from one noisy histogram of the digits data.

    Data: the digits marginalised to their first ``d`` pixels (``|X| = 2^d``), bootstrapped to ``n`` rows.
    Left: the distribution of one query's error and of the max error over the ``m`` queries in ``trials``
    releases, with IDC-Lem6.1's bounds at ``β`` (``m = 1`` is LEC3-3.5) and the uniform guess's max error.
    Right: the ``m`` true answers against
    one release, with the band ``± bound``: how useful the answers are at this ``(ε, |X|, n)``.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    d = check_int("d", d, low=4, high=16)   # below 4 pixels IDC-Lem6.1's condition fails for m = 100 queries
    n, m, trials = check_int("n", n, low=1), check_int("m", m, low=1), check_int("trials", trials, low=20)
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    x = pixels_histogram(d)
    x = x if n == x.sum() else bootstrap(x, n, rng)
    W = random_queries(m, x.size, rng)
    true = W.answers(x)
    err = np.abs(histogram_mechanism(x, W, n=int(x.sum()), epsilon=epsilon, trials=trials, rng=rng).answers - true)
    one_bound = histogram_error_bound(x.size, 1, beta, epsilon, n=n)
    all_bound = histogram_error_bound(x.size, m, beta, epsilon, n=n)

    fig, (left, right) = fixed_figure(2, width=9.5, height=4.9, left=0.72, right=0.15, bottom=1.9, top=0.3, wspace=0.8)
    bins = np.linspace(0, max(all_bound, err.max(), uniform_guess_error(x, W)) * 1.02, 50)
    left.hist(err[:, 0], bins=bins, color=HISTOGRAM, histtype="stepfilled", alpha=0.5, label="one query")
    left.hist(err.max(axis=1), bins=bins, color=EXTRA[1], histtype="stepfilled", alpha=0.5,
              label=f"max over m={m}")
    left.axvline(one_bound, color=BOUND, ls="--", label="bound, one query (LEC3-3.5)")
    left.axvline(all_bound, color=BOUND, label=f"bound, m={m} (IDC-Lem6.1)")
    guess = uniform_guess_error(x, W)       # the m queries answered on the uniform distribution, without the data
    left.axvline(guess, color=UNIFORM, ls="--", lw=1.6, label=f"uniform guess, max over m={m}")
    left.set_xlabel("error (fraction of n)")
    left.set_ylabel("trials")
    left.set_title(f"ε={epsilon:.3g}, |X|=2^{d}={x.size}, n={n}")
    legend_outside(left, where="below")

    released = histogram_mechanism(x, W, n=int(x.sum()), epsilon=epsilon, rng=rng).answers
    line = np.array([true.min(), true.max()])
    right.fill_between(line, line - all_bound, line + all_bound, color=BOUND, alpha=0.12, lw=0,
                       label="true ± bound")
    right.plot(line, line, color=TRUTH, lw=1.2, label="true answer (y = x)")
    right.plot(true, released, "o", color=HISTOGRAM, ms=3, label="one release")
    right.set_xlabel("true answer")
    right.set_ylabel("released answer")
    right.set_title(f"{m} random queries")
    legend_outside(right, where="below")
    return fig




def figure_tail_bound(tails, *, b):
    """Chapter 03, IDC-Thm6.5: the measured tail ``P[Y ≥ λ]`` of a weighted sum of ``M`` Laplace(b) variables, for
    ``q = 1`` (blue dots) and a real 0/1 query (squares), against the bound's running minimum (red) and the bound
    as stated (thin dashed, it jumps up at ``λ = 2Mb``, dotted).  ``tails`` maps ``M`` to ``(λ grid, draws of Y for
    q = 1, draws of Y for the real query)``; one panel per ``M`` (at most two)."""
    if not isinstance(tails, dict) or not 1 <= len(tails) <= 2:
        raise ValueError(f"tails must be a dict of one or two entries M -> (lam, Y_one, Y_real), got {type(tails).__name__}")
    b = float(_values("b", [b], positive=True)[0])
    fig, axes = new_figure(len(tails), height=4.6)
    axes = np.atleast_1d(axes)
    for ax, (M, entry) in zip(axes, tails.items()):
        M = check_int("tails M", M, low=1)
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise ValueError("tails: each entry must be (lam, Y_one, Y_real)")
        lam = _values("tails lam", entry[0], positive=True)
        y_one, y_real = (np.asarray(v, dtype=float) for v in entry[1:])
        if y_one.ndim != 1 or y_real.ndim != 1 or not (np.all(np.isfinite(y_one)) and np.all(np.isfinite(y_real))):
            raise ValueError("tails: Y_one and Y_real must be finite 1-D arrays of draws")
        stated = laplace_sum_tail_bound(lam, M, b)
        ax.plot(lam, np.minimum.accumulate(stated), "-", color=BOUND, label="IDC-Thm6.5 (running min)")
        ax.plot(lam, stated, "--", color=BOUND, lw=0.8, label="IDC-Thm6.5 as stated")
        ax.plot(lam, [np.mean(y_one >= v) for v in lam], "o", color=EMPIRICAL, ms=5, label="measured, q = 1")
        ax.plot(lam, [np.mean(y_real >= v) for v in lam], "s", color=EXTRA[1], ms=4, label="measured, real query")
        ax.axvline(2 * M * b, color=TRUTH, ls=":", lw=1, label="λ = 2Mb (switch)")
        ax.set_yscale("log")
        ax.set_xlim(0, lam[-1] * 1.02)
        ax.set_ylim(0.5 / max(y_one.size, 1), 1.5)
        ax.set_xlabel("λ")
        ax.set_title(f"M = {M}, b = {b:g}")
        log_minor_125(ax)
    axes[0].set_ylabel("P[Y ≥ λ]")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


def figure_histogram_vs_laplace(m_grid, panels, *, N, epsilon):
    """Chapter 03's headline: the 0.95-quantile max error over the first m queries — the noisy histogram (purple
    dots, IDC-Lem6.1's bound in red) against per-query Laplace with the exact sensitivity (green squares, green
    dashed bound) and the uniform guess (grey dashed); one panel per entry of ``panels`` (at most two), each a dict
    with keys ``n``, ``hist``, ``hist_b``, ``lap``, ``lap_b``, ``guess`` (arrays of ``m_grid``'s length)."""
    m_grid = _values("m_grid", m_grid, positive=True)
    N, epsilon = check_int("N", N, low=1), check_epsilon(epsilon)
    if not isinstance(panels, (list, tuple)) or not 1 <= len(panels) <= 2:
        raise ValueError(f"panels must be a list of one or two dicts, got {type(panels).__name__}")
    fig, axes = new_figure(len(panels), height=4.8)
    axes = np.atleast_1d(axes)
    for ax, p in zip(axes, panels):
        if not isinstance(p, dict):
            raise TypeError(f"panels must hold dicts, got {type(p).__name__}")
        missing = {"n", "hist", "hist_b", "lap", "lap_b", "guess"} - set(p)
        if missing:
            raise ValueError(f"panels: each dict needs the keys {sorted(missing)}")
        v = {key: _values(f"panels {key}", p[key], m_grid.size) for key in ("hist", "hist_b", "lap", "lap_b", "guess")}
        n = check_int("panels n", p["n"], low=1)
        ax.plot(m_grid, v["hist_b"], "-", color=BOUND, label="noisy histogram: IDC-Lem6.1 bound")
        ax.plot(m_grid, v["hist"], "o", color=HISTOGRAM, ms=5, label="noisy histogram: measured")
        ax.plot(m_grid, v["lap_b"], "--", color=BASELINE, label="per-query Laplace (exact Δ): bound")
        ax.plot(m_grid, v["lap"], "s", color=BASELINE, ms=5, label="per-query Laplace (exact Δ): measured")
        # the guess is exact (0) while the first queries have known answers: a log axis cannot show 0, so the
        # curve starts at the first m where the guess errs and the legend says so
        shown, zeros = v["guess"] > 0, m_grid[v["guess"] == 0]
        note = "" if zeros.size == 0 else f" (0 at m = {zeros[0]:g})" if zeros.size == 1 else f" (0 at m ≤ {zeros.max():g})"
        reference_curve(ax, m_grid[shown], v["guess"][shown], label=f"uniform guess (ignores the data){note}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("m (first m queries)")
        ax.set_ylabel("max error, 0.95-quantile")
        ax.set_title(f"n = {n:,}, N = {N}, ε = {epsilon:g}")
        log_minor_125(ax)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


def figure_universe_size(N_grid, one_q, bound_one, many_q, bound_many, guess_many, *, m, n, epsilon):
    """Chapter 03, the price of a large universe (LEC3-3.5): the noisy histogram's 0.95-quantile error of one query
    ``q = 1`` (purple dots, red bound) and its max error over ``m`` random queries (squares, dashed red bound)
    against ``N = |X|`` on log-log axes, with the uniform guess's max error over the ``m`` queries (grey dashed)."""
    N_grid = _values("N_grid", N_grid, positive=True)
    one_q, bound_one, many_q, bound_many = (_values(nm, v, N_grid.size, positive=True) for nm, v in
                                            (("one_q", one_q), ("bound_one", bound_one), ("many_q", many_q),
                                             ("bound_many", bound_many)))
    guess_many = _values("guess_many", guess_many, N_grid.size)
    m, n, epsilon = check_int("m", m, low=1), check_int("n", n, low=1), check_epsilon(epsilon)
    slope = np.polyfit(np.log(N_grid), np.log(one_q), 1)[0] if N_grid.size > 1 else float("nan")
    fig, ax = new_figure(height=4.4)
    ax.plot(N_grid, bound_one, "-", color=BOUND, label="bound, one query")
    ax.plot(N_grid, one_q, "o", color=HISTOGRAM, ms=5, label=f"one query q = 1\n(slope {slope:.2f})")
    ax.plot(N_grid, bound_many, "--", color=BOUND, label=f"bound, max over {m}")
    ax.plot(N_grid, many_q, "s", color=EXTRA[1], ms=4, label=f"max over {m} queries")
    reference_curve(ax, N_grid, guess_many, label=f"uniform guess,\nmax over {m}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N = |X| = 2^d (digits, first d pixels)")
    ax.set_ylabel("error / max error, 0.95-quantile")
    ax.set_title(f"n = {n}, ε = {epsilon:g}")
    log_minor_125(ax)
    ax.set_xscale("log", base=2)            # log_minor_125 is for base-10 axes: restore the base-2 ticks of N = 2^d
    legend_outside(ax)
    return fig
