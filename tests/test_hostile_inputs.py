"""Hostile scalars for every numeric parameter of every public function (CONTRIBUTING.md, test kind 3).

The functions are discovered as in tests/test_api_coverage.py (every module's ``__all__``, its valid calls and its
table of parameters for which a value is legitimately valid), plus the explorers' callbacks (``explore_*``, which
that sweep exempts).  Each numeric parameter of a valid call — an ``int`` or ``float`` argument — is replaced, one
at a time, by each of :data:`HOSTILE` (subnormal, huge, negative, zero, NaN, ±inf, 2^63, ``True``, the string
``"1"``, ``None``), at the ends of a documented range (1e-12 and 1e12 for ε, α, sensitivities: they must
run or be refused by name, never overflow), and by the valid value as a numpy scalar (``np.int64`` / ``np.float64``).  Outcomes:

* ``refused``: ``ValueError`` / ``TypeError`` whose message names the parameter — OK;
* ``numpy accepted``: the numpy scalar of a valid value runs — OK;
* ``accepted``: a hostile value ran and the parameter has no documented range that excludes it (a threshold,
  a real evaluation point, a count that may be 0), or a value at the end of a documented range ran — noted;
* failures: ``silent`` (a value outside the parameter's range ran), ``unclear`` (an error that does not name the
  parameter, or names numpy's "inhomogeneous shape"), ``crash`` (any other exception: OverflowError,
  ZeroDivisionError, FloatingPointError, ...), ``numpy refused`` (a valid numpy scalar refused), ``timeout``.

Every call runs under an alarm (:func:`test_api_coverage._bounded`), in this process.  Findings in modules owned
elsewhere are listed in :data:`KNOWN_FINDINGS` and each is a strict xfail, so fixing one makes its case XPASS.
"""
import collections
import functools
import importlib
import inspect
import math
import pkgutil
import warnings

import numpy as np
import pytest

import dpbook
from test_api_coverage import (EPSILONS, NONNEG_INT, NOT_APPLICABLE, POSITIVE, POSITIVE_INT, PROBABILITY,
                               FUNCTIONS, EXEMPT_FUNCTIONS, _bounded, _TookTooLong, _valid_call)

#: (label, value): the hostile scalars; "-1", "0", "nan", "2**63" use the labels of test_api_coverage.NOT_APPLICABLE.
HOSTILE = [("5e-324", 5e-324), ("1e308", 1e308), ("-1", -1), ("0", 0), ("nan", math.nan), ("inf", math.inf),
           ("-inf", -math.inf), ("2**63", 2 ** 63), ("True", True), ("str", "1"), ("None", None)]

#: Float parameters whose documented range (dpbook/validation.py) excludes 5e-324 and 1e308: privacy, accuracy
#: and failure-probability parameters, sensitivities and noise scales, learning rates.
ALPHAS = {"alpha", "alpha_u", "alpha_sv", "alpha_ns", "alpha_counts"}
RANGED = POSITIVE | PROBABILITY | EPSILONS | ALPHAS | {"delta_prime", "gamma"}   # (incl. c_gru, sq_norm, lam:
#                                                                  dpbook.validation.REAL_RANGE)
#: ... and 2^63 (9.2e18) too: epsilon and alpha (<= 1e12), probabilities (<= 1), sensitivities (<= 1e12).
TIGHT = EPSILONS | PROBABILITY | ALPHAS | {"delta_prime", "gamma", "sensitivity"}
#: The ends of the ranges: valid, so the call must run or refuse by name — never overflow.
EDGES = [("1e-12 (edge)", 1e-12), ("1e12 (edge)", 1e12)]
FAILURES = ("silent", "unclear", "crash", "numpy refused", "timeout")

# Explorer callbacks (chapter widgets): their slider parameters have defaults, so the valid call is {} — the
# defaults — and only hostile values are tried (a valid call draws a figure: seconds, not milliseconds).
EXPLORER_PREFIX = "dpbook.explorers."


