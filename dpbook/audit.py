"""Empirical privacy audits: Clopper–Pearson lower bounds on ε (THEOREMS.md template PA(ii)).

If ``M`` is (ε, δ)-DP then for neighbours ``x, x'`` and every event ``S``
``P[M(x) ∈ S] <= e^ε P[M(x') ∈ S] + δ``.  Run ``M`` ``trials`` times on each input, count how often the
output lands in ``S``, and bound the two probabilities with exact Clopper–Pearson intervals: with
probability at least ``1 - alpha`` both true probabilities lie in their intervals, and then

    ε >= ln((p_lo(x) - δ) / p_hi(x'))          (and the same with x, x' swapped, and with S's complement).

The largest of these is ``epsilon_lower_bound``.  For a correct mechanism it exceeds the true ε with
probability at most ``alpha`` (default 1e-6, DEVELOPERS.md standard 1), so an audit that reports
``ε_lb > ε`` is strong evidence of a bug — and an audit that passes is evidence, never proof.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .noise import as_generator
from .stats import clopper_pearson
from .validation import check_epsilon, check_delta, check_int, check_probability, check_real, check_trials

__all__ = ["epsilon_lower_bound", "AuditResult", "audit"]


def epsilon_lower_bound(k, trials, k_prime, trials_prime, *, delta=0.0, alpha=1e-6) -> float:
    """Lower bound on ε from ``k/trials`` hits of ``S`` under ``x`` and ``k_prime/trials_prime`` under ``x'``.

    Uses two-sided Clopper–Pearson intervals at level ``alpha/2`` each; considers both directions and
    both ``S`` and its complement.  Returns 0.0 when the counts give no evidence of privacy loss.
    The bound is wrong (exceeds the true ε of an (ε, δ)-DP mechanism) with probability <= ``alpha``.
    """
    trials = check_trials(trials)
    trials_prime = check_trials(trials_prime, name="trials_prime")
    k = check_int("k", k, low=0, high=trials)
    k_prime = check_int("k_prime", k_prime, low=0, high=trials_prime)
    delta = check_delta(delta)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    lo, hi = clopper_pearson(k, trials, alpha / 2)
    lo2, hi2 = clopper_pearson(k_prime, trials_prime, alpha / 2)
    candidates = [(lo, hi2), (lo2, hi), (1 - hi, 1 - lo2), (1 - hi2, 1 - lo)]   # (P_lo[S], P_hi'[S])
    best = 0.0
    for p_lo, q_hi in candidates:
        if p_lo - delta > 0 and q_hi > 0:
            best = max(best, math.log((p_lo - delta) / q_hi))
    return best


@dataclass(frozen=True)
class AuditResult:
    """The audit's verdict: the best event's ``epsilon_lb`` and the counts behind it."""

    epsilon_lb: float
    event: str
    hits: int
    hits_prime: int
    trials: int
    alpha: float
    delta: float

    def passes(self, epsilon) -> bool:
        """True when the audit found no evidence against the claim ``epsilon``."""
        return self.epsilon_lb <= epsilon


def audit(sample, sample_prime, events, *, trials, delta=0.0, alpha=1e-6, rng=None) -> AuditResult:
    """Audit a mechanism on a neighbouring pair.

    ``sample(trials, rng)`` and ``sample_prime(trials, rng)`` return ``trials`` outputs of ``M(x)`` and
    ``M(x')`` (an array whose first axis is the trial).  ``events`` maps a name to a function
    ``outputs -> bool array (trials,)``.  The level ``alpha`` is split evenly over the events
    (Bonferroni), so the whole audit has false-alarm probability at most ``alpha``.
    """
    trials = check_trials(trials)
    delta = check_delta(delta)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    if not events:
        raise ValueError("events must name at least one event")
    rng = as_generator(rng)
    out, out_prime = sample(trials, rng), sample_prime(trials, rng)
    best = None
    for name, event in dict(events).items():
        hits = _count(event(out), trials, name)
        hits_prime = _count(event(out_prime), trials, name)
        eps = epsilon_lower_bound(hits, trials, hits_prime, trials, delta=delta, alpha=alpha / len(events))
        if best is None or eps > best.epsilon_lb:
            best = AuditResult(eps, name, hits, hits_prime, trials, alpha, delta)
    return best


def _count(mask, trials, name) -> int:
    mask = np.asarray(mask)
    if mask.shape != (trials,) or mask.dtype != bool:
        raise ValueError(f"event {name!r} must return a boolean array of shape ({trials},), got "
                         f"{mask.dtype} {mask.shape}")
    return int(np.count_nonzero(mask))


# ---------------------------------------------------------------------------------------------------------
# The book's audit catalogue (chapter 13).
#
# One :class:`AuditCase` per (mechanism, neighbouring pair, events): the worst-case pair known for the
# mechanism, so a correct mechanism scores ``epsilon_lb`` close to (and below) its claim, and each
# deliberately broken variant of ``dpbook.broken`` (a *control*) scores above it.  The cases are built by
# small factories (imports inside them, so this module does not depend on every mechanism); the tests
# (tests/test_audits.py) and chapter 13 run the same catalogue.
# ---------------------------------------------------------------------------------------------------------

import importlib  # noqa: E402
import inspect  # noqa: E402
import pkgutil  # noqa: E402
from typing import Callable, Mapping  # noqa: E402

__all__ += ["KINDS", "AuditCase", "audit_cases", "audit_case_names", "run_audits", "audit_table", "epsilon_lb_ceiling",
            "public_mechanisms", "broken_mechanisms"]


KINDS = ("mechanism", "control", "finding")


@dataclass(frozen=True)
class AuditCase:
    """A mechanism, a neighbouring pair, events, and the claim ``(epsilon, delta)`` to audit.

    ``sample(trials, rng)`` / ``sample_prime(trials, rng)`` draw outputs on the two neighbours; ``target``
    is the qualified name of the function audited.  ``kind``: ``"mechanism"`` (must pass, ``epsilon_lb <=
    epsilon``), ``"control"`` (a deliberately broken variant the audit must catch, ``epsilon_lb > epsilon``)
    or ``"finding"`` (a real mechanism used outside its stated assumptions — e.g. floating-point noise,
    or ``n`` treated as private — where the audit shows the assumption matters; expected caught).
    ``true_epsilon`` is the pair's actual privacy loss where it is known in closed form (``inf`` when the
    supports differ).  ``min_trials``: the fewest samples at which the case shows what it is for (a control
    whose true loss is only a little above its claim needs many); :func:`run_audits` never scales below it.
    """

    name: str
    target: str
    epsilon: float
    delta: float
    sample: Callable = field(repr=False)
    sample_prime: Callable = field(repr=False)
    events: Mapping[str, Callable] = field(repr=False)
    trials: int
    pair: str = ""
    kind: str = "mechanism"
    true_epsilon: float | None = None
    min_trials: int = 1

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        check_int("trials", self.trials, low=1)
        check_int("min_trials", self.min_trials, low=1)
        if self.kind not in KINDS:
            raise ValueError(f"kind ({self.kind!r}) must be one of {KINDS}")
        if not callable(self.sample) or not callable(self.sample_prime):
            raise TypeError("sample and sample_prime must be callables sample(trials, rng)")
        if not isinstance(self.events, Mapping) or not self.events or not all(map(callable, self.events.values())):
            raise ValueError("events must be a non-empty mapping of names to callables outputs -> bool array")

    @property
    def expect_caught(self) -> bool:
        return self.kind != "mechanism"

    def run(self, rng=None, *, trials=None, alpha=1e-6) -> AuditResult:
        """Audit the case (``trials`` defaults to the case's own, sized for a few seconds at most)."""
        trials = self.trials if trials is None else trials
        return audit(self.sample, self.sample_prime, self.events, trials=trials, delta=self.delta,
                     alpha=alpha, rng=rng)


_FACTORIES: dict[str, Callable[..., AuditCase]] = {}


def _register(key: str):
    def deco(factory):
        _FACTORIES[key] = factory
        return factory
    return deco


def audit_cases(which: str = "all", *, epsilon=None, names=None) -> list[AuditCase]:
    """The catalogue: ``which`` is ``"all"`` or one of :data:`KINDS` (``"mechanism"``, ``"control"``,
    ``"finding"``).  ``epsilon`` overrides each case's default claim (chapter 13's slider); ``names``
    selects cases by key (see :func:`audit_case_names`).  A case whose module is missing is skipped.
    """
    if which != "all" and which not in KINDS:
        raise ValueError(f"which ({which!r}) must be 'all' or one of {KINDS}")
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    keys = list(_FACTORIES) if names is None else list(names)
    unknown = [k for k in keys if k not in _FACTORIES]
    if unknown:
        raise ValueError(f"names ({unknown!r}) must be keys of the catalogue: {sorted(_FACTORIES)}")
    cases = []
    for key in keys:
        try:
            case = _FACTORIES[key]() if epsilon is None else _FACTORIES[key](epsilon)
        except ImportError:                      # a chapter's module that has not landed (yet)
            continue
        if which in ("all", case.kind):
            cases.append(case)
    return cases


def audit_case_names() -> list[str]:
    """The keys of the catalogue, in the order of the book's chapters."""
    return list(_FACTORIES)


def run_audits(cases, *, rng=None, alpha=1e-6, trials_factor=1.0) -> list[tuple[AuditCase, AuditResult]]:
    """Run each case with one Generator (seeded once); ``trials_factor`` scales every case's trials."""
    rng = as_generator(rng)
    trials_factor = check_real("trials_factor", trials_factor, low=0.0, low_open=True)
    return [(c, c.run(rng, trials=max(c.min_trials, int(round(c.trials * trials_factor))), alpha=alpha)) for c in cases]


def epsilon_lb_ceiling(trials, *, alpha=1e-6, events=1) -> float:
    """The largest ``epsilon_lb`` that ``trials`` samples can show (all hits on one side, none on the other).

    A mechanism with infinite privacy loss scores about ``ln(trials / ln(4·events/alpha))``: an audit
    measures evidence, and evidence is bounded by the sample size.
    """
    trials = check_trials(trials)
    events = check_int("events", events, low=1)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    return epsilon_lower_bound(trials, trials, 0, trials, alpha=alpha / events)


def audit_table(results, *, digits: int = 3) -> str:
    """A plain-text table of ``(case, result)`` pairs: name, kind, claim, ``epsilon_lb``, best event, verdict.

    Verdict: ``pass`` (a mechanism with ``ε_lb <= ε``), ``CAUGHT`` (a control or finding with
    ``ε_lb > ε``), and ``FAIL`` for a mechanism caught or a control missed.
    """
    digits = check_int("digits", digits, low=1, high=10)
    rows = [("audit", "kind", "ε claimed", "δ", "ε_lb", "true ε", "best event", "verdict")]
    for case, res in results:
        caught = res.epsilon_lb > case.epsilon
        if case.expect_caught:
            verdict = "CAUGHT" if caught else "FAIL (missed)"
        else:
            verdict = "FAIL" if caught else "pass"
        true = "" if case.true_epsilon is None else f"{case.true_epsilon:.{digits}g}"
        rows.append((case.name, case.kind, f"{case.epsilon:.{digits}g}", f"{case.delta:.{digits}g}",
                     f"{res.epsilon_lb:.{digits}g}", true, res.event, verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# --- which functions are mechanisms (for the coverage test) -----------------------------------------------

_NOT_MECHANISM_MODULES = ("dpbook.theory", "dpbook.explorers", "dpbook.broken", "dpbook.plots", "dpbook.widgets")


def _public_functions(package_prefix: str, exclude=()) -> list[tuple[str, Callable]]:
    import dpbook
    found = []
    for info in pkgutil.walk_packages(dpbook.__path__, "dpbook."):
        name = info.name
        if not name.startswith(package_prefix) or any(name == e or name.startswith(e + ".") for e in exclude):
            continue
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if inspect.isfunction(obj) and obj.__module__ == name:
                found.append((f"{name}.{attr}", obj))
    return sorted(found, key=lambda t: t[0])


def _takes_epsilon_and_rng(fn) -> bool:
    params = inspect.signature(fn).parameters
    return "epsilon" in params and "rng" in params


def public_mechanisms() -> list[str]:
    """Qualified names of dpbook's public mechanisms: functions exported by a module's ``__all__`` (outside
    theory/explorers/broken/plots/widgets) whose signature has both ``epsilon`` and ``rng``."""
    return [q for q, fn in _public_functions("dpbook.", _NOT_MECHANISM_MODULES) if _takes_epsilon_and_rng(fn)]


def broken_mechanisms() -> list[str]:
    """Qualified names of the deliberately broken mechanisms in ``dpbook.broken`` (same definition)."""
    return [q for q, fn in _public_functions("dpbook.broken.") if _takes_epsilon_and_rng(fn)]


# --- helpers for the factories ----------------------------------------------------------------------------

def _first(fn, *args, **kwargs):
    """``sample(trials, rng)``: the first released answer of ``fn(*args, trials=, rng=, **kwargs)``."""
    def sample(trials, rng):
        out = fn(*args, trials=trials, rng=rng, **kwargs)
        answers = out.answers if hasattr(out, "answers") else out
        return np.asarray(answers).reshape(trials, -1)[:, 0]
    return sample


def _picks(fn, *args, **kwargs):
    """``sample(trials, rng)``: ``fn(*args, trials=, rng=, **kwargs)`` as an int array of picks."""
    return lambda trials, rng: np.asarray(fn(*args, trials=trials, rng=rng, **kwargs)).reshape(trials)


def _noisy_value(q, sampler, scale):
    """``sample(trials, rng)`` of ``q + sampler(scale)``: Mironov's setting, a single noisy count."""
    return lambda trials, rng: q + sampler(scale, trials, rng)


def _leq0(y):
    return y <= 0


def _not_integer(y):
    return y != np.round(y)


def _not_in_numpy_image(scale):
    """The event of Mironov's attack: the output is not a value numpy's Laplace(scale) sampler can return."""
    def event(y):
        from .broken.floating_point import numpy_laplace_image
        return ~numpy_laplace_image(y, scale)
    return event


_ONE_COUNT = np.array([[0.0, 1.0]])                  # one query: "count the rows equal to element 1"
_X, _X_PRIME = np.array([1, 0]), np.array([1, 1])    # add/remove neighbours: counts 0 and 1, n = 1 and 2
_X_SWAP = np.array([0, 1])                           # same n as _X, count 1 (two add/remove steps away)
_PAIR_COUNT = "x=(1,0) vs x'=(1,1), one counting query: q(x)=0, q(x')=1"
_PAIR_SAME_N = "x=(1,0) vs x''=(0,1): same n=1, counts 0 and 1 (loss ε in exact arithmetic)"
_PAIR_Q = "q=0 vs q'=1 (a count of sensitivity 1)"


def _mechanism_case(name, fn, epsilon, *, trials, kind="mechanism", true_epsilon=None, events=None,
                    x=_X, x_prime=_X_PRIME, pair=_PAIR_COUNT, n="public", **kwargs):
    """A case for a mechanism with the signature ``fn(x, workload, *, epsilon, n, trials, rng, ...)``.

    ``n="public"``: both databases are normalised by the same public ``n`` (that of ``x``), as the API
    requires under add/remove; ``n="private"``: each by its own ``||x||_1`` — the misuse chapter 13 audits.
    """
    n_x, n_prime = (int(x.sum()), int(x_prime.sum())) if n == "private" else (int(x.sum()), int(x.sum()))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _first(fn, x, _ONE_COUNT, epsilon=epsilon, n=n_x, **kwargs),
                     _first(fn, x_prime, _ONE_COUNT, epsilon=epsilon, n=n_prime, **kwargs),
                     events or {"y <= 0": _leq0}, trials, pair, kind, true_epsilon)


def _sampler_case(name, sampler, epsilon, *, trials, kind="mechanism", true_epsilon=None, delta=0.0, events=None,
                  scale=None):
    """A case for ``q + sampler(1/ε)`` on counts 0 and 1 (the noise itself is what is audited)."""
    scale = 1.0 / epsilon if scale is None else scale
    events = events or {"y <= 0": _leq0, "y not in numpy's Laplace image": _not_in_numpy_image(scale)}
    return AuditCase(name, f"{sampler.__module__}.{sampler.__name__}", epsilon, delta,
                     _noisy_value(0.0, sampler, scale), _noisy_value(1.0, sampler, scale), events, trials,
                     _PAIR_Q, kind, true_epsilon)


# --- Laplace (chapter 01) ----------------------------------------------------------------------------------

@_register("laplace")
def _case_laplace(epsilon=1.0):
    """DR-Thm3.6: counts 0 vs 1, S = {y <= 0}: P = 1/2 vs e^{-ε}/2, ratio exactly e^ε (whatever n)."""
    from .laplace import laplace_mechanism
    return _mechanism_case("Laplace mechanism", laplace_mechanism, epsilon, trials=1_000_000, true_epsilon=epsilon)


@_register("laplace_discrete")
def _case_laplace_discrete(epsilon=1.0):
    """The same with integer noise: P[Z <= -1] = e^{-ε} P[Z <= 0] for the discrete Laplace, still exact."""
    from .laplace import laplace_mechanism
    from .noise import discrete_laplace
    return _mechanism_case("Laplace mechanism, sampler=discrete_laplace", laplace_mechanism, epsilon,
                           trials=1_000_000, true_epsilon=epsilon, sampler=discrete_laplace)


@_register("laplace_grid")
def _case_laplace_grid(epsilon=1.0):
    from .laplace import laplace_mechanism
    from .noise import grid_laplace
    return _mechanism_case("Laplace mechanism, sampler=grid_laplace", laplace_mechanism, epsilon,
                           trials=1_000_000, true_epsilon=epsilon, sampler=grid_laplace)


@_register("laplace_halved_sensitivity")
def _case_laplace_half(epsilon=1.0):
    from .broken.laplace import laplace_halved_sensitivity
    return _mechanism_case("Laplace, halved sensitivity", laplace_halved_sensitivity, epsilon, trials=200_000,
                           kind="control", true_epsilon=2 * epsilon)


@_register("laplace_scale_epsilon")
def _case_laplace_scale_eps(epsilon=0.5):
    from .broken.laplace import laplace_scale_epsilon
    return _mechanism_case("Laplace, scale ε instead of Δ/ε", laplace_scale_epsilon, epsilon, trials=200_000,
                           kind="control", true_epsilon=1 / epsilon)


@_register("laplace_no_noise")
def _case_laplace_no_noise(epsilon=1.0):
    from .broken.laplace import laplace_no_noise
    return _mechanism_case("Laplace, no noise", laplace_no_noise, epsilon, trials=20_000, kind="control",
                           true_epsilon=math.inf)


@_register("laplace_private_n_tail")
def _case_private_n_tail(epsilon=1.0):
    """Releasing (count + noise)/n with n = 1 vs 2: P[y >= t] = e^{-εt}/2 vs e^{-ε(2t-1)}/2, ratio e^{ε(t-1)}."""
    from .laplace import laplace_mechanism
    events = {f"y >= {t}/ε": (lambda y, t=t: y >= t / epsilon) for t in (4, 6, 8)}
    return _mechanism_case("Laplace mechanism, n treated as private: tail event", laplace_mechanism, epsilon,
                           trials=1_000_000, kind="finding", true_epsilon=math.inf, events=events, n="private")


@_register("laplace_private_n_discrete")
def _case_private_n_discrete(epsilon=1.0):
    """With integer noise, k/1 vs (1+k)/2: half of the outputs under x' are not integers."""
    from .laplace import laplace_mechanism
    from .noise import discrete_laplace
    return _mechanism_case("Laplace + discrete_laplace, n treated as private", laplace_mechanism, epsilon,
                           trials=20_000, kind="finding", true_epsilon=math.inf, sampler=discrete_laplace,
                           events={"y is not an integer": _not_integer}, n="private")


# --- floating point (chapter 13) ---------------------------------------------------------------------------

@_register("laplace_float_support")
def _case_laplace_float_support(epsilon=1.0):
    """Mironov's attack on the book's own mechanism (default numpy sampler), on a pair with the same n."""
    from .laplace import laplace_mechanism
    return _mechanism_case("Laplace mechanism, numpy sampler: Mironov's attack", laplace_mechanism, epsilon,
                           trials=100_000, kind="finding", true_epsilon=math.inf, x_prime=_X_SWAP,
                           pair=_PAIR_SAME_N, events={"y not in numpy's Laplace image": _not_in_numpy_image(1 / epsilon)})


@_register("textbook_noisy_count")
def _case_textbook(epsilon=1.0):
    from .broken.floating_point import textbook_noisy_count
    s = lambda q: (lambda trials, rng: textbook_noisy_count(q, epsilon=epsilon, trials=trials, rng=rng))
    return AuditCase("q + numpy Laplace (textbook; Mironov 2012)", "dpbook.broken.floating_point.textbook_noisy_count",
                     epsilon, 0.0, s(0.0), s(1.0),
                     {"y <= 0": _leq0, "y not in numpy's Laplace image": _not_in_numpy_image(1 / epsilon)},
                     100_000, _PAIR_Q, "control", math.inf)


@_register("discrete_laplace")
def _case_discrete_laplace(epsilon=1.0):
    from .noise import discrete_laplace
    return _sampler_case("q + discrete_laplace", discrete_laplace, epsilon, trials=200_000, true_epsilon=epsilon)


@_register("discrete_laplace_exact")
def _case_discrete_laplace_exact(epsilon=1.0):
    from .noise import discrete_laplace_exact
    return _sampler_case("q + discrete_laplace_exact (CKS20)", discrete_laplace_exact, epsilon, trials=30_000,
                         true_epsilon=epsilon)


@_register("grid_laplace")
def _case_grid_laplace(epsilon=1.0):
    from .noise import grid_laplace
    return _sampler_case("q + grid_laplace", grid_laplace, epsilon, trials=200_000, true_epsilon=epsilon)


def _discrete_gaussian_event(epsilon, sigma):
    """S = {y <= k*}: the outputs where the privacy loss of 0+Z vs 1+Z, (1 - 2y)/(2σ²), exceeds ε."""
    k_star = math.ceil((1 - 2 * sigma ** 2 * epsilon) / 2) - 1
    return k_star, (lambda y: y <= k_star)


@_register("discrete_gaussian")
def _case_discrete_gaussian(epsilon=1.0, sigma=2.0):
    """(ε, δ) with the exact δ of CKS20 Thm 7; the event where the loss exceeds ε makes the audit tight."""
    from .noise import discrete_gaussian, discrete_gaussian_delta
    delta = discrete_gaussian_delta(epsilon, sigma)
    k_star, event = _discrete_gaussian_event(epsilon, sigma)
    return _sampler_case(f"q + discrete_gaussian (σ={sigma:g}, exact δ={delta:.3g})", discrete_gaussian, epsilon,
                         trials=1_000_000, delta=delta, scale=sigma, true_epsilon=epsilon,
                         events={f"y <= {k_star}": event, "y not in numpy's Laplace image": _not_in_numpy_image(sigma)})


_GRID_PAIR = "q=0 vs q'=1-2^-42 (real values, Δ=1; rounded to the grid they are 0 and 1)"


def _grid_events(epsilon):
    from .noise import grid_granularity
    lam = grid_granularity(1 / epsilon)
    return {"y <= 0": _leq0, "y is not a multiple of Λ": lambda y: np.mod(y, lam) != 0,
            "y not in numpy's Laplace image": _not_in_numpy_image(1 / epsilon)}


@_register("grid_laplace_release")
def _case_grid_release(epsilon=1.0):
    """Rounded to the grid, 1-2^-42 becomes 1: the pair is tight at S = {y <= 0} (loss ε·Δ/(Δ+Λ))."""
    from .noise import grid_laplace_release
    s = lambda q: _first(grid_laplace_release, np.array([q]), sensitivity=1.0, epsilon=epsilon)
    return AuditCase("grid_laplace_release (round, then grid noise)", "dpbook.noise.grid_laplace_release",
                     epsilon, 0.0, s(0.0), s(1.0 - 2.0 ** -42), _grid_events(epsilon), 200_000, _GRID_PAIR,
                     "mechanism", epsilon)


@_register("unrounded_grid_release")
def _case_unrounded(epsilon=1.0):
    from .broken.floating_point import unrounded_grid_release
    s = lambda q: _first(unrounded_grid_release, np.array([q]), sensitivity=1.0, epsilon=epsilon)
    return AuditCase("grid noise without rounding the input", "dpbook.broken.floating_point.unrounded_grid_release",
                     epsilon, 0.0, s(0.0), s(1.0 - 2.0 ** -42), _grid_events(epsilon), 20_000, _GRID_PAIR,
                     "control", math.inf)


# --- the exponential mechanism and report-noisy-max (chapter 06) ------------------------------------------

_K_EXP = 10
_U = np.r_[1.0, np.zeros(_K_EXP - 1)]          # u(x, ·):  candidate 0 scores Δ, the others 0
_U_PRIME = 1.0 - _U                              # u(x', ·): candidate 0 drops by Δ, the others rise by Δ
_PAIR_EXP = f"non-monotone utilities, {_K_EXP} candidates: u=(1,0,…,0) vs u'=(0,1,…,1), Δu=1"


def _exp_loss(epsilon, factor=0.5):
    """ln P_u[r=0] / P_u'[r=0] for the non-monotone pair with weights exp(factor·ε·u/Δu)."""
    a = math.exp(factor * epsilon)
    return math.log(a * (1 + (_K_EXP - 1) * a) / (a + _K_EXP - 1))


def _exp_case(name, fn, epsilon, trials, kind, true_epsilon):
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _picks(fn, _U, epsilon=epsilon, sensitivity=1.0),
                     _picks(fn, _U_PRIME, epsilon=epsilon, sensitivity=1.0), {"r = 0": lambda r: r == 0},
                     trials, _PAIR_EXP, kind, true_epsilon)


@_register("exponential")
def _case_exponential(epsilon=1.0):
    """DR-Thm3.10: the 1/2 is needed only for non-monotone utilities; this pair's loss → ε as |R| grows."""
    from .exponential import exponential_mechanism
    return _exp_case("exponential mechanism", exponential_mechanism, epsilon, 300_000, "mechanism",
                     _exp_loss(epsilon))


@_register("exponential_no_half")
def _case_exponential_no_half(epsilon=1.0):
    from .broken.exponential import exponential_mechanism_no_half
    return _exp_case("exponential mechanism without the 1/2", exponential_mechanism_no_half, epsilon, 100_000,
                     "control", _exp_loss(epsilon, 1.0))


@_register("exponential_sample")
def _case_exponential_sample(epsilon=1.0):
    """The batch (inverse-CDF) sampler of the same distribution: the same pair and event."""
    from .exponential import exponential_sample
    s = lambda u: (lambda t, rng: exponential_sample(u, epsilon=epsilon, sensitivity=1.0, size=t, rng=rng))
    return AuditCase("exponential mechanism, batch sampler", "dpbook.exponential.exponential_sample", epsilon, 0.0,
                     s(_U), s(_U_PRIME), {"r = 0": lambda r: r == 0}, 300_000, _PAIR_EXP, "mechanism",
                     _exp_loss(epsilon))


def _rnm_loss(u, u_prime, b):
    """ln P_u[argmax = 0] / P_u'[argmax = 0] for report-noisy-max with Lap(b) noise (numerical integration)."""
    from scipy import integrate, stats

    def p0(v):
        f = lambda z: stats.laplace.pdf(z, v[0], b) * np.prod(stats.laplace.cdf(z, v[1:], b))
        return integrate.quad(f, v.min() - 60 * b, v.max() + 60 * b, limit=400, points=sorted(set(v)))[0]
    return math.log(p0(u) / p0(u_prime))


_U_MONO = np.zeros(_K_EXP)                      # monotone neighbour of _U: only candidate 0 moves (down by Δ)
_PAIR_RNM_MONO = f"monotone utilities, {_K_EXP} candidates: u=(1,0,…,0) vs u'=(0,…,0), Δu=1"


def _rnm_case(name, fn, epsilon, monotone, trials, kind, scale_factor):
    u_prime = _U_MONO if monotone else _U_PRIME
    b = (1.0 if monotone else 2.0) / epsilon * scale_factor
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _picks(fn, _U, epsilon=epsilon, sensitivity=1.0, monotone=monotone),
                     _picks(fn, u_prime, epsilon=epsilon, sensitivity=1.0, monotone=monotone),
                     {"r = 0": lambda r: r == 0}, trials, _PAIR_RNM_MONO if monotone else _PAIR_EXP, kind,
                     _rnm_loss(_U, u_prime, b))


