"""Bounds for the projection mechanism and the widths of ``K_Q`` (PROJ-*, after Nikolov, Talwar & Zhang
2013; chapter 13).

Noise convention: the Gaussian step adds ``N(0, σ² I_m)`` to the normalised answers; PROJ's calibration is
``σ = σ_{ε,δ} sqrt(m) / n`` with ``σ_{ε,δ} = sqrt(2 ln(1.25/δ)) / ε`` (replace-one, ``Δ2 = sqrt(m)/n``).  The
mechanism of :mod:`dpbook.projection` calibrates on the workload's exact (smaller or equal) sensitivity; every
bound below that takes ``sigma`` holds for the σ actually used, and the ``n``-forms are PROJ's statements.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, ndtr

from ..validation import check_alpha, check_int, check_real
from .gaussian import sigma_epsilon_delta
from .registry import Result

__all__ = ["expected_gaussian_norm", "gaussian_width_bound", "gaussian_width_bound_seed", "projection_mse_bound",
           "thm9_rms_bound", "thm9_sample_size", "thm5_rms_bound", "thm5_sample_size", "simplex_gaussian_width",
           "cube_gaussian_width"]


def expected_gaussian_norm(m) -> float:
    """``E||g||_2 = sqrt(2) Γ((m+1)/2) / Γ(m/2)`` for ``g ~ N(0, I_m)``, in ``[m/sqrt(m+1), sqrt(m)]``
    (PROJ-Def7/Def8: ``ℓ*(K) = E||g|| · M*(K)``)."""
    m = check_int("m", m, low=1)
    return math.sqrt(2.0) * math.exp(gammaln((m + 1) / 2) - gammaln(m / 2))


def gaussian_width_bound(m, N, radius=None) -> float:
    """PROJ-Lemma (corrected, erratum PROJ-E1): ``ℓ*(K_Q) <= R (sqrt(2 ln N) + sqrt(π/2))``, ``R = sqrt(m)``.

    The proof uses only ``||s||_2 <= R`` for the ``N`` points of ``S_Q`` (``R = sqrt(m)`` for queries in
    ``[0, 1]``), the one-sided Gaussian tail (PROJ-E2) and the split of ``∫ P[h >= s] ds`` at ``R sqrt(2 ln N)``.
    """
    m, N = check_int("m", m, low=1), check_int("N", N, low=1)
    R = math.sqrt(m) if radius is None else check_real("radius", radius, low=0.0, low_open=True)
    return R * (math.sqrt(2.0 * math.log(N)) + math.sqrt(math.pi / 2))


def gaussian_width_bound_seed(m, N) -> float:
    """The source's bound ``sqrt(m)(sqrt(π/2) + 2 ln N)`` (PROJ-E1): valid, but it does not give
    ``O(sqrt(m log N))`` — shown beside the corrected :func:`gaussian_width_bound`."""
    m, N = check_int("m", m, low=1), check_int("N", N, low=1)
    return math.sqrt(m) * (math.sqrt(math.pi / 2) + 2.0 * math.log(N))


def projection_mse_bound(sigma, gaussian_width, m) -> float:
    """PROJ-Thm9 with the σ actually used: ``E (1/m) ||ŷ − y||² <= 2 σ ℓ*(K_Q) / m``.

    From PROJ-Key lemma: ``||ŷ − y||² <= h_K(w) + h_K(−w)`` with ``w = σ g``, and both terms have mean ``σ ℓ*``.
    """
    sigma = check_real("sigma", sigma, low=0.0, low_open=True)
    ell = check_real("gaussian_width", gaussian_width, low=0.0)
    m = check_int("m", m, low=1)
    return 2.0 * sigma * ell / m


def thm9_rms_bound(sigma, gaussian_width, m) -> float:
    """PROJ-Thm9's average (RMS) error bound ``sqrt(2 σ ℓ*(K_Q) / m)`` (PROJ-Def4)."""
    return math.sqrt(projection_mse_bound(sigma, gaussian_width, m))


def thm9_sample_size(alpha, epsilon, delta, gaussian_width, m) -> float:
    """PROJ-Thm9 as a sample size: average error ``<= α`` once ``n >= 2 σ_{ε,δ} ℓ*(K_Q) / (α² sqrt(m))``
    (PROJ's calibration ``σ = σ_{ε,δ} sqrt(m)/n``; ``ε < 1``)."""
    alpha = check_alpha(alpha)
    ell = check_real("gaussian_width", gaussian_width, low=0.0)
    m = check_int("m", m, low=1)
    return 2.0 * sigma_epsilon_delta(epsilon, delta) * ell / (alpha ** 2 * math.sqrt(m))


