"""Claims cannot change after the fact, and claims are bounded like ε is everywhere else.

* Every release type's claim fields (``epsilon``, ``delta``, ``mechanism``, ``neighbours``, ``ledger``, ``trace``)
  refuse assignment and deletion (``AttributeError``, like a frozen dataclass), and so do a ledger's ``rule``,
  ``delta_prime``, ``label`` and ``budget``; ``epsilon`` and ``delta`` are not stored at all but computed from the
  ledger (``compose(release.ledger)``), and no constructor takes them.
* Released arrays are read-only; a released index or array keeps its claim through slicing, pickling and copying.
* ``Spend``, ``with_claim`` and every release record check ε and δ like the mechanisms' validators do
  (ε = 0 or in [1e-12, 2^53] — the parameters' range, widened at the top for composed claims — and δ = 0 or in
  [1e-100, 1)); numpy scalars are numbers like Python's.
"""
import copy
import dataclasses
import inspect
import math
import pickle

import numpy as np
import pytest

from dpbook.release import (Ledger, PrivateResult, Release, ReleasedArray, ReleasedIndex, Spend, compose,
                            with_claim)
from test_api_coverage import CALLS, FUNCTIONS
from test_api_coverage import MECHANISM_CASES as CASES

CLAIM = ("epsilon", "delta", "mechanism", "neighbours", "ledger", "trace")


def _results():
    """One result per valid call of every public mechanism, correct and broken (tests/test_api_coverage.py's CASES:
    conventional calls and those declared next to each mechanism)."""
    return {f"{q}[{i}]": (lambda q=q, i=i: FUNCTIONS[q](**CALLS[q][i]())) for q, i in CASES if CALLS[q]}


RESULTS = _results()


def _release(name):
    rel = RESULTS[name]()
    assert isinstance(rel, PrivateResult), f"{name} returns {type(rel).__name__}, not a release"
    return rel


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_claim_field_of_every_release_is_frozen(name):
    rel = _release(name)
    before = {field: getattr(rel, field) for field in CLAIM}
    for field in CLAIM:
        with pytest.raises(AttributeError):
            setattr(rel, field, 99.0 if field in ("epsilon", "delta") else None)
        with pytest.raises(AttributeError):
            delattr(rel, field)
    for field in ("rule", "delta_prime", "label", "budget"):
        with pytest.raises(AttributeError, match="frozen"):
            setattr(rel.ledger, field, "basic")
        with pytest.raises(AttributeError, match="frozen"):
            delattr(rel.ledger, field)
    assert all(getattr(rel, field) is before[field] for field in CLAIM if field not in ("epsilon", "delta"))
    assert compose(rel.ledger) == (rel.epsilon, rel.delta) == (before["epsilon"], before["delta"])


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_released_array_is_read_only(name):
    rel = _release(name)
    released = rel.released
    arrays = [released] if isinstance(released, np.ndarray) else [r for r in released if isinstance(r, np.ndarray)] \
        if isinstance(released, (tuple, list)) else []
    for arr in arrays:
        assert not arr.flags.writeable, f"{name}: the released array is writable"
        if arr.size:
            with pytest.raises(ValueError, match="read-only"):
                arr[(0,) * arr.ndim] = 0


def test_the_ledger_cannot_be_rewritten_after_release():
    """Was: ``ledger.rule = "basic"`` moved compose() from (1.0, 1e-5) to (0.489, 0) under an unchanged claim,
    and ``rule = "nonsense"`` was accepted."""
    from dpbook.sparse_vector import sparse_vector
    rel = sparse_vector(np.array([3, 1, 0, 2]), np.eye(4), threshold=0.5, c=2, epsilon=1.0, delta=1e-5, n=6, rng=0)
    assert rel.ledger.rule != "basic"
    claim = compose(rel.ledger)
    for value in ("basic", "nonsense"):
        with pytest.raises(AttributeError):
            rel.ledger.rule = value
    with pytest.raises(AttributeError):
        rel.ledger.delta_prime = 0.5
    assert compose(rel.ledger) == claim == pytest.approx((rel.epsilon, rel.delta))


@pytest.mark.parametrize("rule, exc", [("nonsense", ValueError), ("", ValueError), (3, TypeError), (None, TypeError)])
def test_a_ledger_rule_must_be_one_of_the_rules(rule, exc):
    with pytest.raises(exc, match="rule"):
        Ledger([Spend("a", 0.5)], rule=rule, delta_prime=1e-6)


