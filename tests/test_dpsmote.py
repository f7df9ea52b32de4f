"""Behaviour tests for DPSMOTE (Lut 2022, §3.3, Algorithm 6).

Tests of behaviour common to both synopses run over ``SYNOPSES``; tests about
the grid say ``synopsis="grid"``. The Gaussian synopsis has its own module,
tests/test_dpsmote_gaussian.py. Statistical tests use fixed seeds; each states
its false-failure rate.
"""

import pickle
import warnings
from collections import Counter

import numpy as np
import pytest
from _accountants import Ledger, LedgerRefused
from _diffprivlib import needs_diffprivlib
from audit_scenarios.dpsmote import release_synopsis_batch
from imblearn.utils import check_sampling_strategy
from sklearn.base import clone
from sklearn.datasets import make_classification

from skdp_anomaly.over_sampling import DPSMOTE, _release, _synthesis
from skdp_anomaly.exceptions import DPSMOTENoiseWarning
from skdp_anomaly.over_sampling._release import SparseHistogram
from skdp_anomaly.over_sampling._release import (
    cell_keys,
    choose_threshold,
    geometric_tail,
    random_cells,
    release_dense,
    release_sparse,
)
from skdp_anomaly.over_sampling._release import n_synthetic as _n_synthetic
from skdp_anomaly.over_sampling._statistics import cell_coordinates
from skdp_anomaly.over_sampling._setting import (
    Grid,
    auto_class_size,
    ball_offsets,
    choose_n_cells,
    expected_positive_noise,
    n_ball_offsets,
)
from skdp_anomaly.over_sampling._setting import n_cells as _n_cells
from skdp_anomaly.over_sampling._synthesis import _Weights, sample_synthetic
from skdp_anomaly.exceptions import PrivacyLeakWarning


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=1200, n_features=4, n_informative=3, n_redundant=0, weights=[0.85], random_state=0
    )
    return X, y


SYNOPSES = ["gaussian", "grid"]


def _synopsis_attr(synopsis):
    """The fitted attribute holding the per-class releases of ``synopsis``."""
    return {"gaussian": "noisy_means_", "grid": "noisy_counts_"}[synopsis]


def _fit(X, y, **kw):
    kw.setdefault("bounds", (-6, 6))
    kw.setdefault("random_state", 0)
    est = DPSMOTE(**kw)
    return est, *est.fit_resample(X, y)


# -- output and fitted attributes ------------------------------------------------


@pytest.mark.parametrize(
    "synopsis, histogram", [("gaussian", "auto"), ("grid", "dense"), ("grid", "sparse")]
)
def test_output_is_original_rows_plus_synthetic(data, synopsis, histogram):
    X, y = data
    est, X_res, y_res = _fit(X, y, synopsis=synopsis, histogram=histogram)
    n_new = est.sampling_strategy_[1]
    assert X_res.shape == (len(X) + n_new, X.shape[1])
    np.testing.assert_array_equal(X_res[: len(X)], X)
    np.testing.assert_array_equal(y_res[: len(y)], y)
    assert np.all(y_res[len(y) :] == 1)
    lo, hi = est.bounds_
    assert np.all(X_res[len(X) :] >= lo) and np.all(X_res[len(X) :] <= hi)
    assert est.synopsis_ == synopsis
    assert set(getattr(est, _synopsis_attr(synopsis))) == {1}
    if synopsis == "grid":
        assert est.histogram_ == histogram and est.n_cells_ == 4


def test_strategy_comes_from_noisy_counts(data):
    X, y = data
    est, _, _ = _fit(X, y)
    noisy = est.noisy_class_counts_
    assert set(noisy) == {0, 1}
    assert est.sampling_strategy_ == {1: noisy[0] - noisy[1]}
    # the noisy sizes are not the true ones in general (geometric noise at ε = 0.1,
    # P(Z = 0) = 0.05 per class; over 20 seeds both exact every time has prob ~1e-52)
    truth = Counter(y.tolist())
    exact = 0
    for seed in range(20):
        e, _, _ = _fit(X, y, random_state=seed)
        exact += e.noisy_class_counts_ == dict(truth)
    assert exact < 20


def test_public_counts_use_imblearn_semantics(data):
    X, y = data
    est, _, y_res = _fit(X, y, class_counts="public")
    assert not hasattr(est, "noisy_class_counts_")
    assert est.sampling_strategy_ == check_sampling_strategy("auto", y, "over-sampling")
    counts = Counter(y_res.tolist())
    assert counts[0] == counts[1]
    assert "public" in est.privacy_cost().notes[0]
    # refitting a private estimator as public drops the old noisy sizes
    est2, _, _ = _fit(X, y)
    est2.set_params(class_counts="public").fit_resample(X, y)
    assert not hasattr(est2, "noisy_class_counts_")


@pytest.mark.parametrize(
    "strategy",
    [
        "auto",
        "minority",
        "not minority",
        "not majority",
        "all",
        {0: 500, 1: 400, 2: 300},
        {2: 500},
        lambda y: {c: 2 * n for c, n in Counter(y.tolist()).items()},
    ],
)
def test_n_synthetic_matches_imblearn_on_exact_counts(strategy):
    y = np.repeat([0, 1, 2], [300, 120, 40])
    expected = check_sampling_strategy(strategy, y, "over-sampling")
    classes, counts = np.unique(y, return_counts=True)
    n_new, targeted = _n_synthetic(strategy, classes, counts[None])
    got = {c: int(n) for c, n, t in zip(classes.tolist(), n_new[0], targeted[0]) if t}
    assert got == dict(expected)


