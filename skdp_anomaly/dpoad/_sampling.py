"""The sensitivity sampler's parameters (Mohammady et al., Thm II.2 and IV.2) and its draw."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import lambertw

from ..exceptions import naming
from ._messages import SamplingParameters

# the printed fit of the prediction-phase ρ* (Thm IV.2): p / (m + q)^r
_FIT_P, _FIT_Q, _FIT_R = 1.426, 0.8389, 0.4589
# k = ceil(m·x) in floating point: a hair above an exact integer must not add one
_CEIL_SLACK = 1e-9


def refusal(name: str, must: str, value) -> ValueError:
    """The error for a parameter ``name`` that is not ``must``."""
    return naming(ValueError, f"`The {name!r} parameter` must be {must}; got {value!r}.")


def check_int(name: str, value, *, none: bool = False) -> int | None:
    """An int >= 1 (or None, when ``none``), refused naming the parameter ``name``."""
    if none and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise refusal(name, "an int >= 1" + (" or None" if none else ""), value)
    return int(value)


def check_real(name: str, value, low: float, high: float, closed: bool = False) -> float:
    """A real in ``(low, high)`` (``[low, high)`` when ``closed``), refused naming ``name``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (low <= value if closed else low < value)
        or not value < high
    ):
        raise refusal(
            name, f"a float in the range {'[' if closed else '('}{low:g}, {high:g})", value
        )
    return float(value)


def _ceil(x: float) -> int:
    return int(math.ceil(x - _CEIL_SLACK))


def _learning(gamma: float) -> SamplingParameters:
    # Thm II.2 (Rubinstein & Aldà): ρ = exp(W₋₁(−γ/(2√e)) + ½) minimises m
    rho = math.exp(lambertw(-gamma / (2.0 * math.sqrt(math.e)), -1).real + 0.5)
    m = _ceil(math.log(1.0 / rho) / (2.0 * (gamma - rho) ** 2))
    k = _ceil(m * (1.0 - gamma + rho + math.sqrt(math.log(1.0 / rho) / (2.0 * m))))
    return SamplingParameters("learning", m, k, rho)


def _dkw_term(rho: float) -> float:
    """``−log(1 − √(1 − ρ))``, the prediction phase's confidence term."""
    return -math.log1p(-math.sqrt(1.0 - rho))


def _prediction_k(m: int, gamma: float, rho: float) -> float:
    return m * (1.0 - gamma + rho + math.sqrt(_dkw_term(rho) / (2.0 * m)))


def _prediction_rho(m: int, gamma: float, how: str) -> float:
    if how == "fit":
        return _FIT_P / (m + _FIT_Q) ** _FIT_R
    # the true minimiser of k over ρ in (0, γ); k(ρ) is convex there
    result = minimize_scalar(
        lambda r: _prediction_k(m, gamma, r),
        bounds=(1e-12, gamma),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(result.x)


def _min_prediction_m(rho: float, epsilon: float, learning_windows: int) -> int:
    # Thm IV.2: m >= -2 log(1 - sqrt(1 - ρ)) / (T - sqrt(T² - 4))², T = 2 + n ε / (2 N c),
    # with n / N = learning_windows (windows released before the prediction phase), c = 1
    t = 2.0 + learning_windows * epsilon / 2.0
    return _ceil(2.0 * _dkw_term(rho) / (t - math.sqrt(t * t - 4.0)) ** 2)


def _prediction(
    gamma: float, m: int, epsilon: float, learning_windows: int, rule: str
) -> SamplingParameters:
    def enough(m: int) -> bool:  # Thm IV.2's lower bound, met at ρ(m)
        return m >= _min_prediction_m(_prediction_rho(m, gamma, rule), epsilon, learning_windows)

    requested = m
    if not enough(m):
        # the smallest m' meeting the bound at ρ(m'), by doubling then bisection
        lo, hi = m, 2 * m
        while not enough(hi):
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if enough(mid) else (mid, hi)
        m = hi
    rho = _prediction_rho(m, gamma, rule)
    k = _ceil(_prediction_k(m, gamma, rho))
    if k > m:
        raised = "" if m == requested else f" (raised to Thm IV.2's lower bound m={m})"
        raise naming(
            ValueError,
            f"`sensitivity_samples={requested}`{raised} is too small for `gamma={gamma!r}`: the "
            f"prediction phase needs k <= m but Thm IV.2 gives k={k}. Use more sensitivity "
            "samples or a larger `gamma`.",
        )
    return SamplingParameters("prediction", m, k, rho)


def sampling_parameters(
    gamma: float,
    phase: str = "learning",
    *,
    m: int = 100_000,
    epsilon: float = 1.0,
    learning_windows: int = 1,
    rho: str = "argmin",
) -> SamplingParameters:
    """Sampling parameters ``(m, k, ρ)`` of the sensitivity sampler at random-DP confidence γ.

    ``"learning"``: Pain-Free (Thm II.2, ``m`` from γ). ``"prediction"`` (Thm IV.2): ``m`` raised to
    the theorem's bound, ``epsilon`` and ``learning_windows`` (``n / N``) of the learning phase;
    ``rho="argmin"`` minimises ``k`` over ρ ∈ (0, γ), ``"fit"`` takes the paper's printed fit (both
    satisfy the theorem). Raises ``ValueError`` for an invalid parameter, or ``k > m``.

    Examples
    --------
    >>> from skdp_anomaly.dpoad._sampling import sampling_parameters
    >>> p = sampling_parameters(0.05)
    >>> p.m, p.k
    (1305, 1305)
    >>> sampling_parameters(0.05, "prediction", m=100_000, rho="fit").k
    96254
    """
    gamma = check_real("gamma", gamma, 0, 1)
    if phase == "learning":
        return _learning(gamma)
    if phase != "prediction":
        raise refusal("phase", "'learning' or 'prediction'", phase)
    if rho not in ("argmin", "fit"):
        raise refusal("rho", "'argmin' or 'fit'", rho)
    m = check_int("m", m)
    epsilon = check_real("epsilon", epsilon, 0, math.inf)
    return _prediction(gamma, m, epsilon, check_int("learning_windows", learning_windows), rho)


def kth_smallest_uniform(n_values: int, m: int, k: int, rng: np.random.Generator) -> float:
    """The k-th smallest of ``m`` i.i.d. uniform draws on {0..n_values-1} (no domain built)."""
    if n_values > 4 * m:
        return float(np.partition(rng.integers(0, n_values, size=m), k - 1)[k - 1])
    return kth_smallest_draw(np.arange(n_values), None, m, k, rng)


def kth_smallest_draw(
    support: np.ndarray, probabilities, m: int, k: int, rng: np.random.Generator
) -> float:
    """The k-th smallest of ``m`` i.i.d. draws from a discrete distribution, exactly
    (multinomial counts of the sorted support; ``probabilities=None``: uniform)."""
    support = np.asarray(support, np.float64)
    order = np.argsort(support, kind="stable")
    if probabilities is None:
        if support.size > 4 * m:  # a huge uniform domain: draw the m candidates directly
            draws = rng.integers(0, support.size, size=m)
            return float(np.sort(support)[np.partition(draws, k - 1)[k - 1]])
        p = np.full(support.size, 1.0 / support.size)
    else:
        p = np.asarray(probabilities, np.float64)[order]
        p = p / p.sum()
    hits = rng.multinomial(m, p)
    return float(support[order][np.searchsorted(np.cumsum(hits), k)])
