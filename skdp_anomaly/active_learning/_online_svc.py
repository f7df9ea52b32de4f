"""Differentially private online active learning of a linear SVM (Ghassemi et al. 2016)."""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    assert_all_finite,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ..privacy._docstrings import fill_doc
from ..privacy import (
    PRIVACY_PARAMETER_CONSTRAINTS,
    LaplaceMechanism,
    PrivacyCost,
    PrivacyCostMixin,
    call_rng,
    private_fit,
    warn_privacy_leak,
)
from . import _kernel as kernel
from ._run_state import Labels, RunState, check_label_source, check_y_length
from ._selection import BERNOULLI_SLAB_SHARE, calibrated_slab, selection_mechanism

__all__ = ["PrivateOnlineActiveSVC"]

#: Above this selection ε, 1 - 1/(1+e^ε) rounds to 1 (ε ≈ 36.7) or the exponential
#: selection probabilities underflow: an outcome becomes impossible on one side.
MAX_SELECTION_EPSILON = 30.0
#: Above this update ε the noise radius, ~d·2M/ε, falls within ~1e-6 of M and
#: towards double-precision rounding of the update.
MAX_UPDATE_EPSILON = 1e6

_SELECT = {"bernoulli": kernel.SELECT_BERNOULLI, "exponential": kernel.SELECT_EXPONENTIAL,
           "all": kernel.SELECT_ALL}
_UPDATE = {"flmb": kernel.UPDATE_FLMB, "flsw": kernel.UPDATE_FLSW}
# update-noise vectors drawn from the noise stream at a time; the unused ones are
# dropped at the end of a call, so that no noise is kept between calls
_NOISE_REFILL = 64


