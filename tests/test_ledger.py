"""Every release's ledger composes to (at most) its claim, and an independent accountant agrees.

``dpbook.release.compose`` applies the ledger's own rule (basic: DR-Thm3.16; advanced: DR-Thm3.20 with the
ledger's δ′).  The claim of a release must be at least what its steps prove; for mechanisms that split the
budget by basic composition it is exactly that.  Google's ``dp-accounting`` (a test-only dependency) is the
oracle for every (ε, δ) claim: its privacy-loss-distribution accountant composes the same steps (each
(ε_i, δ_i)-DP step as the worst-case mechanism with those parameters, discretised pessimistically) and its
δ(ε) at the claimed ε must not exceed the claimed δ.
"""
import inspect
import math
from collections import Counter

import numpy as np
import pytest

from dpbook.release import Ledger, Spend, compose
from test_api_coverage import FUNCTIONS, _valid_call

pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
from dp_accounting.pld import common  # noqa: E402

MECHANISMS = sorted(q for q, fn in FUNCTIONS.items()
                    if {"epsilon", "rng"} <= set(inspect.signature(fn).parameters))


def _steps(ledger):
    """The primitive (ε, δ) steps of a (nested) ledger."""
    if isinstance(ledger, Spend):
        return [(ledger.epsilon, ledger.delta)]
    return [step for entry in ledger for step in _steps(entry)]


def oracle_delta(ledger, epsilon) -> float:
    """δ(ε) of the composition of the ledger's steps by the PLD accountant (pessimistic discretisation)."""
    total = None
    for (eps, dlt), count in Counter(_steps(ledger)).items():
        if eps == 0.0 and dlt == 0.0:
            continue
        one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(eps, dlt),
                                          value_discretization_interval=1e-4)
        part = one.self_compose(count) if count > 1 else one
        total = part if total is None else total.compose(part)
    return 0.0 if total is None else float(total.get_delta_for_epsilon(epsilon))


def _release(qualname):
    fn = FUNCTIONS[qualname]
    kwargs = _valid_call(qualname, fn)
    if kwargs is None:
        pytest.skip(f"{qualname}: no conventional valid call")
    out = fn(**kwargs)
    if not all(hasattr(out, a) for a in ("ledger", "epsilon", "delta")):
        pytest.skip(f"{qualname} returns {type(out).__name__}, not a release with a ledger")
    return out


@pytest.mark.parametrize("qualname", MECHANISMS)
def test_ledger_composes_to_the_claim(qualname):
    rel = _release(qualname)
    if qualname.startswith("dpbook.broken."):
        pytest.skip("a broken twin's claim is false by design (its audit catches it)")
    assert len(rel.ledger) > 0, f"{qualname} records no private step"
    eps, dlt = compose(rel.ledger)
    assert eps <= rel.epsilon * (1 + 1e-9) and dlt <= rel.delta + 1e-15, (qualname, (eps, dlt), rel)
    if getattr(rel.ledger, "rule", "basic") == "basic" and rel.delta == 0.0:
        assert eps == pytest.approx(rel.epsilon, rel=1e-9), f"{qualname}: pure-ε basic ledger leaves budget unspent"


def _advanced_calls():
    from dpbook.gaussian import composed_laplace_mechanism
    from dpbook.idc import FixedStream, MultiplicativeWeightsIDC, iterative_construction, online_idc_sv
    from dpbook.mwem import mwem
    from dpbook.queries import k_way_marginals
    from dpbook.sparse_project import random_sparse_queries, sparse_project, synthetic_records  # noqa: F401
    from dpbook.sparse_vector import numeric_sparse_stream, sparse_vector_stream
    x, W = np.arange(16), k_way_marginals(4, 1)
    f = np.linspace(0.0, 1.0, 40)
    return {
        "sparse_vector_stream": lambda: sparse_vector_stream(f, T=0.5, c=5, epsilon=0.9, delta=1e-6, rng=0),
        "numeric_sparse_stream": lambda: numeric_sparse_stream(f, T=0.5, c=5, epsilon=0.9, delta=1e-6, rng=0),
        "composed_laplace_mechanism": lambda: composed_laplace_mechanism(x, W, epsilon=0.9, delta=1e-6, n=120,
                                                                         rng=0),
        "online_idc_sv": lambda: online_idc_sv(x, MultiplicativeWeightsIDC(16, 0.2), FixedStream(W), epsilon=0.9,
                                               delta=1e-6, rng=0),
        "iterative_construction": lambda: iterative_construction(x, W, rule=MultiplicativeWeightsIDC(16, 0.2),
                                                                 epsilon=0.9, delta=1e-6, rng=0),
        "online_idc_sv(tight)": lambda: online_idc_sv(x, MultiplicativeWeightsIDC(16, 0.2), FixedStream(W),
                                                      epsilon=0.9, delta=1e-6, rng=0, composition="tight"),
        "mwem(delta)": lambda: mwem(x, W, epsilon=0.9, T=20, delta=1e-6, n=120, trials=2, rng=0),
        "iterative_construction(tight)": lambda: iterative_construction(x, W, rule=MultiplicativeWeightsIDC(16, 0.2),
                                                                        epsilon=0.9, delta=1e-6, rng=0,
                                                                        composition="tight"),
    }


