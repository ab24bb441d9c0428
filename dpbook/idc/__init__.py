"""Iterative database constructions (IDC) and online / offline query release (chapters 10–12).

Gupta, Roth, Ullman, "Iterative Constructions and Private Data Release", TCC 2012 (GRU): IDC-Def3.1, IDC-Def3.2,
IDC-Alg1, IDC-Alg1-SV, IDC-Alg3; and Dwork–Roth, *The Algorithmic Foundations of Differential Privacy* (2014),
DR-Alg6.

**The abstraction (IDC-Def3.1, Def3.2).**  An *update rule* ``U`` keeps a hypothesis ``D^t`` about the private
database ``D``.  Whenever someone shows it a query ``Q`` on which the hypothesis is ``α``-wrong, together with
an answer ``Â`` that is ``α``-close to the truth, it moves to ``D^{t+1} = U(D^t, Q, Â)``.  ``U`` is a
``B(α)``-IDC if no such *update sequence* is longer than ``B(α)``.

The package, one module per part of the framework:

* :mod:`dpbook.idc.updates` — the update rules: :class:`IDC` (the protocol), :class:`MultiplicativeWeightsIDC`
  (IDC-AlgA.2), :class:`FriezeKannanIDC` (IDC-Alg2), :class:`MedianIDC` (IDC-AlgA.1); by name,
  :func:`make_rule`, and the least drop of each one's potential, :func:`promised_drop`;
* :mod:`dpbook.idc.streams` — the queries asked (the analyst, who sees only a :class:`StreamView` of what was
  released): :class:`FixedStream`, :class:`AdversarialStream`, :func:`as_stream`; the public ``n`` (:func:`public_n`);
* :mod:`dpbook.idc.checker` — IDC-Def3.1's update-sequence checker (:class:`UpdateStep`,
  :func:`update_sequence_violations`, :func:`is_update_sequence`) and IDC-Def3.2's worst-case oracle
  (:func:`drive_with_oracle`, :class:`OracleRun`);
* :mod:`dpbook.idc.online` — ONE online loop (:func:`~dpbook.idc.online.run_online`) and a per-round test per
  mechanism: :func:`online_idc_sv` (IDC-Alg1-SV, the provably private one, and its public threshold
  :func:`th_sv_threshold_for`), :func:`online_idc` (GRU Algorithm 1,
  reconstructed ``ε0``), :func:`online_mw_dr` (DR-Alg6), all returning an :class:`OnlineRelease`;
* :mod:`dpbook.idc.offline` — :func:`iterative_construction` (IDC-Alg3, the offline IC mechanism).

**Units.**  Answers are normalised, ``q(x) = <q, x>/n`` with ``n`` **public** (``n`` defaults to ``x.sum()``; pass
the same ``n`` for both databases of a neighbouring pair, so every answer has sensitivity exactly ``1/n``).  Runs
are batched: every state has a leading ``trials`` axis.
"""
from .checker import OracleRun, UpdateStep, drive_with_oracle, is_update_sequence, update_sequence_violations
from .offline import iterative_construction
from .online import NotARelease, OnlineRelease, online_idc, online_idc_sv, online_mw_dr, th_sv_threshold_for
from .streams import AdversarialStream, FixedStream, StreamView, as_stream, public_n
from .updates import IDC, RULES, FriezeKannanIDC, MedianIDC, MultiplicativeWeightsIDC, make_rule, promised_drop

__all__ = [
    "IDC", "MultiplicativeWeightsIDC", "MedianIDC", "FriezeKannanIDC",
    "FixedStream", "AdversarialStream", "StreamView", "as_stream",
    "UpdateStep", "OracleRun", "drive_with_oracle", "update_sequence_violations", "is_update_sequence",
    "OnlineRelease", "NotARelease", "online_idc_sv", "online_idc", "online_mw_dr", "iterative_construction",
    "public_n", "th_sv_threshold_for", "RULES", "make_rule", "promised_drop",
]

# The public functions are documented, audited and tested under their package name (dpbook.idc.online_idc_sv, ...),
# the name every chapter imports; their source stays in the submodule (inspect reads the code object's file).
for _name in __all__:
    if callable(globals()[_name]) and not isinstance(globals()[_name], type):
        globals()[_name].__module__ = __name__
del _name
