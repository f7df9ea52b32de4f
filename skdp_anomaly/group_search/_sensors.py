"""Sensors: what answers a group query of :class:`NoisyGroupSearch` (Bittner et al., §4).

A sensor holds the scores (or is the hardware or service that measures them) and
answers a boolean mask of the items of the queried half ``Q``. The protocol:

* ``response``: ``"maxima"`` — ``query`` returns ``(Y, Ȳ)``, noisy maxima of ``Q`` and of the rest
  (eq. 9); ``"bit"`` — the randomized-response bit ``1(i* ∈ Q) ⊕ Bernoulli(p)`` (eq. 5);
* ``epsilon``: the anomaly-restricted ε of one answer, which the sensor
  guarantees and the searcher charges;
* ``query(mask) -> (float, float) | bool``.

:class:`MaxSensor` and :class:`RandomizedResponseSensor` work over numpy or
dask scores (a blockwise reduction; the noise is added on the client).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from .._data._dask import is_dask_collection
from .._data.vectors import blockwise_statistic
from ..privacy import LaplaceMechanism, RandomizedResponse


class MaxSensor:
    """Noisy maxima of the two halves, ``max(x_Q) + Lap(t_ℓ/ε)`` and ``max(x_Q̄) + Lap(t_ℓ/ε)``.

    Anomaly-restricted ε-DP per answer (Lemma 1, Proposition 2): a group's maximum has sensitivity
    ``t_ℓ`` and the changed record is in one half (parallel composition). The noise is the
    float-safe :class:`~skdp_anomaly.privacy.LaplaceMechanism`: ``max + rng.laplace`` in floating
    point would reveal the maximum through its low-order bits.

    Parameters
    ----------
    scores : ndarray or dask array of shape (n,)
        Non-negative anomaly scores.
    low : float
        ``t_ℓ``, the bound of the non-anomalous scores and the sensitivity.
    epsilon : float
        The anomaly-restricted ε of one answer.
    rng : numpy.random.Generator
        The noise stream (nothing else draws from it).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.group_search import MaxSensor
    >>> scores = np.array([0.2, 0.9, 3.0, 0.4])         # item 2 is the anomaly
    >>> sensor = MaxSensor(scores, low=1.0, epsilon=2.0, rng=np.random.default_rng(0))
    >>> inside, outside = sensor.query(np.array([False, False, True, True]))
    >>> bool(inside > outside)
    True
    """

    response = "maxima"

    def __init__(self, scores, low: float, epsilon: float, rng: np.random.Generator):
        self._scores = _as_scores(scores)
        self._mech = LaplaceMechanism(epsilon, low, neighbours="replace")
        self.epsilon = float(epsilon)
        self._rng = rng

    def query(self, mask):
        """Answer one group query with the two noisy maxima.

        Parameters
        ----------
        mask : ndarray of bool, shape (n,)
            True for the items of the queried half ``Q`` (a dask array chunked
            like the scores when they are a dask array).

        Returns
        -------
        (float, float)
            ``(Y, Ȳ)``: the noisy maxima of ``Q`` and of the rest.
        """
        maxima = np.array(_statistic(_half_maxima, 2, self._scores, mask))
        # the float-safe grid: a noisy maximum's low-order bits must not reveal it
        inside, outside = self._mech.randomise(maxima, self._rng)
        return float(inside), float(outside)


class RandomizedResponseSensor:
    """The randomized-response bit ``1(i* ∈ Q) ⊕ Bernoulli(1/(1+e^ε))`` (eq. 5).

    ``i* ∈ Q`` is ``max(x_Q) >= t_h``, which depends on the anomaly only (loss 0
    under anomaly-restricted neighbours); Proposition 1's ``ε`` is charged, an upper bound.

    Parameters
    ----------
    scores : ndarray or dask array of shape (n,)
        Non-negative anomaly scores.
    high : float
        ``t_h``: an item whose score reaches it is the anomaly.
    epsilon : float
        ε of randomized response (flip probability ``1/(1+e^ε)``).
    rng : numpy.random.Generator
        The flip stream (nothing else draws from it).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.group_search import RandomizedResponseSensor
    >>> scores = np.array([0.2, 0.9, 3.0, 0.4])
    >>> sensor = RandomizedResponseSensor(scores, high=2.5, epsilon=5.0,
    ...                                   rng=np.random.default_rng(0))
    >>> sensor.query(np.array([False, False, True, True]))  # flipped w.p. 0.007
    True
    """

    response = "bit"

    def __init__(self, scores, high: float, epsilon: float, rng: np.random.Generator):
        self._scores = _as_scores(scores)
        self._high = float(high)
        self._mech = RandomizedResponse(epsilon)
        self.epsilon = float(epsilon)
        self._rng = rng

    def query(self, mask):
        """Answer one group query with a randomized-response bit.

        Parameters
        ----------
        mask : ndarray of bool, shape (n,)
            True for the items of the queried half ``Q`` (a dask array chunked
            like the scores when they are a dask array).

        Returns
        -------
        bool
            ``1(i* ∈ Q)``, flipped with probability ``1/(1+e^ε)``.
        """
        (inside,) = _statistic(_inside_max, 1, self._scores, mask)
        found = bool(inside >= self._high)
        return bool(self._mech.randomise(np.array([found]), self._rng)[0])


def _as_scores(scores):
    return scores if is_dask_collection(scores) else np.asarray(scores, dtype=np.float64)


def _half_maxima(scores, mask) -> tuple[float, float]:
    # scores are >= 0, so x·mask keeps the half's scores and zeros elsewhere, and
    # x - x·mask the rest's: plain passes, several times faster than masked reductions
    kept = scores * mask
    return float(np.max(kept, initial=0.0)), float(np.max(scores - kept, initial=0.0))


def _inside_max(scores, mask) -> tuple[float]:
    return (float(np.max(scores * mask, initial=0.0)),)


def _statistic(func, width: int, scores, mask) -> tuple:
    """The true statistic ``func(scores, mask)``, over one array or, on a dask array,
    block by block and reduced by ``max`` on the workers (all statistics are maxima)."""
    if is_dask_collection(scores):
        return blockwise_statistic(func, width, scores, mask)
    return func(scores, mask)


def binarized_error(epsilon: float, low: float, high: float) -> float:
    """``p`` of eq. (24): an upper bound on ``P(Y <= Ȳ | i* ∈ Q)`` (Lemma 2)."""
    r = (high - low) / low
    return (0.5 + r * epsilon / 4.0) * math.exp(-epsilon * r)


def flip_probability(epsilon: float) -> float:
    """``p = 1/(1+e^ε)`` of randomized response (no overflow)."""
    return float(expit(-epsilon))
