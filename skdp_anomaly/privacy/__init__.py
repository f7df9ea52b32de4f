"""Shared privacy code: mechanisms, costs, composition, randomness, bounds.

Estimators import from here; nothing here imports an estimator.
"""

from ._accountant import BudgetAccountant
from ._cost import PrivacyCost, compose_parallel, compose_sequential
from ._mechanisms import (
    AboveThreshold,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
)
from ._protocol import PrivacyCostMixin
from ._selection import BernoulliSelection, ExponentialSelection

__all__ = [
    "AboveThreshold",
    "BernoulliSelection",
    "BudgetAccountant",
    "ExponentialSelection",
    "GeometricMechanism",
    "LaplaceMechanism",
    "PrivacyCost",
    "PrivacyCostMixin",
    "RandomizedResponse",
    "ReportNoisyMax",
    "compose_parallel",
    "compose_sequential",
]
