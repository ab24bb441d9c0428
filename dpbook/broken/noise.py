"""Broken noise: a :class:`dpbook.noise.Noise` whose declaration is false, and the mechanism it breaks.

A mechanism computes its claim from the law a ``Noise`` declares, so :class:`dpbook.noise.Noise` accepts only the
book's own laws.  :func:`broken_noise` builds one *without* that check, for the positive controls of the audits
(chapter 01's half-scale Laplace and other broken twins of :mod:`dpbook.broken`); :func:`laplace_misdeclared_noise`
is the call a mis-declared law used to get through.  Never use these to release data.
"""
from __future__ import annotations

from ..laplace import laplace_mechanism
from ..noise import Noise, discrete_laplace
from ..release import Release

__all__ = ["broken_noise", "laplace_misdeclared_noise"]


def broken_noise(name, family, lattice, steps) -> Noise:
    """BROKEN: a :class:`~dpbook.noise.Noise` declaring ``(family, lattice)`` for ``steps`` without checking that
    ``steps`` draws that law.  A mechanism given it computes its claim from the declaration, so the claim is false
    whenever the declaration is; ``name`` must start with ``"BROKEN"`` (it appears in the release's trace) so that
    such a noise announces itself."""
    if not isinstance(name, str) or not name.startswith("BROKEN"):
        raise ValueError(f"name ({name!r}) must start with 'BROKEN': a noise whose law is not checked must say so")
    return Noise._unchecked(name, family, lattice, steps)


#: Integer noise declared as real-valued: the Laplace mechanism then adds it to counts it does not round.
MISDECLARED_DISCRETE_LAPLACE = broken_noise("BROKEN discrete_laplace declared real-valued", "laplace", None,
                                            discrete_laplace)


def laplace_misdeclared_noise(x, workload, *, epsilon, n=None, trials=None, rng=None) -> Release:
    """BROKEN: :func:`dpbook.laplace.laplace_mechanism` with ``Noise("…", "laplace", None, discrete_laplace)`` — the
    discrete Laplace declared as real-valued noise, the call the API accepted before a ``Noise`` had to declare its
    sampler's true law.

    Believing the noise real-valued, the mechanism does not round the counts onto the integers, so an output is
    ``Qx + integer``: its fractional part is that of the true count.  With a fractional query
    (``q(x) = 0.3 x_0 + x_1``) the counts 0.3 and 0.6 of two neighbours are told apart by ``y mod 1`` with certainty:
    true privacy loss infinite at a claimed ε.  The fixed API refuses the declaration; the honest one
    (``lattice="integers"``, i.e. :data:`dpbook.noise.DISCRETE_LAPLACE`) rounds the counts and pays a lattice step
    per count in sensitivity.
    """
    return laplace_mechanism(x, workload, epsilon=epsilon, n=n, trials=trials, rng=rng,
                             sampler=MISDECLARED_DISCRETE_LAPLACE)
