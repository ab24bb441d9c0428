"""The benchmark scripts (benchmarks/, run by `make benchmarks`) must at least import: they are not run in CI."""
import importlib
import pathlib

import pytest

BENCH = sorted(p.stem for p in (pathlib.Path(__file__).resolve().parent.parent / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("name", BENCH)
def test_benchmark_imports_and_has_main(name):
    module = importlib.import_module(f"benchmarks.{name}")
    assert callable(module.main)


def test_bench_chapters_reads_its_arguments_and_a_process_cpu():
    import os

    from benchmarks.bench_chapters import _arguments, _process_cpu

    assert _arguments([]) == (r"^\d\d_", 0, 1)
    assert _arguments(["^13_"]) == ("^13_", 0, 1)
    assert _arguments(["^1", "--cells", "10"]) == ("^1", 10, 1)
    assert _arguments(["--cells", "3", "^0"]) == ("^0", 3, 1)
    assert _arguments(["--runs", "3", "^0", "--cells", "2"]) == ("^0", 2, 3)
    for bad in (["--cells", "many"], ["--runs", "0"], ["--runs"], ["^0", "^1"]):
        with pytest.raises(SystemExit):
            _arguments(bad)
    if pathlib.Path("/proc/self/stat").exists():
        spent = _process_cpu(os.getpid())
        sum(i * i for i in range(200_000))                 # a little CPU, so the count moves or stays put
        assert 0 < spent <= _process_cpu(os.getpid())
    assert _process_cpu(2 ** 22 + 12345) is None            # above Linux's default pid_max: no such process


def test_bench_chapters_takes_medians_over_runs():
    from benchmarks.bench_chapters import median_rows

    runs = [[("00", 2.0, 1.0), ("01", 9.0, 8.0)], [("00", 4.0, 3.0), ("01", 5.0, 4.0)],
            [("00", 3.0, 2.0), ("01", 7.0, 9.0)]]
    rows, total, total_cpu = median_rows(runs)
    assert rows == [("00", 3.0, 2.0), ("01", 7.0, 8.0)]
    assert (total, total_cpu) == (10.0, 9.0)               # totals 11, 9, 10 and 9, 7, 11: medians of the totals
    with pytest.raises(ValueError, match="same chapters"):
        median_rows([[("00", 1.0, 1.0)], [("01", 1.0, 1.0)]])


def test_bench_chapters_byte_compiles_the_package_the_kernels_import(tmp_path, monkeypatch):
    """Where PYTHONDONTWRITEBYTECODE is set no kernel writes a .pyc: the bench writes them first, for the dpbook a
    kernel started in its working folder imports, so no chapter is timed compiling the package from source."""
    import importlib.util
    import subprocess
    import sys

    import dpbook
    from benchmarks.bench_chapters import byte_compile

    module = pathlib.Path(dpbook.__file__).parent / "laplace.py"
    cached = pathlib.Path(importlib.util.cache_from_source(str(module)))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PYTHONPATH", str(module.parents[1]))
    cached.unlink(missing_ok=True)
    subprocess.run([sys.executable, "-c", "import dpbook.laplace"], cwd=tmp_path, check=True)
    assert not cached.exists()                              # a kernel in that shell leaves it uncompiled
    assert byte_compile(tmp_path) >= 0
    assert cached.exists() and cached.stat().st_mtime >= module.stat().st_mtime
