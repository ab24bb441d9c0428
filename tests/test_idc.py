"""Chapters 10–12: IDC protocol, the three IDCs, online mechanisms (Alg1-SV, GRU Alg1), offline IC, theory; the one online
loop's outputs for fixed seeds (recorded by tests/data/record_fixed_seed_outputs.py, IDC, MWEM and SmallDB), and
no mechanism of the loop densifies a workload.

Statistical checks use fixed seeds and one-sided Clopper–Pearson bounds at level 1e-6 (``consistent_with``).
"""
import importlib.util
import json
import math
import pathlib

import numpy as np
import pytest

from dpbook.audit import audit
from dpbook.broken.idc import (iterative_construction_exact_answers, online_idc_sv_exact_release,
                               online_idc_sv_stream_sees_data, online_idc_uncomposed, online_mw_dr_exact_values)
from dpbook.data import add_row, digits_histogram, load_cancer, project_histogram
from dpbook.experiments import failure_rate
from dpbook.idc import (AdversarialStream, FixedStream, FriezeKannanIDC, MedianIDC, MultiplicativeWeightsIDC,
                        UpdateStep, as_stream, drive_with_oracle, is_update_sequence, iterative_construction,
                        make_rule, online_idc, online_idc_sv, online_mw_dr, promised_drop, th_sv_threshold_for,
                        update_sequence_violations)
from dpbook.multiplicative_weights import idc_mw_update, kl_potential
from dpbook.queries import MarginalWorkload, MatrixWorkload, digits_marginals, k_way_marginals
from dpbook.release import compose
from dpbook.theory import idc as th
from dpbook.theory.composition import advanced_composition
from dpbook.theory.sparse_vector import numeric_sparse_alpha_corrected

