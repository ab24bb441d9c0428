"""The benchmark scripts (benchmarks/, run by `make benchmarks`) must at least import: they are not run in CI."""
import importlib
import pathlib

import pytest

BENCH = sorted(p.stem for p in (pathlib.Path(__file__).resolve().parent.parent / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("name", BENCH)
def test_benchmark_imports_and_has_main(name):
    module = importlib.import_module(f"benchmarks.{name}")
    assert callable(module.main)
