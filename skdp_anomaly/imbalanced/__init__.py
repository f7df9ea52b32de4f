"""Private learning on imbalanced classes: one classifier, public scaling, a public strategy rule.

:class:`DPImbalancedClassifier` scales the features by public bounds
(:class:`~skdp_anomaly.BoundsScaler`, no privacy cost), then thresholds a
private classifier at its own DP mean prediction
(:class:`PredictedPriorThresholdClassifier`)
or over-samples the minority with DPSMOTE first, whichever
:func:`resolve_imbalanced_strategy` picks from the public ε and numbers of
features and rows; one total ε.
"""

from ._classifier import DPImbalancedClassifier
from ._strategy import resolve_imbalanced_strategy
from ._predicted_prior import PredictedPriorThresholdClassifier
from ._threshold import NoisyPriorThresholdClassifier

__all__ = [
    "DPImbalancedClassifier",
    "NoisyPriorThresholdClassifier",
    "PredictedPriorThresholdClassifier",
    "resolve_imbalanced_strategy",
]
