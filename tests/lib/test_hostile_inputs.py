"""Hostile input over every public function: a clear error that names the parameter, or a
certified result.

Each family of bad or extreme input is a parametrized test over the public functions it
applies to (``kperc.__all__``, ``kperc.datasets``). The expected outcome is stated by the
test: a :class:`ValueError` or :class:`TypeError` whose message names the parameter, or a
result that is checked independently (a separator by ``min(G alpha) > 0`` or
``min_i y_i x_i^T w > 0`` in long double, a certificate by its bound recomputed), and
inputs are never modified.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import DATA_ALGORITHMS, GRAM_ALGORITHMS
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator
from test_separable_rational import integer_columns, recheck, spanning_rows, subnormal_rows

import kperc
from kperc import datasets
from kperc._kernel_values import kernel_diagonal
from kperc._margins import _data_margin_details

# --- instances -------------------------------------------------------------------------

# separable: y_i x_i^T (1, 1) > 0 for every i
X0 = np.array([[1.0, 0.2], [0.3, 1.0], [0.9, 0.1], [-1.0, 0.1], [0.2, -1.0], [-0.8, -0.3]])
Y0 = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
G0 = kperc.gram_matrix(X0, Y0)
N0 = X0.shape[0]
Q0 = np.full(N0, 1.0 / N0)


def _ld_min_Galpha(G, alpha) -> float:
    """``min(G alpha)`` accumulated in long double (an independent check)."""
    return float((np.asarray(G, np.longdouble) @ np.asarray(alpha, np.longdouble)).min())


def _ld_separates(X, y, w) -> bool:
    m = (np.asarray(X, np.longdouble) @ np.asarray(w, np.longdouble)) * np.asarray(y)
    return bool(np.all(m > 0))


DEFAULT_EPS = 1e-3  # the default eps / delta of NVN, SNKPVN and ISNKPVN


def _assert_certified(res, *, G=None, X=None, y=None, eps=DEFAULT_EPS):
    """A result's claim, re-checked independently: separators in long double, certificates
    by recomputing ``||p||_G`` in long double against the tolerance ``eps`` they claim."""
    if res.outcome == "separator":
        if res.w is not None and X is not None:
            assert _ld_separates(X, y, res.w)
        if res.alpha is not None and G is not None:
            assert _ld_min_Galpha(G, res.alpha) > 0
    elif res.outcome == "certificate" and G is not None:
        p = np.asarray(res.p, np.longdouble)
        assert np.all(p >= 0) and abs(float(p.sum()) - 1.0) < 1e-9
        q = float(p @ (np.asarray(G, np.longdouble) @ p))
        assert np.sqrt(max(q, 0.0)) <= eps


# --- registries ------------------------------------------------------------------------

#: Functions taking data ``(X, y)``; each returns something to check.
DATA_FUNCS = {
    "perceptron": lambda X, y: kperc.perceptron(X, y, max_iter=2000),
    "normalized_perceptron": lambda X, y: kperc.normalized_perceptron(X, y, max_iter=2000),
    "von_neumann_linear": lambda X, y: kperc.von_neumann_linear(X, y, max_iter=2000),
    "winnow": lambda X, y: kperc.winnow(X, y, max_iter=2000),
    "gram_matrix": kperc.gram_matrix,
    "gram_matrix_rbf": lambda X, y: kperc.gram_matrix(X, y, "rbf", gamma=0.5),
    "gram_matrix_poly": lambda X, y: kperc.gram_matrix(X, y, "poly", degree=2),
    "gram_operator": kperc.gram_operator,
    "signed_normalized_points": kperc.signed_normalized_points,
    "data_margin": kperc.data_margin,
    "linf_margin": kperc.linf_margin,
    "is_separable": kperc.is_separable,
    "is_separable_rbf": lambda X, y: kperc.is_separable(X, y, kernel="rbf", gamma=0.5),
    "kernel_gram_operator": lambda X, y: kperc.kernel_gram_operator(X, y, gamma=0.5),
    "approx_gram_operator": lambda X, y: kperc.approx_gram_operator(
        X, y, gamma=0.5, n_components=3, random_state=0
    ),
    "exact_margin_check": lambda X, y: kperc.exact_margin_check(
        X, y, np.full(len(y), 1.0 / max(len(y), 1)), gamma=0.5
    ),
    "SNKPClassifier": lambda X, y: kperc.SNKPClassifier(kernel="rbf", gamma=0.5).fit(X, y),
    # the training points scored with uniform weights (X_new = X)
    "decision_function": lambda X, y: kperc.decision_function(_uniform(y), X, y, X),
    "decision_function_rbf": lambda X, y: kperc.decision_function(
        _uniform(y), X, y, X, "rbf", gamma=0.5
    ),
    "predict": lambda X, y: kperc.predict(_uniform(y), X, y, X),
    "predict_poly": lambda X, y: kperc.predict(_uniform(y), X, y, X, "poly", degree=2),
    "snkp_nystroem": lambda X, y: kperc.snkp_nystroem(
        X, y, gamma=0.5, n_components=2, max_components=4, max_iter=500, random_state=0
    ),
}
#: Functions taking data X only.
X_FUNCS = {
    "kernel_matrix": kperc.kernel_matrix,
    "kernel_matrix_rbf": lambda X: kperc.kernel_matrix(X, kernel="rbf", gamma=0.5),
}
#: Functions taking a normalised signed Gram matrix (dense, sparse or operator).
GRAM_FUNCS = {
    "nkp": lambda G: kperc.nkp(G, max_iter=2000),
    "snkp": lambda G: kperc.snkp(G, max_iter=2000),
    "nvn": lambda G: kperc.nvn(G, max_iter=2000),
    "snkpvn": lambda G: kperc.snkpvn(G, max_iter=2000),
    "isnkpvn": lambda G: kperc.isnkpvn(G, max_iter=2000),
    "margin": kperc.margin,
    "margin_details": kperc.margin_details,
    "gram_factor": kperc.gram_factor,
    "ValidatedGram": kperc.ValidatedGram,
    "loss": lambda G: kperc.loss(G, Q0[: np.shape(G)[0]] if np.ndim(G) == 2 else Q0),
    "smoothed_loss": lambda G: kperc.smoothed_loss(G, _q_for(G), 0.1),
    "smoothed_loss_q": lambda G: kperc.smoothed_loss_q(G, _q_for(G), 0.1, _q_for(G)),
    "g_seminorm": lambda G: kperc.g_seminorm(G, _q_for(G)),
    "dist_to_witness": lambda G: kperc.dist_to_witness(G, _q_for(G)),
}
#: The subset that accepts a LinearOperator.
OPERATOR_FUNCS = [*GRAM_ALGORITHMS, "loss", "smoothed_loss", "g_seminorm"]
#: Functions taking a vector.
VECTOR_FUNCS = {
    "entropy": kperc.entropy,
    "entropy_prox": lambda v: kperc.entropy_prox(v, 1.0),
    "euclidean_prox": lambda v: kperc.euclidean_prox(v, 1.0, np.full(np.size(v), 0.25)),
    "project_simplex": kperc.project_simplex,
}


def _uniform(y):
    """Weights ``1 / n`` for labels ``y`` (one per label, whatever their validity)."""
    n = max(int(np.shape(y)[0]) if np.ndim(y) else 1, 1)
    return np.full(n, 1.0 / n)


def _q_for(G):
    n = G.shape[0] if hasattr(G, "shape") and len(G.shape) == 2 else N0
    return np.full(max(n, 1), 1.0 / max(n, 1))


def _call(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


def _raises_naming(exc, param, f, *args, **kwargs):
    """``f(*args, **kwargs)`` raises ``exc`` whose message names ``param``."""
    with pytest.raises(exc) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(*args, **kwargs)
    assert param in str(info.value), f"{param!r} not named in: {info.value}"


def test_registries_cover_the_public_api():
    named = set(DATA_FUNCS) | set(X_FUNCS) | set(GRAM_FUNCS) | set(VECTOR_FUNCS)
    named = {k.split("_rbf")[0].split("_poly")[0] for k in named}
    classes = {"KpercResult", "GramOperator", "ApproxGramOperator", "ExactMarginCheck"}
    classes |= {"KernelGramOperator", "InseparableDataWarning", "datasets", "sweeps", "reference"}
    classes |= {"SmallMarginWarning"}
    classes |= {"SeparabilityResult", "NystroemResult"}
    named |= {"min_norm_point"}  # tests/test_hostile_exits.py::test_min_norm_point_rejects_*
    assert set(kperc.__all__) - classes <= named


# --- NaN and inf -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_data_is_refused(name, bad):
    X = X0.copy()
    X[1, 1] = bad
    _raises_naming(ValueError, "X", DATA_FUNCS[name], X, Y0)
    y = Y0.copy()
    y[0] = bad
    _raises_naming(ValueError, "y", DATA_FUNCS[name], X0, y)


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCS))
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_vectors_are_refused(name, bad):
    v = np.array([0.5, 0.5, 0.0])
    v[2] = bad
    with pytest.raises(ValueError, match="NaN or inf"):
        _call(VECTOR_FUNCS[name], v)


# --- empty, one sample, one class ------------------------------------------------------


#: SNKPClassifier validates X and y as every scikit-learn estimator does
#: (``sklearn.utils.validation.validate_data``); its messages are scikit-learn's own
#: (for example "Found array with 0 sample(s) (shape=(0, 2)) while a minimum of 1 is
#: required by SNKPClassifier."), which name the shape rather than the parameter.
SKLEARN = "SNKPClassifier"


def _param(name, param):
    return "" if name == SKLEARN else param


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
def test_empty_data_is_refused(name):
    f = DATA_FUNCS[name]
    _raises_naming(ValueError, _param(name, "X"), f, np.zeros((0, 2)), np.zeros(0))
    _raises_naming(ValueError, _param(name, "X"), f, np.zeros((6, 0)), Y0)


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCS))
def test_empty_vector_is_refused(name):
    with pytest.raises(ValueError, match="empty"):
        _call(VECTOR_FUNCS[name], np.zeros(0))


ALGOS_XY = list(DATA_ALGORITHMS)


@pytest.mark.parametrize("name", ALGOS_XY)
@pytest.mark.parametrize("label", [1.0, -1.0])
def test_one_sample_gives_a_certified_result(name, label):
    X, y = X0[:1], np.array([label])
    res = _call(DATA_FUNCS[name], X, y)
    assert res.outcome == "separator"
    _assert_certified(res, X=X, y=y)


@pytest.mark.parametrize("name", GRAM_ALGORITHMS)
def test_one_class_gives_a_certified_result(name):
    X = np.abs(X0) + 0.1  # one class in the positive quadrant: separable
    G = kperc.gram_matrix(X, np.ones(N0))
    res = _call(GRAM_FUNCS[name], G)
    _assert_certified(res, G=G)
    assert res.outcome in ("separator", "max_iter")
    assert _call(GRAM_FUNCS[name], np.ones((1, 1))).outcome == "separator"


# --- wrong dimensions and mismatched lengths -------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
def test_wrong_dimensions_are_refused(name):
    f = DATA_FUNCS[name]
    _raises_naming(ValueError, _param(name, "X"), f, X0[:, 0], Y0)
    _raises_naming(ValueError, _param(name, "X"), f, X0[None], Y0)
    if name != SKLEARN:  # a column y is raveled with a DataConversionWarning, as in sklearn
        _raises_naming(ValueError, "y", f, X0, Y0[:, None])
    _raises_naming(ValueError, _param(name, "y"), f, X0, Y0[:-1])


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCS))
def test_vector_of_wrong_dimension_is_refused(name):
    with pytest.raises(ValueError, match="1-D"):
        _call(VECTOR_FUNCS[name], np.full((2, 2), 0.25))


@pytest.mark.parametrize("name", ["loss", "smoothed_loss", "g_seminorm"])
def test_vector_of_wrong_length_is_refused(name):
    f = {
        "loss": lambda v: kperc.loss(G0, v),
        "smoothed_loss": lambda v: kperc.smoothed_loss(G0, v, 0.1),
        "g_seminorm": lambda v: kperc.g_seminorm(G0, v),
    }[name]
    with pytest.raises(ValueError, match=f"shape \\({N0},\\)"):
        f(np.full(N0 - 1, 0.2))


# --- dtypes ----------------------------------------------------------------------------


def _outcome(res):
    """A comparable summary of a function's result."""
    if isinstance(res, dict) and "outcome" in res:
        return (res["outcome"], res["nit"])
    if isinstance(res, dict) and "rho" in res:  # linf_margin
        return round(float(res["rho"]), 12)
    if isinstance(res, kperc.SNKPClassifier):
        return (res.outcome_, res.n_iter_)
    if isinstance(res, np.ndarray):
        return res.round(12).tolist()
    if isinstance(res, float):
        return round(res, 12)
    if hasattr(res, "toarray"):
        return res.toarray().round(12).tolist()
    if isinstance(res, kperc.ExactMarginCheck):
        return (res.certified, round(res.min_Galpha, 12))
    return None


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
@pytest.mark.parametrize("kind", ["object", "complex"])
def test_object_and_complex_data_are_refused(name, kind):
    f = DATA_FUNCS[name]
    if name == SKLEARN:  # scikit-learn: complex refused, numeric object arrays converted
        if kind == "complex":
            _raises_naming(ValueError, "Complex data not supported", f, X0.astype(kind), Y0)
        else:
            assert _outcome(_call(f, X0.astype(kind), Y0)) == _outcome(_call(f, X0, Y0))
        return
    _raises_naming(TypeError, "X", f, X0.astype(kind), Y0)
    _raises_naming(TypeError, "y", f, X0, Y0.astype(kind))


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8])
def test_narrow_dtypes_are_converted(name, dtype):
    X = np.round(X0 * 10).astype(dtype)
    Xf = X.astype(np.float64)
    assert _outcome(_call(DATA_FUNCS[name], X, Y0.astype(dtype))) == _outcome(
        _call(DATA_FUNCS[name], Xf, Y0)
    )


