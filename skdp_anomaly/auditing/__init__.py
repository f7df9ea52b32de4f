"""Empirical privacy auditing (public API)."""

from ._auditor import AuditResult, audit, clopper_pearson

__all__ = ["AuditResult", "audit", "clopper_pearson"]
