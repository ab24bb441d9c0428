"""Chapter 14: graph cuts (IDC §2, §6.1, Lem6.2, Rem6.3, §6.2, Rem4.11/5.3)."""
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpbook.audit import audit_cases
from dpbook.broken.graphs import adjacency_randomized_response
from dpbook.experiments import failure_rate
from dpbook.graphs import (GraphDatabase, NoisyGraph, RankOneWorkload, SyntheticGraph, adjacency_from_weights,
                           cut_norm_exact, cut_norm_local_search, cut_norm_reference, cut_workload, edge_pairs,
                           from_graph, graph_database, graph_randomized_response, load_graph, planted_partition,
                           random_cuts, random_graph, round_graph, spectral_cut, synthetic_graph, top_singular_value)
from dpbook.idc import FixedStream, FriezeKannanIDC, MultiplicativeWeightsIDC, online_idc_sv
from dpbook.noise import discrete_laplace, gaussian_noise
from dpbook.theory import graphs as th

BETA = 0.05


def _sym(rng, V):
    M = rng.standard_normal((V, V))
    M = M + M.T
    np.fill_diagonal(M, 0.0)
    return M


# --- graphs and cut queries ---------------------------------------------------------------------------------

def test_graph_database_round_trip_and_loaders():
    g = graph_database([[0, 2], [3, 1]], 4)
    assert g.N == 6 and g.num_edges == 2 and g.is_unweighted
    u, v = edge_pairs(4)
    assert set(zip(u[g.weights > 0], v[g.weights > 0])) == {(0, 2), (1, 3)}
    A = g.adjacency()
    assert A[0, 2] == A[2, 0] == 1 and A[1, 3] == 1 and A.sum() == 4 and np.all(np.diag(A) == 0)
    assert g.edges().tolist() == [[0, 2], [1, 3]]
    karate, lesmis = load_graph("karate"), load_graph("lesmis")
    assert (karate.num_vertices, karate.num_edges) == (34, 78) and (lesmis.num_vertices, lesmis.num_edges) == (77, 254)
    assert karate.histogram().sum() == 78


def test_cut_answers_match_brute_force():
    rng = np.random.default_rng(0)
    g = random_graph(9, 0.4, rng)
    W = random_cuts(9, 40, rng, disjoint=False)
    A = g.adjacency()
    brute = np.array([sum(A[a, b] for a in range(9) for b in range(9) if W.U[i, a] and W.W[i, b])
                      for i in range(W.m)])
    assert np.array_equal(W.counts(g.weights), brute)
    assert np.allclose(W.matrix() @ g.weights, brute)                    # the universe form (small V)
    assert np.allclose([W.query(i) @ g.weights for i in range(W.m)], brute)
    # rank-1 queries, batched, noisy (signed) vectors
    R = RankOneWorkload(rng.random((5, 9)), rng.random((5, 9)))
    P = rng.standard_normal((3, g.N))
    assert np.allclose(R.apply(P), P @ R.matrix().T)
    assert np.allclose(R.counts_from_adjacency(adjacency_from_weights(P, 9)), P @ R.matrix().T)


def test_exact_sensitivities_match_the_matrix():
    rng = np.random.default_rng(1)
    for W in (random_cuts(7, 30, rng, disjoint=False), random_cuts(7, 30, rng),
              RankOneWorkload(rng.random((6, 7)), rng.random((6, 7)))):
        Q = W.matrix()
        assert W.l1_sensitivity() == pytest.approx(np.abs(Q).sum(axis=0).max())
        assert W.l2_sensitivity() == pytest.approx(np.sqrt((Q ** 2).sum(axis=0).max()))
        assert W.l0_sensitivity() == (Q != 0).sum(axis=0).max()
    assert random_cuts(7, 5, rng).is_integral() and not RankOneWorkload(np.full((1, 3), .5), np.ones((1, 3))).is_integral()
    overlap = cut_workload(4, [([0, 1], [0, 1])])                        # IDC-E5: coefficient 2 inside S ∩ T
    assert overlap.query(0).max() == 2.0


def test_cut_norm_exact_matches_brute_force():
    rng = np.random.default_rng(2)
    for V in (3, 5, 8):
        M = _sym(rng, V)
        res = cut_norm_exact(M)
        assert res.value == pytest.approx(cut_norm_reference(M))
        assert abs(res.S.astype(float) @ M @ res.R.astype(float)) == pytest.approx(res.value)
        S = ((np.arange(1, 1 << V)[:, None] >> np.arange(V)) & 1).astype(float)
        sizes = S.sum(axis=1)
        brute_norm = (np.abs(S @ M @ S.T) / np.sqrt(np.outer(sizes, sizes))).max()
        assert cut_norm_exact(M, scale="normalized").value == pytest.approx(brute_norm)
        assert brute_norm <= top_singular_value(M) + 1e-12                 # IDC §6.2, Eq. (4), left inequality
    batch = np.stack([_sym(rng, 6) for _ in range(3)])
    assert np.allclose(cut_norm_exact(batch).value, [cut_norm_reference(b) for b in batch])


def test_heuristics_are_true_cuts_and_close_to_exact():
    rng = np.random.default_rng(3)
    ratios = []
    for _ in range(20):
        M = _sym(rng, 12)
        exact = cut_norm_exact(M).value
        for res in (cut_norm_local_search(M, rng=0), spectral_cut(M, scale="uniform")):
            assert abs(res.S.astype(float) @ M @ res.R.astype(float)) == pytest.approx(res.value)
            assert res.value <= exact * (1 + 1e-12)
        ratios.append(cut_norm_local_search(M, rng=0).value / exact)
    assert min(ratios) >= 0.95


