"""Chapter 00's widget: two neighbouring answers and the Laplace noise that hides which is which."""
from __future__ import annotations

import numpy as np

from ..noise import laplace_noise
from ..plots import BOUND, EMPIRICAL, EXTRA, TRUTH, new_figure
from ..theory.laplace import laplace_scale
from ..validation import check_epsilon, check_int, check_sensitivity

__all__ = ["explore_noise"]


def explore_noise(epsilon=1.0, sensitivity=1.0, *, samples=2000, seed=2026):
    """Output densities of the Laplace mechanism on neighbours with answers 0 and Δf (IDC-Thm2.3).

    Left: both densities and a histogram of ``samples`` seeded draws from the first.  Right: the log
    density ratio, which never leaves ``[-ε, ε]``.
    """
    epsilon, sensitivity = check_epsilon(epsilon), check_sensitivity(sensitivity)
    samples = check_int("samples", samples, low=1)
    b = laplace_scale(sensitivity, epsilon)
    y = np.linspace(-6 * b, sensitivity + 6 * b, 600)
    p = np.exp(-np.abs(y) / b) / (2 * b)
    p_prime = np.exp(-np.abs(y - sensitivity) / b) / (2 * b)
    draws = laplace_noise(b, samples, seed)

    fig, (left, right) = new_figure(2, width=9.6, height=4.4)
    left.hist(draws, bins=50, density=True, histtype="stepfilled", color=EMPIRICAL, alpha=0.3,
              label=f"{samples} draws of M(x)")
    left.plot(y, p, color=EMPIRICAL, label="density of M(x), answer 0")
    left.plot(y, p_prime, color=EXTRA[1], label=f"density of M(x'), answer {sensitivity:.3g}")
    left.set_xlabel("released answer y")
    left.set_ylabel("density")
    left.set_title(f"Lap(b = Δf/ε = {b:.3g})")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    # the loss sits exactly on ±ε outside [0, Δf]: shade |loss| > ε (never reached) and draw the black curve on top
    loss = np.log(p / p_prime)
    right.plot(y, loss, color=TRUTH, lw=2.6, zorder=3, label="ln p(y) / p'(y)")
    lim = 1.4 * max(epsilon, float(np.max(np.abs(loss))))
    right.axhspan(epsilon, lim, color=BOUND, alpha=0.12, lw=0, zorder=0, label="|loss| > ε: never reached")
    right.axhspan(-lim, -epsilon, color=BOUND, alpha=0.12, lw=0, zorder=0)
    right.axhline(epsilon, color=BOUND, ls="--", lw=1, zorder=1, label="±ε")
    right.axhline(-epsilon, color=BOUND, ls="--", lw=1, zorder=1)
    right.set_ylim(-lim, lim)
    right.set_xlabel("released answer y")
    right.set_ylabel("privacy loss")
    right.set_title("privacy loss at each output")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig
