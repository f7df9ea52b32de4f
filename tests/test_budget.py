"""Tests of the pipeline-aware privacy budget validator (skdp_anomaly.budget).

Everything here is deterministic (costs are read from parameters): no test has
a false-failure rate.
"""

from _diffprivlib import require_diffprivlib

require_diffprivlib()  # the whole module prices or fits diffprivlib models

import io
import math
import pickle
import warnings

import diffprivlib.models as dp
import numpy as np
import pytest
from diffprivlib.utils import PrivacyLeakWarning
from hypothesis import given, settings
from hypothesis import strategies as st
from imblearn.over_sampling import SMOTE
from imblearn.pipeline import Pipeline as ImbPipeline
from imblearn.under_sampling import RandomUnderSampler
from scipy.stats import expon, randint, uniform
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    LeaveOneOut,
    ParameterSampler,
    PredefinedSplit,
    RandomizedSearchCV,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    TimeSeriesSplit,
)
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    KBinsDiscretizer,
    Normalizer,
    OneHotEncoder,
    PolynomialFeatures,
    SplineTransformer,
)
from sklearn.preprocessing import StandardScaler as SkStandardScaler
from sklearn.random_projection import GaussianRandomProjection

from skdp_anomaly.budget import PrivacyReport, check_privacy_budget
from skdp_anomaly.budget._validator import print_pipeline_report, validate_budget
from skdp_anomaly.exceptions import PrivacyBudgetError, PrivacyLeakError
from skdp_anomaly.budget._cv import training_memberships
from skdp_anomaly.privacy import PrivacyCost

from _cost_estimators import CostSampler  # tests/_cost_estimators.py


class CostTransformer(TransformerMixin, BaseEstimator):
    """Protocol transformer with an arbitrary PrivacyCost (identity transform)."""

    def __init__(self, cost=None):
        self.cost = cost

    def privacy_cost(self):
        return self.cost if self.cost is not None else PrivacyCost(1.0, neighbours="replace")

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


