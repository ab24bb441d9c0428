"""Broken handling of workload inputs: positive controls for the audits of :mod:`dpbook.audit.cases.workload_inputs`
(chapter 17).  Never release with these.

Each twin is a correct mechanism of the book handed a workload that hides the one fact the fix reads:

* :func:`stored_entries_workload` (a helper, not a mechanism) — a :class:`~dpbook.queries.MatrixWorkload` built the
  way it must not be: a scipy.sparse matrix validated on the values it *stores*, without summing the cells it stores
  more than once.  Five stored 1.0 at one cell pass as "entries in [0, 1]", yet ``Q @ x`` sums them to 5, and its
  :meth:`~dpbook.queries.Workload.entry_range` reports (0, 1).
* :func:`composed_laplace_stored_entries` and :func:`above_threshold_stored_entries` — the per-query Laplace
  mechanism and AboveThreshold on such a workload: they calibrate for counts that move by 1, which move by 5.
* :func:`mwem_practical_distinct_cells` — whole-marginal MWEM under replace-one neighbours charged ``Δ = 2`` per
  marginal (one cell left, one entered) when a cell is listed several times: a replaced row moves a cell listed
  ``k`` times ``k`` times, so the true ``Δ`` is ``k + k'``.
* :func:`composed_laplace_unit_range` and :func:`mwem_practical_unit_range` — the per-query Laplace mechanism and
  MWEM measuring single queries, told that every entry lies in ``[0, 1]`` whatever the workload: cut queries with
  overlapping ``S`` and ``T`` have coefficient 2 (erratum IDC-E5), so each count moves by 2.
"""
from __future__ import annotations

import copy
import dataclasses

import numpy as np
import scipy.sparse as sp

from ..gaussian import composed_laplace_mechanism
from ..multiplicative_weights import marginal_layout
from ..mwem import mwem_practical
from ..noise import laplace_noise
from ..queries import MarginalWorkload, MatrixWorkload, as_workload
from ..sparse_vector import above_threshold
from ..validation import real_dtype, check_matrix_workload

__all__ = ["stored_entries_workload", "composed_laplace_stored_entries", "above_threshold_stored_entries",
           "mwem_practical_distinct_cells", "composed_laplace_unit_range", "mwem_practical_unit_range"]


def stored_entries_workload(Q) -> MatrixWorkload:
    """WRONG: a :class:`MatrixWorkload` over the caller's sparse ``Q`` as stored — duplicates kept, only the stored
    values checked to lie in ``[0, 1]``, so :meth:`entry_range` reports the stored values, not the summed entries."""
    if not sp.issparse(Q):                                             # dense: nothing stored twice, nothing hidden
        raw = sp.csr_matrix(check_matrix_workload(Q, "Q"))
    else:
        if not real_dtype(Q.dtype, bools=True):
            raise TypeError(f"Q must hold real numbers, got a scipy.sparse matrix of dtype {Q.dtype}")
        raw = sp.csr_matrix(Q, dtype=np.float64, copy=True)          # BUG: no sum_duplicates() before the check
        if 0 in raw.shape:
            raise ValueError(f"Q must have at least one query and one universe element, got shape {raw.shape}")
        if not np.all(np.isfinite(raw.data)):
            raise ValueError("Q contains NaN or inf; query values must be finite")
        if raw.data.size and (raw.data.min() < 0 or raw.data.max() > 1):
            raise ValueError("Q has a stored value outside [0, 1]")
    W = object.__new__(MatrixWorkload)                                 # the validation of the constructor, skipped
    for name, value in (("Q", raw), ("m", raw.shape[0]), ("N", raw.shape[1]), ("names", None)):
        object.__setattr__(W, name, value)
    return W


