"""Adapter between the change-point benchmarks and the estimator under test.

Default backend: ``skdp_anomaly.changepoint.PrivateChangePointDetector``.
``use_stand_in(True)`` switches to the brute-force stand-in (dev only).
ε = ∞ means the non-private estimator (argmax/argmin of V(k), no noise).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from diffprivlib.utils import PrivacyLeakWarning

_STAND_IN = False

#: argmin V(k) <=> the values rise after the change ("increase"), argmax <=> "decrease".
DIRECTION = {"min": "increase", "max": "decrease", "both": "both"}


def use_stand_in(flag: bool) -> None:
    global _STAND_IN
    _STAND_IN = bool(flag)


def name() -> str:
    return "brute-force stand-in" if _STAND_IN else "skdp_anomaly.changepoint"


#: deviations from the plain estimator path, reported by the scripts
NOTES: set[str] = set()


def estimator_accepts_inf() -> bool:
    """Whether ``PrivateChangePointDetector(epsilon=inf)`` passes validation."""
    from skdp_anomaly.changepoint import PrivateChangePointDetector
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            PrivateChangePointDetector(epsilon=math.inf).fit(np.arange(20.0))
        return True
    except ValueError:  # sklearn's InvalidParameterError subclasses ValueError
        return False


def _seed(rng):
    return int(rng.integers(2**32))


# ------------------------------------------------------------------ offline
def _standin_offline(x, eps, gamma, direction, rng):
    from _cp_standin import StandInDetector
    d = DIRECTION[direction]
    return StandInDetector(epsilon=eps, gamma=gamma, direction=d,
                           random_state=_seed(rng)).fit(x).change_point_


def offline_batch(X, eps, gamma, direction, rng) -> np.ndarray:
    """k̃ (number of pre-change points) for every row of ``X``.

    ``direction``: "max" = argmax V(k) (a > 1/2, values drop), "min" = argmin
    (values rise), "both" = the estimator's two-sided default.
    """
    if _STAND_IN:
        return np.array([_standin_offline(x, eps, gamma, direction, rng) for x in X])
    from skdp_anomaly.changepoint import PrivateChangePointDetector, pncpd_batch
    if math.isinf(eps) and not estimator_accepts_inf():
        NOTES.add("ε=∞ offline via pncpd_batch (estimator refuses epsilon=inf)")
        return pncpd_batch(X, epsilon=math.inf, gamma=gamma, direction=DIRECTION[direction])
    det = PrivateChangePointDetector(epsilon=eps, gamma=gamma, direction=DIRECTION[direction])
    out = np.empty(len(X), dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # ε = ∞ baseline
        for r, x in enumerate(X):
            out[r] = det.set_params(random_state=_seed(rng)).fit(x).change_point_
    return out


def drift_batch(X, eps, gamma, direction, rng) -> np.ndarray:
    """t̃ in original index units for every drift series (row of ``X``)."""
    if _STAND_IN:
        Y = X[:, 1::2] - X[:, 0::2]
        return 2 * offline_batch(Y, eps, gamma, direction, rng)
    from skdp_anomaly.changepoint import drift_index_to_original, drift_transform
    Y = np.array([drift_transform(x) for x in X])
    return drift_index_to_original(offline_batch(Y, eps, gamma, direction, rng))


# ------------------------------------------------------------------- online
def online_run(x, eps, n, T, gamma, rng, chunk, direction="max"):
    """Feed ``x`` in chunks; return (change_point or nan, alarm centre or nan)."""
    if _STAND_IN:
        from _cp_standin import StandInDetector
        det = StandInDetector(epsilon=eps, gamma=gamma, window=n, threshold=T,
                              direction=DIRECTION[direction],
                              random_state=_seed(rng))
        for s in range(0, len(x), chunk):
            det.partial_fit(x[s:s + chunk])
            if det.detected_:
                return det.change_point_, det.alarm_
        return math.nan, (det.alarm_ if det.alarm_ is not None else math.nan)
    from skdp_anomaly.changepoint import PrivateChangePointDetector, online_pncpd_batch
    if math.isinf(eps) and not estimator_accepts_inf():
        NOTES.add("ε=∞ online via online_pncpd_batch (estimator refuses epsilon=inf)")
        alarm, cp = online_pncpd_batch(x, window=n, threshold=T, epsilon=math.inf, gamma=gamma,
                                       direction=DIRECTION[direction], n_runs=1)
        return (cp[0] if cp[0] >= 0 else math.nan), (alarm[0] if alarm[0] >= 0 else math.nan)
    det = PrivateChangePointDetector(epsilon=eps, gamma=gamma, window=n, threshold=T,
                                     direction=DIRECTION[direction], random_state=_seed(rng))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for s in range(0, len(x), chunk):
            det.partial_fit(x[s:s + chunk])
            if det.detected_:
                break
    cp = det.change_point_ if det.detected_ else math.nan
    return cp, (det.alarm_index_ if det.alarm_index_ is not None else math.nan)
