"""Differentially private online active learning of a linear SVM (seed 003)."""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._warn import warn
from ..privacy import (
    PrivacyCost,
    PrivacyCostMixin,
    VectorLaplaceMechanism,
    check_random_state,
    warn_privacy_leak,
)
from ._selection import BERNOULLI_SLAB_SHARE, calibrated_slab, distances, selection_mechanism

__all__ = ["PrivateOnlineActiveSVC"]

# rows whose selection bits are drawn with one fixed w before the next update may cut them
_BLOCK = 256


class PrivateOnlineActiveSVC(PrivacyCostMixin, ClassifierMixin, BaseEstimator):
    """Differentially private online active learning of a linear SVM (FLSW / FLMB).

    Rows arrive in stream order. For each row a private selection step decides
    whether to ask for its label (Bernoulli or exponential selection on the
    distance to the current hyperplane, seed 003 §3.1, eqs. 5–7); selected
    rows are collected into mini-batches, and each batch makes one noisy
    hinge-loss gradient step (eq. 10) with noise of density
    ``∝ exp(-(ε_g / 2M) ‖z‖)`` (eq. 8). Updates happen every ``batch_size``
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
        Selection and update noise come from two independent child streams.
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
        Always 0: the model of seed 003 has no intercept (add a constant
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
    element ``(x_t, y_t)`` (replace one stream element, seed 003 §2). Each
    element is seen once: it takes part in one selection (``ε_s``: Bernoulli,
    Lemma 1; exponential, Lemma 2 *corrected*, see
    :class:`~skdp_anomaly.privacy.ExponentialSelection`) and in at most one
    update (``ε_g``, Lemma 3: replacing one row moves the batch sum by at most
    ``2M/B``, and the noise ``z/B`` has density ``∝ exp(-(ε_g B / 2M)‖·‖)``
    after scaling). The released iterates, the update times and the batch
    sizes are therefore ``(ε_s + ε_g)``-DP (Theorems 1–3), whatever the
    stream length; the label buffer is never released. Feeding the same
    records again (several passes) costs ``epsilon`` again per pass, which
    this estimator cannot know. ``privacy_cost()`` equals ``epsilon`` unless a
    fixed exponential ``slab`` costs more than ``ε_s``.

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
        if self.selection == "all":
            return PrivacyCost.pure(eps_g, "every label read; ε on the noisy updates",
                                    neighbours="replace")
        mech, _ = selection_mechanism(self.selection, eps_s, self._slab_fraction(eps_s), 1.0)
        spent_s = mech.cost.epsilon
        return PrivacyCost.pure(
            spent_s + eps_g,
            f"{self.selection} selection ε_s={spent_s:.4g} + noisy {self.update.upper()} "
            f"updates ε_g={eps_g:.4g}; each stream element is selected and updated at most once",
            neighbours="replace",
        )

    def privacy_assumptions(self) -> tuple:
        """What :meth:`privacy_cost` takes as public: the two labels, given as
        ``classes`` (or, in :meth:`fit` without ``classes``, read from ``y``)."""
        return ("PrivateOnlineActiveSVC: the two class labels are public (passed as classes, "
                "or read from y by fit when classes is None)",)

    # ---------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, classes=None, label_oracle=None):
        """One fresh pass over the stream ``X`` (in row order).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
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
            self._start_private_fit(self.privacy_cost())
            X = validate_data(self, X, reset=True, dtype=np.float64)
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
        if y is not None and len(y) != X.shape[0]:
            raise ValueError(f"y has {len(y)} labels but X has {X.shape[0]} rows.")
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
        sel_rng, noise_rng = check_random_state(self.random_state).spawn(2)
        self._state = _State(np.zeros(X.shape[1]), sel_rng, noise_rng)
        self.coef_ = np.zeros((1, X.shape[1]))
        self.intercept_ = np.zeros(1)
        self.n_labels_requested_ = self.n_updates_ = self.n_seen_ = 0
        self.privacy_spent_ = PrivacyCost.pure(0.0, neighbours="replace")
        self._charge(self.privacy_cost())

    def _project(self, X):
        norms = np.linalg.norm(X, axis=1)
        scale = np.minimum(1.0, self.data_norm_ / np.maximum(norms, 1e-300))
        return X * scale[:, None]

    # -------------------------------------------------------- the stream
    def _slab_now(self) -> float:
        if self.slab_schedule == "shrinking":
            return self.data_norm_ / (self.n_updates_ + 1)
        return self.slab_

    def _run(self, X, labels):
        state, n = self._state, X.shape[0]
        if n == 0:
            return
        eps_s, _ = self._split()
        uniforms = state.sel_rng.random(n)
        i = 0
        while i < n:
            end = min(n, i + _BLOCK)
            if self.update == "flsw":
                end = min(end, i + self.batch_size - state.window_seen)
            if self.selection == "all":
                chosen = np.ones(end - i, bool)
            else:
                _, probability = selection_mechanism(self.selection, eps_s, self._slab_now(),
                                                     self.data_norm_)
                d = np.minimum(distances(X[i:end], state.w), self.data_norm_)
                chosen = uniforms[i:end] < probability(d)
            picked = np.flatnonzero(chosen)
            if self.update == "flmb":
                need = self.batch_size - len(state.rows)
                if picked.size >= need:
                    end = i + int(picked[need - 1]) + 1
                    picked = picked[:need]
            rows = i + picked
            state.add(X[rows], labels.read(rows))
            if labels.y is not None:  # a label is read when its row is selected
                self.n_labels_requested_ += int(rows.size)
            if self.update == "flsw":
                state.window_seen += end - i
            self.n_seen_ += end - i
            i = end
            if self._update_due():
                self._noisy_update(labels)
        self.privacy_spent_ = self.privacy_cost()

    def _update_due(self) -> bool:
        state = self._state
        if self.update == "flmb":
            return len(state.rows) == self.batch_size
        if state.window_seen < self.batch_size:
            return False
        state.window_seen = 0
        if not state.rows:  # no selection in the window: the state is published unchanged
            return False
        return True

    def _noisy_update(self, labels):
        """Eq. (10) on the buffered batch, then release the iterate."""
        state = self._state
        Xb, yb = state.take(labels)
        B = Xb.shape[0]
        if labels.y is None:  # the oracle was asked for this batch
            self.n_labels_requested_ += B
        signs = np.where(yb == self.classes_[1], 1.0, -1.0)
        active = signs * (Xb @ state.w) < 1.0  # u of eq. (9)
        gradient = (signs[active, None] * Xb[active]).sum(axis=0)
        _, eps_g = self._split()
        z = VectorLaplaceMechanism(eps_g, 2.0 * self.data_norm_).noise(Xb.shape[1],
                                                                       state.noise_rng)
        t = self.n_updates_ + 1
        step = (1.0 / self.alpha if self.eta0 is None else self.eta0) / t
        w = state.w - step * (self.alpha * state.w - gradient / B + z / B)
        radius = 1.0 / math.sqrt(self.alpha)  # post-processing: the optimum lies inside
        norm = math.sqrt(float(w @ w))
        state.w = w if norm <= radius else w * (radius / norm)
        self.n_updates_ = t
        self._release(state.w)

    def _release(self, w):
        start = 1 if self.average is True else (int(self.average) if self.average else None)
        if start is None or self.n_updates_ < start:
            self.coef_ = w[None, :].copy()
            return
        k = self.n_updates_ - start + 1
        self.coef_ = self.coef_ + (w[None, :] - self.coef_) / k

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
    """The private state of a run: the current iterate, the label buffer, the streams."""

    def __init__(self, w, sel_rng, noise_rng):
        self.w, self.sel_rng, self.noise_rng = w, sel_rng, noise_rng
        self.rows, self.labels = [], []
        self.window_seen = 0
        self.source = None  # "y" or "label_oracle", fixed by the first call

    def add(self, X_rows, labels):
        self.rows.extend(X_rows)
        if labels is not None:
            self.labels.extend(labels)

    def take(self, labels):
        Xb = np.asarray(self.rows, dtype=np.float64)
        yb = np.asarray(self.labels) if self.labels else labels.ask(Xb)
        self.rows, self.labels = [], []
        return Xb, yb


class _Labels:
    """Where the labels of selected rows come from: ``y`` (read at the selected
    indices only) or the oracle (asked once per batch, at the update)."""

    def __init__(self, y, oracle, classes):
        self.y, self.oracle, self.classes = y, oracle, classes

    def read(self, rows):
        if self.y is None or rows.size == 0:
            return None if self.y is None else []
        if isinstance(self.y, np.ndarray):
            values = self.y[rows]
        elif hasattr(self.y, "iloc"):
            values = self.y.iloc[rows].to_numpy()
        else:
            values = np.asarray([self.y[int(i)] for i in rows])
        return self._check(values)

    def ask(self, X_rows):
        values = np.asarray(self.oracle(X_rows.copy()))
        if values.shape != (X_rows.shape[0],):
            raise ValueError(f"label_oracle returned {values.shape} labels for "
                             f"{X_rows.shape[0]} rows; it must return one label per row.")
        return self._check(values)

    def _check(self, values):
        if not np.all(np.isin(values, self.classes)):
            raise ValueError("a label of a selected row is not one of classes "
                             f"{self.classes.tolist()!r}.")
        return values
