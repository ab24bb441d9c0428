"""Tests of AboveThreshold, Sparse and NumericSparse and of their theory and broken variants.

Statistical checks use fixed seeds and a false-alarm probability of at most 1e-6 each (Clopper–Pearson).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpbook.broken import sparse_vector as broken
from dpbook.audit.cases.sparse_vector import CATCHING_PAIRS, CATCHING_TRIALS, StreamPair, halting_pair, stream_audit_case
from dpbook.audit import audit
from dpbook.release import compose
from dpbook.data import load_cancer
from dpbook.experiments import failure_rate
from dpbook.queries import MatrixWorkload, conjunctions
from dpbook.stats import clopper_pearson
from dpbook.theory import sparse_vector as th
from dpbook.theory.composition import advanced_composition
from dpbook.sparse_vector import (BOTTOM, TOP, UNANSWERED, _scan_queries, _scan_rounds, above_threshold, empirical_alpha,
                                  above_threshold_stream, numeric_sparse, numeric_sparse_stream, sparse_vector,
                                  sparse_vector_stream)

EPS_AUDIT = 2.0          # the audits claim ε = 2 (where the broken variants are easiest to catch, see chapter 06)
STREAMS = [above_threshold_stream, sparse_vector_stream, numeric_sparse_stream]
NEEDS_C = {sparse_vector_stream, numeric_sparse_stream, sparse_vector, numeric_sparse}


def _params(fn, **extra):
    p = dict(threshold=0.0, epsilon=1.0)
    if fn in NEEDS_C:
        p["c"] = 2
    p.update(extra)
    return p


def _exact_two_sided(hits, trials, p, level=1e-6):
    lo, hi = clopper_pearson(hits, trials, level)
    return lo <= p <= hi


# ----------------------------------------------------------------------------------------- theory: hand values

def test_above_threshold_scales_hand_values():
    assert th.above_threshold_scales(1.0) == (2.0, 4.0)
    assert th.above_threshold_scales(0.5, sensitivity=0.01) == pytest.approx((0.04, 0.08))


def test_sparse_sigma_and_per_run_epsilon_hand_values():
    assert th.sparse_sigma(1.0, 5) == 10.0                                          # 2c/ε
    assert th.sparse_sigma(1.0, 5, 1e-6) == pytest.approx(47.01576, rel=1e-6)       # sqrt(32·5·13.8155)
    assert th.sparse_per_run_epsilon(1.0, 5) == 0.2
    assert th.sparse_per_run_epsilon(1.0, 5, 1e-6) == pytest.approx(0.0425389, rel=1e-5)   # 1/sqrt(40·13.8155)
    # the runs' AboveThreshold scale 2/ε' is σ exactly
    assert 2 / th.sparse_per_run_epsilon(1.0, 5, 1e-6) == pytest.approx(th.sparse_sigma(1.0, 5, 1e-6))


def test_numeric_sparse_split_and_sigma_hand_values():
    assert th.numeric_sparse_split(9.0) == pytest.approx((8.0, 2.0))
    e1, e2 = th.numeric_sparse_split(1.0, 1e-6)
    assert e1 == pytest.approx(0.9576763, rel=1e-6) and e2 == pytest.approx(0.0846474, rel=1e-5)  # 22.627/23.627, 2/23.627
    assert th.numeric_sparse_sigma(1.0, 5) == 10.0
    assert th.numeric_sparse_sigma(1.0, 5, 1e-6) == pytest.approx(48.18076, rel=1e-6)   # sqrt(160·ln(2e6))


def test_composed_epsilon_hand_values():
    assert th.sparse_composed_epsilon(1.0, 10) == pytest.approx(1.0)
    assert th.numeric_sparse_composed_epsilon(1.0, 5) == pytest.approx(1.0)          # 8/9 + (2/9)/2
    # δ > 0: basic composition of 10 runs at 1/sqrt(80 ln 1e6) = 0.30080 beats advanced composition here
    assert th.sparse_composed_epsilon(1.0, 10, 1e-6) == pytest.approx(0.3007956, rel=1e-6)
    assert th.numeric_sparse_composed_epsilon(1.0, 5, 1e-6) <= 1.0


def test_accuracy_bounds_hand_values():
    assert th.above_threshold_alpha(100, 0.05, 1.0) == pytest.approx(66.35240, rel=1e-6)    # 8 ln(4000)
    assert th.above_threshold_alpha(100, 0.05, 1.0, n=1797) == pytest.approx(0.03692398, rel=1e-6)
    assert th.sparse_vector_alpha(100, 5, 0.05, 1.0) == pytest.approx(396.1395, rel=1e-6)   # 40 ln(20000)
    assert th.sparse_vector_alpha(100, 5, 0.05, 1.0, 1e-6) == pytest.approx(1862.480, rel=1e-6)
    assert th.numeric_sparse_alpha(100, 5, 0.05, 1.0) == pytest.approx(476.8486, rel=1e-6)  # 45 ln(40000)
    assert th.numeric_sparse_alpha(100, 5, 0.05, 1.0, 1e-6) == pytest.approx(2132.470, rel=1e-6)
    # m = c = 1: printed ln(80)·sqrt(ln 2e6)·23.627 = 394.37 < numeric part σ(ε2) ln 40 = 939.0
    assert th.numeric_sparse_alpha(1, 1, 0.05, 1.0, 1e-6) == pytest.approx(394.3709, rel=1e-6)
    assert th.numeric_sparse_value_alpha(1, 0.05, 1.0, 1e-6) == pytest.approx(939.0081, rel=1e-6)
    assert th.numeric_sparse_alpha_corrected(1, 1, 0.05, 1.0, 1e-6) == pytest.approx(939.0081, rel=1e-6)
    assert th.numeric_sparse_alpha_corrected(100, 5, 0.05, 1.0) == th.numeric_sparse_alpha(100, 5, 0.05, 1.0)


def test_laplace_difference_cdf_hand_values():
    assert th.laplace_difference_cdf(0.0, 4.0, 2.0) == pytest.approx(0.5)
    # (16 e^{-1/4} - 4 e^{-1/2}) / 24
    assert th.laplace_difference_cdf(-1.0, 4.0, 2.0) == pytest.approx(0.4181121, rel=1e-6)
    assert th.laplace_difference_cdf(1.0, 4.0, 2.0) == pytest.approx(1 - 0.4181121, rel=1e-6)
    assert th.laplace_difference_cdf(-2.0, 1.0, 1.0) == pytest.approx(math.exp(-2) * 4 / 4)   # e^{-2}(2+2)/4


def test_laplace_difference_cdf_matches_samples():
    rng = np.random.default_rng(11)
    z = rng.laplace(0, 4, 400_000) - rng.laplace(0, 2, 400_000)
    for t in (-3.0, -1.0, 0.7, 2.5):
        assert _exact_two_sided(int(np.sum(z <= t)), z.size, float(th.laplace_difference_cdf(t, 4.0, 2.0)))


def test_first_j_bottom_probability_hand_values():
    assert th.first_j_bottom_probability(0, 1.0) == pytest.approx(1.0)
    assert th.first_j_bottom_probability(1, 1.0) == pytest.approx(0.5)
    # ∫ p_ρ F_ν(ρ)² = 11/48 (ρ >= 0) + 3/48 (ρ < 0) = 7/24
    assert th.first_j_bottom_probability(2, 1.0) == pytest.approx(7 / 24, rel=1e-9)
    assert th.first_j_bottom_probability(3, 1.0, 0.0, "renoise") == pytest.approx(0.125)
    assert th.first_j_bottom_probability(2, 1.0, 1.0, "renoise") == pytest.approx(0.4181121 ** 2, rel=1e-6)


def test_log_ratio_linear_for_renoise_and_bounded_for_correct():
    per_query = math.log(0.5 / 0.4181121)                                   # 0.178859 at ε = 1
    for j in (1, 5, 20, 100):
        assert th.first_j_bottom_log_ratio(j, 1.0, "renoise") == pytest.approx(j * per_query, rel=1e-6)
    correct = [th.first_j_bottom_log_ratio(j, 1.0) for j in (1, 2, 5, 10, 20, 50, 200)]
    assert all(0 < r <= 1.0 for r in correct)                                # never above ε
    assert np.all(np.diff(correct) > -1e-9) and correct[-1] == pytest.approx(0.5, abs=1e-6)   # tends to ε/2


def test_theory_bad_inputs():
    with pytest.raises(ValueError, match="epsilon"):
        th.above_threshold_alpha(10, 0.1, 0.0)
    with pytest.raises(ValueError, match="beta"):
        th.sparse_vector_alpha(10, 2, 1.5, 1.0)
    with pytest.raises(ValueError, match="c"):
        th.sparse_sigma(1.0, 0)
    with pytest.raises(TypeError, match=r"\bm\b"):
        th.numeric_sparse_alpha(2.5, 1, 0.1, 1.0)
    with pytest.raises(ValueError, match="delta"):
        th.numeric_sparse_split(1.0, 1.0)
    with pytest.raises(ValueError, match="variant"):
        th.first_j_bottom_probability(3, 1.0, variant="other")
    with pytest.raises(ValueError, match="n"):
        th.above_threshold_alpha(10, 0.1, 1.0, n=0)


# ----------------------------------------------------------------------------------------- mechanism: unit tests

def test_above_threshold_halts_at_first_clear_top():
    f = np.array([0.0, 0.0, 100.0, 100.0, 0.0])
    r = above_threshold_stream(f, threshold=50.0, epsilon=100.0, rng=1)
    assert r.answers.tolist() == [BOTTOM, BOTTOM, TOP, UNANSWERED, UNANSWERED]
    assert r.answers.dtype == np.int8 and r.m == 5 and r.num_above == 1 and r.halted
    assert r.threshold_scale == pytest.approx(0.02) and r.query_scale == pytest.approx(0.04)
    assert r.values is None and r.delta == 0.0 and r.c == 1


def test_sparse_vector_finds_c_clear_tops_then_halts():
    f = np.array([0, 100, 0, 100, 0, 100, 100], dtype=float)
    r = sparse_vector_stream(f, threshold=50.0, c=2, epsilon=100.0, trials=4, rng=2)
    expected = [BOTTOM, TOP, BOTTOM, TOP, UNANSWERED, UNANSWERED, UNANSWERED]
    assert r.answers.shape == (4, 7) and all(row.tolist() == expected for row in r.answers)
    assert np.all(r.halted) and r.threshold_scale == pytest.approx(0.04) and r.query_scale == pytest.approx(0.08)
    r3 = sparse_vector_stream(f, threshold=50.0, c=10, epsilon=100.0, rng=2)
    assert r3.answers.tolist() == [BOTTOM, TOP, BOTTOM, TOP, BOTTOM, TOP, TOP] and not r3.halted


def test_numeric_sparse_values_only_at_tops():
    f = np.array([0, 100, 0, 100, 0, 100], dtype=float)
    r = numeric_sparse_stream(f, threshold=50.0, c=2, epsilon=900.0, trials=3, rng=3)
    tops = r.answers == TOP
    assert np.all(np.isnan(r.values[~tops])) and np.allclose(r.values[tops], 100.0, atol=1.0)
    assert r.value_scale == pytest.approx(2 * 2 / 200.0)                  # σ(ε2) = 2c/ε2, ε2 = 2·900/9
    assert r.threshold_scale == pytest.approx(2 * 2 / 800.0)              # σ(ε1), ε1 = 8·900/9


def test_structure_of_random_runs():
    rng = np.random.default_rng(4)
    f = rng.normal(0, 3, 40)
    for c in (1, 3, 7):
        a = sparse_vector_stream(f, threshold=1.0, c=c, epsilon=1.0, trials=500, rng=5).answers
        tops = np.sum(a == TOP, axis=1)
        assert np.all(tops <= c)
        answered = a != UNANSWERED
        # answered queries form a prefix, which ends at the c-th ⊤ when there is one
        assert np.all(np.diff(answered.astype(int), axis=1) <= 0)
        last = answered.sum(axis=1) - 1
        assert np.all(a[tops == c, last[tops == c]] == TOP)
        assert np.all(answered[tops < c])


def test_scan_by_rounds_equals_scan_by_queries():
    rng = np.random.default_rng(6)
    for trials, m, c in [(50, 30, 3), (7, 5, 9), (300, 40, 40), (1000, 12, 1)]:
        noisy = rng.normal(size=m) + rng.laplace(size=(trials, m))
        thresholds = rng.laplace(size=(trials, c))
        assert np.array_equal(_scan_queries(noisy, thresholds), _scan_rounds(noisy, thresholds))


def test_ledgers_add_up_to_the_claim():
    f = np.zeros(5)
    assert sum(s.epsilon for s in above_threshold_stream(f, threshold=0, epsilon=0.7).ledger) == pytest.approx(0.7)
    r = sparse_vector_stream(f, threshold=0, c=4, epsilon=0.7)
    assert len(r.ledger) == 4 and compose(r.ledger) == pytest.approx((0.7, 0.0))
    r = numeric_sparse_stream(f, threshold=0, c=4, epsilon=0.9)
    assert [len(group) for group in r.ledger] == [4, 4] and compose(r.ledger) == pytest.approx((0.9, 0.0))
    # δ > 0: the c equal runs were split by DR-Cor3.21, the ledger says so and composes to exactly the claim;
    # DR-Thm3.20 itself proves less (the corollary is its simplification for ε < 1)
    r = sparse_vector_stream(f, threshold=0, c=50, epsilon=0.9, delta=1e-5)
    eps_run = r.ledger[0].epsilon
    assert all(s.epsilon == eps_run for s in r.ledger) and r.delta == 1e-5
    assert r.ledger.rule == "advanced-corollary" and compose(r.ledger) == pytest.approx((0.9, 1e-5))
    assert advanced_composition(eps_run, 50, 1e-5)[0] <= 0.9
    r = numeric_sparse_stream(f, threshold=0, c=50, epsilon=0.9, delta=1e-5)
    at, vals = r.ledger[0][0].epsilon, r.ledger[1][0].epsilon
    total = advanced_composition(at, 50, 5e-6)[0] + advanced_composition(vals, 50, 5e-6)[0]
    assert compose(r.ledger) == pytest.approx((0.9, 1e-5)) and total <= 0.9


def test_database_version_equals_stream_on_normalised_answers():
    data = load_cancer()
    W = conjunctions(11, 3)
    f, n = W.answers(data.x), data.n
    for db_fn, stream_fn, extra in [(above_threshold, above_threshold_stream, {}),
                                    (sparse_vector, sparse_vector_stream, {"c": 3}),
                                    (numeric_sparse, numeric_sparse_stream, {"c": 3, "delta": 1e-6})]:
        a = db_fn(data.x, W, threshold=0.3, epsilon=1.0, trials=20, rng=7, **extra)
        b = stream_fn(f, threshold=0.3, epsilon=1.0, sensitivity=1 / n, trials=20, rng=7, **extra)
        assert np.array_equal(a.answers, b.answers)
        assert a.query_scale == pytest.approx(b.query_scale) and a.query_scale < 1.0
        if a.values is not None:
            assert np.array_equal(np.isnan(a.values), np.isnan(b.values))


def test_first_answer_probabilities_match_exact_values():
    """P[⊤ at the first query] = 1 - G(τ - f) and P[first 4 ⊥] from the single-threshold integral."""
    trials = 400_000
    for shift in (0.0, 1.0, -2.5):
        r = above_threshold_stream(np.full(4, shift), threshold=0.0, epsilon=1.0, trials=trials, rng=8)
        p_top = 1 - float(th.laplace_difference_cdf(-shift, 4.0, 2.0))
        assert _exact_two_sided(int(np.sum(r.answers[:, 0] == TOP)), trials, p_top)
        p_bottoms = th.first_j_bottom_probability(4, 1.0, shift)
        assert _exact_two_sided(int(np.sum(np.all(r.answers == BOTTOM, axis=1))), trials, p_bottoms)
        renoise = broken.above_threshold_renoise_threshold(np.full(4, shift), threshold=0.0, epsilon=1.0, trials=trials, rng=8)
        p_renoise = th.first_j_bottom_probability(4, 1.0, shift, "renoise")
        assert _exact_two_sided(int(np.sum(np.all(renoise.answers == BOTTOM, axis=1))), trials, p_renoise)


def test_sparse_thresholds_are_redrawn_after_each_top():
    """Two queries at τ, c = 2: (⊥, ⊥) shares one threshold (probability 7/24, not 1/4), while after a ⊤ the
    threshold is redrawn, so (⊤, ⊥) has probability exactly 1/2 · 1/2."""
    trials = 300_000
    r = sparse_vector_stream(np.zeros(2), threshold=0.0, c=2, epsilon=2.0, trials=trials, rng=9)   # ε' = 1
    assert _exact_two_sided(int(np.sum(np.all(r.answers == BOTTOM, axis=1))), trials, 7 / 24)
    top_bottom = (r.answers[:, 0] == TOP) & (r.answers[:, 1] == BOTTOM)
    assert _exact_two_sided(int(np.sum(top_bottom)), trials, 0.25)


# ----------------------------------------------------------------------------------------- accuracy vs theory

def _wrong(answers, high):
    """Failure of DR-Def3.9/3.10 on a stream with queries at τ ± α: ⊤ on a low query or ⊥ on a high one."""
    tops, bottoms = answers == TOP, answers == BOTTOM
    return np.any(tops & ~high, axis=1) | np.any(bottoms & high, axis=1) | (np.sum(tops, axis=1) < high.sum())


def _exact_wrong_above_threshold(m, alpha, epsilon):
    """1 - P[⊥ on m-1 queries at τ-α and ⊤ on the last at τ+α] = 1 - ∫ p_ρ F_ν(ρ+α)^{m-1} (1 - F_ν(ρ-α))."""
    b_rho, b_nu = 2 / epsilon, 4 / epsilon
    r = np.linspace(-60 * b_rho, 60 * b_rho, 400_001)
    F = lambda z: np.where(z <= 0, 0.5 * np.exp(np.minimum(z, 0) / b_nu), 1 - 0.5 * np.exp(-np.maximum(z, 0) / b_nu))
    dens = np.exp(-np.abs(r) / b_rho) / (2 * b_rho)
    return 1 - float(np.sum(dens * F(r + alpha) ** (m - 1) * (1 - F(r - alpha))) * (r[1] - r[0]))


def test_above_threshold_accuracy_dr_thm_3_24():
    m, beta, epsilon, trials = 50, 0.05, 1.0, 40_000
    alpha = th.above_threshold_alpha(m, beta, epsilon)
    f = np.r_[np.full(m - 1, -alpha), alpha]                    # only the last query is near τ = 0
    r = above_threshold_stream(f, threshold=0.0, epsilon=epsilon, trials=trials, rng=10)
    wrong = _wrong(r.answers, f > 0)
    rate = failure_rate(wrong.astype(float), 1.0)
    assert rate.consistent_with(beta)
    # and the rate is the exact one, so a noise scale off by any factor would fail here
    assert _exact_two_sided(rate.failures, trials, _exact_wrong_above_threshold(m, alpha, epsilon))


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_sparse_vector_accuracy_dr_thm_3_26(delta):
    m, c, beta, epsilon, trials = 60, 3, 0.05, 1.0, 20_000
    alpha = th.sparse_vector_alpha(m, c, beta, epsilon, delta)
    high = np.zeros(m, dtype=bool)
    high[[10, 30, 59]] = True
    f = np.where(high, alpha, -alpha)
    r = sparse_vector_stream(f, threshold=0.0, c=c, epsilon=epsilon, delta=delta, trials=trials, rng=11)
    assert failure_rate(_wrong(r.answers, high).astype(float), 1.0).consistent_with(beta)
    # the bound is not vacuous at a quarter of α: the test can see too much noise
    f4 = np.where(high, alpha / 4, -alpha / 4)
    r4 = sparse_vector_stream(f4, threshold=0.0, c=c, epsilon=epsilon, delta=delta, trials=trials, rng=12)
    assert np.mean(_wrong(r4.answers, high)) > 0


def _numeric_failures(r, f, high, alpha):
    err = np.where(r.answers == TOP, np.abs(np.nan_to_num(r.values) - f), 0.0)
    return _wrong(r.answers, high) | np.any(err >= alpha, axis=1)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_numeric_sparse_accuracy_dr_thm_3_28(delta):
    m, c, beta, epsilon, trials = 60, 3, 0.05, 1.0, 20_000
    alpha = th.numeric_sparse_alpha_corrected(m, c, beta, epsilon, delta)
    high = np.zeros(m, dtype=bool)
    high[[5, 25, 50]] = True
    f = np.where(high, alpha, -alpha)
    r = numeric_sparse_stream(f, threshold=0.0, c=c, epsilon=epsilon, delta=delta, trials=trials, rng=13)
    assert failure_rate(_numeric_failures(r, f, high, alpha).astype(float), 1.0).consistent_with(beta)


def test_numeric_sparse_printed_delta_bound_fails_for_the_values():
    """Discrepancy: DR-Thm3.28's printed δ > 0 α does not cover the numeric answers (m = c = 1)."""
    beta, epsilon, delta, trials = 0.05, 1.0, 1e-6, 20_000
    printed = th.numeric_sparse_alpha(1, 1, beta, epsilon, delta)
    f = np.array([10 * printed])                                  # surely ⊤; only the value's error matters
    r = numeric_sparse_stream(f, threshold=0.0, c=1, epsilon=epsilon, delta=delta, trials=trials, rng=14)
    fails = failure_rate(_numeric_failures(r, f, np.array([True]), printed).astype(float), 1.0)
    assert not fails.consistent_with(beta)                        # measured ≈ exp(-printed/σ2) = 0.21
    assert _exact_two_sided(fails.failures, trials, math.exp(-printed / r.value_scale))
    corrected = th.numeric_sparse_alpha_corrected(1, 1, beta, epsilon, delta)
    ok = failure_rate(_numeric_failures(r, f, np.array([True]), corrected).astype(float), 1.0)
    assert ok.consistent_with(beta)


