"""The online calibration of ``PrivateChangePointDetector(window=..., threshold=None)``.

Anchor: the calibration before this change (whole streams of ``horizon``
points simulated, default horizon 10 windows), loaded from git
(``--old-rev``, default ``HEAD``) and run side by side with the current one.

1. **Time** of the first calibration in a fresh process (numba's compiled
   kernels cached on disk, as after the first use) by window and horizon, old
   vs new; the old one only up to ``--old-max-horizon`` (it takes ~10 min at
   200 000 points).
2. **False alarms** on flat streams: whole null streams simulated directly
   (ranks, statistics and AboveThreshold's noise, another seed than the
   calibration's), the fraction with an alarm within the stream, for the
   thresholds of: the old default, the new default (``arl0 = 1000 · window``)
   and ``alpha = 0.05`` per stated horizon (``rho = 0`` and AR(1) nulls);
   and the detector itself (defaults) on flat N(0, 1) streams of 20 000 points.
3. **Detections** of a 1-sd mean shift at ``5 · window`` in a stream of
   ``10 · window`` points (window 100 and 500, ε 1 and 5), old vs new default
   threshold (AboveThreshold 3ε/4, PNCPD ε/4, through ``online_pncpd_batch``):
   the alarm before the change, the change point within ``window/4`` of the
   truth, and any alarm within two windows after the change.

Usage: ``nice python benchmarks/bench_changepoint_online.py [--quick]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cp_common import md_table, write_json  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHARE = 0.75  # AboveThreshold's share of ε with the calibrated threshold

_TIMER = r"""
import json, sys, time
kind, window, horizon, eps, rev = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
if kind == "old":
    import subprocess
    src = subprocess.run(["git", "show", rev + ":skdp_anomaly/changepoint/_online_calibration.py"],
                         capture_output=True, text=True, check=True).stdout
    ns = {"__name__": "skdp_anomaly.changepoint._old_calibration",
          "__package__": "skdp_anomaly.changepoint"}
    exec(compile(src, "old_calibration", "exec"), ns)
    f = lambda: ns["calibrated_threshold"](window, horizon, eps, "both", 0.05)
else:
    from skdp_anomaly.changepoint._online_calibration import calibrated_threshold
    f = lambda: calibrated_threshold(window, eps, "both", 0.05, horizon=horizon)