def test_oracle_finds_a_violated_cut_whenever_brute_force_does():
    """Separation: for random W - Â and thresholds on both sides of the true maximum, the exact oracle (through
    synthetic_graph's first iteration) reports a violated cut iff brute force over all 4^V cuts finds one."""
    rng = np.random.default_rng(4)
    for _ in range(10):
        V = 6
        g = random_graph(V, 0.5, rng)
        noisy = graph_randomized_response(g, epsilon=1.0, rng=rng)
        with warnings.catch_warnings():                                    # unconverged runs warn (their verdict)
            warnings.simplefilter("ignore", RuntimeWarning)
            res = synthetic_graph(noisy, max_iter=1)                       # one LP (the full cut only)
        assert res.status == ("converged" if res.converged else "max_iter")
        R = res.adjacency() - noisy.adjacency()
        brute = cut_norm_reference(R)
        assert res.oracle_value == pytest.approx(brute)
        assert (brute > res.lp_value * (1 + 1e-6) + 1e-6) == (not res.converged)


def test_lp_solution_is_feasible_and_optimal_over_all_cuts():
    rng = np.random.default_rng(5)
    g = random_graph(8, 0.5, rng)
    noisy = graph_randomized_response(g, epsilon=0.5, rng=rng)
    for scale in ("uniform", "normalized"):
        syn = synthetic_graph(noisy, scale=scale, eta=th.rr_cut_error_bound(8, 0.5, BETA))
        assert syn.converged and np.all((syn.weights >= 0) & (syn.weights <= 1))
        # the exact maximum over all cuts of |W - Â|/g is the LP value, within the tolerance
        worst = cut_norm_exact(syn.adjacency() - noisy.adjacency(), scale=scale).value
        assert worst <= syn.lp_value * (1 + 1e-6) + 1e-6
        assert syn.feasible and syn.epsilon == noisy.epsilon and syn.ledger == noisy.ledger
    spec = synthetic_graph(noisy, oracle="spectral", scale="normalized")
    assert spec.converged and np.all((spec.weights >= 0) & (spec.weights <= 1))
    assert cut_norm_exact(spec.adjacency() - noisy.adjacency(), scale="normalized").value <= \
        top_singular_value(spec.adjacency() - noisy.adjacency()) + 1e-9


# --- accuracy vs theory (false alarm <= 1e-6) ---------------------------------------------------------------

def test_randomized_response_error_bounds_hold_at_beta():
    V, eps, trials = 8, 1.0, 400
    g = random_graph(V, 0.5, 6)
    noisy = graph_randomized_response(g, epsilon=eps, trials=trials, rng=7)
    diff = noisy.adjacency() - g.adjacency()
    err = cut_norm_exact(diff).value
    assert failure_rate(err, th.rr_cut_error_bound(V, eps, BETA)).consistent_with(BETA)
    ratio = cut_norm_exact(diff, scale=th.rr_size_error_table(V, eps, BETA)).value   # worst error/bound(|S|,|T|)
    assert failure_rate(ratio, 1.0).consistent_with(BETA)
    assert noisy.error_bound(BETA) == th.rr_cut_error_bound(V, eps, BETA)


def test_rounding_and_synthetic_bounds_hold():
    V = 8
    g = random_graph(V, 0.5, 8)
    noisy = graph_randomized_response(g, epsilon=1.0, rng=9)
    syn = synthetic_graph(noisy)
    err = [cut_norm_exact(round_graph(syn, r).adjacency() - syn.adjacency()).value for r in range(200)]
    assert failure_rate(np.array(err), th.rounding_error_bound(V, BETA)).consistent_with(BETA)
    eta = th.rr_cut_error_bound(V, 1.0, BETA)
    assert cut_norm_exact(syn.adjacency() - g.adjacency()).value <= th.synthetic_error_bound(eta)


# --- bounds: hand-computed values ----------------------------------------------------------------------------

def test_bounds_hand_computed():
    L = 10 * math.log(4) + math.log(2 / 0.05)                                # V = 10, β = 0.05
    assert th.num_pairs(10) == 45 and th.union_log_term(10, 0.05) == pytest.approx(L)
    assert th.rr_cut_error_bound(10, 1.0, 0.05) == pytest.approx(2 * math.sqrt(6 * 45 * L))   # L <= 3N/4
    assert th.rr_cut_error_bound(10, 1.0, 0.05, "replace-one") == pytest.approx(4 * math.sqrt(6 * 45 * L))
    assert th.gru_cut_error_bound(10, 2.0, 0.05) == pytest.approx(math.sqrt(6 * 45 * L) / 2)
    # V = 5: L > 2N/3, Lemma 6.1's general case
    L5 = 5 * math.log(4) + math.log(40)
    assert th.gru_cut_error_bound(5, 1.0, 0.05) == pytest.approx(math.log(400) * math.sqrt(20 * (L5 + math.log(2))))
    # linear regime of the Chernoff optimum: t = 1/(√2 q b)
    assert th.laplace_sum_deviation(1.0, 2.0, 1.0, 50.0) == pytest.approx(2 * math.sqrt(2) * (50 + 1.5 / 8))
    assert th.laplace_sum_deviation(100.0, 1.0, 1.0, 2.0) == pytest.approx(math.sqrt(6 * 100 * 2))
    assert th.rr_size_error_bound(np.array([10]), np.array([10]), 10, 1.0, 0.05)[0] == \
        pytest.approx(math.sqrt(12 * 100 * L))
    assert th.rounding_error_bound(10, 0.05) == pytest.approx(math.sqrt(90 * L))
    assert th.synthetic_error_bound(3.0) == 6.0 and th.synthetic_error_bound(3.0, 0.5) == 9.0
    assert th.rr_rate(16, 2.0) == 32.0
    assert th.mw_cut_rate(100, 16, 1.0, math.exp(-1)) == pytest.approx(40 * math.log(16) ** 0.25)
    assert th.fk_cut_rate(16, 10, 4.0, math.exp(-16)) == pytest.approx(2 * 10 * 2 / 2)
    assert th.fk_wins_edges(math.e ** 2 and 7) == pytest.approx(49 / math.log(7))
    assert th.mw_cut_updates(0.5, 10) == pytest.approx(16 * math.log(45))
    assert th.fk_cut_updates(0.5, 10, 9) == pytest.approx(45 / 9 * 4)
    table = th.rr_size_error_table(4, 1.0, 0.05)
    assert table.shape == (5, 5) and np.isinf(table[0]).all() and table[2, 3] == table[3, 2]


