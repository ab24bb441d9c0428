"""MWEM (HLM12, [RECALLED]): ledger, accuracy vs its bound, audits of each primitive step and of
the transcript with broken controls, fast marginal answers, bad input, determinism, and theory/mwem."""
import math

import numpy as np
import pytest

from dpbook.audit import audit
from dpbook.broken.mwem import mwem_argmax_select, mwem_no_round_split, mwem_wrong_sign
from dpbook.data import add_row, bootstrap, histogram, load_cancer
from dpbook.experiments import failure_rate
from dpbook.multiplicative_weights import marginal_layout
from dpbook.mwem import mwem
from dpbook.noise import laplace_noise
from dpbook.queries import MarginalWorkload, k_way_marginals, random_queries
from dpbook.theory.mwem import (hlm_error_bound, hlm_failure_probability, hlm_optimal_rounds, hlm_sample_complexity,
                                mw_sample_complexity, mwem_epsilon_split, mwem_measurement_scale)

CANCER = load_cancer()
W2 = k_way_marginals(11, 2)


# --------------------------------------------------------------------------- answers on hypotheses


# --------------------------------------------------------------------------- release and ledger

@pytest.mark.parametrize("T", [1, 3, 7, 30])
def test_ledger_adds_up_to_the_claim(T):
    epsilon = 0.7
    r = mwem(CANCER.x, W2, epsilon=epsilon, T=T, rng=0)
    assert len(r.ledger) == 2 * T
    assert [s.step.split(": ")[1] for s in r.ledger] == ["exponential mechanism (select)", "laplace (measure)"] * T
    assert all(s.epsilon == epsilon / (2 * T) and s.delta == 0.0 for s in r.ledger)
    assert math.isclose(math.fsum(s.epsilon for s in r.ledger), epsilon, rel_tol=1e-12)
    assert (r.epsilon, r.delta, r.mechanism) == (epsilon, 0.0, "mwem")
    assert math.isclose(r.noise_scale, 2 * T / (epsilon * CANCER.n), rel_tol=1e-12)
    assert (r.trace["epsilon_select"], r.trace["epsilon_measure"]) == mwem_epsilon_split(epsilon, T)


