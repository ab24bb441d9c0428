"""Chapter 08: SmallDB's running time against |X| = N and the synthetic database's size n_y (db_size; erratum PROJ-E7).

|R| = C(N+n_y-1, n_y) candidates, each scored on m queries: the time grows like |R|·(N + m), i.e. like N^{n_y}.
Rows with |R| above dpbook.smalldb.MAX_RANGE_SIZE are refused by smalldb() and only extrapolated here.
"""
import math

import numpy as np

from benchmarks._timing import best_time
from dpbook.data import load_cancer, project_dataset
from dpbook.queries import MarginalWorkload, k_way_marginals, random_queries
from dpbook.smalldb import MAX_RANGE_SIZE, _multisets, exact_error_distribution, multisets, smalldb
from dpbook.theory.smalldb import log_range_size, range_size, smalldb_size, thm45_error_bound


def _time_row(N, s, m=20, n=1000):
    rng = np.random.default_rng(N * 100 + s)
    W = random_queries(m, N, rng)
    x = rng.multinomial(n, np.full(N, 1.0 / N))
    x[0] += 1                                                   # never empty
    enumerate_s = best_time(lambda: _multisets.__wrapped__(N, s), repeat=3)
    net = multisets(N, s)

    def release():                                              # one smalldb-style release on a cached range
        from dpbook.smalldb import net_mechanism
        net_mechanism(x, W, net, epsilon=1.0, rng=0)
    release_s = best_time(release, repeat=3)
    return enumerate_s, release_s


def main():
    print(f"SmallDB cost, m = 20 random queries, n = 1000 (refusal threshold |R| > {MAX_RANGE_SIZE:,})")
    print(f"{'N':>4s} {'n_y':>3s} {'|R|=C(N+n_y-1,n_y)':>18s} {'enumerate ms':>13s} {'release ms':>11s} {'ns/candidate':>13s}")
    per_candidate = []
    for N in (2, 4, 8, 16, 32, 64):
        for s in (2, 4, 8, 12, 16):
            R = range_size(N, s)
            if R > MAX_RANGE_SIZE:
                print(f"{N:4d} {s:3d} {R:18.3g} {'refused':>13s} {'':>11s} {'':>13s}")
                continue
            t_enum, t_rel = _time_row(N, s)
            per_candidate.append((t_enum + t_rel) / R)
            print(f"{N:4d} {s:3d} {R:18,d} {1000 * t_enum:13.1f} {1000 * t_rel:11.1f} {1e9 * (t_enum + t_rel) / R:13.0f}")

    big = [c for c, (N, s) in zip(per_candidate, [(N, s) for N in (2, 4, 8, 16, 32, 64) for s in (2, 4, 8, 12, 16)
                                                   if range_size(N, s) <= MAX_RANGE_SIZE]) if range_size(N, s) > 10 ** 5]
    cost = float(np.median(big)) if big else float(np.median(per_candidate))
    print(f"\nExtrapolated at {1e9 * cost:.0f} ns per candidate (median over |R| > 1e5; memory ignored):")
    print(f"{'instance':52s} {'n_y':>4s} {'log10 |R|':>10s} {'time':>16s}")
    data = load_cancer()
    for d, attrs in [(3, ("radius_high", "texture_high", "malignant")), (11, data.universe.attributes)]:
        W = MarginalWorkload(d, [c for k in (1, 2) for c in k_way_marginals(d, k).cells])
        N = 2 ** d
        alpha = thm45_error_bound(N, W.m, 1.0, data.n, 0.05)     # DR-Thm4.5's α at n = 569, ε = 1, β = 0.05
        for label, a in [(f"DR-Thm4.5 (α/2 = {alpha / 2:.3f})", alpha / 2), ("α = 0.5", 0.5)]:
            s = smalldb_size(W.m, a)
            log10_R = log_range_size(N, s) / math.log(10)
            seconds = cost * 10 ** log10_R
            when = f"{seconds:.3g} s" if seconds < 3.2e7 else f"{seconds / 3.15e7:.3g} years"
            print(f"{'cancer d=' + str(d) + ', m=' + str(W.m) + ', ' + label:52s} {s:4d} {log10_R:10.1f} {when:>16s}")

    x3 = project_dataset(data, ("radius_high", "texture_high", "malignant")).x
    W3 = MarginalWorkload(3, [c for k in (1, 2) for c in k_way_marginals(3, k).cells])
    t = best_time(lambda: exact_error_distribution(x3, W3, multisets(8, smalldb_size(12, 0.5)), epsilon=1.0))
    print(f"\nchapter widget core (exact error law, N=8, m=12, alpha=0.5): {1000 * t:.1f} ms")
    t = best_time(lambda: smalldb(x3, W3, epsilon=1.0, alpha=0.5, trials=2000, rng=0))
    print(f"smalldb(N=8, m=18, alpha=0.5, trials=2000): {1000 * t:.1f} ms")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from dpbook.explorers.exponential import explore_smalldb
    plt.close(explore_smalldb())                                  # fill the caches once, as the chapter does
    t = best_time(lambda: plt.close(explore_smalldb()))
    print(f"explore_smalldb() at defaults (chapter 08's widget callback, budget 100 ms): {1000 * t:.1f} ms")
    from benchmarks._timing import panel_time
    t = panel_time(explore_smalldb, epsilon=1.0)
    print(f"explore_smalldb() + panel PNG (a slider move): {1000 * t:.1f} ms")


if __name__ == "__main__":
    main()
