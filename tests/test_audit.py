"""The auditor itself, and an audit of every mechanism of skdp_anomaly.privacy.

Seeds are fixed, so each test is deterministic. Over random seeds, the
"≤ claimed ε" assertions fail for a correct mechanism with probability at most
alpha = 0.05 (the auditor's confidence); the "≥ 0.8 ε" assertions for tight
mechanisms fail with probability < 1e-6 at these run counts (the bound's
standard error is ~0.02 in ε).
"""

import math

import numpy as np
import pytest
from audit_scenarios.mechanisms import mechanism_scenarios, run_scenario

from skdp_anomaly import audit
from skdp_anomaly.auditing import clopper_pearson
from skdp_anomaly.privacy import LaplaceMechanism

SCENARIOS = mechanism_scenarios(epsilon=1.0)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_mechanism_stays_within_claimed_epsilon(scenario):
    n_runs = 200_000 if scenario.batch else 20_000
    result = run_scenario(scenario, n_runs, random_state=2026)
    assert result.epsilon_lower_bound <= scenario.claimed_epsilon
    if scenario.tight:  # catches over-noising
        assert result.epsilon_lower_bound >= 0.8 * scenario.claimed_epsilon


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [0.25, 2.0])
def test_geometric_is_tight_at_other_epsilons(epsilon):
    scenario = mechanism_scenarios(epsilon)[0]
    result = run_scenario(scenario, 200_000, random_state=1)
    assert 0.8 * epsilon <= result.epsilon_lower_bound <= epsilon


def test_exponential_selection_breaks_the_papers_claim():
    # Ghassemi et al.'s Lemma 2 claims ε=1 at b=0.2, M=1; the "not selected" event shows more
    scenario = [s for s in SCENARIOS if s.name.startswith("exponential")][0]
    result = run_scenario(scenario, 200_000, random_state=3)
    assert result.epsilon_lower_bound > 1.0
    assert "not selected" in result.best_event


def test_auditor_catches_an_under_noised_mechanism():
    # Laplace with half the required scale is really 2ε-DP
    cheat = LaplaceMechanism(epsilon=2.0)
    res = audit(
        lambda v, rng, n: cheat.randomise(np.full(n, v), rng),
        (0.0, 1.0),
        {"out >= 1": lambda o: o >= 1},
        n_runs=200_000,
        batch=True,
        random_state=0,
        claimed_epsilon=1.0,
    )
    assert res.epsilon_lower_bound > 1.0
    assert res.ratio > 1.0


def test_auditor_non_batch_path_and_table():
    lap = LaplaceMechanism(epsilon=1.0)
    res = audit(
        lambda v, rng: lap.randomise(v, rng),
        (0.0, 1.0),
        [lambda o: o >= 1],
        n_runs=5_000,
        random_state=0,
        name="laplace",
    )
    assert 0 <= res.epsilon_lower_bound <= 1.0
    assert res.rows[0]["count_a"] + res.rows[0]["count_b"] > 0
    assert "| event |" in res.to_markdown() and "laplace" in str(res)


def test_identical_inputs_give_no_evidence():
    lap = LaplaceMechanism(epsilon=1.0)
    res = audit(
        lambda v, rng, n: lap.randomise(np.full(n, v), rng),
        (0.0, 0.0),
        {"out >= 0": lambda o: o >= 0},
        n_runs=50_000,
        batch=True,
        random_state=0,
    )
    assert res.epsilon_lower_bound < 0.1


def test_delta_weakens_the_bound():
    lap = LaplaceMechanism(epsilon=1.0)
    mech = lambda v, rng, n: lap.randomise(np.full(n, v), rng)  # noqa: E731
    events = {"out >= 1": lambda o: o >= 1}
    pure = audit(mech, (1.0, 0.0), events, n_runs=100_000, batch=True, random_state=0)
    approx = audit(mech, (1.0, 0.0), events, n_runs=100_000, batch=True, random_state=0, delta=0.1)
    assert approx.epsilon_lower_bound < pure.epsilon_lower_bound


def test_clopper_pearson_edges():
    lo, hi = clopper_pearson([0, 10], 10, 0.05)
    assert lo[0] == 0.0 and hi[1] == 1.0
    assert 0 < hi[0] < 0.3 and 0.7 < lo[1] < 1
    # exact: P(X = 0 | p = hi) = alpha
    assert (1 - hi[0]) ** 10 == pytest.approx(0.05)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(neighbours=(0,)), "pair"),
        (dict(n_runs=0), "n_runs"),
        (dict(alpha=1.5), "alpha"),
        (dict(delta=-0.1), "delta"),
        (dict(events={}), "at least one event"),
        (dict(events={"bad": 3}), "not callable"),
        (dict(events={"wrong shape": lambda o: np.ones(3, bool)}), "one bool per run"),
    ],
)
def test_auditor_bad_input(kwargs, match):
    lap = LaplaceMechanism(epsilon=1.0)
    args = dict(neighbours=(0.0, 1.0), events={"e": lambda o: o >= 1}, n_runs=100)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        audit(
            lambda v, rng, n: lap.randomise(np.full(n, v), rng),
            args.pop("neighbours"),
            args.pop("events"),
            batch=True,
            **args,
        )


def test_batch_mechanism_must_return_n_outputs():
    with pytest.raises(ValueError, match="n_runs=10"):
        audit(lambda v, rng, n: np.zeros(3), (0, 1), {"e": lambda o: o > 0}, n_runs=10, batch=True)


def test_audit_result_ratio_without_claim_is_nan():
    res = audit(
        lambda v, rng, n: np.full(n, v), (0, 1), {"e": lambda o: o > 0}, n_runs=10, batch=True
    )
    assert math.isnan(res.ratio)
    # a deterministic mechanism is not private: the evidence grows without bound with n
    more = audit(
        lambda v, rng, n: np.full(n, v), (0, 1), {"e": lambda o: o > 0}, n_runs=10_000, batch=True
    )
    assert 0 < res.epsilon_lower_bound < more.epsilon_lower_bound
    assert more.epsilon_lower_bound > 7
