"""What the real-browser tests share: Debian's Chromium (``$DPBOOK_CHROMIUM`` for another binary) driven by the
``playwright`` package, and one rule for when it is missing — skip loudly, or fail when ``DPBOOK_REQUIRE_BROWSER``
is set (CI sets it)."""
import os
import shutil

import pytest

CHROMIUM = os.environ.get("DPBOOK_CHROMIUM", "/usr/bin/chromium")


def browser_or_skip(extra: str) -> None:
    """Skip (or fail under ``DPBOOK_REQUIRE_BROWSER``) unless Chromium and playwright are there; ``extra`` names the
    pip extra that installs playwright for this test."""
    reason = None
    if not (shutil.which(CHROMIUM) or os.access(CHROMIUM, os.X_OK)):
        reason = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = f"the playwright package is missing (pip install -e '.[{extra}]')"
    if reason is None:
        return
    if os.environ.get("DPBOOK_REQUIRE_BROWSER"):
        pytest.fail(f"DPBOOK_REQUIRE_BROWSER is set but the browser test cannot run: {reason}")
    pytest.skip(f"REAL-BROWSER TEST NOT RUN: {reason}")
