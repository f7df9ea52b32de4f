"""The predicted-prior threshold: the model's own DP base rate, where the cut is made."""

from __future__ import annotations

import numpy as np

from .._data._dask import is_dask_collection
from .._data.blocks import map_row_blocks
from ..privacy import LaplaceMechanism, PrivacyCost
from ..privacy._rng import check_random_state
from ..privacy._docstrings import fill_doc
from ..privacy._grid import to_steps
from ._threshold import NoisyPriorThresholdClassifier, _proba


@fill_doc
class PredictedPriorThresholdClassifier(NoisyPriorThresholdClassifier):
    """Predict the class of largest ``P(class | x) / π̂(class)``, π̂ the model's DP base rate.

    ``π̂(c)`` is the DP mean of ``P(c | x)`` over the training rows (Saerens,
    Latinne and Decaestecker 2002): the class prior for a calibrated model,
    and a cut that follows the shrinkage of a regularised private one, where
    :class:`~skdp_anomaly.NoisyPriorThresholdClassifier` would predict nearly
    every row positive. The ranking (ROC-AUC) is unchanged.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``
        A private classifier; cloned and fitted on ``(X, y)``.
    epsilon : float, default=0.1
        ε of the mean-prediction release (pure ε-DP, replace-one
        neighbours; the number of rows n is public).
    classes : array-like or None, default=None
        As in :class:`~skdp_anomaly.NoisyPriorThresholdClassifier`.
    random_state : None, int or numpy.random.Generator, default=None
        Noise of the release; ``None`` for deployment.
    {accountant}
        It pays the release; the wrapped estimator charges its own accountant.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone of ``estimator``.
    classes_ : ndarray
        Class labels, sorted.
    noisy_prediction_sums_ : ndarray of float
        The DP sums of ``P(c | x)`` over the training rows, aligned with ``classes_``.
    class_prior_ : ndarray of float
        The sums floored at the noise scale and normalised.
    privacy_spent_ : PrivacyCost
        The release only (the wrapped estimator reports its own).
    n_features_in_ : int

    Notes
    -----
    **Privacy.** Pure ``epsilon``-DP under replace-one neighbours (n public):
    each row's probabilities, clipped to the simplex and rounded to a
    power-of-two grid, are summed with discrete Laplace noise
    (:class:`~skdp_anomaly.privacy.LaplaceMechanism`; two classes: one sum,
    sensitivity 1; K ≥ 3: L1 sensitivity 2). With the estimator's cost,
    sequential composition. The floor and the cut are post-processing; the
    estimator must read no data at ``predict_proba``.

    References
    ----------
    .. [1] M. Saerens, P. Latinne and C. Decaestecker. Adjusting the outputs
       of a classifier to new a priori probabilities: a simple procedure.
       Neural Computation 14(1), 2002, Section 2.2.
    .. [2] C. Elkan. The foundations of cost-sensitive learning. IJCAI 2001,
       Theorem 1.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly import PrivateLogisticRegression
    >>> from skdp_anomaly.imbalanced import PredictedPriorThresholdClassifier
    >>> X, y = make_classification(2000, weights=[0.95], random_state=0)
    >>> clf = PredictedPriorThresholdClassifier(
    ...     PrivateLogisticRegression(epsilon=0.9, data_norm=8.0), epsilon=0.1,
    ...     random_state=0).fit(X, y)
    >>> clf.privacy_cost().epsilon
    1.0
    >>> bool(clf.class_prior_[1] < 0.5)
    True
    """

    def __init__(self, estimator, *, epsilon=0.1, classes=None, random_state=None, accountant=None):
        super().__init__(
            estimator,
            epsilon=epsilon,
            classes=classes,
            random_state=random_state,
            accountant=accountant,
        )

    # ------------------------------------------------------------ privacy
    def _mechanism(self, n_classes: int = 2) -> LaplaceMechanism:
        """Σ P(1|x) (two classes, Δ = 1) or the K sums (L1 Δ = 2), replace-one."""
        if n_classes <= 2:
            return LaplaceMechanism(float(self.epsilon), 1.0, neighbours="replace")
        return LaplaceMechanism(
            float(self.epsilon), 2.0, neighbours="replace", coordinates=int(n_classes)
        )

    def _class_size_cost(self) -> PrivacyCost:
        public = self._check_classes()  # the mechanism refuses a rate it cannot honour
        cost = self._mechanism(2 if public is None else public.size).cost
        return PrivacyCost.pure(
            cost.epsilon,
            "PredictedPriorThresholdClassifier: the sums of "
            "predicted probabilities (discrete Laplace)",
            neighbours=cost.neighbours,
        )

    # ---------------------------------------------------------------- fit
    def _private_fit(self, X, y):
        """Fit a clone of ``estimator``, then release its mean predictions on ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or dask array or DataFrame
            Training rows (dask rows stay where they are).
        y : array-like, dask array or dask Series of shape (n_samples,)
            Labels.

        Returns
        -------
        self
        """
        public = self._check_classes()
        child = self._child(public)
        X, y, values, counts = self._training_data(X, y)
        classes = self._label_set(values, counts, public)
        mechanism = self._mechanism(classes.size)  # refuses a rate before the charge
        n = int(np.sum(counts))  # public under replace-one neighbours
        rng = check_random_state(self.random_state)
        self._charge(self._class_size_cost())
        self.estimator_ = child.fit(X, y)
        self.classes_ = classes
        g = mechanism.granularity
        steps = map_row_blocks(
            _proba_steps, X, self, g, is_dask_collection(X), n_columns=classes.size, dtype=np.int64
        ).sum(axis=0)
        steps = np.asarray(steps.compute() if is_dask_collection(steps) else steps)
        floor = min(max(1.0, mechanism.scale), n / 2.0)
        if classes.size == 2:  # one sum; the other is n minus it (n public)
            s1 = float(mechanism.randomise_steps(steps[1:], rng)[0]) * g
            self.noisy_prediction_sums_ = np.array([n - s1, s1])
            prior = np.array([n - np.clip(s1, floor, n - floor), np.clip(s1, floor, n - floor)])
        else:
            self.noisy_prediction_sums_ = mechanism.randomise_steps(steps, rng) * g
            prior = np.maximum(self.noisy_prediction_sums_, floor)
        self.class_prior_ = prior / prior.sum()
        return self


def _proba_steps(X, model, granularity: float, block: bool = False) -> np.ndarray:
    """Each row's probabilities clipped to the simplex (L1 ≤ 1), in grid steps."""
    proba = np.clip(_proba(X, model, block), 0.0, 1.0)
    proba /= np.maximum(proba.sum(axis=1, keepdims=True), 1.0)
    return to_steps(proba, granularity)
