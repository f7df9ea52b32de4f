"""Vectorised differential-privacy mechanisms.

Each mechanism is a frozen object holding its parameters, its noise ``scale``
and its :class:`PrivacyCost`, and randomises whole arrays with a caller-supplied
:class:`numpy.random.Generator`. The caller names the relation under which
``sensitivity`` is global (``neighbours``); ``cost`` raises without it.
Randomized response's relation is always "replace". Real-valued releases are
float-safe: a power-of-two grid with integer noise (:mod:`skdp_anomaly.privacy._grid`).
"""

from __future__ import annotations

import math
from dataclasses import InitVar, dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy.special import expit

from ..exceptions import naming
from ._cost import PrivacyCost, check_neighbours
from ._exact import bernoulli_logistic, check_rate, two_sided_geometric
from ._grid import from_steps, grid_for, grid_steps, to_steps

#: Largest ``epsilon / sensitivity`` :class:`GeometricMechanism` accepts: beyond it the
#: noise is zero in all but ~2·e**-30 of draws, so a larger rate protects nothing.
MAX_GEOMETRIC_EPSILON = 30.0

#: Largest ε a real-valued (grid) release accepts: the rate ``ε/steps`` stays <= 1
#: (>= ``2^20`` steps per sensitivity), and the noise is already ``2^-20`` of Δ.
MAX_GRID_EPSILON = float(2**20)

