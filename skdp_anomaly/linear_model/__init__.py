"""Private linear models of the package's own (no diffprivlib needed)."""

from ._logistic import PrivateLogisticRegression, default_C

__all__ = ["PrivateLogisticRegression", "default_C"]