def test_above_threshold_accuracy_on_real_data():
    """On the cancer 3-way conjunctions: every ⊤ is >= τ - α and every ⊥ <= τ + α, except w.p. β."""
    data = load_cancer()
    W = conjunctions(11, 3)
    f = W.answers(data.x)
    beta, epsilon, threshold, trials = 0.05, 0.5, 0.3, 20_000
    alpha = th.above_threshold_alpha(W.m, beta, epsilon, n=data.n)
    r = above_threshold(data.x, W, threshold=threshold, epsilon=epsilon, trials=trials, rng=15)
    violation = np.max(np.where(r.answers == TOP, threshold - f, np.where(r.answers == BOTTOM, f - threshold, -np.inf)), axis=1)
    assert failure_rate(violation, alpha).consistent_with(beta)


# ----------------------------------------------------------------------------------------- privacy audits

def test_audit_above_threshold_halting_pattern():
    case = stream_audit_case(above_threshold_stream, halting_pair(8), epsilon=EPS_AUDIT, trials=200_000)
    result = case.run(rng=20)
    assert result.epsilon_lb <= EPS_AUDIT
    assert result.epsilon_lb > 0.5 * EPS_AUDIT                  # the pattern is close to worst case


@pytest.mark.parametrize("name", ["above_threshold_renoise_threshold", "above_threshold_no_query_noise",
                                  "above_threshold_no_halt"])
