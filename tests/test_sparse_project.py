"""Chapter 15: GF(2^κ) hashing, the sparse query workload, SparseProject (S1-Def6, S1-Alg, S1-Thm1, S1-Thm2)."""
import itertools
import math

import numpy as np
import pytest

from dpbook.broken.noise import broken_noise
from dpbook.data import SparseHistogram
from dpbook.hashing import (IRREDUCIBLE, PolynomialSignHash, clmul_reference, field_bits, gf_mul, gf_mul_reference,
                            gf_poly_eval, gf_poly_eval_reference, irreducible_polynomial, is_irreducible_reference)
from dpbook.queries import MatrixWorkload
from dpbook.sparse_project import (SparseQueryWorkload, error_decomposition, laplace_sparse_queries, project_database,
                                   random_sparse_queries, record_pool, sparse_project, sparse_project_gaussian,
                                   synthetic_records)
from dpbook.theory import sparse_project as th

N32 = 1 << 32


_zero = broken_noise("BROKEN zero noise (to test the evaluation identities)", "laplace", None, lambda scale, size, rng: np.zeros(size))


@pytest.fixture(scope="module")
def setting():
    pool = record_pool(256, 32, rng=7)
    D = synthetic_records(2000, pool, rng=1)
    W = random_sparse_queries(200, 10, N32, rng=2, pool=pool)
    return D, W


# --------------------------------------------------------------------------- the hash family


# --------------------------------------------------------------------------- the workload

def test_sparse_workload_matches_a_dense_matrix():
    N = 64
    queries = [[(3, 0.5), (10, 1.0)], [(10, 0.25), (40, 0.75), (63, 1.0)], [(0, 0.0), (5, 0.3)]]
    W = SparseQueryWorkload(N, queries, sparsity=3)
    M = MatrixWorkload(W.matrix())
    x = np.random.default_rng(0).integers(0, 5, size=N)
    D = SparseHistogram(N, np.flatnonzero(x), x[x > 0])
    assert np.allclose(W.counts(x), M.counts(x)) and np.allclose(W.counts(D), M.counts(x))
    assert W.l1_sensitivity() == pytest.approx(M.l1_sensitivity()) == pytest.approx(1.25)
    assert W.l2_sensitivity() == pytest.approx(M.l2_sensitivity())
    e, w = W.query_support(2)
    assert e.tolist() == [5] and w.tolist() == [0.3]                   # the zero weight is dropped
    assert W.head(2).m == 2 and W.m == 3 and W.sparsity == 3
    same = SparseQueryWorkload.from_arrays(N, W.indptr, W.indices, W.weights)
    assert np.array_equal(same.counts(x), W.counts(x))


def test_huge_universe_never_densifies(setting):
    D, W = setting
    with pytest.raises(ValueError, match="query_support"):
        W.query(0)
    with pytest.raises(ValueError, match="too large"):
        W.matrix()
    assert W.counts(D).shape == (W.m,)                                 # answered through the support
    assert np.diff(W.indptr).max() == 10 and W.N == N32


def test_overlapping_queries_have_growing_sensitivity(setting):
    _, W = setting
    assert W.head(10).l1_sensitivity() < W.l1_sensitivity() <= W.m


# --------------------------------------------------------------------------- evaluation identities

@pytest.mark.parametrize("block, rows_block", [(1000, 64), (20_000, 150)])
def test_project_in_pieces_is_byte_identical_to_one_block(monkeypatch, setting, block, rows_block):
    """``project`` builds each run of ``A`` row range by row range (bounded memory); the result must be the same
    bytes as the one-block reference, for several queries at once, runs shorter than a row range and pieces of
    a single row (the sums keep their order)."""
    import dpbook.hashing as hashing
    D, W = setting
    monkeypatch.setattr(hashing, "_BLOCK", block)
    monkeypatch.setattr(hashing, "_ROWS_BLOCK", rows_block)
    for ell, N in ((100, N32), (37, 1 << 48)):
        f = PolynomialSignHash.sample(8, ell, N, rng=3)
        sub = W.head(30) if N == N32 else random_sparse_queries(30, 10, N, rng=4)
        for args in ((sub.indptr, sub.indices, sub.weights),
                     (np.array([0, D.indices.size]), D.indices % N, D.counts.astype(np.float64))):
            fast, ref = f.project(*args), f._project_reference(*args)
            assert fast.shape == ref.shape and fast.tobytes() == ref.tobytes()
    # the control: another run length changes the summation order, so the bytes are not a tautology of the test
    f = PolynomialSignHash.sample(8, 100, N32, rng=3)
    args = (np.array([0, D.indices.size]), D.indices, D.counts.astype(np.float64) / 7.0)
    first = f.project(*args)
    monkeypatch.setattr(hashing, "_BLOCK", 100 * 3)
    assert np.allclose(f.project(*args), first) and f.project(*args).tobytes() != first.tobytes()


