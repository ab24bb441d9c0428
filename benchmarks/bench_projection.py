"""Chapter 13: the projection onto K_Q (fully corrective Frank–Wolfe with a certified duality gap) against |X| and m.

Rows: 2-way marginals of {0,1}^d for d = 12, 16, 20 (|X| = 2^12 … 2^20, m = 264, 480, 760) and 3-way marginals
of {0,1}^12 and {0,1}^16 (m = 1760 and 4480), each at three noise levels in answer units: a realistic one
(σ = 0.03), a large one (σ = 0.3) and an enormous one (σ = 10^4, the noisy point far outside K_Q); the true
answers come from a random database.  Columns: seconds (best of 2; 1 for the largest row), oracle calls
(``rmatvec`` passes over the universe = outer rounds), support size of the synthetic distribution, and the
certified RMS distance to the exact projection ``sqrt(2 gap / m)``.  Plus the widget callback
``explore_projection()`` at its defaults (budget 100 ms).  Timings on a shared 2-core machine: under the other
helpers' load they vary by 2–3x between runs.

The hard row is 3-way marginals of {0,1}^16 at σ = 0.03: the projection has about 700 atoms in a hull of affine
dimension 16 + 120 + 560 = 696, so the active atoms are affinely dependent.  Wolfe's active-set cycles (the
previous solver) re-solved a dense bordered system per dropped atom and took 14–114 s (64 s measured again just
before the change, load ~3); rank-one Cholesky updates did not help because the bordered systems are singular.
The small problem is now solved exactly by a pivoted Cholesky square root of its Gram matrix, non-negative least
squares with Σλ = 1 as a heavy row, and the constraint made exact on NNLS's support
(``projection._simplex_least_squares``); NNLS keeps its passive columns independent, so dependent atoms are no
trouble.  That row takes 4.7 s at light load, 6.5 s at load ~3 and 20 s at load ~10 (table below);
about 40% is NNLS (rebuilt from an empty passive set each round) and 40% the Gram products of the new atoms
(exact float32 for 0/1 atoms).  A warm-started NNLS is the next step if it matters.

Since then the small problem is solved by a warm-started primal active-set method (``projection._ActiveSet``:
the atoms, weights and Cholesky factor carry over between rounds; affinely dependent atoms are refused at the
pivot) and marginal Gram entries come from one table over ``r XOR s`` (``projection._MarginalGram``).  The row
``hard row, fast ÷ previous`` runs both solvers on the hard row in the same process and reports CPU seconds
(``time.process_time``; the machine is shared, so wall time is not the measurement) and their ratio, plus the
distance between the two answers against the sum of their certified distances.  Measured 2026-11-28 (load 3–5
on 2 cores, OPENBLAS_NUM_THREADS=1, the data of this script's seed 0): previous solver 12.0–13.3 s CPU, active
set 5.7–6.2 s CPU (ratio about 0.45), both certified (RMS ≤ 1.3e-7), 697 atoms, 10 oracle calls.

Then the active set's factor moved into a preallocated buffer (``projection._Factor``): an entering atom is one
triangular solve and a column written in place (no copy of the factor), a leaving atom is Givens rotations on
the rows below it only (``qr_delete`` on the trailing block, no ``p × p`` identity), and every solve is a
level-2 ``dtrsv`` (``cho_solve``'s level-3 calls with two right-hand sides spun OpenBLAS's threads).  Same
algorithm, same rounds, same atoms: the profile of the hard row had shown the oracle (``rmatvec``) and the Gram
tables below 3%, and 90% in the small problem's linear algebra (``cho_solve`` 2,291 calls, ``np.block`` re-copying
the factor on each of 3,057 entering atoms, ``qr_delete`` on a ``p × p`` identity for each of 2,361 leaving ones).
Previous active set ÷ this one, CPU seconds in one run (2026-11-28, load 4–6 on 2 cores, OPENBLAS_NUM_THREADS=1,
best of 3, 1 for the two hard-row solves; the seed-0 data of this script):

    workload               σ    previous   now    ratio   oracle / support (both)
    2-way, d=12         0.03      0.125   0.054   0.44     9 / 79
    2-way, d=12          0.3      0.040   0.023   0.57     7 / 44
    2-way, d=12        1e+04      0.002   0.002   (equal)  1 / 1
    2-way, d=16         0.03      0.259   0.153   0.59    14 / 137
    2-way, d=16          0.3      0.093   0.078   0.84    10 / 65
    2-way, d=16        1e+04      0.010   0.010   0.99     1 / 1
    2-way, d=20         0.03      1.566   1.196   0.76    20 / 211
    2-way, d=20          0.3      0.750   0.703   0.94    12 / 85
    2-way, d=20        1e+04      0.128   0.132   1.03     1 / 1
    3-way, d=12         0.03      0.449   0.216   0.48     5 / 299
    3-way, d=12          0.3      0.052   0.038   0.72     4 / 78
    3-way, d=12        1e+04      0.010   0.010   0.93     1 / 1
    3-way, d=16         0.03      6.466   2.427   0.38    11 / 697
    3-way, d=16          0.3      0.170   0.127   0.75     5 / 168
    3-way, d=16        1e+04      0.035   0.029   0.83     1 / 1
    hard row (seed 1)   0.03      7.43    2.85    0.38    11 / 697, certified RMS 1.1e-7

The answers of the two agree to 5e-11 or better (the certified distances are 1e-6 to 2e-5).  With OpenBLAS's
default threads the hard row fell from 29 s to 7.0 s CPU under the same load.  The σ = 10^4 rows (one oracle
call, 2–130 ms) were untouched: their ratios are the timer's noise.  The same run of this script:
``hard row, fast ÷ previous (CPU): 2.96 s / 13.62 s = 0.22`` against the NNLS solver.

Run it as ``OPENBLAS_NUM_THREADS=1 python -m benchmarks.bench_projection`` on a shared machine: with OpenBLAS's
default threads and other jobs running, the small dense factorisations spin and the same rows took 3–20x longer.

Measured (2026-11-24, OPENBLAS_NUM_THREADS=1), at light load (load average ~1.5) and, in brackets, under the
other helpers' load (5–10 on 2 cores):

    workload                          |X|     m       σ  seconds          oracle  support  cert. RMS
    2-way marginals, d=12            4096   264    0.03    0.008 (0.026)       9       79    3.0e-08
    2-way marginals, d=12            4096   264     0.3    0.004 (0.008)       7       44    1.4e-06
    2-way marginals, d=12            4096   264   1e+04    0.000 (0.000)       1        1    0.0e+00
    2-way marginals, d=16           65536   480    0.03    0.041 (0.113)      14      137    4.6e-08
    2-way marginals, d=16           65536   480     0.3    0.016 (0.030)      10       65    9.4e-09
    2-way marginals, d=16           65536   480   1e+04    0.001 (0.001)       1        1    3.5e-07
    2-way marginals, d=20         1048576   760    0.03    0.292 (0.845)      20      211    5.3e-08
    2-way marginals, d=20         1048576   760     0.3    0.141 (0.344)      12       85    1.3e-08
    2-way marginals, d=20         1048576   760   1e+04    0.026 (0.067)       1        1    0.0e+00
    3-way marginals, d=12            4096  1760    0.03    0.189 (0.481)       5      299    1.5e-07
    3-way marginals, d=12            4096  1760     0.3    0.021 (0.047)       4       78    1.1e-06
    3-way marginals, d=12            4096  1760   1e+04    0.009 (0.018)       1        1    0.0e+00
    3-way marginals, d=16           65536  4480    0.03    4.693 (20.39)      11      697    7.4e-08
    3-way marginals, d=16           65536  4480     0.3    0.543 (2.906)       5      168    1.4e-08
    3-way marginals, d=16           65536  4480   1e+04    0.147 (0.724)       1        1    2.3e-07
    widget explore_projection() at defaults: 20 ms (107 ms)

With OpenBLAS's default threads at light load the hard row took 4.9 s and the d = 20, σ = 0.03 row 2.7 s.
"""
import math
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time  # noqa: E402
from dpbook.explorers.projection import explore_projection  # noqa: E402
from dpbook.projection import _project_nnls, project_onto_hull  # noqa: E402
from dpbook.queries import k_way_marginals  # noqa: E402

