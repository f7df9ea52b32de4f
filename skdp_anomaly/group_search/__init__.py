"""Anomaly-restricted private search for an anomaly by noisy group queries (Bittner,
Sarwate and Wright).

:class:`NoisyGroupSearch` runs their noisy Bayesian bisection, with a test for whether there is an
anomaly at all; :class:`MaxSensor` and :class:`RandomizedResponseSensor` answer its queries and
document the sensor protocol.
"""

from ._noisy_group_search import NoisyGroupSearch
from ._sensors import MaxSensor, RandomizedResponseSensor

__all__ = ["MaxSensor", "NoisyGroupSearch", "RandomizedResponseSensor"]
