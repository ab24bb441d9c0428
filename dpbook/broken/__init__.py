"""Deliberately broken mechanisms: positive controls that the privacy audits must catch.

Each module mirrors a family of ``dpbook`` and each function's docstring says exactly what is wrong.
Never use these to release data; chapters 06 and 17 show them being caught.
"""
