"""Several change points, or none: PrivateChangePointDetector against non-private anchors.

Offline, on three real series with a change documented in the literature and
on synthetic series with 0, 1, 3 and 6 mean shifts, in one run:

* ours: ``PrivateChangePointDetector`` at ε ∈ {0.5, 1, 2, 5, 10}, defaults
  otherwise (``n_change_points="auto"`` once the estimator has it), ``--runs``
  fits per series and ε with ``random_state`` = run index;
* "no change" (the empty answer) and "one change point uniformly at random"
  (seeded), the two trivial anchors;
* ruptures (non-private, ``jump=1``): ``Binseg(model="l2")`` and ``Pelt(model="l2")``
  with the BIC/SIC penalty of the R ``changepoint`` package for a change in
  mean (Killick & Eckley 2014), ``pen = 2 σ̂² log n`` on the l2 cost
  (σ̂ = MAD of the first differences / √2, robust to the shifts), and
  ``Binseg(model="rbf")`` with ``pen = log n`` (the kernel cost of a point is
  at most 1; bandwidth by ruptures' median heuristic).

Metrics: F1 with a margin of 5 and covering, as in the Turing change-point
benchmark (van den Burg & Williams 2020, §4.1; see ``_cp_common.f1_margin``
and ``_cp_common.covering``): the start of the series counts as a change
point for truth and prediction, so "no change" on a series without a change
scores F1 = 1.

Real series (statsmodels' bundled data, nothing downloaded):

* Nile flow at Aswan 1871–1970 (``statsmodels.datasets.nile``): mean drop
  after 1898 (Cobb 1978, Biometrika 65(2)), first post-change index 28;
* US real GDP growth 1959Q2–2009Q3 (``statsmodels.datasets.macrodata``):
  the "Great Moderation", a drop of the volatility of quarterly growth at
  1984Q1 (McConnell & Perez-Quiros 2000, AER 90(5); Kim & Nelson 1999,
  REStat 81(4)). A change of variance, which a location statistic cannot
  see, so every method gets the absolute growth ``100·|Δ log GDP|`` (a
  per-element transform: replace-one neighbours stay neighbours); first
  post-change index 99 (1984Q1).
* US ex-post real interest rate, 1961Q1–1986Q3 (``macrodata`` ``realint``,
  the sample of Garcia & Perron 1996, REStat 78(1)): mean shifts after
  1972Q3 and 1980Q3, the break dates Bai & Perron (2003, J. Appl.
  Econometrics 18(1)) estimate on it; first post-change indices 47 and 79.

Online: ``window=100`` at the defaults (``threshold=None``: calibrated to the
false-alarm level ``alpha``), fed by ``partial_fit`` in chunks: the
false-alarm rate over stationary streams of 1 000 points (i.i.d. N(0, 1),
t(3), AR(1) with φ = 0.5) and the delay after a 1-sd mean shift at 500, at
ε ∈ {1, 2, 5}.

Today's estimator (``--api before``, detected automatically) reports exactly
one change point offline and needs an explicit online threshold: the script
then measures it with ``change_points_ = [change_point_]`` and the thesis'
threshold T = 0.8 (``--legacy-threshold``). With ``--api after`` a missing
argument of the new API stops the script with a message naming it.

Usage: ``nice python benchmarks/bench_changepoint_multi.py [--quick] [--jobs 2]``
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _changepoint_multi_data import (  # noqa: E402
    LENGTHS,
    N_CHANGES,
    NOISES,
    NULLS,
    SHIFT_AT,
    STREAM,
    load_real,
    stream,
    synthetic_set,
)
from _cp_common import covering, f1_margin, md_table, write_json  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
ONLINE_EPSILONS = (1.0, 2.0, 5.0)
MARGIN = 5
WINDOW = 100


# ------------------------------------------------------------ the estimator
def _estimator():
    from skdp_anomaly.changepoint import PrivateChangePointDetector

    return PrivateChangePointDetector


def detect_api() -> str:
    """ "after" when the estimator takes the several-change-point API, else "before"."""
    params = set(_estimator()().get_params())
    return "after" if {"n_change_points", "alpha"} <= params else "before"


def _package_dir() -> str:
    import skdp_anomaly.changepoint as cp

    return str(Path(cp.__file__).resolve().parent)


def fingerprint() -> str:
    """Short hash of the imported ``skdp_anomaly.changepoint`` sources (which may
    be another checkout than this one, e.g. an export of an older commit)."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(Path(_package_dir()).glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def make_detector(**kw):
    """The estimator with ``kw``; a clear stop when it does not take one of them."""
    cls = _estimator()
    missing = sorted(set(kw) - set(cls().get_params()))
    if missing:
        raise SystemExit(
            f"bench_changepoint_multi: PrivateChangePointDetector does not accept {missing} "
            "yet (the several-change-point API). Run with --api before to measure the "
            "single-change estimator of today."
        )
    return cls(**kw)


