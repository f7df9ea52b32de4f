"""Shared privacy code: mechanisms, costs, composition, randomness, bounds.

Estimators import from here; nothing here imports an estimator.
"""

from ._accountant import BudgetAccountant, BudgetExceededError
from ._cost import (
    NEIGHBOURS,
    PrivacyCost,
    check_neighbours,
    compose_parallel,
    compose_sequential,
    relation_text,
)
from ._mechanisms import (
    AboveThreshold,
    MAX_GEOMETRIC_EPSILON,
    MAX_GRID_EPSILON,
    MIN_EPSILON,
    MIN_INTEGER_RATE,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    check_epsilon,
)
from ._selection import BernoulliSelection, ExponentialSelection
from ._protocol import (
    ACCOUNTANT_NEIGHBOURS,
    PRIVACY_PARAMETER_CONSTRAINTS,
    PrivacyCostMixin,
    private_fit,
)
from ._rng import call_rng, check_random_state
from ._validation import (
    BoundsClippingWarning,
    PrivacyLeakWarning,
    check_bounds,
    clip_to_bounds,
    warn_privacy_leak,
)

__all__ = [
    "ACCOUNTANT_NEIGHBOURS",
    "AboveThreshold",
    "BernoulliSelection",
    "BoundsClippingWarning",
    "BudgetAccountant",
    "BudgetExceededError",
    "ExponentialSelection",
    "GeometricMechanism",
    "LaplaceMechanism",
    "MAX_GEOMETRIC_EPSILON",
    "MAX_GRID_EPSILON",
    "MIN_EPSILON",
    "MIN_INTEGER_RATE",
    "NEIGHBOURS",
    "PRIVACY_PARAMETER_CONSTRAINTS",
    "PrivacyCost",
    "PrivacyCostMixin",
    "PrivacyLeakWarning",
    "RandomizedResponse",
    "ReportNoisyMax",
    "check_bounds",
    "check_epsilon",
    "check_neighbours",
    "call_rng",
    "check_random_state",
    "clip_to_bounds",
    "compose_parallel",
    "compose_sequential",
    "relation_text",
    "private_fit",
    "warn_privacy_leak",
]
