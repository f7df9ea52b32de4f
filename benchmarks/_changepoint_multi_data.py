"""Series of ``bench_changepoint_multi.py``: the real series with documented changes,
synthetic series with 0, 1, 3 or 6 mean shifts, and the online streams."""

from __future__ import annotations

import math

import numpy as np

N_CHANGES = (0, 1, 3, 6)
LENGTHS = (200, 500, 1000)
NOISES = ("gauss", "t3")
NULLS = ("iid", "t3", "ar1")
STREAM, SHIFT_AT = 1000, 500


def load_real() -> list[dict]:
    from statsmodels.datasets import macrodata, nile

    flow = nile.load_pandas().data["volume"].to_numpy(float)
    d = macrodata.load_pandas().data
    growth = 100 * np.abs(np.diff(np.log(d["realgdp"].to_numpy(float))))
    row_1984q1 = int(np.flatnonzero((d["year"] == 1984) & (d["quarter"] == 1))[0])

    def row(year, quarter):
        return int(np.flatnonzero((d["year"] == year) & (d["quarter"] == quarter))[0])

    # the sample and break dates of Bai & Perron (2003, J. Appl. Econometrics 18(1), §6):
    # regimes end in 1972Q3 and 1980Q3, so the first post-change quarters are 1972Q4, 1980Q4
    realint, first, last = d["realint"].to_numpy(float), row(1961, 1), row(1986, 3)
    return [
        dict(
            name="nile",
            group="real",
            x=flow,
            truth=[28],
            note="Nile at Aswan 1871-1970, mean drop after 1898 (Cobb 1978)",
        ),
        dict(
            name="us_gdp_volatility",
            group="real",
            x=growth,
            truth=[row_1984q1 - 1],
            note="100|dlog real GDP| 1959Q2-2009Q3, volatility drop at 1984Q1 "
            "(McConnell & Perez-Quiros 2000)",
        ),
        dict(
            name="us_real_interest",
            group="real",
            x=realint[first : last + 1],
            truth=[row(1972, 4) - first, row(1980, 4) - first],
            note="US ex-post real interest rate 1961Q1-1986Q3, mean shifts after 1972Q3 "
            "and 1980Q3 (Garcia & Perron 1996; Bai & Perron 2003)",
        ),
    ]


def synthetic(k: int, noise: str, n: int, seed: int) -> dict:
    """``k`` mean shifts of 1–2 sd (random sign) at jittered, roughly even
    positions; unit-sd Gaussian or t(3) noise."""
    rng = np.random.default_rng(seed)
    base = n * np.arange(1, k + 1) / (k + 1)
    jitter = rng.uniform(-1, 1, k) * n / (8 * (k + 1))
    cps = np.round(base + jitter).astype(int)
    level = np.concatenate([[0.0], np.cumsum(rng.uniform(1, 2, k) * rng.choice([-1, 1], k))])
    mean = np.repeat(level, np.diff(np.r_[0, cps, n]))
    e = rng.normal(size=n) if noise == "gauss" else rng.standard_t(3, n) / math.sqrt(3)
    return dict(
        name=f"k{k}_{noise}_n{n}_s{seed}",
        group=f"k={k}",
        noise=noise,
        n_changes=k,
        x=mean + e,
        truth=cps.tolist(),
    )


def synthetic_set(per_cell: int, lengths) -> list[dict]:
    out, seed = [], 0
    for k in N_CHANGES:
        for noise in NOISES:
            for n in lengths:
                for _ in range(per_cell):
                    out.append(synthetic(k, noise, n, 1000 + seed))
                    seed += 1
    return out


def stream(kind: str, s: int) -> np.ndarray:
    rng = np.random.default_rng([NULLS.index(kind) if kind in NULLS else 9, s])
    if kind == "iid" or kind == "shift":
        x = rng.normal(size=STREAM)
        if kind == "shift":
            x[SHIFT_AT:] += 1.0
        return x
    if kind == "t3":
        return rng.standard_t(3, STREAM) / math.sqrt(3)
    phi = 0.5
    e = rng.normal(size=STREAM + 200) * math.sqrt(1 - phi**2)
    x = np.empty_like(e)
    x[0] = e[0] / math.sqrt(1 - phi**2)
    for t in range(1, e.size):
        x[t] = phi * x[t - 1] + e[t]
    return x[200:]  # burn-in: stationary, unit marginal sd
