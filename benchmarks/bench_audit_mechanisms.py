"""Audit every mechanism of skdp_anomaly.privacy with 10⁶ draws per input.

Prints a markdown table (claimed ε vs empirical Clopper–Pearson lower bound,
95 % confidence) and writes benchmarks/results/audit_mechanisms.json.

    python benchmarks/bench_audit_mechanisms.py [--runs 1000000] [--epsilon 1.0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# the scenarios live in the test suite (tests/audit_scenarios/)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from audit_scenarios.mechanisms import mechanism_scenarios, run_scenario  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    args = parser.parse_args(argv)

    rows = []
    print("| mechanism | claimed ε | lower bound | ratio | tight? | runs | event | neighbours |")
    print("|---|---:|---:|---:|:-:|---:|---|---|")
    for epsilon in args.epsilon:
        for scenario in mechanism_scenarios(epsilon):
            # the stateful AboveThreshold is audited through its public API, one run at a time
            runs = args.runs if scenario.batch else max(args.runs // 10, 1000)
            start = time.perf_counter()
            res = run_scenario(scenario, runs, random_state=12345)
            seconds = time.perf_counter() - start
            status = "ok" if res.epsilon_lower_bound <= scenario.claimed_epsilon else "VIOLATION"
            print(
                f"| {scenario.name} | {scenario.claimed_epsilon:.4g} | {res.epsilon_lower_bound:.4f} "
                f"| {res.ratio:.3f} | {'yes' if scenario.tight else 'no'} | {runs} "
                f"| {res.best_event} | {scenario.relation} |"
            )
            rows.append(
                dict(
                    mechanism=scenario.name,
                    claimed_epsilon=scenario.claimed_epsilon,
                    lower_bound=res.epsilon_lower_bound,
                    ratio=res.ratio,
                    tight=scenario.tight,
                    runs=runs,
                    event=res.best_event,
                    status=status,
                    seconds=seconds,
                    relation=scenario.relation,
                )
            )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "audit_mechanisms.json"
    out.write_text(json.dumps(rows, indent=2))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
