"""Tests of skdp_anomaly.imbalanced: NoisyPriorThresholdClassifier, DPImbalancedClassifier
and the rule that chooses its strategy.

Seeds are fixed, so the tests are deterministic; each statistical assertion
states its false-failure rate over seeds. Tests that price or fit diffprivlib
models skip where it does not import; the others use scikit-learn models or a
stand-in with diffprivlib's parameters.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from _accountants import Ledger, LedgerRefused
from _diffprivlib import needs_diffprivlib
from imblearn.pipeline import Pipeline
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from skdp_anomaly import (
    DPSMOTE,
    BoundsScaler,
    DPImbalancedClassifier,
    NoisyPriorThresholdClassifier,
    PrivateLogisticRegression,
    PrivacyBudgetError,
    audit,
    check_privacy_budget,
    PrivateGridSearchCV,
)
from skdp_anomaly.imbalanced import resolve_imbalanced_strategy
from skdp_anomaly.imbalanced import PredictedPriorThresholdClassifier, _strategy, _threshold
from skdp_anomaly.imbalanced._strategy import PIPELINE_SPLIT, PRIOR_SHARE, dead_zone_free_C
from skdp_anomaly.exceptions import DPSMOTENoiseWarning
from skdp_anomaly.exceptions import PrivacyLeakWarning


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=2000, n_features=5, n_informative=3, n_redundant=0, weights=[0.9], random_state=0
    )
    return X, y


def _clf(**kw):
    kw.setdefault("random_state", 0)
    return NoisyPriorThresholdClassifier(LogisticRegression(), **kw)


# -- NoisyPriorThresholdClassifier: the decision rule --------------------------------


def test_prior_is_the_class_proportion_at_large_epsilon(data):
    # ε = 10: P(Z ≠ 0) = 2e^-10/(1+e^-10) ≈ 9e-5 per class, P(|Z| ≥ 5) ≈ 2e^-50; the
    # tolerance 0.003 (6 records in 2000) fails only if |Z| ≥ 3 for a class: false-
    # failure rate < 2·2e^-30 ≈ 2e-13
    X, y = data
    clf = _clf(epsilon=10.0).fit(X, y)
    truth = np.bincount(y) / len(y)
    np.testing.assert_allclose(clf.class_prior_, truth, atol=0.003)
    assert clf.class_prior_.sum() == pytest.approx(1.0)
    assert clf.noisy_class_counts_.dtype.kind == "i"
    np.testing.assert_array_equal(clf.classes_, [0, 1])


def test_prior_is_noisy_at_small_epsilon(data):
    # ε = 0.05: the noisy counts differ from the true ones in most fits (P(Z = 0)
    # = (1-a)/(1+a) ≈ 0.025 per class; all 10 seeds exact for class 1: 1e-16)
    X, y = data
    truth = np.bincount(y)
    exact = sum(
        int(_clf(epsilon=0.05, random_state=s).fit(X, y).noisy_class_counts_[1] == truth[1])
        for s in range(10)
    )
    assert exact < 10


def test_predict_is_argmax_of_proba_over_prior(data):
    X, y = data
    clf = _clf(epsilon=1.0).fit(X, y)
    proba = clf.predict_proba(X)
    expect = clf.classes_[np.argmax(proba / clf.class_prior_, axis=1)]
    np.testing.assert_array_equal(clf.predict(X), expect)
    # binary: the threshold P(1 | x) > π̂(1), rows at an exact tie left out
    pi1 = clf.class_prior_[1]
    away = ~np.isclose(proba[:, 1], pi1)
    assert away.sum() > 1990
    np.testing.assert_array_equal(clf.predict(X)[away], (proba[:, 1] > pi1)[away].astype(int))
    # and it finds more of the minority than the plain classifier (threshold 0.5)
    plain = LogisticRegression().fit(X, y).predict(X)
    assert clf.predict(X)[y == 1].mean() > plain[y == 1].mean() + 0.05


def test_multiclass_prior_division():
    X, y = make_classification(
        n_samples=1500,
        n_features=6,
        n_informative=4,
        n_classes=3,
        weights=[0.7, 0.2],
        random_state=1,
    )
    clf = _clf(epsilon=2.0).fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(proba / clf.class_prior_, axis=1))
    assert clf.class_prior_.shape == (3,)


def test_ranking_is_that_of_the_wrapped_estimator(data):
    X, y = data
    clf = _clf(epsilon=0.5).fit(X, y)
    plain = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(X), plain.predict_proba(X))
    assert roc_auc_score(y, clf.predict_proba(X)[:, 1]) == roc_auc_score(
        y, plain.predict_proba(X)[:, 1]
    )


def test_string_labels_and_classes_parameter(data):
    X, y = data
    labels = np.array(["neg", "pos"])[y]
    clf = _clf(classes=["pos", "neg", "rare"]).fit(X, labels)
    # the public label set, not the training set's: the absent label keeps its column
    np.testing.assert_array_equal(clf.classes_, ["neg", "pos", "rare"])
    assert clf.noisy_class_counts_.shape == clf.class_prior_.shape == (3,)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 3) and not proba[:, 2].any()
    assert set(clf.predict(X)) <= {"neg", "pos"}
    assert clf.privacy_assumptions() == ()
    assert "classes=None" in _clf().privacy_assumptions()[0]


def test_classes_parameter_fixes_the_label_set_whatever_y_holds(data):
    X, y = data
    y3 = np.where(X[:, 0] > 1.5, 2, y)  # a third class, present in one training set only
    assert (y3 == 2).any()
    fits = [
        _clf(classes=[0, 1, 2]).fit(X[keep], y3[keep]) for keep in (np.ones(len(y3), bool), y3 != 2)
    ]
    for clf in fits:
        np.testing.assert_array_equal(clf.classes_, [0, 1, 2])
        assert clf.predict_proba(X).shape == (len(X), 3)
        assert clf.noisy_class_counts_.shape == (3,)


@needs_diffprivlib
def test_wrapped_classifier_with_classes_is_fitted_with_the_public_set(data):
    from diffprivlib.models import DecisionTreeClassifier

    X, y = data
    tree = DecisionTreeClassifier(epsilon=1.0, bounds=(-5, 5), random_state=0)
    clf = NoisyPriorThresholdClassifier(tree, classes=[0, 1, 2], random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.estimator_.classes_, [0, 1, 2])
    assert tree.classes is None  # the parameter is not mutated
    # the budget report prices the member as it is fitted: no label-set assumption left
    report = check_privacy_budget(clf, on_leak="ignore")
    assert report.assumptions == []
    with pytest.raises(ValueError, match="'classes' parameter of 'estimator'"):
        NoisyPriorThresholdClassifier(tree.set_params(classes=[0, 1]), classes=[0, 1, 2]).fit(X, y)


@pytest.mark.parametrize(
    "classes, match",
    [
        (["a"], "at least 2"),
        ([0, 0, 1], "distinct"),
        ([[0, 1]], "1-D"),
    ],
)
def test_classes_parameter_errors_come_before_the_data(data, classes, match):
    X, y = data
    X_nan = X.copy()
    X_nan[0, 0] = np.nan  # would be the error if the data were read first
    acc = Ledger()
    with pytest.raises(ValueError, match=match):
        _clf(classes=classes, accountant=acc).fit(X_nan, y)
    assert acc.total()[0] == 0


def test_label_outside_classes_is_refused_without_naming_it(data):
    X, y = data
    y_bad = y.copy()
    y_bad[3] = 7
    acc = Ledger()
    with pytest.raises(ValueError, match="not in the 'classes' parameter") as info:
        _clf(classes=[0, 1], accountant=acc).fit(X, y_bad)
    assert "7" not in str(info.value)
    assert acc.total()[0] == 0  # refused before any budget is charged
    # labels of another type are "not in" the set too, not a numpy comparison error
    with pytest.raises(ValueError, match="not in the 'classes' parameter"):
        _clf(classes=[0, 1], accountant=acc).fit(X, np.array(["neg", "pos"])[y])
    assert acc.total()[0] == 0


@pytest.mark.parametrize(
    "kw, fit_args, match",
    [
        ({}, "one class", "at least 2 classes"),
        ({}, "nan", "NaN"),
        ({"epsilon": 0}, None, "epsilon"),
        ({"epsilon": -1.0}, None, "epsilon"),
        ({"epsilon": 31.0}, None, "epsilon"),  # exact geometric noise refuses ε/Δ > 30
    ],
)
def test_bad_input(data, kw, fit_args, match):
    X, y = data
    if fit_args == "one class":
        y = np.zeros_like(y)
    elif fit_args == "nan":
        X = X.copy()
        X[5, 2] = np.nan
    with pytest.raises(ValueError, match=match):
        _clf(**kw).fit(X, y)


def test_unfitted_predict_raises(data):
    with pytest.raises(NotFittedError):
        _clf().predict(data[0])


# -- NoisyPriorThresholdClassifier: accounting --------------------------------------


def test_accountant_is_charged_before_the_release(data, monkeypatch):
    X, y = data
    acc = Ledger()
    seen = []
    original = _threshold.GeometricMechanism.randomise

    def spy(self, values, rng):
        seen.append(acc.total()[0])
        return original(self, values, rng)

    monkeypatch.setattr(_threshold.GeometricMechanism, "randomise", spy)
    clf = _clf(epsilon=0.3, accountant=acc).fit(X, y)
    # the ledger is kept under replace-one neighbours: 2ε by group privacy
    assert seen == [pytest.approx(0.6)]
    assert acc.total()[0] == pytest.approx(0.6)
    assert clf.privacy_spent_.epsilon == pytest.approx(0.3)
    assert clf.privacy_spent_.neighbours == "add_remove"


def test_refused_budget_leaves_it_unfitted(data):
    X, y = data
    acc = Ledger(epsilon=0.1)
    clf = _clf(epsilon=0.3, accountant=acc)
    with pytest.raises(LedgerRefused):
        clf.fit(X, y)
    assert acc.total()[0] == 0
    assert not [k for k in vars(clf) if k.endswith("_")]
    with pytest.raises(NotFittedError):
        clf.predict(X)
    # a refit that is refused keeps the earlier fit, as every refused call leaves the
    # estimator as it was (two fits cost 1.2 of 1.3)
    acc = Ledger(epsilon=1.3)
    clf = _clf(epsilon=0.3, accountant=acc).fit(X, y)
    clf.fit(X, y)
    prior = clf.class_prior_.copy()
    with pytest.raises(LedgerRefused):
        clf.fit(X, y)
    np.testing.assert_array_equal(clf.class_prior_, prior)
    assert acc.total()[0] == pytest.approx(1.2)


@needs_diffprivlib
def test_privacy_cost_adds_the_wrapped_diffprivlib_model():
    from diffprivlib.models import LogisticRegression as DPLogisticRegression

    clf = NoisyPriorThresholdClassifier(
        DPLogisticRegression(epsilon=1.0, data_norm=1.5, fit_intercept=False), epsilon=0.1
    )
    cost = clf.privacy_cost()
    # add/remove ε = 0.1 counts 0.2 under replace-one neighbours, diffprivlib's relation
    assert cost.epsilon == pytest.approx(2 * 0.1 + 1.0) and cost.neighbours == "replace"
    report = check_privacy_budget(clf, 1.2)
    rows = [(s.path, s.estimator, s.epsilon, s.leak) for s in report.steps]
    assert rows == [
        ("", "NoisyPriorThresholdClassifier", pytest.approx(0.2), False),
        ("estimator", "LogisticRegression", pytest.approx(1.0), False),
    ]
    assert report.epsilon == pytest.approx(1.2) and report.leaks == []
    assert any("class sizes" in note for note in report.cost.notes)
    with pytest.raises(Exception, match="budget"):
        check_privacy_budget(clf, 1.1)


def test_privacy_cost_with_a_non_private_model_is_an_error():
    clf = NoisyPriorThresholdClassifier(LogisticRegression(), epsilon=0.1)
    with pytest.raises(ValueError, match="without differential privacy"):
        clf.privacy_cost()
    report = check_privacy_budget(clf, on_leak="ignore")
    assert [s.path for s in report.steps if s.leak] == ["estimator"]
    with pytest.raises(ValueError, match="epsilon"):
        NoisyPriorThresholdClassifier(LogisticRegression(), epsilon=0).privacy_cost()


@pytest.mark.slow
def test_audit_of_the_class_size_release():
    # Add/remove one minority record; the release is the noisy size of class 1 (the
    # prior is post-processing of it). Two-sided geometric at ε = 1: the event "noisy
    # size >= n1 + 1" has probabilities 1/(1+a) and a/(1+a), ratio e^ε exactly, so the
    # bound must be <= ε and, with 4000 fits per input, >= 0.8 ε (expected ≈ 0.9 ε).
    eps, n1 = 1.0, 10
    X = np.r_[np.zeros((30, 2)), np.ones((n1, 2))]
    y = np.r_[np.zeros(30, int), np.ones(n1, int)]
    plus = (np.r_[X, [[1.0, 1.0]]], np.r_[y, [1]])

    def mech(data, rng):
        clf = NoisyPriorThresholdClassifier(
            DummyClassifier(strategy="prior"), epsilon=eps, random_state=int(rng.integers(2**31))
        )
        return clf.fit(*data).noisy_class_counts_[1]

    events = {"size1 >= n1+1": lambda o: o >= n1 + 1, "size1 >= n1+2": lambda o: o >= n1 + 2}
    res = audit(
        mech,
        ((X, y), plus),
        events,
        n_runs=4000,
        claimed_epsilon=eps,
        random_state=0,
        name="NoisyPriorThresholdClassifier class sizes",
    )
    assert res.epsilon_lower_bound <= eps, res.to_markdown()
    assert res.epsilon_lower_bound >= 0.8 * eps, res.to_markdown()


# -- PredictedPriorThresholdClassifier ----------------------------------------------------


class _FirstFeature(ClassifierMixin, BaseEstimator):
    """P(1 | x) = x₀ clipped to [0, 1]: reads no data at fit (the worst case of the audit)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p = np.clip(np.asarray(X)[:, 0], 0.0, 1.0)
        return np.c_[1.0 - p, p]


