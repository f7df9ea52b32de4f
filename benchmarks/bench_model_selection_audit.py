"""Empirical privacy audit of PrivateGridSearchCV's choice, one ``fit`` per run.

The scenarios of ``selection_scenarios`` in ``tests/audit_scenarios/selection.py``
(tested with a few hundred fits in ``tests/test_model_selection_audit.py``) at
higher power: the candidates are ``DeclaredCostClassifier(label=c)``, which
learn nothing and declare ε_run, so the only loss is the choice's;
neighbouring datasets differ in one record's label (replace one record).
Each row: the claimed ε (the package's own price), the Clopper–Pearson lower
bound at 95 % (anchor: the claim, and the exact loss of the fixed event,
from the exact output distribution, which no finite audit exceeds in
expectation), the exact loss of the pair (the largest ratio of any single
output), runs per dataset and the event.

The last row is the known over-claim: ``selection="repeated"`` on a
validation part that lists one record 3 times (its count moves by 3; the
noise is sized for 1). Its status is "VIOLATION (known)" when the bound
exceeds the claim.

Run from the repository root::

    nice python benchmarks/bench_model_selection_audit.py              # 20 000 fits per dataset
    nice python benchmarks/bench_model_selection_audit.py --runs 2000  # smoke run (_custom.json)

The default run takes ~30 min on 2 shared cores (3–9 ms per fit).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _common import print_table, write_json  # noqa: E402
from audit_scenarios.selection import (  # noqa: E402
    run_selection_scenario,
    selection_scenarios,
)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000, help="fits per dataset")
    parser.add_argument("--epsilon-run", type=float, default=1.0)
    parser.add_argument("--epsilon-max", type=float, default=2.0)
    parser.add_argument("--n-runs", type=float, default=4, help="mean runs of 'repeated'")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    scenarios = selection_scenarios(args.epsilon_run, args.epsilon_max, args.n_runs)
    rows, table = [], []
    for i, scenario in enumerate(scenarios):
        start = time.perf_counter()
        res = run_selection_scenario(scenario, args.runs, random_state=args.seed + i)
        seconds = time.perf_counter() - start
        exact = res.extras["exact"]
        (event,) = scenario.events  # one event per scenario
        p_a, p_b = exact[event]
        event_loss = abs(math.log(p_b / p_a))
        violated = res.epsilon_lower_bound > scenario.claimed_epsilon
        status = "VIOLATION" if violated else "ok"
        table.append(
            [
                scenario.name,
                scenario.search.selection,
                scenario.claimed_epsilon,
                res.epsilon_lower_bound,
                res.ratio,
                event_loss,
                exact["max loss"],
                args.runs,
                event,
                status,
            ]
        )
        rows.append(
            dict(
                scenario=scenario.name,
                selection=scenario.search.selection,
                claimed_epsilon=scenario.claimed_epsilon,
                lower_bound=res.epsilon_lower_bound,
                ratio=res.ratio,
                exact_event_loss=event_loss,
                exact_max_loss=exact["max loss"],
                runs=args.runs,
                event=res.best_event,
                counts=res.rows,
                exact_probabilities={k: v for k, v in exact.items() if k != "max loss"},
                relation=scenario.relation,
                status=status,
                seconds=seconds,
            )
        )
        print(
            f"{scenario.name}: {res.epsilon_lower_bound:.4f} of {scenario.claimed_epsilon:g} "
            f"({seconds:.0f} s)",
            flush=True,
        )

    print_table(
        f"PrivateGridSearchCV choice: Clopper–Pearson lower bound (95 %) vs claimed ε, "
        f"{args.runs} fits per dataset",
        [
            "scenario",
            "rule",
            "claimed ε",
            "lower bound",
            "ratio",
            "exact event loss",
            "exact pair loss",
            "runs",
            "event",
            "status",
        ],
        table,
        align="llrrrrrrll",
    )
    write_json(
        "model_selection_audit" if args.runs == 20_000 else "model_selection_audit_custom",
        dict(args=vars(args), rows=rows),
    )


if __name__ == "__main__":
    main()