@_register("report_noisy_max")
def _case_rnm(epsilon=1.0):
    """Lap(2Δu/ε) for general utilities: on the non-monotone pair the loss is 0.992ε at 10 candidates."""
    from .exponential import report_noisy_max
    return _rnm_case("report-noisy-max (general)", report_noisy_max, epsilon, False, 1_000_000, "mechanism", 1.0)


@_register("report_noisy_max_monotone")
def _case_rnm_monotone(epsilon=1.0):
    """DR-Claim3.9, Lap(Δu/ε) for monotone utilities: loss 0.945ε at 10 candidates (→ ε)."""
    from .exponential import report_noisy_max
    return _rnm_case("report-noisy-max (monotone)", report_noisy_max, epsilon, True, 1_000_000, "mechanism", 1.0)


@_register("report_noisy_max_half_noise")
def _case_rnm_half(epsilon=1.0):
    from .broken.exponential import report_noisy_max_half_noise
    return _rnm_case("report-noisy-max with half the noise", report_noisy_max_half_noise, epsilon, True, 200_000,
                     "control", 0.5)


# SmallDB / the net mechanism: the worst pair found by exhaustive search over small histograms (N = 2,
# s = 2, |x| <= 8) with the exact output laws: x = (4,3) vs (4,4), candidate (2,0) — loss 0.61ε.
_SDB_Q = np.eye(2)
_SDB_X, _SDB_X_PRIME = np.array([4, 3]), np.array([4, 4])
_SDB_ALPHA = 0.7                                   # s = ceil(ln 2 / 0.49) = 2 rows: candidates (2,0), (1,1), (0,2)
_PAIR_SDB = "x=(4,3) vs x'=(4,4), the two point queries, candidates of 2 rows"


