"""What the audit cases share: the book's standard neighbouring pairs (one counting query; counts 0 and 1) and the
small builders that turn a mechanism into ``sample(trials, rng)`` functions and an :class:`AuditCase`."""
from __future__ import annotations

import numpy as np

from .catalogue import AuditCase

__all__: list[str] = []    # building blocks for dpbook.audit.cases, not API


def first_sample(fn, *args, **kwargs):
    """``sample(trials, rng)``: the first released answer of ``fn(*args, trials=, rng=, **kwargs)``."""
    def sample(trials, rng):
        out = fn(*args, trials=trials, rng=rng, **kwargs)
        answers = out.answers if hasattr(out, "answers") else out
        return np.asarray(answers).reshape(trials, -1)[:, 0]
    return sample


def picks(fn, *args, **kwargs):
    """``sample(trials, rng)``: ``fn(*args, trials=, rng=, **kwargs)`` as an int array of picks."""
    return lambda trials, rng: np.asarray(fn(*args, trials=trials, rng=rng, **kwargs)).reshape(trials)


def noisy_value(q, sampler, scale):
    """``sample(trials, rng)`` of ``q + sampler(scale)``: Mironov's setting, a single noisy count."""
    return lambda trials, rng: q + sampler(scale, trials, rng)


def leq0(y):
    return y <= 0


def not_integer(y):
    return y != np.round(y)


def not_in_numpy_image(scale):
    """The event of Mironov's attack: the output is not a value numpy's Laplace(scale) sampler can return."""
    def event(y):
        from ..broken.floating_point import numpy_laplace_image
        return ~numpy_laplace_image(y, scale)
    return event


ONE_COUNT = np.array([[0.0, 1.0]])                  # one query: "count the rows equal to element 1"
X, X_PRIME = np.array([1, 0]), np.array([1, 1])    # add/remove neighbours: counts 0 and 1, n = 1 and 2
X_SWAP = np.array([0, 1])                           # same n as X, count 1 (two add/remove steps away)
PAIR_COUNT = "x=(1,0) vs x'=(1,1), one counting query: q(x)=0, q(x')=1"
PAIR_SAME_N = "x=(1,0) vs x''=(0,1): same n=1, counts 0 and 1 (loss ε in exact arithmetic)"
PAIR_Q = "q=0 vs q'=1 (a count of sensitivity 1)"


def mechanism_case(name, fn, epsilon, *, trials, kind="mechanism", true_epsilon=None, events=None,
                    x=X, x_prime=X_PRIME, pair=PAIR_COUNT, n="public", **kwargs):
    """A case for a mechanism with the signature ``fn(x, workload, *, epsilon, n, trials, rng, ...)``.

    ``n="public"``: both databases are normalised by the same public ``n`` (that of ``x``), as the API
    requires under add/remove; ``n="private"``: each by its own ``||x||_1`` — the misuse chapter 17 audits.
    """
    n_x, n_prime = (int(x.sum()), int(x_prime.sum())) if n == "private" else (int(x.sum()), int(x.sum()))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     first_sample(fn, x, ONE_COUNT, epsilon=epsilon, n=n_x, **kwargs),
                     first_sample(fn, x_prime, ONE_COUNT, epsilon=epsilon, n=n_prime, **kwargs),
                     events or {"y <= 0": leq0}, trials, pair, kind, true_epsilon)


def sampler_case(name, sampler, epsilon, *, trials, kind="mechanism", true_epsilon=None, delta=0.0, events=None,
                  scale=None):
    """A case for ``q + sampler(1/ε)`` on counts 0 and 1 (the noise itself is what is audited)."""
    scale = 1.0 / epsilon if scale is None else scale
    events = events or {"y <= 0": leq0, "y not in numpy's Laplace image": not_in_numpy_image(scale)}
    return AuditCase(name, f"{sampler.__module__}.{sampler.__name__}", epsilon, delta,
                     noisy_value(0.0, sampler, scale), noisy_value(1.0, sampler, scale), events, trials,
                     PAIR_Q, kind, true_epsilon)


