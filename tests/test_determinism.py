"""Same seed, same output — for every public function of dpbook that takes ``rng``.

Every function with an ``rng`` parameter is called (with the valid arguments of tests/test_api_coverage.py)
twice with the same int seed, twice with equally seeded Generators, and once with another seed: the first
two pairs must agree exactly (NaN == NaN), the last must differ unless the function is deterministic by design.
"""
import dataclasses
import inspect

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
import pytest
import scipy.sparse as sp

from test_api_coverage import CALLS, EXEMPT_FUNCTIONS, FUNCTIONS, _valid_call

RANDOM = sorted(q for q, fn in FUNCTIONS.items()
                if "rng" in inspect.signature(fn).parameters and q not in EXEMPT_FUNCTIONS)

# Functions with ``rng`` whose output does not depend on it for these arguments, with the reason.
DETERMINISTIC = {
    "dpbook.broken.laplace.laplace_no_noise": "the control adds no noise at all",
    "dpbook.audit.catalogue.run_audits": "called with an empty list of cases",
    "dpbook.experiments.required_n": "the smallest n of a grid that passes: the seed moves the trials, not the "
                                     "grid point, on the sweep's small example",
    "dpbook.graphs.cut_norm_local_search": "the best cut over the spectral starts and seeded random ones: on small "
                                           "matrices the spectral starts win whatever the seed",
    "dpbook.graphs.synthetic_graph": "its oracle's random starts matter only where the spectral ones lose (not on "
                                     "the sweep's small graph); round_graph shows the seed reaching the graph",
}


def _same(a, b) -> bool:
    """Exact equality of nested outputs: arrays (NaN == NaN), dataclasses, mappings, sequences, scalars, and
    figures (their pixels, drawn on Agg)."""
    if isinstance(a, Figure):
        same = isinstance(b, Figure) and _pixels(a) == _pixels(b)
        plt.close(a)
        plt.close(b)
        return same
    if isinstance(a, np.random.Generator):
        return isinstance(b, np.random.Generator) and _same(a.random(4), b.random(4))
    if sp.issparse(a) or sp.issparse(b):
        return sp.issparse(a) and sp.issparse(b) and a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        names = _outputs({f.name: None for f in dataclasses.fields(a)})
        return type(a) is type(b) and all(_same(getattr(a, name), getattr(b, name)) for name in names)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    if hasattr(a, "__dict__") and not callable(a) and type(a).__module__.startswith("dpbook"):
        return type(a) is type(b) and _same(_outputs(vars(a)), _outputs(vars(b)))
    return a == b


def _outputs(fields: dict) -> dict:
    """A result's fields without its measured run times (``time``, ``*_time``, ``seconds``): a clock, not the seed."""
    return {k: v for k, v in fields.items() if not (k == "time" or k.endswith("_time") or k == "seconds")}


def _pixels(fig) -> bytes:
    fig.canvas.draw()
    return bytes(fig.canvas.buffer_rgba())


def _calls(qualname) -> list:
    """Every valid call the sweeps know: a mechanism's conventional call and those declared next to it
    (dpbook.contract.example: among them, data on which an update fires, where the conventional call updates
    nothing); any other function's valid call."""
    if qualname in CALLS:
        return CALLS[qualname]
    kwargs = _valid_call(qualname, FUNCTIONS[qualname])
    return [] if kwargs is None else [lambda: kwargs]


def _call(qualname, rng, i=0):
    calls = _calls(qualname)
    assert calls, (f"{qualname} takes rng but the sweep has no valid call of it: declare one next to it with "
                   f"example({qualname.rsplit('.', 1)[1]}, lambda: dict(...)) (dpbook.contract)")
    kwargs = dict(calls[i](), rng=rng)
    if qualname == "dpbook.sparse_vector.run_sparse":
        kwargs["rng"] = np.random.default_rng(rng) if isinstance(rng, int) else rng
    return FUNCTIONS[qualname](**kwargs)


@pytest.mark.parametrize("qualname", RANDOM)
def test_same_seed_same_output(qualname):
    for i in range(max(1, len(_calls(qualname)))):
        assert _same(_call(qualname, 2026, i), _call(qualname, 2026, i))
        assert _same(_call(qualname, np.random.default_rng(7), i), _call(qualname, np.random.default_rng(7), i))


@pytest.mark.parametrize("qualname", [q for q in RANDOM if q not in DETERMINISTIC])
def test_another_seed_another_output(qualname):
    """At least one of a function's calls shows its randomness: seeds 1, 2 and 3 do not all give the same output."""
    varies = []
    for i in range(max(1, len(_calls(qualname)))):
        outputs = [_call(qualname, seed, i) for seed in (1, 2, 3)]
        varies.append(not (_same(outputs[0], outputs[1]) and _same(outputs[0], outputs[2])))
    assert any(varies), f"{qualname} gave the same output for seeds 1, 2 and 3 in every call"


def test_every_mechanism_is_covered():
    """Every public mechanism (dpbook.audit.public_mechanisms) is among the functions checked here."""
    from dpbook.audit import public_mechanisms
    missing = [q for q in public_mechanisms() if q not in RANDOM]
    assert not missing, missing
    assert len(RANDOM) > 40


def test_the_comparison_can_fail():
    a = {"x": np.array([1.0, np.nan]), "y": (1, 2)}
    assert _same(a, {"x": np.array([1.0, np.nan]), "y": (1, 2)})
    assert not _same(a, {"x": np.array([1.0, 2.0]), "y": (1, 2)})
    assert not _same(a, {"x": np.array([1.0, np.nan]), "y": (1, 3)})
