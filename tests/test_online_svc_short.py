"""PrivateOnlineActiveSVC on short and imbalanced streams, called as a user would.

A stream of unknown length releases (growing windows), a model that released
nothing says so when it predicts, ``class_weight="balanced"`` finds the rare
class, and rows outside the ball raise a local warning. Statistical tests fix
their seeds; each states its false-failure rate.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, recall_score

from skdp_anomaly import PrivateOnlineActiveSVC
from skdp_anomaly.active_learning import NothingReleasedWarning, _ftrl


def blobs(n, d=6, prior=0.5, seed=0, shift=0.5):
    """Two Gaussian classes in the unit ball, scaled as the user guide's recipe
    does (features within ``[-1/√d, 1/√d]``), ``prior`` of them positive."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prior).astype(int)
    X = rng.normal(scale=0.35, size=(n, d)) + np.where(y[:, None] == 1, shift, -shift) / 2
    X = np.clip(X, -1, 1) / math.sqrt(d)
    return X, y


def stream(est, X, y, chunk=None):
    chunk = chunk or len(y)
    for start in range(0, len(y), chunk):
        est.partial_fit(X[start:start + chunk], y[start:start + chunk], classes=[0, 1])
    return est


# ------------------------------------------------------- streams of unknown length
@pytest.mark.parametrize("chunk", [None, 25])
def test_a_short_stream_without_a_hint_learns(chunk):
    # 300 rows, d = 6, ε = 2: the first window is 4·6/2 = 12 rows, then 24, 48, ...
    # Five fixed seeds (deterministic). Over 20 seeds one run's balanced accuracy
    # averaged 0.71 and 15 % of runs stayed at chance (a cut from a few noisy
    # rows), so the mean of five is tested against 0.6: its false-failure rate,
    # from those 20 seeds, is a few percent at most.
    X, y = blobs(300, seed=1)
    Xt, yt = blobs(2000, seed=2)
    scores = []
    for seed in range(5):
        est = stream(PrivateOnlineActiveSVC(epsilon=2.0, random_state=seed), X, y, chunk)
        assert est.n_updates_ >= 2
        assert np.any(est.coef_ != 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", NothingReleasedWarning)
            scores.append(balanced_accuracy_score(yt, est.predict(Xt)))
    assert np.mean(scores) > 0.6, scores


def test_a_wide_short_stream_releases_before_the_rule():
    # d = 64, ε = 2, 249 rows: the rule's window (16·d/ε = 512 rows) never ended;
    # the first window of a stream of unknown length does
    X, y = blobs(249, d=64, seed=4)
    est = stream(PrivateOnlineActiveSVC(epsilon=2.0, random_state=0), X, y, 25)
    n_rows = 249
    assert _ftrl.first_window(64, 2.0) == 128 < n_rows < _ftrl.gradient_window(64, 2.0)
    assert est.n_updates_ >= 1 and np.any(est.coef_ != 0)


def test_the_leading_rounds_read_every_label():
    # d = 6, ε = 2: windows 12, 24, 48 (+ 6, 12, 24 threshold rows) are shorter than
    # the rule's 64 = 16·6/1.5 rows: those 126 rows are all taken, at the whole ε
    w = _ftrl.ftrl_windows(6, 2.0, 1.5, 0.3, None)
    assert w.tolist() == [12, 16 * 64, 6, 439, 1, 3]
    X, y = blobs(126, seed=14)
    est = stream(PrivateOnlineActiveSVC(epsilon=2.0, random_state=0), X, y, 25)
    assert est.n_labels_requested_ == 126 and est.n_updates_ == 3
    X2, y2 = blobs(200, seed=15)
    est.partial_fit(X2, y2)
    assert est.n_labels_requested_ < 326  # then the selection asks for some only


def test_window_lengths_do_not_depend_on_the_chunks():
    # the schedule is public: the same rows in one call or in chunks of 25 make the
    # same windows (every row labelled: selection="all"), so the same release count
    X, y = blobs(700, seed=5)
    one = stream(PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0), X, y)
    chunked = stream(PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0),
                     X, y, 25)
    assert one._state.n_released == chunked._state.n_released
    assert one._state.ftrl.n_rows == chunked._state.ftrl.n_rows
    # every gradient row counted once: the finished windows' rows, by the public rule
    w = one._state.windows
    lengths, seen, rows = [], 0, 0
    for r in range(20):
        g = min(int(w[1]), int(w[0]) << r) if r else int(w[0])
        t = min(int(w[3]), int(w[2]) << r) if r else int(w[2])
        if seen + g > 700:
            break
        seen, rows = seen + g + t, rows + g
        lengths.append(g)
    assert one._state.ftrl.n_rows == rows


