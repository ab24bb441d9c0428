"""Databases as histograms over an indexed universe (LEC3-3.1, S1 basic / IDC §2).

A database of ``n`` rows drawn from a universe ``X`` is the histogram ``x ∈ N^|X|`` with
``x[i]`` = number of rows equal to universe element ``i`` and ``n = ||x||_1``.  Rows ↔ indices is the
job of a *universe*; :class:`BinaryUniverse` indexes ``{0,1}^d`` (first attribute = most significant bit).

Neighbouring databases (S1-Def3, IDC §2): add/remove one row, ``||x - x'||_1 = 1``; replace-one keeps
``n`` and moves one row (``||x - x'||_1 = 2``).

The loaders read the small real datasets shipped in ``data/`` (provenance in ``data/README.md``).
"""
from __future__ import annotations

import csv
import functools
import json
import math
import pathlib
from dataclasses import dataclass, field

import numpy as np

from .noise import as_generator
from .validation import as_array, check_histogram, check_int, check_probability, check_work

__all__ = ["load_results_file", 
    "BinaryUniverse", "Dataset", "PointDataset", "Graph", "SparseHistogram", "histogram", "rows_from_histogram",
    "add_row", "remove_row", "replace_row", "random_neighbour", "bootstrap",
    "load_cancer", "load_digits", "load_diabetes", "load_karate", "load_lesmis", "DATA_DIR",
    "record_pool", "synthetic_records", "record_catalogue", "sparse_database",
    "project_dataset", "project_histogram", "cancer_projection", "pixels_histogram", "digits_subsample", "digits_histogram",
    "cancer_conjunction_stream",
]

DATA_DIR = pathlib.Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class BinaryUniverse:
    """The universe ``X = {0,1}^d`` of ``N = 2^d`` rows; row ``(b_1..b_d)`` has index ``sum b_j 2^(d-j)``."""

    d: int
    attributes: tuple[str, ...] = ()

    def __post_init__(self):
        check_int("d", self.d, low=1, high=62)
        if self.attributes and len(self.attributes) != self.d:
            raise ValueError(f"attributes has {len(self.attributes)} names but d ({self.d}) attributes")

    @property
    def size(self) -> int:
        """``N = |X| = 2^d``."""
        return 1 << self.d

    def index(self, rows) -> np.ndarray:
        """Rows in ``{0,1}^{n x d}`` → universe indices in ``[0, 2^d)``."""
        rows = np.asarray(rows)
        if rows.ndim != 2 or rows.shape[1] != self.d:
            raise ValueError(f"rows must have shape (n, {self.d}), got {rows.shape}")
        if not np.isin(rows, (0, 1)).all():
            raise ValueError("rows must contain only 0 and 1")
        weights = np.left_shift(np.int64(1), np.arange(self.d - 1, -1, -1, dtype=np.int64))
        return rows.astype(np.int64) @ weights

    def rows(self, indices) -> np.ndarray:
        """Universe indices → rows in ``{0,1}^{len x d}`` (the inverse of :meth:`index`)."""
        indices = np.asarray(indices, dtype=np.int64)
        if np.any((indices < 0) | (indices >= self.size)):
            raise ValueError(f"indices must lie in [0, {self.size})")
        shifts = np.arange(self.d - 1, -1, -1, dtype=np.int64)
        return ((indices[..., None] >> shifts) & 1).astype(np.int8)

    def attribute_matrix(self) -> np.ndarray:
        """All ``N`` rows as a ``(N, d)`` 0/1 array (for small ``d``)."""
        return self.rows(np.arange(self.size))


@dataclass(frozen=True)
class Dataset:
    """A real database over a :class:`BinaryUniverse`: histogram ``x`` plus where it came from."""

    name: str
    universe: BinaryUniverse
    x: np.ndarray = field(repr=False)
    source: str = ""

    @property
    def n(self) -> int:
        return int(self.x.sum())

    @property
    def N(self) -> int:
        return self.universe.size

    def table(self) -> np.ndarray:
        """The rows as an ``(n, d)`` 0/1 table (sorted by universe index)."""
        return self.universe.rows(rows_from_histogram(self.x))


