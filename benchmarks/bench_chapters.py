"""Every chapter executed from scratch in a fresh kernel, as CI and a reader meet it: seconds per chapter against
the budget (15 s a chapter, 120 s the book, on 2 cores), so a slow chapter is seen at once.

The reference row is a one-cell notebook (``import dpbook``) in a fresh kernel — kernel start-up and the import,
which every chapter pays — measured in the same run; each chapter's time is also shown as a ratio to it, so runs
on machines of different speed can be compared.  The notebooks are copied to a temporary folder first: the
stored outputs are never touched (the folders the chapters read, ``../benchmarks`` and ``../data``, are
linked beside the copy).

Before timing, the package the kernels import (and ``benchmarks``, which chapter 18 imports) is byte-compiled once,
as a reader's first import does: where ``PYTHONDONTWRITEBYTECODE`` is set (as in some CI and agent shells) no kernel
writes a ``.pyc``, and every chapter would compile each dpbook module it imports from source again (about
0.2 s of CPU a chapter, measured), a cost no reader pays twice.  The compile's own CPU is printed on its own row.

``python -m benchmarks.bench_chapters [REGEX] [--cells N] [--runs R]`` times the chapters whose file name matches
``REGEX``; with ``--cells N`` it also lists the N cells of those chapters that cost the kernel the most CPU (read
from the kernel's ``/proc/PID/stat`` before and after each cell, so a cell's figures, drawn as it ends, count for
it).  With ``--runs R`` the whole set is executed ``R`` times, one pass over every chapter after another (so a
burst of load on the machine touches one run of each chapter, not all runs of one), and each row is the median
over the runs; the book row is the median of the runs' totals.  Back-to-back single runs on a shared 2-core
machine have differed by 10 %; a budget verdict near the line wants ``--runs 3``.
"""
from __future__ import annotations

import os
import pathlib
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTER_BUDGET = 15.0
BOOK_BUDGET = 120.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) of the running process ``pid``; ``None`` where /proc is missing."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def execute_seconds(path: pathlib.Path, workdir: pathlib.Path, *, cells: list | None = None) -> tuple[float, float]:
    """Seconds to execute the notebook at ``path`` from scratch in a fresh kernel (cwd ``workdir``): wall clock,
    and the CPU time of the kernel process (user + system, counted once the kernel has exited and been reaped).

    The CPU time is what to compare on a loaded machine: other processes stretch the wall clock, not it.  On a
    quiet machine the two agree for a chapter that computes on one core.  When ``cells`` is a list, one
    ``(cell index, kernel CPU s, wall s, source)`` is appended to it per code cell (where /proc exists)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}})
    if cells is not None:
        started = {}

        def kernel_cpu():
            pid = getattr(getattr(client.km, "provisioner", None), "pid", None)
            return _process_cpu(pid) if pid is not None else None

        def start(cell, cell_index, **_):
            started[cell_index] = (kernel_cpu(), time.perf_counter())

        def done(cell, cell_index, **_):
            cpu, t = started.pop(cell_index, (None, None))
            now = kernel_cpu()
            if cpu is not None and now is not None:
                cells.append((cell_index, now - cpu, time.perf_counter() - t, cell.source))
        client.on_cell_start, client.on_cell_executed = start, done
    cpu0, t0 = _children_cpu(), time.perf_counter()
    client.execute()                     # starts the kernel, runs every cell, shuts the kernel down and waits
    return time.perf_counter() - t0, _children_cpu() - cpu0


def reference_seconds(workdir: pathlib.Path) -> tuple[float, float]:
    """The same measurement for a one-cell notebook that only imports dpbook (the fixed cost of every chapter)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import dpbook")])
    path = workdir / "_reference.ipynb"
    nbformat.write(nb, path)
    return execute_seconds(path, workdir)


def byte_compile(workdir: pathlib.Path) -> float:
    """Byte-compile the ``dpbook`` a kernel started in ``workdir`` imports, and ``benchmarks``, writing the ``.pyc``
    files a reader's first import writes (``py_compile`` writes them even where ``PYTHONDONTWRITEBYTECODE`` is set);
    returns the CPU seconds it took (nothing to do when they are up to date)."""
    code = ("import compileall, os, sys, dpbook\n"
            "ok = all(compileall.compile_dir(d, quiet=1) for d in (os.path.dirname(dpbook.__file__), sys.argv[1]))\n"
            "sys.exit(0 if ok else 1)")
    cpu0 = _children_cpu()
    subprocess.run([sys.executable, "-c", code, str(ROOT / "benchmarks")], cwd=workdir, check=True)
    return _children_cpu() - cpu0


