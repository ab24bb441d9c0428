"""Chapter 07's widget: MWEM against the Laplace mechanism on 4-way marginals of the cancer data."""
from __future__ import annotations

import functools

import numpy as np

from ..data import bootstrap, load_cancer
from ..laplace import laplace_mechanism
from ..mwem import mwem
from ..plots import BOUND, EMPIRICAL, EXTRA, new_figure
from ..queries import MarginalWorkload, k_way_marginals
from ..theory.mwem import hlm_error_bound
from ..validation import check_epsilon, check_int

__all__ = ["cancer_4way_cells", "explore_mwem"]


@functools.lru_cache(maxsize=None)
def cancer_4way_cells(m: int) -> MarginalWorkload:
    """The first ``m`` cells of the 4-way marginals of the cancer data (16 cells per attribute set; cached)."""
    W = k_way_marginals(11, 4) if m == 5280 else cancer_4way_cells(5280)
    m = check_int("m", m, low=1, high=W.m)
    return W if m == W.m else MarginalWorkload(W.d, W.cells[:m])


@functools.lru_cache(maxsize=None)
def _cancer_x() -> np.ndarray:
    return load_cancer().x


def explore_mwem(epsilon=1.0, T=10, m=2640, n=2000, replay=1, *, trials=5, seed=2026):
    """MWEM against the Laplace mechanism on the first ``m`` 4-way marginal cells of the cancer data.

    The data are the real cancer histogram, resampled to ``n`` rows when ``n != 569``.  Left: the max error of
    ``trials`` runs of each (dots) — MWEM as specified (``replay=0``) and with ``replay`` extra sweeps over its
    measurements (HLM's practical variant, same privacy) — the data-independent uniform hypothesis (grey) and
    HLM's recalled bound for ``replay=0`` (red; above 1 it is vacuous).  Right: one run's released answers
    against the true ones.  A pure, seeded function of its parameters (chapter 07's widget).
    """

    epsilon = check_epsilon(epsilon)
    T, n = check_int("T", T, low=1), check_int("n", n, low=1)
    replay, trials = check_int("replay", replay, low=0), check_int("trials", trials, low=1)
    rng = np.random.default_rng(seed)
    x = _cancer_x()
    x = x if n == x.sum() else bootstrap(x, n, rng)
    W = cancer_4way_cells(m)
    true = W.counts(x) / n
    runs = {"MWEM": mwem(x, W, epsilon=epsilon, T=T, trials=trials, rng=rng)}
    if replay:
        runs[f"MWEM, replay {replay}"] = mwem(x, W, epsilon=epsilon, T=T, replay=replay, trials=trials, rng=rng)
    runs["Laplace"] = laplace_mechanism(x, W, n=int(x.sum()), epsilon=epsilon, trials=trials, rng=rng)
    err_uniform = float(np.abs(W.counts(np.full(W.N, 1.0 / W.N)) - true).max())
    bound = hlm_error_bound(n, W.N, W.m, T, epsilon)

    fig, (left, right) = new_figure(2)
    colours = [EMPIRICAL, EXTRA[1], EXTRA[0]]
    jitter = rng.uniform(-0.12, 0.12, trials)
    for i, (name, release) in enumerate(runs.items()):
        err = np.abs(release.answers - true).max(axis=1)
        left.plot(i + jitter, err, "o", color=colours[i], ms=5, label=f"{name}: median {np.median(err):.3g}")
        right.plot(true, release.answers[0], ".", color=colours[i], ms=3, alpha=0.7, label=name,
                   zorder=3 - i)                               # MWEM on top of the Laplace cloud
    left.axhline(err_uniform, color="grey", ls="--", label=f"uniform guess (no data) {err_uniform:.3g}")
    if bound <= 1.5:
        left.axhline(bound, color=BOUND, label=f"HLM bound (replay 0) {bound:.3g}")
    else:
        left.plot([], [], " ", label=f"HLM bound = {bound:.3g} (vacuous)")
    left.set_xticks(range(len(runs)), [name.replace(", ", "\n") for name in runs])
    left.set_yscale("log")
    left.set_ylabel("max error over the m cells")
    left.set_title(f"ε={epsilon:.3g}, T={T}, n={n}, m={W.m}")
    left.legend(loc="best", fontsize=8)
    right.plot([0, 1], [0, 1], "k:", lw=1)
    right.set_ylim(-0.25, 1.0)
    right.set_xlabel("true answer")
    right.set_ylabel("released answer (one run)")
    right.legend(loc="upper left")
    return fig
