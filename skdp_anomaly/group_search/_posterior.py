"""The in-memory belief of :class:`NoisyGroupSearch` and the split rules shared with
Dask (pure numpy, so both sides import it without importing each other)."""

from __future__ import annotations

import math

import numpy as np

# a query splits the items by fresh uniforms in buckets of about this many items
BUCKET = 8
#: the error for scores outside the data model, in memory and on dask
INVALID_SCORES = "anomaly scores must be finite and >= 0 (Bittner, Sarwate and Wright, eq. 1)."


class Posterior:
    """The belief over ``n`` items in memory: ``f``, and the split stream."""

    def __init__(self, n: int, rng: np.random.Generator):
        self.f = np.full(n, 1.0 / n)
        self._rng = rng
        self.q_mass = None  # the mass of the last split's Q, before its update

    def max(self) -> float:
        return float(self.f.max())

    def split(self):
        mask = split(self.f, self._rng)
        self.q_mass = float(self.f @ mask)
        return mask

    def update(self, mask, log_ratio: float) -> None:
        # scale the losing side down by e^{-|log_ratio|} (never up: no overflow)
        shrink = math.exp(-abs(log_ratio))
        side = mask if log_ratio < 0 else ~mask
        self.f *= 1.0 - (1.0 - shrink) * side
        self.f /= self.f.sum()


def split(f, rng):
    """Eq. (10) in O(n): the items in a uniformly random order (a uniform bucket per
    item, uniform keys inside the crossing bucket: no sort of all n items), then the
    longest prefix holding less than half of the mass (one heavy item alone)."""
    n = f.shape[0]
    n_buckets = max(1, n // BUCKET)
    bucket = rng.integers(0, n_buckets, size=n)
    mass = np.bincount(bucket, weights=f, minlength=n_buckets)
    through = np.cumsum(mass)  # mass of the buckets up to and including each one
    c = min(int(np.searchsorted(through, 0.5, side="left")), n_buckets - 1)
    mask = bucket < c
    inside = np.flatnonzero(bucket == c)
    inside = inside[np.argsort(rng.random(inside.size), kind="stable")]
    if inside.size:
        mask[inside[: prefix_length(through[c] - mass[c], f[inside], mask.any())]] = True
    elif not mask.any():  # rounding left the crossing bucket empty: the first item alone
        mask[int(np.flatnonzero(bucket == bucket.min())[0])] = True
    return mask


def prefix_length(before: float, ordered, earlier: bool) -> int:
    """How many items of the crossing bucket, in key order, join ``Q``: the longest
    prefix (after the earlier buckets' mass ``before``) holding less than half of the
    mass, or the first item alone when it holds half or more and no earlier bucket
    has an item. Shared by the in-memory and the dask split."""
    k = int(np.count_nonzero(before + np.cumsum(ordered) < 0.5))
    if k == 0 and not earlier and len(ordered):
        k = 1
    return k


def largest(f, k):
    """Indices of the ``k`` largest entries, largest first, in O(n) (no full sort)."""
    k = min(int(k), f.shape[0])
    top = np.argpartition(f, f.shape[0] - k)[f.shape[0] - k :]
    return top[np.argsort(-f[top], kind="stable")]
