"""Offline PNCPD (Lut 2022, Algorithm 3): statistic, sensitivity, estimator, drift, thresholds."""

import math
import warnings

import numpy as np
import pytest
from _accountants import Ledger
from audit_scenarios.changepoint import move_one_element
from skdp_anomaly import BudgetAccountant

from skdp_anomaly.changepoint import (
    PrivateChangePointDetector,
    ThresholdRange,
    drift_index_to_original,
    drift_transform,
    pncpd_batch,
    threshold_range,
)
from skdp_anomaly.changepoint._statistic import mann_whitney_statistic
from skdp_anomaly.exceptions import ChangePointNoiseWarning
from skdp_anomaly.changepoint._core import (
    candidate_range,
    pncpd_noise_scale,
    pncpd_scores,
    pncpd_sensitivity,
)
from skdp_anomaly.changepoint._binseg import segment_scores
from skdp_anomaly.changepoint._statistic import (
    _strict_counts,
    mann_whitney_counts,
    sliding_centre_counts,
)


# ----------------------------------------------------------- brute force
def brute_counts(x):
    """S(k) = #{i <= k < j : x_i > x_j} + #{x_i = x_j}/2 (mid-ranks), k = 0..n, double loop."""
    n = len(x)
    return np.array(
        [
            sum((x[i] > x[j]) + 0.5 * (x[i] == x[j]) for i in range(k) for j in range(k, n))
            for k in range(n + 1)
        ],
        dtype=np.float64,
    )


def brute_strict(x):
    """Strict pairs only (the online window statistic)."""
    n = len(x)
    return np.array(
        [sum(int(x[i] > x[j]) for i in range(k) for j in range(k, n)) for k in range(n + 1)],
        dtype=np.int64,
    )


