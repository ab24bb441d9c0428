"""Smooth queries: a private summary from Chebyshev moments (Wang, Zhang, Fan, Wang, NIPS 2013; chapter 16).

Data are ``n`` points of ``[-1, 1]^d``; a query is the mean of a smooth function ``f`` over them.  Because
``cos(j arccos x) = T_j(x)`` (SMOOTH-Def), the paper's even trigonometric polynomials are tensor Chebyshev
polynomials, and, with ``J`` the degree bound (``degree_bound``: ``J`` moments per axis, degrees ``<= J - 1``),

* Algorithm 1 (:func:`smooth_summary`, SMOOTH-Alg1) releases the ``J^d`` Chebyshev moments
  ``(1/n) sum_x prod_i T_{r_i}(x_i)``, ``||r||_∞ <= J - 1``, with Laplace noise of the **corrected** scale
  ``2 (J^d - 1)/(n ε)`` and the constant moment (identically 1) published exactly (erratum SMOOTH-E1);
* Algorithm 2 (:func:`answer_query`, SMOOTH-Alg2) computes the degree-``(J-1)`` Chebyshev coefficients of ``f`` by
  interpolation on Chebyshev–Lobatto nodes and a DCT-I (:func:`chebyshev_coefficients`) and returns their inner
  product with the summary.  It never touches the data: every answer is post-processing of one ε-DP release.

Neighbours are replace-one (``n`` is public).  Query functions take an array of shape ``(N, d)`` and return ``N``
values; :class:`SmoothQuery` carries the function with its smoothness order ``K`` and its measured ``||f||_K``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import InitVar, dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from ._smooth_grids import MAX_PAIR_WORK, hat_weights, legendre_grid, lobatto_coefficients, lobatto_grid
from .noise import as_generator, laplace_noise
from .release import Ledger, ReleaseRecord, Spend
from .theory.smooth import jackson_multipliers, summary_degree, summary_noise_scale
from .contract import example, mechanism_prologue
from .validation import check_choice, check_int, check_positive_real, check_real, check_real_array, check_trials

__all__ = ["SmoothQuery", "SmoothSummary", "check_points", "synthetic_points", "chebyshev_basis",
           "chebyshev_moments", "chebyshev_moments_reference", "smooth_summary", "chebyshev_coefficients",
           "chebyshev_evaluate", "jackson_coefficients", "answer_query", "true_answer", "approximation_error", "worst_point", "smooth_norm",
           "smooth_query", "cosine_query", "gaussian_bump", "sigmoid_query", "polynomial_query", "kink_query",
           "box_query", "QUERIES", "make_query", "per_query_laplace", "grid_nodes", "interpolated_l1_sensitivity", "uniform_answer", "summary_inputs"]

_MAX_D = 6              # d is a constant of the theory; J^d moments must fit in memory
_MAX_ENTRIES = 2 ** 22  # J^d (and trials * J^d) cap: absurd sizes are refused, not allocated
_BLOCK_ENTRIES = 1 << 21  # entries of the Khatri–Rao block in the moment kernel (16 MB): bounds memory, few BLAS calls


# --- data --------------------------------------------------------------------------------------------------

def check_points(points, name: str = "points", *, d=None) -> np.ndarray:
    """Rows of ``[-1, 1]^d`` as a float64 array of shape ``(n, d)`` (a 1-D array is ``n`` points of ``d = 1``)."""
    arr = check_real_array(name, points)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty array of shape (n, d), got shape {arr.shape}")
    if arr.shape[1] > _MAX_D:
        raise ValueError(f"{name} has d ({arr.shape[1]}) columns; d must be <= {_MAX_D}")
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"{name} must have d ({d}) columns, got {arr.shape[1]}")
    if arr.min() < -1.0 or arr.max() > 1.0:
        bad = arr[(arr < -1.0) | (arr > 1.0)][0]
        raise ValueError(f"{name} has a value ({float(bad)!r}) outside [-1, 1]: rescale the data to [-1, 1]^d")
    return arr


def synthetic_points(n, d, *, rng=None) -> np.ndarray:
    """``n`` seeded points of ``[-1, 1]^d``: a two-component mixture of Beta(2, 5) / Beta(5, 2) coordinates
    (skewed, correlated through the shared component), for experiments at any ``n``."""
    n = check_int("n", n, low=1, high=50_000_000)
    d = check_int("d", d, low=1, high=_MAX_D)
    rng = as_generator(rng)
    comp = rng.random(n) < 0.6
    a = np.where(comp, 2.0, 5.0)[:, None]
    return 2.0 * rng.beta(a, 7.0 - a, size=(n, d)) - 1.0


# --- Algorithm 1: the summary ------------------------------------------------------------------------------

def _check_degree_bound(degree_bound, d):
    """``J = degree_bound`` checked: an integer ``>= 1`` with ``J^d`` moments that fit in memory."""
    J = check_int("degree_bound", degree_bound, low=1)
    if J ** d > _MAX_ENTRIES:
        raise ValueError(f"degree_bound ({J}) gives degree_bound^d = {J ** d} moments for d = {d}; degree_bound^d "
                         f"must be <= {_MAX_ENTRIES}")
    return J


def chebyshev_basis(points, degree_bound) -> np.ndarray:
    """``T_0(x), …, T_{J-1}(x)`` for the 1-D array ``points = x`` of ``[-1, 1]``: shape ``(n, J)``, by the three-term
    recurrence ``T_{j+1} = 2x T_j - T_{j-1}`` (SMOOTH-Def: ``T_j(x) = cos(j arccos x)``); ``degree_bound = J``."""
    x = check_points(points, d=1)[:, 0]
    J = check_int("degree_bound", degree_bound, low=1, high=_MAX_ENTRIES)
    return np.ascontiguousarray(_chebyshev_rows(x, J).T)   # one transposed copy of the rows: the same values


def _chebyshev_rows(x, J) -> np.ndarray:
    """``T_0(x), …, T_{J-1}(x)`` as the rows of a ``(J, n)`` array (contiguous writes; ``x`` already checked)."""
    V = np.empty((J, x.size))
    V[0] = 1.0
    if J > 1:
        V[1] = x
    two_x = 2.0 * x
    for m in range(2, J):
        np.multiply(two_x, V[m - 1], out=V[m])
        V[m] -= V[m - 2]
    return V


def chebyshev_moments(points, degree_bound) -> np.ndarray:
    """SMOOTH-Alg1's exact (non-private) summary: ``Sum_r = (1/n) sum_x prod_i T_{r_i}(x_i)`` for ``r`` in
    ``{0..J-1}^d`` (``J = degree_bound``), shape ``(J,)*d``.  Fast kernel: per block of rows, the Khatri–Rao product of the first
    ``d - 1`` Chebyshev bases times the last one (one BLAS product, ``O(n J^d)``; no loop over points).
    :func:`chebyshev_moments_reference` is the one-line definition it is tested against."""
    X = check_points(points)
    n, d = X.shape
    J = _check_degree_bound(degree_bound, d)
    S = np.zeros((J ** (d - 1), J))
    rows = max(4096, _BLOCK_ENTRIES // J ** max(d - 1, 1))
    if d == 1:                         # the sums of the basis' rows: no transposed copy, no product
        for start in range(0, n, rows):
            S[0] += _chebyshev_rows(X[start:start + rows, 0], J).sum(axis=1)
        return S[0] / n
    for start in range(0, n, rows):
        block = X[start:start + rows]
        Vs = [chebyshev_basis(block[:, i], J) for i in range(d)]
        left = Vs[0]
        for V in Vs[1:-1]:
            left = (left[:, :, None] * V[:, None, :]).reshape(len(block), -1)
        S += left.T @ Vs[-1] if d > 1 else Vs[0].sum(axis=0)[None, :]
    return (S / n).reshape((J,) * d)


def chebyshev_moments_reference(points, degree_bound) -> np.ndarray:
    """The definition, slowly: ``mean_x prod_i cos(r_i arccos x_i)`` for each multi-index ``r`` (SMOOTH-Alg1)."""
    X = check_points(points)
    d = X.shape[1]
    J = _check_degree_bound(degree_bound, d)
    theta = np.arccos(X)
    out = np.empty((J,) * d)
    for m in np.ndindex(*out.shape):
        out[m] = np.mean(np.prod(np.cos(np.asarray(m) * theta), axis=1))
    return out


@dataclass(frozen=True)
class SmoothSummary(ReleaseRecord):
    """SMOOTH-Alg1's release: the noisy moments ``moments`` of shape ``(J,)*d`` (or ``(trials,) + (J,)*d``), the
    constant moment exactly 1.  Release-like: ``neighbours`` ("replace-one"), ``noise_scale`` (Laplace ``b`` per
    non-constant moment), ``ledger`` (``epsilon``, ``delta`` are what it composes to); ``degree_bound`` (``J``: the
    moments per axis, i.e. degrees ``<= J - 1``), ``d``, ``K``, ``n`` are public parameters.  The constructor's
    ``stated_epsilon`` and ``stated_delta`` are for a summary built by hand from moments (no ledger given: the stated claim is recorded as one step); :func:`smooth_summary` passes None and its
    ledger.
    ``answers`` is the moment vector flattened to ``(J^d,)`` or ``(trials, J^d)``.  ``trace`` holds public
    parameters only (the sensitivity); the exact moments are not part of the release — whoever holds the data
    computes them with :func:`chebyshev_moments`."""

    moments: np.ndarray = field(repr=False)
    degree_bound: int
    d: int
    K: int
    n: int
    stated_epsilon: InitVar[float | None]
    stated_delta: InitVar[float | None]
    mechanism: str
    noise_scale: float
    ledger: tuple = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    neighbours: str = "replace-one"

    def __post_init__(self, epsilon, delta):
        if epsilon is not None or delta is not None:           # a summary built by hand: its claim, as one step
            if len(self.ledger):
                raise ValueError("epsilon and delta are computed from the ledger: pass None with a ledger")
            object.__setattr__(self, "ledger", (Spend(self.mechanism if isinstance(self.mechanism, str) else "",
                                                      0.0 if epsilon is None else epsilon,
                                                      0.0 if delta is None else delta),))
        self._check_record()

    @property
    def released(self) -> np.ndarray:
        """The noisy Chebyshev moments: every query's answer is computed from them (SMOOTH-Alg2)."""
        return self.moments

    @property
    def trials(self) -> int | None:
        return None if self.moments.ndim == self.d else self.moments.shape[0]

    @property
    def answers(self) -> np.ndarray:
        k = self.degree_bound ** self.d
        return self.moments.reshape(k) if self.trials is None else self.moments.reshape(self.trials, k)


