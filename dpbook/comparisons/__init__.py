"""The chapters' head-to-head experiments: each runs several mechanisms of the book on one task at the same
privacy parameters and summarises their errors (quantiles, medians, maxima).  They release nothing — a result is a
dict of error summaries — so they are not mechanisms (no audit case, no ledger); every one is seeded by ``rng``
and validates its inputs like a mechanism.

One module per family, named like the mechanism module it exercises (``comparisons.mwem`` for chapter 09,
``comparisons.smalldb`` for chapter 08, ...); this package re-exports what the chapters import, each name
loaded with its module on first use (so ``from dpbook.comparisons import arena`` loads no MWEM)."""
import importlib

#: the re-exported names and the module of this package each comes from
_HOME = {"MECHANISMS": "mwem", "regime_errors": "mwem", "PROJECTIONS": "smalldb", "smalldb_vs_histogram": "smalldb"}

__all__ = list(_HOME)


def __getattr__(name):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
