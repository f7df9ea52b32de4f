"""Private model selection: searches whose choice is a differentially private release.

:class:`PrivateGridSearchCV` and :class:`PrivateRandomizedSearchCV` have the
interface of scikit-learn's searches; their whole cost (candidates, choice,
refit) is priced by :func:`skdp_anomaly.check_privacy_budget` before fitting.
"""

from ._search import PrivateGridSearchCV, PrivateRandomizedSearchCV

__all__ = ["PrivateGridSearchCV", "PrivateRandomizedSearchCV"]
