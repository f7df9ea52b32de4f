"""PrivacyCost arithmetic: property-based tests (hypothesis)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skdp_anomaly.privacy import PrivacyCost, compose_parallel, compose_sequential

eps = st.floats(min_value=0, max_value=1e6, allow_nan=False)
small = st.floats(min_value=0, max_value=1.0, allow_nan=False)
costs = st.builds(PrivacyCost, eps, delta=small, gamma=small, anomaly_restricted=st.booleans())


@given(st.lists(costs, min_size=1, max_size=6))
def test_sequential_adds_and_keeps_every_relaxation(parts):
    total = compose_sequential(parts)
    assert total.epsilon == pytest.approx(math.fsum(c.epsilon for c in parts))
    assert total.delta == pytest.approx(min(1.0, math.fsum(c.delta for c in parts)))
    assert total.gamma == pytest.approx(min(1.0, math.fsum(c.gamma for c in parts)))
    assert total.anomaly_restricted == any(c.anomaly_restricted for c in parts)


@given(st.lists(costs, min_size=1, max_size=6))
def test_parallel_is_the_max_and_never_exceeds_sequential(parts):
    par, seq = compose_parallel(parts), compose_sequential(parts)
    assert par.epsilon == max(c.epsilon for c in parts)
    assert par.delta == max(c.delta for c in parts)
    assert par.epsilon <= seq.epsilon + 1e-9
    assert par.delta <= seq.delta + 1e-12


@given(costs, costs, costs)
def test_sequential_is_associative_and_commutative(a, b, c):
    assert ((a + b) + c).epsilon == pytest.approx((a + (b + c)).epsilon)
    assert (a + b).epsilon == pytest.approx((b + a).epsilon)
    assert (a + b).notion == (b + a).notion


@given(costs)
def test_zero_is_neutral(a):
    assert (a + PrivacyCost.zero()).epsilon == a.epsilon
    assert (a + PrivacyCost.zero()).notion == a.notion


@given(costs, st.integers(min_value=0, max_value=50))
def test_scale_is_repeated_addition(a, times):
    assert a.scale(times).epsilon == pytest.approx(a.epsilon * times)


def test_notions_are_named():
    assert PrivacyCost.pure(1).notion == "pure ε-DP"
    assert PrivacyCost.approx(1, 1e-5).notion == "(ε, δ)-DP"
    assert PrivacyCost.anomaly_restricted_dp(1).notion == "anomaly-restricted ε-DP"
    assert PrivacyCost.random_dp(1, 0.05).notion == "(ε, γ)-random DP"


def test_mixing_notions_yields_the_weakest_and_says_so():
    mixed = PrivacyCost.pure(1) + PrivacyCost.anomaly_restricted_dp(0.5)
    assert mixed.notion == "anomaly-restricted ε-DP"
    assert mixed.epsilon == 1.5
    assert any("weakest" in note for note in mixed.notes)
    same = PrivacyCost.pure(1) + PrivacyCost.pure(2)
    assert not any("weakest" in note for note in same.notes)


def test_sum_builtin_and_infinite():
    assert sum([PrivacyCost(0.5), PrivacyCost(1.0)]).epsilon == 1.5
    total = PrivacyCost(1.0) + PrivacyCost.infinite("leak")
    assert not total.is_private
    assert "leak" in total.notes


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilon=-1), "epsilon must be >= 0"),
        (dict(epsilon=float("nan")), "epsilon must be >= 0"),
        (dict(epsilon=1, delta=1.5), "delta must be <= 1"),
        (dict(epsilon=1, gamma=-0.1), "gamma must be >= 0"),
    ],
)
def test_invalid_costs_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PrivacyCost(**kwargs)


def test_non_numeric_epsilon_is_a_type_error():
    with pytest.raises(TypeError, match="epsilon"):
        PrivacyCost("1")
