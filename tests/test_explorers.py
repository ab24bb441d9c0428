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
