"""Bounds for the noisy histogram and for weighted sums of Laplace noise (chapter 03).

LEC3-3.5 (noisy histogram, bound tightened), IDC §6 Lemma 6.1 (a noisy histogram answers every linear query),
IDC-Thm6.5 (tail of ``Y = sum_i q_i X_i`` for i.i.d. Laplace ``X_i``), errata LEC3-E9 and LEC3-E11.
All errors here are *unnormalised* (counts), as in GRU and LEC3; pass ``n`` to get the normalised value.
"""
from __future__ import annotations

import numpy as np

from ..validation import check_beta, check_epsilon, check_int, check_sensitivity, check_tail_points
from .registry import GRU, LECTURE3, Result

__all__ = [
    "NEIGHBOURS", "histogram_sensitivity", "histogram_scale", "laplace_sum_tail_bound",
    "laplace_sum_two_sided_tail_bound", "histogram_error_bound", "histogram_error_bound_general",
    "histogram_error_bound_condition", "histogram_bound",
]


#: The book's two neighbour relations (add/remove one record, replace one record) and the histogram's L1
#: sensitivity under each (LEC3-E11).
NEIGHBOURS = {"add/remove": 1.0, "replace-one": 2.0}


def histogram_sensitivity(neighbours: str = "add/remove") -> float:
    """Erratum LEC3-E11 / DR-Def3.1: the histogram's L1 sensitivity is 1 under add/remove, 2 under replace-one."""
    if not isinstance(neighbours, str):
        raise TypeError(f"neighbours must be a string, got {type(neighbours).__name__} ({neighbours!r})")
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours ({neighbours!r}) must be one of {sorted(NEIGHBOURS)}")
    return NEIGHBOURS[neighbours]


def histogram_scale(epsilon, neighbours: str = "add/remove") -> float:
    """LEC3-3.5 / IDC §6: the noisy histogram adds ``Lap(b)`` to every cell, ``b = 1/ε`` (add/remove) or
    ``2/ε`` (replace-one, erratum LEC3-E11)."""
    return histogram_sensitivity(neighbours) / check_epsilon(epsilon)




def laplace_sum_tail_bound(lam, M, b):
    """IDC-Thm6.5: for ``X_1..X_M`` i.i.d. ``Lap(b)``, ``|q_i| <= 1`` and ``Y = sum q_i X_i``,

        ``P[Y >= λ] <= exp(-λ² / (6 M b²))``  for ``0 <= λ <= 2Mb``,
        ``P[Y >= λ] <= exp(-λ / (4 b))``       for ``λ > 2Mb``,

    and the same for ``P[Y <= -λ]``.  (MGF ``(1 - t²b²)^{-1} <= exp(1.5 t² b²)`` for ``t <= 1/(√2 b)``; Chernoff
    with ``t = λ/(3Mb²)``, resp. ``t = 1/(√2 b)``.  The constants are the book's; GRU's are lost.)
    ``lam`` may be an array.
    """
    lam = check_tail_points("lam", lam)
    M = check_int("M", M, low=1)
    b = check_sensitivity(b, "b")
    gauss = np.exp(-lam ** 2 / (6.0 * M * b ** 2))
    expo = np.exp(-lam / (4.0 * b))
    bound = np.where(lam <= 2.0 * M * b, gauss, expo)
    return float(bound) if bound.ndim == 0 else bound


def laplace_sum_two_sided_tail_bound(lam, M, b):
    """IDC-Thm6.5, both tails: ``P[|Y| >= λ] <= min(1, 2 · laplace_sum_tail_bound(λ, M, b))``."""
    bound = np.minimum(1.0, 2.0 * np.asarray(laplace_sum_tail_bound(lam, M, b)))
    return float(bound) if bound.ndim == 0 else bound


