"""Chapter 16's widget and figures: smooth queries answered from one private Chebyshev summary
(SMOOTH-Alg1/Alg2, SMOOTH-Thm3.1, SMOOTH-Table1).

* :func:`explore_smooth` — the widget callback ``(d, K, n, ε, query) -> Figure``.
* ``figure_*`` — the chapter's figures, drawn from the experiments of :mod:`dpbook.comparisons.smooth`.
"""
from __future__ import annotations

import functools

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..plots import (BASELINE, BOUND, CONTROL, EMPIRICAL, EXTRA, UNIFORM, legend_outside)
from ._layout import fixed_figure, log_minor_125
from ..smooth import (QUERIES, answer_query, approximation_error, chebyshev_coefficients, make_query,
                      smooth_summary, synthetic_points, true_answer)
from ..theory.smooth import (summary_degree, summary_noise_scale, weighted_laplace_quantile)
from ..contract import example
from ..validation import check_beta, check_epsilon, check_int, check_real, check_real_array
from ._inputs import series

__all__ = ["figure_approximation", "figure_accuracy", "figure_regimes", "figure_per_query", "figure_sensitivity",
           "explore_smooth"]


@functools.lru_cache(typed=True, maxsize=64)
def _query_curves(query, d, K, tmax):
    """What the n and ε sliders do not change: the query, its approximation errors ``γ(u)`` and its Chebyshev
    coefficients (without the constant one) for ``u = 1..tmax``.  Cached per ``(query, d, K, tmax)``; read-only."""
    q = make_query(query, d, K)
    ts = range(1, tmax + 1)
    gammas = approximation_error(q, d, ts)                          # f evaluated on the grid once
    coefficients = tuple(chebyshev_coefficients(q, d, u).ravel()[1:] for u in ts)
    for a in (gammas, *coefficients):
        a.setflags(write=False)
    return q, gammas, coefficients


def explore_smooth(d=1, K=2, n=10_000, epsilon=1.0, query="Gaussian bump", *, trials=200, beta=0.05, seed=2026):
    """Widget callback (SMOOTH-Thm3.1).  Left: the error of ``trials`` private answers to ``query`` on ``n`` seeded
    synthetic rows of ``[-1,1]^d``, against the query-specific bound ``γ_f + λ_β`` and the sampling error
    ``1/sqrt(n)``.  Right: the trade-off behind the degree bound ``J``: approximation error ``γ_f(J)`` falls, the
    noise quantile ``λ_β(J)`` grows; the theorem's ``J = floor(n^{1/(2d+K)})`` is marked."""
    d, K = check_int("d", d, low=1, high=3), check_int("K", K, low=1, high=12)
    n = check_int("n", n, low=10, high=2_000_000)
    epsilon, beta, trials = check_epsilon(epsilon), check_beta(beta), check_int("trials", trials, low=1)
    if not isinstance(query, str) or query not in QUERIES:
        raise ValueError(f"query ({query!r}) must be one of {QUERIES}")
    J = summary_degree(n, d, K)
    tmax = {1: 16, 2: 8, 3: 5}[d]
    ts = np.arange(1, max(tmax, J) + 1)
    q, gammas, coefficients = _query_curves(query, d, K, int(ts[-1]))
    rng = np.random.default_rng(seed)
    X = synthetic_points(n, d, rng=rng)
    s = smooth_summary(X, epsilon=epsilon, K=K, trials=trials, rng=rng)
    err = np.abs(answer_query(s, q) - true_answer(X, q))

    lams = np.array([0.0 if u == 1 else weighted_laplace_quantile(
        beta, summary_noise_scale(n, int(u), d, epsilon), coefficients[u - 1]) for u in ts])
    gamma, lam = gammas[J - 1], lams[J - 1]

    fig, (left, right) = fixed_figure(2, width=10.0, height=5.4, left=0.72, right=0.15, bottom=1.55, top=0.8, wspace=0.85)
    left.hist(err, bins=30, histtype="stepfilled", color=EMPIRICAL, alpha=0.75, label="measured |error|")
    left.axvline(gamma + lam, color=BOUND, label=f"bound γ+λ at β={beta:.3g}")
    right_edge = 1.3 * max(gamma + lam, float(err.max()))
    if 1 / np.sqrt(n) <= right_edge:
        left.axvline(1 / np.sqrt(n), color=EXTRA[3], ls=":", label="sampling error 1/√n")
    else:
        left.plot([], [], " ", label=f"sampling error 1/√n = {1 / np.sqrt(n):.2g} (off scale)")
    left.set_xlim(0, right_edge)
    left.set_xlabel("|private answer − true answer|")
    left.set_ylabel("trials")
    left.set_title(f"{q.name}\nd={d}, K={K}, n={n:,}, J={J}, ε={epsilon:.3g}")
    left.xaxis.set_major_locator(MaxNLocator(4))
    legend_outside(left, where="below")

    right.semilogy(ts, np.maximum(gammas, 1e-17), "o-", color=EXTRA[0], ms=4, label="approximation γ(J)")
    right.semilogy(ts[1:], lams[1:], "s-", color=EXTRA[1], ms=4, label="noise quantile λ(J)")
    right.axvline(J, color=BOUND, ls="--", label=f"theorem's J = {J}")
    right.set_xlabel("degree bound J (moments per axis)")
    right.set_ylabel("error term")
    right.set_title("why J = n^(1/(2d+K))")
    log_minor_125(right)
    legend_outside(right, where="below")
    return fig


