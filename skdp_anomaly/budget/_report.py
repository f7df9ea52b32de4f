"""The privacy report returned by :func:`check_privacy_budget`, and its errors.

A report holds class names, parameter paths and costs read from parameters, never an estimator, a
parameter value such as ``bounds`` or a fitted statistic: it is safe to print, log and pickle. Every
row, the total and the budget hold under the report's one neighbouring relation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..privacy import PrivacyCost, compose_sequential
from ..privacy._cost import check_neighbours, relation_text


# the header line of a report, per relation
_HEADER_RELATION = {
    "replace": "replace-one-record neighbours (datasets of equal size n that differ in one "
    "record; n is public)",
    "add_remove": "add/remove-one-record neighbours (datasets that differ by one record "
    "added or removed; n is protected)",
}


def _fmt_eps(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.6g}"


def _fmt_delta(value: float) -> str:
    return "0" if value == 0 else f"{value:.3g}"


def _cell(text: str) -> str:
    # a note may contain '|' (e.g. a path); keep the markdown table intact
    return text.replace("|", "\\|").replace("\n", " ")


@dataclass(frozen=True)
class StepCost:
    """One row of a :class:`~skdp_anomaly.PrivacyReport`.

    Parameters
    ----------
    path : str
        Parameter path of the step, as ``set_params`` takes it (``""``: the
        estimator itself).
    estimator : str
        Class name of the step (or a description such as ``"refit"``).
    cost : PrivacyCost
        Cost per record under the report's relation; ``inf`` for a leak.
    note : str
        Where the number comes from, in words.
    leak : bool
        True for a step that learns without differential privacy; its row is
        left out of the total.
    """

    path: str
    estimator: str
    cost: PrivacyCost
    note: str = ""
    leak: bool = False

    @property
    def epsilon(self) -> float:
        """The ε of the row (``inf`` for a leaking learner)."""
        return self.cost.epsilon

    @property
    def delta(self) -> float:
        """The δ of the row."""
        return self.cost.delta

    @property
    def notion(self) -> str:
        """Notion of the row's cost, e.g. ``"pure ε-DP"``.

        ``"non-private"`` for a leak, ``"data-independent"`` for a free step.
        """
        if self.leak:
            return "non-private"
        if self.cost.epsilon == 0 and self.cost.delta == 0 and self.cost.gamma == 0:
            return "data-independent"
        return self.cost.notion


@dataclass(frozen=True)
class PrivacyReport:
    """Per-step privacy costs of an estimator and their sequential composition.

    Attributes
    ----------
    estimator : str
        Class name of the validated estimator.
    steps : list of StepCost
        One row per priced step (path, ε, δ, notion, note).
    cost : PrivacyCost
        Sequential composition (:func:`~skdp_anomaly.privacy.compose_sequential`)
        of the DP rows under ``neighbours``; leaking rows are in ``leaks`` instead.
    leaks : list of str
        Everything the ε above does not cover.
    budget : PrivacyCost or None
        The budget the report was checked against (under ``neighbours``).
    notes : list of str
        Remarks on the composition (e.g. mixed notions, how folds are counted).
    assumptions : list of str
        What the total rests on unverified (e.g. a label set read from ``y``);
        the total holds only if they hold.
    neighbours : {"replace", "add_remove"}, default="replace"
        The neighbouring relation of every row, the total and the budget.

    Examples
    --------
    >>> from skdp_anomaly.privacy import PrivacyCost
    >>> from skdp_anomaly.budget import PrivacyReport, StepCost
    >>> report = PrivacyReport(
    ...     "Pipeline",
    ...     [StepCost("a", "A", PrivacyCost(0.5, neighbours="replace")),
    ...      StepCost("b", "B", PrivacyCost(1.0, neighbours="replace"))],
    ...     budget=PrivacyCost(2.0, neighbours="replace"),
    ... )
    >>> report.epsilon, report.within_budget, report.is_private
    (1.5, True, True)
    >>> report.to_markdown().splitlines()[0].split(" (")[0]
    'Privacy report of Pipeline under replace-one-record neighbours'
    """

    estimator: str
    steps: list = field(default_factory=list)
    leaks: list = field(default_factory=list)
    budget: PrivacyCost | None = None
    notes: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)
    neighbours: str = "replace"
    cost: PrivacyCost = field(init=False)

    def __post_init__(self):
        check_neighbours(self.neighbours)
        object.__setattr__(self, "steps", list(self.steps))
        for item in ("leaks", "notes", "assumptions"):
            object.__setattr__(self, item, list(dict.fromkeys(getattr(self, item))))
        for row in self.steps:
            self._check_relation(row.cost, f"step {row.path or '(root)'!r}")
        if self.budget is not None:
            self._check_relation(self.budget, "the budget")
        cost = compose_sequential(
            [s.cost for s in self.steps if not s.leak], neighbours=self.neighbours
        )
        object.__setattr__(self, "cost", cost)

    def _check_relation(self, cost: PrivacyCost, what: str) -> None:
        # a row under another relation would be added up as if it held under this one
        if cost.neighbours != self.neighbours and not cost.is_zero:
            raise ValueError(
                f"{what} is stated under {cost.relation} but the report under "
                f"{relation_text(self.neighbours)}: every row of a report "
                "is stated under the report's neighbouring relation (see PrivacyCost.under)."
            )

    # -- totals ------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """Total ε of the DP steps (with a leak the estimator is not DP, whatever this value)."""
        return self.cost.epsilon

    @property
    def delta(self) -> float:
        """Total δ of the differentially private steps."""
        return self.cost.delta

    @property
    def notion(self) -> str:
        """Notion of the total, e.g. ``"pure ε-DP"`` (the weakest of the rows)."""
        return self.cost.notion

    @property
    def is_private(self) -> bool:
        """True when nothing leaks, nothing is assumed and the total ε is finite."""
        return not self.assumptions and self.is_private_given_assumptions

    @property
    def is_private_given_assumptions(self) -> bool:
        """True when nothing leaks and the total ε is finite: DP if ``assumptions`` hold."""
        return not self.leaks and self.cost.is_private

    @property
    def within_budget(self) -> bool:
        """Whether total ε and δ are within ``budget`` (True without one; leaks not tested)."""
        if self.budget is None:
            return True
        cost, budget = self.cost, self.budget
        return _leq(cost.epsilon, budget.epsilon) and _leq(cost.delta, budget.delta)

    # -- rendering ---------------------------------------------------------
    def to_markdown(self) -> str:
        """A markdown table of the rows and the total, then budget, notes and leaks."""
        lines = [
            f"Privacy report of {self.estimator} under {_HEADER_RELATION[self.neighbours]}",
            "",
            "| step | estimator | ε | δ | notion | note |",
            "|---|---|---:|---:|---|---|",
        ]
        for row in self.steps:
            lines.append(
                f"| {_cell(row.path or '(root)')} | {_cell(row.estimator)} | "
                f"{_fmt_eps(row.epsilon)} | {_fmt_delta(row.delta)} | {row.notion} | "
                f"{_cell(row.note)} |"
            )
        # with a leak the total is only the DP rows' share: say so on the row itself
        total_notion = self.notion if not self.leaks else f"NOT DP ({len(self.leaks)} leak(s))"
        lines.append(
            f"| **total** | {_cell(self.estimator)} | **{_fmt_eps(self.epsilon)}** | "
            f"**{_fmt_delta(self.delta)}** | {total_notion} | sequential composition of "
            "the DP rows |"
        )
        out = ["\n".join(lines), ""]
        if self.budget is not None:
            verdict = "within budget" if self.within_budget else "EXCEEDS the budget"
            out.append(
                f"Budget: ε={_fmt_eps(self.budget.epsilon)}, δ={_fmt_delta(self.budget.delta)}"
                f" → {verdict}."
            )
            weaker = (self.cost.gamma > self.budget.gamma) or (
                self.cost.anomaly_restricted and not self.budget.anomaly_restricted
            )
            if weaker:
                out.append(
                    f"The total holds only as {self.notion}, a weaker notion than the "
                    f"budget's ({self.budget.notion}); the budget is compared on ε and δ."
                )
        notes = list(dict.fromkeys([*self.notes, *self.cost.notes]))
        if notes:
            out.append("Notes:")
            out.extend(f"- {n}" for n in notes)
        out.extend(self._verdict())
        return "\n".join(out).rstrip() + "\n"

    def _verdict(self) -> list:
        """Closing lines: leaks, then what the total rests on; a clean verdict only without both."""
        listed = [f"- {a}" for a in self.assumptions]
        if self.leaks:
            out = [
                f"NOT differentially private: {len(self.leaks)} leak(s), not covered by "
                "the total above:",
                *(f"- {leak}" for leak in self.leaks),
            ]
            if listed:
                out += ["The total also rests on these assumptions (not verified):", *listed]
            return out
        if listed:
            return [
                f"No leaks found; the total, {self.cost}, holds only if these "
                "assumptions hold (the package cannot verify them):",
                *listed,
            ]
        return [f"No leaks found: the estimator satisfies {self.cost}."]

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return (
            f"PrivacyReport(estimator={self.estimator!r}, epsilon={self.epsilon:.6g}, "
            f"delta={self.delta:.6g}, neighbours={self.neighbours!r}, n_steps={len(self.steps)}, "
            f"n_leaks={len(self.leaks)}, n_assumptions={len(self.assumptions)}, "
            f"within_budget={self.within_budget})"
        )


def _leq(value: float, limit: float) -> bool:
    # sums of decimal epsilons (0.1 + 0.2) must not fail a budget of 0.3
    return value <= limit or math.isclose(value, limit, rel_tol=1e-9, abs_tol=0.0)