def _sdb_loss(epsilon, factor=1.0):
    from .exponential import exponential_probabilities
    from .smalldb import candidate_errors, multisets
    net = multisets(2, 2)
    p = exponential_probabilities(-candidate_errors(_SDB_X, _SDB_Q, net), epsilon=factor * epsilon,
                                  sensitivity=1 / _SDB_X.sum())
    q = exponential_probabilities(-candidate_errors(_SDB_X_PRIME, _SDB_Q, net), epsilon=factor * epsilon,
                                  sensitivity=1 / _SDB_X_PRIME.sum())
    return float(np.log(p[0] / q[0]))


def _is_20(y):
    return np.all(np.asarray(y) == [2, 0], axis=1)


def _sdb_case(name, fn, epsilon, trials, kind, factor, **kwargs):
    s = lambda x: (lambda t, rng: fn(x, _SDB_Q, epsilon=epsilon, trials=t, rng=rng, **kwargs).y)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_SDB_X), s(_SDB_X_PRIME),
                     {"y = (2,0)": _is_20}, trials, _PAIR_SDB, kind, _sdb_loss(epsilon, factor))


@_register("smalldb")
def _case_smalldb(epsilon=1.0):
    from .smalldb import smalldb
    return _sdb_case("SmallDB", smalldb, epsilon, 1_000_000, "mechanism", 1.0, alpha=_SDB_ALPHA)


@_register("net_mechanism")
def _case_net(epsilon=1.0):
    from .smalldb import multisets, net_mechanism
    net = np.array(multisets(2, 2))
    s = lambda x: (lambda t, rng: net_mechanism(x, _SDB_Q, net, epsilon=epsilon, trials=t, rng=rng).y)
    return AuditCase("net mechanism", "dpbook.smalldb.net_mechanism", epsilon, 0.0, s(_SDB_X), s(_SDB_X_PRIME),
                     {"y = (2,0)": _is_20}, 1_000_000, _PAIR_SDB, "mechanism", _sdb_loss(epsilon))


@_register("smalldb_no_half")
def _case_smalldb_no_half(epsilon=1.0):
    from .broken.exponential import smalldb_no_half
    return _sdb_case("SmallDB without the 1/2", smalldb_no_half, epsilon, 300_000, "control", 2.0, alpha=_SDB_ALPHA)


# --- randomized response (chapter 02) ----------------------------------------------------------------------

_PAIR_BIT = "one person: private bit 0 vs 1"
_PAIR_RR_CELL = "x=(1,0) vs x'=(0,1) over {0,1}: one person's private bit 0 vs 1"