def test_release_shapes_and_consistency():
    r = mwem(CANCER.x, W2, epsilon=1.0, T=5, trials=3, rng=0)
    assert r.answers.shape == (3, W2.m) and r.trace["synthetic"].shape == (3, CANCER.N)
    assert r.trace["selected"].shape == (3, 5) and r.trace["measurements"].shape == (3, 5)
    # answers are those of the averaged hypothesis Ā (a probability vector)
    np.testing.assert_allclose(r.trace["synthetic"].sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(r.answers, W2.counts(r.trace["synthetic"]), atol=1e-12)
    assert r.answers.min() >= 0 and r.answers.max() <= 1
    one = mwem(CANCER.x, W2, epsilon=1.0, T=5, rng=0)
    assert one.answers.shape == (W2.m,) and one.trace["selected"].shape == (5,)
    # a general (matrix) workload takes the general update path and agrees with its own answers
    Q = random_queries(20, CANCER.N, rng=3)
    g = mwem(CANCER.x, Q, epsilon=1.0, T=4, trials=2, rng=0)
    np.testing.assert_allclose(g.answers, g.trace["synthetic"] @ Q.Q.T, atol=1e-12)
    # replay is post-processing: the same ledger
    rp = mwem(CANCER.x, W2, epsilon=1.0, T=5, replay=2, rng=0)
    assert rp.ledger == one.ledger and rp.trace["replay"] == 2


def test_batched_trials_match_single_runs_in_distribution_of_steps():
    # the batched update (grouped slabs) equals the one-vector update on the same transcript
    r = mwem(CANCER.x, W2, epsilon=2.0, T=6, trials=4, rng=5)
    from dpbook.multiplicative_weights import marginal_cell_update, uniform_hypothesis
    true = W2.counts(CANCER.x)
    n = CANCER.n
    for t in range(4):
        p, total = uniform_hypothesis(CANCER.N), np.zeros(CANCER.N)
        for j, m_j in zip(r.trace["selected"][t], r.trace["measurements"][t]):
            here = W2.counts(p)[j]
            S, v = W2.cells[j]
            p = marginal_cell_update(p, 11, S, v, (m_j - n * here) / (2 * n))
            total += p
        np.testing.assert_allclose(r.trace["synthetic"][t], total / 6, rtol=1e-10, atol=1e-15)
    assert true.shape == (W2.m,)


# --------------------------------------------------------------------------- accuracy vs the HLM bound

def _accuracy_setup():
    x = bootstrap(CANCER.x, 10_000_000, rng=11)
    W = k_way_marginals(11, 4)                                   # m = 5280 cells
    T, epsilon = 200, 1.0
    bound = hlm_error_bound(int(x.sum()), CANCER.N, W.m, T, epsilon)
    beta = hlm_failure_probability(T, W.m)
    return x, W, T, epsilon, bound, beta


def test_accuracy_against_hlm_bound():
    """HLM Thm 2.2 [RECALLED]: P[max error > 2 sqrt(ln N/T) + 10 T ln m/(εn)] <= 2T/m (normalised)."""
    x, W, T, epsilon, bound, beta = _accuracy_setup()
    assert 0.35 < bound < 0.4 and beta < 0.08                  # a bound that bites (not vacuous)
    r = mwem(x, W, epsilon=epsilon, T=T, trials=10, rng=12)
    max_err = np.abs(r.answers - W.answers(x)).max(axis=1)
    assert failure_rate(max_err, bound).consistent_with(beta)
    assert max_err.max() < 0.6 * bound                           # measured: far inside the recalled bound


def test_accuracy_check_catches_a_wrong_update():
    x, W, T, epsilon, bound, beta = _accuracy_setup()
    r = mwem_wrong_sign(x, W, epsilon=epsilon, T=T, trials=10, rng=12)
    max_err = np.abs(r.answers - W.answers(x)).max(axis=1)
    assert not failure_rate(max_err, bound).consistent_with(beta)


# --------------------------------------------------------------------------- privacy audits

def _pair():
    """n = 40 rows over {0,1}^3: attribute 0 is 1 in 30 rows, attributes 1, 2 balanced; x' adds u = (1,1,1).

    Under the public n = 40, the 1-way scores |20 - count| are 10, 10 (attribute 0), 0, 0, 0, 0; adding u moves
    the score of cell (0, 1) to 11 and the cells (1,1), (2,1) to 1: the exponential mechanism's pick shifts.
    """
    rows = np.array([[1, 1, 1]] * 10 + [[1, 0, 0]] * 10 + [[1, 1, 0]] * 5 + [[1, 0, 1]] * 5
                    + [[0, 1, 1]] * 5 + [[0, 0, 0]] * 5)
    x = histogram(rows @ np.array([4, 2, 1]), 8)
    return x, add_row(x, 7)


ONE_WAY = k_way_marginals(3, 1)
CELL = MarginalWorkload(3, [((0, 1), (1, 1))])                  # one query, containing u = (1,1,1)


def _runs(mechanism, x, W, T, field, **kw):
    return lambda trials, rng: mechanism(x, W, epsilon=1.0, T=T, n=40, trials=trials, rng=rng,
                                         **kw).trace[field]


def test_audit_selection_step():
    """Round 1's selection is the exponential mechanism with ε/(2T) = 0.5: audit the pick on the pair."""
    x, x2 = _pair()
    events = {f"pick {j}": (lambda j: lambda s: s[:, 0] == j)(j) for j in range(ONE_WAY.m)}
    res = audit(_runs(mwem, x, ONE_WAY, 1, "selected"), _runs(mwem, x2, ONE_WAY, 1, "selected"), events,
                trials=200_000, rng=21)
    assert res.epsilon_lb <= 0.5
    broken = audit(_runs(mwem_argmax_select, x, ONE_WAY, 1, "selected"),
                   _runs(mwem_argmax_select, x2, ONE_WAY, 1, "selected"), events, trials=20_000, rng=21)
    assert broken.epsilon_lb > 0.5


def test_audit_measurement_step():
    """Round 1's measurement is Laplace Lap(2T/ε) on one count: the event {m > c + 1} has ratio exactly e^{ε/(2T)}."""
    x, x2 = _pair()
    c = CELL.counts(x)[0]
    events = {"m > c+1": lambda m: m[:, 0] > c + 1, "m > c": lambda m: m[:, 0] > c, "m > c+3": lambda m: m[:, 0] > c + 3}
    res = audit(_runs(mwem, x, CELL, 1, "measurements"), _runs(mwem, x2, CELL, 1, "measurements"), events,
                trials=400_000, rng=22)
    assert 0.3 < res.epsilon_lb <= 0.5                           # tight: the true loss of this event is 0.5


def test_audit_transcript_and_broken_round_split():
    """T = 5 rounds on one query: all measurements above c + 1 has ratio e^{T·ε/(2T)} = e^{ε/2} <= e^ε;
    forgetting the /T makes it e^{Tε/2} = e^{2.5}."""
    x, x2 = _pair()
    c = CELL.counts(x)[0]
    events = {"all m > c+1": lambda m: np.all(m > c + 1, axis=1), "sum m > 5c+5": lambda m: m.sum(axis=1) > 5 * c + 5}
    res = audit(_runs(mwem, x, CELL, 5, "measurements"), _runs(mwem, x2, CELL, 5, "measurements"), events,
                trials=100_000, rng=23)
    assert res.epsilon_lb <= 1.0
    broken = audit(_runs(mwem_no_round_split, x, CELL, 5, "measurements"),
                   _runs(mwem_no_round_split, x2, CELL, 5, "measurements"), events, trials=100_000, rng=23)
    assert broken.epsilon_lb > 1.0


# --------------------------------------------------------------------------- determinism

def test_determinism():
    a = mwem(CANCER.x, W2, epsilon=1.0, T=8, trials=3, rng=7)
    b = mwem(CANCER.x, W2, epsilon=1.0, T=8, trials=3, rng=7)
    c = mwem(CANCER.x, W2, epsilon=1.0, T=8, trials=3, rng=8)
    assert np.array_equal(a.answers, b.answers) and np.array_equal(a.trace["selected"], b.trace["selected"])
    assert not np.array_equal(a.answers, c.answers)
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(mwem(CANCER.x, W2, epsilon=1.0, T=3, rng=g1).answers,
                          mwem(CANCER.x, W2, epsilon=1.0, T=3, rng=g2).answers)


def test_extreme_epsilon_stays_finite():
    for epsilon in (1e-6, 1e6):
        r = mwem(CANCER.x, W2, epsilon=epsilon, T=10, trials=2, rng=0)
        assert np.all(np.isfinite(r.answers)) and np.all(np.isfinite(r.trace["synthetic"]))
        np.testing.assert_allclose(r.trace["synthetic"].sum(axis=1), 1.0, rtol=1e-12)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, exc, name", [
    (dict(epsilon=0.0), ValueError, "epsilon"), (dict(epsilon=-1.0), ValueError, "epsilon"),
    (dict(epsilon=np.nan), ValueError, "epsilon"), (dict(epsilon=np.inf), ValueError, "epsilon"),
    (dict(epsilon="1"), TypeError, "epsilon"),
    (dict(T=0), ValueError, "T"), (dict(T=2.5), TypeError, "T"), (dict(T=True), TypeError, "T"),
    (dict(n=0), ValueError, "n"), (dict(n=10.5), TypeError, "n"),
    (dict(replay=-1), ValueError, "replay"), (dict(replay=1.0), TypeError, "replay"),
    (dict(trials=0), ValueError, "trials"), (dict(trials=2.5), TypeError, "trials"),
    (dict(rng="seed"), TypeError, "rng"), (dict(rng=-1), ValueError, "rng"),
    (dict(sampler="laplace"), TypeError, "sampler"),
])
def test_bad_parameters(kwargs, exc, name):
    args = dict(epsilon=1.0, T=3)
    args.update(kwargs)
    with pytest.raises(exc, match=name):
        mwem(CANCER.x, W2, **args)


