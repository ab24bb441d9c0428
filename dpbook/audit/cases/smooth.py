"""Audit cases: smooth queries (chapter 16)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register

__all__: list[str] = []    # factories register themselves; nothing to import


#
# Rows of [-1,1] (d = 1), n = 1, replace-one.  The summary's moments are T_j(x), j < J (J = degree_bound, the
# summary's degree bound); the constant moment is published exactly.  Tight pair for the corrected scale: J = 2,
# x = 1 vs x' = -1 (the one noisy moment moves by 2 = its sensitivity).  Erratum SMOOTH-E1's witness: J = 10,
# x = 1 vs x' = cos(0.4734), which moves the moments by 11.58 in L1; on S = {o_j >= 1 for j in I}, I = {2, ..., 9}
# (each released moment o_j on the far side of T_j(1) = 1), the likelihood ratio is exactly
# exp(sum_{j in I} |T_j(1) - T_j(x')| / b).  The sampler returns, chunk by chunk, only min_{j in I}(o_j - 1)
# (post-processing, so the audit stays valid and memory stays small).

_SMOOTH_THETA = 0.47342966066974546     # argmax of sum_{m<10} |1 - cos(m θ)|: dpbook.theory.smooth.exact_sensitivity_1d(10)
_PAIR_SMOOTH_TIGHT = "x = 1 vs x' = -1 in [-1,1], n = 1, J = 2: the noisy moment T_1 moves by 2 = its sensitivity"
_PAIR_SMOOTH_E1 = "x = 1 vs x' = cos(0.4734) in [-1,1], n = 1, J = 10 (SMOOTH-E1's witness), moments j = 2..9"


def _smooth_min_sampler(fn, x, epsilon, degree_bound, audited, chunk=500_000):
    def sample(trials, rng):
        out = np.empty(trials)
        for start in range(0, trials, chunk):
            size = min(chunk, trials - start)
            moments = fn(np.array([x]), epsilon=epsilon, K=1, degree_bound=degree_bound, trials=size, rng=rng).moments
            low = out[start:start + size]
            low[:] = moments[:, audited[0]]
            for j in audited[1:]:               # column by column: min_j(o_j) - 1 = min_j(o_j - 1) exactly
                np.minimum(low, moments[:, j], out=low)
            low -= 1.0
        return out
    return sample


def _smooth_case(name, fn, epsilon, degree_bound, x_prime, audited, trials, pair, kind, true_epsilon, min_trials=1):
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0,
                     _smooth_min_sampler(fn, 1.0, epsilon, degree_bound, audited),
                     _smooth_min_sampler(fn, x_prime, epsilon, degree_bound, audited),
                     {"o_j >= T_j(1) for every j in I": lambda y: y >= 0}, trials, pair, kind, true_epsilon,
                     min_trials)


@register("smooth_summary")
def _case_smooth_summary(epsilon=1.0):
    """SMOOTH-Alg1 (corrected scale): J = 2, b = 2/ε, moments 1 vs -1, S = {o_1 >= 1} (I = {1}): ratio exactly e^ε."""
    from ...smooth import smooth_summary
    return _smooth_case("smooth summary (corrected scale), J = 2", smooth_summary, epsilon, 2, -1.0, [1],
                        1_000_000, _PAIR_SMOOTH_TIGHT, "mechanism", epsilon)


@register("smooth_summary_witness")
def _case_smooth_summary_witness(epsilon=2.0):
    """The corrected scale on SMOOTH-E1's witness: b = 18/ε, true loss on S = 11.47 ε/18 = 0.64 ε <= ε."""
    from ...smooth import smooth_summary
    return _smooth_case("smooth summary (corrected scale), SMOOTH-E1 witness", smooth_summary, epsilon, 10,
                        math.cos(_SMOOTH_THETA), list(range(2, 10)), 1_000_000, _PAIR_SMOOTH_E1, "mechanism", None)