def test_eval_equals_explicit_projection():
    """S1-Def6's Measure: with zero noise, Eval(Q) = ⟨AQ, AD⟩/n with the explicit A (small N, ell)."""
    N, ell, n = 64, 37, 11
    rng = np.random.default_rng(4)
    x = rng.multinomial(n, np.full(N, 1 / N))
    D = SparseHistogram(N, np.flatnonzero(x), x[x > 0])
    W = random_sparse_queries(9, 5, N, rng=5)
    rel = sparse_project(D, epsilon=0.5, delta=1e-3, beta=0.1, s=5, m=9, n=n, ell=ell, r=6, rng=6, sampler=_zero)
    A = rel.f.matrix(np.arange(N))
    Q = W.matrix()
    assert np.allclose(rel.y, A @ x)
    assert np.allclose(rel.evaluate(W), (A @ Q.T).T @ (A @ x) / n)
    assert np.allclose(rel.project(W), (A @ Q.T).T)
    jl, noise, Q_hat = error_decomposition(rel, D, W)
    assert np.allclose(jl, rel.evaluate(W) - W.counts(x) / n) and np.allclose(noise, 0)
    assert np.allclose(project_database(D, rel.f), A @ x)


def test_release_noise_and_trials(setting):
    D, W = setting
    rel = sparse_project(D, epsilon=1.0, delta=1e-5, beta=0.1, s=10, m=200, n=D.n, ell=64, r=4, trials=3, rng=1)
    assert rel.y.shape == (3, 64) and rel.evaluate(W).shape == (3, 200)
    assert rel.noise_scale == pytest.approx(math.sqrt(8 * math.log(1e5)))
    assert rel.trace["ell_theory"] > 1e15 and rel.trace["r"] == 4 and rel.neighbours == "add/remove"


# --------------------------------------------------------------------------- accuracy at a practical ell

def test_accuracy_at_practical_ell(setting):
    """Noise part: over 600 noise draws on 3 hashes, max over the m queries exceeds the noise bound (β/2) no
    more often than β/2 allows (Clopper–Pearson at 1e-6).  JL part: the mean of JL²/Var-bound over the queries
    is at most 1 (the 4-wise variance bound), and every hash stays under the Chebyshev bound."""
    from dpbook.experiments import failure_rate
    D, W = setting
    eps, delta, beta, ell = 1.0, 1e-5, 0.1, 1024
    d_sq = float(np.sum(D.counts.astype(float) ** 2))
    q_sq = np.bincount(np.repeat(np.arange(W.m), np.diff(W.indptr)), weights=W.weights ** 2)
    noise_max, ratios = [], []
    for seed in range(3):
        rel = sparse_project(D, epsilon=eps, delta=delta, beta=beta, s=10, m=W.m, n=D.n, ell=ell, r=8, trials=200, rng=seed)
        jl, noise, Q_hat = error_decomposition(rel, D, W)
        bound = th.noise_error_bound(np.linalg.norm(Q_hat, axis=1), np.abs(Q_hat).max(axis=1), eps, delta, D.n,
                                     W.m, beta)
        noise_max.append((np.abs(noise) / bound).max(axis=1))
        var = np.array([th.jl_variance(q, d_sq, ell) for q in q_sq]) / D.n ** 2
        ratios.append(np.mean(jl ** 2 / var))
        assert np.abs(jl).max() <= th.jl_error_bound(q_sq.max(), d_sq, ell, D.n, W.m, beta)
    assert failure_rate(np.concatenate(noise_max), 1.0).consistent_with(beta / 2)
    assert np.mean(ratios) <= 1.0


