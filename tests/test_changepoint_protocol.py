"""PrivateChangePointDetector under the privacy protocol.

Parameters are refused by ``privacy_cost()`` with the error ``fit`` gives;
every fitting method is a transaction (a failed call, ``KeyboardInterrupt``
included, leaves the detector as it was, except for the charges it made);
an online run charges each of its two stages once, however often its calls
are retried, and keeps its reservation on the accountant until the detection.
"""

import math

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly.changepoint import PrivateChangePointDetector, _binseg, _online, _pncpd
from skdp_anomaly.changepoint._binseg import segmentation_plan, useful_levels
from skdp_anomaly.changepoint._online import stage_costs
from skdp_anomaly.privacy import PrivacyCost

PARAMS = set(PrivateChangePointDetector().get_params())
ONLINE = dict(epsilon=4.0, window=200, threshold=0.8, direction="decrease", random_state=0)
HALF = (2.0, 0.0)  # one stage of ONLINE on the ledger (ε/2, δ = 0)


def stream(seed=3):
    """N(5, 1) then N(0, 1) from sample 1000 on (the thesis' §2.6.3 shape, shorter)."""
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(5, 1, 1000), rng.normal(0, 1, 400)]


X = stream()
SERIES = np.r_[np.zeros(60), np.ones(40)] + np.random.default_rng(0).normal(0, 0.3, 100)
# A: the first call answers windows (and charges); B: it does not, a later one does
CHUNKINGS = {
    "A": [X[:600], *np.array_split(X[600:], 8)],
    "B": [X[:150], *np.array_split(X[150:], 25)],
}


# --------------------------------------------------------------------- helpers
def frozen(obj):
    """A comparable image of ``obj``: arrays by value, objects by their attributes."""
    if isinstance(obj, np.ndarray):
        return ("array", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, dict):
        return tuple(sorted((key, frozen(value)) for key, value in obj.items()))
    if isinstance(obj, (list, tuple)):
        return tuple(frozen(value) for value in obj)
    if isinstance(obj, PrivacyCost):
        return ("cost", repr(obj), obj.notes)
    if hasattr(obj, "__dict__"):
        return (type(obj).__name__, frozen(vars(obj)))
    return obj


def state(det):
    """Everything but the parameters, the charges (checked on their own) and the
    accountant's reservation (released by a failed call, taken up by the next)."""
    skip = PARAMS | {"privacy_spent_", "_charges", "_budget_run"}
    return frozen({k: v for k, v in vars(det).items() if k not in skip})


def counters_agree(det):
    """The public counters never lag the stream's state."""
    run = getattr(det, "_online", None)
    if run is not None:
        assert det.n_seen_ == run.n_seen and det.alarm_index_ == run.alarm_index
        assert det.change_point_ == run.change_point


def inject(monkeypatch, owner, name, exc, when=1):
    """Make the ``when``-th call of ``owner.name`` raise ``exc``; returns the call count."""
    original, calls = getattr(owner, name), [0]

    def failing(*args, **kwargs):
        calls[0] += 1
        if calls[0] == when:
            raise exc("injected fault")
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, failing)
    return calls


def feed(det, chunks):
    for chunk in chunks:
        det.partial_fit(chunk)
        counters_agree(det)
        if det.detected_:
            break
    return det


def outcome(det):
    return det.alarm_index_, det.change_point_, det.direction_, det.n_seen_, det.detected_


def reference(chunks):
    """The uninterrupted run, and the chunk indices where its two stages are charged."""
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **ONLINE)
    charged_at = []
    for i, chunk in enumerate(chunks):
        before = len(acc.spent)
        det.partial_fit(chunk)
        charged_at += [i] * (len(acc.spent) - before)
        if det.detected_:
            break
    assert acc.spent == [HALF, HALF] and det.detected_
    return outcome(det), charged_at


# ------------------------------------------------------ parameters, before data
class NotAnAccountant:
    """No ``spend`` method (a class, so that the test ids are the same in every worker)."""

    def __repr__(self):
        return "NotAnAccountant()"


