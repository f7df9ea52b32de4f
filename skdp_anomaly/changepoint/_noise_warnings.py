"""The change-point detector's warnings: each computed from public parameters or DP outputs only."""

from __future__ import annotations

import math

from .._warn import warn
from ..exceptions import ChangePointNoiseWarning, naming
from ._binseg import SPREAD_SHARE, critical_value, public_rho, segmentation_plan
from ._core import pncpd_sensitivity
from ._dependence import MAX_RHO

# a Laplace scale of 1/4 is half the largest gap (1/2) between the score at a
# change and the score without one: the selection is then close to uniform
_MAX_USEFUL_SCALE = 0.25


def _warn_if_noise_dominates(
    n: int, gamma: float, epsilon: float, what: str, total_epsilon: float
) -> None:
    """Warn when Algorithm 3 (PNCPD) on ``n`` points at ``epsilon`` is close to a uniform
    guess (``n`` is public under replace-one neighbours)."""
    scale = 2.0 * pncpd_sensitivity(n, gamma) / epsilon  # the nominal 2Δ/ε of Algorithm 3
    if scale <= _MAX_USEFUL_SCALE:
        return
    needed = math.ceil(2.0 / (_MAX_USEFUL_SCALE * epsilon * gamma))
    warn(
        naming(
            ChangePointNoiseWarning,
            f"PrivateChangePointDetector: the {what} has {n} samples; with `epsilon="
            f"{total_epsilon:g}` and `gamma={gamma:g}` the report-noisy-max noise has Laplace scale "
            f"{scale:.3g}, above {_MAX_USEFUL_SCALE}, half the largest possible gap between the "
            "statistic at a change and without one, so the reported change point is close to a "
            f"uniform guess. Use at least {needed} samples, or a larger `epsilon` or `gamma`.",
        )
    )


def _check_decidable(n: int, epsilon: float, **search) -> None:
    """Refuse, or warn, when even the largest possible change cannot be told from the noise.

    ``search``: the keywords of :func:`~._binseg.segmentation_plan` but ``n``. A perfect middle step
    scores about ``n/4`` (test) and ``n/8`` (location). ``"auto"``: warn when ``n/4`` is below the
    critical value; refuse (before any charge) when it clears it at most as often as a false alarm.
    ``k`` change points: warn when the location noise scale exceeds ``n/16``.
    """
    plan = segmentation_plan(epsilon, n=n, **search)
    min_size, alpha, direction = search["min_size"], search["alpha"], search["direction"]
    kind, mechanism = next(stage for stage in plan if stage[0] != "dependence")
    best = n / 4.0 if kind == "test" else n / 8.0
    if kind == "test":
        share = 1 - SPREAD_SHARE  # the level channel's share of the test
        b = mechanism.scale / share
        rho = public_rho(search["dependence"])
        limit = critical_value(n, min_size, direction, alpha * share, b, rho)
        if best > limit:
            return
        if 0.5 * math.exp(-(limit - best) / b) <= alpha:
            # a perfect change clears the test no more often than a false alarm does:
            # refused before any charge, as a series too short for min_size is
            raise naming(
                ValueError,
                f"PrivateChangePointDetector: the series has {n} samples; with `epsilon="
                f"{epsilon:g}` and `alpha={alpha:g}` even the largest possible change (score "
                f"{best:g}) clears the private test's critical value {limit:.3g} no more "
                "often than a false alarm does, so no change could be found. Use a longer "
                "series or a larger `epsilon`; nothing was charged.",
            )
        reason = (
            f"the private test's critical value {limit:.3g} is above {best:g}, the "
            "largest score any change can reach, so 'no change' is the likely answer "
            "whatever the data"
        )
    else:
        if mechanism.scale <= best / 2:
            return
        reason = (
            f"the report-noisy-max noise has Laplace scale {mechanism.scale:.3g}, above "
            f"half the largest score any change can reach ({best:g}), so the change "
            "points are close to uniform guesses"
        )
    warn(
        naming(
            ChangePointNoiseWarning,
            f"PrivateChangePointDetector: the series has {n} samples; with `epsilon={epsilon:g}`, "
            f"{reason}. Use a longer series or a larger `epsilon`.",
        )
    )


def warn_too_persistent(noisy_turning_points: int, n: int, series: str) -> None:
    """No test was made: the noisy turning points bound the dependence above
    :data:`~._dependence.MAX_RHO` (post-processing of a DP output)."""
    tested = "series" if series == "level" else "series' increments"
    advice = (
        "For a random-walk-like or trending series, test its increments: "
        "`series='increments'` (or 'auto')."
        if series == "level"
        else "Use a larger `epsilon`, or give a public bound as `dependence`."
    )
    # post-processing of the noisy turning-point count: no raw statistic in it
    warn(
        naming(
            ChangePointNoiseWarning,
            f"PrivateChangePointDetector: the noisy count of turning points "
            f"({noisy_turning_points} of {n - 2} triples) is too low for a calibrated "
            f"test: the {tested} may be too persistent (lag-1 dependence above {MAX_RHO} in "
            "the AR(1) model) for a change to be told from its wandering, or the noise too "
            "large at this length and `epsilon`; no test was made and no change is reported. "
            f"{advice}",
        )
    )
