"""Slider → new pixels, measured in a real browser (headless Chromium driven by Playwright) for every chapter.

For each chapter the script starts JupyterLab on localhost (with a token, default settings) over a temporary copy
of the repository, opens the notebook, runs all cells, waits until the kernel is idle, and then checks every widget
panel (``.dpbook-panel``) as a reader scrolls to it: is its figure *drawn* — the ``<img>`` has its pixels and a
layout box of the figure's size (natural size, or scaled to the output area keeping the aspect ratio)?  A new
``src`` is not enough: in JupyterLab 4.6 an image filled while its cell was off screen had pixels and a 0×0 box.
Then it moves a slider of the first panel one step at a time with the keyboard (arrow key on the slider's handle).
A ``MutationObserver`` stamps ``performance.now()`` when the image has a new ``src``, decoded and drawn at its size,
at the next animation frame; the latency is that stamp minus the key-down stamp (a move whose figure is not drawn is
counted apart).  Each move goes to a setting not visited before (a panel caches the settings it has drawn; revisits
are reported apart), starting from the defaults.  The first move is cold; with the panel's idle-time prefetch the
later moves in the same direction were drawn ahead (``--no-prefetch`` makes every move cold).  Screenshots of every
panel with ``--screenshots``.  ``tests/test_widgets_browser.py`` uses the same functions (``open_chapter``,
``run_all``, ``panel_states``, ``watch_panel``, ``move_slider``).

    python -m benchmarks.browser_latency                      # every chapter, 7 moves each, label "current"
    python -m benchmarks.browser_latency 01 04 --moves 5 --label after --out benchmarks/browser_latency.json
    python -m benchmarks.browser_latency --repo /path/to/other/checkout --label before ...
    python -m benchmarks.browser_latency --table benchmarks/browser_latency.json   # the Markdown table

Needs Debian's Chromium (``apt-get install chromium``; ``--chromium PATH`` or ``$DPBOOK_CHROMIUM`` for another
binary) and the ``playwright`` Python package (in the ``test`` extra; never
``playwright install``: the script only drives the system's Chromium).  When either is missing it prints
``SKIP: ...`` and exits with status 0, so a CI job can call it unconditionally; ``--require`` makes a missing
browser an error (exit status 2).  Not run by ``make benchmarks`` (it takes minutes).  Timings are wall clock
on whatever else the machine is doing: run it on an idle machine for numbers to compare.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1366, "height": 768}

# In the page: every widget panel (``.dpbook-panel``) and whether its figure is *drawn*: the <img> has its pixels
# and a layout box of the figure's size (its natural size, or scaled to the output area's width keeping the aspect
# ratio).  A new ``src`` alone proves nothing: in JupyterLab 4.6 an image filled while its cell was off screen kept a
# 0×0 box while its ``src`` changed on every move.
_PANELS = r"""
() => [...document.querySelectorAll('.dpbook-panel')].map((p, i) => {
  const img = p.querySelector('img.widget-image');
  const pr = p.getBoundingClientRect();
  const box = p.querySelector('.widget-html');
  const error = !!(box && getComputedStyle(box).display !== 'none' && box.textContent.includes('do not work'));
  const out = {index: i, panel: [Math.round(pr.width), Math.round(pr.height)], error,
               message: error ? box.textContent.trim().slice(0, 200) : null, image: !!img, drawn: false};
  if (!img) return out;
  const r = img.getBoundingClientRect();
  const room = img.parentElement.clientWidth;
  const w = Math.min(img.naturalWidth, room), h = w * img.naturalHeight / Math.max(img.naturalWidth, 1);
  out.natural = [img.naturalWidth, img.naturalHeight];
  out.box = [Math.round(r.width), Math.round(r.height)];
  out.drawn = img.complete && img.naturalWidth > 0 && Math.abs(r.width - w) <= 2 && Math.abs(r.height - h) <= 2;
  return out;
})
"""

# In the page: watch panel ``i``; stamp key-down, and the first animation frame after the image has a new src,
# decoded and *drawn* (see _PANELS).  Returns the panel's number of slider handles.
_INSTALL = r"""
(i) => {
  const root = document.querySelectorAll('.dpbook-panel')[i];
  const w = window.__latency = {stamps: [], keydown: null, root, lastSrc: null};
  const img = () => root.querySelector('img.widget-image');
  w.lastSrc = img() ? img().src : null;
  const drawn = (el) => { const r = el.getBoundingClientRect(); const room = el.parentElement.clientWidth;
    const ww = Math.min(el.naturalWidth, room), hh = ww * el.naturalHeight / Math.max(el.naturalWidth, 1);
    return el.naturalWidth > 0 && Math.abs(r.width - ww) <= 2 && Math.abs(r.height - hh) <= 2; };
  const check = async () => {
    const el = img();
    if (!el || !el.src || el.src === w.lastSrc) return;
    w.lastSrc = el.src;
    try { await el.decode(); } catch (e) {}
    requestAnimationFrame(() => w.stamps.push({t: performance.now(), drawn: drawn(el),
                                               box: [el.getBoundingClientRect().width, el.getBoundingClientRect().height]}));
  };
  new MutationObserver(() => { check(); }).observe(root, {subtree: true, childList: true, attributes: true,
                                                       attributeFilter: ['src']});
  root.addEventListener('keydown', () => { w.keydown = performance.now(); }, true);
  return root.querySelectorAll('.noUi-handle').length;
}
"""

# In the page: a 24×24 thumbnail of panel i's figure (to tell that a move changed the figure, not only its src).
_THUMB = r"""
(i) => { const el = document.querySelectorAll('.dpbook-panel')[i].querySelector('img.widget-image');
  if (!el || !el.naturalWidth) return null;
  const c = document.createElement('canvas'); c.width = c.height = 24;
  const g = c.getContext('2d'); g.drawImage(el, 0, 0, 24, 24); return c.toDataURL(); }
