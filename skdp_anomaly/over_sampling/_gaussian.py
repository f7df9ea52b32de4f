"""The Gaussian synopsis of :class:`DPSMOTE`: a DP class mean, rows drawn around it.

A grid histogram has ``m^d`` cells: beyond a handful of features its noise
swamps any minority class of realistic size. The mean of a class needs only
``d`` numbers. Rows are mapped to the unit box ``u = (clip(x) − c) / r`` of
the public bounds (centre ``c``, half-range ``r``), so that one row's
contribution to the class sum has L1 norm at most ``d``: discrete Laplace
noise of scale ``d / ε`` per coordinate, added to the exact fixed-point sums
by the float-safe :class:`~skdp_anomaly.privacy.LaplaceMechanism`, makes the
sum pure ε-DP under add/remove-one neighbours, and classes are disjoint, so
their sums compose in parallel.
Dividing by the DP (or public) class size and clipping to the box is
post-processing. Synthetic rows are ``clip(μ̂ + spread · N(0, I))`` in the
unit box, mapped back to the bounds: the spread is a public parameter, not
read from the data.

Two choices make the in-memory and the Dask paths give the same rows bit for
bit, however the data are chunked:

* the class sums are exact: each unit-box coordinate is rounded to a multiple
  of ``2^-32`` and summed as an int64 (exact and associative, so partial sums
  over any blocks add up to the same integer); a row's rounded contribution
  still lies in ``[-1, 1]^d``, so the sensitivity is unchanged, and the noise
  is added to those integers (the release is a multiple of ``2^-32`` whatever
  the data, so its low-order bits reveal nothing);
* synthetic rows come in chunks of ``SYNTHETIC_CHUNK`` rows, each drawn from a
  generator of its own, spawned in order from the sampling stream.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..privacy import LaplaceMechanism

from .._jit import lazy_njit

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

__all__ = ["SYNTHETIC_CHUNK", "BoxScale", "GaussianDraw", "chunk_seeds", "class_fixed_sums",
           "fill_gaussian", "release_means", "sum_mechanism", "unit_sum", "write_gaussian"]

#: rows per independently seeded chunk of synthetic rows
SYNTHETIC_CHUNK = 1 << 16
# unit-box coordinates are summed as integers in units of 2^-_FIXED_BITS: exact for
# up to 2^(62 - 32) ≈ 10^9 rows
_FIXED_BITS = 32
_FIXED_SCALE = float(1 << _FIXED_BITS)
MAX_EXACT_SUM_ROWS = 1 << (62 - _FIXED_BITS)


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


def unit_fixed_sum(X_class, box: BoxScale) -> np.ndarray:
    """Exact int64 sum of a block's rows in the unit box, in units of ``2^-32``.

    Private (never stored). Partial sums of any blocks of the same rows add up
    to the same integers, which is what lets the Dask path match this one.
    """
    if X_class.shape[0] == 0:
        return np.zeros(box.centre.shape[0], np.int64)
    U = box.to_unit(X_class)
    U *= _FIXED_SCALE
    np.rint(U, out=U)
    return U.astype(np.int64).sum(axis=0)


@njit(cache=True, nogil=True)
def _class_fixed_sums(X, codes, wanted, centre, safe, flat, sums):  # pragma: no cover
    # one pass over the rows: unit_fixed_sum of every wanted class at once (the
    # same IEEE operations, so the same integers); returns the non-finite values met
    bad = 0
    for i in range(X.shape[0]):
        c = codes[i]
        if not wanted[c]:
            continue
        for j in range(X.shape[1]):
            x = X[i, j]
            if not np.isfinite(x):
                bad += 1
                continue
            if flat[j]:
                continue
            u = (x - centre[j]) / safe[j]
            if u < -1.0:
                u = -1.0
            elif u > 1.0:
                u = 1.0
            sums[c, j] += np.int64(np.rint(u * _FIXED_SCALE))
    return bad


def class_fixed_sums(X, codes, n_classes: int, wanted, box: BoxScale):
    """:func:`unit_fixed_sum` of each wanted class in one pass, without gathering its rows.

    Returns ``(sums, n_non_finite)``: int64 sums of shape (n_classes, d), zero
    for the classes not wanted, and the number of non-finite values met in
    the wanted classes' rows. Private (never stored).
    """
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    sums = np.zeros((n_classes, X.shape[1]), np.int64)
    wanted_mask = np.zeros(n_classes, np.bool_)
    wanted_mask[np.asarray(wanted, np.int64)] = True
    bad = _class_fixed_sums(X, np.ascontiguousarray(codes, np.int64), wanted_mask,
                            box.centre, box._safe, box._flat, sums)
    return sums, int(bad)


def check_exact_sum_rows(n_rows: int) -> None:
    """Refuse data with more rows than the fixed-point sums hold exactly.

    Checked on the number of rows the caller passed (not on a class size, which
    an error message must not reveal).
    """
    if n_rows >= MAX_EXACT_SUM_ROWS:
        raise ValueError(f"DPSMOTE's Gaussian synopsis sums at most {MAX_EXACT_SUM_ROWS} rows "
                         f"exactly; X has {n_rows}. Resample a part of the data at a time.")


def fixed_to_float(fixed_sum) -> np.ndarray:
    """The float value of :func:`unit_fixed_sum`'s integers."""
    return np.asarray(fixed_sum, np.int64).astype(np.float64) / _FIXED_SCALE


