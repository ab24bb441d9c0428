"""dpbook.geometry: the support function of K_Q (PROJ-Def6) without an N-vector."""
import numpy as np
import pytest

from dpbook.sparse_project import SparseQueryWorkload


def test_support_function_over_two_to_the_32_uses_the_sparse_adjoint():
    """PROJ-Def6 without an N-vector: max over the touched elements, and 0 for the untouched ones (K_Q holds 0)."""
    from dpbook.geometry import support_function
    N = 1 << 32
    W = SparseQueryWorkload(N, [[(5, 1.0), (9, 0.5)], [(9, 1.0)]])
    assert support_function(W, np.array([1.0, 2.0])) == pytest.approx(2.5)          # element 9: 0.5 + 2
    assert support_function(W, np.array([-1.0, -1.0])) == 0.0                       # an untouched record
    np.testing.assert_allclose(support_function(W, np.array([[1.0, 2.0], [-3.0, 1.0]])), [2.5, 0.0])


def test_a_width_interval_is_the_student_t_interval():
    """The interval's half-width is t_{k-1, (1+level)/2} · s / √k with scipy.stats.t's quantile, to the last bit
    (computed through scipy.special.stdtrit, which that quantile evaluates, so scipy.stats is not imported)."""
    from scipy.stats import t as student_t
    from dpbook.geometry import gaussian_width, support_function
    from dpbook.queries import k_way_marginals
    for samples, level in [(2, 0.95), (7, 0.5), (40, 0.99), (400, 0.95)]:
        est = gaussian_width(k_way_marginals(3, 1), samples=samples, level=level, rng=3)
        h = support_function(k_way_marginals(3, 1), np.random.default_rng(3).standard_normal((samples, 6)))
        half = float(student_t.ppf(0.5 + level / 2, samples - 1) * h.std(ddof=1) / np.sqrt(samples))
        assert est.estimate == float(h.mean())
        assert est.low == float(h.mean()) - half and est.high == float(h.mean()) + half