@pytest.mark.parametrize("x, exc, name", [
    (np.full(2048, np.nan), ValueError, "x"), (-np.ones(2048), ValueError, "x"), (np.full(2048, 0.5), ValueError, "x"),
    (np.ones((2, 1024)), ValueError, "x"), (np.array(["a"] * 2048), TypeError, "x"), (np.zeros(2048), ValueError, "x"),
    (np.ones(1024, dtype=np.int64), ValueError, "workload"),
])
def test_bad_data(x, exc, name):
    with pytest.raises(exc, match=name):
        mwem(x, W2, epsilon=1.0, T=3)


def test_bad_workload():
    with pytest.raises(TypeError, match="workload"):
        mwem(CANCER.x, "marginals", epsilon=1.0, T=3)
    with pytest.raises(ValueError, match="workload"):
        mwem(CANCER.x, np.full((3, CANCER.N), 2.0), epsilon=1.0, T=3)


# --------------------------------------------------------------------------- theory/mwem: hand-computed values

def test_hlm_bounds_hand_computed():
    # n = 1000, N = 1024, m = 100, T = 16, ε = 1: 2 sqrt(6.931472/16) + 10·16·4.605170/1000 = 1.316384 + 0.736827
    assert math.isclose(hlm_error_bound(1000, 1024, 100, 16, 1.0), 2.0532116536, rel_tol=1e-9)
    assert math.isclose(hlm_failure_probability(16, 100), 0.32, rel_tol=1e-15)
    assert hlm_failure_probability(80, 100) == 1.0
    # T* = (1e5 · sqrt(ln 2048) / (10 ln 220))^(2/3) = (276127.1 / 53.93628)^(2/3) = 5119.54^(2/3) = 297.04
    assert math.isclose(hlm_optimal_rounds(100_000, 2048, 220, 1.0), 297.0426061547, rel_tol=1e-9)
    # n = 270 ln 2048 ln 220 / (1 · 0.1³) = 270 · 7.624619 · 5.393628 · 1000
    assert math.isclose(hlm_sample_complexity(0.1, 2048, 220, 1.0), 11103575.848431, rel_tol=1e-9)
    # PROJ-R4 shape: sqrt(ln 1024) · ln 100 · sqrt(ln 1e6) / (0.01 · 1) = 2.632769 · 4.605170 · 3.716922 / 0.01
    assert math.isclose(mw_sample_complexity(0.1, 1024, 100, 1.0, 1e-6), 4506.526035224, rel_tol=1e-9)
    assert mwem_epsilon_split(1.0, 10) == (0.05, 0.05)
    assert math.isclose(mwem_measurement_scale(0.5, 10), 40.0, rel_tol=1e-15)


