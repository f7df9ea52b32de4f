"""Pipeline-aware privacy budget validation (:func:`check_privacy_budget`)."""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import VotingClassifier, VotingRegressor
from sklearn.model_selection import GridSearchCV, ParameterGrid, RandomizedSearchCV
from sklearn.model_selection._search import BaseSearchCV
from sklearn.pipeline import FeatureUnion
from sklearn.pipeline import Pipeline as SkPipeline

from .._warn import warn
from ..exceptions import PrivacyBudgetError, PrivacyLeakError, naming
from ..privacy import PrivacyCost, compose_sequential
from ..privacy._cost import check_neighbours, relation_text
from ..privacy._validation import leak_category
from ._compose import _group_fits, _join, _repeat, _total, _worst
from ._cv import _fmt, distribution_probes, training_memberships
from ._private_search import plan_private_search
from ._report import PrivacyReport, StepCost
from ._rules import check_instance, price_step, sampler_leak

_ON_LEAK = ("warn", "raise", "ignore")
_MAX_PROBES = 5000


# -- input validation ---------------------------------------------------------
def validate_budget(
    budget, name: str = "budget", *, neighbours: str = "replace"
) -> PrivacyCost | None:
    """``budget`` as a :class:`~skdp_anomaly.PrivacyCost` under ``neighbours``, or None.

    Accepted: None; a positive finite real ε (pure ε-DP budget); a
    :class:`~skdp_anomaly.PrivacyCost` with positive finite ε stated under
    ``neighbours`` (under the other relation it is rejected, not converted: a
    converted add/remove budget would accept revealing ``n``); an ``(epsilon,
    delta)`` pair with ``0 <= delta < 1``. Else a ValueError naming ``name``.

    >>> from skdp_anomaly.budget._validator import validate_budget
    >>> validate_budget(2.0)
    PrivacyCost(epsilon=2, delta=0, notion='pure ε-DP', neighbours='replace')
    >>> validate_budget((1.0, 1e-6), neighbours="add_remove").delta
    1e-06
    """
    check_neighbours(neighbours)
    if budget is None:
        return None
    expected = (
        f"`The {name!r} parameter` must be None, a positive finite float, a PrivacyCost or an "
        "(epsilon, delta) pair with epsilon > 0 finite and 0 <= delta < 1"
    )
    refused = f"{expected}. Got {budget!r} instead."
    if isinstance(budget, PrivacyCost):
        if budget.neighbours != neighbours:
            raise naming(
                ValueError,
                f"`The {name!r} parameter` is stated under {budget.relation} but the estimator "
                f"is priced under {relation_text(neighbours)}: a replace-one total implies "
                "nothing under add/remove neighbours, and an add/remove budget converted to "
                "replace-one would accept pipelines that reveal n. Pass "
                f"`neighbours={budget.neighbours!r}` or state the budget under {neighbours!r}.",
            )
        cost = budget
    else:
        if isinstance(budget, Real) and not isinstance(budget, bool):
            pair = (budget, 0.0)
        elif isinstance(budget, Sequence) and not isinstance(budget, str) and len(budget) == 2:
            pair = budget
        else:
            raise naming(ValueError, refused)
        eps, delta = pair
        if not all(isinstance(v, Real) and not isinstance(v, bool) for v in pair):
            raise naming(ValueError, refused)
        if not (0 <= delta < 1):
            raise naming(ValueError, f"{expected}. Got delta={delta!r} instead.")
        try:
            cost = PrivacyCost(float(eps), delta=float(delta), neighbours=neighbours)
        except (TypeError, ValueError):
            raise naming(ValueError, refused) from None
    if not (math.isfinite(cost.epsilon) and cost.epsilon > 0) or cost.delta >= 1:
        raise naming(ValueError, refused)
    return cost


def _check_on_leak(on_leak, budget) -> str:
    """``on_leak`` with None resolved: a leak fails a budget, and is warned without one."""
    if on_leak is None:
        return "warn" if budget is None else "raise"
    if on_leak not in _ON_LEAK:
        raise naming(
            ValueError,
            f"`The 'on_leak' parameter` must be one of {_ON_LEAK} or None. "
            f"Got {on_leak!r} instead.",
        )
    return on_leak


