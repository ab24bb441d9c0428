"""Chapter 07's regime experiments and widget: MWEM where its theorem says it should win — a universe far
larger than the data (the digits' first ``d`` pixels, ``N = 2^d``), all 3-way marginals (``m >> n``) — next to
the noisy histogram of chapter 03 (given its exact sensitivity, 1 per row) and the uniform guess."""
from __future__ import annotations

import functools

import numpy as np

from ..data import digits_subsample
from ..histogram import histogram_mechanism
from ..mwem import mwem, mwem_practical
from ..noise import as_generator
from ..plots import BASELINE, BOUND, EMPIRICAL, EXTRA, UNIFORM, new_figure
from ..queries import MarginalWorkload, k_way_marginals
from ..theory.histogram import histogram_error_bound
from ..theory.mwem import hlm_error_bound
from ..validation import check_epsilon, check_int

__all__ = ["cancer_4way_cells", "digits_marginals", "regime_errors", "MECHANISMS",
           "explore_mwem"]

#: the series of :func:`regime_errors`, in plotting order
MECHANISMS = ("MWEM (theorem)", "MWEM practical", "noisy histogram", "uniform guess")


@functools.lru_cache(typed=True, maxsize=None)
def cancer_4way_cells(m: int) -> MarginalWorkload:
    """The first ``m`` cells of the 4-way marginals of the cancer data (16 cells per attribute set; cached)."""
    W = k_way_marginals(11, 4) if m == 5280 else cancer_4way_cells(5280)
    m = check_int("m", m, low=1, high=W.m)
    return W if m == W.m else MarginalWorkload(W.d, W.cells[:m])


@functools.lru_cache(typed=True, maxsize=None)
def digits_marginals(d: int, k: int = 3) -> MarginalWorkload:
    """All ``k``-way marginal cells of the first ``d`` digit pixels: ``m = 2^k C(d, k)`` queries (cached)."""
    d = check_int("d", d, low=3, high=16)
    k = check_int("k", k, low=1, high=d)
    return k_way_marginals(d, k)


def _max_error(answers, true) -> np.ndarray:
    return np.abs(np.atleast_2d(answers) - true).max(axis=1)


def regime_errors(d: int, n: int, *, epsilon=1.0, trials: int = 3, T: int = 30, practical_T: int = 10,
                  practical_replay: int = 3, practical: bool = True, rng=None) -> dict[str, np.ndarray]:
    """Max error over all 3-way marginal cells of ``n`` real digit rows on their first ``d`` pixels, per trial.

    Series (keys of :data:`MECHANISMS`): MWEM exactly as HLM state it (``T`` rounds, the average of the
    iterates, no replay; the algorithm their bound covers), ``mwem_practical`` (whole marginals measured, last
    iterate, ``practical_replay`` sweeps, ``practical_T`` rounds; same ε, no bound), chapter 03's noisy histogram
    (``Lap(1/ε)`` per cell: L1 sensitivity 1 under add/remove, exact for any workload), and the data-free uniform
    guess.  All at the same ε, add/remove neighbours, public ``n``.  The subsample is drawn once from ``rng``.
    """
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, low=1, high=1000)
    rng = as_generator(rng)
    x = digits_subsample(d, n, rng)
    W = digits_marginals(d)
    true = W.counts(x) / n
    out = {"MWEM (theorem)": _max_error(mwem(x, W, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng).answers, true)}
    if practical:
        out["MWEM practical"] = _max_error(mwem_practical(x, W, epsilon=epsilon, T=practical_T, n=n,
                                                          replay=practical_replay, trials=trials, rng=rng).answers, true)
    out["noisy histogram"] = _max_error(histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=trials,
                                                            rng=rng).answers, true)
    out["uniform guess"] = _max_error(W.counts(np.full(W.N, 1.0 / W.N)), true)
    return out


def explore_mwem(epsilon=1.0, d=12, n=1797, T=30, *, trials=3, beta=0.05, seed=2026):
    """MWEM (as HLM state it) against chapter 03's noisy histogram on all 3-way marginals of digit pixels.

    ``d``: the first ``d`` of the 16 pixels (``N = 2^d``, ``m = 8 C(d, 3)``); ``n``: that many of the 1797 real
    rows (without replacement).  Left: the max error of ``trials`` runs of each, the uniform guess, the
    histogram's bound (IDC-Lem6.1) and HLM's recalled bound (both drawn only where below 1).  Right: one run's
    released answers against the truth.  A pure, seeded function of its parameters (chapter 07's widget).
    """
    epsilon = check_epsilon(epsilon)
    d = check_int("d", d, low=3, high=16)
    n = check_int("n", n, low=1, high=1797)
    T = check_int("T", T, low=1, high=200)
    trials = check_int("trials", trials, low=1, high=50)
    rng = np.random.default_rng(seed)
    x = digits_subsample(d, n, rng)
    W = digits_marginals(d)
    true = W.counts(x) / n
    runs = {"MWEM": mwem(x, W, epsilon=epsilon, T=T, n=n, trials=trials, rng=rng).answers,
            "noisy histogram": histogram_mechanism(x, W, epsilon=epsilon, n=n, trials=trials, rng=rng).answers}
    err_uniform = float(np.abs(W.counts(np.full(W.N, 1.0 / W.N)) - true).max())
    bounds = {"histogram bound": (histogram_error_bound(W.N, W.m, beta, epsilon, n=n), BASELINE),
              "HLM bound [recalled]": (hlm_error_bound(n, W.N, W.m, T, epsilon), BOUND)}

    fig, (left, right) = new_figure(2, width=9.6, height=3.9)
    colours = {"MWEM": EMPIRICAL, "noisy histogram": BASELINE}
    for i, (name, answers) in enumerate(runs.items()):
        err = _max_error(answers, true)
        left.plot(np.full(trials, i), err, "o", color=colours[name], ms=6, alpha=0.8,
                  label=f"{name}: median {np.median(err):.2f}")
        right.plot(true, answers[0], ".", color=colours[name], ms=3, alpha=0.6, label=name, zorder=3 - i)
    left.axhline(err_uniform, color=UNIFORM, ls="--", label=f"uniform guess {err_uniform:.2f}")
    for name, (b, colour) in bounds.items():
        if b < 1:
            left.axhline(b, color=colour, ls="-" if colour == BOUND else "-.", lw=1.5, label=f"{name} {b:.2f}")
        else:
            left.plot([], [], " ", label=f"{name} {b:.2g}: vacuous")
    left.set_xticks(range(len(runs)), list(runs))
    left.set_xlim(-0.6, len(runs) - 0.4)
    left.set_ylim(0, 1.05)
    left.set_ylabel("max error over the m cells")
    left.set_title(f"d={d} (N={W.N:,}), m={W.m:,},\nn={n}, ε={epsilon:.3g}, T={T}")
    left.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.2)
    right.plot([0, 1], [0, 1], "k:", lw=1)
    right.set_xlim(-0.02, 1.02)
    right.set_ylim(-0.3, 1.05)
    right.set_xlabel("true answer")
    right.set_ylabel("released (one run)")
    right.set_title("one run's answers")
    right.legend(loc="lower right", markerscale=3)
    return fig
