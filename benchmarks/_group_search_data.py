"""Data of ``bench_group_search.py``'s paper sections: the §6.1 thresholds, the
synthetic sets of the paper's two shapes and the statsmodels series."""

from __future__ import annotations

import numpy as np

from _common import print_table

N_SYNTH = 1500
PAPER_RATIOS = {"mixture": 0.647, "skewed": 0.701}  # the paper's datasets 6 and 8


def thresholds(scores: np.ndarray) -> tuple[int, float, float]:
    """§6.1: the largest score is i*, x_j the largest other; t_h, t_ℓ at 10 % of the gap."""
    order = np.argsort(scores)
    i_star, x_star, x_j = int(order[-1]), float(scores[order[-1]]), float(scores[order[-2]])
    gap = x_star - x_j
    return i_star, x_j + 0.1 * gap, x_star - 0.1 * gap


def synthetic(shape: str, ratio: float, n: int = N_SYNTH, seed: int = 0) -> np.ndarray:
    """Non-anomalous scores of one shape, plus one anomaly placed so that the
    §6.1 thresholds have the given ratio (t_h − t_ℓ)/t_ℓ."""
    rng = np.random.default_rng(seed)
    if shape == "mixture":  # two normal components, like A1 series with level shifts
        comp = rng.random(n - 1) < 0.6
        x = np.where(comp, rng.normal(10.0, 1.0, n - 1), rng.normal(14.0, 1.5, n - 1))
        x = np.clip(x, 0.0, None)
    elif shape == "skewed":  # most mass near 0, long right tail
        x = rng.lognormal(0.0, 1.0, n - 1)
    else:
        raise ValueError(shape)
    x_j = float(x.max())
    gap = ratio * x_j / (0.8 - 0.1 * ratio)  # solves 0.8·gap / (x_j + 0.1·gap) = ratio
    pos = int(rng.integers(n))
    return np.insert(x, pos, x_j + gap)


def real_series() -> dict:
    """statsmodels series → |deviation from a centred rolling median of 5|."""
    import pandas as pd
    import statsmodels.api as sm

    out = {}
    for name, col in (("co2", "co2"), ("sunspots", "SUNACTIVITY"), ("nile", "volume")):
        s = getattr(sm.datasets, name).load_pandas().data[col].dropna().to_numpy(float)
        med = pd.Series(s).rolling(5, center=True, min_periods=1).median().to_numpy()
        out[name] = np.abs(s - med)
    return out


def dataset(name: str, scores: np.ndarray, desc: str) -> dict:
    i_star, low, high = thresholds(scores)
    return {
        "name": name,
        "scores": scores,
        "i_star": i_star,
        "low": low,
        "high": high,
        "ratio": (high - low) / low,
        "n": scores.size,
        "desc": desc,
    }


def build_data(quick: bool) -> list[dict]:
    """The data sets of sections 1 (paper ratios, ratio grid, real series), printed."""
    data = [
        dataset(
            s,
            synthetic(s, r, seed=6 if s == "mixture" else 8),
            f"synthetic {s}, n = {N_SYNTH}, ratio set to {r} (paper's data set "
            f"{6 if s == 'mixture' else 8})",
        )
        for s, r in PAPER_RATIOS.items()
    ]
    for shape in ("mixture", "skewed"):
        for r in (0.2, 0.4, 1.0, 2.0) if not quick else (0.3, 1.0):
            data.append(
                dataset(
                    f"{shape}-r{r:g}",
                    synthetic(shape, r, seed=100 + int(10 * r)),
                    f"synthetic {shape}, n = {N_SYNTH}, ratio {r}",
                )
            )
    try:
        for name, scores in real_series().items():
            data.append(
                dataset(
                    name,
                    scores,
                    f"statsmodels {name}: abs(x − rolling median(5)), largest taken as the anomaly",
                )
            )
    except ImportError:
        print("statsmodels is not installed: real series skipped (pip install statsmodels)")
    print_table(
        "Data (§6.1 preprocessing)",
        ["name", "n", "t_ℓ", "t_h", "(t_h − t_ℓ)/t_ℓ", "what"],
        [
            [
                d["name"],
                d["n"],
                f"{d['low']:.4g}",
                f"{d['high']:.4g}",
                f"{d['ratio']:.3f}",
                d["desc"],
            ]
            for d in data
        ],
    )
    return data
