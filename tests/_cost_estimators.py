"""Test-only estimators that follow the privacy-cost protocol."""

from numbers import Real
from typing import ClassVar

from imblearn.base import BaseSampler
from sklearn.utils._param_validation import Interval

from skdp_anomaly.privacy import PrivacyCost


class CostSampler(BaseSampler):
    """Test sampler following the privacy-cost protocol (returns the data unchanged)."""

    _sampling_type = "over-sampling"
    _parameter_constraints: ClassVar[dict] = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "sampling_strategy": [str, dict, Real],
    }

    def __init__(self, epsilon=0.5, sampling_strategy="auto"):
        self.epsilon = epsilon
        self.sampling_strategy = sampling_strategy

    def privacy_cost(self):
        return PrivacyCost.pure(self.epsilon)

    def _fit_resample(self, X, y):
        return X, y
