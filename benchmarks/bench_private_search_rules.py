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

Files: this script (options, the order of the work, the JSON and markdown),
``_private_search_rules_runs.py`` (data, candidates, the runs of each
section) and ``_private_search_rules_report.py`` (the tables).

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
from contextlib import redirect_stdout
from pathlib import Path

# one BLAS thread: on a loaded machine a threaded OpenBLAS makes these tiny fits ~15× slower
# (both sides of every comparison use the same BLAS)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, Tee, result_suffix, source_fingerprint, write_json  # noqa: E402
from _private_search_rules_report import (  # noqa: E402
    compare_with_cache,
    report_equal_total,
    report_reference,
    report_spread,
    report_target,
)
from _private_search_rules_runs import (  # noqa: E402
    DATASETS,
    EQUAL_RUNS,
    GRID,
    NAME,
    REF_SEEDS,
    RUNS,
    TARGET_EPS_C,
    TOLERANCE,
    TOTALS,
    _setup,
    c_label,
    check_equal_totals,
    eps_key,
    equal_total_configs,
    load,
    reference_cell,
    run_equal_total,
    run_target,
)


# ------------------------------------------------------------------ main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs",
        type=int,
        default=RUNS,
        help=f"runs of the target section per ε_c (default {RUNS})",
    )
    parser.add_argument(
        "--equal-runs",
        type=int,
        default=EQUAL_RUNS,
        help=f"runs per (data, total ε) of the equal-total section (default {EQUAL_RUNS})",
    )
    parser.add_argument("--totals", type=float, nargs="+", default=list(TOTALS))
    parser.add_argument(
        "--ref-seeds",
        type=int,
        default=None,
        help="seeds of the true-CV-score table (default 10 synth, 20 cancer)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="processes for the reference table and the equal-total section "
        "(the timed target section always runs alone, in this process)",
    )
    parser.add_argument(
        "--sections", default="target,equal", help="comma-separated subset of target,equal"
    )
    parser.add_argument(
        "--reference-check",
        type=Path,
        default=None,
        help="folder with reference_<data>.json of the same protocol to compare "
        "the recomputed table with (diagnostic only)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 4 target runs, 2 equal-total runs at T = 2 only, 2 reference seeds",
    )
    args = parser.parse_args(argv)
    from joblib import Parallel, delayed

    default = (
        args.runs == RUNS
        and args.equal_runs == EQUAL_RUNS
        and args.totals == list(TOTALS)
        and args.ref_seeds is None
        and args.sections == "target,equal"
    )
    if args.quick:
        args.runs, args.equal_runs, args.ref_seeds, args.totals = 4, 2, 2, [2.0]
    seeds = {d: args.ref_seeds or REF_SEEDS[d] for d in DATASETS}
    sections = set(args.sections.split(","))
    suffix = result_suffix(args.quick, default)
    _setup()
    buffer = io.StringIO()
    t_start = time.perf_counter()
    with redirect_stdout(Tee(sys.stdout, buffer)):
        print(
            f"# PrivateGridSearchCV vs GridSearchCV (PrivateLogisticRegression(data_norm=1), "
            f"C ∈ {{{', '.join(c_label(C) for C in GRID)}}})"
        )
        timings = {}
        payload: dict = {
            "grid": list(GRID),
            "tolerance": TOLERANCE,
            "ref_seeds": seeds,
            "runs": args.runs,
            "equal_runs": args.equal_runs,
            "totals": args.totals,
            "fingerprint_model_selection": source_fingerprint("model_selection"),
            "fingerprint_linear_model": source_fingerprint("linear_model"),
        }

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
        tasks = [
            delayed(reference_cell)(d, e, seeds[d]) for d in DATASETS for e in sorted(needed[d])
        ]
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
        timings["reference_cpu_s"] = sum(item[3] for item in done[: len(tasks)])
        timings["equal_cpu_s"] = sum(item[3] for item in done[len(tasks) :])
        spreads = {d: {} for d in DATASETS}
        for item in done[: len(tasks)]:
            tables[item[0]][item[1]] = item[2]
            spreads[item[0]][item[1]] = item[4]
        for d, total, out, _ in done[len(tasks) :]:
            cell = cells.setdefault(
                (d, total), {k: {"choice": [], "test": [], "time": []} for k in out}
            )
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
                eps_key(e): {
                    name: {k: v for k, v in rec.items() if k != "spent"}
                    for name, rec in records.items()
                }
                for e, (records, _) in target.items()
            }
            choice_same = all(
                recs["repeated, refit=True"]["choice"] == recs["repeated, refit=False"]["choice"]
                for recs, _ in target.values()
            )
            print(
                f"\nrepeated: refit=True and refit=False chose the same C in every run "
                f"(same random_state): {choice_same}"
            )
            payload["refit_choice_identical"] = choice_same
        if cells:
            payload["equal_total_priced"] = check_equal_totals(args.totals)
            print(
                "\nEqual totals priced by check_privacy_budget (no leak, = T): "
                + ", ".join(f"{k} → {v:g}" for k, v in payload["equal_total_priced"].items())
            )
            payload["equal_total"] = report_equal_total(cells, tables)
            payload["equal_total_runs"] = {f"{d}/{t:g}": out for (d, t), out in cells.items()}
        timings["total_s"] = time.perf_counter() - t_start
        payload["seconds"] = timings
        print(
            f"\ntimes: target section {timings.get('target_s', 0):.0f} s wall "
            f"({timings.get('target_cpu_s', 0):.0f} s CPU, alone), reference + equal total "
            f"{timings['reference_and_equal_s']:.0f} s wall ({timings['reference_cpu_s']:.0f} + "
            f"{timings['equal_cpu_s']:.0f} s CPU in {args.jobs} processes), total "
            f"{timings['total_s']:.0f} s wall"
        )
        path = write_json(NAME + suffix, payload)
    md = RESULTS_DIR / f"{NAME}{suffix}.md"
    md.write_text(buffer.getvalue().replace(f"\nwrote {path}\n", "\n"))
    print(f"wrote {md}")


if __name__ == "__main__":
    main()
