"""Fast kernels of the multiplicative-weights update (private: the readable rules live in
:mod:`dpbook.multiplicative_weights`, tests/test_multiplicative_weights.py checks that these agree with them).

* :func:`exp_update` — ``p ∝ p · exp(c · q)`` for a dense query (``bool`` indicators without an ``exp`` per
  element), overflow-shifted, with a log-space guard against underflow;
* :func:`support_update` — the same for rows that each update on one query given by its non-zeros
  ``(indices, values)`` (the generic :meth:`dpbook.queries.Workload.mw_update`: never an ``N``-vector per query);
* :func:`marginal_cells_update` — many runs, each on its own marginal cell: scale the picked cells' slabs of the
  reshaped ``(2,)*d`` cube (:class:`dpbook.queries.MarginalWorkload`'s override);
* :class:`MarginalLayout` — whole marginals (all cells sharing an attribute set) updated in one pass, with the
  blockwise :func:`marginal_sum` (MWEM's ``measure="marginal"``, :func:`dpbook.mwem.mwem_practical`).
"""
from __future__ import annotations

import numpy as np

# No __all__: a private module of unvalidated kernels (callers validate), outside the public API and its sweep.

OVERFLOW_SAFE = 700.0      # exp(700) ~ 1e304 < float64 max: no shift needed below this coefficient
TINY = 1e-15               # below this unnormalised mass, redo the row in log space
SLAB_SAFE = 30.0           # |c| <= 30: slab factors >= e^-30, no underflow trouble; beyond, the general path


# --------------------------------------------------------------------------- dense queries

def exp_update(p, q, c, out=None) -> np.ndarray:
    """``p ∝ p · exp(c · q)`` renormalised (inputs already validated): ``p`` ``(N,)`` or ``(trials, N)``, ``q``
    float in ``[0,1]`` or ``bool``, ``c`` a float or one per row.  ``out`` may be ``p`` (in place)."""
    c = np.asarray(c, dtype=np.float64)[..., None] if np.ndim(c) else float(c)
    shape = np.broadcast_shapes(p.shape, q.shape)
    private_out = out is not None and not np.shares_memory(out, p) and not np.shares_memory(out, q)
    buf = out if private_out else np.empty(shape)
    if q.dtype == bool:
        # factor e^c on q, 1 off q, i.e. (after renormalising) 1 where the factor is larger and
        # small = e^{-|c|} where it is smaller; z marks the "larger" side.  factor = small + (1 - small)·z is
        # then exact on the small side (small + 0) and within 1 ulp of 1 on the other, never overflows, and
        # costs plain casts and multiplies (np.where / masked ufuncs on a random bool mask are ~20x slower).
        z = q ^ (np.asarray(c) < 0)                        # (a bool XOR; broadcasts per row for a batch)
        small = np.exp(-np.abs(c))
        buf[...] = z.view(np.uint8)
        buf *= 1.0 - small
        buf += small
        buf *= p
    else:
        np.multiply(q, c, out=buf)
        if np.any(np.asarray(c) > OVERFLOW_SAFE):
            buf -= np.maximum(c, 0.0)                      # exp(c·q − c) <= 1; cancels on renormalising
        np.exp(buf, out=buf)
        buf *= p
    total = buf.sum(axis=-1, keepdims=True)
    bad = ~(total >= TINY)                                  # underflow (or a zero row): redo in log space
    if np.any(bad):
        log_space_rows(p, q, c, buf, bad[..., 0])
        total = np.where(bad, 1.0, total)
    buf *= 1.0 / total                                      # (a multiply is ~2x faster than a divide)
    if out is not None and buf is not out:
        out[...] = buf
        return out
    return buf


def log_space_rows(p, q, c, out, rows) -> None:
    """Write ``softmax(log p + c·q)`` into the flagged rows of ``out`` (the underflow guard)."""
    p2, q2, out2 = np.atleast_2d(p), np.atleast_2d(q), np.atleast_2d(out)
    c2 = np.broadcast_to(np.asarray(c, dtype=np.float64).reshape(-1, 1), (p2.shape[0], 1))
    for i in np.flatnonzero(np.atleast_1d(rows)):           # a loop over the few bad *trials*, not over |X|
        qi = q2[i if q2.shape[0] > 1 else 0].astype(np.float64)
        with np.errstate(divide="ignore"):
            g = np.log(p2[i]) + c2[i, 0] * qi
        g -= g.max()
        np.exp(g, out=g)
        out2[i] = g / g.sum()


# --------------------------------------------------------------------------- one query given by its support

