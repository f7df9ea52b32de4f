"""Several change points, or none: private binary segmentation, mid-rank ties,
min_size, the calibrated tests (offline and online) and their audits.

Every statistical assertion states its margin; the seeds are fixed, so the
outcomes are deterministic (the quoted false-failure rates are those of a
fresh seed).
"""

import warnings

import numpy as np
import pytest
from audit_scenarios.changepoint import move_one_element

from skdp_anomaly import BudgetAccountant, audit
from skdp_anomaly.changepoint import (
    PrivateChangePointDetector,
    binary_segmentation,
    online_pncpd_batch,
)
from skdp_anomaly.exceptions import ChangePointNoiseWarning
from skdp_anomaly.changepoint._binseg import (
    critical_value,
    default_min_size,
    noisy_test_statistic,
    segment_scores,
    segmentation_plan,
    useful_levels,
)
from skdp_anomaly.changepoint._online import CALIBRATED_ALARM_SHARE
from skdp_anomaly.changepoint._online_calibration import calibrated_threshold
from skdp_anomaly.privacy import LaplaceMechanism, ReportNoisyMax


def steps(rng, n, cps, levels):
    bounds = np.r_[0, cps, n]
    return np.concatenate(
        [rng.normal(level, 1, bounds[i + 1] - bounds[i]) for i, level in enumerate(levels)]
    )


# ------------------------------------------------------------ sensitivity
def neighbour_cases(kind, seed):
    """``(y, min_size, pairs)``: random segments (continuous or tied values) and, for
    each element, the worst-case neighbour pairs that move it."""
    rng = np.random.default_rng(seed)
    for _ in range(30):
        m, s = int(rng.integers(6, 40)), int(rng.integers(1, 4))
        if m < 2 * s:
            continue
        y = rng.normal(size=m) if kind == "normal" else rng.integers(0, 3, m).astype(float)
        pairs = []
        for t in range(m):
            low, high = move_one_element(y, t)
            pairs += [(y, low), (y, high), (low, high)]
        yield y, s, pairs


@pytest.mark.parametrize("kind", ["normal", "ties"])
def test_score_sensitivity_is_one_and_attained(kind):
    # every split's E(k) moves by at most 1 between worst-case neighbours, ties included
    worst = 0.0
    for _, s, pairs in neighbour_cases(kind, 1):
        for a, b in pairs:
            d = np.abs(segment_scores(a, s)[1] - segment_scores(b, s)[1]).max()
            assert d <= 1 + 1e-12
            worst = max(worst, d)
    assert worst == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["normal", "ties"])
def test_test_statistic_sensitivity_is_one_and_it_dominates_the_location_score(kind):
    # T = max_k B(k), B(k) = (S(k) - k(m-k)/2)/max(k, m-k): moves by at most 1 between
    # neighbours, ties included, and |B| >= |E| at every split (so a positive max E
    # is at most T)
    worst = 0.0
    for y, s, pairs in neighbour_cases(kind, 2):
        for direction in ("both", "increase", "decrease"):
            e = segment_scores(y, s)[1]
            top = {"both": np.abs(e), "increase": -e, "decrease": e}[direction].max()
            assert max(noisy_test_statistic(y, s, direction), 0.0) >= top - 1e-12
            for a, b in pairs:
                d = abs(
                    noisy_test_statistic(a, s, direction) - noisy_test_statistic(b, s, direction)
                )
                assert d <= 1 + 1e-12
                worst = max(worst, d)
    assert worst == pytest.approx(1.0)


# ------------------------------------------------------------------- ties
@pytest.mark.parametrize("up", [True, False])
def test_mid_rank_ties_find_a_noise_free_step_in_both_directions(up):
    x = np.r_[np.zeros(50), np.ones(50)]
    x = x if up else x[::-1]
    assert binary_segmentation(x, n_change_points=1).tolist() == [50]
    assert binary_segmentation(x).tolist() == [50]
    det = PrivateChangePointDetector(epsilon=1e4, n_change_points=1, random_state=0).fit(x)
    assert det.change_points_.tolist() == [50]
    assert det.direction_ == ("increase" if up else "decrease")


