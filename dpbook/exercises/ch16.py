"""Answers to chapter 16's exercises (smooth queries)."""
from __future__ import annotations

from ..theory import smooth as th
from ._registry import register


@register("16.1", hint="with x = 1, maximise 3 − x′ − 2x′² over x′ ∈ [−1, 1]", rtol=0.002)
def sensitivity_t3() -> float:
    """The exact sensitivity max |x − x′| + |T₂(x) − T₂(x′)| for d = 1, degree bound J = 3."""
    return float(th.exact_sensitivity_1d(3)[0])


@register("16.2", hint="J = ⌊n^{1/(2d+K)}⌋ gives J^d moments, all but the constant one noisy; the scale is "
                       "2·(number of noisy moments)/(nε)", rtol=0.005)
def moment_noise_scale() -> float:
    """The Laplace scale of each noisy moment for d = 3, K = 6, n = 10^6, ε = 1."""
    J = th.summary_degree(10 ** 6, 3, 6)
    return float(th.summary_noise_scale(10 ** 6, J, 3, 1.0))


@register("16.4", hint="b = 2(J − 1)/(nε) for d = 1; find the first m with 2m/(nε) > 0.3·b", rtol=0.01)
def summary_wins_from_m() -> float:
    """The smallest m from which the per-query Laplace scale 2m/(nε) exceeds b·‖c‖₂ = 0.3 b (d = 1, J = 14,
    n = 50,000, ε = 1)."""
    b = th.summary_noise_scale(50_000, 14, 1, 1.0)
    return float(next(m for m in range(1, 10_000) if 2 * m / 50_000 > b * 0.3))


@register("16.5", hint="the error exponent of Theorem 3.1 is −K/(2d + K)", rtol=0.005)
def exponent_d2_k8() -> float:
    """The accuracy exponent for d = 2, K = 8."""
    return float(th.accuracy_exponent(2, 8))
