"""Lay out the website's Sphinx source in ``build/book-src/`` from the repository, as it is (nothing re-executed).

* ``index.md``: the README; ``notebooks/*.ipynb``: every chapter (found by glob, in file-name order), copies
  whose stored outputs are kept, with (i) each slider panel's widget output replaced by the site's live panel
  (precomputed frames, :mod:`website.frames`) and its cell's code collapsed, (ii) the cells JupyterLab shows
  collapsed (solutions) collapsed here too, (iii) a note on how to run the chapter live, linking the notebook file,
  and (iv) no widget state (the site loads no widget manager from the network);
* ``docs/*.md`` and any other Markdown file of the repository that a page links to, as pages;
* links: ``<a id="…"></a>`` anchors become MyST targets, and links ``path.md#id`` / ``path.ipynb#id`` / ``#id`` to
  such an anchor become references to the target, so that every theorem ID, bibliography key and chapter link
  resolves inside the site; a link to a repository file that is not a page becomes a link to the fork's copy on
  GitHub when ``DPBOOK_REPO_URL`` is set, else plain code.
"""
from __future__ import annotations

import copy
import html
import json
import os
import posixpath
import re
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANCHOR = re.compile(r'^\s*<a id="([^"]+)"></a>\s*$', re.M)
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
RUN_LIVE = (
    "```{{admonition}} Run this chapter live\n:class: tip\n"
    "This page shows the chapter's stored outputs; its sliders swap precomputed figures (one slider at a time "
    "around the defaults). To run every cell and move the sliders freely, open the notebook in JupyterLab: "
    "`make lab` in a clone of the repository, then `{name}`. "
    "Download the notebook: {{download}}`{name} <{href}>`.\n```\n")


def chapters(root: Path = ROOT) -> list[Path]:
    """The chapters in reading order: ``notebooks/NN_*.ipynb`` by file name."""
    return sorted((root / "notebooks").glob("[0-9]*.ipynb"))


def _anchors(text: str) -> set[str]:
    return set(ANCHOR.findall(text))


class Links:
    """Rewrites the links of one page (at ``page``, a path relative to the repository) for the site."""

    def __init__(self, labels: dict[str, str], pages: set[str], repo_url: str | None):
        self.labels, self.pages, self.repo_url = labels, pages, repo_url
        self.extra_pages: set[str] = set()

    def rewrite(self, text: str, page: str) -> str:
        here = posixpath.dirname(page)

        def sub(m):
            bang, label, target = m.groups()
            if bang or re.match(r"^[a-z][a-z0-9+.-]*:", target):       # images and external links stay
                return m.group(0)
            path, _, frag = target.partition("#")
            rel = posixpath.normpath(posixpath.join(here, path)) if path else page
            if frag and frag in self.labels and (not path or self.labels[frag] == rel):
                return f"[{label}](#{frag})"
            if rel in self.pages or (rel.endswith(".md") and (ROOT / rel).is_file()):
                if rel not in self.pages:
                    self.extra_pages.add(rel)
                return f"[{label}]({path}{'#' + frag if frag else ''})"
            if (ROOT / rel).exists():                                   # a repository file that is no page
                if self.repo_url:
                    return f"[{label}]({self.repo_url.rstrip('/')}/blob/main/{rel})"
                return label
            return m.group(0)

        return LINK.sub(sub, text)


