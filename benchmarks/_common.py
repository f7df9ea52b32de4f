"""Shared helpers for the benchmark scripts in this folder.

Markdown tables, JSON results (``benchmarks/results/<name>.json``), median-of-
repeats timing and peak-memory measurement. Benchmarks are scripts, not part of
the installed package: run them from the repository root, e.g.
``nice python benchmarks/bench_dpsmote_speed.py``.
"""

from __future__ import annotations

import io

import json
import math
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

RESULTS_DIR = Path(__file__).resolve().parent / "results"

__all__ = [
    "RESULTS_DIR",
    "environment",
    "fmt",
    "fmt_mean_std",
    "markdown_table",
    "mean_std",
    "peak_memory",
    "print_table",
    "time_interleaved",
    "time_median",
    "write_json",
]


def to_unit_ball(X, public):
    """Standardise with a public slice, divide by its 95th-percentile row norm, project."""
    mu, sd = public.mean(0), public.std(0) + 1e-12
    scale = np.quantile(np.linalg.norm((public - mu) / sd, axis=1), 0.95)
    Z = (X - mu) / sd / scale
    return Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1.0)


def environment() -> dict:
    """Versions and machine facts stored with every result file."""
    import imblearn
    import sklearn

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "imbalanced-learn": imblearn.__version__,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def fmt(value: Any, digits: int = 3) -> str:
    """Format numbers compactly for tables; everything else with ``str``."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "–"
        if value != 0 and (abs(value) >= 1e5 or abs(value) < 10 ** (-digits)):
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}f}"
    return str(value)


def mean_std(values: Iterable[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (``nan`` std for one value)."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return math.nan, math.nan
    return float(arr.mean()), float(arr.std(ddof=1)) if arr.size > 1 else math.nan


def fmt_mean_std(values: Iterable[float], digits: int = 2) -> str:
    """``"0.71 ± 0.03"`` from a sequence of values."""
    m, s = mean_std(values)
    if math.isnan(s):
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {s:.{digits}f}"


def markdown_table(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None
) -> str:
    """A GitHub markdown table; ``align`` is one char per column (l/r/c)."""
    rows = [[c if isinstance(c, str) else fmt(c) for c in row] for row in rows]
    align = align or "l" + "r" * (len(headers) - 1)
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join(marks[a] for a in align) + "|",
    ]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"row has {len(row)} cells, table has {len(headers)} columns: {row}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def print_table(title: str, headers, rows, align=None, file=None) -> str:
    """Print ``### title`` and the table; returns the table text."""
    text = markdown_table(headers, rows, align)
    out = file or sys.stdout
    print(f"\n### {title}\n", file=out)
    print(text, file=out, flush=True)
    return text


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    return obj


def write_json(name: str, payload: dict, results_dir: Path | None = None) -> Path:
    """Write ``payload`` (plus the environment) to ``results/<name>.json``."""
    directory = Path(results_dir) if results_dir is not None else RESULTS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    body = {"benchmark": name, "environment": environment(), **payload}
    path.write_text(json.dumps(_jsonable(body), indent=2, sort_keys=False) + "\n")
    print(f"\nwrote {path}")
    return path


def time_median(
    func: Callable[[], Any], repeats: int = 5, warmup: int = 0, budget_s: float | None = None
):
    """Median wall time of ``func()`` over ``repeats`` calls.

    ``budget_s`` stops early (keeping at least one timing) once the summed
    time exceeds it, so very slow baselines stay bounded. Returns
    ``(median_seconds, list_of_times)``.
    """
    for _ in range(warmup):
        func()
    times: list[float] = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
        if budget_s is not None and sum(times) > budget_s:
            break
    return statistics.median(times), times


def time_interleaved(funcs: dict, repeats: int = 5, budget_s: dict | None = None):
    """Median wall times of several callables timed in alternation.

    On a shared machine, load drifts; alternating A, B, A, B... exposes both
    to the same drift, so their ratio is fairer than timing A then B.
    ``budget_s`` maps a name to a time budget after which that callable is
    no longer repeated (at least one timing is kept). Returns
    ``{name: (median_seconds, times)}``.
    """
    budget_s = budget_s or {}
    times = {name: [] for name in funcs}
    for _ in range(max(1, repeats)):
        for name, func in funcs.items():
            if times[name] and name in budget_s and sum(times[name]) > budget_s[name]:
                continue
            t0 = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - t0)
    return {name: (statistics.median(t), t) for name, t in times.items()}


def peak_memory(func: Callable[[], Any]) -> tuple[float, Any]:
    """Peak Python-heap allocation (MiB) during ``func()`` via tracemalloc.

    numpy registers its buffers with tracemalloc, so array memory is counted;
    memory allocated by compiled extensions outside numpy's allocator (e.g.
    scikit-learn's Cython/OpenMP scratch space) may be missed. Timing under
    tracemalloc is slower: measure time and memory in separate calls.
    Returns ``(peak_mib, result)``.
    """
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        result = func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20, result


def max_rss_mib() -> float:
    """Peak resident set size of this process so far (MiB; Linux/macOS)."""
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 1024


def source_fingerprint(subpackage: str) -> str:
    """Short hash of a subpackage's sources, stored with results to tie them to the code."""
    import hashlib

    root = Path(__file__).resolve().parent.parent / "skdp_anomaly" / subpackage
    digest = hashlib.sha256()
    for path in sorted(root.glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


class Tee(io.TextIOBase):
    """A text stream that writes to several streams (print a table and keep a copy)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()


# ----------------------------------------------------------------------------------------
# Helpers shared by several scripts (added when bench_dpoad, bench_dpsmote_baselines,
# bench_private_search_rules and bench_online_svc_paper were split into modules).
def mean_se_n(values: Iterable[float]) -> tuple[float, float, int]:
    """Mean, standard error and count of the non-nan values (``nan`` s.e. for one value)."""
    v = np.asarray([x for x in values if not math.isnan(x)], dtype=float)
    if v.size == 0:
        return math.nan, math.nan, 0
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
    return float(v.mean()), se, int(v.size)


def fmt_pm(mean: float, se: float, digits: int = 2) -> str:
    """``"0.71 ± 0.03"``; ``"0.71"`` when ``se`` is nan, ``"–"`` when ``mean`` is nan."""
    if math.isnan(mean):
        return "–"
    if math.isnan(se):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {se:.{digits}f}"


def result_suffix(quick: bool, default: bool) -> str:
    """Suffix of a result file: ``_quick`` for a smoke run, ``""`` at the reference
    settings, ``_custom`` otherwise (so that only a reference run replaces a reference file)."""
    if quick:
        return "_quick"
    return "" if default else "_custom"


def parallel_map(jobs: int, func: Callable, items: Iterable) -> list:
    """``[func(i) for i in items]``, over ``jobs`` joblib processes when ``jobs != 1``."""
    if jobs == 1:
        return [func(i) for i in items]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(func)(i) for i in items)


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or ``None`` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt
