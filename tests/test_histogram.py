"""The noisy histogram (LEC3-3.5, IDC-Lem6.1), weighted Laplace sums (IDC-Thm6.5), errata LEC3-E9/E11."""
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
import scipy.sparse as sp

from bad_input import BAD_EPSILON, BAD_TRIALS_AND_RNG
from dpbook.audit import audit
from dpbook.broken.histogram import noisy_histogram_replace_one_unit_scale
from dpbook.explorers.histogram import explore_histogram
from dpbook.data import add_row, load_cancer, load_digits, replace_row
from dpbook.experiments import errors, failure_rate
from dpbook.histogram import histogram_mechanism, noisy_histogram
from dpbook.broken.noise import broken_noise
from dpbook.noise import laplace_noise
from dpbook.queries import MatrixWorkload, conjunctions
from dpbook.theory.histogram import (
    histogram_error_bound, histogram_error_bound_condition, histogram_error_bound_general, histogram_scale,
    histogram_sensitivity, laplace_sum_tail_bound, laplace_sum_two_sided_tail_bound,
)

X = load_cancer().x
N = X.size
SMALL = X.reshape(4, -1).sum(axis=1)                 # the cancer data marginalised to its first 2 attributes
LEVEL = 1e-6


# --------------------------------------------------------------------------- theory: hand-computed values

def test_scale_and_sensitivity_erratum_e11():
    assert histogram_sensitivity() == 1.0 and histogram_sensitivity("replace-one") == 2.0
    assert histogram_scale(0.5) == 2.0                         # 1/0.5
    assert histogram_scale(0.5, "replace-one") == 4.0          # 2/0.5


def test_laplace_sum_tail_bound_thm_6_5():
    # M = 1, b = 1: λ = 2 <= 2Mb is the first regime, exp(-4/6) = 0.513417; λ = 4 > 2: exp(-4/4) = e^{-1}
    assert laplace_sum_tail_bound(2.0, 1, 1.0) == pytest.approx(0.513417119)
    assert laplace_sum_tail_bound(4.0, 1, 1.0) == pytest.approx(math.exp(-1))
    assert laplace_sum_tail_bound(0.0, 5, 2.0) == 1.0
    # M = 10, b = 0.5: λ = 3 <= 10: exp(-9/(6·10·0.25)) = exp(-0.6) = 0.548812
    assert laplace_sum_tail_bound(3.0, 10, 0.5) == pytest.approx(math.exp(-0.6))
    assert np.allclose(laplace_sum_tail_bound(np.array([2.0, 4.0]), 1, 1.0), [0.513417119, math.exp(-1)])
    # both tails: min(1, 2 · 0.513) = 1 and 2 e^{-1} = 0.735759
    assert laplace_sum_two_sided_tail_bound(2.0, 1, 1.0) == 1.0
    assert laplace_sum_two_sided_tail_bound(4.0, 1, 1.0) == pytest.approx(0.7357588823)
    # it dominates the exact tail of one Laplace variable, P[X >= λ] = e^{-λ/b}/2
    lam = np.linspace(0, 30, 301)
    assert np.all(laplace_sum_tail_bound(lam, 1, 1.0) >= 0.5 * np.exp(-lam))


def test_histogram_error_bounds_lemma_6_1():
    # N = 100, k = 10, β = 0.1, ε = 0.5 (b = 2): sqrt(6·100·ln(200))·2 = sqrt(3178.99)·2 = 112.765
    assert histogram_error_bound(100, 10, 0.1, 0.5) == pytest.approx(112.76507296)
    assert histogram_error_bound(100, 10, 0.1, 0.5, n=1000) == pytest.approx(0.11276507296)
    assert histogram_error_bound(100, 10, 0.1, 0.5, neighbours="replace-one") == pytest.approx(2 * 112.76507296)
    # general: ln(2·100/0.1)·2·sqrt(2·100·ln(4·10/0.1)) = 7.600902·2·sqrt(1198.293) = 526.231
    assert histogram_error_bound_general(100, 10, 0.1, 0.5) == pytest.approx(526.23126805)
    assert histogram_error_bound_general(100, 10, 0.1, 0.5, n=100) == pytest.approx(5.2623126805)
    # condition k <= (β/2) e^{2N/3}: N = 3 gives ln(2k/β) <= 2, i.e. k <= 0.05 e^2 = 0.369 at β = 0.1
    assert histogram_error_bound_condition(100, 10, 0.1) and not histogram_error_bound_condition(3, 1, 0.1)
    with pytest.raises(ValueError, match="general"):
        histogram_error_bound(3, 10, 0.1, 1.0)


