"""Audit cases: SparseProject (chapter 15)."""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import first_sample, leq0

__all__: list[str] = []    # factories register themselves; nothing to import


#
# A 1-D audit of the release y = u + v: project it on the column a = A e_x of the record x that the neighbour
# adds (a is public: the release carries the hash f) and centre it at D's projection, s = ⟨a, y - A D⟩.  Under D,
# s = ⟨a, v⟩; under D' = D + e_x, s = ‖a‖² + ⟨a, v⟩ = 1 + ⟨a, v⟩ (‖a‖₂ = 1 exactly).  The event is s >= c/ε.
# ℓ = 16 keeps the 1M-trial audits under a second; the statistic's law does not depend on the hash.

_SP_N = 1 << 32
_SP_X, _SP_ADDED = 12345, 987654321
_SP_ELL = 16
_PAIR_SP = (f"D = {{x0}} vs D' = {{x0, x1}} over N = 2^32 (x1 added), public n = 1, ℓ = {_SP_ELL}, r = 4; "
            "statistic <A e_x1, y - A D>")


def _sp_statistic(fn, D, epsilon, delta):
    from ...sparse_project import project_database

    def sample(trials, rng):
        release = fn(D, epsilon=epsilon, delta=delta, beta=0.1, s=1, m=1, n=1, ell=_SP_ELL, r=4, trials=trials, rng=rng)
        from ...data import SparseHistogram
        base = SparseHistogram(_SP_N, np.array([_SP_X]), np.array([1]))
        a = release.f.matrix(np.array([_SP_ADDED]))[:, 0]
        return (release.y - project_database(base, release.f)) @ a
    return sample


def _sp_case(name, fn, epsilon, delta, trials, kind):
    from ...data import SparseHistogram
    D = SparseHistogram(_SP_N, np.array([_SP_X]), np.array([1]))
    D_prime = SparseHistogram(_SP_N, np.array([_SP_X, _SP_ADDED]), np.array([1, 1]))
    events = {f"<a, y - AD> >= {c}/ε": (lambda c: (lambda stat: stat >= c / epsilon))(c) for c in (2, 3, 4)}
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, delta, _sp_statistic(fn, D, epsilon, delta),
                     _sp_statistic(fn, D_prime, epsilon, delta), events, trials, _PAIR_SP, kind, None)


@register("sparse_project")
def _case_sparse_project(epsilon=1.0, delta=1e-5):
    """S1-Alg with Laplace noise: the shift 1 against noise of std 4 sqrt(ln(1/δ))/ε — private with room."""
    from ...sparse_project import sparse_project
    return _sp_case("SparseProject (S1-Alg)", sparse_project, epsilon, delta, 1_000_000, "mechanism")


@register("sparse_project_gaussian")
def _case_sparse_project_gaussian(epsilon=0.9, delta=1e-5):
    from ...sparse_project import sparse_project_gaussian
    return _sp_case("SparseProject, Gaussian noise (ℓ2 sensitivity 1)", sparse_project_gaussian, min(epsilon, 0.99),
                    delta, 1_000_000, "mechanism")


@register("sparse_project_no_composition")
def _case_sparse_project_no_composition(epsilon=1.0, delta=1e-5):
    """Lap(1/ε) per coordinate: the shift is ε/sqrt(2) noise standard deviations; (ε, 1e-5) cannot hold."""
    from ...broken.sparse_project import sparse_project_no_composition
    return _sp_case("SparseProject without sqrt(8 ln 1/δ) in σ", sparse_project_no_composition, epsilon, delta,
                    1_000_000, "control")


@register("laplace_sparse_queries")
def _case_laplace_sparse_queries(epsilon=1.0):
    """The baseline on one 1-sparse query counting x1: count 0 vs 1, event answer <= 0 (loss exactly ε)."""
    from ...data import SparseHistogram
    from ...sparse_project import SparseQueryWorkload, laplace_sparse_queries
    W = SparseQueryWorkload(_SP_N, [[(_SP_ADDED, 1.0)]])
    D = SparseHistogram(_SP_N, np.array([_SP_X]), np.array([1]))
    D_prime = SparseHistogram(_SP_N, np.array([_SP_X, _SP_ADDED]), np.array([1, 1]))
    stat = lambda x: first_sample(laplace_sparse_queries, x, W, epsilon=epsilon, n=1)
    return AuditCase("Laplace on sparse queries (baseline)", "dpbook.sparse_project.laplace_sparse_queries", epsilon,
                     0.0, stat(D), stat(D_prime), {"answer <= 0": leq0}, 200_000,
                     "D = {x0} vs D' = {x0, x1} over N = 2^32, one query counting x1, public n = 1", "mechanism",
                     epsilon)
