"""Aggregation, tables and the plot of ``bench_dpsmote_baselines.py``.

Per (set, ε, method) the mean over the folds; then the mean over sets with
the standard error over sets, and paired differences (P − A, P − B, auto − A,
…) with their standard errors; the target checks of P and of auto, tables by
dimension and per set, the ``--variants`` table. Numbers come from
:func:`_dpsmote_baselines_methods.run_cell`.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt_pm, mean_se_n, print_table  # noqa: E402
from _dpsmote_baselines_data import (  # noqa: E402
    AUC_MARGIN,
    AUTO_B_MARGIN,
    CORE_SETS,
    DIM_GROUPS,
    GMEAN_MARGIN,
    MAIN,
    METHOD_NAMES,
    METHODS,
    TOTAL_FACTOR,
    VARIANT_NAMES,
)


# -- aggregation -------------------------------------------------------------------------
def cell_mean(results, name, eps, method, metric):
    rec = results[name][eps][method]
    return float(np.mean(rec[metric])) if rec["error"] is None and rec[metric] else math.nan


def mean_se(values):
    """Mean, standard error and count of the non-nan values."""
    return mean_se_n(values)


def pm(mean, se, digits=3):
    return fmt_pm(mean, se, digits)


def summarise(results, sets, eps, methods=METHODS, base="P"):
    """Mean ± SE over ``sets`` per method, and paired ``base`` − other differences."""
    s = {}
    for m in methods:
        for metric in ("auc", "gmean"):
            s[(m, metric)] = mean_se([cell_mean(results, n, eps, m, metric) for n in sets])
    present = results[sets[0]][eps] if sets else {}
    for other in [m for m in present if m != base]:
        for metric in ("auc", "gmean"):
            diffs = [
                cell_mean(results, n, eps, base, metric) - cell_mean(results, n, eps, other, metric)
                for n in sets
            ]
            s[(base + "-" + other, metric)] = mean_se(diffs)
    return s


def target_row(s, base="P", b_margin=0.0):
    """``base``'s targets: G-mean ≥ A + 0.03 and ≥ B − ``b_margin``; ROC-AUC ≥ A − 0.02."""
    pa_g, pb_g = s[(base + "-A", "gmean")][0], s[(base + "-B", "gmean")][0]
    pa_auc = s[(base + "-A", "auc")][0]
    return (pa_g >= GMEAN_MARGIN - 1e-12, pb_g >= -b_margin - 1e-12, pa_auc >= -AUC_MARGIN - 1e-12)


def mark(ok):
    return "✓" if ok else "✗"


def complete_sets(results, sets, eps_list, methods):
    """Sets on which every method ran at every ε."""
    return [
        n for n in sets if all(results[n][e][m]["error"] is None for e in eps_list for m in methods)
    ]


# -- plot --------------------------------------------------------------------------------
def plot(results, sets, eps_list, path, c_label):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.8), sharex=True)
    colours = {"A": "tab:grey", "B": "tab:blue", "P": "tab:red", "auto": "black", "P½": "tab:green"}
    for ax, metric, label in ((axes[0], "auc", "ROC-AUC"), (axes[1], "gmean", "G-mean")):
        for m in MAIN:
            stats = [summarise(results, sets, e, (m,))[(m, metric)] for e in eps_list]
            mean = np.array([s[0] for s in stats])
            se = np.array([s[1] for s in stats])
            ax.plot(eps_list, mean, "o-", color=colours[m], label=METHOD_NAMES[m])
            ax.fill_between(eps_list, mean - se, mean + se, color=colours[m], alpha=0.2)
        ax.set_xscale("log")
        ax.set_xticks(eps_list)
        ax.set_xticklabels([f"{e:g}" for e in eps_list])
        ax.set_xlabel("total ε (replace-one neighbours)")
        ax.set_ylabel(f"{label}, mean over {len(sets)} sets (± SE)")
        ax.grid(alpha=0.3)
    # below the panels: inside, it would hide the points at small ε
    fig.legend(*axes[1].get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=2)
    fig.suptitle(
        f"Private pipelines on imbalanced sets, 2×5-fold CV; dpLR = {c_label}", fontsize=10
    )
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


