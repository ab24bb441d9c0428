"""The floating-point-safe samplers of dpbook.noise: laws, exactness, grids, hand values, bad input."""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpbook.laplace import grid_laplace_release, laplace_mechanism
from dpbook.noise import (GRID_BITS, discrete_gaussian, discrete_gaussian_delta, discrete_gaussian_exact,
                          discrete_gaussian_pmf, discrete_laplace, discrete_laplace_exact, discrete_laplace_pmf,
                          grid_granularity, grid_laplace, round_to_grid)

LEVEL = 1e-6
SAMPLERS = [discrete_laplace, discrete_laplace_exact, discrete_gaussian, discrete_gaussian_exact, grid_laplace]


# --- hand-computed values ----------------------------------------------------------------------------------

def test_discrete_laplace_pmf_hand_values():
    # P[0] = (1 - e^{-1})/(1 + e^{-1}) = tanh(1/2) for scale 1; P[k] = P[0] e^{-|k|}
    assert discrete_laplace_pmf(0, 1.0) == pytest.approx(0.46211715726000974, rel=1e-14)
    assert discrete_laplace_pmf(-2, 1.0) == pytest.approx(0.46211715726000974 * math.exp(-2), rel=1e-14)
    assert discrete_laplace_pmf(np.arange(-60, 61), 2.5).sum() == pytest.approx(1.0, abs=1e-9)


def test_discrete_gaussian_pmf_hand_values():
    # σ = 1: Σ_j e^{-j²/2} = 2.5066282746... (= sqrt(2π) up to 1e-8, Poisson summation), so P[0] = 0.39894228...
    assert discrete_gaussian_pmf(0, 1.0) == pytest.approx(1 / 2.5066282771, rel=1e-8)
    assert discrete_gaussian_pmf(1, 1.0) == pytest.approx(math.exp(-0.5) / 2.5066282771, rel=1e-8)
    # σ = 0.5: Σ_j e^{-2 j²} = 1 + 2e^{-2} + 2e^{-8} + 2e^{-18} + ...
    z = 1 + 2 * math.exp(-2) + 2 * math.exp(-8) + 2 * math.exp(-18)
    assert discrete_gaussian_pmf(0, 0.5) == pytest.approx(1 / z, rel=1e-12)


def test_discrete_gaussian_delta_against_cks20_theorem_7():
    """CKS20 Thm 7: δ = P[Z > εσ²/Δ - Δ/2] - e^ε P[Z > εσ²/Δ + Δ/2] (Z discrete Gaussian), by hand sums."""
    for eps, sigma, sens in [(1.0, 2.0, 1), (0.5, 3.0, 1), (2.0, 1.5, 2)]:
        k = np.arange(-200, 201)
        p = discrete_gaussian_pmf(k, sigma)
        a = eps * sigma ** 2 / sens
        by_theorem = p[k > a - sens / 2].sum() - math.exp(eps) * p[k > a + sens / 2].sum()
        assert discrete_gaussian_delta(eps, sigma, sens) == pytest.approx(by_theorem, rel=1e-9, abs=1e-15)
    # hand value, σ = 1, ε = 1, Δ = 1: the loss (1 - 2y)/2 > 1 iff y <= -1, so δ = P[Z <= -1] - e P[Z <= -2]
    p = lambda j: math.exp(-j * j / 2) / 2.5066282771
    tail = lambda m: sum(p(j) for j in range(m, 40))
    assert discrete_gaussian_delta(1.0, 1.0) == pytest.approx(tail(1) - math.e * tail(2), rel=1e-8)


def test_discrete_gaussian_delta_is_close_to_the_continuous_one_for_large_sigma():
    """For σ >> 1 the discrete Gaussian's δ(ε) tends to the continuous Gaussian's (Balle–Wang 2018)."""
    eps, sigma = 1.0, 20.0
    cont = stats.norm.cdf(-eps * sigma + 1 / (2 * sigma)) - math.exp(eps) * stats.norm.cdf(-eps * sigma - 1 / (2 * sigma))
    eps, sigma = 0.2, 5.0
    cont = stats.norm.cdf(-eps * sigma + 1 / (2 * sigma)) - math.exp(eps) * stats.norm.cdf(-eps * sigma - 1 / (2 * sigma))
    assert discrete_gaussian_delta(eps, sigma) == pytest.approx(cont, rel=0.05)


