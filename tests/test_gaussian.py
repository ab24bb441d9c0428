"""Chapter 04: the Gaussian mechanism (DR-Gauss, PROJ-R1), per-query Laplace under composition (LEC3-3.3.2),
the required-n experiment (PROJ-Def1) and their bounds in dpbook.theory.gaussian."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbook.audit import audit
from dpbook.broken.gaussian import (gaussian_classic_any_epsilon, gaussian_forgets_log_factor,
                                    gaussian_single_query_sensitivity)
from dpbook.data import bootstrap, load_cancer, replace_row
from dpbook.experiments import failure_rate, required_n, run_trials
from dpbook.gaussian import composed_laplace_mechanism, gaussian_mechanism
from dpbook.queries import MatrixWorkload, k_way_marginals, random_queries
from dpbook.stats import clopper_pearson, clopper_pearson_upper
from dpbook.theory.composition import advanced_composition, advanced_per_step_epsilon
from dpbook.theory.gaussian import (analytic_gaussian_sigma, gaussian_delta, gaussian_failure_probability,
                                    gaussian_max_error_bound, gaussian_privacy_loss, gaussian_sample_complexity,
                                    gaussian_sigma, privacy_loss_mean, privacy_loss_tail, sigma_epsilon_delta)
from dpbook.theory.laplace import split_budget_sample_complexity, laplace_failure_probability, laplace_max_error_bound

LEVEL = 1e-6
SEED = 2026


def Phi(z):
    """Standard normal CDF by hand (math.erfc), independent of scipy."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@pytest.fixture(scope="module")
def cancer():
    return load_cancer().x


@pytest.fixture(scope="module")
def marginals():
    return k_way_marginals(11, 2)          # m = 220 cells of the 55 two-way marginals, Δ2 = sqrt(55)


# ----------------------------------------------------------------------------------------------- theory

def test_sigma_epsilon_delta_hand_value():
    # sqrt(2 ln(125000)) / 0.5 = sqrt(23.47225) / 0.5 = 4.844805 / 0.5
    assert sigma_epsilon_delta(0.5, 1e-5) == pytest.approx(9.689610525, rel=1e-9)
    assert gaussian_sigma(3.0, 0.5, 1e-5) == pytest.approx(3 * 9.689610525, rel=1e-9)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 10.0])
def test_classic_calibration_refuses_epsilon_at_least_one(epsilon):
    with pytest.raises(ValueError, match=r"epsilon \(.*\) must be < 1"):
        gaussian_sigma(1.0, epsilon, 1e-5)


def test_gaussian_delta_hand_values():
    # ε = 0: δ(0) is the total-variation distance Φ(1/2) - Φ(-1/2) = 0.382925
    assert gaussian_delta(1.0, 0.0) == pytest.approx(Phi(0.5) - Phi(-0.5), rel=1e-12)
    assert gaussian_delta(1.0, 0.0) == pytest.approx(0.3829249, abs=1e-7)
    # σ = Δ = 1, ε = 1: Φ(-1/2) - e Φ(-3/2) = 0.308538 - 2.718282 * 0.066807 = 0.126937
    assert gaussian_delta(1.0, 1.0) == pytest.approx(Phi(-0.5) - math.e * Phi(-1.5), rel=1e-10)
    assert gaussian_delta(1.0, 1.0) == pytest.approx(0.126937, abs=1e-6)
    # only Δ/σ matters
    assert gaussian_delta(6.0, 0.3, sensitivity=3.0) == pytest.approx(gaussian_delta(2.0, 0.3), rel=1e-12)
    # no overflow at huge ε
    assert gaussian_delta(1.0, 800.0) == 0.0


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
def test_classic_calibration_is_private_by_the_exact_curve(epsilon, delta):
    """DR-Gauss is [RECALLED]: check it against the exact privacy curve, and the PA(i) condition P[L>ε] <= δ."""
    sigma = gaussian_sigma(1.0, epsilon, delta)
    assert gaussian_delta(sigma, epsilon) <= delta
    assert privacy_loss_tail(epsilon, sigma) <= delta


