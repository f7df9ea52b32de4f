"""scikit-learn's common estimator checks, with the expected failures declared.

PrivateChangePointDetector takes ONE series (shape (n,) or (n, 1)) and
labels samples by their position in time, so the checks that fit on
multi-feature data, or that assume each row is an independent sample
(predictions invariant to subsetting or reordering rows), cannot pass by
design. Each is listed with its reason; every other check must pass.
"""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdp_anomaly.changepoint import PrivateChangePointDetector

_MULTI_FEATURE = "fits on multi-feature X; the detector takes one series (n,) or (n, 1)"
_TIME_ORDER = "labels depend on each sample's position in time, not on the row alone"

EXPECTED_FAILED_CHECKS = {
    "check_fit_score_takes_y": _MULTI_FEATURE,
    "check_estimators_overwrite_params": _MULTI_FEATURE,
    "check_dont_overwrite_parameters": _MULTI_FEATURE,
    "check_estimators_fit_returns_self": _MULTI_FEATURE,
    "check_readonly_memmap_input": _MULTI_FEATURE,
    "check_n_features_in_after_fitting": _MULTI_FEATURE,
    "check_positive_only_tag_during_fit": _MULTI_FEATURE,
    "check_estimators_dtypes": _MULTI_FEATURE,
    "check_dtype_object": _MULTI_FEATURE,
    "check_pipeline_consistency": _MULTI_FEATURE,
    "check_estimators_nan_inf": _MULTI_FEATURE,
    "check_estimators_pickle": _MULTI_FEATURE,
    "check_f_contiguous_array_estimator": _MULTI_FEATURE,
    "check_dict_unchanged": _MULTI_FEATURE,
    "check_fit_idempotent": _MULTI_FEATURE,
    "check_fit_check_is_fitted": _MULTI_FEATURE,
    "check_n_features_in": _MULTI_FEATURE,
    "check_fit2d_1sample": _MULTI_FEATURE,
    "check_methods_sample_order_invariance": _TIME_ORDER,
    "check_methods_subset_invariance": _TIME_ORDER,
    "check_fit1d": "a 1-D X is the natural input (one series); the check expects an error",
    "check_fit2d_predict1d": "predict accepts a 1-D series by design",
}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS


@parametrize_with_checks(
    [PrivateChangePointDetector(epsilon=1.0, random_state=0)],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---- the contracts of the multi-feature checks, on single-series data ----

SERIES = np.r_[np.zeros(60), np.ones(40)] + np.random.default_rng(0).normal(0, 0.3, 100)


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
        clone(est).fit(np.asfortranarray(SERIES.reshape(-1, 1))).predict(SERIES), labels)
    # integer / float32 dtypes are accepted
    clone(est).fit(np.round(SERIES * 10).astype(int))
    clone(est).fit(SERIES.astype(np.float32))
    # wrong number of features at predict time
    with pytest.raises(ValueError, match="expecting 1 features"):
        est.predict(np.zeros((5, 3)))