BAD_PARAMS = [  # (parameters, the parameter the message names)
    (dict(epsilon=0), "epsilon"),
    (dict(epsilon=-1.0), "epsilon"),
    (dict(epsilon=math.inf), "epsilon"),
    (dict(epsilon=math.nan), "epsilon"),
    (dict(epsilon=2.0**21), "epsilon"),
    (dict(gamma=0), "gamma"),
    (dict(gamma=0.5), "gamma"),
    (dict(gamma=5), "gamma"),
    (dict(gamma=math.nan), "gamma"),
    (dict(direction="up"), "direction"),
    (dict(random_state=-1), "random_state"),
    (dict(random_state="seed"), "random_state"),
    (dict(accountant=NotAnAccountant()), "accountant"),
    (dict(threshold=0.8), "threshold"),
    (dict(window=2, threshold=0.8), "window"),
    (dict(window=7, threshold=0.8), "window"),
    (dict(window=100.0, threshold=0.8), "window"),
    (dict(horizon=1000), "horizon"),
    (dict(window=100, horizon=50), "horizon"),
    (dict(window=100, threshold=0.8, horizon=1000), "horizon"),
    (dict(alpha=0.0), "alpha"),
    (dict(alpha=0.7), "alpha"),
    (dict(alpha=math.nan), "alpha"),
    (dict(n_change_points=0), "n_change_points"),
    (dict(n_change_points="two"), "n_change_points"),
    (dict(n_change_points=2.0), "n_change_points"),
    (dict(max_change_points=0), "max_change_points"),
    (dict(min_size=0), "min_size"),
    (dict(window=100, threshold=0.5), "threshold"),
    (dict(window=100, threshold=1.0), "threshold"),
    (dict(window=100, threshold=math.nan), "threshold"),
    (dict(window=100, threshold=0.8, gamma=0.25), "gamma"),
    (dict(window=100, threshold=0.8, gamma=0.3), "gamma"),
]


@pytest.mark.parametrize("params, name", BAD_PARAMS, ids=[repr(p) for p, _ in BAD_PARAMS])
def test_privacy_cost_refuses_what_fit_refuses(params, name):
    acc = Ledger()
    det = PrivateChangePointDetector(**{"accountant": acc, **params})
    with pytest.raises(ValueError) as refused:
        det.privacy_cost()
    assert name in str(refused.value)  # the message names the parameter
    methods = [det.fit] + ([det.partial_fit] if params.get("window") is not None else [])
    for method in methods:
        with pytest.raises(type(refused.value)) as raised:
            method(SERIES)
        assert str(raised.value) == str(refused.value)
        assert acc.spent == []
        with pytest.raises(NotFittedError):
            check_is_fitted(det)
        assert not [k for k in vars(det) if k not in PARAMS]


def test_single_parameter_ranges_are_sklearn_errors():
    for params in (dict(gamma=5), dict(epsilon=0), dict(window=100, threshold=1.5)):
        with pytest.raises(InvalidParameterError):
            PrivateChangePointDetector(**params).privacy_cost()


# ------------------------------------------------------------ offline fit
OFFLINE_FAULTS = [  # (owner, name, charged): the stage and what it has paid by then
    (_pncpd, "validate_data", 0),  # reading the series
    (_pncpd, "check_random_state", 0),  # after the budget check, before the charge
    (_binseg.ReportNoisyMax, "select", 1),  # inside the mechanism, once charged
]
# one change point: a single charge of ε (the "auto" search charges by level)
OFFLINE = dict(epsilon=2.0, n_change_points=1, random_state=1)


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("owner, name, charged", OFFLINE_FAULTS, ids=[f[1] for f in OFFLINE_FAULTS])
def test_offline_fit_is_a_transaction(monkeypatch, exc, owner, name, charged):
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **OFFLINE)
    with monkeypatch.context() as patch:
        inject(patch, owner, name, exc)
        with pytest.raises(exc):
            det.fit(SERIES)
    with pytest.raises(NotFittedError):
        check_is_fitted(det)
    assert state(det) == state(PrivateChangePointDetector())
    assert acc.spent == [(2.0, 0.0)] * charged
    if charged:
        assert det.privacy_spent_.epsilon == 2.0
    else:
        assert not hasattr(det, "privacy_spent_")
    det.fit(SERIES)  # the retry is a new fit: it pays again
    expected = PrivateChangePointDetector(**OFFLINE).fit(SERIES)
    assert det.change_point_ == expected.change_point_
    assert acc.spent == [(2.0, 0.0)] * (charged + 1) and det.privacy_spent_.epsilon == 2.0