def test_predicted_prior_is_the_mean_prediction_and_the_cut_divides_by_it(data):
    X, y = data
    inner = PrivateLogisticRegression(epsilon=1.0, data_norm=4.0, random_state=0)
    clf = PredictedPriorThresholdClassifier(inner, epsilon=1.0, random_state=0).fit(X, y)
    mean = clf.estimator_.predict_proba(X)[:, 1].sum()
    # one discrete Laplace draw of scale ≈ 1: |noise| < 20 fails with probability e^-20
    assert abs(clf.noisy_prediction_sums_[1] - mean) < 20
    assert clf.noisy_prediction_sums_.sum() == pytest.approx(len(y))
    np.testing.assert_allclose(clf.class_prior_, clf.noisy_prediction_sums_ / len(y))
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(proba / clf.class_prior_, axis=1))
    assert clf.privacy_cost().epsilon == pytest.approx(2.0)
    assert clf.own_privacy_cost().neighbours == "replace"
    assert not hasattr(clf, "noisy_class_counts_")


def test_predicted_prior_floors_at_the_noise_scale_and_handles_three_classes():
    X = np.r_[np.zeros((50, 1)), np.full((3, 1), 0.5)]
    y = np.r_[np.zeros(50, int), np.ones(3, int)]
    # ε = 0.01: noise of scale ≈ 100 on a sum of 1.5; the prior is never below 25/53
    for seed in range(20):
        clf = PredictedPriorThresholdClassifier(
            _FirstFeature(), epsilon=0.01, random_state=seed
        ).fit(X, y)
        assert 25 / 53 - 1e-12 <= clf.class_prior_[1] <= 28 / 53 + 1e-12
    X3, y3 = make_classification(600, n_classes=3, n_informative=3, random_state=0)
    clf = PredictedPriorThresholdClassifier(
        LogisticRegression(), epsilon=5.0, classes=[0, 1, 2], random_state=0
    ).fit(X3, y3)
    assert clf.class_prior_.shape == (3,) and clf.class_prior_.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(clf.class_prior_, [1 / 3] * 3, atol=0.03)