def offline_params(api: str, eps: float) -> dict:
    if api == "before":
        return dict(epsilon=eps)
    return dict(epsilon=eps, n_change_points="auto", max_change_points=10, alpha=0.05)


def online_params(api: str, eps: float, legacy_threshold: float) -> dict:
    if api == "before":
        return dict(epsilon=eps, window=WINDOW, threshold=legacy_threshold)
    return dict(epsilon=eps, window=WINDOW, threshold=None, alpha=0.05)


def predicted_change_points(det) -> list[int]:
    """``change_points_`` (new API) or ``[change_point_]`` (today's estimator)."""
    cps = getattr(det, "change_points_", None)
    if cps is None:
        cp = getattr(det, "change_point_", None)
        cps = [] if cp is None else [cp]
    return sorted(int(c) for c in cps)


def _fit_clearly(det, x):
    try:
        return det.fit(x)
    except (ValueError, TypeError) as exc:
        raise SystemExit(
            f"bench_changepoint_multi: PrivateChangePointDetector("
            f"{det.get_params()}) refused the fit: {exc}"
        ) from exc


def run_ours(api: str, x, eps: float, runs: int) -> list[list[int]]:
    from skdp_anomaly.exceptions import ChangePointNoiseWarning

    out = []
    with warnings.catch_warnings():
        # a parameter-only warning (noise scale vs n); its effect is what we measure
        warnings.simplefilter("ignore", ChangePointNoiseWarning)
        for r in range(runs):
            det = make_detector(random_state=r, **offline_params(api, eps))
            out.append(predicted_change_points(_fit_clearly(det, x)))
    return out


# ---------------------------------------------------------------- anchors
def sigma_mad_diff(x) -> float:
    """Robust noise sd: MAD of first differences / √2 (insensitive to a few shifts)."""
    d = np.diff(np.asarray(x, dtype=float))
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2))


def run_ruptures(name: str, x) -> list[int]:
    import ruptures as rpt

    x = np.asarray(x, dtype=float)
    n = x.size
    if name == "rbf":
        bkps = rpt.Binseg(model="rbf", jump=1).fit(x).predict(pen=math.log(n))
    else:
        pen = 2.0 * sigma_mad_diff(x) ** 2 * math.log(n)
        # jump=1: every index is a candidate, as for ours (ruptures' default 5 is a grid)
        algo = rpt.Binseg(model="l2", jump=1) if name == "binseg" else rpt.Pelt(model="l2", jump=1)
        bkps = algo.fit(x).predict(pen=pen)
    return [int(b) for b in bkps if b < n]