def thm5_rms_bound(epsilon, delta, n, N) -> float:
    """PROJ-Thm5: average error ``<= sqrt(2 σ_{ε,δ} (sqrt(2 ln N) + sqrt(π/2)) / n)`` — no ``m`` in it."""
    n, N = check_int("n", n, low=1), check_int("N", N, low=1)
    return math.sqrt(2.0 * sigma_epsilon_delta(epsilon, delta)
                     * (math.sqrt(2.0 * math.log(N)) + math.sqrt(math.pi / 2)) / n)


def thm5_sample_size(alpha, epsilon, delta, N) -> float:
    """PROJ-Thm5: ``n >= 2 σ_{ε,δ} (sqrt(2 ln N) + sqrt(π/2)) / α²`` suffices for average error ``α``."""
    alpha = check_alpha(alpha)
    N = check_int("N", N, low=1)
    return 2.0 * sigma_epsilon_delta(epsilon, delta) * (math.sqrt(2.0 * math.log(N)) + math.sqrt(math.pi / 2)) \
        / alpha ** 2


def simplex_gaussian_width(m) -> float:
    """Exact ``ℓ*`` of the simplex ``conv{e_1, …, e_m}``: ``E max_i g_i = ∫ t · m φ(t) Φ(t)^{m−1} dt``
    (``m <= 10^6``: beyond, the integrand's peak is too narrow for the quadrature; ``sqrt(2 ln m)`` is then the value
    to first order).

    The trapezoid rule on ``[−40, 40]`` with step ``1/64``: the integrand is smooth and below 1e-300 at both ends, so
    the rule converges geometrically (it agrees with adaptive quadrature to 1e-12 relative for every ``m`` here,
    tests/test_projection.py), without importing scipy.integrate (~0.3 s of CPU, with the scipy.optimize it loads).
    ``m = 1`` is the point ``e_1``: 0."""
    m = check_int("m", m, low=1, high=10 ** 6)
    if m == 1:
        return 0.0
    t = np.linspace(-40.0, 40.0, 80 * 64 + 1)
    f = t * m * np.exp(-t * t / 2) / math.sqrt(2 * math.pi) * ndtr(t) ** (m - 1)
    return float(np.sum(f) / 64)


def cube_gaussian_width(m) -> float:
    """Exact ``ℓ*`` of the cube ``[0, 1]^m``: ``E Σ_i max(g_i, 0) = m / sqrt(2π)``."""
    m = check_int("m", m, low=1)
    return m / math.sqrt(2 * math.pi)


