"""scikit-learn and imbalanced-learn common checks over every estimator.

One registry, ``EXPECTED_FAILED_CHECKS``, declares each expected failure with
a one-line reason; every other check must pass. Samplers also run
imbalanced-learn's checks. DPSMOTE runs three times: with private class sizes
(the default), with ``class_counts="public"``, so checks that need exact class
sizes are still exercised on the same code path, and with the grid synopsis
(``synopsis="grid"``; the other two use the default Gaussian synopsis).
"""

import warnings

import pytest
from imblearn.utils.estimator_checks import parametrize_with_checks as imblearn_checks
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks as sklearn_checks

import numpy as np

from skdp_anomaly import (
    DPOAD,
    DPSMOTE,
    BoundsScaler,
    DPImbalancedClassifier,
    NoisyGroupSearch,
    NoisyPriorThresholdClassifier,
    PrivateChangePointDetector,
    PrivateGridSearchCV,
    PrivateHBOS,
    PrivateLogisticRegression,
    PrivateOnlineActiveSVC,
    PrivateRandomizedSearchCV,
)
from skdp_anomaly.imbalanced import PredictedPriorThresholdClassifier
from skdp_anomaly.exceptions import PrivacyLeakWarning

_SPARSE = "sparse X is out of scope: both synopses need dense numeric features"
_NOISY_SIZES = (
    "asserts every class reaches the exact majority size; private class sizes "
    "are noisy by design (the public-counts run passes it)"
)
_MULTI_FEATURE = "fits on multi-feature X; the detector takes one series (n,) or (n, 1)"
_TIME_ORDER = "labels depend on each sample's position in time, not on the row alone"
_ONE_D_HARNESS = (
    "the one_d_array tag (a window of 1-D records) makes the check pass 1-D X, "
    "which the check itself then indexes as 2-D"
)

EXPECTED_FAILED_CHECKS = {
    ("DPSMOTE", "private"): {
        "check_samplers_pandas_sparse": _SPARSE,
        "check_samplers_fit_resample": _NOISY_SIZES,
    },
    ("DPSMOTE", "public"): {
        "check_samplers_pandas_sparse": _SPARSE,
    },
    ("DPSMOTE", "private, grid"): {
        "check_samplers_pandas_sparse": _SPARSE,
        "check_samplers_fit_resample": _NOISY_SIZES,
    },
    # tests/test_changepoint_checks.py re-tests the multi-feature checks'
    # contracts (returns self, params untouched, clone, pickle, memmap, dtypes)
    # on single-series data
    ("PrivateChangePointDetector", None): {
        **{
            check: _MULTI_FEATURE
            for check in (
                "check_fit_score_takes_y",
                "check_estimators_overwrite_params",
                "check_dont_overwrite_parameters",
                "check_estimators_fit_returns_self",
                "check_readonly_memmap_input",
                "check_n_features_in_after_fitting",
                "check_positive_only_tag_during_fit",
                "check_estimators_dtypes",
                "check_dtype_object",
                "check_pipeline_consistency",
                "check_estimators_nan_inf",
                "check_estimators_pickle",
                "check_f_contiguous_array_estimator",
                "check_dict_unchanged",
                "check_fit_idempotent",
                "check_fit_check_is_fitted",
                "check_n_features_in",
                "check_fit2d_1sample",
            )
        },
        "check_methods_sample_order_invariance": _TIME_ORDER,
        "check_methods_subset_invariance": _TIME_ORDER,
        # check_fit1d passes: its 10-point series is refused as too short for the default
        # epsilon (the ValueError the check expects), though a 1-D series is the natural input
        "check_fit2d_predict1d": "predict accepts a 1-D series by design",
        "check_fit2d_1feature": (
            "fits a 10-point series: at the default epsilon no change in "
            "10 points could clear the private test, so the fit is "
            "refused before any charge"
        ),
    },
    # tests/test_dpoad.py re-tests these checks' contracts on (n, 1) windows
    ("DPOAD", None): {
        **{
            check: _ONE_D_HARNESS
            for check in (
                "check_dont_overwrite_parameters",
                "check_n_features_in_after_fitting",
                "check_dtype_object",
                "check_f_contiguous_array_estimator",
                "check_methods_sample_order_invariance",
                "check_methods_subset_invariance",
                "check_fit2d_1sample",
                "check_fit2d_1feature",
                "check_dict_unchanged",
                "check_n_features_in",
                "check_fit2d_predict1d",
            )
        },
        "check_fit1d": "a 1-D X is the natural input (one window of 1-D records)",
        "check_estimator_sparse_array": (
            "the one_d_array tag makes X 1-D, and scipy cannot "
            "convert the check's 1-D sparse array to lil format"
        ),
    },
    ("NoisyGroupSearch", None): {
        "check_outliers_fit_predict": (
            "a detector that can answer 'no anomaly' flags nothing "
            "when the search does not concentrate, as on this data"
        ),
    },
    ("NoisyPriorThresholdClassifier", None): {
        "check_classifiers_train": (
            "asserts predict == argmax(predict_proba); predict is "
            "argmax of predict_proba / the DP class prior by design"
        ),
    },
    ("PredictedPriorThresholdClassifier", None): {
        "check_classifiers_train": (
            "asserts predict == argmax(predict_proba); predict is "
            "argmax of predict_proba / the DP mean prediction by "
            "design"
        ),
    },
    ("PrivateOnlineActiveSVC", None): {
        "check_class_weight_classifiers": (
            "sets class_weight to a dict of weights; the online "
            "SVC takes None or 'balanced' only (a dict is refused "
            "before any charge)"
        ),
    },
    # the searches' own contracts (costs, leaks, outputs) are in tests/test_model_selection.py
    ("PrivateGridSearchCV", None): {},
    ("PrivateGridSearchCV", "total_epsilon"): {
        "check_classifiers_train": (
            "asserts > 83 % training accuracy on ~100 rows; a forced "
            "search gives each private fit a fraction of ε = 2"
        ),
    },
    ("PrivateRandomizedSearchCV", None): {},
    ("BoundsScaler", None): {},
    # tests/test_outlier_hbos.py checks the share flagged at a fraction within its DP error
    ("PrivateHBOS", None): {
        check: (
            "asserts exactly 30 of 300 rows flagged at contamination=0.1; the offset is a "
            "DP quantile of the scores, within the noise of the selection"
        )
        for check in ("check_outliers_train", "check_outliers_fit_predict")
    },
    ("DPImbalancedClassifier", None): {
        "check_classifiers_train": (
            "asserts > 83 % training accuracy on ~100 rows at ε = 1 "
            "and predict == argmax(predict_proba); neither holds for a "
            "private model thresholded at a DP class prior"
        ),
    },
    ("PrivateLogisticRegression", None): {
        "check_non_transformer_estimators_n_iter": "the solver's iteration count depends on "
        "the data and is not a DP output, so no n_iter_ is exposed (max_iter caps L-BFGS-B)",
    },
}

