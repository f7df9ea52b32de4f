"""DPOAD (Mohammady et al.): sampling parameters, KSE detector, roles and boundary, mechanisms, input.

Statistical tests state their false-failure rate; every one is seeded, so its
outcome is fixed for a given numpy. Reference values are computed here, in
the test, from the theorems' formulas (Thm II.2 / IV.2) and from a
brute-force KSE, never with the module's own helpers.
"""

import dataclasses
import gc
import math
import warnings
import weakref

import numpy as np
import pytest
from _walk import reachable
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import lambertw
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from skdp_anomaly import DPOAD
from skdp_anomaly.dpoad import (
    Analyst,
    AnalystReport,
    DataOwner,
    SensitivityFeedback,
    WindowRelease,
    _kse,
    from_json,
    to_json,
    window_histogram,
)
from skdp_anomaly.dpoad._kse import detect_anomalies, kse_scores
from skdp_anomaly.dpoad._messages import SamplingParameters
from skdp_anomaly.dpoad._sampling import sampling_parameters
from skdp_anomaly.dpoad import _owner as owner_module
from skdp_anomaly.privacy import LaplaceMechanism, PrivacyCost, compose_sequential
from skdp_anomaly.exceptions import PrivacyLeakWarning

BINS = np.linspace(0.0, 1.0, 17)  # 16 cells of width 1/16
N_BINS = BINS.size - 1


# ------------------------------------------------------- theorem formulas
def learning_reference(gamma):
    """Thm II.2, evaluated from the printed formulas."""
    rho = math.exp(lambertw(-gamma / (2 * math.sqrt(math.e)), -1).real + 0.5)
    m = math.ceil(math.log(1 / rho) / (2 * (gamma - rho) ** 2))
    k = math.ceil(m * (1 - gamma + rho + math.sqrt(math.log(1 / rho) / (2 * m))))
    return m, k, rho


def prediction_k(m, gamma, rho):
    """Thm IV.2's k (prediction), real-valued before the ceiling; vectorised over rho."""
    rho = np.asarray(rho, dtype=float)
    return m * (1 - gamma + rho + np.sqrt(-np.log(1 - np.sqrt(1 - rho)) / (2 * m)))


def prediction_m_bound(rho, epsilon, learning_windows):
    """Thm IV.2's lower bound on m (prediction), T = 2 + n ε / (2 N c), c = 1."""
    t = 2 + learning_windows * epsilon / 2
    return np.ceil(-2 * np.log(1 - np.sqrt(1 - np.asarray(rho))) / (t - math.sqrt(t * t - 4)) ** 2)


def rho_fit(m):
    return 1.426 / (np.asarray(m, dtype=float) + 0.8389) ** 0.4589


# ------------------------------------------------------------ brute KSE
def brute_kse(x):
    """s_a = mean_b KS(P_a, P_b), P_a = {|x_a - x_j|}_j (self included), by ECDF maxima."""
    x = np.asarray(x, dtype=float)
    d = np.abs(x[:, None] - x[None, :])  # row a is P_a
    grid = np.unique(d)
    ecdf = (d[:, :, None] <= grid[None, None, :]).mean(axis=1)  # (N, grid)
    ks = np.abs(ecdf[:, None, :] - ecdf[None, :, :]).max(axis=2)  # (N, N)
    return ks.mean(axis=1)


def test_brute_kse_agrees_with_scipy_ks_2samp():
    # the reference itself, against scipy's two-sample statistic
    x = np.array([0, 1, 1, 2, 5, 5, 5, 9, 30], dtype=float)
    d = np.abs(x[:, None] - x[None, :])
    scipy_scores = [
        np.mean([stats.ks_2samp(d[a], d[b]).statistic for b in range(x.size)])
        for a in range(x.size)
    ]
    np.testing.assert_allclose(brute_kse(x), scipy_scores, rtol=0, atol=1e-12)


# ---------------------------------------------------------- windows
def window_with_counts(counts, bins=BINS, rng=None):
    """Records (1-D) whose histogram over ``bins`` is exactly ``counts``."""
    rng = np.random.default_rng(0) if rng is None else rng
    lo, hi = bins[:-1], bins[1:]
    cells = np.repeat(np.arange(len(counts)), counts)
    width = hi[cells] - lo[cells]
    return rng.permutation(lo[cells] + width * rng.uniform(0.05, 0.95, cells.size))