CASES = [(12, 2), (16, 2), (20, 2), (12, 3), (16, 3)]
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
            t = best_time(lambda: out.setdefault("p", project_onto_hull(y_tilde, W)), repeat=1 if W.m > 4000 else 2)
            p = out["p"]
            print(f"{f'{k}-way marginals, d={d}':<28}{W.N:>9}{W.m:>6}{s:>8.2g}{t:>9.3f}{p.iterations:>8}"
                  f"{p.support.size:>9}{math.sqrt(2 * p.gap / W.m):>11.1e}", flush=True)
        if (d, k) == (16, 3):
            y_hard = y + NOISE[0] * np.random.default_rng(1).normal(size=W.m)
            hard_row(W, y_hard)
    t = best_time(lambda: plt.close(explore_projection()), repeat=3)
    print(f"widget explore_projection() at defaults: {1000 * t:.0f} ms")


def hard_row(W, y_tilde):
    """3-way marginals of {0,1}^16 at σ = 0.03: the active-set solver against the previous one, CPU seconds."""
    out = {}
    for name, fn in (("previous", _project_nnls), ("fast", project_onto_hull)):
        t = best_time(lambda: out.__setitem__(name, fn(y_tilde, W)), repeat=1, clock=time.process_time)
        out[name + " s"] = t
    a, b = out["fast"], out["previous"]
    print(f"hard row, fast ÷ previous (CPU): {out['fast s']:.2f} s / {out['previous s']:.2f} s = "
          f"{out['fast s'] / out['previous s']:.2f}; |Δ answers| = {np.linalg.norm(a.answers - b.answers):.1e} "
          f"<= {a.certified_distance + b.certified_distance:.1e} certified; oracle calls {a.iterations} / "
          f"{b.iterations}, support {a.support.size} / {b.support.size}", flush=True)


if __name__ == "__main__":
    main()
