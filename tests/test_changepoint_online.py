"""ONLINEPNCPD (Lut 2022, Algorithm 4) through PrivateChangePointDetector.partial_fit."""

import math

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused

from skdp_anomaly.changepoint import PrivateChangePointDetector, online_pncpd_batch
from skdp_anomaly.changepoint._core import candidate_range


def paper_stream(seed, k_star=5000, after=1000):
    """§2.6.3: N(5, 1) before k*, N(0, 1) after."""
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(5, 1, k_star), rng.normal(0, 1, after)]


def feed(det, x, chunks):
    for chunk in np.array_split(x, chunks):
        det.partial_fit(chunk)
        if det.detected_:
            break
    return det


def reference_noiseless(x, window, threshold, gamma, direction):
    """Algorithm 4 with ε = ∞ written directly from the thesis, O(n²) per window."""
    h = window // 2
    g = candidate_range(window, gamma)[0]
    for s in range(len(x) - window + 1):
        left, right = x[s : s + h], x[s + h : s + window]
        u = np.mean(left[:, None] > right[None, :]) + 0.5 * np.mean(left[:, None] == right[None, :])
        q = {"decrease": u, "increase": 1 - u, "both": max(u, 1 - u)}[direction]
        if q > threshold:
            if s + window + g > len(x):
                return s + h, None
            seg = x[s + g : s + g + window]
            n = window
            k_lo, k_hi = candidate_range(n, gamma)
            best, best_k = -1.0, None
            for k in range(k_lo, k_hi + 1):
                v = np.mean(seg[:k, None] > seg[None, k:])
                for score in {"decrease": [v], "increase": [1 - v], "both": [v, 1 - v]}[direction]:
                    if score > best:
                        best, best_k = score, k
            return s + h, s + g + best_k
    return None, None


@pytest.mark.parametrize("direction", ["decrease", "increase", "both"])
def test_noiseless_online_equals_reference(direction):
    rng = np.random.default_rng(0)
    sign = 1 if direction != "increase" else -1
    x = sign * np.r_[rng.normal(2, 1, 300), rng.normal(0, 1, 200)]
    x = np.round(x, 1)  # ties
    ref_alarm, ref_cp = reference_noiseless(x, 40, 0.8, 0.1, direction)
    assert ref_cp is not None
    for chunks in (1, 9, 500):
        # ε = 1e6: noise of a few grid steps (~1e-7), far below the resolution 1/400
        det = PrivateChangePointDetector(
            epsilon=1e6, window=40, threshold=0.8, gamma=0.1, direction=direction
        )
        feed(det, x, chunks)
        assert det.alarm_index_ == ref_alarm and det.change_point_ == ref_cp


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_seed_repeats_a_run_and_every_chunking_detects(seed):
    # each call draws from its own generator (no generator is kept), so a seed
    # repeats a run chunk for chunk; other chunkings draw other noise
    x = paper_stream(seed, k_star=2000, after=600)
    for chunks in (1, 2, 13, 250, 2600):
        runs = [
            feed(
                PrivateChangePointDetector(
                    epsilon=3.0, window=200, threshold=0.8, direction="both", random_state=seed
                ),
                x,
                chunks,
            )
            for _ in range(2)
        ]
        a, b = ((d.alarm_index_, d.change_point_, d.direction_, d.n_seen_) for d in runs)
        assert a == b and runs[0].detected_
    # point by point too
    det = PrivateChangePointDetector(
        epsilon=3.0, window=200, threshold=0.8, direction="both", random_state=seed
    )
    for value in x:
        det.partial_fit([value])
        if det.detected_:
            break
    assert det.detected_ and det.n_seen_ <= x.size


def test_paper_setting_detection():
    # §2.6.3: k* = 5000, n = 500, T = 0.8, γ = 0.1, ε = 10. Over 5 streams x 200
    # runs we observe P(|k̃ - k*| <= 30) ≈ 0.999 and no false alarm; the
    # assertions (> 0.95, false alarms < 0.02) fail with probability < 1e-9.
    within, false_alarm = [], []
    for seed in range(5):
        x = paper_stream(seed)
        alarm, k = online_pncpd_batch(
            x,
            window=500,
            threshold=0.8,
            epsilon=10.0,
            gamma=0.1,
            direction="decrease",
            n_runs=200,
            random_state=seed,
        )
        within.append(np.abs(k - 5000) <= 30)
        false_alarm.append((alarm >= 0) & (alarm < 4750))
    assert np.mean(within) > 0.95
    assert np.mean(false_alarm) < 0.02


