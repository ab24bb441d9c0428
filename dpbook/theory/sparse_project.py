"""Bounds for SparseProject: sparse queries over huge universes (S1-*, after Blum & Roth 2013; chapter 15).

Units: answers are normalised (divided by the public ``n``) unless a name says ``counts``.  ``ln`` is the natural
log.  Neighbours: add/remove one record.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import EPSILON_EXP_MAX, check_beta, check_delta, check_epsilon, check_int, check_real
from .composition import advanced_composition
from .registry import Result

__all__ = [
    "sparse_project_tau", "sparse_project_ell", "sparse_project_ell_seed_form", "sparse_project_sigma",
    "hash_independence", "sparse_project_epsilon", "thm2_alpha", "jl_variance", "jl_error_bound",
    "noise_error_bound", "laplace_direct_error_bound", "memory_words", "histogram_memory_bytes",
    "gaussian_direct_error_bound", "practical_error_bound",
]

_SOURCE = ("A. Blum and A. Roth, Fast Private Data Release Algorithms for Sparse Queries, APPROX-RANDOM 2013 "
           "(via R. Tutunov's lecture-blog summary)")


def _check_delta_open(delta) -> float:
    return check_delta(delta, positive=True)


def sparse_project_tau(beta, m) -> float:
    """``τ = β/(4m)`` (S1-Alg): the per-event failure probability of the union bound over ``m`` queries (S1-E9)."""
    return check_beta(beta) / (4.0 * check_int("m", m, low=1))


def sparse_project_ell(n, s, m, beta) -> float:
    """S1-Alg's dimension ``ℓ = 2·64²·ln(1/τ)·(s + n²)²/sqrt(s)`` (a real number; astronomical for real ``n``)."""
    n, s = check_int("n", n, low=1), check_int("s", s, low=1)
    tau = sparse_project_tau(beta, m)
    return 2.0 * 64 ** 2 * math.log(1.0 / tau) * (s + n ** 2) ** 2 / math.sqrt(s)


def sparse_project_ell_seed_form(n, s, m, beta) -> float:
    """The seed's unsimplified form ``4·64²·ln(1/τ)(s^{3/2}/2 + n⁴/(2 sqrt s) + sqrt(s) n²)`` (equal to
    :func:`sparse_project_ell`; the test checks the identity)."""
    n, s = check_int("n", n, low=1), check_int("s", s, low=1)
    tau = sparse_project_tau(beta, m)
    return 4.0 * 64 ** 2 * math.log(1.0 / tau) * (s ** 1.5 / 2 + n ** 4 / (2 * math.sqrt(s)) + math.sqrt(s) * n ** 2)


def sparse_project_sigma(epsilon, delta) -> float:
    """``σ = ε/sqrt(8 ln(1/δ))`` (S1-Alg): an *inverse* scale — each coordinate gets ``Lap(1/σ)``."""
    epsilon, delta = check_epsilon(epsilon), _check_delta_open(delta)
    return epsilon / math.sqrt(8.0 * math.log(1.0 / delta))


def hash_independence(m, ell, beta) -> int:
    """``r = ⌈2 ln(mℓ/(2β))⌉`` (S1-Alg; the seed's log base is unstated, we read it as ``ln``), at least 2."""
    m, ell, beta = check_int("m", m, low=1), check_int("ell", ell, low=1, exact=False), check_beta(beta)
    return max(2, math.ceil(2.0 * math.log(m * ell / (2.0 * beta))))


def sparse_project_epsilon(epsilon, delta, ell) -> float:
    """The ε SparseProject actually achieves (S1-Thm1's proof): ``ℓ`` coordinates, each ``σ/sqrt(ℓ)``-DP (one
    record moves ``u_i`` by ``±1/sqrt(ℓ)``, noise ``Lap(1/σ)``), composed by advanced composition (DR-Thm3.20)
    with slack ``δ``.  At most ``ε/2 + ε²/(4 ln(1/δ))``, which is ``<= ε`` when ``ε <= 2 ln(1/δ)``."""
    check_epsilon(epsilon, high=EPSILON_EXP_MAX)
    epsilon0 = sparse_project_sigma(epsilon, delta) / math.sqrt(check_int("ell", ell, low=1))
    return advanced_composition(epsilon0, ell, delta)[0]


