"""Differentially private over-sampling for imbalanced learning (Lut 2022, chapter 3).

:class:`DPSMOTE` draws synthetic minority rows from a DP synopsis of each class: its
noisy mean (default) or a noisy grid histogram with SMOTE between cells (Algorithm 6).
"""

from ._dpsmote import DPSMOTE

__all__ = ["DPSMOTE"]
