"""Chapter 11's figures and widget: SparseProject over 32-bit records against the Laplace mechanism on the counts."""
from __future__ import annotations

import functools

import numpy as np

from ..hashing import PolynomialSignHash
from ..plots import BOUND, EMPIRICAL, EXTRA, new_figure
from ._layout import fixed_figure, log_minor_125
from ..data import record_catalogue as catalogue, sparse_database as sparse_data  # the chapter's data (dpbook.data)
from ..sparse_project import (error_decomposition, laplace_sparse_queries, project_database, random_sparse_queries,
                              sparse_project)
from ..theory.sparse_project import jl_error_bound, noise_error_bound, thm2_alpha
from ..validation import check_beta, check_delta, check_epsilon, check_int

__all__ = ["catalogue", "sparse_data", "sparse_workload", "explore_sparse_project", "plot_column_products"]

BITS = 32


@functools.lru_cache(typed=True, maxsize=None)
def sparse_workload(k: int, m: int, bits: int = BITS, seed: int = 11):
    """``k`` random ``m``-sparse queries, half of each support from the catalogue, weights in ``(0, 1]``."""
    return random_sparse_queries(k, m, 1 << bits, rng=seed, pool=catalogue(bits))


@functools.lru_cache(typed=True, maxsize=8)
def _hash_parts(n: int, k: int, m: int, T: int, r: int, seed: int):
    """What the ε and δ sliders do not change: the hash ``f`` that SparseProject draws first from ``rng = seed``
    (it does not depend on ε, δ or β), the projected queries ``Q̂ = A Q``, the projected database ``u = A D`` and
    the JL part of the error (:func:`dpbook.sparse_project.error_decomposition` on one release).  Cached so that
    moving ε or δ redraws only the noise: the expensive projections run once per ``(n, k, m, T, r, seed)``."""
    D, W = sparse_data(n), sparse_workload(k, m)
    reference = sparse_project(D, epsilon=1.0, delta=1e-5, beta=0.1, m=m, k=k, n=n, T=T, r=r, rng=seed)
    jl, _, Q_hat = error_decomposition(reference, D, W)
    return reference.f, Q_hat, project_database(D, reference.f), jl