SAMPLERS = [
    DPSMOTE(random_state=0),
    DPSMOTE(random_state=0, class_counts="public"),
    DPSMOTE(random_state=0, synopsis="grid"),
]


class RowNorms:
    """Anomaly scores of multi-column rows, for the checks that fit on several features
    (a class, so that its repr, and so the test ids, are the same in every worker)."""

    def __call__(self, X):
        return np.linalg.norm(X, axis=1)

    def __repr__(self):
        return "RowNorms()"


ESTIMATORS = SAMPLERS + [
    PrivateChangePointDetector(epsilon=1.0, random_state=0),
    PrivateOnlineActiveSVC(random_state=0),
    NoisyGroupSearch(score_func=RowNorms(), random_state=0),
    # sklearn's model: the checks need no diffprivlib (its privacy
    # is priced in tests/test_imbalanced.py)
    NoisyPriorThresholdClassifier(LogisticRegression(), random_state=0),
    PredictedPriorThresholdClassifier(LogisticRegression(), random_state=0),
    # wide public bins: every value the checks feed is inside them
    DPOAD(np.linspace(-1e4, 1e4, 9), max_count=100, random_state=0),
    # a binary private candidate that needs no diffprivlib
    PrivateGridSearchCV(
        PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0),
        {"epsilon": [0.5, 1.0]},
        epsilon=2.0,
        random_state=0,
    ),
    # the whole ε given: the search sets the candidates' epsilon
    PrivateGridSearchCV(
        PrivateLogisticRegression(data_norm=10.0, random_state=0),
        {"C": [0.1, 1.0]},
        total_epsilon=2.0,
        force_search=True,
        random_state=0,
    ),
    PrivateLogisticRegression(random_state=0),
    # the checks' data lie mostly in [-5, 5]; values outside are clipped
    BoundsScaler(bounds=(-5, 5)),
    # the checks' blobs have centres in [-10, 10]
    PrivateHBOS(bounds=(-15, 15), random_state=0),
    DPImbalancedClassifier(bounds=(-5, 5), random_state=0),
    PrivateRandomizedSearchCV(
        PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0),
        {"epsilon": [0.5, 0.75, 1.0]},
        n_iter=2,
        epsilon=2.0,
        random_state=0,
    ),
]


def _key(estimator):
    variant = getattr(estimator, "class_counts", None)
    if getattr(estimator, "total_epsilon", None) is not None:
        variant = "total_epsilon"
    if getattr(estimator, "synopsis", "gaussian") != "gaussian":
        variant = f"{variant}, {estimator.synopsis}"
    return type(estimator).__name__, variant


def expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS[_key(estimator)]


@pytest.fixture(autouse=True)
def _quiet_warnings():
    # the checks feed random data without domain bounds (bounds=None leaks by
    # design and warns) and tiny classes whose noisy histograms can be empty
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.filterwarnings("ignore", message="DPSMOTE")
        yield


def _listed(mark):
    """The checks' parametrize mark with its generator turned into a list (pytest
    deprecates parametrizing over a generator)."""
    names, values = mark.args
    return pytest.mark.parametrize(names, list(values), **mark.kwargs)


@_listed(sklearn_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks))
def test_sklearn_checks(estimator, check):
    check(estimator)


@_listed(imblearn_checks(SAMPLERS, expected_failed_checks=expected_failed_checks))
def test_imblearn_checks(estimator, check):
    check(estimator)


def test_every_registered_failure_names_a_real_estimator():
    assert set(EXPECTED_FAILED_CHECKS) == {_key(e) for e in ESTIMATORS}
    assert all(
        reason.strip() for reasons in EXPECTED_FAILED_CHECKS.values() for reason in reasons.values()
    )
