"""benchmarks/browser_latency.py: skips cleanly without a browser; a real run only when asked for.

The real run (JupyterLab + headless Chromium, ~1 min) is opt-in: ``DPBOOK_BROWSER_TESTS=1`` and Debian's
chromium plus the playwright package (benchmarks/requirements-browser.txt).
"""
import json
import os
import shutil

import pytest

from benchmarks import browser_latency


def test_skips_with_a_clear_message_without_chromium(capsys):
    assert browser_latency.main(["00", "--chromium", "/nonexistent/chromium"]) == 0
    assert "SKIP: no Chromium at /nonexistent/chromium" in capsys.readouterr().out
    assert browser_latency.main(["00", "--chromium", "/nonexistent/chromium", "--require"]) == 2


def test_table_lists_every_chapter_and_run():
    store = {"before": {"results": [
                {"chapter": "00_a.ipynb", "panel": True, "median_ms": 812.4, "fresh_ms": [800, 812.4, 900],
                 "misses": 0, "panel_px": [934, 610]},
                {"chapter": "14_b.ipynb", "panel": False, "note": "no widget panel"}]},
             "after": {"results": [
                {"chapter": "00_a.ipynb", "panel": True, "median_ms": 95.0, "fresh_ms": [95.0], "misses": 1,
                 "panel_px": [934, 480]}]}}
    text = browser_latency.table(store)
    assert "| 00 | 812 (3) | 934×610 | 95 (1, 1 without new pixels) | 934×480 |" in text
    assert "| 14 | no panel (no widget panel) | – | – | – |" in text


@pytest.mark.skipif(not os.environ.get("DPBOOK_BROWSER_TESTS"), reason="set DPBOOK_BROWSER_TESTS=1 for the browser run")
def test_chapter_00_panel_redraws_in_a_real_browser(tmp_path):
    if not shutil.which(os.environ.get("DPBOOK_CHROMIUM", "/usr/bin/chromium")):
        pytest.skip("no Chromium (apt-get install chromium)")
    pytest.importorskip("playwright")
    out = tmp_path / "latency.json"
    assert browser_latency.main(["00", "--moves", "3", "--require", "--out", str(out), "--label", "ci"]) == 0
    (r,) = json.loads(out.read_text())["ci"]["results"]
    assert r["panel"] and r["misses"] == 0 and r["median_ms"] is not None
    assert r["panel_px"][0] <= 1366 and r["panel_px"][1] <= 768
