"""One private classifier for imbalanced classes: public scaling, then a strategy from ε, d, n."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from imblearn.pipeline import Pipeline
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._data.rows import Rows, labelled_rows, read_labels, read_rows
from .._data._dask import is_dask_collection
from .._data.blocks import column_extremes, map_row_blocks
from ..exceptions import naming
from ..linear_model import PrivateLogisticRegression
from ..over_sampling import DPSMOTE
from ..preprocessing import BoundsScaler
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..privacy._rng import check_random_state
from ..privacy._diffprivlib import UNREGULARISED_INTERCEPT, diffprivlib_logistic_settings
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ..privacy._validation import check_numeric
from ._strategy import PIPELINE_SPLIT, PRIOR_SHARE, resolve_imbalanced_strategy
from ._predicted_prior import PredictedPriorThresholdClassifier
from ._threshold import in_label_set, public_label_set

#: The largest total ε: the parts' shares stay within every built-in part's range.
MAX_EPSILON = 30.0

#: The box BoundsScaler maps every feature onto: what the private steps are told.
_BOX = (-1.0, 1.0)


@fill_doc
class DPImbalancedClassifier(PrivacyCostMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A private classifier for imbalanced classes, from raw features to predictions.

    Features are mapped from public ``bounds`` onto ``[-1, 1]``
    (:class:`~skdp_anomaly.BoundsScaler`, no privacy cost), then, spending
    exactly ``epsilon`` under replace-one neighbours:

    * ``"threshold"``: the classifier at ``0.85 · epsilon``, cut at the DP
      mean of its predicted probabilities, released at ``0.15 · epsilon``
      (:class:`~skdp_anomaly.imbalanced.PredictedPriorThresholdClassifier`);
    * ``"oversample"``: :class:`~skdp_anomaly.DPSMOTE` at ``0.25 · epsilon``
      (add/remove, so ``0.5 · epsilon`` under replace-one), then the
      classifier at ``0.5 · epsilon``.

    ``strategy="auto"`` picks one at ``fit`` from public ε, d and n
    (:func:`~skdp_anomaly.imbalanced.resolve_imbalanced_strategy`).

    Parameters
    ----------
    classifier : classifier with ``epsilon`` and ``predict_proba``, default=None
        ``None``: :class:`~skdp_anomaly.PrivateLogisticRegression`. Cloned at
        ``fit`` with its share of ``epsilon``; ``data_norm`` or ``bounds``
        left at None are set to the box ``[-1, 1]^d``, and ``random_state``
        and ``accountant`` are replaced; set others via ``classifier__<name>``.
        diffprivlib's ``LogisticRegression``
        needs ``fit_intercept=False``; at ``C = 1`` its ``C`` and ``epsilon``
        follow ``dead_zone_free_C``.
    epsilon : float, default=1.0
        The total budget, pure ε-DP under replace-one neighbours, in
        ``[1e-6, 30]``.
    bounds : (lower, upper) or None, default=None
        Public bounds of the features, scalars or per feature; values outside
        are clipped. ``None`` reads the data's range: not private
        (:class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`).
    strategy : {"auto", "threshold", "oversample"}, default="auto"
        ``"auto"``: :func:`~skdp_anomaly.imbalanced.resolve_imbalanced_strategy`
        at ``fit``; another value forces that strategy.
    classes : array-like or None, default=None
        The public label set (at least 2 labels), ``classes_`` whatever ``y``
        holds. ``None`` reads it from ``y`` and treats it as public
        (:meth:`privacy_assumptions`).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the private steps; ``None`` (OS entropy) for deployment.
    {accountant}
        It is charged the whole cost, once, before the first release.

    Attributes
    ----------
    strategy_ : str
        The strategy used: ``"threshold"`` or ``"oversample"``.
    model_ : imblearn.pipeline.Pipeline
        The fitted model: ``"scaler"``, then ``"dpsmote"`` and ``"classifier"``
        (``"oversample"``) or a thresholded ``"classifier"`` (``"threshold"``).
    bounds_ : tuple of ndarray of shape (n_features,)
        The bounds the features were scaled from, one value per feature.
    classes_ : ndarray
        The class labels (sorted): ``classes`` when given, else those of ``y``.
    privacy_spent_ : PrivacyCost
        What the fit spent: ``epsilon`` under replace-one neighbours.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of a DataFrame passed to ``fit``.

    See Also
    --------
    skdp_anomaly.imbalanced.resolve_imbalanced_strategy : the rule of ``strategy="auto"``.
    skdp_anomaly.imbalanced.PredictedPriorThresholdClassifier : the threshold on its own.
    BoundsScaler : the scaling step on its own.

    Notes
    -----
    **Privacy.** Pure ε-DP under replace-one neighbours (n public; the
    relation of diffprivlib's models). The scaler is 0-DP; the
    mean-prediction release is replace-one; DPSMOTE's add/remove ε counts
    twice (group privacy). Sequential composition: ``0.85 ε + 0.15 ε = ε``
    ("threshold"), ``2 · 0.25 ε + 0.5 ε = ε`` ("oversample"). The rule of
    ``"auto"`` reads ε, d and n only, so the choice is public. The label
    set is ``classes``, or read from ``y`` (:meth:`privacy_assumptions`).
    Dask input is read where it lives and predictions are lazy. Proofs and
    choices: :ref:`proofs-imbalanced-classifier` on :doc:`/proofs`.

    References
    ----------
    .. [1] Y. Lut. Privacy-Aware Data Analysis: Recent Developments for
       Statistics and Machine Learning. PhD thesis, Columbia University,
       2022, chapter 3 (DP-SMOTE).
    .. [2] C. Elkan. The foundations of cost-sensitive learning. IJCAI 2001,
       Theorem 1 (re-weighting by class priors moves the decision threshold).
    .. [3] M. Saerens, P. Latinne and C. Decaestecker. Adjusting the outputs
       of a classifier to new a priori probabilities: a simple procedure.
       Neural Computation 14(1), 2002 (the prior a classifier's outputs imply).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly import DPImbalancedClassifier, check_privacy_budget
    >>> X, y = make_classification(3000, n_features=8, weights=[0.9], random_state=0)
    >>> X = 10 * X + 50                          # raw features, in [0, 100] say
    >>> clf = DPImbalancedClassifier(epsilon=2.0, bounds=(0, 100), random_state=0)
    >>> check_privacy_budget(clf, 2.0).cost.epsilon
    2.0
    >>> clf = clf.fit(X, y)
    >>> clf.strategy_, clf.privacy_spent_.epsilon
    ('threshold', 2.0)
    >>> bool(clf.predict(X[y == 1]).mean() > 0.5)   # finds most of the minority
    True
    """

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        "classifier": [HasMethods(["fit", "predict_proba"]), None],
        "epsilon": epsilon_constraint(MAX_EPSILON),
        "bounds": ["array-like", None],
        "strategy": [StrOptions({"auto", "threshold", "oversample"})],
        "classes": ["array-like", None],
    }

    def __init__(
        self,
        classifier=None,
        *,
        epsilon=1.0,
        bounds=None,
        strategy="auto",
        classes=None,
        random_state=None,
        accountant=None,
    ):
        self.classifier = classifier
        self.epsilon = epsilon
        self.bounds = bounds
        self.strategy = strategy
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _more_validate_params(self) -> None:
        BoundsScaler(self.bounds)._more_validate_params()
        public_label_set(self.classes)
        params = self._classifier_params()
        if _is_objective_perturbation(self.classifier) and params.get("fit_intercept", True):
            raise ValueError(f"The 'classifier' parameter: {UNREGULARISED_INTERCEPT}.")

    def _classifier_params(self) -> dict:
        if self.classifier is None:
            return PrivateLogisticRegression().get_params(deep=False)
        params = self.classifier.get_params(deep=False)
        if "epsilon" not in params:
            raise ValueError(
                "The 'classifier' parameter must be a private classifier with an 'epsilon' "
                f"parameter (e.g. PrivateLogisticRegression); got "
                f"{type(self.classifier).__name__}."
            )
        return params

    def own_privacy_cost(self) -> PrivacyCost:
        """Return the cost of this estimator's own releases: none (its members release).

        Returns
        -------
        PrivacyCost
            Zero; :meth:`privacy_children` are priced by the budget validator.
        """
        self._check_params()
        return PrivacyCost.zero()

    def privacy_children(self) -> list:
        """Return the model it fits, as built for the strategy it will use.

        ``strategy_`` once fitted; before, the forced ``strategy``, or
        ``"threshold"`` for "auto" (both cost exactly ``epsilon``).

        Returns
        -------
        list of (str, estimator)
            ``[("model", unfitted Pipeline)]``.
        """
        self._check_params()
        d = self._n_features() or 1
        strategy = getattr(self, "strategy_", None) or (
            "threshold" if self.strategy == "auto" else self.strategy
        )
        return [("model", self._build(strategy, d, (None,) * 3))]

    def _privacy_cost(self) -> PrivacyCost:
        """The whole model, under replace-one neighbours, as the budget validator prices it."""
        from ..budget import check_privacy_budget  # the validator prices diffprivlib models

        # bounds=None is a leak reported at fit, not a refusal; the price ignores the values
        priced = self if self.bounds is not None else clone(self).set_params(bounds=_BOX)
        try:
            report = check_privacy_budget(priced, None, on_leak="ignore")
        except ValueError as exc:
            subject = f"`The 'epsilon' parameter of DPImbalancedClassifier` ({self.epsilon!r})"
            if self.classifier is not None:  # the user's own classifier refused its share
                refusal = getattr(exc, "settings_template", str(exc))
                message = f"{subject} gives the classifier a share it refuses: {refusal}"
                raise naming(ValueError, message) from None
            # within [MIN_EPSILON, 30] no built-in part exceeds its cap: a share is too small
            raise naming(
                ValueError,
                f"{subject} is too small for `strategy={self.strategy!r}`: a part of the model "
                "would get a share below the smallest ε the package's noise samplers honour. "
                "Use a larger `epsilon`.",
            ) from None
        if report.leaks:
            raise ValueError("; ".join(report.leaks))
        return report.cost

    def privacy_assumptions(self) -> tuple:
        """The label set, when it is read from ``y``."""
        if self.classes is not None:
            return ()
        return (
            "DPImbalancedClassifier(classes=None): the set of class labels is read from y "
            "and treated as public",
        )

    # ---------------------------------------------------------------- fit
    _skip_nested_validation = False

    def _reservation(self, method: str) -> PrivacyCost:
        self._forget()  # a refit prices the model afresh, not the last fit's strategy_
        return self.privacy_cost()

    def _private_fit(self, X, y):
        """Scale by the public bounds, resolve the strategy, and fit the private model.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features), or dask array or DataFrame
            Raw features; values outside ``bounds`` are clipped. Dask rows
            stay where they are and give the in-memory release.
        y : array-like, dask array or dask Series of shape (n_samples,)
            Labels (numbers or strings).

        Returns
        -------
        self
        """
        total = self.privacy_cost()
        X, y, classes = self._training_data(X, y)
        classes = self._label_set(classes)
        self.classes_ = classes  # public (the parameter, or an assumption)
        d, n = self.n_features_in_, _n_rows(X)
        self._check_bounds_length(d)
        strategy = self._strategy_for(d, n)  # public shapes and ε only
        model = self._build(strategy, d, _child_seeds(self.random_state))
        # one charge for the whole model, before its first release
        self._charge(total)
        self.model_ = _fit_model(model, X, y, classes)
        self.strategy_ = strategy
        self.bounds_ = self.model_.named_steps["scaler"].bounds_
        return self

    def _training_data(self, X, y):
        """``(rows, labels, label set)``, validated before any charge (dask rows stay lazy)."""
        if is_dask_collection(X):
            rows = read_rows(X, self, reset=True)
            y, classes, _ = read_labels(y, rows.n_samples, self)
            check_classification_targets(classes)
            return rows, y, classes
        check_numeric(X, type(self).__name__)
        X, y = validate_data(self, X, y, reset=True, dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        return X, y, np.unique(y)

    def _label_set(self, seen: np.ndarray) -> np.ndarray:
        """``classes`` once every label of ``y`` (``seen``) is in it; else ``seen``."""
        public = public_label_set(self.classes)
        if public is None:
            if seen.size < 2:
                raise naming(
                    ValueError,
                    "DPImbalancedClassifier needs at least 2 classes in y; got 1 "
                    "class. Give the label set as `the 'classes' parameter`.",
                )
            return seen
        return in_label_set(seen, public)

    def _check_bounds_length(self, d: int) -> None:
        size = _bounds_length(self.bounds)
        if size is not None and size != d:
            raise naming(
                ValueError,
                f"`The 'bounds' parameter` has {size} values per side, but X has {d} features.",
            )

    def _n_features(self):
        """d from per-feature ``bounds`` (or the fitted shape), None when unknown."""
        if hasattr(self, "n_features_in_"):
            return self.n_features_in_
        return _bounds_length(self.bounds)

    def _strategy_for(self, d: int, n: int) -> str:
        """The forced ``strategy``, or the rule of "auto" at d features and n rows."""
        if self.strategy != "auto":
            return self.strategy
        return resolve_imbalanced_strategy(self.epsilon, d, n)

    def _build(self, strategy: str, d: int, seeds) -> Pipeline:
        """The unfitted model of ``strategy`` for d features (what fit runs, and is priced)."""
        scaler = BoundsScaler(self.bounds)
        eps = float(self.epsilon)
        public = public_label_set(self.classes)
        # the model is fitted on class indices: the public set's are 0..K-1
        indices = None if public is None else np.arange(public.size)
        if strategy == "oversample":
            sampler = DPSMOTE(
                epsilon=PIPELINE_SPLIT * eps, bounds=_BOX, classes=indices, random_state=seeds[0]
            )
            inner = self._classifier_at(eps * (1.0 - 2.0 * PIPELINE_SPLIT), d, seeds[1], indices)
            return Pipeline([("scaler", scaler), ("dpsmote", sampler), ("classifier", inner)])
        inner = self._classifier_at(eps * (1.0 - PRIOR_SHARE), d, seeds[1], indices)
        threshold = PredictedPriorThresholdClassifier(
            inner, epsilon=PRIOR_SHARE * eps, classes=indices, random_state=seeds[2]
        )
        return Pipeline([("scaler", scaler), ("classifier", threshold)])

    def _classifier_at(self, epsilon: float, d: int, seed, indices=None):
        """A clone of ``classifier`` at ``epsilon`` on the box ``[-1, 1]^d`` (given the
        public class indices where it takes ``classes``)."""
        prototype = PrivateLogisticRegression() if self.classifier is None else self.classifier
        params = prototype.get_params(deep=False)
        updates = {"epsilon": epsilon}
        if indices is not None and "classes" in params:
            updates["classes"] = indices
        norm = math.sqrt(d)
        if "data_norm" in params and params["data_norm"] is None:
            updates["data_norm"] = norm
        if _is_objective_perturbation(prototype) and params.get("C") == 1.0:
            R = float(updates.get("data_norm", params.get("data_norm")) or norm)
            settings = diffprivlib_logistic_settings(epsilon, R, fit_intercept=False)
            updates["epsilon"], updates["C"] = settings
        if "bounds" in params and params["bounds"] is None:
            updates["bounds"] = _BOX
        if "random_state" in params:
            updates["random_state"] = seed
        if isinstance(prototype, PrivacyCostMixin) and "accountant" in params:
            updates["accountant"] = None  # this estimator charges the whole cost
        return clone(prototype).set_params(**updates)

    # ------------------------------------------------------------ predict
    def _checked(self, X):
        """Validated rows: a dask collection is read by the data backend and stays lazy."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return read_rows(X, self, reset=False).data
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)

    def predict_proba(self, X):
        """Class probabilities, one column per label of ``classes_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features), or dask collection
            Raw features, as in ``fit`` (dask: scored lazily).

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_classes)
            The private model's probabilities (their ranking gives the ROC-AUC).
        """
        X = self._checked(X)
        K = self.classes_.size
        return map_row_blocks(_model_proba, X, self.model_, K, n_columns=K)

    @available_if(
        lambda self: hasattr(
            PrivateLogisticRegression if self.classifier is None else self.classifier,
            "decision_function",
        )
    )
    def decision_function(self, X):
        """The classifier's scores, at the threshold of ``strategy_``.

        ``"threshold"`` shifts them by the log-odds of the DP mean prediction;
        for a logistic classifier and two classes, :meth:`predict` gives
        ``classes_[1]`` where the score is positive. Available when the
        classifier has ``decision_function``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features), or dask collection
            Raw features, as in ``fit`` (a dask collection gives a lazy dask
            array).

        Returns
        -------
        ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            One score per row for two classes, one per class otherwise.
        """
        X = self._checked(X)
        K = self.classes_.size
        return map_row_blocks(_model_decision, X, self.model_, K, n_columns=None if K == 2 else K)

    def predict(self, X):
        """Predicted labels (from ``classes_``), at the threshold of ``strategy_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features), or dask collection
            Raw features, as in ``fit`` (a dask collection gives a lazy dask
            array).

        Returns
        -------
        ndarray or dask array of shape (n_samples,)
            Labels of ``classes_``.
        """
        X = self._checked(X)
        return map_row_blocks(
            _model_predict, X, self.model_, self.classes_, dtype=self.classes_.dtype
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _n_rows(X) -> int:
    """The number of rows (public under replace-one neighbours), known without a pass."""
    return X.n_samples if isinstance(X, Rows) else X.shape[0]


def _fit_model(model: Pipeline, X, y, classes) -> Pipeline:
    """Fit ``model``'s steps in order on the rows and their class indices.
    ``model.fit`` in memory; on dask, each step gets what ``Pipeline.fit`` would
    hand it, the scaler fitted on a stand-in (its state is public or the extremes)."""
    if not isinstance(X, Rows):
        return model.fit(X, np.searchsorted(classes, y))
    scaler = model.named_steps["scaler"]
    # fitted on the data's extremes (bounds=None) or the shape alone
    scaler.fit(column_extremes(X.data) if scaler.bounds is None else np.zeros((1, X.n_features)))
    scale, index = partial(_scaled_block, scaler=scaler), partial(np.searchsorted, classes)
    data = labelled_rows(X, y, scale, index)
    X, y = data.rows.data, data.labels
    if "dpsmote" in model.named_steps:
        X, y = model.named_steps["dpsmote"].fit_resample(X, y)
    model.named_steps["classifier"].fit(X, y)
    return model


def _scaled_block(block, scaler):
    return scaler.transform(block) if block.shape[0] else block


def _model_proba(block, model, n_classes: int) -> np.ndarray:
    """A fitted model's probabilities of a block of raw rows, a column for each class."""
    if not block.shape[0]:
        return np.empty((0, n_classes))
    proba = model.predict_proba(block)
    seen = np.asarray(model.classes_, dtype=int)
    if seen.size == n_classes:
        return proba
    full = np.zeros((proba.shape[0], n_classes), dtype=proba.dtype)
    full[:, seen] = proba
    return full


