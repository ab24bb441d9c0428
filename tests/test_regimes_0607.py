"""Chapters 06–07's regime helpers: MWEM / SmallDB against the noisy histogram."""
import math

import numpy as np
import pytest

from dpbook.data import digits_subsample
from dpbook.explorers.mwem import MECHANISMS, digits_marginals, regime_errors
from dpbook.theory.composition import advanced_composition
from dpbook.theory.mwem import mwem_advanced_step_epsilon


def test_digits_subsample_is_real_rows_without_replacement():
    from dpbook.data import pixels_histogram
    full = pixels_histogram(10)
    assert np.array_equal(digits_subsample(10, 1797), full)
    a, b = digits_subsample(10, 450, rng=3), digits_subsample(10, 450, rng=3)
    assert np.array_equal(a, b) and a.sum() == 450 and np.all(a <= full)      # never more copies than real rows
    assert not np.array_equal(a, digits_subsample(10, 450, rng=4))
    for kw, exc, name in [(dict(d=0, n=10), ValueError, "d"), (dict(d=8, n=1798), ValueError, "n"),
                          (dict(d=8, n=2.5), TypeError, "n")]:
        with pytest.raises(exc, match=name):
            digits_subsample(**kw)


def test_digits_marginals_size():
    assert digits_marginals(16).m == 8 * math.comb(16, 3) == 4480
    assert digits_marginals(8, 2).m == 4 * math.comb(8, 2)
    with pytest.raises(ValueError, match="d"):
        digits_marginals(2)


def test_regime_errors_seeded_and_sane():
    a = regime_errors(8, 450, trials=2, rng=5)
    b = regime_errors(8, 450, trials=2, rng=5)
    assert tuple(a) == MECHANISMS
    for name in MECHANISMS:
        assert np.array_equal(a[name], b[name])
        assert np.all((a[name] >= 0) & (a[name] <= 1.5))
    # the histogram's error is pure noise: at N = 256, n = 450, eps = 1 it is far below the uniform guess
    assert np.all(a["noisy histogram"] < a["uniform guess"][0] / 5)
    c = regime_errors(8, 450, trials=2, rng=5, practical=False)
    assert "MWEM practical" not in c
    with pytest.raises(ValueError, match="epsilon"):
        regime_errors(8, 450, epsilon=-1)
    with pytest.raises(ValueError, match="trials"):
        regime_errors(8, 450, trials=0)


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


# --------------------------------------------------------------------------- chapter 06: SmallDB vs the histogram

def test_thm45_histogram_crossover_hand_value():
    from dpbook.theory.smalldb import thm45_error_bound, thm45_histogram_crossover
    from dpbook.theory.histogram import histogram_error_bound
    N, m, beta = 2 ** 16, 4480, 0.05
    c = 16 * math.log(N) * math.log(m) + 4 * math.log(1 / beta)          # ≈ 1504.2 (by hand)
    h = math.sqrt(6 * N * math.log(2 * m / beta))                          # ≈ 2181.5
    n_x, a_x = thm45_histogram_crossover(N, m, 1.0, beta)
    assert a_x == pytest.approx(math.sqrt(c / h)) and n_x == pytest.approx(h ** 1.5 / math.sqrt(c))
    assert a_x == pytest.approx(0.830, abs=2e-3) and n_x == pytest.approx(2626, rel=1e-3)
    # at the crossing both bounds agree; below it SmallDB's is smaller, above it the histogram's
    n0 = int(n_x)
    assert thm45_error_bound(N, m, 1.0, n0, beta) == pytest.approx(histogram_error_bound(N, m, beta, 1.0, n=n0), rel=1e-3)
    assert thm45_error_bound(N, m, 1.0, n0 // 4, beta) < histogram_error_bound(N, m, beta, 1.0, n=n0 // 4)
    assert thm45_error_bound(N, m, 1.0, 4 * n0, beta) > histogram_error_bound(N, m, beta, 1.0, n=4 * n0)
    # ε scales both numerators: n_x ∝ 1/ε, α_x unchanged
    n2, a2 = thm45_histogram_crossover(N, m, 2.0, beta)
    assert n2 == pytest.approx(n_x / 2) and a2 == pytest.approx(a_x)
    for kw, name in [(dict(N=1, m=3, epsilon=1.0, beta=0.05), "N"), (dict(N=8, m=0, epsilon=1.0, beta=0.05), "m"),
                     (dict(N=8, m=3, epsilon=0.0, beta=0.05), "epsilon"), (dict(N=8, m=3, epsilon=1.0, beta=1.5), "beta")]:
        with pytest.raises(ValueError, match=name):
            thm45_histogram_crossover(**kw)


def test_smalldb_vs_histogram_small_sizes():
    from dpbook.explorers.smalldb import exact_quantile, one_two_way_cells, smalldb_vs_histogram
    r = smalldb_vs_histogram(2, epsilon=1.0, alpha=0.5, trials=500, rng=7)
    assert (r["N"], r["m"], r["s"], r["range_size"]) == (4, 8, 9, 220)          # C(4 + 9 - 1, 9) = 220
    assert r["OPT"] <= r["smalldb"] and r["histogram"] < r["smalldb"] < r["uniform"]
    assert smalldb_vs_histogram(2, epsilon=1.0, alpha=0.5, trials=500, rng=7) == r           # seeded
    assert one_two_way_cells(4).m == 2 * 4 + 4 * 6
    assert exact_quantile([0.3, 0.1, 0.2], [0.2, 0.5, 0.3], 0.6) == 0.2
    assert exact_quantile([0.3, 0.1, 0.2], [0.2, 0.5, 0.3], 0.95) == 0.3
    for kw, exc, name in [(dict(d=5), ValueError, "d"), (dict(d=2, epsilon=-1.0), ValueError, "epsilon"),
                          (dict(d=2, alpha=0.0), ValueError, "alpha"), (dict(d=2, trials=0), ValueError, "trials")]:
        with pytest.raises(exc, match=name):
            smalldb_vs_histogram(**kw)


def test_histogram_quantile_scales_like_one_over_epsilon():
    """The explorer draws the histogram's quantile once at ε = 1 and divides by ε: check it against a direct draw."""
    from dpbook.data import cancer_projection
    from dpbook.explorers.exponential import ATTRIBUTES, CELLS, histogram_quantile_at_unit_epsilon
    from dpbook.experiments import failure_rate
    from dpbook.histogram import histogram_mechanism
    from dpbook.queries import MarginalWorkload
    q1 = histogram_quantile_at_unit_epsilon(18, 0.05)
    small, W = cancer_projection(ATTRIBUTES), MarginalWorkload(3, CELLS[:18])
    err = np.abs(histogram_mechanism(small.x, W, epsilon=0.1, n=small.n, trials=20_000, rng=11).answers
                 - W.answers(small.x)).max(axis=1)
    rate = failure_rate(err, q1 / 0.1)                     # should be ≈ 0.05: consistent both ways at 1e-6
    assert rate.consistent_with(0.05) and rate.upper >= 0.05 and rate.lower <= 0.05
