"""The privacy-loss picture of IDC-Thm4.1: exact per-round losses (against Monte Carlo), the proof's round
classes (Claims 4.2–4.8), the PA(i) audit of Algorithm 1 and its broken control, and the chapter's widgets."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import integrate, stats

from dpbook.broken.idc import online_idc_uncomposed
from dpbook.data import add_row
from dpbook.experiments import failure_rate
from dpbook.explorers.idc import explore_online
from dpbook.idc import AdversarialStream, FixedStream, MultiplicativeWeightsIDC, make_rule
from dpbook.privacy_loss import (HALTED, R0, R1, RSTAR, classify_rounds, log_interval_probability, replay_alg1,
                                 round_log_likelihood, round_loss)
from dpbook.queries import MatrixWorkload, cancer3, cancer6
from dpbook.stats import clopper_pearson, clopper_pearson_upper

ONE = MatrixWorkload(np.array([[0.0, 1.0]]))


# =========================================================================== closed forms

def test_log_interval_probability_matches_scipy_and_is_stable():
    b = 0.7
    lo = np.array([-3.0, -0.5, 0.2, -4.0, 1.0])
    hi = np.array([-1.0, 0.5, 2.0, 4.0, 1.0 + 1e-9])
    exact = stats.laplace.cdf(hi, scale=b) - stats.laplace.cdf(lo, scale=b)
    assert np.allclose(np.exp(log_interval_probability(lo, hi, b)), exact, rtol=1e-6)
    # deep tails: ½ e^{-lo/b}(1 - e^{-(hi-lo)/b}) in logs, no underflow to -inf
    assert log_interval_probability(500.0, 501.0, 1.0) == pytest.approx(math.log(0.5) - 500 + math.log(1 - math.exp(-1)))
    assert log_interval_probability(-501.0, -500.0, 1.0) == pytest.approx(math.log(0.5) - 500 + math.log(1 - math.exp(-1)))
    assert log_interval_probability(-50.0, 50.0, 1.0) == pytest.approx(math.log1p(-math.exp(-50)))
    with pytest.raises(ValueError, match="lo"):
        log_interval_probability(1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="b"):
        log_interval_probability(0.0, 1.0, 0.0)


def test_round_likelihood_normalises():
    """p(⊥) + ∫_{|y-a|>=τ} p(y) dy = 1 (the exact per-round likelihood)."""
    mu, a, threshold, b = 0.42, 0.5, 0.2, 0.05
    bottom = math.exp(round_log_likelihood(np.nan, mu, a, threshold, b))
    dens = lambda y: math.exp(round_log_likelihood(y, mu, a, threshold, b))
    rest = (integrate.quad(dens, -np.inf, a - threshold)[0] + integrate.quad(dens, a + threshold, np.inf)[0])
    assert bottom + rest == pytest.approx(1.0, abs=1e-9)
    assert round_log_likelihood(a + threshold / 2, mu, a, threshold, b) == -np.inf          # inside the window: impossible


def test_round_loss_against_monte_carlo():
    """The exact L_t agrees with Monte Carlo: P[⊥] and the probability of output bins under D and D'."""
    n, eps0 = 100, 0.5
    b, s = 1 / (eps0 * n), 1 / n
    mu, mup, a, threshold = 0.55, 0.55 + s, 0.5, 0.04                 # truth near the window's right edge
    rng = np.random.default_rng(0)
    R = 1_000_000
    yD, yP = mu + rng.laplace(0, b, R), mup + rng.laplace(0, b, R)
    botD, botP = np.abs(yD - a) < threshold, np.abs(yP - a) < threshold
    for outputs, m in ((botD, mu), (botP, mup)):
        lo, hi = clopper_pearson(int(outputs.sum()), R, 1e-6)
        assert lo <= math.exp(round_log_likelihood(np.nan, m, a, threshold, b)) <= hi
    # ⊥'s loss: ln(P_D[⊥]/P_D'[⊥]) measured vs exact
    measured = math.log(botD.mean() / botP.mean())
    assert measured == pytest.approx(float(round_loss(np.nan, mu, mup, a, threshold, b)), abs=0.02)
    # numeric bins on each side of (μ, μ'): the density ratio is constant there, so bin ratio = L(y)
    for lo_, hi_ in ((0.54, 0.55), (0.56, 0.60), (0.60, 0.75)):    # >= 40k hits each: tolerance >= 8 sd
        pD, pP = np.mean((yD > lo_) & (yD < hi_)), np.mean((yP > lo_) & (yP < hi_))
        exact = float(round_loss(0.5 * (lo_ + hi_), mu, mup, a, threshold, b))
        assert abs(exact) == pytest.approx(eps0)
        assert math.log(pD / pP) == pytest.approx(exact, abs=0.06)


