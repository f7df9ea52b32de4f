"""The noisy-prior threshold: a cheap private answer to class imbalance."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._data.rows import read_labels, read_rows
from .._data._dask import is_dask_collection
from .._data.blocks import map_row_blocks
from ..exceptions import naming
from ..privacy._docstrings import fill_doc
from ..privacy import GeometricMechanism, PrivacyCost, PrivacyCostMixin
from ..privacy._rng import check_random_state
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint


@fill_doc
class NoisyPriorThresholdClassifier(
    PrivacyCostMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Predict the class of largest ``P(class | x) / π̂(class)``, with DP class priors π̂.

    Dividing each predicted probability by the class prior is the Bayes
    decision for balanced costs (for two classes, the threshold
    ``P(minority | x) >= π(minority)``). The priors come from one geometric
    release of the class sizes. The ranking (ROC-AUC) of the wrapped
    classifier is unchanged.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``
        Usually a diffprivlib classifier; cloned and fitted on ``(X, y)``.
    epsilon : float, default=0.05
        ε of the class-size release (pure ε-DP, add/remove-one-record
        neighbours; ``2·epsilon`` under replace-one neighbours).
    classes : array-like or None, default=None
        The public label set, ``classes_`` whatever ``y`` holds (also given
        to a wrapped estimator's ``classes`` left at None). ``None`` reads it
        from ``y`` and treats it as public (:meth:`privacy_assumptions`).
    random_state : None, int or numpy.random.Generator, default=None
        Noise of the class sizes; ``None`` for deployment.
    {accountant}
        It pays the class-size release; the wrapped estimator charges its
        own accountant.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone of ``estimator``.
    classes_ : ndarray
        Class labels, sorted: ``classes`` when given, else those of ``y``.
    noisy_class_counts_ : ndarray of int
        The DP class sizes, aligned with ``classes_``.
    class_prior_ : ndarray of float
        ``max(noisy count, 1)`` normalised, aligned with ``classes_``.
    privacy_spent_ : PrivacyCost
        The class-size release only (the wrapped estimator reports its own).
    n_features_in_ : int

    Notes
    -----
    **Privacy.** The class sizes are one histogram over disjoint classes:
    geometric noise with sensitivity 1 is pure ε-DP under add/remove
    neighbours. The decision rule is post-processing, so the total is
    ``epsilon`` plus the wrapped estimator's cost, which
    :meth:`~.PrivacyCostMixin.privacy_cost` states under replace-one
    neighbours, as :func:`~skdp_anomaly.check_privacy_budget` computes it.

    References
    ----------
    .. [1] C. Elkan. The foundations of cost-sensitive learning. IJCAI 2001,
       Theorem 1 (re-weighting by class priors moves the decision threshold).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skdp_anomaly import NoisyPriorThresholdClassifier
    >>> X, y = make_classification(2000, weights=[0.95], random_state=0)
    >>> clf = NoisyPriorThresholdClassifier(LogisticRegression(), epsilon=0.1,
    ...                                     random_state=0).fit(X, y)
    >>> clf.class_prior_.round(2).tolist()
    [0.95, 0.05]
    >>> bool(clf.predict(X).mean() > LogisticRegression().fit(X, y).predict(X).mean())
    True
    """

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        "estimator": [HasMethods(["fit", "predict_proba"])],
        # above 30 the geometric noise of the class sizes is almost always zero
        "epsilon": epsilon_constraint(30),
        "classes": ["array-like", None],
    }

    def __init__(
        self, estimator, *, epsilon=0.05, classes=None, random_state=None, accountant=None
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _mechanism(self) -> GeometricMechanism:
        """The class sizes: one histogram of disjoint classes, sensitivity 1 (add/remove)."""
        return GeometricMechanism(float(self.epsilon), neighbours="add_remove")

    def own_privacy_cost(self) -> PrivacyCost:
        """Return the cost of the class-size release alone (the wrapped estimator is a child).

        Returns
        -------
        PrivacyCost
            Pure ``epsilon``-DP under add/remove-one-record neighbours.
        """
        self._check_params()
        return self._class_size_cost()

    def _class_size_cost(self) -> PrivacyCost:
        cost = self._mechanism().cost
        return PrivacyCost.pure(
            cost.epsilon,
            "NoisyPriorThresholdClassifier: class sizes, one geometric histogram (sensitivity 1)",
            neighbours=cost.neighbours,
        )

    def privacy_children(self) -> list:
        """Return the wrapped estimator, as it is fitted (held to the public label set).

        Returns
        -------
        list of (str, estimator)
            ``[("estimator", clone)]``.
        """
        self._check_params()
        return [("estimator", self._child(self._check_classes()))]

    def _more_validate_params(self) -> None:
        self._check_classes()

    def _privacy_cost(self) -> PrivacyCost:
        """The class-size release plus the wrapped estimator (replace-one); refuses a leak."""
        from ..budget import check_privacy_budget  # the validator prices diffprivlib models

        report = check_privacy_budget(self, None, on_leak="ignore")
        if report.leaks:
            raise ValueError("; ".join(report.leaks))
        return report.cost

    def privacy_assumptions(self) -> tuple:
        """The label set, when it is read from ``y``."""
        if self.classes is None:
            return (
                "NoisyPriorThresholdClassifier(classes=None): the set of class labels is "
                "read from y and treated as public",
            )
        return ()

    # ---------------------------------------------------------------- fit
    _skip_nested_validation = False

    def _reservation(self, method: str) -> PrivacyCost:
        # builds the mechanism: a rate it cannot honour is refused before any reservation
        return self.own_privacy_cost()  # the member is charged when it fits

    def _private_fit(self, X, y):
        """Release the class sizes, then fit a clone of ``estimator`` on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or dask array or DataFrame
            Training rows (dask rows are handed on as a dask array).
        y : array-like, dask array or dask Series of shape (n_samples,)
            Labels.

        Returns
        -------
        self
        """
        mechanism = self._mechanism()
        public = self._check_classes()  # parameters only: before reading the data
        child = self._child(public)
        X, y, values, counts = self._training_data(X, y)
        classes = self._label_set(values, counts, public)
        sizes = np.zeros(classes.size, dtype=np.int64)
        sizes[np.searchsorted(classes, values)] = counts
        rng = check_random_state(self.random_state)
        self._charge(self._class_size_cost())
        noisy = mechanism.randomise(sizes, rng)
        self.estimator_ = child.fit(X, y)
        self.classes_, self.noisy_class_counts_ = classes, noisy
        prior = np.maximum(self.noisy_class_counts_, 1).astype(np.float64)
        self.class_prior_ = prior / prior.sum()
        return self

    def _training_data(self, X, y):
        """``(X, y, distinct labels, their counts)``, validated before any charge."""
        if is_dask_collection(X):
            rows = read_rows(X, self, reset=True)
            y, values, counts = read_labels(y, rows.n_samples, self)
            check_classification_targets(values)
            return rows.data, y, values, counts
        X, y = validate_data(self, X, y, reset=True, ensure_all_finite=True)
        check_classification_targets(y)
        return X, y, *np.unique(y, return_counts=True)

    def _check_classes(self):
        """The public label set (sorted), or None; checked from the parameter alone."""
        return public_label_set(self.classes)

    def _child(self, public):
        """A clone of ``estimator``, given the public label set when it takes one."""
        child = clone(self.estimator)
        params = child.get_params(deep=False)
        if public is None or "classes" not in params:
            return child
        if params["classes"] is None:
            return child.set_params(classes=public.tolist())
        given = np.unique(np.asarray(params["classes"]))
        if given.shape != public.shape or not np.all(given == public):
            raise naming(
                ValueError,
                "The 'classes' parameter of 'estimator' must be None or the label "
                f"set of `the 'classes' parameter`; got {params['classes']!r} and "
                f"{self.classes!r}.",
            )
        return child

    @staticmethod
    def _label_set(values, counts, public):
        """``public`` once ``y``'s distinct labels ``values`` are checked in it; else ``values``."""
        if public is None:
            if values.size < 2:  # the label set is public by assumption (privacy_assumptions)
                raise ValueError(
                    "NoisyPriorThresholdClassifier needs at least 2 classes; y "
                    f"has {values.size} class."
                )
            return values
        return in_label_set(values, public)

    def predict_proba(self, X):
        """The wrapped estimator's probabilities, one column per label of ``classes_``.

        A label the wrapped estimator did not see gets 0; dask input is scored lazily.
        """
        X = self._checked(X)
        return map_row_blocks(_proba, X, self, is_dask_collection(X), n_columns=self.classes_.size)

    def predict(self, X):
        """The class of largest ``P(class | x) / π̂(class)`` (lazily, block by block, on dask)."""
        X = self._checked(X)
        return map_row_blocks(_predict, X, self, is_dask_collection(X), dtype=self.classes_.dtype)

    @available_if(lambda self: hasattr(self.estimator, "decision_function"))
    def decision_function(self, X):
        """The wrapped estimator's scores, shifted by the log of the DP class prior.

        For a logistic model, :meth:`predict` is the class of largest
        ``s - log π̂`` (two classes: ``classes_[1]`` where ``s - log(π̂₁ / π̂₀) > 0``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or dask collection
            Rows to score (a dask collection gives a lazy dask array).

        Returns
        -------
        ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            One score per row for two classes, one per class otherwise.
        """
        X = self._checked(X)
        seen = np.asarray(self.estimator_.classes_)
        if seen.shape != self.classes_.shape or not np.all(seen == self.classes_):
            raise naming(
                ValueError,
                "decision_function needs the wrapped estimator fitted on every "
                "label of classes_ (pass the public label set as `'classes'`).",
            )
        K = self.classes_.size
        return map_row_blocks(
            _decision, X, self, is_dask_collection(X), n_columns=None if K == 2 else K
        )

    def _checked(self, X):
        """Dask input read by the data backend; other input left to the wrapped estimator."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return read_rows(X, self, reset=False).data
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _proba(X, model, block: bool = False) -> np.ndarray:
    """``model``'s wrapped probabilities, a column per label of ``model.classes_``.
    ``block``: X is a dask block, which may be empty."""
    if block and not X.shape[0]:
        return np.empty((0, model.classes_.size))
    proba = model.estimator_.predict_proba(X)
    seen = np.asarray(model.estimator_.classes_)
    if seen.shape == model.classes_.shape and np.all(seen == model.classes_):
        return proba
    full = np.zeros((proba.shape[0], model.classes_.size), dtype=proba.dtype)
    full[:, np.searchsorted(model.classes_, seen)] = proba
    return full


def _predict(X, model, block: bool = False) -> np.ndarray:
    proba = _proba(X, model, block)
    return model.classes_[np.argmax(proba / model.class_prior_, axis=1)]


def _decision(X, model, block: bool = False) -> np.ndarray:
    log_prior = np.log(model.class_prior_)
    if block and not X.shape[0]:
        return np.empty((0,) if log_prior.size == 2 else (0, log_prior.size))
    scores = model.estimator_.decision_function(X)
    if log_prior.size == 2:
        return scores - (log_prior[1] - log_prior[0])
    return scores - log_prior


def public_label_set(classes):
    """The ``classes`` parameter as a sorted label set, or None; refused by name when it
    is not 1-D with at least 2 distinct labels."""
    if classes is None:
        return None
    labels = np.asarray(classes)
    if labels.ndim != 1 or labels.size < 2 or np.unique(labels).size != labels.size:
        raise naming(
            ValueError,
            "`The 'classes' parameter` must be a 1-D array-like of at least 2 "
            f"distinct class labels; got {classes!r}.",
        )
    return np.unique(labels)


def in_label_set(seen: np.ndarray, public: np.ndarray) -> np.ndarray:
    """``public``, once every distinct label of ``y`` (``seen``) is in it."""
    # np.isin, not searchsorted: labels of another type are "not in", not a crash
    if not np.all(np.isin(seen, public)):  # never name the label: it is data
        raise naming(ValueError, "y contains a label that is not in `the 'classes' parameter`.")
    return public