def _check_estimator(estimator) -> None:
    if estimator is None or isinstance(estimator, str):
        raise TypeError(f"check_privacy_budget needs an estimator instance, got {estimator!r}.")
    check_instance(estimator, "check_privacy_budget needs an estimator instance")
    if not (hasattr(estimator, "fit") or hasattr(estimator, "get_params")):
        # an array or a number passed by mistake is a usage error, not a leak to report
        raise TypeError(
            "check_privacy_budget needs an estimator instance (an object with fit or "
            f"get_params, e.g. a Pipeline), got an object of type {type(estimator).__name__}."
        )


# -- the walker ---------------------------------------------------------------
class _Walker:
    """Walks an estimator in fit order, collecting rows (under ``neighbours``, the report's
    relation), leaks, notes and assumptions."""

    def __init__(self, neighbours: str):
        self.neighbours = neighbours
        self.rows: list[StepCost] = []
        self.leaks: list = []  # str, or a pending sampler (dict) resolved in finish()
        self.notes: list[str] = []
        self.assumptions: list[str] = []
        self._pending_samplers: list[dict] = []

    # composites ---------------------------------------------------------
    def walk(self, est, path: str) -> None:
        if isinstance(est, SkPipeline):  # sklearn's and imblearn's (and BudgetedPipeline)
            for name, step in est.steps:
                self.walk(step, _join(path, name))
        elif isinstance(est, FeatureUnion):
            self.notes.append(
                "FeatureUnion: every transformer sees every record, so their costs add up"
            )
            for name, trans in est.transformer_list:
                self.walk(trans, _join(path, name))
        elif isinstance(est, ColumnTransformer):
            self._walk_column_transformer(est, path)
        elif isinstance(est, (VotingClassifier, VotingRegressor)):
            self.notes.append(
                f"{type(est).__name__}: every member is fitted on every record, so their "
                "costs add up"
            )
            for name, member in est.estimators:
                self.walk(member, _join(path, name))
        elif callable(getattr(est, "privacy_selection", None)):
            self._walk_private_search(est, path)  # a search whose choice is a DP release
        elif isinstance(est, BaseSearchCV):
            self._walk_search(est, path)
        elif callable(getattr(est, "privacy_children", None)) and est.privacy_children():
            # a meta-estimator of this package: its own release, then each member,
            # all fitted on every record (sequential composition)
            self._leaf(est, path)
            for name, member in est.privacy_children():
                self.walk(member, _join(path, name))
        else:
            self._leaf(est, path)

    def _walk_column_transformer(self, est, path):
        self.notes.append(
            "ColumnTransformer: a column split does not split records, so the costs of its "
            "transformers add up (sequential, not parallel, composition)"
        )
        for name, trans, _columns in est.transformers:
            self.walk(trans, _join(path, name))
        if not (isinstance(est.remainder, str) and est.remainder == "drop"):
            self.walk(est.remainder, _join(path, "remainder"))

    def _leaf(self, est, path):
        price = price_step(est, path, self.neighbours)
        cls = type(est).__name__ if not isinstance(est, str) and est is not None else str(est)
        self._add(StepCost(path, cls, price.cost, price.note, price.leak_row))
        if price.kind == "sampler":
            pending = {"path": path, "cls": cls, "dp_after": []}
            self._pending_samplers.append(pending)
            self.leaks.append(pending)
        self.leaks.extend(price.leaks)
        self.assumptions.extend(price.assumptions)

    def _add(self, row: StepCost) -> None:
        if not row.leak and (row.cost.epsilon > 0 or row.cost.delta > 0):
            for pending in self._pending_samplers:
                pending["dp_after"].append(row.path)
        self.rows.append(row)

    def finish(self) -> _Walker:
        self.leaks = [
            sampler_leak(x["path"], x["cls"], x["dp_after"]) if isinstance(x, dict) else x
            for x in self.leaks
        ]
        self._pending_samplers = []
        return self

    # searches -----------------------------------------------------------
    def add_folds(self, fold, where: str) -> None:
        """Record how a splitter's fold count was established: a note, or a leak."""
        self.notes.append(fold.note)
        if fold.leak:
            self.leaks.append(f"{where}: {fold.leak}")
        if fold.assumption:
            self.assumptions.append(f"{where}: {fold.assumption}")

    def _walk_private_search(self, search, path):
        plan = private_search_plan(search, path, self.neighbours)
        for row in plan.rows:
            self._add(row)
        self._take(plan)

    def _take(self, plan) -> None:
        self.leaks.extend(plan.leaks)
        self.notes.extend(plan.notes)
        self.assumptions.extend(plan.assumptions)

    def _walk_search(self, search, path):
        cls = type(search).__name__
        infinite = PrivacyCost.infinite(neighbours=self.neighbours)
        if not isinstance(search, (GridSearchCV, RandomizedSearchCV)):
            self._add(StepCost(path, cls, infinite, "unsupported search", True))
            self.leaks.append(
                f"{path or '(root)'}: the validator cannot price {cls} (the number of fits "
                "per record is not known from its parameters)."
            )
            return
        fold = training_memberships(search.cv, search.estimator, neighbours=self.neighbours)
        members = fold.memberships
        est_path = _join(path, "estimator")
        if isinstance(search, GridSearchCV):
            plan = _grid_plan(search, est_path, self.neighbours)
        else:
            plan = _randomized_plan(search, est_path, self.neighbours)
        self.add_folds(fold, path or "(root)")
        self.notes.append(plan.note)
        groups = _group_fits(plan.weighted_rows, members)
        fit_note = f"{_fmt(members)} training folds × {plan.n_candidates} candidates"
        for (rpath, leak), (estimator, note, costs) in groups.items():
            cost = infinite if leak else compose_sequential(costs, neighbours=self.neighbours)
            self._add(StepCost(rpath, estimator, cost, f"{fit_note}; {note}", leak))
        if search.refit is not False:
            refit = _worst(plan.candidate_totals, self.neighbours)
            note = (
                "refit on all data of the winning candidate; the winner is data-dependent, "
                "so the most expensive candidate is charged"
            )
            self._add(StepCost(_join(path, "best_estimator_"), "refit", refit, note))
        self._take(plan)
        self.leaks.append(
            f"{path or '(root)'}: {cls} chooses hyperparameters by non-private validation "
            "scores: best_params_, the scores in cv_results_/best_score_ and the choice of "
            "the refitted model are not covered by differential privacy."
        )


