"""skdp-anomaly: differentially private anomaly detection for scikit-learn.

Public API
----------
DPSMOTE
    Private minority oversampling (Lut 2022, chapter 3), an imbalanced-learn sampler.
DPOAD
    Private outsourcing of anomaly detection over windowed histograms (Mohammady et al.);
    the data owner and analyst roles are in :mod:`skdp_anomaly.dpoad`.
DPImbalancedClassifier, NoisyPriorThresholdClassifier
    Private learners for imbalanced classes (one total ε), and a classifier
    thresholded at a DP class prior.
BoundsScaler
    Maps features from public bounds onto [-1, 1], clipping; costs no privacy.
PrivateLogisticRegression
    ε-DP logistic regression by objective perturbation (Chaudhuri et al. 2011).
NoisyGroupSearch
    Anomaly-restricted private search by noisy group queries (Bittner et al.).
PrivateOnlineActiveSVC
    Private online active learning of a linear SVM (Ghassemi et al. 2016).
PrivateChangePointDetector
    Private nonparametric change-point detection (Lut 2022, chapter 2).
PrivateHBOS
    Private histogram-based outlier scores (Goldstein and Dengel 2012).
audit, AuditResult
    Empirical lower bound on ε (Clopper–Pearson).
check_privacy_budget, BudgetedPipeline, PrivacyReport, PrivacyBudgetError, PrivacyLeakError
    Pipeline-aware privacy budget validation, searches and cross-validation included.
PrivateGridSearchCV, PrivateRandomizedSearchCV
    Private model selection (Liu and Talwar; Papernot and Steinke).
BudgetAccountant
    A privacy budget shared by every fit given it as ``accountant``.
PrivacyCost
    The privacy-cost value type (see :mod:`skdp_anomaly.privacy`).

Names are imported at first use, so ``import skdp_anomaly`` loads no scikit-learn.
"""

from importlib import import_module

from ._version import __version__ as __version__  # re-exported

#: public name -> the subpackage that defines it
_EXPORTS = {
    "AuditResult": "auditing",
    "BoundsScaler": "preprocessing",
    "BudgetAccountant": "privacy",
    "BudgetedPipeline": "budget",
    "DPImbalancedClassifier": "imbalanced",
    "DPOAD": "dpoad",
    "DPSMOTE": "over_sampling",
    "NoisyGroupSearch": "group_search",
    "NoisyPriorThresholdClassifier": "imbalanced",
    "PrivacyBudgetError": "exceptions",
    "PrivacyCost": "privacy",
    "PrivacyLeakError": "exceptions",
    "PrivacyReport": "budget",
    "PrivateChangePointDetector": "changepoint",
    "PrivateGridSearchCV": "model_selection",
    "PrivateHBOS": "outlier",
    "PrivateLogisticRegression": "linear_model",
    "PrivateOnlineActiveSVC": "active_learning",
    "PrivateRandomizedSearchCV": "model_selection",
    "audit": "auditing",
    "check_privacy_budget": "budget",
}
_SUBPACKAGES = frozenset(
    {
        "active_learning",
        "auditing",
        "budget",
        "changepoint",
        "cli",
        "demos",
        "dpoad",
        "exceptions",
        "group_search",
        "imbalanced",
        "linear_model",
        "model_selection",
        "outlier",
        "over_sampling",
        "preprocessing",
        "privacy",
    }
)

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str):
    """Import a public name (or a subpackage) at its first use (PEP 562)."""
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBPACKAGES:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__) | _SUBPACKAGES)