@pytest.mark.parametrize("name", ["perceptron", "gram_matrix", "data_margin", "linf_margin"])
def test_bool_data_is_converted(name):
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [1, 1, 1]], dtype=bool)
    y = np.array([1.0, -1.0, 1.0, -1.0])
    assert _outcome(_call(DATA_FUNCS[name], X, y)) == _outcome(
        _call(DATA_FUNCS[name], X.astype(float), y)
    )


@pytest.mark.parametrize("name", sorted(GRAM_FUNCS))
@pytest.mark.parametrize("kind", ["object", "complex", "str"])
def test_object_and_complex_gram_are_refused(name, kind):
    G = G0.astype(kind)
    _raises_naming(TypeError, "G", GRAM_FUNCS[name], G)


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCS))
@pytest.mark.parametrize("kind", ["object", "complex"])
def test_object_and_complex_vectors_are_refused(name, kind):
    with pytest.raises(TypeError, match="real|object"):
        _call(VECTOR_FUNCS[name], np.full(4, 0.25).astype(kind))


# --- pandas and sparse input -----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
@pytest.mark.parametrize("container", ["pandas", "csr", "coo", "list"])
def test_pandas_sparse_and_lists_give_the_same_result(name, container):
    if name == SKLEARN and container in ("csr", "coo"):
        # sparse X trains only the linear kernel (its tags say so, and check_estimator
        # verifies it); the refusal names X and the kernel, and says what to do
        with pytest.raises(TypeError, match="X is a scipy.sparse matrix.*kernel='rbf'.*toarray"):
            _call(DATA_FUNCS[name], sp.csr_matrix(X0), Y0)
        return
    wrap = {
        "pandas": lambda X, y: (pd.DataFrame(X, columns=["a", "b"]), pd.Series(y)),
        "csr": lambda X, y: (sp.csr_matrix(X), y),
        "coo": lambda X, y: (sp.coo_array(X), y),
        "list": lambda X, y: (X.tolist(), y.tolist()),
    }[container]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's feature-name warnings
        assert _outcome(_call(DATA_FUNCS[name], *wrap(X0, Y0))) == _outcome(
            _call(DATA_FUNCS[name], X0, Y0)
        )


