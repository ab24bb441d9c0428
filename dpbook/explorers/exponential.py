"""Chapter 06's widget: the exact error law of SmallDB on a 3-attribute projection of the cancer data."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..data import cancer_projection
from ..exponential import exponential_probabilities
from ..histogram import histogram_mechanism
from .smalldb import histogram_bound
from ..plots import BASELINE, BOUND, EMPIRICAL, UNIFORM, accuracy_vs_theory
from ._layout import fixed_figure, log_minor_125
from ..queries import MarginalWorkload, k_way_marginals
from ..smalldb import candidate_errors, multisets
from ..theory.exponential import exponential_tail_bound
from ..theory.smalldb import net_error_bound, prop44_error_bound, smalldb_size
from ..validation import check_alpha, check_beta, check_epsilon, check_int

__all__ = ["ATTRIBUTES", "CELLS", "EPS_SWEEP", "smalldb_law", "histogram_quantile_at_unit_epsilon", "explore_smalldb"]

#: the 6 + 12 + 8 cells of the 1-, 2- and 3-way marginals of 3 attributes; the chapter uses the first 18
CELLS = tuple(c for k in (1, 2, 3) for c in k_way_marginals(3, k).cells)
EPS_SWEEP = np.geomspace(0.003, 10, 12)


#: chapter 06's table: the cancer rows restricted to these attributes (dpbook.data.cancer_projection), N = 8
ATTRIBUTES = ("radius_high", "texture_high", "malignant")


@functools.lru_cache(typed=True, maxsize=32)
def smalldb_law(m, s, beta):
    """Errors of all s-row candidates on the first m cells, their distinct values, the law over them at a
    given ε, and the exact (1-β)-quantile of SmallDB's error over ``EPS_SWEEP`` (cached per (m, s, β))."""
    small = cancer_projection(ATTRIBUTES)
    err = candidate_errors(small.x, MarginalWorkload(3, CELLS[:m]), multisets(small.N, s))
    levels, which = np.unique(err, return_inverse=True)                     # distinct error values
    law = lambda e: np.bincount(which, weights=exponential_probabilities(-err, epsilon=e, sensitivity=1.0 / small.n))
    quant = [levels[min(np.searchsorted(np.cumsum(law(e)), 1 - beta), levels.size - 1)] for e in EPS_SWEEP]
    return err, levels, law, quant


@functools.lru_cache(typed=True, maxsize=32)
def histogram_quantile_at_unit_epsilon(m, beta, trials=4000, seed=2026) -> float:
    """The (1-β)-quantile of the noisy histogram's max error on the first m cells at ε = 1 (``trials`` draws).

    The histogram's error is ``max_j |q_j · Lap(1/ε)^N| / n``: its law scales exactly like ``1/ε`` and does not
    depend on the data, so the quantile at any ε is this value divided by ε (cached per (m, β)).
    """
    small = cancer_projection(ATTRIBUTES)
    W = MarginalWorkload(3, CELLS[:m])
    released = histogram_mechanism(small.x, W, epsilon=1.0, n=small.n, trials=trials, rng=seed).answers
    return float(np.quantile(np.abs(released - W.answers(small.x)).max(axis=1), 1 - beta))


def explore_smalldb(epsilon=1.0, alpha=0.5, m=18, beta=0.05):
    """Exact error law of SmallDB (DR-Alg4) against DR-Thm3.11's tail and DR-Prop4.4 / the net bound.

    Left: ``P[error >= t]`` computed over the whole range (no sampling) against ``|R| exp(-εn(t-OPT)/2)``.
    Right: the exact (1-β)-quantile against ε with both bounds, chapter 03's noisy histogram at the same ε
    (its (1-β)-quantile, sampled once at ε = 1 and scaled by 1/ε, which is exact in law) and the uniform guess.
    """
    epsilon, alpha, beta = check_epsilon(epsilon), check_alpha(alpha), check_beta(beta)
    m = check_int("m", m, low=3, high=len(CELLS))
    small = cancer_projection(ATTRIBUTES)
    n = small.n
    s = smalldb_size(m, alpha)
    err, levels, law, quant = smalldb_law(m, s, beta)
    tail = np.cumsum(law(epsilon)[::-1])[::-1]                                # P[error >= levels[i]]
    opt, size = levels[0], err.size
    fig, (left, right) = fixed_figure(2, width=10, height=4.8, left=0.75, right=0.2, bottom=1.35, top=0.3, wspace=0.85)
    left.step(levels, tail, where="post", color=EMPIRICAL, label="exact P[error ≥ t]")
    t_max = min(1.0, opt + 2 * (math.log(size) + 6 * math.log(10)) / (epsilon * n))  # where the bound hits 1e-6
    t = np.linspace(opt, t_max, 100)
    left.plot(t, exponential_tail_bound(t - opt, size, epsilon, 1.0 / n), color=BOUND, label="|R| exp(−εn(t−OPT)/2)")
    left.set_yscale("log"); left.set_ylim(1e-6, 1.5); left.set_xlim(0, 1.1 * t_max)
    left.set_xlabel("t (max error)"); left.set_ylabel("probability")
    left.legend(loc="upper left", bbox_to_anchor=(-0.1, -0.16), borderaxespad=0.0)
    left.set_title(f"ε={epsilon:.3g}, α={alpha:.3g}: s={s}, |R|={size:,}, m={m}")
    accuracy_vs_theory(EPS_SWEEP, quant, [net_error_bound(opt, size, e, n, beta) for e in EPS_SWEEP], ax=right,
                       logx=True, logy=True, xlabel="ε", ylabel=f"{1 - beta:.3g}-quantile of the error",
                       empirical_label="exact quantile", bound_label="OPT + 2(ln|R|+ln 1/β)/(εn)")
    right.plot(EPS_SWEEP, [prop44_error_bound(small.N, m, alpha, e, n, beta) for e in EPS_SWEEP], "--",
               color=BOUND, label="DR-Prop4.4")
    h1 = histogram_quantile_at_unit_epsilon(m, beta)
    right.plot(EPS_SWEEP, h1 / EPS_SWEEP, "D-", color=BASELINE, ms=4, label="noisy histogram (ch. 03)")
    right.plot(EPS_SWEEP, [histogram_bound(small.N, m, beta, e, n) for e in EPS_SWEEP], "-.", color=BASELINE,
               lw=1.5, label="histogram bound")
    W = MarginalWorkload(3, CELLS[:m])
    right.axhline(np.abs(W.answers(np.ones(small.N)) - W.answers(small.x)).max(), color=UNIFORM, ls="--",
                  label="uniform guess")
    right.axvline(epsilon, color="k", lw=0.8, ls=":")
    right.set_ylim(0.005, 20)
    log_minor_125(left, right)
    right.legend(loc="upper right", bbox_to_anchor=(1.0, -0.16), borderaxespad=0.0, ncols=2, columnspacing=1.0)
    return fig