# --------------------------------------------------------- no change, some change
@pytest.mark.slow
def test_no_change_on_iid_data_in_most_runs():
    # α = 0.05: "no change" in ~95 % of runs (measured 0.95-0.97); asserting >= 70 %
    # of 100 runs fails with probability < 1e-9 for a fresh seed
    rng = np.random.default_rng(2)
    none = [
        PrivateChangePointDetector(epsilon=1.0, random_state=i)
        .fit(rng.normal(size=int(rng.integers(200, 500))))
        .n_change_points_
        == 0
        for i in range(100)
    ]
    assert np.mean(none) >= 0.7
    # the non-private reference at the same level: false alarms <= α (+ 3 sd)
    false = [binary_segmentation(rng.normal(size=300)).size > 0 for _ in range(300)]
    assert np.mean(false) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 300)


@pytest.mark.slow
def test_finds_one_and_three_clear_changes():
    # 5-sd steps at ε = 5. The location's precision is the private limit here (the
    # score's slope near a change is ≈ δ/2 per index against noise of scale ≈ 1):
    # measured right count with every error <= 30 in ~85 % (one) and ~75 % (three)
    # of runs; asserting >= 55 % of 40 runs fails with probability < 1 %
    rng = np.random.default_rng(3)
    one = three = 0
    for i in range(40):
        cps = (
            PrivateChangePointDetector(epsilon=5.0, random_state=i)
            .fit(steps(rng, 400, [150], [0, 5]))
            .change_points_
        )
        one += cps.size == 1 and abs(cps[0] - 150) <= 30
        cps = (
            PrivateChangePointDetector(epsilon=5.0, random_state=i)
            .fit(steps(rng, 800, [200, 400, 600], [0, 5, 0, 5]))
            .change_points_
        )
        three += cps.size == 3 and np.all(np.abs(cps - [200, 400, 600]) <= 30)
    assert one >= 22 and three >= 22
    # the non-private reference is exact here
    x = steps(np.random.default_rng(4), 800, [200, 400, 600], [0, 5, 0, 5])
    assert binary_segmentation(x).tolist() == [200, 400, 600]


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_exactly_k_change_points(k):
    rng = np.random.default_rng(k)
    for i, x in enumerate((rng.normal(size=300), steps(rng, 300, [100, 200], [0, 3, 0]))):
        det = PrivateChangePointDetector(epsilon=1.0, n_change_points=k, random_state=i).fit(x)
        cps = det.change_points_
        assert cps.size == k == det.n_change_points_ and np.all(np.diff(cps) > 0)
        assert det.predict(x).max() == k and np.bincount(det.predict(x)).size == k + 1
        assert binary_segmentation(x, n_change_points=k).size == k


@pytest.mark.slow
def test_min_size_is_respected():
    rng = np.random.default_rng(5)
    for i in range(30):
        n = int(rng.integers(100, 400))
        x = steps(
            rng, n, sorted(rng.choice(np.arange(10, n - 10), 3, replace=False)), rng.normal(0, 3, 4)
        )
        for kwargs in ({}, {"min_size": 25}, {"n_change_points": 3, "min_size": 20}):
            det = PrivateChangePointDetector(epsilon=2.0, random_state=i, **kwargs).fit(x)
            bounds = np.r_[0, det.change_points_, n]
            assert np.diff(bounds).min() >= det.min_size_
            assert det.min_size_ == kwargs.get("min_size", default_min_size(n))
    assert default_min_size(100) == 5 and default_min_size(10) == 2