def random_series(rng, n, kind):
    if kind == "normal":
        return rng.normal(size=n)
    if kind == "ties":
        return rng.integers(0, 3, size=n).astype(float)
    if kind == "constant":
        return np.full(n, 2.5)
    return np.repeat(rng.normal(size=(n + 2) // 3), 3)[:n]  # runs of equal values


@pytest.mark.parametrize("kind", ["normal", "ties", "constant", "runs"])
def test_counts_equal_brute_force_exactly(kind):
    rng = np.random.default_rng(12)
    for _ in range(60):
        n = int(rng.integers(1, 40))
        x = random_series(rng, n, kind)
        got = mann_whitney_counts(x)
        assert got.dtype == np.float64  # exact halves
        np.testing.assert_array_equal(got, brute_counts(x))


def test_counts_batch_rows_equal_brute_force():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(7, 25)).astype(float)
    got = mann_whitney_counts(X)
    for row, x in zip(got, X):
        np.testing.assert_array_equal(row, brute_counts(x))


def test_statistic_is_counts_over_pairs():
    rng = np.random.default_rng(4)
    x = rng.integers(0, 5, size=30).astype(float)
    ks = np.arange(1, 30)
    np.testing.assert_array_equal(mann_whitney_statistic(x), brute_counts(x)[ks] / (ks * (30 - ks)))
    np.testing.assert_array_equal(
        mann_whitney_statistic(x, [3, 7]), brute_counts(x)[[3, 7]] / [81, 161]
    )
    with pytest.raises(ValueError, match="splits"):
        mann_whitney_statistic(x, [0])


@pytest.mark.parametrize("kind", ["normal", "ties"])
def test_sliding_centre_counts_equal_brute_force(kind):
    rng = np.random.default_rng(5)
    for _ in range(40):
        window = 2 * int(rng.integers(1, 8))
        m = int(rng.integers(window, window + 40))
        x = random_series(rng, m, kind)
        ref = [brute_strict(x[s : s + window])[window // 2] for s in range(m - window + 1)]
        for block in (1, 3, None):
            np.testing.assert_array_equal(sliding_centre_counts(x, window, block=block), ref)
        np.testing.assert_array_equal(sliding_centre_counts(x, window, method="sorted"), ref)


def test_sliding_methods_agree_on_long_windows():
    rng = np.random.default_rng(15)
    x = rng.integers(0, 50, size=5000).astype(float)
    block = sliding_centre_counts(x, 2048, method="block")
    np.testing.assert_array_equal(sliding_centre_counts(x, 2048, method="sorted"), block)
    np.testing.assert_array_equal(sliding_centre_counts(x, 2048), block)  # auto -> sorted
    assert block[0] == _strict_counts(x[:2048])[1024]
    assert block[-1] == _strict_counts(x[-2048:])[1024]
    with pytest.raises(ValueError, match="method"):
        sliding_centre_counts(x, 2048, method="fast")


def test_large_series_counts_match_pairwise_formula_at_a_few_splits():
    # n = 10^5: check a few splits against a direct count via sorting
    rng = np.random.default_rng(6)
    x = rng.integers(0, 1000, size=100_000).astype(float)
    counts = mann_whitney_counts(x)
    for k in (1, 777, 50_000, 99_999):
        right = np.sort(x[k:])
        less = int(np.searchsorted(right, x[:k], side="left").sum())
        equal = int(np.searchsorted(right, x[:k], side="right").sum()) - less
        assert counts[k] == less + equal / 2


# ------------------------------------------------------------ sensitivity
def test_candidate_range_and_rounding():
    assert candidate_range(200, 0.1) == (20, 180)
    assert candidate_range(30, 0.1) == (3, 27)  # 0.1 * 30 = 3.0000000000000004
    assert candidate_range(2, 0.49) == (1, 1)
    with pytest.raises(ValueError, match="gamma=0.45.*empty"):
        candidate_range(3, 0.45)


@pytest.mark.parametrize("n, gamma", [(8, 0.25), (9, 0.2), (12, 0.1), (11, 0.3)])
def test_sensitivity_is_the_worst_case_change_over_all_neighbours(n, gamma):
    """Δ = 1/min(k_lo, n-k_hi) bounds |V(k) - V'(k)| and is attained (replace one element)."""
    rng = np.random.default_rng(7)
    delta = pncpd_sensitivity(n, gamma)
    k_lo, k_hi = candidate_range(n, gamma)
    ks = np.arange(k_lo, k_hi + 1)
    worst = 0.0
    for _ in range(30):
        x = rng.integers(0, 4, size=n).astype(float)
        v = mann_whitney_statistic(x, ks)
        for t in range(n):
            for value in (-10.0, 1.5, 10.0):
                y = x.copy()
                y[t] = value
                worst = max(worst, np.abs(mann_whitney_statistic(y, ks) - v).max())
    assert worst <= delta + 1e-12
    assert worst == pytest.approx(delta)


def test_noise_scale_matches_algorithm_3():
    # γn integer: exactly Lap(2/(εγn)) of Algorithm 3
    assert pncpd_noise_scale(200, 0.1, 1.0) == pytest.approx(2 / (1.0 * 0.1 * 200))
    # γn not an integer: Δ = 1/⌈γn⌉ < 1/(γn), never more than the paper's noise
    assert pncpd_noise_scale(205, 0.1, 1.0) == pytest.approx(2 / 21)
    assert pncpd_noise_scale(205, 0.1, 1.0) <= 2 / (0.1 * 205)
    assert pncpd_noise_scale(200, 0.1, math.inf) == 0.0


def test_both_direction_scores_are_v_and_one_minus_v():
    x = np.random.default_rng(8).normal(size=50)
    ks, both = pncpd_scores(x, 0.1, "both")
    _, dec = pncpd_scores(x, 0.1, "decrease")
    _, inc = pncpd_scores(x, 0.1, "increase")
    np.testing.assert_array_equal(both, np.r_[dec, inc])
    np.testing.assert_allclose(inc, 1 - dec)
    assert ks[0] == 5 and ks[-1] == 45


# --------------------------------------------------------------- estimator
def step_series(rng, n, k_star, mu0, mu1):
    return np.r_[rng.normal(mu0, 1, k_star), rng.normal(mu1, 1, n - k_star)]


def test_fit_attributes_predict_and_privacy():
    x = step_series(np.random.default_rng(0), 200, 150, 0.0, 5.0)
    acc = Ledger()
    det = PrivateChangePointDetector(
        epsilon=2.0, n_change_points=1, random_state=1, accountant=acc
    ).fit(x)
    assert isinstance(det.change_point_, int)
    assert det.change_points_.tolist() == [det.change_point_]
    assert 10 <= det.change_point_ <= 190 and det.min_size_ == 10
    assert det.direction_ in ("increase", "decrease")
    assert det.directions_.tolist() == [det.direction_] and det.n_change_points_ == 1
    assert det.detected_ and det.n_seen_ == 200 and det.n_features_in_ == 1
    assert det.noise_scale_ == pytest.approx(2 / 2.0)  # Δ = 1, report-noisy-max 2Δ/ε
    assert det.privacy_spent_.epsilon == 2.0 and det.privacy_spent_.notion == "pure ε-DP"
    assert acc.total()[0] == pytest.approx(2.0)
    labels = det.predict(x)
    assert labels.tolist() == [0] * det.change_point_ + [1] * (200 - det.change_point_)
    np.testing.assert_array_equal(det.predict(x.reshape(-1, 1)), labels)
    # same seed, same answer; fit_predict = fit + predict
    again = PrivateChangePointDetector(
        epsilon=2.0, n_change_points=1, random_state=1, accountant=acc
    )
    np.testing.assert_array_equal(again.fit_predict(x), labels)
    assert acc.total()[0] == pytest.approx(4.0)


def test_privacy_cost_before_fit():
    cost = PrivateChangePointDetector(epsilon=0.3).privacy_cost()
    assert cost.epsilon == pytest.approx(0.3) and cost.delta == 0
    online = PrivateChangePointDetector(epsilon=0.3, window=100, threshold=0.8).privacy_cost()
    assert online.epsilon == 0.3


def test_no_fitted_attribute_holds_the_statistic():
    x = step_series(np.random.default_rng(1), 100, 50, 0.0, 1.0)
    det = PrivateChangePointDetector(epsilon=1.0, random_state=0).fit(x)
    for name, value in vars(det).items():
        if name.endswith("_") and not name.startswith("_"):
            # the change points and their directions are the DP outputs
            assert np.size(value) <= 1 or name in (
                "privacy_spent_",
                "change_points_",
                "directions_",
            ), name
        assert not (isinstance(value, np.ndarray) and value.dtype.kind == "f"), name


@pytest.mark.parametrize("k_star", [50, 100, 150])
def test_accuracy_large_change(k_star):
    # §2.6.2 setting (n = 200, N(0,1) -> N(5,1), γ = 0.1, ε = 5), 400 fresh series.
    # Observed P(|k̃ - k*| <= 10) is about 0.95 here; asserting > 0.8 fails with
    # probability < 1e-9 (binomial tail), the fixed seeds make it deterministic.
    rng = np.random.default_rng(k_star)
    X = np.stack([step_series(rng, 200, k_star, 0.0, 5.0) for _ in range(400)])
    k = pncpd_batch(X, epsilon=5.0, gamma=0.1, direction="increase", random_state=k_star)
    assert np.mean(np.abs(k - k_star) <= 10) > 0.8
    # the non-private estimator (ε = ∞) is more accurate still
    k_inf = pncpd_batch(X, epsilon=math.inf, gamma=0.1, direction="increase")
    assert np.mean(np.abs(k_inf - k_star) <= 2) > 0.95


def test_estimator_and_batch_agree_in_distribution():
    # Same series, 300 estimator fits vs 300 batch runs: medians within 3 of
    # each other and of k* (both ~N-like spread of a few points; a failure
    # would need a > 4-sigma deviation of a median).
    x = step_series(np.random.default_rng(2), 400, 260, 3.0, 0.0)
    fits = [
        PrivateChangePointDetector(
            epsilon=3.0, direction="decrease", n_change_points=1, random_state=s
        )
        .fit(x)
        .change_point_
        for s in range(300)
    ]
    batch = pncpd_batch(x, epsilon=3.0, direction="decrease", n_runs=300, random_state=0)
    assert abs(np.median(fits) - 260) <= 3 and abs(np.median(batch) - 260) <= 3


def test_direction_semantics():
    rng = np.random.default_rng(9)
    up = step_series(rng, 300, 120, 0.0, 4.0)
    down = -up
    for x, right, wrong in ((up, "increase", "decrease"), (down, "decrease", "increase")):
        one = dict(epsilon=5.0, n_change_points=1)
        good = [
            PrivateChangePointDetector(direction=right, random_state=s, **one).fit(x)
            for s in range(20)
        ]
        both = [
            PrivateChangePointDetector(direction="both", random_state=s, **one).fit(x)
            for s in range(20)
        ]
        bad = [
            PrivateChangePointDetector(direction=wrong, random_state=s, **one).fit(x)
            for s in range(20)
        ]
        # observed median error ~3 (max ~30): median <= 10 is a >5-sigma margin
        assert np.median([abs(d.change_point_ - 120) for d in good]) <= 10
        assert all(d.direction_ == right for d in good + both)
        assert np.median([abs(d.change_point_ - 120) for d in both]) <= 10
        # the wrong direction looks for the opposite change: it lands far from k*
        assert all(d.direction_ == wrong for d in bad)
        assert np.median([abs(d.change_point_ - 120) for d in bad]) > 100


@pytest.mark.parametrize(
    "method, mode",
    [
        ("fit", {}),
        ("fit", {"epsilon": 10.0, "window": 20, "threshold": 0.8}),
        ("partial_fit", {"epsilon": 10.0, "window": 20, "threshold": 0.8}),
    ],
)
@pytest.mark.parametrize(
    "X",
    [
        [["a"], ["b"]] * 20,
        np.array([["1.5"]] * 40),
        np.array([[0.5], ["secret"]] * 20, dtype=object),
    ],
)
def test_string_input_is_refused_by_name_before_a_charge(X, method, mode):
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **mode)
    with pytest.raises(
        ValueError, match="PrivateChangePointDetector supports numeric features only; X "
    ) as info:
        getattr(det, method)(X)
    # numpy's own message quotes a cell: no data value may reach an exception
    assert "secret" not in str(info.value) and "could not convert" not in str(info.value)
    assert acc.spent == [] and not hasattr(det, "privacy_spent_")


def test_huge_epsilon_is_the_exact_argmax_and_inf_is_rejected():
    x = step_series(np.random.default_rng(10), 100, 37, 0.0, 2.0)
    det = PrivateChangePointDetector(epsilon=1e6, direction="increase", n_change_points=1).fit(x)
    ks, e = segment_scores(x, 5)  # min_size = max(2, ceil(100/20)) = 5
    assert det.change_point_ == ks[np.argmin(e)]
    with pytest.raises(ValueError, match=r"epsilon.*range \[1e-06, 1048576.0\]"):
        PrivateChangePointDetector(epsilon=math.inf).fit(x)


@pytest.mark.parametrize(
    "X, kwargs, match",
    [
        ([1.0], {}, "min_size"),
        (np.arange(20.0), {"n_change_points": 4, "min_size": 5}, "needs at least 25"),
        (np.r_[np.zeros(5), np.nan], {}, "NaN"),
        (np.r_[np.zeros(5), np.inf], {}, "infinity"),
        (np.zeros((10, 2)), {}, "X has 2 features.*one series"),
        (np.zeros((2, 3, 4)), {}, "dim"),
        (np.arange(20.0), {"gamma": 0.5}, "gamma"),
        (np.arange(20.0), {"gamma": 0.0}, "gamma"),
        (np.arange(20.0), {"epsilon": 0.0}, "epsilon"),
        (np.arange(20.0), {"epsilon": -1.0}, "epsilon"),
        (np.arange(20.0), {"direction": "up"}, "direction"),
        (np.arange(20.0), {"window": 3, "threshold": 0.8}, "window"),
        (np.array(["a", "b", "c"]), {}, "supports numeric features only; X has non-numeric"),
    ],
)
def test_bad_input(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        PrivateChangePointDetector(**kwargs).fit(X)


def test_predict_before_fit_and_bad_shape():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PrivateChangePointDetector().predict(np.arange(5.0))
    det = PrivateChangePointDetector(random_state=0).fit(np.arange(80.0))
    with pytest.raises(ValueError, match="features"):
        det.predict(np.zeros((5, 2)))


# ------------------------------------------------------------------- drift
def test_drift_transform_and_mapping():
    np.testing.assert_array_equal(drift_transform([1.0, 4.0, 2.0, 2.0]), [3.0, 0.0])
    np.testing.assert_allclose(drift_transform(np.exp([1.0, 4.0]), f_inverse=np.log), [3.0])
    np.testing.assert_array_equal(drift_transform(np.arange(4.0).reshape(-1, 1)), [1.0, 1.0])
    with pytest.raises(ValueError, match="even number"):
        drift_transform(np.arange(5.0))
    with pytest.raises(ValueError, match="NaN"):
        drift_transform([1.0, np.nan])
    with pytest.raises(ValueError, match="f_inverse"):
        drift_transform([1.0, -1.0], f_inverse=np.log)
    with pytest.raises(TypeError, match="callable"):
        drift_transform([1.0, 2.0], f_inverse="log")
    assert drift_index_to_original(0) == 0
    np.testing.assert_array_equal(drift_index_to_original(np.array([3, 50])), [6, 100])
    with pytest.raises(TypeError):
        drift_index_to_original(1.5)


def test_drift_detection_figure_2_4_setting():
    # η = 1, ξ0 = 0, ξ1 = 5, e_t ~ N(0,1), n = 200; t* = 100 as in Figure 2.4
    # (even, so t̂ = 2k is exact). ε = 5, 300 series: observed P(|t̃ - t*| <= 20)
    # ≈ 0.8, asserting > 0.7 has a false-failure probability ~1e-5 (binomial tail).
    rng = np.random.default_rng(11)
    t = np.arange(1, 201)
    t_star = 100
    mu = np.where(t <= t_star, 1.0, 1.0 + (t - t_star) * 5.0)
    X = mu + rng.normal(size=(300, 200))
    Y = np.stack([drift_transform(x) for x in X])
    k = pncpd_batch(Y, epsilon=5.0, gamma=0.1, direction="increase", random_state=0)
    t_hat = drift_index_to_original(k)
    assert np.mean(np.abs(t_hat - t_star) <= 20) > 0.7
    k_inf = pncpd_batch(Y, epsilon=math.inf, gamma=0.1, direction="increase")
    assert np.mean(drift_index_to_original(k_inf) == t_star) > 0.9
    # t* = 2k and 2k + 1 give the same differences: an odd t* is found off by one
    X_odd = np.where(t <= 101, 1.0, 1.0 + (t - 101) * 5.0) + rng.normal(size=(300, 200))
    Y_odd = np.stack([drift_transform(x) for x in X_odd])
    k_odd = pncpd_batch(Y_odd, epsilon=math.inf, gamma=0.1, direction="increase")
    assert np.mean(drift_index_to_original(k_odd) == 100) > 0.9


# -------------------------------------------------------------- thresholds
def test_threshold_range_matches_section_2_6_3():
    a = 0.9997965  # P(N(5,1) > N(0,1))
    printed_upper = {1.0: 0.16, 5.0: 0.74, 10.0: 0.81, math.inf: 0.89}
    printed_lower = {1.0: 1.28, 5.0: 0.80, 10.0: 0.74, math.inf: 0.69}
    for eps in printed_upper:
        r = threshold_range(500, eps, a, 5000, 0.4, 0.1, convention="section-2.6")
        assert isinstance(r, ThresholdRange)
        assert abs(r.upper - printed_upper[eps]) < 0.01
        assert abs(r.lower - printed_lower[eps]) < 0.015
        assert r.empty == (eps in (1.0, 5.0))
        proof = threshold_range(500, eps, a, 5000, 0.4, 0.1)
        theorem = threshold_range(500, eps, a, 5000, 0.4, 0.1, convention="theorem")
        assert proof.lower >= theorem.lower >= r.lower and proof.upper == r.upper
    r = threshold_range(500, 10.0, a, 5000, 0.4, 0.1, convention="section-2.6")
    assert 0.8 in r and 0.9 not in r


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n=501), "even"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(a=0.5), "a must"),
        (dict(beta=1.0), "beta"),
        (dict(gamma=0.25), "gamma"),
        (dict(k_star=250), "k_star"),
        (dict(convention="paper"), "convention"),
    ],
)
def test_threshold_range_errors(kwargs, match):
    args = dict(n=500, epsilon=1.0, a=0.9, k_star=5000, beta=0.1, gamma=0.1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        threshold_range(**args)


def test_move_one_element():
    low, high = move_one_element(np.array([2.0, 0.0, 1.0]), 0)
    assert low.tolist() == [-1.0, 0.0, 1.0] and high.tolist() == [2.0, 0.0, 1.0]
    with pytest.raises(ValueError):
        move_one_element(np.zeros(3), 3)


def test_pncpd_batch_errors():
    with pytest.raises(ValueError, match="n_runs"):
        pncpd_batch(np.arange(10.0), epsilon=1.0)
    with pytest.raises(ValueError, match="n_runs"):
        pncpd_batch(np.zeros((2, 10)), epsilon=1.0, n_runs=3)
    with pytest.raises(ValueError, match="epsilon"):
        pncpd_batch(np.zeros((2, 10)), epsilon=0)
    with pytest.raises(ValueError, match="NaN"):
        pncpd_batch(np.array([[np.nan] * 10]), epsilon=1.0)


def test_warnings_are_not_raised_for_private_fits():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the fit
        det = PrivateChangePointDetector(random_state=0).fit(
            np.random.default_rng(0).normal(size=400)
        )
    assert det.privacy_spent_.epsilon <= det.privacy_cost().epsilon


# -- silent misconfiguration ---------------------------------------------------------


@pytest.mark.parametrize("threshold", [0.5, 1.0, 1.5, 0.2, -1.0])
def test_threshold_outside_one_half_to_one_is_refused(threshold):
    det = PrivateChangePointDetector(epsilon=1.0, window=500, threshold=threshold)
    with pytest.raises(ValueError, match=r"'threshold' parameter .* range \(0.5, 1.0\)"):
        det.partial_fit(np.zeros(10))


def test_threshold_without_window_is_refused():
    det = PrivateChangePointDetector(threshold=0.8)
    with pytest.raises(ValueError, match="threshold=0.8 is used only in online mode"):
        det.fit(np.arange(100.0))
    assert not hasattr(det, "change_point_")


@pytest.mark.parametrize("n", [4, 10, 30])
def test_series_too_short_for_any_change_are_refused_before_a_charge(n):
    ledger = BudgetAccountant(epsilon=5.0)
    with pytest.raises(ValueError, match=f"the series has {n} samples.*nothing was charged"):
        PrivateChangePointDetector(epsilon=1.0, accountant=ledger).fit(np.arange(float(n)))
    assert ledger.spent.epsilon == 0 and not ledger.history


@pytest.mark.parametrize("n, kwargs", [(40, {}), (40, {"n_change_points": 2})])
def test_short_series_warn_that_the_result_is_a_guess(n, kwargs):
    with pytest.warns(ChangePointNoiseWarning, match=f"the series has {n} samples") as record:
        PrivateChangePointDetector(epsilon=1.0, random_state=0, **kwargs).fit(np.arange(float(n)))
    assert record[0].filename == __file__  # points at the caller, not at sklearn
    assert "Use a longer series or a larger epsilon" in str(record[0].message)


def test_online_window_too_short_for_its_epsilon_warns():
    det = PrivateChangePointDetector(epsilon=1.0, window=40, threshold=0.8, random_state=0)
    with pytest.warns(ChangePointNoiseWarning, match="the window has 40 samples") as record:
        det.partial_fit(np.zeros(10))
    assert record[0].filename == __file__