class NonPrivateLearner(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        self.mean_ = np.mean(X, axis=0)
        return self

    def transform(self, X):
        return X - self.mean_


def lr(epsilon=1.0):
    return dp.LogisticRegression(
        epsilon=epsilon, data_norm=1.5, fit_intercept=False, random_state=0
    )


def dp_pipeline(sampler_eps=0.5, clf_eps=1.0):
    return ImbPipeline([("sampler", CostSampler(sampler_eps)), ("clf", lr(clf_eps))])


@pytest.fixture
def no_leak_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        yield


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(80, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(80) > 0).astype(int)
    return X, y


# -- the Done-when examples of the issue -------------------------------------
def test_imblearn_pipeline_sampler_plus_dp_classifier_costs_1_5(no_leak_warning, data):
    pipe = dp_pipeline()
    report = check_privacy_budget(pipe, budget=2.0)
    assert report.epsilon == pytest.approx(1.5)
    assert report.delta == 0
    assert report.leaks == [] and report.is_private_given_assumptions and report.within_budget
    assert report.assumptions == [
        "clf: diffprivlib LogisticRegression: the set of class labels is read from y and "
        "treated as public (LogisticRegression has no `classes` parameter)"
    ]
    assert not report.is_private  # it rests on that assumption
    assert [r.path for r in report.steps] == ["sampler", "clf"]
    assert [r.epsilon for r in report.steps] == [0.5, 1.0]
    assert report.notion == "pure ε-DP"
    pipe.fit(*data)  # the test sampler is a working imblearn sampler


@pytest.mark.parametrize(
    "bad_step, match",
    [(SMOTE(), "Theorem 3.2"), (SkStandardScaler(), "without differential privacy")],
)
def test_non_private_step_warns_leak(bad_step, match):
    pipe = ImbPipeline([("bad", bad_step), ("clf", lr())])
    with pytest.warns(PrivacyLeakWarning, match=match):
        report = check_privacy_budget(pipe)
    assert not report.is_private
    row = report.steps[0]
    assert row.leak and row.notion == "non-private" and math.isinf(row.epsilon)
    # the DP step is still accounted; the leaking row is outside the total
    assert report.epsilon == 1.0


def test_smote_leak_cites_theorem_and_dpsmote():
    pipe = ImbPipeline([("smote", SMOTE()), ("clf", lr())])
    report = check_privacy_budget(pipe, on_leak="ignore")
    (leak,) = report.leaks
    assert "Theorem 3.2" in leak and "skdp_anomaly.DPSMOTE" in leak and "clf" in leak


def test_sampler_without_dp_step_after_gets_generic_leak():
    pipe = ImbPipeline([("rus", RandomUnderSampler()), ("clf", SkLogisticRegression())])
    report = check_privacy_budget(pipe, on_leak="ignore")
    assert len(report.leaks) == 2
    assert "Theorem 3.2" not in report.leaks[0] and "DPSMOTE" in report.leaks[0]


def test_over_budget_raises():
    with pytest.raises(PrivacyBudgetError, match="budget") as info:
        check_privacy_budget(dp_pipeline(), budget=1.4)
    assert isinstance(info.value, ValueError)
    assert info.value.report.epsilon == pytest.approx(1.5)
    assert not info.value.report.within_budget


def test_budget_exactly_met_despite_float_rounding(no_leak_warning):
    step = CostTransformer(PrivacyCost(0.2, neighbours="replace"))
    pipe = ImbPipeline([("s", CostSampler(0.1)), ("t", step)])
    assert check_privacy_budget(pipe, budget=0.3).within_budget


def test_delta_budget():
    step = CostTransformer(PrivacyCost.approx(0.5, 1e-5, neighbours="replace"))
    pipe = Pipeline([("t", step), ("clf", lr())])
    assert check_privacy_budget(pipe, budget=(2.0, 1e-5)).delta == 1e-5
    with pytest.raises(PrivacyBudgetError):
        check_privacy_budget(pipe, budget=(2.0, 1e-6))
    with pytest.raises(PrivacyBudgetError):  # a float budget is pure ε: δ = 0
        check_privacy_budget(pipe, budget=2.0)


def grid_example(**kwargs):
    pipe = Pipeline([("clf", lr())])
    return GridSearchCV(pipe, {"clf__epsilon": [0.5, 1, 2]}, cv=KFold(5), **kwargs)


def test_grid_search_example_costs_16():
    with pytest.warns(PrivacyLeakWarning, match="validation scores"):
        report = check_privacy_budget(grid_example())
    assert report.epsilon == pytest.approx(16.0)  # (5-1)·3.5 + refit of the worst (2)
    paths = [r.path for r in report.steps]
    assert paths == ["estimator__clf", "best_estimator_"]
    assert report.steps[1].epsilon == 2.0


def test_grid_search_without_refit_costs_14():
    report = check_privacy_budget(grid_example(refit=False), on_leak="ignore")
    assert report.epsilon == pytest.approx(14.0)


def test_grid_search_over_budget_and_leak_raise():
    with pytest.raises(PrivacyBudgetError):
        check_privacy_budget(grid_example(), budget=15.9, on_leak="ignore")
    with pytest.raises(PrivacyLeakError) as info:
        check_privacy_budget(grid_example(), budget=16, on_leak="raise")
    assert isinstance(info.value, PrivacyBudgetError)


def test_grid_search_list_of_grids_and_structural_params():
    pipe = Pipeline([("scale", "passthrough"), ("clf", lr())])
    grid = [
        {"scale": ["passthrough", dp.StandardScaler(epsilon=0.5, bounds=(-1, 1))]},
        {"clf__epsilon": [3.0]},
    ]
    report = check_privacy_budget(GridSearchCV(pipe, grid, cv=3), on_leak="ignore")
    # candidates cost 1, 1.5, 3; 2 training folds each; refit charges 3
    assert report.epsilon == pytest.approx(2 * (1 + 1.5 + 3) + 3)


def test_grid_search_with_leaking_candidate_keeps_dp_part():
    pipe = Pipeline([("scale", "passthrough"), ("clf", lr())])
    grid = {"scale": [SkStandardScaler(), dp.StandardScaler(epsilon=0.5, bounds=(-1, 1))]}
    report = check_privacy_budget(GridSearchCV(pipe, grid, cv=3), on_leak="ignore")
    assert report.epsilon == pytest.approx(2 * (1 + 1.5) + 1.5)
    assert any(r.leak and r.path == "estimator__scale" for r in report.steps)
    assert any("StandardScaler learns" in leak for leak in report.leaks)


# -- cross-validation splitters ----------------------------------------------
@pytest.mark.parametrize(
    "cv, members",
    [
        (None, 4),
        (3, 2),
        (KFold(5), 4),
        (StratifiedKFold(4), 3),
        (GroupKFold(4), 3),
        (RepeatedKFold(n_splits=3, n_repeats=4), 8),
        (RepeatedStratifiedKFold(n_splits=4, n_repeats=2), 6),
        (ShuffleSplit(n_splits=6), 6),
        (TimeSeriesSplit(n_splits=3), 3),
        (PredefinedSplit([0, 0, 1, 1, 2, 2]), 2),
        (PredefinedSplit([0, 0, 1, 1, -1, -1]), 2),
        (PredefinedSplit([0, 1, 2, -1]), 3),
        ([(np.array([0, 1]), np.array([2])), (np.array([1, 2]), np.array([0]))], 2),
        (LeaveOneOut(), math.inf),
    ],
)
def test_training_memberships_and_search_cost(cv, members):
    assert training_memberships(cv)[0] == members
    search = GridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [0.5, 1, 2]}, cv=cv)
    report = check_privacy_budget(search, on_leak="ignore")
    assert report.epsilon == pytest.approx(members * 3.5 + 2)