def test_estimator_paper_setting_a_few_runs():
    # 10 estimator runs (ε = 10): each within 30 of k* with probability ≈ 0.999
    # (above), so all 10 pass except with probability ~1e-2 per seed set; the
    # seeds are fixed, so the test is deterministic and was checked to pass.
    x = paper_stream(7)
    for seed in range(10):
        det = PrivateChangePointDetector(
            epsilon=10.0, window=500, threshold=0.8, direction="decrease", random_state=seed
        )
        feed(det, x, 60)
        assert det.detected_ and abs(det.change_point_ - 5000) <= 30
        assert 4750 < det.alarm_index_ <= 5000 + 250


def test_privacy_spent_progression_and_accountant():
    x = paper_stream(3, k_star=1000, after=400)
    acc = Ledger()
    det = PrivateChangePointDetector(
        epsilon=4.0, window=200, threshold=0.8, direction="decrease", random_state=0, accountant=acc
    )
    det.partial_fit(x[:150])  # window not full: nothing answered
    assert det.privacy_spent_.epsilon == 0.0 and acc.total()[0] == 0.0
    assert not det.detected_ and det.change_point_ is None and det.alarm_index_ is None
    assert det.predict(x[:10]).tolist() == [0] * 10
    det.partial_fit(x[150:600])  # "no alarm" answers are outputs: ε/2
    assert det.privacy_spent_.epsilon == 2.0 and acc.total()[0] == pytest.approx(2.0)
    feed(det, x[600:], 40)
    assert det.detected_
    assert det.privacy_spent_.epsilon == 4.0 and acc.total()[0] == pytest.approx(4.0)
    assert det.privacy_spent_.epsilon == det.privacy_cost().epsilon
    # halted: the detecting chunk is read only up to the detection
    g = candidate_range(200, 0.1)[0]
    assert det.n_seen_ == det.alarm_index_ + 100 + g
    # further chunks are ignored, so a loop over the whole stream runs to its end
    seen, point = det.n_seen_, det.change_point_
    assert det.partial_fit(x[:5]) is det
    assert det.n_seen_ == seen and det.change_point_ == point
    assert acc.total()[0] == pytest.approx(4.0)
    labels = det.predict(x)
    assert labels.sum() == len(x) - det.change_point_
    # fit starts over: the same seed gives the same answer as another fit
    fits = [
        PrivateChangePointDetector(
            epsilon=4.0,
            window=200,
            threshold=0.8,
            direction="decrease",
            random_state=0,
            accountant=acc,
        ).fit(x)
        for _ in range(2)
    ]
    assert fits[0].change_point_ == fits[1].change_point_
    assert fits[0].n_seen_ == fits[1].n_seen_


def test_alarm_without_enough_points_waits():
    x = paper_stream(4, k_star=600, after=400)
    # ε = 1e6: noise far below the statistic's resolution, i.e. noiseless
    det = PrivateChangePointDetector(epsilon=1e6, window=200, threshold=0.8, direction="decrease")
    det.partial_fit(x[:300])
    i = 300
    while det.alarm_index_ is None:
        det.partial_fit(x[i : i + 1])
        i += 1
    # the alarm fires on the last point of the window centred at alarm_index_,
    # then PNCPD waits for ⌈γn⌉ = 20 more points
    assert i == det.alarm_index_ + 100 and not det.detected_
    det.partial_fit(x[i : i + 19])
    assert not det.detected_ and det.change_point_ is None
    det.partial_fit(x[i + 19 :])
    assert det.detected_ and det.n_seen_ == i + 20