def support_update(P, rows, indices, values, c) -> None:
    """``P[r] ∝ P[r] · exp(c[r] · q)`` in place for the listed ``rows`` of ``P`` (``(trials, N)``), ``q`` the query
    with non-zeros ``values`` at ``indices``: touches the support, then one scale per row (shifted by
    ``max(c, 0)`` so no factor exceeds 1; a row whose mass underflows is recomputed in log space)."""
    c = np.asarray(c, dtype=np.float64).reshape(-1, 1)
    shift = np.maximum(c, 0.0)
    block = P[rows]
    block *= np.exp(-shift)                                 # e^{c·0 − shift} off the support
    block[:, indices] *= np.exp(c * values[None, :])        # e^{c·q}·e^{−shift} on it (together: e^{c·q − shift})
    total = block.sum(axis=1, keepdims=True)
    bad = ~(total >= TINY)
    for t in np.flatnonzero(bad[:, 0]):                     # underflow guard (extreme |c| only)
        q = np.zeros(P.shape[1])
        q[indices] = values
        log_space_rows(P[rows[t]], q, c[t, 0], block[t], np.array([True]))
    block *= 1.0 / np.where(bad, 1.0, total)
    P[rows] = block


# --------------------------------------------------------------------------- marginal cells over {0,1}^d

def slab_index(d: int, attributes, values) -> tuple:
    """The index of the cell ``x_S = v`` in the reshaped ``(2,)*d`` cube (a basic-slicing view)."""
    where = dict(zip(attributes, values))      # slice(b, b+1), not b: a view even when S fixes every attribute
    return tuple(slice(where[a], where[a] + 1) if a in where else slice(None) for a in range(d))


def marginal_cells_update(P, d, cells, picks, coefficient) -> None:
    """``P[t] ∝ P[t] · exp(coefficient[t] · q_{picks[t]})`` in place for many runs at once (``|c| <= SLAB_SAFE``):
    ``P *= e^{−max(c,0)}``, then each picked cell's slab (grouped by cell, a loop over the distinct picks, not
    over ``|X|``) ``*= e^{c}``, then renormalise."""
    P *= np.exp(-np.maximum(coefficient, 0.0))[:, None]
    ratio = np.exp(coefficient)                                # e^c on the cell, relative to the rest
    cube = P.reshape((P.shape[0],) + (2,) * d)
    for j in np.unique(picks):
        rows = np.flatnonzero(picks == j)
        S, v = cells[j]
        where = dict(zip(S, v))
        index = (rows,) + tuple(where.get(a, slice(None)) for a in range(d))
        cube[index] *= ratio[rows].reshape((-1,) + (1,) * (d - len(S)))
    P /= P.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- whole marginals

