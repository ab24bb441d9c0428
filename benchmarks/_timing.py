"""A tiny timer shared by the benchmark scripts: best-of-r wall-clock seconds."""
import time


def best_time(fn, *, repeat: int = 5, number: int = 1) -> float:
    """Best of ``repeat`` runs of ``number`` calls, in seconds per call (the least-disturbed measurement)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best
