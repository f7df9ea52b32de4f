"""Differentially private online active learning of a linear SVM (Ghassemi et al. 2016)."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    assert_all_finite,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ..privacy import (
    PrivacyCost,
    LaplaceMechanism,
    PrivacyCostMixin,
    call_rng,
    warn_privacy_leak,
)
from . import _kernel as kernel
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
        ``1 / alpha`` (the Pegasos step ``1/(λt)``), which did best in our runs.
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
    accountant : object with ``spend(epsilon, delta)``, default=None
        Checked and charged the whole ``epsilon`` when a run starts (first
        :meth:`partial_fit` or :meth:`fit`), before any row is read.

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
        Rows processed so far.
    data_norm_ : float
    slab_ : float
        The slab half-width used (absolute, ``slab·M``).
    privacy_spent_ : PrivacyCost
        Cost of the run so far (``privacy_cost()`` once a row was processed).
    n_features_in_ : int

    Notes
    -----
    **Privacy.** Neighbouring streams have the same length and differ in one
    element ``(x_t, y_t)`` (replace one stream element, §2). Each
    element is seen once: it takes part in one selection (``ε_s``: Bernoulli,
    Lemma 1; exponential, Lemma 2 *corrected*, see
    :class:`~skdp_anomaly.privacy.ExponentialSelection`) and in at most one
    update (``ε_g``, Lemma 3: replacing one row moves the batch's gradient
    sum by at most ``2M`` in L2 norm, hence ``2M√d`` in L1 norm). The released iterates, the update times and the batch
    sizes are therefore ``(ε_s + ε_g)``-DP (Theorems 1–3), whatever the
    stream length; the label buffer is never released. Feeding the same
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
    their labels) is kept in private state, as the paper's buffer: never
    released, but stored by ``pickle`` mid-stream, so treat a pickled
    running estimator like the data. No generator and no noise is kept: each
    call draws from a generator of its own
    (:func:`~skdp_anomaly.privacy.call_rng`).

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

    _private_state = ("_state",)

    _parameter_constraints: dict = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
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
        "random_state": ["random_state", np.random.Generator],
        "accountant": [HasMethods(["spend"]), None],
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

    def privacy_cost(self) -> PrivacyCost:
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
        if self.selection == "exponential" and self.slab_schedule == "shrinking":
            raise ValueError("slab_schedule='shrinking' is defined for selection='bernoulli' "
                             "only (a shrinking exponential slab would raise its cost).")
        eps_s, eps_g = self._split()
        if eps_s > MAX_SELECTION_EPSILON or eps_g > MAX_UPDATE_EPSILON:
            raise ValueError(
                f"epsilon={self.epsilon!r} gives ε_s={eps_s:.4g} to the selection and "
                f"ε_g={eps_g:.4g} to the updates; above ε_s = {MAX_SELECTION_EPSILON:g} the "
                "selection probabilities round to 0 or 1, and above ε_g = "
                f"{MAX_UPDATE_EPSILON:g} the update noise falls below double precision: "
                "the output would be exact. Use a smaller epsilon (or selection_share)."
            )
        if self.selection == "all":
            return PrivacyCost.pure(float(self.epsilon), "every label read; ε on the noisy "
                                    "updates", neighbours="replace")
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
    def fit(self, X, y=None, classes=None, label_oracle=None):
        """One fresh pass over the stream ``X`` (in row order).

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
        for name in ("_state",):
            self.__dict__.pop(name, None)
        if classes is None and y is not None:  # reads every label: the label set is public
            y = column_or_1d(y, warn=True)
            if y.dtype.kind == "f":
                assert_all_finite(y, input_name="y")
            check_classification_targets(y)
            classes = np.unique(y)
        return self._partial_fit(X, y, classes, label_oracle, first=True)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, classes=None, label_oracle=None):
        """Process the next rows of the stream.

        The first call needs ``classes`` (as for ``SGDClassifier``); a batch
        that is not complete at the end of a call carries over to the next.

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
        first = getattr(self, "_state", None) is None
        return self._partial_fit(X, y, classes, label_oracle, first=first)

    def _partial_fit(self, X, y, classes, label_oracle, first):
        if y is None and label_oracle is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y "
                             "is None and no label_oracle was given.")
        if y is not None and label_oracle is not None:
            raise ValueError("Pass either y or label_oracle, not both (the labels of the "
                             "selected rows come from one of them).")
        if isinstance(y, np.ndarray) and y.ndim == 2:
            y = column_or_1d(y, warn=True)
        elif y is not None and not (hasattr(y, "__getitem__") and hasattr(y, "__len__")):
            y = np.asarray(y)  # an object that can only be read whole
        if label_oracle is not None and not callable(label_oracle):
            raise ValueError("label_oracle must be callable, got "
                             f"{type(label_oracle).__name__}.")
        if first:
            classes = self._check_classes(classes)
            cost = self.privacy_cost()
            self._start_private_fit(cost)
            try:  # every input is checked before the run's ε is charged
                X = validate_data(self, X, reset=True, dtype=np.float64)
                _check_y_length(y, X)
            except Exception:
                self._forget()
                raise
            self._charge(cost)  # the whole run's ε, before any row is used
            self._start(classes, X)
        else:
            if classes is not None and not np.array_equal(
                    np.unique(np.asarray(classes)), self.classes_):
                raise ValueError(f"classes={classes!r} differs from the classes of the first "
                                 f"call, {self.classes_.tolist()!r}.")
            X = validate_data(self, X, reset=False, dtype=np.float64)
        source = "y" if y is not None else "label_oracle"
        if self._state.source is None:
            self._state.source = source
        elif source != self._state.source:
            raise ValueError(f"this run takes its labels from {self._state.source}; pass the "
                             f"same source on every call (got {source}), or call fit to restart.")
        _check_y_length(y, X)
        labels = _Labels(y, label_oracle, self.classes_)
        self._run(self._project(X), labels)
        return self

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

    def _start(self, classes, X):
        self.classes_ = classes
        if self.data_norm is None:
            warn_privacy_leak(
                "data_norm has not been specified and is computed from the data. This leaks "
                "information about the data and breaks the privacy guarantee. Specify "
                "data_norm from domain knowledge to remove this warning."
            )
            self.data_norm_ = float(np.max(np.linalg.norm(X, axis=1), initial=0.0)) or 1.0
        else:
            self.data_norm_ = float(self.data_norm)
        eps_s, eps_g = self._split()
        self.slab_ = self._slab_fraction(eps_s) * self.data_norm_
        self._state = _State(X.shape[1], self.batch_size)
        self.coef_ = np.zeros((1, X.shape[1]))
        self.intercept_ = np.zeros(1)
        self.n_labels_requested_ = self.n_updates_ = self.n_seen_ = 0
        self.privacy_spent_ = PrivacyCost.pure(0.0, neighbours="replace")

    def _project(self, X):
        norms = np.linalg.norm(X, axis=1)
        scale = np.minimum(1.0, self.data_norm_ / np.maximum(norms, 1e-300))
        return X * scale[:, None]

    # -------------------------------------------------------- the stream
    def _kernel_floats(self) -> np.ndarray:
        eps_s, eps_g = self._split()
        floats = np.zeros(kernel.N_FLOATS)
        floats[kernel.P_FLIP] = float(expit(-eps_s)) if eps_s else 0.0  # 1/(1+e^ε_s)
        floats[kernel.DATA_NORM] = self.data_norm_
        floats[kernel.SLAB] = self.slab_
        if self.selection == "exponential":
            floats[kernel.EXP_RATE] = eps_s / (self.data_norm_ - self.slab_)
        floats[kernel.ALPHA] = self.alpha
        floats[kernel.ETA] = 1.0 / self.alpha if self.eta0 is None else self.eta0
        floats[kernel.RADIUS] = 1.0 / math.sqrt(self.alpha)  # the SVM optimum lies inside
        return floats

    def _run(self, X, labels):
        state, n = self._state, X.shape[0]
        ints = state.ints
        ints[kernel.ROW] = 0
        sel_rng, noise_rng = call_rng(self.random_state, state.n_calls).spawn(2)
        state.n_calls += 1
        uniforms = sel_rng.random(n) if self.selection != "all" else np.empty(0)
        y, use_y = labels.kernel_view(self.classes_)
        floats = self._kernel_floats()
        mech = self._noise_mech(X.shape[1])
        floats[kernel.GRID] = mech.granularity
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
        self.n_seen_ += n
        self.n_updates_ = int(ints[kernel.N_UPDATES])
        self.n_labels_requested_ = int(ints[kernel.N_LABELS])
        self.coef_ = state.average[None, :].copy()
        self.privacy_spent_ = self.privacy_cost()

    def _noise_mech(self, n_features: int) -> LaplaceMechanism:
        """The update's float-safe mechanism: L1 sensitivity ``2M√d`` at ε_g (see Notes)."""
        _, eps_g = self._split()
        return LaplaceMechanism(eps_g, 2.0 * self.data_norm_ * math.sqrt(n_features),
                                neighbours="replace", coordinates=n_features)

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