def test_ledger_pickles_and_copies_with_its_rule():
    adv = Ledger([Spend("a", 0.1)] * 3, rule="advanced-corollary", delta_prime=1e-6, label="three steps")
    for clone in (pickle.loads(pickle.dumps(adv)), copy.copy(adv), copy.deepcopy(adv)):
        assert isinstance(clone, Ledger) and tuple(clone) == tuple(adv)
        assert (clone.rule, clone.delta_prime, clone.label) == (adv.rule, adv.delta_prime, adv.label)
        assert compose(clone) == compose(adv)


def test_a_ledger_refuses_what_its_rule_cannot_compose():
    with pytest.raises(ValueError, match="epsilon .* 100"):
        Ledger([Spend("a", 1000.0)], rule="advanced", delta_prime=1e-6)       # e^1000 overflows DR-Thm3.20's sum
    assert compose(Ledger([Spend("a", 1000.0)])) == (1000.0, 0.0)             # the basic rule adds it
    with pytest.raises(TypeError, match="entries"):
        Ledger([(Spend("a", 1.0), 3)])                                         # a nested tuple is checked too
    with pytest.raises(TypeError, match="label"):
        Ledger([], label=3)


# --- released indices and arrays ------------------------------------------------------------------------------

def _picks():
    from dpbook.exponential import report_noisy_max
    return report_noisy_max([1.0, 5.0, 2.0], epsilon=0.5, sensitivity=1.0, trials=20, rng=3)


def test_a_released_array_keeps_its_claim_through_views_pickles_and_copies():
    picks = _picks()
    for clone in (picks[:5], picks.reshape(4, 5), picks.view(), pickle.loads(pickle.dumps(picks)),
                  copy.copy(picks), copy.deepcopy(picks)):
        assert isinstance(clone, ReleasedArray) and clone.epsilon == 0.5 and clone.ledger == picks.ledger
        assert clone.ledger.rule == picks.ledger.rule and clone.neighbours == picks.neighbours
    restored = pickle.loads(pickle.dumps(picks))
    assert np.array_equal(restored, picks) and not restored.flags.writeable
    with pytest.raises(AttributeError):
        restored.epsilon = 5.0


def test_a_released_array_is_read_only_and_a_copy_of_what_was_drawn():
    values = np.array([0.25, 0.5])
    rel = with_claim(values, mechanism="m", ledger=(Spend("m", 1.0),))
    values[0] = 7.0                                            # the caller's array is not the release
    assert rel[0] == 0.25 and values.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        rel[0] = 7.0
    with pytest.raises(ValueError):
        rel.flags.writeable = True
    with pytest.raises(ValueError, match="read-only"):
        rel.released[0] = 7.0
    assert type(rel + 1) is np.ndarray and (rel + 1).flags.writeable      # computed from it: a plain array


