"""A private logistic regression of the package's own: objective perturbation, float-safe."""

from __future__ import annotations

import math
import numbers
from functools import partial

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._data.rows import (
    block_partials,
    is_dask_collection,
    labelled_rows,
    numpy_rows,
    read_labels,
    read_rows,
)
from ..exceptions import naming
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..privacy._docstrings import fill_doc
from ..privacy._exact import check_rate
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ..privacy._rng import check_random_state
from ..privacy._validation import check_numeric, warn_privacy_leak
from ._objective import augmented_norm, design_rows, fit_objective_perturbation, plan_fit

#: ``C="auto"`` in the proof's units: ``c = 1/(nΛ) = C_SCALE · ε² · √(10 / D)``, clipped
C_SCALE = 0.1
C_MIN, C_MAX = 1e-6, 100.0
#: ``clip_norm="auto"``: rows are projected to this fraction of ``data_norm``
AUTO_CLIP_FRACTION = 0.5


def default_C(
    epsilon: float,
    n_features: int,
    n_classes: int = 2,
    *,
    row_bound: float = 1.0,
    fit_intercept: bool = True,
) -> float:
    """The regularisation ``C="auto"`` uses, in scikit-learn's units.

    In the proof's units (rows divided by their bound ``R`` so that
    ``‖z‖ ≤ 1``) the rule is ``c = 1/(nΛ) = 0.1 ε² √(10/p)`` for two classes
    (``p = d + 1`` coefficients with an intercept, ``d`` without) and
    ``0.1 ε² √(10/(K p)) / K`` for K ≥ 3, clipped to ``[1e-6, 100]``;
    scikit-learn's ``C`` is ``c / R²``. It reads only public quantities.

    Parameters
    ----------
    epsilon : float
        The classifier's ε.
    n_features : int
        d, the number of features.
    n_classes : int, default=2
        K, the number of classes.
    row_bound : float, default=1.0
        R, the bound on a training row's L2 norm after projection, the constant column included:
        ``clip_norm · √(1 + intercept_scaling²)`` with an intercept.
    fit_intercept : bool, default=True
        Whether the model has an intercept (one more coefficient per class).

    Returns
    -------
    float
        ``C``.

    Notes
    -----
    The noise moves the normalised coefficients by about ``c·‖b‖`` with ``‖b‖`` of order ``p/ε``,
    and the Jacobian costs at most ``log(1 + c/4)``; ``n`` cancels from this balance, so ``c`` does
    not depend on it. The constants were chosen on public data sets (the user guide, "Private
    logistic regression").

    Examples
    --------
    >>> from skdp_anomaly.linear_model import default_C
    >>> default_C(1.0, 9), default_C(2.0, 9, row_bound=2.0)
    (0.1, 0.1)
    >>> round(default_C(1.0, 30, 3), 4)
    0.0109
    """
    per_class = n_features + bool(fit_intercept)
    if n_classes <= 2:
        c = C_SCALE * epsilon**2 * math.sqrt(10.0 / per_class)
    else:  # each class' block gets about 1/K of a binary model's signal, all of its noise
        c = C_SCALE * epsilon**2 * math.sqrt(10.0 / (n_classes * per_class)) / n_classes
    c = min(C_MAX, max(C_MIN, c))
    return float(c / row_bound**2)