class _State:
    """The private state of a run: the iterate and the label buffer (no generator)."""

    def __init__(self, n_features, batch_size):
        self.w = np.zeros(n_features)
        self.average = np.zeros(n_features)  # the released coef_ (running mean if averaging)
        self.buf = np.zeros((batch_size, n_features))
        self.buf_idx = np.zeros(batch_size, np.int64)
        self.signs = np.zeros(batch_size)
        self.noise = np.zeros((0, n_features))
        self.ints = np.zeros(kernel.N_INTS, np.int64)
        self.n_calls = 0  # calls so far: picks each call's generator (call_rng)
        self.source = None  # "y" or "label_oracle", fixed by the first call

    def drop_noise(self):
        """Forget the unused update noise, so that a pickle holds none."""
        self.noise = np.zeros((0, self.w.shape[0]))
        self.ints[kernel.NOISE_POS] = 0


def _check_y_length(y, X):
    if y is not None and len(y) != X.shape[0]:
        raise ValueError(f"y has {len(y)} labels but X has {X.shape[0]} rows.")


class _Labels:
    """Where the labels of selected rows come from: ``y`` (read at the selected
    rows only) or the oracle (asked once per batch, when its update is due)."""

    def __init__(self, y, oracle, classes):
        self.y, self.oracle, self.classes = y, oracle, classes

    def kernel_view(self, classes):
        """``(y, True)`` when the compiled loop can read ``y`` itself (a numeric
        ndarray with numeric classes), else ``(placeholder, False)``."""
        numeric = isinstance(self.y, np.ndarray) and self.y.dtype.kind in "biuf"
        if numeric and np.asarray(classes).dtype.kind in "biuf":
            return self.y, True
        return np.zeros(1), False

    def fill(self, state):
        """Labels of the buffered rows that have none yet (``signs`` as ±1)."""
        ints = state.ints
        first, last = int(ints[kernel.LABELLED]), int(ints[kernel.BUF_N])
        if last == first:
            return
        if self.y is not None:
            values = self._read(state.buf_idx[first:last])
        else:
            values = self._ask(state.buf[first:last])
        state.signs[first:last] = np.where(values == self.classes[1], 1.0, -1.0)
        ints[kernel.LABELLED] = last
        ints[kernel.N_LABELS] += last - first

    def refuse(self):
        raise ValueError("a label of a selected row is not one of classes "
                         f"{self.classes.tolist()!r}.")

    def _read(self, rows):
        if isinstance(self.y, np.ndarray):
            values = self.y[rows]
        elif hasattr(self.y, "iloc"):
            values = self.y.iloc[rows].to_numpy()
        else:
            values = np.asarray([self.y[int(i)] for i in rows])
        return self._check(values)

    def _ask(self, X_rows):
        values = np.asarray(self.oracle(X_rows.copy()))
        if values.shape != (X_rows.shape[0],):
            raise ValueError(f"label_oracle returned {values.shape} labels for "
                             f"{X_rows.shape[0]} rows; it must return one label per row.")
        return self._check(values)

    def _check(self, values):
        if not np.all(np.isin(values, self.classes)):
            self.refuse()
        return values