def test_classic_formula_fails_for_large_epsilon():
    """Why DR-Gauss needs ε < 1: at ε = 10 the classic σ has exact δ(ε) = 2.27e-5 > 1e-5."""
    sigma = math.sqrt(2 * math.log(1.25e5)) / 10
    assert gaussian_delta(sigma, 10.0) == pytest.approx(2.265e-5, rel=1e-3)
    assert gaussian_delta(sigma, 10.0) > 1e-5


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 20.0])
@pytest.mark.parametrize("delta", [1e-8, 1e-5, 0.1])
def test_analytic_sigma_is_the_smallest_private_sigma(epsilon, delta):
    sigma = analytic_gaussian_sigma(2.0, epsilon, delta)
    assert gaussian_delta(sigma, epsilon, 2.0) <= delta
    assert gaussian_delta(sigma * (1 - 1e-9), epsilon, 2.0) > delta * (1 - 1e-6)
    if epsilon < 1:
        assert sigma < gaussian_sigma(2.0, epsilon, delta)


def test_privacy_loss_hand_values():
    assert privacy_loss_mean(1.0, 2.0) == 0.125                        # Δ²/(2σ²)
    # μ = 1/8, sd = sqrt(1/4) = 1/2: P[L > 1/2] = Φ(-(0.5 - 0.125)/0.5) = Φ(-0.75) = 0.2266274
    assert privacy_loss_tail(0.5, 2.0) == pytest.approx(Phi(-0.75), rel=1e-12)
    assert privacy_loss_tail(0.5, 2.0) == pytest.approx(0.2266274, abs=1e-7)
    # L(o) = (||o - c'||² - ||o - c||²)/(2σ²): o = 1, c = 0, c' = 1, σ = 1 -> (0 - 1)/2
    assert gaussian_privacy_loss([1.0], [0.0], [1.0], 1.0) == pytest.approx([-0.5])
    L = gaussian_privacy_loss([[0.0, 0.0], [3.0, 4.0]], [0.0, 0.0], [1.0, 1.0], 2.0)
    assert L == pytest.approx([(2 - 0) / 8, ((4 + 9) - 25) / 8])


def test_accuracy_bound_hand_values():
    # 2 sqrt(2 ln 200) = 2 * 3.2552473 = 6.5104945
    assert gaussian_max_error_bound(10, 0.1, 2.0) == pytest.approx(6.5104945, abs=1e-6)
    assert gaussian_failure_probability(1.959964, 1, 1.0) == pytest.approx(0.05, abs=1e-6)
    # 1 - (1 - 2Φ(-2))^3 = 1 - (1 - 0.0455003)^3 = 0.130278
    assert gaussian_failure_probability(2.0, 3, 1.0) == pytest.approx(1 - (1 - 2 * Phi(-2.0)) ** 3, rel=1e-10)
    # union bound >= exact
    for m in (1, 10, 1000):
        alpha = gaussian_max_error_bound(m, 0.05, 1.0)
        assert gaussian_failure_probability(alpha, m, 1.0) <= 0.05


def test_sample_complexity_hand_values():
    # PROJ-R1: σ_{ε,δ} = sqrt(2 ln 1.25e6)/0.5 = 10.597605; sqrt(2·100·ln 4000) = 40.728490; / 0.1 = 4316.24
    assert gaussian_sample_complexity(100, 0.05, 0.5, 1e-6, 0.1) == pytest.approx(4316.245, abs=1e-3)
    # PROJ-R2 (the Laplace function of chapter 01): 100 ln(2000) / (0.5 · 0.1) = 15201.8
    assert split_budget_sample_complexity(100, 0.05, 0.5, 0.1) == pytest.approx(100 * math.log(2000) / 0.05)
    # Gaussian wins for large m: sqrt(m log m) vs m log m
    assert gaussian_sample_complexity(1000, 0.05, 0.5, 1e-6, 0.1) < split_budget_sample_complexity(1000, 0.05, 0.5, 0.1)


