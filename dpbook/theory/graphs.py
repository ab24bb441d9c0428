"""Bounds for releasing graph cuts privately (GRU §2, §6, Rem 4.11/5.3; chapter 14).

Counts, not normalised: a cut answer is a number of edges.  The universe is the ``N = C(V, 2)`` unordered vertex
pairs; a graph is a 0/1 (or [0, 1]-weighted) vector over it.  A cut query ``(S, R)`` weighs the pair ``{u, v}``
by ``q = 1[u∈S, v∈R] + 1[v∈S, u∈R]``, which is 2 for a pair inside ``S ∩ R`` (erratum IDC-E5): every bound here
is stated for coefficients in ``[0, 2]`` unless it says "disjoint".

The one tool is the Chernoff bound of IDC-Thm6.5, written with the variance proxy ``σ² = Σ q_e²`` and the largest
coefficient ``q_max`` instead of the number of terms (:func:`laplace_sum_deviation`, [DERIVED]); it is the
continuous "Chernoff optimum" form recommended by erratum IDC-E7.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import check_beta, check_delta, check_epsilon, check_int, check_real
from .histogram import histogram_scale
from .registry import Result

__all__ = [
    "num_pairs", "union_log_term", "laplace_sum_deviation", "rr_cut_error_bound", "gru_cut_error_bound",
    "rr_size_error_bound", "rr_size_error_table", "rr_rate", "rounding_error_bound", "synthetic_error_bound",
    "mw_cut_rate", "fk_cut_rate", "fk_wins_edges", "fk_cut_updates", "mw_cut_updates", "ic_mw_cut_alpha",
    "ic_cut_error_bound", "cut_bound_rows",
]

SOURCE = ("A. Gupta, A. Roth, J. Ullman, Iterative Constructions and Private Data Release, TCC 2012 "
          "(arXiv:1107.3731)")


def _V(num_vertices) -> int:
    return check_int("num_vertices", num_vertices, low=2, high=100_000)


def num_pairs(num_vertices) -> int:
    """IDC §2: the size of the edge universe, ``N = C(V, 2)``."""
    V = _V(num_vertices)
    return V * (V - 1) // 2


def union_log_term(num_vertices, beta) -> float:
    """``L = V ln 4 + ln(2/β)``: a union bound over the ``4^V`` pairs ``(S, R)`` and both signs (IDC §6.1)."""
    return _V(num_vertices) * math.log(4.0) + math.log(2.0 / check_beta(beta))


def laplace_sum_deviation(sigma2, q_max, b, log_term):
    """IDC-Thm6.5 [RECON; this form DERIVED]: ``P[Y >= λ] <= e^{-L}`` for ``Y = Σ q_e X_e``, ``X_e ~ Lap(b)`` i.i.d.,
    ``|q_e| <= q_max``, ``Σ q_e² <= σ²``, at

        ``λ = min_{0 < t <= 1/(√2 q_max b)} (L + 1.5 t² b² σ²)/t``.

    Proof: ``E e^{tqX} = 1/(1 - t²q²b²) <= e^{1.5 t² q² b²}`` when ``t² q² b² <= 1/2`` (Thm 6.5's Taylor step), so
    ``E e^{tY} <= e^{1.5 t² b² σ²}`` and Markov gives the tail.  The unconstrained optimum is ``λ = b sqrt(6σ²L)``
    (the familiar ``sqrt(6 M ln(1/β))`` with ``σ² = M``); past ``t = 1/(√2 q_max b)`` it becomes linear in ``L``.
    Vectorised over ``sigma2`` and ``log_term``.
    """
    sigma2 = np.asarray(sigma2, dtype=np.float64)
    L = np.asarray(log_term, dtype=np.float64)
    q_max = check_real("q_max", q_max, low=0.0, low_open=True)
    b = check_real("b", b, low=0.0, low_open=True)
    if not (np.all(np.isfinite(sigma2)) and np.all(sigma2 > 0)):
        raise ValueError("sigma2 must be finite and > 0")
    if not (np.all(np.isfinite(L)) and np.all(L > 0)):
        raise ValueError("log_term must be finite and > 0")
    t = np.minimum(np.sqrt(L / (1.5 * sigma2)) / b, 1.0 / (math.sqrt(2.0) * q_max * b))
    out = (L + 1.5 * t ** 2 * b ** 2 * sigma2) / t
    return float(out) if out.ndim == 0 else out


def rr_cut_error_bound(num_vertices, epsilon, beta, neighbours="add/remove") -> float:
    """IDC §6.1 [RECON; constants DERIVED]: randomized response for graphs (``Lap(b)`` on every pair, ``b = 1/ε``,
    ``2/ε`` under replace-one) has, with probability ``>= 1-β``, error at most this on **every** cut ``(S, R)``,
    overlapping ones included.

    A cut's coefficients lie in ``[0, 2]`` (IDC-E5) and ``Σ q_e² = |S||R| + o² - 2o <= 4N`` (``o = |S∩R|``; the
    maximum is at ``S = R = V``), so :func:`laplace_sum_deviation` with ``σ² = 4N``, ``q_max = 2`` and
    ``L = V ln 4 + ln(2/β)``: ``2 b sqrt(6 N L)`` while ``L <= 3N/4``, i.e. ``O(V^1.5/ε)``.
    """
    b = histogram_scale(check_epsilon(epsilon), neighbours)
    N = num_pairs(num_vertices)
    return laplace_sum_deviation(4.0 * N, 2.0, b, union_log_term(num_vertices, beta))


def gru_cut_error_bound(num_vertices, epsilon, beta) -> float:
    """IDC §6.1 as the book restores it [RECON: GRU's formula was lost; shape GRU's, constants ours],
    via IDC §6 / Lemma 6.1 with ``|Q| = 4^V`` queries in ``[0,1]^N``:
    ``sqrt(6 N (V ln 4 + ln(2/β)))/ε`` when ``|Q| <= (β/2) e^{2N/3}``, else Lemma 6.1's general case
    ``ln(2N/β)/ε · sqrt(2N ln(4|Q|/β))``.

    It covers **disjoint** cuts (coefficients in ``{0, 1}``); a cut with ``S ∩ R ≠ ∅`` can have coefficient 2 and
    needs :func:`rr_cut_error_bound` (erratum IDC-E5 changes the constant by 2).
    """
    epsilon = check_epsilon(epsilon)
    N = num_pairs(num_vertices)
    L = union_log_term(num_vertices, beta)
    if L <= 2.0 * N / 3.0:
        return math.sqrt(6.0 * N * L) / epsilon
    beta = check_beta(beta)
    return math.log(2 * N / beta) / epsilon * math.sqrt(2 * N * (L + math.log(2.0)))


def rr_size_error_bound(size_S, size_R, num_vertices, epsilon, beta, neighbours="add/remove"):
    """IDC §6.1, the size-dependent bound [RECON shape; constants DERIVED]: with probability ``>= 1-β``,
    simultaneously for all cuts ``(S, R)`` with ``|S| = size_S`` and ``|R| = size_R``, ``|Â(S,R) - A(S,R)|`` is at
    most :func:`laplace_sum_deviation` at ``σ² = 2|S||R|``, ``q_max = 2``, ``L = V ln 4 + ln(2/β)`` — i.e.
    ``b sqrt(12 |S||R| L) = O(sqrt(|S||R|(|V| + ln(1/β)))/ε)`` once ``|S||R| >= 8L/3``.

    ``Σ q_e² = |S||R| + o² - 2o <= 2|S||R|`` (``o = |S ∩ R|``); each of the ``4^V`` pairs gets failure probability
    ``β/4^V``.  Vectorised over ``size_S`` and ``size_R`` (integers ``>= 1``).
    """
    b = histogram_scale(check_epsilon(epsilon), neighbours)
    V = _V(num_vertices)
    size_S, size_R = np.asarray(size_S), np.asarray(size_R)
    for name, v in (("size_S", size_S), ("size_R", size_R)):
        if v.dtype.kind not in "iu" or np.any(v < 1) or np.any(v > V):
            raise ValueError(f"{name} must hold set sizes in [1, {V}]")
    return laplace_sum_deviation(2.0 * size_S * size_R, 2.0, b, union_log_term(V, beta))


def rr_size_error_table(num_vertices, epsilon, beta, neighbours="add/remove") -> np.ndarray:
    """:func:`rr_size_error_bound` for every pair of sizes ``(|S|, |R|)``, as a ``(V+1, V+1)`` table (row/column 0:
    ``inf``)."""
    V = _V(num_vertices)
    size_S, size_R = np.meshgrid(np.arange(1, V + 1), np.arange(1, V + 1), indexing="ij")
    table = np.full((V + 1, V + 1), np.inf)
    table[1:, 1:] = rr_size_error_bound(size_S, size_R, V, epsilon, beta, neighbours)
    return table


def rr_rate(num_vertices, epsilon) -> float:
    """IDC §6.1: the rate ``|V|^1.5/ε`` (the shape of the bound, constant 1)."""
    return _V(num_vertices) ** 1.5 / check_epsilon(epsilon)


def rounding_error_bound(num_vertices, beta) -> float:
    """IDC-Rem6.3 [RECON; constant DERIVED]: rounding ``w`` to ``Bernoulli(w_e)`` edges moves every cut by at most
    ``sqrt(2N (V ln 4 + ln(2/β)))`` with probability ``>= 1-β``.

    Hoeffding: ``Σ q_e (B_e - w_e)`` has independent terms in ranges of length ``q_e <= 2``, so
    ``P[|·| >= λ] <= 2 exp(-2λ²/Σ q_e²)`` with ``Σ q_e² <= 4N``; union over ``4^V`` cuts.  ``O(V^1.5)``.
    """
    return math.sqrt(2.0 * num_pairs(num_vertices) * union_log_term(num_vertices, beta))


def synthetic_error_bound(eta, ratio=1.0) -> float:
    """IDC-Lem6.2 [RECON]: a weighted graph ``W`` whose cuts are within ``eta/ϑ`` of the noisy ones (an oracle
    with approximation ratio ``ϑ``, ``ratio``, certifies ``ϑ``-approximately) is within ``(1/ϑ + 1)·eta`` of the true
    graph on every cut, when the noise is within ``eta`` (triangle inequality).  ``ϑ = 1``: an exact oracle,
    ``2·eta``."""
    eta = check_real("eta", eta, low=1e-12, high=1e12)          # a cut error in counts
    ratio = check_real("ratio", ratio, low=0.0, high=1.0, low_open=True)
    return (1.0 / ratio + 1.0) * eta


def mw_cut_rate(num_edges, num_vertices, epsilon, delta) -> float:
    """IDC-Rem4.11 / Rem5.3 [RECON]: the online MW error on cut queries, ``sqrt(|E||V|) (ln|V| ln(1/δ))^{1/4}/sqrt(ε)``
    (counts, constants and the ``ln m``-type factors dropped: a *rate*, not a bound)."""
    E = check_int("num_edges", num_edges, low=1)
    V = _V(num_vertices)
    delta = check_delta(delta, positive=True)
    return math.sqrt(E * V) * (math.log(V) * math.log(1 / delta)) ** 0.25 / math.sqrt(check_epsilon(epsilon))


def fk_cut_rate(num_edges, num_vertices, epsilon, delta) -> float:
    """IDC-Rem4.11 / Rem5.3 [RECON]: the online Frieze–Kannan error on cut queries,
    ``|E|^{1/4} |V| (ln(1/δ))^{1/4}/sqrt(ε)`` (counts; a rate, constants dropped)."""
    E = check_int("num_edges", num_edges, low=1)
    V = _V(num_vertices)
    delta = check_delta(delta, positive=True)
    return E ** 0.25 * V * math.log(1 / delta) ** 0.25 / math.sqrt(check_epsilon(epsilon))


def fk_wins_edges(num_vertices) -> float:
    """IDC-Rem5.3 [RECON]: FK's rate beats MW's iff ``|E| ≳ |V|²/ln|V|`` (equal rates at ``|E| = V²/ln V``)."""
    V = _V(num_vertices)
    return V * V / math.log(V)


def mw_cut_updates(alpha, num_vertices) -> float:
    """IDC-ThmA.4 on the edge universe: ``B(α) = 4 ln N/α²`` (normalised ``α``, ``N = C(V,2)``)."""
    alpha = check_real("alpha", alpha, low=0.0, low_open=True)
    return 4.0 * math.log(num_pairs(num_vertices)) / alpha ** 2


def fk_cut_updates(alpha, num_vertices, num_edges) -> float:
    """IDC-Thm5.1 on a graph (a set of edges, ``||D||² = |E|``): ``B = |E| N/(|E| α)² = N/(|E| α²)`` (normalised ``α``)."""
    alpha = check_real("alpha", alpha, low=0.0, low_open=True)
    return num_pairs(num_vertices) / (check_int("num_edges", num_edges, low=1) * alpha ** 2)


def _ic_condition(alpha, V, n, epsilon, delta, beta) -> float:
    """IDC-Thm7.3's right-hand side at ``α`` for MW on the halved cuts (see :func:`ic_mw_cut_alpha`)."""
    from .idc import ic_epsilon0, ic_gamma
    B = max(1, math.floor(16.0 * math.log(num_pairs(V)) / alpha ** 2))       # B(α/2) = 4 ln N/(α/2)²
    epsilon0 = ic_epsilon0(epsilon, delta, B)
    noise = 8.0 * math.log(2 * B / beta) / (epsilon0 * n)
    F = 2.0 * (V * math.log(4.0) + math.log(1.0 / ic_gamma(beta, B))) / (epsilon0 * n)   # ln|Q| = V ln 4
    return max(noise, 8.0 * F)


