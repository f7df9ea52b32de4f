"""How often one record is trained on: cross-validation splitters and searches.

A CV procedure costs ``memberships × cost(fit)``, ``memberships`` being the largest number of
training sets one record can be in, counted from the splitter's parameters, never from the data.
:func:`training_memberships` returns the count with a note where it is proven a bound (a record's
fold does not depend on the other records: index-based and group splitters under replace-one
neighbours, ``PredefinedSplit`` under either relation), a leak where not, as for label-dependent
splitters (:ref:`proofs-budget-validator`).
"""

from __future__ import annotations

import math
from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.base import is_classifier
from sklearn.model_selection import (
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    LeavePGroupsOut,
    LeavePOut,
    PredefinedSplit,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedGroupKFold,
    StratifiedKFold,
    StratifiedShuffleSplit,
    TimeSeriesSplit,
    check_cv,
)

from ..exceptions import naming
from ..privacy._cost import check_neighbours

GROUPS_PUBLIC = (
    "groups are a public key of each record (a replaced record keeps its group), so "
    "the fold of a record does not depend on the other records"
)
_ADVICE = (
    "Use KFold(n_splits, shuffle=True, random_state=...) or GroupKFold on a public "
    "record id instead."
)

# How each splitter assigns folds (exact classes: a subclass may assign differently).
_BY_POSITION = (KFold, RepeatedKFold, ShuffleSplit, TimeSeriesSplit, LeaveOneOut, LeavePOut)
_BY_GROUP = (GroupKFold, GroupShuffleSplit, LeaveOneGroupOut, LeavePGroupsOut)
_BY_LABEL = (StratifiedKFold, RepeatedStratifiedKFold, StratifiedShuffleSplit, StratifiedGroupKFold)
_K_MINUS_ONE = (KFold, StratifiedKFold, GroupKFold, StratifiedGroupKFold)
_N_SPLITS = (ShuffleSplit, GroupShuffleSplit, StratifiedShuffleSplit, TimeSeriesSplit)
_DATA_SIZED = (LeaveOneOut, LeavePOut, LeaveOneGroupOut, LeavePGroupsOut)
_ASSIGNED_BY = {"label": _BY_LABEL, "group": _BY_GROUP, "position": _BY_POSITION}


class FoldCount(NamedTuple):
    """How many training sets contain one record, and whether that is proven.

    ``memberships`` is ``inf`` when it grows with the data size; ``leak`` (or
    None) says why the count is not a bound; ``assumption`` what it takes as public.
    """

    memberships: float
    note: str
    leak: str | None = None
    assumption: str | None = None


def training_memberships(cv, estimator=None, *, neighbours: str = "replace") -> FoldCount:
    """Largest number of training sets of ``cv`` that contain one record, as a :class:`FoldCount`.

    ``cv`` as :func:`~sklearn.model_selection.check_cv` takes it; with an int or
    None ``cv`` a classifier ``estimator`` gets ``StratifiedKFold`` (as in
    ``check_cv``), any other ``KFold``. The count must hold under ``neighbours``.

    >>> from sklearn.model_selection import KFold, RepeatedKFold, StratifiedKFold
    >>> from skdp_anomaly.budget._cv import training_memberships
    >>> training_memberships(KFold(5)).memberships, training_memberships(None).memberships
    (4, 4)
    >>> training_memberships(RepeatedKFold(n_splits=3, n_repeats=2)).memberships
    4
    >>> training_memberships(KFold(5), neighbours="add_remove").leak is None
    False
    >>> training_memberships(StratifiedKFold(5)).leak is None
    False
    """
    check_neighbours(neighbours)
    if cv is None or isinstance(cv, Integral):
        return _int_cv(cv, estimator, neighbours)
    if not hasattr(cv, "split"):
        if iter(cv) is cv:  # a one-shot iterator: counting would consume the user's splits
            how = (
                "cv is a one-shot iterator of splits, which cannot be inspected without "
                "consuming it: unbounded cost (pass a list of (train, test) pairs)"
            )
            return FoldCount(math.inf, how)
        cv = check_cv(cv)
    splits = getattr(cv, "cv", None)  # check_cv's wrapper of an explicit list of splits
    if isinstance(splits, list):
        count, name = _explicit_count(splits), "explicit (train, test) index splits"
        return _judge(count, name, "position", neighbours)
    return _judge(_count(cv), _describe(cv), _assignment(cv), neighbours)


def _int_cv(cv, estimator, neighbours) -> FoldCount:
    k = 5 if cv is None else int(cv)
    if k < 2:
        raise naming(ValueError, f"`The 'cv' parameter` must be an int >= 2, got {cv!r}.")
    count = (k - 1, f"each record is in {k - 1} training folds")
    if estimator is not None and is_classifier(estimator):
        name = (
            f"cv={k} with a classifier (scikit-learn's check_cv builds "
            f"StratifiedKFold(n_splits={k}) for binary or multiclass y)"
        )
        return _judge(count, name, "label", neighbours)
    return _judge(count, f"cv={k} (KFold(n_splits={k}) from check_cv)", "position", neighbours)