# --- privacy ---------------------------------------------------------------------------------------------------

def test_audit_of_edge_level_randomized_response_and_its_broken_twin():
    (ok,) = audit_cases(names=["graph_randomized_response"])
    (bad,) = audit_cases(names=["adjacency_randomized_response"])
    assert ok.target.endswith("graph_randomized_response") and "adjacency_randomized_response" in bad.target
    r_ok, r_bad = ok.run(11, trials=400_000), bad.run(12, trials=100_000)
    assert r_ok.epsilon_lb <= 1.0 < r_bad.epsilon_lb
    assert r_ok.epsilon_lb >= 0.7


def test_ledger_and_claims():
    g = random_graph(6, 0.5, 0)
    rel = graph_randomized_response(g, epsilon=0.7, rng=0)
    assert sum(s.epsilon for s in rel.ledger) == rel.epsilon == 0.7 and rel.delta == 0.0
    assert rel.noise_scale == pytest.approx(1 / 0.7) and rel.neighbours == "add/remove"
    assert graph_randomized_response(g, epsilon=0.7, neighbours="replace-one", rng=0).noise_scale == pytest.approx(2 / 0.7)
    ints = graph_randomized_response(g, epsilon=0.7, sampler=discrete_laplace, rng=0).weights
    assert np.all(ints == np.round(ints))                                  # 0/1 cells: lattice noise is exact


def test_online_loop_runs_on_cut_workloads():
    """The book's online loop (dpbook.idc.online_idc_sv) takes a cut workload unchanged; disjoint cuts only."""
    g = planted_partition(12, 0.9, 0.1, 0)
    x, n = g.histogram(), g.num_edges
    W = random_cuts(12, 20, 1)
    for rule in (MultiplicativeWeightsIDC(g.N, 0.1), FriezeKannanIDC(g.N, 0.1, n=n, sq_norm=n)):
        rel = online_idc_sv(x, rule, FixedStream(W), epsilon=0.5, delta=1e-6, c=5, trials=3, rng=0)
        assert rel.answers.shape == (3, 20) and sum(s.epsilon for s in rel.ledger) == pytest.approx(10 * rel.params["epsilon0"])
    with pytest.raises(ValueError, match="workload queries must lie in"):
        online_idc_sv(x, MultiplicativeWeightsIDC(g.N, 0.1), FixedStream(random_cuts(12, 5, 1, disjoint=False)),
                      epsilon=0.5, delta=1e-6, c=5, rng=0)


# --- bad input ------------------------------------------------------------------------------------------------

def test_bad_graphs_are_rejected():
    with pytest.raises(ValueError, match="self-loop"):
        graph_database([[0, 1], [2, 2]], 3)
    with pytest.raises(ValueError, match="weights"):
        graph_database([[0, 1]], 3, weights=[1.5])
    with pytest.raises(ValueError, match="weights"):
        graph_database([[0, 1]], 3, weights=[-0.1])
    with pytest.raises(ValueError, match="weights"):
        graph_database([[0, 1]], 3, weights=[np.nan])
    with pytest.raises(TypeError, match="weights"):
        graph_database([[0, 1]], 3, weights=["a"])
    with pytest.raises(ValueError, match="vertex 3"):
        graph_database([[0, 3]], 3)
    with pytest.raises(ValueError, match="twice"):
        graph_database([[0, 1], [1, 0]], 3)
    with pytest.raises(ValueError, match="edges"):
        graph_database([[0, 1, 2]], 3)
    with pytest.raises(TypeError, match="edges"):
        graph_database([["a", "b"]], 3)
    with pytest.raises(ValueError, match="num_vertices"):
        graph_database([[0, 1]], 1)
    with pytest.raises(TypeError, match="num_vertices"):
        graph_database([[0, 1]], 2.5)
    from dpbook.data import load_lesmis
    with pytest.raises(ValueError, match="weights"):                       # co-appearance counts are not in [0, 1]
        from_graph(load_lesmis(), weighted=True)
    with pytest.raises(TypeError, match="graph"):
        from_graph("karate")
    with pytest.raises(ValueError, match="name"):
        load_graph("facebook")
    with pytest.raises(ValueError, match="density"):
        random_graph(5, 1.5)
    with pytest.raises(ValueError, match="p_in"):
        planted_partition(5, -0.1, 0.2)
    with pytest.raises(ValueError, match="histogram"):
        GraphDatabase(3, np.array([0.5, 0.0, 1.0])).histogram()
    with pytest.raises(ValueError, match="weights"):
        adjacency_from_weights(np.zeros(5), 4)
    with pytest.raises(ValueError, match="num_vertices"):
        edge_pairs(0)


