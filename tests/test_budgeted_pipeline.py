"""Tests of BudgetedPipeline: budget at fit, clone, pickle, GridSearchCV.

Deterministic (costs come from parameters; fits use fixed seeds): no test has
a false-failure rate.
"""

from _diffprivlib import require_diffprivlib

require_diffprivlib()  # the whole module prices or fits diffprivlib models

import pickle
import warnings

import diffprivlib.models as dp
import numpy as np
import pytest
from diffprivlib.utils import PrivacyLeakWarning
from imblearn.over_sampling import SMOTE
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from skdp_anomaly.budget import BudgetedPipeline, PrivacyReport, check_privacy_budget
from skdp_anomaly.exceptions import PrivacyBudgetError, PrivacyLeakError
from skdp_anomaly.privacy import PrivacyCost

from _cost_estimators import CostSampler  # tests/_cost_estimators.py


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(120, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(120) > 0).astype(int)
    return X, y


def make(budget=2.0, on_leak="warn", clf_eps=1.0, first=None):
    return BudgetedPipeline(
        [
            ("sampler", first if first is not None else CostSampler(0.5)),
            (
                "clf",
                dp.LogisticRegression(
                    epsilon=clf_eps, data_norm=1.5, fit_intercept=False, random_state=0
                ),
            ),
        ],
        budget=budget,
        on_leak=on_leak,
    )


def test_fit_within_budget_sets_report(data):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pipe = make().fit(*data)
    assert isinstance(pipe.privacy_report_, PrivacyReport)
    assert pipe.privacy_report_.epsilon == pytest.approx(1.5)
    assert pipe.privacy_report_.within_budget
    assert pipe.predict(data[0]).shape == (120,)
    assert pipe.privacy_cost().epsilon == pytest.approx(1.5)


def test_fit_over_budget_raises_before_fitting(data):
    pipe = make(budget=1.0)
    with pytest.raises(PrivacyBudgetError, match="exceeded"):
        pipe.fit(*data)
    # diffprivlib's LogisticRegression sets classes_=None in __init__, so
    # check_is_fitted cannot tell; coef_ exists only after fit
    assert not hasattr(pipe["clf"], "coef_")
    assert not hasattr(pipe, "privacy_report_")


@pytest.mark.parametrize("bad", [SMOTE(random_state=0), SkStandardScaler()])
def test_on_leak_modes(bad, data):
    with pytest.warns(PrivacyLeakWarning):
        make(first=bad, on_leak="warn").fit(*data)
    with pytest.raises(PrivacyLeakError):
        make(first=bad, on_leak="raise").fit(*data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pipe = make(first=bad, on_leak="ignore").fit(*data)
    assert pipe.privacy_report_.leaks


def test_every_fitting_method_validates(data):
    X, y = data
    pipe = BudgetedPipeline(
        [("scale", dp.StandardScaler(epsilon=0.5, bounds=(-1, 1), random_state=0))],
        budget=1.0,
    )
    assert pipe.fit_transform(X, y).shape == X.shape
    assert pipe.privacy_report_.epsilon == 0.5
    assert not hasattr(pipe, "fit_resample") and not hasattr(pipe, "fit_predict")
    resampler = BudgetedPipeline([("s", CostSampler(0.75))], budget=0.5)
    with pytest.raises(PrivacyBudgetError):
        resampler.fit_resample(X, y)
    km = BudgetedPipeline(
        [("km", dp.KMeans(n_clusters=2, epsilon=1.0, bounds=(-1, 1), random_state=0))],
        budget=0.9,
    )
    with pytest.raises(PrivacyBudgetError):
        km.fit_predict(X)


def test_get_set_params_and_clone():
    pipe = make(budget=PrivacyCost.approx(2.0, 1e-6, neighbours="replace"), on_leak="raise")
    params = pipe.get_params()
    assert params["budget"] == PrivacyCost.approx(2.0, 1e-6, neighbours="replace")
    assert params["on_leak"] == "raise" and params["neighbours"] == "replace"
    twin = clone(pipe)
    assert twin.budget == pipe.budget and twin.on_leak == "raise"
    assert twin["clf"].epsilon == 1.0
    twin.set_params(budget=(3.0, 0.0), clf__epsilon=2.5)
    assert twin.get_params()["budget"] == (3.0, 0.0)
    assert check_privacy_budget(twin, budget=twin.budget).epsilon == 3.0


@pytest.mark.parametrize(
    "budget, match",
    [(-1.0, "budget"), (np.inf, "budget"), ((1.0, 2.0), "budget"), ("big", "budget")],
)
def test_invalid_budget_at_fit(budget, match, data):
    with pytest.raises(ValueError, match=match):
        make(budget=budget).fit(*data)


def test_invalid_on_leak_at_fit(data):
    with pytest.raises(ValueError, match="on_leak"):
        make(on_leak="loud").fit(*data)


def test_pickle_round_trip(data):
    X, y = data
    pipe = make().fit(X, y)
    back = pickle.loads(pickle.dumps(pipe))
    assert back.budget == pipe.budget
    assert back.privacy_report_.steps == pipe.privacy_report_.steps
    np.testing.assert_array_equal(back.predict(X), pipe.predict(X))


def test_grid_search_over_budgeted_pipeline(data):
    X, y = data
    cv = KFold(3, shuffle=True, random_state=0)  # folds independent of the labels
    search = GridSearchCV(make(budget=2.0), {"clf__epsilon": [0.5, 1.0]}, cv=cv)
    search.fit(X, y)
    assert search.best_estimator_.privacy_report_.epsilon <= 2.0
    # the whole search: 2 folds × (1 + 1.5) + refit 1.5
    report = check_privacy_budget(search, on_leak="ignore")
    assert report.epsilon == pytest.approx(6.5)
    over = GridSearchCV(make(budget=2.0), {"clf__epsilon": [0.5, 2.0]}, cv=3, error_score="raise")
    with pytest.raises(PrivacyBudgetError):
        over.fit(X, y)


def test_cross_validate_checks_each_fit(data):
    with pytest.warns(PrivacyLeakWarning):
        cross_validate(make(first=SkStandardScaler()), *data, cv=3)
