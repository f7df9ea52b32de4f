"""Vectorised differential-privacy mechanisms.

Each mechanism is a small frozen object that carries its privacy parameters,
exposes its noise ``scale`` and its :class:`PrivacyCost` side by side (the
"privacy map" next to the mechanism), and randomises whole numpy arrays at
once with a caller-supplied :class:`numpy.random.Generator`.

Sensitivities are the caller's responsibility: the caller names the
neighbouring relation under which ``sensitivity`` is the query's global
sensitivity (``neighbours="add_remove"`` or ``"replace"``), and ``cost``
states the guarantee under that relation. A mechanism built without
``neighbours`` still draws noise, but asking for its ``cost`` raises: a cost
is never stated without its relation. Randomized response and the two
selection mechanisms of seed 003 protect one bit or one stream element of a
fixed-length input, so their relation is always "replace".

diffprivlib's mechanisms are scalar (one Python call per value, ~6 µs each);
these draw one array of noise per call instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy.special import expit

from ._cost import PrivacyCost, check_neighbours

__all__ = [
    "GeometricMechanism",
    "LaplaceMechanism",
    "RandomizedResponse",
    "ReportNoisyMax",
    "AboveThreshold",
    "VectorLaplaceMechanism",
    "BernoulliSelection",
    "ExponentialSelection",
    "check_epsilon",
    "MAX_GEOMETRIC_EPSILON",
]

#: Largest ``epsilon / sensitivity`` :class:`GeometricMechanism` accepts. The
#: noise is drawn through ``p = 1 - exp(-ε/Δ)``; ``exp(-30) ≈ 9.4e-14`` is still
#: three orders of magnitude above double precision (``2**-53 ≈ 1.1e-16``), so
#: the probabilities of non-zero noise are computed to within 0.2 %. Beyond
#: ε/Δ ≈ 36.7, ``p`` rounds to exactly 1 and the noise vanishes: the count is
#: released exactly, which is not ε-DP for any ε.
MAX_GEOMETRIC_EPSILON = 30.0


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Validate a privacy parameter: a real number in ``(0, inf)``.

    Parameters
    ----------
    epsilon : float
        The value to check.
    name : str, default="epsilon"
        The parameter's name, for the error message.

    Returns
    -------
    float
        ``epsilon`` as a Python float.

    Raises
    ------
    TypeError, ValueError
        Naming ``name`` and the allowed range.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(f"{name} must be a float in the range (0, inf), got {epsilon!r}.")
    epsilon = float(epsilon)
    if not (0 < epsilon < math.inf):
        raise ValueError(f"{name} must be a float in the range (0, inf), got {epsilon!r}.")
    return epsilon


def _check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, Real):
        raise TypeError(f"{name} must be a positive real number, got {sensitivity!r}.")
    sensitivity = float(sensitivity)
    if not (0 < sensitivity < math.inf):
        raise ValueError(f"{name} must be in the range (0, inf), got {sensitivity!r}.")
    return sensitivity


def _cost_under(mechanism, neighbours) -> PrivacyCost:
    if neighbours is None:
        raise ValueError(
            f"{type(mechanism).__name__}.cost needs the neighbouring relation under which "
            "`sensitivity` is the global sensitivity: construct it with "
            "neighbours='add_remove' or neighbours='replace'."
        )
    return PrivacyCost.pure(mechanism.epsilon, neighbours=neighbours)


@dataclass(frozen=True)
class _Mechanism:
    epsilon: float
    sensitivity: float = 1.0
    neighbours: str | None = field(default=None, kw_only=True)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "sensitivity", _check_sensitivity(self.sensitivity))
        if self.neighbours is not None:
            check_neighbours(self.neighbours)

    @property
    def cost(self) -> PrivacyCost:
        """Pure ε-DP under ``neighbours`` (where ``sensitivity`` is global).

        ``sensitivity`` must be the query's global sensitivity under that
        relation; raises ``ValueError`` when ``neighbours`` is None.
        """
        return _cost_under(self, self.neighbours)


@dataclass(frozen=True)
class GeometricMechanism(_Mechanism):
    """Two-sided geometric noise for integer-valued queries (counts, histograms).

    Adds Z with ``P(Z = k) ∝ exp(-ε |k| / Δ)``, drawn exactly as the
    difference of two i.i.d. geometric variables, so the output is an integer
    and has no floating-point holes.

    Privacy: pure ε-DP for an integer query whose L1 sensitivity is ``Δ``
    (``sensitivity``) under the caller's neighbouring relation, e.g. a
    histogram under add/remove-one-record neighbours (Δ = 1).

    ``epsilon / sensitivity`` must not exceed :data:`MAX_GEOMETRIC_EPSILON`
    (30): beyond about 36.7 the noise rounds to exactly zero in double
    precision, so larger values are refused rather than silently releasing
    exact counts.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        L1 sensitivity Δ of the integer query.
    neighbours : {"add_remove", "replace"} or None, default=None
        The neighbouring relation under which ``sensitivity`` holds; ``cost``
        is stated under it (and raises while it is None).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import GeometricMechanism
    >>> mech = GeometricMechanism(epsilon=1.0)
    >>> noisy = mech.randomise(np.array([3, 0, 7]), np.random.default_rng(0))
    >>> noisy.dtype.kind
    'i'
    """

    def __post_init__(self):
        super().__post_init__()
        if self.epsilon / self.sensitivity > MAX_GEOMETRIC_EPSILON:
            raise ValueError(
                f"GeometricMechanism: epsilon/sensitivity = {self.epsilon / self.sensitivity:.4g} "
                f"exceeds {MAX_GEOMETRIC_EPSILON:g}, beyond which two-sided geometric noise "
                "rounds to zero in double precision and the exact count would be released; "
                f"use epsilon <= {MAX_GEOMETRIC_EPSILON:g} * sensitivity."
            )

    @property
    def alpha(self) -> float:
        """Decay ``exp(-ε/Δ)`` of the two-sided geometric distribution."""
        return math.exp(-self.epsilon / self.sensitivity)

    def noise(self, size, rng: np.random.Generator) -> np.ndarray:
        """Draw two-sided geometric noise of shape ``size`` (int64).

        Parameters
        ----------
        size : int or tuple of int
            Shape of the noise array.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of int64
            The noise.
        """
        p = -math.expm1(-self.epsilon / self.sensitivity)  # 1 - alpha, accurate for small ε
        return rng.geometric(p, size=size).astype(np.int64) - rng.geometric(p, size=size)

    def randomise(self, counts, rng: np.random.Generator) -> np.ndarray:
        """Return ``counts`` plus noise; ``counts`` must be integers.

        Parameters
        ----------
        counts : array-like of int
            The true counts.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of int64
            The noisy counts, same shape.
        """
        counts = np.asarray(counts)
        if counts.dtype.kind not in "iub":
            raise TypeError("GeometricMechanism randomises integer counts only.")
        return counts.astype(np.int64) + self.noise(counts.shape, rng)


@dataclass(frozen=True)
class LaplaceMechanism(_Mechanism):
    """Laplace noise of scale ``Δ/ε`` for real-valued queries.

    Privacy: pure ε-DP for a query of L1 sensitivity ``Δ`` (``sensitivity``).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        L1 sensitivity Δ of the real-valued query.
    neighbours : {"add_remove", "replace"} or None, default=None
        The neighbouring relation under which ``sensitivity`` holds; ``cost``
        is stated under it (and raises while it is None).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import LaplaceMechanism
    >>> LaplaceMechanism(epsilon=0.5, sensitivity=2.0).scale
    4.0
    """

    @property
    def scale(self) -> float:
        """Laplace scale ``b = Δ/ε``."""
        return self.sensitivity / self.epsilon

    def noise(self, size, rng: np.random.Generator) -> np.ndarray:
        """Draw Laplace(0, Δ/ε) noise of shape ``size``.

        Parameters
        ----------
        size : int or tuple of int
            Shape of the noise array.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of float64
            The noise.
        """
        return rng.laplace(0.0, self.scale, size=size)

    def randomise(self, values, rng: np.random.Generator) -> np.ndarray:
        """Return ``values`` plus Laplace noise (float64).

        Parameters
        ----------
        values : array-like of float
            The true values.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of float64
            The noisy values, same shape.
        """
        values = np.asarray(values, dtype=np.float64)
        return values + self.noise(values.shape, rng)


@dataclass(frozen=True)
class RandomizedResponse:
    """Binary randomized response: flip each bit with probability ``1/(1+e^ε)``.

    Privacy: pure ε-DP for each bit under "replace the bit" neighbours (the
    bit belongs to one individual), since ``P(keep)/P(flip) = e^ε``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.

    Examples
    --------
    >>> from skdp_anomaly.privacy import RandomizedResponse
    >>> round(RandomizedResponse(epsilon=1.0).flip_probability, 4)
    0.2689
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def flip_probability(self) -> float:
        """``1 / (1 + e^ε)``."""
        return float(expit(-self.epsilon))  # 1 / (1 + e^ε), no overflow at large ε

    @property
    def cost(self) -> PrivacyCost:
        """Pure ε-DP under replace-one neighbours (one bit per individual)."""
        return PrivacyCost.pure(self.epsilon, neighbours="replace")

    def randomise(self, bits, rng: np.random.Generator) -> np.ndarray:
        """Return the bits (bool array), each flipped independently.

        Parameters
        ----------
        bits : array-like of bool
            The true bits, one per individual.
        rng : numpy.random.Generator
            Source of the flips.

        Returns
        -------
        ndarray of bool
            The randomised bits, same shape.
        """
        bits = np.asarray(bits).astype(bool)
        return bits ^ (rng.random(bits.shape) < self.flip_probability)


