"""Every separator and certificate an algorithm returns on a ``G`` built from data holds
for the exact Gram matrix of the data (issue 31).

``kperc.gram_matrix`` and ``kperc.gram_operator`` round the data's Gram matrix: a
separator or a certificate of the rounded matrix alone can be an artefact of that
rounding (the issue's three points: exactly inseparable, of rank 2, yet the rounded G
had a separator). Here the exact Gram matrix of the float data is the reference:
``G*_ij = a*_i^T a*_j`` with ``a*_i = y_i x_i / ||x_i||`` computed in rational arithmetic
from the float ``X``. The norms ``||x_i||`` are irrational; each ``1 / ||x_i||`` is
enclosed between two fractions (an integer square root at 256 bits), so every check
below is a rigorous interval decision:

* a separator ``alpha``: every ``(G* alpha)_i = a*_i^T w*`` (``w* = sum_j alpha_j a*_j``)
  has a positive lower bound;
* a certificate ``p`` at ``eps``: the upper bound of ``||sum_j p_j a*_j||^2`` is at most
  ``eps^2``.

An exact zero (a point repeated under the other label, a rank-deficient family) has an
enclosure that contains 0, so a separator claimed there fails the check, as it should.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
from conftest import seeds
from hypothesis import example, given
from hypothesis import strategies as st

import kperc
from kperc.datasets import Dataset

_BITS = 256


def _inverse_norm(x: np.ndarray) -> tuple[Fraction, Fraction]:
    """Fractions ``lo <= 1 / ||x|| <= hi`` (``x`` a nonzero float vector)."""
    sq = sum((Fraction(v) ** 2 for v in x.tolist()), Fraction(0))
    a, b = sq.numerator, sq.denominator
    s = math.isqrt((a * b) << (2 * _BITS))  # s <= sqrt(a b) 2^BITS < s + 1
    return Fraction(b << _BITS, s + 1), Fraction(b << _BITS, s)


def _times(c: Fraction, lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    return (c * lo, c * hi) if c >= 0 else (c * hi, c * lo)


class ExactData:
    """Interval enclosures of the data's exact normalised signed points."""

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.X = [[Fraction(v) for v in row] for row in X.tolist()]
        self.y = [Fraction(v) for v in y.tolist()]
        self.inv = [_inverse_norm(row) for row in X]
        self.n, self.d = X.shape

    def combination(self, c: np.ndarray) -> list[tuple[Fraction, Fraction]]:
        """Enclosures of the coordinates of ``sum_j c_j a*_j``."""
        out = []
        for k in range(self.d):
            lo = hi = Fraction(0)
            for j, cj in enumerate(c.tolist()):
                if cj == 0:
                    continue
                a, b = _times(Fraction(cj) * self.y[j] * self.X[j][k], *self.inv[j])
                lo, hi = lo + a, hi + b
            out.append((lo, hi))
        return out

    def separates(self, alpha: np.ndarray) -> bool:
        """Whether ``G* alpha > 0`` surely (the sign of ``(G* alpha)_i`` is that of
        ``y_i x_i^T w*``)."""
        w = self.combination(alpha)
        for i in range(self.n):
            low = Fraction(0)
            for k in range(self.d):
                c = self.y[i] * self.X[i][k]
                low += _times(c, *w[k])[0]
            if not low > 0:
                return False
        return True

    def separated_by(self, w: np.ndarray) -> bool:
        """Whether ``y_i x_i^T w > 0`` for every ``i`` (exact: no square root)."""
        wf = [Fraction(v) for v in w.tolist()]
        return all(
            yi * sum((a * b for a, b in zip(xi, wf, strict=True)), Fraction(0)) > 0
            for xi, yi in zip(self.X, self.y, strict=True)
        )

    def seminorm_at_most(self, p: np.ndarray, eps: float) -> bool:
        """Whether ``||p||_{G*} <= eps`` surely."""
        v = self.combination(p)
        upper = sum((max(lo * lo, hi * hi) for lo, hi in v), Fraction(0))
        return upper <= Fraction(eps) ** 2


def _rotation(rng: np.random.Generator, d: int) -> np.ndarray:
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return Q


