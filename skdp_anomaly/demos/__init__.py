"""Demonstrations on public data, behind ``skdp-anomaly demo`` and ``budget-demo``.

Not part of the estimators' API (:mod:`skdp_anomaly` does not import it): ``_breast_cancer``
holds the data's public feature bounds (from the measurements' definitions, never the rows)
and loaders; ``_showcase*`` the ``demo`` showcase; ``_budget_tour`` the budget validator's
tour. The demos need no diffprivlib (matplotlib, the ``demo`` extra, for the plot).
"""

__all__: list = []
