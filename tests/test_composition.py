"""Chapter 05: composition bounds (DR-Thm3.16/3.20, DR-Cor3.21, LEC3-3.3.2 practical note) and the KL lemma
IDC-Thm2.4 ≡ DR-Lemma3.18, in dpbook.theory.composition."""
from __future__ import annotations

import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from scipy import integrate

from dpbook.data import add_row, load_cancer
from dpbook.laplace import laplace_mechanism
from dpbook.theory.composition import (advanced_composition, advanced_per_step_epsilon, basic_composition,
                                       kl_bound, laplace_kl, laplace_per_query_scale,
                                       randomized_response_composition_delta, randomized_response_loss_law,
                                       randomized_response_composition_epsilon)

SEED = 2026


# ------------------------------------------------------------------------------------------ hand values

def test_basic_composition_hand_values():
    assert basic_composition(0.1, 10) == (pytest.approx(1.0), 0.0)
    assert basic_composition(0.25, 4, 1e-6) == (1.0, pytest.approx(4e-6))


def test_advanced_composition_hand_values():
    # k = 100, ε = 0.1, δ' = 1e-6: sqrt(200 ln 1e6) · 0.1 + 100 · 0.1 · (e^0.1 - 1)
    #   = sqrt(2763.102) · 0.1 + 10 · 0.1051709 = 5.256522 + 1.051709 = 6.308231
    eps, delta = advanced_composition(0.1, 100, 1e-6)
    assert eps == pytest.approx(6.308231, abs=1e-6)
    assert delta == 1e-6
    eps, delta = advanced_composition(0.1, 100, 1e-6, delta=1e-8)
    assert delta == pytest.approx(100 * 1e-8 + 1e-6)


def test_advanced_beats_basic_only_for_many_steps():
    """ε' < kε iff sqrt(2k ln(1/δ')) + k(e^ε - 1) < k: e.g. ε = 0.1, δ' = 1e-6: crossover at k = 35."""
    def better(k):
        return advanced_composition(0.1, k, 1e-6)[0] < basic_composition(0.1, k)[0]
    ks = np.arange(1, 2000)
    first = ks[np.array([better(k) for k in ks])][0]
    # solve sqrt(2k·13.8155)·0.1 = k·0.1·(1 - 0.1051709): sqrt(k) = sqrt(27.631)/0.894829 = 5.874  -> k = 34.5
    assert first == 35
    assert all(better(k) for k in range(first, 2000))


def test_cor_3_21_hand_value_and_guarantee():
    # ε' = 0.5, k = 100, δ' = 1e-6: 0.5 / (2 sqrt(200 · 13.815511)) = 0.5 / 105.13044 = 0.00475600
    assert advanced_per_step_epsilon(0.5, 100, 1e-6) == pytest.approx(0.5 / (2 * math.sqrt(200 * math.log(1e6))))
    assert advanced_per_step_epsilon(0.5, 100, 1e-6) == pytest.approx(0.004756, abs=1e-6)
    for target in (0.01, 0.3, 0.99):
        for k in (1, 2, 10, 1000, 10**6):
            for dp in (1e-12, 1e-6, 0.01, 0.5, 0.65):
                eps = advanced_per_step_epsilon(target, k, dp)
                assert advanced_composition(eps, k, dp)[0] <= target


def test_cor_3_21_delta_prime_cutoff_is_0_7095_with_k_1_binding():
    """Erratum DR-E2: for ε' -> 1 the corollary's step reaches its target for every k iff δ' <= 0.7095 (the root of
    a(e^a - 1) = 1/2, a = 1/(2 sqrt(2 ln(1/δ')))); k = 1 is the binding case, larger k accept a larger δ'."""
    target = 1 - 1e-9
    for k in (1, 2, 10, 1000):
        advanced_per_step_epsilon(target, k, 0.7094)                   # accepted at every k
    with pytest.raises(ValueError, match="too large"):
        advanced_per_step_epsilon(target, 1, 0.7096)                   # refused at k = 1 ...
    advanced_per_step_epsilon(target, 10, 0.7096)                      # ... but not at k = 10 (cutoff 0.7570)
    with pytest.raises(ValueError, match="too large"):
        advanced_per_step_epsilon(target, 10**6, 0.7789)               # above e^(-1/4) = 0.77880: refused at any k


def test_cor_3_21_refuses_a_large_delta_prime():
    """At δ' = 0.95 the corollary's per-step ε (1.55 for ε' = 0.99, k = 1) composes to 6.2 > ε'."""
    with pytest.raises(ValueError, match=r"delta_prime \(0\.95\) is too large"):
        advanced_per_step_epsilon(0.99, 1, 0.95)