# -- report ------------------------------------------------------------------------------
def report(results, info, sets_all, eps_list, args):
    """Print every table; return the numbers for the JSON."""
    complete = complete_sets(results, sets_all, eps_list, METHODS)
    abp = complete_sets(results, sets_all, eps_list, ("A", "B", "P", "auto"))
    missing = sorted(set(sets_all) - set(complete))
    tables = {}

    rows = []
    for e in eps_list:
        s = summarise(results, complete, e)
        for m in METHODS:
            rows.append(
                [
                    f"{e:g}",
                    METHOD_NAMES[m],
                    f"{TOTAL_FACTOR[m] * e:g}",
                    pm(*s[(m, "auc")][:2]),
                    pm(*s[(m, "gmean")][:2]),
                ]
            )
    tables["main"] = print_table(
        f"Mean over {len(complete)} sets (± standard error over sets), 2×5-fold CV",
        ["ε", "method", "total ε (replace)", "ROC-AUC", "G-mean"],
        rows,
        align="lllrr",
    )

    check, check_auto = {}, {}
    core = [n for n in CORE_SETS if n in abp]
    groups = [
        (f"{len(complete)} sets, all methods", complete),
        (f"{len(abp)} sets on which A, B, P, auto ran (incl. d ≥ 200)", abp),
        (f"the issue's first {len(core)} sets", core),
    ]
    seen = []
    for label, sets in groups:
        if not sets or sets in seen:
            continue
        seen.append(sets)
        rows = []
        for e in eps_list:
            s = summarise(results, sets, e, ("A", "B", "P"))
            ok = target_row(s)
            rows.append(
                [
                    f"{e:g}",
                    pm(*s[("P-A", "gmean")][:2]),
                    mark(ok[0]),
                    pm(*s[("P-B", "gmean")][:2]),
                    mark(ok[1]),
                    pm(*s[("P-A", "auc")][:2]),
                    mark(ok[2]),
                ]
            )
            check.setdefault(label, {})[f"{e:g}"] = {
                "P-A_gmean": s[("P-A", "gmean")][:2],
                "P-B_gmean": s[("P-B", "gmean")][:2],
                "P-A_auc": s[("P-A", "auc")][:2],
                "P-B_auc": s[("P-B", "auc")][:2],
                "gmean_ge_A_plus_0.03": ok[0],
                "gmean_ge_B": ok[1],
                "auc_ge_A_minus_0.02": ok[2],
            }
        tables["check " + label] = print_table(
            f"Target check, paired differences over {label} (mean ± SE over sets)",
            ["ε", "G-mean P − A", "≥ +0.03", "G-mean P − B", "≥ 0", "ROC-AUC P − A", "≥ −0.02"],
            rows,
            align="lrcrcrc",
        )
        rows = []
        for e in eps_list:
            s = summarise(results, sets, e, ("A", "B", "P", "auto"), base="auto")
            ok = target_row(s, "auto", AUTO_B_MARGIN)
            picks = sum(_picks_oversample(e, info[n]["d"], info[n]["n"]) for n in sets)
            rows.append(
                [
                    f"{e:g}",
                    f"P {picks}, B {len(sets) - picks}",
                    pm(*s[("auto", "gmean")][:2]),
                    pm(*s[("auto-A", "gmean")][:2]),
                    mark(ok[0]),
                    pm(*s[("auto-B", "gmean")][:2]),
                    mark(ok[1]),
                    pm(*s[("auto-A", "auc")][:2]),
                    mark(ok[2]),
                    pm(*s[("auto-P", "gmean")][:2]),
                ]
            )
            check_auto.setdefault(label, {})[f"{e:g}"] = {
                "picks_oversample": picks,
                "auto_gmean": s[("auto", "gmean")][:2],
                "auto_auc": s[("auto", "auc")][:2],
                "auto-A_gmean": s[("auto-A", "gmean")][:2],
                "auto-B_gmean": s[("auto-B", "gmean")][:2],
                "auto-A_auc": s[("auto-A", "auc")][:2],
                "auto-P_gmean": s[("auto-P", "gmean")][:2],
                "gmean_ge_A_plus_0.03": ok[0],
                "gmean_ge_B_minus_0.02": ok[1],
                "auc_ge_A_minus_0.02": ok[2],
            }
        tables["check_auto " + label] = print_table(
            f"Target check of the default (auto), paired over {label} (mean ± SE over sets)",
            [
                "ε",
                "auto picks",
                "G-mean auto",
                "G auto − A",
                "≥ +0.03",
                "G auto − B",
                "≥ −0.02",
                "AUC auto − A",
                "≥ −0.02",
                "G auto − P",
            ],
            rows,
            align="llrrcrcrcr",
        )

    rows = []
    for e in eps_list:
        s = summarise(results, complete, e)
        rows.append(
            [
                f"{e:g}",
                pm(*s[("P-P½", "auc")][:2]),
                pm(*s[("P-P½", "gmean")][:2]),
                pm(*s[("P-B", "auc")][:2]),
            ]
        )
    tables["p_vs_thesis"] = print_table(
        f"P against P½ and B, paired over {len(complete)} sets (mean ± SE)",
        ["ε", "ROC-AUC P − P½", "G-mean P − P½", "ROC-AUC P − B"],
        rows,
        align="lrrr",
    )

    rows = []
    for gname, dlo, dhi in DIM_GROUPS:
        group = [n for n in sets_all if dlo <= info[n]["d"] <= dhi]
        if not group:
            continue
        for e in eps_list:
            s = summarise(results, group, e)
            rows.append(
                [gname, str(len(group)), f"{e:g}"]
                + [pm(*s[(m, "auc")][:2], digits=2) for m in MAIN]
                + [pm(*s[(m, "gmean")][:2], digits=2) for m in MAIN]
                + [pm(*s[("P-B", "gmean")][:2], digits=2)]
            )
    tables["by_dimension"] = print_table(
        "By dimension (mean ± SE over the sets of each group; '–': the method failed there)",
        ["d", "sets", "ε"] + [f"AUC {m}" for m in MAIN] + [f"G {m}" for m in MAIN] + ["G P − B"],
        rows,
        align="lll" + "r" * (2 * len(MAIN) + 1),
    )

    for e in (1.0, 5.0):
        if e not in eps_list:
            continue
        rows = []
        for n in sets_all:
            rows.append(
                [n, str(info[n]["d"]), str(info[n]["n"]), str(info[n]["n_minority"])]
                + [_cell(results, n, e, m, "auc") for m in MAIN]
                + [_cell(results, n, e, m, "gmean") for m in MAIN]
            )
        tables[f"per_set_{e:g}"] = print_table(
            f"Per set at ε = {e:g} (mean over the folds)",
            ["set", "d", "n", "minority"] + [f"AUC {m}" for m in MAIN] + [f"G {m}" for m in MAIN],
            rows,
            align="lrrr" + "r" * (2 * len(MAIN)),
        )

    if missing:
        print("\nmethods that failed (excluded from the means of the first table):")
        for n in missing:
            for m in METHODS:
                err = results[n][eps_list[0]][m]["error"]
                if err:
                    print(f"  {n} (d={info[n]['d']}), {m}: {err[:160]}")
    warn_rows = []
    for m in ("P", "auto", "P½", "T"):
        fits = sum(len(results[n][e][m]["auc"]) for n in sets_all for e in eps_list)
        warned = sum(results[n][e][m]["noise_warnings"] for n in sets_all for e in eps_list)
        secs = sum(sum(results[n][e][m]["seconds"]) for n in sets_all for e in eps_list)
        warn_rows.append([METHOD_NAMES[m], str(fits), str(warned), f"{secs:.0f}"])
    tables["warnings"] = print_table(
        "DPSMOTENoiseWarnings raised (all sets and ε)",
        ["method", "fits", "DPSMOTENoiseWarnings", "fit+predict s (sum)"],
        warn_rows,
        align="lrrr",
    )
    return {
        "complete_sets": complete,
        "abp_sets": abp,
        "target_check": check,
        "target_check_auto": check_auto,
        "tables": tables,
    }


