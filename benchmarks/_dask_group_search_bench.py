"""NoisyGroupSearch on Dask: one search over ``n_rows`` lazy scores.

:func:`run` is imported by ``bench_dask.py``. It builds ``n_rows`` uniform
``[0, 1)`` scores lazily (``da.random.default_rng(seed)``) with one anomaly
planted by a blockwise ``where`` on a known index, runs one fit (direct
oracle, ε = 2 per query within a total of 200, ``halting="posterior"``), times one query's
reduction on its own (the sensor's two half maxima over persisted scores and
a persisted mask), and measures the client process's peak memory by sampling
its RSS with psutil every 5 ms in a thread (RSS, not tracemalloc: it counts
everything the process holds, dask's buffers and the interpreter included).

The floor per row is one in-memory numpy pass over a 10^7-row slice: the
masked maxima of the two halves, exactly what the sensor computes per block.

With a cluster whose workers run in the client's process
(``LocalCluster(processes=False)``) the RSS includes the workers' data;
``rss_includes_workers`` says so. Use worker processes to measure the
client alone.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np

from skdp_anomaly import NoisyGroupSearch
from skdp_anomaly.group_search._sensors import _half_maxima

__all__ = ["run"]

FLOOR_ROWS = 10**7
# the paper's per-query mode: at most EPSILON / QUERY_EPSILON = 100 queries
EPSILON, QUERY_EPSILON, LOW, HIGH, ANOMALY_SCORE = 200.0, 2.0, 1.0, 1.8, 3.0


class _PeakRSS:
    """Peak resident set size of this process, sampled in a daemon thread."""

    def __init__(self, every: float = 0.005):
        import psutil

        self._process = psutil.Process(os.getpid())
        self._every = every
        self._stop = threading.Event()
        self.baseline = self.peak = self._process.memory_info().rss

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._process.memory_info().rss)
            self._stop.wait(self._every)

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._process.memory_info().rss)


def _lazy_scores(n_rows: int, chunk_rows: int, seed: int, anomaly: int):
    import dask.array as da

    scores = da.random.default_rng(seed).uniform(0.0, 1.0, size=n_rows, chunks=chunk_rows)
    index = da.arange(n_rows, chunks=chunk_rows)
    return da.where(index == anomaly, ANOMALY_SCORE, scores)[:, None]


def _floor_seconds_per_row(rows: int = FLOOR_ROWS, repeats: int = 3) -> float:
    rng = np.random.default_rng(1)
    scores, mask = rng.uniform(0.0, 1.0, rows), rng.random(rows) < 0.5
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        _half_maxima(scores, mask)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) / rows


def _one_query_seconds(
    n_rows: int, chunk_rows: int, seed: int, anomaly: int, repeats: int = 3
) -> float:
    """The sensor's reduction alone: persisted scores and mask, median of repeats."""
    import dask.array as da
    from distributed import wait

    from skdp_anomaly._data.vectors import blockwise_statistic

    scores = _lazy_scores(n_rows, chunk_rows, seed, anomaly)[:, 0].persist()
    mask = (da.random.default_rng(seed + 1).random(n_rows, chunks=chunk_rows) < 0.5).persist()
    wait([scores, mask])
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        blockwise_statistic(_half_maxima, 2, scores, mask)
        times.append(time.perf_counter() - start)
    del scores, mask
    return float(np.median(times))


def run(n_rows: int, client, *, chunk_rows: int = 5_000_000, seed: int = 0) -> dict:
    """One dask group search over ``n_rows`` lazy scores, and its floor.

    Parameters
    ----------
    n_rows : int
        Number of scores (10^8 in the issue).
    client : distributed.Client
        The cluster to run on (it becomes the default scheduler).
    chunk_rows : int, default=5_000_000
        Rows per block.
    seed : int, default=0
        Seed of the scores, the anomaly's index and the search.

    Returns
    -------
    dict
        ``fit_seconds``, ``n_queries``, ``seconds_per_query``,
        ``found`` (the anomaly among the candidates), ``halted_by``,
        ``query_reduction_seconds`` and ``query_rows_per_second`` (one
        query's reduction alone), ``fit_rows_per_second`` (rows × queries
        over the fit's wall time), ``floor_rows_per_second`` and
        ``floor_seconds_per_row`` (the numpy pass over a 10^7-row slice),
        ``client_peak_rss_mib``, ``client_baseline_rss_mib`` and
        ``rss_includes_workers``, plus the settings.
    """
    chunk_rows = min(int(chunk_rows), int(n_rows))
    anomaly = int(np.random.default_rng(seed).integers(n_rows))
    worker_pids = set(client.run(os.getpid).values())
    in_process = os.getpid() in worker_pids

    X = _lazy_scores(n_rows, chunk_rows, seed, anomaly)
    search = NoisyGroupSearch(
        epsilon=EPSILON, query_epsilon=QUERY_EPSILON, low=LOW, high=HIGH, random_state=seed
    )
    with _PeakRSS() as rss:
        start = time.perf_counter()
        search.fit(X)
        fit_seconds = time.perf_counter() - start
    found = bool(anomaly in search.candidates_)
    n_queries, halted_by = int(search.n_queries_), search.halted_by_
    search_spent = search.privacy_spent_.epsilon
    del search  # releases the posterior the workers hold

    query_seconds = _one_query_seconds(n_rows, chunk_rows, seed, anomaly)
    floor = _floor_seconds_per_row()
    return {
        "n_rows": int(n_rows),
        "chunk_rows": chunk_rows,
        "n_workers": len(client.scheduler_info()["workers"]),
        "epsilon": EPSILON,
        "query_epsilon": QUERY_EPSILON,
        "privacy_spent": float(search_spent),
        "fit_seconds": fit_seconds,
        "n_queries": n_queries,
        "seconds_per_query": fit_seconds / max(n_queries, 1),
        "found": found,
        "halted_by": halted_by,
        "fit_rows_per_second": n_rows * n_queries / fit_seconds,
        "query_reduction_seconds": query_seconds,
        "query_rows_per_second": n_rows / query_seconds,
        "floor_rows": FLOOR_ROWS,
        "floor_seconds_per_row": floor,
        "floor_rows_per_second": 1.0 / floor,
        "client_baseline_rss_mib": rss.baseline / 2**20,
        "client_peak_rss_mib": rss.peak / 2**20,
        "rss_includes_workers": in_process,
        "memory_measure": "psutil RSS of the client process, sampled every 5 ms",
    }