ADVANCED = _advanced_calls()


def _other_calls():
    """Mechanisms the sweep cannot call with conventional values (they take graphs, points, record sets)."""
    from dpbook.graphs import graph_randomized_response, random_graph
    from dpbook.smooth import per_query_laplace, smooth_summary
    from dpbook.sparse_project import (laplace_sparse_queries, random_sparse_queries, record_pool, sparse_project,
                                       sparse_project_gaussian, synthetic_records)
    X = np.linspace(-1, 1, 50)[:, None]
    pool = record_pool(64, 32, rng=7)
    D = synthetic_records(500, pool, rng=1)
    W = random_sparse_queries(20, 5, 2 ** 32, rng=2, pool=pool)
    return {
        "graph_randomized_response": lambda: graph_randomized_response(random_graph(9, 0.4, 0), epsilon=0.7, rng=0),
        "smooth_summary": lambda: smooth_summary(X, epsilon=0.7, K=2, rng=0),
        "per_query_laplace": lambda: per_query_laplace(X, [lambda P: P[:, 0] ** 2] * 3, epsilon=1.0, B=1.0, rng=0),
        "sparse_project": lambda: sparse_project(D, epsilon=1.0, delta=1e-5, beta=0.1, m=5, k=20, n=D.n, T=64,
                                                 r=4, rng=1),
        "sparse_project_gaussian": lambda: sparse_project_gaussian(D, epsilon=0.9, delta=1e-5, beta=0.1, m=5, k=20,
                                                                   n=D.n, T=64, r=4, rng=1),
        "laplace_sparse_queries": lambda: laplace_sparse_queries(D, W, epsilon=1.0, n=D.n, rng=1),
    }


OTHERS = _other_calls()


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_mechanisms_ledgers_compose_to_their_claims(name):
    rel = OTHERS[name]()
    eps, dlt = compose(rel.ledger)
    assert eps <= rel.epsilon * (1 + 1e-9) and dlt <= rel.delta * (1 + 1e-9) + 1e-15
    if rel.delta > 0:
        assert oracle_delta(rel.ledger, rel.epsilon) <= rel.delta


@pytest.mark.parametrize("name", sorted(ADVANCED))
def test_advanced_composition_claims_hold_and_the_oracle_agrees(name):
    """Before this test: sparse_vector_stream, composed_laplace_mechanism and online_idc_sv recorded steps that
    *summed* to 0.19, 0.38 and 0.30 at a claim of 0.9 with no δ anywhere; now each ledger names its rule."""
    rel = ADVANCED[name]()
    eps, dlt = compose(rel.ledger)
    assert eps <= rel.epsilon * (1 + 1e-9) and dlt <= rel.delta * (1 + 1e-9)
    assert dlt > 0.0                                       # the δ′ of advanced composition is on the record
    assert oracle_delta(rel.ledger, rel.epsilon) <= rel.delta


def test_the_oracle_catches_a_false_claim():
    """The oracle's check can fail: 100 steps of ε = 0.05 are not (0.5, 1e-6)-DP (they are about (1.6, 1e-6))."""
    ledger = Ledger([Spend("step", 0.05)] * 100, rule="advanced", delta_prime=1e-6)
    assert oracle_delta(ledger, 0.5) > 1e-6
    assert compose(ledger)[0] > 0.5


def test_compose_rules_by_hand():
    from dpbook.theory.composition import advanced_composition
    steps = [Spend("a", 0.1)] * 10
    assert compose(tuple(steps)) == pytest.approx((1.0, 0.0))
    adv = Ledger(steps, rule="advanced", delta_prime=1e-5)
    assert compose(adv) == pytest.approx(advanced_composition(0.1, 10, 1e-5))
    nested = (adv, Spend("b", 0.2, 1e-6))
    assert compose(nested) == pytest.approx((advanced_composition(0.1, 10, 1e-5)[0] + 0.2, 1e-5 + 1e-6))
    hetero = Ledger([Spend("a", 0.1), Spend("b", 0.3)], rule="advanced", delta_prime=1e-3)
    expected = math.sqrt(2 * math.log(1e3) * (0.01 + 0.09)) + 0.1 * math.expm1(0.1) + 0.3 * math.expm1(0.3)
    assert compose(hetero)[0] == pytest.approx(expected)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(entries=[3]), TypeError, "entries"),
    (dict(entries=[], rule="fancy"), ValueError, "rule"),
    (dict(entries=[], rule="advanced", delta_prime=0.0), ValueError, "delta_prime"),
    (dict(entries=[], rule="advanced", delta_prime=1.5), ValueError, "delta_prime"),
])
def test_ledger_rejects_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Ledger(**kwargs)


@pytest.mark.parametrize("bad, exc", [(3, TypeError), ("x", TypeError), ([Spend("a", 1.0)], TypeError)])
def test_compose_rejects_bad_input(bad, exc):
    with pytest.raises(exc, match="ledger"):
        compose(bad)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(step="a", epsilon=-1.0), ValueError, "epsilon"), (dict(step="a", epsilon=math.nan), ValueError, "epsilon"),
    (dict(step="a", epsilon=1.0, delta=1.0), ValueError, "delta"),
])
def test_spend_rejects_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Spend(**kwargs)


