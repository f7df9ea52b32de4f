"""Differentially private over-sampling for imbalanced learning (Lut 2022, chapter 3).

DPSMOTE
    DP-SMOTE: synthetic minority rows drawn from a DP synopsis of each class, its
    noisy mean (default) or a noisy grid histogram with SMOTE between cells
    (Algorithm 6).
DPSMOTENoiseWarning
    Warned when noise dominates the released synopsis (built from DP outputs only).
SparseHistogram
    The released cells of a sparse noisy histogram (``DPSMOTE.noisy_counts_``).
"""

from ._dpsmote import DPSMOTE

__all__ = ["DPSMOTE"]
