"""Admissible AboveThreshold thresholds for ONLINEPNCPD (Lut 2022, Theorem 2.6)."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import NamedTuple

from ..exceptions import naming

_CONVENTIONS = ("proof", "theorem", "section-2.6")


class ThresholdRange(NamedTuple):
    """``[lower, upper]`` = ``[T_L, T_U]`` of Theorem 2.6; may be empty.

    Attributes
    ----------
    lower, upper : float
        ``T_L`` and ``T_U``.

    Examples
    --------
    >>> from skdp_anomaly.changepoint import threshold_range
    >>> r = threshold_range(500, 10.0, 0.9998, 5000, 0.4, 0.1, convention="section-2.6")
    >>> 0.8 in r, r.empty
    (True, False)
    """

    lower: float
    upper: float

    @property
    def empty(self) -> bool:
        """True when ``T_L > T_U``: no threshold is covered by Theorem 2.6."""
        return not self.lower <= self.upper

    def __contains__(self, threshold) -> bool:
        return self.lower <= threshold <= self.upper


def _check_real(name, value, low, high, *, low_open=True, high_open=True, allow_inf=False):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise naming(TypeError, f"`{name}` must be a real number, got {value!r}.")
    value = float(value)
    ok_low = value > low if low_open else value >= low
    ok_high = value < high if high_open else value <= high
    if math.isnan(value) or not (ok_low and ok_high) or (math.isinf(value) and not allow_inf):
        lb, rb = "(" if low_open else "[", ")" if high_open else "]"
        bounds = f"{lb}{low}, {high}{rb}"
        raise naming(ValueError, f"`{name}` must be in the range {bounds}, got {value!r}.")
    return value


def threshold_range(
    n: int,
    epsilon: float,
    a: float,
    k_star: int,
    beta: float,
    gamma: float,
    *,
    convention: str = "proof",
) -> ThresholdRange:
    """Admissible threshold range ``[T_L, T_U]`` of ONLINEPNCPD (Theorem 2.6).

    With a threshold ``T`` in this range, Algorithm 4 with window ``n`` raises its alarm on a window
    containing ``k*`` and reports ``k*`` within the accuracy ``α`` of Theorem 2.6, except with
    probability ``β``. Purely a function of the parameters (no data), so it costs no privacy.

    Parameters
    ----------
    n : int
        Window length (``window`` of :class:`~skdp_anomaly.PrivateChangePointDetector`).
    epsilon : float
        Total ε of ONLINEPNCPD (``inf``: the non-private baseline of §2.6.3).
    a : float
        ``P(x0 > x1)`` for pre-change ``x0`` and post-change ``x1``, in
        ``(1/2, 1]``: the smallest change worth detecting.
    k_star : int
        (An estimate of) the change time, ``> n/2``; larger values give a
        narrower, more conservative range.
    beta : float
        Failure probability in ``(0, 1)``.
    gamma : float
        Constraint parameter in ``(0, 1/4)``, validated only (the range does not depend on it).
    convention : {"proof", "theorem", "section-2.6"}, default="proof"
        Which of the thesis' three statements of ``T_L`` (Notes): its proof's,
        Theorem 2.6's, or the one reproducing §2.6.3.

    Returns
    -------
    ThresholdRange
        Named tuple ``(lower, upper)``; ``.empty`` when ``lower > upper`` (returned, not raised: the
        thesis itself uses thresholds outside an empty, conservative range).

    Notes
    -----
    With ``m = k* - n/2`` queries before the change and
    ``α' = 32 log(8m/β) / (nε)`` (Theorem 2.7 with ``Δ = 2/n``, privacy
    ``ε/2`` and failure ``β/4``), ``T_U = a - sqrt(2/n · log(8/β)) - α'``, and

    * ``"proof"``: ``T_L = 1/2 + sqrt(2/n · log(8m/β)) + α'`` (condition
      (2.5)), the largest, most conservative ``T_L``;
    * ``"theorem"``: as printed, last term ``32 log(m/β)/(nε)`` (a typo);
    * ``"section-2.6"``: ``1/2 + sqrt(2/n · log(m/β)) + 32 log(m/β)/(nε)``, closest to §2.6.3
      (``T_L = 1.29, 0.81, 0.75, 0.69`` for ``ε = 1, 5, 10, ∞`` against the printed
      ``1.28, 0.80, 0.74, 0.69``; no reading matches all four).

    Examples
    --------
    >>> from skdp_anomaly.changepoint import threshold_range
    >>> r = threshold_range(500, 10.0, 0.9998, 5000, 0.4, 0.1, convention="section-2.6")
    >>> round(r.lower, 2), round(r.upper, 2), r.empty
    (0.75, 0.82, False)
    >>> threshold_range(500, 1.0, 0.9998, 5000, 0.4, 0.1).empty
    True
    """
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 2 or n % 2:
        raise ValueError(f"n must be an even int >= 2 (the window length), got {n!r}.")
    epsilon = _check_real("epsilon", epsilon, 0.0, math.inf, high_open=False, allow_inf=True)
    a = _check_real("a", a, 0.5, 1.0, high_open=False)
    beta = _check_real("beta", beta, 0.0, 1.0)
    _check_real("gamma", gamma, 0.0, 0.25)
    if isinstance(k_star, bool) or not isinstance(k_star, Real) or not k_star > n / 2:
        raise ValueError(f"k_star must be a number > n/2 = {n / 2:g}, got {k_star!r}.")
    if convention not in _CONVENTIONS:
        raise ValueError(f"convention must be one of {_CONVENTIONS}, got {convention!r}.")
    m = float(k_star) - n / 2
    log8m = math.log(8 * m / beta)
    alpha_prime = 0.0 if math.isinf(epsilon) else 32 * log8m / (n * epsilon)
    upper = a - math.sqrt(2 / n * math.log(8 / beta)) - alpha_prime
    if convention == "proof":
        lower = 0.5 + math.sqrt(2 / n * log8m) + alpha_prime
    else:
        logm = math.log(m / beta)
        last = 0.0 if math.isinf(epsilon) else 32 * logm / (n * epsilon)
        inner = log8m if convention == "theorem" else logm
        lower = 0.5 + math.sqrt(2 / n * max(inner, 0.0)) + last
    return ThresholdRange(float(lower), float(upper))
