"""Privacy audits of NoisyGroupSearch and its sensors with :func:`skdp_anomaly.audit`.

Anomaly-restricted neighbours (Bittner, Sarwate and Wright, Definition 1): both datasets hold the
same anomaly (index 0, score 2.0 >= t_h) and differ in one non-anomalous score,
moved within ``[0, t_ℓ]``. The worst case for one query moves it from 0 to
``t_ℓ`` in the half *without* the anomaly, where every other score is 0, so it
is that half's maximum: the half's true maximum moves by the full sensitivity
``t_ℓ`` (Lemma 1).

One query is audited with its mask fixed, through the public sensor classes
(the query set depends only on earlier answers and public randomness, so fixing
it is the per-query worst case of Proposition 2). Events are fixed before any
run. Each bound holds with probability >= 0.95 (alpha=0.05); with the fixed
seeds below the tests are deterministic. The tightness assertion (>= 0.8 ε) is
for Laplace noise on a max that moves by exactly t_ℓ, which is tight: the
expected bound at 100 000 runs is about 0.95 ε.
"""

import warnings

import numpy as np
import pytest

from skdp_anomaly import NoisyGroupSearch, audit
from skdp_anomaly.group_search import MaxSensor, RandomizedResponseSensor
from skdp_anomaly.exceptions import GroupSearchBudgetWarning

# long statistical audits: CI runs them in one job (`-m slow` selects them,
# `-m "not slow"` leaves them out; docs/contributing.md)
pytestmark = pytest.mark.slow

EPS, LOW, HIGH, ANOMALY = 1.0, 1.0, 1.8, 2.0
N = 8
MASK = np.arange(N) < 4  # Q = items 0..3 holds the anomaly (item 0)


def _neighbours(changed):
    """D (anomaly at 0, all else 0) and D' (item ``changed`` moved from 0 to t_ℓ)."""
    base = np.zeros(N)
    base[0] = ANOMALY
    other = base.copy()
    other[changed] = LOW
    return base, other


class _Repeated:
    """A sensor's mechanism that answers its one query ``n`` times in one call.

    ``randomise`` gets the exact maxima from the sensor's own ``query`` and hands
    them, repeated ``n`` times, to the sensor's own mechanism: ``n`` independent
    answers to the same mask, the law of ``n`` calls of ``query``, drawn at once.
    """

    def __init__(self, mech, n):
        self.mech, self.n, self.answers = mech, n, None

    def randomise(self, values, rng):
        values = np.asarray(values)
        self.answers = self.mech.randomise(np.broadcast_to(values, (self.n, *values.shape)), rng)
        return self.answers[0]


def _max_answers(scores, rng, n):
    sensor = MaxSensor(scores, LOW, EPS, rng)
    repeated = _Repeated(sensor._mech, n)
    sensor._mech = repeated
    sensor.query(MASK)
    return repeated.answers


def _rr_answers(scores, rng, n):
    sensor = RandomizedResponseSensor(scores, HIGH, EPS, rng)
    return np.array([sensor.query(MASK) for _ in range(n)])


_Y, _YBAR = 0, 1
MAX_EVENTS = {
    **{f"Ybar > {c}": (lambda o, c=c: o[:, _YBAR] > c) for c in (0.5, 1.0, 1.5, 2.5)},
    **{f"Y > {c}": (lambda o, c=c: o[:, _Y] > c) for c in (1.5, 2.5)},
}


