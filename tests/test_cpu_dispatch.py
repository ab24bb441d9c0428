"""The floating-point and determinism tests once more on numpy's other dispatch path (issue: CI on any CPU).

numpy picks SIMD kernels for ``np.log``/``np.exp``/… by the CPU it runs on, and OpenBLAS picks its kernels the
same way; on a CPU with AVX-512 they round differently in the last bit from the AVX2 kernels (and from the C
library's ``log``) for a fraction of inputs.  A test whose outcome depends on those bits passes on one machine
and fails on another.  This test re-runs the tests most exposed to that in a subprocess with numpy's AVX-512
kernels switched off (``NPY_DISABLE_CPU_FEATURES``) and OpenBLAS forced to its Haswell (AVX2) kernels, so both
paths run on any machine that has AVX-512; on one without it the two runs coincide, which is fine.

Same seed, same bytes on both paths: :func:`test_every_mechanism_gives_the_same_bytes_on_both_paths` runs every
function of dpbook that takes ``rng`` (the list of tests/test_determinism.py, with its valid calls) over a few
seeds, and MWEM's variants — whose multiplicative-weights update once went through ``np.exp`` and a BLAS dot
product, and differed in the last bit on about a quarter of the runs (``mwem``) and on every run
(``mwem_practical``) — over 60 seeds each, in two subprocesses (this environment and the other dispatch path),
and compares a digest of every output.
"""
import dataclasses
import functools
import hashlib
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
EXPOSED = ["tests/test_floating_point.py", "tests/test_determinism.py", "tests/test_discrete_noise.py",
           "tests/test_cpu_dispatch.py::test_log_agrees_with_the_c_library_to_one_ulp"]


def _available(features):
    from numpy._core._multiarray_umath import __cpu_features__
    return [f for f in features if __cpu_features__.get(f, False)]


def other_dispatch_env() -> dict:
    """This environment with numpy's AVX-512 kernels off and OpenBLAS on its AVX2 kernels."""
    env = dict(os.environ)
    off = _available(["X86_V4", "AVX512_ICL"])
    if off:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(off)
    env["OPENBLAS_CORETYPE"] = "Haswell"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def numpy_dispatch_env() -> dict:
    """This environment with numpy's AVX-512 kernels off (OpenBLAS left as it is): the other numpy path."""
    env = this_dispatch_env()
    off = _available(["X86_V4", "AVX512_ICL"])
    if off:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(off)
    return env


