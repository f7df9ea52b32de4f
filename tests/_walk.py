"""Everything reachable from an object, for tests that look for what a fitted estimator keeps."""

import numpy as np


def reachable(obj, seen=None) -> dict:
    """Every object reachable from ``obj`` through attributes, slots, items and fields.

    Returns a dict ``id -> object``; arrays, strings and numbers are leaves
    (not entered, not listed).
    """
    seen = {} if seen is None else seen
    if id(obj) in seen or isinstance(obj, (type, str, bytes, int, float, np.ndarray)):
        return seen
    seen[id(obj)] = obj
    for child in _children(obj):
        reachable(child, seen)
    return seen


def reachable_arrays(obj) -> list:
    """Every numpy array reachable from ``obj`` (as :func:`reachable` walks it)."""
    return [
        child
        for o in reachable(obj).values()
        for child in _children(o)
        if isinstance(child, np.ndarray)
    ]


def _children(obj) -> list:
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    children = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    for cls in type(obj).__mro__:
        children += [
            getattr(obj, s)
            for s in getattr(cls, "__slots__", ())
            if isinstance(s, str) and hasattr(obj, s)
        ]
    return children
