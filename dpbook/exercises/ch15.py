"""Answers to chapter 15's exercises (SparseProject).

All four answers are exact (closed forms and a seeded check of the hash's Gram matrix); 15.4 asks for the predicted
factor, and its tolerance (3 %) also accepts the measured one (2.80 on the chapter's data, within a few percent of
the prediction).
"""
from __future__ import annotations

import math

import numpy as np

from ..hashing import PolynomialSignHash
from ..theory import sparse_project as th
from ._registry import register


@register("15.1", hint="th.sparse_project_ell(n, s, m, β) is the theorem's ℓ = 2·64²·ln(4m/β)·(s + n²)²/√s",
          rtol=0.005)
def theorem_ell() -> float:
    """The theorem's ℓ at n = 100, s = 10, m = 100, β = 0.1."""
    return float(th.sparse_project_ell(100, 10, 100, 0.1))


@register("15.2", hint="for r = 4, 5, …: sample PolynomialSignHash.sample(r, ℓ, N, rng=…) at ℓ = 2^7, form ℓ·AᵀA on 50 "
                       "random columns, and look for off-diagonal entries of size ℓ", rtol=0.01)
def smallest_good_r() -> float:
    """The smallest r for which no two of 50 random columns of the sign hash (ℓ = 2^7) are ±identical or orthogonal."""
    N = 1 << 32
    cols = np.unique(np.random.default_rng(3).integers(0, N, size=50, dtype=np.int64))
    off = ~np.eye(cols.size, dtype=bool)
    for r in range(4, 12):
        A = PolynomialSignHash.sample(r, 128, N, rng=4).matrix(cols)
        if np.abs(np.round(128 * (A.T @ A)[off])).max() < 128:
            return float(r)
    raise RuntimeError("no r up to 11 breaks the pattern")


@register("15.3", hint="equate √(2/ℓ)·√s·√n/n with √2·b·√s/n and solve for ℓ; b = √(8 ln(1/δ))/ε", rtol=0.01)
def crossover_ell() -> float:
    """The ℓ at which the JL part equals the noise part for distinct rows (n = 10⁴, ε = 1, δ = 1e-5)."""
    return 10_000 / (8 * math.log(1e5))


@register("15.4", hint="compare the per-coordinate standard deviations √2·√(8 ln(1/δ))/ε and √(2 ln(1.25/δ))/ε",
          rtol=0.03)
def gaussian_noise_factor() -> float:
    """The factor by which the Gaussian variant's noise part is smaller than the Laplace variant's at δ = 1e-5."""
    return math.sqrt(16 * math.log(1e5)) / math.sqrt(2 * math.log(1.25e5))