#: Smallest ε any estimator accepts (refused by ``privacy_cost()`` before any charge):
#: its share per grid step stays above :data:`MIN_INTEGER_RATE` for up to ~1000
#: coordinates per release, and below it the noise is a million sensitivities wide.
MIN_EPSILON = 1e-6


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """A privacy parameter as a float in ``(0, inf)``, else an error naming ``name``."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise naming(TypeError, f"`{name}` must be a float in the range (0, inf), got {epsilon!r}.")
    epsilon = float(epsilon)
    if not (0 < epsilon < math.inf):
        raise naming(
            ValueError, f"`{name}` must be a float in the range (0, inf), got {epsilon!r}."
        )
    return epsilon


def _check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, Real):
        raise naming(TypeError, f"`{name}` must be a positive real number, got {sensitivity!r}.")
    sensitivity = float(sensitivity)
    if not (0 < sensitivity < math.inf):
        raise naming(ValueError, f"`{name}` must be in the range (0, inf), got {sensitivity!r}.")
    return sensitivity


def check_integer_rate(rate: float, name: str) -> None:
    """Refuse a rate ``ε/Δ`` above ``MAX_GEOMETRIC_EPSILON`` or below :data:`MIN_INTEGER_RATE`.

    Called when a mechanism is built, before anything is charged.
    """
    if rate > MAX_GEOMETRIC_EPSILON:
        raise naming(
            ValueError,
            f"{name}: epsilon/sensitivity = {rate:.4g} exceeds {MAX_GEOMETRIC_EPSILON:g}, "
            "beyond which two-sided geometric noise is zero in all but about 2e-13 of draws "
            f"(the exact value would be released); use `epsilon` <= {MAX_GEOMETRIC_EPSILON:g} "
            "* sensitivity.",
        )
    check_rate(rate, name)


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
        """Pure ε-DP under ``neighbours`` (``ValueError`` when it is None)."""
        return _cost_under(self, self.neighbours)


@dataclass(frozen=True)
class GeometricMechanism(_Mechanism):
    """Two-sided geometric noise for integer-valued queries (counts, histograms).

    Adds exact integer noise with ``P(Z = k) ∝ exp(-ε |k| / Δ)``.

    Privacy: pure ε-DP for an integer query of L1 sensitivity ``Δ`` under the
    caller's neighbouring relation (e.g. a histogram under add/remove, Δ = 1).
    ``epsilon / sensitivity`` above ``MAX_GEOMETRIC_EPSILON`` (30) is refused.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        L1 sensitivity Δ of the integer query.
    neighbours : {"add_remove", "replace"} or None, default=None
        Relation under which ``sensitivity`` holds; ``cost`` raises while None.

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
        check_integer_rate(self.epsilon / self.sensitivity, type(self).__name__)

    @property
    def alpha(self) -> float:
        """Decay ``exp(-ε/Δ)`` of the two-sided geometric distribution."""
        return math.exp(-self.epsilon / self.sensitivity)

    def noise(self, size, rng: np.random.Generator) -> np.ndarray:
        """Draw two-sided geometric noise of shape ``size``.

        Parameters
        ----------
        size : int or tuple of int
            Shape of the noise array.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of int64
        """
        return two_sided_geometric(self.epsilon / self.sensitivity, size, rng)

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
    """Float-safe Laplace mechanism: a power-of-two grid plus discrete Laplace noise.

    Values are rounded to multiples of a power of two ``g`` (``granularity``)
    and integer noise of rate ``ε / steps`` is added in units of ``g``: every
    output is ``g`` times an integer, so its bits reveal nothing more
    (the textbook ``x + rng.laplace(0, Δ/ε)`` does: Mironov 2012).

    Privacy: pure ε-DP for a real-valued query of L1 sensitivity ``Δ`` under
    the caller's relation, when one change moves at most ``coordinates``
    coordinates; the rounded query's sensitivity is
    ``steps = floor(Δ/g) + coordinates`` and ``scale = steps·g/ε``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        L1 sensitivity Δ of the real-valued query.
    neighbours : {"add_remove", "replace"} or None, default=None
        Relation under which ``sensitivity`` holds; ``cost`` raises while None.
    coordinates : int, default=1
        Most coordinates one neighbouring change can move (``d`` for a sum of rows).
    granularity : float or None, default=None
        Grid spacing, a power of two; None: the largest with
        ``coordinates·g <= Δ·2^-20``.

    Attributes
    ----------
    steps : int
        The rounded query's L1 sensitivity in grid steps.

    References
    ----------
    .. [1] I. Mironov. On significance of the least significant bits for
       differential privacy. CCS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import LaplaceMechanism
    >>> mech = LaplaceMechanism(epsilon=0.5, sensitivity=2.0)
    >>> round(mech.scale, 4)
    4.0
    >>> out = mech.randomise(np.array([3.2, -1.0]), np.random.default_rng(0))
    >>> bool(np.all(out / mech.granularity == np.rint(out / mech.granularity)))
    True
    """

    coordinates: int = field(default=1, kw_only=True)
    granularity: float | None = field(default=None, kw_only=True)

    def __post_init__(self):
        super().__post_init__()
        c, g = self.coordinates, self.granularity
        if isinstance(c, bool) or not isinstance(c, Integral) or c < 1:
            raise naming(ValueError, f"`coordinates` must be an int >= 1, got {c!r}.")
        if g is None:
            object.__setattr__(self, "granularity", grid_for(self.sensitivity, c))
        elif not (isinstance(g, Real) and g > 0 and math.frexp(g)[0] == 0.5):
            raise naming(ValueError, f"`granularity` must be a positive power of two, got {g!r}.")
        check_integer_rate(self.epsilon / self.steps, type(self).__name__)

    @property
    def steps(self) -> int:
        """Integer L1 sensitivity ``floor(Δ/g) + coordinates`` of the rounded query."""
        return grid_steps(self.sensitivity, self.granularity, self.coordinates)

    @property
    def scale(self) -> float:
        """Noise scale in the units of the values, ``steps·g/ε`` (at least ``Δ/ε``)."""
        return self.steps * self.granularity / self.epsilon

    def noise_steps(self, size, rng: np.random.Generator) -> np.ndarray:
        """Integer noise in grid steps, ``P(Z = k) ∝ exp(-ε|k|/steps)``.

        For callers that round to the grid themselves: release ``g · (round(x/g) + Z)``.

        Parameters
        ----------
        size : int or tuple of int
            Shape of the noise array.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of int64
        """
        return two_sided_geometric(self.epsilon / self.steps, size, rng)

    def randomise(self, values, rng: np.random.Generator) -> np.ndarray:
        """Return the values, rounded to the grid, plus discrete Laplace noise.

        Parameters
        ----------
        values : array-like of float
            The true values (finite).
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of float64
            Same shape, each exactly ``granularity`` times an integer.
        """
        steps = to_steps(values, self.granularity)
        return from_steps(steps + self.noise_steps(steps.shape, rng), self.granularity)

    def randomise_steps(self, steps, rng: np.random.Generator) -> np.ndarray:
        """Noisy grid steps of values already on the grid (exact fixed-point sums).

        The noise is :meth:`randomise`'s; inputs are clamped to ``±2^61`` (no overflow).

        Parameters
        ----------
        steps : array-like of int
            The true values in grid steps.
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        ndarray of int64
            The noisy steps, same shape.
        """
        steps = np.asarray(steps)
        if steps.dtype.kind not in "iu":
            raise TypeError("randomise_steps takes integer grid steps.")
        steps = np.clip(steps.astype(np.int64), -(1 << 61), 1 << 61)
        return steps + self.noise_steps(steps.shape, rng)