SUMMARY = re.compile(r"<summary>.*?</summary>", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$(?!\$)")


def _md(text: str) -> str:
    """A Markdown page's anchors as MyST targets, and the ``$…$`` inside raw HTML ``<summary>`` (which MyST leaves
    unparsed) as the math spans MathJax typesets."""
    text = SUMMARY.sub(lambda m: INLINE_MATH.sub(
        lambda k: f'<span class="math notranslate nohighlight">\\({html.escape(k.group(1), quote=False)}\\)</span>',
        m.group(0)), text)
    return ANCHOR.sub(lambda m: f"({m.group(1)})=", text)


# ---------------------------------------------------------------------------------------------- panels

def _label(control, value, fmt: str) -> str:
    """A control value's label: its drop-down label when the options are (label, value) pairs, else formatted."""
    for option in getattr(control, "options", None) or ():
        if isinstance(option, tuple) and len(option) == 2 and isinstance(option[0], str) and option[1] == value:
            return option[0]
    return _fmt(value, fmt)


def _fmt(value, fmt: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    return format(value, fmt)


def _panel_markup(pid: str, controls: list, table: dict, first: str, size, alt: str) -> str:
    data = json.dumps({"controls": controls, "frames": table}, separators=(",", ":"))
    rows = []
    for i, c in enumerate(controls):
        cid = f"{pid}-{i}"
        if c.get("kind") == "choice":
            opts = "".join(f'<option value="{j}"{" selected" if j == c["default"] else ""}>{html.escape(l)}</option>'
                           for j, l in enumerate(c["labels"]))
            field = f'<select id="{cid}" data-index="{i}">{opts}</select>'
        else:
            field = (f'<input type="range" id="{cid}" data-index="{i}" min="0" max="{len(c["labels"]) - 1}" '
                     f'step="1" value="{c["default"]}">')
        rows.append(f'<div class="dpbook-live-row"><label for="{cid}">{html.escape(c["label"])}</label>{field}'
                    f'<output for="{cid}">{html.escape(c["labels"][c["default"]])}</output></div>')
    w, h = size
    return (f'<div class="dpbook-live" id="{pid}">'
            f'<div class="dpbook-live-controls">{"".join(rows)}</div>'
            f'<p class="dpbook-live-note">Precomputed figures: moving one slider returns the others to their '
            f'defaults. Run the notebook for every combination.</p>'
            f'<div class="dpbook-live-error" hidden></div>'
            f'<img class="dpbook-live-figure" src="{first}" width="{w}" height="{h}" alt="{html.escape(alt)}">'
            f'<script type="application/json" class="dpbook-live-data">{data}</script></div>')


def build_panel(args):
    """Draw (or take from the cache) the frames of one panel; runs in a worker process.  Returns a dict for
    :func:`stage`: the markup's data and the frame files to write."""
    nb_path, index, cache_dir = args
    import matplotlib
    matplotlib.use("Agg")
    from website import frames as F

    nb = json.loads(Path(nb_path).read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    panel = F.load_panel(nb, index)
    plan, table, drawn = F.frames(panel, F.Cache(cache_dir))
    controls, names = [], list(plan.values)
    for name in names:
        control = panel.controls[name]
        values = plan.values[name]
        fmt = getattr(control, "readout_format", None) or ".3g"
        kind = "choice" if not isinstance(values[0], (int, float)) or isinstance(values[0], bool) else "slider"
        controls.append({"name": name, "label": control.description or name, "kind": kind,
                         "labels": [_label(control, v, fmt) for v in values],
                         "default": values.index(plan.defaults[name])})
    files, out = {}, {}
    for setting in plan.settings():
        idx = ",".join(str(plan.values[n].index(setting[n])) for n in names)
        frame = table[F.key(setting)]
        if isinstance(frame, bytes):
            fname = f"{len(files):03d}.png"
            files[fname] = frame
            out[idx] = fname
        else:
            out[idx] = {"error": frame}
    default_idx = ",".join(str(c["default"]) for c in controls)
    return {"nb": nb_path, "index": index, "controls": controls, "table": out, "files": files,
            "default": out[default_idx], "callback": panel.callback.__qualname__, "drawn": drawn,
            "seconds": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------- notebooks

def _stage_notebook(src: Path, dest: Path, links: Links, panels: dict, page: str):
    from PIL import Image
    import io

    nb = json.loads(src.read_text(encoding="utf-8"))
    nb["metadata"].pop("widgets", None)
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            cell["source"] = _md(links.rewrite(text, page))
        elif cell["cell_type"] == "code":
            meta = cell.setdefault("metadata", {})
            tags = meta.setdefault("tags", [])
            if meta.get("jupyter", {}).get("source_hidden"):
                tags.append("hide-input")
            if (src.stem, i) in panels:
                p = panels[(src.stem, i)]
                pid = f"panel-{src.stem}-{i}"
                folder = f"../_panels/{src.stem}-{i}"
                first = p["default"] if isinstance(p["default"], str) else next(iter(p["files"]), None)
                size = Image.open(io.BytesIO(p["files"][first])).size if first else (0, 0)
                markup = _panel_markup(pid, p["controls"], p["table"], f"{folder}/{first}", size,
                                       f"figure of {p['callback']} at its default settings")
                markup = markup.replace('class="dpbook-live"', f'class="dpbook-live" data-base="{folder}/"', 1)
                cell["outputs"] = [{"output_type": "display_data", "metadata": {},
                                    "data": {"text/html": markup, "text/plain": "<live panel>"}}]
                if "hide-input" not in tags:
                    tags.append("hide-input")
            else:
                for out in cell.get("outputs", []):
                    out.get("data", {}).pop("application/vnd.jupyter.widget-view+json", None)
    # the note on running it live, after the title cell
    note = RUN_LIVE.format(name=src.name, href=f"../_originals/{src.name}")
    nb["cells"].insert(1, {"cell_type": "markdown", "id": "dpbook-run-live", "metadata": {}, "source": note})
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def stage(out: Path, cache: Path, *, only: list[str] | None = None, jobs: int = 2, repo_url=None, log=print):
    """Write the Sphinx source into ``out``; ``only``: chapter stems (or prefixes) to include (a subset build)."""
    from website import frames as F

    t0 = time.perf_counter()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    nbs = chapters()
    if only:
        nbs = [p for p in nbs if any(p.stem.startswith(o) for o in only)]
    labels: dict[str, str] = {}
    docs = sorted((ROOT / "docs").glob("*.md"))
    for d in docs:
        for a in _anchors(d.read_text(encoding="utf-8")):
            labels.setdefault(a, d.relative_to(ROOT).as_posix())
    pages = {"README.md"} | {d.relative_to(ROOT).as_posix() for d in docs} | {
        p.relative_to(ROOT).as_posix() for p in nbs}
    links = Links(labels, pages, repo_url or os.environ.get("DPBOOK_REPO_URL"))

    # frames, in worker processes (each draws its panels with the callbacks' own seeds)
    work = []
    for p in nbs:
        nb = json.loads(p.read_text(encoding="utf-8"))
        work += [(str(p), i, str(cache)) for i in F.panel_cells(nb)]
    panels = {}
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for res in pool.map(build_panel, work):
            stem = Path(res["nb"]).stem
            panels[(stem, res["index"])] = res
            folder = out / "_extra" / "_panels" / f"{stem}-{res['index']}"
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in res["files"].items():
                (folder / name).write_bytes(data)
            size = sum(len(b) for b in res["files"].values())
            log(f"  panel {stem}[{res['index']}] {res['callback']}: {len(res['files'])} frames, "
                f"{size / 1e6:.2f} MB, {res['drawn']} drawn, {res['seconds']:.1f} s")

    for p in nbs:
        page = p.relative_to(ROOT).as_posix()
        _stage_notebook(p, out / page, links, panels, page)
        (out / "_originals").mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, out / "_originals" / p.name)
    for d in docs:
        page = d.relative_to(ROOT).as_posix()
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text(_md(links.rewrite(d.read_text(encoding="utf-8"), page)), encoding="utf-8")
    readme = links.rewrite((ROOT / "README.md").read_text(encoding="utf-8"), "README.md")
    # chapter names in the README's table become links to the chapter pages
    for p in nbs:
        readme = readme.replace(f"| `{p.name}` |", f"| [`{p.name}`](notebooks/{p.name}) |")
    done = set()
    while links.extra_pages - done:                      # Markdown files the pages link to, e.g. benchmark notes
        for page in sorted(links.extra_pages - done):
            done.add(page)
            text = links.rewrite((ROOT / page).read_text(encoding="utf-8"), page)
            (out / page).parent.mkdir(parents=True, exist_ok=True)
            (out / page).write_text(_md(text), encoding="utf-8")
    chapters_toc = "\n".join(p.relative_to(ROOT).with_suffix("").as_posix() for p in nbs)
    docs_toc = "\n".join(d.relative_to(ROOT).with_suffix("").as_posix() for d in docs)
    extra_toc = "\n".join(Path(p).with_suffix("").as_posix() for p in sorted(done))
    readme += ("\n\n```{toctree}\n:hidden:\n:caption: Chapters\n\n" + chapters_toc + "\n```\n"
               "\n```{toctree}\n:hidden:\n:caption: Reference\n\n" + docs_toc + "\n" + extra_toc + "\n```\n")
    (out / "index.md").write_text(readme, encoding="utf-8")
    log(f"staged {len(nbs)} chapters, {len(panels)} panels in {time.perf_counter() - t0:.1f} s")
    return panels