CANCER = load_cancer().x
X64 = project_histogram(CANCER, 11, [0, 1, 2, 3, 4, 10])          # N = 64
W64 = k_way_marginals(6, 3)                                        # 160 marginal cells
X8 = project_histogram(CANCER, 11, [0, 3, 10])                      # N = 8 (median mechanism)
W8 = MatrixWorkload(((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float))   # all 255 subsets
ONE = MatrixWorkload(np.array([[0.0, 1.0]]))                        # universe {a, b}; counts rows equal to b
ROOT = pathlib.Path(__file__).resolve().parents[1]


# =========================================================================== helpers and the protocol

def test_project_histogram_matches_marginals():
    cells = [((0, 3, 10), v) for v in np.ndindex(2, 2, 2)]
    direct = MarginalWorkload(11, cells).counts(CANCER)
    assert np.array_equal(X8, direct) and X8.sum() == CANCER.sum()
    # attribute order: the first listed attribute is the most significant bit
    swapped = project_histogram(CANCER, 11, [10, 3, 0])
    assert np.array_equal(swapped.reshape(2, 2, 2), X8.reshape(2, 2, 2).transpose(2, 1, 0))


def test_mw_rule_is_chapter_07_update():
    rule = MultiplicativeWeightsIDC(64, 0.1)
    p = rule.initial(3)
    assert np.allclose(p, 1 / 64) and rule.bound() == pytest.approx(4 * math.log(64) / 0.01)
    q = W64.query(5)
    a = np.array([0.9, 0.0, 0.2])
    assert np.allclose(rule.update(p, q, a), idc_mw_update(p, q, a, 0.05))
    assert np.allclose(rule.evaluate(p, q), p @ q)


def test_median_enumerates_all_multisets():
    med = MedianIDC(8, 4, alpha=0.2)
    assert med.size == math.comb(11, 4) == 330 and med.bound() == 8
    assert np.all(med.databases.sum(axis=1) == 4)
    assert len({tuple(r) for r in med.databases}) == med.size


def test_median_answers_match_np_median():
    med = MedianIDC(8, 4, alpha=0.2)
    alive = np.random.default_rng(1).random((37, med.size)) < 0.3
    Q = W8.matrix()
    expect = np.stack([np.median((Q @ med.points.T)[:, row], axis=1) for row in alive])
    assert np.allclose(med.answers(alive, Q), expect)


def test_median_evaluate_is_np_median_and_update_halves():
    """IDC-DefA.1 (np.median tie convention) and |C^{t+1}| <= |C^t|/2 (IDC-ThmA.2's step)."""
    med = MedianIDC(8, 4, alpha=0.2)
    rng = np.random.default_rng(0)
    alive = rng.random((50, med.size)) < 0.4
    Q = W8.matrix()
    for j in rng.integers(0, W8.m, 20):
        vals = med.points @ Q[j]
        expect = np.array([np.median(vals[row]) for row in alive])
        assert np.allclose(med.evaluate(alive, Q[j]), expect)
        for a_hat in (0.0, 1.0):
            new = med.update(alive, Q[j], np.full(50, a_hat))
            changed = new.sum(axis=1) != alive.sum(axis=1)
            assert np.all(new.sum(axis=1)[changed] <= alive.sum(axis=1)[changed] / 2)
            assert np.all(new <= alive)


def test_oracle_mw_potential_and_bound():
    """IDC-ThmA.4, ClaimA.5, LemmaA.6: Ψ0 <= ln N, each valid update drops Ψ by >= α²/4, L <= 4 ln N/α²."""
    rule = MultiplicativeWeightsIDC(64, 0.05)
    run = drive_with_oracle(rule, X64, W64)
    assert run.potentials[0] <= math.log(64)
    assert np.all(-np.diff(run.potentials) >= 0.05 ** 2 / 4 - 1e-12)
    assert 0 < run.updates <= rule.bound() and run.max_errors[-1] < 0.05
    assert is_update_sequence(run.log, X64, rule, W64, 0.05)
    assert run.potentials[-1] == pytest.approx(kl_potential(X64 / X64.sum(), run.state))


def test_oracle_fk_potential_and_bound_on_a_set():
    """IDC-Thm5.1: on a set database (||D||² = n) each update drops ||D̄ - g||² by >= α²/N; L <= N/(n α²)."""
    x_set = (X64 > 0).astype(np.int64)
    n = int(x_set.sum())
    rule = FriezeKannanIDC(64, 0.05, n=n, sq_norm=n)
    run = drive_with_oracle(rule, x_set, W64)
    assert rule.bound() == pytest.approx(n * 64 / (n * 0.05) ** 2)
    assert np.all(-np.diff(run.potentials) >= 0.05 ** 2 / 64 - 1e-12)
    assert 0 < run.updates <= rule.bound() and run.max_errors[-1] < 0.05
    assert is_update_sequence(run.log, x_set, rule, W64, 0.05)


def test_oracle_median_halves_and_keeps_the_good_database():
    """IDC-ThmA.2: the α-accurate database survives every valid update; L <= floor(log2 |C0|)."""
    med = MedianIDC(8, 4, alpha=0.2)
    alpha_star = med.best_accuracy(X8, W8)
    assert alpha_star < 0.2
    run = drive_with_oracle(med, X8, W8)
    err = np.abs(med.points @ W8.matrix().T - W8.answers(X8)).max(axis=1)
    good = int(np.argmin(err))
    assert all(step.state[good] for step in run.log) and run.state[good]
    sizes = [int(step.state.sum()) for step in run.log] + [int(run.state.sum())]
    assert all(b <= a / 2 for a, b in zip(sizes, sizes[1:]))
    assert run.updates <= med.bound() and run.max_errors[-1] < 0.2
    assert is_update_sequence(run.log, X8, med, W8, 0.2)


def test_update_sequence_validator_catches_each_condition():
    """IDC-Def3.1 conditions 1–4 each detected on a tampered oracle log."""
    rule = MultiplicativeWeightsIDC(64, 0.05)
    log = list(drive_with_oracle(rule, X64, W64).log)
    true = W64.answers(X64)
    bad1 = [UpdateStep(log[0].state * 0 + np.eye(64)[0], log[0].query, log[0].noisy_answer)] + log[1:]
    assert any(v.startswith("1") for v in update_sequence_violations(bad1, X64, rule, W64, 0.05))
    easy = int(np.argmin(np.abs(rule.answers(log[0].state[None], W64.matrix())[0] - true)))
    bad2 = [UpdateStep(log[0].state, easy, true[easy])] + log[1:]
    assert any(v.startswith("2") for v in update_sequence_violations(bad2, X64, rule, W64, 0.05))
    bad3 = [UpdateStep(log[0].state, log[0].query, log[0].noisy_answer + 0.2)] + log[1:]
    assert any(v.startswith("3") for v in update_sequence_violations(bad3, X64, rule, W64, 0.05))
    bad4 = log[:1] + log[2:]
    assert any(v.startswith("4") for v in update_sequence_violations(bad4, X64, rule, W64, 0.05))
    assert update_sequence_violations(log, X64, rule, W64, 0.05) == []


# =========================================================================== IDC-Alg1-SV accuracy

def _sv_accuracy(x, rule, W, m, trials, seed, **kw):
    rel = online_idc_sv(x, rule, AdversarialStream(W, m, reference=x), epsilon=0.9, delta=1e-6, beta=0.05, trials=trials,
                        rng=seed, **kw)
    return rel, rel.errors(x).max


def test_sv_accuracy_mw():
    """IDC-Alg1-SV with MW, adversarial stream: P[max error > α_U + 2α_SV] <= β; at most c updates."""
    x = X64 * 2000
    rule = MultiplicativeWeightsIDC(64, 0.1)
    rel, err = _sv_accuracy(x, rule, W64, 100, 200, 11)
    bound = rel.params["error_bound"]
    assert bound < np.abs(W64.answers(x) - 1 / 8).max()              # not vacuous: below the start's error
    assert failure_rate(err, bound).consistent_with(0.05)
    assert rel.updates.max() <= rel.params["c"] and rel.updates.min() > 0
    assert rel.params["c"] == math.floor(4 * math.log(64) / 0.01)


def test_sv_accuracy_median_tiny_universe():
    x = X8 * 200
    med = MedianIDC(8, 4, alpha=0.2)
    rel, err = _sv_accuracy(x, med, W8, 50, 100, 12)
    assert rel.params["c"] == 8
    assert rel.params["error_bound"] < 0.3 and failure_rate(err, rel.params["error_bound"]).consistent_with(0.05)
    assert rel.updates.max() <= 8


def test_sv_accuracy_fk():
    x = X64 * 5000
    rule = FriezeKannanIDC(64, 0.1, n=int(x.sum()))                   # multiset bound ||D||² <= n²
    rel, err = _sv_accuracy(x, rule, W64, 60, 100, 13)
    assert rel.params["B"] == pytest.approx(64 / 0.01)
    assert rel.params["error_bound"] < 0.2 and failure_rate(err, rel.params["error_bound"]).consistent_with(0.05)


def test_sv_accuracy_mw_below_threshold_adversary():
    """The analyst who asks the worst query the threshold lets through: answers come from the hypothesis and
    their error approaches τ — still within α_U + 2α_SV w.p. >= 1-β."""
    x = X64 * 3000
    rule = MultiplicativeWeightsIDC(64, 0.1)
    probe = online_idc_sv(x, rule, FixedStream(W64, [0]), epsilon=0.9, delta=1e-6, beta=0.05, rng=0)
    stream = AdversarialStream(W64, 100, below=probe.params["threshold"], reference=x)
    rel = online_idc_sv(x, rule, stream, epsilon=0.9, delta=1e-6, beta=0.05, trials=100, rng=21)
    err = rel.errors(x).max
    assert failure_rate(err, rel.params["error_bound"]).consistent_with(0.05)
    assert np.median(err) > rel.params["alpha_u"]                        # the bound is nearly reached
    assert (~rel.updated).sum() > rel.updated.sum()                      # mostly hypothesis answers


def test_sv_logs_are_update_sequences():
    """IDC-Def3.1 measure: in the good event (β = 1e-8 per run) every Alg1-SV log is a valid sequence."""
    x = X64 * 2000
    rule = MultiplicativeWeightsIDC(64, 0.1)
    rel = online_idc_sv(x, rule, AdversarialStream(W64, 60, reference=x), epsilon=0.9, delta=1e-6, beta=1e-8, trials=20, rng=3,
                        logs=True)
    assert all(len(log) == u for log, u in zip(rel.trace["logs"], rel.updates))
    assert sum(rel.updates) > 20
    assert all(is_update_sequence(log, x, rule, W64, 0.1) for log in rel.trace["logs"])


def test_sv_cap_stops_data_access():
    """A practical cap c: at most c updates, then every answer is the hypothesis' (no data access)."""
    x = X64 * 100
    rule = MultiplicativeWeightsIDC(64, 0.1)
    rel = online_idc_sv(x, rule, AdversarialStream(W64, 40, reference=x), epsilon=0.9, delta=1e-6, c=3, trials=30, rng=4)
    assert rel.params["capped"] and rel.updates.max() <= 3 and rel.halted.any()
    assert rel.params["epsilon0"] == pytest.approx(0.9 / (4 * math.sqrt(3 * math.log(1e6))))
    for r in np.flatnonzero(rel.halted):
        last = np.flatnonzero(rel.updated[r])[-1]
        after = rel.answers[r, last + 1:]
        assert np.allclose(after, rule.answers(rel.hypothesis[r][None], W64.matrix())[0][rel.queries[r, last + 1:]])


# =========================================================================== GRU Algorithm 1 accuracy

def test_alg1_accuracy_thm_4_9():
    """IDC-Thm4.9: τ >= 2 ln(m/β)/(ε0 n) ⇒ w.p. >= 1-β all errors <= 3τ/2 and no early termination."""
    x = X64 * 500
    rule = MultiplicativeWeightsIDC(64, 0.1)                          # α = 0.3, τ = 0.2, B_max = B(0.1)
    rel = online_idc(x, rule, AdversarialStream(W64, 100, reference=x), epsilon=1.0, delta=1e-6, trials=200, rng=5)
    p = rel.params
    assert p["threshold"] == pytest.approx(0.2) and p["b_max"] == math.floor(4 * math.log(64) / 0.01)
    assert p["threshold"] >= th.alg1_min_threshold(100, 0.05, p["epsilon0"], int(x.sum()))
    bad = (rel.errors(x).max > 1.5 * p["threshold"]) | rel.halted
    assert failure_rate(bad.astype(float), 0.5).consistent_with(0.05)
    assert rel.epsilon == pytest.approx(1.0)


@pytest.mark.parametrize("make", [
    lambda n: MedianIDC(8, 4, alpha=0.2),
    lambda n: FriezeKannanIDC(8, 0.2, n=n),
])
def test_alg1_accuracy_other_idcs(make):
    x = X8 * 400
    rule = make(int(x.sum()))
    rel = online_idc(x, rule, AdversarialStream(W8, 40, reference=x), delta=1e-6, epsilon0=0.05, trials=100, rng=6)
    p = rel.params
    assert p["threshold"] >= th.alg1_min_threshold(40, 0.05, 0.05, int(x.sum()))
    bad = (rel.errors(x).max > 1.5 * p["threshold"]) | rel.halted
    assert failure_rate(bad.astype(float), 0.5).consistent_with(0.05)


# =========================================================================== privacy

def _pair(n1, n):
    """The tight pair for one counting query on a 2-element universe (public n): x' = x + one row b."""
    x = np.array([n - n1, n1])
    return x, add_row(x, 1), n


def _sv_sampler(x, n, mechanism=online_idc_sv, T=4):
    rule = MultiplicativeWeightsIDC(2, 0.05)
    stream = FixedStream(ONE, [0] * T)

    def sample(trials, rng):
        rel = mechanism(x, rule, stream, epsilon=0.5, delta=1e-3, c=2, n=n, trials=trials, rng=rng)
        return np.where(rel.updated, rel.answers, np.nan)
    return sample


def _sv_tight_pair():
    """Truth at hypothesis (1/2) + τ: round 1's threshold test is a coin flip."""
    n = 10_000
    T1 = online_idc_sv(np.array([n // 2, n // 2]), MultiplicativeWeightsIDC(2, 0.05), FixedStream(ONE, [0] * 4),
                       epsilon=0.5, delta=1e-3, c=2, rng=0).params["threshold"]
    return _pair(n // 2 + int(round(T1 * n)), n)


def test_sv_ledger_composes_to_the_claim():
    rel = online_idc_sv(X64 * 100, MultiplicativeWeightsIDC(64, 0.2), W64, epsilon=0.9, delta=1e-6, rng=0)
    c, eps0 = rel.params["c"], rel.params["epsilon0"]
    assert len(rel.ledger) == 2 * c and all(s.epsilon == eps0 for s in rel.ledger)
    assert advanced_composition(eps0, 2 * c, 1e-6)[0] <= 0.9 == rel.epsilon
    pure = online_idc_sv(X64 * 100, MultiplicativeWeightsIDC(64, 0.2), W64, epsilon=0.9, delta=0.0, rng=0)
    assert sum(s.epsilon for s in pure.ledger) == pytest.approx(0.9)


def test_sv_audit_threshold_test_and_release():
    """PA(ii) on the tight pair: the ⊤/⊥ pattern and the released values; ε_lb <= ε."""
    x, xp, n = _sv_tight_pair()
    q = x[1] / n
    events = {"round 1 updates": lambda o: ~np.isnan(o[:, 0]),
              "2 updates in 4 rounds": lambda o: (~np.isnan(o)).sum(axis=1) == 2,
              "first value > q(x)": lambda o: np.nan_to_num(o[:, 0], nan=-1) > q}
    first = _sv_sampler(x, n)(20_000, np.random.default_rng(1))
    assert 0.2 < np.mean(~np.isnan(first[:, 0])) < 0.8                  # the test is at its most sensitive
    res = audit(_sv_sampler(x, n), _sv_sampler(xp, n), events, trials=200_000, delta=1e-3, rng=7)
    assert res.epsilon_lb <= 0.5


def test_sv_broken_exact_release_is_caught():
    x, xp, n = _sv_tight_pair()
    q = x[1] / n
    event = {"released exactly q(x)": lambda o: np.abs(np.nan_to_num(o[:, 0], nan=-1) - q) < 1e-12}
    res = audit(_sv_sampler(x, n, online_idc_sv_exact_release), _sv_sampler(xp, n, online_idc_sv_exact_release),
                event, trials=20_000, delta=1e-3, rng=8)
    assert res.epsilon_lb > 0.5


def _alg1_sampler(x, n, mechanism=online_idc):
    rule = MultiplicativeWeightsIDC(2, 0.1)

    def sample(trials, rng):
        rel = mechanism(x, rule, FixedStream(ONE, [0] * 6), delta=1e-3, epsilon=0.5, b_max=3, n=n,
                        trials=trials, rng=rng)
        return np.where(rel.updated, rel.answers, np.nan)
    return sample


def test_alg1_audit_and_uncomposed_control():
    """Algorithm 1 (reconstructed ε0): the audit does not contradict ε; ε0 = ε (no composition) is caught."""
    x, xp, n = _pair(90, 100)
    events = {"rounds 1-4 all update": lambda o: (~np.isnan(o[:, :4])).all(axis=1)}
    for t in (2.72, 2.74, 2.76, 2.78):
        events[f"sum of first 3 values > {t}"] = lambda o, t=t: np.nan_to_num(o[:, :3], nan=0).sum(axis=1) > t
    ok = audit(_alg1_sampler(x, n), _alg1_sampler(xp, n), events, trials=100_000, delta=1e-3, rng=9)
    assert ok.epsilon_lb <= 0.5
    bad = audit(_alg1_sampler(x, n, online_idc_uncomposed), _alg1_sampler(xp, n, online_idc_uncomposed), events,
                trials=100_000, delta=1e-3, rng=9)
    assert bad.epsilon_lb > 0.5


# =========================================================================== DR-Alg6 (OnlineMW via NumericSparse)

def test_dr_alg6_accuracy_delta_0():
    """DR-Alg6, δ = 0, at dr_alg6_parameters: P[max error > τ + α_NS = 3α] <= β; at most c updates."""
    x = X64 * 10_000
    alpha, c = th.dr_alg6_parameters(64, 100, 0.05, 0.9, int(x.sum()))
    rel = online_mw_dr(x, AdversarialStream(W64, 100, reference=x), alpha=alpha, epsilon=0.9, delta=0.0, c=c, trials=100, rng=14)
    threshold = rel.params["threshold"]
    a_ns = th.dr_alg6_alpha_ns(100, c, 0.05, 0.9, 0.0, int(x.sum()))
    assert th.dr_alg6_conditions(threshold, a_ns, alpha) and th.dr_alg6_error_bound(threshold, a_ns) == pytest.approx(3 * alpha)
    assert 3 * alpha < np.abs(W64.answers(x) - 1 / 8).max()
    assert failure_rate(rel.errors(x).max, 3 * alpha).consistent_with(0.05)
    assert rel.updates.max() <= c and rel.updates.min() > 0
    assert rel.params["composed_epsilon"] == pytest.approx(0.9) and rel.ledger[0].epsilon == 0.9


def test_dr_alg6_audit_and_exact_values_control():
    x, xp, n = _pair(95, 1000)

    def sampler(xx, mechanism=online_mw_dr):
        def sample(trials, rng):
            out = mechanism(xx, FixedStream(ONE, [0] * 3), alpha=0.3, epsilon=0.5, delta=0.0, c=2, threshold=0.3, n=n,
                            trials=trials, rng=rng)
            return np.where(out.updated, out.answers, np.nan)
        return sample
    q = x[1] / n
    events = {"round 1 updates": lambda o: ~np.isnan(o[:, 0]),
              "first value == q(D)": lambda o: np.abs(np.nan_to_num(o[:, 0], nan=-1) - q) < 1e-12,
              "first value > q(D)": lambda o: np.nan_to_num(o[:, 0], nan=-1) > q}
    ok = audit(sampler(x), sampler(xp), events, trials=100_000, rng=15)
    assert ok.epsilon_lb <= 0.5
    bad = audit(sampler(x, online_mw_dr_exact_values), sampler(xp, online_mw_dr_exact_values), events,
                trials=20_000, rng=16)
    assert bad.epsilon_lb > 0.5


def test_dr_alg6_delta_positive_has_no_derived_guarantee():
    """Finding: with δ > 0 the corrected NumericSparse accuracy exceeds τ/2 for the box's τ, so no α satisfies
    α_NS <= α <= τ - α_NS (the numeric noise can flip an update's sign)."""
    for n in (10 ** 5, 10 ** 6, 10 ** 8):
        for alpha in (0.05, 0.1, 0.3):
            c = th.sv_updates(th.mw_bound(alpha, 64))
            threshold = th.dr_online_mw_threshold(c, 0.9, 1e-6, 100, 0.05, n)
            a_ns = th.dr_alg6_alpha_ns(100, c, 0.05, 0.9, 1e-6, n)
            assert threshold - a_ns < a_ns


@pytest.mark.parametrize("kw, err, name", [
    (dict(alpha=0.0), ValueError, "alpha"), (dict(alpha=3.0), ValueError, "alpha"),
    (dict(epsilon=-1.0), ValueError, "epsilon"), (dict(delta=1.0), ValueError, "delta"),
    (dict(c=0), ValueError, "c"), (dict(threshold=float("nan")), ValueError, "threshold"), (dict(beta=0.0), ValueError, "beta"),
    (dict(trials=0), ValueError, "trials"),
])
def test_dr_alg6_bad_input(kw, err, name):
    args = dict(alpha=0.2, epsilon=0.5)
    args.update(kw)
    with pytest.raises(err, match=name):
        online_mw_dr(X64, W64, **args)


# =========================================================================== offline IC (GRU §7)

def test_ic_accuracy_thm_7_3():
    """IDC-Thm7.3 with the MW IDC: α >= max(8 ln(2B/β)/(ε0 n), 8F(ε0)) ⇒ P[max error > α] <= β."""
    alpha, beta = 0.3, 0.05
    x = X64 * 1000
    n = int(x.sum())
    rule = MultiplicativeWeightsIDC(64, alpha / 2)
    rel = iterative_construction(x, W64, rule=rule, epsilon=0.9, delta=1e-6, trials=40, rng=10)
    B = math.floor(rule.bound())
    eps0 = th.ic_epsilon0(0.9, 1e-6, B)
    assert rel.trace["epsilon0"] == pytest.approx(eps0) and th.ic_alpha_condition(B, beta, eps0, n, W64.m) <= alpha
    err = np.abs(rel.answers - W64.answers(x)).max(axis=1)
    assert failure_rate(err, alpha).consistent_with(beta)
    assert np.all(rel.trace["rounds_used"] <= B)
    assert np.abs(W64.answers(x) - 1 / 8).max() > alpha               # the start is not already accurate


def test_ic_privacy_ledger_and_audit():
    """IDC-Thm7.2 ledger; PA(ii) on a pair straddling the stopping test; the exact-answer control is caught."""
    x, xp, n = _pair(799, 1000)                   # gap to the start 1/2: 0.299 under x, 0.300 under x'
    rule = MultiplicativeWeightsIDC(2, 0.2995 / 1.5)   # stopping threshold 3α/4 = 1.5·rule.alpha = 0.2995

    def sampler(xx, mechanism=iterative_construction):
        return lambda trials, rng: mechanism(xx, ONE, rule=rule, epsilon=0.5, delta=1e-3, n=n, rounds=3,
                                             trials=trials, rng=rng).answers[:, 0]
    rel = iterative_construction(x, ONE, rule=rule, epsilon=0.5, delta=1e-3, n=n, rounds=3, rng=0)
    assert len(rel.ledger) == 6 and rel.trace["composed_epsilon"] <= 0.5
    assert rel.trace["composed_epsilon"] == pytest.approx(advanced_composition(rel.trace["epsilon0"], 6, 1e-3)[0])
    exact_d = iterative_construction_exact_answers(x, ONE, rule=rule, epsilon=0.5, delta=1e-3, n=n, rounds=3,
                                                   rng=0).answers[0]
    events = {"answer == 1/2 (stopped at once)": lambda o: np.abs(o - exact_d) < 1e-12,
              "answer > 0.55": lambda o: o > 0.55}
    ok = audit(sampler(x), sampler(xp), events, trials=50_000, delta=1e-3, rng=11)
    assert ok.epsilon_lb <= 0.5
    bad = audit(sampler(x, iterative_construction_exact_answers), sampler(xp, iterative_construction_exact_answers),
                events, trials=20_000, delta=1e-3, rng=12)
    assert exact_d == pytest.approx(0.5) and bad.epsilon_lb > 0.5


# =========================================================================== bad input

def _sv(**kw):
    args = dict(x=X64, rule=MultiplicativeWeightsIDC(64, 0.2), stream=W64, epsilon=0.5, delta=1e-6)
    args.update(kw)
    return online_idc_sv(**args)


@pytest.mark.parametrize("kw, err, name", [
    (dict(epsilon=float("nan")), ValueError, "epsilon"), (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon="1"), TypeError, "epsilon"), (dict(epsilon=1.5), ValueError, "epsilon"),
    (dict(delta=1.0), ValueError, "delta"), (dict(delta=float("inf")), ValueError, "delta"),
    (dict(beta=0.0), ValueError, "beta"), (dict(beta=2.0), ValueError, "beta"),
    (dict(n=0), ValueError, "n"), (dict(n=1.5), TypeError, "n"),
    (dict(c=0), ValueError, "c"), (dict(c=2.0), TypeError, "c"),
    (dict(trials=0), ValueError, "trials"), (dict(rng="seed"), TypeError, "rng"),
    (dict(sampler=3), TypeError, "sampler"),
    (dict(x=X64 - 1), ValueError, "x"), (dict(x=X8), ValueError, "universe"),
    (dict(x=np.full(64, np.nan)), ValueError, "x"),
    (dict(rule="MW"), TypeError, "rule"), (dict(stream=np.full((2, 64), 2.0)), ValueError, "Q"),
])
def test_sv_bad_input(kw, err, name):
    with pytest.raises(err, match=name):
        _sv(**kw)


@pytest.mark.parametrize("kw, err, name", [
    (dict(epsilon=1.0, epsilon0=0.1), ValueError, "epsilon0"), (dict(), ValueError, "epsilon"),
    (dict(epsilon=1.0, delta=0.0), ValueError, "delta"), (dict(epsilon0=-1.0), ValueError, "epsilon0"),
    (dict(epsilon=1.0, b_max=-1), ValueError, "b_max"), (dict(epsilon=1.0, c_star=0.0), ValueError, "c_star"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
])
def test_alg1_bad_input(kw, err, name):
    args = dict(delta=1e-6)
    args.update(kw)
    with pytest.raises(err, match=name):
        online_idc(X64, MultiplicativeWeightsIDC(64, 0.1), W64, **args)


@pytest.mark.parametrize("kw, err, name", [
    (dict(epsilon=0.0), ValueError, "epsilon"), (dict(delta=-0.1), ValueError, "delta"),
    (dict(epsilon=2.0), ValueError, "epsilon"), (dict(rounds=0), ValueError, "rounds"),
    (dict(rule=None), TypeError, "rule"), (dict(n=-3), ValueError, "n"), (dict(trials=1.0), TypeError, "trials"),
])
def test_ic_bad_input(kw, err, name):
    args = dict(rule=MultiplicativeWeightsIDC(64, 0.2), epsilon=0.5, delta=1e-6)
    args.update(kw)
    with pytest.raises(err, match=name):
        iterative_construction(X64, W64, **args)


@pytest.mark.parametrize("make, err, name", [
    (lambda: MultiplicativeWeightsIDC(0, 0.1), ValueError, "N"), (lambda: MultiplicativeWeightsIDC(8, 2.5), ValueError, "alpha"),
    (lambda: MultiplicativeWeightsIDC(8.0, 0.1), TypeError, "N"), (lambda: MultiplicativeWeightsIDC(8, np.nan), ValueError, "alpha"),
    (lambda: MedianIDC(8, 0, 0.1), ValueError, "sample_size"),
    (lambda: MedianIDC(8, 30, 0.1), ValueError, "sample_size"),
    (lambda: MedianIDC(8, 2, -0.1), ValueError, "alpha"),
    (lambda: FriezeKannanIDC(8, 0.1, n=0), ValueError, "n"), (lambda: FriezeKannanIDC(8, 0.1, n=5, sq_norm=0), ValueError, "sq_norm"),
    (lambda: FixedStream(W64, [0, 200]), ValueError, "order"), (lambda: FixedStream(W64, [0.5]), ValueError, "order"),
    (lambda: AdversarialStream(W64, 0, reference=X64), ValueError, "T"),
    (lambda: AdversarialStream(W64, 5, below=0, reference=X64), ValueError, "below"),
    (lambda: project_histogram(CANCER, 11, [0, 0]), ValueError, "attributes"),
    (lambda: project_histogram(CANCER, 11, [11]), ValueError, "attribute"),
    (lambda: project_histogram(CANCER, 10, [1]), ValueError, "d"),
    (lambda: drive_with_oracle("MW", X64, W64), TypeError, "rule"),
    (lambda: drive_with_oracle(MultiplicativeWeightsIDC(64, 0.1), X64, W64, max_updates=-1), ValueError, "max_updates"),
    (lambda: is_update_sequence([], X64, MultiplicativeWeightsIDC(64, 0.1), W64, 0.0), ValueError, "alpha"),
])
def test_constructors_bad_input(make, err, name):
    with pytest.raises(err, match=name):
        make()


# =========================================================================== determinism

@pytest.mark.parametrize("run", [
    lambda seed: online_idc_sv(X64 * 100, MultiplicativeWeightsIDC(64, 0.1), AdversarialStream(W64, 30, reference=X64 * 100),
                               epsilon=0.9, delta=1e-6, c=5, trials=3, rng=seed).answers,
    lambda seed: online_idc(X64 * 100, MultiplicativeWeightsIDC(64, 0.1), AdversarialStream(W64, 30, reference=X64 * 100),
                            epsilon=1.0, delta=1e-6, b_max=5, trials=3, rng=seed).answers,
    lambda seed: online_idc_sv(X8 * 100, MedianIDC(8, 3, 0.3), AdversarialStream(W8, 20, reference=X8 * 100),
                               epsilon=0.9, delta=1e-6, trials=3, rng=seed).answers,
    lambda seed: iterative_construction(X64 * 100, W64, rule=MultiplicativeWeightsIDC(64, 0.2), epsilon=0.9,
                                        delta=1e-6, rounds=5, trials=2, rng=seed).answers,
    lambda seed: online_mw_dr(X64 * 1000, AdversarialStream(W64, 20, reference=X64 * 1000), alpha=0.2, epsilon=0.9, trials=3,
                              rng=seed).answers,
])
def test_determinism(run):
    assert np.array_equal(run(42), run(42))
    assert not np.array_equal(run(42), run(43))


def test_single_run_shapes_and_stream_coercion():
    rel = online_idc_sv(X64, MultiplicativeWeightsIDC(64, 0.2), W64, epsilon=0.5, delta=1e-6, rng=1)
    assert rel.answers.shape == (W64.m,) and isinstance(rel.updates, int) and isinstance(rel.halted, bool)
    assert np.array_equal(rel.queries, np.arange(W64.m))
    assert isinstance(as_stream(W64), FixedStream) and rel.errors(X64).per_query.shape == (1, W64.m)


# =========================================================================== theory: hand-computed values

def test_theory_idc_bounds_hand_values():
    assert th.mw_bound(0.1, 64) == pytest.approx(4 * math.log(64) / 0.01)
    assert th.median_sample_size(255, 0.25) == 50                   # floor(ln 510 / 0.125) + 1 = floor(49.9) + 1
    assert th.median_collection_size(8, 4) == 330 and th.median_bound(8, 4) == 8          # 2^8 = 256 <= 330 < 512
    assert th.median_bound(2, 1) == 1 and th.median_bound(8, 6) == 10                       # C(13,6) = 1716
    assert th.median_bound_approx(0.5, 8, 10) == pytest.approx(3 * math.log(20) / 0.5)
    assert th.fk_bound(10.0, 100.0, 64) == pytest.approx(64.0) and th.fk_step(0.5, 10) == 0.05
    assert th.fk_potential_drop(2.0, 8) == 0.5


def test_theory_alg1_hand_values():
    assert th.alg1_threshold(0.3) == pytest.approx(0.2) and th.alg1_error_bound(0.2) == pytest.approx(0.3)
    assert th.alg1_min_threshold(100, 0.05, 0.5, 1000) == pytest.approx(2 * math.log(2000) / 500)
    assert th.alg1_accuracy_alpha(100, 0.05, 0.5, 1000) == pytest.approx(3 * math.log(2000) / 500)
    assert th.p0(0.5) == pytest.approx(0.5 * math.exp(-1))
    assert th.non_r0_rounds_bound(9, 2e-4, 0.5) == pytest.approx((20 + 8 * math.log(1e4)) / (0.5 * math.exp(-1)))
    assert th.azuma_bound(8, 0.5, 2 / math.e) == pytest.approx(8 * 0.5 * math.expm1(0.5) + 2 * 0.5 * 4 * 1.0)
    eps0 = th.thm41_epsilon0(1.0, 20, 1e-6)
    assert th.thm41_epsilon(eps0, 20, 1e-6) == pytest.approx(1.0, rel=1e-9)
    assert th.thm41_epsilon(eps0 * 1.01, 20, 1e-6) > 1.0
    assert th.thm41_epsilon0(1e6, 20, 1e-6) == 0.5                   # capped at min(1/2, 1/c*) (Claim 4.4: ε* <= 1)
    assert th.thm41_epsilon0(1e6, 20, 1e-6, c_star=4) == 0.25
    assert th.effective_c_gru(1.0, 0.01, 100, math.exp(-1)) == pytest.approx(10.0)


def test_theory_eq3_and_corollaries():
    """IDC-Eq(3) solved by bisection equals the closed forms of Cor 4.10 (MW, Median) and Cor 5.2 (FK)."""
    args = (200, 0.05, 1.0, 1e-6, 10 ** 6, 12.0)
    mw = th.best_alpha(lambda a: th.mw_bound(a, 2048), *args)
    assert mw == pytest.approx(th.mw_online_alpha(2048, *args), rel=1e-9)
    assert mw == pytest.approx(math.sqrt(18 * 12) * (math.log(2048) * math.log(1e6)) ** 0.25
                               * math.sqrt(math.log(4000) / 1e6))
    med = th.best_alpha(lambda a: th.median_bound_approx(a, 2048, 200), *args)
    assert med == pytest.approx(th.median_online_alpha(2048, *args), rel=1e-9)
    n, N = 10 ** 4, 4096                      # a set: ||D||² = n; FK's bound in normalised units is N/(n a²)
    fk = th.best_alpha(lambda a: N / (n * a ** 2), 200, 0.05, 1.0, 1e-6, n, 12.0)
    assert fk * n == pytest.approx(th.fk_online_alpha_counts(math.sqrt(n), N, 200, 0.05, 1.0, 1e-6, 12.0), rel=1e-9)


def test_theory_alg1_best_alpha_is_the_fixed_point():
    """alg1_best_alpha solves α = 3 ln(m/β)/(ε0(α) n) with ε0 from the reconstructed Thm 4.1 at B(α/3)."""
    bound = lambda a: th.mw_bound(a, 64)
    a = th.alg1_best_alpha(bound, 100, 0.05, 1.0, 1e-6, 10 ** 6)
    eps0 = th.thm41_epsilon0(1.0, math.floor(bound(a / 3)), 1e-6)
    assert a == pytest.approx(3 * math.log(100 / 0.05) / (eps0 * 10 ** 6), rel=1e-6)
    # and it scales like n^{-1/2} (Cor 4.10)
    a100 = th.alg1_best_alpha(bound, 100, 0.05, 1.0, 1e-6, 10 ** 8)
    assert a100 / a == pytest.approx(0.1, rel=0.02)


def test_theory_remembered_steps_are_the_functions_themselves():
    """The root searches remember thm41_epsilon0 and sv_epsilon0_tight: the remembered values are those of the
    functions, bit for bit, and the searches give what the functions' own values give (a stale or mis-keyed
    memory would not)."""
    for args in ((1.0, 1663, 1e-6, 2.0), (0.5, 40, 1e-9, 2.0), (1.0, 1663, 1e-6, 1.5)):
        assert th._thm41_epsilon0_cached(*args) == th.thm41_epsilon0(*args)
    for args in ((0.9, 1e-6, 1663), (0.9, 1e-9, 7), (0.5, 1e-6, 1663)):
        assert th._sv_epsilon0_tight_cached(*args) == th.sv_epsilon0_tight(*args)
    a_u, b = th.sv_best_error_bound(2 ** 16, 512, 0.05, 0.9, 1e-6, 179_700, tight=True)
    c = th.sv_updates(th.mw_bound(a_u, 2 ** 16))
    assert b == a_u + 2.0 * th.sv_alpha_sv(c, 512, 0.05, th.sv_epsilon0_tight(0.9, 1e-6, c), 179_700)
    with pytest.raises(ValueError, match="c_star"):
        th.alg1_best_alpha(lambda a: th.mw_bound(a, 64), 100, 0.05, 1.0, 1e-6, 10 ** 6, c_star=-1.0)


def test_theory_dr_alg6():
    assert th.dr_alg6_alpha_ns(10, 5, 0.1, 0.5, 0.0, 100) == pytest.approx(
        numeric_sparse_alpha_corrected(20, 5, 0.1, 0.5, 0.0, 100))
    assert th.dr_alg6_alpha_ns(10, 5, 0.1, 0.5, 0.0, 100) == pytest.approx(9 * 5 * (math.log(20) + math.log(200)) / 50)
    assert th.dr_alg6_conditions(1.0, 0.4, 0.5) and not th.dr_alg6_conditions(1.0, 0.6, 0.5)
    assert not th.dr_alg6_conditions(1.0, 0.3, 0.8) and th.dr_alg6_error_bound(1.0, 0.4) == pytest.approx(1.4)
    alpha, c = th.dr_alg6_parameters(64, 100, 0.05, 0.9, 569_000)
    assert alpha == pytest.approx(th.dr_alg6_alpha_ns(100, c, 0.05, 0.9, 0.0, 569_000))
    assert c >= 4 * math.log(64) / alpha ** 2 and (c - 1) < 4 * math.log(64) / th.dr_alg6_alpha_ns(
        100, c - 1, 0.05, 0.9, 0.0, 569_000) ** 2
    # the box's threshold is exactly 2 α_NS when δ = 0
    assert th.dr_online_mw_threshold(c, 0.9, 0.0, 100, 0.05, 569_000) == pytest.approx(2 * alpha)


def test_theory_sv_and_ic_hand_values():
    assert th.sv_updates(415.9) == 415 and th.sv_updates(0.3) == 1
    assert th.sv_epsilon0(0.8, math.exp(-4), 4) == pytest.approx(0.8 / 16)
    assert th.sv_epsilon0(0.8, 0.0, 4) == pytest.approx(0.1)
    assert th.sv_alpha_sv(10, 30, 0.3, 0.5, 4) == pytest.approx((2 * math.log(100) + 4 * math.log(300)) / 2)
    assert th.sv_alpha_l(10, 0.3, 0.5, 4) == pytest.approx(math.log(100) / 2)
    assert th.sv_threshold(0.1, 0.05) == pytest.approx(0.15) and th.sv_error_bound(0.1, 0.05) == pytest.approx(0.2)
    assert th.sv_privacy_epsilon(0.1, 3, 0.0) == pytest.approx(0.6)
    assert th.sv_privacy_epsilon(0.1, 3, 1e-6) == pytest.approx(math.sqrt(12 * math.log(1e6)) * 0.1 + 0.6 * math.expm1(0.1))
    assert th.sv_privacy_epsilon(th.sv_epsilon0(0.9, 1e-6, 50), 50, 1e-6) <= 0.9
    assert th.dr_online_mw_threshold(4, 1.0, 0.0, 10, 0.5, 2) == pytest.approx(72 * (math.log(20) + math.log(32)) / 2)
    assert th.dr_online_mw_threshold(4, 1.0, 2 * math.exp(-1), 10, 0.5, 1) == pytest.approx(
        (2 + 32 * math.sqrt(2)) * 2 * (math.log(10) + math.log(32)))
    assert th.distinguisher_F(100, 0.01, 0.5, 10) == pytest.approx(2 * math.log(1e4) / 5)
    assert th.ic_gamma(0.1, 5) == pytest.approx(0.01)
    assert th.ic_epsilon0(0.8, math.exp(-4), 4) == pytest.approx(0.05) and th.ic_epsilon0(0.8, 0.0, 4) == 0.1
    assert th.ic_privacy_epsilon(0.05, 4, math.exp(-4)) == pytest.approx(8 * 0.05 + 8 * 0.05 * math.expm1(0.05))
    assert th.ic_alpha_condition(5, 0.1, 0.5, 10, 100) == pytest.approx(max(8 * math.log(100) / 5,
                                                                            8 * 2 * (math.log(100) + math.log(100)) / 5))


@pytest.mark.parametrize("call, name", [
    (lambda: th.mw_bound(0, 8), "alpha"), (lambda: th.median_sample_size(0, 0.1), "m"),
    (lambda: th.median_bound(8, 0), "sample_size"), (lambda: th.fk_bound(1.0, -1.0, 8), "sq_norm"),
    (lambda: th.non_r0_rounds_bound(5, 0.0, 0.1), "delta"), (lambda: th.azuma_bound(-1, 0.1, 0.1), "T"),
    (lambda: th.thm41_epsilon0(float("nan"), 5, 0.1), "epsilon"), (lambda: th.sv_epsilon0(1.0, 1e-6, 5), "epsilon"),
    (lambda: th.sv_alpha_sv(0, 5, 0.1, 0.1, 10), "c"), (lambda: th.best_alpha(3, 5, 0.1, 1, 1e-6, 10, 1), "bound"),
    (lambda: th.ic_epsilon0(0.5, 1e-6, 0), "B"), (lambda: th.distinguisher_F(5, 0.0, 0.1, 10), "gamma"),
    (lambda: th.effective_c_gru(1.0, 0.1, 10, 0.0), "delta"), (lambda: th.sv_updates(float("inf")), "B"),
])
def test_theory_bad_input(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


# =========================================================================== the analyst sees only the release

class _SpyStream:
    """A custom stream recording what it is shown; asks query (t mod 2) of a two-query workload."""

    def __init__(self, T):
        self.workload, self.T, self.views = ONE_TWO, T, []

    def pick(self, t, view):
        self.views.append(view)
        return t % 2


ONE_TWO = MatrixWorkload(np.eye(2))                                 # the count of each of two elements


def test_stream_is_shown_only_the_released_transcript():
    """Before round t the stream gets the first t released answers, queries and ⊤ flags, the hypotheses and the
    public n — read-only — and nothing computed from x."""
    x = np.array([830, 170])
    spy = _SpyStream(6)
    rel = online_idc_sv(x, MultiplicativeWeightsIDC(2, 0.2), spy, epsilon=1.0, delta=0.0, c=2, trials=3, rng=0)
    assert [v.t for v in spy.views] == list(range(6))
    for v in spy.views:
        assert set(vars(v)) == {"t", "rule", "workload", "hypothesis", "answers", "queries", "updated", "n"}
        assert v.n == 1000 and v.answers.shape == (3, v.t) and v.hypothesis.shape == (3, 2)
        assert np.array_equal(v.answers, rel.answers[:, :v.t]) and np.array_equal(v.updated, rel.updated[:, :v.t])
        assert not any(getattr(v, f).flags.writeable for f in ("hypothesis", "answers", "queries", "updated"))
    with pytest.raises(ValueError, match="read-only"):
        spy.views[-1].answers[0, 0] = 1.0


def test_adversarial_stream_is_the_same_analyst_on_neighbours():
    """The stream's picks depend on the release and its fixed reference only: on neighbours that differ in one
    row, with the same seed and no update, the queries asked are identical (the old loop asked query 0 on x and
    query 1 on x' in the very first round)."""
    x, x_prime = np.array([83, 17]), np.array([82, 17])
    runs = {}
    for name, data in (("x", x), ("x'", x_prime)):
        stream = AdversarialStream(ONE_TWO, 4, reference=x)
        runs[name] = online_idc_sv(data, MultiplicativeWeightsIDC(2, 0.2), stream, epsilon=1.0, delta=0.0, beta=1.0,
                                   n=100, c=1, trials=400, rng=7)
    same = ~runs["x"].updated.any(axis=1) & ~runs["x'"].updated.any(axis=1)
    assert same.sum() > 100 and np.array_equal(runs["x"].queries[same], runs["x'"].queries[same])
    assert np.all(runs["x'"].queries[:, 0] == 0)                        # the reference's worst query, not x''s
    old = online_idc_sv_stream_sees_data(x_prime, MultiplicativeWeightsIDC(2, 0.2), AdversarialStream(ONE_TWO, 4, reference=x),
                                         epsilon=1.0, delta=0.0, beta=1.0, n=100, c=1, trials=50, rng=7)
    assert np.all(old.queries[:, 0] == 1)                               # the twin's analyst reads x' itself


def test_adversarial_stream_with_the_data_as_reference_is_the_old_worst_case():
    """With reference = x the strategy asks where the hypothesis is really most wrong: every pick is the argmax
    of |hypothesis answers - true answers| at the time it was made (the hypotheses replayed from the release)."""
    x = X64 * 300
    rule = MultiplicativeWeightsIDC(64, 0.1)
    rel = online_idc_sv(x, rule, AdversarialStream(W64, 30, reference=x), epsilon=0.9, delta=1e-6, c=6, trials=4,
                        rng=11)
    true = W64.answers(x)
    for r in range(4):
        state = rule.initial(1)
        for i in range(30):
            err = np.abs(rule.answers(state, W64)[0] - true)
            assert rel.queries[r, i] == int(np.argmax(err))
            if rel.updated[r, i]:                                       # the update uses the released answer
                state = rule.update_query(state, W64, rel.queries[r, i:i + 1], rel.answers[r, i:i + 1])
        assert np.allclose(state[0], rel.hypothesis[r])
    assert rel.updated.sum() >= 4


@pytest.mark.parametrize("make, err, name", [
    (lambda: AdversarialStream(W64, 5), TypeError, "reference"),
    (lambda: AdversarialStream(W64, 5, reference=X8), ValueError, "reference"),
    (lambda: AdversarialStream(W64, 5, reference=-X64), ValueError, "reference"),
    (lambda: AdversarialStream(W64, 5, reference=np.full(64, np.nan)), ValueError, "reference"),
    (lambda: AdversarialStream(W64, 5, reference="x"), TypeError, "reference"),
])
def test_adversarial_stream_bad_reference(make, err, name):
    with pytest.raises(err, match=name):
        make()


class _OldStyleStream:
    T, workload = 3, ONE_TWO

    def pick(self, t, rule, state, W, true):                           # the old interface: the true answers
        return int(np.argmax(true))


class _BadPick:
    T, workload = 2, ONE_TWO

    def __init__(self, value):
        self.value = value

    def pick(self, t, view):
        return self.value


@pytest.mark.parametrize("stream, err, match", [
    (_OldStyleStream(), TypeError, "stream.pick must take \\(t, view\\)"),
    (_BadPick(5), ValueError, "outside the workload's 2 queries"),
    (_BadPick(-1), ValueError, "outside"),
    (_BadPick(0.5), ValueError, "stream.pick must return a workload index"),
    (_BadPick(np.zeros(7, dtype=int)), ValueError, "one per run"),
])
def test_custom_streams_are_checked(stream, err, match):
    with pytest.raises(err, match=match):
        online_idc_sv(np.array([5, 5]), MultiplicativeWeightsIDC(2, 0.2), stream, epsilon=1.0, delta=0.0, c=1,
                      trials=3, rng=0)


# =========================================================================== no noise in the release

def test_online_idc_release_carries_no_noise_and_debug_is_not_a_release():
    from dpbook.idc import NotARelease
    from dpbook.release import PrivateResult
    x, rule, stream = X64 * 100, MultiplicativeWeightsIDC(64, 0.1), FixedStream(W64, np.arange(20))
    kw = dict(epsilon=1.0, delta=1e-6, b_max=5, trials=3, rng=2)
    rel = online_idc(x, rule, stream, record=True, **kw)
    assert set(rel.trace) == {"hypothesis_answers", "active"}
    assert online_idc(x, rule, stream, **kw).trace is None
    rel2, internals = online_idc(x, rule, stream, record=True, debug=True, **kw)
    assert np.array_equal(rel2.answers, rel.answers)                        # the same run, the same release
    assert isinstance(internals, NotARelease) and not isinstance(internals, PrivateResult)
    assert not hasattr(internals, "epsilon") and not hasattr(internals, "released") and "NOT A RELEASE" in internals.warning
    Z = internals["noise"]
    assert Z.shape == (3, 20) and not Z.flags.writeable
    true = (W64.counts(x) / x.sum())[rel.queries]
    assert np.allclose(rel.answers[rel.updated], (true + Z)[rel.updated])  # the noise reveals the true answers
    single = online_idc(x, rule, stream, epsilon=1.0, delta=1e-6, b_max=5, rng=2, debug=True)[1]
    assert single["noise"].shape == (20,)
    for bad in ("yes", 1):
        with pytest.raises(TypeError, match="debug"):
            online_idc(x, rule, stream, debug=bad, **kw)
    with pytest.raises(TypeError, match="record"):
        online_idc(x, rule, stream, record="yes", **kw)
    with pytest.raises(ValueError, match="epsilon"):
        online_idc_sv_stream_sees_data(x, rule, stream, epsilon=math.nan, delta=0.0)


def test_offline_ic_refuses_queries_outside_the_unit_range():
    from dpbook.graphs import cut_workload
    W = cut_workload(3, [([0, 1], [0, 1])])
    with pytest.raises(ValueError, match=r"workload has entries in \[0, 2\]"):
        iterative_construction(np.array([1, 0, 1]), W, rule=MultiplicativeWeightsIDC(3, 0.3), epsilon=1.0, delta=0.0,
                               rounds=1, rng=0)


def _recorder():
    spec = importlib.util.spec_from_file_location("record_fixed_seed_outputs",
                                                  ROOT / "tests" / "data" / "record_fixed_seed_outputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.record


def test_outputs_for_fixed_seeds_are_the_ones_recorded_before_the_refactor():
    """online_idc_sv, online_idc, online_mw_dr (fixed and adversarial streams; MW, FK and Median rules),
    iterative_construction, drive_with_oracle, mwem (marginal / dense / range workloads, 1, 3 and 20 runs, with
    replay), mwem_practical and smalldb: the same outputs as before the one-loop refactor, up to rounding (the
    hypotheses' answers are now computed by the workload, e.g. slab sums instead of dot products: the last bits
    may differ, every decision — updates, selections, rounds — is identical)."""
    expected = json.loads((ROOT / "tests" / "data" / "fixed_seed_outputs.json").read_text())
    got = _recorder()()
    assert got.keys() == expected.keys()
    for key, fields in expected.items():
        for field, value in (fields.items() if isinstance(fields, dict) else [("", fields)]):
            now = got[key][field] if field else got[key]
            if field in ("updated", "selected", "rounds_used", "updates", "y"):
                assert np.array_equal(now, value), (key, field)
            else:
                np.testing.assert_allclose(now, value, rtol=1e-9, atol=1e-12, err_msg=f"{key} {field}")


class _NoMatrix(MatrixWorkload):
    def matrix(self):
        raise AssertionError("matrix() was called")


class _Implicit(MarginalWorkload):
    def matrix(self):
        raise AssertionError("matrix() was called")

    def query(self, i):
        raise AssertionError("query() was called: an N-vector per query of an implicit workload")


def test_idc_smalldb_and_mwem_never_densify_the_workload():
    from dpbook.mwem import mwem, mwem_practical
    from dpbook.smalldb import candidate_errors, net_mechanism, smalldb, subsample_errors
    cancer = load_cancer().x
    x = project_histogram(cancer, 11, [0, 1, 2, 3, 4, 10])
    W = _Implicit(6, k_way_marginals(6, 2).cells)
    n = int(x.sum())
    for rule in (MultiplicativeWeightsIDC(64, 0.1), FriezeKannanIDC(64, 0.1, n=n)):
        for stream in (FixedStream(W), AdversarialStream(W, 20, reference=x)):
            rel = online_idc_sv(x, rule, stream, epsilon=0.9, delta=1e-6, c=4, trials=3, rng=0, logs=True)
            rel.hypothesis_errors(rule, x)
            online_idc(x, rule, stream, epsilon=0.9, delta=1e-6, b_max=3, trials=2, rng=0, record=True)
        iterative_construction(x, W, rule=rule, epsilon=0.9, delta=1e-6, rounds=3, trials=2, rng=0)
        run = drive_with_oracle(rule, x, W, max_updates=5)
        assert is_update_sequence(run.log, x, rule, W, rule.alpha)
    online_mw_dr(x, AdversarialStream(W, 20, reference=x), alpha=0.2, epsilon=1.0, delta=1e-6, c=4, trials=2, rng=0)
    mwem(x, W, epsilon=1.0, T=4, trials=3, rng=0, replay=1)
    mwem_practical(x, W, epsilon=1.0, T=3, n=n, trials=2, rng=0)
    mwem_practical(x, W, epsilon=1.0, T=3, n=n, measure="cell", replay=2, rng=0)
    x8 = project_histogram(cancer, 11, [0, 3, 10])
    W8 = _NoMatrix(((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float))
    med = MedianIDC(8, 4, alpha=0.2)
    med.best_accuracy(x8, W8)
    online_idc_sv(x8, med, AdversarialStream(W8, 10, reference=x8), epsilon=0.9, delta=1e-6, c=3, trials=2, rng=0)
    drive_with_oracle(med, x8, W8)
    W3 = _NoMatrix(k_way_marginals(3, 2).matrix())
    x3 = project_histogram(cancer, 11, [0, 1, 2])
    out = smalldb(x3, W3, epsilon=1.0, alpha=0.6, trials=3, rng=0)
    np.testing.assert_allclose(out.evaluate(W3), out.answers)
    net_mechanism(x3, W3, out.y, epsilon=1.0, rng=0)
    candidate_errors(x3, W3, out.y)
    subsample_errors(x3, W3, 4, trials=5, rng=0)


def test_the_release_protocol():
    """OnlineRelease and SyntheticDatabase carry epsilon, delta, neighbours, mechanism, a Ledger that composes to
    the claim, a trace (a mapping or None) and `released`."""
    from dpbook.release import Ledger, compose
    from dpbook.smalldb import smalldb
    cancer = load_cancer().x
    x = project_histogram(cancer, 11, [0, 1, 2, 3])
    W = k_way_marginals(4, 2)
    rels = [online_idc_sv(x, MultiplicativeWeightsIDC(16, 0.2), FixedStream(W), epsilon=0.9, delta=1e-6, rng=0),
            online_idc(x, MultiplicativeWeightsIDC(16, 0.2), FixedStream(W), epsilon=0.9, delta=1e-6, rng=0),
            online_mw_dr(x, FixedStream(W), alpha=0.3, epsilon=0.9, delta=1e-6, rng=0),
            smalldb(project_histogram(cancer, 11, [0, 1]), k_way_marginals(2, 1), epsilon=1.0, alpha=0.9, rng=0)]
    for rel in rels:
        assert isinstance(rel.ledger, Ledger) and rel.neighbours in ("add/remove", "replace-one")
        assert isinstance(rel.epsilon, float) and isinstance(rel.delta, float) and isinstance(rel.mechanism, str)
        assert rel.trace is None or hasattr(rel.trace, "keys")
        eps, dlt = compose(rel.ledger)
        assert eps <= rel.epsilon * (1 + 1e-12) and dlt <= rel.delta + 1e-18
        assert rel.released is (rel.answers if hasattr(rel, "queries") else rel.y)


def test_rules_on_workload_queries_equal_the_rules_on_query_vectors():
    """update_query / evaluate_query / answers(state, W) (what the mechanisms use) equal the vector protocol of
    the paper (update / evaluate / answers on the matrix) and the generic adjoint path IDC.update_query."""
    from dpbook.idc import IDC
    W = k_way_marginals(6, 2)
    Q = W.matrix()
    rng = np.random.default_rng(4)
    W8 = MatrixWorkload(((np.arange(1, 256)[:, None] >> np.arange(8)) & 1).astype(float))
    for rule, WW, QQ in ((MultiplicativeWeightsIDC(64, 0.2), W, Q), (FriezeKannanIDC(64, 0.1, n=500), W, Q),
                         (MedianIDC(8, 3, alpha=0.2), W8, W8.matrix())):
        state = rule.initial(6)
        if isinstance(rule, MedianIDC):
            state = rng.random(state.shape) < 0.5
        else:
            state = rule.update_query(state, WW, 3, np.full(6, 0.9))
        picks = rng.integers(0, WW.m, 6)
        a = rng.random(6)
        np.testing.assert_allclose(rule.evaluate_query(state, WW, picks), rule.evaluate(state, QQ[picks]), rtol=1e-12)
        np.testing.assert_allclose(rule.evaluate_query(state, WW, 7), rule.evaluate(state, QQ[7]), rtol=1e-12)
        np.testing.assert_allclose(rule.answers(state, WW), rule.answers(state, QQ), rtol=1e-12, atol=1e-15)
        for j in (picks, 7):
            q = QQ[j]
            np.testing.assert_allclose(rule.update_query(state, WW, j, a), rule.update(state, q, a), rtol=1e-12)
            np.testing.assert_allclose(IDC.update_query(rule, state, WW, j, a), rule.update(state, q, a), rtol=1e-12)


def test_online_idc_on_4992_cells_never_densifies_and_meets_its_bound(monkeypatch):
    """IDC-Alg1-SV (tight) on the m = 4992 workload: no m x N matrix, ledger composes to the claim, accurate."""
    BETA, EPS, DELTA = 0.05, 0.9, 1e-6
    x, W = digits_histogram(1000), digits_marginals(ks=(1, 2, 3))
    monkeypatch.setattr(MarginalWorkload, "matrix", lambda self: pytest.fail("W.matrix() called"))
    n = int(x.sum())
    m = 200
    a_u, bound = th.sv_best_error_bound(2 ** 16, m, BETA, EPS, DELTA, n, tight=True)
    order = np.random.default_rng(0).permutation(W.m)[:m]
    rel = online_idc_sv(x, MultiplicativeWeightsIDC(2 ** 16, a_u), FixedStream(W, order), epsilon=EPS, delta=DELTA,
                        beta=BETA, n=n, trials=16, rng=1, composition="tight")
    assert rel.params["error_bound"] == pytest.approx(bound)
    assert failure_rate(rel.errors(x).max, rel.params["error_bound"]).consistent_with(BETA)
    assert rel.ledger.rule == "advanced" and compose(rel.ledger)[0] == pytest.approx(EPS, abs=1e-9)
    assert compose(rel.ledger)[0] <= EPS * (1 + 1e-12)


# =========================================================================== the rules by name and the public threshold
def test_threshold_for_each_split_hand_computed():
    BETA, EPS, DELTA = 0.05, 0.9, 1e-6
    rule = MultiplicativeWeightsIDC(64, 0.1)
    c = th.sv_updates(rule.bound())
    n, m = 569_000, 100
    for split, e0 in (("corollary", th.sv_epsilon0(EPS, DELTA, c)), ("tight", th.sv_epsilon0_tight(EPS, DELTA, c))):
        want = th.sv_threshold(0.1, th.sv_alpha_sv(c, m, BETA, e0, n))
        assert th_sv_threshold_for(rule, m, EPS, DELTA, BETA, n, split) == pytest.approx(want, rel=1e-12)
    assert th_sv_threshold_for(rule, m, EPS, DELTA, BETA, n) == th_sv_threshold_for(rule, m, EPS, DELTA, BETA, n,
                                                                                    "corollary")
    assert (th_sv_threshold_for(rule, m, EPS, DELTA, BETA, n, "tight")
            < th_sv_threshold_for(rule, m, EPS, DELTA, BETA, n, "corollary"))
    with pytest.raises(ValueError, match="composition"):
        th_sv_threshold_for(rule, m, EPS, DELTA, BETA, n, "basic")


def test_promised_drop_is_each_proofs_amount():
    assert promised_drop(MultiplicativeWeightsIDC(64, 0.1)) == pytest.approx(0.1 ** 2 / 4)
    assert promised_drop(FriezeKannanIDC(64, 0.1, n=100)) == pytest.approx(0.1 ** 2 / 64)
    assert promised_drop(MedianIDC(8, 2, alpha=0.2)) == 1.0
    with pytest.raises(TypeError, match="rule"):
        promised_drop("MW")


def test_make_rule_by_name():
    assert isinstance(make_rule("MW", 8, 0.1, 100), MultiplicativeWeightsIDC)
    assert isinstance(make_rule("Median", 8, 0.2, 100, sample_size=2), MedianIDC)
    assert isinstance(make_rule("FK", 8, 0.1, 100), FriezeKannanIDC)
    for kw, exc, name in ((dict(idc="XX"), ValueError, "idc"), (dict(idc=1), TypeError, "idc"),
                          (dict(n=0), ValueError, "n"), (dict(sample_size=0), ValueError, "sample_size"), (dict(N=0), ValueError, "N")):
        with pytest.raises(exc, match=name):
            make_rule(**dict(dict(idc="MW", N=8, alpha=0.1, n=100), **kw))
    with pytest.raises(TypeError, match="rule"):
        th_sv_threshold_for("MW", 10, 0.9, 1e-6, 0.05, 1000)