# --- the chapter's figures and its non-smooth control ----------------------------------------------------------

def _values(name, value, size=None, *, positive=False) -> np.ndarray:
    """``value`` as a 1-D float array of ``size`` (or one or more) finite, non-negative (``positive``: > 0) values;
    ValueError / TypeError naming ``name``."""
    arr = check_real_array(name, value)
    if arr.ndim != 1 or arr.size < 1 or (size is not None and arr.size != size):
        raise ValueError(f"{name} must be a 1-D array of {size if size is not None else 'one or more'} values, "
                         f"got shape {arr.shape}")
    if np.any(arr < 0) or (positive and np.any(arr == 0)):
        raise ValueError(f"{name} ({arr.tolist()}) must be {'positive' if positive else 'non-negative'}")
    return arr


def _check_dict(name, value):
    if not isinstance(value, dict) or not value:
        raise TypeError(f"{name} ({type(value).__name__}) must be a non-empty dict")
    return value


def figure_approximation(degree_bounds, gammas, orders, *, fit_from=16):
    """SMOOTH-Thm3.2's picture: ``sup|f − p_J|`` against the degree bound ``J`` (log–log) for each query in
    ``gammas`` (name → errors over ``degree_bounds``), with the rate ``J^(-K)`` drawn from ``fit_from`` on for each name
    in ``orders`` (name → K).  Returns the figure."""
    degree_bounds = _values("degree_bounds", degree_bounds)
    if degree_bounds.size < 2 or np.any(degree_bounds < 1):
        raise ValueError(f"degree_bounds ({degree_bounds!r}) must be a 1-D array of at least two degree bounds >= 1")
    _check_dict("gammas", gammas), _check_dict("orders", orders)
    gammas = {name: _values(f"gammas[{name!r}]", g, degree_bounds.size) for name, g in gammas.items()}
    for name, K in orders.items():
        if name not in gammas:
            raise ValueError(f"orders names {name!r}, which is not in gammas")
        check_int(f"orders[{name!r}]", K, low=1, high=64)
    fit_from = check_real("fit_from", fit_from, low=1.0)
    if not np.any(degree_bounds >= fit_from):
        raise ValueError(f"fit_from ({fit_from:g}) must be at most the largest degree bound ({degree_bounds.max():g})")
    fig, ax = fixed_figure(width=8.6, height=4.4, left=1.0, right=3.3, bottom=0.75, top=0.4)   # legend at the right
    for (name, g), colour in zip(gammas.items(), [EMPIRICAL, *EXTRA]):
        ax.loglog(degree_bounds, np.maximum(g, 1e-16), "o-", color=colour, ms=4, label=name)
    big = degree_bounds >= fit_from
    for i, (name, K) in enumerate(orders.items()):
        g = np.asarray(gammas[name])[big]
        ax.loglog(degree_bounds[big], g[0] * (degree_bounds[big] / degree_bounds[big][0]) ** (-K), "--", color=BOUND, lw=1.2,
                  label="rate J^(−K) (SMOOTH-Thm3.2)" if i == 0 else None)
    ax.set(xlabel="degree bound J", ylabel="max error sup |f − p_J|", ylim=(1e-16, 3),
           title="smoothness sets the rate")
    log_minor_125(ax)                                        # before the x ticks: it must not relabel them
    ax.set_xticks(degree_bounds, [f"{J:g}" for J in degree_bounds])
    ax.minorticks_off()
    legend_outside(ax)
    return fig