def _rr_events():
    return {"reports 1": lambda y: y > 0.5}


def _rr_loss(epsilon):
    return epsilon


@_register("randomized_response")
def _case_rr(epsilon=1.0):
    """LEC3-3.4: P[report 1] = 1-p vs p with p = e^ε/(1+e^ε): ratio exactly e^ε."""
    from .randomized_response import randomized_response
    s = lambda b: (lambda t, rng: randomized_response(np.array([b]), epsilon=epsilon, trials=t,
                                                       rng=rng).reports[:, 0].astype(np.float64))
    return AuditCase("randomized response", "dpbook.randomized_response.randomized_response", epsilon, 0.0,
                     s(0), s(1), _rr_events(), 1_000_000, _PAIR_BIT, "mechanism", epsilon)


@_register("rr_linear_queries")
def _case_rr_linear(epsilon=1.0):
    from .randomized_response import rr_linear_queries
    s = lambda b: _first(rr_linear_queries, np.array([b]), np.array([[1.0]]), epsilon=epsilon)
    return AuditCase("randomized response, linear queries", "dpbook.randomized_response.rr_linear_queries",
                     epsilon, 0.0, s(0), s(1), _rr_events(), 1_000_000, _PAIR_BIT, "mechanism", epsilon)


@_register("rr_histogram")
def _case_rr_histogram(epsilon=1.0):
    from .randomized_response import rr_histogram
    s = lambda x: (lambda t, rng: rr_histogram(x, epsilon=epsilon, bit=0, trials=t, rng=rng).counts[:, 1])
    return AuditCase("randomized response histogram", "dpbook.randomized_response.rr_histogram", epsilon, 0.0,
                     s(np.array([1, 0])), s(np.array([0, 1])), _rr_events(), 1_000_000, _PAIR_RR_CELL,
                     "mechanism", epsilon)


@_register("rr_mechanism")
def _case_rr_mechanism(epsilon=1.0):
    from .randomized_response import rr_mechanism
    s = lambda x: _first(rr_mechanism, x, _ONE_COUNT, epsilon=epsilon, bit=0)
    return AuditCase("randomized response mechanism (workload)", "dpbook.randomized_response.rr_mechanism",
                     epsilon, 0.0, s(np.array([1, 0])), s(np.array([0, 1])), _rr_events(), 1_000_000,
                     _PAIR_RR_CELL, "mechanism", epsilon)


@_register("rr_wrong_p")
def _case_rr_wrong_p(epsilon=1.0):
    """p = 1 - e^{-ε}/2: odds 2e^ε - 1, loss ln(2e^ε - 1) (1.49 at ε = 1)."""
    from .broken.randomized_response import randomized_response_wrong_p
    s = lambda b: (lambda t, rng: randomized_response_wrong_p(np.array([b]), epsilon=epsilon, trials=t,
                                                               rng=rng).reports[:, 0].astype(np.float64))
    return AuditCase("randomized response with the wrong p", "dpbook.broken.randomized_response.randomized_response_wrong_p",
                     epsilon, 0.0, s(0), s(1), _rr_events(), 200_000, _PAIR_BIT, "control",
                     math.log(2 * math.exp(epsilon) - 1))


# --- noisy histogram (chapter 03) --------------------------------------------------------------------------

_PAIR_REPLACE = "replace-one: x=(1,0) vs x'=(0,1), two cells move"


def _cells_event(y):
    """{ĥ_0 >= 1 and ĥ_1 <= 0}: under replace-one both cells move towards x, the tight event for L1 = 2."""
    return (y[:, 0] >= 1) & (y[:, 1] <= 0)


@_register("noisy_histogram")
def _case_noisy_histogram(epsilon=1.0):
    """LEC3-3.5: add/remove, cell 1 is 0 vs 1, S = {ĥ_1 <= 0}: ratio e^ε."""
    from .histogram import noisy_histogram
    s = lambda x: (lambda t, rng: noisy_histogram(x, epsilon=epsilon, n=1, trials=t, rng=rng).counts[:, 1])
    return AuditCase("noisy histogram (add/remove)", "dpbook.histogram.noisy_histogram", epsilon, 0.0,
                     s(_X), s(_X_PRIME), {"ĥ_1 <= 0": _leq0}, 1_000_000, _PAIR_COUNT, "mechanism", epsilon)


@_register("noisy_histogram_replace_one")
def _case_noisy_histogram_replace(epsilon=1.0):
    """Replace-one at scale 2/ε: P = 1/4 vs (e^{-ε/2}/2)², ratio e^ε."""
    from .histogram import noisy_histogram
    s = lambda x: (lambda t, rng: noisy_histogram(x, epsilon=epsilon, neighbours="replace-one", trials=t,
                                                  rng=rng).counts)
    return AuditCase("noisy histogram (replace-one)", "dpbook.histogram.noisy_histogram", epsilon, 0.0,
                     s(np.array([1, 0])), s(np.array([0, 1])), {"ĥ_0 >= 1 and ĥ_1 <= 0": _cells_event},
                     1_000_000, _PAIR_REPLACE, "mechanism", epsilon)


@_register("histogram_mechanism")
def _case_histogram_mechanism(epsilon=1.0):
    from .histogram import histogram_mechanism
    return _mechanism_case("histogram mechanism (workload)", histogram_mechanism, epsilon, trials=1_000_000,
                           true_epsilon=epsilon)


@_register("histogram_replace_one_unit_scale")
def _case_histogram_broken(epsilon=1.0):
    from .broken.histogram import noisy_histogram_replace_one_unit_scale
    s = lambda x: (lambda t, rng: noisy_histogram_replace_one_unit_scale(x, epsilon=epsilon, trials=t, rng=rng).counts)
    return AuditCase("replace-one histogram at the add/remove scale",
                     "dpbook.broken.histogram.noisy_histogram_replace_one_unit_scale", epsilon, 0.0,
                     s(np.array([1, 0])), s(np.array([0, 1])), {"ĥ_0 >= 1 and ĥ_1 <= 0": _cells_event},
                     200_000, _PAIR_REPLACE, "control", 2 * epsilon)


# --- Gaussian mechanism and composition (chapter 04) ----------------------------------------------------------

def _gaussian_events(sigma, epsilon, shifts=(0.0,)):
    """S = {y <= c* + s}: c* = Δ/2 - εσ²/Δ is where the loss of N(0,σ²) vs N(Δ,σ²) crosses ε (Δ = 1)."""
    c_star = 0.5 - epsilon * sigma ** 2
    return {f"y <= {c_star + s:.3g}": (lambda y, c=c_star + s: y <= c) for s in shifts}


def _true_gaussian_epsilon(sigma, delta):
    """The ε at which N(0,σ²) vs N(1,σ²) has δ(ε) = δ (Balle–Wang curve), by bisection."""
    from .theory.gaussian import gaussian_delta
    lo, hi = 0.0, 1.0
    while gaussian_delta(sigma, hi) > delta:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_delta(sigma, mid) > delta else (lo, mid)
    return hi


def _same_n(fn, **kwargs):
    return (_first(fn, _X, _ONE_COUNT, n=1, **kwargs), _first(fn, _X_SWAP, _ONE_COUNT, n=1, **kwargs))


@_register("gaussian_analytic")
def _case_gaussian_analytic(epsilon=1.0, delta=0.05):
    """Analytic calibration: δ(ε) = δ exactly, so the event where the loss exceeds ε is tight."""
    from .gaussian import gaussian_mechanism
    from .theory.gaussian import analytic_gaussian_sigma
    sigma = analytic_gaussian_sigma(1.0, epsilon, delta)
    s, sp = _same_n(gaussian_mechanism, epsilon=epsilon, delta=delta, calibration="analytic")
    return AuditCase(f"Gaussian mechanism, analytic σ (δ={delta:g})", "dpbook.gaussian.gaussian_mechanism",
                     epsilon, delta, s, sp, _gaussian_events(sigma, epsilon, (-0.3, 0.0, 0.3)), 2_000_000,
                     _PAIR_SAME_N, "mechanism", epsilon)


@_register("gaussian_classic")
def _case_gaussian_classic(epsilon=0.9, delta=0.05):
    """Classic σ = sqrt(2 ln(1.25/δ))/ε (needs ε < 1): private, but its true ε at δ is well below ε."""
    from .gaussian import gaussian_mechanism
    from .theory.gaussian import gaussian_sigma
    epsilon = min(epsilon, 0.99)
    sigma = gaussian_sigma(1.0, epsilon, delta)
    true_eps = _true_gaussian_epsilon(sigma, delta)
    s, sp = _same_n(gaussian_mechanism, epsilon=epsilon, delta=delta)
    return AuditCase(f"Gaussian mechanism, classic σ (δ={delta:g})", "dpbook.gaussian.gaussian_mechanism",
                     epsilon, delta, s, sp, _gaussian_events(sigma, true_eps, (-0.3, 0.0, 0.3)), 1_000_000,
                     _PAIR_SAME_N, "mechanism", true_eps)


@_register("gaussian_forgets_log_factor")
def _case_gaussian_no_log(epsilon=0.9, delta=1e-5):
    from .broken.gaussian import gaussian_forgets_log_factor
    sigma = 1.0 / epsilon
    s, sp = _same_n(gaussian_forgets_log_factor, epsilon=epsilon, delta=delta)
    return AuditCase("Gaussian without the sqrt(2 ln(1.25/δ)) factor", "dpbook.broken.gaussian.gaussian_forgets_log_factor",
                     epsilon, delta, s, sp, _gaussian_events(sigma, epsilon), 200_000, _PAIR_SAME_N, "control",
                     _true_gaussian_epsilon(sigma, delta))


_M_GAUSS = 25
_SAME_QUERY = np.tile(_ONE_COUNT, (_M_GAUSS, 1))     # 25 copies of one counting query: Δ2 = 5


@_register("gaussian_single_query_sensitivity")
def _case_gaussian_one_query(epsilon=0.9, delta=1e-5):
    """σ for Δ2 = 1 on 25 queries that all move (Δ2 = 5): the mean of the answers has σ/5 noise."""
    from .broken.gaussian import gaussian_single_query_sensitivity
    epsilon = min(epsilon, 0.99)
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / epsilon / math.sqrt(_M_GAUSS)   # noise sd of the mean
    mean = lambda x: (lambda t, rng: gaussian_single_query_sensitivity(x, _SAME_QUERY, epsilon=epsilon, delta=delta, n=1,
                                                                        trials=t, rng=rng).answers.mean(axis=1))
    return AuditCase("Gaussian σ for one query, 25 queries released",
                     "dpbook.broken.gaussian.gaussian_single_query_sensitivity", epsilon, delta, mean(_X),
                     mean(_X_SWAP), _gaussian_events(sigma, epsilon), 200_000,
                     "same-n pair, 25 copies of one counting query (Δ2 = 5); event on the mean answer",
                     "control", _true_gaussian_epsilon(sigma, delta))