def test_noise_part_does_not_depend_on_ell_and_scales_with_epsilon(setting):
    D, W = setting
    rms = {}
    for ell, eps in [(128, 1.0), (1024, 1.0), (1024, 0.5)]:
        rel = sparse_project(D, epsilon=eps, delta=1e-5, beta=0.1, s=10, m=W.m, n=D.n, ell=ell, r=8, trials=100, rng=3)
        rms[ell, eps] = float(np.sqrt(np.mean(error_decomposition(rel, D, W).noise ** 2)))
    assert 0.85 < rms[128, 1.0] / rms[1024, 1.0] < 1.15
    assert 1.8 < rms[1024, 0.5] / rms[1024, 1.0] < 2.2


# --------------------------------------------------------------------------- privacy

def test_ledger_composes_to_the_claim(setting):
    """S1-Thm1: ell steps of σ/sqrt(ell) compose (advanced composition, slack δ) to at most ε; the Gaussian variant
    spends (ε, δ) once; the broken twin's ledger does not compose to its claim."""
    from dpbook.broken.sparse_project import sparse_project_no_composition
    from dpbook.theory.composition import advanced_composition
    D, _ = setting
    for ell, eps, delta in [(256, 1.0, 1e-5), (4096, 0.3, 1e-3), (16, 0.9, 0.5)]:
        rel = sparse_project(D, epsilon=eps, delta=delta, beta=0.1, s=10, m=10, n=D.n, ell=ell, r=4, rng=0)
        steps = {width.epsilon for width in rel.ledger}
        assert len(rel.ledger) == ell and len(steps) == 1 and sum(width.delta for width in rel.ledger) == 0.0
        composed, slack = advanced_composition(steps.pop(), ell, delta)
        assert eps / 2 <= composed <= eps and slack == delta
        assert composed <= eps / 2 + eps ** 2 / (4 * math.log(1 / delta)) + 1e-12
        bad = sparse_project_no_composition(D, epsilon=eps, delta=delta, beta=0.1, s=10, m=10, n=D.n, ell=ell, r=4, rng=0)
        assert advanced_composition(bad.ledger[0].epsilon, ell, delta)[0] > eps
    gauss = sparse_project_gaussian(D, epsilon=0.9, delta=1e-5, beta=0.1, s=10, m=10, n=D.n, ell=64, r=4, rng=0)
    assert sum(width.epsilon for width in gauss.ledger) == 0.9 and sum(width.delta for width in gauss.ledger) == 1e-5
    assert gauss.noise_scale == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.9)


def test_one_dimensional_audit_of_the_release():
    """⟨A e_x, y - A D⟩ on D vs D + e_x: SparseProject passes, the twin without sqrt(8 ln 1/δ) is caught."""
    from dpbook.audit import audit, audit_cases
    cases = {c.name: c for c in audit_cases(names=["sparse_project", "sparse_project_no_composition",
                                                    "sparse_project_gaussian"])}
    for name, case in cases.items():
        res = audit(case.sample, case.sample_prime, case.events, trials=400_000, delta=case.delta, rng=11)
        if case.kind == "mechanism":
            assert res.epsilon_lb <= case.epsilon, (name, res)
        else:
            assert res.epsilon_lb > case.epsilon, (name, res)


def test_privacy_does_not_depend_on_the_hash():
    """The statistic ⟨a, v⟩ has the same law for every hash: ‖A e_x‖₂ = 1 exactly, whatever r, ell, f."""
    for r, ell in [(2, 3), (4, 16), (8, 100)]:
        f = PolynomialSignHash.sample(r, ell, N32, rng=ell)
        a = f.matrix(np.array([1, 2, 3]))
        assert np.allclose(np.linalg.norm(a, axis=0), 1.0)


# --------------------------------------------------------------------------- bad input

def _D():
    return SparseHistogram(N32, np.array([1, 5]), np.array([2, 1]))


