"""Private nonparametric change-point detection (Lut 2022, chapter 2).

:class:`PrivateChangePointDetector` finds several change points, or none, offline (private binary
segmentation; :func:`binary_segmentation` is the same search, non-private by default) and online
(ONLINEPNCPD, Algorithm 4); :func:`threshold_range` gives Theorem 2.6's online thresholds;
:func:`drift_transform` reduces drift changes to it (§2.5); :func:`pncpd_batch` and
:func:`online_pncpd_batch` draw many private runs at once (Monte Carlo studies, audits).
"""

from ._batch import online_pncpd_batch, pncpd_batch
from ._binseg import binary_segmentation
from ._drift import drift_index_to_original, drift_transform
from ._pncpd import PrivateChangePointDetector
from ._thresholds import ThresholdRange, threshold_range

__all__ = [
    "PrivateChangePointDetector",
    "ThresholdRange",
    "binary_segmentation",
    "drift_index_to_original",
    "drift_transform",
    "online_pncpd_batch",
    "pncpd_batch",
    "threshold_range",
]
