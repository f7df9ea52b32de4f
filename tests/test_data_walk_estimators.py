"""The walk of ``X`` through every estimator's fit, measured as for DPSMOTE.

:mod:`test_data_walk` measures the walk of ``X`` through ``DPSMOTE.fit_resample``
and holds it to at most 5 modules entered, none returned to more than twice
after it was left; read its docstring for what is measured and why. This
module takes the same measure of the fit of every other estimator and holds
it to the same limits (``MAX_MODULES``, ``MAX_RETURNS``, imported from there).

What is measured
----------------
As in :mod:`test_data_walk`: ``sys.setprofile`` records every Python function
entered in the calling thread from the measured call to its return, labelled
with its module; consecutive entries of one module collapse into one visit.
The estimator is built, and any earlier call of a stream (the windows before
the measured ``partial_fit``) is made, before the walk starts. Each case runs
once on another instance first, so that numba compiles outside the walk.

What counts
-----------
**Only the modules of the estimator's own subpackage** (the ``prefix`` of each
case), whoever calls them. An estimator that fits estimators of other
subpackages is measured on its own subpackage only:
``DPImbalancedClassifier`` (``skdp_anomaly.imbalanced``) fits a
``BoundsScaler`` (preprocessing), a ``PrivateLogisticRegression``
(linear_model) and, with ``strategy="oversample"``, ``DPSMOTE`` (over_sampling);
``NoisyPriorThresholdClassifier`` fits the classifier it is given;
``PrivateGridSearchCV`` (``skdp_anomaly.model_selection``) fits its candidate
estimator many times. Those walks are their own estimators' (measured in their
own cases here and in :mod:`test_data_walk`); what is counted is the
estimator's own modules, including their functions that the others call back
(``NoisyPriorThresholdClassifier``'s validation run by the imbalanced
classifier, say). The privacy layer, the data layer, ``_jit``, ``_warn`` and
code outside the package are not counted, as there (the placement checks of
the mechanisms and of the data layer are DPSMOTE's and are not repeated here).

The measured walks
------------------
A case whose walk exceeds the limits today is an ``xfail(strict=True)`` whose
reason records the measured walk (modules entered, the most returns and the
visits, with a run of ``k`` repeats of a cycle written ``(a > b)×k``, cut to
``REASON_WIDTH`` characters): the test documents the walk and fails (XPASS)
once the walk is brought within the limits, so that the mark is removed with
the fix. ``python tests/test_data_walk_estimators.py`` prints every walk whole.
The walks are deterministic (fixed seeds); where a loop goes back and forth
between two modules once per step (the queries of a group search, the steps of
the DPOAD baseline, the candidates and folds of a search), the data and the
seed set the number of returns.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Callable

import numpy as np
import pytest
from test_data_walk import MAX_MODULES, MAX_RETURNS, walk_of

from skdp_anomaly import (
    DPOAD,
    BoundsScaler,
    DPImbalancedClassifier,
    NoisyGroupSearch,
    NoisyPriorThresholdClassifier,
    PrivateChangePointDetector,
    PrivateGridSearchCV,
    PrivateHBOS,
    PrivateLogisticRegression,
    PrivateOnlineActiveSVC,
)


# -- the measure -------------------------------------------------------------------------
def walk_in(prefix: str, call: Callable[[], object]) -> list[str]:
    """Run ``call()`` under the profiler: the visits, in order, to the modules of ``prefix``
    (consecutive entries of one module collapsed into one visit)."""
    return walk_of(call, prefix)[0]


def max_returns(visits: list[str]) -> int:
    """The most visits of one module after the first."""
    return max(Counter(visits).values(), default=1) - 1


def compress(visits: list[str]) -> str:
    """The visits by short name, a run of ``k >= 3`` repeats of a cycle written ``(a > b)×k``."""
    return " > ".join(_steps(visits))


def _steps(visits: list[str], max_period: int = 8) -> list[str]:
    """The steps of :func:`compress`: a visit, or a run of repeats of a cycle."""
    names = [m.rsplit(".", 1)[-1] for m in visits]
    out, i = [], 0
    while i < len(names):
        best = (1, 1)  # (period, repeats)
        for period in range(1, max_period + 1):
            cycle, repeats = names[i : i + period], 1
            if len(cycle) < period:
                break
            while names[i + repeats * period : i + (repeats + 1) * period] == cycle:
                repeats += 1
            if repeats >= 3 and period * repeats > best[0] * best[1]:
                best = (period, repeats)
        period, repeats = best
        if repeats > 1:
            out.append(f"({' > '.join(names[i : i + period])})×{repeats}")
        else:
            out.append(names[i])
        i += period * repeats
    return out


def summary(visits: list[str], width: int | None = None) -> str:
    """``N modules / M returns (the module returned to most): the visits``, the visits cut
    to ``width`` characters if given."""
    counts = Counter(visits)
    most = max(counts, key=counts.get).rsplit(".", 1)[-1] if visits else ""
    steps, walk = _steps(visits), compress(visits)
    if width is not None and len(walk) > width:
        cut = next(k for k in range(len(steps), -1, -1) if len(" > ".join(steps[:k])) <= width)
        walk = " > ".join(steps[:cut] + [f"… ({len(visits)} visits)"])
    return f"{len(counts)} modules / {max_returns(visits)} returns ({most}): {walk}"


def _check(visits: list[str]) -> None:
    assert visits, "no module of the estimator's subpackage was entered"
    assert len(set(visits)) <= MAX_MODULES, summary(visits)
    assert max_returns(visits) <= MAX_RETURNS, summary(visits)


# -- the data (public, synthetic, fixed seeds) -------------------------------------------
@cache
def _classes(n=2_000, seed=0):
    """Three features in [-1, 1.5], an imbalanced binary y (about 15 % ones)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.15).astype(np.int64)
    X = rng.uniform(-1, 1, (n, 3)) + 0.5 * y[:, None]
    return X, y