def private_search_plan(search, path: str = "", neighbours: str = "replace"):
    """The rows of a search of this package (``privacy_selection()``), priced from parameters.

    With ``total_epsilon`` the search lists its candidates (or distributions) itself.
    """
    selection = search.privacy_selection()
    if selection.get("candidates") is not None:
        listed = selection["candidates"]
        note = (
            f"{len(listed)} candidates: the estimator's own setting, then the grid's (or the "
            "sampled) ones, each at the ε total_epsilon gives it"
        )
        candidates = partial(_exact_plan, candidates=listed, note=note)
    elif selection.get("distributions") is not None:
        dists, n_iter = selection["distributions"], selection["n_candidates"]
        candidates = partial(_worst_case_plan, dists=dists, n_iter=n_iter)
    else:
        candidates = _grid_plan if hasattr(search, "param_grid") else _randomized_plan
    return plan_private_search(search, path, neighbours, candidates, selection)


class _Plan:
    """Candidates of a search: ``weighted_rows`` is a list of (rows of one fit, multiplicity)."""

    def __init__(self, weighted_rows, candidate_totals, n_candidates, note, walkers):
        self.weighted_rows = weighted_rows
        self.candidate_totals = candidate_totals
        self.n_candidates = n_candidates
        self.note = note
        self.leaks = [leak for w in walkers for leak in w.leaks]
        self.notes = [n for w in walkers for n in w.notes]
        self.assumptions = [a for w in walkers for a in w.assumptions]


def _price_candidate(estimator, params: dict, path: str, neighbours: str, classes=None) -> _Walker:
    est = clone(estimator)
    est.set_params(**params)
    if classes is not None:  # the search's public label set, as its fits give it
        from ..model_selection._label_set import give_label_set, label_set_route

        if label_set_route(est) is not None:
            give_label_set(est, np.unique(np.asarray(classes)))
    walker = _Walker(neighbours)
    walker.walk(est, path)
    return walker.finish()


