"""Test-only estimators that follow the privacy-cost protocol."""

from numbers import Real
from typing import ClassVar

from imblearn.base import BaseSampler
from sklearn.utils._param_validation import Interval, StrOptions

from skdp_anomaly.privacy import PrivacyCost


class CostSampler(BaseSampler):
    """Test sampler following the privacy-cost protocol (returns the data unchanged).

    ``neighbours`` is the relation its pure ε holds under ("replace" by
    default, so that its ε counts as it stands in a replace-one report).
    """

    _sampling_type = "over-sampling"
    _parameter_constraints: ClassVar[dict] = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "neighbours": [StrOptions({"add_remove", "replace"})],
        "sampling_strategy": [str, dict, Real],
    }

    def __init__(self, epsilon=0.5, neighbours="replace", sampling_strategy="auto"):
        self.epsilon = epsilon
        self.neighbours = neighbours
        self.sampling_strategy = sampling_strategy

    def privacy_cost(self):
        return PrivacyCost.pure(self.epsilon, neighbours=self.neighbours)

    def _fit_resample(self, X, y):
        return X, y