def _signs():
    X, y = _classes()
    return X, np.where(y == 1, 1, -1)


@cache
def _series(seed=0):
    """300 points of N(0, 1), then 300 of N(2, 1)."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(0, 1, 300), rng.normal(2, 1, 300)])


@cache
def _stream(seed=0):
    """A stream (n, 1): 2000 points of N(0, 1), then 2000 of N(3, 1)."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(0, 1, 2_000), rng.normal(3, 1, 2_000)]).reshape(-1, 1)


@cache
def _scores(seed=0):
    """1000 uniform [0, 1) scores, one anomaly at 2."""
    X = np.random.default_rng(seed).uniform(0, 1, (1_000, 1))
    X[17] = 2.0
    return X


BINS = np.linspace(0.0, 1.0, 17)


def _window(i):
    """The i-th window of 200 records (1-D) in [0, 1)."""
    return np.random.default_rng(i).uniform(0, 1, 200)


# -- the cases ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    prefix: str  # the estimator's own subpackage: the modules counted
    make: Callable[[], object]  # a new estimator
    call: Callable[[object], object]  # the measured call
    before: Callable[[object], object] = lambda est: None  # earlier calls, not measured


def _fit(est):
    return est.fit(*_classes())


def _svc_first_half(est):
    X, y = _signs()
    est.partial_fit(X[:1_000], y[:1_000], classes=[-1, 1])


def _svc_second_half(est):
    X, y = _signs()
    est.partial_fit(X[1_000:], y[1_000:])


def _three_windows(est):
    for i in range(3):
        est.partial_fit(_window(i))


IMBALANCED = "skdp_anomaly.imbalanced"
CHANGEPOINT = "skdp_anomaly.changepoint"
ACTIVE = "skdp_anomaly.active_learning"
GROUP_SEARCH = "skdp_anomaly.group_search"
DPOAD_ = "skdp_anomaly.dpoad"
SEARCH = "skdp_anomaly.model_selection"