@pytest.mark.parametrize(
    "cv",
    [
        KFold(5),
        KFold(4, shuffle=True, random_state=1),
        StratifiedKFold(3),
        GroupKFold(4),
        RepeatedKFold(n_splits=3, n_repeats=2, random_state=0),
        RepeatedStratifiedKFold(n_splits=2, n_repeats=3, random_state=0),
        ShuffleSplit(n_splits=5, test_size=0.5, random_state=0),
        TimeSeriesSplit(4),
        PredefinedSplit(np.repeat([0, 1, 2, -1], 10)),
    ],
)
def test_memberships_bound_actual_splits(cv):
    """The count from parameters is >= (and for k-fold-like splitters ==) the real count."""
    X = np.zeros((40, 1))
    y = np.tile([0, 1], 20)
    groups = np.repeat(np.arange(8), 5) if isinstance(cv, GroupKFold) else None
    counts = np.zeros(40, dtype=int)
    for train, _ in cv.split(X, y, groups):
        counts[train] += 1
    claimed = training_memberships(cv)[0]
    assert counts.max() <= claimed
    if not isinstance(cv, ShuffleSplit):
        assert counts.max() == claimed


def test_one_shot_iterator_is_not_consumed():
    splits = iter([(np.array([0, 1]), np.array([2])), (np.array([1, 2]), np.array([0]))])
    fold = training_memberships(splits)
    assert math.isinf(fold.memberships) and "one-shot" in fold.note
    assert len(list(splits)) == 2  # still intact for the search that owns it


def test_cross_validate_pricing(data):
    pipe = dp_pipeline()
    report = check_privacy_budget(pipe, cv=5, on_leak="ignore")
    assert report.epsilon == pytest.approx(4 * 1.5)
    assert any("validation scores" in leak for leak in report.leaks)
    assert check_privacy_budget(pipe, cv=KFold(3), on_leak="ignore").epsilon == pytest.approx(3.0)
    with pytest.raises(ValueError, match="cv"):
        check_privacy_budget(pipe, cv=1)