def summary_inputs(points, *, K, degree_bound=None, trials=None):
    """SMOOTH-Alg1's public inputs, checked: the rows ``X`` (``n × d`` in ``[-1, 1]^d``), the smoothness ``K``, the
    degree bound ``degree_bound = J`` (``floor(n^{1/(2d+K)})`` unless given, then chosen without looking at the data) and ``trials``;
    ``J^d`` moments and ``trials · J^d`` noise values must fit.  Shared by :func:`smooth_summary` and its broken
    twin (``dpbook.broken.smooth``).  Returns ``(X, J, K)``."""
    X = check_points(points)
    n, d = X.shape
    K = check_int("K", K, low=1, high=64)
    J = summary_degree(n, d, K) if degree_bound is None else _check_degree_bound(degree_bound, d)
    if trials is not None:
        trials = check_trials(trials)
        if trials * J ** d > _MAX_ENTRIES * 8:
            raise ValueError(f"trials ({trials}) x degree_bound^d ({J ** d}) moments is too large; use fewer trials")
    return X, J, K


def smooth_summary(points, *, epsilon, K, degree_bound=None, trials=None, rng=None,
                   sampler=laplace_noise) -> SmoothSummary:
    """SMOOTH-Alg1 (corrected per SMOOTH-E1): the ``J^d`` Chebyshev moments of the rows, each non-constant one
    plus ``Lap(2 (J^d - 1)/(n ε))``, the constant one (= 1) exact.  ε-DP under replace-one neighbours.

    ``K`` is the smoothness the summary is tuned for: ``J = floor(n^{1/(2d+K)})`` unless ``degree_bound`` is given (it must
    then be chosen without looking at the data).  ``n`` (the number of rows) is public.  Time ``O(n J^d)``.
    ``trials`` draws that many independent releases of the same moments (noise batch; moments computed once).
    """
    X, J, K = summary_inputs(points, K=K, degree_bound=degree_bound, trials=trials)
    n, d = X.shape
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours="replace-one",
                           per_release=(J,) * d, family="laplace", lattice_ok=False)   # Chebyshev moments are reals
    epsilon = p.epsilon
    b = summary_noise_scale(n, J, d, epsilon) if J ** d > 1 else 0.0     # Lap(2(J^d - 1)/(nε)), SMOOTH-E1
    exact = chebyshev_moments(X, J)
    noise = np.zeros(p.shape) if J ** d == 1 else p.noise(b, p.shape, p.rng)
    noise[(Ellipsis,) + (0,) * d] = 0.0                    # the constant moment is public: published exactly
    noisy = exact + noise
    return SmoothSummary(noisy, J, d, K, n, None, None, "smooth_summary", b,
                         ledger=(Spend(f"laplace on the {J ** d - 1} non-constant Chebyshev moments", epsilon),),
                         trace={"sensitivity": 2.0 * (J ** d - 1) / n})


