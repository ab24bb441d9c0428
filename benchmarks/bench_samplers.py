"""Chapter 17 and the book's default noise: every sampler of ``dpbook.noise`` at 10^6 draws and scales 1, 10, 1000,
as a ratio against numpy's own sampler of the same family timed in the same run (``Generator.laplace`` for the
Laplace family, ``Generator.normal`` for the Gaussian family); then the floating-point-safe release, the support test
of Mironov's attack, an audit, and the widget callback at its defaults (budget: 100 ms).

``python -m benchmarks.bench_samplers --json benchmarks/samplers.json`` also stores the sampler table, which
``benchmarks/samplers.md`` and chapter 17 quote.  The whole run takes about a minute and a half: the two exact
(pure-Python) samplers take seconds per 10^6 draws, so they are timed once per scale, the others best of 3, all in
CPU time of this process (``time.process_time``), which other programs on a shared machine do not inflate.
"""
import argparse
import json
import platform
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time  # noqa: E402
from dpbook.audit import audit_cases  # noqa: E402
from dpbook.broken.floating_point import numpy_laplace_image  # noqa: E402
from dpbook.explorers.auditing import explore_audit  # noqa: E402
from dpbook.laplace import grid_laplace_release  # noqa: E402
from dpbook.noise import (discrete_gaussian, discrete_gaussian_exact, discrete_laplace, discrete_laplace_exact,  # noqa: E402
                          gaussian_noise, grid_laplace, laplace_noise)

DRAWS = 1_000_000
SCALES = (1.0, 10.0, 1000.0)
#: (name, sampler, family, exact?) — family picks numpy's reference sampler.
SAMPLERS = [("laplace_noise", laplace_noise, "laplace", False),
            ("grid_laplace", grid_laplace, "laplace", False),
            ("discrete_laplace", discrete_laplace, "laplace", False),
            ("discrete_laplace_exact", discrete_laplace_exact, "laplace", True),
            ("gaussian_noise", gaussian_noise, "gaussian", False),
            ("discrete_gaussian", discrete_gaussian, "gaussian", False),
            ("discrete_gaussian_exact", discrete_gaussian_exact, "gaussian", True)]


def numpy_reference(family, scale, draws):
    """numpy's own sampler of ``family`` at ``scale`` (the baseline every ratio divides by)."""
    rng = np.random.default_rng(0)
    if family == "laplace":
        return lambda: rng.laplace(0.0, scale, draws)
    return lambda: rng.normal(0.0, scale, draws)


def sampler_table(draws=DRAWS, scales=SCALES, repeat=3):
    """CPU seconds per ``draws`` draws of every sampler and of numpy's reference, timed side by side at each scale
    (process time: a busy shared machine does not inflate it; every sampler here is single-threaded)."""
    rows = []
    for scale in scales:
        ref = {fam: best_time(numpy_reference(fam, scale, draws), repeat=repeat, clock=time.process_time)
               for fam in ("laplace", "gaussian")}
        for name, sampler, family, exact in SAMPLERS:
            t = best_time(lambda: sampler(scale, draws, 0), repeat=1 if exact else repeat, clock=time.process_time)
            rows.append(dict(sampler=name, family=family, exact=exact, scale=scale, draws=draws, seconds=t,
                             numpy_seconds=ref[family], ratio=t / ref[family]))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the sampler table to this file")
    a = ap.parse_args([] if argv is None else argv)
    rows = sampler_table()
    print(f"{'sampler':25s} {'scale':>7s} {'CPU ms / 10^6':>16s} {'numpy ms':>9s} {'÷ numpy':>9s}")
    for r in rows:
        print(f"{r['sampler']:25s} {r['scale']:7g} {1000 * r['seconds']:16.1f} {1000 * r['numpy_seconds']:9.1f} "
              f"{r['ratio']:9.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(draws=DRAWS, scales=list(SCALES), python=sys.version.split()[0], numpy=np.__version__,
                           machine=platform.machine(), rows=rows), f, indent=1)
            f.write("\n")

    other = []
    values = np.random.default_rng(0).uniform(0, 1, 1000)
    t = best_time(lambda: grid_laplace_release(values, sensitivity=1.0, epsilon=1.0, trials=100, rng=0))
    other.append(("grid_laplace_release: 1000 values x 100 trials", t))
    y = 1.0 + np.random.default_rng(1).laplace(0.0, 1.0, 100_000)
    other.append(("numpy_laplace_image: 100,000 values", best_time(lambda: numpy_laplace_image(y, 1.0))))
    (case,) = audit_cases(names=["textbook_noisy_count"])
    other.append(("audit of the textbook count, 100,000 runs per side", best_time(lambda: case.run(0), repeat=1)))

    def callback():
        plt.close(explore_audit())
    other.append(("explore_audit() at defaults (widget callback)", best_time(callback)))
    print(f"\n{'what':55s} {'ms':>9s}")
    for name, t in other:
        print(f"{name:55s} {1000 * t:9.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