def test_no_alarm_on_a_stationary_stream():
    x = np.random.default_rng(5).normal(size=20_000)
    det = PrivateChangePointDetector(epsilon=10.0, window=500, threshold=0.8, random_state=0)
    det.fit(x)  # AboveThreshold false-alarm probability here < 1e-6
    assert not det.detected_ and det.alarm_index_ is None and det.n_seen_ == 20_000
    assert det.privacy_spent_.epsilon == 5.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(window=500, horizon=100), "horizon must be at least window"),
        (dict(window=501, threshold=0.8), "even"),
        (dict(window=500, threshold=0.8, gamma=0.3), r"gamma must be in the range \(0, 0.25\)"),
        (dict(window=2, threshold=0.8), "window"),
        (dict(window=500, threshold=np.nan), "threshold"),
    ],
)
def test_online_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PrivateChangePointDetector(**kwargs).partial_fit(np.zeros(10))


@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.ChangePointNoiseWarning")
def test_partial_fit_needs_window_and_clean_chunks():
    with pytest.raises(ValueError, match="window=None"):
        PrivateChangePointDetector().partial_fit(np.zeros(10))
    det = PrivateChangePointDetector(window=20, threshold=0.8, random_state=0)
    det.partial_fit(np.zeros(5))
    with pytest.raises(ValueError, match="NaN"):
        det.partial_fit([1.0, np.nan])
    # the float64-ndarray fast path refuses the same inputs
    for bad, match in (
        (np.array([1.0, np.nan]), "NaN"),
        (np.array([np.inf]), "infinity"),
        (np.zeros((4, 2)), "features"),
        (np.zeros((2, 2, 1)), "dim"),
    ):
        with pytest.raises(ValueError, match=match):
            det.partial_fit(bad)
    with pytest.raises(ValueError, match="features"):
        det.partial_fit(np.zeros((4, 2)))
    assert det.n_seen_ == 5  # nothing from the refused chunks was read


def test_online_batch_matches_estimator_noiseless():
    x = paper_stream(8, k_star=800, after=300)
    # ε = 1e6 is noiseless at the statistic's resolution
    det = PrivateChangePointDetector(epsilon=1e6, window=100, threshold=0.8, direction="both").fit(
        x
    )
    alarm, k = online_pncpd_batch(
        x, window=100, threshold=0.8, epsilon=math.inf, direction="both", n_runs=3
    )
    assert set(alarm) == {det.alarm_index_} and set(k) == {det.change_point_}


def test_online_batch_and_estimator_agree_in_distribution():
    # ε = 2 on a short stream: detection rate within 20 of k* from 200 batch runs
    # vs 100 estimator runs; both are ≈ 0.7 here and a gap > 0.2 would need a
    # > 3.5-sigma deviation.
    x = paper_stream(9, k_star=1500, after=500)
    alarm, k = online_pncpd_batch(
        x, window=200, threshold=0.8, epsilon=2.0, direction="decrease", n_runs=200, random_state=1
    )
    rate_batch = np.mean(np.abs(k - 1500) <= 20)
    hits = 0
    for seed in range(100):
        det = PrivateChangePointDetector(
            epsilon=2.0, window=200, threshold=0.8, direction="decrease", random_state=seed
        ).fit(x)
        hits += det.detected_ and abs(det.change_point_ - 1500) <= 20
    assert abs(rate_batch - hits / 100) < 0.2


def test_online_charges_each_stage_before_its_release(monkeypatch):
    """ε/2 is on the ledger before AboveThreshold answers, ε/2 more before PNCPD runs."""
    from skdp_anomaly.changepoint import _online

    x = paper_stream(3, k_star=1000, after=400)
    acc = Ledger()
    at_feed, pncpd = _online.AboveThreshold.feed, _online.pncpd
    seen = {"feed": [], "pncpd": []}

    def spy_feed(self, queries, rng=None):
        seen["feed"].append(acc.total()[0])
        return at_feed(self, queries, rng)

    def spy_pncpd(*args, **kw):
        seen["pncpd"].append(acc.total()[0])
        return pncpd(*args, **kw)

    monkeypatch.setattr(_online.AboveThreshold, "feed", spy_feed)
    monkeypatch.setattr(_online, "pncpd", spy_pncpd)
    det = PrivateChangePointDetector(
        epsilon=4.0, window=200, threshold=0.8, direction="decrease", random_state=0, accountant=acc
    )
    feed(det, x, 40)
    assert det.detected_
    assert seen["feed"] and min(seen["feed"]) == pytest.approx(2.0)
    assert seen["pncpd"] == [pytest.approx(4.0)]


