"""Steps or a trend? A sign test inside the segments found.

Binary segmentation cuts a linear trend into steps; after real steps the segments are flat, along a
trend each keeps rising (or falling). When ``series="auto"`` tested levels and every change found is
a level change the same way, the Cox–Stuart counts ``S = Σ_{i < h} sign(y_{i+h} - y_i)``
(``h = ⌊len(y)/2⌋``) of the segments between the cuts (``min_size`` points left out beside each
cut) are released with two-sided geometric noise: replacing one value of ``x`` changes one sign of
one segment, **Δ = 2** under replace-one neighbours (disjoint segments: parallel composition). The
pooled ``z = d Σ S_j / sqrt(Σ V_j + noise variance)`` is read against flat AR(1) segments with the
tests' ``φ⁺`` (exact sign-sum variance for Gaussian values, Sheppard); above :data:`TREND_Z` the
series is a trend and no change is reported (Mann–Kendall's ``Δ = 2(m - 1)`` would cost more than
it buys back).
"""

from __future__ import annotations

import math

import numpy as np

from ._dependence import geometric_variance

#: Replacing one value moves one sign of one segment's count by at most 2.
TREND_SENSITIVITY = 2
#: Share of ε spent on the trend check (``series="auto"`` only; taken from the locations).
TREND_SHARE = 0.15
#: One-sided 5 % point of the pooled ``z``.
TREND_Z = 1.645


def sign_sums(x: np.ndarray, cuts, guard: int) -> tuple[np.ndarray, np.ndarray]:
    """The Cox–Stuart counts of the segments between ``cuts`` (``guard`` points left out on
    each side of every cut) and their ``h``."""
    edges = [0, *cuts, x.size]
    sums, halves = [], []
    for i in range(len(edges) - 1):
        a = edges[i] + (guard if i else 0)
        b = edges[i + 1] - (guard if i < len(edges) - 2 else 0)
        y = x[a : max(a, b)]
        h = y.size // 2
        sums.append(int(np.sign(y[h : 2 * h] - y[:h]).sum()))
        halves.append(h)
    return np.asarray(sums, dtype=np.int64), np.asarray(halves, dtype=np.int64)


def sign_sum_variance(h: int, phi: float) -> float:
    """``Var Σ_{i<h} sign(y_{i+h} - y_i)`` for a stationary Gaussian AR(1) ``y``."""
    if h <= 0:
        return 0.0
    k = np.arange(h, dtype=np.float64)
    cov = 2.0 * phi**k - phi ** np.abs(k - h) - phi ** (k + h)
    corr = np.clip(cov / (2.0 * (1.0 - phi**h)), -1.0, 1.0)
    signs = (2.0 / math.pi) * np.arcsin(corr)
    return float(h + 2.0 * np.sum((h - k[1:]) * signs[1:]))


def is_trend(
    noisy_sums: np.ndarray, halves: np.ndarray, increase: bool, phi: float, mechanism
) -> bool:
    """Whether the noisy counts show a trend in the direction of the change (post-processing of DP
    outputs; ``mechanism`` None: exact counts), read against flat AR(1) segments with ``phi``."""
    noise_var = geometric_variance(mechanism)
    used = halves > 0
    sign = 1.0 if increase else -1.0
    var = np.array([sign_sum_variance(int(h), phi) + noise_var for h in halves[used]])
    noisy_sums = noisy_sums[used]
    return float(sign * noisy_sums.sum()) / math.sqrt(var.sum()) > TREND_Z
