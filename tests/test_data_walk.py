"""The walk of ``X`` through ``DPSMOTE.fit_resample``, and where dask is imported.

``fit_resample`` should read inputs, then compute the statistics, then release,
then synthesise, each stage in its own module, in memory and on Dask alike,
instead of bouncing between modules. These tests measure the walk and hold it
to at most 5 modules entered, none of them returned to more than twice after
it was left.

What is measured
----------------
``sys.setprofile`` in the calling thread records every Python function entered
(a ``call`` event: functions, methods, comprehensions, generators) from the
call of ``fit_resample`` to its return; the estimator is built before. Each
entry is labelled with the module of the function's code. Consecutive entries
of the same module are collapsed into one visit; "modules entered" counts the
distinct modules, "returns" of a module its visits after the first.

What counts, and what does not (and why)
----------------------------------------
* **Counted: every module of** ``skdp_anomaly.over_sampling`` (the estimator
  and its own modules), whoever calls the function: the estimator, a stage,
  the data layer calling a block function back, scikit-learn calling the
  estimator's tags during validation. The walk starts with the call itself, so
  the parameter checks and the budget reservation made before the data are
  read count too.
* **Not counted: the privacy layer** (``skdp_anomaly.privacy``: the fit's
  transaction wrapper, the accountant, parameter validation, the mechanisms).
  Every estimator shares it and the protocol fixes where it is called
  (reserve the budget first, charge right before each release); counting it
  would count those checkpoints, not the walk of the data. Instead the test
  holds the mechanisms to the release stage: a mechanism is only ever entered
  from :mod:`skdp_anomaly.over_sampling._release`.
* **Not counted: the data layer** (``skdp_anomaly._data``: reading rows,
  blockwise reductions, the optional dask import). It reads and writes blocks
  for whichever stage calls it, and the block functions it runs are counted in
  their own modules. The test holds it away from the releases: it is entered
  from the estimator (reading inputs), the statistics and the synthesis only.
* **Not counted: utilities without data** (``skdp_anomaly._jit``, numba's
  compile-on-first-call wrapper; ``skdp_anomaly._warn``), and code outside the
  package (numpy, scikit-learn, imbalanced-learn, dask).
* On dask input the block functions run on the workers (here the threads of
  an in-process cluster, which the profiler of the calling thread does not
  see): the walk is the client's.

The Gaussian synopsis (the default, and the one synopsis that runs on dask)
is held to the limits, in memory and on dask; the grid synopsis (in memory
only) too, dense and sparse, on a fixed grid, on one chosen from the DP class
sizes and on one beyond int64 cell codes. Its grid may follow the DP class
sizes (``granularity="auto"``), so its walk enters the statistics and the
releases twice: class sizes, size release, grid, cell coordinates of the
over-sampled classes, histograms, synthesis (``_statistics > _release >
_setting > _statistics > _release > _synthesis``, after the parameter checks
in ``_setting``). It stays within the limits because each piece of the grid
lives in the module that runs it: the grid, its ℓ-ball and the checks of its
shape with the other parameter checks (:mod:`skdp_anomaly.over_sampling._setting`),
the cell coordinates in ``_statistics``, the cell keys and the noisy
histograms in ``_release``, phase 2 in ``_synthesis``, each reading the grid's
attributes without calling back into another module; and because the
estimator builds the record of its releases (with their shares of the budget)
itself, so that pricing a fit does not enter ``_release`` (the Gaussian
synopsis's check of its class sums aside).
"""

from __future__ import annotations

import pathlib
import re
import sys
import warnings
from collections import Counter

import numpy as np
import pytest

from skdp_anomaly import DPSMOTE

PACKAGE = "skdp_anomaly.over_sampling"
MECHANISMS = "skdp_anomaly.privacy._mechanisms"
DATA_LAYER = ("skdp_anomaly._data",)
MAX_MODULES = 5
MAX_RETURNS = 2


def _module(frame) -> str:
    return frame.f_globals.get("__name__", "")


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _caller_in_package(frame, package: str) -> str:
    """The module of the nearest frame below ``frame`` that belongs to ``package``."""
    frame = frame.f_back
    while frame is not None and not _in(_module(frame), package):
        frame = frame.f_back
    return _module(frame) if frame is not None else ""


def walk_of(call, package: str = PACKAGE):
    """Run ``call()`` under the profiler: (visits in order to the modules of ``package``,
    callers of mechanisms and of the data layer)."""
    entered, mechanism_callers, data_callers = [], set(), set()

    def profile(frame, event, arg):
        if event != "call":
            return
        module = _module(frame)
        if _in(module, package):
            entered.append(module)
        elif module.startswith(MECHANISMS):
            mechanism_callers.add(_caller_in_package(frame, package))
        elif module.startswith(DATA_LAYER):
            data_callers.add(_caller_in_package(frame, package))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    visits = [m for i, m in enumerate(entered) if i == 0 or m != entered[i - 1]]
    return visits, mechanism_callers, data_callers