"""

_HANDLE_STATE = r"""
(i) => {
  const h = window.__latency.root.querySelectorAll('.noUi-handle')[i];
  // aria-valuenow is rounded to one decimal; aria-valuetext has the position in full
  return {now: h.getAttribute('aria-valuetext') || h.getAttribute('aria-valuenow'), min: h.getAttribute('aria-valuemin'),
          max: h.getAttribute('aria-valuemax')};
}
"""


def _skip(reason: str, require: bool) -> int:
    print(f"SKIP: {reason}", flush=True)
    return 2 if require else 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chapters(repo: pathlib.Path, wanted) -> list[pathlib.Path]:
    books = sorted((repo / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    return [b for b in books if not wanted or b.name[:2] in wanted]


def _copy_repo(repo: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """A throw-away copy: JupyterLab autosaves executed notebooks, and the repository must not change."""
    shutil.copytree(repo, dest, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info",
                                                                 ".ipynb_checkpoints", ".venv-newest", "build"))
    return dest


def _start_lab(work: pathlib.Path, port: int, token: str, log, prefetch: bool = True) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(work), DPBOOK_PREFETCH="1" if prefetch else "0", JUPYTER_CONFIG_DIR=str(work / ".jupyter-config"),
               JUPYTERLAB_SETTINGS_DIR=str(work / ".lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(work / ".lab-workspaces"))
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           f"--ServerApp.token={token}", f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
           "--ServerApp.disable_check_xsrf=False", "--LabApp.news_url=", "--ServerApp.open_browser=False"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    notify = work / ".lab-settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notify.parent.mkdir(parents=True, exist_ok=True)
    notify.write_text('{"fetchNews": "false"}\n')             # no "get news?" toast over the notebook
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    for _ in range(240):
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited ({proc.returncode}); see its log")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.25)
    proc.terminate()
    raise RuntimeError("JupyterLab did not answer within 60 s")


@dataclass
class LabSession:
    """A running JupyterLab over a throw-away copy of a checkout, and a headless Chromium context on it."""
    context: object
    port: int
    token: str
    work: pathlib.Path


@contextlib.contextmanager
def lab_session(repo: pathlib.Path, chromium: str, *, prefetch: bool = True):
    """Copy ``repo``, start JupyterLab on it (a free port, a token), launch ``chromium`` headless at 1366×768 with
    Playwright; yield a :class:`LabSession`; close the browser and stop the server, whatever happens."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="dpbook-lab-") as tmp:
        tmp = pathlib.Path(tmp)
        work = _copy_repo(repo, tmp / "repo")
        port, token = _free_port(), secrets.token_hex(16)
        with open(tmp / "lab.log", "w") as log:
            server = _start_lab(work, port, token, log, prefetch=prefetch)
            try:
                with sync_playwright() as pw:
                    context = pw.chromium.launch_persistent_context(
                        str(tmp / "profile"), executable_path=chromium, headless=True, args=CHROMIUM_FLAGS,
                        viewport=VIEWPORT)
                    try:
                        yield LabSession(context, port, token, work)
                    finally:
                        context.close()
            finally:
                server.terminate()
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.kill()