def histogram_error_bound_condition(N, m, beta) -> bool:
    """When IDC-Lem6.1's first bound applies: ``m <= (β/2) e^{2N/3}``, i.e. ``ln(2m/β) <= 2N/3``
    (then ``λ = sqrt(6N ln(2m/β)) b`` lies in Thm 6.5's first regime ``λ <= 2Nb``)."""
    N = check_int("N", N, low=1)
    m = check_int("m", m, low=1)
    return bool(np.log(2.0 * m / check_beta(beta)) <= 2.0 * N / 3.0)


def histogram_error_bound(N, m, beta, epsilon, *, n=None, neighbours: str = "add/remove") -> float:
    """IDC-Lem6.1 (first bound) and LEC3-3.5 (``m = 1``; erratum LEC3-E9): with prob. ``>= 1 - β`` every one
    of ``m`` linear queries ``q ∈ [0,1]^N`` answered from the noisy histogram is within

        ``sqrt(6 N ln(2m/β)) · b``  counts,  ``b = 1/ε`` (add/remove) or ``2/ε`` (replace-one),

    divided by ``n`` when ``n`` is given.  Requires ``m <= (β/2) e^{2N/3}`` (see
    :func:`histogram_error_bound_condition`); otherwise use :func:`histogram_error_bound_general`.
    The seed's ``sqrt(N) log(1/β) / (nε)`` is valid but loose: the log enters under the square root.
    """
    N, m, beta = check_int("N", N, low=1), check_int("m", m, low=1), check_beta(beta)
    b = histogram_scale(epsilon, neighbours)
    if not histogram_error_bound_condition(N, m, beta):
        raise ValueError(f"m ({m}) must be <= (beta/2) e^(2N/3) for N ({N}) and beta ({beta!r}); "
                         "use histogram_error_bound_general")
    bound = float(np.sqrt(6.0 * N * np.log(2.0 * m / beta)) * b)
    return bound if n is None else bound / check_int("n", n, low=1)


def histogram_error_bound_general(N, m, beta, epsilon, *, n=None, neighbours: str = "add/remove") -> float:
    """IDC-Lem6.1 (second bound, any ``m``): with prob. ``>= 1 - β`` all ``m`` errors are within

        ``ln(2N/β) · b · sqrt(2 N ln(4m/β))``  counts  (divided by ``n`` when given).

    (Condition on ``max_x |Z_x| <= b ln(2N/β)``, probability ``>= 1 - β/2``, then Hoeffding for the symmetric,
    bounded ``Z_x``, union bound over the ``m`` queries at ``β/2``.)
    """
    N, m, beta = check_int("N", N, low=1), check_int("m", m, low=1), check_beta(beta)
    b = histogram_scale(epsilon, neighbours)
    bound = float(np.log(2.0 * N / beta) * b * np.sqrt(2.0 * N * np.log(4.0 * m / beta)))
    return bound if n is None else bound / check_int("n", n, low=1)