def _model_decision(block, model, n_classes: int) -> np.ndarray:
    """A fitted model's scores of a block of raw rows."""
    if not block.shape[0]:
        return np.empty((0,) if n_classes == 2 else (0, n_classes))
    return model.decision_function(block)


def _model_predict(block, model, classes: np.ndarray) -> np.ndarray:
    """A fitted model's labels (of ``classes``) for a block of raw rows."""
    if not block.shape[0]:
        return classes[:0]
    return classes[np.asarray(model.predict(block), dtype=int)]


def _is_objective_perturbation(classifier) -> bool:
    """diffprivlib's LogisticRegression (matched by name: diffprivlib stays optional)."""
    cls = type(classifier)
    return cls.__name__ == "LogisticRegression" and cls.__module__.startswith("diffprivlib")


def _bounds_length(bounds):
    """The number of values per side of per-feature ``bounds``; None for scalars or None."""
    if bounds is None:
        return None
    sizes = [np.size(side) for side in bounds if np.ndim(side) > 0]
    return max(sizes) if sizes else None


def _child_seeds(random_state) -> tuple:
    """Three independent int seeds (diffprivlib takes ints), or None for deployment."""
    if random_state is None:
        return None, None, None
    rng = check_random_state(random_state)
    return tuple(int(s) for s in rng.integers(0, 2**31 - 1, size=3))
