"""Validation scores of a private search whose change from one record is bounded.

Each score is a weighted count of correct predictions per true class; balanced accuracy's integer
weights come from the class sizes of ``y``, released once at :data:`CLASS_SIZES_SHARE` of the
choice's ε. Proofs: :ref:`proofs-private-search` ("Scores").
"""

from __future__ import annotations

import numpy as np

from ..exceptions import naming
from ..privacy import GeometricMechanism

SCORINGS = ("accuracy", "balanced_accuracy", "recall")
#: resolution of the integer weights of balanced accuracy (relative error ≤ 1/(2R))
WEIGHT_RESOLUTION = 32


def check_scoring(scoring) -> str:
    """The scoring name, or a ``ValueError`` naming the parameter and the supported scores."""
    if scoring is None:
        return "accuracy"
    if isinstance(scoring, str) and scoring in SCORINGS:
        return scoring
    raise naming(
        ValueError,
        f"`The 'scoring' parameter` must be one of {', '.join(map(repr, SCORINGS))} or None; "
        f"got {scoring!r}. A private search needs a score whose change from one record is "
        "bounded, a weighted count of correct predictions; ROC AUC, F1, precision or a "
        "callable are not, so no noise can be calibrated to them in advance.",
    )


#: the share of the choice's ε that releases the class sizes, when a score needs them
CLASS_SIZES_SHARE = 0.25


def needs_class_sizes(scoring: str, rule: str) -> bool:
    """Whether the score needs the class sizes of ``y``.

    Balanced accuracy always; recall under ``"repeated"``, whose runs compare
    recalls on different validation parts (the noisy-max rules share parts).
    """
    return scoring == "balanced_accuracy" or (scoring == "recall" and rule == "repeated")


def correct_per_class(predicted, truth, label_set) -> np.ndarray:
    """Correct predictions per true class (in the order of ``label_set``)."""
    index = np.searchsorted(label_set, truth)
    hit = np.asarray(predicted) == np.asarray(truth)
    return np.bincount(index[hit], minlength=len(label_set)).astype(np.int64)


def class_sizes(truth, label_set) -> np.ndarray:
    """Records per class (private: only its noisy version leaves this module's callers)."""
    return np.bincount(np.searchsorted(label_set, truth), minlength=len(label_set)).astype(np.int64)


class ScoreWeights:
    """Integer weights of a score, its sensitivity and the normaliser of its released value.

    ``positive`` is the index of ``pos_label`` (``"recall"``); ``noisy_sizes`` the
    released class sizes, when the score needs them (:func:`needs_class_sizes`).

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
