"""Behaviour of DPSMOTE's Gaussian synopsis (``synopsis="gaussian"``, the default).

Phase 1 releases each over-sampled class's sum in the unit box of ``bounds``
with Laplace noise of scale d/ε_h per coordinate and divides it by the DP class
size; phase 2 draws rows from N(mean, spread²) clipped to the bounds
(skdp_anomaly/over_sampling/: _statistics, _release, _synthesis). Behaviour shared with the grid
(output layout, streams, accountant, labels, bad data) is tested over both
synopses in tests/test_dpsmote.py; the privacy audits are in
tests/test_dpsmote_audit.py.

Seeds are fixed, so the tests are deterministic; each statistical assertion
states its false-failure rate over seeds.
"""

import warnings

import numpy as np
import pytest
from audit_scenarios.dpsmote import release_gaussian_batch
from sklearn.base import clone

from skdp_anomaly.over_sampling import DPSMOTE, _release
from skdp_anomaly.exceptions import DPSMOTENoiseWarning
from skdp_anomaly.over_sampling._release import mean_noise_scale, release_means
from skdp_anomaly.over_sampling._statistics import (
    BoxScale,
    class_fixed_sums,
    unit_fixed_sum,
    unit_sum,
)
from skdp_anomaly.over_sampling._synthesis import chunk_seeds, fill_gaussian

GRID_ONLY = ("n_cells_", "granularity_", "histogram_", "noisy_counts_")


def _two_classes(n_maj=2000, n_min=500, d=4, shift=0.5, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(-shift, 1.0, (n_maj, d)), rng.normal(shift, 1.0, (n_min, d))]
    return np.clip(X, -4, 4), np.r_[np.zeros(n_maj, int), np.ones(n_min, int)]


# -- phase 1: the DP class mean ---------------------------------------------------


def test_noisy_mean_is_close_to_the_class_mean_at_large_epsilon():
    # ε = 30: ε_c = 3 on the sizes, ε_h = 27 on the sums (d = 4, n = 500, bounds ±4).
    # Error of a coordinate in X units: 4·(|μ_u|·|Z|/ñ + |L|/ñ) with |μ_u| ≤ 0.25
    # (the class mean is ≈ 0.5, |μ_X| < 1). Tolerance 0.05 fails only if |Z| ≥ 6
    # (probability 2e^-18/(1+e^-3) ≈ 3e-8) or some |L| > 4.9 (Laplace scale 4/27:
    # 4·e^-33): false-failure rate < 1e-7.
    X, y = _two_classes()
    est = DPSMOTE(epsilon=30.0, bounds=(-4, 4), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DPSMOTENoiseWarning)  # no noise warning here
        est.fit_resample(X, y)
    assert est.synopsis_ == "gaussian" and set(est.noisy_means_) == {1}
    truth = X[y == 1].mean(axis=0)
    assert np.all(np.abs(truth) < 1)
    np.testing.assert_allclose(est.noisy_means_[1], truth, atol=0.05)
    assert est.noisy_means_[1].shape == (4,) and est.noisy_means_[1].dtype == np.float64


