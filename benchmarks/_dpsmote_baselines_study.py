"""``--study-report`` of ``bench_dpsmote_baselines.py``: the choice of the "auto" rule.

Reads ``dpsmote_baselines_study_choose.json`` and ``..._held_out.json`` (the
``--study choose`` / ``--study held_out`` runs: A, B, P on the two groups of
:func:`_dpsmote_baselines_data.study_split`) and the default run's
``dpsmote_baselines.json`` from ``results/``; scores rules of the form
"oversample iff q < t" on the choose group by their worst margin to the three
targets, checks the package's rule (``resolve_imbalanced_strategy``) on every
group, and writes ``dpsmote_baselines_study.json``. No fits.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, print_table, write_json  # noqa: E402
from _dpsmote_baselines_data import (  # noqa: E402
    AUC_MARGIN,
    AUTO_B_MARGIN,
    GMEAN_MARGIN,
    load,
    load_numeric,
)
from _dpsmote_baselines_report import complete_sets, mark, mean_se, pm  # noqa: E402

# -- the study of the "auto" rule (--study) -------------------------------------------------
# Rules scored on the choose group, all of the form "oversample iff q < t", by the worst
# margin to the three targets over every ε (written down before the held-out group was read)
STUDY_RULES = {
    "ε·n/d": lambda e, d, n: e * n / d,
    "ε/√d": lambda e, d, n: e / math.sqrt(d),
    "ε·√n/d": lambda e, d, n: e * math.sqrt(n) / d,
    "ε": lambda e, d, n: e,
}
STUDY_THRESHOLDS = {
    "ε·n/d": (8, 12, 16, 20, 24, 32, 40),
    "ε/√d": (0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.5, 0.7, 1.0),
    "ε·√n/d": (1, 2, 4, 8, 16),
    "ε": (0.5, 1.0, 2.0),
}


def _train_sizes(name: str, n_repeats: int, loader=load_numeric) -> list:
    """The training rows of each fold of run_cell's CV (public shapes, for the rule)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    _, y = loader(name)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=0)
    return [len(train) for train, _ in cv.split(np.zeros((len(y), 1)), y)]


def _the_rule(e, d, n) -> bool:
    """resolve_imbalanced_strategy itself: "auto" as DPImbalancedClassifier resolves it."""
    from skdp_anomaly.imbalanced import resolve_imbalanced_strategy

    return resolve_imbalanced_strategy(e, d, n) == "oversample"


def _below(q, t):
    return lambda e, d, n: STUDY_RULES[q](e, d, n) < t


def _rule_scores(res, sizes, oversamples):
    """Per ε: paired auto − A, auto − B G-mean and auto − A ROC-AUC (mean, SE), and picks."""
    out = {}
    for e in res["epsilons"]:
        key, diffs, picks = f"{e:g}", {"G-A": [], "G-B": [], "AUC-A": []}, 0
        for name in res["complete_sets"]:
            cell, d = res["per_fold"][name][key], res["sets"][name]["d"]
            over = [oversamples(e, d, n) for n in sizes[name]]
            picks += sum(over) / len(over)
            g = [cell["P" if o else "B"]["gmean"][i] for i, o in enumerate(over)]
            a = [cell["P" if o else "B"]["auc"][i] for i, o in enumerate(over)]
            diffs["G-A"].append(np.mean(g) - np.mean(cell["A"]["gmean"]))
            diffs["G-B"].append(np.mean(g) - np.mean(cell["B"]["gmean"]))
            diffs["AUC-A"].append(np.mean(a) - np.mean(cell["A"]["auc"]))
        out[key] = {k: mean_se(v)[:2] for k, v in diffs.items()}
        out[key]["picks_oversample"] = round(picks, 1)
    return out


def _worst_margin(scores):
    return min(
        min(s["G-A"][0] - GMEAN_MARGIN, s["G-B"][0] + AUTO_B_MARGIN, s["AUC-A"][0] + AUC_MARGIN)
        for s in scores.values()
    )


