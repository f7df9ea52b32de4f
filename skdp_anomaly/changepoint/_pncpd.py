"""Private nonparametric change-point detection (seed 004, chapter 2)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._warn import warn
from ..privacy import (
    MAX_GRID_EPSILON,
    PrivacyCost,
    PrivacyCostMixin,
    call_rng,
    check_random_state,
)
from ._core import DIRECTIONS, candidate_range, pncpd, pncpd_noise_scale, pncpd_sensitivity
from ._in_memory import reject_dask_collection
from ._online import OnlinePNCPD

__all__ = ["ChangePointNoiseWarning", "PrivateChangePointDetector"]

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


class PrivateChangePointDetector(PrivacyCostMixin, BaseEstimator):
    """Differentially private nonparametric change-point detector (PNCPD).

    Offline (``window=None``), :meth:`fit` privately estimates the single
    change point ``k`` of a series (Algorithm 3 of seed 004): report-noisy-max
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
    accountant : diffprivlib BudgetAccountant, default=None
        Checked for the whole ε when a run starts (before the data are read)
        and charged before each release (offline: ε before the selection;
        online: ε/2 before the first window is answered, ε/2 more before the
        change point is selected), so a refused run releases nothing and
        leaves the detector unfitted. ``None`` charges no accountant (pass
        ``BudgetAccountant.load_default(None)`` to share diffprivlib's default
        one).

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
    Seed 004 (thesis), chapter 2: Eq. (2.1), Algorithm 3 and Theorems
    2.3–2.4 (offline), Algorithm 4 and Theorems 2.5–2.6 (online), §2.5
    (drift).

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

    _private_state = ("_online",)

    _parameter_constraints: dict = {
        # above MAX_GRID_EPSILON the grid noise would approach its float limits
        "epsilon": [Interval(Real, 0, MAX_GRID_EPSILON, closed="right")],
        "gamma": [Interval(Real, 0, 0.5, closed="neither")],
        "direction": [StrOptions(set(DIRECTIONS))],
        "window": [Interval(Integral, 4, None, closed="left"), None],
        # Theorem 2.6's [T_L, T_U] lies inside (1/2, a] ⊆ (1/2, 1]: the queries are
        # ≈ 1/2 without a change and at most 1, so other thresholds alarm on noise
        "threshold": [Interval(Real, 0.5, 1.0, closed="neither"), None],
        "random_state": ["random_state", np.random.Generator],
        "accountant": [HasMethods(["spend"]), None],
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
    def privacy_cost(self) -> PrivacyCost:
        """The ε of one fit (offline) or one full online run, from the parameters.

        Examples
        --------
        >>> from skdp_anomaly.changepoint import PrivateChangePointDetector
        >>> PrivateChangePointDetector(epsilon=0.5).privacy_cost()
        PrivacyCost(epsilon=0.5, delta=0, notion='pure ε-DP', neighbours='replace')
        """
        if self.window is None:
            return PrivacyCost.pure(self.epsilon, "PNCPD (report-noisy-max)",
                                    neighbours="replace")
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

    def _check_online_params(self):
        if self.threshold is None:
            raise ValueError("threshold must be a float in online mode (window is not None); "
                             "got None. See threshold_range for Theorem 2.6's range.")
        if self.window % 2:
            raise ValueError(f"window must be an even int >= 4, got {self.window!r}.")
        if not self.gamma < 0.25:
            raise ValueError(f"gamma must be in the range (0, 0.25) in online mode "
                             f"(Theorem 2.6), got {self.gamma!r}.")
        candidate_range(self.window, self.gamma)
        _warn_if_noise_dominates(self.window, self.gamma, self.epsilon / 2, "window",
                                 self.epsilon)

    # ---------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
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
            self._check_online_params()
            self._start_private_fit(self.privacy_cost())
            x = self._check_series(X, reset=True)
            self._start_online()
            return self._online_feed(x)
        if self.threshold is not None:
            raise ValueError(
                f"threshold={self.threshold!r} is used only in online mode, but window=None; "
                "set window (an even int >= 4) for online detection, or threshold=None."
            )
        self._start_private_fit(self.privacy_cost())
        x = self._check_series(X, reset=True)
        n = x.shape[0]
        candidate_range(n, self.gamma)
        _warn_if_noise_dominates(n, self.gamma, self.epsilon, "series", self.epsilon)
        rng = check_random_state(self.random_state)
        self._online = None
        cost = self.privacy_cost()
        self._charge(cost)
        self.change_point_, self.direction_ = pncpd(x, self.epsilon, self.gamma, self.direction, rng)
        self.noise_scale_ = pncpd_noise_scale(n, self.gamma, self.epsilon)
        self.detected_ = True
        self.alarm_index_ = None
        self.n_seen_ = n
        self.privacy_spent_ = cost
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Feed the next chunk of the stream to ONLINEPNCPD (Algorithm 4).

        Requires ``window`` and ``threshold``. The first call starts a new
        run (as does :meth:`fit`; later calls continue it). After the
        detection the detector has halted: the rest of the detecting chunk
        is not read and further chunks are ignored (not read), so a loop
        ``for chunk in stream: det.partial_fit(chunk)`` runs to the end; check
        ``detected_`` to stop early, and call :meth:`fit` or clone the
        estimator to start a new run.

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
        first = getattr(self, "_online", None) is None
        if first:
            self._check_online_params()
        elif self._online.detected:
            return self  # halted after its single detection (Algorithm 4)
        if first:
            self._start_private_fit(self.privacy_cost())
        x = self._check_stream_chunk(X) if not first else None
        if x is None:
            x = self._check_series(X, reset=first)
        if first:
            self._start_online()
        return self._online_feed(x)

    def _start_online(self):
        # no generator is kept between calls: each call draws from its own (call_rng)
        self._n_calls = 0
        self._online = OnlinePNCPD(
            window=self.window, threshold=self.threshold, epsilon=self.epsilon,
            gamma=self.gamma, direction=self.direction,
            rng=call_rng(self.random_state, self._n_calls), charge=self._charge_stage,
        )
        self.privacy_spent_ = PrivacyCost.pure(0.0, neighbours="replace")
        self.noise_scale_ = pncpd_noise_scale(self.window, self.gamma, self.epsilon / 2)

    def _charge_stage(self, epsilon: float) -> None:
        """Charge one stage of ONLINEPNCPD (ε/2) before it releases anything."""
        self._charge(PrivacyCost.pure(epsilon, neighbours="replace"))
        spent = self.privacy_spent_.epsilon + epsilon
        self.privacy_spent_ = PrivacyCost.pure(spent, *self.privacy_cost().notes,
                                               neighbours="replace")

    def _online_feed(self, x):
        state = self._online
        self._n_calls += 1
        state.feed(x, call_rng(self.random_state, self._n_calls))
        self.change_point_ = state.change_point
        self.direction_ = state.detected_direction
        self.detected_ = state.detected
        self.alarm_index_ = state.alarm_index
        self.n_seen_ = state.n_seen
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