def test_failed_refit_keeps_the_earlier_fit(monkeypatch):
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **OFFLINE).fit(SERIES)
    before = state(det)
    with monkeypatch.context() as patch:
        inject(patch, _binseg.ReportNoisyMax, "select", KeyboardInterrupt)
        with pytest.raises(KeyboardInterrupt):
            det.fit(SERIES[::-1])
    assert state(det) == before and check_is_fitted(det) is None
    assert acc.spent == [(2.0, 0.0)] * 2 and det.privacy_spent_.epsilon == 4.0


def test_offline_privacy_spent_is_the_mechanism_cost():
    acc = Ledger()
    det = PrivateChangePointDetector(
        epsilon=1.5, n_change_points=1, random_state=0, accountant=acc
    ).fit(SERIES)
    cost = segmentation_plan(1.5, 1, 10)[0][1].cost
    assert det.privacy_spent_ == cost == det.privacy_cost()
    assert acc.spent == [(1.5, 0.0)]


@pytest.mark.parametrize(
    "x",
    [
        SERIES,
        np.random.default_rng(5).normal(size=400),
        np.r_[np.zeros(200), np.ones(200), np.zeros(200)],
        np.arange(400.0) / 100 + np.random.default_rng(6).normal(size=400),
    ],
)
def test_auto_charges_equal_privacy_spent_and_stay_within_the_cost(x):
    # "auto": 15 % of ε on the turning points, then per level a third of ε_l testing
    # and two thirds locating (a quarter and three quarters on the first), only the
    # levels reached; the useful levels of this n and the levels' ε, halving weights
    # over them; the trend check's 15 % comes out of the locations and is charged
    # last, only when every change found is a level change the same way
    acc = Ledger()
    det = PrivateChangePointDetector(epsilon=1.5, random_state=0, accountant=acc).fit(x)
    levels = useful_levels(x.size, 1.5, 10, det.min_size_, 0.05, "both")
    assert levels in (1, 2, 3, 4)  # at most ceil(log2(11)) = 4
    weights = 0.5 ** np.arange(1, levels + 1) / (1 - 0.5**levels)
    tests = [1 / 4] + [1 / 3] * (levels - 1)
    stages = [1.275 * w * f for w, t in zip(weights, tests) for f in (t, 1 - t)]
    keep = 1 - 0.225 / sum(stages[1::2])
    stages = [e * (keep if i % 2 else 1) for i, e in enumerate(stages)]
    plan = [
        m.epsilon
        for _, m in segmentation_plan(
            1.5, "auto", 10, n=x.size, min_size=det.min_size_, series="auto"
        )
    ]
    assert plan == pytest.approx([0.225] + stages + [0.225])
    spent = [e for e, _ in acc.spent]
    if det.series_ == "increments":  # the trend check's ε went back to the levels
        plain = [1.275 * w * f for w, t in zip(weights, tests) for f in (t, 1 - t)]
        assert spent == pytest.approx(([0.225] + plain)[: len(spent)])
    else:  # a prefix of the plan, then the trend check if it was reached
        k = len(spent)
        assert spent == pytest.approx(plan[:k]) or spent == pytest.approx(plan[: k - 1] + plan[-1:])
    assert all(d == 0 for _, d in acc.spent)
    assert det.privacy_spent_.epsilon == pytest.approx(sum(spent))
    assert det.privacy_spent_.epsilon <= det.privacy_cost().epsilon + 1e-12
    assert det.privacy_cost().epsilon == pytest.approx(1.5)
    if not det.change_points_.size and det.series_ != "trend":
        # the first test failed: nothing more was released
        assert len(acc.spent) == (1 if math.isinf(det.serial_dependence_) else 2)