@pytest.mark.slow
def test_audit_of_the_mean_prediction_release():
    # Replace one row of P(1|x) = 0 by one of P(1|x) = 1: the sum moves by 1, its
    # sensitivity. Discrete Laplace of scale ≈ 1/ε on a 2^-21 grid: the event
    # "ŝ₁ >= S + 1" has probabilities ≈ e^-ε/2 and ≈ 1/2, ratio e^ε up to the grid's
    # 2^-21, so the bound must be <= ε and, with 4000 fits per input, >= 0.8 ε.
    eps, n1 = 1.0, 10
    X = np.r_[np.zeros((30, 1)), np.ones((n1, 1))]
    y = np.r_[np.zeros(30, int), np.ones(n1, int)]
    swapped = (np.r_[X[1:], [[1.0]]], np.r_[y[1:], [0]])

    def mech(data, rng):
        clf = PredictedPriorThresholdClassifier(
            _FirstFeature(), epsilon=eps, random_state=int(rng.integers(2**31))
        )
        return clf.fit(*data).noisy_prediction_sums_[1]

    events = {"s1 >= n1+1": lambda o: o >= n1 + 1, "s1 >= n1+2": lambda o: o >= n1 + 2}
    res = audit(
        mech,
        ((X, y), swapped),
        events,
        n_runs=4000,
        claimed_epsilon=eps,
        random_state=0,
        name="PredictedPriorThresholdClassifier mean predictions",
    )
    assert res.epsilon_lower_bound <= eps, res.to_markdown()
    assert res.epsilon_lower_bound >= 0.8 * eps, res.to_markdown()


