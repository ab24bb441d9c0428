"""Chapters 06–07's regime helpers: MWEM / SmallDB against the noisy histogram (issue 12)."""
import math

import numpy as np
import pytest

from dpbook.explorers.mwem import MECHANISMS, digits_marginals, digits_subsample, regime_errors
from dpbook.theory.composition import advanced_composition
from dpbook.theory.mwem import mwem_advanced_step_epsilon


def test_digits_subsample_is_real_rows_without_replacement():
    from dpbook.histogram import pixels_histogram
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
