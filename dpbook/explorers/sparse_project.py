"""Chapter 15's figures and widget: SparseProject over 32-bit records against the Laplace mechanism on the counts."""
from __future__ import annotations

import functools

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator

from ..hashing import PolynomialSignHash
from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, TRUTH, UNIFORM, legend_outside, new_figure
from ._layout import fixed_figure, log_minor_125
from ..data import record_catalogue as catalogue, sparse_database as sparse_data  # the chapter's data (dpbook.data)
from ..sparse_project import (error_decomposition, laplace_sparse_queries, project_database, random_sparse_queries,
                              sparse_project)
from ..theory.sparse_project import jl_error_bound, noise_error_bound, thm2_alpha
from ..validation import check_beta, check_delta, check_epsilon, check_int

__all__ = ["catalogue", "sparse_data", "sparse_workload", "explore_sparse_project", "plot_column_products",
           "per_query_comparison", "plot_per_query_comparison", "figure_accuracy", "figure_slopes",
           "figure_per_query_comparison"]

BITS = 32
_plain = FuncFormatter(lambda v, _pos: f"{v:g}")    # 0.02, 0.1, 1 rather than 2×10⁻²
# log-axis labels at most 4 characters wide: 0.02 .. 50 as decimals, a decade below 0.01 as 10⁻³, no label for 2×10⁻³
_short = FuncFormatter(lambda v, _pos: f"{v:g}" if 0.01 <= v < 100 else
                       (f"10{str(int(round(np.log10(v)))).translate(str.maketrans('0123456789-', '⁰¹²³⁴⁵⁶⁷⁸⁹⁻'))}"
                        if v > 0 and abs(np.log10(v) - round(np.log10(v))) < 1e-9 else ""))


@functools.lru_cache(typed=True, maxsize=None)
def sparse_workload(m: int, s: int, bits: int = BITS, seed: int = 11):
    """``m`` random ``s``-sparse queries, half of each support from the catalogue, weights in ``(0, 1]``."""
    return random_sparse_queries(m, s, 1 << bits, rng=seed, pool=catalogue(bits))


@functools.lru_cache(typed=True, maxsize=8)
def _hash_parts(n: int, m: int, s: int, ell: int, r: int, seed: int):
    """What the ε and δ sliders do not change: the hash ``f`` that SparseProject draws first from ``rng = seed``
    (it does not depend on ε, δ or β), the projected queries ``Q̂ = A Q``, the projected database ``u = A D`` and
    the JL part of the error (:func:`dpbook.sparse_project.error_decomposition` on one release).  Cached so that
    moving ε or δ redraws only the noise: the expensive projections run once per ``(n, m, s, ℓ, r, seed)``."""
    D, W = sparse_data(n), sparse_workload(m, s)
    reference = sparse_project(D, epsilon=1.0, delta=1e-5, beta=0.1, s=s, m=m, n=n, ell=ell, r=r, rng=seed)
    jl, _, Q_hat = error_decomposition(reference, D, W)
    return reference.f, Q_hat, project_database(D, reference.f), jl