def composed_laplace_stored_entries(x, Q, *, epsilon, n=None, delta=0.0, neighbours="add/remove", trials=None,
                                    rng=None, sampler=laplace_noise):
    """WRONG: :func:`~dpbook.gaussian.composed_laplace_mechanism` on :func:`stored_entries_workload` ``(Q)``: each
    count is charged sensitivity 1 though a cell stored ``k`` times moves it by ``k``.  Claims ``ε``."""
    return composed_laplace_mechanism(x, stored_entries_workload(Q), epsilon=epsilon, n=n, delta=delta,
                                      neighbours=neighbours, trials=trials, rng=rng, sampler=sampler)


def above_threshold_stored_entries(x, Q, *, threshold, epsilon, n=None, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: :func:`~dpbook.sparse_vector.above_threshold` on :func:`stored_entries_workload` ``(Q)``: the
    normalised answers are charged sensitivity ``1/n`` though a cell stored ``k`` times moves them by ``k/n``."""
    return above_threshold(x, stored_entries_workload(Q), threshold=threshold, epsilon=epsilon, n=n, trials=trials,
                           rng=rng, sampler=sampler)


def mwem_practical_distinct_cells(x, workload, *, epsilon, T, n=None, select_share=0.5, replay=0,
                                  trials=None, rng=None, sampler=laplace_noise):
    """WRONG: whole-marginal :func:`~dpbook.mwem.mwem_practical` under replace-one neighbours charged ``Δ = 2`` per
    marginal of two or more listed cells (1 for one), as if no cell were listed twice.  A cell listed ``k`` times
    and another listed ``k'`` times move by ``k + k'`` when a row moves between them.  Claims ``ε``."""
    W = as_workload(workload)
    if not isinstance(W, MarginalWorkload):
        raise TypeError(f"workload must be a MarginalWorkload, got {type(W).__name__}")
    W = copy.copy(W)
    layout = copy.copy(marginal_layout(W))
    listed = (layout.units >= 0).sum(axis=1)
    layout.replace_sensitivity = np.where(listed >= 2, 2.0, 1.0)       # BUG: repeated cells not counted
    W._marginal_layout = layout                                      # the cache marginal_layout reads
    rel = mwem_practical(x, W, epsilon=epsilon, T=T, n=n, measure="marginal", output="last", replay=replay,
                         select_share=select_share, neighbours="replace-one", trials=trials, rng=rng, sampler=sampler)
    return dataclasses.replace(rel, mechanism="broken mwem (repeated cells not counted)")


def _claims_unit_range(workload):
    """A copy of ``workload`` whose :meth:`entry_range` says ``(0, 1)`` whatever its entries are."""
    W = copy.copy(as_workload(workload))
    object.__setattr__(W, "entry_range", lambda: (0.0, 1.0))           # BUG: the range is assumed, not read
    return W


def composed_laplace_unit_range(x, workload, *, epsilon, n=None, delta=0.0, neighbours="add/remove", trials=None,
                                rng=None, sampler=laplace_noise):
    """WRONG: :func:`~dpbook.gaussian.composed_laplace_mechanism` assuming each count moves by at most 1 (entries in
    ``[0, 1]``) without reading the workload's range: overlapping cut queries move by 2.  Claims ``ε``."""
    return composed_laplace_mechanism(x, _claims_unit_range(workload), epsilon=epsilon, n=n, delta=delta,
                                      neighbours=neighbours, trials=trials, rng=rng, sampler=sampler)


def mwem_practical_unit_range(x, workload, *, epsilon, T, n=None, select_share=0.5, neighbours="add/remove",
                              replay=0, trials=None, rng=None, sampler=laplace_noise):
    """WRONG: :func:`~dpbook.mwem.mwem_practical` measuring single queries (``measure="cell"``) at ``Δ = 1``
    without reading the workload's range: overlapping cut queries move by 2.  Claims ``ε``."""
    return mwem_practical(x, _claims_unit_range(workload), epsilon=epsilon, T=T, n=n, measure="cell", output="last",
                          replay=replay, select_share=select_share, neighbours=neighbours, trials=trials, rng=rng,
                          sampler=sampler)