def test_audit_above_threshold_on_the_catching_pairs(name):
    case = stream_audit_case(above_threshold_stream, CATCHING_PAIRS[name], epsilon=EPS_AUDIT, trials=200_000)
    assert case.kind == "mechanism" and case.run(rng=21).epsilon_lb <= EPS_AUDIT


def test_audit_above_threshold_on_a_database_pair():
    """Neighbours x = (0 rows of a, 6 of b), x' = one more row a; 12 copies of the query "row is a", τ = 0."""
    W = MatrixWorkload(np.tile([1.0, 0.0], (12, 1)))
    x, x_prime = np.array([0, 6]), np.array([1, 6])
    events = {f"first {j} ⊥": (lambda a, j=j: np.all(a[:, :j] == BOTTOM, axis=1)) for j in (3, 6, 12)}
    sample = lambda xx: (lambda t, r: above_threshold(xx, W, threshold=0.0, epsilon=EPS_AUDIT, trials=t, rng=r).answers)
    result = audit(sample(x), sample(x_prime), events, trials=200_000, rng=22)
    assert 0 < result.epsilon_lb <= EPS_AUDIT


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_audit_sparse_vector(delta):
    pair = CATCHING_PAIRS["sparse_vector_unscaled_noise"]
    case = stream_audit_case(sparse_vector_stream, pair, epsilon=EPS_AUDIT, delta=delta, trials=200_000)
    assert case.run(rng=23).epsilon_lb <= EPS_AUDIT
    blocks = stream_audit_case(sparse_vector_stream, halting_pair(6), epsilon=EPS_AUDIT, delta=delta,
                               trials=200_000, c=2)
    assert blocks.run(rng=24).epsilon_lb <= EPS_AUDIT


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_audit_numeric_sparse(delta):
    pair = CATCHING_PAIRS["above_threshold_outputs_value"]
    case = stream_audit_case(numeric_sparse_stream, pair, epsilon=EPS_AUDIT, delta=delta, trials=500_000)
    assert case.run(rng=25).epsilon_lb <= EPS_AUDIT


