"""Chapter 15's figures and widget: SparseProject over 32-bit records against the Laplace mechanism on the counts."""
from __future__ import annotations

import functools

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator

from ..hashing import PolynomialSignHash
from ..noise import as_generator
from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, TRUTH, UNIFORM, legend_outside, new_figure
from ._layout import fixed_figure, log_minor_125
from ..data import sparse_database                          # the chapter's data
from ..sparse_project import sparse_workload                   # and its workload
from ..sparse_project import error_decomposition, laplace_sparse_queries, project_database, sparse_project
from ..theory.sparse_project import jl_error_bound, noise_error_bound, thm2_alpha
from ..validation import check_beta, check_delta, check_epsilon, check_int, check_real, check_real_array

__all__ = ["explore_sparse_project", "figure_column_products", "figure_accuracy", "figure_slopes",
           "figure_per_query_comparison"]

BITS = 32
_plain = FuncFormatter(lambda v, _pos: f"{v:g}")    # 0.02, 0.1, 1 rather than 2×10⁻²
# log-axis labels at most 4 characters wide: 0.02 .. 50 as decimals, a decade below 0.01 as 10⁻³, no label for 2×10⁻³
_short = FuncFormatter(lambda v, _pos: f"{v:g}" if 0.01 <= v < 100 else
                       (f"10{str(int(round(np.log10(v)))).translate(str.maketrans('0123456789-', '⁰¹²³⁴⁵⁶⁷⁸⁹⁻'))}"
                        if v > 0 and abs(np.log10(v) - round(np.log10(v))) < 1e-9 else ""))


@functools.lru_cache(typed=True, maxsize=8)
def _hash_parts(n: int, m: int, s: int, ell: int, r: int, seed: int):
    """What the ε and δ sliders do not change: the hash ``f`` that SparseProject draws first from ``rng = seed``
    (it does not depend on ε, δ or β), the projected queries ``Q̂ = A Q``, the projected database ``u = A D`` and
    the JL part of the error (:func:`dpbook.sparse_project.error_decomposition` on one release).  Cached so that
    moving ε or δ redraws only the noise: the expensive projections run once per ``(n, m, s, ℓ, r, seed)``."""
    D, W = sparse_database(n), sparse_workload(m, s)
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
    D, W = sparse_database(n), sparse_workload(m, s)
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


def figure_column_products(ell=1024, r_values=(4, 8, 28), support=160, rng=2026):
    """Chapter 15, section 2: how often two columns of ``A`` coincide: ``sqrt(ℓ)·⟨A e_x, A e_y⟩`` over all pairs
    of ``support`` random 32-bit records, for hashes of independence ``r`` (one line each, at most 3) and for
    fully random signs; the records, hashes and signs are drawn from ``rng``.

    With ``r = 4`` the sum over the rows of ``f(i, x) f(i, y)`` is a character of an affine function of the row
    bits, so it is exactly ``0`` or ``±ℓ``: the columns are orthogonal or identical.  Returns the figure.
    """
    ell, support = check_int("ell", ell, low=2, high=1 << 14), check_int("support", support, low=2, high=2000)
    if isinstance(r_values, (str, bytes)) or not hasattr(r_values, "__len__") or not 1 <= len(r_values) <= 3:
        raise ValueError(f"r_values must hold 1 to 3 hash independences, got {r_values!r}")
    r_values = [check_int("r_values", r, low=1, high=64) for r in r_values]
    rng = as_generator(rng)
    cols = np.unique(rng.integers(0, 1 << BITS, size=support, dtype=np.int64))
    off = ~np.eye(cols.size, dtype=bool)
    fig, ax = new_figure(1, width=8.0, height=5.0)
    colours = [EXTRA[1], EMPIRICAL, EXTRA[0]]
    for colour, r in zip(colours, r_values):
        A = PolynomialSignHash.sample(r, ell, 1 << BITS, rng).matrix(cols)
        z = np.sqrt(ell) * np.einsum("li,lj->ij", A, A)[off]     # einsum: a BLAS product would spin its threads
        values, counts = np.unique(np.round(z, 6), return_counts=True)
        ax.plot(values, counts / z.size, "o" if r < 8 else "o-", color=colour, ms=6 if r < 8 else 4, lw=1,
                label=f"r = {r}: max |z| = {np.abs(z).max():.3g}")
    signs = rng.choice([-1.0, 1.0], size=(ell, cols.size)) / np.sqrt(ell)
    z = np.sqrt(ell) * np.einsum("li,lj->ij", signs, signs)[off]
    values, counts = np.unique(np.round(z, 6), return_counts=True)
    ax.plot(values, counts / z.size, "-", color=EXTRA[3], lw=1.5, label=f"fully random signs: max |z| = {np.abs(z).max():.3g}")
    ax.set_yscale("log")
    log_minor_125(ax)
    ax.set_xlabel(r"$z=\sqrt{\ell}\,\langle Ae_x, Ae_y\rangle$ over pairs of records")
    ax.set_ylabel("fraction of pairs")
    ax.set_title(f"columns of A, ℓ = {ell}")
    legend_outside(ax, where="below", ncols=2)
    return fig


