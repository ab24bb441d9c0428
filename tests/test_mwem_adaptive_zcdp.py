"""adaptive_marginals (dpbook.mwem) at delta > 0: the (ε, δ) variant through zCDP (AIM's accounting) — its zCDP
ledger, the Gaussian σ of its steps against dp-accounting's Gaussian RDP, the pure full-table route, the audit of
its 1-way step and its broken twin, bad input.  The ledger rule itself is tested in tests/test_ledger.py."""
import math

import numpy as np
import pytest

from dpbook.data import load_cancer
from dpbook.mwem import _ZcdpRounds, adaptive_marginals, adaptive_zcdp_opening
from dpbook.noise import gaussian_noise, laplace_noise
from dpbook.queries import k_way_marginals
from dpbook.release import compose, zcdp_epsilon, zcdp_of, zcdp_rho

rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
from dp_accounting import dp_event  # noqa: E402

CANCER = load_cancer()
N_CANCER = int(np.sum(CANCER.x))
W2 = k_way_marginals(11, 2)
ORDERS = list(1.0 + np.geomspace(1e-3, 1e4, 4001))


def gaussian_epsilon(noise_multipliers, delta) -> float:
    """dp-accounting's ε at δ of Gaussian mechanisms with these σ/Δ₂ (RDP of each: α/(2z²)), composed."""
    acc = rdp.RdpAccountant(orders=ORDERS)
    for z in noise_multipliers:
        acc.compose(dp_event.GaussianDpEvent(z))
    return acc.get_epsilon(delta)


@pytest.mark.parametrize("neighbours", ["add/remove", "replace-one"])
def test_zcdp_ledger_composes_to_the_claim(neighbours):
    n = N_CANCER if neighbours == "add/remove" else None
    r = adaptive_marginals(CANCER.x, W2, epsilon=0.7, delta=1e-6, n=n, neighbours=neighbours, route="adaptive",
                           trials=2, rng=1)
    assert r.ledger.rule == "zcdp" and r.ledger.delta_prime == 1e-6
    assert compose(r.ledger) == (0.7, 1e-6) and (r.epsilon, r.delta) == (0.7, 1e-6)
    rho = zcdp_rho(0.7, 1e-6)
    assert r.trace["rho"] == rho and zcdp_of(r.ledger) == pytest.approx(rho, rel=1e-12)
    assert zcdp_epsilon(rho, 1e-6) <= 0.7
    assert len(r.ledger) == 1 + 2 * r.trace["rounds"][0]
    selections = [s for s in r.ledger[1:] if "exponential" in s.step]
    assert selections and all(s.rho == pytest.approx(s.epsilon ** 2 / 8, rel=1e-15) for s in selections)
    measures = [s for s in r.ledger[1:] if "gaussian" in s.step]
    assert all(s.epsilon is None and s.rho > 0 for s in measures)
    assert all(compose(g) == (0.7, 1e-6) for g in r.trace["ledgers"])
    rounds = r.trace["round_rho"][0]
    assert r.trace["rho_one_way"] + math.fsum(rounds) == pytest.approx(rho, rel=1e-12)
    assert rounds[0] == pytest.approx(rho / (16 * 11))                         # AIM's 16d planned rounds
    assert set(np.round(rounds[:-1] / rounds[0], 9)) <= {4.0 ** j for j in range(12)}    # ×4 annealing only


