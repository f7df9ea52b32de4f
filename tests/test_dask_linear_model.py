"""PrivateLogisticRegression on dask rows: the numpy fit's release, bit for bit, whatever the chunks.

Every pass of the solver is a float statistic per aligned block of rows
(``skdp_anomaly._data.rows.block_partials``) added by ``math.fsum``; numpy and
dask rows are cut into the same blocks and run the same float operations, so
with the same ``random_state`` the released coefficients (their float bits)
and every fitted attribute must be identical. Most tests shrink the aligned
block to 1 024 rows (a module constant read at each call) so that a few
thousand rows make several blocks; one test runs at the real block size.
Run on dask's threaded scheduler (no cluster) unless marked slow.
"""

from __future__ import annotations

import copy
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
from skdp_anomaly import PrivateLogisticRegression  # noqa: E402
from skdp_anomaly.exceptions import PrivacyLeakWarning

SMALL_BLOCK = 1024  # a multiple of the certified sums' 64-row blocks, as 2**16 is
COLUMNS = ["a", "b", "c", "d"]


@pytest.fixture(autouse=True)
def threads():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(backend, "NUMPY_BLOCK_ROWS", SMALL_BLOCK)


def _data(n=5000, n_classes=2, seed=0):
    X, y = make_classification(
        n,
        4,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        class_sep=1.0,
        random_state=seed,
    )
    return X * 0.4, y


X2, Y2 = _data()
X3, Y3 = _data(n_classes=3, seed=1)


def _uneven(n):
    # one-row chunks at both edges, chunks that straddle the aligned blocks
    middle = [1000, 7, 2000]
    return (1, *middle, n - 2 - sum(middle), 1)


# how numpy (X, y) become dask collections
CHUNKINGS = {
    "one chunk": lambda X, y: (da.from_array(X, chunks=-1), da.from_array(y, chunks=-1)),
    "uneven": lambda X, y: (
        da.from_array(X, chunks=(_uneven(len(X)), 4)),
        da.from_array(y, chunks=700),
    ),
    "columns split, numpy y": lambda X, y: (da.from_array(X, chunks=(900, 2)), y),
    "frame, unknown divisions": lambda X, y: _frame(X, y),
}


def _frame(X, y, labels=None):
    table = pd.DataFrame(X, columns=COLUMNS).assign(label=y if labels is None else labels)
    frame = dd.from_pandas(table, npartitions=3).clear_divisions()
    return frame[COLUMNS], frame["label"]


def _make(**params):
    return PrivateLogisticRegression(
        **{"epsilon": 2.0, "data_norm": 2.0, "random_state": 3, **params}
    )


def _same_fit(memory, lazy):
    """The released floats bit for bit, and the whole fitted state byte for byte."""
    assert lazy.coef_.tobytes() == memory.coef_.tobytes()
    assert lazy.intercept_.tobytes() == memory.intercept_.tobytes()
    assert np.array_equal(lazy.classes_, memory.classes_)
    assert lazy.classes_.dtype == memory.classes_.dtype
    assert lazy.privacy_spent_ == memory.privacy_spent_
    assert pickle.dumps(lazy) == pickle.dumps(memory)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("chunking", CHUNKINGS)
def test_a_dask_fit_releases_the_numpy_fit(chunking):
    rows = pd.DataFrame(X2, columns=COLUMNS) if chunking.startswith("frame") else X2
    ledgers = Ledger(), Ledger()
    memory = _make(accountant=ledgers[0]).fit(rows, Y2)
    lazy = _make(accountant=ledgers[1]).fit(*CHUNKINGS[chunking](X2, Y2))
    _same_fit(memory, lazy)
    assert ledgers[0].spent == ledgers[1].spent == [(2.0, 0.0)]
    assert memory.score(rows, Y2) > 0.75  # a model that learned something (ε = 2)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_binary_and_softmax_with_and_without_intercept(n_classes, fit_intercept):
    X, y = (X2, Y2) if n_classes == 2 else (X3, Y3)
    memory = _make(fit_intercept=fit_intercept).fit(X, y)
    lazy = _make(fit_intercept=fit_intercept).fit(*CHUNKINGS["uneven"](X, y))
    _same_fit(memory, lazy)
    assert memory.coef_.shape == (1 if n_classes == 2 else 3, 4)