def _exact_plan(search, path, neighbours, candidates, note) -> _Plan:
    classes = getattr(search, "classes", None)
    walkers = [_price_candidate(search.estimator, p, path, neighbours, classes) for p in candidates]
    totals = [_total(w.rows, neighbours) for w in walkers]
    return _Plan([(w.rows, 1) for w in walkers], totals, len(candidates), note, walkers)


def _grid_plan(search, path, neighbours) -> _Plan:
    candidates = list(ParameterGrid(search.param_grid))
    note = f"param_grid: {len(candidates)} candidates"
    return _exact_plan(search, path, neighbours, candidates, note)


def _randomized_plan(search, path, neighbours) -> _Plan:
    from sklearn.model_selection import ParameterSampler

    space, seed = search.param_distributions, search.random_state
    if isinstance(seed, Integral):
        with warnings.catch_warnings():  # n_iter > grid size: sklearn warns, we just count
            warnings.simplefilter("ignore", UserWarning)
            candidates = list(ParameterSampler(space, search.n_iter, random_state=seed))
        note = (
            f"RandomizedSearchCV with int random_state: the {len(candidates)} sampled "
            "candidates are enumerated exactly"
        )
        return _exact_plan(search, path, neighbours, candidates, note)
    return _worst_case_plan(search, path, neighbours, space if isinstance(space, list) else [space])


def _worst_case_plan(search, path, neighbours, dists, n_iter=None) -> _Plan:
    """n_iter × the most expensive candidate, probing distributions at their support ends."""
    all_lists = all(not hasattr(v, "rvs") for d in dists for v in d.values())
    n_eff = search.n_iter if n_iter is None else n_iter
    if all_lists:
        n_eff = min(n_eff, len(ParameterGrid(dists)))
    walkers, unbounded_paths, notes = [], set(), []
    classes = getattr(search, "classes", None)
    for dist in dists:
        keys = sorted(dist)
        values, unbounded, n_ends = [], [], []
        for k in keys:
            v = dist[k]
            if hasattr(v, "rvs"):
                probes, ends, bounded = distribution_probes(v)
                values.append(probes)
                n_ends.append(ends)
                if not bounded:
                    unbounded.append(keys.index(k))
            else:
                values.append(list(v))
                n_ends.append(0)
        if math.prod(len(v) for v in values) > _MAX_PROBES:
            raise naming(
                ValueError,
                f"{path}: `param_distributions` has too many combinations to price without an "
                "int `random_state`; pass `random_state=<int>` to enumerate the candidates.",
            )
        indexed = {}
        for idx in itertools.product(*(range(len(v)) for v in values)):
            params = {k: values[i][j] for i, (k, j) in enumerate(zip(keys, idx))}
            try:
                indexed[idx] = _price_candidate(search.estimator, params, path, neighbours, classes)
            except (ValueError, TypeError):
                # an open end of a support (ε=0 of expon) is never drawn: skip it
                if not any(j < e for j, e in zip(idx, n_ends)):
                    raise
        walkers.extend(indexed.values())
        for u in unbounded:
            depends = _paths_depending_on(indexed, u)
            unbounded_paths |= depends
            effect = "depends on it, so it is unbounded" if depends else "does not depend on it"
            notes.append(
                f"{keys[u]} is drawn from a distribution without finite support: the cost {effect}"
            )
    # the worst candidate, row by row
    worst_rows: dict = {}
    for w in walkers:
        for r in w.rows:
            worst_rows.setdefault((r.path, r.leak), []).append(r)
    rows = []
    for (rpath, leak), rs in worst_rows.items():
        cost = _worst((r.cost for r in rs), neighbours)
        if rpath in unbounded_paths and not leak:
            cost = replace(cost, epsilon=math.inf)
        rows.append(StepCost(rpath, rs[0].estimator, cost, rs[0].note, leak))
    note = (
        f"RandomizedSearchCV without an int random_state: worst case n_iter={n_eff} × the "
        "most expensive candidate (distributions probed at their support ends, assuming "
        "the cost is monotone in each sampled parameter)"
    )
    plan = _Plan([(rows, n_eff)], [_total(rows, neighbours)], n_eff, note, walkers)
    plan.notes = notes + plan.notes
    return plan