_SRC = "Nikolov, Talwar, Zhang, The Geometry of Differential Privacy: the Sparse and Approximate Cases, STOC 2013"
_CH = "13_projection"
RESULTS = (
    Result("PROJ-Def2", "Convex hull K_Q", "The answer vectors of single rows span $K_Q=\\mathrm{conv}\\{Q(r)\\}$; "
           "every database's answers $Q(x)$ lie in it (a simplex-weighted mix of the points).", _CH,
           "The convex hull of the answers", ("dpbook.queries.Workload.columns", "dpbook.projection.project_onto_hull"),
           source=_SRC),
    Result("PROJ-Alg1", "Projection mechanism", "Add Gaussian noise to the $m$ answers, then return the nearest "
           "point of $K_Q$ (least squares over the simplex of universe weights).", _CH, "The projection mechanism",
           ("dpbook.projection.projection_mechanism", "dpbook.projection.project_onto_hull",
            "dpbook.projection.project_reference"), source=_SRC),
    Result("PROJ-Thm3", "Privacy of the projection mechanism", "The Gaussian step is $(\\varepsilon,\\delta)$-DP and "
           "the projection only uses the public workload, so the whole mechanism is $(\\varepsilon,\\delta)$-DP.",
           _CH, "The projection mechanism", ("dpbook.projection.projection_mechanism",), source=_SRC + " (erratum PROJ-E6)"),
    Result("PROJ-Def4", "Average error", "Root mean squared error over the $m$ queries, in expectation over the "
           "mechanism: $\\sqrt{\\mathbb E\\,\\|M(x)-Q(x)\\|_2^2/m}$.", _CH, "Average error", source=_SRC),
    Result("PROJ-Key lemma", "Projection never hurts", "For $y\\in K$ convex and $\\hat y=\\Pi_K(y+w)$: "
           "$\\|\\hat y-y\\|^2\\le\\langle w,\\hat y-y\\rangle\\le h_K(w)+h_K(-w)$, and $\\|\\hat y-y\\|\\le\\|w\\|$.",
           _CH, "Average error, and why projecting never hurts", ("dpbook.geometry.key_lemma_sides",), source=_SRC + " (erratum PROJ-E8)", aliases=("PROJ-Key",)),
    Result("PROJ-Thm9", "Geometric accuracy", "The projection mechanism's mean squared error per query is at most "
           "$2\\sigma\\ell^*(K_Q)/m$; with PROJ's $\\sigma$ it has average error $\\alpha$ once "
           "$n\\ge 2\\sigma_{\\varepsilon,\\delta}\\ell^*(K_Q)/(\\alpha^2\\sqrt m)$.", _CH, "Accuracy from the width",
           ("dpbook.projection.projection_mechanism",),
           ("dpbook.theory.projection.projection_mse_bound", "dpbook.theory.projection.thm9_rms_bound",
            "dpbook.theory.projection.thm9_sample_size"), _SRC),
    Result("PROJ-Def6", "Support function", "$h_K(y)=\\sup_{x\\in K}\\langle x,y\\rangle$: positively homogeneous "
           "and subadditive, attained at a vertex of a polytope; not a norm in general.", _CH,
           "Support function, mean width and Gaussian width", ("dpbook.geometry.support_function",), source=_SRC + " (erratum PROJ-E4)"),
    Result("PROJ-Def7", "Mean width and Gaussian width", "$M^*(K)=\\mathbb E\\,h_K(\\theta)$ over the unit "
           "sphere, $\\ell^*(K)=\\mathbb E\\,h_K(g)$ over $N(0,I_m)$, and $\\ell^*=\\mathbb E\\|g\\|\\,M^*$.", _CH,
           "Support function, mean width and Gaussian width", ("dpbook.geometry.gaussian_width", "dpbook.geometry.mean_width"),
           ("dpbook.theory.projection.expected_gaussian_norm", "dpbook.theory.projection.simplex_gaussian_width",
            "dpbook.theory.projection.cube_gaussian_width"), _SRC, aliases=("PROJ-Def8",)),
    Result("PROJ-Lemma", "Gaussian width of K_Q", "$\\ell^*(K_Q)\\le\\sqrt m\\,(\\sqrt{2\\ln|X|}+\\sqrt{\\pi/2})$: "
           "a union bound over the $|X|$ vertices, each of norm at most $\\sqrt m$.", _CH, "How wide is $K_Q$?",
           bounds=("dpbook.theory.projection.gaussian_width_bound",), source=_SRC + " (errata PROJ-E1, PROJ-E2, PROJ-E3)"),
    Result("PROJ-Thm5", "Non-geometric bound", "Average error $\\alpha$ once "
           "$n\\ge 2\\sigma_{\\varepsilon,\\delta}(\\sqrt{2\\ln|X|}+\\sqrt{\\pi/2})/\\alpha^2$, whatever $m$ is.", _CH,
           "Accuracy from the width, and without geometry", ("dpbook.projection.projection_mechanism",),
           ("dpbook.theory.projection.thm5_rms_bound", "dpbook.theory.projection.thm5_sample_size"), _SRC),
    Result("PROJ-E1", "Erratum: the width integral", "Split the tail integral at $\\sqrt{2m\\ln|X|}$, not "
           "$2\\sqrt m\\ln|X|$; the source's bound is valid but does not give $O(\\sqrt{m\\log|X|})$.", _CH,
           "How wide is $K_Q$?", bounds=("dpbook.theory.projection.gaussian_width_bound_seed",), source=_SRC),
    Result("PROJ-E3", "Erratum: colliding rows", "$|S_Q|\\le|X|$ (two rows can have the same answers), so the "
           "source's equality is an inequality; the bound survives.", _CH, "How wide is $K_Q$?", source=_SRC),
    Result("PROJ-E4", "Erratum: the support function is not a norm", "For $K\\subseteq[0,1]^m$, "
           "$h_K(-\\mathbf 1)\\le 0$; $h_K$ is a norm only for a symmetric body with 0 inside.", _CH,
           "Support function, mean width and Gaussian width", ("dpbook.geometry.support_function",), source=_SRC),
    Result("PROJ-E5", "Erratum: databases have n rows", "Databases are $x\\in X^n$, not $X^m$.", _CH,
           "The projection mechanism", source=_SRC),
    Result("PROJ-E6", "Erratum: post-processing, not composition", "The projection step is post-processing of the "
           "Gaussian release (it reads only the public $K_Q$).", _CH, "The projection mechanism", source=_SRC),
    Result("PROJ-E8", "Erratum: why projecting never hurts", "The reason is the obtuse-angle property of the "
           "projection onto a convex set, not the triangle inequality.", _CH, "Average error, and why projecting never hurts", source=_SRC),
)
