"""Private model selection: a search whose choice is a differentially private release."""

from __future__ import annotations

from functools import partial
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone, is_classifier
from sklearn.model_selection import KFold, ParameterGrid, ParameterSampler, check_cv
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _num_features, check_is_fitted, column_or_1d

from ..exceptions import naming
from ..privacy import (
    GeometricMechanism,
    PrivacyCost,
    PrivacyCostMixin,
    ReportNoisyMax,
    compose_sequential,
)
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ..privacy._rng import check_random_state
from ..privacy._docstrings import fill_doc
from ..privacy._protocol import PRIVACY_PARAMETER_CONSTRAINTS, epsilon_constraint
from ._allocation import search_pays, split_total
from ._label_set import give_label_set, label_set_route
from ._repetitions import sample_tnb, tnb_gamma_for_mean
from ._scoring import (
    CLASS_SIZES_SHARE,
    ScoreWeights,
    check_scoring,
    class_sizes,
    correct_per_class,
    needs_class_sizes,
    noisy_class_sizes,
)
from ._search_docs import ATTRIBUTES_DOC, NOTES_DOC, SHARED_DOC

SELECTIONS = ("repeated", "holdout-noisy-max", "cv-noisy-max")


def _estimator_has(attr):
    """``available_if`` check: the fitted best estimator (else the estimator) has ``attr``."""

    def check(self):
        getattr(getattr(self, "best_estimator_", self.estimator), attr)
        return True

    return check


def _spent(rows) -> PrivacyCost:
    """Replace-one total of the rows of a plan that do not leak."""
    return compose_sequential([r.cost for r in rows if not r.leak], neighbours="replace")


def _fit_and_count(model, fit_params, X, y, train, test, label_set):
    """One candidate fit on a training part; its correct predictions per class on the test part."""
    model.fit(_safe_indexing(X, train), _safe_indexing(y, train), **fit_params)
    predicted = model.predict(_safe_indexing(X, test))
    return model, correct_per_class(predicted, y[test], label_set)