def test_every_round_loss_is_at_most_epsilon0():
    """Each realised |L_t| <= ε0 = s/b (a density ratio or a shifted interval probability)."""
    rng = np.random.default_rng(1)
    n, eps0, threshold = 1000, 0.3, 0.05
    b, s = 1 / (eps0 * n), 1 / n
    mu = rng.random(10_000)
    mup = mu + rng.choice([-s, s], 10_000)
    a = mu + rng.normal(0, 0.08, 10_000)
    y = mu + rng.laplace(0, b, 10_000)
    v = np.where(np.abs(y - a) >= threshold, y, np.nan)
    L = round_loss(v, mu, mup, a, threshold, b)
    assert np.all(np.abs(L) <= eps0 * (1 + 1e-9)) and np.abs(L).max() > 0.99 * eps0


def test_r0_round_can_lose_epsilon0():
    """Erratum-type finding: Claim 4.2's "zero loss on R⁰" is not the likelihood ratio.  With d = τ, a noise
    value Z = τ is R⁰ (|Z - d| = 0 < τ - s) and outputs ⊥, yet L_t = ln p_D(⊥)/p_D'(⊥) = ε0 exactly."""
    n, eps0, threshold = 100, 0.2, 0.1
    b, s = 1 / (eps0 * n), 1 / n
    mu, mup = 0.3, 0.3 - s
    a = mu + threshold
    assert classify_rounds(threshold, a - mu, threshold, s) == R0
    assert float(round_loss(np.nan, mu, mup, a, threshold, b)) == pytest.approx(eps0, rel=1e-12)


def test_classify_rounds_hand_values():
    threshold, s = 0.2, 0.01
    d = 0.05
    Z = np.array([0.05, 0.05 + 0.18, 0.05 + 0.195, 0.05 - 0.205, 0.05 + 0.21, 0.05 - 0.5])
    assert list(classify_rounds(Z, d, threshold, s)) == [R0, R0, RSTAR, RSTAR, R1, R1]


# =========================================================================== replays of Algorithm 1

def _tight(n1=90, n=100):
    x = np.array([n - n1, n1])
    return x, add_row(x, 1), n


def test_replay_transcript_likelihood_is_a_density_ratio():
    """E_D[exp(-L(v))] = E_D[p_D'(v)/p_D(v)] = 1 for the exact transcript likelihood (Hoeffding at 1e-6)."""
    x, xp, n = _tight(60, 100)
    rep = replay_alg1(x, xp, MultiplicativeWeightsIDC(2, 0.05), FixedStream(ONE, [0] * 5), delta=1e-3,
                      epsilon0=0.2, b_max=3, n=n, runs=200_000, rng=2)
    w = np.exp(-rep.total)
    lo, hi = math.exp(-5 * 0.2), math.exp(5 * 0.2)
    assert w.min() >= lo - 1e-12 and w.max() <= hi + 1e-12
    tol = (hi - lo) * math.sqrt(math.log(2 / 1e-6) / (2 * rep.runs))
    assert abs(w.mean() - 1.0) <= tol
    assert np.abs(rep.loss).max() <= 0.2 * (1 + 1e-9)


def test_replay_claims_4_5_and_4_6():
    """Claim 4.5: among non-R⁰ rounds the R¹ fraction is >= p0; Claim 4.6: their number is <= T0; per-round
    |L_t| <= ε*."""
    x, W = cancer6(100)
    order = np.random.default_rng(3).integers(0, W.m, 150)
    rep = replay_alg1(x, add_row(x, int(np.argmax(x))), MultiplicativeWeightsIDC(64, 0.1), FixedStream(W, order),
                      delta=1e-6, epsilon=1.0, b_max=20, runs=300, rng=4)
    non0 = (rep.cls == R1) | (rep.cls == RSTAR)
    assert clopper_pearson_upper(int((rep.cls == R1).sum()), int(non0.sum()), 1e-6) >= rep.p0
    assert rep.updating_rounds.max() <= rep.T0
    assert np.abs(rep.loss).max() <= rep.epsilon0 * (1 + 1e-9) <= rep.epsilon_star
    assert np.all(rep.loss[rep.cls == HALTED] == 0)
    assert set(rep.class_counts()) and rep.loss_by_class()["R0 (never updates)"] > 0