def _shutdown_kernels(port: int, token: str):
    """Delete every session (and so its kernel): the next chapter starts on an otherwise idle server."""
    base = f"http://127.0.0.1:{port}/api/sessions"
    sessions = json.loads(urllib.request.urlopen(f"{base}?token={token}", timeout=10).read())
    for s in sessions:
        req = urllib.request.Request(f"{base}/{s['id']}?token={token}", method="DELETE")
        urllib.request.urlopen(req, timeout=30).read()


def _wait_idle(page, timeout: float) -> dict:
    """Wait for the notebook's kernel to run every queued cell: idle, no ``[*]`` prompt, for 2 s."""
    t0, idle_since = time.monotonic(), None
    while time.monotonic() - t0 < timeout:
        state = page.evaluate("""() => {
          const nb = window.jupyterapp.shell.currentWidget;
          const k = nb && nb.sessionContext && nb.sessionContext.session && nb.sessionContext.session.kernel;
          const cells = nb && nb.content ? nb.content.widgets : [];
          const prompts = [...document.querySelectorAll('.jp-InputArea-prompt')].map(p => p.textContent);
          return {status: k ? k.status : 'none', pending: prompts.filter(p => p.includes('*')).length,
                  errors: document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').length,
                  cells: cells.length};
        }""")
        if state["status"] == "idle" and state["pending"] == 0:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > 2:
                return state
        else:
            idle_since = None
        time.sleep(0.25)
    raise TimeoutError(f"the notebook did not finish within {timeout:.0f} s")