# ------------------------------------------------------------------ one protocol for every mechanism's result

def _protocol_calls():
    """Every public mechanism (the sweep's conventional calls, broken twins included: a false claim still states
    its relation and a ledger that composes to it) and the ones the sweep cannot call."""
    from dpbook.audit import broken_mechanisms, public_mechanisms
    from test_audits import NOT_MECHANISMS
    calls = {}
    for qualname in sorted(set(public_mechanisms()) | set(broken_mechanisms())):
        if qualname in NOT_MECHANISMS:
            continue
        fn = FUNCTIONS[qualname]
        kwargs = _valid_call(qualname, fn)
        if kwargs is not None:
            calls[qualname] = (lambda fn=fn, kwargs=kwargs: fn(**kwargs))
    calls.update({f"other:{k}": v for k, v in OTHERS.items()})
    calls.update({f"advanced:{k}": v for k, v in ADVANCED.items()})
    return calls


PROTOCOL_CALLS = _protocol_calls()


def _size(released) -> int:
    if isinstance(released, (tuple, list)):
        return sum(_size(r) for r in released)
    return int(np.size(released))


@pytest.mark.parametrize("name", sorted(PROTOCOL_CALLS))
def test_every_result_satisfies_the_release_protocol(name):
    """``dpbook.release.PrivateResult``: the claim (ε, δ, neighbours), the mechanism's name, a Ledger that
    composes to exactly the claim, a trace (mapping or None), and a non-empty ``released``."""
    from collections.abc import Mapping

    from dpbook.release import NEIGHBOURS, PrivateResult

    rel = PROTOCOL_CALLS[name]()
    assert isinstance(rel, PrivateResult), f"{name} returns {type(rel).__name__}, not a PrivateResult"
    assert rel.neighbours in NEIGHBOURS, (name, rel.neighbours)
    assert isinstance(rel.mechanism, str) and rel.mechanism
    assert isinstance(rel.ledger, Ledger) and len(rel.ledger) > 0, (name, rel.ledger)
    assert rel.trace is None or isinstance(rel.trace, Mapping), (name, type(rel.trace))
    eps, dlt = compose(rel.ledger)
    assert eps == pytest.approx(rel.epsilon, rel=1e-9), (name, "epsilon", eps, rel.epsilon)
    assert dlt == pytest.approx(rel.delta, rel=1e-9, abs=1e-15), (name, "delta", dlt, rel.delta)
    assert _size(rel.released) > 0, f"{name} released nothing"


def test_tight_composition_spends_the_whole_budget_and_the_corollary_half():
    """``composition="tight"`` (DR-Thm3.20 solved for the step) against DR-Cor3.21's closed-form split: the tight
    ledger's steps are ~1.94x larger and compose by the theorem itself to the claim; the corollary's steps compose
    by the theorem to about half of it (the slack chapter 08 shows).  Catches a tight split that overshoots."""
    from dpbook.idc import FixedStream, MultiplicativeWeightsIDC, iterative_construction, online_idc_sv
    from dpbook.mwem import mwem
    from dpbook.queries import k_way_marginals
    from dpbook.release import composition_rule
    x, W = np.arange(16), k_way_marginals(4, 1)
    for run in (lambda comp: online_idc_sv(x, MultiplicativeWeightsIDC(16, 0.2), FixedStream(W), epsilon=0.9,
                                           delta=1e-6, rng=0, composition=comp),
                lambda comp: iterative_construction(x, W, rule=MultiplicativeWeightsIDC(16, 0.2), epsilon=0.9,
                                                    delta=1e-6, rng=0, composition=comp)):
        cor, tight = run("corollary"), run("tight")
        assert cor.ledger.rule == "advanced-corollary" and tight.ledger.rule == "advanced"
        step_cor, step_tight = cor.ledger[0].epsilon, tight.ledger[0].epsilon
        assert 1.8 < step_tight / step_cor < 2.0
        theorem = Ledger(cor.ledger, rule="advanced", delta_prime=1e-6)          # the same steps, DR-Thm3.20
        assert compose(theorem)[0] < 0.55 * 0.9
        assert compose(tight.ledger)[0] == pytest.approx(0.9, rel=1e-9) and compose(tight.ledger)[0] <= 0.9
        bigger = Ledger([Spend(s.step, s.epsilon * 1.001) for s in tight.ledger], rule="advanced", delta_prime=1e-6)
        assert compose(bigger)[0] > 0.9                                           # no room left: the control
    assert composition_rule(0.0, "tight") == "basic"
    with pytest.raises(ValueError, match="composition"):
        online_idc_sv(x, MultiplicativeWeightsIDC(16, 0.2), FixedStream(W), epsilon=0.9, delta=1e-6, rng=0,
                      composition="loose")
    with pytest.raises(TypeError, match="composition"):
        composition_rule(1e-6, 3)