example(smooth_summary, lambda: dict(points=np.linspace(-1, 1, 50)[:, None], epsilon=0.7, K=2, rng=0))


# --- Algorithm 2: answering a query (public, no data) -----------------------------------------------------

def _fn(f, name="f"):
    if not callable(f):
        raise TypeError(f"{name} must be a callable taking an (N, d) array, got {type(f).__name__}")
    return f


def _values(f, P, name="f") -> np.ndarray:
    """``f(P)`` checked against the query contract: one real value per row of the ``(N, d)`` array ``P`` (shape
    ``(N,)``, or ``(N, 1)``, which is read as ``(N,)``), as float64.  A callable that reduces (returns a scalar, or
    fewer or more values than rows) is refused by ``name``."""
    try:
        arr = np.asarray(f(P))
    except ValueError as exc:                       # e.g. a ragged list returned by the callable
        raise ValueError(f"{name} must return an array of one value per row, got something numpy cannot read "
                         f"as an array ({exc})") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must return real numbers, one per row, got dtype {arr.dtype}")
    if arr.ndim == 2 and arr.shape == (P.shape[0], 1):
        arr = arr[:, 0]
    if arr.shape != (P.shape[0],):
        rows = f"{P.shape[0]} row{'s' if P.shape[0] != 1 else ''}"
        raise ValueError(f"{name} must return one value per row of its (N, d) argument: on {rows} (an array of "
                         f"shape {P.shape}) it returned shape {arr.shape}")
    return arr.astype(np.float64)


def chebyshev_coefficients(fn, d, degree_bound, *, M=None) -> np.ndarray:
    """SMOOTH-Alg2 step 2 (with SMOOTH-E2: degree ``<= J - 1``): the tensor Chebyshev coefficients ``c_r``,
    ``||r||_∞ <= J - 1`` (``J = degree_bound``), of the interpolant of ``f`` on the ``(M+1)^d`` Chebyshev–Lobatto nodes
    ``cos(π j / M)`` (default ``M = max(4J, 16)``), by one d-dimensional DCT-I (``scipy.fft.dctn``); shape ``(J,)*d``.

    Exact for polynomials of degree ``<= M`` in each variable; for ``f ∈ C^K`` the truncation is within
    ``O(J^{-K} log^d J)`` of ``f`` (SMOOTH-Thm3.2's rate up to the log).  Uses no data.
    """
    f = _fn(fn)
    d = check_int("d", d, low=1, high=_MAX_D)
    J = _check_degree_bound(degree_bound, d)
    M = max(4 * J, 16) if M is None else check_int("M", M, low=1)
    if M < J - 1:
        raise ValueError(f"M ({M}) must be >= degree_bound - 1 ({J - 1})")
    if (M + 1) ** d > _MAX_ENTRIES * 4:
        raise ValueError(f"M ({M}) gives (M+1)^d = {(M + 1) ** d} nodes; too many for d = {d}")
    values = _values(f, lobatto_grid(M, d).copy()).reshape((M + 1,) * d)   # a copy: f may write to its input
    if not np.all(np.isfinite(values)):
        raise ValueError("f returned NaN or inf on the Chebyshev nodes")
    return lobatto_coefficients(values, J)