@pytest.mark.parametrize("call, name", [
    (lambda v: gaussian_sigma(v, 0.5, 1e-5), "sensitivity"),
    (lambda v: gaussian_sigma(1.0, v, 1e-5), "epsilon"),
    (lambda v: gaussian_sigma(1.0, 0.5, v), "delta"),
    (lambda v: analytic_gaussian_sigma(1.0, v, 1e-5), "epsilon"),
    (lambda v: analytic_gaussian_sigma(1.0, 1.0, v), "delta"),
    (lambda v: gaussian_delta(v, 1.0), "sigma"),
    (lambda v: privacy_loss_mean(1.0, v), "sigma"),
    (lambda v: gaussian_max_error_bound(10, v, 1.0), "beta"),
    (lambda v: gaussian_failure_probability(v, 10, 1.0), "alpha"),
    (lambda v: gaussian_sample_complexity(10, 0.05, 0.5, 1e-6, v), "alpha"),
])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0.0, -1.0])
def test_theory_bad_values(call, name, bad):
    with pytest.raises(ValueError, match=name):
        call(bad)


@pytest.mark.parametrize("call, name", [
    (lambda v: gaussian_sigma(1.0, v, 1e-5), "epsilon"),
    (lambda v: gaussian_sigma(1.0, 0.5, v), "delta"),
    (lambda v: gaussian_max_error_bound(v, 0.05, 1.0), "m"),
    (lambda v: gaussian_sample_complexity(v, 0.05, 0.5, 1e-6, 0.1), "m"),
])
@pytest.mark.parametrize("bad", ["0.5", None, True])
def test_theory_bad_types(call, name, bad):
    with pytest.raises(TypeError, match=name):
        call(bad)


def test_theory_delta_out_of_range_and_privacy_loss_shapes():
    with pytest.raises(ValueError, match="delta"):
        gaussian_sigma(1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_delta(1.0, -0.1)
    with pytest.raises(ValueError, match="center"):
        gaussian_privacy_loss(np.zeros((4, 3)), np.zeros(2), np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="finite"):
        gaussian_privacy_loss([np.nan], [0.0], [1.0], 1.0)


# ------------------------------------------------------------------------------------------- mechanism

def test_release_record(cancer, marginals):
    r = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, rng=SEED)
    n = cancer.sum()
    sigma = gaussian_sigma(math.sqrt(55), 0.5, 1e-6)
    assert r.answers.shape == (220,)
    assert (r.epsilon, r.delta, r.mechanism) == (0.5, 1e-6, "gaussian")
    assert r.noise_scale == pytest.approx(sigma / n)
    assert sum(s.epsilon for s in r.ledger) == 0.5 and sum(s.delta for s in r.ledger) == 1e-6
    batch = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, trials=7, rng=SEED)
    assert batch.answers.shape == (7, 220)
    analytic = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=5.0, delta=1e-6, calibration="analytic", rng=SEED)
    assert analytic.noise_scale == pytest.approx(analytic_gaussian_sigma(math.sqrt(55), 5.0, 1e-6) / n)


def test_sensitivity_default_larger_and_understated(cancer, marginals):
    r = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, sensitivity=math.sqrt(220), rng=SEED)
    assert r.noise_scale == pytest.approx(sigma_epsilon_delta(0.5, 1e-6) * math.sqrt(220) / cancer.sum())
    with pytest.raises(ValueError, match=r"sensitivity \(7\.0\) must be >= the workload's L2 sensitivity"):
        gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, sensitivity=7.0)


def test_classic_mechanism_refuses_epsilon_one(cancer, marginals):
    with pytest.raises(ValueError, match=r"epsilon \(1\.0\) must be < 1.*analytic"):
        gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=1.0, delta=1e-6)


def test_noise_is_exactly_gaussian_with_the_theorem_sigma(cancer, marginals):
    """KS at level 1e-6: the count noise divided by DR-Gauss's σ is N(0, 1) (catches a σ off by a few %)."""
    r = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.3, delta=1e-6, trials=500, rng=SEED)
    z = ((r.answers - marginals.answers(cancer)) / r.noise_scale).ravel()        # 110 000 values
    assert stats.kstest(z, "norm").pvalue > LEVEL


