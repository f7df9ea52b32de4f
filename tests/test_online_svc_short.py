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
from skdp_anomaly.active_learning import _centroids, _ftrl
from skdp_anomaly.exceptions import NothingReleasedWarning
from skdp_anomaly.active_learning._warnings import NoSelectionWarning


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
        est.partial_fit(X[start : start + chunk], y[start : start + chunk], classes=[0, 1])
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


def test_labelled_windows_read_every_label_and_active_windows_select():
    # d = 6, ε = 2, no hint: rounds of a labelled window (12, 24, ... rows, every
    # label) then an active window of 35 % of the round (7, 13, ... rows, selected)
    w = _ftrl.active_windows(6, 2.0, None)
    cap = _ftrl.MAX_WINDOW_RULES * _ftrl.gradient_window(6, 2.0)
    assert w.tolist() == [12, cap, 7, math.ceil(cap * 0.35 / 0.65), 1, 0, 1]
    X, y = blobs(12, seed=14)
    est = stream(PrivateOnlineActiveSVC(epsilon=2.0, random_state=0), X, y)
    assert est.n_labels_requested_ == 12 and est.n_updates_ == 1
    X2, y2 = blobs(400, seed=15)
    est.partial_fit(X2, y2)
    assert est.n_labels_requested_ < 412  # the active windows ask for some only
    # a stream of known length is one round: 65 % labelled, the rest active
    assert _ftrl.active_windows(6, 2.0, 300).tolist() == [195, 195, 105, 105, 0, 0, 1]


def test_windows_depend_on_public_quantities_only():
    # the schedule reads ε, d and where the calls end, never the data: other rows in
    # the same calls make the same windows (every row labelled: selection="all")
    X, y = blobs(700, seed=5)
    X2, y2 = blobs(700, seed=16, prior=0.2)
    for chunk in (None, 25):
        one = stream(
            PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0), X, y, chunk
        )
        other = stream(
            PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=1), X2, y2, chunk
        )
        assert one._state.n_released == other._state.n_released
        assert one._state.ftrl.n_rows == other._state.ftrl.n_rows
        assert one._state.windows.tolist() == other._state.windows.tolist()


def test_a_first_call_plans_the_first_round_and_a_call_end_closes_a_half_window():
    # one call of 700 rows (d = 6, ε = 1): planned as a stream of 700 rows would be,
    # 455 labelled then 245 active rows: every row released, as with fit
    X, y = blobs(700, seed=5)
    est = stream(PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0), X, y)
    assert est._state.windows[:3].tolist() == [455, 16 * 96, 245]
    assert est._state.ftrl.n_rows == 700 and est.n_updates_ == 2
    # chunks of 25: a window that has seen half its planned rows when a call ends is
    # released then (its rows would otherwise wait for the rest)
    est = stream(PrivateOnlineActiveSVC(epsilon=1.0, selection="all", random_state=0), X, y, 25)
    assert est._state.ftrl.n_rows > 700 - est._state.windows[1] // 2


# --------------------------------------------------------- nothing released
def test_predict_warns_while_nothing_was_released():
    X, y = blobs(20, d=30, seed=6)  # the first window is 4·30/1 = 120 rows
    with pytest.warns(NoSelectionWarning, match="first labelled window is 120 rows.*n_rows_hint"):
        est = PrivateOnlineActiveSVC(epsilon=1.0, random_state=0).partial_fit(X, y, classes=[0, 1])
    assert est.n_updates_ == 0
    with pytest.warns(
        NothingReleasedWarning, match="n_updates_ == 0; its first labelled window is 120 rows"
    ):
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
    # was 0.00-0.84 (mean 0.60) with class_weight=None and 0.94-0.97 (mean 0.96)
    # with "balanced", higher in every seed (smallest gap +0.12): a seed-by-seed
    # order and a mean gap of 0.1 over five seeds (the measured gap: 0.35).
    X, y = blobs(3000, prior=0.1, seed=9)
    Xt, yt = blobs(4000, prior=0.1, seed=10)
    recall = {None: [], "balanced": []}
    for seed in range(5):
        for weight, recalls in recall.items():
            est = PrivateOnlineActiveSVC(epsilon=2.0, class_weight=weight, random_state=seed).fit(
                X, y
            )
            recalls.append(recall_score(yt, est.predict(Xt)))
    balanced, none = np.array(recall["balanced"]), np.array(recall[None])
    assert np.all(balanced >= none), recall
    assert balanced.mean() > none.mean() + 0.1, recall
    assert balanced.mean() > 0.75


