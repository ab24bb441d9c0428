"""Chapter 13: the floating-point-safe samplers, the support test of Mironov's attack, an audit, and the widget
callback at its defaults (budget: 100 ms)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time  # noqa: E402
from dpbook.audit import audit_cases  # noqa: E402
from dpbook.explorers.auditing import explore_audit  # noqa: E402
from dpbook.broken.floating_point import numpy_laplace_image  # noqa: E402
from dpbook.noise import (discrete_gaussian, discrete_gaussian_exact, discrete_laplace, discrete_laplace_exact,  # noqa: E402
                          gaussian_noise, grid_laplace, laplace_noise)
from dpbook.laplace import grid_laplace_release  # noqa: E402


def main():
    rows = []
    for name, sampler, n in [("laplace (numpy, textbook)", laplace_noise, 100_000),
                             ("gaussian (numpy)", gaussian_noise, 100_000),
                             ("discrete_laplace (numpy geometric)", discrete_laplace, 100_000),
                             ("grid_laplace", grid_laplace, 100_000),
                             ("discrete_gaussian (vectorised CKS20)", discrete_gaussian, 100_000),
                             ("discrete_laplace_exact (CKS20, Python ints)", discrete_laplace_exact, 10_000),
                             ("discrete_gaussian_exact (CKS20, Python ints)", discrete_gaussian_exact, 10_000)]:
        t = best_time(lambda: sampler(3.0, n, 0))
        rows.append((f"{name}: {n:,} draws", t, 1e9 * t / n))
    values = np.random.default_rng(0).uniform(0, 1, 1000)
    t = best_time(lambda: grid_laplace_release(values, sensitivity=1.0, epsilon=1.0, trials=100, rng=0))
    rows.append(("grid_laplace_release: 1000 values x 100 trials", t, 1e9 * t / 100_000))
    y = 1.0 + np.random.default_rng(1).laplace(0.0, 1.0, 100_000)
    t = best_time(lambda: numpy_laplace_image(y, 1.0))
    rows.append(("numpy_laplace_image: 100,000 values", t, 1e9 * t / 100_000))
    (case,) = audit_cases(names=["textbook_noisy_count"])
    rows.append(("audit of the textbook count, 100,000 runs per side", best_time(lambda: case.run(0), repeat=1), None))

    def callback():
        plt.close(explore_audit())
    rows.append(("explore_audit() at defaults (widget callback)", best_time(callback), None))
    print(f"{'what':55s} {'ms':>9s} {'ns/draw':>9s}")
    for name, t, per in rows:
        print(f"{name:55s} {1000 * t:9.1f} {'' if per is None else f'{per:9.0f}'}")


if __name__ == "__main__":
    main()