def _picks_oversample(epsilon: float, d: int, n: int) -> bool:
    """Whether "auto" oversamples on a training fold of 4/5 of n rows (5-fold CV)."""
    from skdp_anomaly.imbalanced import resolve_imbalanced_strategy

    return resolve_imbalanced_strategy(epsilon, d, n - math.ceil(n / 5)) == "oversample"


def report_variants(results, sets, eps_list, methods):
    """Probes around P: mean ± SE over sets and paired differences to P."""
    rows, out = [], {}
    for e in eps_list:
        s = summarise(results, sets, e, methods)
        for m in methods:
            diff_g = "" if m == "P" else pm(*s[("P-" + m, "gmean")][:2])
            diff_a = "" if m == "P" else pm(*s[("P-" + m, "auc")][:2])
            rows.append(
                [
                    f"{e:g}",
                    m,
                    VARIANT_NAMES.get(m, METHOD_NAMES.get(m, m)),
                    pm(*s[(m, "auc")][:2]),
                    pm(*s[(m, "gmean")][:2]),
                    diff_a,
                    diff_g,
                ]
            )
            out.setdefault(f"{e:g}", {})[m] = {
                "auc": s[(m, "auc")][:2],
                "gmean": s[(m, "gmean")][:2],
            }
    table = print_table(
        f"Probes around P, mean over {len(sets)} sets (± SE); differences P − probe, paired",
        ["ε", "method", "what", "ROC-AUC", "G-mean", "ROC-AUC P − it", "G-mean P − it"],
        rows,
        align="lllrrrr",
    )
    return {"variants": out, "tables": {"variants": table}, "complete_sets": sets}


def _compact(cell):
    """Per-fold metrics rounded for the JSON; fit times summed."""
    return {
        m: {
            "auc": [round(v, 4) for v in r["auc"]],
            "gmean": [round(v, 4) for v in r["gmean"]],
            "seconds": round(sum(r["seconds"]), 3),
            "noise_warnings": r["noise_warnings"],
            "error": r["error"],
        }
        for m, r in cell.items()
    }


def _cell(results, name, eps, method, metric):
    rec = results[name][eps][method]
    if rec["error"] is not None:
        return "fails"
    return f"{np.mean(rec[metric]):.2f}"