def test_several_blocks_of_the_real_size():
    # 150 000 rows: three aligned blocks of 65 536 rows, chunks of 40 000 that straddle them
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150_000, 5)) * 0.4
    y = (X[:, 0] - X[:, 1] + rng.normal(size=150_000) > 0).astype(np.int64)
    memory = _make().fit(X, y)
    lazy = _make().fit(da.from_array(X, chunks=(40_000, 5)), da.from_array(y, chunks=40_000))
    _same_fit(memory, lazy)


@pytest.mark.usefixtures("small_blocks")
def test_string_labels_from_a_dask_series_and_a_public_label_set():
    names = np.array(["fraud", "normal", "review"])
    labels = names[Y3]  # 5 000 rows, 3 classes: a few softmax fits of 5 aligned blocks
    # a pandas Series of strings gives labels of dtype object in memory and on dask
    memory = _make().fit(pd.DataFrame(X3, columns=COLUMNS), pd.Series(labels))
    lazy = _make().fit(*_frame(X3, Y3, labels=labels))
    _same_fit(memory, lazy)
    assert lazy.classes_.tolist() == names.tolist()
    # a public label set with a label no row has: the same model shape as in memory
    public = ["fraud", "normal", "review", "unused"]
    memory = _make(classes=public).fit(X3, labels)
    lazy = _make(classes=public).fit(*CHUNKINGS["uneven"](X3, labels))
    _same_fit(memory, lazy)
    assert lazy.coef_.shape == (4, 4)


@pytest.mark.usefixtures("small_blocks")
def test_data_norm_read_from_dask_rows_warns_as_in_memory():
    with pytest.warns(PrivacyLeakWarning, match="data_norm"):
        memory = _make(data_norm=None).fit(X2, Y2)
    with pytest.warns(PrivacyLeakWarning, match="data_norm"):
        lazy = _make(data_norm=None).fit(*CHUNKINGS["uneven"](X2, Y2))
    _same_fit(memory, lazy)


def _error(est, X, y):
    with pytest.raises(ValueError) as info:
        est.fit(X, y)
    return str(info.value)


FAULTS = [
    "nan in X",
    "inf in X",
    "nan in y",
    "lengths",
    "one class",
    "continuous y",
    "unknown label",
    "string column",
]


