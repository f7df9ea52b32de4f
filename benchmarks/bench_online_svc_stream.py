"""PrivateOnlineActiveSVC on a long synthetic stream: accuracy and throughput vs SGDClassifier.

(a) Accuracy. A stream of ``--rows`` rows (default 10⁶), d = 50, uniform in
the unit ball; the concept is a random hyperplane through the origin,
``y = sign(<w*, x>)``, with each label flipped with probability
``--label-noise`` (default 0.05, so the Bayes accuracy is 0.95). Single pass,
stream order = generation order, ``partial_fit`` on 4096-row chunks. Test
set: 10⁵ fresh rows with noisy labels. Compared at ε = 2, on the same stream
and in the same run:

* ``PrivateOnlineActiveSVC(epsilon=2)``, the package defaults
  (``update="ftrl"``, labelled and active windows, Bernoulli selection with
  ε_s = 0.25·ε in the active ones, the DP class prior and the centroid cut;
  no ``n_rows_hint``: the stream length is unknown);
* ftrl with ``selection="all"``, and ftrl ``selection="all",
  noise="tree"`` with ``n_rows_hint`` = the stream length (the tree needs
  it);
* the paper's setting: ``update="flmb"``, Bernoulli, ``batch_size=5``,
  ``fit_intercept=False`` (ε_s = ε_g = 1, λ = 0.01, η = 1/λ), last iterate
  and ``average=True``;
* ``SGDClassifier(loss="hinge")`` (its default ``fit_intercept=True``, as
  ours) — the non-private anchor, ``partial_fit`` on the same chunks with
  every label.

Test accuracy at a few stream positions, mean ± std over ``--seeds``
estimator seeds (the stream is fixed; SGD is run once per seed with
``random_state=seed``); the target check: the defaults reach ≥ 0.90 after
the whole 10⁶-row stream.

(b) Throughput. ``partial_fit`` over the whole stream in 4096-row chunks, a
fresh estimator per repeat, median of ``--repeats`` repeats, timed in
alternation with ``SGDClassifier(loss="hinge").partial_fit`` on the same
chunks (``_common.time_interleaved``), ratio column; target: the defaults
≤ 3× SGD. The other private rows are timed too, for reference. A warm-up
call on 4096 rows precedes the timing (numba compiles, or loads its cache,
on the first call of a process).

Run from the repository root::

    nice python benchmarks/bench_online_svc_stream.py                 # 10⁶ rows
    nice python benchmarks/bench_online_svc_stream.py --quick         # 10⁵ rows, smoke run
    nice python benchmarks/bench_online_svc_stream.py --rows 200000   # custom size

Writes ``results/online_svc_stream.json`` only for the default settings
(``online_svc_stream_quick.json`` / ``online_svc_stream_custom.json`` otherwise).
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
    fmt,
    fmt_mean_std,
    print_table,
    source_fingerprint,
    time_interleaved,
    write_json,
)
from sklearn.linear_model import SGDClassifier  # noqa: E402

from skdp_anomaly import PrivateOnlineActiveSVC  # noqa: E402

CHUNK = 4096
D = 50
EPSILON = 2.0
CLASSES = np.array([0, 1])

DEFAULTS = "defaults (ftrl, Bernoulli)"
PAPER = dict(update="flmb", selection="bernoulli", batch_size=5, fit_intercept=False)
# name -> PrivateOnlineActiveSVC parameters; "n_rows_hint": None stands for the stream length
PRIVATE = {
    DEFAULTS: dict(),
    "ftrl, all": dict(selection="all"),
    "ftrl, all, noise=tree (n_rows_hint)": dict(selection="all", noise="tree", n_rows_hint=None),
    "paper's setting: FLMB-Bernoulli, B=5, no intercept (last iterate)": dict(PAPER),
    "paper's setting: FLMB-Bernoulli, B=5, no intercept, average=True": dict(PAPER, average=True),
}
TIMED = {
    DEFAULTS: dict(),
    "ftrl, all": dict(selection="all"),
    "ftrl, all, noise=tree (n_rows_hint)": dict(selection="all", noise="tree", n_rows_hint=None),
    "paper's FLMB-Bernoulli, B=5, no intercept": dict(PAPER),
}
ACCURACY_TARGET, TIME_TARGET = 0.90, 3.0


def make_stream(n: int, d: int, noise: float, seed: int):
    """Rows uniform in the unit ball, a random hyperplane, flipped labels."""
    rng = np.random.default_rng(seed)
    w_star = rng.normal(size=d)
    w_star /= np.linalg.norm(w_star)
    X = rng.normal(size=(n, d))
    X *= (rng.random(n) ** (1.0 / d) / np.linalg.norm(X, axis=1))[:, None]
    y = (X @ w_star > 0).astype(np.int64)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def private(seed: int, n_rows: int, **params) -> PrivateOnlineActiveSVC:
    if "n_rows_hint" in params:  # the public stream length
        params = dict(params, n_rows_hint=n_rows)
    return PrivateOnlineActiveSVC(epsilon=EPSILON, random_state=seed, **params)


def sgd(seed: int) -> SGDClassifier:
    return SGDClassifier(loss="hinge", random_state=seed)


def accuracy_run(make, X, y, X_test, y_test, marks):
    est, acc, labels, start = make(), [], [], 0
    for stop in marks:
        for s in range(start, stop, CHUNK):
            est.partial_fit(
                X[s : min(s + CHUNK, stop)], y[s : min(s + CHUNK, stop)], classes=CLASSES
            )
        start = stop
        acc.append(float(np.mean(est.predict(X_test) == y_test)))
        labels.append(getattr(est, "n_labels_requested_", stop))
    return acc, labels


def stream_pass(make, X, y):
    def run():
        est = make()
        for s in range(0, X.shape[0], CHUNK):
            est.partial_fit(X[s : s + CHUNK], y[s : s + CHUNK], classes=CLASSES)
        return est

    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="stream length")
    parser.add_argument("--label-noise", type=float, default=0.05, help="label flip probability")
    parser.add_argument(
        "--seeds", type=int, default=5, help="estimator seeds for the accuracy table"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats (median)")
    parser.add_argument("--data-seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="10⁵ rows, 2 seeds, 3 repeats")
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    if args.quick:
        args.rows, args.seeds, args.repeats = 100_000, 2, 3
    custom = not args.quick and any(
        getattr(args, k) != getattr(defaults, k)
        for k in ("rows", "label_noise", "seeds", "repeats", "data_seed")
    )
    suffix = "_quick" if args.quick else ("_custom" if custom else "")
    warnings.filterwarnings("ignore", category=UserWarning, module="sklearn")

    t_all = time.perf_counter()
    X, y = make_stream(args.rows + 100_000, D, args.label_noise, args.data_seed)
    X, y, X_test, y_test = X[: args.rows], y[: args.rows], X[args.rows :], y[args.rows :]
    n = args.rows
    marks = sorted({m for m in (10_000, 100_000, n) if m <= n})
    print(
        f"stream: {n} rows, d = {D}, uniform in the unit ball, label noise {args.label_noise} "
        f"(Bayes accuracy {1 - args.label_noise:.3f}); test {len(y_test)} rows; "
        f"ε = {EPSILON} (ftrl: ε_s = 0.5, ε_g = 1.5, λ = M²/3; the paper's FLMB: "
        "ε_s = ε_g = 1, λ = 0.01, η = 1/λ)",
        flush=True,
    )

    # (a) accuracy
    acc, labels = {}, {}
    t0 = time.perf_counter()
    for name, params in PRIVATE.items():
        runs = [
            accuracy_run(lambda s=s: private(s, n, **params), X, y, X_test, y_test, marks)
            for s in range(args.seeds)
        ]
        acc[name] = np.array([r[0] for r in runs])
        labels[name] = np.array([r[1] for r in runs], float)
    sgd_name = 'SGDClassifier(loss="hinge") — non-private, all labels'
    runs = [
        accuracy_run(lambda s=s: sgd(s), X, y, X_test, y_test, marks) for s in range(args.seeds)
    ]
    acc[sgd_name] = np.array([r[0] for r in runs])
    labels[sgd_name] = np.array([r[1] for r in runs], float)
    t_acc = time.perf_counter() - t0
    rows = [
        [name]
        + [fmt_mean_std(acc[name][:, j], 3) for j in range(len(marks))]
        + [f"{labels[name][:, -1].mean():,.0f}"]
        for name in acc
    ]
    table_a = print_table(
        f"(a) test accuracy after t rows, mean ± std over {args.seeds} seeds "
        f"(Bayes {1 - args.label_noise:.2f})",
        ["method"] + [f"t={m:,}" for m in marks] + ["labels used"],
        rows,
    )
    final = float(acc[DEFAULTS][:, -1].mean())
    accuracy_ok = final >= ACCURACY_TARGET
    print(
        f"\ntarget: defaults' accuracy after {n:,} rows ≥ {ACCURACY_TARGET}: {final:.3f} "
        + ("✓" if accuracy_ok else "✗")
    )

    # (b) throughput
    for params in TIMED.values():  # warm-up: compile / load the numba cache
        private(0, n, **params).partial_fit(X[:CHUNK], y[:CHUNK], classes=CLASSES)
    sgd(0).partial_fit(X[:CHUNK], y[:CHUNK], classes=CLASSES)
    funcs = {"SGDClassifier": stream_pass(lambda: SGDClassifier(loss="hinge"), X, y)}
    funcs.update(
        {
            name: stream_pass(lambda p=params: private(0, n, **p), X, y)
            for name, params in TIMED.items()
        }
    )
    t0 = time.perf_counter()
    timed = time_interleaved(funcs, repeats=args.repeats)
    t_time = time.perf_counter() - t0
    base = timed["SGDClassifier"][0]
    rows_b, speed = [], {}
    for name in TIMED:
        med, times = timed[name]
        ratio = med / base
        speed[name] = dict(median_s=med, times=times, rows_per_s=n / med, ratio_vs_sgd=ratio)
        rows_b.append(
            [
                f"PrivateOnlineActiveSVC {name}",
                fmt(med),
                f"{n / med:,.0f}",
                fmt(base),
                f"{n / base:,.0f}",
                f"{ratio:.2f}×",
                "✓" if ratio <= TIME_TARGET else "✗",
            ]
        )
    speed["SGDClassifier"] = dict(
        median_s=base, times=timed["SGDClassifier"][1], rows_per_s=n / base
    )
    table_b = print_table(
        f"(b) partial_fit over {n:,} rows in {CHUNK}-row chunks, median of {args.repeats} "
        '(interleaved with SGDClassifier(loss="hinge"))',
        ["estimator", "median s", "rows/s", "SGD median s", "SGD rows/s", "ratio", "≤ 3×"],
        rows_b,
    )

    time_ok = speed[DEFAULTS]["ratio_vs_sgd"] <= TIME_TARGET
    print(
        f"\ntarget: defaults ≤ {TIME_TARGET:g}× SGDClassifier's time: "
        f"{speed[DEFAULTS]['ratio_vs_sgd']:.2f}× " + ("✓" if time_ok else "✗")
    )

    runtime = time.perf_counter() - t_all
    print(f"\nruntime {runtime:.0f} s (accuracy {t_acc:.0f} s, timing {t_time:.0f} s)")
    write_json(
        "online_svc_stream" + suffix,
        {
            "settings": dict(
                vars(args),
                d=D,
                chunk=CHUNK,
                epsilon=EPSILON,
                test_rows=len(y_test),
                private={
                    k: {**v, **({"n_rows_hint": n} if "n_rows_hint" in v else {})}
                    for k, v in PRIVATE.items()
                },
                sgd='SGDClassifier(loss="hinge")',
            ),
            "targets": {
                "accuracy_defaults_final": final,
                "accuracy_target": ACCURACY_TARGET,
                "accuracy_ok": accuracy_ok,
                "time_ratio_defaults": speed[DEFAULTS]["ratio_vs_sgd"],
                "time_target": TIME_TARGET,
                "time_ok": time_ok,
            },
            "estimator_source_sha256_16": source_fingerprint("active_learning"),
            "accuracy": {
                name: dict(
                    marks=marks,
                    mean=acc[name].mean(0),
                    std=acc[name].std(0, ddof=1) if args.seeds > 1 else None,
                    per_seed=acc[name],
                    labels_mean=labels[name].mean(0),
                )
                for name in acc
            },
            "throughput": speed,
            "tables": {"accuracy": table_a, "throughput": table_b},
            "runtime_s": runtime,
        },
    )


if __name__ == "__main__":
    main()