def test_bad_queries_are_rejected():
    with pytest.raises(ValueError, match="S .cut 0. contains vertex 5"):
        cut_workload(4, [([0, 5], [1])])
    with pytest.raises(ValueError, match="R .cut 1. contains vertex -1"):
        cut_workload(4, [([0], [1]), ([2], [-1])])
    with pytest.raises(TypeError, match="S"):
        cut_workload(4, [([0.5], [1])])
    with pytest.raises(ValueError, match="cuts"):
        cut_workload(4, [])
    with pytest.raises(ValueError, match="U"):
        RankOneWorkload(np.full((2, 3), 1.5), np.ones((2, 3)))
    with pytest.raises(ValueError, match="W"):
        RankOneWorkload(np.ones((2, 3)), np.full((2, 3), np.nan))
    with pytest.raises(ValueError, match="same shape"):
        RankOneWorkload(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(TypeError, match="U"):
        RankOneWorkload(np.full((2, 3), "a"), np.ones((2, 3)))
    with pytest.raises(ValueError, match="m"):
        random_cuts(5, 0)
    W = random_cuts(5, 3, 0)
    with pytest.raises(ValueError, match="A must be"):
        W.counts_from_adjacency(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="i"):
        W.query(3)


def test_bad_mechanism_and_oracle_input_is_rejected():
    g = random_graph(6, 0.5, 0)
    for bad, exc in [(0.0, ValueError), (-1.0, ValueError), (np.nan, ValueError), ("1", TypeError)]:
        with pytest.raises(exc, match="epsilon"):
            graph_randomized_response(g, epsilon=bad)
        with pytest.raises(exc, match="epsilon"):
            adjacency_randomized_response(g, epsilon=bad)
    with pytest.raises(TypeError, match="graph"):
        graph_randomized_response(g.weights, epsilon=1.0)
    with pytest.raises(TypeError, match="graph"):
        adjacency_randomized_response(g.weights, epsilon=1.0)
    with pytest.raises(ValueError, match="neighbours"):
        graph_randomized_response(g, epsilon=1.0, neighbours="node")
    with pytest.raises(ValueError, match="trials"):
        graph_randomized_response(g, epsilon=1.0, trials=0)
    with pytest.raises(TypeError, match="rng"):
        graph_randomized_response(g, epsilon=1.0, rng="seed")
    with pytest.raises(ValueError, match="sampler"):
        graph_randomized_response(g, epsilon=1.0, sampler=gaussian_noise)
    weighted = graph_database([[0, 1]], 3, weights=[0.5])
    with pytest.raises(ValueError, match="sampler .*lattice"):              # fractional cells are not on a lattice
        graph_randomized_response(weighted, epsilon=1.0, sampler=discrete_laplace)
    with pytest.raises(TypeError, match="sampler"):
        graph_randomized_response(g, epsilon=1.0, sampler=lambda s, n, r: np.zeros(n))
    noisy = graph_randomized_response(g, epsilon=1.0, rng=0)
    with pytest.raises(TypeError, match="workload"):
        noisy.counts(np.ones((2, 15)))
    with pytest.raises(ValueError, match="vertices"):
        noisy.counts(random_cuts(5, 2, 0))
    with pytest.raises(TypeError, match="noisy"):
        synthetic_graph(g)
    with pytest.raises(ValueError, match="one release"):
        synthetic_graph(graph_randomized_response(g, epsilon=1.0, trials=2, rng=0))
    for kw, name in [(dict(oracle="sdp"), "oracle"), (dict(scale="log"), "scale"), (dict(eta=-1.0), "eta"),
                     (dict(max_iter=0), "max_iter"), (dict(cuts_per_iter=0), "cuts_per_iter"), (dict(tol=0.0), "tol")]:
        with pytest.raises(ValueError, match=name):
            synthetic_graph(noisy, **kw)
    with pytest.raises(ValueError, match="V .21. must be <= 20"):
        synthetic_graph(graph_randomized_response(random_graph(21, 0.5, 0), epsilon=1.0, rng=0))
    with pytest.raises(TypeError, match="synthetic"):
        round_graph(noisy)
    with pytest.raises(ValueError, match="matrix"):
        cut_norm_exact(np.zeros((21, 21)))
    with pytest.raises(ValueError, match="matrix"):
        cut_norm_exact(np.full((3, 3), np.inf))
    with pytest.raises(ValueError, match="matrix"):
        cut_norm_exact(np.zeros((3, 4)))
    with pytest.raises(TypeError, match="matrix"):
        cut_norm_exact(np.full((3, 3), "a"))
    with pytest.raises(ValueError, match="scale"):
        cut_norm_exact(np.zeros((3, 3)), scale=np.zeros((4, 4)))
    with pytest.raises(ValueError, match="matrix"):
        cut_norm_reference(np.zeros((11, 11)))
    with pytest.raises(ValueError, match="matrix"):
        cut_norm_local_search(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="starts"):
        cut_norm_local_search(np.zeros((3, 3)), starts=-1)
    with pytest.raises(ValueError, match="matrix"):
        top_singular_value(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="matrix"):
        spectral_cut(np.full((3, 3), np.nan))


def test_bad_bound_input_is_rejected():
    with pytest.raises(ValueError, match="num_vertices"):
        th.num_pairs(1)
    with pytest.raises(ValueError, match="beta"):
        th.union_log_term(5, 1.5)
    with pytest.raises(ValueError, match="sigma2"):
        th.laplace_sum_deviation(0.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="log_term"):
        th.laplace_sum_deviation(1.0, 1.0, 1.0, np.nan)
    with pytest.raises(ValueError, match="q_max"):
        th.laplace_sum_deviation(1.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        th.rr_cut_error_bound(5, 0.0, 0.05)
    with pytest.raises(ValueError, match="neighbours"):
        th.rr_cut_error_bound(5, 1.0, 0.05, "node")
    with pytest.raises(ValueError, match="beta"):
        th.gru_cut_error_bound(5, 1.0, 0.0)
    with pytest.raises(ValueError, match="size_S must"):
        th.rr_size_error_bound(np.array([0]), np.array([1]), 5, 1.0, 0.05)
    with pytest.raises(ValueError, match="size_R must"):
        th.rr_size_error_bound(np.array([1]), np.array([6]), 5, 1.0, 0.05)
    with pytest.raises(ValueError, match="epsilon"):
        th.rr_size_error_table(5, np.inf, 0.05)
    with pytest.raises(ValueError, match="epsilon"):
        th.rr_rate(5, -1.0)
    with pytest.raises(ValueError, match="beta"):
        th.rounding_error_bound(5, 2.0)
    with pytest.raises(ValueError, match="^ratio"):
        th.synthetic_error_bound(1.0, 1.5)
    with pytest.raises(ValueError, match="^eta"):
        th.synthetic_error_bound(0.0)
    with pytest.raises(ValueError, match="delta"):
        th.mw_cut_rate(10, 5, 1.0, 0.0)
    with pytest.raises(ValueError, match="num_edges"):
        th.fk_cut_rate(0, 5, 1.0, 1e-6)
    with pytest.raises(TypeError, match="num_vertices"):
        th.fk_wins_edges("5")
    with pytest.raises(ValueError, match="alpha"):
        th.mw_cut_updates(0.0, 5)
    with pytest.raises(ValueError, match="num_edges"):
        th.fk_cut_updates(0.1, 5, -1)


# --- determinism ------------------------------------------------------------------------------------------------

def test_determinism():
    g1, g2 = random_graph(10, 0.3, 5), random_graph(10, 0.3, 5)
    assert np.array_equal(g1.weights, g2.weights) and not np.array_equal(g1.weights, random_graph(10, 0.3, 6).weights)
    assert np.array_equal(planted_partition(10, .8, .1, 1).weights, planted_partition(10, .8, .1, 1).weights)
    assert np.array_equal(random_cuts(10, 5, 3).U, random_cuts(10, 5, 3).U)
    a, b = (graph_randomized_response(g1, epsilon=1.0, trials=3, rng=7).weights for _ in range(2))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, graph_randomized_response(g1, epsilon=1.0, trials=3, rng=8).weights)
    assert np.array_equal(adjacency_randomized_response(g1, epsilon=1.0, rng=1).weights,
                          adjacency_randomized_response(g1, epsilon=1.0, rng=1).weights)
    noisy = graph_randomized_response(g1, epsilon=1.0, rng=7)
    s1, s2 = synthetic_graph(noisy, max_iter=5), synthetic_graph(noisy, max_iter=5)
    assert np.array_equal(s1.weights, s2.weights) and s1.history == s2.history
    assert np.array_equal(round_graph(s1, 4).weights, round_graph(s1, 4).weights)
    M = _sym(np.random.default_rng(0), 14)
    assert cut_norm_local_search(M, rng=3).value == cut_norm_local_search(M, rng=3).value
    assert spectral_cut(M).value == spectral_cut(M).value
    assert isinstance(s1, SyntheticGraph) and isinstance(noisy, NoisyGraph)


# --- widgets ------------------------------------------------------------------------------------------------------

def test_explorers_are_pure_and_validate():
    from dpbook.explorers.graphs import _circle_layout, explore_online, explore_randomized_response, figure_graph
    lines = lambda fig: [np.asarray(l.get_ydata(), dtype=float).tolist() for ax in fig.axes for l in ax.lines]
    heights = lambda fig: [p.get_height() for p in fig.axes[1].patches]     # axes 0: the graph and one release
    assert heights(explore_randomized_response(trials=10)) == heights(explore_randomized_response(trials=10))
    assert lines(explore_online(m=20)) == lines(explore_online(m=20))
    assert np.allclose(np.linalg.norm(_circle_layout(7), axis=1), 1.0)
    fig = figure_graph(np.ones((4, 4)) - np.eye(4), highlight=[True, False, False, True], title="K4")
    assert len(fig.axes[0].collections[0].get_segments()) == 6           # the 6 edges of K4, one line each
    plt.close("all")
    for kw, name in [(dict(epsilon=0), "epsilon"), (dict(num_vertices=30), "num_vertices"),
                     (dict(density=2.0), "density"), (dict(beta=0.0), "beta")]:
        with pytest.raises(ValueError, match=name):
            explore_randomized_response(**kw)
    for kw, name in [(dict(idc="Median"), "idc"), (dict(num_vertices=3), "num_vertices"), (dict(m=5), "m"),
                     (dict(density=0.0), "density")]:
        with pytest.raises(ValueError, match=name):
            explore_online(**kw)
    for kw, name in [(dict(adjacency=np.ones((3, 4))), "adjacency"), (dict(adjacency=np.eye(1)), "adjacency"),
                     (dict(adjacency=np.eye(4), highlight=[True, False]), "highlight")]:
        with pytest.raises(ValueError, match=name):
            figure_graph(**kw)


def test_chapter_figures_draw_what_they_are_given_and_validate():
    """Chapter 14's figures: each draws its data (the plotted values are the ones passed in), at most 2 panels,
    at most 900 px wide, and bad input is refused naming the argument."""
    from dpbook.explorers.graphs import (figure_cut_norm_sandwich, figure_ic, figure_lp, figure_online,
                                         figure_rr_cut_error, figure_two_graphs)
    from dpbook.plots import DPI, MAX_WIDTH_PX
    fig = figure_rr_cut_error([6, 8], [20.0, 30.0], [16], [70.0], [4.0, 6.0, 25.0], epsilon=1.0, beta=0.05)
    assert fig.axes[0].lines[0].get_ydata().tolist() == [20.0, 30.0]
    assert fig.axes[0].lines[-1].get_ydata().tolist() == [4.0, 6.0, 25.0]          # ½ on every pair, measured
    fig2 = figure_lp([(0.0, 36.0), (19.0, 19.0)], [27.3, 21.8, 24.0], trivial=66)
    assert [p.get_height() for p in fig2.axes[1].patches] == [27.3, 21.8, 24.0]
    fig3 = figure_two_graphs(np.ones((4, 4)) - np.eye(4), np.zeros((4, 4)), highlight=[True, False, False, True])
    fig4 = figure_cut_norm_sandwich({4: np.array([1.1, 1.2]), 6: np.array([1.3])}, {"a": (1.0, 2.0)})
    rows = [dict(n=n, mw=mw, fk=5, B_mw=100.0, B_mw_set=50.0, B_fk=80.0, rr={16.0: 3.0}, half=20.0,
                 priv={"MW": (np.array([8.0]), 0, 50.0), "FK": (np.array([20.0]), 1, 50.0)}) for n, mw in ((40, 7), (80, 0))]
    fig5 = figure_online(rows, num_pairs=780, epsilon=16.0, c=8, m=300)
    fig6 = figure_ic([1.0, 2.0], [6.9, 6.8], [16.0, 12.0], [12.0, 11.0], 6.86, [900.0, 450.0], num_pairs=28)
    for f in (fig, fig2, fig3, fig4, fig5, fig6):
        assert len(f.axes) <= 2 and f.get_size_inches()[0] * DPI <= MAX_WIDTH_PX
    plt.close("all")
    with pytest.raises(ValueError, match="q95_exact"):
        figure_rr_cut_error([6, 8], [20.0], [16], [70.0], [4.0, 6.0, 25.0])
    with pytest.raises(ValueError, match="half"):
        figure_rr_cut_error([6, 8], [20.0, 30.0], [16], [70.0], [4.0, -1.0, 25.0])
    with pytest.raises(ValueError, match="history"):
        figure_lp([], [1.0, 2.0, 3.0], trivial=66)
    with pytest.raises(ValueError, match="errors"):
        figure_lp([(0.0, 1.0)], [1.0, 2.0], trivial=66)
    with pytest.raises(ValueError, match="left"):
        figure_two_graphs(np.ones((4, 4)), np.ones((3, 3)))
    with pytest.raises(TypeError, match="ratios"):
        figure_cut_norm_sandwich({}, {"a": (1.0, 2.0)})
    with pytest.raises(TypeError, match="rows"):
        figure_online([], num_pairs=780, epsilon=16.0, c=8, m=300)
    with pytest.raises(ValueError, match="epsilons"):
        figure_ic([1.0], [6.9, 6.8], [16.0, 12.0], [12.0, 11.0], 6.86, [900.0, 450.0], num_pairs=28)
    plt.close("all")


def test_variance_proxy_of_a_cut_used_by_the_bounds():
    """IDC §6.1 derivation: a cut's coefficients satisfy Σ q_e² = |S||T| + k² - 2k (k = |S ∩ T|) <= min(2|S||T|, 4N)."""
    rng = np.random.default_rng(10)
    V = 9
    for _ in range(200):
        S, T = np.flatnonzero(rng.random(V) < 0.5), np.flatnonzero(rng.random(V) < 0.5)
        if not (S.size and T.size):
            continue
        q = cut_workload(V, [(S, T)]).query(0)
        s, t, k = S.size, T.size, np.intersect1d(S, T).size
        assert (q ** 2).sum() == s * t + k * k - 2 * k <= min(2 * s * t, 4 * th.num_pairs(V))
        assert q.max() <= 2 and (k >= 2 or q.max() <= 1)


# --------------------------------------------------------------------------- IDC-Cor7.4 and IDC-Table1

def test_ic_cut_error_bound_by_hand():
    # |V| = 8, |E| = 14, ε = 1, δ = 0: α* is so large that B(α*/2) = 1, ε0 = ε/2, and the distinguisher term
    # 8F = 16 (8 ln 4 + ln(2/β))/(ε0 n) dominates the noise term 8 ln(2/β)/(ε0 n): bound = 2n α* = 64 (8 ln 4 + ln 40)/ε
    assert th.ic_cut_error_bound(8, 14, 1.0, 0.0, 0.05) == pytest.approx(64 * (8 * math.log(4) + math.log(40)), rel=1e-9)
    assert th.ic_mw_cut_alpha(8, 14, 1.0, 0.0, 0.05) == pytest.approx(32 * (8 * math.log(4) + math.log(40)) / 14,
                                                                      rel=1e-9)
    # a large dense graph: B(α*/2) = 18 rounds; α* is the crossing of Thm 7.3's condition (fixed point, from above)
    a = th.ic_mw_cut_alpha(1000, 249750, 1.0, 0.0, 0.05)
    assert math.floor(16 * math.log(th.num_pairs(1000)) / a ** 2) == 18
    assert th._ic_condition(a, 1000, 249750, 1.0, 0.0, 0.05) <= a
    assert th._ic_condition(a * 0.999, 1000, 249750, 1.0, 0.0, 0.05) > a * 0.999
    with pytest.raises(ValueError, match="epsilon"):
        th.ic_cut_error_bound(10, 20, 1.0, 1e-6, 0.05)         # Thm 7.2's advanced composition needs ε < 1
    with pytest.raises(ValueError, match="num_edges"):
        th.ic_cut_error_bound(10, 46, 0.5, 0.0, 0.05)


def test_ic_synthetic_graph_within_cor74_bound():
    # IDC-Cor7.4 on |V| = 6 (all 4^6 halved cuts), pure DP, fixed seed: with probability >= 1-β (β = 0.05) every
    # run's largest cut error is within the bound; the halved workload's error, doubled, is the exact cut norm.
    from dpbook.idc import iterative_construction
    g = random_graph(6, 0.5, 11)
    x, n, N = g.histogram(), g.num_edges, th.num_pairs(6)
    masks = ((np.arange(64)[:, None] >> np.arange(6)) & 1).astype(float)
    W = RankOneWorkload(np.repeat(masks, 64, axis=0) / 2, np.tile(masks, (64, 1)))
    rel = iterative_construction(x, W, rule=MultiplicativeWeightsIDC(N, 0.15), epsilon=1.0, delta=0.0, rounds=4,
                                 trials=10, rng=5)
    err = 2 * n * np.abs(rel.answers - W.counts(x) / n).max(axis=1)
    assert np.all(err <= th.ic_cut_error_bound(6, n, 1.0, 0.0, 0.05))
    D = adjacency_from_weights(n * rel.trace["hypothesis"], 6) - g.adjacency()
    assert np.allclose(cut_norm_exact(D).value, err)
    assert rel.neighbours == "replace-one"


def test_cut_bound_rows():
    rows = th.cut_bound_rows([(12, 33, 1.0), (1000, 4000, 1.0)], 0.05)
    r = rows[0]
    assert r["trivial"] == 132 and r["rr"] == th.rr_cut_error_bound(12, 1.0, 0.05)
    assert r["lp"] == 2 * r["rr"] and r["rounded"] == pytest.approx(2 * r["rr"] + th.rounding_error_bound(12, 0.05))
    assert r["ic"] == th.ic_cut_error_bound(12, 33, 1.0, 0.0, 0.05)
    assert rows[1]["ic"] < rows[1]["rr"]                        # sparse and large: the IC bound is the smallest
    with pytest.raises(ValueError, match="num_vertices"):
        th.cut_bound_rows([(1, 1, 1.0)], 0.05)
    with pytest.raises(ValueError, match="beta"):
        th.cut_bound_rows([(12, 33, 1.0)], 1.5)


# --- GraphDatabase validates every construction -------------------------------------------------------------

@pytest.mark.parametrize("args, err, match", [
    ((3, [5.0, 0.0, 0.0]), ValueError, r"weights\[0\] \(5.0\) must lie in \[0, 1\]"),
    ((3, [-0.5, 0.0, 0.0]), ValueError, r"weights\[0\] \(-0.5\)"),
    ((3, [np.nan, 0.0, 0.0]), ValueError, r"weights\[0\] \(nan\) must be a finite number"),
    ((3, [0.0, np.inf, 0.0]), ValueError, r"weights\[1\] \(inf\)"),
    ((3, [0.0, 0.0, -np.inf]), ValueError, r"weights\[2\] \(-inf\)"),
    ((3, [1.0, 0.0]), ValueError, r"weights must have shape \(3,\), one per pair of the 3 vertices"),
    ((3, np.zeros((1, 3))), ValueError, r"shape \(3,\)"),
    ((3, [[0, 1], [0]]), ValueError, "weights must be a rectangular array"),
    ((3, ["a", "b", "c"]), TypeError, "weights must be real numbers"),
    ((3, [0, 0, 1j]), TypeError, "weights"),
    ((3, [True, False, True]), TypeError, "weights"),
    ((-1, []), ValueError, r"num_vertices \(-1\)"),
    ((1, []), ValueError, "num_vertices"),
    ((3.0, [0.0, 0.0, 0.0]), TypeError, "num_vertices"),
    ((True, [0.0]), TypeError, "num_vertices"),
    ((10 ** 6, [0.0]), ValueError, "num_vertices"),
])
def test_graph_database_class_validates_like_graph_database(args, err, match):
    with pytest.raises(err, match=match):
        GraphDatabase(*args)


def test_graph_database_class_keeps_a_read_only_copy_and_accepts_numpy_integers():
    import dataclasses
    w = np.array([1, 0, 1])
    g = GraphDatabase(np.int64(3), w, "triangle minus one")
    assert g.num_vertices == 3 and type(g.num_vertices) is int and g.weights.dtype == np.float64
    w[0] = 5
    assert g.weights[0] == 1.0 and not g.weights.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        g.weights[0] = 5.0
    with pytest.raises(ValueError, match="weights"):
        dataclasses.replace(g, weights=np.array([5.0, 0.0, 0.0]))
    with pytest.raises(TypeError, match="name"):
        GraphDatabase(3, [0.0, 0.0, 0.0], 7)
    assert np.array_equal(graph_database([[0, 2]], np.int32(3)).weights, [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="edges must be a rectangular array"):
        graph_database([[0, 1], [2]], 3)
    with pytest.raises(ValueError, match=r"weights\[0\] \(5.0\)"):
        graph_database([[0, 1]], 3, [5.0])


def test_unvalidated_graph_twin_releases_a_weight_the_class_refuses():
    from dpbook.broken.graphs import graph_randomized_response_unvalidated
    noisy = graph_randomized_response_unvalidated(3, [np.nan, 0.0, 0.0], epsilon=1.0, rng=0)
    assert np.isnan(noisy.weights[0]) and noisy.epsilon == 1.0            # a NaN release claiming ε = 1
    with pytest.raises(ValueError, match="epsilon"):
        graph_randomized_response_unvalidated(3, [0.0, 0.0, 0.0], epsilon=-1.0)


def test_rank_one_workload_keeps_what_it_validated():
    """U and W are private read-only copies: the caller's arrays can change afterwards, the workload cannot."""
    from dpbook.graphs import RankOneWorkload
    U, W = np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]])
    Wk = RankOneWorkload(U, W)
    U[0, 0] = 7.0
    assert Wk.entry_range() == (0.0, 1.0) and Wk.l1_sensitivity() == 1.0
    with pytest.raises(ValueError, match="read-only"):
        Wk.U[0, 1] = 7.0


