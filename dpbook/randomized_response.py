"""Randomized response for linear queries (LEC3-3.4, corrected; chapter 02).

Each person holds one private bit ``x_i`` and reports ``Y_i = x_i`` with probability ``p = e^ε/(1+e^ε)``,
``1 - x_i`` otherwise.  Each report is ε-DP for its owner's bit, whatever the others do, so the whole vector of
reports is ε-DP for neighbours that differ in **one person's private bit** (no trusted curator needed: this
is local DP).  The analyst debiases ``x̂_i = 1/2 + (Y_i - 1/2)/(2p - 1)`` (erratum LEC3-E4: not ``2^{p-1}``)
and answers any number of linear queries ``q^T x̂ / n`` for free (post-processing).

Two views of the same mechanism:

* :func:`randomized_response` / :func:`rr_linear_queries`: a vector of bits, one report per person, queries
  ``q ∈ [0,1]^n`` weighting people (exactly LEC3-3.4);
* :func:`rr_histogram` / :func:`rr_mechanism`: the private bit is one attribute of the rows of a histogram over
  ``{0,1}^d`` and the other attributes are public.  People with the same public attributes are exchangeable, so
  the number of 1-reports in a public cell with ``c1`` ones and ``c0`` zeros is ``Bin(c1, p) + Bin(c0, 1-p)``
  — the same distribution as person-by-person, drawn in ``O(|X|)`` per trial instead of ``O(n)``.  Any
  workload over the universe is then answered from the debiased histogram.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .histogram import NoisyHistogram
from .queries import MarginalWorkload, check_database
from .release import Release, ReleaseRecord, Spend
from .theory.randomized_response import rr_bias_factor, rr_keep_probability
from .contract import mechanism_prologue
from .validation import real_dtype, as_array, check_histogram, check_int, check_matrix_workload

__all__ = [
    "RRReports", "check_bits", "check_reports", "randomized_response", "debias", "rr_linear_queries", "rr_histogram",
    "rr_mechanism", "attribute_index", "person_bits", "subgroup_workload",
]

NEIGHBOURS = "one person's private bit changes"


def check_bits(bits, name: str = "bits") -> np.ndarray:
    """A non-empty 1-D array of private bits in ``{0, 1}`` (ints, whole floats or booleans); returns ``int8``."""
    arr = as_array(name, bits)
    if not real_dtype(arr.dtype, bools=True):
        raise TypeError(f"{name} must be an array of 0/1 bits, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one bit per person), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty (at least one person)")
    bad = ~np.isin(arr, (0, 1))
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"{name}[{i}] ({arr[i]!r}) must be a bit, 0 or 1")
    return arr.astype(np.int8)


@dataclass(frozen=True)
class RRReports(ReleaseRecord):
    """The released reports ``Y`` (``int8`` 0/1, shape ``(n,)`` or ``(trials, n)``) and the claim behind them."""

    reports: np.ndarray = field(repr=False)
    p: float
    mechanism: str = "randomized response"
    neighbours: str = NEIGHBOURS
    ledger: tuple[Spend, ...] = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)

    @property
    def released(self) -> np.ndarray:
        """The reports themselves (each person's randomized bit)."""
        return self.reports

    def estimate(self) -> np.ndarray:
        """The unbiased estimate ``x̂ = 1/2 + (Y - 1/2)/(2p - 1)`` (LEC3-3.4), same shape as ``reports``."""
        return debias(self.reports, self.epsilon)


def randomized_response(bits, *, epsilon, trials=None, rng=None) -> RRReports:
    """Report each bit truthfully with probability ``p = e^ε/(1+e^ε)``, flipped otherwise — ε-DP (LEC3-3.4).

    ``trials`` draws that many independent report vectors at once (shape ``(trials, n)``).
    """
    bits = check_bits(bits)
    pro = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, neighbours=None, per_release=bits.shape)
    epsilon = pro.epsilon
    p = rr_keep_probability(epsilon)               # the whole budget goes to each person's own bit
    keep = pro.rng.random(pro.shape) < p
    reports = np.where(keep, bits, 1 - bits).astype(np.int8)
    return RRReports(reports, p, ledger=(Spend("randomized response, one report per person", epsilon),))


def debias(reports, epsilon) -> np.ndarray:
    """``x̂ = 1/2 + (Y - 1/2)/tanh(ε/2)``: ``E[x̂_i] = x_i`` (LEC3-3.4; erratum LEC3-E4).  Any shape of 0/1 ``Y``."""
    return 0.5 + (check_reports(reports) - 0.5) / rr_bias_factor(epsilon)


def check_reports(reports) -> np.ndarray:
    """Randomized responses: a non-empty array (any shape) of 0/1 values, as float64 (``TypeError`` /
    ``ValueError`` naming ``reports`` otherwise; LEC3-3.4's ``Y``)."""
    Y = as_array("reports", reports)
    if not real_dtype(Y.dtype, bools=True):
        raise TypeError(f"reports must be an array of 0/1 reports, got dtype {Y.dtype}")
    if Y.size == 0 or not np.all(np.isin(Y, (0, 1))):
        raise ValueError("reports must be a non-empty array of 0/1 reports")
    return Y.astype(np.float64)