def explore_sparse_project(epsilon=1.0, delta=1e-5, s=10, m=1000, ell=512, n=2000, *, r=8, beta=0.1, trials=30,
                           seed=2026):
    """SparseProject (one hash, ``trials`` noise draws) against answering the ``m`` counts directly: the Gaussian
    mechanism at the same (ε, δ) (exact L2 sensitivity, analytic calibration) and the pure-ε Laplace mechanism.

    Left: the max error over the ``m`` queries of each trial (dots), the practical bound (JL part by Chebyshev +
    noise part, each at ``β/2``; red) and S1-Thm2's rate with constant 1 (dashed).  Right: the two parts of
    SparseProject's error per query — the JL part (fixed by the hash) and the noise part of one trial — against the
    true answers.  A pure, seeded function of its parameters (chapter 15's widget).
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    s, m, ell, n = check_int("s", s, low=1), check_int("m", m, low=1), check_int("ell", ell, low=1), check_int("n", n, low=1)
    beta, r, trials = check_beta(beta), check_int("r", r, low=1), check_int("trials", trials, low=1)
    D, W = sparse_data(n), sparse_workload(m, s)
    true = W.answers(D)
    release = sparse_project(D, epsilon=epsilon, delta=delta, beta=beta, s=s, m=m, n=n, ell=ell, r=r, trials=trials,
                             rng=seed)
    f, Q_hat, u, jl = _hash_parts(n, m, s, ell, r, seed)
    if release.f != f:                                      # the cache is only valid for the same hash
        raise RuntimeError("SparseProject drew a different hash for the same seed: the widget's cache is stale")
    noise = (release.y - u) @ Q_hat.T / n                  # error_decomposition's noise part, reusing Q̂ and u
    err_sp = np.abs(jl + noise).max(axis=1)
    laplace = laplace_sparse_queries(D, W, epsilon=epsilon, n=n, trials=trials, rng=seed + 1)
    err_lap = np.abs(laplace.answers - true).max(axis=1)
    from ..gaussian import gaussian_mechanism
    from ..sparse_project import restrict_to_queries
    gauss = gaussian_mechanism(*restrict_to_queries(D, W), epsilon=epsilon, delta=delta, n=n, calibration="analytic",
                               trials=trials, rng=seed + 2)
    err_gauss = np.abs(gauss.answers - true).max(axis=1)
    q_sq = float(np.bincount(np.repeat(np.arange(W.m), np.diff(W.indptr)), weights=W.weights ** 2).max())
    bound = float(jl_error_bound(q_sq, float(np.sum(D.counts.astype(float) ** 2)), ell, n, m, beta)
                  + noise_error_bound(np.linalg.norm(Q_hat, axis=1), np.abs(Q_hat).max(axis=1), epsilon, delta, n, m,
                                      beta).max())
    rate = thm2_alpha(n, s, m, beta, epsilon, delta)

    fig, (left, right) = fixed_figure(2, width=9.6, height=6.1, left=0.75, right=0.2, bottom=2.25, top=0.3, wspace=0.9)
    rng = np.random.default_rng(seed)
    for i, (name, err, colour) in enumerate([("SparseProject", err_sp, EMPIRICAL),
                                             ("Gaussian per query, same (ε, δ)", err_gauss, BASELINE),
                                             ("Laplace per query (δ = 0)", err_lap, EXTRA[1])]):
        left.plot(i + rng.uniform(-0.12, 0.12, trials), err, "o", color=colour, ms=4,
                  label=f"{name}: median {np.median(err):.2g}")
    left.axhline(bound, color=BOUND, label=f"practical bound (JL + noise) {bound:.2g}")
    left.axhline(rate, color=BOUND, ls="--", label=f"S1-Thm2 rate, constant 1: {rate:.2g}")
    left.axhline(float(true.max()), color=UNIFORM, ls="--", label=f"answer 0 (ignores the data) {true.max():.2g}")
    left.set_xticks([0, 1, 2], ["Sparse-\nProject", "Gaussian", "Laplace"])
    left.set_xlim(-0.5, 2.5)
    left.set_yscale("log")
    log_minor_125(left)
    left.yaxis.set_major_formatter(_short)            # label the 2 and 5 ticks too (the default labels decades only)
    left.yaxis.set_minor_formatter(_short)
    left.set_ylabel(f"max error over the m = {m} queries")
    left.set_title(f"ε={epsilon:.3g}, δ={delta:.3g}, s={s}, ℓ={ell}, n={n}")
    left.legend(loc="upper left", bbox_to_anchor=(-0.12, -0.16), borderaxespad=0.0)   # below: the lines span the panel
    right.plot(true, noise[0], ".", color=EXTRA[3], ms=3, label="noise part (one trial)")
    right.plot(true, jl, ".", color=EMPIRICAL, ms=3, label="JL part (this hash)")
    right.axhline(0, color=TRUTH, lw=0.8)
    right.set_xscale("symlog", linthresh=1e-3, linscale=0.5)   # most true answers lie below 0.01; some are 0
    right.set_xlim(0, max(float(true.max()), 1e-3) * 1.2)
    right.xaxis.set_major_locator(FixedLocator([0, 1e-3, 1e-2, 1e-1, 1.0]))
    right.xaxis.set_minor_locator(FixedLocator([c * 10.0 ** e for e in (-3, -2, -1) for c in (2, 5)]))
    right.xaxis.set_major_formatter(_plain)
    right.set_xlabel("true answer (symlog: linear below 0.001)")
    right.set_ylabel("signed error per query\n(JL part / noise part)")
    right.legend(loc="upper left", bbox_to_anchor=(-0.12, -0.16), borderaxespad=0.0)
    return fig


def plot_column_products(ell=1024, r_values=(4, 8, 28), support=160, seed=2026):
    """How often two columns of ``A`` coincide: ``sqrt(ℓ)·⟨A e_x, A e_y⟩`` over all pairs of ``support`` random
    32-bit records, for hashes of independence ``r`` (one panel line each) and for fully random signs.

    With ``r = 4`` the sum over the rows of ``f(i, x) f(i, y)`` is a character of an affine function of the row
    bits, so it is exactly ``0`` or ``±ℓ``: the columns are orthogonal or identical.  Returns the figure.
    """
    ell, support = check_int("ell", ell, low=2), check_int("support", support, low=2)
    rng = np.random.default_rng(seed)
    cols = np.unique(rng.integers(0, 1 << BITS, size=support, dtype=np.int64))
    off = ~np.eye(cols.size, dtype=bool)
    fig, ax = new_figure(1, width=8.0, height=5.0)
    colours = [EXTRA[1], EMPIRICAL, EXTRA[0]]
    for colour, r in zip(colours, r_values):
        A = PolynomialSignHash.sample(r, ell, 1 << BITS, rng).matrix(cols)
        z = np.sqrt(ell) * (A.T @ A)[off]
        values, counts = np.unique(np.round(z, 6), return_counts=True)
        ax.plot(values, counts / z.size, "o" if r < 8 else "o-", color=colour, ms=6 if r < 8 else 4, lw=1,
                label=f"r = {r}: max |z| = {np.abs(z).max():.3g}")
    signs = rng.choice([-1.0, 1.0], size=(ell, cols.size)) / np.sqrt(ell)
    z = np.sqrt(ell) * (signs.T @ signs)[off]
    values, counts = np.unique(np.round(z, 6), return_counts=True)
    ax.plot(values, counts / z.size, "-", color=EXTRA[3], lw=1.5, label=f"fully random signs: max |z| = {np.abs(z).max():.3g}")
    ax.set_yscale("log")
    ax.set_xlabel(r"$z=\sqrt{\ell}\,\langle Ae_x, Ae_y\rangle$ over pairs of records")
    ax.set_ylabel("fraction of pairs")
    ax.set_title(f"columns of A, ℓ = {ell}")
    legend_outside(ax, where="below", ncols=2)
    return fig


def per_query_comparison(D, W, m_grid, *, epsilon=1.0, delta=1e-5, beta=0.1, ell=1024, r=8, trials=100, seed=2026,
                         laplace=True):
    """SparseProject against answering the first ``m`` queries of ``W`` directly, for each ``m`` in ``m_grid``.

    One SparseProject release (one hash, ``trials`` noise draws) answers all of them; the baselines run per ``m``
    with ``trials`` draws each: the per-query **Gaussian** mechanism at the same (ε, δ) with the workload's exact
    L2 sensitivity and the analytic calibration (:func:`dpbook.gaussian.gaussian_mechanism` on
    :func:`dpbook.sparse_project.restrict_to_queries`), and, when ``laplace``, the pure-ε Laplace mechanism with
    the exact L1 sensitivity.  Returns a dict of arrays over ``m_grid``: the median over the draws of the max
    error over the ``m`` queries (``"sparse_project"``, ``"gaussian"``, ``"laplace"``), the error of answering 0
    (``"zero"``: the largest true answer) and the two sensitivities (``"l2"``, ``"l1"``)."""
    from ..gaussian import gaussian_mechanism
    from ..sparse_project import restrict_to_queries

    m_grid = np.asarray(m_grid)
    if m_grid.ndim != 1 or m_grid.size == 0:
        raise ValueError("m_grid must be a non-empty 1-D array of query counts")
    ms = [check_int("m_grid", int(v), low=1, high=W.m) for v in m_grid]
    true = W.answers(D)
    rel = sparse_project(D, epsilon=epsilon, delta=delta, beta=beta, s=W.sparsity, m=W.m, n=D.n, ell=ell, r=r,
                         trials=trials, rng=seed)
    answers = rel.evaluate(W.head(max(ms)))
    out = {key: [] for key in ("sparse_project", "gaussian", "laplace", "zero", "l2", "l1")}
    for kk in ms:
        Wk = W.head(kk)
        out["sparse_project"].append(np.median(np.abs(answers[:, :kk] - true[:kk]).max(axis=1)))
        x, Wr = restrict_to_queries(D, Wk)
        g = gaussian_mechanism(x, Wr, epsilon=epsilon, delta=delta, n=D.n, calibration="analytic", trials=trials,
                               rng=seed + kk)
        out["gaussian"].append(np.median(np.abs(g.answers - true[:kk]).max(axis=1)))
        if laplace:
            lap = laplace_sparse_queries(D, Wk, epsilon=epsilon, n=D.n, trials=trials, rng=seed + kk)
            out["laplace"].append(np.median(np.abs(lap.answers - true[:kk]).max(axis=1)))
        out["zero"].append(float(true[:kk].max()))
        out["l2"].append(Wk.l2_sensitivity())
        out["l1"].append(Wk.l1_sensitivity())
    result = {key: np.array(v, dtype=float) for key, v in out.items()}
    result["m"] = np.array(ms)
    return result


def plot_per_query_comparison(ax, result, *, title=""):
    """Draw :func:`per_query_comparison`'s result on ``ax`` (log-log): SparseProject (measured), the per-query
    Gaussian (baseline), the pure-ε Laplace when present (other), answering 0 (grey dashed).  Legend below."""
    from ..plots import legend_outside

    m = result["m"]
    ax.plot(m, result["sparse_project"], "o-", color=EMPIRICAL, label="SparseProject (ε, δ)")
    ax.plot(m, result["gaussian"], "s-", color=BASELINE, label="Gaussian per query, same (ε, δ)")
    if result["laplace"].size:
        ax.plot(m, result["laplace"], "^:", color=EXTRA[1], label="Laplace per query (δ = 0)")
    ax.plot(m, result["zero"], "--", color=UNIFORM, label="answer 0 (ignores the data)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of queries m")
    ax.set_ylabel("max error over m queries (median)")
    ax.set_title(title)
    legend_outside(ax, where="below")
    return ax


def _finite_1d(name, values) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must hold finite non-negative numbers (at least one)")
    return arr


def figure_accuracy(total_max, noise_max, jl_max, *, practical_bound, rate, gaussian_median, zero_answer, noise_bound,
                    m):
    """Chapter 15, S1-Thm2 at a practical ℓ.  Left: a histogram of the max error over the ``m`` queries (one value per
    run) against the practical bound, S1-Thm2's rate with constant 1, the per-query Gaussian's median max error and
    answering 0.  Right: the noise part's max per run (histogram) and the JL part's max per hash (vertical lines)
    against the noise part's bound (``β/2``).  Log x axes, common range."""
    total, noise, jl = _finite_1d("total_max", total_max), _finite_1d("noise_max", noise_max), _finite_1d("jl_max", jl_max)
    m = check_int("m", m, low=1)
    bins = np.geomspace(1e-3, 1, 40)
    fig, (ax1, ax2) = new_figure(2, width=9.6, height=5.4)
    ax1.hist(total, bins=bins, color=EMPIRICAL, alpha=0.8, label=f"SparseProject ({total.size} runs)")
    ax1.axvline(practical_bound, color=BOUND, label=f"practical bound {practical_bound:.2f}")
    ax1.axvline(rate, color=BOUND, ls="--", label=f"S1-Thm2 rate (const. 1) {rate:.2f}")
    ax1.axvline(gaussian_median, color=BASELINE, label="Gaussian per query (median)")
    ax1.axvline(zero_answer, color=UNIFORM, ls="--", label="answer 0 (ignores the data)")
    ax1.set_xlabel(f"max error over m = {m} queries")
    ax1.set_ylabel("runs")
    ax2.hist(noise, bins=bins, color=EXTRA[1], alpha=0.8, label="noise part (max per run)")
    for v in jl:
        ax2.axvline(v, color=EMPIRICAL, lw=1.5)
    ax2.plot([], [], color=EMPIRICAL, label="JL part, one line per hash")
    ax2.axvline(noise_bound, color=BOUND, label="noise bound (β/2)")
    ax2.set_xlabel("max error part over the queries")
    ax2.set_ylabel("runs")
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlim(1e-4, 3)
        legend_outside(ax, where="below")
    return fig


