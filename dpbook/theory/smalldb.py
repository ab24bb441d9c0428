"""Bounds for SmallDB and the net mechanism (DR-Alg4, DR-Thm4.5, DR-Def5.2/Prop5.2, PROJ-R3; chapter 08).

Normalised units throughout: errors are fractions of ``n``; ``N = |X|``, ``m = |Q|``; ``ln`` is natural.
"""
from __future__ import annotations

import math

from scipy.special import gammaln

from ..validation import MAX_INT, check_alpha, check_beta, check_epsilon, check_int, check_real
from .registry import BLR, DWORK_ROTH, GRU, PROJECTION_NOTES, THIS_BOOK, Result

__all__ = [
    "smalldb_size", "claim_a3_size", "range_size", "log_range_size", "sampling_failure_bound",
    "net_error_bound", "prop44_error_bound", "thm45_sample_complexity", "thm45_error_bound",
    "proj_r3_sample_complexity", "thm45_histogram_crossover",
]


def smalldb_size(m, alpha) -> int:
    """DR-Alg4 / DR-Lemma4.3: the synthetic databases have ``n_y = ⌈ln|Q| / α²⌉`` rows (their ``db_size``).

    Lemma 4.3's union bound ``2|Q| e^{-2 n_y α²} <= 2/|Q|`` is below 1 only for ``|Q| >= 3`` (erratum DR-E4); for ``|Q| = 1`` the
    formula gives ``n_y = 0``.  IDC-ClaimA.3's size (:func:`claim_a3_size`) works for every ``|Q|``.
    """
    m, alpha = check_int("m", m, low=1), check_alpha(alpha)
    rows = math.log(m) / alpha ** 2
    if rows > MAX_INT:
        raise ValueError(f"alpha ({alpha!r}) is too small: the synthetic databases would have ln(m)/alpha^2 = "
                         f"{rows:.3g} rows (at most 2^53)")
    return math.ceil(rows)


def claim_a3_size(m, alpha) -> int:
    """IDC-ClaimA.3 (Blum–Ligett–Roth): the smallest integer ``n_y > ln(2|Q|) / (2α²)``, i.e. ``⌊·⌋ + 1``.

    At this size ``2|Q| e^{-2 n_y α²} < 1``, so an α-accurate ``n_y``-row database exists (about half DR's size).
    """
    m = check_int("m", m, low=1)
    return math.floor(math.log(2 * m) / (2 * check_alpha(alpha) ** 2)) + 1


def range_size(N, db_size) -> int:
    """``|R| = C(N+n_y-1, n_y)``: the number of multisets of ``db_size = n_y`` rows from a universe of ``N`` (DR-Alg4's
    range).

    At most ``N^{n_y}`` (``(N+i-1)/i <= N`` for each factor): quasi-polynomial in ``N`` (erratum PROJ-E7).
    """
    N, db_size = check_int("N", N, low=1), check_int("db_size", db_size, low=0)
    return math.comb(N + db_size - 1, db_size)


def log_range_size(N, db_size) -> float:
    """``ln C(N+n_y-1, n_y)`` (``db_size = n_y`` rows) via ``gammaln``, for sizes too large to enumerate."""
    N, db_size = check_int("N", N, low=1), check_int("db_size", db_size, low=0)
    return float(gammaln(N + db_size) - gammaln(db_size + 1) - gammaln(N))


def sampling_failure_bound(m, db_size, alpha) -> float:
    """DR-Lemma4.3's proof: ``P[max_q |q(y) - q(x)| > α] <= min(1, 2|Q| e^{-2 n_y α²})`` for ``db_size = n_y`` i.i.d.
    rows ``y`` of ``x``.

    (Chernoff–Hoeffding per query, union bound over the ``|Q| = m`` queries.)
    """
    m, db_size = check_int("m", m, low=1), check_int("db_size", db_size, low=1)
    return min(1.0, 2.0 * m * math.exp(-2.0 * db_size * check_alpha(alpha) ** 2))