@pytest.mark.parametrize("call,exc,name", [
    (lambda: histogram_scale(0.0), ValueError, "epsilon"),
    (lambda: histogram_scale(np.nan), ValueError, "epsilon"),
    (lambda: histogram_scale("1"), TypeError, "epsilon"),
    (lambda: histogram_scale(1.0, "swap"), ValueError, "neighbours"),
    (lambda: histogram_scale(1.0, 2), TypeError, "neighbours"),
    (lambda: laplace_sum_tail_bound(-1.0, 1, 1.0), ValueError, "lam"),
    (lambda: laplace_sum_tail_bound(np.inf, 1, 1.0), ValueError, "lam"),
    (lambda: laplace_sum_tail_bound(1.0, 0, 1.0), ValueError, "M"),
    (lambda: laplace_sum_tail_bound(1.0, 2.0, 1.0), TypeError, "M"),
    (lambda: laplace_sum_tail_bound(1.0, 1, 0.0), ValueError, "b"),
    (lambda: laplace_sum_two_sided_tail_bound(1.0, 1, np.nan), ValueError, "b"),
    (lambda: histogram_error_bound(0, 1, 0.1, 1.0), ValueError, "N"),
    (lambda: histogram_error_bound(10, 0, 0.1, 1.0), ValueError, "m"),
    (lambda: histogram_error_bound(10, 1, 0.0, 1.0), ValueError, "beta"),
    (lambda: histogram_error_bound(10, 1, 0.1, -1.0), ValueError, "epsilon"),
    (lambda: histogram_error_bound(10, 1, 0.1, 1.0, n=0), ValueError, "n"),
    (lambda: histogram_error_bound_general(10, 1, 1.5, 1.0), ValueError, "beta"),
    (lambda: histogram_error_bound_general(10, 1, 0.1, 1.0, n=2.0), TypeError, "n"),
])
def test_theory_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


# --------------------------------------------------------------------------- mechanism: unit behaviour

def test_release_fields_and_ledger():
    H = noisy_histogram(X, n=int(X.sum()), epsilon=0.5, rng=0)
    assert H.counts.shape == (N,) and H.n == X.sum() and H.N == N and H.noise_scale == 2.0
    assert H.epsilon == 0.5 and H.delta == 0.0 and sum(s.epsilon for s in H.ledger) == pytest.approx(0.5)
    assert noisy_histogram(X, epsilon=0.5, neighbours="replace-one", rng=0).noise_scale == 4.0
    W = conjunctions(11, 2)
    rel = histogram_mechanism(X, W, n=int(X.sum()), epsilon=0.5, trials=3, rng=1)
    assert rel.answers.shape == (3, W.m) and rel.epsilon == 0.5 and rel.noise_scale == pytest.approx(2 / X.sum())
    assert np.allclose(rel.answers, rel.trace["histogram"] @ W.matrix().T / X.sum())
    assert sum(s.epsilon for s in rel.ledger) == pytest.approx(0.5)


def test_noise_is_laplace_at_the_claimed_scale():
    """The noise of the histogram equals the sampler's draw for the same seed, at scale 1/ε resp. 2/ε."""
    for neighbours, b in (("add/remove", 1 / 0.7), ("replace-one", 2 / 0.7)):
        H = noisy_histogram(X, n=int(X.sum()), epsilon=0.7, neighbours=neighbours, trials=2, rng=5)
        assert np.allclose(H.counts - X, laplace_noise(b, (2, N), 5))