def run_random(x, runs: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng([seed, 7])
    return [[int(k)] for k in rng.integers(1, len(x), size=runs)]


# ----------------------------------------------------------------- offline
def _task(kind: str, api: str, series: dict, eps, runs: int, seed: int):
    x = series["x"]
    t0 = time.perf_counter()
    if kind == "ours":
        preds = run_ours(api, x, eps, runs)
    elif kind == "no change":
        preds = [[]]
    elif kind == "random":
        preds = run_random(x, runs, seed)
    else:
        preds = [run_ruptures(kind, x)]
    sec = time.perf_counter() - t0
    n, truth = len(x), series["truth"]
    return dict(
        series=series["name"],
        method=kind,
        epsilon=eps,
        seconds=sec,
        f1=float(np.mean([f1_margin(truth, p, MARGIN) for p in preds])),
        cover=float(np.mean([covering(truth, p, n) for p in preds])),
        n_cp=float(np.mean([len(p) for p in preds])),
        says_none=float(np.mean([len(p) == 0 for p in preds])),
        predictions=preds if len(preds) <= 5 else None,
    )


METHODS = [
    ("no change", None),
    ("random", None),
    ("binseg", None),
    ("pelt", None),
    ("rbf", None),
] + [("ours", e) for e in EPSILONS]
LABEL = {
    "no change": "no change",
    "random": "one uniform random change point",
    "binseg": "ruptures Binseg l2, pen 2σ̂²log n",
    "pelt": "ruptures PELT l2, pen 2σ̂²log n",
    "rbf": "ruptures Binseg rbf, pen log n",
    "ours": "PrivateChangePointDetector",
}


def offline(api: str, series: list[dict], runs: int, jobs: int) -> list[dict]:
    from joblib import Parallel, delayed

    tasks = [
        delayed(_task)(kind, api, s, eps, runs, i)
        for i, s in enumerate(series)
        for kind, eps in METHODS
    ]
    return Parallel(n_jobs=jobs)(tasks)


def _mean(rows, key, **where):
    vals = [r[key] for r in rows if all(r[k] == v for k, v in where.items())]
    return float(np.mean(vals)) if vals else float("nan")


def offline_tables(rows: list[dict], series: list[dict]) -> dict[str, str]:
    group = {s["name"]: s["group"] for s in series}
    for r in rows:
        r["group"] = group[r["series"]]
    groups = ["real"] + [f"k={k}" for k in N_CHANGES]
    synth = [g for g in groups if g != "real"]
    tables = {}
    for key, title in (("f1", "F1 (margin 5)"), ("cover", "covering")):
        body = []
        for kind, eps in METHODS:
            sel = dict(method=kind, epsilon=eps)
            cells = [_mean(rows, key, group=g, **sel) for g in groups]
            allsyn = float(
                np.mean(
                    [
                        r[key]
                        for r in rows
                        if r["group"] in synth and r["method"] == kind and r["epsilon"] == eps
                    ]
                )
            )
            body.append(
                [
                    LABEL[kind],
                    "–" if eps is None else f"{eps:g}",
                    *cells,
                    allsyn,
                    _mean(rows, "says_none", group="k=0", **sel),
                ]
            )
        n_real = sum(s["group"] == "real" for s in series)
        tables[key] = md_table(
            [
                "method",
                "ε",
                f"real ({n_real})",
                *[f"synthetic {g}" for g in synth],
                "synthetic all",
                "answers 'no change' on k=0",
            ],
            body,
        )
    body = []
    for kind, eps in METHODS:
        sel = dict(method=kind, epsilon=eps)
        body.append(
            [
                LABEL[kind],
                "–" if eps is None else f"{eps:g}",
                *[_mean(rows, "n_cp", group=g, **sel) for g in groups],
            ]
        )
    tables["n_cp"] = md_table(
        ["method", "ε", "real (truth 1–2)", *[f"{g} (truth {g[2:]})" for g in synth]], body, ".2f"
    )
    noise = {s["name"]: s.get("noise") for s in series}
    body = []
    for kind, eps in METHODS:
        sel = [r for r in rows if r["method"] == kind and r["epsilon"] == eps]
        cells = [
            float(np.mean([r[key] for r in sel if noise[r["series"]] == nz]))
            for key in ("f1", "cover")
            for nz in NOISES
        ]
        body.append([LABEL[kind], "–" if eps is None else f"{eps:g}", *cells])
    tables["noise"] = md_table(
        ["method", "ε", "F1 Gaussian", "F1 t(3)", "cover Gaussian", "cover t(3)"], body
    )
    real = [s["name"] for s in series if s["group"] == "real"]
    body = []
    for kind, eps in METHODS:
        sel = dict(method=kind, epsilon=eps)
        cells = []
        for name in real:
            cells += [
                _mean(rows, "f1", series=name, **sel),
                _mean(rows, "cover", series=name, **sel),
            ]
        body.append([LABEL[kind], "–" if eps is None else f"{eps:g}", *cells])
    tables["real"] = md_table(
        ["method", "ε", *[f"{n} {m}" for n in real for m in ("F1", "cover")]], body
    )
    return tables


def run_online(api: str, kind: str, eps: float, s: int, chunk: int, legacy_threshold: float):
    from skdp_anomaly.exceptions import ChangePointNoiseWarning

    x = stream(kind, s)
    det = make_detector(random_state=s, **online_params(api, eps, legacy_threshold))
    signal = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChangePointNoiseWarning)
        for a in range(0, x.size, chunk):
            try:
                det.partial_fit(x[a : a + chunk])
            except (ValueError, TypeError) as exc:
                raise SystemExit(
                    f"bench_changepoint_multi: online PrivateChangePointDetector("
                    f"{det.get_params()}) refused partial_fit: {exc}"
                ) from exc
            if getattr(det, "detected_", False):
                signal = int(getattr(det, "n_seen_", a + chunk))
                break
    alarm = getattr(det, "alarm_index_", None)
    cp = getattr(det, "change_point_", None)
    return dict(
        alarmed=bool(signal is not None or alarm is not None),
        signal=signal,
        change_point=None if cp is None else int(cp),
    )


