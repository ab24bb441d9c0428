"""Answers to chapter 09's exercises (multiplicative weights and MWEM).

09.1 is exact (no noise).  09.3 is a Monte-Carlo value (the median over 8 runs of MWEM's max error with a
Laplace-estimated n), computed here with the worked solution's seeds.  Over 12 other seeds (1–12) that median
ranged 0.2503–0.2551 (mean 0.2529, standard deviation 0.0015, i.e. 0.6 %); rtol = 3 % is more than 3× the spread,
so a student's run with any seed is judged right.  Exercise 2 compares two columns of the chapter's sweep and asks
which one the analysis needs (prose): no key.
"""
from __future__ import annotations

import numpy as np

from ..data import load_cancer
from ..laplace import laplace_mechanism
from ..multiplicative_weights import marginal_cell_update, uniform_hypothesis
from ..mwem import mwem
from ..queries import k_way_marginals
from ._registry import register

_SEED = 2026


@register("09.1", hint="repeat: find the two-way cell with the largest error of the hypothesis; stop when it is below "
                       "α = 0.05; otherwise multiply that cell's slab by exp(−error/2) (marginal_cell_update) and count",
          rtol=0.01)
def mwem_step_updates() -> float:
    """The number of MW updates with MWEM's step to reach α = 0.05 on the 220 two-way cells (exact answers)."""
    data = load_cancer()
    W2 = k_way_marginals(11, 2)
    true2 = W2.counts(data.x / data.n)
    p, k = uniform_hypothesis(data.N), 0
    while True:
        err = W2.counts(p) - true2
        j = int(np.argmax(np.abs(err)))
        if abs(err[j]) < 0.05:
            return float(k)
        attrs, vals = W2.cells[j]
        p = marginal_cell_update(p, 11, attrs, vals, -err[j] / 2)
        k += 1


@register("09.3", hint="estimate n with laplace_mechanism at ε/10 (8 trials), round it, run mwem at 0.9ε with T = 10 "
                       "and n = the estimate, and take the median over the 8 runs of the max error on the 220 cells",
          rtol=0.03)
def estimated_n_error() -> float:
    """The median over 8 runs of MWEM's max error when n is estimated with ε/10 (ε = 1, T = 10, two-way cells)."""
    data = load_cancer()
    W2 = k_way_marginals(11, 2)
    true2 = W2.counts(data.x / data.n)
    count = laplace_mechanism(data.x, np.ones((1, data.N)), epsilon=0.1, n=1, trials=8, rng=_SEED + 4)
    n_hats = np.maximum(1, np.rint(count.answers[:, 0])).astype(int)
    errs = [np.abs(mwem(data.x, W2, epsilon=0.9, T=10, n=int(n_hat), rng=_SEED + 40 + i).answers - true2).max()
            for i, n_hat in enumerate(n_hats)]
    return float(np.median(errs))
