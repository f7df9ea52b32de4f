"""The floating-point attack on textbook Laplace noise, as a privacy audit.

``x + rng.laplace(0, b)`` can only produce the floats ``fl(x + f(k))``: a sparse
set that depends on ``x``, so an output unreachable from one neighbour betrays
the other (Mironov 2012). :func:`laplace_reachable` decides reachability
exactly; :func:`floating_point_audit` builds the attacker's events on it.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..exceptions import naming
from ._auditor import AuditResult, audit

_K_MIN, _K_MAX = 1, 2**53 - 1  # numpy rejects the uniform k = 0 and redraws
_WINDOW = np.arange(-2, 3)  # the candidate uniform is within ±2 of the boundary


def _libm_log(arg: np.ndarray) -> np.ndarray:
    # numpy's C sampler calls libm's log, as math.log does; np.log may use its
    # own SIMD code, which need not agree in the last bit on every machine.
    flat = np.ravel(arg).tolist()
    return np.fromiter(map(math.log, flat), np.float64, len(flat)).reshape(np.shape(arg))


def _laplace_noise(k: np.ndarray, scale: float) -> np.ndarray:
    """numpy's ``random_laplace(0, scale)`` given the uniform ``k / 2**53``, bit for bit.

    Repeats each IEEE operation of the C code (``loc = 0`` makes FMA harmless).
    """
    u = k * 2.0**-53  # exact: k < 2**53
    upper = u >= 0.5
    logs = _libm_log(np.where(upper, (2.0 - u) - u, u + u))
    return np.where(upper, 0.0 - scale * logs, 0.0 + scale * logs)


def _same_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # bit equality for non-NaN values: the sign of a zero is visible too
    return (a == b) & (np.signbit(a) == np.signbit(b))


def _candidate_k(noise: np.ndarray, scale: float) -> np.ndarray:
    """The uniform whose Laplace draw is nearest ``noise`` (inverse of the sampler, ±2)."""
    z = noise / scale
    with np.errstate(over="ignore", invalid="ignore"):
        k = np.where(z < 0, 2.0**52 * np.exp(z), 2.0**53 - 2.0**52 * np.exp(-z))
    k = np.clip(np.nan_to_num(k, nan=_K_MIN), _K_MIN, _K_MAX)
    return np.rint(k).astype(np.int64)


def _search_exactly(y: float, x: float, scale: float, k0: int) -> bool:
    """Gallop from ``k0`` and bisect: ``k -> fl(x + f(k))`` is monotone."""
    out = lambda k: x + float(_laplace_noise(np.int64(k), scale))  # noqa: E731
    lo, hi, step = k0, k0, 1  # invariant once bracketed: out(lo) < y <= out(hi)
    if out(k0) < y:
        while hi < _K_MAX and out(hi) < y:
            lo, hi, step = hi, min(hi + step, _K_MAX), 2 * step
        if out(hi) < y:
            return False
    else:
        while lo > _K_MIN and out(lo) >= y:
            hi, lo, step = lo, max(lo - step, _K_MIN), 2 * step
        if out(lo) >= y:
            return bool(_same_float(out(lo), y))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if out(mid) < y else (lo, mid)
    return bool(_same_float(out(hi), y))


def laplace_reachable(y, x, scale: float) -> np.ndarray:
    """Whether each float ``y`` can be ``x + rng.laplace(0.0, scale)`` in float64 (Mironov 2012).

    ``k -> fl(x + f(k))`` is monotone in the uniform ``k / 2**53``: the sampler's inverse locates
    ``k`` to within ±2, the outputs there are computed as numpy's C code does, and a galloping
    search decides the rare rest. Bit for bit (``-0.0`` is never reachable); exact while libm's
    ``log`` is monotone and is the one numpy links. ``x`` broadcasts against ``y``.

    >>> import numpy as np
    >>> from skdp_anomaly.auditing._float_attack import laplace_reachable
    >>> y = 37.25 + np.random.default_rng(0).laplace(0.0, 1.0, size=5)
    >>> bool(laplace_reachable(y, 37.25, 1.0).all())
    True
    >>> laplace_reachable([37.25, 37.25 + 40.0], 37.25, 1.0)  # |noise| < 37 scales
    array([ True, False])
    """
    if not (isinstance(scale, Real) and 0 < scale < math.inf):
        raise naming(ValueError, f"`scale` must be a positive finite float, got {scale!r}.")
    y, x = np.broadcast_arrays(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
    shape, y, x, scale = y.shape, y.ravel(), x.ravel(), float(scale)
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.clip(_candidate_k(y - x, scale)[:, None] + _WINDOW, _K_MIN, _K_MAX)
        outputs = x[:, None] + _laplace_noise(k, scale)
    reachable = _same_float(outputs, y[:, None]).any(axis=1)
    below = (outputs[:, 0] < y) | (k[:, 0] == _K_MIN)
    above = (outputs[:, -1] > y) | (k[:, -1] == _K_MAX)
    for i in np.flatnonzero(~reachable & ~(below & above) & ~np.isnan(y)):
        reachable[i] = _search_exactly(y[i], x[i], scale, int(k[i, len(_WINDOW) // 2]))
    return reachable.reshape(shape)


def grid_reachable(y, granularity: float) -> np.ndarray:
    """Whether each float ``y`` is bit for bit ``fl(granularity * m)`` for an integer ``m``.

    The support of a float-safe (grid, Mironov 2012 Section 5) mechanism, whatever the input;
    ``-0.0`` is not in it.

    >>> from skdp_anomaly.auditing._float_attack import grid_reachable
    >>> grid_reachable([0.75, -3.0, 0.1, 2.0**-3], 0.25)
    array([ True,  True, False, False])
    """
    if not (isinstance(granularity, Real) and 0 < granularity < math.inf):
        raise naming(
            ValueError, f"`granularity` must be a positive finite float, got {granularity!r}."
        )
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.rint(y / granularity)
        # neighbours of m: a grid point y = fl(g * m) need not divide back exactly
        found = [_same_float(granularity * (m + d), y) for d in (-1.0, 0.0, 1.0)]
    return np.logical_or.reduce(found) & np.isfinite(m)


class _Unreachable:
    """Event "some coordinate of the output is unreachable from ``x``", computed once per batch."""

    def __init__(self, reachable: Callable, x: Any):
        self.reachable, self.x, self._memo = reachable, x, {}

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        key = id(outputs)
        if key not in self._memo:  # the batch is kept alive with its answer, so ids stay unique
            ok = np.broadcast_to(np.asarray(self.reachable(outputs, self.x), bool), outputs.shape)
            self._memo[key] = (outputs, ~ok.reshape(len(outputs), -1).all(axis=1))
        return self._memo[key][1]


def _attack_events(inputs: Sequence[Any], reachable: Callable, tail: Mapping | None) -> dict:
    unreachable = {side: _Unreachable(reachable, x) for side, x in zip("AB", inputs)}
    events = {f"unreachable from {side}": event for side, event in unreachable.items()}
    for name, tail_event in (tail or {}).items():
        if not callable(tail_event):
            raise TypeError(f"tail event {name!r} is not callable.")
        for side, event in unreachable.items():
            events[f"unreachable from {side} or {name}"] = lambda out, e=event, t=tail_event: (
                e(out) | np.asarray(t(out), bool)
            )
    return events


def floating_point_audit(
    release: Callable,
    inputs: Sequence[Any],
    reachable: Callable,
    *,
    tail: Mapping[str, Callable] | None = None,
    n_runs: int = 10_000,
    confidence: float = 0.95,
    random_state=None,
    claimed_epsilon: float | None = None,
) -> AuditResult:
    """Audit ``release`` with the floating-point attack: a lower bound on ε.

    Events, fixed before any draw: "the output is unreachable from B" (never
    on B if ``reachable`` is exact), the same swapped, and their unions with
    each ``tail`` event (which keeps a tight mechanism's ordinary bound).

    Parameters
    ----------
    release : callable
        ``release(x, rng, n)`` returns ``n`` outputs, shape ``(n,)`` or ``(n, k)``.
    inputs : pair
        The neighbouring inputs ``(A, B)``.
    reachable : callable
        ``reachable(outputs, x)``: whether each coordinate can come from ``x``
        (e.g. via ``laplace_reachable``); one unreachable coordinate suffices.
    tail : mapping of str to callable, optional
        Extra events (one bool per run), fixed in advance.
    n_runs : int, default=10_000
        Runs per input.
    confidence : float, default=0.95
        The bound holds with this probability (as :func:`~skdp_anomaly.audit` corrects).
    random_state : None, int or numpy.random.Generator
        Drives both inputs' runs.
    claimed_epsilon : float, optional
        Stored on the result for reports.

    Returns
    -------
    AuditResult
        Its best event, e.g. ``"unreachable from B (A>B)"``.

    References
    ----------
    .. [1] I. Mironov, "On significance of the least significant bits for
       differential privacy", ACM CCS 2012, Section 3 (the attack).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.auditing import floating_point_audit
    >>> from skdp_anomaly.auditing._float_attack import laplace_reachable
    >>> naive = lambda x, rng, n: x + rng.laplace(0.0, 1.0, size=n)
    >>> result = floating_point_audit(naive, (0.0, 1.0), lambda y, x: laplace_reachable(y, x, 1.0),
    ...                               n_runs=1_000, random_state=0, claimed_epsilon=1.0)
    >>> bool(result.epsilon_lower_bound > 3)  # far above the claimed 1
    True
    """
    if len(inputs) != 2:
        raise naming(ValueError, f"`inputs` must be a pair, got {len(inputs)} items.")
    if not (0 < confidence < 1):
        raise naming(ValueError, f"`confidence` must be in (0, 1), got {confidence!r}.")
    return audit(
        release,
        tuple(inputs),
        _attack_events(inputs, reachable, tail),
        n_runs=n_runs,
        alpha=1 - confidence,
        batch=True,
        claimed_epsilon=claimed_epsilon,
        random_state=random_state,
        name="floating-point attack",
    )