def _describe(cv) -> str:
    name = type(cv).__name__
    k = getattr(cv, "n_splits", None)
    if isinstance(cv, (RepeatedKFold, RepeatedStratifiedKFold)):
        return f"{name}(n_splits={cv.cvargs.get('n_splits', 5)}, n_repeats={cv.n_repeats})"
    return f"{name}(n_splits={k})" if isinstance(k, Integral) else name


def _count(cv) -> tuple[float, str]:
    """(memberships, how) from the splitter's parameters."""
    kind = type(cv)
    if kind in _K_MINUS_ONE:
        return cv.n_splits - 1, f"each record is in {cv.n_splits - 1} training folds"
    if kind in (RepeatedKFold, RepeatedStratifiedKFold):
        k, r = cv.cvargs.get("n_splits", 5), cv.n_repeats
        how = f"each record is in n_repeats·(n_splits−1) = {r}·{k - 1} training folds"
        return r * (k - 1), how
    if kind in _N_SPLITS:
        return cv.n_splits, f"worst case, a record is in all {cv.n_splits} training sets"
    if kind in _DATA_SIZED:
        return math.inf, (
            "the number of training sets containing a record grows with the data size, "
            "which is not a parameter: unbounded cost (use KFold)"
        )
    if kind is PredefinedSplit:
        k = cv.get_n_splits()
        m = k if bool(np.any(np.asarray(cv.test_fold) == -1)) else k - 1
        return m, f"at most {m} training sets contain a record"
    try:
        n = int(cv.get_n_splits())
    except Exception:  # noqa: BLE001 - needs X/groups: count unknown from parameters
        return math.inf, "number of splits unknown without the data: unbounded cost"
    return n, f"worst case, a record may be in all {n} training sets"


def _explicit_count(splits) -> tuple[float, str]:
    counts: dict = {}
    for train, _test in splits:
        for i in np.asarray(train).ravel().tolist():
            counts[i] = counts.get(i, 0) + 1
    m = max(counts.values(), default=0)
    return m, f"at most {m} training sets contain a record"


def _assignment(cv) -> str:
    """What a record's fold is a function of: 'label', 'group', 'position', 'key' or 'unknown'."""
    for assignment, kinds in _ASSIGNED_BY.items():
        if type(cv) in kinds:
            return assignment
    return "key" if type(cv) is PredefinedSplit else "unknown"


def _judge(count: tuple, name: str, assignment: str, neighbours: str) -> FoldCount:
    """The count with its proof (a note) or the reason it is not a bound (a leak)."""
    memberships, how = count
    figure, shown = f"{name}: {how}", _fmt(memberships)
    if assignment == "key":
        return FoldCount(
            memberships,
            f"{figure}; proven under either relation: each record's fold is its own "
            "public key (test_fold), whatever the other records",
        )
    if assignment == "label":
        leak = (
            f"{name} assigns folds from the labels: changing one record's label moves "
            "other records between folds, so neighbouring datasets get training sets that "
            f"differ in more than that record and the count ({shown}) is not a bound. {_ADVICE}"
        )
        return FoldCount(memberships, figure, leak)
    if assignment == "unknown":
        leak = (
            f"{name}: the validator cannot tell whether a record's fold depends on the other "
            f"records, so the count ({shown}) is not proven. {_ADVICE}"
        )
        return FoldCount(memberships, figure, leak)
    # position or group: proven with n fixed, not when n (or a group size) changes
    if neighbours == "add_remove":
        leak = (
            f"{name} assigns folds by position among the n records"
            + (" and by the sizes and ranks of the groups" if assignment == "group" else "")
            + ": a record added or removed moves other records between folds, so the count "
            f"({shown}) is not a bound under add/remove neighbours. Use "
            "PredefinedSplit with a fold stored in each record (a public key), or price under "
            "neighbours='replace' (n public)."
        )
        return FoldCount(memberships, figure, leak)
    if assignment == "group":
        return FoldCount(
            memberships,
            f"{figure}; proven under replace-one neighbours: the folds depend on n, the seed "
            "and the groups, which a replaced record keeps",
            assumption=f"{name}: {GROUPS_PUBLIC}",
        )
    return FoldCount(
        memberships,
        f"{figure}; proven under replace-one neighbours: the folds depend only on n and the "
        "seed, and a replaced record keeps its position",
    )


def _fmt(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:g}"


def distribution_probes(dist, n_draws: int = 3) -> tuple[list, int, bool]:
    """``(values, n_ends, bounded)``: where to price a parameter drawn from ``dist``.

    The finite support ends first (``n_ends``; an open end may be invalid), then
    a few fixed draws; ``bounded`` is False for an infinite or unknown support.
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