@dataclass(frozen=True)
class RandomizedResponse:
    """Binary randomized response: flip each bit with probability ``1/(1+e^ε)``.

    Privacy: pure ε-DP for each bit under replace-one neighbours (one bit per
    individual), since ``P(keep)/P(flip) = e^ε``.

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
            Source of the flips (exact: each is ``Bernoulli(1/(1+e^ε))``).

        Returns
        -------
        ndarray of bool
        """
        bits = np.asarray(bits).astype(bool)
        return bits ^ bernoulli_logistic(self.epsilon, bits.shape, rng)


class _GridQueries:
    """Values compared on a power-of-two grid with integer noise.

    A value moving by ``Δ`` moves by at most ``steps = floor(Δ/g) + 1`` grid steps;
    integer comparisons are exact, so no float rounding can decide an outcome.
    """

    @property
    def granularity(self) -> float:
        """Grid spacing: a power of two at most ``Δ·2^-20``."""
        return grid_for(self.sensitivity)

    @property
    def steps(self) -> int:
        """The rounded values' sensitivity in grid steps, ``floor(Δ/g) + 1``."""
        return grid_steps(self.sensitivity, self.granularity)

    def to_steps(self, values) -> np.ndarray:
        """``values`` rounded to the grid, in int64 steps."""
        return to_steps(values, self.granularity)

    def _noise(self, multiple: int, size, rng) -> np.ndarray:
        # discrete Laplace of scale multiple·steps (in steps), i.e. multiple·Δ/ε in value units
        return two_sided_geometric(self.epsilon / (multiple * self.steps), size, rng)


