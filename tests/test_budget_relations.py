"""The budget validator's statements must be true.

Neighbouring relation of the report (item 1), assumptions (items 4, 6, 7),
cross-validation per relation (item 5), leaks failing a budget (item 8) and
clear errors (item 9). Everything is read from parameters (and, for the
splitter demonstrations, from scikit-learn's deterministic splitters): no
test has a false-failure rate.
"""

from _diffprivlib import require_diffprivlib

require_diffprivlib()  # the whole module prices or fits diffprivlib models

import inspect
import math
import warnings

import diffprivlib.models as dp
import numpy as np
import pytest
from diffprivlib.utils import PrivacyLeakWarning
from imblearn.pipeline import Pipeline as ImbPipeline
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    PredefinedSplit,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedGroupKFold,
    StratifiedKFold,
    StratifiedShuffleSplit,
    TimeSeriesSplit,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, OrdinalEncoder
from sklearn.impute import SimpleImputer
from sklearn.random_projection import GaussianRandomProjection, SparseRandomProjection

from skdp_anomaly.budget import BudgetedPipeline, PrivacyReport, StepCost, check_privacy_budget
from skdp_anomaly.budget._validator import print_pipeline_report, validate_budget
from skdp_anomaly.exceptions import PrivacyBudgetError, PrivacyLeakError
from skdp_anomaly.budget._cv import training_memberships
from skdp_anomaly.changepoint import PrivateChangePointDetector
from skdp_anomaly.over_sampling import DPSMOTE
from skdp_anomaly.privacy import PrivacyCost

from _cost_estimators import CostSampler  # tests/_cost_estimators.py

RELATIONS = ("replace", "add_remove")
LABELS_PUBLIC = "the set of class labels is read from y and treated as public"


class CostTransformer(TransformerMixin, BaseEstimator):
    """Protocol transformer with a given cost and assumptions (identity transform)."""

    def __init__(self, cost=None, assumptions=()):
        self.cost = cost
        self.assumptions = assumptions

    def privacy_cost(self):
        return self.cost

    def privacy_assumptions(self):
        return tuple(self.assumptions)

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


class ThirdPartyCost(TransformerMixin, BaseEstimator):
    """A protocol object without privacy_assumptions (third-party)."""

    def privacy_cost(self):
        return PrivacyCost.pure(0.5, neighbours="replace")

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


def lr(epsilon=1.0):
    return dp.LogisticRegression(
        epsilon=epsilon, data_norm=1.5, fit_intercept=False, random_state=0
    )


def issue_example():
    return ImbPipeline(
        [
            ("s", DPSMOTE(epsilon=1, bounds=(0, 1), classes=[0, 1], random_state=0)),
            ("nb", dp.GaussianNB(epsilon=1, bounds=(0, 1))),
        ]
    )


def quiet(estimator, **kwargs):
    kwargs.setdefault("on_leak", "ignore")
    return check_privacy_budget(estimator, **kwargs)


# == item 1: the neighbouring relation of the report ===========================
def test_issue_example_totals_3_under_replace():
    report = quiet(issue_example(), neighbours="replace")
    assert report.neighbours == "replace" and report.cost.neighbours == "replace"
    assert report.epsilon == pytest.approx(3.0)
    assert [r.epsilon for r in report.steps] == [2.0, 1.0]
    assert report.leaks == []
    assert "add/remove ε=1 → 2 under replace-one (group privacy)" in report.steps[0].note


def test_issue_example_under_add_remove_totals_1_with_gaussiannb_leak():
    report = quiet(issue_example(), neighbours="add_remove")
    assert report.neighbours == "add_remove" and report.cost.neighbours == "add_remove"
    assert report.epsilon == pytest.approx(1.0)
    (leak,) = report.leaks
    assert leak.startswith("nb: ") and "n public" in leak and "reveal n" in leak
    assert report.steps[1].leak and math.isinf(report.steps[1].epsilon)