def study_report():
    """Score the rules on the choose group; check the chosen one on the held-out group."""
    groups = {}
    for group in ("choose", "held_out"):
        path = RESULTS_DIR / f"dpsmote_baselines_study_{group}.json"
        if path.exists():
            import json

            res = json.loads(path.read_text())
            groups[group] = (
                res,
                {n: _train_sizes(n, res["repeats"]) for n in res["complete_sets"]},
            )
    tables, out = {}, {}
    if "choose" in groups:
        res, sizes = groups["choose"]
        rows = [
            [label, f"{_worst_margin(_rule_scores(res, sizes, _below('ε', t))):+.3f}"]
            for label, t in (("never (always threshold)", 0), ("always oversample", math.inf))
        ]
        for q in STUDY_RULES:
            for t in STUDY_THRESHOLDS[q]:
                rows.append(
                    [
                        f"oversample iff {q} < {t:g}",
                        f"{_worst_margin(_rule_scores(res, sizes, _below(q, t))):+.3f}",
                    ]
                )
        tables["rules"] = print_table(
            f"Rules on the choose group ({len(res['complete_sets'])} sets): worst margin to the "
            "three targets over every ε (≥ 0: all met)",
            ["rule", "worst margin"],
            rows,
            align="lr",
        )
    reference = RESULTS_DIR / "dpsmote_baselines.json"
    if reference.exists():  # the 15 sets of the default run, read before the study
        import json

        res = json.loads(reference.read_text())
        res["complete_sets"] = complete_sets(
            {n: {float(e): c for e, c in r.items()} for n, r in res["per_fold"].items()},
            list(res["per_fold"]),
            res["epsilons"],
            ("A", "B", "P"),
        )
        groups["default run (not held out)"] = (
            res,
            {n: _train_sizes(n, res["repeats"], load) for n in res["complete_sets"]},
        )
    for group, (res, sizes) in groups.items():
        for label, oversamples in (
            ("auto (the rule)", _the_rule),
            ("always threshold", _below("ε", 0)),
            ("always oversample", _below("ε", math.inf)),
        ):
            scores = _rule_scores(res, sizes, oversamples)
            out.setdefault(group, {})[label] = scores
            rows = []
            for e, sc in scores.items():
                mean = {
                    m: np.mean(
                        [np.mean(res["per_fold"][n][e][m]["gmean"]) for n in res["complete_sets"]]
                    )
                    for m in ("A", "B")
                }
                auc_a = np.mean(
                    [np.mean(res["per_fold"][n][e]["A"]["auc"]) for n in res["complete_sets"]]
                )
                rows.append(
                    [
                        e,
                        f"{mean['A']:.3f}",
                        f"{mean['B']:.3f}",
                        pm(*sc["G-A"]) + " " + mark(sc["G-A"][0] >= GMEAN_MARGIN),
                        pm(*sc["G-B"]) + " " + mark(sc["G-B"][0] >= -AUTO_B_MARGIN),
                        f"{auc_a:.3f}",
                        pm(*sc["AUC-A"]) + " " + mark(sc["AUC-A"][0] >= -AUC_MARGIN),
                        f"{sc['picks_oversample']:g}",
                    ]
                )
            tables[f"{group} {label}"] = print_table(
                f"{group} group ({len(res['complete_sets'])} sets), {label}: paired "
                "differences, mean ± SE over sets",
                [
                    "ε",
                    "G A",
                    "G B",
                    "G − A (≥ +0.03)",
                    "G − B (≥ −0.02)",
                    "AUC A",
                    "AUC − A (≥ −0.02)",
                    "sets oversampled",
                ],
                rows,
                align="lrrrrrrr",
            )
    write_json(
        "dpsmote_baselines_study",
        {
            "rule": "oversample iff epsilon * n_train / d < 16 and d <= 50 "
            "(resolve_imbalanced_strategy)",
            "scores": out,
            "tables": tables,
        },
    )
