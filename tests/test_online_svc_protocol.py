"""PrivateOnlineActiveSVC and the privacy protocol: parameters, transactions, interruptions.

* every bad parameter is refused by ``privacy_cost()`` with the error ``fit``
  and ``partial_fit`` raise, before anything is read or charged;
* ``fit`` is a transaction: a fault at any stage (RuntimeError and
  KeyboardInterrupt) leaves the estimator as it was, except that
  ``privacy_spent_`` and the accountant keep the charge made;
* a stream cannot be rolled back once the oracle saw rows: an interrupted
  ``partial_fit`` commits exactly what the compiled loop did, and a retry
  with the same chunk resumes after the consumed rows (no row used twice, no
  label asked twice), while a call that used nothing is rolled back exactly.

These tests look at the private run state (``_state``) only to check that the
public counters never lag it. Every scenario is deterministic (fixed seeds).
"""

import copy
import pickle

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from _faults import raised_type
from _online_svc_helpers import paper_svc
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly.active_learning import _kernel as kernel
from skdp_anomaly.active_learning import _online_svc as svc_module
from skdp_anomaly.active_learning import _stream as stream_module
from skdp_anomaly.privacy import (
    ExponentialSelection,
    LaplaceMechanism,
    PrivacyCostMixin,
    compose_sequential,
)


CLASSES = [-1, 1]


