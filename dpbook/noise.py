"""Randomness: the one ``rng`` convention and the noise distributions.

Every random function of dpbook takes ``rng`` — a ``numpy.random.Generator``, an int seed, or ``None``
(fresh OS entropy) — and turns it into a Generator with :func:`as_generator`.  Nothing uses numpy's
global state, so the same seed always gives the same output.

Noise samplers share one signature, ``sampler(scale, size, rng) -> ndarray``, so a mechanism can take
the sampler as a parameter (``sampler=laplace_noise``) and a chapter can swap in another one.  The samplers
are named ``laplace_noise`` and ``gaussian_noise`` so that they are never confused with the mechanisms'
modules :mod:`dpbook.laplace` and :mod:`dpbook.gaussian`.

**The default is fast, not safe.**  Every mechanism defaults to :func:`laplace_noise` / :func:`gaussian_noise`,
numpy's floating-point samplers.  As floating-point programs they are *not* differentially private: the set of
doubles they can return depends on the true answer, and chapter 17 reproduces Mironov's (2012) attack on the book's
own Laplace mechanism.  They stay the default because no exact sampler comes within 3x of their speed: measured at
10^6 draws (``benchmarks/samplers.md``), :func:`discrete_laplace_exact` costs about 240-380x numpy's Laplace
sampler and :func:`discrete_gaussian_exact` about 870-1240x numpy's normal sampler (seconds per 10^6 draws), which
the chapters' experiments with thousands of trials cannot afford.  A deployment passes ``sampler=grid_laplace`` or
``sampler=discrete_laplace`` (1.3-2.4x numpy; support-exact, probabilities in floating point) or
``sampler=discrete_laplace_exact`` / ``discrete_gaussian_exact`` (the exact law) to a mechanism that adds noise to
counts; mechanisms that add noise to normalised reals refuse lattice noise.
"""
from __future__ import annotations

import numbers

import numpy as np

from .validation import (real_dtype, EPSILON_EXP_MAX, MAX_INT, as_array, check_epsilon, check_int, check_noise_scale, check_real,
                         check_scale, check_sensitivity, check_trials, check_work)

__all__ = ["as_generator", "laplace_noise", "gaussian_noise", "check_size"]