@pytest.mark.parametrize("name", sorted(CATCHING_PAIRS))
def test_broken_variants_are_caught(name):
    case = stream_audit_case(getattr(broken, name), CATCHING_PAIRS[name], epsilon=EPS_AUDIT,
                             trials=CATCHING_TRIALS[name])
    result = case.run(rng=26)
    assert case.kind == "control" and result.epsilon_lb > EPS_AUDIT, (name, result)


def test_stream_pair_validates_pairs():
    with pytest.raises(ValueError, match="differ by at most 1"):
        StreamPair("bad", np.zeros(3), np.full(3, 2.0), {"x": lambda rel: rel.answers[:, 0] == TOP})
    with pytest.raises(ValueError, match="f_prime"):
        StreamPair("bad", np.zeros(3), np.array([0.0, np.nan, 0.0]), {})


# ----------------------------------------------------------------------------------------- determinism

@pytest.mark.parametrize("fn", STREAMS)
def test_determinism(fn):
    f = np.zeros(30)
    a = fn(f, trials=50, rng=123, **_params(fn))
    b = fn(f, trials=50, rng=123, **_params(fn))
    c = fn(f, trials=50, rng=124, **_params(fn))
    assert np.array_equal(a.answers, b.answers) and not np.array_equal(a.answers, c.answers)
    if a.values is not None:
        assert np.array_equal(a.values, b.values, equal_nan=True)
    g = np.random.default_rng(5)
    assert np.array_equal(fn(f, rng=g, **_params(fn)).answers.shape, (30,))


