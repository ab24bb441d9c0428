"""dpbook._smooth_grids: the grids and weights the smooth summaries and chapter 16's comparisons share."""
import numpy as np
import pytest

from dpbook._smooth_grids import hat_weights, legendre_grid, lobatto_coefficients, lobatto_grid


def test_hat_weights_are_a_distribution_exact_for_linear_functions():
    rng = np.random.default_rng(1)
    for d, G in ((1, 17), (2, 5)):
        P = rng.uniform(-1, 1, (50, d))
        axis = np.linspace(-1, 1, G)
        w = hat_weights(axis, P)
        assert w.sum() == pytest.approx(1.0) and np.all(w >= 0)
        lin = np.stack([m.ravel() for m in np.meshgrid(*([axis] * d), indexing="ij")], axis=1).sum(axis=1)
        assert lin @ w == pytest.approx(P.sum(axis=1).mean())         # multilinear: exact for linear functions
        quad = np.stack([m.ravel() for m in np.meshgrid(*([axis] * d), indexing="ij")], axis=1)[:, 0] ** 2
        assert abs(quad @ w - (P[:, 0] ** 2).mean()) > 1e-6          # not exact beyond linear: the check can fail


def test_lobatto_coefficients_reproduce_a_polynomial_and_legendre_integrates():
    M, J = 16, 6
    x = lobatto_grid(M, 1)[:, 0]
    assert not lobatto_grid(M, 1).flags.writeable                     # cached and shared: read-only
    values = 3 * x ** 3 - x + 0.5                                    # T3 = 4x^3 - 3x: 3x^3 = 3/4 T3 + 9/4 T1
    c = lobatto_coefficients(values, J)
    assert c == pytest.approx([0.5, 9 / 4 - 1, 0.0, 3 / 4, 0.0, 0.0], abs=1e-13)
    P, W = legendre_grid(8, 2)
    assert W.sum() == pytest.approx(4.0)                             # the area of [-1, 1]^2
    assert (P[:, 0] ** 2 * P[:, 1] ** 4) @ W == pytest.approx((2 / 3) * (2 / 5))
