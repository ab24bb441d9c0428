"""The theorems' bounds as pure functions, one module per family; each docstring quotes its THEOREMS.md ID.

Notebooks never retype a formula: they call these, and tests check each against a hand computation.
"""
