"""Neighbouring windows and a learnt analyst report for the DPOAD audits (tests, benchmarks)."""

from __future__ import annotations

import numpy as np

from skdp_anomaly.dpoad._analyst import Analyst
from skdp_anomaly.dpoad._messages import AnalystReport, WindowRelease

__all__ = ["AUDIT_BINS", "AUDIT_CELL", "audit_window", "learnt_report"]

#: 16 equal bins on [0, 1]; the audited cell is bin 5
AUDIT_BINS = np.linspace(0.0, 1.0, 17)
AUDIT_CELL = 5


def audit_window(cell_count: int, base: int = 10, seed: int = 0) -> np.ndarray:
    """Records with ``base`` in every cell except :data:`AUDIT_CELL`, which holds ``cell_count``.

    Two such windows that differ only in ``cell_count`` are neighbours under
    the count-cell relation (one contributor's cell added or removed) when one
    of the counts is 0, and under the record relation when they differ by 1.
    """
    n_bins = AUDIT_BINS.size - 1
    counts = np.full(n_bins, base)
    counts[AUDIT_CELL] = cell_count
    rng = np.random.default_rng(seed)
    cells = np.repeat(np.arange(n_bins), counts)
    return (cells + rng.uniform(0.1, 0.9, cells.size)) / n_bins


def learnt_report(max_count: int = 100, seed: int = 0, detector: str = "kse") -> AnalystReport:
    """An analyst's report after three benign count windows (the last with a 95-count cell).

    The releases are hand-made (noise-free counts), so the learnt distribution
    is the benign one the prediction phase is meant to sample from. With the
    paper's ``detector="kse"`` every window is pooled and the learnt Δ is
    g(25) = 0.25 (max_count 100); with ``"baseline"`` only the first window
    teaches the rates, and Δ is g(32) = 0.32.
    """
    rng = np.random.default_rng(seed)
    # one learning window with fixed rates, so that the 95-count cell of window 2
    # stays out of the learnt distribution, as the audits assume
    analyst = Analyst(
        max_count=max_count, detector=detector, count_model="poisson", learning_windows=1
    )
    n_bins = AUDIT_BINS.size - 1
    for w in range(3):
        counts = rng.poisson(20, n_bins)
        if w == 2:
            counts[AUDIT_CELL] = 95
        report = analyst.receive(
            WindowRelease(w, counts, "count", 1.0, 1.0, "record", None, max_count)
        )
    return report