def test_sparse_project_rejects_bad_input():
    ok = dict(epsilon=1.0, delta=1e-5, beta=0.1, s=10, m=10, n=3, ell=16, r=4)
    for fn in (sparse_project, sparse_project_gaussian):
        base = dict(ok, epsilon=0.9) if fn is sparse_project_gaussian else ok
        fn(_D(), **base)
        for key, bad, exc in [("epsilon", 0.0, ValueError), ("epsilon", math.nan, ValueError), ("epsilon", "1", TypeError),
                              ("delta", 0.0, ValueError), ("delta", 1.0, ValueError), ("delta", -0.1, ValueError),
                              ("beta", 0.0, ValueError), ("beta", 1.0, ValueError), ("s", 0, ValueError),
                              ("m", 0, ValueError), ("m", 1.5, TypeError), ("n", 0, ValueError), ("ell", 0, ValueError),
                              ("ell", 1 << 30, ValueError), ("r", 1, ValueError), ("trials", 0, ValueError),
                              ("trials", 1 << 24, ValueError)]:
            with pytest.raises(exc, match=key):
                fn(_D(), **dict(base, **{key: bad}))
        with pytest.raises(TypeError, match="D"):
            fn(np.array([1, 2]), **base)
        with pytest.raises(ValueError, match="power of two"):
            fn(SparseHistogram(1000, np.array([1]), np.array([1])), **base)
        with pytest.raises(ValueError, match="ell"):
            fn(_D(), **dict(base, ell=None, n=1000))                     # S1-Alg's ell = 9e15 cannot be allocated
        with pytest.raises(TypeError, match="sampler"):
            fn(_D(), **dict(base, sampler="laplace"))
        with pytest.raises(TypeError, match="rng"):
            fn(_D(), **dict(base, rng="seed"))
    with pytest.raises(ValueError, match="epsilon"):
        sparse_project(_D(), **dict(ok, epsilon=30.0, delta=0.5))       # ε > 2 ln(1/δ): the composition fails
    with pytest.raises(ValueError, match="epsilon"):
        sparse_project_gaussian(_D(), **dict(ok, epsilon=1.0))          # classic Gaussian needs ε < 1
    tiny = sparse_project(SparseHistogram(8, np.array([1]), np.array([1])), epsilon=1.0, delta=1e-3, beta=0.5, s=1,
                          m=1, n=1, rng=0)
    assert tiny.ell == math.ceil(th.sparse_project_ell(1, 1, 1, 0.5))      # the theoretical ell when it fits


def test_evaluate_rejects_queries_outside_the_budget():
    rel = sparse_project(_D(), epsilon=1.0, delta=1e-5, beta=0.1, s=2, m=2, n=3, ell=16, r=4, rng=0)
    with pytest.raises(ValueError, match=r"built for s \(2\)-sparse"):
        rel.evaluate(SparseQueryWorkload(N32, [[(1, 1.0), (2, 1.0), (3, 1.0)]]))    # 3 non-zeros > s = 2
    with pytest.raises(ValueError, match=r"built for m \(2\)"):
        rel.evaluate(SparseQueryWorkload(N32, [[(1, 1.0)]] * 3))
    with pytest.raises(TypeError, match="workload"):
        rel.evaluate(np.ones((1, 4)))
    with pytest.raises(ValueError, match="N"):
        rel.evaluate(SparseQueryWorkload(1 << 20, [[(1, 1.0)]]))


def test_workload_rejects_bad_queries():
    with pytest.raises(ValueError, match="sparsity"):
        SparseQueryWorkload(N32, [[(1, 1.0), (2, 1.0)]], sparsity=1)           # more than s non-zeros
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        SparseQueryWorkload(N32, [[(1, 1.5)]])
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        SparseQueryWorkload(N32, [[(1, -0.1)]])
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        SparseQueryWorkload(N32, [[(1, math.nan)]])
    with pytest.raises(TypeError, match="weight"):
        SparseQueryWorkload(N32, [[(1, "1")]])
    with pytest.raises(ValueError, match="element"):
        SparseQueryWorkload(N32, [[(N32, 1.0)]])
    with pytest.raises(TypeError, match="element"):
        SparseQueryWorkload(N32, [[(1.5, 1.0)]])
    with pytest.raises(ValueError, match="repeats"):
        SparseQueryWorkload(N32, [[(1, 0.5), (1, 0.5)]])
    with pytest.raises(ValueError, match="queries"):
        SparseQueryWorkload(N32, [])
    with pytest.raises(TypeError, match="queries"):
        SparseQueryWorkload(N32, "abc")
    with pytest.raises(ValueError, match="indptr"):
        SparseQueryWorkload.from_arrays(N32, [1, 0], [1], [1.0])
    with pytest.raises(ValueError, match=r"^m \(2\)"):
        SparseQueryWorkload(N32, [[(1, 1.0)]]).head(2)
    with pytest.raises(ValueError, match=r"^m \(0\)"):
        random_sparse_queries(0, 3, N32)
    with pytest.raises(ValueError, match=r"^s \(20\)"):
        random_sparse_queries(3, 20, 16)
    with pytest.raises(ValueError, match="weights"):
        random_sparse_queries(3, 2, 16, weights="gaussian")
    with pytest.raises(ValueError, match="pool"):
        random_sparse_queries(3, 2, 16, pool=np.array([20]))
    with pytest.raises(ValueError, match="pool_share"):
        random_sparse_queries(3, 2, 16, pool=np.array([2]), pool_share=1.5)


