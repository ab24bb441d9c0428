import hashlib

import numpy as np
import pytest

from dpbook import data as D
from dpbook.data import digits_subsample


def test_manifest_matches_shipped_files():
    for line in (D.DATA_DIR / "MANIFEST.sha256").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((D.DATA_DIR / name).read_bytes()).hexdigest() == digest, name


def test_rebuild_is_reproducible(tmp_path, monkeypatch):
    pytest.importorskip("sklearn")
    pytest.importorskip("networkx")
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_datasets", D.DATA_DIR / "make_datasets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "HERE", tmp_path)
    mod.cancer_binary(); mod.digits_binary(); mod.diabetes_scaled(); mod.graphs()
    for name in mod.FILES:
        assert (tmp_path / name).read_bytes() == (D.DATA_DIR / name).read_bytes(), name


def test_loaders():
    c = D.load_cancer()
    assert (c.n, c.N, c.universe.d) == (569, 2048, 11)
    assert c.universe.attributes[-1] == "malignant"
    assert c.table().sum(axis=0)[-1] == 212          # 212 malignant tumours in WDBC
    g = D.load_digits()
    assert (g.n, g.N) == (1797, 65536)
    p = D.load_diabetes()
    assert p.points.shape == (442, 11) and p.points.min() == -1 and p.points.max() == 1
    k = D.load_karate()
    assert k.num_vertices == 34 and len(k.edges) == 78
    A = k.adjacency()
    assert (A == A.T).all() and A.sum() == 156
    lm = D.load_lesmis()
    assert lm.num_vertices == 77 and len(lm.edges) == 254 and lm.weights.min() >= 1


def test_universe_round_trip():
    U = D.BinaryUniverse(5)
    idx = np.arange(32)
    assert np.array_equal(U.index(U.rows(idx)), idx)
    assert U.rows(np.array([1]))[0].tolist() == [0, 0, 0, 0, 1]       # last attribute = least significant
    with pytest.raises(ValueError, match="rows"):
        U.index(np.ones((2, 4)))
    with pytest.raises(ValueError, match="0 and 1"):
        U.index(np.full((1, 5), 2))
    with pytest.raises(ValueError, match="indices"):
        U.rows([32])
    with pytest.raises(ValueError, match="d"):
        D.BinaryUniverse(0)
    with pytest.raises(TypeError, match="d"):
        D.BinaryUniverse(2.0)
    with pytest.raises(ValueError, match="attributes"):
        D.BinaryUniverse(2, ("a",))


def test_table_histogram_round_trip():
    """LEC3-3.1 measure: table -> histogram -> table gives back the same multiset."""
    rng = np.random.default_rng(0)
    table = rng.integers(0, 50, size=300)
    x = D.histogram(table, 50)
    assert x.sum() == 300
    assert np.array_equal(D.rows_from_histogram(x), np.sort(table))
    with pytest.raises(ValueError, match="indices"):
        D.histogram(np.array([50]), 50)
    with pytest.raises(TypeError, match="indices"):
        D.histogram(np.array([0.5]), 50)
    with pytest.raises(ValueError, match="N"):
        D.histogram(np.array([0]), 0)


def test_neighbours():
    x = np.array([2, 0, 1])
    assert D.add_row(x, 1).tolist() == [2, 1, 1]
    assert D.remove_row(x, 0).tolist() == [1, 0, 1]
    assert D.replace_row(x, 0, 1).tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="x\\[1\\] is 0"):
        D.remove_row(x, 1)
    with pytest.raises(ValueError, match="i"):
        D.add_row(x, 3)
    rng = np.random.default_rng(1)
    for _ in range(50):
        assert np.abs(D.random_neighbour(x, rng) - x).sum() == 1               # add/remove: ||x - x'||_1 = 1
        r = D.random_neighbour(x, rng, kind="replace-one")
        assert r.sum() == x.sum() and np.abs(r - x).sum() in (0, 2)        # replace-one: same n
    with pytest.raises(ValueError, match="kind"):
        D.random_neighbour(x, rng, kind="swap")


def test_bootstrap():
    x = D.load_cancer().x
    y = D.bootstrap(x, 1000, 5)
    assert y.sum() == 1000 and np.all(y[x == 0] == 0)
    assert np.array_equal(y, D.bootstrap(x, 1000, 5))
    with pytest.raises(ValueError, match="n"):
        D.bootstrap(x, 0)


# --------------------------------------------------------------------------- projections and the chapters' tables