def _plot_per_query_comparison(ax, result, *, title=""):
    """Draw a :func:`dpbook.comparisons.sparse_project.per_query_comparison` result on ``ax`` (log-log):
    SparseProject (measured), the per-query Gaussian (baseline), the pure-ε Laplace when present (other),
    answering 0 (grey dashed).  Legend below."""
    m = result["m"]
    ax.plot(m, result["sparse_project"], "o-", color=EMPIRICAL, label="SparseProject (ε, δ)")
    ax.plot(m, result["gaussian"], "s-", color=BASELINE, label="Gaussian per query, same (ε, δ)")
    if result["laplace"].size:
        ax.plot(m, result["laplace"], "^:", color=EXTRA[1], label="Laplace per query (δ = 0)")
    ax.plot(m, result["zero"], "--", color=UNIFORM, label="answer 0 (ignores the data)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_minor_125(ax)
    ax.set_xlabel("number of queries m")
    ax.set_ylabel("max error over m queries (median)")
    ax.set_title(title)
    legend_outside(ax, where="below")
    return ax


def _finite_1d(name, values) -> np.ndarray:
    arr = check_real_array(name, values, low=0.0)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of finite non-negative numbers, got shape {arr.shape}")
    return arr


def figure_accuracy(total_max, noise_max, jl_max, *, practical_bound, rate, gaussian_median, zero_answer, noise_bound,
                    m):
    """Chapter 15, S1-Thm2 at a practical ℓ.  Left: a histogram of the max error over the ``m`` queries (one value per
    run) against the practical bound, S1-Thm2's rate with constant 1, the per-query Gaussian's median max error and
    answering 0.  Right: the noise part's max per run (histogram) and the JL part's max per hash (vertical lines)
    against the noise part's bound (``β/2``).  Log x axes, common range."""
    total, noise, jl = _finite_1d("total_max", total_max), _finite_1d("noise_max", noise_max), _finite_1d("jl_max", jl_max)
    practical_bound, rate, gaussian_median, zero_answer, noise_bound = (
        check_real(name, v, low=0.0, low_open=True) for name, v in (
            ("practical_bound", practical_bound), ("rate", rate), ("gaussian_median", gaussian_median),
            ("zero_answer", zero_answer), ("noise_bound", noise_bound)))
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
    log_minor_125(ax1, ax2)                            # 4.5 decades: a tick per decade, no minor ticks to build
    return fig


def figure_slopes(sweeps):
    """Chapter 15, S1-Thm2's shape: ``sweeps`` maps a parameter name to ``(grid, measured RMS, predicted slope,
    measured slope)``.  Left: the noise-part sweeps (every name without "JL"), each relative to its middle point;
    right: the JL part against ℓ.  Measured (markers; hollow where two sweeps share the same points) and predicted
    (lines; one line per panel and exponent, naming every sweep it predicts) on log-log axes."""
    if not isinstance(sweeps, dict) or not sweeps:
        raise TypeError("sweeps must be a non-empty dict {name: (grid, measured, predicted, slope)}")
    if len(sweeps) > 4 or not any("JL" in str(name) for name in sweeps):
        raise ValueError("sweeps must hold at most 4 sweeps, one of them named '... JL ...' (the right panel)")
    checked = {}
    for name, entry in sweeps.items():
        if not isinstance(name, str) or not isinstance(entry, (tuple, list)) or len(entry) != 4:
            raise TypeError(f"sweeps[{name!r}] must be a tuple (grid, measured, predicted, slope)")
        grid, measured = _finite_1d(f"sweeps[{name!r}] grid", entry[0]), _finite_1d(f"sweeps[{name!r}] measured", entry[1])
        if grid.size < 3 or measured.size != grid.size or np.any(grid <= 0) or np.any(measured <= 0):
            raise ValueError(f"sweeps[{name!r}]: grid and measured must hold the same number (>= 3) of positive values")
        checked[name] = (grid, measured, check_real(f"sweeps[{name!r}] predicted", entry[2]),
                         check_real(f"sweeps[{name!r}] slope", entry[3]))
    sweeps = checked
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


def _comparison_result(name, result) -> dict:
    """A :func:`dpbook.comparisons.sparse_project.per_query_comparison` result, checked: the series drawn, each a
    finite non-negative 1-D array over ``result["m"]`` (``"laplace"`` may be empty)."""
    if not isinstance(result, dict):
        raise TypeError(f"{name} must be a dict from per_query_comparison, got {type(result).__name__}")
    missing = [k for k in ("m", "sparse_project", "gaussian", "laplace", "zero") if k not in result]
    if missing:
        raise ValueError(f"{name} lacks the series {missing}")
    out = {k: _finite_1d(f"{name}[{k!r}]", result[k]) for k in ("m", "sparse_project", "gaussian", "zero")}
    if np.any(out["m"] < 1) or any(v.size != out["m"].size for v in out.values()):
        raise ValueError(f"{name}: every series must have one value per m (m >= 1)")
    lap = np.asarray(result["laplace"])
    out["laplace"] = lap if lap.size == 0 else _finite_1d(f"{name}['laplace']", lap)
    if out["laplace"].size not in (0, out["m"].size):
        raise ValueError(f"{name}['laplace'] must be empty or have one value per m")
    return out


def figure_per_query_comparison(left, right, *, titles=("", "")):
    """Chapter 15, section 6: two :func:`dpbook.comparisons.sparse_project.per_query_comparison` results side by
    side (log-log, legend below each)."""
    left, right = _comparison_result("left", left), _comparison_result("right", right)
    if isinstance(titles, str) or not hasattr(titles, "__len__") or len(titles) != 2 \
            or not all(isinstance(t, str) for t in titles):
        raise ValueError(f"titles must hold 2 strings, got {titles!r}")
    fig, axes = new_figure(2, width=9.6, height=6.0)
    _plot_per_query_comparison(axes[0], left, title=titles[0])
    _plot_per_query_comparison(axes[1], right, title=titles[1])
    return fig


def _declare_examples():
    """Valid calls of the figures for the bad-input sweep (:func:`dpbook.contract.example`)."""
    from ..contract import example
    grid = np.array([1.0, 2.0, 4.0])
    result = {"m": np.array([10.0, 30.0]), "sparse_project": np.array([0.03, 0.04]),
              "gaussian": np.array([0.003, 0.005]), "laplace": np.array([0.002, 0.006]),
              "zero": np.array([0.02, 0.02]), "l2": np.array([1.0, 1.2]), "l1": np.array([1.0, 2.0])}
    example(figure_accuracy, lambda: dict(total_max=np.array([0.03, 0.035]), noise_max=np.array([0.008, 0.009]),
                                          jl_max=np.array([0.03]), practical_bound=1.8, rate=0.08,
                                          gaussian_median=0.0035, zero_answer=0.14, noise_bound=0.018, m=500))
    example(figure_slopes, lambda: dict(sweeps={"ε": (grid, 1 / grid, -1.0, -1.0),
                                                "ℓ (JL part)": (grid * 128, grid ** -0.5, -0.5, -0.5)}))
    example(figure_per_query_comparison, lambda: dict(left=result, right=result, titles=("a", "b")))


_declare_examples()