@pytest.mark.parametrize("name", sorted(CATCHING_PAIRS))
def test_broken_determinism(name):
    fn, case = getattr(broken, name), CATCHING_PAIRS[name]
    extra = {"c": case.c} if name == "sparse_vector_unscaled_noise" else {}
    a = fn(case.f, threshold=0.0, epsilon=1.0, trials=40, rng=5, **extra)
    b = fn(case.f, threshold=0.0, epsilon=1.0, trials=40, rng=5, **extra)
    assert np.array_equal(a.answers, b.answers) and a.mechanism.startswith("BROKEN")
    assert fn(case.f, threshold=0.0, epsilon=1.0, rng=5, **extra).answers.shape == case.f.shape


# ----------------------------------------------------------------------------------------- bad inputs

@pytest.mark.parametrize("fn", STREAMS)
@pytest.mark.parametrize("param,value,error", [
    ("f", np.array([]), ValueError), ("f", np.zeros((2, 2)), ValueError), ("f", np.array([0.0, np.nan]), ValueError),
    ("f", np.array([np.inf]), ValueError), ("f", np.array(["a"]), TypeError), ("f", np.array([True]), TypeError),
    ("threshold", float("nan"), ValueError), ("threshold", float("inf"), ValueError), ("threshold", "0", TypeError),
    ("epsilon", 0.0, ValueError), ("epsilon", -1.0, ValueError), ("epsilon", float("nan"), ValueError),
    ("epsilon", float("inf"), ValueError), ("epsilon", "1", TypeError), ("epsilon", True, TypeError),
    ("sensitivity", 0.0, ValueError), ("sensitivity", -2.0, ValueError), ("sensitivity", float("nan"), ValueError),
    ("sensitivity", "1", TypeError),
    ("trials", 0, ValueError), ("trials", 2.5, TypeError), ("trials", -1, ValueError),
    ("rng", -1, ValueError), ("rng", "seed", TypeError), ("rng", 1.5, TypeError),
    ("sampler", "laplace", TypeError),
])
def test_bad_inputs_stream(fn, param, value, error):
    args = {"f": np.zeros(5), **_params(fn), param: value}
    f = args.pop("f")
    with pytest.raises(error, match=param if param not in ("f",) else "f"):
        fn(f, **args)


