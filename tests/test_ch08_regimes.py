"""Chapter 08's regimes: the digits marginals without a matrix (m = 4992 >> n), and the budget split
(IDC-Alg1-SV at composition="corollary" vs "tight", DR-Cor3.21 vs DR-Thm3.20) in the explorers."""
import itertools

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook.experiments import failure_rate
from dpbook.explorers.idc import digits16, digits_marginals, explore_online, th_sv_threshold_for
from dpbook.idc import FixedStream, MultiplicativeWeightsIDC, online_idc_sv
from dpbook.queries import MarginalWorkload
from dpbook.release import compose
from dpbook.theory import idc as th

BETA, EPS, DELTA = 0.05, 0.9, 1e-6


def test_digits_marginals_match_the_dense_reference():
    """The operator workload answers exactly what digits16's explicit 512 x 2^16 matrix answers (same cells, order)."""
    x_ref, W_ref = digits16()
    x, W = digits_marginals((1, 2))
    assert isinstance(W, MarginalWorkload) and W.m == W_ref.m == 512
    np.testing.assert_array_equal(x, x_ref)
    np.testing.assert_allclose(W.answers(x), W_ref.answers(x_ref), rtol=0, atol=1e-12)


def test_three_way_cells_hand_computed():
    x, W = digits_marginals((1, 2, 3))
    assert W.m == 32 + 480 + 4480 == 4992
    assert W.l1_sensitivity() == 16 + 120 + 560          # a row lies in one cell of every marginal
    u = np.arange(x.size)
    bit = lambda j: (u >> (15 - j)) & 1                  # pixel j of universe element u (most significant first)
    counts = W.counts(x)
    for j, (S, v) in enumerate(W.cells):
        if len(S) == 3 and j % 997 == 0:                  # a few 3-way cells, counted by hand
            inside = np.all([bit(a) == b for a, b in zip(S, v)], axis=0)
            assert counts[j] == x[inside].sum()
    first3 = 32 + 480
    assert W.cells[first3] == ((0, 1, 2), (0, 0, 0))
    assert [c for c in W.cells[first3:first3 + 8]] == [((0, 1, 2), v) for v in itertools.product((0, 1), repeat=3)]


def test_digits_marginals_sizes_and_determinism():
    assert digits_marginals((1, 2, 3), 10)[0].sum() == 17970
    a, b = digits_marginals((1,), rows=180)[0], digits_marginals((1,), rows=180)[0]
    assert a.sum() == 180 and np.array_equal(a, b)


@pytest.mark.parametrize("kw, exc, name", [
    (dict(ks=()), ValueError, "ks"), (dict(ks=(0,)), ValueError, "ks"), (dict(ks=(17,)), ValueError, "ks"),
    (dict(ks=(1, 1)), ValueError, "ks"), (dict(ks=("a",)), TypeError, "ks"), (dict(ks=(1.5,)), TypeError, "ks"),
    (dict(scale=0), ValueError, "scale"), (dict(scale=np.nan), TypeError, "scale"), (dict(rows=0), ValueError, "rows"),
])
def test_digits_marginals_bad_input(kw, exc, name):
    with pytest.raises(exc, match=name):
        digits_marginals(**kw)


def test_online_idc_on_4992_cells_never_densifies_and_meets_its_bound(monkeypatch):
    """IDC-Alg1-SV (tight) on the m = 4992 workload: no m x N matrix, ledger composes to the claim, accurate."""
    x, W = digits_marginals((1, 2, 3), 1000)
    monkeypatch.setattr(MarginalWorkload, "matrix", lambda self: pytest.fail("W.matrix() called"))
    n = int(x.sum())
    k = 200
    a_u, bound = th.sv_best_error_bound(2 ** 16, k, BETA, EPS, DELTA, n, tight=True)
    order = np.random.default_rng(0).permutation(W.m)[:k]
    rel = online_idc_sv(x, MultiplicativeWeightsIDC(2 ** 16, a_u), FixedStream(W, order), epsilon=EPS, delta=DELTA,
                        beta=BETA, n=n, trials=16, rng=1, composition="tight")
    assert rel.params["error_bound"] == pytest.approx(bound)
    assert failure_rate(rel.errors(x).max, rel.params["error_bound"]).consistent_with(BETA)
    assert rel.ledger.rule == "advanced" and compose(rel.ledger)[0] == pytest.approx(EPS, abs=1e-9)
    assert compose(rel.ledger)[0] <= EPS * (1 + 1e-12)


def test_threshold_for_each_split_hand_computed():
    rule = MultiplicativeWeightsIDC(64, 0.1)
    c = th.sv_updates(rule.bound())
    n, k = 569_000, 100
    for split, e0 in (("corollary", th.sv_epsilon0(EPS, DELTA, c)), ("tight", th.sv_epsilon0_tight(EPS, DELTA, c))):
        want = th.sv_threshold(0.1, th.sv_alpha_sv(c, k, BETA, e0, n))
        assert th_sv_threshold_for(rule, k, EPS, DELTA, BETA, n, split) == pytest.approx(want, rel=1e-12)
    assert th_sv_threshold_for(rule, k, EPS, DELTA, BETA, n) == th_sv_threshold_for(rule, k, EPS, DELTA, BETA, n,
                                                                                    "corollary")
    assert (th_sv_threshold_for(rule, k, EPS, DELTA, BETA, n, "tight")
            < th_sv_threshold_for(rule, k, EPS, DELTA, BETA, n, "corollary"))
    with pytest.raises(ValueError, match="composition"):
        th_sv_threshold_for(rule, k, EPS, DELTA, BETA, n, "basic")


def test_explore_online_composition():
    lines = lambda fig: [tuple(map(tuple, line.get_xydata())) for ax in fig.axes for line in ax.lines]
    kw = dict(k=20, trials=5, scale=1000)
    tight, again, cor = explore_online(**kw), explore_online(**kw), explore_online(composition="corollary", **kw)
    try:
        assert lines(tight) == lines(again)                  # deterministic
        assert lines(tight) != lines(cor)                    # the split moves the bound
        assert "ε0 = " in tight.axes[1].get_title()
    finally:
        for fig in (tight, again, cor):
            plt.close(fig)
    with pytest.raises(ValueError, match="composition"):
        explore_online(composition="advanced", **kw)