# --------------------------------------------------------- nothing released
def test_predict_warns_while_nothing_was_released():
    X, y = blobs(20, d=30, seed=6)  # the first window is 4·30/1 = 120 rows
    est = PrivateOnlineActiveSVC(epsilon=1.0, random_state=0).partial_fit(X, y, classes=[0, 1])
    assert est.n_updates_ == 0
    with pytest.warns(NothingReleasedWarning, match="n_updates_ == 0; its first gradient "
                                                    "window is 120 rows"):
        est.predict(X)
    with pytest.warns(NothingReleasedWarning):
        est.decision_function(X)
    # once it released, predicting is silent
    X2, y2 = blobs(400, d=30, seed=7)
    est.partial_fit(X2, y2)
    assert est.n_updates_ >= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingReleasedWarning)
        est.predict(X2)


def test_fit_always_releases():
    # a stream of known length releases its last window: fit on a few rows predicts
    X, y = blobs(12, seed=8)
    est = PrivateOnlineActiveSVC(epsilon=1.0, random_state=0).fit(X, y)
    assert est.n_updates_ >= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingReleasedWarning)
        est.predict(X)


# ------------------------------------------------------------ class_weight
def test_balanced_class_weight_finds_the_rare_class():
    # 10 % positives, estimator seeds 0-4 fixed. Over seeds 0-9 the minority recall
    # was 0.03-0.81 (mean 0.59) with class_weight=None and 0.60-1.00 (mean 0.91)
    # with "balanced", higher in every seed (smallest gap +0.02): a seed-by-seed
    # order and a mean gap of 0.1 over five seeds (the measured gap: 0.37).
    X, y = blobs(3000, prior=0.1, seed=9)
    Xt, yt = blobs(4000, prior=0.1, seed=10)
    recall = {None: [], "balanced": []}
    for seed in range(5):
        for weight, recalls in recall.items():
            est = PrivateOnlineActiveSVC(epsilon=2.0, class_weight=weight,
                                         random_state=seed).fit(X, y)
            recalls.append(recall_score(yt, est.predict(Xt)))
    balanced, none = np.array(recall["balanced"]), np.array(recall[None])
    assert np.all(balanced >= none), recall
    assert balanced.mean() > none.mean() + 0.1, recall
    assert balanced.mean() > 0.75


@pytest.mark.parametrize("bad", ["auto", {0: 1.0, 1: 2.0}, "Balanced"])
def test_class_weight_is_validated_before_any_charge(bad):
    from _accountants import Ledger

    ledger = Ledger(10.0)
    est = PrivateOnlineActiveSVC(class_weight=bad, accountant=ledger)
    X, y = blobs(50, seed=0)
    with pytest.raises(ValueError, match="class_weight"):
        est.fit(X, y)
    assert ledger.spent == []


# ------------------------------------------------------------- data_norm
def test_rows_outside_the_ball_warn_without_a_count():
    X, y = blobs(200, seed=12)
    raw = X * 10  # most rows outside the unit ball
    with pytest.warns(UserWarning, match=r"More than 10% of the rows of this call") as record:
        PrivateOnlineActiveSVC(epsilon=1.0, random_state=0).fit(raw, y)
    text = " ".join(str(w.message) for w in record)
    # one bit against a fixed public threshold: no count, share or norm of the data
    n_outside = int(np.sum(np.linalg.norm(raw, axis=1) > 1))
    assert str(n_outside) not in text.replace("10%", "")
    assert "sqrt(n_features)" in text
    # nothing of the diagnostic is stored
    est = PrivateOnlineActiveSVC(epsilon=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(raw, y)
    inside = PrivateOnlineActiveSVC(epsilon=1.0, random_state=0).fit(X, y)
    assert set(vars(est)) == set(vars(inside))


def test_rows_inside_the_ball_do_not_warn_and_chunks_warn_per_call():
    X, y = blobs(200, seed=13)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = PrivateOnlineActiveSVC(epsilon=1.0, random_state=0).partial_fit(
            X[:100], y[:100], classes=[0, 1])
    with pytest.warns(UserWarning, match="rows of this call"):
        est.partial_fit(X[100:] * 10, y[100:])
    # data_norm=None reads M from the data (its own leak warning): no row lies outside
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        PrivateOnlineActiveSVC(epsilon=1.0, data_norm=None, random_state=0).fit(X * 10, y)
    assert not any("rows of this call" in str(w.message) for w in record)
