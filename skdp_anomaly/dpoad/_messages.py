"""The messages that cross between the data owner and the analyst (Mohammady et al., Fig. 5).

The analyst learns only :class:`WindowRelease` messages, the owner only
:class:`AnalystReport` ones; both are frozen and convert to and from JSON
(:func:`to_json`, :func:`from_json`), so the roles can live on different machines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

import numpy as np


def _frozen_array(values, dtype) -> np.ndarray:
    array = np.array(values, dtype=dtype)  # a copy: the message owns its data
    array.setflags(write=False)
    return array


class _Message:
    """Equality by value (arrays compared element-wise) and a dict form."""

    _arrays: dict = {}

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.name in self._arrays:
                if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b)):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None

    def to_dict(self) -> dict:
        """Plain-Python form (lists, floats, strings), ready for :mod:`json`."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in self._arrays and value is not None:
                value = value.tolist()
            elif isinstance(value, _Message):
                value = value.to_dict()
            out[f.name] = value
        return out


@dataclass(frozen=True, eq=False)
class SamplingParameters(_Message):
    """Sensitivity-sampler parameters of one window (Thm II.2 / IV.2)."""

    phase: str  # "learning" or "prediction"
    m: int  # number of sensitivity candidates drawn
    k: int  # the k-th smallest candidate is the sensitivity
    rho: float  # the Kolmogorov (DKW) confidence ρ the theorem was evaluated at

    @classmethod
    def from_dict(cls, data: dict) -> "SamplingParameters":
        """Rebuild the message from :meth:`to_dict`'s plain form."""
        return cls(str(data["phase"]), int(data["m"]), int(data["k"]), float(data["rho"]))

    @property
    def quantile_level(self) -> float:
        """``k / m``, the sensitivity quantile level of Fig. 6(a)."""
        return self.k / self.m


@dataclass(frozen=True, eq=False)
class WindowRelease(_Message):
    """Everything the data owner sends the analyst about one window (Step 4).

    Attributes
    ----------
    window : int
        0-based index of the window.
    values : ndarray of shape (n_bins,)
        The privatised counts (``space="count"``, integers) or the privatised
        disentangled counts ``g(count)`` (``space="disentangled"``).
    space : {"count", "disentangled"}
    noise_scale : float
        ``sensitivity / epsilon``, the scale of the noise added to each value.
    sensitivity : float
        The sensitivity Δ the noise was calibrated to (units of ``values``).
    phase : {"global", "record", "learning", "prediction"}
    sampling : SamplingParameters or None
        The sampler's (m, k, ρ) when Δ was sampled.
    max_count : int
        The count domain {0..max_count} of this window (data-derived, with a
        :class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`, when the owner
        was given ``max_count=None``).
    """

    window: int
    values: np.ndarray
    space: str
    noise_scale: float
    sensitivity: float
    phase: str
    sampling: SamplingParameters | None
    max_count: int

    _arrays = {"values": None}

    def __post_init__(self):
        dtype = np.int64 if self.space == "count" else np.float64
        object.__setattr__(self, "values", _frozen_array(self.values, dtype))

    @classmethod
    def from_dict(cls, data: dict) -> "WindowRelease":
        """Rebuild the message from :meth:`to_dict`'s plain form."""
        sampling = data["sampling"]
        return cls(
            int(data["window"]),
            data["values"],
            str(data["space"]),
            float(data["noise_scale"]),
            float(data["sensitivity"]),
            str(data["phase"]),
            None if sampling is None else SamplingParameters.from_dict(sampling),
            int(data["max_count"]),
        )