def test_n_synthetic_float_and_clamping():
    classes = np.array([0, 1])
    n_new, targeted = _n_synthetic(0.5, classes, [[1000, 100], [1000, 700], [90, -5]])
    np.testing.assert_array_equal(n_new, [[0, 400], [0, 0], [0, 45]])
    np.testing.assert_array_equal(targeted, [[False, True]] * 3)
    # a dict asking for fewer rows than the noisy size gives 0, not an error
    n_new, _ = _n_synthetic({1: 50}, classes, [[1000, 100]])
    np.testing.assert_array_equal(n_new, [[0, 0]])
    with pytest.raises(ValueError, match="binary"):
        _n_synthetic(0.5, np.array([0, 1, 2]), [[5, 3, 1]])
    with pytest.raises(ValueError, match="not present"):
        _n_synthetic({7: 3}, classes, [[5, 3]])


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_multiclass_and_string_labels(synopsis):
    X, y = make_classification(
        n_samples=900,
        n_features=3,
        n_informative=3,
        n_redundant=0,
        n_classes=3,
        weights=[0.7, 0.2],
        random_state=1,
    )
    labels = np.array(["a", "b", "c"])[y]
    est, _, y_res = _fit(X, labels, sampling_strategy="not majority", synopsis=synopsis)
    assert set(getattr(est, _synopsis_attr(synopsis))) == set(est.sampling_strategy_) == {"b", "c"}
    assert Counter(y_res.tolist())["c"] == np.sum(labels == "c") + est.sampling_strategy_["c"]


def test_privacy_cost_spent_and_accountant(data):
    X, y = data
    est = DPSMOTE(epsilon=0.7, bounds=(-6, 6), random_state=0, accountant=Ledger())
    cost = est.privacy_cost()  # before fit, from parameters only
    assert cost.epsilon == pytest.approx(0.7) and cost.delta == 0 and cost.notion == "pure ε-DP"
    assert cost.neighbours == "add_remove"
    est.fit_resample(X, y)
    assert est.privacy_spent_.epsilon == pytest.approx(0.7)
    assert est.privacy_spent_.neighbours == "add_remove"
    # the accountant's ledger is kept under replace-one neighbours: 2ε by group privacy
    assert est.accountant.total()[0] == pytest.approx(1.4)
    est.fit_resample(X, y)
    assert est.accountant.total()[0] == pytest.approx(2.8)


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_no_synthetic_rows_spends_count_budget_only(data, synopsis):
    X, y = data
    acc = Ledger()
    est = DPSMOTE(
        epsilon=1.0,
        bounds=(-6, 6),
        random_state=0,
        sampling_strategy={0: 0},
        synopsis=synopsis,
        accountant=acc,
    )
    with pytest.warns(UserWarning, match="no synthetic rows"):
        X_res, _ = est.fit_resample(X, y)
    assert len(X_res) == len(X) and getattr(est, _synopsis_attr(synopsis)) == {}
    assert acc.total()[0] == pytest.approx(0.2)  # the class sizes only, 2·0.1 under replace
    assert est.privacy_spent_.epsilon == pytest.approx(0.1)


# -- accounting before release ---------------------------------------------------


def test_refused_budget_releases_nothing_and_leaves_unfitted(data):
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    X, y = data
    acc = Ledger(epsilon=0.5)
    est = DPSMOTE(epsilon=1.0, bounds=(-6, 6), random_state=0, accountant=acc)
    with pytest.raises(LedgerRefused, match="replace-one"):
        est.fit_resample(X, y)
    assert acc.total()[0] == 0
    assert not [k for k in vars(est) if k.endswith("_")]  # no noisy output kept
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_refused_refit_keeps_the_earlier_fit(data, synopsis):
    """A refit the accountant refuses is a failed transaction: the sampler stays as the
    earlier fit left it (nothing of the refused fit was computed or charged)."""
    X, y = data
    acc = Ledger(epsilon=3.0)
    est = DPSMOTE(epsilon=1.0, bounds=(-6, 6), random_state=0, accountant=acc, synopsis=synopsis)
    est.fit_resample(X, y)  # 2 under the accountant's replace-one ledger
    assert acc.total()[0] == pytest.approx(2.0)
    before = {k: v for k, v in vars(est).items() if k.endswith("_")}
    assert hasattr(est, _synopsis_attr(synopsis))
    with pytest.raises(LedgerRefused):
        est.fit_resample(X, y)
    assert {k: v for k, v in vars(est).items() if k.endswith("_")}.keys() == before.keys()
    assert est.sampling_strategy_ == before["sampling_strategy_"]
    assert est.privacy_spent_ == before["privacy_spent_"]
    assert acc.total()[0] == pytest.approx(2.0)


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_accountant_is_charged_before_the_noise_is_drawn(data, monkeypatch, synopsis):
    X, y = data
    acc = Ledger()
    charged_before_draw = []
    original = _release.GeometricMechanism.noise

    def spy(self, size, rng):
        charged_before_draw.append(acc.total()[0])
        return original(self, size, rng)

    monkeypatch.setattr(_release.GeometricMechanism, "noise", spy)
    if synopsis == "grid":
        monkeypatch.setattr(
            _release,
            "release_dense",
            lambda true, eps, rng, n_runs=None: charged_before_draw.append(acc.total()[0]) or true,
        )
    else:
        original_means = _release.release_means

        def means(sums, sizes, eps, rng):
            charged_before_draw.append(acc.total()[0])
            return original_means(sums, sizes, eps, rng)

        monkeypatch.setattr(_release, "release_means", means)
    DPSMOTE(
        epsilon=1.0, bounds=(-6, 6), random_state=0, accountant=acc, synopsis=synopsis
    ).fit_resample(X, y)
    # class sizes: 2·0.1 charged before their noise; synopsis: 2·0.9 more before its release
    assert charged_before_draw == [pytest.approx(0.2), pytest.approx(2.0)]


