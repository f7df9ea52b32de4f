"""The rule that picks DPImbalancedClassifier's strategy from public ε, d and n, and its shares."""

from __future__ import annotations

import numbers

from ..privacy._mechanisms import check_epsilon
from ..privacy._diffprivlib import diffprivlib_logistic_settings

#: DPSMOTE's ε share (add/remove) in "oversample": twice that under replace-one (group
#: privacy), so DPSMOTE takes half of the total and the classifier the other half.
PIPELINE_SPLIT = 0.25

#: The "threshold" strategy's share for the mean-prediction release (replace-one); the
#: classifier keeps the rest (docs/benchmarks/dpsmote.md, "Which strategy").
PRIOR_SHARE = 0.15

#: "auto" oversamples iff ε · n / d is below this (docs/benchmarks/dpsmote.md, "Which strategy").
OVERSAMPLE_MAX_EPS_N_PER_D = 8.0

#: "auto" never oversamples above this many features: there DPSMOTE's noisy class mean
#: carries little of the minority (docs/benchmarks/dpsmote.md, §7.4).
OVERSAMPLE_MAX_FEATURES = 50


def resolve_imbalanced_strategy(epsilon: float, n_features: int, n_samples: int) -> str:
    """The strategy ``DPImbalancedClassifier(strategy="auto")`` uses at ε, d and n.

    ``"oversample"`` (DPSMOTE, then the classifier) when
    ``epsilon · n_samples / n_features < 8`` and ``n_features <= 50``,
    otherwise ``"threshold"``. It reads the budget and the data's shape,
    public under replace-one neighbours: it costs no privacy.

    Parameters
    ----------
    epsilon : float > 0
        The total budget, under replace-one neighbours.
    n_features : int >= 1
        The number of features d.
    n_samples : int >= 1
        The number of training rows n.

    Returns
    -------
    str
        ``"oversample"`` or ``"threshold"``.

    Notes
    -----
    Objective perturbation's noise per row is about ``d / (n ε)`` (Chaudhuri,
    Monteleoni and Sarwate 2011): when ``ε n / d`` is small the classifier is
    mostly noise and synthetic minority rows do better; otherwise the cut at
    its DP mean prediction is cheaper. Above 50 features DPSMOTE's noisy mean
    carries little of the minority. How the boundaries were chosen:
    docs/benchmarks/dpsmote.md, "Which strategy".

    Under add/remove neighbours n is not public, and the choice would reveal
    whether ``n < 8 d / ε``: force ``strategy`` there.

    Examples
    --------
    >>> from skdp_anomaly.imbalanced import resolve_imbalanced_strategy
    >>> resolve_imbalanced_strategy(1.0, 8, 2000), resolve_imbalanced_strategy(0.25, 30, 600)
    ('threshold', 'oversample')
    >>> resolve_imbalanced_strategy(0.25, 200, 600)   # above 50 features: never
    'threshold'
    """
    epsilon = check_epsilon(epsilon)
    for name, value in (("n_features", n_features), ("n_samples", n_samples)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"The {name!r} parameter must be an int >= 1; got {value!r}.")
    if (
        n_features <= OVERSAMPLE_MAX_FEATURES
        and epsilon * n_samples < OVERSAMPLE_MAX_EPS_N_PER_D * n_features
    ):
        return "oversample"
    return "threshold"


def dead_zone_free_C(epsilon: float, data_norm: float) -> float:
    """A regularisation ``C`` in (0, 1] for diffprivlib's LogisticRegression that keeps ε' ≥ ε/2.

    diffprivlib's objective perturbation (no intercept) keeps ``ε' = ε − 2 log(1 + R·C/4)`` for
    the noise (``R = data_norm``), which ``C = 1`` can leave near 0; the proof charges
    ``log(1 + R²·C/4)``. This ``C`` keeps both at most ε/2. Public parameters only.

    >>> from skdp_anomaly.imbalanced._strategy import dead_zone_free_C
    >>> round(dead_zone_free_C(1.0, 6.0), 4), dead_zone_free_C(10.0, 2.0)
    (0.0721, 1.0)
    """
    return diffprivlib_logistic_settings(epsilon, data_norm, fit_intercept=False)[1]