@pytest.mark.parametrize("window", [None, 200])
def test_refused_budget_leaves_the_detector_unfitted(window):
    from sklearn.exceptions import NotFittedError

    x = paper_stream(3, k_star=1000, after=400)
    acc = Ledger(epsilon=1.0)
    kw = dict(window=window, threshold=0.8) if window else {}
    det = PrivateChangePointDetector(epsilon=2.0, accountant=acc, random_state=0, **kw)
    with pytest.raises(LedgerRefused):
        det.partial_fit(x) if window else det.fit(x)
    assert acc.total()[0] == 0
    assert not [k for k in vars(det) if k.endswith("_")]
    with pytest.raises(NotFittedError):
        det.predict(x[:10])


def test_online_statistic_counts_ties_as_halves():
    # integer-valued streams are full of ties: counted one-sidedly, a stationary
    # stream of counts looked like an increase; with mid-ranks U is 1/2 on ties
    from skdp_anomaly.changepoint._statistic import sliding_centre_mid_counts

    x = np.ones(40)
    doubled, last = sliding_centre_mid_counts(x, 20)
    assert np.all(doubled == 100) and last == (0, 0)  # 2·(½·h²) with h = 10
    rng = np.random.default_rng(3)
    counts = rng.poisson(2.0, 5000).astype(float)
    whole, _ = sliding_centre_mid_counts(counts, 100)
    head, carry = sliding_centre_mid_counts(counts[:2000], 100)
    tail, _ = sliding_centre_mid_counts(counts[2000 - 100 :], 100, first=carry)
    np.testing.assert_array_equal(np.r_[head, tail[1:]], whole)  # carries over exactly
    assert abs(whole.mean() / (2 * 50 * 50) - 0.5) < 0.01  # stationary: centred on 1/2


# ------------------------------------------------ calibration for long streams
from skdp_anomaly.changepoint._online_calibration import (
    calibrated_threshold,
    default_arl0,
    null_centre_counts,
    null_ranks,
)


def test_null_centre_counts_match_the_statistic():
    # the calibration's compiled counts (Fenwick trees) against the estimator's own
    from skdp_anomaly.changepoint._statistic import sliding_centre_counts

    ranks = null_ranks(3, 300, 0.0, np.random.default_rng(0))
    assert all(np.array_equal(np.sort(r), np.arange(300)) for r in ranks)
    counts = null_centre_counts(ranks, 40)
    for row, got in zip(ranks, counts):
        np.testing.assert_array_equal(got, sliding_centre_counts(row.astype(float), 40))
    ar = null_ranks(2, 4000, 0.5, np.random.default_rng(1))
    lag1 = np.corrcoef(ar[0, :-1], ar[0, 1:])[0, 1]
    assert 0.4 < lag1 < 0.6  # rank correlation of AR(1) rho=0.5 is ~0.48; sd ~0.015


def test_calibration_is_deterministic_and_ordered():
    t = calibrated_threshold(20, 3.0, "both", 0.05, horizon=2000)
    calibrated_threshold.cache_clear()
    assert calibrated_threshold(20, 3.0, "both", 0.05, horizon=2000) == t
    # longer streams, longer run lengths and dependent nulls need higher thresholds
    assert calibrated_threshold(20, 3.0, "both", 0.05, horizon=20_000) > t
    assert calibrated_threshold(20, 3.0, "both", 0.05, arl0=40_000) > calibrated_threshold(
        20, 3.0, "both", 0.05, arl0=4000
    )
    assert calibrated_threshold(20, 3.0, "both", 0.05, horizon=2000, rho=0.5) > t
    assert calibrated_threshold(20, 3.0, "both", 0.05) == calibrated_threshold(
        20, 3.0, "both", 0.05, arl0=default_arl0(20)
    )
    assert 0.5 < calibrated_threshold(20, math.inf, "both", 0.05, horizon=2000) <= 1.0
    with pytest.raises(ValueError, match="not both"):
        calibrated_threshold(20, 3.0, "both", 0.05, horizon=2000, arl0=4000)
    with pytest.raises(ValueError, match="rho"):
        calibrated_threshold(20, 3.0, "both", 0.05, rho=0.99)