@_register("gaussian_classic_any_epsilon")
def _case_gaussian_classic_any(epsilon=7.5, delta=0.1):
    """Classic σ at ε = 7.5, δ = 0.1 (outside DR-Gauss's ε < 1): true δ(ε) = 0.2 > δ; an event of probability
    ~2.5e-5 under x' shows it with 4·10^6 samples."""
    from .broken.gaussian import gaussian_classic_any_epsilon
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    s, sp = _same_n(gaussian_classic_any_epsilon, epsilon=epsilon, delta=delta)
    events = {f"y <= {c:g}": (lambda y, c=c: y <= c) for c in (-0.25, -0.2, -0.15)}
    return AuditCase("classic Gaussian σ at ε >= 1", "dpbook.broken.gaussian.gaussian_classic_any_epsilon",
                     epsilon, delta, s, sp, events, 4_000_000, _PAIR_SAME_N, "control",
                     _true_gaussian_epsilon(sigma, delta))


_M_COMPOSED = 4
_COMPOSED = np.tile(_ONE_COUNT, (_M_COMPOSED, 1))    # 4 copies of one counting query: L1 sensitivity 4


def _all_leq0(y):
    return np.all(y <= 0, axis=1)


@_register("composed_laplace_basic")
def _case_composed_basic(epsilon=1.0):
    """Basic composition, 4 queries at ε/4 each, all moving: S = {all y_i <= 0} has ratio exactly e^ε."""
    from .gaussian import composed_laplace_mechanism
    s = lambda x: (lambda t, rng: composed_laplace_mechanism(x, _COMPOSED, epsilon=epsilon, n=1, trials=t, rng=rng).answers)
    return AuditCase("Laplace per query, basic composition (m=4)", "dpbook.gaussian.composed_laplace_mechanism",
                     epsilon, 0.0, s(_X), s(_X_PRIME), {"all y_i <= 0": _all_leq0}, 1_000_000,
                     "x=(1,0) vs x'=(1,1), 4 copies of one counting query", "mechanism", epsilon)


@_register("composed_laplace_advanced")
def _case_composed_advanced(epsilon=0.9, delta=1e-3):
    """Advanced composition (DR-Cor3.21) over 4 queries: private, far from tight at small m."""
    from .gaussian import composed_laplace_mechanism
    epsilon = min(epsilon, 0.99)
    s = lambda x: (lambda t, rng: composed_laplace_mechanism(x, _COMPOSED, epsilon=epsilon, n=1, delta=delta, trials=t,
                                                             rng=rng).answers)
    return AuditCase("Laplace per query, advanced composition (m=4)", "dpbook.gaussian.composed_laplace_mechanism",
                     epsilon, delta, s(_X), s(_X_PRIME), {"all y_i <= 0": _all_leq0}, 1_000_000,
                     "x=(1,0) vs x'=(1,1), 4 copies of one counting query", "mechanism", None)


# --- the sparse vector technique (chapter 05) --------------------------------------------------------------
#
# Stream pairs in the style of StatDP (Ding et al. 2018) and Lyu–Su–Li (2017), threshold T = 0, Δ = 1:
# the queries answered ⊥ move *up* on the neighbour and the one answered ⊤ moves *down*, so both the
# threshold noise (ε/2) and the ⊤ query's noise (ε/2) pay — the proof of DR-Thm3.23 is tight there.

_K_SV = 6


def _sv_pattern(bottoms, tops=1, value_at=None, value_max=None):
    """The event 'answers = (⊥^bottoms ⊤)^tops' (optionally: and the released value at ``value_at`` <= max)."""
    from .sparse_vector import BOTTOM, TOP
    pattern = np.array(([BOTTOM] * bottoms + [TOP]) * tops, dtype=np.int8)

    def event(r):
        hit = np.all(r.answers[:, :pattern.size] == pattern, axis=1)
        if value_at is not None:
            hit &= np.nan_to_num(r.values[:, value_at], nan=np.inf) <= value_max
        return hit
    return event


def _sv_stream(bottoms, tops=1, low=0.0):
    f = np.array(([low] * bottoms + [0.0]) * tops)
    f_prime = np.array(([low + 1.0] * bottoms + [-1.0]) * tops)
    return f, f_prime


def _sv_case(name, fn, epsilon, *, bottoms=_K_SV, tops=1, trials=1_000_000, kind="mechanism", true_epsilon=None,
             event=None, low=0.0, event_name=None, delta=0.0, **kwargs):
    f, f_prime = _sv_stream(bottoms, tops, low)
    s = lambda v: (lambda t, rng: fn(v, T=0.0, epsilon=epsilon, trials=t, rng=rng, **kwargs))
    name_event = event_name or ("answers = " + "(" * (tops > 1) + "⊥" * bottoms + "⊤" + (f")^{tops}" if tops > 1 else ""))
    pair = (f"stream f = ({', '.join(f'{v:g}' for v in f)}) vs f' = ({', '.join(f'{v:g}' for v in f_prime)}), "
            "T = 0, Δ = 1")
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, delta, s(f), s(f_prime),
                     {name_event: event or _sv_pattern(bottoms, tops)}, trials, pair, kind, true_epsilon)


@_register("above_threshold_stream")
def _case_at_stream(epsilon=1.0):
    """DR-Thm3.23 on ⊥^6 ⊤ with the ⊥ queries up and the ⊤ query down: loss ≈ 0.93ε (→ ε for long streams)."""
    from .sparse_vector import above_threshold_stream
    return _sv_case("AboveThreshold (stream)", above_threshold_stream, epsilon)


@_register("sparse_vector_stream")
def _case_sparse_stream(epsilon=1.0):
    """Sparse with c = 2 runs at ε/2 each on (⊥^4 ⊤)^2: both runs pay."""
    from .sparse_vector import sparse_vector_stream
    return _sv_case("Sparse, c=2 (stream)", sparse_vector_stream, epsilon, bottoms=4, tops=2, c=2)


@_register("sparse_vector_stream_delta")
def _case_sparse_stream_delta(epsilon=0.9, delta=1e-3):
    """Sparse with δ > 0 (runs at ε/sqrt(8c ln(1/δ)), advanced composition): private, not tight for c = 2."""
    from .sparse_vector import sparse_vector_stream
    return _sv_case(f"Sparse, c=2, δ={delta:g} (stream)", sparse_vector_stream, epsilon, bottoms=4, tops=2, c=2,
                    delta=delta, trials=1_000_000)


@_register("numeric_sparse_stream")
def _case_numeric_stream(epsilon=1.0):
    """NumericSparse, c = 1: the ⊥^6 ⊤ pattern (ε1 = 8ε/9) and a large released value (ε2 share)."""
    from .sparse_vector import numeric_sparse_stream
    ev = _sv_pattern(_K_SV)
    high = lambda r: ev(r) & (np.nan_to_num(r.values[:, _K_SV], nan=-np.inf) >= 0)
    return _sv_case("NumericSparse, c=1 (stream)", numeric_sparse_stream, epsilon, c=1, event=high,
                    event_name="answers = ⊥⊥⊥⊥⊥⊥⊤ and value >= 0")


@_register("above_threshold_renoise_threshold")
def _case_sv_renoise(epsilon=1.0):
    """Fresh threshold noise at every check: 10 queries at T - 1 vs T, all ⊥, loss linear in k (≈1.6)."""
    from .broken.sparse_vector import above_threshold_renoise_threshold
    from .sparse_vector import BOTTOM
    k = 10
    s = lambda v: (lambda t, rng: above_threshold_renoise_threshold(np.full(k, v), T=0.0, epsilon=epsilon,
                                                                    trials=t, rng=rng))
    return AuditCase("AboveThreshold re-noising the threshold (LEC3-E10)",
                     "dpbook.broken.sparse_vector.above_threshold_renoise_threshold", epsilon, 0.0, s(-1.0), s(0.0),
                     {"first 10 answers ⊥": lambda r: np.all(r.answers[:, :k] == BOTTOM, axis=1)}, 1_000_000,
                     "stream of 10 queries at T-1 vs T, T = 0", "control", None)


@_register("above_threshold_outputs_value")
def _case_sv_outputs_value(epsilon=1.0):
    """Releases the compared noisy value: a small value pins the threshold low, then each ⊥ costs ε/4."""
    from .broken.sparse_vector import above_threshold_outputs_value
    ev = _sv_pattern(8, value_at=8, value_max=2.0)
    return _sv_case("AboveThreshold releasing the noisy value (Lyu–Su–Li Alg. 3)", above_threshold_outputs_value,
                    epsilon, bottoms=8, low=-1.0, trials=2_000_000, kind="control", event=ev,
                    event_name="answers = ⊥^8 ⊤ and value <= 2")


@_register("above_threshold_no_query_noise")
def _case_sv_no_query_noise(epsilon=1.0):
    """No query noise (Lyu–Su–Li Alg. 5): f = (0, 1) vs (1, 0), (⊥, ⊤) is impossible on the neighbour."""
    from .broken.sparse_vector import above_threshold_no_query_noise
    s = lambda v: (lambda t, rng: above_threshold_no_query_noise(np.array(v), T=0.0, epsilon=epsilon, trials=t,
                                                                 rng=rng))
    return AuditCase("AboveThreshold without query noise (Lyu–Su–Li Alg. 5)",
                     "dpbook.broken.sparse_vector.above_threshold_no_query_noise", epsilon, 0.0, s([0.0, 1.0]),
                     s([1.0, 0.0]), {"answers = ⊥⊤": _sv_pattern(1)}, 50_000, "f = (0, 1) vs f' = (1, 0), T = 0",
                     "control", math.inf)


@_register("sparse_vector_unscaled_noise")
def _case_sv_unscaled(epsilon=1.0):
    """Noise not scaled with c (Lyu–Su–Li Alg. 4): c = 2 runs at ε each, (⊥^4 ⊤)^2 costs ≈ 1.7ε."""
    from .broken.sparse_vector import sparse_vector_unscaled_noise
    return _sv_case("Sparse whose noise ignores c (Lyu–Su–Li Alg. 4)", sparse_vector_unscaled_noise, epsilon,
                    bottoms=4, tops=2, c=2, kind="control")


@_register("above_threshold_no_halt")
def _case_sv_no_halt(epsilon=1.0):
    """Never halts (Lyu–Su–Li Alg. 6): 4 ⊥ queries up and 4 ⊤ queries down, loss grows with the count."""
    from .broken.sparse_vector import above_threshold_no_halt
    from .sparse_vector import BOTTOM, TOP
    m = 4
    s = lambda v: (lambda t, rng: above_threshold_no_halt(v, T=0.0, epsilon=epsilon, trials=t, rng=rng))
    event = lambda r: np.all(r.answers[:, :m] == BOTTOM, axis=1) & np.all(r.answers[:, m:] == TOP, axis=1)
    return AuditCase("AboveThreshold that never halts (Lyu–Su–Li Alg. 6)",
                     "dpbook.broken.sparse_vector.above_threshold_no_halt", epsilon, 0.0,
                     s(np.zeros(2 * m)), s(np.r_[np.ones(m), -np.ones(m)]), {"answers = ⊥⊥⊥⊥⊤⊤⊤⊤": event},
                     1_000_000, "f = (0,…,0) vs f' = (1,1,1,1,-1,-1,-1,-1), T = 0", "control", None)


