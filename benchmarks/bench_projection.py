"""Chapter 09: the projection onto K_Q (simplicial decomposition with a certified duality gap) against |X| and m.

Rows: 2-way marginals of {0,1}^d for d = 12, 16, 20 (|X| = 2^12 … 2^20, m = 264, 480, 760) and 3-way marginals
of {0,1}^12 (m = 1760), each at three noise levels in answer units: a realistic one (σ = 0.03), a large one
(σ = 0.3) and an enormous one (σ = 10^4, the noisy point far outside K_Q); the true answers come from a random
database.  Columns: seconds (best of 2), oracle calls (``rmatvec`` passes over the universe), support size of the
synthetic distribution, and the certified RMS distance to the exact projection ``sqrt(2 gap / m)``.  Plus the
widget callback ``explore_projection()`` at its defaults (budget 100 ms).  Timings on a shared 2-core machine.

Known slow case (not in the table, it takes minutes): 3-way marginals of {0,1}^16 (m = 4480) at σ = 0.03 needs
about 700 active rows, and each of Wolfe's active-set cycles re-solves a dense ~700×700 system (measured 14–114 s
depending on the machine's load; 0.5 s at σ = 0.3).  Rank-one Cholesky updates of ``G_S + 11ᵀ`` alone do
not fix it (tried, 35 s -> 38 s on a loaded machine): the affine hull of K_Q has dimension 16 + 120 + 560 = 696
here and the support 694, so most of Wolfe's cycles meet affinely dependent atoms (567 of 982 bordered systems
rank-deficient, measured) and fall back to the dense ridge/least-squares solve.  A rank-revealing update (QR
with column deletion, or a null-space step when the atoms are dependent) is what is needed.
"""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time  # noqa: E402
from dpbook.explorers.projection import explore_projection  # noqa: E402
from dpbook.projection import project_onto_hull  # noqa: E402
from dpbook.queries import k_way_marginals  # noqa: E402

CASES = [(12, 2), (16, 2), (20, 2), (12, 3)]
NOISE = [0.03, 0.3, 1e4]


def main():
    rng = np.random.default_rng(0)
    print(f"{'workload':<28}{'|X|':>9}{'m':>6}{'σ':>8}{'seconds':>9}{'oracle':>8}{'support':>9}{'cert. RMS':>11}")
    for d, k in CASES:
        W = k_way_marginals(d, k)
        y = W.answers(rng.integers(0, 3, size=W.N))
        for s in NOISE:
            y_tilde = y + s * rng.normal(size=W.m)
            out = {}
            t = best_time(lambda: out.setdefault("p", project_onto_hull(y_tilde, W)), repeat=2)
            p = out["p"]
            print(f"{f'{k}-way marginals, d={d}':<28}{W.N:>9}{W.m:>6}{s:>8.2g}{t:>9.3f}{p.iterations:>8}"
                  f"{p.support.size:>9}{math.sqrt(2 * p.gap / W.m):>11.1e}", flush=True)
    t = best_time(lambda: plt.close(explore_projection()), repeat=3)
    print(f"widget explore_projection() at defaults: {1000 * t:.0f} ms")


if __name__ == "__main__":
    main()