@pytest.mark.parametrize("name", sorted(set(GRAM_FUNCS) - {"dist_to_witness"}))
def test_sparse_and_pandas_gram_give_the_same_result(name):
    ref = _outcome(_call(GRAM_FUNCS[name], G0))
    assert _outcome(_call(GRAM_FUNCS[name], sp.csr_matrix(G0))) == ref
    assert _outcome(_call(GRAM_FUNCS[name], pd.DataFrame(G0))) == ref


@pytest.mark.parametrize(
    "name", OPERATOR_FUNCS + ["margin", "margin_details", "gram_factor", "dist_to_witness"]
)
def test_a_sparse_factor_gives_the_result_of_the_dense_one(name):
    """gram_operator keeps sparse X sparse; every function that takes a GramOperator
    accepts its sparse factor (the margin functions densify it) with the same result."""
    sparse, dense = kperc.gram_operator(sp.csr_matrix(X0), Y0), kperc.gram_operator(X0, Y0)
    assert sp.issparse(sparse.Z) and not sp.issparse(dense.Z)
    a, b = _call(GRAM_FUNCS[name], sparse), _call(GRAM_FUNCS[name], dense)
    if isinstance(a, tuple):  # gram_factor
        np.testing.assert_allclose(a[1].T @ a[1], b[1].T @ b[1], atol=1e-12)
    elif isinstance(a, dict) and "outcome" not in a:  # margin_details, dist_to_witness
        for key, value in b.items():
            if isinstance(value, float):
                assert a[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    else:
        assert _outcome(a) == _outcome(b)


# --- read-only and non-contiguous arrays -----------------------------------------------


def _hostile_layout(a):
    """A read-only, non-contiguous view with the values of ``a``."""
    wide = np.repeat(np.asarray(a)[..., None], 2, axis=-1)
    view = wide[..., 0]
    assert not view.flags.c_contiguous or view.ndim == 1 and view.strides[0] != 8
    view.flags.writeable = False
    return view


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
def test_read_only_non_contiguous_data_is_unchanged(name):
    X, y = _hostile_layout(X0), _hostile_layout(Y0)
    X_before, y_before = X.copy(), y.copy()
    assert _outcome(_call(DATA_FUNCS[name], X, y)) == _outcome(_call(DATA_FUNCS[name], X0, Y0))
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)