def test_default_relations():
    # the validator states a total under the strongest relation every step holds under;
    # a budget held over fits, and a printed report, name theirs: replace-one
    assert inspect.signature(check_privacy_budget).parameters["neighbours"].default == "auto"
    assert inspect.signature(print_pipeline_report).parameters["neighbours"].default == "replace"
    assert BudgetedPipeline([("c", lr())]).neighbours == "replace"
    assert quiet(issue_example()).neighbours == "replace"


REPLACE_ONLY = [
    dp.GaussianNB(epsilon=1.0, bounds=(0, 1)),
    lr(1.0),
    dp.LinearRegression(epsilon=1.0, bounds_X=(0, 1), bounds_y=(0, 1)),
    dp.RandomForestClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1]),
    dp.DecisionTreeClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1]),
    dp.StandardScaler(epsilon=1.0, bounds=(0, 1)),
    dp.PCA(epsilon=1.0, data_norm=1.0, centered=True),
    dp.KMeans(epsilon=1.0, bounds=(0, 1)),
    PrivateChangePointDetector(epsilon=1.0),
    CostTransformer(PrivacyCost.pure(1.0, neighbours="replace")),
]


@pytest.mark.parametrize("step", REPLACE_ONLY, ids=lambda s: type(s).__name__)
def test_replace_only_steps(step):
    report = quiet(Pipeline([("t", step)]), neighbours="replace")
    assert report.epsilon == 1.0 and not report.steps[0].leak and not report.leaks
    report = quiet(Pipeline([("t", step)]), neighbours="add_remove")
    assert report.steps[0].leak and math.isinf(report.steps[0].epsilon)
    assert any(x.startswith("t: ") and "n public" in x and "reveal n" in x for x in report.leaks)
    assert not report.is_private and not report.is_private_given_assumptions


def test_add_remove_protocol_cost_is_doubled_under_replace():
    pipe = ImbPipeline([("s", CostSampler(0.75, neighbours="add_remove")), ("clf", lr())])
    report = quiet(pipe)
    assert report.steps[0].epsilon == 1.5 and report.epsilon == pytest.approx(2.5)
    assert "add/remove ε=0.75 → 1.5 under replace-one (group privacy)" in report.steps[0].note
    assert quiet(pipe, neighbours="add_remove").steps[0].epsilon == 0.75


def test_approx_cost_converts_delta_by_group_privacy():
    step = CostTransformer(PrivacyCost.approx(1.0, 1e-6, neighbours="add_remove"))
    row = quiet(Pipeline([("t", step)]), neighbours="replace").steps[0]
    assert row.epsilon == 2.0 and row.delta == pytest.approx((1 + math.e) * 1e-6)


@pytest.mark.parametrize("neighbours", RELATIONS)
def test_every_row_and_the_total_are_stated_under_the_report_relation(neighbours):
    pipe = ImbPipeline(
        [
            ("none", "passthrough"),
            ("f", FunctionTransformer()),
            ("s", CostSampler(0.5, neighbours="add_remove")),
            ("sk", SkLogisticRegression()),
            ("nb", dp.GaussianNB(epsilon=1, bounds=(0, 1))),
        ]
    )
    for est in (pipe, GridSearchCV(pipe, {"s__epsilon": [0.5, 1]}, cv=KFold(3))):
        report = quiet(est, neighbours=neighbours)
        assert {r.cost.neighbours for r in report.steps} == {neighbours}
        assert report.cost.neighbours == neighbours


def test_cost_without_conversion_is_a_leak_under_replace():
    step = CostTransformer(PrivacyCost.anomaly_restricted_dp(1.0, neighbours="add_remove"))
    report = quiet(Pipeline([("t", step)]), neighbours="replace")
    assert report.steps[0].leak
    assert any("no group-privacy conversion" in leak for leak in report.leaks)
    assert quiet(Pipeline([("t", step)]), neighbours="add_remove").epsilon == 1.0