# -- DPImbalancedClassifier ---------------------------------------------------------------


BOX8 = ([-1.0] * 8, [1.0] * 8)  # d = 8


@pytest.fixture(scope="module")
def raw():
    """Imbalanced data on a raw scale: features in about [0, 100], 10 % minority, d = 5."""
    X, y = make_classification(
        n_samples=2000, n_features=5, n_informative=3, n_redundant=0, weights=[0.9], random_state=0
    )
    return np.clip(12.5 * X + 50, 0, 100), y


def _gmean(y, pred):
    return np.sqrt(np.mean(pred[y == 1] == 1) * np.mean(pred[y == 0] == 0))


def test_scalar_bounds_scale_raw_features(raw):
    X, y = raw
    clf = DPImbalancedClassifier(epsilon=5.0, bounds=(0, 100), random_state=0).fit(X, y)
    lower, upper = clf.bounds_
    assert lower.tolist() == [0.0] * 5 and upper.tolist() == [100.0] * 5
    assert isinstance(clf.model_.named_steps["scaler"], BoundsScaler)
    # the same bounds written per feature build the same model, with the same noise
    per = DPImbalancedClassifier(epsilon=5.0, bounds=([0] * 5, [100] * 5), random_state=0)
    np.testing.assert_array_equal(per.fit(X, y).predict_proba(X), clf.predict_proba(X))
    # seeded (deterministic): G-mean 0.66 and ROC-AUC 0.73 with this seed; the non-private
    # ROC-AUC of this set is 0.744
    assert _gmean(y, clf.predict(X)) > 0.5
    assert roc_auc_score(y, clf.predict_proba(X)[:, 1]) > 0.65


