"""The package's warnings and errors, in one place.

Every message is built from parameters, public quantities and DP outputs only:
a warning or an error may be logged or shown beyond the data holder.
"""

from __future__ import annotations

import re
from typing import Any

from sklearn.utils._param_validation import InvalidParameterError

__all__ = [
    "BoundsClippingWarning",
    "BudgetExceededError",
    "ChangePointNoiseWarning",
    "DPOADNoiseWarning",
    "DPSMOTENoiseWarning",
    "GroupSearchBudgetWarning",
    "NoSelectionWarning",
    "NothingReleasedWarning",
    "ParameterError",
    "PrivacyBudgetError",
    "PrivacyLeakError",
    "PrivacyLeakWarning",
]

# a setting a message names, in backticks: `name`, `name=value`, `'name'` or
# `The 'name' parameter [of Class]`; a name that ends in "_" is a fitted attribute, not a setting
SETTING = re.compile(
    r"`(?:[Tt]he '(?P<subject>\w*[^\W_])' parameter(?: of \w+)?|'(?P<quoted>\w*[^\W_])'"
    r"|(?P<name>\w*[^\W_])(?:=(?P<value>[^`\n]+))?)`"
)


def naming(kind: type, template: str):
    """An error or a warning of class ``kind`` whose message names settings.

    ``template`` puts each setting it names in backticks: `` `name` ``,
    `` `name=value` ``, `` `'name'` `` or `` `The 'name' parameter` ``. The message reads
    without them (other backticks, such as `` `bounds_` ``, stay); ``settings_template``
    keeps them, so that the command line can spell each setting as the option that sets it.

    >>> str(naming(ValueError, "Use `granularity='auto'` or a larger `granularity`."))
    "Use granularity='auto' or a larger granularity."
    >>> str(naming(UserWarning, "`bounds=None`: stored in `bounds_`."))
    'bounds=None: stored in `bounds_`.'
    """
    issue = kind(SETTING.sub(lambda m: m[0][1:-1], template))
    issue.settings_template = template
    return issue


# ----------------------------------------------------------------------- errors
class PrivacyBudgetError(ValueError):
    """The privacy cost of an estimator exceeds the budget given to the validator.

    Parameters
    ----------
    message : str
        What exceeds the budget (built from parameters and ε/δ only).
    report : PrivacyReport or None, default=None
        The report that failed the check.
    """

    def __init__(self, message: str, report: Any = None):
        super().__init__(message)
        self.report = report


class PrivacyLeakError(PrivacyBudgetError):
    """Raised instead of a warning when ``on_leak="raise"`` and a step leaks.

    A leak is a step whose privacy loss no ε bounds; catching
    :class:`PrivacyBudgetError` catches both.

    Parameters
    ----------
    message : str
        The leaks, in words.
    report : PrivacyReport or None, default=None
        The report that lists them.
    """


class ParameterError(InvalidParameterError):
    """A parameter outside its constraints: scikit-learn's error, with its fields.

    Parameters
    ----------
    message : str
        scikit-learn's message.
    estimator : str
        The class whose parameter it is.
    parameter : str
        The parameter's name.
    value : object
        The value given.
    constraints : list
        scikit-learn's constraint objects (each prints as a phrase).
    """

    def __init__(
        self, message: str, *, estimator: str, parameter: str, value: Any, constraints: list
    ):
        super().__init__(message)
        self.estimator, self.parameter = estimator, parameter
        self.value, self.constraints = value, list(constraints)


class BudgetExceededError(ValueError):
    """A charge beyond a :class:`~skdp_anomaly.BudgetAccountant`'s total, refused before release."""


# --------------------------------------------------------------------- warnings
class PrivacyLeakWarning(RuntimeWarning):
    """A step's privacy guarantee does not hold (e.g. bounds computed from the data).

    Once diffprivlib is imported, the package emits a class derived from this
    and diffprivlib's ``PrivacyLeakWarning``, so filters for either catch it.
    """


class BoundsClippingWarning(UserWarning):
    """Many values lie outside the public bounds and are clipped (a local diagnostic)."""


class DPSMOTENoiseWarning(UserWarning):
    """DPSMOTE's released synopsis (mean or histogram) is dominated by noise."""


class ChangePointNoiseWarning(UserWarning):
    """The change-point detector's noise outweighs any possible change."""


class GroupSearchBudgetWarning(UserWarning):
    """The total ε of a group search plans fewer queries than Proposition 3 expects."""


class DPOADNoiseWarning(UserWarning):
    """DPOAD's release noise hides any anomaly the count domain allows."""


class NothingReleasedWarning(UserWarning):
    """A :class:`~skdp_anomaly.PrivateOnlineActiveSVC` predicts before it released any update."""


class NoSelectionWarning(UserWarning):
    """A :class:`~skdp_anomaly.PrivateOnlineActiveSVC` run has read every label so far."""
