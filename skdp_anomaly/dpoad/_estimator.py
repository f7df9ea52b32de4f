"""DPOAD: differentially private outsourcing of anomaly detection (Mohammady et al.), the facade."""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._data.rows import Rows, is_dask_collection, read_rows
from .._warn import warn
from ..exceptions import DPOADNoiseWarning, naming
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS
from ..privacy._validation import check_numeric
from ._analyst import COUNT_MODELS, DETECTORS, Analyst, check_count_model, release_counts
from ._owner import (
    _EMPTY,
    MECHANISMS,
    DataOwner,
    check_bins,
    check_prediction_reachable,
    check_release_limits,
    window_cost,
)
from ._sampling import sampling_parameters

# fitted attributes a failed call restores without copying (see DPOAD._snapshot)
_HISTORY = ("releases_", "sampling_parameters_", "anomaly_scores_", "anomalies_")
_HISTORY += ("anomalous_windows_", "p_values_", "expected_counts_")


@fill_doc
class DPOAD(PrivacyCostMixin, BaseEstimator):
    """Private outsourced anomaly detection over windowed histograms (Mohammady et al.).

    A data owner histograms each window over public bins and sends only privatised counts; the
    analyst flags anomalous cells at a window-wise false-alarm level ``alpha`` and sends back
    feedback for the next window's noise. Each :meth:`partial_fit` is one iteration (Steps 1–7):
    ``owner_.release`` → ``analyst_.receive`` → ``owner_.receive``.

    Parameters
    ----------
    bins : array-like or list of array-like
        The analyst's public bin edges (Step 2): one increasing array of
        ``n_bins + 1`` edges for 1-D records, or one per feature (product
        cells flattened in C order, as :func:`numpy.histogramdd`). Records
        outside the edges are clipped into the nearest edge bin, never refused.
    epsilon : float, default=1.0
        ε spent on each window.
    gamma : float in (0, 1), default=0.05
        Random-DP confidence γ (Def. II.1), used by ``"painfree"`` and ``"dpoad"``.
    mechanism : {"record", "dpoad", "painfree", "laplace"}, default="record"
        ``"record"``: sensitivity 1, pure ε-DP per window for one record (the right choice when each
        record is a different person). The paper's mechanisms protect one count cell: ``"dpoad"``
        (Pain-Free for the first ``learning_windows`` windows, then the learnt sensitivity, Alg. 1),
        ``"painfree"`` (Thm II.2 in every window), ``"laplace"`` (sensitivity ``max_count``).
    detector : {"baseline", "kse"}, default="baseline"
        ``"baseline"``: each cell tested against its rate learnt from the first ``learning_windows``
        windows, at level ``alpha`` (see :class:`~skdp_anomaly.dpoad.Analyst`). ``"kse"``: the
        paper's rule (Kim's KSE against ``threshold``), which flags the tail of every window.
    alpha : float in (0, 1), default=0.05
        ``"baseline"``: probability that a window with no anomaly has any cell
        flagged, under the null of ``count_model``.
    count_model : {"overdispersed", "multinomial", "poisson"}, default="overdispersed"
        ``"baseline"``'s null. ``"overdispersed"``: learnt cell shares of the
        window's noisy total, varying as between the learning windows (needs
        ``learning_windows >= 2``). ``"multinomial"``: the same shares with
        i.i.d. records. ``"poisson"``: a fixed rate per cell (constant volume).
    max_count : int >= 1 or None, default=None
        Public cap of a cell count (larger counts are clipped). ``None`` uses each window's record
        count, with a :class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`.
    threshold : float in [0, 1), default=0.9
        ``"kse"``: detection threshold T on the min–max normalised scores.
    learning_windows : int >= 1, default=3
        Windows the baseline is learnt from (not tested), and released with
        Pain-Free before ``"dpoad"``'s prediction phase.
    sensitivity_samples : int >= 1, default=100_000
        The prediction phase's m (Alg. 1 line 3); raised to Thm IV.2's lower bound when below it.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` for deployment. Sensitivity candidates and noise are drawn
        from separate child streams.
    {accountant}
        Each window costs ``2 ε`` there (group privacy over the add/remove
        unit); the random-DP mechanisms are charged their ε part, γ stays in
        ``privacy_spent_``.

    Attributes
    ----------
    n_windows_ : int
        Windows processed.
    anomalies_ : ndarray of bool, shape (n_windows, n_bins)
        Row i: the cells of window i flagged at iteration i.
    anomalous_windows_ : ndarray of bool, shape (n_windows,)
        ``anomalies_.any(axis=1)``.
    anomaly_scores_ : ndarray of shape (n_windows, n_bins)
        Scores in [0, 1]: one minus ``p_values_`` (``"baseline"``, 0 in the
        learning windows) or the normalised KSE scores (``"kse"``).
    p_values_ : ndarray of shape (n_windows, n_bins)
        ``"baseline"``: Holm-adjusted p-values (flagged when ``<= alpha``);
        NaN where nothing was tested.
    expected_counts_ : ndarray of shape (n_bins,) or None
        ``"baseline"``: each cell's expected count in the last window (post-processing); None before
        the learning windows are in and for ``"kse"``.
    dispersion_ : float
        ``count_model="overdispersed"``: learnt ratio of the cells' between-window variance to a
        multinomial's; 1 for ``"multinomial"``; NaN otherwise or before the learning windows are in.
    detectable_excess_ : float
        ``"baseline"``: counts above expectation a typical cell needs to be
        flagged about half the time; NaN when nothing was tested. Above
        ``max_count`` a :class:`~skdp_anomaly.exceptions.DPOADNoiseWarning` warns.
    releases_ : list of WindowRelease
        Everything that crossed to the analyst.
    reports_ : list of AnalystReport
        Everything that came back.
    sampling_parameters_ : list of SamplingParameters or None
        One ``SamplingParameters(phase, m, k, rho)`` per window for
        ``"painfree"`` and ``"dpoad"``; ``None`` otherwise.
    owner_ : DataOwner
        The data owner role.
    analyst_ : Analyst
        The analyst role.
    privacy_spent_ : PrivacyCost
        The windows' costs composed sequentially, ``(n ε, n γ)``. A window that would bring ``n γ``
        to 1 is refused; a failed call is rolled back but its charge stays.
    n_features_in_ : int
        Number of features of the records.

    Notes
    -----
    ``"laplace"`` gives pure ε-DP per window for one *count cell* (add/remove one contributor's
    count in one window-bin); ``"painfree"`` and ``"dpoad"`` give (ε, γ)-random DP for that unit
    (:meth:`PrivacyCost.random_dp`): ε-DP for all but a γ-fraction of neighbouring pairs, so
    anomalous (high-count) cells are deliberately not protected. With a public ``max_count`` every
    mechanism is also pure ε-DP per window for one *record*; ``"record"`` protects one record
    (add/remove) with noise of scale ``1/ε``: **choose it whenever each record belongs to a
    different person**. Windows compose sequentially (``n ε``, ``n γ``); with ``"record"`` a record
    lies in one window, so it is protected at ε over the stream. At small ε the learnt Δ can
    collapse to one count: benign cells then lose cell-level ε-DP (random DP still holds). Proofs:
    :ref:`proofs-dpoad` on :doc:`/proofs`.

    References
    ----------
    .. [1] M. Mohammady, H. Wang, L. Wang, M. Zhang. DPOAD: differentially
       private outsourcing of anomaly detection through iterative sensitivity
       learning. Def. II.1 ((ε, γ)-random DP), Thm II.2 (Pain-Free), Alg. 1
       and Thm IV.2 (learnt sensitivity), Table III and Figs. 8–9.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import DPOAD
    >>> rng = np.random.default_rng(0)
    >>> det = DPOAD(np.linspace(0, 1, 21), epsilon=1.0, max_count=1000, random_state=0)
    >>> for i in range(6):
    ...     window = rng.uniform(0, 1, 1000)
    ...     if i == 4:                                   # a burst of 150 more records in one bin
    ...         window = np.append(window, np.full(150, 0.52))
    ...     _ = det.partial_fit(window)
    >>> det.anomalous_windows_.tolist()                # windows 0-2 are the learning windows
    [False, False, False, False, True, False]
    >>> np.flatnonzero(det.anomalies_[4]).tolist()     # the burst's bin, at its iteration
    [10]
    >>> det.anomalies_.shape, det.releases_[4].noise_scale
    ((6, 20), 1.0)
    >>> det.privacy_spent_.epsilon                     # sequential; one record: 1.0
    6.0
    """

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        "bins": ["array-like", list],
        "gamma": [Interval(numbers.Real, 0, 1, closed="neither")],
        "mechanism": [StrOptions(set(MECHANISMS))],
        "detector": [StrOptions(set(DETECTORS))],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "count_model": [StrOptions(set(COUNT_MODELS))],
        "max_count": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "threshold": [Interval(numbers.Real, 0, 1, closed="left")],
        "learning_windows": [Interval(numbers.Integral, 1, None, closed="left")],
        "sensitivity_samples": [Interval(numbers.Integral, 1, None, closed="left")],
    }
    _data_derived_params = {
        "max_count": "the window's record count, carried by every release as its count domain",
    }
    _private_state = ("_n_features",)

    def __init__(
        self,
        bins,
        *,
        epsilon=1.0,
        gamma=0.05,
        mechanism="record",
        detector="baseline",
        alpha=0.05,
        count_model="overdispersed",
        max_count=None,
        threshold=0.9,
        learning_windows=3,
        sensitivity_samples=100_000,
        random_state=None,
        accountant=None,
    ):
        self.bins = bins
        self.epsilon = epsilon
        self.gamma = gamma
        self.mechanism = mechanism
        self.detector = detector
        self.alpha = alpha
        self.count_model = count_model
        self.max_count = max_count
        self.threshold = threshold
        self.learning_windows = learning_windows
        self.sensitivity_samples = sensitivity_samples
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _privacy_cost(self) -> PrivacyCost:
        """The cost of one window: pure ε-DP (laplace, record) or (ε, γ)-random DP.

        Examples
        --------
        >>> from skdp_anomaly import DPOAD
        >>> DPOAD([0, 1, 2], epsilon=0.5).privacy_cost().notion
        'pure ε-DP'
        >>> DPOAD([0, 1, 2], epsilon=0.5, mechanism="painfree").privacy_cost().notion
        '(ε, γ)-random DP'
        """
        return window_cost(self.mechanism, float(self.epsilon), float(self.gamma))

    def _more_validate_params(self) -> None:
        """What the owner would refuse at the first window, refused before any data."""
        check_bins(self.bins)
        epsilon, gamma, n = float(self.epsilon), float(self.gamma), int(self.learning_windows)
        check_count_model(self.count_model, n if self.detector == "baseline" else None)
        check_release_limits(self.mechanism, epsilon, self.max_count)
        check_prediction_reachable(self.mechanism, gamma, n)
        if self.mechanism == "dpoad":
            m = int(self.sensitivity_samples)
            sampling_parameters(gamma, "prediction", m=m, epsilon=epsilon, learning_windows=n)

    def _ledger_entry(self, cost: PrivacyCost) -> tuple[float, float]:
        # random DP has no group-privacy conversion: charge its (ε, δ) part, a true bound
        # for one record (every sensitivity is at least one count); γ stays in privacy_spent_
        return PrivacyCostMixin._ledger_entry(self, dataclasses.replace(cost, gamma=0.0))

    def privacy_assumptions(self) -> tuple:
        """What the guarantee takes as public without checking it."""
        out = ["DPOAD: the bins are public, fixed by the analyst without looking at the data"]
        if self.mechanism != "record":
            out.append(
                "DPOAD: each count cell belongs to one contributor (the unit protected) "
                "and a count above max_count is clipped"
            )
        # max_count=None is not an assumption but a leak (the budget report says so)
        return tuple(out)

    # ---------------------------------------------------------------- fit
    def _private_fit(self, X, y=None):
        """Forget earlier windows, then process ``X`` as the first window.

        Parameters
        ----------
        X : array-like of shape (n_records,) or (n_records, n_features)
            The records of the first time window (see :meth:`partial_fit`).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        self._start()
        return self._window(X, first=True)

    def _private_partial_fit(self, X, y=None):
        """Process one window of records: one DPOAD iteration (Steps 1–7).

        Parameters
        ----------
        X : array-like of shape (n_records,) or (n_records, n_features)
            The records of one time window. A dask collection is read where
            it lives (validated before the charge, never computed on the
            client), with the same result as in memory, bit for bit.
        y : None
            Ignored.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            An empty window, NaN/inf, or a wrong number of features.
        Exception
            The accountant's refusal of the window's cost. Any failure leaves
            the estimator as it was; a charge already made stays.
        """
        first = not hasattr(self, "owner_")
        if first:
            self._start()
        return self._window(X, first=first)

    def _window(self, X, *, first: bool):
        """One iteration: validate, charge, release, let the analyst answer, record."""
        X = self._validate_window(X, reset=first)
        self.owner_.check_next_release()  # a γ reaching 1: refused before any charge
        self._charge(self.owner_.cost())  # right before the window is released
        release = self.owner_.release(X)
        report = self.analyst_.receive(release)
        self.owner_.receive(report)
        self.releases_.append(release)
        self.reports_.append(report)
        if self.sampling_parameters_ is not None:
            self.sampling_parameters_.append(release.sampling)
        self.n_windows_ += 1
        self.anomaly_scores_ = np.vstack([r.scores for r in self.reports_])
        self.anomalies_ = np.vstack([r.anomalies for r in self.reports_])
        self.anomalous_windows_ = self.anomalies_.any(axis=1)
        self.p_values_ = np.vstack([_p_values(r) for r in self.reports_])
        self.expected_counts_ = report.expected_counts
        self.dispersion_ = float(getattr(self.analyst_.baseline, "dispersion", math.nan))
        excess = report.detectable_excess
        self.detectable_excess_ = math.nan if excess is None else excess
        if _first_test(self.reports_):
            self._warn_if_undecidable(release.max_count)
        return self

    def _warn_if_undecidable(self, max_count: int) -> None:
        """Warn (once a stream) when a typical cell could not be flagged below max_count
        (counts are clipped there)."""
        expected = float(np.median(self.expected_counts_))
        needed = expected + self.detectable_excess_
        if needed <= max_count:
            return
        release = self.releases_[-1]
        noise = release_counts(release)[1].scale  # in counts, as the analyst tests them
        if self.max_count is None:  # scale and domain come from the record count: not shown
            need = "a typical cell must reach more counts than the count domain allows"
        else:
            # rough by nature: two significant digits
            need = (
                f"the noise has scale {noise:.2g} counts, and a typical cell (expected "
                f"count {expected:.2g}) must reach about {needed:.2g} counts to be "
                f"flagged, above `max_count={max_count}`, where counts are clipped"
            )
        if self.mechanism == "record" and noise < self.detectable_excess_ / 4:
            advice = (
                "The noise is not the main cause: use a larger `max_count` (the window "
                "size), fewer bins or a larger `alpha`."
            )
        else:
            advice = (
                "Use `mechanism='record'` when each record is a different person, or a "
                "larger `epsilon`."
            )
        warn(
            naming(
                DPOADNoiseWarning,
                f"DPOAD: with `mechanism={self.mechanism!r}` at `epsilon={self.epsilon:g}` {need}: "
                f"no burst in a typical cell can be flagged. {advice}",
            )
        )

    def _snapshot(self) -> dict:
        """What a failed call restores: a deep copy of what a window mutates; frozen messages,
        pseudo-counts, charges, rebound fitted arrays and the user's generator (a copy would
        rewind its noise) are shared."""
        shared = [self.random_state, *self.__dict__.get("_charges", ())]
        for name in _HISTORY:
            value = self.__dict__.get(name)
            shared.extend(value if isinstance(value, list) else [value])
        for report in self.__dict__.get("reports_", ()):
            shared += [report, report.feedback]
        analyst = self.__dict__.get("analyst_")
        if analyst is not None:
            shared += [analyst.baseline, *analyst.releases, *analyst.reports]
            shared += analyst.pseudo_counts
        memo = {id(obj): obj for obj in shared if obj is not None}
        params = set(self.get_params(deep=False))
        state = {k: v for k, v in vars(self).items() if k not in params and k != "_budget_run"}
        return copy.deepcopy(state, memo)

    def _start(self):
        """A new stream (validated, the last one forgotten, its first window reserved)."""
        self._n_features = len(check_bins(self.bins))
        self.owner_ = DataOwner(
            self.bins,
            epsilon=float(self.epsilon),
            gamma=float(self.gamma),
            mechanism=self.mechanism,
            max_count=self.max_count,
            learning_windows=int(self.learning_windows),
            sensitivity_samples=int(self.sensitivity_samples),
            random_state=self.random_state,
        )
        self.analyst_ = Analyst(
            max_count=self.max_count,
            detector=self.detector,
            alpha=float(self.alpha),
            count_model=self.count_model,
            learning_windows=int(self.learning_windows),
            threshold=float(self.threshold),
        )
        self.releases_, self.reports_ = [], []
        self.sampling_parameters_ = [] if self.mechanism in ("painfree", "dpoad") else None
        self.n_windows_ = 0

    def _validate_window(self, X, *, reset):
        """The window as a validated numpy array, or as backend rows for a dask window."""
        if is_dask_collection(X):
            return self._validate_dask_window(X, reset=reset)
        if np.shape(X)[:1] == (0,):
            raise ValueError(_EMPTY)
        if self._n_features == 1 and np.ndim(X) == 1 and not issparse(X):
            X = np.asarray(X).reshape(-1, 1)
        # numpy and scikit-learn errors quote values of X (a 1-D X, a non-numeric one)
        check_numeric(X, type(self).__name__, ensure_2d=True)
        X = validate_data(self, X, reset=reset, dtype=np.float64)
        self._check_bins_features(X.shape[1])
        return X

    def _validate_dask_window(self, X, *, reset) -> Rows:
        """A dask window checked as a numpy one, in one blockwise pass, before the charge."""
        if hasattr(X, "chunks") and X.shape[0] == 0:  # a dask array; a frame's length is lazy
            raise ValueError(_EMPTY)
        rows = read_rows(
            X, self, reset=reset, ensure_min_samples=0, column_if_1d=self._n_features == 1
        )
        if rows.n_samples == 0:
            raise ValueError(_EMPTY)
        self._check_bins_features(rows.n_features)
        return rows

    def _check_bins_features(self, n: int) -> None:
        if n != self._n_features:
            bins = f"`the 'bins' parameter` describes {self._n_features}"
            raise naming(ValueError, f"X has {n} features, but {bins}.")

    @property
    def n_bins_(self) -> int:
        """Number of cells (the product of the features' bin counts)."""
        check_is_fitted(self, "owner_")
        return math.prod(e.size - 1 for e in self.owner_.bins)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.target_tags.required = False
        return tags


def _p_values(report) -> np.ndarray:
    if report.p_values is None:
        return np.full(report.anomalies.shape, np.nan)
    return np.asarray(report.p_values)


def _first_test(reports) -> bool:
    """Whether the last report is the stream's first tested window."""
    tested = [r.p_values is not None for r in reports]
    return tested[-1] and sum(tested) == 1
