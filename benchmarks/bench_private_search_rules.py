"""PrivateGridSearchCV vs scikit-learn's GridSearchCV: quality of the private choice, budget, time.

Candidates: ``PrivateLogisticRegression(epsilon=ε_c, data_norm=1, C=C)``
(this package's objective perturbation, its defaults otherwise: rows
projected to ``clip_norm = data_norm/2``, a regularised intercept), with
C ∈ {0.01, 0.1, 1, 10, "auto"}; ``"auto"`` is the public rule
:func:`~skdp_anomaly.linear_model.default_C` of ε and d (about 0.36·ε² here),
a candidate whose value moves with ε. Data (rows projected into the unit
ball with a public slice's statistics, so ``data_norm=1`` is a true bound):

* synth: ``make_classification(6500, 10, n_informative=5, n_redundant=2,
  n_clusters_per_class=1, flip_y=0.05, random_state=0)``; 500 public rows
  (scaling only), 4 000 private rows, 2 000 test rows;
* cancer: scikit-learn's breast cancer set (569 × 30), shuffled with a fixed
  seed; 69 public rows, 400 private rows, 100 test rows.

Scaling: standardise with the public slice, divide by the 95th percentile of
its row norms, project every row into the unit ball.

**True CV score** of a configuration (C, ε): mean 5-fold CV accuracy of the
*private* LR at ε on the private rows over ``--ref-seeds`` seeds (fresh
``KFold`` shuffle and fresh noise per seed), computed once per run of this
script. A choice is **within 0.03** when the chosen C's true score is at
least the best C's true score (at the same ε) minus 0.03; both are public
functions of the reference table, nothing is tuned to the outcome.

Sections (one run prints every table):

1. **Target** (synth): ``PrivateGridSearchCV(..., epsilon=1.0)`` with the
   default ``selection="repeated"`` at ε_c = 0.5 (η = 1, Liu and Talwar's
   random stopping) and ε_c = 1 (η = 0); the other rules at the same
   selection ε and ε_c; the anchor is scikit-learn's
   ``GridSearchCV(same LR, grid, cv=KFold(5))`` (non-private choice), fitted
   in the same run on the same data. Criteria: (a) chosen C within 0.03 of
   the best C's true score and of the true score of GridSearchCV's pick, in
   ≥ 80 % of runs; (b) ``check_privacy_budget(search)`` has no leak;
   (c) wall time of ``fit`` / wall time of ``GridSearchCV.fit`` (refit=True),
   fitted in alternation (rotating order) in the same run: median, mean and
   90th percentile of the per-run ratio, each checked against 1.2×.
2. **Equal total ε** T ∈ {2, 5, 10} on synth and cancer: each rule spends the
   same total (priced by ``check_privacy_budget`` and asserted): repeated with
   ``epsilon = 2·ε_c`` (Liu–Talwar) releasing the winning run's model
   (ε_c = T/3) or refitting it (ε_c = T/4); holdout- and cv-noisy-max with
   the selection given one fit's share (``epsilon = ε_c``; with G = 5
   candidates and 4 training folds per record, ε_c = T/(G+1) = T/6 and
   T/(4G+1) = T/21); no search: one fit with ``C="auto"`` at ε = T on all
   private rows; anchor: GridSearchCV with the LR at ε = T (its real cost is
   21·T plus a non-private choice). Test accuracy of the final model and the
   fraction within 0.03 at the final model's ε.

Seeds: a run is deterministic. The private searches get an int
``random_state`` and candidates with ``random_state=0``, which the search
replaces fit by fit with seeds of its own stream (fresh noise per fit). The
anchor's candidates share one seeded ``RandomState`` that ``clone`` does not
copy (:class:`SharedStream`), so every fit inside ``GridSearchCV`` draws fresh
noise too (an int would give every fit of a candidate the same noise).

Runs: 100 per target ε_c and 50 per (data, T) cell (``--runs``,
``--equal-runs``; the diffprivlib version of this script ran 200 and 100,
halved so that a reference run takes about 25 minutes on a shared 2-core
machine; the Wilson intervals are wider accordingly).

Run from the repository root: ``nice python benchmarks/bench_private_search_rules.py``
(``--quick``: a smoke run under a minute: 4 target runs, 2 equal-total runs
at T = 2, 2 reference seeds). The reference files
``bench_private_search_rules.{md,json}`` are written only at default settings;
otherwise ``bench_private_search_rules_quick.*`` / ``..._custom.*``.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
import time
import warnings
from contextlib import redirect_stdout
from pathlib import Path

# one BLAS thread: on a loaded machine a threaded OpenBLAS makes these tiny fits ~15× slower
# (both sides of every comparison use the same BLAS)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (RESULTS_DIR, Tee, fmt, print_table, source_fingerprint, to_unit_ball,  # noqa: E402
                     write_json)

from sklearn.datasets import load_breast_cancer, make_classification  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold  # noqa: E402

from skdp_anomaly import PrivateLogisticRegression, check_privacy_budget  # noqa: E402
from skdp_anomaly.model_selection import PrivateGridSearchCV  # noqa: E402

NAME = "bench_private_search_rules"
GRID = (0.01, 0.1, 1.0, 10.0, "auto")
N_FOLDS = 5  # KFold(5): a record is in N_FOLDS - 1 training parts
TOLERANCE = 0.03  # "within 0.03" of the best true CV score
TARGET_FRACTION = 0.80
TARGET_TIME_RATIO = 1.2
SELECTION_EPSILON = 1.0  # the target's selection ε
TARGET_EPS_C = (0.5, 1.0)  # η = 1 (Liu–Talwar) and η = 0
TOTALS = (2.0, 5.0, 10.0)
DATASETS = ("synth", "cancer")
REF_SEEDS = {"synth": 10, "cancer": 20}
# runs per target ε_c and per equal-total cell: 100 and 50 (200 and 100 before the port) keep a
# reference run near 25 minutes on a shared 2-core machine
RUNS, EQUAL_RUNS = 100, 50
RULES = ("repeated", "holdout-noisy-max", "cv-noisy-max")
# equal total ε: (label, selection, refit, ε_c = T / divisor, selection ε = factor · ε_c)
EQUAL_TOTAL = (
    ("repeated (winner released)", "repeated", False, 3, 2.0),
    ("repeated + refit", "repeated", True, 4, 2.0),
    ("holdout-noisy-max", "holdout-noisy-max", False, len(GRID) + 1, 1.0),
    ("cv-noisy-max", "cv-noisy-max", False, (N_FOLDS - 1) * len(GRID) + 1, 1.0),
)
ANCHOR = "GridSearchCV"
NO_SEARCH = "no search, C=\"auto\" (ε = T)"


def c_label(C) -> str:
    return C if isinstance(C, str) else f"{C:g}"


CHOSEN_HEADER = "C = " + " / ".join(c_label(C) for C in GRID) + " chosen"


# ------------------------------------------------------------------ data
def load(name: str):
    """``X_private, y_private, X_test, y_test``, every row in the unit ball."""
    if name == "synth":
        X, y = make_classification(n_samples=6500, n_features=10, n_informative=5,
                                   n_redundant=2, n_clusters_per_class=1, flip_y=0.05,
                                   random_state=0)
        pub, Xp, yp, Xt, yt = X[:500], X[500:4500], y[500:4500], X[4500:], y[4500:]
    else:
        X, y = load_breast_cancer(return_X_y=True)
        p = np.random.default_rng(12345).permutation(len(y))
        X, y = X[p], y[p]
        pub, Xp, yp, Xt, yt = X[:69], X[69:469], y[69:469], X[469:], y[469:]
    return to_unit_ball(Xp, pub), yp, to_unit_ball(Xt, pub), yt


def eps_key(eps: float) -> str:
    return repr(round(float(eps), 10))


def lr(eps: float, C=1.0, random_state=0) -> PrivateLogisticRegression:
    return PrivateLogisticRegression(epsilon=float(eps), data_norm=1.0, C=C,
                                     random_state=random_state)


class SharedStream(np.random.RandomState):
    """A seeded ``RandomState`` that ``clone`` (a deep copy) passes on as itself.

    Benchmark-only: every clone of the anchor's candidate draws its fit's seed
    from this one stream, so each fit inside ``GridSearchCV`` gets fresh,
    reproducible noise.
    """

    def __deepcopy__(self, memo):
        return self


def _setup() -> None:
    """Silence warnings (the scripts' tables carry what matters)."""
    warnings.filterwarnings("ignore")


# ------------------------------------------------------------------ reference
def reference_cell(data: str, eps: float, n_seeds: int):
    """True CV score of every C at ``eps``: mean 5-fold CV accuracy over ``n_seeds`` seeds."""
    _setup()
    cpu0 = time.process_time()
    X, y, _, _ = load(data)
    eps = round(float(eps), 10)
    rng = np.random.default_rng(int(eps * 1e6))
    singles = []
    for C in GRID:
        accs = []
        for s in range(n_seeds):
            for train, test in KFold(N_FOLDS, shuffle=True, random_state=s).split(X):
                model = lr(eps, C, int(rng.integers(2**31 - 1))).fit(X[train], y[train])
                accs.append(float(np.mean(model.predict(X[test]) == y[test])))
        singles.append(np.asarray(accs))
    row = [float(a.mean()) for a in singles]
    # the spread of single fits: a best-of-K choice over noisy fits favours wide candidates
    spread = {"sd": [float(a.std(ddof=1)) for a in singles],
              "p10": [float(np.percentile(a, 10)) for a in singles],
              "p90": [float(np.percentile(a, 90)) for a in singles],
              "share_above_best_mean": [float(np.mean(a > max(row))) for a in singles]}
    return data, eps_key(eps), row, time.process_time() - cpu0, spread


def within(table: dict, eps: float, chosen: int, against: int | None = None) -> bool:
    """Chosen C's true score ≥ (best C's, or ``against``'s, true score) − 0.03."""
    row = table[eps_key(eps)]
    ref = max(row) if against is None else row[against]
    return row[chosen] >= ref - TOLERANCE - 1e-12


def regret(table: dict, eps: float, chosen: int) -> float:
    row = table[eps_key(eps)]
    return max(row) - row[chosen]


# ------------------------------------------------------------------ searches
def private_search(eps_c: float, selection: str, sel_eps: float, refit: bool, seed: int):
    """The candidates' int random_state is replaced fit by fit from the search's stream."""
    return PrivateGridSearchCV(lr(eps_c), {"C": list(GRID)}, epsilon=sel_eps,
                               selection=selection, refit=refit, random_state=seed)


def anchor_search(eps_c: float, noise_seed: int):
    return GridSearchCV(lr(eps_c, random_state=SharedStream(noise_seed)), {"C": list(GRID)},
                        cv=KFold(N_FOLDS))


def timed_fit(search, X, y):
    t0 = time.perf_counter()
    search.fit(X, y)
    return time.perf_counter() - t0


def budget_row(search) -> dict:
    report = check_privacy_budget(search, on_leak="ignore")
    return {"epsilon": float(report.epsilon), "delta": float(report.delta),
            "notion": report.notion, "leaks": list(report.leaks),
            "is_private": bool(report.is_private)}


# ------------------------------------------------------------------ section 1
def target_configs(eps_c: float):
    """(name, factory(seed)) in the order of the first run; rotated run by run."""
    configs = [(ANCHOR, lambda seed, noise: anchor_search(eps_c, noise))]
    for rule in RULES:
        configs.append((f"{rule}, refit=True",
                        lambda seed, noise, r=rule: private_search(eps_c, r, SELECTION_EPSILON,
                                                                   True, seed)))
    configs.append(("repeated, refit=False",
                    lambda seed, noise: private_search(eps_c, "repeated", SELECTION_EPSILON,
                                                       False, seed)))
    return configs


def run_target(eps_c: float, n_runs: int, data):
    X, y, Xt, yt = data
    configs = target_configs(eps_c)
    records = {name: {"choice": [], "test": [], "time": [], "spent": []} for name, _ in configs}
    for r in range(n_runs):
        seeds = np.random.SeedSequence([1, int(eps_c * 1000), r]).generate_state(2)
        search_seed, noise_seed = int(seeds[0]), int(seeds[1])
        shift = r % len(configs)
        for name, factory in configs[shift:] + configs[:shift]:
            search = factory(search_seed, noise_seed)
            dt = timed_fit(search, X, y)
            rec = records[name]
            rec["choice"].append(GRID.index(search.best_params_["C"]))
            rec["test"].append(float(search.score(Xt, yt)))
            rec["time"].append(dt)
            if name != ANCHOR:
                rec["spent"].append(float(search.privacy_spent_.epsilon))
        if (r + 1) % 25 == 0:
            print(f"  target ε_c={eps_c:g}: {r + 1}/{n_runs} runs", file=sys.stderr, flush=True)
    budgets = {name: budget_row(factory(0, 0)) for name, factory in configs}
    return records, budgets


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
            meets = (p_best >= TARGET_FRACTION and p_anchor >= TARGET_FRACTION)
            summary["quality"].append({
                "eps_c": eps_c, "config": name, "runs": len(ch), "total_epsilon": total,
                "choice_counts": np.bincount(np.asarray(ch, int), minlength=len(GRID)),
                "within_best": p_best, "within_best_wilson_low": lo_best,
                "within_anchor_pick": p_anchor, "within_anchor_pick_wilson_low": lo_anchor,
                "mean_regret": float(np.mean([regret(table, eps_c, c) for c in ch])),
                "test_accuracy": mean_se(rec["test"]),
                "test_within_anchor_test": frac_ci(test_ok)[0],
                "target_met": bool(meets) if is_target else None})
            rows_q.append([fmt(eps_c), name, fmt(total, 3), str(len(ch)), choice_counts(ch),
                           fmt_frac(best), fmt_frac(vs_anchor),
                           fmt(float(np.mean([regret(table, eps_c, c) for c in ch])), 4),
                           fmt_mean_se(rec["test"]), fmt_frac(test_ok),
                           ("yes" if meets else "no") if is_target else "—"])
            if name in budgets:
                b = budgets[name]
                spent = sorted({round(s, 10) for s in rec["spent"]})
                total_text = ("not bounded (leak)" if b["leaks"] else fmt(b["epsilon"], 3))
                rows_b.append([fmt(eps_c), name, total_text, fmt(b["delta"]), b["notion"],
                               "; ".join(b["leaks"]) or "none",
                               ", ".join(fmt(s, 3) for s in spent) or "–"])
                summary["budget"].append({"eps_c": eps_c, "config": name, **b,
                                          "privacy_spent_epsilons": spent})
            if name != ANCHOR:
                ratio = np.asarray(rec["time"]) / np.asarray(records[ANCHOR]["time"])
                med, mean, p90 = (float(np.median(ratio)), float(ratio.mean()),
                                  float(np.percentile(ratio, 90)))
                ok = [v <= TARGET_TIME_RATIO for v in (med, mean, p90)]
                rows_t.append([fmt(eps_c), name, str(ratio.size), fmt(med, 2), fmt(mean, 2),
                               fmt(p90, 2), fmt(float(ratio.max()), 2),
                               fmt(float(np.median(rec["time"]) /
                                         np.median(records[ANCHOR]["time"])), 2),
                               " / ".join("yes" if o else "no" for o in ok)])
                summary["time"].append({"eps_c": eps_c, "config": name, "pairs": int(ratio.size),
                                        "ratio_median": med, "ratio_mean": mean, "ratio_p90": p90,
                                        "ratio_max": float(ratio.max()),
                                        "median_within_target": ok[0], "mean_within_target": ok[1],
                                        "p90_within_target": ok[2]})
    print_table(
        "1a. Target, synth (4 000 private rows): quality of the choice "
        f"(selection ε = {SELECTION_EPSILON:g}; fraction [Wilson 95 %])",
        ["ε_c", "search", "total ε", "runs", CHOSEN_HEADER,
         "within 0.03 of best C", "within 0.03 of GridSearchCV's pick", "mean regret",
         "test acc (mean ± se)", "test acc ≥ GridSearchCV's − 0.03 (same run)",
         f"target ≥ {TARGET_FRACTION:.0%}"],
        rows_q, align="rlrrlllrlll")
    print_table(
        "1b. Target: check_privacy_budget(search) (parameters only) and privacy_spent_ after fit",
        ["ε_c", "search", "total ε", "δ", "notion", "leaks", "privacy_spent_ ε (all runs)"],
        rows_b, align="rlrrlll")
    print_table(
        "1c. Target: wall time of fit / GridSearchCV.fit (refit=True), paired runs in rotating "
        "order, same process",
        ["ε_c", "search", "pairs", "median ratio", "mean ratio", "p90 ratio", "max ratio",
         "ratio of medians", f"≤ {TARGET_TIME_RATIO:g}×: median / mean / p90"],
        rows_t, align="rlrrrrrrl")
    return summary


# ------------------------------------------------------------------ section 2
def equal_total_configs(total: float):
    """(label, ε of the final model, factory(seed, noise seed)) for every rule, the single fit
    without a search, then the anchor."""
    out = []
    for label, selection, refit, divisor, factor in EQUAL_TOTAL:
        eps_c = total / divisor
        out.append((label, eps_c, lambda seed, noise, s=selection, r=refit, e=eps_c, f=factor:
                    private_search(e, s, f * e, r, seed)))
    out.append((NO_SEARCH, total, lambda seed, noise: lr(total, "auto", noise)))
    out.append((f"{ANCHOR} (ε = T)", total, lambda seed, noise: anchor_search(total, noise)))
    return out


def _choice(model) -> int:
    """Index in GRID of the C a search chose (``"auto"`` for the single fit)."""
    params = getattr(model, "best_params_", None)
    return GRID.index(params["C"] if params is not None else model.C)


def run_equal_total(data_name: str, total: float, runs: range):
    """One chunk of runs of one (data, T) cell (a worker task)."""
    _setup()
    cpu0 = time.process_time()
    X, y, Xt, yt = load(data_name)
    configs = equal_total_configs(total)
    out = {label: {"choice": [], "test": [], "time": []} for label, _, _ in configs}
    for r in runs:
        seeds = np.random.SeedSequence([2, DATASETS.index(data_name), int(total * 10), r])
        search_seed, noise_seed = (int(s) for s in seeds.generate_state(2))
        shift = r % len(configs)
        for label, _, factory in configs[shift:] + configs[:shift]:
            search = factory(search_seed, noise_seed)
            dt = timed_fit(search, X, y)
            out[label]["choice"].append(_choice(search))
            out[label]["test"].append(float(search.score(Xt, yt)))
            out[label]["time"].append(dt)
    return data_name, total, out, time.process_time() - cpu0


def check_equal_totals(totals) -> dict:
    """The priced total of every rule (and of the single fit), asserted equal to T."""
    priced = {}
    for total in totals:
        for label, _, factory in equal_total_configs(total)[:-1]:
            b = budget_row(factory(0, 0))
            if b["leaks"] or abs(b["epsilon"] - total) > 1e-9:
                raise AssertionError(f"{label} at T={total}: priced {b}")
            priced[f"{total:g}/{label}"] = b["epsilon"]
    return priced


def report_equal_total(cells: dict, tables: dict) -> list:
    summary = []
    compact = {}
    for (data_name, total), out in sorted(cells.items(), key=lambda kv: (DATASETS.index(kv[0][0]),
                                                                         kv[0][1])):
        table = tables[data_name]
        rows = []
        anchor_label = f"{ANCHOR} (ε = T)"
        for label, eps_c, _ in equal_total_configs(total):
            rec = out[label]
            flags = [within(table, eps_c, c) for c in rec["choice"]]
            ratio = np.asarray(rec["time"]) / np.asarray(out[anchor_label]["time"])
            rows.append([label, fmt(eps_c, 4), fmt(eps_c, 4), str(len(flags)),
                         choice_counts(rec["choice"]), fmt_mean_se(rec["test"]), fmt_frac(flags),
                         fmt(float(np.mean([regret(table, eps_c, c) for c in rec["choice"]])), 4),
                         fmt(float(np.median(ratio)), 2)])
            summary.append({"data": data_name, "total_epsilon": total, "config": label,
                            "eps_c": eps_c, "final_epsilon": eps_c, "runs": len(flags),
                            "choice_counts": np.bincount(np.asarray(rec["choice"], int),
                                                         minlength=len(GRID)),
                            "test_accuracy": mean_se(rec["test"]),
                            "within_best_final": frac_ci(flags)[0],
                            "mean_regret": float(np.mean([regret(table, eps_c, c)
                                                          for c in rec["choice"]])),
                            "time_ratio_median": float(np.median(ratio))})
            compact.setdefault(label, {})[(data_name, total)] = (
                f"{mean_se(rec['test'])[0]:.3f} / {frac_ci(flags)[0]:.2f}")
        print_table(
            f"2. Equal total ε = {total:g}, {data_name}: final model's test accuracy and "
            "choice within 0.03 at its ε",
            ["search", "ε per candidate fit", "ε of final model", "runs",
             CHOSEN_HEADER, "test acc (mean ± se)",
             "within 0.03 of best (final ε) [Wilson 95 %]", "mean regret",
             "median time / GridSearchCV"],
            rows, align="lrrrllllr")
    keys = sorted({k for v in compact.values() for k in v},
                  key=lambda k: (DATASETS.index(k[0]), k[1]))
    print_table(
        "2-summary. Equal total ε: test accuracy / fraction within 0.03 at the final model's ε "
        f"(the {ANCHOR} row spends ε = T on each candidate fit, {EQUAL_TOTAL[-1][3]}·T in all, "
        "and chooses without privacy)",
        ["search"] + [f"{d} T={t:g}" for d, t in keys],
        [[label] + [v.get(k, "–") for k in keys] for label, v in compact.items()],
        align="l" + "r" * len(keys))
    return summary


def report_reference(tables: dict, seeds: dict, proto_check: dict) -> None:
    for data_name, table in tables.items():
        rows = []
        for key in sorted(table, key=float):
            row = table[key]
            best = int(np.argmax(row))
            rows.append([fmt(float(key), 4)] + [fmt(v, 4) for v in row] + [c_label(GRID[best]),
                        ", ".join(c_label(GRID[i]) for i, v in enumerate(row)
                                  if v >= max(row) - TOLERANCE - 1e-12)])
        print_table(
            f"0. True CV score (mean 5-fold CV accuracy of the private LR, "
            f"{seeds[data_name]} seeds), {data_name}",
            ["ε", *(f"C={c_label(c)}" for c in GRID), "best C", "C within 0.03"], rows,
            align="r" * (len(GRID) + 3))
    if proto_check:
        print("\nReference cells recomputed against an earlier table "
              + "; ".join(f"{d}: {v['cells']} common cells, max |diff| {v['max_abs_diff']:.2e}"
                          for d, v in proto_check.items()))


def report_spread(table: dict, spread: dict) -> None:
    rows = []
    for eps in TARGET_EPS_C:
        key = eps_key(eps)
        for i, C in enumerate(GRID):
            rows.append([fmt(eps), c_label(C), fmt(table[key][i], 4), fmt(spread[key]["sd"][i], 4),
                         fmt(spread[key]["p10"][i], 4), fmt(spread[key]["p90"][i], 4),
                         fmt(spread[key]["share_above_best_mean"][i], 3)])
    print_table(
        "0b. Single fits behind the true CV score, synth, target ε_c (one fit on 4/5 of the rows, "
        "scored on the other 1/5)",
        ["ε", "C", "true CV score (mean)", "sd of single fits", "10th pct", "90th pct",
         "share of fits above the best C's mean"], rows)


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
        out[data_name] = {"path": str(path), "cells": len(common),
                          "max_abs_diff": max(diffs) if diffs else math.nan}
    return out


# ------------------------------------------------------------------ main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS,
                        help=f"runs of the target section per ε_c (default {RUNS})")
    parser.add_argument("--equal-runs", type=int, default=EQUAL_RUNS,
                        help="runs per (data, total ε) of the equal-total section "
                        f"(default {EQUAL_RUNS})")
    parser.add_argument("--totals", type=float, nargs="+", default=list(TOTALS))
    parser.add_argument("--ref-seeds", type=int, default=None,
                        help="seeds of the true-CV-score table (default 10 synth, 20 cancer)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="processes for the reference table and the equal-total section "
                        "(the timed target section always runs alone, in this process)")
    parser.add_argument("--sections", default="target,equal",
                        help="comma-separated subset of target,equal")
    parser.add_argument("--reference-check", type=Path, default=None,
                        help="folder with reference_<data>.json of the same protocol to compare "
                        "the recomputed table with (diagnostic only)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 4 target runs, 2 equal-total runs at T = 2 only, "
                        "2 reference seeds")
    args = parser.parse_args(argv)
    from joblib import Parallel, delayed

    default = (args.runs == RUNS and args.equal_runs == EQUAL_RUNS
               and args.totals == list(TOTALS)
               and args.ref_seeds is None and args.sections == "target,equal")
    if args.quick:
        args.runs, args.equal_runs, args.ref_seeds, args.totals = 4, 2, 2, [2.0]
    seeds = {d: args.ref_seeds or REF_SEEDS[d] for d in DATASETS}
    sections = set(args.sections.split(","))
    suffix = "_quick" if args.quick else ("" if default else "_custom")
    _setup()
    buffer = io.StringIO()
    t_start = time.perf_counter()
    with redirect_stdout(Tee(sys.stdout, buffer)):
        print(f"# PrivateGridSearchCV vs GridSearchCV (PrivateLogisticRegression(data_norm=1), "
              f"C ∈ {{{', '.join(c_label(C) for C in GRID)}}})")
        timings = {}
        payload: dict = {"grid": list(GRID), "tolerance": TOLERANCE, "ref_seeds": seeds,
                         "runs": args.runs, "equal_runs": args.equal_runs,
                         "totals": args.totals, "fingerprint_model_selection":
                         source_fingerprint("model_selection"),
                         "fingerprint_linear_model": source_fingerprint("linear_model")}

        # 1. the timed section first, alone in this process
        target = {}
        if "target" in sections:
            data = load("synth")
            t0, cpu0 = time.perf_counter(), time.process_time()
            for eps_c in TARGET_EPS_C:
                target[eps_c] = run_target(eps_c, args.runs, data)
            timings["target_s"] = time.perf_counter() - t0
            timings["target_cpu_s"] = time.process_time() - cpu0

        # 2. reference table and equal-total runs, in parallel
        needed = {"synth": set(TARGET_EPS_C) if "target" in sections else set(), "cancer": set()}
        if "equal" in sections:
            for d in DATASETS:
                for total in args.totals:
                    needed[d] |= {e for _, e, _ in equal_total_configs(total)}
        tasks = [delayed(reference_cell)(d, e, seeds[d]) for d in DATASETS
                 for e in sorted(needed[d])]
        chunks = []
        if "equal" in sections:
            per = max(1, math.ceil(args.equal_runs / 4))
            for d in DATASETS:
                for total in args.totals:
                    for start in range(0, args.equal_runs, per):
                        runs = range(start, min(args.equal_runs, start + per))
                        chunks.append(delayed(run_equal_total)(d, total, runs))
        t0 = time.perf_counter()
        done = Parallel(n_jobs=args.jobs)(tasks + chunks)
        timings["reference_and_equal_s"] = time.perf_counter() - t0
        tables = {d: {} for d in DATASETS}
        cells: dict = {}
        timings["reference_cpu_s"] = sum(item[3] for item in done[:len(tasks)])
        timings["equal_cpu_s"] = sum(item[3] for item in done[len(tasks):])
        spreads = {d: {} for d in DATASETS}
        for item in done[:len(tasks)]:
            tables[item[0]][item[1]] = item[2]
            spreads[item[0]][item[1]] = item[4]
        for d, total, out, _ in done[len(tasks):]:
            cell = cells.setdefault((d, total), {k: {"choice": [], "test": [], "time": []}
                                                 for k in out})
            for k, rec in out.items():
                for field in rec:
                    cell[k][field].extend(rec[field])
        tables = {d: t for d, t in tables.items() if t}
        check = compare_with_cache(tables, seeds, args.reference_check)
        report_reference(tables, seeds, check)
        if target:
            report_spread(tables["synth"], spreads["synth"])
        payload["reference"] = tables
        payload["reference_spread"] = {d: v for d, v in spreads.items() if v}
        payload["reference_check"] = check

        if target:
            payload["target"] = report_target(target, tables["synth"])
            payload["target_runs"] = {
                eps_key(e): {name: {k: v for k, v in rec.items() if k != "spent"}
                             for name, rec in records.items()}
                for e, (records, _) in target.items()}
            choice_same = all(
                recs["repeated, refit=True"]["choice"] == recs["repeated, refit=False"]["choice"]
                for recs, _ in target.values())
            print(f"\nrepeated: refit=True and refit=False chose the same C in every run "
                  f"(same random_state): {choice_same}")
            payload["refit_choice_identical"] = choice_same
        if cells:
            payload["equal_total_priced"] = check_equal_totals(args.totals)
            print("\nEqual totals priced by check_privacy_budget (no leak, = T): "
                  + ", ".join(f"{k} → {v:g}" for k, v in payload["equal_total_priced"].items()))
            payload["equal_total"] = report_equal_total(cells, tables)
            payload["equal_total_runs"] = {f"{d}/{t:g}": out for (d, t), out in cells.items()}
        timings["total_s"] = time.perf_counter() - t_start
        payload["seconds"] = timings
        print(f"\ntimes: target section {timings.get('target_s', 0):.0f} s wall "
              f"({timings.get('target_cpu_s', 0):.0f} s CPU, alone), reference + equal total "
              f"{timings['reference_and_equal_s']:.0f} s wall ({timings['reference_cpu_s']:.0f} + "
              f"{timings['equal_cpu_s']:.0f} s CPU in {args.jobs} processes), total "
              f"{timings['total_s']:.0f} s wall")
        path = write_json(NAME + suffix, payload)
    md = RESULTS_DIR / f"{NAME}{suffix}.md"
    md.write_text(buffer.getvalue().replace(f"\nwrote {path}\n", "\n"))
    print(f"wrote {md}")


if __name__ == "__main__":
    main()