# -- the public label set --------------------------------------------------------


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_classes_parameter_handles_an_absent_class_like_any_other(data, synopsis):
    X, y = data
    # seed 2: the absent class's noisy count is below 0, so all 5 rows are synthesised
    kw = dict(
        epsilon=1.0,
        bounds=(-6, 6),
        classes=[0, 1, 2],
        random_state=2,
        sampling_strategy={2: 5},
        synopsis=synopsis,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPSMOTENoiseWarning)
        est, X_res, y_res = _fit(X, y, **kw)
    assert set(est.noisy_class_counts_) == {0, 1, 2}
    assert list(est.sampling_strategy_) == [2]
    assert np.sum(y_res == 2) == est.sampling_strategy_[2] == 5
    # pure noise, released like any other class
    assert set(getattr(est, _synopsis_attr(synopsis))) == {2}


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_classes_parameter_one_present_class_is_not_an_error(data, synopsis):
    X, y = data
    one = y == 0
    with pytest.warns(DPSMOTENoiseWarning, match="class 1"):  # its synopsis is pure noise
        est, X_res, y_res = _fit(X[one], y[one], classes=[0, 1], synopsis=synopsis)
    assert set(est.noisy_class_counts_) == {0, 1}
    # without `classes`, the label set comes from the data and one class is an error
    with pytest.raises(ValueError, match="more than 1 class.*classes"):
        _fit(X[one], y[one])


def test_classes_parameter_keys_do_not_depend_on_which_labels_occur(data):
    X, y = data
    keys = []
    for keep in (y >= 0, y == 0, y == 1):
        with warnings.catch_warnings():  # an absent class has a pure-noise histogram
            warnings.simplefilter("ignore", DPSMOTENoiseWarning)
            est, *_ = _fit(X[keep], y[keep], classes=[0, 1], sampling_strategy="all")
        keys.append((tuple(est.noisy_class_counts_), tuple(est.sampling_strategy_)))
    assert len(set(keys)) == 1


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(classes=[0]), "at least 2"),
        (dict(classes=[0, 0, 1]), "repeated"),
        (dict(classes=[0, 1], sampling_strategy={7: 10}), "not in the 'classes'"),
        (dict(classes=[0, 1, 2], sampling_strategy=0.5), "binary"),
    ],
)
def test_classes_parameter_errors_come_from_parameters_only(data, kw, match):
    X, y = data
    acc = Ledger()
    with pytest.raises(ValueError, match=match):
        _fit(X, y, accountant=acc, **kw)
    assert acc.total()[0] == 0


def test_label_outside_classes_is_refused_without_naming_it(data):
    X, y = data
    y_bad = y.copy()
    y_bad[0] = 9
    with pytest.raises(ValueError, match="not in the 'classes'") as info:
        _fit(X, y_bad, classes=[0, 1])
    assert "9" not in str(info.value)


def test_label_set_assumption_is_stated():
    assert "classes=None" in DPSMOTE().privacy_assumptions()[0]
    assert DPSMOTE(classes=["a", "b"]).privacy_assumptions() == ()
    assert any(
        "public" in a for a in DPSMOTE(classes=[0, 1], class_counts="public").privacy_assumptions()
    )


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_string_labels_with_classes(data, synopsis):
    X, y = data
    labels = np.array(["neg", "pos"])[y]
    est, X_res, y_res = _fit(
        X,
        labels,
        classes=["neg", "pos", "unseen"],
        sampling_strategy={"pos": int(np.sum(y == 0))},
        synopsis=synopsis,
    )
    assert set(est.noisy_class_counts_) == {"neg", "pos", "unseen"}
    assert set(np.unique(y_res)) == {"neg", "pos"}
    assert set(getattr(est, _synopsis_attr(synopsis))) == {"pos"}
    assert y_res.dtype == labels.dtype


# -- randomness ------------------------------------------------------------------


def _spy_rng(monkeypatch, name, key, seen):
    """Wrap ``<module>.<name>`` (the module that calls it) to record the generator (a
    positional argument) it gets."""
    module = _release if name.startswith("release_") else _synthesis
    original = getattr(module, name)

    def spy(*args, **kwargs):
        seen[key] = next(a for a in args if isinstance(a, np.random.Generator))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)


@pytest.mark.parametrize(
    "synopsis, release, sample",
    [
        ("grid", "release_dense", "sample_synthetic"),
        ("gaussian", "release_means", "chunk_seeds"),
    ],
)
def test_noise_and_synthetic_rows_use_separate_streams(
    data, monkeypatch, synopsis, release, sample
):
    """The generator that draws the noise never draws a released uniform."""
    X, y = data
    seen = {}
    _spy_rng(monkeypatch, release, "noise", seen)
    _spy_rng(monkeypatch, sample, "sample", seen)
    _fit(X, y, synopsis=synopsis)
    assert seen["noise"] is not seen["sample"]
    a = seen["noise"].bit_generator.seed_seq
    b = seen["sample"].bit_generator.seed_seq
    assert a.spawn_key != b.spawn_key and a.entropy == b.entropy


def test_epsilon_too_large_for_exact_noise_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="epsilon"):
        _fit(X, y, epsilon=1000.0)


def test_reproducible_and_generator(data):
    X, y = data
    _, a, _ = _fit(X, y, random_state=3)
    _, b, _ = _fit(X, y, random_state=3)
    np.testing.assert_array_equal(a, b)
    _, c, _ = _fit(X, y, random_state=np.random.default_rng(3))
    assert c.shape[1] == a.shape[1]


def test_float32_preserved(data):
    X, y = data
    _, X_res, _ = _fit(X.astype(np.float32), y)
    assert X_res.dtype == np.float32


def test_bounds_none_warns_and_is_stored(data):
    X, y = data
    with pytest.warns(PrivacyLeakWarning):
        est, _, _ = _fit(X, y, bounds=None)
    np.testing.assert_allclose(est.bounds_[0], X.min(axis=0))
    assert est.bounds is None  # parameter untouched


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_out_of_bounds_rows_are_clipped(data, synopsis):
    X, y = data
    X = X.copy()
    X[y == 1] *= 100.0  # far outside the bounds
    grid_only = {"histogram": "dense"} if synopsis == "grid" else {}
    est, X_res, _ = _fit(X, y, bounds=(-1, 1), synopsis=synopsis, **grid_only)
    synth = X_res[len(X) :]
    assert len(synth) > 0 and np.all(np.abs(synth) <= 1)
    if synopsis == "gaussian":
        # the mean of the clipped rows: each coordinate is the mean sign of the class
        # (|x| ≥ 1 after × 100 except for |x| < 0.01); noise scale 4/(0.9·~180) ≈ 0.025,
        # so 0.2 is 8 scales: false failure < 4·e^-8 ≈ 1e-3 (seed fixed: deterministic)
        expect = np.mean(np.clip(X[y == 1], -1, 1), axis=0)
        np.testing.assert_allclose(est.noisy_means_[1], expect, atol=0.2)
        return
    hist = est.noisy_counts_[1]
    assert hist.shape == (4,) * 4
    # the minority mass sits in the 2**4 corner cells (all coordinates 0 or 3);
    # noise: 16 corner cells vs 240 others, total minority ~180 -> corners win
    corners = hist[np.ix_(*[[0, 3]] * 4)]
    assert np.maximum(corners, 0).sum() > 0.5 * np.maximum(hist, 0).sum()


