"""Private learning on imbalanced classes: DPSMOTE or a noisy-prior threshold, chosen from ε and d.

:func:`dp_imbalanced_pipeline` builds the recommended private learner for a
total budget: DPSMOTE followed by a diffprivlib classifier, or the classifier
thresholded at a DP class prior (:class:`NoisyPriorThresholdClassifier`),
whichever :func:`resolve_imbalanced_strategy` picks from the public ε and
number of features.
"""

from ._pipeline import (
    PIPELINE_SPLIT,
    dead_zone_free_C,
    dp_imbalanced_pipeline,
    resolve_imbalanced_strategy,
)
from ._threshold import NoisyPriorThresholdClassifier

__all__ = ["NoisyPriorThresholdClassifier", "PIPELINE_SPLIT", "dead_zone_free_C",
           "dp_imbalanced_pipeline", "resolve_imbalanced_strategy"]