def test_hlm_optimum_is_the_derived_minimum():
    n, N, m, eps = 1_000_000, 2048, 5280, 0.5
    T_star = hlm_optimal_rounds(n, N, m, eps)
    f = lambda T: 2 * math.sqrt(math.log(N) / T) + 10 * T * math.log(m) / (eps * n)     # continuous T
    assert f(T_star) < f(0.9 * T_star) and f(T_star) < f(1.1 * T_star)
    assert math.isclose(f(T_star), 3 * (math.log(N) * 10 * math.log(m) / (eps * n)) ** (1 / 3), rel_tol=1e-12)
    # the sample complexity inverts that optimum
    alpha = f(T_star)
    assert math.isclose(hlm_sample_complexity(alpha, N, m, eps), n, rel_tol=1e-9)


@pytest.mark.parametrize("fn, args, name", [
    (hlm_error_bound, (0, 1024, 10, 5, 1.0), "n"), (hlm_error_bound, (1.5, 1024, 10, 5, 1.0), "n"), (hlm_error_bound, (100, 0, 10, 5, 1.0), "N"),
    (hlm_error_bound, (100, 1024, 0, 5, 1.0), "m"), (hlm_error_bound, (100, 1024, 10, 0, 1.0), "T"),
    (hlm_error_bound, (100, 1024, 10, 5, np.nan), "epsilon"), (hlm_failure_probability, (1.5, 10), "T"),
    (hlm_optimal_rounds, (100, 1024, 1, 1.0), "m"), (hlm_sample_complexity, (0.0, 1024, 10, 1.0), "alpha"),
    (mw_sample_complexity, (0.1, 1024, 10, 1.0, 0.0), "delta"), (mw_sample_complexity, (0.1, 1024, 10, 1.0, 1.0),
                                                                "delta"),
    (mwem_epsilon_split, (1.0, 0), "T"), (mwem_measurement_scale, (-1.0, 3), "epsilon"),
])
def test_bad_theory_inputs(fn, args, name):
    with pytest.raises((ValueError, TypeError), match=name):
        fn(*args)


# --------------------------------------------------------------------------- the widget callback

def test_explore_callback_is_seeded_and_validates():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from dpbook.explorers.mwem import explore_mwem
    from dpbook.queries import cancer_4way_cells
    fig1, fig2 = explore_mwem(d=8, n=397, T=3), explore_mwem(d=8, n=397, T=3)
    y1 = [line.get_ydata() for line in fig1.axes[0].lines]
    y2 = [line.get_ydata() for line in fig2.axes[0].lines]
    assert all(np.array_equal(a, b) for a, b in zip(y1, y2)) and len(y1) == len(y2)
    plt.close(fig1), plt.close(fig2)
    assert cancer_4way_cells(16).m == 16 and cancer_4way_cells(5280).m == 5280
    for kwargs, exc, name in [(dict(epsilon=0.0), ValueError, "epsilon"), (dict(T=0), ValueError, "T"),
                              (dict(d=2), ValueError, "d"), (dict(d=17), ValueError, "d"),
                              (dict(n=1.5), TypeError, "n"), (dict(n=1798), ValueError, "n")]:
        with pytest.raises(exc, match=name):
            explore_mwem(**kwargs)


# --------------------------------------------------------------------------- the practical variants

from dpbook.broken.mwem import mwem_marginal_cell_sensitivity  # noqa: E402
from dpbook._mw_kernels import marginal_sum  # noqa: E402
from dpbook.mwem import mwem_practical  # noqa: E402
from dpbook.theory.composition import advanced_composition
from dpbook.theory.mwem import mwem_advanced_step_epsilon


def test_theorem_is_the_practical_special_case():
    """cell units, average, no replay, re-selection allowed, even split: the same transcript and answers."""
    a = mwem(CANCER.x, W2, epsilon=0.8, T=6, trials=3, rng=4)
    b = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=0.8, T=6, measure="cell", output="average", replay=0,
                       exclude_measured=False, trials=3, rng=4)
    assert np.array_equal(a.trace["selected"], b.trace["selected"])
    assert np.array_equal(a.trace["measurements"], b.trace["measurements"][..., 0])
    assert np.array_equal(a.answers, b.answers)


