"""Private HBOS: histogram-based outlier scores from noisy per-feature counts."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._data.rows import Rows, block_sum, is_dask_collection, numpy_rows, read_rows
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..exceptions import naming
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ..privacy._rng import call_rng
from ..privacy._validation import check_bounds, check_numeric, warn_outside_bounds
from ._histograms import (
    below_counts,
    count_mechanism,
    histogram_block,
    log_density_ratio,
    noise_floor,
    polygon_scores,
    quantile_grid,
    quantile_mechanism,
    row_count_mechanism,
    select_quantile,
)

#: ``offset_`` when ``contamination="auto"``: an outlier's geometric-mean density, relative
#: to the uniform one on the bounds, is below 1/2 (public, like ``IsolationForest``'s -0.5).
AUTO_OFFSET = -math.log(2.0)

#: Share of ``epsilon`` spent on the noisy row count ``ñ`` (bins, a stream's weights).
COUNT_SHARE = 0.05

#: Share of ``epsilon`` spent on the DP quantile when ``contamination`` is a fraction.
QUANTILE_SHARE = 0.5

#: The constants of ``n_bins="auto"`` (:func:`hbos_n_bins`).
BINS_SCALE = 1.25
NOISE_BINS_SCALE = 4.0
MAX_BINS = 64


def hbos_n_bins(n_samples: float, epsilon: float, n_features: int) -> int:
    """The number of bins ``n_bins="auto"`` gives, from the rows, ε and ``d``.

    The smaller of two limits: sampling, ``BINS_SCALE · n^(1/3)`` (Scott 1979),
    and noise, ``NOISE_BINS_SCALE · (n·ε/d)^(1/3)``, where the frequency
    polygon's error is smallest when the noise dominates (Scott 1985).

    Parameters
    ----------
    n_samples : float
        The number of rows; :class:`~skdp_anomaly.PrivateHBOS` passes its noisy
        row count, never the true one. Values below 1 count as 1.
    epsilon : float
        ε of the histogram release; ``math.inf`` gives the sampling limit alone.
    n_features : int
        ``d``, the number of features.

    Returns
    -------
    int
        ``round(min(BINS_SCALE · n^(1/3), NOISE_BINS_SCALE · (n·ε/d)^(1/3)))``
        clipped to ``[2, MAX_BINS]``.

    Examples
    --------
    >>> from skdp_anomaly.outlier import hbos_n_bins
    >>> hbos_n_bins(200, 0.1, 10), hbos_n_bins(200, 1.0, 10), hbos_n_bins(200, 5.0, 10)
    (5, 7, 7)
    >>> hbos_n_bins(5000, 0.1, 10), hbos_n_bins(5000, 1.0, 10), hbos_n_bins(5000, 5.0, 10)
    (15, 21, 21)
    """
    rows = max(float(n_samples), 1.0)
    noise_limit = NOISE_BINS_SCALE * (rows * float(epsilon) / int(n_features)) ** (1.0 / 3.0)
    bins = round(min(BINS_SCALE * rows ** (1.0 / 3.0), noise_limit))
    return int(min(max(bins, 2), MAX_BINS))


@fill_doc
class PrivateHBOS(PrivacyCostMixin, OutlierMixin, BaseEstimator):
    """Histogram-based outlier score (HBOS) from ε-DP per-feature histograms.

    Each feature is cut into ``n_bins`` equal-width bins of its public ``bounds``; the ``d``
    histograms are released with geometric noise, and a row's score is the mean over features of its
    log density relative to the uniform one (Goldstein and Dengel 2012), read off the frequency
    polygon of the noisy histogram: higher is more normal. Streams with :meth:`partial_fit`.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε of a fit: pure ε-DP under add/remove-one-record neighbours,
        ``2·epsilon`` under replace-one. At most 30.
    bounds : (lower, upper) or None, default=None
        Public range of the features, scalars or per feature; values outside
        fall in the edge bins. ``None`` reads the data's range: not private
        (:class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`).
    n_bins : "auto" or int, default="auto"
        Bins per feature. ``"auto"``: :func:`~skdp_anomaly.outlier.hbos_n_bins`
        of the noisy row count (``COUNT_SHARE`` of ``epsilon``).
    contamination : "auto" or float, default="auto"
        ``"auto"`` sets ``offset_`` to the public ``AUTO_OFFSET``; a fraction in ``(0, 0.5]`` to a
        DP quantile of the training scores (``QUANTILE_SHARE`` of ``epsilon``).
    {random_state}
    {accountant}

    Attributes
    ----------
    bounds_ : tuple of ndarray of shape (n_features,)
        ``(lower, upper)`` per feature.
    n_bins_ : int
        Bins per feature.
    noisy_n_samples_ : int
        The released row counts, summed over :meth:`partial_fit` chunks.
    noisy_counts_ : ndarray of int64, shape (n_features, n_bins)
        The released counts, summed over chunks; can be negative.
    log_density_ : ndarray of float64, shape (n_features, n_bins)
        ``log(n_bins_ · p)`` per bin, ``p`` the bin's share after every count
        is raised to the public noise floor.
    offset_ : float
        ``decision_function = score_samples - offset_``.
    quantile_thresholds_ : ndarray of shape (n_chunks, 2)
        Only when ``contamination`` is a fraction: each chunk's released
        threshold and weight; ``offset_`` is their weighted median.
    n_chunks_ : int
        Number of chunks fitted in the current run (1 after :meth:`fit`).
    privacy_spent_ : PrivacyCost
        What the current run spent: ``epsilon`` under add/remove neighbours.
    n_features_in_ : int
        Number of features (a public shape).
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of a DataFrame passed to ``fit``.

    See Also
    --------
    sklearn.ensemble.IsolationForest : the non-private detector with the same API.
    skdp_anomaly.outlier.hbos_n_bins : the rule of ``n_bins="auto"``.

    Notes
    -----
    **Privacy** (pure ε-DP, add/remove-one-record neighbours). Up to three
    releases in sequence: the row count (``COUNT_SHARE · epsilon``,
    sensitivity 1); the ``d`` histograms (L1 sensitivity ``d``) at the rest;
    with a fraction, report-noisy-max over 128 thresholds
    (``QUANTILE_SHARE · epsilon``). ``2·epsilon`` under replace-one
    neighbours (group privacy), as a diffprivlib accountant is charged.
    Everything else is post-processing; the true row count is never stored.

    **Streams.** Each :meth:`partial_fit` chunk is released at ``epsilon``; a record lies in one
    chunk, so by parallel composition the run is ``epsilon``-DP, charged once at its first chunk.
    The bins follow the first chunk's noisy row count. Proofs: :ref:`proofs-hbos` on :doc:`/proofs`;
    measurements: :doc:`/outlier`.

    References
    ----------
    .. [1] M. Goldstein and A. Dengel. Histogram-based Outlier Score (HBOS):
       A fast Unsupervised Anomaly Detection Algorithm. KI-2012: Poster and
       Demo Track, 2012.
    .. [2] F. McSherry and K. Talwar. Mechanism design via differential
       privacy. FOCS 2007 (report-noisy-max for the quantile).
    .. [3] D. W. Scott. On optimal and data-based histograms. Biometrika 66(3),
       1979 (the cube-root rate of the bin count).
    .. [4] D. W. Scott. Frequency polygons: theory and application. Journal of
       the American Statistical Association 80(390), 1985.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import PrivateHBOS
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(size=(2000, 3)), rng.uniform(-6, 6, size=(20, 3))])
    >>> det = PrivateHBOS(epsilon=1.0, bounds=(-6, 6), random_state=0).fit(X)
    >>> det.privacy_spent_.epsilon
    1.0
    >>> scores = det.score_samples(X)
    >>> bool(scores[:2000].mean() > scores[2000:].mean())
    True
    >>> det.predict([[0.0, 0.0, 0.0], [5.5, -5.5, 5.5]]).tolist()
    [1, -1]
    """

    _parameter_constraints: ClassVar[dict] = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        # above 30 the geometric noise of a one-feature histogram is almost always zero
        "epsilon": epsilon_constraint(30),
        "bounds": ["array-like", None],
        "n_bins": [StrOptions({"auto"}), Interval(Integral, 2, 4096, closed="both")],
        "contamination": [StrOptions({"auto"}), Interval(Real, 0, 0.5, closed="right")],
    }
    _data_derived_params: ClassVar[dict] = {"bounds": "stored in `bounds_`"}
    _private_state = ("_run_key",)

    def __init__(
        self,
        *,
        epsilon=1.0,
        bounds=None,
        n_bins="auto",
        contamination="auto",
        random_state=None,
        accountant=None,
    ):
        self.epsilon = epsilon
        self.bounds = bounds
        self.n_bins = n_bins
        self.contamination = contamination
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _privacy_cost(self) -> PrivacyCost:
        _, eps_counts, eps_quantile = self._shares()
        parts = [
            f"a geometric row count at {COUNT_SHARE:g}ε",
            f"d geometric histograms (L1 sensitivity d) at {eps_counts / self.epsilon:.3g}ε",
        ]
        if eps_quantile:
            parts.append(f"a report-noisy-max quantile at {QUANTILE_SHARE:g}ε")
        note = (
            f"PrivateHBOS: pure ε-DP under add/remove-one-record neighbours (2ε under "
            f"replace-one): {', '.join(parts)}; the chunks of one partial_fit run by "
            "parallel composition"
        )
        return PrivacyCost.pure(float(self.epsilon), note, neighbours="add_remove")

    def _more_validate_params(self) -> None:
        if self.bounds is not None:
            try:
                lower, upper = self.bounds
            except (TypeError, ValueError):
                raise naming(
                    ValueError,
                    "`The 'bounds' parameter` must be a (lower, upper) pair of scalars or of "
                    f"one value per feature; got {self.bounds!r}.",
                ) from None
            size = max(np.size(lower), np.size(upper))
            check_bounds(self.bounds, n_features=size)

    def _shares(self) -> tuple[float, float, float]:
        """``(ε of the row count, of the histograms, of the quantile)``: they add up to ε."""
        epsilon = float(self.epsilon)
        quantile = 0.0 if self.contamination == "auto" else QUANTILE_SHARE * epsilon
        return COUNT_SHARE * epsilon, epsilon - COUNT_SHARE * epsilon - quantile, quantile

    def _run_parameters(self) -> tuple:
        return (float(self.epsilon), self.n_bins, self.contamination, repr(self.bounds))

    # ---------------------------------------------------------------- fit
    def _private_fit(self, X, y=None):
        """Release the histograms of ``X`` (and, with a fraction, the offset).

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            Training rows, finite (dask needs public ``bounds``).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        return self._fit_chunk(X, first=True)

    def _private_partial_fit(self, X, y=None):
        """Add one chunk of rows: its noisy row count and histograms are added up.

        The first call starts a run, charged ``epsilon``; later chunks are
        covered by parallel composition (Notes). Parameters are fixed per run.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            The next rows, finite, with the features of the first chunk.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        first = not self.__sklearn_is_fitted__()  # a new run: validated and reserved
        if not first and self._run_parameters() != self._run_key:
            raise naming(
                ValueError,
                "PrivateHBOS: `epsilon`, `bounds`, `n_bins` and `contamination` cannot change "
                "within a partial_fit run (its ε rests on every chunk being released the "
                "same way); call fit to start a new run.",
            )
        return self._fit_chunk(X, first=first)

    def _fit_chunk(self, X, *, first: bool):
        rows = self._rows(X, reset=first)
        d = rows.n_features
        if first:
            lower, upper = check_bounds(
                self.bounds, rows.data if self.bounds is None else None, n_features=d
            )
            names = getattr(self, "feature_names_in_", None)
            warn_outside_bounds(rows.data, lower, upper, type(self).__name__, names)
            self.bounds_ = (lower, upper)
            self.n_chunks_, self.noisy_n_samples_ = 0, 0
            self._run_key = self._run_parameters()
        eps_rows, eps_counts, eps_quantile = self._shares()
        # every mechanism is built (and refuses a rate it cannot honour) before the charge
        rows_mech, counts_mech = row_count_mechanism(eps_rows), count_mechanism(eps_counts, d)
        quantile_mech = (
            quantile_mechanism(eps_quantile, float(self.contamination)) if eps_quantile else None
        )
        rng = call_rng(self.random_state, self.n_chunks_)
        if first:  # the whole run's ε, right before its first release
            self._charge(self._privacy_cost())
        chunk_rows = int(rows_mech.randomise(np.int64(rows.n_samples), rng))
        self.noisy_n_samples_ += chunk_rows
        if first:  # the bins read the released row count only
            auto = self.n_bins == "auto"
            self.n_bins_ = hbos_n_bins(chunk_rows, eps_counts, d) if auto else int(self.n_bins)
            self.noisy_counts_ = np.zeros((d, self.n_bins_), dtype=np.int64)
        counts = block_sum(
            rows, histogram_block, *self.bounds_, self.n_bins_, shape=(d, self.n_bins_)
        )
        self.noisy_counts_ = self.noisy_counts_ + counts_mech.randomise(counts, rng)
        self.log_density_ = log_density_ratio(self.noisy_counts_, noise_floor(counts_mech))
        if quantile_mech is None:
            self.offset_ = AUTO_OFFSET
        else:
            self._release_offset(rows, chunk_rows, quantile_mech, rng, first)
        self.n_chunks_ += 1
        return self

    def _release_offset(self, rows: Rows, chunk_rows: int, mechanism, rng, first: bool):
        """The chunk's DP quantile, pooled with the run's earlier ones into ``offset_``."""
        grid = quantile_grid(self.log_density_)
        below = block_sum(
            rows, below_counts, *self.bounds_, self.log_density_, grid, shape=grid.shape
        )
        index = select_quantile(below, rows.n_samples, float(self.contamination), mechanism, rng)
        threshold = grid[index]
        # weight: the chunk's noisy rows (small-chunk error) times the model's (early-model
        # drift); the median resists an atypical chunk. Post-processing of releases
        weight = max(float(chunk_rows), 0.0) * max(float(self.noisy_n_samples_), 0.0)
        pooled = np.array([[threshold, weight]])
        earlier = [] if first else [self.quantile_thresholds_]
        self.quantile_thresholds_ = np.vstack([*earlier, pooled])
        self.offset_ = _weighted_median(*self.quantile_thresholds_.T)

    def _rows(self, X, *, reset: bool) -> Rows:
        """``X`` validated (before any charge) as the data backend's rows: numpy or dask."""
        if is_dask_collection(X):
            if reset and self.bounds is None:
                raise naming(
                    ValueError,
                    "PrivateHBOS needs `the 'bounds' parameter` for dask input: reading the range "
                    "of the data would leak it (and take a pass of its own). Pass public bounds.",
                )
            return read_rows(X, self, reset=reset)
        check_numeric(X, type(self).__name__, ensure_2d=True)  # numpy's errors quote values
        return numpy_rows(
            validate_data(self, X, reset=reset, dtype=np.float64, ensure_all_finite=True)
        )

    # ------------------------------------------------------------ scoring
    def score_samples(self, X):
        """Mean over features of each value's log density ratio (higher: more normal).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score, finite; values outside ``bounds_`` count in the
            edge bins. A dask collection gives a lazy dask array.

        Returns
        -------
        ndarray of float64, shape (n_samples,)
            The scores.
        """
        check_is_fitted(self)
        rows = self._rows(X, reset=False)
        args = (self.log_density_, *self.bounds_)
        if rows.is_dask:
            return rows.data.map_blocks(polygon_scores, *args, drop_axis=1, dtype=np.float64)
        return polygon_scores(rows.data, *args)

    def decision_function(self, X):
        """``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        ndarray of float64, shape (n_samples,)
            The shifted scores.
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """``-1`` for outliers (``decision_function < 0``), ``+1`` for inliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to label.

        Returns
        -------
        ndarray of int, shape (n_samples,)
            The labels.
        """
        return np.where(self.decision_function(X) < 0, -1, 1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The smallest value with at least half the weight at or below it (the last if none)."""
    if not weights.sum() > 0:
        return float(values[-1])
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])
