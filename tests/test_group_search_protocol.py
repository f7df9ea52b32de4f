"""NoisyGroupSearch under the privacy protocol: parameters, the reserved plan, transactions.

The plan reserved before ``X`` is read is :meth:`privacy_cost` (``epsilon``,
the total); each query is charged ``query_epsilon_`` right before it is asked;
``privacy_spent_`` is the queries actually charged. A fit that
fails at any stage (RuntimeError or KeyboardInterrupt injected there) leaves
the estimator as it was, except that ``privacy_spent_`` and the accountant
keep the queries already charged. Fixed seeds: deterministic.
"""

import copy
import math

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from _faults import fail_on, raised_type, same, state
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly import NoisyGroupSearch
from skdp_anomaly.group_search import MaxSensor, RandomizedResponseSensor
from skdp_anomaly.group_search import _noisy_group_search, _posterior
from skdp_anomaly.privacy import LaplaceMechanism, RandomizedResponse


EPS = 0.5
PARAMS = {
    "epsilon": 3.0,
    "query_epsilon": EPS,
    "low": 1.0,
    "high": 1.8,
    "halting": "budget",
    "random_state": 0,
}  # exactly 6 queries


def _scores(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, n)
    x[int(rng.integers(n))] = 2.5
    return x.reshape(-1, 1)


X = _scores()


class Sensor:
    """A user sensor over the scores of ``X`` (the searcher sees item ids only)."""

    def __init__(self, epsilon=EPS, response="maxima", seed=0):
        self._inner = MaxSensor(X[:, 0], 1.0, epsilon, np.random.default_rng(seed))
        self.epsilon, self.response = epsilon, response

    def query(self, mask):
        return self._inner.query(mask)


# ------------------------------------------------------------------ parameters
BAD_PARAMETERS = [
    ({"epsilon": 0.0}, InvalidParameterError, "epsilon"),
    ({"epsilon": 2.0**21}, InvalidParameterError, "epsilon"),
    ({"query_epsilon": 0.0}, InvalidParameterError, "'query_epsilon' parameter"),
    ({"query_epsilon": 31.0}, InvalidParameterError, "'query_epsilon' parameter"),
    ({"epsilon": 0.4}, ValueError, "'query_epsilon' parameter"),  # above the total
    ({"low": 2.0, "high": 2.0}, ValueError, "'low' parameter"),
    ({"low": -1.0}, InvalidParameterError, "low"),
    ({"halting": "never"}, InvalidParameterError, "halting"),
    ({"alpha": 1.0}, InvalidParameterError, "alpha"),
    ({"delta": 0.0}, InvalidParameterError, "delta"),
    ({"max_queries": 0}, InvalidParameterError, "max_queries"),
    ({"n_candidates": 0}, InvalidParameterError, "n_candidates"),
    ({"n_anomalies": 0}, InvalidParameterError, "n_anomalies"),
    ({"oracle": "loud"}, InvalidParameterError, "oracle"),
    ({"oracle": Sensor(), "n_anomalies": 2}, ValueError, "'n_anomalies' parameter"),
    ({"oracle": Sensor(epsilon=1.0)}, ValueError, "'oracle' parameter"),
    ({"oracle": Sensor(), "query_epsilon": None}, ValueError, "'query_epsilon' parameter"),
    ({"oracle": Sensor(response="count")}, ValueError, "'oracle' parameter"),
    ({"score_func": "norm"}, InvalidParameterError, "score_func"),
    ({"random_state": -1}, InvalidParameterError, "random_state"),
    ({"accountant": object()}, InvalidParameterError, "accountant"),
]


@pytest.mark.parametrize(
    "bad, error, name",
    BAD_PARAMETERS,
    ids=[f"{i}-{'-'.join(sorted(b))}" for i, (b, _, _) in enumerate(BAD_PARAMETERS)],
)
def test_a_bad_parameter_raises_the_same_error_from_privacy_cost_and_fit(bad, error, name):
    with pytest.raises(ValueError) as from_cost:
        NoisyGroupSearch(**{**PARAMS, **bad}).privacy_cost()
    assert type(from_cost.value) is raised_type(error) and name in str(from_cost.value)
    ledger = Ledger()
    est = NoisyGroupSearch(**{**PARAMS, "accountant": ledger, **bad})
    ids = np.arange(X.shape[0]).reshape(-1, 1)
    with pytest.raises(error, match=name):
        est.fit(ids if "oracle" in bad else X)
    assert ledger.spent == [] and state(est) == {}
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


# ------------------------------------------------------------------ the reserved plan
@pytest.mark.parametrize(
    "params, plan",
    [
        ({"epsilon": 3.0}, 3.0),  # the total
        ({"halting": "posterior", "epsilon": 3.0}, 3.0),  # caps posterior halting
        ({"halting": "posterior", "epsilon": 20.0, "max_queries": 40}, 20.0),
    ],
)
def test_the_plan_is_reserved_before_the_data_and_the_spend_is_the_queries_charged(
    params, plan, monkeypatch
):
    est = NoisyGroupSearch(**{**PARAMS, **params})
    assert est.privacy_cost().epsilon == pytest.approx(plan)
    read = []
    validate = _noisy_group_search.validate_data
    monkeypatch.setattr(
        _noisy_group_search, "validate_data", lambda *a, **k: read.append(1) or validate(*a, **k)
    )
    with pytest.raises(LedgerRefused):  # a ledger one query short of the plan
        est.set_params(accountant=Ledger(epsilon=plan - EPS / 2)).fit(X)
    assert read == [] and state(est) == {}
    ledger = Ledger(epsilon=plan)
    est.set_params(accountant=ledger).fit(X)
    assert ledger.spent == [(EPS, 0.0)] * est.n_queries_
    assert est.privacy_spent_.epsilon == pytest.approx(est.n_queries_ * EPS)
    assert est.privacy_spent_.epsilon <= plan + 1e-12
    # what the fit reserved and did not spend is given back: another search can use it
    left = plan - ledger.total()[0]
    if left >= EPS:
        other = NoisyGroupSearch(
            **{**PARAMS, "halting": "budget", "epsilon": left, "accountant": ledger}
        ).fit(X)
        assert ledger.total()[0] == pytest.approx(plan - left + other.n_queries_ * EPS)