def rr_linear_queries(bits, Q, *, epsilon, trials=None, rng=None) -> Release:
    """LEC3-3.4: answer ``m`` linear queries ``q ∈ [0,1]^n`` (rows of ``Q``, one weight per person) as
    ``q^T x̂ / n`` from the randomized responses — ε-DP for any ``m`` (post-processing).

    With probability ``1 - β`` all ``m`` errors are at most ``sqrt(ln(2m/β)/(2n)) / tanh(ε/2)``
    (:func:`dpbook.theory.randomized_response.rr_error_bound`).  ``Q`` is dense or scipy.sparse, ``(m, n)``.
    """
    bits = check_bits(bits)
    Q = check_matrix_workload(Q)
    if Q.shape[1] != bits.size:
        raise ValueError(f"Q has {Q.shape[1]} columns but there are {bits.size} people (bits)")
    released = randomized_response(bits, epsilon=epsilon, trials=trials, rng=rng)
    X_hat = np.atleast_2d(released.estimate())
    answers = np.asarray(Q @ X_hat.T).T / bits.size
    return Release(answers[0] if trials is None else answers, released.mechanism,
                   ledger=released.ledger, neighbours=released.neighbours)


def _dimension(N: int) -> int:
    d = int(N).bit_length() - 1
    if N < 2 or (1 << d) != N:
        raise ValueError(f"x must be a histogram over {{0,1}}^d (length a power of 2, >= 2), got length {N}")
    return d


def rr_histogram(x, *, epsilon, bit, trials=None, rng=None) -> NoisyHistogram:
    """Randomized response on attribute ``bit`` of every row of the histogram ``x`` over ``{0,1}^d`` — ε-DP
    for the private attribute (neighbours: one person's bit changes; the other attributes are public).

    Returns the debiased histogram: for each public cell with ``c`` people, the estimated number with bit 1 is
    ``sum_i x̂_i = c/2 + (R - c/2)/(2p-1)`` where ``R`` people reported 1, and ``c`` minus that with bit 0.
    ``R ~ Bin(c1, p) + Bin(c0, 1-p)`` exactly as if each person reported separately.
    """
    x = check_histogram(x)
    pro = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, neighbours=None)
    epsilon, rng, trials = pro.epsilon, pro.rng, pro.trials
    d = _dimension(x.size)
    bit = check_int("bit", bit, low=0, high=d - 1)
    p, two_p_minus_1 = rr_keep_probability(epsilon), rr_bias_factor(epsilon)   # the whole ε on each bit
    mask = 1 << (d - 1 - bit)
    u0 = np.flatnonzero((np.arange(x.size) & mask) == 0)           # public cells, private bit 0
    u1 = u0 | mask                                                 # the same public cells, private bit 1
    u0, u1 = u0[x[u0] + x[u1] > 0], u1[x[u0] + x[u1] > 0]          # empty public cells stay exactly 0
    c1, c0 = x[u1], x[u0]
    lead = () if trials is None else (trials,)
    said_one = rng.binomial(c1, p, size=lead + u0.shape) + rng.binomial(c0, 1.0 - p, size=lead + u0.shape)
    c = (c0 + c1).astype(np.float64)
    ones = c / 2 + (said_one - c / 2) / two_p_minus_1             # sum of x̂_i over the cell (LEC3-3.4)
    counts = np.zeros(lead + (x.size,))
    counts[..., u1] = ones
    counts[..., u0] = c - ones
    return NoisyHistogram(counts, int(x.sum()), "randomized response", NEIGHBOURS,
                          ledger=(Spend("randomized response, one report per person", epsilon),))


def rr_mechanism(x, workload, *, epsilon, bit, trials=None, rng=None) -> Release:
    """Answer ``workload`` (over the universe of ``x``) from :func:`rr_histogram` — ε-DP for attribute ``bit``.

    The error of a query ``q`` is ``sum_i w_i (x̂_i - x_i) / n`` with ``w_i = q(row_i with bit 1) - q(row_i with
    bit 0) ∈ [-1, 1]``, so LEC3-3.4's Hoeffding bound applies unchanged.
    """
    x, W = check_database(x, workload)
    return rr_histogram(x, epsilon=epsilon, bit=bit, trials=trials, rng=rng).release(W)


def attribute_index(dataset, attribute) -> int:
    """The position of ``attribute`` (a name or an index) among the dataset's attributes."""
    names = dataset.universe.attributes
    if isinstance(attribute, str):
        if attribute not in names:
            raise ValueError(f"attribute ({attribute!r}) must be one of {list(names)}")
        return names.index(attribute)
    return check_int("attribute", attribute, low=0, high=dataset.universe.d - 1)


def person_bits(dataset, attribute) -> np.ndarray:
    """One private bit per person: column ``attribute`` of the dataset's table (rows sorted by universe index)."""
    return dataset.table()[:, attribute_index(dataset, attribute)].astype(np.int8)


_SUBGROUPS: dict = {}


def subgroup_workload(d: int = 11, bit: int = 10, max_public: int = 3, seed: int = 2026):
    """Queries "public subgroup S and private bit = 1": every cell of the ≤ ``max_public``-way marginals of the
    public attributes (plus the empty subgroup), with the private attribute fixed to 1, in a seeded random order.

    For the cancer data (``d = 11``, ``bit = 10`` = malignant, ``max_public = 3``) that is 1161 queries.
    """
    d = check_int("d", d, low=2, high=40)
    bit = check_int("bit", bit, low=0, high=d - 1)
    max_public = check_int("max_public", max_public, low=1, high=d - 1)
    key = (d, bit, max_public, check_int("seed", seed, low=0))
    if key not in _SUBGROUPS:
        public = [a for a in range(d) if a != bit]
        cells = [((bit,), (1,))]
        for r in range(1, max_public + 1):
            for S in itertools.combinations(public, r):
                cells += [(S + (bit,), v + (1,)) for v in itertools.product((0, 1), repeat=r)]
        order = np.random.default_rng(seed).permutation(len(cells) - 1) + 1
        _SUBGROUPS[key] = MarginalWorkload(d, [cells[0]] + [cells[i] for i in order])
    return _SUBGROUPS[key]