@dataclass(frozen=True)
class PointDataset:
    """Continuous data: ``n`` points in ``[-1, 1]^d`` (for smooth queries, SMOOTH)."""

    name: str
    points: np.ndarray = field(repr=False)
    columns: tuple[str, ...]
    source: str = ""

    @property
    def n(self) -> int:
        return self.points.shape[0]


@dataclass(frozen=True)
class Graph:
    """An undirected graph on vertices ``0..num_vertices-1``; ``edges`` is an ``(|E|, 2)`` array, ``u < v``."""

    name: str
    num_vertices: int
    edges: np.ndarray = field(repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    vertex_names: tuple[str, ...] = ()
    source: str = ""

    def adjacency(self) -> np.ndarray:
        """The symmetric 0/1 adjacency matrix ``A_G``."""
        A = np.zeros((self.num_vertices, self.num_vertices), dtype=np.int64)
        A[self.edges[:, 0], self.edges[:, 1]] = 1
        A[self.edges[:, 1], self.edges[:, 0]] = 1
        return A


@dataclass(frozen=True)
class SparseHistogram:
    """A histogram over a universe too large to hold densely (e.g. ``|X| = 2^32``), stored by its support.

    ``x[indices[j]] = counts[j]`` and ``x[u] = 0`` elsewhere; ``indices`` sorted and distinct, ``counts >= 1``.
    Every :class:`dpbook.queries.Workload` answers it without densifying (``counts(x)``/``answers(x)``).
    """

    N: int
    indices: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)

    def __post_init__(self):
        check_int("N", self.N, low=1)
        idx = np.asarray(self.indices)
        cnt = np.asarray(self.counts)
        if idx.ndim != 1 or cnt.shape != idx.shape or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError("indices and counts must be 1-D integer arrays of equal length")
        if idx.size and (idx[0] < 0 or idx[-1] >= self.N or np.any(np.diff(idx) <= 0)):
            raise ValueError(f"indices must be sorted, distinct and in [0, {self.N})")
        check_histogram(cnt, "counts", allow_empty=True)
        if np.any(cnt == 0):
            raise ValueError("counts must be >= 1 on the stored support")

    @classmethod
    def from_rows(cls, rows, N: int) -> "SparseHistogram":
        """Table → sparse histogram: ``rows`` are universe indices (any order, repeats allowed)."""
        rows = np.asarray(rows)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise TypeError("rows must be a 1-D integer array of universe indices")
        idx, cnt = np.unique(rows.astype(np.int64), return_counts=True)
        return cls(N, idx, cnt.astype(np.int64))

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def to_dense(self) -> np.ndarray:
        """The dense histogram (only for universes that fit in memory)."""
        if self.N > 1 << 26:
            raise ValueError(f"N ({self.N}) is too large for a dense histogram")
        x = np.zeros(self.N, dtype=np.int64)
        x[self.indices] = self.counts
        return x


def histogram(indices, N: int) -> np.ndarray:
    """Table → histogram: count how many rows take each universe index (LEC3-3.1)."""
    N = check_int("N", N, low=1)
    check_work(N=N)
    indices = as_array("indices", indices)
    if indices.ndim != 1 or indices.size == 0:
        raise ValueError(f"indices must be a non-empty 1-D array of universe indices (one per row), got shape "
                         f"{indices.shape}")
    if np.issubdtype(indices.dtype, np.floating) and not np.all(np.isfinite(indices)):
        raise ValueError("indices contains NaN or inf; universe indices are integers in [0, N)")
    if not np.issubdtype(indices.dtype, np.integer):
        raise TypeError(f"indices must be integer universe indices, got dtype {indices.dtype}")
    if indices.size and (indices.min() < 0 or indices.max() >= N):
        raise ValueError(f"indices must lie in [0, {N}), got range [{indices.min()}, {indices.max()}]")
    return np.bincount(indices, minlength=N).astype(np.int64)


