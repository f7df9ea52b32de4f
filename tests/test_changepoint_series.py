"""Series models of the offline detector: the channels' sensitivities and audits, the
private choice between levels and increments, and changes of spread and slope."""

import numpy as np
import pytest

from skdp_anomaly import audit
from skdp_anomaly.changepoint import PrivateChangePointDetector, binary_segmentation
from skdp_anomaly.changepoint._binseg import _directed, _test_scores, segmentation_plan
from skdp_anomaly.changepoint._models import channels
from skdp_anomaly.changepoint._statistic import doubled_counts
from skdp_anomaly.changepoint._trend import TREND_SENSITIVITY, sign_sum_variance, sign_sums
from skdp_anomaly.privacy import GeometricMechanism, LaplaceMechanism

N_RUNS = 40_000


def channel_statistic(x, channel, order, s):
    """``T`` of one channel of the segment ``x`` (the released test statistic)."""
    v = channel.values(x, order)
    m = v.size
    ks = np.arange(s, m - s + 1, dtype=np.int64)
    return float(_directed(_test_scores(doubled_counts(v)[ks], ks, m), "both").max())


def worst_pair(channel, order, n=12, s=3, tries=4000):
    """The neighbours (one value replaced) that move the channel's ``T`` most."""
    rng = np.random.default_rng(7)
    best, pair = -1.0, None
    for _ in range(tries):
        x = rng.permutation(n).astype(float) if rng.random() < 0.5 else np.sort(rng.normal(size=n))
        y = x.copy()
        y[rng.integers(n)] = rng.normal(scale=n)
        gap = abs(channel_statistic(x, channel, order, s) - channel_statistic(y, channel, order, s))
        if gap > best:
            best, pair = gap, (x, y)
    return best, pair


@pytest.mark.parametrize("order", [0, 1])
def test_channel_sensitivities_hold_and_are_attained(order):
    # replacing one value moves the level channel's T by at most order + 1 and the
    # spread channel's by at most order + 2; the search reaches the bound
    for channel in channels(order):
        gap, _ = worst_pair(channel, order)
        assert gap <= channel.sensitivity + 1e-9
        assert gap >= channel.sensitivity - 1.0


@pytest.mark.parametrize("order", [0, 1])
def test_audit_of_each_channel_test_is_within_its_epsilon(order):
    # a channel's noisy test alone, with its sensitivity: the audit stays below its ε
    # and, on the pair moving T most, close to it where the move is the full Δ
    eps = 1.0
    for channel in channels(order):
        gap, (low, high) = worst_pair(channel, order)
        mech = LaplaceMechanism(eps, channel.sensitivity, neighbours="replace")

        def release(x, rng, runs, channel=channel, mech=mech):
            return mech.randomise(np.full(runs, channel_statistic(x, channel, order, 3)), rng)

        top = max(channel_statistic(x, channel, order, 3) for x in (low, high))
        events = {f"T > {v:g}": (lambda v: lambda o: o > v)(v) for v in (top, top + 1)}
        res = audit(
            release,
            (low, high),
            events,
            n_runs=N_RUNS,
            batch=True,
            random_state=0,
            claimed_epsilon=eps,
        )
        assert res.epsilon_lower_bound <= eps, str(res)
        assert res.epsilon_lower_bound >= 0.8 * eps * gap / channel.sensitivity, str(res)


def test_the_plan_prices_the_count_for_auto_and_not_for_a_forced_public_model():
    kinds = [k for k, _ in segmentation_plan(1.0, "auto", 3, series="auto", dependence="none")]
    assert kinds[0] == "dependence"
    kinds = [
        k for k, _ in segmentation_plan(1.0, "auto", 3, series="increments", dependence="none")
    ]
    assert "dependence" not in kinds
    for series in ("auto", "level", "increments"):
        det = PrivateChangePointDetector(epsilon=2.0, series=series)
        assert det.privacy_cost().epsilon == pytest.approx(2.0)


def test_walks_are_tested_as_increments_and_stationary_series_as_levels():
    # non-private reference (exact count): a walk's rate is 1/2, i.i.d. values' 2/3
    rng = np.random.default_rng(0)
    walk, iid = np.cumsum(rng.normal(size=400)), rng.normal(size=400)
    for x, model in ((walk, "increments"), (iid, "level")):
        det = PrivateChangePointDetector(epsilon=20.0, random_state=0).fit(x)
        assert det.series_ == model


def test_a_change_of_slope_is_found_as_a_slope():
    # a walk whose drift goes from 0 to 1 at 200 (ε = 5, 10 seeds; measured: found
    # within 40 points in 8 of 10, the location's privacy noise being the limit: at a
    # true rate of 0.8, fewer than 6 of 10 has probability 0.03)
    found = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        x = np.cumsum(rng.normal(size=400) + np.where(np.arange(400) >= 200, 1.0, 0.0))
        det = PrivateChangePointDetector(epsilon=5.0, random_state=seed).fit(x)
        found += any(
            abs(k - 200) <= 40 and kind == "slope"
            for k, kind in zip(det.change_points_, det.change_kinds_)
        )
    assert found >= 6