@fill_doc
class PrivateLogisticRegression(PrivacyCostMixin, ClassifierMixin, BaseEstimator):
    """Logistic regression with ε-differential privacy, by objective perturbation.

    The model minimises ``C · Σ log-loss + ½‖(coef, intercept / (κ·clip_norm))‖²
    + (random linear term)`` over rows projected into the L2 ball of radius
    ``clip_norm``; the random term (Chaudhuri, Monteleoni and Sarwate 2011,
    Algorithm 2) makes the minimiser ε-DP. K ≥ 3 classes: one softmax model
    at the whole ε. It takes diffprivlib's ``LogisticRegression`` parameters
    (``epsilon``, ``data_norm``, ``C``, ``accountant``) without diffprivlib.

    Parameters
    ----------
    epsilon : float, default=1.0
        Pure ε-DP under replace-one-record neighbours, in ``[1e-6, 30]``; an ε
        whose float-safety noise (``ε/200`` per coefficient) falls below the
        samplers' smallest rate is refused before any charge.
    data_norm : float or None, default=None
        Public bound on a row's L2 norm (``√d`` for rows in ``[-1, 1]^d``). ``None`` reads it from
        the data: a ``PrivacyLeakWarning``, and the ε does not hold for the records that set it.
    clip_norm : float or "auto", default="auto"
        Radius of the L2 ball training rows are projected into (not at prediction); the noise scales
        with it. ``"auto"`` is ``data_norm / 2``; a float above ``data_norm`` is lowered to it.
    C : float or "auto", default="auto"
        Inverse regularisation strength, as in scikit-learn. ``"auto"`` is
        :func:`~skdp_anomaly.linear_model.default_C`. The effective ``C_`` is
        smaller when needed so that at least half of ε pays the noise.
    fit_intercept : bool, default=True
        Fit an intercept, as the (regularised) coefficient of a constant
        column ``intercept_scaling · clip_norm``.
    intercept_scaling : float, default=0.25
        κ, the constant column relative to ``clip_norm``: small κ regularises
        the intercept more, large κ adds noise (rows bound ``clip_norm·√(1+κ²)``).
    max_iter : int, default=1000
        Iterations of the L-BFGS-B solver before the Newton polish.
    classes : array-like of shape (n_classes,) or None, default=None
        The public label set (at least two labels) holding every label of ``y``; the model's shape
        does not depend on which labels occur. ``None`` reads it from ``y`` and treats it as public.
    {random_state}
    {accountant}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels: ``classes`` sorted, or those of ``y`` (public).
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The released coefficients.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The released intercepts (zeros when ``fit_intercept=False``).
    C_ : float
        The effective ``C`` (public): the parameter or ``default_C``, made
        smaller when the budget needed a stronger regulariser.
    data_norm_ : float
        The row-norm bound used.
    clip_norm_ : float
        The radius the training rows were projected to.
    privacy_spent_ : PrivacyCost
        ``epsilon`` under replace-one neighbours.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    skdp_anomaly.DPImbalancedClassifier : Uses this classifier by default.
    skdp_anomaly.PrivateGridSearchCV : Chooses ``C`` privately.

    Notes
    -----
    Pure ε-DP under replace-one-record neighbours, with n public (the relation of diffprivlib's
    models): n enters the regulariser and the release grid, so there is no add/remove claim. The
    label set is public. The privacy loss is bounded jointly in the gradient and Jacobian terms
    (:func:`~skdp_anomaly.linear_model.logistic_privacy_loss`). The solver certifies the exact
    minimiser within ``g/2`` of its result (``g`` a public power of two), rounds to multiples of
    ``g`` and adds discrete Laplace noise worth 1 % of ε, so the floats reveal nothing beyond the DP
    output; if it cannot (probability below ``2^-200``, or a condition number beyond ~10^15) the fit
    raises and releases nothing. Proof: :ref:`proofs-logistic-regression` on :doc:`/proofs`.

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially
       private empirical risk minimization. JMLR 12, 2011, Algorithm 2
       (objective perturbation) and its privacy theorem.
    .. [2] I. Mironov. On significance of the least significant bits for
       differential privacy. CCS 2012.
    .. [3] T. Ogita, S. M. Rump, S. Oishi. Accurate sum and dot product.
       SIAM J. Sci. Comput. 26(6), 2005 (Dot2).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import MinMaxScaler
    >>> from skdp_anomaly import PrivateLogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> # each feature onto [-1, 1] (public ranges in practice): rows of norm ≤ √d
    >>> X = MinMaxScaler(feature_range=(-1, 1)).fit_transform(X)
    >>> clf = PrivateLogisticRegression(epsilon=5.0, data_norm=30 ** 0.5,
    ...                                 random_state=0).fit(X, y)
    >>> clf.privacy_spent_.epsilon, round(clf.C_, 3), round(clf.clip_norm_, 3)
    (5.0, 0.178, 2.739)
    >>> bool(clf.score(X, y) > 0.85)
    True
    """

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        # above 30 the float-safety noise (1 % of ε over the coefficients) risks vanishing
        "epsilon": epsilon_constraint(30),
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "clip_norm": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "C": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "classes": ["array-like", None],
    }
    _data_derived_params = {"data_norm": "stored in `data_norm_`"}

    def __init__(
        self,
        *,
        epsilon=1.0,
        data_norm=None,
        clip_norm="auto",
        C="auto",
        fit_intercept=True,
        intercept_scaling=0.25,
        max_iter=1000,
        classes=None,
        random_state=None,
        accountant=None,
    ):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.clip_norm = clip_norm
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _more_validate_params(self) -> None:
        self._public_classes()

    def _public_classes(self):
        """The public label set (sorted), or None; checked from the parameter alone."""
        if self.classes is None:
            return None
        classes = np.asarray(self.classes)
        if classes.ndim != 1 or np.unique(classes).size != classes.size or classes.size < 2:
            raise naming(
                ValueError,
                "`The 'classes' parameter of PrivateLogisticRegression` must be a 1-D "
                f"array-like of at least 2 distinct class labels; got {self.classes!r}.",
            )
        return np.unique(classes)

    def _privacy_cost(self) -> PrivacyCost:
        return PrivacyCost.pure(
            float(self.epsilon),
            "PrivateLogisticRegression: objective perturbation "
            "(Chaudhuri et al. 2011), float-safe release",
            neighbours="replace",
        )

    def privacy_assumptions(self) -> tuple:
        """Return what the guarantee takes as public: the label set, when read from ``y``.

        Returns
        -------
        tuple of str
            One sentence with ``classes=None``, else empty.
        """
        if self.classes is not None:
            return ()
        return (
            "PrivateLogisticRegression: the set of class labels is read from y and "
            "treated as public",
        )

    # ---------------------------------------------------------------- fit
    def _private_fit(self, X, y):
        """Fit the model on ``(X, y)``, spending ``epsilon``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or dask array or DataFrame
            Training rows (numeric, finite). Dask rows stay where they are;
            the release equals that of the same rows in memory, bit for bit.
        y : array-like, dask array or dask Series of shape (n_samples,)
            Class labels, at least two classes.

        Returns
        -------
        self : PrivateLogisticRegression
            The fitted estimator.
        """
        rows, y, values = self._training_rows(X, y)
        check_classification_targets(values)  # the type of target is that of the label set
        classes = self._label_set(values, y.dtype)
        n, d = rows.n_samples, rows.n_features
        data_norm = self._data_norm_of(rows)
        auto_clip = AUTO_CLIP_FRACTION * data_norm
        clip_norm = auto_clip if self.clip_norm == "auto" else min(float(self.clip_norm), data_norm)
        kappa, fit_intercept = float(self.intercept_scaling), self.fit_intercept
        r_aug = augmented_norm(clip_norm, fit_intercept, kappa)
        design = partial(design_rows, data_norm=clip_norm, fit_intercept=fit_intercept, kappa=kappa)
        labels = partial(_class_index, classes=classes)
        data = labelled_rows(rows, y, design, labels, persist=True)
        plan = self._plan(n, d, classes.size, r_aug)
        rng = check_random_state(self.random_state)
        self._charge(self._privacy_cost())
        U = fit_objective_perturbation(data, plan, self.max_iter, rng)
        self.classes_ = classes
        self.coef_ = U[:, :d] / r_aug
        self.intercept_ = (
            U[:, d] * (kappa * clip_norm / r_aug) if fit_intercept else np.zeros(U.shape[0])
        )
        self.C_ = 1.0 / (plan.lam * n) / r_aug / r_aug
        self.data_norm_ = data_norm
        self.clip_norm_ = clip_norm
        return self

    def _training_rows(self, X, y):
        """``(rows, labels, distinct label values)``, validated before any charge."""
        if is_dask_collection(X):
            rows = read_rows(X, self, reset=True)
            y, values, _ = read_labels(y, rows.n_samples, self)
            return rows, y, values
        check_numeric(X, type(self).__name__, ensure_2d=True)  # sklearn's errors quote X
        X, y = validate_data(self, X, y, reset=True, dtype=np.float64)
        check_classification_targets(y)
        return numpy_rows(X), y, np.unique(y)

    def _label_set(self, values, dtype):
        """The public label set, or the labels of ``y`` (their distinct ``values``)."""
        public = self._public_classes()
        if public is None:
            if values.size < 2:
                raise naming(
                    ValueError,
                    "PrivateLogisticRegression needs samples of at least 2 classes in the data, "
                    "but the data contains only 1 class (pass the public label set as "
                    "`'classes'` when a class may be absent).",
                )
            return values
        kind = np.dtype(dtype).kind
        if kind != public.dtype.kind and not (kind in "iuf" and public.dtype.kind in "iuf"):
            raise naming(
                ValueError,
                "y and `the 'classes' parameter of PrivateLogisticRegression` hold labels of "
                "different types.",
            )
        unknown = ~np.isin(values, public)
        if unknown.any():
            # no count of them: an error message is not a private release
            raise naming(
                ValueError,
                "y holds labels that are not in `the 'classes' parameter of "
                "PrivateLogisticRegression` (the public label set).",
            )
        return public

    def _plan(self, n, d, n_classes, r_aug):
        """The fit's public plan, or a ValueError naming the parameters it overflows with."""
        n_coef, epsilon = d + bool(self.fit_intercept), float(self.epsilon)
        with np.errstate(over="ignore", under="ignore"):
            try:
                if self.C == "auto":  # the rule is in the proof's units: R does not enter
                    c = default_C(epsilon, d, n_classes, fit_intercept=self.fit_intercept)
                    lam = 1.0 / (c * n)
                else:
                    lam = 1.0 / (float(self.C) * n * r_aug**2)
                plan = plan_fit(epsilon, n, n_coef, n_classes, lam)
            except (OverflowError, ZeroDivisionError):
                plan = None
        if plan is not None:  # the float-safety noise's rate, refused before the charge
            subject = "`The 'epsilon' parameter of PrivateLogisticRegression`"
            rate = plan.eps_smooth / (2.0 * plan.dim)
            check_rate(rate, f"{subject} ({self.epsilon!r}) over {plan.dim} coefficients")
        if plan is None or not all(
            math.isfinite(v) and v > 0 for v in (plan.lam, plan.eps_noise, plan.grid, plan.target)
        ):
            raise naming(
                ValueError,
                "The `'epsilon'`, `'C'`, `'data_norm'`, `'clip_norm'` and `'intercept_scaling'` "
                "parameters give a problem beyond double precision (the regulariser 1 / (C · n · "
                "clip_norm² · (1 + intercept_scaling²)) or the noise scale overflows); got "
                f"`epsilon={self.epsilon!r}`, `C={self.C!r}`, `data_norm={self.data_norm!r}`, "
                f"`clip_norm={self.clip_norm!r}`, `intercept_scaling={self.intercept_scaling!r}`.",
            )
        return plan

    def _data_norm_of(self, rows) -> float:
        if self.data_norm is not None:
            return float(self.data_norm)
        warn_privacy_leak(
            "`data_norm` has not been specified and is computed from the data. This leaks "
            "privacy: the ε does not hold for the records that set it. Specify `data_norm` from "
            "domain knowledge to remove this warning."
        )
        largest = float(block_partials(labelled_rows(rows, None), _largest_norm, size=1).max())
        return largest if largest > 0 and math.isfinite(largest) else 1.0

    # ----------------------------------------------------------- predict
    def decision_function(self, X):
        """Return the linear scores: shape (n,) for two classes, (n, n_classes) otherwise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or dask collection
            Rows to score (not projected). A dask collection is scored lazily.

        Returns
        -------
        ndarray or dask array
            The scores.
        """
        check_is_fitted(self)
        if is_dask_collection(X):
            rows = read_rows(X, self, reset=False)
            K = self.coef_.shape[0]
            layout = {"drop_axis": 1} if K == 1 else {"chunks": (rows.data.chunks[0], (K,))}
            model = (self.coef_, self.intercept_)
            return rows.data.map_blocks(_linear_scores, *model, dtype=np.float64, **layout)
        check_numeric(X, type(self).__name__, ensure_2d=True)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return _linear_scores(X, self.coef_, self.intercept_)

    def predict_proba(self, X):
        """Return the class probabilities (logistic, or softmax for K ≥ 3).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score (a dask collection gives a lazy dask array).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
        scores = self.decision_function(X)
        if is_dask_collection(scores):
            layout = {"new_axis": 1} if scores.ndim == 1 else {}
            chunks = (scores.chunks[0], (self.classes_.size,))
            return scores.map_blocks(_probabilities, dtype=np.float64, chunks=chunks, **layout)
        return _probabilities(scores)

    def predict_log_proba(self, X):
        """Return the log of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score (a dask collection gives a lazy dask array).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probabilities in the order of ``classes_``.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Return the class of largest score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify (a dask collection gives a lazy dask array).

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        scores = self.decision_function(X)
        if is_dask_collection(scores):
            layout = {} if scores.ndim == 1 else {"drop_axis": 1}
            return scores.map_blocks(_labels, self.classes_, dtype=self.classes_.dtype, **layout)
        return _labels(scores, self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _class_index(labels, classes):
    """Each label's index in the sorted label set."""
    return np.searchsorted(classes, labels)


def _largest_norm(block, labels):
    return np.linalg.norm(block, axis=1).max(initial=0.0)


def _linear_scores(X, coef, intercept):
    scores = X @ coef.T + intercept
    return scores.ravel() if scores.shape[1] == 1 else scores


def _probabilities(scores):
    if scores.ndim == 1:
        positive = expit(scores)
        return np.column_stack([1.0 - positive, positive])
    return softmax(scores, axis=1)


def _labels(scores, classes):
    index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
    return classes[index]
