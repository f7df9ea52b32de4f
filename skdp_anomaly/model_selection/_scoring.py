"""Validation scores of a private search whose change from one record is bounded.

Under replace-one neighbours a validation record moves the correct
predictions of at most two classes, by one each (its old class loses a
correct prediction, its new class gains one). Every score here is a
weighted count of correct predictions per true class: the record's old
class loses at most its weight, its new class gains at most its own, so the
count moves by at most the largest weight (non-negative weights, changes of
opposite sign):

* ``"accuracy"``: weight 1 for every class, sensitivity 1;
* ``"recall"`` of ``pos_label``: weight 1 for that class and 0 for the
  others, sensitivity 1;
* ``"balanced_accuracy"`` (the mean of the per-class recalls): weight
  ``1/n_k`` for class ``k``. The class sizes are data, so the class sizes
  of ``y`` (all ``n`` records) are released once, as a histogram with
  two-sided geometric noise (replacing one record moves two cells by one:
  L1 sensitivity 2), and the weights are integers computed from the noisy
  sizes only, ``w_k = round(R · ñ_max / ñ_k)`` with ``R = 32`` and ``ñ``
  clamped at 1 (relative rounding error at most 1/64). A validation part of
  ``m`` rows holds about ``ñ_k·m/n`` records of class ``k``. Given the
  histogram (a DP release), the weighted count has sensitivity
  ``max_k w_k``: in score units about ``1/(K·n_min,val)``, the textbook
  sensitivity of balanced accuracy.

The histogram takes :data:`CLASS_SIZES_SHARE` (a quarter) of the choice's
ε, and the choice keeps the rest (sequential composition: the total does
not change). One histogram for the whole set, rather than one per
validation part, keeps the weights, hence the noise of every run's score,
the same: a run whose noisy sizes came out small would otherwise get a
larger noise and win the maximum by it. ROC AUC, F1 or precision are not
such counts (one record can move them by an amount that depends on every
other prediction), so no noise can be calibrated to them from the
parameters.
"""

from __future__ import annotations

import numpy as np

from ..privacy import GeometricMechanism

__all__ = ["SCORINGS", "ScoreWeights", "check_scoring", "correct_per_class",
           "needs_class_sizes", "noisy_class_sizes"]

SCORINGS = ("accuracy", "balanced_accuracy", "recall")
#: resolution of the integer weights of balanced accuracy (relative error ≤ 1/(2R))
WEIGHT_RESOLUTION = 32


def check_scoring(scoring) -> str:
    """The scoring name, or a ``ValueError`` naming the parameter and the supported scores."""
    if scoring is None:
        return "accuracy"
    if isinstance(scoring, str) and scoring in SCORINGS:
        return scoring
    raise ValueError(
        f"The 'scoring' parameter must be one of {', '.join(map(repr, SCORINGS))} or None; "
        f"got {scoring!r}. A private search needs a score whose change from one record is "
        "bounded, a weighted count of correct predictions; ROC AUC, F1, precision or a "
        "callable are not, so no noise can be calibrated to them in advance.")


#: the share of the choice's ε that releases the class sizes, when a score needs them
CLASS_SIZES_SHARE = 0.25


def needs_class_sizes(scoring: str, rule: str) -> bool:
    """Whether the score needs the class sizes of ``y``.

    Balanced accuracy weighs classes by their sizes; the repetitions compare
    recalls measured on different validation parts, so they divide by the
    number of positives. The noisy-max rules compare the candidates on the
    same parts: recall needs no size there.
    """
    return scoring == "balanced_accuracy" or (scoring == "recall" and rule == "repeated")


def correct_per_class(predicted, truth, label_set) -> np.ndarray:
    """Correct predictions per true class (in the order of ``label_set``)."""
    index = np.searchsorted(label_set, truth)
    hit = np.asarray(predicted) == np.asarray(truth)
    return np.bincount(index[hit], minlength=len(label_set)).astype(np.int64)


def class_sizes(truth, label_set) -> np.ndarray:
    """Records per class (private: only its noisy version leaves this module's callers)."""
    return np.bincount(np.searchsorted(label_set, truth),
                       minlength=len(label_set)).astype(np.int64)


class ScoreWeights:
    """Integer weights of a score, its sensitivity and the normaliser of its released value.

    Parameters
    ----------
    scoring : str
        One of :data:`SCORINGS`.
    n_classes : int
        Size of the public label set.
    positive : int or None
        Index of ``pos_label`` in the label set (``"recall"`` only).
    noisy_sizes : ndarray of int or None
        The released (noisy) class sizes of the whole set, when the score
        needs them (:func:`needs_class_sizes`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.model_selection._scoring import ScoreWeights
    >>> w = ScoreWeights("balanced_accuracy", 2, None, np.array([900, 100]))
    >>> w.weights.tolist(), w.sensitivity
    ([32, 288], 288)
    >>> # a validation part of 100 of the 1000 rows: recalls 0.9 and 0.5
    >>> round(w.score(np.array([81, 5]) @ w.weights, 100, 1000), 3)
    0.7
    """

    def __init__(self, scoring: str, n_classes: int, positive=None, noisy_sizes=None):
        self.weights = np.ones(n_classes, dtype=np.int64)
        self._share = 1.0  # the expected share of a validation part the score divides by
        if scoring == "recall":
            self.weights = np.zeros(n_classes, dtype=np.int64)
            self.weights[positive] = 1
            if noisy_sizes is not None:
                self._share = max(float(noisy_sizes[positive]), 1.0)
        elif scoring == "balanced_accuracy":
            sizes = np.maximum(np.asarray(noisy_sizes, dtype=np.float64), 1.0)
            top = sizes.max()
            self.weights = np.rint(WEIGHT_RESOLUTION * top / sizes).astype(np.int64)
            # Σ_k w_k c_k ≈ R·ñ_max·Σ_k c_k/ñ_k, and a part of m of the n rows holds
            # about ñ_k·m/n records of class k
            self._share = WEIGHT_RESOLUTION * top * n_classes
        self.sensitivity = int(self.weights.max())
        self._per_row = noisy_sizes is not None

    def score(self, weighted_count, n_part: int, n_rows: int) -> float:
        """The released score of a (noisy) weighted count on a part of ``n_part`` rows."""
        norm = self._share * n_part / n_rows if self._per_row else float(n_part)
        return float(float(weighted_count) / norm)


def noisy_class_sizes(sizes, epsilon: float, rng) -> np.ndarray:
    """The class sizes with two-sided geometric noise at ``epsilon``.

    Replacing one record moves two cells by one: L1 sensitivity 2.
    """
    mechanism = GeometricMechanism(epsilon, sensitivity=2, neighbours="replace")
    return mechanism.randomise(np.asarray(sizes, dtype=np.int64), rng)
