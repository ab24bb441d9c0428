"""Empirical privacy audits of every mechanism of the book, and the controls they must catch (chapter 17).

Every case of ``dpbook.audit.audit_cases()`` is one test: a tight neighbouring pair, events, ``trials``
samples per side, Clopper–Pearson at alpha = 1e-6 (so ~100 audits have false-alarm probability <= 1e-4).

* mechanisms: ``epsilon_lb <= epsilon`` (and, where the pair's true loss is known, close to it: the audit
  is tight, so a mechanism with a real bug of a factor 2 would fail);
* controls (``dpbook.broken``) and findings: ``epsilon_lb > epsilon``.

The coverage tests fail when a public mechanism has no audit or a broken variant no control.  The engine itself
(``audit``, ``epsilon_lower_bound``) has hand values, a false-alarm check and bad-input tests at the end.
"""
import ast
import math
import pathlib
import zlib

import numpy as np
import pytest

from dpbook.audit import (AuditCase, AuditResult, audit, audit_case_names, audit_cases, audit_table, broken_mechanisms,
                          epsilon_lower_bound, public_mechanisms)

CASES = audit_cases()
TESTS = pathlib.Path(__file__).resolve().parent


def _seed(case: AuditCase) -> int:
    return zlib.crc32(case.name.encode())


def _ids(cases):
    return [c.name for c in cases]


MECHANISMS = [c for c in CASES if c.kind == "mechanism"]
CAUGHT = [c for c in CASES if c.kind != "mechanism"]


@pytest.mark.parametrize("case", MECHANISMS, ids=_ids(MECHANISMS))
def test_mechanism_passes_its_audit(case):
    res = case.run(_seed(case))
    assert res.epsilon_lb <= case.epsilon, f"{case.name}: ε_lb {res.epsilon_lb:.4g} > ε {case.epsilon} ({res})"
    if case.true_epsilon is not None and np.isfinite(case.true_epsilon):
        # tight: the best event shows most of the pair's true privacy loss
        assert res.epsilon_lb >= 0.7 * case.true_epsilon, f"{case.name}: audit not tight ({res})"


@pytest.mark.parametrize("case", CAUGHT, ids=_ids(CAUGHT))
def test_control_is_caught(case):
    res = case.run(_seed(case))
    assert res.epsilon_lb > case.epsilon, f"{case.name}: not caught ({res})"


# --- coverage ------------------------------------------------------------------------------------------------

def _audited_in_other_tests() -> set[str]:
    """Short names of functions that some test function both mentions and passes to an audit.

    A test counts as an audit of ``fn`` when its body calls ``audit`` or ``epsilon_lower_bound`` and
    mentions the name ``fn`` (the chapter test files write their own audits too).
    """
    names = set()
    for path in TESTS.glob("test_*.py"):
        tree = ast.parse(path.read_text())
        funcs = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
        for f in funcs.values():
            if not f.name.startswith("test"):
                continue
            mentioned = set()
            nodes = list(ast.walk(f))
            expanded = {f.name}
            for node in nodes:                       # helpers defined in the same file, each expanded once
                if isinstance(node, ast.Name) and node.id in funcs and node.id not in expanded:
                    expanded.add(node.id)
                    nodes += list(ast.walk(funcs[node.id]))
            for node in nodes:
                if isinstance(node, ast.Name):
                    mentioned.add(node.id)
                elif isinstance(node, ast.Attribute):
                    mentioned.add(node.attr)
            if mentioned & {"audit", "epsilon_lower_bound"}:
                names |= mentioned
    return names


# Functions with ``epsilon`` and ``rng`` parameters that are not mechanisms releasing data, with the reason.
NOT_MECHANISMS = {
    "dpbook.privacy_loss.replay_alg1": "an analysis tool: replays dpbook.idc.online_idc (audited here) and "
                                       "computes its exact privacy loss (chapter 12's PA(i) check)",
}
# Broken variants that are private (accuracy controls): an audit must NOT catch them; their own tests show
# the accuracy check failing.
ACCURACY_CONTROLS = {
    "dpbook.broken.mwem.mwem_wrong_sign": "the update's sign is flipped: private, inaccurate (tests/test_mwem.py)",
}


