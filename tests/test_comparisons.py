"""dpbook.comparisons: the chapters' head-to-head experiments — seeded, sane (the error of each series where the
chapter says it is), validating — and the pieces they are built from (one_two_way_cells, exact_quantile)."""
import numpy as np
import pytest

from dpbook.comparisons import MECHANISMS, regime_errors, smalldb_vs_histogram
from dpbook.queries import one_two_way_cells
from dpbook.stats import exact_quantile


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


def test_smalldb_vs_histogram_small_sizes():
    r = smalldb_vs_histogram(2, epsilon=1.0, alpha=0.5, trials=500, rng=7)
    assert (r["N"], r["m"], r["db_size"], r["range_size"]) == (4, 8, 9, 220)          # C(4 + 9 - 1, 9) = 220
    assert r["OPT"] <= r["smalldb"] and r["histogram"] < r["smalldb"] < r["uniform"]
    assert smalldb_vs_histogram(2, epsilon=1.0, alpha=0.5, trials=500, rng=7) == r           # seeded
    assert one_two_way_cells(4).m == 2 * 4 + 4 * 6
    assert exact_quantile([0.3, 0.1, 0.2], [0.2, 0.5, 0.3], 0.6) == 0.2
    assert exact_quantile([0.3, 0.1, 0.2], [0.2, 0.5, 0.3], 0.95) == 0.3
    for kw, exc, name in [(dict(d=5), ValueError, "d"), (dict(d=2, epsilon=-1.0), ValueError, "epsilon"),
                          (dict(d=2, alpha=0.0), ValueError, "alpha"), (dict(d=2, trials=0), ValueError, "trials")]:
        with pytest.raises(exc, match=name):
            smalldb_vs_histogram(**kw)
