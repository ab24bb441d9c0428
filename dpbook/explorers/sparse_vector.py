"""Chapter 06's widget: Sparse (DR-Alg2) on a stream of the cancer data's 3-way conjunctions."""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..data import cancer_conjunction_stream
from ..plots import BOUND, EMPIRICAL, TRUTH, legend_outside
from ._layout import fixed_figure
from ..sparse_vector import empirical_alpha, sparse_vector_stream
from ..theory import sparse_vector as th
from ..validation import check_beta, check_int, check_real

__all__ = ["explore_sparse"]


def explore_sparse(epsilon=5.0, c=3, threshold=0.4, m=165, *, beta=0.05, trials=300, seed=2026):
    """Sparse (DR-Alg2) on the first ``m`` conjunctions: who is found, and the empirical α vs DR-Thm3.26.

    Left: each query's true answer, coloured by how often it is answered ⊤, with the band ``τ ± α``.
    Right: the empirical α of ``trials`` seeded runs against the theorem's α at ``β`` (α is signed: α < 0 means
    every answer was right by a margin ``|α|``); when the theorem's α is far beyond the runs, the axis stops short
    of it and the legend gives its value.
    The default ε = 5 keeps the band narrower than the range of the answers (at ε = 1 it covers all of them); the
    left panel is limited to the answers' range, and the title says when the band extends beyond it.
    """
    f, n = cancer_conjunction_stream()
    m = check_int("m", m, low=1, high=f.size)
    c, trials = check_int("c", c, low=1), check_int("trials", trials, low=1)
    threshold, beta = check_real("threshold", threshold, low=0.0, high=1.0), check_beta(beta)
    stream = f[:m]
    runs = sparse_vector_stream(stream, threshold=threshold, c=c, epsilon=epsilon, sensitivity=1 / n, trials=trials,
                                rng=seed)
    alpha = th.sparse_vector_alpha(m, c, beta, epsilon, n=n)
    p_top, asked = runs.above.mean(axis=0), runs.answered.mean(axis=0)
    low, high = min(stream.min(), threshold) - 0.02, max(stream.max(), threshold) + 0.02
    wide = "\n(band wider than the panel)" if threshold - alpha < low and threshold + alpha > high else ""
    fig, (left, right) = fixed_figure(2, width=10, height=4.8, left=0.75, right=0.4, bottom=1.45,
                                      top=0.55 if wide else 0.3, wspace=1.3)
    idx = np.arange(m)
    left.fill_between([-1, m], threshold - alpha, threshold + alpha, color=BOUND, alpha=0.12, lw=0,
                      label="τ ± α (DR-Thm3.26)")
    left.axhline(threshold, color=TRUTH, lw=1, label="τ (the threshold)")
    never = asked < 0.5
    if never.any():
        left.plot(idx[never], stream[never], "x", color="0.6", ms=4, label="asked in < 50% of runs")
    sc = left.scatter(idx[~never], stream[~never], c=p_top[~never], cmap="viridis", vmin=0, vmax=1, s=14, zorder=3)
    fig.colorbar(sc, ax=left, label="P[⊤]")
    left.set_xlim(-1, m); left.set_ylim(low, high)
    left.set_xlabel("query index in the stream"); left.set_ylabel("true answer q(x)")
    left.set_title(f"ε={epsilon:.3g}, c={c}, τ={threshold:.3g}: {runs.num_above.mean():.2f} ⊤ per run{wide}")
    legend_outside(left, where="below")
    ea = empirical_alpha(runs, stream)
    q = np.quantile(ea, 1 - beta)
    lo, hi = min(ea.min(), 0.0), max(ea.max(), q, 0.0)
    cut = hi > lo and alpha > hi + (hi - lo)    # the bound would squeeze the runs into a sliver: stop short of it
    span = float(ea.max() - ea.min())
    pad = 0.0 if span > 0 else 0.03 * max(abs(ea.min()), alpha)      # every run equal: one visible bar
    right.hist(ea, bins=30 if span > 0 else 1, range=(ea.min() - pad, ea.max() + pad),
               histtype="stepfilled", color=EMPIRICAL, alpha=0.7, label="empirical α of each run")
    right.axvline(alpha, color=BOUND, label=f"α at β={beta:.3g}: {alpha:.2g}" + (" (off the axis →)" if cut else ""))
    right.axvline(q, color=EMPIRICAL, ls="--", label=f"measured {1 - beta:.2g}-quantile")
    if cut:
        right.set_xlim(lo - 0.05 * (hi - lo), hi + 0.1 * (hi - lo))
    right.set_title("α < 0: all answers right by |α|")          # empirical_alpha is signed
    right.xaxis.set_major_locator(MaxNLocator(nbins=4))
    right.set_xlabel("empirical α (fraction of n)"); right.set_ylabel("runs"); legend_outside(right, where="below")
    return fig