def test_custom_sampler_is_used():
    zero = broken_noise("BROKEN zero noise", "laplace", None, lambda scale, size, rng: np.zeros(size))
    assert np.array_equal(noisy_histogram(X, n=int(X.sum()), epsilon=1.0, sampler=zero, rng=0).counts, X)
    with pytest.raises(TypeError, match="sampler"):                      # a bare function's law is unknown
        noisy_histogram(X, n=int(X.sum()), epsilon=1.0, sampler=lambda scale, size, rng: np.zeros(size), rng=0)


# --------------------------------------------------------------------------- accuracy against the theorems

def _workload(k=200):
    rng = np.random.default_rng(40)
    Q = np.vstack([np.ones(N), rng.integers(0, 2, (k - 1, N))])    # the total count and k-1 random counting queries
    return MatrixWorkload(Q)


def test_accuracy_lemma_6_1():
    """ACC on the real cancer histogram: P[max error over k queries >= bound] <= β for both bounds of Lemma 6.1."""
    W = _workload()
    beta, eps = 0.05, 1.0
    err = errors(histogram_mechanism(X, W, n=int(X.sum()), epsilon=eps, trials=3000, rng=41).answers, W.answers(X)).max
    first = histogram_error_bound(N, W.m, beta, eps, n=X.sum())
    general = histogram_error_bound_general(N, W.m, beta, eps, n=X.sum())
    assert first < general
    assert failure_rate(err, first).consistent_with(beta)
    assert np.quantile(err, 1 - beta) > 0.4 * first                # not vacuous


def test_accuracy_single_query_lec3_3_5():
    """LEC3-3.5 (corrected, erratum E9): one query within sqrt(6N ln(2/β))/(nε); replace-one doubles it."""
    q = MatrixWorkload(np.ones((1, N)))                            # the total count: the worst query (||q||_2 max)
    for neighbours in ("add/remove", "replace-one"):
        err = errors(histogram_mechanism(X, q, n=int(X.sum()), epsilon=0.5, neighbours=neighbours, trials=4000, rng=42).answers,
                     q.answers(X)).max
        for beta in (0.01, 0.2):
            bound = histogram_error_bound(N, 1, beta, 0.5, n=X.sum(), neighbours=neighbours)
            assert failure_rate(err, bound).consistent_with(beta)
    # the check can fail: twice the noise (Lap(2/ε) released under an add/remove claim) breaks the bound
    err = errors(histogram_mechanism(X, q, n=int(X.sum()), epsilon=0.5, trials=4000, rng=43,
                                     sampler=broken_noise("BROKEN double", "laplace", None, lambda s, size, r: laplace_noise(2 * s, size, r))).answers, q.answers(X)).max
    assert not failure_rate(err, histogram_error_bound(N, 1, 0.01, 0.5, n=X.sum())).consistent_with(0.01)


def _tail_checks(Y, M, b, lams):
    """For every λ: the measured P[Y >= λ] and P[Y <= -λ] are consistent with Thm 6.5 (Bonferroni at 1e-6)."""
    level = LEVEL / (2 * len(lams))
    ok = True
    for lam in lams:
        bound = laplace_sum_tail_bound(lam, M, b)
        ok &= failure_rate(Y, lam).consistent_with(bound, level) and failure_rate(-Y, lam).consistent_with(bound, level)
    return ok


@pytest.mark.parametrize("M", [1, 8, 64])
def test_weighted_laplace_sum_tail_thm_6_5(M):
    rng = np.random.default_rng(43 + M)
    b, T = 1.5, 400_000
    lams = np.linspace(0, 4 * M * b, 25)[1:]                      # both regimes: the switch is at 2Mb
    Z = laplace_noise(b, (T, M), rng)
    assert _tail_checks(Z.sum(axis=1), M, b, lams)                 # q = 1: the worst case
    q = rng.random(M)                                              # weights in [0, 1]
    assert _tail_checks(Z @ q, M, b, lams)
    q_signed = rng.uniform(-1, 1, M)                               # |q_i| <= 1
    assert _tail_checks(Z @ q_signed, M, b, lams)


