"""The book's audit catalogue (chapter 17): :class:`AuditCase`, the registry of case factories, running and
tabulating audits, and which public functions are mechanisms (for the coverage test).

One :class:`AuditCase` per (mechanism, neighbouring pair, events): the worst-case pair known for the mechanism, so a
correct mechanism scores ``epsilon_lb`` close to (and below) its claim, and each deliberately broken variant of
``dpbook.broken`` (a *control*) scores above it.  The cases themselves live in :mod:`dpbook.audit.cases`, one module
per family, each factory registered with :func:`register`; the tests (tests/test_audits.py) and chapter 17 run the
same catalogue.
"""
from __future__ import annotations

import importlib
import inspect
import math
import pathlib
import pkgutil
import zlib
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..noise import as_generator
from ..validation import check_delta, check_epsilon, check_int, check_probability, check_real, check_trials
from .engine import AuditResult, audit, epsilon_lower_bound
from ..data import load_results_file

__all__ = ["KINDS", "AuditCase", "audit_cases", "audit_case_names", "run_audits", "audit_table", "epsilon_lb_ceiling",
           "stored_audits", "public_mechanisms", "broken_mechanisms"]


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

    @property
    def seed(self) -> int:
        """The case's own seed (CRC-32 of its name): the one tests/test_audits.py and the stored results use."""
        return zlib.crc32(self.name.encode())

    def run(self, rng=None, *, trials=None, alpha=1e-6) -> AuditResult:
        """Audit the case (``trials`` defaults to the case's own, sized for a few seconds at most)."""
        trials = self.trials if trials is None else trials
        return audit(self.sample, self.sample_prime, self.events, trials=trials, delta=self.delta,
                     alpha=alpha, rng=rng)


class _Factories(Mapping):
    """The registry: catalogue key -> case factory, in the catalogue's order.

    A key is *announced* with the module that registers it (:func:`announce`, from :mod:`dpbook.audit.cases`, which
    reads the keys from the modules' sources) and that module is imported the first time one of its keys is looked
    up, so a chapter that audits one mechanism, or none, does not import every mechanism the catalogue covers.
    :func:`register` (run as the module is imported) stores the factory; a key registered without being announced
    is appended to the order.  Listing the keys imports nothing; listing the factories imports every module."""

    def __init__(self):
        self._modules: dict[str, str | None] = {}       # key -> the module that registers it (None: registered)
        self._factories: dict[str, Callable[..., AuditCase]] = {}

    def announce(self, key: str, module: str) -> None:
        if key not in self._modules:
            self._modules[key] = module

    def register(self, key: str, factory) -> None:
        self._modules.setdefault(key, None)
        self._factories[key] = factory

    def __getitem__(self, key):
        if key not in self._factories and self._modules.get(key) is not None:
            importlib.import_module(self._modules[key])
            if key not in self._factories:
                raise LookupError(f"the audit case module {self._modules[key]} does not register {key!r}")
        return self._factories[key]

    def __contains__(self, key):
        return key in self._modules

    def __iter__(self):
        return iter(list(self._modules))

    def __len__(self):
        return len(self._modules)


FACTORIES = _Factories()


def register(key: str):
    """Decorator of a case factory: ``@register("key")`` at the top level of a module of :mod:`dpbook.audit.cases`
    (written so, with the key a string literal, the key is found in the module's source without importing it)."""
    def deco(factory):
        FACTORIES.register(key, factory)
        return factory
    return deco


def announce(key: str, module: str) -> None:
    """Record that importing ``module`` registers ``key`` (imported when ``key`` is first looked up)."""
    FACTORIES.announce(key, module)


def audit_cases(which: str = "all", *, epsilon=None, names=None) -> list[AuditCase]:
    """The catalogue: ``which`` is ``"all"`` or one of :data:`KINDS` (``"mechanism"``, ``"control"``,
    ``"finding"``).  ``epsilon`` overrides each case's default claim (chapter 17's slider); ``names``
    selects cases by key (see :func:`audit_case_names`).  A case whose module is missing is skipped.
    """
    if which != "all" and which not in KINDS:
        raise ValueError(f"which ({which!r}) must be 'all' or one of {KINDS}")
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    keys = list(FACTORIES) if names is None else list(names)
    unknown = [k for k in keys if k not in FACTORIES]
    if unknown:
        raise ValueError(f"names ({unknown!r}) must be keys of the catalogue: {sorted(FACTORIES)}")
    cases = []
    for key in keys:
        factory = FACTORIES[key]                 # imports the case's module on first use
        try:
            case = factory() if epsilon is None else factory(epsilon)
        except ImportError:                      # a chapter's module that has not landed (yet)
            continue
        if which in ("all", case.kind):
            cases.append(case)
    return cases