# ------------------------------------------------------------ online partial_fit
ONLINE_FAULTS = {  # stage -> (owner, name, stage charges made by the failing call)
    "validation": (_pncpd, "validate_data", 0),
    "after the budget check": (_pncpd, "call_rng", 0),
    "before AboveThreshold's charge": (_online, "sliding_centre_mid_counts", 0),
    "inside AboveThreshold": (_online.AboveThreshold, "feed", 1),
    "inside PNCPD": (_online, "pncpd", 1),
}


def chunk_of(stage, charged_at):
    """The chunk whose call reaches ``stage`` (first call, first answers, detection)."""
    if stage == "validation":
        return 0  # the first call validates the series (later ones take the fast path)
    if stage == "inside PNCPD":
        return charged_at[1]
    return charged_at[0]


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("stage", list(ONLINE_FAULTS))
@pytest.mark.parametrize("chunking", list(CHUNKINGS))
def test_partial_fit_is_a_transaction_and_a_retry_is_exact(monkeypatch, chunking, stage, exc):
    chunks = CHUNKINGS[chunking]
    expected, charged_at = reference(chunks)
    owner, name, made = ONLINE_FAULTS[stage]
    at = chunk_of(stage, charged_at)
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **ONLINE)
    feed(det, chunks[:at])
    paid = [HALF] * sum(i < at for i in charged_at)
    assert acc.spent == paid
    before = state(det)
    with monkeypatch.context() as patch:
        calls = inject(patch, owner, name, exc)
        with pytest.raises(exc):
            det.partial_fit(chunks[at])
        assert calls[0] >= 1
    # as before the call, except for the charge it made
    assert state(det) == before
    counters_agree(det)
    assert acc.spent == paid + [HALF] * made
    spent = 2.0 * len(acc.spent)
    if spent or hasattr(det, "privacy_spent_"):
        assert det.privacy_spent_.epsilon == spent
    if at == 0:
        with pytest.raises(NotFittedError):
            check_is_fitted(det)
    # the retry of the same chunk continues the run exactly, and pays no stage twice
    feed(det, chunks[at:])
    assert outcome(det) == expected
    assert acc.spent == [HALF, HALF] and det.privacy_spent_.epsilon == 4.0
    assert det.privacy_spent_ == det.privacy_cost()


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_interrupt_inside_a_large_chunk_rolls_back_every_block(monkeypatch, exc):
    # blocks of 16 points: the fault hits the 5th block of the chunk, after the
    # earlier ones moved the stream's state on (the case where n_seen_ used to lag)
    monkeypatch.setattr(_online, "_BLOCK", 16)
    chunks = [X[:300], X[300:1100], X[1100:]]
    expected, _ = reference(chunks)
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **ONLINE).partial_fit(chunks[0])
    before = state(det)
    with monkeypatch.context() as patch:
        calls = inject(patch, _online.AboveThreshold, "feed", exc, when=5)
        with pytest.raises(exc):
            det.partial_fit(chunks[1])
        assert calls[0] == 5
    assert state(det) == before and det.n_seen_ == 300
    counters_agree(det)
    assert acc.spent == [HALF]
    feed(det, chunks[1:])
    assert outcome(det) == expected and acc.spent == [HALF, HALF]


def test_every_retry_of_a_failing_first_call_is_charged_once(monkeypatch):
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **ONLINE)
    for _ in range(3):
        with monkeypatch.context() as patch:
            inject(patch, _online.AboveThreshold, "feed", KeyboardInterrupt)
            with pytest.raises(KeyboardInterrupt):
                det.partial_fit(X[:600])
        assert acc.spent == [HALF] and det.privacy_spent_.epsilon == 2.0
        assert not hasattr(det, "_online") and not hasattr(det, "n_seen_")
    expected, _ = reference([X[:600], X[600:]])
    feed(det, [X[:600], X[600:]])
    assert outcome(det) == expected and acc.spent == [HALF, HALF]