def test_dataframe_and_string_labels_without_warnings(raw):
    X, y = raw
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    labels = np.where(y == 1, "fraud", "normal")
    clf = DPImbalancedClassifier(epsilon=2.0, bounds=(0, 100), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(df, labels)
        pred, proba = clf.predict(df), clf.predict_proba(df)
    assert clf.classes_.tolist() == ["fraud", "normal"]
    assert clf.feature_names_in_.tolist() == list(df.columns) and clf.n_features_in_ == 5
    assert set(pred) <= {"fraud", "normal"} and proba.shape == (len(df), 2)
    # the model works on label codes, the index of each label in classes_
    inner = clf.model_
    np.testing.assert_array_equal(proba, inner.predict_proba(df.to_numpy()))
    np.testing.assert_array_equal(pred, clf.classes_[inner.predict(df.to_numpy())])
    assert inner.classes_.tolist() == [0, 1]
    with pytest.warns(UserWarning, match="feature names"):
        clf.predict(X)  # fitted with names, called without: scikit-learn's own warning


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 5.0, 20.0])
def test_one_type_at_every_epsilon(raw, epsilon):
    X, y = raw
    clf = DPImbalancedClassifier(epsilon=epsilon, bounds=(0, 100), random_state=0)
    assert type(clf.fit(X, y)) is DPImbalancedClassifier
    assert clf.strategy_ == resolve_imbalanced_strategy(epsilon, 5, 2000)
    assert type(clf.model_) is Pipeline
    assert list(clf.model_.named_steps)[0] == "scaler"
    assert clf.privacy_spent_.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert clf.privacy_spent_.neighbours == "replace"


@pytest.mark.parametrize("strategy", ["auto", "oversample", "threshold"])
@pytest.mark.parametrize("epsilon", [0.5, 2.9, 10.0])
def test_check_privacy_budget_is_exactly_epsilon(strategy, epsilon):
    clf = DPImbalancedClassifier(epsilon=epsilon, bounds=(-1, 1), strategy=strategy)
    report = check_privacy_budget(clf, epsilon)  # raises if over budget or leaking
    assert report.cost.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert report.cost.delta == 0 and report.leaks == [] and report.neighbours == "replace"
    assert clf.privacy_cost().epsilon == pytest.approx(epsilon, rel=1e-12)
    with pytest.raises(PrivacyBudgetError):
        check_privacy_budget(clf, 0.99 * epsilon)
    # per step under replace-one: DPSMOTE 2·0.25ε + LR 0.5ε; LR 0.85ε + mean predictions 0.15ε
    branch = "threshold" if strategy == "auto" else strategy  # auto, unfitted: priced so
    shares = {"oversample": [0.5, 0.5], "threshold": [0.15, 0.85]}[branch]
    priced = [s.epsilon for s in report.steps if s.epsilon > 0]
    assert priced == [pytest.approx(f * epsilon) for f in shares]


@pytest.mark.parametrize(
    "epsilon, n_features, n_samples, expected",
    [
        (1.0, 8, 2000, "threshold"),
        (0.25, 30, 600, "oversample"),
        (0.5, 30, 600, "threshold"),
        (1.0, 10, 79, "oversample"),
        (1.0, 10, 80, "threshold"),  # ε·n/d = 8: threshold
        (0.0319, 8, 2000, "oversample"),
        (0.032, 8, 2000, "threshold"),
        (0.25, 36, 1000, "oversample"),
        (0.5, 36, 1000, "threshold"),
        (0.5, 50, 600, "oversample"),
        (0.5, 51, 600, "threshold"),  # at most 50 features
        (1.0, 1617, 3076, "threshold"),
    ],
)
def test_resolve_strategy_is_the_eps_n_over_d_rule(epsilon, n_features, n_samples, expected):
    assert resolve_imbalanced_strategy(epsilon, n_features, n_samples) == expected
    assert (
        resolve_imbalanced_strategy(np.float64(epsilon), np.int64(n_features), np.int64(n_samples))
        == expected
    )


def test_resolve_strategy_reads_the_module_constant(monkeypatch):
    assert _strategy.OVERSAMPLE_MAX_EPS_N_PER_D == 8.0
    monkeypatch.setattr(_strategy, "OVERSAMPLE_MAX_EPS_N_PER_D", 1000.0)
    assert resolve_imbalanced_strategy(1.0, 8, 2000) == "oversample"  # 250 < 1000


@pytest.mark.parametrize(
    "args, match",
    [
        ((1.0, 0, 10), "n_features"),
        ((1.0, 2.5, 10), "n_features"),
        ((1.0, True, 10), "n_features"),
        ((1.0, 8, 0), "n_samples"),
        ((1.0, 8, 10.0), "n_samples"),
        ((0.0, 8, 10), "epsilon"),
        ((float("inf"), 8, 10), "epsilon"),
    ],
)
def test_resolve_strategy_errors(args, match):
    with pytest.raises(ValueError, match=match):
        resolve_imbalanced_strategy(*args)


def test_auto_oversamples_a_small_set_at_a_small_epsilon(raw):
    X, y = raw  # 2000 rows, d = 5: ε·n/d < 8 needs n < 80 at ε = 0.5
    clf = DPImbalancedClassifier(epsilon=0.5, bounds=(0, 100), random_state=0)
    idx = np.r_[np.flatnonzero(y == 1)[:15], np.flatnonzero(y == 0)[:60]]
    with warnings.catch_warnings():
        # 15 minority rows at ε = 0.125: DPSMOTE says its class mean is mostly noise
        warnings.simplefilter("ignore", DPSMOTENoiseWarning)
        assert clf.fit(X[idx], y[idx]).strategy_ == "oversample"
    assert list(clf.model_.named_steps) == ["scaler", "dpsmote", "classifier"]
    assert clf.fit(X, y).strategy_ == "threshold"


