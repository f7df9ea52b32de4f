"""Private aggregates on Dask: DPSMOTE and the group search over 10^8 rows.

Data are generated lazily by Dask on a two-worker ``LocalCluster`` (worker
processes, one thread each) and never materialised on the client:

* **DPSMOTE**: 10^8 rows × 8 features, uniform in [−1, 1] with the minority
  (10 %) shifted by 0.3, public bounds [−2, 2], ε = 1. Rows of the table:
  the cluster's own floor (generate the data and sum it, one pass: what any
  blockwise statistic costs here), ``fit_resample`` (the statistics pass plus
  the release on the client; returns lazy collections), and one pass over the
  resampled set (original rows regenerated, synthetic rows drawn on the
  workers) reduced to its column sums;
* **NoisyGroupSearch**: one search over 10^8 lazy scores
  (``benchmarks/_dask_group_search_bench.py``).

Anchors, same run: one in-memory numpy pass over a 10^7-row slice (the
floor per row: DPSMOTE's column sums and class counts; the search's two
masked maxima), and in-memory ``DPSMOTE.fit_resample`` on that slice.
Throughput is rows per second; "× floor" is the time per row against the
numpy pass's (one core). The client's peak memory is its resident set size
sampled every 5 ms (psutil) above its level before the run; the data would
take ``rows × 8 × 8`` bytes (6.4 GB at 10^8).

Run from the repository root (needs the ``dask`` extra and psutil)::

    nice python benchmarks/bench_dask.py                 # 10^8 rows, ~5-10 min on 2 cores
    nice python benchmarks/bench_dask.py --rows 1e7      # ~1 min
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
from _common import print_table, time_median, write_json
from _dask_group_search_bench import _PeakRSS
from _dask_group_search_bench import run as run_group_search

D, MINORITY, SHIFT, EPSILON = 8, 0.1, 0.3, 1.0
FLOOR_ROWS = 10**7


def lazy_data(n_rows: int, chunk_rows: int, seed: int = 0):
    """``(X, y)`` as dask arrays generated on the workers, block by block."""
    import dask.array as da

    rng = da.random.default_rng(seed)
    y = (rng.random(n_rows, chunks=chunk_rows) < MINORITY).astype(np.int8)
    X = rng.uniform(-1.0, 1.0, (n_rows, D), chunks=(chunk_rows, D)) + SHIFT * y[:, None]
    return X, y


def memory_data(n_rows: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    y = (rng.random(n_rows) < MINORITY).astype(np.int8)
    X = rng.uniform(-1.0, 1.0, (n_rows, D)) + SHIFT * y[:, None]
    return X, y


def sampler(seed=0):
    from skdp_anomaly import DPSMOTE

    return DPSMOTE(epsilon=EPSILON, bounds=(-2.0, 2.0), random_state=seed)


def dpsmote_dask(n_rows: int, chunk_rows: int) -> dict:
    import dask
    import dask.array as da

    X, y = lazy_data(n_rows, chunk_rows)
    out = {}
    t0 = time.perf_counter()
    dask.compute(X.sum(axis=0), y.sum())
    out["cluster_floor_s"] = time.perf_counter() - t0

    with _PeakRSS() as peak:
        t0 = time.perf_counter()
        est = sampler()
        X_res, y_res = est.fit_resample(X, y)
        out["fit_resample_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        da.compute(X_res.sum(axis=0), y_res.sum())
        out["resampled_pass_s"] = time.perf_counter() - t0
    out["client_peak_mib"] = (peak.peak - peak.baseline) / 2**20
    out["client_rss_mib"] = peak.peak / 2**20
    out["n_synthetic"] = int(X_res.shape[0] - n_rows)
    out["noisy_class_counts"] = est.noisy_class_counts_
    return out


def anchors(rows: int = FLOOR_ROWS) -> dict:
    X, y = memory_data(rows)

    def floor():
        return X.sum(axis=0), np.bincount(y)

    t_floor, _ = time_median(floor, repeats=5, warmup=1)
    t_mem, _ = time_median(lambda: sampler().fit_resample(X, y), repeats=3, warmup=1)
    return {"floor_s_per_row": t_floor / rows, "memory_fit_resample_s_per_row": t_mem / rows}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--chunk-rows", type=int, default=2_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="6GiB", help="per worker")
    parser.add_argument("--no-group-search", action="store_true")
    args = parser.parse_args(argv)
    n_rows = int(args.rows)
    from distributed import Client, LocalCluster

    print(
        f"# DPSMOTE and NoisyGroupSearch on Dask: {n_rows:.0e} rows, {args.workers} worker "
        f"processes × 1 thread, chunks of {args.chunk_rows:,} rows"
    )
    base = anchors()
    print(
        f"in-memory anchors over {FLOOR_ROWS:.0e} rows: floor {base['floor_s_per_row'] * 1e9:.2f}"
        f" ns/row, DPSMOTE.fit_resample {base['memory_fit_resample_s_per_row'] * 1e9:.1f} ns/row"
    )
    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as client,
    ):
        smote = dpsmote_dask(n_rows, args.chunk_rows)
        search = None if args.no_group_search else run_group_search(n_rows, client)

    floor = base["floor_s_per_row"]
    data_gib = n_rows * D * 8 / 2**30

    def row(what, seconds, rows, note=""):
        per_row = seconds / rows
        return [
            what,
            f"{rows:.0e}",
            f"{seconds:.2f}",
            f"{rows / seconds / 1e6:.1f}",
            f"{per_row / floor:.1f}",
            note,
        ]

    rows = [
        [
            "numpy pass over an in-memory slice (floor)",
            f"{FLOOR_ROWS:.0e}",
            f"{floor * FLOOR_ROWS:.3f}",
            f"{1 / floor / 1e6:.1f}",
            "1.0",
            "one core",
        ],
        [
            "in-memory DPSMOTE.fit_resample on the slice",
            f"{FLOOR_ROWS:.0e}",
            f"{base['memory_fit_resample_s_per_row'] * FLOOR_ROWS:.3f}",
            f"{1 / base['memory_fit_resample_s_per_row'] / 1e6:.1f}",
            f"{base['memory_fit_resample_s_per_row'] / floor:.1f}",
            "one core, output in memory",
        ],
        row(
            "Dask: generate + column sums (the cluster's floor)",
            smote["cluster_floor_s"],
            n_rows,
            "data generated on the workers",
        ),
        row(
            "Dask: DPSMOTE.fit_resample (statistics pass + release)",
            smote["fit_resample_s"],
            n_rows,
            f"client peak +{smote['client_peak_mib']:.0f} MiB",
        ),
        row(
            "Dask: one pass over the resampled set",
            smote["resampled_pass_s"],
            n_rows + smote["n_synthetic"],
            f"{smote['n_synthetic']:.2e} synthetic rows",
        ),
    ]
    tables = {
        "dpsmote": print_table(
            f"DPSMOTE, {D} features, 10 % minority, ε = {EPSILON:g} (data: {data_gib:.1f} GiB "
            f"float64; client peak memory +{smote['client_peak_mib']:.0f} MiB, RSS "
            f"{smote['client_rss_mib']:.0f} MiB)",
            ["what", "rows", "seconds", "M rows/s", "× floor per row", "note"],
            rows,
            align="lrrrrl",
        )
    }
    if search is not None:
        tables["group_search"] = print_table(
            "NoisyGroupSearch over lazy scores (one search; one query's reduction alone)",
            ["key", "value"],
            [
                [k, f"{v:.4g}" if isinstance(v, float) else str(v)]
                for k, v in search.items()
                if not isinstance(v, (dict, list))
            ],
            align="lr",
        )
    write_json(
        "dask",
        {
            "rows": n_rows,
            "chunk_rows": args.chunk_rows,
            "workers": args.workers,
            "anchors": base,
            "dpsmote": smote,
            "group_search": search,
            "tables": tables,
        },
    )


if __name__ == "__main__":
    main()
