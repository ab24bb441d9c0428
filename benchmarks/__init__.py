"""Timing tables (printed, never asserted). Run all with `make benchmarks` or one with
`.venv/bin/python -m benchmarks.bench_<topic>`."""