def test_helpers_reject_bad_input():
    pool = record_pool(4, 8, rng=0)
    for kwargs, exc, key in [(dict(n=0), ValueError, "n"), (dict(pool=np.array([])), ValueError, "pool"),
                             (dict(pool=np.array([300])), ValueError, "pool"), (dict(pool_share=2.0), ValueError, "pool_share"),
                             (dict(zipf=-1.0), ValueError, "zipf"), (dict(bits=0), ValueError, "bits")]:
        with pytest.raises(exc, match=key):
            synthetic_records(**dict(dict(n=10, pool=pool, bits=8), **kwargs))
    with pytest.raises(ValueError, match="size"):
        record_pool(300, 8)
    rel = sparse_project(_D(), epsilon=1.0, delta=1e-5, beta=0.1, s=2, m=2, n=3, ell=16, r=4, rng=0)
    with pytest.raises(TypeError, match="f"):
        project_database(_D(), "hash")
    with pytest.raises(ValueError, match="N"):
        project_database(SparseHistogram(8, np.array([1]), np.array([1])), rel.f)
    with pytest.raises(TypeError, match="release"):
        error_decomposition("release", _D(), SparseQueryWorkload(N32, [[(1, 1.0)]]))
    with pytest.raises(TypeError, match="workload"):
        laplace_sparse_queries(_D(), np.ones((1, 4)), epsilon=1.0, n=3)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_sparse_queries(_D(), SparseQueryWorkload(N32, [[(1, 1.0)]]), epsilon=-1.0, n=3)
    with pytest.raises(ValueError, match="n"):
        laplace_sparse_queries(_D(), SparseQueryWorkload(N32, [[(1, 1.0)]]), epsilon=1.0, n=0)
    from dpbook.broken.sparse_project import sparse_project_no_composition
    with pytest.raises(ValueError, match="delta"):
        sparse_project_no_composition(_D(), epsilon=1.0, delta=0.0, beta=0.1, s=2, m=2, n=3, ell=16)


def test_theory_functions_reject_bad_input():
    with pytest.raises(ValueError, match="q_sq_norm"):
        th.jl_variance(-1.0, 1.0, 4)
    with pytest.raises(ValueError, match="d_sq_norm"):
        th.jl_variance(1.0, math.inf, 4)
    with pytest.raises(ValueError, match="ell"):
        th.jl_variance(1.0, 1.0, 0)
    with pytest.raises(ValueError, match="beta"):
        th.jl_error_bound(1.0, 1.0, 4, 10, 3, 0.0)
    with pytest.raises(ValueError, match="aq_norm"):
        th.noise_error_bound(np.array([math.nan]), np.array([1.0]), 1.0, 1e-5, 10, 3, 0.1)
    with pytest.raises(ValueError, match="delta"):
        th.noise_error_bound(1.0, 0.1, 1.0, 0.0, 10, 3, 0.1)
    with pytest.raises(ValueError, match="support"):
        th.memory_words(4, -1, 2)
    with pytest.raises(ValueError, match="r"):
        th.memory_words(4, 1, 0)


# --------------------------------------------------------------------------- hand-computed bounds

