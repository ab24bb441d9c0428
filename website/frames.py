"""Precomputed figures for the website's slider panels: a panel without a kernel.

A chapter's panel cell is ``widgets.panel(callback, name=widgets.log_slider(...), ...)`` (see
:mod:`dpbook.widgets`); its callback is a pure, seeded function ``(**params) -> Figure``.  Here we

* find the panel cells of a notebook and rebuild each panel's callback and controls by running only the
  notebook's import statements and the panel cell, with ``widgets.panel`` returning the :class:`dpbook.widgets.Panel`
  unshown (no notebook is executed, no kernel is started);
* choose the settings to draw: the defaults, then each control varied alone around its default (every notch of a
  short grid; an evenly spread subset, always with the default and both ends, of a long one);
* draw each setting with the panel's own renderer (:meth:`dpbook.widgets.Panel.to_png`, the pixels JupyterLab
  shows), store it as a 256-colour PNG, and cache it on disk under a key of (callback, parameters, code version):
  the code version hashes the source of the callback's module and of every ``dpbook`` module it imports,
  directly or not, so an unchanged chapter is not redrawn.

Frames of one panel are kept under :data:`PANEL_BUDGET` bytes: when a plan would exceed it, the long grids are
thinned (fewer notches) until it fits.
"""
from __future__ import annotations

import ast
import hashlib
import inspect
import io
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PANEL_BUDGET = 3_000_000          # bytes of frames per panel
MAX_NOTCHES = 9                   # values per slider when its grid is longer (default and both ends included)
MIN_NOTCHES = 3


# ---------------------------------------------------------------------------------------------- panel cells

def is_panel_cell(cell) -> bool:
    """Whether ``cell`` builds a slider panel: a code cell calling ``widgets.panel(`` with a widget-view output."""
    if cell.get("cell_type") != "code":
        return False
    src = "".join(cell.get("source", ""))
    shows_widget = any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                       for o in cell.get("outputs", []))
    return "panel(" in src and shows_widget


def panel_cells(nb: dict) -> list[int]:
    """Indices of the panel cells of notebook ``nb`` (its JSON as a dict), in order."""
    return [i for i, cell in enumerate(nb["cells"]) if is_panel_cell(cell)]


