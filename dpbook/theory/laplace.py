"""Bounds for the Laplace distribution and mechanism (DR-Def3.1–3.2, DR-Thm3.8, LEC3-3.1–3.3; chapter 01)."""
from __future__ import annotations

import numpy as np

from ..validation import check_split, check_alpha, check_beta, check_epsilon, check_int, check_real, check_sensitivity, check_real_array
from .registry import BLUM_ROTH, DWORK_ROTH, GRU, LECTURE3, Result

__all__ = [
    "laplace_cdf", "laplace_tail", "laplace_scale", "laplace_max_error_bound", "laplace_failure_probability",
    "per_query_epsilon", "split_budget_error_bound", "split_budget_sample_complexity",
]


def laplace_cdf(z, mu=0.0, b=1.0):
    """CDF of ``Lap(mu, b)`` (S1-Def5; LEC3 has the ``z <= mu`` branch wrong, erratum LEC3-E1).

    ``F(z) = exp((z-mu)/b)/2`` for ``z <= mu`` and ``1 - exp(-(z-mu)/b)/2`` for ``z >= mu``.
    """
    mu = check_real("mu", mu)
    b = check_sensitivity(b, "b")
    z = check_real_array("z", z)
    u = (z - mu) / b
    return np.where(u <= 0, 0.5 * np.exp(np.minimum(u, 0)), 1 - 0.5 * np.exp(-np.maximum(u, 0)))


def laplace_tail(z, b=1.0):
    """``P[|Z| >= z] = exp(-z/b)`` for ``Z ~ Lap(b)`` at the point(s) ``z >= 0`` (``Lap(b)``: density
    ``exp(-|u|/b)/(2b)``)."""
    b = check_sensitivity(b, "b")
    z = check_real_array("z", z, low=0.0)
    return np.exp(-z / b)


def laplace_scale(sensitivity, epsilon) -> float:
    """The Laplace mechanism's noise scale ``b = Δf / ε`` (IDC-Thm2.3 / DR-Thm3.6)."""
    return check_sensitivity(sensitivity) / check_epsilon(epsilon)


def laplace_max_error_bound(m, beta, sensitivity, epsilon) -> float:
    """DR-Thm3.8 ≡ LEC3-3.3: ``P[ ||f(x) - y||_∞ >= ln(m/β) · Δf/ε ] <= β`` for ``m`` noisy answers;
    returns ``ln(m/β)·Δf/ε``."""
    m = check_int("m", m, low=1)
    return float(np.log(m / check_beta(beta)) * laplace_scale(sensitivity, epsilon))


def laplace_failure_probability(alpha, m, sensitivity, epsilon) -> float:
    """Exact ``P[max_i |Y_i| >= α]`` for ``m`` i.i.d. ``Lap(Δf/ε)``: ``1 - (1 - e^{-αε/Δf})^m``.

    DR-Thm3.8 is the union bound ``m·e^{-αε/Δf}`` of this; the chapter shows both.
    """
    alpha = check_alpha(alpha)
    m = check_int("m", m, low=1)
    p = np.exp(-alpha / laplace_scale(sensitivity, epsilon))
    return float(-np.expm1(m * np.log1p(-p))) if p < 1 else 1.0


def per_query_epsilon(epsilon, m) -> float:
    """Basic-composition budget split (LEC3-3.3.2): ``ε_0 = ε / m`` for each of ``m`` queries."""
    return check_split(check_epsilon(epsilon), check_int("m", m, low=1), parts_name="m")


def split_budget_error_bound(m, beta, epsilon, n=None) -> float:
    """LEC3-3.3.2: with prob. ``1-β`` all ``m`` counting queries answered with the split budget (noise
    ``Lap(m/ε)`` each) are within ``m·ln(m/β)/ε`` counts — divided by ``n`` when ``n`` is given (normalised
    error, PROJ-R2)."""
    m = check_int("m", m, low=1)
    bound = laplace_max_error_bound(m, beta, 1.0, per_query_epsilon(epsilon, m))
    return bound if n is None else bound / check_int("n", n, low=1)


def split_budget_sample_complexity(m, beta, epsilon, alpha) -> float:
    """LEC3-3.3.2 / PROJ-R2: with the split budget, ``n = m·ln(m/β)/(ε α)`` rows make the normalised error of
    all ``m`` counting queries at most ``α`` (w.p. ``1-β``)."""
    return split_budget_error_bound(m, beta, epsilon) / check_alpha(alpha)


