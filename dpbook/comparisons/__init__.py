"""The chapters' head-to-head experiments: each runs several mechanisms of the book on one task at the same
privacy parameters and summarises their errors (quantiles, medians, maxima).  They release nothing — a result is a
dict of error summaries — so they are not mechanisms (no audit case, no ledger); every one is seeded by ``rng``
and validates its inputs like a mechanism.

One module per family, named like the mechanism module it exercises (``comparisons.mwem`` for chapter 09,
``comparisons.smalldb`` for chapter 08, ...); this package re-exports what the chapters import."""
from .mwem import MECHANISMS, regime_errors
from .smalldb import PROJECTIONS, smalldb_vs_histogram

__all__ = ["MECHANISMS", "regime_errors", "PROJECTIONS", "smalldb_vs_histogram"]
