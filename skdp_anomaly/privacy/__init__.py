"""Shared privacy code: mechanisms, costs, composition, randomness, bounds.

Estimators import from here; nothing here imports an estimator.
"""

from ._cost import PrivacyCost, compose_parallel, compose_sequential
from ._mechanisms import (
    AboveThreshold,
    BernoulliSelection,
    ExponentialSelection,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    VectorLaplaceMechanism,
    check_epsilon,
)
from ._protocol import PrivacyCostMixin
from ._rng import check_random_state
from ._validation import PrivacyLeakWarning, check_bounds, clip_to_bounds

__all__ = [
    "AboveThreshold",
    "BernoulliSelection",
    "ExponentialSelection",
    "GeometricMechanism",
    "LaplaceMechanism",
    "PrivacyCost",
    "PrivacyCostMixin",
    "PrivacyLeakWarning",
    "RandomizedResponse",
    "ReportNoisyMax",
    "VectorLaplaceMechanism",
    "check_bounds",
    "check_epsilon",
    "check_random_state",
    "clip_to_bounds",
    "compose_parallel",
    "compose_sequential",
]