@pytest.mark.parametrize("fault", FAULTS)
def test_bad_dask_input_gives_the_numpy_error_before_any_charge(fault):
    X, y = pd.DataFrame(X2[:600], columns=COLUMNS), Y2[:600].astype(np.float64)
    params = {}
    if fault == "nan in X":
        X.iloc[-1, 1] = np.nan
    elif fault == "inf in X":
        X.iloc[3, 0] = np.inf
    elif fault == "nan in y":
        y[10] = np.nan
    elif fault == "lengths":
        y = y[:-1]
    elif fault == "one class":
        y = np.zeros_like(y)
    elif fault == "continuous y":
        y = y + 0.5 * np.arange(y.size) / y.size
    elif fault == "unknown label":
        params["classes"] = [0.0, 2.0]
    else:
        X = X.assign(b=X.b.astype(str))
    ledgers = Ledger(), Ledger()
    memory, lazy = _make(accountant=ledgers[0], **params), _make(accountant=ledgers[1], **params)
    expected = _error(memory, X, y)
    frame = dd.from_pandas(X, npartitions=2)
    assert _error(lazy, frame, dd.from_pandas(pd.Series(y), npartitions=3)) == expected
    if fault != "string column":  # an array of strings is refused by its dtype on dask
        assert _error(
            lazy, da.from_array(X.to_numpy(), chunks=250), da.from_array(y, chunks=170)
        ) == _error(memory, X.to_numpy(), y)
    assert ledgers[0].spent == ledgers[1].spent == []
    assert not hasattr(lazy, "coef_")


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_client_receives_per_block_statistics_never_the_rows(monkeypatch, n_classes):
    def refuse(*args, **kwargs):
        raise AssertionError("a dask collection was converted to numpy whole")

    monkeypatch.setattr(da.Array, "__array__", refuse)
    returned = []
    X, y = (X2, Y2) if n_classes == 2 else (X3, Y3)
    with dask.config.set(scheduler=counting_scheduler(returned)):
        lazy = _make().fit(*_frame(X, y))
    assert returned  # the fit computed through the recorded scheduler
    # the largest object a compute returned: the per-block statistics of the certified
    # softmax gradient (5 aligned blocks × (2·K·p + p) floats); the rows are 5000 × 5
    n_blocks, p = -(-len(X) // SMALL_BLOCK), 5
    assert max(returned) <= n_blocks * (2 * n_classes * p + p) < len(X)
    kept = reachable(lazy)
    assert "dask" not in {type(obj).__module__.split(".")[0] for obj in kept.values()}
    assert not any(type(obj).__name__ in ("Rows", "LabelledRows") for obj in kept.values())
    assert b"dask" not in pickle.dumps(lazy)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_scoring_dask_rows_is_lazy_and_equals_numpy(n_classes):
    X, y = (X2, Y2) if n_classes == 2 else (X3, Y3)
    labels = np.array(["no", "yes", "maybe"])[y]
    est = _make().fit(X, labels)
    rows = da.from_array(X, chunks=(_uneven(len(X)), 2))
    for method in ("decision_function", "predict_proba", "predict_log_proba", "predict"):
        lazy, expected = getattr(est, method)(rows), getattr(est, method)(X)
        assert isinstance(lazy, da.Array), method
        assert lazy.shape == expected.shape and lazy.dtype == expected.dtype
        assert lazy.numblocks[0] == rows.numblocks[0]  # mapped over the blocks
        computed = lazy.compute()
        if method == "predict":
            np.testing.assert_array_equal(computed, expected)
        else:  # a block's BLAS product may round a row's last bit differently
            np.testing.assert_allclose(computed, expected, rtol=1e-13, atol=1e-15)
    frame_est = _make().fit(pd.DataFrame(X, columns=COLUMNS), y)
    frame, _ = _frame(X, y)
    np.testing.assert_array_equal(
        frame_est.predict(frame).compute(), frame_est.predict(pd.DataFrame(X, columns=COLUMNS))
    )
    with pytest.raises(ValueError, match="X has 2 features"):
        est.predict(rows[:, :2])


@pytest.mark.usefixtures("small_blocks")
def test_a_refit_on_dask_starts_afresh_and_the_estimator_is_unchanged_by_a_refusal():
    ledger = Ledger()
    est = _make(accountant=ledger).fit(*CHUNKINGS["uneven"](X2, Y2))
    before = copy.deepcopy(est)
    bad = X2.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(da.from_array(bad, chunks=1000), Y2)
    assert est.coef_.tobytes() == before.coef_.tobytes() and len(ledger.spent) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.fit(*CHUNKINGS["columns split, numpy y"](X3, Y3))
    assert est.coef_.shape == (3, 4) and len(ledger.spent) == 2


@pytest.mark.slow
def test_two_worker_processes_release_what_numpy_releases():
    # worker processes run BLAS and numpy with one thread each; the client does not: the
    # release must not depend on it (70 000 rows: two aligned blocks of the real size)
    from _dask_cluster import local_client

    rng = np.random.default_rng(11)
    X = rng.normal(size=(70_000, 4)) * 0.4
    y = rng.integers(0, 3, size=70_000)
    y[X[:, 0] > 0.3] = 2
    memory = _make().fit(X, y)
    with local_client(processes=True):
        lazy = _make().fit(da.from_array(X, chunks=(30_000, 4)), da.from_array(y, chunks=30_000))
        scores = _make().fit(X, y).decision_function(da.from_array(X, chunks=25_000)).compute()
    _same_fit(memory, lazy)
    np.testing.assert_allclose(scores, memory.decision_function(X), rtol=1e-13, atol=1e-15)
