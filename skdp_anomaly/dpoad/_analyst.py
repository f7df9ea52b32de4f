"""The analyst (the MSSP; Mohammady et al., Steps 5–7): score, learn, report back."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..exceptions import naming
from ._baseline import PoissonBaseline, ReleaseNoise
from ._proportions import ProportionBaseline
from ._kse import normalise_scores, value_scores
from ._messages import AnalystReport, SensitivityFeedback, WindowRelease
from ._sampling import check_int, check_real, refusal

#: The analyst's detectors: the calibrated baseline test and the paper's KSE rule.
DETECTORS = ("baseline", "kse")

#: The baseline's null models of a window's cell counts (see :class:`Analyst`, Notes).
COUNT_MODELS = ("overdispersed", "multinomial", "poisson")

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
    detector : {"baseline", "kse"}, default="baseline"
        ``"baseline"``: each cell tested against its rate learnt from the first
        ``learning_windows`` releases, at level ``alpha`` (see Notes).
        ``"kse"``: the paper's rule, Kim's KSE score against ``threshold``.
    alpha : float in (0, 1), default=0.05
        ``"baseline"``: the probability that a window with no anomaly has any cell flagged.
    count_model : {"overdispersed", "multinomial", "poisson"}, default="overdispersed"
        ``"baseline"``: the null a window's cells are tested against (see Notes).
    learning_windows : int >= 1, default=3
        ``"baseline"``: the releases the baseline is learnt from; they are not tested.
    threshold : float in [0, 1), default=0.9
        ``"kse"``: detection threshold T on the normalised scores.

    Attributes
    ----------
    releases : list of WindowRelease
        The messages received, in order.
    pseudo_counts : list of ndarray
        The counts rebuilt from each release (Alg. 1 line 14), integers in
        {0..max_count}; post-processing of the releases.
    reports : list of AnalystReport
        The reports sent back.
    baseline : ProportionBaseline, PoissonBaseline or None
        ``"baseline"``: what was learnt, once the learning windows are in:
        proportions and dispersion, or rates (``count_model="poisson"``).

    Notes
    -----
    ``"baseline"`` deconvolves the known release noise from the learning windows, convolves it back
    into each cell's null, and applies Holm's correction: a window with no anomaly has any cell
    flagged with probability at most ``alpha``, under the null of ``count_model``:
    ``"overdispersed"`` (volume varying, variance proportional to the mean, dispersion learnt,
    approximate), ``"multinomial"`` (records i.i.d.) or ``"poisson"`` (fixed rate per cell; a volume
    swing is flagged). Everything is post-processing of the releases. The paper's ``"kse"`` (Step 5)
    flags the tail of the pooled scores, so windows with no anomaly are flagged too. Derivations:
    :ref:`proofs-dpoad-analyst` on :doc:`/proofs`.

    References
    ----------
    .. [1] R. L. Berger, D. D. Boos. P values maximized over a confidence set
       for the nuisance parameter. JASA 89(427), 1994.
    .. [2] S. Holm. A simple sequentially rejective multiple test procedure.
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [3] P. McCullagh, J. A. Nelder. Generalized Linear Models, 2nd ed.,
       1989, Sec. 4.5 (quasi-Poisson dispersion estimated from Pearson
       residuals) and Sec. 6.2 (over-dispersed multinomial counts).
    .. [4] F. E. Satterthwaite. An approximate distribution of estimates of
       variance components. Biometrics Bulletin 2(6), 1946.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.dpoad import Analyst, DataOwner
    >>> owner = DataOwner(np.linspace(0, 1, 11), epsilon=1.0, max_count=500,
    ...                   mechanism="record", random_state=0)
    >>> analyst = Analyst(max_count=500)
    >>> rng = np.random.default_rng(0)
    >>> for i in range(4):                              # windows 0-2 teach the baseline
    ...     window = rng.uniform(0, 1, 500)
    ...     if i == 3:
    ...         window[:100] = 0.35                     # a burst in bin 3
    ...     report = analyst.receive(owner.release(window))
    ...     owner.receive(report)
    >>> np.flatnonzero(report.anomalies).tolist()
    [3]
    """

    def __init__(
        self,
        *,
        max_count=None,
        detector="baseline",
        alpha=0.05,
        count_model="overdispersed",
        learning_windows=3,
        threshold=0.9,
    ):
        self.max_count = check_int("max_count", max_count, none=True)
        if detector not in DETECTORS:
            raise refusal("detector", f"one of {DETECTORS}", detector)
        self.detector = detector
        self.alpha = check_real("alpha", alpha, 0, 1)
        self.learning_windows = check_int("learning_windows", learning_windows)
        check_count_model(count_model, learning_windows if detector == "baseline" else None)
        self.count_model = count_model
        self.threshold = check_real("threshold", threshold, 0, 1, closed=True)
        self.releases: list = []
        self.pseudo_counts: list = []
        self.reports: list = []
        self.baseline: ProportionBaseline | PoissonBaseline | None = None
        self._feedback = SensitivityFeedback(LINEAR_DISENTANGLER, [0.0], [1.0])
        # the learning windows' noisy counts (count units) and their noise
        self._learning: list = []
        self._detectable: dict = {}  # the baseline's detectable excess under each noise
        # the pool's distinct pseudo-counts and multiplicities (sparse in max_count)
        self._pool_values = np.zeros(0, dtype=np.int64)
        self._pool_multiplicity = np.zeros(0, dtype=np.int64)

    def receive(self, release: WindowRelease) -> AnalystReport:
        """Score the window, learn the count distribution, and report (Steps 5–7)."""
        if not isinstance(release, WindowRelease):
            raise TypeError(
                f"Analyst.receive takes a WindowRelease, got "
                f"{type(release).__name__}: the analyst sees nothing else."
            )
        max_count = release.max_count
        if self.max_count is not None and max_count != self.max_count:
            raise ValueError(
                f"the release's count domain is {{0..{max_count}}}; this analyst "
                f"works over {{0..{self.max_count}}}."
            )
        if self.pseudo_counts and release.values.shape != self.pseudo_counts[0].shape:
            raise ValueError(
                f"the release has {release.values.shape[0]} cells; earlier "
                f"releases had {self.pseudo_counts[0].shape[0]}."
            )
        self.releases.append(release)
        pseudo = self._reconstruct(release)
        self.pseudo_counts.append(pseudo)
        if self.detector == "kse":
            report = self._kse_report(release, pseudo)
        else:
            report = self._baseline_report(release)
        self.reports.append(report)
        return report

    def _kse_report(self, release: WindowRelease, pseudo: np.ndarray) -> AnalystReport:
        distinct, multiplicity = self._pool(pseudo)
        raw = value_scores(distinct, multiplicity)
        scores = normalise_scores(raw)[np.searchsorted(distinct, pseudo)]
        self._feedback = self._learn(distinct, multiplicity, raw, release.max_count)
        return AnalystReport(release.window, scores > self.threshold, scores, self._feedback)

    def _baseline_report(self, release: WindowRelease) -> AnalystReport:
        x, noise = release_counts(release)
        if self.baseline is None:
            self._learning.append((x, noise))
            if len(self._learning) == self.learning_windows:
                counts, noises = zip(*self._learning)
                self.baseline = self._learn_baseline(np.vstack(counts), noises)
                self._learning = []
                self._feedback = benign_feedback(self.baseline.expected, release.max_count)
            n_cells = x.size
            return AnalystReport(
                release.window, np.zeros(n_cells, bool), np.zeros(n_cells), self._feedback
            )
        adjusted, flagged = self.baseline.test(x, noise)
        if noise not in self._detectable:  # the same noise in every window but DPOAD's
            self._detectable[noise] = self.baseline.detectable_excess(noise)
        baseline = self.baseline
        poisson = self.count_model == "poisson"
        expected = baseline.expected if poisson else baseline.expected_counts(x)
        return AnalystReport(
            release.window,
            flagged,
            1.0 - adjusted,
            self._feedback,
            p_values=adjusted,
            expected_counts=expected,
            detectable_excess=self._detectable[noise],
        )

    def _learn_baseline(self, counts, noises):
        if self.count_model == "poisson":
            return PoissonBaseline.learn(counts, noises, self.alpha)
        return ProportionBaseline.learn(
            counts, noises, self.alpha, estimate_dispersion=self.count_model == "overdispersed"
        )

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
            # a zero score is floored at the least positive one: the largest finite weight
            weights = multiplicity * np.maximum(score, positive.min()) ** _SCORE_POWER
        weights = weights / weights.sum()
        support = np.interp(
            distinct / max_count, LINEAR_DISENTANGLER[:, 0], LINEAR_DISENTANGLER[:, 1]
        )
        return SensitivityFeedback(LINEAR_DISENTANGLER, support, weights)


