"""What a mechanism returns: a small frozen record of the release and of what it spent."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Protocol, runtime_checkable

import numpy as np

__all__ = ["Release", "Spend", "Ledger", "compose", "composition_rule", "COMPOSITIONS", "RULES", "NEIGHBOURS", "PrivateResult", "ReleaseRecord",
           "as_ledger", "ReleasedArray", "ReleasedIndex", "with_claim", "theorem_epsilon", "BUDGET_RTOL",
           "zcdp_epsilon", "zcdp_rho", "zcdp_of"]

from .validation import NEIGHBOURS as _DATABASE_RELATIONS
from .validation import EPSILON_EXP_MAX, EPSILON_RANGE, check_choice, check_delta, check_epsilon, check_real

#: The neighbouring relations a claim can be made under: add/remove one row (``||x - x'||_1 <= 1``, n private),
#: replace one row (``|D| = |D'| = n``, n public), and randomized response's local relation (chapter 02).
NEIGHBOURS = _DATABASE_RELATIONS + ("one person's private bit changes",)


#: The largest claimed ε.  A mechanism's ε parameter is at most 1e12 (:data:`dpbook.validation.EPSILON_RANGE`), but
#: a composed claim can be larger (many steps of a large ε: vacuous, yet true); up to 2^53 a claim is a float whose
#: sums stay exact-ish, and nothing near 1e308 (or 2^63) — which overflows e^ε and every product — is a claim.
CLAIM_EPSILON_MAX = float(2 ** 53)


def check_claim(epsilon, delta) -> tuple[float, float]:
    """A claimed (ε, δ) as floats, bounded like the parameters of a mechanism (:func:`dpbook.validation.check_epsilon`,
    :func:`dpbook.validation.check_delta`): ε = 0 (a step that spends nothing, e.g. post-processing) or in
    [1e-12, 2^53] (:data:`CLAIM_EPSILON_MAX`: the parameters' range, widened at the top for composed claims),
    δ = 0 or in [1e-100, 1).  Numpy scalars are accepted like Python numbers."""
    value = check_real("epsilon", epsilon, low=0.0)
    if value != 0.0 and not EPSILON_RANGE[0] <= value <= CLAIM_EPSILON_MAX:
        raise ValueError(f"epsilon ({value!r}) must be 0 or in [{EPSILON_RANGE[0]:g}, 2^53] for a claim (outside it "
                         "e^epsilon and the composition sums are not meaningful float64)")
    return value, check_delta(delta)


@dataclass(frozen=True)
class Spend:
    """One entry of a budget ledger: a primitive private step and the (ε, δ) it used (:func:`check_claim`'s ranges;
    stored as floats), and/or the ρ of zero-concentrated DP it used (``rho``; Bun & Steinke 2016, "Concentrated
    Differential Privacy: Simplifications, Extensions, and Lower Bounds": ρ-zCDP bounds every Rényi divergence of
    order α > 1 by αρ).  A step recorded by ``rho`` alone (a Gaussian measurement: ``ρ = Δ₂²/(2σ²)``, BS16) has no
    (ε, δ) of its own (``epsilon`` is None) and composes only in a ``"zcdp"`` :class:`Ledger`; a step with both
    (an exponential mechanism: ε-DP and ``ε²/8``-zCDP) gives ``epsilon`` to the (ε, δ) rules and ``rho`` to the
    zCDP rule.  Frozen: assigning or deleting a field is an ``AttributeError``."""

    step: str
    epsilon: float | None = None
    delta: float = 0.0
    rho: float | None = None

    def __post_init__(self):
        if not isinstance(self.step, str):
            raise TypeError(f"step must be a name (str), got {type(self.step).__name__}")
        if self.epsilon is None and self.rho is None:
            raise TypeError("a Spend records epsilon (its (ε, δ)) or rho (its zCDP parameter): got neither")
        if self.epsilon is None:
            delta = check_delta(self.delta)
            if delta != 0.0:
                raise ValueError(f"delta ({delta!r}) must be 0 for a step recorded by rho alone (its δ is set "
                                 "where the ledger converts the composed ρ)")
            object.__setattr__(self, "delta", delta)
        else:
            epsilon, delta = check_claim(self.epsilon, self.delta)
            object.__setattr__(self, "epsilon", epsilon)
            object.__setattr__(self, "delta", delta)
        if self.rho is not None:
            object.__setattr__(self, "rho", check_rho(self.rho))

    def __repr__(self):
        rho = "" if self.rho is None else f", rho={self.rho!r}"
        return f"Spend(step={self.step!r}, epsilon={self.epsilon!r}, delta={self.delta!r}{rho})"


def check_rho(rho, name: str = "rho") -> float:
    """A zCDP parameter ρ as a float: 0 (a step that spends nothing) or in [1e-300, 2^53] (far below and above any
    ρ a mechanism spends; beyond, the conversion's sums are not meaningful float64)."""
    value = check_real(name, rho, low=0.0)
    if value != 0.0 and not 1e-300 <= value <= CLAIM_EPSILON_MAX:
        raise ValueError(f"{name} ({value!r}) must be 0 or in [1e-300, 2^53]")
    return value


RULES = ("basic", "advanced", "advanced-corollary", "zcdp")


class Ledger(tuple):
    """The private steps of a release and the rule that composes them: a tuple of :class:`Spend` (or nested
    ledgers) with ``rule`` — ``"basic"`` (DR-Thm3.16: the ε and δ add up), ``"advanced"`` (DR-Thm3.20 with
    its ``delta_prime``: ``ε' = sqrt(2 ln(1/δ') Σ ε_i²) + Σ ε_i (e^{ε_i} - 1)`` and ``δ' + Σ δ_i``, the same proof
    with each step's own ε) or ``"advanced-corollary"`` (DR-Cor3.21, the form a mechanism splits its budget
    by: ``ε' = 2 sqrt(2 ln(1/δ') Σ ε_i²)``, which bounds DR-Thm3.20's value when ``ε' < 1``; where it does not,
    :func:`compose` gives the theorem's value).  A plain tuple of ``Spend`` is a basic ledger.  :func:`compose`
    gives the (ε, δ) the steps prove; a mechanism's claim is exactly that.

    ``budget``: the ε the steps were split from, when a mechanism split one (None otherwise).  It is not a claim:
    :func:`compose` returns it only where the steps compose to it up to the rounding of the float evaluation
    (relative :data:`BUDGET_RTOL`) — ``k`` steps of ``ε/k`` add up to ``ε`` in real numbers, not always in floats —
    and the composed value wherever they do not.
    """

    def __new__(cls, entries=(), *, rule: str = "basic", delta_prime: float = 0.0, label: str = "", budget=None):
        entries = tuple(entries)
        _check_entries(entries)
        rule = check_choice("rule", rule, RULES)
        delta_prime = check_delta(delta_prime, "delta_prime", positive=rule != "basic")
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {type(label).__name__}")
        if budget is not None:
            budget = check_claim(budget, 0.0)[0]
        if rule == "zcdp":                      # every step has a ρ (refused by zcdp_of otherwise)
            for entry in entries:
                zcdp_of(entry)
        elif rule == "basic":                   # every step has an (ε, δ) (a ρ-only step: ValueError)
            for entry in entries:
                compose(entry)
        else:                                   # DR-Thm3.20's sum has e^{ε_i}: keep it a finite float
            for entry in entries:
                eps = compose(entry)[0]
                if eps > EPSILON_EXP_MAX:
                    raise ValueError(f"epsilon ({eps!r}) of a step must be <= {EPSILON_EXP_MAX:g} under the {rule!r} "
                                     "rule (its e^epsilon term overflows beyond that, and the bound is vacuous)")
        obj = super().__new__(cls, entries)
        obj.__dict__.update(rule=rule, delta_prime=delta_prime, label=label, budget=budget)
        return obj

    def __setattr__(self, name, value):
        raise AttributeError(f"a Ledger is frozen: cannot assign {name!r} (the claim is computed from it)")

    def __delattr__(self, name):
        raise AttributeError(f"a Ledger is frozen: cannot delete {name!r}")

    def __reduce__(self):                       # pickle / copy: rebuilt (and checked) through the constructor
        return _rebuild_ledger, (tuple(self), self.rule, self.delta_prime, self.label, self.budget)

    def __repr__(self):
        extra = f", delta_prime={self.delta_prime:g}" if self.rule != "basic" else ""
        return f"Ledger({len(self)} steps, rule={self.rule!r}{extra}{', ' + self.label if self.label else ''})"


def _check_entries(entries) -> None:
    for e in entries:
        if isinstance(e, Spend):
            continue
        if not isinstance(e, tuple):
            raise TypeError(f"entries must be Spend records or ledgers, got {type(e).__name__}")
        if not isinstance(e, Ledger):           # a nested plain tuple: its entries too
            _check_entries(e)


def _rebuild_ledger(entries, rule, delta_prime, label, budget=None) -> "Ledger":
    return Ledger(entries, rule=rule, delta_prime=delta_prime, label=label, budget=budget)


#: How far (relative) the float evaluation of a composition may sit from the budget its steps were split from
#: and still be that budget (:class:`Ledger`'s ``budget``): far above the ~1e-15 rounding of the sums, square
#: roots and e^ε of :func:`compose` and of the splits, far below any difference a claim could mean.
BUDGET_RTOL = 1e-12

COMPOSITIONS = ("corollary", "tight")


def composition_rule(delta, composition: str = "corollary") -> str:
    """The :class:`Ledger` rule of ``2k`` equal steps split from an (ε, δ) budget: ``"basic"`` when ``δ = 0``;
    otherwise ``"advanced-corollary"`` for DR-Cor3.21's closed-form split (``composition="corollary"``) or
    ``"advanced"`` for a step solved from DR-Thm3.20 itself (``"tight"``, which spends the whole budget)."""
    delta = check_delta(delta)
    composition = check_choice("composition", composition, COMPOSITIONS)
    if delta == 0.0:
        return "basic"
    return "advanced-corollary" if composition == "corollary" else "advanced"


def compose(ledger) -> tuple[float, float]:
    """The (ε, δ) a ledger proves: a :class:`Spend` is its own (ε, δ); a plain tuple or a basic
    :class:`Ledger` adds them (DR-Thm3.16); an advanced ledger applies DR-Thm3.20 with its ``delta_prime``
    (for steps with different ε_i, the same Azuma argument gives ``sqrt(2 ln(1/δ') Σ ε_i²) + Σ ε_i(e^{ε_i}-1)``);
    an ``"advanced-corollary"`` ledger states DR-Cor3.21's ``2 sqrt(2 ln(1/δ') Σ ε_i²)`` — for ``k`` steps of
    ``ε/(2 sqrt(2k ln(1/δ')))`` exactly the ε they were split from — or the theorem's value where that is larger
    (the corollary needs its ε' < 1).  A ledger with a ``budget`` gives it where the steps compose to it up to
    float rounding (:data:`BUDGET_RTOL`)."""
    epsilon, delta = _compose(ledger)
    budget = getattr(ledger, "budget", None)
    if budget is not None and abs(epsilon - budget) <= BUDGET_RTOL * budget:
        epsilon = budget
    return epsilon, delta


def _compose(ledger) -> tuple[float, float]:
    if isinstance(ledger, Spend):
        if ledger.epsilon is None:
            raise ValueError(f"a step recorded by rho alone ({ledger.step!r}, rho={ledger.rho!r}) has no (ε, δ) of its "
                             "own: compose it in a Ledger(rule='zcdp', delta_prime=δ)")
        return float(ledger.epsilon), float(ledger.delta)
    if not isinstance(ledger, tuple):
        raise TypeError(f"ledger must be a Spend, a Ledger or a tuple of them, got {type(ledger).__name__}")
    if getattr(ledger, "rule", "basic") == "zcdp":
        return zcdp_epsilon(zcdp_of(ledger), ledger.delta_prime), ledger.delta_prime
    parts = [compose(entry) for entry in ledger]
    eps = [e for e, _ in parts]
    delta = math.fsum(d for _, d in parts)
    if getattr(ledger, "rule", "basic") == "basic":
        return math.fsum(eps), delta
    dp = ledger.delta_prime
    root = math.sqrt(2.0 * math.log(1.0 / dp) * math.fsum(e * e for e in eps))
    epsilon = root + math.fsum(e * math.expm1(e) for e in eps)                 # DR-Thm3.20
    if ledger.rule == "advanced-corollary":
        epsilon = max(2.0 * root, epsilon)                                     # DR-Cor3.21 (≥ the theorem's if < 1)
    return epsilon, delta + dp


def zcdp_of(ledger) -> float:
    """The ρ of zero-concentrated DP a step or ledger spends (Bun & Steinke 2016): a :class:`Spend`'s ``rho``, or
    ``ε²/2`` for a pure ε-DP step without one (BS16 Prop. 1.4); a ``"zcdp"`` ledger or a tuple, the sum of its
    entries' ρ (BS16 Lemma 2.3, adaptive composition); any other ledger, ``ε²/2`` of its composition when that is
    pure.  A step with δ > 0 has no ρ: ``ValueError``."""
    if isinstance(ledger, Spend):
        if ledger.rho is not None:
            return ledger.rho
        if ledger.delta == 0.0:
            return 0.5 * ledger.epsilon ** 2
        raise ValueError(f"the step {ledger.step!r} has delta ({ledger.delta!r}) > 0 and no rho: an (ε, δ) step has "
                         "no zCDP parameter")
    if not isinstance(ledger, tuple):
        raise TypeError(f"ledger must be a Spend, a Ledger or a tuple of them, got {type(ledger).__name__}")
    if isinstance(ledger, Ledger) and ledger.rule not in ("basic", "zcdp"):
        epsilon, delta = compose(ledger)
        if delta > 0.0:
            raise ValueError(f"a {ledger.rule!r} ledger claims delta ({delta!r}) > 0: it has no zCDP parameter")
        return 0.5 * epsilon ** 2
    return math.fsum(zcdp_of(entry) for entry in ledger)


def _zcdp_bound(rho: float, log_inv_delta: float, alpha: float) -> float:
    """CKS20 Prop. 12 at order α > 1 for (α, αρ)-RDP: ``ε = αρ + ln(1 − 1/α) − (ln α − ln(1/δ))/(α − 1)``."""
    return alpha * rho + math.log1p(-1.0 / alpha) + (log_inv_delta - math.log(alpha)) / (alpha - 1.0)


def zcdp_epsilon(rho, delta) -> float:
    """The ε of ``(ε, δ)``-DP that ρ-zCDP implies, by the conversion of Canonne, Kamath, Steinke 2020 ("The Discrete
    Gaussian for Differential Privacy", Prop. 12, the one AIM uses): ρ-zCDP is ``(α, αρ)``-RDP for every α > 1, and
    ``(α, τ)``-RDP implies ``(ε, δ)``-DP with ``ε = τ + ln(1 − 1/α) − (ln α + ln δ)/(α − 1)``.  Every α gives a
    true bound; the one taken solves ``ρ(α − 1)² = ln(1/δ) − ln α`` (where the bound's derivative in α is zero;
    unique in ``(1, 1 + sqrt(ln(1/δ)/ρ)]``) by bisection.  Never more than Bun & Steinke 2016's
    ``ρ + 2 sqrt(ρ ln(1/δ))`` (Prop. 1.3).  ``ρ = 0`` gives 0."""
    rho = check_rho(rho)
    delta = check_delta(delta, positive=True)
    if rho == 0.0:
        return 0.0
    c = -math.log(delta)
    lo, hi = 1.0, 1.0 + math.sqrt(c / rho)
    for _ in range(200):                                  # bisection on the derivative's sign (fixed work)
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if rho * (mid - 1.0) ** 2 < c - math.log(mid):    # still decreasing: the optimum is to the right
            lo = mid
        else:
            hi = mid
    bound = _zcdp_bound(rho, c, hi) if hi > 1.0 else math.inf
    return max(0.0, min(bound, rho + 2.0 * math.sqrt(rho * c)))


def zcdp_rho(epsilon, delta) -> float:
    """The largest ρ whose :func:`zcdp_epsilon` at ``delta`` is at most ``epsilon`` (a mechanism's ε,
    :func:`dpbook.validation.check_epsilon`; bisection, fixed work): the ρ a mechanism that accounts in zCDP splits
    an ``(ε, δ)`` budget into, as AIM does."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    lo, hi = 0.0, epsilon                  # zcdp_epsilon(ρ) >= ρ, so ρ <= ε
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if zcdp_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


def as_ledger(ledger) -> Ledger:
    """``ledger`` as a :class:`Ledger`: a Ledger as is, a :class:`Spend` or a plain tuple of them as a basic
    ledger (DR-Thm3.16) — the same steps, so :func:`compose` gives the same (ε, δ)."""
    if isinstance(ledger, Ledger):
        return ledger
    if isinstance(ledger, Spend):
        return Ledger((ledger,))
    if not isinstance(ledger, (tuple, list)):
        raise TypeError(f"ledger must be a Spend, a Ledger or a tuple of them, got {type(ledger).__name__}")
    return Ledger(ledger)


# --------------------------------------------------------------------------------------- the protocol

@runtime_checkable
class PrivateResult(Protocol):
    """What every mechanism of the book returns, whatever it releases (answers, a histogram, reports, a
    synthetic database, a summary, an index).

    ``epsilon``, ``delta``: the claim, for one release (a batched run of ``trials`` releases claims it for each).
    ``neighbours``: the relation the claim is made under, one of :data:`NEIGHBOURS` (``"add/remove"``,
    ``"replace-one"``, or randomized response's local relation).  ``mechanism``: its name.  ``ledger``: a
    :class:`Ledger` of every primitive private step; ``compose(ledger)`` reproduces ``(epsilon, delta)``.
    ``trace``: extra data for plots and audits (a mapping, or None), never used to answer queries.
    ``released``: exactly what was released — everything else a caller computes from it is post-processing.
    """

    epsilon: float
    delta: float
    neighbours: str
    mechanism: str
    ledger: Ledger
    trace: Mapping[str, Any] | None

    @property
    def released(self) -> Any: ...


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the caller's own array keeps its flags)."""
    view = array.view()
    view.flags.writeable = False
    return view


class ReleaseRecord:
    """The one base of every result of the book (the frozen result dataclasses, :class:`Release`,
    :class:`ReleasedIndex`, :class:`ReleasedArray`): the claim is what the ledger proves.

    ``epsilon`` and ``delta`` are not stored: they are ``compose(ledger)`` (:func:`compose`), computed from the
    frozen :class:`Ledger` each time they are read, so a claim cannot disagree with what was spent.  A dataclass
    record is checked on construction (:meth:`_check_record`): ``neighbours`` one of :data:`NEIGHBOURS`,
    ``mechanism`` a str, the ``ledger`` a :class:`Ledger` (:func:`as_ledger`) whose composition lies in
    :func:`check_claim`'s ranges, and every ndarray field (the released values and those computed from them)
    becomes a read-only view, so every record satisfies :class:`PrivateResult` once it defines ``released`` and
    nothing in it can be changed afterwards (frozen fields: ``AttributeError``; read-only arrays:
    ``ValueError``).  The ``trace`` mapping is kept as given."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__repr__" not in cls.__dict__:      # kept by @dataclass, which only adds a __repr__ a class lacks
            cls.__repr__ = _record_repr

    @property
    def epsilon(self) -> float:
        """The claimed ε: the ε of ``compose(ledger)``."""
        return compose(self.ledger)[0]

    @property
    def delta(self) -> float:
        """The claimed δ: the δ of ``compose(ledger)``."""
        return compose(self.ledger)[1]

    def __post_init__(self):
        self._check_record()

    def _check_record(self):
        if not isinstance(self.neighbours, str) or self.neighbours not in NEIGHBOURS:
            raise ValueError(f"neighbours ({self.neighbours!r}) must be one of {NEIGHBOURS}")
        if not isinstance(self.mechanism, str):
            raise TypeError(f"mechanism must be a name (str), got {type(self.mechanism).__name__}")
        ledger = as_ledger(self.ledger)
        check_claim(*compose(ledger))
        object.__setattr__(self, "ledger", ledger)
        for f in fields(self):                  # the released arrays (and those computed from them): read-only
            value = getattr(self, f.name)
            if type(value) is np.ndarray and value.flags.writeable:
                object.__setattr__(self, f.name, _read_only(value))


def _record_repr(self) -> str:
    """A record's dataclass repr with its claim: ``epsilon=…, delta=…`` (computed) before ``mechanism``."""
    parts = []
    for f in fields(self):
        if f.name == "mechanism":
            parts += [f"epsilon={self.epsilon!r}", f"delta={self.delta!r}"]
        if f.repr:
            parts.append(f"{f.name}={getattr(self, f.name)!r}")
    return f"{type(self).__qualname__}({', '.join(parts)})"


def theorem_epsilon(ledger) -> float:
    """The ε DR-Thm3.20 proves for a ledger's steps: ``compose`` of the same steps under the ``"advanced"`` rule
    (with the ledger's ``delta_prime`` and ``budget``) — for a DR-Cor3.21 split, less than its claim (the slack
    chapter 12 shows); for a basic ledger (no δ′), its basic composition; for a zCDP ledger, its own claim."""
    ledger = as_ledger(ledger)
    if ledger.rule in ("basic", "zcdp"):
        return compose(ledger)[0]
    return compose(Ledger(ledger, rule="advanced", delta_prime=ledger.delta_prime, budget=ledger.budget))[0]


@dataclass(frozen=True)
class Release(ReleaseRecord):
    """A private release of answers (a :class:`PrivateResult`; ``released`` is ``answers``).

    ``answers``: the released normalised answers, shape ``(m,)`` or ``(trials, m)`` for batched runs
    (never the true answers).  ``noise_scale``: the noise parameter in answer units (Laplace ``b`` or Gaussian
    ``σ``).  ``ledger``: every primitive private step with its (ε, δ); ``epsilon``/``delta``, the guarantee
    claimed for one release, are what it composes to.  ``trace``: optional extra data for plots and audits
    (never used to answer queries).  ``neighbours``: the neighbouring relation the claim is made under, one of
    :data:`NEIGHBOURS`.
    """

    answers: np.ndarray = field(repr=False)
    mechanism: str
    noise_scale: float | None = None
    ledger: tuple[Spend, ...] = ()
    trace: Mapping[str, Any] | None = field(default=None, repr=False)
    neighbours: str = "add/remove"

    @property
    def released(self) -> np.ndarray:
        return self.answers


# ------------------------------------------------- a released index or array that carries its claim

_CLAIM = ("mechanism", "neighbours", "ledger", "trace")


def _claim(mechanism, neighbours, ledger, trace) -> dict:
    if not isinstance(neighbours, str) or neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours ({neighbours!r}) must be one of {NEIGHBOURS}")
    if not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a name (str), got {type(mechanism).__name__}")
    if trace is not None and not isinstance(trace, Mapping):
        raise TypeError(f"trace must be a mapping or None, got {type(trace).__name__}")
    ledger = as_ledger(ledger)
    check_claim(*compose(ledger))
    return dict(mechanism=mechanism, neighbours=neighbours, ledger=ledger, trace=trace)


class ReleasedIndex(ReleaseRecord, int):
    """An int (a selection: the exponential mechanism's or report-noisy-max's pick) that carries its claim.

    It is the int everywhere (indexing, arithmetic, printing); ``released`` is the plain int and the claim is a
    :class:`PrivateResult`.  Arithmetic on it gives plain ints (post-processing keeps no claim).  The claim is
    frozen like a frozen dataclass's fields (assigning or deleting one is an ``AttributeError``); pickling and
    copying keep it."""

    def __new__(cls, value, *, mechanism, ledger, neighbours="add/remove", trace=None):
        obj = int.__new__(cls, int(value))
        obj.__dict__.update(_claim(mechanism, neighbours, ledger, trace))
        return obj

    def __setattr__(self, name, value):
        raise AttributeError(f"a released index is frozen: cannot assign {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a released index is frozen: cannot delete {name!r}")

    def __reduce__(self):
        return _rebuild_index, (int(self), {name: self.__dict__[name] for name in _CLAIM})

    def __repr__(self):
        return int.__repr__(self)

    @property
    def released(self) -> int:
        return int(self)


def _rebuild_index(value, claim) -> ReleasedIndex:
    return ReleasedIndex(value, **claim)


class ReleasedArray(ReleaseRecord, np.ndarray):
    """An ndarray (picks, or noisy values) that carries its claim: a :class:`PrivateResult` whose ``released``
    is the plain array.  Slices and views keep the claim; arithmetic and reductions give plain arrays.

    Nothing in it changes after release: the values are a read-only copy of what the mechanism drew (writing to
    them is a ``ValueError``) and the claim fields are frozen (assigning or deleting one is an ``AttributeError``).
    Pickling and copying keep the claim."""

    def __new__(cls, values, *, mechanism, ledger, neighbours="add/remove", trace=None):
        claim = _claim(mechanism, neighbours, ledger, trace)
        base = np.array(values)                 # a copy: the caller's array cannot change the release afterwards
        base.flags.writeable = False
        obj = base.view(cls)
        obj.__dict__.update(claim)
        return obj

    def __array_finalize__(self, obj):
        self.__dict__.update({name: getattr(obj, name, None) for name in _CLAIM})

    def __setattr__(self, name, value):
        if name in _CLAIM:
            raise AttributeError(f"the claim of a released array is frozen: cannot assign {name!r}")
        super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in _CLAIM:
            raise AttributeError(f"the claim of a released array is frozen: cannot delete {name!r}")
        super().__delattr__(name)

    def __reduce__(self):
        rebuild, args, state = super().__reduce__()
        return rebuild, args, (state, {name: self.__dict__.get(name) for name in _CLAIM})

    def __setstate__(self, state):
        array_state, claim = state
        super().__setstate__(array_state)
        self.__dict__.update(claim)
        self.flags.writeable = False

    def __array_wrap__(self, array, context=None, return_scalar=False):
        out = np.asarray(array).view(np.ndarray)
        return out[()] if return_scalar else out

    def __repr__(self):
        return repr(self.view(np.ndarray))

    @property
    def released(self) -> np.ndarray:
        return self.view(np.ndarray)


def with_claim(value, *, mechanism, ledger, neighbours="add/remove", trace=None):
    """``value`` (an int, or an array of picks or noisy values) as a :class:`ReleasedIndex` /
    :class:`ReleasedArray` carrying the claim its ``ledger`` composes to: how a mechanism that releases a bare
    index or array satisfies :class:`PrivateResult` while staying an int / an ndarray for its callers."""
    claim = dict(mechanism=mechanism, neighbours=neighbours, ledger=ledger, trace=trace)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return ReleasedIndex(value, **claim)
    return ReleasedArray(value, **claim)
