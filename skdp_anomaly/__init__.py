"""skdp-anomaly: differentially private anomaly detection for scikit-learn.

Public API
----------
DPSMOTE
    Private minority oversampling (thesis ch. 3), an imbalanced-learn sampler.
DPOAD
    Private outsourcing of anomaly detection over windowed histograms (Mohammady et al.);
    the data owner and analyst roles are in :mod:`skdp_anomaly.dpoad`.
dp_imbalanced_pipeline, resolve_imbalanced_strategy, NoisyPriorThresholdClassifier
    The recommended private learner for imbalanced classes (DPSMOTE, then a
    diffprivlib classifier, or the classifier thresholded at a DP class prior,
    chosen from ε and d; one total ε), the rule that chooses, and the threshold.
NoisyGroupSearch
    Anomaly-restricted private search for an anomaly by noisy group queries (Bittner, Sarwate and Wright).
PrivateOnlineActiveSVC
    Private online active learning of a linear SVM (Ghassemi, Sarwate and Wright 2016), ``partial_fit``.
PrivateChangePointDetector, threshold_range, drift_transform, drift_index_to_original
    Private nonparametric change-point detection, offline and online (thesis ch. 2).
audit, AuditResult
    Empirical lower bound on ε (Clopper–Pearson).
check_privacy_budget, BudgetedPipeline, PrivacyReport, PrivacyBudgetError, PrivacyLeakError
    Pipeline-aware privacy budget validation: adds up every step's cost (ours
    and diffprivlib's), flags steps that learn without privacy, and prices
    GridSearchCV / RandomizedSearchCV / cross-validation.
PrivateGridSearchCV, PrivateRandomizedSearchCV
    Private model selection: the choice of the best candidate is a DP release
    (Liu and Talwar; Papernot and Steinke), with a stated total.
PrivacyCost
    The privacy-cost value type; see :mod:`skdp_anomaly.privacy` for mechanisms
    and composition.
"""

from ._version import __version__
from .active_learning import PrivateOnlineActiveSVC
from .auditing import AuditResult, audit
from .budget import (
    BudgetedPipeline,
    PrivacyBudgetError,
    PrivacyLeakError,
    PrivacyReport,
    check_privacy_budget,
)
from .dpoad import DPOAD
from .group_search import NoisyGroupSearch
from .imbalanced import (
    NoisyPriorThresholdClassifier,
    dp_imbalanced_pipeline,
    resolve_imbalanced_strategy,
)
from .changepoint import (
    PrivateChangePointDetector,
    ThresholdRange,
    drift_index_to_original,
    drift_transform,
    threshold_range,
)
from .linear_model import PrivateLogisticRegression
from .model_selection import PrivateGridSearchCV, PrivateRandomizedSearchCV
from .over_sampling import DPSMOTE
from .privacy import PrivacyCost

__all__ = [
    "AuditResult",
    "BudgetedPipeline",
    "DPOAD",
    "DPSMOTE",
    "NoisyGroupSearch",
    "NoisyPriorThresholdClassifier",
    "PrivacyBudgetError",
    "PrivacyCost",
    "PrivacyLeakError",
    "PrivacyReport",
    "PrivateChangePointDetector",
    "PrivateGridSearchCV",
    "PrivateLogisticRegression",
    "PrivateOnlineActiveSVC",
    "PrivateRandomizedSearchCV",
    "ThresholdRange",
    "__version__",
    "audit",
    "check_privacy_budget",
    "dp_imbalanced_pipeline",
    "drift_index_to_original",
    "drift_transform",
    "resolve_imbalanced_strategy",
    "threshold_range",
]