def test_tail_check_catches_wrong_scale():
    """The same check fails when the X_i have scale 2b but the bound is evaluated at b (the test can fail)."""
    M, b = 64, 1.0
    Y = laplace_noise(2 * b, (400_000, M), 50).sum(axis=1)
    assert not _tail_checks(Y, M, b, np.linspace(0, 4 * M * b, 25)[1:])


# --------------------------------------------------------------------------- privacy audits

def _cell_sampler(mech, x, **kw):
    return lambda trials, rng: mech(x, epsilon=1.0, trials=trials, rng=rng, **kw).counts


def test_audit_add_remove():
    """PA: x vs x + e_0 (real counts), S = {ĥ_0 >= x_0 + 1}: probabilities 1/2 vs e^{-ε}/2, ratio exactly e^ε."""
    x_prime = add_row(SMALL, 0)
    event = {"h0 >= x0 + 1": lambda h: h[:, 0] >= SMALL[0] + 1}
    n = int(SMALL.sum())                                             # one public n for both neighbours
    res = audit(_cell_sampler(noisy_histogram, x_prime, n=n), _cell_sampler(noisy_histogram, SMALL, n=n), event,
                trials=1_000_000, rng=60)
    assert 0.95 < res.epsilon_lb <= 1.0


REPLACE_EVENT = {"h0 >= x0 and h1 <= x1": lambda h: (h[:, 0] >= SMALL[0]) & (h[:, 1] <= SMALL[1])}


def test_audit_replace_one():
    """PA: x vs x - e_0 + e_1, S = {ĥ_0 >= x_0, ĥ_1 <= x_1}: 1/4 vs e^{-ε}/4 at scale 2/ε."""
    x_prime = replace_row(SMALL, 0, 1)
    res = audit(_cell_sampler(noisy_histogram, SMALL, neighbours="replace-one"),
                _cell_sampler(noisy_histogram, x_prime, neighbours="replace-one"), REPLACE_EVENT,
                trials=1_000_000, rng=61)
    assert 0.9 < res.epsilon_lb <= 1.0


def test_audit_catches_replace_one_at_unit_scale():
    """Erratum LEC3-E11: Lap(1/ε) under replace-one has privacy loss 2ε; the audit sees it."""
    x_prime = replace_row(SMALL, 0, 1)
    res = audit(_cell_sampler(noisy_histogram_replace_one_unit_scale, SMALL),
                _cell_sampler(noisy_histogram_replace_one_unit_scale, x_prime), REPLACE_EVENT,
                trials=1_000_000, rng=61)
    assert 1.0 < res.epsilon_lb <= 2.0


# --------------------------------------------------------------------------- bad input, determinism