# --------------------------------------------------------------------------- the LP's verdict and its budget

def test_synthetic_graph_reports_its_verdict_and_warns_unless_converged():
    """``status`` says why the cutting planes stopped; anything but convergence also warns (the chapter and the
    caller see it).  Exact oracle on 8 vertices: converged, silent; one LP: ``max_iter``, a warning."""
    import warnings as w
    from dpbook.graphs import graph_randomized_response, random_graph, synthetic_graph
    noisy = graph_randomized_response(random_graph(8, 0.5, rng=3), epsilon=1.0, rng=4)
    with w.catch_warnings():
        w.simplefilter("error")
        done = synthetic_graph(noisy)
    assert done.converged and done.status == "converged"
    with pytest.warns(RuntimeWarning, match="max_iter"):
        cut = synthetic_graph(noisy, max_iter=1)
    assert not cut.converged and cut.status == "max_iter" and cut.iterations == 1


def test_synthetic_graph_stall_rule_stops_where_the_lp_value_creeps():
    """Local-search oracle, uniform scaling, a random graph on 30 vertices: with ``patience = 3`` the run stops as ``stalled`` exactly at
    the first LP where the value rose by less than STALL_FRACTION of the remaining gap over 3 LPs (recomputed from
    the history), and not before; without the rule it runs on."""
    from dpbook.graphs import STALL_FRACTION, graph_randomized_response, random_graph, synthetic_graph
    noisy = graph_randomized_response(random_graph(30, 0.3, rng=1), epsilon=1.0, rng=5)
    with pytest.warns(RuntimeWarning, match="stalled"):
        res = synthetic_graph(noisy, oracle="local", patience=3, max_iter=60, rng=6)
    h = np.array(res.history)
    stalled = [k for k in range(3, len(h)) if h[k, 0] - h[k - 3, 0] < STALL_FRACTION * (h[k, 1] - h[k, 0])]
    assert res.status == "stalled" and stalled == [len(h) - 1]
    with pytest.warns(RuntimeWarning):
        longer = synthetic_graph(noisy, oracle="local", patience=100_000, max_iter=len(h) + 2, rng=6)
    assert longer.iterations > res.iterations and longer.history[:len(h)] == res.history


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-3, ValueError), (10 ** 9, ValueError), (2.5, TypeError),
                                        ("5", TypeError), (True, TypeError)])