@register("smooth_summary_paper_scale")
def _case_smooth_paper_scale(epsilon=2.0):
    """SMOOTH-E1: the paper's b = J/ε = 10/ε; on S the loss is 11.47 ε/10 = 1.147 ε (1.158 ε over all moments)."""
    from ...broken.smooth import smooth_summary_paper_scale
    return _smooth_case("smooth summary, paper's scale J^d/(nε) (SMOOTH-E1)", smooth_summary_paper_scale, epsilon,
                        10, math.cos(_SMOOTH_THETA), list(range(2, 10)), 4_000_000, _PAIR_SMOOTH_E1, "control",
                        1.1583 * epsilon, min_trials=4_000_000)    # the excess is 16%: fewer samples cannot show it


def _per_query_case(name, fn, epsilon, trials, kind, true_epsilon):
    queries = [lambda X: X[:, 0], lambda X: X[:, 0]]           # the same query twice: m = 2, B = 1
    s = lambda x: (lambda t, rng: fn(np.array([[x]]), queries, epsilon=epsilon, trials=t, rng=rng).answers)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(1.0), s(-1.0),
                     {"both answers >= 1": lambda y: np.all(y >= 1.0, axis=1)}, trials,
                     "x = 1 vs x' = -1, n = 1, two copies of f(x) = x (B = 1)", kind, true_epsilon)


@register("per_query_laplace")
def _case_per_query_laplace(epsilon=1.0):
    """Each answer moves by 2 under noise Lap(4/ε): ε/2 each, ratio e^ε on S exactly."""
    from ...smooth import per_query_laplace
    return _per_query_case("per-query Laplace on smooth queries, m = 2", per_query_laplace, epsilon, 1_000_000,
                           "mechanism", epsilon)


@register("per_query_laplace_no_split")
def _case_per_query_no_split(epsilon=1.0):
    from ...broken.smooth import per_query_laplace_no_split
    return _per_query_case("per-query Laplace without the 1/m split", per_query_laplace_no_split, epsilon, 200_000,
                           "control", 2 * epsilon)


_PAIR_GRID = "x = {x} vs x' = {xp}, n = 1, replace-one; grid = {grid} public nodes"


def _grid_case(name, fn, epsilon, queries, grid, x, x_prime, threshold, trials, kind, true_epsilon):
    s = lambda v: (lambda t, rng: fn(np.array([[v]]), queries, epsilon=epsilon, grid=grid, trials=t, rng=rng).answers)
    return AuditCase(name, f"{fn.__module__}.{fn.__name__}", epsilon, 0.0, s(x), s(x_prime),
                     {f"every answer >= {threshold:g}": lambda y: np.all(y >= threshold, axis=1)}, trials,
                     _PAIR_GRID.format(x=x, xp=x_prime, grid=grid), kind, true_epsilon)


@register("per_query_laplace_exact_sensitivity")
def _case_per_query_laplace_grid(epsilon=1.0):
    """grid = 2: two copies of f(x) = x/2 are their own interpolants; exact L1 sensitivity 2 (not the class bound
    4), noise Lap(2/ε); x = 1 vs x' = -1 moves each answer by 1: ratio e^ε on S exactly."""
    from ...smooth import per_query_laplace
    half = lambda X: X[:, 0] / 2
    return _grid_case("per-query Laplace at the exact sensitivity (grid), m = 2", per_query_laplace, epsilon,
                      [half, half], 2, 1.0, -1.0, 0.5, 1_000_000, "mechanism", epsilon)


@register("per_query_laplace_grid_raw_values")
def _case_per_query_laplace_grid_raw(epsilon=1.0):
    """Noise for the interpolant's sensitivity (1, on the nodes -1, 0, 1), raw values released: x/2 + sin(πx)/2
    moves by 2·0.776 = 1.55 between x = 0.6 and x' = -0.6 (near its extremes): loss about 1.5 ε on S."""
    from ...broken.smooth import per_query_laplace_grid_raw_values
    f = lambda X: X[:, 0] / 2 + np.sin(np.pi * X[:, 0]) / 2
    top = 0.3 + np.sin(0.6 * np.pi) / 2
    return _grid_case("per-query Laplace, node sensitivity but raw values", per_query_laplace_grid_raw_values,
                      epsilon, [f], 3, 0.6, -0.6, top, 200_000, "control", 2 * top * epsilon)
