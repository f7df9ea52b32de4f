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
    children = []
    if isinstance(obj, dict):
        children = [*obj.keys(), *obj.values()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        children = list(obj)
    else:
        if hasattr(obj, "__dict__"):
            children = list(vars(obj).values())
        for cls in type(obj).__mro__:
            children += [getattr(obj, s) for s in getattr(cls, "__slots__", ())
                         if isinstance(s, str) and hasattr(obj, s)]
    for child in children:
        reachable(child, seen)
    return seen