def unit_sum(X_class, box: BoxScale) -> np.ndarray:
    """Sum of a class's rows in the unit box (private: never stored)."""
    return fixed_to_float(unit_fixed_sum(X_class, box))


def release_means(fixed_sums, class_sizes, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """DP class means in the unit box from the exact fixed-point class sums.

    Parameters
    ----------
    fixed_sums : ndarray of int64, shape (..., d)
        True sums of the rows of each class in the unit box, in units of
        ``2^-32`` (:func:`unit_fixed_sum`).
    class_sizes : ndarray of shape (...,)
        DP (or public) class sizes, used as divisors (floored at 1).
    epsilon : float
        ε of the sums' release (one class, or disjoint classes in parallel).

    Returns
    -------
    ndarray of shape (..., d), in [-1, 1]
    """
    fixed_sums = np.asarray(fixed_sums, np.int64)
    d = fixed_sums.shape[-1]
    mech = sum_mechanism(epsilon, d)
    noisy = fixed_to_float(mech.randomise_steps(fixed_sums, rng))
    sizes = np.maximum(np.asarray(class_sizes, np.float64), 1.0)[..., None]
    return np.clip(noisy / sizes, -1.0, 1.0)


def sum_mechanism(epsilon: float, d: int) -> LaplaceMechanism:
    """The class sums' mechanism: L1 sensitivity ``d`` on the grid ``2^-32`` of the sums."""
    return LaplaceMechanism(epsilon, float(d), neighbours="add_remove", coordinates=d,
                            granularity=1.0 / _FIXED_SCALE)


@njit(cache=True, nogil=True)
def _fill(rng, mean, scale, lower, upper, out):  # pragma: no cover - compiled
    # one pass: draw, scale, shift and clip each coordinate straight into the
    # output (numba's Generator.standard_normal is numpy's algorithm on the same
    # bit stream, so the values equal rng.standard_normal's)
    n, d = out.shape
    for i in range(n):
        for j in range(d):
            v = mean[j] + scale[j] * rng.standard_normal()
            if v < lower[j]:
                v = lower[j]
            elif v > upper[j]:
                v = upper[j]
            out[i, j] = v


def chunk_seeds(rng: np.random.Generator, n: int) -> list:
    """One :class:`numpy.random.SeedSequence` per ``SYNTHETIC_CHUNK`` rows of ``n``."""
    return rng.bit_generator.seed_seq.spawn(-(-int(n) // SYNTHETIC_CHUNK))


def fill_gaussian(mean_unit, spread: float, box: BoxScale, seeds, out) -> np.ndarray:
    """Fill ``out`` (shape (k, d)) with rows ``clip(μ̂ + spread · N(0, I))`` mapped to the bounds.

    Row ``i`` of ``out`` is row ``i % SYNTHETIC_CHUNK`` of the chunk drawn from
    ``seeds[i // SYNTHETIC_CHUNK]``, so any slice of the synthetic rows can be
    drawn on its own (the Dask path draws its blocks on the workers).
    """
    mean = np.ascontiguousarray(box.from_unit(np.asarray(mean_unit, np.float64)))
    scale = np.ascontiguousarray(float(spread) * box.half_range)
    lower = np.ascontiguousarray(box.centre - box.half_range)
    upper = np.ascontiguousarray(box.centre + box.half_range)
    for c, seed in enumerate(seeds):
        part = out[c * SYNTHETIC_CHUNK:(c + 1) * SYNTHETIC_CHUNK]
        if part.shape[0]:
            _fill(np.random.default_rng(seed), mean, scale, lower, upper, part)
    return out


class GaussianDraw(NamedTuple):
    """Phase 2 of one over-sampled class: what its synthetic rows are drawn from.

    Post-processing of the DP mean; the in-memory and the Dask writers both
    draw from it (:func:`fill_gaussian`), so they give the same rows.
    """

    label: object
    """The class label of the rows."""
    mean: np.ndarray
    """The DP class mean in the unit box."""
    seeds: list
    """One seed per ``SYNTHETIC_CHUNK`` rows (:func:`chunk_seeds`)."""
    rows: int
    """How many rows."""


def write_gaussian(X, y, plan, spread: float, box: BoxScale):
    """The resampled set, filled in place: the original rows, then each draw's rows."""
    n = X.shape[0]
    total = n + sum(draw.rows for draw in plan)
    X_res = np.empty((total, X.shape[1]), dtype=X.dtype)
    y_res = np.empty(total, dtype=y.dtype)
    X_res[:n], y_res[:n] = X, y
    start = n
    for draw in plan:
        fill_gaussian(draw.mean, spread, box, draw.seeds, X_res[start:start + draw.rows])
        y_res[start:start + draw.rows] = draw.label
        start += draw.rows
    return X_res, y_res


def mean_noise_scale(d: int, epsilon: float, class_size: float) -> float:
    """Noise scale of each coordinate of the DP mean, in half-ranges: ``d / (ε n)``.

    The nominal scale (the grid's rounding adds a relative ``2^-32``).
    """
    return d / (epsilon * max(float(class_size), 1.0))
