"""Every chapter executed from scratch in a fresh kernel, as CI and a reader meet it: seconds per chapter against
the budget (15 s a chapter, 120 s the book, on 2 cores), so a slow chapter is seen at once.

The reference row is a one-cell notebook (``import dpbook``) in a fresh kernel — kernel start-up and the import,
which every chapter pays — measured in the same run; each chapter's time is also shown as a ratio to it, so runs
on machines of different speed can be compared.  The notebooks are copied to a temporary folder first: the
stored outputs are never touched (the folders the chapters read, ``../benchmarks`` and ``../data``, are
linked beside the copy).

``python -m benchmarks.bench_chapters [REGEX]`` times the chapters whose file name matches ``REGEX``.
"""
from __future__ import annotations

import pathlib
import re
import resource
import shutil
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


def execute_seconds(path: pathlib.Path, workdir: pathlib.Path) -> tuple[float, float]:
    """Seconds to execute the notebook at ``path`` from scratch in a fresh kernel (cwd ``workdir``): wall clock,
    and the CPU time of the kernel process (user + system, counted once the kernel has exited and been reaped).

    The CPU time is what to compare on a loaded machine: other processes stretch the wall clock, not it.  On a
    quiet machine the two agree for a chapter that computes on one core."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}})
    cpu0, t0 = _children_cpu(), time.perf_counter()
    client.execute()                     # starts the kernel, runs every cell, shuts the kernel down and waits
    return time.perf_counter() - t0, _children_cpu() - cpu0


def reference_seconds(workdir: pathlib.Path) -> tuple[float, float]:
    """The same measurement for a one-cell notebook that only imports dpbook (the fixed cost of every chapter)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import dpbook")])
    path = workdir / "_reference.ipynb"
    nbformat.write(nb, path)
    return execute_seconds(path, workdir)


def main(pattern: str = r"^\d\d_") -> list[tuple[str, float, float]]:
    chapters = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if re.search(pattern, p.name))
    with tempfile.TemporaryDirectory() as tmp:
        workdir = pathlib.Path(tmp) / "notebooks"
        shutil.copytree(ROOT / "notebooks", workdir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for sibling in ("benchmarks", "data", "docs"):        # chapters read ../benchmarks/…, ../data/… (read-only)
            (pathlib.Path(tmp) / sibling).symlink_to(ROOT / sibling, target_is_directory=True)
        ref = reference_seconds(workdir)
        rows = [(p.stem, *execute_seconds(workdir / p.name, workdir)) for p in chapters]
    ref, ref_cpu = ref
    print(f"{'chapter':34s} {'seconds':>8s} {'÷ ref':>7s} {'kernel CPU s':>13s}  budget {CHAPTER_BUDGET:.0f} s")
    print(f"{'reference: import dpbook':34s} {ref:8.1f} {1.0:7.1f} {ref_cpu:13.1f}")
    for name, s, cpu in rows:
        print(f"{name:34s} {s:8.1f} {s / ref:7.1f} {cpu:13.1f}  {'OVER' if s > CHAPTER_BUDGET else 'ok'}")
    total, total_cpu = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{'book':34s} {total:8.1f} {total / ref:7.1f} {total_cpu:13.1f}  {'OVER' if total > BOOK_BUDGET else 'ok'} "
          f"(budget {BOOK_BUDGET:.0f} s)")
    return rows


if __name__ == "__main__":
    main(*sys.argv[1:2])