def test_pickle_clone_and_pandas(data):
    pd = pytest.importorskip("pandas")
    X, y = data
    Xdf = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    ys = pd.Series(y, name="label")
    est = DPSMOTE(bounds=(-6, 6), random_state=0)
    X_res, y_res = est.fit_resample(Xdf, ys)
    assert isinstance(X_res, pd.DataFrame) and list(X_res.columns) == list(Xdf.columns)
    assert isinstance(y_res, pd.Series) and y_res.name == "label"
    assert list(est.feature_names_in_) == list(Xdf.columns)
    clone(est)
    est2 = pickle.loads(pickle.dumps(est))
    assert est2.sampling_strategy_ == est.sampling_strategy_


# -- bad input -------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, match",
    [
        ({"epsilon": 0}, "epsilon"),
        ({"granularity": 0}, "granularity"),
        ({"granularity": 1.5}, "granularity"),
        ({"granularity": "fine"}, "granularity"),
        ({"connectivity": -1}, "connectivity"),
        ({"count_share": 1.0}, "count_share"),
        ({"class_counts": "exact"}, "class_counts"),
        ({"histogram": "hash"}, "histogram"),
        ({"bounds": (1, 1)}, "lower must be < upper"),
        ({"bounds": ([0, 0], [1, 1])}, "shape"),
    ],
)
def test_bad_parameters(data, params, match):
    X, y = data
    params = {"bounds": (-6, 6), **params}
    with pytest.raises(ValueError, match=match):
        DPSMOTE(**params).fit_resample(X, y)


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_bad_data(data, synopsis):
    X, y = data
    est = DPSMOTE(bounds=(-6, 6), random_state=0, synopsis=synopsis)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit_resample(Xn, y)
    with pytest.raises(ValueError, match="more than 1 class"):
        est.fit_resample(X, np.zeros(len(X), int))
    Xs = X.astype(object)
    Xs[5, 0] = "secret-category"
    with pytest.raises(ValueError, match="numeric features only") as info:
        est.fit_resample(Xs, y)
    assert "secret" not in str(info.value)  # no data values in errors
    assert "Categorical data is out of scope" in str(info.value)
    with pytest.raises(ValueError, match="histogram='dense'"):
        DPSMOTE(bounds=(-6, 6), histogram="dense", granularity=0.005, synopsis="grid").fit_resample(
            X, y
        )


def test_bad_pandas_column(data):
    pd = pytest.importorskip("pandas")
    X, y = data
    df = pd.DataFrame(X, columns=list("abcd"))
    df["colour"] = pd.Categorical(np.where(y == 1, "red", "blue"))
    with pytest.raises(ValueError, match=r"non-numeric columns \['colour'\]"):
        DPSMOTE(bounds=(-6, 6)).fit_resample(df, y)


# -- grid and ℓ-ball -------------------------------------------------------------


def test_n_cells_from_granularity():
    assert [_n_cells(g) for g in (1.0, 0.5, 0.25, 0.3, 0.1, 1 / 3)] == [1, 2, 4, 4, 10, 3]


def test_grid_coordinates_clip_and_close_last_cell():
    grid = Grid(np.array([0.0]), np.array([4.0]), 4)
    coords = cell_coordinates(grid, np.array([[-1.0], [0.0], [0.99], [1.0], [4.0], [9.0]]))
    np.testing.assert_array_equal(coords.ravel(), [0, 0, 0, 1, 3, 3])
    np.testing.assert_allclose(grid.centres([[0], [3]]).ravel(), [0.5, 3.5])


