"""The data owner (Mohammady et al., Steps 1–3): histogram a window and privatise its counts."""

from __future__ import annotations

import math

import numpy as np

from .._data.rows import Rows, bincount, is_dask_collection, numpy_rows, read_rows
from ..privacy import GeometricMechanism, LaplaceMechanism, PrivacyCost
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON, MIN_EPSILON
from ..privacy._rng import call_rng, check_random_state
from ..exceptions import naming
from ..privacy._validation import warn_privacy_leak
from ._messages import AnalystReport, WindowRelease
from ._sampling import (
    check_int,
    check_real,
    kth_smallest_draw,
    kth_smallest_uniform,
    refusal,
    sampling_parameters,
)

_EMPTY = "X is an empty window: a window must hold at least one record."

#: The owner's mechanisms: the paper's three and the record-level baseline.
MECHANISMS = ("dpoad", "painfree", "laplace", "record")


def check_bins(bins) -> list[np.ndarray]:
    """Validate the public bin edges (an increasing 1-D array, or a list); one array per feature."""
    if isinstance(bins, (list, tuple)) and len(bins) > 0 and np.ndim(bins[0]) == 1:
        edges = [np.asarray(b, dtype=np.float64) for b in bins]
    else:
        edges = [np.asarray(bins, dtype=np.float64)]
    for j, e in enumerate(edges):
        where = "" if len(edges) == 1 else f" (feature {j})"
        if e.ndim != 1 or e.size < 2:
            raise naming(
                ValueError,
                f"`The 'bins' parameter`{where} must hold at least two edges in a 1-D "
                f"array; got shape {e.shape}.",
            )
        if not np.all(np.isfinite(e)) or not np.all(np.diff(e) > 0):
            raise naming(
                ValueError, f"`The 'bins' parameter`{where} must be finite and strictly increasing."
            )
    return edges


def window_histogram(X, bins) -> np.ndarray:
    """Count the records of one window in the cells of ``bins`` (Step 2).

    Bins follow :func:`numpy.histogramdd` (half-open, the last closed; product cells flattened in C
    order). A record outside the bins is clipped into the nearest edge bin, never refused: one
    record stays in one cell, so the sensitivity is unchanged. A dask window gives the same counts
    exactly, summed blockwise, without being computed on the client.

    Parameters
    ----------
    X : array-like of shape (n_records,) or (n_records, n_features), or dask collection
        The records of the window.
    bins : array-like or list of array-like
        Public bin edges (see :class:`~skdp_anomaly.DPOAD`).

    Returns
    -------
    ndarray of int64, shape (n_cells,)

    Raises
    ------
    ValueError
        NaN/inf, or a wrong number of features.

    Examples
    --------
    >>> from skdp_anomaly.dpoad import window_histogram
    >>> window_histogram([0.5, 1.5, 1.7, 2.0], [0, 1, 2]).tolist()
    [1, 3]
    >>> window_histogram([-7.0, 0.5, 9.0], [0, 1, 2]).tolist()  # clipped to the edge bins
    [2, 1]
    """
    edges = check_bins(bins)
    rows = window_rows(X, len(edges))
    if rows.n_features != len(edges):
        raise ValueError(
            f"X has {rows.n_features} features; the bins describe {len(edges)} feature(s)."
        )
    return bincount(rows, cell_index, math.prod(e.size - 1 for e in edges), edges)


def window_rows(X, n_features: int) -> Rows:
    """A window's records as backend rows: checked here in memory, by the backend on dask."""
    if isinstance(X, Rows):
        return X
    if is_dask_collection(X):
        return read_rows(X, ensure_min_samples=0, column_if_1d=n_features == 1)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"X has shape {X.shape}; the bins describe {n_features} feature(s).")
    if not np.all(np.isfinite(X)):
        raise ValueError("Input X contains NaN or infinity.")
    return numpy_rows(X)


