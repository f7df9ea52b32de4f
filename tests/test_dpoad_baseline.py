"""DPOAD's calibrated detector: noisy-Poisson tails, rate bounds, Holm, the false-alarm level.

Statistical tests use fixed seeds; each states the chance that a correct
implementation fails it.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from skdp_anomaly import DPOAD
from skdp_anomaly.dpoad import Analyst, AnalystReport, DataOwner, from_json, to_json
from skdp_anomaly.dpoad._baseline import PoissonBaseline
from skdp_anomaly.exceptions import DPOADNoiseWarning
from skdp_anomaly.dpoad._analyst import benign_feedback
from skdp_anomaly.dpoad._baseline import (
    ReleaseNoise,
    exact_rate_bounds,
    holm_adjust,
    noisy_poisson_cdf,
    noisy_poisson_sf,
    poisson_rate_bounds,
)
from skdp_anomaly.privacy import GeometricMechanism


# ------------------------------------------------------------------ tails
def _brute_log_tail(x, mu, noise, upper):
    """log P(C + Z >= x) (upper) or log P(C + Z <= x), summing over C in log space."""
    c = np.arange(0, int(mu + 60 * math.sqrt(mu) + 400))
    log_q = math.log(noise.decay)
    a, delta = noise._edge
    t = (x - c) if upper else (c - x)  # P(Z >= t)
    threshold = 1 if noise.lattice else 0
    # P(Z >= t) = A q^t for t >= 1 (lattice) / t > 0; else 1 - A q^(δ - t)
    far = np.log(a) + np.maximum(t, 0) * log_q
    near = np.log1p(-a * np.exp((delta - np.minimum(t, 0)) * log_q))
    strictly = t >= threshold if noise.lattice else t > threshold
    log_pz = np.where(strictly, far, near)
    return logsumexp(stats.poisson.logpmf(c, mu) + log_pz)


CASES = [
    (lattice, scale, mu, x)
    for lattice in (True, False)
    for scale in (0.05, 1.0, 7.0)
    for mu in (1e-6, 0.3, 25.0, 400.0)
    for x in (-6.0, 0.0, 1.0, 4.5, 30.0, 70.0, 480.0)
]


@pytest.mark.parametrize("lattice, scale, mu, x", CASES)
def test_the_closed_form_tails_equal_the_convolution(lattice, scale, mu, x):
    noise = ReleaseNoise.of_scale(scale, lattice)
    if lattice:
        x = float(np.round(x))
    for upper, tail in ((True, noisy_poisson_sf), (False, noisy_poisson_cdf)):
        expected = _brute_log_tail(x, mu, noise, upper)
        got = float(tail(x, mu, noise))
        if expected > -600:
            assert got == pytest.approx(math.exp(expected), rel=1e-6, abs=1e-300)
        else:
            assert got <= 1e-250


def test_far_tails_stay_accurate_where_the_tilted_cdf_underflows():
    # μ/q = 13 600: scipy's Poisson CDF at 5 300 underflows; the series bound takes over
    noise = ReleaseNoise.of_scale(1.0, lattice=True)
    for x in (5300.0, 5400.0):
        expected = _brute_log_tail(x, 5000.0, noise, upper=True)
        assert math.log(float(noisy_poisson_sf(x, 5000.0, noise))) == pytest.approx(
            expected, rel=1e-6
        )
    expected = _brute_log_tail(4700.0, 5000.0, noise, upper=False)
    assert math.log(float(noisy_poisson_cdf(4700.0, 5000.0, noise))) == pytest.approx(
        expected, rel=1e-6
    )


def test_noise_moments():
    lattice = ReleaseNoise.of_scale(2.0, lattice=True)
    z = GeometricMechanism(0.5).noise(400_000, np.random.default_rng(0))
    # 400 000 draws: the sample variance is within 2 % of the truth (> 6 sd)
    assert z.var() == pytest.approx(lattice.variance, rel=0.02)
    t = 0.2
    assert np.log(np.mean(np.exp(t * z))) == pytest.approx(float(lattice.log_mgf(t)), rel=0.02)
    assert ReleaseNoise.of_scale(2.0, lattice=False).variance == 8.0


# ------------------------------------------------------------------ rate bounds
@pytest.mark.parametrize("mu", [0.05, 3.0, 40.0])
@pytest.mark.parametrize("n_windows", [1, 3])
def test_rate_bounds_miss_at_most_their_share(mu, n_windows):
    rng = np.random.default_rng(int(mu * 100) + n_windows)
    n, miss = 100_000, 0.02
    noise = ReleaseNoise.of_scale(1.0, lattice=True)
    totals = rng.poisson(n_windows * mu, n) + sum(
        GeometricMechanism(1.0).noise(n, rng) for _ in range(n_windows)
    )
    if n_windows == 1:
        lower, upper = exact_rate_bounds(totals, noise, miss)
    else:
        lower, upper = poisson_rate_bounds(totals, n_windows, [noise] * n_windows, miss)
    # each side may miss with probability at most miss/2 = 0.01; at n = 10^5 the
    # observed rate exceeds 0.0113 (4 sd) with probability < 1e-4
    assert (upper < mu).mean() <= 0.0113
    assert (lower > mu).mean() <= 0.0113
    assert np.all(lower <= upper)


def test_the_exact_bounds_are_tight_for_one_window():
    # tight: an exact bound misses close to its share (a loose one would miss far less)
    rng = np.random.default_rng(7)
    n, miss, mu = 100_000, 0.02, 40.0
    counts = rng.poisson(mu, n) + GeometricMechanism(1.0).noise(n, rng)
    lower, upper = exact_rate_bounds(counts, ReleaseNoise.of_scale(1.0, True), miss)
    # the discrete tails make it a little conservative; false-failure rate < 1e-4
    assert 0.005 <= (upper < mu).mean() <= 0.0113


# ------------------------------------------------------------------ Holm
def test_holm_matches_its_definition():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.uniform(0, 0.2, rng.integers(1, 12))
        m = p.size
        order = np.argsort(p)
        expected = np.empty(m)
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p[i]))
            expected[i] = running
        np.testing.assert_allclose(holm_adjust(p), expected)


# ------------------------------------------------------------------ the detector
def _mixture(rng, n):
    pick = rng.random(n) < 0.5
    return np.where(pick, rng.normal(12, 3, n), rng.normal(28, 4, n))


SOURCES = {
    # i.i.d. records over 40 unit bins, with near-empty tail bins
    "mixture": (np.arange(41.0), _mixture),
    "uniform": (np.linspace(0, 1, 21), lambda rng, n: rng.uniform(0, 1, n)),
    # Poisson cell counts (a random window size), records at the bin centres
    "poisson": (
        np.arange(31.0),
        lambda rng, n: np.repeat(
            np.arange(30) + 0.5, rng.poisson(np.linspace(1, 60, 30) * n / 915)
        ),
    ),
}


def _null_rate(source, *, n_streams, n_windows=3, **params):
    bins, draw = SOURCES[source]
    flagged = []
    for s in range(n_streams):
        rng = np.random.default_rng(10_000 + s)
        det = DPOAD(bins, max_count=1000, random_state=s, **params)
        for _ in range(n_windows):
            det.partial_fit(draw(rng, 1000))
        tested = ~np.isnan(det.p_values_).all(axis=1)
        flagged += det.anomalous_windows_[tested].tolist()
    return np.mean(flagged), len(flagged)


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"epsilon": 0.2},
        {"learning_windows": 3},
        {"mechanism": "dpoad", "epsilon": 5.0, "gamma": 0.1},
    ],
    ids=["defaults", "eps0.2", "3 learning windows", "dpoad prediction phase"],
)
def test_windows_without_an_anomaly_are_flagged_at_most_alpha(source, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPOADNoiseWarning)
        rate, n = _null_rate(source, n_streams=60, n_windows=5, **params)
    # alpha = 0.05: with a true rate of 0.05, P(observed > 0.05 + 2.6 sd) < 0.5 %
    assert rate <= 0.05 + 2.6 * math.sqrt(0.05 * 0.95 / n)


def test_bursts_are_flagged_in_their_bin():
    bins, draw = SOURCES["mixture"]
    window_hits, bin_hits = [], []
    for s in range(40):
        rng = np.random.default_rng(s)
        det = DPOAD(bins, max_count=1000, random_state=s)
        cell = int(rng.integers(0, 40))
        for w in range(4):  # windows 0-2 teach the baseline
            X = draw(rng, 1000)
            if w == 3:
                X[:150] = cell + 0.5
            det.partial_fit(X)
        window_hits.append(det.anomalous_windows_[3])
        bin_hits.append(det.anomalies_[3, cell])
    # the measured rates are 1.0; with a true rate of 0.9, P(< 0.8 of 40) < 5 %
    assert np.mean(window_hits) >= 0.8 and np.mean(bin_hits) >= 0.8


def test_the_learning_windows_are_not_tested_and_the_attributes_follow():
    bins, draw = SOURCES["uniform"]
    rng = np.random.default_rng(0)
    det = DPOAD(bins, max_count=1000, learning_windows=2, random_state=0)
    det.partial_fit(draw(rng, 1000))
    assert det.expected_counts_ is None and math.isnan(det.detectable_excess_)
    det.partial_fit(draw(rng, 1000))
    det.partial_fit(draw(rng, 1000))
    assert np.isnan(det.p_values_[:2]).all() and not det.anomalies_[:2].any()
    assert np.all((det.p_values_[2] > 0) & (det.p_values_[2] <= 1))
    np.testing.assert_allclose(det.anomaly_scores_[2], 1 - det.p_values_[2])
    # the expected count is the learnt share of the window's own noisy total
    learnt = np.maximum(np.sum([r.values for r in det.releases_[:2]], axis=0), 0)
    np.testing.assert_allclose(
        det.expected_counts_, learnt / learnt.sum() * det.releases_[2].values.sum()
    )
    assert 0 < det.detectable_excess_ < 100
    assert 0.3 < det.dispersion_ < 3  # i.i.d. records: about 1


def test_the_poisson_count_model_keeps_the_learnt_rates():
    bins, draw = SOURCES["uniform"]
    rng = np.random.default_rng(0)
    det = DPOAD(bins, max_count=1000, count_model="poisson", learning_windows=2, random_state=0)
    for _ in range(3):
        det.partial_fit(draw(rng, 1000))
    # the deconvolved expected count is the learning windows' mean noisy count
    noisy = np.mean([r.values for r in det.releases_[:2]], axis=0)
    np.testing.assert_allclose(det.expected_counts_, np.maximum(noisy, 0))
    assert math.isnan(det.dispersion_)


def test_kse_keeps_the_papers_rule_and_leaves_p_values_empty():
    bins, draw = SOURCES["uniform"]
    rng = np.random.default_rng(0)
    det = DPOAD(bins, max_count=1000, detector="kse", random_state=0)
    for _ in range(3):
        det.partial_fit(draw(rng, 1000))
    assert np.isnan(det.p_values_).all() and det.expected_counts_ is None
    assert det.anomalies_[0].any()  # the paper's rule flags the top of every window


def test_the_analyst_reads_only_the_releases():
    bins, draw = SOURCES["mixture"]
    rng = np.random.default_rng(2)
    det = DPOAD(bins, max_count=1000, random_state=1)
    for _ in range(4):
        det.partial_fit(draw(rng, 1000))
    replay = Analyst(max_count=1000)
    reports = [replay.receive(from_json(to_json(r))) for r in det.releases_]
    assert reports == det.reports_
    assert [from_json(to_json(r)) for r in reports] == reports


def test_a_report_round_trips_with_and_without_the_baseline_fields():
    feedback = benign_feedback(np.array([0.0, 2.5, 40.0]), 100)
    plain = AnalystReport(0, [False, True, False], [0.0, 1.0, 0.0], feedback)
    full = AnalystReport(
        1,
        [False, True, False],
        [0.1, 0.99, 0.0],
        feedback,
        p_values=[0.9, 0.01, 1.0],
        expected_counts=[0.0, 2.5, 40.0],
        detectable_excess=12.5,
    )
    for report in (plain, full):
        assert from_json(to_json(report)) == report
    assert plain != full


def test_the_benign_feedback_is_the_poisson_mixture():
    feedback = benign_feedback(np.array([0.0, 5.0, 5.0, 50.0]), 200)
    support = np.rint(feedback.support * 200)
    assert np.all(np.diff(support) > 0) and support[0] == 0
    expected = (
        stats.poisson.pmf(support, 1e-9)
        + 2 * stats.poisson.pmf(support, 5.0)
        + stats.poisson.pmf(support, 50.0)
    ) / 4
    np.testing.assert_allclose(feedback.probabilities, expected / expected.sum(), atol=1e-12)


def test_dpoad_prediction_samples_its_delta_from_the_baseline_feedback():
    bins, draw = SOURCES["mixture"]
    rng = np.random.default_rng(4)
    det = DPOAD(bins, mechanism="dpoad", gamma=0.1, epsilon=2.0, max_count=1000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DPOADNoiseWarning)
        for _ in range(6):
            det.partial_fit(draw(rng, 1000))
    feedback = det.reports_[2].feedback  # sent with the last learning window
    np.testing.assert_array_equal(
        feedback.probabilities, benign_feedback(det.analyst_.baseline.expected, 1000).probabilities
    )
    cdf = np.cumsum(feedback.probabilities)
    prediction = [r for r in det.releases_ if r.phase == "prediction"]
    assert len(prediction) == 3
    for release in prediction:
        # Δ is the k-th smallest of m draws: the mixture's k/m quantile, up to the
        # sampling error of 10^5 draws (sd 0.0006; 0.005 is 8 sd)
        level = release.sampling.quantile_level
        at = np.searchsorted(feedback.support, release.sensitivity)
        assert feedback.support[at] == release.sensitivity
        assert cdf[at] >= level - 0.005 and (at == 0 or cdf[at - 1] <= level + 0.005)


def test_a_noise_that_hides_every_anomaly_is_reported():
    bins, draw = SOURCES["uniform"]
    rng = np.random.default_rng(0)
    for mechanism, hidden in (("laplace", True), ("record", False)):
        det = DPOAD(bins, mechanism=mechanism, max_count=1000, random_state=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(5):
                det.partial_fit(draw(rng, 1000))
        noise = [w for w in caught if issubclass(w.category, DPOADNoiseWarning)]
        assert len(noise) == int(hidden)  # once a stream, not once a window
        assert (det.detectable_excess_ > 1000) == hidden
        if hidden:
            assert "no burst in a typical cell can be flagged" in str(noise[0].message)


def test_the_owner_refuses_the_window_whose_gamma_reaches_1():
    owner = DataOwner(
        np.linspace(0, 1, 5), mechanism="painfree", gamma=0.3, max_count=50, random_state=0
    )
    for _ in range(3):
        owner.release(np.full(10, 0.5))
    with pytest.raises(ValueError, match="'gamma'.*window 4.*1.2"):
        owner.release(np.full(10, 0.5))
    assert owner.n_released == 3


def test_baseline_parameters_are_validated():
    with pytest.raises(ValueError, match="'alpha'"):
        Analyst(alpha=1.0)
    with pytest.raises(ValueError, match="'detector'"):
        Analyst(detector="ks")
    with pytest.raises(ValueError, match="'learning_windows'"):
        Analyst(learning_windows=0)
    with pytest.raises(ValueError, match="'count_model'"):
        Analyst(count_model="negbin")
    with pytest.raises(ValueError, match="learning_windows >= 2"):
        Analyst(learning_windows=1)
    with pytest.raises(ValueError, match="learning_windows >= 2"):
        DPOAD(np.linspace(0, 1, 5), learning_windows=1, max_count=5).privacy_cost()
    Analyst(learning_windows=1, detector="kse")  # learns no baseline
    Analyst(learning_windows=1, count_model="multinomial")
    baseline = PoissonBaseline.learn(
        np.array([[3.0, 40.0]]), [ReleaseNoise.of_scale(1.0, True)], 0.05
    )
    assert baseline.miss == 0.05 / 4
    assert np.all(baseline.lower <= baseline.expected) and np.all(
        baseline.expected <= baseline.upper
    )


@pytest.mark.parametrize("scale, lattice", [(1.0, True), (0.05, True), (20.0, True), (3.0, False)])
def test_p_values_equal_the_two_tailed_definition(scale, lattice):
    # p_values evaluates only the tail on x's side of the interval's middle
    rng = np.random.default_rng(int(scale * 10))
    noise = ReleaseNoise.of_scale(scale, lattice)
    mu = rng.choice([0.01, 0.5, 3.0, 25.0, 300.0], 5000)
    learn = rng.poisson(mu) + np.round(rng.laplace(0, scale, mu.size))
    baseline = PoissonBaseline.learn(learn[None, :], [noise], 0.05)
    x = (
        rng.poisson(mu)
        + np.round(rng.laplace(0, scale, mu.size))
        + rng.integers(-30, 30, mu.size) * (rng.random(mu.size) < 0.3)
    )
    tails = np.minimum(
        noisy_poisson_sf(x, baseline.upper, noise), noisy_poisson_cdf(x, baseline.lower, noise)
    )
    np.testing.assert_allclose(
        baseline.p_values(x, noise), np.minimum(2 * tails + baseline.miss, 1.0), rtol=1e-12
    )


@pytest.mark.parametrize("params", [{"gamma": 0.5}, {"gamma": 0.05, "learning_windows": 19}])
def test_a_dpoad_stream_that_cannot_reach_its_prediction_phase_is_refused_up_front(params):
    with pytest.raises(ValueError, match="'gamma'.*first prediction window"):
        DPOAD(np.linspace(0, 1, 5), mechanism="dpoad", max_count=50, **params).privacy_cost()
    with pytest.raises(ValueError, match="'gamma'.*first prediction window"):
        DataOwner(np.linspace(0, 1, 5), mechanism="dpoad", max_count=50, **params)
    # the same γ is fine where no prediction phase is needed
    DataOwner(np.linspace(0, 1, 5), mechanism="painfree", max_count=50, **params)


@pytest.mark.parametrize(
    "edges",
    [
        np.linspace(0, 1, 21),
        np.arange(10_001.0),
        np.linspace(-3.3, 7.1, 137),
        np.array([0.0, 1.0, 3.0, 7.0]),
        np.array([0.0, 1.0]),
    ],
    ids=lambda e: f"{e.size} edges",
)
def test_equal_width_bins_are_found_by_arithmetic_exactly_as_by_search(edges):
    from skdp_anomaly.dpoad._owner import _bin_index

    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.uniform(edges[0] - 1, edges[-1] + 1, 20_000),
            edges,
            np.nextafter(edges, -np.inf),
            np.nextafter(edges, np.inf),
            [1e308, -1e308],
        ]
    )
    searched = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
    np.testing.assert_array_equal(_bin_index(edges, x), searched)


def test_a_max_count_below_what_a_burst_needs_is_reported_as_the_cause():
    # 2 000 cells of ~20 counts: a cell must reach ~47 to be flagged, above max_count 30
    rng = np.random.default_rng(0)
    det = DPOAD(np.arange(2001.0), max_count=30, random_state=0)
    with pytest.warns(DPOADNoiseWarning, match="above max_count=30.*larger max_count"):
        for _ in range(4):
            det.partial_fit(rng.integers(0, 2000, 40_000) + 0.5)
    assert 20 + det.detectable_excess_ > 30
