"""The privacy-loss picture of the IDC proof (IDC-Thm4.1, IDC-Claims 4.2–4.8; chapter 12).

GRU Algorithm 1 (:func:`dpbook.idc.online_idc`) outputs, in round ``t``, either ``⊥`` (answer from the
hypothesis) or the noisy answer ``y = Q_t(D) + Z_t``.  Given the past transcript, the hypothesis answer
``a = Q_t(D^t)`` is the same under two neighbouring databases ``D, D'`` (it is a function of the transcript),
so the per-round likelihoods are exact closed forms ([DERIVED] for the PA(i) check of IDC-Thm4.1; Gupta, Roth,
Ullman, TCC 2012).  With ``μ = Q_t(D)``, ``b = 1/(ε0 n)`` and ``F_b`` the ``Lap(0, b)`` CDF:

    p_D(⊥) = F_b(a + τ - μ) - F_b(a - τ - μ),      p_D(y) = e^{-|y - μ|/b} / (2b)   (|y - a| >= τ),

and the privacy loss of the transcript is ``L(v) = Σ_t L_t`` with ``L_t = ln p_D(v_t)/p_{D'}(v_t)``.
:func:`round_loss` computes ``L_t`` in log space (stable deep in the tails); :func:`replay_alg1` runs the
mechanism on ``D`` and computes every ``L_t`` against ``D'``.

The proof's bookkeeping (IDC-Claims 4.2–4.8 [RECON]): with ``d_t = Q_t(D^t) - Q_t(D)`` and the slack
``Δ = 1/n`` (how far one row moves an answer), a round is **R⁰** if ``|Z_t - d_t| < τ - Δ`` (no noise value near it
could cause an update under either database), **R¹** if ``|Z_t - d_t| >= τ + Δ`` (an update under both), **R***
otherwise.  Claim 4.6 bounds the number of non-R⁰ rounds by ``T0`` (the symbol ``T_0``: a number of rounds)
w.p. ``1 - δ/2``; Claim 4.7 bounds the loss of ``T`` non-R⁰ rounds by the Azuma expression
``T ε*(e^{ε*}-1) + 2ε* sqrt(2T ln(2/δ))``.

The correct accounting (erratum IDC-E6, the book's Freedman-type bound
:func:`dpbook.theory.idc.alg1_freedman_epsilon`) charges every round, ⊥ included, through its update probability
``u_t`` (:func:`update_probability`): ``E[L_t²] <= 4 ε0² u_t``.  :func:`round_moments` computes a round's exact
``E[L_t]`` and ``E[L_t²]`` for the tests and the one-round picture.

What the exact numbers show (and the chapter discusses): every ``|L_t| <= ε0`` (a Laplace density ratio or
an interval probability shifted by at most ``Δ = 1/n``), so ``c* = 1`` would do for the realised loss; and
the exact loss of an R⁰ round is *not* zero — it is ``ln p_D(⊥)/p_{D'}(⊥)``, tiny when the hypothesis is
accurate (``|d_t| << τ``) but up to ``ε0`` when ``|d_t| ≈ τ``.  Claim 4.2's "zero loss" is a statement about
the proof's coupling, not about this likelihood ratio.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .data import add_row, bootstrap
from .experiments import FailureRate, failure_rate
from .idc import IDC, AdversarialStream, FixedStream, MultiplicativeWeightsIDC, as_stream, online_idc
from .noise import as_generator, as_noise, laplace_noise
from .theory.idc import (alg1_azuma_epsilon, alg1_freedman_epsilon, alg1_freedman_epsilon0, alg1_threshold,
                         azuma_bound, non_r0_rounds_bound, p0, sv_privacy_epsilon)
from .queries import MatrixWorkload, as_workload, cancer3
from .validation import (real_dtype, as_array, check_alpha, check_delta, check_epsilon, check_histogram, check_int,
                         check_positive_real, check_public_n, check_real, check_real_array, check_scale, check_trials)

__all__ = [
    "R0", "R1", "RSTAR", "HALTED", "CLASS_NAMES",
    "log_interval_probability", "round_log_likelihood", "round_loss", "classify_rounds",
    "update_probability", "round_moments", "peak_moment_ratio", "PrivacyLossReplay", "replay_alg1", "BorderlineStream",
    # chapter 12's runs and their bounds
    "privacy_loss_run", "run_bounds", "fraction_above", "loss_tail_run", "tail_curves",
]

R0, R1, RSTAR, HALTED = 0, 1, 2, 3
#: The largest magnitude of an answer, threshold or released value these functions take (answers are normalised,
#: in [0, 1] for the book's queries; 1e12 leaves room for counts and keeps every difference finite).
ANSWER_RANGE = 1e12
CLASS_NAMES = {R0: "R0 (never updates)", R1: "R1 (updates under both)", RSTAR: "R* (uncertain)",
               HALTED: "halted (no data access)"}


def _values(name, value, *, allow_nan=False):
    """A finite real scalar or array (at most 2-D, non-empty); NaN only where it encodes ``⊥`` (``allow_nan``)."""
    arr = as_array(name, value)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a real number or an array of them, got dtype {arr.dtype}")
    if arr.ndim > 2 or arr.size == 0:
        raise ValueError(f"{name} must be a scalar or a non-empty array of at most 2 dimensions, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if np.isinf(arr).any() or (not allow_nan and np.isnan(arr).any()):
        raise ValueError(f"{name} must be finite{' (NaN means ⊥)' if allow_nan else ''}")
    finite = arr[np.isfinite(arr)]
    if finite.size and np.abs(finite).max() > ANSWER_RANGE:
        raise ValueError(f"{name} ({_largest(finite)}) must lie in [-{ANSWER_RANGE:g}, {ANSWER_RANGE:g}] (an answer, "
                         "threshold or released value in answer units)")
    return arr


def _largest(values: np.ndarray) -> str:
    return f"{values.flat[int(np.argmax(np.abs(values)))]:.3g}"


def _threshold(threshold) -> float:
    """The threshold ``τ`` of Algorithm 1, in answer units: in [1e-12, 1e12]."""
    return check_real("threshold", threshold, low=1e-12, high=ANSWER_RANGE)


def log_interval_probability(lo, hi, b):
    """``ln P[lo < Z < hi]`` for ``Z ~ Lap(0, b)``, stable in both tails (``lo < hi`` elementwise)."""
    lo, hi = np.broadcast_arrays(_values("lo", lo), _values("hi", hi))
    b = check_scale(b, "b")
    if np.any(~(lo < hi)):
        i = int(np.argmax(~(lo < hi)))
        raise ValueError(f"lo ({lo.flat[i]:.6g}) must be < hi ({hi.flat[i]:.6g}) elementwise")
    width = np.log(-np.expm1(-(hi - lo) / b))                  # ln(1 - e^{-(hi-lo)/b})
    right = np.log(0.5) - np.maximum(lo, 0.0) / b + width      # lo >= 0: ½(e^{-lo/b} - e^{-hi/b})
    left = np.log(0.5) + np.minimum(hi, 0.0) / b + width       # hi <= 0: ½(e^{hi/b} - e^{lo/b})
    # lo < 0 < hi: ½(1 - e^{lo/b}) + ½(1 - e^{-hi/b}), without the cancellation of 1 - ½e^{lo/b} - ½e^{-hi/b}
    with np.errstate(divide="ignore"):              # log(0) only in branches np.where discards
        mid = np.log(-0.5 * (np.expm1(np.minimum(lo, 0.0) / b) + np.expm1(-np.maximum(hi, 0.0) / b)))
    return np.where(lo >= 0, right, np.where(hi <= 0, left, mid))


def round_log_likelihood(v, mu, a, threshold, b):
    """``ln p(v)`` of one round of Algorithm 1: ``v = NaN`` means ``⊥``, otherwise the released number.

    ``mu = Q_t(D)``, ``a = Q_t(D^t)`` (the hypothesis answer), ``τ`` the threshold, ``b = 1/(ε0 n)``.  A numeric
    ``v`` must satisfy ``|v - a| >= τ`` (else it has probability 0 and ``-inf`` is returned).
    """
    v, mu, a = np.broadcast_arrays(_values("v", v, allow_nan=True), _values("mu", mu), _values("a", a))
    threshold = _threshold(threshold)
    b = check_scale(b, "b")
    bottom = np.isnan(v)
    d = a - mu
    log_bottom = log_interval_probability(d - threshold, d + threshold, b)
    vv = np.where(bottom, mu, v)
    log_value = np.where(np.abs(vv - a) >= threshold, -np.log(2 * b) - np.abs(vv - mu) / b, -np.inf)
    return np.where(bottom, log_bottom, log_value)


def round_loss(v, mu, mu_prime, a, threshold, b):
    """The exact per-round privacy loss ``L_t = ln p_D(v_t)/p_{D'}(v_t)`` (PA(i), [DERIVED])."""
    mu_prime = _values("mu_prime", mu_prime)
    return round_log_likelihood(v, mu, a, threshold, b) - round_log_likelihood(v, mu_prime, a, threshold, b)


def classify_rounds(Z, d, threshold, slack):
    """IDC-Claims 4.2–4.8 [RECON]: ``R0`` if ``|Z - d| < τ - Δ``, ``R1`` if ``|Z - d| >= τ + Δ``, else ``RSTAR``,
    with ``Δ = slack`` (``1/n`` in Algorithm 1: how far one row moves a normalised answer)."""
    gap = np.abs(_values("Z", Z) - _values("d", d))
    threshold = check_real("threshold", threshold, low=0.0, low_open=True)
    slack = check_positive_real("slack", slack)
    return np.where(gap < threshold - slack, R0, np.where(gap >= threshold + slack, R1, RSTAR)).astype(np.int8)


def update_probability(mu, a, threshold, b):
    """``u = P_D[update] = 1 - p_D(⊥)`` of one round of Algorithm 1 (``mu = Q_t(D)``, ``a = Q_t(D^t)``)."""
    mu, a = np.broadcast_arrays(_values("mu", mu), _values("a", a))
    threshold = _threshold(threshold)
    b = check_scale(b, "b")
    return -np.expm1(log_interval_probability(a - mu - threshold, a - mu + threshold, b))


def round_moments(mu, mu_prime, a, threshold, b, *, points: int = 200_001) -> tuple[float, float]:
    """The exact ``(E[L_t], E[L_t²])`` of one round under ``D`` (scalars): the ⊥ part in closed form, the numeric
    part by the trapezoid rule on ``points`` nodes over ``±(τ + 40 b)`` around the centres (the rest has mass
    ``< e^{-40}``).  ``E[L_t]`` is the round's KL divergence ``KL(P_D ‖ P_D')``."""
    mu, mu_prime, a = (float(check_real(name, v, low=-ANSWER_RANGE, high=ANSWER_RANGE))
                       for name, v in (("mu", mu), ("mu_prime", mu_prime), ("a", a)))
    threshold = _threshold(threshold)
    b = check_scale(b, "b")
    points = int(check_real("points", points, low=1001, high=10_000_001))
    ell_bottom = float(round_loss(np.nan, mu, mu_prime, a, threshold, b))
    p_bottom = float(np.exp(log_interval_probability(a - mu - threshold, a - mu + threshold, b)))
    lo, hi = min(mu, mu_prime, a) - threshold - 40 * b, max(mu, mu_prime, a) + threshold + 40 * b
    y = np.linspace(lo, hi, points)
    outside = np.abs(y - a) >= threshold
    density = np.where(outside, np.exp(-np.abs(y - mu) / b) / (2 * b), 0.0)
    ell = (np.abs(y - mu_prime) - np.abs(y - mu)) / b
    first = p_bottom * ell_bottom + np.trapezoid(density * ell, y)
    second = p_bottom * ell_bottom ** 2 + np.trapezoid(density * ell ** 2, y)
    return float(first), float(second)


def _edge_moment_ratio(epsilon0, edge, n, points) -> float:
    """``E[L_t²] / (ε0² u_t)`` of one round at ``Q_t(D) = 0.3``, ``Q_t(D') = 0.3 + 1/n``, ``b = 1/(ε0 n)``, with a wide ⊥
    window (``τ = 10 b``) whose near edge sits ``edge`` noise scales above ``Q_t(D)``."""
    b = 1 / (epsilon0 * n)
    threshold, a = 10 * b, 0.3 - 10 * b + edge * b                   # ⊥ window (a − τ, Q_t(D) + edge·b)
    second = round_moments(0.3, 0.3 + 1 / n, a, threshold, b, points=points)[1]
    return second / (epsilon0 ** 2 * float(update_probability(0.3, a, threshold, b)))


def peak_moment_ratio(epsilon0, *, n: int = 20, points: int = 50_001, xatol: float = 1e-4) -> tuple[float, float]:
    """How sharp the constant 4 of ``E[L_t²] <= 4 ε0² u_t`` is: the largest ``E[L_t²]/(ε0² u_t)`` over the position
    of the ⊥ window's near edge, for a wide window (``τ = 10 b``) whose edge lies between ``Q_t(D)`` and ``Q_t(D')``
    (``0`` to ``ε0`` noise scales above ``Q_t(D)``: the shift ``1/n`` is ``ε0`` noise scales), one-round moments by
    :func:`round_moments` on ``points`` nodes.  A golden-section search over the edge to ``xatol`` noise scales
    (the ratio is unimodal in it).  Returns ``(ratio, edge)``."""
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=0.5)
    if epsilon0 < 1e-4:                              # b = 1/(ε0 n): the window must stay in answer units
        raise ValueError(f"epsilon0 ({epsilon0!r}) must be >= 1e-4 for the one-round moments")
    n = check_int("n", n, low=1, high=10**6)
    points = check_int("points", points, low=1001, high=10_000_001)
    xatol = check_real("xatol", xatol, low=1e-12, high=1.0)
    ratio = lambda edge: _edge_moment_ratio(epsilon0, edge, n, points)
    golden = (5 ** 0.5 - 1) / 2
    lo, hi = 0.0, epsilon0
    x1, x2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
    f1, f2 = ratio(x1), ratio(x2)
    while hi - lo > xatol:
        if f1 >= f2:                                   # the peak is left of x2
            hi, x2, f2 = x2, x1, f1
            x1 = hi - golden * (hi - lo)
            f1 = ratio(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + golden * (hi - lo)
            f2 = ratio(x2)
    return (f1, x1) if f1 >= f2 else (f2, x2)


@dataclass(frozen=True)
class PrivacyLossReplay:
    """Algorithm 1 replayed on ``D`` with every round's exact loss against ``D'`` (arrays ``(runs, T)``).

    ``hyp`` = ``Q_t(D^t)``; ``mu``, ``mu_prime`` = ``Q_t(D)``, ``Q_t(D')``; ``noise`` = ``Z_t``; ``v`` = the output
    (NaN for ``⊥``); ``cls`` = ``R0 / R1 / RSTAR / HALTED``; ``loss`` = ``L_t`` (0 after termination).
    Scalars: ``epsilon``, ``delta`` (the reconstructed Thm 4.1 claim), ``epsilon0``, ``τ``, ``b``, ``slack``
    (``Δ = 1/n``, the proof's band), ``b_max``, ``T0`` (IDC-Claim4.6's bound ``T_0`` on the number of non-R⁰ rounds),
    ``p0``, ``c_star``.
    """

    hyp: np.ndarray = field(repr=False)
    mu: np.ndarray = field(repr=False)
    mu_prime: np.ndarray = field(repr=False)
    noise: np.ndarray = field(repr=False)
    v: np.ndarray = field(repr=False)
    cls: np.ndarray = field(repr=False)
    loss: np.ndarray = field(repr=False)
    epsilon: float
    delta: float
    epsilon0: float
    threshold: float
    b: float
    slack: float
    b_max: int
    T0: float
    p0: float
    c_star: float

    @property
    def runs(self) -> int:
        return self.loss.shape[0]

    @property
    def total(self) -> np.ndarray:
        """The privacy loss ``L(v)`` of each run's transcript, shape ``(runs,)``."""
        return self.loss.sum(axis=1)

    @property
    def running(self) -> np.ndarray:
        """The running total ``Σ_{t'<=t} L_{t'}``, shape ``(runs, T)``."""
        return np.cumsum(self.loss, axis=1)

    @property
    def updating_rounds(self) -> np.ndarray:
        """The number of non-R⁰ rounds (R¹ or R*) per run (IDC-Claim4.6)."""
        return np.sum((self.cls == R1) | (self.cls == RSTAR), axis=1)

    @property
    def running_T(self) -> np.ndarray:
        """The running number of non-R⁰ rounds among rounds ``1..t`` (the count ``T0`` bounds), shape ``(runs, T)``."""
        return np.cumsum((self.cls == R1) | (self.cls == RSTAR), axis=1)

    @property
    def epsilon_star(self) -> float:
        return self.c_star * self.epsilon0

    def azuma(self, T) -> np.ndarray:
        """IDC-Claim4.7's bound at ``T`` non-R⁰ rounds (vectorised over ``T``)."""
        bound = np.vectorize(lambda rounds: azuma_bound(rounds, self.epsilon_star, self.delta))
        return bound(np.asarray(T, dtype=float))

    def exceedance(self) -> FailureRate:
        """How often ``L(v) > ε``: count, rate and 95% Clopper–Pearson interval (compare with ``δ``)."""
        return failure_rate(self.total, np.nextafter(self.epsilon, np.inf))

    @property
    def update_probability(self) -> np.ndarray:
        """Each round's update probability ``u_t`` under ``D`` given the past (0 after termination), ``(runs, T)``."""
        return np.where(self.cls != HALTED, update_probability(self.mu, self.hyp, self.threshold, self.b), 0.0)

    def class_counts(self) -> dict:
        return {CLASS_NAMES[c]: int(np.sum(self.cls == c)) for c in (R0, R1, RSTAR, HALTED)}

    def loss_by_class(self) -> dict:
        """``max |L_t|`` over all rounds of each class (R⁰'s is not 0: see the module docstring)."""
        return {CLASS_NAMES[c]: float(np.abs(self.loss[self.cls == c]).max(initial=0.0)) for c in (R0, R1, RSTAR)}


def replay_alg1(x, x_prime, rule, stream, *, delta, epsilon=None, epsilon0=None, b_max=None, n=None,
                c_star=2.0, runs=1, rng=None, sampler=laplace_noise, mechanism=online_idc) -> PrivacyLossReplay:
    """Run IDC-Alg1 (:func:`dpbook.idc.online_idc`) ``runs`` times on ``x`` and compute every round's exact
    privacy loss against the neighbour ``x_prime`` (same public ``n``), plus the proof's round classes.

    The stream may adapt to the transcript (e.g. :class:`~dpbook.idc.AdversarialStream`, whose ``reference`` is
    fixed in advance): the queries and hypotheses are functions of the transcript, so they are the same under
    ``x'``.  ``mechanism`` is :func:`~dpbook.idc.online_idc` or a variant with its signature (the broken control of
    :mod:`dpbook.broken.idc`), called with ``debug=True``: the round classes need every round's noise, which only
    the :class:`~dpbook.idc.NotARelease` next to the release holds; the replay's ``epsilon`` is the variant's
    *claim*.
    """
    x = check_histogram(x)
    x_prime = check_histogram(x_prime, "x_prime")
    if x_prime.shape != x.shape:
        raise ValueError(f"x_prime must have shape {x.shape} like x, got {x_prime.shape}")
    if np.abs(x - x_prime).sum() > 1:
        raise ValueError(f"x and x_prime must be neighbours (||x - x'||_1 <= 1), got {np.abs(x - x_prime).sum()}")
    # the mechanisms' prologue, check by check in its order (dpbook.contract.mechanism_prologue), with the replay's
    # own names (epsilon0, runs); the mechanism then runs it again on the same values
    if (epsilon0 is None) == (epsilon is None):
        raise ValueError("give either epsilon0 or epsilon (with delta), not both")
    if epsilon0 is None:
        epsilon = check_epsilon(epsilon)
    else:
        epsilon0 = check_epsilon(epsilon0, "epsilon0")
    delta = check_delta(delta, positive=True)
    rng = as_generator(rng)
    as_noise(sampler, family="laplace", lattice_ok=False)
    n, _ = check_public_n(n, x)                 # the same public n for x and x_prime
    runs = check_trials(runs, name="runs")
    stream = as_stream(stream)
    kwargs = dict(epsilon=epsilon) if epsilon0 is None else dict(epsilon0=epsilon0)
    rel, internals = mechanism(x, rule, stream, delta=delta, b_max=b_max, n=n, c_star=c_star, trials=runs, rng=rng,
                               sampler=sampler, record=True, debug=True, **kwargs)
    W = stream.workload
    p = rel.params
    threshold, b, slack = p["threshold"], p["noise_scale"], 1.0 / n
    queries = np.atleast_2d(rel.queries)
    mu = (W.counts(x) / n)[queries]
    mu_prime = (W.counts(x_prime) / n)[queries]
    hyp, Z, active = rel.trace["hypothesis_answers"], internals["noise"], rel.trace["active"]
    v = np.where(np.atleast_2d(rel.updated), np.atleast_2d(rel.answers), np.nan)
    loss = np.where(active, round_loss(v, mu, mu_prime, hyp, threshold, b), 0.0)
    cls = np.where(active, classify_rounds(Z, hyp - mu, threshold, slack), HALTED).astype(np.int8)
    eps0 = p["epsilon0"]
    return PrivacyLossReplay(hyp, mu, mu_prime, Z, v, cls, loss, rel.epsilon, rel.delta, eps0, threshold, b, slack,
                             p["b_max"], non_r0_rounds_bound(p["b_max"], rel.delta, eps0), p0(eps0), c_star)


class BorderlineStream:
    """The analyst who makes Algorithm 1's privacy loss largest on a known pair ``D, D' = D + row``: in each of ``T``
    rounds each run is asked, among the workload queries that contain ``row`` (so ``Q(D') - Q(D) = 1/n``, the largest
    shift), the one whose hypothesis gap ``Q(D^t) - Q(D)`` is closest to ``target`` (e.g. ``-τ``: the ⊥ window's
    edge sits at ``Q(D)``, so the round updates with probability about ½ and ``ℓ(⊥)`` is near its largest).

    ``reference`` is ``D`` itself: the privacy adversary knows the pair (the stream is a fixed function of the
    released hypothesis and of ``reference``, the same whichever database the mechanism runs on).
    """

    def __init__(self, workload, T, *, reference, row, target):
        self.workload = as_workload(workload)
        self.T = check_int("T", T, low=1)
        reference = check_histogram(reference, "reference")
        if reference.size != self.workload.N:
            raise ValueError(f"reference has {reference.size} universe elements, the workload {self.workload.N}: "
                             "they must agree")
        row = check_int("row", row, low=0, high=self.workload.N - 1)
        self.target = check_real("target", target, low=-ANSWER_RANGE, high=ANSWER_RANGE)
        unit = np.zeros(self.workload.N)
        unit[row] = 1.0
        self._inside = np.flatnonzero(self.workload.counts(unit) > 0)
        if self._inside.size == 0:
            raise ValueError(f"row ({row}) lies in no query of the workload: the pair would be indistinguishable")
        self._sub = MatrixWorkload(self.workload.matrix()[self._inside])      # only the queries that contain row
        self._counts = self._sub.counts(reference).astype(np.float64)

    def pick(self, t, view):
        """Round ``t``'s query for every run: the one containing ``row`` whose gap is closest to ``target``."""
        # linear hypotheses (IDC.answers: Q·D^t) by einsum, not a BLAS product: one of this shape (runs × N by
        # N × m) wakes OpenBLAS's threads, which spin for several times the CPU of the sum on a shared machine
        if type(view.rule).answers is IDC.answers and isinstance(self._sub.Q, np.ndarray):
            answers = np.einsum("rn,mn->rm", np.asarray(view.hypothesis, dtype=np.float64), self._sub.Q)
        else:
            answers = view.rule.answers(view.hypothesis, self._sub)
        gap = answers - self._counts / view.n
        return self._inside[np.argmin(np.abs(gap - self.target), axis=1)]


# --------------------------------------------------------------------------- chapter 12's runs and their bounds

@lru_cache(typed=True, maxsize=32)
def privacy_loss_run(n=1000, b_max=30, epsilon=1.0, delta=1e-6, alpha=0.6, *, rounds=400, runs=300, seed=2026):
    """IDC-Alg1 with the MW rule at ``α/3`` on ``n`` cancer patients resampled on three attributes (``N = 8``), a
    seeded random order of the 255 counting queries, replayed against ``D' = D +`` one more copy of the commonest
    row, with ``ε0`` from the book's Freedman-type bound (:func:`~dpbook.theory.idc.alg1_freedman_epsilon0`).
    Returns ``(replay, ε0)``.  Cached: the callbacks redraw only."""
    n, b_max = check_int("n", n, low=1, high=10**7), check_int("b_max", b_max, low=0, high=10**4)
    epsilon, delta, alpha = check_epsilon(epsilon), check_delta(delta, positive=True), check_alpha(alpha)
    rounds, runs = check_int("rounds", rounds, low=1, high=10**4), check_int("runs", runs, low=2, high=10**5)
    x3, W8 = cancer3()
    x = bootstrap(x3, n, rng=seed)
    eps0 = alg1_freedman_epsilon0(epsilon, b_max, delta)
    order = np.random.default_rng(seed).integers(0, W8.m, rounds)
    rep = replay_alg1(x, add_row(x, int(np.argmax(x))), MultiplicativeWeightsIDC(8, alpha / 3), FixedStream(W8, order),
                      delta=delta, epsilon0=eps0, b_max=b_max, n=n, runs=runs, rng=seed)
    return rep, eps0


def _check_replay(rep) -> PrivacyLossReplay:
    if not isinstance(rep, PrivacyLossReplay):
        raise TypeError(f"rep must be a PrivacyLossReplay (replay_alg1's result), got {type(rep).__name__}")
    return rep


def run_bounds(rep, epsilon0, delta, b_max) -> dict:
    """The bounds of the whole-run view at every round ``t`` (arrays over ``t = 1..T``): basic ``t ε0``, Azuma over
    every round (:func:`~dpbook.theory.idc.alg1_azuma_epsilon`), the book's Freedman-type bound
    (:func:`~dpbook.theory.idc.alg1_freedman_epsilon`), IDC-Alg1-SV's claim with ``c = B_max + 1``
    (:func:`~dpbook.theory.idc.sv_privacy_epsilon`); and the erratum's accounting per run (IDC-E6: Azuma over the
    realised non-R⁰ rounds only, R⁰ counted free), shape ``(runs, T)``."""
    rep = _check_replay(rep)
    epsilon0, delta = check_epsilon(epsilon0, "epsilon0"), check_delta(delta, positive=True)
    b_max = check_int("b_max", b_max, low=0, high=10**4)
    t = np.arange(1, rep.loss.shape[1] + 1, dtype=float)
    return {
        "basic": t * epsilon0,
        "azuma": np.array([alg1_azuma_epsilon(int(tt), epsilon0, delta) for tt in t]),
        "freedman": np.full(t.shape, alg1_freedman_epsilon(epsilon0, b_max, delta)),
        "sv": np.full(t.shape, sv_privacy_epsilon(epsilon0, b_max + 1, delta)),
        "claim42": rep.running_T * epsilon0 * np.expm1(epsilon0)
                   + 2 * epsilon0 * np.sqrt(2 * rep.running_T * np.log(2 / delta)),
    }


def fraction_above(rep, bounds) -> dict:
    """The fraction of runs whose running loss ever exceeds each bound curve (``bounds``: name -> an array over
    the rounds, or over the runs and the rounds, as :func:`run_bounds` returns)."""
    rep = _check_replay(rep)
    if not isinstance(bounds, dict):
        raise TypeError(f"bounds must be a dict of name -> curve, got {type(bounds).__name__}")
    T = rep.loss.shape[1]
    bounds = {name: check_real_array(f"bounds[{name!r}]", curve) for name, curve in bounds.items()}
    for name, curve in bounds.items():
        if curve.shape[-1:] != (T,):
            raise ValueError(f"bounds[{name!r}] has shape {curve.shape}; its last axis must be the {T} rounds")
    running = rep.running
    return {name: float(np.mean(np.any(running > curve, axis=1))) for name, curve in bounds.items()}


@lru_cache(typed=True, maxsize=4)
def loss_tail_run(n=200, epsilon0=0.05, b_max=10, alpha=0.6, *, rounds=None, runs=4000, seed=2026):
    """The regime chosen to make Algorithm 1's loss largest: ``n`` cancer patients resampled on three attributes
    (``N = 8``, 255 counting queries), ``D' = D +`` one more copy of the commonest row, and the
    :class:`~dpbook.privacy_loss.BorderlineStream` analyst who, every round, asks a query containing that row whose
    hypothesis is off by ``-τ`` (the ⊥ window's edge at ``Q(D)``: updates with probability ½, the largest
    ``E[L_t²]/u_t`` of the searched targets).  ``rounds`` defaults to ``4(B_max + 1)``, past which nearly every run
    has stopped.  Returns the :class:`~dpbook.privacy_loss.PrivacyLossReplay` (cached)."""
    n, b_max = check_int("n", n, low=1, high=10**7), check_int("b_max", b_max, low=0, high=10**4)
    epsilon0, alpha = check_epsilon(epsilon0, "epsilon0", high=0.5), check_alpha(alpha)
    rounds = 4 * (b_max + 1) if rounds is None else check_int("rounds", rounds, low=1, high=10**4)
    runs = check_int("runs", runs, low=2, high=10**6)
    x3, W8 = cancer3()
    x = bootstrap(x3, n, rng=seed)
    row = int(np.argmax(x))
    stream = BorderlineStream(W8, rounds, reference=x, row=row, target=-alg1_threshold(alpha))
    return replay_alg1(x, add_row(x, row), MultiplicativeWeightsIDC(8, alpha / 3), stream, delta=0.5,
                       epsilon0=epsilon0, b_max=b_max, n=n, runs=runs, rng=seed)


def tail_curves(rep, deltas) -> dict:
    """For each ``δ`` in ``deltas``: the measured ``(1-δ)``-quantile of the loss ``L`` and the bounds' ``ε(δ)`` at the
    replay's ``ε0`` — the book's Freedman-type bound, Azuma over all ``T`` rounds, basic ``T ε0`` — and the share of
    runs with ``L`` above each, plus above the erratum's accounting (IDC-E6: Azuma over the run's realised number
    ``T'`` of non-R⁰ rounds, ``T' ε0(e^{ε0} - 1) + 2ε0 sqrt(2T' ln(2/δ))``, R⁰ counted free).  A valid bound has
    share ``<= δ``."""
    rep = _check_replay(rep)
    deltas = np.asarray([check_delta(d, "deltas", positive=True) for d in np.atleast_1d(deltas)])
    L, T, e0 = rep.total, rep.loss.shape[1], rep.epsilon0
    out = {"delta": deltas, "measured": np.quantile(L, 1 - deltas),
           "freedman": np.array([alg1_freedman_epsilon(e0, rep.b_max, d) for d in deltas]),
           "azuma": np.array([alg1_azuma_epsilon(T, e0, d) for d in deltas]),
           "basic": np.full(deltas.shape, T * e0)}
    non_r0 = rep.updating_rounds                                   # T', per run
    erratum = [non_r0 * e0 * np.expm1(e0) + 2 * e0 * np.sqrt(2 * non_r0 * np.log(2 / d)) for d in deltas]
    out["share"] = {name: np.array([np.mean(L > b) for b in out[name]]) for name in ("freedman", "azuma", "basic")}
    out["share"]["erratum"] = np.array([np.mean(L > e) for e in erratum])
    return out