# --- the results chapter 01 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "01_laplace"
RESULTS = (
    Result(id="LEC3-3.1", title="Databases as histograms", chapter=_CH, section="Databases as histograms",
           statement="A table of $n$ rows from a universe $\\mathcal X$ and its histogram $x\\in\\mathbb N^{|\\mathcal X|}$ "
                     "(one count per possible row) carry the same information: summing indicator vectors turns the "
                     "table into the histogram, and listing each row as often as it is counted turns it back.",
           implemented_by=("dpbook.data.histogram", "dpbook.data.rows_from_histogram"),
           source=f"{LECTURE3}, §3.1"),
    Result(id="LEC3-E3", title="Erratum: a row is an element of the universe", chapter=_CH,
           section="Databases as histograms",
           statement="Correction: each data point is an *element* of $\\mathcal X$; the notes say it \"can be represented "
                     "as $\\mathcal X$\".",
           source=f"{LECTURE3}, §3.1 (cosmetic)"),
    Result(id="DR-DP", title="(ε, δ)-differential privacy", chapter=_CH,
           section="Neighbouring databases and differential privacy", aliases=("LEC3-3.2",),
           statement="A randomised $M$ is $(\\varepsilon,\\delta)$-DP when, for every pair of neighbouring databases "
                     "and every set $S$ of outputs, $\\Pr[M(x)\\in S]\\le e^{\\varepsilon}\\Pr[M(x')\\in S]+\\delta$; "
                     "$\\delta=0$ is pure $\\varepsilon$-DP. Every release of the book states its ε, δ and neighbour relation.",
           implemented_by=("dpbook.release.Release", "dpbook.audit.audit"),
           source=f"{DWORK_ROTH}, Def. 2.4; {LECTURE3}, §3.2"),
    Result(id="S1-Def3", title="Neighbouring databases", chapter=_CH,
           section="Neighbouring databases and differential privacy",
           statement="Two databases are neighbours when one is the other with one row added or removed "
                     "($\\|x-x'\\|_1=1$); under the replace-one relation both have $n$ rows and differ in one row.",
           implemented_by=("dpbook.data.add_row", "dpbook.data.remove_row", "dpbook.data.replace_row",
                           "dpbook.data.random_neighbour"),
           source=f"{BLUM_ROTH}, Def. 3; {DWORK_ROTH}, §2.3"),
    Result(id="S1-E3", title="Erratum: neighbours differ in at most one row", chapter=_CH,
           section="Neighbouring databases and differential privacy",
           statement="Correction: neighbours satisfy $|D\\triangle D'|\\le 1$; the summary writes $\\ge 1$.",
           source=f"{BLUM_ROTH}, Def. 3"),
    Result(id="S1-E5", title="Erratum: the DP inequality is an upper bound", chapter=_CH,
           section="Neighbouring databases and differential privacy",
           statement="Correction: the definition bounds $\\Pr[M(D)\\in S]$ from *above* by "
                     "$e^{\\varepsilon}\\Pr[M(D')\\in S]+\\delta$; the summary writes $\\ge$.",
           source=f"{BLUM_ROTH}, Def. 4"),
    Result(id="DR-Def3.1", title="ℓ1-sensitivity", chapter=_CH,
           section="Neighbouring databases and differential privacy",
           statement="The $\\ell_1$-sensitivity $\\Delta f$ is the largest $\\|f(x)-f(x')\\|_1$ over neighbours: 1 for one "
                     "counting query, at most $m$ for $m$ of them, and for a histogram 1 under add/remove but 2 under "
                     "replace-one.",
           implemented_by=("dpbook.queries.Workload.l1_sensitivity",),
           bounds=("dpbook.theory.histogram.histogram_sensitivity",),
           source=f"{DWORK_ROTH}, Def. 3.1"),
    Result(id="DR-Def3.2", title="The Laplace distribution", chapter=_CH, section="The Laplace distribution",
           aliases=("S1-Def5",),
           statement="$\\mathrm{Lap}(b)$ has density $e^{-|z|/b}/(2b)$; its CDF is $\\tfrac12e^{z/b}$ left of 0 and "
                     "$1-\\tfrac12e^{-z/b}$ right of it, so $\\Pr[|Z|\\ge z]=e^{-z/b}$ for $z\\ge0$.",
           implemented_by=("dpbook.noise.laplace_noise",),
           bounds=("dpbook.theory.laplace.laplace_cdf", "dpbook.theory.laplace.laplace_tail"),
           source=f"{DWORK_ROTH}, Def. 3.2; {BLUM_ROTH}, Def. 5"),
    Result(id="LEC3-E1", title="Erratum: the Laplace CDF left of the centre", chapter=_CH,
           section="The Laplace distribution",
           statement="Correction: for $z\\le\\mu$ the CDF is $\\tfrac12e^{(z-\\mu)/b}$ (the notes flip the sign of the "
                     "exponent, which makes the 'CDF' exceed 1).",
           bounds=("dpbook.theory.laplace.laplace_cdf",),
           source=f"{LECTURE3}, §3.3"),
    Result(id="IDC-Thm2.3", title="The Laplace mechanism", chapter=_CH, section="The Laplace mechanism is ε-DP",
           aliases=("DR-Thm3.6",),
           statement="Adding independent $\\mathrm{Lap}(\\Delta f/\\varepsilon)$ noise to each coordinate of $f(x)$ is "
                     "$\\varepsilon$-DP: the output density moves by a factor at most $e^{\\varepsilon\\|f(x)-f(x')\\|_1/\\Delta f}$.",
           implemented_by=("dpbook.laplace.laplace_mechanism",),
           bounds=("dpbook.theory.laplace.laplace_scale",),
           source=f"{DWORK_ROTH}, Thm. 3.6; {GRU}, Thm. 2.3"),
    Result(id="DR-Thm3.8", title="Accuracy of the Laplace mechanism", chapter=_CH, section="How accurate is it?",
           aliases=("LEC3-3.3",),
           statement="With $m$ noisy answers of scale $\\Delta f/\\varepsilon$, the largest error exceeds "
                     "$\\ln(m/\\beta)\\,\\Delta f/\\varepsilon$ with probability at most $\\beta$ (a union bound over the $m$ "
                     "Laplace tails).",
           implemented_by=("dpbook.laplace.laplace_mechanism",),
           bounds=("dpbook.theory.laplace.laplace_max_error_bound", "dpbook.theory.laplace.laplace_failure_probability"),
           source=f"{DWORK_ROTH}, Thm. 3.8; {LECTURE3}, §3.3"),
    Result(id="LEC3-E2", title="Erratum: the ∞-norm takes absolute values", chapter=_CH, section="How accurate is it?",
           statement="Correction: $\\|f(x)-y\\|_\\infty=\\max_i|f(x)_i-y_i|$ (the notes drop the absolute value), and the "
                     "'δ' of the accuracy statement is a failure probability β, not the privacy δ.",
           bounds=("dpbook.theory.laplace.laplace_max_error_bound",),
           source=f"{LECTURE3}, §3.3"),
    Result(id="LEC3-3.3.2", title="m counting queries with a split budget", chapter=_CH,
           section="Answering m queries: budget split and sample complexity",
           statement="To answer $m$ counting queries with total budget ε, give each $\\varepsilon/m$ (basic composition), "
                     "i.e. noise $\\mathrm{Lap}(m/\\varepsilon)$; then all errors are below $m\\ln(m/\\beta)/\\varepsilon$ counts "
                     "w.p. $1-\\beta$, and $n=m\\ln(m/\\beta)/(\\varepsilon\\alpha)$ rows give normalised error α. Advanced "
                     "composition turns $m$ into $\\approx\\sqrt{m}$ at a small δ.",
           implemented_by=("dpbook.laplace.laplace_mechanism", "dpbook.gaussian.composed_laplace_mechanism"),
           bounds=("dpbook.theory.laplace.per_query_epsilon", "dpbook.theory.laplace.split_budget_error_bound",
                   "dpbook.theory.laplace.split_budget_sample_complexity",
                   "dpbook.theory.composition.laplace_per_query_scale"),
           source=f"{LECTURE3}, §3.3.2"),
    Result(id="S1-Def2", title="(α, β)-accuracy", chapter=_CH, section="How accurate is it?",
           aliases=("IDC-Def2.5",),
           statement="A mechanism $M$ answering a set $Q$ of queries is $(\\alpha,\\beta)$-accurate when, for every "
                     "database $x$, with probability at least $1-\\beta$ over its coins every answer is within α: "
                     "$\\max_{q\\in Q}|M(x)_q-q(x)|\\le\\alpha$ (normalised answers). α is the error, β the failure "
                     "probability — not the privacy δ. The summary's version writes $\\ge\\alpha$ (erratum S1-E2).",
           implemented_by=("dpbook.experiments.failure_rate",),
           source=f"{BLUM_ROTH}, Def. 2; {GRU}, Def. 2.5"),
)