def ic_mw_cut_alpha(num_vertices, num_edges, epsilon, delta, beta) -> float:
    """IDC-Cor7.4 [RECON; constants from IDC-Thm7.2/7.3]: the smallest normalised ``α`` for which the offline IC
    with MW (``B(α/2) = 16 ln N/α²``) and the exponential-mechanism distinguisher over all ``4^V`` halved cuts
    ``(e_S/2)ᵀ A e_R`` (coefficients in ``[0, 1]``, normalised by ``n = |E|``) meets IDC-Thm7.3's condition
    ``α >= max(8 ln(2B/β)/(ε0 n), 8 F(ε0))``, ``ε0`` from IDC-Thm7.2.  The right-hand side decreases in ``α``
    (fewer rounds, more budget per round), so bisection finds the crossing.
    """
    V = _V(num_vertices)
    n = check_int("num_edges", num_edges, low=1, high=num_pairs(V))
    epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta), check_beta(beta)
    lo, hi = 1e-9, 1.0
    while hi < _ic_condition(hi, V, n, epsilon, delta, beta):
        lo, hi = hi, 2.0 * hi
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if mid >= _ic_condition(mid, V, n, epsilon, delta, beta) else (mid, hi)
    return hi


def ic_cut_error_bound(num_vertices, num_edges, epsilon, delta, beta) -> float:
    """IDC-Cor7.4 [RECON]: with probability ``>= 1-β`` the IC synthetic graph (MW, exponential-mechanism
    distinguisher over all cuts) is within ``2 |E| α*`` edges of the true graph on **every** cut ``(S, R)``,
    ``α* =`` :func:`ic_mw_cut_alpha` (the 2 undoes the halving; ``n = |E|`` turns normalised into counts).
    ``(ε, δ)``-DP by IDC-Thm7.2 (``ε < 1`` when ``δ > 0``); ``Õ(sqrt(|E|)(ln|V| ln(1/δ))^{1/4} sqrt(|V|/ε))``.
    The uniform graph with ``|E|`` edges (IC's start) is within ``2|E|`` for free, so the bound says something
    only when ``α* < 1``.
    """
    return 2.0 * check_int("num_edges", num_edges, low=1) * ic_mw_cut_alpha(num_vertices, num_edges, epsilon,
                                                                             delta, beta)