def online(api: str, streams: int, chunk: int, jobs: int, legacy_threshold: float):
    from joblib import Parallel, delayed

    cases = [(kind, eps) for eps in ONLINE_EPSILONS for kind in (*NULLS, "shift")]
    res = Parallel(n_jobs=jobs)(
        delayed(_online_block)(api, kind, eps, streams, chunk, legacy_threshold)
        for kind, eps in cases
    )
    return dict(zip([f"{k},eps={e:g}" for k, e in cases], res))


def _online_block(api, kind, eps, streams, chunk, legacy_threshold):
    t0 = time.perf_counter()
    out = [run_online(api, kind, eps, s, chunk, legacy_threshold) for s in range(streams)]
    return dict(runs=out, seconds=time.perf_counter() - t0)


def online_tables(res: dict) -> dict[str, str]:
    fa_rows, d_rows, summary = [], [], {}
    for eps in ONLINE_EPSILONS:
        fa = [
            float(np.mean([r["alarmed"] for r in res[f"{k},eps={eps:g}"]["runs"]])) for k in NULLS
        ]
        fa_rows.append([f"{eps:g}", *fa])
        runs = res[f"shift,eps={eps:g}"]["runs"]
        early = [
            r["signal"] is not None
            and r["signal"] < SHIFT_AT
            or (r["signal"] is None and r["alarmed"])
            for r in runs
        ]
        late = [r for r, e in zip(runs, early) if not e]
        delay = np.array([np.inf if r["signal"] is None else r["signal"] - SHIFT_AT for r in late])
        err = [abs(r["change_point"] - SHIFT_AT) for r in late if r["change_point"] is not None]
        med, p90 = (
            np.percentile(delay, [50, 90], method="inverted_cdf")
            if delay.size
            else (np.nan, np.nan)
        )
        d_rows.append(
            [
                f"{eps:g}",
                float(np.mean(early)),
                float(np.mean(np.isinf(delay))) if delay.size else np.nan,
                _fmt_delay(med),
                _fmt_delay(p90),
                float(np.median(err)) if err else np.nan,
            ]
        )
        summary[f"eps={eps:g}"] = dict(
            false_alarm=dict(zip(NULLS, fa)),
            alarm_before_change=float(np.mean(early)),
            delay_median=_json_delay(med),
            delay_p90=_json_delay(p90),
            missed=float(np.mean(np.isinf(delay))) if delay.size else None,
            median_abs_error=float(np.median(err)) if err else None,
        )
    return dict(
        false_alarm=md_table(["ε", "i.i.d. N(0,1)", "t(3)", "AR(1) φ=0.5"], fa_rows),
        delay=md_table(
            [
                "ε",
                "alarm before the shift",
                "missed by t = 1000",
                "median delay",
                "90th pct delay",
                "median error of k̃ (abs.)",
            ],
            d_rows,
            ".3f",
        ),
        summary=summary,
    )


def _fmt_delay(v):
    return "never" if np.isinf(v) else ("–" if np.isnan(v) else f"{v:.0f}")


def _json_delay(v):
    return None if not np.isfinite(v) else float(v)


