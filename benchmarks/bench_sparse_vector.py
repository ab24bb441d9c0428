"""Chapter 06: AboveThreshold, Sparse and NumericSparse (vectorised over trials), the exact first-j-⊥ integrals and
the audits of the broken variants.

The chapter's widget callback lives in the notebook; its data work (Sparse on the 165 cancer conjunctions,
300 runs, c = 3) is timed here as "explore_sparse data at defaults" (budget: 100 ms, the figure aside).
"""
import numpy as np

from benchmarks._timing import best_time, panel_time
from dpbook.audit.cases import sparse_vector as cases
from dpbook.broken import sparse_vector as broken
from dpbook.data import load_cancer
from dpbook.queries import conjunctions
from dpbook.sparse_vector import (_scan_queries, _scan_rounds, above_threshold_stream, empirical_alpha,
                                  numeric_sparse_stream, sparse_vector_stream)
from dpbook.theory.sparse_vector import first_j_bottom_log_ratio


def main():
    data = load_cancer()
    f = conjunctions(11, 3).answers(data.x)
    n = data.n
    rows = []
    for trials in (1000, 100_000):
        rows.append((f"above_threshold_stream m=165, trials={trials}", best_time(
            lambda: above_threshold_stream(f, threshold=0.4, epsilon=1.0, sensitivity=1 / n, trials=trials, rng=0))))
    for c in (3, 20):
        rows.append((f"sparse_vector_stream m=165, c={c}, trials=10000", best_time(
            lambda: sparse_vector_stream(f, threshold=0.3, c=c, epsilon=1.0, sensitivity=1 / n, trials=10_000, rng=0))))
    rows.append(("numeric_sparse_stream m=165, c=3, trials=10000", best_time(
        lambda: numeric_sparse_stream(f, threshold=0.3, c=3, epsilon=1.0, sensitivity=1 / n, trials=10_000, rng=0))))
    rng = np.random.default_rng(0)
    noisy, thresholds = f + rng.laplace(size=(2000, 165)), rng.laplace(size=(2000, 10))
    rows.append(("scan by rounds, 2000 x 165, c=10", best_time(lambda: _scan_rounds(noisy, thresholds))))
    rows.append(("scan by queries, 2000 x 165, c=10", best_time(lambda: _scan_queries(noisy, thresholds))))
    rows.append(("first_j_bottom_log_ratio j=1..40 (quad)", best_time(
        lambda: [first_j_bottom_log_ratio(j, 1.0) for j in range(1, 41)], repeat=3)))
    for name, pair in cases.CATCHING_PAIRS.items():
        case = cases.stream_audit_case(getattr(broken, name), pair, epsilon=2.0, trials=cases.CATCHING_TRIALS[name])
        rows.append((f"audit {name} ({cases.CATCHING_TRIALS[name]:,} trials)",
                     best_time(lambda: case.run(rng=0), repeat=1)))

    def explorer_data():
        runs = sparse_vector_stream(f, threshold=0.4, c=3, epsilon=1.0, sensitivity=1 / n, trials=300, rng=2026)
        empirical_alpha(runs, f), runs.above.mean(axis=0), runs.answered.mean(axis=0)
    rows.append(("explore_sparse data at defaults (m=165, c=3, 300 runs)", best_time(explorer_data)))
    from dpbook.explorers.sparse_vector import explore_sparse
    rows.append(("explore_sparse() + panel PNG (a slider move)", panel_time(explore_sparse, epsilon=5.0)))
    print(f"{'what':60s} {'ms':>8s}")
    for name, t in rows:
        print(f"{name:60s} {1000 * t:8.1f}")


if __name__ == "__main__":
    main()
