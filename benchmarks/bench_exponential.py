"""Chapter 07: the exponential mechanism and report-noisy-max against the number of candidates |R| and the batch size.

Both draw one Gumbel (or Laplace) variate per candidate and run: the cost is linear in |R| × trials.
"""
import numpy as np

from benchmarks._timing import best_time
from dpbook.exponential import exponential_mechanism, exponential_probabilities, report_noisy_max


def main():
    print(f"{'|R|':>8s} {'trials':>7s} {'exponential ms':>15s} {'noisy max ms':>13s} {'probabilities ms':>17s}")
    for size in (10, 1_000, 100_000):
        scores = np.random.default_rng(size).random(size)
        for trials in (1, 100):
            expo = best_time(lambda: exponential_mechanism(scores, epsilon=1.0, sensitivity=1.0, trials=trials, rng=0))
            rnm = best_time(lambda: report_noisy_max(scores, epsilon=1.0, sensitivity=1.0, trials=trials, rng=0))
            prob = best_time(lambda: exponential_probabilities(scores, epsilon=1.0, sensitivity=1.0))
            print(f"{size:8d} {trials:7d} {1e3 * expo:15.3f} {1e3 * rnm:13.3f} {1e3 * prob:17.3f}")


if __name__ == "__main__":
    main()
