"""Private outsourcing of anomaly detection (Mohammady et al.), with the two roles kept apart.

:class:`DataOwner` sees records and sends :class:`WindowRelease` messages;
:class:`Analyst` sees only those, scores them, and sends back
:class:`AnalystReport` messages. :func:`to_json` / :func:`from_json` carry the
messages across a process or network boundary. :class:`~skdp_anomaly.DPOAD`
is the scikit-learn facade that runs both roles window by window.
"""

from ._analyst import Analyst
from ._baseline import PoissonBaseline
from ._estimator import DPOAD, DPOADNoiseWarning
from ._kse import detect_anomalies, kse_scores, normalise_scores
from ._messages import (
    AnalystReport,
    SamplingParameters,
    SensitivityFeedback,
    WindowRelease,
    from_json,
    to_json,
)
from ._owner import MECHANISMS, DataOwner, window_histogram
from ._proportions import ProportionBaseline
from ._sampling import sampling_parameters

__all__ = [
    "Analyst",
    "AnalystReport",
    "DPOAD",
    "DPOADNoiseWarning",
    "DataOwner",
    "MECHANISMS",
    "PoissonBaseline",
    "ProportionBaseline",
    "SamplingParameters",
    "SensitivityFeedback",
    "WindowRelease",
    "detect_anomalies",
    "from_json",
    "kse_scores",
    "normalise_scores",
    "sampling_parameters",
    "to_json",
    "window_histogram",
]
