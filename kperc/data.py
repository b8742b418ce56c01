"""Seeded data generators, and the book's stored datasets with their provenance.

Generators (every one takes ``seed`` and returns a :class:`Dataset`):

* :func:`planted`: separable data with an exactly planted normalised margin
  (PAPER.md Section 3: ``rho w*`` is the midpoint of two support points on the sphere
  and every signed point has ``a_i^T w* >= rho``, so ``rho_2 = rho`` exactly).
* :func:`two_rays`: the normalised-vs-unnormalised example of Section 2.2.
* :func:`infeasible`: inseparable data whose signed points' hull contains a ball of a
  chosen radius around 0 (a controlled negative margin).
* :func:`circles`, :func:`moons`, :func:`xor`: the usual nonlinear sets.
* :func:`breast_cancer`, :func:`digits`: real data bundled with scikit-learn.

The datasets the book reads are listed in :data:`REGISTRY`. ``python -m kperc.data``
writes them to ``data/`` with a manifest (generator, parameters, seed, shapes,
sha256); :func:`load` reads one back and verifies its hash.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "Dataset",
    "planted",
    "two_rays",
    "infeasible",
    "circles",
    "moons",
    "xor",
    "breast_cancer",
    "digits",
    "REGISTRY",
    "PROBLEMS",
    "problem",
    "load",
    "generate",
    "write_all",
    "verify_all",
    "DATA_DIR",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
MANIFEST = "manifest.json"


@dataclass
class Dataset:
    """A labelled data set.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    info : dict
        What the generator knows exactly (planted margin, maximiser, ...).
    """

    X: np.ndarray
    y: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    def __iter__(self):  # allows ``X, y = dataset``
        return iter((self.X, self.y))


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt(np.sum(v * v))


def _orthogonal_directions(rng, w: np.ndarray, m: int) -> np.ndarray:
    """``m`` random unit vectors orthogonal to the unit vector ``w`` (rows)."""
    g = rng.standard_normal((m, w.size))
    g -= np.outer(g @ w, w)
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def _labels_and_norms(rng, A: np.ndarray, norm_range: tuple[float, float]):
    n = A.shape[0]
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    lo, hi = norm_range
    if not (0 < lo <= hi):
        raise ValueError(f"norm_range must satisfy 0 < low <= high; got {norm_range}.")
    r = np.exp(rng.uniform(np.log(lo), np.log(hi), n)) if hi > lo else np.full(n, lo)
    return A * (y * r)[:, None], y


def planted(n: int = 100, d: int = 5, rho: float = 0.1, *, near: float = 0.5,
            near_width: float = 1.0, norm_range: tuple[float, float] = (1.0, 1.0),
            seed: int = 0) -> Dataset:
    """Separable data with normalised margin exactly ``rho``.

    A unit ``w*`` is drawn; two support points ``rho w* +- sqrt(1 - rho^2) u`` lie on
    the unit sphere with their midpoint ``rho w*`` at distance ``rho`` from 0; every
    other signed point ``a_i`` has ``a_i^T w* = t_i >= rho``. The nearest point of the
    hull to 0 is therefore ``rho w*`` and ``rho_2 = rho`` (PAPER.md Section 3).

    Parameters
    ----------
    n : int
        Number of points (``n >= 2``).
    d : int
        Dimension (``d >= 2``).
    rho : float
        Planted normalised margin, ``0 < rho < 1``.
    near : float
        Fraction of the other points placed near the margin, with
        ``t_i`` uniform in ``[rho, rho (1 + near_width)]``; the rest have ``t_i``
        uniform in ``[rho, 1]``. Points near the margin make the instance hard.
    near_width : float
        Relative width of the band near the margin.
    norm_range : (float, float)
        Norms ``||x_i||`` are log-uniform in this range (the normalised margin does not
        depend on them; the unnormalised one does).
    seed : int

    Returns
    -------
    Dataset
        ``info`` has ``rho`` (exact normalised margin), ``w_star`` and ``support``
        (indices of the two support points).
    """
    if n < 2 or d < 2:
        raise ValueError(f"planted needs n >= 2 and d >= 2; got n={n}, d={d}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    if not 0 <= near <= 1:
        raise ValueError(f"near must be a fraction in [0, 1]; got {near}.")
    rng = np.random.default_rng(seed)
    w = _unit(rng.standard_normal(d))
    c = np.sqrt(1.0 - rho * rho)
    u = _orthogonal_directions(rng, w, 1)[0]
    m = n - 2
    n_near = int(round(near * m))
    hi_near = min(1.0, rho * (1.0 + near_width))
    t = np.concatenate([rng.uniform(rho, hi_near, n_near), rng.uniform(rho, 1.0, m - n_near)])
    V = _orthogonal_directions(rng, w, m)
    rest = t[:, None] * w[None, :] + np.sqrt(1.0 - t * t)[:, None] * V
    A = np.vstack([rho * w + c * u, rho * w - c * u, rest])
    perm = rng.permutation(n)
    A = A[perm]
    support = np.sort(np.flatnonzero(perm < 2))
    X, y = _labels_and_norms(rng, A, norm_range)
    return Dataset(X, y, {"rho": float(rho), "w_star": w, "support": support})


def two_rays(r: float = 10.0, n_per_ray: int = 10) -> Dataset:
    """PAPER.md Section 2.2 example: two rays with norms spread over ``[1/r, r]``.

    ``+`` points on the ray through ``(0.6, 0.8)``, ``-`` points on the ray through
    ``(0.8, 0.6)``, with norms geometrically spaced from ``1/r`` to ``r``.
    Closed forms: ``rho_2 = sqrt(2)/10`` (independent of ``r``), ``rho = rho_2 / r``,
    ``R = r``, so the perceptron bound ``R^2/rho^2 = 50 r^4`` against ``1/rho_2^2 = 50``.

    Parameters
    ----------
    r : float
        Spread, ``r >= 1``.
    n_per_ray : int
        Points per ray (``>= 2``).

    Returns
    -------
    Dataset
        ``info`` has ``rho2``, ``rho``, ``R`` and ``w_star = (-1, 1)/sqrt(2)``.
    """
    if r < 1 or n_per_ray < 2:
        raise ValueError(f"two_rays needs r >= 1 and n_per_ray >= 2; got {r}, {n_per_ray}.")
    norms = np.geomspace(1.0 / r, r, n_per_ray)
    pos = norms[:, None] * np.array([0.6, 0.8])
    neg = norms[:, None] * np.array([0.8, 0.6])
    X = np.vstack([pos, neg])
    y = np.concatenate([np.ones(n_per_ray), -np.ones(n_per_ray)])
    rho2 = np.sqrt(2.0) / 10.0
    return Dataset(X, y, {"rho2": rho2, "rho": rho2 / r, "R": float(r),
                          "w_star": np.array([-1.0, 1.0]) / np.sqrt(2.0)})


def infeasible(n: int = 50, d: int = 2, rho: float = -0.2, *,
               norm_range: tuple[float, float] = (1.0, 1.0), seed: int = 0) -> Dataset:
    """Inseparable data with a controlled negative (span-restricted) margin.

    The signed normalised points lie on the unit sphere in the cap
    ``{a : nu^T a <= |rho|}``, and ``d`` of them lie on the plane ``nu^T a = |rho|``
    around ``|rho| nu``, so that plane carries a facet of the hull at distance ``|rho|``
    from 0. In ``d = 2`` the points are placed on the circle so that this facet is the
    closest one and the margin is exactly ``rho``; in higher dimension other facets can
    be closer, and the exact margin (``info["rho"]``, via :func:`kperc.data_margin`) is
    then at most ``|rho|`` in magnitude.

    Parameters
    ----------
    n : int
        Number of points, ``n >= d + 1`` (``n >= 3`` in 2-D).
    d : int
        Dimension, ``2 <= d <= 6``.
    rho : float
        Target margin, ``-1 < rho < 0``.
    norm_range : (float, float)
    seed : int

    Returns
    -------
    Dataset
        ``info`` has ``rho`` (exact), ``rho_target`` and ``nu``.
    """
    from .margins import data_margin

    if not -1 < rho < 0:
        raise ValueError(f"rho must be in (-1, 0) for an inseparable instance; got {rho}.")
    if not 2 <= d <= 6 or n < d + 1:
        raise ValueError(f"infeasible needs 2 <= d <= 6 and n >= d + 1; got n={n}, d={d}.")
    rng = np.random.default_rng(seed)
    c = -rho
    if d == 2:
        # chord at distance c spans the arc of half-angle acos(c); fill the rest of the
        # circle with gaps smaller than that arc so that no other chord is closer.
        half = np.arccos(c)
        phi0 = rng.uniform(0, 2 * np.pi)
        rest_len = 2 * np.pi - 2 * half
        k = n - 1  # number of gaps on the rest of the circle
        k_min = int(np.ceil(rest_len / half)) + 1
        if k < k_min:
            raise ValueError(f"rho={rho} in 2-D needs n >= {k_min + 1} points so that the "
                             "facet at distance |rho| is the closest one.")
        gaps = 1.0 + 0.3 * rng.uniform(-1.0, 1.0, k)  # every gap < 2 * half
        gaps *= rest_len / gaps.sum()
        inner = half + np.cumsum(gaps)[:-1]
        angles = phi0 + np.concatenate([[-half, half], inner])
        A = np.column_stack([np.cos(angles), np.sin(angles)])
        nu = np.array([np.cos(phi0), np.sin(phi0)])
    else:
        nu = _unit(rng.standard_normal(d))
        s = np.sqrt(1.0 - c * c)
        # d points on the plane nu^T a = c, around c nu (a regular simplex pattern)
        U = _orthogonal_directions(rng, nu, d)
        U -= U.mean(axis=0)
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        face = c * nu + s * U
        m = n - d
        pts = []
        while sum(len(b) for b in pts) < m:
            g = rng.standard_normal((4 * m, d))
            g /= np.linalg.norm(g, axis=1, keepdims=True)
            pts.append(g[g @ nu <= c])
        rest = np.vstack(pts)[:m]
        A = np.vstack([face, rest])
    A = A[rng.permutation(A.shape[0])]
    X, y = _labels_and_norms(rng, A, norm_range)
    exact = data_margin(X, y, normalize=True)
    return Dataset(X, y, {"rho": float(exact), "rho_target": float(rho), "nu": nu})


def _pm(y: np.ndarray) -> np.ndarray:
    return np.where(np.asarray(y) > 0, 1.0, -1.0)


def circles(n: int = 200, *, noise: float = 0.05, factor: float = 0.5, seed: int = 0
            ) -> Dataset:
    """Two concentric circles (:func:`sklearn.datasets.make_circles`); inner is ``+1``."""
    from sklearn.datasets import make_circles

    X, y = make_circles(n_samples=n, noise=noise, factor=factor, random_state=seed)
    return Dataset(X, _pm(y), {})


def moons(n: int = 200, *, noise: float = 0.1, seed: int = 0) -> Dataset:
    """Two interleaving half-moons (:func:`sklearn.datasets.make_moons`)."""
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=n, noise=noise, random_state=seed)
    return Dataset(X, _pm(y), {})


def xor(n: int = 200, *, gap: float = 0.1, seed: int = 0) -> Dataset:
    """XOR: uniform points in ``[-1, 1]^2`` away from the axes, label ``sign(x1 x2)``."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(gap, 1.0, (n, 2)) * rng.choice([-1.0, 1.0], (n, 2))
    return Dataset(X, np.sign(X[:, 0] * X[:, 1]), {"gap": gap})


