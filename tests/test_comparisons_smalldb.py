"""dpbook.comparisons.smalldb: the laws chapter 08's widget draws — SmallDB's exact error law on the chapter's table
and the noisy histogram's quantile at ε = 1 (scaled by 1/ε) — exact where they say so, seeded, validating."""
import math

import numpy as np
import pytest

from dpbook.comparisons.smalldb import (ATTRIBUTES, CELLS, EPS_SWEEP, PROJECTIONS, histogram_quantile_at_unit_epsilon,
                                        smalldb_law)
from dpbook.data import cancer_projection
from dpbook.experiments import failure_rate
from dpbook.histogram import histogram_mechanism
from dpbook.queries import MarginalWorkload
from dpbook.smalldb import exact_error_distribution, multisets
from dpbook.stats import exact_quantile
from dpbook.theory.smalldb import range_size


def test_table_and_cells():
    assert ATTRIBUTES == PROJECTIONS[3] and cancer_projection(ATTRIBUTES).N == 8
    assert len(CELLS) == 6 + 12 + 8 and len(set(CELLS)) == len(CELLS)
    assert EPS_SWEEP.size == 12 and not EPS_SWEEP.flags.writeable


def test_smalldb_law_is_the_exact_law():
    """Against dpbook.smalldb's exact error distribution (computed independently): the same errors, a law that
    sums to 1 per ε and puts on each level the mass of its candidates, and the quantiles exact_quantile gives."""
    m, db_size, beta = 12, 4, 0.05
    err, levels, law, quant = smalldb_law(m, db_size, beta)
    small = cancer_projection(ATTRIBUTES)
    W = MarginalWorkload(3, CELLS[:m])
    ref_err, ref_p = exact_error_distribution(small.x, W, multisets(small.N, db_size), epsilon=1.0)
    assert err.size == range_size(small.N, db_size) and np.allclose(np.sort(err), np.sort(ref_err))
    assert np.array_equal(levels, np.unique(err)) and not err.flags.writeable
    p = law(1.0)
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-12)
    at_opt = ref_p[np.isclose(ref_err, levels[0])].sum()
    assert math.isclose(p[0], at_opt, rel_tol=1e-9)
    for e, q in zip(EPS_SWEEP, quant):
        _, pe = exact_error_distribution(small.x, W, multisets(small.N, db_size), epsilon=float(e))
        assert math.isclose(q, exact_quantile(ref_err, pe, 1 - beta), rel_tol=1e-9)
    assert smalldb_law(m, db_size, beta) is smalldb_law(m, db_size, beta)                  # cached
    assert quant[-1] <= quant[0]                                             # more ε, less error


def test_histogram_quantile_scales_like_one_over_epsilon():
    """The widget draws the histogram's quantile once at ε = 1 and divides by ε: check it against a direct draw
    at ε = 0.1 (another seed); the rate is ≈ β, consistent both ways at level 1e-6."""
    q1 = histogram_quantile_at_unit_epsilon(18, 0.05)
    small, W = cancer_projection(ATTRIBUTES), MarginalWorkload(3, CELLS[:18])
    err = np.abs(histogram_mechanism(small.x, W, epsilon=0.1, n=small.n, trials=20_000, rng=11).answers
                 - W.answers(small.x)).max(axis=1)
    rate = failure_rate(err, q1 / 0.1)
    assert rate.consistent_with(0.05) and rate.upper >= 0.05 and rate.lower <= 0.05
    # seeded: the same seed, or a Generator seeded alike, gives the same value; another seed a different one
    assert histogram_quantile_at_unit_epsilon(18, 0.05, rng=np.random.default_rng(2026)) == q1
    assert histogram_quantile_at_unit_epsilon(18, 0.05, rng=7) != q1


@pytest.mark.parametrize("call, exc, name", [
    (lambda: smalldb_law(0, 4, 0.05), ValueError, "m"),
    (lambda: smalldb_law(27, 4, 0.05), ValueError, "m"),
    (lambda: smalldb_law(12, 0, 0.05), ValueError, "db_size"),
    (lambda: smalldb_law(12, 2.5, 0.05), TypeError, "db_size"),
    (lambda: smalldb_law(12, 4, 1.5), ValueError, "beta"),
    (lambda: smalldb_law(12, 10 ** 6, 0.05), ValueError, "db_size"),
    (lambda: smalldb_law(12, 4, 0.05)[2](-1.0), ValueError, "epsilon"),
    (lambda: histogram_quantile_at_unit_epsilon(18, math.nan), ValueError, "beta"),
    (lambda: histogram_quantile_at_unit_epsilon(18, 0.05, trials=0), ValueError, "trials"),
    (lambda: histogram_quantile_at_unit_epsilon(18, 0.05, rng=-1), ValueError, "rng"),
    (lambda: histogram_quantile_at_unit_epsilon(18, 0.05, rng="seed"), TypeError, "rng"),
])
def test_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