def _null_alarm_rate(window, threshold, epsilon, length, n_streams, rho, seed):
    """AboveThreshold's noise as the detector draws it, on whole null streams
    (simulated directly, another seed than the calibration's blocks)."""
    from skdp_anomaly.privacy import AboveThreshold

    rng = np.random.default_rng(seed)
    h = window // 2
    counts = null_centre_counts(null_ranks(n_streams, length, rho, rng), window)
    u = counts / float(h * h)
    at = AboveThreshold(threshold=threshold, epsilon=epsilon, sensitivity=2.0 / window, rng=rng)
    noisy = at.to_steps(np.maximum(u, 1 - u)) + at.query_noise(u.shape, rng)
    noisy_threshold = at.threshold_steps + at.threshold_noise(n_streams, rng)
    return np.mean((noisy >= noisy_threshold[:, None]).any(axis=1))


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_extrapolated_calibration_holds_on_streams_simulated_directly(rho):
    # horizon 6000 = 3 simulated blocks of 2000 points: the extrapolated bound.
    # Measured 0.02-0.04 (alpha 0.05, the bounds err towards fewer alarms);
    # asserting <= 0.05 + 3 sd of 500 streams (0.079) fails with probability
    # < 0.002 if the true rate is 0.05
    t = calibrated_threshold(20, 3.0, "both", 0.05, horizon=6000, rho=rho)
    assert _null_alarm_rate(20, t, 3.0, 6000, 500, rho, seed=11) <= 0.079


@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.ChangePointNoiseWarning")
def test_default_calibration_is_an_average_run_length():
    det = PrivateChangePointDetector(epsilon=4.0, window=20, random_state=0)
    det.partial_fit(np.random.default_rng(2).normal(size=50))
    # the default dependence="estimate" calibrates online for AR(1) φ = 0.5
    assert det.threshold_ == calibrated_threshold(20, 3.0, "both", 0.05, arl0=20_000, rho=0.5)
    given = PrivateChangePointDetector(
        epsilon=4.0, window=20, arl0=4000, dependence="none"
    ).partial_fit(np.zeros(5))
    assert given.threshold_ == calibrated_threshold(20, 3.0, "both", 0.05, arl0=4000)
    # a flat stream of 50 windows alarms rarely: the default arl0 is 1000 windows
    # (measured 0.06 on 2000 streams simulated directly); asserting <= 0.15 over 60
    # streams fails with probability < 0.005
    rng = np.random.default_rng(3)
    alarms = [
        PrivateChangePointDetector(epsilon=4.0, window=20, random_state=i)
        .fit(rng.normal(size=1000))
        .alarm_index_
        is not None
        for i in range(60)
    ]
    assert np.mean(alarms) <= 0.15


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(window=20, arl0=30), "arl0 must be at least"),
        (dict(window=20, arl0=1000, horizon=1000), "give one of them"),
        (dict(window=20, arl0=1000, threshold=0.8), "set threshold=None"),
        (dict(arl0=1000), "only in online mode"),
    ],
)
def test_arl0_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PrivateChangePointDetector(**kwargs).fit(np.zeros(10))


def test_alarm_at_is_the_row_whose_arrival_raised_the_alarm():
    # the alarming window [c - h, c + h) is complete when its last row arrives
    rng = np.random.default_rng(0)
    stream = np.r_[rng.normal(5, 1, 6000), rng.normal(0, 1, 4000)]
    det = PrivateChangePointDetector(epsilon=5.0, window=500, direction="decrease", random_state=0)
    for chunk in np.array_split(stream, 100):
        det.partial_fit(chunk)
    assert det.alarm_at_ == det.alarm_index_ + 250 - 1
    assert 6000 <= det.alarm_at_ < det.n_seen_
    quiet = PrivateChangePointDetector(epsilon=5.0, window=500, random_state=0).partial_fit(
        rng.normal(size=300)
    )  # no window complete: no alarm
    assert quiet.alarm_at_ is None and quiet.alarm_index_ is None