CASES = {
    # imbalanced (counted: imbalanced only; its BoundsScaler, PrivateLogisticRegression
    # and DPSMOTE are not)
    "DPImbalancedClassifier.fit": Case(
        IMBALANCED, lambda: DPImbalancedClassifier(bounds=(-2, 2), random_state=0), _fit
    ),
    "DPImbalancedClassifier.fit-oversample": Case(
        IMBALANCED,
        lambda: DPImbalancedClassifier(bounds=(-2, 2), strategy="oversample", random_state=0),
        _fit,
    ),
    "NoisyPriorThresholdClassifier.fit": Case(
        IMBALANCED,
        lambda: NoisyPriorThresholdClassifier(
            PrivateLogisticRegression(data_norm=4.0, random_state=0), random_state=0
        ),
        _fit,
    ),
    # linear_model
    "PrivateLogisticRegression.fit": Case(
        "skdp_anomaly.linear_model",
        lambda: PrivateLogisticRegression(data_norm=4.0, random_state=0),
        _fit,
    ),
    # outlier
    "PrivateHBOS.fit": Case(
        "skdp_anomaly.outlier",
        lambda: PrivateHBOS(bounds=(-2, 2), random_state=0),
        lambda est: est.fit(_classes()[0]),
    ),
    "PrivateHBOS.fit-contamination": Case(
        "skdp_anomaly.outlier",
        lambda: PrivateHBOS(bounds=(-2, 2), contamination=0.1, random_state=0),
        lambda est: est.fit(_classes()[0]),
    ),
    # changepoint: offline, then online (fit with window=, and partial_fit)
    "PrivateChangePointDetector.fit-offline": Case(
        CHANGEPOINT,
        lambda: PrivateChangePointDetector(epsilon=4.0, random_state=0),
        lambda est: est.fit(_series()),
    ),
    "PrivateChangePointDetector.fit-offline-k": Case(
        CHANGEPOINT,
        lambda: PrivateChangePointDetector(epsilon=4.0, n_change_points=1, random_state=0),
        lambda est: est.fit(_series()),
    ),
    "PrivateChangePointDetector.fit-online": Case(
        CHANGEPOINT,
        lambda: PrivateChangePointDetector(epsilon=4.0, window=200, threshold=0.8, random_state=0),
        lambda est: est.fit(_stream()),
    ),
    "PrivateChangePointDetector.partial_fit": Case(
        CHANGEPOINT,
        lambda: PrivateChangePointDetector(epsilon=4.0, window=200, threshold=0.8, random_state=0),
        lambda est: est.partial_fit(_stream()),
    ),
    "PrivateChangePointDetector.partial_fit-arl0": Case(
        CHANGEPOINT,
        lambda: PrivateChangePointDetector(epsilon=4.0, window=200, random_state=0),
        lambda est: est.partial_fit(_stream()),
    ),
    # active_learning
    "PrivateOnlineActiveSVC.fit": Case(
        ACTIVE, lambda: PrivateOnlineActiveSVC(random_state=0), lambda est: est.fit(*_signs())
    ),
    "PrivateOnlineActiveSVC.partial_fit-first": Case(
        ACTIVE, lambda: PrivateOnlineActiveSVC(random_state=0), _svc_first_half
    ),
    "PrivateOnlineActiveSVC.partial_fit-second": Case(
        ACTIVE,
        lambda: PrivateOnlineActiveSVC(random_state=0),
        _svc_second_half,
        before=_svc_first_half,
    ),
    # group_search: the defaults (a total ε), and the paper's per-query mode
    "NoisyGroupSearch.fit": Case(
        GROUP_SEARCH, lambda: NoisyGroupSearch(random_state=0), lambda est: est.fit(_scores())
    ),
    "NoisyGroupSearch.fit-query_epsilon": Case(
        GROUP_SEARCH,
        lambda: NoisyGroupSearch(
            epsilon=300.0, query_epsilon=1.0, low=1.0, high=1.8, random_state=0
        ),
        lambda est: est.fit(_scores()),
    ),
    # dpoad: the first window (learning), a window after the learning ones, and the
    # paper's mechanism with the KSE detector
    "DPOAD.partial_fit-first": Case(
        DPOAD_,
        lambda: DPOAD(BINS, max_count=300, random_state=0),
        lambda est: est.partial_fit(_window(0)),
    ),
    "DPOAD.partial_fit-fourth": Case(
        DPOAD_,
        lambda: DPOAD(BINS, max_count=300, random_state=0),
        lambda est: est.partial_fit(_window(3)),
        before=_three_windows,
    ),
    "DPOAD.partial_fit-kse": Case(
        DPOAD_,
        lambda: DPOAD(
            BINS, epsilon=10.0, mechanism="dpoad", detector="kse", max_count=50, random_state=0
        ),
        lambda est: est.partial_fit(_window(1)),
    ),
    # preprocessing
    "BoundsScaler.fit": Case(
        "skdp_anomaly.preprocessing",
        lambda: BoundsScaler(bounds=(-2, 2)),
        lambda est: est.fit(_classes()[0]),
    ),
    # model_selection (counted: model_selection only; its candidates' fits are not)
    "PrivateGridSearchCV.fit": Case(
        SEARCH,
        lambda: PrivateGridSearchCV(
            PrivateLogisticRegression(data_norm=4.0, random_state=0),
            {"C": [0.1, 1.0]},
            epsilon=2.0,
            random_state=0,
        ),
        _fit,
    ),
    "PrivateGridSearchCV.fit-total_epsilon": Case(
        SEARCH,
        lambda: PrivateGridSearchCV(
            PrivateLogisticRegression(data_norm=4.0, random_state=0),
            {"C": [0.1, 1.0]},
            total_epsilon=2.0,
            force_search=True,
            random_state=0,
        ),
        _fit,
    ),
}