def _imports(nb: dict) -> str:
    """Every top-level import statement of ``nb``'s code cells, as one module source."""
    out = []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        src = "".join(cell.get("source", ""))
        try:
            tree = ast.parse("\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!"))))
        except SyntaxError:
            continue
        out += [ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    return "\n".join(out)


def load_panel(nb: dict, index: int):
    """The :class:`dpbook.widgets.Panel` that cell ``index`` of ``nb`` builds, without displaying it.

    Runs the notebook's import statements, then the cell with ``dpbook.widgets.panel`` (and ``Panel``) recording
    the panel instead of showing it.  Raises ``ValueError`` when the cell builds no panel or several.
    """
    import dpbook.widgets as real

    built = []

    class _Recorder:                                    # the module, with panel() recording what it builds
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def panel(callback, **controls):
            p = real.Panel(callback, controls)
            built.append(p)
            return p

    namespace = {"__name__": "__dpbook_site__"}
    exec(compile(_imports(nb), f"<imports of {index}>", "exec"), namespace)
    recorder = _Recorder()
    for name, value in list(namespace.items()):
        if value is real:
            namespace[name] = recorder
    src = "".join(nb["cells"][index]["source"])
    tree = ast.parse(src)
    if tree.body and isinstance(tree.body[-1], ast.Expr) and isinstance(tree.body[-1].value, ast.Name):
        tree.body.pop()                                 # the bare name that displays the panel
    saved = real.panel                  # a cell that imports dpbook.widgets itself gets the recording panel too
    real.panel = _Recorder.panel
    try:
        exec(compile(tree, f"<cell {index}>", "exec"), namespace)
    finally:
        real.panel = saved
    if len(built) != 1:
        raise ValueError(f"cell {index} builds {len(built)} panels, expected 1")
    return built[0]


# ---------------------------------------------------------------------------------------------- grids

def control_grid(control) -> list:
    """Every value control ``control`` offers, as the callback sees it (snapped as the panel snaps them)."""
    import ipywidgets as w
    from dpbook.widgets import _snap

    if isinstance(control, w.FloatLogSlider):
        n = round((control.max - control.min) / control.step)
        return [_snap(control.base ** (control.min + k * control.step)) for k in range(n + 1)]
    if isinstance(control, w.IntSlider):
        return list(range(control.min, control.max + 1, control.step))
    if isinstance(control, w.FloatSlider):
        n = round((control.max - control.min) / control.step)
        return [_snap(round(control.min + k * control.step, 12)) for k in range(n + 1)]
    if isinstance(control, w.Dropdown):
        options = list(control.options)                 # plain values, or (label, value) pairs
        if all(isinstance(o, tuple) and len(o) == 2 and isinstance(o[0], str) for o in options):
            return [v for _, v in options]
        return options
    raise TypeError(f"control ({type(control).__name__}) is not a slider or dropdown the site knows")


def _nearest(grid, value) -> int:
    if value in grid:
        return grid.index(value)
    if isinstance(value, (int, float)):
        return min(range(len(grid)), key=lambda i: abs(grid[i] - value))
    raise ValueError(f"default ({value!r}) is not on its control's grid")


def notches(grid: list, default, limit: int) -> list:
    """At most ``limit`` values of ``grid`` (``limit`` >= 3): all when it is short, else both ends, the default
    and evenly spread ones (dropdown options are always all kept)."""
    if len(grid) <= limit or not all(isinstance(v, (int, float)) for v in grid):
        return list(grid)
    d = _nearest(grid, default)
    picks = {0, len(grid) - 1, d}
    for j in sorted(range(1, limit - 1), key=lambda j: abs(j - (limit - 1) / 2)):   # the middle ones first
        if len(picks) >= limit:
            break
        picks.add(round(j * (len(grid) - 1) / (limit - 1)))
    return [grid[i] for i in sorted(picks)]


@dataclass
class Plan:
    """The settings a panel's frames cover: ``defaults`` and, per control, the values its site slider offers."""
    defaults: dict
    values: dict = field(default_factory=dict)

    def settings(self) -> list[dict]:
        """Each setting to draw, the defaults first; every control varied alone around the defaults."""
        out, seen = [dict(self.defaults)], {_key(self.defaults)}
        for name, vals in self.values.items():
            for v in vals:
                s = {**self.defaults, name: v}
                if _key(s) not in seen:
                    seen.add(_key(s))
                    out.append(s)
        return out


def plan(panel, limit: int = MAX_NOTCHES) -> Plan:
    """The :class:`Plan` of ``panel``: its defaults and each control's notches (at most ``limit`` per slider)."""
    defaults = panel.values
    values = {}
    for name, control in panel.controls.items():
        values[name] = notches(control_grid(control), defaults[name], limit)
    return Plan(defaults, values)


def _key(values: dict) -> str:
    return json.dumps(values, sort_keys=True, default=repr)


# ---------------------------------------------------------------------------------------------- code version

def _dpbook_imports(path: Path) -> set[str]:
    """The ``dpbook`` modules that the module at ``path`` imports (absolute or relative), as dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "dpbook"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "dpbook":
                continue
            found.add(mod)
            found |= {f"{mod}.{a.name}" for a in node.names}     # ``from dpbook import noise`` imports a module
    return found


def _module_file(name: str) -> Path | None:
    p = ROOT.joinpath(*name.split("."))
    if p.with_suffix(".py").is_file():
        return p.with_suffix(".py")
    if (p / "__init__.py").is_file():
        return p / "__init__.py"
    return None


def dependencies(module: str) -> dict[str, Path]:
    """``module`` and every ``dpbook`` module it imports, directly or not (with their parent packages): name → file."""
    todo, seen = [module], {}
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if path is None or name in seen:
            continue
        seen[name] = path
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]   # parent packages run first
        todo += sorted(_dpbook_imports(path))
    return seen


def code_version(module: str) -> str:
    """A hash of the source of ``module`` and of its :func:`dependencies`, of the panel's renderer
    (``dpbook.widgets``) and of this module, plus the versions of numpy and matplotlib (which draw the pixels)."""
    import matplotlib
    import numpy

    h = hashlib.sha256(f"numpy {numpy.__version__} matplotlib {matplotlib.__version__}".encode())
    h.update(inspect.getsource(quantize).encode())              # how a frame is stored
    for name, path in sorted({**dependencies(module), **dependencies("dpbook.widgets")}.items()):
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


# ---------------------------------------------------------------------------------------------- drawing

def quantize(png: bytes) -> bytes:
    """``png`` as a 256-colour PNG (figures have few colours; a third of the bytes, no visible change)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        q = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    q.save(out, format="png", optimize=True)
    return out.getvalue()


def draw(panel, values: dict) -> bytes:
    """The site's frame of ``values``: the panel's own PNG of that setting, quantized.  Raises what the
    callback raises."""
    return quantize(panel._png(values))


class Cache:
    """Frames on disk: ``root/<callback>/<code version>/<sha of the parameters>.png`` (``.err`` for an error)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def path(self, callback, version: str, values: dict) -> Path:
        name = f"{callback.__module__}.{callback.__qualname__}"
        digest = hashlib.sha256(_key(values).encode()).hexdigest()[:20]
        return self.root / name / version / digest

    def get(self, callback, version, values):
        p = self.path(callback, version, values)
        if p.with_suffix(".png").is_file():
            return p.with_suffix(".png").read_bytes()
        if p.with_suffix(".err").is_file():
            return ValueError(p.with_suffix(".err").read_text(encoding="utf-8"))
        return None

    def put(self, callback, version, values, frame):
        p = self.path(callback, version, values)
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(frame, bytes):
            p.with_suffix(".png").write_bytes(frame)
        else:
            p.with_suffix(".err").write_text(f"{type(frame).__name__}: {frame}", encoding="utf-8")


def frames(panel, cache: Cache, limit: int = MAX_NOTCHES, budget: int = PANEL_BUDGET, log=None):
    """``(plan, {setting key: PNG bytes or an error message}, drawn)`` for ``panel`` within ``budget`` bytes.

    Settings the callback refuses keep their error message (the site shows it, as the panel does).  When the
    frames exceed ``budget`` the long grids are thinned and the plan redone (cached frames are reused).
    """
    version = code_version(panel.callback.__module__)
    drawn = 0
    while True:
        p = plan(panel, limit)
        out, total = {}, 0
        for values in p.settings():
            frame = cache.get(panel.callback, version, values)
            if frame is None:
                try:
                    frame = draw(panel, values)
                except Exception as exc:                # noqa: BLE001 - shown on the site like the panel shows it
                    frame = exc
                cache.put(panel.callback, version, values, frame)
                drawn += 1
            if isinstance(frame, bytes):
                total += len(frame)
                out[_key(values)] = frame
            else:
                out[_key(values)] = str(frame) if not isinstance(frame, Exception) else \
                    (f"{type(frame).__name__}: {frame}" if not str(frame).startswith(type(frame).__name__)
                     else str(frame))
        if total <= budget or limit <= MIN_NOTCHES:
            if log:
                log(f"{panel.callback.__qualname__}: {len(out)} frames, {total / 1e6:.2f} MB, {drawn} drawn")
            return p, out, drawn
        limit -= 2


def key(values: dict) -> str:
    """The key of a setting in the frames' map (the site's script builds the same string)."""
    return _key(values)