def open_chapter(context, port: int, token: str, notebook: pathlib.Path):
    """A new page with ``notebook`` open in JupyterLab (its own reset workspace), kernel idle, side bar collapsed."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    # a workspace of its own, reset: JupyterLab would otherwise reopen (and restart kernels for) earlier chapters
    page.goto(f"http://127.0.0.1:{port}/lab/workspaces/{notebook.stem}/tree/notebooks/{notebook.name}"
              f"?reset&token={token}")
    page.wait_for_function("""(name) => { const nb = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                               return nb && nb.context && nb.context.path.endsWith(name) && nb.sessionContext && nb.sessionContext.isReady &&
                                      nb.sessionContext.session && nb.sessionContext.session.kernel &&
                                      nb.sessionContext.session.kernel.status === 'idle'; }""", arg=notebook.name, timeout=120_000)
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")   # the notebook gets the whole 1366 px
    return page


def run_all(page, timeout: float = 300) -> float:
    """Run All (JupyterLab's command, as a reader clicks it) and wait for the kernel; returns the seconds taken."""
    t0 = time.monotonic()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    _wait_idle(page, timeout=timeout)
    return time.monotonic() - t0


def error_outputs(page) -> list[str]:
    """The last line of every error (traceback) output on the page."""
    return page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                              .filter(e => /Error|Traceback/.test(e.textContent))
                              .map(e => e.textContent.trim().split('\\n').slice(-1)[0].slice(0, 200))""")


def panel_states(page, shots: pathlib.Path | None = None, stem: str = "panel") -> list[dict]:
    """Every widget panel of the page, scrolled into view one by one as a reader meets it: its box, and whether its
    figure is drawn at the figure's size (see ``_PANELS``).  ``shots``: save a screenshot of each panel there."""
    states = []
    count = page.evaluate("() => document.querySelectorAll('.dpbook-panel').length")
    for i in range(count):
        page.evaluate("(i) => document.querySelectorAll('.dpbook-panel')[i].scrollIntoView({block: 'center'})", i)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        time.sleep(0.2)
        states.append(page.evaluate(_PANELS)[i])
        if shots is not None:
            page.locator(".dpbook-panel").nth(i).screenshot(path=str(shots / f"{stem}-{i}.png"))
    return states


def move_slider(page, handle_i: int, key: str, timeout_ms: float = 30_000) -> dict | None:
    """Press ``key`` on slider handle ``handle_i`` of the watched panel (:data:`_INSTALL`); wait for the new figure.

    Returns ``None`` when the slider is at its end (the key moved nothing), else ``{"to", "ms", "drawn", "changed"}``:
    the new position, key-down → new figure decoded, drawn at its size and painted (``ms`` is ``None`` when no new
    figure came within ``timeout_ms``), whether it was drawn, and whether its pixels differ from the figure before.
    """
    before = page.evaluate(_HANDLE_STATE, handle_i)
    thumb = page.evaluate(_THUMB, page.evaluate("() => [...document.querySelectorAll('.dpbook-panel')]"
                                                ".indexOf(window.__latency.root)"))
    n_stamps = page.evaluate("() => window.__latency.stamps.length")
    handle = page.locator("[data-latency-root] .noUi-handle").nth(handle_i)
    handle.focus()
    handle.press(key)
    after = page.evaluate(_HANDLE_STATE, handle_i)
    if after["now"] == before["now"]:
        return None
    try:
        page.wait_for_function(f"() => window.__latency.stamps.length > {n_stamps}", timeout=timeout_ms)
    except Exception:                                     # noqa: BLE001 - no new pixels: reported as a miss
        return {"to": after["now"], "ms": None, "drawn": False, "changed": False}
    stamp = page.evaluate(f"() => ({{...window.__latency.stamps[{n_stamps}], "
                          f"ms: window.__latency.stamps[{n_stamps}].t - window.__latency.keydown}})")
    index = page.evaluate("() => [...document.querySelectorAll('.dpbook-panel')].indexOf(window.__latency.root)")
    return {"to": after["now"], "ms": round(stamp["ms"], 1), "drawn": bool(stamp["drawn"]),
            "changed": page.evaluate(_THUMB, index) != thumb}


def watch_panel(page, i: int) -> int:
    """Watch panel ``i`` for new figures (:data:`_INSTALL`); returns its number of slider handles."""
    page.evaluate("(i) => document.querySelectorAll('.dpbook-panel')[i].setAttribute('data-latency-root', '1')", i)
    return page.evaluate(_INSTALL, i)


def _measure_chapter(context, port, token, notebook: pathlib.Path, moves: int, shots: pathlib.Path | None) -> dict:
    t_open = time.monotonic()
    page = open_chapter(context, port, token, notebook)
    load_s = time.monotonic() - t_open
    run_s = run_all(page)
    panels = panel_states(page, shots, notebook.stem)
    result = {"chapter": notebook.name, "run_all_s": round(run_s, 1), "load_s": round(load_s, 1),
              "panels": len(panels), "drawn": sum(p["drawn"] for p in panels),
              "heights": [p["panel"][1] for p in panels], "errors": error_outputs(page),
              "panel_errors": [p["message"] for p in panels if p["error"]]}
    if not panels:
        result.update(panel=False, note="no widget panel")
        page.close()
        return result
    first = panels[0]
    result.update(panel=True, panel_px=first["panel"])
    page.evaluate("() => document.querySelectorAll('.dpbook-panel')[0].scrollIntoView({block: 'center'})")
    handles = watch_panel(page, 0)
    fresh, revisits, misses, undrawn, log, visited = [], [], 0, 0, [], set()
    handle_i, direction = 0, "ArrowRight"
    for _ in range(4 * moves):
        if len(fresh) >= moves or handle_i >= handles:
            break
        visited.add((handle_i, page.evaluate(_HANDLE_STATE, handle_i)["now"]))
        m = move_slider(page, handle_i, direction)
        if m is None:                                         # at an end: turn round, then try the next slider
            if direction == "ArrowRight":
                direction = "ArrowLeft"
            else:
                handle_i, direction = handle_i + 1, "ArrowRight"
            continue
        new = (handle_i, m["to"]) not in visited
        log.append({"slider": handle_i, **m, "fresh": new})
        if m["ms"] is None:                                   # no new pixels: e.g. an error shown by the panel
            misses += 1
            time.sleep(1.0)
            continue
        undrawn += not m["drawn"]
        time.sleep(0.3)                                       # let late mutations settle (and the prefetch run)
        (fresh if new else revisits).append(m["ms"])
    result.update(moves=log, misses=misses, undrawn_moves=undrawn, fresh_ms=fresh,
                  first_ms=fresh[0] if fresh else None,
                  predrawn_ms=round(statistics.median(fresh[1:]), 1) if len(fresh) > 1 else None,
                  median_ms=round(statistics.median(fresh), 1) if fresh else None,
                  revisit_median_ms=round(statistics.median(revisits), 1) if revisits else None)
    page.close()
    return result


def table(store: dict) -> str:
    """A Markdown table per chapter, one group of columns per run (label) in ``store``: panels whose figure is drawn
    at its size (of all panels), their heights, the first move (cold: nothing drawn ahead) and the median of the
    later fresh moves (with the panel's prefetch these were drawn ahead; without it, cold too)."""
    labels = list(store)
    chapters = sorted({r["chapter"] for run in store.values() for r in run["results"]})
    head = " | ".join(f"{lab}: drawn/panels | heights px | first move ms | later moves ms (n)" for lab in labels)
    lines = [f"| chapter | {head} |", "|---|" + "---|---|---|---|" * len(labels)]
    for ch in chapters:
        cells = []
        for lab in labels:
            r = next((r for r in store[lab]["results"] if r["chapter"] == ch), None)
            if r is None:
                cells += ["–"] * 4
            elif not r.get("panel"):
                cells += [f"no panel ({r.get('note', '')[:60]})"] + ["–"] * 3
            else:
                drawn = f"{r['drawn']}/{r['panels']}" if "panels" in r else "not checked"
                heights = ", ".join(map(str, r.get("heights") or [r["panel_px"][1]]))
                first = "none" if r.get("first_ms") is None else f"{r['first_ms']:.0f}"
                later = r.get("predrawn_ms")
                miss = f", {r['misses']} without new pixels" if r.get("misses") else ""
                undrawn = f", {r['undrawn_moves']} not drawn" if r.get("undrawn_moves") else ""
                cells += [drawn, heights, first,
                          ("none" if later is None else f"{later:.0f}") + f" ({max(len(r['fresh_ms']) - 1, 0)}{miss}{undrawn})"]
        lines.append(f"| {ch[:2]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chapters", nargs="*", help="two-digit chapter numbers (default: all)")
    ap.add_argument("--moves", type=int, default=7, help="fresh slider moves per chapter (median over them)")
    ap.add_argument("--repo", type=pathlib.Path, default=ROOT, help="the checkout to measure (copied first)")
    ap.add_argument("--label", default="current", help="name of this run in the results file")
    ap.add_argument("--out", type=pathlib.Path, help="JSON file to add this run to (keyed by label)")
    ap.add_argument("--screenshots", type=pathlib.Path, help="folder for a PNG of each panel at 1366×768")
    ap.add_argument("--chromium", default=os.environ.get("DPBOOK_CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--no-prefetch", action="store_true",
                    help="kernels without the panels' idle-time prefetch (DPBOOK_PREFETCH=0): every move draws cold")
    ap.add_argument("--require", action="store_true", help="a missing browser is an error, not a skip")
    ap.add_argument("--table", type=pathlib.Path, help="only print the Markdown table of a results file")
    args = ap.parse_args(argv)
    if args.table:
        print(table(json.loads(args.table.read_text())))
        return 0
    if not (shutil.which(args.chromium) or os.access(args.chromium, os.X_OK)):
        return _skip(f"no Chromium at {args.chromium} (apt-get install chromium, or --chromium PATH)", args.require)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return _skip("the playwright package is missing (pip install -e '.[test]')",
                     args.require)
    notebooks = _chapters(args.repo, set(args.chapters))
    if not notebooks:
        print(f"no chapter matches {args.chapters}")
        return 1
    results = []
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    with lab_session(args.repo, args.chromium, prefetch=not args.no_prefetch) as lab:
        for nb in notebooks:
            try:
                r = _measure_chapter(lab.context, lab.port, lab.token, nb, args.moves, args.screenshots)
            except Exception as exc:                          # one chapter's failure does not stop the others
                r = {"chapter": nb.name, "panel": None, "note": f"{type(exc).__name__}: {exc}"[:300]}
            try:
                _shutdown_kernels(lab.port, lab.token)
            except OSError as exc:
                print(f"warning: could not shut the kernels down: {exc}", flush=True)
            results.append(r)
            print(_row(r), flush=True)
    if args.out:
        store = json.loads(args.out.read_text()) if args.out.exists() else {}
        store[args.label] = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "prefetch": not args.no_prefetch,
                             "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None,
                             "moves": args.moves, "results": results}
        args.out.write_text(json.dumps(store, indent=1, ensure_ascii=False) + "\n")
    return 0


def _row(r: dict) -> str:
    if not r.get("panel"):
        return f"{r['chapter']:34s} no panel measured: {r.get('note', '')}"
    med = f"{r['median_ms']:7.0f} ms" if r.get("median_ms") is not None else "   none   "
    rev = f", revisits {r['revisit_median_ms']:.0f} ms" if r.get("revisit_median_ms") is not None else ""
    return (f"{r['chapter']:34s} drawn {r['drawn']}/{r['panels']} panels (heights {r['heights']} px); "
            f"median {med} over {len(r['fresh_ms'])} moves {r['fresh_ms']}{rev}; misses {r['misses']}, "
            f"not drawn {r['undrawn_moves']}; run-all {r['run_all_s']} s"
            + (f"; ERRORS {r['errors']}" if r.get("errors") else "")
            + (f"; PANEL ERRORS {r['panel_errors']}" if r.get("panel_errors") else ""))


if __name__ == "__main__":
    sys.exit(main())
