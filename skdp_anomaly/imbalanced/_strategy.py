"""The rule that picks DPImbalancedClassifier's strategy from public ε, d and n, and its shares."""

from __future__ import annotations

import numbers

from ..privacy._mechanisms import check_epsilon
from ..privacy._diffprivlib import diffprivlib_logistic_settings

__all__ = ["OVERSAMPLE_MAX_EPS_N_PER_D", "OVERSAMPLE_MAX_FEATURES", "PIPELINE_SPLIT", "PRIOR_SHARE",
           "dead_zone_free_C", "resolve_imbalanced_strategy"]

#: DPSMOTE's ε as a share of the total (add/remove neighbours) in the "oversample"
#: strategy. Under replace-one neighbours, the relation of diffprivlib's classifiers, it
#: counts twice (group privacy), so DPSMOTE takes 2 · 0.25 = half of the total and the
#: classifier the other half (measured in docs/benchmarks/dpsmote.md).
PIPELINE_SPLIT = 0.25

#: The "threshold" strategy's release of the model's mean predictions, as a share of the
#: total (replace-one neighbours): the classifier keeps the rest. Chosen on one group of
#: public imbalanced sets, checked on another (docs/benchmarks/dpsmote.md, "Which strategy").
PRIOR_SHARE = 0.15

#: "auto" oversamples iff ε · n / d is below this (n training rows, d features). Chosen
#: against the cut at the model's own DP mean prediction on 38 public imbalanced sets and
#: checked on 37 others, split before any run, with the default classifier (the user
#: benchmarks, docs/benchmarks/dpsmote.md, "Which strategy"; it was 16 against the earlier cut at a DP
#: class prior).
OVERSAMPLE_MAX_EPS_N_PER_D = 8.0

#: "auto" never oversamples above this many features: the rule was measured on sets with
#: d ≤ 48, and on sylva (d = 212) and hiva (d = 1 617) DPSMOTE's noisy class mean made the
#: classifier predict almost no minority at ε ≤ 2, where the threshold found it (docs/benchmarks/dpsmote.md,
#: §7.4).
OVERSAMPLE_MAX_FEATURES = 50


def resolve_imbalanced_strategy(epsilon: float, n_features: int, n_samples: int) -> str:
    """The strategy ``DPImbalancedClassifier(strategy="auto")`` uses at ε, d and n.

    ``"oversample"`` (DPSMOTE, then the classifier) when
    ``epsilon · n_samples / n_features < 8`` and ``n_features <= 50``,
    otherwise ``"threshold"`` (the classifier cut at its own DP mean
    prediction). The rule reads the budget
    and the shape of the training data, which are public under replace-one
    neighbours (the relation of :class:`~skdp_anomaly.DPImbalancedClassifier`'s
    guarantee): it looks at no value of the data and costs no privacy.

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
    Objective perturbation adds to the loss a random linear term whose size
    per row is about ``d / (n ε)`` (Chaudhuri, Monteleoni and Sarwate 2011):
    when ``ε n / d`` is small the private classifier is mostly noise, a
    threshold on its probabilities cannot find the minority, and synthetic
    minority rows, which move the fit itself, do better. Otherwise the
    classifier ranks well enough, the cut at its DP mean prediction costs
    15 % of the budget, and DPSMOTE's half of it is better spent on the
    classifier. The boundary 8 was chosen against that cut on one group of
    public imbalanced sets and checked on another, held out before any run
    (the DPSMOTE benchmarks, docs/benchmarks/dpsmote.md, "Which strategy"): below it
    oversampling raised the G-mean, between 8 and 16 it lowered it; either
    way it costs some ROC-AUC. With the default classifier it oversamples
    only at very small ε per row and feature. Those sets had
    d ≤ 48; above 50 features it never oversamples, since DPSMOTE's noisy
    class mean then carries little of the minority (on two sets with
    d = 212 and 1 617 it made the classifier miss almost all of it).

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
    if (n_features <= OVERSAMPLE_MAX_FEATURES
            and epsilon * n_samples < OVERSAMPLE_MAX_EPS_N_PER_D * n_features):
        return "oversample"
    return "threshold"


def dead_zone_free_C(epsilon: float, data_norm: float) -> float:
    """A regularisation ``C`` for diffprivlib's LogisticRegression that keeps ε' ≥ ε/2.

    diffprivlib's LogisticRegression is objective perturbation (Chaudhuri,
    Monteleoni and Sarwate 2011, Algorithm 2): it keeps
    ``ε' = ε − 2 log(1 + R·C/4)`` for the noise (``R = data_norm``: without
    an intercept, the only setting of it that is DP, since diffprivlib
    leaves its intercept unpenalised) when that is positive, and otherwise
    ε/2 with extra regularisation; the proof charges ``log(1 + R²·C/4)``
    instead, which the budget validator prices.
    With its default ``C = 1`` an ε just above either term leaves almost no
    ε for the noise. This ``C`` keeps both terms at most ε/2, the setting
    :class:`~skdp_anomaly.DPImbalancedClassifier` uses (with the ``epsilon`` parameter
    lowered by what diffprivlib under-charges). A function of public
    parameters only: it costs no privacy.

    Parameters
    ----------
    epsilon : float > 0
        The classifier's ε.
    data_norm : float > 0
        The classifier's bound on the L2 norm of a row.

    Returns
    -------
    float
        ``C`` in (0, 1].

    Examples
    --------
    >>> from skdp_anomaly.imbalanced._strategy import dead_zone_free_C
    >>> round(dead_zone_free_C(1.0, 6.0), 4), dead_zone_free_C(10.0, 2.0)
    (0.0721, 1.0)
    """
    return diffprivlib_logistic_settings(epsilon, data_norm, fit_intercept=False)[1]