# -- RandomizedSearchCV ------------------------------------------------------
def test_randomized_search_int_random_state_enumerates_exactly():
    dists = {"clf__epsilon": uniform(0.5, 2.0)}
    search = RandomizedSearchCV(Pipeline([("clf", lr())]), dists, n_iter=5, cv=3, random_state=7)
    eps = [p["clf__epsilon"] for p in ParameterSampler(dists, 5, random_state=7)]
    report = check_privacy_budget(search, on_leak="ignore")
    assert report.epsilon == pytest.approx(2 * sum(eps) + max(eps))


def test_randomized_search_lists_without_seed_worst_case():
    dists = {"clf__epsilon": [0.5, 1.0, 2.0]}
    search = RandomizedSearchCV(Pipeline([("clf", lr())]), dists, n_iter=10, cv=3)
    # only 3 distinct candidates can be sampled: 3 × 2 folds × 2 + refit 2
    assert check_privacy_budget(search, on_leak="ignore").epsilon == pytest.approx(14.0)
    search.set_params(n_iter=2)
    assert check_privacy_budget(search, on_leak="ignore").epsilon == pytest.approx(2 * 2 * 2 + 2)


def test_randomized_search_bounded_distribution_worst_case():
    dists = {"clf__epsilon": uniform(0.5, 1.5), "clf__C": randint(1, 4)}
    search = RandomizedSearchCV(Pipeline([("clf", lr())]), dists, n_iter=4, cv=3)
    # upper end of the support of ε is 2.0
    assert check_privacy_budget(search, on_leak="ignore").epsilon == pytest.approx(4 * 2 * 2 + 2)


def test_randomized_search_unbounded_privacy_parameter_is_infinite():
    search = RandomizedSearchCV(
        Pipeline([("clf", lr())]), {"clf__epsilon": expon()}, n_iter=3, cv=3
    )
    report = check_privacy_budget(search, on_leak="ignore")
    assert math.isinf(report.epsilon)
    assert any("without finite support" in n for n in report.notes)
    with pytest.raises(PrivacyBudgetError):
        check_privacy_budget(search, budget=100, on_leak="ignore")


def test_randomized_search_unbounded_non_privacy_parameter_is_fine():
    search = RandomizedSearchCV(Pipeline([("clf", lr(1.0))]), {"clf__C": expon()}, n_iter=3, cv=3)
    assert check_privacy_budget(search, on_leak="ignore").epsilon == pytest.approx(3 * 2 + 1)


# -- composites ---------------------------------------------------------------
def test_nested_pipelines(no_leak_warning):
    inner = Pipeline(
        [
            ("scale", dp.StandardScaler(epsilon=0.5, bounds=(-1, 1))),
            ("pca", dp.PCA(n_components=2, epsilon=0.25, data_norm=2.0, centered=True)),
        ]
    )
    outer = ImbPipeline([("sampler", CostSampler(0.125)), ("pre", inner), ("clf", lr())])
    report = check_privacy_budget(outer)
    assert report.epsilon == pytest.approx(1.875)
    assert [r.path for r in report.steps] == [
        "sampler",
        "pre__scale",
        "pre__pca",
        "clf",
    ]


def test_feature_union_and_column_transformer_compose_sequentially(no_leak_warning):
    union = FeatureUnion(
        [
            ("scale", dp.StandardScaler(epsilon=0.5, bounds=(-1, 1))),
            ("pca", dp.PCA(n_components=1, epsilon=0.25, data_norm=2.0, centered=True)),
            ("raw", "passthrough"),
        ]
    )
    ct = ColumnTransformer(
        [
            ("a", dp.StandardScaler(epsilon=0.5, bounds=(-1, 1)), [0]),
            ("b", dp.StandardScaler(epsilon=0.75, bounds=(-1, 1)), [1]),
        ],
        remainder="passthrough",
    )
    report = check_privacy_budget(Pipeline([("u", union), ("ct", ct), ("clf", lr())]))
    # a column split does not split records: 0.5 + 0.75 for the ColumnTransformer, not max
    assert report.epsilon == pytest.approx(0.5 + 0.25 + 0.5 + 0.75 + 1.0)
    assert "ct__remainder" in [r.path for r in report.steps]
    assert any("does not split records" in n for n in report.notes)


