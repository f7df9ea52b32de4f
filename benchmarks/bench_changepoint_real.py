"""PNCPD on a real series with a documented change: the Nile river flow.

Data: annual discharge of the Nile at Aswan, 1871–1970 (100 values, 10⁸ m³),
bundled with statsmodels as ``statsmodels.datasets.nile`` (Cobb 1978, "The
problem of the Nile: conditional solution to a changepoint problem",
Biometrika 65(2); Balke 1993). The documented change: the mean flow drops
after 1898 (the first Aswan dam was begun in 1898; flow regime changed), i.e.
the last pre-change year is 1898 and k* = 28 pre-change points.

The flow drops, so a = Pr[x_pre > x_post] > 1/2 and the paper's one-sided
score is the argmax of V(k) (``max``); ``both`` is the estimator's two-sided
default. For each ε we run the private estimator ``--runs`` times on the
same series and report the spread of the last pre-change year 1870 + k̃:
median, IQR, fraction within ±0/±2/±5 years of 1898. Each run is a ``fit``
of ``skdp_anomaly.changepoint.PrivateChangePointDetector``; ε = ∞ is the
non-private argmax from ``pncpd_batch`` (what ``ruptures`` users would get —
also shown).

Usage: ``nice python benchmarks/bench_changepoint_real.py [--runs 1000]``
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cp_common import md_table, offline_change_points, write_json  # noqa: E402

FIRST_YEAR, CHANGE_YEAR = 1871, 1898


def load_nile():
    from statsmodels.datasets import nile

    d = nile.load_pandas().data
    years = d["year"].to_numpy().astype(int)
    flow = d["volume"].to_numpy().astype(float)
    assert years[0] == FIRST_YEAR and len(flow) == 100
    return years, flow


def ruptures_year(flow):
    import ruptures as rpt

    bkp = rpt.Binseg(model="rank", jump=1).fit(flow).predict(n_bkps=1)[0]
    return FIRST_YEAR - 1 + bkp


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1898)
    p.add_argument("--gamma", type=float, default=0.1)
    args = p.parse_args(argv)
    years, flow = load_nile()
    k_star = CHANGE_YEAR - FIRST_YEAR + 1
    rng = np.random.default_rng(args.seed)
    print(
        f"# Nile flow 1871–1970 (statsmodels `nile`), documented change after "
        f"{CHANGE_YEAR} (k* = {k_star}); γ = {args.gamma}, {args.runs} private runs per ε"
        " of skdp_anomaly.changepoint.PrivateChangePointDetector\n"
    )
    rup = ruptures_year(flow)
    print(f"ruptures Binseg(model='rank') last pre-change year: {rup}\n")
    rows, res = [], {}
    X = np.broadcast_to(flow, (args.runs, flow.size)).copy()
    for direction in ("max", "both"):
        for eps in (0.1, 0.5, 1.0, 2.0, 5.0, math.inf):
            k = offline_change_points(X, eps, args.gamma, direction, rng)
            yr = FIRST_YEAR - 1 + k
            q1, med, q3 = np.percentile(yr, [25, 50, 75])
            err = np.abs(yr - CHANGE_YEAR)
            within = [float(np.mean(err <= w)) for w in (0, 2, 5, 10)]
            rows.append(
                [direction, f"{eps:g}", f"{med:.0f}", f"{q1:.0f}–{q3:.0f}", float(q3 - q1), *within]
            )
            res[f"{direction},eps={eps:g}"] = dict(
                median=float(med),
                q1=float(q1),
                q3=float(q3),
                within_0=within[0],
                within_2=within[1],
                within_5=within[2],
                within_10=within[3],
            )
    print(
        md_table(
            ["score", "ε", "median year", "IQR", "IQR width", "=1898", "±2 y", "±5 y", "±10 y"],
            rows,
            ".3f",
        )
    )
    out = dict(
        dataset="statsmodels.datasets.nile (Nile at Aswan 1871-1970)",
        documented_change_last_pre_year=CHANGE_YEAR,
        k_star=k_star,
        gamma=args.gamma,
        runs=args.runs,
        ruptures_rank_year=int(rup),
        estimator="skdp_anomaly.changepoint.PrivateChangePointDetector",
        results=res,
    )
    print("\nwrote", write_json("changepoint_real", out))


if __name__ == "__main__":
    main()