@pytest.mark.parametrize("calibration, epsilon", [("classic", 0.5), ("analytic", 2.0)])
def test_accuracy_against_the_union_bound(cancer, marginals, calibration, epsilon):
    """ACC(α, β) with α = σ sqrt(2 ln(2m/β)) (PROJ-R1's bound), one-sided CP at 1e-6."""
    beta, trials = 0.05, 4000
    errs = run_trials(gaussian_mechanism, cancer, marginals, trials=trials, rng=SEED, epsilon=epsilon,
                      delta=1e-6, calibration=calibration)
    r = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=epsilon, delta=1e-6, calibration=calibration)
    alpha = gaussian_max_error_bound(marginals.m, beta, r.noise_scale)
    assert failure_rate(errs.max, alpha).consistent_with(beta, LEVEL)
    # and the exact failure probability is reproduced (two-sided CP at 1e-6): a test that can fail
    alpha_exact = 0.8 * alpha
    fr = failure_rate(errs.max, alpha_exact)
    lo, hi = clopper_pearson(fr.failures, trials, LEVEL)
    assert lo <= gaussian_failure_probability(alpha_exact, marginals.m, r.noise_scale) <= hi


def test_proj_r1_sample_size_suffices(cancer):
    """PROJ-R1: at n = σ_{ε,δ} sqrt(2m ln(2m/β))/α (Δ2 = sqrt(m)), all m answers are α-accurate w.p. 1-β."""
    m, beta, alpha, epsilon, delta = 64, 0.05, 0.05, 0.5, 1e-6
    W = random_queries(m, 2048, rng=SEED)
    n = math.ceil(gaussian_sample_complexity(m, beta, epsilon, delta, alpha))
    x_n = bootstrap(cancer, n, rng=SEED)
    errs = run_trials(gaussian_mechanism, x_n, W, trials=4000, rng=SEED, epsilon=epsilon, delta=delta,
                      sensitivity=math.sqrt(m))
    assert failure_rate(errs.max, alpha).consistent_with(beta, LEVEL)


def test_privacy_loss_is_gaussian_and_its_tail_is_below_delta(cancer):
    """PA(i) for DR-Gauss: on a tight pair, L ~ N(μ, 2μ) (KS at 1e-6) and P[L > ε] <= δ (CP upper, 1e-6)."""
    u, v = 2047, 0
    x2 = replace_row(cancer, u, v)
    Q = np.zeros((1, 2048))
    Q[0, u] = 1.0
    epsilon, delta = 0.5, 1e-3
    r = gaussian_mechanism(cancer, Q, n=int(cancer.sum()), epsilon=epsilon, delta=delta, trials=1_000_000, rng=SEED)
    n = cancer.sum()
    sigma = r.noise_scale * n
    L = gaussian_privacy_loss(r.answers * n, Q @ cancer, Q @ x2, sigma)
    mu = privacy_loss_mean(1.0, sigma)
    assert stats.kstest(L[:100_000], "norm", args=(mu, math.sqrt(2 * mu))).pvalue > LEVEL
    hits = int(np.count_nonzero(L > epsilon))
    assert clopper_pearson_upper(hits, L.size, LEVEL) <= delta
    lo, hi = clopper_pearson(hits, L.size, LEVEL)
    assert lo <= privacy_loss_tail(epsilon, sigma) <= hi


# ------------------------------------------------------------------------------------------------ audits

