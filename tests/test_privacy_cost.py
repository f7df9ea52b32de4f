"""PrivacyCost arithmetic and neighbouring relations: property-based tests (hypothesis).

Everything here is deterministic: no test has a false-failure rate.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skdp_anomaly.privacy import PrivacyCost, compose_parallel, compose_sequential
from skdp_anomaly.privacy._cost import NEIGHBOURS

eps = st.floats(min_value=0, max_value=1e6, allow_nan=False)
small = st.floats(min_value=0, max_value=1.0, allow_nan=False)


def costs(neighbours=st.sampled_from(NEIGHBOURS)):
    return st.builds(
        PrivacyCost,
        eps,
        delta=small,
        gamma=small,
        anomaly_restricted=st.booleans(),
        neighbours=neighbours,
    )


same_relation = st.sampled_from(NEIGHBOURS).flatmap(
    lambda rel: st.lists(costs(st.just(rel)), min_size=1, max_size=6)
)


@given(same_relation)
def test_sequential_adds_and_keeps_every_relaxation(parts):
    total = compose_sequential(parts)
    assert total.epsilon == pytest.approx(math.fsum(c.epsilon for c in parts))
    assert total.delta == pytest.approx(min(1.0, math.fsum(c.delta for c in parts)))
    assert total.gamma == pytest.approx(min(1.0, math.fsum(c.gamma for c in parts)))
    assert total.anomaly_restricted == any(c.anomaly_restricted for c in parts)
    assert total.neighbours == parts[0].neighbours or all(c.is_zero for c in parts)


@given(same_relation)
def test_parallel_is_the_max_and_never_exceeds_sequential(parts):
    par, seq = compose_parallel(parts), compose_sequential(parts)
    assert par.epsilon == max(c.epsilon for c in parts)
    assert par.delta == max(c.delta for c in parts)
    assert par.epsilon <= seq.epsilon + 1e-9
    assert par.delta <= seq.delta + 1e-12


@given(
    st.sampled_from(NEIGHBOURS).flatmap(
        lambda rel: st.tuples(costs(st.just(rel)), costs(st.just(rel)), costs(st.just(rel)))
    )
)
def test_sequential_is_associative_and_commutative(abc):
    a, b, c = abc
    assert ((a + b) + c).epsilon == pytest.approx((a + (b + c)).epsilon)
    assert (a + b).epsilon == pytest.approx((b + a).epsilon)
    assert (a + b).notion == (b + a).notion


@given(costs())
def test_zero_is_neutral_under_either_relation(a):
    total = a + PrivacyCost.zero()
    assert total.epsilon == a.epsilon and total.notion == a.notion
    assert total.neighbours == a.neighbours


@given(costs(), st.integers(min_value=0, max_value=50))
def test_scale_is_repeated_addition(a, times):
    assert a.scale(times).epsilon == pytest.approx(a.epsilon * times)


# -- neighbouring relations ---------------------------------------


def test_the_relation_is_required():
    with pytest.raises(TypeError, match="neighbours"):
        PrivacyCost(1.0)
    with pytest.raises(TypeError, match="neighbours"):
        PrivacyCost.pure(1.0)
    with pytest.raises(ValueError, match="'neighbours' parameter must be one of"):
        PrivacyCost(1.0, neighbours="bounded")


@given(costs(st.just("add_remove")), costs(st.just("replace")))
def test_different_relations_never_compose_silently(a, b):
    if a.is_zero:
        assert (a + b).neighbours == "replace"
        return
    for parts in ([a, b], [b, a]):
        with pytest.raises(ValueError, match="different neighbouring relations"):
            compose_sequential(parts)
        with pytest.raises(ValueError, match="different neighbouring relations"):
            compose_parallel(parts)
    with pytest.raises(ValueError, match="different neighbouring relations"):
        a + b


@given(eps.filter(lambda e: e < 700), small)
def test_add_remove_converts_to_replace_by_group_privacy(epsilon, delta):
    cost = PrivacyCost.approx(epsilon, delta, neighbours="add_remove").under("replace")
    assert cost.neighbours == "replace"
    assert cost.epsilon == pytest.approx(2 * epsilon)
    assert cost.delta == pytest.approx(min(1.0, (1 + math.exp(epsilon)) * delta))


def test_replace_does_not_convert_to_add_remove():
    with pytest.raises(ValueError, match="may release the dataset size n"):
        PrivacyCost.pure(1.0, neighbours="replace").under("add_remove")
    # a replace-one cost of 0 may still be the exact n: no exception for it
    with pytest.raises(ValueError):
        PrivacyCost.pure(0.0, neighbours="replace").under("add_remove")
    assert PrivacyCost.zero().under("replace").epsilon == 0


def test_relaxed_notions_have_no_group_privacy_conversion():
    for cost in (
        PrivacyCost.random_dp(1.0, 0.05, neighbours="add_remove"),
        PrivacyCost.anomaly_restricted_dp(1.0, neighbours="add_remove"),
    ):
        with pytest.raises(ValueError, match="no group-privacy conversion"):
            cost.under("replace")


def test_issue_example_totals_three_under_replace():
    dpsmote = PrivacyCost.pure(1.0, neighbours="add_remove")
    gaussian_nb = PrivacyCost.pure(1.0, neighbours="replace")
    total = compose_sequential([dpsmote, gaussian_nb], neighbours="replace")
    assert total.epsilon == 3.0 and total.neighbours == "replace"
    assert any("group privacy" in note for note in total.notes)
    with pytest.raises(ValueError, match="may release the dataset size n"):
        compose_sequential([dpsmote, gaussian_nb], neighbours="add_remove")


def test_relation_is_printed():
    cost = PrivacyCost.pure(1.0, neighbours="replace")
    assert "replace-one" in str(cost) and "neighbours='replace'" in repr(cost)
    assert "add/remove" in str(PrivacyCost.pure(1.0, neighbours="add_remove"))


# -- notions ------------------------------------------------------


def test_notions_are_named():
    kw = dict(neighbours="replace")
    assert PrivacyCost.pure(1, **kw).notion == "pure ε-DP"
    assert PrivacyCost.approx(1, 1e-5, **kw).notion == "(ε, δ)-DP"
    assert PrivacyCost.anomaly_restricted_dp(1, **kw).notion == "anomaly-restricted ε-DP"
    assert PrivacyCost.random_dp(1, 0.05, **kw).notion == "(ε, γ)-random DP"


def test_mixing_notions_yields_the_weakest_and_says_so():
    kw = dict(neighbours="replace")
    mixed = PrivacyCost.pure(1, **kw) + PrivacyCost.anomaly_restricted_dp(0.5, **kw)
    assert mixed.notion == "anomaly-restricted ε-DP"
    assert mixed.epsilon == 1.5
    assert any("weakest" in note for note in mixed.notes)
    same = PrivacyCost.pure(1, **kw) + PrivacyCost.pure(2, **kw)
    assert not any("weakest" in note for note in same.notes)


def test_sum_builtin_and_infinite():
    kw = dict(neighbours="add_remove")
    assert sum([PrivacyCost(0.5, **kw), PrivacyCost(1.0, **kw)]).epsilon == 1.5
    total = PrivacyCost(1.0, **kw) + PrivacyCost.infinite("leak", **kw)
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
        PrivacyCost(**kwargs, neighbours="replace")


def test_non_numeric_epsilon_is_a_type_error():
    with pytest.raises(TypeError, match="epsilon"):
        PrivacyCost("1", neighbours="replace")
