"""Chapters 02 and 03: randomized response, the noisy histogram and their widget callbacks (budget: 100 ms)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time, panel_time  # noqa: E402
from dpbook.data import bootstrap, load_cancer  # noqa: E402
from dpbook.explorers.histogram import explore_histogram  # noqa: E402
from dpbook.explorers.randomized_response import explore_rr  # noqa: E402
from dpbook.data import pixels_histogram  # noqa: E402
from dpbook.histogram import histogram_mechanism  # noqa: E402
from dpbook.queries import random_queries  # noqa: E402
from dpbook.randomized_response import (  # noqa: E402
    person_bits, rr_linear_queries, rr_mechanism, subgroup_workload,
)


def main():
    data = load_cancer()
    x, bits = data.x, person_bits(data, "malignant")
    W = subgroup_workload()
    Q = np.random.default_rng(0).random((30, bits.size))
    big = bootstrap(x, 100_000, 0)
    rows = [
        ("rr_linear_queries n=569, 30 queries, trials=20000",
         best_time(lambda: rr_linear_queries(bits, Q, epsilon=1.0, trials=20_000, rng=0))),
        ("rr_mechanism n=569, 1161 subgroup queries, trials=500",
         best_time(lambda: rr_mechanism(x, W, epsilon=1.0, bit=10, trials=500, rng=0))),
        ("rr_mechanism n=100000 (bootstrap), 1161 queries, trials=500",
         best_time(lambda: rr_mechanism(big, W, epsilon=1.0, bit=10, trials=500, rng=0))),
    ]
    for d in (10, 16):
        xd = pixels_histogram(d)
        Wd = random_queries(100, xd.size, 0)
        rows.append((f"histogram_mechanism |X|=2^{d}, 100 queries, trials=200",
                     best_time(lambda: histogram_mechanism(xd, Wd, n=int(xd.sum()), epsilon=1.0, trials=200, rng=0))))

    def callback(fn):
        return lambda: plt.close(fn())

    def draw(fn):
        def run():
            fig = fn()
            fig.canvas.draw()
            plt.close(fig)
        return run
    rows.append(("explore_rr() at defaults (widget callback)", best_time(callback(explore_rr))))
    rows.append(("explore_rr() + draw", best_time(draw(explore_rr))))
    rows.append(("explore_histogram() at defaults (widget callback)", best_time(callback(explore_histogram))))
    rows.append(("explore_histogram() + draw", best_time(draw(explore_histogram))))
    rows.append(("explore_rr() + panel PNG (a slider move)", panel_time(explore_rr, epsilon=1.0)))
    rows.append(("explore_histogram() + panel PNG (a slider move)", panel_time(explore_histogram, epsilon=1.0)))
    print(f"{'what':62s} {'ms':>8s}")
    for name, t in rows:
        print(f"{name:62s} {1000 * t:8.1f}")


if __name__ == "__main__":
    main()
