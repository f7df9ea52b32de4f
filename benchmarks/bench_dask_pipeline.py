"""The private imbalanced pipeline on Dask: fit time and the client's memory against dask-ml.

Rows × 8 features, 2 % positives (uniform in [−1, 1]^8, positives shifted by
0.5 in every feature), generated block by block on a ``LocalCluster`` of two
worker processes × one thread and persisted there (never on the client). In
one run, on the same persisted rows:

* **one reduction pass**: ``X.sum(axis=0)`` and ``y.sum()`` (the cluster's
  floor for anything that reads every row once);
* **the private pipeline**: ``DPImbalancedClassifier(epsilon=1, bounds=(-2, 2))``
  (``strategy="auto"`` resolves to the threshold at these sizes: the
  validation and label passes, the class sizes, then
  ``PrivateLogisticRegression``'s solver passes), the whole ``fit``;
* **dask-ml's** ``LogisticRegression()`` at its defaults (not private), ``fit``;
* the private model's lazy ``predict`` reduced to a confusion count (one
  more pass), for its minority recall.

The client's peak memory is its resident set size sampled every 5 ms in a
thread (psutil) during each step, reported as the peak and as the rise above
the level before the step; the data take ``rows × 8 × 8`` bytes (0.6 GiB at
10^7, 6.0 GiB at 10^8: the workers need that much memory to persist them,
``--memory-limit`` is per worker). The table's ratios are each fit's time over the
reduction pass's, and the private fit's over dask-ml's.

Run from the repository root (needs the ``dask`` extra, psutil, and dask-ml
for its row; without dask-ml that row says why)::

    nice python benchmarks/bench_dask_pipeline.py --quick          # 10^6 rows
    nice python benchmarks/bench_dask_pipeline.py                  # 10^7 and 10^8 rows
    nice python benchmarks/bench_dask_pipeline.py --rows 1e7
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, write_json
from _dask_group_search_bench import _PeakRSS

D, POSITIVES, SHIFT, EPSILON, BOUNDS = 8, 0.02, 0.5, 1.0, (-2.0, 2.0)
MIB = 2**20


def cluster_data(n_rows: int, chunk_rows: int, seed: int = 0):
    """``(X, y)`` generated on the workers block by block, persisted there."""
    import dask
    import dask.array as da

    rng = da.random.default_rng(seed)
    y = (rng.random(n_rows, chunks=chunk_rows) < POSITIVES).astype(np.int8)
    X = rng.uniform(-1.0, 1.0, (n_rows, D), chunks=(chunk_rows, D)) + SHIFT * y[:, None]
    X, y = dask.persist(X, y)
    dask.compute(X[:1, 0], y[:1])  # wait for the blocks
    from distributed import wait

    wait([X, y])
    return X, y


def measured(step):
    """``(seconds, result, peak RSS, rise above the level before)`` of ``step()``."""
    with _PeakRSS() as peak:
        t0 = time.perf_counter()
        result = step()
        seconds = time.perf_counter() - t0
    return seconds, result, peak.peak / MIB, (peak.peak - peak.baseline) / MIB


def reduction_pass(X, y):
    import dask

    return dask.compute(X.sum(axis=0), y.sum())


def private_fit(X, y):
    from skdp_anomaly import DPImbalancedClassifier

    # a fixed seed only to make the run repeatable; None (OS entropy) in deployment
    return DPImbalancedClassifier(epsilon=EPSILON, bounds=BOUNDS, random_state=0).fit(X, y)


def dask_ml_model():
    """dask-ml's LogisticRegression class, or the reason it is unavailable."""
    try:
        from dask_ml.linear_model import LogisticRegression
    except Exception as exc:  # not installed, or not importable with these versions
        return None, f"{type(exc).__name__}: {exc}"
    return LogisticRegression, None


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("dask", "distributed", "dask-ml", "dask-glm"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def minority_recall(model, X, y) -> tuple[float, float]:
    """(recall on the positives, recall on the negatives) of ``model.predict``, one pass."""
    import dask

    predicted = model.predict(X)
    hits = dask.compute(
        ((predicted == 1) & (y == 1)).sum(),
        (y == 1).sum(),
        ((predicted == 0) & (y == 0)).sum(),
        (y == 0).sum(),
    )
    tp, pos, tn, neg = (int(v) for v in hits)
    return tp / max(pos, 1), tn / max(neg, 1)


def run_size(n_rows: int, chunk_rows: int) -> dict:
    X, y = cluster_data(n_rows, chunk_rows)
    out = {"rows": n_rows, "chunk_rows": chunk_rows}
    s, _, peak, rise = measured(lambda: reduction_pass(X, y))
    out["reduction"] = {"seconds": s, "client_peak_mib": peak, "client_rise_mib": rise}

    s, clf, peak, rise = measured(lambda: private_fit(X, y))
    out["private"] = {
        "seconds": s,
        "client_peak_mib": peak,
        "client_rise_mib": rise,
        "strategy": clf.strategy_,
        "epsilon_spent": clf.privacy_spent_.epsilon,
    }
    s_pred, recalls, peak, rise = measured(lambda: minority_recall(clf, X, y))
    out["private_predict"] = {
        "seconds": s_pred,
        "client_peak_mib": peak,
        "client_rise_mib": rise,
        "recall_positive": recalls[0],
        "recall_negative": recalls[1],
    }

    LogisticRegression, reason = dask_ml_model()
    if LogisticRegression is None:
        out["dask_ml"] = {"unavailable": reason}
        return out
    try:
        s, model, peak, rise = measured(lambda: LogisticRegression().fit(X, y))
        recalls = minority_recall(model, X, y)
    except Exception as exc:  # e.g. an incompatibility with this numpy or dask
        out["dask_ml"] = {"unavailable": f"fit failed: {type(exc).__name__}: {exc}"}
        return out
    out["dask_ml"] = {
        "seconds": s,
        "client_peak_mib": peak,
        "client_rise_mib": rise,
        "recall_positive": recalls[0],
        "recall_negative": recalls[1],
    }
    return out


def table_rows(result: dict) -> list:
    n = result["rows"]
    floor = result["reduction"]["seconds"]
    ml = result["dask_ml"]
    ml_s = ml.get("seconds")

    def mem(step):
        return f"{step['client_peak_mib']:.0f} (+{step['client_rise_mib']:.0f})"

    rows = [
        [
            f"{n:.0e}",
            "one reduction pass (X.sum, y.sum)",
            f"{floor:.2f}",
            "1.0",
            "–",
            mem(result["reduction"]),
            "",
        ]
    ]
    private = result["private"]
    rows.append(
        [
            f"{n:.0e}",
            f"DPImbalancedClassifier.fit (ε = {EPSILON:g}, {private['strategy']})",
            f"{private['seconds']:.2f}",
            f"{private['seconds'] / floor:.1f}",
            f"{private['seconds'] / ml_s:.2f}" if ml_s else "–",
            mem(private),
            f"recall + {result['private_predict']['recall_positive']:.2f}, "
            f"− {result['private_predict']['recall_negative']:.2f}",
        ]
    )
    if ml_s:
        rows.append(
            [
                f"{n:.0e}",
                "dask-ml LogisticRegression().fit (not private)",
                f"{ml_s:.2f}",
                f"{ml_s / floor:.1f}",
                "1.00",
                mem(ml),
                f"recall + {ml['recall_positive']:.2f}, − {ml['recall_negative']:.2f}",
            ]
        )
    else:
        rows.append(
            [
                f"{n:.0e}",
                "dask-ml LogisticRegression().fit (not private)",
                "–",
                "–",
                "–",
                "–",
                f"unavailable: {ml['unavailable']}",
            ]
        )
    pred = result["private_predict"]
    rows.append(
        [
            f"{n:.0e}",
            "private model: lazy predict, one counting pass",
            f"{pred['seconds']:.2f}",
            f"{pred['seconds'] / floor:.1f}",
            "–",
            mem(pred),
            "",
        ]
    )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        type=float,
        nargs="+",
        default=[1e7, 1e8],
        help="sizes to run, in one run (default: 1e7 1e8)",
    )
    parser.add_argument("--quick", action="store_true", help="10^6 rows only")
    parser.add_argument(
        "--chunk-rows",
        type=int,
        default=None,
        help="rows per block (default 2^20, 2^18 with --quick: multiples of "
        "the backend's 65 536-row blocks)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="8GiB", help="per worker")
    args = parser.parse_args(argv)
    sizes = [10**6] if args.quick else [int(r) for r in args.rows]
    chunk_rows = args.chunk_rows or (2**18 if args.quick else 2**20)
    from distributed import Client, LocalCluster

    print(
        f"# The private imbalanced pipeline on Dask: {', '.join(f'{n:.0e}' for n in sizes)} "
        f"rows × {D}, {POSITIVES:.0%} positives; {args.workers} worker processes × 1 thread, "
        f"blocks of {chunk_rows:,} rows"
    )
    results = []
    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster),
    ):
        for n in sizes:
            results.append(run_size(n, chunk_rows))
            print(f"done {n:.0e} rows", flush=True)
    rows = [row for result in results for row in table_rows(result)]
    table = print_table(
        "Fit time and client memory (MiB: peak RSS, and its rise during the step)",
        [
            "rows",
            "what",
            "seconds",
            "× reduction pass",
            "× dask-ml fit",
            "client MiB",
            "training recall (+ / −)",
        ],
        rows,
        align="rlrrrrl",
    )
    write_json(
        "dask_pipeline_quick" if args.quick else "dask_pipeline",
        {
            "versions": versions(),
            "sizes": sizes,
            "chunk_rows": chunk_rows,
            "workers": args.workers,
            "results": results,
            "table": table,
        },
    )


if __name__ == "__main__":
    main()
