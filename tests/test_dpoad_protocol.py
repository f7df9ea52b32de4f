"""DPOAD under the privacy protocol: parameters, the accountant, windows as transactions.

Each ``fit`` / ``partial_fit`` is one window and one transaction: its cost is
checked and charged right before the owner releases the window, and a call
that fails at any stage (RuntimeError or KeyboardInterrupt injected there)
leaves the estimator exactly as before, except that ``privacy_spent_`` and
the accountant keep a charge already made. Fixed seeds: deterministic.
"""

import copy
from functools import partial

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from _faults import raised_type, same, state
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly import DPOAD
from skdp_anomaly.dpoad import Analyst, DataOwner
from skdp_anomaly.dpoad._baseline import PoissonBaseline
from skdp_anomaly.dpoad._proportions import ProportionBaseline
from skdp_anomaly.dpoad import _analyst, _estimator, _owner
from skdp_anomaly.privacy import (
    GeometricMechanism,
    LaplaceMechanism,
    PrivacyCostMixin,
    compose_sequential,
)


BINS = np.linspace(0.0, 1.0, 17)
EPS = 0.5
# one learning window, so that the stages below fall in the first windows; the
# protocol does not depend on the count model
PARAMS = {
    "bins": BINS,
    "epsilon": EPS,
    "max_count": 200,
    "sensitivity_samples": 20_000,
    "learning_windows": 1,
    "count_model": "multinomial",
    "random_state": 0,
}
# one window under replace-one neighbours (the accountant's relation): 2 ε
LEDGER_ENTRY = (2 * EPS, 0.0)


def _windows(n=4, seed=3):
    rng = np.random.default_rng(seed)
    out = [rng.uniform(0, 1, 300) for _ in range(n)]
    out[-1][:80] = 0.4  # a burst in the last window
    return out


WINDOWS = _windows()


# the two roles are compared attribute by attribute
_same = partial(same, objects=(DataOwner, Analyst, PoissonBaseline, ProportionBaseline))


def _check_consistent(det):
    """The public counters never lag the owner's and the analyst's state."""
    n = det.n_windows_
    assert len(det.releases_) == len(det.reports_) == det.anomalies_.shape[0] == n
    assert det.owner_.n_released == len(det.analyst_.releases) == len(det.analyst_.reports) == n
    assert all(a is b for a, b in zip(det.releases_, det.analyst_.releases))
    assert all(not r.values.flags.writeable for r in det.releases_)  # still frozen


# ------------------------------------------------------------------ parameters
BAD_PARAMETERS = [
    ({"epsilon": 0.0}, InvalidParameterError, "epsilon"),
    ({"epsilon": "1"}, InvalidParameterError, "epsilon"),
    ({"epsilon": 31.0, "mechanism": "record"}, ValueError, "epsilon"),
    ({"epsilon": 31.0, "mechanism": "dpoad"}, ValueError, "epsilon"),
    ({"epsilon": 400.0, "mechanism": "laplace", "max_count": 10}, ValueError, "epsilon"),
    ({"gamma": 0.0}, InvalidParameterError, "gamma"),
    ({"gamma": 1.0, "mechanism": "laplace"}, InvalidParameterError, "gamma"),
    # Thm IV.2's sampler: k > m = sensitivity_samples at this γ (dpoad only)
    ({"gamma": 0.001, "mechanism": "dpoad"}, ValueError, "sensitivity_samples"),
    ({"mechanism": "gaussian"}, InvalidParameterError, "mechanism"),
    ({"max_count": 0}, InvalidParameterError, "max_count"),
    ({"threshold": 1.0}, InvalidParameterError, "threshold"),
    ({"learning_windows": 0}, InvalidParameterError, "learning_windows"),
    ({"sensitivity_samples": 0}, InvalidParameterError, "sensitivity_samples"),
    ({"random_state": -1}, InvalidParameterError, "random_state"),
    ({"accountant": object()}, InvalidParameterError, "accountant"),
    ({"bins": [0.0, 2.0, 1.0]}, ValueError, "bins"),
    ({"bins": [0.0]}, ValueError, "bins"),
    ({"bins": [np.linspace(0, 1, 3), [1.0, 0.0]]}, ValueError, "bins"),
]