def median_rows(runs: list[list[tuple[str, float, float]]]) -> tuple[list[tuple[str, float, float]], float, float]:
    """Per chapter, the median over ``runs`` (each a list of ``(chapter, wall s, CPU s)`` in the same order) of its
    wall and CPU seconds; and the medians of the runs' total wall and total CPU seconds."""
    names = [r[0] for r in runs[0]]
    if any([r[0] for r in run] != names for run in runs):
        raise ValueError("every run must time the same chapters in the same order")
    rows = [(name, statistics.median(run[i][1] for run in runs), statistics.median(run[i][2] for run in runs))
            for i, name in enumerate(names)]
    return (rows, statistics.median(sum(r[1] for r in run) for run in runs),
            statistics.median(sum(r[2] for r in run) for run in runs))


def main(pattern: str = r"^\d\d_", top_cells: int = 0, runs: int = 1) -> list[tuple[str, float, float]]:
    chapters = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if re.search(pattern, p.name))
    per_cell, timed, refs = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = pathlib.Path(tmp) / "notebooks"
        shutil.copytree(ROOT / "notebooks", workdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for sibling in ("benchmarks", "data", "docs"):        # chapters read ../benchmarks/…, ../data/… (read-only)
            (pathlib.Path(tmp) / sibling).symlink_to(ROOT / sibling, target_is_directory=True)
        compile_cpu = byte_compile(workdir)
        for run in range(runs):
            refs.append(reference_seconds(workdir))
            rows = []
            for p in chapters:
                cells = [] if top_cells and run == 0 else None
                rows.append((p.stem, *execute_seconds(workdir / p.name, workdir, cells=cells)))
                per_cell += [(p.stem[:2], *c) for c in cells or []]
            timed.append(rows)
            if runs > 1:
                print(f"run {run + 1} of {runs}: book {sum(r[1] for r in rows):.1f} s wall, "
                      f"{sum(r[2] for r in rows):.1f} s kernel CPU", file=sys.stderr, flush=True)
    rows, total, total_cpu = median_rows(timed)
    ref, ref_cpu = statistics.median(r[0] for r in refs), statistics.median(r[1] for r in refs)
    if runs > 1:
        print(f"medians over {runs} runs (each row its own median; the book row the median of the runs' totals)")
    print(f"{'chapter':34s} {'seconds':>8s} {'÷ ref':>7s} {'kernel CPU s':>13s}  budget {CHAPTER_BUDGET:.0f} s")
    print(f"{'byte-compiling dpbook (once)':34s} {'':8s} {'':7s} {compile_cpu:13.1f}")
    print(f"{'reference: import dpbook':34s} {ref:8.1f} {1.0:7.1f} {ref_cpu:13.1f}")
    for name, s, cpu in rows:
        print(f"{name:34s} {s:8.1f} {s / ref:7.1f} {cpu:13.1f}  {'OVER' if s > CHAPTER_BUDGET else 'ok'}")
    print(f"{'book':34s} {total:8.1f} {total / ref:7.1f} {total_cpu:13.1f}  {'OVER' if total > BOOK_BUDGET else 'ok'} "
          f"(budget {BOOK_BUDGET:.0f} s)")
    if top_cells:
        print(f"\nthe {top_cells} code cells that cost the kernel most CPU (chapter, cell index, CPU s, wall s, first line)")
        for chapter, index, cpu, wall, source in sorted(per_cell, key=lambda c: -c[2])[:top_cells]:
            first = next((line for line in source.splitlines() if line.strip() and not line.startswith("#")), "")
            print(f"  {chapter} cell {index:3d} {cpu:6.2f} {wall:6.2f}  {first[:80]}")
    return rows


USAGE = "usage: python -m benchmarks.bench_chapters [REGEX] [--cells N] [--runs R]"


def _arguments(argv: list[str]) -> tuple[str, int, int]:
    pattern, rest, counts = r"^\d\d_", list(argv), {"--cells": 0, "--runs": 1}
    for flag in counts:
        if flag in rest:
            i = rest.index(flag)
            if i + 1 >= len(rest) or not rest[i + 1].isdigit():
                raise SystemExit(USAGE)
            counts[flag] = int(rest[i + 1])
            del rest[i:i + 2]
    if counts["--runs"] < 1 or len(rest) > 1:
        raise SystemExit(USAGE)
    if rest:
        pattern = rest[0]
    return pattern, counts["--cells"], counts["--runs"]


if __name__ == "__main__":
    main(*_arguments(sys.argv[1:]))
