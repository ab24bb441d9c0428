"""adaptive_marginals' two compiled pieces together (the optional ``speed`` extra: dpbook._estimator_numba, the
estimator; dpbook._component_numba, the component model's sweeps and tables): whole runs give one digest with the
kernels and without them, built for this CPU and for numba's generic one, with numpy's AVX-512 kernels and without;
and problems below the public rule's d never import them or numba.  Each piece's own bytes are checked in
tests/test_estimator_numba.py and tests/test_component_numba.py."""
import tempfile

import pytest
from python_subprocess import cpu_features_off, run_python

_RUNS = """
import hashlib, sys, numpy as np
from benchmarks.peers.run import load
from dpbook.mwem import adaptive_marginals
from dpbook.queries import k_way_marginals
h = hashlib.sha256()
for name, seeds in (("digits", range(5)), ("cancer", range(5)), ("synthetic", range(1))):
    rows, x = load(name)
    W = k_way_marginals(rows.shape[1], 2)
    for kw in ({}, {"delta": 1e-6}):
        for s in seeds:
            r = adaptive_marginals(x, W, epsilon=1.0, n=int(x.sum()), rng=s, **kw)
            h.update(np.asarray(r.answers).tobytes())
print("dpbook._estimator_numba" in sys.modules, "dpbook._component_numba" in sys.modules, h.hexdigest())
"""


def test_whole_runs_have_one_digest():
    """digits (d = 16: the component model, both kernels), cancer (d = 11: the table) at seeds 0-4 and the synthetic
    d = 20 data (the junction tree and the compiled estimator) at seed 0, both variants: one digest of the answers
    with the kernels (this CPU's build and numba's generic x86-64 one, which has no FMA), without them
    (``DPBOOK_NUMBA=0``), and with numpy's AVX-512 kernels off."""
    pytest.importorskip("numba", reason="numba is not installed (the optional `speed` extra): the numpy path is "
                                        "the one in use")
    off = cpu_features_off()
    runs = []
    with tempfile.TemporaryDirectory() as cache:
        for env in ({"DPBOOK_NUMBA": "1"}, {"DPBOOK_NUMBA": "1", "NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": cache},
                    {"DPBOOK_NUMBA": "0"}, {"DPBOOK_NUMBA": "0", "NPY_DISABLE_CPU_FEATURES": off},
                    {"DPBOOK_NUMBA": "1", "NPY_DISABLE_CPU_FEATURES": off}):
            runs.append(run_python(_RUNS, timeout=900, **env).split())
    assert [r[:2] for r in runs] == [["True", "True"]] * 2 + [["False", "False"]] * 2 + [["True", "True"]]
    assert len({r[2] for r in runs}) == 1


def test_small_problems_never_import_the_kernels():
    """Importing dpbook and running adaptive_marginals on cancer (d = 11, both variants) imports neither compiled
    module nor numba; a d = 16 pair workload imports both (with or without numba: each module then says it is not
    compiled)."""
    code = ("import sys, numpy as np, dpbook\n"
            "from benchmarks.peers.run import load\n"
            "from dpbook.mwem import adaptive_marginals\n"
            "from dpbook.queries import k_way_marginals\n"
            "names = ('dpbook._estimator_numba', 'dpbook._component_numba', 'numba')\n"
            "rows, x = load('cancer')\n"
            "for kw in ({}, {'delta': 1e-6}):\n"
            "    adaptive_marginals(x, k_way_marginals(rows.shape[1], 2), epsilon=1.0, n=int(x.sum()), rng=0, **kw)\n"
            "print(*[m in sys.modules for m in names])\n"
            "x16 = np.zeros(1 << 16); x16[::7] = 1\n"
            "adaptive_marginals(x16, k_way_marginals(16, 2), epsilon=1.0, n=int(x16.sum()), rng=0)\n"
            "print(*[m in sys.modules for m in names[:2]])\n")
    assert run_python(code, DPBOOK_NUMBA="1").split() == ["False"] * 3 + ["True"] * 2    # (imported without numba too)