def figure_accuracy(acc, baseline, guess, *, n, epsilon, beta=0.05):
    """SMOOTH-Thm3.1 part 2 on real data: per query, the ``1-β``-quantile of the summary's error, its bound
    ``γ_f + λ_β``, per-query Laplace (``baseline``, one value per query) and the uniform guess (``guess``); one
    panel per degree bound ``J``.  ``acc`` maps ``(J, query name)`` to a dict with ``err`` (array) and ``bound``."""
    _check_dict("acc", acc)
    n, epsilon, beta = check_int("n", n, low=1), check_epsilon(epsilon), check_beta(beta)
    Js = sorted({J for J, _ in acc})
    names = list(dict.fromkeys(nm for _, nm in acc))
    if len(Js) > 2:
        raise ValueError(f"acc ({len(Js)} degree bounds) must hold at most 2 degree bounds")
    baseline, guess = _values("baseline", baseline, len(names)), _values("guess", guess, len(names))
    for key in ((J, nm) for J in Js for nm in names):
        if key not in acc or not isinstance(acc[key], dict) or {"err", "bound"} - set(acc[key]):
            raise ValueError(f"acc must hold a dict with 'err' and 'bound' for every (degree bound, query) pair; {key} has none")
    fig, axes = fixed_figure(len(Js), width=9.6 if len(Js) == 2 else 7.2, height=5.0, left=1.05, right=0.1,
                             bottom=1.6, top=0.75, wspace=0.55)      # fixed margins: no layout pass on each draw
    axes = np.atleast_1d(axes)
    xs = np.arange(len(names))
    for ax, J in zip(axes, Js):
        ax.bar(xs - 0.27, [np.quantile(acc[(J, nm)]["err"], 1 - beta) for nm in names], 0.27, color=EMPIRICAL,
               label="summary: measured")
        ax.bar(xs, [acc[(J, nm)]["bound"] for nm in names], 0.27, color=BOUND, label="bound γ_f + λ_β")
        ax.bar(xs + 0.27, baseline, 0.27, color=BASELINE, label="per-query Laplace, exact Δ")
        ax.hlines(guess, xs - 0.42, xs + 0.42, color=UNIFORM, ls="--", lw=1.6, label="uniform guess")
        ax.axhline(1 / np.sqrt(n), color=EXTRA[3], ls=":", label="sampling error 1/√n")
        ax.set_xticks(xs, [nm.replace(" ", "\n", 1) for nm in names])
        ax.set_title(f"J = {J}")
    axes[0].set_ylabel(f"{1 - beta:.2f}-quantile of |error|\n(each query)")
    fig.suptitle(f"n = {n}, ε = {epsilon:g}")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", bbox_to_anchor=(0.5, 0.0), ncols=3)
    return fig