@pytest.mark.parametrize("neighbours", RELATIONS)
def test_non_private_learner_is_infinite_in_the_report_relation(neighbours):
    row = quiet(SkLogisticRegression(), neighbours=neighbours).steps[0]
    assert row.leak and math.isinf(row.epsilon) and row.cost.neighbours == neighbours


def test_report_header_repr_and_field():
    report = quiet(issue_example())
    first = report.to_markdown().splitlines()[0]
    assert first == (
        "Privacy report of Pipeline under replace-one-record neighbours (datasets of equal "
        "size n that differ in one record; n is public)"
    )
    assert "neighbours='replace'" in repr(report)
    text = quiet(issue_example(), neighbours="add_remove").to_markdown()
    assert text.splitlines()[0].startswith("Privacy report of Pipeline under add/remove-one")
    assert "n is protected" in text.splitlines()[0]


def test_report_built_by_hand_states_its_relation():
    step = StepCost("a", "A", PrivacyCost(1.0, neighbours="add_remove"))
    report = PrivacyReport("P", [step], neighbours="add_remove")
    assert report.cost.neighbours == "add_remove"
    with pytest.raises(ValueError, match="neighbours"):
        PrivacyReport("P", [step], neighbours="sideways")
    with pytest.raises(ValueError, match="neighbouring relation|n exactly|implies nothing"):
        PrivacyReport(
            "P",
            [StepCost("a", "A", PrivacyCost(1.0, neighbours="replace"))],
            neighbours="add_remove",
        )


def test_invalid_neighbours_rejected():
    with pytest.raises(ValueError, match="'neighbours' parameter"):
        check_privacy_budget(issue_example(), neighbours="swap")
    with pytest.raises(ValueError, match="neighbours"):
        BudgetedPipeline([("c", lr())], neighbours="swap").fit(np.zeros((4, 2)), [0, 1, 0, 1])


def test_validate_budget_in_the_report_relation():
    assert validate_budget(2.0).neighbours == "replace"
    assert validate_budget((1.0, 1e-6), neighbours="add_remove").neighbours == "add_remove"
    same = PrivacyCost(1.0, neighbours="add_remove")
    assert validate_budget(same, neighbours="add_remove") == same
    for budget, relation in [
        (PrivacyCost(4.0, neighbours="add_remove"), "replace"),
        (PrivacyCost(4.0, neighbours="replace"), "add_remove"),
    ]:
        with pytest.raises(ValueError, match="'budget' parameter is stated under"):
            validate_budget(budget, neighbours=relation)
    with pytest.raises(ValueError, match="'budget' parameter is stated under"):
        check_privacy_budget(issue_example(), PrivacyCost(4.0, neighbours="add_remove"))


def test_budget_is_checked_in_the_report_relation():
    assert check_privacy_budget(issue_example(), 3.0, on_leak="ignore").within_budget
    with pytest.raises(PrivacyBudgetError, match="budget"):
        check_privacy_budget(issue_example(), 2.5, on_leak="ignore")
    report = check_privacy_budget(issue_example(), 1.0, neighbours="add_remove", on_leak="ignore")
    assert report.within_budget and report.budget.neighbours == "add_remove"


# 40 rows on purpose (the test is about the report): the noisy grid may dominate
@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.DPSMOTENoiseWarning")
def test_budgeted_pipeline_neighbours_parameter():
    X, y = np.random.default_rng(0).uniform(0, 1, (40, 2)), np.tile([0, 1], 20)
    pipe = BudgetedPipeline(issue_example().steps, budget=3.0)
    assert pipe.get_params()["neighbours"] == "replace"
    pipe.fit(X, y)
    assert pipe.privacy_report_.epsilon == pytest.approx(3.0)
    assert pipe.privacy_cost().neighbours == "replace"
    twin = clone(pipe).set_params(neighbours="add_remove", budget=None)
    assert twin.neighbours == "add_remove"
    with pytest.warns(PrivacyLeakWarning, match="reveal n"):
        twin.fit(X, y)
    assert twin.privacy_report_.epsilon == pytest.approx(1.0)
    assert twin.privacy_cost().neighbours == "add_remove"