def _explorers():
    found = {}
    for info in pkgutil.walk_packages(dpbook.explorers.__path__, EXPLORER_PREFIX):
        module = importlib.import_module(info.name)
        for attr in getattr(module, "__all__", ()):
            fn = getattr(module, attr, None)
            if inspect.isfunction(fn) and fn.__module__ == info.name and attr.startswith("explore_"):
                found[f"{info.name}.{attr}"] = fn
    return found


import dpbook.explorers  # noqa: E402  (walked above)

EXPLORERS = _explorers()


def _numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _calls():
    """(qualname, fn, valid kwargs, {parameter: valid value}) for every function with numeric parameters."""
    out = []
    for qualname, fn in sorted(FUNCTIONS.items()):
        kwargs = None if qualname in EXEMPT_FUNCTIONS else _valid_call(qualname, fn)
        if kwargs:
            numeric = {k: v for k, v in kwargs.items() if _numeric(v) and k != "rng"}
            if numeric:
                out.append((qualname, fn, kwargs, numeric))
    for qualname, fn in sorted(EXPLORERS.items()):
        numeric = {k: p.default for k, p in inspect.signature(fn).parameters.items()
                   if _numeric(p.default) and k != "seed"}
        out.append((qualname, fn, {}, numeric))
    return out


def _expected(qualname, param, label, valid, default) -> str:
    """What a hostile value must give: "refuse" (by name), or "either" (it may be valid for this parameter)."""
    if (qualname, param) in NOT_APPLICABLE or (qualname, param, label) in NOT_APPLICABLE:
        return "either"
    if label in ("True", "str", "nan", "inf", "-inf"):
        return "refuse"
    if label == "None":
        return "either" if default is None else "refuse"
    if label.endswith("(edge)"):
        return "either"
    if isinstance(valid, int):                      # an integer parameter: a float is the wrong kind
        if label in ("5e-324", "1e308", "2**63"):
            return "refuse"
        if label == "0":
            return "refuse" if param in POSITIVE_INT else "either"
        if label == "-1":
            return "refuse" if param in POSITIVE_INT | NONNEG_INT else "either"
        return "either"
    if label in ("5e-324", "1e308"):
        return "refuse" if param in RANGED else "either"
    if label == "2**63":
        return "refuse" if param in TIGHT else "either"
    if label == "0":
        return "refuse" if param in POSITIVE else "either"
    if label == "-1":
        return "refuse" if param in POSITIVE | PROBABILITY | EPSILONS | ALPHAS else "either"
    return "either"


def _classify(qualname, fn, kwargs, param, value, expect, seconds=5.0) -> tuple[str, str]:
    try:
        with _bounded(seconds), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(**dict(kwargs, **{param: value}))
    except (ValueError, TypeError) as err:
        msg = str(err)
        if "inhomogeneous" in msg or param not in msg:
            return "unclear", f"{type(err).__name__}: {msg[:160]}"
        return "refused", ""
    except _TookTooLong:
        return "timeout", f"still running after {seconds} s"
    except MemoryError:
        return "crash", "MemoryError"
    except Exception as err:                                   # noqa: BLE001 (classified, not swallowed)
        return "crash", f"{type(err).__name__}: {str(err)[:160]}"
    finally:
        _close_figures()
    if expect == "refuse":
        return "silent", "accepted"
    if _non_finite(result):
        return "silent", "accepted, and returned a non-finite number"
    return "accepted", ""


def _non_finite(result) -> bool:
    """A plain numeric result (a bound, an array of them) with NaN or inf in it."""
    if isinstance(result, (float, np.floating)):
        return not math.isfinite(result)
    if isinstance(result, np.ndarray) and result.dtype.kind == "f":
        return not bool(np.all(np.isfinite(result)))
    return False


def _close_figures():
    import matplotlib.pyplot as plt
    plt.close("all")