@pytest.mark.parametrize("kwargs", [dict(), dict(measure="cell"), dict(select_share=0.2, round_weights=np.arange(1, 8)),
                                    dict(neighbours="replace-one", output="average", replay=3)])
def test_practical_ledger_adds_up_to_the_claim(kwargs):
    r = mwem_practical(CANCER.x, W2, epsilon=0.7, T=7, rng=0, **({"n": int(CANCER.n)} | kwargs))
    assert len(r.ledger) == 14 and r.delta == 0.0 and r.neighbours == kwargs.get("neighbours", "add/remove")
    assert math.isclose(math.fsum(s.epsilon for s in r.ledger), 0.7, rel_tol=1e-12)
    share = kwargs.get("select_share", 0.5)
    w = np.asarray(kwargs.get("round_weights", np.ones(7)), dtype=float)
    expected = [e for wi in w / w.sum() for e in (0.7 * wi * share, 0.7 * wi * (1 - share))]
    np.testing.assert_allclose([s.epsilon for s in r.ledger], expected, rtol=1e-12)
    # the charged sensitivity is the unit's exact L1 sensitivity: 1 for a cell or (add/remove) a marginal,
    # 2 for a marginal's 4 cells under replace-one
    whole = kwargs.get("measure", "marginal") == "marginal"
    assert r.trace["sensitivity"] == (2.0 if whole and kwargs.get("neighbours") == "replace-one" else 1.0)


def test_practical_never_reselects_and_records_units():
    r = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=55, trials=2, rng=1)       # every 2-way marginal once
    for row in r.trace["selected"]:
        assert sorted(row) == list(range(55))
    assert r.trace["units"].shape == (55, 4) and r.trace["measurements"].shape == (2, 55, 4)
    with pytest.raises(ValueError, match="T"):
        mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=56, rng=1)
    assert mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=56, exclude_measured=False, replay=0, rng=1).answers.shape == (W2.m,)


def test_practical_outputs_are_distributions_and_last_or_average():
    r = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=8, trials=2, rng=3)
    np.testing.assert_allclose(r.trace["synthetic_last"].sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(r.answers, W2.counts(r.trace["synthetic_last"]), atol=1e-12)
    np.testing.assert_allclose(r.trace["answers_average"], W2.counts(r.trace["synthetic"]), atol=1e-12)
    avg = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=8, trials=2, rng=3, output="average")
    np.testing.assert_allclose(avg.answers, r.trace["answers_average"], atol=1e-15)
    assert np.all(r.trace["replay_sweeps"] >= 1)


def test_group_update_matches_the_reference_rule():
    """The one-pass whole-marginal update equals p ∝ p · exp(Σ_c coefficient_c · q_c) built from full query vectors."""
    W = k_way_marginals(5, 2)
    layout = marginal_layout(W)
    units = layout.units
    rng = np.random.default_rng(0)
    P = rng.random((3, 32)) + 0.1
    P /= P.sum(axis=1, keepdims=True)
    picks = np.array([0, 7, 7])
    c = rng.normal(size=(3, 4)) * 0.7
    ref = P.copy()
    for t in range(3):
        log_factor = sum(c[t, s] * W.query(int(j)) for s, j in enumerate(units[picks[t]]))
        ref[t] *= np.exp(log_factor)
        ref[t] /= ref[t].sum()
    layout.update(P, picks, c, layout.tables(P, picks))
    np.testing.assert_allclose(P, ref, rtol=1e-12)
    # and the tables are the marginals
    np.testing.assert_allclose(layout.cell_answers(layout.tables(P, picks), picks),
                               W.counts(P)[np.arange(3)[:, None], units[picks]], rtol=1e-12)


def test_practical_beats_the_uniform_guess_and_the_theorem_at_eps_1():
    """Accuracy (sanity, not a theorem: no bound covers the practical variants): at ε = 1, T = 10 on cancer's
    2-way marginals, whole-marginal + last + replay has a lower mean error than the theorem's MWEM and the
    uniform guess in every one of 10 runs."""
    true = W2.answers(CANCER.x)
    p = np.abs(mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=10, trials=10, rng=5).answers - true).mean(axis=1)
    t = np.abs(mwem(CANCER.x, W2, epsilon=1.0, T=10, trials=10, rng=5).answers - true).mean(axis=1)
    uniform = np.abs(W2.counts(np.full(CANCER.N, 1 / CANCER.N)) - true).mean()
    assert np.all(p < t) and np.all(p < uniform)