def check_count_model(count_model, learning_windows) -> None:
    """Refuse an unknown count model, or a dispersion with nothing to learn it from
    (``learning_windows`` None skips that check)."""
    if count_model not in COUNT_MODELS:
        raise refusal("count_model", f"one of {COUNT_MODELS}", count_model)
    if count_model == "overdispersed" and learning_windows is not None and learning_windows < 2:
        raise naming(
            ValueError,
            "`count_model='overdispersed'` learns the variation between windows and needs "
            "`learning_windows` >= 2; with one learning window use `count_model='multinomial'` "
            "(records i.i.d. within and across windows) or 'poisson' (constant volume).",
        )


def release_counts(release: WindowRelease) -> tuple[np.ndarray, ReleaseNoise]:
    """A release's noisy values in count units, unclipped, and the noise on them
    (geometric in count space; Laplace of scale ``noise_scale · max_count`` when
    disentangled)."""
    if release.space == "count":
        noise = ReleaseNoise.of_scale(release.noise_scale, lattice=True)
        return release.values.astype(np.float64), noise
    scale = release.max_count
    return release.values * scale, ReleaseNoise.of_scale(release.noise_scale * scale, lattice=False)


def benign_feedback(expected: np.ndarray, max_count: int) -> SensitivityFeedback:
    """The learnt benign count distribution: the cells' Poisson(expected) mixture, mapped by g."""
    top = min(max_count, int(math.ceil(expected.max() + 10.0 * math.sqrt(expected.max()) + 10)))
    support = np.arange(top + 1)
    # rates rounded to 3 significant digits: the mixture over a few hundred distinct ones
    step = 10.0 ** (np.floor(np.log10(np.maximum(expected, 1e-3))) - 2)
    rates, weight = np.unique(np.round(expected / step) * step, return_counts=True)
    pmf = stats.poisson.pmf(support[None, :], np.maximum(rates, 1e-9)[:, None])
    probabilities = weight @ pmf
    g = np.interp(support / max_count, LINEAR_DISENTANGLER[:, 0], LINEAR_DISENTANGLER[:, 1])
    return SensitivityFeedback(LINEAR_DISENTANGLER, g, probabilities / probabilities.sum())
