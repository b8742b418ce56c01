"""The classifier tasks: scikit-learn's bundled sets and ISLP's, as a user would pose them.

Each task is a classification problem with a stratified 70/30 split (seeded), categorical
columns one-hot encoded and the features standardised on the training part
(:class:`sklearn.preprocessing.StandardScaler`), as a user would prepare them.

ISLP's data sets (*An Introduction to Statistical Learning with Applications in Python*)
are the CSV files inside the ISLP 0.6.0 wheel, fetched once with
``pip download ISLP==0.6.0 --no-deps`` into ``_build/islp/``, checked against
:data:`ISLP_SHA256` and read with :mod:`zipfile`: the ``ISLP`` package is never installed
or imported (it requires torch).
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kperc_book import paths

ISLP_VERSION = "0.6.0"
ISLP_WHEEL = f"islp-{ISLP_VERSION}-py3-none-any.whl"
ISLP_SHA256 = "ca772cecca1747a2f84ee799a5503ddddbdf0e98f90c235494790c1d036c694b"
#: Fraction of each task held out (its test accuracy is recorded too).
TEST_FRACTION = 0.3
SEED = 0


@dataclass(frozen=True)
class Task:
    """A classification task: its ``name``, the ``dataset`` and its ``source``.

    ``classes`` keeps two classes of the data set (a pair); ``positive`` makes it one
    class against the rest; with neither the task has every class of the data set.
    """

    name: str
    dataset: str
    source: str  # "sklearn", "ISLP" or "synthetic"
    classes: tuple[Any, Any] | None = None
    positive: Any = None


#: The pairs of classes posed as binary tasks (digits: the book's 3 and 8, and two more).
PAIRS = {"iris": ((0, 1), (0, 2), (1, 2)), "digits": ((3, 8), (1, 7), (4, 9))}
SKLEARN_TASKS: tuple[Task, ...] = (
    Task("breast_cancer", "breast_cancer", "sklearn"),
    Task("iris", "iris", "sklearn"),
    *(Task(f"iris-{a}v{b}", "iris", "sklearn", classes=(a, b)) for a, b in PAIRS["iris"]),
    *(Task(f"iris-{c}-vs-rest", "iris", "sklearn", positive=c) for c in (0, 1, 2)),
    Task("wine", "wine", "sklearn"),
    *(Task(f"wine-{c}-vs-rest", "wine", "sklearn", positive=c) for c in (0, 1, 2)),
    *(Task(f"digits-{a}v{b}", "digits", "sklearn", classes=(a, b)) for a, b in PAIRS["digits"]),
)
#: ISLP's classification sets: the response column and the feature columns left out
#: (Weekly and Smarket: ``Today`` is the return whose sign is ``Direction``, ``Year`` the
#: time index; the six features of ISLP's own lab remain).
ISLP_RESPONSE: dict[str, tuple[str, tuple[str, ...]]] = {
    "Weekly": ("Direction", ("Year", "Today")),
    "Smarket": ("Direction", ("Year", "Today")),
    "OJ": ("Purchase", ()),
    "College": ("Private", ()),
    "Caravan": ("Purchase", ()),
    "Default": ("default", ()),
}
ISLP_TASKS: tuple[Task, ...] = (
    *(Task(name, name, "ISLP") for name in ISLP_RESPONSE),
    Task("Khan", "Khan", "ISLP"),  # four tumour types; the book's own train/test split
)
#: A seeded synthetic multiclass task (issue 36): four classes, ``d = 24``, and ``n =
#: 4331`` training points (6188 in all, 70/30), where one-vs-rest shares its kernel.
SYNTHETIC: dict[str, dict[str, Any]] = {
    "multiclass-4": dict(
        n_samples=6188, n_features=24, n_informative=12, n_classes=4, random_state=SEED
    ),
}
SYNTHETIC_TASKS: tuple[Task, ...] = tuple(Task(name, name, "synthetic") for name in SYNTHETIC)
TASKS = SKLEARN_TASKS + ISLP_TASKS + SYNTHETIC_TASKS


def islp_dir(root: Path | str | None = None) -> Path:
    """Where the ISLP wheel is kept (the build folder, never committed)."""
    return paths.build_dir(root) / "islp"


def islp_wheel(folder: Path | str | None = None, *, download: bool = True) -> Path:
    """The ISLP wheel, fetched once with pip and checked against :data:`ISLP_SHA256`.

    Raises
    ------
    RuntimeError
        When the wheel is missing and cannot be downloaded, or its hash differs.
    """
    folder = islp_dir() if folder is None else Path(folder)
    path = folder / ISLP_WHEEL
    if not path.exists() and download:
        folder.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", f"ISLP=={ISLP_VERSION}", "--no-deps"]
        cmd += ["--only-binary=:all:", "--quiet", "-d", str(folder)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise RuntimeError(f"pip download ISLP=={ISLP_VERSION} failed: {last}")
    if not path.exists():
        raise RuntimeError(f"the ISLP wheel {ISLP_WHEEL} is not in {folder.name}/")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != ISLP_SHA256:
        raise RuntimeError(f"{ISLP_WHEEL} has SHA-256 {digest}, expected {ISLP_SHA256}")
    return path


def islp_csv(wheel: Path | str, name: str):
    """ISLP's data set ``name``: the one file ``<name>.csv`` of the wheel, as a DataFrame."""
    import pandas as pd

    with zipfile.ZipFile(wheel) as z:
        found = [m for m in z.namelist() if m.rsplit("/", 1)[-1] == f"{name}.csv"]
        if len(found) != 1:
            raise RuntimeError(f"{Path(wheel).name} holds {len(found)} files named {name}.csv")
        return pd.read_csv(io.BytesIO(z.read(found[0])))


