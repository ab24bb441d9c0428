"""Chapter 17's two API-misuse lessons: each broken twin is caught by its audit, each fix passes it.

1. A workload that repeats a query: the sensitivity must count every query passed, not the distinct ones.
2. A lattice sampler in the wrong units: integer noise on normalised answers is almost always 0.
Audits: Clopper–Pearson at α = 1e-6, fixed seeds.
"""
import numpy as np
import pytest

from dpbook.audit import audit_cases, run_audits
from dpbook.broken.laplace import (deduplicated_l1_sensitivity, laplace_deduplicated_sensitivity,
                                   normalised_discrete_laplace)
from dpbook.laplace import laplace_mechanism
from dpbook.noise import discrete_laplace
from dpbook.queries import MatrixWorkload, k_way_marginals
from dpbook.sparse_vector import above_threshold, sparse_vector

LESSONS = {"duplicate_sets_deduplicated_sensitivity": "control", "duplicate_sets_exact_sensitivity": "mechanism",
           "normalised_discrete_laplace": "control", "discrete_laplace_on_counts": "mechanism"}


@pytest.fixture(scope="module")
def results():
    return {c.name: (c, r) for c, r in run_audits(audit_cases(names=list(LESSONS)), rng=2026)}


def test_the_lessons_are_registered_with_their_kind():
    assert {c.kind for c in audit_cases(names=list(LESSONS))} == {"control", "mechanism"}
    for key, kind in LESSONS.items():
        (case,) = audit_cases(names=[key])
        assert case.kind == kind, key


def test_broken_twins_are_caught_and_fixes_pass(results):
    for case, res in results.values():
        if case.kind == "control":
            assert res.epsilon_lb > case.epsilon, (case.name, res.epsilon_lb)
        else:
            assert res.epsilon_lb <= case.epsilon, (case.name, res.epsilon_lb)


def test_lesson_one_leaks_about_twice_the_claim(results):
    broken = next(r for c, r in results.values() if "distinct" in c.name)
    fixed = next(r for c, r in results.values() if "exact Δ = 2" in c.name)
    assert 1.8 < broken.epsilon_lb <= 2.0 + 1e-9            # true loss 2ε (ε = 1): the audit is within 10 %
    assert 0.85 < fixed.epsilon_lb <= 1.0                    # the pair is tight for the fix too


def test_lesson_two_releases_exact_answers():
    x = np.array([99, 0])
    out = normalised_discrete_laplace(x, np.array([[0.0, 1.0]]), epsilon=1.0, n=100, trials=10_000, rng=0)
    assert np.all(out.answers == 0.0)                        # the noise is 0 in every one of 10^4 runs
    ok = laplace_mechanism(x, np.array([[0.0, 1.0]]), epsilon=1.0, n=100, trials=10_000, rng=0,
                           sampler=discrete_laplace)
    assert np.mean(ok.answers != 0.0) > 0.5                  # integer noise on the counts: visible after / n
    assert np.allclose(ok.answers * 100, np.round(ok.answers * 100))


def test_the_deduplicated_sensitivity_is_the_bug():
    W = k_way_marginals(1, 1, attribute_sets=[(0,), (0,)])
    assert deduplicated_l1_sensitivity(W) == 1.0
    assert np.abs(W.matrix()).sum(axis=0).max() == 2.0       # the exact Δ1: one row moves both copies
    Q = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert deduplicated_l1_sensitivity(MatrixWorkload(Q)) == 1.0


def test_the_api_refuses_lattice_noise_on_normalised_answers():
    x, Q = np.array([3, 1]), np.array([[0.0, 1.0]])
    for fn, kw in ((above_threshold, {}), (sparse_vector, {"c": 1})):
        with pytest.raises(ValueError, match="sampler"):
            fn(x, Q, threshold=0.5, epsilon=1.0, n=4, sampler=discrete_laplace, **kw)


def test_broken_twins_reject_bad_input():
    x, Q = np.array([3, 1]), np.array([[0.0, 1.0]])
    with pytest.raises(ValueError, match="epsilon"):
        laplace_deduplicated_sensitivity(x, Q, epsilon=0.0, n=4)
    with pytest.raises(ValueError, match="n"):
        normalised_discrete_laplace(x, Q, epsilon=1.0)        # add/remove needs the public n


_DUP = k_way_marginals(1, 1, attribute_sets=[(0,), (0,)])


def test_the_default_call_on_a_repeated_marginal_is_private():
    from dpbook.audit import AuditCase
    copies = [i for i, (S, v) in enumerate(_DUP.cells) if v == (1,)]
    s = lambda x: (lambda t, rng: laplace_mechanism(x, _DUP, epsilon=1.0, n=1, trials=t, rng=rng).answers[:, copies])
    case = AuditCase("default Δ", "dpbook.laplace.laplace_mechanism", 1.0, 0.0, s(np.array([1, 0])),
                     s(np.array([1, 1])), {"both <= 0": lambda y: np.all(y <= 0, axis=1)}, 400_000)
    ((_, res),) = run_audits([case], rng=3)
    assert res.epsilon_lb <= 1.0