def test_laplace_per_query_scale():
    assert laplace_per_query_scale(100, 0.5) == 200.0                          # LEC3-3.3.2: b = |Q|/ε
    # practical note: b = 2 sqrt(2 |Q| ln(1/δ))/ε = 2 sqrt(200 · 13.815511)/0.5 = 210.2609
    assert laplace_per_query_scale(100, 0.5, 1e-6) == pytest.approx(2 * math.sqrt(200 * math.log(1e6)) / 0.5)
    assert laplace_per_query_scale(100, 0.5, 1e-6) == pytest.approx(210.2609, abs=1e-4)
    # sqrt(|Q|) scaling: quadrupling |Q| doubles b
    assert laplace_per_query_scale(400, 0.5, 1e-6) == pytest.approx(2 * laplace_per_query_scale(100, 0.5, 1e-6))


def test_kl_bound_and_exact_laplace_kl_hand_values():
    assert kl_bound(0.5) == pytest.approx(0.5 * (math.exp(0.5) - 1))               # 0.3243606
    assert kl_bound(0.5) == pytest.approx(0.3243606, abs=1e-7)
    # KL(Lap(0,b) ‖ Lap(s,b)) = |s|/b + e^{-|s|/b} - 1: s = 1, b = 2 -> 0.5 + e^{-0.5} - 1 = 0.1065307
    assert laplace_kl(1.0, 2.0) == pytest.approx(0.1065307, abs=1e-7)
    assert laplace_kl(-1.0, 2.0) == laplace_kl(1.0, 2.0)
    assert laplace_kl(0.0, 1.0) == 0.0


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5, 1.0, 3.0])
def test_laplace_kl_by_quadrature_and_below_the_bound(epsilon):
    """IDC-Thm2.4 measure: the exact KL of Lap(0, 1/ε) vs Lap(1, 1/ε) (numerical integral) is <= ε(e^ε - 1)."""
    b = 1.0 / epsilon

    def integrand(o):
        p = math.exp(-abs(o) / b) / (2 * b)
        return p * (abs(o - 1) - abs(o)) / b

    numeric = sum(integrate.quad(integrand, lo, hi, epsabs=1e-13)[0]
                  for lo, hi in ((-np.inf, 0.0), (0.0, 1.0), (1.0, np.inf)))
    assert laplace_kl(1.0, b) == pytest.approx(numeric, rel=1e-7, abs=1e-13)
    assert laplace_kl(1.0, b) <= kl_bound(epsilon)
    if epsilon <= 1:
        assert kl_bound(epsilon) <= 2 * epsilon ** 2


def test_expected_privacy_loss_of_the_laplace_mechanism_on_real_data():
    """Monte Carlo E[L] of laplace_mechanism on a neighbouring pair equals the exact KL (5 standard errors,
    two-sided false alarm 6e-7) and so lies below ε(e^ε - 1)."""
    x = load_cancer().x
    x2 = add_row(x, 0)
    Q = np.zeros((1, x.size))
    Q[0, 0] = 1.0
    epsilon, n = 0.5, x.sum()
    o = laplace_mechanism(x, Q, n=int(x.sum()), epsilon=epsilon, trials=400_000, rng=SEED).answers[:, 0] * n   # counts
    a, a2 = x[0], x2[0]
    L = epsilon * (np.abs(o - a2) - np.abs(o - a))
    exact = laplace_kl(1.0, 1.0 / epsilon)
    assert abs(L.mean() - exact) <= 5 * L.std() / math.sqrt(L.size)
    assert exact <= kl_bound(epsilon)


def test_randomized_response_composition_hand_values():
    # k = 1: δ(ε') = p (1 - e^{ε'-ε}) for ε' < ε, p = e^ε/(1+e^ε), so ε' = ε + ln(1 - δ'/p)
    p = math.exp(0.1) / (1 + math.exp(0.1))
    assert randomized_response_composition_epsilon(0.1, 1, 1e-3) == pytest.approx(0.1 + math.log(1 - 1e-3 / p),
                                                                                  abs=1e-10)
    assert randomized_response_composition_delta(0.05, 0.1, 1) == pytest.approx(p * (1 - math.exp(-0.05)))
    # k = 2, ε' = 0: loss 2ε w.p. p², 0 w.p. 2p(1-p): δ = p² (1 - e^{-2ε})
    assert randomized_response_composition_delta(0.0, 0.1, 2) == pytest.approx(p ** 2 * (1 - math.exp(-0.2)))
    assert randomized_response_composition_delta(0.2, 0.1, 2) == 0.0


