"""Pipeline-aware privacy budget validation.

:func:`check_privacy_budget` prices an estimator (pipelines, unions, column
transformers, searches, cross-validation) from its parameters and checks the
total against a budget; :class:`BudgetedPipeline` does so at every fit.
"""

from ._pipeline import BudgetedPipeline
from ._report import PrivacyReport, StepCost
from ._validator import check_privacy_budget

__all__ = ["BudgetedPipeline", "PrivacyReport", "StepCost", "check_privacy_budget"]
