"""diffprivlib's LogisticRegression(fit_intercept=True) is not ε-DP at any ε.

Objective perturbation (Chaudhuri, Monteleoni and Sarwate 2011) gives the
minimiser ``θ`` of ``Σ loss_i(θ) + R(θ) + bᵀθ`` the density
``ν(b(θ)) · det H(θ)`` with ``H = Σ ∇²loss_i + ∇²R``; its proof needs
``R`` strongly convex in every coordinate, so that ``det H_A / det H_B`` is
bounded. diffprivlib perturbs the loss of scikit-learn's
``LinearModelLoss``, whose L2 penalty leaves the intercept out: the
intercept's diagonal entry of ``H`` is ``Σ ℓ''(m_i)`` alone, which vanishes
when every margin is large. These tests compute the exact log density ratio
of that mechanism (written from its objective, not run) on a neighbouring
pair, and of the same mechanism with the intercept regularised (this
package's ``PrivateLogisticRegression``), and the validator's verdict.
"""

import math

import numpy as np
import pytest
from _diffprivlib import needs_diffprivlib  # tests/_diffprivlib.py
from scipy.special import expit

from skdp_anomaly import check_privacy_budget
from skdp_anomaly.privacy._diffprivlib import UNREGULARISED_INTERCEPT

N, EPS, C = 20, 1.0, 1.0
R = math.hypot(1.0, 1.0)  # diffprivlib's row bound with its intercept column, data_norm 1
EPS_NOISE = EPS - 2 * math.log1p(0.25 * R * C)  # diffprivlib's share for the noise
SENSITIVITY = 2 * R  # its noise scale: ‖b‖ ~ Gamma(2, 2R/ε')


def _pair():
    """20 rows at x = 0 with labels 0, 1, 0, ...; B moves the last row (label 1) to x = 1."""
    X = np.zeros((N, 1))
    y = np.arange(N) % 2
    XB = X.copy()
    XB[-1] = 1.0
    return (X, y), (XB, y)


def _log_density(dataset, theta, regularise_intercept):
    """Log density of the exact minimiser at ``theta = (w, b)`` (up to a shared constant)."""
    X, y = dataset
    Z = np.c_[X, np.ones(len(X))]
    s = np.where(y == 1, 1.0, -1.0)
    m = Z @ theta
    grad = -(s * expit(-s * m)) @ Z
    hess = (Z.T * (expit(m) * expit(-m))) @ Z
    reg = np.array([1.0, 1.0 if regularise_intercept else 0.0]) / C  # n·Λ = 1/C
    noise = -grad - reg * theta
    hess += np.diag(reg)
    return -EPS_NOISE * np.linalg.norm(noise) / SENSITIVITY + np.linalg.slogdet(hess)[1]


def _log_ratio(theta, regularise_intercept):
    A, B = _pair()
    return _log_density(A, theta, regularise_intercept) - _log_density(
        B, theta, regularise_intercept
    )


@pytest.mark.parametrize("intercept", [10.0, 20.0, 40.0, 80.0])
def test_unregularised_intercept_has_an_unbounded_density_ratio(intercept):
    # at θ = (-b, b) B's moved record sits on the boundary (ℓ'' = 1/4) while every record
    # of A has margin ±b (ℓ'' ≈ e^-b): det H_A / det H_B ≈ 4n·e^-b, so the log ratio
    # grows like b - log(4n) - (the noise term, at most ε'·2R/(2R) = ε')
    theta = np.array([-intercept, intercept])
    loss = abs(_log_ratio(theta, regularise_intercept=False))
    assert loss > intercept - math.log(4 * N) - EPS_NOISE - 0.1
    assert loss > 5 * EPS


@pytest.mark.parametrize("intercept", [10.0, 20.0, 40.0, 80.0])
def test_regularised_intercept_keeps_the_ratio_bounded(intercept):
    # the control: the same pair and outputs with the intercept in the penalty; the
    # Jacobian term is at most log(1 + R²C/4) (one record's Hessian has eigenvalue ≤ R²/4)
    theta = np.array([-intercept, intercept])
    bound = EPS_NOISE + math.log1p(R * R * C / 4)
    assert abs(_log_ratio(theta, regularise_intercept=True)) <= bound


@needs_diffprivlib
def test_the_validator_reports_the_intercept_as_a_leak():
    from diffprivlib.models import LogisticRegression

    report = check_privacy_budget(LogisticRegression(epsilon=1.0, data_norm=1.0), on_leak="ignore")
    assert any(UNREGULARISED_INTERCEPT in leak for leak in report.leaks)
    assert "PrivateLogisticRegression" in UNREGULARISED_INTERCEPT
    fixed = check_privacy_budget(
        LogisticRegression(epsilon=1.0, data_norm=1.0, fit_intercept=False), on_leak="ignore"
    )
    assert not any(UNREGULARISED_INTERCEPT in leak for leak in fixed.leaks)