@pytest.mark.parametrize(
    "d, ell, n_cells", [(1, 2, 4), (3, 2, 4), (5, 3, 2), (30, 2, 4), (4, 0, 4)]
)
def test_ball_offsets(d, ell, n_cells):
    dense, support, delta = ball_offsets(d, ell, n_cells)
    assert len(dense) == n_ball_offsets(d, ell, n_cells)
    assert not dense[0].any()  # the centre itself first
    assert len(np.unique(dense, axis=0)) == len(dense)
    assert np.abs(dense).sum(axis=1).max() <= ell and np.abs(dense).max() <= n_cells - 1
    rebuilt = np.zeros_like(dense)
    for s in range(support.shape[1]):
        np.add.at(rebuilt, (np.arange(len(dense)), support[:, s]), delta[:, s])
    np.testing.assert_array_equal(rebuilt, dense)
    if (d, ell, n_cells) == (30, 2, 4):
        assert len(dense) == 1 + 2 * 30 + 2 * 30 + 4 * (30 * 29 // 2)  # 1861
    # brute force in low dimension
    if d <= 5:
        grid = np.stack(np.meshgrid(*[np.arange(-ell, ell + 1)] * d), -1).reshape(-1, d)
        keep = (np.abs(grid).sum(1) <= ell) & (np.abs(grid).max(1) <= n_cells - 1)
        assert len(grid[keep]) == len(dense)


def test_ball_too_large_is_refused():
    with pytest.raises(ValueError, match="connectivity"):
        ball_offsets(60, 6, 4)


# -- phase 2 ---------------------------------------------------------------------


def test_phase2_exact_pair_probabilities():
    # 1-D, counts [3, 1, 0, 0], ℓ = 1. Pairs (centre, neighbour) and their probability:
    # (0,0) 9/16 -> z = 0.5; (1,1) 1/16 -> z = 1.5; (0,1),(1,0) 6/16 -> z in (0.5, 1.5).
    grid = Grid(np.array([0.0]), np.array([4.0]), 4)
    z = sample_synthetic(grid, np.array([3, 1, 0, -2]), 40_000, 1, np.random.default_rng(0))
    z = z.ravel()
    freq = [np.mean(z == 0.5), np.mean(z == 1.5), np.mean((z > 0.5) & (z < 1.5))]
    # 6 sigma per cell with 40k draws: false failure < 1e-8
    for f, p in zip(freq, [9 / 16, 1 / 16, 6 / 16]):
        assert abs(f - p) < 6 * np.sqrt(p * (1 - p) / 40_000)
    assert np.all((z >= 0.5) & (z <= 1.5))


def test_phase2_one_uniform_per_coordinate():
    # two cells (0,0) and (1,1), ℓ = 2: mixed pairs fill the whole square between
    # the centres, not only its diagonal
    grid = Grid(np.zeros(2), np.full(2, 2.0), 2)
    hist = np.array([[5, 0], [0, 5]])
    z = sample_synthetic(grid, hist, 5000, 2, np.random.default_rng(1))
    mixed = z[:, 0] != z[:, 1]
    assert mixed.mean() > 0.3
    assert np.all((z >= 0.5) & (z <= 1.5))
    assert np.mean(z[:, 0] > z[:, 1]) > 0.15  # off-diagonal both ways


def test_phase2_connectivity_zero_gives_centres():
    grid = Grid(np.zeros(2), np.ones(2), 4)
    hist = np.zeros((4, 4), int)
    hist[1, 2] = 7
    z = sample_synthetic(grid, hist, 100, 0, np.random.default_rng(0))
    np.testing.assert_allclose(z, np.tile([0.375, 0.625], (100, 1)))


def test_phase2_all_nonpositive_is_uniform():
    grid = Grid(np.zeros(2), np.ones(2), 4)
    z = sample_synthetic(grid, -np.ones((4, 4), int), 4000, 2, np.random.default_rng(0))
    assert np.all((z >= 0.125) & (z <= 0.875))
    # uniform centres: each quarter of the first axis ~ 1/4 (6 sigma, false failure < 1e-8)
    q = np.floor(z[:, 0] * 4)
    assert q.min() >= 0
    assert abs(np.mean(z[:, 0] < 0.5) - 0.5) < 6 * np.sqrt(0.25 / 4000)


def test_sparse_and_dense_phase2_are_identical_given_same_histogram():
    rng = np.random.default_rng(5)
    grid = Grid(np.zeros(3), np.ones(3), 4)
    hist = rng.integers(-3, 6, size=(4, 4, 4))
    pos = np.argwhere(hist > 0).astype(grid.coord_dtype)
    sparse = SparseHistogram(pos, hist[hist > 0].astype(np.int64), threshold=1)
    a = sample_synthetic(grid, hist, 3000, 2, np.random.default_rng(9))
    b = sample_synthetic(grid, sparse, 3000, 2, np.random.default_rng(9))
    np.testing.assert_array_equal(a, b)


def _void_grid(*args) -> Grid:
    """A small grid addressed as if its cells did not fit int64 codes (the void-key path)."""
    grid = Grid(*args)
    object.__setattr__(grid, "fits_int64", False)
    return grid


def test_void_keys_lookup_matches_int_codes():
    rng = np.random.default_rng(2)
    args = (np.zeros(3), np.ones(3), 4)
    cells = np.unique(rng.integers(0, 4, size=(30, 3)), axis=0).astype(np.int16)
    counts = rng.integers(1, 9, size=len(cells))
    all_cells = np.argwhere(np.ones((4, 4, 4))).astype(np.int16)
    res = []
    for grid in (Grid(*args), _void_grid(*args)):
        keys = cell_keys(grid, cells)
        order = np.argsort(keys)
        w = _Weights(grid, SparseHistogram(cells[order], counts[order], 1))
        res.append(w.lookup(cell_keys(grid, all_cells)))
    np.testing.assert_array_equal(res[0], res[1])
    # the sampler also runs on the void path
    grid = _void_grid(*args)
    order = np.argsort(cell_keys(grid, cells))
    z = sample_synthetic(
        grid, SparseHistogram(cells[order], counts[order], 1), 500, 2, np.random.default_rng(0)
    )
    assert z.shape == (500, 3) and np.all((z > 0) & (z < 1))


def test_sparse_beyond_int64_cells():
    # 5 cells per feature at d = 30: 5**30 ~ 9e20 cells > int64
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(600, 30)), rng.normal(0.3, 0.05, size=(300, 30))]
    y = np.r_[np.zeros(600, int), np.ones(300, int)]
    est = DPSMOTE(epsilon=2.0, bounds=(-3, 3), granularity=0.2, random_state=0, synopsis="grid")
    X_res, _ = est.fit_resample(X, y)
    assert est.histogram_ == "sparse" and est.n_cells_ == 5
    hist = est.noisy_counts_[1]
    assert hist.threshold > 1 and np.all(hist.counts >= hist.threshold)
    # the 300 minority rows share one cell: it survives the threshold
    # (θ ~ 40 at ε_h = 1.8; noise beyond 260 has probability ~e^-400)
    centre_cell = np.full(30, 2)  # 0.3 lies in [-0.6, 0.6)
    assert any((c == centre_cell).all() for c in hist.cells)
    assert len(X_res) == len(X) + est.sampling_strategy_[1]


# -- sparse release = dense release filtered at θ --------------------------------