def test_balanced_class_weight_holds_from_the_first_window():
    # Rows not centred (the cut is not at 0), 15 % positives, labelled windows of
    # 200 rows: after the first release the balanced cut is already the midpoint
    # of the noisy centroids, while class_weight=None waits for a threshold window
    # (intercept 0). Over seeds 0-19 the balanced accuracy after that one release
    # was 0.66-0.93 (mean 0.88) with "balanced" and 0.68-0.71 (mean 0.69) with
    # None; the test asks a mean gap of 0.1 over seeds 0-4 (fixed: deterministic;
    # from the 20 seeds, a five-seed mean below 0.79 is out of reach).
    Xt, yt = blobs(4000, prior=0.15, seed=10)
    scores = {"balanced": [], None: []}
    for seed in range(5):
        X, y = blobs(200, prior=0.15, seed=60 + seed)
        for weight, values in scores.items():
            est = PrivateOnlineActiveSVC(
                epsilon=2.0, class_weight=weight, batch_size=200, random_state=seed
            )
            est.partial_fit(X + 0.12, y, classes=[0, 1])
            assert est.n_updates_ == 1
            values.append(balanced_accuracy_score(yt, est.predict(Xt + 0.12)))
        assert est.intercept_[0] == 0.0  # None: no cut yet
    assert np.mean(scores["balanced"]) > np.mean(scores[None]) + 0.1, scores


def test_a_short_stream_selects_with_the_defaults():
    # 200 rows, d = 6, ε = 2: one round of 130 labelled and 70 active rows, for fit
    # and for one partial_fit call (its first call plans the round). Over seeds
    # 0-199 the active window selected 33.6 rows on average (sd 6.6, at most 55):
    # labels 0.82·n on average, 0.93·n at most. Seeds 0-9 fixed (deterministic).
    X, y = blobs(200, prior=0.1, seed=47)
    labels = []
    for seed in range(10):
        fitted = PrivateOnlineActiveSVC(epsilon=2.0, random_state=seed).fit(X, y)
        called = stream(PrivateOnlineActiveSVC(epsilon=2.0, random_state=seed), X, y)
        assert fitted._state.windows[:3].tolist() == [130, 130, 70]
        assert called._state.windows[0] == 130 and called._state.windows[2] == 70
        assert fitted.n_labels_requested_ == called.n_labels_requested_ < 200
        assert fitted.n_updates_ == called.n_updates_ == 2
        labels.append(fitted.n_labels_requested_)
    assert np.mean(labels) < 0.9 * 200, labels


def test_the_class_prior_is_released_and_holds_no_count():
    # class_prior_ comes from the windows' noisy positive counts: near the true
    # share on a long stream, never the exact count. Seeds fixed; over seeds 0-19
    # its error was at most 0.0094 (each window's count has noise of sd ≈ 4 rows).
    X, y = blobs(5000, prior=0.2, seed=11)
    est = PrivateOnlineActiveSVC(epsilon=2.0, random_state=0).fit(X, y)
    assert est.class_prior_.shape == (2,) and est.class_prior_.sum() == pytest.approx(1.0)
    assert abs(est.class_prior_[1] - y.mean()) < 0.03
    assert not np.isclose(est.class_prior_[1] * 5000, y.sum())
    # selection="all" and the paper's updates: the same release (or none)
    assert not hasattr(
        PrivateOnlineActiveSVC(update="flmb", random_state=0).fit(X, y), "class_prior_"
    )


def test_the_balanced_cut_is_the_corrected_midpoint_of_the_centroids():
    # post-processing of the releases: two noise-free windows (variance given) give
    # the exact centroids; the cut is their midpoint less the noise term d·v/2
    pool = _centroids.CentroidPool(2)
    # window 1: 4 rows, 1 positive at (1, 0), 3 negatives at (-1, 0)
    pool.add(np.array([1.0, 0.0, -3.0, 0.0, 1.0]), 4, variance=1.0, count_weight=1.0)
    (negative, positive), (v_neg, v_pos) = pool.centroids()
    assert positive.tolist() == [1.0, 0.0] and negative.tolist() == [-1.0, 0.0]
    assert v_pos == pytest.approx(1.0) and v_neg == pytest.approx(1 / 9)
    w, threshold = pool.iterate(lam=1.0, fit_intercept=True)
    assert w.tolist() == [1.0, 0.0]
    # midpoint 0, corrected by (d·v₊ − d·v₋)/2 / ‖μ₊ − μ₋‖ = (2 − 2/9)/2/2
    assert threshold == pytest.approx(-(2.0 - 2.0 / 9.0) / 2.0 / 2.0)
    assert pool.class_prior().tolist() == [0.75, 0.25]
    assert pool.iterate(lam=1.0, fit_intercept=False)[1] == 0.0


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
            X[:100], y[:100], classes=[0, 1]
        )
    with pytest.warns(UserWarning, match="rows of this call"):
        est.partial_fit(X[100:] * 10, y[100:])
    # data_norm=None reads M from the data (its own leak warning): no row lies outside
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        PrivateOnlineActiveSVC(epsilon=1.0, data_norm=None, random_state=0).fit(X * 10, y)
    assert not any("rows of this call" in str(w.message) for w in record)
