"""The package's own ledger: one budget for every fit, on the main install."""

import pickle
import threading
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly import (
    BudgetAccountant,
    DPImbalancedClassifier,
    PrivacyBudgetError,
    PrivateChangePointDetector,
    PrivateHBOS,
    check_privacy_budget,
)
from skdp_anomaly.exceptions import BudgetExceededError


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(600, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=600) > 0.9).astype(int)
    series = np.r_[rng.normal(0, 1, 300), rng.normal(2, 1, 300)]
    return X, y, series


def test_one_ledger_takes_three_fits_and_refuses_a_fourth_before_any_release():
    X, y, series = _data()
    ledger = BudgetAccountant(epsilon=2.0)  # replace-one neighbours
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivateHBOS(epsilon=0.25, bounds=(0, 1), accountant=ledger, random_state=0).fit(X)
        DPImbalancedClassifier(
            epsilon=1.0, bounds=(0, 1), classes=[0, 1], accountant=ledger, random_state=0
        ).fit(X, y)
        PrivateChangePointDetector(epsilon=0.5, accountant=ledger, random_state=0).fit(series)
    # the outlier detector's add/remove 0.25 is 0.5 under replace-one (group privacy)
    assert ledger.spent.epsilon == pytest.approx(2.0)
    assert [c.epsilon for c in ledger.history][0] == pytest.approx(0.5)
    assert ledger.remaining[0] == pytest.approx(0.0, abs=1e-9)
    fourth = PrivateHBOS(epsilon=0.01, bounds=(0, 1), accountant=ledger, random_state=0)
    before = len(ledger.history)
    with pytest.raises(BudgetExceededError, match="PrivateHBOS needs"):
        fourth.fit(X)
    assert len(ledger.history) == before
    with pytest.raises(NotFittedError):
        check_is_fitted(fourth)


def test_the_ledger_is_shared_by_clone_and_survives_pickle():
    ledger = BudgetAccountant(epsilon=1.0)
    est = PrivateHBOS(epsilon=0.25, bounds=(0, 1), accountant=ledger)
    assert clone(est).accountant is ledger
    X, _, _ = _data()
    clone(est).set_params(random_state=0).fit(X)
    assert ledger.spent.epsilon == pytest.approx(0.5)
    copy = pickle.loads(pickle.dumps(ledger))
    assert copy.spent.epsilon == pytest.approx(0.5) and copy.remaining == ledger.remaining
    copy.spend(0.1, 0.0)  # the copy has a lock of its own
    assert ledger.spent.epsilon == pytest.approx(0.5)


def test_an_add_remove_ledger_refuses_a_replace_one_estimator_before_any_release():
    X, y, _ = _data()
    ledger = BudgetAccountant(epsilon=5.0, neighbours="add_remove")
    PrivateHBOS(epsilon=1.0, bounds=(0, 1), accountant=ledger, random_state=0).fit(X)
    assert ledger.spent.epsilon == pytest.approx(1.0)  # add/remove: as it is
    clf = DPImbalancedClassifier(
        epsilon=1.0, bounds=(0, 1), classes=[0, 1], accountant=ledger, random_state=0
    )
    with pytest.raises(ValueError, match="under add/remove neighbours"):
        clf.fit(X, y)
    assert len(ledger.history) == 1


def test_two_threads_cannot_both_pass_a_ledger_that_covers_one_fit():
    X, _, _ = _data()
    ledger = BudgetAccountant(epsilon=0.6, neighbours="add_remove")
    outcomes = []

    def fit(seed):
        try:
            PrivateHBOS(epsilon=0.5, bounds=(0, 1), accountant=ledger, random_state=seed).fit(X)
            outcomes.append("fitted")
        except BudgetExceededError:
            outcomes.append("refused")

    threads = [threading.Thread(target=fit, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["fitted", "refused", "refused", "refused"]
    assert ledger.spent.epsilon == pytest.approx(0.5)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"epsilon": -1}, "epsilon"),
        ({"delta": 1.0}, "delta"),
        ({"neighbours": "swap"}, "neighbours"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        BudgetAccountant(**kwargs)


def test_spend_check_and_repr():
    ledger = BudgetAccountant(epsilon=1.0, delta=1e-6)
    ledger.spend(0.4, 0.0).spend(0.4, 1e-7)
    assert ledger.check(0.2, 0.0)
    with pytest.raises(BudgetExceededError, match="remaining ε=0.2"):
        ledger.check(0.3, 0.0)
    assert ledger.spent.delta == pytest.approx(1e-7)
    assert "spent ε=0.8" in repr(ledger)


def test_the_validator_adds_up_several_estimators_under_the_strongest_relation():
    hbos = PrivateHBOS(epsilon=0.25, bounds=(0, 1))
    clf = DPImbalancedClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1])
    cpd = PrivateChangePointDetector(epsilon=0.5)
    report = check_privacy_budget([hbos, clf, cpd], budget=2.0)
    # the classifier holds only with n public: replace-one, where HBOS's 0.25 counts 0.5
    assert report.neighbours == "replace" and report.is_private
    assert report.cost.epsilon == pytest.approx(2.0)
    assert report.steps[0].path == "privatehbos"
    with pytest.raises(PrivacyBudgetError):
        check_privacy_budget([hbos, clf, cpd], budget=1.99)
    # every step holds under add/remove: the report says so, at the estimator's own ε
    alone = check_privacy_budget(PrivateHBOS(epsilon=1.0, bounds=(0, 1)), budget=1.0)
    assert alone.neighbours == "add_remove" and alone.is_private
    named = check_privacy_budget([("first", hbos), ("second", hbos)])
    assert named.cost.epsilon == pytest.approx(0.5)  # add/remove: 0.25 + 0.25
    assert {r.path for r in named.steps} >= {"first", "second"}
    with pytest.raises(TypeError, match="non-empty list"):
        check_privacy_budget([])


def test_bounds_that_do_not_cover_the_data_warn_at_fit_naming_the_features():
    from skdp_anomaly import DPSMOTE
    from skdp_anomaly.exceptions import BoundsClippingWarning

    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, size=(400, 3))
    X[:, 1] *= 10  # feature 1 lies in [0, 10], bounds say (0, 1)
    y = (rng.random(400) < 0.2).astype(int)
    fits = [
        lambda: PrivateHBOS(epsilon=1.0, bounds=(0, 1), random_state=0).fit(X),
        lambda: DPImbalancedClassifier(
            epsilon=1.0, bounds=(0, 1), classes=[0, 1], random_state=0
        ).fit(X, y),
        lambda: DPSMOTE(epsilon=1.0, bounds=(0, 1), classes=[0, 1], random_state=0).fit_resample(
            X, y
        ),
    ]
    for fit in fits:
        with pytest.warns(BoundsClippingWarning, match=r"feature\(s\) x1;"):
            fit()
    with warnings.catch_warnings():
        warnings.simplefilter("error", BoundsClippingWarning)  # covered: no warning
        PrivateHBOS(epsilon=1.0, bounds=(0, 10), random_state=0).fit(X)
