"""Chapter 13's comparison (dpbook.comparisons.projection): the noisy histogram baseline and the head-to-head of
the projection mechanism, the per-query Gaussian, MWEM, the noisy histogram and the uniform guess."""
import numpy as np
import pytest


def test_noisy_histogram_answers_laplace_and_gaussian():
    from dpbook.data import load_cancer
    from dpbook.comparisons.projection import noisy_histogram_answers
    from dpbook.histogram import histogram_mechanism
    from dpbook.queries import k_way_marginals
    from dpbook.theory.gaussian import gaussian_sigma
    x, W = load_cancer().x, k_way_marginals(11, 1)
    lap = noisy_histogram_answers(x, W, epsilon=0.5, trials=4, rng=3)
    ref = histogram_mechanism(x, W, epsilon=0.5, neighbours="replace-one", trials=4, rng=3).answers
    assert np.array_equal(lap, ref)                                    # the Laplace path is chapter 03's histogram
    gau = noisy_histogram_answers(x, W, epsilon=0.5, delta=1e-6, trials=2000, rng=4)
    assert gau.shape == (2000, W.m)
    # a 1-way cell sums N/2 = 1024 cells, each N(0, σ²) with σ for Δ2 = √2 (replace-one): the cell's noise has
    # sd σ·√1024/n; the sample sd of 2000 draws is within 10% of it except with probability far below 1e-6
    sd = np.std(gau - W.answers(x), axis=0)
    expected = gaussian_sigma(np.sqrt(2), 0.5, 1e-6) * np.sqrt(1024) / x.sum()
    assert np.all(np.abs(sd / expected - 1) < 0.1)


def test_compare_mechanisms_shapes_and_order():
    from dpbook.data import load_cancer
    from dpbook.comparisons.projection import COMPARED, compare_mechanisms
    from dpbook.queries import k_way_marginals
    out = compare_mechanisms(load_cancer().x, k_way_marginals(11, 2), epsilon=0.5, delta=1e-6, trials=3, rng=5)
    assert set(out) == {"rms", "max"} and all(list(v) == list(COMPARED) for v in out.values())
    for name in COMPARED:
        assert 0 <= out["rms"][name] <= out["max"][name]              # RMS never exceeds the max error
    assert out["rms"]["projection"] < out["rms"]["per-query Gaussian"]  # projecting never hurts (key lemma)


def test_comparison_bad_input():
    from dpbook.data import load_cancer
    from dpbook.comparisons.projection import compare_mechanisms, noisy_histogram_answers
    from dpbook.queries import k_way_marginals
    x, W = load_cancer().x, k_way_marginals(11, 1)
    with pytest.raises(ValueError, match="epsilon"):
        noisy_histogram_answers(x, W, epsilon=-1.0)
    with pytest.raises(ValueError, match="delta"):
        noisy_histogram_answers(x, W, epsilon=0.5, delta=1.5)
    with pytest.raises(ValueError, match="delta"):
        compare_mechanisms(x, W, epsilon=0.5, delta=0.0)
    with pytest.raises((ValueError, TypeError)):
        compare_mechanisms(x[:-1], W, epsilon=0.5, delta=1e-6)


def test_compare_mechanisms_seeded_and_refuses_bad_sizes():
    from dpbook.comparisons.projection import compare_mechanisms
    from dpbook.queries import k_way_marginals
    x, W = np.array([3, 1, 0, 2, 4, 0, 1, 1]), k_way_marginals(3, 1)
    a = compare_mechanisms(x, W, epsilon=0.5, delta=1e-6, T=2, trials=2, rng=7)
    assert a == compare_mechanisms(x, W, epsilon=0.5, delta=1e-6, T=2, trials=2, rng=7)      # same seed, same numbers
    assert a != compare_mechanisms(x, W, epsilon=0.5, delta=1e-6, T=2, trials=2, rng=8)
    for kw, name in [(dict(T=0), "T"), (dict(trials=0), "trials"), (dict(trials=10 ** 6), "trials"),
                     (dict(epsilon=float("nan")), "epsilon")]:
        with pytest.raises(ValueError, match=name):
            compare_mechanisms(x, W, **dict(dict(epsilon=0.5, delta=1e-6), **kw))
    with pytest.raises(TypeError, match="T"):
        compare_mechanisms(x, W, epsilon=0.5, delta=1e-6, T=1.5)