def cut_bound_rows(settings, beta, delta_ic=0.0) -> list[dict]:
    """IDC-Table1 [RECON]: for each ``(V, |E|, ε)`` the all-cuts error bounds (edges, probability ``>= 1-β``) of
    the chapter's mechanisms: trivial ``2N``, randomized response (§6.1, its bound ``η``), the LP synthetic graph ``2η``
    (IDC-Lem6.2) and after rounding (IDC-Rem6.3), and the offline IC with MW (IDC-Cor7.4, at ``delta_ic``)."""
    rows = []
    for V, n, eps in settings:
        eta = rr_cut_error_bound(V, eps, beta)
        rows.append(dict(V=V, E=n, epsilon=eps, trivial=2.0 * num_pairs(V), rr=eta, lp=synthetic_error_bound(eta),
                         rounded=synthetic_error_bound(eta) + rounding_error_bound(V, beta),
                         ic=ic_cut_error_bound(V, n, eps, delta_ic, beta)))
    return rows


_CH = "14_graph_cuts"
_S7 = "7. Offline: a synthetic graph by iterative construction"
_S8 = "8. The bounds in one table"

RESULTS = (
    Result(id="IDC §2", title="Cut queries, cut norm, rank-1 queries",
           statement=r"A graph is a 0/1 vector over the $\binom{|V|}2$ vertex pairs; the cut query $(S,R)$ is "
                     r"$e_S^\top A e_R$, the cut norm $\|A\|_C=\max_{S,R}|A(S,R)|$; rank-1 queries $u^\top A v$, "
                     r"$u,v\in[0,1]^V$, contain the cuts.",
           chapter=_CH, section="1. Graphs as databases",
           implemented_by=("dpbook.graphs.RankOneWorkload", "dpbook.graphs.cut_norm_exact"), source=SOURCE),
    Result(id="IDC-E5", title="Cut coefficients can be 2",
           statement=r"For an undirected graph and $S\cap R\neq\emptyset$ a pair inside $S\cap R$ is counted twice: "
                     r"cut queries have coefficients in $\{0,1,2\}$, which doubles the uniform noise bound.",
           chapter=_CH, section="1. Graphs as databases", implemented_by=("dpbook.graphs.RankOneWorkload",),
           bounds=("dpbook.theory.graphs.rr_cut_error_bound",), source=SOURCE + "; erratum IDC-E5"),
    Result(id="IDC §6.1", title="Randomized response for cuts",
           statement=r"Adding $\mathrm{Lap}(1/\varepsilon)$ to every pair is $\varepsilon$-DP (edge level) and, "
                     r"with probability $1-\beta$, every cut is within $O(|V|^{1.5}/\varepsilon)$, and within "
                     r"$O(\sqrt{|S||R|(|V|+\ln(1/\beta))}/\varepsilon)$ size by size.",
           chapter=_CH, section="2. Randomized response for graphs",
           implemented_by=("dpbook.graphs.graph_randomized_response",),
           bounds=("dpbook.theory.graphs.rr_cut_error_bound", "dpbook.theory.graphs.gru_cut_error_bound",
                   "dpbook.theory.graphs.rr_size_error_bound"), source=SOURCE),
    Result(id="IDC-Lem6.2", title="Synthetic graphs for cuts",
           statement=r"Post-processing the noisy pairs by an LP over $w\in[0,1]^N$ (all cuts within $E$ of the "
                     r"noisy ones) gives a weighted graph within $2E$ of the true one on every cut.",
           chapter=_CH, section="3. A synthetic graph by linear programming",
           implemented_by=("dpbook.graphs.synthetic_graph",),
           bounds=("dpbook.theory.graphs.synthetic_error_bound",), source=SOURCE),
    Result(id="IDC-Rem6.3", title="Rounding to an unweighted graph",
           statement=r"Keeping each pair with probability $w_e$ moves every cut by $O(|V|^{1.5})$ w.h.p.",
           chapter=_CH, section="3. A synthetic graph by linear programming",
           implemented_by=("dpbook.graphs.round_graph",), bounds=("dpbook.theory.graphs.rounding_error_bound",),
           source=SOURCE),
    Result(id="IDC §6.2, Eq. (4)", title="Spectral bound on the normalised cut norm",
           statement=r"$\max_{S,R}|A(S,R)|/\sqrt{|S||R|}\le\sigma_1(A)$ (exact), and $\sigma_1$ is within an "
                     r"$O(\log|V|)$ factor (Nikiforov): the top singular vectors are an approximate separation oracle.",
           chapter=_CH, section="4. The cut norm and its spectral bound",
           implemented_by=("dpbook.graphs.top_singular_value", "dpbook.graphs.spectral_cut"), source=SOURCE),
    Result(id="IDC-Rem6.4", title="Rank-1 queries from the synthetic graph",
           statement=r"A graph close in cut norm is close on all rank-1 queries $u^\top Av$ with $u,v\in[0,1]^V$.",
           chapter=_CH, section="4. The cut norm and its spectral bound",
           implemented_by=("dpbook.graphs.RankOneWorkload",), source=SOURCE),
    Result(id="IDC-Rem4.11", aliases=("IDC-Rem5.3",), title="Online cut release: MW vs Frieze–Kannan",
           statement=r"Online, MW answers cuts within $\tilde O(\sqrt{|E||V|})$ and Frieze–Kannan within "
                     r"$\tilde O(|E|^{1/4}|V|)$: FK wins on dense graphs, $|E|\gtrsim|V|^2/\ln|V|$.",
           chapter=_CH, section="5. Online: multiplicative weights vs Frieze–Kannan",
           implemented_by=("dpbook.idc.online_idc_sv", "dpbook.idc.FriezeKannanIDC"),
           bounds=("dpbook.theory.graphs.mw_cut_rate", "dpbook.theory.graphs.fk_cut_rate",
                   "dpbook.theory.graphs.fk_wins_edges"), source=SOURCE),
    Result(id="IDC-Cor7.4", title="Synthetic graphs from a rank-1 distinguisher",
           statement=r"The offline iterative construction over the edge universe, fed by a private distinguisher for "
                     r"cut/rank-1 queries, releases a synthetic graph within $\tilde O(\sqrt{|E|}(\ln|V|\ln\frac1\delta)^{1/4}"
                     r"\sqrt{|V|/\varepsilon})$ of the true one on every cut (MW); an efficient private distinguisher is open.",
           chapter=_CH, section=_S7, implemented_by=("dpbook.idc.iterative_construction", "dpbook.graphs.RankOneWorkload"),
           bounds=("dpbook.theory.graphs.ic_mw_cut_alpha", "dpbook.theory.graphs.ic_cut_error_bound"),
           source=SOURCE + ", Cor. 7.4 (reconstructed)"),
    Result(id="IDC-Table1", title="Summary of bounds",
           statement=r"Side by side, the all-cuts error bounds of randomized response, the LP synthetic graph, its "
                     r"rounding and the offline iterative construction, at a few $(|V|,|E|,\varepsilon)$.",
           chapter=_CH, section=_S8, bounds=("dpbook.theory.graphs.cut_bound_rows",),
           source=SOURCE + ", Table 1 (reconstructed; the cells were lost)"),
)
