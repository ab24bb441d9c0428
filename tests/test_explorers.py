"""Every chapter's widget callback: callable without a browser, pure (same parameters, same figure), validating."""
import matplotlib.pyplot as plt
import numpy as np
import pytest


def _lines(fig):
    return [np.asarray(line.get_ydata(), dtype=float).tolist() for ax in fig.axes for line in ax.lines]


def test_explore_smalldb_pure_and_valid():
    from dpbook.explorers.exponential import explore_smalldb
    a, b = explore_smalldb(epsilon=0.5, m=10), explore_smalldb(epsilon=0.5, m=10)
    assert _lines(a) == _lines(b)
    tail = np.asarray(a.axes[0].lines[0].get_ydata(), dtype=float)
    assert tail[0] == pytest.approx(1.0) and np.all(np.diff(tail) <= 1e-12)   # a survival function
    plt.close("all")
    for kw, name in [(dict(epsilon=-1), "epsilon"), (dict(alpha=0), "alpha"), (dict(m=2), "m"), (dict(beta=2), "beta")]:
        with pytest.raises(ValueError, match=name):
            explore_smalldb(**kw)


def test_explore_gaussian_pure_and_valid():
    from dpbook.explorers.gaussian import explore_gaussian
    a, b = explore_gaussian(m=16, trials=50), explore_gaussian(m=16, trials=50)
    assert _lines(a) == _lines(b)
    assert [p.get_xy().tolist() for p in a.axes[1].patches] == [p.get_xy().tolist() for p in b.axes[1].patches]
    plt.close("all")
    for kw, name in [(dict(epsilon=0), "epsilon"), (dict(delta=0.0), "delta"), (dict(m=0), "m"),
                     (dict(epsilon=1.5), "epsilon")]:          # the classic calibration needs ε < 1
        with pytest.raises(ValueError, match=name):
            explore_gaussian(**kw)


def test_explore_sparse_pure_and_valid():
    from dpbook.explorers.sparse_vector import explore_sparse
    a, b = explore_sparse(k=40, trials=50), explore_sparse(k=40, trials=50)
    assert _lines(a) == _lines(b)
    plt.close("all")
    for kw, name in [(dict(epsilon=0), "epsilon"), (dict(c=0), "c"), (dict(k=500), "k"), (dict(T=1.5), "T")]:
        with pytest.raises(ValueError, match=name):
            explore_sparse(**kw)


def test_explore_audit_pure_and_valid():
    from dpbook.explorers.auditing import explore_audit
    a, b = explore_audit("laplace", trials=2000), explore_audit("laplace", trials=2000)
    assert [bar.get_height() for bar in a.axes[1].patches] == [bar.get_height() for bar in b.axes[1].patches]
    plt.close("all")
    with pytest.raises(ValueError, match="trials"):
        explore_audit("laplace", trials=10)
    with pytest.raises(ValueError):
        explore_audit("no such case")
