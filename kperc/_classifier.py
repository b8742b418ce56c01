"""A scikit-learn classifier built on the Smoothed Normalised Kernel Perceptron.

The estimator: its parameters, the one validation of ``X`` and ``y``, and prediction.
The binary fits (one per class for one-vs-rest, on a shared kernel) are in
:mod:`kperc._classifier_fit`, the training kernel's form in :mod:`kperc._gram_form`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from . import _classifier_fit as _fit
from ._classifier_fit import InseparableDataWarning, SmallMarginWarning
from ._gram_form import (
    AUTO_EXACT_MAX_N,
    AUTO_N_COMPONENTS,
    AUTO_N_MAX,
    AUTO_N_START,
    sqrt_diagonal,
)
from ._kernel_values import _check_kernel_args, _kernel_values
from ._typing import ArrayLike, KernelLike, RandomStateLike

__all__ = [
    "SNKPClassifier",
    "InseparableDataWarning",
    "SmallMarginWarning",
    "expected_failed_checks",
    "AUTO_EXACT_MAX_N",
    "AUTO_N_COMPONENTS",
    "AUTO_N_START",
    "AUTO_N_MAX",
]

_MAX = float(np.finfo(np.float64).max)  # the largest finite value: inf is refused


_ZERO_POINT_REASON = (
    "hard-margin normalised kernel: with the linear kernel and no intercept the check's "
    "integer-cast data contain a zero vector x = 0, for which K(x, x) = 0 and the "
    "normalisation K(x, x)^(-1/2) is undefined (no homogeneous classifier can have "
    "y f(0) > 0); fit refuses it with a ValueError"
)

_NKP_TRAIN_REASON = (
    "NKP needs about 1/rho^2 iterations: on the check's two standardised blobs (RBF "
    "margin about 6e-4, about 2.6e6 iterations; a linear or polynomial kernel cannot "
    "separate them) it stops on the iteration cap or a tol-certificate, and its last "
    "iterate misses the check's accuracy of 0.83"
)


class _TorchDeviceType(type):
    def __instancecheck__(cls, val: Any) -> bool:
        torch = sys.modules.get("torch")  # a torch.device exists only if torch was imported
        return torch is not None and isinstance(val, torch.device)


class _TorchDevice(metaclass=_TorchDeviceType):
    """``torch.device`` for ``_parameter_constraints``, without importing torch."""

    __module__, __qualname__ = "torch", "device"  # scikit-learn's message: 'torch.device'


_DEVICE_REASON = (
    "the check sets n_components=1 (Nystroem features, numpy only), which a fit with "
    "device refuses with a ValueError naming both: a device fits the exact kernel"
)
_N_COMPONENTS_CHECKS = (
    "check_dont_overwrite_parameters",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_fit2d_predict1d",
)


def expected_failed_checks(estimator: SNKPClassifier) -> dict[str, str]:
    """Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that fail.

    Pass the result as ``expected_failed_checks`` to ``check_estimator`` or
    ``parametrize_with_checks`` (scikit-learn 1.9). With the default parameters the
    dictionary is empty: every check passes.

    Parameters
    ----------
    estimator : SNKPClassifier

    Returns
    -------
    dict of str to str
        Check name -> the reason it fails for this configuration.
    """
    expected = {}
    if estimator.device is not None:
        expected.update(dict.fromkeys(_N_COMPONENTS_CHECKS, _DEVICE_REASON))
    if estimator.algorithm == "nkp":
        expected["check_classifiers_train"] = _NKP_TRAIN_REASON
    if estimator.kernel in ("linear", "poly") and not estimator.fit_intercept:
        if estimator.kernel == "linear" or estimator.coef0 == 0:
            expected["check_estimators_dtypes"] = _ZERO_POINT_REASON
    return expected


class SNKPClassifier(ClassifierMixin, BaseEstimator):
    """Hard-margin kernel classifier trained by SNKP, NKP or ISNKPVN.

    Finds ``f = sum_i alpha_i y_i K(x_i, .) / sqrt(K(x_i, x_i))`` with ``y_i f(x_i) > 0``
    on every training point, by the Smoothed Normalised Kernel Perceptron (Algorithm 4
    of Ramdas & Pena, 2014), the Normalised Kernel Perceptron (Algorithm 3) or the
    iterated primal-dual method ISNKPVN (Algorithm 7). On data that no separator with a
    margin above ``tol`` can classify, every algorithm stops early with a certificate
    that says so and names the training points responsible. Any two class labels are
    accepted and mapped to -1/+1; more classes are fitted one-vs-rest, one binary model
    per class against the others, as :class:`sklearn.linear_model.Perceptron` does.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
        A callable receives two data matrices and returns their kernel matrix.
    gamma : float or "scale", default="scale"
        Kernel coefficient for "rbf" and "poly"; "scale" uses
        ``1 / (n_features * X.var())`` computed on the training ``X`` (without the
        intercept feature), exactly as :class:`sklearn.svm.SVC` does, at every finite
        scale of ``X`` (where ``X.var()`` or ``gamma`` would overflow, ``X`` is first
        divided by a power of two, exactly, which does not change the kernel).
    degree : int, default=3
        Degree of the "poly" kernel.
    coef0 : float, default=1.0
        Constant term of the "poly" kernel.
    fit_intercept : bool, default=True
        Append a constant feature to every point, so that the linear and polynomial
        kernels (and a callable one) can learn an offset (the paper's problems are
        homogeneous). The RBF kernel depends only on differences ``x - z``, which a
        constant feature does not change: it is not appended for ``kernel="rbf"``.
    intercept_scaling : float, default=1.0
        Value of the appended constant feature, relative to the size of the training
        points: the feature is ``intercept_scaling * s``, where ``s`` is the power of two
        nearest the root-mean-square norm of the training rows (recorded in
        ``intercept_feature_``). Scaling ``X`` by a power of two therefore gives the same
        model. A larger value makes an offset cheaper in the margin, as in
        :class:`sklearn.svm.LinearSVC`. Ignored when ``fit_intercept`` is False.
    algorithm : {"snkp", "nkp", "isnkpvn"}, default="snkp"
        Training algorithm. "snkp" needs at most ``2 sqrt(2 log n) / rho`` iterations
        of cost ``O(n^2)`` on data with normalised margin ``rho`` (Theorem 1); "nkp"
        needs ``1 / rho^2`` iterations of cost ``O(n)``; "isnkpvn" costs as much per
        iteration as "snkp" and stops with a certificate once no separator can have a
        margin above ``tol`` (Section 6).

        Which algorithm when: the three on the book's benchopt benchmark (its benchmarks
        page), at the smaller margin ``rho = 1e-3`` of each problem family, 3 seeds x 2
        dimensions. An algorithm is named only if it was the fastest to a certified
        separator on every one of those instances; "undecided" otherwise:

        =====================  ===========  ===========================================
        problems               fastest      what the results show
        =====================  ===========  ===========================================
        planted, unit norms    "snkp"       "nkp" separated none within 5 s: it needs
                                            about ``1/rho^2`` iterations
        planted, spread norms  undecided    "snkp" fastest by median, "isnkpvn" within
                                            a factor 1.5; "nkp" separated none
        crowded                undecided    "isnkpvn" and "snkp" within a factor 1.4;
                                            "nkp" separated none
        two rays               undecided    a large normalised margin: all three
                                            separate within milliseconds
        RBF, planted           undecided    "snkp" fastest by median; "nkp" faster on
                                            some instances, far slower on others
        small real problems    any          single instances, each separated by all
                                            three in a fraction of a second
        =====================  ===========  ===========================================

        The default, "snkp", separated every instance of every family, as "isnkpvn" did,
        and was the fastest of the three by median on four of the five. Every algorithm
        stops early, with a certificate that names its reason, on data that no separator
        with a margin above ``tol`` can classify.
    max_iter : int, default=100000
        Cap on the iterations of the algorithm (for "isnkpvn", on its total inner
        iterations). Reaching it without a separator emits a
        :class:`~sklearn.exceptions.ConvergenceWarning`. The default is that of
        :func:`kperc.snkp`: SNKP's bound above stays below it for margins down to about
        ``1e-4`` at ``n = 10^4``. NKP's iterations are cheaper (``O(n)``) but its bound
        is ``1 / rho^2``: with ``algorithm="nkp"`` a larger cap, such as the ``10^6`` of
        :func:`kperc.nkp`, may be needed.
    tol : float or "auto", default="auto"
        Stop with a certificate once a point ``p`` of the simplex with ``||p||_G <=
        tol`` is found (rounding included): it proves that no separator has a normalised
        margin above ``tol``, so the data are not separable with a margin above ``tol``
        (they may be separable with a smaller one). ISNKPVN builds ``p`` by its
        primal-dual iteration; SNKP's ``p`` is its dual iterate and NKP's is ``alpha``
        itself, tested at iterations 8, 16, 32, ... and then every 16 for SNKP, every
        256 for NKP (one product with ``G`` per test). ``"auto"`` follows from the data
        and the budget. With the linear kernel it is ``1e-3`` for "isnkpvn", and for
        "snkp" ``2 sqrt(2 log n) / max_iter`` and for "nkp" ``1 / sqrt(max_iter)``: the
        smallest margins that Theorem 1 and NKP's ``1 / rho^2`` bound guarantee to
        separate within ``max_iter`` iterations, so that data these algorithms are sure
        to separate never stop early, and data they could not be sure to separate within
        ``max_iter`` do not use it up. With any other kernel it is the larger of that
        and ``1 / sqrt(n)``, the normalised margin of ``n`` points that the kernel maps
        to orthonormal features: a kernel that tells every point apart from every other
        (such as the RBF kernel with a large ``gamma``) separates any labelling of them
        with that margin, so a smaller margin says no more about the data than
        memorising them. At an iteration ``k`` without a separator, SNKP's dual iterate
        has ``||p||_G <= sqrt(8 log n / (k (k + 1)))`` (the bound behind Theorem 1), so
        a default SNKP fit ends, with a separator or a certificate, within about ``2
        sqrt(2 n log n)`` iterations (see Notes).
    halt : bool, default=True
        Stop at the first separator. With ``halt=False`` SNKP and NKP keep iterating
        to ``max_iter``, improving the margin of the separator (``algorithm="isnkpvn"``
        always stops at its first separator).
    check_input : bool, default=True
        Validate ``X`` and ``y`` (finite values, shapes, two classes) in ``fit`` and
        ``X`` in ``predict`` with :func:`sklearn.utils.validation.validate_data`.
        Setting it to False skips that function's dtype conversion and finiteness
        checks; kperc still refuses complex, object, NaN and inf entries by name, and
        still checks shapes and classes.
    verbose : int, default=0
        With ``verbose=1``, print one line per stage of the fit (kernel, Gram
        matrix, algorithm and its outcome) with the time it took. With ``verbose=2``,
        also print progress lines while the algorithm runs: one at its first iteration
        and then one about every second, with the iteration, the elapsed time and the
        algorithm's progress quantities (``min_Galpha``, ``min_i (G alpha)_i``, which
        turns positive at a separator; ``mu`` for SNKP and ISNKPVN; ``norm_p_G`` for
        ISNKPVN), through the algorithm's ``callback`` (which copies ``alpha`` at every
        iteration: negligible for SNKP and ISNKPVN, whose iterations cost a product with
        ``G``, but about doubling the time of NKP's ``O(n)`` iterations).
    n_components : "auto", int or None, default="auto"
        How the training kernel is represented.

        * ``"auto"``: the linear kernel uses the exact factored operator
          (:func:`kperc.gram_operator`: memory ``O(n d)``, no ``n x n`` matrix) at any
          ``n``; other kernels use the exact dense ``n x n`` matrix up to ``n = 5000``
          points (200 MB), and above that Nystroem features. With the RBF kernel and
          ``algorithm="snkp"`` (``halt=True``) the rank is grown by
          :func:`kperc.snkp_nystroem`: it starts at 64 landmarks and doubles until
          SNKP's separator is certified, in float64, under the exact kernel on every
          training point, or until SNKP's dual iterate is a ``tol``-certificate under
          the exact kernel (up to 20,000 points; the fit then ends with ``outcome_ ==
          "certificate"``) (at most 4096 landmarks and ``max_iter`` iterations in all;
          float32 features; ``verbose`` prints one line per rank tried, instead of
          per-iteration progress). Its answer holds for the exact kernel, so the switch
          is only logged (``verbose``). The rank stops growing early where its
          features are predicted to stay far from the exact kernel (see Notes, *Large
          data sets*). Otherwise (``"poly"``, another algorithm, or
          ``halt=False``) ``500`` Nystroem features are used, as an int would (memory
          ``O(n m)``: 0.4 GB at ``n = 10^5``), and a ``UserWarning`` announces that
          the separator holds for the approximate kernel. A callable kernel always
          uses the exact dense matrix.
        * an int ``m``: train and predict with ``m`` Nystroem features (named kernels
          only)
          (:func:`kperc.approx_gram_operator`): memory ``O(n m)`` instead of
          ``O(n^2)``, and the separator is certified for the approximate kernel.
          ``random_state`` seeds the choice of landmarks.
        * ``None``: the exact dense ``n x n`` matrix whatever ``n`` (``8 n^2`` bytes).

        The representation used is recorded in ``gram_form_``.
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem landmarks (used only when Nystroem features are used).
    n_threads : int or None, default=1
        BLAS threads used by ``fit``, ``predict`` and ``decision_function`` (through
        ``threadpoolctl``). One thread is the safe default on a shared machine: each
        iteration is one matrix-vector product, which more threads speed up little when
        the cores are free and slow down many times over when they are busy. None leaves
        the BLAS setting of the process unchanged.
    device : str, torch.device or None, default=None
        Where the fit runs. None: numpy, as described above. A torch device (``"cpu"``,
        ``"cuda"``, ``"cuda:0"``, ... or a :class:`torch.device`; torch is imported only
        then): the exact kernel (``"rbf"`` or ``"linear"``; ``n_components="auto"`` or
        None) is formed on that device from the points rounded to float32, as the dense
        ``G`` of :func:`kperc.gram_matrix` (``n_components=None``; ``"auto"`` where it
        takes at most half the device's free memory, on the CPU up to 5000 points) or
        the on-the-fly operator of :func:`kperc.kernel_gram_operator` (``gram_form_ ==
        "on-the-fly"``; the linear kernel's factor, ``"factored"``), and the algorithm
        iterates there. Every separator and certificate is checked with float64
        products of the float64 points on the device, for the exact kernel matrix of
        the data; an exit that float32 found but float64 cannot confirm ends
        ``outcome_ == "undecided"``, with one
        :class:`~sklearn.exceptions.ConvergenceWarning`, never a claimed separator.
        More than two classes are fitted class by class on the device (one-vs-rest
        without the shared kernel of the numpy path). The fitted attributes are numpy
        arrays, so :meth:`predict` and :meth:`decision_function` take numpy input and
        run on the host, as after a numpy fit. ``n_threads`` also limits torch's CPU
        threads during the fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; with two, ``classes_[1]`` is the positive class.
    estimators_ : list of SNKPClassifier or None
        With more than two classes: the binary model of each class against the rest
        (labels 1 and 0), fitted on the same validated data; each holds the binary
        attributes below. None with two classes. With more than two classes the
        estimator itself holds only ``classes_``, ``estimators_``, ``converged_`` (all
        binary models converged), ``outcome_`` and ``tol_`` (one entry per class),
        ``n_iter_`` (the largest), ``gram_form_``, ``intercept_feature_``, ``coef_``
        and ``intercept_`` (one row per class) and ``n_features_in_``.
    support_ : ndarray of int
        Indices of training points with nonzero weight ``alpha_i``. SNKP's entropy
        prox-map gives every point a positive weight, so for "snkp" this is usually
        every training point; NKP's iterates are sparse.
    support_vectors_ : ndarray of shape (n_support, n_columns)
        Those training points, with the intercept feature appended when it is used
        (``fit_intercept`` and a kernel other than "rbf": ``n_columns =
        n_features + 1``, else ``n_features``).
    dual_coef_ : ndarray of shape (n_support,)
        ``alpha_i y_i / sqrt(K(x_i, x_i))`` for the support points.
    coef_ : ndarray of shape (1, n_features)
        Weight vector in input space; only for ``kernel="linear"``.
    intercept_ : ndarray of shape (1,)
        Offset; only for ``kernel="linear"`` (zero when ``fit_intercept`` is False).
        The sign of ``X @ coef_.T + intercept_`` is that of :meth:`decision_function`.
    intercept_feature_ : float or None
        The value of the appended constant feature (see ``intercept_scaling``); None
        when no feature is appended.
    halting_index_ : int
        The halting index ``K`` of the run: the number of updates made. This is the
        quantity that the paper's iteration bounds count (Theorem 1 for SNKP).
    n_iter_ : int
        Number of iterates examined, ``halting_index_ + 1`` (the exit test runs on
        ``alpha_0, ..., alpha_K``); at least 1, as scikit-learn expects.
    outcome_ : {"separator", "certificate", "conflict", "max_iter", "undecided"}
        How the run ended: a certified separator of the training data; a certificate
        that no separator has a normalised margin above ``tol`` (``tol_`` below), which
        leaves open a separator with a smaller margin (warned by a
        :class:`~kperc.SmallMarginWarning`); a conflict, some training points repeated
        with both labels, which no kernel can separate (found before any iteration; the
        algorithm is then trained on the other points; warned by an
        :class:`~kperc.InseparableDataWarning`); the iteration cap, also reported when
        a grown Nystroem rank stopped without an answer (its cap, or features
        predicted to stay far from the exact kernel; see Notes); or "undecided"
        (``algorithm="isnkpvn"``): a certificate at ``tol`` holds for the kernel matrix
        as rounded, but ``tol`` is below what can be certified for the exact kernel
        matrix of the training data (the rounding of its construction). The last two
        prove nothing about the data: a :class:`~sklearn.exceptions.ConvergenceWarning`
        says so. Separators and certificates hold for the exact kernel matrix of the
        training data, not only for its rounded copy.
    converged_ : bool
        Whether a separator of the training data was found (``outcome_ == "separator"``).
    witnesses_ : ndarray of int or None
        With a certificate: indices of the training points in its support, whose
        feature-space images, with signs ``y_i`` and weights ``p_i``, nearly cancel
        (``||p||_G <= certificate_norm_``). SNKP's ``p`` gives every point a positive
        weight, so its certificate names every training point; ISNKPVN's is sparser.
        With a conflict: the points repeated with both labels (see ``conflicts_``),
        which are the only ones to blame. None otherwise.
    conflicts_ : ndarray of shape (n_conflicts, 2)
        Pairs ``(i, j)`` of training points with identical features and opposite
        labels (empty when there are none).
    certificate_norm_ : float or None
        An upper bound on ``||p||_G`` for the certificate, and so on the normalised
        margin of the training data; 0.0 for a conflict. None otherwise.
    tol_ : float
        The ``tol`` used (the value of ``"auto"``).
    gram_form_ : {"dense", "factored", "nystroem", "on-the-fly"}
        How the training kernel was represented (see ``n_components``): the exact
        dense matrix, the exact factored linear-kernel operator, Nystroem features, or
        (``device`` only) the exact kernel formed by row blocks at each product.
    n_components_ : int or None
        The number of Nystroem features used (with a grown rank, the rank reached);
        None for an exact kernel.
    feature_map_ : sklearn.kernel_approximation.Nystroem or None
        With Nystroem features: the fitted feature map ``z``.
    feature_coef_ : ndarray of shape (n_features_out,) or None
        With Nystroem features: ``Z^T alpha``, so that ``f(x) = z(x) . Z^T alpha``
        (one entry per Nystroem feature: ``n_components_`` of them).
    n_features_in_ : int
        Number of features seen during fit.

    Notes
    -----
    *Data that cannot be separated.* A hard-margin method has no meaningful answer on
    such data. When no separator is found the fit emits one
    :class:`~sklearn.exceptions.ConvergenceWarning` whose class names what was proved:
    :class:`~kperc.InseparableDataWarning` for points repeated with both labels (no
    kernel separates them), :class:`~kperc.SmallMarginWarning` for a certificate (no
    separator with a margin above ``tol``), the base class itself for the iteration
    cap or "undecided". It says why, names the witnesses, suggests rescaling when
    the scale of the features or of the intercept is the likely cause, and keeps the
    last iterate; ``converged_`` is False. Predictions of such a model carry no
    guarantee; they do not warn again. :func:`kperc.is_separable` answers the question
    "are these data separable?" exactly, by linear programming.

    *Data separable only with a tiny margin.* With distinct points the RBF kernel's
    Gram matrix is positive definite, so noisy data with any labels are separable, with
    a tiny margin: a separator then memorises the noise and predicts no better for it,
    and SNKP would need about ``2 sqrt(2 log n) / rho`` iterations to find it. The
    default ``tol`` stops such a fit early: it ends with one
    :class:`~kperc.SmallMarginWarning` whose certificate (``outcome_ ==
    "certificate"``, ``certificate_norm_``) proves that no separator has a margin above
    ``tol_``; the data may still be separable with a smaller margin. That is the
    answer to expect on ordinary noisy data (ISLP's Weekly, for example, with its
    direction of the market). For such data use a soft-margin method, such as
    :class:`sklearn.svm.SVC` or :class:`sklearn.svm.LinearSVC`, which trade training
    errors against the margin. To insist on a tiny-margin separator, pass a
    smaller ``tol`` above the floor that the warning states (the smallest bound that
    can be certified for the exact kernel matrix of the data), with a ``max_iter`` of
    about ``2 sqrt(2 log n) / tol``, or use
    :func:`kperc.is_separable`, which decides separability exactly.

    *Large data sets.* Above 5,000 points (RBF kernel, ``n_components="auto"``) the
    rank of the Nystroem features grows until the separator or the certificate holds
    under the exact kernel (a certificate is checked there up to 20,000 points, each
    check costing the kernel values of one exact ``n x n`` matrix). How far the rank
    must grow depends on how fast the kernel's spectrum decays: in 2 or 3 dimensions a
    few hundred features capture the kernel, in 8 dimensions with a narrow kernel
    thousands still miss a quarter of it. The fit watches the fraction of the kernel
    that the features miss (``1 - ||z(x)||^2``), from the third rank on predicts it at
    the largest rank, 4096, and stops growing early when both exceed 0.1 (the default
    ``max_residual`` of :func:`kperc.snkp_nystroem`): the rank would most likely have
    to grow to its cap, where building the features alone costs ``n 4096^2``
    multiply-adds. On ``planted_rbf`` with ``d = 8``, ``n = 2 10^4`` and ``rho =
    1e-3``, fitted with its own ``gamma = 2``, this refusal comes after the first three
    ranks, instead of a certificate at the cap after minutes; with the wider default
    ``gamma="scale"`` (0.54 there) the features miss 7% at rank 512, where the fit
    ends with a certificate. Such a fit, like one that reaches the rank cap or
    ``max_iter`` first, ends with ``outcome_ == "max_iter"`` and one
    :class:`~sklearn.exceptions.ConvergenceWarning` that says why and names the alternatives:
    the exact kernel (``n_components=None``, or :func:`kperc.gram_matrix` and
    :func:`kperc.snkp`: ``8 n^2`` bytes and ``O(n^2)`` per iteration), a soft-margin
    method such as :class:`sklearn.svm.SVC`, or :func:`kperc.snkp_nystroem` with
    ``max_residual=None`` to grow the rank anyway.

    *More than two classes.* One binary model per class, trained to separate that class
    from all the others (one-vs-rest); :meth:`decision_function` returns one column per
    class and :meth:`predict` the class of the largest score. The classes share the
    normalised kernel matrix ``K~``, formed once with its entry-error bound: class
    ``c`` trains on ``G_c = D_c K~ D_c`` (``D_c = diag(y^c)``, exact signs), and with
    SNKP on the exact dense kernel and at least 2,000 points the classes run together,
    each product with ``K~`` serving all of them (a product streams ``K~`` from
    memory: its cost). Each class is certified against the exact kernel matrix of the
    data, as its binary fit is. The fit warns once, naming the classes that no
    separator of the kind above split from the rest (of the warning class that all of
    them share, else :class:`~sklearn.exceptions.ConvergenceWarning`).

    *Weights.* A hard-margin separator must classify every training point, so there is
    nothing for point or class weights to trade off: ``fit`` refuses
    ``sample_weight`` (and any other fit parameter) with a :class:`TypeError`, and the
    estimator has no ``class_weight``.

    *scikit-learn compatibility.* With its default parameters the estimator passes every
    check of :func:`sklearn.utils.estimator_checks.check_estimator` (scikit-learn 1.9),
    multiclass ones included, so the ``expected_failed_checks`` list is empty. The
    checks that fail for some hard-margin configurations are returned by the method
    ``expected_failed_checks()`` (each is tested to fail still):

    * ``check_classifiers_train`` with ``algorithm="nkp"``: NKP needs about
      ``1/rho^2`` iterations (``2.6e6`` on the check's blobs with the RBF kernel), and
      its last iterate misses the check's accuracy. SNKP and ISNKPVN pass it with every
      kernel.

    * ``check_estimators_dtypes`` with ``kernel="linear"`` (or a homogeneous ``"poly"``,
      ``coef0=0``) and ``fit_intercept=False``: the check's data contain the zero vector,
      where ``K(x, x) = 0`` and the normalised kernel is undefined; fit raises a
      ``ValueError`` that says so.

    * six checks with ``device`` set (``check_fit2d_1sample`` and others): they set
      ``n_components=1`` (Nystroem features, numpy only), which a device fit refuses
      with a ``ValueError`` naming both. Every other check passes.

    Examples
    --------
    >>> from kperc import SNKPClassifier
    >>> from kperc.datasets import circles
    >>> X, y = circles(100, seed=0)
    >>> clf = SNKPClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.converged_, float(clf.score(X, y))
    (True, 1.0)
    >>> clf.gram_form_  # n_components="auto": the exact dense G up to 5000 points
    'dense'
    """

    # one value per class with more than two classes (one-vs-rest)
    outcome_: Any
    tol_: Any
    estimators_: list[SNKPClassifier] | None
    converged_: bool
    n_iter_: int
    gram_form_: str

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"rbf", "linear", "poly"}), callable],
        "gamma": [StrOptions({"scale"}), Interval(Real, 0, _MAX, closed="right")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -_MAX, _MAX, closed="both")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, _MAX, closed="right")],
        "algorithm": [StrOptions(set(_fit.ALGORITHMS))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [StrOptions({"auto"}), Interval(Real, 0, _MAX, closed="right")],
        "halt": ["boolean"],
        "check_input": ["boolean"],
        "verbose": ["verbose"],
        "n_components": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "n_threads": [Interval(Integral, 1, None, closed="left"), None],
        "device": [None, str, _TorchDevice],
    }

    def __init__(
        self,
        kernel: KernelLike = "rbf",
        *,
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        algorithm: str = "snkp",
        max_iter: int = 100_000,
        tol: float | str = "auto",
        halt: bool = True,
        check_input: bool = True,
        verbose: int = 0,
        n_components: int | str | None = "auto",
        random_state: RandomStateLike = None,
        n_threads: int | None = 1,
        device: Any = None,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.algorithm = algorithm
        self.max_iter = max_iter
        self.tol = tol
        self.halt = halt
        self.check_input = check_input
        self.verbose = verbose
        self.n_components = n_components
        self.random_state = random_state
        self.n_threads = n_threads
        self.device = device

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True  # one-vs-rest
        # scipy.sparse X: the linear kernel trains on a sparse factored operator
        tags.input_tags.sparse = self._linear()
        return tags

    def expected_failed_checks(self) -> dict[str, str]:
        """Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that fail for
        this configuration, with the reason (empty for the defaults).

        Pass the result as ``expected_failed_checks`` to ``check_estimator`` or
        ``parametrize_with_checks``.

        Returns
        -------
        dict of str to str
        """
        return expected_failed_checks(self)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike, **fit_params: Any) -> SNKPClassifier:
        """Train on ``X`` with labels ``y`` (two classes, or one-vs-rest for more).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Training points. A sparse ``X`` (CSR or CSC; other formats are converted) is
            accepted with ``kernel="linear"`` only, and never densified: the model trains
            on the sparse factored operator (see :class:`kperc.GramOperator`); other
            kernels refuse it with a :class:`TypeError`.
        y : array-like of shape (n_samples,)
            Labels; at least two distinct values (any type scikit-learn accepts). With
            more than two, one binary model per class separates it from the others
            (one-vs-rest, as :class:`sklearn.linear_model.Perceptron` does).
        **fit_params
            Refused: a hard-margin classifier takes no ``sample_weight`` (see Notes of
            the class).

        Returns
        -------
        self : SNKPClassifier
            The fitted estimator.

        Raises
        ------
        TypeError
            When a fit parameter such as ``sample_weight`` is passed.

        Warns
        -----
        InseparableDataWarning
            Once, when points repeated with both labels prove the training data
            inseparable (for more than two classes: some class from the others).
        SmallMarginWarning
            Once, when a certificate proves that no separator has a normalised margin
            above ``tol`` (the data may be separable with a smaller one).
        sklearn.exceptions.ConvergenceWarning
            Once, when the fit ended with neither (``max_iter``, or "undecided"), or
            when the classes of one-vs-rest ended in different ways.
        UserWarning
            When ``n_components="auto"`` switches to Nystroem features of a fixed rank
            (see ``n_components``).
        """
        if fit_params:
            raise TypeError(
                f"SNKPClassifier.fit does not accept {', '.join(sorted(fit_params))}: a "
                "hard-margin classifier separates every training point, so there is "
                "nothing for sample or class weights to trade off. Resample the data "
                "instead, or use a soft-margin method such as sklearn.svm.SVC."
            )
        _fit.check_combinations(self)
        X, y = self._validate(X, y, fitting=True)
        check_classification_targets(y)  # scikit-learn's error for a regression target
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(
                f"SNKPClassifier needs at least 2 classes to separate; got "
                f"{self.classes_.size} class in y."
            )
        self._x_exponent = _fit.data_exponent(self, X)  # 0 unless X's scale is extreme
        X = np.ldexp(X, -self._x_exponent) if self._x_exponent else X
        self._gamma = _fit.gamma_of(self, X)
        self.intercept_feature_ = _fit.intercept_feature(self, X)
        two = self.classes_.size == 2
        models = [self] if two else [clone(self) for _ in self.classes_]
        for m in models:
            m.n_features_in_, m._gamma = self.n_features_in_, self._gamma
            m._x_exponent = self._x_exponent
            m.intercept_feature_, m.estimators_ = self.intercept_feature_, None
            m.classes_ = self.classes_ if two else np.array([0, 1])  # 1: the class
        labels = [y == c for c in (self.classes_[1:] if two else self.classes_)]
        with self._threads():
            _fit.fit_problems(models, X, [np.where(lab, 1.0, -1.0) for lab in labels])
        self.estimators_ = None if two else models
        if not two:
            self.converged_ = all(m.converged_ for m in models)
            self.outcome_ = np.array([m.outcome_ for m in models], dtype=object)
            self.n_iter_ = max(m.n_iter_ for m in models)
            self.tol_ = np.array([m.tol_ for m in models])
            self.gram_form_ = models[0].gram_form_
        said = [
            (c, _fit.fit_warning(m, X))
            for c, m in zip(self.classes_[-len(models) :], models, strict=True)
            if not m.converged_
        ]
        if said:  # one warning, of the class that names what was proved
            kinds = {kind for _, (kind, _) in said}
            kind = kinds.pop() if len(kinds) == 1 else ConvergenceWarning
            text = (msg if two else f"class {c} against the rest: {msg}" for c, (_, msg) in said)
            warnings.warn(" | ".join(text), kind, stacklevel=3)
        return self

    def _linear(self):
        return not callable(self.kernel) and self.kernel == "linear"

    def _validate(self, X, y=None, *, fitting):
        """The one validation of ``X`` (and ``y``): everything after it trusts them."""
        kw: dict[str, Any] = {"dtype": np.float64, "accept_sparse": ("csr", "csc")}
        if not self.check_input:  # complex, object, NaN and inf are still refused
            kw = {"dtype": None, "ensure_all_finite": False, "accept_sparse": ("csr", "csc")}
        if not fitting:
            X = _fit.trusted_X(self, validate_data(self, X, reset=False, **kw))
            return np.ldexp(X, -self._x_exponent) if self._x_exponent else X
        X, y = validate_data(self, X, y, **kw)  # y=None gets scikit-learn's message
        return _fit.trusted_X(self, X), y

    def _kernel_params(self):
        """The kernel's parameters (checked by ``_parameter_constraints``)."""
        if callable(self.kernel) or self.kernel == "linear":
            return {}
        params = {"gamma": self._gamma}
        if self.kernel == "poly":
            params.update(degree=self.degree, coef0=self.coef0)
        return _check_kernel_args(self.kernel, params)

    def _threads(self):
        """A context that limits BLAS to ``n_threads`` (a no-op for None)."""
        if self.n_threads is None:
            return contextlib.nullcontext()
        limit = _threadpool_controller().limit(limits=int(self.n_threads), user_api="blas")
        torch = sys.modules.get("torch")  # a device fit: torch's own threads too
        if self.device is None or torch is None:
            return limit
        return _torch_threads(limit, torch, int(self.n_threads))

    def _log(self, msg, t0=None):
        if self.verbose:
            tail = "" if t0 is None else f" ({time.perf_counter() - t0:.2f} s)"
            print(f"[SNKPClassifier] {msg}{tail}", flush=True)

    # -- prediction --------------------------------------------------------------------

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Normalised score ``f(x) / sqrt(K(x, x))``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Points to score. A sparse ``X`` (CSR or CSC; other formats are converted) is
            accepted with ``kernel="linear"`` only, and never densified: the model trains
            on the sparse factored operator (see :class:`kperc.GramOperator`); other
            kernels refuse it with a :class:`TypeError`.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: positive values predict ``classes_[1]``, negative ones
            ``classes_[0]``; on the training data of a converged model every
            ``y_i * score_i > 0``. More classes: column ``k`` is the score of class
            ``classes_[k]`` against the rest. A model that did not converge
            (``converged_`` False, warned at fit) scores with its last iterate, which
            carries no guarantee.
        """
        check_is_fitted(self)
        X = self._validate(X, fitting=False)
        with self._threads():
            if self.estimators_ is not None:
                return np.column_stack([est._decision(X) for est in self.estimators_])
            return self._decision(X)

    def _decision(self, X):
        Xa = _fit.augment(self, X)
        if self.feature_map_ is not None:
            F = self.feature_map_.transform(Xa)
            norms = np.sqrt(np.einsum("ij,ij->i", F, F))
            return (F @ self.feature_coef_) / np.where(norms > 0, norms, 1.0)
        params = self._kernel_params()
        if self._linear():
            # f(x) = x . w with w = sum_i dual_coef_i x_i: O(d) per point, whatever the
            # number of support vectors (SNKP gives weight to every training point)
            f = np.asarray(Xa @ self._weights()).reshape(-1)
        elif self.support_.size == 0:
            f = np.zeros(Xa.shape[0])
        else:
            f = _kernel_values(Xa, self.support_vectors_, self.kernel, params) @ self.dual_coef_
        root = sqrt_diagonal(Xa, self.kernel, params)
        return f / np.where(root > 0, root, 1.0)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Points to classify (sparse with ``kernel="linear"`` only, as in :meth:`fit`).

        Returns
        -------
        ndarray of shape (n_samples,)
            Two classes: ``classes_[1]`` where :meth:`decision_function` is positive,
            else ``classes_[0]``. More classes: the class of the largest score.
        """
        scores = self.decision_function(X)  # checks that the model is fitted first
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[(scores > 0).astype(int)]

    def _linear_weights(self, name):
        check_is_fitted(self)
        if not self._linear():
            raise AttributeError(f"{name} is only available when kernel='linear'.")
        models = self.estimators_ if self.estimators_ is not None else [self]
        if any(m.feature_map_ is not None for m in models):
            raise AttributeError(f"{name} is not available with n_components (Nystroem).")
        return np.vstack([m._weights() for m in models])

    def _weights(self):
        """``w = sum_i dual_coef_i x_i`` over the (augmented) support vectors."""
        if self.support_.size == 0:
            return np.zeros(self.n_features_in_ + (self.intercept_feature_ is not None))
        if scipy.sparse.issparse(self.support_vectors_):
            return np.asarray(self.support_vectors_.T @ self.dual_coef_).reshape(-1)
        return self.dual_coef_ @ self.support_vectors_

    @property
    def coef_(self):
        """Weight vectors in input space, shape (1, n_features) for two classes, else
        (n_classes, n_features); ``kernel="linear"`` only."""
        return self._linear_weights("coef_")[:, : self.n_features_in_]

    @property
    def intercept_(self):
        """Offsets, shape (1,) or (n_classes,); ``kernel="linear"`` only (zero without
        ``fit_intercept``)."""
        w = self._linear_weights("intercept_")
        if self.intercept_feature_ is None:
            return np.zeros(w.shape[0])
        return w[:, -1] * self.intercept_feature_


@contextlib.contextmanager
def _torch_threads(limit, torch, n: int):
    """``limit`` (BLAS), and torch's CPU threads limited to ``n`` (restored after)."""
    with limit:
        old = torch.get_num_threads()
        torch.set_num_threads(n)
        try:
            yield
        finally:
            torch.set_num_threads(old)


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    """One controller for the process: building it inspects the loaded libraries
    (milliseconds), limiting threads with it afterwards takes microseconds."""
    return ThreadpoolController()
