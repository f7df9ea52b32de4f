"""DPSMOTE's label set and the checks of its sampling strategy against it.

Pure helpers shared by the estimator and its audit helpers: the checks of the
label set and of the strategy against it (parameters only, or the label set
treated as public), imblearn's strategy from exact sizes declared public, and
the encoding of ``y`` as indices into the label set. How many synthetic rows
the DP sizes imply is post-processing of a release: :func:`._release.n_synthetic`.
"""

from __future__ import annotations

import numbers
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
from imblearn.utils import check_sampling_strategy

__all__ = [
    "FLOAT_NEEDS_BINARY",
    "UNKNOWN_LABEL",
    "check_label_set",
    "check_public_classes",
    "check_strategy_labels",
    "check_strategy_values",
    "class_codes",
    "encode_labels",
    "public_strategy",
    "unique_codes",
]

#: a label of ``y`` outside ``classes``: refused without naming it (it is data)
UNKNOWN_LABEL = (
    "y contains at least one label that is not in the 'classes' parameter (the labels are "
    "not listed here, to keep them out of logs)."
)

FLOAT_NEEDS_BINARY = ('"sampling_strategy" can be a float only when the type of target is '
                       "binary. For multi-class, use a dict.")


def _is_float_strategy(strategy) -> bool:
    return isinstance(strategy, numbers.Real) and not isinstance(strategy, bool)


# -- the sampling strategy from exact (declared public) sizes ---------------------------
def public_strategy(sampling_strategy, y, sampling_type: str) -> OrderedDict:
    """imblearn's strategy from the exact class sizes (declared public), plain labels as keys."""
    strategy = check_sampling_strategy(sampling_strategy, y, sampling_type)
    return OrderedDict(
        (getattr(c, "item", lambda c=c: c)(), int(n)) for c, n in strategy.items()
    )


# -- checks: the parameters, then the label set taken as public -----------------------
def check_strategy_values(sampling_strategy) -> None:
    """A dict strategy asks for no negative number of rows (the parameter alone)."""
    if isinstance(sampling_strategy, Mapping):
        negative = {k: v for k, v in sampling_strategy.items()
                    if isinstance(v, numbers.Real) and v < 0}
        if negative:
            raise ValueError(
                "The 'sampling_strategy' parameter asks for a negative number of samples: "
                f"{negative!r}."
            )


def check_public_classes(classes, sampling_strategy):
    """The public label set (sorted), or None; checked against the strategy.

    Only parameters are read, so every error here is data-independent, and
    each names the parameter at fault.
    """
    if classes is None:
        return None
    labels = np.asarray(classes)
    if labels.ndim != 1 or labels.size < 2:
        raise ValueError(
            "The 'classes' parameter must be a 1-D array-like of at least 2 class labels; "
            f"got {classes!r}."
        )
    unique = np.unique(labels)
    if unique.size != labels.size:
        raise ValueError(f"The 'classes' parameter has repeated labels: {classes!r}.")
    if _is_float_strategy(sampling_strategy):
        if unique.size != 2:
            raise ValueError(
                "The 'sampling_strategy' parameter can be a float only for a binary target; "
                f"the 'classes' parameter lists {unique.size} labels. Use a dict."
            )
    elif isinstance(sampling_strategy, Mapping):
        unknown = [c for c in sampling_strategy if c not in set(unique.tolist())]
        if unknown:
            raise ValueError(
                f"The 'sampling_strategy' parameter names labels {unknown!r} that are not in "
                "the 'classes' parameter."
            )
    return unique


def check_strategy_labels(sampling_strategy, classes) -> None:
    """The strategy against the label set read from ``y`` (public schema), before any release.

    A float needs two classes and a dict names labels of the set (imblearn's
    messages). A callable is evaluated on the noisy sizes only, later.
    """
    if _is_float_strategy(sampling_strategy) and np.asarray(classes).size != 2:
        raise ValueError(FLOAT_NEEDS_BINARY)
    if isinstance(sampling_strategy, Mapping):
        unknown = set(sampling_strategy) - set(np.asarray(classes).tolist())
        if unknown:
            raise ValueError(f"The {unknown} target class is/are not present in the data.")


def check_label_set(labels) -> None:
    """The labels read from ``y`` (``classes=None``) must be at least two."""
    if np.asarray(labels).size <= 1:
        raise ValueError(
            f"The target 'y' needs to have more than 1 class. Got {np.asarray(labels).size} "
            "class instead. Pass the public label set as 'classes' to fit when a class may be "
            "absent."
        )


def class_codes(classes, wanted, name: str) -> list:
    """Indices in ``classes`` of a label or a list of labels named by the caller."""
    wanted = wanted if isinstance(wanted, (list, tuple)) else [wanted]
    codes = []
    for label in wanted:
        hits = np.flatnonzero(classes == label)
        if hits.size == 0:
            raise ValueError(f"{name} {label!r} is not one of the classes.")
        codes.append(int(hits[0]))
    return codes


# -- label encoding ---------------------------------------------------------------------
def encode_labels(y, classes):
    """``(classes, codes)``: the public label set and each row's index in it, or
    (``classes=None``) the labels present in ``y``."""
    if classes is None:
        classes, codes = unique_codes(y)
        check_label_set(classes)
        return classes, codes
    try:
        codes = np.searchsorted(classes, y)
        known = classes[np.minimum(codes, classes.size - 1)] == y
    except (TypeError, ValueError):  # labels of another type than `classes`
        known = np.zeros(1, bool)
    if not np.all(known):
        raise ValueError(UNKNOWN_LABEL)
    return classes, codes


# integer labels spanning at most this many values are encoded by a table, in O(n)
_TABLE_LABEL_SPAN = 1 << 16


def unique_codes(y):
    """``np.unique(y, return_inverse=True)``, in one O(n) pass for small integer labels."""
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low < _TABLE_LABEL_SPAN:
            offset = y - low if low else y
            present = np.bincount(offset, minlength=high - low + 1) > 0
            table = np.cumsum(present) - 1
            classes = (np.flatnonzero(present) + low).astype(y.dtype)
            return classes, table[offset]
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.reshape(-1)