def test_strategy_is_resolved_at_fit_from_epsilon_and_d(raw):
    X, y = raw
    for epsilon in (0.5, 3.0, 20.0):
        auto = DPImbalancedClassifier(epsilon=epsilon, bounds=(0, 100), random_state=0)
        assert auto.fit(X, y).strategy_ == resolve_imbalanced_strategy(epsilon, 5, 2000)
        for forced in ("oversample", "threshold"):
            clf = DPImbalancedClassifier(
                epsilon=epsilon, bounds=(0, 100), strategy=forced, random_state=0
            ).fit(X, y)
            assert clf.strategy_ == forced
            steps = {
                "oversample": ["scaler", "dpsmote", "classifier"],
                "threshold": ["scaler", "classifier"],
            }[forced]
            assert list(clf.model_.named_steps) == steps


def test_the_shares_and_the_box_the_private_steps_are_given(raw):
    X, y = raw
    over = DPImbalancedClassifier(
        epsilon=2.0, bounds=(0, 100), strategy="oversample", random_state=0
    ).fit(X, y)
    sampler, inner = over.model_.named_steps["dpsmote"], over.model_.named_steps["classifier"]
    assert isinstance(sampler, DPSMOTE) and sampler.epsilon == pytest.approx(0.25 * 2.0)
    assert sampler.bounds == (-1.0, 1.0) and PIPELINE_SPLIT == 0.25
    assert isinstance(inner, PrivateLogisticRegression) and inner.epsilon == pytest.approx(1.0)
    assert inner.data_norm == pytest.approx(np.sqrt(5))  # the norm of the box [-1, 1]^5
    thr = DPImbalancedClassifier(
        epsilon=2.0, bounds=(0, 100), strategy="threshold", random_state=0
    ).fit(X, y)
    prior = thr.model_.named_steps["classifier"]
    assert isinstance(prior, PredictedPriorThresholdClassifier) and PRIOR_SHARE == 0.15
    assert prior.epsilon == pytest.approx(0.3) and prior.estimator_.epsilon == pytest.approx(1.7)
    # independent int child seeds
    seeds = {sampler.random_state, inner.random_state}
    assert len(seeds) == 2 and all(isinstance(s, int) for s in seeds)


def test_user_settings_of_the_classifier_are_kept():
    user = PrivateLogisticRegression(C=0.5, data_norm=3.0, epsilon=9.0)
    clf = DPImbalancedClassifier(user, epsilon=1.0, bounds=(-1, 1), strategy="threshold")
    inner = clf.privacy_children()[0][1].named_steps["classifier"].estimator
    assert inner is not user and user.epsilon == 9.0  # a clone; the argument is untouched
    assert inner.C == 0.5 and inner.data_norm == 3.0 and inner.epsilon == pytest.approx(0.85)
    assert clf.set_params(classifier__C=0.1).classifier.C == 0.1
    assert check_privacy_budget(clf, 1.0).cost.epsilon == pytest.approx(1.0)


def test_clone_and_refit(raw):
    X, y = raw
    clf = DPImbalancedClassifier(epsilon=1.0, bounds=(0, 100), random_state=3)
    fitted = clf.fit(X, y)
    copy = clone(fitted)
    assert copy.get_params() == clf.get_params() and not hasattr(copy, "model_")
    with pytest.raises(NotFittedError):
        copy.predict(X)
    # same seed, same model; a refit at another ε resolves its strategy afresh
    np.testing.assert_array_equal(copy.fit(X, y).predict_proba(X), fitted.predict_proba(X))
    fitted.set_params(epsilon=20.0).fit(X, y)
    assert fitted.strategy_ == resolve_imbalanced_strategy(20.0, 5, 2000)
    assert fitted.privacy_spent_.epsilon == pytest.approx(20.0)


def test_accountant_is_charged_the_whole_cost_once(raw):
    X, y = raw
    acc = Ledger()
    clf = DPImbalancedClassifier(epsilon=2.0, bounds=(0, 100), accountant=acc, random_state=0).fit(
        X, y
    )
    assert acc.total()[0] == pytest.approx(2.0)
    assert clf.privacy_spent_.epsilon == pytest.approx(2.0)
    refused = DPImbalancedClassifier(epsilon=2.0, bounds=(0, 100), accountant=Ledger(1.0))
    with pytest.raises(LedgerRefused):
        refused.fit(X, y)
    assert not [k for k in vars(refused) if k.endswith("_")]


def test_none_bounds_are_read_from_the_data_with_a_leak_warning(raw):
    X, y = raw
    clf = DPImbalancedClassifier(epsilon=1.0, random_state=0)
    leaks = check_privacy_budget(clf, 1.0, on_leak="ignore").leaks
    assert len(leaks) == 1 and "model__scaler: BoundsScaler has bounds=None" in leaks[0]
    assert clf.privacy_cost().epsilon == pytest.approx(1.0)  # the price of its releases
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        clf.fit(X, y)
    assert clf.bounds is None and clf.bounds_[1].shape == (5,)


