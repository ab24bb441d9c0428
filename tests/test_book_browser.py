"""The website (``make book``) in a real browser: headless Chromium with every request off this machine blocked.

The module builds the site (all chapters, or the subset named by ``DPBOOK_BOOK_BUILD``, e.g. ``--only 01``) into
``build/book-test/``, serves it on 127.0.0.1 and opens every page, checking: no console error and no failed
request; every math element typeset by the MathJax shipped in the site and no raw ``$…$`` left in the text; every
image decoded (``naturalWidth > 0``); zero broken internal links (``website.linkcheck``); the offline search finds
a word; and on the first live panel of every chapter, a slider moved with the keyboard shows a different figure.
Screenshots go to ``build/book-screens/``.

It needs the book extra (``make book-test``); without Sphinx it skips, and without Chromium or playwright it skips
loudly (it fails instead when ``DPBOOK_REQUIRE_BROWSER`` is set).
"""
from __future__ import annotations

import functools
import hashlib
import http.server
import os
import re
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from browser import CHROMIUM, browser_or_skip

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "book-test"
SHOTS = ROOT / "build" / "book-screens"
RAW_MATH = re.compile(r"(?<![\w$\\])\$[^$\s][^$\n]{0,200}?(?<![\s\\])\$(?![\w$])|\\\(|\\\[|\$\$")

pytest.importorskip("sphinx", reason="the book extra is not installed (make book-test)")
pytest.importorskip("myst_nb", reason="the book extra is not installed (make book-test)")


@pytest.fixture(scope="module")
def site():
    """Build the site once for the module (the frames' cache is shared with ``make book``)."""
    args = shlex.split(os.environ.get("DPBOOK_BOOK_BUILD", ""))
    cmd = [sys.executable, "-m", "website.build", "--out", str(OUT), "--src", str(ROOT / "build" / "book-test-src"),
           "--check", *args]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "link check: 0 broken internal links" in run.stdout
    return OUT


@pytest.fixture(scope="module")
def browser(site):
    browser_or_skip("book")
    from playwright.sync_api import sync_playwright

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        context = b.new_context(viewport={"width": 1366, "height": 900})
        blocked = []

        def route(r):                                 # the network is off: only the local server answers
            if r.request.url.startswith(origin):
                r.continue_()
            else:
                blocked.append(r.request.url)
                r.abort()
        context.route("**/*", route)
        yield context, origin, blocked
        context.close()
        b.close()
    server.shutdown()
    server.server_close()


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if "_static" not in p.relative_to(site).parts)


def _open(context, url):
    page = context.new_page()
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url} {r.failure}"))
    page.goto(url, wait_until="load")
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    return page, problems


def test_every_page(browser, site):
    context, origin, blocked = browser
    pages = _pages(site)
    assert "index.html" in pages and any(p.startswith("notebooks/") for p in pages)
    report = []
    for rel in pages:
        page, problems = _open(context, f"{origin}/{rel}")
        math = page.evaluate("""() => {
            const all = [...document.querySelectorAll('.math')];
            return [all.length, all.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80))];
        }""")
        text = page.evaluate("""() => {
            const main = document.querySelector('main') || document.body;
            const c = main.cloneNode(true);
            c.querySelectorAll('pre, code, script, style, mjx-container, .highlight, .output').forEach(e => e.remove());
            return c.innerText;
        }""")
        raw = RAW_MATH.findall(text)
        images = page.evaluate("""async () => {
            const imgs = [...document.images];
            for (const i of imgs) { i.loading = 'eager'; try { await i.decode(); } catch (e) {} }
            return imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
        }""")
        if rel.startswith("notebooks/") or rel == "index.html":
            page.screenshot(path=str(SHOTS / (rel.replace("/", "_") + ".png")))
        page.close()
        assert not problems, (rel, problems)
        assert not math[1], (rel, "math left untypeset", math[1][:5])
        assert not raw, (rel, "raw TeX left in the text", raw[:5])
        assert not images, (rel, "images not decoded", images[:5])
        report.append(f"{rel}: {math[0]} math, ok")
    assert not blocked, ("requests off this machine", blocked[:5])
    print("\n".join(report))


def test_search_works_offline(browser):
    context, origin, _ = browser
    page, problems = _open(context, f"{origin}/search.html?q=laplace")
    page.wait_for_selector("#search-results li", timeout=20_000)
    n = page.locator("#search-results li").count()
    page.close()
    assert n > 0 and not problems, (n, problems)


def _pixels(locator) -> str:
    return hashlib.sha256(locator.screenshot()).hexdigest()


def test_a_slider_moves_the_figure_on_every_chapter(browser, site):
    context, origin, _ = browser
    chapters = sorted(p for p in _pages(site) if p.startswith("notebooks/"))
    moved = 0
    for rel in chapters:
        html = (site / rel).read_text(encoding="utf-8")
        if "dpbook-live" not in html:
            continue
        page, problems = _open(context, f"{origin}/{rel}")
        panel = page.locator(".dpbook-live").first
        panel.scroll_into_view_if_needed()
        page.wait_for_function("() => document.querySelector('.dpbook-live').dataset.ready === '1'")
        img = panel.locator("img.dpbook-live-figure")
        before_src, before_px = img.get_attribute("src"), _pixels(img)
        slider = panel.locator("input[type=range]").first
        readout = panel.locator("output").nth(int(slider.get_attribute("data-index")))   # the moved control's readout
        before_text = readout.inner_text()
        slider.focus()
        page.keyboard.press("ArrowLeft" if slider.get_attribute("value") == slider.get_attribute("max") else "ArrowRight")
        page.wait_for_function("(s) => { const i = document.querySelector('.dpbook-live img'); "
                               "return i.getAttribute('src') !== s && i.complete && i.naturalWidth > 0; }",
                               arg=before_src, timeout=10_000)
        after_px, after_text = _pixels(img), readout.inner_text()
        panel.screenshot(path=str(SHOTS / (rel.replace("/", "_") + "-moved.png")))
        page.close()
        assert not problems, (rel, problems)
        assert after_px != before_px, (rel, "the figure did not change")
        assert after_text != before_text, (rel, "the readout did not change", before_text)
        moved += 1
    assert moved > 0, "no chapter page has a live panel"
