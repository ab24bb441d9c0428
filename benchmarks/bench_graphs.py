"""Chapter 14: run times of the graph-cut tools, with the measured error next to each bound (counts).

Rows:

* cut answers: 1000 random cuts on karate (V = 34) and on a 300-vertex graph, through the V × V adjacency;
* randomized response (IDC §6.1) on karate, 100 releases;
* the exact cut norm by enumeration (V = 12, 16) and the local-search heuristic (karate, V = 34) with its gap
  to σ₁ (normalised cut norm, IDC §6.2 Eq. (4));
* the cutting-plane LP (IDC-Lem6.2) with the exact oracle (V = 12) and the spectral oracle (karate): iterations,
  error of the synthetic graph on all cuts vs 2E;
* the two widget callbacks at their defaults (budget 100 ms).
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time  # noqa: E402
from dpbook.explorers.graphs import explore_online, explore_randomized_response  # noqa: E402
from dpbook.graphs import (cut_norm_exact, cut_norm_local_search, graph_randomized_response, load_graph,  # noqa: E402
                           random_cuts, random_graph, synthetic_graph, top_singular_value)
from dpbook.theory import graphs as th  # noqa: E402


def main():
    rows = []     # (what, seconds, measured, bound)
    karate = load_graph("karate")
    big = random_graph(300, 0.1, 0)
    for g in (karate, big):
        W = random_cuts(g.num_vertices, 1000, 1)
        rows.append((f"1000 cut answers, V={g.num_vertices}", best_time(lambda: W.counts(g.weights), repeat=5), "", ""))
    call = lambda: graph_randomized_response(karate, epsilon=1.0, trials=100, rng=2)
    rows.append(("randomized response, karate, 100 releases", best_time(call, repeat=5), "", ""))
    for V in (12, 16):
        g = random_graph(V, 0.5, 3)
        noisy = graph_randomized_response(g, epsilon=1.0, rng=4)
        D = noisy.adjacency() - g.adjacency()
        err = cut_norm_exact(D).value
        rows.append((f"exact cut norm (2^{V} sets S), V={V}", best_time(lambda: cut_norm_exact(D), repeat=3),
                     f"max cut error {err:.1f}", f"{th.rr_cut_error_bound(V, 1.0, 0.05):.1f} (β=0.05)"))
    noisy = graph_randomized_response(karate, epsilon=1.0, rng=5)
    D = noisy.adjacency() - karate.adjacency()
    ls = cut_norm_local_search(D, rng=6)
    lsn = cut_norm_local_search(D, scale="normalized", rng=6)
    rows.append(("local search, karate noise (uniform)", best_time(lambda: cut_norm_local_search(D, rng=6), repeat=3),
                 f">= {ls.value:.1f}", f"{th.rr_cut_error_bound(34, 1.0, 0.05):.1f}"))
    rows.append(("local search, karate noise (normalised)", best_time(
        lambda: cut_norm_local_search(D, scale="normalized", rng=6), repeat=3), f">= {lsn.value:.2f}",
        f"σ1 = {top_singular_value(D):.2f}"))
    g12 = random_graph(12, 0.5, 7)
    n12 = graph_randomized_response(g12, epsilon=1.0, rng=8)
    syn = synthetic_graph(n12, cuts_per_iter=32)
    rows.append(("LP + exact oracle, V=12", best_time(lambda: synthetic_graph(n12, cuts_per_iter=32), repeat=1),
                 f"{syn.iterations} LPs, err {cut_norm_exact(syn.adjacency() - g12.adjacency()).value:.1f}",
                 f"2E = {2 * th.rr_cut_error_bound(12, 1.0, 0.05):.1f}"))
    spec = synthetic_graph(noisy, oracle="spectral", scale="normalized", cuts_per_iter=32)
    rows.append(("LP + spectral oracle, karate (normalised)", best_time(
        lambda: synthetic_graph(noisy, oracle="spectral", scale="normalized", cuts_per_iter=32), repeat=1),
        f"{spec.iterations} LPs, s = {spec.lp_value:.2f}", f"σ1(W-Â) = {top_singular_value(spec.adjacency() - noisy.adjacency()):.2f}"))
    for f in (explore_randomized_response, explore_online):
        plt.close(f())
        rows.append((f"{f.__name__}() at defaults", best_time(lambda: plt.close(f()), repeat=3), "", "budget 100 ms"))
    print(f"{'what':46s} {'ms':>9s}   {'measured':32s} bound")
    for name, t, measured, bound in rows:
        print(f"{name:46s} {1000 * t:9.1f}   {measured:32s} {bound}")


if __name__ == "__main__":
    main()
