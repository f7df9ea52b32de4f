"""What diffprivlib's ``LogisticRegression`` spends, proven, and how to set it for a target ε.

diffprivlib 0.6.6's objective perturbation (Chaudhuri, Monteleoni and Sarwate
2011, Alg. 2), rows of norm ``R``, keeps ``ε' = ε − 2 log(1 + R·C/4)`` for its
noise. The proof's Jacobian term is at most ``log(1 + R²·C/4)`` (rank-one bound),
not ``2 log(1 + R·C/4)``: for ``R > 2`` the model spends more than its
``epsilon``. This module computes the proven bound (charged by the budget
validator) and settings that spend a target ε. With ``fit_intercept=True`` the
intercept is unregularised and the density ratio is unbounded
(:data:`UNREGULARISED_INTERCEPT`, reported as a leak).
"""

from __future__ import annotations

import math

#: Why diffprivlib's ``LogisticRegression(fit_intercept=True)`` is no DP mechanism at all.
UNREGULARISED_INTERCEPT = (
    "diffprivlib LogisticRegression(fit_intercept=True) is not differentially private at "
    "any epsilon: scikit-learn's loss leaves the intercept unregularised, so the perturbed "
    "objective is not strongly convex in it and objective perturbation's density ratio "
    "between neighbours is unbounded (it grows with the released intercept; see the "
    "linear-model guide). Use fit_intercept=False with a constant feature column (counted "
    "in data_norm), or skdp_anomaly.PrivateLogisticRegression, which regularises its "
    "intercept"
)

#: sup of the logistic loss' second derivative
_CURVATURE = 0.25


def _row_bound(data_norm: float, fit_intercept: bool) -> float:
    return math.hypot(data_norm, 1.0) if fit_intercept else float(data_norm)


def diffprivlib_logistic_epsilon(
    epsilon: float, data_norm: float, C: float, fit_intercept: bool = True, n_classes: int = 2
) -> float:
    """The ε that diffprivlib's ``LogisticRegression`` provably spends.

    ``max(epsilon, proven bound)`` for the model's ``epsilon``, ``data_norm``, ``C`` and
    ``fit_intercept`` (the intercept column 1 enlarges R) and ``n_classes`` K. Per fit
    (K one-vs-rest fits at ``ε/K`` for K >= 3): ``ε' + log(1 + R²·C/4)``, or
    ``ε/2 + log(1 + R·(e^{ε/4} − 1))`` when diffprivlib raises the regulariser.

    >>> from skdp_anomaly.privacy._diffprivlib import diffprivlib_logistic_epsilon
    >>> round(diffprivlib_logistic_epsilon(2.0, 6.0, 1.0), 3)
    2.478
    >>> diffprivlib_logistic_epsilon(2.0, 1.0, 1.0, fit_intercept=False)
    2.0
    """
    fits = 1 if n_classes <= 2 else int(n_classes)
    per_fit = epsilon / fits
    R = _row_bound(data_norm, fit_intercept)
    noise = per_fit - 2.0 * math.log1p(_CURVATURE * R * C)
    if noise > 0:
        proven = noise + math.log1p(_CURVATURE * R * R * C)
    else:  # diffprivlib's regulariser becomes R/4 / (e^{ε/4} - 1), its noise ε/2
        proven = per_fit / 2.0 + math.log1p(R * math.expm1(per_fit / 4.0))
    return max(float(epsilon), fits * proven)


def diffprivlib_logistic_settings(
    epsilon: float, data_norm: float, fit_intercept: bool = True
) -> tuple[float, float]:
    """``(epsilon, C)`` for diffprivlib's ``LogisticRegression`` to spend exactly ``epsilon``.

    Two classes, the model's ``data_norm`` and ``fit_intercept``. ``C`` keeps both
    Jacobian terms at most ε/2 (``C = 1`` when it already does); for ``R > 2`` the
    ``epsilon`` parameter is lowered so that ``diffprivlib_logistic_epsilon`` of the
    settings is ``epsilon``.

    >>> from skdp_anomaly.privacy._diffprivlib import (diffprivlib_logistic_epsilon,
    ...                                                diffprivlib_logistic_settings)
    >>> eps, C = diffprivlib_logistic_settings(1.0, 6.0)
    >>> round(eps, 4), round(C, 4)
    (0.7027, 0.0701)
    >>> round(diffprivlib_logistic_epsilon(eps, 6.0, C), 12)
    1.0
    """
    R = _row_bound(data_norm, fit_intercept)
    # both Jacobian terms, the proven one and diffprivlib's, at most ε/2
    C = min(
        1.0,
        math.expm1(epsilon / 2.0) / (_CURVATURE * R * R),
        math.expm1(epsilon / 4.0) / (_CURVATURE * R),
    )
    jacobian = math.log1p(_CURVATURE * R * R * C)
    charged = 2.0 * math.log1p(_CURVATURE * R * C)
    # diffprivlib's noise gets parameter − charged; the proof allows epsilon − jacobian
    return min(float(epsilon), epsilon - jacobian + charged), C