def test_a_change_of_spread_is_found_as_a_spread():
    found = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        x = rng.normal(size=400) * np.where(np.arange(400) >= 200, 4.0, 1.0)
        det = PrivateChangePointDetector(epsilon=5.0, random_state=seed).fit(x)
        found += any(
            abs(k - 200) <= 20 and kind == "spread"
            for k, kind in zip(det.change_points_, det.change_kinds_)
        )
    assert found >= 7


def test_exact_k_on_increments_locates_a_slope_change():
    rng = np.random.default_rng(1)
    x = np.cumsum(rng.normal(size=400) + np.where(np.arange(400) >= 150, 2.0, 0.0))
    cps = binary_segmentation(x, n_change_points=1, series="increments")
    assert abs(int(cps[0]) - 150) <= 5
    det = PrivateChangePointDetector(
        epsilon=5.0, n_change_points=1, series="increments", random_state=0
    ).fit(x)
    assert det.change_kinds_.tolist() == ["slope"] and abs(det.change_point_ - 150) <= 20


def test_bad_series_is_refused_by_name_before_any_charge():
    det = PrivateChangePointDetector(series="trend")
    with pytest.raises(ValueError, match="series"):
        det.fit(np.zeros(100))
    assert not hasattr(det, "privacy_spent_")
    with pytest.raises(ValueError, match="series must be one of"):
        binary_segmentation(np.zeros(100), series="trend")


def test_sign_sum_variance_is_the_simulated_one():
    # Sheppard's formula is exact for Gaussian AR(1) segments: 4 000 simulated sums per
    # case, the variance's sampling sd is about 2.2 %, the tolerance 10 % (> 4 sd)
    from scipy.signal import lfilter

    rng = np.random.default_rng(1)
    for h, phi in ((30, 0.0), (60, 0.5), (100, 0.8)):
        e = rng.normal(size=(4000, 2 * h))
        e[:, 1:] *= np.sqrt(1 - phi**2)
        y = lfilter([1], [1, -phi], e, axis=1)
        sums = np.sign(y[:, h:] - y[:, :h]).sum(axis=1)
        assert sums.var() == pytest.approx(sign_sum_variance(h, phi), rel=0.10)


def test_trend_counts_move_by_at_most_two_and_their_release_is_audited():
    # one value replaced moves one segment's count by at most 2 (random search), and
    # the noisy counts of the pair that moves it by 2 audit close to their ε
    rng = np.random.default_rng(2)
    worst = 0
    for _ in range(3000):
        x = rng.normal(size=20)
        y = x.copy()
        y[rng.integers(20)] = rng.normal(scale=5)
        cuts = [int(rng.integers(4, 16))]
        worst = max(worst, int(np.abs(sign_sums(x, cuts, 1)[0] - sign_sums(y, cuts, 1)[0]).sum()))
    assert worst == TREND_SENSITIVITY
    eps = 1.0
    mech = GeometricMechanism(eps, TREND_SENSITIVITY, neighbours="replace")
    low = np.arange(14.0)
    high = low.copy()
    high[0] = 100.0

    def release(x, rng, runs):
        sums, _ = sign_sums(x, [6], 1)
        return mech.randomise(np.tile(sums, (runs, 1)), rng)[:, 0]

    top = int(sign_sums(low, [6], 1)[0][0])
    events = {f"S1 >= {v}": (lambda v: lambda o: o >= v)(v) for v in (top, top + 1)}
    res = audit(
        release, (high, low), events, n_runs=N_RUNS, batch=True, random_state=0, claimed_epsilon=eps
    )
    assert 0.8 * eps <= res.epsilon_lower_bound <= eps, str(res)


def test_a_trend_is_no_change_and_alternating_shifts_keep_their_cuts():
    # ε = 5, n = 400, 20 seeds each. A trend of 4 (0.01 per step) plus AR(1) 0.5 noise
    # of unit sd: measured "no change" in 74 of 100 seeds (at 0.74, fewer than 10 of
    # 20 has probability 0.006). Shifts up, down and up (3 sd, i.i.d.) are steps:
    # measured called a trend in 1 of 50 (at 0.02, more than 3 of 20 has probability
    # < 1e-4)
    from scipy.signal import lfilter

    t = np.arange(400)
    quiet = trends = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        e = rng.normal(size=400)
        e[1:] *= np.sqrt(0.75)
        det = PrivateChangePointDetector(epsilon=5.0, random_state=seed).fit(
            0.01 * t + lfilter([1], [1, -0.5], e)
        )
        quiet += not det.detected_
        x = rng.normal(size=400) + 3 * (((t >= 100) & (t < 200)) | (t >= 300))
        det = PrivateChangePointDetector(epsilon=5.0, random_state=seed).fit(x)
        trends += det.series_ == "trend"
    assert quiet >= 10 and trends <= 3
