"""Empirical privacy auditing (public API)."""

from ._auditor import AuditResult, audit, clopper_pearson
from ._float_attack import floating_point_audit, grid_reachable, laplace_reachable
from ._float_scenarios import ReleaseAttackScenario, release_attack_scenarios, run_release_attack
from ._scenarios import AuditScenario, mechanism_scenarios, run_scenario

__all__ = [
    "AuditResult",
    "AuditScenario",
    "ReleaseAttackScenario",
    "audit",
    "clopper_pearson",
    "floating_point_audit",
    "grid_reachable",
    "laplace_reachable",
    "mechanism_scenarios",
    "release_attack_scenarios",
    "run_release_attack",
    "run_scenario",
]
