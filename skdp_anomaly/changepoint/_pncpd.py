"""Private nonparametric change-point detection (Lut 2022, chapter 2)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._warn import warn
from ..exceptions import naming
from ..privacy._docstrings import fill_doc
from ..privacy import PrivacyCost, PrivacyCostMixin, compose_sequential
from ..privacy._mechanisms import MAX_GRID_EPSILON
from ..privacy._rng import call_rng, check_random_state
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ..privacy._validation import check_numeric
from ._core import DIRECTIONS, candidate_range, pncpd_noise_scale
from ._in_memory import reject_dask_collection
from ._binseg import (
    check_dependence_epsilon,
    check_segmentation,
    public_rho,
    run_segmentation,
    segmentation_plan,
    stage_cost,
)
from ._online import (
    CALIBRATED_ALARM_SHARE,
    THESIS_ALARM_SHARE,
    OnlinePNCPD,
    stage_costs,
    stream_chunk,
)
from ._dependence import MAX_RHO
from ._models import SERIES
from ._noise_warnings import (
    ChangePointNoiseWarning,
    _warn_if_noise_dominates,
    _check_decidable,
    warn_too_persistent,
)
from ._online_calibration import calibrated_threshold, check_target, default_arl0

_ONLINE_NOTE = "ONLINEPNCPD: AboveThreshold + PNCPD"


@fill_doc
class PrivateChangePointDetector(PrivacyCostMixin, BaseEstimator):
    """Differentially private nonparametric change-point detector.

    Offline (``window=None``), :meth:`fit` finds **several change points, or none**, by private
    binary segmentation with the Mann–Whitney rank statistic of Lut 2022, Eq. (2.1): each segment
    gets a noisy rank test of "no change here" at level ``alpha`` and, if it passes, a
    report-noisy-max location; or exactly ``n_change_points`` by greedy report-noisy-max.
    :func:`~skdp_anomaly.changepoint.binary_segmentation` is the same search without privacy.

    Online (``window`` given), :meth:`partial_fit` runs ONLINEPNCPD (Algorithm 4) over a stream fed
    in chunks: AboveThreshold on the centre statistic of the last ``window`` points, then PNCPD
    (Algorithm 3) around the alarm; it halts after one detection. The threshold is given, or
    calibrated to an average run length ``arl0`` (default) or to ``alpha`` over ``horizon`` points.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy parameter ε (both modes), in ``(0, 2^20]``. For a non-private reference use
        ``binary_segmentation`` or ``pncpd_batch`` with ``epsilon=np.inf``.
    n_change_points : "auto" or int, default="auto"
        Offline: ``"auto"`` decides how many (0 to ``max_change_points``)
        with private tests at level ``alpha``; an int ``k``: exactly ``k``.
    max_change_points : int, default=10
        Offline ``"auto"``: at most this many; sets the number of levels
        ``L = ⌈log2(max_change_points + 1)⌉`` the budget is split over.
    min_size : int or None, default=None
        Offline: the shortest segment (public). None: ``max(2, ⌈n/20⌉)``.
    alpha : float in [0.001, 0.5], default=0.05
        False-alarm level. Offline: of each level of tests (Bonferroni over its segments); on a
        series without change ``P(any change reported) <= alpha``. Online with ``threshold=None``
        and ``horizon``: of any alarm within ``horizon`` points (not used with ``arl0``).
    gamma : float, default=0.1
        Online only: Algorithm 4's γ in ``(0, 1/4)``: the wait ``⌈γ·window⌉``
        after an alarm and PNCPD's candidates ``{⌈γn⌉, ..., ⌊(1-γ)n⌋}``.
    direction : {"both", "increase", "decrease"}, default="both"
        Whether post-change values tend to be smaller (``"decrease"``),
        larger (``"increase"``) or either; same ε for all three.
    dependence : "estimate", "none" or float in [0, 0.95], default="estimate"
        The null of the offline tests (Notes): ``"estimate"``, stationary series up to an AR(1) with
        φ = 0.95, bounded from a noisy count of turning points (15 % of ε; online: nothing spent,
        φ = 0.5); ``"none"``: exchangeable values; a float: a public AR(1) φ. Unused with
        ``n_change_points=k``.
    series : {"auto", "level", "increments"}, default="auto"
        Offline: ``"level"`` tests changes of level and spread; ``"increments"`` of slope and spread
        (``np.diff(x)``: random walks, trends); ``"auto"`` chooses from the turning-point count and
        checks one-way level changes for a trend (15 % of ε). Online: levels only.
    window : int, default=None
        Online window length (even, >= 4). ``None``: offline mode.
    threshold : float in (0.5, 1), default=None
        Online: AboveThreshold's threshold on the centre statistic (the thesis
        uses 0.8; :func:`~skdp_anomaly.changepoint.threshold_range`). None:
        calibrated (``threshold_``). Refused offline.
    horizon : int, default=None
        Online with ``threshold=None``: the stream length (points, >= ``window``) over which
        ``alpha`` bounds the false alarms. None: calibrated to ``arl0``.
    arl0 : int, default=None
        Online with ``threshold=None``: the mean number of points read
        before a false alarm on a stream without change (>= ``2 * window``).
        None (with ``horizon=None``): ``1000 * window``. Not with ``horizon``.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the privacy noise: ``None`` (OS entropy) in deployment, seeds
        for tests and experiments only. No generator is kept after a call.
    {accountant}
        Offline each level's stages are charged right before they are made; online AboveThreshold's
        share before the first window is answered and the rest before the change point is selected.

    Attributes
    ----------
    change_points_ : ndarray of int64
        Sorted first post-change indices (0-based), possibly empty (online:
        the detected change point, absolute stream index).
    change_point_ : int or None
        ``change_points_[0]``, or None when there is none.
    directions_ : ndarray of str
        ``"decrease"`` or ``"increase"`` for each change point (DP output):
        of the level, the slope or the spread (``change_kinds_``).
    change_kinds_ : ndarray of str
        What changed at each change point (DP output): ``"level"``,
        ``"slope"`` (a level change of the increments) or ``"spread"``.
    series_ : str or None
        Offline: ``"level"``, ``"increments"`` or ``"trend"`` (none reported);
        a DP output for ``"auto"``. None online.
    direction_ : str or None
        ``directions_[0]``, or None.
    n_change_points_ : int
        ``len(change_points_)``.
    min_size_ : int
        Offline: the shortest segment used (``min_size`` or its default).
    serial_dependence_ : float or None
        The AR(1) ``φ`` the tests (or the online threshold) were calibrated
        for: the DP bound ``φ⁺`` (``inf``: too persistent, no test, with a
        :class:`~skdp_anomaly.exceptions.ChangePointNoiseWarning`), a float
        ``dependence`` rounded up to 0.05, or 0. None when nothing is calibrated.
    noisy_turning_points_ : int or None
        Offline, ``dependence="estimate"``: the released noisy count of
        turning points (DP output); None otherwise.
    threshold_ : float
        Online: the threshold used (``threshold`` or the calibrated one).
    noise_scale_ : float
        Offline: Laplace scale of the location noise (``2/ε_location``);
        online: of PNCPD's (``2Δ/ε_p``, ``ε_p`` the ε left after the alarm).
    detected_ : bool
        Whether at least one change point is reported.
    alarm_index_, alarm_at_ : int or None
        Online only: centre of the alarming window, and the row (0-based, its
        last) whose arrival raised the alarm.
    n_seen_ : int
        Samples read.
    privacy_spent_ : PrivacyCost
        ε spent by the outputs released so far (see Notes).
    n_features_in_ : int
        Always 1.

    See Also
    --------
    skdp_anomaly.changepoint.binary_segmentation : The same offline search,
        non-private by default.
    skdp_anomaly.changepoint.threshold_range : Admissible thresholds of Theorem 2.6.
    skdp_anomaly.changepoint.drift_transform : Drift changes (§2.5).

    Notes
    -----
    Pure ε-DP under "replace one element" neighbours: series (or streams) of the same length
    (public) that differ in one sample. Offline every statistic has sensitivity 1; a level's
    segments compose in parallel and the levels sequentially to ε. Online (Theorem 2.5)
    AboveThreshold gets ``ε/2`` with a given ``threshold`` and ``3ε/4`` with the calibrated one,
    PNCPD the rest; all noise is float-safe. ``privacy_spent_`` counts the stages reached. Offline
    ``P(any change reported) <= alpha`` holds for exchangeable values (``dependence="none"``) or
    stationary dependence the AR(1) bound covers; the calibrated online threshold assumes
    exchangeable values. :meth:`fit` and :meth:`partial_fit` are transactions; a pickled running
    detector cannot go on. In memory only (dask refused). Proofs: :ref:`proofs-changepoint` on
    :doc:`/proofs`.

    References
    ----------
    Lut, *Privacy-Aware Data Analysis*, PhD thesis, Columbia University,
    2022, chapter 2: Eq. (2.1), Algorithm 3 and Theorems 2.3–2.4 (offline),
    Algorithm 4 and Theorems 2.5–2.6 (online), §2.5 (drift).

    Zhang, Krehbiel, Tuo, Mei and Cummings, "Single and multiple change-point detection with
    differential privacy", JMLR 22 (2021): private binary segmentation.

    Mann and Whitney, "On a test of whether one of two random variables is stochastically larger
    than the other", Ann. Math. Statist. 18 (1947): mid-ranks for ties.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.changepoint import PrivateChangePointDetector
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(0, 1, 300), rng.normal(3, 1, 300),
    ...                     rng.normal(0, 1, 300)])
    >>> det = PrivateChangePointDetector(epsilon=5.0, random_state=0).fit(x)
    >>> [bool(abs(k - t) <= 30) for k, t in zip(det.change_points_, (300, 600))]
    [True, True]
    >>> np.bincount(det.predict(x)).size
    3
    >>> det.privacy_spent_.epsilon <= 5.0
    True
    >>> PrivateChangePointDetector(epsilon=1.0, random_state=1).fit(
    ...     rng.normal(size=500)).change_points_.tolist()
    []

    Online, over a stream fed in chunks, with the threshold calibrated:

    >>> stream = np.concatenate([rng.normal(5, 1, 3000), rng.normal(0, 1, 2000)])
    >>> online = PrivateChangePointDetector(epsilon=10.0, window=200,
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
        "epsilon": epsilon_constraint(MAX_GRID_EPSILON),
        "n_change_points": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_change_points": [Interval(Integral, 1, None, closed="left")],
        "min_size": [Interval(Integral, 1, None, closed="left"), None],
        # below 0.001 the simulated calibration would need > 20 000 permutations
        "alpha": [Interval(Real, 0.001, 0.5, closed="both")],
        "gamma": [Interval(Real, 0, 0.5, closed="neither")],
        "direction": [StrOptions(set(DIRECTIONS))],
        "dependence": [StrOptions({"estimate", "none"}), Interval(Real, 0, MAX_RHO, closed="both")],
        "series": [StrOptions(set(SERIES))],
        "window": [Interval(Integral, 4, None, closed="left"), None],
        # Theorem 2.6's [T_L, T_U] lies inside (1/2, a] ⊆ (1/2, 1]: the queries are
        # ≈ 1/2 without a change and at most 1, so other thresholds alarm on noise
        "threshold": [Interval(Real, 0.5, 1.0, closed="neither"), None],
        "horizon": [Interval(Integral, 4, None, closed="left"), None],
        "arl0": [Interval(Integral, 8, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        n_change_points="auto",
        max_change_points=10,
        min_size=None,
        alpha=0.05,
        gamma=0.1,
        direction="both",
        dependence="estimate",
        series="auto",
        window=None,
        threshold=None,
        horizon=None,
        arl0=None,
        random_state=None,
        accountant=None,
    ):
        self.epsilon = epsilon
        self.n_change_points = n_change_points
        self.max_change_points = max_change_points
        self.min_size = min_size
        self.alpha = alpha
        self.gamma = gamma
        self.direction = direction
        self.dependence = dependence
        self.series = series
        self.window = window
        self.threshold = threshold
        self.horizon = horizon
        self.arl0 = arl0
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ protocol
    def _offline_stages(self) -> list[PrivacyCost]:
        counts = (self.n_change_points, self.max_change_points)
        model = dict(dependence=self.dependence, series=self.series)
        return [stage_cost(*stage) for stage in segmentation_plan(self.epsilon, *counts, **model)]

    def _privacy_cost(self) -> PrivacyCost:
        """The ε of one fit (offline) or one full online run, from valid parameters.

        Examples
        --------
        >>> from skdp_anomaly.changepoint import PrivateChangePointDetector
        >>> round(PrivateChangePointDetector(epsilon=0.5).privacy_cost().epsilon, 12)
        0.5
        """
        if self.window is None:
            return compose_sequential(self._offline_stages())
        return PrivacyCost.pure(self.epsilon, _ONLINE_NOTE, neighbours="replace")

    # ---------------------------------------------------------- validation
    def _check_series(self, X, *, reset: bool) -> np.ndarray:
        check_numeric(X, type(self).__name__)  # numpy's own error quotes a value of X
        X = validate_data(
            self, X, reset=False, ensure_2d=False, dtype=np.float64, ensure_min_samples=1
        )
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

    def _more_validate_params(self) -> None:
        """The checks between parameters: which ones each mode takes, and Theorem 2.6's."""
        if self.window is None:
            for name in ("threshold", "horizon", "arl0"):
                if getattr(self, name) is not None:
                    raise naming(
                        ValueError,
                        f"`{name}={getattr(self, name)!r}` is used only in online mode, but "
                        f"`window=None`; set `window` (an even int >= 4) for online detection, "
                        f"or `{name}=None`.",
                    )
            n_cp = self.n_change_points
            if n_cp != "auto" and n_cp > 10_000:
                raise naming(ValueError, f"`n_change_points` must be at most 10000, got {n_cp!r}.")
            check_dependence_epsilon(self.epsilon, n_cp, self.dependence, self.series)
            return
        window, horizon, arl0 = self.window, self.horizon, self.arl0
        if window % 2:
            raise naming(ValueError, f"`window` must be an even int >= 4, got {window!r}.")
        if not self.gamma < 0.25:
            raise naming(
                ValueError,
                f"`gamma` must be in the range (0, 0.25) in online mode "
                f"(Theorem 2.6), got {self.gamma!r}.",
            )
        for name in ("horizon", "arl0"):
            if getattr(self, name) is not None and self.threshold is not None:
                raise naming(
                    ValueError,
                    f"`{name}={getattr(self, name)!r}` calibrates the threshold; it "
                    "is not used with a given threshold: set `threshold=None`.",
                )
        if horizon is not None and arl0 is not None:
            raise naming(
                ValueError,
                f"`horizon={horizon!r}` and `arl0={arl0!r}` are two ways to "
                "calibrate the threshold: give one of them (or neither, for the "
                "default `arl0`).",
            )
        check_target(window, horizon, arl0)
        candidate_range(window, self.gamma)

    # ---------------------------------------------------------------- fit
    def _reservation(self, method: str) -> PrivacyCost | None:
        if method == "fit" and self.window is None:
            return self.privacy_cost()
        if not (method == "partial_fit" and self.__sklearn_is_fitted__()):
            self._check_params()
        return None  # an online run reserves its stages itself: a retried call resumes it

    def _record(self) -> None:
        if self.window is None:
            super()._record()
        else:  # 0 (under the run's relation) until AboveThreshold answers its first window
            self.privacy_spent_ = self._spent().under("replace")

    def _private_fit(self, X, y=None):
        """Find the change points of the series ``X`` (offline, or online from scratch).

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
            If ``X`` is a dask collection (the statistic needs the ranks of whole segments).
        ValueError
            If the series is too short for ``min_size``, ``n_change_points``
            or ``epsilon`` (no change could beat a false alarm): nothing is charged.
        """
        reject_dask_collection(X, f"{type(self).__name__}.fit", advice="fit")
        if self.window is not None:
            return self._start_online_run(X, may_resume=False)
        x = self._check_series(X, reset=True)
        n, n_cp, max_cp = x.shape[0], self.n_change_points, self.max_change_points
        min_size = check_segmentation(n, n_cp, max_cp, self.min_size, self.alpha, self.direction)
        search = dict(n_change_points=n_cp, max_change_points=max_cp, min_size=min_size)
        search.update(alpha=float(self.alpha), direction=self.direction)
        search.update(dependence=self.dependence, series=self.series)
        _check_decidable(n, self.epsilon, **search)
        report, rng = {}, check_random_state(self.random_state)
        found = run_segmentation(
            x, epsilon=float(self.epsilon), rng=rng, charge=self._charge, report=report, **search
        )
        self._set_change_points(
            [k for k, *_ in found], [name for _, name, _ in found], [kind for *_, kind in found]
        )
        default = "increments" if self.series == "increments" else "level"
        self.series_ = report.get("series", default)
        self._set_dependence(report, n)
        self.min_size_ = min_size
        plan = segmentation_plan(self.epsilon, n=n, **search)
        self.noise_scale_ = next(m for kind, m in plan if kind == "location").scale
        self.alarm_index_ = self.alarm_at_ = None
        self.n_seen_ = n
        return self

    def _set_dependence(self, report: dict, n: int) -> None:
        """``serial_dependence_`` and ``noisy_turning_points_`` (DP outputs or public)."""
        rho = report.get("rho")  # absent with n_change_points=k: no test
        self.serial_dependence_ = None if rho is None else float(rho)
        self.noisy_turning_points_ = report.get("noisy_turning_points")
        if rho is not None and math.isinf(rho):
            warn_too_persistent(self.noisy_turning_points_, n, self.series_)

    def _set_change_points(self, points, names, kinds) -> None:
        self.change_points_ = np.asarray(points, dtype=np.int64)
        self.directions_ = np.asarray(names, dtype=str) if names else np.empty(0, dtype="<U8")
        self.change_kinds_ = np.asarray(kinds, dtype=str) if kinds else np.empty(0, dtype="<U6")
        self.change_point_ = int(points[0]) if len(points) else None
        self.direction_ = str(names[0]) if len(names) else None
        self.n_change_points_ = len(points)
        self.detected_ = bool(len(points))

    def _private_partial_fit(self, X, y=None):
        """Feed the next chunk of the stream to ONLINEPNCPD (Algorithm 4).

        The first call starts a new run (as :meth:`fit` does); later calls continue it. After the
        detection the run has halted: later chunks are ignored, so check ``detected_`` to stop
        early, and call :meth:`fit` or clone the estimator to start again. A call that raises leaves
        the run as it was (feeding the same chunk again continues it exactly); only a charge it made
        stays, and is not made again.

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
            arrays instead (the online mode keeps only the last window).
        """
        reject_dask_collection(X, f"{type(self).__name__}.partial_fit", advice="partial_fit")
        if self.window is None:
            raise naming(
                ValueError,
                "partial_fit needs the online mode: set `window` (an even int) "
                "and `threshold`; got `window=None`.",
            )
        state = getattr(self, "_online", None)
        if state is None:
            return self._start_online_run(X, may_resume=True)
        if state.detected:
            return self  # halted after its single detection (Algorithm 4)
        state.check_resumable(type(self).__name__)
        self._reserve_rest_of_run(state)
        x = stream_chunk(X)
        if x is None:
            x = self._check_series(X, reset=False)
        return self._online_feed(x)

    # ------------------------------------------------------ online run state
    def _start_online_run(self, X, *, may_resume: bool):
        """Validate, reserve the run's budget (before any data is read), then feed ``X``;
        ``may_resume``: a retry of a failed first call continues its run, reserving only the stages
        not charged yet."""
        cost = self.privacy_cost()
        share = self._alarm_share()
        pncpd_epsilon = self.epsilon * (1 - share)
        _warn_if_noise_dominates(self.window, self.gamma, pncpd_epsilon, "window", self.epsilon)
        self._online_threshold()
        costs = stage_costs(self.window, self.gamma, self.epsilon, share)
        if may_resume and not self.__sklearn_is_fitted__() and any(map(self._charged, costs)):
            self._open_run(self._rest_of_run(costs))
        else:
            self._start_private_fit(cost)
        x = self._check_series(X, reset=True)
        self._start_online()
        return self._online_feed(x)

    def _charged(self, cost: PrivacyCost) -> bool:
        """Whether the run has made the stage charge ``cost`` (named by its last note); a
        run's charges survive a rolled-back call, so a retry finds them here."""
        note, charges = cost.notes[-1], self.__dict__.get("_charges", ())
        return any(made == cost and note in made.notes for made in charges)

    def _reserve_rest_of_run(self, state: OnlinePNCPD) -> None:
        """Reserve what the run has still to charge, when no reservation is open (the
        protocol releases it when a call fails)."""
        if self.__dict__.get("_budget_run") is None:
            self._open_run(self._rest_of_run(state.stage_costs))

    def _rest_of_run(self, costs) -> PrivacyCost:
        """The stage charges among ``costs`` that the run has not made yet."""
        rest = [cost for cost in costs if not self._charged(cost)]
        return compose_sequential(rest) if rest else PrivacyCost.pure(0.0, neighbours="replace")

    def _alarm_share(self) -> float:
        """AboveThreshold's share of ε: Algorithm 4's 1/2 with a given threshold, 3/4 with
        the calibrated one (Notes)."""
        return THESIS_ALARM_SHARE if self.threshold is not None else CALIBRATED_ALARM_SHARE

    def _online_threshold(self, warn_if_useless: bool = True) -> float:
        """The given threshold, or the calibrated one (public: no data)."""
        if self.threshold is not None:
            return float(self.threshold)
        # the lag-1 correlation of the null's copula (public): online, "estimate" spends
        # nothing and calibrates for the floor of the offline bound (Notes)
        target = dict(rho=public_rho(self.dependence))
        if self.horizon is not None:
            target.update(horizon=int(self.horizon))
            what = f"`alpha={self.alpha:g}` over {self.horizon} points"
        else:
            arl0 = default_arl0(self.window) if self.arl0 is None else int(self.arl0)
            target.update(arl0=arl0)
            what = f"an average run length of {arl0} points"
        epsilon = self.epsilon * self._alarm_share()
        alpha = float(self.alpha)
        threshold = calibrated_threshold(self.window, epsilon, self.direction, alpha, **target)
        if threshold > 1.0 and warn_if_useless:
            warn(
                naming(
                    ChangePointNoiseWarning,
                    f"PrivateChangePointDetector: with `window={self.window}` and `epsilon="
                    f"{self.epsilon:g}` the threshold calibrated to {what} is {threshold:.3g}, "
                    "above 1, the largest value of the window statistic: only the noise can "
                    "raise an alarm. Use a longer `window` or a larger `epsilon`.",
                )
            )
        return threshold

    def _start_online(self):
        # no generator is kept between calls: each call draws from its own (call_rng)
        self._n_calls = 0
        # _start_online_run has warned about this threshold already, before the data
        self.threshold_ = self._online_threshold(warn_if_useless=False)
        given = self.threshold is not None
        self.serial_dependence_ = None if given else public_rho(self.dependence)
        self.noisy_turning_points_ = self.series_ = None
        share = self._alarm_share()
        self._online = OnlinePNCPD(
            window=self.window,
            threshold=self.threshold_,
            epsilon=self.epsilon,
            gamma=self.gamma,
            direction=self.direction,
            rng=call_rng(self.random_state, self._n_calls),
            alarm_share=share,
        )
        self.noise_scale_ = pncpd_noise_scale(self.window, self.gamma, self.epsilon * (1 - share))

    def _online_feed(self, x):
        state = self._online
        self._n_calls += 1

        def charge_stage(cost: PrivacyCost) -> None:
            # once per run: a retried call finds the charge of the call it repeats
            if not self._charged(cost):
                self._charge(cost)

        state.feed(x, call_rng(self.random_state, self._n_calls), charge=charge_stage)
        if state.detected:
            self._set_change_points([state.change_point], [state.detected_direction], ["level"])
        else:
            self._set_change_points([], [], [])
        self.alarm_index_ = state.alarm_index
        self.alarm_at_ = None if state.alarm_index is None else state.alarm_index + state.h - 1
        self.n_seen_ = state.n_seen
        self._keeps_run_open = not state.detected  # the reservation lasts until the detection
        return self

    # ------------------------------------------------------------- predict
    def predict(self, X):
        """Segment label of each sample: 0, 1, 2, ... from one change point to the next.

        Sample ``i`` of ``X`` is at time ``i``: its label is the number of change
        points ``<= i`` (all 0 while an online run has not detected a change).

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, 1)
            The series; only its length is used.

        Returns
        -------
        labels : ndarray of shape (n_samples,), int
            The segment of each sample.
        """
        check_is_fitted(self, "detected_")
        reject_dask_collection(X, f"{type(self).__name__}.predict", advice="predict")
        x = self._check_series(X, reset=False)
        idx = np.arange(x.shape[0])
        return np.searchsorted(self.change_points_, idx, side="right").astype(int)

    def fit_predict(self, X, y=None):
        """:meth:`fit` then :meth:`predict` on the same series."""
        return self.fit(X).predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        return tags
