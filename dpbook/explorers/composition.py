"""Chapter 05's widget (basic against advanced composition against the exact composition of randomized response)
and the chapter's figures: pure functions of the numbers the chapter computes, each ``figure_<what>(...) -> Figure``.

The exact curve is the worst case among ε₀-DP steps: ``m``-fold randomized response (Kairouz–Oh–Viswanath 2015),
computed from a binomial by :mod:`dpbook.theory.composition`.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from ..plots import (BASELINE, BOUND, EMPIRICAL, EXTRA, TRUTH, accuracy_vs_theory, legend_outside, new_figure,
                     reference_curve)
from ..theory.composition import (advanced_composition, basic_composition, randomized_response_loss_law,
                                  randomized_response_composition_epsilon)
from ..validation import check_delta, check_epsilon, check_int, check_positive_real
from ._inputs import series as _curves
from ._layout import fixed_figure, log_minor_125

__all__ = ["explore_composition", "figure_expected_loss", "figure_composition", "figure_counting_queries",
           "figure_crossovers"]

MAX_STEPS = 10_000




def _positive(name, arr):
    if np.any(arr <= 0):
        raise ValueError(f"{name} ({float(arr.min())!r}) must be > 0 on a log axis")
    return arr


def _step_grid(high):
    return np.unique(np.round(np.geomspace(1, high, 30)).astype(int))


@functools.lru_cache(maxsize=64)
def _totals(epsilon0, delta_prime):
    """The left panel's curves (steps, basic, advanced, exact) for one (ε₀, δ′): moving the m slider reuses them."""
    steps = _step_grid(MAX_STEPS)
    adv = tuple(advanced_composition(epsilon0, int(k), delta_prime)[0] for k in steps)
    exact = tuple(randomized_response_composition_epsilon(epsilon0, int(k), delta_prime) for k in steps)
    return tuple(steps.tolist()), tuple((steps * epsilon0).tolist()), adv, exact