@pytest.mark.parametrize(
    "kw, fit_X, match",
    [
        (dict(epsilon=0.0), None, "'epsilon' parameter"),
        (dict(epsilon=-1.0), None, "'epsilon' parameter"),
        (dict(bounds=(1, 1)), None, "lower must be < upper"),
        (dict(bounds=(100, 0)), None, "lower must be < upper"),
        (dict(bounds=(np.nan, 100)), None, "bounds: lower bound must be finite"),
        (dict(bounds=(0, 1, 2)), None, "'bounds' parameter must be a \\(lower, upper\\) pair"),
        (dict(bounds=([0] * 3, [100] * 3)), "fit", "'bounds' parameter has 3 values"),
        (dict(strategy="smote"), None, "'strategy' parameter"),
        (dict(classifier=LogisticRegression()), None, "'classifier' parameter.*'epsilon'"),
        # one range, [1e-6, 30], named by the class the user built
        (
            dict(epsilon=50.0),
            None,
            "'epsilon' parameter of DPImbalancedClassifier must be a "
            "float in the range \\[1e-06, 30.0\\]",
        ),
        # the mean predictions at 0.15 ε = 6e-7 are below every mechanism's floor of 1e-6;
        # the message names no internal step
        (
            dict(epsilon=4e-6),
            None,
            "'epsilon' parameter of DPImbalancedClassifier \\(4e-06\\) "
            "is too small for strategy='auto'",
        ),
        (dict(), "nan", "NaN"),
    ],
)
def test_bad_input_is_refused_by_name_before_any_charge(raw, kw, fit_X, match):
    X, y = raw
    if fit_X == "nan":
        X = X.copy()
        X[3, 2] = np.nan
    acc = Ledger()
    kw = {"epsilon": 1.0, "bounds": (0, 100), "accountant": acc, **kw}
    clf = DPImbalancedClassifier(**kw)
    if fit_X is None:  # from the parameters alone
        with pytest.raises(ValueError, match=match):
            clf.privacy_cost()
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y)
    assert acc.total()[0] == 0 and not [k for k in vars(clf) if k.endswith("_")]


@needs_diffprivlib
def test_diffprivlib_classifier_is_given_its_proven_share(raw):
    from diffprivlib.models import LogisticRegression as DPLogisticRegression

    X, y = raw
    clf = DPImbalancedClassifier(
        DPLogisticRegression(fit_intercept=False),
        epsilon=2.0,
        bounds=([0] * 5, [100] * 5),
        strategy="oversample",
        random_state=0,
    )
    inner = clf.privacy_children()[0][1].named_steps["classifier"]
    assert inner.data_norm == pytest.approx(np.sqrt(5))
    assert inner.C == pytest.approx(dead_zone_free_C(1.0, np.sqrt(5)))
    assert check_privacy_budget(clf, 2.0).cost.epsilon == pytest.approx(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diffprivlib's and scipy's own warnings
        assert clf.fit(X, y).predict(X).shape == y.shape
    assert clf.privacy_spent_.epsilon == pytest.approx(2.0)


def test_dead_zone_free_C_keeps_half_of_epsilon_for_the_noise():
    # diffprivlib's objective perturbation keeps ε' = ε − 2 log(1 + R·C/4) for its noise
    # (R = data_norm: no intercept, its only DP setting); the proof charges log(1 + R²C/4)
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0, 10.0):
        for norm in (1.0, np.sqrt(8), np.sqrt(36), np.sqrt(1617)):
            C = dead_zone_free_C(eps, norm)
            R = norm
            assert 0 < C <= 1
            assert eps - 2 * np.log1p(R * C / 4) >= eps / 2 - 1e-12
            assert np.log1p(R * R * C / 4) <= eps / 2 + 1e-12
            if C < 1:  # the largest C that keeps both terms within ε/2
                assert max(2 * np.log1p(R * C / 4), np.log1p(R * R * C / 4)) == pytest.approx(
                    eps / 2
                )


def test_diffprivlib_logistic_regression_is_priced_at_what_its_noise_proves():
    from skdp_anomaly.privacy._diffprivlib import (
        diffprivlib_logistic_epsilon,
        diffprivlib_logistic_settings,
    )

    # R = √37, C = 1, ε = 2: diffprivlib's noise gets 2 − 2 log(1 + R/4) = 0.152, the
    # Jacobian term is log(1 + 37/4) = 2.327 (an exact density ratio of 2.30 was measured)
    assert diffprivlib_logistic_epsilon(2.0, 6.0, 1.0) == pytest.approx(
        2.0 - 2 * np.log1p(np.sqrt(37) / 4) + np.log1p(37 / 4)
    )
    # small rows: diffprivlib over-charges, and the price is its own ε
    assert diffprivlib_logistic_epsilon(2.0, 1.0, 1.0, fit_intercept=False) == 2.0
    # three classes: three one-vs-rest fits at ε/3, each priced
    three = diffprivlib_logistic_epsilon(3.0, 6.0, 0.1, n_classes=3)
    assert three == pytest.approx(3 * diffprivlib_logistic_epsilon(1.0, 6.0, 0.1) or 3.0)
    for eps in (0.1, 1.0, 10.0):
        for norm in (0.5, 2.0, 6.0, 40.0):
            param, C = diffprivlib_logistic_settings(eps, norm)
            assert param <= eps
            assert diffprivlib_logistic_epsilon(param, norm, C) == pytest.approx(eps)