@pytest.mark.parametrize("name", sorted(GRAM_FUNCS))
def test_read_only_non_contiguous_gram_is_unchanged(name):
    G = _hostile_layout(G0)
    before = G.copy()
    assert _outcome(_call(GRAM_FUNCS[name], G)) == _outcome(_call(GRAM_FUNCS[name], G0))
    np.testing.assert_array_equal(G, before)


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCS))
def test_vectors_are_unchanged(name):
    v = _hostile_layout(np.array([0.1, 0.2, 0.3, 0.4]))
    before = v.copy()
    _call(VECTOR_FUNCS[name], v)
    np.testing.assert_array_equal(v, before)


# --- scales of 1e+-300 -----------------------------------------------------------------

SCALE_FREE = [
    "perceptron",
    "normalized_perceptron",
    "von_neumann_linear",
    "winnow",
    "gram_matrix",
    "gram_operator",
    "signed_normalized_points",
    "data_margin",
    "linf_margin",
]


@pytest.mark.parametrize("name", SCALE_FREE)
@pytest.mark.parametrize("scale", [2.0**-996, 1e-300, 1e300, 2.0**996])
def test_scale_does_not_change_the_result(name, scale):
    ref = _call(DATA_FUNCS[name], X0, Y0)
    res = _call(DATA_FUNCS[name], X0 * scale, Y0)
    if isinstance(ref, dict) and "outcome" in ref:
        assert (res.outcome, res.nit) == (ref.outcome, ref.nit)
        _assert_certified(res, X=X0 * scale, y=Y0)
    elif isinstance(ref, dict):  # linf_margin: the margin and its direction
        assert res.rho == pytest.approx(ref.rho, rel=1e-12)
        np.testing.assert_allclose(res.w, ref.w, rtol=1e-12, atol=1e-14)
    else:
        a = res.toarray() if hasattr(res, "toarray") else np.asarray(res)
        b = ref.toarray() if hasattr(ref, "toarray") else np.asarray(ref)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_kernels_at_extreme_scales_are_finite_and_valid(kernel, scale):
    G = kperc.gram_matrix(X0 * scale, Y0, kernel)
    assert np.all(np.isfinite(G)) and np.array_equal(np.diag(G), np.ones(N0))
    assert np.array_equal(G, G.T) and np.linalg.eigvalsh(G)[0] > -1e-12
    if kernel == "rbf":
        assert np.array_equal(kernel_diagonal(X0 * scale, "rbf"), np.ones(N0))
        K = kperc.kernel_matrix(X0 * scale, kernel="rbf")
        # far apart (1e300) or together (1e-300): the exact kernel is 0 or 1 off the diagonal
        np.testing.assert_array_equal(K, np.eye(N0) if scale > 1 else np.ones((N0, N0)))
    else:
        poly = kperc.gram_matrix(X0, Y0, "poly", coef0=0.0)  # homogeneous: scale-free
        G = kperc.gram_matrix(X0 * scale, Y0, "poly", coef0=0.0)
        np.testing.assert_allclose(G, poly, atol=1e-14)


def test_poly_diagonal_that_overflows_is_a_clear_error():
    with pytest.raises(ValueError, match="not representable"):
        kernel_diagonal(X0 * 1e300, "poly")
    with pytest.raises(ValueError, match="not representable"):
        kperc.kernel_gram_operator(X0 * 1e300, Y0, "poly")


# --- duplicate points with opposite labels ---------------------------------------------


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("name", GRAM_ALGORITHMS)
def test_duplicate_points_with_opposite_labels_are_never_separated(kernel, name):
    X = np.vstack([X0, X0[2:3]])
    y = np.concatenate([Y0, -Y0[2:3]])
    G = kperc.gram_matrix(X, y, kernel)
    res = _call(GRAM_FUNCS[name], G)
    assert res.outcome != "separator"
    _assert_certified(res, G=G)


@pytest.mark.parametrize("name", ALGOS_XY)
def test_duplicate_points_linear_algorithms(name):
    X = np.vstack([X0, X0[2:3]])
    y = np.concatenate([Y0, -Y0[2:3]])
    res = _call(DATA_FUNCS[name], X, y)
    assert res.outcome != "separator"
    assert kperc.data_margin(X, y) <= 0 and kperc.margin(kperc.gram_matrix(X, y)) <= 0