def test_randomized_response_loss_law_is_the_binomial_law():
    from scipy.stats import binom                    # the reference the module avoids importing
    for epsilon, m in [(0.1, 1), (0.1, 113), (1.0, 1000), (0.01, 10_000), (800.0, 5)]:
        pmf, loss = randomized_response_loss_law(epsilon, m)
        p = math.exp(epsilon) / (1 + math.exp(epsilon)) if epsilon < 700 else 1.0
        assert np.allclose(pmf, binom.pmf(np.arange(m + 1), m, p), rtol=1e-9, atol=1e-300)
        assert math.isclose(pmf.sum(), 1.0, rel_tol=1e-9) and np.array_equal(loss, epsilon * (2 * np.arange(m + 1) - m))


def test_composition_theory_does_not_import_scipy_stats():
    # scipy.stats costs ~1 s to import: chapter 05's exact m-fold randomized response must not pay it
    code = ("import sys; from dpbook.theory.composition import randomized_response_composition_epsilon as r; "
            "r(0.1, 100, 1e-6); print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(__file__).resolve().parents[1]).stdout.split()
    assert out == ["False"]


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("delta_prime", [1e-9, 1e-6, 1e-3])
def test_exact_composition_is_below_both_bounds(epsilon, delta_prime):
    """The exact k-fold cost (worst case, k-fold randomized response) is below basic and advanced
    composition for every k; advanced composition is within a factor 2.5 of it for large k."""
    for k in (1, 2, 5, 20, 100, 1000):
        exact = randomized_response_composition_epsilon(epsilon, k, delta_prime)
        assert randomized_response_composition_delta(exact, epsilon, k) <= delta_prime
        assert exact <= basic_composition(epsilon, k)[0] * (1 + 1e-12)
        assert exact <= advanced_composition(epsilon, k, delta_prime)[0]
    big = randomized_response_composition_epsilon(epsilon, 1000, delta_prime)
    assert advanced_composition(epsilon, 1000, delta_prime)[0] <= 2.5 * big


# -------------------------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, name", [
    (lambda v: basic_composition(v, 3), "epsilon"),
    (lambda v: advanced_composition(v, 3, 1e-6), "epsilon"),
    (lambda v: advanced_composition(0.1, 3, v), "delta_prime"),
    (lambda v: advanced_per_step_epsilon(v, 3, 1e-6), "epsilon_total"),
    (lambda v: advanced_per_step_epsilon(0.5, 3, v), "delta_prime"),
    (lambda v: laplace_per_query_scale(3, v), "epsilon"),
    (lambda v: kl_bound(v), "epsilon"),
    (lambda v: laplace_kl(1.0, v), "b"),
    (lambda v: randomized_response_composition_epsilon(v, 3, 1e-6), "epsilon"),
    (lambda v: randomized_response_composition_epsilon(0.1, 3, v), "delta_prime"),
])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0.0, -1.0])
def test_bad_values(call, name, bad):
    with pytest.raises(ValueError, match=name):
        call(bad)


@pytest.mark.parametrize("call, name", [
    (lambda v: basic_composition(0.1, v), "m"),
    (lambda v: advanced_composition(0.1, v, 1e-6), "m"),
    (lambda v: advanced_per_step_epsilon(0.5, v, 1e-6), "m"),
    (lambda v: randomized_response_composition_epsilon(0.1, v, 1e-6), "m"),
])
def test_bad_k(call, name):
    with pytest.raises(ValueError, match=name):
        call(0)
    with pytest.raises(TypeError, match=name):
        call(2.0)
    with pytest.raises(TypeError, match=name):
        call("3")


@pytest.mark.parametrize("call, name, bad", [
    (lambda v: basic_composition(0.1, 3, v), "delta", 1.0),
    (lambda v: advanced_composition(0.1, 3, v), "delta_prime", 1.0),
    (lambda v: advanced_composition(0.1, 3, 1e-6, v), "delta", -0.1),
    (lambda v: advanced_per_step_epsilon(v, 3, 1e-6), "epsilon_total", 1.0),
    (lambda v: laplace_per_query_scale(3, 0.5, v), "delta", 1.0),
    (lambda v: laplace_per_query_scale(3, v, 1e-6), "epsilon", 1.5),
    (lambda v: laplace_kl(v, 1.0), "shift", float("nan")),
    (lambda v: randomized_response_composition_delta(v, 0.1, 3), "epsilon_total", -0.5),
])
def test_out_of_range(call, name, bad):
    with pytest.raises(ValueError, match=name):
        call(bad)


@pytest.mark.parametrize("call, name", [
    (lambda v: basic_composition(v, 3), "epsilon"),
    (lambda v: advanced_composition(0.1, 3, v), "delta_prime"),
    (lambda v: kl_bound(v), "epsilon"),
    (lambda v: laplace_kl(v, 1.0), "shift"),
])
@pytest.mark.parametrize("bad", ["0.1", None, True])
def test_bad_types(call, name, bad):
    with pytest.raises(TypeError, match=name):
        call(bad)