def test_pa_i_reconstructed_alg1_and_uncomposed_control():
    """PA(i): P[L(v) > ε] consistent with <= δ (CP at 1e-6) for Algorithm 1 with the reconstructed ε0;
    the ε0 = ε control exceeds ε far more often than δ."""
    x, xp, n = _tight(90, 100)
    stream = FixedStream(ONE, [0] * 10)
    rule = MultiplicativeWeightsIDC(2, 0.1)
    ok = replay_alg1(x, xp, rule, stream, delta=1e-3, epsilon=1.0, b_max=3, n=n, runs=20_000, rng=5)
    assert ok.epsilon == pytest.approx(1.0)
    assert ok.exceedance().consistent_with(1e-3)
    bad = replay_alg1(x, xp, rule, stream, delta=1e-3, epsilon=1.0, b_max=3, n=n, runs=20_000, rng=5,
                      mechanism=online_idc_uncomposed)
    assert bad.epsilon == 1.0 and bad.epsilon0 == 1.0
    assert not bad.exceedance().consistent_with(1e-3)


@pytest.mark.parametrize("call, err, name", [
    (lambda: replay_alg1(np.array([5, 5]), np.array([5, 7]), MultiplicativeWeightsIDC(2, 0.1), ONE, delta=1e-3,
                         epsilon=1.0), ValueError, "neighbours"),
    (lambda: replay_alg1(np.array([5, 5]), np.array([5, 5, 1]), MultiplicativeWeightsIDC(2, 0.1), ONE, delta=1e-3,
                         epsilon=1.0), ValueError, "x_prime"),
    (lambda: replay_alg1(np.array([5, 5]), np.array([5, 6]), MultiplicativeWeightsIDC(2, 0.1), ONE, delta=0.0,
                         epsilon=1.0), ValueError, "delta"),
    (lambda: replay_alg1(np.array([5, 5]), np.array([5, 6]), MultiplicativeWeightsIDC(2, 0.1), ONE, delta=1e-3,
                         epsilon=1.0, runs=0), ValueError, "runs"),
    (lambda: round_log_likelihood(np.nan, 0.5, 0.5, 0.0, 1.0), ValueError, "threshold"),
    (lambda: round_log_likelihood(np.nan, np.inf, 0.5, 0.1, 1.0), ValueError, "mu"),
    (lambda: classify_rounds(0.1, 0.0, 0.2, -1.0), ValueError, "slack"),
    (lambda: explore_online(m=0), ValueError, "m"), (lambda: explore_online(analyst="x"), ValueError, "analyst"),
    (lambda: make_rule("XX", 8, 0.1, 10), ValueError, "idc"),
])
def test_bad_input(call, err, name):
    with pytest.raises(err, match=name):
        call()


def test_replay_determinism():
    x, xp, n = _tight(70, 100)
    run = lambda seed: replay_alg1(x, xp, MultiplicativeWeightsIDC(2, 0.1), FixedStream(ONE, [0] * 6), delta=1e-3,
                                   epsilon0=0.3, b_max=2, n=n, runs=50, rng=seed).total
    assert np.array_equal(run(1), run(1)) and not np.array_equal(run(1), run(2))


# =========================================================================== the chapter's widgets

def test_widgets_return_figures_and_are_seeded():
    for idc, alpha, scale in (("MW", 0.1, 2000), ("Median", 0.2, 200), ("FK", 0.1, 5000)):
        fig = explore_online(alpha_u=alpha, scale=scale, m=20, idc=idc, trials=5)
        assert len(fig.axes) == 2
        plt.close(fig)
    x8, W8 = cancer3()
    assert x8.size == 8 and W8.m == 255 and cancer6()[0].size == 64




def test_peak_moment_ratio_is_the_largest_ratio_over_the_edge():
    """Chapter 12's sharpness of the constant 4: the golden-section peak is at least every ratio on a grid of edge
    positions (and not far above the grid's best), lies in (1, 4], tends to 2 as ε0 shrinks; a wrong search (the
    ratio at the grid's worst edge) is below it, so the comparison can fail."""
    from dpbook.privacy_loss import _edge_moment_ratio, peak_moment_ratio
    for e0 in (0.5, 0.05):
        peak, edge = peak_moment_ratio(e0)
        grid = [_edge_moment_ratio(e0, c, 20, 50_001) for c in np.linspace(0.0, e0, 41)]
        assert 0.0 <= edge <= e0 and max(grid) <= peak + 1e-9 and peak - max(grid) < 1e-3
        assert 1.0 < peak <= 4.0 and min(grid) < peak - 1e-3
    assert abs(peak_moment_ratio(0.01)[0] - 2.0) < 0.01
    for kwargs, name in ((dict(epsilon0=0.0), "epsilon0"), (dict(epsilon0=0.6), "epsilon0"), (dict(epsilon0=1e-12), "epsilon0"),
                         (dict(epsilon0=0.1, n=0), "n"), (dict(epsilon0=0.1, points=10), "points"),
                         (dict(epsilon0=0.1, xatol=0.0), "xatol")):
        with pytest.raises(ValueError, match=name):
            peak_moment_ratio(**kwargs)
