"""Demonstrations on public data, behind ``skdp-anomaly demo`` and ``budget-demo``.

Not part of the estimators' API: :mod:`skdp_anomaly` does not import this
package, and the command line imports it only to run a demo. The pieces:

* ``_breast_cancer``: the public description of scikit-learn's breast-cancer
  data, ``BREAST_CANCER_BOUNDS`` (feature bounds derived from the definitions
  of the measurements, Street, Wolberg and Mangasarian 1993, never from the
  rows), ``public_scaler`` and ``load_imbalanced``;
* ``_showcase_pipelines``, ``_showcase``, ``_showcase_plot``: the showcase of
  ``skdp-anomaly demo`` (the recommended classifier beside the non-private
  class-balanced model and the oversampling pipelines at the same ε);
* ``_budget_tour``: the budget validator's tour (``skdp-anomaly budget-demo``).

The demos run on the base install (matplotlib for the showcase's plot, the
``demo`` extra); diffprivlib is not needed.
"""

__all__: list = []