@pytest.mark.parametrize(
    "bad, error, name",
    BAD_PARAMETERS,  # ids without addresses
    ids=[f"{i}-{'-'.join(sorted(b))}" for i, (b, _, _) in enumerate(BAD_PARAMETERS)],
)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_a_bad_parameter_raises_the_same_error_from_privacy_cost_and_fit(bad, error, name, method):
    with pytest.raises(ValueError) as from_cost:
        DPOAD(**{**PARAMS, **bad}).privacy_cost()
    assert type(from_cost.value) is raised_type(error) and name in str(from_cost.value)
    ledger = Ledger()
    det = DPOAD(**{**PARAMS, "accountant": ledger, **bad})
    with pytest.raises(error, match=name):
        getattr(det, method)(WINDOWS[0])
    assert ledger.spent == [] and state(det) == {}
    with pytest.raises(NotFittedError):
        check_is_fitted(det)


def test_max_count_none_is_a_declared_leak():
    (leak,) = DPOAD(BINS).privacy_leaks()
    assert "max_count=None" in leak and "record count" in leak
    assert DPOAD(BINS, max_count=10).privacy_leaks() == ()


# ------------------------------------------------------------------ the accountant
@pytest.mark.parametrize("mechanism", ["dpoad", "painfree", "laplace", "record"])
def test_each_window_is_charged_right_before_its_release(mechanism, monkeypatch):
    events, charged = [], []

    class EventLedger(Ledger):
        def spend(self, epsilon, delta):
            super().spend(epsilon, delta)
            events.append("charge")
            return self

    release, charge = DataOwner.release, PrivacyCostMixin._charge

    def recorded_release(self, X):
        events.append("release")
        return release(self, X)

    def recorded_charge(self, cost):
        charged.append(cost)
        return charge(self, cost)

    monkeypatch.setattr(DataOwner, "release", recorded_release)
    monkeypatch.setattr(PrivacyCostMixin, "_charge", recorded_charge)
    ledger = EventLedger()
    det = DPOAD(**PARAMS, mechanism=mechanism, accountant=ledger).fit(WINDOWS[0])
    for X in WINDOWS[1:]:
        det.partial_fit(X)
    assert events == ["charge", "release"] * len(WINDOWS)
    # replace-one neighbours: 2 ε a window; the random-DP mechanisms are charged their ε part
    assert ledger.spent == [LEDGER_ENTRY] * len(WINDOWS)
    assert charged == [det.owner_.cost()] * len(WINDOWS)
    assert det.privacy_spent_ == compose_sequential(charged)
    assert det.privacy_spent_ == compose_sequential([det.privacy_cost()] * len(WINDOWS))
    assert det.privacy_spent_.gamma == pytest.approx(
        0.2 if mechanism in ("dpoad", "painfree") else 0.0
    )


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_a_refused_first_window_charges_nothing_and_leaves_dpoad_unfitted(method):
    ledger = Ledger(epsilon=0.9)  # one window costs 1.0 under replace-one neighbours
    det = DPOAD(**PARAMS, accountant=ledger)
    with pytest.raises(LedgerRefused):
        getattr(det, method)(WINDOWS[0])
    assert ledger.spent == [] and state(det) == {}
    with pytest.raises(NotFittedError):
        check_is_fitted(det)


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize(
    "bad",
    [["a", "b"] * 20, np.array(["0.1", "0.2"] * 20), np.array([0.5, "secret"] * 20, dtype=object)],
)
def test_string_input_is_refused_by_name_before_the_charge(bad, method):
    ledger = Ledger()
    det = DPOAD(**PARAMS, accountant=ledger)
    with pytest.raises(ValueError, match="DPOAD supports numeric features only; X ") as info:
        getattr(det, method)(bad)
    # numpy's own message quotes a cell: no data value may reach an exception
    assert "secret" not in str(info.value) and "could not convert" not in str(info.value)
    assert ledger.spent == [] and state(det) == {}
    det.fit(WINDOWS[0])
    with pytest.raises(ValueError, match="DPOAD supports numeric features only"):
        det.partial_fit(bad)  # a later window: refused before its charge too
    assert ledger.spent == [LEDGER_ENTRY]


