"""Change points in series people have: real annotated series and simulated nulls.

Real series that install offline, each with the annotation its source gives
(no series here was used to choose a constant; the constants of the series
models and the trend check were chosen on simulated data only, before this run):

* Nile flow 1871–1970 (statsmodels ``nile``): the drop after 1898 (Cobb 1978).
* Seatbelts KSI 1969–1984 (sktime): the UK seat-belt law of 31 January 1983
  (the dataset's own ``label`` column).
* GunPoint and ElectricDevices segmentation series (aeon): the class
  boundaries the loader gives.
* Airline passengers 1949–1960 (sktime), lynx trappings 1821–1934 (sktime)
  and yearly sunspots 1700–2008 (statsmodels): trend, season and cycles with
  no annotated change (the answer is "no change").

Metrics are those of the Turing change-point benchmark (van den Burg and
Williams 2020): F1 with a margin of 5 (the start of the series counts as a
change for both sides) and the segmentation covering. Anchors in the same run:
ruptures' binary segmentation and PELT (``model="l2"``, penalty ``log(n)·var``:
BIC with the series' variance, the usual default) and "no change".

Then the simulated nulls and alternatives (n = 300, 200 runs, P(any change)).

Usage: ``nice python benchmarks/bench_changepoint_series.py [--runs 10]``
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.signal import lfilter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cp_common import md_table, write_json  # noqa: E402

from skdp_anomaly.changepoint import PrivateChangePointDetector
from skdp_anomaly.exceptions import ChangePointNoiseWarning

EPSILONS = (0.5, 1.0, 2.0, 5.0)


def load_real():
    from statsmodels.datasets import nile, sunspots
    import sktime
    from sktime.datasets import load_airline, load_lynx
    from aeon.datasets import load_electric_devices_segmentation, load_gun_point_segmentation
    import pandas as pd

    out = {}
    out["nile"] = (nile.load_pandas().data["volume"].to_numpy(float), [28])
    path = Path(sktime.__file__).parent / "datasets" / "data" / "seatbelts" / "seatbelts.csv"
    sb = pd.read_csv(path)
    out["seatbelts"] = (sb["KSI"].to_numpy(float), [int(np.argmax(sb["label"].to_numpy() > 0))])
    x, _, cps = load_gun_point_segmentation()
    out["gunpoint"] = (x.to_numpy(float), list(map(int, cps)))
    x, _, cps = load_electric_devices_segmentation()
    out["electric_devices"] = (x.to_numpy(float), list(map(int, cps)))
    out["airline"] = (load_airline().to_numpy(float), [])
    out["lynx"] = (load_lynx().to_numpy(float), [])
    out["sunspots"] = (sunspots.load_pandas().data["SUNACTIVITY"].to_numpy(float), [])
    return out


def f1_margin(truth, pred, n, margin=5):
    truth, pred = sorted({0, *truth}), sorted({0, *pred})
    used, tp = set(), 0
    for t in truth:
        for i, p in enumerate(pred):
            if i not in used and abs(p - t) <= margin:
                used.add(i)
                tp += 1
                break
    prec, rec = tp / len(pred), tp / len(truth)
    return 0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec)


def covering(truth, pred, n):
    def segments(cps):
        b = [0, *sorted(c for c in cps if 0 < c < n), n]
        return [set(range(a, c)) for a, c in zip(b[:-1], b[1:]) if c > a]

    seg_p = segments(pred)
    total = 0.0
    for a in segments(truth):
        total += len(a) * max(len(a & b) / len(a | b) for b in seg_p)
    return total / n


def ruptures_cps(x, algo):
    import ruptures as rpt

    pen = np.log(x.size) * np.var(x)
    model = (rpt.Binseg if algo == "binseg" else rpt.Pelt)(model="l2", min_size=2, jump=1)
    return [c for c in model.fit(x).predict(pen=pen) if c < x.size]


def ar(rng, n, phi):
    e = rng.normal(size=n)
    e[1:] *= np.sqrt(1 - phi**2)
    return lfilter([1], [1, -phi], e)


SIMS = {
    "i.i.d.": lambda r, t: r.normal(size=t.size),
    "AR(1) 0.5": lambda r, t: ar(r, t.size, 0.5),
    "AR(1) 0.8": lambda r, t: ar(r, t.size, 0.8),
    "random walk": lambda r, t: np.cumsum(r.normal(size=t.size)),
    "trend 0.01/step + AR(1) 0.5": lambda r, t: 0.01 * t + ar(r, t.size, 0.5),
    "season (period 12, amplitude 1.5) + i.i.d.": lambda r, t: (
        1.5 * np.sin(2 * np.pi * t / 12) + r.normal(size=t.size)
    ),
    "level shift 2 sd, i.i.d.": lambda r, t: r.normal(size=t.size) + 2 * (t >= 150),
    "level shift 2 sd, AR(1) 0.5": lambda r, t: ar(r, t.size, 0.5) + 2 * (t >= 150),
    "spread 1 → 3 sd": lambda r, t: r.normal(size=t.size) * np.where(t >= 150, 3, 1),
    "slope 0 → 0.5 in a random walk": lambda r, t: np.cumsum(
        r.normal(size=t.size) + 0.5 * (t >= 150)
    ),
    "3 shifts up of 2 sd, i.i.d.": lambda r, t: (
        r.normal(size=t.size) + 2 * (t >= 75) + 2 * (t >= 150) + 2 * (t >= 225)
    ),
    "shifts up, down, up of 3 sd, i.i.d.": lambda r, t: (
        r.normal(size=t.size) + 3 * (((t >= 75) & (t < 150)) | (t >= 225))
    ),
    "level shift 3 sd, season": lambda r, t: (
        1.5 * np.sin(2 * np.pi * t / 12) + r.normal(size=t.size) + 3 * (t >= 150)
    ),
}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--sim-runs", type=int, default=200)
    args = p.parse_args(argv)
    warnings.simplefilter("ignore", ChangePointNoiseWarning)
    real = load_real()
    rows, res = [], {"real": {}, "sims": {}}
    methods = {
        "no change": lambda x, s: [],
        "ruptures Binseg": lambda x, s: ruptures_cps(x, "binseg"),
        "ruptures PELT": lambda x, s: ruptures_cps(x, "pelt"),
    }
    for eps in EPSILONS:
        methods[f"ours ε={eps:g}"] = (
            lambda e: (
                lambda x, s: (
                    PrivateChangePointDetector(epsilon=e, random_state=s)
                    .fit(x)
                    .change_points_.tolist()
                )
            )
        )(eps)
    per_series = {}
    for name, fn in methods.items():
        f1s, covs = [], []
        for sname, (x, truth) in real.items():
            runs = args.runs if name.startswith("ours") else 1
            f = [
                (f1_margin(truth, cp, x.size), covering(truth, cp, x.size))
                for cp in (fn(x, s) for s in range(runs))
            ]
            f1s.append(np.mean([a for a, _ in f]))
            covs.append(np.mean([b for _, b in f]))
            per_series.setdefault(sname, {})[name] = (f1s[-1], covs[-1])
        rows.append([name, float(np.mean(f1s)), float(np.mean(covs))])
        res["real"][name] = dict(f1=rows[-1][1], covering=rows[-1][2])
    print(
        f"# Real series ({len(real)}: {', '.join(real)}), mean over series; ours: "
        f"{args.runs} runs per series\n"
    )
    print(md_table(["method", "F1 (margin 5)", "covering"], rows))
    print("\nPer series, F1 / covering:\n")
    names = list(methods)
    print(
        md_table(
            ["series", *names],
            [[s, *[f"{v[m][0]:.2f}/{v[m][1]:.2f}" for m in names]] for s, v in per_series.items()],
        )
    )
    res["per_series"] = per_series
    rows = []
    t = np.arange(300)
    for sname, make in SIMS.items():
        row = [sname]
        for eps in (1.0, 5.0):
            hits = []
            for s in range(args.sim_runs):
                x = make(np.random.default_rng([s, 48]), t)
                hits.append(
                    PrivateChangePointDetector(epsilon=eps, random_state=s).fit(x).detected_
                )
            row.append(float(np.mean(hits)))
        rows.append(row)
        res["sims"][sname] = dict(eps1=row[1], eps5=row[2])
    print(f"\n# Simulated, n = 300, P(any change reported), {args.sim_runs} runs, defaults\n")
    print(md_table(["series", "ε = 1", "ε = 5"], rows, floatfmt=".2f"))
    write_json("changepoint_series", res)


if __name__ == "__main__":
    main()
