"""Privacy audits of PNCPD / ONLINEPNCPD on worst-case neighbouring series.

Neighbours: "replace one element"; the worst case moves one element from
below all the others to above all of them (``move_one_element``), which
changes every count of Eq. (2.1) it enters by the most possible. The events
are fixed before any output is drawn. ``audit`` returns a Clopper–Pearson
lower bound at 95% confidence: a bound above the claimed ε would refute the
claim (false-failure probability <= 5% per audit for a correct mechanism;
with the fixed seeds the outcome is deterministic).
"""

import numpy as np
import pytest
from audit_scenarios.changepoint import move_one_element

from skdp_anomaly import audit
from skdp_anomaly.changepoint import PrivateChangePointDetector, online_pncpd_batch, pncpd_batch
from skdp_anomaly.changepoint._core import candidate_range

# long statistical audits: CI runs them in one job (`-m slow` selects them,
# `-m "not slow"` leaves them out; docs/contributing.md)
pytestmark = pytest.mark.slow

N_RUNS = 40_000


def offline_mechanism(n, epsilon, gamma, direction):
    def mech(x, rng, runs):
        k, increase = pncpd_batch(
            x,
            epsilon=epsilon,
            gamma=gamma,
            direction=direction,
            n_runs=runs,
            random_state=rng,
            return_direction=True,
        )
        return k + n * increase  # the full output: index and direction

    return mech


def point_events(n, gamma):
    k_lo, k_hi = candidate_range(n, gamma)
    events = {}
    for k in range(k_lo, k_hi + 1):
        events[f"k={k}, decrease"] = (lambda v: lambda out: out == v)(k)
        events[f"k={k}, increase"] = (lambda v: lambda out: out == v)(k + n)
    return events


def test_both_directions_tiny_range_is_close_to_epsilon():
    # n = 10, γ = 0.45: one split (k = 5), two scores V(5) and 1 - V(5) whose gap
    # moves by 2Δ: the mechanism is as tight as report-noisy-max gets. The exact
    # privacy loss of the event "increase" is log(e^ε (2 + 1.5)/(2 + 2.5)) ≈ 0.75ε
    # (difference-of-Laplace tails), so the audit must land in [0.6ε, ε]; with
    # doubled noise it would be ≈ 0.33ε (catches over-noising).
    eps, n, gamma = 1.0, 10, 0.45
    low, high = move_one_element(np.arange(n, dtype=float)[::-1], 0)
    res = audit(
        offline_mechanism(n, eps, gamma, "both"),
        (low, high),
        point_events(n, gamma),
        n_runs=N_RUNS * 2,
        batch=True,
        random_state=0,
        claimed_epsilon=eps,
        name="PNCPD both, n=10",
    )
    assert 0.6 * eps <= res.epsilon_lower_bound <= eps, str(res)


@pytest.mark.parametrize("direction", ["decrease", "both"])
@pytest.mark.parametrize("n, gamma, t", [(20, 0.1, 0), (24, 0.25, 11), (12, 0.3, 6)])
def test_offline_within_epsilon(direction, n, gamma, t):
    eps = 1.0
    for base in (np.arange(n, dtype=float)[::-1], np.random.default_rng(n).normal(size=n)):
        pair = move_one_element(base, t)
        res = audit(
            offline_mechanism(n, eps, gamma, direction),
            pair,
            point_events(n, gamma),
            n_runs=N_RUNS,
            batch=True,
            random_state=t,
            claimed_epsilon=eps,
        )
        assert res.epsilon_lower_bound <= eps, str(res)


# a 10-point series is the worst case for the audit, and far too short to be useful
@pytest.mark.filterwarnings("ignore::skdp_anomaly.exceptions.ChangePointNoiseWarning")
def test_estimator_path_within_epsilon():
    # the estimator itself (not the batch helper), one fit per run
    eps, n, gamma = 1.0, 10, 0.45
    low, high = move_one_element(np.arange(n, dtype=float)[::-1], 0)

    def mech(x, rng):
        # one change point, min_size 5: one split, the scores E(5) and -E(5) (Δ = 1)
        det = PrivateChangePointDetector(
            epsilon=eps, n_change_points=1, min_size=5, random_state=rng
        ).fit(x)
        return det.change_point_ + n * (det.direction_ == "increase")

    res = audit(
        mech, (low, high), point_events(n, gamma), n_runs=3000, random_state=1, claimed_epsilon=eps
    )
    assert res.epsilon_lower_bound <= eps, str(res)
    # the two outputs really are differently likely (so the audit has power)
    assert res.epsilon_lower_bound > 0.2, str(res)


