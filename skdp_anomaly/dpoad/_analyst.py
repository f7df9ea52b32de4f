"""The analyst (the MSSP; Mohammady et al., Steps 5–7): score, learn, report back."""

from __future__ import annotations

import numbers

import numpy as np

from ._kse import normalise_scores, value_scores
from ._messages import AnalystReport, SensitivityFeedback, WindowRelease

__all__ = ["Analyst", "LINEAR_DISENTANGLER"]

#: ``g(c) = c / max_count`` as knots of a piecewise-linear map of [0, 1].
LINEAR_DISENTANGLER = np.array([[0.0, 0.0], [1.0, 1.0]])

# Step 6: "the higher the score of an observation, the lower its probability mass"
_SCORE_POWER = -4.0


class Analyst:
    """The analyst's side of DPOAD: it sees only :class:`WindowRelease` messages.

    Parameters
    ----------
    max_count : int >= 1 or None, default=None
        The count domain {0..max_count} the owner uses. ``None`` takes each
        release's ``max_count``; an int refuses releases over another domain.
    threshold : float in [0, 1), default=0.9
        Detection threshold T on the normalised scores.

    Attributes
    ----------
    releases : list of WindowRelease
        The messages received, in order.
    pseudo_counts : list of ndarray
        The counts rebuilt from each release (Alg. 1 line 14), integers in
        {0..max_count}; post-processing of the releases.
    reports : list of AnalystReport
        The reports sent back.

    Notes
    -----
    The detector (Step 5): after window i arrives, the pseudo-counts of
    windows 0..i are pooled, scored with :func:`~skdp_anomaly.dpoad.kse_scores`,
    min–max normalised over the pool, and window i's cells whose normalised
    score exceeds ``threshold`` are flagged. The feedback (Step 6) is the
    pooled pseudo-counts mapped by the disentangler ``g``, weighted by their
    raw score to the power −4, and ``g`` itself (``g(c) = c / max_count``).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.dpoad import Analyst, DataOwner
    >>> owner = DataOwner(np.linspace(0, 1, 11), epsilon=1.0, max_count=200,
    ...                   mechanism="record", random_state=0)
    >>> analyst = Analyst(max_count=200)
    >>> rng = np.random.default_rng(0)
    >>> report = analyst.receive(owner.release(rng.uniform(0, 1, 500)))
    >>> owner.receive(report)
    >>> report.scores.shape
    (10,)
    """

    def __init__(self, *, max_count=None, threshold=0.9):
        if max_count is not None and (isinstance(max_count, bool) or not isinstance(
                max_count, numbers.Integral) or max_count < 1):
            raise ValueError(f"The 'max_count' parameter must be an int >= 1 or None; "
                             f"got {max_count!r}.")
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not (
                0 <= threshold < 1):
            raise ValueError(f"The 'threshold' parameter must be a float in the range [0, 1); "
                             f"got {threshold!r}.")
        self.max_count = None if max_count is None else int(max_count)
        self.threshold = float(threshold)
        self.releases: list = []
        self.pseudo_counts: list = []
        self.reports: list = []
        self._feedback = SensitivityFeedback(LINEAR_DISENTANGLER, [0.0], [1.0])
        # the pool of windows 0..i: its distinct pseudo-counts and their multiplicities
        # (sparse, so that memory does not grow with max_count)
        self._pool_values = np.zeros(0, dtype=np.int64)
        self._pool_multiplicity = np.zeros(0, dtype=np.int64)

    def receive(self, release: WindowRelease) -> AnalystReport:
        """Score the window, learn the count distribution, and report (Steps 5–7)."""
        if not isinstance(release, WindowRelease):
            raise TypeError(f"Analyst.receive takes a WindowRelease, got "
                            f"{type(release).__name__}: the analyst sees nothing else.")
        max_count = release.max_count
        if self.max_count is not None and max_count != self.max_count:
            raise ValueError(f"the release's count domain is {{0..{max_count}}}; this analyst "
                             f"works over {{0..{self.max_count}}}.")
        if self.pseudo_counts and release.values.shape != self.pseudo_counts[0].shape:
            raise ValueError(f"the release has {release.values.shape[0]} cells; earlier "
                             f"releases had {self.pseudo_counts[0].shape[0]}.")
        self.releases.append(release)
        pseudo = self._reconstruct(release)
        self.pseudo_counts.append(pseudo)
        distinct, multiplicity = self._pool(pseudo)
        raw = value_scores(distinct, multiplicity)
        scores = normalise_scores(raw)[np.searchsorted(distinct, pseudo)]
        self._feedback = self._learn(distinct, multiplicity, raw, max_count)
        report = AnalystReport(release.window, scores > self.threshold, scores, self._feedback)
        self.reports.append(report)
        return report

    def _pool(self, pseudo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Add a window's pseudo-counts to the pool; return its values and multiplicities."""
        values, added = np.unique(pseudo, return_counts=True)
        distinct = np.union1d(self._pool_values, values)
        multiplicity = np.zeros(distinct.size, dtype=np.int64)
        multiplicity[np.searchsorted(distinct, self._pool_values)] += self._pool_multiplicity
        multiplicity[np.searchsorted(distinct, values)] += added
        self._pool_values, self._pool_multiplicity = distinct, multiplicity
        return distinct, multiplicity

    def _reconstruct(self, release: WindowRelease) -> np.ndarray:
        if release.space == "count":
            return np.clip(release.values, 0, release.max_count).astype(np.int64)
        # disentangled values were made with the g of the feedback last sent
        return self._feedback.g_inverse(release.values, release.max_count)

    def _learn(self, distinct, multiplicity, score, max_count) -> SensitivityFeedback:
        positive = score[score > 0]
        if positive.size == 0:
            weights = multiplicity.astype(np.float64)
        else:
            # a zero score (only possible for an all-equal pool) is floored at the least
            # positive one so that it keeps the largest finite weight
            weights = multiplicity * np.maximum(score, positive.min()) ** _SCORE_POWER
        weights = weights / weights.sum()
        support = np.interp(distinct / max_count, LINEAR_DISENTANGLER[:, 0],
                            LINEAR_DISENTANGLER[:, 1])
        return SensitivityFeedback(LINEAR_DISENTANGLER, support, weights)
