"""PrivateLogisticRegression (skdp_anomaly/linear_model): inputs, accounting, float safety.

What is checked here (the privacy audit is in ``test_linear_model_audit.py``;
the sklearn checks, the protocol and the no-rewindable-state walk are shared
test modules):

* bad input is refused with an sklearn-style message naming the parameter or
  X, before anything is charged, and the reservation is given back;
* ``data_norm=None`` warns, is stored in ``data_norm_`` and listed as a leak;
* the cost is known before the fit, charged once, priced by the budget
  validator inside a Pipeline;
* the effective ``C_`` (default ``C`` and the regulariser floor of
  ``split_budget``);
* float safety: the released numbers are public functions of integers on the
  plan's grid;
* the certificate: when it cannot be met nothing is fitted and the charge
  stays; when it is met, the exact gradient (rational / 80-digit decimal
  arithmetic) really is below the target;
* the certified gradients, column sums and Dot2 products hold their stated
  bounds against exact arithmetic, also at a point with a huge ‖u‖;
* randomness, and agreement with scikit-learn at large ε.

Every test uses fixed seeds and data, so its outcome is deterministic; each
statistical assertion states the probability that it would fail for a fresh
noise draw (its false-failure rate).
"""

import math
import pickle
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from _accountants import Ledger
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly import PrivateLogisticRegression, check_privacy_budget
from skdp_anomaly.exceptions import PrivacyBudgetError, PrivacyLeakError
from skdp_anomaly.linear_model import _objective, default_C
from skdp_anomaly.linear_model._objective import (
    BLOCK,
    CertificateError,
    _error_budget,
    _Logistic,
    _Softmax,
    certified_column_sums,
    design_matrix,
    dot2_rows,
    dot2_scores_minus_top,
    jacobian_term,
    logistic_privacy_loss,
    plan_fit,
    split_budget,
)
from skdp_anomaly.privacy import PrivacyCost
from skdp_anomaly.exceptions import PrivacyLeakWarning

_RANDOM = (
    np.random.Generator,
    np.random.BitGenerator,
    np.random.SeedSequence,
    np.random.RandomState,
)
KAPPA = 0.25  # the default intercept_scaling


def _data(n=300, d=4, n_classes=2, seed=0, scale=0.25):
    X, y = make_classification(
        n,
        d,
        n_informative=min(d, 3),
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        class_sep=1.5,
        random_state=seed,
    )
    return X * scale, y


X2, Y2 = _data()
X3, Y3 = _data(n_classes=3, seed=1)


def _make(**kw):
    return PrivateLogisticRegression(**{"data_norm": 2.0, "random_state": 0, **kw})


def _r_aug(data_norm, fit_intercept=True, kappa=KAPPA):
    return math.hypot(data_norm, kappa * data_norm) if fit_intercept else float(data_norm)


