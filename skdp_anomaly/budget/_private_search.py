"""Pricing a private search: candidate fits, the private choice, the refit.

:func:`plan_private_search` turns a search's ``privacy_selection()`` and its candidates (each priced
as a clone, leaks kept) into report rows, for the search's ``privacy_cost()`` and the validator
alike. The costs are proven in :ref:`proofs-private-search`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..exceptions import naming
from ..privacy import PrivacyCost, compose_sequential
from ._compose import _group_fits, _join, _total, _worst
from ._cv import training_memberships
from ._report import StepCost


class SearchPlan(NamedTuple):
    """Rows of a private search and the figures its fit needs."""

    rows: list
    leaks: list
    notes: list
    assumptions: list
    run_epsilon: float  # ε of one run of the repeated rule (the dearest candidate)
    eta: float | None  # η of D_{η,γ} (repeated rule only)


def plan_private_search(
    search, path: str, neighbours: str, candidate_plan, selection: dict | None = None
) -> SearchPlan:
    """Price a private search from its parameters (raises on invalid ones).

    ``candidate_plan(search, path, neighbours)`` prices each candidate;
    ``selection`` is ``privacy_selection()`` (asked for when None). The words
    of the rows and refusals are in the ``_*_text`` functions below.
    """
    if selection is None:
        selection = search.privacy_selection()
    rule = selection["rule"]
    plan = candidate_plan(search, _join(path, "estimator"), neighbours)
    fold = training_memberships(selection["cv"], None, neighbours=neighbours)
    where = path or "(root)"
    notes, leaks, assumptions = _context_text(selection, plan, fold, where)
    sizes_epsilon = float(selection.get("class_sizes_epsilon", 0.0))
    choice = float(selection["epsilon"]) - sizes_epsilon  # the choice keeps the rest
    eta, run_epsilon = None, 0.0
    if rule == "repeated":
        # a run costs the dearest candidate's whole cost, not the dearest of each step
        # (candidates' steps differ: summing per-step maxima would over-charge)
        dearest = max(
            range(len(plan.candidate_totals)), key=lambda i: plan.candidate_totals[i].epsilon
        )
        rows = [
            StepCost(r.path, r.estimator, r.cost, _run_text(plan.n_candidates, r.note), r.leak)
            for r in plan.weighted_rows[dearest][0]
        ]
        run = _total(rows, neighbours)
        pure = run.delta == 0 and run.gamma == 0 and not run.anomaly_restricted
        run_epsilon = run.epsilon
        refusal = _repeated_refusal(choice, run_epsilon, selection.get("total"), sizes_epsilon)
        if refusal:
            raise naming(ValueError, refusal)
        eta = choice / run_epsilon - 1 if run_epsilon > 0 else 1.0
        if not pure:
            leaks.append(
                f"{where}: selection='repeated' needs candidates with a pure ε "
                "guarantee; use selection='holdout-noisy-max'."
            )
        selection_note, selection_leak = _repeated_text(eta), not pure
    else:
        members = fold.memberships if rule == "cv-noisy-max" else 1
        fits = f"{members:g} training part(s) × {plan.n_candidates} candidates"
        rows = []
        for (rpath, leak), (cls, note, costs) in _group_fits(plan.weighted_rows, members).items():
            cost = compose_sequential(costs, neighbours=neighbours)
            rows.append(StepCost(rpath, cls, cost, f"{fits}; {note}", leak))
        selection_note, selection_leak = _NOISY_MAX_TEXT, False
    if sizes_epsilon:
        sizes = PrivacyCost.pure(sizes_epsilon, neighbours=neighbours)
        note = _sizes_text(float(selection["epsilon"]))
        rows.append(StepCost(_join(path, "class_sizes"), "class sizes", sizes, note))
    choice_cost = PrivacyCost.pure(choice, neighbours=neighbours)
    rows.append(
        StepCost(_join(path, "selection"), "selection", choice_cost, selection_note, selection_leak)
    )
    if selection["refit"]:
        refit = _worst(plan.candidate_totals, neighbours)
        rows.append(StepCost(_join(path, "best_estimator_"), "refit", refit, _REFIT_TEXT))
    return SearchPlan(rows, leaks, notes, assumptions, run_epsilon, eta)


# -- the words of the report rows and refusals ----------------------------------------
_NOISY_MAX_TEXT = "report-noisy-max over the candidates' validation scores (the index only)"
_REFIT_TEXT = "refit on all records of the chosen candidate; the dearest candidate is charged"


def _context_text(selection: dict, plan, fold, where: str) -> tuple[list, list, list]:
    """``(notes, leaks, assumptions)`` of the splitter, the candidates and the label set."""
    fold_note = fold.note
    if selection["rule"] != "cv-noisy-max":
        fold_note = (
            "each fit trains on one split's training part, which holds a record at most once "
            f"(the splitter: {fold.note})"
        )
    notes = [fold_note, plan.note, *plan.notes]
    if selection.get("total") is not None:
        notes.append(
            f"total_epsilon={selection['total']:g}: split between the candidates' fits, the "
            "choice and the refit by the documented rule; where the search's public rule (n, "
            "d, the label set, ε) finds that no search pays, the estimator as given is fitted "
            "once on every record at the whole total instead: the same total"
        )
    leaks = ([f"{where}: {fold.leak}"] if fold.leak else []) + list(plan.leaks)
    assumptions = ([f"{where}: {fold.assumption}"] if fold.assumption else []) + list(
        plan.assumptions
    )
    if not selection["label_set"]:
        leaks.append(
            f"{where}: the candidates' final classifier takes no public label set (no "
            "'classes' parameter, nor a 'classes' argument of its fit), so a candidate fitted "
            "on a training part shows in classes_ which labels that part holds (one record "
            "can hold the only label of a class). Use a classifier that takes one, such as "
            "PrivateLogisticRegression or PrivateOnlineActiveSVC."
        )
    if selection["classes"] is None:
        assumptions.append(
            f"{where}: the set of class labels is read from y and treated as "
            "public; every candidate fit is given it, whatever its training "
            "part holds (pass classes=[...] to fix it in advance)"
        )
    return notes, leaks, assumptions


def _sizes_text(epsilon: float) -> str:
    return (
        f"the class sizes of y, a two-sided geometric histogram (L1 sensitivity 2), for "
        f"the score's weights: a quarter of the choice's ε={epsilon:g}"
    )


def _run_text(n_candidates: int, note: str) -> str:
    return f"one run: the dearest of {n_candidates} candidates on one split's training part; {note}"


def _repeated_text(eta: float) -> str:
    return (
        f"private selection: K ~ truncated negative binomial (η = {eta:.4g}) runs, the "
        "best noisy validation count released (Papernot and Steinke 2022, Theorem 2, "
        "pure limit): (2 + η)·ε_run in all"
    )


def _repeated_refusal(choice: float, run_epsilon: float, total, sizes_epsilon: float) -> str | None:
    """Why the repeated rule cannot run with these figures, its settings marked (None: it can)."""
    if math.isinf(run_epsilon):
        return (
            "The cost of one run of `selection='repeated'` is unbounded: a candidate's "
            "cost parameter is drawn from a distribution with an unbounded support. Use a "
            "bounded distribution (e.g. scipy.stats.uniform) or an int `random_state`, so "
            "that the sampled candidates are priced exactly."
        )
    if not (run_epsilon > 0 and choice < run_epsilon):
        return None
    if total is not None:
        return (
            f"`The 'total_epsilon' parameter` ({total:g}) leaves the choice "
            f"ε={choice:g}, less than the cost of one run, the dearest candidate "
            f"(ε={run_epsilon:g}), which `selection='repeated'` needs. Raise "
            "`total_epsilon`, search fewer candidates or cheaper ones, or use "
            "`selection='holdout-noisy-max'`."
        )
    given = (
        f"`The 'epsilon' parameter` ({choice:g})"
        if not sizes_epsilon
        else f"Three quarters of `the 'epsilon' parameter` ({choice:g}; a quarter "
        "releases the class sizes the score needs)"
    )
    return (
        f"{given} of `selection='repeated'` must be at "
        f"least the cost of one run, the dearest candidate (ε={run_epsilon:g}): "
        "the number of runs then has a light tail. Raise `epsilon` (2× the dearest "
        "candidate is Liu and Talwar's random stopping) or use "
        "`selection='holdout-noisy-max'`."
    )
