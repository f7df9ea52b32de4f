"""DPOAD on dask windows: the numpy window's release, bit for bit, whatever the chunks.

A window's histogram is an exact reduction of the data backend (int64 sums of
per-block counts), and everything after it is the in-memory code with the same
noise streams, so the same ``random_state`` must give the same noisy counts
and the same fitted state. Run on dask's synchronous scheduler (no cluster).
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
from _faults import same, state  # noqa: E402
from _walk import reachable  # noqa: E402

from skdp_anomaly import DPOAD  # noqa: E402
from skdp_anomaly.dpoad import window_histogram
from skdp_anomaly.exceptions import DPOADNoiseWarning
from skdp_anomaly.exceptions import PrivacyLeakWarning


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DPOADNoiseWarning)
        yield


BINS = [np.linspace(0, 1, 6), np.array([0.0, 0.2, 0.5, 1.0])]
RNG = np.random.default_rng(1)
WINDOWS = [RNG.uniform(-0.1, 1.1, (400 + 37 * i, 2)) for i in range(5)]
WINDOWS[3][:60] = [0.55, 0.3]  # a burst in one cell
COLUMNS = ["amount", "hour"]

# how a numpy window becomes a dask one
CHUNKINGS = {
    "one block": lambda w: da.from_array(w, chunks=-1),
    "uneven": lambda w: da.from_array(w, chunks=((1, 100, 7, w.shape[0] - 108), (2,))),
    "columns split": lambda w: da.from_array(w, chunks=(128, 1)),
    "frame": lambda w: dd.from_pandas(pd.DataFrame(w, columns=COLUMNS), npartitions=3),
}


def _pair(**params):
    params = {
        "epsilon": 1.0,
        "max_count": 500,
        "learning_windows": 2,
        "gamma": 0.05,
        "random_state": 5,
        **params,
    }
    return DPOAD(BINS, **params), DPOAD(BINS, **params)


def _same_state(a, b) -> bool:
    """Every attribute equal by value, through the owner, the analyst and the messages."""
    kinds = tuple(
        {
            type(obj)
            for obj in reachable(a).values()
            if type(obj).__module__.startswith("skdp_anomaly.dpoad.") and hasattr(obj, "__dict__")
        }
    )
    return same(state(a), state(b), objects=kinds)


def _same_fitted_state(a, b):
    """Equal by value, and the pickles byte for byte (every float bit)."""
    assert _same_state(a, b)
    assert pickle.dumps(a) == pickle.dumps(b)


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("mechanism", ["record", "dpoad"])
def test_a_dask_stream_releases_what_the_numpy_stream_releases(mechanism, chunking):
    memory, lazy = _pair(mechanism=mechanism)
    for w in WINDOWS:
        memory.partial_fit(pd.DataFrame(w, columns=COLUMNS) if chunking == "frame" else w)
        lazy.partial_fit(CHUNKINGS[chunking](w))
    assert [r.values.tolist() for r in lazy.releases_] == [
        r.values.tolist() for r in memory.releases_
    ]
    _same_fitted_state(memory, lazy)
    assert memory.anomalies_.shape == (5, 15)
    if mechanism == "record":  # the burst is seen (a release that depends on the data)
        assert memory.anomalous_windows_[3]
    if chunking == "frame":
        assert lazy.feature_names_in_.tolist() == COLUMNS


def test_fit_and_mixed_streams_and_laplace():
    memory, lazy = _pair(mechanism="laplace", max_count=None)
    with pytest.warns(PrivacyLeakWarning, match="max_count=None"):  # the leak is warned alike
        memory.fit(WINDOWS[0])
    with pytest.warns(PrivacyLeakWarning, match="max_count=None"):
        lazy.fit(CHUNKINGS["uneven"](WINDOWS[0]))
    for i, w in enumerate(WINDOWS[1:3]):
        memory.partial_fit(w)
        lazy.partial_fit(w if i % 2 else CHUNKINGS["columns split"](w))
    _same_fitted_state(memory, lazy)


def test_one_feature_windows_as_1d_arrays_and_series():
    bins = np.linspace(0, 1, 11)
    memory = DPOAD(bins, max_count=500, random_state=2)
    lazy = DPOAD(bins, max_count=500, random_state=2)
    for i, w in enumerate(WINDOWS[:4]):
        memory.partial_fit(w[:, 0])
        column = (
            da.from_array(w[:, 0], chunks=97)
            if i % 2
            else dd.from_pandas(pd.Series(w[:, 0], name="x"), npartitions=2)
        )
        lazy.partial_fit(column)
    _same_fitted_state(memory, lazy)


def test_budget_is_charged_once_per_window_as_for_numpy():
    ledgers = Ledger(), Ledger()
    memory, lazy = _pair(mechanism="record")
    memory.set_params(accountant=ledgers[0])
    lazy.set_params(accountant=ledgers[1])
    for w in WINDOWS[:3]:
        memory.partial_fit(w)
        lazy.partial_fit(CHUNKINGS["uneven"](w))
    assert ledgers[1].spent == ledgers[0].spent and len(ledgers[0].spent) == 3
    assert lazy.privacy_spent_ == memory.privacy_spent_


def _error(det, window):
    with pytest.raises(ValueError) as info:
        det.partial_fit(window)
    return str(info.value)


# the test mixes a frame and arrays on purpose: scikit-learn's feature-name check warns
@pytest.mark.filterwarnings("ignore:X (has|does not have valid) feature names:UserWarning")
@pytest.mark.parametrize("fault", ["nan", "inf", "features", "empty", "strings"])
def test_bad_dask_windows_give_the_numpy_error_before_any_charge(fault):
    ledgers = Ledger(), Ledger()
    memory, lazy = _pair(mechanism="record")
    memory.set_params(accountant=ledgers[0])
    lazy.set_params(accountant=ledgers[1])
    frame = pd.DataFrame(WINDOWS[0], columns=COLUMNS)
    memory.partial_fit(frame)
    lazy.partial_fit(dd.from_pandas(frame, npartitions=2))
    before = copy.deepcopy(lazy)
    bad = pd.DataFrame(WINDOWS[1].copy(), columns=COLUMNS)
    if fault in ("nan", "inf"):
        bad.iloc[-1, 1] = np.nan if fault == "nan" else np.inf
    elif fault == "features":
        bad = bad.assign(extra=1.0)
    elif fault == "empty":
        bad = bad.iloc[:0]
    else:
        bad = bad.assign(hour=bad.hour.astype(str))
    expected = _error(memory, bad)
    assert _error(lazy, dd.from_pandas(bad, npartitions=2)) == expected
    if fault != "strings":  # an array of strings is refused by its dtype on dask
        assert _error(lazy, da.from_array(bad.to_numpy(), chunks=100)) == _error(
            memory, bad.to_numpy()
        )
    assert ledgers[1].spent == ledgers[0].spent and len(ledgers[0].spent) == 1
    assert _same_state(lazy, before)


# the test mixes a frame and arrays on purpose: scikit-learn's feature-name check warns
@pytest.mark.filterwarnings("ignore:X (has|does not have valid) feature names:UserWarning")
def test_the_window_is_never_computed_whole_and_nothing_of_it_stays(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the whole dask window was converted to numpy")

    monkeypatch.setattr(da.Array, "__array__", refuse)
    lazy = _pair()[1]
    window = CHUNKINGS["uneven"](WINDOWS[0])
    lazy.partial_fit(window).partial_fit(CHUNKINGS["frame"](WINDOWS[1]))
    kept = reachable(lazy)
    modules = {type(obj).__module__.split(".")[0] for obj in kept.values()}
    assert "dask" not in modules
    assert all(type(obj).__name__ != "Rows" for obj in kept.values())
    assert b"dask" not in pickle.dumps(lazy)


def test_window_histogram_of_a_dask_window():
    expected = window_histogram(WINDOWS[2], BINS)
    for make in CHUNKINGS.values():
        np.testing.assert_array_equal(window_histogram(make(WINDOWS[2]), BINS), expected)