def test_hand_computed_bounds():
    # ell = 9.25e15 for n = 1e3, s = 100, m = 1e3, β = .05; 2.2e12 for n = 100, s = 10, m = 100, β = .1
    assert th.sparse_project_ell(1000, 100, 1000, 0.05) == pytest.approx(9.25e15, rel=1e-3)
    assert th.sparse_project_ell(100, 10, 100, 0.1) == pytest.approx(2 * 4096 * math.log(4000) * 10010 ** 2 / math.sqrt(10))
    for args in [(1000, 100, 1000, 0.05), (7, 3, 2, 0.5), (1, 1, 1, 0.9)]:
        assert th.sparse_project_ell_seed_form(*args) == pytest.approx(th.sparse_project_ell(*args), rel=1e-12)
    assert th.sparse_project_tau(0.05, 1000) == 0.05 / 4000
    assert th.sparse_project_sigma(1.0, 1e-5) == pytest.approx(1 / math.sqrt(8 * math.log(1e5)))
    assert th.hash_independence(1000, 9_250_000_000_000_000, 0.05) == 92          # "r ≈ 92" in §13
    assert th.hash_independence(1, 1, 1.0) == 2
    eps0 = th.sparse_project_sigma(1.0, 1e-5) / math.sqrt(1024)
    assert th.sparse_project_epsilon(1.0, 1e-5, 1024) == pytest.approx(
        math.sqrt(2 * 1024 * math.log(1e5)) * eps0 + 1024 * eps0 * math.expm1(eps0))
    assert th.thm2_alpha(1000, 10, 100, 0.1, 1.0, 1e-5) == pytest.approx(
        math.log(1000) * math.sqrt(10 * math.log(1e5)) / 1000 * math.log(1010))
    assert th.jl_variance(3.0, 100.0, 50) == 12.0
    assert th.jl_error_bound(3.0, 100.0, 50, 10, 5, 0.1) == pytest.approx(math.sqrt(12.0 * 100) / 10)
    b = math.sqrt(8 * math.log(1e5))
    assert th.noise_error_bound(2.0, 0.1, 1.0, 1e-5, 100, 10, 0.1) == pytest.approx(b * 2 * math.sqrt(6 * math.log(400)) / 100)
    big = math.sqrt(3) * b * 1.0 * (math.log(400) + 0.5)                                # outside the quadratic regime
    assert th.noise_error_bound(1.0, 1.0, 1.0, 1e-5, 1, 10, 0.1) == pytest.approx(big)
    assert th.laplace_direct_error_bound(100, 0.1, 5.0, 0.5, 1000) == pytest.approx(math.log(1000) * 10 / 1000)
    assert th.memory_words(1024, 800, 8) == 1024 + 8 + 1600
    assert th.histogram_memory_bytes(1 << 32) == 32 * 2 ** 30


def test_results_registry_entries():
    from dpbook.theory.registry import all_results
    ids = {r.id for r in all_results() if r.chapter == "15_sparse_queries"}
    assert {"S1-Def6", "S1-Alg", "S1-Thm1", "S1-Thm2", "S1-E7", "S1-E9"} <= ids


# --------------------------------------------------------------------------- determinism, explorer

def test_determinism(setting):
    D, W = setting
    run = lambda seed: sparse_project(D, epsilon=1.0, delta=1e-5, beta=0.1, s=10, m=200, n=D.n, ell=32, r=4, rng=seed)
    a, b, c = run(5), run(5), run(6)
    assert np.array_equal(a.y, b.y) and a.f == b.f and np.array_equal(a.evaluate(W), b.evaluate(W))
    assert not np.array_equal(a.y, c.y) and a.f != c.f
    assert np.array_equal(random_sparse_queries(5, 3, N32, rng=1).indices, random_sparse_queries(5, 3, N32, rng=1).indices)
    pool = record_pool(10, 32, rng=3)
    assert np.array_equal(synthetic_records(50, pool, rng=2).counts, synthetic_records(50, pool, rng=2).counts)
    g = lambda seed: sparse_project_gaussian(D, epsilon=0.5, delta=1e-5, beta=0.1, s=10, m=5, n=D.n, ell=16, r=4, rng=seed).y
    assert np.array_equal(g(1), g(1)) and not np.array_equal(g(1), g(2))


def test_explorer_is_pure_and_valid():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from dpbook.explorers.sparse_project import explore_sparse_project, figure_column_products
    fig = explore_sparse_project(m=50, ell=64, trials=5)
    fig2 = explore_sparse_project(m=50, ell=64, trials=5)
    assert len(fig.axes) == 2
    a = [line.get_ydata() for line in fig.axes[0].get_lines()]
    b = [line.get_ydata() for line in fig2.axes[0].get_lines()]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    plt.close("all")
    with pytest.raises(ValueError, match="epsilon"):
        explore_sparse_project(epsilon=0.0)
    assert len(figure_column_products(ell=64, support=20).axes) == 1
    plt.close("all")
    with pytest.raises(ValueError, match="r_values"):
        figure_column_products(ell=64, r_values=(4, 8, 28, 9), support=20)
    with pytest.raises(ValueError, match="r_values"):
        figure_column_products(ell=64, r_values=(0,), support=20)
    with pytest.raises(ValueError, match="support"):
        figure_column_products(ell=64, support=1)
    with pytest.raises(TypeError, match="rng"):
        figure_column_products(ell=64, support=20, rng="seed")