@pytest.mark.parametrize("threshold", [1, 3])
def test_sparse_release_distribution_matches_dense(threshold):
    # per-cell pass probability and mean of passing values, sparse vs dense
    # (exact formula); 4000 runs, 6-sigma tolerance on 4 cells: false failure < 1e-7
    grid = Grid(np.zeros(2), np.ones(2), 4)
    coords = np.array([[0, 0]] * 3 + [[2, 1]], dtype=np.int16)  # cells (0,0):3, (2,1):1
    eps, runs = 0.8, 4000
    rng = np.random.default_rng(11)
    passed = np.zeros((runs, 4, 4), bool)
    n_released = np.zeros(runs)
    for r in range(runs):
        h = release_sparse(grid, coords, eps, threshold, rng)
        passed[r][tuple(h.cells.T)] = True
        n_released[r] = len(h.counts)
        assert np.all(h.counts >= threshold)
    for cell, true in [((0, 0), 3), ((2, 1), 1), ((3, 3), 0), ((1, 2), 0)]:
        k = threshold - true  # pass iff Z >= k
        if k >= 1:
            p = geometric_tail(eps, k)
        else:
            p = (
                1 - geometric_tail(eps, 1 - k) * 1.0
            )  # P(Z >= k) = 1 - P(Z <= k-1) = 1 - P(Z >= 1-k)
        f = passed[:, cell[0], cell[1]].mean()
        assert abs(f - p) < 6 * np.sqrt(p * (1 - p) / runs) + 1e-9, (cell, f, p)
    # empty cells: expected count of released empty cells is 14 * P(Z >= θ)
    expect = 2 * (1 - 0) * 0 + 14 * geometric_tail(eps, threshold)
    empty_released = n_released - passed[:, 0, 0] - passed[:, 2, 1]
    sd = np.sqrt(14 * geometric_tail(eps, threshold) / runs)
    assert abs(empty_released.mean() - expect) < 6 * sd + 1e-9


def test_choose_threshold_rule():
    # θ is the smallest integer with spurious mass <= 0.1 * class size
    for m, eps, n in [(4**30, 0.9, 1e5), (4**8, 0.9, 300), (10, 1.0, 1e6)]:
        theta = choose_threshold(m, eps, n)

        def mass(t, m=m, eps=eps):
            a = np.exp(-eps)
            return m * geometric_tail(eps, t) * (t + a / (1 - a))

        assert mass(theta) <= 0.1 * n
        assert theta == 1 or mass(theta - 1) > 0.1 * n


def test_release_dense_batch_shape_and_noise_scale():
    # many releases at once, as the audit helpers draw them: stacked copies of the counts
    true = np.array([5, 0, 2])
    out = release_dense(np.broadcast_to(true, (20_000, 3)), 1.0, np.random.default_rng(0))
    assert out.shape == (20_000, 3) and out.dtype == np.int64
    # variance of two-sided geometric: 2a/(1-a)^2 at a = e^-1 ~ 1.84; 6-sigma-ish band
    var = out.var(axis=0)
    a = np.exp(-1)
    assert np.all(np.abs(var - 2 * a / (1 - a) ** 2) < 0.15)
    np.testing.assert_allclose(out.mean(axis=0), true, atol=0.07)


def test_release_synopsis_batch(data):
    X, y = data
    est = DPSMOTE(epsilon=1.0, bounds=(-6, 6), synopsis="grid")
    batch = release_synopsis_batch(est, X, y, 500, histogram_class=1, random_state=0)
    assert batch.noisy_class_counts.shape == (500, 2) and batch.noisy_counts.shape == (500, 256)
    assert batch.stacked().shape == (500, 2 + 2 + 256)
    np.testing.assert_array_equal(
        batch.n_synthetic[:, 1],
        np.maximum(
            batch.noisy_class_counts.max(1) - np.maximum(batch.noisy_class_counts[:, 1], 0), 0
        )
        * (batch.noisy_class_counts.argmax(1) == 0),
    )
    assert not hasattr(est, "sampling_strategy_")  # estimator untouched
    pub = release_synopsis_batch(
        clone(est).set_params(class_counts="public"), X, y, 10, histogram_class=1
    )
    assert pub.noisy_class_counts is None and np.all(
        pub.n_synthetic[:, 1] == np.ptp(np.bincount(y))
    )


# -- pipelines -------------------------------------------------------------------


@needs_diffprivlib
def test_pipeline_with_diffprivlib_and_grid_search():
    from diffprivlib.models import LogisticRegression
    from imblearn.pipeline import Pipeline
    from sklearn.model_selection import GridSearchCV

    X, y = make_classification(n_samples=600, n_features=4, weights=[0.85], random_state=0)
    X = np.clip(X, -4, 4)
    pipe = Pipeline(
        [
            ("dpsmote", DPSMOTE(bounds=(-4, 4), random_state=0)),
            ("clf", LogisticRegression(epsilon=1.0, data_norm=8.0, random_state=0)),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(
            pipe,
            {"dpsmote__epsilon": [0.5, 2.0], "clf__epsilon": [1.0, 5.0]},
            cv=2,
            scoring="roc_auc",
        )
        search.fit(X, y)
    assert set(search.best_params_) == {"dpsmote__epsilon", "clf__epsilon"}
    assert search.best_estimator_.named_steps["dpsmote"].privacy_spent_.epsilon in (0.5, 2.0)
    assert search.predict(X).shape == (600,)


def test_many_features_single_cell_uses_sparse():
    # granularity=1: one cell per feature; 40 features exceed numpy's dense axes
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 40))
    y = np.r_[np.zeros(45, int), np.ones(15, int)]
    est = DPSMOTE(bounds=(0, 1), granularity=1.0, random_state=0, synopsis="grid")
    X_res, _ = est.fit_resample(X, y)
    assert est.histogram_ == "sparse"
    np.testing.assert_allclose(X_res[60:], 0.5)  # the only cell centre
    with pytest.raises(ValueError, match="at most 32 features"):
        DPSMOTE(bounds=(0, 1), granularity=1.0, histogram="dense", synopsis="grid").fit_resample(
            X, y
        )


