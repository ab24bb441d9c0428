"""Chapter 13's widget: the picture of the projection mechanism for m = 2 (and 3, as two views)."""
from __future__ import annotations

import numpy as np

from ..comparisons.projection import COMPARED
from ..data import bootstrap, load_cancer
from ..plots import (BASELINE, BOUND, EMPIRICAL, EXTRA, HISTOGRAM, TRUTH, UNIFORM, accuracy_vs_theory,
                     legend_outside, new_figure, reference_line)
from ..projection import projection_mechanism
from ..queries import PICTURE_WORKLOADS, picture_workload
from ..validation import check_int, check_real, check_real_array

__all__ = ["explore_projection", "figure_key_lemma", "figure_widths", "figure_rms_accuracy", "figure_compare_m"]


def _hull_2d(points):
    """Vertices of the convex hull of 2-D points, counter-clockwise (a segment's two ends, or a point, when
    degenerate): Andrew's monotone chain over the distinct points — a few dozen here, so plain Python beats loading
    ``scipy.spatial`` (~0.1 s) for the widget."""
    pts = np.unique(np.round(points, 12), axis=0)                 # sorted by x, then y
    if pts.shape[0] < 3:
        return pts

    def chain(seq):
        out = []
        for q in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])) <= 0:
                out.pop()                                            # no left turn: not a vertex
            out.append(q)
        return out

    rows = pts.tolist()
    lower, upper = chain(rows), chain(rows[::-1])
    return np.array(lower[:-1] + upper[:-1])