def _tail_audit(mechanism, x, x2, Q, *, epsilon, delta, sigma_counts, trials, statistic=None, **params):
    """Audit on outputs in count units (n is the same on the replace-one pair): half-line events
    ``{t < mid - zσ}`` and ``{t > mid + zσ}`` on a statistic ``t`` of the noisy counts."""
    n = x.sum()
    stat = statistic or (lambda counts: counts[:, 0])

    def sampler(data):
        return lambda t, rng: stat(mechanism(data, Q, epsilon=epsilon, delta=delta, n=n, trials=t, rng=rng,
                                             **params).answers * n)

    mid = 0.5 * (stat((Q @ x)[None, :])[0] + stat((Q @ x2)[None, :])[0])
    zs = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
    events = {f"below mid-{z}σ": (lambda o, z=z: o < mid - z * sigma_counts) for z in zs}
    events |= {f"above mid+{z}σ": (lambda o, z=z: o > mid + z * sigma_counts) for z in zs}
    return audit(sampler(x), sampler(x2), events, trials=trials, delta=delta, alpha=LEVEL, rng=SEED)


@pytest.fixture(scope="module")
def pair():
    x = load_cancer().x
    u, v = 2047, 0                            # a populated cell moves to an empty one (replace-one, same n)
    Q = np.zeros((1, 2048))
    Q[0, u] = 1.0                             # one counting query that changes by exactly Δ2 = 1
    return x, replace_row(x, u, v), Q


def test_audit_classic_gaussian(pair):
    x, x2, Q = pair
    res = _tail_audit(gaussian_mechanism, x, x2, Q, epsilon=0.5, delta=1e-5,
                      sigma_counts=gaussian_sigma(1.0, 0.5, 1e-5), trials=2_000_000)
    assert res.epsilon_lb <= 0.5, res


def test_audit_analytic_gaussian_large_epsilon(pair):
    x, x2, Q = pair
    res = _tail_audit(gaussian_mechanism, x, x2, Q, epsilon=2.0, delta=1e-5, calibration="analytic",
                      sigma_counts=analytic_gaussian_sigma(1.0, 2.0, 1e-5), trials=2_000_000)
    assert res.epsilon_lb <= 2.0, res


def test_audit_catches_forgotten_log_factor(pair):
    x, x2, Q = pair
    res = _tail_audit(gaussian_forgets_log_factor, x, x2, Q, epsilon=0.5, delta=1e-5, sigma_counts=2.0,
                      trials=2_000_000)
    assert res.epsilon_lb > 0.5, res


def _repeated_query(m, u=2047):
    Q = np.zeros((m, 2048))
    Q[:, u] = 1.0                                 # m copies of one counting query: true Δ2 = sqrt(m)
    return Q


def test_audit_many_copies_and_catches_one_query_sensitivity(pair):
    x, x2, _ = pair
    m = 16
    Q = _repeated_query(m)
    total = lambda counts: counts.sum(axis=1)     # noqa: E731 - post-processing: the sum of the m answers
    sd_of_sum = gaussian_sigma(math.sqrt(m), 0.5, 1e-5) * math.sqrt(m)
    good = _tail_audit(gaussian_mechanism, x, x2, Q, epsilon=0.5, delta=1e-5, sigma_counts=sd_of_sum,
                       trials=400_000, statistic=total)
    assert good.epsilon_lb <= 0.5, good
    bad = _tail_audit(gaussian_single_query_sensitivity, x, x2, Q, epsilon=0.5, delta=1e-5,
                      sigma_counts=gaussian_sigma(1.0, 0.5, 1e-5) * math.sqrt(m), trials=400_000,
                      statistic=total)
    assert bad.epsilon_lb > 0.5, bad


def test_classic_at_any_epsilon_is_caught_by_the_exact_curve(pair):
    """Too small to see by sampling (δ(ε) = 2.3e-5 vs 1e-5); the exact curve catches it."""
    x, _, Q = pair
    r = gaussian_classic_any_epsilon(x, Q, epsilon=10.0, delta=1e-5, n=int(x.sum()), rng=SEED)
    sigma_counts = r.noise_scale * x.sum()
    assert gaussian_delta(sigma_counts, 10.0) > 1e-5
    ok = gaussian_mechanism(x, Q, n=int(x.sum()), epsilon=10.0, delta=1e-5, calibration="analytic", rng=SEED)
    assert gaussian_delta(ok.noise_scale * x.sum(), 10.0) <= 1e-5


# ------------------------------------------------------------------------------------------- determinism

