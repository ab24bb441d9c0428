"""adaptive_marginals' factored models: the junction tree (dpbook.mwem._FactoredModel) and the product of
independent parts (dpbook.mwem._ComponentModel), each fitted against the short full-table reference (random
measured-set families, cyclic ones included) with its pair tables, smallest cell, marginals and table; the data's
exact pair counts, the public switch rules at their edges, and whole runs of both variants against the table
route."""
import itertools

import numpy as np
import pytest

import dpbook.mwem as mwem
from dpbook.mwem import (_AdaptivePlan, _ComponentModel, _FactoredModel, _chordal_cliques, _components_suit,
                         _factored_suits, _maximal_sets, _maximal_sets_afresh, _pair_counts, adaptive_marginals)
from dpbook.queries import k_way_marginals


def _reference_fit(d, p, targets, sweeps):
    """The proportional fit on the ``2^d`` table (``_fit``'s loop, written out): each set scales its cells to its
    target, then the table is normalised, ``sweeps`` times or until a sweep shrinks the largest miss by less
    than ``_STALL``."""
    cube, previous = p.reshape((2,) * d).copy(), np.inf
    for _ in range(sweeps):
        worst = 0.0
        for S, t in targets.items():
            m = cube.sum(axis=tuple(a for a in range(d) if a not in S)).reshape(-1)
            worst = max(worst, float(np.max(np.abs(m - t))))
            ratio = np.divide(t, m, out=np.zeros_like(t), where=m > 0)
            cube = cube * ratio.reshape([2 if a in S else 1 for a in range(d)])
        cube = cube / cube.sum()
        if worst > mwem._STALL * previous:
            break
        previous = worst
    return cube.reshape(-1)


def _marginal(p, d, S):
    return p.reshape((2,) * d).sum(axis=tuple(a for a in range(d) if a not in S)).reshape(-1)


def _targets(truth, d, sets):
    return {S: _marginal(truth, d, S) for S in sets}


CYCLES = {
    "triangle": [(0, 1), (1, 2), (0, 2)],
    "4-cycle": [(0, 1), (1, 2), (2, 3), (0, 3)],
    "5-cycle and a triangle": [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (5, 6), (6, 7), (5, 7)],
    "two 4-cycles sharing an edge, and a triple": [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4), (4, 5), (3, 5),
                                                   (1, 4, 6)],
}


def _families():
    """The named cyclic families, then a seeded sweep of random families of 1- to 3-attribute sets."""
    for name, sets in CYCLES.items():
        yield name, 8, sets
    rng = np.random.default_rng(0)
    for k in range(24):
        d = int(rng.integers(4, 9))
        sets = sorted({tuple(sorted(rng.choice(d, size=int(rng.integers(1, 4)), replace=False).tolist()))
                       for _ in range(int(rng.integers(2, 2 * d)))})
        yield f"random {k}", d, sets


@pytest.mark.parametrize("name, d, sets", list(_families()), ids=[f[0] for f in _families()])
def test_factored_fit_equals_the_table(monkeypatch, name, d, sets):
    """Fitted in two stages (half the sets, then all: the tree is rebuilt from its factors, warm) to consistent
    and to inconsistent targets, the factored model's table, pair tables, smallest cell and marginals equal the
    full-table reference's to 1e-12 relative (the tree kept at any size)."""
    monkeypatch.setattr(mwem, "_FACTORED_SHARE", 1)
    for model, ref in _staged_fits(_FactoredModel, d, sets, seed=len(sets) * 31 + d):
        _assert_pair_tables(model, ref, d)
        for S in sets:
            np.testing.assert_allclose(model.marginal(S), _marginal(ref, d, S), rtol=1e-12, atol=1e-15)


