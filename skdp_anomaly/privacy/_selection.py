"""Private point selection of Ghassemi, Sarwate and Wright (2016), §3.1.

Both mechanisms output one bit per stream element (ask for its label or
not), so their relation is always "replace one stream element".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._cost import PrivacyCost
from ._exact import bernoulli_logistic
from ._mechanisms import check_epsilon


@dataclass(frozen=True)
class BernoulliSelection:
    """Bernoulli (randomized-response) point selection of Ghassemi et al. (2016), §3.1.

    A point is selected with probability ``1 - p`` when it is informative
    (``c(t) >= τ``) and ``p`` otherwise, with ``p = 1/(1+e^ε)``.

    Privacy: pure ε-DP for the selection bit under replace-one-stream-element
    neighbours, given the current model is public (Lemma 1, p relabelled).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε of one selection, in ``(0, inf)``.

    Examples
    --------
    >>> from skdp_anomaly.privacy import BernoulliSelection
    >>> sel = BernoulliSelection(epsilon=1.0)
    >>> [round(float(v), 4) for v in sel.probability([True, False])]
    [0.7311, 0.2689]
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def cost(self) -> PrivacyCost:
        """Pure ε-DP under replace-one-stream-element neighbours (Lemma 1)."""
        return PrivacyCost.pure(self.epsilon, neighbours="replace")

    def probability(self, informative) -> np.ndarray:
        """Selection probabilities for a boolean array of informativeness.

        Parameters
        ----------
        informative : array-like of bool
            Whether each point lies in the slab.

        Returns
        -------
        ndarray of float64
            ``1 - p`` where informative, ``p`` elsewhere.
        """
        p = float(expit(-self.epsilon))  # 1 / (1 + e^ε)
        return np.where(np.asarray(informative, dtype=bool), 1.0 - p, p)

    def select(self, informative, rng: np.random.Generator) -> np.ndarray:
        """Draw the selection of each point.

        Parameters
        ----------
        informative : array-like of bool
            Whether each point lies in the slab.
        rng : numpy.random.Generator
            Source of the selection uniforms.

        Returns
        -------
        ndarray of bool
            True where the point is selected (its label is asked for).
        """
        informative = np.asarray(informative, dtype=bool)
        # select = informative XOR flip, flip ~ Bernoulli(p) drawn exactly
        return informative ^ bernoulli_logistic(self.epsilon, informative.shape, rng)


@dataclass(frozen=True)
class ExponentialSelection:
    """Exponential point selection of Ghassemi et al. (2016), §3.1, eq. (7).

    ``q = exp(-max(b, d) ε/Δ)`` with ``Δ = M - b``, where ``d`` is the
    distance of the point to the decision boundary, ``b`` the slab half-width
    and ``M`` an upper bound on ``d``. Distances are clipped to ``[0, M]``.

    Privacy: Lemma 2 bounds only the *selected* outcome; the *not selected*
    one has ratio ``(1 - q_min)/(1 - q_max)`` (up to ``log 2`` > ε for small ε).
    :attr:`cost` reports ``max(ε, log((1-q_min)/(1-q_max)))``, the exact pure-DP
    loss of the selection bit under replace-one-stream-element neighbours.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε of eq. (7), in ``(0, inf)`` (the true cost is
        :attr:`cost`, which can exceed it).
    b : float
        Slab half-width, ``0 <= b < M``.
    M : float
        Upper bound on the distance of a point to the decision boundary.

    Examples
    --------
    >>> from skdp_anomaly.privacy import ExponentialSelection
    >>> sel = ExponentialSelection(epsilon=1.0, b=0.2, M=1.0)  # the paper's setting
    >>> round(sel.cost.epsilon, 4)  # q_max = e^-0.25 > 1/2: Lemma 2's condition fails
    1.1711
    """

    epsilon: float
    b: float
    M: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        if not (0 <= self.b < self.M < math.inf):
            raise ValueError(f"need 0 <= b < M < inf, got b={self.b!r}, M={self.M!r}.")

    @property
    def sensitivity(self) -> float:
        """``Δ = (1 - b/M) M = M - b``."""
        return self.M - self.b

    def probability(self, distance) -> np.ndarray:
        """Selection probabilities ``exp(-max(b, d) ε/Δ)``.

        Parameters
        ----------
        distance : array-like of float
            Distance of each point to the decision boundary (clipped to ``[0, M]``).

        Returns
        -------
        ndarray of float64
        """
        d = np.clip(np.asarray(distance, dtype=np.float64), 0.0, self.M)
        return np.exp(-np.maximum(self.b, d) * self.epsilon / self.sensitivity)

    @property
    def cost(self) -> PrivacyCost:
        """The exact cost ``max(ε, log((1 - q_min)/(1 - q_max)))`` (Lemma 2 corrected)."""
        q_max = math.exp(-self.b * self.epsilon / self.sensitivity)
        q_min = math.exp(-self.M * self.epsilon / self.sensitivity)
        if q_max >= 1.0:  # b == 0: "not selected" impossible only at d = 0
            return PrivacyCost.infinite(
                "exponential selection with b=0 is not private", neighbours="replace"
            )
        not_selected = math.log((1.0 - q_min) / (1.0 - q_max))
        return PrivacyCost.pure(max(self.epsilon, not_selected), neighbours="replace")

    def select(self, distance, rng: np.random.Generator) -> np.ndarray:
        """Draw the selection of each point.

        Parameters
        ----------
        distance : array-like of float
            Distance of each point to the decision boundary.
        rng : numpy.random.Generator
            Source of the selection uniforms.

        Returns
        -------
        ndarray of bool
            True where the point is selected (its label is asked for).
        """
        prob = self.probability(distance)
        return rng.random(prob.shape) < prob