def test_groups_are_charged_once_per_query_index_before_each_answer(monkeypatch):
    events = []

    class EventLedger(Ledger):
        def spend(self, epsilon, delta):
            super().spend(epsilon, delta)
            events.append("charge")
            return self

    query = MaxSensor.query

    def recorded(self, mask):
        events.append(self)  # the sensor of one group, kept alive: ids are not reused
        return query(self, mask)

    monkeypatch.setattr(MaxSensor, "query", recorded)
    x = _scores(3000, seed=1)
    ledger = EventLedger()
    est = NoisyGroupSearch(
        **{
            **PARAMS,
            "halting": "posterior",
            "alpha": 0.9,
            "epsilon": 100.0,
            "max_queries": 12,
            "n_anomalies": 2,
            "accountant": ledger,
        }
    ).fit(x)
    per_group: dict = {}
    charges = 0
    for event in events:  # the k-th answer of any group comes after the k-th charge
        if isinstance(event, str):
            charges += 1
        else:
            per_group[id(event)] = per_group.get(id(event), 0) + 1
            assert per_group[id(event)] <= charges
    assert charges == est.n_queries_ == max(per_group.values()) == len(ledger.spent)
    assert sum(per_group.values()) > charges  # the groups ran in parallel
    assert est.privacy_spent_.epsilon == pytest.approx(charges * EPS)


# ------------------------------------------------------------------ fault injection
class FailingSensor(Sensor):
    """A user sensor (a label oracle, a sensor network) that fails at its n-th answer."""

    def __init__(self, n, exc):
        super().__init__()
        self.n, self.exc, self.calls = n, exc, 0

    def query(self, mask):
        self.calls += 1
        if self.calls == self.n:
            raise self.exc("the sensor failed")
        return super().query(mask)


# stage -> (oracle, where, attribute, call that fails, queries charged before the failure)
STAGES = {
    "validation": ("direct", _noisy_group_search, "validate_data", 1, 0),
    "after the budget check": ("direct", _noisy_group_search, "MaxSensor", 1, 0),
    "the split": ("direct", _posterior, "split", 2, 2),
    "the noisy maxima": ("direct", LaplaceMechanism, "randomise", 3, 3),
    "the randomized response": ("randomized_response", RandomizedResponse, "randomise", 4, 4),
    "between answers": ("binarized", MaxSensor, "query", 5, 5),
    "the bit sensor": ("randomized_response", RandomizedResponseSensor, "query", 2, 2),
    "the update": ("direct", _posterior.Posterior, "update", 6, 6),
    "a user sensor": ("user", None, None, 3, 3),
}


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("refit", [False, True], ids=["fit", "refit"])
@pytest.mark.parametrize("stage", STAGES)
def test_a_failed_search_is_rolled_back_and_keeps_the_queries_charged(
    stage, refit, exc, monkeypatch
):
    oracle, where, attribute, n, made = STAGES[stage]
    ledger = Ledger()

    def make(fail_at=None):
        o = (FailingSensor(fail_at, exc) if fail_at else Sensor()) if oracle == "user" else oracle
        return NoisyGroupSearch(**{**PARAMS, "oracle": o, "accountant": ledger})

    data = np.arange(X.shape[0]).reshape(-1, 1) if oracle == "user" else X
    est = make()
    if refit:
        est.set_params(epsilon=2.0).fit(data)  # 4 queries
        est.set_params(epsilon=PARAMS["epsilon"])
    if oracle == "user":
        est.set_params(oracle=FailingSensor(n, exc))
    before = copy.deepcopy(state(est))
    charged_before = len(ledger.spent)
    if where is not None:
        fail_on(monkeypatch, where, attribute, n, exc)
    with pytest.raises(exc):
        est.fit(data)
    monkeypatch.undo()

    assert ledger.spent[charged_before:] == [(EPS, 0.0)] * made
    kept = {"privacy_spent_", "_charges"} if made else set()
    after = state(est)
    assert same(
        {k: v for k, v in after.items() if k not in kept},
        {k: v for k, v in before.items() if k not in kept},
    )
    if made:
        assert est.privacy_spent_.epsilon == pytest.approx(EPS * (charged_before + made))
        assert est.privacy_spent_.notion == "anomaly-restricted ε-DP"
    if refit:
        check_is_fitted(est)
    else:
        with pytest.raises(NotFittedError):
            check_is_fitted(est)
        assert set(after) <= kept

    # a retry succeeds, is the uninterrupted search, and is charged its own queries
    if oracle == "user":
        est.set_params(oracle=Sensor())
    est.fit(data)
    reference = make().set_params(accountant=None).fit(data)
    np.testing.assert_array_equal(est.posterior_, reference.posterior_)
    np.testing.assert_array_equal(est.candidates_, reference.candidates_)
    assert est.n_queries_ == reference.n_queries_ == 6
    assert est.privacy_spent_ == reference.privacy_spent_
    assert len(ledger.spent) == charged_before + made + 6
    assert math.isclose(ledger.total()[0], EPS * (charged_before + made + 6))