WINDOW, HALF = 20, 10


def online_mechanism(threshold, epsilon, direction="decrease"):
    def mech(x, rng, runs):
        alarm, k = online_pncpd_batch(
            x,
            window=WINDOW,
            threshold=threshold,
            epsilon=epsilon,
            gamma=0.1,
            direction=direction,
            n_runs=runs,
            random_state=rng,
        )
        return np.stack([alarm, k], axis=1)

    return mech


# Increasing stream: every centre statistic U is 0. Moving x_19 below all others
# raises U to 2/n on the windows centred at 10..19 (x_19 in their right half);
# moving it above all others raises U on the windows centred at 20..29 instead.
ALARM_EVENTS = {
    "alarm at 10..19": lambda o: (o[:, 0] >= 10) & (o[:, 0] <= 19),
    "alarm at 20..29": lambda o: (o[:, 0] >= 20) & (o[:, 0] <= 29),
    "alarm at 10": lambda o: o[:, 0] == 10,
    "no alarm": lambda o: o[:, 0] < 0,
}


@pytest.mark.parametrize("threshold, epsilon", [(0.5, 1.0), (0.3, 2.0), (1.5, 1.0)])
def test_online_above_threshold_within_half_epsilon(threshold, epsilon):
    pair = move_one_element(np.arange(60, dtype=float), 19)
    res = audit(
        online_mechanism(threshold, epsilon),
        pair,
        ALARM_EVENTS,
        n_runs=N_RUNS,
        batch=True,
        random_state=2,
        claimed_epsilon=epsilon / 2,
    )
    # the alarm index alone is AboveThreshold's output: ε/2
    assert res.epsilon_lower_bound <= epsilon / 2, str(res)
    assert res.epsilon_lower_bound > 0.1 * epsilon, str(res)  # the audit sees the change


def test_online_full_output_within_epsilon():
    eps = 2.0
    pair = move_one_element(np.arange(60, dtype=float), 19)
    events = dict(ALARM_EVENTS)
    for c in (12, 15, 22, 25):
        events[f"change point {c}"] = (lambda v: lambda o: o[:, 1] == v)(c)
        events[f"alarm<=19 and change point {c}"] = (
            lambda v: lambda o: (o[:, 0] >= 0) & (o[:, 0] <= 19) & (o[:, 1] == v)
        )(c)
    res = audit(
        online_mechanism(0.3, eps, "both"),
        pair,
        events,
        n_runs=N_RUNS,
        batch=True,
        random_state=3,
        claimed_epsilon=eps,
    )
    assert res.epsilon_lower_bound <= eps, str(res)


def test_turning_point_release_is_within_its_share_and_tight():
    # The dependence stage of "auto" releases the turning-point count (ties broken by
    # random keys) with two-sided geometric noise at Δ = 2. A monotone series and the
    # one with its middle value raised above its neighbours differ by exactly 2
    # turning points, the worst case, so the tail event "count >= 2" has the exact
    # privacy loss ε_d of the stage: the audit must land in [0.8 ε_d, ε_d].
    from skdp_anomaly.changepoint._binseg import _model, segmentation_plan
    from skdp_anomaly.changepoint._dependence import turning_points

    kind, mechanism = segmentation_plan(5.0, "auto", 10, dependence="estimate")[0]
    assert kind == "dependence" and mechanism.sensitivity == 2
    eps_d = mechanism.epsilon

    def release(x, rng, runs):  # the stage's count and noise, vectorised over runs
        return turning_points(x, rng) + mechanism.noise(runs, rng)

    low = np.arange(5.0)
    high = low.copy()
    high[2] = 10.0
    report = {}
    _model(
        high,
        [("dependence", mechanism)],
        "auto",
        "estimate",
        np.random.default_rng(0),
        lambda cost: None,
        report,
    )
    assert isinstance(report["noisy_turning_points"], int)  # the stage releases this count
    res = audit(
        release,
        (low, high),
        {"count >= 2": lambda out: out >= 2},
        n_runs=N_RUNS,
        batch=True,
        random_state=1,
        claimed_epsilon=eps_d,
        name="turning points, geometric Δ=2",
    )
    assert 0.8 * eps_d <= res.epsilon_lower_bound <= eps_d, str(res)