def test_every_public_mechanism_is_audited():
    """A public mechanism (``epsilon`` and ``rng`` parameters) needs a passing audit: a case of the catalogue,
    or a test elsewhere that runs ``audit``/``epsilon_lower_bound`` on it."""
    audited = {c.target for c in CASES if c.kind == "mechanism"}
    other = _audited_in_other_tests()
    missing = [q for q in public_mechanisms()
               if q not in audited and q not in NOT_MECHANISMS and q.rsplit(".", 1)[1] not in other]
    assert not missing, f"mechanisms that no audit covers: {missing}"
    assert set(NOT_MECHANISMS) <= set(public_mechanisms()), "stale exemption"


def test_every_broken_variant_is_a_control():
    """Each deliberately broken mechanism in dpbook.broken is caught by some audit."""
    caught = {c.target for c in CASES if c.kind == "control"}
    other = _audited_in_other_tests()
    missing = [q for q in broken_mechanisms()
               if q not in caught and q not in ACCURACY_CONTROLS and q.rsplit(".", 1)[1] not in other]
    assert not missing, f"broken variants that no audit catches: {missing}"
    assert set(ACCURACY_CONTROLS) <= set(broken_mechanisms()), "stale exemption"


def test_catalogue_is_well_formed():
    assert len(CASES) == len(audit_case_names())                   # every chapter module has landed
    assert len({c.name for c in CASES}) == len(CASES)
    for c in CASES:
        assert c.kind in ("mechanism", "control", "finding") and c.trials >= 1000 and 0 <= c.delta < 1
        assert c.events and c.pair
    table = audit_table([(CASES[0], CASES[0].run(0, trials=1000))])
    assert CASES[0].name in table and "verdict" in table


def test_coverage_check_can_fail():
    """The coverage test is not vacuous: dropping a case makes a mechanism unaudited."""
    audited = {c.target for c in CASES if c.kind == "mechanism" and c.target != "dpbook.laplace.laplace_mechanism"}
    assert "dpbook.laplace.laplace_mechanism" in set(public_mechanisms()) - audited


# --- budget ledgers of the composite mechanisms ---------------------------------------------------------------

def _ledger_sum(release):
    from dpbook.release import compose
    return compose(release.ledger)


def _composite_releases():
    """One release of every composite mechanism with δ = 0 (basic composition: the parts must sum to ε)."""
    from dpbook.gaussian import composed_laplace_mechanism
    from dpbook.idc import FixedStream, MultiplicativeWeightsIDC, iterative_construction, online_idc_sv
    from dpbook.mwem import mwem, mwem_practical
    from dpbook.queries import conjunctions, k_way_marginals
    from dpbook.sparse_vector import numeric_sparse_stream, sparse_vector_stream
    W = conjunctions(4, 2)
    x = np.random.default_rng(0).integers(0, 20, size=16)
    rule = MultiplicativeWeightsIDC(16, 0.3)
    f = np.linspace(-3, 3, 12)
    return {
        "mwem T=5": mwem(x, W, epsilon=0.7, T=5, rng=1),
        "mwem_practical T=5, uneven rounds": mwem_practical(x, k_way_marginals(4, 2), n=int(x.sum()), epsilon=0.7, T=5, select_share=0.3,
                                                            round_weights=[1, 2, 3, 4, 5], rng=1),
        "composed laplace m=24": composed_laplace_mechanism(x, W, n=int(x.sum()), epsilon=0.7, rng=1),
        "sparse c=3": sparse_vector_stream(f, threshold=0.0, c=3, epsilon=0.7, rng=1),
        "numeric sparse c=3": numeric_sparse_stream(f, threshold=0.0, c=3, epsilon=0.7, rng=1),
        "online IDC-Alg1-SV c=4": online_idc_sv(x, rule, FixedStream(W), epsilon=0.7, delta=0.0, c=4, rng=1),
        "offline IC rounds=6": iterative_construction(x, W, rule=rule, epsilon=0.7, delta=0.0, rounds=6, rng=1),
    }


@pytest.mark.parametrize("name", list(_composite_releases()))
def test_ledger_sums_to_the_claim(name):
    """Every primitive call is recorded, and under basic composition the parts add up to exactly ε."""
    release = _composite_releases()[name]
    eps, delta = _ledger_sum(release)
    assert sum(len(e) if isinstance(e, tuple) else 1 for e in release.ledger) >= 2
    assert eps == pytest.approx(release.epsilon, rel=1e-12) and delta == 0.0 == release.delta