def test_project_histogram_is_project_dataset_on_a_bare_histogram():
    """The two forms of the one reduction agree (names or indices, any order: the first listed is the top bit)."""
    from dpbook.data import cancer_projection, load_cancer, project_dataset, project_histogram
    cancer = load_cancer()
    for attrs in ([0, 3, 10], [10, 3, 0], [0, 1, 2, 3, 4, 10]):
        expected = project_dataset(cancer, attrs).x
        np.testing.assert_array_equal(project_histogram(cancer.x, 11, attrs), expected)
        np.testing.assert_array_equal(cancer_projection(tuple(attrs)).x, expected)
    named = cancer_projection(("radius_high", "texture_high", "malignant"))
    assert named.N == 8 and named.n == 569 and named is cancer_projection(["radius_high", "texture_high", "malignant"])
    with pytest.raises(ValueError):
        named.x[0] = 1                                  # shared by every caller: read-only


@pytest.mark.parametrize("call, exc, match", [
    (lambda: D.cancer_projection(("nope",)), ValueError, "nope"),
    (lambda: D.cancer_projection(()), ValueError, "attributes"),
    (lambda: D.digits_histogram(scale=0), ValueError, "scale"),
    (lambda: D.digits_histogram(rows=0), ValueError, "rows"),
    (lambda: D.digits_subsample(17, 10), ValueError, "d"),
    (lambda: D.digits_subsample(4, 1798), ValueError, "n"),
])
def test_chapter_tables_reject_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_digits_histogram_scales_and_resamples():
    from dpbook.data import digits_histogram, load_digits
    np.testing.assert_array_equal(digits_histogram(), load_digits().x)
    assert digits_histogram(10).sum() == 17970 and digits_histogram(rows=180).sum() == 180
    np.testing.assert_array_equal(digits_histogram(rows=180), digits_histogram(rows=180))     # seeded


def test_pixels_histogram():
    from dpbook.data import load_digits, pixels_histogram
    assert np.array_equal(pixels_histogram(16), load_digits().x)
    for d in (1, 4, 10):
        x = pixels_histogram(d)
        assert x.size == 2 ** d and x.sum() == 1797
    x = pixels_histogram(4)
    x[0] = -5                                                      # a copy: the cache cannot be corrupted
    assert pixels_histogram(4)[0] >= 0
    with pytest.raises(ValueError, match="d"):
        pixels_histogram(17)
    import dpbook.histogram
    assert dpbook.histogram.pixels_histogram is pixels_histogram          # the chapters' old name


def test_digits_subsample_is_real_rows_without_replacement():
    from dpbook.data import pixels_histogram
    full = pixels_histogram(10)
    assert np.array_equal(digits_subsample(10, 1797), full)
    a, b = digits_subsample(10, 450, rng=3), digits_subsample(10, 450, rng=3)
    assert np.array_equal(a, b) and a.sum() == 450 and np.all(a <= full)      # never more copies than real rows
    assert not np.array_equal(a, digits_subsample(10, 450, rng=4))
    for kw, exc, name in [(dict(d=0, n=10), ValueError, "d"), (dict(d=8, n=1798), ValueError, "n"),
                          (dict(d=8, n=2.5), TypeError, "n")]:
        with pytest.raises(exc, match=name):
            digits_subsample(**kw)


def test_cancer_conjunction_stream_is_the_conjunctions_answers():
    """Chapter 06's stream: the answers of conjunctions(11, 3) on the cancer data, in their order, and its n;
    cached and read-only."""
    from dpbook.queries import conjunctions
    f, n = D.cancer_conjunction_stream()
    data = D.load_cancer()
    assert n == data.n == 569 and f.shape == (165,)
    assert np.array_equal(f, conjunctions(11, 3).answers(data.x))
    assert D.cancer_conjunction_stream()[0] is f and not f.flags.writeable
    with pytest.raises(ValueError):
        f[0] = 1.0


def test_load_results_file_reads_json_and_names_a_bad_path(tmp_path):
    from dpbook.data import load_results_file
    good = tmp_path / "results.json"
    good.write_text('{"schema": 1, "rows": [1, 2]}')
    assert load_results_file(good, "make x") == {"schema": 1, "rows": [1, 2]}
    assert load_results_file(str(good), "make x")["rows"] == [1, 2]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=r"path .*bad\.json.* not a results file of make x"):
        load_results_file(bad, "make x")
    with pytest.raises(ValueError, match=r"path .*missing\.json.* existing results file of make x"):
        load_results_file(tmp_path / "missing.json", "make x")
    with pytest.raises(ValueError, match="path"):
        load_results_file(tmp_path, "make x")                      # a folder is not a file
    with pytest.raises(TypeError, match="path"):
        load_results_file(3, "make x")


def test_results_file_key_resolves_and_refuses_other_kinds(tmp_path):
    from dpbook.data import results_file_key
    f = tmp_path / "r.json"
    assert results_file_key(None, f) == str(f.resolve()) == results_file_key(str(f), "unused")
    assert results_file_key(f, None) != results_file_key(tmp_path / "other.json", None)
    with pytest.raises(TypeError, match="path"):
        results_file_key(3, f)
