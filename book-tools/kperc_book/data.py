"""The book's stored datasets: registry, sha256 manifest, loading and checking.

The datasets the book reads are listed in :data:`REGISTRY`; each was made by a seeded
generator of :mod:`kperc.datasets` and is stored in ``data/`` with a manifest
(generator, parameters, seed, shapes, sha256). The stored files are canonical: every
chapter reads them (:func:`load` verifies the hash), and nothing rewrites them
implicitly, because another CPU's BLAS and math library round differently and would
give other bytes.

``python -m kperc_book.data --check`` (what ``make`` runs) verifies each file against its
sha256 and regenerates each dataset in memory to show that the generator still gives
the stored arrays: labels exactly, features within :func:`tolerance`.
``python -m kperc_book.data --regenerate [NAME ...]`` reports the same comparison per
dataset; only with ``--write`` does it replace the files and their manifest entries.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from dataclasses import dataclass
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

from ._fsio import atomic_write
from .paths import DATA_DIR, manifest_path, require_checkout

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
    "regenerate",
    "tolerance",
    "compare",
    "Comparison",
    "DATA_DIR",
    "ManifestError",
]

MANIFEST = manifest_path().name


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


#: Kernel problems built on stored datasets, shared by the chapters:
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
        Normalised signed Gram matrix (``dataset.gram()``).
    dataset : Dataset
        The stored data with the problem's ``kernel`` and ``kernel_params`` set.
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
    ds.kernel, ds.kernel_params = kernel, dict(params)
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


#: Rounding errors an entry of a generated ``X`` may carry besides its reductions: the
#: elementwise operations on the way (scalings, square roots, differences, and libm's
#: exp/log/sin/cos, whose last bit differs between SIMD implementations), counted
#: generously.
ELEMENTWISE_OPS = 16


def tolerance(X: np.ndarray) -> float:
    """Largest difference two correct evaluations of a generator may show in ``X``.

    Every entry of a generated ``X`` is computed from inputs of the size of ``X`` (the
    generators normalise or standardise) by at most ``ELEMENTWISE_OPS`` elementwise
    operations and by reductions (sums, means, dot products, norms) over at most
    ``L = max(n, d)`` terms. Another BLAS kernel, thread count or CPU changes only the
    order of those reductions and the last bit of the elementary functions. The forward
    error of a reduction of ``L`` terms is at most ``L * u`` times the sum of the terms'
    magnitudes (``u`` the unit round-off, 2**-53 for float64), so each evaluation is
    within ``(L + ELEMENTWISE_OPS) * u * scale`` of the exact value, with
    ``scale = max(1, max |X|)``, and two evaluations within twice that.

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> u = float(np.finfo(np.float64).eps) / 2
    >>> tolerance(np.ones((40, 2))) == 2 * (40 + ELEMENTWISE_OPS) * u
    True
    >>> tolerance(np.full((3, 5), 10.0)) == 2 * (5 + ELEMENTWISE_OPS) * u * 10
    True
    """
    X = np.asarray(X)
    n = X.shape[0] if X.ndim else 1
    d = X.shape[1] if X.ndim > 1 else 1
    u = np.finfo(np.float64).eps / 2
    scale = max(1.0, float(np.max(np.abs(X)))) if X.size else 1.0
    return float(2.0 * (max(n, d) + ELEMENTWISE_OPS) * u * scale)


@dataclass(frozen=True)
class Comparison:
    """A regenerated dataset against the stored one.

    Attributes
    ----------
    name : str
    shapes_equal : bool
    labels_equal : bool
        ``y`` identical, entry by entry.
    max_abs_diff : float
        Largest ``|X_regenerated - X_stored|`` (inf when the shapes differ).
    tol : float
        :func:`tolerance` of the stored ``X``.
    """

    name: str
    shapes_equal: bool
    labels_equal: bool
    max_abs_diff: float
    tol: float

    @property
    def ok(self) -> bool:
        return self.shapes_equal and self.labels_equal and self.max_abs_diff <= self.tol

    def __str__(self) -> str:
        if not self.shapes_equal:
            return f"{self.name}: the regenerated arrays have other shapes than the stored ones"
        verdict = "agrees" if self.ok else "DIFFERS"
        labels = "labels identical" if self.labels_equal else "labels DIFFER"
        return (
            f"{self.name}: regeneration {verdict}: {labels}, max |X - X_stored| = "
            f"{self.max_abs_diff:.3g} (tolerance {self.tol:.3g})"
        )


def compare(name: str, stored: Dataset, fresh: Dataset) -> Comparison:
    """Compare a regenerated dataset with the stored one (see :func:`tolerance`).

    Examples
    --------
    >>> import numpy as np
    >>> a = Dataset(np.eye(3), np.array([1, -1, 1]), {})
    >>> b = Dataset(np.eye(3) + 1e-17, np.array([1, -1, 1]), {})
    >>> compare("eye", a, b).ok, compare("eye", a, Dataset(a.X, -a.y, {})).ok
    (True, False)
    """
    same = stored.X.shape == fresh.X.shape and stored.y.shape == fresh.y.shape
    labels = same and bool(np.array_equal(stored.y, fresh.y))
    diff = float(np.max(np.abs(fresh.X - stored.X), initial=0.0)) if same else float("inf")
    return Comparison(name, same, labels, diff, tolerance(stored.X))


def _write_dataset(directory: Path, name: str, ds: Dataset) -> dict[str, Any]:
    blob = _npz_bytes({"X": ds.X, "y": ds.y})
    atomic_write(directory / f"{name}.npz", blob)
    return _record(name, ds, blob)


def _write_manifest(directory: Path, datasets: dict[str, Any]) -> None:
    text = json.dumps({"datasets": datasets}, indent=2, sort_keys=True) + "\n"
    atomic_write(directory / MANIFEST, text)  # a killed write never truncates the manifest


def write_all(directory: Path | str = DATA_DIR) -> dict[str, Any]:
    """Generate every registered dataset into a new folder and write its manifest.

    For a fresh folder only (tests, a new registry entry): the stored ``data/`` is
    canonical and is replaced only by ``regenerate(..., write=True)``.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {name: _write_dataset(directory, name, generate(name)) for name in sorted(REGISTRY)}
    _write_manifest(directory, manifest)
    return manifest


