"""skdp-anomaly: differentially private anomaly detection for scikit-learn.

Public API
----------
privacy
    Vectorised DP mechanisms, :class:`~skdp_anomaly.privacy.PrivacyCost` and
    composition.
audit
    Empirical lower bound on ε (Clopper–Pearson).
check_privacy_budget, PrivacyBudgetError, BudgetedPipeline
    Pipeline-aware privacy budget validation.
"""

from ._version import __version__
from .auditing import AuditResult, audit
from .privacy import PrivacyCost

__all__ = ["AuditResult", "PrivacyCost", "__version__", "audit"]