def test_a_released_index_keeps_its_claim_through_pickles_and_copies():
    from dpbook.exponential import exponential_mechanism
    pick = exponential_mechanism([1.0, 5.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=3)
    for clone in (pickle.loads(pickle.dumps(pick)), copy.copy(pick), copy.deepcopy(pick)):
        assert isinstance(clone, ReleasedIndex) and clone == pick and clone.epsilon == 1.0
        assert compose(clone.ledger) == (1.0, 0.0)
    for field in CLAIM + ("anything",):
        with pytest.raises(AttributeError, match="frozen"):
            setattr(pick, field, 2.0)
    with pytest.raises(AttributeError, match="frozen"):
        del pick.epsilon


# --- claims bounded like ε elsewhere --------------------------------------------------------------------------

HUGE_OR_TINY = [(1e308, ValueError), (2 ** 63, ValueError), (10 ** 400, ValueError), (5e-324, ValueError),
                (1e16, ValueError), (math.inf, ValueError), (math.nan, ValueError), (-1.0, ValueError),
                (1 + 1j, TypeError), ("1", TypeError), (True, TypeError)]


@pytest.mark.parametrize("epsilon, exc", HUGE_OR_TINY)
def test_claimed_epsilon_is_bounded_like_a_mechanisms(epsilon, exc):
    with pytest.raises(exc, match="epsilon"):
        Spend("a", epsilon)


@pytest.mark.parametrize("delta, exc", [(5e-324, ValueError), (1e-101, ValueError), (1.0, ValueError),
                                        (-0.1, ValueError), (math.nan, ValueError), ("0", TypeError)])
def test_claimed_delta_is_bounded_like_a_mechanisms(delta, exc):
    with pytest.raises(exc, match="delta"):
        Spend("a", 1.0, delta)


#: Ledgers whose steps are each in range but whose composition is not a claim: ε beyond 2^53, δ summing to >= 1.
OUT_OF_RANGE = [(Ledger([Spend("a", 2.0 ** 52)] * 4), "epsilon"), (Ledger([Spend("a", 1.0, 0.6)] * 2), "delta")]


@pytest.mark.parametrize("ledger, name", OUT_OF_RANGE)
def test_a_composed_claim_is_bounded_like_a_mechanisms(ledger, name):
    for build in (lambda: with_claim(3, mechanism="m", ledger=ledger),
                  lambda: with_claim(np.zeros(2), mechanism="m", ledger=ledger),
                  lambda: Release(np.zeros(2), "m", ledger=ledger)):
        with pytest.raises(ValueError, match=name):
            build()


def test_a_claim_is_never_stated_beside_the_ledger():
    """No constructor takes ε or δ: the claim is what the ledger composes to (a :class:`Ledger`'s ``budget`` is
    the split's ε, returned only where the steps compose to it up to float rounding)."""
    with pytest.raises(TypeError, match="epsilon"):
        Release(np.zeros(2), "m", epsilon=1.0, ledger=(Spend("a", 1.0),))
    with pytest.raises(TypeError, match="epsilon"):
        with_claim(3, epsilon=1.0, mechanism="m", ledger=(Spend("a", 1.0),))
    steps = [Spend("a", 1.0 / 49)] * 49
    assert compose(tuple(steps))[0] != 1.0 and compose(Ledger(steps, budget=1.0)) == (1.0, 0.0)
    assert compose(Ledger(steps[:48], budget=1.0))[0] == pytest.approx(48 / 49)      # not spent: not the budget
    assert Release(np.zeros(2), "m", ledger=Ledger(steps, budget=1.0)).epsilon == 1.0


def test_numpy_scalars_are_numbers_in_claims():
    spend = Spend("a", np.float64(0.5), np.float32(0.0))
    assert spend == Spend("a", 0.5) and type(spend.epsilon) is float
    pick = with_claim(np.int64(2), mechanism="m", ledger=(Spend("m", np.float64(1.0), 1e-6),))
    assert isinstance(pick, ReleasedIndex) and pick == 2 and type(pick.epsilon) is float and pick.delta == 1e-6
    rel = Release(np.zeros(2), "m", ledger=(Spend("a", np.int64(1)),))
    assert type(rel.epsilon) is float and rel.epsilon == 1.0


def test_a_step_that_spends_nothing_is_a_zero_claim():
    assert compose((Spend("post-processing", 0.0), Spend("laplace", 1.0))) == (1.0, 0.0)
    assert with_claim(1, mechanism="public", ledger=(Spend("public", 0.0),)).epsilon == 0.0
    assert Spend("all rounds, composed", 1.5e12).epsilon == 1.5e12      # a composed claim may exceed 1e12


@pytest.mark.parametrize("field, bad, exc", [("step", 3, TypeError), ("mechanism", 3, TypeError),
                                             ("neighbours", "edge", ValueError)])
def test_claim_names_are_checked(field, bad, exc):
    with pytest.raises(exc, match=field):
        if field == "step":
            Spend(bad, 1.0)
        else:
            Release(np.zeros(2), **{"mechanism": "m", "ledger": (Spend("a", 1.0),), field: bad})


def test_every_release_record_type_validates_its_claim():
    """Every ReleaseRecord subclass checks the ε and δ its ledger composes to in construction (one record per type,
    rebuilt by hand with a ledger out of range)."""
    from dpbook.release import ReleaseRecord
    import dpbook.graphs, dpbook.histogram, dpbook.randomized_response, dpbook.smooth, dpbook.sparse_project  # noqa
    import dpbook.sparse_vector  # noqa: F401
    kinds = {cls.__name__ for cls in _subclasses(ReleaseRecord)}
    assert {"Release", "NoisyHistogram", "SparseVectorRelease", "RRReports"} <= kinds
    for name in sorted(RESULTS):
        rel = RESULTS[name]()
        if not isinstance(rel, ReleaseRecord) or not dataclasses.is_dataclass(rel):    # an index or array: above
            continue
        fields = {f.name: getattr(rel, f.name) for f in dataclasses.fields(rel)}
        fields.update({p: None for p in inspect.signature(type(rel)).parameters if p not in fields})  # InitVars
        for ledger, what in OUT_OF_RANGE:
            with pytest.raises(ValueError, match=what):
                type(rel)(**{**fields, "ledger": ledger})


def _subclasses(cls):
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def test_the_sweep_reaches_the_release_types():
    """Guard against a silently empty parametrisation."""
    names = {type(RESULTS[n]()).__name__ for n in RESULTS}
    assert {"Release", "ReleasedArray", "NoisyHistogram", "SparseVectorRelease", "OnlineRelease",
            "SyntheticDatabase", "RRReports"} <= names, names
    assert len(RESULTS) > 40
    assert inspect.isclass(ReleasedArray)
