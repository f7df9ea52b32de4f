"""Private outlier detectors with scikit-learn's outlier API.

:class:`PrivateHBOS` fits on unlabelled rows and answers as scikit-learn's ``IsolationForest`` does
(``score_samples``, ``decision_function``, ``predict`` in {+1, -1}, ``offset_`` from
``contamination``), from ε-DP per-feature histograms on public bounds (Goldstein and Dengel 2012);
:func:`hbos_n_bins` is its public rule for the number of bins, read from a noisy row count.
"""

from ._hbos import PrivateHBOS, hbos_n_bins

__all__ = ["PrivateHBOS", "hbos_n_bins"]