@dataclass(frozen=True, eq=False)
class SensitivityFeedback(_Message):
    """What the owner needs for the prediction phase (Step 6).

    Attributes
    ----------
    disentangler : ndarray of shape (n_knots, 2)
        Knots ``(c / max_count, g)`` of the increasing piecewise-linear map
        ``g`` of [0, 1] onto [0, 1]; ``[[0, 0], [1, 1]]`` is ``g(c) = c / max_count``.
    support : ndarray of shape (n_support,)
        Values ``g(c)`` of the learnt count distribution.
    probabilities : ndarray of shape (n_support,)
        Their probabilities (sum to 1); likely anomalies carry little mass.
    """

    disentangler: np.ndarray
    support: np.ndarray
    probabilities: np.ndarray

    _arrays = {"disentangler": None, "support": None, "probabilities": None}

    def __post_init__(self):
        for name in self._arrays:
            object.__setattr__(self, name, _frozen_array(getattr(self, name), np.float64))

    @classmethod
    def from_dict(cls, data: dict) -> "SensitivityFeedback":
        """Rebuild the message from :meth:`to_dict`'s plain form."""
        return cls(data["disentangler"], data["support"], data["probabilities"])

    def g(self, counts, max_count: int) -> np.ndarray:
        """Disentangle counts in {0..max_count} into [0, 1]."""
        knots = self.disentangler
        return np.interp(np.asarray(counts, np.float64) / max_count, knots[:, 0], knots[:, 1])

    def g_inverse(self, values, max_count: int) -> np.ndarray:
        """Return the counts in {0..max_count} nearest to ``g⁻¹(values)`` (Alg. 1, line 14)."""
        knots = self.disentangler
        x = np.interp(np.clip(np.asarray(values, np.float64), 0.0, 1.0), knots[:, 1], knots[:, 0])
        return np.clip(np.rint(x * max_count), 0, max_count).astype(np.int64)


@dataclass(frozen=True, eq=False)
class AnalystReport(_Message):
    """The analyst's answer about one window (Step 7).

    Attributes
    ----------
    window : int
    anomalies : ndarray of bool, shape (n_bins,)
        The window's cells flagged.
    scores : ndarray of shape (n_bins,)
        Scores in [0, 1], higher is more anomalous: normalised KSE scores
        (``"kse"``) or one minus the adjusted p-values (``"baseline"``).
    feedback : SensitivityFeedback
    p_values : ndarray of shape (n_bins,) or None
        ``"baseline"``, after the learning windows: Holm-adjusted p-values.
    expected_counts : ndarray of shape (n_bins,) or None
        ``"baseline"``, after the learning windows: learnt expected counts.
    detectable_excess : float or None
        ``"baseline"``, after the learning windows: counts above expectation a
        typical cell needs to be flagged about half the time.
    """

    window: int
    anomalies: np.ndarray
    scores: np.ndarray
    feedback: SensitivityFeedback
    p_values: np.ndarray | None = None
    expected_counts: np.ndarray | None = None
    detectable_excess: float | None = None

    _arrays = {"anomalies": None, "scores": None, "p_values": None, "expected_counts": None}

    def __post_init__(self):
        object.__setattr__(self, "anomalies", _frozen_array(self.anomalies, bool))
        object.__setattr__(self, "scores", _frozen_array(self.scores, np.float64))
        for name in ("p_values", "expected_counts"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _frozen_array(getattr(self, name), np.float64))
        if self.detectable_excess is not None:
            object.__setattr__(self, "detectable_excess", float(self.detectable_excess))

    @classmethod
    def from_dict(cls, data: dict) -> "AnalystReport":
        """Rebuild the message from :meth:`to_dict`'s plain form."""
        return cls(
            int(data["window"]),
            data["anomalies"],
            data["scores"],
            SensitivityFeedback.from_dict(data["feedback"]),
            data.get("p_values"),
            data.get("expected_counts"),
            data.get("detectable_excess"),
        )


_TYPES = {
    c.__name__: c for c in (WindowRelease, AnalystReport, SensitivityFeedback, SamplingParameters)
}


def to_json(message) -> str:
    """Serialise a message to a JSON string (its type included).

    Parameters
    ----------
    message : WindowRelease, AnalystReport, SensitivityFeedback or SamplingParameters
        The message to serialise.

    Returns
    -------
    str

    Examples
    --------
    >>> from skdp_anomaly.dpoad import from_json, to_json
    >>> from skdp_anomaly.dpoad._messages import SamplingParameters
    >>> message = SamplingParameters("learning", 1305, 1305, 0.0042)
    >>> from_json(to_json(message)) == message
    True
    """
    if type(message) not in _TYPES.values():
        raise TypeError(f"to_json serialises DPOAD messages only, got {type(message).__name__}.")
    return json.dumps({"type": type(message).__name__, "message": message.to_dict()})


def from_json(text: str):
    """Rebuild a message serialised by :func:`to_json`.

    Parameters
    ----------
    text : str
        The output of :func:`to_json`.

    Returns
    -------
    WindowRelease, AnalystReport, SensitivityFeedback or SamplingParameters
    """
    data = json.loads(text)
    kind = data.get("type") if isinstance(data, dict) else None
    if kind not in _TYPES:
        raise ValueError(f"not a DPOAD message: type {kind!r}.")
    return _TYPES[kind].from_dict(data["message"])