def test_audit_max_sensor_tight_and_its_binarized_bit():
    # one set of 100 000 queries per neighbour, two audits of their own events:
    # (a) the changed item (5) is the max of Q̄: Ȳ shifts by t_ℓ, Laplace(t_ℓ/ε) is tight
    draws = {}

    def answers(scores, rng, n):  # drawn once per input, read by both audits
        key = scores.tobytes()
        if key not in draws:
            draws[key] = _max_answers(scores, rng, n)
        return draws[key]

    res = audit(
        answers,
        _neighbours(changed=5),
        MAX_EVENTS,
        n_runs=100_000,
        batch=True,
        claimed_epsilon=EPS,
        random_state=0,
        name="MaxSensor, one query",
    )
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()
    assert res.epsilon_lower_bound >= 0.8 * EPS, res.to_markdown()
    assert res.best_event.startswith("Ybar")
    # (b) the bit 1(Y > Ȳ) of the binarized oracle is post-processing of (Y, Ȳ): <= ε
    # (its exact loss here is log(P(W>=1)/P(W>=2)) ≈ 0.71ε for W = Z' - Z)
    events = {
        "Y > Ybar": lambda o: o[:, _Y] > o[:, _YBAR],
        "Y <= Ybar": lambda o: o[:, _Y] <= o[:, _YBAR],
    }
    res = audit(
        answers,
        _neighbours(changed=5),
        events,
        n_runs=100_000,
        batch=True,
        claimed_epsilon=EPS,
        random_state=0,
        name="binarized bit",
    )
    assert len(draws) == 2  # the same draws
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()
    assert res.epsilon_lower_bound >= 0.5 * EPS, res.to_markdown()


def test_audit_max_sensor_change_beside_the_anomaly():
    # the changed item (2) shares Q with the anomaly: neither maximum moves, loss 0
    res = audit(
        _max_answers,
        _neighbours(changed=2),
        MAX_EVENTS,
        n_runs=50_000,
        batch=True,
        claimed_epsilon=EPS,
        random_state=1,
    )
    assert res.epsilon_lower_bound <= 0.1 * EPS, res.to_markdown()


def test_audit_randomized_response_sensor_anomaly_restricted():
    # Under anomaly-restricted neighbours the bit depends only on where the
    # anomaly is, which both datasets share: its loss is 0. The searcher still
    # charges ε (Proposition 1, for plain neighbours) as an upper bound.
    events = {"bit": lambda o: o, "not bit": lambda o: ~o}
    res = audit(
        _rr_answers,
        _neighbours(changed=5),
        events,
        n_runs=50_000,
        batch=True,
        claimed_epsilon=EPS,
        random_state=3,
        name="RR sensor",
    )
    assert res.epsilon_lower_bound <= EPS, res.to_markdown()
    assert res.epsilon_lower_bound <= 0.05, res.to_markdown()


def test_audit_randomized_response_sensor_anomaly_moved():
    # Outside the anomaly-restricted relation (the anomaly moves from Q to Q̄)
    # the bit is plain randomized response: Proposition 1's ε, tight.
    base, _ = _neighbours(changed=5)
    moved = np.zeros(N)
    moved[6] = ANOMALY
    events = {"bit": lambda o: o, "not bit": lambda o: ~o}
    res = audit(
        _rr_answers,
        (base, moved),
        events,
        n_runs=50_000,
        batch=True,
        claimed_epsilon=EPS,
        random_state=4,
        name="RR sensor, anomaly moved",
    )
    assert 0.8 * EPS <= res.epsilon_lower_bound <= EPS, res.to_markdown()


# ------------------------------------------------------------------ end to end
N_E2E, CHANGED, QUERIES, TOTAL = 16, 9, 3, 3.0


def _e2e_neighbours():
    base = np.zeros(N_E2E)
    base[0] = ANOMALY
    other = base.copy()
    other[CHANGED] = LOW
    return base.reshape(-1, 1), other.reshape(-1, 1)


def _e2e_mechanism(oracle):
    def mech(X, rng):
        est = NoisyGroupSearch(
            epsilon=QUERIES * EPS,
            query_epsilon=EPS,
            low=LOW,
            high=HIGH,
            oracle=oracle,
            halting="budget",
            n_candidates=4,
            random_state=int(rng.integers(2**31)),
        )
        est.fit(X)
        assert est.n_queries_ == QUERIES
        bits = int(np.sum(2 ** est.candidates_.astype(np.int64)))
        return int(np.argmax(est.posterior_)) * 2**N_E2E + bits  # (argmax, candidate set)

    return mech


