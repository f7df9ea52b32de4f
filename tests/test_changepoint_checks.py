"""The contracts of sklearn's multi-feature checks, on single-series data.

PrivateChangePointDetector takes ONE series (shape (n,) or (n, 1)), so the
common checks that fit on multi-feature data are declared expected failures
in tests/test_common.py; this module re-tests what they check on a series.
"""

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from skdp_anomaly.changepoint import PrivateChangePointDetector

# ---- the contracts of the multi-feature checks, on single-series data ----

SERIES = np.r_[np.zeros(60), np.ones(40)] + np.random.default_rng(0).normal(0, 0.3, 100)


# a 20-point window keeps the series short; its noise warning is expected here
@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.ChangePointNoiseWarning")
@pytest.mark.parametrize("params", [{}, {"window": 20, "threshold": 0.8}])
def test_single_series_contracts(params, tmp_path):
    est = PrivateChangePointDetector(epsilon=2.0, random_state=0, **params)
    before = est.get_params()
    fitted = est.fit(SERIES.reshape(-1, 1))
    assert fitted is est and est.get_params() == before  # returns self, params untouched
    assert est.n_features_in_ == 1
    labels = est.predict(SERIES)
    state = dict(vars(est))
    est.predict(SERIES)
    assert vars(est).keys() == state.keys()  # predict does not change the estimator
    # idempotent for a fixed seed, clone is unfitted, pickle round-trips
    np.testing.assert_array_equal(clone(est).fit(SERIES).predict(SERIES), labels)
    assert not hasattr(clone(est), "change_point_")
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(SERIES), labels)
    # read-only memmap and F-ordered input
    path = tmp_path / "x.npy"
    np.save(path, SERIES)
    memmap = np.load(path, mmap_mode="r")
    np.testing.assert_array_equal(clone(est).fit(memmap).predict(memmap), labels)
    np.testing.assert_array_equal(
        clone(est).fit(np.asfortranarray(SERIES.reshape(-1, 1))).predict(SERIES), labels
    )
    # integer / float32 dtypes are accepted
    clone(est).fit(np.round(SERIES * 10).astype(int))
    clone(est).fit(SERIES.astype(np.float32))
    # wrong number of features at predict time
    with pytest.raises(ValueError, match="expecting 1 features"):
        est.predict(np.zeros((5, 3)))