# On a database the comparison is the count <q - T, x> + ν >= ρ: with T = 1/2, adding a row of type a moves
# the queries counting a by +1/2 and those counting b by -1/2 (half the stream pattern's shift).
_SV_Q = np.array([[1.0, 0.0]] * _K_SV + [[0.0, 1.0]])
_SV_X, _SV_X_PRIME = np.array([1, 1]), np.array([2, 1])
_PAIR_SV_DB = "x=(1,1) vs x'=(2,1), 6 queries counting element 0 then one counting element 1, T = 1/2"


def _sv_db_case(name, fn, epsilon, *, trials=1_000_000, **kwargs):
    s = lambda x: (lambda t, rng: fn(x, _SV_Q, T=0.5, epsilon=epsilon, trials=t, rng=rng, **kwargs))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, kwargs.get("delta", 0.0), s(_SV_X),
                     s(_SV_X_PRIME), {"answers = ⊥⊥⊥⊥⊥⊥⊤": _sv_pattern(_K_SV)}, trials, _PAIR_SV_DB,
                     "mechanism", None)


@_register("above_threshold")
def _case_at_db(epsilon=1.0):
    from .sparse_vector import above_threshold
    return _sv_db_case("AboveThreshold on a database", above_threshold, epsilon)


@_register("sparse_vector")
def _case_sparse_db(epsilon=1.0):
    from .sparse_vector import sparse_vector
    return _sv_db_case("Sparse on a database (c=1)", sparse_vector, epsilon, c=1)


@_register("numeric_sparse")
def _case_numeric_db(epsilon=1.0):
    from .sparse_vector import numeric_sparse
    return _sv_db_case("NumericSparse on a database (c=1)", numeric_sparse, epsilon, c=1)


# --- MWEM (chapter 07): transcript audits --------------------------------------------------------------------
#
# MWEM releases a function of its transcript (the selected queries and the noisy measurements), so auditing
# the transcript audits a stronger claim.  The record count n is public: the same n is passed for both
# databases (as mwem's docstring prescribes).

def _mwem_workloads():
    from .queries import MarginalWorkload
    one = MarginalWorkload(2, [((0,), (1,))])                   # counts the rows with attribute 0 = 1
    two = MarginalWorkload(2, [((0,), (0,)), ((0,), (1,))])     # attribute 0 = 0, attribute 0 = 1
    return one, two


_T_MWEM = 4
_PAIR_MWEM_MEASURE = "x=(1,0,0,0) vs x'=(1,0,1,0) over {0,1}^2, one query (count 0 vs 1), public n=100, T=4"
_PAIR_MWEM_SELECT = "x=(1,0,1,0) vs x'=(1,0,2,0), queries [a0=0], [a0=1], public n=2, T=1: the worst query flips"


def _mwem_measure_case(name, fn, epsilon, trials, kind, true_epsilon):
    one, _ = _mwem_workloads()
    s = lambda x: (lambda t, rng: fn(x, one, epsilon=epsilon, T=_T_MWEM, n=100, trials=t, rng=rng)
                   .trace["measurements"])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0, 0, 0])),
                     s(np.array([1, 0, 1, 0])), {"all 4 measurements <= 0": _all_leq0}, trials,
                     _PAIR_MWEM_MEASURE, kind, true_epsilon)


def _mwem_select_case(name, fn, epsilon, trials, kind):
    _, two = _mwem_workloads()
    s = lambda x: (lambda t, rng: fn(x, two, epsilon=epsilon, T=1, n=2, trials=t, rng=rng).trace["selected"][:, 0])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0, 1, 0])),
                     s(np.array([1, 0, 2, 0])), {"selects query 1": lambda r: r == 1}, trials, _PAIR_MWEM_SELECT,
                     kind, None)


@_register("mwem_measure")
def _case_mwem_measure(epsilon=1.0):
    """One query, so selection is free: the 4 measurements Lap(2T/ε) of counts 0 vs 1 cost exactly ε/2."""
    from .mwem import mwem
    return _mwem_measure_case("MWEM transcript: measurements", mwem, epsilon, 1_000_000, "mechanism", epsilon / 2)


@_register("mwem_select")
def _case_mwem_select(epsilon=1.0):
    from .mwem import mwem
    return _mwem_select_case("MWEM transcript: selection", mwem, epsilon, 200_000, "mechanism")


@_register("mwem_no_round_split")
def _case_mwem_no_split(epsilon=1.0):
    """ε/2 per round instead of ε/(2T): the 4 measurements cost 4·ε/2 = 2ε."""
    from .broken.mwem import mwem_no_round_split
    return _mwem_measure_case("MWEM without the 1/T split", mwem_no_round_split, epsilon, 200_000, "control",
                              2 * epsilon)


@_register("mwem_argmax_select")
def _case_mwem_argmax(epsilon=1.0):
    from .broken.mwem import mwem_argmax_select
    return _mwem_select_case("MWEM selecting by exact argmax", mwem_argmax_select, epsilon, 20_000, "control")


# --- iterative database constructions (chapter 08) ------------------------------------------------------------

_IDC_N = 100                                          # public n for both databases of every pair


def _idc_setup(k=1):
    from .idc import FixedStream, MultiplicativeWeightsIDC
    return MultiplicativeWeightsIDC(2, 0.2), FixedStream(np.tile(_ONE_COUNT, (k, 1)))


def _answer_and_update(release):
    return np.column_stack([np.atleast_2d(release.answers)[:, 0], np.atleast_2d(release.updated)[:, 0]])


def _updated_low(y):
    return (y[:, 1] > 0) & (y[:, 0] <= 0.175)


_PAIR_IDC_SV = ("x=(83,17) vs x'=(83,18), public n=100, one query (count of element 1), MW rule α=0.2, c=1, "
                "β=1 (threshold 0.33: the score sits at it)")


def _idc_sv_case(name, fn, epsilon, trials, kind):
    rule, stream = _idc_setup()
    s = lambda x: (lambda t, rng: _answer_and_update(fn(x, rule, stream, epsilon=epsilon, delta=0.0, beta=1.0,
                                                        n=_IDC_N, c=1, trials=t, rng=rng)))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([83, 17])),
                     s(np.array([83, 18])), {"update released, answer <= 0.175": _updated_low}, trials,
                     _PAIR_IDC_SV, kind, math.inf if kind == "control" else None)


@_register("online_idc_sv")
def _case_online_idc_sv(epsilon=1.0):
    """IDC-Alg1-SV, one round: the AboveThreshold run (ε0 = ε/2) and the Laplace answer (ε0) both pay."""
    from .idc import online_idc_sv
    return _idc_sv_case("online IDC (Alg1-SV)", online_idc_sv, epsilon, 400_000, "mechanism")


@_register("online_idc_sv_exact_release")
def _case_online_idc_sv_exact(epsilon=1.0):
    from .broken.idc import online_idc_sv_exact_release
    return _idc_sv_case("online IDC releasing the exact answer", online_idc_sv_exact_release, epsilon, 20_000,
                        "control")


def _mw_dr_case(name, fn, epsilon, trials, kind):
    from .idc import FixedStream
    s = lambda x: (lambda t, rng: _answer_and_update(fn(x, FixedStream(_ONE_COUNT), alpha=0.2, epsilon=epsilon, n=_IDC_N,
                                                        c=1, T=0.33, trials=t, rng=rng)))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([83, 17])),
                     s(np.array([83, 18])), {"update released, answer <= 0.175": _updated_low}, trials,
                     "x=(83,17) vs x'=(83,18), public n=100, one query, α=0.2, c=1, public threshold T=0.33",
                     kind, math.inf if kind == "control" else None)


@_register("online_mw_dr")
def _case_online_mw_dr(epsilon=1.0):
    """DR-Alg6 OnlineMW via NumericSparse: the comparison (ε1 = 8ε/9) and the released value (ε2) both pay."""
    from .idc import online_mw_dr
    return _mw_dr_case("online MW via NumericSparse (DR-Alg6)", online_mw_dr, epsilon, 200_000, "mechanism")


@_register("online_mw_dr_exact_values")
def _case_online_mw_dr_exact(epsilon=1.0):
    from .broken.idc import online_mw_dr_exact_values
    return _mw_dr_case("DR-Alg6 releasing exact values", online_mw_dr_exact_values, epsilon, 20_000, "control")


_PAIR_ALG1 = ("x=(90,10) vs x'=(90,11), public n=100, the same query 4 times, MW rule α=0.2: the answer sits "
              "at the lower edge of the ⊥ band |Â - 1/2| < T = 0.4")


def _alg1_case(name, fn, epsilon, delta, trials, kind):
    rule, stream = _idc_setup(4)
    s = lambda x: (lambda t, rng: np.atleast_2d(fn(x, rule, stream, epsilon=epsilon, delta=delta, n=_IDC_N,
                                                   b_max=4, trials=t, rng=rng).updated))
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, delta, s(np.array([90, 10])),
                     s(np.array([90, 11])), {"4 × ⊥ (no update)": lambda u: ~u.any(axis=1)}, trials, _PAIR_ALG1,
                     kind, None)


@_register("online_idc")
def _case_online_idc(epsilon=0.9, delta=1e-3):
    """GRU Algorithm 1 with the reconstructed ε0 (IDC-Thm4.1): the ⊥ rounds at the band's edge."""
    from .idc import online_idc
    return _alg1_case("online IDC (GRU Alg. 1, reconstructed ε0)", online_idc, min(epsilon, 0.99), delta,
                      400_000, "mechanism")


@_register("online_idc_uncomposed")
def _case_online_idc_uncomposed(epsilon=0.9, delta=1e-3):
    """ε0 = ε in every round: each ⊥ at the band's edge costs ≈ 0.49ε, four of them ≈ 2ε."""
    from .broken.idc import online_idc_uncomposed
    return _alg1_case("online IDC without composition (ε0 = ε)", online_idc_uncomposed, min(epsilon, 0.99), delta,
                      100_000, "control")


_PAIR_IC = ("x=(82,18) vs x'=(82,19), public n=100, one query, MW rule α=0.21, one round: Â sits at the stop "
            "test's edge |Â - 1/2| < 0.315")


def _ic_case(name, fn, epsilon, trials, kind):
    from .idc import MultiplicativeWeightsIDC
    rule = MultiplicativeWeightsIDC(2, 0.21)
    s = lambda x: (lambda t, rng: np.atleast_2d(fn(x, _ONE_COUNT, rule=rule, epsilon=epsilon, delta=0.0, n=_IDC_N,
                                                   rounds=1, trials=t, rng=rng).answers)[:, 0])
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([82, 18])),
                     s(np.array([82, 19])), {"stopped (answer = 1/2)": lambda a: a == 0.5}, trials, _PAIR_IC, kind,
                     math.inf if kind == "control" else None)


@_register("iterative_construction")
def _case_ic(epsilon=1.0):
    from .idc import iterative_construction
    return _ic_case("offline IC mechanism (IDC-Alg3)", iterative_construction, epsilon, 400_000, "mechanism")


