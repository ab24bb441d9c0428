"""Rebuild the small real datasets of data/ from copies bundled inside registry packages.

    pip install scikit-learn networkx && python data/make_datasets.py

Every transformation is spelled out here and in data/README.md; the output is deterministic (no
randomness), and data/MANIFEST.sha256 records the expected bytes (tests/test_data.py checks them).
"""
from __future__ import annotations

import csv
import hashlib
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

# Breast cancer (WDBC): the ten "mean" features, each thresholded at its median, plus the diagnosis.
CANCER_FEATURES = ["mean radius", "mean texture", "mean perimeter", "mean area", "mean smoothness",
                   "mean compactness", "mean concavity", "mean concave points", "mean symmetry",
                   "mean fractal dimension"]


def _write_csv(path: pathlib.Path, header: list[str], rows) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def cancer_binary() -> None:
    from sklearn.datasets import load_breast_cancer
    bunch = load_breast_cancer()
    names = list(bunch.feature_names)
    cols = [names.index(f) for f in CANCER_FEATURES]
    X = bunch.data[:, cols]
    bits = (X > np.median(X, axis=0)).astype(int)          # 1 = above the feature's median
    malignant = (bunch.target == 0).astype(int)             # sklearn codes malignant as 0
    header = [f.replace("mean ", "").replace(" ", "_") + "_high" for f in CANCER_FEATURES] + ["malignant"]
    _write_csv(HERE / "cancer_binary.csv", header, np.column_stack([bits, malignant]).tolist())


def digits_binary() -> None:
    from sklearn.datasets import load_digits
    images = load_digits().images                            # (1797, 8, 8), grey levels 0..16
    pooled = images.reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4))   # 2x2 average pooling -> 4x4
    bits = (pooled >= 8).astype(int)                           # ink if the block is at least half dark
    header = [f"pixel_r{r}c{c}" for r in range(4) for c in range(4)]
    _write_csv(HERE / "digits_binary.csv", header, bits.reshape(len(bits), 16).tolist())


def diabetes_scaled() -> None:
    from sklearn.datasets import load_diabetes
    bunch = load_diabetes(scaled=False)
    Z = np.column_stack([bunch.data, bunch.target])
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    scaled = 2 * (Z - lo) / (hi - lo) - 1                      # each column min-max to [-1, 1]
    header = list(bunch.feature_names) + ["progression"]
    _write_csv(HERE / "diabetes_scaled.csv", header, [[f"{v:.6f}" for v in row] for row in scaled])


def graphs() -> None:
    import networkx as nx
    karate = nx.karate_club_graph()
    _write_csv(HERE / "karate_edges.csv", ["u", "v"], sorted(tuple(sorted(e)) for e in karate.edges()))
    lesmis = nx.les_miserables_graph()
    names = sorted(lesmis.nodes())
    index = {name: i for i, name in enumerate(names)}
    rows = sorted((min(index[a], index[b]), max(index[a], index[b]), int(d["weight"]))
                  for a, b, d in lesmis.edges(data=True))
    _write_csv(HERE / "lesmis_edges.csv", ["u", "v", "weight"], rows)
    _write_csv(HERE / "lesmis_nodes.csv", ["id", "name"], list(enumerate(names)))


FILES = ["cancer_binary.csv", "digits_binary.csv", "diabetes_scaled.csv", "karate_edges.csv",
         "lesmis_edges.csv", "lesmis_nodes.csv"]


def write_manifest() -> None:
    lines = [f"{hashlib.sha256((HERE / f).read_bytes()).hexdigest()}  {f}" for f in FILES]
    (HERE / "MANIFEST.sha256").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    cancer_binary()
    digits_binary()
    diabetes_scaled()
    graphs()
    write_manifest()
    print((HERE / "MANIFEST.sha256").read_text(), end="")