#: the walks measured beyond the limits (see the module docstring), the visits cut to
#: REASON_WIDTH characters; ``python tests/test_data_walk_estimators.py`` prints them whole
REASON_WIDTH = 300
MEASURED = {
    "DPImbalancedClassifier.fit": (
        "4 modules / 45 returns (_threshold): (_classifier > _threshold)×3 > _classifier > "
        "_predicted_prior > (_threshold > _classifier)×4 > (_predicted_prior > _threshold)×3 "
        "> _classifier > _threshold > _classifier > _threshold > _classifier > "
        "_predicted_prior > (_threshold > _classifier)×4 > (_predicted_prior > _threshold)×3 "
        "> … (103 visits)"
    ),
    "DPImbalancedClassifier.fit-oversample": (
        "2 modules / 24 returns (_classifier): (_classifier > _threshold)×24 > _classifier"
    ),
    "PrivateLogisticRegression.fit": (
        "3 modules / 7 returns (_objective): _logistic > _objective > _logistic > _objective "
        "> _losses > _objective > _logistic > (_objective > _losses)×4 > _objective"
    ),
    "PrivateHBOS.fit-contamination": (
        "2 modules / 3 returns (_hbos): (_hbos > _histograms)×3 > _hbos"
    ),
    "PrivateChangePointDetector.fit-offline": (
        "8 modules / 15 returns (_binseg): (_pncpd > _binseg)×3 > _pncpd > _in_memory > "
        "_pncpd > _binseg > _noise_warnings > _binseg > _noise_warnings > _binseg > "
        "_dependence > _models > _dependence > _models > _binseg > _models > _binseg > "
        "_models > _statistic > _binseg > _models > _statistic > _binseg > _models > … (47 "
        "visits)"
    ),
    "PrivateChangePointDetector.fit-offline-k": (
        "6 modules / 9 returns (_binseg): (_pncpd > _binseg)×3 > _pncpd > _in_memory > _pncpd"
        " > _binseg > _noise_warnings > _binseg > _noise_warnings > _binseg > _models > "
        "_binseg > _models > _binseg > _statistic > _binseg > _pncpd > _binseg > _pncpd"
    ),
    "PrivateChangePointDetector.fit-online": (
        "7 modules / 10 returns (_pncpd): _pncpd > _online_calibration > _core > _pncpd > "
        "_in_memory > _pncpd > _online_calibration > _core > _pncpd > _noise_warnings > "
        "(_core > _pncpd > _online)×3 > _statistic > _online > _core > _pncpd > _online > "
        "_core > _online > _core > _pncpd > _core > _statistic > _core > _online > _pncpd > "
        "_online > … (35 visits)"
    ),
    "PrivateChangePointDetector.partial_fit": (
        "7 modules / 10 returns (_pncpd): _pncpd > _online_calibration > _core > _pncpd > "
        "_in_memory > _pncpd > _online_calibration > _core > _pncpd > _noise_warnings > "
        "(_core > _pncpd > _online)×3 > _statistic > _online > _core > _pncpd > _online > "
        "_core > _online > _core > _pncpd > _core > _statistic > _core > _online > _pncpd > "
        "_online > … (35 visits)"
    ),
    "PrivateChangePointDetector.partial_fit-arl0": (
        "8 modules / 13 returns (_pncpd): _pncpd > _online_calibration > _core > _pncpd > "
        "_in_memory > _pncpd > _online_calibration > _core > _pncpd > _noise_warnings > _core"
        " > _pncpd > _binseg > _online_calibration > _pncpd > _online > _core > _pncpd > "
        "_binseg > _online_calibration > _pncpd > _binseg > _pncpd > _online > _core > _pncpd"
        " > … (43 visits)"
    ),
    "PrivateOnlineActiveSVC.fit": (
        "8 modules / 25 returns (_stream): _online_svc > (_params > _stream)×3 > _ftrl > "
        "_stream > _params > _stream > _params > _online_svc > _params > _selection > "
        "_run_state > _online_svc > _run_state > _online_svc > _warnings > (_stream > "
        "_params)×3 > _stream > _ftrl > _stream > _params > _stream > _params > _online_svc >"
        " _params > … (90 visits)"
    ),
    "PrivateOnlineActiveSVC.partial_fit-first": (
        "8 modules / 23 returns (_stream): _online_svc > (_params > _stream)×3 > _ftrl > "
        "_stream > _params > _stream > _params > _online_svc > _params > _selection > "
        "_run_state > _online_svc > _run_state > _online_svc > _warnings > (_stream > "
        "_params)×3 > _stream > _ftrl > _stream > _params > _stream > _params > _online_svc >"
        " _params > … (75 visits)"
    ),
    "PrivateOnlineActiveSVC.partial_fit-second": (
        "8 modules / 16 returns (_stream): _online_svc > (_params > _stream)×3 > _ftrl > "
        "_stream > _params > _stream > _params > _online_svc > _params > _selection > "
        "_run_state > _online_svc > _run_state > _online_svc > _run_state > _warnings > "
        "_run_state > _online_svc > _stream > _run_state > _stream > _run_state > _stream > "
        "_params > … (58 visits)"
    ),
    "NoisyGroupSearch.fit": (
        "4 modules / 417 returns (_sensors): _noisy_group_search > (_plan > _sensors)×402 > "
        "_plan > _noisy_group_search > _sensors > (_posterior > _noisy_group_search > "
        "_posterior > _noisy_group_search > _posterior > _sensors > _noisy_group_search)×15 >"
        " _posterior > _noisy_group_search > _posterior > _noisy_group_search"
    ),
    "NoisyGroupSearch.fit-query_epsilon": (
        "4 modules / 100 returns (_noisy_group_search): _noisy_group_search > _plan > "
        "_sensors > _plan > _sensors > _plan > _noisy_group_search > _sensors > (_posterior >"
        " _noisy_group_search > _posterior > _noisy_group_search > _posterior > _sensors > "
        "_noisy_group_search)×32 > (_posterior > _noisy_group_search)×3"
    ),
    "DPOAD.partial_fit-first": (
        "6 modules / 7 returns (_owner): _estimator > _owner > _analyst > _owner > _estimator"
        " > _owner > _estimator > _owner > _sampling > _owner > _analyst > _sampling > "
        "_analyst > _sampling > _messages > _estimator > _owner > _estimator > _owner > "
        "_messages > _analyst > _baseline > _messages > _owner > _estimator"
    ),
    "DPOAD.partial_fit-fourth": (
        "6 modules / 186 returns (_baseline): _estimator > _owner > _analyst > _owner > "
        "_estimator > _owner > _estimator > _owner > _messages > _analyst > (_baseline > "
        "_proportions)×186 > _baseline > _messages > _owner > _estimator"
    ),
    "DPOAD.partial_fit-kse": (
        "6 modules / 7 returns (_owner): _estimator > _owner > _analyst > _owner > _sampling "
        "> _messages > _estimator > _owner > _estimator > _owner > _sampling > _messages > "
        "_sampling > _messages > _owner > _analyst > _sampling > _analyst > _sampling > "
        "_messages > _estimator > _owner > _estimator > _owner > _sampling > _messages > … "
        "(32 visits)"
    ),
    "PrivateGridSearchCV.fit": (
        "4 modules / 24 returns (_search): _search > _scoring > _search > _scoring > _search "
        "> _label_set > _search > _scoring > _search > _scoring > _search > _label_set > "
        "(_search > _scoring)×3 > _search > _repetitions > (_search > _label_set)×6 > "
        "(_search > _scoring)×7 > _search > _label_set > _search"
    ),
    "PrivateGridSearchCV.fit-total_epsilon": (
        "5 modules / 44 returns (_search): _search > _scoring > _search > _scoring > _search "
        "> _allocation > _search > _label_set > _search > _scoring > _search > _allocation > "
        "_search > _scoring > _search > _allocation > _search > _label_set > _search > "
        "_scoring > _search > _allocation > _search > _scoring > _search > _allocation > "
        "_search > … (89 visits)"
    ),
}