# --- the results chapter 03 states and checks (the book's theorem registry, docs/theorems.md) --------------------
_CH = "03_histograms"
RESULTS = (
    Result(id="LEC3-3.5", title="The noisy histogram", chapter=_CH, section="The noisy histogram (LEC3-3.5)",
           statement=r"Adding $\mathrm{Lap}(1/\varepsilon)$ to every cell of the histogram is $\varepsilon$-DP under add/remove "
                     r"($\mathrm{Lap}(2/\varepsilon)$ under replace-one), and one linear query answered from it errs by "
                     r"$O(\sqrt{N\ln(1/\beta)}/(n\varepsilon))$ in normalised units.",
           implemented_by=("dpbook.histogram.noisy_histogram", "dpbook.histogram.histogram_mechanism"),
           bounds=("dpbook.theory.histogram.histogram_scale", "dpbook.theory.histogram.histogram_error_bound"),
           source=f"{LECTURE3}, §3.5 (bound tightened); {GRU}, §6"),
    Result(id="LEC3-E11", title="Erratum: histogram sensitivity depends on the neighbours", chapter=_CH,
           section="The noisy histogram (LEC3-3.5)",
           statement=r"Clarification: the histogram's $\ell_1$-sensitivity is 1 for add/remove neighbours (the notes' "
                     r"$\|x-y\|_1\le1$) but 2 for replace-one neighbours, which need twice the noise.",
           bounds=("dpbook.theory.histogram.histogram_sensitivity",),
           source=f"{LECTURE3}, §3.3.1"),
    Result(id="IDC-Thm6.5", title="Tail bound for weighted sums of Laplace noise", chapter=_CH,
           section="Tail bound for weighted Laplace sums",
           statement=r"For $Y=\sum_{i\le M}q_iX_i$ with $|q_i|\le1$ and i.i.d. $X_i\sim\mathrm{Lap}(b)$: "
                     r"$\Pr[Y\ge\lambda]\le e^{-\lambda^2/(6Mb^2)}$ for $\lambda\le2Mb$ and $\le e^{-\lambda/(4b)}$ beyond "
                     r"(Chernoff with the Laplace MGF; constants reconstructed, the paper's are lost).",
           bounds=("dpbook.theory.histogram.laplace_sum_tail_bound",
                   "dpbook.theory.histogram.laplace_sum_two_sided_tail_bound"),
           source=f"{GRU}, Thm. 6.5 (constants reconstructed)"),
    Result(id="IDC-E7", title="Erratum: the two-regime tail bound jumps upward", chapter=_CH,
           section="Tail bound for weighted Laplace sums",
           statement=r"IDC-Thm6.5's bound jumps up by $e^{M/6}$ at $\lambda=2Mb$, while a tail probability is "
                     r"non-increasing: plot its running minimum, or the proof's continuous Chernoff optimum "
                     r"$e^{-\lambda^2/(6Mb^2)}$ for $\lambda\le3Mb/\sqrt2$, then $e^{3M/4-\lambda/(\sqrt2 b)}$.",
           bounds=("dpbook.theory.histogram.laplace_sum_tail_bound",),
           source=f"{GRU}, Thm. 6.5 (constants reconstructed)"),
    Result(id="IDC-Lem6.1", title="A noisy histogram answers every linear query", chapter=_CH,
           section="Every linear query at once",
           statement=r"With probability $1-\beta$ the histogram with $\mathrm{Lap}(1/\varepsilon)$ cells answers all queries "
                     r"of a family $Q\subseteq[0,1]^N$ within $\sqrt{6N\ln(2m/\beta)}/\varepsilon$ counts while "
                     r"$\ln(2m/\beta)\le2N/3$, and within $\frac{\ln(2N/\beta)}{\varepsilon}\sqrt{2N\ln(4m/\beta)}$ in general.",
           implemented_by=("dpbook.histogram.noisy_histogram",),
           bounds=("dpbook.theory.histogram.histogram_error_bound",
                   "dpbook.theory.histogram.histogram_error_bound_general",
                   "dpbook.theory.histogram.histogram_error_bound_condition"),
           source=f"{GRU}, Lemma 6.1 (reconstructed)"),
    Result(id="LEC3-E9", title="Erratum: the histogram's error grows like the root of ln(1/β)", chapter=_CH,
           section="The price of a large universe",
           statement=r"Correction: one query's error is $O(\sqrt{N\ln(1/\beta)}/(n\varepsilon))$; the notes' "
                     r"$\sqrt N\log(1/\beta)/(n\varepsilon)$ is valid but loose.",
           bounds=("dpbook.theory.histogram.histogram_error_bound",),
           source=f"{LECTURE3}, §3.5"),
)


def histogram_bound(N, m, beta, epsilon, n=None) -> float:
    """IDC-Lem6.1's bound for the noisy histogram: its first form (:func:`histogram_error_bound`) where it applies
    (``m <= (β/2) e^{2N/3}``, :func:`histogram_error_bound_condition`), else the second
    (:func:`histogram_error_bound_general`: any ``m``; needed on the tiny universes SmallDB can run on).  ``n``:
    normalise by it; ``None``: counts."""
    if histogram_error_bound_condition(N, m, beta):
        return histogram_error_bound(N, m, beta, epsilon, n=n)
    return histogram_error_bound_general(N, m, beta, epsilon, n=n)