def _standardize(X: np.ndarray) -> np.ndarray:
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - X.mean(axis=0)) / sd


def breast_cancer() -> Dataset:
    """Wisconsin diagnostic breast cancer (bundled with scikit-learn), standardised.

    569 points, 30 features; ``+1`` = benign, ``-1`` = malignant.
    """
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    return Dataset(_standardize(b.data), _pm(b.target), {"source": "sklearn.datasets"})


def digits(pair: tuple[int, int] = (3, 8)) -> Dataset:
    """Two classes of the 8x8 handwritten digits (bundled with scikit-learn).

    Pixels are scaled to ``[0, 1]``; ``+1`` is the first digit of ``pair``.
    """
    from sklearn.datasets import load_digits

    dg = load_digits()
    mask = np.isin(dg.target, pair)
    X = dg.data[mask] / 16.0
    y = np.where(dg.target[mask] == pair[0], 1.0, -1.0)
    return Dataset(X, y, {"pair": list(pair), "source": "sklearn.datasets"})


#: Datasets stored in ``data/``: name -> (generator, keyword arguments, provenance).
REGISTRY: dict[str, tuple[str, dict[str, Any], str]] = {
    "planted_2d": ("planted", {"n": 40, "d": 2, "rho": 0.15, "near": 0.3, "seed": 1},
                   "kperc.data.planted: separable 2-D points with planted margin 0.15"),
    "two_rays_r10": ("two_rays", {"r": 10.0, "n_per_ray": 10},
                     "kperc.data.two_rays: PAPER.md Section 2.2 example with r = 10"),
    "circles": ("circles", {"n": 200, "noise": 0.05, "factor": 0.5, "seed": 0},
                "sklearn.datasets.make_circles through kperc.data.circles"),
    "moons": ("moons", {"n": 200, "noise": 0.1, "seed": 0},
              "sklearn.datasets.make_moons through kperc.data.moons"),
    "xor": ("xor", {"n": 200, "gap": 0.1, "seed": 0}, "kperc.data.xor"),
    "infeasible_2d": ("infeasible", {"n": 12, "d": 2, "rho": -0.3, "seed": 0},
                      "kperc.data.infeasible: 2-D inseparable points, margin -0.3"),
    "breast_cancer": ("breast_cancer", {},
                      "UCI Wisconsin Diagnostic Breast Cancer, as bundled with "
                      "scikit-learn (sklearn.datasets.load_breast_cancer), standardised"),
    "digits_3_vs_8": ("digits", {"pair": [3, 8]},
                      "UCI optical handwritten digits (8x8), as bundled with scikit-learn "
                      "(sklearn.datasets.load_digits), digits 3 and 8, pixels / 16"),
}


