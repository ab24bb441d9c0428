"""``python -m website.build``: stage the site's source, draw (or reuse) the panels' frames, run Sphinx.

    python -m website.build [--out build/book] [--only 01 --only 05] [--jobs 2] [--check]

``--only`` builds a subset of the chapters (CI's browser test); ``--check`` runs the offline link check
(:mod:`website.linkcheck`) on the result.  The frames' cache is ``build/book-cache`` (``--cache``).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "build" / "book"))
    ap.add_argument("--src", default=str(ROOT / "build" / "book-src"))
    ap.add_argument("--cache", default=str(ROOT / "build" / "book-cache"))
    ap.add_argument("--only", action="append", help="chapter prefix to include (repeatable); default: all")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--check", action="store_true", help="check every internal link of the built site")
    args = ap.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, str(ROOT))
    from website.stage import stage

    t0 = time.perf_counter()
    src, out = Path(args.src), Path(args.out)
    stage(src, Path(args.cache), only=args.only, jobs=args.jobs)
    t1 = time.perf_counter()
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", str(args.jobs), "-c", str(ROOT / "website"),
           "-d", str(ROOT / "build" / "book-doctrees"), str(src), str(out)]
    env = {**os.environ, "DPBOOK_SITE_SRC": str(src.resolve()), "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run(cmd, check=True, env=env)
    t2 = time.perf_counter()
    print(f"site: {out} — {size_of(out) / 1e6:.1f} MB; frames+staging {t1 - t0:.0f} s, sphinx {t2 - t1:.0f} s, "
          f"total {t2 - t0:.0f} s")
    if args.check:
        from website.linkcheck import check
        broken = check(out)
        for line in broken:
            print("BROKEN", line)
        print(f"link check: {len(broken)} broken internal links")
        return 1 if broken else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