# --- invalid G --------------------------------------------------------------------------


def _bad_grams():
    nan = G0.copy()
    nan[0, 1] = nan[1, 0] = np.nan
    asym = G0.copy()
    asym[0, 1] += 1e-3
    notpsd = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    return {
        "nan": nan,
        "asymmetric": asym,
        "bad diagonal": G0 * 2.0,
        "not psd": notpsd,
        "not square": G0[:, :3],
        "1-D": G0[0],
        "3-D": G0[None],
        "empty": np.zeros((0, 0)),
    }


@pytest.mark.parametrize("name", sorted(GRAM_FUNCS))
@pytest.mark.parametrize("problem", sorted(_bad_grams()))
def test_invalid_gram_is_refused(name, problem):
    # the losses and g_seminorm too: they validate G as the algorithms do (PSD included;
    # issue 31 found them evaluating a G that the algorithms refuse)
    _raises_naming(ValueError, "G", GRAM_FUNCS[name], _bad_grams()[problem])


def _big_not_psd(n: int = 3001) -> np.ndarray:
    """An ``n x n`` unit-diagonal symmetric matrix with smallest eigenvalue about -29."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, 5))
    A /= np.linalg.norm(A, axis=1)[:, None]
    v = rng.standard_normal(n)
    v /= np.linalg.norm(v)
    G = A @ A.T
    G -= 30.0 * np.outer(v, v)
    G.flat[:: n + 1] = 1.0
    return G


@pytest.fixture(scope="module")
def big_not_psd():
    return _big_not_psd()


@pytest.mark.parametrize("name", ["nvn", "nkp", "snkp"])
def test_not_psd_above_3000_points_is_refused(name, big_not_psd):
    _raises_naming(ValueError, "positive semidefinite", GRAM_FUNCS[name], big_not_psd)


# --- invalid operators ------------------------------------------------------------------


def _bad_operators():
    n = N0
    return {
        "nan product": (
            LinearOperator((n, n), matvec=lambda v: np.full(n, np.nan), dtype=float),
            "NaN",
        ),
        "short product": (
            LinearOperator((n, n), matvec=lambda v: np.ones(n - 1), dtype=float),
            "shape",
        ),
        "not square": (
            LinearOperator((n, n - 1), matvec=lambda v: np.ones(n), dtype=float),
            "square",
        ),
        "complex": (
            LinearOperator((n, n), matvec=lambda v: v + 0j, dtype=np.complex128),
            "real",
        ),
    }


@pytest.mark.parametrize("name", OPERATOR_FUNCS)
@pytest.mark.parametrize("problem", sorted(_bad_operators()))
def test_invalid_operator_is_refused(name, problem):
    op, match = _bad_operators()[problem]
    with pytest.raises((ValueError, TypeError), match=match) as info:
        _call(GRAM_FUNCS[name], op)
    assert "G" in str(info.value)


def test_operator_with_nan_column_is_refused():
    class Cols(LinearOperator):
        def __init__(self):
            super().__init__(np.float64, (N0, N0))

        def _matvec(self, v):
            return G0 @ v

        def column(self, j):
            return np.full(N0, np.nan)

    with pytest.raises(ValueError, match="column .* NaN"):
        kperc.nkp(Cols())


# --- invalid scalars -------------------------------------------------------------------

BAD_REAL = [0, -1, -1e-3, np.nan, np.inf, -np.inf, "1", None, True, 1j, 10**400]
BAD_INT = [0, -1, 2.5, 1e3, np.nan, np.inf, "1", None, True, np.bool_(True), 10**30, 1j]


def _scalar_cases():
    G, X, y = G0, X0, Y0
    real = {
        ("nvn", "eps"): lambda v: kperc.nvn(G, eps=v),
        ("isnkpvn", "eps"): lambda v: kperc.isnkpvn(G, eps=v),
        ("snkpvn", "delta"): lambda v: kperc.snkpvn(G, None, v),
        ("snkp", "mu0"): lambda v: kperc.snkp(G, mu0=v),
        ("snkpvn", "mu0"): lambda v: kperc.snkpvn(G, mu0=v),
        ("isnkpvn", "gamma"): lambda v: kperc.isnkpvn(G, gamma=v),
        ("winnow", "eta"): lambda v: kperc.winnow(X, y, eta=v),
        ("von_neumann_linear", "eps"): lambda v: kperc.von_neumann_linear(X, y, eps=v),
        ("gram_matrix", "gamma"): lambda v: kperc.gram_matrix(X, y, "rbf", gamma=v),
        ("kernel_matrix", "gamma"): lambda v: kperc.kernel_matrix(X, kernel="rbf", gamma=v),
        ("kernel_gram_operator", "gamma"): lambda v: kperc.kernel_gram_operator(X, y, gamma=v),
        ("approx_gram_operator", "gamma"): lambda v: kperc.approx_gram_operator(
            X, y, gamma=v, n_components=3
        ),
        ("smoothed_loss", "mu"): lambda v: kperc.smoothed_loss(G, Q0, v),
        ("smoothed_loss_q", "mu"): lambda v: kperc.smoothed_loss_q(G, Q0, v, Q0),
        ("entropy_prox", "mu"): lambda v: kperc.entropy_prox(Q0, v),
        ("euclidean_prox", "mu"): lambda v: kperc.euclidean_prox(Q0, v, Q0),
    }
    integer = {
        (f, "max_iter"): lambda v, f=f: getattr(kperc, f)(G, max_iter=v) for f in GRAM_ALGORITHMS
    }
    integer.update(
        {(f, "max_iter"): lambda v, f=f: getattr(kperc, f)(X, y, max_iter=v) for f in ALGOS_XY}
    )
    integer.update(
        {
            ("gram_matrix", "degree"): lambda v: kperc.gram_matrix(X, y, "poly", degree=v),
            ("approx_gram_operator", "n_components"): lambda v: kperc.approx_gram_operator(
                X, y, n_components=v
            ),
            ("kernel_gram_operator", "block_size"): lambda v: kperc.kernel_gram_operator(
                X, y, block_size=v
            ),
            ("SNKPClassifier", "degree"): lambda v: kperc.SNKPClassifier(
                kernel="poly", degree=v
            ).fit(X, y),
            ("circles", "n"): lambda v: datasets.circles(v),
            ("planted", "n"): lambda v: datasets.planted(v, 3),
            ("moons", "n"): lambda v: datasets.moons(v),
            ("xor", "n"): lambda v: datasets.xor(v),
            ("infeasible", "n"): lambda v: datasets.infeasible(v),
        }
    )
    nonneg = {
        ("nkp", "cache_size"): lambda v: kperc.nkp(G, cache_size=v),
        ("nvn", "cache_size"): lambda v: kperc.nvn(G, cache_size=v),
        ("circles", "noise"): lambda v: datasets.circles(20, noise=v),
        ("moons", "noise"): lambda v: datasets.moons(20, noise=v),
    }
    finite = {
        ("gram_matrix", "coef0"): lambda v: kperc.gram_matrix(X, y, "poly", coef0=v),
        ("planted", "rho"): lambda v: datasets.planted(10, 3, rho=v),
    }
    cases = []
    for (f, p), call in real.items():
        cases += [(f, p, call, v) for v in BAD_REAL]
    for (f, p), call in integer.items():
        cases += [(f, p, call, v) for v in BAD_INT]
    for (f, p), call in nonneg.items():
        cases += [(f, p, call, v) for v in [-1, -1e-3, np.nan, np.inf, "1", True, 1j]]
    for (f, p), call in finite.items():
        cases += [(f, p, call, v) for v in [np.nan, np.inf, -np.inf, "1", None, 1j]]
    return cases


SCALAR_CASES = _scalar_cases()


@pytest.mark.parametrize(
    ("func", "param", "call", "value"),
    SCALAR_CASES,
    ids=[f"{f}-{p}-{v!r}"[:60] for f, p, _, v in SCALAR_CASES],
)
def test_invalid_scalars_are_refused_naming_the_parameter(func, param, call, value):
    if (
        value is None
        and (func, param) not in (("isnkpvn", "gamma"), ("snkp", "mu0"))
        and param in ("gamma", "mu0", "block_size")
    ):
        # None is the documented default: gamma = 1 / n_features for the kernels, mu0 of
        # SNKPVN from n, block_size of about 8 MB
        _call(call, value)
        return
    _raises_naming((ValueError, TypeError), param, call, value)


@pytest.mark.parametrize("value", [np.int32(50), np.int64(50), 50])
def test_numpy_integers_are_accepted(value):
    assert kperc.nkp(G0, max_iter=value).outcome == "separator"
    assert kperc.gram_matrix(X0, Y0, "poly", degree=np.int64(2)).shape == (N0, N0)


@pytest.mark.parametrize("value", [np.float32(0.5), np.float64(0.5), 0.5])
def test_numpy_floats_are_accepted(value):
    np.testing.assert_array_equal(
        kperc.gram_matrix(X0, Y0, "rbf", gamma=value), kperc.gram_matrix(X0, Y0, "rbf", gamma=0.5)
    )


def test_tiny_mu0_names_the_smallest_accepted_value():
    for f in (kperc.snkp, kperc.snkpvn):
        with pytest.raises(ValueError, match="mu0.*smallest accepted value is mu0=1e-150"):
            f(G0, mu0=5e-324)
        res = f(G0, mu0=1e-100)  # small but accepted: a certified run
        _assert_certified(res, G=G0)


# --- kernels ----------------------------------------------------------------------------


def _not_psd_kernel(A, B):
    """Symmetric, positive diagonal, not PSD: ``cos(5 ||a - b||)``."""
    return np.cos(5.0 * np.linalg.norm(A[:, None] - B[None], axis=-1))


@pytest.mark.parametrize(
    ("kernel", "match"),
    [
        (_not_psd_kernel, "positive semidefinite"),
        (lambda A, B: A @ B.T + 1.0 + np.arange(B.shape[0]) * 1e-3, "not symmetric"),
        (lambda A, B: (A @ B.T)[:, :1], "shape"),
        (lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan), "NaN"),
        (lambda A, B: (A @ B.T + 2.0) + 0j, "complex"),
    ],
)
@pytest.mark.parametrize(
    "entry", ["gram_matrix", "kernel_gram_operator", "approx_gram_operator", "SNKPClassifier"]
)
def test_invalid_kernel_callables_are_refused(kernel, match, entry):
    X = np.random.default_rng(0).standard_normal((30, 2))
    y = np.where(np.arange(30) % 2, 1.0, -1.0)
    f = {
        "gram_matrix": lambda: kperc.gram_matrix(X, y, kernel),
        "kernel_gram_operator": lambda: kperc.kernel_gram_operator(X, y, kernel),
        "approx_gram_operator": lambda: kperc.approx_gram_operator(
            X, y, kernel, n_components=10, random_state=0
        ),
        "SNKPClassifier": lambda: kperc.SNKPClassifier(kernel=kernel).fit(X, y),
    }[entry]
    with pytest.raises((ValueError, TypeError), match=match):
        _call(f)


def test_gamma_negative_in_the_classifier_raises_not_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="gamma"):
            kperc.SNKPClassifier(kernel="rbf", gamma=-1).fit(X0, Y0)


# --- the prox maps, losses and the simplex projection ----------------------------------


def test_project_simplex_of_huge_entries():
    np.testing.assert_array_equal(kperc.project_simplex([1e16, 0.0]), [1.0, 0.0])
    np.testing.assert_array_equal(kperc.project_simplex([1e300, -1e300, 0.0]), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(kperc.project_simplex([1e16 + 2, 1e16]), [1.0, 0.0])


@given(
    v=st.lists(
        st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False), min_size=1, max_size=8
    )
)
def test_project_simplex_is_the_projection(v):
    """On the simplex, and ``p = max(v - tau, 0)`` for one threshold ``tau`` (the optimality
    conditions of the projection), checked up to the rounding of ``v``'s largest entry."""
    v = np.array(v)
    p = kperc.project_simplex(v)
    assert np.all(p >= 0) and abs(p.sum() - 1.0) < 1e-9
    support = p > 0
    tau = v[support] - p[support]
    slack = 4 * np.finfo(float).eps * max(1.0, np.abs(v).max())
    assert np.ptp(tau) <= slack + 1e-12
    assert np.all(v[~support] <= tau.min() + slack)