#: Kernel problems built on stored datasets, shared by the chapters and the benchmarks:
#: name -> (dataset, kernel, kernel parameters). ``gamma="scale"`` means
#: ``1 / (n_features * X.var())`` as in :class:`sklearn.svm.SVC`.
PROBLEMS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "breast_cancer-rbf": ("breast_cancer", "rbf", {"gamma": "scale"}),
    "digits_3_vs_8-rbf": ("digits_3_vs_8", "rbf", {"gamma": "scale"}),
    "circles-rbf": ("circles", "rbf", {"gamma": 2.0}),
    "moons-rbf": ("moons", "rbf", {"gamma": 2.0}),
    "xor-poly": ("xor", "poly", {"degree": 2, "gamma": 1.0, "coef0": 1.0}),
}


def problem(name: str, directory: Path | str | None = None):
    """Load a kernel problem of :data:`PROBLEMS`: its data, kernel and Gram matrix.

    Returns
    -------
    G : ndarray of shape (n, n)
        Normalised signed Gram matrix.
    dataset : Dataset
    kernel : str
    params : dict
        Kernel parameters with ``gamma`` resolved to a number.
    """
    from .kernels import gram_matrix

    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; known: {sorted(PROBLEMS)}.")
    dname, kernel, params = PROBLEMS[name]
    ds = load(dname) if directory is None else load(dname, directory)
    params = dict(params)
    if params.get("gamma") == "scale":
        params["gamma"] = float(1.0 / (ds.X.shape[1] * ds.X.var()))
    return gram_matrix(ds.X, ds.y, kernel, **params), ds, kernel, params


