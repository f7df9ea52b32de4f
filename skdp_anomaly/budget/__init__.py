"""Pipeline-aware privacy budget validation.

:func:`check_privacy_budget` prices an estimator (pipelines, unions, column
transformers, searches, cross-validation) from its parameters and checks the
total against a budget; :class:`BudgetedPipeline` does so at every fit.
"""

from ._pipeline import BudgetedPipeline
from ._report import PrivacyBudgetError, PrivacyLeakError, PrivacyReport, StepCost
from ._validator import check_privacy_budget, print_pipeline_report, validate_budget
from ..privacy._diffprivlib import diffprivlib_logistic_epsilon, diffprivlib_logistic_settings

__all__ = [
    "BudgetedPipeline",
    "PrivacyBudgetError",
    "PrivacyLeakError",
    "PrivacyReport",
    "StepCost",
    "check_privacy_budget",
    "diffprivlib_logistic_epsilon",
    "diffprivlib_logistic_settings",
    "print_pipeline_report",
    "validate_budget",
]
