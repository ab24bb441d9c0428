"""Chapter 02's widget: split-budget Laplace against randomized response as the number of queries grows."""
from __future__ import annotations

import numpy as np

from ..data import bootstrap, load_cancer
from ..noise import laplace_noise
from ..plots import BOUND, EMPIRICAL, new_figure
from ..randomized_response import rr_histogram, subgroup_workload
from ..theory.laplace import k_query_error_bound, laplace_scale
from ..theory.randomized_response import laplace_rr_crossover, rr_error_bound
from ..validation import check_beta, check_epsilon, check_int

__all__ = ["explore_rr"]


def explore_rr(epsilon=1.0, n=569, k=100, beta=0.05, *, trials=200, seed=2026):
    """Chapter 02's headline: max error over ``|Q|`` subgroup queries, split-budget Laplace vs randomized response.

    Data: the cancer table (bootstrapped to ``n`` rows), private bit ``malignant``; queries: the first ``|Q|``
    of :func:`subgroup_workload` ("fraction of all n patients who are in subgroup S and malignant").
    Laplace spends ε/|Q| per query (LEC3-3.3.2, PROJ-R2); RR spends ε once and answers all queries
    (LEC3-3.4).  Dots: measured ``(1-β)``-quantiles; lines: the two bounds; dotted: your ``|Q|``.
    """
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    W_all = subgroup_workload()
    n, trials = check_int("n", n, low=1), check_int("trials", trials, low=20)
    k = check_int("k", k, low=1, high=W_all.m)
    rng = np.random.default_rng(seed)
    x = load_cancer().x
    x = x if n == x.sum() else bootstrap(x, n, rng)
    true = W_all.counts(x) / n

    ks = np.unique(np.round(np.geomspace(1, W_all.m, 14)).astype(int))
    rr_err = np.abs(W_all.apply(rr_histogram(x, epsilon=epsilon, bit=10, trials=trials, rng=rng).counts)
                    / n - true)
    rr_q = np.quantile(np.maximum.accumulate(rr_err, axis=1)[:, ks - 1], 1 - beta, axis=0)   # every prefix at once
    # laplace_mechanism(x, first kk queries, sensitivity=kk) errs by exactly Lap(kk/ε)^kk / n: draw Lap(1) once
    # and rescale per kk (the same noise the mechanism adds; tests check the identity)
    unit = np.maximum.accumulate(np.abs(laplace_noise(1.0, (trials, W_all.m), rng)), axis=1)[:, ks - 1]
    lap_q = np.quantile(unit, 1 - beta, axis=0) * np.array([laplace_scale(kk, epsilon) for kk in ks]) / n
    fig, ax = new_figure()
    ax.plot(ks, [k_query_error_bound(int(kk), beta, epsilon, n=n) for kk in ks], "-", color=BOUND,
            label="Laplace bound |Q|ln(|Q|/β)/(nε)")
    ax.plot(ks, lap_q, "o", color=BOUND, ms=5, label="Laplace, measured")
    ax.plot(ks, [rr_error_bound(n, beta, epsilon, int(kk)) for kk in ks], "-", color=EMPIRICAL,
            label="RR bound sqrt(ln(2|Q|/β)/2n)/tanh(ε/2)")
    ax.plot(ks, rr_q, "s", color=EMPIRICAL, ms=5, label="RR, measured")
    ax.axvline(k, color="k", ls=":", lw=1, label=f"your |Q| = {k}")
    k_star = laplace_rr_crossover(n, beta, epsilon)
    ax.axvline(k_star, color="#8e44ad", ls="--", lw=1, label=f"bounds cross at |Q|={k_star}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("|Q| (number of queries)")
    ax.set_ylabel(f"max error, {1 - beta:.3g}-quantile")
    lap_k = k_query_error_bound(k, beta, epsilon, n=n)
    ax.set_title(f"ε={epsilon:.3g}, n={n}; at |Q|={k}: Laplace bound {lap_k:.3g}, "
                 f"RR bound {rr_error_bound(n, beta, epsilon, k):.3g}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    return fig
