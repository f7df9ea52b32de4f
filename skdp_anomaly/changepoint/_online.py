"""ONLINEPNCPD (Lut 2022, Algorithm 4) over a stream fed in chunks.

:class:`OnlinePNCPD` holds a run's state; indices are absolute stream positions. From the first full
window on, each window ``x[s : s+n]`` is queried with its centre statistic ``U = M(s) / h²``
(``h = n/2``; sensitivity ``2/n``, Theorem 2.5) through AboveThreshold with ``alarm_share·ε``;
after an alarm at centre ``c``, ``g = ⌈γn⌉`` more points are read and PNCPD runs with the rest of ε
on ``x[c - h + g : c + h + g]``. Proofs: :ref:`proofs-changepoint` on :doc:`/proofs`. No generator
is kept, and ``charge(cost)`` is an argument of :meth:`OnlinePNCPD.feed`, not state, because the
estimator copies the state before each call to restore it if the call fails.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy import AboveThreshold, PrivacyCost
from ..privacy._stream_state import StreamState
from ._core import candidate_range, centre_queries, pncpd, pncpd_mechanism
from ._statistic import sliding_centre_mid_counts

#: The notes naming the two charges of a run (how the estimator tells which were made).
ABOVE_THRESHOLD_STAGE = "ONLINEPNCPD stage 1 of 2: AboveThreshold"
PNCPD_STAGE = "ONLINEPNCPD stage 2 of 2: PNCPD"

#: AboveThreshold's share of a run's ε with a given threshold: Algorithm 4's ε/2
#: (the setting of Theorem 2.6's threshold range).
THESIS_ALARM_SHARE = 0.5
#: ... and with the threshold calibrated to ``alpha``: the alarm alone sets both the
#: false-alarm level and the delay, and PNCPD searches one window known to hold the
#: change, so the alarm gets more.
CALIBRATED_ALARM_SHARE = 0.75


def stage_costs(
    window: int, gamma: float, epsilon: float, alarm_share: float = THESIS_ALARM_SHARE
) -> tuple[PrivacyCost, PrivacyCost]:
    """The two charges of a run, named by their notes: AboveThreshold's answers (``alarm_share·ε``,
    whatever their number), then PNCPD's selection (the rest), both under replace-one neighbours."""
    if math.isinf(epsilon):
        above = selection = PrivacyCost.infinite(neighbours="replace")
    else:
        # AboveThreshold's cost is its ε under the relation of its sensitivity 2/n
        above = PrivacyCost.pure(epsilon * alarm_share, neighbours="replace")
        selection = pncpd_mechanism(window, gamma, epsilon * (1 - alarm_share)).cost
    return above.with_notes(ABOVE_THRESHOLD_STAGE), selection.with_notes(PNCPD_STAGE)


# points per vectorised block: bounds the work wasted after an alarm inside a huge chunk
_BLOCK = 65_536


class _NoiselessThreshold:
    """``ε = inf`` stand-in for AboveThreshold: first query strictly above T."""

    def __init__(self, threshold):
        self.threshold, self.n_seen_ = float(threshold), 0

    def feed(self, queries, rng=None):
        hits = np.flatnonzero(np.asarray(queries) > self.threshold)
        start = self.n_seen_
        self.n_seen_ += len(queries) if not hits.size else int(hits[0]) + 1
        return start + int(hits[0]) if hits.size else None


