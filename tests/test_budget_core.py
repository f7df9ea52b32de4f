"""The budget validator on this package's estimators and scikit-learn steps alone.

These tests need no diffprivlib, so they also run in the CI job without it
(tests/test_budget*.py cover the diffprivlib rules). Deterministic: costs are
read from parameters.
"""

import numpy as np
import pytest
from imblearn.pipeline import Pipeline
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold

from skdp_anomaly import DPSMOTE, PrivacyLeakError, PrivateChangePointDetector, check_privacy_budget
from skdp_anomaly.exceptions import PrivacyLeakWarning

from _cost_estimators import CostSampler  # tests/_cost_estimators.py


def test_add_remove_step_counts_twice_next_to_a_replace_one_step():
    pipe = Pipeline(
        [
            ("dpsmote", DPSMOTE(epsilon=1.0, bounds=(0, 1), classes=[0, 1])),
            ("other", CostSampler(epsilon=1.0, neighbours="replace")),
        ]
    )
    report = check_privacy_budget(pipe)
    assert report.neighbours == "replace" and report.epsilon == pytest.approx(3.0)
    assert report.is_private
    with pytest.warns(PrivacyLeakWarning, match="replace-one"):
        under_add_remove = check_privacy_budget(pipe, neighbours="add_remove")
    assert under_add_remove.epsilon == pytest.approx(1.0) and not under_add_remove.is_private


def test_non_private_classifier_is_a_leak_and_fails_a_budget():
    pipe = Pipeline(
        [
            ("dpsmote", DPSMOTE(epsilon=1.0, bounds=(0, 1), classes=[0, 1])),
            ("clf", LogisticRegression()),
        ]
    )
    with pytest.raises(PrivacyLeakError, match="clf"):
        check_privacy_budget(pipe, budget=10.0)
    # "auto": every private step holds under add/remove, so the report does too
    report = check_privacy_budget(pipe, on_leak="ignore")
    assert report.neighbours == "add_remove"
    assert report.epsilon == pytest.approx(1.0) and report.leaks
    report = check_privacy_budget(pipe, neighbours="replace", on_leak="ignore")
    assert report.epsilon == pytest.approx(2.0) and report.leaks


def test_label_set_and_public_counts_are_assumptions():
    report = check_privacy_budget(DPSMOTE(epsilon=1.0, bounds=(0, 1), class_counts="public"))
    assert len(report.assumptions) == 2 and report.leaks == []
    assert not report.is_private and report.is_private_given_assumptions
    assert "No leaks found: the estimator" not in report.to_markdown()


def test_cross_validation_with_kfold_and_with_a_stratified_splitter():
    est = DPSMOTE(epsilon=0.5, bounds=(0, 1), classes=[0, 1])
    assert check_privacy_budget(est, cv=KFold(5), on_leak="ignore").epsilon == pytest.approx(4.0)
    report = check_privacy_budget(est, cv=StratifiedKFold(5), on_leak="ignore")
    assert any("StratifiedKFold" in leak for leak in report.leaks)


def test_change_point_detector_is_replace_one_only():
    det = PrivateChangePointDetector(epsilon=2.0)
    assert check_privacy_budget(det).epsilon == 2.0
    report = check_privacy_budget(det, neighbours="add_remove", on_leak="ignore")
    assert report.leaks and not report.is_private


@pytest.mark.parametrize("bad, error", [(None, TypeError), (DPSMOTE, TypeError)])
def test_not_an_estimator_instance(bad, error):
    with pytest.raises(error, match="instance"):
        check_privacy_budget(bad)


@pytest.mark.parametrize("bad", [np.zeros(3), 3.0, object(), len])
@pytest.mark.parametrize("budget", [None, 1.0])
def test_something_that_is_not_an_estimator_is_a_type_error(bad, budget):
    # not a leak to report (PrivacyLeakError) but a usage error, whatever the budget
    with pytest.raises(TypeError, match=rf"estimator instance .*type {type(bad).__name__}"):
        check_privacy_budget(bad, budget=budget)


def test_fit_matches_the_report():
    rng = np.random.default_rng(0)
    X, y = rng.uniform(0, 1, (200, 2)), np.repeat([0, 1], [170, 30])
    est = DPSMOTE(epsilon=1.0, bounds=(0, 1), classes=[0, 1], random_state=0)
    est.fit_resample(X, y)
    report = check_privacy_budget(est)
    assert report.epsilon == est.privacy_spent_.under(report.neighbours).epsilon
