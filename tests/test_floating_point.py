"""Mironov's floating-point attack on textbook Laplace noise, and the samplers that defeat it (chapter 17)."""
import math

import numpy as np
import pytest

from dpbook.audit import audit, epsilon_lb_ceiling
from dpbook.broken.floating_point import numpy_laplace_image, textbook_noisy_count, unrounded_grid_release
from dpbook.laplace import laplace_mechanism
from dpbook.laplace import grid_laplace_release
from dpbook.noise import discrete_laplace, grid_granularity, grid_laplace, laplace_noise

N = 100_000
EPS = 1.0


def _support_events(scale):
    return {"y not in numpy's Laplace image": lambda y: ~numpy_laplace_image(y, scale), "y <= 0": lambda y: y <= 0}


def test_we_reproduce_numpys_laplace_arithmetic_bit_for_bit():
    """numpy draws U = (64 random bits >> 11)·2^-53 and returns 0 + b·log(2U) or 0 - b·log((2-U)-U)."""
    b = 1 / 0.3
    bitgen = np.random.PCG64(11)
    state = bitgen.state
    z = np.random.Generator(bitgen).laplace(0.0, b, 2000)
    bitgen.state = state
    u = (bitgen.random_raw(2000) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53   # no U == 0 in 2000 draws
    ours = np.array([0.0 + b * math.log(v + v) if v < 0.5 else 0.0 - b * math.log((2.0 - v) - v) for v in u])
    assert np.array_equal(z, ours)


@pytest.mark.parametrize("scale", [0.1, 1.0, 1 / 0.3, 7.5, 1e3])
def test_every_numpy_laplace_draw_is_recognised(scale):
    z = np.random.default_rng(1).laplace(0.0, scale, 20_000)
    assert numpy_laplace_image(z, scale).all()
    assert numpy_laplace_image(laplace_noise(scale, 100, 2), scale).all()          # dpbook's default sampler


@pytest.mark.parametrize("scale", [0.1, 1.0, 1 / 0.3, 7.5])
def test_shifted_draws_mostly_fall_outside_the_image(scale):
    """fl(1 + Z) lands on a double the sampler never produces about 80% of the time."""
    z = np.random.default_rng(2).laplace(0.0, scale, 20_000)
    assert numpy_laplace_image(1.0 + z, scale).mean() < 0.5


def test_the_image_is_not_everything():
    assert numpy_laplace_image(0.0, 1.0)                          # U = 1/2 gives exactly 0
    y = np.nextafter(np.random.default_rng(3).laplace(0.0, 1.0, 1000), np.inf)    # neighbours of draws
    assert numpy_laplace_image(y, 1.0).mean() < 0.9


def test_mironov_attack_on_the_textbook_mechanism():
    """q + numpy Laplace: the event 'not in the image' never happens for q=0 and mostly for q=1."""
    s = lambda q: (lambda t, rng: textbook_noisy_count(q, epsilon=EPS, trials=t, rng=rng))
    res = audit(s(0.0), s(1.0), _support_events(1 / EPS), trials=N, rng=1)
    assert res.hits == 0 and res.hits_prime > 0.6 * N
    assert res.epsilon_lb > 5 * EPS
    assert res.epsilon_lb > 0.9 * epsilon_lb_ceiling(N, events=2)    # as large as N samples can show


def test_mironov_attack_on_the_books_laplace_mechanism():
    """The same on dpbook.laplace.laplace_mechanism with its default sampler (pair with the same n)."""
    Q = np.array([[0.0, 1.0]])
    s = lambda x: (lambda t, rng: laplace_mechanism(x, Q, n=int(x.sum()), epsilon=EPS, trials=t, rng=rng).answers[:, 0])
    res = audit(s(np.array([1, 0])), s(np.array([0, 1])), _support_events(1 / EPS), trials=N, rng=2)
    assert res.epsilon_lb > 5 * EPS


@pytest.mark.parametrize("sampler", [discrete_laplace, grid_laplace], ids=lambda s: s.__name__)
def test_the_same_audit_passes_with_a_sound_sampler(sampler):
    s = lambda q: (lambda t, rng: q + sampler(1 / EPS, t, rng))
    res = audit(s(0.0), s(1.0), _support_events(1 / EPS), trials=N, rng=3)
    assert res.epsilon_lb <= EPS
    assert res.epsilon_lb > 0.9 * EPS                               # ... and stays tight on {y <= 0}


@pytest.mark.parametrize("sampler", [discrete_laplace, grid_laplace], ids=lambda s: s.__name__)
def test_the_books_mechanism_with_a_sound_sampler(sampler):
    Q = np.array([[0.0, 1.0]])
    s = lambda x: (lambda t, rng: laplace_mechanism(x, Q, n=int(x.sum()), epsilon=EPS, trials=t, rng=rng, sampler=sampler).answers[:, 0])
    res = audit(s(np.array([1, 0])), s(np.array([0, 1])), _support_events(1 / EPS), trials=N, rng=4)
    assert res.epsilon_lb <= EPS


def test_grid_release_passes_and_unrounded_grid_is_caught():
    lam = grid_granularity(1 / EPS)
    events = {"not a multiple of Λ": lambda y: np.mod(y, lam) != 0, **_support_events(1 / EPS)}
    for fn, caught in ((grid_laplace_release, False), (unrounded_grid_release, True)):
        s = lambda q: (lambda t, rng: fn(np.array([q]), sensitivity=1.0, epsilon=EPS, trials=t, rng=rng)[:, 0])
        res = audit(s(0.0), s(1.0 - 2.0 ** -42), events, trials=20_000, rng=5)
        assert (res.epsilon_lb > EPS) == caught


def test_textbook_and_unrounded_releases_are_deterministic():
    a = textbook_noisy_count(3.0, epsilon=1.0, trials=5, rng=1)
    assert np.array_equal(a, textbook_noisy_count(3.0, epsilon=1.0, trials=5, rng=1))
    assert not np.array_equal(a, textbook_noisy_count(3.0, epsilon=1.0, trials=5, rng=2))
    assert np.ndim(textbook_noisy_count(3.0, epsilon=1.0, rng=1)) == 0
    b = unrounded_grid_release([0.3], sensitivity=1.0, epsilon=1.0, trials=4, rng=1)
    assert np.array_equal(b, unrounded_grid_release([0.3], sensitivity=1.0, epsilon=1.0, trials=4, rng=1))
    assert unrounded_grid_release([0.3, 0.5], sensitivity=1.0, epsilon=1.0, rng=1).shape == (2,)


# --- bad input -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("values, scale, exc, name", [
    ([float("nan")], 1.0, ValueError, "values"),
    ([float("inf")], 1.0, ValueError, "values"),
    (["a"], 1.0, TypeError, "values"),
    ([1 + 2j], 1.0, TypeError, "values"),
    ([0.5], 0.0, ValueError, "scale"),
    ([0.5], -1.0, ValueError, "scale"),
    ([0.5], float("nan"), ValueError, "scale"),
    ([0.5], float("inf"), ValueError, "scale"),
    ([0.5], "1", TypeError, "scale"),
])
def test_numpy_laplace_image_rejects_bad_input(values, scale, exc, name):
    with pytest.raises(exc, match=name):
        numpy_laplace_image(values, scale)


