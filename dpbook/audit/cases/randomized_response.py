"""Audit cases: randomized response (chapter 02)."""
from __future__ import annotations

import math
import numpy as np

from ..catalogue import AuditCase, register
from ..pairs import ONE_COUNT, first_sample

__all__: list[str] = []    # factories register themselves; nothing to import


_PAIR_BIT = "one person: private bit 0 vs 1"
_PAIR_RR_CELL = "x=(1,0) vs x'=(0,1) over {0,1}: one person's private bit 0 vs 1"


def _rr_events():
    return {"reports 1": lambda y: y > 0.5}


def _rr_loss(epsilon):
    return epsilon


@register("randomized_response")
def _case_rr(epsilon=1.0):
    """LEC3-3.4: P[report 1] = 1-p vs p with p = e^ε/(1+e^ε): ratio exactly e^ε."""
    from ...randomized_response import randomized_response
    s = lambda b: (lambda t, rng: randomized_response(np.array([b]), epsilon=epsilon, trials=t,
                                                       rng=rng).reports[:, 0].astype(np.float64))
    return AuditCase("randomized response", "dpbook.randomized_response.randomized_response", epsilon, 0.0,
                     s(0), s(1), _rr_events(), 1_000_000, _PAIR_BIT, "mechanism", epsilon)


@register("rr_linear_queries")
def _case_rr_linear(epsilon=1.0):
    from ...randomized_response import rr_linear_queries
    s = lambda b: first_sample(rr_linear_queries, np.array([b]), np.array([[1.0]]), epsilon=epsilon)
    return AuditCase("randomized response, linear queries", "dpbook.randomized_response.rr_linear_queries",
                     epsilon, 0.0, s(0), s(1), _rr_events(), 1_000_000, _PAIR_BIT, "mechanism", epsilon)


@register("rr_histogram")
def _case_rr_histogram(epsilon=1.0):
    from ...randomized_response import rr_histogram
    s = lambda x: (lambda t, rng: rr_histogram(x, epsilon=epsilon, bit=0, trials=t, rng=rng).counts[:, 1])
    return AuditCase("randomized response histogram", "dpbook.randomized_response.rr_histogram", epsilon, 0.0,
                     s(np.array([1, 0])), s(np.array([0, 1])), _rr_events(), 1_000_000, _PAIR_RR_CELL,
                     "mechanism", epsilon)


@register("rr_mechanism")
def _case_rr_mechanism(epsilon=1.0):
    from ...randomized_response import rr_mechanism
    s = lambda x: first_sample(rr_mechanism, x, ONE_COUNT, epsilon=epsilon, bit=0)
    return AuditCase("randomized response mechanism (workload)", "dpbook.randomized_response.rr_mechanism",
                     epsilon, 0.0, s(np.array([1, 0])), s(np.array([0, 1])), _rr_events(), 1_000_000,
                     _PAIR_RR_CELL, "mechanism", epsilon)


@register("rr_wrong_p")
def _case_rr_wrong_p(epsilon=1.0):
    """p = 1 - e^{-ε}/2: odds 2e^ε - 1, loss ln(2e^ε - 1) (1.49 at ε = 1)."""
    from ...broken.randomized_response import randomized_response_wrong_p
    s = lambda b: (lambda t, rng: randomized_response_wrong_p(np.array([b]), epsilon=epsilon, trials=t,
                                                               rng=rng).reports[:, 0].astype(np.float64))
    return AuditCase("randomized response with the wrong p", "dpbook.broken.randomized_response.randomized_response_wrong_p",
                     epsilon, 0.0, s(0), s(1), _rr_events(), 200_000, _PAIR_BIT, "control",
                     math.log(2 * math.exp(epsilon) - 1))