def net_error_bound(alpha, net_size, epsilon, n, beta) -> float:
    """DR-Prop5.2: the exponential mechanism over an α-net ``𝒩`` errs by at most ``α + 2(ln|𝒩| + ln(1/β))/(εn)``.

    (DR-Thm3.11 with ``Δu = 1/n`` and ``OPT >= -α``.)  Pass the exact ``OPT`` error of a given ``x`` as
    ``alpha`` (``>= 0``) to get the sharpest form of the guarantee for that ``x``.
    """
    alpha = 0.0 if check_real("alpha", alpha, low=0.0) == 0.0 else check_alpha(alpha)     # an exact net: α = 0
    net_size = check_int("net_size", net_size, low=1, exact=False)
    epsilon, beta, n = check_epsilon(epsilon), check_beta(beta), check_int("n", n, low=1)
    return alpha + 2.0 * (math.log(net_size) + math.log(1.0 / beta)) / (epsilon * n)


def prop44_error_bound(N, m, alpha, epsilon, n, beta) -> float:
    """DR-Prop4.4: with probability ``1-β`` SmallDB's error is at most ``α + 2(ln N ln|Q|/α² + ln(1/β))/(εn)``.

    The proof uses ``ln|R| <= n_y ln N`` with ``n_y = ln|Q|/α²``.  With the integer ``n_y = ⌈ln|Q|/α²⌉`` of the
    algorithm, ``ln|R|`` can exceed ``ln N ln|Q|/α²`` by up to ``ln N`` (chapter 08 checks it never does at
    the sizes used); :func:`net_error_bound` with ``net_size = range_size(N, n_y)`` is the exact form.
    """
    N, m = check_int("N", N, low=1), check_int("m", m, low=1)
    alpha, epsilon, beta = check_alpha(alpha), check_epsilon(epsilon), check_beta(beta)
    n = check_int("n", n, low=1)
    return alpha + 2.0 * (math.log(N) * math.log(m) / alpha ** 2 + math.log(1.0 / beta)) / (epsilon * n)


def thm45_sample_complexity(N, m, alpha, epsilon, beta) -> float:
    """DR-Thm4.5: SmallDB(x, Q, ε, α/2) is α-accurate w.p. ``1-β`` when ``n >= (16 ln N ln|Q| + 4 ln(1/β))/(εα³)``."""
    N, m = check_int("N", N, low=1), check_int("m", m, low=1)
    alpha, epsilon, beta = check_alpha(alpha), check_epsilon(epsilon), check_beta(beta)
    return (16.0 * math.log(N) * math.log(m) + 4.0 * math.log(1.0 / beta)) / (epsilon * alpha ** 3)


def thm45_error_bound(N, m, epsilon, n, beta) -> float:
    """DR-Thm4.5 solved for α: ``((16 ln N ln|Q| + 4 ln(1/β)) / (εn))^{1/3}`` (run SmallDB at half this α)."""
    N, m = check_int("N", N, low=1), check_int("m", m, low=1)
    epsilon, beta, n = check_epsilon(epsilon), check_beta(beta), check_int("n", n, low=1)
    return ((16.0 * math.log(N) * math.log(m) + 4.0 * math.log(1.0 / beta)) / (epsilon * n)) ** (1.0 / 3.0)


def thm45_histogram_crossover(N, m, epsilon, beta) -> tuple[float, float]:
    """Where DR-Thm4.5's error equals the noisy histogram's bound (IDC-Lem6.1): ``(n_x, α_x)``.

    With ``c = (16 ln N ln m + 4 ln(1/β))/ε`` and ``h = sqrt(6 N ln(2m/β))/ε`` (add/remove, ``Lap(1/ε)`` per
    cell) the two bounds are ``(c/n)^{1/3}`` and ``h/n``; they meet at ``n_x = h^{3/2}/c^{1/2}`` with error
    ``α_x = sqrt(c/h)``.  SmallDB's guarantee is the smaller one only for ``n < n_x``, and says something only
    if ``α_x < 1``, i.e. ``h > c``: the histogram's ``sqrt(N)`` must outgrow ``ln N ln m``.
    """
    N, m = check_int("N", N, low=2), check_int("m", m, low=1)
    epsilon, beta = check_epsilon(epsilon), check_beta(beta)
    c = (16.0 * math.log(N) * math.log(m) + 4.0 * math.log(1.0 / beta)) / epsilon
    h = math.sqrt(6.0 * N * math.log(2.0 * m / beta)) / epsilon
    return h ** 1.5 / math.sqrt(c), math.sqrt(c / h)