def jackson_coefficients(fn, d, degree_bound, K, *, M=None) -> np.ndarray:
    """SMOOTH-Thm3.2 option (b), paper-style [RECON]: the coefficients of the generalised Jackson operator applied to
    ``g_f(θ) = f(cos θ)``, ``c_r = ĝ_r prod_i λ_{r_i}`` (``J = degree_bound``) with ``ĝ`` the Chebyshev coefficients of ``f`` (here from an
    interpolant on ``M + 1 >= max(4J, 64) + 1`` nodes per axis) and ``λ`` = :func:`dpbook.theory.smooth.jackson_multipliers`.
    Same rate ``J^{-K}`` as interpolation, larger constants (chapter 16, §3).  Shape ``(J,)*d``; uses no data."""
    d = check_int("d", d, low=1, high=_MAX_D)
    J = _check_degree_bound(degree_bound, d)
    lam = jackson_multipliers(J, K)
    M = max(4 * J, 64) if M is None else check_int("M", M, low=1)
    c = chebyshev_coefficients(fn, d, J, M=M)
    for axis in range(d):
        shape = [1] * d
        shape[axis] = J
        c = c * lam.reshape(shape)
    return c


def chebyshev_evaluate(coefficients, points) -> np.ndarray:
    """``p(x) = sum_m c_m prod_i T_{m_i}(x_i)`` at each row of ``points`` (shape ``(N,)``)."""
    c = check_real_array("coefficients", coefficients)
    if c.ndim < 1 or c.ndim > _MAX_D or len(set(c.shape)) != 1 or c.size == 0:
        raise ValueError(f"coefficients must have shape (J,)*d, got {c.shape}")
    d, J = c.ndim, c.shape[0]
    X = check_points(points, d=d)
    Vs = [chebyshev_basis(X[:, i], J) for i in range(d)]
    out = np.tensordot(Vs[0], c, axes=([1], [0]))          # (N, J, ..., J)
    for V in Vs[1:]:
        out = np.einsum("na,na...->n...", V, out)
    return out


def answer_query(summary, f, *, M=None) -> np.ndarray | float:
    """SMOOTH-Alg2: ``<c_f, Su_hat>`` with ``c_f`` = :func:`chebyshev_coefficients` of ``f`` at the summary's degree bound ``J``.

    Post-processing of the ε-DP summary: reads only the released moments.  Returns a float, or shape
    ``(trials,)`` for a batched summary."""
    if not isinstance(summary, SmoothSummary):
        raise TypeError(f"summary must be a SmoothSummary (from smooth_summary), got {type(summary).__name__}")
    if isinstance(f, SmoothQuery) and f.d != summary.d:
        raise ValueError(f"f is a query on d ({f.d}) coordinates; the summary has d ({summary.d})")
    c = chebyshev_coefficients(f, summary.d, summary.degree_bound, M=M)
    axes = tuple(range(summary.moments.ndim - summary.d, summary.moments.ndim))
    out = np.tensordot(summary.moments, c, axes=(axes, tuple(range(summary.d))))
    return float(out) if out.ndim == 0 else out


def true_answer(points, f) -> float:
    """The exact query ``q_f(D) = (1/n) sum_x f(x)`` (the quantity being released privately)."""
    X = check_points(points)
    return float(_values(_fn(f), X).mean())


def uniform_answer(fn, d, *, nodes=48) -> float:
    """The data-independent answer to the query ``fn``: its mean over the uniform distribution on ``[-1, 1]^d``
    (Gauss–Legendre quadrature with ``nodes`` points per axis, exact for polynomials of degree ``< 2 nodes``).  An
    accuracy plot draws its error ``|uniform_answer - q_f(D)|`` as the level a private answer must beat."""
    d = check_int("d", d, low=1, high=3)
    nodes = check_int("nodes", nodes, low=2, high=512)
    P, W = legendre_grid(nodes, d)
    return float(_values(_fn(fn, "fn"), P, "fn") @ W / 2.0 ** d)


@functools.lru_cache(maxsize=8)
def _tensor_grid(g, d) -> tuple[np.ndarray, np.ndarray]:
    """``(x, pts)``: ``g`` equispaced points of ``[-1, 1]`` and their tensor grid in ``[-1, 1]^d`` (``ij`` order);
    cached, read-only."""
    x = np.linspace(-1.0, 1.0, g)
    pts = np.stack([m.ravel() for m in np.meshgrid(*([x] * d), indexing="ij")], axis=1)
    for arr in (x, pts):
        arr.setflags(write=False)
    return x, pts


def _evaluate_on_grid(c, x) -> np.ndarray:
    """:func:`chebyshev_evaluate` on the tensor grid ``x^d`` (raveled in ``ij`` order), one axis at a time: ``d``
    products of size ``g J^d`` at most instead of ``g^d J^d`` (the same polynomial, summed in another order)."""
    out = c
    V = chebyshev_basis(x, c.shape[0])
    for _ in range(c.ndim):                   # contracts the leading coefficient axis, appends a grid axis
        out = np.tensordot(out, V, axes=([0], [1]))
    return out.ravel()


