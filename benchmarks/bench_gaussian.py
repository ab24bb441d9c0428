"""Chapters 04 and 05: the Gaussian mechanism, the analytic calibration, the required-n search and the composition bounds.

The chapter's widget callback lives in the notebook; its data work (one workload of m = 64 random queries and
400 releases of each mechanism) is timed here as "explore_gaussian data at defaults" (budget: 100 ms).
"""
import math

import numpy as np

from benchmarks._timing import best_time, panel_time
from dpbook.data import load_cancer
from dpbook.experiments import required_n
from dpbook.gaussian import composed_laplace_mechanism, gaussian_mechanism
from dpbook.queries import k_way_marginals, random_queries
from dpbook.theory.composition import randomized_response_composition_epsilon
from dpbook.theory.gaussian import analytic_gaussian_sigma


def main():
    x = load_cancer().x
    W = k_way_marginals(11, 2)
    rows = []
    for trials in (2000, 20_000):
        rows.append((f"gaussian_mechanism m=220, trials={trials}",
                     best_time(lambda: gaussian_mechanism(x, W, n=int(x.sum()), epsilon=0.5, delta=1e-6, trials=trials, rng=0))))
    rows.append(("gaussian_mechanism analytic, m=220, trials=2000",
                 best_time(lambda: gaussian_mechanism(x, W, n=int(x.sum()), epsilon=2.0, delta=1e-6, calibration="analytic",
                                                      trials=2000, rng=0))))
    rows.append(("analytic_gaussian_sigma (bisection, rtol 1e-12)",
                 best_time(lambda: analytic_gaussian_sigma(1.0, 0.5, 1e-6))))
    rows.append(("composed_laplace_mechanism advanced, m=220, trials=2000",
                 best_time(lambda: composed_laplace_mechanism(x, W, n=int(x.sum()), epsilon=0.5, delta=1e-6, trials=2000, rng=0))))
    grid = np.unique(np.round(np.geomspace(20, 2_000_000, 83)).astype(np.int64))
    for m in (64, 512):
        Wm = random_queries(m, x.size, rng=0)
        rows.append((f"required_n gaussian m={m}, 1000 trials", best_time(
            lambda: required_n(gaussian_mechanism, x, Wm, alpha=0.05, beta=0.05, n_grid=grid, trials=1000, rng=0,
                               epsilon=0.5, delta=1e-6, sensitivity=math.sqrt(m)), repeat=3)))
    rows.append(("randomized_response_composition_epsilon k=10000",
                 best_time(lambda: randomized_response_composition_epsilon(0.1, 10_000, 1e-6))))

    def explorer_data():
        rng = np.random.default_rng(0)
        Wm = random_queries(64, x.size, rng)
        composed_laplace_mechanism(x, Wm, n=int(x.sum()), epsilon=0.5, trials=400, rng=rng)
        gaussian_mechanism(x, Wm, n=int(x.sum()), epsilon=0.5, delta=1e-6, sensitivity=8.0, trials=400, rng=rng)
    rows.append(("explore_gaussian data at defaults (m=64, 2x400 releases)", best_time(explorer_data)))
    from dpbook.explorers.gaussian import explore_gaussian
    rows.append(("explore_gaussian() + panel PNG (a slider move)", panel_time(explore_gaussian, epsilon=0.5)))
    print(f"{'what':60s} {'ms':>8s}")
    for name, t in rows:
        print(f"{name:60s} {1000 * t:8.1f}")


if __name__ == "__main__":
    main()
