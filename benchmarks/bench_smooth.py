"""Chapter 16: the smooth-query summary (SMOOTH-Alg1), one answer (SMOOTH-Alg2), and the widget at its defaults."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time, panel_time  # noqa: E402
from dpbook.explorers.smooth import explore_smooth  # noqa: E402
from dpbook.smooth import (answer_query, make_query, chebyshev_moments, chebyshev_moments_reference, smooth_summary,  # noqa: E402
                           synthetic_points)
from dpbook.theory.smooth import summary_degree  # noqa: E402


def main():
    rows = []
    for d, K, n in [(1, 1, 10 ** 5), (1, 1, 10 ** 6), (2, 4, 10 ** 5), (2, 4, 10 ** 6), (3, 6, 10 ** 5), (3, 6, 10 ** 6)]:
        X = synthetic_points(n, d, rng=0)
        J = summary_degree(n, d, K)
        rows.append((f"chebyshev_moments d={d} K={K} n={n:.0e} (J={J}, {J ** d} moments)",
                     best_time(lambda: chebyshev_moments(X, J), repeat=3)))
    X = synthetic_points(2000, 2, rng=0)
    rows.append(("chebyshev_moments_reference d=2 n=2000 J=8 (the definition)",
                 best_time(lambda: chebyshev_moments_reference(X, 8), repeat=3)))
    rows.append(("chebyshev_moments d=2 n=2000 J=8 (fast kernel)", best_time(lambda: chebyshev_moments(X, 8))))
    for d, K in [(1, 2), (2, 4), (3, 6)]:
        Y = synthetic_points(10 ** 5, d, rng=1)
        s = smooth_summary(Y, epsilon=1.0, K=K, trials=1000, rng=2)
        q = make_query("Gaussian bump", d, K)
        rows.append((f"answer_query d={d} J={s.degree_bound}, 1000 releases at once", best_time(lambda: answer_query(s, q))))

    def callback():
        plt.close(explore_smooth())
    rows.append(("explore_smooth() at defaults (widget callback)", best_time(callback)))
    rows.append(("explore_smooth() + panel PNG (a slider move)", panel_time(explore_smooth, epsilon=1.0)))
    print(f"{'what':70s} {'ms':>9s}")
    for name, t in rows:
        print(f"{name:70s} {1000 * t:9.2f}")
    np.testing.assert_(all(t > 0 for _, t in rows))


if __name__ == "__main__":
    main()