def test_synthetic_graph_rejects_a_bad_patience(bad, error):
    from dpbook.graphs import graph_randomized_response, random_graph, synthetic_graph
    noisy = graph_randomized_response(random_graph(6, 0.5, rng=1), epsilon=1.0, rng=2)
    with pytest.raises(error, match="patience"):
        synthetic_graph(noisy, patience=bad)


def test_graph_figures_use_no_role_colour_for_vertices_and_black_for_the_true_graph():
    from matplotlib.colors import to_hex

    from dpbook.explorers.graphs import HIGHLIGHT, figure_two_graphs
    from dpbook.plots import ROLE_COLOURS, TRUTH
    A = np.ones((4, 4)) - np.eye(4)
    fig = figure_two_graphs(A, A, highlight=[True, False, False, True], highlight_label="one side")
    edges = fig.axes[0].collections[0].get_edgecolor()[0]
    assert to_hex(edges[:3]) == to_hex(TRUTH)
    assert to_hex(HIGHLIGHT) not in {to_hex(c) for c in ROLE_COLOURS.values()}
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["true edges", "released edges", "one side",
                                                                  "other vertices"]
    plt.close(fig)


# --- the fast paths agree with the plain ones ----------------------------------------------------------------------

def test_rank_one_answers_agree_on_every_path(monkeypatch):
    """The cached pair matrix, the per-row einsum and the V × V products give the universe form's answers; the
    cached matrix cannot be written."""
    import dpbook.graphs as G
    rng = np.random.default_rng(11)
    W = RankOneWorkload(rng.random((30, 9)), rng.random((30, 9)))
    P = rng.random((4, W.N))
    Q = W.matrix()
    picks = rng.integers(0, W.m, size=4)
    fast, at = W.apply(P), W.counts_at(P, picks)
    assert np.allclose(fast, P @ Q.T, rtol=1e-12) and np.allclose(at, np.einsum("tn,tn->t", P, Q[picks]), rtol=1e-12)
    assert W.entry_range() == (float(Q.min()), float(Q.max()))
    with pytest.raises(ValueError):
        W._pair_matrix()[0, 0] = 5.0
    monkeypatch.setattr(G, "PAIR_MATRIX_LIMIT", 10)                  # too large to keep: the V × V forms
    W2 = RankOneWorkload(W.U, W.W)
    assert W2._pair_matrix() is None
    assert np.allclose(W2.apply(P), fast, rtol=1e-12) and np.allclose(W2.counts_at(P, picks), at, rtol=1e-12)
    assert W2.entry_range() == W.entry_range()


