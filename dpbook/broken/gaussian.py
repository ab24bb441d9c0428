"""Deliberately broken Gaussian mechanisms (positive controls for chapter 04's audits). Never use them.

Each releases ``(Q x + N(0, σ² I)) / n`` like :func:`dpbook.gaussian.gaussian_mechanism` but with a σ that
is too small for the (ε, δ) it claims; each docstring says exactly what is wrong.
"""
from __future__ import annotations

import math

from ..noise import gaussian_noise
from ..queries import as_workload
from ..release import Release, Spend
from ..contract import mechanism_prologue
from ..validation import check_delta, check_epsilon, check_histogram

__all__ = ["gaussian_forgets_log_factor", "gaussian_single_query_sensitivity", "gaussian_classic_any_epsilon"]


def _release(x, workload, sigma, epsilon, delta, n, trials, rng, name):
    x = check_histogram(x)
    W = as_workload(workload)
    p = mechanism_prologue(epsilon=epsilon, delta=delta, rng=rng, n=n, trials=trials, x=x, n_rule="required",
                           per_release=(W.m,), positive_delta=True)        # like the real mechanism: n is public
    answers = (W.counts(x) + gaussian_noise(sigma, p.shape, p.rng)) / p.n
    return Release(answers, name, noise_scale=sigma / n, ledger=(Spend(name, epsilon, delta),))


def gaussian_forgets_log_factor(x, workload, *, epsilon, delta, n=None, trials=None, rng=None) -> Release:
    """BROKEN: ``σ = Δ2/ε`` — drops the factor ``sqrt(2 ln(1.25/δ))`` of DR-Gauss (about 5.3 at δ = 1e-6),
    so σ is several times too small and the privacy loss exceeds ε with probability far above δ."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    sigma = as_workload(workload).l2_sensitivity() / epsilon
    return _release(x, workload, sigma, epsilon, delta, n, trials, rng, "broken: gaussian without log factor")


def gaussian_single_query_sensitivity(x, workload, *, epsilon, delta, n=None, trials=None, rng=None) -> Release:
    """BROKEN: calibrates σ to the L2 sensitivity of *one* query (``Δ2 = 1``) whatever the workload, so for
    ``m`` queries that all change with one row (true ``Δ2 = sqrt(m)``) σ is ``sqrt(m)`` times too small."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    sigma = math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    return _release(x, workload, sigma, epsilon, delta, n, trials, rng, "broken: gaussian with one-query sensitivity")


def gaussian_classic_any_epsilon(x, workload, *, epsilon, delta, n=None, trials=None, rng=None) -> Release:
    """BROKEN for large ε: the classic ``σ = sqrt(2 ln(1.25/δ)) Δ2/ε`` *without* DR-Gauss's condition
    ``ε < 1``.  At ``ε = 10``, ``δ = 1e-5`` its exact privacy curve gives ``δ(ε) ≈ 2.3e-5 > δ`` (too small to
    see in a sampled audit; chapter 04 shows it with the exact curve)."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    sigma = math.sqrt(2.0 * math.log(1.25 / delta)) * as_workload(workload).l2_sensitivity() / epsilon
    return _release(x, workload, sigma, epsilon, delta, n, trials, rng, "broken: classic gaussian at any epsilon")