def test_distinct_empty_cells_rejection_path_is_uniform():
    from skdp_anomaly.over_sampling._release import _distinct_empty_cells

    grid = Grid(np.zeros(9), np.ones(9), 4)  # 2**18 cells: rejection sampling path
    rng = np.random.default_rng(0)
    nonempty = np.unique(cell_keys(grid, random_cells(grid, 20_000, rng)))
    cells = _distinct_empty_cells(grid, 6000, nonempty, rng)
    keys = cell_keys(grid, cells)
    assert len(np.unique(keys)) == 6000
    assert not np.isin(keys, nonempty).any()
    # each coordinate value has frequency 1/4 (6 sigma per value: false failure < 1e-7)
    freq = np.stack([(cells == v).mean(axis=0) for v in range(4)])
    assert np.all(np.abs(freq - 0.25) < 6 * np.sqrt(0.25 * 0.75 / 6000))


def test_sparse_spurious_values_follow_conditional_noise():
    # empty cells that pass θ carry Z | Z >= θ = θ + Geometric: mean θ + a/(1-a)
    grid = Grid(np.zeros(6), np.ones(6), 4)  # 4096 empty cells
    eps, theta = 1.0, 2
    rng = np.random.default_rng(3)
    vals = np.concatenate(
        [
            release_sparse(grid, np.zeros((0, 6), np.int16), eps, theta, rng).counts
            for _ in range(300)
        ]
    )
    a = np.exp(-eps)
    expect_n = 300 * 4096 * geometric_tail(eps, theta)
    assert abs(len(vals) - expect_n) < 6 * np.sqrt(expect_n)  # false failure < 1e-8
    sd = np.sqrt(a) / (1 - a) / np.sqrt(len(vals))
    assert abs(vals.mean() - (theta + a / (1 - a))) < 6 * sd
    assert vals.min() >= theta


def test_d30_int64_codes_path():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(500, 30)), rng.normal(0.5, 0.1, size=(400, 30))]
    y = np.r_[np.zeros(500, int), np.ones(400, int)]
    est = DPSMOTE(epsilon=2.0, bounds=(-4, 4), random_state=0, synopsis="grid")
    X_res, _ = est.fit_resample(X, y)
    assert est.histogram_ == "sparse" and 4**30 < 2**63
    hist = est.noisy_counts_[1]
    # all 400 minority rows share cell (2,…,2): it survives θ (≈ 30 at ε_h = 1.8)
    assert any((c == 2).all() for c in hist.cells)
    synth = X_res[len(X) :]
    assert len(synth) == est.sampling_strategy_[1] and np.all(np.abs(synth) <= 4)


# -- granularity="auto" and noise warnings ---------------------------------------


def _pima_like(n_min=200, n_maj=400, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = np.clip(np.r_[rng.normal(-0.2, 0.4, (n_maj, d)), rng.normal(0.3, 0.4, (n_min, d))], -1, 1)
    return X, np.r_[np.zeros(n_maj, int), np.ones(n_min, int)]


def test_expected_positive_noise_matches_distribution():
    # exact sum of max(z, 0) P(Z = z) over the two-sided geometric pmf
    for eps in (0.1, 0.9, 4.5):
        a = np.exp(-eps)
        z = np.arange(1, 4000)
        exact = np.sum(z * (1 - a) / (1 + a) * a**z)
        assert expected_positive_noise(eps) == pytest.approx(exact, rel=1e-9)


def test_choose_n_cells_rule():
    eps_h = 0.9  # ε = 1 with count_share 0.1
    assert choose_n_cells(200, eps_h, 8) == 2  # Pima-like: ν = 0.5
    assert choose_n_cells(214, eps_h, 8) == 2
    assert choose_n_cells(50_000, eps_h, 8) == 4  # many rows: the paper's ν = 0.25
    assert choose_n_cells(10**9, eps_h, 8) == 4  # never finer than the paper's grid
    assert choose_n_cells(100, eps_h, 8) == 2  # noise-dominated, but never 1 cell
    assert choose_n_cells(10**5, eps_h, 30) == 2  # d = 30: the coarsest grid
    assert choose_n_cells(0, eps_h, 2) == choose_n_cells(-5, eps_h, 2) == 2
    assert choose_n_cells(10**6, 50.0, 20, max_total_cells=2**27) == 2  # 3**20 > 2**27
    assert choose_n_cells(10**6, 0.9, 30, max_total_cells=2**27) == 1  # 2**30 > 2**27
    assert choose_n_cells(10, 0.9, 8, min_n_cells=1) == 1
    with pytest.raises(ValueError, match="n_features"):
        choose_n_cells(10, 1.0, 0)
    # definition: m fits, m + 1 does not (or the cap is reached); monotone in size and ε
    c = expected_positive_noise(eps_h)
    for d in (1, 2, 5, 8, 12):
        prev = 1
        for n in (1, 3, 10, 60, 300, 2_000, 40_000, 10**6):
            m = choose_n_cells(n, eps_h, d)
            assert m == 2 or m**d * c <= n
            assert m == 4 or (m + 1) ** d * c > n
            assert m >= prev
            prev = m
    assert [choose_n_cells(200, e, 8) for e in (0.45, 0.9, 4.5, 9.0)] == [2, 2, 3, 4]
    assert [choose_n_cells(4000, e, 8) for e in (0.45, 0.9, 4.5)] == [2, 3, 4]


@pytest.mark.filterwarnings("ignore:DPSMOTE generated no synthetic rows")
def test_auto_granularity_is_a_function_of_the_noisy_size_only(monkeypatch):
    # The noisy class sizes are forced to the same values for two datasets whose
    # true minority sizes differ 50-fold (with exact sizes the rule would give
    # m = 2 and m = 4): the chosen grid must be the same, the one of the noisy size.
    class FixedNoise(_release.GeometricMechanism):
        def randomise(self, counts, rng):
            return np.array([60_000, 5_000])

    monkeypatch.setattr(_release, "GeometricMechanism", FixedNoise)
    chosen = []
    for n_min in (100, 40_000):
        X, y = _pima_like(n_min=n_min, n_maj=50_000)
        est = DPSMOTE(bounds=(-1, 1), granularity="auto", random_state=0, synopsis="grid")
        est.fit_resample(X, y)
        chosen.append((est.n_cells_, est.granularity_))
    assert choose_n_cells(100, 0.9, 8) == 2 and choose_n_cells(40_000, 0.9, 8) == 4
    assert chosen == [(3, 1 / 3)] * 2 and choose_n_cells(5_000, 0.9, 8) == 3


def test_auto_granularity_fit_attributes_and_public_counts():
    X, y = _pima_like(n_min=214)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DPSMOTENoiseWarning)  # auto never warns here
        est = DPSMOTE(bounds=(-1, 1), granularity="auto", random_state=1, synopsis="grid")
        X_res, _ = est.fit_resample(X, y)
    noisy = max(est.noisy_class_counts_[1], 1)
    assert est.n_cells_ == choose_n_cells(noisy, 0.9, 8) == 2 and est.granularity_ == 0.5
    assert est.histogram_ == "dense" and est.noisy_counts_[1].shape == (2,) * 8
    assert len(X_res) == len(X) + est.sampling_strategy_[1]
    assert est.privacy_spent_.epsilon == 1.0  # the choice is post-processing: no extra ε
    # class_counts="public": the exact (public) size drives the choice, all ε on the cells
    X, y = _pima_like(n_min=3_000, n_maj=6_000)
    pub = DPSMOTE(
        bounds=(-1, 1), granularity="auto", class_counts="public", random_state=0, synopsis="grid"
    )
    pub.fit_resample(X, y)
    assert pub.n_cells_ == choose_n_cells(3_000, 1.0, 8) == 3
    fixed = DPSMOTE(bounds=(-1, 1), granularity=0.5, random_state=0, synopsis="grid")
    with pytest.warns(DPSMOTENoiseWarning, match="dense grid"):
        fixed.set_params(granularity=0.25).fit_resample(*_pima_like())
    assert fixed.granularity_ == 0.25 and fixed.n_cells_ == 4