@pytest.mark.parametrize("kwargs, exc, name", [
    ({"count": float("nan")}, ValueError, "count"),
    ({"count": float("inf")}, ValueError, "count"),
    ({"count": "3"}, TypeError, "count"),
    ({"epsilon": 0.0}, ValueError, "epsilon"),
    ({"epsilon": -1.0}, ValueError, "epsilon"),
    ({"epsilon": float("nan")}, ValueError, "epsilon"),
    ({"epsilon": float("inf")}, ValueError, "epsilon"),
    ({"sensitivity": 0.0}, ValueError, "sensitivity"),
    ({"sensitivity": float("nan")}, ValueError, "sensitivity"),
    ({"trials": 0}, ValueError, "trials"),
    ({"trials": 1.5}, TypeError, "trials"),
    ({"rng": "x"}, TypeError, "rng"),
])
def test_textbook_noisy_count_rejects_bad_input(kwargs, exc, name):
    args = {"count": 1.0, "epsilon": 1.0, **kwargs}
    count = args.pop("count")
    with pytest.raises(exc, match=name):
        textbook_noisy_count(count, **args)


@pytest.mark.parametrize("kwargs, exc, name", [
    ({"values": [[0.1]]}, ValueError, "values"),
    ({"values": []}, ValueError, "values"),
    ({"values": [float("nan")]}, ValueError, "values"),
    ({"values": [float("inf")]}, ValueError, "values"),
    ({"values": ["a"]}, TypeError, "values"),
    ({"sensitivity": 0.0}, ValueError, "sensitivity"),
    ({"sensitivity": float("inf")}, ValueError, "sensitivity"),
    ({"epsilon": -1.0}, ValueError, "epsilon"),
    ({"epsilon": float("nan")}, ValueError, "epsilon"),
    ({"trials": 0}, ValueError, "trials"),
    ({"rng": 1.5}, TypeError, "rng"),
])
def test_unrounded_grid_release_rejects_bad_input(kwargs, exc, name):
    args = {"values": [0.1], "sensitivity": 1.0, "epsilon": 1.0, **kwargs}
    values = args.pop("values")
    with pytest.raises(exc, match=name):
        unrounded_grid_release(values, **args)
