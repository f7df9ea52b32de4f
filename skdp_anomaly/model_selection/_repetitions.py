"""The number of runs of a private selection: truncated negative binomial.

Papernot and Steinke (ICLR 2022, §3, Theorem 2) run a mechanism ``K ~ D_{η,γ}`` times, ``K`` drawn
independently of the data, and release the best run; for a pure ε-DP run the limit at infinite Rényi
orders is pure ``(2 + η)·ε``-DP (η = 1 is Liu and Talwar's random stopping, STOC 2019: ``3ε``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln


def _check(eta: float, gamma: float) -> None:
    if not eta > -1:
        raise ValueError(f"eta must be > -1, got {eta!r}.")
    if not 0 < gamma <= 1:
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}.")


def tnb_mean(eta: float, gamma: float) -> float:
    """Mean of ``D_{η,γ}``: ``η(1−γ) / (γ(1−γ^η))``, or ``(1−γ)/(γ log(1/γ))`` at η = 0.

    >>> from skdp_anomaly.model_selection._repetitions import tnb_mean
    >>> round(tnb_mean(1.0, 0.1), 6)  # geometric: 1/γ
    10.0
    """
    _check(eta, gamma)
    if gamma == 1:
        return 1.0
    log_g = math.log(gamma)
    if eta == 0:
        return (1 - gamma) / (gamma * -log_g)
    return eta * (1 - gamma) / (gamma * -math.expm1(eta * log_g))


def tnb_gamma_for_mean(eta: float, mean: float) -> float:
    """The ``γ`` whose ``D_{η,γ}`` has the given mean (≥ 1; 1 gives γ = 1, one run).

    >>> from skdp_anomaly.model_selection._repetitions import tnb_gamma_for_mean
    >>> round(tnb_gamma_for_mean(1.0, 10.0), 6)
    0.1
    """
    if not mean >= 1:
        raise ValueError(f"The mean number of runs must be >= 1, got {mean!r}.")
    if mean == 1:
        return 1.0
    # the mean decreases from +inf (γ → 0) to 1 (γ → 1): solve on log γ
    root = brentq(
        lambda t: math.log(tnb_mean(eta, math.exp(t))) - math.log(mean),
        -745.0,
        -1e-15,
        xtol=1e-14,
        rtol=1e-12,
    )
    return math.exp(root)


def tnb_pmf(k, eta: float, gamma: float) -> np.ndarray:
    """``P(K = k)`` of ``D_{η,γ}`` for integers ``k ≥ 1``.

    >>> from skdp_anomaly.model_selection._repetitions import tnb_pmf
    >>> [round(float(p), 3) for p in tnb_pmf([1, 2], 1.0, 0.5)]
    [0.5, 0.25]
    """
    _check(eta, gamma)
    k = np.asarray(k, dtype=np.float64)
    if gamma == 1:
        return (k == 1).astype(np.float64)
    log_q = math.log1p(-gamma)
    if eta == 0:
        return np.exp(k * log_q - np.log(k)) / -math.log(gamma)
    # |C(k+η−1, k)| = Γ(k+η) / (Γ(k+1)·|Γ(η)|); the signs of term and norm agree
    log_binom = (
        gammaln(k + eta) - gammaln(k + 1) - gammaln(eta)
        if eta > 0
        else (gammaln(k + eta) - gammaln(k + 1) - gammaln(eta + 1) + math.log(-eta))
    )
    norm = abs(math.expm1(-eta * math.log(gamma)))
    return np.exp(k * log_q + log_binom) / norm


def sample_tnb(eta: float, gamma: float, rng: np.random.Generator) -> int:
    """One draw of ``K ~ D_{η,γ}``, exactly (rejection samplers, no truncated table).

    η > 0: a negative binomial ``NB(η, γ)`` draw conditioned on ``K ≥ 1``;
    η = 0: the logarithmic distribution; −1 < η < 0: the logarithmic
    distribution thinned with acceptance ``Γ(k+η) / (Γ(k)·Γ(1+η)) ≤ 1``.

    >>> import numpy as np
    >>> from skdp_anomaly.model_selection._repetitions import sample_tnb
    >>> sample_tnb(1.0, 1.0, np.random.default_rng(0))
    1
    """
    _check(eta, gamma)
    if gamma == 1:
        return 1
    while True:
        if eta > 0:
            k = int(rng.negative_binomial(eta, gamma))
            if k >= 1:
                return k
            continue
        k = int(rng.logseries(1 - gamma))
        if eta == 0:
            return k
        accept = math.exp(gammaln(k + eta) - gammaln(k) - gammaln(1 + eta))
        if rng.random() < accept:
            return k