def test_noisy_mean_is_inside_the_bounds_even_when_noise_dominates():
    # ε = 0.05 and 8 minority rows: Laplace scale 3/(0.045·ñ) unit-box half-ranges,
    # far beyond the box; the mean is clipped to it (per feature bounds).
    rng = np.random.default_rng(1)
    X = np.r_[rng.uniform(-1, 1, (60, 3)), rng.uniform(-1, 1, (8, 3))] * [1, 5, 50]
    y = np.r_[np.zeros(60, int), np.ones(8, int)]
    lower, upper = np.array([-1, -5, -50.0]), np.array([1, 5, 50.0])
    outside = 0
    for seed in range(20):
        est = DPSMOTE(epsilon=0.05, bounds=(lower, upper), random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X_res, _ = est.fit_resample(X, y)
        for mean in est.noisy_means_.values():
            assert np.all(mean >= lower) and np.all(mean <= upper)
            outside += np.sum((mean == lower) | (mean == upper))
        assert np.all(X_res[len(X) :] >= lower) and np.all(X_res[len(X) :] <= upper)
    assert outside > 0  # clipping did happen, so the check above could fail


def test_release_means_divides_the_noisy_sum_by_the_dp_size():
    unit = 2**32  # the sums are fixed-point integers in units of 2^-32
    sums = np.array([[6 * unit, -3 * unit]])
    got = release_means(sums, np.array([3]), 1e9, np.random.default_rng(0))  # no noise left
    np.testing.assert_allclose(got, [[1.0, -1.0]], atol=1e-6)  # 2 → clipped to 1; -1
    got = release_means(np.array([[unit, unit]]), np.array([-4]), 1e9, np.random.default_rng(0))
    np.testing.assert_allclose(got, [[1.0, 1.0]], atol=1e-6)  # a size ≤ 0 divides by 1
    # (discrete) Laplace of scale b = d/ε per coordinate: d = 2, ε = 0.5 → variance
    # 2b² = 32. The sample variance over 2·10⁵ draws has standard error
    # √((24b⁴ − 4b⁴)/n) ≈ 0.16, so rtol 5 % (1.6) is 10 standard errors: false failure
    # < 1e-10 per coordinate. The scale 1/ε (sensitivity 1) would give 8 and fail.
    noisy = (
        release_means(
            np.zeros((200_000, 2), np.int64), np.ones(200_000) * 1e6, 0.5, np.random.default_rng(1)
        )
        * 1e6
    )
    np.testing.assert_allclose(noisy.var(axis=0), 32.0, rtol=0.05)
    # float-safe: every noisy sum is a multiple of 2^-32, whatever the true sum
    sums = release_means(
        np.full((1000, 2), 12345, np.int64), np.ones(1000), 0.5, np.random.default_rng(2)
    )
    steps = sums * unit
    assert np.array_equal(steps, np.rint(steps))


def test_mean_uses_the_noisy_size_not_the_true_one(monkeypatch):
    # Force the noisy sizes: the mean must be divided by the released size (post-
    # processing of the DP outputs), not by the exact class size.
    class FixedNoise(_release.GeometricMechanism):
        def randomise(self, counts, rng):
            return np.array([200, 50])

    monkeypatch.setattr(_release, "GeometricMechanism", FixedNoise)
    X = np.r_[np.full((200, 1), -0.5), np.full((100, 1), 0.5)]
    y = np.r_[np.zeros(200, int), np.ones(100, int)]
    est = DPSMOTE(epsilon=60.0, count_share=0.5, bounds=(-1, 1), random_state=0)
    est.fit_resample(X, y)
    # true sum 50 in the unit box, divided by the noisy size 50, not by 100; Laplace
    # scale 1/30 on the sum moves the mean by < 0.01 unless |L| > 0.5 (p = e^-15)
    assert est.noisy_means_[1][0] == pytest.approx(1.0, abs=0.01)


# -- phase 2: rows drawn from the synopsis only ----------------------------------


def test_synthetic_rows_depend_on_the_released_mean_only(monkeypatch):
    # Two datasets with the same (public) class sizes but different minority rows give
    # identical synthetic rows once the released mean is the same.
    monkeypatch.setattr(
        _release, "release_means", lambda sums, sizes, eps, rng: np.full(sums.shape, 0.25)
    )
    rng = np.random.default_rng(2)
    outs = []
    for spread_of_data in (0.1, 3.0):
        X = np.r_[rng.normal(-1, 1, (300, 3)), rng.normal(1, spread_of_data, (40, 3))]
        y = np.r_[np.zeros(300, int), np.ones(40, int)]
        est = DPSMOTE(bounds=(-4, 4), class_counts="public", random_state=5)
        X_res, _ = est.fit_resample(X, y)
        outs.append(X_res[len(X) :])
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(est.noisy_means_[1], 1.0)  # 0.25 of the half-range 4


def test_rows_are_clipped_to_the_bounds():
    # spread 3 half-ranges: most draws fall outside the box and are clipped onto it
    X, y = _two_classes(n_maj=600, n_min=100, d=3)
    lower, upper = np.array([-4, -2, 0.0]), np.array([4, 2, 1.0])
    est = DPSMOTE(epsilon=5.0, bounds=(lower, upper), spread=3.0, random_state=0)
    X_res, _ = est.fit_resample(X, y)
    synth = X_res[len(X) :]
    assert len(synth) == est.sampling_strategy_[1] > 400
    assert np.all(synth >= lower) and np.all(synth <= upper)
    # P(|μ + 3Z| ≤ 1) < 0.27 per coordinate: far more than 10 % of the rows sit on a
    # bound (binomial, n > 400: false failure < 1e-20)
    assert np.all(np.mean((synth == lower) | (synth == upper), axis=0) > 0.5)


@pytest.mark.parametrize("spread", [0.1, 0.2, 0.45])
def test_spread_is_the_std_in_half_ranges(spread):
    # A class centred in the box (mean ≈ 0 in the unit box; noise at ε = 20 is
    # < 0.01 half-range), so clipping at ±1 is ≥ 2.2 spreads away and removes
    # < 3 % of the mass at spread 0.45 (it shrinks the std by < 2.5 %). Per-feature
    # half-ranges 1, 10 and 0.5. Sample std over ~3000 rows has relative standard
    # error ≈ 1/√6000 ≈ 1.3 %; the tolerance 8 % (6 SE plus the clipping shrinkage)
    # gives a false-failure rate < 1e-8 per feature.
    rng = np.random.default_rng(3)
    lower, upper = np.array([-1, 0, 2.0]), np.array([1, 20, 3.0])
    centre, half = (lower + upper) / 2, (upper - lower) / 2
    X_min = centre + half * rng.uniform(-0.5, 0.5, (400, 3))
    X_maj = centre + half * rng.uniform(-1, 1, (3400, 3))
    X, y = np.r_[X_maj, X_min], np.r_[np.zeros(3400, int), np.ones(400, int)]
    est = DPSMOTE(epsilon=20.0, bounds=(lower, upper), spread=spread, random_state=0)
    X_res, _ = est.fit_resample(X, y)
    synth = X_res[len(X) :]
    assert len(synth) > 2900
    np.testing.assert_allclose(synth.std(axis=0), spread * half, rtol=0.08)
    # and centred on the released mean (6 SE: spread·half/√n)
    se = spread * half / np.sqrt(len(synth))
    assert np.all(np.abs(synth.mean(axis=0) - est.noisy_means_[1]) < 6 * se)


def test_spread_is_validated():
    X, y = _two_classes(n_maj=100, n_min=20)
    for bad in (0, -1.0, np.inf, np.nan, "wide"):
        with pytest.raises(ValueError, match="spread"):
            DPSMOTE(bounds=(-4, 4), spread=bad).fit_resample(X, y)
    with pytest.raises(ValueError, match="synopsis"):
        DPSMOTE(bounds=(-4, 4), synopsis="kde").fit_resample(X, y)


def test_features_whose_bounds_coincide():
    # BoxScale maps a feature with lower == upper to 0 (it carries no information) and
    # back to its single value; synthetic rows take that value exactly.
    box = BoxScale(np.array([0.0, 3.0]), np.array([2.0, 3.0]))
    U = box.to_unit(np.array([[1.0, 7.0], [2.0, -5.0], [9.0, 3.0]]))
    np.testing.assert_array_equal(U, [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(unit_sum(np.array([[1.0, 7.0], [2.0, -5.0]]), box), [1.0, 0.0])
    np.testing.assert_array_equal(box.from_unit(np.array([0.5, 0.9])), [1.5, 3.0])
    Z = fill_gaussian(
        np.array([0.0, 0.7]),
        0.5,
        box,
        chunk_seeds(np.random.default_rng(0), 500),
        np.empty((500, 2)),
    )
    assert np.all(Z[:, 1] == 3.0) and np.all((Z[:, 0] >= 0) & (Z[:, 0] <= 2))
    # DPSMOTE itself refuses such bounds (a zero-width feature has no cells either),
    # and bounds=None gives a constant feature a range of width 1
    X, y = _two_classes(n_maj=100, n_min=20, d=2)
    with pytest.raises(ValueError, match="lower must be < upper"):
        DPSMOTE(bounds=([-4, 3], [4, 3])).fit_resample(X, y)


def test_empty_class_sum_is_zero():
    box = BoxScale(np.zeros(3), np.ones(3))
    np.testing.assert_array_equal(unit_sum(np.zeros((0, 3)), box), np.zeros(3))


# -- warnings and messages: DP outputs and parameters only ----------------------------


@pytest.mark.parametrize("n_min, warns", [(17, True), (18, False)])
def test_noise_warning_threshold_is_half_a_half_range(n_min, warns):
    # class_counts="public" fixes n: d/(ε_h n) = 9/17 ≈ 0.53 > 0.5 warns, 9/18 = 0.5 does not
    X, y = _two_classes(n_maj=200, n_min=n_min, d=9)
    est = DPSMOTE(epsilon=1.0, bounds=(-4, 4), class_counts="public", random_state=0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est.fit_resample(X, y)
    mine = [w for w in record if issubclass(w.category, DPSMOTENoiseWarning)]
    assert bool(mine) is warns
    if warns:
        msg = str(mine[0].message)
        assert "0.529 half-ranges" in msg and "the public size of class 1 17" in msg
    assert mean_noise_scale(9, 1.0, n_min) == pytest.approx(9 / n_min)


def test_noise_warning_names_only_dp_outputs():
    # private counts: the message gives the noisy size, never the true one (20)
    X, y = _two_classes(n_maj=200, n_min=20, d=10)
    est = DPSMOTE(epsilon=1.0, bounds=(-4, 4), random_state=0)
    with pytest.warns(DPSMOTENoiseWarning, match="noisy mean of class 1") as record:
        est.fit_resample(X, y)
    noisy = est.noisy_class_counts_[1]
    assert noisy != 20  # this seed's noise is non-zero, so the check below can fail
    msgs = [str(w.message) for w in record if "noisy mean" in str(w.message)]
    assert len(msgs) == 1
    scale = 10 / (0.9 * max(noisy, 1))
    assert f"the noisy size of class 1 {noisy}" in msgs[0] and " 20)" not in msgs[0]
    assert f"{scale:.3g} half-ranges" in msgs[0] and "d=10" in msgs[0]
    assert "epsilon_hist=0.9" in msgs[0]


def test_no_warning_with_enough_rows():
    X, y = _two_classes(n_maj=2000, n_min=300, d=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DPSMOTENoiseWarning)  # a warning fails the test
        X_res, _ = DPSMOTE(epsilon=1.0, bounds=(-4, 4), random_state=0).fit_resample(X, y)
    assert len(X_res) > len(X)


# -- privacy cost and fitted attributes ----------------------------------------------


def test_privacy_cost_note_names_the_sums():
    cost = DPSMOTE(epsilon=1.0).privacy_cost()
    assert "ε=0.9 on the per-class sums (Gaussian synopsis)" in cost.notes[0]
    assert "ε=0.1 on the class sizes" in cost.notes[0]
    public = DPSMOTE(epsilon=1.0, class_counts="public").privacy_cost()
    assert "ε=1 on the per-class sums (Gaussian synopsis)" in public.notes[0]
    grid = DPSMOTE(epsilon=1.0, synopsis="grid").privacy_cost()
    assert "cell histograms" in grid.notes[0] and "sums" not in grid.notes[0]
    assert cost.epsilon == grid.epsilon == 1.0 and cost.neighbours == "add_remove"


@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.DPSMOTENoiseWarning")
def test_grid_only_attributes_are_absent_and_refit_drops_them():
    X, y = _two_classes(n_maj=400, n_min=80)
    est = DPSMOTE(bounds=(-4, 4), synopsis="grid", random_state=0)
    est.fit_resample(X, y)
    assert all(hasattr(est, a) for a in GRID_ONLY) and not hasattr(est, "noisy_means_")
    est.set_params(synopsis="gaussian").fit_resample(X, y)
    assert not any(hasattr(est, a) for a in GRID_ONLY)
    assert est.synopsis_ == "gaussian" and set(est.noisy_means_) == {1}
    fresh = clone(est).fit(X, y)
    assert not any(hasattr(fresh, a) for a in GRID_ONLY)
    assert fresh.privacy_spent_.epsilon == 1.0


def test_synopsis_grid_parameters_do_not_change_the_gaussian_release():
    # granularity, connectivity and histogram apply to the grid only
    X, y = _two_classes(n_maj=400, n_min=80)
    a = DPSMOTE(bounds=(-4, 4), random_state=4).fit_resample(X, y)[0]
    with pytest.warns(UserWarning, match="ignored with synopsis='gaussian'"):
        b = DPSMOTE(
            bounds=(-4, 4), random_state=4, granularity="auto", connectivity=0, histogram="sparse"
        ).fit_resample(X, y)[0]
    np.testing.assert_array_equal(a, b)


# -- the audit helper ------------------------------------------------------------------


def test_release_gaussian_batch():
    X, y = _two_classes(n_maj=400, n_min=80, d=3)
    est = DPSMOTE(epsilon=20.0, bounds=(-4, 4))
    sizes, means = release_gaussian_batch(est, X, y, 2000, mean_class=1, random_state=0)
    assert sizes.shape == (2000, 2) and means.shape == (2000, 3)
    assert np.all(np.abs(means) <= 1)
    # the average of 2000 releases is near the unit-box class mean (ε_h = 18: the
    # per-release sd is < 0.01, so 0.01 is > 20 standard errors of the average)
    np.testing.assert_allclose(means.mean(axis=0), X[y == 1].mean(axis=0) / 4, atol=0.01)
    assert not hasattr(est, "noisy_means_")  # estimator untouched
    sizes, both = release_gaussian_batch(
        clone(est).set_params(class_counts="public"), X, y, 10, mean_class=[0, 1], random_state=1
    )
    assert sizes is None and both.shape == (10, 6)
    with pytest.raises(ValueError, match="mean_class 7"):
        release_gaussian_batch(est, X, y, 5, mean_class=7)
    with pytest.raises(TypeError, match="DPSMOTE"):
        release_gaussian_batch(object(), X, y, 5, mean_class=1)


@pytest.mark.parametrize(
    "synopsis, params",
    [
        ("gaussian", {"granularity": "auto"}),
        ("gaussian", {"connectivity": 1, "histogram": "sparse"}),
        ("grid", {"spread": 0.3}),
    ],
)
def test_parameters_of_the_other_synopsis_warn_that_they_are_ignored(synopsis, params):
    X = np.random.default_rng(0).uniform(-1, 1, (200, 3))
    y = np.r_[np.zeros(170, int), np.ones(30, int)]
    sampler = DPSMOTE(epsilon=5.0, bounds=(-1, 1), synopsis=synopsis, random_state=0, **params)
    with pytest.warns(UserWarning, match="ignored with synopsis") as record:
        sampler.fit_resample(X, y)
    assert all(
        name in str(w.message) for w in record if "ignored" in str(w.message) for name in params
    )


def test_default_parameters_do_not_warn_about_the_other_synopsis():
    X = np.random.default_rng(0).uniform(-1, 1, (200, 3))
    y = np.r_[np.zeros(170, int), np.ones(30, int)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", category=DPSMOTENoiseWarning)
        X_res, _ = DPSMOTE(epsilon=5.0, bounds=(-1, 1), random_state=0).fit_resample(X, y)
    assert len(X_res) > len(X)  # a UserWarning above fails the test first


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_pass_class_sums_equal_the_gathered_sums_exactly(dtype):
    # the compiled one-pass kernel (both fit paths) against unit_fixed_sum on each class's
    # gathered rows: the same integers, with a flat feature and rows outside the bounds
    rng = np.random.default_rng(11)
    X = rng.normal(0, 1.5, (20_001, 4)).astype(dtype)
    X[:, 2] = 2.0
    codes = rng.integers(0, 3, 20_001)
    box = BoxScale(np.array([-2.0, -1.0, 2.0, -2.0]), np.array([2.0, 1.0, 2.0, 5.0]))
    sums, bad = class_fixed_sums(X, codes, 3, [0, 2], box)
    assert bad == 0 and sums.dtype == np.int64
    np.testing.assert_array_equal(sums[0], unit_fixed_sum(X[codes == 0], box))
    np.testing.assert_array_equal(sums[2], unit_fixed_sum(X[codes == 2], box))
    np.testing.assert_array_equal(sums[1], 0)  # not wanted: not read
    X[5, 1] = np.nan
    X[7, 3] = np.inf
    _, bad = class_fixed_sums(X, codes, 3, [0, 1, 2], box)
    assert bad == 2


def test_more_rows_than_exact_sums_hold_is_refused_before_any_release(monkeypatch):
    # the limit is on the rows passed (public to the caller), never on a class size
    from skdp_anomaly.over_sampling import _statistics

    monkeypatch.setattr(_statistics, "MAX_EXACT_SUM_ROWS", 1000)
    X, y = _two_classes(n_maj=900, n_min=200)
    est = DPSMOTE(epsilon=1.0, bounds=(-3, 3), random_state=0)
    with pytest.raises(ValueError, match="sums at most 1000 rows exactly; X has 1100"):
        est.fit_resample(X, y)
    assert not hasattr(est, "noisy_class_counts_")