def test_voting_members_compose_sequentially(no_leak_warning):
    from sklearn.ensemble import VotingClassifier

    vote = VotingClassifier(
        [("a", lr(0.5)), ("b", dp.GaussianNB(epsilon=0.25, bounds=(-1, 1))), ("c", "drop")]
    )
    report = check_privacy_budget(vote)
    assert report.epsilon == pytest.approx(0.75)
    assert [r.path for r in report.steps] == ["a", "b", "c"]


def test_column_transformer_with_leaking_branch():
    ct = ColumnTransformer(
        [("a", SkStandardScaler(), [0])], remainder=dp.StandardScaler(bounds=(0, 1))
    )
    report = check_privacy_budget(Pipeline([("ct", ct), ("clf", lr())]), on_leak="ignore")
    assert [r.path for r in report.steps if r.leak] == ["ct__a"]
    assert report.epsilon == pytest.approx(2.0)


@pytest.mark.parametrize(
    "step",
    [
        "passthrough",
        None,
        FunctionTransformer(np.abs),
        Normalizer(),
        Binarizer(),
        PolynomialFeatures(2),
        OneHotEncoder(categories=[[0, 1]] * 3),
        SplineTransformer(knots=np.linspace(-1, 1, 5)[:, None].repeat(3, axis=1)),
        MissingIndicator(features="all"),
        SimpleImputer(strategy="constant", fill_value=0, keep_empty_features=True),
        GaussianRandomProjection(n_components=2),
        RBFSampler(gamma=0.5),
    ],
)
def test_data_independent_steps_cost_nothing(step, no_leak_warning):
    report = check_privacy_budget(Pipeline([("t", step), ("clf", lr())]))
    assert report.steps[0].epsilon == 0 and not report.steps[0].leak
    assert report.epsilon == 1.0 and report.is_private_given_assumptions


@pytest.mark.parametrize(
    "step",
    [
        SkStandardScaler(),
        SplineTransformer(),
        MissingIndicator(),
        OneHotEncoder(),
        OneHotEncoder(categories=[[0, 1]] * 3, min_frequency=2),
        SimpleImputer(),
        SimpleImputer(strategy="constant", fill_value=0),  # keep_empty_features=False
        RBFSampler(gamma="scale"),  # the kernel width from the variance of X
        KBinsDiscretizer(),
        NonPrivateLearner(),
    ],
)
def test_data_dependent_steps_leak(step):
    with pytest.warns(PrivacyLeakWarning):
        report = check_privacy_budget(Pipeline([("t", step), ("clf", lr())]))
    assert report.steps[0].leak
    assert report.leaks and report.leaks[0].startswith("t: ")


def test_stateless_tag_of_unknown_classes_is_an_assumption(no_leak_warning):
    class Stateless(NonPrivateLearner):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.requires_fit = False
            return tags

    report = check_privacy_budget(Pipeline([("t", Stateless()), ("clf", lr())]))
    assert report.steps[0].epsilon == 0
    assert any(a.startswith("t: ") for a in report.assumptions)


def test_non_private_final_estimator_leaks():
    with pytest.warns(PrivacyLeakWarning):
        report = check_privacy_budget(SkLogisticRegression())
    assert report.steps[0].path == "" and report.epsilon == 0 and not report.is_private