def _check(visits, mechanism_callers, data_callers):
    counts = Counter(visits)
    short = " > ".join(m.rsplit(".", 1)[-1] for m in visits)
    assert len(counts) <= MAX_MODULES, f"{len(counts)} modules entered: {short}"
    returns = {m: n - 1 for m, n in counts.items() if n - 1 > MAX_RETURNS}
    assert not returns, f"returned to more than {MAX_RETURNS} times: {returns}; {short}"
    assert mechanism_callers == {f"{PACKAGE}._release"}, mechanism_callers
    assert data_callers and data_callers <= {
        f"{PACKAGE}._dpsmote",
        f"{PACKAGE}._statistics",
        f"{PACKAGE}._synthesis",
    }, data_callers


def _check_stage_order(visits):
    """Statistics before the releases, the releases before the synthesis."""
    visits = [m.rsplit(".", 1)[-1] for m in visits]
    first = {m: visits.index(m) for m in ("_statistics", "_synthesis")}
    assert (
        first["_statistics"] < visits.index("_release", first["_statistics"]) < first["_synthesis"]
    ), " > ".join(visits)


def _data(n=4_000, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(np.int64)
    y[rng.random(n) < 0.05] = 2  # three classes: two of them over-sampled
    X = rng.uniform(-1, 1, (n, 3)) + 0.3 * y[:, None]
    return X, y


@pytest.mark.parametrize(
    "params", [{}, {"classes": [0, 1, 2, 3]}, {"bounds": None}, {"class_counts": "public"}]
)
def test_walk_of_numpy_input(params):
    X, y = _data()
    params = {"epsilon": 1.0, "bounds": (-2, 2), "random_state": 0, **params}
    est = DPSMOTE(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        DPSMOTE(**params).fit_resample(X, y)  # numba compiles outside the walk
        walk = walk_of(lambda: est.fit_resample(X, y))
    _check(*walk)
    _check_stage_order(walk[0])


@pytest.mark.parametrize("params", [{}, {"classes": [0, 1, 2, 3]}, {"bounds": None}])
def test_walk_of_dask_input(params):
    da = pytest.importorskip("dask.array")
    import dask

    X, y = _data()
    params = {"epsilon": 1.0, "bounds": (-2, 2), "random_state": 0, **params}
    Xd, yd = da.from_array(X, chunks=(1_000, 3)), da.from_array(y, chunks=1_000)
    est = DPSMOTE(**params)
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        walk = walk_of(lambda: est.fit_resample(Xd, yd))
    _check(*walk)


# granularity=1e-7: 10**21 cells, beyond int64 codes (and one class without a positive cell)
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"histogram": "sparse"},
        {"granularity": "auto"},
        {"classes": [0, 1, 2, 3]},
        {"bounds": None},
        {"granularity": 1e-7},
    ],
)
def test_walk_of_the_grid_synopsis(params):
    X, y = _data()
    params = {"epsilon": 1.0, "bounds": (-2, 2), "random_state": 0, "synopsis": "grid", **params}
    est = DPSMOTE(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        walk = walk_of(lambda: est.fit_resample(X, y))
    _check(*walk)
    _check_stage_order(walk[0])


def test_the_walk_is_measured_where_it_bounces():
    # the measure can fail: a walk that goes back and forth between two modules
    visits = [f"{PACKAGE}._a", f"{PACKAGE}._b"] * 4
    with pytest.raises(AssertionError, match="returned to more than 2 times"):
        _check(visits, {f"{PACKAGE}._release"}, {f"{PACKAGE}._statistics"})
    with pytest.raises(AssertionError, match="6 modules entered"):
        _check(
            [f"{PACKAGE}._{i}" for i in range(6)],
            {f"{PACKAGE}._release"},
            {f"{PACKAGE}._statistics"},
        )


# -- dask is imported by the data layer only -------------------------------------------
_ROOT = pathlib.Path(__file__).resolve().parents[1] / "skdp_anomaly"
_IMPORTS_DASK = re.compile(r"^\s*(import dask|from dask[\s.])|import_dask\(", re.MULTILINE)


def _in_data_layer(path: pathlib.Path) -> bool:
    return path.relative_to(_ROOT).parts[0] == "_data"


def test_only_the_data_layer_imports_dask():
    sources = sorted(_ROOT.rglob("*.py"))
    assert len(sources) > 50  # the package's modules were found
    offenders = [
        str(p.relative_to(_ROOT))
        for p in sources
        if not _in_data_layer(p) and _IMPORTS_DASK.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    # the pattern finds what it is meant to find
    assert all(
        _IMPORTS_DASK.search(s)
        for s in ("import dask\n", "    from dask.array import x", "dask = import_dask('x')")
    )
    assert not _IMPORTS_DASK.search(">>> import dask.array as da\n")
