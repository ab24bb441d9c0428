"""The release protocol (dpbook.release.PrivateResult) and the mechanisms' prologue (dpbook.validation).

Every mechanism's result satisfying the protocol, with a ledger that composes to its claim, is checked in
tests/test_ledger.py (test_every_result_satisfies_the_release_protocol); here: the pieces, by hand.
"""
import math

import numpy as np
import pytest

from dpbook.exponential import exponential_mechanism, report_noisy_max
from dpbook.release import (Ledger, PrivateResult, Release, ReleasedArray, ReleasedIndex, Spend, as_ledger, compose,
                            with_claim)
from dpbook.contract import mechanism_prologue


def test_a_release_is_a_private_result_with_a_ledger():
    rel = Release(np.zeros(3), "x", ledger=(Spend("a", 1.0),))
    assert isinstance(rel, PrivateResult) and isinstance(rel.ledger, Ledger) and rel.released is rel.answers
    assert not isinstance(np.zeros(3), PrivateResult) and not isinstance(3, PrivateResult)
    with pytest.raises(ValueError, match="neighbours"):
        Release(np.zeros(3), "x", ledger=(Spend("a", 1.0),), neighbours="edge")


def test_as_ledger():
    steps = (Spend("a", 0.5), Spend("b", 0.25, 1e-6))
    assert compose(as_ledger(steps)) == compose(steps) and as_ledger(steps).rule == "basic"
    adv = Ledger(steps, rule="advanced", delta_prime=1e-6)
    assert as_ledger(adv) is adv and as_ledger(Spend("a", 0.5)) == (Spend("a", 0.5),)
    with pytest.raises(TypeError, match="ledger"):
        as_ledger(3)
    with pytest.raises(TypeError, match="entries"):
        as_ledger([3])


def test_a_pick_is_an_int_that_carries_its_claim():
    pick = exponential_mechanism([1.0, 5.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=3)
    assert isinstance(pick, int) and isinstance(pick, ReleasedIndex) and isinstance(pick, PrivateResult)
    assert repr(pick) == repr(int(pick)) and f"{pick}" == str(int(pick)) and type(pick + 1) is int
    assert (pick.epsilon, pick.delta, pick.neighbours) == (1.0, 0.0, "add/remove") and compose(pick.ledger) == (1.0, 0.0)
    assert np.arange(3)[pick] == int(pick) and pick.released == int(pick)
    picks = report_noisy_max([1.0, 5.0, 2.0], epsilon=0.5, sensitivity=1.0, trials=20, rng=3, neighbours="replace-one")
    assert isinstance(picks, ReleasedArray) and picks.neighbours == "replace-one" and picks.shape == (20,)
    assert type(picks == 1) is np.ndarray and type(picks.sum()) is not ReleasedArray     # computed: plain
    assert picks[:5].epsilon == 0.5 and type(np.asarray(picks)) is np.ndarray             # a slice: still released
    assert repr(picks) == repr(picks.released)


def test_the_same_seed_gives_the_same_pick_as_before_the_protocol():
    """The claim is attached to the pick; the pick itself is the one a bare argmax of the Gumbel draws gives."""
    u = np.array([0.0, 1.0, 3.0, 2.0])
    gumbel = np.random.default_rng(11).gumbel(size=(50, 4))
    expected = np.argmax(1.0 * (u - u.max()) / 2.0 + gumbel, axis=-1)
    assert np.array_equal(exponential_mechanism(u, epsilon=1.0, sensitivity=1.0, trials=50, rng=11), expected)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(ledger=Ledger([Spend("a", 2.0 ** 52)] * 4)), ValueError, "epsilon"),
    (dict(ledger=Ledger([Spend("a", 1.0, 0.6)] * 2)), ValueError, "delta"), (dict(neighbours="edge"), ValueError, "neighbours"),
    (dict(mechanism=3), TypeError, "mechanism"), (dict(ledger=3), TypeError, "ledger"),
    (dict(trace=[1]), TypeError, "trace"),
])
def test_with_claim_rejects_bad_input(kwargs, exc, match):
    args = {**dict(value=2, mechanism="m", ledger=(Spend("m", 1.0),)), **kwargs}
    with pytest.raises(exc, match=match):
        with_claim(**args)


def test_the_corollary_rule_by_hand():
    """DR-Cor3.21: k steps of ε/(2 sqrt(2k ln(1/δ'))) compose to exactly ε (for ε < 1; above, DR-Thm3.20's value)."""
    k, dp = 50, 1e-6
    for eps in (0.1, 0.9):
        step = eps / (2 * math.sqrt(2 * k * math.log(1 / dp)))
        ledger = Ledger([Spend("s", step)] * k, rule="advanced-corollary", delta_prime=dp)
        assert compose(ledger) == pytest.approx((eps, dp), rel=1e-12)
        theorem = compose(Ledger([Spend("s", step)] * k, rule="advanced", delta_prime=dp))[0]
        assert theorem < eps                                    # the theorem is tighter than its corollary
    big = Ledger([Spend("s", 3.0)] * 2, rule="advanced-corollary", delta_prime=0.5)     # corollary not applicable
    assert compose(big) == compose(Ledger(big, rule="advanced", delta_prime=0.5))
    with pytest.raises(ValueError, match="delta_prime"):
        Ledger([Spend("s", 0.1)], rule="advanced-corollary")


