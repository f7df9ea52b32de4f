"""One private classifier for imbalanced classes: public scaling, then the strategy ε and d pick."""

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
from ._threshold import public_label_set

#: The largest total ε: the parts' shares stay within every built-in part's range.
MAX_EPSILON = 30.0

__all__ = ["DPImbalancedClassifier"]

#: The box BoundsScaler maps every feature onto: what the private steps are told.
_BOX = (-1.0, 1.0)


@fill_doc
class DPImbalancedClassifier(PrivacyCostMixin, ClassifierMixin, MetaEstimatorMixin,
                             BaseEstimator):
    """A private classifier for imbalanced classes, from raw features to predictions.

    One estimator for the whole recipe: features mapped from their public
    ``bounds`` onto ``[-1, 1]`` (:class:`~skdp_anomaly.BoundsScaler`, no
    privacy cost), then one of two ways to help the minority class, both
    spending exactly ``epsilon`` under replace-one neighbours:

    * ``"threshold"``: the classifier at ``0.85 · epsilon``, cut at its own
      base rate, the DP mean of its predicted probabilities over the training
      rows, released at ``0.15 · epsilon``
      (:class:`~skdp_anomaly.imbalanced.PredictedPriorThresholdClassifier`);
    * ``"oversample"``: :class:`~skdp_anomaly.DPSMOTE` at
      ``PIPELINE_SPLIT · epsilon = 0.25 · epsilon`` (add/remove, i.e.
      ``0.5 · epsilon`` under replace-one) adds synthetic minority rows, then
      the classifier at ``0.5 · epsilon``.

    ``strategy="auto"`` picks one at ``fit`` from ``epsilon``, the number of
    features and the number of rows (public under replace-one neighbours;
    :func:`~skdp_anomaly.imbalanced.resolve_imbalanced_strategy`) and stores it in ``strategy_``. The
    estimator is the same type at every ε.

    Parameters
    ----------
    classifier : classifier with ``epsilon`` and ``predict_proba``, default=None
        ``None``: :class:`~skdp_anomaly.PrivateLogisticRegression` at its
        defaults. Cloned at ``fit`` with its share of ``epsilon``; where it
        has ``data_norm`` or ``bounds`` left at None they are set to the box
        ``[-1, 1]^d`` the scaler maps onto (``data_norm = √d``), and
        ``random_state`` and ``accountant`` are replaced (this estimator
        seeds it and charges the whole cost; a diffprivlib model keeps its
        own accountant, which it charges its share). Set its other parameters
        through ``classifier__<name>``. diffprivlib's ``LogisticRegression``
        works with ``fit_intercept=False`` (its intercept is not DP); at its
        default ``C = 1`` its ``C`` and ``epsilon`` are set by
        ``dead_zone_free_C``'s rule, so that its share is what it proves.
    epsilon : float, default=1.0
        The total budget, pure ε-DP under replace-one neighbours, in
        ``[1e-6, 30]``.
    bounds : (lower, upper) or None, default=None
        Public bounds of the features, from domain knowledge: each side a
        scalar (every feature) or one value per feature. Values outside are
        clipped. ``None`` reads each feature's range from the training data:
        not private (a :class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`, the
        budget validator lists the leak), stored in ``bounds_``.
    strategy : {"auto", "threshold", "oversample"}, default="auto"
        ``"auto"``: :func:`~skdp_anomaly.imbalanced.resolve_imbalanced_strategy` at ``fit``; another
        value forces that strategy.
    classes : array-like or None, default=None
        The public label set (at least 2 labels): it is ``classes_`` whichever
        labels the training set holds, and the fit makes no assumption
        (:meth:`privacy_assumptions` is empty). ``None`` reads the label set
        from ``y`` and treats it as public. A search
        (:class:`~skdp_anomaly.PrivateGridSearchCV`) sets it to the problem's
        label set.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the private steps (independent child seeds). ``None`` (fresh
        OS entropy) for deployment; an int only for reproducible experiments.
    {accountant}
        It is charged the whole cost, once, before the first release.

    Attributes
    ----------
    strategy_ : str
        The strategy used: ``"threshold"`` or ``"oversample"``.
    model_ : imblearn.pipeline.Pipeline
        The fitted model: steps ``"scaler"`` (:class:`BoundsScaler`), then
        ``"dpsmote"`` and ``"classifier"`` (``"oversample"``) or
        ``"classifier"``, a
        :class:`~skdp_anomaly.imbalanced.PredictedPriorThresholdClassifier`
        around the classifier (``"threshold"``).
    bounds_ : tuple of ndarray of shape (n_features,)
        The bounds the features were scaled from, one value per feature.
    classes_ : ndarray
        The class labels (sorted): ``classes`` when given, else those of
        ``y``, strings or numbers as ``y`` holds them.
    privacy_spent_ : PrivacyCost
        What the fit spent: the whole model, ε = ``epsilon`` under
        replace-one neighbours.
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
    **Privacy.** Pure ε-DP under replace-one neighbours (the relation of
    :func:`~skdp_anomaly.check_privacy_budget`'s default and of diffprivlib's
    models; the dataset size n is public). The scaler reads only ``bounds``
    and the public number of features (0-DP). The mean-prediction release
    is replace-one (one noisy sum, sensitivity 1); DPSMOTE's ε holds under
    add/remove neighbours and counts twice under replace-one (group
    privacy). Sequential composition gives, for ``"threshold"``,
    ``0.85 ε + 0.15 ε = ε`` and, for ``"oversample"``,
    ``2 · 0.25 ε + 0.5 ε = ε``. The rule of ``"auto"`` (oversample iff
    ε · n / d < 8 and d ≤ 50) reads ``epsilon``, d and n only, so which
    strategy runs is public and costs nothing. The
    label set is ``classes``, or read from ``y`` and treated as public
    (:meth:`privacy_assumptions`).

    **On Dask.** A dask array or DataFrame is read where it lives, and
    ``predict``, ``predict_proba`` and ``decision_function`` of dask rows
    return lazy dask arrays. A classifier other than the default receives
    dask collections as they are, and may compute them.

    The cut is at the model's own mean prediction, not at the class prior,
    so that more ε does not give a worse model. How "auto" and the cut were
    chosen, and the Dask details: :ref:`proofs-imbalanced-classifier` on
    :doc:`/privacy`.

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
    def __init__(self, classifier=None, *, epsilon=1.0, bounds=None, strategy="auto",
                 classes=None, random_state=None, accountant=None):
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
                f"{type(self.classifier).__name__}.")
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

        The strategy is ``strategy_`` once fitted, the forced ``strategy``
        before. With "auto", the rule needs the number of training rows,
        known only at ``fit``; both strategies cost exactly ``epsilon``, and
        the one priced is ``"threshold"``.

        Returns
        -------
        list of (str, estimator)
            ``[("model", unfitted Pipeline)]``.
        """
        self._check_params()
        d = self._n_features() or 1
        strategy = getattr(self, "strategy_", None) or (
            "threshold" if self.strategy == "auto" else self.strategy)
        return [("model", self._build(strategy, d, (None,) * 3))]

    def _privacy_cost(self) -> PrivacyCost:
        """The whole model, under replace-one neighbours, as the budget validator prices it."""
        from ..budget import check_privacy_budget  # the validator prices diffprivlib models

        # bounds=None is a leak said at fit (PrivacyLeakWarning) and in the budget
        # report, not a refusal; the price does not depend on the bounds' values
        priced = self if self.bounds is not None else clone(self).set_params(bounds=_BOX)
        try:
            report = check_privacy_budget(priced, None, on_leak="ignore")
        except ValueError as exc:
            if self.classifier is not None:  # the user's own classifier refused its share
                raise ValueError(f"The 'epsilon' parameter of DPImbalancedClassifier "
                                 f"({self.epsilon!r}) gives the classifier a share it "
                                 f"refuses: {exc}") from None
            # within [MIN_EPSILON, 30] no built-in part exceeds its cap: a share is too small
            raise ValueError(f"The 'epsilon' parameter of DPImbalancedClassifier "
                             f"({self.epsilon!r}) is too small for strategy="
                             f"{self.strategy!r}: a part of the model would get a share "
                             "below the smallest ε the package's noise samplers honour. Use "
                             "a larger epsilon.") from None
        if report.leaks:
            raise ValueError("; ".join(report.leaks))
        return report.cost

    def privacy_assumptions(self) -> tuple:
        """The label set, when it is read from ``y``."""
        if self.classes is not None:
            return ()
        return ("DPImbalancedClassifier(classes=None): the set of class labels is read from y "
                "and treated as public",)

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
            stay where they are: they are validated in one pass, scaled block
            by block, DPSMOTE's synthetic rows are drawn on the workers, and
            the default classifier's passes are reductions over the blocks
            (user guide, "Scaling out on Dask"). With the same
            ``random_state`` the fit releases what it releases on the same
            rows in memory.
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
        """``(rows, labels, label set)``, validated before any charge.

        Dask rows are read by the data backend (one pass counts rows and
        non-finite values, one more the labels) and stay where they are;
        in-memory rows are validated as by scikit-learn.
        """
        if is_dask_collection(X):
            rows = read_rows(X, self, reset=True)
            y, classes, _ = read_labels(y, rows.n_samples, self)
            check_classification_targets(classes)
            return rows, y, classes
        check_numeric(X, type(self).__name__)
        X, y = validate_data(self, X, y, reset=True, dtype=np.float64,
                             ensure_all_finite=True)
        check_classification_targets(y)
        return X, y, np.unique(y)

    def _label_set(self, seen: np.ndarray) -> np.ndarray:
        """``classes`` once every label of ``y`` (``seen``) is in it; else ``seen``."""
        public = public_label_set(self.classes)
        if public is None:
            if seen.size < 2:
                raise ValueError("DPImbalancedClassifier needs at least 2 classes in y; got 1 "
                                 "class. Give the label set as the 'classes' parameter.")
            return seen
        # np.isin, not searchsorted: labels of another type are "not in", not a crash
        if not np.all(np.isin(seen, public)):  # never name the label: it is data
            raise ValueError("y contains a label that is not in the 'classes' parameter.")
        return public

    def _check_bounds_length(self, d: int) -> None:
        size = _bounds_length(self.bounds)
        if size is not None and size != d:
            raise ValueError(f"The 'bounds' parameter has {size} values per side, but X has "
                             f"{d} features.")

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
            sampler = DPSMOTE(epsilon=PIPELINE_SPLIT * eps, bounds=_BOX, classes=indices,
                              random_state=seeds[0])
            inner = self._classifier_at(eps * (1.0 - 2.0 * PIPELINE_SPLIT), d, seeds[1],
                                        indices)
            return Pipeline([("scaler", scaler), ("dpsmote", sampler), ("classifier", inner)])
        inner = self._classifier_at(eps * (1.0 - PRIOR_SHARE), d, seeds[1], indices)
        threshold = PredictedPriorThresholdClassifier(inner, epsilon=PRIOR_SHARE * eps,
                                                      classes=indices, random_state=seeds[2])
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
            updates["epsilon"], updates["C"] = diffprivlib_logistic_settings(
                epsilon, float(updates.get("data_norm", params.get("data_norm")) or norm),
                fit_intercept=False)
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
            Raw features, as in ``fit``. A dask array or DataFrame is validated
            in one pass and scored lazily, block by block.

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_classes)
            The private model's probabilities (their ranking gives the ROC-AUC).
        """
        X = self._checked(X)
        K = self.classes_.size
        return map_row_blocks(_model_proba, X, self.model_, K, n_columns=K)

    @available_if(lambda self: hasattr(
        PrivateLogisticRegression if self.classifier is None else self.classifier,
        "decision_function"))
    def decision_function(self, X):
        """The classifier's scores, at the threshold of ``strategy_``.

        ``"oversample"``: the classifier's scores. ``"threshold"``: shifted by
        the log-odds of the model's DP mean prediction
        (``decision_function`` of
        :class:`~skdp_anomaly.imbalanced.PredictedPriorThresholdClassifier`). For a
        logistic classifier (the default) and two classes, :meth:`predict`
        gives ``classes_[1]`` where the score is positive (up to rounding at
        the boundary). Available when the classifier has ``decision_function``.

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
        return map_row_blocks(_model_decision, X, self.model_, K,
                              n_columns=None if K == 2 else K)

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
        return map_row_blocks(_model_predict, X, self.model_, self.classes_,
                              dtype=self.classes_.dtype)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _n_rows(X) -> int:
    """The number of rows (public under replace-one neighbours), known without a pass."""
    return X.n_samples if isinstance(X, Rows) else X.shape[0]


def _fit_model(model: Pipeline, X, y, classes) -> Pipeline:
    """Fit ``model``'s steps in order on the rows and their class indices.

    In memory this is ``model.fit``. On dask rows the scaler is fitted on a
    stand-in of the input's shape (its state is the public bounds, or the
    columns' extremes when ``bounds`` is None) and scales each block where it
    lives; DPSMOTE's synthetic rows and the scaled rows stay on the cluster
    and are what the classifier reads. Each step receives what
    ``Pipeline.fit`` would hand it, so a classifier that reproduces its
    in-memory fit on dask rows reproduces the whole model's.
    """
    if not isinstance(X, Rows):
        return model.fit(X, np.searchsorted(classes, y))
    scaler = model.named_steps["scaler"]
    stand_in = (column_extremes(X.data) if scaler.bounds is None
                else np.zeros((1, X.n_features)))  # the bounds' data, or the shape alone
    scaler.fit(stand_in)
    data = labelled_rows(X, y, partial(_scaled_block, scaler=scaler),
                         partial(np.searchsorted, classes))
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