def test_print_pipeline_report_names_the_relation():
    import io

    buf = io.StringIO()
    report = print_pipeline_report("x", issue_example(), neighbours="add_remove", file=buf)
    assert report.neighbours == "add_remove"
    assert "Privacy report of Pipeline under add/remove-one" in buf.getvalue()
    with pytest.raises(ValueError, match="stated under"):
        print_pipeline_report("x", report, file=io.StringIO())  # default "replace"
    print_pipeline_report("x", report, neighbours="add_remove", budget=1.0, file=buf)


# == items 4, 6, 7: assumptions ==================================================
def test_assumptions_make_is_private_false_but_not_a_leak():
    pipe = ImbPipeline(
        [
            ("s", DPSMOTE(epsilon=1, bounds=(0, 1), classes=[0, 1], class_counts="public")),
            ("clf", dp.RandomForestClassifier(epsilon=1, bounds=(0, 1), classes=[0, 1])),
        ]
    )
    report = check_privacy_budget(pipe, 5.0)  # on_leak resolves to "raise": no leak here
    assert report.leaks == []
    assert len(report.assumptions) == 1 and "class sizes" in report.assumptions[0]
    assert report.assumptions[0].startswith("s: ")
    assert not report.is_private and report.is_private_given_assumptions
    text = report.to_markdown()
    assert "the estimator satisfies" not in text
    assert "holds only if" in text and "class sizes" in text


def test_clean_no_leaks_only_without_assumptions():
    pipe = Pipeline([("t", CostTransformer(PrivacyCost.pure(1.0, neighbours="replace")))])
    report = quiet(pipe)
    assert report.is_private and report.assumptions == []
    assert "No leaks found: the estimator satisfies" in report.to_markdown()


def test_protocol_assumptions_are_read_and_third_party_may_lack_them():
    step = CostTransformer(PrivacyCost.pure(1.0, neighbours="replace"), ["rows are iid"])
    report = quiet(Pipeline([("a", step), ("b", ThirdPartyCost())]))
    assert report.assumptions == ["a: rows are iid"]
    assert report.epsilon == 1.5


@pytest.mark.parametrize(
    "clf, advice",
    [
        (dp.GaussianNB(epsilon=1, bounds=(0, 1)), False),
        (lr(), False),
        (dp.RandomForestClassifier(epsilon=1, bounds=(0, 1)), True),
        (dp.DecisionTreeClassifier(epsilon=1, bounds=(0, 1)), True),
    ],
    ids=lambda x: type(x).__name__,
)
def test_one_label_set_rule_for_every_classifier(clf, advice):
    report = check_privacy_budget(Pipeline([("clf", clf)]), 2.0)  # no leak: does not raise
    (assumption,) = report.assumptions
    assert assumption.startswith("clf: ") and LABELS_PUBLIC in assumption
    assert ("pass classes=[...]" in assumption) is advice
    assert report.leaks == [] and report.is_private_given_assumptions


@pytest.mark.parametrize("cls", [dp.RandomForestClassifier, dp.DecisionTreeClassifier])
def test_trees_with_classes_have_no_assumption_and_no_leak(cls):
    report = check_privacy_budget(cls(epsilon=1, bounds=(0, 1), classes=[0, 1]), 1.0)
    assert report.assumptions == [] and report.leaks == [] and report.is_private


def test_rbf_sampler_gamma_scale_learns_from_the_data():
    report = quiet(Pipeline([("rbf", RBFSampler(gamma="scale")), ("clf", lr())]))
    assert report.steps[0].leak and "gamma='scale'" in report.leaks[0]
    report = quiet(Pipeline([("rbf", RBFSampler(gamma=0.5)), ("clf", lr())]))
    assert not report.steps[0].leak and report.steps[0].epsilon == 0