@_register("iterative_construction_exact_answers")
def _case_ic_exact(epsilon=1.0):
    from .broken.idc import iterative_construction_exact_answers
    return _ic_case("offline IC with exact measurements", iterative_construction_exact_answers, epsilon, 20_000,
                    "control")


# --- chapter 13's widget -----------------------------------------------------------------------------------


# --- smooth queries (chapter 12) ---------------------------------------------------------------------------
#
# Rows of [-1,1] (d = 1), n = 1, replace-one.  The summary's moments are T_m(x), m < t; the constant moment is
# published exactly.  Tight pair for the corrected scale: t = 2, x = 1 vs x' = -1 (the one noisy moment moves by
# 2 = its sensitivity).  Erratum SMOOTH-E1's witness: t = 10, x = 1 vs x' = cos(0.4734), which moves the moments by
# 11.58 in L1; on S = {o_m >= 1 for m = 2..9} (each o_m on the far side of T_m(1) = 1) the likelihood ratio is
# exactly exp(sum_{m=2..9} |T_m(1) - T_m(x')| / b).  The sampler returns, chunk by chunk, only
# min_{m in J}(o_m - 1) (post-processing, so the audit stays valid and memory stays small).

_SMOOTH_THETA = 0.47342966066974546     # argmax of sum_{m<10} |1 - cos(m θ)|: dpbook.theory.smooth.exact_sensitivity_1d(10)
_PAIR_SMOOTH_TIGHT = "x = 1 vs x' = -1 in [-1,1], n = 1, t = 2: the noisy moment T_1 moves by 2 = its sensitivity"
_PAIR_SMOOTH_E1 = "x = 1 vs x' = cos(0.4734) in [-1,1], n = 1, t = 10 (SMOOTH-E1's witness), moments m = 2..9"


def _smooth_min_sampler(fn, x, epsilon, t, J, chunk=500_000):
    def sample(trials, rng):
        out = np.empty(trials)
        for start in range(0, trials, chunk):
            size = min(chunk, trials - start)
            moments = fn(np.array([x]), epsilon=epsilon, K=1, t=t, trials=size, rng=rng).moments
            out[start:start + size] = np.min(moments[:, J] - 1.0, axis=1)
        return out
    return sample


def _smooth_case(name, fn, epsilon, t, x_prime, J, trials, pair, kind, true_epsilon, min_trials=1):
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _smooth_min_sampler(fn, 1.0, epsilon, t, J), _smooth_min_sampler(fn, x_prime, epsilon, t, J),
                     {"o_m >= T_m(1) for every m in J": lambda y: y >= 0}, trials, pair, kind, true_epsilon,
                     min_trials)


@_register("smooth_summary")
def _case_smooth_summary(epsilon=1.0):
    """SMOOTH-Alg1 (corrected scale): t = 2, b = 2/ε, moments 1 vs -1, S = {o_1 >= 1}: ratio exactly e^ε."""
    from .smooth import smooth_summary
    return _smooth_case("smooth summary (corrected scale), t = 2", smooth_summary, epsilon, 2, -1.0, [1],
                        1_000_000, _PAIR_SMOOTH_TIGHT, "mechanism", epsilon)


@_register("smooth_summary_witness")
def _case_smooth_summary_witness(epsilon=2.0):
    """The corrected scale on SMOOTH-E1's witness: b = 18/ε, true loss on S = 11.47 ε/18 = 0.64 ε <= ε."""
    from .smooth import smooth_summary
    return _smooth_case("smooth summary (corrected scale), SMOOTH-E1 witness", smooth_summary, epsilon, 10,
                        math.cos(_SMOOTH_THETA), list(range(2, 10)), 1_000_000, _PAIR_SMOOTH_E1, "mechanism", None)


@_register("smooth_summary_paper_scale")
def _case_smooth_paper_scale(epsilon=2.0):
    """SMOOTH-E1: the paper's b = t/ε = 10/ε; on S the loss is 11.47 ε/10 = 1.147 ε (1.158 ε over all moments)."""
    from .broken.smooth import smooth_summary_paper_scale
    return _smooth_case("smooth summary, paper's scale t^d/(nε) (SMOOTH-E1)", smooth_summary_paper_scale, epsilon,
                        10, math.cos(_SMOOTH_THETA), list(range(2, 10)), 4_000_000, _PAIR_SMOOTH_E1, "control",
                        1.1583 * epsilon, min_trials=4_000_000)    # the excess is 16%: fewer samples cannot show it


def _per_query_case(name, fn, epsilon, trials, kind, true_epsilon):
    queries = [lambda X: X[:, 0], lambda X: X[:, 0]]           # the same query twice: k = 2, B = 1
    s = lambda x: (lambda t, rng: fn(np.array([[x]]), queries, epsilon=epsilon, trials=t, rng=rng).answers)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(1.0), s(-1.0),
                     {"both answers >= 1": lambda y: np.all(y >= 1.0, axis=1)}, trials,
                     "x = 1 vs x' = -1, n = 1, two copies of f(x) = x (B = 1)", kind, true_epsilon)


@_register("per_query_laplace")
def _case_per_query_laplace(epsilon=1.0):
    """Each answer moves by 2 under noise Lap(4/ε): ε/2 each, ratio e^ε on S exactly."""
    from .smooth import per_query_laplace
    return _per_query_case("per-query Laplace on smooth queries, k = 2", per_query_laplace, epsilon, 1_000_000,
                           "mechanism", epsilon)


@_register("per_query_laplace_no_split")
def _case_per_query_no_split(epsilon=1.0):
    from .broken.smooth import per_query_laplace_no_split
    return _per_query_case("per-query Laplace without the 1/k split", per_query_laplace_no_split, epsilon, 200_000,
                           "control", 2 * epsilon)


# --- SparseProject (chapter 11) -------------------------------------------------------------------------------
#
# A 1-D audit of the release y = u + v: project it on the column a = A e_x of the record x that the neighbour
# adds (a is public: the release carries the hash f) and centre it at D's projection, s = ⟨a, y - A D⟩.  Under D,
# s = ⟨a, v⟩; under D' = D + e_x, s = ‖a‖² + ⟨a, v⟩ = 1 + ⟨a, v⟩ (‖a‖₂ = 1 exactly).  The event is s >= c/ε.
# T = 16 keeps the 1M-trial audits under a second; the statistic's law does not depend on the hash.

_SP_N = 1 << 32
_SP_X, _SP_ADDED = 12345, 987654321
_SP_T = 16
_PAIR_SP = (f"D = {{x0}} vs D' = {{x0, x1}} over N = 2^32 (x1 added), public n = 1, T = {_SP_T}, r = 4; "
            "statistic <A e_x1, y - A D>")


def _sp_statistic(fn, D, epsilon, delta):
    from .sparse_project import project_database

    def sample(trials, rng):
        release = fn(D, epsilon=epsilon, delta=delta, beta=0.1, m=1, k=1, n=1, T=_SP_T, r=4, trials=trials, rng=rng)
        from .data import SparseHistogram
        base = SparseHistogram(_SP_N, np.array([_SP_X]), np.array([1]))
        a = release.f.matrix(np.array([_SP_ADDED]))[:, 0]
        return (release.y - project_database(base, release.f)) @ a
    return sample


def _sp_case(name, fn, epsilon, delta, trials, kind):
    from .data import SparseHistogram
    D = SparseHistogram(_SP_N, np.array([_SP_X]), np.array([1]))
    D_prime = SparseHistogram(_SP_N, np.array([_SP_X, _SP_ADDED]), np.array([1, 1]))
    events = {f"<a, y - AD> >= {c}/ε": (lambda c: (lambda s: s >= c / epsilon))(c) for c in (2, 3, 4)}
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, delta, _sp_statistic(fn, D, epsilon, delta),
                     _sp_statistic(fn, D_prime, epsilon, delta), events, trials, _PAIR_SP, kind, None)


@_register("sparse_project")
def _case_sparse_project(epsilon=1.0, delta=1e-5):
    """S1-Alg with Laplace noise: the shift 1 against noise of std 4 sqrt(ln(1/δ))/ε — private with room."""
    from .sparse_project import sparse_project
    return _sp_case("SparseProject (S1-Alg)", sparse_project, epsilon, delta, 1_000_000, "mechanism")


@_register("sparse_project_gaussian")
def _case_sparse_project_gaussian(epsilon=0.9, delta=1e-5):
    from .sparse_project import sparse_project_gaussian
    return _sp_case("SparseProject, Gaussian noise (ℓ2 sensitivity 1)", sparse_project_gaussian, min(epsilon, 0.99),
                    delta, 1_000_000, "mechanism")


@_register("sparse_project_no_composition")
def _case_sparse_project_no_composition(epsilon=1.0, delta=1e-5):
    """Lap(1/ε) per coordinate: the shift is ε/sqrt(2) noise standard deviations; (ε, 1e-5) cannot hold."""
    from .broken.sparse_project import sparse_project_no_composition
    return _sp_case("SparseProject without sqrt(8 ln 1/δ) in σ", sparse_project_no_composition, epsilon, delta,
                    1_000_000, "control")


@_register("laplace_sparse_queries")
def _case_laplace_sparse_queries(epsilon=1.0):
    """The baseline on one 1-sparse query counting x1: count 0 vs 1, event answer <= 0 (loss exactly ε)."""
    from .data import SparseHistogram
    from .sparse_project import SparseQueryWorkload, laplace_sparse_queries
    W = SparseQueryWorkload(_SP_N, [[(_SP_ADDED, 1.0)]])
    D = SparseHistogram(_SP_N, np.array([_SP_X]), np.array([1]))
    D_prime = SparseHistogram(_SP_N, np.array([_SP_X, _SP_ADDED]), np.array([1, 1]))
    s = lambda x: _first(laplace_sparse_queries, x, W, epsilon=epsilon, n=1)
    return AuditCase("Laplace on sparse queries (baseline)", "dpbook.sparse_project.laplace_sparse_queries", epsilon,
                     0.0, s(D), s(D_prime), {"answer <= 0": _leq0}, 200_000,
                     "D = {x0} vs D' = {x0, x1} over N = 2^32, one query counting x1, public n = 1", "mechanism",
                     epsilon)


# --- graph cuts (chapter 10) --------------------------------------------------------------------------------

_PAIR_EDGE = "graphs on 3 vertices: no edge vs the one edge {0,1} (edge-level add/remove)"


def _edge_pair():
    from .graphs import graph_database
    return graph_database(np.zeros((0, 2)), 3), graph_database([[0, 1]], 3)


@_register("graph_randomized_response")
def _case_graph_rr(epsilon=1.0):
    """IDC §6.1: the pair {0,1} is 0 vs 1, S = {ŵ_01 <= 0}: ratio e^ε."""
    from .graphs import graph_randomized_response
    g, g_prime = _edge_pair()
    s = lambda G: (lambda t, rng: graph_randomized_response(G, epsilon=epsilon, trials=t, rng=rng).weights[:, 0])
    return AuditCase("graph randomized response (edge level)", "dpbook.graphs.graph_randomized_response", epsilon,
                     0.0, s(g), s(g_prime), {"ŵ_01 <= 0": _leq0}, 1_000_000, _PAIR_EDGE, "mechanism", epsilon)