def test_mechanism_prologue_by_hand():
    x = np.array([3, 1, 0, 2])
    p = mechanism_prologue(epsilon=0.5, rng=1, trials=7, per_release=(4,), x=x, n_rule="public", n=None,
                           neighbours="replace-one")
    assert (p.epsilon, p.delta, p.n, p.neighbours, p.trials, p.shape, p.noise) == (0.5, 0.0, 6, "replace-one", 7,
                                                                                   (7, 4), None)
    assert isinstance(p.rng, np.random.Generator)
    with pytest.raises(ValueError, match="n "):
        mechanism_prologue(epsilon=0.5, x=x, n_rule="public")                  # add/remove: n is required
    assert mechanism_prologue(epsilon=0.5, x=x, n_rule="public", n=10).n == 10
    assert mechanism_prologue(epsilon=0.5, delta=1e-6, positive_delta=True).delta == 1e-6
    with pytest.raises(ValueError, match="delta"):
        mechanism_prologue(epsilon=0.5, delta=0.0, positive_delta=True)
    with pytest.raises(ValueError, match="n_rule"):
        mechanism_prologue(epsilon=0.5, n_rule="private")
    with pytest.raises(ValueError, match="sampler"):
        from dpbook.noise import gaussian_noise
        mechanism_prologue(epsilon=0.5, sampler=gaussian_noise, family="laplace")
    with pytest.raises(ValueError, match="epsilon"):
        mechanism_prologue(epsilon=2.0, epsilon_high=1.0)


# ------------------------------------------------------------- public helpers that moved or were made public

def test_record_catalogue_and_sparse_database_are_the_chapter_fixtures():
    from dpbook.data import record_catalogue, record_pool, sparse_database, synthetic_records
    assert np.array_equal(record_catalogue(), record_pool(256, 32, rng=7))
    D = sparse_database(300)
    E = synthetic_records(300, record_pool(256, 32, rng=7), bits=32, rng=2026)
    assert D.n == 300 and np.array_equal(D.counts, E.counts) and sparse_database(300) is D          # cached
    with pytest.raises(ValueError, match="bits"):
        record_catalogue(bits=0)
    with pytest.raises(TypeError, match="size"):
        record_catalogue(size=2.5)
    with pytest.raises(ValueError, match="seed"):
        sparse_database(10, seed=-1)


def test_summary_inputs_and_sparse_project_parameters_reject_bad_input():
    from dpbook.data import sparse_database
    from dpbook.smooth import summary_inputs
    from dpbook.sparse_project import sparse_project_parameters
    X = np.linspace(-1, 1, 50)[:, None]
    assert summary_inputs(X, K=2, degree_bound=5)[1:] == (5, 2)
    with pytest.raises(ValueError, match="K"):
        summary_inputs(X, K=0)
    with pytest.raises(ValueError, match="trials"):
        summary_inputs(X, K=2, degree_bound=5, trials=10 ** 9)
    D = sparse_database(100)
    par = sparse_project_parameters(D, beta=0.1, s=5, m=20, n=100, ell=64, r=4)
    assert (par.ell, par.r, par.trace["ell"]) == (64, 4, 64)
    with pytest.raises(ValueError, match="beta"):
        sparse_project_parameters(D, beta=1.0, s=5, m=20, n=100, ell=64)
    with pytest.raises(TypeError, match="D"):
        sparse_project_parameters(np.ones(4), beta=0.1, s=5, m=20, n=100, ell=64)


def test_theorem_epsilon_is_the_theorem_on_the_ledgers_steps():
    """DR-Thm3.20 on a DR-Cor3.21 split gives less than its claim (the corollary's slack); a basic ledger is its sum;
    a tight split is its budget."""
    from dpbook.release import theorem_epsilon
    from dpbook.theory.composition import advanced_composition
    steps = [Spend("s", 0.01)] * 50
    corollary = Ledger(steps, rule="advanced-corollary", delta_prime=1e-6)
    assert theorem_epsilon(corollary) == pytest.approx(advanced_composition(0.01, 50, 1e-6)[0])
    assert theorem_epsilon(corollary) < compose(corollary)[0]
    assert theorem_epsilon(tuple(steps)) == pytest.approx(0.5)
    with pytest.raises(TypeError, match="ledger"):
        theorem_epsilon(3)