def rows_from_histogram(x) -> np.ndarray:
    """Histogram → table: the universe index of every row, sorted (inverse of :func:`histogram`)."""
    x = check_histogram(x, allow_empty=True)
    return np.repeat(np.arange(x.size, dtype=np.int64), x)


def _check_index(name, i, N):
    return check_int(name, i, low=0, high=N - 1)


def add_row(x, i: int) -> np.ndarray:
    """The neighbour ``x + e_i``: one more row equal to universe element ``i``."""
    x = check_histogram(x, allow_empty=True)
    out = x.copy()
    out[_check_index("i", i, x.size)] += 1
    return out


def remove_row(x, i: int) -> np.ndarray:
    """The neighbour ``x - e_i``: one row equal to element ``i`` removed (requires ``x[i] >= 1``)."""
    x = check_histogram(x, allow_empty=True)
    i = _check_index("i", i, x.size)
    if x[i] == 0:
        raise ValueError(f"cannot remove a row equal to element i ({i}): x[{i}] is 0")
    out = x.copy()
    out[i] -= 1
    return out


def replace_row(x, i: int, j: int) -> np.ndarray:
    """The replace-one neighbour: one row equal to ``i`` becomes ``j`` (``n`` unchanged)."""
    x = check_histogram(x, allow_empty=True)
    _check_index("j", j, x.size)
    return add_row(remove_row(x, i), j)


def random_neighbour(x, rng=None, *, kind: str = "add/remove") -> np.ndarray:
    """A uniformly chosen neighbour of ``x``: ``kind`` is ``"add/remove"`` or ``"replace-one"``."""
    x = check_histogram(x)
    rng = as_generator(rng)
    if kind not in ("add/remove", "replace-one"):
        raise ValueError(f"kind ({kind!r}) must be 'add/remove' or 'replace-one'")
    rows = rows_from_histogram(x)
    if kind == "replace-one":
        return replace_row(x, int(rng.choice(rows)), int(rng.integers(x.size)))
    if rng.random() < 0.5:
        return add_row(x, int(rng.integers(x.size)))
    return remove_row(x, int(rng.choice(rows)))


def bootstrap(x, n: int, rng=None) -> np.ndarray:
    """A database of ``n`` rows resampled with replacement from ``x`` (to vary ``n`` on real data)."""
    x = check_histogram(x)
    n = check_int("n", n, low=1)
    return as_generator(rng).multinomial(n, x / x.sum()).astype(np.int64)


# --------------------------------------------------------------------------- loaders

def _read_csv(name: str) -> tuple[list[str], list[list[str]]]:
    path = DATA_DIR / name
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def _load_binary(file: str, name: str, source: str) -> Dataset:
    header, rows = _read_csv(file)
    table = np.array(rows, dtype=np.int64)
    universe = BinaryUniverse(len(header), tuple(header))
    return Dataset(name, universe, histogram(universe.index(table), universe.size), source)


def load_cancer() -> Dataset:
    """Wisconsin breast cancer (WDBC), 569 patients × 11 binary attributes, ``|X| = 2^11 = 2048``.

    Ten "mean" cell-nucleus features thresholded at their median, plus ``malignant``.
    """
    return _load_binary("cancer_binary.csv", "cancer", "UCI WDBC via scikit-learn; see data/README.md")


def load_digits() -> Dataset:
    """Handwritten digits, 1797 images pooled to 4×4 binary pixels, ``|X| = 2^16 = 65536``."""
    return _load_binary("digits_binary.csv", "digits", "UCI optical digits via scikit-learn; see data/README.md")


def load_diabetes() -> PointDataset:
    """Diabetes (Efron et al. 2004): 442 patients, 10 features + progression, each scaled to ``[-1, 1]``."""
    header, rows = _read_csv("diabetes_scaled.csv")
    return PointDataset("diabetes", np.array(rows, dtype=np.float64), tuple(header),
                        "Efron et al. 2004 via scikit-learn; see data/README.md")


