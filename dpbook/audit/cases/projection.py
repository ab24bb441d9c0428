"""Audit cases: projection mechanism (chapter 13)."""
from __future__ import annotations

import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import ONE_COUNT, X, X_SWAP, first_sample

__all__: list[str] = []    # factories register themselves; nothing to import


_M_PROJ = 100
_COPIES = np.tile(ONE_COUNT, (_M_PROJ, 1))          # 100 copies of one counting query: K_Q is the segment [0, 1]·1
_PAIR_PROJ = ("replace-one: x=(1,0) vs x'=(0,1), n = 1, 100 copies of one counting query (Δ2 = 10); "
              "the projection clips the mean answer to [0, 1]")


def _projection_events():
    """Events on the first projected answer ŷ_0 ∈ [0, 1]: it sits on an end of K_Q, or below the middle."""
    return {"ŷ_0 <= 0": lambda y: y <= 0.0, "ŷ_0 >= 1": lambda y: y >= 1.0, "ŷ_0 <= 0.5": lambda y: y <= 0.5}


@register("projection")
def _case_projection(epsilon=0.9, delta=1e-5):
    """PROJ-Thm3: Gaussian step on the exact replace-one Δ2, then the projection (post-processing)."""
    from ...projection import projection_mechanism
    epsilon = min(epsilon, 0.99)
    s = lambda x: first_sample(projection_mechanism, x, _COPIES, epsilon=epsilon, delta=delta)
    return AuditCase(f"projection mechanism (δ={delta:g})", "dpbook.projection.projection_mechanism", epsilon,
                     delta, s(X), s(X_SWAP), _projection_events(), 8_000, _PAIR_PROJ, "mechanism")


@register("projection_single_query_sensitivity")
def _case_projection_broken(epsilon=0.9, delta=1e-5):
    """σ for one query on 100 copies: the clipped mean has σ/10 noise; ŷ_0 <= 0 has P 1/2 vs about 0.03%."""
    from ...broken.projection import projection_single_query_sensitivity
    epsilon = min(epsilon, 0.99)
    s = lambda x: first_sample(projection_single_query_sensitivity, x, _COPIES, epsilon=epsilon, delta=delta)
    return AuditCase("projection with the one-query σ", "dpbook.broken.projection.projection_single_query_sensitivity",
                     epsilon, delta, s(X), s(X_SWAP), _projection_events(), 4_000, _PAIR_PROJ, "control")