@pytest.mark.parametrize("l2, d", [(1.0, 11), (math.sqrt(2.0), 11), (1.0, 3)])
def test_gaussian_steps_spend_the_rho_they_are_charged(l2, d):
    """dp-accounting as the oracle of ``ρ = Δ₂²/(2σ²)``: the 1-way step's σ (the d tables together: L2 sensitivity
    ``Δ₂ sqrt(d)``) and a round's σ give, as Gaussian mechanisms, the ε that the ledger's ρ gives."""
    rho, delta = 0.3, 1e-6
    rho_round, rho_one, sigma = adaptive_zcdp_opening(rho, d, l2, 0.3)
    assert gaussian_epsilon([sigma / (l2 * math.sqrt(d))], delta) == pytest.approx(zcdp_epsilon(rho_one, delta),
                                                                                  rel=1e-5)
    rounds = _ZcdpRounds(rho, d, 1.0 if l2 == 1.0 else 2.0, l2, 0.3, gaussian_noise, adaptive_zcdp_opening)
    rho_t, last = rounds.propose()
    rounds.commit(rho_t)
    eps_sel, scale = rounds.split(rho_t)
    select, measure = rounds.round_steps(1, (0, 1))
    assert not last and select.rho + measure.rho == pytest.approx(rho_round, rel=1e-12)
    assert gaussian_epsilon([scale / l2], delta) == pytest.approx(zcdp_epsilon(measure.rho, delta), rel=1e-5)
    assert select.epsilon == eps_sel and select.rho == pytest.approx(0.3 * rho_round, rel=1e-12)
    # the control: the broken twin's 1-way σ (one table's L2 sensitivity) spends d times the ρ it is charged
    from dpbook.broken.mwem import zcdp_opening_unscaled
    broken = zcdp_opening_unscaled(rho, d, l2, 0.3)
    assert broken[:2] == (rho_round, rho_one)
    assert gaussian_epsilon([broken[2] / (l2 * math.sqrt(d))], delta) > 1.5 * zcdp_epsilon(rho_one, delta)


def test_whole_ledger_against_dp_accounting():
    """The claim of a run equals dp-accounting's RDP composition of its steps' ρ (ZCDpEvent) at δ, to 1e-5 (the oracle's grid of orders)."""
    r = adaptive_marginals(CANCER.x, W2, epsilon=1.0, delta=1e-6, n=N_CANCER, route="adaptive", rng=0)
    acc = rdp.RdpAccountant(orders=ORDERS)
    for s in r.ledger:
        acc.compose(dp_event.ZCDpEvent(s.rho))
    assert acc.get_epsilon(1e-6) == pytest.approx(r.epsilon, rel=1e-5)
    assert r.epsilon <= acc.get_epsilon(1e-6)


def test_measurements_carry_gaussian_noise_of_the_charged_sigma():
    """The 1-way step's residuals over 200 runs: standard deviation σ_1 = sqrt(d/(2ρ_1)) (within 5%; the
    false-alarm probability of a χ² with 4400 degrees of freedom off by 5% is far below 1e-6) and Gaussian tails
    (excess kurtosis near 0, Laplace's is 3)."""
    r = adaptive_marginals(CANCER.x, W2, epsilon=2.0, delta=1e-6, n=N_CANCER, route="adaptive", trials=200, rng=5)
    bits = (np.arange(CANCER.N)[:, None] >> np.arange(10, -1, -1)) & 1
    truth = np.concatenate([[CANCER.x[bits[:, a] == 0].sum(), CANCER.x[bits[:, a] == 1].sum()] for a in range(11)])
    res = np.concatenate([np.concatenate([y for S, y in m[:11]]) - truth for m in r.trace["measurements"]])
    sigma = math.sqrt(11 / (2 * r.ledger[0].rho))
    assert res.std() == pytest.approx(sigma, rel=0.05)
    kurtosis = np.mean((res / res.std()) ** 4) - 3
    assert abs(kurtosis) < 0.6


def test_full_table_route_is_pure_laplace():
    """On the full-table route one Laplace table beats one Gaussian table at δ = 1e-6: the claim is (ε, 0)."""
    r = adaptive_marginals(CANCER.x, W2, epsilon=1.0, delta=1e-6, n=N_CANCER, rng=0)
    pure = adaptive_marginals(CANCER.x, W2, epsilon=1.0, n=N_CANCER, rng=0)
    assert r.trace["route"] == "full table" and (r.epsilon, r.delta) == (1.0, 0.0)
    np.testing.assert_array_equal(r.answers, pure.answers)