def explore_sparse_project(epsilon=1.0, delta=1e-5, m=10, k=1000, T=512, n=2000, *, r=8, beta=0.1, trials=30,
                           seed=2026):
    """SparseProject (one hash, ``trials`` noise draws) against the Laplace mechanism on the ``k`` counts.

    Left: the max error over the ``k`` queries of each trial (dots), the practical bound (JL part by Chebyshev +
    noise part, each at ``β/2``; red) and S1-Thm2's rate with constant 1 (dashed).  Right: the two parts of
    SparseProject's error per query — the JL part (fixed by the hash) and the noise part of one trial — against the
    true answers.  A pure, seeded function of its parameters (chapter 11's widget).
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    m, k, T, n = check_int("m", m, low=1), check_int("k", k, low=1), check_int("T", T, low=1), check_int("n", n, low=1)
    beta, r, trials = check_beta(beta), check_int("r", r, low=1), check_int("trials", trials, low=1)
    D, W = sparse_data(n), sparse_workload(k, m)
    true = W.answers(D)
    release = sparse_project(D, epsilon=epsilon, delta=delta, beta=beta, m=m, k=k, n=n, T=T, r=r, trials=trials,
                             rng=seed)
    f, Q_hat, u, jl = _hash_parts(n, k, m, T, r, seed)
    if release.f != f:                                      # the cache is only valid for the same hash
        raise RuntimeError("SparseProject drew a different hash for the same seed: the widget's cache is stale")
    noise = (release.y - u) @ Q_hat.T / n                  # error_decomposition's noise part, reusing Q̂ and u
    err_sp = np.abs(jl + noise).max(axis=1)
    laplace = laplace_sparse_queries(D, W, epsilon=epsilon, n=n, trials=trials, rng=seed + 1)
    err_lap = np.abs(laplace.answers - true).max(axis=1)
    q_sq = float(np.bincount(np.repeat(np.arange(W.m), np.diff(W.indptr)), weights=W.weights ** 2).max())
    bound = float(jl_error_bound(q_sq, float(np.sum(D.counts.astype(float) ** 2)), T, n, k, beta)
                  + noise_error_bound(np.linalg.norm(Q_hat, axis=1), np.abs(Q_hat).max(axis=1), epsilon, delta, n, k,
                                      beta).max())
    rate = thm2_alpha(n, m, k, beta, epsilon, delta)

    fig, (left, right) = fixed_figure(2, width=10, height=5.7, left=0.75, right=0.2, bottom=1.85, top=0.3, wspace=0.9)
    rng = np.random.default_rng(seed)
    for i, (name, err, colour) in enumerate([("SparseProject", err_sp, EMPIRICAL),
                                             ("Laplace on the k counts", err_lap, EXTRA[0])]):
        left.plot(i + rng.uniform(-0.12, 0.12, trials), err, "o", color=colour, ms=4,
                  label=f"{name}: median {np.median(err):.2g}")
    left.axhline(bound, color=BOUND, label=f"practical bound (JL + noise) {bound:.2g}")
    left.axhline(rate, color=BOUND, ls="--", label=f"S1-Thm2 rate, constant 1: {rate:.2g}")
    left.axhline(float(true.max()), color="grey", ls=":", label=f"answer 0 (no data) {true.max():.2g}")
    left.set_xticks([0, 1], ["SparseProject", "Laplace\non counts"])
    left.set_xlim(-0.5, 1.5)
    left.set_yscale("log")
    log_minor_125(left)
    left.set_ylabel(f"max error over the k = {k} queries")
    left.set_title(f"ε={epsilon:.3g}, δ={delta:.3g}, m={m}, T={T}, n={n}")
    left.legend(loc="upper left", bbox_to_anchor=(-0.12, -0.16), borderaxespad=0.0)   # below: the lines span the panel
    right.plot(true, noise[0], ".", color=EXTRA[1], ms=3, label="noise part (one trial)")
    right.plot(true, jl, ".", color=EMPIRICAL, ms=3, label="JL part (this hash)")
    right.axhline(0, color="k", lw=0.8)
    right.set_xlabel("true answer")
    right.set_ylabel("error part")
    right.legend(loc="upper left", bbox_to_anchor=(-0.12, -0.16), borderaxespad=0.0)
    return fig


def plot_column_products(T=1024, r_values=(4, 8, 28), support=160, seed=2026):
    """How often two columns of ``A`` coincide: ``sqrt(T)·⟨A e_x, A e_y⟩`` over all pairs of ``support`` random
    32-bit records, for hashes of independence ``r`` (one panel line each) and for fully random signs.

    With ``r = 4`` the sum over the rows of ``f(i, x) f(i, y)`` is a character of an affine function of the row
    bits, so it is exactly ``0`` or ``±T``: the columns are orthogonal or identical.  Returns the figure.
    """
    T, support = check_int("T", T, low=2), check_int("support", support, low=2)
    rng = np.random.default_rng(seed)
    cols = np.unique(rng.integers(0, 1 << BITS, size=support, dtype=np.int64))
    off = ~np.eye(cols.size, dtype=bool)
    fig, ax = new_figure(1, width=7.5, height=4.2)
    colours = [EXTRA[1], EMPIRICAL, EXTRA[0]]
    for colour, r in zip(colours, r_values):
        A = PolynomialSignHash.sample(r, T, 1 << BITS, rng).matrix(cols)
        z = np.sqrt(T) * (A.T @ A)[off]
        values, counts = np.unique(np.round(z, 6), return_counts=True)
        ax.plot(values, counts / z.size, "o" if r < 8 else "o-", color=colour, ms=6 if r < 8 else 4, lw=1,
                label=f"r = {r}: max |z| = {np.abs(z).max():.3g}")
    signs = rng.choice([-1.0, 1.0], size=(T, cols.size)) / np.sqrt(T)
    z = np.sqrt(T) * (signs.T @ signs)[off]
    values, counts = np.unique(np.round(z, 6), return_counts=True)
    ax.plot(values, counts / z.size, "-", color="grey", lw=1.5, label=f"fully random signs: max |z| = {np.abs(z).max():.3g}")
    ax.set_yscale("log")
    ax.set_xlabel(r"$z=\sqrt{T}\,\langle Ae_x, Ae_y\rangle$ over pairs of records")
    ax.set_ylabel("fraction of pairs")
    ax.set_title(f"columns of A, T = {T}")
    ax.legend(loc="upper right", fontsize=10)
    return fig
