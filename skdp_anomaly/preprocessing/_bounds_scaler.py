"""Scaling by public bounds: a transformer that learns nothing from the data."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from ..privacy import PrivacyCost, PrivacyCostMixin
from ..exceptions import naming
from ..privacy._validation import check_bounds, warn_outside_bounds


class BoundsScaler(PrivacyCostMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Map each feature from its public bounds ``[lower, upper]`` onto ``[-1, 1]``, clipping.

    Puts raw features into the box private learners expect, with bounds from
    domain knowledge: it reads nothing from the data and costs no privacy.
    Values outside are clipped to ±1; a missing value is refused.

    Parameters
    ----------
    bounds : (lower, upper) or None, default=None
        Public bounds, scalars or one value per feature, ``lower < upper``.
        ``None`` reads the data's range: not private
        (:class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`), stored in ``bounds_``.

    Attributes
    ----------
    bounds_ : tuple of ndarray of shape (n_features,)
        ``(lower, upper)`` per feature.
    n_features_in_ : int
        Number of features seen in ``fit`` (a public shape).
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of a DataFrame passed to ``fit``.

    See Also
    --------
    DPImbalancedClassifier : scales with this step before its private learner.

    Notes
    -----
    **Privacy.** With ``bounds`` given, the fitted state is the bounds and
    the number of features, and each output row depends on its own row
    only: 0-DP under add/remove and replace-one neighbours
    (:func:`~skdp_anomaly.check_privacy_budget` prices it 0). The
    public-bounds counterpart of ``MinMaxScaler(feature_range=(-1, 1), clip=True)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import BoundsScaler
    >>> X = np.array([[0.0, 50.0], [10.0, 150.0], [5.0, 100.0]])
    >>> scaler = BoundsScaler(bounds=([0, 0], [10, 200])).fit(X)
    >>> scaler.transform(X).tolist()
    [[-1.0, -0.5], [1.0, 0.5], [0.0, 0.0]]
    >>> scaler.transform([[-5.0, 400.0]]).tolist()       # outside the bounds: clipped
    [[-1.0, 1.0]]
    >>> BoundsScaler(bounds=(0, 10)).privacy_cost().epsilon
    0.0
    """

    _parameter_constraints: dict = {"bounds": ["array-like", None]}
    _data_derived_params = {"bounds": "stored in `bounds_`"}

    def __init__(self, bounds=None):
        self.bounds = bounds

    def _privacy_cost(self) -> PrivacyCost:
        return PrivacyCost.zero()

    def _more_validate_params(self) -> None:
        if self.bounds is not None:
            # the number of features is not known yet: check the pair on its own
            lower, upper = _pair(self.bounds)
            size = max(np.size(lower), np.size(upper))
            check_bounds(self.bounds, n_features=size)

    def _private_fit(self, X, y=None):
        """Broadcast ``bounds`` to the features of ``X`` (or read the data's range).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; only its shape (or, without ``bounds``, its range) is used.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        X = validate_data(self, X, reset=True, dtype=np.float64, ensure_all_finite=True)
        lower, upper = check_bounds(
            self.bounds, X if self.bounds is None else None, n_features=X.shape[1]
        )
        warn_outside_bounds(
            X, lower, upper, type(self).__name__, getattr(self, "feature_names_in_", None)
        )
        self.bounds_ = (lower, upper)
        return self

    def transform(self, X):
        """Map each feature from ``bounds_`` onto ``[-1, 1]``, clipping values outside.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            The mapped rows.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)
        lower, upper = self.bounds_
        return np.clip(2.0 * (X - lower) / (upper - lower) - 1.0, -1.0, 1.0)

    def inverse_transform(self, X):
        """Map ``[-1, 1]`` back onto ``bounds_`` (clipped values stay at the bounds).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
            The mapped rows.
        """
        check_is_fitted(self)
        # the output space has no feature names: check_array, not validate_data
        X = check_array(X, dtype=np.float64, ensure_all_finite=True)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but BoundsScaler is expecting "
                f"{self.n_features_in_} features as input."
            )
        lower, upper = self.bounds_
        return lower + (np.clip(X, -1.0, 1.0) + 1.0) * (upper - lower) / 2.0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


def _pair(bounds):
    """``bounds`` as a ``(lower, upper)`` pair, or a ValueError naming the parameter."""
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise naming(
            ValueError,
            "`The 'bounds' parameter` must be a (lower, upper) pair of scalars or "
            f"of one value per feature; got {bounds!r}.",
        ) from None
    return lower, upper