def test_batched_cut_norms_and_blocked_products_are_the_same_numbers(monkeypatch):
    """cut_norm_exact on a batch (enumerated together, or in blocks) returns exactly the per-matrix values and sets,
    ties included (a zero matrix: every cut ties); products in one-thread blocks equal the single product."""
    import dpbook.graphs as G
    rng = np.random.default_rng(12)
    M = np.stack([_sym(rng, 7) for _ in range(9)])
    M[0] = 0.0
    for scale in ("uniform", "normalized"):
        batch = cut_norm_exact(M, scale=scale)
        one = [cut_norm_exact(Mi, scale=scale) for Mi in M]
        assert np.array_equal(batch.value, [o.value for o in one])
        assert np.array_equal(batch.S, [o.S for o in one]) and np.array_equal(batch.R, [o.R for o in one])
        monkeypatch.setattr(G, "BATCH_ROWS", 300)                    # two matrices per block
        blocked = cut_norm_exact(M, scale=scale)
        assert np.array_equal(blocked.value, batch.value) and np.array_equal(blocked.S, batch.S)
        monkeypatch.undo()
    S = (rng.random((500, 7)) < 0.5).astype(float)
    monkeypatch.setattr(G, "ONE_THREAD_PRODUCT", 49 * 64)             # blocks of 64 rows
    assert np.allclose(G._set_products(S, M[1]), S @ M[1], rtol=1e-13)


