"""DPSMOTE's warnings, built from DP outputs and parameters only."""

from __future__ import annotations

import numpy as np

from .._warn import warn
from ._gaussian import mean_noise_scale
from ._grid import expected_positive_noise, expected_spurious_mass

__all__ = [
    "DPSMOTENoiseWarning",
    "warn_dense_noise",
    "warn_ignored_params",
    "warn_mean_noise",
    "warn_no_positive_cell",
    "warn_no_synthetic_rows",
    "warn_sparse_mass",
]

#: the DP mean's Laplace scale per coordinate (in half-ranges of the bounds) above
#: which the Gaussian synopsis warns: noise of a quarter of the range or more
MEAN_NOISE_WARN = 0.5
# the sparse release warns when it keeps less than this share of the class size
SPARSE_MIN_MASS_SHARE = 0.5


class DPSMOTENoiseWarning(UserWarning):
    """The released synopsis (mean or histogram) is dominated by noise.

    The message holds DP outputs and parameters only.
    """


def _who(label, class_counts) -> str:
    kind = "noisy" if class_counts == "private" else "public"
    return f"the {kind} size of class {label!r}"


def warn_mean_noise(d, eps_hist, class_size, label, class_counts) -> None:
    """Warn when the DP mean's noise is a large share of the bounds."""
    scale = mean_noise_scale(d, eps_hist, class_size)
    if scale > MEAN_NOISE_WARN:
        warn(
            f"DPSMOTE: the noisy mean of class {label!r} has Laplace noise of scale "
            f"{scale:.3g} half-ranges per feature (d={d}, epsilon_hist={eps_hist:.3g}, "
            f"{_who(label, class_counts)} {int(class_size)}): the synthetic rows are centred "
            "far from the class. Use a larger epsilon or fewer features.",
            DPSMOTENoiseWarning,
        )


def warn_dense_noise(grid, eps_hist, class_size, label, class_counts, auto) -> None:
    """Warn when the dense grid's expected positive noise mass exceeds the class size."""
    mass = grid.size * expected_positive_noise(eps_hist)
    if mass > class_size:
        advice = ("granularity='auto' uses at least 2 cells per feature; only a larger epsilon "
                  "or fewer features help" if auto
                  else "Use granularity='auto' or a larger granularity")
        warn(
            f"DPSMOTE: the dense grid has {grid.size} cells ({grid.n_cells} per feature); at "
            f"epsilon_hist={eps_hist:.3g} their expected positive noise mass is about {mass:.3g}, "
            f"above {_who(label, class_counts)} ({int(class_size)}): most synthetic rows will "
            f"come from empty cells lifted by noise. {advice}.",
            DPSMOTENoiseWarning,
        )


def warn_sparse_mass(grid, eps_hist, hist, class_size, label, class_counts, auto) -> None:
    """Warn when the sparse release keeps far less mass than the class size."""
    released = int(np.maximum(hist.counts, 0).sum())
    if released < SPARSE_MIN_MASS_SHARE * class_size:
        spurious = expected_spurious_mass(grid.size, eps_hist, hist.threshold)
        advice = ("A grid histogram cannot carry this class at this size: use a larger "
                  "epsilon or fewer features" if auto
                  else "Use granularity='auto', a larger granularity or a larger epsilon")
        warn(
            f"DPSMOTE: the sparse histogram of class {label!r} released {len(hist.counts)} "
            f"cells of total count {released} (threshold {hist.threshold}; about "
            f"{min(spurious, released):.3g} of it expected from empty cells), far below "
            f"{_who(label, class_counts)} ({int(class_size)}): the synthetic rows come from "
            f"few, possibly spurious cells. {advice}.", DPSMOTENoiseWarning,
        )


def warn_no_positive_cell(label) -> None:
    """Phase 2 falls back to uniform cells: the noisy histogram has no positive count."""
    warn(
        f"DPSMOTE: no cell of the noisy histogram of class {label!r} is "
        "positive; its synthetic rows are drawn uniformly over the bounds. "
        "Use a larger epsilon, granularity='auto' or a larger granularity.",
        DPSMOTENoiseWarning,
    )


def warn_no_synthetic_rows() -> None:
    warn(
        "DPSMOTE generated no synthetic rows: the (noisy) class sizes already meet "
        "sampling_strategy.", UserWarning,
    )


def warn_ignored_params(synopsis: str, changed: list) -> None:
    """Parameters of the other synopsis were set: they have no effect."""
    if changed:
        other = "grid" if synopsis == "gaussian" else "gaussian"
        verb = "applies" if len(changed) == 1 else "apply"
        warn(f"DPSMOTE: {', '.join(changed)} {verb} only to synopsis={other!r}, so "
             f"ignored with synopsis={synopsis!r}.", UserWarning)