@dataclass(frozen=True)
class ReportNoisyMax(_GridQueries, _Mechanism):
    """Report-noisy-max: the index of the largest noisy score; the index only.

    Scores are rounded to a power-of-two grid and discrete Laplace noise of
    ``2·steps`` grid steps (``steps`` if ``monotone``) is added, about ``2Δ/ε``
    (``Δ/ε``) in score units (:attr:`scale`); the first argmax is returned.

    Privacy: pure ε-DP when each score changes by at most ``Δ`` between
    neighbours (the usual proof holds for integer noise: the discrete Laplace
    survival function is log-concave). The noisy scores are never returned.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε, in ``(0, inf)``.
    sensitivity : float, default=1.0
        Largest change Δ of any one score between neighbours.
    monotone : bool, default=False
        All scores move in the same direction between neighbours (half the noise).
    neighbours : {"add_remove", "replace"} or None, default=None
        Relation under which ``sensitivity`` holds; ``cost`` raises while None.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.privacy import ReportNoisyMax
    >>> ReportNoisyMax(epsilon=1.0).select([0.0, 100.0, 1.0], np.random.default_rng(0))
    1
    """

    monotone: bool = False

    def __post_init__(self):
        super().__post_init__()
        check_integer_rate(self.epsilon / self.steps, type(self).__name__)

    @property
    def scale(self) -> float:
        """Scale of the per-score noise in score units (``≈ 2Δ/ε``, ``Δ/ε`` if monotone)."""
        return (1 if self.monotone else 2) * self.steps * self.granularity / self.epsilon

    def select(self, scores, rng: np.random.Generator, axis: int = -1):
        """Index of the noisy maximum along ``axis`` (2-D: one selection per row).

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
        noisy = self.to_steps(scores)
        noisy += self._noise(1 if self.monotone else 2, scores.shape, rng)
        index = np.argmax(noisy, axis=axis)
        return int(index) if np.ndim(index) == 0 else index


@dataclass
class AboveThreshold(_GridQueries):
    """AboveThreshold (sparse vector with one positive answer), over a stream.

    On a power-of-two grid, the threshold gets discrete Laplace noise of scale
    ``≈ 2Δ/ε`` once and each query fresh noise of ``≈ 4Δ/ε``; the first query
    reaching the noisy threshold is reported and the mechanism halts. Chunks
    fed to :meth:`feed` give the same answer as single queries.

    Privacy: pure ε-DP for a stream of queries each of sensitivity ``Δ`` (under
    the caller's relation), whatever their number: only the index of the first
    positive answer is released. It keeps the noisy threshold but no generator.

    Parameters
    ----------
    threshold : float
        The public threshold ``T`` (finite).
    epsilon : float
        Privacy parameter ε of the whole run, in ``(0, inf)``.
    sensitivity : float, default=1.0
        Largest change Δ of any one query between neighbours.
    rng : numpy.random.Generator, default=None
        Source of the threshold noise only, not kept (None: fresh OS entropy).
    neighbours : {"add_remove", "replace"} or None, default=None
        Relation under which ``sensitivity`` holds; ``cost`` raises while None.

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
    >>> rng = np.random.default_rng(0)
    >>> at = AboveThreshold(threshold=10.0, epsilon=5.0, rng=rng)
    >>> at.feed([0.0, 0.0, 0.0], rng) is None
    True
    >>> at.feed([50.0, 0.0], rng)
    3
    >>> at.halted
    True
    """

    threshold: float
    epsilon: float
    sensitivity: float = 1.0
    rng: InitVar[np.random.Generator | None] = None
    neighbours: str | None = field(default=None, kw_only=True)
    n_seen_: int = field(default=0, init=False)
    halted: bool = field(default=False, init=False)
    _noisy_threshold: int = field(default=0, init=False, repr=False)

    def __post_init__(self, rng):
        self.epsilon = check_epsilon(self.epsilon)
        self.sensitivity = _check_sensitivity(self.sensitivity)
        if not np.isfinite(self.threshold):
            raise naming(ValueError, f"`threshold` must be finite, got {self.threshold!r}.")
        if self.neighbours is not None:
            check_neighbours(self.neighbours)
        check_integer_rate(self.epsilon / (2 * self.steps), type(self).__name__)
        rng = np.random.default_rng() if rng is None else rng
        self._noisy_threshold = int(self.threshold_steps + self.threshold_noise(None, rng))

    @property
    def threshold_steps(self) -> int:
        """The public threshold rounded to the grid, in steps."""
        return int(self.to_steps(self.threshold))

    @property
    def threshold_scale(self) -> float:
        """Scale ``≈ 2Δ/ε`` of the threshold noise, in query units."""
        return 2 * self.steps * self.granularity / self.epsilon

    @property
    def query_scale(self) -> float:
        """Scale ``≈ 4Δ/ε`` of the per-query noise, in query units."""
        return 4 * self.steps * self.granularity / self.epsilon

    def threshold_noise(self, size, rng: np.random.Generator) -> np.ndarray:
        """Threshold noise in grid steps (for vectorised many-run replicas)."""
        return self._noise(2, size, rng)

    def query_noise(self, size, rng: np.random.Generator) -> np.ndarray:
        """Query noise in grid steps (for vectorised many-run replicas)."""
        return self._noise(4, size, rng)

    @property
    def cost(self) -> PrivacyCost:
        """Pure ε-DP under ``neighbours`` (the relation of ``sensitivity``)."""
        return _cost_under(self, self.neighbours)

    def feed(self, queries, rng: np.random.Generator | None = None) -> int | None:
        """Answer a chunk of queries; stop at the first positive answer.

        Parameters
        ----------
        queries : array-like of float
            The next query values (finite), in stream order.
        rng : numpy.random.Generator or None, default=None
            Source of this chunk's query noise (None: fresh OS entropy).

        Returns
        -------
        int or None
            Index (over all chunks) of the first positive answer, or None.
        """
        if self.halted:
            raise RuntimeError("AboveThreshold has halted; start a new one.")
        queries = np.asarray(queries, dtype=np.float64).ravel()
        if not np.all(np.isfinite(queries)):
            raise ValueError("AboveThreshold queries must be finite.")
        rng = np.random.default_rng() if rng is None else rng
        noisy = self.to_steps(queries) + self.query_noise(queries.shape, rng)
        hits = np.flatnonzero(noisy >= self._noisy_threshold)
        start = self.n_seen_
        if hits.size:
            self.halted = True
            self.n_seen_ = start + int(hits[0]) + 1
            return start + int(hits[0])
        self.n_seen_ = start + queries.size
        return None