@pytest.mark.parametrize("kwargs,exc,name", [
    *BAD_EPSILON,
    *BAD_TRIALS_AND_RNG,
    (dict(epsilon=1.0, neighbours="swap"), ValueError, "neighbours"),
    (dict(epsilon=1.0, neighbours=None), TypeError, "neighbours"),
    (dict(epsilon=1.0, sampler="laplace"), TypeError, "sampler"),
])
def test_bad_parameters(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        noisy_histogram(X, **{"n": int(X.sum()), **kwargs})
    with pytest.raises(exc, match=name):
        histogram_mechanism(X, conjunctions(11, 1), **{"n": int(X.sum()), **kwargs})


@pytest.mark.parametrize("x,exc", [
    (-X, ValueError), (np.full(4, np.nan), ValueError), (np.full(4, np.inf), ValueError),
    (X.reshape(2, -1), ValueError), (np.array([], dtype=int), ValueError), (np.array([0.5, 1.0]), ValueError),
    (np.array(["1", "2"]), TypeError), (sp.csr_matrix(X), TypeError),
])
def test_bad_data(x, exc):
    with pytest.raises(exc, match="x"):
        noisy_histogram(x, n=569, epsilon=1.0)


def test_bad_workload():
    with pytest.raises(ValueError, match="universe"):
        histogram_mechanism(X, conjunctions(10, 1), n=int(X.sum()), epsilon=1.0)
    with pytest.raises(TypeError, match="workload"):
        histogram_mechanism(X, "W", n=int(X.sum()), epsilon=1.0)
    with pytest.raises(ValueError, match="workload"):
        histogram_mechanism(np.array([1, 1]), np.array([[2.0, 0.0]]), n=int(np.sum(np.array([1, 1]))), epsilon=1.0)


def test_determinism():
    W = conjunctions(11, 2)
    for run in (lambda r: noisy_histogram(X, n=int(X.sum()), epsilon=1.0, trials=2, rng=r).counts,
                lambda r: histogram_mechanism(X, W, n=int(X.sum()), epsilon=1.0, rng=r).answers):
        assert np.array_equal(run(42), run(42))
        assert not np.array_equal(run(42), run(43))
        g = np.random.default_rng(9)
        assert not np.array_equal(run(g), run(g))


# --------------------------------------------------------------------------- data helper and widget callback

def test_explore_histogram_is_seeded():
    f1, f2 = explore_histogram(trials=40), explore_histogram(trials=40)
    get = lambda f: [ln.get_ydata() for ln in f.axes[1].lines]
    assert all(np.array_equal(a, b) for a, b in zip(get(f1), get(f2)))
    plt.close(f1)
    plt.close(f2)
    with pytest.raises(ValueError, match="epsilon"):
        explore_histogram(epsilon=0.0)


def test_chapter_figures_draw_and_validate():
    from dpbook.explorers.histogram import figure_histogram_vs_laplace, figure_tail_bound, figure_universe_size
    r = np.random.default_rng(0)
    lam = np.array([1.0, 5.0, 10.0])
    draws = r.laplace(size=(2, 400))
    fig = figure_tail_bound({16: (lam, draws[0] * 4, draws[1] * 2), 64: (lam, draws[0] * 8, draws[1] * 4)}, b=1.0)
    assert len(fig.axes) == 2 and fig.axes[0].get_ylabel() == "P[Y ≥ λ]"
    plt.close(fig)
    with pytest.raises(ValueError, match="tails"):
        figure_tail_bound({16: (lam, draws[0])}, b=1.0)
    with pytest.raises(ValueError, match="b"):
        figure_tail_bound({16: (lam, draws[0], draws[1])}, b=0.0)
    ms = np.array([1, 10, 100])
    panel = dict(n=569, hist=[0.2, 0.22, 0.25], hist_b=[0.4, 0.5, 0.6], lap=[0.005, 0.2, 2.0], lap_b=[0.01, 0.3, 3.0],
                 guess=[0.0, 0.1, 0.25])
    fig = figure_histogram_vs_laplace(ms, [panel, dict(panel, n=5690)], N=2048, epsilon=1.0)
    assert len(fig.axes) == 2 and fig.axes[0].get_ylabel() == "max error, 0.95-quantile"
    from dpbook.plots import HISTOGRAM, BASELINE
    colours = {ln.get_label(): ln.get_color() for ln in fig.axes[0].lines}
    assert colours["noisy histogram: measured"] == HISTOGRAM and colours["per-query Laplace (exact Δ): measured"] == BASELINE
    plt.close(fig)
    with pytest.raises(ValueError, match="panels"):
        figure_histogram_vs_laplace(ms, [dict(panel, hist=[0.2, np.inf, 0.3])], N=2048, epsilon=1.0)
    Ns = 2.0 ** np.array([4, 8, 12])
    fig = figure_universe_size(Ns, [0.01, 0.04, 0.16], [0.02, 0.08, 0.3], [0.02, 0.06, 0.2], [0.04, 0.1, 0.4],
                               [0.2, 0.2, 0.2], m=100, n=1797, epsilon=1.0)
    assert "slope 0.50" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()][1]
    plt.close(fig)
    with pytest.raises(ValueError, match="many_q"):
        figure_universe_size(Ns, [0.01, 0.04, 0.16], [0.02, 0.08, 0.3], [0.02, 0.06], [0.04, 0.1, 0.4],
                             [0.2, 0.2, 0.2], m=100, n=1797, epsilon=1.0)