def distinctive_counts(n_windows, seed=0):
    """Per-window count vectors no noise is likely to reproduce: all cells distinct."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(np.arange(11, 11 + 7 * N_BINS, 7)) + w for w in range(n_windows)]


# =================================================== 1. sampling parameters
@pytest.mark.parametrize("gamma", [0.01, 0.05, 0.1, 0.3, 0.9])
def test_learning_parameters_match_theorem_II_2(gamma):
    m, k, rho = learning_reference(gamma)
    p = sampling_parameters(gamma)
    assert (p.phase, p.m, p.k) == ("learning", m, k)
    assert p.rho == pytest.approx(rho, rel=1e-12)
    assert 0 < p.rho < gamma and p.k <= p.m


def test_learning_parameters_at_gamma_005_are_the_spec_values():
    p = sampling_parameters(0.05)
    assert (p.m, p.k) == (1305, 1305)
    assert p.quantile_level == 1.0


def test_prediction_fit_gives_the_spec_value():
    p = sampling_parameters(0.05, "prediction", m=100_000, rho="fit")
    assert (p.phase, p.m, p.k) == ("prediction", 100_000, 96254)
    assert p.rho == pytest.approx(float(rho_fit(100_000)), rel=1e-12)
    assert p.k == math.ceil(float(prediction_k(100_000, 0.05, rho_fit(100_000))))


@pytest.mark.parametrize(
    "gamma, m", [(0.05, 100_000), (0.05, 5_000), (0.1, 2_000), (0.3, 200), (0.5, 50)]
)
def test_prediction_argmin_beats_the_fit_and_is_a_minimum(gamma, m):
    fit = sampling_parameters(gamma, "prediction", m=m, rho="fit")
    best = sampling_parameters(gamma, "prediction", m=m)
    assert best.m == fit.m == m  # no raise of m at ε = 1, one learning window
    assert best.k <= fit.k <= m and best.k <= m
    assert 0 < best.rho < gamma
    # the k it reports is the theorem's k at the ρ it reports
    assert best.k == math.ceil(float(prediction_k(m, gamma, best.rho)) - 1e-9)
    # and no ρ on a fine log grid does better
    grid = np.geomspace(1e-9, gamma, 200_001)[:-1]
    assert best.k <= np.ceil(prediction_k(m, gamma, grid) - 1e-9).min()


def test_prediction_argmin_is_strictly_smaller_than_the_fit_at_the_spec_point():
    fit = sampling_parameters(0.05, "prediction", m=100_000, rho="fit")
    best = sampling_parameters(0.05, "prediction", m=100_000)
    assert best.k < fit.k


@pytest.mark.parametrize(
    "gamma, epsilon, learning_windows, m", [(0.05, 10.0, 10, 1_000), (0.1, 20.0, 4, 1_000)]
)
def test_prediction_m_is_raised_to_the_theorem_IV_2_bound(gamma, epsilon, learning_windows, m):
    # the fit's ρ(m) is explicit, so the smallest admissible m' is found by a scan
    assert m < prediction_m_bound(rho_fit(m), epsilon, learning_windows)  # m is too small
    p = sampling_parameters(
        gamma, "prediction", m=m, epsilon=epsilon, learning_windows=learning_windows, rho="fit"
    )
    candidates = np.arange(m, 10 * m + 200_000)
    ok = candidates >= prediction_m_bound(rho_fit(candidates), epsilon, learning_windows)
    expected_m = int(candidates[np.argmax(ok)])
    assert ok.any() and p.m == expected_m > m
    assert p.rho == pytest.approx(float(rho_fit(expected_m)), rel=1e-12)
    assert p.k == math.ceil(float(prediction_k(expected_m, gamma, rho_fit(expected_m))) - 1e-9)
    # argmin ρ: the raised m meets the bound at its own ρ, and m - 1 would not
    q = sampling_parameters(
        gamma, "prediction", m=m, epsilon=epsilon, learning_windows=learning_windows
    )
    assert q.m > m and q.m >= prediction_m_bound(q.rho, epsilon, learning_windows)
    smaller = sampling_parameters(
        gamma, "prediction", m=q.m - 1, epsilon=epsilon, learning_windows=learning_windows
    )
    assert smaller.m == q.m  # m - 1 is raised back to the same m'


def test_prediction_m_is_kept_when_above_the_bound():
    p = sampling_parameters(0.05, "prediction", m=50_000, epsilon=1.0, rho="fit")
    assert p.m == 50_000
    assert 50_000 >= prediction_m_bound(p.rho, 1.0, 1)


def test_estimator_records_the_raised_m():
    det = DPOAD(
        BINS,
        epsilon=10.0,
        mechanism="dpoad",
        detector="kse",
        max_count=50,
        learning_windows=10,
        sensitivity_samples=1_000,
        random_state=0,
    )
    windows = [window_with_counts(np.full(N_BINS, 10))] * 11
    for X in windows:
        det.partial_fit(X)
    expected = sampling_parameters(0.05, "prediction", m=1_000, epsilon=10.0, learning_windows=10)
    assert expected.m > 1_000
    assert det.sampling_parameters_[-1] == expected
    assert det.releases_[-1].sampling == expected


def test_k_greater_than_m_is_a_value_error():
    # m = 100 at γ = 0.05: the theorem needs k = 113 > m
    with pytest.raises(ValueError, match="k <= m"):
        sampling_parameters(0.05, "prediction", m=100)
    assert math.ceil(float(prediction_k(100, 0.05, np.geomspace(1e-6, 0.05, 1000)).min())) > 100
    # after raising m to the bound, the message names the value the user gave
    with pytest.raises(ValueError, match=r"sensitivity_samples=500 \(raised"):
        sampling_parameters(0.05, "prediction", m=500, epsilon=8.0, learning_windows=5, rho="fit")
    det = DPOAD(BINS, mechanism="dpoad", max_count=10, sensitivity_samples=100, random_state=0)
    with pytest.raises(ValueError, match="sensitivity_samples"):
        det.fit(window_with_counts(np.ones(N_BINS, int)))
    with pytest.raises(NotFittedError):
        check_is_fitted(det)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": 1.0}, "gamma"),
        ({"gamma": -0.1}, "gamma"),
        ({"gamma": 0.05, "phase": "testing"}, "phase"),
        ({"gamma": 0.05, "phase": "prediction", "rho": "best"}, "rho"),
        ({"gamma": 0.05, "phase": "prediction", "m": 0}, "'m'"),
        ({"gamma": 0.05, "phase": "prediction", "epsilon": 0.0}, "epsilon"),
        ({"gamma": 0.05, "phase": "prediction", "epsilon": -1.0}, "epsilon"),
        ({"gamma": 0.05, "phase": "prediction", "learning_windows": 0}, "learning_windows"),
    ],
)
def test_sampling_parameters_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sampling_parameters(**kwargs)


# ============================================================== 2. KSE
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=30))
def test_kse_matches_brute_force_on_integers(values):
    np.testing.assert_allclose(kse_scores(values), brute_kse(values), rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False), min_size=1, max_size=25)
)
def test_kse_matches_brute_force_on_reals(values):
    np.testing.assert_allclose(kse_scores(values), brute_kse(values), rtol=0, atol=1e-12)


def test_kse_edge_cases():
    assert kse_scores([]).shape == (0,)
    np.testing.assert_array_equal(kse_scores([4, 4, 4]), 0.0)
    np.testing.assert_array_equal(kse_scores([7]), 0.0)
    with pytest.raises(ValueError, match="finite"):
        kse_scores([1.0, np.nan])
    with pytest.raises(ValueError, match="finite"):
        kse_scores([1.0, np.inf])
    s = kse_scores([3, 4, 3, 5, 4, 40])
    assert np.argmax(s) == 5


def test_kse_integer_paths_agree(monkeypatch):
    # pools of pseudo-counts: tabulated ECDFs (the default at this size), the
    # on-the-fly compiled loop (forced by a zero table budget) and the
    # real-valued path (a shift by 0.5 leaves every distance unchanged)
    rng = np.random.default_rng(1)
    pools = [
        rng.poisson(20, 300),
        rng.integers(0, 400, 120),
        np.r_[rng.poisson(5, 200), [90, 95, 400]],
    ]
    tabulated = [kse_scores(x) for x in pools]
    shifted = [kse_scores(x + 0.5) for x in pools]
    monkeypatch.setattr(_kse, "_MAX_CDF_ENTRIES", 0)
    on_the_fly = [kse_scores(x) for x in pools]
    for x, a, b, c in zip(pools, tabulated, on_the_fly, shifted):
        distinct = np.unique(x)
        span = distinct[-1] - distinct[0] + 1
        assert distinct.size * span <= 4_000_000  # the default really tabulated
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a, c, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tabulated[2], brute_kse(pools[2]), rtol=0, atol=1e-12)


def test_kse_on_a_wide_integer_range_is_exact():
    # counts spread over a range far wider than the pool (a large max_count):
    # the result must stay exact whatever path computes it
    rng = np.random.default_rng(2)
    x = np.r_[rng.integers(0, 10**6, 25), [10**6, 10**6]]
    np.testing.assert_allclose(kse_scores(x), brute_kse(x), rtol=0, atol=1e-12)


def reference_detection(counts, max_count, threshold):
    counts = np.clip(np.asarray(counts), 0, max_count)
    n_windows, n_bins = counts.shape
    flags, scores = np.zeros(counts.shape, bool), np.zeros(counts.shape)
    for i in range(n_windows):
        raw = brute_kse(counts[: i + 1].ravel())
        span = raw.max() - raw.min()
        normalised = (raw - raw.min()) / span if span > 0 else np.zeros_like(raw)
        scores[i] = normalised[-n_bins:]
        flags[i] = scores[i] > threshold
    return flags, scores


@pytest.mark.parametrize("threshold", [0.0, 0.5, 0.9])
def test_detect_anomalies_pools_windows_normalises_and_thresholds(threshold):
    rng = np.random.default_rng(3)
    counts = rng.poisson(6, size=(5, 8))
    counts[3, 2] = 45
    counts[4, 5] = 250  # above max_count: clipped to 60 before scoring
    flags, scores = detect_anomalies(counts, max_count=60, threshold=threshold)
    ref_flags, ref_scores = reference_detection(counts, 60, threshold)
    np.testing.assert_allclose(scores, ref_scores, rtol=0, atol=1e-12)
    # scores tied with the threshold up to rounding may go either way
    clear = np.abs(ref_scores - threshold) > 1e-9
    np.testing.assert_array_equal(flags[clear], ref_flags[clear])
    assert clear.mean() > 0.5
    if threshold == 0.9:
        assert flags[3, 2] and flags[4, 5]


def test_analyst_detector_is_detect_anomalies_on_its_pseudo_counts():
    rng = np.random.default_rng(4)
    det = DPOAD(
        BINS, epsilon=1.0, max_count=300, mechanism="record", detector="kse", random_state=0
    )
    for i in range(6):
        counts = rng.poisson(40, N_BINS)
        if i == 4:
            counts[9] = 250
        det.partial_fit(window_with_counts(counts, rng=rng))
    pseudo = np.vstack(det.analyst_.pseudo_counts)
    flags, scores = detect_anomalies(pseudo, max_count=300, threshold=0.9)
    np.testing.assert_allclose(det.anomaly_scores_, scores, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(det.anomalies_, flags)
    np.testing.assert_array_equal(det.anomalous_windows_, det.anomalies_.any(axis=1))
    assert det.anomalies_[4, 9]
    assert det.anomaly_scores_.min() >= 0 and det.anomaly_scores_.max() <= 1


def test_flags_are_scores_strictly_above_the_threshold():
    # at T = 0 the pool's least anomalous cells (normalised score 0) are not flagged
    det = run("record", n_windows=3, detector="kse", threshold=0.0)
    np.testing.assert_array_equal(det.anomalies_, det.anomaly_scores_ > 0.0)
    assert (det.anomaly_scores_[0] == 0).any() and not det.anomalies_[0].all()


# ================================================ 3. roles and boundary
@pytest.mark.parametrize(
    "message",
    [
        np.arange(N_BINS),
        {"values": [1, 2, 3]},
        [1, 2, 3],
        "WindowRelease",
        None,
        AnalystReport(
            0, np.zeros(3, bool), np.zeros(3), SensitivityFeedback([[0, 0], [1, 1]], [0.0], [1.0])
        ),
    ],
    ids=["counts array", "dict", "list", "str", "None", "report"],
)
def test_analyst_receives_only_window_releases(message):
    analyst = Analyst(max_count=10)
    with pytest.raises(TypeError, match="WindowRelease"):
        analyst.receive(message)
    assert analyst.releases == [] and analyst.reports == []


def test_analyst_receives_a_json_string_only_after_from_json():
    release = WindowRelease(0, [1, 2, 3], "count", 1.0, 1.0, "record", None, 10)
    analyst = Analyst(max_count=10)
    with pytest.raises(TypeError):
        analyst.receive(to_json(release))
    report = analyst.receive(from_json(to_json(release)))
    assert report.scores.shape == (3,)


def test_owner_receives_only_reports():
    owner = DataOwner(BINS, max_count=10, random_state=0)
    with pytest.raises(TypeError, match="AnalystReport"):
        owner.receive({"feedback": None})


def sample_messages():
    sampling = SamplingParameters("prediction", 100_000, 95693, 3.8e-4)
    feedback = SensitivityFeedback(
        [[0.0, 0.0], [0.5, 0.25], [1.0, 1.0]], [0.0, 0.1, 0.7], [0.5, 0.4, 0.1]
    )
    return [
        sampling,
        SamplingParameters("learning", 1305, 1305, 0.004182869932698051),
        WindowRelease(3, [0, 5, -2, 41], "count", 20.0, 20.0, "global", None, 20),
        WindowRelease(
            1, [0.1, -0.35, 1.7], "disentangled", 0.3 / 1.5, 0.3, "prediction", sampling, 500
        ),
        feedback,
        AnalystReport(2, [False, True, False], [0.0, 1.0, 1 / 3], feedback),
    ]


@pytest.mark.parametrize("message", sample_messages(), ids=lambda m: type(m).__name__)
def test_messages_round_trip_through_json(message):
    text = to_json(message)
    assert isinstance(text, str)
    back = from_json(text)
    assert type(back) is type(message) and back == message
    assert to_json(back) == text


def test_messages_are_frozen_and_compare_by_value():
    release = sample_messages()[3]
    with pytest.raises(dataclasses.FrozenInstanceError):
        release.values = np.zeros(3)
    with pytest.raises(ValueError):
        release.values[0] = 5.0  # read-only array
    changed = dataclasses.replace(release, values=[0.1, -0.35, 1.8])
    assert changed != release
    assert dataclasses.replace(release, phase="learning") != release
    raw = np.array([1, 2, 3])
    copy = WindowRelease(0, raw, "count", 1.0, 1.0, "record", None, 5)
    raw[0] = 99  # the message owns a copy
    assert copy.values[0] == 1


def test_json_refuses_what_is_not_a_message():
    with pytest.raises(TypeError):
        to_json({"values": [1, 2]})
    with pytest.raises(ValueError, match="not a DPOAD message"):
        from_json('{"type": "ndarray", "message": {}}')
    with pytest.raises(ValueError, match="not a DPOAD message"):
        from_json("[1, 2, 3]")


def stream(n_windows=6, seed=5):
    rng = np.random.default_rng(seed)
    windows = []
    for i in range(n_windows):
        counts = rng.poisson(30, N_BINS)
        if i == 4:
            counts[3] = 180
        windows.append(window_with_counts(counts, rng=rng))
    return windows


@pytest.mark.parametrize("detector", ["baseline", "kse"])
@pytest.mark.parametrize("mechanism", ["dpoad", "painfree", "laplace", "record"])
def test_a_run_over_json_only_equals_the_estimator(mechanism, detector):
    params = {
        "epsilon": 1.0,
        "gamma": 0.05,
        "mechanism": mechanism,
        "max_count": 200,
        "learning_windows": 2,
        "sensitivity_samples": 20_000,
    }
    windows = stream()
    owner = DataOwner(BINS, random_state=7, **params)
    # the analyst's side of the estimator's parameters (it learns over the same windows)
    analyst = Analyst(max_count=200, detector=detector, learning_windows=2, threshold=0.8)
    wire = []
    for X in windows:
        release_text = to_json(owner.release(X))
        report_text = to_json(analyst.receive(from_json(release_text)))
        owner.receive(from_json(report_text))
        wire.append((release_text, report_text))
    det = DPOAD(BINS, detector=detector, threshold=0.8, random_state=7, **params)
    for X in windows:
        det.partial_fit(X)
    flags = np.vstack([from_json(report).anomalies for _, report in wire])
    np.testing.assert_array_equal(flags, det.anomalies_)
    assert [from_json(r) for r, _ in wire] == det.releases_
    assert [from_json(r) for _, r in wire] == det.reports_
    if mechanism == "dpoad":
        assert [r.space for r in det.releases_] == ["count"] * 2 + ["disentangled"] * 4


def _numeric_leaves(obj, seen=None):
    """Every array and number reachable from ``obj`` (attributes, items, dataclass fields)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(
        obj, (type, np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
    ):
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "biuf":
            yield obj
        elif obj.dtype.kind == "O":
            for item in obj.ravel():
                yield from _numeric_leaves(item, seen)
        return
    if isinstance(obj, (bool, int, float, np.number)):
        yield np.asarray(obj)
        return
    if isinstance(obj, (str, bytes)) or callable(obj) and not hasattr(obj, "__dict__"):
        return
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _numeric_leaves(key, seen)
            yield from _numeric_leaves(value, seen)
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        if obj and all(isinstance(v, (int, float, np.number)) for v in obj):
            yield np.asarray(list(obj), dtype=float)
        for value in obj:
            yield from _numeric_leaves(value, seen)
        return
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            yield from _numeric_leaves(getattr(obj, f.name), seen)
    for value in getattr(obj, "__dict__", {}).values():
        yield from _numeric_leaves(value, seen)
    for name in getattr(type(obj), "__slots__", ()):
        if hasattr(obj, name):
            yield from _numeric_leaves(getattr(obj, name), seen)


def _contains_run(haystack, needle):
    flat = np.asarray(haystack, dtype=float).ravel()
    if flat.size < needle.size:
        return False
    windows = np.lib.stride_tricks.sliding_window_view(flat, needle.size)
    return bool(np.any(np.all(windows == needle, axis=1)))


@pytest.mark.parametrize("detector", ["baseline", "kse"])
@pytest.mark.parametrize("mechanism", ["dpoad", "painfree", "laplace", "record"])
def test_nothing_reachable_holds_true_counts_or_records(mechanism, detector):
    max_count = 200
    counts = distinctive_counts(5)
    rng = np.random.default_rng(6)
    windows = [window_with_counts(c, rng=rng) for c in counts]
    det = DPOAD(
        BINS,
        epsilon=1.0,
        mechanism=mechanism,
        detector=detector,
        max_count=max_count,
        sensitivity_samples=20_000,
        random_state=0,
    )
    for X in windows:
        det.partial_fit(X)
    # the fixture works: the walk reaches the releases and would see a planted vector
    leaves = list(_numeric_leaves(det))
    assert any(_contains_run(leaf, det.releases_[0].values.astype(float)) for leaf in leaves)
    planted = det.analyst_.releases[:]
    det.analyst_.releases.append(counts[2].astype(float))
    assert any(_contains_run(leaf, counts[2].astype(float)) for leaf in _numeric_leaves(det))
    det.analyst_.releases[:] = planted
    records = np.concatenate(windows)
    for leaf in _numeric_leaves(det):
        assert not np.any(np.isin(np.asarray(leaf, float).ravel(), records)), "a record leaked"
        for c in counts:
            assert not _contains_run(leaf, c.astype(float)), "a true count vector leaked"
            assert not _contains_run(leaf, c / max_count), "a true disentangled vector leaked"


@pytest.mark.parametrize("detector", ["baseline", "kse"])
def test_the_analyst_holds_no_reference_to_the_owner_or_the_estimator(detector):
    det = run("dpoad", n_windows=3, detector=detector)
    reached = reachable(det.analyst_).values()
    assert not any(isinstance(o, (DataOwner, DPOAD)) for o in reached)
    assert any(isinstance(o, WindowRelease) for o in reached)  # the walk does reach things


def test_random_state_none_draws_fresh_noise():
    X = _window()
    first = DPOAD(BINS, mechanism="record", max_count=10).fit(X).releases_[0]
    second = DPOAD(BINS, mechanism="record", max_count=10).fit(X).releases_[0]
    assert first != second  # 16 cells of geometric noise: equal with probability < 1e-5


@pytest.mark.parametrize("detector", ["baseline", "kse"])  # the two kinds of feedback
def test_data_owner_keeps_no_counts_between_calls(detector, monkeypatch):
    made = []

    def recording_histogram(X, bins):
        counts = window_histogram(X, bins)
        made.append(weakref.ref(counts))
        return counts

    monkeypatch.setattr(owner_module, "window_histogram", recording_histogram)
    owner = DataOwner(BINS, mechanism="dpoad", max_count=200, random_state=0)
    analyst = Analyst(max_count=200, detector=detector)
    before = set(vars(owner))
    counts = distinctive_counts(3)
    for c in counts:
        release = owner.release(window_with_counts(c))
        owner.receive(analyst.receive(release))
        assert set(vars(owner)) == before
    gc.collect()
    assert len(made) == 3 and all(ref() is None for ref in made)
    for leaf in _numeric_leaves(owner):
        for c in counts:
            assert not _contains_run(leaf, c.astype(float))


# ============================================================ 4. mechanisms
def run(mechanism, n_windows=4, **kwargs):
    params = {"epsilon": 1.0, "max_count": 100, "sensitivity_samples": 20_000, "random_state": 0}
    params.update(kwargs)
    det = DPOAD(BINS, mechanism=mechanism, **params)
    rng = np.random.default_rng(8)
    for _ in range(n_windows):
        det.partial_fit(window_with_counts(rng.poisson(20, N_BINS), rng=rng))
    return det


@pytest.mark.parametrize(
    "mechanism, sensitivity, phase", [("laplace", 100.0, "global"), ("record", 1.0, "record")]
)
def test_pure_mechanisms_use_a_fixed_sensitivity(mechanism, sensitivity, phase):
    det = run(mechanism, epsilon=0.5)
    for release in det.releases_:
        assert (release.sensitivity, release.phase, release.space) == (sensitivity, phase, "count")
        assert release.noise_scale == sensitivity / 0.5
        assert release.sampling is None and release.values.dtype.kind == "i"
    assert det.sampling_parameters_ is None


@pytest.mark.parametrize(
    "mechanism, max_count, epsilon",
    [("laplace", 20, 1.0), ("record", 20, 1.0), ("laplace", 50, 2.0)],
)
def test_count_noise_has_the_stated_scale(mechanism, max_count, epsilon):
    # 20 000 cells of one release: two-sided geometric noise with α = exp(-ε/Δ) has
    # variance 2α/(1-α)²; the sample variance is within 15 % of it except with
    # probability < 1e-6 (relative sd ≈ sqrt((κ-1)/n) ≈ 1.6 %, κ ≈ 6)
    bins = np.linspace(0, 1, 20_001)
    counts = np.random.default_rng(9).integers(0, max_count + 1, 20_000)
    owner = DataOwner(
        bins, epsilon=epsilon, mechanism=mechanism, max_count=max_count, random_state=1
    )
    release = owner.release(window_with_counts(counts, bins=bins))
    delta = max_count if mechanism == "laplace" else 1
    alpha = math.exp(-epsilon / delta)
    noise = release.values - counts
    assert noise.var() == pytest.approx(2 * alpha / (1 - alpha) ** 2, rel=0.15)
    assert abs(noise.mean()) < 6 * math.sqrt(2 * alpha / (1 - alpha) ** 2 / noise.size)


def test_counts_above_max_count_are_clipped_before_noise():
    bins = np.linspace(0, 1, 2001)
    counts = np.full(2000, 30)
    owner = DataOwner(bins, mechanism="record", max_count=10, random_state=2)
    release = owner.release(window_with_counts(counts, bins=bins))
    # geometric(ε=1) noise around 10: the median is exactly 10 (P(Z = 0) ≈ 0.46)
    assert np.median(release.values) == 10


def order_statistic_cdf(cdf_values, m, k):
    """P(k-th smallest of m i.i.d. draws <= x) = P(Binomial(m, F(x)) >= k)."""
    return stats.binom.sf(k - 1, m, np.asarray(cdf_values))


def first_releases(n, X, seed, **params):
    """The first window's release by n fresh owners drawing from one seeded generator.

    A random-DP stream stops before n γ reaches 1 (one window at γ >= 0.5), so
    independent draws of a first window's release come from fresh owners.
    """
    rng = np.random.default_rng(seed)
    return [DataOwner(BINS, random_state=rng, **params).release(X) for _ in range(n)]


@pytest.mark.slow
def test_painfree_sensitivity_is_the_kth_of_m_uniform_draws_floored_at_1():
    # γ = 0.9: m = k = 2, so Δ = max(U1, U2), U uniform on {0..10}, and Δ = 0 -> 1.
    # chi-square against the exact pmf; false-failure rate 1e-4
    max_count, n = 10, 4000
    p = sampling_parameters(0.9)
    assert (p.m, p.k) == (2, 2)
    X = window_with_counts(np.full(N_BINS, 5))
    deltas = np.array(
        [
            r.sensitivity
            for r in first_releases(n, X, 3, gamma=0.9, mechanism="painfree", max_count=max_count)
        ]
    )
    assert deltas.min() >= 1 and deltas.max() <= max_count
    cdf = order_statistic_cdf(np.arange(1, max_count + 2) / (max_count + 1), p.m, p.k)
    pmf = np.diff(np.r_[0.0, cdf])
    pmf[1] += pmf[0]  # the floor at 1
    pmf = pmf[1:]
    observed = np.bincount(deltas.astype(int), minlength=max_count + 1)[1:]
    assert stats.chisquare(observed, n * pmf).pvalue > 1e-4


def test_painfree_at_gamma_005_is_about_max_count():
    # k = m = 1305: Δ = the largest of 1305 uniform draws on {0..1000};
    # P(Δ < 990) = (990/1001)^1305 < 1e-6 per window
    det = run("painfree", n_windows=5, max_count=1000)
    for release, params in zip(det.releases_, det.sampling_parameters_):
        assert params == SamplingParameters("learning", 1305, 1305, params.rho)
        assert release.sampling == params and release.phase == "learning"
        assert 990 <= release.sensitivity <= 1000
        assert release.noise_scale == release.sensitivity / 1.0


def test_painfree_floor_at_1():
    # max_count = 1 at γ = 0.9: the max of two draws on {0, 1} is 0 one time in four
    X = window_with_counts(np.ones(N_BINS, int))
    releases = first_releases(200, X, 4, gamma=0.9, mechanism="painfree", max_count=1)
    assert {r.sensitivity for r in releases} == {1.0}


@pytest.mark.parametrize("detector", ["kse", "baseline"])  # the paper's feedback, the default's
def test_dpoad_phases_and_sensitivity_floor(detector):
    max_count = 100
    det = run(
        "dpoad",
        n_windows=6,
        learning_windows=2,
        max_count=max_count,
        epsilon=2.0,
        detector=detector,
    )
    assert [r.phase for r in det.releases_] == ["learning"] * 2 + ["prediction"] * 4
    assert [r.space for r in det.releases_] == ["count"] * 2 + ["disentangled"] * 4
    learning = sampling_parameters(0.05)
    prediction = sampling_parameters(0.05, "prediction", m=20_000, epsilon=2.0, learning_windows=2)
    assert det.sampling_parameters_ == [learning] * 2 + [prediction] * 4
    for release in det.releases_:
        # the float-safe grid adds at most a relative 2^-20 to the scale Δ/ε
        assert release.noise_scale == pytest.approx(release.sensitivity / 2.0, rel=2e-6)
        steps = release.values / LaplaceMechanism(2.0, release.sensitivity).granularity
        assert np.array_equal(steps, np.rint(steps))  # on the grid: float-safe
    for release in det.releases_[2:]:
        assert release.sensitivity <= 1.0
        assert release.sensitivity >= 1.0 / max_count
        assert release.values.dtype.kind == "f"


def prediction_owner(support, probabilities, *, max_count=100, gamma=0.05, m=100_000, seed=0):
    """A dpoad owner in its prediction phase with a given learnt distribution.

    ``seed`` is its random_state: an int, or a generator shared by several owners.
    """
    owner = DataOwner(
        BINS,
        epsilon=1.0,
        gamma=gamma,
        mechanism="dpoad",
        max_count=max_count,
        sensitivity_samples=m,
        random_state=seed,
    )
    X = window_with_counts(np.full(N_BINS, 10))
    owner.release(X)  # the learning window
    feedback = SensitivityFeedback([[0.0, 0.0], [1.0, 1.0]], support, probabilities)
    owner.receive(AnalystReport(0, np.zeros(N_BINS, bool), np.zeros(N_BINS), feedback))
    return owner, X


@pytest.mark.parametrize(
    "probabilities, expected", [([0.5, 0.46, 0.04], 0.2), ([0.5, 0.45, 0.05], 0.5)]
)
def test_dpoad_sensitivity_is_the_kth_of_m_learnt_draws(probabilities, expected):
    # m = 10^5, k = 95693: the number of draws <= 0.2 is Binomial(10^5, p) with
    # p = 0.96 (>= k except with probability < 1e-6) or p = 0.95 (< k except < 1e-6)
    owner, X = prediction_owner([0.1, 0.2, 0.5], probabilities)
    assert owner.prediction_parameters.k == 95693
    releases = [owner.release(X) for _ in range(5)]
    assert {r.sensitivity for r in releases} == {expected}
    assert {r.phase for r in releases} == {"prediction"}


@pytest.mark.slow
def test_dpoad_sensitivity_distribution_for_small_m():
    # γ = 0.45, m = 50: k = 40 of 50 draws from a 5-point learnt distribution; the
    # sensitivity's law is the exact order statistic (chi-square, false failure 1e-4).
    # The stream's γ allows the learning window and one prediction window (2γ < 1;
    # at γ >= 0.5 the prediction phase is never reached), so each draw is the
    # first prediction release of a fresh owner, all drawing from one seeded generator
    support = np.array([0.05, 0.1, 0.2, 0.4, 0.8])
    prob = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    rng = np.random.default_rng(5)
    n = 3000
    owners = [prediction_owner(support, prob, gamma=0.45, m=50, seed=rng) for _ in range(n)]
    p = owners[0][0].prediction_parameters
    assert (p.m, p.k) == (50, 40)
    releases = [owner.release(X) for owner, X in owners]
    assert {r.phase for r in releases} == {"prediction"}
    deltas = np.array([r.sensitivity for r in releases])
    pmf = np.diff(np.r_[0.0, order_statistic_cdf(np.cumsum(prob), p.m, p.k)])
    observed = np.array([np.sum(deltas == s) for s in support])
    assert observed.sum() == n
    keep = n * pmf > 5
    expected = n * pmf[keep]
    assert (
        stats.chisquare(observed[keep], expected * observed[keep].sum() / expected.sum()).pvalue
        > 1e-4
    )


def test_dpoad_sensitivity_floor_is_g1_minus_g0():
    owner, X = prediction_owner([0.0], [1.0], max_count=40)
    release = owner.release(X)
    assert release.sensitivity == pytest.approx(1 / 40)
    assert release.noise_scale == pytest.approx(1 / 40)


@pytest.mark.parametrize(
    "mechanism, notion",
    [
        ("laplace", "pure ε-DP"),
        ("record", "pure ε-DP"),
        ("painfree", "(ε, γ)-random DP"),
        ("dpoad", "(ε, γ)-random DP"),
    ],
)
def test_privacy_cost_per_window(mechanism, notion):
    det = DPOAD(BINS, epsilon=0.7, gamma=0.02, mechanism=mechanism, max_count=10)
    cost = det.privacy_cost()
    assert cost.notion == notion and cost.neighbours == "add_remove"
    assert cost.epsilon == 0.7 and cost.delta == 0
    assert cost.gamma == (0.02 if "random" in notion else 0.0)


@pytest.mark.parametrize("mechanism", ["laplace", "record", "painfree", "dpoad"])
def test_privacy_spent_composes_sequentially(mechanism):
    random_dp = mechanism in ("painfree", "dpoad")
    # five windows: a random-DP stream needs 5 γ < 1 (gamma is unused by the pure ones)
    det = run(mechanism, n_windows=5, epsilon=0.5, gamma=0.15 if random_dp else 0.3)
    spent = det.privacy_spent_
    assert spent.epsilon == pytest.approx(2.5)
    assert spent.gamma == pytest.approx(0.75 if random_dp else 0.0)  # 5 × 0.15
    assert spent.neighbours == "add_remove"
    assert spent == compose_sequential([det.privacy_cost()] * 5)
    # one learning window: dpoad's prediction phase starts at window 2, where 2 γ < 1
    det3 = run(
        mechanism,
        n_windows=3,
        epsilon=0.5,
        gamma=0.3,
        learning_windows=1,
        count_model="multinomial",
    )
    assert det3.privacy_spent_.gamma == pytest.approx(0.9 if random_dp else 0.0)
    # the composition caps γ at min(1, 5 × 0.3); a stream never gets there: its fourth
    # window at γ = 0.3 is refused, naming gamma, and the stream stays at three
    five = compose_sequential([det3.privacy_cost()] * 5)
    assert five.gamma == (1.0 if random_dp else 0.0) and five.epsilon == pytest.approx(2.5)
    X = window_with_counts(np.full(N_BINS, 20))
    if random_dp:
        with pytest.raises(ValueError, match="gamma"):
            det3.partial_fit(X)
        assert det3.n_windows_ == 3 and det3.privacy_spent_.gamma == pytest.approx(0.9)
        assert det3.privacy_spent_.epsilon == pytest.approx(1.5)
    else:
        det3.partial_fit(X).partial_fit(X)
        assert det3.n_windows_ == 5 and det3.privacy_spent_ == spent


def test_random_dp_never_composes_silently_with_other_relations():
    random_dp = DPOAD(BINS, mechanism="dpoad", max_count=10).privacy_cost()
    pure = DPOAD(BINS, mechanism="laplace", max_count=10).privacy_cost()
    # same relation: the result is the weaker notion, and says so
    mixed = compose_sequential([random_dp, pure])
    assert mixed.notion == "(ε, γ)-random DP" and mixed.gamma == 0.05
    assert any("weakest" in note for note in mixed.notes)
    # another relation: refused, and random DP has no group-privacy conversion
    replace_one = PrivacyCost.pure(1.0, neighbours="replace")
    with pytest.raises(ValueError, match="neighbouring relations"):
        compose_sequential([random_dp, replace_one])
    with pytest.raises(ValueError, match="group-privacy"):
        compose_sequential([random_dp, replace_one], neighbours="replace")
    with pytest.raises(ValueError):
        random_dp.under("replace")
    # the pure cost converts (2ε under replace-one), the random-DP one does not
    assert pure.under("replace").epsilon == 2.0


# ============================================================ 5. bad input
def _window():
    return window_with_counts(np.full(N_BINS, 3))


@pytest.mark.parametrize(
    "params, X, name",
    [
        ({}, np.array([]), "X"),
        ({}, np.zeros((0, 1)), "X"),
        ({}, np.r_[0.1, np.nan], "X"),
        ({}, np.r_[0.1, np.inf], "X"),
        ({}, np.full((4, 2), 0.5), "features"),
        ({"gamma": 0.0}, None, "gamma"),
        ({"gamma": 1.0}, None, "gamma"),
        ({"gamma": 0.0, "mechanism": "laplace"}, None, "gamma"),  # validated though unused
        ({"epsilon": 0.0}, None, "epsilon"),
        ({"epsilon": -1.0}, None, "epsilon"),
        ({"max_count": 0}, None, "max_count"),
        ({"mechanism": "gaussian"}, None, "mechanism"),
        ({"bins": [0.0, 2.0, 1.0]}, None, "bins"),
        ({"bins": [0.0]}, None, "bins"),
        ({"bins": [0.0, np.nan]}, None, "bins"),
        ({"bins": [np.linspace(0, 1, 3), [1.0, 0.0]]}, None, "bins"),
        ({"threshold": 1.0}, None, "threshold"),
        ({"learning_windows": 0}, None, "learning_windows"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_parameter_and_leaves_dpoad_unfitted(params, X, name):
    kwargs = {"bins": BINS, "max_count": 10, "random_state": 0}
    kwargs.update(params)
    det = DPOAD(**kwargs)
    with pytest.raises(ValueError, match=name):
        det.fit(_window() if X is None else X)
    with pytest.raises(NotFittedError):
        check_is_fitted(det)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": 1.5}, "gamma"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"max_count": 0}, "max_count"),
        ({"mechanism": "gaussian"}, "mechanism"),
        ({"bins": [1.0, 1.0]}, "bins"),
        ({"learning_windows": 0}, "learning_windows"),
    ],
)
def test_data_owner_bad_parameters(kwargs, name):
    params = {"bins": BINS, "max_count": 10}
    params.update(kwargs)
    with pytest.raises(ValueError, match=name):
        DataOwner(**params)


@pytest.mark.parametrize("X, match", [(np.array([]), "empty"), (np.r_[0.2, np.nan], "NaN")])
def test_data_owner_bad_windows_release_nothing(X, match):
    owner = DataOwner(BINS, max_count=10, random_state=0)
    with pytest.raises(ValueError, match=match):
        owner.release(X)
    assert owner.n_released == 0


def test_analyst_bad_parameters_and_mismatched_releases():
    with pytest.raises(ValueError, match="max_count"):
        Analyst(max_count=0)
    with pytest.raises(ValueError, match="threshold"):
        Analyst(threshold=1.0)
    analyst = Analyst(max_count=10)
    with pytest.raises(ValueError, match="count domain"):
        analyst.receive(WindowRelease(0, [1, 2], "count", 1.0, 1.0, "record", None, 20))
    analyst.receive(WindowRelease(0, [1, 2], "count", 1.0, 1.0, "record", None, 10))
    with pytest.raises(ValueError, match="cells"):
        analyst.receive(WindowRelease(1, [1, 2, 3], "count", 1.0, 1.0, "record", None, 10))


def test_a_refused_later_window_changes_nothing():
    det = DPOAD(BINS, max_count=10, random_state=0).fit(_window())
    state = (det.n_windows_, len(det.releases_), det.owner_.n_released, det.anomalies_.copy())
    for X in (np.r_[0.5, np.nan], np.full((3, 2), 0.5), np.array([])):
        with pytest.raises(ValueError):
            det.partial_fit(X)
    assert (det.n_windows_, len(det.releases_), det.owner_.n_released) == state[:3]
    np.testing.assert_array_equal(det.anomalies_, state[3])


def test_records_outside_the_bins_count_in_the_edge_bins():
    # one added record outside the bins must not turn a release into an exception
    # (the output would depend on that record): it is clipped to the nearest edge bin
    edges = np.linspace(0.0, 1.0, 5)
    counts = window_histogram(np.r_[-3.0, 0.1, 0.6, 1.0, 9.5], edges)
    assert counts.tolist() == [2, 0, 1, 2]
    two_d = window_histogram(np.array([[-1.0, 2.0], [0.5, 0.5]]), [edges, edges])
    assert two_d.sum() == 2 and two_d[3] == 1  # (first bin, last bin) in C order
    det = DPOAD(edges, max_count=10, mechanism="record", random_state=0)
    det.fit(np.r_[0.5, 0.5, 42.0])
    assert det.n_windows_ == 1


def test_max_count_none_warns_and_uses_the_window_size():
    det = DPOAD(BINS, mechanism="laplace", random_state=0)
    X = _window()
    with pytest.warns(PrivacyLeakWarning, match="max_count"):
        det.fit(X)
    assert det.releases_[0].max_count == X.size and det.releases_[0].sensitivity == X.size
    # a leak (the budget report lists it), not an assumption the guarantee rests on
    assert not any("max_count=None" in a for a in det.privacy_assumptions())
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        DPOAD(BINS, mechanism="laplace", max_count=50, random_state=0).fit(X)


def test_fit_resets_and_is_reproducible():
    windows = stream(4)
    det = DPOAD(BINS, mechanism="dpoad", max_count=200, sensitivity_samples=20_000, random_state=3)
    for X in windows:
        det.partial_fit(X)
    first_owner = det.owner_
    det.fit(windows[0])
    assert det.n_windows_ == 1 and len(det.releases_) == 1 and det.anomalies_.shape[0] == 1
    assert det.owner_ is not first_owner and det.owner_.n_released == 1
    assert det.releases_[0].phase == "learning"
    fresh = DPOAD(
        BINS, mechanism="dpoad", max_count=200, sensitivity_samples=20_000, random_state=3
    )
    fresh.fit(windows[0])
    assert fresh.releases_ == det.releases_ and fresh.reports_ == det.reports_
    assert det.privacy_spent_.epsilon == 1.0


def test_multi_feature_bins_flatten_like_histogramdd():
    rng = np.random.default_rng(10)
    bins = [np.array([0.0, 0.5, 1.0]), np.array([-2.0, 0.0, 1.0, 4.0]), np.linspace(0, 1, 5)]
    X = np.column_stack([rng.uniform(0, 1, 500), rng.uniform(-2, 4, 500), rng.uniform(0, 1, 500)])
    X[:5] = [
        [1.0, 4.0, 1.0],
        [0.0, -2.0, 0.0],
        [0.5, 0.0, 0.25],
        [1.0, 1.0, 0.5],
        [0.5, 4.0, 0.75],
    ]  # edges, right edges included in the last cell
    expected = np.histogramdd(X, bins=bins)[0].ravel().astype(np.int64)
    np.testing.assert_array_equal(window_histogram(X, bins), expected)
    np.testing.assert_array_equal(
        window_histogram(X[:, :1].ravel(), bins[0]), np.histogram(X[:, 0], bins[0])[0]
    )
    det = DPOAD(bins, mechanism="record", max_count=100, random_state=0)
    for _ in range(3):
        det.partial_fit(X)
    assert det.n_bins_ == 2 * 3 * 4 and det.anomalies_.shape == (3, 24)
    assert det.n_features_in_ == 3
    with pytest.raises(ValueError, match="features"):
        det.partial_fit(X[:, :2])


@pytest.mark.parametrize("detector", ["baseline", "kse"])
def test_a_burst_is_flagged_at_its_iteration(detector):
    rng = np.random.default_rng(11)
    det = DPOAD(
        np.linspace(0, 1, 21),
        epsilon=1.0,
        max_count=500,
        mechanism="record",
        detector=detector,
        random_state=0,
    )
    for i in range(6):
        window = rng.uniform(0, 1, 1000)
        if i == 4:
            window[:300] = 0.52
        det.partial_fit(window)
    assert det.anomalous_windows_[4] and det.anomalies_[4, 10]
    if detector == "baseline":
        # the burst takes 30 % of the window's records from the other bins: any other
        # bin flagged is one left below its share of the window
        others = np.flatnonzero(det.anomalies_[4])
        others = others[others != 10]
        assert np.all(det.releases_[4].values[others] < det.expected_counts_[others])
    else:
        assert np.flatnonzero(det.anomalies_[4]).tolist() == [10]


# ============================================= scale: a large public max_count
def test_a_large_max_count_keeps_the_analyst_state_small():
    # counts spread over {0..10^7} (laplace noise of scale 10^7): the analyst's
    # pool holds its distinct pseudo-counts, not a table over the count domain,
    # and its scores stay exact
    max_count = 10**7
    det = run("laplace", n_windows=4, max_count=max_count, detector="kse")
    pooled = np.concatenate(det.analyst_.pseudo_counts)
    assert np.unique(pooled).size > 8  # really spread
    largest = max(np.asarray(leaf).size for leaf in _numeric_leaves(det.analyst_))
    assert largest <= pooled.size
    raw = brute_kse(pooled)
    expected = (raw - raw.min()) / (raw.max() - raw.min())
    np.testing.assert_allclose(det.anomaly_scores_[-1], expected[-N_BINS:], rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_values", [7, 1_000, 10**6])
def test_uniform_kth_draw_is_the_draw_over_the_whole_domain(n_values):
    from skdp_anomaly.dpoad._sampling import kth_smallest_draw, kth_smallest_uniform

    for seed in range(5):
        fast = kth_smallest_uniform(n_values, 50, 40, np.random.default_rng(seed))
        full = kth_smallest_draw(np.arange(n_values), None, 50, 40, np.random.default_rng(seed))
        assert fast == full and 0 <= fast < n_values


# ============================ scikit-learn contracts on (n, 1) windows
def test_sklearn_contracts_on_single_feature_windows():
    # what the common checks declared in tests/test_common.py cannot exercise (their
    # harness hands 1-D X to a one_d_array estimator and then indexes it as 2-D)
    import pickle

    from sklearn.base import clone

    rng = np.random.default_rng(12)
    X = rng.uniform(0, 1, size=(200, 1))
    det = DPOAD(BINS, max_count=50, random_state=0)
    params = det.get_params()
    public_before = {k for k in vars(det) if not k.startswith("_")}
    assert det.fit(X) is det and det.partial_fit(np.asfortranarray(X)) is det
    assert det.n_features_in_ == 1
    assert {k for k in vars(det) if not k.startswith("_")} - public_before == {
        k for k in vars(det) if k.endswith("_") and not k.startswith("_")
    }
    after = det.get_params()
    assert params.keys() == after.keys()
    assert all(after[k] is params[k] for k in params)  # parameters untouched
    one = DPOAD(BINS, max_count=50, random_state=0).fit(X[:1])  # a one-record window
    assert one.anomalies_.shape == (1, N_BINS)
    objects = DPOAD(BINS, max_count=50, random_state=0).fit(X.astype(object))
    assert objects.releases_ == DPOAD(BINS, max_count=50, random_state=0).fit(X).releases_
    # pickling keeps the run: both copies release the same next window
    copy = pickle.loads(pickle.dumps(det))
    assert copy.reports_ == det.reports_
    np.testing.assert_array_equal(copy.partial_fit(X).anomalies_, det.partial_fit(X).anomalies_)
    assert copy.releases_[-1] == det.releases_[-1]
    # clone: same parameters, unfitted
    fresh = clone(det)
    with pytest.raises(NotFittedError):
        check_is_fitted(fresh)
    assert fresh.fit(X).releases_ == DPOAD(BINS, max_count=50, random_state=0).fit(X).releases_
    with pytest.raises(TypeError, match="[Ss]parse"):
        from scipy.sparse import csr_matrix

        DPOAD(BINS, max_count=50).fit(csr_matrix(X))