def test_practical_audits_and_broken_twin():
    from dpbook.audit import audit_cases, run_audits
    results = dict((c.name, r) for c, r in run_audits(audit_cases(names=[
        "mwem_practical_measure", "mwem_practical_select", "mwem_marginal_cell_sensitivity"])))
    assert results["MWEM (practical): whole-marginal measurement"].epsilon_lb <= 1.0
    assert results["MWEM (practical): whole-marginal measurement"].epsilon_lb > 0.8      # tight (true 0.9)
    assert results["MWEM (practical): marginal selection"].epsilon_lb <= 1.0
    assert results["MWEM (practical) charging one cell's sensitivity"].epsilon_lb > 1.0


def test_practical_determinism_and_extremes():
    a = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=5, trials=2, rng=7)
    b = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=5, trials=2, rng=7)
    c = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=5, trials=2, rng=8)
    assert np.array_equal(a.answers, b.answers) and not np.array_equal(a.answers, c.answers)
    for epsilon in (1e-6, 1e6):
        r = mwem_practical(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=epsilon, T=5, trials=2, rng=0)
        assert np.all(np.isfinite(r.answers))
        np.testing.assert_allclose(r.trace["synthetic_last"].sum(axis=1), 1.0, rtol=1e-9)


@pytest.mark.parametrize("kwargs, exc, name", [
    (dict(measure="slab"), ValueError, "measure"), (dict(measure=1), TypeError, "measure"),
    (dict(output="best"), ValueError, "output"), (dict(replay="forever"), TypeError, "replay"),
    (dict(replay=-1), ValueError, "replay"), (dict(exclude_measured="yes"), TypeError, "exclude_measured"),
    (dict(select_share=0.0), ValueError, "select_share"), (dict(select_share=1.0), ValueError, "select_share"),
    (dict(select_share=np.nan), ValueError, "select_share"), (dict(round_weights=[1, 2]), ValueError, "round_weights"),
    (dict(round_weights=[1, 1, 1, 1, -1]), ValueError, "round_weights"),
    (dict(round_weights=["a"] * 5), TypeError, "round_weights"), (dict(neighbours="swap"), ValueError, "neighbours"),
    (dict(epsilon=0.0), ValueError, "epsilon"), (dict(T=0), ValueError, "T"), (dict(trials=0), ValueError, "trials"),
])
def test_practical_bad_parameters(kwargs, exc, name):
    call = dict(epsilon=1.0, T=5, n=int(CANCER.n), rng=0) | kwargs
    with pytest.raises(exc, match=name):
        mwem_practical(CANCER.x, W2, **call)
    with pytest.raises(ValueError, match="MarginalWorkload"):
        mwem_practical(CANCER.x, random_queries(5, CANCER.N, rng=0), n=int(np.sum(CANCER.x)), epsilon=1.0, T=2)


def test_broken_twin_claims_what_it_does_not_pay():
    r = mwem_marginal_cell_sensitivity(CANCER.x, W2, n=int(np.sum(CANCER.x)), epsilon=1.0, T=3, rng=0)
    assert r.trace["sensitivity"] == 1.0 and r.neighbours == "replace-one"
    assert mwem_practical(CANCER.x, W2, epsilon=1.0, T=3, neighbours="replace-one", rng=0).trace["sensitivity"] == 2.0


def test_one_run_kernel_matches_the_batched_update():
    """Layout.step_one (one run, fewest numpy calls; replay uses it) equals tables + update (the rounds use it)."""
    W = k_way_marginals(6, 2)
    layout = marginal_layout(W)
    rng = np.random.default_rng(2)
    p = rng.random(64) + 0.05
    p /= p.sum()
    one, two = p.copy(), np.stack([p, p])
    for u in (3, 0, 11, 3):
        measured = rng.normal(50, 20, size=4)
        here = layout.step_one(one, u, measured, 200)
        picks = np.array([u, u])
        tables = layout.tables(two, picks)
        np.testing.assert_allclose(here, layout.cell_answers(tables, picks)[0], rtol=1e-12)
        layout.update(two, picks, np.tile((measured - 200 * here) / 400, (2, 1)), tables)
        np.testing.assert_allclose(one, two[0], rtol=1e-12)