def test_function_transformer_func_is_an_assumption_identity_is_free():
    report = quiet(Pipeline([("f", FunctionTransformer(np.log1p)), ("clf", lr())]))
    assert not report.steps[0].leak and report.steps[0].epsilon == 0
    assert any(
        a.startswith("f: ") and "maps each record on its own" in a for a in report.assumptions
    )
    report = quiet(Pipeline([("f", FunctionTransformer()), ("clf", lr())]))
    assert not any(a.startswith("f: ") for a in report.assumptions)


@pytest.mark.parametrize("cls", [GaussianRandomProjection, SparseRandomProjection])
def test_random_projection_auto_is_free_only_with_n_public(cls):
    pipe = Pipeline([("rp", cls(n_components="auto")), ("clf", lr())])
    report = quiet(pipe, neighbours="replace")
    assert not report.steps[0].leak and report.steps[0].epsilon == 0
    report = quiet(pipe, neighbours="add_remove")
    assert report.steps[0].leak
    assert any(x.startswith("rp: ") and "n_samples" in x for x in report.leaks)


def test_gaussian_process_regressor_is_a_learner_despite_its_tag():
    report = quiet(GaussianProcessRegressor())
    assert report.steps[0].leak and math.isinf(report.steps[0].epsilon)


def test_third_party_stateless_tag_is_an_assumption():
    class Stateless(TransformerMixin, BaseEstimator):
        def fit(self, X, y=None):
            return self

        def transform(self, X):
            return X

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.requires_fit = False
            return tags

    report = quiet(Pipeline([("t", Stateless()), ("clf", lr())]))
    assert report.steps[0].epsilon == 0 and not report.steps[0].leak
    assert any(a.startswith("t: ") and "requires_fit=False" in a for a in report.assumptions)


def test_simple_imputer_constant_must_keep_empty_features():
    free = SimpleImputer(strategy="constant", fill_value=0, keep_empty_features=True)
    assert not quiet(Pipeline([("i", free)])).steps[0].leak
    report = quiet(Pipeline([("i", SimpleImputer(strategy="constant", fill_value=0))]))
    assert report.steps[0].leak and "keep_empty_features" in report.leaks[0]


@pytest.mark.parametrize("cls", [OneHotEncoder, OrdinalEncoder])
def test_encoder_that_raises_on_unknown_values_at_fit_is_an_assumption(cls):
    report = quiet(Pipeline([("e", cls(categories=[[0, 1]]))]))
    (assumption,) = report.assumptions
    assert "handle_unknown='error'" in assumption and not report.steps[0].leak
    other = "ignore" if cls is OneHotEncoder else "use_encoded_value"
    kwargs = {"unknown_value": -1} if cls is OrdinalEncoder else {}
    report = quiet(Pipeline([("e", cls(categories=[[0, 1]], handle_unknown=other, **kwargs))]))
    assert report.assumptions == [] and report.is_private


# == item 5: cross-validation per relation =======================================
def fold_of_each_record(cv, X, y=None):
    fold = np.full(len(X), -1)
    for i, (_, test) in enumerate(cv.split(X, y)):
        fold[test] = i
    return fold


def test_stratified_kfold_moves_other_records_when_one_label_changes():
    """The premise of the label-dependent leak, shown on scikit-learn itself."""
    y = np.repeat([0, 1], [30, 10])
    y_neighbour = y.copy()
    y_neighbour[5] = 1  # replace record 5 by one with the other label
    X = np.zeros((40, 1))
    before = fold_of_each_record(StratifiedKFold(5), X, y)
    after = fold_of_each_record(StratifiedKFold(5), X, y_neighbour)
    others = np.delete(np.arange(40), 5)
    assert np.sum(before[others] != after[others]) > 1
    # KFold on the same pair: nobody moves (its folds depend on n and the seed only)
    for cv in (KFold(5), KFold(5, shuffle=True, random_state=0)):
        assert np.array_equal(
            fold_of_each_record(cv, X, y), fold_of_each_record(cv, X, y_neighbour)
        )


