"""Differentially private over-sampling for imbalanced learning (thesis 004, chapter 3).

DPSMOTE
    DP-SMOTE (Algorithm 6): SMOTE on a noisy grid histogram of each minority class.
DPSMOTENoiseWarning
    Warned when noise dominates the released histogram (built from DP outputs only).
SparseHistogram
    The released cells of a sparse noisy histogram (``DPSMOTE.noisy_counts_``).
"""

from ._dpsmote import DPSMOTE, DPSMOTENoiseWarning
from ._grid import SparseHistogram

__all__ = [
    "DPSMOTE",
    "DPSMOTENoiseWarning",
    "SparseHistogram",
]
