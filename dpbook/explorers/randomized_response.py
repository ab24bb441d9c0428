"""Chapter 02's widget: per-query Laplace (exact sensitivity) against randomized response as the number of queries grows."""
from __future__ import annotations

import numpy as np

from ..data import bootstrap, load_cancer
from ..experiments import uniform_guess_prefix_error
from ..noise import laplace_noise
from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, UNIFORM, legend_outside
from ._layout import fixed_figure, log_minor_125
from ..queries import MarginalWorkload
from ..randomized_response import rr_histogram, subgroup_workload
from ..theory.laplace import laplace_max_error_bound, laplace_scale
from ..theory.randomized_response import rr_error_bound
from ..validation import check_beta, check_epsilon, check_int

__all__ = ["explore_rr", "prefix_sensitivities"]

_PREFIX = {}


def prefix_sensitivities(workload: MarginalWorkload) -> np.ndarray:
    """``Δ_k`` for ``k = 1..m``: the exact L1 sensitivity of the first ``k`` queries of a non-negative workload
    (DR-Def3.1), i.e. the largest column sum of ``Q[:k]`` — how many of the first ``k`` queries one row is in.

    For chapter 02's subgroup workload this is also the sensitivity under "one patient's private bit flips": the
    queries only count rows with the bit set, so the flip moves exactly the counts of the subgroups she is in.
    """
    if not isinstance(workload, MarginalWorkload):
        raise TypeError(f"workload must be a MarginalWorkload, got {type(workload).__name__}")
    key = (workload.d, tuple(workload.cells))
    if key not in _PREFIX:
        Q = np.asarray(workload.matrix(), dtype=float)
        if np.any(Q < 0):
            raise ValueError("workload must have non-negative entries")
        _PREFIX[key] = np.cumsum(Q, axis=0).max(axis=1)
    return _PREFIX[key]


def explore_rr(epsilon=1.0, n=569, k=100, beta=0.05, *, trials=200, seed=2026):
    """Chapter 02's headline: max error over ``|Q|`` subgroup queries, per-query Laplace vs randomized response.

    Data: the cancer table (bootstrapped to ``n`` rows), private bit ``malignant``; queries: the first ``|Q|``
    of :func:`subgroup_workload` ("fraction of all n patients who are in subgroup S and malignant").  Both protect
    one patient's diagnosis.  The baseline, per-query Laplace, adds ``Lap(Δ_k/ε)`` to each of the first ``k`` counts
    with ``Δ_k`` their exact sensitivity (DR-Thm3.8, LEC3-3.3.2); randomized response spends ε once and answers
    all queries (LEC3-3.4).  Dots: measured ``(1-β)``-quantiles; lines: the two bounds (green: Laplace, red:
    randomized response); grey dashed: the uniform guess's max error; dotted: your ``|Q|``.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    W_all = subgroup_workload()
    n, trials = check_int("n", n, low=1), check_int("trials", trials, low=20)
    k = check_int("k", k, low=1, high=W_all.m)
    rng = np.random.default_rng(seed)
    x = load_cancer().x
    x = x if n == x.sum() else bootstrap(x, n, rng)
    true = W_all.counts(x) / n
    delta = prefix_sensitivities(W_all)

    ks = np.unique(np.round(np.geomspace(1, W_all.m, 14)).astype(int))
    rr_err = np.abs(W_all.apply(rr_histogram(x, epsilon=epsilon, bit=10, trials=trials, rng=rng).counts)
                    / n - true)
    rr_q = np.quantile(np.maximum.accumulate(rr_err, axis=1)[:, ks - 1], 1 - beta, axis=0)   # every prefix at once
    # laplace_mechanism(x, first kk queries, sensitivity=Δ_kk) errs by exactly Lap(Δ_kk/ε)^kk / n: draw Lap(1) once
    # and rescale per kk (the same law the mechanism draws from)
    unit = np.maximum.accumulate(np.abs(laplace_noise(1.0, (trials, W_all.m), rng)), axis=1)[:, ks - 1]
    lap_q = np.quantile(unit, 1 - beta, axis=0) * np.array([laplace_scale(delta[kk - 1], epsilon) for kk in ks]) / n
    lap_bound = [laplace_max_error_bound(int(kk), beta, float(delta[kk - 1]), epsilon) / n for kk in ks]
    rr_bound = [rr_error_bound(n, beta, epsilon, int(kk)) for kk in ks]
    fig, ax = fixed_figure(width=9.6, height=4.4, left=0.75, right=3.05, bottom=0.55, top=0.3)
    ax.plot(ks, lap_bound, "--", color=BASELINE, label="Laplace (exact Δ_k): bound")
    ax.plot(ks, lap_q, "o", color=BASELINE, ms=5, label="Laplace (exact Δ_k): measured")
    ax.plot(ks, rr_bound, "-", color=BOUND, label="randomized response: bound")
    ax.plot(ks, rr_q, "s", color=EMPIRICAL, ms=5, label="randomized response: measured")
    ax.plot(ks, uniform_guess_prefix_error(x, W_all)[ks - 1], "--", color=UNIFORM, lw=1.6,
            label="uniform guess (ignores the data)")
    ax.axvline(k, color="k", ls=":", lw=1.2, label=f"your |Q| = {k}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_minor_125(ax)
    ax.set_xlabel("|Q| (first k subgroup queries)")
    ax.set_ylabel(f"max error, {1 - beta:.3g}-quantile")
    lap_k = laplace_max_error_bound(k, beta, float(delta[k - 1]), epsilon) / n
    ax.set_title(f"ε={epsilon:.3g}, n={n}; bounds at |Q|={k}: Laplace {lap_k:.2g}, RR {rr_error_bound(n, beta, epsilon, k):.2g}")
    legend_outside(ax)
    return fig