# -- diffprivlib models ------------------------------------------------------
# (priced without leaks, with data-derived parameters, the names of those leaks)
DP_MODELS = [
    (dp.GaussianNB(epsilon=0.7, bounds=(0, 1)), dp.GaussianNB(epsilon=0.7), ["bounds"]),
    (lr(0.7), dp.LogisticRegression(epsilon=0.7, fit_intercept=False), ["data_norm"]),
    (
        dp.LinearRegression(epsilon=0.7, bounds_X=(0, 1), bounds_y=(0, 1)),
        dp.LinearRegression(epsilon=0.7, bounds_X=(0, 1)),
        ["bounds_y"],
    ),
    (
        dp.RandomForestClassifier(epsilon=0.7, bounds=(0, 1), classes=[0, 1]),
        dp.RandomForestClassifier(epsilon=0.7),
        ["bounds"],  # classes=None is an assumption (public label set), not a leak
    ),
    (
        dp.DecisionTreeClassifier(epsilon=0.7, bounds=(0, 1), classes=[0, 1]),
        dp.DecisionTreeClassifier(epsilon=0.7, classes=[0, 1]),
        ["bounds"],
    ),
    (
        dp.StandardScaler(epsilon=0.7, bounds=(0, 1)),
        dp.StandardScaler(epsilon=0.7),
        ["bounds"],
    ),
    (
        dp.PCA(epsilon=0.7, data_norm=1.0, centered=True),
        dp.PCA(epsilon=0.7, data_norm=1.0),  # centered=False: the DP mean needs bounds
        ["bounds"],
    ),
    (dp.KMeans(epsilon=0.7, bounds=(0, 1)), dp.KMeans(epsilon=0.7), ["bounds"]),
]


@pytest.mark.parametrize("good, leaky, params", DP_MODELS, ids=lambda m: type(m).__name__)
def test_diffprivlib_models_priced_and_data_derived_params_leak(good, leaky, params):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        report = check_privacy_budget(good)
    assert report.epsilon == 0.7 and report.is_private_given_assumptions
    assert report.neighbours == "replace" and report.steps[0].cost.neighbours == "replace"
    with pytest.warns(PrivacyLeakWarning):
        report = check_privacy_budget(leaky)
    assert report.epsilon == 0.7
    assert len(report.leaks) == len(params)
    for leak, name in zip(report.leaks, params):
        assert f"{name}=None" in leak


def test_every_diffprivlib_model_is_covered():
    covered = {type(m[0]) for m in DP_MODELS}
    import inspect

    models = {c for _, c in inspect.getmembers(dp, inspect.isclass) if hasattr(c(), "epsilon")}
    assert models <= covered


def test_invalid_diffprivlib_epsilon_names_the_step():
    with pytest.raises(ValueError, match="clf.*epsilon"):
        check_privacy_budget(Pipeline([("clf", dp.LogisticRegression(epsilon=-1, data_norm=1))]))