@pytest.mark.parametrize("d", [3, 15, 16])
def test_marginal_sum_and_scale_match_numpy(d):
    """The blockwise marginal sum and the tiled slab scaling (fast kernels at 2^16 and up) equal numpy's reference
    ``p.reshape(shape).sum(axis)`` and broadcast multiply, for every 2-way (3-way at d=3) attribute set."""
    W = k_way_marginals(d, 3 if d == 3 else 2)
    layout = marginal_layout(W)
    rng = np.random.default_rng(d)
    p = rng.random(1 << d)
    for u in range(0, len(layout.sets), 1 if d == 3 else 5):
        ref = p.reshape(layout.shapes[u]).sum(axis=layout.away1[u]).ravel()
        np.testing.assert_allclose(marginal_sum(p, layout.shapes[u], layout.away1[u]), ref, rtol=1e-12)
        f = rng.random(ref.size)
        expected = p.copy()
        expected.reshape(layout.shapes[u])[...] *= f.reshape(layout.fshapes[u])
        got = p.copy()
        layout.scale(got, u, f)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kwargs, exc, name", [
    (dict(T=0), ValueError, "T"), (dict(T=1.5), TypeError, "T"), (dict(n=0), ValueError, "n"),
    (dict(replay=-1), ValueError, "replay"), (dict(trials=0), ValueError, "trials"), (dict(rng="x"), TypeError, "rng"),
    (dict(sampler="laplace"), TypeError, "sampler"), (dict(x=np.ones(3)), ValueError, "x"),
    (dict(workload="W"), TypeError, "workload"), (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(delta=1.0), ValueError, "delta"), (dict(neighbours="add/remove"), ValueError, "n"),
    (dict(neighbours="swap"), ValueError, "neighbours"),
])
def test_check_mwem_inputs_names_the_bad_parameter(kwargs, exc, name):
    """The one validation prologue every MWEM variant (and broken twin) runs: the data, then
    contract.mechanism_prologue (epsilon, delta, rng, sampler, public n, trials), then T and replay."""
    from dpbook.mwem import check_mwem_inputs
    args = dict(x=CANCER.x, workload=W2, epsilon=1.0, T=3, n=None, replay=0, trials=None, rng=0,
                sampler=laplace_noise) | kwargs
    with pytest.raises(exc, match=name):
        check_mwem_inputs(**args)
    x, W, p, T, replay = check_mwem_inputs(CANCER.x, W2, epsilon=1.0, T=3, rng=0)
    assert (T, p.n, replay, p.trials, p.neighbours) == (3, int(CANCER.x.sum()), 0, None, "replace-one")
    assert check_mwem_inputs(CANCER.x, W2, epsilon=1.0, T=3, n=600)[2].neighbours == "add/remove"


# --------------------------------------------------------------------------- the composition rule (delta)

def test_mwem_delta_zero_is_the_basic_split_bit_for_bit():
    """delta=0 (the default) is HLM12's basic split ε/(2T): the same draws and answers as before the option."""
    a = mwem(CANCER.x, W2, epsilon=1.0, T=6, trials=3, rng=5)
    b = mwem(CANCER.x, W2, epsilon=1.0, T=6, delta=0.0, trials=3, rng=5)
    np.testing.assert_array_equal(a.answers, b.answers)
    assert a.delta == 0.0 and a.ledger.rule == "basic" and a.trace["epsilon_select"] == 1.0 / 12


@pytest.mark.parametrize("T", [3, 30, 100])
def test_mwem_delta_composes_to_epsilon_delta_by_advanced_composition(T):
    """δ > 0: every step at DR-Thm3.20's largest ε0 (tight_per_step_epsilon(ε, 2T, δ)); the ledger is an advanced
    ledger with δ' = δ that composes to the claim (ε, δ) — and 1% more per step would not."""
    from dpbook.release import Ledger, Spend, compose
    from dpbook.theory.composition import tight_per_step_epsilon
    rel = mwem(CANCER.x, W2, epsilon=1.0, T=T, delta=1e-6, n=569, rng=0)
    e0 = tight_per_step_epsilon(1.0, 2 * T, 1e-6)
    assert (rel.epsilon, rel.delta, rel.neighbours) == (1.0, 1e-6, "add/remove")
    assert rel.ledger.rule == "advanced" and rel.ledger.delta_prime == 1e-6 and len(rel.ledger) == 2 * T
    assert all(s.epsilon == e0 for s in rel.ledger) and rel.trace["epsilon_measure"] == e0
    eps, dlt = compose(rel.ledger)
    assert eps == pytest.approx(1.0, rel=1e-12) and dlt == 1e-6        # the whole budget, no more (to rounding)
    over = Ledger([Spend(s.step, s.epsilon * 1.01) for s in rel.ledger], rule="advanced", delta_prime=1e-6)
    assert compose(over)[0] > 1.0
    assert rel.noise_scale == pytest.approx(1.0 / (e0 * 569))