def load_karate() -> Graph:
    """Zachary's karate club: 34 members, 78 friendships."""
    _, rows = _read_csv("karate_edges.csv")
    return Graph("karate", 34, np.array(rows, dtype=np.int64), source="Zachary 1977 via networkx")


def load_lesmis() -> Graph:
    """Les Misérables co-appearance graph: 77 characters, 254 edges (weights = co-appearances)."""
    _, rows = _read_csv("lesmis_edges.csv")
    _, names = _read_csv("lesmis_nodes.csv")
    arr = np.array(rows, dtype=np.int64)
    return Graph("lesmis", len(names), arr[:, :2].copy(), arr[:, 2].copy(), tuple(n for _, n in names),
                 source="Knuth 1993 (Stanford GraphBase) via networkx")


# --------------------------------------------------------------------------- projections and the chapters' tables

def project_dataset(dataset: Dataset, attributes) -> Dataset:
    """The same rows restricted to a few attributes (names or indices): a histogram over ``{0,1}^k``.

    A public, data-independent reduction of the universe (``N = 2^k``), e.g. so that SmallDB's range (chapter 08)
    is enumerable.  The first listed attribute becomes the most significant bit (:class:`BinaryUniverse`).
    :func:`project_histogram` is the same reduction on a bare histogram.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a dpbook.data.Dataset, got {type(dataset).__name__}")
    names = dataset.universe.attributes
    if isinstance(attributes, (str, int, np.integer)) or len(attributes) == 0:
        raise ValueError(f"attributes ({attributes!r}) must be a non-empty list of names or indices")
    cols = [names.index(a) if isinstance(a, str) and a in names else a for a in attributes]
    for a, c in zip(attributes, cols):
        if isinstance(c, str) or not isinstance(c, (int, np.integer)) or not 0 <= c < dataset.universe.d:
            raise ValueError(f"attribute {a!r} is not a name or index of {dataset.name}'s {dataset.universe.d} attributes")
    if len(set(cols)) != len(cols):
        raise ValueError(f"attributes ({attributes!r}) must be distinct")
    universe = BinaryUniverse(len(cols), tuple(names[c] for c in cols) if names else ())
    x = histogram(universe.index(dataset.table()[:, cols]), universe.size)
    return Dataset(f"{dataset.name}[{', '.join(universe.attributes)}]", universe, x, dataset.source)


def project_histogram(x, d, attributes) -> np.ndarray:
    """Marginalise a histogram over ``{0,1}^d`` onto the listed attribute indices (a universe of ``2^len``
    elements): :func:`project_dataset` on a bare histogram, without building the rows.

    The first listed attribute becomes the most significant bit, as in :class:`BinaryUniverse`.  Chapter 10
    uses it for the tiny universes (``N = 8``) of the median mechanism.
    """
    x = check_histogram(x)
    d = check_int("d", d, low=1, high=40)
    if x.size != 1 << d:
        raise ValueError(f"x has {x.size} cells but {{0,1}}^d has {1 << d}")
    attributes = [check_int("attribute", a, low=0, high=d - 1) for a in attributes]
    if not attributes or len(set(attributes)) != len(attributes):
        raise ValueError("attributes must be a non-empty list of distinct attribute indices")
    cube = x.reshape((2,) * d)
    others = tuple(a for a in range(d) if a not in attributes)
    marg = cube.sum(axis=others)                       # remaining axes in sorted order
    order = [sorted(attributes).index(a) for a in attributes]
    return np.transpose(marg, axes=order).reshape(-1).astype(np.int64)


def cancer_projection(attributes) -> Dataset:
    """The cancer table (:func:`load_cancer`) restricted to ``attributes`` (a tuple of names or indices,
    :func:`project_dataset`; cached per tuple).  The chapters' small cancer tables: chapter 08's
    ``("radius_high", "texture_high", "malignant")`` (SmallDB's ``N = 8``), chapter 10's six attributes
    ``(0, 1, 2, 3, 4, 10)`` (``N = 64``) and three ``(0, 3, 10)`` (the median mechanism's ``N = 8``).
    The returned histogram is read-only: it is shared by every caller."""
    if isinstance(attributes, list):
        attributes = tuple(attributes)
    return _cancer_projection(attributes)


@functools.lru_cache(typed=True, maxsize=None)
def _cancer_projection(attributes) -> Dataset:
    data = project_dataset(load_cancer(), attributes)
    data.x.flags.writeable = False
    return data


def cancer_conjunction_stream() -> tuple[np.ndarray, int]:
    """Chapter 06's query stream: the true normalised answers of the 165 three-way conjunctions of the cancer data
    ("attributes ``i < j < l`` are all 1", in lexicographic order of ``(i, j, l)``, as
    :func:`dpbook.queries.conjunctions` ``(11, 3)`` orders them), and the data's row count ``n``.

    Cached; the returned array is read-only (shared by every caller)."""
    return _cancer_conjunction_stream()


@functools.lru_cache(maxsize=1)
def _cancer_conjunction_stream() -> tuple[np.ndarray, int]:
    data = load_cancer()
    d = data.universe.d
    bits = (np.arange(data.N)[:, None] >> (d - 1 - np.arange(d))) & 1          # attribute a = bit d-1-a of a row
    f = np.array([data.x[(bits[:, i] & bits[:, j] & bits[:, l]) == 1].sum()
                  for i in range(d) for j in range(i + 1, d) for l in range(j + 1, d)], dtype=float) / data.n
    f.flags.writeable = False
    return f, int(data.n)


_PIXELS: dict = {}


def pixels_histogram(d: int = 16) -> np.ndarray:
    """The 1797 digits marginalised to their first ``d`` pixels: a histogram over ``{0,1}^d`` (``|X| = 2^d``).

    Varying ``d`` varies the universe size on real data (the first attributes are the most significant bits).
    """
    d = check_int("d", d, low=1, high=16)
    if d not in _PIXELS:
        _PIXELS[d] = load_digits().x.reshape(1 << d, -1).sum(axis=1)
    return _PIXELS[d].copy()


def digits_subsample(d: int, n: int, rng=None) -> np.ndarray:
    """``n`` of the 1797 real digit rows, drawn without replacement, as a histogram over the first ``d`` pixels
    (chapter 09's regime grid).

    ``n = 1797`` returns the whole real table.  Never duplicates a row: a smaller ``n`` is a real smaller table.
    """
    x = pixels_histogram(check_int("d", d, low=1, high=16))
    n = check_int("n", n, low=1, high=int(x.sum()))
    if n == x.sum():
        return x
    return as_generator(rng).multivariate_hypergeometric(x, n)


def digits_histogram(scale: int = 1, rows: int | None = None) -> np.ndarray:
    """The 1797 digits as 4×4 binary pixels, a histogram over ``{0,1}^16`` (chapter 11's large universe).

    ``scale`` counts every image ``scale`` times (``n = 1797·scale``: duplication, to be said wherever it is
    used); ``rows`` instead resamples that many images with replacement (:func:`bootstrap`, seed 2026, to go
    *below* n = 1797).
    """
    scale = check_int("scale", scale, low=1)
    x = load_digits().x
    if rows is not None:
        x = bootstrap(x, check_int("rows", rows, low=1), rng=2026)
    return x * scale


# --------------------------------------------------------------------- sparse records over 2^bits (chapter 15)

def record_pool(size, bits=32, rng=None) -> np.ndarray:
    """``size`` distinct public ``bits``-bit records (sorted): the "catalogue" both data and queries draw from.

    Data-independent (drawn from its own seed), so queries may use it without touching privacy.
    """
    size, bits = check_int("size", size, low=1), check_int("bits", bits, low=1, high=62)
    if size > (1 << bits):
        raise ValueError(f"size ({size}) must be <= 2^bits ({1 << bits})")
    rng = as_generator(rng)
    out = np.unique(rng.integers(0, 1 << bits, size=size, dtype=np.int64))
    while out.size < size:
        out = np.unique(np.concatenate([out, rng.integers(0, 1 << bits, size=size - out.size, dtype=np.int64)]))
    return out


def synthetic_records(n, pool, *, bits=32, pool_share=0.7, zipf=1.1, rng=None) -> SparseHistogram:
    """A seeded database of ``n`` records over ``N = 2^bits``: a share ``pool_share`` of them drawn from
    ``pool`` with Zipf(``zipf``) popularity (heavy hitters), the rest uniformly random ``bits``-bit strings
    (almost all distinct).  Returned as a :class:`~dpbook.data.SparseHistogram`."""
    n, bits = check_int("n", n, low=1, high=10 ** 8), check_int("bits", bits, low=1, high=62)
    pool = as_array("pool", pool)
    if pool.ndim != 1 or pool.size == 0 or not np.issubdtype(pool.dtype, np.integer):
        raise ValueError("pool must be a non-empty 1-D integer array of records")
    if pool.min() < 0 or pool.max() >= (1 << bits):
        raise ValueError(f"pool must hold records in [0, 2^{bits})")
    share = check_probability(pool_share, "pool_share")
    zipf = float(zipf)
    if not (math.isfinite(zipf) and zipf > 0):
        raise ValueError(f"zipf ({zipf!r}) must be a finite number > 0")
    rng = as_generator(rng)
    from_pool = rng.binomial(n, share)
    p = 1.0 / np.arange(1, pool.size + 1) ** zipf
    rows = np.concatenate([pool[rng.choice(pool.size, size=from_pool, p=p / p.sum())],
                           rng.integers(0, 1 << bits, size=n - from_pool, dtype=np.int64)])
    return SparseHistogram.from_rows(rows, 1 << bits)


def record_catalogue(bits: int = 32, size: int = 256, seed: int = 7) -> np.ndarray:
    """Chapter 15's public catalogue: ``size`` popular ``bits``-bit records (:func:`record_pool` with its own
    seed: data-independent)."""
    args = check_int("bits", bits, low=1, high=62), check_int("size", size, low=1), check_int("seed", seed, low=0)
    return _record_catalogue(*args).copy()


def sparse_database(n: int, bits: int = 32, seed: int = 2026) -> SparseHistogram:
    """Chapter 15's seeded database: ``n`` records, 70% from :func:`record_catalogue` (Zipf 1.1), 30% random
    ``bits``-bit strings (:func:`synthetic_records`).  Cached per ``(n, bits, seed)``."""
    args = check_int("n", n, low=1), check_int("bits", bits, low=1, high=62), check_int("seed", seed, low=0)
    check_work(n=args[0])
    return _sparse_database(*args)


@functools.lru_cache(typed=True, maxsize=None)
def _record_catalogue(bits, size, seed):
    return record_pool(size, bits, rng=seed)


@functools.lru_cache(typed=True, maxsize=None)
def _sparse_database(n, bits, seed):
    return synthetic_records(n, _record_catalogue(bits, 256, 7), bits=bits, rng=seed)



def results_file_key(path, default) -> str:
    """The key a stored-results loader caches a parsed file under: ``path`` (``default`` when None) resolved, as a str.
    ``TypeError`` unless it is a str or a Path."""
    path = default if path is None else path
    if not isinstance(path, (str, pathlib.Path)):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    return str(pathlib.Path(path).resolve())


def load_results_file(path, made_by: str):
    """The JSON results file at ``path`` that ``made_by`` (the command that writes it, for the message) stored: its
    parsed content.  ``TypeError`` unless ``path`` is a str or a Path; ``ValueError`` naming ``path`` when it is not
    an existing file or not JSON.  The caller checks the content's schema."""
    if not isinstance(path, (str, pathlib.Path)):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    path = pathlib.Path(path)
    if not path.is_file():
        raise ValueError(f"path ({str(path)!r}) must be an existing results file of {made_by}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"path ({str(path)!r}) is not a results file of {made_by} (not JSON)") from err

# a valid call of the seeded record generator, for the sweeps of tests/ (determinism, bad input)
from .contract import example  # noqa: E402  (contract is data's layer; imported last, after the loaders)

example(synthetic_records, lambda: dict(n=50, pool=np.arange(1, 9), bits=8))
