"""The chapters in JupyterLab in a real browser, as a lecturer meets them: every widget panel *draws* its figure.

JupyterLab from this environment on a free port, Debian's Chromium (headless, 1366×768) driven by the playwright
package (never a browser download), JupyterLab's default settings (its windowing mode hides off-screen cells).
For two chapters — the first mechanism chapter (01) and the IDC chapter with the privacy-loss picture (12) — it
runs all cells, checks that no cell shows an error, that every panel's figure has a layout box of the figure's size
(a new ``src`` is not enough: an image can have pixels and a 0×0 box), then moves a slider with the keyboard and
checks that the new figure is drawn and differs from the old one.  Screenshots go to ``build/browser/``.

Without Chromium or playwright the real-browser test skips with a loud reason; with ``DPBOOK_REQUIRE_BROWSER=1``
(set by ``.ci/run``) it fails instead.  ``benchmarks/browser_latency.py`` measures the latency of every chapter.
"""
import json
import pathlib

import pytest

from benchmarks import browser_latency
from browser import CHROMIUM, browser_or_skip

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTERS = ("01", "12")


def test_skips_with_a_clear_message_without_chromium(capsys):
    assert browser_latency.main(["00", "--chromium", "/nonexistent/chromium"]) == 0
    assert "SKIP: no Chromium at /nonexistent/chromium" in capsys.readouterr().out
    assert browser_latency.main(["00", "--chromium", "/nonexistent/chromium", "--require"]) == 2


def test_table_lists_every_chapter_and_run():
    store = {"cold": {"results": [
                {"chapter": "00_a.ipynb", "panel": True, "panels": 2, "drawn": 1, "heights": [464, 520],
                 "first_ms": 130.2, "predrawn_ms": 120.0, "fresh_ms": [130.2, 118, 122], "misses": 0,
                 "undrawn_moves": 1, "panel_px": [934, 464]},
                {"chapter": "14_b.ipynb", "panel": False, "note": "no widget panel"}]},
             "old": {"results": [
                {"chapter": "00_a.ipynb", "panel": True, "median_ms": 95.0, "fresh_ms": [95.0], "misses": 1,
                 "panel_px": [934, 64]}]}}
    text = browser_latency.table(store)
    assert "| 00 | 1/2 | 464, 520 | 130 | 120 (2, 1 not drawn) | not checked | 64 | none | none (0, 1 without new pixels) |" in text
    assert "| 14 | no panel (no widget panel) | – | – | – | – | – | – | – |" in text


@pytest.fixture(scope="module")
def lab():
    """JupyterLab over a throw-away copy of the repository, and a headless Chromium context."""
    browser_or_skip("test")
    shots = ROOT / "build" / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    with browser_latency.lab_session(ROOT, CHROMIUM) as session:
        yield {"context": session.context, "port": session.port, "token": session.token, "work": session.work,
               "shots": shots}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_panel_draws_its_figure_and_a_slider_move_redraws_it(lab, chapter):
    (notebook,) = browser_latency._chapters(lab["work"], {chapter})
    page = browser_latency.open_chapter(lab["context"], lab["port"], lab["token"], notebook)
    try:
        browser_latency.run_all(page)
        assert browser_latency.error_outputs(page) == []
        panels = browser_latency.panel_states(page, lab["shots"], notebook.stem)
        summary = json.dumps(panels, indent=1)
        assert panels, f"chapter {chapter} shows no widget panel"
        assert all(p["image"] and p["drawn"] and not p["error"] for p in panels), summary
        assert all(p["box"][1] >= 150 and p["panel"][1] <= 768 for p in panels), summary

        page.evaluate("() => document.querySelectorAll('.dpbook-panel')[0].scrollIntoView({block: 'center'})")
        assert browser_latency.watch_panel(page, 0) >= 1
        move = browser_latency.move_slider(page, 0, "ArrowRight") or browser_latency.move_slider(page, 0, "ArrowLeft")
        assert move is not None and move["ms"] is not None, f"no new figure after the move: {move}"
        assert move["drawn"] and move["changed"], move
        after = browser_latency.panel_states(page)[0]
        assert after["drawn"] and not after["error"], after
        page.locator(".dpbook-panel").nth(0).screenshot(path=str(lab["shots"] / f"{notebook.stem}-moved.png"))
    finally:
        page.close()
        browser_latency._shutdown_kernels(lab["port"], lab["token"])
