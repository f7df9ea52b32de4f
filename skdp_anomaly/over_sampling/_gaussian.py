"""The Gaussian synopsis of :class:`DPSMOTE`: a DP class mean, rows drawn around it.

A grid histogram has ``m^d`` cells: beyond a handful of features its noise
swamps any minority class of realistic size. The mean of a class needs only
``d`` numbers. Rows are mapped to the unit box ``u = (clip(x) − c) / r`` of
the public bounds (centre ``c``, half-range ``r``), so that one row's
contribution to the class sum has L1 norm at most ``d``: Laplace noise of
scale ``d / ε`` per coordinate makes the sum pure ε-DP under add/remove-one
neighbours, and classes are disjoint, so their sums compose in parallel.
Dividing by the DP (or public) class size and clipping to the box is
post-processing. Synthetic rows are ``clip(μ̂ + spread · N(0, I))`` in the
unit box, mapped back to the bounds: the spread is a public parameter, not
read from the data.
"""

from __future__ import annotations

import numpy as np

from ..privacy import LaplaceMechanism

__all__ = ["BoxScale", "release_means", "sample_gaussian", "unit_sum"]


class BoxScale:
    """The affine map of the public bounds onto the unit box ``[-1, 1]^d``."""

    def __init__(self, lower, upper):
        self.centre = (np.asarray(upper, np.float64) + np.asarray(lower, np.float64)) / 2.0
        self.half_range = (np.asarray(upper, np.float64) - np.asarray(lower, np.float64)) / 2.0
        # a feature whose bounds coincide carries no information: map it to 0
        self._flat = ~(self.half_range > 0)
        self._safe = np.where(self._flat, 1.0, self.half_range)

    def to_unit(self, X) -> np.ndarray:
        U = (np.asarray(X, np.float64) - self.centre) / self._safe
        np.clip(U, -1.0, 1.0, out=U)
        U[..., self._flat] = 0.0
        return U

    def from_unit(self, U) -> np.ndarray:
        return U * self.half_range + self.centre


def unit_sum(X_class, box: BoxScale) -> np.ndarray:
    """Sum of a class's rows in the unit box (private: never stored)."""
    if X_class.shape[0] == 0:
        return np.zeros(box.centre.shape[0])
    return box.to_unit(X_class).sum(axis=0)


def release_means(sums, class_sizes, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """DP class means in the unit box from true unit-box sums.

    Parameters
    ----------
    sums : ndarray of shape (..., d)
        True sums of the rows of each class in the unit box.
    class_sizes : ndarray of shape (...,)
        DP (or public) class sizes, used as divisors (floored at 1).
    epsilon : float
        ε of the sums' release (one class, or disjoint classes in parallel).

    Returns
    -------
    ndarray of shape (..., d), in [-1, 1]
    """
    sums = np.asarray(sums, np.float64)
    d = sums.shape[-1]
    noisy = LaplaceMechanism(epsilon, float(d), neighbours="add_remove").randomise(sums, rng)
    sizes = np.maximum(np.asarray(class_sizes, np.float64), 1.0)[..., None]
    return np.clip(noisy / sizes, -1.0, 1.0)


def sample_gaussian(mean_unit, spread: float, n: int, box: BoxScale,
                    rng: np.random.Generator, dtype=np.float64, out=None) -> np.ndarray:
    """``n`` rows ``clip(μ̂ + spread · N(0, I))`` in the unit box, mapped to the bounds.

    Written into ``out`` (shape (n, d)) when given, so that the resampled set
    is filled in place. The normals are drawn in single precision (half the
    cost; their 24-bit resolution is far below the spread of the rows) and
    scaled, shifted and clipped in the bounds' units, which is the same map.
    """
    d = mean_unit.shape[0]
    if out is None:
        out = np.empty((n, d), dtype=dtype)
    if n == 0:
        return out
    draws = rng.standard_normal((n, d), dtype=np.float32)
    np.multiply(draws, spread * box.half_range, out=out, casting="unsafe")
    out += mean_unit * box.half_range + box.centre
    np.clip(out, box.centre - box.half_range, box.centre + box.half_range, out=out)
    return out


def mean_noise_scale(d: int, epsilon: float, class_size: float) -> float:
    """Laplace scale of each coordinate of the DP mean, in half-ranges: ``d / (ε n)``."""
    return d / (epsilon * max(float(class_size), 1.0))
