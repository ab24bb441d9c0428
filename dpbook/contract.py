"""The mechanism contract: the checks every mechanism starts with, in one order (ε, δ, rng, sampler, public n,
batch shape), and what they return (:class:`Prologue`).

It sits above :mod:`dpbook.validation` (the single-parameter checks) and :mod:`dpbook.noise` (the generator and the
samplers), and below every mechanism: a mechanism imports :func:`mechanism_prologue` from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .noise import as_generator, as_noise
from .validation import (MAX_PUBLIC_N, check_delta, check_epsilon, check_int, check_neighbours, check_public_n,
                         check_trials)

# example and EXAMPLES are public but not in __all__: they declare the sweeps' calls of tests/, and the bad-input
# sweep (it walks __all__) must not register calls of its own.
__all__ = ["Prologue", "mechanism_prologue", "N_RULES", "NO_SAMPLER"]

#: How a mechanism uses the row count ``n``: not at all (None); ``"public"`` — answers are divided by it, so
#: it is required under add/remove and read from the data under replace-one (:func:`check_public_n`);
#: ``"required"`` — the caller must always pass it.
N_RULES = (None, "public", "required")


@dataclass(frozen=True)
class Prologue:
    """What :func:`mechanism_prologue` checked, in the order every mechanism takes it: ``epsilon``, ``delta``
    (0.0 for a pure mechanism), ``rng`` (a Generator), ``noise`` (a :class:`dpbook.noise.Noise`, or None),
    ``n`` (the public row count, or None), ``neighbours``, ``trials`` (None or an int) and ``shape`` — the
    batch shape of the noise: ``per_release``, or ``(trials,) + per_release``."""

    epsilon: float
    delta: float
    rng: Any
    noise: Any
    n: int | None
    neighbours: str
    trials: int | None
    shape: tuple[int, ...]

    @property
    def runs(self) -> int:
        """The number of independent runs to draw: ``trials``, or 1 for a single release (``trials=None``)."""
        return 1 if self.trials is None else self.trials


#: ``sampler=`` default of :func:`mechanism_prologue`: the mechanism draws no additive noise (``None`` passed by a
#: caller is a ``TypeError``, like any other value that is not a sampler).
NO_SAMPLER = type("NoSampler", (), {"__repr__": lambda self: "NO_SAMPLER"})()


def mechanism_prologue(*, epsilon, delta=0.0, rng=None, sampler=NO_SAMPLER, n=None, trials=None,
                       neighbours="add/remove", x=None, n_rule=None, per_release=(), positive_delta=False,
                       epsilon_high=None, family=None, lattice_ok=True) -> Prologue:
    """The checks every mechanism starts with, in one order: ε, δ, rng, sampler, public n, batch shape.

    ``epsilon``: :func:`check_epsilon` (at most ``epsilon_high`` when given, e.g. 1 for the classic Gaussian).
    ``delta``: :func:`check_delta` (``positive_delta``: in (0, 1)); a pure mechanism leaves it at 0.
    ``rng``: :func:`dpbook.noise.as_generator`.  ``sampler``: :func:`dpbook.noise.as_noise` with ``family`` and
    ``lattice_ok`` (left at :data:`NO_SAMPLER` when the mechanism draws no additive noise; ``noise`` is then None).  ``neighbours``: :func:`check_neighbours`
    (randomized response's local relation is not a database relation: pass None to skip).  ``n`` by
    ``n_rule`` (:data:`N_RULES`; ``x`` is the histogram it is read from; with no rule, a given ``n`` is checked
    as a row count in [1, 1e12]).  ``trials``: :func:`check_trials` for
    ``per_release`` cells per release (a tuple: the shape of one release's noise).  Every error names the
    caller's parameter: "epsilon (-1.0) must be ...".
    """
    epsilon = check_epsilon(epsilon, high=epsilon_high)
    delta = check_delta(delta, positive=positive_delta)
    rng = as_generator(rng)
    noise = None if sampler is NO_SAMPLER else as_noise(sampler, family=family, lattice_ok=lattice_ok)
    if neighbours is not None:
        neighbours = check_neighbours(neighbours)
    if n_rule not in N_RULES:
        raise ValueError(f"n_rule ({n_rule!r}) must be one of {N_RULES}")
    if n_rule == "public":
        n, _ = check_public_n(n, x, require=neighbours == "add/remove")
    elif n_rule == "required":
        n, _ = check_public_n(n, x, require=True)
    elif n is not None:                                    # a row count the mechanism takes as given
        n = check_int("n", n, low=1, high=MAX_PUBLIC_N)
    per_release = tuple(int(s) for s in per_release)
    cells = 1
    for s in per_release:
        cells *= max(s, 1)
    if trials is not None:
        trials = check_trials(trials, cells)
    shape = per_release if trials is None else (trials,) + per_release
    return Prologue(epsilon, delta, rng, noise, n, neighbours, trials, shape)


# ------------------------------------------------------------------------------- examples of valid calls

#: Valid calls of mechanisms, declared next to each mechanism with :func:`example`, keyed by the mechanism itself:
#: what the sweeps of tests/ run — every mechanism's ledger and release protocol, its bad input, its seeding — where
#: conventional values (an ``x``, a ``workload``, ``epsilon=0.5``) do not make a valid call, or where a variant
#: (``delta > 0``, ``composition="tight"``, data on which an update fires) must be covered too.
EXAMPLES: dict[Callable, tuple[Callable[[], dict], ...]] = {}


def example(mechanism, *calls) -> None:
    """Declare valid calls of ``mechanism`` (a function): each of ``calls`` is a function of no arguments that
    returns the keyword arguments of one call (built when a sweep runs it, so a module's import stays cheap).
    Declared right after the mechanism, in its module; the sweeps find it in :data:`EXAMPLES`."""
    if not callable(mechanism) or not hasattr(mechanism, "__qualname__"):
        raise TypeError(f"mechanism must be a function, got {type(mechanism).__name__}")
    if not calls or not all(callable(c) for c in calls):
        raise TypeError("calls must be one or more functions returning the keyword arguments of a valid call")
    EXAMPLES[mechanism] = EXAMPLES.get(mechanism, ()) + tuple(calls)
