"""DPSMOTE on Dask collections: one blockwise pass, the same release as in memory.

The in-memory and the Dask paths share the release code, sum exactly
(fixed point) and draw the synthetic rows in independently seeded chunks, so
with the same ``random_state`` they must return the same rows bit for bit,
whatever the chunking. Run on an in-process ``dask.distributed.LocalCluster``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from skdp_anomaly import DPSMOTE  # noqa: E402
from skdp_anomaly.over_sampling._synthesis import SYNTHETIC_CHUNK  # noqa: E402
from skdp_anomaly.exceptions import PrivacyLeakWarning

from _accountants import Ledger  # noqa: E402
from _dask_cluster import local_client  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with local_client(processes=False) as c:
        yield c


def _data(n=100_003, d=4, minority=0.1, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < minority).astype(np.int64)
    if n_classes == 3:
        y[rng.random(n) < 0.05] = 2
    X = rng.uniform(-1, 1, (n, d)) + 0.3 * y[:, None]
    return X, y


def _both(X, y, chunks, **params):
    params = {"epsilon": 1.0, "bounds": (-2, 2), "random_state": 7, **params}
    a, b = DPSMOTE(**params), DPSMOTE(**params)
    X_mem, y_mem = a.fit_resample(X, y)
    X_lazy, y_lazy = b.fit_resample(
        da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=chunks)
    )
    assert isinstance(X_lazy, da.Array) and isinstance(y_lazy, da.Array)
    X_dask, y_dask = da.compute(X_lazy, y_lazy)
    return (a, X_mem, y_mem), (b, X_dask, y_dask)


@pytest.mark.parametrize("chunks", [997, 8_192, 100_003])
def test_same_rows_bit_for_bit_whatever_the_chunks(client, chunks):
    (a, X_mem, y_mem), (b, X_dask, y_dask) = _both(*_data(), chunks)
    assert X_dask.shape == X_mem.shape
    assert X_mem.shape[0] - 100_003 > SYNTHETIC_CHUNK  # two seed chunks at least
    np.testing.assert_array_equal(X_dask, X_mem)
    np.testing.assert_array_equal(y_dask, y_mem)
    assert a.noisy_class_counts_ == b.noisy_class_counts_
    assert a.sampling_strategy_ == b.sampling_strategy_
    for label in a.noisy_means_:
        np.testing.assert_array_equal(a.noisy_means_[label], b.noisy_means_[label])
    assert a.privacy_spent_ == b.privacy_spent_
    assert b.n_features_in_ == 4


@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.DPSMOTENoiseWarning")
def test_same_rows_multiclass_float32_string_labels_public_classes(client):
    X, y = _data(n=12_007, n_classes=3, seed=1)
    X = X.astype(np.float32)
    labels = np.array(["neg", "pos", "rare"], dtype=object)[y]
    params = {"classes": ["neg", "pos", "rare", "unseen"], "sampling_strategy": "not majority"}
    (a, X_mem, y_mem), (b, X_dask, y_dask) = _both(X, labels, 2_000, **params)
    assert X_mem.dtype == X_dask.dtype == np.float32
    np.testing.assert_array_equal(X_dask, X_mem)
    np.testing.assert_array_equal(y_dask, y_mem)
    assert set(b.noisy_class_counts_) == {"neg", "pos", "rare", "unseen"}


def test_public_class_counts_same_rows(client):
    (a, X_mem, _), (b, X_dask, _) = _both(*_data(seed=2), 5_000, class_counts="public")
    np.testing.assert_array_equal(X_dask, X_mem)
    assert a.sampling_strategy_ == b.sampling_strategy_


def test_dataframe_in_dataframe_out(client):
    X, y = _data(n=5_003, seed=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    target = pd.Series(y, name="fraud")
    X_mem, y_mem = DPSMOTE(epsilon=1.0, bounds=(-2, 2), random_state=0).fit_resample(frame, target)
    est = DPSMOTE(epsilon=1.0, bounds=(-2, 2), random_state=0)
    X_lazy, y_lazy = est.fit_resample(
        dd.from_pandas(frame, npartitions=3), dd.from_pandas(target, npartitions=3)
    )
    assert isinstance(X_lazy, dd.DataFrame) and isinstance(y_lazy, dd.Series)
    X_out, y_out = X_lazy.compute(), y_lazy.compute()
    assert list(X_out.columns) == ["a", "b", "c", "d"] and y_out.name == "fraud"
    np.testing.assert_array_equal(X_out.to_numpy(), X_mem.to_numpy())
    np.testing.assert_array_equal(y_out.to_numpy(), y_mem.to_numpy())
    assert list(est.feature_names_in_) == ["a", "b", "c", "d"]


def test_dataframe_from_small_parquet_files(client, tmp_path):
    # dask fuses small parquet files into fewer partitions; to_dask_array(lengths=True)
    # then failed ("2 != 4") on the target column
    pytest.importorskip("pyarrow")
    X, y = _data(n=400, seed=5)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(fraud=y)
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 4)):
        frame.iloc[part].to_parquet(tmp_path / f"part{i}.parquet")
    lazy = dd.read_parquet(str(tmp_path))
    X_lazy, y_lazy = DPSMOTE(epsilon=1.0, bounds=(-2, 2), random_state=0).fit_resample(
        lazy[["a", "b", "c", "d"]], lazy["fraud"]
    )
    X_mem, y_mem = DPSMOTE(epsilon=1.0, bounds=(-2, 2), random_state=0).fit_resample(
        frame[["a", "b", "c", "d"]], frame["fraud"]
    )
    np.testing.assert_array_equal(X_lazy.compute().to_numpy(), X_mem.to_numpy())
    np.testing.assert_array_equal(y_lazy.compute().to_numpy(), y_mem.to_numpy())


def test_data_bounds_warn_and_match_memory(client):
    X, y = _data(n=3_001, seed=4)
    with pytest.warns(PrivacyLeakWarning):
        a = DPSMOTE(epsilon=1.0, random_state=0).fit(X, y)
    with pytest.warns(PrivacyLeakWarning):
        b = DPSMOTE(epsilon=1.0, random_state=0).fit(
            da.from_array(X, chunks=1_000), da.from_array(y, chunks=1_000)
        )
    np.testing.assert_array_equal(a.bounds_[0], b.bounds_[0])
    np.testing.assert_array_equal(a.bounds_[1], b.bounds_[1])


def _dask_box(low, high, d):
    from skdp_anomaly.over_sampling._statistics import BoxScale

    return BoxScale(np.full(d, float(low)), np.full(d, float(high)))


def _lazy(X, y, chunks=1_000):
    return da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=chunks)


@pytest.mark.parametrize(
    "bad, match",
    [
        ("nan", "NaN or infinity"),
        ("inf", "NaN or infinity"),
        ("one_class", "more than 1 class"),
        ("unknown_label", "not in the 'classes' parameter"),
        ("continuous", "Unknown label type"),
    ],
)
def test_bad_input_is_refused_before_any_release(client, bad, match):
    X, y = _data(n=3_001, seed=5)
    params = {}
    if bad in ("nan", "inf"):
        X[1234, 2] = np.nan if bad == "nan" else np.inf
    elif bad == "one_class":
        y[:] = 0
    elif bad == "unknown_label":
        params["classes"] = [0, 2]
    else:
        y = y + 0.5
    ledger = Ledger()
    est = DPSMOTE(epsilon=1.0, bounds=(-2, 2), accountant=ledger, **params)
    with pytest.raises(ValueError, match=match):
        est.fit_resample(*_lazy(X, y))
    assert ledger.spent == [] and not hasattr(est, "noisy_class_counts_")


def test_grid_synopsis_is_refused_with_advice(client):
    X, y = _data(n=1_001, seed=6)
    with pytest.raises(NotImplementedError, match="synopsis='gaussian'"):
        DPSMOTE(epsilon=1.0, bounds=(-2, 2), synopsis="grid").fit_resample(*_lazy(X, y))


def test_budget_refused_before_the_data_are_read(client):
    import dask

    def boom():
        raise AssertionError("the data were read")

    X = da.from_delayed(dask.delayed(boom)(), shape=(10, 2), dtype=float)
    y = da.from_delayed(dask.delayed(boom)(), shape=(10,), dtype=int)
    ledger = Ledger(epsilon=0.5)
    with pytest.raises(Exception, match="budget"):
        DPSMOTE(epsilon=1.0, bounds=(-1, 1), accountant=ledger).fit_resample(X, y)
    assert ledger.spent == []


def test_accountant_charged_as_in_memory(client):
    X, y = _data(n=3_001, seed=7)
    in_memory, lazy = Ledger(), Ledger()
    DPSMOTE(epsilon=1.0, bounds=(-2, 2), accountant=in_memory, random_state=0).fit_resample(X, y)
    DPSMOTE(epsilon=1.0, bounds=(-2, 2), accountant=lazy, random_state=0).fit_resample(*_lazy(X, y))
    assert lazy.spent == in_memory.spent and len(lazy.spent) == 2


def test_the_original_rows_stay_lazy(client):
    # fit_resample reads the data once (the statistics pass); the resampled set is a
    # graph whose first rows are the input's own blocks
    X, y = _data(n=4_000, seed=8)
    Xa, ya = _lazy(X, y)
    X_res, y_res = DPSMOTE(epsilon=1.0, bounds=(-2, 2), random_state=0).fit_resample(Xa, ya)
    assert X_res.chunks[0][:4] == Xa.chunks[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(X_res[:4_000].compute(), X)


# -- the stages compute and write through the data layer, the estimator releases ---------
# (privacy protocol): the blockwise statistics, then the rows drawn on the workers
@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize(
    "module, function, n_charged",
    [("_statistics", "class_statistics", 0), ("_synthesis", "append_drawn_rows", 2)],
)
def test_a_failed_dask_call_leaves_the_sampler_as_it_was(
    client, monkeypatch, module, function, n_charged, exc
):
    import importlib

    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    stage = importlib.import_module(f"skdp_anomaly.over_sampling.{module}")

    X, y = _data(n=3_001, seed=9)
    ledger = Ledger()
    est = DPSMOTE(epsilon=1.0, bounds=(-2, 2), accountant=ledger, random_state=0)

    def boom(*args, **kwargs):
        raise exc("injected")

    with monkeypatch.context() as patch:
        patch.setattr(stage, function, boom)
        with pytest.raises(exc, match="injected"):
            est.fit_resample(*_lazy(X, y))
    params = set(est.get_params(deep=False))
    assert not [k for k in vars(est) if k not in params | {"privacy_spent_", "_charges"}]
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert [e for e, _ in ledger.spent] == pytest.approx([0.2, 1.8][:n_charged])
    if n_charged:
        assert est.privacy_spent_.epsilon == pytest.approx(1.0)
    X_lazy, _ = est.fit_resample(*_lazy(X, y))  # the retry succeeds, as in memory
    X_mem, _ = DPSMOTE(epsilon=1.0, bounds=(-2, 2), random_state=0).fit_resample(X, y)
    np.testing.assert_array_equal(X_lazy.compute(), X_mem)
    assert ledger.total()[0] == pytest.approx(2.0 * (1 + n_charged / 2))


def test_the_estimator_sets_what_the_dask_module_computes(client):
    """The statistics stage and the data layer return statistics (no estimator in their
    signatures); the sampler releases from them and sets its attributes, the same as in
    memory."""
    import inspect

    from skdp_anomaly._data import blocks
    from skdp_anomaly.over_sampling import _statistics

    for module in (_statistics, blocks):
        functions = [
            f
            for f in vars(module).values()
            if inspect.isfunction(f) and f.__module__ == module.__name__
        ]
        assert len(functions) >= 3  # the module's functions were found
        for function in functions:
            assert "est" not in inspect.signature(function).parameters
    X, y = _data(n=2_001, seed=10)
    stats = _statistics.class_statistics(*_lazy(X, y), _dask_box(-2, 2, X.shape[1]), None)
    assert stats.labels.tolist() == [0, 1] and stats.n_non_finite == 0
    assert stats.sizes.tolist() == np.bincount(y).tolist()