E2E_EVENTS = {
    "argmax == anomaly": lambda o: o // 2**N_E2E == 0,
    "argmax == changed": lambda o: o // 2**N_E2E == CHANGED,
    "changed in candidates": lambda o: (o >> CHANGED) & 1 == 1,
    "anomaly in candidates": lambda o: o & 1 == 1,
    "anomaly in, changed out": lambda o: (o & 1 == 1) & ((o >> CHANGED) & 1 == 0),
}


def _derived_mechanism(X, rng):
    # the total-ε mode: the search derives its per-query ε from epsilon and n = 16
    est = NoisyGroupSearch(
        epsilon=TOTAL, low=LOW, high=HIGH, halting="budget", random_state=int(rng.integers(2**31))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GroupSearchBudgetWarning)  # a short plan, on purpose
        est.fit(X)
    assert est.privacy_spent_.epsilon <= TOTAL
    bits = int(np.sum(2 ** est.candidates_.astype(np.int64)))
    return int(np.argmax(est.posterior_)) * 2**N_E2E + bits


def test_audit_end_to_end_total_epsilon():
    # epsilon is the whole search's ε: the candidates and the argmax are
    # post-processing of answers whose ε sum to at most TOTAL
    res = audit(
        _derived_mechanism,
        _e2e_neighbours(),
        E2E_EVENTS,
        n_runs=1500,
        claimed_epsilon=TOTAL,
        random_state=7,
        name="search, total ε",
    )
    assert res.epsilon_lower_bound <= TOTAL, res.to_markdown()


@pytest.mark.parametrize("oracle", ["direct", "binarized"])
def test_audit_end_to_end_short_search(oracle):
    # three queries on 16 items: candidates and the posterior's argmax are
    # post-processing of three ε answers, so the loss is <= 3ε (Proposition 2)
    res = audit(
        _e2e_mechanism(oracle),
        _e2e_neighbours(),
        E2E_EVENTS,
        n_runs=1500,
        claimed_epsilon=QUERIES * EPS,
        random_state=5,
        name=f"search ({oracle})",
    )
    assert res.epsilon_lower_bound <= QUERIES * EPS, res.to_markdown()


# ------------------------------------------------------------------ no anomaly
# The relation extended to data without an anomaly (see the estimator's Notes): both
# datasets hold none and differ in one score, moved from 0 to t_ℓ. The "no anomaly"
# answer and the flags are post-processing of the same answers, so three queries
# cost <= 3ε. One answer moves the log-odds by <= 1.6 here, so three answers cannot
# reach the default 0.99; null_threshold=0.7 lets the event fire (172 of 200 runs).
def _null_mechanism(X, rng):
    est = NoisyGroupSearch(
        epsilon=QUERIES * EPS,
        query_epsilon=EPS,
        low=LOW,
        high=HIGH,
        halting="budget",
        null_threshold=0.7,
        random_state=int(rng.integers(2**31)),
    )
    est.fit(X)
    bits = int(np.sum(2 ** est.candidates_.astype(np.int64)))
    return int(est.halted_by_ == "no_anomaly") * 2**N_E2E + bits


NULL_EVENTS = {
    "no anomaly": lambda o: o // 2**N_E2E == 1,
    "flags the changed item": lambda o: (o >> CHANGED) & 1 == 1,
    "flags item 0": lambda o: o & 1 == 1,
}


def test_audit_no_anomaly_answer():
    base = np.zeros((N_E2E, 1))
    other = base.copy()
    other[CHANGED] = LOW
    res = audit(
        _null_mechanism,
        (base, other),
        NULL_EVENTS,
        n_runs=1500,
        claimed_epsilon=QUERIES * EPS,
        random_state=6,
        name="search, no anomaly",
    )
    assert res.epsilon_lower_bound <= QUERIES * EPS, res.to_markdown()