class MarginalLayout:
    """Per unit (cells sharing an attribute set ``S``): ``S`` sorted, each cell's index in the ``(2,)*|S|``
    grid (``flat``, ``-1`` padded), and the merged block shape of the cube (the attributes of ``S`` stay axes
    of length 2; each run of other attributes becomes one axis) with the axes a marginal sums away."""

    def __init__(self, d, cells, units, sensitivity=None, replace_sensitivity=None):
        self.d, self.cells, self.units = d, cells, units
        self.sets, self.shapes, self.away, self.fshapes = [], [], [], []
        self.sensitivity = sensitivity     # per unit: the add/remove L1 sensitivity of its cell counts
        self.replace_sensitivity = replace_sensitivity     # ... and the replace-one one
        self.flat = np.full(units.shape, -1, dtype=np.int64)
        for u, row in enumerate(units):
            S = tuple(sorted(cells[row[0]][0]))
            for t, j in enumerate(row[row >= 0]):
                where = dict(zip(*cells[j]))
                self.flat[u, t] = sum(where[a] << (len(S) - 1 - s) for s, a in enumerate(S))
            shape, keep, run = [], [], 0
            for a in range(d):
                if a in S:
                    if run:
                        shape.append(1 << run)
                        run = 0
                    keep.append(len(shape))
                    shape.append(2)
                else:
                    run += 1
            if run:
                shape.append(1 << run)
            self.sets.append(S)
            self.shapes.append(tuple(shape))
            self.away.append(tuple(1 + t for t in range(len(shape)) if t not in keep))
            self.fshapes.append(tuple(2 if t in keep else 1 for t in range(len(shape))))
        self.width = 1 << max(len(S) for S in self.sets)
        self.real = [self.flat[u][self.flat[u] >= 0] for u in range(len(self.sets))]       # one run's fast path
        self.away1 = [tuple(t - 1 for t in away) for away in self.away]
        self.ordered = [np.array_equal(r, np.arange(1 << len(S))) for r, S in zip(self.real, self.sets)]

    def step_one(self, p, u, measured, n):
        """:meth:`tables` + :meth:`update` for a single run ``p`` (shape ``(N,)``) on unit ``u``, in place, with
        the fewest numpy calls (replay makes thousands of these); returns the cell answers before the update."""
        table = marginal_sum(p, self.shapes[u], self.away1[u])
        if self.ordered[u]:                                       # the unit is the whole grid, in order
            here = table
            grid = (measured - n * here) / (2.0 * n)
        else:
            here = table[self.real[u]]
            grid = np.zeros(table.size)
            grid[self.real[u]] = (measured - n * here) / (2.0 * n)
        grid -= grid.max()
        factor = np.exp(grid)
        total = table @ factor
        if not total > 1e-250:                                   # underflow guard (tiny ε only)
            self.scale(p, u, factor)
            p[...] = log_space_renormalise(p)
            return here
        factor /= total
        self.scale(p, u, factor)
        return here

    def scale(self, p, u, factor):
        """``p *= factor[x_S]`` in one pass.  Broadcasting a ``(.., 2, .., 2)`` factor over short trailing axes is
        slow in numpy, so the factor is laid out over the whole suffix from ``S``'s first axis on when that
        suffix is small (``<= 2^16``), and the cube multiplied row by row."""
        shape, fshape = self.shapes[u], self.fshapes[u]
        if p.size <= 1 << 14:
            p.reshape(shape)[...] *= factor.reshape(fshape)
            return
        t0 = fshape.index(2)
        suffix = int(np.prod(shape[t0:]))
        if suffix <= 1 << 16:
            tile = np.broadcast_to(factor.reshape(fshape[t0:]), shape[t0:]).reshape(-1)
            if suffix < 4096 and p.size >= 4096:          # short rows: repeat the tile to rows of 4096
                tile, suffix = np.tile(tile, 4096 // suffix), 4096
            p.reshape(-1, suffix)[...] *= tile
        else:
            p.reshape(shape)[...] *= factor.reshape(fshape)

    def tables(self, P, picks):
        """Each run's marginal table of ``P`` on its picked unit's ``S``: ``(R, 2^|S|)`` (flattened grid)."""
        R = P.shape[0]
        out = np.zeros((R, self.width))
        for u in np.unique(picks):
            rows = np.flatnonzero(picks == u)
            block = (P if rows.size == R else P[rows]).reshape((rows.size,) + self.shapes[u])
            out[rows, :1 << len(self.sets[u])] = block.sum(axis=self.away[u]).reshape(rows.size, -1)
        return out

    def cell_answers(self, tables, picks):
        """The picked units' cell answers read off the tables: ``(R, g)`` (0 on padding)."""
        flat = self.flat[picks]
        return np.where(flat >= 0, np.take_along_axis(tables, np.maximum(flat, 0), axis=1), 0.0)

    def update(self, P, picks, coefficient, tables) -> None:
        """``P[t] ∝ P[t] · exp(Σ_{c in the unit} coefficient[t, c] · q_c)``: the cells of one marginal are
        disjoint slabs, so this is one multiply by a ``(2,)*|S|`` factor grid broadcast over the cube, and the
        normaliser ``Σ_v table_v e^{c_v}`` comes from the marginal table (one pass in all).  Factors are
        shifted by the row's largest coefficient (``<= 1``: no overflow); a row whose normaliser underflows
        is renormalised in log space."""
        R = P.shape[0]
        for u in np.unique(picks):
            rows = np.flatnonzero(picks == u)
            size = 1 << len(self.sets[u])
            real = self.flat[u] >= 0
            grid = np.zeros((rows.size, size))
            grid[:, self.flat[u][real]] = coefficient[rows][:, real]
            grid -= grid.max(axis=1, keepdims=True)
            factor = np.exp(grid)
            total = (tables[rows, :size] * factor).sum(axis=1)
            ok = total > 1e-250
            factor[ok] /= total[ok, None]
            f = factor.reshape((rows.size,) + self.fshapes[u])
            cube = P.reshape((R,) + self.shapes[u])
            if rows.size == R:
                cube *= f
            else:
                cube[rows] *= f
            for t in rows[~ok]:                                   # underflow guard (tiny ε only)
                P[t] = log_space_renormalise(P[t])


def marginal_sum(p, shape, away) -> np.ndarray:
    """The flattened table of ``p`` (viewed with ``shape``) summed over the axes ``away`` — the same numbers as
    ``p.reshape(shape).sum(axis=away).ravel()``, which numpy computes up to 100x slower than a copy when the kept
    axes are short and innermost.  Here each reduction is a sum over the leading axis of a C-contiguous block
    whose rows are made at least 512 long.  Small universes (``<= 2^14``) take numpy's sum: there the cost is
    the call overhead, not memory."""
    if p.size <= 1 << 14:
        return p.reshape(shape).sum(axis=away).reshape(-1)
    arr, pre = p.reshape(1, -1), 1
    for t, size in enumerate(shape):
        if t not in away:
            pre *= size                                   # a kept axis: it joins the leading (kept) part
            arr = arr.reshape(pre, -1)
            continue
        after = arr.shape[1] // size
        arr = np.stack([sum_leading(block.reshape(size, after)) for block in arr])
    return arr.reshape(-1)


def sum_leading(block) -> np.ndarray:
    M, B = block.shape
    if M <= 16:                                           # few long rows: add them (numpy's reduce is slow here)
        out = block[0].copy()
        for row in block[1:]:
            out += row
        return out
    if B >= 512:
        return block.sum(axis=0)
    r = min(M, 512 // B)                                  # powers of two: r divides M
    return block.reshape(M // r, r * B).sum(axis=0).reshape(r, B).sum(axis=0)



def log_space_renormalise(p):
    """``p`` renormalised in log space (the underflow guard; uniform if every entry is 0)."""
    with np.errstate(divide="ignore", under="ignore"):
        g = np.log(np.maximum(p, 0.0))
    if not np.any(np.isfinite(g)):
        return np.full_like(p, 1.0 / p.size)
    g -= g[np.isfinite(g)].max()
    g = np.exp(g)
    return g / g.sum()
