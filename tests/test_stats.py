"""dpbook.stats: exact (Clopper-Pearson) binomial bounds — hand values from their definition, coverage, bad input."""
import numpy as np
import pytest
from scipy import stats

from dpbook.stats import clopper_pearson, clopper_pearson_lower, clopper_pearson_upper


def test_clopper_pearson_hand_values():
    # k = 0: upper bound solves (1 - p)^n = level  ->  p = 1 - level^(1/n)
    assert clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100))
    # k = n: lower bound solves p^n = level
    assert clopper_pearson_lower(100, 100, 0.05) == pytest.approx(0.05 ** (1 / 100))
    assert clopper_pearson_lower(0, 10) == 0.0 and clopper_pearson_upper(10, 10) == 1.0
    lo, hi = clopper_pearson(30, 100, 0.05)
    # definition: P[Bin(100, lo) >= 30] = 0.025 and P[Bin(100, hi) <= 30] = 0.025
    assert stats.binom.sf(29, 100, lo) == pytest.approx(0.025, rel=1e-6)
    assert stats.binom.cdf(30, 100, hi) == pytest.approx(0.025, rel=1e-6)


def test_clopper_pearson_coverage():
    """Empirical coverage of the 1e-2 one-sided bound is at least 1 - 1e-2 (exact method is conservative)."""
    rng = np.random.default_rng(0)
    hits = rng.binomial(200, 0.3, size=2000)
    misses = sum(clopper_pearson_lower(int(h), 200, 0.01) > 0.3 for h in hits)
    assert misses <= 2000 * 0.01 + 3 * np.sqrt(2000 * 0.01)


def test_clopper_pearson_bad_input():
    with pytest.raises(ValueError, match="hits"):
        clopper_pearson(11, 10)
    with pytest.raises(ValueError, match="trials"):
        clopper_pearson(0, 0)
    with pytest.raises(ValueError, match="level"):
        clopper_pearson_lower(1, 10, 0.0)
    with pytest.raises(TypeError, match="hits"):
        clopper_pearson_upper(1.5, 10)
