"""dpbook.contract: the checks every mechanism starts with (mechanism_prologue) and the declared valid calls the
sweeps of tests/ run (example / EXAMPLES)."""
import math

import numpy as np
import pytest

from dpbook.contract import EXAMPLES, N_RULES, NO_SAMPLER, Prologue, example, mechanism_prologue
from dpbook.noise import laplace_noise


def test_prologue_returns_the_checked_values_in_order():
    p = mechanism_prologue(epsilon=0.5, rng=3, per_release=(4,))
    assert isinstance(p, Prologue)
    assert (p.epsilon, p.delta, p.noise, p.n, p.neighbours, p.trials, p.shape, p.runs) == \
        (0.5, 0.0, None, None, "add/remove", None, (4,), 1)
    assert isinstance(p.rng, np.random.Generator)
    assert p.rng.integers(1 << 30) == np.random.default_rng(3).integers(1 << 30)      # the caller's seed, unchanged


def test_prologue_batch_shape_and_sampler():
    p = mechanism_prologue(epsilon=1.0, trials=5, per_release=(2, 3), sampler=laplace_noise)
    assert p.shape == (5, 2, 3) and p.runs == 5 and p.noise is not None
    assert mechanism_prologue(epsilon=1.0, sampler=NO_SAMPLER).noise is None


@pytest.mark.parametrize("rule", N_RULES)
def test_prologue_public_n_rules(rule):
    x = np.array([3.0, 4.0])
    if rule is None:
        assert mechanism_prologue(epsilon=1.0, n=7, n_rule=rule).n == 7
    elif rule == "public":
        assert mechanism_prologue(epsilon=1.0, x=x, n=7, n_rule=rule).n == 7
        with pytest.raises(ValueError, match="n"):                          # add/remove: n must be given
            mechanism_prologue(epsilon=1.0, x=x, n_rule=rule)
        assert mechanism_prologue(epsilon=1.0, x=x, n_rule=rule, neighbours="replace-one").n == 7
    else:
        with pytest.raises(ValueError, match="n"):
            mechanism_prologue(epsilon=1.0, x=x, n_rule=rule, neighbours="replace-one")


def test_prologue_names_the_callers_parameter():
    with pytest.raises(ValueError, match=r"epsilon \(-1"):
        mechanism_prologue(epsilon=-1.0)
    with pytest.raises(ValueError, match="epsilon"):
        mechanism_prologue(epsilon=2.0, epsilon_high=1.0)
    with pytest.raises(ValueError, match="delta"):
        mechanism_prologue(epsilon=1.0, delta=0.0, positive_delta=True)
    with pytest.raises(ValueError, match="delta"):
        mechanism_prologue(epsilon=1.0, delta=math.nan)
    with pytest.raises(ValueError, match="neighbours"):
        mechanism_prologue(epsilon=1.0, neighbours="swap")
    with pytest.raises(ValueError, match="n_rule"):
        mechanism_prologue(epsilon=1.0, n_rule="sometimes")
    with pytest.raises(ValueError, match="trials"):
        mechanism_prologue(epsilon=1.0, trials=0)
    with pytest.raises(TypeError):
        mechanism_prologue(epsilon=1.0, sampler=None)
    with pytest.raises((TypeError, ValueError), match="rng"):
        mechanism_prologue(epsilon=1.0, rng="seed")


def test_example_declares_calls_and_refuses_what_is_not_a_call():
    def mechanism(*, epsilon):
        return epsilon
    try:
        example(mechanism, lambda: dict(epsilon=1.0))
        example(mechanism, lambda: dict(epsilon=2.0))
        assert [call()["epsilon"] for call in EXAMPLES[mechanism]] == [1.0, 2.0]
    finally:
        EXAMPLES.pop(mechanism, None)
    with pytest.raises(TypeError, match="mechanism"):
        example("not a function", lambda: {})
    with pytest.raises(TypeError, match="calls"):
        example(mechanism)
    with pytest.raises(TypeError, match="calls"):
        example(mechanism, dict(epsilon=1.0))
    assert mechanism not in EXAMPLES
