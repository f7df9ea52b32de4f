"""Vectorised many-run versions of PNCPD / ONLINEPNCPD for Monte Carlo studies and privacy
audits: the estimator's output distributions (same statistic, sensitivities and noise,
:mod:`._core`), not its random stream.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import naming
from ..privacy import AboveThreshold
from ..privacy._rng import check_random_state
from ._core import (
    DIRECTIONS,
    candidate_range,
    centre_queries,
    pncpd_decode,
    pncpd_scores,
    pncpd_select,
)
from ._in_memory import reject_dask_collection
from ._statistic import sliding_centre_mid_counts

_CELLS = 4_000_000  # noise matrix entries per vectorised block


def _check_common(epsilon, gamma, direction, gamma_max=0.5):
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon > 0:
        raise naming(
            ValueError, f"`epsilon` must be a float in the range (0, inf], got {epsilon!r}."
        )
    if not 0 < gamma < gamma_max:
        raise naming(ValueError, f"`gamma` must be in the range (0, {gamma_max}), got {gamma!r}.")
    if direction not in DIRECTIONS:
        raise naming(ValueError, f"`direction` must be one of {DIRECTIONS}, got {direction!r}.")


def _as_float_array(x, name, where):
    reject_dask_collection(x, where)
    arr = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity.")
    return arr


def _select_many(scores, n_runs, n, gamma, epsilon, rng):
    """``n_runs`` report-noisy-max draws over the rows of ``scores`` (1-D or 2-D)."""
    width = scores.shape[-1]
    step = max(1, _CELLS // width)
    out = np.empty(n_runs, dtype=np.int64)
    for a in range(0, n_runs, step):
        b = min(n_runs, a + step)
        block = np.broadcast_to(scores, (b - a, width)) if scores.ndim == 1 else scores[a:b]
        out[a:b] = pncpd_select(block, n, gamma, epsilon, rng)
    return out


def pncpd_batch(
    X,
    *,
    epsilon,
    gamma=0.1,
    direction="both",
    n_runs=None,
    random_state=None,
    return_direction=False,
):
    """Many independent runs of PNCPD (Algorithm 3), vectorised.

    Parameters
    ----------
    X : array-like of shape (n_series, n) or (n,)
        2-D: one run per row (a Monte Carlo study over fresh data). 1-D: ``n_runs`` runs on the same
        series (a privacy audit); the statistic is computed once.
    epsilon : float
        Privacy parameter of each run (``np.inf``: non-private argmax).
    gamma : float, default=0.1
        Constraint γ: candidates ``{⌈γn⌉, ..., ⌊(1-γ)n⌋}``, in ``(0, 1/2)``.
    direction : {"both", "increase", "decrease"}, default="both"
        As for :class:`~skdp_anomaly.PrivateChangePointDetector`.
    n_runs : int, optional
        Required for 1-D ``X``; must be None for 2-D.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the noise of all runs.
    return_direction : bool, default=False
        Also return a bool array, True where the reported change is an
        increase (the full output of ``direction="both"``).

    Returns
    -------
    k : ndarray of int64, shape (n_series,) or (n_runs,)
        ``change_point_`` of each run.
    increase : ndarray of bool, same shape
        Only with ``return_direction=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.changepoint import pncpd_batch
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(0, 1, 600), rng.normal(3, 1, 400)])
    >>> k = pncpd_batch(x, epsilon=2.0, n_runs=1000, random_state=0)
    >>> k.shape, bool(abs(np.median(k) - 600) <= 10)
    ((1000,), True)
    """
    _check_common(epsilon, gamma, direction)
    X = _as_float_array(X, "X", "pncpd_batch")
    if X.ndim == 1:
        if n_runs is None or int(n_runs) < 1:
            raise ValueError("n_runs must be a positive int for a 1-D X.")
        n_runs = int(n_runs)
    elif X.ndim == 2:
        if n_runs is not None:
            raise ValueError("n_runs must be None for a 2-D X (one run per row).")
        n_runs = X.shape[0]
    else:
        raise ValueError(f"X must be 1-D or 2-D, got shape {X.shape}.")
    rng = check_random_state(random_state)
    n = X.shape[-1]
    ks, scores = pncpd_scores(X, gamma, direction)
    idx = _select_many(scores, n_runs, n, gamma, float(epsilon), rng)
    k, names = pncpd_decode(idx, ks, direction)
    return (k, names == "increase") if return_direction else k


def online_pncpd_batch(
    x,
    *,
    window,
    threshold,
    epsilon,
    gamma=0.1,
    direction="both",
    n_runs,
    random_state=None,
    alarm_share=0.5,
):
    """Many independent runs of ONLINEPNCPD (Algorithm 4) on one finite stream.

    The window statistics are computed once; each run draws its own noisy
    threshold, query noises and PNCPD noise.

    Parameters
    ----------
    x : array-like of shape (m,)
        The stream.
    window : int
        Window length ``n`` (even, >= 4), as for :class:`~skdp_anomaly.PrivateChangePointDetector`.
    threshold : float
        AboveThreshold threshold ``T``.
    epsilon : float
        Total ε of each run: ``alarm_share·ε`` AboveThreshold, the rest PNCPD
        (``np.inf``: noiseless).
    gamma : float, default=0.1
        Constraint γ of the PNCPD step, in ``(0, 1/4)``.
    direction : {"both", "increase", "decrease"}, default="both"
        As for :class:`~skdp_anomaly.PrivateChangePointDetector`.
    n_runs : int
        Number of independent runs.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the noise of all runs.
    alarm_share : float, default=0.5
        AboveThreshold's share of ε: Algorithm 4's 1/2 (a given threshold);
        the estimator's calibrated threshold uses 3/4.

    Returns
    -------
    alarm_index : ndarray of int64, shape (n_runs,)
        Centre of the alarming window (``alarm_index_``), -1 if no alarm.
    change_point : ndarray of int64, shape (n_runs,)
        ``change_point_``; -1 without a detection (no alarm, or the stream
        ended before the ``⌈γn⌉`` points PNCPD waits for).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.changepoint import online_pncpd_batch
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[rng.normal(5, 1, 1000), rng.normal(0, 1, 500)]
    >>> alarm, k = online_pncpd_batch(x, window=200, threshold=0.8, epsilon=10.0,
    ...                               direction="decrease", n_runs=200, random_state=0)
    >>> bool(np.mean(np.abs(k - 1000) <= 10) > 0.8)
    True
    """
    _check_common(epsilon, gamma, direction, gamma_max=0.25)
    x = _as_float_array(x, "x", "online_pncpd_batch")
    if x.ndim != 1 or not isinstance(window, (int, np.integer)) or window < 4 or window % 2:
        raise naming(ValueError, "x must be 1-D and `window` an even int >= 4.")
    if x.size < window:
        raise naming(ValueError, f"x has {x.size} points, fewer than `window={window}`.")
    n_runs, epsilon, rng = int(n_runs), float(epsilon), check_random_state(random_state)
    h, g = window // 2, candidate_range(window, gamma)[0]
    u = sliding_centre_mid_counts(x, window)[0] / float(2 * h * h)
    q = centre_queries(u, direction)

    hit = np.full(n_runs, -1, dtype=np.int64)
    if math.isinf(epsilon):
        above = np.flatnonzero(q > threshold)
        hit[:] = above[0] if above.size else -1
    else:
        eps_alarm = epsilon * alarm_share
        proto = AboveThreshold(float(threshold), eps_alarm, sensitivity=2.0 / window, rng=rng)
        q_steps, t_steps = proto.to_steps(q), proto.threshold_steps
        step = max(1, _CELLS // q.size)
        for a in range(0, n_runs, step):
            b = min(n_runs, a + step)
            noisy_t = t_steps + proto.threshold_noise((b - a, 1), rng)
            noisy_q = q_steps + proto.query_noise((b - a, q.size), rng)
            passed = noisy_q >= noisy_t
            first = np.argmax(passed, axis=1)
            hit[a:b] = np.where(passed[np.arange(b - a), first], first, -1)

    alarm = np.where(hit >= 0, hit + h, -1)
    change = np.full(n_runs, -1, dtype=np.int64)
    done = (hit >= 0) & (hit + window + g <= x.size)
    for s in np.unique(hit[done]):
        runs = np.flatnonzero(done & (hit == s))
        seg = x[s + g : s + g + window]
        ks, scores = pncpd_scores(seg, gamma, direction)
        idx = _select_many(scores, runs.size, window, gamma, epsilon * (1 - alarm_share), rng)
        change[runs] = s + g + pncpd_decode(idx, ks, direction)[0]
    return alarm, change
