"""Python code run in a fresh interpreter on this checkout, for the tests that need a clean process: an import
watched from the start, numba absent, or ``DPBOOK_NUMBA``, ``NUMBA_CPU_NAME`` and numpy's CPU features set before
numpy and numba load."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu_features_off() -> str:
    """The value of ``NPY_DISABLE_CPU_FEATURES`` that turns off numpy's AVX-512 kernels on this CPU (its other
    dispatch path; empty where the CPU has none)."""
    from numpy._core._multiarray_umath import __cpu_features__
    return " ".join(f for f in ("X86_V4", "AVX512_ICL") if __cpu_features__.get(f, False))


def run_python(code: str, *, timeout: float = 300, **env: str) -> str:
    """The standard output of ``python -c code`` run from this checkout (first on ``PYTHONPATH``), with ``env``
    added to this process's environment; a non-zero exit raises ``CalledProcessError`` (with its stderr)."""
    full = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **env)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode:
        raise subprocess.CalledProcessError(done.returncode, "python -c", done.stdout, done.stderr)
    return done.stdout