class _PrivateSearch(PrivacyCostMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """The shared engine of :class:`PrivateGridSearchCV` and :class:`PrivateRandomizedSearchCV`."""

    _parameter_constraints: dict = {
        **PRIVACY_PARAMETER_CONSTRAINTS,
        "estimator": [HasMethods(["fit", "predict"])],
        # above 30 the noise of a count is almost always zero
        "epsilon": [*epsilon_constraint(MAX_GEOMETRIC_EPSILON), None],
        "total_epsilon": [*epsilon_constraint(MAX_GEOMETRIC_EPSILON), None],
        "force_search": ["boolean"],
        "selection": [StrOptions(set(SELECTIONS))],
        "n_runs": [StrOptions({"auto"}), Interval(Real, 1, None, closed="left")],
        "cv": ["cv_object"],
        "scoring": [str, None],  # checked by check_scoring: its message lists the scores
        "pos_label": [Integral, Real, str, "boolean"],
        "refit": ["boolean"],
        "classes": ["array-like", None],
        "n_jobs": [Integral, None],
    }

    # ------------------------------------------------------------ privacy
    def privacy_selection(self) -> dict:
        """Return how the search chooses, for the budget validator.

        Returns
        -------
        dict
            ``rule``, ``epsilon`` (the choice's), ``cv`` (the splitter used),
            ``refit``, ``label_set``, ``classes``, ``total``,
            ``class_sizes_epsilon`` (else 0) and, with ``total_epsilon``,
            ``candidates`` or ``distributions`` and ``n_candidates``.
        """
        self._check_params()
        out = {
            "rule": self.selection,
            "epsilon": self._choice_epsilon(),
            "cv": self._splitter(None),
            "refit": bool(self.refit),
            "label_set": label_set_route(self.estimator) is not None,
            "classes": self.classes,
            "total": self.total_epsilon,
            "class_sizes_epsilon": self._class_sizes_epsilon(),
        }
        if self.total_epsilon is not None:
            out.update(self._priced_space())
        return out

    def _plan(self):
        from ..budget._validator import private_search_plan

        return private_search_plan(self)

    def _privacy_cost(self) -> PrivacyCost:
        """Candidate fits, choice and refit, replace-one; ValueError when a candidate leaks."""
        plan = self._plan()
        if plan.leaks:
            raise ValueError("; ".join(dict.fromkeys(plan.leaks)))
        return _spent(plan.rows)

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
            raise naming(
                ValueError,
                "`The 'estimator' parameter` must be a classifier: the validation "
                f"score is a count of correct predictions; got {self.estimator!r}.",
            )
        if (self.epsilon is None) == (self.total_epsilon is None):
            raise naming(
                ValueError,
                "Give exactly one of `the 'epsilon' parameter` (the choice's ε, on "
                "top of the candidates' own) and `the 'total_epsilon' parameter` "
                f"(the whole search's); got `epsilon={self.epsilon!r}`, "
                f"`total_epsilon={self.total_epsilon!r}`.",
            )
        scoring = check_scoring(self.scoring)
        if (
            scoring == "recall"
            and self.classes is not None
            and not np.isin(self.pos_label, np.asarray(self.classes))
        ):
            raise naming(
                ValueError,
                f"`The 'pos_label' parameter` ({self.pos_label!r}) is not in "
                f"`the 'classes' parameter` {list(self.classes)!r}.",
            )
        user = self._user_candidates(None)  # the grid or the distributions are well formed
        if self.total_epsilon is not None:
            self._check_total(user)

    # ------------------------------------------------------------ total ε
    def _check_total(self, user) -> None:
        if "epsilon" not in self.estimator.get_params(deep=False):
            raise naming(
                ValueError,
                "`The 'total_epsilon' parameter` needs an estimator with an 'epsilon' parameter "
                f"(the search sets it); {type(self.estimator).__name__} has none. Give "
                "`'epsilon'` (the choice's ε) instead and set the candidates' costs yourself.",
            )
        if any("epsilon" in p for p in user):
            raise naming(
                ValueError,
                "With `the 'total_epsilon' parameter` the search sets the "
                "candidates' 'epsilon'; remove 'epsilon' from the candidates' "
                "parameters (or give `'epsilon'` instead of `'total_epsilon'`).",
            )

    def _unit_cost(self) -> float:
        """ε (replace-one) of the estimator at ``epsilon=1``: the scale of its ``epsilon``."""
        from ..budget import check_privacy_budget

        unit = clone(self.estimator).set_params(epsilon=1.0)
        cost = check_privacy_budget(unit, on_leak="ignore").cost
        if not (cost.delta == 0 and cost.gamma == 0 and 0 < cost.epsilon < float("inf")):
            raise naming(
                ValueError,
                "`The 'total_epsilon' parameter` needs a candidate with a finite "
                f"pure ε; {type(self.estimator).__name__} costs {cost} at "
                "epsilon=1. Give `'epsilon'` instead.",
            )
        return float(cost.epsilon)

    def _n_candidates_total(self) -> int:
        if hasattr(self, "param_grid"):
            return len(self._with_default(self._user_candidates(None)))
        return int(self.n_iter) + 1

    def _split(self):
        """``(ε of one fit, ε of the choice)`` of ``total_epsilon`` (``_allocation``)."""
        from ..budget._cv import training_memberships

        members = training_memberships(self._splitter(None), None, neighbours="replace").memberships
        n = self._n_candidates_total()
        return split_total(float(self.total_epsilon), self.selection, bool(self.refit), n, members)

    def _class_sizes_epsilon(self) -> float:
        if not needs_class_sizes(check_scoring(self.scoring), self.selection):
            return 0.0
        return self._choice_epsilon() * CLASS_SIZES_SHARE

    def _choice_epsilon(self) -> float:
        if self.total_epsilon is None:
            return float(self.epsilon)
        return self._split().selection_epsilon

    def _candidate_epsilon(self, whole: bool = False) -> float:
        """The candidates' ``epsilon`` parameter (at the whole total with ``whole``)."""
        target = float(self.total_epsilon) if whole else self._split().run_epsilon
        return target / self._unit_cost()

    def _default_params(self) -> dict:
        """The estimator's own values of the searched parameters."""
        space = getattr(self, "param_grid", None)
        space = self.param_distributions if space is None else space
        keys = sorted({k for d in (space if isinstance(space, list) else [space]) for k in d})
        own = self.estimator.get_params(deep=True)
        unknown = [k for k in keys if k not in own]
        if unknown:
            outer = {k.split("__")[0] for k in unknown if "__" in k}
            unset = sorted(name for name in outer if own.get(name, "") is None)
            hint = "".join(
                f" Its '{name}' parameter is None: give it an estimator (e.g. "
                f"{name}=PrivateLogisticRegression()) to search its parameters "
                f"as {name}__<name>."
                for name in unset
            )
            raise ValueError(
                f"Invalid parameter(s) {unknown!r} in the grid for the estimator "
                f"{type(self.estimator).__name__}.{hint}"
            )
        return {k: own[k] for k in keys}

    def _with_default(self, user) -> list:
        """The estimator's own setting first, then the others (sampled ones keep every draw)."""
        default = self._default_params()
        rest = [p for p in user if p != default] if hasattr(self, "param_grid") else user
        return [default, *rest]

    def _priced_space(self) -> dict:
        eps = self._candidate_epsilon()
        if hasattr(self, "param_grid") or isinstance(self.random_state, Integral):
            listed = self._with_default(self._user_candidates(None))
            return {"candidates": [{**p, "epsilon": eps} for p in listed]}
        dists = self.param_distributions
        dists = dists if isinstance(dists, list) else [dists]
        default = {k: [v] for k, v in self._default_params().items()}
        return {
            "distributions": [{**d, "epsilon": [eps]} for d in [default, *dists]],
            "n_candidates": int(self.n_iter) + 1,
        }

    def _candidates(self, rng):
        user = self._user_candidates(rng)
        if self.total_epsilon is None:
            return user
        eps = self._candidate_epsilon()
        return [{**p, "epsilon": eps} for p in self._with_default(user)]

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
    _skip_nested_validation = False

    def _private_fit(self, X, y, groups=None):
        """Choose a candidate privately, then refit it (``refit=True``); ``groups`` are public."""
        plan = self._plan()  # the one privacy_cost() was reserved from
        total = _spent(plan.rows)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None: the validation score is a count of correct predictions."
            )
        X, y, groups = indexable(X, y, groups)
        y = column_or_1d(y, warn=True)  # a column vector would broadcast in the counts
        check_classification_targets(y)
        label_set = self._label_set(y)
        scoring = check_scoring(self.scoring)
        positive = self._positive(label_set) if scoring == "recall" else None
        seeds = check_random_state(self.random_state).integers(2**63, size=3)
        schedule, noise, fit_seeds = (np.random.default_rng(int(s)) for s in seeds)
        candidates = self._candidates(schedule)
        splits = _check_splits(self._splitter(schedule).split(X, y, groups))
        context = (fit_seeds, label_set, scoring, positive, len(y))
        self.n_splits_ = len(splits)
        self.multimetric_ = False
        if not self._searches(X, splits, label_set, plan):
            return self._fit_default(X, y, context, total)
        refit_cost = plan.rows[-1].cost if self.refit else None
        selection_cost = _spent(plan.rows[:-1] if self.refit else plan.rows)
        data = (X, y, splits, candidates, context)
        # called after the choice is charged, right before the first release
        weights = partial(self._weights, y, context, noise)
        if self.selection == "repeated":
            index, model, score = self._repeated(
                data, plan, (selection_cost, weights), schedule, noise
            )
            self.best_score_ = score
        else:
            index, model = self._noisy_max(data, (selection_cost, weights), noise)
        self.best_index_ = index
        self.best_params_ = dict(candidates[index])
        self.cv_results_ = _results(candidates)
        self.searched_ = True
        if self.refit:
            self._charge(refit_cost)
            model = self._fit_on(self.best_params_, X, y, context)
        return self._release(model)

    def _release(self, model):
        self.best_estimator_ = model
        if hasattr(model, "n_features_in_"):
            self.n_features_in_ = model.n_features_in_
        return self

    def _searches(self, X, splits, label_set, plan) -> bool:
        """The public rule of ``_allocation``: with ``total_epsilon``, does a search pay?"""
        if self.total_epsilon is None or self.force_search:
            return True
        n_val = min(len(test) for _, test in splits)
        n_train = min(len(train) for train, _ in splits)
        return search_pays(
            n_train, n_val, _num_features(X), len(label_set), self._split().run_epsilon
        )

    def _fit_default(self, X, y, context, total):
        """No search: the estimator as given, at the whole ``total_epsilon``, on every row."""
        params = {**self._default_params(), "epsilon": self._candidate_epsilon(whole=True)}
        self.best_index_ = 0
        self.best_params_ = params
        self.cv_results_ = _results([params])
        self.searched_ = False
        self._charge(total)
        return self._release(self._fit_on(params, X, y, context))

    def _label_set(self, y):
        """The public label set: ``classes``, or the labels of ``y`` (public by assumption)."""
        if self.classes is None:
            return np.unique(y)
        classes = np.unique(np.asarray(self.classes))
        if classes.size < 2 or classes.size != len(self.classes):
            raise naming(
                ValueError,
                "`The 'classes' parameter` must list at least 2 distinct class "
                f"labels; got {self.classes!r}.",
            )
        if (~np.isin(y, classes)).any():
            # no count of them: an error message is not a private release
            raise naming(
                ValueError,
                "y holds labels that are not in `the 'classes' parameter` (the public label set).",
            )
        return classes

    def _positive(self, label_set) -> int:
        where = np.flatnonzero(label_set == self.pos_label)
        if where.size != 1:
            raise naming(
                ValueError,
                f"`The 'pos_label' parameter` ({self.pos_label!r}) is not one of "
                f"the public class labels {label_set.tolist()!r}.",
            )
        return int(where[0])

    def _prepare(self, params, context):
        """A clone with ``params``, its seeds drawn in order, and its fit arguments."""
        seeds, label_set = context[:2]
        model = clone(self.estimator).set_params(**params)
        given = _set_seeds(model)
        model.set_params(**{k: int(seeds.integers(2**31 - 1)) for k in given})
        return model, give_label_set(model, label_set), given

    def _fit_on(self, params, X, y, context):
        """A candidate fitted on every row, given the public label set."""
        model, fit_params, given = self._prepare(params, context)
        model.fit(X, y, **fit_params)
        # the seed a fit used is never released: it would replay the model's noise
        return model.set_params(**given)

    def _fit_parts(self, jobs, X, y, context):
        """``(model, correct per class)`` of each ``(params, (train, test))``, in order.

        Seeds are drawn here, in order, so the result does not depend on ``n_jobs``.
        """
        label_set = context[1]
        prepared = [(self._prepare(params, context), split) for params, split in jobs]
        done = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_and_count)(model, fit_params, X, y, train, test, label_set)
            for (model, fit_params, _), (train, test) in prepared
        )
        return [
            (model.set_params(**given), correct)
            for ((_, _, given), _), (model, correct) in zip(prepared, done)
        ]

    def _weights(self, y, context, noise) -> ScoreWeights:
        """The score's weights; the noisy class sizes of ``y`` first, when it needs them."""
        label_set, scoring, positive = context[1:4]
        size_epsilon = self._class_sizes_epsilon()
        noisy = None
        if size_epsilon > 0:
            noisy = noisy_class_sizes(
                class_sizes(y, label_set), min(size_epsilon, 2 * MAX_GEOMETRIC_EPSILON), noise
            )
        return ScoreWeights(scoring, len(label_set), positive, noisy)

    def _repeated(self, data, plan, costs, schedule, noise):
        """Random repetitions: the best of ``K ~ D_{η,γ}`` noisy runs (its model and score)."""
        X, y, splits, candidates, context = data
        cost, weights = costs
        eta = plan.eta
        choice = self._choice_epsilon() - self._class_sizes_epsilon()
        run_epsilon = plan.run_epsilon if plan.run_epsilon > 0 else choice / 3
        gamma = tnb_gamma_for_mean(eta, self._n_runs(len(candidates), len(splits)))
        n_runs = sample_tnb(eta, gamma, schedule)  # independent of the data; never kept
        draws = [
            (int(schedule.integers(len(candidates))), int(schedule.integers(len(splits))))
            for _ in range(n_runs)
        ]
        fitted = self._fit_parts([(candidates[c], splits[s]) for c, s in draws], X, y, context)
        self._charge(cost)  # right before the first release
        weights = weights()
        # a validation record moves a run's weighted count by at most the largest weight
        sensitivity = weights.sensitivity
        epsilon = min(run_epsilon, MAX_GEOMETRIC_EPSILON * sensitivity)
        count_noise = GeometricMechanism(epsilon, sensitivity=sensitivity, neighbours="replace")
        best = None
        for (index, split), (model, correct) in zip(draws, fitted):
            noisy = count_noise.randomise(np.array([correct @ weights.weights]), noise)[0]
            score = weights.score(int(noisy), len(splits[split][1]), context[4])
            if best is None or score > best[2]:
                best = (index, model, score)
        return best

    def _noisy_max(self, data, costs, noise):
        """Report-noisy-max over the validation scores of every candidate."""
        X, y, splits, candidates, context = data
        cost, weights = costs
        used = splits[:1] if self.selection == "holdout-noisy-max" else splits
        jobs = [(params, split) for params in candidates for split in used]
        fitted = self._fit_parts(jobs, X, y, context)
        correct = np.array([c for _, c in fitted]).reshape(len(candidates), len(used), -1)
        first = [fitted[c * len(used)][0] for c in range(len(candidates))]
        # a record in several validation sets moves a summed count by that many
        tests = np.concatenate([np.asarray(test) for _, test in used])
        members = int(np.bincount(tests).max())
        self._charge(cost)
        weights = weights()
        counts = correct.sum(axis=1) @ weights.weights
        choice = self._choice_epsilon() - self._class_sizes_epsilon()
        mechanism = ReportNoisyMax(choice, members * weights.sensitivity, neighbours="replace")
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
    return {
        k: v
        for k, v in model.get_params(deep=True).items()
        if (k == "random_state" or k.endswith("__random_state")) and v is not None
    }