def _sup_errors(fn, d, degree_bounds, M, grid):
    """``|f - p_J|`` on the grid for each degree bound ``J`` in ``degree_bounds`` (``f`` evaluated once), and the
    grid's points."""
    d = check_int("d", d, low=1, high=_MAX_D)
    f = _fn(fn)
    g = {1: 2001, 2: 161}.get(d, 41) if grid is None else check_int("grid", grid, low=3, high=100_001)
    coefficients = [chebyshev_coefficients(f, d, J, M=M) for J in degree_bounds]
    x, pts = _tensor_grid(g, d)
    values = _values(f, pts.copy())                     # a copy: f may write to its input
    return [np.abs(values - _evaluate_on_grid(c, x)) for c in coefficients], pts


def approximation_error(fn, d, degree_bound, *, M=None, grid=None):
    """``γ_f = sup |f - p_J|`` (SMOOTH-Thm3.2 part (1)) estimated on a tensor grid of ``[-1, 1]^d`` (default 2001, 161,
    41 points per axis for d = 1, 2, >= 3; the grid contains the endpoints and 0).  Data-free.

    ``degree_bound`` is ``J``, the degree bound (``p_J`` has degree ``<= J - 1`` per coordinate; returns a float), or
    a 1-D sequence of them (returns an array of ``γ_f(J)``, with ``f`` evaluated on the grid once)."""
    if isinstance(degree_bound, (list, tuple, range, np.ndarray)):
        Js = np.asarray(degree_bound)
        if Js.ndim != 1 or Js.size == 0 or Js.dtype.kind not in "iu":
            raise ValueError(f"degree_bound ({degree_bound!r}) must be a degree bound or a non-empty 1-D sequence "
                             f"of integers")
        errs, _ = _sup_errors(fn, d, [int(u) for u in Js], M, grid)
        return np.array([float(np.max(e)) for e in errs])
    errs, _ = _sup_errors(fn, d, [degree_bound], M, grid)
    return float(np.max(errs[0]))


def worst_point(fn, d, degree_bound, *, M=None, grid=None) -> tuple[float, np.ndarray]:
    """``(γ, x*)``: :func:`approximation_error` ``γ_f = sup |f - p_J|`` on its grid and a grid point ``x*`` (shape
    ``(d,)``) where it is attained: a data set whose rows sit at ``x*`` realises SMOOTH-Thm3.1's worst case for
    ``f`` at degree bound ``J = degree_bound``.  Data-free."""
    errs, pts = _sup_errors(fn, d, [degree_bound], M, grid)
    i = int(np.argmax(errs[0]))
    return float(errs[0][i]), pts[i].copy()


# --- smooth query functions --------------------------------------------------------------------------------

@dataclass(frozen=True)
class SmoothQuery:
    """A query function ``f: [-1,1]^d -> R`` (called on an ``(N, d)`` array) with its smoothness order ``K``
    (0 for the non-smooth control) and ``B``, an upper bound on ``||f||_K = max_{|k|<=K} sup |D^k f|``
    (SMOOTH-Def C^K_B; ``B >= sup |f|`` always).  ``norm`` records how ``B`` was obtained."""

    name: str
    fn: Callable = field(repr=False, compare=False)
    d: int
    K: int
    B: float
    norm: str = "analytic"

    def __call__(self, points):
        return self.fn(np.asarray(points, dtype=float).reshape(-1, self.d))


def _trim(a, tol=1e-13):
    a = a.copy()
    a[np.abs(a) < tol * max(1.0, float(np.max(np.abs(a))))] = 0.0
    return a


def smooth_norm(fn, d, K, *, M=None) -> float:
    """``||f||_K = max_{|k| <= K} sup |D^k f|`` (SMOOTH-Def C^K_B), estimated from a Chebyshev interpolant of
    ``f`` on ``(M+1)^d`` nodes (default ``M = 64, 48, 24`` for ``d = 1, 2, >= 3``): coefficients below
    ``1e-13`` relative are dropped, derivatives are taken exactly on the series (``chebder``) and the sup is
    taken on a grid.  Accurate for analytic ``f`` (bumps, sigmoids, polynomials); an estimate, not a certificate, and
    meaningless for a function whose ``K``-th derivative jumps (use an analytic bound, as :func:`kink_query` does)."""
    from numpy.polynomial import chebyshev as C
    f = _fn(fn)
    d = check_int("d", d, low=1, high=_MAX_D)
    K = check_int("K", K, low=0, high=64)
    M = {1: 64, 2: 48}.get(d, 24) if M is None else check_int("M", M, low=2, high=512)
    a = _trim(chebyshev_coefficients(f, d, M + 1, M=M))
    g = {1: 801, 2: 81}.get(d, 25)
    V = chebyshev_basis(np.linspace(-1.0, 1.0, g), M + 1)     # T_j on the grid: the series by one product per axis
    best = 0.0
    from itertools import product
    for k in product(range(K + 1), repeat=d):
        if sum(k) > K:
            continue
        c = a
        for axis, order in enumerate(k):
            if order:
                c = C.chebder(c, m=order, axis=axis)
        vals = c
        for _ in range(d):                      # contracts the leading coefficient axis, appends a grid axis
            vals = np.tensordot(vals, V[:, :vals.shape[0]], axes=([0], [1]))
        best = max(best, float(np.max(np.abs(vals))))
    return best


def _row_local(query: SmoothQuery) -> SmoothQuery:
    """Mark a query built by this module from a function that maps each row to a value computed from that row
    alone (``np.prod(..., axis=1)``, ``X @ w``, ...): :func:`per_query_laplace` may then evaluate it on all rows at
    once.  The mark is not a dataclass field, so ``dataclasses.replace`` (which can swap ``fn``) drops it; a
    caller's own function (:func:`smooth_query`, or a ``SmoothQuery`` built directly) never carries it."""
    object.__setattr__(query, "_row_local", True)
    return query