# -- this package's estimators with data-derived parameters -----------------
def test_dpoad_max_count_none_is_a_leak_not_an_assumption():
    # max_count=None puts each window's record count in every release
    from skdp_anomaly import DPOAD

    bins = np.linspace(0, 1, 5)
    with pytest.warns(PrivacyLeakWarning, match="max_count=None"):
        report = check_privacy_budget(DPOAD(bins, mechanism="laplace"))
    (leak,) = report.leaks
    assert leak.startswith("(root): DPOAD has max_count=None") and "record count" in leak
    assert not any("max_count=None" in a for a in report.assumptions)
    assert not report.is_private_given_assumptions
    with pytest.raises(PrivacyLeakError, match="max_count=None"):
        check_privacy_budget(DPOAD(bins, mechanism="laplace"), budget=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        report = check_privacy_budget(
            DPOAD(bins, mechanism="laplace", max_count=50), neighbours="replace"
        )
    assert report.leaks == [] and report.epsilon == 2.0  # add/remove ε=1 under replace-one


# -- notions ------------------------------------------------------------------
def test_mixed_notions_compose_to_weakest_and_say_so(no_leak_warning):
    pipe = Pipeline(
        [
            ("a", CostTransformer(PrivacyCost.approx(0.5, 1e-6, neighbours="replace"))),
            ("b", CostTransformer(PrivacyCost.anomaly_restricted_dp(0.25, neighbours="replace"))),
            ("clf", lr()),
        ]
    )
    report = check_privacy_budget(pipe)
    assert report.epsilon == pytest.approx(1.75) and report.delta == 1e-6
    assert report.notion == "anomaly-restricted (ε, δ)-DP"
    assert [r.notion for r in report.steps] == [
        "(ε, δ)-DP",
        "anomaly-restricted ε-DP",
        "pure ε-DP",
    ]
    assert "composes different notions" in report.to_markdown()


def test_protocol_estimator_must_return_privacy_cost():
    class Bad(CostTransformer):
        def privacy_cost(self):
            return 1.0

    with pytest.raises(TypeError, match="PrivacyCost"):
        check_privacy_budget(Bad())


# -- input validation ---------------------------------------------------------
@pytest.mark.parametrize(
    "budget",
    [
        0,
        -1.0,
        math.inf,
        math.nan,
        True,
        "1",
        (1.0,),
        (1.0, 1.0),
        (0.0, 0.0),
        (math.inf, 0.0),
        (1.0, -0.1),
        PrivacyCost(0.0, neighbours="replace"),
        PrivacyCost(math.inf, neighbours="replace"),
        [1, "a"],
    ],
)
def test_invalid_budget_is_rejected_naming_it(budget):
    with pytest.raises(ValueError, match="'budget' parameter"):
        check_privacy_budget(dp_pipeline(), budget=budget)


@pytest.mark.parametrize(
    "budget, eps, delta",
    [
        (2, 2.0, 0.0),
        (np.float64(1.5), 1.5, 0.0),
        ((1.0, 1e-6), 1.0, 1e-6),
        ([3, 0], 3.0, 0.0),
        (PrivacyCost.approx(2.0, 1e-7, neighbours="replace"), 2.0, 1e-7),
    ],
)
def test_valid_budgets(budget, eps, delta):
    cost = validate_budget(budget)
    assert (cost.epsilon, cost.delta) == (eps, delta)


def test_invalid_on_leak():
    with pytest.raises(ValueError, match="'on_leak' parameter"):
        check_privacy_budget(dp_pipeline(), on_leak="shout")


# -- the report ------------------------------------------------------------------
def test_report_rendering_and_pickle(no_leak_warning):
    report = check_privacy_budget(dp_pipeline(), budget=2.0)
    text = str(report)
    assert "| sampler | CostSampler | 0.5 |" in text
    assert "**1.5**" in text and "within budget" in text and "No leaks" in text
    assert "PrivacyReport(" in repr(report)
    clone = pickle.loads(pickle.dumps(report))
    assert clone.epsilon == report.epsilon and clone.steps == report.steps


def test_report_never_contains_fitted_data():
    """diffprivlib writes data-derived bounds/data_norm into its parameters at fit.

    The report of the fitted pipeline (and its warnings) must not contain them.
    """
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (50, 2))
    X[7] = [123.456789, -98.7654321]  # distinctive extremes
    y = np.tile([0, 1], 25)
    pipe = Pipeline(
        [
            ("scale", dp.StandardScaler(epsilon=0.5, random_state=0)),
            ("pca", dp.PCA(epsilon=0.5, random_state=0)),
            ("clf", dp.LogisticRegression(epsilon=1.0, random_state=0)),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, y)
    secrets = [123.456789, -98.7654321, pipe["pca"].data_norm, pipe["clf"].data_norm]
    assert pipe["scale"].bounds is not None  # diffprivlib did mutate its parameters
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        texts = []
        for est in (pipe, GridSearchCV(pipe, {"clf__epsilon": [1, 2]}, cv=2)):
            report = check_privacy_budget(est)
            texts += [str(report), repr(report), *report.leaks, *report.notes]
            texts += [r.note for r in report.steps]
            texts.append(repr(pickle.loads(pickle.dumps(report)).steps))
    texts += [str(w.message) for w in caught]
    blob = "\n".join(texts)
    for value in secrets:
        for fmt in ("{:.6g}", "{:.4g}", "{:.3g}", "{!r}", "{:.2f}"):
            token = fmt.format(float(value))
            assert token not in blob, token
    assert "already fitted" in blob


def test_print_pipeline_report():
    buf = io.StringIO()
    report = print_pipeline_report(
        "example",
        Pipeline([("s", SkStandardScaler()), ("clf", lr())]),
        budget=0.5,
        explain=True,
        file=buf,
    )
    out = buf.getvalue()
    assert out.startswith("## example")
    assert "EXCEEDS the budget" in out and "NOT differentially private" in out
    assert "How to read this report" in out
    assert isinstance(report, PrivacyReport) and not report.within_budget


# -- properties -------------------------------------------------------------
eps_lists = st.lists(
    st.floats(min_value=1e-3, max_value=10, allow_nan=False), min_size=1, max_size=5
)


@settings(max_examples=40, deadline=None)
@given(eps=eps_lists, budget=st.floats(min_value=1e-3, max_value=60))
def test_property_pipeline_total_is_sum_and_budget_consistent(eps, budget):
    steps = [
        (f"s{i}", CostTransformer(PrivacyCost(e, neighbours="replace"))) for i, e in enumerate(eps)
    ]
    pipe = Pipeline(steps)
    report = check_privacy_budget(pipe, on_leak="ignore")
    assert report.epsilon == pytest.approx(math.fsum(eps))
    if report.epsilon <= budget:
        assert check_privacy_budget(pipe, budget=budget).within_budget
    elif not math.isclose(report.epsilon, budget, rel_tol=1e-9):
        with pytest.raises(PrivacyBudgetError):
            check_privacy_budget(pipe, budget=budget)


@settings(max_examples=25, deadline=None)
@given(eps=eps_lists, k=st.integers(2, 10), refit=st.booleans())
def test_property_grid_search_cost(eps, k, refit):
    search = GridSearchCV(
        Pipeline([("t", CostTransformer())]),
        {"t__cost": [PrivacyCost(e, neighbours="replace") for e in eps]},
        cv=k,
        refit=refit,
    )
    report = check_privacy_budget(search, on_leak="ignore")
    expected = (k - 1) * math.fsum(eps) + (max(eps) if refit else 0.0)
    assert report.epsilon == pytest.approx(expected)


def test_budget_line_says_when_notion_is_weaker():
    cost = PrivacyCost.anomaly_restricted_dp(0.5, neighbours="replace")
    pipe = Pipeline([("a", CostTransformer(cost))])
    text = check_privacy_budget(pipe, budget=1.0).to_markdown()
    assert "weaker notion than the budget's (pure ε-DP)" in text


def test_unsupported_search_is_a_leak():
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingGridSearchCV

    search = HalvingGridSearchCV(Pipeline([("clf", lr())]), {"clf__epsilon": [1.0, 2.0]})
    with pytest.warns(PrivacyLeakWarning, match="cannot price HalvingGridSearchCV"):
        report = check_privacy_budget(search)
    assert report.steps[0].leak


def test_budget_error_message_is_one_line_and_has_no_table():
    with pytest.raises(PrivacyBudgetError) as info:
        check_privacy_budget(dp_pipeline(), budget=1.0)
    message = str(info.value)
    assert "\n" not in message
    assert "sampler ε=0.5" in message and "clf ε=1" in message


def test_budget_demo_command(capsys):
    from skdp_anomaly.cli import main

    assert main(["budget-demo", "--no-explain"]) == 0
    out = capsys.readouterr().out
    assert "Privacy report of BudgetedPipeline under replace-one-record neighbours" in out
    assert "| **total** | BudgetedPipeline | **2** |" in out
    # candidates cost 1.5, 2, 3: 4 training folds × 6.5 + refit of the dearest (3)
    assert "| **total** | GridSearchCV | **29** |" in out
    assert "Theorem 3.2" in out and "StandardScaler learns" in out
    # the search is priced with KFold: its folds are proven, only the scores leak
    assert "assigns folds from the labels" not in out
    assert "KFold(n_splits=5): each record is in 4 training folds; proven" in out
    assert main(["budget-demo", "--budget", "1.5"]) == 2
    assert "Privacy budget exceeded" in capsys.readouterr().err
