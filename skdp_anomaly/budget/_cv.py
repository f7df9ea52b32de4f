"""How often one record is trained on: cross-validation splitters and searches.

Under sequential composition a record pays for every fit whose training set
contains it; fits on folds that do not contain it cost it nothing. So a CV
procedure costs ``memberships × cost(fit)`` where ``memberships`` is the
largest number of training sets one record can be in. It is computed from the
splitter's *parameters* (``n_splits``, ``n_repeats``, user-given fold ids),
never from the data.
"""

from __future__ import annotations

import itertools
import math
from numbers import Integral

import numpy as np
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    LeavePGroupsOut,
    LeavePOut,
    PredefinedSplit,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedGroupKFold,
    StratifiedKFold,
    TimeSeriesSplit,
    check_cv,
)

__all__ = ["FOLD_ASSUMPTION", "distribution_probes", "training_memberships"]

FOLD_ASSUMPTION = (
    "fold accounting assumes a record's fold does not depend on which other records are "
    "present (replace-one neighbours with n fixed, or folds from a public key such as "
    "GroupKFold groups); under add/remove-one neighbours an unshuffled index-based KFold "
    "shifts fold boundaries, which this count does not cover"
)

_K_MINUS_ONE = (KFold, StratifiedKFold, GroupKFold, StratifiedGroupKFold)
_DATA_SIZED = (LeaveOneOut, LeavePOut, LeaveOneGroupOut, LeavePGroupsOut)


def training_memberships(cv, estimator=None) -> tuple[float, str]:
    """Largest number of training sets of ``cv`` that contain one record.

    Parameters
    ----------
    cv : int, cross-validation generator, iterable of (train, test) or None
        As accepted by :func:`sklearn.model_selection.check_cv`.
    estimator : estimator, optional
        Unused; kept for symmetry with :func:`~sklearn.model_selection.check_cv`.
        An int ``cv`` gives KFold or StratifiedKFold, which count the same.

    Returns
    -------
    memberships : float
        ``inf`` when the count depends on the data size (LeaveOneOut...).
    note : str

    Examples
    --------
    >>> from sklearn.model_selection import KFold, RepeatedKFold, ShuffleSplit
    >>> from skdp_anomaly.budget._cv import training_memberships
    >>> training_memberships(KFold(5))[0], training_memberships(None)[0]
    (4, 4)
    >>> training_memberships(RepeatedKFold(n_splits=3, n_repeats=2))[0]
    4
    >>> training_memberships(ShuffleSplit(n_splits=7))[0]
    7
    """
    if cv is None or isinstance(cv, Integral):
        k = 5 if cv is None else int(cv)
        if k < 2:
            raise ValueError(f"The 'cv' parameter must be an int >= 2, got {cv!r}.")
        return (
            k - 1,
            f"cv={k} (KFold or StratifiedKFold): each record is in {k - 1} training folds",
        )
    if not hasattr(cv, "split"):
        if iter(cv) is cv:  # a one-shot iterator: counting would consume the user's splits
            return math.inf, (
                "cv is a one-shot iterator of splits, which cannot be inspected without "
                "consuming it: unbounded cost (pass a list of (train, test) pairs)"
            )
        cv = check_cv(cv)
    name = type(cv).__name__
    if isinstance(cv, TimeSeriesSplit):
        return (
            cv.n_splits,
            f"{name}: the first records are in all {cv.n_splits} training sets",
        )
    if isinstance(cv, _K_MINUS_ONE):
        k = cv.n_splits
        return k - 1, f"{name}(n_splits={k}): each record is in {k - 1} training folds"
    if isinstance(cv, (RepeatedKFold, RepeatedStratifiedKFold)):
        k, r = cv.cvargs.get("n_splits", 5), cv.n_repeats
        return (
            r * (k - 1),
            f"{name}: each record is in n_repeats·(n_splits−1) = {r}·{k - 1} training folds",
        )
    if isinstance(cv, _DATA_SIZED):
        return math.inf, (
            f"{name}: the number of training sets containing a record grows with the data "
            "size, which is not a parameter: unbounded cost (use KFold)"
        )
    if isinstance(cv, PredefinedSplit):
        k = cv.get_n_splits()
        always = bool(np.any(np.asarray(cv.test_fold) == -1))
        m = k if always else k - 1
        return m, f"{name}: at most {m} training sets contain a record"
    splits = getattr(cv, "cv", None)  # check_cv's wrapper of an explicit list of splits
    if isinstance(splits, list):
        counts = {}
        for train, _test in splits:
            for i in np.asarray(train).ravel().tolist():
                counts[i] = counts.get(i, 0) + 1
        m = max(counts.values(), default=0)
        return m, f"explicit splits: at most {m} training sets contain a record"
    try:
        n = int(cv.get_n_splits())
    except Exception:  # noqa: BLE001 - needs X/groups: count unknown from parameters
        return (
            math.inf,
            f"{name}: number of splits unknown without the data: unbounded cost",
        )
    return n, f"{name}: worst case, a record may be in all {n} training sets"


def distribution_probes(dist, n_draws: int = 3) -> tuple[list, int, bool]:
    """Values at which to price a parameter drawn from ``dist``.

    The finite ends of the distribution's support (where the cost of a
    monotone parameter such as ε is largest) plus a few fixed draws. Returns
    ``(values, n_ends, bounded)``: the first ``n_ends`` values are support
    ends (an open end such as ε=0 may be an invalid value); ``bounded`` is
    False when the support has an infinite end (or is unknown).
    """
    lo, hi = -math.inf, math.inf
    support = getattr(dist, "support", None)
    if callable(support):
        try:
            lo, hi = (float(v) for v in support())
        except Exception:  # noqa: BLE001 - not a scipy distribution
            lo, hi = -math.inf, math.inf
    values = [v for v in (lo, hi) if math.isfinite(v)]
    n_ends = len(values)
    rng = np.random.RandomState(0)  # fixed probes: the report must be deterministic
    for _ in range(n_draws):
        try:
            values.append(dist.rvs(random_state=rng))
        except TypeError:
            values.append(dist.rvs())
    return values, n_ends, math.isfinite(lo) and math.isfinite(hi)


def product_indices(lengths):
    """All index tuples of a grid with the given axis lengths."""
    return itertools.product(*(range(n) for n in lengths))