def test_determinism(cancer, marginals):
    a = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, trials=3, rng=SEED).answers
    b = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, trials=3, rng=SEED).answers
    c = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, trials=3, rng=SEED + 1).answers
    g = gaussian_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, trials=3,
                           rng=np.random.default_rng(SEED)).answers
    assert np.array_equal(a, b) and np.array_equal(a, g) and not np.array_equal(a, c)
    d = composed_laplace_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, rng=SEED).answers
    e = composed_laplace_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, rng=SEED).answers
    f = composed_laplace_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, rng=SEED + 1).answers
    assert np.array_equal(d, e) and not np.array_equal(d, f)


# --------------------------------------------------------------------------------------------- bad input

GOOD = dict(epsilon=0.5, delta=1e-6, n=569)


@pytest.mark.parametrize("name, bad, error", [
    ("epsilon", float("nan"), ValueError), ("epsilon", float("inf"), ValueError), ("epsilon", 0.0, ValueError),
    ("epsilon", -1.0, ValueError), ("epsilon", "0.5", TypeError), ("epsilon", True, TypeError),
    ("epsilon", None, TypeError),
    ("delta", 0.0, ValueError), ("delta", 1.0, ValueError), ("delta", -1e-6, ValueError),
    ("delta", float("nan"), ValueError), ("delta", "1e-6", TypeError), ("delta", None, TypeError),
    ("sensitivity", 0.0, ValueError), ("sensitivity", -3.0, ValueError), ("sensitivity", float("nan"), ValueError),
    ("sensitivity", float("inf"), ValueError), ("sensitivity", "8", TypeError),
    ("calibration", "exact", ValueError), ("calibration", None, ValueError),
    ("trials", 0, ValueError), ("trials", 2.5, TypeError), ("trials", "3", TypeError),
    ("rng", "seed", TypeError), ("rng", -1, ValueError), ("rng", 1.5, TypeError),
    ("sampler", "gaussian", TypeError),
])
def test_gaussian_mechanism_bad_parameters(cancer, marginals, name, bad, error):
    params = dict(GOOD, **{name: bad})
    with pytest.raises(error, match=name if name != "sampler" else "sampler"):
        gaussian_mechanism(cancer, marginals, **params)


@pytest.mark.parametrize("bad, error, match", [
    (np.array([1.0, np.nan] + [0.0] * 2046), ValueError, "x"),
    (np.array([-1] + [1] * 2047), ValueError, r"x\[0\]"),
    (np.ones((2, 1024)), ValueError, "1-D"),
    (np.ones(100, dtype=np.int64), ValueError, "universe"),
    (np.array([0.5] + [1.0] * 2047), ValueError, "integer"),
    (["a"] * 2048, TypeError, "x"),
])
def test_gaussian_mechanism_bad_x(marginals, bad, error, match):
    with pytest.raises(error, match=match):
        gaussian_mechanism(bad, marginals, **GOOD)


@pytest.mark.parametrize("bad, error, match", [
    ("marginals", TypeError, "workload"),
    (np.full((3, 2048), 1.5), ValueError, "outside"),
    (np.full((3, 2048), np.nan), ValueError, "NaN"),
    (np.ones(2048), ValueError, "2-D"),
])
def test_gaussian_mechanism_bad_workload(cancer, bad, error, match):
    with pytest.raises(error, match=match):
        gaussian_mechanism(cancer, bad, **GOOD)


# ------------------------------------------------------------------------ per-query Laplace (LEC3-3.3.2)