def test_widget_cache_reproduces_the_error_decomposition():
    """The widget caches the hash-dependent parts (Q̂, u, JL) across ε/δ moves; they must equal what
    error_decomposition computes from the release the widget draws (same seed → same hash)."""
    from dpbook.data import sparse_database
    from dpbook.sparse_project import sparse_workload
    from dpbook.explorers.sparse_project import _hash_parts
    D, W = sparse_database(500), sparse_workload(50, 4)
    rel = sparse_project(D, epsilon=0.7, delta=1e-5, beta=0.1, s=4, m=50, n=500, ell=64, r=8, trials=3, rng=5)
    jl, noise, Q_hat = error_decomposition(rel, D, W)
    f, Q_cached, u, jl_cached = _hash_parts(500, 50, 4, 64, 8, 5)
    assert rel.f == f
    np.testing.assert_allclose(jl_cached, jl, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose((rel.y - u) @ Q_cached.T / 500, noise, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------- the per-query Gaussian baseline

def test_restrict_to_queries_is_exact(setting):
    """Counts and both sensitivities are those of the sparse workload on the full universe; a record outside
    every support lands in the last cell, which no query weights."""
    from dpbook.sparse_project import restrict_to_queries
    D, W = setting
    x, Wr = restrict_to_queries(D, W)
    assert x.sum() == D.n and Wr.m == W.m and Wr.N == x.size
    assert np.allclose(Wr.counts(x), W.counts(D), rtol=0, atol=1e-9)
    assert Wr.l1_sensitivity() == pytest.approx(W.l1_sensitivity(), rel=1e-12)
    assert Wr.l2_sensitivity() == pytest.approx(W.l2_sensitivity(), rel=1e-12)
    assert np.all(Wr.Q.toarray()[:, -1] == 0) and x[-1] > 0        # synthetic records: many outside the supports


def test_restrict_to_queries_bad_input(setting):
    from dpbook.sparse_project import restrict_to_queries
    D, W = setting
    with pytest.raises(TypeError, match="workload"):
        restrict_to_queries(D, MatrixWorkload(np.ones((2, 4))))
    W16 = random_sparse_queries(3, 2, 1 << 16, rng=0)
    with pytest.raises(ValueError, match="workload is over 65536"):
        restrict_to_queries(D, W16)


def test_gaussian_direct_error_bound_holds_and_is_not_loose():
    """The max of m Gaussian errors stays below the bound in at most a β fraction of draws (it is a union bound:
    the rate is far below β), and the bound is within a factor 1.5 of the measured 1-β quantile (control: the
    bound at half the sensitivity is exceeded far more often than β)."""
    from dpbook.experiments import failure_rate
    from dpbook.theory.gaussian import analytic_gaussian_sigma
    m, beta, l2, n = 200, 0.1, 3.0, 1000
    sigma = analytic_gaussian_sigma(l2, 1.0, 1e-5) / n
    err = np.abs(np.random.default_rng(5).normal(0.0, sigma, size=(4000, m))).max(axis=1)
    bound = th.gaussian_direct_error_bound(m, beta, l2, 1.0, 1e-5, n)
    assert failure_rate(err, bound).consistent_with(beta)
    assert bound < 1.5 * np.quantile(err, 1 - beta)
    assert not failure_rate(err, th.gaussian_direct_error_bound(m, beta, l2 / 2, 1.0, 1e-5, n)).consistent_with(beta)
    for kw, name in [(dict(m=0), "m"), (dict(n=0), "n"), (dict(l2_sensitivity=-1.0), "sensitivity"),
                     (dict(delta=0.0), "delta"), (dict(beta=1.5), "beta")]:
        args = dict(m=m, beta=beta, l2_sensitivity=l2, epsilon=1.0, delta=1e-5, n=n) | kw
        with pytest.raises(ValueError, match=name):
            th.gaussian_direct_error_bound(**args)


def test_practical_error_bound_is_the_sum_of_the_parts():
    ell, m, beta = 1024, 500, 0.1
    total = th.practical_error_bound(3.0, 10, 1e5, ell, 2000, m, beta, 1.0, 1e-5)
    parts = th.jl_error_bound(3.0, 1e5, ell, 2000, m, beta) + th.noise_error_bound(np.sqrt(3.0), 10 / np.sqrt(ell), 1.0,
                                                                                 1e-5, 2000, m, beta)
    assert total == pytest.approx(float(parts), rel=1e-12)
    assert th.practical_error_bound(3.0, 10, 1e5, 4 * ell, 2000, m, beta, 1.0, 1e-5) < total     # JL part falls with ell
    with pytest.raises(ValueError, match="q_sq_norm"):
        th.practical_error_bound(-1.0, 10, 1e5, ell, 2000, m, beta, 1.0, 1e-5)


def test_chapter_figures_draw_what_they_are_given_and_validate():
    """Chapter 15's figures: each draws its data, at most 2 panels and 900 px, and refuses bad input by name."""
    import matplotlib.pyplot as plt
    from dpbook.explorers.sparse_project import figure_accuracy, figure_per_query_comparison, figure_slopes
    from dpbook.plots import DPI, MAX_WIDTH_PX
    fig = figure_accuracy([0.03, 0.035], [0.008, 0.009], [0.03], practical_bound=1.8, rate=0.08, gaussian_median=0.0035,
                          zero_answer=0.14, noise_bound=0.018, m=500)
    assert sum(p.get_height() for p in fig.axes[0].patches) == 2                  # one count per run
    grid = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    fig2 = figure_slopes({"ε": (grid, 1 / grid, -1.0, -1.0), "ℓ (JL part)": (grid * 128, grid ** -0.5, -0.5, -0.5)})
    assert np.allclose(fig2.axes[1].lines[0].get_ydata(), grid ** -0.5)
    res = {"m": np.array([10, 30]), "sparse_project": np.array([0.03, 0.04]), "gaussian": np.array([0.003, 0.005]),
           "laplace": np.array([]), "zero": np.array([0.02, 0.02]), "l2": np.array([1.0, 1.2]), "l1": np.array([1.0, 2.0])}
    fig3 = figure_per_query_comparison(res, res, titles=("a", "b"))
    for f in (fig, fig2, fig3):
        assert len(f.axes) <= 2 and f.get_size_inches()[0] * DPI <= MAX_WIDTH_PX
    plt.close("all")
    with pytest.raises(ValueError, match="total_max"):
        figure_accuracy([], [0.008], [0.03], practical_bound=1.8, rate=0.08, gaussian_median=0.0035, zero_answer=0.14,
                        noise_bound=0.018, m=500)
    with pytest.raises(ValueError, match="^m "):
        figure_accuracy([0.03], [0.008], [0.03], practical_bound=1.8, rate=0.08, gaussian_median=0.0035,
                        zero_answer=0.14, noise_bound=0.018, m=0)
    with pytest.raises(TypeError, match="sweeps"):
        figure_slopes({})
    with pytest.raises(ValueError, match="titles"):
        figure_per_query_comparison(res, res, titles=("a",))
    plt.close("all")


def test_sparse_workload_is_chapter_15s_seeded_workload():
    """``sparse_workload`` is random_sparse_queries over the catalogue with its own seed, cached, and refuses bad
    input by name."""
    from dpbook.data import record_catalogue
    from dpbook.sparse_project import sparse_workload
    from dpbook.sparse_project import random_sparse_queries
    W = sparse_workload(50, 6)
    V = random_sparse_queries(50, 6, 1 << 32, rng=11, pool=record_catalogue())
    assert np.array_equal(W.indices, V.indices) and np.array_equal(W.weights, V.weights) and W.sparsity == 6
    assert sparse_workload(50, 6) is W and sparse_workload(50, 6, seed=12).indices.tobytes() != W.indices.tobytes()
    assert np.isin(W.indices.reshape(50, 6), record_catalogue()).sum(axis=1).min() == 3    # half from the catalogue
    with pytest.raises(ValueError, match="^m "):
        sparse_workload(0, 6)
    with pytest.raises(TypeError, match="^s "):
        sparse_workload(10, 2.5)
    with pytest.raises(ValueError, match="bits"):
        sparse_workload(10, 6, bits=63)
    with pytest.raises(ValueError, match="^s "):
        sparse_workload(10, 9, bits=3)
