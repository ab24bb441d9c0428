"""Run many seeded trials of a mechanism at once and compare the error distribution with a bound.

The accuracy check ACC(α, β) used in every chapter: run ``R`` independent releases (one noise array of shape
``R × m``), record ``E_r = max_q |a_q - q(x)|``, and report the failure rate ``#{E_r >= α}/R`` with a
Clopper–Pearson interval.  A check passes when the data are consistent with rate ``<= β`` at level
1e-6 (so a correct mechanism fails a check with probability at most 1e-6, and a real bug still fails).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .contract import example
from .data import bootstrap
from .noise import as_generator
from .queries import as_workload
from .stats import clopper_pearson, clopper_pearson_lower
from .validation import (check_alpha, check_beta, check_histogram, check_int, check_probability, check_real,
                         check_real_array, check_trials)

__all__ = ["Errors", "errors", "run_trials", "with_public_n", "uniform_guess", "uniform_guess_error", "FailureRate",
           "failure_rate", "required_n"]


@dataclass(frozen=True)
class Errors:
    """Absolute errors of ``trials`` releases on ``m`` queries (normalised units)."""

    per_query: np.ndarray        # (trials, m)

    @property
    def max(self) -> np.ndarray:
        """``max_q |a_q - q(x)|`` for each trial, shape ``(trials,)``."""
        return self.per_query.max(axis=1)

    @property
    def mean(self) -> np.ndarray:
        """Mean absolute error over the queries for each trial, shape ``(trials,)``."""
        return self.per_query.mean(axis=1)

    @property
    def trials(self) -> int:
        return self.per_query.shape[0]


def errors(released, true) -> Errors:
    """Errors of released answers (``(m,)`` or ``(trials, m)``) against the true answers ``(m,)``."""
    released = np.atleast_2d(check_real_array("released", released))
    true = check_real_array("true", true)
    if true.ndim != 1 or released.ndim != 2 or released.shape[1] != true.shape[0]:
        raise ValueError(f"released {released.shape} and true {true.shape} answers must agree on m")
    return Errors(np.abs(released - true))


def with_public_n(mechanism, x, params: dict) -> dict:
    """``params`` plus ``n = ||x||_1`` when ``mechanism`` takes ``n`` and ``params`` does not set it."""
    import inspect
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of keyword arguments, got {type(params).__name__}")
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {type(mechanism).__name__}")
    try:
        takes_n = "n" in inspect.signature(mechanism).parameters
    except (TypeError, ValueError):
        takes_n = False
    if not takes_n or "n" in params:
        return params
    return {**params, "n": int(check_histogram(x).sum())}


def run_trials(mechanism, x, workload, *, trials: int, rng=None, **params) -> Errors:
    """Call ``mechanism(x, workload, trials=trials, rng=rng, **params)`` once and return its errors.

    An experiment measures accuracy on a database whose size it knows: when the mechanism takes the public
    row count ``n`` and ``params`` does not give it, ``n = ||x||_1`` is passed (the book's convention that
    ``n`` is public; a release on real private data passes its own public ``n``).
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(x, workload, trials=..., rng=..., ...), "
                        f"got {type(mechanism).__name__}")
    W = as_workload(workload)
    trials = check_trials(trials)
    params = with_public_n(mechanism, x, params)
    release = mechanism(x, W, trials=trials, rng=rng, **params)
    return errors(release.answers, W.answers(x))


def uniform_guess(workload) -> np.ndarray:
    """The data-independent answers ``Q(uniform)``: every query's answer on the uniform distribution over the
    universe (the start of multiplicative weights).  An accuracy plot draws its error as the line a mechanism
    must beat to have learned anything from the data."""
    W = as_workload(workload)
    return W.answers(np.ones(W.N))


def uniform_guess_error(x, workload, *, metric: str = "max") -> float:
    """The error of :func:`uniform_guess` on the histogram ``x``: ``metric`` = ``"max"`` (``max_q |Q(u) - q(x)|``),
    ``"rms"`` or ``"mean"`` (absolute) over the queries, in normalised units."""
    x = check_histogram(x)
    W = as_workload(workload)
    if not isinstance(metric, str) or metric not in ("max", "rms", "mean"):
        raise ValueError(f"metric ({metric!r}) must be 'max', 'rms' or 'mean'")
    gap = np.abs(W.answers(x) - uniform_guess(W))
    return float(gap.max() if metric == "max" else np.sqrt(np.mean(gap ** 2)) if metric == "rms" else gap.mean())


@dataclass(frozen=True)
class FailureRate:
    """``failures`` out of ``trials`` exceeded the bound; ``(lower, upper)`` is a 95% Clopper–Pearson CI."""

    failures: int
    trials: int
    lower: float
    upper: float

    @property
    def rate(self) -> float:
        return self.failures / self.trials

    def consistent_with(self, beta, level: float = 1e-6) -> bool:
        """True unless the data show ``P[failure] > β`` at significance ``level`` (one-sided CP)."""
        beta = check_probability(beta, "beta")
        return clopper_pearson_lower(self.failures, self.trials, level) <= beta


