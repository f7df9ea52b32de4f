"""Small helpers shared by the change-point benchmarks (``bench_changepoint_*``).

Data generators for the thesis' simulation settings (Lut 2022, §2.6), offline
runs of ``skdp_anomaly.changepoint.PrivateChangePointDetector`` over many
series, the β(α) accuracy curve of Definition 2.1, markdown tables and JSON
output.
"""

from __future__ import annotations

import json
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"

#: α grid for the β(α) tables (the paper's figures run α from 0 to ~50).
ALPHAS = (0, 1, 2, 3, 5, 10, 15, 20, 30, 50)


# --------------------------------------------------------------------- data
def mean_shift(rng, runs: int, n: int, k_star: int, mu0: float, mu1: float, sd: float = 1.0):
    """``runs`` series of length ``n``: N(mu0, sd²) for the first ``k_star``
    points, N(mu1, sd²) after (the change-point model of §2.2.1)."""
    x = rng.normal(0.0, sd, size=(runs, n))
    x[:, :k_star] += mu0
    x[:, k_star:] += mu1
    return x


def drift_series(rng, runs: int, n: int, t_star: int, eta: float, xi0: float, xi1: float):
    """The drift change model of §2.5/§2.6.2: ``x_t = mu_t + e_t``, t = 1..n,
    ``mu_t = eta - (t*-t) xi0`` for t <= t*, ``eta + (t-t*) xi1`` after,
    e_t ~ N(0, 1)."""
    t = np.arange(1, n + 1, dtype=np.float64)
    mu = np.where(t <= t_star, eta - (t_star - t) * xi0, eta + (t - t_star) * xi1)
    return mu + rng.normal(size=(runs, n))


# ------------------------------------------------------------ the estimator
#: The thesis' one-sided scores as the estimator's ``direction``: argmin V(k) means
#: the values rise after the change ("increase"), argmax that they drop.
DIRECTION = {"min": "increase", "max": "decrease", "both": "both"}


def offline_change_points(X, epsilon: float, gamma: float, direction: str, rng) -> np.ndarray:
    """``change_point_`` (k̃, pre-change points) of the estimator for every row of ``X``.

    ``direction``: "max" = argmax V(k) (values drop), "min" = argmin (values
    rise), "both" = the estimator's two-sided default. Each run seeds
    ``PrivateChangePointDetector`` from ``rng``. ε = ∞ (the non-private
    argmax) goes through ``pncpd_batch``, as the estimator's docstring says:
    the estimator itself refuses ``epsilon=inf``.
    """
    from skdp_anomaly.changepoint import PrivateChangePointDetector, pncpd_batch

    if np.isinf(epsilon):
        return pncpd_batch(X, epsilon=np.inf, gamma=gamma, direction=DIRECTION[direction])
    det = PrivateChangePointDetector(epsilon=epsilon, gamma=gamma, direction=DIRECTION[direction])
    out = np.empty(len(X), dtype=np.int64)
    for r, x in enumerate(X):
        out[r] = det.set_params(random_state=int(rng.integers(2**32))).fit(x).change_point_
    return out


# ------------------------------------------------------------------ metrics
def beta_curve(k_tilde, k_star, alphas=ALPHAS) -> list[float]:
    """Empirical β(α) = Pr[|k̃ - k*| > α] (Definition 2.1) for each α.

    ``k_tilde`` may contain NaN for runs without an estimate (e.g. no alarm
    online); those count as errors at every α.
    """
    k_tilde = np.asarray(k_tilde, dtype=np.float64)
    err = np.abs(k_tilde - k_star)
    err = np.where(np.isnan(err), np.inf, err)
    return [float(np.mean(err > a)) for a in alphas]


