"""Run every benchmarks/bench_*.py module's main() in turn."""
import importlib
import pathlib

for path in sorted(pathlib.Path(__file__).parent.glob("bench_*.py")):
    print(f"\n=== {path.stem} ===")
    importlib.import_module(f"benchmarks.{path.stem}").main()
