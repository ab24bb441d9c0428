"""The ledger is the claim: every public mechanism, found by introspection, returns a release whose (ε, δ) is
``compose(ledger)`` and, for a correct mechanism, exactly the budget it was given; an independent accountant agrees.

``dpbook.release.compose`` applies the ledger's own rule (basic: DR-Thm3.16; advanced: DR-Thm3.20 with the
ledger's δ′).  Every mechanism of ``dpbook`` and ``dpbook.broken`` (``epsilon`` and ``rng`` in its signature) is
called with every valid call the sweeps know: the conventional one (tests/test_api_coverage.py) and those declared
next to the mechanism with :func:`dpbook.contract.example`.  One the sweeps cannot call fails here, by name, until
a call is declared.  Google's ``dp-accounting`` (a test-only dependency) is the oracle for every (ε, δ) claim: its
privacy-loss-distribution accountant composes the same steps (each (ε_i, δ_i)-DP step as the worst-case mechanism
with those parameters, discretised pessimistically) and its δ(ε) at the claimed ε must not exceed the claimed δ.
"""
import math
from collections import Counter

import numpy as np
import pytest

from dpbook.contract import EXAMPLES
from dpbook.release import NEIGHBOURS, Ledger, PrivateResult, Spend, compose, zcdp_epsilon, zcdp_of, zcdp_rho
from test_api_coverage import CALLS, FUNCTIONS, MECHANISMS
from test_api_coverage import MECHANISM_CASES as CASES

pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
from dp_accounting.pld import common  # noqa: E402
from dp_accounting import dp_event  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant as rdp  # noqa: E402

#: the RDP orders of the zCDP oracle: fine enough that its ε is within 1e-5 (relative) of the best order's
ORDERS = list(1.0 + np.geomspace(1e-3, 1e4, 4001))

def _steps(ledger):
    """The primitive (ε, δ) steps of a (nested) ledger."""
    if isinstance(ledger, Spend):
        return [(ledger.epsilon, ledger.delta)]
    return [step for entry in ledger for step in _steps(entry)]


def oracle_zcdp_epsilon(ledger) -> float:
    """ε at the ledger's δ′ of its steps' ρ composed by dp-accounting's RDP accountant (each step a ZCDpEvent: ρ-zCDP
    is (α, αρ)-RDP at every order; a pure ε step without ρ, ε²/2) — the oracle of a ``"zcdp"`` ledger."""
    acc = rdp.RdpAccountant(orders=ORDERS)
    for step in _spends(ledger):
        acc.compose(dp_event.ZCDpEvent(step.rho if step.rho is not None else step.epsilon ** 2 / 2))
    return float(acc.get_epsilon(ledger.delta_prime))


def _spends(ledger):
    return [ledger] if isinstance(ledger, Spend) else [s for entry in ledger for s in _spends(entry)]


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


def _run(qualname, i):
    calls = CALLS[qualname]
    name = qualname.rsplit(".", 1)[1]
    assert calls, (f"{qualname}: the sweeps cannot call it with conventional values; declare a valid call next to it, "
                   f"in its module: example({name}, lambda: dict(...)) (dpbook.contract.example)")
    kwargs = calls[i]()
    return kwargs, FUNCTIONS[qualname](**kwargs)


@pytest.mark.parametrize("qualname, i", CASES)
def test_every_result_satisfies_the_release_protocol(qualname, i):
    """``dpbook.release.PrivateResult``: the claim (ε, δ, neighbours), the mechanism's name, a Ledger, a trace
    (mapping or None), and a non-empty ``released``; the claim is what the ledger composes to."""
    from collections.abc import Mapping
    _, rel = _run(qualname, i)
    assert isinstance(rel, PrivateResult), f"{qualname} returns {type(rel).__name__}, not a PrivateResult"
    assert rel.neighbours in NEIGHBOURS, (qualname, rel.neighbours)
    assert isinstance(rel.mechanism, str) and rel.mechanism
    assert isinstance(rel.ledger, Ledger) and len(rel.ledger) > 0, f"{qualname} records no private step"
    assert rel.trace is None or isinstance(rel.trace, Mapping), (qualname, type(rel.trace))
    assert compose(rel.ledger) == (rel.epsilon, rel.delta)
    assert _size(rel.released) > 0, f"{qualname} released nothing"


