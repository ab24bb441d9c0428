import numpy as np
import pytest
from scipy import stats

from dpbook.noise import as_generator, check_size, gaussian_noise, laplace_noise
from dpbook.theory.laplace import laplace_cdf


def test_as_generator():
    g = np.random.default_rng(1)
    assert as_generator(g) is g
    assert isinstance(as_generator(None), np.random.Generator)
    assert as_generator(7).random() == np.random.default_rng(7).random()
    for bad in (1.5, "1", True, np.random.RandomState(0)):
        with pytest.raises(TypeError, match="rng"):
            as_generator(bad)
    with pytest.raises(ValueError, match="rng"):
        as_generator(-1)


def test_check_size():
    assert check_size(3) == (3,)
    assert check_size((2, 3)) == (2, 3)
    with pytest.raises(TypeError, match="size"):
        check_size(2.0)
    with pytest.raises(ValueError, match="size"):
        check_size((2, -1))
    assert check_size((np.int64(2), 3)) == (2, 3) and all(type(v) is int for v in check_size((np.int64(2), 3)))
    with pytest.raises(TypeError, match="size"):
        check_size((True, 2))                     # a bool is not a count, in a tuple or alone
    with pytest.raises(ValueError, match="size"):
        check_size((2, 2 ** 53 + 1))              # beyond 2^53 (the plain-int fast path keeps check_int's range)
    with pytest.raises(ValueError, match="GiB"):
        check_size((2 ** 20, 2 ** 20))            # the work limit


@pytest.mark.parametrize("sampler", [laplace_noise, gaussian_noise])
def test_samplers_validate_and_are_deterministic(sampler):
    assert np.array_equal(sampler(2.0, 5, 3), sampler(2.0, 5, 3))
    assert not np.array_equal(sampler(2.0, 5, 3), sampler(2.0, 5, 4))
    assert sampler(1.0, (4, 2), 0).shape == (4, 2)
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="scale"):
            sampler(bad, 3, 0)
    with pytest.raises(TypeError, match="scale"):
        sampler("1", 3, 0)


def test_laplace_sampler_matches_cdf_ks():
    """S1-Def5 measure: KS test of the sampler against F at level 1e-6 (false alarm <= 1e-6)."""
    z = laplace_noise(2.0, 200_000, 11)
    assert stats.kstest(z, lambda t: laplace_cdf(t, 0.0, 2.0)).pvalue > 1e-6


def test_gaussian_sampler_ks():
    z = gaussian_noise(3.0, 200_000, 12)
    assert stats.kstest(z, stats.norm(scale=3.0).cdf).pvalue > 1e-6