def cell_index(X: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    """Each row's cell: its features' bins, flattened in C order (as ``histogramdd``)."""
    flat = np.zeros(X.shape[0], dtype=np.int64)
    for j, e in enumerate(edges):
        flat = flat * (e.size - 1) + _bin_index(e, X[:, j])
    return flat


def _bin_index(edges: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The bin of each value, ``edges[i] <= x < edges[i + 1]``, clipped to the edge bins; equal
    widths by arithmetic, corrected on each side so that rounding never crosses an edge."""
    last = edges.size - 2
    width = (edges[-1] - edges[0]) / (last + 1)
    if np.abs(np.diff(edges) - width).max() <= 1e-9 * width:
        # x is finite (checked by the caller); a huge |x| only overflows to ±inf
        with np.errstate(over="ignore"):
            guess = np.floor((x - edges[0]) / width)
        index = np.clip(guess, 0, last).astype(np.int64)
        index -= (x < edges[index]) & (index > 0)
        index += (x >= edges[index + 1]) & (index < last)
        return index
    index = np.searchsorted(edges, x, side="right") - 1
    # below the first edge -> first bin; the last bin takes its right edge and beyond
    return np.clip(index, 0, last, out=index)


class DataOwner:
    """The data owner's side of DPOAD: it alone sees records.

    Parameters
    ----------
    bins : array-like or list of array-like
        The analyst's public bin edges.
    epsilon : float, default=1.0
        ε spent on each window.
    gamma : float in (0, 1), default=0.05
        Random-DP confidence (unused by ``"laplace"`` and ``"record"``).
    mechanism : {"record", "dpoad", "painfree", "laplace"}, default="record"
        The release mechanism (see :class:`~skdp_anomaly.DPOAD`).
    max_count : int >= 1 or None, default=None
        Public cap of a cell count; ``None`` uses the window's record count
        (a :class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`).
    learning_windows : int, default=1
        Windows released with Pain-Free before ``"dpoad"``'s prediction phase.
    sensitivity_samples : int, default=100_000
        The prediction phase's m (Alg. 1 line 3).
    random_state : None, int or numpy.random.Generator, default=None
        Each release draws from a generator of its own (separate child streams
        for sensitivity candidates and noise); none is kept between releases.

    Notes
    -----
    :meth:`release` keeps nothing of the window (no records, counts or generator); only the window
    index and the last :class:`~skdp_anomaly.dpoad.SensitivityFeedback` carry over. Guarantees: see
    :class:`~skdp_anomaly.DPOAD`.
    """

    def __init__(
        self,
        bins,
        *,
        epsilon=1.0,
        gamma=0.05,
        mechanism="record",
        max_count=None,
        learning_windows=1,
        sensitivity_samples=100_000,
        random_state=None,
    ):
        self.bins = check_bins(bins)
        self.epsilon = check_real("epsilon", epsilon, 0, math.inf)
        self.gamma = check_real("gamma", gamma, 0, 1)
        if mechanism not in MECHANISMS:
            raise refusal("mechanism", f"one of {MECHANISMS}", mechanism)
        self.mechanism = mechanism
        self.max_count = None if max_count is None else check_int("max_count", max_count)
        self.learning_windows = check_int("learning_windows", learning_windows)
        self.sensitivity_samples = check_int("sensitivity_samples", sensitivity_samples)
        check_random_state(random_state)  # refused before any data, not at the first window
        self.random_state = random_state
        self.n_released = 0
        self.feedback = None
        # the parameters are checked now: a bad (gamma, m) fails before any data is read
        self.learning_parameters = (
            sampling_parameters(self.gamma) if mechanism in ("painfree", "dpoad") else None
        )
        self.prediction_parameters = None
        if mechanism == "dpoad":
            m, n = self.sensitivity_samples, self.learning_windows
            self.prediction_parameters = sampling_parameters(
                self.gamma, "prediction", m=m, epsilon=self.epsilon, learning_windows=n
            )
        self.check_release_limits()
        check_prediction_reachable(mechanism, self.gamma, self.learning_windows)

    def check_release_limits(self) -> None:
        """Refuse, before any data is read, settings whose noise would round away."""
        check_release_limits(self.mechanism, self.epsilon, self.max_count)

    @property
    def phase(self) -> str:
        """The phase of the next window's release."""
        if self.mechanism == "laplace":
            return "global"
        if self.mechanism == "record":
            return "record"
        if self.mechanism == "dpoad" and self.n_released >= self.learning_windows:
            return "prediction"
        return "learning"

    def cost(self) -> PrivacyCost:
        """The privacy cost of one window's release (see :class:`~skdp_anomaly.DPOAD`)."""
        return window_cost(self.mechanism, self.epsilon, self.gamma)

    def check_next_release(self) -> None:
        """Refuse the next window when the stream's random-DP γ (``n γ``) would reach 1.

        Raises
        ------
        ValueError
            Naming the 'gamma' parameter, before anything is read or released.
        """
        gamma = self.cost().gamma
        n = self.n_released + 1
        if gamma and n * gamma >= 1.0:
            raise naming(
                ValueError,
                f"`The 'gamma' parameter` is {gamma:g}: window {n} would bring the stream's "
                f"random-DP γ to {n * gamma:.3g}, and a γ of 1 or more guarantees nothing. "
                f"Use `gamma` < 1/{n} for a stream of {n} or more windows, or "
                "`mechanism='record'` (pure ε-DP per record, whatever the stream's length).",
            )

    def release(self, X) -> WindowRelease:
        """Histogram the window ``X`` and privatise its counts (Steps 2–4).

        ``X`` may be a dask collection (counted blockwise, never gathered).

        Raises
        ------
        ValueError
            An empty window, or NaN/inf.
        """
        self.check_next_release()
        if not (isinstance(X, Rows) or is_dask_collection(X)):
            X = np.asarray(X, dtype=np.float64)
            if X.shape[0] == 0:  # before the shape checks, whatever the empty shape
                raise ValueError(_EMPTY)
        X = window_rows(X, len(self.bins))
        if X.n_samples == 0:
            raise ValueError(_EMPTY)
        counts = window_histogram(X, self.bins)
        max_count = self.max_count
        if max_count is None:
            max_count = X.n_samples
            if self.n_released == 0:  # once per stream, not once per window
                warn_privacy_leak(
                    "`max_count=None`: the count domain {0..`max_count`} of every window is its "
                    "record count, read from the data and released with the window; pass a "
                    "public `max_count`."
                )
        counts = np.minimum(counts, max_count)
        phase = self.phase
        rngs = call_rng(self.random_state, self.n_released).spawn(2)  # sampling, noise
        if phase == "prediction":
            release = self._release_prediction(counts, max_count, *rngs)
        else:
            release = self._release_counts(counts, max_count, phase, *rngs)
        self.n_released += 1
        return release

    def _release_counts(self, counts, max_count, phase, sample_rng, noise_rng) -> WindowRelease:
        sampling = None
        if phase == "global":
            sensitivity = float(max_count)
        elif phase == "record":
            sensitivity = 1.0
        else:  # Pain-Free: the k-th smallest of m uniform draws on {0..max_count}, floored at 1
            sampling = self.learning_parameters
            drawn = kth_smallest_uniform(max_count + 1, sampling.m, sampling.k, sample_rng)
            sensitivity = max(1.0, drawn)
        values = GeometricMechanism(self.epsilon, sensitivity).randomise(counts, noise_rng)
        scale = sensitivity / self.epsilon
        return WindowRelease(
            self.n_released, values, "count", scale, sensitivity, phase, sampling, max_count
        )

    def _release_prediction(self, counts, max_count, sample_rng, noise_rng) -> WindowRelease:
        feedback = self.feedback
        if feedback is None:
            raise RuntimeError(
                "the prediction phase needs the analyst's feedback: pass each "
                "AnalystReport to DataOwner.receive before the next release."
            )
        sampling = self.prediction_parameters
        floor = float(feedback.g(1, max_count) - feedback.g(0, max_count))
        drawn = kth_smallest_draw(
            feedback.support, feedback.probabilities, sampling.m, sampling.k, sample_rng
        )
        sensitivity = max(floor, drawn)
        # one cell changes between neighbours; the float-safe grid keeps the value's
        # low-order bits from revealing the count as it crosses to the analyst
        mechanism = LaplaceMechanism(self.epsilon, sensitivity, neighbours="add_remove")
        values = mechanism.randomise(feedback.g(counts, max_count), noise_rng)
        phase, scale = "prediction", mechanism.scale
        return WindowRelease(
            self.n_released, values, "disentangled", scale, sensitivity, phase, sampling, max_count
        )

    def receive(self, report: AnalystReport) -> None:
        """Take the analyst's report (Step 7); its feedback drives the prediction phase."""
        if not isinstance(report, AnalystReport):
            raise TypeError(
                f"DataOwner.receive takes an AnalystReport, got {type(report).__name__}."
            )
        self.feedback = report.feedback


def check_release_limits(mechanism: str, epsilon: float, max_count) -> None:
    """Refuse, naming 'epsilon', settings whose noise would hide nothing (before any data).

    Geometric noise with Δ >= 1 count is almost always zero beyond ε/Δ = 30.
    """
    subject = f"`The 'epsilon' parameter` is {epsilon:g}"
    if epsilon < MIN_EPSILON:
        raise naming(
            ValueError,
            f"{subject}, below {MIN_EPSILON:g}, the smallest ε this package's noise samplers "
            "are set up to honour.",
        )
    if mechanism in ("record", "painfree", "dpoad") and epsilon > MAX_GEOMETRIC_EPSILON:
        raise naming(
            ValueError,
            f"{subject}, above {MAX_GEOMETRIC_EPSILON:g}: `mechanism={mechanism!r}` may "
            "calibrate geometric noise to a sensitivity of 1 count, which is then zero in all "
            "but about 2e-13 of draws (exact counts).",
        )
    if (
        mechanism == "laplace"
        and max_count is not None
        and epsilon / max_count > MAX_GEOMETRIC_EPSILON
    ):
        raise naming(
            ValueError,
            f"{subject}: `epsilon`/`max_count` exceeds {MAX_GEOMETRIC_EPSILON:g}, where "
            "geometric noise is almost always zero.",
        )


def check_prediction_reachable(mechanism: str, gamma: float, learning_windows: int) -> None:
    """Refuse, naming 'gamma', a ``"dpoad"`` stream whose γ would reach 1 before its
    prediction phase (``(learning_windows + 1) γ >= 1``), before any data."""
    first = learning_windows + 1
    if mechanism == "dpoad" and first * gamma >= 1.0:
        raise naming(
            ValueError,
            f"`The 'gamma' parameter` is {gamma:g}: `mechanism='dpoad'` releases its first "
            f"prediction window as window {first}, where the stream's random-DP γ would be "
            f"{first * gamma:.3g}, and a γ of 1 or more guarantees nothing. Use `gamma` < "
            f"1/{first}, or fewer `learning_windows`.",
        )


def window_cost(mechanism: str, epsilon: float, gamma: float) -> PrivacyCost:
    """The cost of one window under ``mechanism``."""
    if mechanism == "record":
        return PrivacyCost.pure(
            epsilon,
            "DPOAD record: histogram of one window, sensitivity 1 (one record adds or "
            "removes 1 in one cell)",
            neighbours="add_remove",
        )
    unit = (
        "the neighbouring unit is one contributor's count cell (up to max_count records "
        "of one window-bin), added or removed"
    )
    if mechanism == "laplace":
        return PrivacyCost.pure(
            epsilon, f"DPOAD laplace: {unit}; global sensitivity max_count", neighbours="add_remove"
        )
    pairs = (
        "uniform on {0..max_count}"
        if mechanism == "painfree"
        else "the analyst-learnt count distribution after the learning windows"
    )
    return PrivacyCost.random_dp(
        epsilon,
        gamma,
        f"DPOAD {mechanism}: {unit}; ε-DP holds for all but a γ-fraction of "
        f"neighbouring pairs drawn from {pairs}",
        neighbours="add_remove",
    )
