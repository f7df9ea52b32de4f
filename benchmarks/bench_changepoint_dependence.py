"""When alpha holds: the offline change-point test on dependent and real series.

Compares ``PrivateChangePointDetector`` with ``dependence="estimate"`` (the
default: a private turning-point bound on the serial dependence, tests
calibrated under the AR(1) null) against ``dependence="none"`` (the
exchangeable null, the test of earlier releases) on

1. stationary Gaussian AR(1) series without a change (unit marginal variance,
   lag-1 correlation φ), n in {300, 1000}, ε in {1, 5}: P(any change reported);
2. power: a 1-sd mean shift in the middle of n = 300 i.i.d. points and a 2-sd
   shift in AR(1) φ = 0.5, reported within 10 points of the change;
3. real series bundled with statsmodels: P("no change") on series or stretches
   without a documented change, and F1 (margin 5) and covering on the Nile
   (change after 1898), next to the non-private reference
   (:func:`~skdp_anomaly.changepoint.binary_segmentation`) and "always no change".

Every series and every noise draw has its own seed, fixed per run index.

Usage: ``nice python benchmarks/bench_changepoint_dependence.py [--runs 200]``
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.signal import lfilter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cp_common import covering, f1_margin, md_table, write_json  # noqa: E402

MODES = ("none", "estimate")


def ar1(n: int, phi: float, rng) -> np.ndarray:
    """A stationary Gaussian AR(1) series with unit marginal variance."""
    e = rng.normal(size=n)
    e[1:] *= math.sqrt(1.0 - phi * phi)
    return lfilter([1.0], [1.0, -phi], e)


def change_points(x, epsilon, dependence, seed):
    from skdp_anomaly.changepoint import PrivateChangePointDetector, binary_segmentation

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if math.isinf(epsilon):
            return binary_segmentation(x, dependence=dependence).tolist()
        det = PrivateChangePointDetector(epsilon=epsilon, dependence=dependence, random_state=seed)
        return det.fit(x).change_points_.tolist()


def false_alarms(runs):
    rows, out = [], {}
    for n in (300, 1000):
        for eps in (1.0, 5.0):
            for phi in (0.0, 0.3, 0.5, 0.8):
                rates = {}
                for mode in MODES:
                    hits = sum(
                        bool(
                            change_points(
                                ar1(n, phi, np.random.default_rng([1, n, i])), eps, mode, i
                            )
                        )
                        for i in range(runs)
                    )
                    rates[mode] = hits / runs
                out[f"n={n},eps={eps:g},phi={phi:g}"] = rates
                rows.append([n, eps, phi, rates["none"], rates["estimate"]])
                print(rows[-1], file=sys.stderr, flush=True)
    return rows, out


def power(runs):
    rows, out = [], {}
    for label, phi, shift in (
        ("1-sd shift, i.i.d.", 0.0, 1.0),
        ("2-sd shift, AR(1) 0.5", 0.5, 2.0),
    ):
        for eps in (1.0, 5.0):
            rates = {}
            for mode in MODES:
                hits = 0
                for i in range(runs):
                    x = ar1(300, phi, np.random.default_rng([2, int(10 * shift), i]))
                    x[150:] += shift
                    hits += any(abs(k - 150) <= 10 for k in change_points(x, eps, mode, i))
                rates[mode] = hits / runs
            out[f"{label},eps={eps:g}"] = rates
            rows.append([label, eps, rates["none"], rates["estimate"]])
            print(rows[-1], file=sys.stderr, flush=True)
    return rows, out


def real_series():
    """(name, series, documented change points or None when there is none)."""
    from statsmodels.datasets import co2, elnino, macrodata, nile, sunspots

    flow = nile.load_pandas().data["volume"].to_numpy(float)
    macro = macrodata.load_pandas().data
    weekly = co2.load_pandas().data["co2"]
    return [
        ("Nile flow 1871-1970 (change after 1898)", flow, [28]),
        ("Nile flow 1899-1970", flow[28:], []),
        (
            "sunspots, yearly 1700-2008",
            sunspots.load_pandas().data["SUNACTIVITY"].to_numpy(float),
            [],
        ),
        (
            "El Nino SST, monthly 1950-2010",
            elnino.load_pandas().data.iloc[:, 1:].to_numpy(float).ravel(),
            [],
        ),
        ("Mauna Loa CO2, monthly", weekly.resample("MS").mean().interpolate().to_numpy(float), []),
        ("US inflation, quarterly", macro["infl"].to_numpy(float), None),
        ("US real GDP growth, quarterly", np.diff(np.log(macro["realgdp"].to_numpy(float))), []),
    ]


def real(runs):
    rows, out = [], {}
    for name, x, truth in real_series():
        for eps in (1.0, 5.0, math.inf):
            reps = 1 if math.isinf(eps) else runs
            for mode in MODES:
                found = [change_points(x, eps, mode, i) for i in range(reps)]
                none = float(np.mean([not f for f in found]))
                f1 = cov = float("nan")
                if truth:
                    f1 = float(np.mean([f1_margin(truth, f, 5) for f in found]))
                    cov = float(np.mean([covering(truth, f, x.size) for f in found]))
                out[f"{name},eps={eps:g},{mode}"] = {"no_change": none, "f1": f1, "covering": cov}
                rows.append([name, x.size, eps, mode, none, f1, cov])
                print(rows[-1], file=sys.stderr, flush=True)
        if truth:
            rows.append(
                [
                    name,
                    x.size,
                    "-",
                    "always no change",
                    1.0,
                    f1_margin(truth, [], 5),
                    covering(truth, [], x.size),
                ]
            )
    return rows, out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200)
    args = p.parse_args(argv)
    start = time.perf_counter()
    fa_rows, fa = false_alarms(args.runs)
    print("### P(any change reported) on AR(1) series without a change (alpha = 0.05)\n")
    print(md_table(["n", "ε", "φ", "dependence='none'", "'estimate' (default)"], fa_rows))
    pw_rows, pw = power(args.runs)
    print("\n### Reported within 10 points of the change (n = 300, change at 150)\n")
    print(md_table(["series", "ε", "dependence='none'", "'estimate' (default)"], pw_rows))
    real_rows, re = real(args.runs)
    print("\n### Real series (statsmodels): P(no change), F1 (margin 5), covering\n")
    print(md_table(["series", "n", "ε", "dependence", "P(no change)", "F1", "covering"], real_rows))
    elapsed = time.perf_counter() - start
    print(f"\n{args.runs} runs per cell, {elapsed:.0f} s")
    write_json(
        "changepoint_dependence",
        {"runs": args.runs, "false_alarms": fa, "power": pw, "real": re, "seconds": elapsed},
    )


if __name__ == "__main__":
    main()