# ------------------------------------------------------------------- output
def md_table(headers, rows, floatfmt: str = ".3f") -> str:
    """A GitHub markdown table; floats formatted with ``floatfmt``."""

    def fmt(v):
        if isinstance(v, (float, np.floating)):
            if np.isnan(v):
                return "–"
            return format(float(v), floatfmt)
        return str(v)

    lines = [
        "| " + " | ".join(map(str, headers)) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|",
    ]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def environment() -> dict:
    import numpy

    info = dict(
        python=platform.python_version(),
        numpy=numpy.__version__,
        machine=platform.machine(),
        cpus=os.cpu_count(),
        utc=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    try:
        import skdp_anomaly

        info["skdp_anomaly"] = skdp_anomaly.__version__
    except Exception:  # pragma: no cover - benchmarks only
        pass
    return info


def write_json(name: str, payload: dict) -> Path:
    """Write ``benchmarks/results/<name>.json`` (with environment info)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = _finite({"benchmark": name, "environment": environment(), **payload})
    path.write_text(json.dumps(payload, indent=2, default=_jsonable, allow_nan=False) + "\n")
    return path


def _finite(v):
    """NaN/±inf -> None (strict JSON), recursively."""
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return None
    return v


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    raise TypeError(f"not JSON serialisable: {type(v)}")


def median_time(fn, repeats: int = 5, min_time: float = 0.0) -> float:
    """Median wall time (s) of ``fn()`` over ``repeats`` calls (after one
    warm-up call when ``min_time`` > 0 is not needed)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


# ------------------------------------------- several change points: metrics
# The two metrics of the Turing change-point benchmark (van den Burg & Williams,
# "An Evaluation of Change Point Detection Algorithms", arXiv:2003.06222, 2020,
# §4.1), written for one annotation per series. Change points are *first
# post-change indices* in 1..n-1 (``change_points_`` of the estimator, ruptures'
# breakpoints without the final ``n``).


def _true_positives(truth, pred, margin: int) -> int:
    """Greedy matching of the benchmark: each true point takes the closest
    unmatched prediction within ``margin`` (ties: the smaller index)."""
    left = sorted(set(int(p) for p in pred))
    tp = 0
    for tau in sorted(set(int(t) for t in truth)):
        close = [(abs(tau - x), x) for x in left if abs(tau - x) <= margin]
        if close:
            left.remove(min(close)[1])
            tp += 1
    return tp


def f1_margin(truth, pred, margin: int = 5) -> float:
    """F1 of predicted change points against the true ones, with a margin.

    As in the Turing change-point benchmark (van den Burg & Williams 2020,
    §4.1): the start of the series (index 0) is added to both sets, so a
    method that answers "no change" on a series without a change scores
    F1 = 1 (and 2/3 on a series with one change); a prediction is a true
    positive when it lies within ``margin`` of a true point not matched yet;
    precision = TP / |pred ∪ {0}|, recall = TP / |truth ∪ {0}|.

    Examples
    --------
    >>> f1_margin([], [])                    # no change, "no change"
    1.0
    >>> round(f1_margin([50], []), 4)        # missed the one change: P = 1, R = 1/2
    0.6667
    >>> f1_margin([50], [54])                # within the margin of 5
    1.0
    >>> round(f1_margin([50], [56]), 4)      # 6 away: P = R = 1/2
    0.5
    >>> round(f1_margin([50], [48, 52]), 4)  # one of the two matches: P = 2/3, R = 1
    0.8
    >>> round(f1_margin([], [30]), 4)        # a false alarm on a series without change
    0.6667
    """
    truth, pred = set(map(int, truth)) | {0}, set(map(int, pred)) | {0}
    tp = _true_positives(truth, pred, margin)
    p, r = tp / len(pred), tp / len(truth)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _segments(cps, n: int) -> np.ndarray:
    """Boundaries ``[0, c_1, ..., c_m, n]`` of the partition of ``range(n)``."""
    inner = sorted(set(int(c) for c in cps if 0 < int(c) < n))
    return np.array([0, *inner, n])


def covering(truth, pred, n: int) -> float:
    """Covering of the true partition by the predicted one (Arbelaez et al.
    2011, as used by van den Burg & Williams 2020, §4.1).

    ``C = (1/n) Σ_{A in truth} |A| · max_{A' in pred} |A ∩ A'| / |A ∪ A'|``
    over the segments the change points cut ``range(n)`` into. 1 for the
    true partition; "no change" on a series without change scores 1.

    Examples
    --------
    >>> covering([], [], 100)
    1.0
    >>> covering([50], [], 100)              # each half: Jaccard 50/100
    0.5
    >>> covering([50], [50], 100)
    1.0
    >>> covering([], [50], 100)              # a false split halves the cover
    0.5
    >>> round(covering([50], [60], 100), 4)  # (50·50/60 + 50·40/50) / 100
    0.8167
    """
    t, p = _segments(truth, n), _segments(pred, n)
    total = 0.0
    for a0, a1 in zip(t[:-1], t[1:]):
        inter = np.minimum(a1, p[1:]) - np.maximum(a0, p[:-1])
        union = np.maximum(a1, p[1:]) - np.minimum(a0, p[:-1])
        total += (a1 - a0) * float(np.max(np.where(inter > 0, inter / union, 0.0)))
    return float(total / n)