def failure_rate(values, bound) -> FailureRate:
    """How often ``values >= bound`` (e.g. max errors against an error bound α), with a 95% CI."""
    values = check_real_array("values", values)
    bound = check_real("bound", bound)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {values.shape}")
    failures = int(np.count_nonzero(values >= bound))
    lo, hi = clopper_pearson(failures, values.size, 0.05)
    return FailureRate(failures, int(values.size), lo, hi)


def required_n(mechanism, x, workload, *, alpha, beta, n_grid, trials, rng=None, **params) -> int | None:
    """PROJ-Def1's figure of merit: the smallest ``n`` in ``n_grid`` at which ACC(α, β) passes
    (chapter 04 runs it on :func:`dpbook.gaussian.gaussian_mechanism` and
    :func:`dpbook.gaussian.composed_laplace_mechanism`).

    For each candidate ``n`` the database is ``dpbook.data.bootstrap(x, n)`` (the real data resampled to
    ``n`` rows) and ``mechanism(x_n, workload, trials=trials, **params)`` is run with the *same* noise seed
    at every ``n`` (common random numbers).  ACC passes when the fraction of trials with
    ``max_q |a_q - q(x_n)| >= α`` is at most β (the accuracy check of this module's docstring).
    For an additive-noise mechanism
    (Gaussian, Laplace) the noise on the counts does not depend on ``n``, so with common random numbers the
    failure rate is non-increasing in ``n`` and a bisection over the sorted grid finds the same ``n`` as a
    scan.  Returns ``None`` when even the largest ``n`` fails.
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {type(mechanism).__name__}")
    x = check_histogram(x)
    W = as_workload(workload)
    alpha, beta = check_alpha(alpha), check_beta(beta)
    trials = check_trials(trials)
    grid = np.unique(np.asarray(n_grid))
    if grid.size == 0 or not np.issubdtype(grid.dtype, np.integer) or grid[0] < 1:
        raise ValueError("n_grid must be a non-empty sequence of integers >= 1")
    rng = as_generator(rng)
    data_seed, noise_seed = (int(s) for s in rng.integers(0, 2**63 - 1, size=2))

    def passes(n):
        x_n = bootstrap(x, int(n), np.random.default_rng([data_seed, int(n)]))
        release = mechanism(x_n, W, trials=trials, rng=noise_seed, **with_public_n(mechanism, x_n, params))
        truth = W.answers(x_n.astype(np.float64))     # float counts: numpy's fast product (exact for 0/1 queries)
        return failure_rate(errors(release.answers, truth).max, alpha).rate <= beta

    if not passes(grid[-1]):
        return None
    lo, hi = -1, grid.size - 1                                          # grid[hi] passes; grid[lo] fails
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if passes(grid[mid]) else (mid, hi)
    return int(grid[hi])


def uniform_guess_prefix_error(x, workload) -> np.ndarray:
    """The uniform guess's max error over the first ``j`` queries, for every ``j = 1..m`` at once:
    ``max_{i <= j} |Q(uniform)_i - q_i(x)|`` (normalised units), shape ``(m,)``.  A chapter that reads a
    mechanism's max error over the first ``|Q|`` queries of a workload draws this curve as the level the
    mechanism must beat (:func:`uniform_guess_error` is its last entry)."""
    x = check_histogram(x)
    W = as_workload(workload)
    if x.size != W.N:
        raise ValueError(f"x has {x.size} cells but the workload's universe has {W.N}")
    return np.maximum.accumulate(np.abs(W.answers(x) - uniform_guess(W)))


__all__ += ["uniform_guess_prefix_error", "parameter_table"]


def parameter_table(rows, *, limit: float = 1e7) -> str:
    """A two-column table, theory value vs the value used, ``INFEASIBLE`` past ``limit`` (the theorems' parameters
    next to the ones the chapter can run).

    ``rows``: ``(name, theory, practical, note)``; numbers are printed with 4 significant digits.
    """
    limit = check_real("limit", limit, low=0.0, low_open=True)
    rows = list(rows)
    for row in rows:
        if not isinstance(row, (tuple, list)) or len(row) != 4:
            raise ValueError(f"rows ({row!r}) must each be (name, theory, practical, note)")
    def fmt(v):
        if isinstance(v, str):
            return v
        if v is None:
            return "-"
        text = f"{v:.4g}"
        return text + ("  INFEASIBLE" if isinstance(v, (int, float)) and abs(v) > limit else "")
    lines = [f"{'parameter':<28}{'theory':>22}{'used':>16}   note", "-" * 96]
    lines += [f"{name:<28}{fmt(th):>22}{fmt(pr):>16}   {note}" for name, th, pr, note in rows]
    return "\n".join(lines)


def _example_call():
    from .laplace import laplace_mechanism
    from .queries import k_way_marginals
    return dict(mechanism=laplace_mechanism, x=np.array([3.0, 1.0, 2.0, 4.0]), workload=k_way_marginals(2, 1),
                epsilon=1.0)


# valid calls of the experiment runners, for the sweeps of tests/ (determinism, bad input)
example(run_trials, lambda: dict(_example_call(), trials=20))
example(required_n, lambda: dict(_example_call(), alpha=0.5, beta=0.5, n_grid=[10, 1000], trials=20))