def figure_slopes(sweeps):
    """Chapter 15, S1-Thm2's shape: ``sweeps`` maps a parameter name to ``(grid, measured RMS, predicted slope,
    measured slope)``.  Left: the noise-part sweeps (every name without "JL"), each relative to its middle point;
    right: the JL part against ℓ.  Measured (markers; hollow where two sweeps share the same points) and predicted
    (lines; one line per panel and exponent, naming every sweep it predicts) on log-log axes."""
    if not isinstance(sweeps, dict) or not sweeps:
        raise TypeError("sweeps must be a non-empty dict {name: (grid, measured, predicted, slope)}")
    fig, axes = new_figure(2, width=9.6, height=5.6)
    theory = {}                                            # (panel, exponent) -> (x, y, names): drawn once each
    styles = [("o", 11, "none"), ("s", 6, None), ("^", 7, None), ("v", 7, None)]
    for (name, (grid, measured, predicted, slope)), (marker, ms, mfc) in zip(sweeps.items(), styles):
        grid, y = _finite_1d(f"{name} grid", grid), _finite_1d(f"{name} measured", measured)
        jl = "JL" in name
        panel, x = (1, grid) if jl else (0, grid / grid[2])
        y = y if jl else y / y[2]
        short = name.split(" ")[0]
        axes[panel].plot(x, y, marker, color=EMPIRICAL, ms=ms, mfc=mfc, mew=1.5, zorder=3,
                         label=f"{short}: slope {slope:+.2f}")
        key = (panel, round(float(predicted), 6))
        theory.setdefault(key, (x, y[2] * (x / x[2]) ** predicted, []))[2].append(short)
    for (panel, predicted), (x, y, names) in theory.items():
        axes[panel].plot(x, y, "-" if predicted < 0 else ":", color=BOUND, zorder=2,
                         label=f"{' and '.join(names)}: theory {predicted:+.1f}")
    ticks = [0.25, 0.5, 1, 2, 4]
    axes[0].set_xlabel("ε, n or s, relative to the middle")
    axes[0].set_ylabel("RMS noise part (relative)")
    axes[0].set_title("noise part")
    axes[1].set_xlabel("ℓ")
    axes[1].set_ylabel("RMS JL part")
    axes[1].set_title("JL part")
    for ax, xt in ((axes[0], ticks), (axes[1], [g for name, (g, *_) in sweeps.items() if "JL" in name][0])):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.minorticks_off()
        ax.set_xticks(list(xt), [f"{v:g}" for v in xt])
        legend_outside(ax, where="below", ncols=2)
    axes[0].set_yticks(ticks, [f"{t:g}" for t in ticks])   # after set_yscale, which resets the ticks
    axes[1].yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axes[1].yaxis.set_major_formatter(_plain)
    return fig


def figure_per_query_comparison(left, right, *, titles=("", "")):
    """Two :func:`per_query_comparison` results side by side (:func:`plot_per_query_comparison` on each)."""
    if len(titles) != 2:
        raise ValueError(f"titles must hold 2 strings, got {len(titles)}")
    fig, axes = new_figure(2, width=9.6, height=6.0)
    plot_per_query_comparison(axes[0], left, title=titles[0])
    plot_per_query_comparison(axes[1], right, title=titles[1])
    return fig
