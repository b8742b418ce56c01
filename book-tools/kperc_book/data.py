"""The book's stored datasets: registry, sha256 manifest, loading and checking.

The datasets the book reads are listed in :data:`REGISTRY`; each is made by a seeded
generator of :mod:`kperc.datasets`. ``python -m kperc_book.data`` writes them to
``data/`` with a manifest (generator, parameters, seed, shapes, sha256); :func:`load`
reads one back and verifies its hash; ``--check`` regenerates every dataset in memory
and compares.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from kperc import datasets as _gen
from kperc.datasets import (  # noqa: F401  (re-exported for the chapters)
    Dataset,
    breast_cancer,
    circles,
    digits,
    infeasible,
    moons,
    planted,
    two_rays,
    xor,
)

from .paths import DATA_DIR, require_checkout

__all__ = [
    "Dataset",
    "REGISTRY",
    "PROBLEMS",
    "problem",
    "load",
    "generate",
    "manifest",
    "write_all",
    "verify_all",
    "DATA_DIR",
    "ManifestError",
]

MANIFEST = "manifest.json"


#: Datasets stored in ``data/``: name -> (generator, keyword arguments, provenance).
REGISTRY: dict[str, tuple[str, dict[str, Any], str]] = {
    "planted_2d": (
        "planted",
        {"n": 40, "d": 2, "rho": 0.15, "near": 0.3, "seed": 1},
        "kperc.datasets.planted: separable 2-D points with planted margin 0.15",
    ),
    "two_rays_r10": (
        "two_rays",
        {"r": 10.0, "n_per_ray": 10},
        "kperc.datasets.two_rays: the example of Section 2 of the paper, r = 10",
    ),
    "circles": (
        "circles",
        {"n": 200, "noise": 0.05, "factor": 0.5, "seed": 0},
        "sklearn.datasets.make_circles through kperc.datasets.circles",
    ),
    "moons": (
        "moons",
        {"n": 200, "noise": 0.1, "seed": 0},
        "sklearn.datasets.make_moons through kperc.datasets.moons",
    ),
    "xor": ("xor", {"n": 200, "gap": 0.1, "seed": 0}, "kperc.datasets.xor"),
    "infeasible_2d": (
        "infeasible",
        {"n": 12, "d": 2, "rho": -0.3, "seed": 0},
        "kperc.datasets.infeasible: 2-D inseparable points, margin -0.3",
    ),
    "breast_cancer": (
        "breast_cancer",
        {},
        "UCI Wisconsin Diagnostic Breast Cancer, as bundled with "
        "scikit-learn (sklearn.datasets.load_breast_cancer), standardised",
    ),
    "digits_3_vs_8": (
        "digits",
        {"pair": [3, 8]},
        "UCI optical handwritten digits (8x8), as bundled with scikit-learn "
        "(sklearn.datasets.load_digits), digits 3 and 8, pixels / 16",
    ),
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
    from kperc import gram_matrix

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
    return getattr(_gen, func)(**kw)


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A byte-reproducible ``.npz`` (fixed timestamps, sorted entries)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            inner = io.BytesIO()
            np.lib.format.write_array(inner, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            zf.writestr(info, inner.getvalue())
    return buf.getvalue()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _record(name: str, ds: Dataset, blob: bytes) -> dict[str, Any]:
    func, kwargs, prov = REGISTRY[name]
    return {
        "file": f"{name}.npz",
        "generator": f"kperc.datasets.{func}",
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
    tmp = directory / f".{MANIFEST}.tmp"
    tmp.write_text(text)
    tmp.replace(directory / MANIFEST)  # atomic: a killed write never truncates the manifest
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
    manifest = _read_manifest(directory)
    if set(manifest) != set(REGISTRY):
        problems.append(f"manifest lists {sorted(manifest)}, registry {sorted(REGISTRY)}")
    for name in sorted(REGISTRY):
        ds = generate(name)
        digest = _sha256(_npz_bytes({"X": ds.X, "y": ds.y}))
        entry = manifest.get(name, {})
        if entry.get("sha256") != digest:
            problems.append(
                f"{name}: regenerated sha256 {digest} != manifest {entry.get('sha256')}"
            )
        path = directory / f"{name}.npz"
        if not path.exists():
            problems.append(f"{name}: {path.name} is missing")
        elif _sha256(path.read_bytes()) != entry.get("sha256"):
            problems.append(f"{name}: file hash differs from the manifest")
    return problems


class ManifestError(ValueError):
    """``data/manifest.json`` is missing, truncated or not a dataset manifest."""


def _read_manifest(directory: Path | str) -> dict[str, Any]:
    path = Path(directory) / MANIFEST
    fix = "restore it with `git checkout data/manifest.json` or rewrite it with `make data`"
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ManifestError(f"{MANIFEST} not found in {path.parent.name}/; {fix}") from None
    try:
        datasets = json.loads(text)["datasets"]
    except json.JSONDecodeError as err:
        raise ManifestError(
            f"{path.parent.name}/{MANIFEST} is not valid JSON (truncated? {err.msg} at line "
            f"{err.lineno}); {fix}"
        ) from None
    except (KeyError, TypeError):
        raise ManifestError(
            f"{path.parent.name}/{MANIFEST} has no 'datasets' table; {fix}"
        ) from None
    if not isinstance(datasets, dict):
        raise ManifestError(f"{path.parent.name}/{MANIFEST}: 'datasets' is not a table; {fix}")
    return datasets


def manifest(directory: Path | str = DATA_DIR) -> dict[str, Any]:
    """The dataset manifest (``data/manifest.json``) as a dictionary.

    Raises
    ------
    ManifestError
        The file is missing, truncated or malformed (a one-line message that says how to
        restore it).
    """
    return _read_manifest(directory)


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
        raise ValueError(
            f"{path} is missing; regenerate the datasets with `python -m kperc_book.data`."
        )
    blob = path.read_bytes()
    entry = manifest(directory).get(name)
    if entry is None or entry["sha256"] != _sha256(blob):
        raise ValueError(
            f"{path.name} does not match its sha256 in {MANIFEST}; regenerate "
            "with `python -m kperc_book.data` and check the generator."
        )
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        return Dataset(z["X"].copy(), z["y"].copy(), dict(entry))


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc_book.data [--check] [--dir DIR]``: write or verify ``data/``."""
    ap = argparse.ArgumentParser(prog="python -m kperc_book.data", description=main.__doc__)
    ap.add_argument(
        "--check",
        action="store_true",
        help="verify the stored files against regenerated data; write nothing",
    )
    ap.add_argument("--dir", default=str(DATA_DIR), help="data folder (default: %(default)s)")
    args = ap.parse_args(argv)
    if Path(args.dir) == DATA_DIR:
        require_checkout()
    if args.check:
        try:
            problems = verify_all(args.dir)
        except ManifestError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
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