# ----------------------------------------------------------------------------- bad input
BAD_PARAMS = [
    (dict(epsilon=0.0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"),
    (dict(epsilon=30.5), "epsilon"),
    (dict(epsilon=np.inf), "epsilon"),
    (dict(data_norm=0.0), "data_norm"),
    (dict(data_norm=-2.0), "data_norm"),
    (dict(C=0.0), "'C'"),
    (dict(C=-1.0), "'C'"),
    (dict(C="automatic"), "'C'"),
    (dict(intercept_scaling=0.0), "intercept_scaling"),
    (dict(intercept_scaling=-0.5), "intercept_scaling"),
    (dict(max_iter=0), "max_iter"),
]


@pytest.mark.parametrize("params, name", BAD_PARAMS)
def test_bad_parameter_refused_by_name_before_any_charge(params, name):
    ledger = Ledger()
    est = _make(accountant=ledger, **params)
    with pytest.raises(ValueError, match=name):
        est.privacy_cost()
    with pytest.raises(ValueError, match=name):
        est.fit(X2, Y2)
    assert ledger.spent == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_epsilon_30_is_the_largest_accepted():
    assert _make(epsilon=30.0).privacy_cost().epsilon == 30.0


BAD_DATA = [
    (
        "nan",
        np.where(np.arange(X2.size).reshape(X2.shape) == 5, np.nan, X2),
        Y2,
        "Input X contains NaN",
    ),
    (
        "inf",
        np.where(np.arange(X2.size).reshape(X2.shape) == 7, np.inf, X2),
        Y2,
        "Input X contains infinity",
    ),
    ("3d", X2[:, :, None], Y2, "dim 3"),
    ("no rows", X2[:0], Y2[:0], "0 sample"),
    ("no features", X2[:, :0], Y2, "0 feature"),
    ("y too short", X2, Y2[:-1], "inconsistent numbers of samples"),
    ("2d y", X2, np.c_[Y2, Y2], "y should be a 1d array"),
    ("nan in y", X2, np.where(np.arange(len(Y2)) == 3, np.nan, Y2), "Input y contains NaN"),
    ("continuous y", X2, np.linspace(0, 1, len(Y2)), "Unknown label type"),
    ("one class", X2, np.zeros(len(Y2), dtype=int), "1 class"),
    ("one string class", X2, np.array(["a"] * len(Y2)), "1 class"),
]


@pytest.mark.parametrize("case, X, y, message", BAD_DATA, ids=[c[0] for c in BAD_DATA])
def test_bad_data_refused_before_any_charge(case, X, y, message):
    # the ledger's budget is exactly one fit: a reservation kept by the refused fit
    # would make the good fit after it fail
    ledger = Ledger(epsilon=1.0)
    est = _make(epsilon=1.0, accountant=ledger)
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    assert ledger.spent == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    est.fit(X2, Y2)
    assert ledger.spent == [(1.0, 0.0)]


def test_sparse_X_refused_before_any_charge():
    ledger = Ledger()
    est = _make(accountant=ledger)
    with pytest.raises(TypeError, match="Sparse data was passed for X"):
        est.fit(sp.csr_matrix(X2), Y2)
    assert ledger.spent == []
    assert est.__sklearn_tags__().input_tags.sparse is False


@pytest.mark.parametrize(
    "X",
    [
        np.array([["3.14159", "secret-cell"]] * 20, dtype=object),
        np.array([["2.71828", "1.5"]] * 20),  # numeric-looking strings are strings too
        "frame",
    ],
    ids=["object", "str", "frame"],
)
def test_string_X_refused_without_quoting_the_data(X):
    if isinstance(X, str):
        pd = pytest.importorskip("pandas")
        X = pd.DataFrame({"height": np.arange(20.0), "name": ["secret-cell"] * 20})
    ledger = Ledger()
    est = _make(accountant=ledger)
    with pytest.raises(
        ValueError, match="PrivateLogisticRegression supports numeric features only"
    ) as info:
        est.fit(X, [0, 1] * 10)
    message = str(info.value)
    for value in ("3.14159", "secret-cell", "2.71828", "1.5"):
        assert value not in message
    assert "could not convert" not in message
    assert ledger.spent == []


def test_one_dimensional_X_refused_without_quoting_the_data():
    ledger = Ledger()
    with pytest.raises(ValueError, match="X") as info:
        _make(accountant=ledger).fit(np.array([1.2345, 2.5, 3.75, 4.0]), [0, 1, 0, 1])
    assert ledger.spent == []
    assert "1.2345" not in str(info.value)


def test_string_X_at_predict_refused_without_quoting_the_data():
    est = _make().fit(X2, Y2)
    bad = np.array([["4.8125", "secret-cell", "0", "0"]])
    with pytest.raises(ValueError, match="supports numeric features only") as info:
        est.predict(bad)
    assert "secret-cell" not in str(info.value)


@pytest.mark.parametrize(
    "params",
    [dict(data_norm=1e200), dict(data_norm=1e-200), dict(C=1e306), dict(intercept_scaling=1e200)],
    ids=["data_norm-huge", "data_norm-tiny", "C-huge", "kappa-huge"],
)
def test_extreme_parameters_fit_or_are_refused_by_name(params):
    ledger = Ledger()
    est = _make(accountant=ledger, **params)
    name = next(iter(params))
    try:
        est.fit(X2, Y2)
    except ValueError as exc:
        assert name in str(exc) and ledger.spent == []
    else:
        assert np.all(np.isfinite(est.coef_)) and ledger.spent == [(1.0, 0.0)]


def test_tiny_epsilon_fits_or_is_refused_before_the_charge():
    ledger = Ledger()
    est = _make(epsilon=1e-200, accountant=ledger)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow inside the solver
        try:
            est.fit(X2, Y2)
        except ValueError as exc:
            assert "epsilon" in str(exc) and ledger.spent == []
        else:
            assert ledger.spent == [(1e-200, 0.0)]


# ----------------------------------------------------------------------------- data_norm
def test_data_norm_none_warns_and_is_stored_apart():
    est = PrivateLogisticRegression(random_state=0)
    assert any("data_norm" in leak for leak in est.privacy_leaks())
    with pytest.warns(PrivacyLeakWarning, match="data_norm"):
        est.fit(X2, Y2)
    assert est.data_norm is None  # the parameter is never overwritten
    assert est.get_params()["data_norm"] is None
    assert est.data_norm_ == pytest.approx(np.linalg.norm(X2, axis=1).max(), rel=1e-12)
    assert est.C_ > 0


def test_data_norm_given_no_warning_no_leak():
    est = _make(data_norm=3.0)
    assert est.privacy_leaks() == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est.fit(X2, Y2)
    assert est.data_norm_ == 3.0 and est.data_norm == 3.0


# ----------------------------------------------------------------------------- accounting
@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
def test_cost_before_fit_is_what_is_spent_and_charged_once(X, y):
    ledger = Ledger()
    est = _make(epsilon=1.7, accountant=ledger)
    planned = est.privacy_cost()
    assert planned == PrivacyCost(1.7, neighbours="replace")
    assert planned.delta == 0 and planned.neighbours == "replace"
    est.fit(X, y)
    assert est.privacy_spent_ == planned
    assert ledger.spent == [(1.7, 0.0)]
    est.fit(X, y)  # a new fit is a new charge, and a new count
    assert est.privacy_spent_ == planned
    assert ledger.spent == [(1.7, 0.0), (1.7, 0.0)]


def test_accountant_refusal_leaves_nothing_fitted():
    ledger = Ledger(epsilon=1.0)
    est = _make(epsilon=1.5, accountant=ledger)
    with pytest.raises(ValueError, match="1.5"):
        est.fit(X2, Y2)
    assert ledger.spent == []
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_budget_validator_prices_it_inside_a_pipeline():
    pipe = Pipeline([("tanh", FunctionTransformer(np.tanh)), ("clf", _make(epsilon=2.0))])
    report = check_privacy_budget(pipe, 2.0)
    assert report.epsilon == 2.0 and report.delta == 0
    assert report.leaks == []
    assert any("class labels" in a for a in report.assumptions)
    with pytest.raises(PrivacyBudgetError):
        check_privacy_budget(pipe, 1.9)
    pipe.fit(X2, Y2)
    assert pipe[-1].privacy_spent_.epsilon == report.epsilon


def test_budget_validator_flags_a_scaler_learned_from_the_data():
    pipe = Pipeline([("scale", StandardScaler()), ("clf", _make(epsilon=2.0))])
    with pytest.raises(PrivacyLeakError, match="scale: StandardScaler"):
        check_privacy_budget(pipe, 5.0)
    report = check_privacy_budget(pipe, on_leak="ignore")
    assert len(report.leaks) == 1 and "StandardScaler" in report.leaks[0]
    assert not report.is_private


def test_budget_validator_flags_data_norm_none():
    pipe = Pipeline([("clf", PrivateLogisticRegression())])
    report = check_privacy_budget(pipe, on_leak="ignore")
    assert any("data_norm" in leak for leak in report.leaks)


# ----------------------------------------------------------------------------- C_
@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
def test_auto_C_is_default_C_when_no_floor_applies(X, y):
    n, d = X.shape
    K = np.unique(y).size
    eps, data_norm = 1.0, 1.0
    est = _make(epsilon=eps, data_norm=data_norm).fit(X, y)
    assert est.clip_norm_ == data_norm / 2  # clip_norm="auto"
    r2 = _r_aug(est.clip_norm_) ** 2
    C = default_C(eps, d, K, row_bound=math.sqrt(r2))
    # the floor is off: the Jacobian leaves more than half of ε_o to the noise
    eps_noise, lam, _ = split_budget(eps, n, 1.0 / (C * n * r2), K)
    assert eps_noise > 0.99 * eps / 2 and lam == pytest.approx(1.0 / (C * n * r2), rel=1e-12)
    assert est.C_ == pytest.approx(C, rel=1e-12)
    # in the proof's units: 0.1 ε² √(10/p) (binary), 0.1 ε² √(10/(K p)) / K (softmax)
    p = d + 1
    c = 0.1 * eps**2 * (math.sqrt(10 / p) if K == 2 else math.sqrt(10 / (K * p)) / K)
    assert C * r2 == pytest.approx(c, rel=1e-12)


@pytest.mark.parametrize("K", [2, 3])
def test_auto_C_gives_the_same_model_on_rescaled_data(K):
    X, y = (X2, Y2) if K == 2 else (X3, Y3)
    small = _make(epsilon=2.0, data_norm=2.0).fit(X, y)
    large = _make(epsilon=2.0, data_norm=2.0e3).fit(X * 1e3, y)
    # the same problem in the proof's units, hence the same integers on the grid
    np.testing.assert_allclose(large.coef_ * 1e3, small.coef_, rtol=1e-9, atol=0)
    np.testing.assert_allclose(large.intercept_, small.intercept_, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(large.predict(X * 1e3), small.predict(X))


def test_clip_norm_projects_rows_and_is_capped_by_data_norm():
    est = _make(clip_norm=5.0).fit(X2, Y2)  # above data_norm = 2: lowered to it
    assert est.clip_norm_ == 2.0 and est.clip_norm == 5.0
    same = _make(clip_norm=2.0).fit(X2, Y2)
    np.testing.assert_array_equal(est.coef_, same.coef_)
    auto = _make().fit(X2, Y2)
    assert auto.clip_norm_ == 1.0 and auto.clip_norm == "auto"
    assert not np.array_equal(auto.coef_, same.coef_)


@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
@pytest.mark.parametrize("eps, C", [(0.05, 1.0), (1e-3, 1.0), (0.3, 50.0)])
def test_regulariser_floor_makes_C_smaller(X, y, eps, C):
    n, d = X.shape
    K = np.unique(y).size
    data_norm = 1.0
    r2 = _r_aug(data_norm / 2) ** 2
    asked = C
    eps_o = eps - 0.01 * eps
    est = _make(epsilon=eps, C=C, data_norm=data_norm).fit(X, y)
    eps_noise, lam_total, _ = split_budget(eps, n, 1.0 / (asked * n * r2), K)
    assert est.C_ == pytest.approx(1.0 / (lam_total * n * r2), rel=1e-12)
    assert est.C_ < asked
    # the floor: the noise gets exactly half of ε_o, the whole loss is ε_o
    assert eps_noise == pytest.approx(eps_o / 2, rel=1e-9)
    if K == 2:
        loss = logistic_privacy_loss(eps_noise, n, lam_total)
        assert loss <= eps_o and loss == pytest.approx(eps_o, rel=1e-9)
    else:  # closed form: the Jacobian term is exactly ε_o/2
        assert est.C_ == pytest.approx(K * math.expm1(eps_o / (2 * (K - 1))) / r2, rel=1e-12)
        assert jacobian_term(n, lam_total, K) == pytest.approx(eps_o / 2, rel=1e-12)


# ----------------------------------------------------------------------------- the accounting
def _exact_log_ratio(z_a, y_a, z_b, y_b, rest_Z, rest_y, u, eps_noise, lam):
    """log f_A(u) - log f_B(u) of the ideal binary mechanism (density ν(b(u))·det ∇b(u))."""

    def parts(z, y):
        Z = np.vstack([rest_Z, z])
        ypm = np.where(np.r_[rest_y, y] == 1, 1.0, -1.0)
        m = ypm * (Z @ u)
        grad = Z.T @ (-ypm * expit_(-m))
        w = expit_(m) * expit_(-m)
        hess = (Z.T * w) @ Z + len(Z) * lam * np.eye(len(u))
        b = -grad - len(Z) * lam * u
        return -eps_noise / 2 * np.linalg.norm(b) + np.linalg.slogdet(hess)[1]

    return parts(z_a, y_a) - parts(z_b, y_b)


def expit_(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@pytest.mark.parametrize("eps_noise, c", [(1.0, 1.0), (0.4, 5.0), (2.0, 0.5), (0.1, 20.0)])
def test_logistic_privacy_loss_bounds_the_exact_ratio(eps_noise, c):
    n = 400
    lam = 1.0 / (n * c)
    bound = logistic_privacy_loss(eps_noise, n, lam)
    assert bound <= eps_noise + math.log1p(c / 4) + 1e-12  # never above the old charge
    assert bound >= 0.75 * eps_noise + math.log1p(c / 4) - 1e-12
    # a near-worst pair: A's record e1 at margin m, B's pointing the other way and
    # saturated by u's second coordinate; the rest at the origin (Hessian ≈ 0)
    rest_Z = np.tile([0.0, 0.0, 1e-9], (n - 1, 1))
    rest_y = np.arange(n - 1) % 2
    z_b = np.array([-1e-3, math.sqrt(1 - 1e-6), 0.0])
    worst = -np.inf
    for m in np.linspace(-6, 6, 121):
        u = np.array([m, -40.0, 0.0])
        ratio = _exact_log_ratio(
            np.array([1.0, 0.0, 0.0]), 1, z_b, 1, rest_Z, rest_y, u, eps_noise, lam
        )
        assert ratio <= bound + 1e-9
        worst = max(worst, ratio)
    assert worst >= 0.5 * bound  # the pair is a hard one: the check is not vacuous
    # random pairs, rows and outputs (norms ≤ 1, outputs up to ‖u‖ ~ 100)
    rng = np.random.default_rng(7)
    for _ in range(200):
        rest = rng.normal(size=(n - 1, 3))
        rest *= rng.uniform(0, 1, size=(n - 1, 1)) / np.linalg.norm(rest, axis=1, keepdims=True)
        z_a, z_b = (v / max(1.0, np.linalg.norm(v)) for v in rng.normal(size=(2, 3)))
        u = rng.normal(size=3) * 10 ** rng.uniform(-1, 2)
        ratio = _exact_log_ratio(
            z_a,
            rng.integers(2),
            z_b,
            rng.integers(2),
            rest,
            rng.integers(2, size=n - 1),
            u,
            eps_noise,
            lam,
        )
        assert abs(ratio) <= bound + 1e-9


def test_logistic_privacy_loss_is_below_the_separate_sups_by_up_to_a_quarter_of_the_noise():
    n = 1000
    for eps_noise in (0.1, 1.0, 5.0):
        for c in (1e-3, 0.1, 1.0, 10.0, 100.0):
            lam = 1.0 / (n * c)
            old = eps_noise + math.log1p(c / 4)
            new = logistic_privacy_loss(eps_noise, n, lam)
            assert old - eps_noise / 4 - 1e-12 <= new <= old + 1e-12
            if c <= eps_noise / 2:  # β ≥ c: the Jacobian is free
                assert new == pytest.approx(eps_noise, rel=1e-12)


# ----------------------------------------------------------------------------- float safety
def _steps(values, grid):
    """``values / grid`` as integers, asserting they are integers up to the scaling's rounding."""
    scaled = np.asarray(values, dtype=np.float64) / grid
    steps = np.rint(scaled)
    assert np.all(np.abs(scaled - steps) <= 8 * 2.0**-53 * np.abs(steps) + 1e-300)
    return steps


@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("eps, C", [(1.0, "auto"), (8.0, 3.0)])
def test_release_is_a_public_function_of_integers_on_the_grid(X, y, fit_intercept, eps, C):
    n, d = X.shape
    K = np.unique(y).size
    data_norm = 1.5
    est = _make(epsilon=eps, C=C, data_norm=data_norm, fit_intercept=fit_intercept).fit(X, y)
    clip_norm = data_norm / 2
    r_aug = _r_aug(clip_norm, fit_intercept)
    asked = default_C(eps, d, K, row_bound=r_aug, fit_intercept=fit_intercept) if C == "auto" else C
    p = d + int(fit_intercept)
    plan = plan_fit(eps, n, p, K, 1.0 / (asked * n * r_aug**2))
    g = plan.grid
    assert math.frexp(g)[0] == 0.5  # a power of two
    coef_steps = _steps(est.coef_ * r_aug, g)
    # the released float is the public map of the integer: the same bits
    np.testing.assert_array_equal(est.coef_, (coef_steps * g) / r_aug)
    assert np.count_nonzero(coef_steps) > 0
    if fit_intercept:
        factor = KAPPA * clip_norm / r_aug
        intercept_steps = _steps(est.intercept_ / factor, g)
        np.testing.assert_array_equal(est.intercept_, (intercept_steps * g) * factor)
    else:
        np.testing.assert_array_equal(est.intercept_, np.zeros(est.coef_.shape[0]))


def test_design_matrix_rows_are_exactly_inside_the_unit_ball():
    # the privacy proof needs ‖z‖ ≤ 1 exactly (sensitivity 2, Hessian term ≤ 1/4)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X[:20] *= 2.0 * (1 + rng.uniform(-1e-15, 1e-15, size=(20, 1)))  # on the sphere
    X[20:30] *= 1e6  # far outside
    for fit_intercept in (True, False):
        Z, _ = design_matrix(X, 2.0, fit_intercept, KAPPA)
        for row in Z:
            assert sum(Fraction(float(v)) ** 2 for v in row) <= 1


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_huge_row_is_projected_onto_the_sphere():
    Z, r_aug = design_matrix(np.array([[1e200, 0.0], [0.3, 0.4]]), 1.0, False, KAPPA)
    assert Z[0, 0] == pytest.approx(1.0, rel=1e-9)


# ----------------------------------------------------------------------------- the certificate
@pytest.mark.parametrize("objective", [_Logistic, _Softmax])
def test_unmet_certificate_raises_keeps_the_charge_fits_nothing(monkeypatch, objective):
    original = objective.certified_grad

    def hopeless(self, hi, lo):
        grad, _ = original(self, hi, lo)
        return grad, 1e300

    monkeypatch.setattr(objective, "certified_grad", hopeless)
    X, y = (X2, Y2) if objective is _Logistic else (X3, Y3)
    ledger = Ledger()
    est = _make(epsilon=0.9, accountant=ledger)
    with pytest.raises(CertificateError, match="Nothing was released"):
        est.fit(X, y)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    for name in ("coef_", "intercept_", "classes_", "C_", "data_norm_"):
        assert not hasattr(est, name)
    # the charge was made before the release was attempted, and it stays
    assert est.privacy_spent_ == est.privacy_cost()
    assert ledger.spent == [(0.9, 0.0)]


def test_unmet_target_raises(monkeypatch):
    solve = _objective.solve_certified
    monkeypatch.setattr(
        _objective,
        "solve_certified",
        lambda obj, x0, target, max_iter: solve(obj, x0, 0.0, max_iter),
    )
    ledger = Ledger()
    with pytest.raises(CertificateError):
        _make(accountant=ledger).fit(X2, Y2)
    assert ledger.spent == [(1.0, 0.0)]


@pytest.mark.slow
@pytest.mark.parametrize("C, seed", [(1e5, 0), (1e5, 2), (1e5, 4), (3e5, 4), (1e8, 1)])
def test_certificate_is_met_at_large_epsilon_and_weak_regularisation(C, seed):
    # separable data, solutions of norm ~1e7-1e8: plain doubles could not resolve the
    # gradient (seed 0), and undamped steps cycled (seeds 2, 4 at C=1e5 and 3e5)
    X, y = make_classification(
        300,
        100,
        n_informative=3,
        n_redundant=0,
        n_clusters_per_class=1,
        class_sep=3.0,
        random_state=0,
    )
    est = PrivateLogisticRegression(epsilon=30.0, C=C, data_norm=5.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        est.fit(X, y)
    assert np.all(np.isfinite(est.coef_))


# ----------------------------------------------------------------------------- exact gradients
_CTX = dict(prec=80, Emax=10**9, Emin=-(10**9))


def _dec(x) -> Decimal:
    return Decimal(float(x))  # exact: every double is a finite decimal


def _frac_dec(f: Fraction) -> Decimal:
    return Decimal(f.numerator) / Decimal(f.denominator)


def _frac(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(float(x))


def _point(hi, lo) -> np.ndarray:
    """The solver's double-double point ``hi + lo``, exactly (an object array of Fractions)."""
    return np.array([Fraction(float(h)) + Fraction(float(v)) for h, v in zip(hi, lo)], dtype=object)


def _exact_dot(z, u) -> Fraction:
    return sum((Fraction(float(a)) * _frac(b) for a, b in zip(z, u)), Fraction(0))


def _sigmoid(t: Decimal) -> Decimal:
    if t >= 0:
        return 1 / (1 + (-t).exp())
    e = t.exp()
    return e / (1 + e)


def _exact_logistic_grad(obj, u):
    Z, n = obj.Z, obj.Z.shape[0]
    with localcontext() as ctx:
        for k, v in _CTX.items():
            setattr(ctx, k, v)
        grad = [_dec(obj.lam) * _frac_dec(_frac(uj)) + _dec(lj) for uj, lj in zip(u, obj.lin)]
        for z, yi in zip(Z, obj.y):
            m = _frac_dec(_exact_dot(z, u))
            s = -_dec(yi) * _sigmoid(-_dec(yi) * m) / n
            for j, zj in enumerate(z):
                grad[j] += s * _dec(zj)
        return grad


def _exact_softmax_grad(obj, w):
    Z, K, n = obj.Z, obj.K, obj.Z.shape[0]
    W = w.reshape(K, -1)
    with localcontext() as ctx:
        for k, v in _CTX.items():
            setattr(ctx, k, v)
        grad = [
            [
                _dec(obj.lam) * _frac_dec(_frac(W[k, j])) + _dec(obj.lin[k * W.shape[1] + j])
                for j in range(W.shape[1])
            ]
            for k in range(K)
        ]
        for z, yi in zip(Z, obj.y):
            scores = [_frac_dec(_exact_dot(z, W[k])) for k in range(K)]
            top = max(scores)
            e = [(s - top).exp() for s in scores]
            total = sum(e)
            for k in range(K):
                coefficient = (e[k] / total - (1 if k == yi else 0)) / n
                for j, zj in enumerate(z):
                    grad[k][j] += coefficient * _dec(zj)
        return [g for row in grad for g in row]


def _distance(computed, exact) -> Decimal:
    with localcontext() as ctx:
        for k, v in _CTX.items():
            setattr(ctx, k, v)
        return sum((_dec(c) - e) ** 2 for c, e in zip(computed, exact)).sqrt()


def _small_problem(n_classes, seed, n=70, d=3):
    """Normalised rows (‖z‖ ≤ 1) with an intercept column, labels, Λ and a linear term."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    Z, _ = design_matrix(X, 1.0, True, KAPPA)
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    lam = 1e-3
    lin = rng.normal(size=n_classes * (d + 1) if n_classes > 2 else d + 1) * 1e-2
    return Z, y, lam, lin, rng


def _cancelling_point(Z, rng, size, rows):
    """A point ``u`` of norm ``size`` whose margin nearly cancels on ``rows`` rows."""
    u = rng.normal(size=Z.shape[1])
    u *= size / np.linalg.norm(u)
    # make rows orthogonal to u (up to rounding): margins O(u·size) instead of O(size)
    for i in range(rows):
        z = Z[i] - (Z[i] @ u) / (u @ u) * u
        Z[i] = z / max(1.0, np.linalg.norm(z) / (1 - 2.0**-40))
    return u


@pytest.mark.parametrize("size", [1.0, 1e6], ids=["unit", "huge"])
def test_logistic_certified_grad_within_its_bound_of_the_exact_gradient(size):
    Z, y, lam, lin, rng = _small_problem(2, seed=11)
    u = _cancelling_point(Z, rng, size, rows=25)
    obj = _Logistic(Z, np.where(y == 1, 1.0, -1.0), lam, lin)
    lo = u * rng.uniform(-1, 1, size=u.size) * 2.0**-54  # a double-double low part
    grad, bound = obj.certified_grad(u, lo)
    err = _distance(grad, _exact_logistic_grad(obj, _point(u, lo)))
    assert err <= Decimal(bound)
    # the a priori budget the plan's grid is sized from covers it (plan_fit uses 2×)
    assert bound <= 2 * _error_budget(Z.shape[1], 2, np.linalg.norm(u), lam, np.linalg.norm(lin))
    # the bound is not vacuous: at ‖u‖ = 1e6 the margins still cost ~1e-10 at most
    assert bound < 1e-9


@pytest.mark.parametrize("size", [1.0, 1e6], ids=["unit", "huge"])
def test_softmax_certified_grad_within_its_bound_of_the_exact_gradient(size):
    K = 3
    Z, y, lam, lin, rng = _small_problem(K, seed=12)
    p = Z.shape[1]
    W = rng.normal(size=(K, p))
    W *= size / np.linalg.norm(W)
    # near ties between two classes on some rows: score differences that cancel
    u = W[0] - W[1]
    for i in range(20):
        z = Z[i] - (Z[i] @ u) / (u @ u) * u
        Z[i] = z / max(1.0, np.linalg.norm(z) / (1 - 2.0**-40))
    obj = _Softmax(Z, y, K, lam, lin)
    w = W.ravel()
    lo = w * rng.uniform(-1, 1, size=w.size) * 2.0**-54  # a double-double low part
    grad, bound = obj.certified_grad(w, lo)
    err = _distance(grad, _exact_softmax_grad(obj, _point(w, lo)))
    assert err <= Decimal(bound)
    assert bound <= 2 * _error_budget(p, K, np.linalg.norm(w), lam, np.linalg.norm(lin))
    assert bound < 1e-9


@pytest.mark.parametrize(
    "X, y", [(X2[:60], Y2[:60]), (X3[:60], Y3[:60])], ids=["binary", "multinomial"]
)
def test_solver_output_meets_the_target_in_exact_arithmetic(monkeypatch, X, y):
    seen = {}
    solve = _objective.solve_certified

    def recording(objective, x0, target, max_iter):
        x = solve(objective, x0, target, max_iter)
        seen.update(objective=objective, x=x, target=target)
        return x

    monkeypatch.setattr(_objective, "solve_certified", recording)
    _make(epsilon=2.0, C=5.0).fit(X, y)
    obj, x = seen["objective"], _point(*seen["x"])
    exact = (_exact_logistic_grad if isinstance(obj, _Logistic) else _exact_softmax_grad)(obj, x)
    with localcontext() as ctx:
        ctx.prec = 80
        norm = sum(g * g for g in exact).sqrt()
    assert norm <= Decimal(seen["target"])


def test_certified_column_sums_bound_against_the_exact_sum():
    rng = np.random.default_rng(3)
    n = 5 * BLOCK + 17  # several blocks and a partial one
    big = rng.normal(size=n) * 10.0 ** rng.integers(-8, 9, size=n)
    cancelling = np.r_[big[: n // 2], -big[: n // 2], rng.normal(size=n - 2 * (n // 2))]
    cancelling[: n // 2] += rng.normal(size=n // 2) * 1e-9
    terms = np.column_stack(
        [rng.normal(size=n), cancelling, np.full(n, 0.1), rng.permutation(cancelling)]
    )
    sums, bound = certified_column_sums(terms)
    for j in range(terms.shape[1]):
        column = terms[:, j]
        exact = sum((Fraction(float(v)) for v in column), Fraction(0))
        assert abs(Fraction(float(sums[j])) - exact) <= Fraction(float(bound[j]))
        # math.fsum is the correctly rounded exact sum: within the bound as well
        assert abs(sums[j] - math.fsum(column)) <= bound[j]


def _gamma(k):
    u = Fraction(1, 2**53)
    return k * u / (1 - k * u)


def _ill_conditioned_rows(rng, n, p):
    """Rows whose dot product with ``u`` cancels almost entirely (condition up to ~1e30)."""
    u = rng.normal(size=p) * 2.0 ** rng.integers(-20, 21, size=p)
    u[-1] = 1.0
    Z = rng.normal(size=(n, p)) * 2.0 ** rng.integers(-20, 21, size=(n, p))
    Z[: n // 2, -1] = -(Z[: n // 2, :-1] @ u[:-1])  # the naive sum, cancelled
    return Z, u


def test_dot2_rows_within_its_bound_of_the_exact_dot_product():
    rng = np.random.default_rng(8)
    Z, u = _ill_conditioned_rows(rng, 60, 7)
    result = dot2_rows(Z, u)
    p, unit = Z.shape[1], Fraction(1, 2**53)
    naive_wrong = 0
    for row, got, naive in zip(Z, result, Z @ u):
        exact = _exact_dot(row, u)
        magnitude = sum(abs(Fraction(float(a)) * Fraction(float(b))) for a, b in zip(row, u))
        bound = unit * abs(exact) + _gamma(p) ** 2 * magnitude
        assert abs(Fraction(float(got)) - exact) <= bound
        naive_wrong += abs(Fraction(float(naive)) - exact) > bound
    assert naive_wrong > 0  # the rows are hard: a plain dot product misses the bound


def test_dot2_scores_minus_top_within_its_bound():
    rng = np.random.default_rng(9)
    n, p, K = 40, 5, 4
    Z = rng.normal(size=(n, p)) * 2.0 ** rng.integers(-10, 11, size=(n, p))
    W = rng.normal(size=(K, p)) * 1e4
    W[1] = W[0] * (1 + 1e-12)  # near ties: differences that cancel
    top = np.argmax(Z @ W.T, axis=1)
    D = dot2_scores_minus_top(Z, W, W[top])
    unit = Fraction(1, 2**53)
    for i in range(n):
        assert D[i, top[i]] == 0.0
        for k in range(K):
            exact = _exact_dot(Z[i], W[k]) - _exact_dot(Z[i], W[top[i]])
            magnitude = sum(
                abs(Fraction(float(z))) * (abs(Fraction(float(a))) + abs(Fraction(float(b))))
                for z, a, b in zip(Z[i], W[k], W[top[i]])
            )
            bound = unit * abs(exact) + _gamma(2 * p) ** 2 * magnitude
            assert abs(Fraction(float(D[i, k])) - exact) <= bound


# ----------------------------------------------------------------------------- randomness
def test_random_state_int_reproduces_none_does_not():
    a, b = _make(random_state=4).fit(X2, Y2), _make(random_state=4).fit(X2, Y2)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    # None: two fresh draws coincide with probability below 1e-15 (the discrete
    # Laplace alone puts ≤ rate/2 ≈ 1e-3 on any one step in each of 5 coordinates)
    c, e = _make(random_state=None).fit(X2, Y2), _make(random_state=None).fit(X2, Y2)
    assert not np.array_equal(np.c_[c.coef_, c.intercept_], np.c_[e.coef_, e.intercept_])


def test_generator_is_used_as_is():
    rng = np.random.default_rng(4)
    first = _make(random_state=rng).fit(X2, Y2)
    np.testing.assert_array_equal(first.coef_, _make(random_state=4).fit(X2, Y2).coef_)
    assert first.random_state is rng  # not copied
    second = _make(random_state=rng).fit(X2, Y2)  # the same object moves on
    assert not np.array_equal(first.coef_, second.coef_)


@pytest.mark.parametrize("random_state", [None, 3, "generator"])
def test_no_fitted_attribute_holds_a_generator(random_state):
    if random_state == "generator":
        random_state = np.random.default_rng(3)
    est = _make(random_state=random_state).fit(X3, Y3)
    params = set(est.get_params(deep=False))
    for name, value in vars(est).items():
        if name in params:
            continue
        assert not isinstance(value, _RANDOM), name
        if isinstance(value, (list, tuple)):
            assert not any(isinstance(v, _RANDOM) for v in value), name
    if random_state is None:
        assert b"numpy.random" not in pickle.dumps(est)


# ----------------------------------------------------------------------------- behaviour
def _easy(n_classes, seed=0):
    X, y = make_classification(
        6000,
        5,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        n_clusters_per_class=1,
        class_sep=1.0,
        random_state=seed,
    )
    X = X / 4.0  # rows mostly inside data_norm = 2 (0.025 % projected)
    return X[:4000], y[:4000], X[4000:], y[4000:]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_large_epsilon_agrees_with_sklearn(n_classes):
    Xtr, ytr, Xte, yte = _easy(n_classes)
    est = PrivateLogisticRegression(epsilon=30.0, data_norm=2.0, random_state=0).fit(Xtr, ytr)
    # accuracy: over 300 noise seeds the difference stayed within ±0.003;
    # 0.02 is ≥ 6× that (false-failure rate below 1e-9)
    plain = LogisticRegression(C=est.C_).fit(Xtr, ytr)
    assert plain.score(Xte, yte) > 0.8
    assert abs(est.score(Xte, yte) - plain.score(Xte, yte)) <= 0.02
    # coefficients: the same objective (constant column κ·data_norm, regularised like
    # the others) solved by sklearn. The softmax loss ignores a shift common to all
    # classes, so only the class-centred coefficients are determined; over 300 seeds
    # the relative error had median 0.006 (binary) / 0.016 (3 classes) and max 0.021
    # / 0.042; the error scales with ‖b‖ ~ Gamma(dim), so 0.1 fails with
    # probability below 1e-9
    Z, r_aug = design_matrix(Xtr, 2.0, True, KAPPA)
    ref = LogisticRegression(C=est.C_, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(
        Z * r_aug, ytr
    )
    ours = np.c_[est.coef_, est.intercept_]
    theirs = np.c_[ref.coef_[:, :-1], ref.coef_[:, -1] * KAPPA * 2.0]
    if n_classes > 2:
        ours, theirs = ours - ours.mean(0), theirs - theirs.mean(0)
    assert np.linalg.norm(ours - theirs) <= 0.1 * np.linalg.norm(theirs)


@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
def test_prediction_api(X, y):
    est = _make(epsilon=5.0).fit(X, y)
    K = np.unique(y).size
    scores = est.decision_function(X)
    assert scores.shape == ((len(X),) if K == 2 else (len(X), K))
    proba = est.predict_proba(X)
    assert proba.shape == (len(X), K)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    np.testing.assert_allclose(np.exp(est.predict_log_proba(X)), proba, rtol=1e-12)
    assert est.coef_.shape == ((1, X.shape[1]) if K == 2 else (K, X.shape[1]))
    assert est.intercept_.shape == ((1,) if K == 2 else (K,))
    # epsilon = 5 on these separated clusters: far better than chance
    assert est.score(X, y) > 0.8
    with pytest.raises(ValueError, match="X has 2 features"):
        est.predict(X[:, :2])


def test_string_labels():
    labels = np.array(["fraud", "normal"])[Y2]
    est = _make(epsilon=5.0).fit(X2, labels)
    assert est.classes_.tolist() == ["fraud", "normal"]
    assert set(est.predict(X2)) <= {"fraud", "normal"}
    three = np.array(["a", "b", "c"])[Y3]
    assert _make().fit(X3, three).predict(X3).dtype == three.dtype


def test_dataframe_sets_feature_names():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X2, columns=["w", "x", "y", "z"])
    est = _make().fit(frame, Y2)
    assert est.feature_names_in_.tolist() == ["w", "x", "y", "z"]
    assert est.n_features_in_ == 4
    np.testing.assert_array_equal(est.predict(frame), _make().fit(X2, Y2).predict(X2))


@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
def test_pickle_round_trip(X, y):
    est = _make().fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    assert back.privacy_spent_ == est.privacy_spent_


@pytest.mark.parametrize("X, y", [(X2, Y2), (X3, Y3)], ids=["binary", "multinomial"])
def test_no_intercept(X, y):
    est = _make(fit_intercept=False, epsilon=5.0).fit(X, y)
    np.testing.assert_array_equal(est.intercept_, np.zeros(est.coef_.shape[0]))
    scores = est.decision_function(X)
    np.testing.assert_array_equal(scores, (X @ est.coef_.T).reshape(scores.shape))