def thm2_alpha(n, s, m, beta, epsilon, delta) -> float:
    """S1-Thm2's rate with its hidden factor written out and constant 1:
    ``ln(m/β) · sqrt(s ln(1/δ))/(ε n) · ln(s + n)`` — a *shape* (the paper's constant was not recovered)."""
    n, s, m = check_int("n", n, low=1), check_int("s", s, low=1), check_int("m", m, low=1)
    beta, epsilon, delta = check_beta(beta), check_epsilon(epsilon), _check_delta_open(delta)
    return math.log(m / beta) * math.sqrt(s * math.log(1.0 / delta)) / (epsilon * n) * math.log(s + n)


def jl_variance(q_sq_norm, d_sq_norm, ell) -> float:
    """Bound on ``Var⟨AQ, AD⟩`` for 4-wise independent signs: ``2‖Q‖²‖D‖²/ℓ`` (counts², S1-Thm2 [DERIVED])."""
    q = check_real("q_sq_norm", q_sq_norm, low=0.0)
    d = check_real("d_sq_norm", d_sq_norm, low=0.0)
    return 2.0 * q * d / check_int("ell", ell, low=1, exact=False)


def jl_error_bound(q_sq_norm, d_sq_norm, ell, n, m, beta) -> float:
    """The JL part of the error, all ``m`` queries at once with probability ``>= 1 - β/2`` (normalised):
    Chebyshev with :func:`jl_variance` at ``β/(2m)`` per query: ``sqrt(2‖Q‖²‖D‖²/ℓ · 2m/β)/n``.
    Needs only 4-wise independent signs; with the polynomial hash that means ``r >= 8`` (below 8 two columns of
    ``A`` coincide with probability ``>= 1/ℓ``; chapter 15 uses ``r = 8``).  ``q_sq_norm`` is the largest
    ``‖Q‖²``."""
    m, beta, n = check_int("m", m, low=1), check_beta(beta), check_int("n", n, low=1)
    return math.sqrt(jl_variance(q_sq_norm, d_sq_norm, ell) * 2.0 * m / beta) / n


def noise_error_bound(aq_norm2, aq_norm_inf, epsilon, delta, n, m, beta) -> float:
    """The noise part ``|⟨AQ, v⟩|/n``, all ``m`` queries with probability ``>= 1 - β/2``, ``v_i ~ Lap(1/σ)``.

    Chernoff with ``ln E e^{λ Lap(b)} <= 1.5 λ²b²`` for ``|λ| b <= 1/sqrt(3)``: per query and side, at
    ``β' = β/(4m)``, the bound is ``b ‖a‖₂ sqrt(6 ln(1/β'))`` (S1-Thm2 [DERIVED], the IDC-Thm6.5 form) while
    that stays ``<= sqrt(3) b ‖a‖₂²/‖a‖_∞``, else ``sqrt(3) b ‖a‖_∞ (ln(1/β') + ‖a‖₂²/(2‖a‖_∞²))``.
    ``aq_norm2``/``aq_norm_inf``: ``‖AQ‖₂`` and ``‖AQ‖_∞`` of the query (arrays allowed: one bound per query).
    """
    a2 = np.asarray(aq_norm2, dtype=np.float64)
    ainf = np.asarray(aq_norm_inf, dtype=np.float64)
    if not (np.all(np.isfinite(a2)) and np.all(np.isfinite(ainf))) or np.any(a2 < 0) or np.any(ainf < 0):
        raise ValueError("aq_norm2 and aq_norm_inf must be finite and >= 0")
    n, m, beta = check_int("n", n, low=1), check_int("m", m, low=1), check_beta(beta)
    b = 1.0 / sparse_project_sigma(epsilon, delta)
    log_term = math.log(4.0 * m / beta)
    gaussian_like = b * a2 * math.sqrt(6.0 * log_term)
    with np.errstate(divide="ignore", invalid="ignore"):
        regime = gaussian_like <= math.sqrt(3.0) * b * np.where(ainf > 0, a2 ** 2 / ainf, np.inf)
        tail = math.sqrt(3.0) * b * ainf * (log_term + np.where(ainf > 0, a2 ** 2 / (2 * ainf ** 2), 0.0))
    out = np.where(regime, gaussian_like, tail) / n
    return float(out) if out.ndim == 0 else out


def laplace_direct_error_bound(m, beta, sensitivity, epsilon, n) -> float:
    """The baseline: Laplace on the ``m`` counts, ``ln(m/β)·Δ/(ε n)`` (DR-Thm3.8 ≡ LEC3-3.3), ``Δ`` the
    workload's L1 sensitivity — up to ``m`` when the queries share a record."""
    from .laplace import laplace_max_error_bound
    return laplace_max_error_bound(m, beta, sensitivity, epsilon) / check_int("n", n, low=1)