@_register("adjacency_randomized_response")
def _case_adjacency_rr(epsilon=1.0):
    """Noise on both matrix entries of the edge at the one-entry scale: S = {Â_01 <= 0 and Â_10 <= 0},
    P = 1/4 vs (e^{-ε}/2)², ratio e^{2ε}."""
    from .broken.graphs import adjacency_randomized_response
    g, g_prime = _edge_pair()
    s = lambda G: (lambda t, rng: adjacency_randomized_response(G, epsilon=epsilon, trials=t, rng=rng).weights[:, [1, 3]])
    return AuditCase("graph randomized response on both matrix entries",
                     "dpbook.broken.graphs.adjacency_randomized_response", epsilon, 0.0, s(g), s(g_prime),
                     {"Â_01 <= 0 and Â_10 <= 0": lambda y: (y[:, 0] <= 0) & (y[:, 1] <= 0)}, 200_000, _PAIR_EDGE,
                     "control", 2 * epsilon)


# --- MWEM, practical variants (chapter 07) --------------------------------------------------------------------
#
# dpbook.mwem.mwem_practical: whole marginals selected by their L1 error and measured at the unit's exact L1
# sensitivity, last iterate, never re-selecting.  The replay and the output choice are post-processing of the
# transcript, which is what is audited; with T = 1 the transcript does not depend on replay at all, so the
# cases pass replay=0 (replay runs trial by trial and would only slow 400,000 trials down).

_PAIR_PRACTICAL_MEASURE = ("x=(1,0) vs x'=(0,1) over {0,1}^1 (replace-one), the 1-way marginal (2 cells, one unit), "
                           "T=1, select_share=0.1: ε_measure = 0.9ε")
_PAIR_PRACTICAL_SELECT = ("x=(1,0,1,0) vs x'=(1,0,1,1) over {0,1}^2 (add/remove, public n=2), units = the two 1-way "
                          "marginals, T=1: L1 scores (0,2) vs (1,1)")


def _practical_measure_case(name, fn, epsilon, trials, kind, true_epsilon):
    from .queries import k_way_marginals
    W = k_way_marginals(1, 1)
    s = lambda x: (lambda t, rng: fn(x, W, epsilon=epsilon, T=1, n=1, select_share=0.1, neighbours="replace-one",
                                     replay=0, trials=t, rng=rng).trace["measurements"][:, 0, :])
    event = {"m0 >= 1 and m1 <= 0": lambda m: (m[:, 0] >= 1) & (m[:, 1] <= 0)}
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(np.array([1, 0])), s(np.array([0, 1])),
                     event, trials, _PAIR_PRACTICAL_MEASURE, kind, true_epsilon)


@_register("mwem_practical_measure")
def _case_mwem_practical_measure(epsilon=1.0):
    """Both cells measured with Lap(2/ε_m): the event's ratio is exactly e^{2·1/b} = e^{ε_m} = e^{0.9ε}."""
    from .mwem import mwem_practical
    return _practical_measure_case("MWEM (practical): whole-marginal measurement", mwem_practical, epsilon, 400_000,
                                   "mechanism", 0.9 * epsilon)


@_register("mwem_practical_select")
def _case_mwem_practical_select(epsilon=1.0):
    from .mwem import mwem_practical
    from .queries import k_way_marginals
    W = k_way_marginals(2, 1)
    s = lambda x: (lambda t, rng: mwem_practical(x, W, epsilon=epsilon, T=1, n=2, replay=0, trials=t, rng=rng)
                   .trace["selected"][:, 0])
    return AuditCase("MWEM (practical): marginal selection", "dpbook.mwem.mwem_practical", epsilon, 0.0,
                     s(np.array([1, 0, 1, 0])), s(np.array([1, 0, 1, 1])), {"selects attribute 0": lambda r: r == 0},
                     200_000, _PAIR_PRACTICAL_SELECT, "mechanism", None)


@_register("mwem_marginal_cell_sensitivity")
def _case_mwem_marginal_cell_sensitivity(epsilon=1.0):
    """Lap(1/ε_m) on a replace-one marginal: the event's ratio is e^{2ε_m} = e^{1.8ε} > e^ε."""
    from .broken.mwem import mwem_marginal_cell_sensitivity
    return _practical_measure_case("MWEM (practical) charging one cell's sensitivity", mwem_marginal_cell_sensitivity,
                                   epsilon, 100_000, "control", 1.8 * epsilon)


# --- projection mechanism (chapter 09) -------------------------------------------------------------------------

_M_PROJ = 100
_COPIES = np.tile(_ONE_COUNT, (_M_PROJ, 1))          # 100 copies of one counting query: K_Q is the segment [0, 1]·1
_PAIR_PROJ = ("replace-one: x=(1,0) vs x'=(0,1), n = 1, 100 copies of one counting query (Δ2 = 10); "
              "the projection clips the mean answer to [0, 1]")


def _projection_events():
    """Events on the first projected answer ŷ_0 ∈ [0, 1]: it sits on an end of K_Q, or below the middle."""
    return {"ŷ_0 <= 0": lambda y: y <= 0.0, "ŷ_0 >= 1": lambda y: y >= 1.0, "ŷ_0 <= 0.5": lambda y: y <= 0.5}


@_register("projection")
def _case_projection(epsilon=0.9, delta=1e-5):
    """PROJ-Thm3: Gaussian step on the exact replace-one Δ2, then the projection (post-processing)."""
    from .projection import projection_mechanism
    epsilon = min(epsilon, 0.99)
    s = lambda x: _first(projection_mechanism, x, _COPIES, epsilon=epsilon, delta=delta)
    return AuditCase(f"projection mechanism (δ={delta:g})", "dpbook.projection.projection_mechanism", epsilon,
                     delta, s(_X), s(_X_SWAP), _projection_events(), 8_000, _PAIR_PROJ, "mechanism")


@_register("projection_single_query_sensitivity")
def _case_projection_broken(epsilon=0.9, delta=1e-5):
    """σ for one query on 100 copies: the clipped mean has σ/10 noise; ŷ_0 <= 0 has P 1/2 vs about 0.03%."""
    from .broken.projection import projection_single_query_sensitivity
    epsilon = min(epsilon, 0.99)
    s = lambda x: _first(projection_single_query_sensitivity, x, _COPIES, epsilon=epsilon, delta=delta)
    return AuditCase("projection with the one-query σ", "dpbook.broken.projection.projection_single_query_sensitivity",
                     epsilon, delta, s(_X), s(_X_SWAP), _projection_events(), 4_000, _PAIR_PROJ, "control")


# --- API misuse lessons (chapter 13) -------------------------------------------------------------------------
# Two calls an API must refuse or account for (issue 10): a workload that repeats a query, and a lattice sampler
# used in normalised units.  Each broken twin is a control; the fix is audited as a mechanism on the same pair.

_DUP_X, _DUP_X_PRIME = np.array([1, 0]), np.array([1, 1])     # d = 1: one row with bit 0 = 0; then add one with 1
_PAIR_DUP = ("x=(1,0) vs x'=(1,1), the 1-way marginal of attribute 0 asked twice: the cell 'bit 0 = 1' counts 0 "
             "vs 1 in both copies")


def _duplicate_sets_case(name, fn, epsilon, kind, true_epsilon, **kwargs):
    from .queries import k_way_marginals
    W = k_way_marginals(1, 1, attribute_sets=[(0,), (0,)])
    copies = [i for i, (S, v) in enumerate(W.cells) if v == (1,)]            # the two copies of the moving cell

    def s(x):
        return lambda t, rng: fn(x, W, epsilon=epsilon, n=1, trials=t, rng=rng, **kwargs).answers[:, copies]
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(_DUP_X), s(_DUP_X_PRIME),
                     {"both copies <= 0": lambda y: np.all(y <= 0, axis=1)}, 400_000, _PAIR_DUP, kind, true_epsilon)


@_register("duplicate_sets_deduplicated_sensitivity")
def _case_duplicate_sets_broken(epsilon=1.0):
    """Both copies <= 0: P = 1/4 vs (e^{-ε}/2)^2 — ratio e^{2ε} at a claimed ε."""
    from .broken.laplace import laplace_deduplicated_sensitivity
    return _duplicate_sets_case("Laplace, repeated marginal, Δ of the distinct sets (1)",
                                laplace_deduplicated_sensitivity, epsilon, "control", 2 * epsilon)


@_register("duplicate_sets_exact_sensitivity")
def _case_duplicate_sets_exact(epsilon=1.0):
    """The fix: the exact Δ1 = 2 (every query counted): P = 1/4 vs (e^{-ε/2}/2)^2 — ratio exactly e^ε."""
    from .laplace import laplace_mechanism
    return _duplicate_sets_case("Laplace, repeated marginal, exact Δ = 2", laplace_mechanism, epsilon, "mechanism",
                                epsilon, sensitivity=2.0)


_UNITS_X, _UNITS_X_PRIME, _UNITS_N = np.array([99, 0]), np.array([99, 1]), 100
_PAIR_UNITS = "x=(99,0) vs x'=(99,1), public n=100, one counting query: answers 0 vs 0.01"


@_register("normalised_discrete_laplace")
def _case_normalised_discrete_laplace(epsilon=1.0):
    """discrete_laplace(0.01) is 0 with probability 1 - 2e^{-100}: answers 0 vs 0.01 exactly, y <= 0 separates."""
    from .broken.laplace import normalised_discrete_laplace
    s = lambda x: (lambda t, rng: normalised_discrete_laplace(x, _ONE_COUNT, epsilon=epsilon, n=_UNITS_N, trials=t,
                                                              rng=rng).answers[:, 0])
    return AuditCase("normalised answers + discrete_laplace(Δ/(εn)) (wrong units)",
                     "dpbook.broken.laplace.normalised_discrete_laplace", epsilon, 0.0, s(_UNITS_X),
                     s(_UNITS_X_PRIME), {"y <= 0": _leq0}, 100_000, _PAIR_UNITS, "control", math.inf)


@_register("discrete_laplace_on_counts")
def _case_discrete_laplace_on_counts(epsilon=1.0):
    """The fix: integer noise on the counts, then divide by the public n: P[Z <= 0] vs P[Z <= -1], ratio e^ε."""
    from .laplace import laplace_mechanism
    from .noise import discrete_laplace
    s = lambda x: (lambda t, rng: laplace_mechanism(x, _ONE_COUNT, epsilon=epsilon, n=_UNITS_N, trials=t, rng=rng,
                                                    sampler=discrete_laplace).answers[:, 0])
    return AuditCase("counts + discrete_laplace(Δ/ε), then / n", "dpbook.laplace.laplace_mechanism", epsilon, 0.0,
                     s(_UNITS_X), s(_UNITS_X_PRIME), {"y <= 0": _leq0}, 400_000, _PAIR_UNITS, "mechanism", epsilon)