def test_ledger_with_delta_composes_to_the_claim():
    """With δ > 0 the per-step ε0 compose by advanced composition (DR-Thm3.20) to at most the claim."""
    from dpbook.idc import FixedStream, MultiplicativeWeightsIDC, online_idc_sv
    from dpbook.queries import conjunctions
    from dpbook.sparse_vector import sparse_vector_stream
    from dpbook.theory.composition import advanced_composition
    W = conjunctions(4, 2)
    x = np.random.default_rng(0).integers(0, 20, size=16)
    for release, delta_prime in [
        (sparse_vector_stream(np.zeros(5), threshold=0.0, c=4, epsilon=0.8, delta=1e-4, rng=1), 1e-4),
        (online_idc_sv(x, MultiplicativeWeightsIDC(16, 0.3), FixedStream(W), epsilon=0.8, delta=1e-4, c=4, rng=1), 1e-4),
    ]:
        steps = [s.epsilon for s in release.ledger]
        assert len(set(steps)) == 1
        composed, _ = advanced_composition(steps[0], len(steps), delta_prime)
        assert composed <= release.epsilon * (1 + 1e-12)


def test_hand_value():
    """With huge counts the bound approaches ln(p/p') from below."""
    eps = epsilon_lower_bound(500_000, 1_000_000, 183_940, 1_000_000)
    assert 0.98 < eps < 1.0
    assert epsilon_lower_bound(10, 100, 10, 100) == 0.0


def test_complement_and_swap():
    a = epsilon_lower_bound(900, 1000, 600, 1000)
    assert epsilon_lower_bound(600, 1000, 900, 1000) == pytest.approx(a)
    assert epsilon_lower_bound(100, 1000, 400, 1000) == pytest.approx(a)      # complement event
    assert 0.5 < a < math.log(0.4 / 0.1)           # point estimate ln 4, shrunk by the 1e-6 intervals


def test_delta_reduces_the_bound():
    assert epsilon_lower_bound(600, 1000, 100, 1000, delta=0.3) < epsilon_lower_bound(600, 1000, 100, 1000)
    assert epsilon_lower_bound(600, 1000, 100, 1000, delta=0.59) == 0.0


def test_false_alarm_rate_is_small_for_identical_mechanisms():
    """Two identical distributions: at alpha=0.01 the bound is > 0 in at most ~1% of repetitions."""
    rng = np.random.default_rng(0)
    k1, k2 = rng.binomial(1000, 0.3, size=(2, 3000))
    alarms = sum(epsilon_lower_bound(int(a), 1000, int(b), 1000, alpha=0.01) > 0 for a, b in zip(k1, k2))
    assert alarms <= 30 + 3 * math.sqrt(30)


def test_audit_runner():
    same = lambda t, r: r.random(t)
    res = audit(same, same, {"u<0.5": lambda u: u < 0.5, "u<0.1": lambda u: u < 0.1}, trials=10_000, rng=1)
    assert isinstance(res, AuditResult) and res.epsilon_lb == 0.0 and res.passes(0.01)
    shifted = lambda t, r: r.random(t) * 0.5
    res = audit(same, shifted, {"u<0.5": lambda u: u < 0.5}, trials=10_000, rng=1)
    assert res.epsilon_lb > 0.5 and not res.passes(0.5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="hits"):
        epsilon_lower_bound(11, 10, 1, 10)
    with pytest.raises(ValueError, match="trials_prime"):
        epsilon_lower_bound(1, 10, 1, 0)
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound(1, 10, 1, 10, delta=1.0)
    with pytest.raises(ValueError, match="alpha"):
        epsilon_lower_bound(1, 10, 1, 10, alpha=0.0)
    f = lambda t, r: r.random(t)
    with pytest.raises(ValueError, match="events"):
        audit(f, f, {}, trials=10)
    with pytest.raises(ValueError, match="boolean"):
        audit(f, f, {"bad": lambda u: u}, trials=10)
    with pytest.raises(ValueError, match="trials"):
        audit(f, f, {"e": lambda u: u < 1}, trials=0)