def _paths_depending_on(indexed: dict, axis: int) -> set:
    """Row paths whose cost changes when only coordinate ``axis`` of the probe changes."""
    seen: dict = {}
    depends = set()
    for idx, walker in indexed.items():
        rest = idx[:axis] + idx[axis + 1 :]
        for r in walker.rows:
            key = (rest, r.path, r.leak)
            value = (r.cost.epsilon, r.cost.delta, r.cost.gamma)
            if key in seen and seen[key] != value:
                depends.add(r.path)
            seen.setdefault(key, value)
    return depends


# -- public API ---------------------------------------------------------------
def check_privacy_budget(
    estimator,
    budget=None,
    *,
    neighbours: str = "auto",
    cv=None,
    on_leak: str | None = None,
) -> PrivacyReport:
    """Price an estimator's privacy cost from its parameters and check it against a budget.

    Pipelines (sklearn, imblearn), unions, column transformers and voting
    ensembles compose their parts sequentially; ``GridSearchCV`` /
    ``RandomizedSearchCV`` cost every fit that trains on a record plus the
    refit; this package's private searches cost their fits, choice and refit.
    Leaf steps are priced by this package's protocol (``privacy_cost()``),
    diffprivlib's ``epsilon``/``delta`` or an allow-list, else reported as leaks.

    Parameters
    ----------
    estimator : estimator instance, or a list of them
        Validate **before** fitting when diffprivlib steps have ``bounds=None``
        (fit overwrites them, hiding the leak). A list (of estimators or
        ``(name, estimator)`` pairs) prices fits of each on the same records.
    budget : None, float, PrivacyCost or (epsilon, delta), default=None
        Maximum total cost, under the report's relation. A float is a pure ε
        budget.
    neighbours : {"auto", "replace", "add_remove"}, default="auto"
        The neighbouring relation of every row and the total (see Notes).
    cv : None, int, CV splitter or iterable, default=None
        Price ``cross_validate(estimator, cv=cv)`` instead of a single fit:
        each record pays for every training fold it is in (no refit).
    on_leak : {"warn", "raise", "ignore"} or None, default=None
        On a leak: warn (:class:`~skdp_anomaly.exceptions.PrivacyLeakWarning`),
        raise :class:`PrivacyLeakError`, or only report it. None: "raise" with
        a ``budget``, else "warn".

    Returns
    -------
    report : PrivacyReport
        Per-step rows, totals ``epsilon``/``delta``, ``leaks``, ``assumptions``.

    Raises
    ------
    PrivacyBudgetError
        When the total exceeds ``budget`` (a ``ValueError``).
    PrivacyLeakError
        When ``on_leak`` resolves to "raise" and something leaks (a
        ``PrivacyBudgetError``).
    TypeError
        When ``estimator`` is None, a class, or not an estimator (e.g. an array).
    ValueError
        When a step's ε is invalid (e.g. 0); the message names the step.

    Notes
    -----
    ``"auto"`` states the total under add/remove neighbours when every step
    holds there, else under replace-one neighbours (``n`` public; diffprivlib's
    models hold only there). An add/remove cost converts to replace-one by
    group privacy (ε → 2ε), never the converse. Costs are per record, composed
    by :func:`~skdp_anomaly.privacy.compose_sequential` (ε, δ add up; mixed
    notions give the weakest). ``report.is_private`` is True only without leaks
    and assumptions (e.g. a label set read from ``y``). CV counts hold only
    where a record's fold does not depend on other records; choices from raw
    validation scores are leaks. A non-private resampler before a DP step voids
    its guarantee (Lut 2022, Theorem 3.2); with :class:`skdp_anomaly.DPSMOTE`
    costs add up (Theorem 3.3). Proofs: :ref:`proofs-budget-validator`.

    Examples
    --------
    >>> from diffprivlib.models import LogisticRegression, StandardScaler
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from sklearn.pipeline import Pipeline
    >>> from skdp_anomaly.budget import check_privacy_budget
    >>> pipe = Pipeline([
    ...     ("scale", StandardScaler(epsilon=0.5, bounds=(0, 1))),
    ...     ("clf", LogisticRegression(epsilon=1.0, data_norm=1.5, fit_intercept=False)),
    ... ])
    >>> report = check_privacy_budget(pipe, budget=2.0)
    >>> report.epsilon, report.neighbours
    (1.5, 'replace')
    >>> len(report.assumptions), "class labels is read from y" in report.assumptions[0]
    (1, True)
    >>> search = GridSearchCV(pipe, {"clf__epsilon": [0.5, 1.0, 2.0]}, cv=KFold(5))
    >>> # 4 training folds × (1 + 1.5 + 2.5) + refit of the dearest candidate (2.5)
    >>> check_privacy_budget(search, on_leak="ignore").epsilon
    22.5
    """
    named = _named_estimators(estimator)
    if neighbours == "auto":
        # the strongest relation: add/remove unless replace-one has fewer leaks
        walker, neighbours = _walk_all(named, "add_remove", cv), "add_remove"
        if walker.leaks:
            replace = _walk_all(named, "replace", cv)
            if len(replace.leaks) < len(walker.leaks):
                walker, neighbours = replace, "replace"
    else:
        neighbours = check_neighbours(neighbours)
        walker = _walk_all(named, neighbours, cv)
    budget_cost = validate_budget(budget, neighbours=neighbours)
    on_leak = _check_on_leak(on_leak, budget_cost)
    name = " + ".join(type(e).__name__ for _, e in named)
    report = PrivacyReport(
        name, walker.rows, walker.leaks, budget_cost, walker.notes, walker.assumptions, neighbours
    )
    _enforce(report, on_leak)
    return report


