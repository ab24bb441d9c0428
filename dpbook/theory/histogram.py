"""Bounds for the noisy histogram and for weighted sums of Laplace noise (chapter 03).

LEC3-3.5 (noisy histogram, bound tightened), IDC §6 Lemma 6.1 (a noisy histogram answers every linear query),
IDC-Thm6.5 (tail of ``Y = sum_i q_i X_i`` for i.i.d. Laplace ``X_i``), errata LEC3-E9 and LEC3-E11.
All errors here are *unnormalised* (counts), as in GRU and LEC3; pass ``n`` to get the normalised value.
"""
from __future__ import annotations

import numpy as np

from ..validation import check_beta, check_epsilon, check_int, check_sensitivity, check_real_array

__all__ = [
    "NEIGHBOURS", "histogram_sensitivity", "histogram_scale", "laplace_sum_tail_bound",
    "laplace_sum_two_sided_tail_bound", "histogram_error_bound", "histogram_error_bound_general",
    "histogram_error_bound_condition",
]

#: The two neighbour relations of THEOREMS.md §0 and the histogram's L1 sensitivity under each (LEC3-E11).
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


def _check_lam(lam) -> np.ndarray:
    return check_real_array("lam", lam, low=0.0)


def laplace_sum_tail_bound(lam, M, b):
    """IDC-Thm6.5: for ``X_1..X_M`` i.i.d. ``Lap(b)``, ``|q_i| <= 1`` and ``Y = sum q_i X_i``,

        ``P[Y >= λ] <= exp(-λ² / (6 M b²))``  for ``0 <= λ <= 2Mb``,
        ``P[Y >= λ] <= exp(-λ / (4 b))``       for ``λ > 2Mb``,

    and the same for ``P[Y <= -λ]``.  (MGF ``(1 - t²b²)^{-1} <= exp(1.5 t² b²)`` for ``t <= 1/(√2 b)``; Chernoff
    with ``t = λ/(3Mb²)``, resp. ``t = 1/(√2 b)``.  The constants are THEOREMS.md's, GRU's are lost.)
    ``lam`` may be an array.
    """
    lam = _check_lam(lam)
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


def histogram_error_bound_condition(N, k, beta) -> bool:
    """When IDC-Lemma 6.1's first bound applies: ``k <= (β/2) e^{2N/3}``, i.e. ``ln(2k/β) <= 2N/3``
    (then ``λ = sqrt(6N ln(2k/β)) b`` lies in Thm 6.5's first regime ``λ <= 2Nb``)."""
    N = check_int("N", N, low=1)
    k = check_int("k", k, low=1)
    return bool(np.log(2.0 * k / check_beta(beta)) <= 2.0 * N / 3.0)


def histogram_error_bound(N, k, beta, epsilon, *, n=None, neighbours: str = "add/remove") -> float:
    """IDC-Lemma 6.1 (first bound) and LEC3-3.5 (``k = 1``; erratum LEC3-E9): with prob. ``>= 1 - β`` every one
    of ``k`` linear queries ``q ∈ [0,1]^N`` answered from the noisy histogram is within

        ``sqrt(6 N ln(2k/β)) · b``  counts,  ``b = 1/ε`` (add/remove) or ``2/ε`` (replace-one),

    divided by ``n`` when ``n`` is given.  Requires ``k <= (β/2) e^{2N/3}`` (see
    :func:`histogram_error_bound_condition`); otherwise use :func:`histogram_error_bound_general`.
    The seed's ``sqrt(N) log(1/β) / (nε)`` is valid but loose: the log enters under the square root.
    """
    N, k, beta = check_int("N", N, low=1), check_int("k", k, low=1), check_beta(beta)
    b = histogram_scale(epsilon, neighbours)
    if not histogram_error_bound_condition(N, k, beta):
        raise ValueError(f"k ({k}) must be <= (beta/2) e^(2N/3) for N ({N}) and beta ({beta!r}); "
                         "use histogram_error_bound_general")
    bound = float(np.sqrt(6.0 * N * np.log(2.0 * k / beta)) * b)
    return bound if n is None else bound / check_int("n", n, low=1)


def histogram_error_bound_general(N, k, beta, epsilon, *, n=None, neighbours: str = "add/remove") -> float:
    """IDC-Lemma 6.1 (second bound, any ``k``): with prob. ``>= 1 - β`` all ``k`` errors are within

        ``ln(2N/β) · b · sqrt(2 N ln(4k/β))``  counts  (divided by ``n`` when given).

    (Condition on ``max_x |Z_x| <= b ln(2N/β)``, probability ``>= 1 - β/2``, then Hoeffding for the symmetric,
    bounded ``Z_x``, union bound over the ``k`` queries at ``β/2``.)
    """
    N, k, beta = check_int("N", N, low=1), check_int("k", k, low=1), check_beta(beta)
    b = histogram_scale(epsilon, neighbours)
    bound = float(np.log(2.0 * N / beta) * b * np.sqrt(2.0 * N * np.log(4.0 * k / beta)))
    return bound if n is None else bound / check_int("n", n, low=1)