def _check_splits(splits) -> list:
    """Index arrays of each split, once each part is checked to be a set of distinct records.

    A run is ``ε_run``-DP only when a record is in one part at most once; the
    splits depend on ``n`` and the splitter only, so refusing them reveals nothing.
    """
    checked = []
    for train, test in splits:
        parts = []
        for part in (train, test):
            part = np.asarray(part)
            part = np.flatnonzero(part) if part.dtype == bool else part.astype(np.intp)
            if np.unique(part).size != part.size:
                raise naming(
                    ValueError,
                    "`The 'cv' parameter` must give splits whose training and "
                    "validation parts list each record at most once.",
                )
            parts.append(part)
        if np.intersect1d(*parts).size or parts[1].size == 0:
            raise naming(
                ValueError,
                "`The 'cv' parameter` must give splits whose training and validation "
                "parts share no record, with a non-empty validation part.",
            )
        checked.append(tuple(parts))
    if not checked:
        raise naming(ValueError, "`The 'cv' parameter` gave no split.")
    return checked


def _results(candidates) -> dict:
    """``cv_results_``: the candidates' parameters only (no score, time or rank is public)."""
    results: dict = {"params": [dict(p) for p in candidates]}
    keys = sorted({k for p in candidates for k in p})
    for key in keys:
        column = np.ma.MaskedArray(np.empty(len(candidates), dtype=object), mask=True)
        for i, p in enumerate(candidates):
            if key in p:
                column[i] = p[key]
        results[f"param_{key}"] = column
    return results