def test_grid_granularity_hand_values():
    assert grid_granularity(1.0) == 2.0 ** -GRID_BITS                 # ceil(log2 1) = 0
    assert grid_granularity(3.0) == 2.0 ** (2 - GRID_BITS)            # ceil(log2 3) = 2
    assert grid_granularity(0.75) == 2.0 ** -GRID_BITS                # ceil(log2 .75) = 0
    assert grid_granularity(0.5) == 2.0 ** (-1 - GRID_BITS)
    assert grid_granularity(2.0 ** 45) == 1.0                         # capped: integers stay on the grid
    assert grid_granularity(10.0, bits=4) == 1.0                      # 2^(4-4)
    assert grid_granularity(10.0, bits=6) == 0.25


def test_round_to_grid_is_exact():
    assert round_to_grid(0.3, 0.25) == 0.25 and round_to_grid(-0.9, 0.5) == -1.0
    v = np.random.default_rng(0).normal(size=1000) * 1e3
    lam = 2.0 ** -20
    r = round_to_grid(v, lam)
    assert np.all(np.abs(r - v) <= lam / 2) and np.all(np.mod(r, lam) == 0)


# --- the laws (chi-square at level 1e-6) ---------------------------------------------------------------------

def _chi2_pvalue(draws, pmf, lo, hi):
    """Pearson chi-square of integer draws against ``pmf`` on bins lo..hi plus the two tails."""
    k = np.arange(lo, hi + 1)
    p = pmf(k)
    probs = np.r_[1 - p.sum() - (1 - pmf(np.arange(lo - 400, hi + 401)).sum()) / 2, p, 0.0]
    below = pmf(np.arange(lo - 400, lo)).sum()
    above = pmf(np.arange(hi + 1, hi + 401)).sum()
    probs = np.r_[below, p, above]
    observed = np.r_[np.sum(draws < lo), [np.sum(draws == j) for j in k], np.sum(draws > hi)]
    expected = probs / probs.sum() * draws.size
    return stats.chisquare(observed, expected).pvalue


@pytest.mark.parametrize("scale", [0.4, 1.0, 1 / 0.3, 12.5])
def test_discrete_laplace_law(scale):
    draws = discrete_laplace(scale, 200_000, 1)
    span = int(4 * scale) + 2
    assert _chi2_pvalue(draws, lambda k: discrete_laplace_pmf(k, scale), -span, span) > LEVEL


@pytest.mark.parametrize("scale", [0.4, 1 / 0.3])
def test_discrete_laplace_exact_law(scale):
    draws = discrete_laplace_exact(scale, 20_000, 2)
    span = int(3 * scale) + 2
    assert _chi2_pvalue(draws, lambda k: discrete_laplace_pmf(k, scale), -span, span) > LEVEL


@pytest.mark.parametrize("scale", [0.6, 2.0, 7.3])
def test_discrete_gaussian_law(scale):
    draws = discrete_gaussian(scale, 200_000, 3)
    span = int(3 * scale) + 1
    assert _chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, scale), -span, span) > LEVEL


@pytest.mark.parametrize("scale", [0.6, 2.5])
def test_discrete_gaussian_exact_law(scale):
    draws = discrete_gaussian_exact(scale, 20_000, 4)
    span = int(3 * scale) + 1
    assert _chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, scale), -span, span) > LEVEL


def test_the_law_test_can_fail():
    """The same chi-square rejects a discrete Laplace of the wrong scale (the law tests have power)."""
    draws = discrete_laplace(1.15, 200_000, 1)
    assert _chi2_pvalue(draws, lambda k: discrete_laplace_pmf(k, 1.0), -6, 6) < LEVEL


def test_exact_sampler_uses_the_exact_rational_scale():
    """The exact sampler's parameter is Fraction(scale): for scale 1/3 (not a dyadic) its mean |Z| matches."""
    scale = 1 / 3
    assert Fraction(scale) != Fraction(1, 3)                    # the float is a dyadic rational near 1/3
    draws = discrete_laplace_exact(scale, 30_000, 5)
    q = math.exp(-1 / scale)
    mean_abs = 2 * q / ((1 - q) * (1 + q))                      # E|Z| for the two-sided geometric
    se = np.abs(draws).std() / math.sqrt(draws.size)
    assert abs(np.abs(draws).mean() - mean_abs) < 5.3 * se


