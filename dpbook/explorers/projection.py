"""Chapter 09's widget: the picture of the projection mechanism for m = 2 (and 3, as two views)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.spatial import ConvexHull

from ..data import bootstrap, load_cancer
from ..plots import BOUND, EMPIRICAL, EXTRA, new_figure
from ..projection import project_onto_hull, projection_mechanism
from ..queries import MarginalWorkload, MatrixWorkload, random_queries
from ..validation import check_int

__all__ = ["WORKLOADS", "picture_workload", "explore_projection", "COMPARED", "noisy_histogram_answers",
           "compare_mechanisms"]

#: the widget's workloads over the cancer universe {0,1}^11 (m = 2 or 3 queries)
WORKLOADS = ("random values", "one-way cells", "nested cells")


def picture_workload(name: str, m: int, seed: int = 2026):
    """A small workload for the picture: ``"random values"`` (queries with U[0,1] values: ``K_Q`` a polygon),
    ``"one-way cells"`` (attribute ``j`` is 1: ``K_Q`` the cube ``[0,1]^m``), ``"nested cells"`` (attribute 0,
    then attributes 0 and 1, …: ``K_Q`` a simplex)."""
    m = check_int("m", m, low=2, high=3)
    if name == "random values":
        return random_queries(m, 1 << 11, np.random.default_rng(seed), kind="uniform")
    if name == "one-way cells":
        return MarginalWorkload(11, [((j,), (1,)) for j in range(m)])
    if name == "nested cells":
        return MarginalWorkload(11, [(tuple(range(j + 1)), (1,) * (j + 1)) for j in range(m)])
    raise ValueError(f"workload ({name!r}) must be one of {WORKLOADS}")


def _hull_2d(points):
    """Vertices of the convex hull of 2-D points in order (a segment or a point when degenerate)."""
    pts = np.unique(np.round(points, 12), axis=0)
    if pts.shape[0] < 3:
        return pts
    try:
        return pts[ConvexHull(pts).vertices]
    except Exception:                                              # collinear points: the segment's ends
        order = np.lexsort(pts.T[::-1])
        return pts[order[[0, -1]]]


def explore_projection(epsilon=0.5, delta=1e-6, n=20, m=2, workload="nested cells", *, draws=20, seed=2026):
    """PROJ-Alg1 drawn: ``K_Q`` (grey), the true answers ``Q(x)`` of ``n`` rows resampled from the cancer data
    (black star), ``draws`` noisy Gaussian answers (red dots) and their projections onto ``K_Q`` (blue dots),
    each pair joined by a line.  For ``m = 3`` two coordinate views of the same release, queries 1–2 and 1–3 (with
    ``K_Q``'s shadow on each plane): together they show every coordinate of every point, so a third view (2–3) would
    add no answer, and the figure keeps two panels.  Resampling the noise (the seed) shows that projecting never
    moves an answer away from the truth (PROJ-Key lemma)."""
    draws = check_int("draws", draws, low=1, high=500)
    n = check_int("n", n, low=1, high=100_000)
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
        ax.plot(noisy[:, a], noisy[:, b], "o", color=BOUND, ms=4, label="noisy ỹ", zorder=2)
        ax.plot(proj[:, a], proj[:, b], "o", color=EMPIRICAL, ms=4, label="projected ŷ", zorder=3)
        ax.plot(y[a], y[b], "*", color="k", ms=14, label="true Q(x)", zorder=4)
        ax.set_xlabel(f"answer to query {a + 1}")
        ax.set_ylabel(f"answer to query {b + 1}")
        ax.set_aspect("equal", adjustable="datalim")
    err_noisy = np.sqrt(((noisy - y) ** 2).mean(axis=1)).mean()
    err_proj = np.sqrt(((proj - y) ** 2).mean(axis=1)).mean()
    axes[0].set_title(f"ε = {epsilon:.3g}, δ = {delta:.3g}, n = {n}: RMS error {err_noisy:.2f} → {err_proj:.2f}",
                      fontsize=10, loc="left")
    axes[-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    return fig


# --- chapter 09's baselines (§6): the comparisons its accuracy plots draw ------------------------------------

#: the series of :func:`compare_mechanisms`, in the order they are drawn
COMPARED = ("projection", "per-query Gaussian", "MWEM (T = 10, pure ε)", "noisy histogram (pure ε)", "uniform guess")


def noisy_histogram_answers(x, workload, *, epsilon, delta=None, trials=None, rng=None) -> np.ndarray:
    """The noisy histogram's answers to ``workload`` under replace-one neighbours (as the projection mechanism).

    ``delta=None``: chapter 03's Laplace histogram (pure ε, ``Δ1 = 2``).  ``delta`` given: Gaussian noise on every
    cell at the same ``(ε, δ)`` as the projection (``Δ2 = √2``) — :func:`dpbook.gaussian.gaussian_mechanism` on
    the identity workload; the workload's answers are summed from the noisy cells (post-processing).
    Returns ``(trials, m)`` (or ``(m,)``) normalised answers.
    """
    from ..gaussian import gaussian_mechanism
    from ..histogram import histogram_mechanism
    from ..queries import check_database
    x, W = check_database(x, workload)
    if delta is None:
        return histogram_mechanism(x, W, epsilon=epsilon, neighbours="replace-one", trials=trials, rng=rng).answers
    identity = MatrixWorkload(sp.identity(W.N, format="csr"))
    cells = gaussian_mechanism(x, identity, epsilon=epsilon, delta=delta, neighbours="replace-one", trials=trials,
                               rng=rng).answers
    return W.apply(cells)


def compare_mechanisms(x, workload, *, epsilon, delta, T=10, trials=3, rng=None) -> dict:
    """RMS and max error (means over ``trials`` runs) of the mechanisms chapter 09 compares on ``workload``.

    The projection mechanism at ``(ε, δ)``; the per-query Gaussian (the projection's own noisy answers, before
    projecting: same draw, same ``(ε, δ)``); MWEM with ``T`` rounds (pure ε); the noisy histogram (Laplace,
    replace-one, pure ε); the uniform guess.  Returns ``{"rms": {name: error}, "max": {name: error}}`` with the
    names of :data:`COMPARED`.
    """
    from ..mwem import mwem
    from ..queries import check_database
    x, W = check_database(x, workload)
    y = W.answers(x)
    r = projection_mechanism(x, W, epsilon=epsilon, delta=delta, trials=trials, rng=rng)
    answers = dict(zip(COMPARED, (r.answers, r.trace["noisy"],
                                  mwem(x, W, epsilon=epsilon, T=T, trials=trials, rng=rng).answers,
                                  noisy_histogram_answers(x, W, epsilon=epsilon, trials=trials, rng=rng),
                                  W.answers(np.ones(W.N)))))
    out = {"rms": {}, "max": {}}
    for name, a in answers.items():
        gap = np.abs(np.atleast_2d(a) - y)
        out["rms"][name] = float(np.sqrt((gap ** 2).mean(axis=1)).mean())
        out["max"][name] = float(gap.max(axis=1).mean())
    return out