def _staged_fits(model_class, d, sets, seed):
    """For consistent and for inconsistent targets of a seeded truth: ``model_class(d)`` fitted in two stages (half
    the sets with 3 sweeps, then all with 4: parts or tree rebuilt warm) and the full-table reference fitted alike;
    each model's table and smallest cell are checked against the reference's to 1e-12 here."""
    rng = np.random.default_rng(seed)
    truth = rng.dirichlet(np.full(1 << d, 0.5))
    noisy = {S: t * rng.uniform(0.7, 1.3, t.size) for S, t in _targets(truth, d, sets).items()}
    for targets in (_targets(truth, d, sets), {S: t / t.sum() for S, t in noisy.items()}):
        half = dict(list(targets.items())[: max(1, len(sets) // 2)])
        ref = _reference_fit(d, np.full(1 << d, 1.0 / (1 << d)), half, 3)
        ref = _reference_fit(d, ref, targets, 4)
        model = model_class(d)
        for stage, sweeps in ((half, 3), (targets, 4)):
            model = model.prepared(list(stage))
            assert isinstance(model, model_class)
            model.fit(stage, tol=0.0, sweeps=sweeps)
        np.testing.assert_allclose(model.table(), ref, rtol=1e-12, atol=1e-15)
        assert model.min() == pytest.approx(ref.min(), rel=1e-12)
        yield model, ref


def _assert_pair_tables(model, ref, d):
    """The model's pair tables (both orientations) and their diagonals (the 1-way tables) equal the reference's."""
    T = model.pair_tables()
    for a, b in itertools.combinations(range(d), 2):
        np.testing.assert_allclose(T[a, :, b, :].reshape(-1), _marginal(ref, d, (a, b)), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(T[b, :, a, :].T.reshape(-1), _marginal(ref, d, (a, b)), rtol=1e-12, atol=1e-15)
    for a in range(d):
        np.testing.assert_allclose(np.diag(T[a, :, a, :]), _marginal(ref, d, (a,)), rtol=1e-12, atol=1e-15)

def _pair_families():
    """The named cycles of pairs, then a seeded sweep of random families of 1- and 2-attribute sets."""
    for name, sets in CYCLES.items():
        if all(len(S) <= 2 for S in sets):
            yield name, 8, sets
    rng = np.random.default_rng(1)
    for k in range(24):
        d = int(rng.integers(3, 10))
        sets = sorted({tuple(sorted(rng.choice(d, size=int(rng.integers(1, 3)), replace=False).tolist()))
                       for _ in range(int(rng.integers(1, 2 * d)))})
        yield f"random {k}", d, sets


@pytest.mark.parametrize("name, d, sets", list(_pair_families()), ids=[f[0] for f in _pair_families()])
def test_component_fit_equals_the_table(name, d, sets):
    """Fitted in two stages (half the sets, then all: parts joined as sets arrive, warm) to consistent and to
    inconsistent targets, the component model's table, pair tables, smallest cell and marginals (of measured
    sets and of pairs across parts) equal the full-table reference's to 1e-12 relative."""
    plan = _AdaptivePlan(k_way_marginals(d, 2))
    for model, ref in _staged_fits(_ComponentModel, d, sets, seed=len(sets) * 37 + d):
        assert model.table().sum() == pytest.approx(1.0, rel=1e-12)
        _assert_pair_tables(model, ref, d)
        for a, b in itertools.combinations(range(d), 2):
            np.testing.assert_allclose(model.marginal_any(plan, (a, b)), _marginal(ref, d, (a, b)), rtol=1e-12,
                                       atol=1e-15)
        np.testing.assert_allclose(model.candidate_tables(plan), plan.counts(ref), rtol=1e-12, atol=1e-15)

def test_component_parts_follow_the_measured_sets():
    """The parts are the connected components of the measured sets' graph; a full attribute set gives the
    table (the model's own)."""
    model = _ComponentModel(7).prepared([(0, 3), (3, 5), (1,), (2, 6)])
    assert sorted(tuple(sorted(C)) for C in model.parts) == [(0, 3, 5), (2, 6)]
    assert [a for a in range(7) if model.where[a] < 0] == [1, 4]
    out = _ComponentModel(6).prepared([(0, 1), tuple(range(6))])
    assert isinstance(out, np.ndarray) and out.shape == (64,)
    np.testing.assert_allclose(out, np.full(64, 1 / 64), rtol=1e-15)


def test_maximal_sets_incremental_equals_afresh():
    """The per-run incremental maximal sets equal the ones from the whole list, set by set (duplicates and
    supersets arriving late included)."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        d = int(rng.integers(2, 7))
        sets = [tuple(sorted(rng.choice(d, size=int(rng.integers(1, min(d, 3) + 1)), replace=False).tolist()))
                for _ in range(int(rng.integers(1, 14)))]
        cache = {}
        for k in range(1, len(sets) + 1):
            assert _maximal_sets(sets[:k], cache) == _maximal_sets_afresh(sets[:k])
        assert _maximal_sets(sets[:1], cache) == _maximal_sets_afresh(sets[:1])      # a shorter list: afresh


def test_chordal_completion_covers_every_set_with_small_cliques():
    cliques = _chordal_cliques(8, CYCLES["4-cycle"])
    assert all(any(set(S) <= set(C) for C in cliques) for S in CYCLES["4-cycle"])
    assert max(len(C) for C in cliques) == 3                  # a 4-cycle needs one chord: two triangles
    assert sorted(a for C in cliques for a in C if len(C) == 1) == [4, 5, 6, 7]


def test_pair_counts_of_the_data_are_exact(monkeypatch):
    """The data's pair tables by matrix products equal the superset-sum transform's counts exactly (integers)."""
    monkeypatch.setattr(mwem, "_FACTORED_MIN_D", 2)
    for d in (3, 11, 13):
        x = np.random.default_rng(d).integers(0, 5, 1 << d)
        plan = _AdaptivePlan(k_way_marginals(d, 2))
        fast = mwem._data_counts(plan, x, x.astype(np.float64))
        assert np.array_equal(fast, plan.cells.counts(x.astype(np.float64)))
        T = _pair_counts(x.astype(np.float64), d)
        assert np.array_equal(T[0, :, d - 1, :].reshape(-1), _marginal(x.astype(np.float64), d, (0, d - 1)))


def test_switch_rules_at_their_edges():
    """The representation is a public rule: the tree from d = _FACTORED_MIN_D on, for workloads of pairs only; it
    gives way to the table when a set is the full attribute set or its cliques would hold more than
    2^d / _FACTORED_SHARE cells."""
    D = mwem._FACTORED_MIN_D
    assert not _factored_suits(_AdaptivePlan(k_way_marginals(D - 1, 2)))
    assert _components_suit(_AdaptivePlan(k_way_marginals(D - 1, 2)))       # below it, the parts (pairs only)
    C = mwem._COMPONENTS_MIN_D
    assert _components_suit(_AdaptivePlan(k_way_marginals(C, 2)))
    assert not _components_suit(_AdaptivePlan(k_way_marginals(C - 1, 2)))
    assert not _components_suit(_AdaptivePlan(k_way_marginals(D, 2)))
    assert not _components_suit(_AdaptivePlan(k_way_marginals(D - 1, 3)))
    assert _factored_suits(_AdaptivePlan(k_way_marginals(D, 2)))
    assert _factored_suits(_AdaptivePlan(k_way_marginals(D, 1)))
    assert not _factored_suits(_AdaptivePlan(k_way_marginals(D, 3)))
    d = 18
    limit = (1 << d) // mwem._FACTORED_SHARE                  # 4096 cells: a clique of 11 attributes fits, 12 not
    for size, kept in ((11, True), (12, False)):
        model = _FactoredModel(d)
        sets = list(itertools.combinations(range(size), 2))
        out = model.prepared(sets)
        assert isinstance(out, _FactoredModel) == kept
        cells = (1 << size) + 2 * (d - size)
        assert (cells <= limit) == kept
        if not kept:                                          # the table it gives way to is the model's
            np.testing.assert_allclose(out, np.full(1 << d, 2.0 ** -d), rtol=1e-12)
    out = _FactoredModel(6).prepared([(0, 1), tuple(range(6))])
    assert isinstance(out, np.ndarray) and out.shape == (64,)


def _correlated(d, n, seed):
    rng = np.random.default_rng(seed)
    rows = np.zeros((n, d), dtype=np.int64)
    rows[:, 0] = rng.random(n) < 0.3
    for a in range(1, d):
        flip = rng.random(n) < 0.15 + 0.05 * (a % 3)
        rows[:, a] = np.where(flip, 1 - rows[:, a - 1], rows[:, a - 1])
    return np.bincount(rows @ (1 << np.arange(d - 1, -1, -1)), minlength=1 << d)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_whole_runs_equal_the_table_route(monkeypatch, delta):
    """A run on the factored model (forced from d = 12, and with the tree kept at any size) and on the parts
    (forced from d = 12) releases the table route's answers and synthetic table to rounding, selecting the same
    marginals, at pure ε and at (ε, δ)."""
    d, n = 12, 30_000
    x = _correlated(d, n, 5)
    W = k_way_marginals(d, 2)
    out = {}
    for name, min_d, share, parts in (("table", 99, 64, False), ("factored", 2, 64, True),
                                      ("tree at any size", 2, 1, True), ("parts", 99, 64, True)):
        monkeypatch.setattr(mwem, "_FACTORED_MIN_D", min_d)
        monkeypatch.setattr(mwem, "_FACTORED_SHARE", share)
        monkeypatch.setattr(mwem, "_COMPONENTS_MIN_D", 2 if parts else 99)
        out[name] = adaptive_marginals(x, W, epsilon=2.0, delta=delta, n=n, route="adaptive", trials=2, rng=3)
    ref = out["table"]
    assert min(ref.trace["rounds"]) >= 5
    for name in ("factored", "tree at any size", "parts"):
        r = out[name]
        assert r.trace["selected"] == ref.trace["selected"]
        np.testing.assert_allclose(r.answers, ref.answers, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(r.trace["synthetic"], ref.trace["synthetic"], rtol=1e-10, atol=1e-16)
        assert r.ledger == ref.ledger


def test_factored_run_is_seeded():
    d, n = 18, 20_000
    x = _correlated(d, n, 1)
    W = k_way_marginals(d, 2)
    a, b, c = (adaptive_marginals(x, W, epsilon=1.0, n=n, route="adaptive", rng=s).answers for s in (4, 4, 5))
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()
