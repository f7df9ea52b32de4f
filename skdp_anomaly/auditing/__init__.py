"""Empirical privacy auditing (public API)."""

from ._auditor import AuditResult, audit, clopper_pearson
from ._scenarios import AuditScenario, mechanism_scenarios, run_scenario

__all__ = [
    "AuditResult",
    "AuditScenario",
    "audit",
    "clopper_pearson",
    "mechanism_scenarios",
    "run_scenario",
]