def test_kfold_moves_other_records_when_one_is_added():
    """The premise of the index-based leak under add/remove neighbours."""
    cv = KFold(5, shuffle=True, random_state=0)
    before = fold_of_each_record(cv, np.zeros((40, 1)))
    after = fold_of_each_record(cv, np.zeros((41, 1)))[:40]  # a record appended
    assert np.sum(before != after) > 1


LABEL_SPLITTERS = [
    StratifiedKFold(5),
    RepeatedStratifiedKFold(n_splits=3, n_repeats=2),
    StratifiedShuffleSplit(n_splits=4),
    StratifiedGroupKFold(4),
]


@pytest.mark.parametrize("neighbours", RELATIONS)
@pytest.mark.parametrize("cv", LABEL_SPLITTERS, ids=lambda c: type(c).__name__)
def test_label_dependent_splitters_leak(cv, neighbours):
    fold = training_memberships(cv, neighbours=neighbours)
    assert fold.leak and type(cv).__name__ in fold.leak and "KFold(" in fold.leak
    assert "GroupKFold" in fold.leak
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [1.0]}, cv=cv)
    report = quiet(search, neighbours=neighbours)
    assert any(type(cv).__name__ in leak and "label" in leak for leak in report.leaks)


@pytest.mark.parametrize("cv", [None, 3])
def test_int_cv_with_a_classifier_is_stratified_hence_a_leak(cv):
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [1.0]}, cv=cv)
    report = quiet(search)
    assert any("StratifiedKFold" in leak and "check_cv" in leak for leak in report.leaks)
    # a regressor gets KFold: proven under replace
    reg = dp.LinearRegression(epsilon=1.0, bounds_X=(0, 1), bounds_y=(0, 1))
    report = quiet(GridSearchCV(reg, {"epsilon": [1.0]}, cv=cv))
    assert not any("fold" in leak.lower() for leak in report.leaks)
    assert report.epsilon == pytest.approx((4 if cv is None else 2) + 1)


INDEX_SPLITTERS = [
    KFold(5),
    KFold(4, shuffle=True, random_state=0),
    RepeatedKFold(n_splits=3, n_repeats=2),
    ShuffleSplit(n_splits=3),
    TimeSeriesSplit(3),
    [(np.array([0, 1]), np.array([2])), (np.array([1, 2]), np.array([0]))],
]
GROUP_SPLITTERS = [GroupKFold(4), GroupShuffleSplit(n_splits=3), LeaveOneGroupOut()]


@pytest.mark.parametrize("cv", INDEX_SPLITTERS + GROUP_SPLITTERS, ids=lambda c: type(c).__name__)
def test_position_based_splitters_proven_under_replace_leak_under_add_remove(cv):
    fold = training_memberships(cv, neighbours="replace")
    assert fold.leak is None and "proven under replace-one" in fold.note
    fold = training_memberships(cv, neighbours="add_remove")
    assert fold.leak and "added" in fold.leak and "PredefinedSplit" in fold.leak


@pytest.mark.parametrize("cv", GROUP_SPLITTERS, ids=lambda c: type(c).__name__)
def test_group_splitters_rest_on_public_groups(cv):
    fold = training_memberships(cv, neighbours="replace")
    assert "groups are a public key of each record" in fold.assumption
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [1.0]}, cv=cv)
    assert any("groups are a public key" in a for a in quiet(search).assumptions)


@pytest.mark.parametrize("neighbours", RELATIONS)
def test_predefined_split_is_proven_under_both_relations(neighbours):
    fold = training_memberships(PredefinedSplit([0, 0, 1, 1, 2, 2]), neighbours=neighbours)
    assert fold.memberships == 2 and fold.leak is None and fold.assumption is None


def test_no_blanket_fold_assumption():
    import skdp_anomaly.budget._cv as cv_module

    assert not hasattr(cv_module, "FOLD_ASSUMPTION")
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [1.0]}, cv=KFold(3))
    report = quiet(search)
    assert not any("fold accounting assumes" in n for n in report.notes)
    assert any("KFold(n_splits=3)" in n and "proven" in n for n in report.notes)


