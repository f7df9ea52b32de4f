"""The serially dependent null of the offline change-point test (``dependence``).

Statistical tests fix their seeds; each states its false-failure rate for a
correct implementation.
"""

import math
import warnings

import numpy as np
import pytest
from scipy.signal import lfilter
from sklearn.utils._param_validation import InvalidParameterError

from skdp_anomaly.changepoint import PrivateChangePointDetector
from skdp_anomaly.exceptions import ChangePointNoiseWarning
from skdp_anomaly.changepoint._binseg import public_rho, segmentation_plan
from skdp_anomaly.changepoint._dependence import (
    MAX_RHO,
    RHO_FLOOR,
    dependence_bound,
    rank_long_run_factor,
    rho_from_turning_rate,
    turning_points,
    turning_rate,
)


def ar1(n, phi, rng):
    e = rng.normal(size=n)
    e[1:] *= math.sqrt(1 - phi * phi)
    return lfilter([1.0], [1.0, -phi], e)


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.8])
def test_turning_rate_matches_simulated_ar1_series(phi):
    # 200 series of 500: the mean rate has standard error < 0.002; 0.01 is 5 of them
    rng = np.random.default_rng(7)
    rates = [turning_points(ar1(500, phi, rng), rng) / 498 for _ in range(200)]
    assert np.mean(rates) == pytest.approx(turning_rate(phi), abs=0.01)
    assert rho_from_turning_rate(turning_rate(phi)) == pytest.approx(phi)


def test_ties_are_broken_at_random_not_read_as_dependence():
    rng = np.random.default_rng(0)
    constant = np.zeros(3000)
    counts = rng.poisson(1.0, 3000).astype(float)  # many ties, i.i.d.
    for x in (constant, counts):
        # i.i.d. rate 2/3, standard error ~0.008 at this length: 0.03 is > 3.5 of them
        assert turning_points(x, rng) / 2998 == pytest.approx(2 / 3, abs=0.03)


def test_the_bound_is_monotone_floored_and_infinite_for_a_random_walk():
    n = 1000
    bounds = [dependence_bound(int(p * (n - 2)), n, None) for p in (2 / 3, 0.6, 0.55, 0.5)]
    assert bounds == sorted(bounds) and bounds[0] == RHO_FLOOR
    assert math.isinf(bounds[-1])
    assert dependence_bound(0, n, None, floor=0.0) == math.inf
    assert 2.8 < rank_long_run_factor(0.5) < 3.0 and rank_long_run_factor(0.0) == 1.0
    assert public_rho("estimate") == RHO_FLOOR and public_rho("none") == 0.0
    assert public_rho(0.31) == pytest.approx(0.35)


def test_ar1_series_without_change_rarely_get_one():
    # φ = 0.8, n = 300, ε = 5: the exchangeable null reports a change in ~75 % of
    # such series, the default in ~5 % (levels at φ⁺ >= 0.5, or increments). With a
    # true rate <= 5 %, 3 or more of 15 has probability < 4 %.
    rng = np.random.default_rng(11)
    alarms = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChangePointNoiseWarning)
        for i in range(15):
            det = PrivateChangePointDetector(epsilon=5.0, random_state=i)
            alarms += det.fit(ar1(300, 0.8, rng)).detected_
            assert det.series_ == "increments" or det.serial_dependence_ >= RHO_FLOOR
            assert isinstance(det.noisy_turning_points_, int)
    assert alarms <= 2


def test_a_random_walk_is_tested_as_increments():
    walk = np.cumsum(np.random.default_rng(3).normal(size=500))
    det = PrivateChangePointDetector(epsilon=5.0, random_state=0).fit(walk)
    assert det.series_ == "increments" and det.change_points_.size == 0
    assert 0 <= det.serial_dependence_ <= MAX_RHO


def test_a_random_walk_forced_to_levels_gets_no_test_and_a_warning_that_says_what_to_do():
    walk = np.cumsum(np.random.default_rng(3).normal(size=500))
    with pytest.warns(ChangePointNoiseWarning, match="series='increments'"):
        det = PrivateChangePointDetector(epsilon=5.0, series="level", random_state=0).fit(walk)
    assert math.isinf(det.serial_dependence_) and det.change_points_.size == 0
    # only the turning points were charged: nothing else was released
    assert det.privacy_spent_.epsilon == pytest.approx(0.75)  # 15 % of ε


def test_a_public_phi_spends_nothing_on_the_dependence():
    assert [
        kind for kind, _ in segmentation_plan(1.0, "auto", 1, dependence=0.5, series="level")
    ] == ["test", "location"]
    # "auto" chooses the model from the count, whatever the dependence
    assert segmentation_plan(1.0, "auto", 1, dependence=0.5, series="auto")[0][0] == ("dependence")
    plan = segmentation_plan(1.0, "auto", 1, dependence="estimate")
    assert [kind for kind, _ in plan] == ["dependence", "test", "location"]
    assert sum(m.epsilon for _, m in plan) == pytest.approx(1.0)
    x = np.random.default_rng(0).normal(size=300)
    det = PrivateChangePointDetector(
        epsilon=2.0, dependence=0.3, series="level", random_state=0
    ).fit(x)
    assert det.serial_dependence_ == pytest.approx(0.3) and det.noisy_turning_points_ is None
    det = PrivateChangePointDetector(n_change_points=1, random_state=0).fit(x)
    assert det.serial_dependence_ is None  # no test, nothing to calibrate


@pytest.mark.parametrize("bad", [-0.1, MAX_RHO + 0.01, "iid", 1.0])
def test_bad_dependence_is_refused_before_any_charge(bad):
    det = PrivateChangePointDetector(dependence=bad)
    with pytest.raises(InvalidParameterError, match="dependence"):
        det.privacy_cost()
    with pytest.raises(InvalidParameterError, match="dependence"):
        det.fit(np.zeros(100))
    assert not hasattr(det, "privacy_spent_")


def test_an_epsilon_too_large_for_the_count_is_refused_by_name_before_any_charge():
    # 15 % of ε over Δ = 2 must stay <= 30 (the geometric noise's float limit): ε <= 400
    assert PrivateChangePointDetector(epsilon=400.0).privacy_cost().epsilon == 400.0
    det = PrivateChangePointDetector(epsilon=500.0)
    with pytest.raises(ValueError, match="epsilon=500.0 is too large for the turning-point"):
        det.fit(np.zeros(100))
    assert not hasattr(det, "privacy_spent_")
    assert (
        PrivateChangePointDetector(epsilon=500.0, dependence="none", series="level")
        .privacy_cost()
        .epsilon
        == 500
    )