@fill_doc
class PrivateGridSearchCV(_PrivateSearch):
    __doc__ = (
        """Search a grid of hyperparameters; the choice is a differentially private release.

    The interface of :class:`~sklearn.model_selection.GridSearchCV` (``fit``,
    ``predict``, ``best_params_``, ``best_estimator_``, ``cv_results_``,
    ``n_splits_``), with a stated total ε: the candidates' fits, the private
    choice and the refit, priced before anything is fitted.
"""
        + SHARED_DOC.format(
            candidates="""param_grid : dict or list of dicts
        As in :class:`~sklearn.model_selection.GridSearchCV`. The grid is
        public (fixed before seeing the data)."""
        )
        + ATTRIBUTES_DOC
        + NOTES_DOC
        + """
    Examples
    --------
    One budget for the whole search; on 1 000 rows no search can pay, and
    the search says so:

    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from skdp_anomaly import (PrivateLogisticRegression, PrivateOnlineActiveSVC,
    ...                           check_privacy_budget)
    >>> from skdp_anomaly.model_selection import PrivateGridSearchCV
    >>> X, y = make_classification(1000, n_features=5, random_state=0)
    >>> X_unit = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 4.0)
    >>> search = PrivateGridSearchCV(PrivateLogisticRegression(data_norm=1.0),
    ...                              {"C": [0.1, 1.0]}, total_epsilon=2.0, random_state=0)
    >>> float(check_privacy_budget(search).epsilon)
    2.0
    >>> search.fit(X_unit, y).searched_, search.best_params_
    (False, {'C': 'auto', 'epsilon': 2.0})

    With ``epsilon``, the candidates keep their own ε (here a grid over it):

    >>> svc = PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0)
    >>> search = PrivateGridSearchCV(svc, {"epsilon": [0.5, 1.0]}, epsilon=2.0,
    ...                              refit=False, random_state=2)
    >>> float(check_privacy_budget(search).epsilon)  # the dearest fit + the choice
    3.0
    >>> search.fit(X, y).best_params_
    {'epsilon': 1.0}
"""
    )

    _parameter_constraints: dict = {
        **_PrivateSearch._parameter_constraints,
        "param_grid": [dict, list],
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        epsilon=None,
        total_epsilon=None,
        force_search=False,
        selection="repeated",
        n_runs="auto",
        cv=None,
        scoring=None,
        pos_label=1,
        refit=True,
        classes=None,
        n_jobs=None,
        random_state=None,
        accountant=None,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.total_epsilon = total_epsilon
        self.force_search = force_search
        self.selection = selection
        self.n_runs = n_runs
        self.cv = cv
        self.scoring = scoring
        self.pos_label = pos_label
        self.refit = refit
        self.classes = classes
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.accountant = accountant

    def _user_candidates(self, rng):
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
        + SHARED_DOC.format(
            candidates="""param_distributions : dict or list of dicts
        As in :class:`~sklearn.model_selection.RandomizedSearchCV`.
    n_iter : int, default=10
        Number of candidates sampled."""
        )
        + ATTRIBUTES_DOC
        + NOTES_DOC
        + """
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
"""
    )

    _parameter_constraints: dict = {
        **_PrivateSearch._parameter_constraints,
        "param_distributions": [dict, list],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        n_iter=10,
        epsilon=None,
        total_epsilon=None,
        force_search=False,
        selection="repeated",
        n_runs="auto",
        cv=None,
        scoring=None,
        pos_label=1,
        refit=True,
        classes=None,
        n_jobs=None,
        random_state=None,
        accountant=None,
    ):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.epsilon = epsilon
        self.total_epsilon = total_epsilon
        self.force_search = force_search
        self.selection = selection
        self.n_runs = n_runs
        self.cv = cv
        self.scoring = scoring
        self.pos_label = pos_label
        self.refit = refit
        self.classes = classes
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.accountant = accountant

    def _user_candidates(self, rng):
        # an int random_state samples exactly the candidates the budget validator priced
        if isinstance(self.random_state, Integral):
            seed = self.random_state
        else:
            seed = 0 if rng is None else int(rng.integers(2**31 - 1))
        return list(ParameterSampler(self.param_distributions, self.n_iter, random_state=seed))