def _raw(task: Task, wheel: Path | str | None) -> tuple[Any, ...]:
    """``(X, y)``, or ``(X_train, X_test, y_train, y_test)`` for a task split by its source."""
    import pandas as pd
    from sklearn import datasets

    if task.source == "sklearn":
        bunch = getattr(datasets, f"load_{task.dataset}")()
        return bunch.data, bunch.target
    if task.source == "synthetic":
        return datasets.make_classification(**SYNTHETIC[task.dataset])
    if wheel is None:
        raise ValueError(f"task {task.name!r} needs the ISLP wheel (islp_wheel())")
    if task.dataset == "Khan":
        parts = ("xtrain", "xtest", "ytrain", "ytest")
        Xtr, Xte, ytr, yte = (islp_csv(wheel, f"Khan_{p}").to_numpy() for p in parts)
        return Xtr.astype(np.float64), Xte.astype(np.float64), ytr[:, 0], yte[:, 0]
    frame = islp_csv(wheel, task.dataset)
    col, dropped = ISLP_RESPONSE[task.dataset]
    features = frame.drop(columns=[col, *dropped])
    X = pd.get_dummies(features, drop_first=True, dtype=float).to_numpy(dtype=np.float64)
    return X, frame[col].to_numpy()


def load_task(task: Task, wheel: Path | str | None = None, seed: int = SEED) -> dict[str, Any]:
    """Training and test data of ``task``: standardised features and their labels.

    Returns
    -------
    dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test``.
    """
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    raw = _raw(task, wheel)
    if len(raw) == 2:
        X, y = raw
        if task.classes is not None:
            keep = np.isin(y, task.classes)
            X, y = X[keep], y[keep]
        if task.positive is not None:
            y = np.where(y == task.positive, 1, 0)
        Xtr, Xte, ytr, yte = train_test_split(
            X, y, test_size=TEST_FRACTION, random_state=seed, stratify=y
        )
    else:
        Xtr, Xte, ytr, yte = raw
    scaler = StandardScaler().fit(Xtr)
    return {
        "X_train": scaler.transform(Xtr),
        "X_test": scaler.transform(Xte),
        "y_train": np.asarray(ytr),
        "y_test": np.asarray(yte),
    }