def generate(name: str) -> Dataset:
    """Run the generator of a registered dataset (without touching ``data/``)."""
    if name not in REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; known: {sorted(REGISTRY)}.")
    func, kwargs, _ = REGISTRY[name]
    kw = dict(kwargs)
    if func == "digits":
        kw["pair"] = tuple(kw["pair"])
    return globals()[func](**kw)


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A byte-reproducible ``.npz`` (fixed timestamps, sorted entries)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            inner = io.BytesIO()
            np.lib.format.write_array(inner, np.ascontiguousarray(arrays[key]),
                                      allow_pickle=False)
            zf.writestr(info, inner.getvalue())
    return buf.getvalue()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _record(name: str, ds: Dataset, blob: bytes) -> dict[str, Any]:
    func, kwargs, prov = REGISTRY[name]
    return {
        "file": f"{name}.npz",
        "generator": f"kperc.data.{func}",
        "params": kwargs,
        "seed": kwargs.get("seed"),
        "shape": {"X": list(ds.X.shape), "y": list(ds.y.shape)},
        "sha256": _sha256(blob),
        "provenance": prov,
    }


def write_all(directory: Path | str = DATA_DIR) -> dict[str, Any]:
    """Regenerate every registered dataset into ``directory`` and write the manifest."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for name in sorted(REGISTRY):
        ds = generate(name)
        blob = _npz_bytes({"X": ds.X, "y": ds.y})
        tmp = directory / f".{name}.npz.tmp"
        tmp.write_bytes(blob)
        tmp.replace(directory / f"{name}.npz")
        manifest[name] = _record(name, ds, blob)
    text = json.dumps({"datasets": manifest}, indent=2, sort_keys=True) + "\n"
    (directory / MANIFEST).write_text(text)
    return manifest


def verify_all(directory: Path | str = DATA_DIR) -> list[str]:
    """Regenerate every dataset in memory and compare with the manifest and the files.

    Returns
    -------
    list of str
        One message per mismatch (empty when everything agrees).
    """
    directory = Path(directory)
    problems = []
    manifest = json.loads((directory / MANIFEST).read_text())["datasets"]
    if set(manifest) != set(REGISTRY):
        problems.append(f"manifest lists {sorted(manifest)}, registry {sorted(REGISTRY)}")
    for name in sorted(REGISTRY):
        ds = generate(name)
        digest = _sha256(_npz_bytes({"X": ds.X, "y": ds.y}))
        entry = manifest.get(name, {})
        if entry.get("sha256") != digest:
            problems.append(f"{name}: regenerated sha256 {digest} != manifest "
                            f"{entry.get('sha256')}")
        path = directory / f"{name}.npz"
        if not path.exists():
            problems.append(f"{name}: {path.name} is missing")
        elif _sha256(path.read_bytes()) != entry.get("sha256"):
            problems.append(f"{name}: file hash differs from the manifest")
    return problems


def manifest(directory: Path | str = DATA_DIR) -> dict[str, Any]:
    """The dataset manifest (``data/manifest.json``) as a dictionary."""
    return json.loads((Path(directory) / MANIFEST).read_text())["datasets"]


def load(name: str, directory: Path | str = DATA_DIR) -> Dataset:
    """Load a stored dataset after verifying its sha256 against the manifest.

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY`.
    directory : path
        The data folder (default: ``data/`` of the repository).

    Returns
    -------
    Dataset
        ``info`` holds the manifest entry.

    Raises
    ------
    ValueError
        Unknown name, missing file, or hash mismatch (with the command that fixes it).
    """
    directory = Path(directory)
    if name not in REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; known: {sorted(REGISTRY)}.")
    path = directory / f"{name}.npz"
    if not path.exists():
        raise ValueError(f"{path} is missing; regenerate the datasets with "
                         "`python -m kperc.data`.")
    blob = path.read_bytes()
    entry = manifest(directory).get(name)
    if entry is None or entry["sha256"] != _sha256(blob):
        raise ValueError(f"{path.name} does not match its sha256 in {MANIFEST}; regenerate "
                         "with `python -m kperc.data` and check the generator.")
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        return Dataset(z["X"].copy(), z["y"].copy(), dict(entry))


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc.data [--check] [--dir DIR]``: write or verify ``data/``."""
    ap = argparse.ArgumentParser(prog="python -m kperc.data", description=main.__doc__)
    ap.add_argument("--check", action="store_true",
                    help="verify the stored files against regenerated data; write nothing")
    ap.add_argument("--dir", default=str(DATA_DIR), help="data folder (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.check:
        problems = verify_all(args.dir)
        for msg in problems:
            print("MISMATCH", msg)
        print("data/ verified" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    m = write_all(args.dir)
    for name, entry in m.items():
        print(f"{name:16s} {entry['shape']['X']} {entry['sha256'][:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
