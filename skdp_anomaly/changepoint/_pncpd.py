"""Private nonparametric change-point detection (Lut 2022, chapter 2)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._warn import warn
from ..privacy._docstrings import fill_doc
from ..privacy import (
    MAX_GRID_EPSILON,
    PrivacyCost,
    PrivacyCostMixin,
    call_rng,
    check_random_state,
    compose_sequential,
)
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, private_fit
from ._core import (
    DIRECTIONS,
    candidate_range,
    pncpd,
    pncpd_mechanism,
    pncpd_noise_scale,
    pncpd_sensitivity,
)
from ._in_memory import reject_dask_collection
from ._online import OnlinePNCPD, stage_costs

__all__ = ["ChangePointNoiseWarning", "PrivateChangePointDetector"]

_OFFLINE_NOTE = "PNCPD (report-noisy-max)"

# a Laplace scale of 1/4 is half the largest gap (1/2) between the score at a
# change and the score without one: the selection is then close to uniform
_MAX_USEFUL_SCALE = 0.25


class ChangePointNoiseWarning(UserWarning):
    """The noise of report-noisy-max outweighs any possible change (parameters only)."""


def _warn_if_noise_dominates(n: int, gamma: float, epsilon: float, what: str,
                             total_epsilon: float) -> None:
    """Warn when PNCPD on ``n`` points at ``epsilon`` is close to a uniform guess.

    ``n`` is public under replace-one neighbours, so this reads no private data.
    """
    scale = 2.0 * pncpd_sensitivity(n, gamma) / epsilon  # the nominal 2Δ/ε of Algorithm 3
    if scale <= _MAX_USEFUL_SCALE:
        return
    needed = math.ceil(2.0 / (_MAX_USEFUL_SCALE * epsilon * gamma))
    warn(
        f"PrivateChangePointDetector: the {what} has {n} samples; with epsilon="
        f"{total_epsilon:g} and gamma={gamma:g} the report-noisy-max noise has Laplace scale "
        f"{scale:.3g}, above {_MAX_USEFUL_SCALE}, half the largest possible gap between the "
        "statistic at a change and without one, so the reported change point is close to a "
        f"uniform guess. Use at least {needed} samples, or a larger epsilon or gamma.",
        ChangePointNoiseWarning,
    )


@fill_doc
class PrivateChangePointDetector(PrivacyCostMixin, BaseEstimator):
    """Differentially private nonparametric change-point detector (PNCPD).

    Offline (``window=None``), :meth:`fit` privately estimates the single
    change point ``k`` of a series (Algorithm 3 of Lut 2022): report-noisy-max
    over ``k ∈ {⌈γn⌉, ..., ⌊(1-γ)n⌋}`` of the Mann–Whitney statistic

        ``V(k) = #{i <= k < j : x_i > x_j} / (k (n - k))``   (Eq. (2.1)).

    Online (``window`` and ``threshold`` given), :meth:`partial_fit` runs
    ONLINEPNCPD (Algorithm 4) over a stream fed in chunks: AboveThreshold
    on the statistic at the centre of the sliding window of the last
    ``window`` points, then PNCPD on a window around the alarm; it halts after
    one detection. :meth:`fit` runs the online algorithm from scratch over a
    whole series.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy parameter ε (total, for both modes), in ``(0, 2^20]`` (beyond,
        the float-safe noise would approach its double-precision limits). The
        non-private baseline of the thesis' experiments (ε = ∞) is available
        from :func:`pncpd_batch` with ``epsilon=np.inf``, not from the
        estimator.
    gamma : float, default=0.1
        Constraint γ: the change is assumed to lie in
        ``{⌈γn⌉, ..., ⌊(1-γ)n⌋}``; in ``(0, 1/2)`` offline and in
        ``(0, 1/4)`` online (Theorem 2.6; ``n`` is the window there).
    direction : {"both", "increase", "decrease"}, default="both"
        ``"decrease"``: post-change values tend to be smaller
        (``a = P(x_pre > x_post) > 1/2``; argmax of V, the thesis' default).
        ``"increase"``: they tend to be larger (argmin of V, i.e. argmax of
        ``1 - V``). ``"both"``: one report-noisy-max over the ``2m`` scores
        ``V(k)`` and ``1 - V(k)`` together; ``direction_`` tells which won.
        Same ε for all three (see Notes).
    window : int, default=None
        Online window length ``n`` (even, >= 4). ``None``: offline mode.
    threshold : float in (0.5, 1), default=None
        AboveThreshold threshold ``T`` (online mode only; required there, and
        refused without ``window``) on
        the centre statistic ``U`` of each window (``"decrease"``), on
        ``1 - U`` (``"increase"``) or on ``max(U, 1 - U)`` (``"both"``); all
        are ``≈ 1/2`` without a change. See :func:`threshold_range` for the
        admissible range of Theorem 2.6; the thesis uses ``T = 0.8``.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the privacy noise. ``None`` (OS entropy) is the only safe
        choice in deployment; fixed seeds are for tests and experiments. No
        generator is kept after a call: online, each :meth:`partial_fit`
        draws from a generator of its own (an int seed gives each call a
        child of the seed), and only the noisy threshold of AboveThreshold,
        which the run needs, is kept until it halts.
    {accountant}
        Offline ε is charged before the selection; online ε/2 before the
        first window is answered and ε/2 more before the change point is
        selected, each once per run, the reservation lasting until the
        detection.

    Attributes
    ----------
    change_point_ : int or None
        Private estimate ``k̃`` of the number of pre-change samples, i.e. the
        0-based index of the first post-change sample (absolute stream index
        online; ``None`` online until a detection).
    direction_ : str or None
        ``"decrease"`` or ``"increase"``: the direction of the reported
        change (the winning half of the scores for ``direction="both"``,
        else the parameter). DP output like ``change_point_``.
    noise_scale_ : float
        Laplace scale ``2Δ/ε`` used by (the last) PNCPD (offline: from the
        series length; online: from ``window`` with ``ε/2``).
    detected_ : bool
        Offline: always True. Online: whether the change point was reported.
    alarm_index_ : int or None
        Online only: centre ``c`` of the window on which AboveThreshold
        raised the alarm (the thesis' ``k`` in ``U(k)``; the alarm fired on
        the arrival of sample ``c + window/2 - 1``).
    n_seen_ : int
        Samples read (online: up to and including the one that completed the
        detection; the rest of that chunk is not read).
    privacy_spent_ : PrivacyCost
        ε spent by the outputs released so far (see Notes).
    n_features_in_ : int
        Always 1.

    See Also
    --------
    threshold_range : Admissible thresholds of Theorem 2.6.
    drift_transform, drift_index_to_original : Drift changes (§2.5).

    Notes
    -----
    **Neighbouring relation and guarantee.** Pure ε-DP under "replace one
    element" neighbours: series (or streams) of the same length that differ
    in the value of one sample. Nothing data-dependent other than the
    reported indices (and their direction) is stored: the noiseless ``V(k)``
    and the noisy scores are discarded.

    **Sensitivity (offline, Theorem 2.3).** Replacing ``x_t`` changes the
    count of ``V(k)`` by at most ``n - k`` (``t <= k``) or ``k`` (``t > k``),
    so ``V(k)`` moves by at most ``1/min(k, n-k)`` and every candidate by at
    most ``Δ = 1/min(⌈γn⌉, n - ⌊(1-γ)n⌋) = 1/⌈γn⌉ <= 1/(γn)``. The scores are
    not monotone, so report-noisy-max uses ``Lap(2Δ/ε)`` — Algorithm 3's
    ``Lap(2/(εγn))`` when ``γn`` is an integer, slightly less noise
    otherwise (exact ``Δ`` from the integer range). ``direction="both"``
    adds the candidates ``1 - V(k)``, of the same sensitivity ``Δ``; the
    report-noisy-max proof (fix the other noises, shift the winner's noise by
    ``2Δ``) does not depend on the number of candidates, so the same ε covers
    the doubled candidate set: knowing ``a`` only picks half of the
    candidates, it does not pay for privacy.

    **Floating point.** All noise is discrete Laplace on a power-of-two grid
    (scores, queries and threshold rounded to it, the rounding counted in the
    sensitivity): comparisons are exact integer comparisons, so no float
    rounding can decide an outcome differently for two neighbours. The
    scales are within ``2^-20`` of the continuous ones.

    **Online (Theorem 2.5).** Each window's centre statistic ``U`` has
    sensitivity ``2/n``; AboveThreshold with ``ε/2`` (threshold noise
    ``Lap(8/(εn))``, query noise ``Lap(16/(εn))``) is ε/2-DP for the whole
    transcript (all "no alarm" answers and the alarm), whatever its length;
    PNCPD with ``ε/2`` on one window of ``n`` samples adds ε/2: ε in total.
    ``privacy_spent_`` is therefore 0 before the first full window, ε/2 from
    the first answered window on (the "no alarm yet" answers are outputs),
    and ε after the detection. With ``"increase"`` the query is ``1 - U``,
    with ``"both"`` ``max(U, 1 - U)`` (also sensitivity ``2/n``).

    **Choices where the thesis is loose.** Offline ``γn`` is rounded to the
    integer range and ``Δ`` computed from it (above). Online, queries start
    with the first full window (``k = n/2``), ``window`` must be even, and
    the wait after an alarm is ``⌈γn⌉`` samples. ``change_point_`` counts
    pre-change samples (the thesis' ``k``), so ``predict`` labels sample
    ``i`` as 1 iff ``i >= change_point_``.

    **State kept between** :meth:`partial_fit` **calls.** To continue the
    stream, a running online detector keeps (privately, in ``_online``) the
    last ``window`` samples, the pair count of the last window and
    AboveThreshold's noisy threshold (no generator); they are not DP outputs,
    so do not publish a pickled running detector. They are discarded at the
    detection.

    **Interrupted calls.** :meth:`fit` and :meth:`partial_fit` are
    transactions: a call that raises (``KeyboardInterrupt`` included) puts
    the detector back as it was before the call, stream state and counters
    (``n_seen_``) together, so the same chunk can be fed again and no sample
    is read twice. A charge the call made stays in ``privacy_spent_`` (and on
    the accountant): the release it paid for may have started. Online, the
    retry does not charge that stage again — the answers of the rolled-back
    call were never returned — so a run is charged ε at most, however often
    its calls are retried.

    **Complexity.** ``V(k)`` for all ``k`` comes from one stable ranking
    pass: ``S(k) = Σ_{t<k} (r_t - t)`` with ``r_t`` the stable rank of
    ``x_t`` (exact integers, ties as in (2.1)), O(n log n). Online updates
    of ``U`` are vectorised over blocks of window positions, O(n) each.

    **Memory.** ``V(k)`` needs the global ranks of the whole series, so the
    detector works in memory and refuses dask collections (a TypeError
    rather than a blockwise statistic that would be wrong). An offline
    :meth:`fit` holds the float64 series (8 bytes per sample) plus about 32
    bytes per sample of working memory (tracemalloc peak, measured at 10^5
    to 4·10^6 samples): 10^8 samples need ~4 GB, 10^9 ~40 GB. Online,
    :meth:`partial_fit` keeps O(``window``) samples between calls whatever
    the stream length, so a dask array is fed block by block in order:
    ``for block in x.blocks: det.partial_fit(block.compute())``.

    References
    ----------
    Lut, *Privacy-Aware Data Analysis*, PhD thesis, Columbia University,
    2022, chapter 2: Eq. (2.1), Algorithm 3 and Theorems 2.3–2.4 (offline),
    Algorithm 4 and Theorems 2.5–2.6 (online), §2.5 (drift).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.changepoint import PrivateChangePointDetector
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(0, 1, 600), rng.normal(3, 1, 400)])
    >>> det = PrivateChangePointDetector(epsilon=2.0, random_state=0).fit(x)
    >>> abs(det.change_point_ - 600) <= 20, det.direction_
    (True, 'increase')
    >>> labels = det.predict(x)
    >>> int(labels.sum()) == len(x) - det.change_point_
    True
    >>> det.privacy_spent_.epsilon
    2.0

    Online, over a stream fed in chunks:

    >>> stream = np.concatenate([rng.normal(5, 1, 3000), rng.normal(0, 1, 2000)])
    >>> online = PrivateChangePointDetector(epsilon=10.0, window=500, threshold=0.8,
    ...                                     direction="decrease", random_state=0)
    >>> for chunk in np.array_split(stream, 50):
    ...     online = online.partial_fit(chunk)
    ...     if online.detected_:
    ...         break
    >>> abs(online.change_point_ - 3000) <= 50
    True
    """

    # the state of an online run: the algorithm's (samples, noisy threshold), the
    # call counter that picks each call's generator, and whether the run goes on
    _private_state = ("_online", "_n_calls", "_keeps_run_open")

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        # above MAX_GRID_EPSILON the grid noise would approach its float limits
        "epsilon": [Interval(Real, 0, MAX_GRID_EPSILON, closed="right")],
        "gamma": [Interval(Real, 0, 0.5, closed="neither")],
        "direction": [StrOptions(set(DIRECTIONS))],
        "window": [Interval(Integral, 4, None, closed="left"), None],
        # Theorem 2.6's [T_L, T_U] lies inside (1/2, a] ⊆ (1/2, 1]: the queries are
        # ≈ 1/2 without a change and at most 1, so other thresholds alarm on noise
        "threshold": [Interval(Real, 0.5, 1.0, closed="neither"), None],
    }

    def __init__(self, *, epsilon=1.0, gamma=0.1, direction="both", window=None,
                 threshold=None, random_state=None, accountant=None):
        self.epsilon = epsilon
        self.gamma = gamma
        self.direction = direction
        self.window = window
        self.threshold = threshold
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ protocol
    def _privacy_cost(self) -> PrivacyCost:
        """The ε of one fit (offline) or one full online run, from valid parameters.

        Examples
        --------
        >>> from skdp_anomaly.changepoint import PrivateChangePointDetector
        >>> PrivateChangePointDetector(epsilon=0.5).privacy_cost()
        PrivacyCost(epsilon=0.5, delta=0, notion='pure ε-DP', neighbours='replace')
        """
        if self.window is None:
            return PrivacyCost.pure(self.epsilon, _OFFLINE_NOTE, neighbours="replace")
        return PrivacyCost.pure(self.epsilon, "ONLINEPNCPD: AboveThreshold ε/2 + PNCPD ε/2",
                                neighbours="replace")

    # ---------------------------------------------------------- validation
    def _check_series(self, X, *, reset: bool) -> np.ndarray:
        X = validate_data(self, X, reset=False, ensure_2d=False, dtype=np.float64,
                          ensure_min_samples=1)
        if X.ndim == 2:
            if X.shape[1] != 1:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    "1 features as input: X must be one series of shape (n_samples,) or "
                    "(n_samples, 1)."
                )
            X = X[:, 0]
        if reset:
            self.n_features_in_ = 1
        return X

    @staticmethod
    def _check_stream_chunk(X):
        """Fast path for the common stream chunk, a float64 ndarray of shape
        (m,) or (m, 1): the same checks as :meth:`_check_series` without its
        ~20 µs of overhead per call, which dominates point-by-point feeding.
        Returns None for any other input (then the full validation runs)."""
        if not (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.size):
            return None
        if X.ndim == 2 and X.shape[1] == 1:
            X = X[:, 0]
        if X.ndim != 1 or not np.isfinite(X).all():
            return None  # the full validation raises the usual error
        return X

    def _more_validate_params(self) -> None:
        """The checks between parameters: which ones each mode takes, and Theorem 2.6's."""
        if self.window is None:
            if self.threshold is not None:
                raise ValueError(
                    f"threshold={self.threshold!r} is used only in online mode, but "
                    "window=None; set window (an even int >= 4) for online detection, or "
                    "threshold=None."
                )
            return
        if self.threshold is None:
            raise ValueError("threshold must be a float in online mode (window is not None); "
                             "got None. See threshold_range for Theorem 2.6's range.")
        if self.window % 2:
            raise ValueError(f"window must be an even int >= 4, got {self.window!r}.")
        if not self.gamma < 0.25:
            raise ValueError(f"gamma must be in the range (0, 0.25) in online mode "
                             f"(Theorem 2.6), got {self.gamma!r}.")
        candidate_range(self.window, self.gamma)

    # ---------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    @private_fit
    def fit(self, X, y=None):
        """Estimate the change point of the series ``X`` (offline, or online from scratch).

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, 1)
            The series, in time order.
        y : None
            Ignored.

        Returns
        -------
        self : PrivateChangePointDetector

        Raises
        ------
        TypeError
            If ``X`` is a dask collection (the statistic needs the global
            ranks of the whole series; see Notes, "Memory").
        """
        reject_dask_collection(X, f"{type(self).__name__}.fit", advice="fit")
        if self.window is not None:
            self._start_online_run(may_resume=False)
            x = self._check_series(X, reset=True)
            self._start_online()
            return self._online_feed(x)
        self._start_private_fit()
        x = self._check_series(X, reset=True)
        n = x.shape[0]
        candidate_range(n, self.gamma)
        _warn_if_noise_dominates(n, self.gamma, self.epsilon, "series", self.epsilon)
        rng = check_random_state(self.random_state)
        mechanism = pncpd_mechanism(n, self.gamma, self.epsilon)
        self._charge(mechanism.cost.with_notes(_OFFLINE_NOTE))
        self.change_point_, self.direction_ = pncpd(x, self.epsilon, self.gamma, self.direction, rng)
        self.noise_scale_ = mechanism.scale
        self.detected_ = True
        self.alarm_index_ = None
        self.n_seen_ = n
        self.privacy_spent_ = self._spent()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    @private_fit
    def partial_fit(self, X, y=None):
        """Feed the next chunk of the stream to ONLINEPNCPD (Algorithm 4).

        Requires ``window`` and ``threshold``. The first call starts a new
        run (as does :meth:`fit`; later calls continue it). After the
        detection the detector has halted: the rest of the detecting chunk
        is not read and further chunks are ignored (not read), so a loop
        ``for chunk in stream: det.partial_fit(chunk)`` runs to the end; check
        ``detected_`` to stop early, and call :meth:`fit` or clone the
        estimator to start a new run.

        Each call is all or nothing: a call that raises (``KeyboardInterrupt``
        included) leaves the run as it was before it, so feeding the same
        chunk again continues the stream exactly; only a charge it made stays
        (in ``privacy_spent_`` and on the accountant) and is not made again.

        Parameters
        ----------
        X : array-like of shape (n_chunk,) or (n_chunk, 1)
            The next samples of the stream, in time order.
        y : None
            Ignored.

        Returns
        -------
        self : PrivateChangePointDetector

        Raises
        ------
        TypeError
            If ``X`` is a dask collection: feed its blocks in order as NumPy
            arrays instead (see Notes, "Memory").
        """
        reject_dask_collection(X, f"{type(self).__name__}.partial_fit", advice="partial_fit")
        if self.window is None:
            raise ValueError("partial_fit needs the online mode: set window (an even int) "
                             "and threshold; got window=None.")
        state = getattr(self, "_online", None)
        if state is None:
            self._start_online_run(may_resume=True)
            x = self._check_series(X, reset=True)
            self._start_online()
            return self._online_feed(x)
        if state.detected:
            return self  # halted after its single detection (Algorithm 4)
        self._reserve_rest_of_run(state)
        x = self._check_stream_chunk(X)
        if x is None:
            x = self._check_series(X, reset=False)
        return self._online_feed(x)

    # ------------------------------------------------------ online run state
    def _start_online_run(self, *, may_resume: bool) -> None:
        """Validate, then reserve the run's budget (before any data is read).

        ``may_resume`` (:meth:`partial_fit`): when the call that started this
        run failed after a charge, its answers were rolled back unseen and its
        charge stays in the run; the retry continues that run, so only the
        stages not charged yet are reserved (and later charged).
        """
        cost = self.privacy_cost()
        _warn_if_noise_dominates(self.window, self.gamma, self.epsilon / 2, "window",
                                 self.epsilon)
        costs = stage_costs(self.window, self.gamma, self.epsilon)
        if may_resume and not self.__sklearn_is_fitted__() and any(map(self._charged, costs)):
            self._open_run(self._rest_of_run(costs))
        else:
            self._start_private_fit(cost)

    def _charged(self, cost: PrivacyCost) -> bool:
        """Whether the run has made the stage charge ``cost`` (named by its last note).

        The charges of a run survive a rolled-back call (the protocol keeps
        them), so a retry finds the charge of the call it repeats here.
        """
        note = cost.notes[-1]
        return any(made == cost and note in made.notes
                   for made in self.__dict__.get("_charges", ()))

    def _reserve_rest_of_run(self, state: OnlinePNCPD) -> None:
        """Reserve what the run has still to charge, when no reservation is open.

        The protocol releases a run's reservation when a call fails; the
        next call takes it up again.
        """
        if self.__dict__.get("_budget_run") is None:
            self._open_run(self._rest_of_run(state.stage_costs))

    def _rest_of_run(self, costs) -> PrivacyCost:
        """The stage charges among ``costs`` that the run has not made yet."""
        rest = [cost for cost in costs if not self._charged(cost)]
        return compose_sequential(rest) if rest else PrivacyCost.pure(0.0, neighbours="replace")

    def _start_online(self):
        # no generator is kept between calls: each call draws from its own (call_rng)
        self._n_calls = 0
        self._online = OnlinePNCPD(
            window=self.window, threshold=self.threshold, epsilon=self.epsilon,
            gamma=self.gamma, direction=self.direction,
            rng=call_rng(self.random_state, self._n_calls),
        )
        self.noise_scale_ = pncpd_noise_scale(self.window, self.gamma, self.epsilon / 2)

    def _online_feed(self, x):
        state = self._online
        self._n_calls += 1
        made = []

        def charge_stage(cost: PrivacyCost) -> None:
            # once per run: a retried call finds the charge of the call it repeats
            if not self._charged(cost):
                self._charge(cost)
                made.append(cost)

        state.feed(x, call_rng(self.random_state, self._n_calls), charge=charge_stage)
        self.change_point_ = state.change_point
        self.direction_ = state.detected_direction
        self.detected_ = state.detected
        self.alarm_index_ = state.alarm_index
        self.n_seen_ = state.n_seen
        if made or not hasattr(self, "privacy_spent_"):
            # 0 (under the run's relation) until AboveThreshold answers its first window
            self.privacy_spent_ = self._spent().under("replace")
        self._keeps_run_open = not state.detected  # the reservation lasts until the detection
        return self

    # ------------------------------------------------------------- predict
    def predict(self, X):
        """Segment of each sample: 0 before the change point, 1 from it on.

        Labels depend on positions only (sample ``i`` of ``X`` is at time
        ``i``): ``1`` iff ``i >= change_point_``; all 0 while an online run
        has not detected a change.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, 1)
            The series; only its length is used.

        Returns
        -------
        labels : ndarray of shape (n_samples,), int
            0 before ``change_point_``, 1 from it on.
        """
        check_is_fitted(self, "detected_")
        reject_dask_collection(X, f"{type(self).__name__}.predict", advice="predict")
        x = self._check_series(X, reset=False)
        idx = np.arange(x.shape[0])
        if self.change_point_ is None:
            return np.zeros(x.shape[0], dtype=int)
        return (idx >= self.change_point_).astype(int)

    def fit_predict(self, X, y=None):
        """:meth:`fit` then :meth:`predict` on the same series."""
        return self.fit(X).predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        return tags
