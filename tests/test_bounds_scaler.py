"""Tests of BoundsScaler: the map onto [-1, 1], clipping, its zero cost, the None-bounds leak."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from skdp_anomaly import BoundsScaler, PrivateLogisticRegression, check_privacy_budget
from skdp_anomaly.exceptions import PrivacyLeakWarning


def test_maps_bounds_onto_the_box_and_clips_outside():
    scaler = BoundsScaler(bounds=([0, -10], [10, 10])).fit(np.zeros((3, 2)))
    X = np.array([[0.0, -10.0], [10.0, 10.0], [2.5, 0.0], [-4.0, 30.0]])
    np.testing.assert_allclose(scaler.transform(X), [[-1, -1], [1, 1], [-0.5, 0], [-1, 1]])


def test_scalar_bounds_broadcast_to_every_feature():
    scaler = BoundsScaler(bounds=(0, 4)).fit(np.zeros((2, 3)))
    lower, upper = scaler.bounds_
    assert lower.tolist() == [0.0] * 3 and upper.tolist() == [4.0] * 3
    np.testing.assert_allclose(scaler.transform([[1.0, 2.0, 3.0]]), [[-0.5, 0.0, 0.5]])


def test_fitted_state_does_not_depend_on_the_data():
    rng = np.random.default_rng(0)
    a = BoundsScaler(bounds=(-3, 3)).fit(rng.normal(size=(50, 2)))
    b = BoundsScaler(bounds=(-3, 3)).fit(100 * rng.normal(size=(7, 2)))
    state = {k: v for k, v in vars(a).items() if k != "bounds"}
    assert sorted(state) == sorted(k for k in vars(b) if k != "bounds")
    np.testing.assert_array_equal(a.bounds_[0], b.bounds_[0])
    np.testing.assert_array_equal(a.bounds_[1], b.bounds_[1])
    assert pickle.dumps(a.bounds_) == pickle.dumps(b.bounds_)


def test_inverse_transform_round_trips_inside_the_bounds():
    scaler = BoundsScaler(bounds=([0, 5], [2, 9])).fit(np.zeros((1, 2)))
    X = np.array([[0.5, 6.0], [1.9, 8.5]])
    np.testing.assert_allclose(scaler.inverse_transform(scaler.transform(X)), X)


def test_zero_cost_and_the_validator_counts_it_as_not_learning():
    assert BoundsScaler(bounds=(0, 1)).privacy_cost().epsilon == 0.0
    pipe = make_pipeline(
        BoundsScaler(bounds=(0, 100)), PrivateLogisticRegression(epsilon=1.0, data_norm=np.sqrt(3))
    )
    report = check_privacy_budget(pipe, 1.0)
    assert report.cost.epsilon == 1.0 and not report.leaks
    row = next(r for r in report.steps if r.estimator == "BoundsScaler")
    assert row.cost.epsilon == 0 and not row.leak
    # the data-reading scaler it replaces is a leak
    with pytest.raises(Exception, match="MinMaxScaler learns from the data"):
        check_privacy_budget(make_pipeline(MinMaxScaler(), pipe[-1]), 1.0)


def test_none_bounds_warn_leak_and_are_stored_apart():
    X = np.array([[1.0, 10.0], [3.0, 30.0]])
    scaler = BoundsScaler()
    assert scaler.privacy_leaks() and "bounds=None" in scaler.privacy_leaks()[0]
    report = check_privacy_budget(scaler, 1.0, on_leak="ignore")
    assert report.leaks
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        scaler.fit(X)
    assert scaler.bounds is None
    np.testing.assert_allclose(scaler.transform(X), [[-1, -1], [1, 1]])


@pytest.mark.parametrize(
    "bounds, match",
    [
        ((1, 1), "lower must be < upper"),
        ((2, 1), "lower must be < upper"),
        ((np.nan, 1), "bounds: lower bound must be finite"),
        ((0, np.inf), "bounds: upper bound must be finite"),
        (([0, 0], [1, 1, 1]), "bounds: (lower|upper) bound must be a scalar or have shape"),
        ((0, 1, 2), "'bounds' parameter must be a \\(lower, upper\\) pair"),
    ],
)
def test_bad_bounds_are_refused_by_name_before_the_data(bounds, match):
    with pytest.raises(ValueError, match=match):
        BoundsScaler(bounds=bounds).privacy_cost()
    with pytest.raises(ValueError, match=match):
        BoundsScaler(bounds=bounds).fit(np.zeros((2, 2)))


def test_bounds_of_the_wrong_length_for_X():
    with pytest.raises(ValueError, match="bounds: lower bound must be a scalar or have shape"):
        BoundsScaler(bounds=([0, 0, 0], [1, 1, 1])).fit(np.zeros((2, 2)))


def test_nan_in_X_is_refused_and_unfitted_transform_raises():
    with pytest.raises(ValueError, match="NaN"):
        BoundsScaler(bounds=(0, 1)).fit([[np.nan, 0.0]])
    with pytest.raises(NotFittedError):
        BoundsScaler(bounds=(0, 1)).transform([[0.0]])


def test_dataframe_keeps_feature_names_without_warnings():
    df = pd.DataFrame({"age": [20.0, 80.0], "income": [0.0, 1e5]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler = BoundsScaler(bounds=([0, 0], [100, 2e5])).fit(df)
        out = scaler.transform(df)
    assert scaler.feature_names_in_.tolist() == ["age", "income"]
    assert scaler.get_feature_names_out().tolist() == ["age", "income"]
    np.testing.assert_allclose(out, [[-0.6, -1.0], [0.6, 0.0]])
    assert clone(scaler).get_params() == scaler.get_params()