def test_smoothed_loss_infinite_mu_is_refused():
    with pytest.raises(ValueError, match="mu"):
        kperc.smoothed_loss(G0, Q0, np.inf)


@pytest.mark.parametrize("p", [[np.nan, 1.0], [-0.5, 1.5], [0.2, 0.2], [0.5, 0.5 + 1e-3]])
def test_entropy_refuses_points_off_the_simplex(p):
    with pytest.raises(ValueError, match="p "):
        kperc.entropy(np.array(p))


def test_tiny_mu_takes_the_limit():
    ga = np.array([0.0, 0.0, 1.0])
    np.testing.assert_array_equal(kperc.entropy_prox(ga, 5e-324), [0.5, 0.5, 0.0])
    q = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(kperc.euclidean_prox(ga, 5e-324, q), [0.45, 0.55, 0.0])
    assert kperc.smoothed_loss(G0, Q0, 5e-324) == kperc.loss(G0, Q0)


# --- datasets ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, 1.5, "0", None, True])
@pytest.mark.parametrize("gen", ["circles", "moons", "xor", "planted", "infeasible"])
def test_dataset_seeds_are_validated(gen, seed):
    _raises_naming(ValueError, "seed", getattr(datasets, gen), 20, seed=seed)


@pytest.mark.parametrize("name", GRAM_ALGORITHMS)
def test_complex_gram_is_refused_without_input_checks(name):
    with pytest.raises(TypeError, match="G must be a real"):
        getattr(kperc, name)(G0 + 0j, check_input=False)


