"""Widget callbacks of the chapters: pure functions ``(**params) -> matplotlib Figure``.

One module per family.  Each callback is seeded (same parameters, same figure), returns quickly at its
defaults (≤ 100 ms, see ``benchmarks/``), and is what both the chapter's static default figure and its
slider panel (``dpbook.widgets.panel``) call.
"""
