"""Chapter 15: GF(2^κ) arithmetic, hash evaluations per second, SparseProject build/query time and peak memory.

Rows:

* ``gf_mul``: one million products in GF(2^42) and GF(2^63) — pure Python reference (per product, extrapolated
  from 20,000), the vectorised numpy kernel, and the registry's ``galois`` package when it is importable (it is
  not a dependency: install it into a throwaway target to compare, e.g.
  ``pip install --target /tmp/galois_pkgs galois`` and ``PYTHONPATH=/tmp/galois_pkgs``);
* hash evaluations per second: Horner at every point (``bits_reference``) against the block form
  (``PolynomialSignHash.project``: Taylor expansion + one exact GF(2) matrix product);
* ``sparse_project`` build time and peak traced memory against ``ℓ`` and ``n`` (2^32 universe), query time for
  ``m = 1000`` 10-sparse queries, and the measured max error against the practical bound;
* the large row: ``sparse_project`` over ``2^48`` records, ``n = 1e5`` rows (about 30,000 distinct), ``ℓ = 1e4``,
  ``r = 8`` (``GF(2^62)``, ``r·κ = 496``): CPU seconds (``time.process_time``, so other jobs on a shared machine
  do not inflate it much) and peak traced memory (``tracemalloc``) of the whole release, and of the projection
  ``A D`` alone with ``PolynomialSignHash.project`` against the one-block reference ``_project_reference`` in
  the same run (the ratio is the measurement; the two agree byte for byte);
* chapter 15's widget callback at its defaults (budget: 100 ms).

Where the memory of the large row goes (tracemalloc; MiB = 2^20 bytes):

* the ``ℓ × r·κ`` row-bit matrix ``L`` (float32, cached on the hash): 10,000 × 496 × 4 B = 18.9 MiB (19.5 MiB
  traced while it is built);
* the reference builds each run of ``_BLOCK = 4M`` entries of ``A`` at once (``ℓ × 419`` elements): the float32
  product (16 MiB), its int32 bits (16 MiB), the float64 signs (32 MiB) and the contiguous copy of their transpose
  that the sparse product makes (32 MiB) — 81 MiB traced on top of ``L`` (98 MiB with the int64 bits the
  previous ``project`` took), 132 MiB for the whole release;
* ``project`` builds the same run in row ranges of ``_ROWS_BLOCK = 512K`` entries: 2 + 2 + 4 + 4 MiB, 16 MiB
  traced on top of ``L``; the database's unique records, their sparse matrix and ``u`` are below 3 MiB.

Measured (2026-11-28, OPENBLAS_NUM_THREADS=1, load average 2–5 on 2 cores, seeds: records ``record_pool(256, 48,
rng=7)``, ``synthetic_records(1e5, …, rng=2026)``, hash ``rng=1``): release 9.8 s CPU and 35.0 MiB peak (+40 MiB
RSS), before 9.6 s and 132.3 MiB (+148 MiB RSS); in one run of ``_large_rows()``: release 10.0 s / 35.0 MiB,
the projection alone 7.4 s / 15.8 MiB against the reference's 9.7 s / 81.2 MiB (CPU ratio 0.77, memory ratio
0.19).  CPU seconds vary by about 1.5x with the load (5.6 s was measured for the release on a quieter machine);
the ratios are the measurement.
"""
import time
import tracemalloc

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time, panel_time  # noqa: E402
from dpbook.data import record_catalogue as catalogue  # noqa: E402
from dpbook.explorers.sparse_project import explore_sparse_project  # noqa: E402
from dpbook.hashing import PolynomialSignHash, gf_mul, gf_mul_reference, irreducible_polynomial  # noqa: E402
from dpbook.sparse_project import (error_decomposition, random_sparse_queries, record_pool,  # noqa: E402
                                   sparse_project, synthetic_records)

N32 = 1 << 32


def _field_rows(rng):
    rows = []
    for width in (42, 63):
        a = rng.integers(0, 1 << width, size=1_000_000, dtype=np.uint64)
        b = rng.integers(0, 1 << width, size=1_000_000, dtype=np.uint64)
        t0 = time.perf_counter()
        for x, y in zip(a[:20_000].tolist(), b[:20_000].tolist()):
            gf_mul_reference(x, y, width)
        rows.append((f"gf_mul 1e6 products, GF(2^{width}): pure Python reference (extrapolated)",
                     (time.perf_counter() - t0) * 50))
        rows.append((f"gf_mul 1e6 products, GF(2^{width}): numpy uint64 kernel", best_time(lambda: gf_mul(a, b, width), repeat=3)))
        try:
            import galois
        except ImportError:
            rows.append((f"gf_mul 1e6 products, GF(2^{width}): galois not installed", float("nan")))
            continue
        GF = galois.GF(2 ** width, irreducible_poly=galois.Poly.Int(irreducible_polynomial(width)), verify=False)
        A, B = GF(a.astype(np.int64)), GF(b.astype(np.int64))
        ok = np.array_equal(np.asarray(A[:2000] * B[:2000]).astype(np.uint64), gf_mul(a[:2000], b[:2000], width))
        rows.append((f"gf_mul 1e6 products, GF(2^{width}): galois {galois.__version__} "
                     f"({'agrees' if ok else 'DISAGREES with the reference'})", best_time(lambda: A * B, repeat=3)))
    return rows


def _hash_rows():
    rows = []
    for ell, r in ((1024, 8), (4096, 8), (1024, 28)):
        f = PolynomialSignHash.sample(r, ell, N32, rng=1)
        cols = np.unique(np.random.default_rng(2).integers(0, N32, size=2000, dtype=np.int64))
        ones = np.array([0, cols.size])
        fast = best_time(lambda: f.project(ones, cols, np.ones(cols.size)), repeat=3)
        few = cols[:20]
        slow = best_time(lambda: f.bits_reference(np.arange(ell), few), repeat=3)
        rows.append((f"hash evals/s, ℓ={ell}, r={r}: Horner at every point (millions)", ell * few.size / slow / 1e6))
        rows.append((f"hash evals/s, ℓ={ell}, r={r}: block form incl. the projection (millions)",
                     ell * cols.size / fast / 1e6))
    return rows


def _build_rows():
    rows = []
    pool = catalogue()
    W = random_sparse_queries(1000, 10, N32, rng=11, pool=pool)
    for n in (2000, 20000):
        D = synthetic_records(n, pool, rng=2026)
        for ell in (256, 1024, 4096):
            kwargs = dict(epsilon=1.0, delta=1e-5, beta=0.1, s=10, m=1000, n=n, ell=ell, r=8)
            build = best_time(lambda: sparse_project(D, rng=1, **kwargs), repeat=2)
            tracemalloc.start()
            release = sparse_project(D, rng=1, **kwargs)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            query = best_time(lambda: release.evaluate(W), repeat=2)
            jl, noise, _ = error_decomposition(release, D, W)
            rows.append((f"n={n} ({D.indices.size} distinct), ℓ={ell}: build s / peak MB / query s (m=1000) / "
                         f"max error", (build, peak / 2 ** 20, query, float(np.abs(jl + noise).max()))))
    return rows


def _peak(fn):
    """(CPU seconds, peak traced MiB) of one call."""
    tracemalloc.start()
    t0 = time.process_time()
    fn()
    seconds = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2 ** 20


def _large_rows():
    """2^48 records, n = 1e5, ℓ = 1e4, r = 8: the whole release, then the projection against its reference."""
    D = synthetic_records(100_000, record_pool(256, 48, rng=7), bits=48, rng=2026)
    kwargs = dict(epsilon=1.0, delta=1e-5, beta=0.1, s=10, m=1000, n=D.n, ell=10_000, r=8)
    seconds, peak = _peak(lambda: sparse_project(D, rng=1, **kwargs))
    rows = [(f"2^48, n=1e5 ({D.indices.size} distinct), ℓ=1e4, r=8: release CPU s / peak MiB", (seconds, peak))]
    args = (np.array([0, D.indices.size]), D.indices, D.counts.astype(np.float64))
    measured = {}
    for name in ("project", "_project_reference"):
        f = PolynomialSignHash.sample(8, 10_000, 1 << 48, rng=1)
        f._all_row_bits()                                   # the ℓ × r·κ row bits, shared by both (18.9 MiB)
        measured[name] = _peak(lambda: getattr(f, name)(*args))
        rows.append((f"  projection A D alone ({name}), row bits cached: CPU s / peak MiB", measured[name]))
    (s1, m1), (s0, m0) = measured["project"], measured["_project_reference"]
    rows.append(("  project ÷ one-block reference (same run): CPU / peak memory", (s1 / s0, m1 / m0)))
    return rows


def main():
    rng = np.random.default_rng(0)
    rows = _field_rows(rng) + _hash_rows() + _build_rows() + _large_rows()
    rows.append(("widget explore_sparse_project() at defaults (s)", best_time(lambda: plt.close(explore_sparse_project()),
                                                                            repeat=3)))
    rows.append(("widget explore_sparse_project() + panel PNG (a slider move) (s)",
                 panel_time(explore_sparse_project, epsilon=1.0, repeat=3)))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        text = " / ".join(f"{v:.3g}" for v in value) if isinstance(value, tuple) else f"{value:.3g}"
        print(f"{name.ljust(width)}  {text}")


if __name__ == "__main__":
    main()
