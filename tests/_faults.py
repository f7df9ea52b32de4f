"""Shared pieces of the fault-injection tests: an estimator's state, deep equality, a failing call."""

import math

import numpy as np


def state(est) -> dict:
    """Everything but the parameters (and the budget run of a call under way)."""
    params = set(est.get_params(deep=False))
    return {k: v for k, v in vars(est).items() if k not in params and k != "_budget_run"}


def same(a, b, *, objects=()) -> bool:
    """Equality by value, through dicts, lists, tuples, arrays and the ``objects`` types."""
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        )
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and a.keys() == b.keys()
            and all(same(a[k], b[k], objects=objects) for k in a)
        )
    if isinstance(a, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same(x, y, objects=objects) for x, y in zip(a, b))
        )
    if objects and isinstance(a, objects):
        return type(a) is type(b) and same(vars(a), vars(b), objects=objects)
    if isinstance(a, float) and math.isnan(a):  # "nothing tested yet" stays NaN
        return isinstance(b, float) and math.isnan(b)
    return a == b


def fail_on(monkeypatch, owner, name, n, exc, message="injected"):
    """``owner.name`` raises ``exc`` at its n-th call (counted from 1)."""
    original = getattr(owner, name)
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise exc(message)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)


def raised_type(error):
    """The type raised for ``error``: a parameter out of sklearn's constraints is
    raised as :class:`~skdp_anomaly.exceptions.ParameterError` (sklearn's error with
    its fields)."""
    from sklearn.utils._param_validation import InvalidParameterError

    from skdp_anomaly.exceptions import ParameterError

    return ParameterError if error is InvalidParameterError else error
