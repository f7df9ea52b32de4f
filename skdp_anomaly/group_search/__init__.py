"""Anomaly-restricted private search for an anomaly by noisy group queries (Bittner,
Sarwate and Wright).

:class:`NoisyGroupSearch` runs the noisy Bayesian bisection of Bittner,
Sarwate and Wright, with a test for whether there is an anomaly at all and a
bounded default budget (:class:`GroupSearchBudgetWarning` when its plan is
large); :class:`MaxSensor` and :class:`RandomizedResponseSensor`
are the built-in answerers of its queries, and document the protocol a user
sensor follows.
"""

from ._noisy_group_search import NoisyGroupSearch
from ._sensors import MaxSensor, RandomizedResponseSensor

__all__ = ["MaxSensor", "NoisyGroupSearch", "RandomizedResponseSensor"]