@pytest.mark.parametrize("fn", [sparse_vector_stream, numeric_sparse_stream])
@pytest.mark.parametrize("param,value,error", [
    ("c", 0, ValueError), ("c", -2, ValueError), ("c", 1.5, TypeError), ("c", "2", TypeError),
    ("delta", -0.1, ValueError), ("delta", 1.0, ValueError), ("delta", float("nan"), ValueError),
    ("delta", "0", TypeError),
])
def test_bad_inputs_c_and_delta(fn, param, value, error):
    with pytest.raises(error, match=param):
        fn(np.zeros(5), **_params(fn, **{param: value}))


@pytest.mark.parametrize("fn", [sparse_vector_stream, numeric_sparse_stream])
def test_delta_split_refused_when_it_does_not_compose(fn):
    with pytest.raises(ValueError, match="epsilon"):
        fn(np.zeros(5), threshold=0.0, c=100, epsilon=20.0, delta=0.5)


@pytest.mark.parametrize("fn", [above_threshold, sparse_vector, numeric_sparse])
@pytest.mark.parametrize("param,value,error", [
    ("x", np.array([-1, 2]), ValueError), ("x", np.array([0.5, 2]), ValueError), ("x", np.array([[1, 2]]), ValueError),
    ("x", np.array([np.nan, 1.0]), ValueError), ("x", np.array(["a", "b"]), TypeError),
    ("workload", np.ones((3, 5)), ValueError), ("workload", "queries", TypeError),
    ("workload", np.array([[0.5, 2.0]]), ValueError),
    ("threshold", -0.1, ValueError), ("threshold", 1.5, ValueError), ("threshold", float("nan"), ValueError), ("threshold", None, TypeError),
    ("epsilon", 0.0, ValueError), ("trials", 0, ValueError), ("rng", "x", TypeError),
])
def test_bad_inputs_database(fn, param, value, error):
    args = {"x": np.array([3, 4]), "workload": np.array([[1.0, 0.0], [0.0, 1.0]]), **_params(fn), "threshold": 0.5,
            param: value}
    x, W = args.pop("x"), args.pop("workload")
    with pytest.raises(error, match=param if param != "workload" else "workload|Q"):
        fn(x, W, **args)


