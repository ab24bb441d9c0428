"""dpbook._estimator_numba: the optional compiled form of adaptive_marginals' estimator (the ``speed`` extra) gives
the numpy path's bytes, piece by piece on seeded random cases and without numba (the
numpy path runs); whole runs and imports: tests/test_adaptive_compiled.py."""
import numpy as np
import pytest
from python_subprocess import run_python

from dpbook import _mw_kernels as K, mwem as M


def _numba_reason() -> str:
    return "numba is not installed (the optional `speed` extra): the numpy path is the one in use"


def _kernels():
    pytest.importorskip("numba", reason=_numba_reason())
    from dpbook import _estimator_numba as E
    assert E.AVAILABLE
    return E


def _same(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def test_constants_are_the_numpy_paths():
    E = _kernels()
    assert E._BISECTIONS == M._PRIOR_BISECTIONS and E._FLOOR == M._PRIOR_FLOOR


def _prior_cases(rng):
    """Deviations and variances as the shrinkage sees them: noise of the variances' size plus a signal of varied
    size (a root inside, at 0, at the upper end), one-element orders, equal entries, zeros."""
    for size in (1, 2, 3, 7, 8, 9, 16, 17, 120, 128, 129, 300):
        for signal in (0.0, 0.3, 3.0, 30.0, 3e3):
            variance = rng.random(size) * 50 + 0.01
            estimate = rng.standard_normal(size) * np.sqrt(variance) + signal * rng.standard_normal(size)
            yield estimate, variance, 1797.0 ** 2 / 3
    yield np.zeros(4), np.ones(4), 100.0                       # score <= 0 at 0
    yield np.full(5, 1e6), np.ones(5), 10.0                    # score >= 0 at the upper end
    yield np.array([3.0]), np.array([1.0]), 1e6                # one element: the root is 8
    yield np.full(16, 2.0), np.full(16, 0.5), 1e3              # equal entries


def test_prior_variance_is_the_bisections_result():
    """prior_variance against dpbook.mwem._prior_variance (the numpy batches, with and without a first guess) and
    its reference (one score at a time)."""
    E = _kernels()
    rng = np.random.default_rng(5)
    for estimate, variance, high in _prior_cases(rng):
        got = E.prior_variance(estimate, variance, high)
        assert _same(got, M._prior_variance_reference(estimate, variance, high))
        assert _same(got, M._prior_variance(estimate, variance, high))
        assert _same(got, M._prior_variance(estimate, variance, high, guess=high / 7))


def _plan(d, k):
    from dpbook.queries import k_way_marginals
    return M._plan(k_way_marginals(d, k))


def test_subset_masks_are_the_plans():
    """The kernel lists each set's subsets from its bit mask as _AdaptivePlan.masks does (every candidate, the
    full table included)."""
    E = _kernels()
    for d, k in ((1, 1), (5, 3), (16, 2)):
        plan = _plan(d, k)
        for S in plan.candidates:
            want = plan.masks(S)
            out = np.empty(want.size, dtype=np.int64)
            assert E.subset_masks(int(want[-1]), out, 0) == want.size
            assert np.array_equal(out, want), S


def _measurements(rng, plan, count, n):
    """``count`` measurements of random candidates (repeats allowed) of one run's kinds: the 1-way marginals
    first or not, noise from tiny to larger than the counts (clipped and all-negative tables), zero values,
    scales that differ per measurement."""
    out = []
    if rng.random() < 0.7:
        b = float(rng.choice([0.5, 7.0, 60.0]))
        out = [((a,), b, n / 2 + rng.laplace(0, b, 2)) for a in range(plan.d)]
    while len(out) < count:
        S = plan.candidates[int(rng.integers(len(plan.candidates)))]
        b = float(rng.choice([1e-3, 0.8, 5.0, 40.0, 3e3]))
        y = rng.random(1 << len(S)) * (2 * n / (1 << len(S))) + rng.laplace(0, b, 1 << len(S))
        if rng.random() < 0.1:
            y = -np.abs(y)                                   # every cell negative: the target is uniform
        if rng.random() < 0.1:
            y[: max(1, y.size // 2)] = 0.0
        out.append((S, b, y))
    return out


def _digest(targets) -> list:
    return [(S, t.tobytes()) for S, t in targets.items()]


@pytest.mark.parametrize("d,k,runs", [(3, 2, 12), (6, 3, 12), (9, 2, 8), (16, 2, 5), (14, 3, 2)])
def test_targets_are_the_numpy_paths_round_by_round(monkeypatch, d, k, runs):
    """_fit_targets through the kernel and through numpy, round after round with each side's cache (the compiled
    state grown in place), on random measurement sequences (small and d >= 14 problems, 2- and 3-way, the full
    table among the candidates): the same maximal sets in the same order, the same bytes; and afresh (no cache),
    and after the sequence changes (the state rebuilt)."""
    E = _kernels()
    rng = np.random.default_rng(100 * d + k)
    plan = _plan(d, k)
    for run in range(runs):
        n = int(rng.choice([1, 37, 1797, 100_000]))
        ms = _measurements(rng, plan, int(rng.integers(1, 3 * d)), n)
        compiled_cache, numpy_cache = {}, {}
        for t in range(1, len(ms) + 1):
            got = M._fit_targets_compiled(E.fit_targets, plan, ms[:t], n, compiled_cache)
            monkeypatch.setattr(K, "USE_COMPILED", False)
            want = M._fit_targets(plan, ms[:t], n, numpy_cache)
            monkeypatch.setattr(K, "USE_COMPILED", True)
            assert _digest(got) == _digest(want), (run, t)
        assert _digest(M._fit_targets_compiled(E.fit_targets, plan, ms, n, {})) == _digest(want)
        other = _measurements(rng, plan, 3, n)               # a different sequence: the state is rebuilt
        monkeypatch.setattr(K, "USE_COMPILED", False)
        want = M._fit_targets(plan, other, n, numpy_cache)
        monkeypatch.setattr(K, "USE_COMPILED", True)
        assert _digest(M._fit_targets_compiled(E.fit_targets, plan, other, n, compiled_cache)) == _digest(want)


def test_the_full_table_measured(monkeypatch):
    """A measurement of the full table at d = 14 (2^14 masks, every order, sums of more than 128 terms)."""
    E = _kernels()
    rng = np.random.default_rng(8)
    plan = _plan(14, 2)
    n = 5000
    ms = _measurements(rng, plan, 20, n)
    full = tuple(range(14))
    ms.insert(17, (full, 30.0, rng.random(1 << 14) * 0.6 + rng.laplace(0, 30.0, 1 << 14)))
    compiled_cache, numpy_cache = {}, {}
    for t in (16, 17, 18, 21):
        got = M._fit_targets_compiled(E.fit_targets, plan, ms[:t], n, compiled_cache)
        monkeypatch.setattr(K, "USE_COMPILED", False)
        want = M._fit_targets(plan, ms[:t], n, numpy_cache)
        monkeypatch.setattr(K, "USE_COMPILED", True)
        assert _digest(got) == _digest(want), t
        assert (full in got) == (t >= 18)


def test_shrink_is_the_numpy_paths():
    """merge_masks, add_measurements and shrink against _parity_estimates and _shrink on their own (the parity
    state, each order's prior variance, the shrunk sums)."""
    E = _kernels()
    rng = np.random.default_rng(9)
    for d, k in ((4, 2), (7, 3), (16, 2)):
        plan = _plan(d, k)
        for run in range(6):
            n = int(rng.choice([50, 1797]))
            ms = _measurements(rng, plan, int(rng.integers(1, 2 * d)), n)
            unique, estimate, variance = M._parity_estimates(plan, ms)
            guesses = {}
            want = M._shrink(unique, estimate, variance, n, d, guesses)
            sets = np.array([plan.masks(S)[-1] for S, _, _ in ms], dtype=np.int64)
            masks, starts = E._all_subset_masks(sets)
            u, p, w = E.merge_masks(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), masks)
            E.add_measurements(u, p, w, masks, starts, np.concatenate([y for _, _, y in ms]),
                               np.array([b for _, b, _ in ms]))
            assert np.array_equal(u, unique) and _same(w / p, estimate) and _same(1.0 / p, variance)
            f, tau2s = E.shrink(u, p, w, n, d, float(n) ** 2 / M._PRIOR_SHARE)
            assert _same(f, want)
            assert {j: tau2s[j] for j in range(d + 1) if not np.isnan(tau2s[j])} == guesses


def test_without_numba_the_numpy_path_runs():
    """numba absent (its import fails): the module imports, the kernel is None, a d = 16 fit runs on numpy."""
    code = ("import sys; sys.modules['numba'] = None\n"
            "import numpy as np\n"
            "from dpbook import mwem as M, _estimator_numba as E\n"
            "from dpbook.queries import k_way_marginals\n"
            "plan = M._plan(k_way_marginals(16, 2))\n"
            "ms = [((a,), 3.0, np.array([600.0 + a, 500.0])) for a in range(16)]\n"
            "t = M._fit_targets(plan, ms, 1100)\n"
            "print(E.AVAILABLE, M._estimator_kernel(plan), len(t))\n")
    assert run_python(code).split() == ["False", "None", "16"]
