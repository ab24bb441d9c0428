"""Every chapter's widget callback: callable without a browser, pure (same parameters, same figure), validating;
and the explorers' helpers: chapter 08–09's regimes (MWEM / SmallDB against the noisy histogram), chapters 10–12's
digits marginals without a matrix (m = 4992 >> n) and budget split (IDC-Alg1-SV at composition="corollary" vs
"tight", DR-Cor3.21 vs DR-Thm3.20)."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook.explorers.idc import explore_online
from dpbook.queries import MarginalWorkload


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
    a, b = explore_sparse(m=40, trials=50), explore_sparse(m=40, trials=50)
    assert _lines(a) == _lines(b)
    plt.close("all")
    for kw, name in [(dict(epsilon=0), "epsilon"), (dict(c=0), "c"), (dict(m=500), "m"), (dict(threshold=1.5), "threshold")]:
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


# --- chapters 00, 01, 02, 17: figures readable on a projector, exact sensitivities, empty bars explained ----------

def _texts(fig):
    """Every piece of text a figure shows: titles, labels, tick labels, legend entries, annotations."""
    out = list(fig.legends)
    for ax in fig.axes:
        out += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels(), *ax.get_yticklabels(), *ax.texts]
        if ax.get_legend() is not None:
            out += ax.get_legend().get_texts()
    return [t for t in out if hasattr(t, "get_fontsize") and t.get_text()]


@pytest.mark.parametrize("make", [
    lambda: __import__("dpbook.explorers.intro", fromlist=["x"]).explore_noise(samples=200),
    lambda: __import__("dpbook.explorers.laplace", fromlist=["x"]).explore_laplace(m=10, trials=200),
    lambda: __import__("dpbook.explorers.randomized_response", fromlist=["x"]).explore_rr(m=20, trials=40),
    lambda: __import__("dpbook.explorers.auditing", fromlist=["x"]).explore_audit("sparse_vector_stream", trials=2000),
])
def test_chapter_explorers_use_projector_font_sizes(make):
    fig = make()
    small = [(t.get_text(), t.get_fontsize()) for t in _texts(fig) if t.get_fontsize() < 10]
    plt.close(fig)
    assert not small, f"text below 10 pt: {small[:5]}"


def test_explore_audit_says_when_an_audit_shows_nothing():
    from dpbook.explorers.auditing import explore_audit
    fig = explore_audit("sparse_vector_stream", trials=2000)     # the exact stream pattern: ε_lb = 0 at this size
    right = fig.axes[1]
    assert "shows nothing" in right.get_title() and any("shows nothing" in t.get_text() for t in right.texts)
    plt.close(fig)




def test_explore_online_composition():
    lines = lambda fig: [tuple(map(tuple, line.get_xydata())) for ax in fig.axes for line in ax.lines]
    kw = dict(m=20, trials=5, scale=1000)
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