@pytest.mark.parametrize("name", sorted(CATCHING_PAIRS))
@pytest.mark.parametrize("param,value,error", [("epsilon", 0.0, ValueError), ("threshold", float("nan"), ValueError),
                                               ("f", np.array([]), ValueError), ("trials", 0, ValueError)])
def test_bad_inputs_broken(name, param, value, error):
    fn, case = getattr(broken, name), CATCHING_PAIRS[name]
    args = {"f": case.f, "threshold": 0.0, "epsilon": 1.0, **({"c": case.c} if name == "sparse_vector_unscaled_noise" else {}),
            param: value}
    f = args.pop("f")
    with pytest.raises(error, match=param):
        fn(f, **args)


def test_empirical_alpha_hand_values():
    f = np.array([0.1, 0.5, 0.2, 0.9])
    r = numeric_sparse_stream(f, threshold=0.4, c=1, epsilon=1e6, rng=1)             # (⊥, ⊤, -, -), value ≈ 0.5
    assert r.answers.tolist() == [BOTTOM, TOP, UNANSWERED, UNANSWERED]
    assert empirical_alpha(r, f) == pytest.approx(0.0, abs=1e-3)             # max(0.1-0.4, 0.4-0.5, |err| ≈ 0)
    at = above_threshold_stream(f, threshold=0.4, epsilon=1e6, rng=1)
    assert empirical_alpha(at, f) == pytest.approx(-0.1, abs=1e-4)           # max(0.1-0.4, 0.4-0.5)
    wrong = above_threshold_stream(np.array([0.3, 0.9]), threshold=0.35, epsilon=1e-9, trials=200, rng=2)
    ea = empirical_alpha(wrong, [0.3, 0.9])
    assert ea.shape == (200,) and np.all(np.isin(np.round(ea, 12), [0.05, 0.55, -0.05]))
    with pytest.raises(ValueError, match="f has 3 values"):
        empirical_alpha(r, np.zeros(3))