def test_grid_laplace_is_a_discretised_laplace():
    """grid_laplace(b) = Λ·DL(b/Λ): on the grid, and its law matches Lap(b) (KS against the continuous CDF)."""
    b = 1.7
    lam = grid_granularity(b)
    y = grid_laplace(b, 100_000, 6)
    assert np.all(np.mod(y, lam) == 0)
    assert stats.kstest(y, stats.laplace(scale=b).cdf).pvalue > LEVEL


def test_outputs_are_integers_of_the_right_shape():
    for sampler in SAMPLERS[:4]:
        out = sampler(1.5, (3, 4), 0)
        assert out.shape == (3, 4) and out.dtype == np.int64
    assert grid_laplace(1.5, (2, 5), 0).shape == (2, 5)
    assert discrete_laplace(1.0, 0, 0).shape == (0,)


# --- grid release: support independent of the value ----------------------------------------------------------

def test_grid_release_support_does_not_depend_on_the_value():
    lam = grid_granularity(1.0)
    for q in (0.0, 0.3, 1.0 - 2.0 ** -42, 123.456):
        y = grid_laplace_release(np.array([q]), sensitivity=1.0, epsilon=1.0, trials=2000, rng=1)
        assert y.shape == (2000, 1) and np.all(np.mod(y, lam) == 0)


def test_grid_release_pays_for_the_rounding():
    """Scale (Δ + Λ)/ε: the empirical mean |noise| matches the discrete Laplace of that scale."""
    eps, sens = 0.5, 3.0
    lam = grid_granularity(sens / eps)
    y = grid_laplace_release(np.zeros(1), sensitivity=sens, epsilon=eps, trials=200_000, rng=2)[:, 0]
    b = (sens + lam) / eps
    se = np.abs(y).std() / math.sqrt(y.size)
    assert abs(np.abs(y).mean() - b) < 5.3 * se                 # E|Lap(b)| = b, discretisation error ~Λ


def test_mechanisms_take_the_sampler():
    x, Q = np.array([3, 5]), np.array([[1.0, 1.0], [0.0, 1.0]])
    for sampler in (discrete_laplace, grid_laplace, discrete_laplace_exact):
        r = laplace_mechanism(x, Q, n=int(x.sum()), epsilon=1.0, trials=50, rng=0, sampler=sampler)
        counts = r.answers * x.sum()
        lam = 1.0 if sampler is not grid_laplace else grid_granularity(2.0)
        assert np.all(np.mod(counts / lam, 1) == 0)          # n = 8: (c + noise)/n·n is exact


# --- determinism ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sampler", SAMPLERS, ids=lambda s: s.__name__)
def test_same_seed_same_noise(sampler):
    a, b, c = sampler(2.0, 50, 7), sampler(2.0, 50, 7), sampler(2.0, 50, 8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(sampler(2.0, 5, g1), sampler(2.0, 5, g2))


def test_grid_release_determinism():
    f = lambda seed: grid_laplace_release([0.2, 0.9], sensitivity=1.0, epsilon=1.0, trials=5, rng=seed)
    assert np.array_equal(f(1), f(1)) and not np.array_equal(f(1), f(2))


# --- bad input -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sampler", SAMPLERS, ids=lambda s: s.__name__)
@pytest.mark.parametrize("scale, exc", [(float("nan"), ValueError), (float("inf"), ValueError), (0.0, ValueError),
                                        (-1.0, ValueError), (2.0 ** 51, ValueError), ("1", TypeError),
                                        (True, TypeError), (None, TypeError)])
def test_samplers_reject_bad_scale(sampler, scale, exc):
    with pytest.raises(exc, match="scale"):
        sampler(scale, 3, 0)


@pytest.mark.parametrize("sampler", SAMPLERS, ids=lambda s: s.__name__)
def test_samplers_reject_bad_size_and_rng(sampler):
    with pytest.raises(ValueError, match="size"):
        sampler(1.0, -1, 0)
    with pytest.raises(TypeError, match="size"):
        sampler(1.0, 2.5, 0)
    with pytest.raises(TypeError, match="size"):
        sampler(1.0, [2, 3], 0)
    with pytest.raises(TypeError, match="rng"):
        sampler(1.0, 3, "seed")
    with pytest.raises(ValueError, match="rng"):
        sampler(1.0, 3, -5)


def test_pmfs_reject_bad_input():
    for pmf in (discrete_laplace_pmf, discrete_gaussian_pmf):
        with pytest.raises(TypeError, match="z"):
            pmf(0.5, 1.0)
        with pytest.raises(TypeError, match="z"):
            pmf(np.array([True]), 1.0)
        with pytest.raises(ValueError, match="scale"):
            pmf(0, float("nan"))
        with pytest.raises(ValueError, match="scale"):
            pmf(0, -1.0)
        with pytest.raises(TypeError, match="scale"):
            pmf(0, "a")


def test_discrete_gaussian_delta_rejects_bad_input():
    for bad, exc in [(float("nan"), ValueError), (-0.1, ValueError), (float("inf"), ValueError), ("1", TypeError)]:
        with pytest.raises(exc, match="epsilon"):
            discrete_gaussian_delta(bad, 1.0)
    for bad, exc in [(float("nan"), ValueError), (0.0, ValueError), (float("inf"), ValueError), ("1", TypeError)]:
        with pytest.raises(exc, match="scale"):
            discrete_gaussian_delta(1.0, bad)
    for bad, exc in [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)]:
        with pytest.raises(exc, match="sensitivity"):
            discrete_gaussian_delta(1.0, 1.0, bad)