def _named_estimators(estimator) -> list:
    """``[(path, estimator)]``: ``[("", estimator)]`` for one, named steps for a list."""
    if not isinstance(estimator, (list, tuple)):
        _check_estimator(estimator)
        return [("", estimator)]
    if not estimator:
        raise TypeError(
            "check_privacy_budget needs an estimator instance or a non-empty "
            "list of them, got an empty list."
        )
    named, counts = [], {}
    for item in estimator:
        name, est = item if isinstance(item, tuple) else (type(item).__name__.lower(), item)
        _check_estimator(est)
        counts[name] = counts.get(name, 0) + 1
        named.append((name if counts[name] == 1 else f"{name}{counts[name]}", est))
    return named


def _walk_all(named: list, neighbours: str, cv) -> _Walker:
    """One walker's rows, leaks, notes and assumptions for each (separate) fit of ``named``."""
    merged = _Walker(neighbours)
    for path, est in named:
        walker = _Walker(neighbours)
        if cv is not None:
            _walk_cross_validation(walker, est, cv, path)
        else:
            walker.walk(est, path)
            walker.finish()
        merged.rows, merged.leaks = merged.rows + walker.rows, merged.leaks + walker.leaks
        merged.notes += [n for n in walker.notes if n not in merged.notes]
        merged.assumptions += walker.assumptions
    return merged


def _walk_cross_validation(walker: _Walker, estimator, cv, path: str = "") -> None:
    """Rows of ``cross_validate(estimator, cv=cv)``: every fit that trains on a record."""
    fold = training_memberships(cv, estimator, neighbours=walker.neighbours)
    inner = _Walker(walker.neighbours)
    inner.walk(estimator, path)
    inner.finish()
    for r in inner.rows:
        note = f"{_fmt(fold.memberships)} training folds; {r.note}"
        walker._add(replace(r, cost=_repeat(r.cost, fold.memberships), note=note))
    scores = (
        "cross-validation: the validation scores are computed without differential "
        "privacy (report them only after adding noise, or not at all)."
    )
    walker.leaks = [*inner.leaks, scores]
    walker.notes = list(inner.notes)
    walker.assumptions = list(inner.assumptions)
    walker.add_folds(fold, "cross-validation")