def test_workload_streams_pay_the_query_range():
    """The stream of a workload whose entries reach 2 (overlapping cuts) has sensitivity 2/n, not 1/n."""
    from dpbook.graphs import cut_workload
    x = np.array([0, 0, 1])
    wide = above_threshold(x, cut_workload(3, [([0, 1], [0, 1])]), threshold=0.5, epsilon=1.0, n=1, rng=0)
    unit = above_threshold(x, cut_workload(3, [([0], [1])]), threshold=0.5, epsilon=1.0, n=1, rng=0)
    assert wide.query_scale == pytest.approx(2 * unit.query_scale)
    assert wide.threshold_scale == pytest.approx(2 * unit.threshold_scale)


def test_threshold_alpha_hand_values_and_agreement_with_empirical_alpha():
    from dpbook.sparse_vector import threshold_alpha
    f = np.array([0.1, 0.5, 0.2, 0.9])
    assert threshold_alpha(f, f, 0.4) == pytest.approx(-0.1)                 # all correct: max(0.1-0.4, 0.4-0.5, ...)
    noisy = np.array([[0.45, 0.5, 0.2, 0.9], [0.1, 0.3, 0.2, 0.9]])          # a false ⊤ at 0.1; a false ⊥ at 0.5
    assert threshold_alpha(noisy, f, 0.4).tolist() == pytest.approx([0.3, 0.1])
    assert threshold_alpha(noisy, f, 0.4, values=True).tolist() == pytest.approx([0.35, 0.1])
    # with no query noise and a threshold far below every value it is AboveThreshold's metric on ⊤ only
    at = above_threshold_stream(f, threshold=0.4, epsilon=1e9, rng=1)
    assert threshold_alpha(f, f, 0.4) == pytest.approx(empirical_alpha(at, f), abs=1e-6)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(noisy=np.zeros(3)), ValueError, "noisy"),
    (dict(noisy=np.zeros((2, 3))), ValueError, "noisy"),
    (dict(noisy=np.array([0.1, np.nan, 0.2, 0.3])), ValueError, "noisy"),
    (dict(noisy=np.array(["a"] * 4)), TypeError, "noisy"),
    (dict(threshold=float("nan")), ValueError, "threshold"),
    (dict(threshold="0.4"), TypeError, "threshold"),
    (dict(values=1), TypeError, "values"),
    (dict(f=np.zeros(0)), ValueError, "f"),
])
def test_threshold_alpha_rejects_bad_input(kwargs, error, match):
    from dpbook.sparse_vector import threshold_alpha
    args = dict(noisy=np.zeros(4), f=np.zeros(4), threshold=0.4) | kwargs
    with pytest.raises(error, match=match):
        threshold_alpha(args.pop("noisy"), args.pop("f"), args.pop("threshold"), **args)


def test_stored_chapter_audits_agree_with_a_fresh_run():
    """benchmarks/sparse_vector/results.json (chapter 06's stored heavy audits) cannot go stale silently: its settings
    are the script's, its cases are the script's in order, every verdict is right, and the halting audit (the
    cheapest stored one, 2·10^5 runs per side) recomputed from its seed gives the stored numbers exactly."""
    import json
    import pathlib
    from benchmarks.sparse_vector import run
    stored = json.loads((pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "sparse_vector"
                         / "results.json").read_text())
    assert stored["trials"] == run.TRIALS and stored["halting_trials"] == run.HALTING_TRIALS
    assert stored["seed"] == run.SEED and stored["epsilon"] == run.EPSILON and stored["catch"] == run.CATCH
    cases = run.stored_cases()
    assert [a["name"] for a in stored["audits"]] == [c.name for c in cases]
    claims = [c.epsilon for c in cases]
    assert all((a["epsilon_lb"] > e) == (a["kind"] == "control") for a, e in zip(stored["audits"], claims))
    halting = next(i for i, c in enumerate(cases) if "T+0/+1" in c.name)          # halting_pair(8)
    assert run.run_case(halting) == stored["audits"][halting]