def test_undecidable_series_warn_and_too_short_ones_are_refused():
    noise = np.random.default_rng(0).normal(size=400)
    with pytest.warns(ChangePointNoiseWarning, match="likely answer whatever the data"):
        PrivateChangePointDetector(epsilon=1.0, dependence="none", random_state=0).fit(noise[:60])
    # a perfect change would clear the test no more often than a false alarm: refused,
    # before any charge
    ledger = BudgetAccountant(epsilon=10.0)
    with pytest.raises(ValueError, match="no more often than a false alarm.*nothing was charged"):
        PrivateChangePointDetector(epsilon=0.1, accountant=ledger).fit(noise[:60])
    assert ledger.spent.epsilon == 0
    with pytest.raises(
        ValueError,
        match="n_change_points=3 with segments of at least min_size=10 needs at least 40",
    ):
        PrivateChangePointDetector(n_change_points=3, min_size=10).fit(np.arange(30.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PrivateChangePointDetector(random_state=0).fit(noise)


# ------------------------------------------------------------------ levels
def test_levels_that_cannot_decide_are_dropped_and_their_epsilon_moves_up():
    # public rule: the deepest level kept is one where a ~1-sd change (B ≈ m/8) in the
    # middle of a segment of n/2^(l-1) points clears that level's critical value
    assert useful_levels(100_000, 5.0, 10, 5000, 0.05, "both") == 4
    assert useful_levels(100, 1.0, 10, 5, 0.05, "both") == 1
    grow = [
        useful_levels(n, 1.0, 10, default_min_size(n), 0.05, "both")
        for n in (100, 400, 1600, 6400, 25600)
    ]
    assert grow == sorted(grow) and grow[0] < grow[-1]
    for n, eps in ((100, 1.0), (1000, 2.0), (100_000, 5.0)):
        s = default_min_size(n)
        plan = segmentation_plan(eps, "auto", 10, n=n, min_size=s)
        assert len(plan) == 2 * useful_levels(n, eps, 10, s, 0.05, "both")
        assert sum(m.epsilon for _, m in plan) == pytest.approx(eps)  # ε in total, always
    # with one level the first test and location get all of ε
    (_, test), (_, locate) = segmentation_plan(1.0, "auto", 10, n=100, min_size=5)
    assert test.epsilon == pytest.approx(1 / 4) and locate.epsilon == pytest.approx(3 / 4)


# ------------------------------------------------------------ calibration
def test_offline_calibration_is_deterministic_and_holds_on_fresh_nulls():
    c = critical_value(200, 10, "both", 0.05, 3.0)
    critical_value.cache_clear()
    assert critical_value(200, 10, "both", 0.05, 3.0) == c
    # fresh i.i.d. series (another generator than the calibration's): the noisy
    # test's false-alarm rate is <= α (2000 draws: sd 0.005; margin 3 sd)
    rng = np.random.default_rng(6)
    t = np.array([noisy_test_statistic(rng.normal(size=200), 10, "both") for _ in range(2000)])
    noisy = LaplaceMechanism(1 / 3, 1.0, neighbours="replace").randomise(t, rng)
    assert np.mean(noisy > c) <= 0.05 + 3 * 0.005


# ------------------------------------------------------------------ online
@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.ChangePointNoiseWarning")
@pytest.mark.parametrize("epsilon", [1.0, 20.0])
def test_online_false_alarms_on_iid_streams(epsilon):
    # α = 0.05 over the default horizon of 10 windows = the 1 000 points: measured
    # 2-3 %; asserting <= 10 % of 100 streams fails with probability < 1e-3
    rng = np.random.default_rng(7)
    alarms = [
        PrivateChangePointDetector(epsilon=epsilon, window=100, random_state=i)
        .fit(rng.normal(size=1000))
        .alarm_index_
        is not None
        for i in range(100)
    ]
    assert np.mean(alarms) <= 0.10


def test_online_detects_a_one_sd_shift_within_about_a_window():
    # window 100 at ε = 10 (AboveThreshold's 3ε/4 = 7.5: the calibrated threshold is
    # ≈ 0.73, below the ≈ 0.76 a 1-sd shift gives): measured 96 % of alarms within
    # one window after the change (64 % at ε = 5); asserting >= 70 % of 50 streams is
    # a > 4-sd margin. At ε = 1 the calibrated threshold is above 1 and a warning says so.
    # i.i.d. streams: dependence="none" (the default calibrates for AR(1) φ = 0.5)
    rng = np.random.default_rng(8)
    hits = 0
    for i in range(50):
        x = np.r_[rng.normal(size=500), rng.normal(1, 1, 500)]
        det = PrivateChangePointDetector(
            epsilon=10.0, window=100, dependence="none", random_state=i
        ).fit(x)
        hits += det.alarm_index_ is not None and 500 <= det.alarm_index_ + 49 <= 600
    assert hits >= 35
    assert det.threshold_ == calibrated_threshold(100, 7.5, "both", 0.05)
    assert det.serial_dependence_ == 0.0
    det = PrivateChangePointDetector(epsilon=10.0, window=100, random_state=0).fit(x)
    assert det.threshold_ == calibrated_threshold(100, 7.5, "both", 0.05, rho=0.5)
    assert det.serial_dependence_ == 0.5
    with pytest.warns(ChangePointNoiseWarning, match="only the noise can raise an alarm"):
        PrivateChangePointDetector(epsilon=1.0, window=100).fit(np.zeros(150))


# ------------------------------------------------------------------ audits
N_RUNS = 40_000


def test_audit_of_the_noisy_test_is_within_its_epsilon():
    # the first level's test release alone: T moves by the full Δ = 1 between these
    # neighbours (a 12-point series): the release is tight there, so the audit must
    # land in [0.8 ε_t, ε_t] (measured 0.86 ε_t with this seed)
    n, s = 12, 3
    low, high = move_one_element(np.arange(n, dtype=float)[::-1], 0)
    mech = segmentation_plan(1.0, "auto", 1)[0][1]
    c = critical_value(n, s, "both", 0.05, mech.scale)

    t_low, t_high = (noisy_test_statistic(x, s, "both") for x in (low, high))
    assert abs(t_high - t_low) <= 1.0

    def release(x, rng, runs):
        t = noisy_test_statistic(x, s, "both")
        return mech.randomise(np.full(runs, t), rng)

    # above both true values the Laplace tails differ by exactly e^{|ΔT|/b}
    top = max(t_low, t_high)
    events = {f"T > {v}": (lambda v: lambda o: o > v)(v) for v in (c, top, top + 1)}
    res = audit(
        release,
        (low, high),
        events,
        n_runs=N_RUNS,
        batch=True,
        random_state=0,
        claimed_epsilon=mech.epsilon,
    )
    assert 0.8 * mech.epsilon <= res.epsilon_lower_bound <= mech.epsilon, str(res)


def test_audit_of_the_location_is_within_its_epsilon():
    n, s, eps = 10, 5, 1.0  # one split: the scores E(5) and -E(5), gap moves by 2Δ
    low, high = move_one_element(np.arange(n, dtype=float)[::-1], 0)
    mech = ReportNoisyMax(eps, 1.0, neighbours="replace")

    def release(x, rng, runs):
        scores = np.r_[segment_scores(x, s)[1], -segment_scores(x, s)[1]]
        return mech.select(np.broadcast_to(scores, (runs, 2)), rng, axis=-1)

    events = {"decrease": lambda o: o == 0, "increase": lambda o: o == 1}
    res = audit(
        release, (low, high), events, n_runs=N_RUNS, batch=True, random_state=1, claimed_epsilon=eps
    )
    assert 0.5 * eps <= res.epsilon_lower_bound <= eps, str(res)


@pytest.mark.slow
def test_audit_of_the_whole_search_is_within_epsilon():
    # test + location (max_change_points=1: one level), the estimator's own code path
    n, eps = 12, 2.0
    low, high = move_one_element(np.arange(n, dtype=float)[::-1], 0)

    def release(x, rng):
        cps = binary_segmentation(x, epsilon=eps, min_size=3, max_change_points=1, random_state=rng)
        return int(cps[0]) if cps.size else -1

    events = {f"k={k}": (lambda v: lambda o: o == v)(k) for k in (-1, 3, 6, 9)}
    res = audit(release, (low, high), events, n_runs=4000, random_state=2, claimed_epsilon=eps)
    assert res.epsilon_lower_bound <= eps, str(res)


@pytest.mark.parametrize("epsilon", [1.0, 4.0])
def test_audit_of_the_calibrated_online_alarm_is_within_its_share(epsilon):
    # the calibrated threshold is public (no data): AboveThreshold stays 3ε/4-DP
    window, share = 20, CALIBRATED_ALARM_SHARE
    threshold = calibrated_threshold(window, epsilon * share, "decrease", 0.05, horizon=200)
    pair = move_one_element(np.arange(60, dtype=float), 19)

    def release(x, rng, runs):
        alarm, _ = online_pncpd_batch(
            x,
            window=window,
            threshold=threshold,
            epsilon=epsilon,
            direction="decrease",
            n_runs=runs,
            random_state=rng,
            alarm_share=share,
        )
        return alarm

    events = {
        "alarm at 10..19": lambda o: (o >= 10) & (o <= 19),
        "alarm at 20..29": lambda o: (o >= 20) & (o <= 29),
        "no alarm": lambda o: o < 0,
    }
    res = audit(
        release,
        pair,
        events,
        n_runs=N_RUNS,
        batch=True,
        random_state=3,
        claimed_epsilon=epsilon * share,
    )
    assert res.epsilon_lower_bound <= epsilon * share, str(res)
