"""Warnings that point at the user's line, through scikit-learn's call chain.

A fixed ``stacklevel`` would name a line of sklearn's wrappers; :func:`warn`
walks the stack to the first frame outside this package, scikit-learn,
imbalanced-learn and joblib. imbalanced-learn is located, not imported (slow
to import, and every estimator imports this module).
"""

from __future__ import annotations

import os
import sys
import warnings
from importlib.util import find_spec

import joblib
import sklearn


_INTERNAL = tuple(
    os.path.dirname(os.path.abspath(path)) + os.sep
    for path in (__file__, sklearn.__file__, find_spec("imblearn").origin, joblib.__file__)
)


def warn(message: str | Warning, category: type[Warning] | None = None) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside
    skdp_anomaly, scikit-learn, imbalanced-learn and joblib.

    A message that names settings is a warning built by
    :func:`~skdp_anomaly.exceptions.naming` (its class is the category).
    """
    frame, level = sys._getframe(0), 1
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        _INTERNAL
    ):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
