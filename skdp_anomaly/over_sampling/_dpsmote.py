"""DP-SMOTE: differentially private synthetic minority over-sampling (Lut 2022, §3.3).

The estimator: its parameters, its cost, and ``fit_resample``, which runs the stages in
order, in memory and on Dask alike: read inputs (here), statistics (:mod:`._statistics`),
releases (:mod:`._release`), synthesis (:mod:`._synthesis`, post-processing).
"""

from __future__ import annotations

import numbers

import numpy as np
from imblearn.over_sampling.base import BaseOverSampler
from imblearn.utils import check_target_type
from imblearn.utils._validation import ArraysTransformer
from sklearn.preprocessing import label_binarize
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .._data._dask import is_dask_collection
from .._data.blocks import read_labelled_blocks
from .._warn import warn
from ..exceptions import naming
from ..privacy import PrivacyCost, PrivacyCostMixin
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ..privacy._validation import NON_NUMERIC as _NON_NUMERIC
from ..privacy._validation import check_bounds, check_numeric, warn_outside_bounds
from ._release import (
    ReleaseSteps,
    release_class_sizes,
    release_gaussian,
    release_histograms,
)
from ._statistics import class_coordinates, read_statistics
from ._setting import (
    check_epsilon_cap,
    check_grid_shape,
    check_label_set,
    check_public_classes,
    check_strategy_labels,
    check_strategy_values,
    choose_grid,
    encode_labels,
    features_of_bounds,
    public_strategy,
)
from ._synthesis import synthesize_gaussian, synthesize_grid

# DPSMOTE's wording of the shared message (``what`` is filled in where it is raised)
_CATEGORICAL = (
    "Categorical data is out of scope: encode it numerically (with public "
    "bounds) or use a sampler for categorical data."
)
NON_NUMERIC = _NON_NUMERIC.format(owner="DPSMOTE", what="{what}", hint=_CATEGORICAL)

NOT_GAUSSIAN = (
    "DPSMOTE on dask collections supports `synopsis='gaussian'` (the default) only; the grid "
    "synopsis needs every class's occupied cells on one machine. Use `synopsis='gaussian'`, "
    "or call .compute() on data that fit in memory."
)


