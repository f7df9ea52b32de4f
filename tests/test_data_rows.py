"""The data backend: numpy and dask rows give the same statistics and the same errors.

Reductions of integer statistics are exact (int64 sums), so the dask results
must equal the numpy ones exactly for every chunking; validation of dask input
must raise the message scikit-learn raises for the same data in memory. The
package must not import dask unless handed a dask collection.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from skdp_anomaly._data.rows import (
    NUMPY_BLOCK_ROWS,
    Rows,
    _expansion,
    bincount,
    block_fsums,
    block_partials,
    block_sum,
    fsum_blocks,
    labelled_rows,
    numpy_rows,
    read_rows,
)
from skdp_anomaly.privacy._validation import check_numeric

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


class _Est(BaseEstimator):
    """A stand-in estimator: only its name and its n_features_in_ / feature_names_in_."""


RNG = np.random.default_rng(0)
X = RNG.normal(0, 1, (1_003, 3))
CHUNKINGS = {
    "one block": lambda: da.from_array(X, chunks=-1),
    "even": lambda: da.from_array(X, chunks=(250, 3)),
    "uneven, columns split": lambda: da.from_array(X, chunks=((1, 500, 2, 500), (2, 1))),
    "frame": lambda: dd.from_pandas(pd.DataFrame(X, columns=list("abc")), npartitions=4),
}


def _cells(block, edges):
    return np.clip(np.searchsorted(edges, block[:, 0], side="right") - 1, 0, edges.size - 2)


def _signs(block):
    return np.stack([(block > 0).sum(axis=0), (block <= 0).sum(axis=0)])


@pytest.mark.parametrize("chunking", CHUNKINGS)
def test_dask_reductions_equal_numpy_exactly(chunking):
    rows = read_rows(CHUNKINGS[chunking]())
    assert rows.is_dask and (rows.n_samples, rows.n_features) == X.shape
    edges = np.linspace(-3, 3, 13)
    expected = bincount(numpy_rows(X), _cells, 12, edges)
    np.testing.assert_array_equal(expected, np.histogram(np.clip(X[:, 0], -3, 3), edges)[0])
    got = bincount(rows, _cells, 12, edges)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        block_sum(rows, _signs, shape=(2, 3)), block_sum(numpy_rows(X), _signs, shape=(2, 3))
    )


def _ill_conditioned(block, labels):
    """Block sums that cancel: huge, tiny and opposite terms (exact sums need every bit)."""
    first = block[:, 0]
    return np.array(
        [
            first.sum() * 1e16,
            first.sum(),
            -first.sum() * 1e16 + 1.0,
            (labels * first).sum() * 2.0**-60,
            float(len(block)) * 2.0**970,
        ]
    )


def test_float_statistics_are_added_on_the_workers_to_the_numpy_floats():
    # 41 aligned blocks (three levels of the workers' tree), chunks not aligned with them
    n = 40 * NUMPY_BLOCK_ROWS + 123
    rng = np.random.default_rng(1)
    values = rng.standard_normal((n, 1)) * 10.0 ** rng.integers(-20, 20, (n, 1))
    labels = rng.choice([-1.0, 1.0], n)
    expected = block_fsums(
        labelled_rows(numpy_rows(values), labels), _ill_conditioned, size=5, magnitude=True
    )
    partials = block_partials(labelled_rows(numpy_rows(values), labels), _ill_conditioned, size=5)
    np.testing.assert_array_equal(expected.total, fsum_blocks(partials))
    np.testing.assert_array_equal(expected.magnitude, fsum_blocks(np.abs(partials)))
    assert expected.n_blocks == 41
    dask_data = labelled_rows(
        read_rows(da.from_array(values, chunks=(300_007, 1))), da.from_array(labels, chunks=300_007)
    )
    got = block_fsums(dask_data, _ill_conditioned, size=5, magnitude=True)
    # bit for bit, the sum of huge terms near overflow included
    assert got.total.tobytes() == expected.total.tobytes()
    assert got.magnitude.tobytes() == expected.magnitude.tobytes()
    assert got.n_blocks == 41
    totals_only = block_fsums(dask_data, _ill_conditioned, size=5)
    assert totals_only.magnitude is None
    assert totals_only.total.tobytes() == expected.total.tobytes()


def test_an_expansion_keeps_the_exact_sum():
    from fractions import Fraction

    rng = np.random.default_rng(2)
    for _ in range(200):
        terms = (rng.standard_normal(30) * 10.0 ** rng.integers(-300, 300, 30)).tolist()
        kept = _expansion(terms)
        assert sum(map(Fraction, kept)) == sum(map(Fraction, terms))
        assert len(kept) <= len(terms)
    # an intermediate sum that overflows keeps the terms as they are (still exact)
    huge = [1.7e308, 1.7e308, -1.7e308]
    assert _expansion(huge) == huge


@pytest.mark.parametrize("chunking", ["uneven, columns split", "frame"])
def test_blocks_come_in_order_and_cover_the_rows(chunking):
    rows = read_rows(CHUNKINGS[chunking]())
    blocks = list(rows.blocks())
    assert len(blocks) == rows.n_blocks > 1
    assert all(isinstance(b, np.ndarray) and b.dtype == np.float64 for b in blocks)
    np.testing.assert_array_equal(np.vstack(blocks), X)
    assert [b is X for b in numpy_rows(X).blocks()] == [True]  # one block, no copy


def test_a_large_numpy_array_is_read_in_views_with_the_same_sums():
    big = np.random.default_rng(1).normal(size=(2 * NUMPY_BLOCK_ROWS + 5, 2))
    rows = numpy_rows(big)
    blocks = list(rows.blocks())
    assert rows.n_blocks == len(blocks) == 3
    assert all(np.shares_memory(b, big) for b in blocks)  # views, no copies
    np.testing.assert_array_equal(np.vstack(blocks), big)
    np.testing.assert_array_equal(block_sum(rows, _signs, shape=(2, 2)), _signs(big))


def test_block_sum_refuses_a_float_statistic():
    def means(block):
        return block.mean(axis=0)

    with pytest.raises(TypeError, match="integer"):
        block_sum(numpy_rows(X), means, shape=(3,))
    with pytest.raises(TypeError, match="integer"):
        block_sum(read_rows(CHUNKINGS["even"]()), means, shape=(3,))


def test_rows_show_no_data():
    text = repr(read_rows(CHUNKINGS["even"]())) + repr(numpy_rows(X))
    assert text == (
        "Rows(n_samples=1003, n_features=3, dask, 5 blocks)"
        "Rows(n_samples=1003, n_features=3, numpy)"
    )


# ------------------------------------------------------------------ validation
def _numpy_error(values, *, fitted_with=None, frame=False):
    """The error validate_data raises in memory, or None."""
    est = _Est()
    if fitted_with is not None:
        validate_data(est, fitted_with, reset=True)
    data = pd.DataFrame(values, columns=list("abc")[: values.shape[1]]) if frame else values
    try:
        check_numeric(data, "_Est")
        validate_data(est, data, reset=fitted_with is None, dtype=np.float64)
    except ValueError as exc:
        return str(exc)
    return None


def _dask_error(collection, *, fitted_with=None):
    est = _Est()
    if fitted_with is not None:
        validate_data(est, fitted_with, reset=True)
    with pytest.raises(ValueError) as info:
        read_rows(collection, est, reset=fitted_with is None)
    return str(info.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("frame", [False, True])
def test_non_finite_values_give_sklearns_message(bad, frame):
    values = X.copy()
    values[700, 1] = bad  # in the last block only
    expected = _numpy_error(values, frame=frame)
    assert expected is not None and expected.startswith("Input X contains")
    if frame:
        collection = dd.from_pandas(pd.DataFrame(values, columns=list("abc")), npartitions=3)
    else:
        collection = da.from_array(values, chunks=((300, 300, 403), (3,)))
    assert _dask_error(collection) == expected


def test_wrong_number_of_features_gives_sklearns_message():
    expected = _numpy_error(X[:, :2], fitted_with=X)
    assert "features" in expected
    assert _dask_error(da.from_array(X[:, :2], chunks=100), fitted_with=X) == expected


def test_non_numeric_columns_give_the_in_memory_message():
    frame = pd.DataFrame(X, columns=list("abc")).assign(b=lambda f: f.b.astype(str))
    expected = None
    try:
        check_numeric(frame, "_Est")
    except ValueError as exc:
        expected = str(exc)
    assert expected is not None and "['b']" in expected
    assert _dask_error(dd.from_pandas(frame, npartitions=2)) == expected
    # an array or a Series is refused by its dtype: converting it on the workers could
    # fail with a message that quotes a value
    for collection in (
        da.from_array(X.astype(object), chunks=100),
        da.from_array(X.astype(str), chunks=100),
        dd.from_pandas(pd.Series(["1.5", "x"]), npartitions=1),
    ):
        with pytest.raises(ValueError, match="_Est supports numeric features only.*dtype"):
            read_rows(collection, _Est(), column_if_1d=True)


def test_feature_names_are_recorded_and_checked_as_for_pandas():
    frame = pd.DataFrame(X, columns=list("abc"))
    est = _Est()
    rows = read_rows(dd.from_pandas(frame, npartitions=2), est, reset=True)
    assert rows.n_samples == X.shape[0] and est.n_features_in_ == 3
    assert est.feature_names_in_.tolist() == ["a", "b", "c"]
    renamed = dd.from_pandas(frame.rename(columns={"c": "z"}), npartitions=2)
    with pytest.raises(ValueError, match="feature names"):
        read_rows(renamed, est, reset=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_rows(dd.from_pandas(frame, npartitions=3), est, reset=False)


def test_one_dimensional_input():
    column = da.from_array(X[:, 0], chunks=300)
    series = dd.from_pandas(pd.Series(X[:, 0], name="x"), npartitions=3)
    for collection in (column, series):
        rows = read_rows(collection, column_if_1d=True)
        assert (rows.n_samples, rows.n_features) == (X.shape[0], 1)
        np.testing.assert_array_equal(np.vstack(list(rows.blocks())), X[:, :1])
        with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
            read_rows(collection, _Est())


def test_too_few_rows_and_non_dask_input():
    empty = da.from_array(np.zeros((0, 3)), chunks=10)
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 3\)\).*_Est"):
        read_rows(empty, _Est())
    assert read_rows(empty, ensure_min_samples=0).n_samples == 0
    with pytest.raises(TypeError, match="numpy_rows"):
        read_rows(X)
    assert isinstance(numpy_rows(X), Rows)


def test_the_package_does_not_import_dask_without_dask_input():
    code = (
        "import sys, numpy as np\n"
        "import skdp_anomaly, skdp_anomaly._data.rows as b\n"
        "from skdp_anomaly import DPOAD\n"
        "from skdp_anomaly.dpoad import window_histogram\n"
        "det = DPOAD(np.linspace(0, 1, 5), max_count=50, random_state=0)\n"
        "det.partial_fit(np.random.default_rng(0).uniform(0, 1, 40))\n"
        "window_histogram([0.1, 0.9], [0, 0.5, 1])\n"
        "b.bincount(b.numpy_rows(np.zeros((3, 1))), lambda x: np.zeros(3, int), 2)\n"
        "loaded = sorted(m for m in sys.modules if m == 'dask' or m.startswith('dask.'))\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
