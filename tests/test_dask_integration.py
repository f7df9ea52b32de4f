"""Dask integration: the optional ``dask`` extra.

* PrivateOnlineActiveSVC under ``dask_ml.wrappers.Incremental`` gives the
  fitted state of ``partial_fit`` on the same blocks in order, in memory.
* GridSearchCV with ``joblib.parallel_backend("dask")`` on a two-worker
  ``LocalCluster`` (separate processes, so every estimator crosses a pickle
  boundary) gives the local run's ``cv_results_`` and privacy report.
* Every public estimator pickles, unfitted and fitted; clones share no
  accountant and no generator with the user's estimator.
* The change-point detector refuses dask collections with a TypeError.
* Importing the package imports no dask.

All seeds are fixed: every comparison is exact and deterministic.
"""

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from _accountants import Ledger
from _dask_cluster import local_client
from _diffprivlib import needs_diffprivlib
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold

from skdp_anomaly import (
    DPOAD,
    DPSMOTE,
    NoisyGroupSearch,
    NoisyPriorThresholdClassifier,
    PrivateChangePointDetector,
    PrivateOnlineActiveSVC,
    check_privacy_budget,
)

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
wrappers = pytest.importorskip("dask_ml.wrappers")
joblib = pytest.importorskip("joblib")
imblearn_pipeline = pytest.importorskip("imblearn.pipeline")


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes: what crosses to a worker is pickled."""
    with local_client(processes=True) as c:
        yield c


# -- the online active SVC under Incremental -----------------------------------
def _stream(n=6000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 3
    return X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)


def _fitted_state(est):
    return {
        name: getattr(est, name)
        for name in (
            "coef_",
            "intercept_",
            "classes_",
            "n_labels_requested_",
            "n_updates_",
            "n_seen_",
            "privacy_spent_",
            "data_norm_",
            "slab_",
            "n_features_in_",
        )
    }


def _assert_same_state(a, b):
    sa, sb = _fitted_state(a), _fitted_state(b)
    for name in sa:
        if isinstance(sa[name], np.ndarray):
            np.testing.assert_array_equal(sa[name], sb[name], err_msg=name)
        else:
            assert sa[name] == sb[name], name


@pytest.mark.slow
@pytest.mark.parametrize(
    "params",
    [
        dict(selection="bernoulli", update="flmb"),
        dict(selection="exponential", update="flsw", average=True),
    ],
)
def test_incremental_svc_equals_partial_fit_on_the_same_blocks(client, params):
    X, y = _stream()
    chunk = 1000
    est = PrivateOnlineActiveSVC(epsilon=2.0, random_state=0, pickle_open_batch=True, **params)
    # shuffle_blocks=False: Incremental's default visits the blocks in random order,
    # which is a different stream
    inc = wrappers.Incremental(est, shuffle_blocks=False).fit(
        da.from_array(X, chunks=(chunk, 3)), da.from_array(y, chunks=chunk), classes=[0, 1]
    )
    assert not hasattr(est, "coef_")  # Incremental fits a clone

    local = PrivateOnlineActiveSVC(epsilon=2.0, random_state=0, pickle_open_batch=True, **params)
    for start in range(0, len(X), chunk):
        local.partial_fit(X[start : start + chunk], y[start : start + chunk], classes=[0, 1])
    _assert_same_state(inc.estimator_, local)
    assert 0 < inc.estimator_.n_labels_requested_ < len(X)
    assert inc.estimator_.privacy_spent_ == est.privacy_cost()
    # each call draws from a generator of its own (none is kept between calls), so a
    # seed repeats the run for the same blocks; another chunking draws other noise
    np.testing.assert_array_equal(
        inc.predict(da.from_array(X[:500], chunks=(250, 3))).compute(), local.predict(X[:500])
    )


def test_incremental_partial_fit_continues_the_stream_and_charges_a_copy(client):
    X, y = _stream(n=4000, seed=1)
    ledger = Ledger()
    est = PrivateOnlineActiveSVC(
        epsilon=1.0, random_state=3, accountant=ledger, pickle_open_batch=True
    )
    inc = wrappers.Incremental(est, shuffle_blocks=False)
    for half in (slice(0, 2000), slice(2000, 4000)):
        inc.partial_fit(
            da.from_array(X[half], chunks=(500, 3)),
            da.from_array(y[half], chunks=500),
            classes=[0, 1],
        )
    local = clone(est).set_params(accountant=None)
    for start in range(0, 4000, 500):
        local.partial_fit(X[start : start + 500], y[start : start + 500], classes=[0, 1])
    _assert_same_state(inc.estimator_, local)
    # Incremental clones the estimator, and clone deep-copies the accountant: the copy
    # is charged once for the run, the user's ledger never
    assert inc.estimator_.accountant is not ledger
    assert inc.estimator_.accountant.spent == [(1.0, 0.0)]
    assert ledger.spent == []


# -- GridSearchCV on the cluster --------------------------------------------------
@pytest.fixture(scope="module")
def imbalanced():
    X, y = make_classification(
        n_samples=400, n_features=4, n_informative=3, n_redundant=0, weights=[0.85], random_state=0
    )
    return np.clip(X, -4, 4), y


def _smote_search(**smote):
    smote = {"bounds": (-4, 4), "random_state": 0, **smote}
    pipe = imblearn_pipeline.Pipeline([("smote", DPSMOTE(**smote)), ("clf", LogisticRegression())])
    return GridSearchCV(
        pipe, {"smote__epsilon": [0.5, 1.0, 2.0]}, cv=KFold(3, shuffle=True, random_state=0)
    )


def _fit_both(client, search, X, y):
    """The search fitted locally (n_jobs=1) and on the cluster (dask backend)."""
    local = clone(search).set_params(n_jobs=1).fit(X, y)
    remote = clone(search)
    with distributed.get_task_stream(client) as tasks, joblib.parallel_backend("dask"):
        remote.fit(X, y)
    # the fits ran on the workers (joblib batches them into tasks named after the call)
    assert any("fit_and_score" in str(task["key"]) for task in tasks.data)
    return local, remote


def _assert_same_results(local, remote):
    for key, value in local.cv_results_.items():
        if key.endswith("_time"):
            continue
        if not isinstance(value, np.ndarray) or value.dtype == object:  # params
            assert list(value) == list(remote.cv_results_[key]), key
        else:
            np.testing.assert_array_equal(value, remote.cv_results_[key], err_msg=key)
    assert local.best_params_ == remote.best_params_
    assert local.best_score_ == remote.best_score_


def test_grid_search_on_the_cluster_equals_the_local_run(client, imbalanced):
    X, y = imbalanced
    search = _smote_search()
    local, remote = _fit_both(client, search, X, y)
    _assert_same_results(local, remote)
    np.testing.assert_array_equal(local.predict(X), remote.predict(X))
    # the report is priced from parameters: the same before fitting, locally, remotely
    reports = [check_privacy_budget(s, on_leak="ignore") for s in (search, local, remote)]
    assert reports[0] == reports[1] == reports[2]
    # DPSMOTE is add/remove ε-DP, 2ε under the default replace-one relation:
    # 2 training folds × 2·(0.5 + 1 + 2) + refit of the dearest candidate (2·2)
    assert reports[0].epsilon == pytest.approx(18.0)
    # the plain LogisticRegression learns without privacy: the same leak everywhere
    assert reports[0].leaks and reports[1].leaks == reports[2].leaks


@needs_diffprivlib
def test_grid_search_with_diffprivlib_on_the_cluster(client, imbalanced):
    from diffprivlib.models import LogisticRegression as DPLogisticRegression

    X, y = imbalanced
    pipe = imblearn_pipeline.Pipeline(
        [
            ("smote", DPSMOTE(epsilon=1.0, bounds=(-4, 4), random_state=0)),
            ("clf", DPLogisticRegression(epsilon=1.0, data_norm=8.0, random_state=0)),
        ]
    )
    search = GridSearchCV(
        pipe, {"clf__epsilon": [0.5, 2.0]}, cv=KFold(3, shuffle=True, random_state=0)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diffprivlib's solver deprecations
        local, remote = _fit_both(client, search, X, y)
    _assert_same_results(local, remote)
    assert (
        check_privacy_budget(local, on_leak="ignore")
        == check_privacy_budget(remote, on_leak="ignore")
        == check_privacy_budget(search, on_leak="ignore")
    )


def test_search_shares_no_accountant_or_generator_with_the_user(client, imbalanced):
    X, y = imbalanced
    ledger, rng = Ledger(), np.random.default_rng(5)
    state = rng.bit_generator.state
    search = _smote_search(random_state=rng, accountant=ledger)
    local, remote = _fit_both(client, search, X, y)
    # every fit got a deep copy of both (clone): the user's objects are untouched,
    # and the refit charged its own copy exactly like the local run's refit
    assert ledger.spent == [] and rng.bit_generator.state == state
    for fitted in (local, remote):
        smote = fitted.best_estimator_.named_steps["smote"]
        assert smote.accountant is not ledger and smote.random_state is not rng
    charged = [s.best_estimator_.named_steps["smote"].accountant.spent for s in (local, remote)]
    assert charged[0] == charged[1] and charged[0]
    # the ledger is kept under replace-one neighbours: DPSMOTE's add/remove ε counts 2ε
    assert sum(e for e, _ in charged[0]) == pytest.approx(2 * local.best_params_["smote__epsilon"])
    # the copies start from the same state: local and remote runs agree exactly ...
    _assert_same_results(local, remote)


def test_clones_of_a_generator_draw_the_same_noise():
    # ... which also means that every fit of a search draws the same noise stream, as
    # with an int seed. Fixed generators are for tests; random_state=None draws fresh
    # OS entropy in every fit, in whichever process it runs.
    X, y = make_classification(
        n_samples=300, n_features=3, n_informative=3, n_redundant=0, weights=[0.8], random_state=1
    )
    X = np.clip(X, -4, 4)
    with_rng = DPSMOTE(bounds=(-4, 4), random_state=np.random.default_rng(0))
    a, b = clone(with_rng), clone(with_rng)
    assert a.random_state is not b.random_state
    np.testing.assert_array_equal(a.fit_resample(X, y)[0], b.fit_resample(X, y)[0])
    fresh = DPSMOTE(bounds=(-4, 4))
    assert not np.array_equal(
        clone(fresh).fit_resample(X, y)[0], clone(fresh).fit_resample(X, y)[0]
    )


# -- pickling -------------------------------------------------------------------
def _fitted_estimators():
    rng = np.random.default_rng(0)
    X, y = make_classification(
        n_samples=300, n_features=3, n_informative=3, n_redundant=0, weights=[0.8], random_state=0
    )
    X = np.clip(X, -4, 4)
    series = np.r_[rng.normal(0, 1, 300), rng.normal(2, 1, 200)]
    scores = rng.uniform(0, 1, (500, 1))
    scores[17] = 2.0
    window = rng.uniform(0, 1, (200, 1))
    svc_X, svc_y = _stream(n=2000, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            (DPSMOTE(bounds=(-4, 4), random_state=0), lambda e: e.fit_resample(X, y)),
            (PrivateChangePointDetector(epsilon=2.0, random_state=0), lambda e: e.fit(series)),
            (
                PrivateChangePointDetector(epsilon=4.0, window=100, threshold=0.8, random_state=0),
                lambda e: e.partial_fit(series[:250]),
            ),
            (
                PrivateOnlineActiveSVC(random_state=0, pickle_open_batch=True),
                lambda e: e.partial_fit(svc_X, svc_y, classes=[0, 1]),
            ),
            (
                NoisyGroupSearch(epsilon=1.0, low=1.0, high=2.0, random_state=0),
                lambda e: e.fit(scores),
            ),
            (DPOAD(np.linspace(0, 1, 9), max_count=50, random_state=0), lambda e: e.fit(window)),
            (
                NoisyPriorThresholdClassifier(LogisticRegression(), random_state=0),
                lambda e: e.fit(X, y),
            ),
        ]


def _public_state(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def _assert_equal_values(a, b, what):
    """Deep equality of fitted state: arrays, containers and plain objects."""
    assert type(a) is type(b), what
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=what)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), what
        for key in a:
            _assert_equal_values(a[key], b[key], f"{what}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), what
        for i, (va, vb) in enumerate(zip(a, b)):
            _assert_equal_values(va, vb, f"{what}[{i}]")
    elif isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state, what
    elif hasattr(a, "__dict__") and type(a).__eq__ is object.__eq__:
        _assert_equal_values(vars(a), vars(b), what)
    elif isinstance(a, float) and np.isnan(a):  # "nothing measured yet"
        assert np.isnan(b), what
    else:
        assert a == b, what


@pytest.mark.parametrize("index", range(7))
def test_every_estimator_pickles_unfitted_and_fitted(index):
    est, fit = _fitted_estimators()[index]
    name = type(est).__name__
    back = pickle.loads(pickle.dumps(est))
    assert repr(back.get_params(deep=False)) == repr(est.get_params(deep=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit(est)
        back = pickle.loads(pickle.dumps(est))
        _assert_equal_values(_public_state(est), _public_state(back), name)
        if isinstance(est, PrivateChangePointDetector) and est.window is not None:
            # a running detector's window and noisy threshold stay out of its pickle
            with pytest.raises(ValueError, match="unpickled"):
                fit(back)
            return
        # the private run state travels too: both copies go on (or refit) identically
        again = pickle.loads(pickle.dumps(est))
        fit(again), fit(back)
        _assert_equal_values(_public_state(again), _public_state(back), name)


# -- the change-point detector stays in memory ------------------------------------
@pytest.mark.parametrize(
    "call, where",
    [
        (
            lambda x: PrivateChangePointDetector(random_state=0).fit(x),
            r"PrivateChangePointDetector\.fit",
        ),
        (
            lambda x: PrivateChangePointDetector(random_state=0).fit_predict(x),
            r"PrivateChangePointDetector\.fit",
        ),
        (
            lambda x: PrivateChangePointDetector(window=100, threshold=0.8).partial_fit(x),
            r"PrivateChangePointDetector\.partial_fit",
        ),
        (
            lambda x: (
                PrivateChangePointDetector(epsilon=5.0, random_state=0)
                .fit(np.arange(1000.0))
                .predict(x)
            ),
            r"PrivateChangePointDetector\.predict",
        ),
    ],
)
@pytest.mark.parametrize("kind", ["array", "series"])
def test_change_point_detector_refuses_dask_collections(call, where, kind):
    x = np.r_[np.zeros(500), np.ones(500)]
    dx = da.from_array(x, chunks=100) if kind == "array" else dd.from_array(x, chunksize=100)
    with pytest.raises(TypeError, match=where) as info:
        call(dx)
    message = str(info.value)
    assert "global ranks" in message and "in memory" in message and "GB" in message
    assert ".compute()" in message or "arange" in message


def test_change_point_refusal_charges_nothing_and_stays_unfitted():
    ledger = Ledger()
    det = PrivateChangePointDetector(random_state=0, accountant=ledger)
    with pytest.raises(TypeError, match="dask collection"):
        det.fit(da.zeros(1000, chunks=100))
    assert ledger.spent == [] and not hasattr(det, "change_point_")


def test_change_point_helpers_refuse_dask_collections():
    from skdp_anomaly.changepoint import drift_transform, pncpd_batch
    from skdp_anomaly.changepoint._statistic import mann_whitney_statistic

    x = da.from_array(np.arange(100.0), chunks=10)
    for call, name in [
        (lambda: drift_transform(x), "drift_transform"),
        (lambda: mann_whitney_statistic(x), "mann_whitney_statistic"),
        (lambda: pncpd_batch(x, epsilon=1.0, n_runs=2), "pncpd_batch"),
    ]:
        with pytest.raises(TypeError, match=f"{name} does not accept a dask collection"):
            call()


def test_online_detector_runs_over_dask_blocks_in_order():
    # the way out the error message gives: computed blocks, in order, to partial_fit
    rng = np.random.default_rng(4)
    x = np.r_[rng.normal(5, 1, 3000), rng.normal(0, 1, 2000)]
    params = dict(epsilon=10.0, window=500, threshold=0.8, direction="decrease", random_state=0)
    det = PrivateChangePointDetector(**params)
    for block in da.from_array(x, chunks=700).blocks:
        det.partial_fit(block.compute())
    ref = PrivateChangePointDetector(**params)
    for block in np.array_split(x, np.arange(700, x.size, 700)):  # the same blocks in memory
        ref.partial_fit(block)
    assert det.change_point_ == ref.change_point_ and det.privacy_spent_ == ref.privacy_spent_
    assert abs(det.change_point_ - 3000) <= 10


# -- the extra stays optional ---------------------------------------------------------
def test_importing_the_package_does_not_import_dask():
    modules = ["skdp_anomaly"] + [
        f"skdp_anomaly.{m}"
        for m in (
            "over_sampling",
            "changepoint",
            "group_search",
            "active_learning",
            "dpoad",
            "imbalanced",
            "budget",
            "auditing",
            "privacy",
            "cli",
        )
    ]
    code = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} "
        "& {'dask', 'distributed', 'dask_ml'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