def test_online_fit_is_a_new_run_each_time(monkeypatch):
    acc = Ledger()
    det = PrivateChangePointDetector(accountant=acc, **ONLINE)
    with monkeypatch.context() as patch:
        inject(patch, _online, "pncpd", RuntimeError)
        with pytest.raises(RuntimeError):
            det.fit(X)
    assert acc.spent == [HALF, HALF] and det.privacy_spent_.epsilon == 4.0
    with pytest.raises(NotFittedError):
        check_is_fitted(det)
    det.fit(X)
    expected = PrivateChangePointDetector(**ONLINE).fit(X)
    assert outcome(det) == outcome(expected)
    assert acc.spent == [HALF] * 4 and det.privacy_spent_.epsilon == 4.0


def test_online_privacy_spent_is_the_sum_of_the_stage_costs():
    acc = Ledger()
    det = feed(PrivateChangePointDetector(accountant=acc, **ONLINE), CHUNKINGS["B"])
    costs = stage_costs(200, 0.1, 4.0)
    assert [c.epsilon for c in costs] == [e for e, _ in acc.spent]
    assert det.privacy_spent_ == costs[0] + costs[1] == det.privacy_cost()
    assert set(det.privacy_spent_.notes) == {c.notes[-1] for c in costs}


# ----------------------------------------------------- the run's reservation
def test_the_reservation_stays_open_until_the_detection():
    acc = Ledger(epsilon=4.0)
    det = PrivateChangePointDetector(accountant=acc, **ONLINE).partial_fit(X[:600])
    assert acc.spent == [HALF]
    other = PrivateChangePointDetector(epsilon=1.0, random_state=0, accountant=acc)
    with pytest.raises(LedgerRefused):  # ε/2 of the run is still reserved
        other.fit(SERIES)
    feed(det, [X[600:]])
    assert det.detected_ and acc.spent == [HALF, HALF]
    with pytest.raises(LedgerRefused):  # and now spent
        other.fit(SERIES)


def test_a_failed_call_releases_the_reservation_and_the_next_call_takes_it_up(monkeypatch):
    acc = Ledger(epsilon=4.5)
    det = PrivateChangePointDetector(accountant=acc, **ONLINE).partial_fit(X[:600])
    with monkeypatch.context() as patch:
        inject(patch, _pncpd, "call_rng", KeyboardInterrupt)
        with pytest.raises(KeyboardInterrupt):
            det.partial_fit(X[600:700])
    # between the two calls the run holds nothing: 2.5 of 4.5 are free
    taker = PrivateChangePointDetector(
        epsilon=2.5, n_change_points=1, random_state=0, accountant=acc
    )
    taker.fit(SERIES)
    before = state(det)
    with pytest.raises(LedgerRefused):  # the rest of the run (ε/2) no longer fits
        det.partial_fit(X[600:700])
    assert state(det) == before and acc.spent == [HALF, (2.5, 0.0)]
    counters_agree(det)


def test_the_next_call_reserves_the_rest_of_the_run_again(monkeypatch):
    acc = Ledger(epsilon=4.5)
    det = PrivateChangePointDetector(accountant=acc, **ONLINE).partial_fit(X[:600])
    with monkeypatch.context() as patch:
        inject(patch, _pncpd, "call_rng", RuntimeError)
        with pytest.raises(RuntimeError):
            det.partial_fit(X[600:700])
    det.partial_fit(X[600:700])
    other = PrivateChangePointDetector(epsilon=1.0, random_state=0, accountant=acc)
    with pytest.raises(LedgerRefused):  # 2 spent + 2 reserved: 0.5 left
        other.fit(SERIES)
    feed(det, [X[700:]])
    assert det.detected_ and acc.spent == [HALF, HALF]