def figure_regimes(sweeps, *, epsilon=1.0):
    """SMOOTH-Table1 measured: for each regime (name → :class:`RegimeSweep`), the worst-case error against ``n``
    with the theorem's slope (dashed, the regime's colour), per-query Laplace on the one query (green) and the
    uniform guess (grey) — each with the regime's marker and its name at the right end — and ``1/√n``."""
    from matplotlib.lines import Line2D

    from ..comparisons.smooth import RegimeSweep

    _check_dict("sweeps", sweeps)
    epsilon = check_epsilon(epsilon)
    for name, r in sweeps.items():
        if not isinstance(r, RegimeSweep) or r.baseline is None or r.uniform is None:
            raise TypeError(f"sweeps[{name!r}] ({type(r).__name__}) must be a RegimeSweep with baseline and uniform")
    fig, ax = fixed_figure(width=9.4, height=4.6, left=1.15, right=3.35, bottom=0.75, top=0.4)   # legend at the right
    for (name, r), colour, marker in zip(sweeps.items(), [EMPIRICAL, EXTRA[1], EXTRA[4]], "os^"):
        slope = r.theory()["accuracy"]
        short = name.split(" ")[0].replace("2d=", "")          # "K=2d=2" -> "K=2", "K=6 (d/K=1/6)" -> "K=6"
        ax.loglog(r.n, r.worst, marker + "-", color=colour, ms=6, lw=2, zorder=3,
                  label=f"{name}: measured;\n  dashed: theory slope {slope:.2f}")
        ax.loglog(r.n, r.worst[0] * (r.n / r.n[0]) ** slope, "--", color=colour, lw=1.1)
        ax.loglog(r.n, r.baseline, marker + "-", color=BASELINE, lw=1, ms=4, mfc="none")
        ax.loglog(r.n, r.uniform, marker + "--", color=UNIFORM, lw=1, ms=4, mfc="none")
        for y, role in ((r.baseline[-1], BASELINE), (r.uniform[-1], UNIFORM)):
            ax.annotate(short, (r.n[-1], y), xytext=(5, 0), textcoords="offset points", va="center", color=role)
    n_line = np.geomspace(min(r.n[0] for r in sweeps.values()), max(r.n[-1] for r in sweeps.values()), 50)
    ax.loglog(n_line, 1 / np.sqrt(n_line), ":", color=EXTRA[3], lw=2, label="sampling error 1/√n")
    ax.set_xlim(right=n_line[-1] * 4)                       # room for the regime names at the right ends
    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color=BASELINE, lw=1), Line2D([], [], ls="--", color=UNIFORM, lw=1)]
    labels += ["per-query Laplace\n(regime named at its end)",
               "uniform guess\n(regime named at its end)"]
    ax.set(xlabel="n (rows), J = n^(1/(2d+K))", ylabel="0.95-quantile of |error|\n(one query)",
           title=f"error vs n, d = 1, ε = {epsilon:g}")
    ax.legend(handles, labels, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)   # legend_outside's place, with the proxy entries
    log_minor_125(ax)
    return fig


def figure_per_query(cmp, control, *, epsilon=1.0, n=50_000):
    """Two panels.  Left: the result of :func:`dpbook.comparisons.smooth.compare_per_query` (mean max error over
    ``m`` queries, summary against per-query Laplace at the exact and at the class sensitivity, and the uniform
    guess).  Right: that of :func:`dpbook.comparisons.smooth.box_control` (the box against a kink at the same edge,
    per-query Laplace on the box, the uniform guess, ``1/√n``)."""
    from ..comparisons.smooth import PerQueryComparison      # here: the widget's import stays light

    if not isinstance(cmp, PerQueryComparison) or cmp.baseline_bound is None:
        raise TypeError(f"cmp ({type(cmp).__name__}) must be a PerQueryComparison with the class-bound baseline")
    _check_dict("control", control)
    epsilon, n = check_epsilon(epsilon), check_int("n", n, low=1)
    if {"n", "box", "kink", "baseline", "guess"} - set(control):
        raise ValueError(f"control (keys {sorted(control)}) must hold n, box, kink, baseline and guess")
    control = series("n", **{k: control[k] for k in ("n", "box", "kink", "baseline", "guess")})
    if np.any(control["n"] < 1):
        raise ValueError(f"control['n'] ({control['n'].tolist()}) must hold row counts >= 1")
    fig, (left, right) = fixed_figure(2, width=9.6, height=5.4, left=0.95, right=0.1, bottom=2.05, top=0.35,
                                      wspace=1.0)      # fixed margins: no layout pass on each draw
    left.loglog(cmp.ms, cmp.summary, "o-", color=EMPIRICAL, label=f"one summary (J={cmp.degree_bound})")
    left.loglog(cmp.ms, cmp.baseline, "s-", color=BASELINE, label="per-query Laplace, exact Δ")
    left.loglog(cmp.ms, cmp.baseline_bound, "s:", color=BASELINE, alpha=0.6, label="per-query, Δ = 2Bm/n")
    left.loglog(cmp.ms, cmp.uniform, "--", color=UNIFORM, label="uniform guess")
    left.set(xlabel="number of queries m", ylabel="mean max |error| over m",
             title=f"m cosines, n = {n:,}, ε = {epsilon:g}")
    ns = control["n"]
    right.loglog(ns, control["box"], "s-", color=CONTROL, label="summary: box (control)")
    right.loglog(ns, control["kink"], "o-", color=EMPIRICAL, label="summary: kink, K = 1")
    right.loglog(ns, control["baseline"], "-", color=BASELINE, label="per-query Laplace")
    right.loglog(ns, control["guess"], "--", color=UNIFORM, label="uniform guess")
    right.loglog(ns, 1 / np.sqrt(ns), ":", color=EXTRA[3], label="sampling error 1/√n")
    right.set(xlabel="n (10% of rows at the edge)", ylabel="0.95-quantile of |error|", title="a box is not smooth")
    for ax in (left, right):
        legend_outside(ax, where="below")
    log_minor_125(left, right)
    return fig