class OnlinePNCPD(StreamState):
    """State of one run of Algorithm 4 (no validation: the estimator does it). Until the
    detection it holds the last window, its count and AboveThreshold's secret noisy
    threshold; a pickle leaves them out."""

    def __init__(
        self,
        *,
        window: int,
        threshold: float,
        epsilon: float,
        gamma: float,
        direction: str,
        rng: np.random.Generator,
        alarm_share: float = THESIS_ALARM_SHARE,
    ):
        self.window, self.h = int(window), int(window) // 2
        self.epsilon, self.gamma, self.direction = float(epsilon), float(gamma), direction
        self.alarm_share = float(alarm_share)
        self.shift = candidate_range(self.window, gamma)[0]  # g = ⌈γn⌉
        if math.isinf(epsilon):
            self._above = _NoiselessThreshold(threshold)
        else:
            self._above = AboveThreshold(
                threshold=float(threshold),
                epsilon=epsilon * self.alarm_share,
                sensitivity=2.0 / self.window,
                rng=rng,
                neighbours="replace",
            )
        self.n_seen = 0  # points consumed
        self.n_queries = 0  # windows answered by AboveThreshold
        self.alarm_index = None  # centre c of the alarming window
        self.change_point = None
        self.detected_direction = None
        self._tail = np.empty(0)  # last <= n points before the alarm, or the
        self._last_count = None  # PNCPD window being filled after it

    def _without_data(self) -> tuple[dict, str]:
        if self.detected:
            return {}, ""
        dropped = {"_tail": np.empty(0), "_last_count": None, "_above": None}
        return dropped, "its last window of points and its noisy threshold"

    @property
    def detected(self) -> bool:
        return self.change_point is not None

    @property
    def stage_costs(self) -> tuple[PrivacyCost, PrivacyCost]:
        """The charges of the two releases (computed: the state is copied before every call)."""
        return stage_costs(self.window, self.gamma, self.epsilon, self.alarm_share)

    def _queries(self, doubled: np.ndarray) -> np.ndarray:
        u = doubled / float(2 * self.h * self.h)  # mid-ranks: ties count 1/2
        return centre_queries(u, self.direction)

    def feed(self, x: np.ndarray, rng: np.random.Generator, charge=None) -> None:
        """Consume a chunk (1-D float array) with this call's noise, up to the detection;
        ``charge(cost)`` runs right before each of the two releases (``stage_costs``)."""
        charge = charge if charge is not None else (lambda cost: None)
        query_rng, pncpd_rng = rng.spawn(2)
        pos = 0
        while pos < x.size and not self.detected:
            if self.alarm_index is None:
                pos = self._scan(x, pos, query_rng, charge)
            else:
                pos = self._fill(x, pos, pncpd_rng, charge)

    def _scan(self, x: np.ndarray, pos: int, rng, charge) -> int:
        part = x[pos : pos + _BLOCK]
        buf = np.concatenate([self._tail, part])
        if buf.size < self.window:
            self._tail, self.n_seen = buf, self.n_seen + part.size
            return pos + part.size
        counts, last = sliding_centre_mid_counts(buf, self.window, first=self._last_count)
        if self._last_count is not None:
            counts = counts[1:]  # that window was answered before
        if counts.size and self.n_queries == 0 and self._last_count is None:
            charge(self.stage_costs[0])  # AboveThreshold's answers start here
        hit = self._above.feed(self._queries(counts), rng) if counts.size else None
        if hit is None:
            self.n_queries += counts.size
            self._last_count = last
            self._tail = buf[-self.window :].copy()
            self.n_seen += part.size
            return pos + part.size
        # alarm on the window starting at stream position `hit`
        self.n_queries = hit + 1
        self.alarm_index = hit + self.h
        window_end = hit + self.window  # exclusive, absolute
        used = window_end - self.n_seen  # points of `part` consumed
        buf_start = self.n_seen - (buf.size - part.size)
        self._tail = buf[hit - buf_start : hit - buf_start + self.window].copy()
        self.n_seen = window_end
        return pos + used

    def _fill(self, x: np.ndarray, pos: int, rng, charge) -> int:
        need = self.window + self.shift - self._tail.size
        part = x[pos : pos + need]
        self._tail = np.concatenate([self._tail, part])
        self.n_seen += part.size
        if self._tail.size == self.window + self.shift:
            seg, epsilon = self._tail[self.shift :], self.epsilon * (1 - self.alarm_share)
            charge(self.stage_costs[1])
            k, name = pncpd(seg, epsilon, self.gamma, self.direction, rng)
            start = self.alarm_index - self.h + self.shift
            self.change_point, self.detected_direction = start + k, name
            # halted: drop the raw samples and the noisy threshold for good
            self._tail, self._last_count, self._above = np.empty(0), None, None
        return pos + part.size


def stream_chunk(X):
    """Fast path for a float64 ndarray chunk of shape (m,) or (m, 1) (skips ~20 µs of
    validation per call); None for any other input, which gets the full checks."""
    if not (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.size):
        return None
    if X.ndim == 2 and X.shape[1] == 1:
        X = X[:, 0]
    if X.ndim != 1 or not np.isfinite(X).all():
        return None
    return X