def test_issue_grid_search_with_kfold_totals_16():
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [0.5, 1, 2]}, cv=KFold(5))
    report = quiet(search)
    assert report.epsilon == pytest.approx(4 * (0.5 + 1 + 2) + 2)
    assert report.neighbours == "replace"
    assert not any("fold" in leak.lower() for leak in report.leaks)


def test_cross_validate_pricing_states_the_splitter():
    pipe = Pipeline([("clf", lr())])
    report = quiet(pipe, cv=StratifiedKFold(3))
    assert report.epsilon == 2.0 and any("StratifiedKFold" in x for x in report.leaks)
    report = quiet(pipe, cv=KFold(3), neighbours="add_remove")
    assert any("KFold" in x and "added" in x for x in report.leaks)


# == item 8: leaks fail a budget ====================================================
def leaky():
    from sklearn.preprocessing import StandardScaler

    return Pipeline([("scale", StandardScaler()), ("clf", lr())])


def test_on_leak_default_raises_with_a_budget_and_warns_without():
    assert inspect.signature(check_privacy_budget).parameters["on_leak"].default is None
    with pytest.raises(PrivacyLeakError):
        check_privacy_budget(leaky(), 5.0)
    with pytest.warns(PrivacyLeakWarning):
        check_privacy_budget(leaky())
    with pytest.warns(PrivacyLeakWarning):
        check_privacy_budget(leaky(), 5.0, on_leak="warn")


def test_budgeted_grid_search_raises_by_default():
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [1.0]}, cv=KFold(3))
    with pytest.raises(PrivacyLeakError, match="validation scores"):
        check_privacy_budget(search, 10.0)
    assert check_privacy_budget(search, 10.0, on_leak="ignore").epsilon == 3.0


def test_budgeted_pipeline_on_leak_default():
    X, y = np.random.default_rng(0).uniform(-1, 1, (40, 2)), np.tile([0, 1], 20)
    pipe = BudgetedPipeline(leaky().steps)
    assert pipe.on_leak is None
    with pytest.warns(PrivacyLeakWarning):
        pipe.fit(X, y)
    with pytest.raises(PrivacyLeakError):
        clone(pipe).set_params(budget=5.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clone(pipe).set_params(budget=5.0, on_leak="ignore").fit(X, y)


# == item 9: clear errors ==============================================================
def test_none_is_not_an_estimator():
    with pytest.raises(TypeError, match="estimator instance"):
        check_privacy_budget(None)


@pytest.mark.parametrize("cls", [DPSMOTE, dp.GaussianNB, Pipeline])
def test_a_class_is_not_an_instance(cls):
    with pytest.raises(TypeError, match=rf"pass an instance, e.g. {cls.__name__}\(\)"):
        check_privacy_budget(cls)


def test_a_class_as_a_step_names_the_step():
    with pytest.raises(TypeError, match=r"clf: .*pass an instance, e.g. GaussianNB\(\)"):
        check_privacy_budget(Pipeline([("clf", lr())]).set_params(clf=dp.GaussianNB))


@pytest.mark.parametrize(
    "step",
    [
        dp.GaussianNB(epsilon=0, bounds=(0, 1)),
        dp.LogisticRegression(epsilon=float("nan"), data_norm=1.0),
        DPSMOTE(epsilon=0, bounds=(0, 1)),
        DPSMOTE(epsilon=-1, bounds=(0, 1)),
    ],
    ids=lambda s: type(s).__name__,
)
def test_invalid_epsilon_names_the_step(step):
    with pytest.raises(ValueError, match=r"^pre__clf: .*epsilon"):
        check_privacy_budget(Pipeline([("pre", Pipeline([("clf", step)]))]))


def test_passthrough_steps_stay_free():
    pipe = Pipeline([("a", "passthrough"), ("b", None), ("clf", lr())])
    report = quiet(pipe)
    assert [r.epsilon for r in report.steps] == [0, 0, 1.0]