def test_mwem_delta_pays_only_beyond_about_ln_one_over_delta_rounds():
    """Advanced composition gives each step more than the basic ε/(2T) iff sqrt(2k ln(1/δ)) + drift < k (k = 2T),
    i.e. for T beyond about ln(1/δ) (≈ 13.8 at δ = 1e-6): measured on both sides of the crossing."""
    step = {T: mwem(CANCER.x, W2, epsilon=1.0, T=T, delta=1e-6, n=569, rng=0).trace["epsilon_select"]
            for T in (5, 10, 13, 16, 20, 50)}
    for T, e0 in step.items():
        assert (e0 > 1.0 / (2 * T)) == (T > 14), (T, e0, 1.0 / (2 * T))
    assert math.log(1e6) == pytest.approx(13.8, abs=0.05)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(delta=-1e-3), ValueError, "delta"), (dict(delta=1.0), ValueError, "delta"),
    (dict(delta=float("nan")), ValueError, "delta"), (dict(delta="0.1"), TypeError, "delta"),
    (dict(delta=1e-200), ValueError, "delta"), (dict(delta=1e-6, epsilon=500.0), ValueError, "epsilon"),
    (dict(delta=1e-6, T=10 ** 9), ValueError, "T"),
])
def test_mwem_bad_delta(kwargs, exc, match):
    args = dict(epsilon=1.0, T=3, n=569, rng=0) | kwargs
    with pytest.raises(exc, match=match):
        mwem(CANCER.x, W2, **args)


def test_mwem_refuses_queries_outside_the_unit_range():
    from dpbook.graphs import cut_workload
    W = cut_workload(3, [([0, 1], [0, 1])])
    with pytest.raises(ValueError, match=r"workload has entries in \[0, 2\]"):
        mwem(np.array([1, 0, 1]), W, epsilon=1.0, T=1, n=2, rng=0)


def test_mwem_practical_charges_repeated_cells_and_the_query_range():
    """Whole marginals, replace-one, a cell listed 3 times: Δ = 3 + 1 = 4 (was 2); add/remove Δ = 3.  Single
    queries of an overlapping cut: Δ = 2 under both relations."""
    from dpbook.graphs import cut_workload
    W = MarginalWorkload(1, [((0,), (0,))] + [((0,), (1,))] * 3)
    x = np.array([1, 1])
    rel = mwem_practical(x, W, epsilon=1.0, T=1, n=2, neighbours="replace-one", replay=0, rng=0)
    assert rel.trace["sensitivity"] == 4.0
    assert mwem_practical(x, W, epsilon=1.0, T=1, n=2, replay=0, rng=0).trace["sensitivity"] == 3.0
    cut = cut_workload(3, [([0, 1], [0, 1]), ([0], [2])])
    for neighbours in ("add/remove", "replace-one"):
        rel = mwem_practical(np.array([1, 0, 1]), cut, epsilon=1.0, T=1, n=2, measure="cell", neighbours=neighbours,
                             replay=0, rng=0)
        assert rel.trace["sensitivity"] == 2.0


@pytest.mark.parametrize("T", [1, 5, 15, 30, 100, 1000])
def test_mwem_advanced_step_epsilon_is_the_largest_that_fits(T):
    e0 = mwem_advanced_step_epsilon(1.0, T, 1e-6)
    assert advanced_composition(e0, 2 * T, 1e-6)[0] <= 1.0
    assert advanced_composition(e0 * (1 + 1e-9), 2 * T, 1e-6)[0] > 1.0 - 1e-9
    assert advanced_composition(e0 * 1.001, 2 * T, 1e-6)[0] > 1.0


def test_mwem_advanced_step_epsilon_hand_values():
    # T = 30, delta' = 1e-6: sqrt(2*60*ln 1e6) e0 + 60 e0 (e^e0 - 1) = 1  ->  e0 ≈ 0.02372 (solved by hand/Newton)
    e0 = mwem_advanced_step_epsilon(1.0, 30, 1e-6)
    lhs = math.sqrt(120 * math.log(1e6)) * e0 + 60 * e0 * math.expm1(e0)
    assert lhs == pytest.approx(1.0, abs=1e-9) and e0 == pytest.approx(0.02372, abs=2e-5)
    # below T = ln(1/delta') the basic split epsilon/(2T) is larger
    assert mwem_advanced_step_epsilon(1.0, 5, 1e-6) < 1.0 / 10
    assert mwem_advanced_step_epsilon(1.0, 100, 1e-6) > 1.0 / 200


def test_mwem_advanced_step_epsilon_bad_input():
    for kw, exc, name in [(dict(epsilon=0.0, T=3, delta_prime=1e-6), ValueError, "epsilon"),
                          (dict(epsilon=1.0, T=0, delta_prime=1e-6), ValueError, "T"),
                          (dict(epsilon=1.0, T=3, delta_prime=0.0), ValueError, "delta_prime"),
                          (dict(epsilon=1.0, T=2.5, delta_prime=1e-6), TypeError, "T"),
                          (dict(epsilon=float("nan"), T=3, delta_prime=1e-6), ValueError, "epsilon")]:
        with pytest.raises(exc, match=name):
            mwem_advanced_step_epsilon(**kw)