def figure_sensitivity(degree_bounds, exact):
    """SMOOTH-E1's picture (``d = 1``): the exact L1 sensitivity of the ``J`` moments (``exact``, in units of
    ``1/n``) divided by ``J``, for each degree bound ``J`` of ``degree_bounds``, against the paper's assumption
    ``J/n`` and the corrected scale ``2(J−1)/n``."""
    degree_bounds = _values("degree_bounds", degree_bounds)
    exact = _values("exact", exact, degree_bounds.size, positive=True)
    if degree_bounds.size < 2 or np.any(degree_bounds < 2):
        raise ValueError(f"degree_bounds ({degree_bounds.tolist()}) must hold at least two degree bounds >= 2")
    fig, ax = fixed_figure(width=8.6, height=4.2, left=0.85, right=2.55, bottom=0.75, top=0.4)   # legend at the right
    ax.plot(degree_bounds, exact / degree_bounds, "o-", color=EMPIRICAL, label="exact sensitivity\n(computed)")
    ax.plot(degree_bounds, np.ones_like(degree_bounds), "-", color=CONTROL, label="paper's scale J/n")
    ax.plot(degree_bounds, 2 * (degree_bounds - 1) / degree_bounds, "-", color=BOUND, label="corrected scale\n2(J−1)/n")
    ax.set_xscale("log")
    ticks = [J for J in (2, 3, 5, 10, 20, 40, 60) if degree_bounds[0] <= J <= degree_bounds[-1]]
    ax.set_xticks(ticks, [str(J) for J in ticks])
    ax.minorticks_off()
    ax.set(xlabel="degree bound J (d = 1)", ylabel="L1 sensitivity × n / J", title="the moments move more than J/n")
    legend_outside(ax)
    return fig


def _example_sweep():
    from ..comparisons.smooth import RegimeSweep
    n = np.array([10, 100, 1000])
    one = np.array([0.3, 0.1, 0.03])
    return RegimeSweep(1, 2, n, np.array([2, 3, 5]), one, one, one, one, one, one, uniform=one * 3, baseline=one / 10)


example(figure_approximation, lambda: dict(degree_bounds=np.array([4.0, 8.0, 16.0, 32.0]),
                                           gammas={"kink, K=1": np.array([0.2, 0.1, 0.05, 0.025])},
                                           orders={"kink, K=1": 1}, fit_from=8.0))
example(figure_accuracy, lambda: dict(acc={(4, "a"): dict(err=np.linspace(0, 0.1, 20), bound=0.2)},
                                      baseline=np.array([0.05]), guess=np.array([0.3]), n=100, epsilon=1.0,
                                      beta=0.05))
example(figure_regimes, lambda: dict(sweeps={"K=2": _example_sweep()}, epsilon=1.0))
example(figure_per_query, lambda: dict(cmp=__import__("dpbook.comparisons.smooth", fromlist=["x"]).PerQueryComparison(
    np.array([1, 3]), np.array([0.1, 0.1]), np.array([0.01, 0.3]), np.array([0.05, 1.0]), np.array([0.5, 0.6]), 4),
    control=dict(n=np.array([1000, 8000]), box=np.array([0.09, 0.07]), kink=np.array([0.02, 0.007]),
                 baseline=np.array([6e-3, 7e-4]), guess=np.array([0.066, 0.062])), epsilon=1.0, n=50_000))
example(figure_sensitivity, lambda: dict(degree_bounds=np.array([2.0, 3.0, 10.0]), exact=np.array([2.0, 3.125, 11.58])))
