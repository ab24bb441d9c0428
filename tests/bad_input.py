"""Bad-input rows shared by the mechanisms' own tests: ``(kwargs, exception, name the message must contain)``.

Each mechanism test adds the rows of its own parameters and calls the mechanism with a valid call updated by
``kwargs``; the sweep over every public function is tests/test_api_coverage.py.
"""
import numpy as np

#: ε: zero, negative, NaN, infinite, and not a number at all.
BAD_EPSILON = [
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
    (dict(epsilon=np.nan), ValueError, "epsilon"),
    (dict(epsilon=np.inf), ValueError, "epsilon"),
    (dict(epsilon="1"), TypeError, "epsilon"),
]

#: the run parameters every sampling mechanism takes: ``trials`` (a positive int) and ``rng``.
BAD_TRIALS_AND_RNG = [
    (dict(epsilon=1.0, trials=0), ValueError, "trials"),
    (dict(epsilon=1.0, trials=2.5), TypeError, "trials"),
    (dict(epsilon=1.0, rng="seed"), TypeError, "rng"),
]
