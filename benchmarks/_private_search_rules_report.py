"""Tables of ``bench_private_search_rules.py``: Wilson intervals, sections 0–2.

0. the true-CV-score table (and the spread of single fits behind it);
1. the target section: quality of the choice, ``check_privacy_budget`` and
   ``privacy_spent_``, fit time against ``GridSearchCV.fit``;
2. the equal-total section: test accuracy and choices within 0.03 at the
   final model's ε.

Each ``report_*`` prints its tables and returns the numbers for the JSON.
The runs: ``_private_search_rules_runs.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt, print_table  # noqa: E402
from _private_search_rules_runs import (  # noqa: E402
    ANCHOR,
    CHOSEN_HEADER,
    DATASETS,
    EQUAL_TOTAL,
    GRID,
    SELECTION_EPSILON,
    TARGET_EPS_C,
    TARGET_FRACTION,
    TARGET_TIME_RATIO,
    TOLERANCE,
    c_label,
    eps_key,
    equal_total_configs,
    regret,
    within,
)


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def frac_ci(flags) -> tuple[float, float, float]:
    flags = np.asarray(flags, bool)
    lo, hi = wilson(int(flags.sum()), flags.size)
    return float(flags.mean()), lo, hi


def fmt_frac(flags) -> str:
    p, lo, hi = frac_ci(flags)
    return f"{p:.2f} [{lo:.2f}, {hi:.2f}]"


def mean_se(values) -> tuple[float, float]:
    a = np.asarray(values, float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else math.nan


def fmt_mean_se(values, digits: int = 3) -> str:
    m, s = mean_se(values)
    return f"{m:.{digits}f} ± {s:.{digits}f}"


def choice_counts(choices) -> str:
    counts = np.bincount(np.asarray(choices, int), minlength=len(GRID))
    return " / ".join(str(int(c)) for c in counts)


def report_target(results: dict, table: dict) -> dict:
    summary = {"quality": [], "budget": [], "time": []}
    rows_q, rows_b, rows_t = [], [], []
    for eps_c, (records, budgets) in results.items():
        anchor_choice = records[ANCHOR]["choice"]
        anchor_test = np.asarray(records[ANCHOR]["test"])
        for name, rec in records.items():
            ch = rec["choice"]
            best = [within(table, eps_c, c) for c in ch]
            vs_anchor = [within(table, eps_c, c, a) for c, a in zip(ch, anchor_choice)]
            test_ok = np.asarray(rec["test"]) >= anchor_test - TOLERANCE - 1e-12
            total = math.nan if budgets[name]["leaks"] else budgets[name]["epsilon"]
            p_best, lo_best, _ = frac_ci(best)
            p_anchor, lo_anchor, _ = frac_ci(vs_anchor)
            is_target = name.startswith("repeated")
            meets = p_best >= TARGET_FRACTION and p_anchor >= TARGET_FRACTION
            summary["quality"].append(
                {
                    "eps_c": eps_c,
                    "config": name,
                    "runs": len(ch),
                    "total_epsilon": total,
                    "choice_counts": np.bincount(np.asarray(ch, int), minlength=len(GRID)),
                    "within_best": p_best,
                    "within_best_wilson_low": lo_best,
                    "within_anchor_pick": p_anchor,
                    "within_anchor_pick_wilson_low": lo_anchor,
                    "mean_regret": float(np.mean([regret(table, eps_c, c) for c in ch])),
                    "test_accuracy": mean_se(rec["test"]),
                    "test_within_anchor_test": frac_ci(test_ok)[0],
                    "target_met": bool(meets) if is_target else None,
                }
            )
            rows_q.append(
                [
                    fmt(eps_c),
                    name,
                    fmt(total, 3),
                    str(len(ch)),
                    choice_counts(ch),
                    fmt_frac(best),
                    fmt_frac(vs_anchor),
                    fmt(float(np.mean([regret(table, eps_c, c) for c in ch])), 4),
                    fmt_mean_se(rec["test"]),
                    fmt_frac(test_ok),
                    ("yes" if meets else "no") if is_target else "—",
                ]
            )
            if name in budgets:
                b = budgets[name]
                spent = sorted({round(s, 10) for s in rec["spent"]})
                total_text = "not bounded (leak)" if b["leaks"] else fmt(b["epsilon"], 3)
                rows_b.append(
                    [
                        fmt(eps_c),
                        name,
                        total_text,
                        fmt(b["delta"]),
                        b["notion"],
                        "; ".join(b["leaks"]) or "none",
                        ", ".join(fmt(s, 3) for s in spent) or "–",
                    ]
                )
                summary["budget"].append(
                    {"eps_c": eps_c, "config": name, **b, "privacy_spent_epsilons": spent}
                )
            if name != ANCHOR:
                ratio = np.asarray(rec["time"]) / np.asarray(records[ANCHOR]["time"])
                med, mean, p90 = (
                    float(np.median(ratio)),
                    float(ratio.mean()),
                    float(np.percentile(ratio, 90)),
                )
                ok = [v <= TARGET_TIME_RATIO for v in (med, mean, p90)]
                rows_t.append(
                    [
                        fmt(eps_c),
                        name,
                        str(ratio.size),
                        fmt(med, 2),
                        fmt(mean, 2),
                        fmt(p90, 2),
                        fmt(float(ratio.max()), 2),
                        fmt(float(np.median(rec["time"]) / np.median(records[ANCHOR]["time"])), 2),
                        " / ".join("yes" if o else "no" for o in ok),
                    ]
                )
                summary["time"].append(
                    {
                        "eps_c": eps_c,
                        "config": name,
                        "pairs": int(ratio.size),
                        "ratio_median": med,
                        "ratio_mean": mean,
                        "ratio_p90": p90,
                        "ratio_max": float(ratio.max()),
                        "median_within_target": ok[0],
                        "mean_within_target": ok[1],
                        "p90_within_target": ok[2],
                    }
                )
    print_table(
        "1a. Target, synth (4 000 private rows): quality of the choice "
        f"(selection ε = {SELECTION_EPSILON:g}; fraction [Wilson 95 %])",
        [
            "ε_c",
            "search",
            "total ε",
            "runs",
            CHOSEN_HEADER,
            "within 0.03 of best C",
            "within 0.03 of GridSearchCV's pick",
            "mean regret",
            "test acc (mean ± se)",
            "test acc ≥ GridSearchCV's − 0.03 (same run)",
            f"target ≥ {TARGET_FRACTION:.0%}",
        ],
        rows_q,
        align="rlrrlllrlll",
    )
    print_table(
        "1b. Target: check_privacy_budget(search) (parameters only) and privacy_spent_ after fit",
        ["ε_c", "search", "total ε", "δ", "notion", "leaks", "privacy_spent_ ε (all runs)"],
        rows_b,
        align="rlrrlll",
    )
    print_table(
        "1c. Target: wall time of fit / GridSearchCV.fit (refit=True), paired runs in rotating "
        "order, same process",
        [
            "ε_c",
            "search",
            "pairs",
            "median ratio",
            "mean ratio",
            "p90 ratio",
            "max ratio",
            "ratio of medians",
            f"≤ {TARGET_TIME_RATIO:g}×: median / mean / p90",
        ],
        rows_t,
        align="rlrrrrrrl",
    )
    return summary


def report_equal_total(cells: dict, tables: dict) -> list:
    summary = []
    compact = {}
    for (data_name, total), out in sorted(
        cells.items(), key=lambda kv: (DATASETS.index(kv[0][0]), kv[0][1])
    ):
        table = tables[data_name]
        rows = []
        anchor_label = f"{ANCHOR} (ε = T)"
        for label, eps_c, _ in equal_total_configs(total):
            rec = out[label]
            flags = [within(table, eps_c, c) for c in rec["choice"]]
            ratio = np.asarray(rec["time"]) / np.asarray(out[anchor_label]["time"])
            rows.append(
                [
                    label,
                    fmt(eps_c, 4),
                    fmt(eps_c, 4),
                    str(len(flags)),
                    choice_counts(rec["choice"]),
                    fmt_mean_se(rec["test"]),
                    fmt_frac(flags),
                    fmt(float(np.mean([regret(table, eps_c, c) for c in rec["choice"]])), 4),
                    fmt(float(np.median(ratio)), 2),
                ]
            )
            summary.append(
                {
                    "data": data_name,
                    "total_epsilon": total,
                    "config": label,
                    "eps_c": eps_c,
                    "final_epsilon": eps_c,
                    "runs": len(flags),
                    "choice_counts": np.bincount(
                        np.asarray(rec["choice"], int), minlength=len(GRID)
                    ),
                    "test_accuracy": mean_se(rec["test"]),
                    "within_best_final": frac_ci(flags)[0],
                    "mean_regret": float(np.mean([regret(table, eps_c, c) for c in rec["choice"]])),
                    "time_ratio_median": float(np.median(ratio)),
                }
            )
            compact.setdefault(label, {})[(data_name, total)] = (
                f"{mean_se(rec['test'])[0]:.3f} / {frac_ci(flags)[0]:.2f}"
            )
        print_table(
            f"2. Equal total ε = {total:g}, {data_name}: final model's test accuracy and "
            "choice within 0.03 at its ε",
            [
                "search",
                "ε per candidate fit",
                "ε of final model",
                "runs",
                CHOSEN_HEADER,
                "test acc (mean ± se)",
                "within 0.03 of best (final ε) [Wilson 95 %]",
                "mean regret",
                "median time / GridSearchCV",
            ],
            rows,
            align="lrrrllllr",
        )
    keys = sorted(
        {k for v in compact.values() for k in v}, key=lambda k: (DATASETS.index(k[0]), k[1])
    )
    print_table(
        "2-summary. Equal total ε: test accuracy / fraction within 0.03 at the final model's ε "
        f"(the {ANCHOR} row spends ε = T on each candidate fit, {EQUAL_TOTAL[-1][3]}·T in all, "
        "and chooses without privacy)",
        ["search"] + [f"{d} T={t:g}" for d, t in keys],
        [[label] + [v.get(k, "–") for k in keys] for label, v in compact.items()],
        align="l" + "r" * len(keys),
    )
    return summary


def report_reference(tables: dict, seeds: dict, proto_check: dict) -> None:
    for data_name, table in tables.items():
        rows = []
        for key in sorted(table, key=float):
            row = table[key]
            best = int(np.argmax(row))
            rows.append(
                [fmt(float(key), 4)]
                + [fmt(v, 4) for v in row]
                + [
                    c_label(GRID[best]),
                    ", ".join(
                        c_label(GRID[i])
                        for i, v in enumerate(row)
                        if v >= max(row) - TOLERANCE - 1e-12
                    ),
                ]
            )
        print_table(
            f"0. True CV score (mean 5-fold CV accuracy of the private LR, "
            f"{seeds[data_name]} seeds), {data_name}",
            ["ε", *(f"C={c_label(c)}" for c in GRID), "best C", "C within 0.03"],
            rows,
            align="r" * (len(GRID) + 3),
        )
    if proto_check:
        print(
            "\nReference cells recomputed against an earlier table "
            + "; ".join(
                f"{d}: {v['cells']} common cells, max |diff| {v['max_abs_diff']:.2e}"
                for d, v in proto_check.items()
            )
        )


def report_spread(table: dict, spread: dict) -> None:
    rows = []
    for eps in TARGET_EPS_C:
        key = eps_key(eps)
        for i, C in enumerate(GRID):
            rows.append(
                [
                    fmt(eps),
                    c_label(C),
                    fmt(table[key][i], 4),
                    fmt(spread[key]["sd"][i], 4),
                    fmt(spread[key]["p10"][i], 4),
                    fmt(spread[key]["p90"][i], 4),
                    fmt(spread[key]["share_above_best_mean"][i], 3),
                ]
            )
    print_table(
        "0b. Single fits behind the true CV score, synth, target ε_c (one fit on 4/5 of the rows, "
        "scored on the other 1/5)",
        [
            "ε",
            "C",
            "true CV score (mean)",
            "sd of single fits",
            "10th pct",
            "90th pct",
            "share of fits above the best C's mean",
        ],
        rows,
    )


def compare_with_cache(tables: dict, seeds: dict, cache_dir: Path | None) -> dict:
    """Compare with an earlier reference table of the same protocol, where one exists."""
    import json

    out = {}
    if cache_dir is None:
        return out
    for data_name, table in tables.items():
        path = cache_dir / f"reference_{data_name}.json"
        if not path.exists():
            continue
        old = json.loads(path.read_text())
        if tuple(old.get("grid", ())) != GRID or old.get("r_ref") != seeds[data_name]:
            continue
        common = sorted(set(old["table"]) & set(table))
        diffs = [abs(a - b) for k in common for a, b in zip(old["table"][k], table[k])]
        out[data_name] = {
            "path": str(path),
            "cells": len(common),
            "max_abs_diff": max(diffs) if diffs else math.nan,
        }
    return out
