"""Sphinx configuration of the website (``make book``); the source is staged by ``website/stage.py``."""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

project = "dpbook — private query release"
author = "the dpbook authors"
extensions = ["myst_nb", "sphinx_togglebutton", "website.mathjax_local"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_extra", "_originals", "_build"]
root_doc = "index"

# the stored outputs, never re-executed
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image", "deflist"]
myst_dmath_double_inline = True
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

html_theme = "sphinx_book_theme"
html_title = "dpbook"
html_static_path = [str(HERE / "static")]
# the panels' frames, staged beside the source (an absolute path: Sphinx reads this one from the conf dir)
html_extra_path = [os.path.join(os.environ["DPBOOK_SITE_SRC"], "_extra")] if os.environ.get("DPBOOK_SITE_SRC") else []
html_css_files = ["live.css"]
html_js_files = ["live.js"]
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
}
html_last_updated_fmt = None
html_context = {"default_mode": "light"}     # the theme logs a console error when no mode is set