def _params():
    return [
        pytest.param(
            name,
            id=name,
            marks=pytest.mark.xfail(strict=True, reason=f"measured: {MEASURED[name]}"),
        )
        if name in MEASURED
        else pytest.param(name, id=name)
        for name in CASES
    ]


def measure(name: str) -> list[str]:
    """The visits of case ``name``'s measured call (after a first run that compiles)."""
    case = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = case.make()
        case.before(first)
        case.call(first)  # numba compiles outside the walk
        est = case.make()
        case.before(est)
        return walk_in(case.prefix, lambda: case.call(est))


@pytest.mark.parametrize("name", _params())
def test_walk_of_fit(name):
    _check(measure(name))


def test_the_measure():
    p = "skdp_anomaly.x"
    assert walk_in(p, lambda: None) == []
    visits = [f"{p}._a", f"{p}._b"] * 4 + [f"{p}._c"]
    assert max_returns(visits) == 3
    assert compress(visits) == "(_a > _b)×4 > _c"
    assert compress([f"{p}._a", f"{p}._b", f"{p}._a"]) == "_a > _b > _a"
    with pytest.raises(AssertionError, match=r"3 modules / 3 returns \(_a\): \(_a > _b\)×4 > _c"):
        _check(visits)
    assert summary(visits, width=12) == "3 modules / 3 returns (_a): (_a > _b)×4 > … (9 visits)"
    with pytest.raises(AssertionError, match="6 modules / 0 returns"):
        _check([f"{p}._{i}" for i in range(6)])
    _check([f"{p}._{i}" for i in range(5)] + [f"{p}._0", f"{p}._1", f"{p}._0"])
    # the profiler sees the functions of this module (a prefix of its own name)
    assert walk_in(__name__, lambda: max_returns([p])) == [__name__]


if __name__ == "__main__":  # print the measured walks
    for name in CASES:
        visits = measure(name)
        print(f"{name}: {summary(visits)}")