def test_a_refused_later_window_or_new_stream_changes_nothing():
    ledger = Ledger(epsilon=2.0)  # two windows
    det = DPOAD(**PARAMS, accountant=ledger).fit(WINDOWS[0]).partial_fit(WINDOWS[1])
    before = copy.deepcopy(state(det))
    with pytest.raises(LedgerRefused):
        det.partial_fit(WINDOWS[2])
    assert _same(state(det), before)
    with pytest.raises(LedgerRefused):
        det.fit(WINDOWS[2])  # a new stream's first window does not fit either
    assert _same(state(det), before)
    assert ledger.spent == [LEDGER_ENTRY] * 2
    check_is_fitted(det)
    _check_consistent(det)


# ------------------------------------------------------------------ the stream's γ
@pytest.mark.parametrize("mechanism", ["painfree", "dpoad"])
def test_a_random_dp_stream_is_refused_before_its_gamma_reaches_1(mechanism, monkeypatch):
    # γ = 0.25 a window: three windows give the stream γ = 0.75, a fourth would give 1
    # (no guarantee at all): it is refused, naming gamma, before it is charged or released
    ledger = Ledger()
    det = DPOAD(**PARAMS, gamma=0.25, mechanism=mechanism, accountant=ledger)
    windows = _windows(4, seed=6)
    for X in windows[:3]:
        det.partial_fit(X)
    assert det.n_windows_ == 3
    assert det.privacy_spent_.gamma == pytest.approx(0.75)
    assert det.privacy_spent_.epsilon == pytest.approx(3 * EPS)
    assert ledger.spent == [LEDGER_ENTRY] * 3
    before = copy.deepcopy(state(det))

    calls = []
    release, charge = DataOwner.release, PrivacyCostMixin._charge

    def recorded_release(self, X):
        calls.append("release")
        return release(self, X)

    def recorded_charge(self, cost):
        calls.append("charge")
        return charge(self, cost)

    monkeypatch.setattr(DataOwner, "release", recorded_release)
    monkeypatch.setattr(PrivacyCostMixin, "_charge", recorded_charge)
    for _ in range(2):  # and again: a refusal is not a one-off
        with pytest.raises(ValueError, match="'gamma'"):
            det.partial_fit(windows[3])
        assert calls == []  # neither charged nor released
        assert ledger.spent == [LEDGER_ENTRY] * 3
        assert _same(state(det), before)
        assert det.n_windows_ == 3 and det.owner_.n_released == 3
        assert det.privacy_spent_.gamma == pytest.approx(0.75)
        _check_consistent(det)
    monkeypatch.undo()
    # a new stream starts again at one window
    det.fit(windows[3])
    assert det.n_windows_ == 1 and det.privacy_spent_.gamma == pytest.approx(0.25)
    assert ledger.spent == [LEDGER_ENTRY] * 4


