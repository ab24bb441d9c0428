"""Bounds for chapter 16, smooth queries (Wang, Zhang, Fan, Wang, NIPS 2013; SMOOTH-*).

Pure functions: the summary degree ``J`` (SMOOTH-Alg1, SMOOTH-E5), the noise scales (the paper's and the corrected
one of erratum SMOOTH-E1), the exact ``d = 1`` sensitivity that exhibits the erratum, the query-specific error bound
(SMOOTH-Alg2's answer error), the worst-case accuracy of SMOOTH-Thm3.1 and the exponents of SMOOTH-Table1.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import check_beta, check_epsilon, check_int, check_real, check_real_array
from .registry import Result

__all__ = ["summary_degree", "summary_sensitivity", "summary_noise_scale", "paper_noise_scale",
           "exact_sensitivity_1d", "paper_scale_privacy_loss", "weighted_laplace_tail_bound",
           "weighted_laplace_quantile", "answer_error_bound", "coefficient_bound", "worst_case_accuracy",
           "accuracy_exponent", "summary_time_exponent", "query_time_exponent", "dct_query_time_exponent",
           "table1_exponents", "jackson_multipliers"]

_MAX_D, _MAX_K = 6, 64


def _dK(d, K):
    return check_int("d", d, low=1, high=_MAX_D), check_int("K", K, low=1, high=_MAX_K)


def summary_degree(n, d, K) -> int:
    """SMOOTH-Alg1 with SMOOTH-E5: the degree bound ``J = floor(n^{1/(2d+K)})`` (the ``degree_bound`` of
    :func:`dpbook.smooth.smooth_summary`: ``J`` moments per axis, degrees ``<= J - 1``), computed in integers (no rounding slip at
    exact powers: ``summary_degree(10**4, 1, 2) == 10``).  Always ``>= 1``."""
    n = check_int("n", n, low=1)
    d, K = _dK(d, K)
    p = 2 * d + K
    J = max(1, int(round(n ** (1.0 / p))))
    while J ** p > n:
        J -= 1
    while (J + 1) ** p <= n:
        J += 1
    return J


def summary_sensitivity(degree_bound, d, n=1) -> float:
    """SMOOTH-E1: the L1 sensitivity of the non-constant moments under replace-one, ``2 (J^d - 1) / n``.

    Every moment ``prod_i T_{m_i}(x_i)`` lies in ``[-1, 1]``, so replacing one of ``n`` rows moves each mean by at
    most ``2/n``; the constant moment ``m = 0`` is identically 1 and is published without noise."""
    J = check_int("degree_bound", degree_bound, low=1)
    d = check_int("d", d, low=1, high=_MAX_D)
    n = check_int("n", n, low=1)
    return 2.0 * (J ** d - 1) / n


def summary_noise_scale(n, degree_bound, d, epsilon) -> float:
    """SMOOTH-E1 (corrected SMOOTH-Alg1): Laplace scale ``b = 2 (J^d - 1) / (n ε)`` on each non-constant moment."""
    return summary_sensitivity(degree_bound, d, n) / check_epsilon(epsilon)


def paper_noise_scale(n, degree_bound, d, epsilon) -> float:
    """SMOOTH-Alg1 as printed: ``b = J^d / (n ε)`` — not enough for ε-DP (erratum SMOOTH-E1)."""
    n, J = check_int("n", n, low=1), check_int("degree_bound", degree_bound, low=1)
    d = check_int("d", d, low=1, high=_MAX_D)
    return J ** d / (n * check_epsilon(epsilon))


def exact_sensitivity_1d(degree_bound, *, grid=721) -> tuple[float, float, float]:
    """SMOOTH-E1 for ``d = 1`` and ``J = degree_bound``: ``sup_{θ,θ'} sum_{j<J} |cos jθ - cos jθ'|`` (the L1 sensitivity times ``n``) and a
    maximising pair ``(θ, θ')``, found on a ``grid x grid`` search of ``[0, π]^2`` refined by a shrinking local search
    (a 9 x 9 pattern around the best pair, its spacing divided by 4 each step, down to ``1e-13``; derivative-free,
    as the sum has kinks).

    A numerical lower bound on the supremum (exact up to the search's tolerance); ``J = 10`` gives 11.58 at
    ``θ = 0, θ' ≈ 0.473``, i.e. ``1.16 J`` — more than the ``J`` the paper's noise assumes.
    """
    from scipy.spatial.distance import cdist
    J = check_int("degree_bound", degree_bound, low=1, high=2000)
    grid = check_int("grid", grid, low=16, high=4001)
    theta = np.linspace(0.0, math.pi, grid)
    m = np.arange(J)
    C = np.cos(np.outer(theta, m))
    dist = cdist(C, C, "cityblock")
    i, j = np.unravel_index(int(np.argmax(dist)), dist.shape)
    best, a, b = float(dist[i, j]), float(theta[i]), float(theta[j])
    step, pattern = math.pi / (grid - 1), np.linspace(-1.0, 1.0, 9)
    while step > 1e-13:
        A, B = a + step * pattern, b + step * pattern
        values = np.abs(np.cos(A[:, None, None] * m) - np.cos(B[None, :, None] * m)).sum(axis=2)
        k = int(np.argmax(values))
        if values.flat[k] > best:
            best, a, b = float(values.flat[k]), float(A[k // 9]), float(B[k % 9])
        step /= 4
    pair = tuple(abs(p) % (2 * math.pi) for p in (a, b))                   # cos is even and 2π-periodic
    pair = tuple(2 * math.pi - p if p > math.pi else p for p in pair)
    return best, min(pair), max(pair)


def paper_scale_privacy_loss(degree_bound, epsilon=1.0) -> float:
    """SMOOTH-E1: the worst-case privacy loss of the paper's scale for ``d = 1``, ``ε · Δ_exact / J``
    (``1.158 ε`` at ``J = 10``, tending to about ``1.22 ε``)."""
    J = check_int("degree_bound", degree_bound, low=1)
    return check_epsilon(epsilon) * exact_sensitivity_1d(J)[0] / J


def _weights(weights):
    c = check_real_array("weights", weights)
    if c.size == 0:
        raise ValueError("weights must contain at least one weight")
    return np.abs(c.ravel())


def weighted_laplace_tail_bound(lam, b, weights) -> float:
    """SMOOTH-Alg2's noise term (IDC-Thm6.5 with weights): for ``Z_r`` i.i.d. ``Lap(b)`` and ``Y = sum c_r Z_r`` (``c = weights``),
    with ``ν = ||c||_2`` and ``ρ = ||c||_∞``,

        ``P[|Y| >= λ] <= 2 exp(-λ² / (6 b² ν²))``                 for ``λ <= 3 b ν² / (√2 ρ)``,
        ``P[|Y| >= λ] <= 2 exp(3 ν²/(4 ρ²) - λ / (√2 b ρ))``       beyond.

    (MGF ``(1 - u²b²)^{-1} <= exp(1.5 u² b²)`` for ``|u| b <= 1/√2``; Chernoff at the optimum, capped.)
    ``weights = (1, …, 1)`` gives the proof's optimum of IDC-Thm6.5 (erratum IDC-E7)."""
    lam = check_real("lam", lam, low=0.0)
    b = check_real("b", b, low=0.0, low_open=True)
    w = _weights(weights)
    s2, r = float(np.sum(w ** 2)), float(np.max(w))
    if r == 0.0:
        return 0.0 if lam > 0 else 1.0
    if lam <= 3.0 * b * s2 / (math.sqrt(2.0) * r):
        bound = 2.0 * math.exp(-lam ** 2 / (6.0 * b ** 2 * s2))
    else:
        bound = 2.0 * math.exp(0.75 * s2 / r ** 2 - lam / (math.sqrt(2.0) * b * r))
    return min(1.0, bound)


def weighted_laplace_quantile(beta, b, weights) -> float:
    """The smallest ``λ`` at which :func:`weighted_laplace_tail_bound` is ``<= β``:
    ``b ||c||_2 sqrt(6 ln(2/β))`` in the first regime, ``√2 b ||c||_∞ (3 ν²/(4 ρ²) + ln(2/β))`` beyond."""
    beta = check_beta(beta)
    b = check_real("b", b, low=0.0, low_open=True)
    w = _weights(weights)
    s2, r = float(np.sum(w ** 2)), float(np.max(w))
    if r == 0.0:
        return 0.0
    L = math.log(2.0 / beta)
    lam = b * math.sqrt(6.0 * s2 * L)
    if lam <= 3.0 * b * s2 / (math.sqrt(2.0) * r):
        return lam
    return math.sqrt(2.0) * b * r * (0.75 * s2 / r ** 2 + L)


def answer_error_bound(gamma, b, weights, beta) -> float:
    """SMOOTH-Alg2 (answer error, [DERIVED]): with probability ``>= 1 - β`` the answer ``<c, Su_hat>`` is within
    ``γ_f + λ_β`` of ``q_f(D)``, where ``γ_f = sup |f - p_J|`` (approximation) and ``λ_β`` is
    :func:`weighted_laplace_quantile` of the coefficients ``weights`` of the noisy moments (not the constant one)."""
    gamma = check_real("gamma", gamma, low=0.0)
    return gamma + weighted_laplace_quantile(beta, b, weights)


def coefficient_bound(d, K, B=1.0) -> float:
    """SMOOTH-Thm3.2 part (2) [RECON]: ``|c_m| <= M = 2^d (2^{K+1} - 1)^d B`` for the Jackson-operator coefficients."""
    d, K = _dK(d, K)
    B = check_real("B", B, low=0.0, low_open=True)
    return float(2 ** d * (2 ** (K + 1) - 1) ** d * B)


def worst_case_accuracy(n, d, K, epsilon, *, B=1.0, C=1.0) -> float:
    """SMOOTH-Thm3.1 part (2), the derivation's bound ``C J^{-K} + 2 M J^{2d} / (n ε)`` at ``J = summary_degree(n,d,K)``
    and ``M = coefficient_bound(d, K, B)`` (``C`` is the unrecovered approximation constant; the printed
    scale ``J^d/(nε)``, since this is the paper's derivation).  Vacuous at realistic sizes
    (chapter 16 shows by how much)."""
    J = summary_degree(n, d, K)
    d, K = _dK(d, K)                                       # Python ints (a numpy K would refuse J ** -K)
    C = check_real("C", C, low=0.0, low_open=True)
    M = coefficient_bound(d, K, B)
    return C * J ** (-K) + 2.0 * M * J ** (2 * d) / (check_int("n", n, low=1) * check_epsilon(epsilon))


def accuracy_exponent(d, K) -> float:
    """SMOOTH-Thm3.1 part (2): the error falls like ``n^{-K/(2d+K)}``; returns ``-K/(2d+K)``."""
    d, K = _dK(d, K)
    return -K / (2 * d + K)


def summary_time_exponent(d, K) -> float:
    """SMOOTH-Thm3.1 part (3): summary time ``n · J^d = n^{(3d+K)/(2d+K)}``."""
    d, K = _dK(d, K)
    return (3 * d + K) / (2 * d + K)


def query_time_exponent(d, K) -> float:
    """SMOOTH-Thm3.1 part (4): the paper's query time ``n^{(d + 2 + 2d/K)/(2d+K)}`` (up to polylog), from
    SMOOTH-Thm3.2 part (3) at ``γ = J^{-K}``."""
    d, K = _dK(d, K)
    return (d + 2 + 2 * d / K) / (2 * d + K)


def dct_query_time_exponent(d, K) -> float:
    """The book's Algorithm 2 (interpolation on ``(4J+1)^d`` Chebyshev nodes + one DCT): ``J^d log J``, i.e.
    ``n^{d/(2d+K)}`` up to a log — below the paper's exponent, because the coefficients come from a DCT."""
    d, K = _dK(d, K)
    return d / (2 * d + K)


def table1_exponents(d, K) -> dict:
    """SMOOTH-Table1 for one ``(d, K)``: the exponents of ``n`` in accuracy, summary time and query time (paper's
    and the book's DCT), and whether the privacy error beats the sampling error ``n^{-1/2}`` (``K > 2d``)."""
    return dict(accuracy=accuracy_exponent(d, K), summary_time=summary_time_exponent(d, K),
                query_time=query_time_exponent(d, K), dct_query_time=dct_query_time_exponent(d, K),
                beats_sampling=bool(K > 2 * d))


def jackson_multipliers(degree_bound, K) -> np.ndarray:
    """SMOOTH-Thm3.2, option (b) [RECON]: the multipliers ``λ_0..λ_{J-1}`` of the generalised Jackson operator, so
    that its Chebyshev coefficients are ``c_m = ĝ_m prod_i λ_{m_i}``.

    Kernel ``H(θ) ∝ (sin(J'θ/2)/sin(θ/2))^{2h}``, ``∫H = 1``, with ``h = ceil((K+3)/2)`` and ``J' = floor((J-1)/h) + 1``
    (degree ``h(J'-1) <= J-1``; ``J = degree_bound``); ``λ_l = sum_{j=1}^{K+1} (-1)^{j+1} C(K+1, j) Ĥ(j l)`` with
    ``Ĥ(ν) = ∫H(θ) cos(νθ) dθ``,
    which is the ratio of the ``ν``-th to the 0-th Fourier coefficient of the kernel (0 beyond its degree).  ``λ_0 = 1``.
    """
    J = check_int("degree_bound", degree_bound, low=1, high=100_000)
    K = check_int("K", K, low=1, high=_MAX_K)
    r = math.ceil((K + 3) / 2)
    tp = (J - 1) // r + 1
    fejer = np.r_[np.arange(1, tp + 1), np.arange(tp - 1, 0, -1)].astype(float)    # (sin(J'θ/2)/sin(θ/2))^2
    h = np.array([1.0])
    for _ in range(r):
        h = np.convolve(h, fejer)
        h /= h.max()                                                                  # scale-free: avoids overflow
    centre = h.size // 2

    def H_hat(v):
        return h[centre + v] / h[centre] if v <= centre else 0.0

    return np.array([sum((-1) ** (j + 1) * math.comb(K + 1, j) * H_hat(j * l) for j in range(1, K + 2))
                     for l in range(J)])


_SOURCE = "Wang, Zhang, Fan, Wang, Efficient Algorithm for Privately Releasing Smooth Queries, NIPS 2013"
_CH = "16_smooth_queries"

RESULTS = (
    Result(id="SMOOTH-Def", title="Even trigonometric polynomials = Chebyshev series",
           statement=r"$\cos(j\arccos x)=T_j(x)$, so an even trigonometric polynomial in $\theta_i=\arccos x_i$ of "
                     r"degree $<J$ per coordinate is a tensor Chebyshev polynomial of degree $<J$ in $x$.",
           chapter=_CH, section="1. Smooth queries and Chebyshev polynomials",
           implemented_by=("dpbook.smooth.chebyshev_moments",), source=_SOURCE),
    Result(id="SMOOTH-Def C^K_B", title="The class of K-smooth queries",
           statement=r"$\|f\|_K=\max_{|\mathbf a|\le K}\sup_{[-1,1]^d}|D^{\mathbf a}f|$ (multi-indices $\mathbf a$) and $C^K_B=\{f:\|f\|_K\le B\}$; the query of $f$ "
                     r"is the mean of $f$ over the rows (reconstructed definition).",
           chapter=_CH, section="1. Smooth queries and Chebyshev polynomials",
           implemented_by=("dpbook.smooth.SmoothQuery", "dpbook.smooth.smooth_norm"),
           source=_SOURCE + " (definition garbled in the source; reconstructed)"),
    Result(id="SMOOTH-Alg1", title="Private summary: noisy Chebyshev moments",
           statement=r"Release the $J^d$ averages $\frac1n\sum_x\prod_iT_{r_i}(x_i)$, $\|\mathbf r\|_\infty<J$, "
                     r"$J=\lfloor n^{1/(2d+K)}\rfloor$, the constant one exactly and the others with "
                     r"$\mathrm{Lap}(2(J^d-1)/(n\varepsilon))$ (scale corrected by SMOOTH-E1).",
           chapter=_CH, section="2. Algorithm 1: the summary",
           implemented_by=("dpbook.smooth.smooth_summary", "dpbook.smooth.chebyshev_moments"),
           bounds=("dpbook.theory.smooth.summary_degree", "dpbook.theory.smooth.summary_noise_scale"),
           source=_SOURCE + "; erratum SMOOTH-E1"),
    Result(id="SMOOTH-Alg2", title="Answering a smooth query from the summary",
           statement=r"Compute the degree-$(J-1)$ Chebyshev coefficients $c$ of $f$ (interpolation + DCT, no data) and "
                     r"answer $\langle c,\widehat{\mathrm{Su}}\rangle$; the error is at most "
                     r"$\sup|f-p_J|+|\sum_{\mathbf r}c_{\mathbf r}Z_{\mathbf r}|$.",
           chapter=_CH, section="3. Algorithm 2: answering a query — with no data",
           implemented_by=("dpbook.smooth.chebyshev_coefficients", "dpbook.smooth.answer_query"),
           bounds=("dpbook.theory.smooth.answer_error_bound", "dpbook.theory.smooth.weighted_laplace_quantile"),
           source=_SOURCE + "; erratum SMOOTH-E2"),
    Result(id="SMOOTH-Thm3.2", title="Approximation by trigonometric polynomials",
           statement=r"Every $f\in C^K_B$ has an even trigonometric polynomial of degree $<J$ per coordinate within "
                     r"$O(J^{-K})$ of $g_f(\theta)=f(\cos\theta)$, with coefficients bounded by a constant of "
                     r"$d,K,B$ (reconstructed; the source text stops inside this theorem).",
           chapter=_CH, section="3. Algorithm 2: answering a query — with no data",
           implemented_by=("dpbook.smooth.chebyshev_coefficients", "dpbook.smooth.jackson_coefficients",
                           "dpbook.smooth.approximation_error"),
           bounds=("dpbook.theory.smooth.coefficient_bound", "dpbook.theory.smooth.jackson_multipliers"),
           source=_SOURCE + " (reconstructed)"),
    Result(id="SMOOTH-Thm3.1", title="Smooth queries: privacy, accuracy, running time",
           statement=r"Algorithms 1+2 are $\varepsilon$-DP (replace-one, with the corrected scale) and answer every "
                     r"query of $C^K_B$ within $O(n^{-K/(2d+K)}/\varepsilon)$; summary time "
                     r"$O(n^{(3d+K)/(2d+K)})$, query time $\tilde O(n^{(d+2+2d/K)/(2d+K)})$.",
           chapter=_CH, section="4. Theorem 3.1: privacy, accuracy and running time",
           implemented_by=("dpbook.smooth.smooth_summary", "dpbook.smooth.answer_query"),
           bounds=("dpbook.theory.smooth.worst_case_accuracy", "dpbook.theory.smooth.accuracy_exponent",
                   "dpbook.theory.smooth.summary_time_exponent", "dpbook.theory.smooth.query_time_exponent"),
           source=_SOURCE + "; erratum SMOOTH-E1"),
    Result(id="SMOOTH-Table1", title="Three regimes of smoothness",
           statement=r"$K=1$: error $n^{-1/(2d+1)}$; $K=2d$: error $n^{-1/2}$, the sampling error; $K\gg d$: error "
                     r"$n^{-(1-2d/K)}$, below the sampling error.",
           chapter=_CH, section="5. Table 1: the exponents, measured",
           bounds=("dpbook.theory.smooth.table1_exponents",), source=_SOURCE),
    Result(id="SMOOTH-E4", title="Erratum: Algorithm 1 has no δ and no β",
           statement=r"The paper lists $\delta$ and $\beta$ among Algorithm 1's parameters; it uses neither: the summary "
                     r"is pure $\varepsilon$-DP, and $\beta$ enters only the accuracy statement of Theorem 3.1.",
           chapter=_CH, section="2. Algorithm 1: the summary", source=_SOURCE),
    Result(id="SMOOTH-E1", title="Erratum: the summary's noise scale",
           statement=r"The moments' L1 sensitivity exceeds $J^d/n$ ($1.16\,J/n$ for $d=1,J=10$); use "
                     r"$\mathrm{Lap}(2(J^d-1)/(n\varepsilon))$ and publish the constant moment.",
           chapter=_CH, section="7. Erratum SMOOTH-E1: the paper's noise scale",
           implemented_by=("dpbook.broken.smooth.smooth_summary_paper_scale",),
           bounds=("dpbook.theory.smooth.exact_sensitivity_1d", "dpbook.theory.smooth.paper_scale_privacy_loss"),
           source=_SOURCE),
    Result(id="SMOOTH-E2", title="Erratum: the degree in Algorithm 2",
           statement=r"The approximating polynomial has degree $\le J-1$ per coordinate (not $J$), to match the "
                     r"$J^d$ moments.", chapter=_CH, section="3. Algorithm 2: answering a query — with no data",
           implemented_by=("dpbook.smooth.chebyshev_coefficients",), source=_SOURCE),
    Result(id="SMOOTH-E5", title="Erratum: J must be an integer",
           statement=r"$J=\lfloor n^{1/(2d+K)}\rfloor$; the chapter uses sizes $n=J^{2d+K}$ so the fitted exponents "
                     r"are not bent by the rounding.", chapter=_CH, section="5. Table 1: the exponents, measured",
           bounds=("dpbook.theory.smooth.summary_degree",), source=_SOURCE),
)
