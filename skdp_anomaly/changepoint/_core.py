"""PNCPD (Lut 2022, Algorithm 3) as plain functions shared by the estimator, its online mode
and the batch helpers.

Sensitivity under "replace one element": replacing ``t <= k`` moves ``S(k)`` by at most
``n - k``, else by at most ``k``, so ``V(k)`` moves by at most ``Δ_k = 1 / min(k, n - k)``
and over the candidates ``Δ = 1 / min(k_lo, n - k_hi) = 1 / ⌈γn⌉ <= 1 / (γn)`` (proof of
Theorem 2.3). Report-noisy-max with Laplace scale ``2Δ/ε`` is ε-DP. ``Δ`` comes from the
integer range, so float rounding of ``γn`` cannot make it too small.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import naming
from ..privacy import ReportNoisyMax
from ._statistic import mann_whitney_counts

DIRECTIONS = ("both", "increase", "decrease")
_TOL = 1e-9  # for γn a rounding error away from an integer (0.1 * 30)


def candidate_range(n: int, gamma: float) -> tuple[int, int]:
    """``(k_lo, k_hi) = (⌈γn⌉, ⌊(1-γ)n⌋)``, clipped to ``[1, n - 1]``; a ValueError naming
    ``gamma`` and the series length when the range is empty.

    Examples
    --------
    >>> from skdp_anomaly.changepoint._core import candidate_range
    >>> candidate_range(200, 0.1)
    (20, 180)
    >>> candidate_range(30, 0.1)
    (3, 27)
    """
    k_lo = max(1, math.ceil(gamma * n - _TOL))
    k_hi = min(n - 1, math.floor((1 - gamma) * n + _TOL))
    if n < 2 or k_lo > k_hi:
        raise naming(
            ValueError,
            f"the series has {n} samples: with `gamma={gamma!r}` the candidate range "
            "{ceil(gamma*n), ..., floor((1-gamma)*n)} of change points is empty; "
            "use a longer series or a smaller `gamma`.",
        )
    return k_lo, k_hi


def pncpd_sensitivity(n: int, gamma: float) -> float:
    """Global sensitivity ``1 / min(k_lo, n - k_hi)`` of every candidate ``V(k)``."""
    k_lo, k_hi = candidate_range(n, gamma)
    return 1.0 / min(k_lo, n - k_hi)


def pncpd_mechanism(n: int, gamma: float, epsilon: float) -> ReportNoisyMax:
    """Algorithm 3's report-noisy-max on ``n`` samples (finite ``epsilon``); its ``cost`` is
    ε-DP under replace-one neighbours, the relation of ``Δ``."""
    return ReportNoisyMax(epsilon, pncpd_sensitivity(n, gamma), neighbours="replace")


def pncpd_noise_scale(n: int, gamma: float, epsilon: float) -> float:
    """Laplace scale ``2Δ/ε`` of Algorithm 3 (0 for ``ε = inf``)."""
    if math.isinf(epsilon):
        return 0.0
    return pncpd_mechanism(n, gamma, epsilon).scale


def pncpd_scores(x, gamma: float, direction: str):
    """Candidate splits ``ks`` (m,) and the scores report-noisy-max maximises.

    ``"decrease"``: ``V(k)``; ``"increase"``: ``1 - V(k)``; ``"both"``: the ``2m`` scores
    ``[V(k), 1 - V(k)]`` in one selection, each of sensitivity ``Δ``, so the same ε. Scores
    are (..., m) or (..., 2m) for a batch of rows.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    k_lo, k_hi = candidate_range(n, gamma)
    ks = np.arange(k_lo, k_hi + 1)
    v = mann_whitney_counts(x)[..., ks] / (ks * (n - ks)).astype(np.float64)
    if direction == "decrease":
        return ks, v
    if direction == "increase":
        return ks, 1.0 - v
    return ks, np.concatenate([v, 1.0 - v], axis=-1)


def pncpd_decode(index, ks: np.ndarray, direction: str):
    """Map selected score indices back to ``(k, direction_)`` (arrays for array input)."""
    index, m = np.asarray(index), ks.size
    k = ks[index % m]
    if direction == "both":
        names = np.where(index >= m, "increase", "decrease")
    else:
        names = np.full(index.shape, direction)
    if index.ndim == 0:
        return int(k), str(names)
    return k.astype(np.int64), names


def centre_queries(u, direction: str):
    """Algorithm 4's queries from the centre statistic ``U``: ``U`` (``"decrease"``),
    ``1 - U`` (``"increase"``) or ``max(U, 1 - U)`` (``"both"``)."""
    return {"decrease": u, "increase": 1.0 - u, "both": np.maximum(u, 1.0 - u)}[direction]


def pncpd_select(scores: np.ndarray, n: int, gamma: float, epsilon: float, rng) -> np.ndarray | int:
    """Report-noisy-max over the last axis (exact argmax for ``ε = inf``)."""
    if math.isinf(epsilon):
        idx = np.argmax(scores, axis=-1)
        return int(idx) if np.ndim(idx) == 0 else idx
    return pncpd_mechanism(n, gamma, epsilon).select(scores, rng, axis=-1)


def pncpd(x, epsilon: float, gamma: float, direction: str, rng) -> tuple[int, str]:
    """One run of Algorithm 3 on the series ``x``: ``(k̃, direction_)``."""
    n = np.shape(x)[-1]
    ks, scores = pncpd_scores(x, gamma, direction)
    return pncpd_decode(pncpd_select(scores, n, gamma, epsilon, rng), ks, direction)
