"""Private linear models of the package's own (no diffprivlib needed)."""

from ._logistic import PrivateLogisticRegression, default_C
from ._objective import logistic_privacy_loss

__all__ = ["PrivateLogisticRegression", "default_C", "logistic_privacy_loss"]