@functools.cache
def sweep():
    """Every case's outcome: {(qualname, parameter, label): (outcome, detail)}."""
    results = {}
    for qualname, fn, kwargs, numeric in _calls():
        defaults = {k: p.default for k, p in inspect.signature(fn).parameters.items()}
        for param, valid in numeric.items():
            edges = EDGES if isinstance(valid, float) and param in TIGHT - PROBABILITY else []
            for label, value in HOSTILE + edges:
                expect = _expected(qualname, param, label, valid, defaults.get(param))
                seconds = 20.0 if qualname.startswith(EXPLORER_PREFIX) else 5.0      # (a figure at a range's end)
                results[(qualname, param, label)] = _classify(qualname, fn, kwargs, param, value, expect, seconds)
            if qualname.startswith(EXPLORER_PREFIX):
                continue
            scalar = np.int64(valid) if isinstance(valid, int) else np.float64(valid)
            outcome, detail = _classify(qualname, fn, kwargs, param, scalar, "either")
            label = "np.int64" if isinstance(valid, int) else "np.float64"
            results[(qualname, param, label)] = (("numpy accepted", "") if outcome == "accepted"
                                                 else ("numpy refused", detail))
    return results


#: Known failures of the sweep, each a strict xfail (a fix makes its case XPASS; remove its line then). None now.
KNOWN_FINDINGS: dict = {}


def _failures():
    return {case: r for case, r in sweep().items() if r[0] in FAILURES}


def test_hostile_scalars_are_refused_by_name_and_numpy_scalars_accepted():
    counts = collections.Counter(outcome for outcome, _ in sweep().values())
    print("\nhostile-input sweep:", dict(sorted(counts.items())), f"({len(sweep())} calls)")
    failures = {case: r for case, r in _failures().items() if case not in KNOWN_FINDINGS}
    for case, (outcome, detail) in sorted(failures.items()):
        print(f"  {outcome:14s} {case[0].removeprefix('dpbook.')}({case[1]}={case[2]}): {detail}")
    assert not failures, f"{len(failures)} hostile inputs not refused by name (see the list above)"


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=r),
                                               id=f"{c[0].removeprefix('dpbook.')}:{c[1]}={c[2]}")
                                  for c, r in sorted(KNOWN_FINDINGS.items())] or
                         [pytest.param(None, marks=pytest.mark.skip(reason="no open findings"))])
def test_known_finding_is_fixed(case):
    assert sweep()[case][0] not in FAILURES, sweep()[case]


def test_the_classification_can_fail():
    """A function that overflows, one that accepts anything, one that names an internal variable and one that
    refuses a numpy integer are each classified as a failure; a clear refusal is not."""
    from dpbook.validation import check_alpha

    def overflows(alpha):
        return math.exp(alpha)

    def divides(alpha):
        return 1.0 / (alpha * alpha)

    def accepts(alpha):
        return alpha

    def internal(alpha):
        raise ValueError(f"log_term ({alpha}) must be finite")

    def picky(K):
        if type(K) is not int:
            raise TypeError("K must be an int")
        return K

    assert _classify("f", overflows, {}, "alpha", 1e308, "refuse")[0] == "crash"
    assert _classify("f", divides, {}, "alpha", 5e-324, "refuse")[0] == "crash"
    assert _classify("f", divides, {}, "alpha", 1e-160, "either") == ("silent", "accepted, and returned a non-finite "
                                                                           "number")
    assert _classify("f", accepts, {}, "alpha", 1e308, "refuse")[0] == "silent"
    assert _classify("f", internal, {}, "alpha", -1, "refuse")[0] == "unclear"
    assert _classify("f", picky, {}, "K", np.int64(2), "either")[0] != "accepted"
    assert _classify("f", lambda alpha: check_alpha(alpha), {}, "alpha", -1.0, "refuse")[0] == "refused"
