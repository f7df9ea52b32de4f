"""skdp-anomaly: differentially private anomaly detection for scikit-learn.

Public API
----------
DPSMOTE
    Private minority oversampling (Lut 2022, chapter 3), an imbalanced-learn sampler.
DPOAD
    Private outsourcing of anomaly detection over windowed histograms (Mohammady et al.);
    the data owner and analyst roles are in :mod:`skdp_anomaly.dpoad`.
DPImbalancedClassifier, NoisyPriorThresholdClassifier
    The recommended private learner for imbalanced classes (features scaled
    by public bounds, then the private classifier cut at its own DP mean
    prediction, or DPSMOTE then the classifier, chosen from ε, n and d; one
    total ε), and the classifier thresholded at a DP class prior.
BoundsScaler
    Maps features from public bounds onto [-1, 1], clipping; costs no privacy.
PrivateLogisticRegression
    The package's own ε-DP logistic regression (objective perturbation,
    Chaudhuri, Monteleoni and Sarwate 2011), released float-safe; the default
    classifier of DPImbalancedClassifier.
NoisyGroupSearch
    Anomaly-restricted private search for an anomaly by noisy group queries (Bittner, Sarwate and Wright).
PrivateOnlineActiveSVC
    Private online active learning of a linear SVM (Ghassemi, Sarwate and Wright 2016), ``partial_fit``.
PrivateChangePointDetector
    Private nonparametric change-point detection, offline and online (Lut 2022,
    chapter 2); its helpers are in :mod:`skdp_anomaly.changepoint`.
PrivateHBOS
    Private histogram-based outlier scores (Goldstein and Dengel 2012) with
    scikit-learn's outlier API: ``score_samples``, ``predict``, ``contamination``.
audit, AuditResult
    Empirical lower bound on ε (Clopper–Pearson).
check_privacy_budget, BudgetedPipeline, PrivacyReport, PrivacyBudgetError, PrivacyLeakError
    Pipeline-aware privacy budget validation: adds up every step's cost (ours
    and diffprivlib's), flags steps that learn without privacy, and prices
    GridSearchCV / RandomizedSearchCV / cross-validation.
PrivateGridSearchCV, PrivateRandomizedSearchCV
    Private model selection: the choice of the best candidate is a DP release
    (Liu and Talwar; Papernot and Steinke), with a stated total.
BudgetAccountant
    A privacy budget (a total ε under one relation) shared by every fit
    given it as ``accountant``; refuses a fit before it releases anything.
PrivacyCost
    The privacy-cost value type; see :mod:`skdp_anomaly.privacy` for mechanisms
    and composition, and :mod:`skdp_anomaly.exceptions` for the warnings and errors.

Every name is imported from its subpackage at its first use, so that
``import skdp_anomaly`` (and the command line's ``--help``) does not load
scikit-learn, scipy and imbalanced-learn until an estimator is needed.
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
_SUBPACKAGES = frozenset({"active_learning", "auditing", "budget", "changepoint", "cli", "demos",
                          "dpoad", "exceptions", "group_search", "imbalanced", "linear_model",
                          "model_selection", "outlier", "over_sampling", "preprocessing",
                          "privacy"})

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