def explore_composition(epsilon0=0.1, m=100, delta_prime=1e-6):
    """DR-Thm3.16 and DR-Thm3.20 against the exact cost of ``m`` ε₀-DP steps.

    Left: the total ε after 1..10,000 steps by basic composition ``mε₀``, by advanced composition (at
    ``delta_prime``) and exactly for ``m``-fold randomized response (the worst ε₀-DP step), with ``m`` marked.
    Right: at ``m`` steps, the δ each rule pays for a total ε: advanced composition's ``(ε', δ')`` for every δ′
    (the slider's δ′ marked), the exact privacy curve δ(ε) of ``m``-fold randomized response, and basic
    composition's ``mε₀`` (δ = 0).
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0", high=5.0)
    m = check_int("m", m, low=1, high=MAX_STEPS)
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    steps, basic, adv, exact = (np.array(v) for v in _totals(epsilon0, delta_prime))
    fig, (left, right) = fixed_figure(2, width=9.6, height=5.4, left=0.8, right=0.25, bottom=1.75, top=0.4,
                                      wspace=0.95)
    left.plot(steps, basic, color=BASELINE, label="basic mε₀")
    left.plot(steps, adv, color=BOUND, label="advanced (DR-Thm3.20)")
    left.plot(steps, np.maximum(exact, 1e-6), color=TRUTH, label="exact (m-fold RR)")
    left.axvline(m, color=EXTRA[4], ls=":", lw=1.6, label=f"m = {m}")
    left.set_xscale("log"); left.set_yscale("log"); log_minor_125(left)
    left.set_xlabel("m (steps)"); left.set_ylabel("total ε")
    left.set_title(f"ε₀ = {epsilon0:.3g}, δ′ = {delta_prime:.3g}")
    legend_outside(left, where="below")
    # right: δ against the total ε at m steps
    pmf, loss = randomized_response_loss_law(epsilon0, m)
    e_grid = np.linspace(0.0, m * epsilon0, 120)
    exact_delta = np.sum(pmf[None, :] * -np.expm1(np.minimum(e_grid[:, None] - loss[None, :], 0.0)), axis=1)
    dps = np.geomspace(1e-15, 0.5, 60)
    adv_eps = [advanced_composition(epsilon0, m, d)[0] for d in dps]
    keep = exact_delta > 1e-15
    right.plot(e_grid[keep], exact_delta[keep], color=TRUTH, label="exact δ(ε), m-fold RR")
    right.plot(adv_eps, dps, color=BOUND, label="advanced: (ε′, δ′) for every δ′")
    eps_here = advanced_composition(epsilon0, m, delta_prime)[0]
    right.plot([eps_here], [delta_prime], "o", color=BOUND, ms=7, label=f"δ′ = {delta_prime:.3g}: ε′ = {eps_here:.3g}")
    right.axvline(m * epsilon0, color=BASELINE, label=f"basic: ε = {m * epsilon0:.3g}, δ = 0")
    right.set_yscale("log"); right.set_ylim(1e-15, 1)
    right.set_xlim(0, 1.05 * max(m * epsilon0, min(eps_here, 3 * m * epsilon0)))
    right.yaxis.set_major_locator(LogLocator(numticks=6)); log_minor_125(right)
    right.set_xlabel("total ε"); right.set_ylabel("δ")
    right.set_title(f"m = {m} steps")
    legend_outside(right, where="below")
    return fig


# --- the chapter's figures ------------------------------------------------------------------------------------------

def figure_expected_loss(eps, mean, se, kl_exact, kl_bound):
    """IDC-Thm2.4 ≡ DR-Lemma3.18 measured: the Monte Carlo mean privacy loss (with ±1.96 ``se``) of a Laplace count
    against its exact KL divergence and the bound ``ε(e^ε − 1)`` (and ``2ε²`` where ε ≤ 1) over ``eps``."""
    c = _curves("eps", eps=eps, mean=mean, se=se, kl_exact=kl_exact, kl_bound=kl_bound)
    eps = _positive("eps", c["eps"])
    fig, ax = new_figure(height=4.6)
    accuracy_vs_theory(eps, c["mean"], c["kl_bound"], lower=c["mean"] - 1.96 * c["se"],
                       upper=c["mean"] + 1.96 * c["se"], ax=ax, logx=True, logy=True, xlabel="ε₀ (one step)",
                       ylabel="expected privacy loss E[L]", empirical_label="Monte Carlo E[L]",
                       bound_label="bound ε₀(e^ε₀ − 1)")
    ax.plot(eps, c["kl_exact"], ":", color=TRUTH, label="exact KL = ε₀ + e^−ε₀ − 1")
    small = eps <= 1
    ax.plot(eps[small], 2 * eps[small] ** 2, "--", color=EXTRA[3], lw=1.2, label="2ε₀² (ε₀ ≤ 1)")
    legend_outside(ax)
    log_minor_125(*fig.axes)
    return fig


def figure_composition(steps, exact, advanced, basic, per_step_basic, per_step_advanced, *, epsilon0, delta_prime,
                       target, crossover):
    """DR-Thm3.16, DR-Thm3.20 and DR-Cor3.21 over ``steps``: left, the total ε of ``steps`` ε₀-DP steps (exact
    ``m``-fold randomized response, advanced, basic; advanced beats basic from ``crossover``); right, the per-step
    budget each rule allows for a total ``target``."""
    c = _curves("steps", steps=steps, exact=exact, advanced=advanced, basic=basic, per_step_basic=per_step_basic,
                per_step_advanced=per_step_advanced)
    for name in c:
        _positive(name, c[name])
    epsilon0, target = check_epsilon(epsilon0, "epsilon0"), check_epsilon(target, "target")
    delta_prime = check_delta(delta_prime, "delta_prime", positive=True)
    crossover = check_int("crossover", crossover, low=1)
    fig, (a1, a2) = new_figure(2, height=5.6)
    a1.plot(c["steps"], c["basic"], color=BASELINE, label="basic mε₀")
    a1.plot(c["steps"], c["advanced"], color=BOUND, label="advanced (DR-Thm3.20)")
    a1.plot(c["steps"], c["exact"], color=TRUTH, label="exact (m-fold RR,\nthe worst case)")
    a1.axvline(crossover, color=EXTRA[4], ls=":", lw=1.6, label=f"advanced < basic\nfrom m = {crossover}")
    a1.set_xscale("log"); a1.set_yscale("log"); a1.set_xlabel("m (steps)"); a1.set_ylabel("total ε")
    a1.set_title(f"ε₀ = {epsilon0:.3g}, δ′ = {delta_prime:.3g}")
    a2.plot(c["steps"], c["per_step_basic"], color=BASELINE, label="basic ε/m")
    a2.plot(c["steps"], c["per_step_advanced"], color=BOUND, label="DR-Cor3.21\nε/(2√(2m ln(1/δ′)))")
    a2.set_xscale("log"); a2.set_yscale("log"); a2.set_xlabel("m (steps)"); a2.set_ylabel("budget ε₀ per step")
    a2.set_title(f"total ε = {target:.3g}, δ′ = {delta_prime:.3g}")
    for a in (a1, a2):
        legend_outside(a, where="below")
    log_minor_125(*fig.axes)
    return fig


def figure_counting_queries(ms, q_basic, q_advanced, bound_advanced, q_gauss, uniform, *, n, epsilon, delta,
                            quantile=0.95):
    """LEC3-3.3.2 measured: the ``quantile`` of the max error of ``ms`` counting queries answered by Laplace with
    advanced composition (with its bound), by Laplace with the basic split, and by the per-query Gaussian baseline,
    with the uniform guess's error over the same queries."""
    c = _curves("ms", ms=ms, q_basic=q_basic, q_advanced=q_advanced, bound_advanced=bound_advanced,
                q_gauss=q_gauss, uniform=uniform)
    for name in c:
        _positive(name, c[name])
    n = check_int("n", n, low=1)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, positive=True)
    quantile = check_positive_real("quantile", quantile)
    slope = lambda y: float(np.polyfit(np.log(c["ms"]), np.log(y), 1)[0]) if c["ms"].size > 1 else float("nan")  # noqa: E731
    fig, ax = new_figure(height=5.0)
    ax.plot(c["ms"], c["bound_advanced"], "-", color=BOUND, label="Laplace + advanced: bound")
    ax.plot(c["ms"], c["q_advanced"], "o", color=EMPIRICAL, ms=6,
            label=f"Laplace + advanced (slope {slope(c['q_advanced']):.2f})")
    ax.plot(c["ms"], c["q_basic"], "^", color=EXTRA[1], ms=6, zorder=3, label=f"Laplace, basic ε/m (slope {slope(c['q_basic']):.2f})")
    ax.plot(c["ms"], c["q_gauss"], "s", color=BASELINE, ms=6, label=f"Gaussian baseline (slope {slope(c['q_gauss']):.2f})")
    reference_curve(ax, c["ms"], c["uniform"])
    ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("m (queries)")
    ax.set_ylabel(f"max error, {quantile:g}-quantile")
    ax.set_title(f"n = {n}, ε = {epsilon:.3g}, δ = {delta:.3g}")
    legend_outside(ax, where="below", ncols=2)
    log_minor_125(*fig.axes)
    values = np.concatenate([c[k] for k in ("q_basic", "q_advanced", "bound_advanced", "q_gauss", "uniform")])
    lo, hi = values.min() / 1.25, values.max() * 1.25
    ax.set_ylim(lo, hi)        # plain labels 0.2, 0.5, 1, 2, 5 where a log axis would label only 10⁰ and 10¹
    ax.yaxis.set_major_locator(FixedLocator([t for t in (k * 10.0 ** e for e in range(-3, 4) for k in (1, 2, 5))
                                             if lo <= t <= hi]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())
    return fig


def figure_crossovers(steps, crossovers, *, epsilon0s=(0.01, 1.0), delta_primes=(1e-12, 1e-2)):
    """Basic against advanced composition for two per-step ε₀ (one panel each) and two δ′ (solid, dashed) over
    ``steps``; ``crossovers[(ε₀, δ′)]`` (a step count, or ``math.inf`` when advanced never wins) is marked."""
    steps = _positive("steps", _curves("steps", steps=steps)["steps"]).astype(int)
    if len(epsilon0s) != 2 or len(delta_primes) != 2:
        raise ValueError(f"epsilon0s ({epsilon0s!r}) and delta_primes ({delta_primes!r}) must have two values each")
    eps0 = [check_epsilon(e, "epsilon0s") for e in epsilon0s]
    dps = [check_delta(d, "delta_primes", positive=True) for d in delta_primes]
    if not isinstance(crossovers, dict):
        raise TypeError(f"crossovers must be a dict {{(epsilon0, delta_prime): steps}}, got {type(crossovers).__name__}")
    fig, axes = new_figure(2, height=5.4)
    for ax, e in zip(axes, eps0):
        ax.plot(steps, [basic_composition(e, int(k))[0] for k in steps], color=BASELINE, label="basic mε₀")
        for d, ls, mk in zip(dps, ("-", "--"), ("o", "s")):
            ax.plot(steps, [advanced_composition(e, int(k), d)[0] for k in steps], color=BOUND, ls=ls,
                    label=f"advanced, δ′ = {d:.3g}")
            k = crossovers.get((e, d), math.inf)
            if math.isfinite(k):
                ax.plot(k, basic_composition(e, int(k))[0], mk, color=EXTRA[4], ms=7,
                        label=f"crossover m = {int(k)} (δ′ = {d:.3g})")
        ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("m (steps)"); ax.set_ylabel("total ε")
        ax.set_title(f"ε₀ = {e:.3g}")
        legend_outside(ax, where="below")
    log_minor_125(*fig.axes)
    return fig