def _problem(seed: int, kind: str, d: int, duplicate: str) -> Dataset:
    """A small problem of the issue's class or a random one, float data."""
    rng = np.random.default_rng(seed)
    if kind == "thin":
        # signed points (s1, 1), (s2, -1), (c, 0): separable with margin about min(s1, s2)
        # when s1, s2 > 0 and c > 0; exactly of rank 2 in 2 dimensions; the origin in
        # the hull at depth about s when c < 0 (the issue's reproducer: s = 3e-4, c = -1)
        s1, s2 = (
            float(rng.choice([-1.0, 1.0, 1.0])) * 10.0 ** rng.uniform(-16, -2) for _ in range(2)
        )
        c = -1.0 if rng.random() < 0.5 else 10.0 ** rng.uniform(-16, 0)
        A = np.array([[s1, 1.0], [s2, -1.0], [c, 0.0]])
        if d > 2:
            A = np.hstack([A, np.zeros((3, d - 2))])
        A = A @ _rotation(rng, d)
    else:
        A = rng.standard_normal((int(rng.integers(3, 7)), d))
    A = A * rng.uniform(0.1, 10.0, size=(A.shape[0], 1))  # the row scales do not matter
    y = np.where(rng.random(A.shape[0]) < 0.5, -1.0, 1.0)
    X = A * y[:, None]
    if duplicate != "none":
        i = int(rng.integers(A.shape[0]))
        X = np.vstack([X, X[i : i + 1] * rng.uniform(0.5, 2.0)])
        y = np.concatenate([y, y[i : i + 1] * (-1.0 if duplicate == "opposite" else 1.0)])
    return Dataset(X, y)


def _runs(G, eps: float):
    """``(name, result, claimed bound)`` of every algorithm on ``G`` (small budgets)."""
    calls = [
        ("nkp", lambda: kperc.nkp(G, max_iter=400), None),
        ("snkp", lambda: kperc.snkp(G, max_iter=150), None),
        ("nvn", lambda: kperc.nvn(G, eps=eps, max_iter=400), eps),
        ("snkpvn", lambda: kperc.snkpvn(G, None, eps, max_iter=150), eps),
        ("isnkpvn", lambda: kperc.isnkpvn(G, eps=eps, max_iter=150), eps),
    ]
    for name, call, bound in calls:
        try:
            yield name, call(), bound
        except ValueError as exc:  # eps below the floor of G as given: refused by name
            assert "eps=" in str(exc) and "below the accuracy" in str(exc)