# --- large RBF gamma (issue 31, section 2) ----------------------------------------------


def _exact_rbf(A, B, gamma) -> np.ndarray:
    """``exp(-gamma ||a - b||^2)`` from the exact squared distance (rational arithmetic)
    and a 40-digit exponential: an independent reference."""
    import decimal
    from fractions import Fraction

    ctx = decimal.Context(prec=40)
    out = np.empty((A.shape[0], B.shape[0]))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            d2 = sum((Fraction(x) - Fraction(z)) ** 2 for x, z in zip(a, b, strict=True))
            t = Fraction(gamma) * d2
            out[i, j] = float(ctx.exp(-ctx.divide(t.numerator, t.denominator)))
    return out


def _near_pairs(seed: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Points of norm about ``scale`` with close neighbours (at 1e-8 and a few ulps), where
    ``||x||^2 + ||z||^2 - 2 x.z`` cancels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, 3)) * scale
    X[1] = X[0] + 1e-8 * scale
    X[2] = X[0] * (1 + 4 * np.finfo(float).eps)
    X[3] = X[4] - 3e-8 * scale
    y = np.array([1.0, -1.0] * 6)
    return X, y


@pytest.mark.parametrize("gamma", [1e6, 1e14, 1e16, 1e20])
@given(seed=st.integers(0, 2**31 - 1))
def test_large_rbf_gamma_gives_accurate_kernel_values(gamma, seed):
    # sklearn's expansion gave errors of 1e-8 at gamma = 1e6 and K(x, x) = 2e-8 at 1e16
    X, y = _near_pairs(seed, 1.0)
    G = _exact_rbf(X, X, gamma) * np.outer(y, y)
    op = kperc.kernel_gram_operator(X, y, gamma=gamma, block_size=5)
    tol = 1e-11  # the documented 2^-40 relative error, and exp's conditioning below 746
    for j in range(X.shape[0]):
        np.testing.assert_allclose(op.column(j), G[:, j], rtol=tol, atol=1e-300)
    np.testing.assert_allclose(op @ np.eye(X.shape[0]), G, rtol=tol, atol=1e-300)


@pytest.mark.parametrize("gamma", [1e6, 1e14, 1e16])
@given(seed=st.integers(0, 2**31 - 1), scale=st.sampled_from([1.0, 1e-120, 1e120]))
def test_exact_margin_check_at_large_rbf_gamma_certifies_only_the_truth(gamma, seed, scale):
    X, y = _near_pairs(seed, scale)
    g = gamma / scale**2
    G = _exact_rbf(X, X, g) * np.outer(y, y)
    alpha = np.random.default_rng(seed).random(X.shape[0])
    # a dual vector whose exact minimum is tiny, of either sign: the check must not
    # certify a negative one, and must get the values right
    for shift in (-1e-9, 1e-9):
        a = alpha.copy()
        i = int(np.argmin(G @ a))
        a[i] = max(0.0, a[i] - (G @ a)[i] + shift)
        truth = np.asarray(G, np.longdouble) @ np.asarray(a, np.longdouble)
        chk = kperc.exact_margin_check(X, y, a, gamma=g)
        np.testing.assert_allclose(chk.Galpha, truth.astype(float), rtol=1e-11, atol=1e-14)
        if chk.certified:
            assert float(truth.min()) > 0


