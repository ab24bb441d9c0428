"""An offline check of every internal link of the built site: each ``href``/``src`` that is not external must
name a file of the site, and its ``#fragment`` an ``id`` (or ``name``) on that page.

    python -m website.linkcheck build/book
"""
from __future__ import annotations

import re
import sys
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("id", "name"):
            if a.get(k):
                self.ids.add(a[k])
        for k in ("href", "src"):
            if a.get(k) and not (tag == "link" and a.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append((tag, a[k]))


@lru_cache(maxsize=None)
def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def check(site: Path) -> list[str]:
    """``page: link (reason)`` for every broken internal link of the site at ``site``."""
    site = Path(site).resolve()
    broken = []
    for html in sorted(site.rglob("*.html")):
        if "_static" in html.relative_to(site).parts:       # the theme's template fragments, not pages
            continue
        for tag, link in _parse(html).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                if parts.scheme in ("http", "https", "mailto", "data", "javascript"):
                    continue
                broken.append(f"{html.relative_to(site)}: {link} (scheme)")
                continue
            target = html if not parts.path else (html.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if site not in target.parents and target != site:
                broken.append(f"{html.relative_to(site)}: {link} (outside the site)")
            elif not target.is_file():
                broken.append(f"{html.relative_to(site)}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
                broken.append(f"{html.relative_to(site)}: {link} (no such anchor)")
    return broken


def main(argv=None) -> int:
    site = Path((argv or sys.argv[1:] or ["build/book"])[0])
    broken = check(site)
    for line in broken:
        print(line)
    print(f"{len(broken)} broken internal links in {site}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