def test_delta_zero_is_the_pure_release():
    a = adaptive_marginals(CANCER.x, W2, epsilon=0.3, n=N_CANCER, route="adaptive", rng=2)
    b = adaptive_marginals(CANCER.x, W2, epsilon=0.3, delta=0.0, n=N_CANCER, route="adaptive", rng=2,
                           sampler=laplace_noise)
    assert a.answers.tobytes() == b.answers.tobytes() and list(a.ledger) == list(b.ledger)
    assert a.ledger.rule == "basic" and "round_rho" not in a.trace


def test_same_seed_same_bytes_at_delta():
    run = lambda: adaptive_marginals(CANCER.x, W2, epsilon=0.5, delta=1e-6, n=N_CANCER, trials=2, rng=7)
    assert run().answers.tobytes() == run().answers.tobytes()


def test_audit_of_the_zcdp_one_way_step_and_its_broken_twin():
    from dpbook.audit import audit_cases
    cases = {c.name: c for c in audit_cases(names=["adaptive_marginals_zcdp_one_way",
                                                   "adaptive_marginals_zcdp_one_way_unscaled"])}
    case = cases["Adaptive marginals (ε, δ): the zCDP 1-way step"]
    res = case.run(case.seed)
    assert case.epsilon == pytest.approx(1.25, rel=1e-9) and case.delta == 0.05
    assert 0.7 * case.true_epsilon <= res.epsilon_lb <= case.epsilon
    case = cases["Adaptive marginals (ε, δ) forgetting the 1-way factor sqrt(d)"]
    assert case.run(case.seed).epsilon_lb > case.epsilon


@pytest.mark.parametrize("kwargs, exc, name", [
    (dict(delta=-1e-6), ValueError, "delta"), (dict(delta=1.0), ValueError, "delta"),
    (dict(delta="a"), TypeError, "delta"),
    (dict(delta=1e-6, sampler=laplace_noise), ValueError, "sampler"),
    (dict(sampler=gaussian_noise), ValueError, "sampler"),
    (dict(delta=1e-6, select_share=1.0), ValueError, "select_share"),
])
def test_bad_parameters_at_delta(kwargs, exc, name):
    call = dict(epsilon=1.0, n=N_CANCER, rng=0, route="adaptive") | kwargs
    with pytest.raises(exc, match=name):
        adaptive_marginals(CANCER.x, W2, **call)


def test_full_table_route_draws_the_callers_gaussian_sampler():
    """A sampler the caller passes at δ > 0 is the one drawn on the full-table route too: N(0, σ²) at
    σ = 1/sqrt(2ρ) on every cell (the residuals' spread and their excess kurtosis near 0, Laplace's is 3), one
    ρ-zCDP step, an (ε, δ) claim — never Laplace noise with an (ε, 0) claim; under the public route rule the
    Gaussian's larger noise sends cancer's 2-way workload to the adaptive route."""
    r = adaptive_marginals(CANCER.x, W2, epsilon=1.0, delta=1e-6, n=N_CANCER, route="full table",
                           sampler=gaussian_noise, trials=20, rng=3)
    rho = zcdp_rho(1.0, 1e-6)
    assert r.trace["route"] == "full table" and r.ledger.rule == "zcdp" and (r.epsilon, r.delta) == (1.0, 1e-6)
    assert len(r.ledger) == 1 and r.ledger[0].rho == pytest.approx(rho, rel=1e-12)
    res = np.concatenate([m[0][1] - CANCER.x for m in r.trace["measurements"]])       # 20 × 2048 residuals
    assert res.std() == pytest.approx(1.0 / math.sqrt(2.0 * rho), rel=0.03)
    assert abs(np.mean((res / res.std()) ** 4) - 3) < 0.3
    auto = adaptive_marginals(CANCER.x, W2, epsilon=1.0, delta=1e-6, n=N_CANCER, sampler=gaussian_noise, rng=3)
    default = adaptive_marginals(CANCER.x, W2, epsilon=1.0, delta=1e-6, n=N_CANCER, rng=3)
    assert auto.trace["route"] == "adaptive" and auto.delta == 1e-6
    assert default.trace["route"] == "full table" and default.delta == 0.0