t = time.perf_counter(); value = f(); dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "threshold": value}))
"""


def old_module(rev: str) -> dict:
    src = subprocess.run(
        ["git", "show", f"{rev}:skdp_anomaly/changepoint/_online_calibration.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    ns = {
        "__name__": "skdp_anomaly.changepoint._old_calibration",
        "__package__": "skdp_anomaly.changepoint",
    }
    exec(compile(src, "old_calibration", "exec"), ns)
    return ns


def timed(kind, window, horizon, eps, rev):
    out = subprocess.run(
        [sys.executable, "-c", _TIMER, kind, str(window), str(horizon), str(eps), rev],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def timing(quick, rev, old_max):
    from skdp_anomaly.changepoint._online_calibration import calibrated_threshold

    calibrated_threshold(20, 3.0, "both", 0.05, horizon=100)  # numba's cache, once
    rows, records = [], []
    for window in (500,) if quick else (100, 500):
        for horizon in (5000, 200_000) if quick else (5000, 20_000, 50_000, 200_000):
            new = timed("new", window, horizon, 5.0 * SHARE, rev)
            old = timed("old", window, horizon, 5.0 * SHARE, rev) if horizon <= old_max else None
            records.append(dict(window=window, horizon=horizon, new=new, old=old))
            rows.append(
                [
                    window,
                    horizon,
                    f"{old['seconds']:.1f}" if old else "not run",
                    f"{new['seconds']:.2f}",
                    f"{old['threshold']:.4f}" if old else "",
                    f"{new['threshold']:.4f}",
                ]
            )
            print(rows[-1], flush=True)
    print("\n### First calibration (fresh process, ε = 5, direction both)\n")
    print(md_table(["window", "horizon", "old s", "new s", "old T", "new T"], rows))
    return records


def null_alarm_times(window, threshold, epsilon, length, n_streams, rho=0.0, seed=1):
    """Points read at the first alarm on directly simulated null streams (-1: none)."""
    from skdp_anomaly.changepoint import _online_calibration as oc

    proto = oc._prototype(window, epsilon)
    table = oc._step_table(window, "both", proto)
    rng = np.random.default_rng([seed, window, length])
    t_steps = proto.to_steps(threshold)
    out = np.full(n_streams, -1, dtype=np.int64)
    rows = max(1, 2_000_000 // length)
    for a in range(0, n_streams, rows):
        b = min(n_streams, a + rows)
        steps = table[oc.null_centre_counts(oc.null_ranks(b - a, length, rho, rng), window)]
        steps += proto.query_noise(steps.shape, rng)
        hit = steps >= (t_steps + proto.threshold_noise(b - a, rng))[:, None]
        out[a:b] = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + window, -1)
    return out


def false_alarms(quick, old):
    from skdp_anomaly.changepoint import PrivateChangePointDetector
    from skdp_anomaly.changepoint._online_calibration import calibrated_threshold

    n_streams = 400 if quick else 2000
    rows, records = [], []
    settings = [
        (500, 5.0, 20_000, 0.0),
        (100, 5.0, 20_000, 0.0),
        (100, 1.0, 20_000, 0.0),
        (100, 5.0, 1000, 0.5),
        (100, 5.0, 20_000, 0.5),
    ]
    for window, eps, length, rho in settings:
        ea = eps * SHARE
        thresholds = {
            "old default (alpha per 10 windows)": old["calibrated_threshold"](
                window, 10 * window, ea, "both", 0.05
            ),
            "new default (arl0 = 1000 windows)": calibrated_threshold(
                window, ea, "both", 0.05, rho=rho
            ),
            f"alpha = 0.05 per horizon {length}": calibrated_threshold(
                window, ea, "both", 0.05, horizon=length, rho=rho
            ),
        }
        for name, t in thresholds.items():
            at = null_alarm_times(window, t, ea, length, n_streams, rho=rho)
            rate = float(np.mean(at >= 0))
            records.append(
                dict(
                    window=window,
                    epsilon=eps,
                    length=length,
                    rho=rho,
                    calibration=name,
                    threshold=t,
                    alarm_rate=rate,
                    n_streams=n_streams,
                )
            )
            rows.append([window, eps, length, rho, name, f"{t:.4f}", f"{rate:.3f}"])
            print(rows[-1], flush=True)
    print(
        f"\n### Flat streams: fraction with an alarm ({n_streams} null streams each; "
        "rho > 0: AR(1) streams, calibrated with that rho)\n"
    )
    print(md_table(["window", "ε", "points", "rho", "threshold", "T", "alarm rate"], rows))
    # the estimator itself, defaults, on flat N(0, 1) streams of 20 000 points
    runs = 100 if quick else 400
    rng = np.random.default_rng(42)
    alarms = [
        PrivateChangePointDetector(epsilon=5.0, window=500, random_state=i)
        .fit(rng.normal(size=20_000))
        .alarm_index_
        is not None
        for i in range(runs)
    ]
    est = dict(window=500, epsilon=5.0, length=20_000, runs=runs, alarm_rate=float(np.mean(alarms)))
    print(
        f"\nDetector with defaults, window 500, ε = 5, flat N(0, 1) streams of 20 000 points: "
        f"alarm in {est['alarm_rate']:.3f} of {runs} runs\n"
    )
    return records, est


def detections(quick, old):
    from skdp_anomaly.changepoint import online_pncpd_batch
    from skdp_anomaly.changepoint._online_calibration import calibrated_threshold

    n_series, n_runs = (20, 10) if quick else (100, 20)
    rows, records = [], []
    for window in (100, 500):
        for eps in (1.0, 5.0):
            ea = eps * SHARE
            thresholds = {
                "old": old["calibrated_threshold"](window, 10 * window, ea, "both", 0.05),
                "new": calibrated_threshold(window, ea, "both", 0.05),
            }
            k_star = 5 * window
            rng = np.random.default_rng([7, window])
            series = [
                np.r_[rng.normal(size=k_star), rng.normal(1.0, 1.0, size=k_star)]
                for _ in range(n_series)
            ]
            for name, t in thresholds.items():
                early = within = soon = 0
                for i, x in enumerate(series):
                    alarm, k = online_pncpd_batch(
                        x,
                        window=window,
                        threshold=t,
                        epsilon=eps,
                        direction="both",
                        n_runs=n_runs,
                        random_state=i,
                        alarm_share=SHARE,
                    )
                    before = (alarm >= 0) & (alarm + window // 2 < k_star)
                    early += before.sum()
                    within += ((~before) & (k >= 0) & (np.abs(k - k_star) <= window // 4)).sum()
                    soon += (
                        (~before) & (alarm >= 0) & (alarm + window // 2 <= k_star + 2 * window)
                    ).sum()
                total = n_series * n_runs
                rec = dict(
                    window=window,
                    epsilon=eps,
                    calibration=name,
                    threshold=t,
                    alarm_before=early / total,
                    located=within / total,
                    alarm_within_two_windows=soon / total,
                )
                records.append(rec)
                rows.append(
                    [
                        window,
                        eps,
                        name,
                        f"{t:.4f}",
                        f"{rec['alarm_before']:.3f}",
                        f"{rec['alarm_within_two_windows']:.3f}",
                        f"{rec['located']:.3f}",
                    ]
                )
                print(rows[-1], flush=True)
    print(f"\n### 1-sd mean shift at 5 windows ({n_series} series x {n_runs} runs)\n")
    print(
        md_table(
            [
                "window",
                "ε",
                "default",
                "T",
                "alarm before",
                "alarm <= 2 windows after",
                "|k - k*| <= window/4",
            ],
            rows,
        )
    )
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--old-rev", default="HEAD")
    parser.add_argument("--old-max-horizon", type=int, default=20_000)
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args()
    old = old_module(args.old_rev)
    payload = {"old_rev": args.old_rev}
    if not args.skip_timing:
        payload["timing"] = timing(args.quick, args.old_rev, args.old_max_horizon)
    payload["false_alarms"], payload["detector_flat_20000"] = false_alarms(args.quick, old)
    payload["detections"] = detections(args.quick, old)
    print(write_json("changepoint_online" + ("_quick" if args.quick else ""), payload))


if __name__ == "__main__":
    main()
