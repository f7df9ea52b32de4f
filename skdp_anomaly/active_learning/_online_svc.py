"""Differentially private online active learning of a linear SVM (Ghassemi et al. 2016)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import assert_all_finite, check_is_fitted, column_or_1d, validate_data

from ..exceptions import naming
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS
from ..privacy._validation import check_numeric, warn_privacy_leak
from ..privacy._docstrings import fill_doc
from ._ftrl import FtrlState
from ._params import ParamsMixin
from ._run_state import Labels, RunState, check_label_source, check_y_length
from ._selection import selection_mechanism
from ._stream import StreamMixin
from ._warnings import DiagnosticsMixin


@fill_doc
class PrivateOnlineActiveSVC(
    DiagnosticsMixin, ParamsMixin, StreamMixin, PrivacyCostMixin, ClassifierMixin, BaseEstimator
):
    """Differentially private online active learning of a linear SVM.

    Rows arrive in stream order. A private selection step (Bernoulli or
    exponential, on the distance to the current hyperplane, §3.1 of [1]_)
    decides whether to ask for each row's label; labelled rows update the
    classifier through float-safe noisy releases. ``selection="all"`` is the
    passive baseline (every label read, all of ε on the releases).

    * ``update="ftrl"`` (default): DP-FTRL [3]_ on the class-balanced hinge
      losses. Each round is a *labelled window* (every label read) and an
      *active window* (rows selected), each releasing noisy class sums and
      positive count: the iterate is the difference of the pooled class
      centroids, the intercept their balanced cut, the counts the DP prior.
    * ``update="flmb"`` / ``"flsw"``: the paper's noisy hinge-gradient steps
      (eq. 10) on mini-batches (Algorithm 4) or windows (Algorithm 3).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget per record (see Notes).
    selection : {"bernoulli", "exponential", "all"}, default="bernoulli"
        How rows are chosen for labelling (in the active windows with
        ``update="ftrl"``; the labelled windows read every label).
    update : {"ftrl", "flmb", "flsw"}, default="ftrl"
        DP-FTRL, or the paper's fixed-length mini-batches (an update every
        ``batch_size`` selected rows) or selection windows (every
        ``batch_size`` observed rows, skipped when none was selected).
    batch_size : int or None, default=None
        ``update="ftrl"``: rows of every labelled (or gradient) window (None:
        from the stream length). The paper's updates: ``L`` (FLMB) or ``N``
        (FLSW); None means 5.
    fit_intercept : bool, default=True
        Learn an intercept. The paper's updates learn it as the weight of a
        constant feature, the rows being ``[x/√2, M/√2]``.
    class_weight : {"balanced"} or None, default="balanced"
        ``update="ftrl"``: ``"balanced"`` cuts at the midpoint of the projected
        class centroids (mean of the class error rates); None takes the cut
        with the fewest errors in the noisy histograms of threshold windows.
    intercept_share : float in (0, 1) or None, default=None
        ``update="ftrl"``: share of each round's rows in a threshold window.
        None: none with ``class_weight="balanced"``, 0.3 with None.
    noise : {"independent", "tree"}, default="independent"
        ``update="ftrl"``: independent noise per window, or prefix sums from
        the binary tree mechanism [4]_ (needs a known stream length).
    n_rows_hint : int or None, default=None
        The stream's length, a public parameter, for :meth:`partial_fit`
        (:meth:`fit` uses ``len(X)``). ``update="ftrl"`` plans its rounds from
        it, releases the last window when the stream ends and sizes the tree of
        ``noise="tree"``; None plans from the first call's length.
    data_norm : float or None, default=1.0
        ``M``: rows are projected onto the L2 ball of this radius (a call with
        more than 10 % of rows outside warns). None takes the largest row norm
        of the first chunk, with a :class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`.
    selection_share : float in (0, 1) or None, default=None
        Share of ``epsilon`` spent on selection (``ε_s``); the rest (``ε_g``)
        on the releases. Ignored for ``selection="all"``. None: 0.25 for
        ``update="ftrl"``, the paper's 0.5 otherwise.
    slab : float in (0, 1) or None, default=None
        Half-width of the selection slab as a fraction of ``data_norm``.
        None: 0.2 for Bernoulli; for exponential, the narrowest slab whose
        corrected cost is exactly ``ε_s`` (a fixed slab is charged its true cost).
    slab_schedule : {"fixed", "shrinking"}, default="fixed"
        ``"shrinking"`` (Bernoulli only): half-width ``M / t`` at the ``t``-th
        update (§5 of [1]_).
    eta0 : float or None, default=None
        The paper's updates: step size ``η / t`` at the ``t``-th update. None:
        ``1 / alpha``. Ignored by ``update="ftrl"``.
    alpha : float or None, default=None
        ``λ``, the L2 regularisation of eq. (2); the iterate stays in the ball
        of radius ``1/√λ``. None: 0.01, or ``M²/3`` for ``update="ftrl"``.
    average : bool or int, default=False
        ``coef_`` is the running mean of the released iterates (from update
        ``average`` on when an int). Post-processing: costs no privacy.
    pickle_open_batch : bool, default=False
        Whether a pickle of a running stream keeps its open batch (raw rows,
        labels, tree sums), so the unpickled estimator can go on. False: the
        pickle holds no training row and refuses further rows. True only between
        trusted processes (e.g. dask-ml's ``Incremental``, with
        ``shuffle_blocks=False``): such a pickle is data.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws from OS entropy (the only safe choice in deployment).
        Each call draws from its own child generator.
    {accountant}
        The whole ``epsilon`` of a run is charged when it starts (first
        :meth:`partial_fit` or :meth:`fit`), before any row is used.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive side of ``coef_``.
    coef_ : ndarray of shape (1, n_features)
        The released classifier (or the mean of the released iterates).
    intercept_ : ndarray of shape (1,)
        The released intercept (0 with ``fit_intercept=False``).
    class_prior_ : ndarray of shape (2,)
        ``update="ftrl"``: the DP class prior, from the noisy positive counts.
    n_labels_requested_ : int
        Labels read (from ``y``) or asked from ``label_oracle`` so far.
    n_updates_ : int
        Noisy updates (gradient releases) so far.
    n_seen_ : int
        Rows processed so far (interrupted calls included).
    n_seen_last_call_ : int
        Leading rows of the last call's ``X`` consumed; after an exception,
        a retry with the same ``X`` skips them (see :meth:`partial_fit`).
    data_norm_ : float
        The ``M`` used.
    slab_ : float
        The slab half-width used (absolute, ``slab·M``).
    privacy_spent_ : PrivacyCost
        The run's charge, made when the run started, before any row was used.
    n_features_in_ : int
        Number of features seen at the start of the run.

    Notes
    -----
    Neighbouring streams have the same length and differ in one element
    ``(x_t, y_t)`` (replace one stream element). Each element takes part in one
    selection (``ε_s``: Lemma 1, or Lemma 2 *corrected*, see
    :class:`~skdp_anomaly.privacy.ExponentialSelection`) and at most one
    release (``ε_g``), so the output is pure ``(ε_s + ε_g)``-DP (Theorems 1–3);
    with ``update="ftrl"`` parallel composition over disjoint public windows
    gives ``epsilon``, class prior included. Released sums are float-safe [2]_.
    ``privacy_cost()`` equals ``epsilon`` unless a fixed exponential ``slab``
    costs more. Several passes cost ``epsilon`` each. :meth:`fit` is one
    transaction; :meth:`partial_fit` commits what it consumed. Proofs:
    :ref:`proofs-online-svc` on :doc:`/proofs`.

    References
    ----------
    .. [1] M. Ghassemi, A. D. Sarwate, R. N. Wright. Differentially private
       online active learning with applications to anomaly detection.
       AISec 2016: §3.1, eqs. (5)–(7) and Lemmas 1–2 (selection), §3.2,
       eqs. (8)–(10) and Lemma 3 (updates), Algorithms 3–4, Theorems 1–3.
    .. [2] I. Mironov. On significance of the least significant bits for
       differential privacy. CCS 2012 (why the update noise is on a grid).
    .. [3] P. Kairouz, B. McMahan, S. Song, O. Thakkar, A. Thakurta, Z. Xu.
       Practical and private (deep) learning without sampling or shuffling.
       ICML 2021 (DP-FTRL: the iterate from noisy prefix sums of gradients).
    .. [4] T.-H. H. Chan, E. Shi, D. Song. Private and continual release of
       statistics. ACM TISSEC 14(3), 2011 (the binary tree mechanism).
    .. [5] A. Smith, A. Thakurta. (Nearly) optimal algorithms for private
       online learning in full-information and bandit settings. NeurIPS 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import PrivateOnlineActiveSVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 2)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> svc = PrivateOnlineActiveSVC(epsilon=2.0, random_state=0)
    >>> for start in range(0, 20000, 4096):
    ...     _ = svc.partial_fit(X[start:start + 4096], y[start:start + 4096], classes=[0, 1])
    >>> bool(svc.score(X, y) > 0.9), svc.n_labels_requested_ < 20000
    (True, True)
    """

    _private_state = ("_state", "_keeps_run_open")
    _data_derived_params = {"data_norm": "stored in `data_norm_`"}

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        "selection": [StrOptions({"bernoulli", "exponential", "all"})],
        "update": [StrOptions({"ftrl", "flmb", "flsw"})],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "fit_intercept": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), None],
        "intercept_share": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "noise": [StrOptions({"independent", "tree"})],
        "n_rows_hint": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "selection_share": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "slab": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "slab_schedule": [StrOptions({"fixed", "shrinking"})],
        "eta0": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "average": ["boolean", Interval(numbers.Integral, 1, None, closed="left")],
        "pickle_open_batch": ["boolean"],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        selection="bernoulli",
        update="ftrl",
        batch_size=None,
        fit_intercept=True,
        class_weight="balanced",
        intercept_share=None,
        noise="independent",
        n_rows_hint=None,
        data_norm=1.0,
        selection_share=None,
        slab=None,
        slab_schedule="fixed",
        eta0=None,
        alpha=None,
        average=False,
        pickle_open_batch=False,
        random_state=None,
        accountant=None,
    ):
        self.epsilon = epsilon
        self.selection = selection
        self.update = update
        self.batch_size = batch_size
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.intercept_share = intercept_share
        self.noise = noise
        self.n_rows_hint = n_rows_hint
        self.data_norm = data_norm
        self.selection_share = selection_share
        self.slab = slab
        self.slab_schedule = slab_schedule
        self.eta0 = eta0
        self.alpha = alpha
        self.average = average
        self.pickle_open_batch = pickle_open_batch
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _privacy_cost(self) -> PrivacyCost:
        """Pure ``(ε_s + ε_g)``-DP under replace-one-stream-element neighbours.

        >>> from skdp_anomaly import PrivateOnlineActiveSVC
        >>> PrivateOnlineActiveSVC(epsilon=2.0, selection="exponential").privacy_cost().epsilon
        2.0
        >>> fixed = PrivateOnlineActiveSVC(epsilon=2.0, update="flmb", selection="exponential",
        ...                                slab=0.2)  # the paper's ε_s = ε_g = 1
        >>> round(fixed.privacy_cost().epsilon, 4)   # Lemma 2 corrected: 1.171 + 1
        2.1711
        """
        prior = (
            "; each release holds the window's positive count, the class prior, at a "
            "share M/(2M√d + M) of its ε"
            if self.update == "ftrl"
            else ""
        )
        if self.selection == "all":
            return PrivacyCost.pure(
                float(self.epsilon),
                f"every label read; ε on the noisy {self.update.upper()} releases{prior}",
                neighbours="replace",
            )
        eps_s, eps_g = self._split()
        mech = selection_mechanism(self.selection, eps_s, self._slab_fraction(eps_s), 1.0)
        spent_s = mech.cost.epsilon
        # ε_s + ε_g need not round back to ε: state ε itself when the split is exact
        total = float(self.epsilon) if spent_s <= eps_s else spent_s + eps_g
        first = (
            "; the labelled windows (with threshold windows: the leading rounds) read "
            "every label and spend all of ε on one release"
            if self.update == "ftrl"
            else ""
        )
        return PrivacyCost.pure(
            total,
            f"{self.selection} selection ε_s={spent_s:.4g} + noisy {self.update.upper()} "
            f"releases ε_g={eps_g:.4g}; each stream element is selected and released at most "
            f"once{first}{prior}",
            neighbours="replace",
        )

    def privacy_assumptions(self) -> tuple:
        """What :meth:`~.PrivacyCostMixin.privacy_cost` takes as public: the two class labels."""
        return (
            "PrivateOnlineActiveSVC: the two class labels are public (passed as classes, "
            "or read from y by fit when classes is None)",
        )

    # ---------------------------------------------------------------- fit
    def _reservation(self, method: str) -> None:
        # the step reserves the run itself, after its checks
        return None

    def _private_fit(self, X, y=None, classes=None, label_oracle=None):
        """One fresh pass over the stream ``X``; a transaction (a retry is charged again).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The stream, in arrival order.
        y : array-like of shape (n_samples,), default=None
            Labels; only those of selected rows are read.
        classes : array-like of shape (2,), default=None
            The two labels. None reads them from ``y`` (public label set).
        label_oracle : callable, default=None
            Called with the selected rows; returns one label per row.

        Returns
        -------
        self
        """
        cost = self.privacy_cost()
        y = check_label_source(y, label_oracle)
        X, labels = self._begin_run(cost, X, y, classes, label_oracle, whole_stream=True)
        self._stream(X, labels, skip=None, commit=False)
        self._state.close()  # the whole stream is done: no row, label or fingerprint stays
        self._warn_no_selection()
        return self

    def partial_fit(self, X, y=None, classes=None, label_oracle=None):
        """Process the next rows of the stream.

        The first call needs ``classes`` and charges the run's ε. An exception
        after rows were used commits them (``n_seen_last_call_``); a retry with
        the same ``X`` resumes there, with no new charge and no label asked
        twice. Parameters other than ``random_state`` and ``accountant`` cannot
        change during a run.

        Parameters
        ----------
        X : array-like of shape (n_chunk, n_features)
            The next rows of the stream, in arrival order.
        y : array-like of shape (n_chunk,), default=None
            Labels; only those of selected rows are read.
        classes : array-like of shape (2,), default=None
            Required on the first call; must not change afterwards.
        label_oracle : callable, default=None
            Alternative to ``y`` (see :meth:`fit`).

        Returns
        -------
        self
        """
        interruption = self._transaction(
            "partial_fit", self._partial_fit, X, y, classes, label_oracle
        )
        if interruption is not None:  # committed: the stream stands where it stopped
            raise interruption
        self._warn_no_selection()
        return self

    def _partial_fit(self, X, y, classes, label_oracle):
        """One call's step: rolled back if it fails before using anything, else
        committed (the exception is returned)."""
        cost = self.privacy_cost()
        y = check_label_source(y, label_oracle)
        if getattr(self, "_state", None) is None:
            X, labels = self._begin_run(cost, X, y, classes, label_oracle)
            skip = None
        else:
            self._state.check_resumable(type(self).__name__)
            X, labels = self._continue_run(X, y, classes, label_oracle)
            skip = self._state.resume_position(X)
            self._check_horizon(self.n_seen_ + X.shape[0] - (skip or 0))
        return self._stream(X, labels, skip, commit=True)

    def _check_horizon(self, n_rows: int) -> None:
        """Refuse rows beyond the stream length the tree was built for."""
        horizon = self._state.horizon if getattr(self, "_state", None) else self.n_rows_hint
        if self.noise == "tree" and horizon is not None and n_rows > horizon:
            raise naming(
                ValueError,
                f"`The 'n_rows_hint' parameter of {type(self).__name__}` is the stream length "
                f"that `noise='tree'` was charged for ({horizon} rows); this call would bring "
                f"the stream to {n_rows} rows. Start a new run (fit, or partial_fit on a clone) "
                "with a larger `n_rows_hint`.",
            )

    def _begin_run(self, cost, X, y, classes, label_oracle, whole_stream=False):
        """Reserve and charge the run's ε, set up its state; the checked ``X`` and labels.
        ``whole_stream`` (:meth:`fit`): ``len(X)`` is the horizon."""
        self._start_private_fit(cost)
        self._keeps_run_open = True  # the run's reservation lasts while the stream goes on
        if classes is None and y is not None and whole_stream:
            y = column_or_1d(y, warn=True)
            classes = _classes_of(y)  # reads every label: the label set is public
        classes = self._check_classes(classes)
        check_numeric(X, type(self).__name__, ensure_2d=True)  # numpy's error quotes X
        X = validate_data(self, X, reset=True, dtype=np.float64)
        check_y_length(y, X)
        data_norm = self._data_norm_of(X)
        self._warn_rows_outside(X, data_norm)
        horizon = X.shape[0] if whole_stream else self.n_rows_hint
        if self.noise == "tree" and horizon is None:
            raise naming(
                ValueError,
                f"`The 'n_rows_hint' parameter of {type(self).__name__}` must give the stream "
                "length with `noise='tree'` (the tree's depth, hence its noise, depends on it); "
                "got None. Pass `n_rows_hint`, or call fit on the whole stream.",
            )
        if self.noise == "tree" and X.shape[0] > horizon:
            self._check_horizon(X.shape[0])
        # refuses a bad data_norm before the charge
        _, setup = self._update_setup(
            data_norm, self._kernel_features(X.shape[1]), horizon, X.shape[0]
        )
        self._charge(cost)  # the whole run's ε, before any row is used
        self._start(classes, data_norm, X.shape[1], horizon, setup)
        self._state.source = "y" if y is not None else "label_oracle"
        return X, Labels(y, label_oracle, self.classes_)

    def _continue_run(self, X, y, classes, label_oracle):
        """The checked ``X`` and labels of a later call of the run."""
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise naming(
                ValueError,
                f"`classes={classes!r}` differs from the classes of the first "
                f"call, {self.classes_.tolist()!r}.",
            )
        for param, before, now in self._state.changed_params(self._run_params()):
            raise naming(
                ValueError,
                f"`The '{param}' parameter of {type(self).__name__}` changed during the run "
                f"({before!r}, now {now!r}): the run was charged for the mechanisms of its "
                "first call. Call fit (or partial_fit on a clone) to start a new run.",
            )
        check_numeric(X, type(self).__name__, ensure_2d=True)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        source = "y" if y is not None else "label_oracle"
        if source != self._state.source:
            raise ValueError(
                f"this run takes its labels from {self._state.source}; pass the "
                f"same source on every call (got {source}), or call fit to restart."
            )
        check_y_length(y, X)
        self._warn_rows_outside(X, self.data_norm_)
        return X, Labels(y, label_oracle, self.classes_)

    def _run_params(self) -> dict:
        free = ("random_state", "accountant", "pickle_open_batch")  # may change during a run
        return {k: v for k, v in self.get_params(deep=False).items() if k not in free}

    @staticmethod
    def _check_classes(classes):
        if classes is None:
            raise naming(
                ValueError,
                "`classes` must be given on the first call to partial_fit (the two "
                "labels of the binary task).",
            )
        classes = np.unique(np.asarray(classes))
        if classes.size != 2:
            n = classes.size
            raise ValueError(
                "Only binary classification is supported: PrivateOnlineActiveSVC needs exactly "
                f"2 class labels, got {n} class{'' if n == 1 else 'es'}. One-vs-rest would "
                "spend epsilon once per class."
            )
        return classes

    def _data_norm_of(self, X) -> float:
        if self.data_norm is not None:
            return float(self.data_norm)
        warn_privacy_leak(
            "`data_norm` has not been specified and is computed from the data. This leaks "
            "information about the data and breaks the privacy guarantee. Specify "
            "`data_norm` from domain knowledge to remove this warning."
        )
        return float(np.max(np.linalg.norm(X, axis=1), initial=0.0)) or 1.0

    def _start(self, classes, data_norm, n_features, horizon, setup):
        self.classes_ = classes
        self.data_norm_ = data_norm
        eps_s, _ = self._split()
        self.slab_ = self._slab_fraction(eps_s) * self.data_norm_
        n_kernel, params = self._kernel_features(n_features), self._run_params()
        if self.update == "ftrl":
            ftrl = FtrlState(n_kernel, setup.levels)
            self._state = RunState(n_kernel, int(setup.windows.max()), params, setup.windows, ftrl)
        else:
            self._state = RunState(n_kernel, self._paper_batch_size(), params)
        self._state.horizon = horizon
        self.coef_ = np.zeros((1, n_features))
        self.intercept_ = np.zeros(1)
        self.n_labels_requested_ = self.n_updates_ = self.n_seen_ = 0
        self.n_seen_last_call_ = 0
        self.privacy_spent_ = self._spent()

    # ------------------------------------------------------------ predict
    def decision_function(self, X):
        """Signed distance to the hyperplane (up to ``‖coef_‖``); > 0 predicts ``classes_[1]``.

        Warns with :class:`~skdp_anomaly.exceptions.NothingReleasedWarning`
        while the run has released no update (``n_updates_ == 0``): ``coef_``
        is then zero.
        """
        check_is_fitted(self, "coef_")
        check_numeric(X, type(self).__name__, ensure_2d=True)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if self.n_updates_ == 0:
            self._warn_nothing_released()
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Class labels (ties go to ``classes_[0]``); warns as :meth:`decision_function`."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __getstate__(self):
        # the run state pickles its open batch only when the parameter says so now
        state = getattr(self, "_state", None)
        if state is not None:
            state.pickle_data = bool(self.pickle_open_batch)
        return super().__getstate__()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _classes_of(y):
    """The label set of ``y`` (every label read: ``fit`` without ``classes``)."""
    if y.dtype.kind == "f":
        assert_all_finite(y, input_name="y")
    check_classification_targets(y)
    return np.unique(y)
