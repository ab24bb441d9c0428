"""Broken SparseProject variants: positive controls for chapter 15's audits.  Never release with these.

* :func:`sparse_project_no_composition` — calibrates each coordinate's noise as if it were the only release,
  ``Lap(1/ε)`` instead of ``Lap(sqrt(8 ln(1/δ))/ε)`` (σ without the ``sqrt(8 ln 1/δ)`` that pays for advanced
  composition over the ``ℓ`` coordinates), yet claims ``(ε, δ)``.  The projected statistic ``⟨A e_x, y⟩`` then
  moves by 1 against noise of standard deviation ``sqrt(2)/ε``: about ``ε/sqrt(2)`` standard deviations, far more
  than ``(ε, δ)`` allows at small δ.  The 1-D audit catches it.
"""
from __future__ import annotations

import math

from ..noise import laplace_noise
from ..release import Ledger, Spend
from ..data import record_pool, synthetic_records
from ..sparse_project import SparseProjectRelease, project_database, sparse_project_parameters
from ..hashing import PolynomialSignHash
from ..contract import example, mechanism_prologue

__all__ = ["sparse_project_no_composition"]


def sparse_project_no_composition(D, *, epsilon, delta, beta, s, m, n, ell=None, r=None, trials=None, rng=None,
                                  sampler=laplace_noise) -> SparseProjectRelease:
    """WRONG: noise ``Lap(1/ε)`` per coordinate (no ``sqrt(8 ln(1/δ))``) for a caller's ``(ε, δ)`` (S1-Thm1
    violated): the release spends far more than ``ε`` (its ledger's claim)."""
    D, beta, s, m, n, ell, r, trace = sparse_project_parameters(D, beta=beta, s=s, m=m, n=n, ell=ell, r=r, trials=trials)
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, sampler=sampler, trials=trials, per_release=(ell,),
                           positive_delta=True, family="laplace", lattice_ok=False)
    epsilon, delta, rng, noise, shape = p.epsilon, p.delta, p.rng, p.noise, p.shape
    sigma = epsilon                                   # the bug: should be epsilon / sqrt(8 ln(1/delta))
    f = PolynomialSignHash.sample(r, ell, D.N, rng)
    u = project_database(D, f)
    v = noise(1.0 / sigma, shape, rng)
    # the steps as drawn (Lap(1/ε) on ℓ coordinates) and DR-Thm3.20: the claim they compose to is far above the ε
    # the caller asked for (chapter 15's check), which the audit catches at (ε, δ)
    ledger = Ledger((Spend(f"laplace on coordinate {i + 1} of the projection", sigma / math.sqrt(ell)) for i in range(ell)),
                    rule="advanced", delta_prime=delta)
    return SparseProjectRelease(u + v, f, n, s, m, "broken sparse_project (no composition)",
                                1.0 / sigma, ledger, dict(trace, sigma=sigma))


example(sparse_project_no_composition, lambda: dict(D=synthetic_records(500, record_pool(64, 32, rng=7), rng=1),
                                                    epsilon=1.0, delta=1e-5, beta=0.1, s=5, m=20, n=500, ell=64, r=4, rng=1))