@pytest.mark.parametrize("qualname, i", CASES)
def test_a_mechanism_claims_the_budget_it_was_given(qualname, i):
    """A correct mechanism's ledger spends exactly the (ε, δ) it was called with (a split's rounding aside: the
    ledger's budget), never more; the PLD accountant agrees with every (ε, δ) claim.  A broken twin's ledger states
    its false claim (its audit catches it), or the true cost of its bug, at least what it was given."""
    kwargs, rel = _run(qualname, i)
    asked = (kwargs["epsilon"], kwargs.get("delta") or 0.0)
    if qualname.startswith("dpbook.broken."):
        assert rel.epsilon >= asked[0] * (1 - 1e-12), (qualname, rel.epsilon, asked)
    else:
        assert (rel.epsilon, rel.delta) == pytest.approx(asked, rel=1e-12, abs=1e-300), (qualname, rel, asked)
        assert rel.epsilon <= asked[0] and rel.delta <= asked[1], (qualname, rel.epsilon, rel.delta, asked)
    if rel.delta > 0 and not qualname.startswith("dpbook.broken.") and rel.ledger.rule == "zcdp":
        assert rel.epsilon >= oracle_zcdp_epsilon(rel.ledger) * (1 - 1e-5)
    elif rel.delta > 0 and not qualname.startswith("dpbook.broken."):
        assert oracle_delta(rel.ledger, rel.epsilon) <= rel.delta * (1 + 1e-9)


def test_the_sweep_reaches_every_kind_of_call():
    """Guard against a silently thin parametrisation: every mechanism has a call, the declared variants (δ > 0,
    the tight split) are in, and the sweep holds the correct mechanisms and their twins."""
    assert all(CALLS[q] for q in MECHANISMS), [q for q in MECHANISMS if not CALLS[q]]
    assert len(MECHANISMS) > 60 and sum(q.startswith("dpbook.broken.") for q in MECHANISMS) > 30
    assert len(CASES) > len(MECHANISMS)
    assert sum(len(v) for v in EXAMPLES.values()) >= 20
    # a declared call is of a public function some sweep runs (mechanisms: this one; the rest: bad input, seeding)
    assert set(EXAMPLES) <= set(FUNCTIONS.values()), "a declared call of a function no sweep reaches"


def test_a_mechanism_without_a_valid_call_fails_by_name(monkeypatch):
    """The sweep cannot pass over a mechanism it cannot call: it fails, naming it and saying where to declare one."""
    monkeypatch.setitem(CALLS, "dpbook.graphs.graph_randomized_response", [])
    with pytest.raises(AssertionError, match=r"dpbook\.graphs\.graph_randomized_response.*example\(graph_randomized_resp"):
        _run("dpbook.graphs.graph_randomized_response", 0)


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


def _size(released) -> int:
    if isinstance(released, (tuple, list)):
        return sum(_size(r) for r in released)
    return int(np.size(released))


def test_tight_composition_spends_the_whole_budget_and_the_corollary_half():
    """``composition="tight"`` (DR-Thm3.20 solved for the step) against DR-Cor3.21's closed-form split: the tight
    ledger's steps are ~1.94x larger and compose by the theorem itself to the claim; the corollary's steps compose
    by the theorem to about half of it (the slack chapter 12 shows).  Catches a tight split that overshoots."""
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


# --- the zCDP rule (Bun & Steinke 2016; converted by Canonne, Kamath, Steinke 2020) ------------------------------

@pytest.mark.parametrize("rhos, delta", [([0.01] * 3, 1e-6), ([0.3, 0.05, 1e-4], 1e-3), ([2.0, 7.0], 1e-9),
                                         ([0.0244], 1e-6), ([1e-5] * 50, 0.05)])