@needs_diffprivlib
def test_diffprivlib_logistic_regression_with_its_intercept_is_refused():
    # its intercept is unpenalised: not DP at any ε (tests/test_diffprivlib_intercept.py)
    from diffprivlib.models import LogisticRegression as DPLogisticRegression

    with pytest.raises(ValueError, match="'classifier' parameter.*fit_intercept=True"):
        DPImbalancedClassifier(DPLogisticRegression(), epsilon=2.0, bounds=BOX8).privacy_cost()
    report = check_privacy_budget(
        DPLogisticRegression(epsilon=2.0, data_norm=6.0), on_leak="ignore"
    )
    assert not report.is_private and any("fit_intercept=False" in x for x in report.leaks)


# ------------------------------------------------------------ public label set, searches
def _frame_with_string_labels(n=600, seed=0):
    X, y = make_classification(n, n_features=6, weights=[0.85], random_state=seed)
    X = pd.DataFrame(10 * X + 50, columns=[f"f{i}" for i in range(6)])
    return X, np.where(y == 1, "fraud", "normal")


def test_classes_fixes_the_label_set_and_drops_the_assumption():
    X, y = _frame_with_string_labels()
    clf = DPImbalancedClassifier(
        epsilon=2.0, bounds=(0, 100), classes=["normal", "fraud"], random_state=0
    )
    assert clf.privacy_assumptions() == ()
    assert check_privacy_budget(clf, 2.0).is_private
    for strategy in ("threshold", "oversample"):
        fitted = clone(clf).set_params(strategy=strategy).fit(X, y)
        assert fitted.classes_.tolist() == ["fraud", "normal"]
        assert set(fitted.predict(X)) <= {"fraud", "normal"}
    # a training part holding one label still gets both: nothing shows which it held
    one = clone(clf).fit(X[y == "normal"], y[y == "normal"])
    assert one.classes_.tolist() == ["fraud", "normal"]
    assert one.predict_proba(X).shape == (len(X), 2)


def test_a_label_outside_classes_is_refused_by_name_before_any_charge():
    X, y = _frame_with_string_labels()
    ledger = Ledger()
    clf = DPImbalancedClassifier(
        epsilon=2.0, bounds=(0, 100), classes=["normal", "other"], accountant=ledger, random_state=0
    )
    with pytest.raises(ValueError, match="'classes' parameter"):
        clf.fit(X, y)
    assert ledger.spent == []
    with pytest.raises(ValueError, match="'classes' parameter"):
        DPImbalancedClassifier(classes=["only"]).fit(X, y)


@pytest.mark.parametrize("total", [2.0, 5.0])
def test_the_private_search_tunes_it_and_spends_exactly_its_total(total):
    # the search prices a run at the dearest candidate's whole cost (the strategies'
    # pipelines differ in their steps, each costs exactly its epsilon), so the split
    # of total_epsilon fits, and with a public label set nothing is assumed
    X, y = _frame_with_string_labels()
    search = PrivateGridSearchCV(
        DPImbalancedClassifier(bounds=(0, 100), random_state=0),
        {"strategy": ["threshold", "oversample"]},
        total_epsilon=total,
        scoring="balanced_accuracy",
        classes=["normal", "fraud"],
        force_search=True,
        random_state=0,
    )
    report = check_privacy_budget(search, total)
    assert report.is_private and report.cost.epsilon == pytest.approx(total)
    search.fit(X, y)
    assert search.privacy_spent_.epsilon == pytest.approx(total)
    assert search.best_estimator_.classes_.tolist() == ["fraud", "normal"]
    assert set(search.predict(X)) <= {"fraud", "normal"}
    for scoring in (None, "accuracy"):
        spent = clone(search).set_params(scoring=scoring).fit(X, y).privacy_spent_
        assert spent.epsilon == pytest.approx(total)


def test_the_search_tunes_the_classifiers_C_and_says_how_when_it_cannot():
    X, y = _frame_with_string_labels()
    grid = {"strategy": ["threshold", "oversample"], "classifier__C": [0.1, 1.0, 10.0]}
    with pytest.raises(
        ValueError,
        match=r"'classifier' parameter is None: give it an "
        r"estimator \(e.g. classifier=PrivateLogistic",
    ):
        PrivateGridSearchCV(DPImbalancedClassifier(bounds=(0, 100)), grid, total_epsilon=2.0).fit(
            X, y
        )
    search = PrivateGridSearchCV(
        DPImbalancedClassifier(PrivateLogisticRegression(), bounds=(0, 100), random_state=0),
        grid,
        total_epsilon=2.0,
        scoring="recall",
        pos_label="fraud",
        force_search=True,
        random_state=0,
    ).fit(X, y)
    assert search.privacy_spent_.epsilon == pytest.approx(2.0)
    assert search.best_params_["classifier__C"] in ("auto", 0.1, 1.0, 10.0)