def explore_projection(epsilon=0.5, delta=1e-6, n=20, m=2, workload="nested cells", *, draws=20, seed=2026):
    """PROJ-Alg1 drawn: ``K_Q`` (grey), the true answers ``Q(x)`` of ``n`` rows resampled from the cancer data
    (black star), ``draws`` noisy Gaussian answers (green dots: the per-query Gaussian) and their projections onto ``K_Q`` (blue dots),
    each pair joined by a line.  For ``m = 3`` two coordinate views of the same release, queries 1–2 and 1–3 (with
    ``K_Q``'s shadow on each plane): together they show every coordinate of every point, so a third view (2–3) would
    add no answer, and the figure keeps two panels.  Resampling the noise (the seed) shows that projecting never
    moves an answer away from the truth (PROJ-Key lemma)."""
    draws = check_int("draws", draws, low=1, high=500)
    n = check_int("n", n, low=1, high=100_000)
    if not isinstance(workload, str) or workload not in PICTURE_WORKLOADS:
        raise (TypeError if not isinstance(workload, str) else ValueError)(
            f"workload ({workload!r}) must be one of {PICTURE_WORKLOADS}")
    W = picture_workload(workload, m, seed)
    x = bootstrap(load_cancer().x, n, np.random.default_rng([seed, n]))
    r = projection_mechanism(x, W, epsilon=epsilon, delta=delta, trials=draws, rng=seed)
    y, noisy, proj = W.answers(x), r.trace["noisy"], r.answers
    # the vertices of K_Q: one answer vector per distinct single row (columns of Q)
    cols = np.unique(W.columns(np.arange(W.N)).T, axis=0)
    views = [(0, 1)] if W.m == 2 else [(0, 1), (0, 2)]
    fig, axes = new_figure(len(views), width=6.4 if W.m == 2 else 9.6, height=4.6 if W.m == 2 else 4.4)
    axes = np.atleast_1d(axes)
    for ax, (a, b) in zip(axes, views):
        hull = _hull_2d(cols[:, [a, b]])
        ax.fill(hull[:, 0], hull[:, 1], color="0.85", ec="0.4", lw=1.2, label="K_Q (shadow)" if W.m == 3 else "K_Q")
        for k in range(draws):
            ax.plot([noisy[k, a], proj[k, a]], [noisy[k, b], proj[k, b]], color="0.6", lw=0.7, zorder=1)
        ax.plot(noisy[:, a], noisy[:, b], "o", color=BASELINE, ms=4, label="noisy ỹ", zorder=2)
        ax.plot(proj[:, a], proj[:, b], "o", color=EMPIRICAL, ms=4, label="projected ŷ", zorder=3)
        ax.plot(y[a], y[b], "*", color=TRUTH, ms=14, label="true Q(x)", zorder=4)
        ax.set_xlabel(f"answer to query {a + 1}")
        ax.set_ylabel(f"answer to query {b + 1}")
        ax.set_aspect("equal", adjustable="datalim")
    err_noisy = np.sqrt(((noisy - y) ** 2).mean(axis=1)).mean()
    err_proj = np.sqrt(((proj - y) ** 2).mean(axis=1)).mean()
    axes[0].set_title(f"ε = {epsilon:.3g}, n = {n}: RMS error {err_noisy:.2f} → {err_proj:.2f}", loc="left")
    axes[-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    return fig


# --- chapter 13's figures -----------------------------------------------------------------------------------
def _series(name, value, size=None):
    arr = check_real_array(name, value)
    if arr.ndim != 1 or arr.size == 0 or (size is not None and arr.size != size):
        want = "a non-empty 1-D array" if size is None else f"a 1-D array of {size} values"
        raise ValueError(f"{name} (shape {arr.shape}) must be {want}")
    if np.any(arr <= 0):
        raise ValueError(f"{name} ({float(arr.min())!r}) must be > 0 (log axes)")
    return arr


def _major_ticks_only(axes):
    """No minor ticks on the log axes of ``axes`` (one or several): the labelled decades stay, and the figure draws
    in about half the time (each minor tick is an artist measured twice by the layout)."""
    for ax in np.atleast_1d(axes):
        ax.minorticks_off()


def figure_key_lemma(noisy_sq, lhs, mid, rhs):
    """PROJ-Key lemma per release (log–log): left, the projected squared error ``‖ŷ−y‖²`` against the Gaussian
    one ``‖ỹ−y‖²`` (never above the diagonal); right, ``‖ŷ−y‖² ≤ ⟨w, ŷ−y⟩ ≤ h_K(w) + h_K(−w)``."""
    noisy_sq = _series("noisy_sq", noisy_sq)
    lhs, mid, rhs = (_series(k, v, noisy_sq.size) for k, v in (("lhs", lhs), ("mid", mid), ("rhs", rhs)))
    fig, ax = new_figure(2, height=4.6)
    ax[0].loglog(noisy_sq, lhs, "o", color=EMPIRICAL, ms=5, label="releases")
    lim = [noisy_sq.min() / 2, noisy_sq.max() * 2]
    ax[0].plot(lim, lim, "-", color=BOUND, label="no gain")
    ax[0].set_xlabel("‖ỹ − y‖²  (Gaussian answers)"); ax[0].set_ylabel("squared error ‖ŷ − y‖² (projected)")
    ax[0].set_title("projection never hurts")
    ax[1].loglog(rhs, mid, "o", color=EMPIRICAL, ms=5, label="⟨w, ŷ − y⟩")
    ax[1].loglog(rhs, lhs, "^", color=EXTRA[0], ms=5, label="‖ŷ − y‖²")
    lim = [rhs.min() / 2, rhs.max() * 2]
    ax[1].plot(lim, lim, "-", color=BOUND, label="h_K(w) + h_K(−w)")
    ax[1].set_xlabel("h_K(w) + h_K(−w)"); ax[1].set_ylabel("the lemma's two left sides")
    ax[1].set_title("the key lemma, per release")
    legend_outside(ax[0], where="below"); legend_outside(ax[1], where="below")
    _major_ticks_only(ax)
    return fig


def figure_widths(widths, *, N, bound, notes_bound):
    """Monte Carlo Gaussian widths (95% intervals) of query families against the corrected width bound and the
    notes' bound, both evaluated by the callables ``bound(m, N)`` / ``notes_bound(m, N)``.  ``widths`` maps a
    family's name to ``[(m, N, estimate), …]``; left: the families other than marginals, right: the marginals."""
    if not isinstance(widths, dict) or not widths:
        raise ValueError("widths must be a non-empty dict {family: [(m, N, estimate), ...]}")
    N = check_int("N", N, low=2)
    if not (callable(bound) and callable(notes_bound)):
        raise TypeError("bound and notes_bound must be callables (m, N) -> float")
    left_names = [k for k in widths if not k.startswith("marginal")]
    right_names = [k for k in widths if k.startswith("marginal")]
    if not left_names or not right_names:
        raise ValueError(f"widths ({sorted(widths)}) must hold marginal and non-marginal families")
    look = dict(zip(left_names + right_names, (("o", EMPIRICAL), ("s", EXTRA[1]), ("D", EXTRA[3]), ("v", EXTRA[0]))))
    fig, axes = new_figure(2, height=4.8)
    for ax, names in ((axes[0], left_names), (axes[1], right_names)):
        for name in names:
            est = [e for *_, e in widths[name]]
            ax.errorbar([m_ for m_, _, _ in widths[name]], [e.estimate for e in est], fmt=look[name][0], ms=5,
                        color=look[name][1], label=name,
                        yerr=[[e.estimate - e.low for e in est], [e.high - e.estimate for e in est]])
        ms_ = [m_ for m_, _, _ in widths[names[0]]]
        ax.plot(ms_, [bound(m_, N) for m_ in ms_], "-", color=BOUND, label="bound √m(√(2 ln N)+√(π/2))")
        ax.plot(ms_, [notes_bound(m_, N) for m_ in ms_], "--", color=BOUND, label="notes' bound")
        ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("m (queries)")
        legend_outside(ax, where="below")
    axes[0].set_ylabel("Gaussian width ℓ*(K_Q)"); axes[0].set_title(f"N = {N:,}")
    axes[1].set_title("k-way cells of the cancer data")
    _major_ticks_only(axes)
    return fig


def figure_rms_accuracy(xs, projection, thm9, thm5, gaussian, histogram, uniform, *, xlabel, title=""):
    """RMS error of the projection (measured) against Theorems 9 and 5, with the per-query Gaussian at the same
    (ε, δ) (green), the noisy histogram (purple) and the uniform guess (grey; a number or one value per x)."""
    xs = _series("xs", xs)
    projection, thm9, thm5, gaussian, histogram = (
        _series(k, v, xs.size) for k, v in (("projection", projection), ("thm9", thm9), ("thm5", thm5),
                                             ("gaussian", gaussian), ("histogram", histogram)))
    uniform = np.atleast_1d(check_real_array("uniform", uniform))
    if uniform.ndim > 1 or uniform.size not in (1, xs.size):
        raise ValueError(f"uniform (shape {uniform.shape}) must be a number or one value per x")
    fig, ax = new_figure(height=4.4)
    accuracy_vs_theory(xs, projection, thm9, ax=ax, empirical_label="projection, measured",
                       bound_label="Theorem 9 (Monte Carlo ℓ*)", logx=True, logy=True, xlabel=xlabel,
                       ylabel="RMS error (mean of runs)", title=title or None)
    ax.plot(xs, thm5, "--", color=BOUND, label="Theorem 5")
    ax.plot(xs, gaussian, "s-", color=BASELINE, ms=5, label="per-query Gaussian")
    ax.plot(xs, histogram, "v-", color=HISTOGRAM, ms=5, label="noisy histogram (Laplace)")
    if uniform.size == 1:
        reference_line(ax, float(uniform[0]), label="uniform guess")
    else:
        ax.plot(xs, uniform, "--", color=UNIFORM, label="uniform guess")
    ax.set_xticks(xs, [f"{v:g}" for v in xs])           # a sparse grid on a log axis: tick every point
    _major_ticks_only(ax)
    legend_outside(ax)
    return fig


def figure_compare_m(ms, errors, *, metric, bound=None):
    """One metric (``"rms"`` or ``"max"``) of :func:`compare_mechanisms`'s results against the number of queries
    ``ms``: projection (blue), per-query Gaussian (green), MWEM, noisy histogram (purple), uniform guess (grey);
    ``bound``: Theorem 5's RMS level (red), drawn when given."""
    ms = _series("ms", ms)
    if metric not in ("rms", "max"):
        raise ValueError(f"metric ({metric!r}) must be 'rms' or 'max'")
    if not isinstance(errors, dict) or set(errors) != set(COMPARED):
        raise ValueError(f"errors must map each of {COMPARED} to one error per m")
    style = dict(zip(COMPARED, (("o-", EMPIRICAL), ("s-", BASELINE), ("^-", EXTRA[3]), ("v-", HISTOGRAM),
                                ("--", UNIFORM))))
    fig, ax = new_figure(height=4.4)
    for name in COMPARED:
        ax.plot(ms, _series(name, errors[name], ms.size), style[name][0], color=style[name][1], label=name, zorder=3)
    if bound is not None:                              # dash-dot, behind the series: it may run along one of them
        reference_line(ax, check_real("bound", bound, low=0.0, low_open=True), role="bound",
                       label="Theorem 5 (RMS, any m)").set_linestyle("-.")
    ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("m (2-way marginal cells)")
    ax.set_xticks(ms, [f"{v:g}" for v in ms]); ax.minorticks_off()
    ax.set_ylabel(f"{'RMS' if metric == 'rms' else 'max'} error (mean of runs)")
    legend_outside(ax)
    return fig
