"""The ``classifier`` suite: ``SNKPClassifier`` on real data against scikit-learn's SVMs.

Each task is a binary problem as a user would pose it: a stratified 70/30 split (seeded),
categorical columns one-hot encoded, the features standardised on the training part
(:class:`sklearn.preprocessing.StandardScaler`). Two pairs of estimators, all with their
default parameters, are fitted on the same training data:

* ``SNKPClassifier()`` (RBF kernel, SNKP) against ``SVC()`` (RBF kernel, ``C = 1``);
* ``SNKPClassifier(kernel="linear")`` against ``LinearSVC()``, on the tasks of
  :data:`LINEAR_TASKS`.

The tasks are scikit-learn's bundled binary problems (breast cancer; iris and wine one
class against the rest; three pairs of digits) and five data sets of the ISLP book
(*An Introduction to Statistical Learning with Applications in Python*): OJ, Default,
Caravan, College and Khan. ISLP's data come from the CSV files inside its wheel
(:data:`ISLP_WHEEL`, checked against :data:`ISLP_SHA256`), fetched once with
``pip download ISLP==0.6.0 --no-deps`` into ``_build/islp/`` and read with
:mod:`zipfile`: the ``ISLP`` package itself is never installed or imported (it requires
torch). Without network access the ISLP tasks are skipped and the record says why.

For each fit the suite records the median wall time of interleaved repeats
(:func:`benchmarks._timing.interleaved_times`), the test accuracy, how the kperc fit
ended (``outcome_``: separator, certificate, conflict or max_iter), its iterations, the
form of its Gram matrix, and, from one more fit with its two stages timed, where its
time went: building the training kernel, running the algorithm, and everything else
(validation, conflicts, the model's attributes). The target is a kperc fit at most
:data:`TARGET_RATIO` times as long as the scikit-learn fit, per data set (the worst of
its tasks). Each row also records issue 30's budget (``budget_s``: the larger of
:data:`BUDGET_RATIO` times the scikit-learn fit and :data:`BUDGET_FLOOR_S` seconds), the
warnings of the kperc fit, and whether the fit ended within the budget with a separator
or one warning (``within_budget``).
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import time
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._config import BenchConfig
from benchmarks._timing import interleaved_times, summarize
from benchmarks.targets import target
from kperc_book import paths as _paths

#: The target: a kperc fit takes at most this many times the scikit-learn fit.
TARGET_RATIO = 2.0
#: Issue 30's budget for a default fit, recorded per row beside the ratio: at most
#: BUDGET_RATIO times the scikit-learn fit, or BUDGET_FLOOR_S seconds if that is more,
#: ending with a certified separator or one warning that says why not.
BUDGET_RATIO = 5.0
BUDGET_FLOOR_S = 2.0
#: The ISLP wheel whose CSV files hold the ISLP data sets, and its SHA-256.
ISLP_VERSION = "0.6.0"
ISLP_WHEEL = f"islp-{ISLP_VERSION}-py3-none-any.whl"
ISLP_SHA256 = "ca772cecca1747a2f84ee799a5503ddddbdf0e98f90c235494790c1d036c694b"
#: Fraction of each task held out for the test accuracy.
TEST_FRACTION = 0.3
#: Repeats of a fit by the time of its warm-up fit: (longest warm-up in s, repeats); a
#: fit of milliseconds gets 21, so that a slow phase of a shared machine spans few of them.
REPEATS_BY_TIME = ((0.05, 21), (0.5, 7), (5.0, 3), (float("inf"), 1))


@dataclass(frozen=True)
class Task:
    """A binary task: ``name``, the ``dataset`` it comes from, and its ``source``."""

    name: str
    dataset: str
    source: str  # "sklearn" or "ISLP"


SKLEARN_TASKS: tuple[Task, ...] = (
    Task("breast_cancer", "breast_cancer", "sklearn"),
    *(Task(f"iris-{c}", "iris", "sklearn") for c in ("setosa", "versicolor", "virginica")),
    *(Task(f"wine-{c}", "wine", "sklearn") for c in ("class_0", "class_1", "class_2")),
    *(Task(f"digits-{a}v{b}", "digits", "sklearn") for a, b in ((3, 8), (1, 7), (4, 9))),
)
ISLP_TASKS: tuple[Task, ...] = tuple(
    Task(n, n, "ISLP") for n in ("OJ", "College", "Khan", "Caravan", "Default")
)
#: The tasks on which the linear kernel is also compared (``LinearSVC``).
LINEAR_TASKS = ("breast_cancer", "OJ", "College", "Khan", "Caravan", "Default")
#: ISLP: the response column and its positive class (Khan: class 2 against the rest).
ISLP_RESPONSE = {
    "OJ": ("Purchase", "MM"),
    "College": ("Private", "Yes"),
    "Caravan": ("Purchase", "Yes"),
    "Default": ("default", "Yes"),
}


def islp_dir() -> Path:
    """Where the ISLP wheel is kept: ``_build/islp/`` (never committed)."""
    return _paths.build_dir() / "islp"


def islp_wheel(folder: Path | None = None, *, download: bool = True) -> Path:
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


def _islp_csv(wheel: Path, name: str):
    """The data set ``name``: the one file ``<name>.csv`` of the wheel, as a DataFrame."""
    import pandas as pd

    with zipfile.ZipFile(wheel) as z:
        found = [m for m in z.namelist() if m.rsplit("/", 1)[-1] == f"{name}.csv"]
        if len(found) != 1:
            raise RuntimeError(f"{ISLP_WHEEL} holds {len(found)} files named {name}.csv")
        return pd.read_csv(io.BytesIO(z.read(found[0])))


def _encode(frame) -> np.ndarray:
    """Numeric columns as they are, categorical ones one-hot (first level dropped)."""
    import pandas as pd

    return pd.get_dummies(frame, drop_first=True, dtype=float).to_numpy(dtype=np.float64)


def load_task(task: Task, seed: int, wheel: Path | None = None) -> dict[str, Any]:
    """Training and test data of ``task``: standardised features, labels 0/1.

    Returns
    -------
    dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` and ``positive`` (the class
        labelled 1).
    """
    from sklearn import datasets
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    split: tuple[Any, ...] | None = None
    if task.source == "sklearn":
        loader = getattr(datasets, f"load_{task.dataset}")
        bunch = loader()
        X, target_ = bunch.data, bunch.target
        if task.dataset == "breast_cancer":
            y, positive = target_, str(bunch.target_names[1])
        elif task.dataset == "digits":
            a, b = (int(c) for c in task.name.split("-")[1].split("v"))
            keep = np.isin(target_, (a, b))
            X, y, positive = X[keep], (target_[keep] == b).astype(int), str(b)
        else:
            positive = task.name.split("-", 1)[1]
            y = (target_ == list(bunch.target_names).index(positive)).astype(int)
    else:
        if wheel is None:
            raise ValueError(f"task {task.name!r} needs the ISLP wheel")
        if task.dataset == "Khan":
            Xtr = _islp_csv(wheel, "Khan_xtrain").to_numpy(dtype=np.float64)
            Xte = _islp_csv(wheel, "Khan_xtest").to_numpy(dtype=np.float64)
            ytr = (_islp_csv(wheel, "Khan_ytrain").iloc[:, 0].to_numpy() == 2).astype(int)
            yte = (_islp_csv(wheel, "Khan_ytest").iloc[:, 0].to_numpy() == 2).astype(int)
            split, positive = (Xtr, Xte, ytr, yte), "2"  # the book's own split
        else:
            frame = _islp_csv(wheel, task.dataset)
            col, positive = ISLP_RESPONSE[task.dataset]
            y = (frame[col] == positive).to_numpy().astype(int)
            X = _encode(frame.drop(columns=[col]))
    if split is None:
        split = tuple(
            train_test_split(X, y, test_size=TEST_FRACTION, random_state=seed, stratify=y)
        )
    Xtr, Xte, ytr, yte = split
    scaler = StandardScaler().fit(Xtr)
    return {
        "X_train": scaler.transform(Xtr),
        "X_test": scaler.transform(Xte),
        "y_train": np.asarray(ytr),
        "y_test": np.asarray(yte),
        "positive": positive,
    }


#: How the kperc estimator of each kernel is written in the record.
KPERC_ESTIMATOR = {"rbf": "SNKPClassifier()", "linear": "SNKPClassifier(kernel='linear')"}


def estimators(kernel: str) -> dict[str, Callable[[], Any]]:
    """The compared estimators for ``kernel`` ("rbf" or "linear"), default parameters."""
    from sklearn.svm import SVC, LinearSVC

    from kperc import SNKPClassifier

    if kernel == "rbf":
        return {"kperc": SNKPClassifier, "sklearn": SVC}
    if kernel == "linear":
        return {"kperc": lambda: SNKPClassifier(kernel="linear"), "sklearn": LinearSVC}
    raise ValueError(f"kernel must be 'rbf' or 'linear'; got {kernel!r}")


def _fit(make: Callable[[], Any], X, y):
    with warnings.catch_warnings():  # InseparableDataWarning, ConvergenceWarning: recorded
        warnings.simplefilter("ignore")
        return make().fit(X, y)


def _repeats(longest: float, cap: int) -> int:
    for limit, r in REPEATS_BY_TIME:
        if longest < limit:
            return min(r, cap)
    return 1


def stage_times(make: Callable[[], Any], X, y, repeats: int = 1) -> dict[str, float]:
    """More kperc fits with their stages timed: kernel, algorithm, the rest (seconds).

    The stages of ``repeats`` fits; each stage's median is reported, and ``total`` is the
    median fit.
    """
    runs = [_stage_times_once(make, X, y) for _ in range(max(1, repeats))]
    return {k: float(np.median([r[k] for r in runs])) for k in runs[0]}


def _stage_times_once(make: Callable[[], Any], X, y) -> dict[str, float]:
    clf = make()
    spent = {"kernel": 0.0, "algorithm": 0.0}

    def timed(stage: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return method(*args, **kw)
            finally:
                spent[stage] += time.perf_counter() - t0

        return run

    clf._build_gram = timed("kernel", clf._build_gram)  # instance attributes shadow them
    clf._run = timed("algorithm", clf._run)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    total = time.perf_counter() - t0
    return {**spent, "other": max(total - sum(spent.values()), 0.0), "total": total}


def _peak_mb(make: Callable[[], Any], X, y) -> float:
    """Peak of the memory allocations traced during one kperc fit (MB)."""
    tracemalloc.start()
    try:
        _fit(make, X, y)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def measure_task(task: Task, data: dict[str, Any], kernel: str, cfg: BenchConfig) -> dict:
    """Fit both estimators of ``kernel`` on ``data``; one row of the suite's result."""
    Xtr, ytr, Xte, yte = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    makes = estimators(kernel)
    warm: dict[str, float] = {}
    fitted: dict[str, Any] = {}
    n_warnings = 0
    for who, make in makes.items():
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fitted[who] = make().fit(Xtr, ytr)
        warm[who] = time.perf_counter() - t0
        if who == "kperc":
            n_warnings = len(caught)
    repeats = _repeats(max(warm.values()), 2 if cfg.quick else 21)
    calls = {who: (lambda m=make: _fit(m, Xtr, ytr)) for who, make in makes.items()}
    times = interleaved_times(calls, repeats, warmup=False)  # the fits above warmed up
    clf, peer = fitted["kperc"], fitted["sklearn"]
    fit_s = {who: summarize(ts) for who, ts in times.items()}
    ratio = fit_s["kperc"]["median"] / fit_s["sklearn"]["median"]
    budget = max(BUDGET_RATIO * fit_s["sklearn"]["median"], BUDGET_FLOOR_S)
    n = int(Xtr.shape[0])
    return {
        "task": task.name,
        "dataset": task.dataset,
        "source": task.source,
        "kernel": kernel,
        "n_train": n,
        "n_test": int(Xte.shape[0]),
        "d": int(Xtr.shape[1]),
        "positive_fraction": float(np.mean(ytr)),
        "repeats": repeats,
        "kperc": {
            "estimator": "SNKPClassifier()"
            if kernel == "rbf"
            else "SNKPClassifier(kernel='linear')",
            "fit_s": fit_s["kperc"],
            "accuracy": float(clf.score(Xte, yte)),
            "train_accuracy": float(clf.score(Xtr, ytr)),
            "outcome": clf.outcome_,
            "converged": bool(clf.converged_),
            "warnings": n_warnings,
            "n_iter": int(clf.n_iter_),
            "gram_form": clf.gram_form_,
            "n_conflicts": int(clf.conflicts_.shape[0]),
            "certificate_norm": clf.certificate_norm_,
            "tol": float(clf.tol_),
            "stages_s": stage_times(makes["kperc"], Xtr, ytr, min(repeats, 3)),
            "peak_mb": _peak_mb(makes["kperc"], Xtr, ytr),
            "dense_gram_mb": 8.0 * n * n / 1e6 if clf.gram_form_ == "dense" else None,
        },
        "sklearn": {
            "estimator": type(peer).__name__ + "()",
            "fit_s": fit_s["sklearn"],
            "accuracy": float(peer.score(Xte, yte)),
            "train_accuracy": float(peer.score(Xtr, ytr)),
        },
        "ratio": float(ratio),
        "target_ratio": TARGET_RATIO,
        "met": bool(ratio <= TARGET_RATIO),
        "budget_s": float(budget),
        "within_budget": bool(
            fit_s["kperc"]["median"] <= budget and (clf.converged_ or n_warnings == 1)
        ),
    }


def suite_classifier(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """``SNKPClassifier`` against ``SVC`` / ``LinearSVC`` on bundled and ISLP data."""
    tasks = list(SKLEARN_TASKS)
    islp: dict[str, Any] = {"version": ISLP_VERSION, "wheel": ISLP_WHEEL, "sha256": ISLP_SHA256}
    wheel = None
    if cfg.quick:  # a smoke run: two small bundled tasks, no download
        tasks = [t for t in tasks if t.name in ("breast_cancer", "iris-versicolor")]
        islp.update(available=False, reason="not used by a --quick run")
    else:
        try:
            wheel = islp_wheel()
            islp["available"] = True
            tasks += list(ISLP_TASKS)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            islp.update(available=False, reason=str(exc))
            log(f"classifier: ISLP data sets skipped: {exc}")
    rows = []
    for task in tasks:
        data = load_task(task, cfg.seed, wheel)
        for kernel in ("rbf", "linear"):
            if kernel == "linear" and task.name not in LINEAR_TASKS:
                continue
            row = measure_task(task, data, kernel, cfg)
            rows.append(row)
            k, s = row["kperc"], row["sklearn"]
            log(
                f"classifier {task.name:16s} {kernel:6s} n={row['n_train']:<5d} "
                f"kperc {k['fit_s']['median'] * 1e3:.3g} ms ({k['outcome']}, "
                f"{k['n_iter']} it, acc {k['accuracy']:.3f}) | {s['estimator']} "
                f"{s['fit_s']['median'] * 1e3:.3g} ms (acc {s['accuracy']:.3f}) | "
                f"ratio {row['ratio']:.3g}"
            )
    return {"rows": rows, "islp": islp, "target_ratio": TARGET_RATIO}


def targets(result: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """Per data set and kernel: the worst ratio of a kperc fit to the scikit-learn fit."""
    out: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in (result or {}).get("rows", []):
        groups.setdefault((r["kernel"], r["dataset"]), []).append(r)
    for (kernel, dataset), rows in groups.items():
        worst = max(rows, key=lambda r: r["ratio"])
        k = worst["kperc"]
        out.append(
            target(
                f"classifier-{kernel}-{dataset}",
                f"SNKPClassifier fit time / {worst['sklearn']['estimator']} fit time, "
                f"{kernel} kernel, {dataset} (worst of {len(rows)} task(s))",
                worst["ratio"],
                worst["target_ratio"],
                worst["ratio"] <= worst["target_ratio"],
                f"{worst['task']} (n = {worst['n_train']}): kperc "
                f"{k['fit_s']['median'] * 1e3:.3g} ms ({k['outcome']} after {k['n_iter']} "
                f"iterations) against {worst['sklearn']['fit_s']['median'] * 1e3:.3g} ms",
            )
        )
    return out


def summary(result: dict[str, Any]) -> list[str]:
    """Lines of the text summary: one per task and kernel."""
    rows = (result or {}).get("rows", [])
    if not rows:
        return []
    lines = ["", "SNKPClassifier against scikit-learn (fit ms, test accuracy, kperc's outcome)"]
    for r in rows:
        k, s = r["kperc"], r["sklearn"]
        lines.append(
            f"  {r['task']:16s} {r['kernel']:6s} kperc {k['fit_s']['median'] * 1e3:9.3g} "
            f"({k['accuracy']:.3f}, {k['outcome']}) {s['estimator']:12s} "
            f"{s['fit_s']['median'] * 1e3:9.3g} ({s['accuracy']:.3f}) ratio {r['ratio']:.3g}"
        )
    islp = result.get("islp", {})
    if not islp.get("available"):
        lines.append(f"  ISLP data sets not measured: {islp.get('reason', 'unknown')}")
    return lines