@dataclass(frozen=True)
class ReportNoisyMax(_Mechanism):
    """Report-noisy-max: the index of the largest noisy score; the index only.

    Adds Laplace noise of scale ``2Δ/ε`` to every score (``Δ/ε`` when
    ``monotone=True``: all scores move in the same direction between
    neighbours) and returns the argmax.

    Privacy: pure ε-DP when each score changes by at most ``Δ`` between
    neighbours. The noisy scores themselves are never returned.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        Largest change Δ of any one score between neighbours.
    monotone : bool, default=False
        True when all scores move in the same direction between neighbours
        (noise scale ``Δ/ε`` instead of ``2Δ/ε``).
    neighbours : {"add_remove", "replace"} or None, default=None
        The neighbouring relation under which ``sensitivity`` holds; ``cost``
        is stated under it (and raises while it is None).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import ReportNoisyMax
    >>> ReportNoisyMax(epsilon=1.0).select([0.0, 100.0, 1.0], np.random.default_rng(0))
    1
    """

    monotone: bool = False

    @property
    def scale(self) -> float:
        """Laplace scale of the per-score noise."""
        return (1.0 if self.monotone else 2.0) * self.sensitivity / self.epsilon

    def select(self, scores, rng: np.random.Generator, axis: int = -1):
        """Index of the noisy maximum along ``axis`` (an int for 1-D scores).

        Passing a 2-D array draws many independent selections at once (one
        per row), which the auditor uses.

        Parameters
        ----------
        scores : array-like of float
            The scores (finite).
        rng : numpy.random.Generator
            Source of the noise.
        axis : int, default=-1
            Axis of the candidates.

        Returns
        -------
        int or ndarray of int
            The index of the largest noisy score (one per row for 2-D scores).
        """
        scores = np.asarray(scores, dtype=np.float64)
        if scores.size == 0:
            raise ValueError("ReportNoisyMax needs at least one score.")
        if not np.all(np.isfinite(scores)):
            raise ValueError("ReportNoisyMax scores must be finite.")
        noisy = scores + rng.laplace(0.0, self.scale, size=scores.shape)
        index = np.argmax(noisy, axis=axis)
        return int(index) if np.ndim(index) == 0 else index


