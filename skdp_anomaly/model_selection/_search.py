"""Private model selection: a search whose choice is a differentially private release."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
    clone,
    is_classifier,
)
from sklearn.model_selection import KFold, ParameterGrid, ParameterSampler, check_cv
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ..privacy import (
    GeometricMechanism,
    MAX_GEOMETRIC_EPSILON,
    PrivacyCost,
    PrivacyCostMixin,
    ReportNoisyMax,
    check_random_state,
    compose_sequential,
)
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import (
    PRIVACY_PARAMETER_CONSTRAINTS,
    epsilon_constraint,
    private_fit,
)
from ._label_set import give_label_set, label_set_route
from ._repetitions import sample_tnb, tnb_gamma_for_mean

__all__ = ["PrivateGridSearchCV", "PrivateRandomizedSearchCV"]

SELECTIONS = ("repeated", "holdout-noisy-max", "cv-noisy-max")


def _estimator_has(attr):
    """``available_if`` check: the fitted best estimator (else the estimator) has ``attr``."""

    def check(self):
        getattr(getattr(self, "best_estimator_", self.estimator), attr)
        return True

    return check


class _PrivateSearch(PrivacyCostMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """The shared engine of :class:`PrivateGridSearchCV` and :class:`PrivateRandomizedSearchCV`."""

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        "estimator": [HasMethods(["fit", "predict"])],
        # above 30 the noise of a count rounds to zero in double precision
        "epsilon": epsilon_constraint(MAX_GEOMETRIC_EPSILON),
        "selection": [StrOptions(set(SELECTIONS))],
        "n_runs": [StrOptions({"auto"}), Interval(Real, 1, None, closed="left")],
        "cv": ["cv_object"],
        "scoring": [StrOptions({"accuracy"}), None],
        "refit": ["boolean"],
        "classes": ["array-like", None],
    }

    # ------------------------------------------------------------ privacy
    def privacy_selection(self) -> dict:
        """Return how the search chooses, for the budget validator.

        Returns
        -------
        dict
            ``rule`` (the ``selection`` parameter), ``epsilon``, ``cv`` (the
            splitter the search uses: an int or None becomes ``KFold``) and
            ``refit``.
        """
        self._check_params()
        return {"rule": self.selection, "epsilon": float(self.epsilon),
                "cv": self._splitter(None), "refit": bool(self.refit),
                "label_set": label_set_route(self.estimator) is not None,
                "classes": self.classes}

    def _plan(self):
        from ..budget._validator import private_search_plan

        return private_search_plan(self)

    def _privacy_cost(self) -> PrivacyCost:
        """Candidate fits, the selection and the refit, under replace-one neighbours.

        Raises ``ValueError`` when a candidate learns without privacy (the
        budget validator's leak message says why).
        """
        plan = self._plan()
        if plan.leaks:
            raise ValueError("; ".join(dict.fromkeys(plan.leaks)))
        return compose_sequential([r.cost for r in plan.rows if not r.leak],
                                  neighbours="replace")

    def privacy_leaks(self) -> tuple:
        """Return what the candidates (or the splitter) leave unprotected, in words.

        Returns
        -------
        tuple of str
            The budget validator's leaks of this search.
        """
        return tuple(self._plan().leaks)

    def privacy_assumptions(self) -> tuple:
        """Return what the guarantee takes as public, in words.

        Returns
        -------
        tuple of str
            The candidates' assumptions (a label set read from ``y``...).
        """
        return tuple(self._plan().assumptions)

    def _more_validate_params(self) -> None:
        if not is_classifier(self.estimator):
            raise ValueError("The 'estimator' parameter must be a classifier: the validation "
                             f"score is a count of correct predictions; got {self.estimator!r}.")
        self._candidates(None)  # the grid or the distributions are well formed

    # ------------------------------------------------------------ plumbing
    def _splitter(self, rng):
        """The splitter: an int or None is a shuffled ``KFold`` (never stratified)."""
        if self.cv is None or isinstance(self.cv, Integral):
            seed = None if rng is None else int(rng.integers(2**31 - 1))
            return KFold(5 if self.cv is None else int(self.cv), shuffle=True, random_state=seed)
        return check_cv(self.cv)

    def _n_runs(self, n_candidates: int, n_splits: int) -> float:
        if self.n_runs == "auto":
            return max(1.0, n_candidates * n_splits / 2)
        return float(self.n_runs)

    # ------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)
    @private_fit
    def fit(self, X, y, groups=None):
        """Choose a candidate privately, then refit it (when ``refit=True``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, passed to the candidates as is.
        y : array-like of shape (n_samples,)
            Class labels.
        groups : array-like of shape (n_samples,), default=None
            Group keys for a group splitter (public by assumption).

        Returns
        -------
        self
            The fitted search.
        """
        plan = self._plan()
        if plan.leaks:
            raise ValueError("; ".join(dict.fromkeys(plan.leaks)))
        total = compose_sequential([r.cost for r in plan.rows if not r.leak],
                                   neighbours="replace")
        self._start_private_fit(total)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y "
                             "is None: the validation score is a count of correct predictions.")
        X, y, groups = indexable(X, y, groups)
        y = column_or_1d(y, warn=True)  # a column vector would broadcast in the counts
        check_classification_targets(y)
        label_set = self._label_set(y)
        seeds = check_random_state(self.random_state).integers(2**63, size=3)
        schedule, noise, fit_seeds = (np.random.default_rng(int(s)) for s in seeds)
        candidates = self._candidates(schedule)
        splits = _check_splits(self._splitter(schedule).split(X, y, groups))
        refit_cost = plan.rows[-1].cost if self.refit else None
        selection_cost = compose_sequential(
            [r.cost for r in (plan.rows[:-1] if self.refit else plan.rows) if not r.leak],
            neighbours="replace")
        data = (X, y, splits, candidates, (fit_seeds, label_set))
        if self.selection == "repeated":
            index, model, score = self._repeated(data, plan, selection_cost, schedule, noise)
            self.best_score_ = score
        else:
            index, model = self._noisy_max(data, selection_cost, noise)
        self.best_index_ = index
        self.best_params_ = dict(candidates[index])
        self.cv_results_ = _results(candidates)
        self.n_splits_ = len(splits)
        if self.refit:
            self._charge(refit_cost)
            model = self._fit_on(self.best_params_, X, y, (fit_seeds, label_set))
        self.best_estimator_ = model
        if hasattr(model, "n_features_in_"):
            self.n_features_in_ = model.n_features_in_
        self.multimetric_ = False
        self.privacy_spent_ = self._spent()
        return self

    def _label_set(self, y):
        """The public label set: ``classes``, or the labels of ``y`` (public by assumption)."""
        if self.classes is None:
            return np.unique(y)
        classes = np.unique(np.asarray(self.classes))
        if classes.size < 2 or classes.size != len(self.classes):
            raise ValueError("The 'classes' parameter must list at least 2 distinct class "
                             f"labels; got {self.classes!r}.")
        unknown = ~np.isin(y, classes)
        if unknown.any():
            raise ValueError(f"{int(unknown.sum())} labels of y are not in the 'classes' "
                             "parameter (the public label set).")
        return classes

    def _fit_on(self, params, X, y, context, train=None):
        """A candidate fitted on the training part (all of ``X`` without ``train``),
        given the public label set whatever labels the part holds."""
        seeds, label_set = context
        model = clone(self.estimator).set_params(**params)
        given = _set_seeds(model)
        model.set_params(**{k: int(seeds.integers(2**31 - 1)) for k in given})
        fit_params = give_label_set(model, label_set)
        if train is None:
            model.fit(X, y, **fit_params)
        else:
            model.fit(_safe_indexing(X, train), _safe_indexing(y, train), **fit_params)
        # the seed a fit used is never released: it would replay the model's noise
        return model.set_params(**given)

    @staticmethod
    def _correct(model, X, y, test) -> int:
        return int(np.sum(model.predict(_safe_indexing(X, test)) == y[test]))

    def _repeated(self, data, plan, cost, schedule, noise):
        """Random repetitions: the best of ``K ~ D_{η,γ}`` noisy runs (its model and score)."""
        X, y, splits, candidates, context = data
        eta = plan.eta
        run_epsilon = plan.run_epsilon if plan.run_epsilon > 0 else float(self.epsilon) / 3
        gamma = tnb_gamma_for_mean(eta, self._n_runs(len(candidates), len(splits)))
        n_runs = sample_tnb(eta, gamma, schedule)  # independent of the data; never kept
        count_noise = GeometricMechanism(min(run_epsilon, MAX_GEOMETRIC_EPSILON),
                                         neighbours="replace")
        best = None
        for run in range(n_runs):
            index = int(schedule.integers(len(candidates)))
            train, test = splits[int(schedule.integers(len(splits)))]
            model = self._fit_on(candidates[index], X, y, context, train)
            correct = self._correct(model, X, y, test)
            if run == 0:
                self._charge(cost)  # right before the first noisy count
            noisy = int(count_noise.randomise(np.array([correct]), noise)[0])
            score = noisy / len(test)  # the validation size is public (n and the split)
            if best is None or score > best[2]:
                best = (index, model, score)
        return best

    def _noisy_max(self, data, cost, noise):
        """Report-noisy-max over the validation counts of every candidate."""
        X, y, splits, candidates, context = data
        used = splits[:1] if self.selection == "holdout-noisy-max" else splits
        counts = np.zeros(len(candidates), dtype=np.int64)
        first = []
        for c, params in enumerate(candidates):
            for s, (train, test) in enumerate(used):
                model = self._fit_on(params, X, y, context, train)
                counts[c] += self._correct(model, X, y, test)
                if s == 0:
                    first.append(model)
        # a record in several validation sets moves a summed count by that many
        tests = np.concatenate([np.asarray(test) for _, test in used])
        sensitivity = int(np.bincount(tests).max())
        mechanism = ReportNoisyMax(float(self.epsilon), sensitivity, neighbours="replace")
        self._charge(cost)
        index = mechanism.select(counts, noise)
        return index, first[index]

    # ------------------------------------------------------------ delegation
    @property
    def classes_(self):
        """Class labels of the best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.classes_

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """Predict with the best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        from sklearn.utils import get_tags

        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        if inner.classifier_tags is not None:  # e.g. a binary-only candidate
            tags.classifier_tags = inner.classifier_tags
        return tags


def _set_seeds(model) -> dict:
    """The ``random_state`` parameters of ``model`` (at any depth) that are not None."""
    return {k: v for k, v in model.get_params(deep=True).items()
            if (k == "random_state" or k.endswith("__random_state")) and v is not None}


def _check_splits(splits) -> list:
    """Index arrays of each split, once each part is checked to be a set of distinct records.

    A run of ``"repeated"`` is ``ε_run``-DP only when a record is in its
    training part or its validation part, not both, and at most once; a
    repeated index would also scale every count's sensitivity. The splits
    depend on ``n`` and the splitter only, so refusing them reveals nothing.
    """
    checked = []
    for train, test in splits:
        parts = []
        for part in (train, test):
            part = np.asarray(part)
            part = np.flatnonzero(part) if part.dtype == bool else part.astype(np.intp)
            if np.unique(part).size != part.size:
                raise ValueError("The 'cv' parameter must give splits whose training and "
                                 "validation parts list each record at most once.")
            parts.append(part)
        if np.intersect1d(*parts).size or parts[1].size == 0:
            raise ValueError("The 'cv' parameter must give splits whose training and validation "
                             "parts share no record, with a non-empty validation part.")
        checked.append(tuple(parts))
    if not checked:
        raise ValueError("The 'cv' parameter gave no split.")
    return checked


def _results(candidates) -> dict:
    """``cv_results_``: the candidates' parameters only (no score, time or rank is public)."""
    results: dict = {"params": [dict(p) for p in candidates]}
    keys = sorted({k for p in candidates for k in p})
    for key in keys:
        column = np.ma.MaskedArray(np.empty(len(candidates), dtype=object),
                                   mask=True)
        for i, p in enumerate(candidates):
            if key in p:
                column[i] = p[key]
        results[f"param_{key}"] = column
    return results


_SHARED_DOC = """
    Parameters
    ----------
    estimator : classifier
        A private classifier (or a pipeline ending in one); every candidate is
        a clone of it with a candidate's parameters. Its cost is priced by
        :func:`~skdp_anomaly.check_privacy_budget`; one that learns without
        privacy is refused.
    {candidates}
    epsilon : float
        ε of the choice, on top of the candidates' own costs, in ``[1e-6, 30]``.
        For ``selection="repeated"`` it must be at least the cost of the
        dearest candidate, ``ε_run``; ``2·ε_run`` is Liu and Talwar's random
        stopping (``3·ε_run`` in all). See Notes for each ``selection``.
    selection : {{"repeated", "holdout-noisy-max", "cv-noisy-max"}}, default="repeated"
        How the candidate is chosen (Notes). ``"repeated"`` with
        ``refit=False`` gave the best model at equal total ε in our
        measurements; ``"holdout-noisy-max"`` evaluates every candidate once,
        has a fixed run time and suits a grid of 2–3 candidates.
    n_runs : "auto" or float >= 1, default="auto"
        Mean number of runs of ``selection="repeated"``: ``"auto"`` is half
        the fits of a ``GridSearchCV`` with the same grid and ``cv``
        (candidates × splits / 2). The number itself is random and stays
        private.
    cv : int, cross-validation generator, iterable or None, default=None
        ``None`` or an int ``k``: ``KFold(k, shuffle=True)`` with a permutation
        drawn from ``random_state`` (``None`` is 5 folds). Never stratified:
        label-dependent folds move other records when one label changes
        (the budget validator reports such a splitter as a leak).
        ``"repeated"`` draws one split per run; ``"holdout-noisy-max"`` uses
        the first split; ``"cv-noisy-max"`` every split.
    scoring : "accuracy" or None, default=None
        The validation score, a count of correct predictions (sensitivity 1
        per validation set a record is in). None means accuracy.
    refit : bool, default=True
        Refit the chosen candidate on all of ``X`` (its cost is added: the
        dearest candidate is charged). With ``refit=False``, ``best_estimator_``
        is a model the search already fitted and paid for: the winning run's
        model (``"repeated"``), or the chosen candidate's model on the first
        split; no extra cost.
    classes : array-like of shape (n_classes,) or None, default=None
        The public label set. Every candidate fit is given it (through its
        ``classes`` parameter, or its ``fit``'s), whatever labels its
        training part holds, so a released model's ``classes_`` never tells
        which labels a part held. ``None`` takes the labels of ``y`` as
        public (an assumption the budget report states). A candidate that
        can take no label set is refused (a leak).
    random_state : None, int or numpy.random.Generator, default=None
        Draws the splits' permutation, the runs and the noise (from separate
        streams; no generator is kept). ``None`` for deployment. A
        candidate's ``random_state`` (at any depth of a pipeline) left
        ``None`` stays ``None`` (fresh OS entropy per fit); one set to an int
        or a generator is replaced, fit by fit, by a seed from a stream of its
        own, so that no two fits share noise (the repetitions' guarantee
        assumes independent runs; a fixed seed would replay one noise draw).
    {{accountant}}
        The whole cost is reserved on it before the data are read. A
        candidate's own ``accountant`` parameter is deep-copied with every
        clone (scikit-learn's ``clone``), so the candidates' fits never reach
        it: this one is the search's ledger.
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    best_estimator_ : estimator
        The refitted chosen candidate (``refit=True``), or the chosen
        candidate's model from the search (``refit=False``).
    best_index_ : int
        Index of the chosen candidate in ``cv_results_["params"]`` (a DP output).
    best_params_ : dict
        Parameters of the chosen candidate (a DP output).
    best_score_ : float
        ``selection="repeated"`` only: the winning run's noisy validation
        accuracy (a DP output). Absent for the noisy-max rules, which release
        the index only.
    cv_results_ : dict
        ``params`` and one masked ``param_<name>`` column per parameter.
        Nothing else: per-candidate scores, ranks and fit times are
        data-dependent and are not released.
    n_splits_ : int
        Number of splits of the splitter.
    classes_ : ndarray
        Class labels of ``best_estimator_``.
    n_features_in_ : int
        Number of features, when ``best_estimator_`` has it.
    multimetric_ : bool
        Always False (one score).
    privacy_spent_ : PrivacyCost
        The search's charges (the candidate fits and choice, then the refit).
"""

_NOTES_DOC = """
    Notes
    -----
    **Privacy.** Pure ε-DP under replace-one-record neighbours (``n``
    public; a record keeps its index, so index-based splits are public), the
    relation of diffprivlib's models; candidates' costs are priced under it
    by :func:`~skdp_anomaly.check_privacy_budget`, which prices this search
    row by row with no leak. ``privacy_cost()`` is that total:

    * ``"repeated"`` (default): each run draws a candidate and a split
      uniformly, trains the candidate on the split's training part and
      releases its validation count with two-sided geometric noise at
      ``ε_run``, the cost of the dearest candidate. A record is in the
      training part or the validation part of a run, so a run is
      ``ε_run``-DP (parallel composition). The number of runs ``K`` is drawn,
      independently of the data, from the truncated negative binomial
      distribution ``D_{η,γ}`` with ``η = epsilon/ε_run − 1`` (``γ`` from the
      mean ``n_runs``), and the best run (candidate, model, noisy score) is
      released: ``(2 + η)·ε_run = ε_run + epsilon`` in all. This is the limit
      of Papernot and Steinke's Theorem 2 at infinite Rényi orders (a pure
      ε-DP run is ``(λ, ε)``-RDP for every ``λ``), our derivation; ``η = 1``
      (``epsilon = 2·ε_run``, geometric ``K``) is Liu and Talwar's random
      stopping, ``3·ε_run``. ``epsilon`` must be at least ``ε_run``
      (``η ≥ 0``): below, ``K`` has a polynomial tail and the run time is
      unbounded in practice. ``K``, the other runs and their scores stay
      private and no time is stored, but the wall time of ``fit`` grows
      with ``K`` and with the candidates' own fit times.
    * ``"holdout-noisy-max"``: every candidate trained once on the first
      split's training part, report-noisy-max (two-sided geometric noise,
      scale ``2/epsilon``, the index only) over the validation counts:
      ``Σ_c ε_c + epsilon`` (sequential composition; validation records pay
      only ``epsilon``, so this is an over-statement for them).
    * ``"cv-noisy-max"``: every candidate on every training part, the counts
      summed over the validation parts (sensitivity: the largest number of
      validation parts holding one record, 1 for ``KFold``):
      ``memberships·Σ_c ε_c + epsilon``.
    * ``refit=True`` adds the dearest candidate once more.

    **Which rule.** The best of ``K`` runs favours a candidate whose single
    fits vary widely (a private model that sometimes fails and sometimes
    matches the best): it may win by one lucky fit. With ``refit=False`` the
    lucky fit is what is released; a refit draws a new one. At equal total ε,
    ``"repeated"`` with ``refit=False`` gave the best test accuracy on 400
    rows, ``"holdout-noisy-max"`` is as good on 4 000, and
    ``"cv-noisy-max"`` (the shape of ``GridSearchCV``) is the worst: a record pays for every candidate on ``k−1`` folds, so each
    fit gets ``1/(C(k−1)+1)`` of the budget. Refitting at another ε can also
    move the best hyperparameter (the best ``C`` of a private logistic
    regression changes with ε); ``refit=False`` keeps the chosen model at the
    ε it was chosen at.

    Differences from :class:`~sklearn.model_selection.GridSearchCV`: the
    candidates must be classifiers scored by accuracy; ``cv_results_`` holds
    the parameters only; ``best_score_`` exists for ``"repeated"`` only;
    an int ``cv`` is a shuffled ``KFold`` (not stratified); no ``n_jobs``,
    ``refit_time_`` or fit times (a timing channel).

    References
    ----------
    .. [1] J. Liu and K. Talwar. Private selection from private candidates.
       STOC 2019 (random stopping, §3).
    .. [2] N. Papernot and T. Steinke. Hyperparameter tuning with Rényi
       differential privacy. ICLR 2022, Theorem 2 (truncated negative
       binomial number of runs).
    .. [3] F. McSherry and K. Talwar. Mechanism design via differential
       privacy. FOCS 2007 (report-noisy-max).
"""


@fill_doc
class PrivateGridSearchCV(_PrivateSearch):
    __doc__ = (
        """Search a grid of hyperparameters; the choice is a differentially private release.

    The interface of :class:`~sklearn.model_selection.GridSearchCV` (``fit``,
    ``predict``, ``best_params_``, ``best_estimator_``, ``cv_results_``,
    ``n_splits_``), with a stated total ε: the candidates' fits, the private
    choice and the refit, priced before anything is fitted.
"""
        + _SHARED_DOC.format(candidates="""param_grid : dict or list of dicts
        As in :class:`~sklearn.model_selection.GridSearchCV`. The grid is
        public (fixed before seeing the data).""")
        + _ATTRIBUTES_DOC + _NOTES_DOC + """
    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly import PrivateOnlineActiveSVC, check_privacy_budget
    >>> from skdp_anomaly.model_selection import PrivateGridSearchCV
    >>> X, y = make_classification(1000, n_features=5, random_state=0)
    >>> svc = PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0)
    >>> search = PrivateGridSearchCV(svc, {"epsilon": [0.5, 1.0]}, epsilon=2.0,
    ...                              refit=False, random_state=2)
    >>> float(check_privacy_budget(search).epsilon)  # the dearest fit + the choice
    3.0
    >>> search.fit(X, y).best_params_
    {'epsilon': 1.0}
""")

    _parameter_constraints: dict = {
        **_PrivateSearch._parameter_constraints,
        "param_grid": [dict, list],
    }

    def __init__(self, estimator, param_grid, *, epsilon, selection="repeated", n_runs="auto",
                 cv=None, scoring=None, refit=True, classes=None, random_state=None,
                 accountant=None):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.selection = selection
        self.n_runs = n_runs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    def _candidates(self, rng):
        return list(ParameterGrid(self.param_grid))


@fill_doc
class PrivateRandomizedSearchCV(_PrivateSearch):
    __doc__ = (
        """Search sampled hyperparameters; the choice is a differentially private release.

    The interface of :class:`~sklearn.model_selection.RandomizedSearchCV`, with
    the private choice of :class:`PrivateGridSearchCV`. ``n_iter`` candidates
    are sampled (from ``random_state``, independently of the data) before the
    search; with an int ``random_state`` the budget validator enumerates
    them exactly, otherwise it prices the dearest candidate over the
    distributions' support ends (once per run for ``"repeated"``, ``n_iter``
    times for the noisy-max rules); a distribution with an unbounded support
    for a cost parameter (``epsilon``) cannot be priced then.
"""
        + _SHARED_DOC.format(candidates="""param_distributions : dict or list of dicts
        As in :class:`~sklearn.model_selection.RandomizedSearchCV`.
    n_iter : int, default=10
        Number of candidates sampled.""")
        + _ATTRIBUTES_DOC + _NOTES_DOC + """
    Examples
    --------
    >>> from scipy.stats import uniform
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly import PrivateOnlineActiveSVC
    >>> from skdp_anomaly.model_selection import PrivateRandomizedSearchCV
    >>> X, y = make_classification(1000, n_features=5, random_state=0)
    >>> svc = PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0)
    >>> search = PrivateRandomizedSearchCV(svc, {"epsilon": uniform(0.5, 0.5)}, n_iter=3,
    ...                                    epsilon=2.0, refit=False, random_state=0)
    >>> sorted(search.fit(X, y).best_params_)
    ['epsilon']
""")

    _parameter_constraints: dict = {
        **_PrivateSearch._parameter_constraints,
        "param_distributions": [dict, list],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, estimator, param_distributions, *, n_iter=10, epsilon,
                 selection="repeated", n_runs="auto", cv=None, scoring=None, refit=True,
                 classes=None, random_state=None, accountant=None):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.epsilon = epsilon
        self.selection = selection
        self.n_runs = n_runs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.classes = classes
        self.random_state = random_state
        self.accountant = accountant

    def _candidates(self, rng):
        # an int random_state samples exactly the candidates the budget validator priced
        seed = (self.random_state if isinstance(self.random_state, Integral)
                else None if rng is None else int(rng.integers(2**31 - 1)))
        return list(ParameterSampler(self.param_distributions, self.n_iter,
                                     random_state=seed if seed is not None else 0))