def smooth_query(name, fn, d, K, *, B=1.0, norm=None) -> SmoothQuery:
    """Rescale ``fn`` so that ``||f||_K = B`` (measured by :func:`smooth_norm` unless ``norm`` gives it)."""
    d = check_int("d", d, low=1, high=_MAX_D)
    K = check_int("K", K, low=1, high=64)
    B = check_real("B", B, low=0.0, low_open=True)
    how = "analytic" if norm is not None else "measured (smooth_norm)"
    norm = smooth_norm(fn, d, K) if norm is None else check_real("norm", norm, low=0.0, low_open=True)
    scale = B / norm
    return SmoothQuery(str(name), lambda X: scale * fn(X), d, K, B, how)


def _vec(name, v, d):
    v = check_real_array(name, v)
    v = np.broadcast_to(v, (d,)) if v.ndim == 0 else v
    if v.shape != (d,):
        raise ValueError(f"{name} must be a number or have d ({d}) entries, got shape {v.shape}")
    return v


def cosine_query(omega, phase, d, K, *, B=1.0) -> SmoothQuery:
    """``prod_i cos(ω_i x_i + φ_i)`` scaled by ``B / max(1, max ω)^K``: then ``|D^k f| <= prod ω_i^{k_i} <= B``
    for ``|k| <= K``, so ``f ∈ C^K_B`` exactly (SMOOTH-Thm3.1's test family)."""
    d = check_int("d", d, low=1, high=_MAX_D)
    K = check_int("K", K, low=1, high=64)
    omega, phase = _vec("omega", omega, d), _vec("phase", phase, d)
    if np.any(omega <= 0):
        raise ValueError(f"omega ({omega.tolist()}) must be > 0")
    norm = max(1.0, float(omega.max())) ** K
    return _row_local(smooth_query(f"cos(ωx+φ), ω={omega.max():.3g}", lambda X: np.prod(np.cos(omega * X + phase), axis=1),
                        d, K, B=B, norm=norm))


def gaussian_bump(center, width, d, K, *, B=1.0) -> SmoothQuery:
    """``exp(-||x - center||² / (2 width²))``, rescaled to ``||f||_K = B`` (norm measured)."""
    d = check_int("d", d, low=1, high=_MAX_D)
    center = _vec("center", center, d)
    width = check_real("width", width, low=0.05, high=100.0)
    return _row_local(smooth_query(f"Gaussian bump, width {width:.3g}",
                        lambda X: np.exp(-np.sum((X - center) ** 2, axis=1) / (2 * width ** 2)), d, K, B=B))


def sigmoid_query(w, bias, d, K, *, B=1.0) -> SmoothQuery:
    """``1 / (1 + exp(-(w·x + bias)))`` (a soft half-space), rescaled to ``||f||_K = B`` (norm measured)."""
    d = check_int("d", d, low=1, high=_MAX_D)
    w = _vec("w", w, d)
    bias = check_real("bias", bias)
    if np.max(np.abs(w)) > 20:
        raise ValueError(f"w ({w.tolist()}) must have entries in [-20, 20] (steeper is not smooth at this scale)")
    return _row_local(smooth_query("sigmoid", lambda X: 1.0 / (1.0 + np.exp(-(X @ w + bias))), d, K, B=B))


def polynomial_query(coefficients, K, *, B=1.0) -> SmoothQuery:
    """``sum_m a_m prod_i T_{m_i}(x_i)`` for a tensor ``coefficients`` of shape ``(deg+1,)*d``, rescaled to
    ``||f||_K = B`` (norm measured; exact answers from any summary with ``J > deg``)."""
    a = check_real_array("coefficients", coefficients)
    if a.ndim < 1 or a.ndim > _MAX_D or len(set(a.shape)) != 1 or not np.any(a):
        raise ValueError(f"coefficients must be a non-zero array of shape (deg+1,)*d, got {a.shape}")
    return _row_local(smooth_query(f"Chebyshev polynomial, degree {a.shape[0] - 1}", lambda X: chebyshev_evaluate(a, X),
                        a.ndim, K, B=B))


def kink_query(a, d, K, *, B=1.0) -> SmoothQuery:
    """The hardest kind of member of ``C^K_B``: ``(1/d) sum_i s(x_i - a)``, ``s(u) = |u|^K`` (``K`` odd) or
    ``u |u|^{K-1}`` (``K`` even), whose ``K``-th derivative jumps at ``a`` — so no polynomial of degree ``< J`` comes
    closer than about ``J^{-K}`` (SMOOTH-Thm3.2's rate is attained).  Scaled by ``B / max_j K!/(K-j)! (1+|a|)^{K-j}``,
    an exact bound on ``||f||_K`` (the ``K``-th derivative exists except at ``a``, where it is bounded)."""
    d = check_int("d", d, low=1, high=_MAX_D)
    K = check_int("K", K, low=1, high=64)
    a = check_real("a", a, low=-1.0, high=1.0)
    r = 1.0 + abs(a)
    norm = max(math.factorial(K) / math.factorial(K - j) * r ** (K - j) for j in range(K + 1))
    return _row_local(smooth_query(f"kink at {a:g}, K={K}", lambda X: np.mean(np.abs(X - a) ** K * (np.sign(X - a) if K % 2 == 0 else 1.0), axis=1),
                        d, K, B=B, norm=norm))