@dataclass
class AboveThreshold:
    """AboveThreshold (sparse vector with one positive answer), over a stream.

    The threshold is perturbed once with Lap(2Δ/ε); each query with fresh
    Lap(4Δ/ε). The first query whose noisy value reaches the noisy threshold
    is reported and the mechanism halts. Queries can be fed in chunks
    (:meth:`feed`), each chunk vectorised; the answer is the same as feeding
    them one by one.

    Privacy: pure ε-DP for a stream of queries each of sensitivity ``Δ``
    (under the caller's relation), whatever the number of queries, because
    only the index of the first positive answer is released.

    Parameters
    ----------
    threshold : float
        The public threshold ``T`` (finite).
    epsilon : float
        Privacy parameter ε of the whole run, in ``(0, inf)``.
    sensitivity : float, default=1.0
        Largest change Δ of any one query between neighbours.
    rng : numpy.random.Generator, default=None
        Source of the threshold and query noise (None: fresh OS entropy).
    neighbours : {"add_remove", "replace"} or None, default=None
        The neighbouring relation under which ``sensitivity`` holds; ``cost``
        is stated under it (and raises while it is None).

    Attributes
    ----------
    n_seen_ : int
        Queries answered so far.
    halted : bool
        Whether a positive answer has been given (no more queries then).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import AboveThreshold
    >>> at = AboveThreshold(threshold=10.0, epsilon=5.0, rng=np.random.default_rng(0))
    >>> at.feed([0.0, 0.0, 0.0]) is None
    True
    >>> at.feed([50.0, 0.0])
    3
    >>> at.halted
    True
    """

    threshold: float
    epsilon: float
    sensitivity: float = 1.0
    rng: np.random.Generator = field(default=None, repr=False)
    neighbours: str | None = field(default=None, kw_only=True)
    n_seen_: int = field(default=0, init=False)
    halted: bool = field(default=False, init=False)
    _noisy_threshold: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self):
        self.epsilon = check_epsilon(self.epsilon)
        self.sensitivity = _check_sensitivity(self.sensitivity)
        if not np.isfinite(self.threshold):
            raise ValueError(f"threshold must be finite, got {self.threshold!r}.")
        if self.neighbours is not None:
            check_neighbours(self.neighbours)
        if self.rng is None:
            self.rng = np.random.default_rng()
        self._noisy_threshold = self.threshold + self.rng.laplace(0.0, self.threshold_scale)

    @property
    def threshold_scale(self) -> float:
        """Laplace scale ``2Δ/ε`` of the threshold noise."""
        return 2.0 * self.sensitivity / self.epsilon

    @property
    def query_scale(self) -> float:
        """Laplace scale ``4Δ/ε`` of the per-query noise."""
        return 4.0 * self.sensitivity / self.epsilon

    @property
    def cost(self) -> PrivacyCost:
        """Pure ε-DP under ``neighbours`` (the relation of ``sensitivity``)."""
        return _cost_under(self, self.neighbours)

    def feed(self, queries) -> int | None:
        """Answer a chunk of queries; stop at the first positive answer.

        Parameters
        ----------
        queries : array-like of float
            The next query values (finite), in stream order.

        Returns
        -------
        int or None
            The global index of the first positive answer (counting from 0
            over all chunks fed), or None when this chunk has none.
        """
        if self.halted:
            raise RuntimeError("AboveThreshold has halted; start a new one.")
        queries = np.asarray(queries, dtype=np.float64).ravel()
        if not np.all(np.isfinite(queries)):
            raise ValueError("AboveThreshold queries must be finite.")
        noisy = queries + self.rng.laplace(0.0, self.query_scale, size=queries.shape)
        hits = np.flatnonzero(noisy >= self._noisy_threshold)
        start = self.n_seen_
        if hits.size:
            self.halted = True
            self.n_seen_ = start + int(hits[0]) + 1
            return start + int(hits[0])
        self.n_seen_ = start + queries.size
        return None