def _enforce(report: PrivacyReport, on_leak: str) -> None:
    if not report.within_budget:
        b = report.budget
        priced = [r for r in report.steps if not r.leak and (r.epsilon > 0 or r.delta > 0)]
        shown = ", ".join(
            f"{r.path or '(root)'} ε={r.epsilon:.4g}" + (f" δ={r.delta:.3g}" if r.delta else "")
            for r in priced[:8]
        )
        more = f" and {len(priced) - 8} more" if len(priced) > 8 else ""
        raise PrivacyBudgetError(
            f"Privacy budget exceeded: the estimator costs ε={report.epsilon:.6g}, "
            f"δ={report.delta:.3g} ({report.notion}) but the budget is ε={b.epsilon:.6g}, "
            f"δ={b.delta:.3g}. Steps: {shown}{more}. The full table is in the `report` "
            "attribute of this error.",
            report,
        )
    if not report.leaks or on_leak == "ignore":
        return
    if on_leak == "raise":
        raise PrivacyLeakError(
            f"{len(report.leaks)} privacy leak(s):\n" + "\n".join(f"- {x}" for x in report.leaks),
            report,
        )
    for leak in report.leaks:  # report text, not a template: its backticks stay
        warn(leak, leak_category())


_EXPLANATION = """\
How to read this report:
- the report's first line names the neighbouring relation: every ε holds for datasets that
  differ in one record under that relation (replace-one: same size n, n public;
  add/remove: n protected too).
- step: the parameter path of the step (what set_params accepts); estimator: its class.
- ε, δ: what that step costs one record, read from its parameters before fitting
  (diffprivlib's `epsilon`, this package's `privacy_cost()`), converted to the report's
  relation (an add/remove ε counts 2ε under replace-one, group privacy); 0 for steps
  that do not learn from the data; ∞ for steps that learn without privacy.
- notion: the guarantee of the row (pure ε-DP, (ε, δ)-DP, ...); a total mixing
  notions holds only as the weakest of them.
- total: basic sequential composition of the DP rows (ε and δ add up), the budget a
  run of fit spends. Under a search every training fold and the refit are counted.
- leaks: what the total does NOT cover (non-private steps, data-derived bounds,
  label-dependent folds, hyperparameters chosen on raw scores). With a leak the
  estimator is not DP.
- assumptions: what the total takes as public without the package being able to
  check it; the total holds only if they hold.
"""


def print_pipeline_report(
    name: str,
    estimator,
    *,
    budget=None,
    neighbours: str = "replace",
    cv=None,
    explain: bool = False,
    file=None,
) -> PrivacyReport:
    """Print the privacy report of ``estimator`` under a ``## name`` heading; return the report.

    ``estimator`` may be a report already computed (e.g.
    ``BudgetedPipeline.privacy_report_``, stated under ``neighbours``), printed as
    is. ``budget``, ``neighbours`` and ``cv`` as in :func:`check_privacy_budget`,
    but leaks are printed, not warned, and exceeding ``budget`` is printed, not
    raised. ``explain`` also prints how to read the table; ``file`` defaults to
    ``sys.stdout``.

    >>> import io
    >>> from diffprivlib.models import GaussianNB
    >>> from skdp_anomaly.budget._validator import print_pipeline_report
    >>> buf = io.StringIO()
    >>> report = print_pipeline_report("nb", GaussianNB(epsilon=1.0, bounds=(0, 1)), file=buf)
    >>> report.epsilon
    1.0
    >>> [line.split(" (")[0] for line in buf.getvalue().splitlines()[:3]]
    ['## nb', '', 'Privacy report of GaussianNB under replace-one-record neighbours']
    """
    file = sys.stdout if file is None else file
    neighbours = check_neighbours(neighbours)
    if isinstance(estimator, PrivacyReport):
        report = estimator
        if report.neighbours != neighbours:
            raise naming(
                ValueError,
                f"The report is stated under {relation_text(report.neighbours)}, not "
                f"{relation_text(neighbours)}: pass `neighbours={report.neighbours!r}`.",
            )
    else:
        report = check_privacy_budget(estimator, neighbours=neighbours, cv=cv, on_leak="ignore")
    if budget is not None:
        report = replace(report, budget=validate_budget(budget, neighbours=neighbours))
    print(f"## {name}\n", file=file)
    print(report.to_markdown(), file=file)
    if explain:
        print(_EXPLANATION, file=file)
    return report