# -------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=30, help="private fits per series and ε")
    p.add_argument(
        "--per-cell", type=int, default=2, help="synthetic series per (changes, noise, n) cell"
    )
    p.add_argument("--streams", type=int, default=200, help="online streams per case")
    p.add_argument("--chunk", type=int, default=50, help="partial_fit chunk length")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--api", choices=("auto", "before", "after"), default="auto")
    p.add_argument(
        "--legacy-threshold",
        type=float,
        default=0.8,
        help="online threshold for today's estimator (the thesis' T)",
    )
    p.add_argument("--sections", default="offline,online")
    p.add_argument("--quick", action="store_true", help="smoke run (< 1 min)")
    p.add_argument("--no-json", action="store_true", help="print only (e.g. work in progress)")
    args = p.parse_args(argv)
    defaults = p.parse_args([])
    lengths = LENGTHS
    if args.quick:
        args.runs, args.per_cell, args.streams, lengths = 5, 1, 20, (200, 500)
    api = detect_api() if args.api == "auto" else args.api
    sections = set(args.sections.split(","))
    t_start = time.perf_counter()
    print(
        f"# Several change points, or none — estimator API: **{api}** "
        f"(changepoint sources {fingerprint()})\n"
    )
    out = dict(
        api=api,
        fingerprint=fingerprint(),
        package=_package_dir(),
        margin=MARGIN,
        epsilons=EPSILONS,
        runs=args.runs,
        per_cell=args.per_cell,
        methods={k: LABEL[k] for k, _ in METHODS},
    )
    if "offline" in sections:
        series = load_real() + synthetic_set(args.per_cell, lengths)
        t0 = time.perf_counter()
        rows = offline(api, series, args.runs, args.jobs)
        tabs = offline_tables(rows, series)
        print(
            f"## Offline: mean F1 (margin {MARGIN}), {args.runs} private runs per series and ε; "
            f"{sum(s['group'] != 'real' for s in series)} synthetic series ({args.per_cell} per cell of k × "
            f"{{Gaussian, t(3)}} × n ∈ {lengths})\n"
        )
        print(tabs["f1"], "\n\n## Offline: mean covering\n", sep="")
        print(tabs["cover"], "\n\n## Mean number of change points reported\n", sep="")
        print(tabs["n_cp"], "\n\n## Synthetic series by noise (all k together)\n", sep="")
        print(tabs["noise"], "\n\n## Real series, each\n", sep="")
        print(tabs["real"], "\n", sep="")
        out["offline"] = dict(
            tables=tabs,
            seconds=time.perf_counter() - t0,
            rows=rows,
            series=[
                dict(
                    name=s["name"],
                    n=len(s["x"]),
                    truth=s["truth"],
                    note=s.get("note", s.get("noise")),
                )
                for s in series
            ],
        )
    if "online" in sections:
        t0 = time.perf_counter()
        res = online(api, args.streams, args.chunk, args.jobs, args.legacy_threshold)
        tabs = online_tables(res)
        mode = (
            f"threshold T = {args.legacy_threshold:g} (today's estimator needs one)"
            if api == "before"
            else "threshold=None, alpha = 0.05"
        )
        print(
            f"## Online, window {WINDOW}, {mode}: false-alarm rate over {args.streams} "
            f"stationary streams of {STREAM}\n"
        )
        print(
            tabs["false_alarm"],
            f"\n\n## Online: detection after a 1-sd mean shift at "
            f"{SHIFT_AT} ({args.streams} streams; delay = samples read at the detection − "
            f"{SHIFT_AT}, over the streams without an earlier alarm)\n",
            sep="",
        )
        print(tabs["delay"], "\n", sep="")
        out["online"] = dict(
            window=WINDOW,
            mode=mode,
            streams=args.streams,
            chunk=args.chunk,
            tables={k: v for k, v in tabs.items() if k != "summary"},
            summary=tabs["summary"],
            seconds=time.perf_counter() - t0,
        )
    out["seconds"] = time.perf_counter() - t_start
    print(f"total {out['seconds']:.0f} s")
    custom = any(
        getattr(args, k) != getattr(defaults, k)
        for k in ("runs", "per_cell", "streams", "chunk", "sections", "legacy_threshold")
    )
    name = "changepoint_multi" + ("_quick" if args.quick else "_custom" if custom else "")
    if args.no_json:
        return
    print("wrote", write_json(name, out))
    if name == "changepoint_multi":  # the labelled copy survives the next API's run
        print("wrote", write_json(f"changepoint_multi_{api}", out))


if __name__ == "__main__":
    main()