def box_query(lo, hi, d) -> SmoothQuery:
    """The non-smooth control: the indicator of the box ``[lo, hi]^d`` (``K = 0``: not in any ``C^K_B``).  Its
    Chebyshev series converges like ``J^{-1}`` in L1 only and never uniformly (Gibbs)."""
    d = check_int("d", d, low=1, high=_MAX_D)
    lo, hi = _vec("lo", lo, d), _vec("hi", hi, d)
    if np.any(lo >= hi):
        raise ValueError(f"lo ({lo.tolist()}) must be < hi ({hi.tolist()})")
    return _row_local(SmoothQuery("box indicator", lambda X: np.all((X >= lo) & (X <= hi), axis=1).astype(float), d, 0, 1.0,
                       "sup |f| = 1"))


#: the test queries of chapter 16 (:func:`make_query`), in the widget's order
QUERIES = ("Gaussian bump", "sigmoid", "cosine", "kink", "box (non-smooth)")


@functools.lru_cache(maxsize=64)
def _chapter_query(name, d, K):
    if name == "Gaussian bump":
        return gaussian_bump(0.2, 0.5, d, K)
    if name == "sigmoid":
        return sigmoid_query(np.linspace(2.0, 1.0, d), 0.3, d, K)
    if name == "cosine":
        return cosine_query(np.linspace(2.0, 1.5, d), 0.4, d, K)
    if name == "kink":
        return kink_query(0.1, d, K)
    return box_query(-0.3, 0.4, d)


def make_query(name, d, K) -> SmoothQuery:
    """One of chapter 16's test queries (:data:`QUERIES`) on ``[-1,1]^d``, ``d <= 3``, with ``||f||_K <= 1``:
    a Gaussian bump (centre 0.2, width 0.5), a sigmoid, a product of cosines, a kink at 0.1 of order ``K``, or the
    box ``[-0.3, 0.4]^d`` (``|f| <= 1``, not smooth).  The same ``(name, d, K)`` gives the same (immutable) query:
    built once, then cached (the bump's and the sigmoid's norms are measured by :func:`smooth_norm`)."""
    name = check_choice("name", name, QUERIES)
    d, K = check_int("d", d, low=1, high=3), check_int("K", K, low=1, high=12)
    return _chapter_query(name, d, K)


# --- the baseline ------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def _probe_points(d) -> tuple[np.ndarray, np.ndarray]:
    """Public rows of ``[-1, 1]^d`` (no data): 1 row and 17 rows, on which a query's output shape is checked before
    it sees the data (cached, read-only)."""
    x = np.linspace(-1.0, 1.0, 17)
    probes = np.zeros((1, d)), np.stack([np.roll(x, 5 * j) for j in range(d)], axis=1)
    for P in probes:
        P.setflags(write=False)
    return probes


def _row_values(q, X, name) -> np.ndarray:
    """``q(x_i)`` for every row ``x_i`` of ``X``, each computed from that row alone.

    The shape contract (one value per row) is checked first on public rows (:func:`_probe_points`), so a reducing
    callable is refused before it touches the data.  A query built by this module's constructors
    (:func:`cosine_query`, :func:`gaussian_bump`, ...: row-local by construction) is evaluated on all rows at once;
    any other callable is called on each row separately (a ``(1, d)`` array), so that its value for a row cannot
    depend on the other rows (``lambda Z: np.full(len(Z), Z[0, 0])`` has the right shape but copies one row's value
    into every row: evaluated row by row it is harmless)."""
    n, d = X.shape
    if isinstance(q, SmoothQuery) and q.d != d:
        raise ValueError(f"{name} is a query on d ({q.d}) coordinates; points have d ({d}) columns")
    for P in (P.copy() for P in _probe_points(d)):          # copies: q may write to its input
        _values(q, P, name)
    if isinstance(q, SmoothQuery) and getattr(q, "_row_local", False) is True:
        return _values(q, X, name)
    out = np.empty(n)
    for i in range(n):
        out[i] = _values(q, X[i:i + 1], name)[0]
    return out


#: The most nodes a public interpolation grid may have (``grid ** d``): the exact sensitivity compares every pair.
MAX_GRID_NODES = 2049


def grid_nodes(grid, d) -> tuple[np.ndarray, np.ndarray]:
    """The public grid of :func:`per_query_laplace`'s ``grid=`` mode: ``grid`` equally spaced values on ``[-1, 1]``
    per axis (``axis``) and all ``grid^d`` nodes of the product grid (shape ``(grid^d, d)``)."""
    G = check_int("grid", grid, low=2, high=MAX_GRID_NODES)
    d = check_int("d", d, low=1, high=64)
    if G ** d > MAX_GRID_NODES:
        raise ValueError(f"grid ({G}) gives {G}^{d} = {G ** d} nodes in d = {d}; at most {MAX_GRID_NODES} "
                         f"(the exact sensitivity compares every pair of nodes): make grid smaller")
    axis = np.linspace(-1.0, 1.0, G)
    return axis, np.stack([m.ravel() for m in np.meshgrid(*([axis] * d), indexing="ij")], axis=1)


def interpolated_l1_sensitivity(node_values) -> float:
    """``max_{a,b} sum_j |F[j, a] - F[j, b]|`` over all pairs of grid nodes: the exact replace-one L1 sensitivity
    (times ``n``) of the (multi)linear interpolants with node values ``F`` (shape ``(m, nodes)``, one row per
    query).  Exact, not a grid estimate: for fixed ``b`` each ``|f̃_j(a) - c|`` is convex along every coordinate inside a grid cell, so their sum
    attains its maximum over the cell at a node (and the same for ``b``)."""
    F = check_real_array("node_values", node_values)
    if F.ndim != 2 or F.size == 0:
        raise ValueError(f"node_values must be a non-empty (queries, nodes) array, got shape {F.shape}")
    best = 0.0
    for a in range(F.shape[1] - 1):                 # pairs (a, b), b > a: the sum is symmetric in a and b
        best = max(best, float(np.abs(F[:, a + 1:] - F[:, a:a + 1]).sum(axis=0).max()))
    return best