def test_composed_laplace_budget_split(cancer, marginals):
    m = marginals.m
    basic = composed_laplace_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, rng=SEED)
    assert basic.trace["epsilon_q"] == pytest.approx(0.5 / m) and basic.delta == 0.0
    assert len(basic.ledger) == m and sum(s.epsilon for s in basic.ledger) == pytest.approx(0.5)
    adv = composed_laplace_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=0.5, delta=1e-6, rng=SEED)
    eps_q = 0.5 / (2 * math.sqrt(2 * m * math.log(1e6)))                  # DR-Cor3.21
    assert adv.trace["epsilon_q"] == pytest.approx(eps_q)
    assert adv.noise_scale == pytest.approx(2 * math.sqrt(2 * m * math.log(1e6)) / 0.5 / cancer.sum())
    # the ledger's m steps compose (DR-Thm3.20, δ' = δ) to at most the claimed (ε, δ)
    (step_eps,) = {s.epsilon for s in adv.ledger}
    total, total_delta = advanced_composition(step_eps, len(adv.ledger), adv.delta)
    assert total <= adv.epsilon and total_delta == adv.delta
    with pytest.raises(ValueError, match=r"epsilon \(1\.5\) must be < 1"):
        composed_laplace_mechanism(cancer, marginals, n=int(cancer.sum()), epsilon=1.5, delta=1e-6)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_composed_laplace_accuracy(cancer, marginals, delta):
    """DR-Thm3.8 with ε_q per query: max error < ln(m/β)/(ε_q n) w.p. >= 1 - β."""
    beta = 0.05
    errs = run_trials(composed_laplace_mechanism, cancer, marginals, trials=4000, rng=SEED, epsilon=0.5,
                      delta=delta)
    eps_q = 0.5 / marginals.m if delta == 0 else advanced_per_step_epsilon(0.5, marginals.m, delta)
    alpha = laplace_max_error_bound(marginals.m, beta, 1.0, eps_q) / cancer.sum()
    assert failure_rate(errs.max, alpha).consistent_with(beta, LEVEL)
    # and the error is not absurdly below the bound (the noise scale is right): median within a factor 2
    assert np.median(errs.max) > alpha / 2


def test_audit_composed_laplace(pair):
    x, x2, _ = pair
    m = 16
    Q = _repeated_query(m)
    b = 2 * math.sqrt(2 * m * math.log(1e5)) / 0.5
    res = _tail_audit(composed_laplace_mechanism, x, x2, Q, epsilon=0.5, delta=1e-5,
                      sigma_counts=b * math.sqrt(2 * m), trials=300_000, statistic=lambda c: c.sum(axis=1))
    assert res.epsilon_lb <= 0.5, res


@pytest.mark.parametrize("name, bad, error", [
    ("epsilon", 0.0, ValueError), ("epsilon", float("nan"), ValueError), ("epsilon", "1", TypeError),
    ("delta", 1.0, ValueError), ("delta", -0.5, ValueError), ("delta", float("inf"), ValueError),
    ("delta", "0", TypeError), ("trials", 0, ValueError), ("rng", "x", TypeError), ("sampler", 3, TypeError),
])
def test_composed_laplace_bad_parameters(cancer, marginals, name, bad, error):
    params = {"epsilon": 0.5, "delta": 1e-6, "n": 569, name: bad} if name != "epsilon" else {"epsilon": bad, "n": 569}
    with pytest.raises(error, match=name):
        composed_laplace_mechanism(cancer, marginals, **params)


# ---------------------------------------------------------------------------- required n (PROJ-Def1)

def _grid_bracket(grid, p_of_n, beta, trials):
    """Grid values between which ``required_n`` must land, from the exact failure probability ``p(n)``:
    at ``n_safe`` ACC fails with probability <= 1e-6, at ``n_low`` it passes with probability <= 1e-6."""
    c = math.floor(beta * trials)
    p = np.array([p_of_n(int(n)) for n in grid])
    n_safe = grid[np.argmax(stats.binom.sf(c, trials, p) <= LEVEL)]
    low = grid[stats.binom.cdf(c, trials, p) <= LEVEL]
    return (int(low.max()) if low.size else 0), int(n_safe)


