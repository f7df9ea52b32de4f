"""DPSMOTE's sampling strategy on (noisy) class sizes, and its public label set.

Pure helpers shared by the estimator, its Dask path and its audit helpers:
how many synthetic rows each class gets from DP (or public) class sizes, with
imblearn's semantics; the checks of the label set and of the strategy
against it (parameters only, or the label set treated as public); and the
encoding of ``y`` as indices into that label set.
"""

from __future__ import annotations

import numbers
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
from imblearn.utils import check_sampling_strategy

__all__ = [
    "UNKNOWN_LABEL",
    "check_label_set",
    "check_public_classes",
    "check_strategy_labels",
    "check_strategy_values",
    "class_codes",
    "encode_labels",
    "integer_labels",
    "n_synthetic",
    "public_strategy",
    "unique_codes",
]

#: a label of ``y`` outside ``classes``: refused without naming it (it is data)
UNKNOWN_LABEL = (
    "y contains at least one label that is not in the 'classes' parameter (the labels are "
    "not listed here, to keep them out of logs)."
)

_FLOAT_NEEDS_BINARY = ('"sampling_strategy" can be a float only when the type of target is '
                       "binary. For multi-class, use a dict.")


def _is_float_strategy(strategy) -> bool:
    return isinstance(strategy, numbers.Real) and not isinstance(strategy, bool)


# -- how many synthetic rows ------------------------------------------------------------
def n_synthetic(sampling_strategy, classes, counts):
    """Rows to generate per class from (noisy) class sizes, imblearn semantics.

    ``counts`` has shape (n_runs, n_classes) (classes sorted); negative noisy
    sizes count as 0. Returns ``(n_new, targeted)``: int64 array of the same
    shape and a bool mask of the classes the strategy targets (as in
    ``sampling_strategy_``). Post-processing of the counts only. Where exact
    counts would make imblearn raise (a ratio or a dict asking for fewer rows
    than a class has), the noisy version asks for 0 rows instead.
    """
    counts = np.maximum(np.atleast_2d(np.asarray(counts, dtype=np.int64)), 0)
    n_runs, n_classes = counts.shape
    rows = np.arange(n_runs)
    top = counts.max(axis=1, keepdims=True)
    deficit = top - counts
    targeted = np.ones_like(counts, dtype=bool)
    if isinstance(sampling_strategy, str):
        kind = "not majority" if sampling_strategy == "auto" else sampling_strategy
        if kind == "not majority":
            targeted[rows, counts.argmax(axis=1)] = False
        elif kind == "not minority":
            targeted[rows, counts.argmin(axis=1)] = False
        elif kind == "minority":
            targeted[:] = False
            targeted[rows, counts.argmin(axis=1)] = True
        elif kind != "all":
            raise ValueError(f"unknown sampling_strategy {sampling_strategy!r}.")
        n_new = np.where(targeted, deficit, 0)
    elif isinstance(sampling_strategy, numbers.Real):
        if n_classes != 2:
            raise ValueError(_FLOAT_NEEDS_BINARY)
        targeted[rows, counts.argmax(axis=1)] = False
        wanted = np.trunc(top * float(sampling_strategy) - counts).astype(np.int64)
        n_new = np.where(targeted, wanted, 0)
    elif isinstance(sampling_strategy, Mapping):
        n_new, targeted = _n_synthetic_dict(sampling_strategy, classes, counts)
    elif callable(sampling_strategy):
        parts = []
        for run in counts:  # a callable needs a label vector: give it a surrogate
            surrogate = np.repeat(np.asarray(classes), run)
            parts.append(_n_synthetic_dict(sampling_strategy(surrogate), classes, run[None]))
        n_new = np.concatenate([p[0] for p in parts])
        targeted = np.concatenate([p[1] for p in parts])
    else:
        raise ValueError(f"unsupported sampling_strategy {sampling_strategy!r}.")
    return np.maximum(n_new, 0), targeted


def _n_synthetic_dict(wanted: Mapping, classes, counts):
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    unknown = set(wanted) - set(index)
    if unknown:
        raise ValueError(f"The {unknown} target class is/are not present in the data.")
    if any(v < 0 for v in wanted.values()):
        raise ValueError(
            "The number of samples in a class cannot be negative. 'sampling_strategy' "
            f"contains some negative value: {dict(wanted)}"
        )
    target = np.zeros(counts.shape[1], np.int64)
    targeted = np.zeros(counts.shape[1], bool)
    for cls, value in wanted.items():
        target[index[cls]] = int(value)
        targeted[index[cls]] = True
    n_new = np.where(targeted, target - counts, 0)
    return n_new, np.broadcast_to(targeted, counts.shape).copy()


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
        raise ValueError(_FLOAT_NEEDS_BINARY)
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


def integer_labels(y) -> bool:
    """True for a 1-D numpy array of integers: binary or multiclass, nothing to infer."""
    return isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iu"


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
