"""Speed and memory of ``DPSMOTE.fit_resample`` against imblearn ``SMOTE``.

Same data, same run, equal output size: the minority class has ``n1`` rows,
the majority ``2·n1`` rows, ``sampling_strategy="auto"`` asks both samplers
for full balance (``n1`` synthetic rows). DPSMOTE's class counts are passed
as public here (``class_counts="public"`` when the sampler offers it) so both
produce exactly the same number of rows; with private counts the output size
differs by the count noise only, which does not change the timing.

Data: minority and majority Gaussian blobs clipped to the public box
[-1, 1]^d (DPSMOTE gets ``bounds=(-1, 1)``; SMOTE needs none).

Target: DPSMOTE no slower than SMOTE for d <= 10 at equal output.

Times are medians of repeats timed in alternation DPSMOTE/SMOTE (7 repeats
at 10^4 rows, 3 at 10^5, 1 at 10^6; SMOTE repeats stop after a time budget);
peak memory is the tracemalloc peak of one separate call (numpy buffers are
traced; compiled scratch space outside numpy's allocator may be missed). At
10^6 rows and d > 2, SMOTE runs once in a child process killed after
``--smote-timeout`` seconds (its memory is then the child's peak RSS
increase); a timed-out run is reported as "> timeout", so the ratio shown is
an upper bound.

The SMOTE comparison uses ``synopsis="grid"`` (ν = 0.25, ℓ = 2) unless
``--synopsis gaussian`` is given: its reference table was measured with the
grid, the earlier default synopsis.

**Floor table** (``--floor-sizes``): ``fit_resample`` of the
default ``DPSMOTE(epsilon=1, bounds=...)`` (Gaussian synopsis, private class
counts) and of ``synopsis="grid"`` against the unavoidable work, measured in
the same run and timed in alternation: one validation pass
(``sklearn.utils.validation.check_X_y``), one binning pass over the minority
rows (``X[y == 1]``, then ``np.floor((X_min - lo) / w).astype(int16)``) and
writing the output arrays (``np.concatenate`` of X with the synthetic rows,
and of y, the synthetic block drawn beforehand with DPSMOTE's row count).
n rows in total, 10 % minority, d = 8, bounds [-1, 1]^d public. Target:
default ``fit_resample`` ≤ 3× the floor (median ratio).

Run from the repository root::

    nice python benchmarks/bench_dpsmote_speed.py            # ~10-15 min on 2 cores
    nice python benchmarks/bench_dpsmote_speed.py --max-n 100000   # quicker
    nice python benchmarks/bench_dpsmote_speed.py --floor-only     # floor table, ~2 min
    nice python benchmarks/bench_dpsmote_speed.py --profile 1000000 10   # cProfile one case
    nice python benchmarks/bench_dpsmote_speed.py --profile-floor 10000000   # cProfile, default
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import io
import pstats
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import peak_memory, print_table, time_interleaved, time_median, write_json
from imblearn.over_sampling import SMOTE


def make_data(n1, d, seed=0):
    """n1 minority + 2·n1 majority rows in [-1, 1]^d."""
    rng = np.random.default_rng(seed)
    X1 = np.clip(rng.normal(0.3, 0.3, size=(n1, d)), -1, 1)
    X0 = np.clip(rng.normal(-0.2, 0.4, size=(2 * n1, d)), -1, 1)
    X = np.vstack([X0, X1])
    y = np.concatenate([np.zeros(2 * n1, dtype=int), np.ones(n1, dtype=int)])
    return X, y


def make_dpsmote(d, seed=0, synopsis="grid", **params):
    from skdp_anomaly.over_sampling import DPSMOTE

    kwargs = {
        "epsilon": 1.0,
        "bounds": (-np.ones(d), np.ones(d)),
        "granularity": 0.25,
        "connectivity": 2,
        "random_state": seed,
    }
    signature = inspect.signature(DPSMOTE).parameters
    if "class_counts" in signature:
        kwargs["class_counts"] = "public"
    if "synopsis" in signature:
        kwargs["synopsis"] = synopsis
    kwargs.update(params)
    return DPSMOTE(**kwargs)


# -- floor: the unavoidable work of fit_resample -----------------------------
def make_floor_data(n, d, minority_share=0.1, seed=0):
    """n rows in [-1, 1]^d, the last ``minority_share·n`` of class 1."""
    rng = np.random.default_rng(seed)
    n1 = round(minority_share * n)
    X = rng.normal(-0.2, 0.4, size=(n, d))
    X[n - n1 :] += 0.5
    np.clip(X, -1.0, 1.0, out=X)
    y = np.zeros(n, dtype=np.int64)
    y[n - n1 :] = 1
    return X, y


def floor_parts(X, y, n_synthetic, n_cells=4, seed=1):
    """The floor's three passes as callables, plus the synthetic block they write.

    The synthetic block (``n_synthetic`` rows of class 1) is drawn here, outside
    the timed region: the floor counts writing the output, not drawing it.
    """
    from sklearn.utils.validation import check_X_y

    d = X.shape[1]
    lo, width = -np.ones(d), np.full(d, 2.0 / n_cells)
    Z = np.random.default_rng(seed).uniform(-1, 1, size=(n_synthetic, d))
    y_syn = np.ones(n_synthetic, dtype=y.dtype)

    def validate():
        return check_X_y(X, y, dtype=[np.float64, np.float32])

    def bin_minority():
        X_min = X[y == 1]
        return np.floor((X_min - lo) / width).astype(np.int16)

    def write_output():
        return np.concatenate([X, Z]), np.concatenate([y, y_syn])

    def floor():
        validate()
        bin_minority()
        write_output()

    return floor, {"validation": validate, "binning": bin_minority, "output": write_output}


def floor_case(n, d, repeats, seed=0):
    """Median times of the floor, default DPSMOTE and the grid synopsis, in alternation."""
    from skdp_anomaly.over_sampling import DPSMOTE

    X, y = make_floor_data(n, d, seed=seed)
    bounds = (-np.ones(d), np.ones(d))
    default = DPSMOTE(epsilon=1.0, bounds=bounds, random_state=seed)
    grid = DPSMOTE(epsilon=1.0, bounds=bounds, synopsis="grid", random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n_synthetic = len(default.fit_resample(X, y)[1]) - n  # warm-up, output size
        grid.fit_resample(X, y)
        floor, parts = floor_parts(X, y, n_synthetic)
        timed = time_interleaved(
            {
                "floor": floor,
                "gaussian": lambda: default.fit_resample(X, y),
                "grid": lambda: grid.fit_resample(X, y),
            },
            repeats=repeats,
        )
        part_times = {k: time_median(f, repeats=repeats)[0] for k, f in parts.items()}
    t_floor = timed["floor"][0]
    return {
        "n": n,
        "d": d,
        "n_minority": int(y.sum()),
        "n_synthetic": n_synthetic,
        "floor_s": t_floor,
        "floor_parts_s": part_times,
        "gaussian_s": timed["gaussian"][0],
        "grid_s": timed["grid"][0],
        "gaussian_ratio": timed["gaussian"][0] / t_floor,
        "grid_ratio": timed["grid"][0] / t_floor,
        "grid_histogram": grid.histogram_,
        "times": {k: v[1] for k, v in timed.items()},
    }


def floor_table(sizes, d, repeats_small=7, repeats_large=3):
    rows = []
    for n in sizes:
        r = floor_case(n, d, repeats_small if n <= 1_000_000 else repeats_large)
        rows.append(r)
        print(
            f"  n={n:>9} d={d}: floor {r['floor_s']:.3f} s, default {r['gaussian_s']:.3f} s "
            f"({r['gaussian_ratio']:.2f}×), grid {r['grid_s']:.3f} s "
            f"({r['grid_ratio']:.2f}×)",
            flush=True,
        )
    table = [
        [
            f"{r['n']:.0e}".replace("+0", ""),
            r["d"],
            r["n_minority"],
            r["n_synthetic"],
            f"{r['floor_s']:.3f}",
            " / ".join(f"{r['floor_parts_s'][k]:.3f}" for k in ("validation", "binning", "output")),
            f"{r['gaussian_s']:.3f}",
            f"{r['gaussian_ratio']:.2f}",
            f"{r['grid_s']:.3f}",
            f"{r['grid_ratio']:.2f}",
            "✓" if r["gaussian_ratio"] <= 3.0 else "✗",
            f"{len(r['times']['floor'])}",
        ]
        for r in rows
    ]
    print_table(
        "fit_resample against the floor (median wall time; 10 % minority, bounds public, ε = 1)",
        [
            "n rows",
            "d",
            "minority",
            "synthetic rows",
            "floor s",
            "validation / binning / output s",
            "default (gaussian) s",
            "default / floor",
            "grid s",
            "grid / floor",
            "default ≤ 3×",
            "repeats",
        ],
        table,
    )
    return rows


def profile_floor(n, d, top=25):
    """cProfile of the default DPSMOTE at n rows (10 % minority)."""
    from skdp_anomaly.over_sampling import DPSMOTE

    X, y = make_floor_data(n, d)
    dp = DPSMOTE(epsilon=1.0, bounds=(-np.ones(d), np.ones(d)), random_state=0)
    prof = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prof.enable()
        dp.fit_resample(X, y)
        prof.disable()
    for key in ("cumulative", "tottime"):
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(top)
        print(
            f"\n### cProfile of default DPSMOTE.fit_resample, n={n}, d={d} (by {key})\n\n"
            f"```\n{buf.getvalue()}```"
        )


def repeats_for(n):
    return 7 if n <= 10_000 else 3 if n <= 100_000 else 1


_CHILD = """
import resource, sys, time, warnings
sys.path.insert(0, {bench_dir!r})
from bench_dpsmote_speed import make_data
from imblearn.over_sampling import SMOTE
X, y = make_data({n1}, {d})
def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20
before = rss_mib()
t0 = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    SMOTE(k_neighbors=5, random_state=0).fit_resample(X, y)
elapsed = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(elapsed, peak - before)
"""


def smote_in_child(n1, d, timeout_s):
    """One SMOTE fit_resample in a child process, killed after ``timeout_s``.

    Returns ``(seconds or None if timed out, peak RSS increase in MiB or nan)``.
    The RSS increase (ru_maxrss minus RSS before the fit) also counts memory
    that tracemalloc cannot see, so it is an upper bound of the tracemalloc
    figure used elsewhere.
    """
    import subprocess

    code = _CHILD.format(bench_dir=str(Path(__file__).resolve().parent), n1=n1, d=d)
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None, float("nan")
    seconds, peak = (float(v) for v in done.stdout.split())
    return seconds, peak


def bench_case(n1, d, smote_budget_s, measure_memory=True, child_timeout_s=300.0, synopsis="grid"):
    X, y = make_data(n1, d)
    reps = repeats_for(n1)
    dp = make_dpsmote(d, synopsis=synopsis)
    sm = SMOTE(k_neighbors=5, random_state=0)
    smote_note = ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n_dp = len(dp.fit_resample(X, y)[1]) - len(y)  # warm-up and output size
        mem_dp = mem_sm = float("nan")
        if n1 >= 1_000_000 and d > 2:
            # SMOTE's neighbour search is minutes long here: one run in a child
            # process with a hard timeout bounds the benchmark.
            t_dp, times_dp = time_median(lambda: dp.fit_resample(X, y), repeats=reps)
            t_sm, mem_sm = smote_in_child(n1, d, child_timeout_s)
            if t_sm is None:
                t_sm, smote_note = child_timeout_s, f"> {child_timeout_s:.0f} s (timed out)"
            else:
                smote_note = "1 run in a child process; SMOTE memory = peak RSS increase"
            times_sm = [t_sm]
        else:
            timed = time_interleaved(
                {"dp": lambda: dp.fit_resample(X, y), "smote": lambda: sm.fit_resample(X, y)},
                repeats=reps,
                budget_s={"smote": smote_budget_s},
            )
            (t_dp, times_dp), (t_sm, times_sm) = timed["dp"], timed["smote"]
            if measure_memory:
                mem_sm, _ = peak_memory(lambda: sm.fit_resample(X, y))
        if measure_memory:
            mem_dp, _ = peak_memory(lambda: dp.fit_resample(X, y))
    # imblearn's "auto" asks for exactly n0 - n1 = n1 rows
    return {
        "n_minority": n1,
        "d": d,
        "synthetic_dpsmote": n_dp,
        "synthetic_smote": n1,
        "dpsmote_s": t_dp,
        "smote_s": t_sm,
        "ratio": t_dp / t_sm,
        "dpsmote_times": times_dp,
        "smote_times": times_sm,
        "dpsmote_peak_mib": mem_dp,
        "smote_peak_mib": mem_sm,
        "histogram": getattr(dp, "histogram_", "–"),
        "smote_note": smote_note,
        "input_mib": X.nbytes / 2**20,
    }


def profile_case(n1, d, top=25, synopsis="grid"):
    X, y = make_data(n1, d)
    dp = make_dpsmote(d, synopsis=synopsis)
    prof = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prof.enable()
        dp.fit_resample(X, y)
        prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    print(f"\n### cProfile of DPSMOTE.fit_resample, n1={n1}, d={d}\n\n```\n{buf.getvalue()}```")
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    print(f"\n(sorted by own time)\n\n```\n{buf.getvalue()}```")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 8, 10])
    parser.add_argument("--max-n", type=int, default=None, help="drop sizes above this")
    parser.add_argument(
        "--smote-budget",
        type=float,
        default=120.0,
        help="seconds of SMOTE timing per case before stopping repeats",
    )
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument(
        "--smote-timeout",
        type=float,
        default=300.0,
        help="seconds before the single SMOTE run at 10^6 rows (d > 2) is killed",
    )
    parser.add_argument("--profile", type=int, nargs=2, metavar=("N1", "D"))
    parser.add_argument(
        "--synopsis",
        choices=("grid", "gaussian"),
        default="grid",
        help="DPSMOTE synopsis of the SMOTE comparison (default: grid)",
    )
    parser.add_argument(
        "--floor-sizes",
        type=int,
        nargs="*",
        default=[1_000_000, 10_000_000],
        help="total rows of the floor table (empty: skip it)",
    )
    parser.add_argument("--floor-d", type=int, default=8)
    parser.add_argument(
        "--floor-only",
        action="store_true",
        help="only the floor table (writes dpsmote_speed_floor.json)",
    )
    parser.add_argument(
        "--profile-floor",
        type=int,
        metavar="N",
        help="cProfile the default DPSMOTE at N rows (floor data)",
    )
    args = parser.parse_args(argv)
    if args.profile:
        profile_case(*args.profile, synopsis=args.synopsis)
        return
    if args.profile_floor:
        profile_floor(args.profile_floor, args.floor_d)
        return
    floor_default = args.floor_sizes == [1_000_000, 10_000_000] and args.floor_d == 8
    if args.floor_only:
        print(f"# DPSMOTE.fit_resample against the floor, d={args.floor_d}")
        t0 = time.perf_counter()
        floor_rows = floor_table(args.floor_sizes, args.floor_d)
        ok = all(r["gaussian_ratio"] <= 3.0 for r in floor_rows)
        print(
            f"\ntarget 'default fit_resample within 3× the floor': {'MET' if ok else 'MISSED'}; "
            f"total {time.perf_counter() - t0:.0f} s"
        )
        write_json(
            "dpsmote_speed_floor" + ("" if floor_default else "_custom"),
            {"floor_rows": floor_rows, "floor_target_met": ok},
        )
        return
    sizes = [n for n in args.sizes if args.max_n is None or n <= args.max_n]
    print(
        "# DPSMOTE.fit_resample vs imblearn SMOTE (k=5): equal output size "
        f"(n1 synthetic rows), DPSMOTE ε=1, synopsis={args.synopsis!r}"
        + (", ν=0.25, ℓ=2" if args.synopsis == "grid" else "")
        + ", bounds [-1, 1]^d"
    )
    rows, t0 = [], time.perf_counter()
    for n1 in sizes:
        for d in args.dims:
            r = bench_case(
                n1,
                d,
                args.smote_budget,
                not args.no_memory,
                args.smote_timeout,
                synopsis=args.synopsis,
            )
            rows.append(r)
            print(
                f"  n1={n1:>8} d={d:>2}: DPSMOTE {r['dpsmote_s']:.3f} s, SMOTE {r['smote_s']:.3f} s "
                f"(ratio {r['ratio']:.3f}), peak {r['dpsmote_peak_mib']:.0f} vs "
                f"{r['smote_peak_mib']:.0f} MiB",
                flush=True,
            )

    def timed_out(r):
        return r["smote_note"].startswith(">")

    table = [
        [
            f"{r['n_minority']:.0e}".replace("+0", ""),
            r["d"],
            r["histogram"],
            r["synthetic_smote"],
            f"{r['dpsmote_s']:.4f}",
            f"> {r['smote_s']:.0f}" if timed_out(r) else f"{r['smote_s']:.4f}",
            f"< {r['ratio']:.3f}" if timed_out(r) else f"{r['ratio']:.3f}",
            f"{r['dpsmote_peak_mib']:.1f}",
            f"{r['smote_peak_mib']:.1f}",
            f"{len(r['dpsmote_times'])}/{len(r['smote_times'])}",
            r["smote_note"] or "–",
        ]
        for r in rows
    ]
    print_table(
        "DPSMOTE vs SMOTE fit_resample (median wall time; ratio < 1 means DPSMOTE is faster)",
        [
            "n minority",
            "d",
            "histogram",
            "synthetic rows",
            "DPSMOTE s",
            "SMOTE s",
            "time ratio DP/SMOTE",
            "DPSMOTE peak MiB",
            "SMOTE peak MiB",
            "repeats DP/SMOTE",
            "note",
        ],
        table,
    )
    ok = all(r["ratio"] <= 1.0 for r in rows if r["d"] <= 10)
    print(
        f"\ntarget 'DPSMOTE no slower than SMOTE for d <= 10': {'MET' if ok else 'MISSED'}"
        f" (worst ratio {max(r['ratio'] for r in rows):.3f}); total {time.perf_counter() - t0:.0f} s"
    )
    floor_rows, floor_ok = [], None
    if args.floor_sizes:
        floor_rows = floor_table(args.floor_sizes, args.floor_d)
        floor_ok = all(r["gaussian_ratio"] <= 3.0 for r in floor_rows)
        print(
            f"\ntarget 'default fit_resample within 3× the floor': "
            f"{'MET' if floor_ok else 'MISSED'}"
        )
    default = (
        args.sizes == [10_000, 100_000, 1_000_000]
        and args.dims == [2, 8, 10]
        and args.max_n is None
        and not args.no_memory
        and args.synopsis == "grid"
        and floor_default
    )
    write_json(
        "dpsmote_speed" + ("" if default else "_custom"),
        {
            "rows": rows,
            "target_met": ok,
            "synopsis": args.synopsis,
            "floor_rows": floor_rows,
            "floor_target_met": floor_ok,
        },
    )


if __name__ == "__main__":
    main()