def this_dispatch_env() -> dict:
    """This environment as it is (numpy and OpenBLAS pick their kernels by the CPU), with the same path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def test_the_subprocess_really_runs_without_avx512():
    code = ("from numpy._core._multiarray_umath import __cpu_features__ as f; "
            "print(int(f.get('AVX512F', False) and f.get('X86_V4', False)))")
    out = subprocess.run([sys.executable, "-c", code], env=other_dispatch_env(), capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "0"


def test_exposed_tests_pass_on_the_other_dispatch_path():
    cmd = [sys.executable, "-m", "pytest", *EXPOSED, "-q", "-p", "no:cacheprovider", "-W", "error"]
    out = subprocess.run(cmd, cwd=ROOT, env=other_dispatch_env(), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_log_agrees_with_the_c_library_to_one_ulp():
    """What ``numpy_laplace_image``'s 8-ulp pre-filter assumes of the vectorised ``log`` (here and, via the
    subprocess above, on the other dispatch path): within 1 ulp of ``math.log`` (measured: 1 in 0.35% of
    inputs with AVX-512, 0 without)."""
    import math
    u = np.random.default_rng(0).random(200_000)
    for v in (u + u, (2.0 - u) - u):
        fast = np.log(v)
        exact = np.array([math.log(w) for w in v.tolist()])
        assert np.abs(fast.view(np.int64) - exact.view(np.int64)).max() <= 1


# --------------------------------------------------------------------------- same bytes for every mechanism

MWEM_SEEDS = range(60)           # the old update differed on ~27% (mwem) and 100% (mwem_practical) of runs:
#                                  a miss on all 60 has probability (1 - 0.26)^60 < 1e-7
OTHER_SEEDS = range(3)


def _update(digest, obj) -> None:
    """Feed the exact bytes of a nested output (arrays with dtype and shape, dataclasses, mappings, sequences,
    scalars, dpbook objects' attributes) into ``digest``."""
    import numpy as np
    import scipy.sparse as sp
    if isinstance(obj, np.random.Generator):
        obj = obj.random(4)
    if sp.issparse(obj):
        obj = obj.toarray()
    if isinstance(obj, (np.ndarray, np.generic)):
        arr = np.ascontiguousarray(obj)
        digest.update(f"{arr.dtype.str}{arr.shape}".encode())
        digest.update(arr.tobytes() if arr.dtype != object else repr(arr.tolist()).encode())
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        digest.update(type(obj).__name__.encode())
        for f in dataclasses.fields(obj):
            digest.update(f.name.encode())
            _update(digest, getattr(obj, f.name))
    elif isinstance(obj, dict):
        for key in sorted(obj, key=repr):
            digest.update(repr(key).encode())
            _update(digest, obj[key])
    elif isinstance(obj, (list, tuple)):
        digest.update(f"{type(obj).__name__}{len(obj)}".encode())
        for item in obj:
            _update(digest, item)
    elif isinstance(obj, float):
        digest.update(np.float64(obj).tobytes())
    elif hasattr(obj, "__dict__") and not callable(obj) and type(obj).__module__.startswith("dpbook"):
        digest.update(type(obj).__name__.encode())
        _update(digest, vars(obj))
    else:
        digest.update(repr(obj).encode())


def fingerprint(obj) -> str:
    digest = hashlib.sha256()
    _update(digest, obj)
    return digest.hexdigest()[:20]


def _mwem_calls():
    """MWEM's variants on a workload where the update has work to do (2-way marginals of {0,1}^6, a dense
    workload of fractional queries), one release each."""
    import numpy as np
    from dpbook.mwem import mwem, mwem_practical
    from dpbook.queries import MatrixWorkload, k_way_marginals
    data = np.random.default_rng(0)
    x = data.integers(0, 20, size=64)
    n = int(x.sum())
    marginals, dense = k_way_marginals(6, 2), MatrixWorkload(data.random((12, 64)))
    return {
        "mwem (marginals)": lambda rng: mwem(x, marginals, epsilon=1.0, T=5, n=n, rng=rng),
        "mwem (fractional queries, replay=2)": lambda rng: mwem(x, dense, epsilon=1.0, T=5, n=n, replay=2, rng=rng),
        "mwem_practical (marginal)": lambda rng: mwem_practical(x, marginals, epsilon=1.0, T=5, n=n, rng=rng),
        "mwem_practical (cell)": lambda rng: mwem_practical(x, marginals, epsilon=1.0, T=5, n=n, measure="cell",
                                                            rng=rng),
    }


def _object_calls():
    """The mechanisms without a conventional valid call (they take points, graphs, record sets; as in
    tests/test_ledger.py), with the seed as a parameter."""
    import numpy as np
    from dpbook.graphs import graph_randomized_response, random_graph
    from dpbook.smooth import per_query_laplace, smooth_summary
    from dpbook.sparse_project import (laplace_sparse_queries, random_sparse_queries, record_pool, sparse_project,
                                       sparse_project_gaussian, synthetic_records)
    X = np.linspace(-1, 1, 50)[:, None]
    pool = record_pool(64, 32, rng=7)
    D = synthetic_records(500, pool, rng=1)
    W = random_sparse_queries(20, 5, 2 ** 32, rng=2, pool=pool)
    ok = dict(epsilon=0.9, delta=1e-5, beta=0.1, s=5, m=20, n=D.n, ell=64, r=4)
    return {
        "dpbook.graphs.graph_randomized_response":
            lambda rng: graph_randomized_response(random_graph(9, 0.4, 0), epsilon=0.7, rng=rng),
        "dpbook.smooth.smooth_summary": lambda rng: smooth_summary(X, epsilon=0.7, K=2, rng=rng),
        "dpbook.smooth.per_query_laplace":
            lambda rng: per_query_laplace(X, [lambda P: P[:, 0] ** 2] * 3, epsilon=1.0, B=1.0, rng=rng),
        "dpbook.sparse_project.sparse_project": lambda rng: sparse_project(D, **ok, rng=rng),
        "dpbook.sparse_project.sparse_project_gaussian": lambda rng: sparse_project_gaussian(D, **ok, rng=rng),
        "dpbook.sparse_project.laplace_sparse_queries":
            lambda rng: laplace_sparse_queries(D, W, epsilon=1.0, n=D.n, rng=rng),
    }


#: functions with ``rng`` whose outputs are not releases: the chapters' experiments (error summaries, run times,
#: computed with BLAS products) and figures; the releases they summarise are fingerprinted on their own
NOT_RELEASES = ("dpbook.comparisons.", "dpbook.explorers.")


def print_fingerprints() -> None:
    """Print ``{"name/seed": digest}`` as JSON for every call: run in the two subprocesses."""
    sys.path.insert(0, str(TESTS))
    from test_determinism import DETERMINISTIC, RANDOM, _call
    import pytest
    out = {}
    for name, call in _mwem_calls().items():
        for seed in MWEM_SEEDS:
            out[f"{name}/{seed}"] = fingerprint(call(seed))
    for qualname in RANDOM:
        if qualname in DETERMINISTIC or qualname.startswith(NOT_RELEASES):
            continue
        for seed in OTHER_SEEDS:
            try:
                out[f"{qualname}/{seed}"] = fingerprint(_call(qualname, seed))
            except pytest.skip.Exception:
                break
    for qualname, call in _object_calls().items():
        for seed in OTHER_SEEDS:
            out[f"{qualname}/{seed}"] = fingerprint(call(seed))
    print(json.dumps(out))


@functools.cache
def _fingerprints(path: str) -> dict:
    env = {"this": this_dispatch_env, "numpy": numpy_dispatch_env, "numpy+blas": other_dispatch_env}[path]()
    code = "import test_cpu_dispatch as t; t.print_fingerprints()"
    env = dict(env, PYTHONPATH=os.pathsep.join([str(TESTS), env["PYTHONPATH"]]))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _differ(path: str) -> dict:
    """``{name: runs whose bytes differ}`` between this environment and ``path``."""
    here, there = _fingerprints("this"), _fingerprints(path)
    assert here.keys() == there.keys()
    differ = {}
    for key in here:
        if here[key] != there[key]:
            name = key.rsplit("/", 1)[0]
            differ[name] = differ.get(name, 0) + 1
    return differ


#: Mechanisms whose bytes depend on OpenBLAS's kernel choice (not on numpy's): the projection mechanism's solver
#: works through BLAS products and ``np.linalg.solve`` (dpbook/projection.py), whose summation order OpenBLAS
#: picks by the CPU (measured: 3 of 3 seeds differ with OPENBLAS_CORETYPE=Haswell on an AVX-512 machine).
BLAS_DEPENDENT = {"dpbook.projection.projection_mechanism": "solver through BLAS (projection.py)",
                  "dpbook.broken.projection.projection_single_query_sensitivity": "the same solver"}


def test_every_mechanism_gives_the_same_bytes_on_both_numpy_paths():
    from dpbook.audit import public_mechanisms
    here = _fingerprints("this")
    covered = {key.rsplit("/", 1)[0] for key in here}
    assert set(public_mechanisms()) <= covered, set(public_mechanisms()) - covered
    for name in ("mwem (marginals)", "mwem (fractional queries, replay=2)", "mwem_practical (marginal)",
                 "mwem_practical (cell)"):
        assert sum(key.rsplit("/", 1)[0] == name for key in here) == len(MWEM_SEEDS)
    differ = _differ("numpy")
    assert not differ, f"outputs that depend on numpy's dispatch path (name: runs that differ): {differ}"


def test_every_mechanism_but_the_known_ones_gives_the_same_bytes_with_other_blas_kernels():
    differ = _differ("numpy+blas")
    unexpected = {k: v for k, v in differ.items() if k not in BLAS_DEPENDENT}
    assert not unexpected, f"outputs that depend on the BLAS kernels (name: runs that differ): {unexpected}"


@pytest.mark.xfail(strict=True, reason="dpbook/projection.py solves through BLAS: its bytes depend on OpenBLAS's "
                                       "kernel choice (BLAS_DEPENDENT); remove this mark once it does not")
def test_the_projection_mechanism_gives_the_same_bytes_with_other_blas_kernels():
    differ = _differ("numpy+blas")
    assert not any(name in differ for name in BLAS_DEPENDENT), differ


def test_the_fingerprint_sees_the_last_bit():
    import numpy as np
    a = np.array([1.0, 2.0])
    b = a.copy()
    b[1] = np.nextafter(2.0, 3.0)
    assert fingerprint({"x": a}) != fingerprint({"x": b})
    assert fingerprint({"x": a}) == fingerprint({"x": a.copy()})
    assert fingerprint(a.astype(np.float32)) != fingerprint(a)
