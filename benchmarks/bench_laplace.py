"""Chapter 01: the Laplace mechanism batch and the widget callback at its defaults (budget: 100 ms)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from benchmarks._timing import best_time, panel_time  # noqa: E402
from dpbook.data import load_cancer  # noqa: E402
from dpbook.explorers.laplace import explore_laplace  # noqa: E402
from dpbook.queries import cancer_conjunctions  # noqa: E402
from dpbook.laplace import laplace_mechanism  # noqa: E402


def main():
    x = load_cancer().x
    rows = []
    for k, trials in [(55, 2000), (165, 2000), (55, 20_000)]:
        W = cancer_conjunctions(k)
        t = best_time(lambda: laplace_mechanism(x, W, n=int(x.sum()), epsilon=1.0, trials=trials, rng=0))
        rows.append((f"laplace_mechanism k={k}, trials={trials}", t))

    def callback():
        plt.close(explore_laplace())
    rows.append(("explore_laplace() at defaults (widget callback)", best_time(callback)))
    rows.append(("explore_laplace() + panel PNG (a slider move)", panel_time(explore_laplace, epsilon=1.0)))
    print(f"{'what':55s} {'ms':>8s}")
    for name, t in rows:
        print(f"{name:55s} {1000 * t:8.1f}")


if __name__ == "__main__":
    main()