def test_local_search_reaches_the_exact_maximum_on_small_matrices():
    """Starts at a fixed point leave the batch; the search still finds the exact cut norm on these small matrices
    (a lower bound always: the value is a true cut's)."""
    rng = np.random.default_rng(13)
    for _ in range(10):
        M = _sym(rng, 10)
        ls, ex = cut_norm_local_search(M, rng=1), cut_norm_exact(M)
        assert ls.value <= ex.value + 1e-12
        assert ls.value == pytest.approx(float(np.abs(ls.S.astype(float) @ M @ ls.R.astype(float))))
    assert np.mean([cut_norm_local_search(M := _sym(rng, 10), rng=2).value >= cut_norm_exact(M).value - 1e-9
                    for _ in range(20)]) >= 0.9


def test_importing_the_graph_modules_does_not_load_scipy_optimize():
    """scipy.optimize (~0.3 s to import) is loaded by the cutting-plane LP when it runs, not by importing chapter
    14's modules; the control runs synthetic_graph's LP (can fail)."""
    import pathlib
    import subprocess
    import sys

    def loaded_after(statement):
        code = f"import sys\n{statement}\nprint(' '.join(m for m in sys.modules if m.startswith('scipy.')))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=pathlib.Path(__file__).resolve().parents[1])
        return set(out.stdout.split())

    loaded = loaded_after("import dpbook.graphs, dpbook.explorers.graphs, dpbook.comparisons.graphs")
    assert "scipy.linalg" in loaded and "scipy.optimize" not in loaded and "scipy.sparse.linalg" not in loaded
    assert "scipy.optimize" in loaded_after(
        "from dpbook.graphs import graph_randomized_response, random_graph, synthetic_graph\n"
        "g = random_graph(5, 0.5, rng=0)\n"
        "synthetic_graph(graph_randomized_response(g, epsilon=1.0, rng=0), max_iter=2)")
