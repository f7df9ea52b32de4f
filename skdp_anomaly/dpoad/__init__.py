"""Private outsourcing of anomaly detection (Mohammady et al.), with the two roles kept apart.

:class:`DataOwner` sees records and sends :class:`WindowRelease` messages; :class:`Analyst` sees
only those, scores them, and sends back :class:`AnalystReport` messages. :func:`to_json` /
:func:`from_json` carry the messages across a process or network boundary.
:class:`~skdp_anomaly.DPOAD` is the scikit-learn facade that runs both roles window by window.
"""

from ._analyst import Analyst
from ._estimator import DPOAD
from ._messages import AnalystReport, SensitivityFeedback, WindowRelease, from_json, to_json
from ._owner import DataOwner, window_histogram

__all__ = [
    "DPOAD",
    "Analyst",
    "AnalystReport",
    "DataOwner",
    "SensitivityFeedback",
    "WindowRelease",
    "from_json",
    "to_json",
    "window_histogram",
]