@pytest.mark.parametrize("mechanism", ["record", "laplace"])
def test_a_pure_stream_has_no_window_limit(mechanism):
    # gamma is unused by the pure mechanisms: 30 windows at γ = 0.25 (30 γ = 7.5) go through
    ledger = Ledger()
    det = DPOAD(**PARAMS, gamma=0.25, mechanism=mechanism, accountant=ledger)
    for X in _windows(30, seed=7):
        det.partial_fit(X)
    assert det.n_windows_ == 30
    _check_consistent(det)
    spent = det.privacy_spent_
    assert spent.notion == "pure ε-DP" and spent.gamma == 0.0
    assert spent.epsilon == pytest.approx(30 * EPS)
    assert spent == compose_sequential([det.privacy_cost()] * 30)
    assert ledger.spent == [LEDGER_ENTRY] * 30


@pytest.mark.parametrize("mechanism", ["record", "laplace"])
def test_gamma_outside_the_samplers_range_is_accepted_when_unused(mechanism):
    # γ = 0.001 is refused by dpoad's sampler (see BAD_PARAMETERS); record and laplace
    # sample nothing, so it is accepted and changes nothing
    det = DPOAD(**PARAMS, gamma=0.001, mechanism=mechanism).fit(WINDOWS[0])
    assert det.owner_.learning_parameters is None and det.owner_.prediction_parameters is None
    assert det.privacy_spent_ == DPOAD(**PARAMS, mechanism=mechanism).privacy_cost()
    assert det.releases_ == DPOAD(**PARAMS, mechanism=mechanism).fit(WINDOWS[0]).releases_


# ------------------------------------------------------------------ fault injection
class _Failure:
    def __init__(self, exc):
        self.exc = exc

    def __call__(self, *args, **kwargs):
        raise self.exc("injected")


# stage -> (mechanism, detector, where, attribute, windows charged before the failure)
STAGES = {
    "validation": ("record", "baseline", _estimator, "validate_data", 0),
    "after the budget check": ("record", "baseline", _estimator, "Analyst", 0),
    "histogram": ("record", "baseline", _owner, "window_histogram", 1),
    "geometric noise": ("record", "baseline", GeometricMechanism, "randomise", 1),
    "sensitivity sampling": ("painfree", "baseline", _owner, "kth_smallest_uniform", 1),
    "prediction noise": ("dpoad", "baseline", LaplaceMechanism, "randomise", 1),
    "analyst scoring": ("record", "kse", _analyst, "value_scores", 1),
    # the default detector: learning its baseline (a stream's first window) and testing
    # a later window against it
    "analyst learning": ("record", "baseline", ProportionBaseline, "learn", 1),
    "analyst testing": ("record", "baseline", ProportionBaseline, "test", 1),
    "owner takes the report": ("record", "baseline", DataOwner, "receive", 1),
}
# call -> (method, window, windows of the stream before the call)
CALLS = {
    "fit": ("fit", 2, 0),
    "refit": ("fit", 2, 2),
    "first partial_fit": ("partial_fit", 0, 0),
    "later partial_fit": ("partial_fit", 2, 2),
}
# the analyst is built for a new stream only; DPOAD's prediction phase starts at window 1;
# the baseline is learnt from a stream's first window (learning_windows=1), then tested
_FIRST_WINDOW = ("fit", "refit", "first partial_fit")
_APPLIES = {
    "after the budget check": _FIRST_WINDOW,
    "prediction noise": ("later partial_fit",),
    "analyst learning": _FIRST_WINDOW,
    "analyst testing": ("later partial_fit",),
}


def _stream(mechanism, n_windows, ledger=None, detector="baseline"):
    det = DPOAD(**PARAMS, mechanism=mechanism, detector=detector, accountant=ledger)
    for i in range(n_windows):
        det.partial_fit(WINDOWS[i])
    return det