@pytest.mark.parametrize("m", [4, 32, 256])
def test_required_n_against_exact_failure_probabilities(cancer, m):
    """PROJ-Def1's required n lands where the exact failure probabilities say it must (at level 1e-6), and
    the theorems' sizes PROJ-R1/R2 are at most one grid step and sampling noise away from it."""
    alpha, beta, trials, epsilon, delta = 0.05, 0.05, 1000, 0.5, 1e-6
    W = random_queries(m, 2048, rng=SEED)
    grid = np.unique(np.round(np.geomspace(50, 2_000_000, 80)).astype(np.int64))
    n_gauss = required_n(gaussian_mechanism, cancer, W, alpha=alpha, beta=beta, n_grid=grid, trials=trials,
                         rng=SEED, epsilon=epsilon, delta=delta, sensitivity=math.sqrt(m))
    n_lap = required_n(composed_laplace_mechanism, cancer, W, alpha=alpha, beta=beta, n_grid=grid,
                       trials=trials, rng=SEED, epsilon=epsilon)
    sigma = gaussian_sigma(math.sqrt(m), epsilon, delta)                      # count units
    low, safe = _grid_bracket(grid, lambda n: gaussian_failure_probability(alpha * n, m, sigma), beta, trials)
    assert low < n_gauss <= safe
    low, safe = _grid_bracket(grid, lambda n: laplace_failure_probability(alpha * n, m, m, epsilon), beta, trials)
    assert low < n_lap <= safe
    # the union-bound sizes are sufficient: the Gaussian one with room to spare, the Laplace one is tight
    assert n_gauss <= gaussian_sample_complexity(m, beta, epsilon, delta, alpha) * 1.15
    assert n_lap <= split_budget_sample_complexity(m, beta, epsilon, alpha) * 1.15 ** 2


def test_required_n_matches_a_scan(cancer):
    W = random_queries(8, 2048, rng=SEED)
    grid = np.arange(100, 3000, 100)
    kw = dict(alpha=0.1, beta=0.1, trials=300, epsilon=0.5, delta=1e-6)
    found = required_n(gaussian_mechanism, cancer, W, n_grid=grid, rng=7, **kw)
    # scan with the same common random numbers: every grid n from `found` up passes, the one below fails
    below = grid[grid < found]
    assert below.size == 0 or required_n(gaussian_mechanism, cancer, W, n_grid=below, rng=7, **kw) is None
    assert required_n(gaussian_mechanism, cancer, W, n_grid=[found], rng=7, **kw) == found
    assert required_n(gaussian_mechanism, cancer, W, n_grid=[10], rng=7, **kw) is None


@pytest.mark.parametrize("kw, error, match", [
    (dict(alpha=0.0), ValueError, "alpha"), (dict(beta=1.5), ValueError, "beta"),
    (dict(trials=0), ValueError, "trials"), (dict(n_grid=[]), ValueError, "n_grid"),
    (dict(n_grid=[0, 10]), ValueError, "n_grid"), (dict(n_grid=[1.5]), ValueError, "n_grid"),
    (dict(mechanism="gauss"), TypeError, "mechanism"),
])
def test_required_n_bad_input(cancer, kw, error, match):
    args = dict(mechanism=gaussian_mechanism, x=cancer, workload=MatrixWorkload(np.ones((2, 2048))),
                alpha=0.1, beta=0.1, n_grid=[100, 200], trials=10, epsilon=0.5, delta=1e-6)
    args.update(kw)
    with pytest.raises(error, match=match):
        required_n(**args)


def test_composed_laplace_pays_the_range_of_overlapping_cuts():
    """Cut queries with S and T overlapping have coefficient 2: each count moves by 2, so the per-query scale
    doubles (the same ε_q per step); queries in [0, 1] keep sensitivity 1."""
    from dpbook.graphs import cut_workload
    x = np.array([0, 0, 1])
    overlap = composed_laplace_mechanism(x, cut_workload(3, [([0, 1], [0, 1])]), epsilon=1.0, n=1, rng=0)
    disjoint = composed_laplace_mechanism(x, cut_workload(3, [([0], [1])]), epsilon=1.0, n=1, rng=0)
    assert overlap.trace["sensitivity"] == 2.0 and disjoint.trace["sensitivity"] == 1.0
    assert overlap.noise_scale == pytest.approx(2 * disjoint.noise_scale)
    assert overlap.trace["epsilon_q"] == disjoint.trace["epsilon_q"] == 1.0