# --- subnormal data in is_separable (issue 31, section 2) -------------------------------

XOR = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
XOR_Y = np.array([1.0, 1.0, -1.0, -1.0])


@pytest.mark.parametrize("scale", [2.0**-1060, 1e-310, 2.0**-1000, 1e300])
@pytest.mark.parametrize("case", ["separable", "xor", "xor_intercept"])
def test_is_separable_answers_subnormal_data_as_scaled_data(case, scale):
    # X * 2^-1060 made 1 / ||x_i|| overflow, and scipy refused the LP ("Invalid input for
    # linprog"); the points, hence the answer, are those of X itself
    X, y, fi = {
        "separable": (X0, Y0, False),
        "xor": (XOR, XOR_Y, False),
        "xor_intercept": (XOR, XOR_Y, True),
    }[case]
    ref = kperc.is_separable(X, y, fit_intercept=fi)
    res = kperc.is_separable(X * scale, y, fit_intercept=fi)
    if not fi:  # with an intercept the constant feature does not scale: other data
        assert (res.status, res.exact) == (ref.status, ref.exact)
    assert res.status != "undecided"
    if res.status == "separable":
        Xs = X * scale
        if fi:
            Xs = np.hstack([Xs, np.ones((X.shape[0], 1))])
        assert _ld_separates(Xs, y, res.w)
    elif res.exact:  # an exact certificate: the signed points cancel on its support
        assert ref.status == "not separable"


# --- losses at huge alpha (issue 31, section 2) -----------------------------------------

LOSSES = {
    "loss": lambda G, a, **k: kperc.loss(G, a, **k),
    "smoothed_loss": lambda G, a, **k: kperc.smoothed_loss(G, a, 0.1, **k),
    "smoothed_loss_huge_mu": lambda G, a, **k: kperc.smoothed_loss(G, a, 1e300, **k),
    "smoothed_loss_q": lambda G, a, **k: kperc.smoothed_loss_q(G, a, 0.1, Q0, **k),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("c", [1e160, 1e300, 1.7e308])
@pytest.mark.parametrize("given_Galpha", [False, True])
def test_losses_that_overflow_are_a_clear_error(name, c, given_Galpha):
    # alpha^T G alpha is about c^2: not representable. The losses returned inf silently.
    a = Q0 * c
    kw = {"Galpha": G0 @ Q0 * c} if given_Galpha else {}
    _raises_naming(ValueError, "alpha", LOSSES[name], G0, a, **kw)


@pytest.mark.parametrize("name", ["loss", "smoothed_loss", "smoothed_loss_huge_mu"])
@pytest.mark.parametrize("c", [1e150, 2.0**511])
def test_losses_of_large_representable_values_are_finite_and_right(name, c):
    # L(c a) = -c min(G a) + c^2 ||a||_G^2 / 2: for c^2 near 1e300 both terms are finite
    # and the loss is their sum (the entropy term moves it by at most mu log n)
    a = Q0
    ga = G0 @ a
    exact = -c * float(ga.min()) + c * c * float(a @ ga) / 2
    value = LOSSES[name](G0, a * c)
    mu = 1e300 if name.endswith("huge_mu") else 0.1
    slack = mu * np.log(N0) if name != "loss" else 0.0
    assert np.isfinite(value)
    assert exact - slack - 1e-12 * abs(exact) <= value <= exact + 1e-12 * abs(exact)


# --- dual weights that stand for no separator (issue 31, section 2) ---------------------


@pytest.mark.parametrize("func", ["predict", "decision_function"])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize(
    "alpha",
    [np.zeros(N0), -Q0, np.where(np.arange(N0) == 2, -1e-3, Q0), np.full(N0, -0.0)],
    ids=["zero", "negative", "one negative", "negative zeros"],
)
def test_dual_weights_that_are_zero_or_negative_are_refused(func, kernel, alpha):
    # they were accepted: all zero scores every point 0 (predicted -1), and negative
    # weights are no algorithm's output
    _raises_naming(ValueError, "alpha", getattr(kperc, func), alpha, X0, Y0, X0, kernel)
    res = kperc.nkp(G0)  # a result whose alpha was set to such weights
    res["alpha"] = alpha
    _raises_naming(ValueError, "alpha", getattr(kperc, func), res, X0, Y0, X0, kernel)


# --- rows spanning the exponent range, subnormals, powers of two per column (issue 36) --


@given(
    st.one_of(
        spanning_rows(),
        subnormal_rows(),
        st.tuples(integer_columns().map(lambda zx: zx[1]), st.just(None)),
    )
)
def test_is_separable_and_data_margin_hold_on_the_exponent_range(data):
    """Each exact answer of is_separable is rechecked in rational arithmetic
    (tests/lib/test_separable_rational.py); a separator so verified rules out any
    "inseparable" or "zero" answer of data_margin, raw or normalised (a negative
    margin measured in a span the rounding made smaller, issue 36)."""
    X, y = data
    if y is None:  # integer columns: alternate labels
        y = np.where(np.arange(X.shape[0]) % 2 == 0, 1.0, -1.0)
    res = kperc.is_separable(X, y)
    recheck(X, y, res)
    if not np.all(np.any(X != 0, axis=1)):
        return  # a zero row: data_margin refuses it by name (tested elsewhere)
    for normalize in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            det, _ = _data_margin_details(X, y, normalize)
        if res.status == "separable":
            assert det.status in ("separable", "undecided"), (normalize, det.status)
        if res.status == "not separable":
            assert det.status != "separable", normalize