@given(
    seed=seeds,
    kind=st.sampled_from(["thin", "thin", "random"]),
    d=st.sampled_from([2, 3, 5]),
    duplicate=st.sampled_from(["none", "same", "opposite"]),
    eps=st.sampled_from([1e-2, 1e-4, 1e-6, 3e-7, 1.2e-7, 5e-8, 2e-8, 1e-9, 1e-12]),
    scale_exp=st.sampled_from([0, 0, -150, 150, -300, 300]),
)
@example(seed=0, kind="thin", d=2, duplicate="none", eps=1e-7, scale_exp=0)
def test_every_answer_holds_for_the_exact_gram_matrix_of_the_data(
    seed, kind, d, duplicate, eps, scale_exp
):
    X, y = _problem(seed, kind, d, duplicate)
    X = X * 10.0**scale_exp  # every row of the same scale: 1e+-300 included
    exact = ExactData(X, y)
    for form in (kperc.gram_matrix(X, y), kperc.gram_operator(X, y)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "undecided" is allowed
            runs = list(_runs(form, eps))
        for name, r, bound in runs:
            if r.outcome == "separator":
                assert exact.separates(r.alpha), name
            elif r.outcome == "certificate":
                assert exact.seminorm_at_most(r.p, bound), name
    # the linear forms on the data themselves: a separator w with y_i x_i^T w > 0, and
    # von_neumann_linear's certificate for the exact directions
    for name, call in (
        ("perceptron", lambda: kperc.perceptron(X, y, max_iter=400)),
        ("normalized_perceptron", lambda: kperc.normalized_perceptron(X, y, max_iter=400)),
        ("winnow", lambda: kperc.winnow(X, y, max_iter=400)),
        ("von_neumann_linear", lambda: kperc.von_neumann_linear(X, y, eps=eps, max_iter=400)),
    ):
        try:
            r = call()
        except ValueError as exc:  # eps below the floor of the rounded points
            assert "eps=" in str(exc) and "below the accuracy" in str(exc)
            continue
        if r.outcome == "separator":
            assert exact.separated_by(r.w), name
        elif r.outcome == "certificate":
            assert exact.seminorm_at_most(r.p, eps), name


def test_the_issues_reproducer_answers_undecided_below_the_floor_of_the_data():
    """The issue's three points: exactly inseparable (the origin inside their hull at
    depth about s), yet the rounded G has a separator in its rounding direction. No
    algorithm returns it; ``eps = 5e-8`` is below what a certificate of the data can
    reach (twice ``sqrt(delta)``, 8e-8, for G's construction rounding ``delta``), so the
    certificate methods say "undecided" and name both numbers, while a copy of G (a
    matrix taken as given) is certified at that ``eps``."""
    s, rot = 3e-4, 1.1
    A = np.array([[s, 1.0], [s, -1.0], [-1.0, 0.0]])
    c, si = np.cos(rot), np.sin(rot)
    A = A @ np.array([[c, -si], [si, c]])
    y = np.array([1.0, -1.0, 1.0])
    X = A * y[:, None]
    G = kperc.gram_matrix(X, y)
    exact = ExactData(X, y)
    for name, r, _ in _runs(G, 1e-3):
        assert r.outcome != "separator", name
    for call in (
        lambda G: kperc.isnkpvn(G, eps=5e-8),
        lambda G: kperc.snkpvn(G, None, 5e-8),
    ):
        _assert_undecided(call, G, "=5e-08")
    # above the floor, the certificate holds for the data
    r = kperc.isnkpvn(G, eps=1e-6)
    assert r.outcome == "certificate" and exact.seminorm_at_most(r.p, 1e-6)


def test_nvn_answers_undecided_below_the_floor_of_the_data():
    """One point under both labels: ``||p||_G = 0`` at NVN's first iterate, yet
    ``eps = 1e-8`` is below the floor of a certificate for the data's exact matrix."""
    X = np.array([[1.0, 2.0], [1.0, 2.0]])
    y = np.array([1.0, -1.0])
    G = kperc.gram_matrix(X, y)
    _assert_undecided(lambda G: kperc.nvn(G, eps=1e-8), G, "eps=1e-08")
    r = kperc.nvn(G, eps=1e-6)
    assert r.outcome == "certificate" and ExactData(X, y).seminorm_at_most(r.p, 1e-6)


def _assert_undecided(call, G, named: str) -> None:
    """``call(G)`` ends "undecided" with one RuntimeWarning (its message, which names the
    tolerance and the way out); a copy of G, a matrix taken as given, is certified."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = call(G)
    assert r.outcome == "undecided" and r.status == 4 and not r.success
    assert named in r.message and "np.array(G)" in r.message
    assert [(w.category, str(w.message)) for w in caught] == [(RuntimeWarning, r.message)]
    assert call(np.array(G)).outcome == "certificate"


def test_margin_details_separator_holds_when_it_says_separable():
    """At a margin of 5e-14, margin_details on a gram_operator is decided by a primal ``w``
    (alpha = p / ||p||_G does not separate there, even the rounded factor: (Z Z^T alpha)_0
    = -1.2e-3); the result holds that ``w``, and it separates the data exactly."""
    X, y = _problem(169186630, "thin", 3, "none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = kperc.margin_details(kperc.gram_operator(X, y))
    assert res.status == "separable"
    exact = ExactData(X, y)
    if res.w is None:
        assert exact.separates(res.alpha)
    else:
        assert exact.separated_by(res.w)


class ExactPoly2:
    """The exact normalised signed Gram matrix of the degree-2 polynomial kernel, which
    is rational: ``K(x, z) = (g x^T z + c)^2`` has ``sqrt(K(x, x)) = g ||x||^2 + c``, so
    ``G*_ij = y_i y_j (g x_i^T x_j + c)^2 / ((g ||x_i||^2 + c) (g ||x_j||^2 + c))`` for
    the float data and parameters, in fractions."""

    def __init__(self, X: np.ndarray, y: np.ndarray, gamma: float, coef0: float):
        g, c = Fraction(gamma), Fraction(coef0)
        rows = [[Fraction(v) for v in r] for r in X.tolist()]
        ys = [Fraction(v) for v in y.tolist()]

        def base(a, b):
            return g * sum((p * q for p, q in zip(a, b, strict=True)), Fraction(0)) + c

        t = [base(r, r) for r in rows]
        self.G = [
            [ys[i] * ys[j] * base(rows[i], rows[j]) ** 2 / (t[i] * t[j]) for j in range(len(rows))]
            for i in range(len(rows))
        ]

    def product(self, v: np.ndarray) -> list[Fraction]:
        f = [Fraction(x) for x in v.tolist()]
        return [sum((a * b for a, b in zip(row, f, strict=True)), Fraction(0)) for row in self.G]

    def margin_at_least(self, alpha: np.ndarray, low: float) -> bool:
        """``(G* alpha)_i > 0`` and ``(G* alpha)_i >= low ||alpha||_{G*}`` for every ``i``."""
        Ga = self.product(alpha)
        q = sum((Fraction(a) * b for a, b in zip(alpha.tolist(), Ga, strict=True)), Fraction(0))
        lo = Fraction(low)
        return all(v > 0 and v * v >= lo * lo * q for v in Ga) and lo >= 0

    def margin_at_most(self, p: np.ndarray, upper: float) -> bool:
        """``||p||_{G*} <= upper ||p||_1``: no normalised margin above ``upper``."""
        Gp = self.product(p)
        q = sum((Fraction(a) * b for a, b in zip(p.tolist(), Gp, strict=True)), Fraction(0))
        return q <= (Fraction(upper) * sum((Fraction(a) for a in p.tolist()), Fraction(0))) ** 2


def _poly2_problem(
    seed: int, kind: str, d: int, scale_exp: int, duplicate: str = "same"
) -> Dataset:
    """Hostile problems for the degree-2 kernel: ``x`` and ``-c x`` under opposite labels
    (their feature-space images cancel exactly, yet the rows differ, so no conflict is
    found), the issue's thin family, duplicated points, and random data; all rows
    scaled by ``10^scale_exp``."""
    rng = np.random.default_rng(seed)
    if kind == "antipodal":
        X = rng.standard_normal((int(rng.integers(2, 5)), d))
        i = int(rng.integers(X.shape[0]))
        X = np.vstack([X, -X[i : i + 1] * rng.uniform(0.5, 2.0)])
        y = np.where(rng.random(X.shape[0]) < 0.5, -1.0, 1.0)
        y[-1] = -y[i]
    else:
        ds = _problem(seed, "thin" if kind == "thin" else "random", d, duplicate)
        X, y = ds.X, ds.y
    X = X * rng.uniform(0.5, 2.0, size=(X.shape[0], 1)) * 10.0**scale_exp
    return Dataset(X, y)


@given(
    seed=seeds,
    kind=st.sampled_from(["antipodal", "thin", "random"]),
    d=st.sampled_from([2, 3, 5]),
    coef0=st.sampled_from([0.0, 1.0]),
    scale_exp=st.sampled_from([0, -3, 3, -150, 150]),
    duplicate=st.sampled_from(["none", "same", "opposite"]),
)
@example(seed=0, kind="antipodal", d=2, coef0=0.0, scale_exp=0, duplicate="none")
# the rounded G alone gave margin_upper 8e-10 for a p whose ||p||_{G*} is above it
@example(seed=153, kind="thin", d=3, coef0=0.0, scale_exp=0, duplicate="same")
def test_is_separable_kernel_answers_hold_for_the_exact_kernel_matrix(
    seed, kind, d, coef0, scale_exp, duplicate
):
    """``is_separable(..., kernel="poly", degree=2)``: a separator holds, with its
    ``margin_lower``, and a certificate with its ``margin_upper``, for the exact kernel
    matrix of the data (rational for degree 2); exactly cancelling images are never
    called separable."""
    X, y = _poly2_problem(seed, kind, d, scale_exp, duplicate)
    gamma = 1.0 / (d * 10.0 ** (2 * scale_exp))  # keeps gamma ||x||^2 near 1
    res = kperc.is_separable(X, y, kernel="poly", degree=2, gamma=gamma, coef0=coef0)
    if kind == "antipodal" and coef0 == 0.0:
        assert res.status != "separable"
    if res.conflicts.size:  # a point repeated under both labels: exactly inseparable
        assert res.status == "not separable" and res.exact and res.margin_upper == 0.0
    if res.status == "undecided":
        return
    exact = ExactPoly2(X, y, gamma, coef0)
    if res.status == "separable":
        assert exact.margin_at_least(res.alpha, res.margin_lower)
    elif not res.exact:
        assert exact.margin_at_most(res.p, res.margin_upper)


def _classifier_runs(clf, X, y):
    """Fit ``clf`` and return ``(result, found, tol)`` of its binary run (None when no
    run happened: a conflict left one class), spying on ``run_algorithm``."""
    from unittest import mock

    from kperc import _classifier_fit

    seen = []
    real = _classifier_fit.run_algorithm

    def spy(G, algorithm, **kw):
        out = real(G, algorithm, **kw)
        seen.append((*out, kw["tol"]))
        return out

    with mock.patch.object(_classifier_fit, "run_algorithm", spy), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit's one warning is tested elsewhere
        clf.fit(X, y)
    return seen[0] if seen else None


@given(
    seed=seeds,
    kind=st.sampled_from(["thin", "thin", "random"]),
    d=st.sampled_from([2, 3, 5]),
    duplicate=st.sampled_from(["none", "same", "opposite"]),
    scale_exp=st.sampled_from([0, -8, 8, -100, 100]),  # K(x, x) stays representable
    algorithm=st.sampled_from(["snkp", "nkp", "isnkpvn"]),
    n_components=st.sampled_from([None, "auto"]),
    tol=st.sampled_from([1e-2, 1e-5, 1e-7, 3e-8, 1e-9]),
)
@example(
    seed=0,
    kind="thin",
    d=2,
    duplicate="none",
    scale_exp=0,
    algorithm="isnkpvn",
    n_components=None,
    tol=3e-8,
)
# before the classifier's G carried its construction error, ISNKPVN certified 3e-8 for
# the rounded matrix only, and the certificate watch's bound excluded the data's value
@example(
    seed=77135,
    kind="thin",
    d=5,
    duplicate="none",
    scale_exp=-8,
    algorithm="isnkpvn",
    n_components=None,
    tol=3e-8,
)
@example(
    seed=0,
    kind="random",
    d=2,
    duplicate="same",
    scale_exp=-8,
    algorithm="snkp",
    n_components=None,
    tol=1e-5,
)
def test_the_classifiers_answers_hold_for_the_exact_gram_matrix_of_the_data(
    seed, kind, d, duplicate, scale_exp, algorithm, n_components, tol
):
    """SNKPClassifier (linear kernel; the dense matrix or the factored operator, and the
    float32 proposals of its dense path) on the hostile families, scaled: a separator
    of its run holds for the exact Gram matrix of the training points, and a
    certificate (the classifier's own, or ISNKPVN's) bounds their exact ``||p||_G`` by
    ``tol``; outcome "undecided" is allowed."""
    from unittest import mock

    from kperc import _classifier_fit

    X, y = _problem(seed, kind, d, duplicate)
    X = X * 10.0**scale_exp
    if np.unique(y).size < 2:
        return  # one class: refused by the classifier, as scikit-learn's are
    clf = kperc.SNKPClassifier(
        kernel="linear",
        algorithm=algorithm,
        n_components=n_components,
        tol=tol,
        fit_intercept=False,
        max_iter=300,
    )
    try:
        with mock.patch.object(_classifier_fit, "FLOAT32_MIN_N", 1):
            run = _classifier_runs(clf, X, y)
    except ValueError as exc:  # tol below the floor of G as given, refused by name
        assert str(exc).startswith(f"tol={tol:g} is below the accuracy")
        return
    assert clf.outcome_ in {"separator", "certificate", "conflict", "max_iter", "undecided"}
    if run is None:
        return
    res, found, run_tol = run
    train = np.setdiff1d(np.arange(len(y)), clf.conflicts_.ravel())
    exact = ExactData(X[train], y[train])
    if found is not None:
        assert exact.seminorm_at_most(found["p"], found["bound"])
    elif res.outcome == "separator":
        assert clf.converged_ and exact.separates(res.alpha)
    elif res.outcome == "certificate":
        assert exact.seminorm_at_most(res.p, run_tol)
        assert exact.seminorm_at_most(res.p, clf.certificate_norm_) and clf.certificate_norm_ <= tol
