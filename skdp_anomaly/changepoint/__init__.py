"""Private nonparametric change-point detection (Lut 2022, chapter 2).

:class:`PrivateChangePointDetector` finds several change points, or none,
offline (private binary segmentation with the rank statistic of Eq. (2.1),
tests calibrated to a false-alarm level) and runs ONLINEPNCPD (streaming,
Algorithm 4) with a calibrated or given threshold; :func:`binary_segmentation`
is the same offline search without privacy (the reference) or with it;
:func:`threshold_range` gives the admissible online thresholds of Theorem
2.6; :func:`drift_transform` and :func:`drift_index_to_original` reduce drift
changes to it (§2.5). :func:`pncpd_batch` and :func:`online_pncpd_batch` draw
many private runs of the thesis' algorithms at once (Monte Carlo accuracy
studies and privacy audits).
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