def _stored(name: str, directory: Path, manifest: dict[str, Any]) -> Dataset:
    """Read a stored dataset, checking it against ``manifest`` (ValueError otherwise)."""
    entry = manifest.get(name)
    if entry is None:
        raise ValueError(f"{name}: not listed in {MANIFEST}")
    path = directory / f"{name}.npz"
    blob = _read_bytes(path, f"{name}: ")
    if entry["sha256"] != _sha256(blob):
        raise ValueError(
            f"{name}: {path.name} does not match its sha256 in {MANIFEST}; restore it with "
            f"`git checkout data/{path.name}` (or, if the generator changed on purpose, "
            f"`python -m kperc_book.data --regenerate {name} --write`)"
        )
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            return Dataset(z["X"].copy(), z["y"].copy(), dict(entry))
    except (ValueError, KeyError, OSError, zipfile.BadZipFile) as err:
        raise ValueError(f"{name}: {path.name} is not a dataset archive ({err})") from None


def _read_bytes(path: Path, prefix: str = "") -> bytes:
    """The bytes of a regular file, or a one-line ValueError naming the file."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ValueError(
            f"{prefix}{path.name} is missing from {path.parent.name}/; restore it with "
            f"`git checkout {path.parent.name}/{path.name}`"
        ) from None
    except IsADirectoryError:
        raise ValueError(
            f"{prefix}{path.parent.name}/{path.name} is a folder, not a file"
        ) from None
    except OSError as err:
        raise ValueError(
            f"{prefix}cannot read {path.parent.name}/{path.name}: {err.strerror or err}"
        ) from None


def regenerate(
    names: list[str] | None = None, directory: Path | str = DATA_DIR, *, write: bool = False
) -> list[Comparison]:
    """Regenerate datasets and compare them with the stored ones; write only if asked.

    Parameters
    ----------
    names : list of str, optional
        Keys of :data:`REGISTRY` (default: all).
    directory : path
        The data folder.
    write : bool
        Replace the stored files and their manifest entries by the regenerated ones
        (atomically, one file at a time, the manifest last).

    Returns
    -------
    list of Comparison
        One per dataset (``max_abs_diff`` is inf for a dataset not stored yet).
    """
    directory = Path(directory)
    names = sorted(REGISTRY) if not names else list(names)
    for name in names:
        if name not in REGISTRY:
            raise ValueError(f"unknown dataset {name!r}; known: {sorted(REGISTRY)}.")
    try:
        manifest = _read_manifest(directory)
    except ManifestError as err:
        if not write:
            raise
        if set(names) != set(REGISTRY):  # the rewritten manifest would list only these
            raise ValueError(
                f"{err}; --write of only {', '.join(names)} would drop the other datasets "
                "from the manifest: restore it first, or regenerate them all"
            ) from None
        manifest = {}
    out = []
    for name in names:
        fresh = generate(name)
        try:
            stored = _stored(name, directory, manifest)
            out.append(compare(name, stored, fresh))
        except ValueError:
            if not write:
                raise
            out.append(Comparison(name, False, False, float("inf"), tolerance(fresh.X)))
        if write:
            manifest[name] = _write_dataset(directory, name, fresh)
    if write:
        _write_manifest(directory, manifest)
    return out


def verify_all(directory: Path | str = DATA_DIR) -> list[str]:
    """Verify every stored dataset: its sha256, then its regeneration within tolerance.

    Returns
    -------
    list of str
        One message per problem (empty when everything agrees).
    """
    directory = Path(directory)
    problems = []
    manifest = _read_manifest(directory)
    if set(manifest) != set(REGISTRY):
        problems.append(f"manifest lists {sorted(manifest)}, registry {sorted(REGISTRY)}")
    for name in sorted(REGISTRY):
        if name not in manifest:
            continue
        try:
            stored = _stored(name, directory, manifest)
        except ValueError as err:
            problems.append(str(err))
            continue
        problems += _provenance_problems(name, stored, manifest[name])
        cmp = compare(name, stored, generate(name))
        if not cmp.ok:
            problems.append(str(cmp))
    return problems


def _provenance_problems(name: str, stored: Dataset, entry: dict[str, Any]) -> list[str]:
    """The manifest fields of ``name`` that disagree with the registry or the file.

    ``file``, ``generator``, ``params``, ``seed`` and ``provenance`` must be what
    :data:`REGISTRY` says (the regeneration above runs the registry's generator, so a
    manifest naming another one would be "verified" falsely), and ``shape`` must be the
    shape of the stored arrays.
    """
    func, kwargs, prov = REGISTRY[name]
    want = json.loads(
        json.dumps(
            {
                "file": f"{name}.npz",
                "generator": f"kperc.datasets.{func}",
                "params": kwargs,
                "seed": kwargs.get("seed"),
                "provenance": prov,
                "shape": {"X": list(stored.X.shape), "y": list(stored.y.shape)},
            }
        )
    )
    fix = f"restore it with `git checkout data/{MANIFEST}`"
    return [
        f"{name}: its manifest entry says {field} = {json.dumps(entry.get(field))}, but "
        + (
            f"the stored arrays have {json.dumps(value)}"
            if field == "shape"
            else f"the registry gives {json.dumps(value)}"
        )
        + f"; {fix}"
        for field, value in want.items()
        if entry.get(field) != value
    ]


class ManifestError(ValueError):
    """``data/manifest.json`` is missing, truncated or not a dataset manifest."""


def _read_manifest(directory: Path | str) -> dict[str, Any]:
    path = Path(directory) / MANIFEST
    where = f"{path.parent.name}/{MANIFEST}"
    fix = "restore it with `git checkout data/manifest.json`"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ManifestError(f"{MANIFEST} not found in {path.parent.name}/; {fix}") from None
    except IsADirectoryError:
        raise ManifestError(f"{where} is a folder, not a file; {fix}") from None
    except OSError as err:
        raise ManifestError(f"cannot read {where}: {err.strerror or err}; {fix}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ManifestError(f"{where} is not text (binary data?); {fix}") from None
    try:
        datasets = json.loads(text)["datasets"]
    except json.JSONDecodeError as err:
        raise ManifestError(
            f"{where} is not valid JSON (truncated? {err.msg} at line {err.lineno}); {fix}"
        ) from None
    except (KeyError, TypeError, IndexError):
        raise ManifestError(f"{where} has no 'datasets' table; {fix}") from None
    if not isinstance(datasets, dict):
        raise ManifestError(f"{where}: 'datasets' is not a table; {fix}")
    for name, entry in datasets.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
            raise ManifestError(
                f"{where}: the entry of {name!r} is {type(entry).__name__} {entry!r:.40}, "
                f"not a table with a 'sha256' string; {fix}"
            )
    return datasets


def manifest(directory: Path | str = DATA_DIR) -> dict[str, Any]:
    """The dataset manifest (``data/manifest.json``) as a dictionary.

    Raises
    ------
    ManifestError
        The file is missing, unreadable, truncated or malformed (a one-line message
        that says how to restore it).
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
        Unknown name, missing or unreadable file, malformed manifest or hash mismatch
        (one line, with the command that fixes it).
    """
    directory = Path(directory)
    if name not in REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; known: {sorted(REGISTRY)}.")
    return _stored(name, directory, manifest(directory))


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc_book.data [--check | --regenerate [NAME ...] [--write]]``."""
    ap = argparse.ArgumentParser(
        prog="python -m kperc_book.data",
        description="Verify the stored datasets of data/ (the default), or regenerate them.",
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="verify each file's sha256 and its regeneration within tolerance (default)",
    )
    ap.add_argument(
        "--regenerate",
        nargs="*",
        metavar="NAME",
        help="regenerate these datasets (default: all) and compare with the stored ones",
    )
    ap.add_argument(
        "--write",
        action="store_true",
        help="with --regenerate: replace the stored files and manifest entries",
    )
    ap.add_argument("--dir", default=str(DATA_DIR), help="data folder (default: %(default)s)")
    args = ap.parse_args(argv)
    if Path(args.dir) == DATA_DIR:
        require_checkout()
    if args.write and args.regenerate is None:
        print("error: --write needs --regenerate [NAME ...]", file=sys.stderr)
        return 2
    try:
        if args.regenerate is not None:
            results = regenerate(args.regenerate, args.dir, write=args.write)
            for cmp in results:
                print(cmp)
            if args.write:
                print(f"wrote {len(results)} dataset(s) and {MANIFEST} in {Path(args.dir).name}/")
                return 0
            return 0 if all(c.ok for c in results) else 1
        problems = verify_all(args.dir)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"error: cannot write {err.filename}: {err.strerror or err}", file=sys.stderr)
        return 2
    for msg in problems:
        print("MISMATCH", msg)
    print("data/ verified" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
