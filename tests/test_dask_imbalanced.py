"""DPImbalancedClassifier on dask rows: the in-memory model and privacy report, the rows left where they are.

The pipeline's steps read dask rows through the data backend: the public
scaling maps each block, DPSMOTE's synthetic rows are drawn on the workers and
appended lazily, the class sizes of the threshold are one reduction over the
label blocks, and PrivateLogisticRegression's passes are reductions over
aligned blocks. DPSMOTE and the logistic regression release the same floats
on dask as in memory, so with the same ``random_state`` the fitted model must
be the in-memory one, bit for bit, for both strategies. The aligned block is
shrunk to 1 024 rows so that a few thousand rows make several. Run on dask's
threaded scheduler.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from _accountants import Ledger  # noqa: E402
from _dask_cluster import counting_scheduler  # noqa: E402
from _walk import reachable  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402

import skdp_anomaly._data.rows as backend  # noqa: E402
from skdp_anomaly import (  # noqa: E402
    DPImbalancedClassifier,
    NoisyPriorThresholdClassifier,
    PrivateLogisticRegression,
    check_privacy_budget,
)
from skdp_anomaly.exceptions import PrivacyLeakWarning

COLUMNS = ["amount", "age", "hour", "score", "items", "distance"]
BOUNDS = (0, 100)
N = 3000


@pytest.fixture(autouse=True)
def threads_and_small_blocks(monkeypatch):
    monkeypatch.setattr(backend, "NUMPY_BLOCK_ROWS", 1024)
    with dask.config.set(scheduler="threads"):
        yield


def _raw(n=N, seed=0):
    X, y = make_classification(n, len(COLUMNS), n_informative=4, weights=[0.9], random_state=seed)
    return 10 * X + 50, np.array(["legit", "fraud"])[y]  # raw features; string labels


X_RAW, Y_RAW = _raw()


def _uneven_array(X, y):
    chunks = (1, 700, 1500, len(X) - 2201)
    return da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=900)


def _parquet(X, y, tmp_path):
    table = pd.DataFrame(X, columns=COLUMNS).assign(label=y)
    for i, part in enumerate(np.array_split(np.arange(len(table)), 2)):
        table.iloc[part].to_parquet(tmp_path / f"part{i}.parquet")
    frame = dd.read_parquet(str(tmp_path))
    return frame[COLUMNS], frame["label"]


def _make(strategy, **params):
    return DPImbalancedClassifier(
        **{"epsilon": 2.0, "bounds": BOUNDS, "strategy": strategy, "random_state": 5, **params}
    )


def _final_classifier(clf):
    final = clf.model_.named_steps["classifier"]
    return final.estimator_ if clf.strategy_ == "threshold" else final


def _same_model(memory, lazy):
    assert lazy.strategy_ == memory.strategy_
    np.testing.assert_array_equal(lazy.classes_, memory.classes_)
    for a, b in zip(memory.bounds_, lazy.bounds_):
        np.testing.assert_array_equal(a, b)
    mem, laz = _final_classifier(memory), _final_classifier(lazy)
    for name in ("coef_", "intercept_", "C_"):
        assert np.array_equal(getattr(mem, name), getattr(laz, name)), name  # bit for bit
    if memory.strategy_ == "threshold":
        final = (memory.model_.named_steps["classifier"], lazy.model_.named_steps["classifier"])
        np.testing.assert_array_equal(
            final[0].noisy_prediction_sums_, final[1].noisy_prediction_sums_
        )
        np.testing.assert_array_equal(final[0].class_prior_, final[1].class_prior_)
    else:
        smote = (memory.model_.named_steps["dpsmote"], lazy.model_.named_steps["dpsmote"])
        assert smote[0].sampling_strategy_ == smote[1].sampling_strategy_
    assert lazy.privacy_spent_ == memory.privacy_spent_
    reports = [check_privacy_budget(c, 2.0, on_leak="ignore") for c in (memory, lazy)]
    assert reports[0].cost == reports[1].cost and reports[0].leaks == reports[1].leaks
    assert str(reports[0]) == str(reports[1])


@pytest.mark.parametrize("strategy", ["threshold", "oversample"])
def test_dask_array_fit_is_the_numpy_fit_bit_for_bit(strategy):
    ledgers = Ledger(), Ledger()
    memory = _make(strategy, accountant=ledgers[0]).fit(X_RAW, Y_RAW)
    rows, labels = _uneven_array(X_RAW, Y_RAW)
    lazy = _make(strategy, accountant=ledgers[1]).fit(rows, labels)
    _same_model(memory, lazy)
    assert ledgers[0].spent == ledgers[1].spent == [(2.0, 0.0)]
    for method in ("predict", "predict_proba", "decision_function"):
        scored = getattr(lazy, method)(rows)
        assert isinstance(scored, da.Array) and scored.numblocks[0] == rows.numblocks[0]
        _same_scores(scored.compute(), getattr(memory, method)(X_RAW))
    # the score's sign is the prediction (classes_ = ["fraud", "legit"])
    positive = (lazy.decision_function(rows) > 0).compute()
    np.testing.assert_array_equal(lazy.classes_[positive.astype(int)], memory.predict(X_RAW))
    recall = np.mean(memory.predict(X_RAW[Y_RAW == "fraud"]) == "fraud")
    assert recall > 0.5  # a model that finds the minority (ε = 2, one fixed seed)


def _same_scores(lazy, memory):
    if lazy.dtype.kind == "f":  # a block's BLAS product may round a row's last bit differently
        np.testing.assert_allclose(lazy, memory, rtol=1e-13, atol=1e-15)
    else:
        np.testing.assert_array_equal(lazy, memory)


@pytest.mark.parametrize("strategy", ["threshold", "oversample"])
def test_parquet_frame_fit_and_predict_are_those_of_the_pandas_frame(strategy, tmp_path):
    pytest.importorskip("pyarrow")
    X, y = X_RAW[:2100], Y_RAW[:2100]  # three aligned blocks, the last one short
    table = pd.DataFrame(X, columns=COLUMNS)
    memory = _make(strategy).fit(table, pd.Series(y, name="label"))
    frame, labels = _parquet(X, y, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no feature-name or conversion warning
        lazy = _make(strategy).fit(frame, labels)
        predicted = lazy.predict(frame)
    _same_model(memory, lazy)
    assert list(lazy.feature_names_in_) == COLUMNS
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), memory.predict(table))
    _same_scores(lazy.predict_proba(frame).compute(), memory.predict_proba(table))
    with pytest.raises(ValueError, match="feature names"):
        lazy.predict(frame[COLUMNS[::-1]])


@pytest.mark.parametrize("strategy", ["threshold", "oversample"])
def test_the_client_receives_statistics_never_the_rows(monkeypatch, strategy):
    def refuse(*args, **kwargs):
        raise AssertionError("a dask collection was converted to numpy whole")

    monkeypatch.setattr(da.Array, "__array__", refuse)
    returned = []
    with dask.config.set(scheduler=counting_scheduler(returned)):
        lazy = _make(strategy).fit(*_uneven_array(X_RAW, Y_RAW))
        lazy.predict(da.from_array(X_RAW, chunks=1000))  # lazy: nothing computed but checks
    assert returned  # the fit computed through the recorded scheduler
    # the largest results are per-block statistics (a few per aligned block of 1 024
    # rows); one column of the data would be N numbers
    assert max(returned) < N // 10
    kept = reachable(lazy)
    assert "dask" not in {type(obj).__module__.split(".")[0] for obj in kept.values()}
    assert not any(type(obj).__name__ in ("Rows", "LabelledRows") for obj in kept.values())
    assert b"dask" not in pickle.dumps(lazy)


@pytest.mark.parametrize(
    "fault, match",
    [
        ("nan in X", "Input X contains NaN"),
        ("lengths", "inconsistent numbers of samples"),
        ("one class", "at least 2 classes"),
        ("string column", "numeric"),
        ("bounds length", "'bounds' parameter has 3 values"),
    ],
)
def test_bad_dask_input_is_refused_before_any_charge(fault, match):
    X, y, params = pd.DataFrame(X_RAW[:600], columns=COLUMNS), Y_RAW[:600].copy(), {}
    if fault == "nan in X":
        X.iloc[-1, 1] = np.nan
    elif fault == "lengths":
        y = y[:-1]
    elif fault == "one class":
        y[:] = "legit"
    elif fault == "string column":
        X["hour"] = X["hour"].astype(str)
    else:
        params["bounds"] = ([0, 0, 0], [100, 100, 100])
    for strategy in ("threshold", "oversample"):
        ledgers = Ledger(), Ledger()
        memory = _make(strategy, accountant=ledgers[0], **params)
        lazy = _make(strategy, accountant=ledgers[1], **params)
        with pytest.raises(ValueError, match=match):
            memory.fit(X, y)
        with pytest.raises(ValueError, match=match):
            lazy.fit(dd.from_pandas(X, npartitions=2), dd.from_pandas(pd.Series(y), npartitions=3))
        assert ledgers[0].spent == ledgers[1].spent == []
        assert not hasattr(lazy, "model_")


def test_bounds_read_from_dask_rows_warn_and_match_memory():
    with pytest.warns(PrivacyLeakWarning):
        memory = _make("oversample", bounds=None).fit(X_RAW, Y_RAW)
    with pytest.warns(PrivacyLeakWarning):
        lazy = _make("oversample", bounds=None).fit(*_uneven_array(X_RAW, Y_RAW))
    _same_model(memory, lazy)


def test_the_threshold_step_alone_counts_the_classes_in_one_reduction():
    # a public label set with a class y does not hold: its size is a released 0 + noise
    y = np.searchsorted(["fraud", "legit"], Y_RAW)

    def make():
        inner = PrivateLogisticRegression(epsilon=1.0, data_norm=300.0, random_state=1)
        return NoisyPriorThresholdClassifier(inner, epsilon=0.5, classes=[0, 1, 2], random_state=2)

    memory = make().fit(X_RAW, y)
    rows, labels = _uneven_array(X_RAW, y)
    lazy = make().fit(rows, labels)
    np.testing.assert_array_equal(lazy.noisy_class_counts_, memory.noisy_class_counts_)
    np.testing.assert_array_equal(lazy.class_prior_, memory.class_prior_)
    assert np.array_equal(lazy.estimator_.coef_, memory.estimator_.coef_)
    predicted = lazy.predict(rows)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), memory.predict(X_RAW))
    assert lazy.predict_proba(rows).compute().shape == (N, 3)
    _same_scores(lazy.decision_function(rows).compute(), memory.decision_function(X_RAW))
    assert np.array_equal(
        lazy.decision_function(rows).compute().argmax(axis=1), memory.predict(X_RAW)
    )