@fill_doc
class PrivateOnlineActiveSVC(PrivacyCostMixin, ClassifierMixin, BaseEstimator):
    """Differentially private online active learning of a linear SVM (FLSW / FLMB).

    Rows arrive in stream order. For each row a private selection step decides
    whether to ask for its label (Bernoulli or exponential selection on the
    distance to the current hyperplane, §3.1, eqs. 5–7); selected
    rows are collected into mini-batches, and each batch makes one noisy
    hinge-loss gradient step (eq. 10) with noise calibrated to ``ε_g``
    (eq. 8, made float-safe: see Notes). Updates happen every ``batch_size``
    observations (``update="flsw"``, Algorithm 3) or every ``batch_size``
    selections (``update="flmb"``, Algorithm 4). ``selection="all"`` is the
    passive baseline (Algorithm 2 with mini-batches): every label is read and
    all of ε goes to the updates.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget per record (see Notes).
    selection : {"bernoulli", "exponential", "all"}, default="bernoulli"
        How rows are chosen for labelling.
    update : {"flmb", "flsw"}, default="flmb"
        Fixed-length mini-batches (an update every ``batch_size`` selected
        rows) or fixed-length selection windows (an update every
        ``batch_size`` observed rows, skipped when none was selected).
    batch_size : int, default=5
        ``L`` (FLMB) or ``N`` (FLSW); the paper uses 5.
    data_norm : float or None, default=1.0
        ``M``: rows are projected onto the L2 ball of this radius. ``None``
        takes the largest row norm of the first chunk, with a
        :class:`~skdp_anomaly.privacy.PrivacyLeakWarning` (the guarantee then
        does not hold); stored in ``data_norm_``.
    selection_share : float in (0, 1), default=0.5
        Share of ``epsilon`` spent on selection (``ε_s``); the rest (``ε_g``)
        on the updates. Ignored for ``selection="all"`` (``ε_g = ε``).
    slab : float in (0, 1) or None, default=None
        Half-width of the selection slab as a fraction of ``data_norm``.
        Bernoulli: rows with ``d(x, w) <= slab·M`` are informative (None:
        0.2, the paper's ``τ = e^{-0.2}``). Exponential: ``b = slab·M`` in
        eq. (7) (None: the narrowest slab whose corrected cost is exactly
        ``ε_s``, 0.2385 at ``ε_s = 1``; a fixed ``slab`` is charged its true
        cost, which may exceed ``ε_s``).
    slab_schedule : {"fixed", "shrinking"}, default="fixed"
        ``"shrinking"`` (Bernoulli only): the slab half-width is ``M / t`` at
        the ``t``-th update, the time-varying threshold ``τ = e^{-1/t}`` of §5.
    eta0 : float or None, default=None
        ``η``: the step size of the ``t``-th update is ``η / t``. None:
        ``1 / alpha`` (the Pegasos step ``1/(λt)``; the user guide has the
        measurements).
    alpha : float, default=0.01
        ``λ``, the L2 regularisation of eq. (2).
    average : bool or int, default=False
        Post-processing: ``coef_`` is the running mean of the released
        iterates (from update ``average`` on when an int) instead of the last
        one. Costs no privacy.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws from OS entropy (the only safe choice in deployment).
        Each call draws from a generator of its own (an int seed gives call
        ``k`` the seed's child ``k``), split into independent streams for
        selection and update noise.
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
        Always 0: the model of the paper has no intercept (add a constant
        feature within ``data_norm`` to learn one).
    n_labels_requested_ : int
        Labels read (from ``y``) or asked from ``label_oracle`` so far.
    n_updates_ : int
        Noisy updates released so far.
    n_seen_ : int
        Rows processed so far (each row counted once, interrupted calls
        included).
    n_seen_last_call_ : int
        How many leading rows of the last call's ``X`` the stream has
        consumed: all of them when the call returned. After an exception
        (a ``label_oracle`` error, a Ctrl-C) the rows ``X[:n_seen_last_call_]``
        were used and the others not; a retry with the same ``X`` skips the
        former (see Notes). A call that failed before it used anything left
        the estimator as it was, this attribute included.
    data_norm_ : float
    slab_ : float
        The slab half-width used (absolute, ``slab·M``).
    privacy_spent_ : PrivacyCost
        The run's charge, ``privacy_cost()``, made when the run started, before
        any row was used; after a failed :meth:`fit`, also that fit's charge.
    n_features_in_ : int

    Notes
    -----
    **Privacy.** Neighbouring streams have the same length and differ in one
    element ``(x_t, y_t)`` (replace one stream element, §2). Each
    element is seen once: it takes part in one selection (``ε_s``: Bernoulli,
    Lemma 1; exponential, Lemma 2 *corrected*, see
    :class:`~skdp_anomaly.privacy.ExponentialSelection`) and in at most one
    update (``ε_g``, Lemma 3: replacing one row moves the batch's gradient
    sum by at most ``2M`` in L2 norm, hence ``2M√d`` in L1 norm). The
    released iterates, the update times and the batch sizes are therefore
    ``(ε_s + ε_g)``-DP (Theorems 1–3), whatever the stream length; the label
    buffer is never released. Feeding the same
    records again (several passes) costs ``epsilon`` again per pass, which
    this estimator cannot know. ``privacy_cost()`` equals ``epsilon`` unless a
    fixed exponential ``slab`` costs more than ``ε_s``.

    **Float-safe noise (a departure from eq. 8).** Eq. (8)'s noise, density
    ``∝ exp(-(ε_g / 2M) ‖z‖₂)``, is a continuous vector: added to the
    gradient in floating point, the low-order bits of the result can reveal
    the gradient (Mironov 2012), and no sampler of that density on a grid is
    known. Each update therefore releases the gradient sum rounded to a
    power-of-two grid plus discrete Laplace noise per coordinate, calibrated
    to the L1 sensitivity ``2M√d`` (and the rounding)
    (:class:`~skdp_anomaly.privacy.LaplaceMechanism`): pure ``ε_g``-DP, with
    a noise norm about ``√2`` times eq. (8)'s in expectation.

    Between calls the pending batch (at most ``batch_size`` selected rows and
    their labels, raw) is kept in private state, as the paper's buffer:
    never released, but stored by ``pickle`` mid-stream, so **a pickle of a
    running estimator is data**. After an interrupted call the private state
    also holds a BLAKE2b fingerprint of the rows that call consumed (see
    below); rows with few possible values can be recovered from it by
    trying them. No generator and no noise is kept: each call draws from a
    generator of its own (:func:`~skdp_anomaly.privacy.call_rng`).

    **Interrupted calls.** A stream cannot simply be rolled back: rows sent
    to ``label_oracle`` were seen by another party, and a rolled-back retry
    would select and use them again. :meth:`partial_fit` therefore commits
    what the compiled loop did when an exception (an error of
    ``label_oracle`` or of ``y``, a ``KeyboardInterrupt``) stops it after
    the call used anything: ``n_seen_``, ``n_labels_requested_``,
    ``n_updates_`` and ``coef_`` describe exactly the rows consumed, the
    labels obtained and the updates made; ``n_seen_last_call_`` says how many
    rows of the call were consumed; and the exception propagates. The next
    call whose first rows equal, byte for byte, those consumed is taken as
    the retry: it resumes at the first unconsumed row and asks no label
    obtained before (the selected rows still waiting for labels are asked
    for, with the oracle of the retry). A call with other rows continues the
    stream after the consumed ones. Either way no row is used twice and
    ``n_seen_`` counts each row once; the run's ε is not charged again. A
    call that fails before it used anything (bad input, a refused budget, an
    oracle error on the batch already pending) leaves the estimator exactly
    as it was. :meth:`fit` is a fresh run and one transaction: on any
    exception the estimator returns to its state before the call, and the
    charge of the failed run stays in ``privacy_spent_`` and on the
    accountant. A retry of ``fit`` is a new run, charged again: the failed
    run's rows (those sent to an oracle too) were paid for by its charge,
    and the new run uses them under its own. To resume instead of paying
    again, stream with :meth:`partial_fit`.

    Parameters cannot change during a run (``set_params`` between
    :meth:`partial_fit` calls raises): the run was charged for the
    mechanisms its first call set up. ``random_state`` and ``accountant``
    may change.

    **Dask.** ``dask_ml.wrappers.Incremental(svc, shuffle_blocks=False)``
    feeds the blocks of a dask array to :meth:`partial_fit` in order and
    gives exactly the state of the same calls in memory (its default,
    ``shuffle_blocks=True``, visits the blocks in random order: another
    stream). Incremental fits a clone, so the accountant charged is a copy
    (``inc.estimator_.accountant``), not the object passed.

    **Speed.** Each selection depends on the last update, so the stream is
    sequential; the loop is compiled with numba and returns to Python only
    for an oracle's labels and for more update noise.

    **Choices where the paper is unclear.** ``d(x, 0) = 0`` (before the first
    update every row is informative); an FLSW window without selections makes
    no update (the paper publishes the previous state); the iterate is
    projected onto the ball of radius ``1/sqrt(λ)``, which contains the SVM
    optimum (the paper projects onto "the uniform ball"), post-processing
    that costs nothing.

    References
    ----------
    .. [1] M. Ghassemi, A. D. Sarwate, R. N. Wright. Differentially private
       online active learning with applications to anomaly detection.
       AISec 2016: §3.1, eqs. (5)–(7) and Lemmas 1–2 (selection), §3.2,
       eqs. (8)–(10) and Lemma 3 (updates), Algorithms 3–4, Theorems 1–3.
    .. [2] I. Mironov. On significance of the least significant bits for
       differential privacy. CCS 2012 (why the update noise is on a grid).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly import PrivateOnlineActiveSVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 2)) / 3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> svc = PrivateOnlineActiveSVC(epsilon=2.0, average=True, random_state=0)
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
        "update": [StrOptions({"flmb", "flsw"})],
        "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "selection_share": [Interval(numbers.Real, 0, 1, closed="neither")],
        "slab": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "slab_schedule": [StrOptions({"fixed", "shrinking"})],
        "eta0": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "average": ["boolean", Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, epsilon=1.0, selection="bernoulli", update="flmb", batch_size=5,
                 data_norm=1.0, selection_share=0.5, slab=None, slab_schedule="fixed",
                 eta0=None, alpha=0.01, average=False, random_state=None, accountant=None):
        self.epsilon = epsilon
        self.selection = selection
        self.update = update
        self.batch_size = batch_size
        self.data_norm = data_norm
        self.selection_share = selection_share
        self.slab = slab
        self.slab_schedule = slab_schedule
        self.eta0 = eta0
        self.alpha = alpha
        self.average = average
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------ privacy
    def _split(self) -> tuple[float, float]:
        """(ε_s, ε_g)."""
        if self.selection == "all":
            return 0.0, float(self.epsilon)
        eps_s = float(self.selection_share) * float(self.epsilon)
        return eps_s, float(self.epsilon) - eps_s

    def _slab_fraction(self, eps_s: float) -> float:
        if self.slab is not None:
            return float(self.slab)
        if self.selection == "exponential":
            return calibrated_slab(eps_s, 1.0)  # the cost depends on b/M only
        return BERNOULLI_SLAB_SHARE

    def _more_validate_params(self) -> None:
        """The checks between parameters, and those floating point imposes."""
        name = type(self).__name__
        if self.selection == "exponential" and self.slab_schedule == "shrinking":
            raise ValueError(
                f"The 'slab_schedule' parameter of {name} must be 'fixed' with "
                "selection='exponential': 'shrinking' is defined for selection='bernoulli' "
                "only (a shrinking exponential slab would raise its cost). Got "
                "slab_schedule='shrinking'.")
        eps_s, eps_g = self._split()
        if eps_s > MAX_SELECTION_EPSILON or eps_g > MAX_UPDATE_EPSILON:
            share = "" if self.selection == "all" else (
                f" with selection_share={self.selection_share!r}")
            raise ValueError(
                f"The 'epsilon' parameter of {name} must leave at most ε_s = "
                f"{MAX_SELECTION_EPSILON:g} to the selection and ε_g = {MAX_UPDATE_EPSILON:g} "
                "to the updates: above them the selection probabilities round to 0 or 1 and "
                "the update noise falls below double precision, so the output would be "
                f"exact. Got epsilon={self.epsilon!r}{share} (ε_s={eps_s:.4g}, "
                f"ε_g={eps_g:.4g}); use a smaller epsilon.")
        if self.selection == "exponential":
            try:
                self._slab_fraction(eps_s)
            except (ArithmeticError, ValueError):
                raise ValueError(
                    f"The 'epsilon' parameter of {name} leaves the exponential selection "
                    f"ε_s={eps_s:.3g}, too small to calibrate its slab in floating point. "
                    f"Got epsilon={self.epsilon!r}; use a larger epsilon (or selection_share) "
                    "or a fixed slab.") from None
        if float(self.alpha) < 1.0 / sys.float_info.max:
            raise ValueError(
                f"The 'alpha' parameter of {name} must be at least {1 / sys.float_info.max:.3g}"
                " (1/alpha is the default step size, and its square root the radius of the "
                f"iterate's ball). Got alpha={self.alpha!r}.")
        # the cost does not depend on M: data_norm=None is checked on its value at fit
        self._update_setup(1.0 if self.data_norm is None else float(self.data_norm), 1)

    def _privacy_cost(self) -> PrivacyCost:
        """Pure ``(ε_s + ε_g)``-DP under replace-one-stream-element neighbours.

        Examples
        --------
        >>> from skdp_anomaly import PrivateOnlineActiveSVC
        >>> PrivateOnlineActiveSVC(epsilon=2.0, selection="exponential").privacy_cost().epsilon
        2.0
        >>> fixed = PrivateOnlineActiveSVC(epsilon=2.0, selection="exponential", slab=0.2)
        >>> round(fixed.privacy_cost().epsilon, 4)   # Lemma 2 corrected: 1.171 + 1
        2.1711
        """
        if self.selection == "all":
            return PrivacyCost.pure(float(self.epsilon), "every label read; ε on the noisy "
                                    "updates", neighbours="replace")
        eps_s, eps_g = self._split()
        mech = selection_mechanism(self.selection, eps_s, self._slab_fraction(eps_s), 1.0)
        spent_s = mech.cost.epsilon
        # ε_s + ε_g need not round back to ε: state ε itself when the split is exact
        total = float(self.epsilon) if spent_s <= eps_s else spent_s + eps_g
        return PrivacyCost.pure(
            total,
            f"{self.selection} selection ε_s={spent_s:.4g} + noisy {self.update.upper()} "
            f"updates ε_g={eps_g:.4g}; each stream element is selected and updated at most once",
            neighbours="replace",
        )

    def privacy_assumptions(self) -> tuple:
        """What :meth:`privacy_cost` takes as public: the two class labels.

        They are given as ``classes``, or, in :meth:`fit` without ``classes``,
        read from ``y``.
        """
        return ("PrivateOnlineActiveSVC: the two class labels are public (passed as classes, "
                "or read from y by fit when classes is None)",)

    # ---------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    @private_fit
    def fit(self, X, y=None, classes=None, label_oracle=None):
        """One fresh pass over the stream ``X`` (in row order).

        A transaction: on any exception the estimator is as before the call,
        and ``privacy_spent_`` (and the accountant) keep the run's charge when
        it was made; a retry is a new run, charged again (see Notes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The stream, one row per element, in arrival order; rows are
            projected onto the ball of radius ``data_norm``.
        y : array-like of shape (n_samples,), default=None
            Labels; only those of selected rows are read. None needs
            ``label_oracle`` and ``classes``.
        classes : array-like of shape (2,), default=None
            The two labels. None takes them from ``y`` (which then reads every
            label and treats the label set as public).
        label_oracle : callable, default=None
            Called with the selected rows (2-D, stream order) when a batch
            needs their labels; returns one label per row.

        Returns
        -------
        self
        """
        cost = self.privacy_cost()
        y = check_label_source(y, label_oracle)
        X, labels = self._begin_run(cost, X, y, classes, label_oracle, classes_from_y=True)
        self._stream(X, labels, skip=None, commit=False)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, classes=None, label_oracle=None):
        """Process the next rows of the stream.

        The first call needs ``classes`` (as for ``SGDClassifier``) and charges
        the run's ε; a batch that is not complete at the end of a call
        carries over to the next. An exception after the call used rows (or
        obtained labels) leaves the stream where it stopped, counted in the
        public attributes (``n_seen_last_call_`` rows of ``X`` consumed), and
        a retry with the same ``X`` resumes there; an exception before leaves
        the estimator as it was (see Notes).

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
        interruption = self._partial_fit(X, y, classes, label_oracle)
        if interruption is not None:  # committed: the stream stands where it stopped
            raise interruption
        return self

    @private_fit
    def _partial_fit(self, X, y, classes, label_oracle):
        """One call as a transaction: rolled back when it fails before using
        anything, committed when it fails after (the exception is returned)."""
        cost = self.privacy_cost()
        y = check_label_source(y, label_oracle)
        if getattr(self, "_state", None) is None:
            X, labels = self._begin_run(cost, X, y, classes, label_oracle)
            skip = None
        else:
            X, labels = self._continue_run(X, y, classes, label_oracle)
            skip = self._state.resume_position(X)
        return self._stream(X, labels, skip, commit=True)

    def _begin_run(self, cost, X, y, classes, label_oracle, classes_from_y=False):
        """Reserve and charge the run's ε, set up its state; the checked ``X`` and labels."""
        self._start_private_fit(cost)
        self._keeps_run_open = True  # the run's reservation lasts while the stream goes on
        if classes is None and y is not None and classes_from_y:
            y = column_or_1d(y, warn=True)
            classes = _classes_of(y)  # reads every label: the label set is public
        classes = self._check_classes(classes)
        X = validate_data(self, X, reset=True, dtype=np.float64)
        check_y_length(y, X)
        data_norm = self._data_norm_of(X)
        self._update_setup(data_norm, X.shape[1])  # refuses a bad data_norm before the charge
        self._charge(cost)  # the whole run's ε, before any row is used
        self._start(classes, data_norm, X.shape[1])
        self._state.source = "y" if y is not None else "label_oracle"
        return X, Labels(y, label_oracle, self.classes_)

    def _continue_run(self, X, y, classes, label_oracle):
        """The checked ``X`` and labels of a later call of the run."""
        if classes is not None and not np.array_equal(
                np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(f"classes={classes!r} differs from the classes of the first "
                             f"call, {self.classes_.tolist()!r}.")
        for param, before, now in self._state.changed_params(self._run_params()):
            raise ValueError(
                f"The '{param}' parameter of {type(self).__name__} changed during the run "
                f"({before!r}, now {now!r}): the run was charged for the mechanisms of its "
                "first call. Call fit (or partial_fit on a clone) to start a new run.")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        source = "y" if y is not None else "label_oracle"
        if source != self._state.source:
            raise ValueError(f"this run takes its labels from {self._state.source}; pass the "
                             f"same source on every call (got {source}), or call fit to restart.")
        check_y_length(y, X)
        return X, Labels(y, label_oracle, self.classes_)

    def _run_params(self) -> dict:
        params = self.get_params(deep=False)
        return {k: v for k, v in params.items() if k not in ("random_state", "accountant")}

    @staticmethod
    def _check_classes(classes):
        if classes is None:
            raise ValueError("classes must be given on the first call to partial_fit (the two "
                             "labels of the binary task).")
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
            "data_norm has not been specified and is computed from the data. This leaks "
            "information about the data and breaks the privacy guarantee. Specify "
            "data_norm from domain knowledge to remove this warning."
        )
        return float(np.max(np.linalg.norm(X, axis=1), initial=0.0)) or 1.0

    def _start(self, classes, data_norm, n_features):
        self.classes_ = classes
        self.data_norm_ = data_norm
        eps_s, _ = self._split()
        self.slab_ = self._slab_fraction(eps_s) * self.data_norm_
        self._state = RunState(n_features, self.batch_size, self._run_params())
        self.coef_ = np.zeros((1, n_features))
        self.intercept_ = np.zeros(1)
        self.n_labels_requested_ = self.n_updates_ = self.n_seen_ = 0
        self.n_seen_last_call_ = 0
        self.privacy_spent_ = self._spent()

    def _project(self, X):
        norms = np.linalg.norm(X, axis=1)
        scale = np.minimum(1.0, self.data_norm_ / np.maximum(norms, 1e-300))
        return X * scale[:, None]

    # -------------------------------------------------------- the stream
    def _update_setup(self, data_norm: float, n_features: int):
        """The kernel's parameters and the update mechanism at ``M = data_norm``.

        Raises a ``ValueError`` naming ``data_norm`` when floating point cannot
        hold them (an overflowing sensitivity, a grid or a rate out of range).
        """
        eps_s, eps_g = self._split()
        sensitivity = 2.0 * data_norm * math.sqrt(n_features)
        try:
            mech = LaplaceMechanism(eps_g, sensitivity, neighbours="replace",
                                    coordinates=n_features)
            floats = self._kernel_floats(data_norm, self._slab_fraction(eps_s) * data_norm)
            floats[kernel.GRID] = mech.granularity
            usable = bool(np.all(np.isfinite(floats))) and floats[kernel.GRID] > 0
        except (ArithmeticError, ValueError):
            usable = False
        if not usable:
            value = "None, read from the data," if self.data_norm is None else (
                f"{self.data_norm!r}")
            raise ValueError(
                f"The 'data_norm' parameter of {type(self).__name__} must keep the update "
                f"noise (L1 sensitivity 2·M·√{n_features} at ε_g={eps_g:.3g}, on a grid) and "
                "the selection rate within floating point. Got data_norm="
                f"{value} with {n_features} feature(s); rescale the data.")
        return floats, mech

    def _kernel_floats(self, data_norm: float, slab: float) -> np.ndarray:
        eps_s, eps_g = self._split()
        floats = np.zeros(kernel.N_FLOATS)
        floats[kernel.P_FLIP] = float(expit(-eps_s)) if eps_s else 0.0  # 1/(1+e^ε_s)
        floats[kernel.DATA_NORM] = data_norm
        floats[kernel.SLAB] = slab
        if self.selection == "exponential":
            floats[kernel.EXP_RATE] = eps_s / (data_norm - slab)
        floats[kernel.ALPHA] = self.alpha
        floats[kernel.ETA] = 1.0 / self.alpha if self.eta0 is None else self.eta0
        floats[kernel.RADIUS] = 1.0 / math.sqrt(self.alpha)  # the SVM optimum lies inside
        return floats

    def _stream(self, X, labels, skip, commit):
        """Run the call's rows from ``skip`` (None: not a retry, from row 0).

        With ``commit``, an exception raised after the call used rows,
        labels or updates is committed to the public attributes and returned
        (the caller raises it); before that, it propagates for the rollback.
        """
        state = self._state
        start = 0 if skip is None else skip
        state.ints[kernel.ROW] = start
        before = state.progress()
        state.interruption = None
        try:
            self._run(X, labels, start, retry=skip is not None)
        except BaseException as exc:
            if not commit or state.progress() == before:
                raise
            if labels.y is not None:
                try:  # read the pending rows' labels from this y, as at the end of a call
                    labels.fill(state)
                except Exception:  # noqa: BLE001 - the first error is the one raised
                    pass  # a retry with the same X reads them from its y
            state.drop_noise()
            position = state.record_interruption(X)
            self._publish(position - start, position)
            return exc
        self._publish(X.shape[0] - start, X.shape[0])
        return None

    def _run(self, X, labels, start, retry):
        state, n = self._state, X.shape[0]
        ints = state.ints
        if labels.y is not None and ints[kernel.LABELLED] < ints[kernel.BUF_N]:
            # rows an interrupted call selected wait for labels from its y
            if retry:
                labels.fill(state)
            else:
                state.drop_unlabelled(flmb=self.update == "flmb")
        X = self._project(X)
        sel_rng, noise_rng = call_rng(self.random_state, state.n_calls).spawn(2)
        state.n_calls += 1
        uniforms = np.empty(0)
        if self.selection != "all":
            uniforms = np.zeros(n)  # the rows before start were consumed by an earlier call
            uniforms[start:] = sel_rng.random(n - start)
        y, use_y = labels.kernel_view(self.classes_)
        floats, mech = self._update_setup(self.data_norm_, X.shape[1])
        if use_y:
            floats[kernel.NEG], floats[kernel.POS] = self.classes_
        avg_start = 1 if self.average is True else int(self.average or 0)
        modes = (_SELECT[self.selection], _UPDATE[self.update], self.batch_size,
                 self.slab_schedule == "shrinking")
        while True:
            kernel.run_stream(X, uniforms, y, use_y, state.w, state.average, avg_start,
                              state.buf, state.buf_idx, state.signs, state.noise, ints,
                              floats, *modes)
            status = ints[kernel.STATUS]
            if status == kernel.DONE:
                break
            if status == kernel.NEED_NOISE:
                state.noise = mech.noise_steps((_NOISE_REFILL, X.shape[1]),
                                               noise_rng).astype(np.float64)
                ints[kernel.NOISE_POS] = 0
            elif status == kernel.NEED_LABELS:
                labels.fill(state)
            else:
                labels.refuse()
        if labels.y is not None:  # pending rows of this call: read their labels from this y
            labels.fill(state)
        state.drop_noise()

    def _publish(self, n_new: int, n_consumed: int) -> None:
        """The public attributes, from what the compiled loop did."""
        ints = self._state.ints
        self.n_seen_ += n_new
        self.n_seen_last_call_ = n_consumed
        self.n_updates_ = int(ints[kernel.N_UPDATES])
        self.n_labels_requested_ = int(ints[kernel.N_LABELS])
        self.coef_ = self._state.average[None, :].copy()
        self.privacy_spent_ = self._spent()

    # ------------------------------------------------------------ predict
    def decision_function(self, X):
        """Signed distance to the hyperplane (up to ``‖coef_‖``); > 0 predicts ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_[0]

    def predict(self, X):
        """Class labels (ties, e.g. before the first update, go to ``classes_[0]``)."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

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