def disc_stream(n, seed, d=2):
    """``n`` distinct rows in the unit disc (no projection), label ``sign(x0)``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= (rng.random(n) ** (1 / d) / np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] > 0, 1, -1)


X, Y = disc_stream(1200, seed=40)


class Oracle:
    """Answers by row content; records the stream index of every row answered.

    ``arm(at, exc)`` makes its ``at``-th call from now raise ``exc`` (once).
    """

    def __init__(self):
        self.index = {row.tobytes(): i for i, row in enumerate(X)}
        self.answered, self.calls, self.fail_at, self.exc = [], 0, None, None

    def arm(self, at, exc):
        self.fail_at, self.exc = self.calls + at, exc

    def __call__(self, rows):
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.exc("the labeller is gone")
        idx = [self.index[row.tobytes()] for row in rows]
        self.answered.extend(idx)
        return Y[idx]


class Labels:
    """A label sequence (not an ndarray) that records the indices read."""

    def __init__(self, values):
        self.values, self.read = list(values), []

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        self.read.append(int(i))
        return self.values[int(i)]


def fail_on_call(monkeypatch, owner, name, exc, at=1, after=False):
    """Make ``owner.name`` raise ``exc`` on its ``at``-th call (after running, with ``after``)."""
    real = getattr(owner, name)
    calls = []

    def faulty(*args, **kwargs):
        calls.append(1)
        if len(calls) == at and not after:
            raise exc("injected")
        out = real(*args, **kwargs)
        if len(calls) == at:
            raise exc("injected")
        return out

    monkeypatch.setattr(owner, name, faulty)


def make(ledger=None, **kw):
    return paper_svc(
        **{"epsilon": 2.0, "batch_size": 5, "random_state": 0, "accountant": ledger, **kw}
    )


def state_of(est):
    params = set(est.get_params(deep=False))
    return {k: v for k, v in vars(est).items() if k not in params and k != "_budget_run"}


def assert_same(a, b, where="state"):
    """Deep equality of estimator state (arrays, containers, plain objects)."""
    assert type(a) is type(b), where
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (va, vb) in enumerate(zip(a, b)):
            assert_same(va, vb, f"{where}[{i}]")
    elif hasattr(a, "__dict__") and type(a).__eq__ is object.__eq__:
        assert_same(vars(a), vars(b), where)
    else:
        assert a == b, where


def assert_public_matches_kernel(est):
    """The public counters and coef_ say exactly what the compiled loop did."""
    ints = est._state.ints
    assert est.n_seen_last_call_ == ints[kernel.ROW]
    assert est.n_labels_requested_ == ints[kernel.N_LABELS]
    assert est.n_updates_ == ints[kernel.N_UPDATES]
    np.testing.assert_array_equal(est.coef_[0], est._state.average)
    assert est.privacy_spent_ == est.privacy_cost()


# ---------------------------------------------------------------- parameters
BAD_PARAMETERS = [
    (dict(epsilon=0), "epsilon", InvalidParameterError),
    (dict(epsilon=-1.0), "epsilon", InvalidParameterError),
    (dict(epsilon=np.nan), "epsilon", InvalidParameterError),
    (dict(epsilon="1"), "epsilon", InvalidParameterError),
    (dict(selection="random"), "selection", InvalidParameterError),
    (dict(update="sgd"), "update", InvalidParameterError),
    (dict(batch_size=0), "batch_size", InvalidParameterError),
    (dict(data_norm=-1.0), "data_norm", InvalidParameterError),
    (dict(selection_share=1.0), "selection_share", InvalidParameterError),
    (dict(slab=1.0), "slab", InvalidParameterError),
    (dict(slab_schedule="linear"), "slab_schedule", InvalidParameterError),
    (dict(eta0=0.0), "eta0", InvalidParameterError),
    (dict(alpha=0.0), "alpha", InvalidParameterError),
    (dict(average=0), "average", InvalidParameterError),
    (dict(random_state="seed"), "random_state", InvalidParameterError),
    (dict(accountant="ledger"), "accountant", InvalidParameterError),  # no spend()
    # between parameters, or where floating point ends
    (dict(selection="exponential", slab_schedule="shrinking"), "slab_schedule", ValueError),
    (dict(epsilon=2000.0), "epsilon", ValueError),  # ε_s = 1000 > 30
    (dict(epsilon=100.0, selection_share=0.9), "epsilon", ValueError),
    (dict(epsilon=1e300, selection="all"), "epsilon", ValueError),  # ε_g > 1e6
    (dict(epsilon=1e-12), "epsilon", InvalidParameterError),  # below MIN_EPSILON
    (dict(alpha=1e-320), "alpha", ValueError),  # 1/alpha overflows
    (dict(data_norm=1e308), "data_norm", ValueError),  # 2M overflows
    (dict(data_norm=1e-320), "data_norm", ValueError),  # no grid that fine
]


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize(
    "params, name, error", BAD_PARAMETERS, ids=[repr(p) for p, _, _ in BAD_PARAMETERS]
)
def test_bad_parameter_refused_by_privacy_cost_as_by_fit(params, name, error, method):
    with pytest.raises(ValueError) as from_cost:
        make(**params).privacy_cost()
    assert type(from_cost.value) is raised_type(error)
    assert f"The '{name}' parameter" in str(from_cost.value)
    ledger = Ledger()
    est = make(**{"accountant": ledger, **params})
    labels = Labels(Y[:50])
    with pytest.raises(ValueError) as from_fit:
        getattr(est, method)(X[:50], labels, classes=CLASSES)
    assert type(from_fit.value) is raised_type(error)
    assert f"The '{name}' parameter" in str(from_fit.value)
    assert labels.read == [] and ledger.spent == [] and state_of(est) == {}


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize(
    "bad",
    [
        [["a", "b"]] * 50,
        np.array([["0.1", "0.2"]] * 50),
        np.array([[0.5, "secret"]] * 50, dtype=object),
    ],
)
def test_string_input_is_refused_by_name_before_the_charge(bad, method):
    ledger = Ledger()
    est = make(ledger)
    labels = Labels(Y[:50])
    with pytest.raises(
        ValueError, match="PrivateOnlineActiveSVC supports numeric features only; X "
    ) as info:
        getattr(est, method)(bad, labels, classes=CLASSES)
    # numpy's own message quotes a cell: no data value may reach an exception
    assert "secret" not in str(info.value) and "could not convert" not in str(info.value)
    assert labels.read == [] and ledger.spent == [] and state_of(est) == {}
    est.fit(X[:50], Y[:50], classes=CLASSES)
    with pytest.raises(ValueError, match="PrivateOnlineActiveSVC supports numeric"):
        est.predict(bad)


def test_data_norm_too_large_for_the_features_refused_before_the_charge():
    # 2·M·√1 is finite (privacy_cost() passes) and 2·M·√4 overflows: fit refuses it
    # before the charge
    ledger, oracle = Ledger(), Oracle()
    est = make(ledger, data_norm=8e307)
    assert est.privacy_cost().epsilon == 2.0
    with pytest.raises(ValueError, match=r"The 'data_norm' parameter.*4 feature"):
        est.fit(np.zeros((10, 4)), label_oracle=oracle, classes=CLASSES)
    assert ledger.spent == [] and oracle.calls == 0 and state_of(est) == {}


def test_parameters_cannot_change_during_a_run():
    est = make().partial_fit(X[:300], Y[:300], classes=CLASSES)
    before = copy.deepcopy(state_of(est))
    est.set_params(batch_size=7)
    with pytest.raises(ValueError, match=r"The 'batch_size' parameter .* changed during the run"):
        est.partial_fit(X[300:600], Y[300:600])
    assert_same(state_of(est), before)
    est.set_params(batch_size=5, random_state=1)  # the seed may change
    est.partial_fit(X[300:600], Y[300:600])
    assert est.n_seen_ == 600
    est.set_params(batch_size=7).fit(X[:300], Y[:300], classes=CLASSES)  # a new run may


# ------------------------------------------------------ fit: one transaction
def _inject(stage, monkeypatch, exc, oracle):
    if stage == "validation":
        fail_on_call(monkeypatch, svc_module, "validate_data", exc)
    elif stage == "after the budget check":
        fail_on_call(monkeypatch, svc_module, "check_y_length", exc)
    elif stage == "after the charge":
        fail_on_call(monkeypatch, PrivacyCostMixin, "_charge", exc, after=True)
    elif stage == "in the noise mechanism":
        fail_on_call(monkeypatch, LaplaceMechanism, "noise_steps", exc)
    elif stage == "in the label oracle":
        oracle.arm(3, exc)
    else:  # a Ctrl-C delivered when the compiled loop returns
        fail_on_call(monkeypatch, kernel, "run_stream", exc, at=4, after=True)


BEFORE_ROWS = ["validation", "after the budget check", "after the charge"]
AFTER_ROWS = ["in the noise mechanism", "in the label oracle", "in the stream loop"]
CHARGED = {"after the charge", *AFTER_ROWS}


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize(
    "method, stage, earlier",
    [
        *[("fit", s, e) for s in BEFORE_ROWS + AFTER_ROWS for e in (False, True)],
        *[("partial_fit", s, False) for s in BEFORE_ROWS],  # the first call, before any row
    ],
)
def test_failed_fit_rolls_back_and_keeps_the_charge(method, stage, exc, earlier, monkeypatch):
    ledger, oracle = Ledger(), Oracle()
    est = make(ledger)
    cost = est.privacy_cost()
    call = getattr(est, method)
    if earlier:  # a refit of a running stream
        est.partial_fit(X[:300], label_oracle=oracle, classes=CLASSES)
    before, n_charges = copy.deepcopy(state_of(est)), len(ledger.spent)
    _inject(stage, monkeypatch, exc, oracle)
    with pytest.raises(exc):
        call(X[300:1000], label_oracle=oracle, classes=CLASSES)
    monkeypatch.undo()
    made = [cost] if stage in CHARGED else []
    assert ledger.spent[n_charges:] == [(2.0, 0.0)] * len(made)
    expected = dict(before)
    if made:  # the charge stays, composed with the earlier run's
        expected["_charges"] = before.get("_charges", []) + made
        expected["privacy_spent_"] = compose_sequential(expected["_charges"])
    assert_same(state_of(est), expected)
    if earlier:
        check_is_fitted(est)
    else:
        with pytest.raises(NotFittedError):
            check_is_fitted(est)
    call(X[300:1000], label_oracle=Oracle(), classes=CLASSES)  # a retry is a new run
    assert ledger.spent[n_charges:] == [(2.0, 0.0)] * (len(made) + 1)
    assert est.privacy_spent_ == cost and est.n_seen_ == 700


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_refused_budget_charges_nothing_and_reads_nothing(method):
    ledger, oracle = Ledger(epsilon=1.0), Oracle()
    est = make(ledger)
    with pytest.raises(LedgerRefused):
        getattr(est, method)(X[:300], label_oracle=oracle, classes=CLASSES)
    assert ledger.spent == [] and oracle.calls == 0 and state_of(est) == {}


@pytest.mark.parametrize(
    "kw, epsilon",
    [
        ({}, 2.0),
        ({"selection": "all"}, 2.0),
        (
            {"selection": "exponential", "slab": 0.2},
            ExponentialSelection(1.0, 0.2, 1.0).cost.epsilon + 1.0,
        ),
    ],
)
def test_privacy_spent_is_the_charge_made(kw, epsilon):
    ledger = Ledger()
    est = make(ledger, **kw).fit(X[:400], Y[:400], classes=CLASSES)
    ((charged, delta),) = ledger.spent
    assert charged == pytest.approx(epsilon, rel=1e-12) and delta == 0
    assert est.privacy_spent_ == est.privacy_cost()
    assert est.privacy_spent_.epsilon == pytest.approx(charged, rel=1e-12)


# --------------------------------------- partial_fit: interrupted after rows were used
@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("stage", AFTER_ROWS)
@pytest.mark.parametrize("which", ["first call", "later call"])
@pytest.mark.parametrize("then", ["retry", "other rows"])
def test_interrupted_stream_commits_and_never_uses_a_row_twice(
    stage, exc, which, then, monkeypatch
):
    ledger, oracle = Ledger(), Oracle()
    est = make(ledger)
    start = 0 if which == "first call" else 400
    if start:
        est.partial_fit(X[:start], label_oracle=oracle, classes=CLASSES)
    chunk = X[start:1000]
    _inject(stage, monkeypatch, exc, oracle)
    with pytest.raises(exc):
        est.partial_fit(chunk, label_oracle=oracle, classes=CLASSES)
    monkeypatch.undo()
    consumed = est.n_seen_last_call_
    assert 0 < consumed < len(chunk)
    assert est.n_seen_ == start + consumed
    assert est.n_labels_requested_ == len(oracle.answered)
    assert 0 <= est.n_labels_requested_ - 5 * est.n_updates_ <= 5  # FLMB batches of 5
    assert_public_matches_kernel(est)
    check_is_fitted(est)
    assert ledger.spent == [(2.0, 0.0)]
    if then == "retry":
        est.partial_fit(chunk, label_oracle=oracle)
        assert est.n_seen_ == 1000 and est.n_seen_last_call_ == len(chunk)
    else:
        est.partial_fit(X[1000:], label_oracle=oracle)
        assert est.n_seen_ == start + consumed + 200 and est.n_seen_last_call_ == 200
        skipped = set(range(start + consumed, 1000))
        assert not skipped & set(oracle.answered), "a row after the interruption was used"
    assert len(oracle.answered) == len(set(oracle.answered)), "a row was labelled twice"
    assert est.n_labels_requested_ == len(oracle.answered)
    assert_public_matches_kernel(est)
    assert ledger.spent == [(2.0, 0.0)] and est.privacy_spent_.epsilon == 2.0


def _interrupted(oracle, exc=RuntimeError):
    """A run whose second call stopped when the oracle failed on its 3rd batch."""
    est = make(Ledger())
    est.partial_fit(X[:400], label_oracle=oracle, classes=CLASSES)
    oracle.arm(3, exc)
    with pytest.raises(exc):
        est.partial_fit(X[400:1000], label_oracle=oracle)
    return est


def test_a_call_that_fails_before_using_anything_is_rolled_back_exactly():
    # the retry starts with the batch left pending: an oracle failing on it again
    # obtained no label and consumed no row, so nothing changes
    oracle = Oracle()
    est = _interrupted(oracle)
    before, answered = copy.deepcopy(state_of(est)), list(oracle.answered)
    oracle.arm(1, KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        est.partial_fit(X[400:1000], label_oracle=oracle)
    assert_same(state_of(est), before)
    assert oracle.answered == answered
    est.partial_fit(X[400:1000], label_oracle=oracle)
    assert est.n_seen_ == 1000 and len(oracle.answered) == len(set(oracle.answered))


@pytest.mark.parametrize("stage", ["validation", "after the budget check", "call_rng"])
@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_later_call_failing_before_any_row_is_rolled_back_and_retried_exactly(
    stage, exc, monkeypatch
):
    runs = [make().partial_fit(X[:500], Y[:500], classes=CLASSES) for _ in range(2)]
    est, reference = runs
    before = copy.deepcopy(state_of(est))
    if stage == "call_rng":
        fail_on_call(monkeypatch, stream_module, "call_rng", exc)
    else:
        _inject(stage, monkeypatch, exc, None)
    with pytest.raises(exc):
        est.partial_fit(X[500:], Y[500:])
    monkeypatch.undo()
    assert_same(state_of(est), before)
    est.partial_fit(X[500:], Y[500:])
    reference.partial_fit(X[500:], Y[500:])
    assert_same(state_of(est), state_of(reference))  # the same draws: nothing was used


def test_labels_obtained_before_a_failure_are_kept_and_not_asked_again(monkeypatch):
    # the retry obtains the pending batch's labels, then the noise draw is interrupted:
    # no row of the call was consumed, but the labels were obtained, so they are kept
    oracle = Oracle()
    est = _interrupted(oracle)
    consumed, labelled = est.n_seen_last_call_, est.n_labels_requested_
    fail_on_call(monkeypatch, LaplaceMechanism, "noise_steps", KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        est.partial_fit(X[400:1000], label_oracle=oracle)
    monkeypatch.undo()
    assert est.n_seen_last_call_ == consumed and est.n_seen_ == 400 + consumed
    assert est.n_labels_requested_ == labelled + 5 == len(oracle.answered)
    assert_public_matches_kernel(est)
    est.partial_fit(X[400:1000], label_oracle=oracle)
    assert est.n_seen_ == 1000 and len(oracle.answered) == len(set(oracle.answered))


@pytest.mark.parametrize("kind, stop", [("array", 123), ("list", 125)])
@pytest.mark.parametrize("then", ["retry", "other rows"])
def test_bad_label_in_y_stops_the_stream_where_it_was_read(kind, stop, then):
    # every row is selected: the loop reads an ndarray's label at its row (row 123
    # not consumed) and a list's labels when their batch (rows 120-124) is due
    est = make(selection="all").partial_fit(X[:200], Y[:200], classes=CLASSES)
    bad = Y[200:600].copy()
    bad[123] = 7
    wrap = (lambda v: v) if kind == "array" else list
    with pytest.raises(ValueError, match="not one of classes"):
        est.partial_fit(X[200:600], wrap(bad))
    assert est.n_seen_last_call_ == stop and est.n_seen_ == 200 + stop
    assert_public_matches_kernel(est)
    if then == "retry":  # the corrected labels: the rows left waiting read theirs
        est.partial_fit(X[200:600], wrap(Y[200:600]))
        assert (est.n_seen_, est.n_labels_requested_, est.n_updates_) == (600, 600, 120)
    else:  # the list's rows 120-124 still wait for labels the bad y cannot give: dropped
        est.partial_fit(X[600:700], wrap(Y[600:700]))
        labelled = {"array": 200 + 123, "list": 200 + 120}[kind] + 100
        assert est.n_seen_ == 200 + stop + 100
        assert est.n_labels_requested_ == labelled and est.n_updates_ == labelled // 5
    assert_public_matches_kernel(est)


def test_a_retry_reads_no_label_of_the_rows_already_consumed():
    # a list y: labels are read when a batch is due; the bad one stops the call there
    est, reference = (make().partial_fit(X[:300], Y[:300], classes=CLASSES) for _ in range(2))
    watched = Labels(Y[300:900])
    reference.partial_fit(X[300:900], watched)
    bad = min(i for i in watched.read if i >= 300)  # a row the selection reads
    labels = Labels(Y[300:900])
    labels.values[bad] = 7
    with pytest.raises(ValueError, match="not one of classes"):
        est.partial_fit(X[300:900], labels)
    consumed, first_read = est.n_seen_last_call_, set(labels.read)
    assert bad in first_read and bad < consumed < 600
    retry = Labels(Y[300:900])
    est.partial_fit(X[300:900], retry)
    early = [i for i in retry.read if i < consumed]
    # only the batch left waiting for its labels, each read once
    assert bad in early and len(early) <= 5 and set(early) <= first_read
    assert len(retry.read) == len(set(retry.read))
    assert est.n_seen_ == 900
    assert_public_matches_kernel(est)


def test_a_pickled_interrupted_stream_holds_no_row_and_does_not_resume():
    # the pickle leaves out the pending rows and the fingerprint of the rows the
    # interrupted call consumed: it predicts as the original, but cannot go on
    est = _interrupted(Oracle())
    assert est._state.interruption is not None
    copy_ = pickle.loads(pickle.dumps(est))
    assert copy_._state.interruption is None and not copy_._state.buf.any()
    np.testing.assert_array_equal(copy_.predict(X[:50]), est.predict(X[:50]))
    with pytest.raises(ValueError, match="unpickled.*fingerprint"):
        copy_.partial_fit(X[400:1000], label_oracle=Oracle())
    est.partial_fit(X[400:1000], label_oracle=Oracle())
    assert est.n_seen_ == 1000