@fill_doc
class DPSMOTE(PrivacyCostMixin, BaseOverSampler):
    """Differentially private synthetic minority over-sampling (DP-SMOTE).

    Phase 1 releases a DP synopsis of each class to over-sample; phase 2 draws the synthetic
    rows from the synopsis only. ``synopsis="gaussian"`` (default) releases the class mean;
    ``synopsis="grid"`` the noisy grid histogram with SMOTE between noisy cells (Lut 2022,
    §3.3, Algorithm 6). The original rows pass through unchanged and the synthetic rows are
    appended, as with :class:`imblearn.over_sampling.SMOTE`. Numeric features only.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget: pure ε-DP under add/remove-one-record
        neighbours (``2·epsilon`` under replace-one). At most 30 per release.
    sampling_strategy : float, str, dict or callable, default="auto"
        As in imblearn, but evaluated on the *noisy* class sizes when ``class_counts="private"`` (a
        callable receives a surrogate label vector built from them, never ``y``). Where the noisy
        sizes already meet the request, 0 rows are generated instead of imblearn's error.
    bounds : None or (lower, upper), default=None
        Data range, per feature or scalars; rows outside are clipped. ``None`` reads them from the
        data with a :class:`~skdp_anomaly.exceptions.PrivacyLeakWarning` (no guarantee).
    synopsis : {"gaussian", "grid"}, default="gaussian"
        "gaussian": the class mean, from a float-safe Laplace release of the class sum in the unit
        box of ``bounds`` (L1 sensitivity d); rows are drawn from ``N(mean, spread²)`` and clipped
        to ``bounds``. "grid": the noisy histogram of Algorithm 6. See :ref:`proofs-dpsmote`.
    spread : float > 0, default=0.8
        ``synopsis="gaussian"``: standard deviation of the synthetic rows, as
        a fraction of each feature's half-range. Public, never read from data.
    granularity : float in (0, 1] or "auto", default=0.25
        ν (``synopsis="grid"``): ``ceil(1/ν)`` equal-width cells per feature. "auto" picks 2
        to 4 cells per feature from the DP class size (:ref:`proofs-dpsmote`).
    connectivity : int >= 0, default=2
        ℓ: the neighbour cell is at most ℓ grid edges away (Manhattan), the centre cell included.
    class_counts : {"private", "public"}, default="private"
        "private": class sizes are released with ``count_share * epsilon``.
        "public": exact sizes are used (imblearn's semantics) and not
        covered by the guarantee; the whole ``epsilon`` goes to the synopsis.
    count_share : float in (0, 1), default=0.1
        Share of ``epsilon`` spent on the class sizes (``class_counts="private"``).
    histogram : {"auto", "dense", "sparse"}, default="auto"
        "dense" noises all ``ceil(1/ν)**d`` cells (refused above 2**27); "sparse" reports
        noisy counts below a threshold θ as 0 without materialising empty cells; "auto" is
        "dense" up to 65 536 cells and 32 features.
    classes : array-like of shape (n_classes,), default=None
        The public set of class labels (at least 2); every class is handled
        alike whether or not ``y`` contains it. ``None`` takes the labels of
        ``y`` as public (:meth:`privacy_assumptions`); a string
        ``sampling_strategy`` may then over-sample an absent class from noise.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        ``None`` (OS entropy) for deployment; seeds for tests. The noise and
        the synthetic rows use two independent child streams.
    {accountant}
        Each fit is charged ``2·epsilon`` there (group privacy).

    Attributes
    ----------
    bounds_ : tuple of ndarray
        ``(lower, upper)`` used for the synopsis.
    synopsis_ : {"gaussian", "grid"}
        The synopsis released.
    noisy_means_ : dict
        ``synopsis="gaussian"``: class -> its DP mean (units of X), for every
        class with synthetic rows.
    n_cells_ : int
        ``synopsis="grid"``: cells per feature.
    granularity_ : float
        ``synopsis="grid"``: the ν used, ``1 / n_cells_``.
    histogram_ : {"dense", "sparse"}
        ``synopsis="grid"``: the representation used.
    noisy_class_counts_ : dict
        Class -> DP class size (``class_counts="private"`` only).
    sampling_strategy_ : dict
        Class -> number of synthetic rows generated.
    noisy_counts_ : dict
        ``synopsis="grid"``: class -> its released histogram, an int64 array
        of shape ``(n_cells_,) * n_features`` or a ``SparseHistogram``.
    privacy_spent_ : PrivacyCost
        What the last fit spent (add/remove neighbours); a failed call keeps
        the charges of the releases it made.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    See Also
    --------
    imblearn.over_sampling.SMOTE : the non-private algorithm (thesis Alg. 5).

    Notes
    -----
    **Privacy.** Pure ``epsilon``-DP under add/remove-one-record neighbours (features and label) for
    the synthetic rows and every fitted attribute, given public ``bounds`` and a public label set
    (``classes``, or the labels of ``y`` taken as public: :meth:`privacy_assumptions`); one
    geometric class-size histogram and one synopsis per over-sampled class, in parallel over the
    disjoint classes. Under replace-one neighbours it is ``2·epsilon``-DP (group privacy).
    ``class_counts="public"`` does not cover the class sizes. The returned dataset holds the
    original rows, so a DP model trained on it at ``ε₁`` costs ``ε₁ + epsilon`` (Theorem 3.3).
    :meth:`fit` spends as :meth:`fit_resample`. Proofs and design choices: :ref:`proofs-dpsmote` on
    :doc:`/proofs`.

    References
    ----------
    .. [1] Y. Lut. *Privacy-Aware Data Analysis: Recent Developments for
       Statistics and Machine Learning*. PhD thesis, Columbia University,
       2022, chapter 3: §3.3, Algorithm 6 (the grid synopsis), Theorems 3.2
       (SMOTE is not private) and 3.3 (DP-SMOTE).
    .. [2] N. V. Chawla, K. W. Bowyer, L. O. Hall, W. P. Kegelmeyer. SMOTE:
       synthetic minority over-sampling technique. JAIR 16, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly.over_sampling import DPSMOTE
    >>> X, y = make_classification(n_samples=2000, n_features=4, weights=[0.9],
    ...                            random_state=0)
    >>> sampler = DPSMOTE(epsilon=1.0, bounds=(-6, 6), random_state=0)
    >>> X_res, y_res = sampler.fit_resample(X, y)
    >>> sampler.synopsis_, sampler.noisy_means_[1].shape, sampler.privacy_spent_.epsilon
    ('gaussian', (4,), 1.0)
    >>> grid = DPSMOTE(epsilon=1.0, bounds=(-6, 6), synopsis="grid", random_state=0)
    >>> X_grid, y_grid = grid.fit_resample(X, y)
    >>> grid.histogram_, grid.n_cells_
    ('dense', 4)
    >>> auto = DPSMOTE(epsilon=1.0, bounds=(-6, 6), synopsis="grid", granularity="auto",
    ...                random_state=0)
    >>> X_auto, y_auto = auto.fit_resample(X, y)
    >>> auto.n_cells_, auto.granularity_                # from the noisy minority size
    (4, 0.25)
    >>> n_new = sampler.sampling_strategy_[1]          # from the noisy class sizes
    >>> X_res.shape[0] == X.shape[0] + n_new
    True
    """

    _parameter_constraints: dict = {
        **BaseOverSampler._parameter_constraints,
        **PRIVACY_PARAMETER_CONSTRAINTS,
        # at most 30 per release (checked with the split in _more_validate_params)
        "epsilon": epsilon_constraint(2 * MAX_GEOMETRIC_EPSILON),
        "bounds": ["array-like", None],
        "synopsis": [StrOptions({"gaussian", "grid"})],
        "spread": [Interval(numbers.Real, 0, np.inf, closed="neither")],  # finite
        "granularity": [Interval(numbers.Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "connectivity": [Interval(numbers.Integral, 0, None, closed="left")],
        "class_counts": [StrOptions({"private", "public"})],
        "count_share": [Interval(numbers.Real, 0, 1, closed="neither")],
        "histogram": [StrOptions({"auto", "dense", "sparse"})],
        "classes": ["array-like", None],
    }
    _data_derived_params = {"bounds": "stored in `bounds_`"}

    #: parameters that only one synopsis reads, with their defaults
    _SYNOPSIS_PARAMS = {
        "grid": {"granularity": 0.25, "connectivity": 2, "histogram": "auto"},
        "gaussian": {"spread": 0.8},
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        sampling_strategy="auto",
        bounds=None,
        synopsis="gaussian",
        spread=0.8,
        granularity=0.25,
        connectivity=2,
        class_counts="private",
        count_share=0.1,
        histogram="auto",
        classes=None,
        random_state=None,
        accountant=None,
    ):
        super().__init__(sampling_strategy=sampling_strategy)
        self.epsilon = epsilon
        self.bounds = bounds
        self.synopsis = synopsis
        self.spread = spread
        self.granularity = granularity
        self.connectivity = connectivity
        self.class_counts = class_counts
        self.count_share = count_share
        self.histogram = histogram
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    # -- privacy protocol ---------------------------------------------------
    def _more_validate_params(self) -> None:
        """Checks between parameters (each names the parameter at fault), before any data."""
        steps = self._release_steps()
        check_strategy_values(self.sampling_strategy)
        check_public_classes(self.classes, self.sampling_strategy)
        check_epsilon_cap(steps)
        n_features = features_of_bounds(self.bounds)
        if n_features is not None and self.synopsis == "grid":
            check_grid_shape(steps, n_features)
        elif n_features is not None:
            steps.check_sums(n_features)

    def _privacy_cost(self) -> PrivacyCost:
        """Pure ε-DP under add/remove-one-record neighbours, ``ε = epsilon``.

        The original rows in the output are not covered (Theorem 3.3); under
        replace-one neighbours it costs ``2·epsilon`` (group privacy).

        Examples
        --------
        >>> from skdp_anomaly.over_sampling import DPSMOTE
        >>> cost = DPSMOTE(epsilon=1.0).privacy_cost()
        >>> cost.epsilon, cost.neighbours, cost.under("replace").epsilon
        (1.0, 'add_remove', 2.0)
        """
        eps_counts, eps_hist = self._release_steps().split
        what = "per-class cell histograms"
        if self.synopsis == "gaussian":
            what = "per-class sums (Gaussian synopsis)"
        if self.class_counts == "public":
            note = (
                f"DPSMOTE: ε={eps_hist:g} on the {what}; class sizes declared "
                "public (class_counts='public')"
            )
        else:
            note = (
                f"DPSMOTE: ε={eps_counts:g} on the class sizes + ε={eps_hist:g} on the "
                f"{what} (parallel over classes)"
            )
        return PrivacyCost.pure(
            float(self.epsilon),
            note,
            "DPSMOTE output includes the original rows: a model trained on it composes "
            "sequentially with DPSMOTE (Lut 2022, Theorem 3.3)",
            neighbours="add_remove",
        )

    def _release_steps(self) -> ReleaseSteps:
        """The releases of this setting; ``split`` is (ε of the sizes, ε of the synopsis)."""
        epsilon = float(self.epsilon)
        share = 0.0 if self.class_counts == "public" else float(self.count_share)
        params = self.get_params(deep=False)
        fields = {name: params[name] for name in ReleaseSteps._fields if name != "split"}
        return ReleaseSteps(split=(share * epsilon, (1.0 - share) * epsilon), **fields)

    def privacy_assumptions(self) -> tuple:
        """What :meth:`~.PrivacyCostMixin.privacy_cost` takes as public without protecting it.

        * ``classes=None``: the set of class labels is read from ``y`` and
          treated as public schema (a label carried by one record reveals
          that record's presence otherwise);
        * ``class_counts="public"``: the exact class sizes are declared
          public, so they are used as they are and not protected.

        Examples
        --------
        >>> from skdp_anomaly.over_sampling import DPSMOTE
        >>> DPSMOTE(classes=[0, 1]).privacy_assumptions()
        ()
        >>> len(DPSMOTE(class_counts="public").privacy_assumptions())
        2
        """
        out = []
        if self.classes is None:
            out.append(
                "DPSMOTE(classes=None): the set of class labels is read from y and "
                "treated as public; pass classes=[...] to fix it in advance"
            )
        if self.class_counts == "public":
            out.append(
                "DPSMOTE(class_counts='public'): the exact class sizes are declared "
                "public and are not protected"
            )
        return tuple(out)

    # -- input checks -------------------------------------------------------
    def _check_X_y(self, X, y, accept_sparse=None):
        """``(X, y, binarize_y)`` validated (sets ``n_features_in_``): numeric features only."""
        check_numeric(X, "DPSMOTE", hint=_CATEGORICAL, ensure_2d=True)
        if _integer_labels(y):  # type_of_target's sort of y is not needed for these
            binarize_y = False
        else:
            y, binarize_y = check_target_type(y, indicate_one_vs_all=True)
        X, y = validate_data(
            self, X=X, y=y, reset=True, accept_sparse=False, dtype=[np.float64, np.float32]
        )
        return X, y, binarize_y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags

    # -- fitting --------------------------------------------------------------
    def _read_inputs(self, X, y) -> tuple:
        """``(X, y, classes, y_codes, public, frame, restore)``, validated before any release.

        On dask, ``classes`` may be None (read by the statistics) and ``restore`` is None.
        """
        public = y_codes = frame = restore = None
        if is_dask_collection(X) or is_dask_collection(y):
            if self.synopsis != "gaussian":
                raise naming(NotImplementedError, NOT_GAUSSIAN)
            X, y, frame = read_labelled_blocks(X, y, non_numeric=NON_NUMERIC, owner="DPSMOTE")
            if frame is not None:
                self.feature_names_in_ = np.asarray(frame[0], dtype=object)
            self.n_features_in_ = X.shape[1]
            classes = check_public_classes(self.classes, self.sampling_strategy)
            return X, y, classes, None, None, frame, None
        if not _integer_labels(y):  # 1-D integer labels are always binary or multiclass
            check_classification_targets(y)
        arrays_transformer = ArraysTransformer(X, y)
        X, y, binarize_y = self._check_X_y(X, y)
        restore = (arrays_transformer, binarize_y)
        classes = check_public_classes(self.classes, self.sampling_strategy)
        classes, y_codes = encode_labels(y, classes)
        if self.classes is None:  # the labels of y, public schema: checked before any release
            check_strategy_labels(self.sampling_strategy, classes)
            if self.class_counts == "public":
                public = public_strategy(self.sampling_strategy, y, self._sampling_type)
        return X, y, classes, y_codes, public, frame, restore

    # imblearn's abstract hook, not run: its template reads the exact class sizes
    _fit_resample = None

    def _private_fit(self, X, y, **params):
        """Run the private release as :meth:`fit_resample` does and discard the rows.

        Spends the same budget as :meth:`fit_resample`; prefer that method.

        Returns
        -------
        self : object
        """
        self._private_fit_resample(X, y, **params)
        return self

    def _private_fit_resample(self, X, y, **params):
        """Resample the dataset: the original rows plus DP synthetic rows.

        Parameters and the accountant (for the whole ``epsilon``) are checked before the
        data are read; each part is charged right before its release. A refused fit
        (:class:`diffprivlib.utils.BudgetError`) leaves the sampler as it was; a failed call
        too, except that ``privacy_spent_`` and the accountant keep the charges already
        made. Dask input (Gaussian synopsis) is read in one blockwise pass and gives dask
        output, the same rows as in memory, bit for bit.

        Parameters
        ----------
        X : {array-like, dataframe, dask array, dask dataframe} of shape (n_samples, n_features)
            Numeric features.
        y : {array-like, dask array, dask series} of shape (n_samples,)
            Class labels (in ``classes`` when that is given).

        Returns
        -------
        X_resampled : {ndarray, dataframe, dask array, dask dataframe}
            Shape (n_samples_new, n_features).
        y_resampled : {ndarray, series, dask array, dask series} of shape (n_samples_new,)
        """
        _warn_ignored_params(self)  # the stages run in order (tests/test_data_walk.py)
        steps, gaussian = self._release_steps(), self.synopsis == "gaussian"
        X, y, classes, y_codes, public, frame, restore = self._read_inputs(X, y)
        if self.bounds is not None:  # a local diagnostic, before any release
            lower, upper = check_bounds(self.bounds, n_features=X.shape[1])
            names = getattr(self, "feature_names_in_", None)
            warn_outside_bounds(X, lower, upper, "DPSMOTE", names)
        if not gaussian:  # before any release: the grid this X needs can be built
            check_grid_shape(steps, X.shape[1])
        dask_input = restore is None
        # 2. statistics (private, never stored)
        stats = read_statistics(X, y if dask_input else y_codes, classes, self.bounds, gaussian)
        if dask_input and classes is None:  # the labels present, public schema
            check_label_set(stats.classes)
            check_strategy_labels(self.sampling_strategy, stats.classes)
        self.bounds_ = stats.bounds
        # 3. releases, each charged right before it runs
        classes = stats.classes
        self.synopsis_ = self.synopsis
        size_release = {"charge": self._charge, "random_state": self.random_state, "public": public}
        if gaussian:
            released = release_gaussian(steps, stats, **size_release)
        else:
            released = release_class_sizes(steps, stats, **size_release)
            choice = choose_grid(steps, stats.bounds, released.class_sizes, released.n_new)
            self.n_cells_, self.granularity_ = choice.grid.n_cells, 1.0 / choice.grid.n_cells
            self.histogram_ = choice.kind
            over_sampled = np.flatnonzero(released.n_new > 0)
            coordinates = class_coordinates(choice.grid, X, y_codes, over_sampled)
            histograms = release_histograms(
                steps, released, choice, coordinates, classes, charge=self._charge
            )
            labels = classes.tolist()
            self.noisy_counts_ = {labels[j]: histogram for j, histogram in histograms.items()}
        if released.noisy_class_counts is not None:
            self.noisy_class_counts_ = released.noisy_class_counts
        self.sampling_strategy_ = released.sampling_strategy
        # 4. synthesis (post-processing)
        if gaussian:
            X_res, y_res, self.noisy_means_ = synthesize_gaussian(
                X, y, released, classes, float(self.spread), stats.box, frame
            )
        else:
            X_res, y_res = synthesize_grid(
                X, y, released, choice, histograms, classes, self.connectivity
            )
        if dask_input:
            return X_res, y_res
        arrays_transformer, binarize_y = restore
        if binarize_y:
            y_res = label_binarize(y_res, classes=classes)
        return arrays_transformer.transform(X_res, y_res)


def _integer_labels(y) -> bool:
    """True for a 1-D numpy array of integers: binary or multiclass, nothing to infer."""
    return isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iu"


def _warn_ignored_params(estimator) -> None:
    """Parameters of the other synopsis were set: they have no effect."""
    other = "grid" if estimator.synopsis == "gaussian" else "gaussian"
    defaults = estimator._SYNOPSIS_PARAMS[other]
    changed = [f"`{name}`" for name, value in defaults.items() if getattr(estimator, name) != value]
    if changed:
        verb = "applies" if len(changed) == 1 else "apply"
        warn(
            naming(
                UserWarning,
                f"DPSMOTE: {', '.join(changed)} {verb} only to `synopsis={other!r}`, so "
                f"ignored with `synopsis={estimator.synopsis!r}`.",
            )
        )