def audit_case_names() -> list[str]:
    """The keys of the catalogue, in the order of the book's chapters."""
    return list(FACTORIES)


def run_audits(cases, *, rng=None, alpha=1e-6, trials_factor=1.0) -> list[tuple[AuditCase, AuditResult]]:
    """Run each case with one Generator (seeded once); ``trials_factor`` scales every case's trials."""
    rng = as_generator(rng)
    trials_factor = check_real("trials_factor", trials_factor, low=1e-6, high=1e6)    # a scale of the trials
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


STORED_SCHEMA = 1
_STORED_FIELDS = ("name", "kind", "epsilon", "delta", "trials")


def _same_field(stored, now) -> bool:
    """A stored field equals the case's now; a claim computed in floating point (an exact δ through ``exp``) may
    differ in its last bits between CPUs (numpy picks its ``exp`` kernel by the CPU), so reals agree to 1e-12."""
    if isinstance(now, float) and isinstance(stored, (int, float)) and not isinstance(stored, bool):
        return math.isclose(stored, now, rel_tol=1e-12, abs_tol=0.0)
    return stored == now


def stored_audits(path, which: str = "all", *, names=None) -> list[tuple[AuditCase, AuditResult]]:
    """The catalogue's audits as stored by ``python -m benchmarks.audits.run`` in the results file ``path``: one
    ``(case, result)`` pair per case of :func:`audit_cases` (``which`` and ``names`` as there), each run at the
    case's own ``trials`` from its own :attr:`AuditCase.seed` — the runs of tests/test_audits.py, read instead of
    repeated.

    The file must match the catalogue as it is now (every case, with its name, kind, claim and trials; with
    ``names``, every named case — only their modules are imported, not the whole catalogue's): otherwise
    ``ValueError`` asks for the file to be regenerated, so a stale file cannot be read silently.
    """
    if which != "all" and which not in KINDS:
        raise ValueError(f"which ({which!r}) must be 'all' or one of {KINDS}")
    if names is not None:
        if isinstance(names, str) or not all(isinstance(k, str) for k in names):
            raise TypeError(f"names must be a list of case names, got {names!r}")
        unknown = [k for k in names if k not in FACTORIES]
        if unknown:
            raise ValueError(f"names ({unknown!r}) must be keys of the catalogue: {sorted(FACTORIES)}")
    stored = load_results_file(path, "python -m benchmarks.audits.run")
    if not isinstance(stored, dict) or stored.get("schema") != STORED_SCHEMA or not isinstance(stored.get("cases"), dict):
        raise ValueError(f"path ({str(path)!r}) is not a results file of python -m benchmarks.audits.run "
                         f"(schema {STORED_SCHEMA})")
    records = stored["cases"]
    if names is None:
        keys = audit_case_names()
        stale = sorted(set(keys) ^ set(records))
    else:
        keys = list(names)
        stale = sorted(set(keys) - set(records))
    out = []
    for key in keys:
        if key not in records:
            continue
        case, rec = FACTORIES[key](), records[key]
        same = all(_same_field(rec.get(f), getattr(case, f)) for f in _STORED_FIELDS) and rec.get("seed") == case.seed
        if not same:
            stale.append(key)
        elif which in ("all", case.kind):
            out.append((case, AuditResult(float(rec["epsilon_lb"]), rec["event"], int(rec["hits"]),
                                          int(rec["hits_prime"]), int(rec["trials"]), float(rec["alpha"]),
                                          float(rec["delta"]))))
    if stale:
        raise ValueError(f"path ({str(path)!r}) does not match the catalogue (cases {stale[:5]}"
                         f"{' …' if len(stale) > 5 else ''}): regenerate it with python -m benchmarks.audits.run")
    return out


# --- which functions are mechanisms (for the coverage test) -----------------------------------------------

_NOT_MECHANISM_MODULES = ("dpbook.theory", "dpbook.explorers", "dpbook.broken", "dpbook.plots", "dpbook.widgets",
                          "dpbook.validation", "dpbook.contract",    # contract: the mechanisms' prologue releases nothing
                          "dpbook.comparisons",   # the chapters' experiments: error summaries, no release
                          "dpbook.exercises")     # the exercises' answers: numbers to check, no release


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