def per_query_laplace(points, queries, *, epsilon, B=1.0, grid=None, trials=None, rng=None, sampler=laplace_noise):
    """The baseline of chapter 16: each of the ``m`` query means ``(1/n) sum_i f(x_i)`` plus ``Lap(2Bm/(nε))`` —
    basic composition, ε-DP (DR-Thm3.6).  The error grows linearly with ``m``; the smooth summary's does not
    depend on ``m``.  Returns a :class:`~dpbook.release.Release` (answers shape ``(m,)`` or ``(trials, m)``).

    A query is a callable mapping an ``(N, d)`` array to ``N`` values, one per row (shape ``(N,)`` or ``(N, 1)``);
    one that returns anything else (a scalar, a slice ``Z[:10, 0]``) is refused with a ``ValueError`` naming
    ``queries[i]`` — checked on public rows before the data are touched.  The mean is over the ``n`` rows, each
    value computed from its own row (see :func:`_row_values`), clipped to ``[-B, B]`` (NaN counts as 0, ±inf as
    ±B): values outside the range are clipped rather than refused, because a refusal that depends on the data
    would itself be a non-private output.  Each mean then has replace-one sensitivity ``2B/n``.  The release
    carries the answers and public parameters only (no exact means).

    ``grid=G`` (an int, ``G^d <= MAX_GRID_NODES``): the exact-sensitivity baseline.  Each query is replaced by its
    (multi)linear interpolant on the public tensor grid of ``G`` nodes per axis (node values clipped to
    ``[-B, B]``), and the noise is ``Lap(Δ/(nε))`` with ``Δ`` the interpolated workload's exact L1 sensitivity
    (:func:`interpolated_l1_sensitivity`; at most ``2Bm``, often far less: a query of small range costs little).
    Private for any callable, since ``Δ`` is exact for what is released; the interpolation moves a ``C^2_B`` query
    by at most ``B h^2/8`` (``h = 2/(G-1)``)."""
    from .release import Release
    X = check_points(points)
    n = X.shape[0]
    if callable(queries):
        queries = [queries]
    if isinstance(queries, (str, bytes)):
        raise TypeError("queries must be a non-empty list of callables (e.g. SmoothQuery)")
    try:
        queries = list(queries)
    except TypeError:
        raise TypeError(f"queries must be a non-empty list of callables (e.g. SmoothQuery), got "
                        f"{type(queries).__name__}") from None
    if not queries or not all(callable(q) for q in queries):
        raise TypeError("queries must be a non-empty list of callables (e.g. SmoothQuery)")
    k = len(queries)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours="replace-one",
                           per_release=(k,), family="laplace", lattice_ok=False)   # query means are reals
    epsilon = p.epsilon
    B = check_positive_real("B", B)
    clip = lambda v: np.clip(np.nan_to_num(v, nan=0.0, posinf=B, neginf=-B), -B, B)
    if grid is None:
        l1 = 2.0 * B * k                                                 # each of the k values moves by <= 2B
        # clip every value to [-B, B] (NaN -> 0): each mean then moves by <= 2B/n whatever the callable returns
        means = np.array([clip(_row_values(q, X, f"queries[{i}]")).mean() for i, q in enumerate(queries)])
    else:
        axis, nodes = grid_nodes(grid, X.shape[1])
        if nodes.shape[0] ** 2 * k > MAX_PAIR_WORK:
            raise ValueError(f"grid ({grid}) with {k} queries: {nodes.shape[0]}^2 x {k} node pairs to compare; "
                             f"at most {MAX_PAIR_WORK:.0e}: make grid smaller")
        for i, q in enumerate(queries):                                  # the shape contract, on public rows
            if isinstance(q, SmoothQuery) and q.d != X.shape[1]:
                raise ValueError(f"queries[{i}] is a query on d ({q.d}) coordinates; points have d ({X.shape[1]}) columns")
        F = np.stack([clip(_row_values(q, nodes, f"queries[{i}]")) for i, q in enumerate(queries)])  # public
        l1 = max(interpolated_l1_sensitivity(F), 2.0 ** -40 * 2.0 * B * k)   # 0: constant answers; any scale is private
        means = F @ hat_weights(axis, X)                               # the interpolants' means over the rows
    b = l1 / (n * epsilon)                       # the L1 sensitivity of the k means is l1 / n
    answers = means + p.noise(b, p.shape, p.rng)
    return Release(answers, "per_query_laplace", noise_scale=b,
                   ledger=(Ledger((Spend(f"laplace query {i}", epsilon / k) for i in range(k)), budget=epsilon)
                           if grid is None else (Spend(f"laplace, {k} queries, exact L1 sensitivity {l1:.6g}/n", epsilon),)),
                   trace={"sensitivity": 2.0 * B / n} if grid is None else {"l1_sensitivity": l1 / n},
                   neighbours="replace-one")


example(per_query_laplace, lambda: dict(points=np.linspace(-1, 1, 50)[:, None], queries=[lambda P: P[:, 0] ** 2] * 3,
                                     epsilon=1.0, B=1.0, rng=0))