def memory_words(ell, support, r) -> int:
    """Words held by a SparseProject release and its build: ``u + v`` (``ℓ``), the hash (``r``), the
    database (``2·|support|``): ``O(ℓ + n + r)``; the build streams ``A`` in blocks (``O(ℓ·r·κ/64)`` words of
    bits), never ``ℓ·|X|``."""
    ell, support, r = check_int("ell", ell, low=1, exact=False), check_int("support", support, low=0), check_int("r", r, low=1)
    return ell + r + 2 * support


def histogram_memory_bytes(N) -> int:
    """Bytes of a dense float64 histogram over ``N`` elements (what the noisy-histogram approach needs)."""
    return 8 * check_int("N", N, low=1)


RESULTS = (
    Result(id="S1-Def1", title="s-sparse linear queries",
           statement="A linear query $Q:X\\to[0,1]$ is $s$-sparse if it is non-zero on at most $s$ elements of the "
                     "universe, and those elements can be listed quickly.",
           chapter="15_sparse_queries", section="1. The setting: 32-bit records, sparse queries, no histogram",
           implemented_by=("dpbook.sparse_project.SparseQueryWorkload",), source=_SOURCE + "; erratum S1-E4"),
    Result(id="S1-Def6", title="Random-projection data structure",
           statement="A release is $(u, f)$: $u\\in\\mathbb R^\\ell $ and a hash $f$ that stands for "
                     "$A[i,x]=f(N(i-1)+x)\\in\\{\\pm1/\\sqrt \\ell \\}$; a query is answered as "
                     "$\\langle A Q, u\\rangle / n$ in $O(mT)$ hash evaluations.",
           chapter="15_sparse_queries", section="2. S1-Def6: the projection that is never stored",
           implemented_by=("dpbook.hashing.PolynomialSignHash", "dpbook.sparse_project.SparseProjectRelease"),
           source=_SOURCE),
    Result(id="S1-Alg", title="SparseProject",
           statement="Project the database with an $r$-wise independent sign matrix of dimension $\\ell $, add "
                     "$\\mathrm{Lap}(\\sqrt{8\\ln(1/\\delta)}/\\varepsilon)$ to each coordinate, release the noisy "
                     "projection with the hash.",
           chapter="15_sparse_queries", section="3. S1-Alg: SparseProject",
           implemented_by=("dpbook.sparse_project.sparse_project", "dpbook.sparse_project.sparse_project_gaussian"),
           bounds=("dpbook.theory.sparse_project.sparse_project_ell", "dpbook.theory.sparse_project.sparse_project_sigma",
                   "dpbook.theory.sparse_project.hash_independence"),
           source=_SOURCE + "; errata S1-E6, S1-E7, S1-E8"),
    Result(id="S1-Thm1", title="SparseProject is (ε, δ)-DP",
           statement="For $0<\\varepsilon,\\delta<1$ (the proof needs $\\varepsilon\\le 2\\ln(1/\\delta)$) the "
                     "release is $(\\varepsilon,\\delta)$-DP under add/remove neighbours, whatever $\\ell $ and hash.",
           chapter="15_sparse_queries", section="4. S1-Thm1: privacy, whatever ℓ",
           implemented_by=("dpbook.sparse_project.sparse_project",),
           bounds=("dpbook.theory.sparse_project.sparse_project_epsilon",), source=_SOURCE + "; errata S1-E3, S1-E5"),
    Result(id="S1-Thm2", title="SparseProject accuracy for m s-sparse queries",
           statement="With probability $1-\\beta$ all $m$ $s$-sparse queries are answered within "
                     "$\\tilde O(\\log(m/\\beta)\\sqrt{s\\log(1/\\delta)}/(\\varepsilon n))$, the tilde hiding "
                     "$\\log(s+n)$; the error is a JL part (shrinks like $1/\\sqrt \\ell $) plus a noise part (does not "
                     "depend on $\\ell $).",
           chapter="15_sparse_queries", section="5. S1-Thm2: accuracy at a practical ℓ",
           implemented_by=("dpbook.sparse_project.SparseProjectRelease.evaluate",),
           bounds=("dpbook.theory.sparse_project.thm2_alpha", "dpbook.theory.sparse_project.jl_error_bound",
                   "dpbook.theory.sparse_project.noise_error_bound"),
           source=_SOURCE + "; errata S1-E2, S1-E9"),
    Result(id="S1-E1", title="Erratum: D[x] is a count",
           statement="$D[x]=|\\{x'\\in D:x'=x\\}|$, the number of copies of $x$ (the seed omits the bars).",
           chapter="15_sparse_queries", section="3. S1-Alg: SparseProject", source=_SOURCE),
    Result(id="S1-E4", title="Erratum: a typo in the definition of sparse queries",
           statement="Definition 1 reads \"we ca quickly\": it means that a query's non-zero entries can be listed "
                     "quickly (in time polynomial in $s$ and $\\log|X|$), which is what the workload's `query_support` does.",
           chapter="15_sparse_queries", section="3. S1-Alg: SparseProject", source=_SOURCE),
    Result(id="S1-E10", title="Erratum: the index set of the projection",
           statement="$(i,j)\\in[\\ell ]\\times[N]$ and $A[i,j]=f(N(i-1)+j)$ (the seed: $\\ell \\times|X|$ and $f:(\\cdot)$).",
           chapter="15_sparse_queries", section="2. S1-Def6: the projection that is never stored", source=_SOURCE),
    Result(id="S1-E2", title="Erratum: accuracy is max error ≤ α",
           statement="The seed writes $\\ge\\alpha$ in the definition of accuracy; it is $\\le\\alpha$.",
           chapter="15_sparse_queries", section="5. S1-Thm2: accuracy at a practical ℓ", source=_SOURCE),
    Result(id="S1-E6", title="Erratum: the projection line of SparseProject",
           statement="$u_i=\\sum_{x:D[x]>0}D[x]A[i,x]$ (the seed has a stray max and a missing bracket).",
           chapter="15_sparse_queries", section="3. S1-Alg: SparseProject", source=_SOURCE),
    Result(id="S1-E7", title="Erratum: the field size",
           statement="The field is $GF(2^\\kappa)$ with $\\kappa$ the smallest integer such that $2^\\kappa\\ge \\ell \\cdot|X|$ "
                     "(the seed has $\\le$), so every point embeds in the field.",
           chapter="15_sparse_queries", section="2. S1-Def6: the projection that is never stored", source=_SOURCE),
    Result(id="S1-E8", title="Erratum: degree and cost of the hash",
           statement="A random polynomial of degree $r-1$ already gives $r$-wise independence; storing it takes "
                     "$O(r\\kappa)$ bits for a field $GF(2^\\kappa)$ (the seed: degree $r$, $O(r,\\kappa)$).",
           chapter="15_sparse_queries", section="2. S1-Def6: the projection that is never stored", source=_SOURCE),
    Result(id="S1-E9", title="Erratum: the size of the query class",
           statement="Theorem 2 is for classes of at most $m$ queries (the seed: at least $m$); the union bound "
                     "uses $\\tau=\\beta/(4m)$.",
           chapter="15_sparse_queries", section="5. S1-Thm2: accuracy at a practical ℓ", source=_SOURCE),
)


