"""Private learning on imbalanced classes: the recommended pipeline and its baselines.

:func:`dp_imbalanced_pipeline` builds the recommended DPSMOTE + diffprivlib
classifier pipeline for a total budget; :class:`NoisyPriorThresholdClassifier`
is the cheap baseline it is measured against (a DP class prior as the decision
threshold).
"""

from ._pipeline import PIPELINE_SPLIT, dead_zone_free_C, dp_imbalanced_pipeline
from ._threshold import NoisyPriorThresholdClassifier

__all__ = ["NoisyPriorThresholdClassifier", "PIPELINE_SPLIT", "dead_zone_free_C",
           "dp_imbalanced_pipeline"]
