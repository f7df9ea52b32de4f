"""Splitting a search's total ε, and the public rule that says when a search pays.

With ``total_epsilon=T`` a search sets its candidates' ``epsilon`` itself.
Every rule gives the choice one candidate fit's share of the budget (the
repetitions: twice one run, Liu and Talwar's random stopping) and the
refit, if any, one more:

* ``"repeated"``: ``ε_c = T / (3 + refit)``, choice ``2·ε_c``;
* ``"holdout-noisy-max"``: ``ε_c = T / (G + 1 + refit)``, choice ``ε_c``;
* ``"cv-noisy-max"``: ``ε_c = T / (m·G + 1 + refit)``, choice ``ε_c``;

with ``G`` candidates (the estimator's own setting among them) and ``m``
training parts per record.

**When a search pays.** The released model of the cheapest rule is trained
at ``ε_c ≤ T/3`` on a training part (4/5 of the rows for 5 folds): its
``n·ε`` is at most ``(k−1)/(3k)`` of a single fit's at ``T`` on every row
(0.27 for 5 folds). The error a private linear model owes to its noise
falls as ``p/(n·ε)`` (``p`` coefficients; Chaudhuri, Monteleoni and Sarwate
2011, the excess-risk bounds of objective perturbation), so splitting the
budget multiplies that term by ``1/0.27 ≈ 3.7``; a search wins only if the
best candidate beats the estimator's own setting by more than that. Whether
it does is a property of the data that no public quantity tells. The rule
therefore searches only where the split is harmless: where the noise terms
of the search's fits, ``p/(n_train·ε_c)`` for a model and ``1/(n_val·ε_c)``
for a validation score, are both at most :data:`NEGLIGIBLE` (1/1000, below
what a test set of a few thousand rows resolves). There the choice can only
gain. Elsewhere the estimator as given is fitted once at the whole ``T``,
and the search says so (``searched_ = False``); ``force_search=True``
searches anyway. ``n`` (public under replace-one neighbours), ``d``, the
number of classes of the public label set, the splits and ``T`` are all the
rule reads.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["NEGLIGIBLE", "Split", "search_pays", "split_total"]

#: a noise term below this is taken to cost nothing a test set can resolve
NEGLIGIBLE = 1e-3


class Split(NamedTuple):
    """ε of one candidate fit and of the choice, in the report's units."""

    run_epsilon: float
    selection_epsilon: float


def split_total(total: float, rule: str, refit: bool, n_candidates: int,
                memberships: float) -> Split:
    """Split ``total`` between the candidates' fits, the choice and the refit.

    Examples
    --------
    >>> from skdp_anomaly.model_selection._allocation import split_total
    >>> split_total(3.0, "repeated", False, 5, 4)
    Split(run_epsilon=1.0, selection_epsilon=2.0)
    >>> split_total(7.0, "holdout-noisy-max", True, 5, 4)
    Split(run_epsilon=1.0, selection_epsilon=1.0)
    """
    if rule == "repeated":
        run = total / (3 + refit)
        return Split(run, 2 * run)
    fits = n_candidates if rule == "holdout-noisy-max" else memberships * n_candidates
    run = total / (fits + 1 + refit)
    return Split(run, run)


def search_pays(n_train: int, n_validation: int, n_features: int, n_classes: int,
                run_epsilon: float) -> bool:
    """Whether the search's noise terms are negligible (module docstring).

    ``p = (d + 1)`` coefficients for two classes, ``K·(d + 1)`` for K ≥ 3.

    Examples
    --------
    >>> from skdp_anomaly.model_selection._allocation import search_pays
    >>> search_pays(320, 80, 30, 2, 2 / 3)  # breast cancer at T = 2: no
    False
    >>> search_pays(800_000, 200_000, 10, 2, 1.0)
    True
    """
    p = (n_features + 1) * (1 if n_classes <= 2 else n_classes)
    model_term = p / (n_train * run_epsilon)
    score_term = 1.0 / (n_validation * run_epsilon)
    return max(model_term, score_term) <= NEGLIGIBLE