@dataclass(frozen=True)
class VectorLaplaceMechanism(_Mechanism):
    """L2 "vector Laplace" noise with density ∝ ``exp(-(ε/Δ) ‖z‖₂)``.

    Drawn as a radius ``Gamma(d, Δ/ε)`` times a uniform direction. This is the
    noise of seed 003, eq. (8), where ``Δ = 2M`` (M bounds ‖x‖₂).

    Privacy: pure ε-DP for a vector query whose **L2** sensitivity is ``Δ``
    (the log-density ratio between ``z`` and ``z + v`` is at most
    ``ε‖v‖₂/Δ`` by the triangle inequality).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        L2 sensitivity Δ of the vector query.
    neighbours : {"add_remove", "replace"} or None, default=None
        The neighbouring relation under which ``sensitivity`` holds; ``cost``
        is stated under it (and raises while it is None).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import VectorLaplaceMechanism
    >>> VectorLaplaceMechanism(epsilon=1.0).noise(3, np.random.default_rng(0), n=5).shape
    (5, 3)
    """

    def noise(self, dim: int, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """Draw ``n`` noise vectors of dimension ``dim`` (shape ``(dim,)`` if n is None).

        Parameters
        ----------
        dim : int
            Dimension d of each vector.
        rng : numpy.random.Generator
            Source of the noise.
        n : int or None, default=None
            Number of vectors; None draws a single vector of shape ``(dim,)``.

        Returns
        -------
        ndarray of float64
            Shape ``(dim,)`` or ``(n, dim)``.
        """
        if not isinstance(dim, Integral) or dim < 1:
            raise ValueError(f"dim must be a positive int, got {dim!r}.")
        shape = (dim,) if n is None else (n, dim)
        direction = rng.standard_normal(shape)
        norms = np.linalg.norm(direction, axis=-1, keepdims=True)
        radius = rng.gamma(dim, self.sensitivity / self.epsilon, size=shape[:-1] + (1,))
        return direction / norms * radius

    def randomise(self, vectors, rng: np.random.Generator) -> np.ndarray:
        """Return ``vectors`` (shape (d,) or (n, d)) plus independent noise.

        Parameters
        ----------
        vectors : array-like of shape (d,) or (n, d)
            The true vectors.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of float64
            The noisy vectors, same shape.
        """
        vectors = np.asarray(vectors, dtype=np.float64)
        n = None if vectors.ndim == 1 else vectors.shape[0]
        return vectors + self.noise(vectors.shape[-1], rng, n=n)


@dataclass(frozen=True)
class BernoulliSelection:
    """Bernoulli (randomized-response) point selection of seed 003, §3.1.

    A point is selected with probability ``1 - p`` when it is informative
    (``c(t) >= τ``) and ``p`` otherwise, with ``p = 1/(1+e^ε)``.

    Privacy: pure ε-DP for the selection bit under "replace one stream
    element" neighbours, given the current model is public (Lemma 1; the
    paper's lemma states ``p > 1/2`` with ``ε = log(p/(1-p))``, which is the
    same mechanism with p relabelled).

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
        prob = self.probability(informative)
        return rng.random(prob.shape) < prob


@dataclass(frozen=True)
class ExponentialSelection:
    """Exponential point selection of seed 003, §3.1, eq. (7).

    ``q = exp(-max(b, d) ε/Δ)`` with ``Δ = M - b``, where ``d`` is the
    distance of the point to the decision boundary, ``b`` the slab half-width
    and ``M`` an upper bound on ``d``. Distances are clipped to ``[0, M]``.

    Privacy: Lemma 2 of the paper bounds only the *selected* outcome
    (ratio ``≤ e^ε``). The *not selected* outcome has ratio
    ``(1 - q_min)/(1 - q_max)`` with ``q_max = e^{-bε/Δ}``,
    ``q_min = e^{-Mε/Δ}``; under the paper's condition ``q_max ≤ 1/2`` that
    can reach ``log 2``, which exceeds ε when ε < log 2. :attr:`cost`
    therefore reports ``max(ε, log((1-q_min)/(1-q_max)))``, which is the
    exact privacy loss of the selection bit under "replace one stream
    element" neighbours.

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
            The probability of selecting each point.
        """
        d = np.clip(np.asarray(distance, dtype=np.float64), 0.0, self.M)
        return np.exp(-np.maximum(self.b, d) * self.epsilon / self.sensitivity)

    @property
    def cost(self) -> PrivacyCost:
        """The exact cost ``max(ε, log((1 - q_min)/(1 - q_max)))`` (Lemma 2 corrected)."""
        q_max = math.exp(-self.b * self.epsilon / self.sensitivity)
        q_min = math.exp(-self.M * self.epsilon / self.sensitivity)
        if q_max >= 1.0:  # b == 0: "not selected" impossible only at d = 0
            return PrivacyCost.infinite("exponential selection with b=0 is not private",
                                        neighbours="replace")
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
