"""Empirical privacy auditing (public API)."""

from ._auditor import AuditResult, audit, clopper_pearson
from ._float_attack import floating_point_audit

__all__ = [
    "AuditResult",
    "audit",
    "clopper_pearson",
    "floating_point_audit",
]
