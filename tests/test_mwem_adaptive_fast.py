"""adaptive_marginals (dpbook.mwem): its fast pieces against short references — the same bytes wherever the
arithmetic is the same (the batched bisection, the running least squares, the batched transforms and prior means,
the selection's draw, the factored table), and the candidates' marginals through three passes equal to the
transform's up to rounding (exactly on integer counts)."""
import itertools

import numpy as np
import pytest

from dpbook import mwem
from dpbook.exponential import exponential_mechanism
from dpbook.mwem import (_AdaptivePlan, _FactoredModel, _hadamard, _hadamard_rows, _independence_means,
                         _parity_estimates, _plan, _popcount, _prior_variance, _prior_variance_reference,
                         _select_index, adaptive_marginals)
from dpbook.queries import k_way_marginals


def _cases(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m = int(rng.integers(1, 300))
        variance = rng.random(m) * 10.0 ** rng.uniform(-3, 6)
        tau2 = 10.0 ** rng.uniform(-4, 6)
        estimate = rng.normal(0.0, np.sqrt(tau2 + variance)) * (rng.random() < 0.9) + rng.normal(0.0, 1.0, m)
        yield estimate, variance, 10.0 ** rng.uniform(0, 7)


def test_batched_bisection_is_the_bisection_to_the_bit():
    """1,500 random score equations (roots from 1e-4 to 1e6, ranges from 1 to 1e7, both edges included): the
    batched bisection returns the one-at-a-time bisection's float, bit for bit."""
    edges = 0
    for estimate, variance, high in _cases(1500, 7):
        fast, slow = _prior_variance(estimate, variance, high), _prior_variance_reference(estimate, variance, high)
        assert type(fast) is float and fast == slow
        for guess in (slow, slow * (1 + 1e-9), 0.5 * high, -1.0, 2.0 * high):    # a first guess: cost only
            assert _prior_variance(estimate, variance, high, guess=guess) == slow
        edges += fast in (0.0, float(high))
    assert 0 < edges < 1500                         # the edges and the interior are both exercised


def test_running_least_squares_equal_the_fresh_sums():
    """Measurements added one at a time to a cache give the same bytes as every measurement summed afresh, at
    every step (new masks merged in, repeated sets averaged); a different list resets the cache."""
    d = 6
    plan = _AdaptivePlan(k_way_marginals(d, 3))
    rng = np.random.default_rng(3)
    sets = [(a,) for a in range(d)] + [(0, 1), (2, 4), (0, 1), (1, 2, 5), (3,), (0, 4, 5)]
    measurements, cache = [], {}
    for S in sets:
        measurements.append((S, float(rng.uniform(0.5, 3.0)), rng.normal(100.0, 30.0, 1 << len(S))))
        running = _parity_estimates(plan, measurements, cache)
        fresh = _parity_estimates(plan, measurements)
        for a, b in zip(running, fresh):
            assert np.array_equal(a, b)
    other = [(S, 1.0, rng.normal(50.0, 5.0, 1 << len(S))) for S in sets[:3]]
    for a, b in zip(_parity_estimates(plan, other, cache), _parity_estimates(plan, other)):
        assert np.array_equal(a, b)


def test_batched_transforms_and_prior_means_are_the_loops():
    rng = np.random.default_rng(5)
    for s in range(4):
        y = rng.normal(size=(7, 1 << s))
        rows = _hadamard_rows(y, s)
        for r in range(7):
            assert np.array_equal(rows[r], _hadamard(y[r], s))
    d, n = 7, 300
    unique = np.array(sorted({sum(1 << (d - 1 - a) for a in T) for k in range(4)
                              for T in itertools.combinations(range(d), k)}), dtype=np.int64)
    order = _popcount(unique)
    f_one = rng.uniform(-n, n, d)
    expected = np.zeros(unique.size)                 # the attribute-by-attribute product it replaces
    for i, mask in enumerate(unique.tolist()):
        if order[i] >= 2:
            prod = float(n)
            for a in range(d):
                prod = prod * (f_one[a] / n if mask >> (d - 1 - a) & 1 else 1.0)
            expected[i] = prod
    assert np.array_equal(_independence_means(unique, order, f_one, n), expected)


@pytest.mark.parametrize("d", [4, 5, 9, 12, 16])
def test_block_counts_equal_the_transform(d):
    """The candidates' marginals through three passes: within 1e-15 of the superset-sum transform on a
    distribution, and the same integers on counts; not offered for 3-way candidates or past d = 16."""
    plan = _AdaptivePlan(k_way_marginals(d, 2))
    rng = np.random.default_rng(d)
    p = rng.dirichlet(np.full(1 << d, 0.3))
    np.testing.assert_allclose(plan.block_counts(p), plan.counts(p), rtol=0, atol=1e-15)
    x = rng.integers(0, 1000, 1 << d).astype(np.float64)
    assert np.array_equal(plan.block_counts(x), plan.cells.counts(x))
    assert _AdaptivePlan(k_way_marginals(6, 3)).block_counts(p[: 1 << 6]) is None
    assert _AdaptivePlan(k_way_marginals(17, 1)).block_counts(np.ones(1 << 17)) is None


def test_plan_is_built_once_per_workload():
    W = k_way_marginals(5, 2)
    assert _plan(W) is _plan(W)
    assert _plan(k_way_marginals(5, 2)) is not _plan(W)


def test_selection_draw_is_the_exponential_mechanism():
    rng = np.random.default_rng(2)
    for _ in range(50):
        scores = rng.normal(0.0, 50.0, int(rng.integers(1, 40)))
        eps, sens = float(rng.uniform(0.01, 2.0)), float(rng.choice([1.0, 2.0]))
        seed = int(rng.integers(1 << 30))
        assert _select_index(scores, eps, sens, np.random.default_rng(seed)) == exponential_mechanism(
            scores, epsilon=eps, sensitivity=sens, rng=np.random.default_rng(seed))


def _table_by_transposition(model):
    """The factored table joined one clique's new attributes at a time, then transposed (the construction the
    attribute-ordered one replaced)."""
    names = list(model.cliques[0])
    t = np.array(model.beta[0], dtype=np.float64)
    for i in model.order[1:]:
        C = model.cliques[i]
        f = model._conditional(i)
        new = [a for a in C if a not in names]
        perm = sorted(range(len(C)), key=lambda k: (C[k] in new, names.index(C[k]) if C[k] not in new else k))
        f = np.transpose(f, perm)
        shape = [1] * len(names) + [2] * len(new)
        for a in C:
            if a not in new:
                shape[names.index(a)] = 2
        t = t.reshape(t.shape + (1,) * len(new)) * f.reshape(shape)
        names += new
    return np.ascontiguousarray(np.transpose(t, np.argsort(names))).reshape(-1)


def test_factored_table_is_the_transposed_join(monkeypatch):
    monkeypatch.setattr(mwem, "_FACTORED_SHARE", 1)
    d = 9
    rng = np.random.default_rng(11)
    sets = [(0, 5), (5, 7), (2, 3), (3, 8), (1, 8), (4,), (6, 2), (0, 7)]
    model = _FactoredModel(d).prepared([tuple(sorted(S)) for S in sets])
    targets = {tuple(sorted(S)): rng.dirichlet(np.ones(1 << len(S))) for S in sets}
    model.fit(targets, tol=0.0, sweeps=3)
    assert np.array_equal(model.table(), _table_by_transposition(model))


def test_runs_are_seeded_on_the_fast_paths():
    """Digits-sized pair workloads take the three-pass marginals; the same seed gives the same bytes."""
    d = 10
    rng = np.random.default_rng(4)
    x = rng.multinomial(3000, rng.dirichlet(np.full(1 << d, 0.2)))
    W = k_way_marginals(d, 2)
    for delta in (0.0, 1e-6):
        a = adaptive_marginals(x, W, epsilon=1.0, n=3000, rng=9, delta=delta, route="adaptive")
        b = adaptive_marginals(x, k_way_marginals(d, 2), epsilon=1.0, n=3000, rng=9, delta=delta, route="adaptive")
        assert np.array_equal(a.answers, b.answers)
        assert a.trace["selected"] == b.trace["selected"]


def test_free_attributes_fitted_together_equal_the_sequential_sweeps(monkeypatch):
    """Attributes in no measured set but their own 1-way one are fitted in one step: the table equals the one
    fitted set by set to rounding (1e-15 of the total), over round sweeps and the converged fit alike; the
    attributes joined by a measured pair, or any measured full table, are left to the sequential sweeps."""
    d = 8
    plan = _AdaptivePlan(k_way_marginals(d, 2))
    rng = np.random.default_rng(6)
    measurements = [((a,), 0.05, rng.uniform(50.0, 150.0, 2)) for a in range(d)]
    measurements += [((1, 4), 0.05, rng.uniform(20.0, 80.0, 4)), ((4, 6), 0.05, rng.uniform(20.0, 80.0, 4))]
    n = 200.0
    free = mwem._free_attributes(plan, measurements, {(a,): None for a in range(d)})
    assert sorted(free) == [0, 2, 3, 5, 7]
    assert mwem._free_attributes(plan, measurements + [(tuple(range(d)), 1.0, np.ones(1 << d))],
                                 {(a,): None for a in range(d)}) == {}
    start = np.full(1 << d, 1.0 / (1 << d))
    together = mwem._fit(plan, start.copy(), measurements, n, tol=0.0, sweeps=3)
    together = mwem._fit(plan, together, measurements, n, tol=1e-9)
    monkeypatch.setattr(mwem, "_free_attributes", lambda *args: {})
    alone = mwem._fit(plan, start.copy(), measurements, n, tol=0.0, sweeps=3)
    alone = mwem._fit(plan, alone, measurements, n, tol=1e-9)
    np.testing.assert_allclose(together, alone, rtol=0, atol=1e-15)
    assert not np.array_equal(together, start)


def _parity_one_at_a_time(plan, measurements):
    """The running least squares one measurement at a time (each merged in and transformed alone): the
    reference of the batched merge and transforms."""
    unique, precision, weighted = np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    for S, b, y in measurements:
        mask = plan.masks(S)
        merged = np.union1d(unique, mask)
        grown_p, grown_w = np.zeros(merged.size), np.zeros(merged.size)
        old = np.searchsorted(merged, unique)
        grown_p[old], grown_w[old] = precision, weighted
        unique, precision, weighted = merged, grown_p, grown_w
        at = np.searchsorted(unique, mask)
        inv = 1.0 / ((1 << len(S)) * 2.0 * b * b)
        precision[at] += inv
        weighted[at] += inv * _hadamard(y, len(S))
    return unique, weighted / precision, 1.0 / precision


def test_batched_merges_and_transforms_are_one_measurement_at_a_time():
    """Measurements of mixed sizes added in batches (the opening's d at once, then a few at a time, repeats
    included) give the bytes of adding them one at a time."""
    d = 7
    plan = _AdaptivePlan(k_way_marginals(d, 3))
    rng = np.random.default_rng(11)
    sets = [(a,) for a in range(d)] + [(0, 1), (2, 4, 6), (0, 1), (3,), (1, 2), (0, 5, 6), (2, 4, 6), (4, 5)]
    measurements = [(S, float(rng.uniform(0.2, 4.0)), rng.normal(80.0, 25.0, 1 << len(S))) for S in sets]
    cache = {}
    for stop in (d, d + 3, d + 4, len(sets)):
        batched = _parity_estimates(plan, measurements[:stop], cache)
        for a, b in zip(batched, _parity_one_at_a_time(plan, measurements[:stop])):
            assert np.array_equal(a, b)


def test_grouped_targets_are_the_set_by_set_targets():
    """The fitting targets computed a size at once (and read back for the same measurements) are the bytes
    of clipping and normalising each maximal set's fitted table alone (one of them with negative fitted
    cells); also with the full table among the measurements."""
    d = 6
    plan = _AdaptivePlan(k_way_marginals(d, 2))
    rng = np.random.default_rng(12)
    n = 500.0
    measurements = [((a,), 0.5, rng.uniform(100.0, 400.0, 2)) for a in range(d)]
    measurements += [((0, 3), 40.0, rng.normal(0.0, 400.0, 4)), ((1, 2), 0.3, rng.uniform(50.0, 200.0, 4)),
                     ((2, 5), 0.3, np.array([-200.0, 150.0, 150.0, 400.0])), ((4, 5), 0.3, rng.uniform(50.0, 200.0, 4))]

    def expected(meas):
        out = {}
        for S, table in mwem._consistent_tables(plan, meas, n).items():
            t = np.maximum(table, 0.0)
            total = t.sum()
            t = t / total if total > 0 else np.full(t.size, 1.0 / t.size)
            out[S] = np.maximum(t, mwem._PRIOR_FLOOR)
        return out
    for meas in (measurements, measurements + [(tuple(range(d)), 2.0, rng.uniform(0.0, 20.0, 1 << d))]):
        cache = {}
        want = expected(meas)
        for _ in range(2):                            # afresh, then read back
            got = mwem._fit_targets(plan, meas, n, cache)
            assert list(got) == list(want)
            for S in want:
                assert np.array_equal(got[S], want[S])
        assert any(np.any(table < 0) for table in mwem._consistent_tables(plan, meas, n).values())
