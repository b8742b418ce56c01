"""``SNKPClassifier`` against scikit-learn on the bundled, ISLP and synthetic data sets.

For each task (:mod:`bench.datasets`, among them a seeded four-class
``make_classification`` task with ``n = 4331`` training points, issue 36) and kernel,
the default fits are timed on the same standardised training data, one BLAS thread:
``SVC()`` then ``SNKPClassifier()`` (RBF), ``LinearSVC()`` then
``SNKPClassifier(kernel="linear")``. One fit first (its outcome and warnings are
recorded, and it sets the rounds: 21 for a fit under 50 ms, 7 under 0.5 s, 3 under 5 s,
else 1), then the timed rounds. The kperc row's ``extra_info`` holds the
budget ``max(5 x scikit-learn's median, 2 s)``, the ratio of kperc's median to it, how
the fit ended (``separator`` or the warnings it gave) and ``within_budget``: within the
budget with a certified separator or exactly one warning. It also holds the peak memory
of one more fit (tracemalloc). Nothing here asserts a time: ``python -m bench.report``
reads the file.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.svm import SVC, LinearSVC

from bench._measure import peak_bytes
from bench.datasets import TASKS, islp_wheel, load_task
from kperc import SNKPClassifier

BUDGET_RATIO, BUDGET_FLOOR_S = 5.0, 2.0
ROUNDS_BY_TIME = ((0.05, 21), (0.5, 7), (5.0, 3), (float("inf"), 1))
ESTIMATORS = {
    ("rbf", "sklearn"): SVC,
    ("rbf", "kperc"): SNKPClassifier,
    ("linear", "sklearn"): LinearSVC,
    ("linear", "kperc"): lambda: SNKPClassifier(kernel="linear"),
}
#: The large tasks (seconds per fit): left out of the quick run of ``make test``. The
#: synthetic four-class task measures one-vs-rest on a shared kernel (issue 36: its
#: default RBF fit should end within the budget, far below four binary fits).
LARGE = {"Caravan", "Default", "multiclass-4"}
#: scikit-learn's median fit per (task, kernel), read by the kperc row that follows it.
_PEER_MEDIAN: dict[tuple[str, str], float] = {}
_DATA: dict[str, dict] = {}


def _cases():
    for task in TASKS:
        marks = [pytest.mark.slow] if task.name in LARGE else []
        for kernel in ("rbf", "linear"):
            for who in ("sklearn", "kperc"):  # scikit-learn first: kperc's budget needs it
                yield pytest.param(task, kernel, who, marks=marks, id=f"{task.name}-{kernel}-{who}")


@pytest.fixture(scope="session")
def wheel():
    """The ISLP wheel (downloaded once into the build folder)."""
    return islp_wheel()


def _data(task, wheel_path):
    if task.name not in _DATA:
        _DATA.clear()
        _DATA[task.name] = load_task(task, wheel_path if task.source == "ISLP" else None)
    return _DATA[task.name]


def _rounds(seconds: float) -> int:
    return next(r for limit, r in ROUNDS_BY_TIME if seconds < limit)


@pytest.mark.parametrize(("task", "kernel", "who"), list(_cases()))
def test_fit(benchmark, request, task, kernel, who):
    wheel_path = request.getfixturevalue("wheel") if task.source == "ISLP" else None
    data = _data(task, wheel_path)
    X, y = data["X_train"], data["y_train"]
    make = ESTIMATORS[kernel, who]

    def fit():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = make().fit(X, y)
        return model, caught

    benchmark.group = f"classifier-{task.name}-{kernel}"
    if benchmark.disabled:
        model, caught = benchmark(fit)
    else:
        t0 = time.perf_counter()
        model, caught = fit()
        rounds = _rounds(time.perf_counter() - t0)
        benchmark.pedantic(fit, rounds=rounds, iterations=1)
    said = [f"{w.category.__name__}: {str(w.message).splitlines()[0][:300]}" for w in caught]
    info = {
        "task": task.name,
        "dataset": task.dataset,
        "source": task.source,
        "kernel": kernel,
        "estimator": who,
        "n_train": int(X.shape[0]),
        "d": int(X.shape[1]),
        "n_classes": int(np.unique(y).size),
        "test_accuracy": float(model.score(data["X_test"], data["y_test"])),
        "warnings": said,
    }
    if who == "kperc":
        outcome = np.atleast_1d(model.outcome_).tolist()
        info.update(outcome=outcome, converged=bool(model.converged_), gram_form=model.gram_form_)
        kinds = sorted({w.category.__name__ for w in caught})
        ended = f"{len(said)} warning(s) ({', '.join(kinds)}), outcome {'/'.join(outcome)}"
        info["ended"] = "separator" if model.converged_ else ended
    if not benchmark.disabled:
        median = benchmark.stats.stats.median
        if who == "sklearn":
            _PEER_MEDIAN[task.name, kernel] = median
        elif (task.name, kernel) in _PEER_MEDIAN:
            budget = max(BUDGET_RATIO * _PEER_MEDIAN[task.name, kernel], BUDGET_FLOOR_S)
            info.update(
                budget_s=budget,
                ratio_to_budget=median / budget,
                within_budget=bool(median <= budget and (model.converged_ or len(said) == 1)),
            )
        if who == "kperc":
            info["peak_bytes"] = peak_bytes(fit)
    benchmark.extra_info.update(info)