def gaussian_direct_error_bound(m, beta, l2_sensitivity, epsilon, delta, n) -> float:
    """The (ε, δ) baseline: the Gaussian mechanism on the ``m`` counts with the analytic calibration (the smallest
    σ for ``l2_sensitivity`` at (ε, δ), any ε > 0) and ``P[max_j |Z| >= σ sqrt(2 ln(2m/β))] <= β`` (PROJ-R1):
    ``σ sqrt(2 ln(2m/β)) / n``.  ``l2_sensitivity`` is the workload's exact L2 sensitivity ``max_x ‖Q e_x‖₂``
    — up to ``sqrt(m)`` when the queries share a record."""
    from .gaussian import analytic_gaussian_sigma, gaussian_max_error_bound
    m, n = check_int("m", m, low=1), check_int("n", n, low=1)
    sigma = analytic_gaussian_sigma(l2_sensitivity, epsilon, delta)
    return gaussian_max_error_bound(m, beta, sigma) / n


def practical_error_bound(q_sq_norm, s, d_sq_norm, ell, n, m, beta, epsilon, delta) -> float:
    """Chapter 15's practical bound for SparseProject at projection dimension ``ℓ``, all ``m`` queries at once
    with probability ``>= 1 - β``: :func:`jl_error_bound` plus :func:`noise_error_bound` (each at ``β/2``),
    evaluated *before* the hash is drawn — ``‖AQ‖₂² = ‖Q‖₂² = q_sq_norm`` (its expectation) and
    ``‖AQ‖_∞ <= ‖Q‖₁/sqrt(ℓ) <= s/sqrt(ℓ)``.  Normalised answers."""
    s, ell = check_int("s", s, low=1), check_int("ell", ell, low=1, exact=False)
    q = check_real("q_sq_norm", q_sq_norm, low=0.0)
    noise = noise_error_bound(math.sqrt(q), s / math.sqrt(ell), epsilon, delta, n, m, beta)
    return jl_error_bound(q, d_sq_norm, ell, n, m, beta) + float(noise)
