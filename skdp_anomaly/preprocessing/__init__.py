"""Preprocessing that costs no privacy: steps whose fitted state comes from public parameters.

:class:`BoundsScaler` maps features from public bounds onto ``[-1, 1]``, the
box the private learners of this package expect.
"""

from ._bounds_scaler import BoundsScaler

__all__ = ["BoundsScaler"]