def proj_r3_sample_complexity(N, m, alpha, epsilon) -> float:
    """PROJ-R3 (the projection-mechanism notes): ``n >= log|X| log m / (α³ ε)`` — DR-Thm4.5 without its constants.

    A *sufficient* size up to a constant factor (erratum PROJ-E9), not a lower bound.
    """
    N, m = check_int("N", N, low=1), check_int("m", m, low=1)
    return math.log(N) * math.log(m) / (check_alpha(alpha) ** 3 * check_epsilon(epsilon))


# --- the results chapter 08 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "08_smalldb"
RESULTS = (
    Result(id="DR-Alg4", title="SmallDB", chapter=_CH, section="SmallDB (DR-Alg4", aliases=("PROJ-R3",),
           statement=r"Use the exponential mechanism to pick, among all databases of $\lceil\ln|Q|/\alpha^2\rceil$ rows, one "
                     r"whose answers to the workload are closest to the data's (score: minus the largest normalised error, "
                     r"sensitivity $1/n$). The range is quasi-polynomial in $|\mathcal X|$, so only tiny universes are "
                     r"feasible.",
           implemented_by=("dpbook.smalldb.smalldb", "dpbook.smalldb.multisets", "dpbook.smalldb.candidate_errors"),
           bounds=("dpbook.theory.smalldb.smalldb_size", "dpbook.theory.smalldb.range_size",
                   "dpbook.theory.smalldb.proj_r3_sample_complexity"),
           source=f"{DWORK_ROTH}, Algorithm 4; {BLR}; {PROJECTION_NOTES}, recap"),
    Result(id="DR-Prop4.1", title="SmallDB is ε-DP", chapter=_CH, section="SmallDB (DR-Alg4",
           statement=r"SmallDB is one call of the exponential mechanism with a score of sensitivity $1/n$, hence ε-DP.",
           implemented_by=("dpbook.smalldb.smalldb",),
           source=f"{DWORK_ROTH}, Prop. 4.1"),
    Result(id="DR-Lemma4.3", title="Small databases suffice", chapter=_CH, section="Small databases suffice",
           aliases=("DR-Thm4.2",),
           statement=r"For any data and any $|Q|\ge3$ linear queries there is a database of $\ln|Q|/\alpha^2$ rows that "
                     r"answers all of them within α: sample that many rows from the data and apply Hoeffding and a union "
                     r"bound.",
           implemented_by=("dpbook.smalldb.subsample_errors",),
           bounds=("dpbook.theory.smalldb.smalldb_size", "dpbook.theory.smalldb.sampling_failure_bound"),
           source=f"{DWORK_ROTH}, Thm. 4.2 and Lemma 4.3; {BLR}"),
    Result(id="IDC-ClaimA.3", title="Small databases suffice (GRU's constants)", chapter=_CH,
           section="Small databases suffice",
           statement=r"A database of $n_y>\ln(2|Q|)/(2\alpha^2)$ rows answering every query of $Q$ within α exists; the "
                     r"union bound now stays below 1 for every $|Q|$.",
           implemented_by=("dpbook.smalldb.subsample_errors",),
           bounds=("dpbook.theory.smalldb.claim_a3_size", "dpbook.theory.idc.median_sample_size"),
           source=f"{GRU}, Claim A.3; {BLR}"),
    Result(id="DR-E4", title="Erratum: SmallDB's size needs |Q| ≥ 3 and an integer", chapter=_CH,
           section="Small databases suffice",
           statement=r"Correction: Lemma 4.3's union bound is $2/|Q|$ at $\ln|Q|/\alpha^2$ rows, so it needs $|Q|\ge3$; and "
                     r"with the integer size $n_y=\lceil\ln|Q|/\alpha^2\rceil$ the range has $\ln\binom{N+n_y-1}{n_y}$ nats, which "
                     r"can exceed the stated $\ln N\ln|Q|/\alpha^2$ by up to $\ln N$.",
           bounds=("dpbook.theory.smalldb.sampling_failure_bound", "dpbook.theory.smalldb.log_range_size"),
           source=THIS_BOOK),
    Result(id="DR-Prop4.4", title="Accuracy of SmallDB", chapter=_CH, section="Accuracy of SmallDB",
           statement=r"With probability $1-\beta$ SmallDB's largest error is at most "
                     r"$\alpha+2(\ln N\ln|Q|/\alpha^2+\ln(1/\beta))/(\varepsilon n)$: the sampling error plus the exponential "
                     r"mechanism's loss over a range of $N^{\ln|Q|/\alpha^2}$ databases.",
           implemented_by=("dpbook.smalldb.smalldb", "dpbook.smalldb.exact_error_distribution"),
           bounds=("dpbook.theory.smalldb.prop44_error_bound",),
           source=f"{DWORK_ROTH}, Prop. 4.4"),
    Result(id="DR-Thm4.5", title="Sample size of SmallDB", chapter=_CH, section="Accuracy of SmallDB",
           statement=r"SmallDB run at $\alpha/2$ is α-accurate w.p. $1-\beta$ once "
                     r"$n\ge(16\ln N\ln|Q|+4\ln(1/\beta))/(\varepsilon\alpha^3)$, i.e. the error falls like $n^{-1/3}$.",
           implemented_by=("dpbook.smalldb.smalldb",),
           bounds=("dpbook.theory.smalldb.thm45_sample_complexity", "dpbook.theory.smalldb.thm45_error_bound",
                   "dpbook.theory.smalldb.thm45_histogram_crossover"),
           source=f"{DWORK_ROTH}, Thm. 4.5"),
    Result(id="DR-Def5.2", title="α-nets", chapter=_CH, section="Accuracy of SmallDB", aliases=("DR-Net",),
           statement=r"A set of databases is an α-net for $Q$ if every database has a member of the set within α on every "
                     r"query; all databases of $\lceil\ln|Q|/\alpha^2\rceil$ rows form one.",
           implemented_by=("dpbook.smalldb.net_mechanism",),
           source=f"{DWORK_ROTH}, §5.1"),
    Result(id="DR-Prop5.2", title="The net mechanism", chapter=_CH, section="Accuracy of SmallDB",
           statement=r"The exponential mechanism over an α-net $\mathcal N$ is ε-DP with error at most "
                     r"$\alpha+2(\ln|\mathcal N|+\ln(1/\beta))/(\varepsilon n)$ w.p. $1-\beta$.",
           implemented_by=("dpbook.smalldb.net_mechanism",),
           bounds=("dpbook.theory.smalldb.net_error_bound",),
           source=f"{DWORK_ROTH}, §5.1"),
    Result(id="PROJ-E7", title="Erratum: SmallDB is not polynomial-time", chapter=_CH,
           section="The running time: quasi-polynomial",
           statement=r"Correction: the range has $|\mathcal X|^{\Theta(\log|Q|/\alpha^2)}$ members, so the running time is "
                     r"quasi-polynomial in $|\mathcal X|$, not polynomial; the book refuses ranges above a size cap.",
           implemented_by=("dpbook.smalldb.smalldb",),
           bounds=("dpbook.theory.smalldb.range_size", "dpbook.theory.smalldb.log_range_size"),
           source=PROJECTION_NOTES),
)