FAULTS = [(stage, call) for stage in STAGES for call in CALLS if call in _APPLIES.get(stage, CALLS)]


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("stage, call", FAULTS, ids=[f"{s}-{c}" for s, c in FAULTS])
def test_a_failed_window_is_rolled_back_whole_and_keeps_its_charge(stage, call, exc, monkeypatch):
    mechanism, detector, where, attribute, made = STAGES[stage]
    method, window, n_before = CALLS[call]
    ledger = Ledger()
    det = _stream(mechanism, n_before, ledger, detector)
    before = copy.deepcopy(state(det))
    monkeypatch.setattr(where, attribute, _Failure(exc))
    with pytest.raises(exc):
        getattr(det, method)(WINDOWS[window])
    monkeypatch.undo()

    # exactly the charges made before the failure, on the accountant and in privacy_spent_
    assert ledger.spent == [LEDGER_ENTRY] * (n_before + made)
    after = state(det)
    kept = {"privacy_spent_", "_charges"} if made else set()
    assert _same(
        {k: v for k, v in after.items() if k not in kept},
        {k: v for k, v in before.items() if k not in kept},
    )
    if made:
        assert det.privacy_spent_ == DPOAD(**PARAMS, mechanism=mechanism).privacy_cost().scale(
            n_before + made
        )
    if n_before:
        check_is_fitted(det)
        _check_consistent(det)
    else:
        with pytest.raises(NotFittedError):
            check_is_fitted(det)
        assert set(after) <= kept

    # a retry succeeds and releases what an uninterrupted stream releases
    getattr(det, method)(WINDOWS[window])
    reference = _stream(mechanism, 0 if method == "fit" else n_before, detector=detector)
    getattr(reference, method)(WINDOWS[window])
    assert det.releases_ == reference.releases_ and det.reports_ == reference.reports_
    np.testing.assert_array_equal(det.anomalies_, reference.anomalies_)
    _check_consistent(det)
    assert ledger.spent == [LEDGER_ENTRY] * (n_before + made + 1)
    # a new stream counts its own windows; a stream goes on counting the failed charge
    run = 1 if method == "fit" or n_before == 0 else n_before + made + 1
    assert det.privacy_spent_ == reference.privacy_cost().scale(run)


def test_an_interrupted_tenth_window_leaves_nine_windows_and_ten_charges(monkeypatch):
    # the analyst has received the tenth window when the owner is interrupted: the
    # whole window is undone, and its charge is kept (it was made before the release)
    windows = _windows(10, seed=4)
    ledger = Ledger()
    det = DPOAD(**PARAMS, mechanism="record", accountant=ledger)
    for X in windows[:9]:
        det.partial_fit(X)
    monkeypatch.setattr(DataOwner, "receive", _Failure(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        det.partial_fit(windows[9])
    monkeypatch.undo()
    assert det.n_windows_ == 9
    _check_consistent(det)
    assert [r.window for r in det.releases_] == list(range(9))  # no gap
    assert det.privacy_spent_.epsilon == pytest.approx(10 * EPS)
    assert len(ledger.spent) == 10
    det.partial_fit(windows[9])
    assert det.n_windows_ == 10 and [r.window for r in det.releases_] == list(range(10))
    assert det.privacy_spent_.epsilon == pytest.approx(11 * EPS)


def test_a_rollback_keeps_the_users_generator(monkeypatch):
    rng = np.random.default_rng(5)
    det = DPOAD(**{**PARAMS, "random_state": rng}, mechanism="record").fit(WINDOWS[0])
    monkeypatch.setattr(DataOwner, "receive", _Failure(RuntimeError))
    with pytest.raises(RuntimeError):
        det.partial_fit(WINDOWS[1])
    # a restored copy of the generator would replay the noise the failed window drew
    assert det.owner_.random_state is rng


def test_a_one_dimensional_window_is_refused_without_quoting_its_values():
    # scikit-learn's own message for a 1-D X prints the array: the rows would leak
    bins = [np.linspace(0, 1, 5), np.linspace(0, 1, 5)]
    with pytest.raises(ValueError, match="2-D X") as info:
        DPOAD(bins, epsilon=1.0, max_count=10).partial_fit(np.array([0.123456, 0.5]))
    assert "0.123456" not in str(info.value) and "0.12" not in str(info.value)