def test_zcdp_ledger_against_dp_accounting(rhos, delta):
    """A zCDP ledger's ε is dp-accounting's RDP composition of the same ρ at δ′ (to its grid of orders: 1e-5) and
    never above Bun–Steinke's ``ρ + 2 sqrt(ρ ln(1/δ))``; the ρ add up."""
    ledger = Ledger([Spend(f"gaussian {i}", rho=r) for i, r in enumerate(rhos)], rule="zcdp", delta_prime=delta)
    eps, dlt = compose(ledger)
    oracle = oracle_zcdp_epsilon(ledger)
    assert dlt == delta and eps <= oracle and eps == pytest.approx(oracle, rel=1e-5, abs=1e-9)
    rho = math.fsum(rhos)
    assert zcdp_of(ledger) == rho and eps <= rho + 2 * math.sqrt(rho * math.log(1 / delta))


def test_zcdp_ledger_mixes_pure_steps_and_gaussians_by_hand():
    """A pure ε step (no ρ) counts ε²/2 (BS16 Prop. 1.4); one with both (an exponential mechanism) its ρ (ε²/8,
    Cesar–Rogers 2021); a nested zCDP ledger its sum; zcdp_rho inverts zcdp_epsilon (the largest ρ within ε)."""
    steps = [Spend("laplace", 0.2), Spend("exponential mechanism", 0.4, rho=0.02), Spend("gaussian", rho=0.05)]
    nested = Ledger([Ledger(steps[1:], rule="zcdp", delta_prime=1e-3), steps[0]], rule="zcdp", delta_prime=1e-6)
    assert zcdp_of(nested) == pytest.approx(0.02 + 0.02 + 0.05)
    assert compose(nested) == (zcdp_epsilon(zcdp_of(nested), 1e-6), 1e-6)
    assert compose(Ledger(steps[:2]))[0] == pytest.approx(0.6)            # a basic ledger reads the ε of both
    for eps, delta in ((1.0, 1e-6), (0.05, 1e-9), (30.0, 0.1)):
        rho = zcdp_rho(eps, delta)
        assert zcdp_epsilon(rho, delta) <= eps < zcdp_epsilon(rho * (1 + 1e-9), delta)
    assert zcdp_epsilon(0.0, 1e-6) == 0.0
    # the claim of a mechanism's split: steps of ρ/k from zcdp_rho(ε) compose back to ε (the budget)
    rho = zcdp_rho(0.9, 1e-6)
    split = Ledger([Spend("g", rho=rho / 7)] * 7, rule="zcdp", delta_prime=1e-6, budget=0.9)
    assert compose(split) == (0.9, 1e-6)
    over = Ledger([Spend("g", rho=rho * 1.01 / 7)] * 7, rule="zcdp", delta_prime=1e-6, budget=0.9)
    assert compose(over)[0] > 0.9                                          # the control: more ρ, a larger claim


@pytest.mark.parametrize("build, exc, match", [
    (lambda: Spend("g"), TypeError, "epsilon.*rho"),
    (lambda: Spend("g", rho=-1.0), ValueError, "rho"),
    (lambda: Spend("g", rho=math.inf), ValueError, "rho"),
    (lambda: Spend("g", rho="a"), TypeError, "rho"),
    (lambda: Spend("g", delta=1e-6, rho=0.1), ValueError, "delta"),
    (lambda: Ledger([Spend("g", rho=0.1)]), ValueError, "zcdp"),                       # ρ-only under basic
    (lambda: Ledger([Spend("g", rho=0.1)], rule="advanced", delta_prime=1e-6), ValueError, "zcdp"),
    (lambda: Ledger([Spend("a", 0.1, 1e-6)], rule="zcdp", delta_prime=1e-6), ValueError, "delta"),   # (ε, δ) step
    (lambda: Ledger([Spend("g", rho=0.1)], rule="zcdp"), ValueError, "delta_prime"),
    (lambda: compose(Spend("g", rho=0.1)), ValueError, "zcdp"),
    (lambda: zcdp_epsilon(-0.1, 1e-6), ValueError, "rho"),
    (lambda: zcdp_epsilon(0.1, 0.0), ValueError, "delta"),
    (lambda: zcdp_rho(-1.0, 1e-6), ValueError, "epsilon"),
    (lambda: zcdp_rho(1.0, 1.0), ValueError, "delta"),
    (lambda: zcdp_of(3), TypeError, "ledger"),
])
def test_zcdp_rejects_bad_input(build, exc, match):
    with pytest.raises(exc, match=match):
        build()
