"""MathJax from a registry package, shipped inside the site: math renders with no network.

The ``sphinx-mathjax-offline`` package (PyPI) carries MathJax 3's browser files.  We copy only what a page loads:
the TeX→CHTML component, its web fonts and the TeX extensions it loads on demand (about 3 MB instead of 24 MB),
and point Sphinx's ``mathjax_path`` at it.
"""
import importlib.util
import shutil
from pathlib import Path

PARTS = ["tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions", "ui/menu.js", "a11y"]


def _source() -> Path:
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.origin:
        raise RuntimeError("the book extra needs sphinx-mathjax-offline (pip install -e '.[book]')")
    return Path(spec.origin).parent / "static" / "mathjax"


def _copy(app, exc):
    if exc is not None:
        return
    src, dest = _source(), Path(app.outdir) / "_static" / "mathjax"
    for part in PARTS:
        s, d = src / part, dest / part
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        elif s.is_file():
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, d)


def setup(app):
    _source()
    app.config.mathjax_path = "mathjax/tex-chtml.js"
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