def test_dense_noise_warning_names_only_dp_outputs():
    X, y = _pima_like(n_min=200)
    est = DPSMOTE(bounds=(-1, 1), random_state=3, synopsis="grid")  # ν = 0.25: 65 536 cells
    with pytest.warns(DPSMOTENoiseWarning) as record:
        est.fit_resample(X, y)
    msgs = [str(w.message) for w in record if "dense grid" in str(w.message)]
    assert len(msgs) == 1 and msgs[0].startswith("DPSMOTE")
    noisy = est.noisy_class_counts_[1]
    assert noisy != 200  # this seed's noise is non-zero, so the check below can fail
    assert f"noisy size of class 1 ({noisy})" in msgs[0] and "(200)" not in msgs[0]
    assert "65536 cells" in msgs[0] and "granularity='auto'" in msgs[0]


def test_sparse_release_far_below_class_size_warns():
    # d = 30, ν = 0.25: the rows are spread so that no real cell reaches θ
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(900, 30))
    y = np.r_[np.zeros(600, int), np.ones(300, int)]
    est = DPSMOTE(bounds=(-1, 1), random_state=0, synopsis="grid")
    with pytest.warns(DPSMOTENoiseWarning, match="DPSMOTE") as record:
        est.fit_resample(X, y)
    assert est.histogram_ == "sparse"
    text = " ".join(str(w.message) for w in record)
    assert "sparse histogram" in text or "no cell" in text
    # "auto" takes the coarsest grid (2**30 cells, sparse): still nothing real
    # survives θ with 300 rows, and the warning says so instead of failing silently
    auto = DPSMOTE(bounds=(-1, 1), granularity="auto", random_state=0, synopsis="grid")
    with pytest.warns(DPSMOTENoiseWarning, match="cannot carry this class"):
        auto.fit_resample(X, y)
    assert auto.n_cells_ == 2 and auto.histogram_ == "sparse"


def test_release_synopsis_batch_auto_granularity():
    X, y = _pima_like(n_min=12, n_maj=40, d=2)
    est = DPSMOTE(bounds=(-1, 1), granularity="auto", synopsis="grid")
    batch = release_synopsis_batch(est, X, y, 4000, histogram_class=1, random_state=0)
    sizes = np.maximum(batch.noisy_class_counts, 1)
    drive = auto_class_size(sizes, batch.n_synthetic)
    expect = [choose_n_cells(s, 0.9, 2) for s in drive]
    np.testing.assert_array_equal(batch.n_cells, expect)
    assert set(np.unique(batch.n_cells)) == {2, 3, 4}  # the noisy size moves the grid
    assert batch.noisy_counts.shape == (4000, 16)
    pad = np.iinfo(np.int64).min
    for m in (2, 3):
        rows = batch.noisy_counts[batch.n_cells == m]
        assert np.all(rows[:, m * m :] == pad) and np.all(rows[:, : m * m] > pad)
    stacked = batch.stacked()
    assert stacked.shape == (4000, 2 + 2 + 16 + 1)
    np.testing.assert_array_equal(stacked[:, -1], batch.n_cells)


def test_warnings_point_at_the_callers_line_through_a_pipeline():
    from imblearn.pipeline import Pipeline
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(
        n_samples=300, n_features=8, n_informative=4, weights=[0.95], random_state=0
    )
    pipe = Pipeline(
        [("s", DPSMOTE(epsilon=0.5, bounds=(-6, 6), random_state=0)), ("clf", LogisticRegression())]
    )
    with pytest.warns(DPSMOTENoiseWarning) as record:
        pipe.fit(X, y)
    assert {w.filename for w in record} == {__file__}


@pytest.mark.parametrize(
    "y",
    [
        np.array([3, 1, 3, 7, 1], dtype=np.int64),
        np.array([-2, 5, -2, 0], dtype=np.int8),
        np.array([9, 9, 4], dtype=np.uint16),
        np.array([0, 70_000, 3]),  # a span too wide for the table: np.unique
        np.array(["b", "a", "b"]),
        np.array([0.5, 1.5, 0.5]),
        np.array([True, False, True]),
    ],
)
def test_label_encoding_equals_numpy_unique(y):
    from skdp_anomaly.over_sampling._setting import unique_codes as _unique_codes

    classes, codes = _unique_codes(y)
    expected_classes, expected_codes = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, expected_classes)
    assert classes.dtype == expected_classes.dtype
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))