def test_grid_helpers_reject_bad_input():
    for bad, exc in [(float("nan"), ValueError), (0.0, ValueError), (-2.0, ValueError), ("x", TypeError)]:
        with pytest.raises(exc, match="scale"):
            grid_granularity(bad)
    for bad, exc in [(0, ValueError), (51, ValueError), (4.0, TypeError)]:
        with pytest.raises(exc, match="bits"):
            grid_granularity(1.0, bits=bad)
    with pytest.raises(ValueError, match="granularity"):
        round_to_grid(1.0, 0.3)
    for bad, exc in [(float("nan"), ValueError), (0.0, ValueError), (float("inf"), ValueError), ("a", TypeError)]:
        with pytest.raises(exc, match="granularity"):
            round_to_grid(1.0, bad)
    with pytest.raises(ValueError, match="values"):
        round_to_grid([1.0, float("nan")], 0.5)
    with pytest.raises(ValueError, match="values"):
        round_to_grid([float("inf")], 0.5)
    with pytest.raises(ValueError, match="values"):
        round_to_grid(1e300, 2.0 ** -40)
    with pytest.raises(TypeError, match="values"):
        round_to_grid(["a"], 0.5)
    with pytest.raises(ValueError, match="bits"):
        grid_laplace(1.0, 3, 0, bits=0)


@pytest.mark.parametrize("kwargs, exc, name", [
    ({"values": [[0.1, 0.2]]}, ValueError, "values"),
    ({"values": []}, ValueError, "values"),
    ({"values": [float("nan")]}, ValueError, "values"),
    ({"values": [float("inf")]}, ValueError, "values"),
    ({"values": ["a"]}, TypeError, "values"),
    ({"values": [True]}, TypeError, "values"),
    ({"sensitivity": 0.0}, ValueError, "sensitivity"),
    ({"sensitivity": -1.0}, ValueError, "sensitivity"),
    ({"sensitivity": float("nan")}, ValueError, "sensitivity"),
    ({"sensitivity": float("inf")}, ValueError, "sensitivity"),
    ({"sensitivity": "1"}, TypeError, "sensitivity"),
    ({"epsilon": 0.0}, ValueError, "epsilon"),
    ({"epsilon": -1.0}, ValueError, "epsilon"),
    ({"epsilon": float("nan")}, ValueError, "epsilon"),
    ({"epsilon": float("inf")}, ValueError, "epsilon"),
    ({"epsilon": None}, TypeError, "epsilon"),
    ({"trials": 0}, ValueError, "trials"),
    ({"trials": 2.5}, TypeError, "trials"),
    ({"rng": "seed"}, TypeError, "rng"),
    ({"bits": 0}, ValueError, "bits"),
])
def test_grid_release_rejects_bad_input(kwargs, exc, name):
    args = {"values": [0.1, 0.2], "sensitivity": 1.0, "epsilon": 1.0, **kwargs}
    values = args.pop("values")
    with pytest.raises(exc, match=name):
        grid_laplace_release(values, **args)