def as_generator(rng=None) -> np.random.Generator:
    """Turn ``rng`` (Generator, non-negative int seed, or None) into a ``numpy.random.Generator``.

    A Generator is returned as is (so successive calls share its stream); an int seeds a new PCG64.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return np.random.default_rng(check_int("rng", rng, low=0, exact=False))
    raise TypeError(
        f"rng must be a numpy.random.Generator, a non-negative int seed or None, got {type(rng).__name__}")

def check_size(size) -> tuple[int, ...]:
    """Normalise a numpy-style ``size`` (int or tuple of ints >= 0) to a tuple."""
    if type(size) is tuple and all(type(s) is int and 0 <= s <= MAX_INT for s in size):
        shape = size                              # plain ints in range: what check_int returns for each
    else:
        if isinstance(size, (numbers.Integral, np.integer)) and not isinstance(size, (bool, np.bool_)):
            size = (size,)
        if not isinstance(size, tuple):
            raise TypeError(f"size must be an int or a tuple of ints, got {type(size).__name__}")
        shape = tuple(check_int("size", s, low=0) for s in size)
    check_work(size=math.prod(shape))
    return shape


#: The most draws one call of an exact (pure-Python, a few µs a draw) sampler may ask for: 10^7 ≈ a minute.
MAX_EXACT_DRAWS = 10 ** 7


def _check_exact_size(size) -> tuple[int, ...]:
    shape = check_size(size)
    if math.prod(shape) > MAX_EXACT_DRAWS:
        raise ValueError(f"size ({size}) asks for {math.prod(shape):.3g} draws; an exact sampler (a Python loop) "
                         f"takes at most {MAX_EXACT_DRAWS:.0e} per call")
    return shape

def laplace_noise(scale, size, rng=None) -> np.ndarray:
    """Draw i.i.d. ``Lap(scale)`` noise, density ``exp(-|z|/scale) / (2 scale)`` (S1-Def5, DR-Def3.2).

    Uses numpy's floating-point sampler; see chapter 17 for why a careful library rounds its output.
    """
    scale = check_scale(scale)
    return as_generator(rng).laplace(0.0, scale, size=check_size(size))

def gaussian_noise(scale, size, rng=None) -> np.ndarray:
    """Draw i.i.d. ``N(0, scale^2)`` noise (DR-Gauss; ``scale`` is the standard deviation sigma)."""
    scale = check_scale(scale)
    return as_generator(rng).normal(0.0, scale, size=check_size(size))


# ---------------------------------------------------------------------------------------------------------
# Floating-point-safe noise (chapter 17).
#
# ``laplace_noise`` above is the textbook sampler: numpy computes ``scale * log(2U)`` in floating point, so the
# set of values it can return is a sparse, irregular subset of the doubles, and ``q + noise`` rounds
# differently for different ``q``.  An observer who sees one output can then tell ``q = 0`` from ``q = 1``
# (Mironov 2012; ``dpbook.broken.floating_point`` mounts the attack).  The samplers below return noise on
# an exact lattice — the integers, or the multiples of a power of two — so that ``q + noise`` is exact
# for ``q`` on the same lattice, and the support no longer depends on ``q``.
#
# Two flavours of each discrete distribution (Canonne, Kamath, Steinke 2020, "The discrete Gaussian for
# differential privacy", here CKS20):
#   * ``discrete_laplace`` / ``discrete_gaussian``: vectorised with numpy.  The *support* is exact (every
#     integer, whatever the input), the *probabilities* come from floating-point arithmetic (numpy's
#     geometric sampler, a floating-point acceptance test), so they are right up to relative errors of
#     order 1e-16 and the far tail beyond about 37·scale is cut off.  That is (ε, δ)-DP with δ of order
#     2^-53 — no support attack, but not exactly ε-DP.
#   * ``discrete_laplace_exact`` / ``discrete_gaussian_exact``: CKS20 Algorithms 1–3 in exact rational
#     arithmetic with Python ints (every coin is a uniform integer compared with an integer): the output
#     distribution is exactly the discrete Laplace / Gaussian with parameter ``Fraction(scale)``.  A Python
#     loop, about 10–30 µs a sample: for tests, audits and modest sizes.
# ---------------------------------------------------------------------------------------------------------

from fractions import Fraction  # noqa: E402
import math  # noqa: E402

__all__ += [
    "discrete_laplace", "discrete_laplace_exact", "discrete_gaussian", "discrete_gaussian_exact",
    "discrete_laplace_pmf", "discrete_gaussian_pmf", "discrete_gaussian_delta",
    "GRID_BITS", "grid_granularity", "round_to_grid", "grid_laplace",
]

MAX_DISCRETE_SCALE = 2.0 ** 50      # beyond this, integer noise can overflow int64 / lose exactness
GRID_BITS = 40                      # the grid is 2^-40 of the noise scale (capped at 1)


def _check_discrete_scale(scale) -> float:
    return check_scale(scale, high=MAX_DISCRETE_SCALE)


def discrete_laplace(scale, size, rng=None) -> np.ndarray:
    """Integer noise ``Z`` with ``P[Z = k] ∝ exp(-|k| / scale)`` (two-sided geometric; CKS20 Def. 2).

    For an integer-valued query of sensitivity ``Δ`` (an integer), ``q + Z`` with ``scale = Δ/ε`` is ε-DP:
    ``P[k] / P[k + d] <= e^{|d|/scale}``.  Sampled as the difference of two i.i.d. geometric variables
    with success probability ``1 - e^{-1/scale}`` (numpy's integer sampler; floating-point probabilities,
    exact integer support — see the section comment above).  Returns ``int64``.
    """
    scale = _check_discrete_scale(scale)
    size = check_size(size)
    rng = as_generator(rng)
    p = -math.expm1(-1.0 / scale)
    return rng.geometric(p, size=size) - rng.geometric(p, size=size)


def discrete_gaussian(scale, size, rng=None) -> np.ndarray:
    """Integer noise with ``P[Z = k] ∝ exp(-k² / (2 scale²))`` (discrete Gaussian, CKS20 Def. 1).

    ``scale`` is the parameter ``σ`` (the variance is at most ``σ²``).  For an integer query of
    sensitivity ``Δ`` it is ``Δ²/(2σ²)``-zCDP (CKS20 Thm 4) and (ε, δ)-DP with the exact δ of
    :func:`discrete_gaussian_delta`.  Sampled by CKS20 Algorithm 3 — a discrete Laplace proposal with
    ``t = floor(σ) + 1`` accepted with probability ``exp(-(|Y| - σ²/t)² / (2σ²))`` — vectorised, with
    a floating-point acceptance test.  Returns ``int64``.
    """
    sigma = _check_discrete_scale(scale)
    shape = check_size(size)
    rng = as_generator(rng)
    t = math.floor(sigma) + 1
    need = math.prod(shape)
    out = np.empty(need, dtype=np.int64)
    filled = 0
    while filled < need:
        batch = max(16, int(1.7 * (need - filled)))     # acceptance rate >= ~0.6 (CKS20 §5.3)
        y = discrete_laplace(t, batch, rng)
        accept = rng.random(batch) < np.exp(-(np.abs(y) - sigma ** 2 / t) ** 2 / (2 * sigma ** 2))
        y = y[accept][: need - filled]
        out[filled: filled + y.size] = y
        filled += y.size
    return out.reshape(shape)


# --- exact samplers (CKS20 Algorithms 1-3 with Python integers) ---------------------------------------------

class _Coins:
    """Exact uniform integers from a Generator's random bytes (rejection sampling, any Python int bound)."""

    def __init__(self, rng: np.random.Generator, chunk: int = 1 << 14):
        self.rng, self.chunk = rng, chunk
        self.buf, self.pos = b"", 0

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``."""
        if bound == 1:
            return 0
        nbits = (bound - 1).bit_length()
        nbytes = (nbits + 7) // 8
        excess = 8 * nbytes - nbits
        while True:
            if self.pos + nbytes > len(self.buf):
                self.buf, self.pos = self.buf[self.pos:] + self.rng.bytes(max(self.chunk, nbytes)), 0
            r = int.from_bytes(self.buf[self.pos:self.pos + nbytes], "little") >> excess
            self.pos += nbytes
            if r < bound:
                return r

    def bernoulli_exp(self, num: int, den: int) -> bool:
        """``Bernoulli(exp(-num/den))`` exactly (CKS20 Algorithm 1)."""
        while num > den:                     # exp(-γ) = exp(-1) · exp(-(γ - 1))
            if not self.bernoulli_exp(1, 1):
                return False
            num -= den
        k = 1
        while self.below(den * k) < num:     # coin k: Bernoulli(γ/k); P[first failure at odd k] = exp(-γ)
            k += 1
        return k % 2 == 1

    def discrete_laplace(self, t: int, s: int) -> int:
        """One draw with ``P[y] ∝ exp(-|y| s/t)``: scale ``t/s`` (CKS20 Algorithm 2)."""
        while True:
            u = self.below(t)
            if not self.bernoulli_exp(u, t):
                continue
            v = 0
            while self.bernoulli_exp(1, 1):
                v += 1
            y = (u + t * v) // s
            negative = self.below(2) == 1
            if negative and y == 0:
                continue
            return -y if negative else y

    def discrete_gaussian(self, a: int, b: int) -> int:
        """One draw with ``P[y] ∝ exp(-y²/(2σ²))``, ``σ² = a/b`` (CKS20 Algorithm 3)."""
        t = math.isqrt(a // b) + 1                               # floor(σ) + 1
        while True:
            y = self.discrete_laplace(t, 1)
            # γ = (|y| - σ²/t)² / (2σ²) = (|y| b t - a)² / (2 a b t²)
            if self.bernoulli_exp((abs(y) * b * t - a) ** 2, 2 * a * b * t * t):
                return y


def discrete_laplace_exact(scale, size, rng=None) -> np.ndarray:
    """:func:`discrete_laplace`, sampled exactly (CKS20 Algorithm 2 in integer arithmetic).

    The parameter is the exact rational value ``t/s`` of the float ``scale``; every random decision is a
    uniform integer (from the Generator's bytes) compared with an integer, so the output law is exactly
    ``P[k] ∝ exp(-|k|/scale)``.  A Python loop (a few µs a sample): for moderate sizes.  Returns int64.
    """
    t, s = Fraction(_check_discrete_scale(scale)).as_integer_ratio()
    shape = _check_exact_size(size)
    coins = _Coins(as_generator(rng))
    draws = [coins.discrete_laplace(t, s) for _ in range(math.prod(shape))]
    return np.array(draws, dtype=np.int64).reshape(shape)


def discrete_gaussian_exact(scale, size, rng=None) -> np.ndarray:
    """:func:`discrete_gaussian`, sampled exactly (CKS20 Algorithm 3 in integer arithmetic)."""
    sigma2 = Fraction(_check_discrete_scale(scale)) ** 2
    shape = _check_exact_size(size)
    coins = _Coins(as_generator(rng))
    a, b = sigma2.as_integer_ratio()
    draws = [coins.discrete_gaussian(a, b) for _ in range(math.prod(shape))]
    return np.array(draws, dtype=np.int64).reshape(shape)


# --- probability mass functions and the discrete Gaussian's exact δ ----------------------------------------

def _check_integers(z, name="z") -> np.ndarray:
    arr = np.asarray(z)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def discrete_laplace_pmf(z, scale) -> np.ndarray:
    """``P[Z = z] = tanh(1/(2 scale)) · exp(-|z|/scale)`` for the discrete Laplace (CKS20 Def. 2)."""
    z = _check_integers(z)
    scale = _check_discrete_scale(scale)
    return np.tanh(0.5 / scale) * np.exp(-np.abs(z) / scale)


def _gaussian_normaliser(sigma: float) -> float:
    if sigma > 1e4:      # Poisson summation: Σ_j e^{-j²/2σ²} = σ sqrt(2π) (1 + 2Σ_k e^{-2π²σ²k²}), exact in float64
        return sigma * math.sqrt(2.0 * math.pi)
    half = int(math.ceil(12 * sigma)) + 2                   # the mass beyond 12σ is below 1e-31
    j = np.arange(-half, half + 1, dtype=np.float64)
    return float(np.exp(-j ** 2 / (2 * sigma ** 2)).sum())


def discrete_gaussian_pmf(z, scale) -> np.ndarray:
    """``P[Z = z] = exp(-z²/(2σ²)) / Σ_j exp(-j²/(2σ²))`` for the discrete Gaussian (CKS20 Def. 1)."""
    z = _check_integers(z)
    sigma = _check_discrete_scale(scale)
    return np.exp(-z.astype(np.float64) ** 2 / (2 * sigma ** 2)) / _gaussian_normaliser(sigma)


#: The most support points :func:`discrete_gaussian_delta` sums (about 24σ of them).
MAX_DELTA_POINTS = 10 ** 8


def discrete_gaussian_delta(epsilon, scale, sensitivity=1) -> float:
    """The smallest δ with ``q + Z`` (ε, δ)-DP for ``Z`` discrete Gaussian and an integer query of
    sensitivity ``Δ`` (CKS20 Thm 7): ``δ = Σ_k max(0, P[Z = k] - e^ε P[Z = k - Δ])``, summed exactly
    over ``|k| <= 12σ + Δ`` (the rest is below 1e-30)."""
    epsilon = check_epsilon(epsilon, allow_zero=True, high=EPSILON_EXP_MAX)
    sigma = _check_discrete_scale(scale)
    delta_q = check_int("sensitivity", sensitivity, low=1)
    half = int(math.ceil(12 * sigma)) + 2 * delta_q + 2
    if 2 * half + 1 > MAX_DELTA_POINTS:
        raise ValueError(f"scale ({sigma!r}) and sensitivity ({delta_q}) need {2 * half + 1:.3g} points summed exactly; "
                         f"at most {MAX_DELTA_POINTS:.0e} (a few seconds)")
    k = np.arange(-half, half + 1, dtype=np.int64)
    p, q = discrete_gaussian_pmf(k, sigma), discrete_gaussian_pmf(k - delta_q, sigma)
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())


# --- real-valued queries: a power-of-two grid plus two-sided geometric noise --------------------------------

def grid_granularity(scale, bits=GRID_BITS) -> float:
    """The grid ``Λ = 2^(ceil(log2 scale) - bits)``, capped at 1 so integers always lie on the grid.

    Multiples of a power of two are exact doubles, and ``kΛ`` is exact for ``|k| < 2^53``.
    """
    scale = check_scale(scale, high=MAX_DISCRETE_SCALE)
    bits = check_int("bits", bits, low=1, high=50)
    mantissa, exponent = math.frexp(scale)                  # scale = mantissa · 2^exponent, mantissa in [.5, 1)
    ceil_log2 = exponent - 1 if mantissa == 0.5 else exponent
    return math.ldexp(1.0, min(0, ceil_log2 - bits))


def round_to_grid(values, granularity) -> np.ndarray:
    """Round finite reals to the nearest multiple of ``granularity`` (a power of two), exactly."""
    granularity = check_real("granularity", granularity, low=0.0, low_open=True)
    mantissa, _ = math.frexp(granularity)
    if mantissa != 0.5:
        raise ValueError(f"granularity ({granularity!r}) must be a power of two")
    values = as_array("values", values)
    if not real_dtype(values.dtype):
        raise TypeError(f"values must be real numbers, got dtype {values.dtype}")
    if not np.all(np.isfinite(values)):
        raise ValueError("values contains NaN or inf; values must be finite")
    with np.errstate(over="ignore"):
        steps = np.rint(values.astype(np.float64) / granularity)   # exact: scaling by a power of two
    if not np.all(np.abs(steps) < 2.0 ** 52):
        raise ValueError(f"values are too large for granularity ({granularity!r}): more than 2^52 grid steps; "
                         "use a coarser granularity")
    return steps * granularity


def grid_laplace(scale, size, rng=None, *, bits=GRID_BITS) -> np.ndarray:
    """Laplace-like noise on the grid ``Λ = grid_granularity(scale)``: ``Λ · discrete_laplace(scale/Λ)``.

    ``P[noise = kΛ] ∝ exp(-|k|Λ/scale)``: a discretised ``Lap(scale)``.  Added to a value *on the grid*
    (any integer count, since ``Λ <= 1``), the sum is an exact real number and
    ``q + noise`` is ε-DP for ``scale = Δ/ε``; floating-point rounding after that is post-processing.
    For real-valued queries round to the grid first: :func:`dpbook.laplace.grid_laplace_release`.  Returns float64.
    """
    scale = _check_discrete_scale(scale)
    granularity = grid_granularity(scale, bits)
    return granularity * discrete_laplace(scale / granularity, size, rng).astype(np.float64)


# --- noise as a value: what a sampler draws, on which lattice, and the guarantee it gives ------------------

from dataclasses import dataclass  # noqa: E402
from typing import Callable  # noqa: E402

__all__ += ["Noise", "NOISES", "as_noise", "LAPLACE", "DISCRETE_LAPLACE", "DISCRETE_LAPLACE_EXACT", "GRID_LAPLACE",
            "GAUSSIAN", "DISCRETE_GAUSSIAN", "DISCRETE_GAUSSIAN_EXACT"]

LATTICES = (None, "integers", "grid")
FAMILIES = ("laplace", "gaussian")


@dataclass(frozen=True)
class Noise:
    """A noise distribution with its meaning, so that a mechanism can compute its claim from it.

    ``family``: ``"laplace"`` (``scale`` is ``b``; ``Δ1/b``-DP, pure) or ``"gaussian"`` (``scale`` is ``σ``;
    the (ε, δ) of the Gaussian mechanism).  ``lattice``: ``None`` — real-valued draws; ``"integers"`` — the
    draws are integers and ``scale`` is in integer units; ``"grid"`` — the draws are multiples of a power of two
    ``Λ = grid_granularity(scale)`` (``Λ <= 1``).  ``steps(scale, size, rng)`` samples in lattice steps (for
    ``"grid"``, the integer multiplier of ``Λ``), or the real values when ``lattice`` is None.
    ``exact``: the law is exactly the stated one (integer arithmetic); otherwise floating-point
    probabilities, and for real-valued noise the floating-point support leak of chapter 17.

    A mechanism adds ``sample(...)`` to values that lie on :meth:`step`'s lattice (rounding them there and
    paying for the rounding in sensitivity), draws through :meth:`sample` — which checks every draw's shape,
    dtype and finiteness — and refuses a family it cannot account for.

    **Only the book's laws can be declared.**  A mechanism's claim is computed from the declaration, so the
    declaration must be true, and the law of an arbitrary function cannot be checked: a statistical test of its
    draws misses a scale 5% too small (true loss 1.05ε; its largest CDF gap from ``Lap(1)`` is 0.009, while a
    Kolmogorov–Smirnov test of 20,000 draws at a false-alarm level of 1e-6 needs 0.019) and any sampler that
    behaves differently away from the tested scale or seed.  So building a ``Noise`` checks that ``steps``
    is one of the book's samplers and that ``(family, lattice, exact)`` is exactly that sampler's law — the
    declarations of :data:`NOISES`, under any ``name``.  Anything else — a mis-declared law
    (``Noise("x", "laplace", None, discrete_laplace)``: integer noise declared as real-valued), zero or constant
    noise, NaN, another scale, another family — is a ``ValueError`` at construction, and :func:`as_noise`
    checks the declaration again before a mechanism uses it.  (Deliberately broken noise for the audits'
    positive controls is built by :func:`dpbook.broken.noise.broken_noise`; never use it to release data.)
    """

    name: str
    family: str
    lattice: str | None
    steps: Callable = None
    exact: bool = False

    def __post_init__(self):
        self._check_form()
        _check_law(self)

    def _check_form(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty str, got {type(self.name).__name__} ({self.name!r})")
        if not isinstance(self.family, str) or self.family not in FAMILIES:
            raise ValueError(f"family ({self.family!r}) must be one of {FAMILIES}")
        if self.lattice not in LATTICES:
            raise ValueError(f"lattice ({self.lattice!r}) must be one of {LATTICES}")
        if not callable(self.steps):
            raise TypeError(f"steps must be callable as steps(scale, size, rng), got {type(self.steps).__name__}")
        if not isinstance(self.exact, (bool, np.bool_)):
            raise TypeError(f"exact must be True or False, got {type(self.exact).__name__} ({self.exact!r})")

    @classmethod
    def _unchecked(cls, name, family, lattice, steps, exact=False) -> "Noise":
        """A Noise whose law is NOT checked against its declaration: for :mod:`dpbook.broken`'s positive controls
        only (:func:`dpbook.broken.noise.broken_noise`).  Any claim computed from it is false."""
        noise = object.__new__(cls)
        for key, value in dict(name=name, family=family, lattice=lattice, steps=steps, exact=exact).items():
            object.__setattr__(noise, key, value)
        noise._check_form()
        object.__setattr__(noise, "_law_unchecked", True)
        return noise

    def step(self, scale) -> float | None:
        """The lattice step the draws live on at this scale: None (reals), 1.0 (integers) or ``Λ`` (grid)."""
        if self.lattice is None:
            return None
        if self.lattice == "integers":
            return 1.0
        return grid_granularity(scale)

    def sample(self, scale, size, rng=None, *, step=None) -> np.ndarray:
        """``size`` draws at ``scale`` (value units) as float64 multiples of ``step`` (default :meth:`step`);
        every draw is checked: an ndarray of the requested shape, real, finite."""
        scale = check_scale(scale)
        shape = check_size(size)
        if self.lattice is None:
            draws, unit = self.steps(scale, shape, rng), 1.0
        else:
            unit = self.step(scale) if step is None else check_real("step", step, low=0.0, low_open=True)
            if self.lattice == "integers" and unit != 1.0:
                raise ValueError(f"step ({unit!r}) must be 1 for integer noise {self.name}")
            draws = self.steps(scale / unit, shape, rng)
        if not isinstance(draws, np.ndarray) or draws.shape != shape:
            got = draws.shape if isinstance(draws, np.ndarray) else type(draws).__name__
            raise ValueError(f"noise {self.name} returned {got}, not an array of shape {shape}")
        kind = draws.dtype.kind                   # 'i'/'u': integers, 'f': floats ('b' bool, 'c' complex, ...)
        if kind not in "iuf":
            raise TypeError(f"noise {self.name} returned dtype {draws.dtype}, not real numbers")
        if self.lattice is not None and kind not in "iu":
            raise TypeError(f"lattice noise {self.name} must return integer steps, got dtype {draws.dtype}")
        # always a fresh array: a caller's sampler may hand back a buffer it keeps (and change it later), and a
        # mechanism may add to its noise in place
        out = draws.astype(np.float64) * unit
        if not np.isfinite(out).all():
            raise ValueError(f"noise {self.name} returned NaN or inf")
        return out

    def __call__(self, scale, size, rng=None) -> np.ndarray:
        """``sampler(scale, size, rng)``: a Noise is also a sampler (values in the units of ``scale``)."""
        return self.sample(scale, size, rng)


def _grid_steps(scale_in_steps, size, rng):
    return discrete_laplace(scale_in_steps, size, rng)


#: The laws the book can account for: each sampler of lattice steps with the one declaration that is true of it,
#: ``(family, lattice, exact)``.  A :class:`Noise` must declare exactly one of these.
_LAWS = {
    laplace_noise: ("laplace", None, False),
    discrete_laplace: ("laplace", "integers", False),
    discrete_laplace_exact: ("laplace", "integers", True),
    _grid_steps: ("laplace", "grid", False),
    gaussian_noise: ("gaussian", None, False),
    discrete_gaussian: ("gaussian", "integers", False),
    discrete_gaussian_exact: ("gaussian", "integers", True),
}


def _describe(family, lattice, exact) -> str:
    where = "real values" if lattice is None else ("the integers" if lattice == "integers" else "the grid")
    return f"{'exact ' if exact else ''}{family} noise on {where} (family={family!r}, lattice={lattice!r}, exact={exact})"


def _check_law(noise: "Noise") -> None:
    """Refuse a :class:`Noise` whose declaration is not the known law of its ``steps`` (see its docstring)."""
    if getattr(noise, "_law_unchecked", False):
        return
    declared = (noise.family, noise.lattice, bool(noise.exact))
    try:
        law = _LAWS.get(noise.steps)
        book = None if law is not None else _BY_SAMPLER.get(noise.steps)
    except TypeError:                                  # an unhashable callable: not one of the book's samplers
        law = book = None
    if law is None and book is not None:               # a book sampler of values, not of lattice steps
        raise ValueError(
            f"noise {noise.name!r} is mis-declared: steps ({noise.steps.__name__}) returns values on its lattice, "
            f"not the lattice steps a Noise draws; its law is declared by dpbook.noise.NOISES[{book.name!r}] "
            f"({_describe(book.family, book.lattice, book.exact)})")
    if law is None:
        fn = getattr(noise.steps, "__name__", type(noise.steps).__name__)
        raise ValueError(
            f"steps ({fn}) of noise {noise.name!r} is not the sampler of one of the book's noises "
            f"(dpbook.noise.NOISES: {', '.join(NOISES)}): a mechanism computes its claim from the declared law, "
            "and the law of another function cannot be checked (zero or constant noise, NaN, a smaller scale or "
            "another family would all release more than the claim). Use one of those noises")
    if declared != law:
        raise ValueError(
            f"noise {noise.name!r} declares {_describe(*declared)}, but its steps ({noise.steps.__name__}) draw "
            f"{_describe(*law)}: a mis-declared law would make the mechanism's claim false")


LAPLACE = Noise("laplace", "laplace", None, laplace_noise)
DISCRETE_LAPLACE = Noise("discrete_laplace", "laplace", "integers", discrete_laplace)
DISCRETE_LAPLACE_EXACT = Noise("discrete_laplace_exact", "laplace", "integers", discrete_laplace_exact, exact=True)
GRID_LAPLACE = Noise("grid_laplace", "laplace", "grid", _grid_steps)
GAUSSIAN = Noise("gaussian", "gaussian", None, gaussian_noise)
DISCRETE_GAUSSIAN = Noise("discrete_gaussian", "gaussian", "integers", discrete_gaussian)
DISCRETE_GAUSSIAN_EXACT = Noise("discrete_gaussian_exact", "gaussian", "integers", discrete_gaussian_exact, exact=True)

#: The library's noises, by name (``"laplace"`` is drawn by :func:`laplace_noise`, ``"gaussian"`` by
#: :func:`gaussian_noise`, the others by the function of the same name).
NOISES = {nz.name: nz for nz in (LAPLACE, DISCRETE_LAPLACE, DISCRETE_LAPLACE_EXACT, GRID_LAPLACE, GAUSSIAN,
                                 DISCRETE_GAUSSIAN, DISCRETE_GAUSSIAN_EXACT)}
_BY_SAMPLER = {laplace_noise: LAPLACE, discrete_laplace: DISCRETE_LAPLACE, discrete_laplace_exact: DISCRETE_LAPLACE_EXACT,
               grid_laplace: GRID_LAPLACE, gaussian_noise: GAUSSIAN, discrete_gaussian: DISCRETE_GAUSSIAN,
               discrete_gaussian_exact: DISCRETE_GAUSSIAN_EXACT}


def as_noise(sampler, *, family: str | None = None, lattice_ok: bool = True, name: str = "sampler") -> Noise:
    """The :class:`Noise` a mechanism was given: a Noise as is (its declaration checked again against the law of
    its ``steps``: only the book's laws), or one of the book's sampler functions (``laplace_noise``,
    ``discrete_laplace``, …) mapped to its Noise.  Any other callable is refused — the mechanism could not know
    what it draws, so it could not compute its claim.  ``family``: the family the
    mechanism's accounting covers (a mismatch is refused).  ``lattice_ok=False``: the mechanism adds noise to
    real values it cannot put on a lattice (normalised answers, utilities), so lattice noise is refused.
    """
    if isinstance(sampler, Noise):
        if type(sampler) is not Noise:
            raise TypeError(f"{name} must be a dpbook.noise.Noise itself, got the subclass {type(sampler).__name__}: "
                            "its methods could draw another law than the one declared")
        noise = sampler
        try:
            noise._check_form()
            _check_law(noise)           # again: a Noise built around its constructor is checked here
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name} is refused: {exc}") from None
    elif callable(sampler) and sampler in _BY_SAMPLER:
        noise = _BY_SAMPLER[sampler]
    else:
        raise TypeError(f"{name} must be a dpbook.noise.Noise or one of the book's samplers {sorted(NOISES)}, "
                        f"got {getattr(sampler, '__name__', type(sampler).__name__)}: an arbitrary function's "
                        "law is unknown, so no claim could be computed from it")
    if family is not None and noise.family != family:
        raise ValueError(f"{name} ({noise.name}) is {noise.family} noise; this mechanism's guarantee is computed "
                         f"for {family} noise only")
    if not lattice_ok and noise.lattice is not None:
        raise ValueError(f"{name} ({noise.name}) draws on a lattice, but this mechanism adds noise to real values "
                         "(normalised answers or scores) that are not on it: the output's position on the lattice "
                         "would reveal them. Use continuous noise here.")
    return noise
