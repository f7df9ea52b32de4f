"""Giving a search's candidates the public label set.

A classifier that reads its labels from its training part releases them
(its ``classes_`` changes when a record holding a class's only label does).
A search hands every candidate the public label set of the whole problem,
through a ``classes`` parameter (at any depth) or its final step's ``fit``.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.pipeline import Pipeline


def label_set_route(estimator):
    """``(parameters, fit argument)`` through which ``estimator`` takes a label set, or None.

    ``parameters``: every ``classes`` parameter at any depth; the fit argument:
    the routed ``classes`` of the final step's ``fit`` when it has no such
    parameter. None when the final step takes a label set neither way.
    """
    params = [
        k for k in estimator.get_params(deep=True) if k == "classes" or k.endswith("__classes")
    ]
    final, prefix = estimator, ""
    while isinstance(final, Pipeline):
        name, final = final.steps[-1]
        prefix += f"{name}__"
    if "classes" in final.get_params(deep=False):
        return params, None
    fit = getattr(final, "fit", None)
    if fit is not None and "classes" in inspect.signature(fit).parameters:
        return params, prefix + "classes"
    return None


def give_label_set(model, label_set: np.ndarray) -> dict:
    """Set every ``classes`` parameter of ``model`` to ``label_set``; the fit arguments.

    A ``classes`` parameter already set must equal ``label_set``.
    """
    route = label_set_route(model)
    if route is None:
        raise ValueError(f"{type(model).__name__} cannot be given the public label set.")
    params, fit_argument = route
    values = model.get_params(deep=True)
    for name in params:
        given = values[name]
        if given is not None and not np.array_equal(np.unique(np.asarray(given)), label_set):
            raise ValueError(
                f"The candidates' '{name}' parameter ({given!r}) differs from the search's "
                f"public label set {label_set.tolist()!r}; leave it None or make them equal."
            )
    # the array itself: a list would turn object labels into str, a different type from y
    model.set_params(**{name: label_set.copy() for name in params if values[name] is None})
    return {} if fit_argument is None else {fit_argument: label_set}
