"""``skdp-anomaly budget-demo``: the options of the budget validator's tour
(``skdp_anomaly.demos.run_budget_tour``), ``--budget`` checked before any data is loaded.
"""

from __future__ import annotations

import math

from ..demos._budget_tour import run_budget_tour


def run(args) -> int:
    """Run the tour from parsed arguments; returns the exit status."""
    if not (math.isfinite(args.budget) and args.budget > 0):  # before loading and fitting
        raise ValueError(f"--budget must be a positive finite ε, got {args.budget!r}.")
    from ..exceptions import PrivacyBudgetError, PrivacyLeakError

    try:
        run_budget_tour(
            budget=args.budget, random_state=args.random_state, explain=not args.no_explain
        )
    except PrivacyBudgetError as exc:
        if isinstance(exc, PrivacyLeakError) or exc.report is None:
            raise
        _refused(exc.report, args)
    return 0


def _refused(report, args) -> None:
    """Print the refused pipeline's report, then raise the one-line CLI error. The library's message
    points to the error's ``report`` attribute, which a command line cannot reach: the table is
    printed instead."""
    from ..budget._validator import print_pipeline_report

    print_pipeline_report(
        "Refused: BudgetedPipeline(log → scale → dpsmote → clf): privacy_report_ (checked "
        "before fit)",
        report,
        budget=args.budget,
        explain=not args.no_explain,
    )
    raise ValueError(
        f"Privacy budget exceeded: the pipeline costs ε={report.epsilon:g} (each step's cost "
        f"is in the report printed above) but --budget is {args.budget:g}, so nothing was "
        f"fitted; use --budget {report.epsilon:g} or more."
    )


def add_parser(subparsers) -> None:
    """Register the tour as a sub-command (``skdp-anomaly budget-demo``)."""
    p = subparsers.add_parser(
        "budget-demo",
        help="fit a privacy-budgeted private pipeline and explain its privacy report",
        description=(
            "Fit log1p → public scaling → DPSMOTE → PrivateLogisticRegression (ε = 0 + 0 + 2·0.5 "
            "+ 1 under replace-one neighbours) on scikit-learn's breast-cancer data in a "
            "BudgetedPipeline, and print the privacy reports of that pipeline, of a GridSearchCV "
            "over it, and of leaking variants."
        ),
    )
    p.add_argument(
        "--budget",
        type=float,
        default=2.0,
        help="privacy budget ε of the fitted pipeline (default: 2.0; below 2 the fit is refused)",
    )
    p.add_argument("--random-state", type=int, default=0, help="seed (demo only; default: 0)")
    p.add_argument("--no-explain", action="store_true", help="omit the explanation of the report")
    p.set_defaults(func=run)
